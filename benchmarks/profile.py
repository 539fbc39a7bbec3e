"""Where an ftransforms row's time goes: backend work against Python dispatch.

    python -m benchmarks.profile W1-B32 [--peer ftransforms|ftransforms.jit] [--calls N]
                                         [--top K]

Runs one case (ids as in the table's JSON: ``W1-B32``, ``W2-jacrev-D16``, ``W3-D64``,
``W4-T32``, ``W5-grad``, ...) under cProfile and splits the self time of every function
into groups: the backend (NumPy/CuPy: C functions, NumPy's Python wrappers, and the
primitives' implementations, since cProfile books a ufunc's time to its caller), the
interpreters and ``bind`` (``ftransforms/core``, ``ftransforms/interpreters``), the rules
(``batching_rules/``, ``ftransforms/ops/``), the ``ftransforms.numpy`` front end, the
transforms' entry points (``api.py``), the jit replay, and the user's model code.  Then
the top functions by self time.  cProfile slows Python code down more than C code, so
read the split as an upper bound on the Python share; the wall time per call is measured
without the profiler first.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import time
from collections import Counter
from pathlib import Path

import numpy as np

from benchmarks import cases as cases_mod
from benchmarks import peers as peers_mod

GROUPS = (
    ("jit program (its NumPy calls included)", ("<ftransforms.jit program>", "program.py")),
    ("interpreters + bind", ("ftransforms/core/", "ftransforms/interpreters/")),
    ("rules", ("batching_rules/", "ftransforms/ops/")),
    ("fnp front end", ("ftransforms/numpy/",)),
    ("transform entry (api.py)", ("ftransforms/api.py", "ftransforms/jit.py", "ftransforms/")),
    ("backend (NumPy/CuPy)", ("numpy/", "cupy/")),
    ("model code (benchmarks/)", ("benchmarks/",)),
)


def impl_locations() -> set:
    """``(file, first line, name)`` of every primitive's implementation: cProfile books
    the time of a NumPy ufunc (not a C *function*) to the Python function calling it, so
    an implementation's self time is the backend's."""
    from ftransforms.core.primitive import REGISTRY  # noqa: PLC0415

    out = set()
    for prim in REGISTRY.values():
        code = getattr(prim.impl, "__code__", None)
        if code is not None:
            out.add((code.co_filename, code.co_firstlineno, code.co_name))
    return out


def group_of(filename: str, func: str, impls: frozenset = frozenset(), line: int = 0) -> str:
    """The group of a profiled function (C functions have the file name ``~``)."""
    if (filename, line, func) in impls:
        return "backend (NumPy/CuPy)"
    if filename == "~":  # a C function: NumPy's (ufuncs, array methods) or Python's own
        numpy_c = "numpy" in func or "cupy" in func or "ndarray" in func
        return "backend (NumPy/CuPy)" if numpy_c else "Python built-ins (len, isinstance, ...)"
    name = filename.replace(os.sep, "/")
    for label, markers in GROUPS:
        if any(m in name for m in markers):
            return label
    return "other Python"


def find_case(case_id: str) -> cases_mod.Case:
    workload = case_id.split("-", 1)[0]
    for case in cases_mod.make_cases([workload]) + cases_mod.make_cases([workload], quick=True):
        if case.id == case_id:
            return case
    known = [c.id for w in cases_mod.WORKLOADS for c in cases_mod.make_cases([w])]
    raise SystemExit(f"unknown case {case_id!r}; choose from {', '.join(known)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.profile")
    parser.add_argument("case", help="a case id, e.g. W1-B32, W4-T32, W5-vmap_grad")
    parser.add_argument("--peer", default="ftransforms", choices=["ftransforms", "ftransforms.jit"])
    parser.add_argument("--calls", type=int, default=50, help="profiled calls (default 50)")
    parser.add_argument("--top", type=int, default=15, help="functions listed (default 15)")
    args = parser.parse_args(argv)

    case = find_case(args.case)
    peer = peers_mod.load(args.peer)
    peer.setup("cpu", int(os.environ.get("OMP_NUM_THREADS", "1")))
    fn = peer.build(case, peer.convert(cases_mod.make_inputs(case, 0)))
    fn()  # first call (a jit recording) outside both measurements
    times = []
    for _ in range(args.calls):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(args.calls):
        fn()
    profiler.disable()

    stats = pstats.Stats(profiler)
    impls = frozenset(impl_locations())
    by_group: Counter = Counter()
    rows = []
    for (filename, line, func), (_cc, ncalls, tottime, _ct, _callers) in stats.stats.items():
        by_group[group_of(filename, func, impls, line)] += tottime
        where = f"{Path(filename).name}:{line}" if line else filename
        rows.append((tottime, ncalls, f"{where}({func})"))
    total = sum(by_group.values()) or 1.0
    print(f"{args.peer} {case.id} ({case.label}): {np.median(times) * 1e3:.3f} ms per call")
    print(f"(median of {args.calls} calls without the profiler; self time under cProfile:)\n")
    for label, t in by_group.most_common():
        print(f"  {label:40s} {100 * t / total:5.1f}%  {t / args.calls * 1e3:8.3f} ms/call")
    print(f"\ntop {args.top} functions by self time (per call):")
    for tottime, ncalls, where in sorted(rows, reverse=True)[: args.top]:
        per = tottime / args.calls * 1e6
        print(f"  {per:9.1f} us  {ncalls / args.calls:7.1f} calls  {where}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
