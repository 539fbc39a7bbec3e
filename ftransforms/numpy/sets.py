"""Set routines on sorted values: ``unique``, ``union1d``, ``intersect1d``, ``setdiff1d``,
``setxor1d``, ``isin`` (NumPy's "Set routines").
"""

from __future__ import annotations

import math
from typing import Any

import numpy

from ftransforms.numpy.creation import as_operand, full, ones, zeros
from ftransforms.numpy.dispatch import implements
from ftransforms.numpy.helpers import (
    INTP,
    dtype_of,
    ndim,
    no_extra_args,
    normalize_axis,
    shape,
    size,
)
from ftransforms.numpy.indexing import getitem, take, where
from ftransforms.numpy.manipulation import concatenate, expand_dims, moveaxis, ravel, reshape
from ftransforms.numpy.ranges import arange
from ftransforms.numpy.reductions import any, cumsum, diff
from ftransforms.numpy.sorting import argsort, lexsort, padded_true_positions, true_positions
from ftransforms.numpy.ufuncs import astype, equal, isnan, logical_and, logical_not, not_equal

__all__ = [
    "unique",
    "union1d",
    "intersect1d",
    "setxor1d",
    "setdiff1d",
    "isin",
    "unique_all",
    "unique_counts",
    "unique_inverse",
    "unique_values",
]


@implements(numpy.unique)
def unique(
    ar: Any,
    return_index: bool = False,
    return_inverse: bool = False,
    return_counts: bool = False,
    axis: int | None = None,
    *,
    equal_nan: bool = True,
    sorted: bool = True,  # noqa: A002
    size: int | None = None,
    fill_value: Any = None,
) -> Any:
    """``numpy.unique``: the sorted distinct values (or slices along ``axis``), and optionally the
    first indices, the inverse (shaped like ``ar``) and the counts.  Their number is read
    from the values (under ``vmap``, rows with different counts are run apart); the values
    are differentiable by gather.  ``jax.numpy``'s ``size=`` gives exactly ``size`` values
    (the smallest ones), padded with ``fill_value`` (default: the minimum of ``ar``; the
    padding's index is the minimum's, its count 0): a fixed shape, batched whole.

    Example:
        >>> import numpy as np
        >>> values, counts = unique(np.array([3, 1, 3, 2]), return_counts=True)
        >>> values.tolist(), counts.tolist()
        ([1, 2, 3], [1, 1, 2])
        >>> unique(np.array([3, 1, 3]), size=3, fill_value=0).tolist()
        [1, 3, 0]
    """
    if axis is not None:
        if size is not None:
            raise NotImplementedError("unique(ar, axis=..., size=...) is not supported")
        return _unique_along(ar, axis, return_index, return_inverse, return_counts)
    ar = as_operand(ar)
    in_shape = shape(ar)
    flat = ravel(ar)
    n = shape(flat)[0]
    if size is not None and n == 0:
        raise ValueError("unique(ar, size=...): ar is empty, so there is no value to pad with")
    perm = astype(argsort(flat, kind="stable"), INTP)
    s = take(flat, perm)
    if n:
        prev, cur = getitem(s, slice(None, -1)), getitem(s, slice(1, None))
        new = not_equal(cur, prev)
        if equal_nan and dtype_of(s).kind in "fc":
            new = logical_and(new, logical_not(isnan(cur) & isnan(prev)))
        flags = concatenate([ones((1,), bool, like=flat), new])
    else:
        flags = zeros((0,), bool, like=flat)
    if size is None:
        first = true_positions(flags, "unique(ar)")
        filled = None
    else:  # one more slot: where the last kept value's run ends (its count)
        first, filled = padded_true_positions(flags, size + 1)
        ends = where(getitem(filled, slice(1, None)), getitem(first, slice(1, None)), n)
        first, filled = getitem(first, slice(0, size)), getitem(filled, slice(0, size))
    values = take(s, first)
    out = [values if filled is None or fill_value is None else where(filled, values, fill_value)]
    if return_index:
        out.append(take(perm, first))
    if return_inverse:
        groups = cumsum(astype(flags, INTP)) - 1
        inverse = take(groups, astype(argsort(perm), INTP))
        out.append(reshape(astype(inverse, INTP), in_shape))
    if return_counts:
        if filled is None:
            ends = concatenate([first, full((1,), n, INTP, like=first)])
            out.append(astype(diff(ends), INTP))
        else:
            out.append(astype(where(filled, ends - first, 0), INTP))
    return out[0] if len(out) == 1 else tuple(out)


def _unique_along(
    ar: Any,
    axis: int,
    return_index: bool,
    return_inverse: bool,
    return_counts: bool,
) -> Any:
    """``numpy.unique(ar, axis=axis)``: the distinct slices along ``axis``, in NumPy's order
    (lexicographic over the slice's elements in C order), with the first indices, the 1-d
    inverse and the counts.  The slices are gathered, so they are differentiable; their
    number is read from the values (under ``vmap``, rows with different counts run apart)."""
    ar = as_operand(ar)
    axis = normalize_axis(axis, ndim(ar))
    moved = moveaxis(ar, axis, 0)
    n = shape(moved)[0]
    rows = reshape(moved, (n, math.prod(shape(moved)[1:])))
    columns = [getitem(rows, (slice(None), j)) for j in range(shape(rows)[1])]
    perm = lexsort(columns[::-1]) if columns else arange(n, dtype=INTP, like=rows)
    s = take(rows, perm, axis=0)
    if n:  # NumPy compares the slices as records: a NaN never equals (equal_nan aside)
        prev, cur = getitem(s, slice(None, -1)), getitem(s, slice(1, None))
        new = any(not_equal(cur, prev), axis=1)
        flags = concatenate([ones((1,), bool, like=rows), new])
    else:
        flags = zeros((0,), bool, like=rows)
    first = true_positions(flags, "unique(ar, axis=...)")
    values = reshape(take(s, first, axis=0), (shape(first)[0], *shape(moved)[1:]))
    out = [moveaxis(values, 0, axis)]
    if return_index:
        out.append(take(perm, first))
    if return_inverse:
        groups = cumsum(astype(flags, INTP)) - 1
        out.append(astype(take(groups, astype(argsort(perm), INTP)), INTP))
    if return_counts:
        ends = concatenate([first, full((1,), n, INTP, like=first)])
        out.append(astype(diff(ends), INTP))
    return out[0] if len(out) == 1 else tuple(out)


@implements(numpy.union1d)
def union1d(ar1: Any, ar2: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    """``numpy.union1d``: the sorted distinct values of both arrays; ``jax.numpy``'s
    ``size=``/``fill_value=`` as :func:`unique`'s (the padding defaults to the minimum).

    Example:
        >>> import numpy as np
        >>> union1d(np.array([3, 1]), np.array([2, 1])).tolist()
        [1, 2, 3]
        >>> union1d(np.array([3, 1]), np.array([2, 1]), size=5, fill_value=-1).tolist()
        [1, 2, 3, -1, -1]
    """
    ar1 = as_operand(ar1)
    both = concatenate([ravel(ar1), ravel(as_operand(ar2, ar1))])
    return unique(both, size=size, fill_value=fill_value)


def _to_size(values: Any, size: int | None, fill_value: Any) -> Any:
    """``jax.numpy``'s ``size=``: the first ``size`` of the 1-d ``values``, padded at the
    end with ``fill_value`` (default 0) when there are fewer; ``values`` without ``size``."""
    if size is None:
        return values
    n = shape(values)[0]
    if n >= size:
        return getitem(values, slice(0, size))
    fill = 0 if fill_value is None else fill_value
    pad = astype(full((size - n,), fill, like=values), dtype_of(values))
    return concatenate([values, pad])


def _smallest_or_zero(values: Any) -> Any:
    """The first of the sorted 1-d ``values`` (JAX's padding of a sized set result), 0 when
    there is none."""
    return getitem(values, 0) if shape(values)[0] else 0


def _sorted_pairs(ar1: Any, ar2: Any, assume_unique: bool) -> tuple[Any, Any, Any]:
    """Both arrays made unique (unless assumed) and sorted together, with a mask of the
    values that appear twice in a row (in both arrays)."""
    ar1 = ravel(as_operand(ar1))
    ar2 = ravel(as_operand(ar2, ar1))
    if not assume_unique:
        ar1, ar2 = unique(ar1), unique(ar2)
    aux = concatenate([ar1, ar2])
    aux = take(aux, astype(argsort(aux, kind="stable"), INTP))
    return ar1, ar2, aux


@implements(numpy.intersect1d)
def intersect1d(
    ar1: Any,
    ar2: Any,
    assume_unique: bool = False,
    return_indices: bool = False,
    *,
    size: int | None = None,
    fill_value: Any = None,
) -> Any:
    """``numpy.intersect1d``: the sorted values in both; with ``return_indices``, also the
    indices of their first occurrences in the flattened ``ar1`` and ``ar2``.  ``jax.numpy``'s
    ``size=`` keeps the first ``size`` values, padded with ``fill_value`` (default: the
    smallest value, or 0 when there is none) and the indices with the arrays' lengths.

    Example:
        >>> import numpy as np
        >>> intersect1d(np.array([3, 1, 1]), np.array([1, 2, 3])).tolist()
        [1, 3]
        >>> [v.tolist() for v in intersect1d([4, 2, 7], [7, 4], return_indices=True)]
        [[4, 7], [0, 2], [1, 0]]
    """
    if size is not None:
        out = intersect1d(ar1, ar2, assume_unique, return_indices)
        values = out[0] if return_indices else out
        fill = _smallest_or_zero(values) if fill_value is None else fill_value
        values = _to_size(values, size, fill)
        if not return_indices:
            return values
        n1, n2 = (math.prod(shape(a)) for a in (ar1, ar2))
        return values, _to_size(out[1], size, n1), _to_size(out[2], size, n2)
    if not return_indices:
        _, _, aux = _sorted_pairs(ar1, ar2, assume_unique)
        if shape(aux)[0] < 2:
            return getitem(aux, slice(0, 0))
        dup = equal(getitem(aux, slice(1, None)), getitem(aux, slice(None, -1)))
        return take(aux, true_positions(dup, "intersect1d(ar1, ar2)"))
    ar1 = ravel(as_operand(ar1))
    ar2 = ravel(as_operand(ar2, ar1))
    if assume_unique:
        first1 = first2 = None
    else:
        ar1, first1 = unique(ar1, return_index=True)
        ar2, first2 = unique(ar2, return_index=True)
    n1 = shape(ar1)[0]
    aux = concatenate([ar1, ar2])
    order = astype(argsort(aux, kind="stable"), INTP)
    aux = take(aux, order)
    if shape(aux)[0] < 2:
        empty = getitem(order, slice(0, 0))
        return getitem(aux, slice(0, 0)), empty, empty
    where_dup = true_positions(
        equal(getitem(aux, slice(1, None)), getitem(aux, slice(None, -1))),
        "intersect1d(ar1, ar2, return_indices=True)",
    )
    values = take(getitem(aux, slice(None, -1)), where_dup)
    idx1 = take(getitem(order, slice(None, -1)), where_dup)
    idx2 = take(getitem(order, slice(1, None)), where_dup) - n1
    if first1 is not None:
        idx1, idx2 = take(first1, idx1), take(first2, idx2)
    return values, idx1, idx2


@implements(numpy.setxor1d)
def setxor1d(
    ar1: Any,
    ar2: Any,
    assume_unique: bool = False,
    *,
    size: int | None = None,
    fill_value: Any = None,
) -> Any:
    """``numpy.setxor1d``: the sorted values in exactly one of the arrays; ``jax.numpy``'s
    ``size=`` keeps the first ``size``, padded with ``fill_value`` (default: the smallest
    value, or 0 when there is none).

    Example:
        >>> import numpy as np
        >>> setxor1d(np.array([1, 2, 3]), np.array([2, 3, 4])).tolist()
        [1, 4]
    """
    if size is not None:
        values = setxor1d(ar1, ar2, assume_unique)
        fill = _smallest_or_zero(values) if fill_value is None else fill_value
        return _to_size(values, size, fill)
    _, _, aux = _sorted_pairs(ar1, ar2, assume_unique)
    if shape(aux)[0] == 0:
        return aux
    edge = ones((1,), bool, like=aux)
    differs = not_equal(getitem(aux, slice(1, None)), getitem(aux, slice(None, -1)))
    flag = concatenate([edge, differs, edge])
    lone = logical_and(getitem(flag, slice(1, None)), getitem(flag, slice(None, -1)))
    return take(aux, true_positions(lone, "setxor1d(ar1, ar2)"))


@implements(numpy.setdiff1d)
def setdiff1d(
    ar1: Any,
    ar2: Any,
    assume_unique: bool = False,
    *,
    size: int | None = None,
    fill_value: Any = None,
) -> Any:
    """``numpy.setdiff1d``: the values of ``ar1`` not in ``ar2`` (sorted and distinct
    unless ``assume_unique``, which keeps ``ar1``'s order).  ``jax.numpy``'s ``size=``
    keeps the first ``size`` of them, padded with ``fill_value`` (default 0): a fixed
    shape.

    Example:
        >>> import numpy as np
        >>> setdiff1d(np.array([4, 1, 2, 1]), np.array([2, 5])).tolist()
        [1, 4]
        >>> setdiff1d(np.array([4, 1, 2, 1]), np.array([2, 5]), size=3).tolist()
        [1, 4, 0]
    """
    return _to_size(_setdiff1d(ar1, ar2, assume_unique), size, fill_value)


def _setdiff1d(ar1: Any, ar2: Any, assume_unique: bool) -> Any:
    """:func:`setdiff1d` without ``size``."""
    a1 = ravel(as_operand(ar1))
    a2 = ravel(as_operand(ar2, a1))
    if not assume_unique:
        a1 = unique(a1)
    if shape(a2)[0] == 0 or shape(a1)[0] == 0:
        return a1
    hit = any(equal(reshape(a1, (-1, 1)), reshape(a2, (1, -1))), axis=1)
    return take(a1, true_positions(logical_not(hit), "setdiff1d(ar1, ar2)"))


@implements(numpy.isin)
def isin(
    element: Any, test_elements: Any, assume_unique: bool = False, invert: bool = False, **kw
) -> Any:
    """``numpy.isin`` (no derivative): whether each element is among ``test_elements``.

    Example:
        >>> import numpy as np
        >>> isin(np.array([[0, 2], [4, 6]]), [1, 2, 4, 8]).tolist()
        [[False, True], [True, False]]
    """
    kw.pop("kind", None)
    no_extra_args("isin", kw)
    element = as_operand(element, test_elements)
    test = ravel(as_operand(test_elements, element))
    if size(test) == 0:
        out = zeros(shape(element), bool, like=element)
    else:
        out = any(expand_dims(element, -1) == test, axis=-1)
    return logical_not(out) if invert else out


def _unique_results() -> tuple[Any, Any, Any]:
    """NumPy's result tuples (namedtuples of ``numpy.lib._arraysetops_impl``), or ours."""
    from collections import namedtuple

    impl = getattr(numpy.lib, "_arraysetops_impl", None)
    if impl is not None and hasattr(impl, "UniqueAllResult"):
        return impl.UniqueAllResult, impl.UniqueCountsResult, impl.UniqueInverseResult
    return (
        namedtuple("UniqueAllResult", "values indices inverse_indices counts"),
        namedtuple("UniqueCountsResult", "values counts"),
        namedtuple("UniqueInverseResult", "values inverse_indices"),
    )


_UniqueAll, _UniqueCounts, _UniqueInverse = _unique_results()


@implements("numpy.unique_all")
def unique_all(x: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    """``numpy.unique_all``: a named tuple of the sorted distinct ``values``, the ``indices``
    of their first occurrences, the ``inverse_indices`` (shaped like ``x``) and the
    ``counts``, as :func:`unique` with NaNs kept apart (``equal_nan=False``); ``size`` and
    ``fill_value`` as :func:`unique`'s (JAX's fixed-size form), as in the three below.

    Example:
        >>> import numpy as np
        >>> import ftransforms.numpy as fnp
        >>> r = fnp.unique_all(np.array([3, 1, 3, 2]))
        >>> r.values.tolist(), r.indices.tolist(), r.inverse_indices.tolist(), r.counts.tolist()
        ([1, 2, 3], [1, 3, 0], [2, 0, 2, 1], [1, 1, 2])
    """
    return _UniqueAll(
        *unique(x, True, True, True, equal_nan=False, size=size, fill_value=fill_value)
    )


@implements("numpy.unique_counts")
def unique_counts(x: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    """``numpy.unique_counts``: values and counts.

    Example:
        >>> import numpy as np
        >>> unique_counts(np.array([2.0, 1.0, 2.0])).counts.tolist()
        [1, 2]
    """
    kw = {"size": size, "fill_value": fill_value}
    return _UniqueCounts(*unique(x, return_counts=True, equal_nan=False, **kw))


@implements("numpy.unique_inverse")
def unique_inverse(x: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    """``numpy.unique_inverse``: a named tuple of the sorted distinct ``values`` and the
    ``inverse_indices`` (shaped like ``x``) that rebuild ``x`` from them.

    Example:
        >>> import numpy as np
        >>> import ftransforms.numpy as fnp
        >>> values, inverse = fnp.unique_inverse(np.array([[3, 1], [3, 2]]))
        >>> values.tolist(), inverse.tolist()
        ([1, 2, 3], [[2, 0], [2, 1]])
        >>> values[inverse].tolist()
        [[3, 1], [3, 2]]
    """
    kw = {"size": size, "fill_value": fill_value}
    return _UniqueInverse(*unique(x, return_inverse=True, equal_nan=False, **kw))


@implements("numpy.unique_values")
def unique_values(x: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    """``numpy.unique_values``: the sorted distinct values (NaNs kept apart).  Their number is
    read from the values; they are differentiable by gather (each distinct value takes the
    derivative at its first occurrence).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.unique_values(np.array([3, 1, 3, 2])).tolist()
        [1, 2, 3]
        >>> ft.grad(lambda x: fnp.sum(fnp.unique_values(x) * np.array([1.0, 10.0])))(
        ...     np.array([2.0, 1.0, 2.0])
        ... )
        array([10.,  1.,  0.])
    """
    return unique(x, equal_nan=False, size=size, fill_value=fill_value)
