"""Rearranging, splitting, tiling and adding/removing elements: ``split``, ``flip``,
``roll``, ``tile``, ``repeat``, ``pad``, ``block``, ``insert``, ``delete``, ``resize``
(the rest of NumPy's "Array manipulation routines").
"""

from __future__ import annotations

import builtins
import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy

import ftransforms.numpy.helpers as helpers
from ftransforms.backend import is_array
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.creation import as_operand, full, zeros_like
from ftransforms.numpy.dispatch import implements
from ftransforms.numpy.helpers import (
    concrete_arg,
    constant_like,
    dtype_of,
    first_array,
    ndim,
    normalize_axes,
    normalize_axis,
    same_across_batch,
    shape,
    to_host,
    xp_of,
)
from ftransforms.numpy.indexing import getitem, take
from ftransforms.numpy.manipulation import (
    broadcast_to,
    concatenate,
    moveaxis,
    ravel,
    reshape,
    transpose,
)
from ftransforms.numpy.reductions import any, argmax, cumsum
from ftransforms.numpy.reductions import max as _max
from ftransforms.numpy.reductions import mean as _mean
from ftransforms.numpy.reductions import min as _min
from ftransforms.numpy.ufuncs import astype, floor, minimum, not_equal, rint

__all__ = [
    "split",
    "array_split",
    "flip",
    "block",
    "unstack",
    "resize",
    "delete",
    "insert",
    "trim_zeros",
    "hsplit",
    "vsplit",
    "dsplit",
    "append",
    "tile",
    "repeat",
    "fliplr",
    "flipud",
    "roll",
    "rot90",
    "pad",
]


def _split_points(n: int, indices_or_sections: Any, exact: bool) -> list[int]:
    if isinstance(indices_or_sections, (int, numpy.integer)):
        k = int(indices_or_sections)
        if exact and n % k:
            raise ValueError("array split does not result in an equal division")
        base, extra = divmod(n, k)
        points, pos = [], 0
        for i in range(k - 1):
            pos += base + (1 if i < extra else 0)
            points.append(pos)
        return points
    return [int(i) for i in indices_or_sections]


@implements(numpy.split)
def split(x: Any, indices_or_sections: Any, axis: int = 0) -> list[Any]:
    """``numpy.split``: ``x`` cut along ``axis`` into ``indices_or_sections`` equal parts (an
    int; ``ValueError`` if they cannot be equal) or at the given indices, as a list.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> [p.tolist() for p in fnp.split(np.arange(6), [1, 4])]
        [[0], [1, 2, 3], [4, 5]]
        >>> ft.grad(lambda x: fnp.sum(fnp.split(x, 2)[1] ** 2))(np.array([1.0, 2.0, 3.0, 4.0]))
        array([0., 0., 6., 8.])
    """
    return _split(x, indices_or_sections, axis, exact=True)


@implements(numpy.array_split)
def array_split(x: Any, indices_or_sections: Any, axis: int = 0) -> list[Any]:
    """``numpy.array_split``: like :func:`split`, but ``n`` parts of a length not divisible by
    ``n`` are allowed (the first ones one longer).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> [p.tolist() for p in fnp.array_split(np.arange(5), 2)]
        [[0, 1, 2], [3, 4]]
        >>> ft.grad(lambda x: fnp.sum(fnp.array_split(x, 2)[0]))(np.ones(3))
        array([1., 1., 0.])
    """
    return _split(x, indices_or_sections, axis, exact=False)


def _split(x, indices_or_sections, axis, exact):
    axis = normalize_axis(axis, ndim(x))
    n = shape(x)[axis]
    bounds = [0] + _split_points(n, indices_or_sections, exact) + [n]
    lead = (slice(None),) * axis
    return [getitem(x, lead + (slice(a, b),)) for a, b in zip(bounds[:-1], bounds[1:])]


@implements(numpy.flip)
def flip(x: Any, axis: Any = None) -> Any:
    """``numpy.flip``: the order of the elements reversed along ``axis`` (all axes when None).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.flip(np.array([[1, 2], [3, 4]])).tolist(), fnp.flip(np.array([1, 2, 3])).tolist()
        ([[4, 3], [2, 1]], [3, 2, 1])
        >>> ft.grad(lambda x: fnp.flip(x)[0])(np.zeros(3))
        array([0., 0., 1.])
    """
    axes = normalize_axes(axis, ndim(x))
    return getitem(
        x, tuple(slice(None, None, -1) if i in axes else slice(None) for i in range(ndim(x)))
    )


def _block_depth(arrays: Any, where: str = "arrays") -> int:
    if isinstance(arrays, tuple):
        raise TypeError(
            f"{where} is a tuple. Only lists can be used to arrange blocks, and np.block does "
            f"not allow implicit conversion from tuple to ndarray."
        )
    if isinstance(arrays, list):
        if not arrays:
            raise ValueError(f"List at {where} cannot be empty")
        depths = {_block_depth(a, f"{where}[{i}]") for i, a in enumerate(arrays)}
        if len(depths) != 1:
            raise ValueError(f"List depths are mismatched under {where}")
        return 1 + depths.pop()
    return 0


def _block_max_ndim(arrays: Any) -> int:
    if isinstance(arrays, list):
        return builtins.max(_block_max_ndim(a) for a in arrays)
    return ndim(arrays)


@implements(numpy.block)
def block(arrays: Any) -> Any:
    """``numpy.block``: assemble an array from nested lists of blocks.

    Example:
        >>> import numpy as np
        >>> block([[np.eye(2), np.zeros((2, 1))], [np.ones((1, 2)), np.ones((1, 1))]]).tolist()
        [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 1.0]]
    """
    depth = _block_depth(arrays)
    ndim = builtins.max(depth, _block_max_ndim(arrays))
    leaves = [arrays]
    for _ in range(depth):
        leaves = [v for x in leaves for v in x]
    like = first_array(*leaves)

    def build(x: Any, level: int) -> Any:
        if level < depth:
            return concatenate([build(v, level + 1) for v in x], axis=-(depth - level))
        x = as_operand(x, like)
        return reshape(x, (1,) * (ndim - helpers.ndim(x)) + shape(x))

    return build(arrays, 0)


@implements("numpy.unstack")
def unstack(x: Any, /, *, axis: int = 0) -> tuple:
    """``numpy.unstack``: the slices of ``x`` along ``axis``, as a tuple.

    Example:
        >>> import numpy as np
        >>> [a.tolist() for a in unstack(np.array([[1, 2], [3, 4]]), axis=1)]
        [[1, 3], [2, 4]]
    """
    x = as_operand(x)
    if ndim(x) == 0:
        raise ValueError("Input array must be at least 1-d.")
    axis = normalize_axis(axis, ndim(x))
    lead = (slice(None),) * axis
    return tuple(getitem(x, lead + (i,)) for i in range(shape(x)[axis]))


@implements(numpy.resize)
def resize(a: Any, new_shape: Any) -> Any:
    """``numpy.resize``: ``a`` flattened, repeated cyclically to fill ``new_shape``.

    Example:
        >>> import numpy as np
        >>> resize(np.array([1, 2, 3]), (2, 4)).tolist()
        [[1, 2, 3, 1], [2, 3, 1, 2]]
    """
    if isinstance(new_shape, (int, numpy.integer)):
        new_shape = (int(new_shape),)
    new_shape = tuple(int(d) for d in new_shape)
    if builtins.any(d < 0 for d in new_shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    a = ravel(as_operand(a))
    size, new_size = helpers.size(a), math.prod(new_shape)
    if size == 0 or new_size == 0:
        return zeros_like(a, shape=new_shape)
    index = xp_of(a).arange(new_size) % size
    return reshape(take(a, index), new_shape)


def _static_index(obj: Any, what: str) -> Any:
    """``obj`` as a concrete host value (a slice as it is)."""
    if isinstance(obj, slice):
        return obj
    if isinstance(obj, Tracer):
        obj = concrete_arg(obj, what)
    if isinstance(obj, (list, tuple)):
        return numpy.asarray(
            [to_host(concrete_arg(o, what)) if isinstance(o, Tracer) else o for o in obj]
        )
    return to_host(obj) if hasattr(obj, "shape") else obj


@implements(numpy.delete)
def delete(
    arr: Any, obj: Any, axis: int | None = None, *, assume_unique_indices: bool = False
) -> Any:
    """``numpy.delete`` (a traced ``obj`` is read: it must not vary across a vmap batch;
    ``jax.numpy``'s ``assume_unique_indices`` is accepted).

    Example:
        >>> import numpy as np
        >>> delete(np.array([1.0, 2.0, 3.0, 4.0]), [0, 2]).tolist()
        [2.0, 4.0]
    """
    arr = as_operand(arr)
    if axis is None:
        arr, axis = ravel(arr), 0
    axis = normalize_axis(axis, ndim(arr))
    n = shape(arr)[axis]
    keep = numpy.delete(numpy.arange(n), _static_index(obj, "delete(arr, obj)"))
    return take(arr, constant_like(keep, arr), axis=axis)


@implements(numpy.insert)
def insert(arr: Any, obj: Any, values: Any, axis: int | None = None) -> Any:
    """``numpy.insert``: ``values`` (may be traced) inserted before the indices ``obj``.

    Example:
        >>> import numpy as np
        >>> insert(np.array([1.0, 2.0, 3.0]), 1, 9.0).tolist()
        [1.0, 9.0, 2.0, 3.0]
        >>> insert(np.array([[1, 2], [3, 4]]), [0, 2], [7, 8], axis=1).tolist()
        [[7, 1, 2, 8], [7, 3, 4, 8]]
    """
    arr = as_operand(arr)
    if axis is None:
        if ndim(arr) != 1:
            arr = ravel(arr)
        axis = 0
    rank = ndim(arr)
    axis = normalize_axis(axis, rank)
    shape = helpers.shape(arr)
    n = shape[axis]
    dt = dtype_of(arr)
    values = astype(as_operand(values, arr), dt)
    obj = _static_index(obj, "insert(arr, obj, values)")
    if isinstance(obj, slice):
        indices = numpy.arange(*obj.indices(n))
    else:
        indices = numpy.asarray(obj)
        if indices.dtype == bool:
            raise UnsupportedOperationError("insert: a boolean obj is not supported")
        if indices.size == 0:
            indices = indices.astype(numpy.intp)
        elif indices.dtype.kind not in "iu":
            raise IndexError("index array argument obj to insert must be one dimensional or scalar")
    if indices.ndim == 0:
        index = int(indices)
        if index < -n or index > n:
            raise IndexError(f"index {index} is out of bounds for axis {axis} with size {n}")
        index = index + n if index < 0 else index
        values = reshape(values, (1,) * (rank - ndim(values)) + helpers.shape(values))
        values = moveaxis(values, 0, axis)
        new = list(shape)
        new[axis] = helpers.shape(values)[axis]
        values = broadcast_to(values, tuple(new))
        lead = (slice(None),) * axis
        parts = [
            getitem(arr, lead + (slice(None, index),)),
            values,
            getitem(arr, lead + (slice(index, None),)),
        ]
        return concatenate(parts, axis=axis)
    if indices.ndim > 1:
        raise ValueError("index array argument obj to insert must be one dimensional or scalar")
    indices = indices.astype(numpy.intp)
    if ((indices < -n) | (indices > n)).any():
        raise IndexError(f"index out of bounds for axis {axis} with size {n}")
    indices = numpy.where(indices < 0, indices + n, indices)
    numnew = len(indices)
    order = numpy.argsort(indices, kind="mergesort")
    indices[order] += numpy.arange(numnew)
    new = list(shape)
    new[axis] = numnew
    values = broadcast_to(values, tuple(new))
    old_mask = numpy.ones(n + numnew, dtype=bool)
    old_mask[indices] = False
    source = numpy.empty(n + numnew, dtype=numpy.intp)
    source[old_mask] = numpy.arange(n)
    source[indices] = n + numpy.arange(numnew)
    both = concatenate([arr, values], axis=axis)
    return take(both, constant_like(source, arr), axis=axis)


@implements(numpy.trim_zeros)
def trim_zeros(filt: Any, trim: str = "fb", axis: Any = None) -> Any:
    """``numpy.trim_zeros``.  What is trimmed depends on the values, which are read: under
    ``vmap`` every batch element must trim the same positions.

    Example:
        >>> import numpy as np
        >>> trim_zeros(np.array([0.0, 0.0, 1.0, 2.0, 0.0])).tolist()
        [1.0, 2.0]
    """
    filt = as_operand(filt)
    index = trim_index(filt, trim, axis)
    return filt if index is None else getitem(filt, index)


def trim_index(filt: Any, trim: str = "fb", axis: Any = None) -> Any:
    """The basic index :func:`trim_zeros` takes of ``filt`` (None for a 0-d one)."""
    trim = trim.lower()
    if trim not in ("fb", "bf", "f", "b"):
        raise ValueError(f"unexpected character(s) in `trim`: {trim!r}")
    rank = ndim(filt)
    if rank == 0:
        return None
    axes = range(rank) if axis is None else (normalize_axis(int(axis), rank),)
    nonzero = not_equal(filt, 0)
    fix = "trim outside vmap, or slice with fixed bounds"
    index = [slice(None)] * rank
    if not same_across_batch(any(nonzero), "trim_zeros(filt)", fix):  # all zeros
        for ax in axes:
            index[ax] = slice(0, 0)
        return tuple(index)
    for ax in axes:
        line = any(nonzero, axis=tuple(i for i in range(rank) if i != ax))
        n = shape(filt)[ax]
        start = stop = None
        if "f" in trim:
            start = same_across_batch(argmax(line), "trim_zeros(filt)", fix)
        if "b" in trim:
            stop = n - same_across_batch(argmax(flip(line)), "trim_zeros(filt)", fix)
        index[ax] = slice(start, stop)
    return tuple(index)


def _split_along(a: Any, indices_or_sections: Any, axis: int, name: str, min_ndim: int) -> list:
    if ndim(a) < min_ndim:
        raise ValueError(
            f"{name}(a, ...): a has {ndim(a)} dimension(s); {name} needs {min_ndim} or more "
            f"(use split(a, ..., axis=...) on a lower-dimensional array)"
        )
    return split(a, indices_or_sections, axis=axis)


@implements(numpy.hsplit)
def hsplit(a: Any, indices_or_sections: Any) -> list:
    """``numpy.hsplit``: :func:`split` along the second axis (the first for 1-D arrays).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> [p.tolist() for p in fnp.hsplit(np.array([[1, 2], [3, 4]]), 2)]
        [[[1], [3]], [[2], [4]]]
        >>> ft.grad(lambda x: fnp.sum(fnp.hsplit(x, 2)[0]))(np.zeros((2, 2)))
        array([[1., 0.],
               [1., 0.]])
    """
    return split(a, indices_or_sections, axis=1 if ndim(a) > 1 else 0)


@implements(numpy.vsplit)
def vsplit(a: Any, indices_or_sections: Any) -> list:
    """``numpy.vsplit``: :func:`split` along the first axis of an array of at least 2-D
    (``ValueError`` otherwise).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> [p.tolist() for p in fnp.vsplit(np.array([[1, 2], [3, 4]]), 2)]
        [[[1, 2]], [[3, 4]]]
        >>> ft.grad(lambda x: fnp.sum(fnp.vsplit(x, 2)[0]))(np.zeros((2, 2)))
        array([[1., 1.],
               [0., 0.]])
    """
    return _split_along(a, indices_or_sections, 0, "vsplit", 2)


@implements(numpy.dsplit)
def dsplit(a: Any, indices_or_sections: Any) -> list:
    """``numpy.dsplit``: :func:`split` along the third axis of an array of at least 3-D
    (``ValueError`` otherwise).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> [p.tolist() for p in fnp.dsplit(np.arange(4).reshape(1, 2, 2), 2)]
        [[[[0], [2]]], [[[1], [3]]]]
        >>> ft.grad(lambda x: fnp.sum(fnp.dsplit(x, 2)[1]))(np.zeros((1, 1, 2)))
        array([[[0., 1.]]])
    """
    return _split_along(a, indices_or_sections, 2, "dsplit", 3)


@implements(numpy.append)
def append(arr: Any, values: Any, axis: int | None = None) -> Any:
    """``numpy.append``: ``values`` joined after ``arr`` along ``axis`` (both flattened when
    ``axis`` is None), as a new array.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.append(np.array([1, 2]), np.array([[3, 4]])).tolist()
        [1, 2, 3, 4]
        >>> fnp.append(np.array([[1, 2]]), np.array([[3, 4]]), axis=0).tolist()
        [[1, 2], [3, 4]]
        >>> ft.grad(lambda t: fnp.sum(fnp.append(np.ones(2), t) ** 2))(3.0)
        array(6.)
    """
    if axis is None:
        return concatenate([ravel(arr), ravel(values)])
    return concatenate([arr, values], axis=axis)


@implements(numpy.tile)
def tile(a: Any, reps: Any) -> Any:
    """``numpy.tile``: ``a`` repeated ``reps`` times along each axis (``reps`` an int or a
    tuple); the derivative sums the copies.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.tile(np.array([1, 2]), 2).tolist(), fnp.tile(np.array([1, 2]), (2, 1)).tolist()
        ([1, 2, 1, 2], [[1, 2], [1, 2]])
        >>> ft.grad(lambda x: fnp.sum(fnp.tile(x, 3)))(np.array([1.0, 2.0]))
        array([3., 3.])
    """
    if isinstance(reps, (int, numpy.integer)) or helpers.ndim(reps) == 0:
        reps = (operator.index(reps),)  # an int, or a 0-d array as NumPy takes it
    else:
        reps = tuple(int(r) for r in reps)
    shape = helpers.shape(a)
    rank = builtins.max(len(shape), len(reps))
    shape = (1,) * (rank - len(shape)) + shape
    reps = (1,) * (rank - len(reps)) + reps
    a = reshape(a, tuple(d for n in shape for d in (1, n)))
    a = broadcast_to(a, tuple(d for r, n in zip(reps, shape) for d in (r, n)))
    return reshape(a, tuple(r * n for r, n in zip(reps, shape)))


@implements(numpy.repeat)
def repeat(
    a: Any, repeats: Any, axis: int | None = None, *, total_repeat_length: int | None = None
) -> Any:
    """``numpy.repeat``: each element repeated ``repeats`` times along ``axis`` (the flattened
    array when None), ``repeats`` an int or one count per element.  The counts decide the
    result's shape, so they are read as values (a ``vmap``-batched ``repeats`` raises
    :class:`~ftransforms.errors.BatchedControlFlowError`), unless ``jax.numpy``'s
    ``total_repeat_length=`` fixes the length: then a longer result is cut and a shorter one
    padded with the last element, and traced counts work under every transform.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.repeat(np.array([1, 2]), 2).tolist()
        [1, 1, 2, 2]
        >>> fnp.repeat(np.array([1, 2, 3]), np.array([2, 0, 1])).tolist()
        [1, 1, 3]
        >>> ft.grad(lambda x: fnp.sum(fnp.repeat(x, np.array([2, 0, 1]))))(np.zeros(3))
        array([2., 0., 1.])
    """
    if axis is None:
        a, axis = ravel(a), 0
    axis = normalize_axis(axis, ndim(a))
    shape = helpers.shape(a)
    if total_repeat_length is not None:
        return _repeat_to_length(a, repeats, axis, operator.index(total_repeat_length))
    reps = concrete_arg(repeats, "repeat(a, repeats)")
    reps = numpy.asarray(reps.get() if hasattr(reps, "get") else reps)
    if reps.size == 1:
        r = int(reps.reshape(()))
        expanded = reshape(a, shape[: axis + 1] + (1,) + shape[axis + 1 :])
        expanded = broadcast_to(expanded, shape[: axis + 1] + (r,) + shape[axis + 1 :])
        return reshape(expanded, shape[:axis] + (shape[axis] * r,) + shape[axis + 1 :])
    index = numpy.repeat(numpy.arange(shape[axis]), reps)
    return take(a, xp_of(a).asarray(index), axis=axis)


def _repeat_to_length(a: Any, repeats: Any, axis: int, length: int) -> Any:
    """``repeat`` with ``jax.numpy``'s ``total_repeat_length``: output slot ``j`` takes the
    element whose cumulative count first exceeds ``j`` (the last element past the end): a
    fixed shape, no count read."""
    from ftransforms.numpy.sorting import searchsorted  # noqa: PLC0415  late import: sorting imports us

    if length < 0:
        raise ValueError(f"repeat: total_repeat_length must be non-negative, got {length}")
    n = helpers.shape(a)[axis]
    counts = broadcast_to(as_operand(repeats, a), (n,)) if n else as_operand(repeats, a)
    ends = cumsum(counts)
    slots = xp_of(a).arange(length)
    source = minimum(searchsorted(ends, slots, side="right"), n - 1)
    return take(a, source, axis=axis)


@implements(numpy.fliplr)
def fliplr(m: Any) -> Any:
    """``numpy.fliplr``: the columns in reverse order (:func:`flip` along axis 1); at least 2-D
    (``ValueError`` otherwise).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.fliplr(np.array([[1, 2], [3, 4]])).tolist()
        [[2, 1], [4, 3]]
        >>> ft.grad(lambda x: fnp.fliplr(x)[0, 0])(np.zeros((2, 2)))
        array([[0., 1.],
               [0., 0.]])
    """
    if ndim(m) < 2:
        raise ValueError("Input must be >= 2-d.")
    return flip(m, axis=1)


@implements(numpy.flipud)
def flipud(m: Any) -> Any:
    """``numpy.flipud``: the rows in reverse order (:func:`flip` along axis 0); at least 1-D
    (``ValueError`` otherwise).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.flipud(np.array([[1, 2], [3, 4]])).tolist()
        [[3, 4], [1, 2]]
        >>> ft.grad(lambda x: fnp.flipud(x)[0, 0])(np.zeros((2, 2)))
        array([[0., 0.],
               [1., 0.]])
    """
    if ndim(m) < 1:
        raise ValueError("Input must be >= 1-d.")
    return flip(m, axis=0)


@implements(numpy.roll)
def roll(a: Any, shift: Any, axis: Any = None) -> Any:
    """``numpy.roll``: the elements shifted cyclically by ``shift`` along ``axis`` (the
    flattened array when None); ``shift`` and ``axis`` are ints or tuples.  ``axis`` is
    static; a traced ``shift`` (one per example under ``vmap``, say) becomes a gather.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.roll(np.array([1, 2, 3, 4]), 1).tolist()
        [4, 1, 2, 3]
        >>> fnp.roll(np.array([[1, 2], [3, 4]]), -1, axis=1).tolist()
        [[2, 1], [4, 3]]
        >>> ft.grad(lambda x: fnp.roll(x, 1)[0])(np.zeros(3))  # out[0] is x[-1]
        array([0., 0., 1.])
    """
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), shape(a))
    axes = (axis,) if isinstance(axis, (int, numpy.integer)) else tuple(axis)
    if isinstance(shift, (int, numpy.integer)) or ndim(shift) == 0:
        shifts = (shift,)
    else:
        shifts = tuple(shift)
    if builtins.any(isinstance(sh, Tracer) for sh in shifts):
        return _roll_traced(a, shifts, axes)
    axes, shifts = numpy.broadcast_arrays(numpy.asarray(axes), numpy.asarray(shifts))
    total: dict[int, int] = {}
    for ax, sh in zip(axes.ravel(), shifts.ravel()):
        ax = normalize_axis(int(ax), ndim(a))
        total[ax] = total.get(ax, 0) + int(sh)
    for ax, sh in total.items():
        n = shape(a)[ax]
        if n == 0 or sh % n == 0:
            continue
        k = sh % n
        lead = (slice(None),) * ax
        a = concatenate(
            [
                getitem(a, lead + (slice(n - k, None),)),
                getitem(a, lead + (slice(0, n - k),)),
            ],
            axis=ax,
        )
    return a


def _roll_traced(a: Any, shifts: tuple, axes: tuple) -> Any:
    """``roll`` by traced shifts: gather ``a[(i - shift) % n]`` along each axis."""
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    if len(axes) == 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise ValueError(
            f"roll(a, shift, axis): {len(shifts)} shifts for {len(axes)} axes; give one "
            "shift per axis"
        )
    for sh, ax in zip(shifts, axes):
        ax = normalize_axis(int(ax), ndim(a))
        n = shape(a)[ax]
        if n:
            a = take(a, (numpy.arange(n) - sh) % n, axis=ax)
    return a


@implements(numpy.rot90)
def rot90(m: Any, k: int = 1, axes: Sequence[int] = (0, 1)) -> Any:
    """``numpy.rot90``: ``m`` rotated by 90 degrees ``k`` times in the plane of ``axes``, from
    the first axis towards the second (counterclockwise for the default ``(0, 1)``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.rot90(np.array([[1, 2], [3, 4]])).tolist()
        [[2, 4], [1, 3]]
        >>> fnp.rot90(np.array([[1, 2], [3, 4]]), k=2).tolist()
        [[4, 3], [2, 1]]
        >>> ft.grad(lambda x: fnp.rot90(x)[0, 0])(np.zeros((2, 2)))
        array([[0., 1.],
               [0., 0.]])
    """
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    rank = ndim(m)
    a0, a1 = (normalize_axis(int(a), rank) for a in axes)
    if a0 == a1:
        raise ValueError("Axes must be different.")
    k %= 4
    if k == 0:
        return m
    if k == 2:
        return flip(flip(m, a0), a1)
    perm = list(range(rank))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return transpose(flip(m, a1), perm)
    return flip(transpose(m, perm), a1)


def _pairs(value: Any, rank: int, what: str) -> list[tuple[Any, Any]]:
    """NumPy's ``pad_width``/``constant_values`` forms, as one (before, after) per axis."""
    if isinstance(value, Tracer):
        if ndim(value) != 0:
            raise UnsupportedOperationError(f"pad: a traced {what} must be a scalar")
        return [(value, value)] * rank
    if ndim(value) == 0:
        return [(value, value)] * rank  # a device scalar stays on its device
    arr = to_host(value) if is_array(value) else numpy.asarray(value)  # a few static numbers
    arr = numpy.broadcast_to(arr, (rank, 2))
    return [(arr[i, 0], arr[i, 1]) for i in range(rank)]


_PAD_GATHER_MODES = ("edge", "reflect", "symmetric", "wrap")
_PAD_STAT_MODES = ("maximum", "minimum", "mean", "median")


def _edge(x: Any, ax: int, start: int, stop: int) -> Any:
    index = [slice(None)] * ndim(x)
    index[ax] = slice(start, stop)
    return getitem(x, tuple(index))


def _in_dtype(values: Any, dt: Any) -> Any:
    """NumPy's cast of a computed pad into an integer array: statistics are rounded."""
    if numpy.dtype(dt).kind in "iub" and dtype_of(values).kind in "fc":
        values = rint(values)
    return astype(values, dt)


def _ramps(x: Any, ax: int, before: int, after: int, ends: Any, dt: Any) -> list:
    """``linear_ramp``: from the end value towards the edge, edge excluded (NumPy's
    ``linspace(end, edge, width, endpoint=False)``; integer ramps truncated as NumPy's)."""
    n = helpers.shape(x)[ax]
    blocks: list = [None, None]
    for side, (width, edge, end) in enumerate(
        ((before, _edge(x, ax, 0, 1), ends[0]), (after, _edge(x, ax, n - 1, n), ends[1]))
    ):
        if not width:
            continue
        steps = numpy.arange(width, dtype=numpy.float64) / width
        if side == 1:
            steps = steps[::-1]
        shp = [1] * ndim(x)
        shp[ax] = width
        frac = xp_of(x).asarray(steps.reshape(shp))
        ramp = end + (astype(edge, numpy.float64) - end) * frac
        if numpy.dtype(dt).kind in "iu":  # NumPy's integer linspace floors
            ramp = floor(ramp)
        blocks[side] = astype(ramp, dt)
    return blocks


def _stat_blocks(
    x: Any, ax: int, before: int, after: int, lengths: Any, mode: str, dt: Any
) -> list:
    """``maximum``/``minimum``/``mean``/``median``: each side repeats the statistic of its
    ``stat_length`` edge elements (the whole axis when None)."""
    n = helpers.shape(x)[ax]
    blocks: list = [None, None]
    for side, (width, length) in enumerate(((before, lengths[0]), (after, lengths[1]))):
        if not width:
            continue
        m = n if length is None else builtins.max(1, builtins.min(int(length), n))
        part = _edge(x, ax, 0, m) if side == 0 else _edge(x, ax, n - m, n)
        if mode == "median":
            from ftransforms.numpy.statistics import median  # noqa: PLC0415  late import: statistics imports us

            stat = median(part, axis=ax, keepdims=True)
        else:
            reduce = {"maximum": _max, "minimum": _min, "mean": _mean}[mode]
            stat = reduce(part, axis=ax, keepdims=True)
        shp = list(helpers.shape(x))
        shp[ax] = width
        blocks[side] = broadcast_to(_in_dtype(stat, dt), tuple(shp))
    return blocks


@implements(numpy.pad)
def pad(array: Any, pad_width: Any, mode: str = "constant", **kwargs: Any) -> Any:
    """``numpy.pad`` with modes ``'constant'`` (``constant_values`` may be a traced scalar),
    ``'edge'``, ``'reflect'``, ``'symmetric'`` (``reflect_type='even'`` or ``'odd'``) and
    ``'wrap'``,
    ``'linear_ramp'`` (``end_values``), ``'maximum'``, ``'minimum'``, ``'mean'`` and
    ``'median'`` (``stat_length``; integer results rounded as NumPy) and ``'empty'`` (zeros);
    a callable mode raises :class:`~ftransforms.errors.UnsupportedOperationError`.
    ``pad_width`` is static.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> x = np.array([1, 2, 3])
        >>> fnp.pad(x, 1).tolist(), fnp.pad(x, (2, 1), mode="reflect").tolist()
        ([0, 1, 2, 3, 0], [3, 2, 1, 2, 3, 2])
        >>> ft.grad(lambda x: fnp.sum(fnp.pad(x, 1, mode="edge")))(np.zeros(3))  # edges twice
        array([2., 1., 2.])
        >>> ft.grad(lambda c: fnp.sum(fnp.pad(np.ones(2), 1, constant_values=c)))(0.0)
        array(2.)
    """
    rank = ndim(array)
    widths = [(int(b), int(a)) for b, a in _pairs(pad_width, rank, "pad_width")]
    if builtins.any(b < 0 or a < 0 for b, a in widths):
        raise ValueError("index can't contain negative values")
    if mode == "empty":  # NumPy leaves the padding undefined: zeros are one such value
        mode = "constant"
    if mode == "constant":
        consts = _pairs(kwargs.pop("constant_values", 0), rank, "constant_values")
    elif mode == "linear_ramp":
        ends = _pairs(kwargs.pop("end_values", 0), rank, "end_values")
    elif mode in _PAD_STAT_MODES:
        lengths = _pairs(kwargs.pop("stat_length", None), rank, "stat_length")
    elif mode not in _PAD_GATHER_MODES:
        raise UnsupportedOperationError(
            f"pad: mode={mode!r} is not supported; use 'constant', 'edge', 'reflect', "
            f"'symmetric', 'wrap', 'linear_ramp', 'maximum', 'minimum', 'mean', 'median' "
            f"or 'empty'"
        )
    if "reflect_type" in kwargs and mode not in ("reflect", "symmetric"):  # NumPy's error
        raise ValueError(f"unsupported keyword arguments for mode {mode!r}: {{'reflect_type'}}")
    reflect_type = kwargs.pop("reflect_type", "even")
    if reflect_type not in ("even", "odd"):
        raise ValueError(f"pad: reflect_type must be 'even' or 'odd', got {reflect_type!r}")
    odd = reflect_type == "odd" and mode in ("reflect", "symmetric")
    if kwargs:
        raise UnsupportedOperationError(f"pad: unsupported arguments {sorted(kwargs)}")
    dt = dtype_of(array)
    out = array
    for ax, (before, after) in enumerate(widths):
        if before == 0 and after == 0:
            continue
        if mode == "constant":
            shape = list(helpers.shape(out))
            parts = []
            for width, c in ((before, consts[ax][0]), (after, consts[ax][1])):
                shape[ax] = width
                parts.append(full(tuple(shape), c, dtype=dt, like=array) if width else None)
            out = concatenate([p for p in (parts[0], out, parts[1]) if p is not None], ax)
        elif mode == "linear_ramp" or mode in _PAD_STAT_MODES:
            n = helpers.shape(out)[ax]
            if n == 0:
                raise ValueError(f"can't extend empty axis {ax} using modes other than 'constant'")
            if mode == "linear_ramp":
                blocks = _ramps(out, ax, before, after, ends[ax], dt)
            else:
                blocks = _stat_blocks(out, ax, before, after, lengths[ax], mode, dt)
            out = concatenate([b for b in (blocks[0], out, blocks[1]) if b is not None], ax)
        else:
            n = helpers.shape(out)[ax]
            if n == 0:
                raise ValueError(f"can't extend empty axis {ax} using modes other than 'constant'")
            if odd:  # 2 * edge - reflection: linear in the axis, NumPy's own map of it
                eye = numpy.eye(n, dtype=dt)
                rows = numpy.pad(eye, ((before, after), (0, 0)), mode, reflect_type="odd")
                out = moveaxis(moveaxis(out, ax, -1) @ xp_of(array).asarray(rows.T), -1, ax)
                continue
            index = numpy.pad(numpy.arange(n), (before, after), mode=mode)
            out = take(out, xp_of(array).asarray(index), axis=ax)
    return out
