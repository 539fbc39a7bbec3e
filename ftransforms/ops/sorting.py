"""Sorting primitives: ``argsort``, ``argpartition`` and ``searchsorted``, all without a
derivative.  Differentiable ``sort`` and ``partition`` are built in ``ftransforms.numpy``
as a gather with these permutations (``take_along_axis``), so their VJP is the scatter
of the cotangent back through the permutation, and tied elements each keep their own
derivative (stable sort), as in JAX.
"""

from __future__ import annotations

from ftransforms.core.primitive import defop
from ftransforms.ops.reductions import SCAN

argsort_p = defop(
    "argsort",
    lambda xp, x, axis, kind: xp.argsort(x, axis=axis, kind=kind),
    nondiff=True,
    family=SCAN,
    doc="``numpy.argsort(x, axis, kind)`` (``axis`` a non-negative int).",
)
argpartition_p = defop(
    "argpartition",
    lambda xp, x, kth, axis: xp.argpartition(x, kth, axis=axis),
    nondiff=True,
    family=SCAN,
    doc="``numpy.argpartition(x, kth, axis)`` (``kth`` a tuple of non-negative ints).",
)
searchsorted_p = defop(
    "searchsorted",
    lambda xp, a, v, side: xp.searchsorted(a, v, side=side),
    nondiff=True,
    doc="``numpy.searchsorted(a, v, side)`` for a sorted 1-D ``a``.",
)

__all__ = ["argpartition_p", "argsort_p", "searchsorted_p"]
