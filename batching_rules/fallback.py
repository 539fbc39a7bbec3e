"""The loop-and-stack fallback for primitives without a batching rule.

It is slow (a Python loop over the batch) and warns once per primitive; see
``ftransforms.interpreters.batching.FALLBACK``.  No built-in op relies on it.
"""

from __future__ import annotations

from ftransforms import lax


def _select(x, x_bdim, i):
    if x_bdim is None:
        return x
    return lax.getitem(x, (slice(None),) * x_bdim + (i,))


def loop_and_stack(prim, args, x_bdims, axis_size, **params):
    """Apply ``prim`` to each batch element in turn and stack the results at axis 0."""
    outs = [
        prim.bind(*[_select(a, x_bdim, i) for a, x_bdim in zip(args, x_bdims)], **params)
        for i in range(axis_size)
    ]
    if prim.multiple_results:
        n = len(outs[0])
        return tuple(lax.stack([o[k] for o in outs]) for k in range(n)), (0,) * n
    return lax.stack(outs), 0
