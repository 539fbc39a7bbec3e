"""Array builders and editors of NumPy (``diagflat``, ``block``, ``unstack``, ``resize``,
``delete``, ``insert``, ``trim_zeros``) and the sequences ``logspace`` and ``geomspace``,
written from ``ftransforms.numpy`` functions that have every rule.  Re-exported by
:mod:`ftransforms.numpy`.

``trim_zeros`` and ``delete``/``insert`` with a traced index read the concrete values (so
``jit`` runs them eagerly) and raise ``BatchedControlFlowError`` when the result's shape
would differ across a ``vmap`` batch.
"""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.tracer import Tracer
from ftransforms.numpy._composite_helpers import (
    _arr,
    _const,
    _host,
    _like,
    _result_type,
    _same_across_batch,
)
from ftransforms.numpy._more import _concrete

__all__ = [
    "block",
    "delete",
    "diagflat",
    "geomspace",
    "insert",
    "logspace",
    "resize",
    "trim_zeros",
    "unstack",
]


# -- building and editing arrays -----------------------------------------------------------


def diagflat(v: Any, k: int = 0) -> Any:
    """``numpy.diagflat``: a 2-D array with the flattened ``v`` on the k-th diagonal.

    Example:
        >>> import numpy as np
        >>> diagflat(np.array([[1, 2]]), 1).tolist()
        [[0, 1, 0], [0, 0, 2], [0, 0, 0]]
    """
    return fnp.diag(fnp.ravel(_arr(v)), int(k))


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
    return fnp.ndim(arrays)


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
    like = _like(*leaves)

    def build(x: Any, level: int) -> Any:
        if level < depth:
            return fnp.concatenate([build(v, level + 1) for v in x], axis=-(depth - level))
        x = _arr(x, like)
        return fnp.reshape(x, (1,) * (ndim - fnp.ndim(x)) + fnp.shape(x))

    return build(arrays, 0)


def unstack(x: Any, /, *, axis: int = 0) -> tuple:
    """``numpy.unstack``: the slices of ``x`` along ``axis``, as a tuple.

    Example:
        >>> import numpy as np
        >>> [a.tolist() for a in unstack(np.array([[1, 2], [3, 4]]), axis=1)]
        [[1, 3], [2, 4]]
    """
    x = _arr(x)
    if fnp.ndim(x) == 0:
        raise ValueError("Input array must be at least 1-d.")
    axis = fnp._normalize_axis(axis, fnp.ndim(x))
    lead = (slice(None),) * axis
    return tuple(fnp.getitem(x, lead + (i,)) for i in range(fnp.shape(x)[axis]))


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
    a = fnp.ravel(_arr(a))
    size, new_size = fnp.size(a), math.prod(new_shape)
    if size == 0 or new_size == 0:
        return fnp.zeros_like(a, shape=new_shape)
    index = fnp._xp(a).arange(new_size) % size
    return fnp.reshape(fnp.take(a, index), new_shape)


def _static_index(obj: Any, what: str) -> Any:
    """``obj`` as a concrete host value (a slice as it is)."""
    if isinstance(obj, slice):
        return obj
    if isinstance(obj, Tracer):
        obj = _concrete(obj, what)
    if isinstance(obj, (list, tuple)):
        return numpy.asarray(
            [_host(_concrete(o, what)) if isinstance(o, Tracer) else o for o in obj]
        )
    return _host(obj) if hasattr(obj, "shape") else obj


def delete(arr: Any, obj: Any, axis: int | None = None) -> Any:
    """``numpy.delete`` (a traced ``obj`` is read: it must not vary across a vmap batch).

    Example:
        >>> import numpy as np
        >>> delete(np.array([1.0, 2.0, 3.0, 4.0]), [0, 2]).tolist()
        [2.0, 4.0]
    """
    arr = _arr(arr)
    if axis is None:
        arr, axis = fnp.ravel(arr), 0
    axis = fnp._normalize_axis(axis, fnp.ndim(arr))
    n = fnp.shape(arr)[axis]
    keep = numpy.delete(numpy.arange(n), _static_index(obj, "delete(arr, obj)"))
    return fnp.take(arr, _const(keep, arr), axis=axis)


def insert(arr: Any, obj: Any, values: Any, axis: int | None = None) -> Any:
    """``numpy.insert``: ``values`` (may be traced) inserted before the indices ``obj``.

    Example:
        >>> import numpy as np
        >>> insert(np.array([1.0, 2.0, 3.0]), 1, 9.0).tolist()
        [1.0, 9.0, 2.0, 3.0]
        >>> insert(np.array([[1, 2], [3, 4]]), [0, 2], [7, 8], axis=1).tolist()
        [[7, 1, 2, 8], [7, 3, 4, 8]]
    """
    arr = _arr(arr)
    if axis is None:
        if fnp.ndim(arr) != 1:
            arr = fnp.ravel(arr)
        axis = 0
    rank = fnp.ndim(arr)
    axis = fnp._normalize_axis(axis, rank)
    shape = fnp.shape(arr)
    n = shape[axis]
    dt = fnp._dtype(arr)
    values = fnp.astype(_arr(values, arr), dt)
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
        values = fnp.reshape(values, (1,) * (rank - fnp.ndim(values)) + fnp.shape(values))
        values = fnp.moveaxis(values, 0, axis)
        new = list(shape)
        new[axis] = fnp.shape(values)[axis]
        values = fnp.broadcast_to(values, tuple(new))
        lead = (slice(None),) * axis
        parts = [
            fnp.getitem(arr, lead + (slice(None, index),)),
            values,
            fnp.getitem(arr, lead + (slice(index, None),)),
        ]
        return fnp.concatenate(parts, axis=axis)
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
    values = fnp.broadcast_to(values, tuple(new))
    old_mask = numpy.ones(n + numnew, dtype=bool)
    old_mask[indices] = False
    source = numpy.empty(n + numnew, dtype=numpy.intp)
    source[old_mask] = numpy.arange(n)
    source[indices] = n + numpy.arange(numnew)
    both = fnp.concatenate([arr, values], axis=axis)
    return fnp.take(both, _const(source, arr), axis=axis)


def trim_zeros(filt: Any, trim: str = "fb", axis: Any = None) -> Any:
    """``numpy.trim_zeros``.  What is trimmed depends on the values, which are read: under
    ``vmap`` every batch element must trim the same positions.

    Example:
        >>> import numpy as np
        >>> trim_zeros(np.array([0.0, 0.0, 1.0, 2.0, 0.0])).tolist()
        [1.0, 2.0]
    """
    filt = _arr(filt)
    trim = trim.lower()
    if trim not in ("fb", "bf", "f", "b"):
        raise ValueError(f"unexpected character(s) in `trim`: {trim!r}")
    rank = fnp.ndim(filt)
    if rank == 0:
        return filt
    axes = range(rank) if axis is None else (fnp._normalize_axis(int(axis), rank),)
    nonzero = fnp.not_equal(filt, 0)
    fix = "trim outside vmap, or slice with fixed bounds"
    index = [slice(None)] * rank
    if not _same_across_batch(fnp.any(nonzero), "trim_zeros(filt)", fix):  # all zeros
        for ax in axes:
            index[ax] = slice(0, 0)
        return fnp.getitem(filt, tuple(index))
    for ax in axes:
        line = fnp.any(nonzero, axis=tuple(i for i in range(rank) if i != ax))
        n = fnp.shape(filt)[ax]
        start = stop = None
        if "f" in trim:
            start = _same_across_batch(fnp.argmax(line), "trim_zeros(filt)", fix)
        if "b" in trim:
            stop = n - _same_across_batch(fnp.argmax(fnp.flip(line)), "trim_zeros(filt)", fix)
        index[ax] = slice(start, stop)
    return fnp.getitem(filt, tuple(index))


# -- sequences -----------------------------------------------------------------------------


def _linspace(start: Any, stop: Any, num: int, endpoint: bool, axis: int) -> Any:
    """NumPy's ``linspace`` (``start + arange(num) * step``, the end point exactly ``stop``)
    on traced or untraced ``start``/``stop``, on their backend."""
    num = int(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    like = _like(start, stop)
    start, stop = _arr(start, like), _arr(stop, like)
    dt = _result_type(start, stop, float(num))
    start, stop = fnp.astype(start, dt), fnp.astype(stop, dt)
    bshape = fnp.broadcast_shapes(fnp.shape(start), fnp.shape(stop))
    div = num - 1 if endpoint else num
    steps = fnp.reshape(fnp.arange(num, dtype=dt, like=start), (num,) + (1,) * len(bshape))
    step = (stop - start) / div if div > 0 else stop - start
    y = steps * step + start if div > 0 else fnp.broadcast_to(start, (num,) + bshape)
    if endpoint and num > 1:
        last = fnp.reshape(fnp.broadcast_to(stop, bshape), (1,) + bshape)
        y = fnp.concatenate([fnp.getitem(y, slice(0, -1)), last])
    y = fnp.broadcast_to(y, (num,) + bshape)
    return fnp.moveaxis(y, 0, axis) if axis != 0 else y


def logspace(
    start: Any,
    stop: Any,
    num: int = 50,
    endpoint: bool = True,
    base: Any = 10.0,
    dtype: Any = None,
    axis: int = 0,
) -> Any:
    """``numpy.logspace``: ``base ** linspace(start, stop)``; ``start``, ``stop`` and
    ``base`` may be traced.

    Example:
        >>> logspace(0.0, 2.0, 3).tolist()
        [1.0, 10.0, 100.0]
    """
    if not isinstance(base, (float, int)) and fnp.ndim(base):
        ndmax = len(fnp.broadcast_shapes(fnp.shape(start), fnp.shape(stop), fnp.shape(base)))
        like = _like(start, stop, base)
        start, stop, base = (
            fnp.reshape(_arr(v, like), (1,) * (ndmax - fnp.ndim(v)) + fnp.shape(v))
            for v in (start, stop, base)
        )
        base = fnp.expand_dims(base, axis)
    y = _linspace(start, stop, num, endpoint, axis)
    out = fnp.power(base, y)
    return out if dtype is None else fnp.astype(out, dtype)


def geomspace(
    start: Any, stop: Any, num: int = 50, endpoint: bool = True, dtype: Any = None, axis: int = 0
) -> Any:
    """``numpy.geomspace`` (real ``start``/``stop``, which may be traced): a geometric
    progression with the end points exactly ``start`` and ``stop``.

    Example:
        >>> geomspace(1.0, 1000.0, 4).tolist()
        [1.0, 10.0, 100.0, 1000.0]
    """
    like = _like(start, stop)
    start, stop = _arr(start, like), _arr(stop, like)
    for v in (start, stop):
        if not isinstance(v, Tracer) and bool((_host(v) == 0).any()):
            raise ValueError("Geometric sequence cannot include zero")
    dt = numpy.result_type(fnp._dtype(start), fnp._dtype(stop), float(num), numpy.float64)
    if dt.kind == "c":
        raise UnsupportedOperationError("geomspace: complex start/stop are not supported")
    start, stop = fnp.astype(start, dt), fnp.astype(stop, dt)
    sign = fnp.sign(start)
    start, stop = start / sign, stop / sign
    out = logspace(fnp.log10(start), fnp.log10(stop), num=num, endpoint=endpoint, base=10.0)
    out = fnp.astype(out, dt)
    if num > 0:
        bshape = (1,) + fnp.shape(out)[1:]
        parts = [fnp.reshape(fnp.broadcast_to(start, fnp.shape(out)[1:]), bshape)]
        if num > 1:
            stop_b = fnp.reshape(fnp.broadcast_to(stop, fnp.shape(out)[1:]), bshape)
            if endpoint:
                parts += [fnp.getitem(out, slice(1, -1)), stop_b]
            else:
                parts.append(fnp.getitem(out, slice(1, None)))
        out = fnp.concatenate(parts, axis=0) if len(parts) > 1 else parts[0]
    out = sign * out
    if axis != 0:
        out = fnp.moveaxis(out, 0, axis)
    return out if dtype is None else fnp.astype(out, dtype)
