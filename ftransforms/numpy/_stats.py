"""Statistics, polynomials, signal helpers and a few array builders of NumPy, written from
``ftransforms.numpy`` functions that have every rule (so each is differentiable and
batchable with no rule of its own).  Re-exported by :mod:`ftransforms.numpy`.

Order statistics (``quantile``, ``percentile``, ``nanmedian``, ...) sort and gather: their
derivative goes to the selected order statistics (weighted by the interpolation), as in
JAX.  Functions whose result *shape* depends on the data (``trim_zeros``, ``bincount``,
``delete``/``insert`` with a traced index) read the concrete values (so ``jit`` runs them
eagerly) and raise ``BatchedControlFlowError`` when the shape would differ across a
``vmap`` batch.
"""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import BatchedControlFlowError, UnsupportedOperationError
from ftransforms.core.tracer import Tracer
from ftransforms.numpy._more import _concrete

__all__ = [
    "bincount",
    "block",
    "convolve",
    "corrcoef",
    "correlate",
    "cov",
    "delete",
    "diagflat",
    "digitize",
    "ediff1d",
    "geomspace",
    "gradient",
    "histogram",
    "insert",
    "interp",
    "isin",
    "logspace",
    "nanmedian",
    "nanpercentile",
    "nanquantile",
    "percentile",
    "polyadd",
    "polyder",
    "polyint",
    "polymul",
    "polysub",
    "polyval",
    "quantile",
    "resize",
    "trim_zeros",
    "unstack",
    "vander",
]


def _arr(x: Any, like: Any = None) -> Any:
    """Tracers and backend arrays as they are; Python scalars, lists (holding tracers or
    not) and, next to ``like`` on another backend, NumPy arrays as arrays on ``like``'s
    backend (a CuPy user may pass host constants such as weights or bins)."""
    if isinstance(x, Tracer):
        return x
    if hasattr(x, "dtype") and hasattr(x, "shape"):
        if like is None or type(x) is not numpy.ndarray:
            return x
        xp = fnp._xp(like)
        return x if xp is numpy else xp.asarray(x)
    if like is None or fnp._holds_tracer(x):
        return fnp.asarray(x)
    return fnp._xp(like).asarray(x)


def _result_type(*values: Any) -> Any:
    """``numpy.result_type`` of arrays' and tracers' dtypes, Python scalars staying weak
    (it never sees a backend array: CuPy's are not NumPy's)."""
    return numpy.result_type(
        *[
            v if isinstance(v, (bool, int, float, complex, type, numpy.dtype)) else fnp._dtype(v)
            for v in values
        ]
    )


def _host(x: Any) -> numpy.ndarray:
    """A NumPy copy of a concrete backend array (CuPy's included)."""
    return numpy.asarray(x.get() if hasattr(x, "get") else x)


def _like(*values: Any) -> Any:
    """The first backend array or tracer among ``values`` (None if there is none)."""
    return next((v for v in values if hasattr(v, "dtype") and hasattr(v, "shape")), None)


def _const(value: Any, like: Any, dtype: Any = None) -> Any:
    """A constant array on ``like``'s backend."""
    return fnp._xp(like).asarray(value, dtype=dtype)


# -- order statistics ----------------------------------------------------------------------

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


# -- covariance ----------------------------------------------------------------------------


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
    m = _arr(m)
    if fnp.ndim(m) > 2:
        raise ValueError("m has more than 2 dimensions")
    if dtype is None:
        dtype = numpy.result_type(fnp._dtype(m), numpy.float64)
        if y is not None:
            dtype = numpy.result_type(dtype, fnp._dtype(_arr(y, m)))
    x = fnp.astype(fnp.atleast_2d(m), dtype)
    if not rowvar and fnp.shape(x)[0] != 1:
        x = fnp.transpose(x)
    if fnp.shape(x)[0] == 0:
        return fnp.zeros((0, 0), dtype, like=m)
    if y is not None:
        y = _arr(y, m)
        if fnp.ndim(y) > 2:
            raise ValueError("y has more than 2 dimensions")
        y = fnp.astype(fnp.atleast_2d(y), dtype)
        if not rowvar and fnp.shape(y)[0] != 1:
            y = fnp.transpose(y)
        x = fnp.concatenate([x, y], axis=0)
    if ddof is None:
        ddof = 1 if not bias else 0
    nobs = fnp.shape(x)[1]
    w = None
    if fweights is not None:
        fw = _arr(fweights, m)
        if not isinstance(fw, Tracer) and not bool((_host(fw) == numpy.around(_host(fw))).all()):
            raise TypeError("fweights must be integer")
        _check_weights(fw, nobs, "fweights")
        w = fnp.astype(fw, numpy.float64)
    if aweights is not None:
        aw = _arr(aweights, m)
        _check_weights(aw, nobs, "aweights")
        aw = fnp.astype(aw, numpy.float64)
        w = aw if w is None else w * aw
    if w is None:
        avg = fnp.mean(x, axis=1)
        fact: Any = nobs - ddof
    else:
        avg, w_sum = fnp.average(x, axis=1, weights=w, returned=True)
        w_sum = fnp.getitem(w_sum, 0)
        if ddof == 0:
            fact = w_sum
        elif aweights is None:
            fact = w_sum - ddof
        else:
            fact = w_sum - ddof * fnp.sum(w * aw) / w_sum
    fact = fnp.maximum(fact, 0.0) if isinstance(fact, Tracer) else builtins.max(fact, 0.0)
    x = x - fnp.reshape(avg, (-1, 1))
    x_t = fnp.transpose(x if w is None else x * w)
    c = fnp.matmul(x, fnp.conj(x_t))
    return fnp.squeeze(c * fnp.true_divide(1, fact))


def _check_weights(w: Any, n: int, name: str) -> None:
    if fnp.ndim(w) > 1:
        raise RuntimeError(f"cannot handle multidimensional {name}")
    if fnp.shape(w)[0] != n:
        raise RuntimeError(f"incompatible numbers of samples and {name}")
    if not isinstance(w, Tracer) and bool((_host(w) < 0).any()):
        raise ValueError(f"{name} cannot be negative")


def corrcoef(x: Any, y: Any = None, rowvar: bool = True, *, dtype: Any = None, **kw: Any) -> Any:
    """``numpy.corrcoef``: Pearson correlation coefficients (clipped to [-1, 1]).

    Example:
        >>> import numpy as np
        >>> corrcoef(np.array([0.0, 1.0, 2.0]), np.array([1.0, 3.0, 5.0])).round(6).tolist()
        [[1.0, 1.0], [1.0, 1.0]]
    """
    kw.pop("bias", None)  # deprecated no-ops in NumPy
    kw.pop("ddof", None)
    fnp._no_extra("corrcoef", kw)
    c = cov(x, y, rowvar, dtype=dtype)
    if fnp.ndim(c) == 0:
        return c / c
    stddev = fnp.sqrt(fnp.real(fnp.diagonal(c)))
    c = c / fnp.reshape(stddev, (-1, 1))
    c = c / fnp.reshape(stddev, (1, -1))
    if fnp._dtype(c).kind == "c":
        return fnp.clip(fnp.real(c), -1, 1) + 1j * fnp.clip(fnp.imag(c), -1, 1)
    return fnp.clip(c, -1, 1)


# -- interpolation and signals -------------------------------------------------------------


def interp(
    x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None, period: Any = None
) -> Any:
    """``numpy.interp``: piecewise-linear interpolation, differentiable in ``x``, ``xp``
    and ``fp`` (and ``left``/``right``) like ``jax.numpy.interp``.

    Example:
        >>> import numpy as np
        >>> from ftransforms import grad
        >>> xp, fp = np.array([0.0, 1.0, 2.0]), np.array([0.0, 10.0, 0.0])
        >>> float(interp(0.25, xp, fp)), float(grad(lambda x: interp(x, xp, fp))(1.5))
        (2.5, -10.0)
    """
    like = _like(x, xp, fp)
    x, xp, fp = _arr(x, like), _arr(xp, like), _arr(fp, like)
    cdt = numpy.dtype(numpy.complex128 if fnp._dtype(fp).kind == "c" else numpy.float64)
    if fnp.ndim(xp) != 1 or fnp.ndim(fp) != 1:
        raise ValueError("Data points must be 1D sequences")
    if fnp.shape(xp)[0] != fnp.shape(fp)[0]:
        raise ValueError("fp and xp are not of the same length")
    if fnp.shape(xp)[0] == 0:
        raise ValueError("array of sample points is empty")
    x = fnp.astype(x, numpy.float64)
    xp = fnp.astype(xp, numpy.float64)
    fp = fnp.astype(fp, cdt)
    if period is not None:
        if not isinstance(period, Tracer) and period == 0:
            raise ValueError("period must be a non-zero value")
        period = fnp.abs(period) if isinstance(period, Tracer) else builtins.abs(period)
        left = right = None
        x = fnp.remainder(x, period)
        xp = fnp.remainder(xp, period)
        order = fnp.argsort(xp)
        xp, fp = fnp.take(xp, order), fnp.take(fp, order)
        xp = fnp.concatenate(
            [fnp.getitem(xp, slice(-1, None)) - period, xp, fnp.getitem(xp, slice(0, 1)) + period]
        )
        fp = fnp.concatenate([fnp.getitem(fp, slice(-1, None)), fp, fnp.getitem(fp, slice(0, 1))])
    n = fnp.shape(xp)[0]
    if n == 1:
        f = fnp.broadcast_to(fnp.getitem(fp, 0), fnp.shape(x))
    else:
        i = fnp.clip(fnp.searchsorted(xp, x, side="right"), 1, n - 1)
        xl, xr = fnp.take(xp, i - 1), fnp.take(xp, i)
        fl, fr = fnp.take(fp, i - 1), fnp.take(fp, i)
        dx = xr - xl
        flat = dx == 0  # repeated sample points: no NaN, and no NaN derivative
        slope = (fr - fl) / fnp.where(flat, fnp.ones((), numpy.float64, like=dx), dx)
        f = fnp.where(flat, fl, slope * (x - xl) + fl)
    first, last = fnp.getitem(xp, 0), fnp.getitem(xp, -1)
    below = fnp.getitem(fp, 0) if left is None else fnp.astype(_arr(left, fp), cdt)
    above = fnp.getitem(fp, -1) if right is None else fnp.astype(_arr(right, fp), cdt)
    f = fnp.where(x < first, below, f)
    return fnp.where(x > last, above, f)


def _conv_full(a: Any, v: Any) -> Any:
    """The full 1-D convolution ``out[k] = sum_j a[k - j] v[j]`` as one gather and one
    matrix-vector product (the windows are taken from the longer operand)."""
    if fnp.shape(a)[0] < fnp.shape(v)[0]:
        a, v = v, a
    n, m = fnp.shape(a)[0], fnp.shape(v)[0]
    if m == 1:
        return a * v
    zeros = fnp.zeros((m - 1,), fnp._dtype(a), like=a)
    padded = fnp.concatenate([zeros, a, zeros])
    xp = fnp._xp(a)
    index = xp.arange(n + m - 1)[:, None] + xp.arange(m)[None, :]
    return fnp.matmul(fnp.take(padded, index), fnp.flip(v))


def _mode(mode: Any) -> str:
    if mode not in ("valid", "same", "full"):
        raise ValueError("Use one of 'valid', 'same', or 'full' for convolve/correlate mode")
    return mode


def _mode_slice(full: Any, long: int, short: int, mode: str) -> Any:
    if mode == "full":
        return full
    if mode == "same":
        start = short - 1 - short // 2
        return fnp.getitem(full, slice(start, start + long))
    return fnp.getitem(full, slice(short - 1, long))


def _prepare_1d(a: Any, v: Any, name: str) -> tuple[Any, Any]:
    like = _like(a, v)
    a, v = fnp.atleast_1d(_arr(a, like)), fnp.atleast_1d(_arr(v, like))
    if fnp.ndim(a) != 1 or fnp.ndim(v) != 1:
        raise ValueError(f"{name}: object too deep for desired array")
    if fnp.shape(a)[0] == 0:
        raise ValueError("a cannot be empty")
    if fnp.shape(v)[0] == 0:
        raise ValueError("v cannot be empty")
    dt = _result_type(a, v)
    return fnp.astype(a, dt), fnp.astype(v, dt)


def convolve(a: Any, v: Any, mode: str = "full") -> Any:
    """``numpy.convolve`` of two 1-D sequences (modes 'full', 'same', 'valid').

    Example:
        >>> import numpy as np
        >>> convolve(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.5])).tolist()
        [0.0, 1.0, 2.5, 4.0, 1.5]
    """
    mode = _mode(mode)
    a, v = _prepare_1d(a, v, "convolve")
    n, m = fnp.shape(a)[0], fnp.shape(v)[0]
    return _mode_slice(_conv_full(a, v), builtins.max(n, m), builtins.min(n, m), mode)


def correlate(a: Any, v: Any, mode: str = "valid") -> Any:
    """``numpy.correlate``: ``out[k] = sum_n a[n + k] * conj(v[n])`` (modes 'valid',
    'same', 'full').

    Example:
        >>> import numpy as np
        >>> correlate(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.5]), "same").tolist()
        [2.0, 3.5, 3.0]
    """
    mode = _mode(mode)
    a, v = _prepare_1d(a, v, "correlate")
    n, m = fnp.shape(a)[0], fnp.shape(v)[0]
    v = fnp.conj(v)
    if n >= m:
        return _mode_slice(_conv_full(a, fnp.flip(v)), n, m, mode)
    # NumPy swaps the operands and reverses the result
    return fnp.flip(_mode_slice(_conv_full(v, fnp.flip(a)), m, n, mode))


# -- polynomials ---------------------------------------------------------------------------


def polyval(p: Any, x: Any) -> Any:
    """``numpy.polyval``: ``p[0] * x**(N-1) + ... + p[N-1]`` by Horner's scheme.

    Example:
        >>> import numpy as np
        >>> polyval(np.array([3.0, 0.0, 1.0]), np.array([1.0, 2.0])).tolist()
        [4.0, 13.0]
    """
    like = _like(p, x)
    p, x = _arr(p, like), _arr(x, like)
    dt = _result_type(p, x)
    if fnp.ndim(p) == 0:
        raise TypeError("iteration over a 0-d array (p must be a sequence of coefficients)")
    p, x = fnp.astype(p, dt), fnp.astype(x, dt)
    y: Any = fnp.zeros(fnp.shape(x), dt, like=x)
    for i in range(fnp.shape(p)[0]):
        y = y * x + fnp.getitem(p, i)
    return y


def polyder(p: Any, m: int = 1) -> Any:
    """``numpy.polyder``: the coefficients of the ``m``-th derivative.

    Example:
        >>> import numpy as np
        >>> polyder(np.array([1.0, 1.0, 1.0, 1.0])).tolist()
        [3.0, 2.0, 1.0]
    """
    m = int(m)
    if m < 0:
        raise ValueError("Order of derivative must be positive (see polyint)")
    p = _arr(p)
    for _ in range(m):
        n = fnp.shape(p)[0] - 1
        p = fnp.getitem(p, slice(None, -1)) * fnp.arange(n, 0, -1, like=p)
    return p


def polyint(p: Any, m: int = 1, k: Any = None) -> Any:
    """``numpy.polyint``: the coefficients of the ``m``-th antiderivative, with
    integration constants ``k`` (a scalar or one per order; may be traced).

    Example:
        >>> import numpy as np
        >>> polyint(np.array([3.0, 2.0, 1.0]), k=5.0).tolist()
        [1.0, 1.0, 1.0, 5.0]
    """
    m = int(m)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    p = _arr(p)
    k = fnp.zeros((m,), like=p) if k is None else fnp.atleast_1d(_arr(k, p))
    if fnp.shape(k)[0] == 1 and m > 1:
        k = fnp.broadcast_to(fnp.astype(k, _result_type(k, numpy.float64)), (m,))
    if fnp.shape(k)[0] < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    for i in range(m):
        scaled = fnp.true_divide(p, fnp.arange(fnp.shape(p)[0], 0, -1, like=p))
        ki = fnp.reshape(fnp.getitem(k, slice(i, i + 1)), (1,))
        dt = _result_type(scaled, ki)
        p = fnp.concatenate([fnp.astype(scaled, dt), fnp.astype(ki, dt)])
    return p


def _poly_pair(a1: Any, a2: Any, sign: int) -> Any:
    like = _like(a1, a2)
    a1, a2 = fnp.atleast_1d(_arr(a1, like)), fnp.atleast_1d(_arr(a2, like))
    d = fnp.shape(a2)[0] - fnp.shape(a1)[0]
    if d > 0:
        a1 = fnp.concatenate([fnp.zeros((d,), fnp._dtype(a1), like=a1), a1])
    elif d < 0:
        a2 = fnp.concatenate([fnp.zeros((-d,), fnp._dtype(a2), like=a2), a2])
    return a1 + a2 if sign > 0 else a1 - a2


def polyadd(a1: Any, a2: Any) -> Any:
    """``numpy.polyadd``.

    Example:
        >>> import numpy as np
        >>> polyadd(np.array([1.0, 2.0]), np.array([9.0, 5.0, 4.0])).tolist()
        [9.0, 6.0, 6.0]
    """
    return _poly_pair(a1, a2, 1)


def polysub(a1: Any, a2: Any) -> Any:
    """``numpy.polysub``.

    Example:
        >>> import numpy as np
        >>> polysub(np.array([2.0, 10.0, -2.0]), np.array([3.0, 10.0, -4.0])).tolist()
        [-1.0, 0.0, 2.0]
    """
    return _poly_pair(a1, a2, -1)


def polymul(a1: Any, a2: Any) -> Any:
    """``numpy.polymul``: the product's coefficients (leading zeros are kept, as in
    ``jax.numpy.polymul``; NumPy strips them).

    Example:
        >>> import numpy as np
        >>> polymul(np.array([1.0, 2.0, 3.0]), np.array([9.0, 5.0, 1.0])).tolist()
        [9.0, 23.0, 38.0, 17.0, 3.0]
    """
    return convolve(a1, a2)


def vander(x: Any, N: int | None = None, increasing: bool = False) -> Any:  # noqa: N803
    """``numpy.vander``: columns of powers of ``x`` (a running product, as NumPy's).

    Example:
        >>> import numpy as np
        >>> vander(np.array([1.0, 2.0, 3.0]), 3).tolist()
        [[1.0, 1.0, 1.0], [4.0, 2.0, 1.0], [9.0, 3.0, 1.0]]
    """
    x = _arr(x)
    if fnp.ndim(x) != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    n = fnp.shape(x)[0]
    N = n if N is None else int(N)  # noqa: N806
    dt = numpy.promote_types(fnp._dtype(x), int)
    x = fnp.astype(x, dt)
    if N == 0:
        return fnp.zeros((n, 0), dt, like=x)
    ones = fnp.ones((n, 1), dt, like=x)
    if N == 1:
        out = ones
    else:
        powers = fnp.cumprod(fnp.broadcast_to(fnp.reshape(x, (n, 1)), (n, N - 1)), axis=1)
        out = fnp.concatenate([ones, powers], axis=1)
    return out if increasing else fnp.flip(out, axis=1)


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


def _same_across_batch(value: Any, what: str, fix: str) -> int:
    """The one concrete value of a logical scalar that decides a shape, read with
    :func:`fnp.peek` (its physical array holds one value per vmap batch element): an error
    naming ``fix`` when the batch elements disagree."""
    values = numpy.unique(_host(fnp.peek(value)))
    if values.size != 1:
        raise BatchedControlFlowError(
            f"{what} under vmap: the shape of the result depends on the values, and it "
            f"differs across the batch ({values.tolist()}); {fix}"
        )
    return int(values[0])


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


def ediff1d(ary: Any, to_end: Any = None, to_begin: Any = None) -> Any:
    """``numpy.ediff1d``: differences of the flattened array, with extra values around.

    Example:
        >>> import numpy as np
        >>> ediff1d(np.array([1.0, 2.0, 4.0, 7.0]), to_begin=-99.0).tolist()
        [-99.0, 1.0, 2.0, 3.0]
    """
    ary = fnp.ravel(_arr(ary))
    dt = fnp._dtype(ary)
    parts = []
    for extra, name in ((to_begin, "to_begin"), (None, ""), (to_end, "to_end")):
        if name == "":
            lo, hi = fnp.getitem(ary, slice(1, None)), fnp.getitem(ary, slice(None, -1))
            parts.append(lo - hi)
        elif extra is not None:
            extra = _arr(extra, ary)
            if not numpy.can_cast(fnp._dtype(extra), dt, casting="same_kind"):
                raise TypeError(
                    f"dtype of `{name}` must be compatible with input `ary` under the "
                    f"`same_kind` rule."
                )
            parts.append(fnp.astype(fnp.ravel(extra), dt))
    return fnp.concatenate(parts) if len(parts) > 1 else parts[0]


def gradient(f: Any, *varargs: Any, axis: Any = None, edge_order: int = 1) -> Any:
    """``numpy.gradient``: central differences inside, one-sided (first or second order)
    at the edges; spacing as scalars or coordinate arrays (both may be traced).

    Example:
        >>> import numpy as np
        >>> gradient(np.array([1.0, 2.0, 4.0, 7.0, 11.0]), 2.0).tolist()
        [0.5, 0.75, 1.25, 1.75, 2.0]
    """
    f = _arr(f)
    rank = fnp.ndim(f)
    if axis is None:
        axes = tuple(range(rank))
    else:
        axes = (axis,) if isinstance(axis, (int, numpy.integer)) else tuple(axis)
        axes = tuple(fnp._normalize_axis(int(a), rank) for a in axes)
        if len(set(axes)) != len(axes):
            raise ValueError("repeated axis")
    if len(varargs) == 0:
        spacing: list = [1.0] * len(axes)
    elif len(varargs) == 1 and fnp.ndim(varargs[0]) == 0:
        spacing = [varargs[0]] * len(axes)
    elif len(varargs) == len(axes):
        spacing = []
        for i, d in enumerate(varargs):
            if fnp.ndim(d) == 0:
                spacing.append(d)
                continue
            d = _arr(d, f)
            if fnp.ndim(d) != 1:
                raise ValueError("distances must be either scalars or 1d")
            if fnp.shape(d)[0] != fnp.shape(f)[axes[i]]:
                raise ValueError(
                    "when 1d, distances must match the length of the corresponding dimension"
                )
            if fnp._dtype(d).kind in "iub":
                d = fnp.astype(d, numpy.float64)
            diffx = fnp.getitem(d, slice(1, None)) - fnp.getitem(d, slice(None, -1))
            if not isinstance(diffx, Tracer) and bool((diffx == diffx[0]).all()):
                diffx = diffx[0]  # uniform coordinates: the scalar formulas, as NumPy
            spacing.append(diffx)
    else:
        raise TypeError("invalid number of arguments")
    if edge_order > 2:
        raise ValueError("'edge_order' greater than 2 not supported")
    otype = fnp._dtype(f)
    if otype.kind not in "fc":
        otype = numpy.dtype(numpy.float64)
        f = fnp.astype(f, otype)
    outs = []
    for ax, h in zip(axes, spacing):
        if fnp.shape(f)[ax] < edge_order + 1:
            raise ValueError(
                "Shape of array too small to calculate a numerical gradient, at least "
                "(edge_order + 1) elements are required."
            )
        outs.append(fnp.astype(_gradient_axis(f, h, ax, edge_order, rank), otype))
    return outs[0] if len(outs) == 1 else tuple(outs)


def _gradient_axis(f: Any, h: Any, ax: int, edge_order: int, rank: int) -> Any:
    def sl(start: Any, stop: Any = "one") -> Any:
        if stop == "one":  # one position, kept as an axis of length 1
            stop = start + 1 if start != -1 else None
        return fnp.getitem(f, (slice(None),) * ax + (slice(start, stop),))

    uniform = fnp.ndim(h) == 0
    if uniform:
        inner = (sl(2, None) - sl(None, -2)) / (2.0 * h)
    else:
        shape = tuple(-1 if i == ax else 1 for i in range(rank))
        dx1, dx2 = fnp.getitem(h, slice(0, -1)), fnp.getitem(h, slice(1, None))
        a = -dx2 / (dx1 * (dx1 + dx2))
        b = (dx2 - dx1) / (dx1 * dx2)
        c = dx1 / (dx2 * (dx1 + dx2))
        a, b, c = (fnp.reshape(t, shape) for t in (a, b, c))
        inner = a * sl(None, -2) + b * sl(1, -1) + c * sl(2, None)
    if edge_order == 1:
        h0 = h if uniform else fnp.getitem(h, 0)
        hn = h if uniform else fnp.getitem(h, -1)
        first = (sl(1) - sl(0)) / h0
        last = (sl(-1) - sl(-2)) / hn
    else:
        if uniform:
            a, b, c = -1.5 / h, 2.0 / h, -0.5 / h
        else:
            dx1, dx2 = fnp.getitem(h, 0), fnp.getitem(h, 1)
            a = -(2.0 * dx1 + dx2) / (dx1 * (dx1 + dx2))
            b = (dx1 + dx2) / (dx1 * dx2)
            c = -dx1 / (dx2 * (dx1 + dx2))
        first = a * sl(0) + b * sl(1) + c * sl(2)
        if uniform:
            a, b, c = 0.5 / h, -2.0 / h, 1.5 / h
        else:
            dx1, dx2 = fnp.getitem(h, -2), fnp.getitem(h, -1)
            a = dx2 / (dx1 * (dx1 + dx2))
            b = -(dx2 + dx1) / (dx1 * dx2)
            c = (2.0 * dx2 + dx1) / (dx2 * (dx1 + dx2))
        last = a * sl(-3) + b * sl(-2) + c * sl(-1)
    dt = _result_type(first, inner, last)
    parts = [fnp.astype(p, dt) for p in (first, inner, last)]
    return fnp.concatenate(parts, axis=ax)


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


# -- counting and binning (no derivative in the counted values) ----------------------------


def bincount(x: Any, /, weights: Any = None, minlength: int = 0) -> Any:
    """``numpy.bincount``; differentiable in ``weights``.  The length, ``max(x) + 1``, is
    read from the values: under ``vmap`` it must be the same for every batch element (or
    ``minlength`` must cover it).

    Example:
        >>> import numpy as np
        >>> bincount(np.array([0, 1, 1, 3])).tolist()
        [1, 2, 0, 1]
        >>> bincount(np.array([0, 1, 1]), weights=np.array([0.5, 1.0, 2.0])).tolist()
        [0.5, 3.0]
    """
    x = _arr(x)
    minlength = int(minlength)
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    if fnp.ndim(x) != 1:
        raise ValueError(
            "object too deep for desired array"
            if fnp.ndim(x)
            else "object of too small depth for desired array"
        )
    if fnp._dtype(x).kind not in "iub":
        raise TypeError(
            f"Cannot cast array data from {fnp._dtype(x)!r} to dtype('int64') according to "
            f"the rule 'safe'"
        )
    length = minlength
    if fnp.size(x):
        if bool((_host(fnp.peek(fnp.min(x))) < 0).any()):
            raise ValueError("'list' argument must have no negative elements")
        top = fnp.maximum(fnp.max(x) + 1, minlength)
        length = _same_across_batch(
            top, "bincount(x)", "pass a minlength that covers max(x) + 1 for every element"
        )
    index = fnp.astype(x, numpy.intp)
    if weights is None:
        template = fnp.zeros((length,), numpy.intp, like=x)
        return fnp._scatter(template, index, fnp.ones_like(index))
    weights = _arr(weights, x)
    if fnp.shape(weights) != fnp.shape(x):
        raise ValueError("The weights and list don't have the same length.")
    template = fnp.zeros((length,), numpy.float64, like=x)
    return fnp._scatter(template, index, fnp.astype(weights, numpy.float64))


def digitize(x: Any, bins: Any, right: bool = False) -> Any:
    """``numpy.digitize`` (no derivative); ``bins`` increasing or decreasing.

    Example:
        >>> import numpy as np
        >>> digitize(np.array([0.2, 6.4, 3.0, 1.6]), np.array([0.0, 1.0, 2.5, 4.0, 10.0])).tolist()
        [1, 4, 3, 2]
    """
    like = _like(x, bins)
    x, bins = _arr(x, like), _arr(bins, like)
    if fnp._dtype(x).kind == "c":
        raise TypeError("x may not be complex")
    if fnp.ndim(bins) != 1:
        raise ValueError("object too deep for desired array")
    side = "left" if right else "right"
    n = fnp.shape(bins)[0]
    if not isinstance(bins, Tracer):
        b = _host(bins)
        if n > 1 and not (b[1:] >= b[:-1]).all():
            if not (b[1:] <= b[:-1]).all():
                raise ValueError("bins must be monotonically increasing or decreasing")
            return n - fnp.searchsorted(fnp.flip(bins), x, side=side)
        return fnp.searchsorted(bins, x, side=side)
    up = fnp.searchsorted(bins, x, side=side)
    if n < 2:
        return up
    down = n - fnp.searchsorted(fnp.flip(bins), x, side=side)
    return fnp.where(fnp.getitem(bins, 0) > fnp.getitem(bins, -1), down, up)


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
    fnp._no_extra("isin", kw)
    element = _arr(element, test_elements)
    test = fnp.ravel(_arr(test_elements, element))
    if fnp.size(test) == 0:
        out = fnp.zeros(fnp.shape(element), bool, like=element)
    else:
        out = fnp.any(fnp.expand_dims(element, -1) == test, axis=-1)
    return fnp.logical_not(out) if invert else out


def _edges_linspace(first: Any, last: Any, num: int, dt: Any, out_dt: Any, like: Any) -> Any:
    """NumPy's ``linspace(first, last, num)`` (``start + arange * step``, the last point
    exactly ``last``), computed in ``dt`` and cast to ``out_dt``."""
    first, last = fnp.astype(_arr(first, like), dt), fnp.astype(_arr(last, like), dt)
    step = (last - first) / (num - 1)
    y = fnp.arange(num - 1, dtype=dt, like=like) * step + first
    return fnp.astype(fnp.concatenate([y, fnp.reshape(last, (1,))]), out_dt)


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
    a = _arr(a)
    if weights is not None:
        weights = _arr(weights, a)
        if fnp.shape(weights) != fnp.shape(a):
            raise ValueError("weights should have the same shape as a.")
        weights = fnp.ravel(weights)
    a = fnp.ravel(a)
    if isinstance(bins, str):
        raise UnsupportedOperationError("histogram: bins given as a string are not supported")
    if fnp.ndim(bins) == 0:
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
        elif fnp.size(a) == 0:
            first, last = 0.0, 1.0
        else:
            first, last = fnp.min(a), fnp.max(a)
        if isinstance(first, Tracer) or isinstance(last, Tracer):
            same = first == last
            first = fnp.where(same, first - 0.5, first)
            last = fnp.where(same, last + 0.5, last)
        elif first == last:
            first, last = first - 0.5, last + 0.5
        out_dt = _result_type(first, last, a)
        if out_dt.kind in "iub":
            out_dt = numpy.result_type(out_dt, float)
        lin_dt = numpy.result_type(fnp._dtype(first), fnp._dtype(last))
        if lin_dt.kind not in "fc":
            lin_dt = numpy.dtype(numpy.float64)
        edges = _edges_linspace(first, last, nbins + 1, lin_dt, out_dt, a)
    else:
        edges = _arr(bins, a)
        if fnp.ndim(edges) != 1:
            raise ValueError("`bins` must be 1d, when an array")
        if not isinstance(edges, Tracer) and bool((_host(edges)[:-1] > _host(edges)[1:]).any()):
            raise ValueError("`bins` must increase monotonically, when an array")
        nbins = fnp.shape(edges)[0] - 1
    index = fnp.searchsorted(edges, a, side="right") - 1
    index = fnp.where(a == fnp.getitem(edges, -1), nbins - 1, index)
    hits = fnp.expand_dims(index, -1) == fnp.arange(nbins, like=a)  # (len(a), nbins)
    if weights is None:
        hist = fnp.sum(hits, axis=0)
    else:
        hist = fnp.sum(fnp.where(hits, fnp.expand_dims(weights, -1), 0), axis=0)
    if density:
        widths = fnp.astype(
            fnp.getitem(edges, slice(1, None)) - fnp.getitem(edges, slice(None, -1)), float
        )
        hist = hist / widths / fnp.sum(hist)
    return hist, edges
