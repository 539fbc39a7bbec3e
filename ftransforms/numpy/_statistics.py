"""Covariance, correlation, counting and binning of NumPy (``cov``, ``corrcoef``,
``bincount``, ``digitize``, ``isin``, ``histogram``), written from ``ftransforms.numpy``
functions that have every rule.  Re-exported by :mod:`ftransforms.numpy`.

Counts have no derivative (weights do).  ``bincount`` reads its length from the values (so
``jit`` runs it eagerly) and raises ``BatchedControlFlowError`` when the length would differ
across a ``vmap`` batch.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.tracer import Tracer
from ftransforms.numpy._composite_helpers import (
    _arr,
    _host,
    _like,
    _result_type,
    _same_across_batch,
)

__all__ = [
    "bincount",
    "corrcoef",
    "cov",
    "digitize",
    "histogram",
    "isin",
]


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
