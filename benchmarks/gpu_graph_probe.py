"""The CUDA-graph tier (NOTE [CUDA graphs] in ``ftransforms/compiled/cuda_graph.py``) on a
card: is each call's result the replay's, and how long does a call take?

For each case (W1 at two batch sizes, W3, W4, W6) one ``ft.jit`` replays and one captures
its replay as a graph (``FTRANSFORMS_JIT_CUDA_GRAPHS=always`` while it records); both are
called on three input sets (the case's seeds 0, 1, 2, in turn, twice), every graph result
compared with the replay's on the same inputs, then each is timed (median of ``--reps``
calls, the device synchronized).  Prints one line per case: the graph program's tier (why
it stayed a replay, where capture failed), the largest relative difference and the two
times.  Exit status 1 when a captured graph's result differs from the replay's.

    python -m benchmarks.gpu_graph_probe                 # on the GPU machine
    python -m benchmarks.gpu_graph_probe --backend strict --reps 3   # the CPU stand-in
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

import numpy as np

from benchmarks.gpu_check import _median_seconds

#: Relative difference allowed between a graph's result and the replay's: the same kernels
#: on the same inputs, but cuBLAS's gemm called directly may pick another algorithm.
TOLERANCE = {np.dtype(np.float32): 1e-4, np.dtype(np.float64): 1e-10}

CASES = (("W1", 32), ("W1", 256), ("W3", 64), ("W4", None), ("W6", None))


def _case(xp: Any, workload: str, size: int | None, seed: int) -> tuple:
    """(transformed function, its arguments, the case) of one case on ``xp``'s arrays: the
    benchmark peer's own function, unwrapped."""
    from benchmarks import cases
    from benchmarks.peers.ftransforms_peer import P3, W6_PARAMS, FtransformsPeer

    override = {workload: [size]} if size else None
    (case,) = cases.make_cases([workload], sizes_override=override)
    inp = {k: xp.asarray(v) for k, v in cases.make_inputs(case, seed).items()}
    peer = FtransformsPeer()
    peer.setup("cuda" if xp.__name__ == "cupy" else "strict", 1)
    captured: dict = {}
    peer._wrap = lambda f: captured.setdefault("f", f)
    getattr(peer, workload.lower())(case, inp)
    arguments = {
        "W1": lambda: (tuple(inp[k] for k in P3), inp["x"], inp["y"]),
        "W3": lambda: (inp["x"], inp["a"]),
        "W4": lambda: (tuple(inp[k] for k in P3), *(inp[k] for k in ("xs", "ys", "xq", "yq"))),
        "W6": lambda: (tuple(inp[k] for k in W6_PARAMS), inp["x"], inp["y"]),
    }[workload]()
    return captured["f"], arguments, case


def _worst(a: list, b: list, to_host: Any) -> float:
    worst = 0.0
    for x, y in zip(a, b):
        x, y = to_host(x), to_host(y)
        scale = max(float(np.max(np.abs(y))) if y.size else 0.0, 1e-30)
        worst = max(worst, float(np.max(np.abs(x - y))) / scale if x.size else 0.0)
    return worst


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.gpu_graph_probe")
    p.add_argument("--backend", choices=["cupy", "strict"], default="cupy")
    p.add_argument("--reps", type=int, default=50)
    args = p.parse_args(argv)
    if args.backend == "cupy":
        import cupy as xp

        sync = xp.cuda.Device().synchronize
        to_host = xp.asnumpy
    else:
        from ftransforms import strict_backend

        xp, sync, to_host = strict_backend.xp, lambda: None, lambda a: a.get()
    import ftransforms as ft

    status = 0
    for workload, size in CASES:
        label = f"{workload}" + (f" B={size}" if workload == "W1" else "")
        try:
            fn, _, case = _case(xp, workload, size, 0)
            sets = [_case(xp, workload, size, seed)[1] for seed in (0, 1, 2)]
            replay = ft.jit(fn, compile=False)
            os.environ["FTRANSFORMS_JIT_CUDA_GRAPHS"] = "always"
            try:
                graphed = ft.jit(fn, compile=False)
                graphed(*sets[0])  # records (the tier is attached to the recording)
            finally:
                del os.environ["FTRANSFORMS_JIT_CUDA_GRAPHS"]
            worst = 0.0
            for a in sets + sets:
                want, got = replay(*a), graphed(*a)
                flat = lambda out: list(out) if isinstance(out, (list, tuple)) else [out]  # noqa: E731
                worst = max(worst, _worst(flat(got), flat(want), to_host))
            tier = next(iter(graphed.cache.values())).tier
            t_replay = _median_seconds(lambda: replay(*sets[0]), sync, args.reps)
            t_graph = _median_seconds(lambda: graphed(*sets[0]), sync, args.reps)
        except Exception as err:  # noqa: BLE001 - the check reports what failed and goes on
            print(f"[graphs] {label}: failed: {type(err).__name__}: {err}", flush=True)
            status = 1
            continue
        dtype = np.dtype(case.dtype) if hasattr(case, "dtype") else np.dtype(np.float32)
        ok = tier != "cuda graph" or worst <= TOLERANCE.get(dtype, 1e-4)
        status |= not ok
        print(
            f"[graphs] {label}: tier {tier!r}; max rel diff vs the replay {worst:.1e}"
            f"{'' if ok else ' (TOO LARGE)'}; replay {t_replay * 1e6:.1f} us, graph tier "
            f"{t_graph * 1e6:.1f} us ({t_graph / t_replay:.2f}x)",
            flush=True,
        )
    return status


if __name__ == "__main__":
    sys.exit(main())
