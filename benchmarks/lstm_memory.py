"""W6's memory side: peak memory of per-sequence LSTM gradients with and without
``ft.checkpoint``, measured with tracemalloc (NumPy reports its allocations to it).

    python -m benchmarks.lstm_memory [--T 50] [--reps 3]

Rows: the hand-written NumPy BPTT (it stores every gate of every step: the floor for an
uncheckpointed backward pass), ``vmap(grad)`` over ``ft.scan`` as is, with every step
checkpointed, and with segments of steps checkpointed (a scan over segments whose body is
a checkpointed scan over the steps of one segment).  Every variant's gradients are checked
against the float64 reference.  Only NumPy and ftransforms are imported.
"""

from __future__ import annotations

import argparse
import math
import time
import tracemalloc
from typing import Any

from benchmarks import cases, reference
from benchmarks.peers.ftransforms_peer import W6_PARAMS, lstm_loss
from benchmarks.worker import max_rel_error


def held_mib(ft: Any, loss: Any, p: tuple, x: Any, y: Any) -> float:
    """MiB of forward values a ``vjp_fn`` keeps for the backward pass (of the batch of
    per-sequence losses, with respect to the shared parameters)."""
    tracemalloc.start()
    try:
        _, vjp_fn = ft.vjp(lambda q: ft.vmap(loss, in_dims=(None, 0, 0))(q, x, y), p)
        return tracemalloc.get_traced_memory()[0] / 2**20
    finally:
        tracemalloc.stop()


def measure(fn: Any, reps: int) -> tuple[float, float, Any]:
    """(peak MiB of one call, best seconds of ``reps`` calls, the result)."""
    fn()  # warm caches (einsum paths, imports) outside the measurement
    tracemalloc.start()
    try:
        out = fn()
        peak = tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()
    best = math.inf
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return peak, best, out


def main(argv: list[str] | None = None) -> int:
    import ftransforms as ft

    parser = argparse.ArgumentParser(prog="python -m benchmarks.lstm_memory")
    parser.add_argument("--T", type=int, default=50, help="sequence length (default 50)")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads (default 1)")
    args = parser.parse_args(argv)
    try:  # like the benchmark table's --threads 1: a busy shared machine punishes threads
        from threadpoolctl import threadpool_limits

        threadpool_limits(args.threads, user_api="blas")
    except ImportError:
        pass
    case = cases.Case(f"W6-T{args.T}", "W6", "", size=args.T)
    inp = cases.make_inputs(case)
    ref = reference.compute(case, cases.as_float64(inp))
    p = tuple(inp[k] for k in W6_PARAMS)
    x, y = inp["x"], inp["y"]
    seg = max(d for d in range(1, args.T + 1) if args.T % d == 0 and d <= math.isqrt(args.T) + 1)

    losses = {
        "ftransforms vmap(grad), plain": lstm_loss(ft),
        "ftransforms, checkpoint(step)": lstm_loss(ft, ft.checkpoint),
        f"ftransforms, checkpoint(scan of {seg} steps)": lstm_loss(ft, segment=seg),
    }

    def per_seq(loss):
        g = ft.vmap(ft.grad(loss), in_dims=(None, 0, 0))
        return lambda: list(g(p, x, y))

    rows = {"hand-written NumPy BPTT": lambda: reference.compute(case, inp)}
    rows.update({name: per_seq(loss) for name, loss in losses.items()})
    print(
        f"W6 memory: per-sequence LSTM gradients, T={args.T}, B={cases.W6_BATCH}, "
        f"H={cases.W6_HIDDEN}, D={cases.W6_FEATURES}, float32 (tracemalloc).  held: forward "
        f"values kept for the backward pass (by a vjp_fn); peak: of one per-sequence "
        f"gradient call; time: best of {args.reps} untraced calls"
    )
    plain: tuple[float, float] | None = None
    for name, fn in rows.items():
        peak, best, out = measure(fn, args.reps)
        err = max_rel_error(out, ref)[0]
        assert err < 1e-4, name
        held = held_mib(ft, losses[name], p, x, y) if name in losses else float("nan")
        plain = (held, peak) if "plain" in name else plain
        ratio = (
            f"  (held {held / plain[0]:4.2f}x, peak {peak / plain[1]:4.2f}x plain)"
            if plain and name in losses
            else ""
        )
        held_s = "     -" if held != held else f"{held:6.2f}"
        print(
            f"  {name:<42} held {held_s} MiB  peak {peak:6.2f} MiB  {best * 1e3:7.1f} ms"
            f"  err {err:.1e}{ratio}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
