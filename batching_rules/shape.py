"""Shape ops: reshape, transpose, broadcast_to, concatenate, bitcast_convert_type."""

from __future__ import annotations

from batching_rules.helpers import ensure_bdim, move_bdim_to_front, pad_rank_after_front
from ftransforms.core.primitive import register_batch_rule
from ftransforms.ops import bits
from ftransforms.ops import shape as ops


def reshape(prim, args, x_bdims, axis_size, *, shape):
    (x,) = args
    x = move_bdim_to_front(x, x_bdims[0])
    return prim.bind(x, shape=(axis_size,) + tuple(shape)), 0


def transpose(prim, args, x_bdims, axis_size, *, axes):
    (x,) = args
    (x_bdim,) = x_bdims
    phys = (x_bdim,) + tuple(a + (a >= x_bdim) for a in axes)
    return prim.bind(x, axes=phys), 0


def broadcast_to(prim, args, x_bdims, axis_size, *, shape):
    (x,) = args
    x = pad_rank_after_front(move_bdim_to_front(x, x_bdims[0]), len(shape))
    return prim.bind(x, shape=(axis_size,) + tuple(shape)), 0


def concatenate(prim, args, x_bdims, axis_size, *, axis):
    moved = [ensure_bdim(a, x_bdim, axis_size) for a, x_bdim in zip(args, x_bdims)]
    return prim.bind(*moved, axis=axis + 1), 0


def bitcast_convert_type(prim, args, x_bdims, axis_size, *, new_dtype):
    # only the last axis changes: the batch axis goes in front
    (x,) = args
    return prim.bind(move_bdim_to_front(x, x_bdims[0]), new_dtype=new_dtype), 0


register_batch_rule(bits.bitcast_convert_type_p, bitcast_convert_type)
register_batch_rule(ops.reshape_p, reshape)
register_batch_rule(ops.transpose_p, transpose)
register_batch_rule(ops.broadcast_to_p, broadcast_to)
register_batch_rule(ops.concatenate_p, concatenate)
