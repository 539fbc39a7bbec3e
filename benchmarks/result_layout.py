"""Elementwise operations on transposed arrays (NOTE [layout of elementwise results] in
``ftransforms/numpy/result_layout.py``): what recording NumPy's memory order of a result
costs per operation, on a C-ordered array and on a transposed one, side by side with the
plain NumPy loop.

Run from the repository root: ``python -m benchmarks.result_layout`` (median of 31, us per
operation).
"""

from __future__ import annotations

import statistics

import numpy as np

import ftransforms as ft
from benchmarks.timing import wall_times

_OPS = 3 * 50  # each loop: 50 times np.tanh(a * 2.0 + 1.0)


def _loop(transposed: bool):
    def f(x):
        m = x.reshape(8, 8)
        a = m.T if transposed else m
        acc = 0.0
        for _ in range(50):
            acc = acc + np.tanh(a * 2.0 + 1.0)[0, 0]
        return acc

    return f


def _us(fn, reps: int = 31) -> float:
    return statistics.median(wall_times(fn, reps)) * 1e6 / _OPS


def main() -> None:
    x = np.linspace(-1.0, 1.0, 64)
    xs = np.tile(x, (4, 1))
    print("per elementwise operation, 8 x 8 float64 (4 rows under vmap)")
    for label, transposed in (("m (C order)", False), ("m.T (Fortran order)", True)):
        f = _loop(transposed)
        rows = {
            "numpy": lambda f=f: f(x),
            "vmap": lambda f=f: ft.vmap(f)(xs),
            "grad": lambda f=f: ft.grad(f)(x),
        }
        base = _us(rows["numpy"])
        for name, fn in rows.items():
            fn()
            t = _us(fn)
            print(f"  {label:22s} {name:6s} {t:8.2f} us  ({t / base:5.1f} x numpy)")


if __name__ == "__main__":
    main()
