"""The reduction family: ops with ``axis`` (an int or a tuple of logical axes) and
``keepdims``.  The batch axis stays where it is; only the reduced axes are renumbered."""

from __future__ import annotations

from batching_rules.helpers import ensure_bdim, move_bdim_to_front, physical_axis
from ftransforms.core.primitive import register_batch_rule, register_family_batch_rule
from ftransforms.ops.reductions import REDUCTION, SCAN, reduce_sum_where_p


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


def sum_where(prim, args, x_bdims, axis_size, *, axis, keepdims, initial):
    """Batch ``reduce_sum_where(x, mask)`` with the batch axis in front of both (an
    unbatched mask broadcasts over it): NumPy's masked reduction of each row is then the
    reduction of that row alone (NOTE [masked sums in NumPy's order])."""
    x, mask = args
    x_bdim, mask_bdim = x_bdims
    x = ensure_bdim(x, x_bdim, axis_size)
    if mask_bdim is not None:
        mask = move_bdim_to_front(mask, mask_bdim)
    out = prim.bind(x, mask, axis=tuple(a + 1 for a in axis), keepdims=keepdims, initial=initial)
    return out, 0


register_family_batch_rule(REDUCTION, reduction)
register_batch_rule(reduce_sum_where_p, sum_where)
register_family_batch_rule(SCAN, scan)
