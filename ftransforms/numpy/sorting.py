"""Sorting, searching and counting: ``sort``/``argsort``, ``partition``,
``searchsorted``, ``argwhere``/``flatnonzero`` (NumPy's "Sorting, searching, and
counting").
"""

from __future__ import annotations

import operator
from typing import Any

import numpy

from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.creation import as_operand
from ftransforms.numpy.dispatch import implements
from ftransforms.numpy.helpers import (
    INTP,
    array_like,
    concrete_arg,
    dtype_of,
    ndim,
    normalize_axis,
    same_across_batch,
    shape,
    xp_of,
)
from ftransforms.numpy.indexing import (
    getitem,
    nonzero_mask,
    take,
    take_along_axis,
    unravel,
    where,
)
from ftransforms.numpy.manipulation import atleast_1d, concatenate, ravel, stack
from ftransforms.numpy.ranges import arange
from ftransforms.numpy.rearranging import flip
from ftransforms.numpy.reductions import count_nonzero
from ftransforms.numpy.ufuncs import astype, logical_not
from ftransforms.ops import sorting as _sort

__all__ = [
    "argsort",
    "sort",
    "argpartition",
    "partition",
    "searchsorted",
    "flatnonzero",
    "argwhere",
    "sort_complex",
    "lexsort",
]


def _sort_kind(kind: Any, stable: Any) -> Any:
    return "stable" if stable else kind


@implements(numpy.argsort)
def argsort(
    a: Any,
    axis: int | None = -1,
    kind: Any = None,
    order: Any = None,
    *,
    stable=None,
    descending: bool = False,
):
    """``numpy.argsort``: the indices that sort ``a`` along ``axis`` (the flattened array when
    None); ``stable=True`` or ``kind='stable'`` keeps tied elements in order
    (``jax.numpy``'s ``descending=True``: largest first, ties still in order).  Integer
    indices, so no derivative; ``order=`` raises
    :class:`~ftransforms.errors.UnsupportedOperationError`.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.argsort(np.array([1, 0, 1, 0]), stable=True).tolist()
        [1, 3, 0, 2]
        >>> ft.vmap(fnp.argsort)(np.array([[3, 1, 2], [0, 2, 1]])).tolist()
        [[1, 2, 0], [0, 2, 1]]
    """
    if order is not None:
        raise UnsupportedOperationError("argsort: order= (structured arrays) is not supported")
    if axis is None:
        a, axis = ravel(a), 0
    axis = normalize_axis(axis, ndim(a))
    if descending:  # the stable ascending order of the reversed array, read backwards
        n = shape(a)[axis]
        order_ = _sort.argsort_p.bind(flip(a, axis), axis=axis, kind="stable")
        return (n - 1) - flip(order_, axis)
    return _sort.argsort_p.bind(a, axis=axis, kind=_sort_kind(kind, stable))


@implements(numpy.sort)
def sort(
    a: Any,
    axis: int | None = -1,
    kind: Any = None,
    order: Any = None,
    *,
    stable=None,
    descending: bool = False,
):
    """``numpy.sort`` along ``axis`` (the flattened array when None).  On tracers it is a
    gather through the stable sorting permutation, so each element keeps its own derivative
    (tied elements too); ``jax.numpy``'s ``descending=True`` sorts largest first;
    ``order=`` raises
    :class:`~ftransforms.errors.UnsupportedOperationError`.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.sort(np.array([[3, 1], [0, 2]]), axis=0).tolist()
        [[0, 1], [3, 2]]
        >>> ft.grad(lambda x: fnp.sort(x)[0])(np.array([3.0, 1.0, 2.0]))  # the smallest, x[1]
        array([0., 1., 0.])
    """
    if order is not None:
        raise UnsupportedOperationError("sort: order= (structured arrays) is not supported")
    a = array_like(a)
    if axis is None:
        a, axis = ravel(a), 0
    if descending:  # jax.numpy's keyword: the ascending sort, reversed
        return flip(sort(a, axis, kind, stable=stable), axis)
    if not isinstance(a, Tracer):
        return xp_of(a).sort(a, axis=axis, kind=_sort_kind(kind, stable))
    axis = normalize_axis(axis, ndim(a))
    perm = _sort.argsort_p.bind(a, axis=axis, kind="stable")
    return take_along_axis(a, perm, axis)


def _kth(kth: Any, n: int) -> tuple[int, ...]:
    kth = concrete_arg(kth, "partition(a, kth)")
    ks = numpy.atleast_1d(numpy.asarray(kth)).ravel()
    return tuple(int(k) % n if -n <= int(k) < n else int(k) for k in ks)


@implements(numpy.argpartition)
def argpartition(a: Any, kth: Any, axis: int | None = -1, kind: str = "introselect", order=None):
    """``numpy.argpartition``: indices that put the ``kth`` smallest element of ``a`` at
    position ``kth`` along ``axis``, smaller ones before and larger ones after (in no
    particular order).  Integer indices, so no derivative.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> x = np.array([5.0, 1.0, 4.0, 2.0])
        >>> int(fnp.argpartition(x, 1)[1])  # the second smallest is x[3]
        3
        >>> ft.vmap(lambda r: fnp.argpartition(r, 0)[0])(np.array([[3, 1], [0, 2]])).tolist()
        [1, 0]
    """
    if order is not None:
        raise UnsupportedOperationError("argpartition: order= is not supported")
    if axis is None:
        a, axis = ravel(a), 0
    axis = normalize_axis(axis, ndim(a))
    return _sort.argpartition_p.bind(a, kth=_kth(kth, shape(a)[axis]), axis=axis)


@implements(numpy.partition)
def partition(a: Any, kth: Any, axis: int | None = -1, kind: str = "introselect", order=None):
    """``numpy.partition``: ``a`` with its ``kth`` smallest element at position ``kth`` along
    ``axis``, smaller ones before and larger ones after (in no particular order).  On tracers
    a gather through :func:`argpartition`, so the values are differentiable.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> x = np.array([5.0, 1.0, 4.0, 2.0])
        >>> float(fnp.partition(x, 1)[1])  # the second smallest
        2.0
        >>> ft.grad(lambda x: fnp.partition(x, 1)[1])(x)
        array([0., 0., 0., 1.])
    """
    if order is not None:
        raise UnsupportedOperationError("partition: order= is not supported")
    a = array_like(a)
    if axis is None:
        a, axis = ravel(a), 0
    if not isinstance(a, Tracer):
        return xp_of(a).partition(a, kth, axis=axis)
    axis = normalize_axis(axis, ndim(a))
    perm = argpartition(a, kth, axis=axis)
    return take_along_axis(a, perm, axis)


#: ``jax.numpy.searchsorted``'s ``method`` values (XLA's strategies; one answer here).
SEARCH_METHODS = ("scan", "scan_unrolled", "sort", "compare_all")


@implements(numpy.searchsorted)
def searchsorted(
    a: Any, v: Any, side: str = "left", sorter: Any = None, *, method: str = "scan"
) -> Any:
    """``numpy.searchsorted``: where the values ``v`` would go in the sorted 1-D ``a`` to keep
    it sorted (before equal elements for ``side='left'``, after them for ``'right'``).
    Integer indices, so no derivative; under ``vmap`` ``a`` may be batched too.
    ``jax.numpy``'s ``method=`` (how XLA searches) is accepted; the answer is the same.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> a = np.array([1.0, 2.0, 4.0])
        >>> fnp.searchsorted(a, np.array([0.0, 2.0, 5.0])).tolist()
        [0, 1, 3]
        >>> int(fnp.searchsorted(a, 2.0, side="right"))
        2
        >>> ft.vmap(lambda a: fnp.searchsorted(a, 2.0))(np.array([[1.0, 3.0], [0.0, 1.0]])).tolist()
        [1, 2]
    """
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right' (got {side!r})")
    if method not in SEARCH_METHODS:
        raise ValueError(f"searchsorted: method must be one of {SEARCH_METHODS}, got {method!r}")
    if ndim(a) != 1:
        raise ValueError("object too deep for desired array")
    if sorter is not None:
        a = take(a, sorter)
    return _sort.searchsorted_p.bind(a, v, side=side)


def true_positions(flat_mask: Any, what: str) -> Any:
    """The positions of the true elements of a 1-d boolean ``flat_mask``, ascending (a
    stable sort of ``~mask`` puts them first): their number is read from the values."""
    count = same_across_batch(
        count_nonzero(flat_mask),
        what,
        "the number of nonzero elements must be the same for every batch element "
        "(or use fnp.where(mask, x, 0) / a sum weighted by the mask instead)",
    )
    return getitem(_trues_first(flat_mask), slice(0, count))


def _trues_first(flat_mask: Any) -> Any:
    """The positions of a 1-d boolean mask, its true elements first, each part ascending
    (a stable sort of ``~mask``)."""
    return astype(argsort(astype(logical_not(flat_mask), numpy.int8), kind="stable"), INTP)


def padded_true_positions(flat_mask: Any, size: int) -> tuple[Any, Any]:
    """``jax.numpy``'s ``size=``: the first ``size`` positions of the true elements of a
    1-d ``flat_mask`` (ascending), and which of those slots hold one (the others are
    padding, position 0).  Fixed-size, so no value read: ``vmap`` batches it whole."""
    size = operator.index(size)
    if size < 0:
        raise ValueError(f"size must be a non-negative integer, got {size}")
    n = shape(flat_mask)[0]
    order = _trues_first(flat_mask)
    if size <= n:
        order = getitem(order, slice(0, size))
    else:
        order = concatenate([order, xp_of(order).zeros((size - n,), dtype=dtype_of(order))])
    slots = arange(size, like=order)
    filled = slots < count_nonzero(flat_mask)
    return where(filled, order, 0), filled


def fill_slots(values: Any, filled: Any, fill_value: Any) -> Any:
    """``values`` where ``filled``, else ``fill_value`` (0 when None), in ``values``' dtype."""
    fill = 0 if fill_value is None else fill_value
    return astype(where(filled, values, fill), dtype_of(values))


@implements(numpy.flatnonzero)
def flatnonzero(a: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    """``numpy.flatnonzero``: indices of the nonzero elements of ``ravel(a)``.  With
    ``jax.numpy``'s ``size=``, exactly ``size`` indices (the first ones), padded with
    ``fill_value`` (default 0): a fixed shape, so ``vmap`` need not split the batch.

    Example:
        >>> import numpy as np
        >>> flatnonzero(np.array([[0, 2], [3, 0]])).tolist()
        [1, 2]
        >>> flatnonzero(np.array([[0, 2], [3, 0]]), size=3, fill_value=-1).tolist()
        [1, 2, -1]
    """
    a = as_operand(a)
    if size is None:
        return true_positions(ravel(nonzero_mask(a)), "flatnonzero(a)")
    positions, filled = padded_true_positions(ravel(nonzero_mask(a)), size)
    return fill_slots(positions, filled, fill_value)


@implements(numpy.argwhere)
def argwhere(a: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    """``numpy.argwhere``: the coordinates of the nonzero elements, one row each.  With
    ``jax.numpy``'s ``size=``, exactly ``size`` rows, padded with ``fill_value``
    (default 0).

    Example:
        >>> import numpy as np
        >>> argwhere(np.array([[0, 2], [3, 0]])).tolist()
        [[0, 1], [1, 0]]
        >>> argwhere(np.array([[0, 2], [3, 0]]), size=3).tolist()
        [[0, 1], [1, 0], [0, 0]]
    """
    a = as_operand(a)
    if ndim(a) == 0:
        if size is not None:
            raise ValueError("argwhere(a, size=...): a must have at least one dimension")
        return getitem(argwhere(atleast_1d(a)), (slice(None), slice(0, 0)))
    if size is None:
        flat = true_positions(ravel(nonzero_mask(a)), "argwhere(a)")
        return stack(unravel(flat, shape(a)), axis=1)
    positions, filled = padded_true_positions(ravel(nonzero_mask(a)), size)
    coords = stack(unravel(positions, shape(a)), axis=1)
    return fill_slots(coords, reshape_filled(filled), fill_value)


def reshape_filled(filled: Any) -> Any:
    """The ``(size,)`` slot mask as a column, to select whole rows."""
    return getitem(filled, (slice(None), None))


@implements(numpy.sort_complex)
def sort_complex(a: Any) -> Any:
    """``numpy.sort_complex``: sort by real part, then imaginary part (a complex result;
    differentiable by gather like :func:`fnp.sort`).

    Example:
        >>> import numpy as np
        >>> sort_complex(np.array([1 + 2j, 1 - 1j, 0j])).tolist()
        [0j, (1-1j), (1+2j)]
    """
    b = sort(as_operand(a), axis=-1)
    dt = dtype_of(b)
    if dt.kind == "c":
        return b
    target = {"b": "F", "h": "F", "B": "F", "H": "F", "g": "G"}.get(dt.char, "D")
    return astype(b, numpy.dtype(target))


@implements(numpy.lexsort)
def lexsort(keys: Any, axis: int = -1) -> Any:
    """``numpy.lexsort``: the indices that sort by the last key, ties broken by the one
    before it, and so on (stable argsorts, first key first).  Integer indices: no
    derivative, but the keys may be traced (and batched under ``vmap``).

    Example:
        >>> import numpy as np
        >>> lexsort((np.array([2.0, 1.0, 0.0]), np.array([1.0, 0.0, 1.0]))).tolist()
        [1, 2, 0]
    """
    if isinstance(keys, (list, tuple)):
        keys = [as_operand(k) for k in keys]
    else:
        keys = as_operand(keys)
        # an array is a sequence of keys along its axis 0, as NumPy reads it: a 1-d array
        # is that many 0-d keys (whose one order is 0), not one key
        keys = [getitem(keys, i) for i in range(shape(keys)[0])] if ndim(keys) else []
    if not keys:
        raise TypeError("lexsort: need sequence of keys with len > 0")
    rank = ndim(keys[0])
    if rank == 0:
        if any(ndim(k) for k in keys):
            raise ValueError("lexsort: all keys need to be the same shape")
        if axis not in (0, -1):
            raise numpy.exceptions.AxisError(axis, 0)
        return INTP.type(0)
    axis = normalize_axis(axis, rank)
    perm = argsort(keys[0], axis=axis, kind="stable")
    for key in keys[1:]:
        if shape(key) != shape(keys[0]):
            raise ValueError("lexsort: all keys need to be the same shape")
        order = argsort(take_along_axis(key, perm, axis), axis=axis, kind="stable")
        perm = take_along_axis(perm, order, axis)
    return astype(perm, INTP)
