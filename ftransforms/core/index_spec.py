"""The static part of an index: ``getitem``'s ``index`` setting.

A spec is a tuple of ints, slices, ``None`` and :data:`ARRAY`, the placeholder for the
next integer index array (arrays are arguments of the primitive, so they can be batched).
"""

from __future__ import annotations

from typing import Any

import numpy

from ftransforms.backend import namespace_of
from ftransforms.core.errors import BatchedControlFlowError, UnsupportedOperationError
from ftransforms.core.mutation import Buffer
from ftransforms.core.outside_operands import note_host_read
from ftransforms.core.tracer import Tracer


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


def _dtype_of(x: Any) -> Any:
    d = getattr(x, "dtype", None)
    return d if d is not None else numpy.result_type(x)


def _index_array(entry: Any) -> Any:
    if isinstance(entry, str) or (
        isinstance(entry, list) and entry and all(isinstance(e, str) for e in entry)
    ):
        raise UnsupportedOperationError(
            f"a[{entry!r}]: a field of a structured array (a record dtype) is not supported "
            f"on a traced array or one made inside a transformed function; keep each field "
            f"as an array of its own (U = np.zeros(shape) for Z['U'])"
        )
    if _dtype_of(entry).kind not in "iu":
        raise IndexError(
            "only integers, slices (`:`), ellipsis (`...`), None and integer or boolean "
            "arrays are valid indices"
        )
    return entry


def bool_to_int_arrays(mask: Any) -> list[Any]:
    """The integer index arrays of ``mask``'s true elements (``mask.nonzero()``)."""
    if isinstance(mask, Tracer):
        try:
            concrete = mask._concrete()
        except BatchedControlFlowError:
            raise BatchedControlFlowError(
                "x[mask] with a batched boolean mask under vmap: the result's size would "
                "differ across the batch.  Use fnp.where(mask, x, 0) (or a sum weighted by "
                "the mask) instead."
            ) from None
    else:
        concrete = numpy.asarray(mask) if isinstance(mask, (list, bool)) else mask
        # a mask from outside a jit recording: NOTE [outside arrays in rules under jit]
        note_host_read(mask)
    return list(concrete.nonzero())


def normalize_index(index: Any, rank: int) -> tuple[tuple, list]:
    """Split a NumPy index into a static spec (with ``ARRAY`` placeholders) and arrays.

    Example:
        >>> normalize_index((0, Ellipsis), 3)
        ((0, slice(None, None, None), slice(None, None, None)), [])
    """
    if not isinstance(index, tuple):
        index = (index,)
    spec: list = []
    arrays: list = []
    consumed = 0
    ellipsis_at = None
    for entry in index:
        if entry is None:
            spec.append(None)
        elif entry is Ellipsis:
            if ellipsis_at is not None:
                raise IndexError("an index can only have a single ellipsis ('...')")
            ellipsis_at = len(spec)
        elif isinstance(entry, slice):
            spec.append(entry)
            consumed += 1
        elif isinstance(entry, (bool, numpy.bool_)):
            raise UnsupportedOperationError("indexing with a Python bool is not supported")
        elif isinstance(entry, (int, numpy.integer)):
            spec.append(int(entry))
            consumed += 1
        else:
            if isinstance(entry, (list, tuple, range)):  # x[range(n), y]: a sequence
                entry = numpy.asarray(entry)
                if entry.size == 0 and entry.dtype.kind not in "biu":
                    entry = entry.astype(numpy.intp)  # x[[]]: an empty index, as in NumPy
            if _dtype_of(entry).kind == "b":
                parts = bool_to_int_arrays(entry)
                spec.extend([ARRAY] * len(parts))
                arrays.extend(parts)
                consumed += len(parts)
                continue
            spec.append(ARRAY)
            arrays.append(_index_array(entry))
            consumed += 1
    if consumed > rank:
        raise IndexError(
            f"too many indices for array: array is {rank}-dimensional, but {consumed} were indexed"
        )
    fill = [slice(None)] * (rank - consumed)
    if ellipsis_at is None:
        spec.extend(fill)
    else:
        spec[ellipsis_at:ellipsis_at] = fill
    return tuple(spec), arrays


def index_arrays_on(x: Any, arrays: list) -> list:
    """Host (NumPy) index arrays moved to ``x``'s backend, as CuPy does implicitly."""
    if not arrays:
        return arrays
    xp = namespace_of(x._physical() if isinstance(x, Tracer) else x)
    if xp is numpy:
        return arrays
    # a buffer (NOTE [mutation semantics] in core/mutation.py) holds a host array too
    arrays = [a.val if type(a) is Buffer else a for a in arrays]
    return [xp.asarray(a) if type(a) is numpy.ndarray else a for a in arrays]
