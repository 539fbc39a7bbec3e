"""``scipy.stats``' tests of equal variances and the point-biserial correlation on
tracers: ``bartlett``, ``levene`` (``center='median'`` or ``'mean'``) and
``pointbiserialr``, and the trimmed standard error of the mean ``tsem``, with SciPy's
signatures and result objects.

Each is SciPy's closed form in the samples' variances (or absolute deviations from their
centres), the p-values through ``chdtrc``/``fdtrc``, written with
:mod:`ftransforms.numpy`: differentiable and batchable.  Only ``nan_policy='propagate'``.

Example:
    >>> import numpy as np
    >>> res = bartlett(np.arange(5.0), np.arange(7.0) ** 1.5)
    >>> round(float(res.statistic), 6), round(float(res.pvalue), 6)  # SciPy's
    (4.825139, 0.028048)
"""

from __future__ import annotations

from typing import Any

import ftransforms.numpy as fnp
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.scipy import special as fsp
from ftransforms.scipy.stats_tests import (
    SignificanceResult,
    _moved,
    _propagate,
    _result,
    _trimmed,
    pearsonr,
    tvar,
)

__all__ = ["bartlett", "levene", "pointbiserialr", "tsem"]

BartlettResult = _result("BartlettResult", ("statistic", "pvalue"))
LeveneResult = _result("LeveneResult", ("statistic", "pvalue"))


def _samples(samples: tuple, axis: Any, keepdims: bool, where: str) -> list:
    if len(samples) < 2:
        raise ValueError(f"scipy.stats.{where}: must enter at least two input sample vectors")
    if keepdims:
        raise UnsupportedOperationError(
            f"scipy.stats.{where}(..., keepdims=True) on traced values: not supported; "
            "expand the result's axis with ftransforms.numpy.expand_dims"
        )
    if axis is None:
        return [fnp.ravel(_moved(s, 0)) for s in samples]
    return [_moved(s, axis) for s in samples]


def bartlett(
    *samples: Any, axis: Any = 0, nan_policy: str = "propagate", keepdims: bool = False
) -> Any:
    """``scipy.stats.bartlett``: Bartlett's test that the samples have equal variances.

    Example:
        >>> import numpy as np
        >>> round(float(bartlett(np.arange(4.0), 2 * np.arange(5.0)).statistic), 6)
        1.990232
    """
    _propagate(nan_policy, "bartlett")
    xs = _samples(samples, axis, keepdims, "bartlett")
    k = len(xs)
    ns = [float(x.shape[-1]) for x in xs]
    ssq = [fnp.var(x, axis=-1, ddof=1) for x in xs]
    ntot = sum(ns)
    spsq = sum((n - 1) * s for n, s in zip(ns, ssq)) / (ntot - k)
    numer = (ntot - k) * fnp.log(spsq) - sum((n - 1) * fnp.log(s) for n, s in zip(ns, ssq))
    denom = 1.0 + 1.0 / (3 * (k - 1)) * (sum(1.0 / (n - 1) for n in ns) - 1.0 / (ntot - k))
    stat = numer / denom
    return BartlettResult(statistic=stat, pvalue=fsp.chdtrc(k - 1.0, stat))


def levene(
    *samples: Any,
    center: str = "median",
    proportiontocut: float = 0.05,
    axis: Any = 0,
    nan_policy: str = "propagate",
    keepdims: bool = False,
) -> Any:
    """``scipy.stats.levene``: Levene's test (Brown-Forsythe with ``center='median'``) that
    the samples have equal variances.

    Example:
        >>> import numpy as np
        >>> round(float(levene(np.arange(4.0), 2 * np.arange(5.0)).statistic), 6)
        2.499089
    """
    _propagate(nan_policy, "levene")
    if center not in ("median", "mean"):
        raise UnsupportedOperationError(
            f"scipy.stats.levene(..., center={center!r}) on traced values: 'median' and "
            "'mean' are supported (trim the samples first for 'trimmed')"
        )
    xs = _samples(samples, axis, keepdims, "levene")
    k = len(xs)
    ns = [float(x.shape[-1]) for x in xs]
    ntot = sum(ns)
    centre = fnp.median if center == "median" else fnp.mean
    zs = [fnp.abs(x - centre(x, axis=-1, keepdims=True)) for x in xs]
    zbars = [fnp.mean(z, axis=-1) for z in zs]
    zbar = sum(n * zb for n, zb in zip(ns, zbars)) / ntot
    numer = (ntot - k) * sum(n * (zb - zbar) ** 2 for n, zb in zip(ns, zbars))
    dvar = sum(fnp.sum((z - zb[..., None]) ** 2, axis=-1) for z, zb in zip(zs, zbars))
    stat = numer / ((k - 1) * dvar)
    return LeveneResult(statistic=stat, pvalue=fsp.fdtrc(k - 1.0, ntot - k, stat))


def pointbiserialr(
    x: Any, y: Any, *, axis: Any = 0, nan_policy: str = "propagate", keepdims: bool = False
) -> Any:
    """``scipy.stats.pointbiserialr``: Pearson's correlation of a binary ``x`` with ``y``
    and its p-value (``res.correlation`` too).

    Example:
        >>> import numpy as np
        >>> x, y = np.array([0, 1, 0, 1, 0, 1]), np.arange(6.0) ** 2
        >>> round(float(pointbiserialr(x, y).statistic), 6)
        0.281025
    """
    _propagate(nan_policy, "pointbiserialr")
    if keepdims:
        raise UnsupportedOperationError(
            "scipy.stats.pointbiserialr(x, y, keepdims=True) on traced values: not supported"
        )
    if axis is None:
        x, y, axis = fnp.ravel(fnp.asarray(x)), fnp.ravel(fnp.asarray(y)), 0
    r = pearsonr(x, y, axis=axis)
    out = SignificanceResult(statistic=r.statistic, pvalue=r.pvalue)
    out.__dict__["correlation"] = r.statistic
    return out


def tsem(
    a: Any,
    limits: Any = None,
    inclusive: tuple = (True, True),
    axis: Any = 0,
    ddof: int = 1,
    *,
    nan_policy: str = "propagate",
    keepdims: bool = False,
) -> Any:
    """``scipy.stats.tsem``: the standard error of the mean of the elements inside
    ``limits``, ``sqrt(tvar / count)``.

    Example:
        >>> import numpy as np
        >>> round(float(tsem(np.arange(10.0), (2, 7))), 6)
        0.763763
    """
    _propagate(nan_policy, "tsem")
    _, _, (count, ax) = _trimmed(a, limits, inclusive, axis)
    var = tvar(a, limits, inclusive, axis, ddof, keepdims=True)
    out = fnp.sqrt(var / count)
    return out if keepdims else fnp.squeeze(out, ax)
