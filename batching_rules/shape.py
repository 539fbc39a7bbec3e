"""Shape ops: reshape, transpose, broadcast_to, concatenate."""

from __future__ import annotations

from batching_rules.helpers import ensure_bdim, move_bdim_to_front, pad_rank_after_front


def reshape(prim, args, bdims, axis_size, *, shape):
    (x,) = args
    x = move_bdim_to_front(x, bdims[0])
    return prim.bind(x, shape=(axis_size,) + tuple(shape)), 0


def transpose(prim, args, bdims, axis_size, *, axes):
    (x,) = args
    (d,) = bdims
    phys = (d,) + tuple(a + (a >= d) for a in axes)
    return prim.bind(x, axes=phys), 0


def broadcast_to(prim, args, bdims, axis_size, *, shape):
    (x,) = args
    x = pad_rank_after_front(move_bdim_to_front(x, bdims[0]), len(shape))
    return prim.bind(x, shape=(axis_size,) + tuple(shape)), 0


def concatenate(prim, args, bdims, axis_size, *, axis):
    moved = [ensure_bdim(a, d, axis_size) for a, d in zip(args, bdims)]
    return prim.bind(*moved, axis=axis + 1), 0
