"""``vmap`` of per-example Python control flow (NOTE [splitting the batch] in
``ftransforms/split.py``) side by side with the one-batched-program ways to write it.

1. A per-row Newton solve (B=256, trip counts 3-40): a Python ``while`` under ``vmap``
   (the batch splits once per distinct trip count), the same with ``ft.while_loop`` (one
   batched loop, every row runs until the last one converges), and the Python loop over
   rows (plain NumPy on each row).
2. A two-branch piecewise function: a Python ``if`` under ``vmap`` (two groups), the same
   with ``fnp.where`` (both branches on every row), and the Python loop over rows.

Run from the repository root: ``python -m benchmarks.vmap_split`` (best of N, ms).
"""

from __future__ import annotations

import sys
import warnings

import numpy as np

import ftransforms as ft
import ftransforms.numpy as fnp
from benchmarks.timing import wall_times

B = 256
TOL = 1e-12


def _best(fn, reps: int) -> float:
    return min(wall_times(fn, reps, warm=False)) * 1e3


# -- 1. Newton's method for sqrt(a) from y = a: the trip count grows with log(a) ---------


def newton_python(a):
    y = a
    while np.abs(y * y - a) > TOL * a:
        y = 0.5 * (y + a / y)
    return y


def newton_while_loop(a):
    def not_done(y):
        return fnp.abs(y * y - a) > TOL * a

    return ft.while_loop(not_done, lambda y: 0.5 * (y + a / y), a)


def trip_count(a: float) -> int:
    y, n = a, 0
    while abs(y * y - a) > TOL * a:
        y, n = 0.5 * (y + a / y), n + 1
    return n


# -- 2. a two-branch piecewise function ---------------------------------------------------


def piecewise_python(x):
    if x[0] > 0:
        return np.tanh(x @ W1) @ W2
    return np.sin(x) * 2.0 - x


def piecewise_where(x):
    return fnp.where(x[0] > 0, np.tanh(x @ W1) @ W2, np.sin(x) * 2.0 - x)


D = 16
_rng = np.random.default_rng(0)
W1 = _rng.standard_normal((D, 32)) / 4
W2 = _rng.standard_normal((32, D)) / 6


def main(reps: int = 7) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ft.errors.PerformanceWarning)  # we know it splits
        _run(reps)


def _run(reps: int) -> None:
    rng = np.random.default_rng(1)
    a = 10.0 ** rng.uniform(0.0, 23.0, size=B)
    counts = [trip_count(v) for v in a]
    want = np.sqrt(a)
    split = ft.vmap(newton_python)
    batched = ft.vmap(newton_while_loop)

    def rows():
        return np.stack([newton_python(v) for v in a])

    for fn in (split, batched):
        np.testing.assert_allclose(fn(a), want, rtol=1e-10)
    np.testing.assert_allclose(rows(), want, rtol=1e-10)
    t_split = _best(lambda: split(a), reps)
    t_while = _best(lambda: batched(a), reps)
    t_rows = _best(rows, reps)
    print(
        f"Newton sqrt, B={B} rows, trip counts {min(counts)}-{max(counts)} "
        f"({len(set(counts))} distinct), ms (best of {reps}):"
    )
    print(f"  vmap, Python while (split)   {t_split:9.2f}")
    print(f"  vmap, ft.while_loop          {t_while:9.2f}")
    print(f"  Python loop over rows        {t_rows:9.2f}")
    print(
        f"  split / while_loop = {t_split / t_while:.2f}x (target <= 1.5x);  "
        f"loop over rows / split = {t_rows / t_split:.2f}x (target >= 5x)"
    )

    x = rng.standard_normal((B, D))
    split = ft.vmap(piecewise_python)
    where = ft.vmap(piecewise_where)

    def rows2():
        return np.stack([piecewise_python(v) for v in x])

    np.testing.assert_allclose(split(x), rows2(), rtol=1e-12)
    np.testing.assert_allclose(where(x), rows2(), rtol=1e-12)
    t_split = _best(lambda: split(x), reps)
    t_where = _best(lambda: where(x), reps)
    t_rows = _best(rows2, reps)
    print(f"Two-branch piecewise, B={B} rows of {D}, ms (best of {reps}):")
    print(f"  vmap, Python if (split)      {t_split:9.2f}")
    print(f"  vmap, fnp.where              {t_where:9.2f}")
    print(f"  Python loop over rows        {t_rows:9.2f}")
    print(
        f"  split / where = {t_split / t_where:.2f}x (target <= 2.5x);  "
        f"loop over rows / split = {t_rows / t_split:.2f}x"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
