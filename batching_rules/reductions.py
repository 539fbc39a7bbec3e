"""The reduction family: ops with ``axis`` (an int or a tuple of logical axes) and
``keepdims``.  The batch axis stays where it is; only the reduced axes are renumbered."""

from __future__ import annotations

from batching_rules.helpers import physical_axis
from ftransforms.core.primitive import register_family_batch_rule
from ftransforms.ops.reductions import REDUCTION, SCAN


def reduction(prim, args, x_bdims, axis_size, *, axis, keepdims=False, **params):
    """Batch ``prim(x, axis=..., keepdims=...)`` without moving any data."""
    (x,) = args
    (x_bdim,) = x_bdims
    if isinstance(axis, tuple):
        phys = tuple(physical_axis(a, x_bdim) for a in axis)
        below = sum(a < x_bdim for a in axis)
    else:
        phys = physical_axis(axis, x_bdim)
        below = int(axis < x_bdim)
    out = prim.bind(x, axis=phys, keepdims=keepdims, **params)
    return out, (x_bdim if keepdims else x_bdim - below)


def scan(prim, args, x_bdims, axis_size, *, axis, **params):
    """Batch an op along one axis that keeps the shape (cumsum, cumprod, flip, sort)."""
    (x,) = args
    (x_bdim,) = x_bdims
    return prim.bind(x, axis=physical_axis(axis, x_bdim), **params), x_bdim


register_family_batch_rule(REDUCTION, reduction)
register_family_batch_rule(SCAN, scan)
