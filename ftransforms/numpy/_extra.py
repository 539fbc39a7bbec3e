"""A further set of NumPy functions, written from the ops that already have every rule
(so each is differentiable and batchable without a rule of its own), plus clear errors for
NumPy's in-place functions.  Re-exported by :mod:`ftransforms.numpy`."""

from __future__ import annotations

import math
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import InPlaceError

__all__ = [
    "append",
    "copyto",
    "count_nonzero",
    "cross",
    "cumulative_prod",
    "cumulative_sum",
    "diff",
    "dsplit",
    "fill_diagonal",
    "hsplit",
    "iscomplex",
    "iscomplexobj",
    "isclose",
    "isneginf",
    "isposinf",
    "isreal",
    "isrealobj",
    "linspace_traced",
    "matrix_transpose",
    "median",
    "nanprod",
    "nanstd",
    "nanvar",
    "place",
    "put",
    "put_along_axis",
    "putmask",
    "rollaxis",
    "trapezoid",
    "vecdot",
    "vsplit",
]


def diff(a: Any, n: int = 1, axis: int = -1, prepend: Any = None, append: Any = None) -> Any:
    """``numpy.diff``."""
    axis = fnp._normalize_axis(axis, fnp.ndim(a))
    parts = []
    for extra in (prepend, a, append):
        if extra is None:
            continue
        if extra is not a and fnp.ndim(extra) == 0:
            shape = list(fnp.shape(a))
            shape[axis] = 1
            extra = fnp.broadcast_to(extra, tuple(shape))
        parts.append(extra)
    a = fnp.concatenate(parts, axis=axis) if len(parts) > 1 else a
    lead = (slice(None),) * axis
    for _ in range(n):
        a = fnp.getitem(a, lead + (slice(1, None),)) - fnp.getitem(a, lead + (slice(None, -1),))
    return a


def cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: Any = None):
    """``numpy.cross`` of 3-vectors."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a = fnp.moveaxis(a, axisa, -1)
    b = fnp.moveaxis(b, axisb, -1)
    if fnp.shape(a)[-1] != 3 or fnp.shape(b)[-1] != 3:
        raise ValueError("cross: only 3-vectors are supported (the last axis must have size 3)")
    a0, a1, a2 = (fnp.getitem(a, (Ellipsis, i)) for i in range(3))
    b0, b1, b2 = (fnp.getitem(b, (Ellipsis, i)) for i in range(3))
    out = fnp.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)
    return fnp.moveaxis(out, -1, axisc)


def vecdot(x1: Any, x2: Any, axis: int = -1) -> Any:
    """``numpy.linalg.vecdot`` / ``numpy.vecdot``: sum(conj(x1) * x2) along ``axis``."""
    return fnp.sum(fnp.conj(x1) * x2, axis=axis)


def isclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False):
    """``numpy.isclose`` (no derivative: a boolean result)."""
    finite = fnp.logical_and(fnp.isfinite(a), fnp.isfinite(b))
    close = fnp.logical_and(finite, fnp.abs(a - b) <= atol + rtol * fnp.abs(b))
    close = fnp.logical_or(close, a == b)  # infinities are close only to themselves
    if equal_nan:
        close = fnp.logical_or(close, fnp.logical_and(fnp.isnan(a), fnp.isnan(b)))
    return close


def count_nonzero(a: Any, axis: Any = None, *, keepdims: bool = False) -> Any:
    """``numpy.count_nonzero``."""
    return fnp.sum(fnp.not_equal(a, 0), axis=axis, keepdims=keepdims)


def _split_along(a: Any, indices_or_sections: Any, axis: int, name: str) -> list:
    if fnp.ndim(a) <= axis:
        raise ValueError(f"{name} only works on arrays of {axis + 1} or more dimensions")
    return fnp.split(a, indices_or_sections, axis=axis)


def hsplit(a: Any, indices_or_sections: Any) -> list:
    """``numpy.hsplit``."""
    return fnp.split(a, indices_or_sections, axis=1 if fnp.ndim(a) > 1 else 0)


def vsplit(a: Any, indices_or_sections: Any) -> list:
    """``numpy.vsplit``."""
    return _split_along(a, indices_or_sections, 0 if fnp.ndim(a) >= 2 else 9, "vsplit")


def dsplit(a: Any, indices_or_sections: Any) -> list:
    """``numpy.dsplit``."""
    return _split_along(a, indices_or_sections, 2, "dsplit")


def rollaxis(a: Any, axis: int, start: int = 0) -> Any:
    """``numpy.rollaxis``."""
    rank = fnp.ndim(a)
    axis = fnp._normalize_axis(axis, rank)
    start = start + rank if start < 0 else start
    if start > axis:
        start -= 1
    return fnp.moveaxis(a, axis, start) if axis != start else a


def matrix_transpose(x: Any) -> Any:
    """``numpy.matrix_transpose``: swap the last two axes."""
    return fnp.swapaxes(x, -1, -2)


def cumulative_sum(x: Any, *, axis: Any = None, dtype: Any = None, include_initial: bool = False):
    """``numpy.cumulative_sum``."""
    return _cumulative(fnp.cumsum, 0, x, axis, dtype, include_initial)


def cumulative_prod(x: Any, *, axis: Any = None, dtype: Any = None, include_initial: bool = False):
    """``numpy.cumulative_prod``."""
    return _cumulative(fnp.cumprod, 1, x, axis, dtype, include_initial)


def _cumulative(fn, initial, x, axis, dtype, include_initial):
    if axis is None:
        if fnp.ndim(x) > 1:
            raise ValueError("cumulative_sum/prod: axis is required for arrays of rank > 1")
        axis = 0
    out = fn(x, axis=axis, dtype=dtype)
    if include_initial:
        shape = list(fnp.shape(out))
        shape[axis] = 1
        out = fnp.concatenate([fnp.full_like(out, initial, shape=tuple(shape)), out], axis=axis)
    return out


def _nan_to(x: Any, value: float) -> Any:
    return fnp.where(fnp.isnan(x), value, x)


def nanprod(a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:
    """``numpy.nanprod``: NaNs count as 1."""
    return fnp.prod(_nan_to(a, 1.0), axis=axis, dtype=dtype, keepdims=keepdims)


def nanvar(a: Any, axis: Any = None, dtype: Any = None, ddof: int = 0, keepdims: bool = False):
    """``numpy.nanvar``: the variance of the non-NaN elements."""
    valid = fnp.logical_not(fnp.isnan(a))
    count = fnp.sum(valid, axis=axis, keepdims=True)
    mean = fnp.sum(_nan_to(a, 0.0), axis=axis, keepdims=True) / count
    sq = fnp.where(valid, (a - mean) * (a - mean), 0.0)
    out = fnp.sum(sq, axis=axis, keepdims=keepdims) / (
        fnp.sum(valid, axis=axis, keepdims=keepdims) - ddof
    )
    return out if dtype is None else fnp.astype(out, dtype)


def nanstd(a: Any, axis: Any = None, dtype: Any = None, ddof: int = 0, keepdims: bool = False):
    """``numpy.nanstd``."""
    return fnp.sqrt(nanvar(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims))


def median(a: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """``numpy.median`` (the derivative goes to the middle element(s), as in JAX)."""
    if axis is None:
        flat = fnp.ravel(a)
        out = median(flat, axis=0)
        return fnp.reshape(out, (1,) * fnp.ndim(a)) if keepdims else out
    axes = fnp._normalize_axes(axis, fnp.ndim(a))
    if len(axes) > 1:
        rest = [i for i in range(fnp.ndim(a)) if i not in axes]
        moved = fnp.transpose(a, rest + list(axes))
        shape = fnp.shape(moved)
        lead = shape[: len(rest)]
        out = median(fnp.reshape(moved, lead + (math.prod(shape[len(rest) :]),)), axis=-1)
        if keepdims:
            out = fnp.reshape(out, tuple(1 if i in axes else n for i, n in enumerate(fnp.shape(a))))
        return out
    ax = axes[0]
    s = fnp.sort(a, axis=ax)
    n = fnp.shape(a)[ax]
    lead = (slice(None),) * ax
    lo = fnp.getitem(s, lead + (slice((n - 1) // 2, (n - 1) // 2 + 1),))
    hi = fnp.getitem(s, lead + (slice(n // 2, n // 2 + 1),))
    out = (lo + hi) / 2
    return out if keepdims else fnp.squeeze(out, axis=ax)


def trapezoid(y: Any, x: Any = None, dx: float = 1.0, axis: int = -1) -> Any:
    """``numpy.trapezoid``."""
    axis = fnp._normalize_axis(axis, fnp.ndim(y))
    lead = (slice(None),) * axis
    left = fnp.getitem(y, lead + (slice(None, -1),))
    right = fnp.getitem(y, lead + (slice(1, None),))
    if x is None:
        return fnp.sum((left + right) * (dx / 2.0), axis=axis)
    d = diff(x) if fnp.ndim(x) == 1 else diff(x, axis=axis)
    if fnp.ndim(x) == 1 and fnp.ndim(y) > 1:
        d = fnp.reshape(d, tuple(-1 if i == axis else 1 for i in range(fnp.ndim(y))))
    return fnp.sum(d * (left + right) / 2.0, axis=axis)


def linspace_traced(start: Any, stop: Any, num: int = 50, endpoint: bool = True, **kw: Any):
    """``numpy.linspace`` with traced end points (``np.linspace(tracer, ...)``)."""
    dtype = kw.pop("dtype", None)
    axis = kw.pop("axis", 0)
    if kw.pop("retstep", False) or kw:
        raise TypeError("linspace on tracers supports num, endpoint, dtype and axis")
    steps = num - 1 if endpoint else num
    frac = numpy.arange(num, dtype=numpy.float64) / max(steps, 1)
    start, stop = fnp.asarray(start), fnp.asarray(stop)
    shape = (num,) + (1,) * max(fnp.ndim(start), fnp.ndim(stop))
    out = start + (stop - start) * numpy.reshape(frac, shape).astype(
        numpy.result_type(fnp._dtype(start), fnp._dtype(stop), numpy.float32)
    )
    out = fnp.moveaxis(out, 0, axis) if axis else out
    return out if dtype is None else fnp.astype(out, dtype)


def isposinf(x: Any) -> Any:
    """``numpy.isposinf``."""
    return fnp.logical_and(fnp.isinf(x), fnp.logical_not(fnp.signbit(x)))


def isneginf(x: Any) -> Any:
    """``numpy.isneginf``."""
    return fnp.logical_and(fnp.isinf(x), fnp.signbit(x))


def isreal(x: Any) -> Any:
    """``numpy.isreal``."""
    return fnp.imag(x) == 0


def iscomplex(x: Any) -> Any:
    """``numpy.iscomplex``."""
    return fnp.imag(x) != 0


def isrealobj(x: Any) -> bool:
    """``numpy.isrealobj``."""
    return fnp._dtype(x).kind != "c"


def iscomplexobj(x: Any) -> bool:
    """``numpy.iscomplexobj``."""
    return fnp._dtype(x).kind == "c"


def append(arr: Any, values: Any, axis: int | None = None) -> Any:
    """``numpy.append``."""
    if axis is None:
        return fnp.concatenate([fnp.ravel(arr), fnp.ravel(values)])
    return fnp.concatenate([arr, values], axis=axis)


def _in_place(name: str):
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise InPlaceError(
            f"numpy.{name} writes into its array argument, and tracers are immutable; use "
            f"the functional form x = x.at[index].set(v) (or fnp.where(mask, v, x))"
        )

    refuse.__name__ = name
    refuse.__doc__ = f"``numpy.{name}`` writes in place: refused on tracers with the fix."
    return refuse


copyto = _in_place("copyto")
put = _in_place("put")
putmask = _in_place("putmask")
place = _in_place("place")
fill_diagonal = _in_place("fill_diagonal")
put_along_axis = _in_place("put_along_axis")
