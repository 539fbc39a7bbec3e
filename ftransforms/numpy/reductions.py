"""Reductions: sums, products, extrema, means and variances, their NaN-ignoring variants,
cumulative sums and products, differences, counts (NumPy's "Sums, products,
differences", "Extrema" and "Averages and variances").
"""

from __future__ import annotations

import builtins
import math
import warnings
from typing import Any

import numpy

import ftransforms.numpy.helpers as helpers
from ftransforms.core.errors import UFuncTypeError
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.creation import as_operand, full, full_like
from ftransforms.numpy.dispatch import implements
from ftransforms.numpy.dtypes import iinfo, inf
from ftransforms.numpy.helpers import (
    dtype_of,
    invalid_in_rows,
    ndim,
    no_extra_args,
    normalize_axes,
    normalize_axis,
    shape,
    size,
)
from ftransforms.numpy.indexing import getitem, where
from ftransforms.numpy.manipulation import broadcast_to, concatenate, ravel, reshape
from ftransforms.numpy.ufuncs import (
    astype,
    conj,
    float_input,
    imag,
    isnan,
    logical_and,
    logical_not,
    maximum,
    minimum,
    not_equal,
    real,
    sqrt,
)
from ftransforms.ops import reductions as _red

__all__ = [
    "sum",
    "prod",
    "max",
    "min",
    "amax",
    "amin",
    "any",
    "all",
    "mean",
    "var",
    "std",
    "argmax",
    "argmin",
    "cumsum",
    "diff",
    "count_nonzero",
    "cumulative_sum",
    "cumulative_prod",
    "nanprod",
    "nanvar",
    "nanstd",
    "trapezoid",
    "cumprod",
    "ptp",
    "average",
    "nansum",
    "nanmean",
    "nanmax",
    "nanmin",
    "nanargmax",
    "nanargmin",
    "nancumsum",
    "nancumprod",
]


def _prepare(x: Any, dtype: Any) -> Any:
    # a list or tuple (np.prod(shape, dtype=int)) is an array before it is cast
    return x if dtype is None else astype(as_operand(x), dtype)


def _unpromoted(x: Any, dtype: Any, kw: dict) -> Any:
    """``jax.numpy``'s ``promote_integers=False`` (popped from ``kw``): a sum/product of
    integers in their own dtype (bool in int32, as JAX), where NumPy widens them to
    int64.  The default ``True`` is NumPy's rule."""
    if kw.pop("promote_integers", True) or dtype is not None:
        return dtype
    kind = dtype_of(as_operand(x)).kind
    if kind == "b":
        return numpy.int32
    return dtype_of(as_operand(x)) if kind in "iu" else None


def _in_dtype(out: Any, dtype: Any) -> Any:
    """A sum or product (running or not) in the requested ``dtype=``: NumPy accumulates
    in it, so ``sum(int8s, dtype=np.int8)`` wraps; the primitives accumulate a narrow
    integer in int64 (NumPy's default accumulator), and integer ``+``/``*`` wrap alike
    modulo ``2**bits``, so the cast of that result is NumPy's wrapped value."""
    if dtype is None or dtype_of(out) == numpy.dtype(dtype):
        return out
    return astype(out, dtype)


@implements(numpy.sum)
def sum(x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False, **kw: Any) -> Any:  # noqa: A001
    """``numpy.sum`` over ``axis`` (all axes by default), with ``where=`` and ``initial=``
    (and ``jax.numpy``'s ``promote_integers=False``: integers summed in their own dtype).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> x = np.array([[1.0, 2.0], [3.0, 4.0]])
        >>> fnp.sum(x, axis=0).tolist(), float(fnp.sum(x, where=x > 1.5))
        ([4.0, 6.0], 9.0)
        >>> ft.grad(lambda x: fnp.sum(x ** 2))(np.array([1.0, 2.0, 3.0]))
        array([2., 4., 6.])
    """
    dtype = _unpromoted(x, dtype, kw)
    x = _prepare(x, dtype)
    if kw and _in_numpys_order(x, kw):
        return _in_dtype(_masked_sum(x, axis, keepdims, kw), dtype)
    x, initial = _masked("sum", x, kw, 0)
    no_extra_args("sum", kw)
    out = _red.reduce_sum_p.bind(x, axis=normalize_axes(axis, ndim(x)), keepdims=keepdims)
    return _in_dtype(out if initial is None else out + _initial_in(initial, out), dtype)


@implements(numpy.prod)
def prod(x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False, **kw: Any) -> Any:
    """``numpy.prod``: the product over ``axis``; its derivative is exact where elements are
    zero (the product of the other elements, not a division by zero); ``where=`` and
    ``initial=`` as NumPy, ``promote_integers=`` as ``jax.numpy``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> float(fnp.prod(np.array([2.0, 3.0, 4.0])))
        24.0
        >>> ft.grad(fnp.prod)(np.array([2.0, 0.0, 4.0]))
        array([0., 8., 0.])
    """
    dtype = _unpromoted(x, dtype, kw)
    x = _prepare(x, dtype)
    x, initial = _masked("prod", x, kw, 1)
    no_extra_args("prod", kw)
    out = _red.reduce_prod_p.bind(x, axis=normalize_axes(axis, ndim(x)), keepdims=keepdims)
    return _in_dtype(out if initial is None else out * _initial_in(initial, out), dtype)


@implements(numpy.amax, numpy.max)
def max(x: Any, axis: Any = None, keepdims: bool = False, **kw: Any) -> Any:  # noqa: A001
    """``numpy.max`` (also ``fnp.amax``), with ``where=`` and ``initial=``; tied maxima share
    the derivative equally.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> x = np.array([1.0, 3.0, 3.0, 2.0])
        >>> float(fnp.max(x)), float(fnp.max(x, where=x < 3.0, initial=0.0))
        (3.0, 2.0)
        >>> ft.grad(fnp.max)(x)
        array([0. , 0.5, 0.5, 0. ])
    """
    x, initial = _masked("max", x, kw, None)
    no_extra_args("max", kw)
    axes = normalize_axes(axis, ndim(x))
    if initial is not None and _reduced_count(x, axes) == 0:
        return _initial_only(x, axes, keepdims, initial)
    out = _red.reduce_max_p.bind(x, axis=axes, keepdims=keepdims)
    return out if initial is None else maximum(_initial_in(initial, out), out)


@implements(numpy.amin, numpy.min)
def min(x: Any, axis: Any = None, keepdims: bool = False, **kw: Any) -> Any:  # noqa: A001
    """``numpy.min`` (also ``fnp.amin``), with ``where=`` and ``initial=``; tied minima share
    the derivative equally.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> x = np.array([2.0, -1.0, 5.0])
        >>> float(fnp.min(x)), float(fnp.min(x, where=x > 0, initial=10.0))
        (-1.0, 2.0)
        >>> ft.grad(fnp.min)(x)
        array([0., 1., 0.])
    """
    x, initial = _masked("min", x, kw, None)
    no_extra_args("min", kw)
    axes = normalize_axes(axis, ndim(x))
    if initial is not None and _reduced_count(x, axes) == 0:
        return _initial_only(x, axes, keepdims, initial)
    out = _red.reduce_min_p.bind(x, axis=axes, keepdims=keepdims)
    return out if initial is None else minimum(_initial_in(initial, out), out)


amax, amin = max, min


def _initial_only(x: Any, axes: tuple, keepdims: bool, initial: Any) -> Any:
    """A max/min over no elements with ``initial=``: ``initial`` (in ``x``'s dtype) in
    the result's shape, as NumPy gives it (the reduction itself has no identity)."""
    s = shape(x)
    out = tuple(1 if i in axes else n for i, n in enumerate(s) if keepdims or i not in axes)
    return full(out, _initial_in(initial, x), dtype=dtype_of(x))


@implements(numpy.any)
def any(x: Any, axis: Any = None, keepdims: bool = False, *, where: Any = True) -> Any:  # noqa: A001
    """``numpy.any``: whether any element along ``axis`` is true (a boolean, no derivative);
    elements outside ``where=`` count as false.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> x = np.array([[True, False], [False, False]])
        >>> bool(fnp.any(x)), fnp.any(x, axis=1).tolist()
        (True, [True, False])
        >>> ft.vmap(fnp.any)(x).tolist()
        [True, False]
    """
    if where is not True:
        x = _where_bool(where, x, False)
    return _red.reduce_any_p.bind(x, axis=normalize_axes(axis, ndim(x)), keepdims=keepdims)


@implements(numpy.all)
def all(x: Any, axis: Any = None, keepdims: bool = False, *, where: Any = True) -> Any:  # noqa: A001
    """``numpy.all``: whether every element along ``axis`` is true (a boolean, no
    derivative); elements outside ``where=`` count as true.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> x = np.array([[True, False], [True, True]])
        >>> bool(fnp.all(x)), fnp.all(x, axis=0).tolist()
        (False, [True, False])
        >>> ft.vmap(fnp.all)(x).tolist()
        [False, True]
    """
    if where is not True:
        x = _where_bool(where, x, True)
    return _red.reduce_all_p.bind(x, axis=normalize_axes(axis, ndim(x)), keepdims=keepdims)


def _where_bool(mask: Any, x: Any, fill: bool) -> Any:
    """``x`` as booleans, ``fill`` where ``mask`` is false (any/all's ``where=``)."""
    x = x if dtype_of(x).kind == "b" else not_equal(x, 0)
    return where(mask, x, full((), fill, dtype=bool, like=x))


def _reduced_count(x: Any, axis: Any) -> int:
    s = shape(x)
    return math.prod(s[a] for a in normalize_axes(axis, len(s)))


@implements(numpy.mean)
def mean(x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False, **kw: Any) -> Any:
    """``numpy.mean`` over ``axis``, with ``where=`` (the mean of the selected elements);
    integer inputs give float64.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> x = np.array([[1.0, 2.0], [3.0, 6.0]])
        >>> fnp.mean(x, axis=1).tolist(), float(fnp.mean(x, where=x < 5.0))
        ([1.5, 4.5], 2.0)
        >>> ft.grad(fnp.mean)(np.array([1.0, 2.0, 3.0, 4.0]))
        array([0.25, 0.25, 0.25, 0.25])
    """
    mask = kw.get("where", True)
    if mask is True or mask is None:
        if _reduced_count(x, axis) == 0:  # NumPy's warning before its 0 / 0
            warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=2)
    else:
        counts = sum(broadcast_to(mask, shape(x)), axis=axis)
        helpers.warn_for_data(counts == 0, "Mean of empty slice")
    if dtype is None and dtype_of(x) == numpy.float16:
        # NumPy's mean sums and divides float16 in float32 and rounds the quotient once
        # (its var and std take their mean in float16: _mean_in_dtype)
        return astype(_mean_in_dtype(x, axis, numpy.float32, keepdims, **kw), numpy.float16)
    return _mean_in_dtype(x, axis, dtype, keepdims, **kw)


def _mean_in_dtype(
    x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False, **kw: Any
) -> Any:
    """:func:`mean` computed in ``dtype`` (the input's float dtype when None)."""
    mask = kw.pop("where", None)
    no_extra_args("mean", kw)
    x = float_input(x, dtype)
    if dtype is not None and numpy.dtype(dtype).kind in "biu":
        # NumPy: the sum in dtype (it wraps), divided, the quotient cast back (truncated)
        mask = True if mask is None else mask
        count = sum(broadcast_to(mask, shape(x)), axis=axis, keepdims=keepdims)
        total = sum(x, axis=axis, dtype=dtype, keepdims=keepdims, where=mask)
        return astype(total / count, dtype)
    if mask is None or mask is True:
        return _by_count(sum(x, axis=axis, keepdims=keepdims), _reduced_count(x, axis))
    count = sum(broadcast_to(mask, shape(x)), axis=axis, keepdims=keepdims)
    total = sum(x, axis=axis, keepdims=keepdims, where=mask)
    if dtype_of(total) == numpy.complex64:
        return _by_count(total, count)
    return total / astype(count, dtype_of(x))


def _by_count(total: Any, count: Any) -> Any:
    """A mean's sum divided by its count as NumPy divides it: the count is an ``intp``, so
    a complex64 sum is divided in complex128 and rounded back (the complex64 quotient,
    NumPy's through a reciprocal, differs in the last bit: 1.6666667 for 5 / 3 where
    NumPy's mean gives 1.6666666); real quotients round the same either way."""
    if dtype_of(total) == numpy.complex64:
        return astype(astype(total, numpy.complex128) / count, numpy.complex64)
    return total / count


_mean = _mean_in_dtype  # (var's parameters of these names hide the functions)
_select = where


@implements(numpy.var)
def var(
    x: Any,
    axis: Any = None,
    dtype: Any = None,
    ddof: Any = 0,
    keepdims: bool = False,
    *,
    where: Any = True,
    mean: Any = None,
    correction: Any = None,
    **kw: Any,
) -> Any:
    """``numpy.var``: the summed squared deviations from the mean, divided by ``N - ddof``
    (``correction`` is ``ddof``'s Array-API name); with ``where=``, over the selected
    elements; ``mean=`` (shaped as with ``keepdims=True``) skips computing the mean.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> x = np.array([1.0, 2.0, 3.0, 4.0])
        >>> float(fnp.var(x)), round(float(fnp.var(x, ddof=1)), 4)
        (1.25, 1.6667)
        >>> float(fnp.var(x, where=x > 1.5))  # of [2, 3, 4]
        0.6666666666666666
        >>> ft.grad(fnp.var)(x)  # 2 (x - mean) / N
        array([-0.75, -0.25,  0.25,  0.75])
    """
    no_extra_args("var", kw)
    ddof = _ddof("var", ddof, correction)
    if dtype is not None and numpy.dtype(dtype).kind in "biu" and mean is None:
        return _integer_var(as_operand(x), axis, numpy.dtype(dtype), ddof, keepdims, where)
    x = float_input(x, dtype)
    if mean is None:
        mean = _mean(x, axis=axis, keepdims=True, where=where)
    sq = _abs2(x - mean)
    if where is True:
        dof = _reduced_count(x, axis) - ddof
        if not isinstance(dof, Tracer):  # NumPy: N - ddof clipped at 0 (inf, not < 0)
            if dof <= 0:
                warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
            return sum(sq, axis=axis, keepdims=keepdims) / builtins.max(dof, 0)
        return sum(sq, axis=axis, keepdims=keepdims) / maximum(dof, 0)
    count = sum(broadcast_to(where, shape(x)), axis=axis, keepdims=keepdims)
    dof = astype(count, dtype_of(sq)) - ddof
    helpers.warn_for_data(dof <= 0, "Degrees of freedom <= 0 for slice")
    return sum(sq, axis=axis, keepdims=keepdims, where=where) / maximum(dof, 0)


def _integer_var(x: Any, axis: Any, dt: Any, ddof: Any, keepdims: bool, where: Any) -> Any:
    """``numpy.var`` with an integer ``dtype=``, as NumPy computes it: the mean is the sum in
    ``dt`` (wrapping) divided and cast back (truncated), the squared deviations wrap, their
    sum is in ``dt``, and the quotient is cast back."""
    mask = broadcast_to(where, shape(x))
    count = sum(mask, axis=axis, keepdims=True)
    mean = astype(sum(x, axis=axis, dtype=dt, keepdims=True, where=where) / count, dt)
    deviation = x - mean
    total = sum(deviation * deviation, axis=axis, dtype=dt, keepdims=keepdims, where=where)
    dof = maximum(sum(mask, axis=axis, keepdims=keepdims) - ddof, 0)
    return astype(total / dof, dt)


def _ddof(name: str, ddof: Any, correction: Any) -> Any:
    """NumPy's ``ddof`` and its Array-API name ``correction`` (at most one of them)."""
    if correction is None:
        return ddof
    if ddof != 0:
        raise ValueError(f"{name}: ddof and correction can't be provided simultaneously.")
    return correction


def _abs2(c: Any) -> Any:
    """``|c|**2`` as ``numpy.var`` squares deviations: ``c * c`` for real ``c``;
    ``re * re + im * im`` for complex (NumPy's fast path through a float view, which
    rounds otherwise than the complex product ``c * conj(c)``)."""
    if dtype_of(c).kind == "c":
        re, im = real(c), imag(c)
        return re * re + im * im
    return c * c


def _nan_abs2(c: Any) -> Any:
    """``|c|**2`` as ``numpy.nanvar`` squares deviations: the real part of the complex
    product ``c * conj(c)`` for complex ``c``."""
    if dtype_of(c).kind == "c":
        return real(c * conj(c))
    return c * c


@implements(numpy.std)
def std(
    x: Any, axis: Any = None, dtype: Any = None, ddof: Any = 0, keepdims: bool = False, **kw: Any
) -> Any:
    """``numpy.std``: the square root of :func:`var` (with its ``ddof``, ``where``,
    ``mean`` and ``correction``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> x = np.array([1.0, 3.0])
        >>> float(fnp.std(x)), fnp.std(np.array([[0.0, 2.0], [1.0, 1.0]]), axis=1).tolist()
        (1.0, [1.0, 0.0])
        >>> ft.grad(fnp.std)(x)  # (x - mean) / (N std)
        array([-0.5,  0.5])
    """
    out = var(x, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims, **kw)
    if dtype is not None and numpy.dtype(dtype).kind in "biu":  # NumPy: sqrt cast back
        if ndim(out):  # (NumPy's sqrt into the integer array refuses the cast)
            raise UFuncTypeError(
                f"std(..., dtype={numpy.dtype(dtype)}): NumPy's sqrt cannot write its float "
                f"result into the {numpy.dtype(dtype)} array under casting='same_kind'; "
                f"pass a float dtype"
            )
        return astype(sqrt(out), dtype)
    return sqrt(out)


def _arg_extremum(prim, x, axis, keepdims):
    if axis is None:
        out = prim.bind(ravel(x), axis=0, keepdims=False)
        return reshape(out, (1,) * ndim(x)) if keepdims else out
    return prim.bind(x, axis=normalize_axis(axis, ndim(x)), keepdims=keepdims)


@implements(numpy.argmax)
def argmax(x: Any, axis: int | None = None, keepdims: bool = False) -> Any:
    """``numpy.argmax``: the index of the largest element (of the flattened array when ``axis``
    is None; the first one on ties); integer-valued, so no derivative.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> x = np.array([[1, 5, 2], [7, 0, 3]])
        >>> int(fnp.argmax(x)), fnp.argmax(x, axis=1).tolist()
        (3, [1, 0])
        >>> ft.vmap(fnp.argmax)(x).tolist()
        [1, 0]
    """
    return _arg_extremum(_red.argmax_p, x, axis, keepdims)


@implements(numpy.argmin)
def argmin(x: Any, axis: int | None = None, keepdims: bool = False) -> Any:
    """``numpy.argmin``: the index of the smallest element (of the flattened array when ``axis``
    is None; the first one on ties); integer-valued, so no derivative.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> x = np.array([[1, 5, 2], [7, 0, 3]])
        >>> int(fnp.argmin(x)), fnp.argmin(x, axis=0).tolist()
        (4, [0, 1, 0])
        >>> ft.vmap(fnp.argmin)(x).tolist()
        [0, 1]
    """
    return _arg_extremum(_red.argmin_p, x, axis, keepdims)


@implements(numpy.cumsum)
def cumsum(x: Any, axis: int | None = None, dtype: Any = None) -> Any:
    """``numpy.cumsum``: running sums along ``axis`` (of the flattened array when it is None).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.cumsum(np.array([[1, 2], [3, 4]])).tolist()
        [1, 3, 6, 10]
        >>> fnp.cumsum(np.array([[1, 2], [3, 4]]), axis=0).tolist()
        [[1, 2], [4, 6]]
        >>> ft.grad(lambda x: fnp.sum(fnp.cumsum(x)))(np.ones(3))  # x[i] is in n - i sums
        array([3., 2., 1.])
    """
    x = _prepare(x, dtype)
    if axis is None:
        x, axis = ravel(x), 0
    return _in_dtype(_red.cumsum_p.bind(x, axis=normalize_axis(axis, ndim(x))), dtype)


def _in_numpys_order(x: Any, kw: dict) -> bool:
    """Whether ``sum(x, where=..., initial=...)`` is NumPy's masked reduction (NOTE
    [masked sums in NumPy's order]): float and complex sums with a mask or a constant
    ``initial`` (integer sums are exact in any order; a traced ``initial`` is added)."""
    mask, initial = kw.get("where"), kw.get("initial")
    if (mask is None or mask is True) and (initial is None or isinstance(initial, Tracer)):
        return False
    return dtype_of(x).kind in "fc" and not isinstance(initial, Tracer)


def _masked_sum(x: Any, axis: Any, keepdims: bool, kw: dict) -> Any:
    """``numpy.sum(x, axis, keepdims=..., where=..., initial=...)`` in NumPy's order."""
    mask, initial = kw.pop("where", None), kw.pop("initial", None)
    no_extra_args("sum", kw)
    if mask is None or mask is True:
        mask = numpy.ones(shape(x), dtype=bool)
    elif isinstance(mask, (list, tuple)) and not helpers.holds_tracer(mask):
        mask = numpy.asarray(mask, dtype=bool)  # NumPy's conversion of a sequence
    mask = broadcast_to(mask, shape(x))
    if initial is not None:
        initial = _initial_in(initial, x)
        initial = initial if isinstance(initial, Tracer) else numpy.asarray(initial)[()]
    axes = normalize_axes(axis, ndim(x))
    return _red.reduce_sum_where_p.bind(x, mask, axis=axes, keepdims=keepdims, initial=initial)


def _initial_in(initial: Any, out: Any) -> Any:
    """``initial=`` in the reduction's dtype, as NumPy casts it: ``sum(ints, initial=1.5)``
    is an integer sum (1.5 counts as 1), a float64 ``initial`` leaves a float32 ``max``
    float32, and ``max(bools, initial=2)`` is a bool; a Python number out of an integer
    dtype's range raises NumPy's ``OverflowError``."""
    dt = dtype_of(out)
    if dt.kind in "iu" and type(initial) in (int, float):
        numpy.array(int(initial), dtype=dt)  # NumPy's check of a Python integer's range
    return astype(as_operand(initial, like=out), dt)


def _masked(name: str, x: Any, kw: dict, identity: Any) -> tuple[Any, Any]:
    """Apply a reduction's ``where=`` mask (masked-out elements become the identity:
    ``identity``, or the lowest/highest value of the dtype for max/min, as in JAX); pops
    ``where`` and ``initial`` from ``kw`` and returns ``(x, initial)``."""
    mask, initial = kw.pop("where", None), kw.pop("initial", None)
    if mask is None or mask is True:
        return x, initial
    if identity is None:
        if initial is None:
            raise ValueError(
                f"reduction operation '{name}' does not have an identity, so to use a where "
                f"mask one has to specify 'initial'"
            )
        dt = dtype_of(x)
        if dt.kind == "b":
            low, high = False, True
        else:
            low, high = (-inf, inf) if dt.kind == "f" else (iinfo(dt).min, iinfo(dt).max)
        identity = low if name == "max" else high
    return where(mask, x, full((), identity, dtype=dtype_of(x), like=x)), initial


@implements(numpy.diff)
def diff(a: Any, n: int = 1, axis: int = -1, prepend: Any = None, append: Any = None) -> Any:
    """``numpy.diff``: the ``n``-th forward difference along ``axis``, after ``prepend`` and
    before ``append`` (scalars are broadcast); linear, so its Jacobian is a difference matrix.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> x = np.array([1, 4, 9, 16])
        >>> fnp.diff(x).tolist(), fnp.diff(x, n=2).tolist()
        ([3, 5, 7], [2, 2])
        >>> fnp.diff(np.array([1.0, 4.0]), prepend=0.0).tolist()
        [1.0, 3.0]
        >>> ft.jacfwd(fnp.diff)(np.array([1.0, 4.0, 9.0]))
        array([[-1.,  1.,  0.],
               [ 0., -1.,  1.]])
    """
    axis = normalize_axis(axis, ndim(a))
    parts = []
    for extra in (prepend, a, append):
        if extra is None:
            continue
        if extra is not a and ndim(extra) == 0:
            shape = list(helpers.shape(a))
            shape[axis] = 1
            extra = broadcast_to(extra, tuple(shape))
        parts.append(extra)
    a = concatenate(parts, axis=axis) if len(parts) > 1 else a
    lead = (slice(None),) * axis
    for _ in range(n):
        hi, lo = getitem(a, lead + (slice(1, None),)), getitem(a, lead + (slice(None, -1),))
        a = not_equal(hi, lo) if dtype_of(a).kind == "b" else hi - lo  # NumPy: bools by !=
    return a


@implements(numpy.count_nonzero)
def count_nonzero(a: Any, axis: Any = None, *, keepdims: bool = False) -> Any:
    """``numpy.count_nonzero``: how many elements along ``axis`` are not zero (an integer, no
    derivative).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> x = np.array([[0, 1], [2, 3]])
        >>> int(fnp.count_nonzero(x)), fnp.count_nonzero(x, axis=1).tolist()
        (3, [1, 2])
        >>> ft.vmap(fnp.count_nonzero)(x).tolist()
        [1, 2]
    """
    return sum(not_equal(a, 0), axis=axis, keepdims=keepdims)


@implements("numpy.cumulative_sum")
def cumulative_sum(x: Any, *, axis: Any = None, dtype: Any = None, include_initial: bool = False):
    """``numpy.cumulative_sum`` (NumPy 2's array-API running sum): like :func:`cumsum`, but
    ``axis`` is required above 1-D, and ``include_initial=True`` prepends a 0.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.cumulative_sum(np.array([1, 2, 3]), include_initial=True).tolist()
        [0, 1, 3, 6]
        >>> fnp.cumulative_sum(np.array([[1, 2], [3, 4]]), axis=1).tolist()
        [[1, 3], [3, 7]]
        >>> ft.grad(lambda x: fnp.sum(fnp.cumulative_sum(x)))(np.ones(3))
        array([3., 2., 1.])
    """
    return _cumulative(cumsum, 0, x, axis, dtype, include_initial)


@implements("numpy.cumulative_prod")
def cumulative_prod(x: Any, *, axis: Any = None, dtype: Any = None, include_initial: bool = False):
    """``numpy.cumulative_prod`` (NumPy 2's array-API running product): like :func:`cumprod`,
    but ``axis`` is required above 1-D, and ``include_initial=True`` prepends a 1.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.cumulative_prod(np.array([1.0, 2.0, 3.0]), include_initial=True).tolist()
        [1.0, 1.0, 2.0, 6.0]
        >>> ft.grad(lambda x: fnp.cumulative_prod(x)[-1])(np.array([2.0, 3.0, 4.0]))
        array([12.,  8.,  6.])
    """
    return _cumulative(cumprod, 1, x, axis, dtype, include_initial)


def _cumulative(fn, initial, x, axis, dtype, include_initial):
    if axis is None:
        if ndim(x) > 1:
            raise ValueError("cumulative_sum/prod: axis is required for arrays of rank > 1")
        axis = 0
    out = fn(x, axis=axis, dtype=dtype)
    if include_initial:
        shape = list(helpers.shape(out))
        shape[axis] = 1
        out = concatenate([full_like(out, initial, shape=tuple(shape)), out], axis=axis)
    return out


@implements(numpy.nanprod)
def nanprod(a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False, **kw) -> Any:
    """``numpy.nanprod``: the product with NaNs counted as 1 (they get derivative 0);
    ``initial=`` and ``where=`` as in ``prod``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> x = np.array([2.0, np.nan, 3.0])
        >>> float(fnp.nanprod(x))
        6.0
        >>> ft.grad(fnp.nanprod)(x)
        array([3., 0., 2.])
    """
    return prod(_nan_filled(a, 1.0), axis=axis, dtype=dtype, keepdims=keepdims, **kw)


@implements(numpy.nanvar)
def nanvar(
    a: Any,
    axis: Any = None,
    dtype: Any = None,
    ddof: Any = 0,
    keepdims: bool = False,
    *,
    where: Any = True,
    mean: Any = None,
    correction: Any = None,
    **kw: Any,
):
    """``numpy.nanvar``: the variance of the non-NaN elements (divided by their count minus
    ``ddof``), with :func:`var`'s ``where``, ``mean`` and ``correction``.

    Example:
        >>> import numpy as np
        >>> import ftransforms.numpy as fnp
        >>> x = np.array([[1.0, np.nan, 3.0], [2.0, 4.0, 6.0]])
        >>> fnp.nanvar(x, axis=1).tolist()
        [1.0, 2.6666666666666665]
        >>> float(fnp.nanvar(x[0], ddof=1))
        2.0
    """
    no_extra_args("nanvar", kw)
    ddof = _ddof("nanvar", ddof, correction)
    valid = logical_not(isnan(a))
    if where is not True:
        valid = logical_and(valid, where)
    # Counts in the input's float dtype: an integer count would promote float32 to float64.
    kind = dtype_of(a)
    count_dtype = numpy.finfo(kind).dtype if kind.kind in "fc" else numpy.dtype(numpy.float64)
    # NumPy sums under the where= mask (its order: NOTE [masked sums in NumPy's order])
    masked = {} if where is True else {"where": where}
    if mean is None:
        count = sum(valid, axis=axis, keepdims=True, dtype=count_dtype)
        with numpy.errstate(divide="ignore", invalid="ignore"):  # an all-NaN slice: below
            mean = _by_count(sum(_select(valid, a, 0.0), axis=axis, keepdims=True, **masked), count)
    # Mask before squaring: (nan - mean)**2 would put a NaN in the cotangent of every entry.
    sq = _nan_abs2(_select(valid, a - mean, 0.0))
    dof = sum(valid, axis=axis, keepdims=keepdims, dtype=count_dtype) - ddof
    with numpy.errstate(divide="ignore", invalid="ignore"):  # NumPy: NaN, one warning
        out = sum(sq, axis=axis, keepdims=keepdims, **masked) / dof
    bad = dof <= 0
    helpers.warn_for_data(bad, "Degrees of freedom <= 0 for slice.")
    out = _select(bad, numpy.nan, out)
    return out if dtype is None else astype(out, dtype)


@implements(numpy.nanstd)
def nanstd(
    a: Any, axis: Any = None, dtype: Any = None, ddof: Any = 0, keepdims: bool = False, **kw: Any
):
    """``numpy.nanstd``: the standard deviation of the non-NaN elements (the square root of
    :func:`nanvar`, with its ``ddof``, ``where``, ``mean`` and ``correction``).

    Example:
        >>> import numpy as np
        >>> import ftransforms.numpy as fnp
        >>> x = np.array([[1.0, np.nan, 3.0], [0.0, 0.0, np.nan]])
        >>> fnp.nanstd(x, axis=1).tolist()
        [1.0, 0.0]
    """
    return sqrt(nanvar(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims, **kw))


@implements("numpy.trapezoid")
def trapezoid(y: Any, x: Any = None, dx: float = 1.0, axis: int = -1) -> Any:
    """``numpy.trapezoid``: the trapezoidal-rule integral of ``y`` along ``axis``, at sample
    points ``x`` (1-D, or shaped like ``y``) or spacing ``dx``; linear in ``y``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> y = np.array([0.0, 1.0, 4.0])
        >>> float(fnp.trapezoid(y)), float(fnp.trapezoid(y, x=np.array([0.0, 1.0, 3.0])))
        (3.0, 5.5)
        >>> ft.grad(fnp.trapezoid)(y)  # the trapezoid weights
        array([0.5, 1. , 0.5])
    """
    axis = normalize_axis(axis, ndim(y))
    lead = (slice(None),) * axis
    left = getitem(y, lead + (slice(None, -1),))
    right = getitem(y, lead + (slice(1, None),))
    if x is None:
        return sum((left + right) * (dx / 2.0), axis=axis)
    d = diff(x) if ndim(x) == 1 else diff(x, axis=axis)
    if ndim(x) == 1 and ndim(y) > 1:
        d = reshape(d, tuple(-1 if i == axis else 1 for i in range(ndim(y))))
    return sum(d * (left + right) / 2.0, axis=axis)


@implements(numpy.cumprod)
def cumprod(x: Any, axis: int | None = None, dtype: Any = None) -> Any:
    """``numpy.cumprod``: running products along ``axis`` (of the flattened array when it is
    None); derivatives are exact where elements are zero (NOTE [cumprod at zeros] in
    ``ops/reductions.py``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.cumprod(np.array([1.0, 2.0, 3.0, 4.0])).tolist()
        [1.0, 2.0, 6.0, 24.0]
        >>> ft.grad(lambda x: fnp.cumprod(x)[-1])(np.array([2.0, 0.0, 3.0]))
        array([0., 6., 0.])
    """
    x = _prepare(x, dtype)
    if axis is None:
        x, axis = ravel(x), 0
    return _in_dtype(_red.cumprod_p.bind(x, axis=normalize_axis(axis, ndim(x))), dtype)


@implements(numpy.ptp)
def ptp(x: Any, axis: Any = None, keepdims: bool = False, **kw: Any) -> Any:
    """``numpy.ptp``: the range ``max - min`` along ``axis`` (derivative +1 at the maximum, -1
    at the minimum).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> x = np.array([4.0, -1.0, 2.0])
        >>> float(fnp.ptp(x)), fnp.ptp(np.array([[1, 5], [2, 2]]), axis=1).tolist()
        (5.0, [4, 0])
        >>> ft.grad(fnp.ptp)(x)
        array([ 1., -1.,  0.])
    """
    no_extra_args("ptp", kw)
    return max(x, axis=axis, keepdims=keepdims) - min(x, axis=axis, keepdims=keepdims)


@implements(numpy.average)
def average(
    a: Any, axis: Any = None, weights: Any = None, returned: bool = False, *, keepdims=False
) -> Any:
    """``numpy.average``: the mean along ``axis`` weighted by ``weights`` (1-D weights apply
    along ``axis``), with ``returned=True`` also the sum of the weights; differentiable in
    ``a`` and in ``weights``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> a, w = np.array([1.0, 2.0, 4.0]), np.array([1.0, 1.0, 2.0])
        >>> float(fnp.average(a, weights=w))
        2.75
        >>> ft.grad(lambda a: fnp.average(a, weights=w))(a)  # w / sum(w)
        array([0.25, 0.25, 0.5 ])
    """
    a = as_operand(a)  # array_like, as in NumPy: lists of numbers (or of tracers)
    if weights is None:
        avg = mean(a, axis=axis, keepdims=keepdims)
        if not returned:
            return avg
        count = size(a) / builtins.max(size(avg), 1)
        return avg, full(shape(avg), count, dtype=dtype_of(avg), like=avg)
    weights = as_operand(weights, like=a)
    a_dt, w_dt = dtype_of(a), dtype_of(weights)
    if a_dt.kind in "biu":
        dt = numpy.result_type(a_dt, w_dt, numpy.float64)
    else:
        dt = numpy.result_type(a_dt, w_dt)
    a, weights = astype(a, dt), astype(weights, dt)
    a_shape, w_shape = shape(a), shape(weights)
    if a_shape != w_shape:
        if axis is None:
            raise TypeError("average: axis must be specified when shapes of a and weights differ.")
        if len(w_shape) != 1:
            raise TypeError("average: 1D weights expected when shapes of a and weights differ.")
        ax = normalize_axis(int(axis), len(a_shape))
        if w_shape[0] != a_shape[ax]:
            raise ValueError("average: length of weights not compatible with specified axis.")
        weights = reshape(weights, tuple(-1 if i == ax else 1 for i in range(len(a_shape))))
        weights = broadcast_to(weights, a_shape)
    scale = sum(weights, axis=axis, keepdims=keepdims)
    avg = sum(a * weights, axis=axis, keepdims=keepdims) / scale
    if returned:
        return avg, broadcast_to(scale, shape(avg))
    return avg


def _nan_filled(x: Any, fill: Any) -> Any:
    if dtype_of(x).kind not in "fc":
        return x
    return where(isnan(x), fill, x)


@implements(numpy.nansum)
def nansum(x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False, **kw) -> Any:
    """``numpy.nansum``: the sum with NaNs counted as zero (they get derivative 0).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> x = np.array([1.0, np.nan, 2.0])
        >>> float(fnp.nansum(x))
        3.0
        >>> ft.grad(fnp.nansum)(x)
        array([1., 0., 1.])
    """
    return sum(_nan_filled(x, 0.0), axis=axis, dtype=dtype, keepdims=keepdims, **kw)


@implements(numpy.nanmean)
def nanmean(x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False, **kw) -> Any:
    """``numpy.nanmean``: the mean of the non-NaN elements (NaNs get derivative 0).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> x = np.array([1.0, np.nan, 3.0])
        >>> float(fnp.nanmean(x))
        2.0
        >>> ft.grad(fnp.nanmean)(x)
        array([0.5, 0. , 0.5])
    """
    selected = _where_given(kw)
    no_extra_args("nanmean", kw)
    if dtype_of(x).kind not in "fc":  # no NaN to skip (NumPy calls mean)
        return mean(x, axis=axis, dtype=dtype, keepdims=keepdims, **selected)
    if dtype is not None and numpy.dtype(dtype).kind not in "fc":
        raise TypeError("If a is inexact, then dtype must be inexact")
    x = float_input(x, dtype)
    count = sum(~isnan(x), axis=axis, keepdims=keepdims, **selected)
    total = sum(_nan_filled(x, 0.0), axis=axis, keepdims=keepdims, **selected)
    helpers.warn_for_data(count == 0, "Mean of empty slice")
    with numpy.errstate(divide="ignore", invalid="ignore"):  # NumPy: NaN, one warning
        if dtype_of(total) == numpy.complex64:
            return _by_count(total, count)
        return total / astype(count, dtype_of(x))


def _where_given(kw: dict) -> dict:
    """``where=`` taken out of ``kw``, as keywords to pass on (none when it selects all)."""
    selected = kw.pop("where", True)
    return {} if selected is True else {"where": selected}


def _nan_extremum(reduce, fill, x, axis, keepdims, kw, name):
    """NumPy's ``fmax.reduce``/``fmin.reduce`` (``nanmax``/``nanmin``): NaNs skipped, with
    ``initial=`` and ``where=`` as in ``max``/``min``; NaN (and NumPy's warning) where a
    slice holds no number and no ``initial`` stands in."""
    given = _where_given(kw)
    if kw.get("initial") is not None:
        given["initial"] = kw.pop("initial")
    no_extra_args(name, kw)
    if dtype_of(x).kind not in "fc":
        return reduce(x, axis=axis, keepdims=keepdims, **given)
    nans = isnan(x)
    out = reduce(where(nans, fill, x), axis=axis, keepdims=keepdims, **given)
    if "initial" in given:  # fmax(initial, NaN) is initial: the result is a number
        return out
    all_nan = all(nans, axis=axis, keepdims=keepdims)
    helpers.warn_for_data(all_nan, "All-NaN slice encountered")
    return where(all_nan, numpy.nan, out)


@implements(numpy.nanmax)
def nanmax(x: Any, axis: Any = None, keepdims: bool = False, **kw: Any) -> Any:
    """``numpy.nanmax``: the maximum ignoring NaNs; NaN where a slice is all NaN, without
    NumPy's warning.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.nanmax(np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan]]), axis=1).tolist()
        [3.0, nan]
        >>> ft.grad(fnp.nanmax)(np.array([1.0, np.nan, 3.0]))
        array([0., 0., 1.])
    """
    return _nan_extremum(max, -numpy.inf, x, axis, keepdims, kw, "nanmax")


@implements(numpy.nanmin)
def nanmin(x: Any, axis: Any = None, keepdims: bool = False, **kw: Any) -> Any:
    """``numpy.nanmin``: the minimum ignoring NaNs; NaN where a slice is all NaN, without
    NumPy's warning.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.nanmin(np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan]]), axis=1).tolist()
        [1.0, nan]
        >>> ft.grad(fnp.nanmin)(np.array([1.0, np.nan, 3.0]))
        array([1., 0., 0.])
    """
    return _nan_extremum(min, numpy.inf, x, axis, keepdims, kw, "nanmin")


def _nanarg(reduce: Any, fill: float, a: Any, axis: Any, keepdims: bool) -> Any:
    a = as_operand(a)
    if dtype_of(a).kind not in "fc":
        return reduce(a, axis=axis, keepdims=keepdims)
    nans = isnan(a)
    out = reduce(where(nans, fill, a), axis=axis, keepdims=keepdims)
    all_nan = all(nans, axis=axis, keepdims=keepdims)
    if invalid_in_rows(all_nan):  # read per row under vmap: the loop raises for those rows
        raise ValueError("All-NaN slice encountered")
    return out


@implements(numpy.nanargmax)
def nanargmax(a: Any, axis: int | None = None, out: Any = None, *, keepdims: bool = False) -> Any:
    """``numpy.nanargmax``: the index of the largest non-NaN value (no derivative).

    Example:
        >>> import numpy as np
        >>> int(nanargmax(np.array([1.0, np.nan, 3.0, 2.0])))
        2
    """
    _no_out("nanargmax", out)
    return _nanarg(argmax, -numpy.inf, a, axis, keepdims)


@implements(numpy.nanargmin)
def nanargmin(a: Any, axis: int | None = None, out: Any = None, *, keepdims: bool = False) -> Any:
    """``numpy.nanargmin``: the index of the smallest non-NaN value (no derivative).

    Example:
        >>> import numpy as np
        >>> int(nanargmin(np.array([1.0, np.nan, -3.0, 2.0])))
        2
    """
    _no_out("nanargmin", out)
    return _nanarg(argmin, numpy.inf, a, axis, keepdims)


def _no_out(name: str, out: Any) -> None:
    if out is not None:
        raise TypeError(f"{name}: out= is not supported (arrays are immutable under transforms)")


def _nan_replaced(a: Any, fill: float) -> Any:
    a = as_operand(a)
    if dtype_of(a).kind not in "fc":
        return a
    return where(isnan(a), fill, a)


@implements(numpy.nancumsum)
def nancumsum(a: Any, axis: int | None = None, dtype: Any = None, out: Any = None) -> Any:
    """``numpy.nancumsum``: NaNs count as zero (and get derivative 0).

    Example:
        >>> import numpy as np
        >>> nancumsum(np.array([1.0, np.nan, 2.0])).tolist()
        [1.0, 1.0, 3.0]
    """
    _no_out("nancumsum", out)
    return cumsum(_nan_replaced(a, 0.0), axis=axis, dtype=dtype)


@implements(numpy.nancumprod)
def nancumprod(a: Any, axis: int | None = None, dtype: Any = None, out: Any = None) -> Any:
    """``numpy.nancumprod``: NaNs count as one (and get derivative 0).

    Example:
        >>> import numpy as np
        >>> nancumprod(np.array([2.0, np.nan, 3.0])).tolist()
        [2.0, 2.0, 6.0]
    """
    _no_out("nancumprod", out)
    return cumprod(_nan_replaced(a, 1.0), axis=axis, dtype=dtype)
