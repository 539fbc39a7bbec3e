"""The collective primitives behind ``ft.lax.psum``/``pmax``/``pmin``/``all_gather``.

Each takes ``(x, index)``: ``index`` is the named ``vmap`` level's ``axis_index`` tracer,
the only argument batched at that level (NOTE [collectives under vmap] in
``ftransforms/lax.py``).  The batching rule reduces over the batch axis where ``index``
is batched and passes the value through (as an elementwise op would) at every other
level.  These are plain :class:`Primitive` objects, not ``defop`` declarations: they only
exist under a named ``vmap``, so the op database's sweeps (bare calls, unnamed ``vmap``)
cannot drive them; ``tests/test_jax_toolbox_b_collectives.py`` checks them against JAX.
"""

from __future__ import annotations

from typing import Any

from ftransforms import lax
from ftransforms.core.primitive import Primitive, prims


def _unbound(xp: Any, x: Any, index: Any, **params: Any) -> Any:
    raise RuntimeError(  # pragma: no cover - ``index`` always dispatches to its vmap level
        "a collective reached the array backend without its named vmap level"
    )


def _reduce_or_pass(reduce_batch, unbatched):
    """A batching rule: ``reduce_batch(x, bdim)`` at the named level, ``unbatched(x, n)``
    there for a value that does not vary along the axis, and a pass-through elsewhere."""

    def rule(prim, args, bdims, axis_size, **params):
        x, index = args
        x_bdim, index_bdim = bdims
        if index_bdim is None:  # another vmap level: map over its batch axis
            return prim.bind(x, index, **params), x_bdim
        if x_bdim is None:
            return unbatched(x, axis_size), None
        return reduce_batch(x, x_bdim), None

    return rule


def _psum_transpose(y_bar: Any, x: Any, index: Any) -> Any:
    # The cotangent of every row's copy of the total flows back to each row (JAX's rule).
    return psum_p.bind(y_bar, index)


def _sum_keeping_ints(x: Any, d: int) -> Any:
    # NumPy's sum widens int8..int32 to int64; JAX's psum keeps the integer dtype
    total = lax.sum(x, axis=d)
    return lax.convert(total, lax.dtype_of(x)) if lax.dtype_of(x).kind in "iu" else total


psum_p = Primitive(
    "psum",
    _unbound,
    transpose=_psum_transpose,
    batch=_reduce_or_pass(_sum_keeping_ints, lambda x, n: x * n),
)


def _extremum(name: str) -> Primitive:
    reduce = getattr(prims, f"reduce_{name}")

    def share(x: Any, y: Any, index: Any) -> Any:
        # NOTE [ties in max/min] (ftransforms/ops/reductions.py): tied rows share equally.
        hits = lax.convert(lax.equal(x, y), lax.dtype_of(x))
        return hits / psum_p.bind(hits, index)

    def jvp(x_dot, y, x, index):
        return psum_p.bind(x_dot * share(x, y, index), index)

    def vjp(y_bar, y, x, index):
        return psum_p.bind(y_bar, index) * share(x, y, index)

    return Primitive(
        f"p{name}",
        _unbound,
        jvp=(jvp, None),
        vjp=(vjp, None),
        batch=_reduce_or_pass(
            lambda x, d: reduce.bind(x, axis=(d,), keepdims=False), lambda x, n: x
        ),
    )


pmax_p = _extremum("max")
pmin_p = _extremum("min")


def _all_gather_batch(prim, args, bdims, axis_size, *, axis, tiled):
    x, index = args
    x_bdim, index_bdim = bdims
    if index_bdim is None:  # another vmap level: its batch axis goes in front
        x = lax.move_bdim_to_front(x, x_bdim)
        return prim.bind(x, index, axis=axis + (x_bdim is not None), tiled=tiled), (
            None if x_bdim is None else 0
        )
    x = lax.ensure_bdim(x, x_bdim, axis_size)
    out = lax.moveaxis(x, 0, axis)
    return (lax.reshape_dim_into(axis, axis, out) if tiled else out), None


def _all_gather_transpose(y_bar: Any, x: Any, index: Any, *, axis: int, tiled: bool) -> Any:
    # Each row gets back the total cotangent of its own slot (JAX's psum_scatter).
    total = psum_p.bind(y_bar, index)
    if tiled:
        n = lax.shape(x)[axis]
        total = lax.reshape_dim_outof(axis, lax.shape(total)[axis] // n, total)
    return lax.getitem(total, (slice(None),) * axis + (index,))


all_gather_p = Primitive(
    "all_gather", _unbound, transpose=_all_gather_transpose, batch=_all_gather_batch
)

# ``ftransforms.lax`` binds them by name, like the declared primitives.
prims.psum = psum_p
prims.pmax = pmax_p
prims.pmin = pmin_p
prims.all_gather = all_gather_p
