"""NumPy's mutation semantics (NOTE [mutation semantics] in ``ftransforms/core/mutation.py``),
side by side: the gradient of a 1-D heat equation written in place (``u[1:-1] = ...``)
against the same program written with ``.at[]`` and against JAX; and what the mechanism
costs code that does not write (NumPy's creation functions outside transforms, the W5
chain of 50 ops).

Run from the repository root: ``python -m benchmarks.mutation`` (median of 15, ms / us).
"""

from __future__ import annotations

import statistics

import numpy as np

import ftransforms as ft
import ftransforms.numpy as fnp
from benchmarks.timing import wall_times

N, STEPS = 64, 50


def _median(fn, reps: int = 15) -> float:
    return statistics.median(wall_times(fn, reps))


def heat_in_place(u0, d):
    u = u0.copy()
    for _ in range(STEPS):
        u[1:-1] = u[1:-1] + d * (u[2:] - 2 * u[1:-1] + u[:-2])
    return np.sum(u**2)


def heat_at(u0, d):
    u = u0
    for _ in range(STEPS):
        u = fnp.at(u)[1:-1].set(u[1:-1] + d * (u[2:] - 2 * u[1:-1] + u[:-2]))
    return np.sum(u**2)


def _jax_rows(u0, d):
    try:
        import jax  # noqa: PLC0415 - an optional peer, only for this row
        import jax.numpy as jnp  # noqa: PLC0415
    except ImportError:
        return {}
    jax.config.update("jax_enable_x64", True)

    def heat_jax(u0, d):
        u = u0
        for _ in range(STEPS):
            u = u.at[1:-1].set(u[1:-1] + d * (u[2:] - 2 * u[1:-1] + u[:-2]))
        return jnp.sum(u**2)

    g = jax.grad(heat_jax, argnums=(0, 1))
    gj = jax.jit(g)
    u, dd = jnp.asarray(u0), jnp.asarray(d)
    ref = [np.asarray(v) for v in gj(u, dd)]

    def eager():
        jax.block_until_ready(g(u, dd))

    def jitted():
        jax.block_until_ready(gj(u, dd))

    return {"jax.grad (eager)": (eager, ref), "jax.jit(jax.grad)": (jitted, ref)}


def main() -> None:
    rng = np.random.default_rng(0)
    u0 = np.sin(np.linspace(0.0, np.pi, N)) + 0.1 * rng.standard_normal(N)
    d = np.float64(0.2)

    # what code that does not write pays: before any transform has run, then after
    zeros_before = _median(lambda: np.zeros(8), reps=2001) * 1e6
    x8 = np.linspace(0.1, 0.9, 8)

    def chain(x):
        for _ in range(10):
            x = fnp.square(fnp.tanh(fnp.add(fnp.multiply(fnp.sin(x), 1.5), 0.25)))
        return fnp.sum(x)

    grad_chain = ft.grad(chain)
    chain_grad_before = _median(lambda: grad_chain(x8), reps=301) * 1e6 / 50

    g_in_place = ft.grad(heat_in_place, argnums=(0, 1))
    g_at = ft.grad(heat_at, argnums=(0, 1))
    want = g_at(u0, d)
    for a, b in zip(g_in_place(u0, d), want):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    jit_in_place = ft.jit(g_in_place)
    jit_at = ft.jit(g_at)
    rows = {
        "ftransforms, in place (u[1:-1] = ...)": (lambda: g_in_place(u0, d), want),
        "ftransforms, functional (.at[].set)": (lambda: g_at(u0, d), want),
        "ftransforms.jit, in place": (lambda: jit_in_place(u0, d), want),
        "ftransforms.jit, functional": (lambda: jit_at(u0, d), want),
    }
    rows.update(_jax_rows(u0, d))
    print(f"grad of a 1-D heat equation, N={N}, {STEPS} steps, float64, w.r.t. u0 and D")
    times = {}
    for name, (fn, ref) in rows.items():
        if not name.startswith("jax"):
            for a, b in zip(fn(), ref):
                np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
        times[name] = _median(fn) * 1e3
    base = times["ftransforms, functional (.at[].set)"]
    for name, t in times.items():
        print(f"  {name:40s} {t:8.3f} ms   x .at[]: {t / base:5.2f}")
    print(
        f"  in place / .at[] (eager): "
        f"{times['ftransforms, in place (u[1:-1] = ...)'] / base:.2f} (target <= 1.2)"
    )

    zeros_after = _median(lambda: np.zeros(8), reps=2001) * 1e6
    chain_grad_after = _median(lambda: grad_chain(x8), reps=301) * 1e6 / 50
    print("outside transforms (nothing is patched: numpy.zeros is NumPy's own function)")
    print(
        f"  np.zeros(8)          before any transform {zeros_before:6.3f} us, "
        f"after {zeros_after:6.3f} us"
    )
    print(
        f"  W5 chain under grad  before the rows above {chain_grad_before:6.3f} us/op, "
        f"after {chain_grad_after:6.3f} us/op"
    )
    assert not hasattr(np.zeros, "__wrapped__"), "numpy.zeros is still wrapped"


if __name__ == "__main__":
    main()
