"""Statistics: order statistics (``median``, ``quantile``, ``percentile`` and NaN
variants), correlations (``cov``, ``corrcoef``) and histograms (``histogram``,
``bincount``, ``digitize``) (NumPy's "Statistics").
"""

from __future__ import annotations

import builtins
import math
import operator
import warnings
from typing import Any

import numpy

import ftransforms.numpy.helpers as helpers
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.creation import as_operand, full, ones_like, zeros
from ftransforms.numpy.dispatch import implements
from ftransforms.numpy.helpers import (
    constant_like,
    dtype_of,
    first_array,
    holds_tracer,
    invalid_in_rows,
    ndim,
    no_extra_args,
    normalize_axes,
    normalize_axes_ordered,
    same_across_batch,
    shape,
    size,
    to_host,
    weak_result_type,
)
from ftransforms.numpy.indexing import (
    at,
    diagonal,
    getitem,
    scatter,
    take,
    take_along_axis,
    where,
)
from ftransforms.numpy.manipulation import (
    atleast_2d,
    broadcast_to,
    concatenate,
    expand_dims,
    ravel,
    reshape,
    squeeze,
    transpose,
)
from ftransforms.numpy.products import matmul
from ftransforms.numpy.ranges import arange
from ftransforms.numpy.rearranging import flip
from ftransforms.numpy.reductions import (
    any,
    argmin,
    average,
    cumsum,
    max,
    mean,
    min,
    nanmean,
    std,
    sum,
)
from ftransforms.numpy.sorting import argsort, searchsorted, sort
from ftransforms.numpy.ufuncs import (
    abs,
    astype,
    ceil,
    clip,
    conj,
    divide,
    floor,
    imag,
    isfinite,
    isnan,
    log2,
    logical_not,
    maximum,
    minimum,
    real,
    remainder,
    rint,
    sqrt,
    true_divide,
)

__all__ = [
    "median",
    "quantile",
    "percentile",
    "nanquantile",
    "nanpercentile",
    "nanmedian",
    "cov",
    "corrcoef",
    "bincount",
    "digitize",
    "histogram",
    "histogram_bin_edges",
    "histogram2d",
    "histogramdd",
]


@implements(numpy.median)
def median(
    a: Any,
    axis: Any = None,
    out: Any = None,
    overwrite_input: bool = False,  # noqa: ARG001  (NumPy may overwrite; this never does)
    keepdims: bool = False,
) -> Any:
    """``numpy.median`` over ``axis`` (an int, a tuple, or all axes); the derivative goes to the
    middle element, or half to each of the two middle ones (as in JAX).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> float(fnp.median(np.array([3.0, 1.0, 2.0])))
        2.0
        >>> x = np.array([4.0, 1.0, 3.0, 2.0])
        >>> float(fnp.median(x)), ft.grad(fnp.median)(x).tolist()
        (2.5, [0.0, 0.0, 0.5, 0.5])
    """
    no_extra_args("median", {"out": out})
    if axis is None:
        flat = ravel(a)
        out = median(flat, axis=0)
        return reshape(out, (1,) * ndim(a)) if keepdims else out
    axes = normalize_axes(axis, ndim(a))
    if len(axes) > 1:
        rest = [i for i in range(ndim(a)) if i not in axes]
        moved = transpose(a, rest + list(axes))
        shape = helpers.shape(moved)
        lead = shape[: len(rest)]
        out = median(reshape(moved, lead + (math.prod(shape[len(rest) :]),)), axis=-1)
        if keepdims:
            out = reshape(out, tuple(1 if i in axes else n for i, n in enumerate(helpers.shape(a))))
        return out
    ax = axes[0]
    n = helpers.shape(a)[ax]
    if n == 0:  # NumPy: the mean of no middle values, NaN with its warning
        warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=2)
        dt = dtype_of(a)
        one = tuple(1 if i == ax else k for i, k in enumerate(helpers.shape(a)))
        out = full(one, numpy.nan, dtype=numpy.float64 if dt.kind in "biu" else dt)
        return out if keepdims else squeeze(out, axis=ax)
    s = sort(a, axis=ax)
    lead = (slice(None),) * ax
    lo = getitem(s, lead + (slice((n - 1) // 2, (n - 1) // 2 + 1),))
    hi = getitem(s, lead + (slice(n // 2, n // 2 + 1),))
    # NumPy's np.mean of the middle value(s): integers and bools summed in float64 (int8
    # 100 and 120 give 110.0, bools True and True 1.0), float16 in float32
    kind, dt = dtype_of(s).kind, dtype_of(s)
    acc = numpy.float64 if kind in "biu" else numpy.float32 if dt == numpy.float16 else None
    if acc is not None:
        lo, hi = astype(lo, acc), astype(hi, acc)
    out = (lo + hi) / 2
    if dt == numpy.float16:
        out = astype(out, dt)
    if n and dtype_of(s).kind in "fc":  # NumPy: a NaN on the axis makes the median NaN
        has_nan = isnan(getitem(s, lead + (slice(n - 1, n),)))  # sorted: NaN comes last
        out = where(has_nan, numpy.nan, out)
    return out if keepdims else squeeze(out, axis=ax)


_METHODS = (
    "inverted_cdf",
    "averaged_inverted_cdf",
    "closest_observation",
    "interpolated_inverted_cdf",
    "hazen",
    "weibull",
    "linear",
    "median_unbiased",
    "normal_unbiased",
    "lower",
    "higher",
    "midpoint",
    "nearest",
)
#: Hyndman & Fan's continuous methods: the virtual index ``n q + alpha + q (1 - alpha -
#: beta) - 1`` (NumPy's ``_compute_virtual_index``, the same operations in q's dtype).
_ALPHA_BETA = {
    "interpolated_inverted_cdf": (0.0, 1.0),
    "hazen": (0.5, 0.5),
    "weibull": (0.0, 0.0),
    "median_unbiased": (1 / 3.0, 1 / 3.0),
    "normal_unbiased": (3 / 8.0, 3 / 8.0),
}


#: Methods whose virtual index, and so gamma, stays integer for an integer ``q`` array.
_INTEGER_INDEX_WITH_INTEGER_Q = ("averaged_inverted_cdf", "interpolated_inverted_cdf", "weibull")


def _quantile(
    a: Any, q: Any, axis: Any, method: str, keepdims: bool, nan: bool, name: str, kw: dict
) -> Any:
    """Shared by quantile/percentile and their NaN-skipping forms (``q`` in [0, 1]): every
    method of ``numpy.quantile``, and ``weights=`` (method 'inverted_cdf')."""
    interpolation = kw.pop("interpolation", None)
    if interpolation is not None:  # NumPy's deprecated spelling
        method = interpolation
    kw.pop("overwrite_input", None)  # nothing is ever overwritten
    weights = kw.pop("weights", None)
    two_middle = kw.pop("two_middle", None)  # nanmedian's: NOTE [nanmedian's two middle values]
    weak = kw.pop("weak_q", type(q) in (int, float))
    no_extra_args(name, kw)
    if method not in _METHODS:
        raise ValueError(f"{method!r} is not a valid method. Use one of: {_METHODS}")
    if weights is not None and method != "inverted_cdf":
        raise ValueError(f"Only method 'inverted_cdf' supports weights. Got: {method}.")
    a = as_operand(a)
    adt = dtype_of(a)
    if adt.kind == "c":
        raise TypeError("a must be an array of real numbers")
    # As NumPy: the indices are computed in q's dtype (float64 for a Python number), and a
    # Python number q is weak (the interpolation weight is a Python float: the result
    # keeps a's float dtype).
    if isinstance(q, Tracer) or holds_tracer(q):
        q = as_operand(q, a)
        if helpers.invalid_in_rows(logical_not((q >= 0) & (q <= 1))):  # per row under vmap
            raise ValueError("Quantiles must be in the range [0, 1]")
    else:
        q = constant_like(q, a, numpy.float64 if type(q) is float else None)
        if q.size and not bool(((q >= 0) & (q <= 1)).all()):
            raise ValueError("Quantiles must be in the range [0, 1]")
    int_q = dtype_of(q).kind in "biu"
    qdt = dtype_of(q) if dtype_of(q).kind == "f" else numpy.dtype(numpy.float64)
    cdt = adt if weak else numpy.result_type(adt, qdt)
    if cdt.kind != "f":
        cdt = numpy.dtype(numpy.float64)
    rank = ndim(a)
    axes = normalize_axes(axis, rank)
    rest = [i for i in range(rank) if i not in axes]
    shape = helpers.shape(a)
    lead = tuple(shape[i] for i in rest)
    n = math.prod(shape[i] for i in axes)

    def flat(v: Any) -> Any:  # the reduced axes last, as one
        return reshape(transpose(v, rest + list(axes)), lead + (n,))

    x = flat(a)
    qshape = helpers.shape(q)
    k = math.prod(qshape)
    qf = reshape(astype(q, qdt), (k,))
    float_a = adt.kind == "f"
    if weights is not None:
        w = _quantile_weights(weights, a, axis, axes, flat)
        out = _weighted_inverted_cdf(x, w, qf, nan and float_a)
    else:
        s = sort(x, axis=-1)  # NaNs sort last
        if nan and float_a:
            count = sum(logical_not(isnan(x)), axis=-1, keepdims=True)
            size_ = astype(count, qdt)  # lead + (1,): the indices become lead + (k,)
            last = count - 1
        else:
            size_ = n
            last = n - 1
        out = _order_statistic(s, qf, size_, last, method, int_q, cdt, two_middle)
        if int_q and not weak and method in _INTEGER_INDEX_WITH_INTEGER_Q:
            out = astype(out, numpy.result_type(adt, dtype_of(q)))  # NumPy's integer gamma
    if nan and float_a:
        all_nan = logical_not(any(logical_not(isnan(x)), axis=-1))
        helpers.warn_for_data(all_nan, "All-NaN slice encountered")
    if float_a and not nan:  # NumPy: NaN wherever the slice holds one
        has_nan = any(isnan(x), axis=-1, keepdims=True)
        out = where(has_nan, numpy.nan, out)
    out = reshape(out, lead + qshape)
    nl = len(lead)
    out = transpose(out, list(range(nl, nl + len(qshape))) + list(range(nl)))
    if keepdims:
        kept = tuple(1 if i in axes else d for i, d in enumerate(shape))
        out = reshape(out, qshape + kept)
    return out


def _order_statistic(
    s: Any,
    qf: Any,
    n: Any,
    last: Any,
    method: str,
    int_q: bool,
    cdt: Any,
    two_middle: str | None = None,
) -> Any:
    """The ``method``'s quantiles ``qf`` of the sorted rows ``s`` (``n`` values each, the
    last at ``last``), as NumPy's ``_quantile`` computes them: a virtual index in q's dtype,
    its neighbours clamped to the row, and the interpolation weight gamma."""

    def gather(i: Any) -> Any:
        i = maximum(minimum(astype(i, numpy.intp), last), 0)
        return take(s, i, axis=-1) if ndim(i) == 1 else take_along_axis(s, i, axis=-1)

    def discrete(index: Any, keep_previous: Any) -> Any:  # NumPy's boundary rounding
        previous = floor(index)
        return gather(where(keep_previous(index - previous, previous), previous, previous + 1))

    if method == "lower" or (method == "linear" and int_q):  # an integer index: no weight
        return gather(floor((n - 1) * qf))
    if method == "higher":
        return gather(ceil((n - 1) * qf))
    if method == "nearest":
        return gather(rint((n - 1) * qf))  # NumPy rounds half to even
    if method == "inverted_cdf":
        return discrete(n * qf - 1, lambda g, p: g == 0)
    if method == "closest_observation":  # the nearest even order statistic (1-based) at g=0
        return discrete(n * qf - 1 - 0.5, lambda g, p: (g == 0) & (remainder(p, 2) == 1))
    if method == "linear":
        virtual = (n - 1) * qf
    elif method == "midpoint":
        virtual = 0.5 * (floor((n - 1) * qf) + ceil((n - 1) * qf))
    elif method == "averaged_inverted_cdf":
        virtual = n * qf - 1
    else:
        alpha, beta = _ALPHA_BETA[method]
        virtual = n * qf + (alpha + qf * (1 - alpha - beta)) - 1
    above = virtual >= n - 1
    below = virtual < 0
    previous = where(above, -1.0, where(below, 0.0, floor(virtual)))  # NumPy's, -1 the last
    lo_i = where(above, last, previous)
    hi_i = where(above | below, lo_i, previous + 1)
    gamma = virtual - previous
    if two_middle is not None:  # NOTE [nanmedian's two middle values]
        odd = remainder(virtual, 1) == 0  # one middle value: NumPy takes it twice
        lo, hi = gather(lo_i), gather(where(odd, lo_i, hi_i))
        if two_middle == "mean" and cdt == numpy.float16:  # np.mean's float32 accumulator
            return astype((astype(lo, numpy.float32) + astype(hi, numpy.float32)) / 2, cdt)
        return (astype(lo, cdt) + astype(hi, cdt)) / 2
    if method == "midpoint":
        gamma = where(remainder(virtual, 1) == 0, 0.0, 0.5)
    elif method == "averaged_inverted_cdf":
        gamma = where(gamma == 0, 0.5, 1.0)
    # gamma in the index's dtype (NumPy makes it a Python float for a Python number q:
    # float64), its 1 - gamma too, before the data's dtype meets them
    return _lerp(gather(lo_i), gather(hi_i), astype(gamma, dtype_of(virtual)), cdt)


def _quantile_weights(weights: Any, a: Any, axis: Any, axes: list, flat: Any) -> Any:
    """NumPy's checks of quantile's ``weights`` (the shape of ``a``, or of its reduced
    axes), broadcast to ``a`` and laid out as its rows."""
    w = as_operand(weights, a)
    ashape, wshape = helpers.shape(a), helpers.shape(w)
    if wshape != ashape:
        if axis is None:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        given = normalize_axes_ordered(axis, len(ashape))
        if wshape != tuple(ashape[i] for i in given):
            raise ValueError(
                "Shape of weights must be consistent with shape of a along specified axis."
            )
        w = transpose(w, [given.index(i) for i in sorted(given)])
        w = broadcast_to(
            reshape(w, tuple(d if i in given else 1 for i, d in enumerate(ashape))), ashape
        )
    if helpers.invalid_in_rows(w < 0):
        raise ValueError("Weights must be non-negative.")
    return flat(w)


def _weighted_inverted_cdf(x: Any, w: Any, qf: Any, skip_nan: bool) -> Any:
    """NumPy's weighted 'inverted_cdf': the first sorted value whose normalized cumulative
    weight reaches q (the cumulative sums in float64, then in q's dtype)."""
    order = argsort(x, axis=-1, kind="stable")
    xs, ws = take_along_axis(x, order, axis=-1), take_along_axis(w, order, axis=-1)
    if skip_nan:  # NaNs sort last; nanquantile drops them with their weights
        ws = where(isnan(xs), 0, ws)
    cdf = cumsum(ws, axis=-1, dtype=numpy.float64)
    cdf = cdf / getitem(cdf, (..., slice(-1, None)))
    bad = isnan(getitem(cdf, (..., slice(-1, None))))  # weights all zero, NaN or inf
    if skip_nan:  # an all-NaN slice gives NaN before its weights are looked at
        bad = bad & any(logical_not(isnan(xs)), axis=-1, keepdims=True)
    if helpers.invalid_in_rows(bad):
        raise ValueError("Weights included NaN, inf or were all zero.")
    cdf = astype(cdf, dtype_of(qf))
    cdf = where(cdf == 0, -1.0, cdf)  # leading zero weights: q = 0 takes the first weighted
    index = sum(expand_dims(cdf, -2) < expand_dims(qf, -1), axis=-1)  # searchsorted, left
    n = helpers.shape(x)[-1]
    return take_along_axis(xs, minimum(index, n - 1), axis=-1)


def _lerp(a: Any, b: Any, t: Any, dt: Any) -> Any:
    """NumPy's ``_lerp`` (the difference taken in the data's dtype, and from the nearer end
    point), so that values match NumPy's to the last bit."""
    d = astype(b - a, dt)
    a, b = astype(a, dt), astype(b, dt)
    return where(t >= 0.5, b - d * astype(1 - t, dt), a + d * astype(t, dt))


@implements(numpy.quantile)
def quantile(
    a: Any,
    q: Any,
    axis: Any = None,
    out: Any = None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = False,
    **kw: Any,
) -> Any:
    """``numpy.quantile`` with each of NumPy's 13 methods (Hyndman & Fan's nine, and
    'lower', 'higher', 'midpoint', 'nearest'), and ``weights=`` (method 'inverted_cdf');
    values and dtypes as NumPy's; ``q`` may be traced.

    Example:
        >>> import numpy as np
        >>> from ftransforms import grad
        >>> x = np.array([3.0, 1.0, 4.0, 2.0])
        >>> float(quantile(x, 0.5))
        2.5
        >>> grad(lambda x: quantile(x, 0.5))(x).tolist()
        [0.5, 0.0, 0.0, 0.5]
    """
    kw.update(out=out, overwrite_input=overwrite_input)
    return _quantile(a, q, axis, method, keepdims, False, "quantile", kw)


def _div100(q: Any, a: Any) -> Any:
    """``q / 100`` in q's own float dtype, as NumPy's percentile computes it."""
    if type(q) in (int, float):
        return numpy.float64(q) / 100  # NumPy's true_divide, weak for the result: weak_q
    q = as_operand(q, as_operand(a))
    if dtype_of(q).kind not in "fc":
        q = astype(q, numpy.float64)
    return divide(q, 100)


@implements(numpy.percentile)
def percentile(
    a: Any,
    q: Any,
    axis: Any = None,
    out: Any = None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = False,
    **kw: Any,
) -> Any:
    """``numpy.percentile``: :func:`quantile` with ``q`` in percent.

    Example:
        >>> import numpy as np
        >>> percentile(np.array([[1.0, 2.0, 3.0], [4.0, 8.0, 6.0]]), [25, 50], axis=1).tolist()
        [[1.5, 5.0], [2.0, 6.0]]
    """
    kw.update(out=out, overwrite_input=overwrite_input, weak_q=type(q) in (int, float))
    _check_percent(q)
    return _quantile(a, _div100(q, a), axis, method, keepdims, False, "percentile", kw)


def _check_percent(q: Any) -> None:
    if isinstance(q, Tracer) or holds_tracer(q):  # read per row under vmap
        q = as_operand(q)
        if helpers.invalid_in_rows(logical_not((q >= 0) & (q <= 100))):
            raise ValueError("Percentiles must be in the range [0, 100]")
        return
    qa = to_host(q)
    if qa.size and not bool(((qa >= 0) & (qa <= 100)).all()):
        raise ValueError("Percentiles must be in the range [0, 100]")


@implements(numpy.nanquantile)
def nanquantile(
    a: Any,
    q: Any,
    axis: Any = None,
    out: Any = None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = False,
    **kw: Any,
) -> Any:
    """``numpy.nanquantile``: :func:`quantile` of the non-NaN elements of each slice (NaN
    for an all-NaN slice, without NumPy's warning).

    Example:
        >>> import numpy as np
        >>> float(nanquantile(np.array([1.0, np.nan, 3.0]), 0.5))
        2.0
    """
    kw.update(out=out, overwrite_input=overwrite_input)
    return _quantile(a, q, axis, method, keepdims, True, "nanquantile", kw)


@implements(numpy.nanpercentile)
def nanpercentile(
    a: Any,
    q: Any,
    axis: Any = None,
    out: Any = None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = False,
    **kw: Any,
) -> Any:
    """``numpy.nanpercentile``: :func:`nanquantile` with ``q`` in percent.

    Example:
        >>> import numpy as np
        >>> float(nanpercentile(np.array([1.0, np.nan, 3.0, 5.0]), 75))
        4.0
    """
    kw.update(out=out, overwrite_input=overwrite_input, weak_q=type(q) in (int, float))
    _check_percent(q)
    return _quantile(a, _div100(q, a), axis, method, keepdims, True, "nanpercentile", kw)


@implements(numpy.nanmedian)
def nanmedian(
    a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False, keepdims=False
) -> Any:
    """``numpy.nanmedian``: the median of the non-NaN elements of each slice.

    Example:
        >>> import numpy as np
        >>> nanmedian(np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 9.0]]), axis=1).tolist()
        [2.0, 5.0]
    """
    # NOTE [nanmedian's two middle values]: NumPy's nanmedian is not its quantile: it
    # averages the two middle values, ``(lo + hi) / 2`` (both the same one for an odd
    # count), where the 'midpoint' quantile interpolates, ``hi - (hi - lo) * 0.5``, which
    # differs in the last bit.  Along an axis shorter than 600 it is np.ma.median's sum of
    # the two divided by 2, in the data's dtype; over the whole array, a 1-d one or a long
    # axis, np.median's np.mean of the two (float16 summed in float32).
    a = as_operand(a)
    dims = ndim(a)
    if math.prod(helpers.shape(a)) == 0:  # NumPy: nanmean's NaN (and its warning)
        no_extra_args("nanmedian", {"out": out})
        return nanmean(a, axis=axis, keepdims=bool(keepdims))
    reduced = math.prod(helpers.shape(a)[i] for i in normalize_axes(axis, dims)) if dims else 1
    small = axis is not None and dims > 1 and reduced < 600
    kw = {"out": out, "overwrite_input": overwrite_input, "two_middle": "sum" if small else "mean"}
    return _quantile(a, 0.5, axis, "midpoint", bool(keepdims), True, "nanmedian", kw)


@implements(numpy.cov)
def cov(
    m: Any,
    y: Any = None,
    rowvar: bool = True,
    bias: bool = False,
    ddof: int | None = None,
    fweights: Any = None,
    aweights: Any = None,
    *,
    dtype: Any = None,
) -> Any:
    """``numpy.cov`` (differentiable in ``m``, ``y`` and ``aweights``).

    Example:
        >>> import numpy as np
        >>> cov(np.array([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]])).tolist()
        [[1.0, -1.0], [-1.0, 1.0]]
    """
    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be integer")
    m = as_operand(m)
    if ndim(m) > 2:
        raise ValueError("m has more than 2 dimensions")
    if dtype is None:
        dtype = numpy.result_type(dtype_of(m), numpy.float64)
        if y is not None:
            dtype = numpy.result_type(dtype, dtype_of(as_operand(y, m)))
    x = astype(atleast_2d(m), dtype)
    if not rowvar and shape(x)[0] != 1:
        x = transpose(x)
    if shape(x)[0] == 0:
        return zeros((0, 0), dtype, like=m)
    if y is not None:
        y = as_operand(y, m)
        if ndim(y) > 2:
            raise ValueError("y has more than 2 dimensions")
        y = astype(atleast_2d(y), dtype)
        if not rowvar and shape(y)[0] != 1:
            y = transpose(y)
        x = concatenate([x, y], axis=0)
    if ddof is None:
        ddof = 1 if not bias else 0
    nobs = shape(x)[1]
    w = None
    if fweights is not None:
        fw = as_operand(fweights, m)
        if invalid_in_rows(fw != rint(fw)):  # read per row under vmap
            raise TypeError("fweights must be integer")
        _check_weights(fw, nobs, "fweights")
        w = astype(fw, numpy.float64)
    if aweights is not None:
        aw = as_operand(aweights, m)
        _check_weights(aw, nobs, "aweights")
        aw = astype(aw, numpy.float64)
        w = aw if w is None else w * aw
    if w is None:
        avg = mean(x, axis=1)
        fact: Any = nobs - ddof
    else:
        avg, w_sum = average(x, axis=1, weights=w, returned=True)
        w_sum = getitem(w_sum, 0)
        if ddof == 0:
            fact = w_sum
        elif aweights is None:
            fact = w_sum - ddof
        else:
            fact = w_sum - ddof * sum(w * aw) / w_sum
    fact = maximum(fact, 0.0) if isinstance(fact, Tracer) else builtins.max(fact, 0.0)
    x = x - reshape(avg, (-1, 1))
    x_t = transpose(x if w is None else x * w)
    c = matmul(x, conj(x_t))
    return squeeze(c * true_divide(1, fact))


def _check_weights(w: Any, n: int, name: str) -> None:
    if ndim(w) > 1:
        raise RuntimeError(f"cannot handle multidimensional {name}")
    if shape(w)[0] != n:
        raise RuntimeError(f"incompatible numbers of samples and {name}")
    if invalid_in_rows(w < 0):  # read per row under vmap (the loop's rows raise)
        raise ValueError(f"{name} cannot be negative")


@implements(numpy.corrcoef)
def corrcoef(x: Any, y: Any = None, rowvar: bool = True, *, dtype: Any = None, **kw: Any) -> Any:
    """``numpy.corrcoef``: Pearson correlation coefficients (clipped to [-1, 1]).

    Example:
        >>> import numpy as np
        >>> corrcoef(np.array([0.0, 1.0, 2.0]), np.array([1.0, 3.0, 5.0])).round(6).tolist()
        [[1.0, 1.0], [1.0, 1.0]]
    """
    kw.pop("bias", None)  # deprecated no-ops in NumPy
    kw.pop("ddof", None)
    no_extra_args("corrcoef", kw)
    c = cov(x, y, rowvar, dtype=dtype)
    if ndim(c) == 0:
        return c / c
    stddev = sqrt(real(diagonal(c)))
    c = c / reshape(stddev, (-1, 1))
    c = c / reshape(stddev, (1, -1))
    if dtype_of(c).kind == "c":
        return clip(real(c), -1, 1) + 1j * clip(imag(c), -1, 1)
    return clip(c, -1, 1)


@implements(numpy.bincount)
def bincount(
    x: Any, /, weights: Any = None, minlength: int = 0, *, length: int | None = None
) -> Any:
    """``numpy.bincount``; differentiable in ``weights``.  The length, ``max(x) + 1``, is
    read from the values: under ``vmap`` it must be the same for every batch element (or
    ``minlength`` must cover it).  ``jax.numpy``'s ``length=`` fixes it instead (values
    at or past ``length`` are dropped), so nothing is read from the values.

    Example:
        >>> import numpy as np
        >>> bincount(np.array([0, 1, 1, 3])).tolist()
        [1, 2, 0, 1]
        >>> bincount(np.array([0, 1, 1]), weights=np.array([0.5, 1.0, 2.0])).tolist()
        [0.5, 3.0]
    """
    x = as_operand(x)
    minlength = int(minlength)
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    if ndim(x) != 1:
        raise ValueError(
            "object too deep for desired array"
            if ndim(x)
            else "object of too small depth for desired array"
        )
    if dtype_of(x).kind not in "iub":
        raise TypeError(
            f"Cannot cast array data from {dtype_of(x)!r} to dtype('int64') according to "
            f"the rule 'safe'"
        )
    if length is not None:  # jax.numpy's fixed length: out-of-range values dropped
        length = operator.index(length)
        if length < 0:
            raise ValueError(f"bincount: length must be non-negative, got {length}")
        counts = ones_like(x, dtype=numpy.intp) if weights is None else as_operand(weights, x)
        if shape(counts) != shape(x):
            raise ValueError("The weights and list don't have the same length.")
        dtype = numpy.intp if weights is None else numpy.float64  # NumPy's dtypes
        template = zeros((length,), dtype, like=x)
        return at(template)[astype(x, numpy.intp)].add(astype(counts, dtype), mode="drop")
    length = minlength
    if size(x):
        if helpers.invalid_in_rows(x < 0):  # per row under vmap
            raise ValueError("'list' argument must have no negative elements")
        top = maximum(max(x) + 1, minlength)
        length = same_across_batch(
            top, "bincount(x)", "pass a minlength that covers max(x) + 1 for every element"
        )
    index = astype(x, numpy.intp)
    if weights is None:
        template = zeros((length,), numpy.intp, like=x)
        return scatter(template, index, ones_like(index))
    weights = as_operand(weights, x)
    if shape(weights) != shape(x):
        raise ValueError("The weights and list don't have the same length.")
    template = zeros((length,), numpy.float64, like=x)
    return scatter(template, index, astype(weights, numpy.float64))


@implements(numpy.digitize)
def digitize(x: Any, bins: Any, right: bool = False, *, method: str | None = None) -> Any:
    """``numpy.digitize`` (no derivative); ``bins`` increasing or decreasing
    (``jax.numpy``'s ``method=`` is accepted: the answer is the same).

    Example:
        >>> import numpy as np
        >>> digitize(np.array([0.2, 6.4, 3.0, 1.6]), np.array([0.0, 1.0, 2.5, 4.0, 10.0])).tolist()
        [1, 4, 3, 2]
    """
    like = first_array(x, bins)
    x, bins = as_operand(x, like), as_operand(bins, like)
    if dtype_of(x).kind == "c":
        raise TypeError("x may not be complex")
    if ndim(bins) != 1:
        raise ValueError("object too deep for desired array")
    side = "left" if right else "right"
    n = shape(bins)[0]
    if not isinstance(bins, Tracer):
        b = to_host(bins)
        if n > 1 and not (b[1:] >= b[:-1]).all():
            if not (b[1:] <= b[:-1]).all():
                raise ValueError("bins must be monotonically increasing or decreasing")
            return n - searchsorted(flip(bins), x, side=side)
        return searchsorted(bins, x, side=side)
    up = searchsorted(bins, x, side=side)
    if n < 2:
        return up
    step_up, step_down = getitem(bins, slice(1, None)), getitem(bins, slice(None, -1))
    if helpers.invalid_in_rows(any(step_up > step_down) & any(step_up < step_down)):
        # NumPy's check, per row under vmap (a row's own error, as in the loop over rows)
        raise ValueError("bins must be monotonically increasing or decreasing")
    down = n - searchsorted(flip(bins), x, side=side)
    return where(getitem(bins, 0) > getitem(bins, -1), down, up)


def _edges_linspace(first: Any, last: Any, num: int, dt: Any, out_dt: Any, like: Any) -> Any:
    """NumPy's ``linspace(first, last, num)`` (``start + arange * step``, the last point
    exactly ``last``), computed in ``dt`` and cast to ``out_dt``."""
    first, last = astype(as_operand(first, like), dt), astype(as_operand(last, like), dt)
    step = (last - first) / (num - 1)
    y = arange(num - 1, dtype=dt, like=like) * step + first
    return astype(concatenate([y, reshape(last, (1,))]), out_dt)


@implements(numpy.histogram)
def histogram(
    a: Any, bins: Any = 10, range: Any = None, density: Any = None, weights: Any = None
) -> tuple[Any, Any]:  # noqa: A002
    """``numpy.histogram`` with a number of bins, explicit edges, or the name of NumPy's
    estimator of the number ('auto', 'fd', 'doane', 'scott', 'stone', 'rice', 'sturges',
    'sqrt'; under ``vmap`` rows whose counts differ split the batch): ``(hist, bin_edges)``.
    The counts have no derivative; a weighted histogram is differentiable in the weights,
    and automatic edges in the extremes of ``a``.

    Example:
        >>> import numpy as np
        >>> hist, edges = histogram(np.array([1.0, 2.0, 1.0, 4.0]), bins=3)
        >>> hist.tolist(), edges.tolist()
        ([2, 1, 1], [1.0, 2.0, 3.0, 4.0])
    """
    a = as_operand(a)
    if weights is not None:
        weights = as_operand(weights, a)
        if shape(weights) != shape(a):
            raise ValueError("weights should have the same shape as a.")
        weights = ravel(weights)
    a = ravel(a)
    if isinstance(bins, str):
        bins = _estimated_bin_count(a, bins, range, weights)
    if ndim(bins) == 0:
        nbins = int(bins)
        if nbins < 1:
            raise ValueError("`bins` must be positive, when an integer")
        if range is not None:
            first, last = range
            if not isinstance(first, Tracer) and not isinstance(last, Tracer):
                if first > last:
                    raise ValueError("max must be larger than min in range parameter.")
                if not (numpy.isfinite(first) and numpy.isfinite(last)):
                    raise ValueError(f"supplied range of [{first}, {last}] is not finite")
            else:  # NumPy's checks, read per row under vmap
                _check_traced_range(first, last, a)
        elif size(a) == 0:
            first, last = 0.0, 1.0
        else:
            first, last = min(a), max(a)
        if isinstance(first, Tracer) or isinstance(last, Tracer):
            same = first == last
            first = where(same, first - 0.5, first)
            last = where(same, last + 0.5, last)
        elif first == last:
            first, last = first - 0.5, last + 0.5
        out_dt = weak_result_type(first, last, a)
        if out_dt.kind in "iub":
            out_dt = numpy.result_type(out_dt, float)
        lin_dt = numpy.result_type(dtype_of(first), dtype_of(last))
        if lin_dt.kind not in "fc":
            lin_dt = numpy.dtype(numpy.float64)
        edges = _edges_linspace(first, last, nbins + 1, lin_dt, out_dt, a)
    else:
        edges = as_operand(bins, a)
        if ndim(edges) != 1:
            raise ValueError("`bins` must be 1d, when an array")
        if isinstance(edges, Tracer):  # read per row under vmap
            unordered = getitem(edges, slice(None, -1)) > getitem(edges, slice(1, None))
            if helpers.invalid_in_rows(unordered):
                raise ValueError("`bins` must increase monotonically, when an array")
        elif bool((to_host(edges)[:-1] > to_host(edges)[1:]).any()):
            raise ValueError("`bins` must increase monotonically, when an array")
        nbins = shape(edges)[0] - 1
    index = searchsorted(edges, a, side="right") - 1
    index = where(a == getitem(edges, -1), nbins - 1, index)
    hits = expand_dims(index, -1) == arange(nbins, like=a)  # (len(a), nbins)
    if weights is None:
        hist = sum(hits, axis=0)
    elif ndim(bins) == 0 and dtype_of(weights).kind in "fc":
        # NumPy's equal bins sum the weights in double precision (bincount), then cast
        wide = astype(weights, numpy.result_type(dtype_of(weights), numpy.float64))
        hist = sum(where(hits, expand_dims(wide, -1), 0), axis=0)
        hist = astype(hist, dtype_of(weights))
    else:
        hist = sum(where(hits, expand_dims(weights, -1), 0), axis=0)
    if density:
        widths = astype(getitem(edges, slice(1, None)) - getitem(edges, slice(None, -1)), float)
        hist = hist / widths / sum(hist)
    return hist, edges


def _bin_width(x: Any, name: str, outer: tuple) -> Any:
    """NumPy's estimator ``name`` of the bin width for the data ``x`` (``numpy.histogram``'s
    ``_hist_bin_<name>``), computed with the same operations on the (traced) data."""
    n = size(x)
    ptp = max(x) - min(x)
    if name == "sqrt":
        return ptp / numpy.sqrt(n)
    if name == "sturges":
        return ptp / (numpy.log2(n) + 1.0)
    if name == "rice":
        return ptp / (2.0 * n ** (1.0 / 3))
    if name == "scott":
        return (24.0 * numpy.pi**0.5 / n) ** (1.0 / 3.0) * std(x)
    if name == "doane":
        if n <= 2:
            return 0.0
        sg1 = numpy.sqrt(6.0 * (n - 2) / ((n + 1.0) * (n + 3)))
        sigma = std(x)
        g1 = mean(((x - mean(x)) / sigma) ** 3)
        width = ptp / (1.0 + numpy.log2(n) + log2(1.0 + abs(g1) / sg1))
        return where(sigma > 0.0, width, 0.0)
    if name == "stone":
        return 0 if n <= 1 else where(ptp == 0, 0, ptp / _stone_bins(x, outer, ptp))
    quartiles = percentile(x, [75, 25])
    fd = 2.0 * (getitem(quartiles, 0) - getitem(quartiles, 1)) * n ** (-1.0 / 3.0)
    if name == "fd":
        return fd
    # 'auto' (NumPy 2.x): Freedman-Diaconis, at least half of 'sqrt's, at most 'sturges's
    return minimum(maximum(fd, ptp / numpy.sqrt(n) / 2), ptp / (numpy.log2(n) + 1.0))


def _stone_bins(x: Any, outer: tuple, ptp: Any) -> Any:
    """Stone's number of bins: the ``k`` in 1..max(100, sqrt(n)) that minimizes NumPy's
    ``(2 - (n + 1) p.p) / (ptp / k)``, ``p`` the bin frequencies of ``histogram(x, k,
    range=outer)`` — all ``k`` at once: the left edges ``j step_k + first`` (NumPy's
    linspace), a value's bin the number of left edges at or below it (the last edge
    closed), the frequencies from one comparison."""
    n = size(x)
    upper = builtins.max(100, int(numpy.sqrt(n)))
    first, last = (as_operand(v, x) for v in outer)
    dt = numpy.result_type(dtype_of(first), dtype_of(last))
    dt = dt if dt.kind == "f" else numpy.dtype(numpy.float64)
    first, last = astype(first, dt), astype(last, dt)
    ks = arange(1, upper + 1, like=x)
    j = arange(upper, like=x)
    steps = (last - first) / astype(ks, dt)
    left = astype(
        expand_dims(astype(j, dt), 0) * expand_dims(steps, 1) + first,
        weak_result_type(first, last, x),
    )
    left = where(expand_dims(j, 0) < expand_dims(ks, 1), left, numpy.inf)  # (k, j): k bins
    index = sum(expand_dims(left, -1) <= x, axis=1) - 1  # (k, n)
    index = where(x == last, expand_dims(ks, 1) - 1, index)
    counts = sum(expand_dims(index, -1) == j, axis=1)  # (k, j)
    p = counts / n
    jhat = (2 - (n + 1) * sum(p * p, axis=1)) / (ptp / ks)
    best = argmin(jhat) + 1
    if same_across_batch(best, "histogram(bins='stone')", "pass a number of bins") == upper:
        warnings.warn(
            "The number of bins estimated may be suboptimal.", RuntimeWarning, stacklevel=5
        )
    return best


_BIN_ESTIMATORS = ("stone", "auto", "doane", "fd", "rice", "scott", "sqrt", "sturges")


def _estimated_bin_count(a: Any, name: str, rng: Any, weights: Any) -> int:
    """``numpy.histogram``'s number of bins for ``bins=name`` ('auto', 'fd', ...): its
    estimator on the data (within ``range``), then ``ceil((last - first) / width)``.  The
    count decides the result's shape: under ``vmap`` rows whose counts differ split the
    batch (``same_across_batch``), as the loop over the rows gives them their own."""
    if name not in _BIN_ESTIMATORS:
        raise ValueError(f"{name!r} is not a valid estimator for `bins`")
    if weights is not None:
        raise TypeError(
            "Automated estimation of the number of bins is not supported for weighted data"
        )
    data = helpers.peek(a)  # the data, batch axes included (a jit recording notes the read)
    if name == "stone" and tuple(data.shape) == shape(a):  # no batch: NumPy's own search
        return len(numpy.histogram_bin_edges(to_host(data), bins=name, range=rng)) - 1
    if rng is not None:
        first, last = rng
        if first > last:
            raise ValueError("max must be larger than min in range parameter.")
        a = getitem(a, (a >= first) & (a <= last))
    elif size(a) == 0:
        first, last = 0.0, 1.0
    else:
        first, last = min(a), max(a)
        if helpers.invalid_in_rows(logical_not(isfinite(first) & isfinite(last))):
            raise ValueError("autodetected range of the data is not finite")
    same = first == last
    first, last = where(same, first - 0.5, first), where(same, last + 0.5, last)
    if size(a) == 0:
        return 1
    width = _bin_width(a, name, (first, last))
    if dtype_of(a).kind in "iub":  # a nonzero width of integers is at least 1
        width = where((width != 0) & (width < 1), 1, width)
    safe = where(width != 0, width, 1.0)
    count = where(width != 0, ceil((last - first) / safe), 1)
    return same_across_batch(count, f"histogram(bins={name!r})", "pass a number of bins")


def _check_traced_range(first: Any, last: Any, like: Any) -> None:
    """``histogram``'s checks of a traced ``range`` (per row under vmap, as the loop over
    the rows raises them)."""
    first, last = as_operand(first, like), as_operand(last, like)
    if helpers.invalid_in_rows(first > last):
        raise ValueError("max must be larger than min in range parameter.")
    if helpers.invalid_in_rows(logical_not(isfinite(first) & isfinite(last))):
        raise ValueError("supplied range is not finite")


@implements(numpy.histogram_bin_edges)
def histogram_bin_edges(a: Any, bins: Any = 10, range: Any = None, weights: Any = None) -> Any:  # noqa: A002
    """``numpy.histogram_bin_edges``: the edges :func:`histogram` uses (differentiable in
    the extremes of ``a`` when they set the range).

    Example:
        >>> import numpy as np
        >>> histogram_bin_edges(np.array([0.0, 1.0]), bins=2).tolist()
        [0.0, 0.5, 1.0]
    """
    return histogram(a, bins, range, weights=weights)[1]


def _dd_edges(c: Any, bins: Any, rng: Any) -> Any:
    """One coordinate's edges as ``numpy.histogramdd`` makes them: ``linspace(first, last,
    bins + 1)`` in the dtype of the extremes (a given range's Python floats: float64)."""
    if ndim(bins) != 0:
        edges = as_operand(bins, c)
        if ndim(edges) != 1:
            raise ValueError("`bins[i]` must be a scalar or 1d array")
        return edges
    n = int(bins)
    if n < 1:
        raise ValueError("`bins[i]` must be positive, when an integer")
    if rng is not None:
        first, last = rng
        if not isinstance(first, Tracer) and not isinstance(last, Tracer):
            if first > last:
                raise ValueError("max must be larger than min in range parameter.")
        elif helpers.invalid_in_rows(as_operand(first, c) > as_operand(last, c)):
            raise ValueError("max must be larger than min in range parameter.")
    elif size(c) == 0:
        first, last = 0, 1
    else:
        first, last = min(c), max(c)
    if isinstance(first, Tracer) or isinstance(last, Tracer):
        same = first == last
        first, last = where(same, first - 0.5, first), where(same, last + 0.5, last)
    elif first == last:
        first, last = first - 0.5, last + 0.5
    dt = weak_result_type(first, last, 1.0)
    return _edges_linspace(first, last, n + 1, dt, dt, c)


@implements(numpy.histogramdd)
def histogramdd(
    sample: Any,
    bins: Any = 10,
    range: Any = None,  # noqa: A002
    density: Any = None,
    weights: Any = None,
) -> tuple[Any, list]:
    """``numpy.histogramdd``: ``(hist, edges)`` of ``sample`` (``N`` points of dimension
    ``D``, as an ``(N, D)`` array or a sequence of ``D`` coordinate arrays).  The counts
    have no derivative; weights and automatic edges (from each coordinate's extremes) do.

    Example:
        >>> import numpy as np
        >>> hist, edges = histogramdd(np.array([[0.0, 0.0], [1.0, 1.0]]), bins=2)
        >>> hist.tolist()
        [[1.0, 0.0], [0.0, 1.0]]
    """
    if isinstance(sample, (list, tuple)):
        coords = [ravel(as_operand(c)) for c in sample]
    else:
        sample = atleast_2d(as_operand(sample))
        coords = [getitem(sample, (slice(None), d)) for d in builtins.range(shape(sample)[1])]
    dims = len(coords)
    if isinstance(bins, (int, numpy.integer)) or (
        not isinstance(bins, (list, tuple)) and ndim(bins) == 0
    ):
        bins = [bins] * dims
    if len(bins) != dims:
        raise ValueError("The dimension of bins must be equal to the dimension of the sample x.")
    ranges = [None] * dims if range is None else list(range)
    if len(ranges) != dims:
        raise ValueError("range argument must have one entry per dimension")
    edges = [_dd_edges(c, b, r) for c, b, r in zip(coords, bins, ranges)]
    nbins = [shape(e)[0] - 1 for e in edges]
    flat: Any = 0
    inside: Any = True
    for c, e, n in zip(coords, edges, nbins):
        index = searchsorted(e, c, side="right") - 1
        index = where(c == getitem(e, -1), n - 1, index)  # the last bin is closed
        inside = inside & (index >= 0) & (index < n)
        flat = flat * n + index
    total = math.prod(nbins)
    hits = expand_dims(flat, -1) == arange(total, like=coords[0])
    hits = hits & expand_dims(inside, -1)
    if weights is None:
        hist = astype(sum(hits, axis=0), float)
    else:
        w = ravel(as_operand(weights, coords[0]))
        w = astype(w, float)  # summed in float64, as NumPy's bincount of the weights
        hist = sum(where(hits, expand_dims(w, -1), 0.0), axis=0)
    hist = reshape(hist, tuple(nbins))
    if density:
        hist = hist / sum(hist)
        for d, e in enumerate(edges):
            width = getitem(e, slice(1, None)) - getitem(e, slice(None, -1))
            hist = hist / reshape(width, tuple(-1 if k == d else 1 for k in builtins.range(dims)))
    return hist, edges


@implements(numpy.histogram2d)
def histogram2d(
    x: Any,
    y: Any,
    bins: Any = 10,
    range: Any = None,  # noqa: A002
    density: Any = None,
    weights: Any = None,
) -> tuple[Any, Any, Any]:
    """``numpy.histogram2d``: ``(H, xedges, yedges)``, as :func:`histogramdd` of the points
    ``(x[i], y[i])``.

    Example:
        >>> import numpy as np
        >>> H, xe, ye = histogram2d(np.array([0.0, 1.0]), np.array([1.0, 0.0]), bins=2)
        >>> H.tolist()
        [[0.0, 1.0], [1.0, 0.0]]
    """
    try:
        n = len(bins)
    except TypeError:
        n = 1
    if n not in (1, 2):  # one array of edges for both coordinates
        bins = [bins, bins]
    hist, edges = histogramdd([x, y], bins, range, density, weights)
    return hist, edges[0], edges[1]
