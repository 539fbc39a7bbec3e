"""The elementwise family: one rule for every broadcasting n-ary elementwise op, and its
version for the elementwise ops with several outputs."""

from __future__ import annotations

from batching_rules.helpers import logical_rank, move_bdim_to_front, pad_rank_after_front
from ftransforms.core.primitive import register_batch_rule, register_family_batch_rule
from ftransforms.ops.elementwise import FAMILY, divmod_p, frexp_p, modf_p
from ftransforms.ops.prng import threefry2x32_p
from ftransforms.ops.scipy_ufuncs import scipy_ufunc_multi_p


def elementwise(prim, args, x_bdims, axis_size, **params):
    """Batch an elementwise op with NumPy broadcasting.

    Fast path: when every batched input has the full output rank and the same batch axis
    ``x_bdim``, and every unbatched input is short enough not to reach axis ``x_bdim`` when
    right-aligned, the op runs on the values as they are.  Otherwise batched inputs get their
    batch axis moved to the front and size-1 axes inserted to the output rank.
    """
    if len(args) == 1:  # unary: the op maps over the batch axis wherever it is
        return prim.bind(args[0], **params), x_bdims[0]
    ranks = [logical_rank(a, x_bdim) for a, x_bdim in zip(args, x_bdims)]
    out_rank = max(ranks)
    common = None
    fast = True
    for x_bdim, r in zip(x_bdims, ranks):
        if x_bdim is None:
            continue
        if r != out_rank or (common is not None and x_bdim != common):
            fast = False
            break
        common = x_bdim
    if fast:
        for x_bdim, r in zip(x_bdims, ranks):
            if x_bdim is None and r > out_rank - common:
                fast = False
                break
    if fast:
        return prim.bind(*args, **params), common
    moved = [
        a if x_bdim is None else pad_rank_after_front(move_bdim_to_front(a, x_bdim), out_rank)
        for a, x_bdim in zip(args, x_bdims)
    ]
    return prim.bind(*moved, **params), 0


register_family_batch_rule(FAMILY, elementwise)


def elementwise_multiple_results(prim, args, x_bdims, axis_size, **params):
    """Batch an elementwise op with several outputs (``divmod``, ``modf``, ``frexp``,
    ``threefry2x32``): the family rule above, every output on the batch axis it gives the
    one output of a single-output op (NOTE [elementwise ops with two outputs] in
    ``ops/elementwise.py``)."""
    outs, out_bdim = elementwise(prim, args, x_bdims, axis_size, **params)
    return outs, (out_bdim,) * len(outs)


for _prim in (divmod_p, modf_p, frexp_p, threefry2x32_p, scipy_ufunc_multi_p):
    register_batch_rule(_prim, elementwise_multiple_results)
