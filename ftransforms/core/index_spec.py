"""The static part of an index: ``getitem``'s ``index`` setting.

A spec is a tuple of ints, slices, ``None`` and :data:`ARRAY`, the placeholder for the
next integer index array (arrays are arguments of the primitive, so they can be batched).
"""

from __future__ import annotations


class _ArrayPlaceholder:
    __slots__ = ()

    def __repr__(self) -> str:
        return "ARRAY"

    def __reduce__(self) -> str:
        return "ARRAY"


#: Stands for the next index array in a ``getitem`` spec.
ARRAY = _ArrayPlaceholder()


def build_index(spec: tuple, arrays: tuple | list) -> tuple:
    """The NumPy index tuple for ``spec`` with its placeholders filled from ``arrays``."""
    if not arrays:
        return spec
    it = iter(arrays)
    return tuple(next(it) if e is ARRAY else e for e in spec)
