"""Indexing primitives: ``getitem`` and its transpose ``getitem_transpose``.

``getitem(x, *arrays, index=spec)``: ``spec`` is a tuple of ints, slices, ``None`` and the
placeholder :data:`ARRAY`, which stands for the next integer array in ``arrays`` (arrays
are arguments, so that they can be batched; they are never differentiated).
``getitem_transpose(g, *arrays, index=spec, shape=s)`` is zeros of shape ``s`` with ``g``
added at the index (repeated indices accumulate).  The two are each other's transpose.
"""

from __future__ import annotations

from ftransforms.core.index_spec import ARRAY, build_index
from ftransforms.core.primitive import defop


def _getitem_impl(xp, x, *arrays, index):
    return x[build_index(index, arrays)]


def _getitem_transpose_impl(xp, g, *arrays, index, shape):
    out = xp.zeros(shape, dtype=g.dtype)
    idx = build_index(index, arrays)
    if arrays:
        if xp.__name__ == "cupy":
            import cupyx  # noqa: PLC0415

            cupyx.scatter_add(out, idx, g)
        else:
            xp.add.at(out, idx, g)
    else:
        out[idx] = g
    return out


getitem_p = defop(
    "getitem",
    _getitem_impl,
    transpose=lambda y_bar, x, *arrays, index: getitem_transpose_p.bind(
        y_bar, *arrays, index=index, shape=tuple(x.shape)
    ),
)
getitem_transpose_p = defop(
    "getitem_transpose",
    _getitem_transpose_impl,
    transpose=lambda y_bar, g, *arrays, index, shape: getitem_p.bind(y_bar, *arrays, index=index),
)

__all__ = ["ARRAY", "build_index", "getitem_p", "getitem_transpose_p"]
