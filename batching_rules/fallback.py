"""The loop-and-stack fallback for primitives without a batching rule.

It is slow (a Python loop over the batch) and warns once per primitive; see
``ftransforms.interpreters.batching.FALLBACK``.  No built-in op relies on it.
"""

from __future__ import annotations

import ftransforms.numpy as fnp


def _select(x, bdim, i):
    if bdim is None:
        return x
    return fnp.getitem(x, (slice(None),) * bdim + (i,))


def loop_and_stack(prim, args, bdims, axis_size, **params):
    """Apply ``prim`` to each batch element in turn and stack the results at axis 0."""
    outs = [
        prim.bind(*[_select(a, d, i) for a, d in zip(args, bdims)], **params)
        for i in range(axis_size)
    ]
    if prim.multiple_results:
        n = len(outs[0])
        return tuple(fnp.stack([o[k] for o in outs]) for k in range(n)), (0,) * n
    return fnp.stack(outs), 0
