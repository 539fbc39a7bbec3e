"""Sorting: ``argsort`` and ``argpartition`` batch with ``reductions.scan`` (one axis,
shape kept); ``searchsorted`` needs its own rule when the sorted array is batched."""

from __future__ import annotations

import numpy

from batching_rules.helpers import ensure_bdim, logical_rank, move_bdim_to_front
from ftransforms import lax
from ftransforms.core.primitive import register_batch_rule
from ftransforms.ops import sorting as ops


def searchsorted(prim, args, x_bdims, axis_size, *, side):
    """Batch ``searchsorted(a, v)``.

    With ``a`` unbatched the op is elementwise in ``v`` and runs as it is.  With ``a``
    batched (NumPy's searchsorted takes one 1-D ``a``), the insertion point is the number
    of elements of ``a`` ordered before ``v`` (NaN sorts last, as in NumPy): one
    comparison per pair, a batched count instead of a loop over the batch.
    """
    a, v = args
    a_bdim, v_bdim = x_bdims
    if a_bdim is None:
        return prim.bind(a, v, side=side), v_bdim
    a = move_bdim_to_front(a, a_bdim)  # (B, n)
    vr = logical_rank(v, v_bdim)
    v = ensure_bdim(v, v_bdim, axis_size)  # (B, ...)
    a = lax.reshape(a, (axis_size,) + (1,) * vr + (lax.shape(a)[-1],))
    v = lax.expand_dims(v, -1)
    if side == "left":  # a[i] sorts strictly before v
        before = lax.logical_or(a < v, lax.logical_and(lax.isnan(v), ~lax.isnan(a)))
    else:  # a[i] sorts before or equal to v
        before = lax.logical_or(a <= v, lax.isnan(v))
    return lax.sum(lax.convert(before, numpy.int64), axis=-1), 0


register_batch_rule(ops.searchsorted_p, searchsorted)
