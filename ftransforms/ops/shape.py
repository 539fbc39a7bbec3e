"""Shape primitives: reshape, transpose, broadcast_to, concatenate.

Everything else (squeeze, expand_dims, moveaxis, swapaxes, stack, split, ravel, ...) is
written in ``ftransforms.lax``/``ftransforms.numpy`` on top of these four and indexing.
Their batching rules are op-specific (``batching_rules/shape.py``).
"""

from __future__ import annotations

import numpy

from ftransforms import lax
from ftransforms.core.primitive import defop
from ftransforms.ops._util import unbroadcast


# NOTE [array methods in impls]: for a NumPy array the impl calls the method (or the
# ufunc's reduce) that NumPy's module-level function would call after its Python wrappers:
# the same result, without two Python frames on every call.
def _reshape_impl(xp, x, shape):
    return x.reshape(shape) if type(x) is numpy.ndarray else xp.reshape(x, shape)


def _transpose_impl(xp, x, axes):
    return x.transpose(axes) if type(x) is numpy.ndarray else xp.transpose(x, axes)


def _inverse_permutation(axes):
    inverse = [0] * len(axes)
    for i, a in enumerate(axes):
        inverse[a] = i
    return tuple(inverse)


reshape_p = defop(
    "reshape",
    _reshape_impl,
    transpose=lambda y_bar, x, shape: reshape_p.bind(y_bar, shape=x.shape),
)
transpose_p = defop(
    "transpose",
    _transpose_impl,
    transpose=lambda y_bar, x, axes: transpose_p.bind(y_bar, axes=_inverse_permutation(axes)),
)
broadcast_to_p = defop(
    "broadcast_to",
    lambda xp, x, shape: xp.broadcast_to(x, shape),
    transpose=lambda y_bar, x, shape: unbroadcast(y_bar, x),
)


def _concatenate_jvp(tangents, y, *xs, axis):
    parts = [lax.zeros_like(x) if x_dot is None else x_dot for x_dot, x in zip(tangents, xs)]
    return concatenate_p.bind(*parts, axis=axis)


def _concatenate_vjp(y_bar, y, *xs, axis, wanted):
    out = []
    start = 0
    for x, want in zip(xs, wanted):
        stop = start + x.shape[axis]
        piece = (slice(None),) * axis + (slice(start, stop),)
        # an input of another dtype than the result's gets its cotangent in its own dtype
        out.append(unbroadcast(lax.getitem(y_bar, piece), x) if want else None)
        start = stop
    return tuple(out)


concatenate_p = defop(
    "concatenate",
    lambda xp, *xs, axis: xp.concatenate(xs, axis=axis),
    jvp=_concatenate_jvp,
    vjp=_concatenate_vjp,
)

__all__ = [name for name in dir() if name.endswith("_p")]
