"""How many of SciPy's global-optimisation benchmark functions differentiate unchanged.

SciPy keeps 195 published test functions (Jamil & Yang's survey and others) in its source
tree, ``benchmarks/benchmarks/go_benchmark_functions``, which no SciPy wheel installs.
Point this script at that folder of a SciPy checkout:

    python -m benchmarks.scipy_go_functions /path/to/scipy/benchmarks/benchmarks

For each function it takes ``ft.grad`` of ``fun`` at a point inside its bounds and compares
it with float64 central differences (step 1e-6 relative).  It prints the count that agree,
the count that run but disagree (functions that are not differentiable at that scale:
random terms, ``round``/``floor`` steps, high-frequency fractal sums, exp(x) overflowing
the differences), and each error, by kind.  The package's ``go_benchmark.py`` imports
``..common`` from SciPy's benchmark suite; that import is replaced by a no-op here.
"""

from __future__ import annotations

import collections
import contextlib
import importlib
import inspect
import sys
import types
import warnings

import numpy as np

import ftransforms as ft


def _load(folder: str) -> types.ModuleType:
    """``go_benchmark_functions`` from ``folder``, with SciPy's benchmark helpers stubbed."""
    common = types.ModuleType("common")
    common.safe_import = contextlib.nullcontext  # type: ignore[attr-defined]
    package = types.ModuleType("scipy_benchmarks")
    package.__path__ = [folder]  # type: ignore[attr-defined]
    sys.modules["scipy_benchmarks"] = package
    sys.modules["scipy_benchmarks.common"] = common
    return importlib.import_module("scipy_benchmarks.go_benchmark_functions")


def main(folder: str) -> None:
    funcs = _load(folder)
    base = funcs.go_benchmark.Benchmark
    classes = [
        c
        for _, c in inspect.getmembers(funcs, inspect.isclass)
        if issubclass(c, base) and c is not base
    ]
    rng = np.random.default_rng(0)
    counts: collections.Counter = collections.Counter()
    errors: collections.Counter = collections.Counter()
    warnings.simplefilter("ignore")
    for cls in classes:
        try:
            bench = cls()
        except TypeError:
            bench = cls(2)
        lo, hi = np.array(bench.bounds, dtype=float).T
        x = lo + (hi - lo) * rng.uniform(0.3, 0.7, size=lo.shape)
        try:
            g = np.asarray(ft.grad(bench.fun)(x), dtype=float)
        except Exception as err:  # noqa: BLE001 - counted and printed by kind
            counts["error"] += 1
            errors[f"{type(err).__name__}: {str(err)[:100]}  ({cls.__name__})"] += 1
            continue
        h = 1e-6 * np.maximum(1.0, np.abs(x))
        eye = np.eye(x.size)
        fd = np.array(
            [
                (bench.fun(x + h[i] * eye[i]) - bench.fun(x - h[i] * eye[i])) / (2 * h[i])
                for i in range(x.size)
            ]
        )
        ok = np.allclose(g, fd, rtol=1e-4, atol=1e-5 * max(1.0, np.abs(fd).max()))
        counts["agree with differences" if ok else "run, differ from differences"] += 1
    print(f"{len(classes)} functions: {dict(counts)}")
    for message, n in errors.most_common():
        print(f"  {n} x {message}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "benchmarks/benchmarks")
