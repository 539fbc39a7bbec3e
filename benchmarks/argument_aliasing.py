"""Arguments that alias each other (NOTE [aliased arguments] in
``ftransforms/aliased_arguments.py``): what a call pays for the check where nothing
aliases, and what the aliased call of a function that writes costs, side by side with the
plain NumPy call.

Run from the repository root: ``python -m benchmarks.argument_aliasing`` (median of 301,
us per call).
"""

from __future__ import annotations

import statistics

import numpy as np

import ftransforms as ft
from benchmarks.timing import wall_times
from ftransforms.aliased_arguments import alias_plan


def _us(fn, reps: int = 301) -> float:
    return statistics.median(wall_times(fn, reps)) * 1e6


def pure(x, y):
    return x * y + 1.0


def axpy(x, y):
    y += 0.5 * x  # x sees the write when it is y
    return y * x


def main() -> None:
    x, y = np.linspace(0.1, 0.9, 8), np.linspace(1.0, 2.0, 8)
    xs, ys = np.tile(x, (4, 1)), np.tile(y, (4, 1))
    rows = {
        "numpy pure(x, y)": lambda: pure(x, y),
        "alias_plan([x, y]) (nothing shared)": lambda: alias_plan([x, y]),
        "alias_plan([x, x[1:]])": lambda: alias_plan([x, x[1:]]),
    }
    jp, ja = ft.jit(pure), ft.jit(axpy)
    vp, va = ft.vmap(pure), ft.vmap(axpy)
    gp = ft.grad(lambda a, b: np.sum(pure(a, b)))
    ga = ft.grad(lambda a, b: np.sum(axpy(a, b)))
    for name, f, args in [
        ("jit(pure)", jp, (x, y)),
        ("jit(pure) aliased", jp, (x, x)),
        ("jit(axpy)", ja, (x, y)),
        ("jit(axpy) aliased", ja, (x, x)),
        ("vmap(pure)", vp, (xs, ys)),
        ("vmap(axpy) aliased", va, (xs, xs)),
        ("grad(pure)", gp, (x, y)),
        ("grad(axpy) aliased", ga, (x, x)),
    ]:
        f(*args)  # records / warms up
        rows[f"{name}"] = lambda f=f, args=args: f(*args)
    print("per call, 8 elements (4 rows under vmap), float64")
    for name, fn in rows.items():
        print(f"  {name:38s} {_us(fn):9.2f} us")


if __name__ == "__main__":
    main()
