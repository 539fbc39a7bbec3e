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
from ftransforms.core.mutation import c_contiguous, f_contiguous
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.dispatch import implements
from ftransforms.numpy.helpers import (
    as_array,
    dtype_of,
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
    """``numpy.reshape``: the same elements in ``shape`` (one ``-1`` is inferred), read and
    written in C order or, with ``order='F'``, Fortran order (MATLAB's ``reshape``, the
    ``vec`` of a matrix); ``'A'`` is Fortran order only for a Fortran- and not C-contiguous
    array (``a.T`` of a C-contiguous ``a``).  NumPy's older ``newshape=`` keyword is
    accepted.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.reshape(np.arange(6), (2, -1)).tolist()
        [[0, 1, 2], [3, 4, 5]]
        >>> ft.grad(lambda x: fnp.reshape(x, (2, 2))[1, 0])(np.zeros(4))
        array([0., 0., 1., 0.])
        >>> fnp.reshape(np.arange(6), (2, 3), order="F").tolist()
        [[0, 2, 4], [1, 3, 5]]
    """
    shape = kw.pop("newshape", shape)
    if _fortran_order(x, order, "reshape"):
        dims = (shape,) if isinstance(shape, (int, numpy.integer)) else tuple(shape)
        return transpose(lax.reshape(transpose(x), tuple(reversed(dims))))
    return lax.reshape(x, shape)


def _fortran_order(x: Any, order: Any, where: str) -> bool:
    """Whether ``order`` asks for Fortran order for ``x`` (NumPy's ``'A'``: only for a
    Fortran- and not C-contiguous NumPy array)."""
    if order is None or order == "C":
        return False
    if order == "F":
        return True
    if order in ("A", "K"):
        if isinstance(x, Tracer):  # the layout its views record (NOTE [memory layout])
            return f_contiguous(x) and not c_contiguous(x)
        flags = getattr(x, "flags", None) if type(x) is numpy.ndarray else None
        return bool(flags is not None and flags.f_contiguous and not flags.c_contiguous)
    raise ValueError(f"{where}: order must be one of 'C', 'F', 'A' (or 'K'), got {order!r}")


@implements(numpy.ravel)
def ravel(x: Any, order: str = "C") -> Any:
    """``numpy.ravel``: the elements as a 1-D array, in C order or, with ``order='F'``,
    column by column.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.ravel(np.array([[1, 2], [3, 4]])).tolist()
        [1, 2, 3, 4]
        >>> ft.grad(lambda x: fnp.ravel(x)[1])(np.zeros((2, 2)))
        array([[0., 1.],
               [0., 0.]])
        >>> fnp.ravel(np.array([[1, 2], [3, 4]]), order="F").tolist()
        [1, 3, 2, 4]
    """
    return reshape(x, (-1,), order=order)


@implements(numpy.transpose)
def transpose(x: Any, axes: Any = None) -> Any:
    """``numpy.transpose``: the axes permuted by ``axes`` (reversed when it is None).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.transpose(np.array([[1, 2, 3]])).tolist()
        [[1], [2], [3]]
        >>> fnp.transpose(np.zeros((2, 3, 4)), (1, 0, 2)).shape
        (3, 2, 4)
        >>> ft.vmap(fnp.transpose)(np.zeros((5, 2, 3))).shape  # each (2, 3) slice transposed
        (5, 3, 2)
    """
    return lax.transpose(x, axes)


def permute_dims(x: Any, axes: Any = None) -> Any:  # numpy.permute_dims is numpy.transpose
    """``numpy.permute_dims``: the array-API name of :func:`transpose` (the axes permuted by
    ``axes``, reversed when it is None).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.permute_dims(np.zeros((2, 3, 4)), (2, 0, 1)).shape
        (4, 2, 3)
        >>> ft.vmap(fnp.permute_dims)(np.zeros((5, 2, 3))).shape
        (5, 3, 2)
    """
    return transpose(x, axes)


@implements(numpy.moveaxis)
def moveaxis(x: Any, source: Any, destination: Any) -> Any:
    """``numpy.moveaxis``: axis ``source`` (an int or a sequence) moved to ``destination``, the
    other axes keeping their order.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.moveaxis(np.zeros((2, 3, 4)), 0, -1).shape
        (3, 4, 2)
        >>> ft.vmap(lambda x: fnp.moveaxis(x, 0, 1))(np.zeros((5, 2, 3))).shape
        (5, 3, 2)
    """
    return lax.moveaxis(x, source, destination)


@implements(numpy.swapaxes)
def swapaxes(x: Any, axis1: int, axis2: int) -> Any:
    """``numpy.swapaxes``: axes ``axis1`` and ``axis2`` interchanged.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.swapaxes(np.array([[1, 2, 3]]), 0, 1).tolist()
        [[1], [2], [3]]
        >>> ft.vmap(lambda x: fnp.swapaxes(x, 0, 1))(np.zeros((5, 2, 3))).shape
        (5, 3, 2)
    """
    return lax.swapaxes(x, axis1, axis2)


@implements(numpy.squeeze)
def squeeze(x: Any, axis: Any = None) -> Any:
    """``numpy.squeeze``: the length-1 axes removed (those in ``axis``, or all); a named axis of
    another length raises ``ValueError``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.squeeze(np.zeros((1, 3, 1))).shape, fnp.squeeze(np.zeros((1, 3, 1)), axis=0).shape
        ((3,), (3, 1))
        >>> ft.grad(lambda x: fnp.squeeze(x) ** 2)(np.array([[3.0]]))
        array([[6.]])
    """
    return lax.squeeze(as_array(x), axis)


@implements(numpy.expand_dims)
def expand_dims(x: Any, axis: Any) -> Any:
    """``numpy.expand_dims``: new length-1 axes at the positions ``axis`` (an int or a tuple) of
    the result.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.expand_dims(np.array([1, 2]), 0).tolist()
        [[1, 2]]
        >>> fnp.expand_dims(np.zeros(3), (0, 2)).shape
        (1, 3, 1)
        >>> ft.vmap(lambda x: fnp.expand_dims(x, 0))(np.zeros((5, 3))).shape
        (5, 1, 3)
    """
    return lax.expand_dims(x, axis)


@implements(numpy.broadcast_to)
def broadcast_to(x: Any, shape: Any, subok: bool = False) -> Any:  # noqa: A002, ARG001
    """``numpy.broadcast_to``: ``x`` broadcast to ``shape`` (a read-only result, like NumPy's);
    the derivative sums over the broadcast axes.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.broadcast_to(np.array([1, 2]), (2, 2)).tolist()
        [[1, 2], [1, 2]]
        >>> ft.grad(lambda x: fnp.sum(fnp.broadcast_to(x, (3, 2))))(np.array([1.0, 2.0]))
        array([3., 3.])
    """
    return lax.broadcast_to(x, shape)


def broadcast_shapes(*shapes: Any) -> tuple[int, ...]:
    """``numpy.broadcast_shapes``: the shape that arrays of the given shapes broadcast to
    (shapes only, no arrays: a plain tuple); incompatible shapes raise ``ValueError``.

    Example:
        >>> import ftransforms.numpy as fnp
        >>> fnp.broadcast_shapes((2, 1), (3,))
        (2, 3)
        >>> fnp.broadcast_shapes((2, 1), (1, 4), ())
        (2, 4)
    """
    return numpy.broadcast_shapes(*shapes)


@implements(numpy.broadcast_arrays)
def broadcast_arrays(*arrays: Any) -> list[Any]:
    """``numpy.broadcast_arrays``: the arrays broadcast to their common shape, as a list.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> a, b = fnp.broadcast_arrays(np.array([[1], [2]]), np.array([10, 20, 30]))
        >>> a.tolist(), b.shape
        ([[1, 1, 1], [2, 2, 2]], (2, 3))
        >>> ft.grad(lambda x: fnp.sum(fnp.broadcast_arrays(x, np.zeros((4, 1)))[0]))(np.ones(2))
        array([4., 4.])
    """
    target = numpy.broadcast_shapes(*[shape(a) for a in arrays])
    return [broadcast_to(a, target) for a in arrays]


@implements(numpy.atleast_1d)
def atleast_1d(*arys: Any) -> Any:
    """``numpy.atleast_1d``: scalars as shape ``(1,)``, other arrays unchanged; with several
    arguments, a tuple of them.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.atleast_1d(3.0).tolist(), [a.shape for a in fnp.atleast_1d(1.0, np.ones((2, 2)))]
        ([3.0], [(1,), (2, 2)])
        >>> ft.grad(lambda x: fnp.atleast_1d(x)[0] ** 2)(3.0)
        array(6.)
    """
    res = tuple(a if ndim(a) >= 1 else reshape(a, (1,)) for a in map(as_array, arys))
    return res[0] if len(res) == 1 else res


@implements(numpy.atleast_2d)
def atleast_2d(*arys: Any) -> Any:
    """``numpy.atleast_2d``: scalars as shape ``(1, 1)``, 1-D arrays as one row ``(1, n)``,
    others unchanged; with several arguments, a tuple of them.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.atleast_2d(np.array([1, 2])).tolist(), fnp.atleast_2d(5.0).shape
        ([[1, 2]], (1, 1))
        >>> ft.grad(lambda x: fnp.sum(fnp.atleast_2d(x) ** 2))(np.array([1.0, 2.0]))
        array([2., 4.])
    """
    res = []
    for a in map(as_array, arys):
        r = ndim(a)
        res.append(a if r >= 2 else reshape(a, (1,) * (2 - r) + shape(a)))
    return res[0] if len(res) == 1 else tuple(res)


def _cast_all(name: str, arrays: list, dtype: Any, casting: str) -> list:
    """``arrays`` cast to ``dtype`` (when given), as NumPy's ``dtype=``/``casting=``."""
    if dtype is None:
        return arrays
    dtype = numpy.dtype(dtype)
    out = []
    for a in arrays:
        have = dtype_of(a) if hasattr(a, "dtype") else numpy.result_type(a)
        if not numpy.can_cast(have, dtype, casting=casting):
            raise TypeError(
                f"{name}(..., dtype={dtype}): cannot cast array data from {have!r} to "
                f"{dtype!r} according to the rule {casting!r}"
            )
        out.append(lax.convert(a, dtype) if hasattr(a, "dtype") else a)
    return out


@implements(numpy.concatenate)
def concatenate(
    arrays: Sequence[Any],
    axis: int | None = 0,
    *,
    dtype: Any = None,
    casting: str = "same_kind",
    **kw: Any,
) -> Any:
    """``numpy.concatenate``: the arrays joined along an existing ``axis`` (flattened first when
    ``axis`` is None); nested lists are converted with :func:`asarray`; ``dtype`` casts
    them first, by the ``casting`` rule.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.concatenate([np.array([1, 2]), np.array([3])]).tolist()
        [1, 2, 3]
        >>> fnp.concatenate([np.ones((1, 2)), np.zeros((1, 1))], axis=1).tolist()
        [[1.0, 1.0, 0.0]]
        >>> ft.grad(lambda x: fnp.sum(fnp.concatenate([x, 2 * x])))(np.ones(2))
        array([3., 3.])
    """
    no_extra_args("concatenate", kw)
    if not isinstance(arrays, (list, tuple)):
        arrays = list(arrays)  # an array (or tracer) is the sequence of its rows, as in NumPy
    if builtins.any(isinstance(a, (list, tuple)) for a in arrays):
        # The one use against the chapter order (creation builds on this chapter: asarray
        # stacks lists of tracers), for nested lists given to concatenate: imported here.
        from ftransforms.numpy.creation import asarray  # late import: see the comment above

        arrays = [asarray(a) if isinstance(a, (list, tuple)) else a for a in arrays]
    arrays = _cast_all("concatenate", arrays, dtype, casting)
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
def stack(
    arrays: Sequence[Any],
    axis: int = 0,
    *,
    dtype: Any = None,
    casting: str = "same_kind",
    **kw: Any,
) -> Any:
    """``numpy.stack``: arrays of one shape joined along a new ``axis`` (cast to ``dtype``
    first, by the ``casting`` rule).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.stack([np.array([1, 2]), np.array([3, 4])], axis=1).tolist()
        [[1, 3], [2, 4]]
        >>> ft.jacfwd(lambda x: fnp.stack([x, x ** 2]))(3.0)  # d/dx [x, x**2] = [1, 2x]
        array([1., 6.])
    """
    no_extra_args("stack", kw)
    arrays = _cast_all("stack", list(arrays), dtype, casting)
    if not arrays:
        raise ValueError("need at least one array to stack")
    shapes = {shape(a) for a in arrays}
    if len(shapes) != 1:
        raise ValueError("all input arrays must have the same shape")
    axis = normalize_axis(axis, ndim(arrays[0]) + 1)
    expanded = [expand_dims(a, axis) for a in arrays]
    return expanded[0] if len(expanded) == 1 else _sh.concatenate_p.bind(*expanded, axis=axis)


@implements(numpy.vstack)
def vstack(arrays: Sequence[Any], *, dtype: Any = None, casting: str = "same_kind") -> Any:
    """``numpy.vstack``: the arrays (1-D ones as rows) joined along the first axis.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.vstack([np.array([1, 2]), np.array([3, 4])]).tolist()
        [[1, 2], [3, 4]]
        >>> ft.grad(lambda x: fnp.sum(fnp.vstack([x, x]) ** 2))(np.array([1.0, 2.0]))  # 4 x
        array([4., 8.])
    """
    return concatenate([atleast_2d(a) for a in arrays], axis=0, dtype=dtype, casting=casting)


@implements(numpy.hstack)
def hstack(arrays: Sequence[Any], *, dtype: Any = None, casting: str = "same_kind") -> Any:
    """``numpy.hstack``: the arrays joined along the second axis (along the first for 1-D
    arrays; scalars count as 1-D).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.hstack([np.array([1, 2]), np.array([3])]).tolist()
        [1, 2, 3]
        >>> fnp.hstack([np.array([[1], [2]]), np.array([[3], [4]])]).tolist()
        [[1, 3], [2, 4]]
        >>> ft.jacfwd(lambda x: fnp.hstack([x, 2.0 * x]))(np.array([1.0]))
        array([[1.],
               [2.]])
    """
    arrays = [atleast_1d(a) for a in arrays]
    axis = 0 if ndim(arrays[0]) == 1 else 1
    return concatenate(arrays, axis=axis, dtype=dtype, casting=casting)


@implements(numpy.rollaxis)
def rollaxis(a: Any, axis: int, start: int = 0) -> Any:
    """``numpy.rollaxis``: axis ``axis`` moved to just before position ``start`` (prefer
    :func:`moveaxis`, whose meaning is simpler).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> x = np.zeros((2, 3, 4))
        >>> fnp.rollaxis(x, 2).shape, fnp.rollaxis(x, 0, 2).shape
        ((4, 2, 3), (3, 2, 4))
        >>> ft.vmap(lambda x: fnp.rollaxis(x, 1))(np.zeros((5, 2, 3))).shape
        (5, 3, 2)
    """
    rank = ndim(a)
    axis = normalize_axis(axis, rank)
    start = start + rank if start < 0 else start
    if start > axis:
        start -= 1
    return moveaxis(a, axis, start) if axis != start else a


@implements("numpy.matrix_transpose")
def matrix_transpose(x: Any) -> Any:
    """``numpy.matrix_transpose``: the last two axes swapped (a stack of matrices, each
    transposed); at least 2-D.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.matrix_transpose(np.array([[1, 2, 3]])).tolist()
        [[1], [2], [3]]
        >>> fnp.matrix_transpose(np.zeros((5, 2, 3))).shape
        (5, 3, 2)
    """
    return swapaxes(x, -1, -2)


copyto = implements(numpy.copyto)(refuse_in_place("copyto"))
copyto.__doc__ = """``numpy.copyto(dst, src, casting='same_kind', where=True)``: writes ``src``
into ``dst``, a traced array or an array made inside the transformed function, with NumPy's
mutation semantics (NOTE [mutation semantics]); a NumPy array from outside the function
cannot take a traced value (:class:`~ftransforms.errors.InPlaceError`).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> def f(x):
    ...     d = x * 0.0
    ...     fnp.copyto(d, x, where=x > 1.0)
    ...     return d
    >>> ft.vmap(f)(np.array([[0.5, 2.0, 3.0]])).tolist()
    [[0.0, 2.0, 3.0]]
"""


@implements(numpy.atleast_3d)
def atleast_3d(*arys: Any) -> Any:
    """``numpy.atleast_3d``: scalars as ``(1, 1, 1)``, ``(n,)`` as ``(1, n, 1)``, ``(m, n)`` as
    ``(m, n, 1)``, others unchanged; with several arguments, a tuple of them.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.atleast_3d(np.ones(2)).shape, fnp.atleast_3d(np.ones((2, 3))).shape
        ((1, 2, 1), (2, 3, 1))
        >>> ft.grad(lambda x: fnp.sum(fnp.atleast_3d(x)))(np.array([1.0, 2.0]))
        array([1., 1.])
    """
    res = []
    for a in map(as_array, arys):
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
    """``numpy.dstack``: the arrays joined along the third axis (after :func:`atleast_3d`:
    ``(n,)`` becomes ``(1, n, 1)``, ``(m, n)`` becomes ``(m, n, 1)``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.dstack([np.array([1, 2]), np.array([3, 4])]).tolist()
        [[[1, 3], [2, 4]]]
        >>> ft.grad(lambda x: fnp.sum(fnp.dstack([x, 3.0 * x])))(np.array([1.0, 2.0]))
        array([4., 4.])
    """
    arrays = [atleast_3d(a) for a in tup]
    return concatenate(arrays, axis=2)


@implements(numpy.column_stack)
def column_stack(tup: Sequence[Any]) -> Any:
    """``numpy.column_stack``: 1-D arrays as columns (2-D arrays as they are), joined along the
    second axis.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.column_stack([np.array([1, 2]), np.array([3, 4])]).tolist()
        [[1, 3], [2, 4]]
        >>> ft.grad(lambda x: fnp.sum(fnp.column_stack([x, 3.0 * x])))(np.array([1.0, 2.0]))
        array([4., 4.])
    """
    arrays = []
    for a in tup:
        if ndim(a) < 2:
            a = reshape(a, (-1, 1))
        arrays.append(a)
    return concatenate(arrays, axis=1)
