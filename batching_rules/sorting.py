"""Sorting: ``argsort`` and ``argpartition`` batch with ``reductions.scan`` (one axis,
shape kept); ``searchsorted`` needs its own rule when the sorted array is batched."""

from __future__ import annotations

import ftransforms.numpy as fnp
from batching_rules.helpers import ensure_bdim, logical_rank, move_bdim_to_front


def searchsorted(prim, args, bdims, axis_size, *, side):
    """Batch ``searchsorted(a, v)``.

    With ``a`` unbatched the op is elementwise in ``v`` and runs as it is.  With ``a``
    batched (NumPy's searchsorted takes one 1-D ``a``), the insertion point is the number
    of elements of ``a`` ordered before ``v`` (NaN sorts last, as in NumPy): one
    comparison per pair, a batched count instead of a loop over the batch.
    """
    a, v = args
    da, dv = bdims
    if da is None:
        return prim.bind(a, v, side=side), dv
    a = move_bdim_to_front(a, da)  # (B, n)
    vr = logical_rank(v, dv)
    v = ensure_bdim(v, dv, axis_size)  # (B, ...)
    a = fnp.reshape(a, (axis_size,) + (1,) * vr + (fnp.shape(a)[-1],))
    v = fnp.expand_dims(v, -1)
    if side == "left":  # a[i] sorts strictly before v
        before = fnp.logical_or(a < v, fnp.logical_and(fnp.isnan(v), ~fnp.isnan(a)))
    else:  # a[i] sorts before or equal to v
        before = fnp.logical_or(a <= v, fnp.isnan(v))
    return fnp.sum(before, axis=-1, dtype=fnp.int64), 0
