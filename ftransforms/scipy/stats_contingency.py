"""``scipy.stats``' Cressie-Read power-divergence statistics on tracers:
``power_divergence`` (every ``lambda_`` SciPy names) and the contingency-table test
``chi2_contingency`` (expected frequencies from the margins, Yates' correction for one
degree of freedom), with SciPy's signatures and result objects.

The statistics are compositions of :mod:`ftransforms.numpy` and ``xlogy``, the p-values
``chdtrc``: differentiable in the observed (and expected) frequencies, and batchable.

Example:
    >>> import numpy as np
    >>> res = chi2_contingency(np.array([[3.0, 4.0], [2.0, 6.0]]))
    >>> round(float(res.statistic), 6), int(res.dof)  # SciPy's
    (0.033482, 1)
"""

from __future__ import annotations

from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.numpy.helpers import peek
from ftransforms.scipy import special as fsp
from ftransforms.scipy.stats_tests import Power_divergenceResult, _kept, _moved, _propagate, _result

__all__ = ["chi2_contingency", "power_divergence"]

Chi2ContingencyResult = _result(
    "Chi2ContingencyResult", ("statistic", "pvalue", "dof", "expected_freq"), 4
)

#: SciPy's names of the power-divergence exponents.
_LAMBDAS = {
    "pearson": 1.0,
    "log-likelihood": 0.0,
    "freeman-tukey": -0.5,
    "mod-log-likelihood": -1.0,
    "neyman": -2.0,
    "cressie-read": 2.0 / 3.0,
}


def _lambda(lambda_: Any) -> float:
    if lambda_ is None:
        return 1.0
    if isinstance(lambda_, str):
        if lambda_ not in _LAMBDAS:
            raise ValueError(
                f"power_divergence(..., lambda_={lambda_!r}): invalid string; use one of "
                f"{sorted(_LAMBDAS)} or a number"
            )
        return _LAMBDAS[lambda_]
    return lambda_


def power_divergence(
    f_obs: Any,
    f_exp: Any = None,
    ddof: int = 0,
    axis: Any = 0,
    lambda_: Any = None,
    *,
    nan_policy: str = "propagate",
    keepdims: bool = False,
) -> Any:
    """``scipy.stats.power_divergence``: the Cressie-Read statistic of the observed
    frequencies against the expected ones (their mean by default) and its chi-squared
    p-value with ``k - 1 - ddof`` degrees of freedom.

    Example:
        >>> import numpy as np
        >>> res = power_divergence(np.array([3.0, 4.0, 5.0]), lambda_="log-likelihood")
        >>> round(float(res.statistic), 6)
        0.505343
    """
    _propagate(nan_policy, "power_divergence")
    lam = _lambda(lambda_)
    if axis is None:
        f_obs = fnp.ravel(fnp.asarray(f_obs))
        f_exp = None if f_exp is None else fnp.ravel(fnp.asarray(f_exp))
        axis = 0
    obs = _moved(f_obs, axis)
    k = fnp.shape(obs)[-1]
    if f_exp is None:
        exp = fnp.mean(obs, axis=-1, keepdims=True)
    else:
        exp = _moved(fnp.broadcast_to(fnp.asarray(f_exp), fnp.shape(f_obs)), axis)
        _same_totals(obs, exp)
    return _divergence(obs, exp, k, ddof, lam, axis, keepdims)


def _same_totals(obs: Any, exp: Any) -> None:
    """SciPy's check that the totals agree (read from the values)."""
    total_obs, total_exp = peek(fnp.sum(obs, axis=-1)), peek(fnp.sum(exp, axis=-1))
    rtol = float(numpy.sqrt(numpy.finfo(float).eps))
    if not numpy.allclose(total_obs, total_exp, rtol=rtol, atol=0):
        raise ValueError(
            "power_divergence(f_obs, f_exp): for each axis slice, the sum of the observed "
            "frequencies must agree with the sum of the expected frequencies (as SciPy's)"
        )


def _divergence(
    obs: Any, exp: Any, k: int, ddof: int, lam: float, axis: int, keepdims: bool
) -> Any:
    if lam == 1:
        terms = (obs - exp) ** 2 / exp
    elif lam == 0:
        terms = 2.0 * fsp.xlogy(obs, obs / exp)
    elif lam == -1:
        terms = 2.0 * fsp.xlogy(exp, exp / obs)
    else:
        terms = obs * ((obs / exp) ** lam - 1) * (2.0 / (lam * (lam + 1)))
    stat = fnp.sum(terms, axis=-1)
    p = fsp.chdtrc(fnp.asarray(k - 1.0 - ddof), stat)
    return Power_divergenceResult(
        statistic=_kept(stat, keepdims, axis), pvalue=_kept(p, keepdims, axis)
    )


def chi2_contingency(
    observed: Any, correction: bool = True, lambda_: Any = None, *, method: Any = None
) -> Any:
    """``scipy.stats.chi2_contingency``: the test of independence of a contingency
    table's variables: ``(statistic, pvalue, dof, expected_freq)``.

    Example:
        >>> import numpy as np
        >>> res = chi2_contingency(np.array([[10.0, 20.0], [20.0, 10.0]]), correction=False)
        >>> round(float(res.statistic), 6), round(float(res.pvalue), 6)
        (6.666667, 0.009823)
    """
    if method is not None:
        raise UnsupportedOperationError(
            "scipy.stats.chi2_contingency(..., method=...) on traced values: the resampling "
            "methods are not supported (method=None is)"
        )
    obs = fnp.asarray(observed)
    obs = fnp.astype(obs, numpy.float64) if obs.dtype.kind != "f" else obs
    nd = obs.ndim
    total = fnp.sum(obs)
    expected = fnp.ones_like(obs) * total
    for d in range(nd):
        others = tuple(i for i in range(nd) if i != d)
        expected = expected * (fnp.sum(obs, axis=others, keepdims=True) / total)
    dof = int(numpy.prod(obs.shape)) - sum(obs.shape) + nd - 1
    if dof == 0:
        stat, p = fnp.zeros((), obs.dtype) * total, fnp.ones((), obs.dtype)
    else:
        if dof == 1 and correction:
            diff = expected - obs
            obs = obs + fnp.sign(diff) * fnp.minimum(0.5, fnp.abs(diff))
        size = int(numpy.prod(obs.shape))  # (the margins' totals agree by construction)
        flat = (fnp.ravel(obs), fnp.ravel(expected))
        res = _divergence(*flat, size, size - 1 - dof, _lambda(lambda_), 0, False)
        stat, p = res.statistic, res.pvalue
    return Chi2ContingencyResult(statistic=stat, pvalue=p, dof=dof, expected_freq=expected)
