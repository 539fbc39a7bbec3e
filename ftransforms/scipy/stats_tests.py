"""``scipy.stats``' correlations, tests and descriptive statistics on tracers
(``pearsonr`` is in :mod:`~ftransforms.scipy.stats_correlation`): ``spearmanr``,
``linregress``, ``ttest_ind``, ``ttest_rel``, ``ttest_1samp``, ``f_oneway``,
``chisquare``, ``describe``, ``iqr``, ``tmean``/``tvar``/``tstd``/``tmin``/``tmax``,
``hmean``, ``wasserstein_distance``, ``energy_distance``, ``boxcox_llf`` and
``binned_statistic``, with SciPy's signatures and result objects (``res.statistic``,
``res.pvalue``, and unpacking as SciPy's: ``r, p = pearsonr(x, y)``).

Each statistic is a composition of :mod:`ftransforms.numpy` and
:mod:`ftransforms.scipy.special` (p-values through ``stdtr``, ``fdtrc``, ``chdtrc``), so
it is differentiable and batchable; SciPy's own code for them goes through its array-API
layer, which takes a traced array for an object array.  Ranks (``spearmanr``), sorting
positions (``wasserstein_distance``) and bin membership (``binned_statistic``) are
piecewise constant in the data: they are read, not differentiated.  Only
``nan_policy='propagate'`` is supported.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> x, y = np.array([1.0, 2.0, 3.0, 4.0]), np.array([1.0, 3.0, 2.0, 5.0])
    >>> r, p = pearsonr(x, y)
    >>> round(float(r), 6), round(float(p), 6)  # SciPy's
    (0.831522, 0.168478)
"""

from __future__ import annotations

import math
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.numpy.helpers import holds_traced_value, peek
from ftransforms.pytree import register_pytree_node
from ftransforms.scipy import special as fsp
from ftransforms.scipy.stats_correlation import pearsonr
from ftransforms.scipy.stats_ranks import rankdata
from ftransforms.scipy.stats_summaries import _propagate, kurtosis, skew

__all__ = [
    "binned_statistic",
    "boxcox_llf",
    "chisquare",
    "cramervonmises",
    "describe",
    "energy_distance",
    "f_oneway",
    "hmean",
    "iqr",
    "linregress",
    "spearmanr",
    "tmax",
    "tmean",
    "tmin",
    "tstd",
    "ttest_1samp",
    "ttest_ind",
    "ttest_rel",
    "tvar",
    "wasserstein_distance",
]


class _Result(tuple):
    """SciPy's result objects: a tuple of the first ``_n`` fields (what unpacking gives)
    with every field, and the extra ones, as attributes."""

    _fields: tuple = ()
    _n = 2

    def __new__(cls, **values: Any) -> _Result:
        self = super().__new__(cls, tuple(values[f] for f in cls._fields[: cls._n]))
        self.__dict__.update(values)
        return self

    def __repr__(self) -> str:
        inner = ", ".join(f"{f}={self.__dict__[f]!r}" for f in self._fields)
        return f"{type(self).__name__}({inner})"


def _result(name: str, fields: tuple, n: int = 2) -> type:
    """A result class, registered as a pytree of its fields (``jit``/``vmap`` return it)."""
    cls = type(name, (_Result,), {"_fields": fields, "_n": n, "__slots__": ()})
    return register_pytree_node(
        cls,
        lambda r: (tuple(r.__dict__.values()), tuple(r.__dict__)),
        lambda names, values: cls(**dict(zip(names, values))),
    )


SignificanceResult = _result("SignificanceResult", ("statistic", "pvalue"))
TtestResult = _result("TtestResult", ("statistic", "pvalue", "df"))
F_onewayResult = _result("F_onewayResult", ("statistic", "pvalue"))  # noqa: N816  (SciPy's)
Power_divergenceResult = _result("Power_divergenceResult", ("statistic", "pvalue"))  # noqa: N816
LinregressResult = _result(
    "LinregressResult", ("slope", "intercept", "rvalue", "pvalue", "stderr", "intercept_stderr"), 5
)
DescribeResult = _result(
    "DescribeResult", ("nobs", "minmax", "mean", "variance", "skewness", "kurtosis"), 6
)
BinnedStatisticResult = _result("BinnedStatisticResult", ("statistic", "bin_edges", "binnumber"), 3)


def _float(a: Any) -> Any:
    a = fnp.asarray(a)
    return fnp.astype(a, numpy.float64) if a.dtype.kind in "biu" else a


def _t_pvalue(t: Any, df: Any, alternative: str, where: str) -> Any:
    """The p-value of Student's t statistic ``t`` with ``df`` degrees of freedom."""
    if alternative == "two-sided":
        return 2.0 * fsp.stdtr(df, -fnp.abs(t))
    if alternative == "less":
        return fsp.stdtr(df, t)
    if alternative == "greater":
        return fsp.stdtr(df, -t)
    raise ValueError(f"{where}: alternative must be 'less', 'greater' or 'two-sided'")


def _moved(a: Any, axis: int) -> Any:
    return fnp.moveaxis(_float(a), axis, -1)


def spearmanr(
    a: Any,
    b: Any = None,
    axis: int = 0,
    nan_policy: str = "propagate",
    alternative: str = "two-sided",
) -> Any:
    """``scipy.stats.spearmanr`` of two 1-d samples: Pearson's ``r`` of their ranks
    (average ranks for ties) and its t-test p-value.  The ranks are piecewise constant in
    the data, so its derivative is 0.

    Example:
        >>> import numpy as np
        >>> float(spearmanr(np.array([1.0, 2.0, 3.0]), np.array([1.0, 5.0, 2.0])).statistic)
        0.5
    """
    _propagate(nan_policy, "spearmanr")
    if b is None or fnp.ndim(a) != 1 or fnp.ndim(b) != 1:
        raise UnsupportedOperationError(
            "scipy.stats.spearmanr(a, b) on traced values: two 1-d samples are supported; "
            "for a matrix of correlations call it on each pair of columns"
        )
    res = pearsonr(rankdata(a), rankdata(b), alternative=alternative)
    return SignificanceResult(statistic=res.statistic, pvalue=res.pvalue)


def linregress(
    x: Any,
    y: Any = None,
    alternative: str = "two-sided",
    *,
    axis: int = 0,
    nan_policy: str = "propagate",
    keepdims: bool = False,
) -> Any:
    """``scipy.stats.linregress``: the least-squares line ``y = slope x + intercept``,
    ``rvalue``, the p-value of the slope's t test and the standard errors.

    Example:
        >>> import numpy as np
        >>> res = linregress(np.array([0.0, 1.0, 2.0]), np.array([1.0, 3.0, 5.0]))
        >>> float(res.slope), float(res.intercept)
        (2.0, 1.0)
    """
    _propagate(nan_policy, "linregress")
    if y is None:
        x, y = fnp.asarray(x)[0], fnp.asarray(x)[1]
    if fnp.ndim(x) != 1 or fnp.ndim(y) != 1 or keepdims:
        raise UnsupportedOperationError(
            "scipy.stats.linregress(x, y) on traced values: 1-d x and y (keepdims=False) are "
            "supported; vmap over the rows for several regressions"
        )
    x, y = _float(x), _float(y)
    n = fnp.shape(x)[-1]
    xm, ym = fnp.mean(x), fnp.mean(y)
    dx, dy = x - xm, y - ym
    ssxm, ssym = fnp.mean(dx * dx), fnp.mean(dy * dy)
    ssxym = fnp.mean(dx * dy)
    r = fnp.clip(ssxym / fnp.sqrt(ssxm * ssym), -1.0, 1.0)
    slope = ssxym / ssxm
    intercept = ym - slope * xm
    df = n - 2
    if n == 2:
        p = fnp.ones_like(r)
        stderr = intercept_stderr = fnp.zeros_like(r)
    else:
        t = r * fnp.sqrt(df / fnp.maximum((1.0 - r) * (1.0 + r), 0.0))
        p = _t_pvalue(t, float(df), alternative, "linregress(x, y)")
        stderr = fnp.sqrt(fnp.maximum((1.0 - r * r) * ssym / ssxm / df, 0.0))
        intercept_stderr = stderr * fnp.sqrt(ssxm + xm * xm)
    return LinregressResult(
        slope=slope,
        intercept=intercept,
        rvalue=r,
        pvalue=p,
        stderr=stderr,
        intercept_stderr=intercept_stderr,
    )


def _kept(value: Any, keepdims: bool, axis: int = -1) -> Any:
    """``keepdims=True``: the reduced ``axis`` back in its place, of length 1."""
    return fnp.expand_dims(value, axis % (fnp.ndim(value) + 1)) if keepdims else value


def ttest_ind(
    a: Any,
    b: Any,
    *,
    axis: int = 0,
    equal_var: bool = True,
    nan_policy: str = "propagate",
    alternative: str = "two-sided",
    trim: float = 0,
    method: Any = None,
    keepdims: bool = False,
) -> Any:
    """``scipy.stats.ttest_ind``: the two-sample t test (pooled variance, or Welch's with
    ``equal_var=False``), its p-value and degrees of freedom.

    Example:
        >>> import numpy as np
        >>> res = ttest_ind(np.array([1.0, 2.0, 3.0]), np.array([2.0, 4.0, 6.0]))
        >>> round(float(res.statistic), 6), float(res.df)
        (-1.549193, 4.0)
    """
    _propagate(nan_policy, "ttest_ind")
    if trim or method is not None:
        raise UnsupportedOperationError(
            "scipy.stats.ttest_ind(..., trim=/method=) on traced values: the trimmed and "
            "resampling tests are not supported; the default test is"
        )
    a, b = _moved(a, axis), _moved(b, axis)
    n1, n2 = fnp.shape(a)[-1], fnp.shape(b)[-1]
    v1, v2 = fnp.var(a, axis=-1, ddof=1), fnp.var(b, axis=-1, ddof=1)
    diff = fnp.mean(a, axis=-1) - fnp.mean(b, axis=-1)
    if equal_var:
        df: Any = float(n1 + n2 - 2)
        pooled = ((n1 - 1) * v1 + (n2 - 1) * v2) / df
        denom = fnp.sqrt(pooled * (1.0 / n1 + 1.0 / n2))
    else:
        q1, q2 = v1 / n1, v2 / n2
        df = (q1 + q2) ** 2 / (q1 * q1 / (n1 - 1) + q2 * q2 / (n2 - 1))
        denom = fnp.sqrt(q1 + q2)
    t = diff / denom
    p = _t_pvalue(t, df, alternative, "ttest_ind(a, b)")
    df = df if not isinstance(df, float) else fnp.full_like(t, df)
    return TtestResult(statistic=_kept(t, keepdims, axis), pvalue=_kept(p, keepdims, axis), df=df)


def ttest_1samp(
    a: Any,
    popmean: Any,
    axis: int = 0,
    nan_policy: str = "propagate",
    alternative: str = "two-sided",
    *,
    keepdims: bool = False,
) -> Any:
    """``scipy.stats.ttest_1samp``: the t test of ``mean(a) == popmean``.

    Example:
        >>> import numpy as np
        >>> round(float(ttest_1samp(np.array([1.0, 2.0, 4.0]), 1.0).statistic), 6)
        1.511858
    """
    _propagate(nan_policy, "ttest_1samp")
    a = _moved(a, axis)
    n = fnp.shape(a)[-1]
    t = (fnp.mean(a, axis=-1) - popmean) / fnp.sqrt(fnp.var(a, axis=-1, ddof=1) / n)
    p = _t_pvalue(t, float(n - 1), alternative, "ttest_1samp(a, popmean)")
    df = fnp.full_like(t, float(n - 1))
    return TtestResult(statistic=_kept(t, keepdims, axis), pvalue=_kept(p, keepdims, axis), df=df)


def ttest_rel(
    a: Any,
    b: Any,
    axis: int = 0,
    nan_policy: str = "propagate",
    alternative: str = "two-sided",
    *,
    keepdims: bool = False,
) -> Any:
    """``scipy.stats.ttest_rel``: the paired t test (:func:`ttest_1samp` of ``a - b``
    against 0).

    Example:
        >>> import numpy as np
        >>> round(float(ttest_rel(np.array([2.0, 3.0, 5.0]), np.array([1.0, 2.0, 2.0]))[0]), 6)
        2.5
    """
    _propagate(nan_policy, "ttest_rel")
    return ttest_1samp(_float(a) - _float(b), 0.0, axis, alternative=alternative, keepdims=keepdims)


def f_oneway(
    *samples: Any,
    axis: int = 0,
    equal_var: bool = True,
    nan_policy: str = "propagate",
    keepdims: bool = False,
) -> Any:
    """``scipy.stats.f_oneway``: the one-way ANOVA F statistic of the samples and its
    p-value (``fdtrc``).

    Example:
        >>> import numpy as np
        >>> res = f_oneway(np.array([1.0, 2.0, 3.0]), np.array([2.0, 4.0, 6.0]))
        >>> round(float(res.statistic), 6)
        2.4
    """
    _propagate(nan_policy, "f_oneway")
    if not equal_var:
        raise UnsupportedOperationError(
            "scipy.stats.f_oneway(..., equal_var=False) on traced values: Welch's ANOVA is "
            "not supported; the default is"
        )
    groups = [_moved(s, axis) for s in samples]
    k = len(groups)
    sizes = [fnp.shape(g)[-1] for g in groups]
    n = sum(sizes)
    grand = sum(fnp.sum(g, axis=-1) for g in groups) / n
    between = sum(m * (fnp.mean(g, axis=-1) - grand) ** 2 for g, m in zip(groups, sizes))
    within = sum(fnp.sum((g - fnp.mean(g, axis=-1, keepdims=True)) ** 2, axis=-1) for g in groups)
    f = (between / (k - 1)) / (within / (n - k))
    p = fsp.fdtrc(float(k - 1), float(n - k), f)
    return F_onewayResult(statistic=_kept(f, keepdims, axis), pvalue=_kept(p, keepdims, axis))


def chisquare(
    f_obs: Any,
    f_exp: Any = None,
    ddof: int = 0,
    axis: int = 0,
    *,
    sum_check: bool = True,
    nan_policy: str = "propagate",
    keepdims: bool = False,
) -> Any:
    """``scipy.stats.chisquare``: Pearson's statistic ``sum((obs - exp)**2 / exp)`` (the
    expected frequencies default to the mean) and its p-value with ``k - 1 - ddof`` degrees
    of freedom.

    Example:
        >>> import numpy as np
        >>> float(chisquare(np.array([10.0, 20.0, 30.0])).statistic)
        10.0
    """
    _propagate(nan_policy, "chisquare")
    obs = _moved(f_obs, axis)
    k = fnp.shape(obs)[-1]
    if f_exp is None:
        exp = fnp.mean(obs, axis=-1, keepdims=True)
    else:
        exp = _moved(fnp.broadcast_to(fnp.asarray(f_exp), fnp.shape(f_obs)), axis)
        if sum_check:
            total_obs, total_exp = peek(fnp.sum(obs, axis=-1)), peek(fnp.sum(exp, axis=-1))
            if not numpy.allclose(total_obs, total_exp, rtol=1.5e-8):
                raise ValueError(
                    "chisquare(f_obs, f_exp): for each axis slice, the sum of the observed "
                    "frequencies must agree with the sum of the expected frequencies to a "
                    "relative tolerance of 1.5e-08 (pass sum_check=False to skip this check)"
                )
    stat = fnp.sum((obs - exp) ** 2 / exp, axis=-1)
    p = fsp.chdtrc(float(k - 1 - ddof), stat)
    return Power_divergenceResult(
        statistic=_kept(stat, keepdims, axis), pvalue=_kept(p, keepdims, axis)
    )


def describe(
    a: Any, axis: int | None = 0, ddof: int = 1, bias: bool = True, nan_policy: str = "propagate"
) -> Any:
    """``scipy.stats.describe``: ``nobs``, ``minmax``, ``mean``, ``variance`` (``ddof``),
    ``skewness`` and ``kurtosis`` (Fisher's, ``bias`` as SciPy's).

    Example:
        >>> import numpy as np
        >>> res = describe(np.array([1.0, 2.0, 4.0]))
        >>> int(res.nobs), round(float(res.mean), 6), round(float(res.variance), 6)
        (3, 2.333333, 2.333333)
    """
    _propagate(nan_policy, "describe")
    a = _float(a)
    if axis is None:
        a, axis = fnp.ravel(a), 0
    n = fnp.shape(a)[axis]
    return DescribeResult(
        nobs=numpy.int64(n),
        minmax=(fnp.min(a, axis=axis), fnp.max(a, axis=axis)),
        mean=fnp.mean(a, axis=axis),
        variance=fnp.var(a, axis=axis, ddof=ddof),
        skewness=skew(a, axis, bias=bias),
        kurtosis=kurtosis(a, axis, bias=bias),
    )


_IQR_NORMAL = 1.3489795003921634  # 2 * sqrt(2) * erfinv(1/2): the normal's IQR


def iqr(
    x: Any,
    axis: Any = None,
    rng: tuple = (25, 75),
    scale: Any = 1.0,
    nan_policy: str = "propagate",
    interpolation: str = "linear",
    keepdims: bool = False,
) -> Any:
    """``scipy.stats.iqr``: the difference of the ``rng`` percentiles (NumPy's
    ``interpolation`` methods), divided by ``scale`` (``'normal'``: the normal's IQR).

    Example:
        >>> import numpy as np
        >>> float(iqr(np.arange(9.0)))
        4.0
    """
    _propagate(nan_policy, "iqr")
    x = _float(x)
    lo, hi = fnp.percentile(x, list(rng), axis=axis, method=interpolation, keepdims=keepdims)
    if isinstance(scale, str):
        if scale != "normal":
            raise ValueError(f"iqr(x, scale={scale!r}): scale must be 'normal' or a number")
        scale = _IQR_NORMAL
    return (hi - lo) / scale


def _inside(a: Any, limits: Any, inclusive: tuple) -> Any:
    """The elements of ``a`` inside ``limits`` (``None``: all), as SciPy's trimmed
    statistics count them."""
    mask = fnp.ones_like(a, dtype=bool)
    if limits is None:
        return mask
    lo, hi = limits
    if lo is not None:
        mask = mask & ((a >= lo) if inclusive[0] else (a > lo))
    if hi is not None:
        mask = mask & ((a <= hi) if inclusive[1] else (a < hi))
    return mask


def _trimmed(a: Any, limits: Any, inclusive: tuple, axis: Any) -> tuple[Any, Any, Any]:
    a = _float(a)
    if axis is None:
        a, axis = fnp.ravel(a), 0
    mask = _inside(a, limits, inclusive)
    count = fnp.sum(fnp.astype(mask, a.dtype), axis=axis, keepdims=True)
    if limits is not None and not numpy.all(peek(count) > 0):
        raise ValueError("No array values within given limits")
    return a, mask, (count, axis)


def tmean(
    a: Any,
    limits: Any = None,
    inclusive: tuple = (True, True),
    axis: Any = None,
    *,
    nan_policy: str = "propagate",
    keepdims: bool = False,
) -> Any:
    """``scipy.stats.tmean``: the mean of the elements inside ``limits``.

    Example:
        >>> import numpy as np
        >>> float(tmean(np.arange(10.0), (2, 5)))
        3.5
    """
    _propagate(nan_policy, "tmean")
    a, mask, (count, axis) = _trimmed(a, limits, inclusive, axis)
    out = fnp.sum(fnp.where(mask, a, 0.0), axis=axis, keepdims=True) / count
    return out if keepdims else fnp.squeeze(out, axis)


def tvar(
    a: Any,
    limits: Any = None,
    inclusive: tuple = (True, True),
    axis: Any = 0,
    ddof: int = 1,
    *,
    nan_policy: str = "propagate",
    keepdims: bool = False,
) -> Any:
    """``scipy.stats.tvar``: the variance (``ddof``) of the elements inside ``limits``.

    Example:
        >>> import numpy as np
        >>> round(float(tvar(np.arange(10.0), (2, 5))), 6)
        1.666667
    """
    _propagate(nan_policy, "tvar")
    a, mask, (count, axis) = _trimmed(a, limits, inclusive, axis)
    mean = fnp.sum(fnp.where(mask, a, 0.0), axis=axis, keepdims=True) / count
    dev = fnp.where(mask, a - mean, 0.0)
    out = fnp.sum(dev * dev, axis=axis, keepdims=True) / (count - ddof)
    return out if keepdims else fnp.squeeze(out, axis)


def tstd(
    a: Any,
    limits: Any = None,
    inclusive: tuple = (True, True),
    axis: Any = 0,
    ddof: int = 1,
    *,
    nan_policy: str = "propagate",
    keepdims: bool = False,
) -> Any:
    """``scipy.stats.tstd``: the square root of :func:`tvar`.

    Example:
        >>> import numpy as np
        >>> round(float(tstd(np.arange(10.0), (2, 5))), 6)
        1.290994
    """
    return fnp.sqrt(
        tvar(a, limits, inclusive, axis, ddof, nan_policy=nan_policy, keepdims=keepdims)
    )


def tmin(
    a: Any,
    lowerlimit: Any = None,
    axis: Any = 0,
    inclusive: bool = True,
    nan_policy: str = "propagate",
    *,
    keepdims: bool = False,
) -> Any:
    """``scipy.stats.tmin``: the smallest element at or above ``lowerlimit``.

    Example:
        >>> import numpy as np
        >>> float(tmin(np.array([3.0, 1.0, 2.0]), 1.5))
        2.0
    """
    _propagate(nan_policy, "tmin")
    a, mask, (_, axis) = _trimmed(a, (lowerlimit, None), (inclusive, True), axis)
    return fnp.min(fnp.where(mask, a, fnp.inf), axis=axis, keepdims=keepdims)


def tmax(
    a: Any,
    upperlimit: Any = None,
    axis: Any = 0,
    inclusive: bool = True,
    nan_policy: str = "propagate",
    *,
    keepdims: bool = False,
) -> Any:
    """``scipy.stats.tmax``: the largest element at or below ``upperlimit``.

    Example:
        >>> import numpy as np
        >>> float(tmax(np.array([3.0, 1.0, 2.0]), 2.5))
        2.0
    """
    _propagate(nan_policy, "tmax")
    a, mask, (_, axis) = _trimmed(a, (None, upperlimit), (True, inclusive), axis)
    return fnp.max(fnp.where(mask, a, -fnp.inf), axis=axis, keepdims=keepdims)


def hmean(
    a: Any,
    axis: Any = 0,
    dtype: Any = None,
    *,
    weights: Any = None,
    nan_policy: str = "propagate",
    keepdims: bool = False,
) -> Any:
    """``scipy.stats.hmean``: ``sum(w) / sum(w / a)`` (``w`` = 1 without ``weights``).

    Example:
        >>> import numpy as np
        >>> float(hmean(np.array([1.0, 4.0, 4.0])))
        2.0
    """
    _propagate(nan_policy, "hmean")
    a = _float(a) if dtype is None else fnp.astype(fnp.asarray(a), dtype)
    if axis is None:
        a, axis = fnp.ravel(a), 0
    w = fnp.ones_like(a) if weights is None else fnp.broadcast_to(fnp.asarray(weights), a.shape)
    return fnp.sum(w, axis=axis, keepdims=keepdims) / fnp.sum(w / a, axis=axis, keepdims=keepdims)


def _cdf_distance(p: int, u: Any, v: Any, u_weights: Any, v_weights: Any) -> Any:
    """The ``p``-distance of the empirical CDFs of ``u`` and ``v`` (SciPy's
    ``_cdf_distance``): the positions found by sorting are piecewise constant, the values
    are differentiated."""
    u, v = fnp.ravel(_float(u)), fnp.ravel(_float(v))
    u_order, v_order = fnp.argsort(u, kind="stable"), fnp.argsort(v, kind="stable")
    u_sorted, v_sorted = fnp.take(u, u_order), fnp.take(v, v_order)
    values = fnp.sort(fnp.concatenate([u, v]), kind="stable")
    deltas = fnp.diff(values)
    points = values[:-1]

    def cdf(x_sorted: Any, x_order: Any, weights: Any) -> Any:
        at = fnp.searchsorted(x_sorted, points, side="right")
        if weights is None:
            return at / fnp.shape(x_sorted)[0]
        w = fnp.take(fnp.ravel(_float(weights)), x_order)
        cum = fnp.concatenate([fnp.zeros(1, dtype=w.dtype), fnp.cumsum(w)])
        return fnp.take(cum, at) / cum[-1]

    diff = cdf(u_sorted, u_order, u_weights) - cdf(v_sorted, v_order, v_weights)
    if p == 1:
        return fnp.sum(fnp.abs(diff) * deltas)
    if p == 2:
        return fnp.sqrt(fnp.sum(diff * diff * deltas))
    return fnp.sum(fnp.abs(diff) ** p * deltas) ** (1.0 / p)


def wasserstein_distance(
    u_values: Any, v_values: Any, u_weights: Any = None, v_weights: Any = None
) -> Any:
    """``scipy.stats.wasserstein_distance`` of two 1-d samples (optionally weighted): the
    integral of ``|U - V|`` over their empirical CDFs.

    Example:
        >>> import numpy as np
        >>> float(wasserstein_distance(np.array([0.0, 1.0, 3.0]), np.array([5.0, 6.0, 8.0])))
        5.0
    """
    return _cdf_distance(1, u_values, v_values, u_weights, v_weights)


def energy_distance(
    u_values: Any, v_values: Any, u_weights: Any = None, v_weights: Any = None
) -> Any:
    """``scipy.stats.energy_distance`` of two 1-d samples: ``sqrt(2)`` times the
    L2 distance of their empirical CDFs.

    Example:
        >>> import numpy as np
        >>> round(float(energy_distance(np.array([0.0]), np.array([2.0]))), 6)
        2.0
    """
    return math.sqrt(2.0) * _cdf_distance(2, u_values, v_values, u_weights, v_weights)


def boxcox_llf(
    lmb: Any, data: Any, *, axis: int = 0, keepdims: bool = False, nan_policy: str = "propagate"
) -> Any:
    """``scipy.stats.boxcox_llf``: the Box-Cox log-likelihood
    ``(lmb - 1) sum(log x) - n/2 log var(boxcox(x, lmb))``.

    Example:
        >>> import numpy as np
        >>> round(float(boxcox_llf(1.0, np.array([1.0, 2.0, 4.0]))), 6)
        -0.662749
    """
    _propagate(nan_policy, "boxcox_llf")
    x = _moved(data, axis)
    n = fnp.shape(x)[-1]
    logx = fnp.log(x)
    if isinstance(lmb, (int, float)) and lmb == 0:
        logvar = fnp.log(fnp.var(logx, axis=-1))
    else:
        logvar = fnp.log(fnp.var(fnp.exp(lmb * logx), axis=-1)) - 2.0 * fnp.log(fnp.abs(lmb))
    out = (lmb - 1) * fnp.sum(logx, axis=-1) - n / 2.0 * logvar
    return _kept(out, keepdims, axis)


_STATISTICS = {
    "mean": lambda v, m, c: fnp.sum(fnp.where(m, v, 0.0), axis=-1) / c,
    "sum": lambda v, m, c: fnp.sum(fnp.where(m, v, 0.0), axis=-1),
    "count": lambda v, m, c: c,
    "min": lambda v, m, c: fnp.min(fnp.where(m, v, fnp.inf), axis=-1),
    "max": lambda v, m, c: fnp.max(fnp.where(m, v, -fnp.inf), axis=-1),
}


def binned_statistic(
    x: Any,
    values: Any,
    statistic: Any = "mean",
    bins: Any = 10,
    range: Any = None,  # noqa: A002
) -> Any:
    """``scipy.stats.binned_statistic`` of 1-d ``x`` and ``values``: SciPy's bins and bin
    numbers (read from ``x``), and the statistic (``'mean'``, ``'sum'``, ``'count'``,
    ``'std'``, ``'min'``, ``'max'``, ``'median'`` or a function of a bin's values)
    differentiable in ``values``; empty bins are NaN for the mean/std/median (0 for sum
    and count), as SciPy's.

    Example:
        >>> import numpy as np
        >>> res = binned_statistic(np.array([0.1, 0.2, 0.8]), np.array([1.0, 3.0, 5.0]), bins=2)
        >>> res.statistic.tolist()
        [2.0, 5.0]
    """
    import scipy.stats  # noqa: PLC0415  late import: SciPy is the optional extra

    if holds_traced_value(x):
        raise UnsupportedOperationError(
            "scipy.stats.binned_statistic(x, values) on traced values: the bin positions x "
            "decide which values fall in which bin and must be plain data; values may be traced"
        )
    xs = numpy.asarray(x, dtype=float)
    v = _float(values)
    theirs = scipy.stats.binned_statistic(xs, numpy.zeros(xs.shape), "count", bins, range)
    edges, number = theirs.bin_edges, theirs.binnumber
    nbins = len(edges) - 1
    masks = fnp.asarray(number[None, :] == numpy.arange(1, nbins + 1)[:, None], like=v)
    empty = theirs.statistic == 0
    count = fnp.asarray(numpy.where(empty, 1.0, theirs.statistic), like=v)  # (NaN set below)
    if statistic in _STATISTICS:
        out = _STATISTICS[statistic](v, masks, count)
        if statistic == "count":
            out = fnp.asarray(theirs.statistic, like=v)
        elif statistic in ("mean", "min", "max"):
            out = fnp.where(fnp.asarray(empty, like=v), fnp.nan, out)
    elif statistic == "std":
        mean = fnp.sum(fnp.where(masks, v, 0.0), axis=-1, keepdims=True) / count[:, None]
        dev = fnp.where(masks, v - mean, 0.0)
        out = fnp.sqrt(fnp.sum(dev * dev, axis=-1) / count)
        out = fnp.where(fnp.asarray(empty, like=v), fnp.nan, out)
    else:
        fn = fnp.median if statistic == "median" else statistic
        if not callable(fn):
            raise ValueError(f"binned_statistic(..., statistic={statistic!r}): unknown statistic")
        rows = [
            fnp.full((), fnp.nan) if e else fnp.asarray(fn(v[numpy.flatnonzero(number == b)]))
            for b, e in zip(numpy.arange(1, nbins + 1), empty)
        ]
        out = fnp.stack([fnp.astype(r, v.dtype) for r in rows])
    return BinnedStatisticResult(statistic=out, bin_edges=edges, binnumber=number)


# -- Cramer-von Mises --------------------------------------------------------------------------

CramerVonMisesResult = _result("CramerVonMisesResult", ("statistic", "pvalue"))


def _cvm_series(x: Any, term: Any) -> Any:
    """``sum_k term(x, k)``, each element stopping after its first term below 1e-7 in
    magnitude (that term included), as SciPy's series do; the stopping is read from the
    values (not differentiated)."""
    total = fnp.zeros_like(x)
    going = fnp.ones_like(x, dtype=bool)
    k = 0
    while numpy.any(peek(going)):
        z = term(x, k)
        total = total + fnp.where(going, z, 0.0)
        going = going & (fnp.abs(z) >= 1e-7)
        k += 1
    return total


def _cdf_cvm_inf(x: Any) -> Any:
    """The asymptotic cdf of the Cramer-von Mises statistic (Csorgo and Faraway, 1996,
    (1.2)), SciPy's series."""

    def term(x, k):
        u = math.exp(math.lgamma(k + 0.5) - math.lgamma(k + 1)) / (math.pi**1.5 * fnp.sqrt(x))
        y = 4 * k + 1
        q = y**2 / (16 * x)
        return u * math.sqrt(y) * fnp.exp(-q) * fsp.kv(0.25, q)

    return _cvm_series(x, term)


def _psi1_mod(x: Any) -> Any:
    """SciPy's ``_psi1_mod`` (Csorgo and Faraway, 1996, (1.10) without ``V(x) / 12``)."""

    def ed2(y):
        z = y**2 / 4
        return (
            fnp.exp(-z) * (y / 2) ** 1.5 * (fsp.kv(0.25, z) + fsp.kv(0.75, z)) / math.sqrt(math.pi)
        )

    def ed3(y):
        z = y**2 / 4
        kvs = 2 * fsp.kv(0.25, z) + 3 * fsp.kv(0.75, z) - fsp.kv(1.25, z)
        return fnp.exp(-z) / math.sqrt(math.pi) * (y / 2) ** 2.5 * kvs

    def term(x, k):
        m = 2 * k + 1
        sx = 2 * fnp.sqrt(x)
        y1, y2 = x**0.75, x**1.25
        g1, g3 = math.gamma(k + 0.5), math.gamma(k + 1.5)
        a = (
            m * g1 * ed2((4 * k + 3) / sx) / (9 * y1)
            + g1 * ed3((4 * k + 1) / sx) / (72 * y2)
            + 2 * (m + 2) * g3 * ed3((4 * k + 5) / sx) / (12 * y2)
            + 7 * m * g1 * ed2((4 * k + 1) / sx) / (144 * y1)
            + 7 * m * g1 * ed2((4 * k + 5) / sx) / (144 * y1)
        )
        return -a / (math.pi * math.gamma(k + 1))

    return _cvm_series(x, term)


def _cdf_cvm(w: Any, n: int) -> Any:
    """The cdf of the statistic for ``n`` observations (Csorgo and Faraway, 1996, (1.8)):
    0 below ``1 / (12 n)``, 1 from ``n / 3`` on."""
    inside = (w > 1.0 / (12 * n)) & (w < n / 3.0)
    ws = fnp.where(inside, w, 0.5 * (1.0 / (12 * n) + n / 3.0))
    cdf = _cdf_cvm_inf(ws) * (1 + 1.0 / (12 * n)) + _psi1_mod(ws) / n
    return fnp.where(inside, cdf, fnp.where(w >= n / 3.0, 1.0, 0.0))


def cramervonmises(
    rvs: Any,
    cdf: Any,
    args: tuple = (),
    *,
    axis: int | None = 0,
    nan_policy: str = "propagate",
    keepdims: bool = False,
) -> Any:
    """``scipy.stats.cramervonmises``: the one-sample Cramer-von Mises test of ``rvs``
    against ``cdf`` (a callable, or the name of a distribution): the statistic
    ``1 / (12 n) + sum_i ((2 i - 1) / (2 n) - F(x_(i)))**2`` and its p-value by SciPy's
    series (Csorgo and Faraway, 1996), differentiable in the data and in ``args``.

    Example:
        >>> import numpy as np
        >>> res = cramervonmises(np.array([-0.5, 0.1, 0.4, 1.2]), "norm")
        >>> round(float(res.statistic), 6)
        0.082712
    """
    _propagate(nan_policy, "cramervonmises")
    if isinstance(cdf, str):
        import ftransforms.scipy.stats as stats  # late import: stats imports this module

        cdf = getattr(stats, cdf).cdf
    x = fnp.asarray(rvs)
    x = fnp.ravel(x) if axis is None else fnp.moveaxis(x, axis, -1)
    n = fnp.shape(x)[-1]
    if n <= 1:
        raise ValueError("The sample must contain at least two observations.")
    vals = fnp.sort(x, axis=-1)
    u = (2 * numpy.arange(1, n + 1) - 1) / (2 * n)
    w = 1 / (12 * n) + fnp.sum((u - cdf(vals, *args)) ** 2, axis=-1)
    p = fnp.clip(1.0 - _cdf_cvm(w, n), 0.0, None)
    if keepdims:
        where = -1 if axis is None else axis
        w, p = fnp.expand_dims(w, where), fnp.expand_dims(p, where)
    return CramerVonMisesResult(statistic=w, pvalue=p)
