"""Eager dispatch cost, measured the quiet way: ``timeit``'s minimum over repeats of
process (CPU) time, in one process, for A/B comparisons on a busy machine.

    python -m benchmarks.microbench [none grad vmap vmap_grad call W1-B32 W4-T32 ...]
    python -m benchmarks.microbench call with_scipy   # the same, SciPy's modules imported

W5-style rows (``none``, ``grad``, ``vmap``, ``vmap_grad``: the 50-op chain of
``benchmarks.reference.w5_chain`` on an (8,) array, batch 16) print microseconds per op;
``call`` prints the microseconds of one outermost transform call, ``grad(lambda x: x *
x)(1.5)`` (what every transform call pays before its arithmetic; ``with_scipy`` imports
SciPy's modules first, whose names ftransforms wraps: NOTE [SciPy's own names under the
transforms]); case ids of the main table (``W1-B32``, ``W4-T32``, ``W2-jacrev-D512``, ...) print
milliseconds per call of the ftransforms peer.  Minimums of CPU time hide other jobs'
load; they are for comparing two versions of ftransforms on one machine, not for
comparing with other libraries (``python -m benchmarks`` does that).
"""

from __future__ import annotations

import importlib
import sys
import time
import timeit

import numpy as np

import ftransforms as ft
import ftransforms.numpy as fnp
from benchmarks import cases as cases_mod
from benchmarks import peers as peers_mod
from benchmarks.profile import find_case
from benchmarks.reference import w5_chain

W5_MODES = ("none", "grad", "vmap", "vmap_grad")
_SCIPY_MODULES = (
    "scipy.stats",
    "scipy.interpolate",
    "scipy.fft",
    "scipy.ndimage",
    "scipy.spatial.distance",
    "scipy.sparse.linalg",
    "scipy.integrate",
)


def _best(fn, number: int, repeat: int = 15) -> float:
    timer = timeit.Timer(fn, timer=time.process_time)
    return min(timer.repeat(number=number, repeat=repeat)) / number


def main(argv: list[str] | None = None) -> int:
    which = (argv if argv is not None else sys.argv[1:]) or [*W5_MODES, "W1-B32", "W4-T32"]
    if "with_scipy" in which:
        which = [w for w in which if w != "with_scipy"]
        for module in _SCIPY_MODULES:
            importlib.import_module(module)
    x = np.linspace(-1, 1, 8).astype(np.float32)
    xb = np.random.default_rng(0).standard_normal((16, 8)).astype(np.float32)
    chain = lambda v: w5_chain(fnp, v)  # noqa: E731
    g = ft.grad(lambda v: fnp.sum(w5_chain(fnp, v)))
    w5 = {"none": (chain, x), "grad": (g, x), "vmap": (ft.vmap(chain), xb)}
    w5["vmap_grad"] = (ft.vmap(g), xb)
    square = ft.grad(lambda v: v * v)
    peer = peers_mod.load("ftransforms")
    peer.setup("cpu", 1)
    out = []
    for name in which:
        if name == "call":
            square(1.5)
            out.append(f"call: {_best(lambda: square(1.5), 2000) * 1e6:.1f} us")
        elif name in w5:
            f, a = w5[name]
            out.append(f"{name}: {_best(lambda: f(a), 200) / 50 * 1e6:.2f} us/op")
        else:
            case = find_case(name)
            fn = peer.build(case, peer.convert(cases_mod.make_inputs(case, 0)))
            fn()
            out.append(f"{name}: {_best(fn, 5 if 'W2' in name else 20) * 1e3:.3f} ms")
    print("  ".join(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
