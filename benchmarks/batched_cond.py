"""``vmap`` of ``ft.cond`` with a per-row predicate: select (what ``ft.cond`` does) against
gathering each branch's rows (the alternative, written by hand here), for NOTE [batched
cond] in ``ftransforms/control.py``.

Run from the repository root: ``python -m benchmarks.batched_cond`` (best of 7, ms).
"""

from __future__ import annotations

import numpy as np

import ftransforms as ft
from benchmarks.timing import wall_times

B, D, H = 4096, 16, 256


def _best(fn, reps: int = 7) -> float:
    return min(wall_times(fn, reps, warm=False)) * 1e3


def main() -> None:
    rng = np.random.default_rng(0)
    w1 = rng.standard_normal((D, H)) / 4
    w2 = rng.standard_normal((H, H)) / 16
    w3 = rng.standard_normal((H, D)) / 16

    def mlp(x):
        return np.tanh(np.tanh(np.tanh(x @ w1) @ w2) @ w3)

    def rational(x):
        return x / (1 + x * x)

    x = rng.standard_normal((B, D))
    cases = {
        "MLP | rational": (mlp, rational, x, lambda v: v.sum() > 0),
        "MLP | -MLP": (mlp, lambda v: -mlp(v), x, lambda v: v.sum() > 0),
        "sqrt | negate": (np.sqrt, np.negative, np.abs(x) * np.sign(x[:, :1]), lambda v: v[0] > 0),
    }
    print(f"vmap(cond) over B={B} rows of {D} float64, half taking each branch (ms, best of 7)")
    for name, (fa, fb, data, pred) in cases.items():
        select = ft.vmap(lambda v, fa=fa, fb=fb, pred=pred: ft.cond(pred(v), fa, fb, v))

        def gather(fa=fa, fb=fb, pred=pred, data=data):
            p = ft.vmap(pred)(data)  # on a device this is the host copy gathering needs
            rows_t, rows_f = np.nonzero(p)[0], np.nonzero(~p)[0]
            out = np.empty_like(data)
            out[rows_t] = ft.vmap(fa)(data[rows_t])
            out[rows_f] = ft.vmap(fb)(data[rows_f])
            return out

        np.testing.assert_allclose(select(data), gather())
        t_select = _best(lambda select=select, data=data: select(data))
        t_gather = _best(gather)
        print(f"  {name:16s} select {t_select:8.2f}   gather/scatter {t_gather:8.2f}")


if __name__ == "__main__":
    main()
