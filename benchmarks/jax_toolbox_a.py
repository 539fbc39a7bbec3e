"""Issue 24's toolbox (part a) side by side with JAX: ``eval_shape`` of a gradient (shape
rules and one-element stand-ins against JAX's abstract tracing), ``associative_scan``
(a parallel prefix scan of primitives, eager, against ``jax.jit`` and ``numpy.cumsum``)
and a ``jit``-replayed ``pure_callback`` of SciPy (against ``jax.jit`` and plain SciPy).

Run from the repository root: ``python -m benchmarks.jax_toolbox_a`` (best of n).
"""

from __future__ import annotations

import numpy as np
import scipy.special

import ftransforms as ft
from benchmarks.timing import wall_times


def _best(fn, reps: int) -> float:
    return min(wall_times(fn, reps))


def main() -> None:
    import jax  # a peer, measured beside us
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)

    def loss(np_):
        return lambda p, x: np_.sum(np_.tanh(np_.tanh(x @ p["w1"]) @ p["w2"]) ** 2)

    shapes = {"w1": (4096, 4096), "w2": (4096, 10)}
    p = {k: ft.ShapeDtypeStruct(s, np.float32) for k, s in shapes.items()}
    jp = {k: jax.ShapeDtypeStruct(s, np.float32) for k, s in shapes.items()}
    x, jx = (
        ft.ShapeDtypeStruct((512, 4096), np.float32),
        jax.ShapeDtypeStruct((512, 4096), np.float32),
    )
    a = _best(lambda: ft.eval_shape(ft.grad(loss(np)), p, x), 5)
    b = _best(lambda: jax.eval_shape(jax.grad(loss(jnp)), jp, jx), 5)
    print(
        f"eval_shape(grad(mlp)), 512x4096x4096 f32: ft {a * 1e3:.2f} ms, jax {b * 1e3:.2f} ms, "
        f"ft/jax {a / b:.2f}"
    )

    v = np.random.default_rng(0).normal(size=100_000)
    scan_jit = jax.jit(lambda u: jax.lax.associative_scan(jnp.add, u))
    a = _best(lambda: ft.associative_scan(np.add, v), 5)
    b = _best(lambda: scan_jit(v).block_until_ready(), 5)
    c = _best(lambda: np.cumsum(v), 5)
    print(
        f"associative_scan(add), n=1e5: ft {a * 1e3:.2f} ms, jax.jit {b * 1e3:.2f} ms, "
        f"np.cumsum {c * 1e3:.3f} ms, ft/jax {a / b:.2f}"
    )

    def f(api):
        def call(u):
            out = api.ShapeDtypeStruct(u.shape, u.dtype)
            return api.pure_callback(scipy.special.gammaln, out, u) * 2

        return call

    u = np.random.default_rng(1).uniform(1.0, 3.0, size=1000)
    ours, theirs = ft.jit(f(ft)), jax.jit(f(jax))
    a = _best(lambda: ours(u), 200)
    b = _best(lambda: theirs(u).block_until_ready(), 200)
    c = _best(lambda: scipy.special.gammaln(u) * 2, 200)
    print(
        f"jit(pure_callback(gammaln)) * 2, n=1000: ft {a * 1e6:.1f} us, jax {b * 1e6:.1f} us, "
        f"plain SciPy {c * 1e6:.1f} us, ft/jax {a / b:.2f}"
    )


if __name__ == "__main__":
    main()
