"""Indexing: ``getitem`` (basic and integer-array indexing) and its transpose, the
scatter-add ``getitem_transpose``.

NOTE [where NumPy puts advanced-index axes]: the axes produced by integer-array indices
(and by integers, when arrays are present) replace the indexed axes in place when the
advanced entries are adjacent, and go to the front of the result when a slice, ``None``
or ``...`` separates them.  Both rules below keep the batch axis where that placement puts
it, so no data is moved after indexing.
"""

from __future__ import annotations

import ftransforms.numpy as fnp
from batching_rules.helpers import ensure_bdim, logical_rank, move_bdim_to, move_bdim_to_front
from ftransforms.core.index_spec import ARRAY


def _is_advanced(entry, has_arrays):
    return entry is ARRAY or (has_arrays and isinstance(entry, int))


def _advanced_layout(index):
    """(has_arrays, first advanced entry position, adjacent?)."""
    has_arrays = any(e is ARRAY for e in index)
    positions = [i for i, e in enumerate(index) if _is_advanced(e, has_arrays)]
    if not positions:
        return False, None, True
    adjacent = positions[-1] - positions[0] + 1 == len(positions)
    return has_arrays, positions[0], adjacent


def _adv_rank(arrays, bdims):
    return max([logical_rank(a, d) for a, d in zip(arrays, bdims)], default=0)


def _bdim_after_leading_slice(index, arrays):
    """Where the batch axis lands for x[(slice(None),) + index] (x batched at 0)."""
    has_arrays, _, adjacent = _advanced_layout(index)
    if not has_arrays or adjacent:
        return 0
    return _adv_rank(arrays, [None] * len(arrays))


def _batched_index(index, arrays, bdims, axis_size, like):
    """Insert a batch ``arange`` index next to the advanced block of ``index``.

    Returns (new index, new arrays, x axis that must hold the batch, result batch axis).
    """
    _, first, adjacent = _advanced_layout(index)
    rank = _adv_rank(arrays, bdims)
    new_arrays = []
    for a, d in zip(arrays, bdims):
        if d is None:
            new_arrays.append(a)
            continue
        a = move_bdim_to_front(a, d)
        shape = fnp.shape(a)
        new_arrays.append(fnp.reshape(a, shape[:1] + (1,) * (rank - len(shape) + 1) + shape[1:]))
    batch_index = fnp.reshape(fnp.arange(axis_size, like=like), (axis_size,) + (1,) * rank)
    x_axis = sum(e is not None for e in index[:first])
    out_bdim = sum(e is None or isinstance(e, slice) for e in index[:first]) if adjacent else 0
    new_index = index[:first] + (ARRAY,) + index[first:]
    return new_index, [batch_index] + new_arrays, x_axis, out_bdim


def getitem(prim, args, bdims, axis_size, *, index):
    x, *arrays = args
    xd, *ad = bdims
    if all(d is None for d in ad):
        x = move_bdim_to_front(x, xd)
        out = prim.bind(x, *arrays, index=(slice(None),) + index)
        return out, _bdim_after_leading_slice(index, arrays)
    like = arrays[next(i for i, d in enumerate(ad) if d is not None)]
    new_index, new_arrays, x_axis, out_bdim = _batched_index(index, arrays, ad, axis_size, like)
    x = move_bdim_to(ensure_bdim(x, xd, axis_size), 0, x_axis)
    return prim.bind(x, *new_arrays, index=new_index), out_bdim


def getitem_transpose(prim, args, bdims, axis_size, *, index, shape):
    g, *arrays = args
    gd, *ad = bdims
    if all(d is None for d in ad):
        g = move_bdim_to(g, gd, _bdim_after_leading_slice(index, arrays))
        out = prim.bind(g, *arrays, index=(slice(None),) + index, shape=(axis_size,) + shape)
        return out, 0
    like = arrays[next(i for i, d in enumerate(ad) if d is not None)]
    new_index, new_arrays, x_axis, out_bdim = _batched_index(index, arrays, ad, axis_size, like)
    g = move_bdim_to(ensure_bdim(g, gd, axis_size), 0, out_bdim)
    new_shape = shape[:x_axis] + (axis_size,) + shape[x_axis:]
    return prim.bind(g, *new_arrays, index=new_index, shape=new_shape), x_axis
