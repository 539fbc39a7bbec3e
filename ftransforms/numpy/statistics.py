"""Statistics: order statistics (``median``, ``quantile``, ``percentile`` and NaN
variants), correlations (``cov``, ``corrcoef``) and histograms (``histogram``,
``bincount``, ``digitize``) (NumPy's "Statistics").
"""

from __future__ import annotations

import builtins
import math
import operator
from typing import Any

import numpy

import ftransforms.numpy.helpers as helpers
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.creation import as_operand, ones_like, zeros
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
from ftransforms.numpy.reductions import any, average, max, mean, min, sum
from ftransforms.numpy.sorting import searchsorted, sort
from ftransforms.numpy.ufuncs import (
    astype,
    ceil,
    clip,
    conj,
    divide,
    floor,
    imag,
    isfinite,
    isnan,
    logical_not,
    maximum,
    minimum,
    real,
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
    s = sort(a, axis=ax)
    n = helpers.shape(a)[ax]
    lead = (slice(None),) * ax
    lo = getitem(s, lead + (slice((n - 1) // 2, (n - 1) // 2 + 1),))
    hi = getitem(s, lead + (slice(n // 2, n // 2 + 1),))
    out = (lo + hi) / 2
    if n and dtype_of(s).kind in "fc":  # NumPy: a NaN on the axis makes the median NaN
        has_nan = isnan(getitem(s, lead + (slice(n - 1, n),)))  # sorted: NaN comes last
        out = where(has_nan, numpy.nan, out)
    return out if keepdims else squeeze(out, axis=ax)


_METHODS = ("linear", "lower", "higher", "nearest", "midpoint")
_NUMPY_ONLY_METHODS = (
    "inverted_cdf",
    "averaged_inverted_cdf",
    "closest_observation",
    "interpolated_inverted_cdf",
    "hazen",
    "weibull",
    "median_unbiased",
    "normal_unbiased",
)


def _quantile(
    a: Any, q: Any, axis: Any, method: str, keepdims: bool, nan: bool, name: str, kw: dict
) -> Any:
    """Shared by quantile/percentile and their NaN-skipping forms (``q`` in [0, 1])."""
    interpolation = kw.pop("interpolation", None)
    if interpolation is not None:  # NumPy's deprecated spelling
        method = interpolation
    kw.pop("overwrite_input", None)  # nothing is ever overwritten
    if kw.pop("weights", None) is not None:
        raise UnsupportedOperationError(f"{name}: weights= is not supported")
    no_extra_args(name, kw)
    if method not in _METHODS:
        if method in _NUMPY_ONLY_METHODS:
            raise UnsupportedOperationError(
                f"{name}: method={method!r} is not supported; use one of {_METHODS}"
            )
        raise ValueError(f"'{method}' is not a valid method. Use one of: {_METHODS}")
    a = as_operand(a)
    adt = dtype_of(a)
    if adt.kind == "c":
        raise TypeError("a must be an array of real numbers")
    # As NumPy: the indices and weights are computed in q's dtype, and a Python scalar q
    # is weak (the result keeps a's float dtype).
    weak = type(q) in (int, float)
    if isinstance(q, Tracer) or holds_tracer(q):
        q = as_operand(q, a)
        if helpers.invalid_in_rows(logical_not((q >= 0) & (q <= 1))):  # per row under vmap
            raise ValueError("Quantiles must be in the range [0, 1]")
    else:
        q = constant_like(q, a)
        if q.size and not bool(((q >= 0) & (q <= 1)).all()):
            raise ValueError("Quantiles must be in the range [0, 1]")
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
    x = reshape(transpose(a, rest + list(axes)), lead + (n,))
    s = sort(x, axis=-1)  # NaNs sort last
    qshape = helpers.shape(q)
    k = math.prod(qshape)
    qf = reshape(astype(q, qdt), (k,))
    float_a = adt.kind == "f"
    if nan and float_a:
        count = sum(logical_not(isnan(x)), axis=-1, keepdims=True)
        index = qf * (astype(count, qdt) - 1)  # lead + (k,)
        last = count - 1
    else:
        index = qf * (n - 1)  # (k,)
        last = n - 1

    def clamp(i: Any) -> Any:
        return maximum(minimum(astype(i, numpy.intp), last), 0)

    def gather(i: Any) -> Any:
        if ndim(i) == 1:
            return take(s, i, axis=-1)
        return take_along_axis(s, i, axis=-1)

    if method == "nearest":
        out = gather(clamp(rint(index)))  # NumPy rounds half to even
    else:
        low = floor(index)
        lo_i, hi_i = clamp(low), clamp(ceil(index))
        if method == "lower":
            out = gather(lo_i)
        elif method == "higher":
            out = gather(hi_i)
        else:
            lo, hi = gather(lo_i), gather(hi_i)
            t = (index - low) if method == "linear" else where(index == low, 0.0, 0.5)
            out = _lerp(lo, hi, astype(t, cdt), cdt)
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


def _lerp(a: Any, b: Any, t: Any, dt: Any) -> Any:
    """NumPy's ``_lerp`` (the difference taken in the data's dtype, and from the nearer end
    point), so that values match NumPy's to the last bit."""
    d = astype(b - a, dt)
    a, b = astype(a, dt), astype(b, dt)
    return where(t >= 0.5, b - d * (1 - t), a + d * t)


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
    """``numpy.quantile`` (methods 'linear', 'lower', 'higher', 'nearest', 'midpoint');
    ``q`` may be traced.

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
        return q / 100
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
    kw.update(out=out, overwrite_input=overwrite_input)
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
    kw.update(out=out, overwrite_input=overwrite_input)
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
    kw = {"out": out, "overwrite_input": overwrite_input}
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
    """``numpy.histogram`` with a number of bins or explicit edges: ``(hist, bin_edges)``.
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
        raise UnsupportedOperationError("histogram: bins given as a string are not supported")
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
    else:
        hist = sum(where(hits, expand_dims(weights, -1), 0), axis=0)
    if density:
        widths = astype(getitem(edges, slice(1, None)) - getitem(edges, slice(None, -1)), float)
        hist = hist / widths / sum(hist)
    return hist, edges


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
