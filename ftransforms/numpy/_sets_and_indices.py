"""NaN-aware arg-reductions and cumulations, indices of nonzero elements, index arithmetic,
phase unwrapping, comparisons of whole arrays and sorted sets of NumPy (``nanargmax``,
``nancumsum``, ``argwhere``, ``flatnonzero``, ``tril_indices_from``, ``ravel_multi_index``,
``unravel_index``, ``unwrap``, ``sort_complex``, ``real_if_close``, ``array_equal``,
``unique``, ``union1d``, ...), written from ``ftransforms.numpy`` functions that have every
rule.  Re-exported by :mod:`ftransforms.numpy`.

Indices have no derivative.  ``argwhere``, ``flatnonzero``, ``unique`` (and the set
functions built on it) read the size of their result from the values, and ``real_if_close``
its dtype: ``jit`` runs them eagerly, and under ``vmap`` every batch element must give the
same size (or dtype), else ``BatchedControlFlowError``.  ``ravel_multi_index`` (``mode=
'raise'``) and ``unravel_index`` read the indices to check their bounds, as NumPy does.
``nanargmax``/``nanargmin`` raise NumPy's ``ValueError`` for an all-NaN slice of a plain
array; on tracers they do not read the data and give -1 there, as ``jax.numpy`` does.
"""

from __future__ import annotations

import math
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.tracer import Tracer
from ftransforms.numpy._composite_helpers import _arr, _host, _result_type, _same_across_batch

__all__ = [
    "argwhere",
    "array_equal",
    "array_equiv",
    "diag_indices_from",
    "flatnonzero",
    "intersect1d",
    "nanargmax",
    "nanargmin",
    "nancumprod",
    "nancumsum",
    "ravel_multi_index",
    "real_if_close",
    "setdiff1d",
    "setxor1d",
    "sort_complex",
    "tril_indices_from",
    "triu_indices_from",
    "union1d",
    "unique",
    "unravel_index",
    "unwrap",
]

_INTP = numpy.dtype(numpy.intp)


# -- NaN-aware arg-reductions and cumulations ----------------------------------------------


def _nanarg(reduce: Any, fill: float, a: Any, axis: Any, keepdims: bool) -> Any:
    a = _arr(a)
    if fnp._dtype(a).kind not in "fc":
        return reduce(a, axis=axis, keepdims=keepdims)
    nans = fnp.isnan(a)
    out = reduce(fnp.where(nans, fill, a), axis=axis, keepdims=keepdims)
    all_nan = fnp.all(nans, axis=axis, keepdims=keepdims)
    if not isinstance(a, Tracer):
        if bool(_host(all_nan).any()):
            raise ValueError("All-NaN slice encountered")
        return out
    return fnp.where(all_nan, -1, out)


def nanargmax(a: Any, axis: int | None = None, out: Any = None, *, keepdims: bool = False) -> Any:
    """``numpy.nanargmax``: the index of the largest non-NaN value (no derivative).

    Example:
        >>> import numpy as np
        >>> int(nanargmax(np.array([1.0, np.nan, 3.0, 2.0])))
        2
    """
    _no_out("nanargmax", out)
    return _nanarg(fnp.argmax, -numpy.inf, a, axis, keepdims)


def nanargmin(a: Any, axis: int | None = None, out: Any = None, *, keepdims: bool = False) -> Any:
    """``numpy.nanargmin``: the index of the smallest non-NaN value (no derivative).

    Example:
        >>> import numpy as np
        >>> int(nanargmin(np.array([1.0, np.nan, -3.0, 2.0])))
        2
    """
    _no_out("nanargmin", out)
    return _nanarg(fnp.argmin, numpy.inf, a, axis, keepdims)


def _no_out(name: str, out: Any) -> None:
    if out is not None:
        raise TypeError(f"{name}: out= is not supported (arrays are immutable under transforms)")


def _nan_replaced(a: Any, fill: float) -> Any:
    a = _arr(a)
    if fnp._dtype(a).kind not in "fc":
        return a
    return fnp.where(fnp.isnan(a), fill, a)


def nancumsum(a: Any, axis: int | None = None, dtype: Any = None, out: Any = None) -> Any:
    """``numpy.nancumsum``: NaNs count as zero (and get derivative 0).

    Example:
        >>> import numpy as np
        >>> nancumsum(np.array([1.0, np.nan, 2.0])).tolist()
        [1.0, 1.0, 3.0]
    """
    _no_out("nancumsum", out)
    return fnp.cumsum(_nan_replaced(a, 0.0), axis=axis, dtype=dtype)


def nancumprod(a: Any, axis: int | None = None, dtype: Any = None, out: Any = None) -> Any:
    """``numpy.nancumprod``: NaNs count as one (and get derivative 0).

    Example:
        >>> import numpy as np
        >>> nancumprod(np.array([2.0, np.nan, 3.0])).tolist()
        [2.0, 2.0, 6.0]
    """
    _no_out("nancumprod", out)
    return fnp.cumprod(_nan_replaced(a, 1.0), axis=axis, dtype=dtype)


# -- indices of nonzero elements (sizes read from the values) -----------------------------


def _true_positions(flat_mask: Any, what: str) -> Any:
    """The positions of the true elements of a 1-d boolean ``flat_mask``, ascending (a
    stable sort of ``~mask`` puts them first): their number is read from the values."""
    count = _same_across_batch(
        fnp.count_nonzero(flat_mask),
        what,
        "the number of nonzero elements must be the same for every batch element "
        "(or use fnp.where(mask, x, 0) / a sum weighted by the mask instead)",
    )
    order = fnp.argsort(fnp.astype(fnp.logical_not(flat_mask), numpy.int8), kind="stable")
    return fnp.astype(fnp.getitem(order, slice(0, count)), _INTP)


def _nonzero_mask(a: Any) -> Any:
    return a if fnp._dtype(a).kind == "b" else fnp.not_equal(a, 0)


def flatnonzero(a: Any) -> Any:
    """``numpy.flatnonzero``: indices of the nonzero elements of ``ravel(a)``.

    Example:
        >>> import numpy as np
        >>> flatnonzero(np.array([[0, 2], [3, 0]])).tolist()
        [1, 2]
    """
    a = _arr(a)
    return _true_positions(fnp.ravel(_nonzero_mask(a)), "flatnonzero(a)")


def _unravel(flat: Any, shape: tuple[int, ...], order: str = "C") -> tuple[Any, ...]:
    """Coordinates of flat indices into ``shape`` (``order`` 'C' or 'F')."""
    dims = list(shape) if order == "C" else list(reversed(shape))
    strides = [math.prod(dims[i + 1 :]) for i in range(len(dims))]
    coords = [
        fnp.remainder(fnp.floor_divide(flat, max(s, 1)), max(n, 1)) for s, n in zip(strides, dims)
    ]
    return tuple(coords if order == "C" else reversed(coords))


def argwhere(a: Any) -> Any:
    """``numpy.argwhere``: the coordinates of the nonzero elements, one row each.

    Example:
        >>> import numpy as np
        >>> argwhere(np.array([[0, 2], [3, 0]])).tolist()
        [[0, 1], [1, 0]]
    """
    a = _arr(a)
    if fnp.ndim(a) == 0:
        return fnp.getitem(argwhere(fnp.atleast_1d(a)), (slice(None), slice(0, 0)))
    flat = _true_positions(fnp.ravel(_nonzero_mask(a)), "argwhere(a)")
    return fnp.stack(_unravel(flat, fnp.shape(a)), axis=1)


# -- index arithmetic (constants from shapes; integer, no derivative) ---------------------


def _on(like: Any, values: Any) -> Any:
    xp = fnp._xp(like)
    return values if xp is numpy else xp.asarray(values)


def diag_indices_from(arr: Any) -> tuple[Any, ...]:
    """``numpy.diag_indices_from``: the indices of the main diagonal of ``arr``.

    Example:
        >>> import numpy as np
        >>> [i.tolist() for i in diag_indices_from(np.zeros((2, 2)))]
        [[0, 1], [0, 1]]
    """
    arr = _arr(arr)
    shape = fnp.shape(arr)
    if len(shape) < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return tuple(_on(arr, i) for i in numpy.diag_indices(shape[0], len(shape)))


def _tri_indices_from(arr: Any, k: int, which: Any) -> tuple[Any, ...]:
    arr = _arr(arr)
    if fnp.ndim(arr) != 2:
        raise ValueError("input array must be 2-d")
    n, m = fnp.shape(arr)
    return tuple(_on(arr, i) for i in which(n, k=k, m=m))


def tril_indices_from(arr: Any, k: int = 0) -> tuple[Any, Any]:
    """``numpy.tril_indices_from``: the indices of the lower triangle of a 2-d ``arr``.

    Example:
        >>> import numpy as np
        >>> [i.tolist() for i in tril_indices_from(np.zeros((2, 2)))]
        [[0, 1, 1], [0, 0, 1]]
    """
    return _tri_indices_from(arr, k, numpy.tril_indices)


def triu_indices_from(arr: Any, k: int = 0) -> tuple[Any, Any]:
    """``numpy.triu_indices_from``: the indices of the upper triangle of a 2-d ``arr``.

    Example:
        >>> import numpy as np
        >>> [i.tolist() for i in triu_indices_from(np.zeros((2, 2)))]
        [[0, 0, 1], [0, 1, 1]]
    """
    return _tri_indices_from(arr, k, numpy.triu_indices)


def _int_index(x: Any, like: Any = None) -> Any:
    x = _arr(x, like)
    if fnp._dtype(x).kind not in "iu":
        raise TypeError("only int indices permitted")
    return fnp.astype(x, _INTP)


def _dims(shape: Any) -> tuple[int, ...]:
    return tuple(int(d) for d in numpy.atleast_1d(numpy.asarray(shape)).ravel())


def ravel_multi_index(
    multi_index: Any, dims: Any, mode: str | tuple[str, ...] = "raise", order: str = "C"
) -> Any:
    """``numpy.ravel_multi_index``: flat indices of coordinate arrays into ``dims``
    (``mode`` 'raise', 'wrap' or 'clip', one for all or one per dimension).

    Example:
        >>> import numpy as np
        >>> ravel_multi_index((np.array([1, 2]), np.array([0, 3])), (3, 4)).tolist()
        [4, 11]
    """
    dims = _dims(dims)
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    if len(multi_index) != len(dims):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
    modes = (mode,) * len(dims) if isinstance(mode, str) else tuple(mode)
    if len(modes) != len(dims):
        raise ValueError("mode must be a string or a sequence of strings, one per dimension")
    like = next((i for i in multi_index if hasattr(i, "dtype")), None)
    indices = fnp.broadcast_arrays(*[_int_index(i, like) for i in multi_index])
    strides = [
        math.prod(dims[i + 1 :]) if order == "C" else math.prod(dims[:i]) for i in range(len(dims))
    ]
    total: Any = None
    for idx, n, s, m in zip(indices, dims, strides, modes):
        if m == "wrap":
            idx = fnp.remainder(idx, n)
        elif m == "clip":
            idx = fnp.clip(idx, 0, n - 1)
        elif m == "raise":
            values = _host(fnp.peek(idx))
            if values.size and bool(((values < 0) | (values >= n)).any()):
                raise ValueError("invalid entry in coordinates array")
        else:
            raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {m!r})")
        term = idx * s
        total = term if total is None else total + term
    return fnp.astype(total, _INTP)


def unravel_index(indices: Any, shape: Any, order: str = "C") -> tuple[Any, ...]:
    """``numpy.unravel_index``: coordinate arrays of flat ``indices`` into ``shape``.

    Example:
        >>> import numpy as np
        >>> [c.tolist() for c in unravel_index(np.array([5, 7]), (2, 4))]
        [[1, 1], [1, 3]]
    """
    dims = _dims(shape)
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    indices = _int_index(indices)
    size = math.prod(dims)
    values = _host(fnp.peek(indices))
    bad = values[(values < 0) | (values >= size)] if values.size else values[:0]
    if bad.size:
        raise ValueError(f"index {int(bad[0])} is out of bounds for array with size {size}")
    return _unravel(indices, dims, order)


# -- phase unwrapping ------------------------------------------------------------------------


def unwrap(p: Any, discont: Any = None, axis: int = -1, *, period: float = 2 * numpy.pi) -> Any:
    """``numpy.unwrap``: undo jumps larger than ``discont`` (default ``period / 2``) along
    ``axis`` by adding multiples of ``period``; the derivative is the identity (the
    corrections are piecewise constant), as in ``jax.numpy.unwrap``.

    Example:
        >>> import numpy as np
        >>> unwrap(np.array([0.0, 3.0, 6.0]), period=4.0).tolist()
        [0.0, -1.0, -2.0]
    """
    p = _arr(p)
    nd = fnp.ndim(p)
    axis = fnp._normalize_axis(axis, nd)
    dd = fnp.diff(p, axis=axis)
    if discont is None:
        discont = period / 2
    dtype = _result_type(dd, period)
    if dtype.kind in "iu":
        high, rem = divmod(period, 2)
        ambiguous = rem == 0
    else:
        high, ambiguous = period / 2, True
    low = -high
    ddmod = fnp.mod(dd - low, period) + low
    if ambiguous:
        ddmod = fnp.where(fnp.logical_and(fnp.equal(ddmod, low), dd > 0), high, ddmod)
    correction = fnp.where(fnp.abs(dd) < discont, 0, ddmod - dd)
    head = [slice(None)] * nd
    tail = [slice(None)] * nd
    head[axis], tail[axis] = slice(0, 1), slice(1, None)
    up = fnp.astype(p, dtype)
    rest = fnp.getitem(up, tuple(tail)) + fnp.cumsum(correction, axis=axis)
    return fnp.concatenate([fnp.getitem(up, tuple(head)), fnp.astype(rest, dtype)], axis=axis)


# -- sorting complex numbers, dropping imaginary parts -------------------------------------


def sort_complex(a: Any) -> Any:
    """``numpy.sort_complex``: sort by real part, then imaginary part (a complex result;
    differentiable by gather like :func:`fnp.sort`).

    Example:
        >>> import numpy as np
        >>> sort_complex(np.array([1 + 2j, 1 - 1j, 0j])).tolist()
        [0j, (1-1j), (1+2j)]
    """
    b = fnp.sort(_arr(a), axis=-1)
    dt = fnp._dtype(b)
    if dt.kind == "c":
        return b
    target = {"b": "F", "h": "F", "B": "F", "H": "F", "g": "G"}.get(dt.char, "D")
    return fnp.astype(b, numpy.dtype(target))


def real_if_close(a: Any, tol: float = 100) -> Any:
    """``numpy.real_if_close``: the real part when every imaginary part is within ``tol``
    (machine epsilons if ``tol > 1``) of zero.  The choice is read from the values: under
    ``vmap`` it must be the same for every batch element.

    Example:
        >>> import numpy as np
        >>> real_if_close(np.array([2.0 + 1e-16j, 1.0 + 0j])).tolist()
        [2.0, 1.0]
    """
    a = _arr(a)
    dt = fnp._dtype(a)
    if dt.kind != "c":
        return a
    if tol > 1:
        tol = numpy.finfo(dt).eps * tol
    close = fnp.all(fnp.abs(fnp.imag(a)) < tol)
    fix = "the imaginary parts must be negligible for all batch elements or for none"
    if _same_across_batch(close, "real_if_close(a)", fix):
        return fnp.real(a)
    return a


# -- comparing whole arrays ----------------------------------------------------------------


def _boolean(result: Any, *inputs: Any) -> Any:
    """A Python bool for plain arrays (as NumPy), a 0-d boolean tracer otherwise."""
    if any(isinstance(x, Tracer) for x in inputs):
        return result
    return bool(_host(result))


def array_equal(a1: Any, a2: Any, equal_nan: bool = False) -> Any:
    """``numpy.array_equal``: same shape and elements.  A Python bool for arrays; on
    tracers a 0-d boolean tracer (``bool()`` works on it outside ``vmap``).

    Example:
        >>> import numpy as np
        >>> array_equal(np.array([1.0, np.nan]), np.array([1.0, np.nan]), equal_nan=True)
        True
    """
    a1, a2 = _arr(a1), _arr(a2, a1)
    if fnp.shape(a1) != fnp.shape(a2):
        return False
    same = fnp.equal(a1, a2)
    if equal_nan and fnp._dtype(a1).kind in "fc" and fnp._dtype(a2).kind in "fc":
        same = fnp.logical_or(same, fnp.logical_and(fnp.isnan(a1), fnp.isnan(a2)))
    return _boolean(fnp.all(same), a1, a2)


def array_equiv(a1: Any, a2: Any) -> Any:
    """``numpy.array_equiv``: equal after broadcasting (a Python bool for arrays, a 0-d
    boolean tracer on tracers).

    Example:
        >>> import numpy as np
        >>> array_equiv(np.array([1, 2]), np.array([[1, 2], [1, 2]]))
        True
    """
    a1, a2 = _arr(a1), _arr(a2, a1)
    try:
        numpy.broadcast_shapes(fnp.shape(a1), fnp.shape(a2))
    except ValueError:
        return False
    return _boolean(fnp.all(fnp.equal(a1, a2)), a1, a2)


# -- sorted sets (sizes read from the values) ------------------------------------------------


def unique(
    ar: Any,
    return_index: bool = False,
    return_inverse: bool = False,
    return_counts: bool = False,
    axis: int | None = None,
    *,
    equal_nan: bool = True,
    sorted: bool = True,  # noqa: A002
) -> Any:
    """``numpy.unique`` (``axis=None`` only): the sorted distinct values, and optionally the
    first indices, the inverse (shaped like ``ar``) and the counts.  Their number is read
    from the values (the same for every ``vmap`` batch element); the values are
    differentiable by gather (like ``jax.numpy.unique`` with ``size``).

    Example:
        >>> import numpy as np
        >>> values, counts = unique(np.array([3, 1, 3, 2]), return_counts=True)
        >>> values.tolist(), counts.tolist()
        ([1, 2, 3], [1, 1, 2])
    """
    if axis is not None:
        raise NotImplementedError("unique: only axis=None is supported")
    ar = _arr(ar)
    in_shape = fnp.shape(ar)
    flat = fnp.ravel(ar)
    n = fnp.shape(flat)[0]
    perm = fnp.astype(fnp.argsort(flat, kind="stable"), _INTP)
    s = fnp.take(flat, perm)
    if n:
        prev, cur = fnp.getitem(s, slice(None, -1)), fnp.getitem(s, slice(1, None))
        new = fnp.not_equal(cur, prev)
        if equal_nan and fnp._dtype(s).kind in "fc":
            new = fnp.logical_and(new, fnp.logical_not(fnp.isnan(cur) & fnp.isnan(prev)))
        flags = fnp.concatenate([fnp.ones((1,), bool, like=flat), new])
    else:
        flags = fnp.zeros((0,), bool, like=flat)
    first = _true_positions(flags, "unique(ar)")
    out = [fnp.take(s, first)]
    if return_index:
        out.append(fnp.take(perm, first))
    if return_inverse:
        groups = fnp.cumsum(fnp.astype(flags, _INTP)) - 1
        inverse = fnp.take(groups, fnp.astype(fnp.argsort(perm), _INTP))
        out.append(fnp.reshape(fnp.astype(inverse, _INTP), in_shape))
    if return_counts:
        ends = fnp.concatenate([first, fnp.full((1,), n, _INTP, like=first)])
        out.append(fnp.astype(fnp.diff(ends), _INTP))
    return out[0] if len(out) == 1 else tuple(out)


def union1d(ar1: Any, ar2: Any) -> Any:
    """``numpy.union1d``: the sorted distinct values of both arrays.

    Example:
        >>> import numpy as np
        >>> union1d(np.array([3, 1]), np.array([2, 1])).tolist()
        [1, 2, 3]
    """
    ar1 = _arr(ar1)
    return unique(fnp.concatenate([fnp.ravel(ar1), fnp.ravel(_arr(ar2, ar1))]))


def _sorted_pairs(ar1: Any, ar2: Any, assume_unique: bool) -> tuple[Any, Any, Any]:
    """Both arrays made unique (unless assumed) and sorted together, with a mask of the
    values that appear twice in a row (in both arrays)."""
    ar1 = fnp.ravel(_arr(ar1))
    ar2 = fnp.ravel(_arr(ar2, ar1))
    if not assume_unique:
        ar1, ar2 = unique(ar1), unique(ar2)
    aux = fnp.concatenate([ar1, ar2])
    aux = fnp.take(aux, fnp.astype(fnp.argsort(aux, kind="stable"), _INTP))
    return ar1, ar2, aux


def intersect1d(ar1: Any, ar2: Any, assume_unique: bool = False) -> Any:
    """``numpy.intersect1d`` (without ``return_indices``): the sorted values in both.

    Example:
        >>> import numpy as np
        >>> intersect1d(np.array([3, 1, 1]), np.array([1, 2, 3])).tolist()
        [1, 3]
    """
    _, _, aux = _sorted_pairs(ar1, ar2, assume_unique)
    if fnp.shape(aux)[0] < 2:
        return fnp.getitem(aux, slice(0, 0))
    dup = fnp.equal(fnp.getitem(aux, slice(1, None)), fnp.getitem(aux, slice(None, -1)))
    return fnp.take(aux, _true_positions(dup, "intersect1d(ar1, ar2)"))


def setxor1d(ar1: Any, ar2: Any, assume_unique: bool = False) -> Any:
    """``numpy.setxor1d``: the sorted values in exactly one of the arrays.

    Example:
        >>> import numpy as np
        >>> setxor1d(np.array([1, 2, 3]), np.array([2, 3, 4])).tolist()
        [1, 4]
    """
    _, _, aux = _sorted_pairs(ar1, ar2, assume_unique)
    if fnp.shape(aux)[0] == 0:
        return aux
    edge = fnp.ones((1,), bool, like=aux)
    differs = fnp.not_equal(fnp.getitem(aux, slice(1, None)), fnp.getitem(aux, slice(None, -1)))
    flag = fnp.concatenate([edge, differs, edge])
    lone = fnp.logical_and(fnp.getitem(flag, slice(1, None)), fnp.getitem(flag, slice(None, -1)))
    return fnp.take(aux, _true_positions(lone, "setxor1d(ar1, ar2)"))


def setdiff1d(ar1: Any, ar2: Any, assume_unique: bool = False) -> Any:
    """``numpy.setdiff1d``: the values of ``ar1`` not in ``ar2`` (sorted and distinct
    unless ``assume_unique``, which keeps ``ar1``'s order).

    Example:
        >>> import numpy as np
        >>> setdiff1d(np.array([4, 1, 2, 1]), np.array([2, 5])).tolist()
        [1, 4]
    """
    a1 = fnp.ravel(_arr(ar1))
    a2 = fnp.ravel(_arr(ar2, a1))
    if not assume_unique:
        a1 = unique(a1)
    if fnp.shape(a2)[0] == 0 or fnp.shape(a1)[0] == 0:
        return a1
    hit = fnp.any(fnp.equal(fnp.reshape(a1, (-1, 1)), fnp.reshape(a2, (1, -1))), axis=1)
    return fnp.take(a1, _true_positions(fnp.logical_not(hit), "setdiff1d(ar1, ar2)"))
