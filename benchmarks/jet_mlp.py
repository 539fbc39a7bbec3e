"""The 4th derivative of an MLP along a direction (``d⁴/dt⁴ f(x + t v)`` at 0), for NOTE
[Taylor mode] in ``ftransforms/jet.py``: ``ft.jet`` against four nested ``ft.jvp`` and
against JAX's ``jax.experimental.jet.jet``, eagerly and under ``jit``, side by side in one
run, float64, on one thread each (``--threads`` to change), results checked against each
other.

Run from the repository root: ``python -m benchmarks.jet_mlp`` (median and best of 21
interleaved rounds, ms).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time


def _interleaved_ms(rows: dict, reps: int) -> dict:
    """Per row, (median, best) in ms over ``reps`` rounds that run every row once each
    (interleaved, so that load from other processes hits every row alike)."""
    times = {name: [] for name in rows}
    for _ in range(reps):
        for name, fn in rows.items():
            t = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t)
    return {n: (statistics.median(ts) * 1e3, min(ts) * 1e3) for n, ts in times.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=256, help="points x (rows)")
    parser.add_argument("--width", type=int, default=128, help="hidden width")
    parser.add_argument("--reps", type=int, default=21)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)
    os.environ.setdefault(
        "XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
    )
    # late imports: the thread settings above must come first
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.experimental.jet import jet as jax_jet

    import ftransforms as ft

    jax.config.update("jax_enable_x64", True)
    rng = np.random.default_rng(0)
    d, h, b = 16, args.width, args.batch
    w1 = rng.standard_normal((d, h)) / np.sqrt(d)
    w2 = rng.standard_normal((h, h)) / np.sqrt(h)
    w3 = rng.standard_normal((h, 1)) / np.sqrt(h)
    x = rng.standard_normal((b, d))
    v = rng.standard_normal((b, d))
    zero = np.zeros_like(x)

    def mlp(m, x):
        return (m.tanh(m.tanh(x @ w1) @ w2) @ w3)[:, 0]

    def ft_jet(x, v):
        return ft.jet(lambda x: mlp(np, x), (x,), ([v, zero, zero, zero],))[1][3]

    def ft_nested(x, v):
        g = lambda x: mlp(np, x)  # noqa: E731
        for _ in range(4):
            g = lambda x, g=g: ft.jvp(g, (x,), (v,))[1]  # noqa: E731
        return g(x)

    jx, jv, jz = jnp.asarray(x), jnp.asarray(v), jnp.asarray(zero)

    def jax_jet4(x, v):
        return jax_jet(lambda x: mlp(jnp, x), (x,), ([v, jz, jz, jz],))[1][3]

    jax_jit = jax.jit(jax_jet4)
    ft_jit = ft.jit(ft_jet)
    rows = {
        "ft.jet": lambda: ft_jet(x, v),
        "nested ft.jvp (4 levels)": lambda: ft_nested(x, v),
        "jax jet (eager)": lambda: jax.block_until_ready(jax_jet4(jx, jv)),
        "ft.jit(jet)": lambda: ft_jit(x, v),
        "jax.jit(jet)": lambda: jax.block_until_ready(jax_jit(jx, jv)),
    }
    ref = np.asarray(ft_nested(x, v))
    scale = np.abs(ref).max()
    print(
        f"4th derivative of a tanh MLP {d}->{h}->{h}->1 along v, {b} points, float64, "
        f"{args.threads} thread(s); {args.reps} interleaved rounds (ms)"
    )
    errors = {}
    for name, fn in rows.items():  # the first call (tracing, compilation) is not timed
        errors[name] = np.abs(np.asarray(fn()) - ref).max() / scale
    times = _interleaved_ms(rows, args.reps)
    print(f"  {'':26s} {'median':>9s} {'best':>9s}   max rel err vs nested jvp")
    for name in rows:
        med, best = times[name]
        print(f"  {name:26s} {med:9.3f} {best:9.3f}   {errors[name]:.1e}")
    print("ratios (median; best):")
    for label, a, b in (
        ("nested ft.jvp / ft.jet", "nested ft.jvp (4 levels)", "ft.jet"),
        ("ft.jet / jax jet (eager)", "ft.jet", "jax jet (eager)"),
        ("ft.jit(jet) / jax.jit(jet)", "ft.jit(jet)", "jax.jit(jet)"),
    ):
        print(f"  {label:28s} {times[a][0] / times[b][0]:6.2f}x; {times[a][1] / times[b][1]:6.2f}x")


if __name__ == "__main__":
    main()
