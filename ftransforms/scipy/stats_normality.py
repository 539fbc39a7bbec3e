"""``scipy.stats``' moment tests of normality on tracers: ``skewtest``, ``kurtosistest``,
``normaltest`` (D'Agostino-Pearson) and ``jarque_bera``, with SciPy's signatures and result
objects.

Each statistic is SciPy's closed form in the sample skewness and kurtosis
(:func:`~ftransforms.scipy.stats.skew`, :func:`~ftransforms.scipy.stats.kurtosis`), the
p-values through ``ndtr`` and ``chdtrc``, so they are differentiable and batchable; SciPy's
own code passes ``_no_deco`` to its ``skew`` and goes through its array-API layer, which
takes a traced array for an object array.  Too few observations (fewer than 8 for
``skewtest``/``normaltest``, 5 for ``kurtosistest``) give NaN, as SciPy's.  Only
``nan_policy='propagate'`` is supported.

Example:
    >>> import numpy as np
    >>> z, p = skewtest(np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 20.0]))
    >>> round(float(z), 6), round(float(p), 6)  # SciPy's
    (2.873568, 0.004059)
"""

from __future__ import annotations

import math
from typing import Any

import ftransforms.numpy as fnp
from ftransforms.scipy import special as fsp
from ftransforms.scipy.stats_summaries import kurtosis, skew
from ftransforms.scipy.stats_tests import SignificanceResult, _float, _propagate, _result

__all__ = ["jarque_bera", "kurtosistest", "normaltest", "skewtest"]

SkewtestResult = _result("SkewtestResult", ("statistic", "pvalue"))
KurtosistestResult = _result("KurtosistestResult", ("statistic", "pvalue"))
NormaltestResult = _result("NormaltestResult", ("statistic", "pvalue"))


def _prepared(a: Any, axis: Any, nan_policy: str, where: str) -> tuple:
    """``a`` as floats with the statistic's axis (``axis=None``: the flattened array) and
    the number of observations along it (a static shape)."""
    _propagate(nan_policy, where)
    a = _float(a)
    if axis is None:
        a, axis = fnp.ravel(a), 0
    axis = axis % a.ndim
    return a, axis, float(a.shape[axis])


def _kept(out: Any, src: Any, asked: Any, axis: int, keepdims: bool) -> Any:
    """``keepdims``: ``axis`` kept with length 1 (``axis=None``: every axis of ``src``)."""
    if not keepdims:
        return out
    return fnp.reshape(out, (1,) * fnp.ndim(src)) if asked is None else fnp.expand_dims(out, axis)


def _normal_pvalue(z: Any, alternative: str, where: str) -> Any:
    if alternative == "two-sided":
        return 2.0 * fsp.ndtr(-fnp.abs(z))
    if alternative == "less":
        return fsp.ndtr(z)
    if alternative == "greater":
        return fsp.ndtr(-z)
    raise ValueError(
        f"scipy.stats.{where}(a, alternative=...): alternative must be 'less', 'greater' or "
        f"'two-sided', got {alternative!r}"
    )


def _skew_z(a: Any, axis: int, n: float) -> Any:
    """SciPy's transformed skewness (D'Agostino 1970); NaN below 8 observations."""
    if n < 8:
        n = float("nan")
    b2 = skew(a, axis)
    y = b2 * ((n + 1) * (n + 3) / (6.0 * (n - 2))) ** 0.5
    beta2 = (
        3.0 * (n**2 + 27 * n - 70) * (n + 1) * (n + 3) / ((n - 2.0) * (n + 5) * (n + 7) * (n + 9))
    )
    w2 = -1 + (2 * (beta2 - 1)) ** 0.5
    delta = 1 / (0.5 * math.log(w2)) ** 0.5 if w2 > 1 else float("nan")
    alpha = (2.0 / (w2 - 1)) ** 0.5 if w2 > 1 else float("nan")
    y = fnp.where(y == 0, 1.0, y)
    return delta * fnp.arcsinh(y / alpha)


def _kurtosis_z(a: Any, axis: int, n: float) -> Any:
    """SciPy's transformed kurtosis (Anscombe & Glynn 1983); NaN below 5 observations."""
    if n < 5:
        n = float("nan")
    b2 = kurtosis(a, axis, fisher=False)
    e = 3.0 * (n - 1) / (n + 1)
    varb2 = 24.0 * n * (n - 2) * (n - 3) / ((n + 1) * (n + 1.0) * (n + 3) * (n + 5))
    x = (b2 - e) / varb2**0.5
    sqrtbeta1 = (
        6.0
        * (n * n - 5 * n + 2)
        / ((n + 7) * (n + 9))
        * (6.0 * (n + 3) * (n + 5) / (n * (n - 2) * (n - 3))) ** 0.5
    )
    big_a = 6.0 + 8.0 / sqrtbeta1 * (2.0 / sqrtbeta1 + (1 + 4.0 / sqrtbeta1**2) ** 0.5)
    term1 = 1 - 2 / (9.0 * big_a)
    denom = 1 + x * (2 / (big_a - 4.0)) ** 0.5
    safe = fnp.where(denom == 0.0, 1.0, denom)
    term2 = fnp.where(
        denom == 0.0, fnp.nan, fnp.sign(safe) * ((1 - 2.0 / big_a) / fnp.abs(safe)) ** (1 / 3)
    )
    return (term1 - term2) / (2 / (9.0 * big_a)) ** 0.5


def skewtest(
    a: Any,
    axis: Any = 0,
    nan_policy: str = "propagate",
    alternative: str = "two-sided",
    *,
    keepdims: bool = False,
) -> Any:
    """``scipy.stats.skewtest``: whether the skewness differs from a normal's, as
    ``(statistic, pvalue)``.

    Example:
        >>> import numpy as np
        >>> round(float(skewtest(np.arange(10.0) ** 2).statistic), 6)
        1.185549
    """
    src, asked = a, axis
    a, axis, n = _prepared(a, axis, nan_policy, "skewtest")
    z = _skew_z(a, axis, n)
    p = _normal_pvalue(z, alternative, "skewtest")
    return SkewtestResult(
        statistic=_kept(z, src, asked, axis, keepdims), pvalue=_kept(p, src, asked, axis, keepdims)
    )


def kurtosistest(
    a: Any,
    axis: Any = 0,
    nan_policy: str = "propagate",
    alternative: str = "two-sided",
    *,
    keepdims: bool = False,
) -> Any:
    """``scipy.stats.kurtosistest``: whether the kurtosis differs from a normal's, as
    ``(statistic, pvalue)``.

    Example:
        >>> import numpy as np
        >>> round(float(kurtosistest(np.arange(10.0) ** 2).statistic), 6)
        -0.28654
    """
    src, asked = a, axis
    a, axis, n = _prepared(a, axis, nan_policy, "kurtosistest")
    z = _kurtosis_z(a, axis, n)
    p = _normal_pvalue(z, alternative, "kurtosistest")
    return KurtosistestResult(
        statistic=_kept(z, src, asked, axis, keepdims), pvalue=_kept(p, src, asked, axis, keepdims)
    )


def normaltest(
    a: Any, axis: Any = 0, nan_policy: str = "propagate", *, keepdims: bool = False
) -> Any:
    """``scipy.stats.normaltest``: D'Agostino and Pearson's omnibus test, the sum of the
    squared :func:`skewtest` and :func:`kurtosistest` statistics, against chi-squared(2).

    Example:
        >>> import numpy as np
        >>> round(float(normaltest(np.arange(10.0) ** 2).statistic), 6)
        1.487632
    """
    src, asked = a, axis
    a, axis, n = _prepared(a, axis, nan_policy, "normaltest")
    s, k = _skew_z(a, axis, n), _kurtosis_z(a, axis, n)
    stat = s * s + k * k
    p = fsp.chdtrc(2.0, stat)
    return NormaltestResult(
        statistic=_kept(stat, src, asked, axis, keepdims),
        pvalue=_kept(p, src, asked, axis, keepdims),
    )


def jarque_bera(
    x: Any, *, axis: Any = None, nan_policy: str = "propagate", keepdims: bool = False
) -> Any:
    """``scipy.stats.jarque_bera``: ``n / 6 * (skew**2 + kurtosis**2 / 4)`` against
    chi-squared(2).

    Example:
        >>> import numpy as np
        >>> round(float(jarque_bera(np.arange(10.0) ** 2).statistic), 6)
        1.064342
    """
    src, asked = x, axis
    x, axis, n = _prepared(x, axis, nan_policy, "jarque_bera")
    stat = n / 6 * (skew(x, axis) ** 2 + kurtosis(x, axis) ** 2 / 4)
    p = fsp.chdtrc(2.0, stat)
    return SignificanceResult(
        statistic=_kept(stat, src, asked, axis, keepdims),
        pvalue=_kept(p, src, asked, axis, keepdims),
    )
