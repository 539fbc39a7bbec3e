"""The elementwise family: one rule for every broadcasting n-ary elementwise op."""

from __future__ import annotations

from batching_rules.helpers import logical_rank, move_bdim_to_front, pad_rank_after_front


def elementwise(prim, args, bdims, axis_size, **params):
    """Batch an elementwise op with NumPy broadcasting.

    Fast path: when every batched input has the full output rank and the same batch axis
    ``d``, and every unbatched input is short enough not to reach axis ``d`` when
    right-aligned, the op runs on the values as they are.  Otherwise batched inputs get their
    batch axis moved to the front and size-1 axes inserted to the output rank.
    """
    if len(args) == 1:  # unary: the op maps over the batch axis wherever it is
        return prim.bind(args[0], **params), bdims[0]
    ranks = [logical_rank(a, d) for a, d in zip(args, bdims)]
    out_rank = max(ranks)
    common = None
    fast = True
    for d, r in zip(bdims, ranks):
        if d is None:
            continue
        if r != out_rank or (common is not None and d != common):
            fast = False
            break
        common = d
    if fast:
        for d, r in zip(bdims, ranks):
            if d is None and r > out_rank - common:
                fast = False
                break
    if fast:
        return prim.bind(*args, **params), common
    moved = [
        a if d is None else pad_rank_after_front(move_bdim_to_front(a, d), out_rank)
        for a, d in zip(args, bdims)
    ]
    return prim.bind(*moved, **params), 0
