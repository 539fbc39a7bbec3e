"""Indexing: ``getitem`` (basic and integer-array indexing) and its transpose, the
scatter-add ``getitem_transpose``.

NOTE [where NumPy puts advanced-index axes]: the axes produced by integer-array indices
(and by integers, when arrays are present) replace the indexed axes in place when the
advanced entries are adjacent, and go to the front of the result when a slice, ``None``
or ``...`` separates them.  Both rules below keep the batch axis where that placement puts
it, so no data is moved after indexing.
"""

from __future__ import annotations

from batching_rules.helpers import ensure_bdim, logical_rank, move_bdim_to, move_bdim_to_front
from ftransforms import lax
from ftransforms.core.index_spec import ARRAY
from ftransforms.core.primitive import register_batch_rule
from ftransforms.ops import indexing as ops


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


def _adv_rank(arrays, x_bdims):
    return max([logical_rank(a, i_bdim) for a, i_bdim in zip(arrays, x_bdims)], default=0)


def _bdim_after_leading_slice(index, arrays):
    """Where the batch axis lands for x[(slice(None),) + index] (x batched at 0)."""
    has_arrays, _, adjacent = _advanced_layout(index)
    if not has_arrays or adjacent:
        return 0
    return _adv_rank(arrays, [None] * len(arrays))


def _batched_index(index, arrays, x_bdims, axis_size, like):
    """Insert a batch ``arange`` index next to the advanced block of ``index``.

    Returns (new index, new arrays, x axis that must hold the batch, result batch axis).
    """
    _, first, adjacent = _advanced_layout(index)
    rank = _adv_rank(arrays, x_bdims)
    new_arrays = []
    for a, i_bdim in zip(arrays, x_bdims):
        if i_bdim is None:
            new_arrays.append(a)
            continue
        a = move_bdim_to_front(a, i_bdim)
        shape = lax.shape(a)
        new_arrays.append(lax.reshape(a, shape[:1] + (1,) * (rank - len(shape) + 1) + shape[1:]))
    batch_index = lax.reshape(lax.xp_of(like).arange(axis_size), (axis_size,) + (1,) * rank)
    x_axis = sum(e is not None for e in index[:first])
    out_bdim = sum(e is None or isinstance(e, slice) for e in index[:first]) if adjacent else 0
    new_index = index[:first] + (ARRAY,) + index[first:]
    return new_index, [batch_index] + new_arrays, x_axis, out_bdim


def getitem(prim, args, x_bdims, axis_size, *, index):
    x, *arrays = args
    x_bdim, *index_bdims = x_bdims
    if all(i_bdim is None for i_bdim in index_bdims):
        x = move_bdim_to_front(x, x_bdim)
        out = prim.bind(x, *arrays, index=(slice(None),) + index)
        return out, _bdim_after_leading_slice(index, arrays)
    like = arrays[next(i for i, i_bdim in enumerate(index_bdims) if i_bdim is not None)]
    new_index, new_arrays, x_axis, out_bdim = _batched_index(
        index, arrays, index_bdims, axis_size, like
    )
    x = move_bdim_to(ensure_bdim(x, x_bdim, axis_size), 0, x_axis)
    return prim.bind(x, *new_arrays, index=new_index), out_bdim


def getitem_transpose(prim, args, x_bdims, axis_size, *, index, shape):
    g, *arrays = args
    g_bdim, *index_bdims = x_bdims
    if all(i_bdim is None for i_bdim in index_bdims):
        g = move_bdim_to(g, g_bdim, _bdim_after_leading_slice(index, arrays))
        out = prim.bind(g, *arrays, index=(slice(None),) + index, shape=(axis_size,) + shape)
        return out, 0
    like = arrays[next(i for i, i_bdim in enumerate(index_bdims) if i_bdim is not None)]
    new_index, new_arrays, x_axis, out_bdim = _batched_index(
        index, arrays, index_bdims, axis_size, like
    )
    g = move_bdim_to(ensure_bdim(g, g_bdim, axis_size), 0, out_bdim)
    new_shape = shape[:x_axis] + (axis_size,) + shape[x_axis:]
    return prim.bind(g, *new_arrays, index=new_index, shape=new_shape), x_axis


register_batch_rule(ops.getitem_p, getitem)
register_batch_rule(ops.getitem_transpose_p, getitem_transpose)
