"""Shape manipulation: reshape, transpose and axis moves, broadcasting, joining (NumPy's
"Array manipulation routines": changing shape, transpose-like operations, changing
number of dimensions, joining arrays).
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import numpy

from ftransforms import lax
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.numpy.dispatch import implements
from ftransforms.numpy.helpers import (
    ndim,
    no_extra_args,
    normalize_axis,
    refuse_in_place,
    shape,
)
from ftransforms.ops import shape as _sh

__all__ = [
    "reshape",
    "ravel",
    "transpose",
    "permute_dims",
    "moveaxis",
    "swapaxes",
    "squeeze",
    "expand_dims",
    "broadcast_to",
    "broadcast_shapes",
    "broadcast_arrays",
    "atleast_1d",
    "atleast_2d",
    "concatenate",
    "stack",
    "vstack",
    "hstack",
    "rollaxis",
    "matrix_transpose",
    "copyto",
    "atleast_3d",
    "dstack",
    "column_stack",
]


@implements(numpy.reshape)
def reshape(x: Any, shape: Any = None, order: str = "C", **kw: Any) -> Any:  # noqa: A002
    """``numpy.reshape`` (C order)."""
    shape = kw.pop("newshape", shape)
    if order != "C":
        raise UnsupportedOperationError("reshape: only order='C' is supported")
    return lax.reshape(x, shape)


@implements(numpy.ravel)
def ravel(x: Any, order: str = "C") -> Any:
    """``numpy.ravel``."""
    return reshape(x, (-1,), order=order)


@implements(numpy.transpose)
def transpose(x: Any, axes: Any = None) -> Any:
    """``numpy.transpose``."""
    return lax.transpose(x, axes)


def permute_dims(x: Any, axes: Any = None) -> Any:  # numpy.permute_dims is numpy.transpose
    return transpose(x, axes)


@implements(numpy.moveaxis)
def moveaxis(x: Any, source: Any, destination: Any) -> Any:
    """``numpy.moveaxis``."""
    return lax.moveaxis(x, source, destination)


@implements(numpy.swapaxes)
def swapaxes(x: Any, axis1: int, axis2: int) -> Any:
    """``numpy.swapaxes``."""
    return lax.swapaxes(x, axis1, axis2)


@implements(numpy.squeeze)
def squeeze(x: Any, axis: Any = None) -> Any:
    """``numpy.squeeze``."""
    return lax.squeeze(x, axis)


@implements(numpy.expand_dims)
def expand_dims(x: Any, axis: Any) -> Any:
    """``numpy.expand_dims``."""
    return lax.expand_dims(x, axis)


@implements(numpy.broadcast_to)
def broadcast_to(x: Any, shape: Any) -> Any:  # noqa: A002
    """``numpy.broadcast_to`` (read-only result, like NumPy's)."""
    return lax.broadcast_to(x, shape)


def broadcast_shapes(*shapes: Any) -> tuple[int, ...]:
    return numpy.broadcast_shapes(*shapes)


@implements(numpy.broadcast_arrays)
def broadcast_arrays(*arrays: Any) -> list[Any]:
    """``numpy.broadcast_arrays``."""
    target = numpy.broadcast_shapes(*[shape(a) for a in arrays])
    return [broadcast_to(a, target) for a in arrays]


@implements(numpy.atleast_1d)
def atleast_1d(*arys: Any) -> Any:
    res = [a if ndim(a) >= 1 else reshape(a, (1,)) for a in arys]
    return res[0] if len(res) == 1 else res


@implements(numpy.atleast_2d)
def atleast_2d(*arys: Any) -> Any:
    res = []
    for a in arys:
        r = ndim(a)
        res.append(a if r >= 2 else reshape(a, (1,) * (2 - r) + shape(a)))
    return res[0] if len(res) == 1 else res


@implements(numpy.concatenate)
def concatenate(arrays: Sequence[Any], axis: int | None = 0, **kw: Any) -> Any:
    """``numpy.concatenate``."""
    no_extra_args("concatenate", kw)
    if builtins.any(isinstance(a, (list, tuple)) for a in arrays):
        # The one use against the chapter order (creation builds on this chapter: asarray
        # stacks lists of tracers), for nested lists given to concatenate: imported here.
        from ftransforms.numpy.creation import asarray  # late import: see the comment above

        arrays = [asarray(a) if isinstance(a, (list, tuple)) else a for a in arrays]
    if axis is None:
        arrays, axis = [ravel(a) for a in arrays], 0
    if not arrays:
        raise ValueError("need at least one array to concatenate")
    rank = ndim(arrays[0])
    if rank == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    if len(arrays) == 1:
        return arrays[0]
    return _sh.concatenate_p.bind(*arrays, axis=normalize_axis(axis, rank))


@implements(numpy.stack)
def stack(arrays: Sequence[Any], axis: int = 0, **kw: Any) -> Any:
    """``numpy.stack``."""
    no_extra_args("stack", kw)
    arrays = list(arrays)
    if not arrays:
        raise ValueError("need at least one array to stack")
    shapes = {shape(a) for a in arrays}
    if len(shapes) != 1:
        raise ValueError("all input arrays must have the same shape")
    axis = normalize_axis(axis, ndim(arrays[0]) + 1)
    expanded = [expand_dims(a, axis) for a in arrays]
    return expanded[0] if len(expanded) == 1 else _sh.concatenate_p.bind(*expanded, axis=axis)


@implements(numpy.vstack)
def vstack(arrays: Sequence[Any]) -> Any:
    return concatenate([atleast_2d(a) for a in arrays], axis=0)


@implements(numpy.hstack)
def hstack(arrays: Sequence[Any]) -> Any:
    arrays = [atleast_1d(a) for a in arrays]
    return concatenate(arrays, axis=0 if ndim(arrays[0]) == 1 else 1)


@implements(numpy.rollaxis)
def rollaxis(a: Any, axis: int, start: int = 0) -> Any:
    """``numpy.rollaxis``."""
    rank = ndim(a)
    axis = normalize_axis(axis, rank)
    start = start + rank if start < 0 else start
    if start > axis:
        start -= 1
    return moveaxis(a, axis, start) if axis != start else a


@implements("numpy.matrix_transpose")
def matrix_transpose(x: Any) -> Any:
    """``numpy.matrix_transpose``: swap the last two axes."""
    return swapaxes(x, -1, -2)


copyto = implements(numpy.copyto)(refuse_in_place("copyto"))
copyto.__doc__ = """``numpy.copyto`` writes into its argument, which tracers cannot do: it raises
:class:`~ftransforms.errors.InPlaceError`.  Use the source itself, or for
``copyto(dst, src, where=mask)`` the new array ``fnp.where(mask, src, dst)``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.copyto(np.zeros(2), np.ones(2))
    Traceback (most recent call last):
        ...
    ftransforms.core.errors.InPlaceError: numpy.copyto writes into its array argument, ...
    >>> src = np.array([[1.0, 2.0]])
    >>> ft.vmap(lambda d, s: fnp.where(s > 1.0, s, d))(np.zeros((1, 2)), src).tolist()
    [[0.0, 2.0]]
"""


@implements(numpy.atleast_3d)
def atleast_3d(*arys: Any) -> Any:
    """``numpy.atleast_3d``: (n,) -> (1, n, 1), (m, n) -> (m, n, 1)."""
    res = []
    for a in arys:
        s = shape(a)
        if len(s) == 0:
            a = reshape(a, (1, 1, 1))
        elif len(s) == 1:
            a = reshape(a, (1, s[0], 1))
        elif len(s) == 2:
            a = reshape(a, s + (1,))
        res.append(a)
    return res[0] if len(res) == 1 else tuple(res)


@implements(numpy.dstack)
def dstack(tup: Sequence[Any]) -> Any:
    """``numpy.dstack``."""
    arrays = [atleast_3d(a) for a in tup]
    return concatenate(arrays, axis=2)


@implements(numpy.column_stack)
def column_stack(tup: Sequence[Any]) -> Any:
    """``numpy.column_stack``."""
    arrays = []
    for a in tup:
        if ndim(a) < 2:
            a = reshape(a, (-1, 1))
        arrays.append(a)
    return concatenate(arrays, axis=1)
