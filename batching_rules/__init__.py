"""Batching rules for ``vmap``, one module per op family.

A rule has the signature ``rule(prim, args, x_bdims, axis_size, **params) -> (out,
out_bdim)``: ``args`` are the unwrapped inputs, ``x_bdims`` their batch axes (``None`` for
an unbatched input, which must cost nothing), ``axis_size`` the batch size.  Rules are
written with ``ftransforms.lax`` operations, never raw numpy, so that an outer transform
can see through them.  Family rules (``elementwise.elementwise``, ``reductions.reduction``)
re-bind ``prim`` and serve every op of the family; op-specific rules live beside them.
Each module registers its rules from this side (``register_batch_rule(prim, rule)``,
``register_family_batch_rule(family, rule)``): the declarations in ``ftransforms/ops``
never import this package (NOTE [layers] in ``ftransforms/lax.py``).

Modules: ``helpers``, ``elementwise``, ``reductions``, ``shape``, ``indexing``, ``linalg``,
``nn`` (convolutions and windows, folding the batch into N, channels or groups), ``fft``
(the batch axis stays put, the transformed axes are renumbered around it), ``fallback``
(the loop-and-stack rule for primitives that declare none).
"""

from batching_rules import (  # noqa: F401  (each module registers its rules on import)
    elementwise,
    fft,
    indexing,
    linalg,
    nn,
    reductions,
    shape,
    sorting,
)
