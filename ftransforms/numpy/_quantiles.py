"""Order statistics of NumPy (``quantile``, ``percentile``, their NaN-skipping forms and
``nanmedian``), written from ``ftransforms.numpy`` functions that have every rule (so each is
differentiable and batchable with no rule of its own).  Re-exported by
:mod:`ftransforms.numpy`.

They sort and gather: their derivative goes to the selected order statistics (weighted by
the interpolation), as in JAX.
"""

from __future__ import annotations

import math
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.tracer import Tracer
from ftransforms.numpy._composite_helpers import _arr, _const, _host

__all__ = [
    "nanmedian",
    "nanpercentile",
    "nanquantile",
    "percentile",
    "quantile",
]


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
    fnp._no_extra(name, kw)
    if method not in _METHODS:
        if method in _NUMPY_ONLY_METHODS:
            raise UnsupportedOperationError(
                f"{name}: method={method!r} is not supported; use one of {_METHODS}"
            )
        raise ValueError(f"'{method}' is not a valid method. Use one of: {_METHODS}")
    a = _arr(a)
    adt = fnp._dtype(a)
    if adt.kind == "c":
        raise TypeError("a must be an array of real numbers")
    # As NumPy: the indices and weights are computed in q's dtype, and a Python scalar q
    # is weak (the result keeps a's float dtype).
    weak = type(q) in (int, float)
    if isinstance(q, Tracer) or fnp._holds_tracer(q):
        q = _arr(q, a)
    else:
        q = _const(q, a)
        if q.size and not bool(((q >= 0) & (q <= 1)).all()):
            raise ValueError("Quantiles must be in the range [0, 1]")
    qdt = fnp._dtype(q) if fnp._dtype(q).kind == "f" else numpy.dtype(numpy.float64)
    cdt = adt if weak else numpy.result_type(adt, qdt)
    if cdt.kind != "f":
        cdt = numpy.dtype(numpy.float64)
    rank = fnp.ndim(a)
    axes = fnp._normalize_axes(axis, rank)
    rest = [i for i in range(rank) if i not in axes]
    shape = fnp.shape(a)
    lead = tuple(shape[i] for i in rest)
    n = math.prod(shape[i] for i in axes)
    x = fnp.reshape(fnp.transpose(a, rest + list(axes)), lead + (n,))
    s = fnp.sort(x, axis=-1)  # NaNs sort last
    qshape = fnp.shape(q)
    k = math.prod(qshape)
    qf = fnp.reshape(fnp.astype(q, qdt), (k,))
    float_a = adt.kind == "f"
    if nan and float_a:
        count = fnp.sum(fnp.logical_not(fnp.isnan(x)), axis=-1, keepdims=True)
        index = qf * (fnp.astype(count, qdt) - 1)  # lead + (k,)
        last = count - 1
    else:
        index = qf * (n - 1)  # (k,)
        last = n - 1

    def clamp(i: Any) -> Any:
        return fnp.maximum(fnp.minimum(fnp.astype(i, numpy.intp), last), 0)

    def gather(i: Any) -> Any:
        if fnp.ndim(i) == 1:
            return fnp.take(s, i, axis=-1)
        return fnp.take_along_axis(s, i, axis=-1)

    if method == "nearest":
        out = gather(clamp(fnp.rint(index)))  # NumPy rounds half to even
    else:
        low = fnp.floor(index)
        lo_i, hi_i = clamp(low), clamp(fnp.ceil(index))
        if method == "lower":
            out = gather(lo_i)
        elif method == "higher":
            out = gather(hi_i)
        else:
            lo, hi = gather(lo_i), gather(hi_i)
            t = (index - low) if method == "linear" else fnp.where(index == low, 0.0, 0.5)
            out = _lerp(lo, hi, fnp.astype(t, cdt), cdt)
    if float_a and not nan:  # NumPy: NaN wherever the slice holds one
        has_nan = fnp.any(fnp.isnan(x), axis=-1, keepdims=True)
        out = fnp.where(has_nan, numpy.nan, out)
    out = fnp.reshape(out, lead + qshape)
    nl = len(lead)
    out = fnp.transpose(out, list(range(nl, nl + len(qshape))) + list(range(nl)))
    if keepdims:
        kept = tuple(1 if i in axes else d for i, d in enumerate(shape))
        out = fnp.reshape(out, qshape + kept)
    return out


def _lerp(a: Any, b: Any, t: Any, dt: Any) -> Any:
    """NumPy's ``_lerp`` (the difference taken in the data's dtype, and from the nearer end
    point), so that values match NumPy's to the last bit."""
    d = fnp.astype(b - a, dt)
    a, b = fnp.astype(a, dt), fnp.astype(b, dt)
    return fnp.where(t >= 0.5, b - d * (1 - t), a + d * t)


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
    q = _arr(q, _arr(a))
    if fnp._dtype(q).kind not in "fc":
        q = fnp.astype(q, numpy.float64)
    return fnp.divide(q, 100)


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
    if not (isinstance(q, Tracer) or fnp._holds_tracer(q)):
        qa = _host(q)
        if qa.size and not bool(((qa >= 0) & (qa <= 100)).all()):
            raise ValueError("Percentiles must be in the range [0, 100]")


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
