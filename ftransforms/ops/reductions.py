"""Reductions over ``axis`` (a tuple of non-negative logical axes, normalised by
``ftransforms.numpy``) with ``keepdims``, plus cumulative sums.

NOTE [ties in max/min]: as in JAX, the derivative of ``max``/``min`` is shared equally by
every element equal to the result.
"""

from __future__ import annotations

import ftransforms.numpy as fnp
from batching_rules.reductions import reduction, scan
from ftransforms.core.primitive import defop


def _keepdims_shape(shape, axis):
    return tuple(1 if i in axis else n for i, n in enumerate(shape))


def expand_reduced(g, x, axis, keepdims):
    """Broadcast a reduction's cotangent ``g`` back to the shape of ``x``."""
    if not keepdims:
        g = fnp.reshape(g, _keepdims_shape(x.shape, axis))
    return fnp.broadcast_to(g, x.shape)


reduce_sum_p = defop(
    "reduce_sum",
    lambda xp, x, axis, keepdims: xp.sum(x, axis=axis, keepdims=keepdims),
    transpose=lambda y_bar, x, axis, keepdims: expand_reduced(y_bar, x, axis, keepdims),
    batch=reduction,
)


def _extremum_weights(y, x, axis, keepdims):
    """1/count at the positions that attain the extremum, 0 elsewhere."""
    hits = (x == expand_reduced(y, x, axis, keepdims)).astype(x.dtype)
    return hits / fnp.sum(hits, axis=axis, keepdims=True)


def _extremum(name, impl):
    return defop(
        name,
        impl,
        jvp=(
            lambda x_dot, y, x, axis, keepdims: fnp.sum(
                x_dot * _extremum_weights(y, x, axis, keepdims), axis=axis, keepdims=keepdims
            ),
        ),
        vjp=(
            lambda y_bar, y, x, axis, keepdims: (
                expand_reduced(y_bar, x, axis, keepdims) * _extremum_weights(y, x, axis, keepdims)
            ),
        ),
        batch=reduction,
    )


reduce_max_p = _extremum(
    "reduce_max", lambda xp, x, axis, keepdims: xp.max(x, axis=axis, keepdims=keepdims)
)
reduce_min_p = _extremum(
    "reduce_min", lambda xp, x, axis, keepdims: xp.min(x, axis=axis, keepdims=keepdims)
)


def _prod_of_others(y, x, axis, keepdims):
    """d prod / d x_i = product of the other elements, correct where x has zeros.

    When no element of the concrete batch is zero this is ``y / x``; otherwise each
    element's cofactor is the product with that element replaced by 1, formed over an
    extra axis (quadratic in the reduced size, used only when zeros are present).
    """
    if not (fnp.physical(x) == 0).any():
        return expand_reduced(y, x, axis, keepdims) / x
    moved = fnp.moveaxis(x, axis, tuple(range(x.ndim - len(axis), x.ndim)))
    rest = moved.shape[: x.ndim - len(axis)]
    flat = fnp.reshape(moved, rest + (-1,))
    n = flat.shape[-1]
    eye = fnp.eye(n, dtype=bool, like=x)
    expanded = fnp.where(eye, 1.0, fnp.expand_dims(flat, -2)).astype(x.dtype)
    cof = fnp.prod(expanded, axis=-1)  # cof[..., i] = prod_{j != i} flat[..., j]
    cof = fnp.reshape(cof, moved.shape)
    return fnp.moveaxis(cof, tuple(range(x.ndim - len(axis), x.ndim)), axis)


reduce_prod_p = defop(
    "reduce_prod",
    lambda xp, x, axis, keepdims: xp.prod(x, axis=axis, keepdims=keepdims),
    jvp=(
        lambda x_dot, y, x, axis, keepdims: fnp.sum(
            x_dot * _prod_of_others(y, x, axis, keepdims), axis=axis, keepdims=keepdims
        ),
    ),
    vjp=(
        lambda y_bar, y, x, axis, keepdims: (
            expand_reduced(y_bar, x, axis, keepdims) * _prod_of_others(y, x, axis, keepdims)
        ),
    ),
    batch=reduction,
)

argmax_p = defop(
    "argmax",
    lambda xp, x, axis, keepdims: xp.argmax(x, axis=axis, keepdims=keepdims),
    nondiff=True,
    batch=reduction,
)
argmin_p = defop(
    "argmin",
    lambda xp, x, axis, keepdims: xp.argmin(x, axis=axis, keepdims=keepdims),
    nondiff=True,
    batch=reduction,
)
reduce_any_p = defop(
    "reduce_any",
    lambda xp, x, axis, keepdims: xp.any(x, axis=axis, keepdims=keepdims),
    nondiff=True,
    batch=reduction,
)
reduce_all_p = defop(
    "reduce_all",
    lambda xp, x, axis, keepdims: xp.all(x, axis=axis, keepdims=keepdims),
    nondiff=True,
    batch=reduction,
)


def _reverse_cumsum(g, axis):
    rev = (slice(None),) * axis + (slice(None, None, -1),)
    return fnp.getitem(cumsum_p.bind(fnp.getitem(g, rev), axis=axis), rev)


cumsum_p = defop(
    "cumsum",
    lambda xp, x, axis: xp.cumsum(x, axis=axis),
    transpose=lambda y_bar, x, axis: _reverse_cumsum(y_bar, axis),
    batch=scan,
)

__all__ = [name for name in dir() if name.endswith("_p")]
