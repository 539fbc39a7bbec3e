"""Batching rules for ``vmap``, one module per op family.

A rule has the signature ``rule(prim, args, bdims, axis_size, **params) -> (out,
out_bdim)``: ``args`` are the unwrapped inputs, ``bdims`` their batch axes (``None`` for an
unbatched input, which must cost nothing), ``axis_size`` the batch size.  Rules are written
with ``ftransforms.numpy`` operations, never raw numpy, so that an outer transform can
see through them.  Family rules (``elementwise.elementwise``, ``reductions.reduction``)
re-bind ``prim`` and serve every op of the family; op-specific rules live beside them.

Modules: ``helpers``, ``elementwise``, ``reductions``, ``shape``, ``indexing``, ``linalg``,
``nn`` (convolutions and windows, folding the batch into N, channels or groups), ``fft``
(the batch axis stays put, the transformed axes are renumbered around it), ``fallback``
(the loop-and-stack rule for primitives that declare none).
"""

import ftransforms  # noqa: F401  (loads the primitives, which import these modules in order)
