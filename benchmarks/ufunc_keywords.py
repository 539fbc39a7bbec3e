"""The two-output ufuncs and the ufunc keywords on tracers, side by side (NOTE [elementwise
ops with two outputs] in ``ftransforms/ops/elementwise.py``, NOTE [ufunc keywords on
tracers] in ``ftransforms/numpy/protocol.py``):

* ``np.divmod`` as one primitive against ``(x // y, x % y)`` (two), under ``vmap`` and
  ``grad``, with plain NumPy for scale;
* what ``casting=``/``dtype=``/``out=`` cost over the plain call (NumPy's loop resolution
  on the keyword path only), under ``vmap``, with NumPy's own ratio beside it.

Run from the repository root: ``python -m benchmarks.ufunc_keywords`` (minimum of 15 repeats
of process time, us).
"""

from __future__ import annotations

import time
import timeit

import numpy as np

import ftransforms as ft


def _us(fn, reps: int = 15) -> float:
    """Microseconds per call: the minimum over ``reps`` repeats of process (CPU) time,
    which hides other jobs' load on a shared machine."""
    fn()
    timer = timeit.Timer(fn, timer=time.process_time)
    number = max(1, int(0.02 / max(timer.timeit(1), 1e-7)))
    return min(timer.repeat(number=number, repeat=reps)) / number * 1e6


def _divmod_rows(x: np.ndarray, y: np.ndarray) -> list[tuple[str, float, float]]:
    one = ft.vmap(lambda a, b: np.divmod(a, b))
    two = ft.vmap(lambda a, b: (a // b, a % b))
    g_one = ft.grad(lambda a, b: np.divmod(a, b)[1].sum(), argnums=(0, 1))
    g_two = ft.grad(lambda a, b: (a % b).sum() + (a // b).sum(), argnums=(0, 1))
    return [
        ("numpy divmod (no transform)", _us(lambda: np.divmod(x, y)), _us(lambda: (x // y, x % y))),
        ("vmap", _us(lambda: one(x, y)), _us(lambda: two(x, y))),
        ("grad", _us(lambda: g_one(x, y)), _us(lambda: g_two(x, y))),
    ]


def _keyword_rows(x: np.ndarray) -> list[tuple[str, float, float]]:
    def into_f32(r):
        buf = np.zeros(r.shape, np.float32)
        np.add(r, 1.0, out=buf)
        return buf

    plain = ft.vmap(lambda r: np.add(r, 1.0))
    rows = []
    for label, f in (
        ("casting='same_kind'", lambda r: np.add(r, 1.0, casting="same_kind")),
        ("dtype=float32", lambda r: np.add(r, 1.0, dtype=np.float32)),
        ("out= float32 buffer", into_f32),
    ):
        kw = ft.vmap(f)
        numpy_plain = _us(lambda: np.add(x, 1.0))
        numpy_kw = _us(lambda f=f: f(x))
        rows.append(
            (label, _us(lambda kw=kw: kw(x)) / _us(lambda: plain(x)), numpy_kw / numpy_plain)
        )
    return rows


def main() -> int:
    rng = np.random.default_rng(0)
    for n in (64, 100_000):
        x = rng.uniform(-5, 5, (16, max(1, n // 16)))
        y = rng.uniform(0.5, 2.0, x.shape)
        print(f"divmod, {x.size} elements: one primitive | two primitives | ratio (us)")
        for label, a, b in _divmod_rows(x, y):
            print(f"  {label:<30} {a:10.1f} {b:10.1f}   {a / b:5.2f}")
        print(f"keyword path, {x.size} elements: vmap with / without | numpy with / without")
        for label, ours, theirs in _keyword_rows(x):
            print(f"  {label:<30} {ours:10.2f} {theirs:10.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
