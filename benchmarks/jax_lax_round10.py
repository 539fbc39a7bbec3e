"""Round 10's ``jax.lax`` names side by side with JAX (``jax.jit``, CPU) and NumPy: a
row gather and a ``scatter_add`` with dimension numbers (the lowering of ``x[idx]`` and
``x.at[idx].add``), their per-example gradients, a 3-d convolution and ``conv_transpose``.

Run from the repository root: ``python -m benchmarks.jax_lax_round10`` (best of n).
"""

from __future__ import annotations

import numpy as np

import ftransforms as ft
from benchmarks.timing import wall_times
from ftransforms import lax


def _best(fn, reps: int) -> float:
    return min(wall_times(fn, reps))


def _line(what: str, ours: float, theirs: float, numpy_s: float | None = None) -> None:
    extra = "" if numpy_s is None else f", numpy {numpy_s * 1e3:.2f} ms"
    times = f"ft {ours * 1e3:.2f} ms, jax.jit {theirs * 1e3:.2f} ms{extra}"
    print(f"{what}: {times}, ft/jax {ours / theirs:.2f}")


def main() -> None:
    import jax  # a peer, measured beside us

    jax.config.update("jax_enable_x64", True)
    jl = jax.lax
    rng = np.random.default_rng(0)

    x = rng.normal(size=(10_000, 128))
    idx = rng.integers(0, 10_000, size=(1000, 1))
    u = rng.normal(size=(1000, 128))
    gdn, jgdn = (m.GatherDimensionNumbers((1,), (0,), (0,)) for m in (lax, jl))
    sdn, jsdn = (m.ScatterDimensionNumbers((1,), (0,), (0,)) for m in (lax, jl))
    jg = jax.jit(lambda x, i: jl.gather(x, i, jgdn, (1, 128)))
    jg(x, idx).block_until_ready()
    _line(
        "gather 1000 rows of 10000x128",
        _best(lambda: lax.gather(x, idx, gdn, (1, 128)), 20),
        _best(lambda: jg(x, idx).block_until_ready(), 20),
        _best(lambda: x[idx[:, 0]], 20),
    )
    js = jax.jit(lambda x, i, u: jl.scatter_add(x, i, u, jsdn))
    js(x, idx, u).block_until_ready()

    def numpy_scatter_add():
        y = x.copy()
        np.add.at(y, idx[:, 0], u)

    _line(
        "scatter_add 1000 rows into 10000x128",
        _best(lambda: lax.scatter_add(x, idx, u, sdn), 10),
        _best(lambda: js(x, idx, u).block_until_ready(), 10),
        _best(numpy_scatter_add, 10),
    )

    # per-example gradients through a gather: 64 examples, each 32 rows of a 1000x64 table
    table = rng.normal(size=(1000, 64))
    rows = rng.integers(0, 1000, size=(64, 32, 1))
    gdn64, jgdn64 = (m.GatherDimensionNumbers((1,), (0,), (0,)) for m in (lax, jl))

    def loss(m, dn):
        return lambda t, i: (m.gather(t, i, dn, (1, 64)) ** 2).sum()

    ours = ft.vmap(ft.grad(loss(lax, gdn64)), in_dims=(None, 0))
    theirs = jax.jit(jax.vmap(jax.grad(loss(jl, jgdn64)), in_axes=(None, 0)))
    theirs(table, rows).block_until_ready()
    _line(
        "vmap(grad) of a 32-row gather, 64 examples of 1000x64",
        _best(lambda: ours(table, rows), 5),
        _best(lambda: theirs(table, rows).block_until_ready(), 5),
    )

    xc, wc = rng.normal(size=(4, 16, 16, 16, 8)), rng.normal(size=(3, 3, 3, 8, 16))
    dn = ("NDHWC", "DHWIO", "NDHWC")
    jc = jax.jit(
        lambda x, w: jl.conv_general_dilated(x, w, (1, 1, 1), "SAME", dimension_numbers=dn)
    )
    jc(xc, wc).block_until_ready()
    _line(
        "conv 3-d 4x16^3x8 -> 16, kernel 3^3",
        _best(lambda: lax.conv_general_dilated(xc, wc, (1, 1, 1), "SAME", dimension_numbers=dn), 3),
        _best(lambda: jc(xc, wc).block_until_ready(), 3),
    )
    xt, wt = rng.normal(size=(8, 32, 32, 16)), rng.normal(size=(3, 3, 16, 8))
    jt = jax.jit(lambda x, w: jl.conv_transpose(x, w, (2, 2), "SAME"))
    jt(xt, wt).block_until_ready()
    _line(
        "conv_transpose 8x32x32x16 -> 64x64x8, stride 2",
        _best(lambda: lax.conv_transpose(xt, wt, (2, 2), "SAME"), 3),
        _best(lambda: jt(xt, wt).block_until_ready(), 3),
    )


if __name__ == "__main__":
    main()
