"""``scipy.stats``' robust line fits on tracers: ``theilslopes`` (the median of the
pairwise slopes, with Sen's confidence interval) and ``siegelslopes`` (repeated medians),
with SciPy's signatures and result objects.

The slopes ``(y_j - y_i) / (x_j - x_i)`` of the pairs with different ``x`` are computed
with :mod:`ftransforms.numpy` (a pair with equal ``x`` holds NaN, which the sort puts last
and the NaN-skipping median leaves out), so the estimates differentiate through the
slopes that the medians select, in ``y`` and in ``x``.  Which sorted slopes bound Sen's
interval depends on the counts of tied values: those positions are read from the values
(a ``pure_callback`` behind ``stop_gradient``, per example under ``vmap``).  Only
``nan_policy='propagate'`` and one-dimensional data are supported.

Example:
    >>> import numpy as np
    >>> res = theilslopes(np.array([0.0, 1.0, 4.0, 9.0, 16.0]))
    >>> [float(v) for v in res]  # SciPy's
    [4.0, -4.0, 1.0, 7.0]
"""

from __future__ import annotations

import math
import statistics
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.callbacks import pure_callback
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.lax import stop_gradient
from ftransforms.scipy.stats_tests import _float, _propagate, _result
from ftransforms.shape_eval import ShapeDtypeStruct

__all__ = ["siegelslopes", "theilslopes"]

TheilslopesResult = _result(
    "TheilslopesResult", ("slope", "intercept", "low_slope", "high_slope"), 4
)
SiegelslopesResult = _result("SiegelslopesResult", ("slope", "intercept"))


def _data(y: Any, x: Any, axis: Any, nan_policy: str, keepdims: bool, where: str) -> tuple:
    _propagate(nan_policy, where)
    y = _float(y)
    x = fnp.arange(y.shape[0] if y.ndim else 1, dtype=numpy.float64) if x is None else _float(x)
    if axis not in (None, 0, -1) or y.ndim != 1 or x.shape != y.shape or keepdims:
        raise UnsupportedOperationError(
            f"scipy.stats.{where}(y, x) on traced values: y and x must be 1-D of one length "
            f"(got shapes {y.shape} and {x.shape}, axis={axis!r}, keepdims={keepdims}); "
            "loop over the rows with ftransforms.vmap"
        )
    return y, x


def _sen_positions(x: Any, y: Any, alpha: float) -> numpy.ndarray:
    """The positions, in the sorted slopes, of the median's two middle slopes and of Sen's
    interval bounds (-1: NaN, as SciPy's), from the values."""
    x, y = numpy.asarray(x), numpy.asarray(y)
    i, j = numpy.triu_indices(len(x), 1)
    nt = int(numpy.count_nonzero(x[i] != x[j]))
    if nt == 0:
        return numpy.full(4, -1, dtype=numpy.int64)
    alpha = 1.0 - alpha if alpha > 0.5 else alpha
    z = statistics.NormalDist().inv_cdf(alpha / 2.0) if 0 < alpha < 1 else math.nan
    n = len(y)

    def ties(v: numpy.ndarray) -> float:
        _, counts = numpy.unique(v, return_counts=True)
        k = counts[counts > 1].astype(float)
        return float(numpy.sum(k * (k - 1) * (2 * k + 5)))

    sigsq = (n * (n - 1) * (2 * n + 5) - ties(x) - ties(y)) / 18.0
    out = [(nt - 1) // 2, nt // 2, -1, -1]
    if sigsq >= 0 and math.isfinite(z):
        sigma = math.sqrt(sigsq)
        ru = min(int(numpy.round((nt - z * sigma) / 2.0)), nt - 1)
        rl = max(int(numpy.round((nt + z * sigma) / 2.0)) - 1, 0)
        if 0 <= rl < nt and 0 <= ru < nt:
            out[2:] = [rl, ru]
    return numpy.asarray(out, dtype=numpy.int64)


def _at(sorted_slopes: Any, k: Any) -> Any:
    return fnp.where(k < 0, fnp.nan, fnp.take(sorted_slopes, fnp.maximum(k, 0)))


def theilslopes(
    y: Any,
    x: Any = None,
    alpha: float = 0.95,
    method: str = "separate",
    *,
    axis: Any = None,
    nan_policy: str = "propagate",
    keepdims: bool = False,
) -> Any:
    """``scipy.stats.theilslopes``: the Theil-Sen slope (the median of the pairwise
    slopes), the intercept (``method='separate'``: ``median(y) - slope median(x)``;
    ``'joint'``: ``median(y - slope x)``) and Sen's ``alpha`` confidence interval of the
    slope.

    Example:
        >>> import numpy as np
        >>> round(float(theilslopes(np.array([1.0, 3.0, 2.0, 5.0]), method="joint").intercept), 6)
        1.25
    """
    if method not in ("joint", "separate"):
        raise ValueError(
            f"scipy.stats.theilslopes(y, x, method=...): 'joint' or 'separate', got {method!r}"
        )
    y, x = _data(y, x, axis, nan_policy, keepdims, "theilslopes")
    i, j = numpy.triu_indices(y.shape[0], 1)
    dx, dy = x[j] - x[i], y[j] - y[i]
    valid = dx != 0
    slopes = fnp.sort(fnp.where(valid, dy / fnp.where(valid, dx, 1.0), fnp.nan))
    spec = ShapeDtypeStruct((4,), numpy.int64)
    k = pure_callback(
        lambda xv, yv: _sen_positions(xv, yv, float(alpha)),
        spec,
        stop_gradient(x),
        stop_gradient(y),
        vmap_method="sequential",
    )
    slope = 0.5 * (_at(slopes, k[0]) + _at(slopes, k[1]))
    if method == "joint":
        intercept = fnp.median(y - slope * x)
    else:
        intercept = fnp.median(y) - slope * fnp.median(x)
    return TheilslopesResult(
        slope=slope, intercept=intercept, low_slope=_at(slopes, k[2]), high_slope=_at(slopes, k[3])
    )


def siegelslopes(
    y: Any,
    x: Any = None,
    method: str = "hierarchical",
    *,
    axis: Any = None,
    nan_policy: str = "propagate",
    keepdims: bool = False,
) -> Any:
    """``scipy.stats.siegelslopes``: Siegel's repeated-medians slope (the median over the
    points of the median slope to the others) and intercept (``'hierarchical'``:
    ``median(y - slope x)``; ``'separate'``: the repeated medians of the pairwise
    intercepts).

    Example:
        >>> import numpy as np
        >>> float(siegelslopes(np.array([1.0, 3.0, 5.0, 7.0, 30.0])).slope)
        2.0
    """
    if method not in ("hierarchical", "separate"):
        raise ValueError(
            "scipy.stats.siegelslopes(y, x, method=...): 'hierarchical' or 'separate', got "
            f"{method!r}"
        )
    y, x = _data(y, x, axis, nan_policy, keepdims, "siegelslopes")
    dx = x[:, None] - x[None, :]
    valid = dx != 0
    safe = fnp.where(valid, dx, 1.0)
    slopes = fnp.where(valid, (y[:, None] - y[None, :]) / safe, fnp.nan)
    slope = fnp.median(fnp.nanmedian(slopes, axis=1))
    if method == "separate":
        z = y[None, :] * x[:, None] - y[:, None] * x[None, :]
        intercept = fnp.median(fnp.nanmedian(fnp.where(valid, z / safe, fnp.nan), axis=1))
    else:
        intercept = fnp.median(y - slope * x)
    return SiegelslopesResult(slope=slope, intercept=intercept)
