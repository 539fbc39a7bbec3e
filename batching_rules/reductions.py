"""The reduction family: ops with ``axis`` (an int or a tuple of logical axes) and
``keepdims``.  The batch axis stays where it is; only the reduced axes are renumbered."""

from __future__ import annotations

from batching_rules.helpers import physical_axis


def reduction(prim, args, bdims, axis_size, *, axis, keepdims=False, **params):
    """Batch ``prim(x, axis=..., keepdims=...)`` without moving any data."""
    (x,) = args
    (d,) = bdims
    if isinstance(axis, tuple):
        phys = tuple(physical_axis(a, d) for a in axis)
        below = sum(a < d for a in axis)
    else:
        phys = physical_axis(axis, d)
        below = int(axis < d)
    out = prim.bind(x, axis=phys, keepdims=keepdims, **params)
    return out, (d if keepdims else d - below)


def scan(prim, args, bdims, axis_size, *, axis, **params):
    """Batch an op along one axis that keeps the shape (cumsum, cumprod, flip, sort)."""
    (x,) = args
    (d,) = bdims
    return prim.bind(x, axis=physical_axis(axis, d), **params), d
