"""``ftransforms.scipy.stats``: SciPy's distributions on tracers (like ``jax.scipy.stats``).

Each distribution is an object with SciPy's methods and signatures:
``norm.logpdf(x, loc=0, scale=1)``, ``gamma.cdf(x, a, loc=0, scale=1)``,
``poisson.logpmf(k, mu, loc=0)``, ``multivariate_normal.logpdf(x, mean, cov)``, ...
Every method is a composition of :mod:`ftransforms.numpy` and
:mod:`ftransforms.scipy.special` functions, so it works under every transform.  The forms
are the numerically careful ones (log space, ``log1p``/``expm1``, ``xlogy``); outside the
support the values are SciPy's (``logpdf = -inf``, ``cdf`` 0 or 1), and invalid
parameters (``scale <= 0``, ``p`` outside [0, 1], ...) give NaN, as in SciPy.

As in SciPy, a distribution called with its parameters is *frozen*:
``norm(mu, sigma).logpdf(x)``, ``gamma(a, scale=s).cdf(x)``; the methods are ``logpdf``,
``pdf`` (``logpmf``, ``pmf``), ``cdf``, ``logcdf``, ``sf``, ``logsf``, ``ppf``, ``isf``,
``mean``, ``var``, ``std``, ``median``, ``entropy`` and ``rvs(*shapes, size=,
random_state=)`` (drawn with :mod:`ftransforms.random`, reparameterised: differentiable in
``loc``, ``scale`` and the continuous shape parameters).  A method a distribution does not
have raises :class:`~ftransforms.errors.UnsupportedOperationError`.  Outside the support
``logpdf`` is the constant ``-inf`` (derivative 0, as JAX's), and ``logcdf``/``logsf``
are ``-inf`` with derivative 0 where the cdf/sf is 0.

Besides those written here, ``stats_distributions.py`` has SciPy's extreme-value,
Pareto-tail, transformed-normal and -gamma and bounded families (``genextreme``,
``genpareto``, ``weibull_max``, ``lomax``, ``burr12``, ``fisk``, ``nakagami``, ``chi``,
``invgauss``, ``loglaplace``, ``levy``, ``triang``, ``loguniform``, ... : its
``DISTRIBUTIONS``), with the same methods.

Quantile functions with no closed form (``t``, ``gamma``, ``chi2``, ``beta``) evaluate
with ``scipy.stats`` (imported on first use) and are differentiated by the implicit
function theorem, ``dx = (dq - dF/dtheta . dtheta) / pdf(x)``, to every order.  The
quantiles of the discrete distributions are integers: their derivative is 0.

Example:
    >>> import numpy as np
    >>> from ftransforms import grad
    >>> from ftransforms.scipy.stats import norm
    >>> float(norm.logpdf(0.0))
    -0.9189385332046727
    >>> float(grad(lambda mu: norm.logpdf(1.0, loc=mu))(0.0))  # (x - mu) / sigma**2
    1.0
"""

from __future__ import annotations

import math
import sys
import types
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.helpers import dtype_of
from ftransforms.ops.scipy_ops import scipy_ppf_p
from ftransforms.scipy import special as fsp
from ftransforms.scipy.kde import gaussian_kde
from ftransforms.scipy.linalg import solve_triangular
from ftransforms.scipy.stats_base import (
    _LOG_2PI,
    _LOG_SQRT_2PI,
    _SQRT2,
    _betaln,
    _Continuous,
    _Discrete,
    _Dist,
    _exp_cap,
    _exp_neg_pow,
    _fit_check,
    _fit_fixed,
    _fl,
    _implicit_ppf,
    _like_all,
    _log1mexp,
    _log_ndtr,
    _log_of_complement,
    _nan_unless,
    _ndtr,
    _ndtri,
    _random,
    _rng,
    _rvs_size,
    _softplus,
    _special,
    _split,
)
from ftransforms.scipy.stats_circular import circmean, circstd, circvar
from ftransforms.scipy.stats_contingency import chi2_contingency, power_divergence
from ftransforms.scipy.stats_correlation import pearsonr
from ftransforms.scipy.stats_discrete import (
    boltzmann,
    dlaplace,
    logser,
    planck,
    randint,
    skellam,
    yulesimon,
    zipf,
)
from ftransforms.scipy.stats_distributions import (
    _valued_by_scipy,
    anglit,
    arcsine,
    betaprime,
    bradford,
    burr,
    burr12,
    chi,
    cosine,
    dweibull,
    erlang,
    exponnorm,
    exponpow,
    exponweib,
    fatiguelife,
    fisk,
    foldnorm,
    genextreme,
    gengamma,
    genlogistic,
    genpareto,
    gibrat,
    gompertz,
    halfgennorm,
    halflogistic,
    hypsecant,
    invgauss,
    invweibull,
    johnsonsb,
    johnsonsu,
    laplace_asymmetric,
    levy,
    levy_l,
    loggamma,
    loglaplace,
    loguniform,
    lomax,
    maxwell,
    moyal,
    nakagami,
    powerlaw,
    powernorm,
    reciprocal,
    rice,
    semicircular,
    triang,
    truncexpon,
    wald,
    weibull_max,
)
from ftransforms.scipy.stats_gamma_fit import gamma_shape
from ftransforms.scipy.stats_mvn_cdf import mvn_cdf
from ftransforms.scipy.stats_noncentral import ncf, nct, ncx2
from ftransforms.scipy.stats_normality import jarque_bera, kurtosistest, normaltest, skewtest
from ftransforms.scipy.stats_power_transforms import boxcox, yeojohnson, yeojohnson_llf
from ftransforms.scipy.stats_rank_tests import (
    ansari,
    brunnermunzel,
    fligner,
    friedmanchisquare,
    kruskal,
    ks_1samp,
    kstest,
    mannwhitneyu,
    mood,
    wilcoxon,
)
from ftransforms.scipy.stats_ranks import mode, rankdata
from ftransforms.scipy.stats_slopes import siegelslopes, theilslopes
from ftransforms.scipy.stats_summaries import (
    entropy,
    gmean,
    gstd,
    kurtosis,
    lmoment,
    moment,
    sem,
    skew,
    variation,
    zmap,
    zscore,
)
from ftransforms.scipy.stats_tests import (
    binned_statistic,
    boxcox_llf,
    chisquare,
    cramervonmises,
    describe,
    energy_distance,
    f_oneway,
    hmean,
    iqr,
    linregress,
    spearmanr,
    tmax,
    tmean,
    tmin,
    tstd,
    ttest_1samp,
    ttest_ind,
    ttest_rel,
    tvar,
    wasserstein_distance,
)
from ftransforms.scipy.stats_variance_tests import bartlett, levene, pointbiserialr, tsem

__all__ = [
    "anglit",
    "ansari",
    "arcsine",
    "bartlett",
    "bernoulli",
    "beta",
    "betabinom",
    "betaprime",
    "binned_statistic",
    "binom",
    "boltzmann",
    "boxcox",
    "boxcox_llf",
    "bradford",
    "brunnermunzel",
    "burr",
    "burr12",
    "cauchy",
    "chi",
    "chi2",
    "chi2_contingency",
    "chisquare",
    "circmean",
    "circstd",
    "circvar",
    "cosine",
    "cramervonmises",
    "describe",
    "dirichlet",
    "dlaplace",
    "dweibull",
    "energy_distance",
    "entropy",
    "erlang",
    "expon",
    "exponnorm",
    "exponpow",
    "exponweib",
    "f",
    "f_oneway",
    "fatiguelife",
    "fisk",
    "fligner",
    "foldnorm",
    "friedmanchisquare",
    "gamma",
    "gaussian_kde",
    "genextreme",
    "gengamma",
    "genlogistic",
    "gennorm",
    "genpareto",
    "geom",
    "gibrat",
    "gmean",
    "gompertz",
    "gstd",
    "gumbel_l",
    "gumbel_r",
    "halfcauchy",
    "halfgennorm",
    "halflogistic",
    "halfnorm",
    "hmean",
    "hypergeom",
    "hypsecant",
    "invgamma",
    "invgauss",
    "invweibull",
    "iqr",
    "jarque_bera",
    "johnsonsb",
    "johnsonsu",
    "kruskal",
    "ks_1samp",
    "kstest",
    "kurtosis",
    "kurtosistest",
    "laplace",
    "laplace_asymmetric",
    "levene",
    "levy",
    "levy_l",
    "linregress",
    "lmoment",
    "loggamma",
    "logistic",
    "loglaplace",
    "lognorm",
    "logser",
    "loguniform",
    "lomax",
    "mannwhitneyu",
    "maxwell",
    "mode",
    "moment",
    "mood",
    "moyal",
    "multinomial",
    "multivariate_normal",
    "nakagami",
    "nbinom",
    "ncf",
    "nct",
    "ncx2",
    "norm",
    "normaltest",
    "pareto",
    "pearsonr",
    "planck",
    "pointbiserialr",
    "poisson",
    "power_divergence",
    "powerlaw",
    "powernorm",
    "randint",
    "rankdata",
    "rayleigh",
    "reciprocal",
    "rice",
    "sem",
    "semicircular",
    "siegelslopes",
    "skellam",
    "skew",
    "skewnorm",
    "skewtest",
    "spearmanr",
    "t",
    "theilslopes",
    "tmax",
    "tmean",
    "tmin",
    "triang",
    "truncexpon",
    "truncnorm",
    "tsem",
    "tstd",
    "ttest_1samp",
    "ttest_ind",
    "ttest_rel",
    "tvar",
    "uniform",
    "variation",
    "vonmises",
    "wald",
    "wasserstein_distance",
    "weibull_max",
    "weibull_min",
    "wilcoxon",
    "wrapcauchy",
    "yeojohnson",
    "yeojohnson_llf",
    "yulesimon",
    "zipf",
    "zmap",
    "zscore",
]

# -- continuous distributions -------------------------------------------------------------


def _from_zero(z: Any, inner: Any, at_zero: float) -> Any:
    """``inner(z)`` for ``z > 0``, the constant ``at_zero`` at and below 0 (a support
    ``[0, inf)``): a formula at ``maximum(z, 0)`` had the derivative 0 * (the density at
    0), NaN where that is infinite (gamma's a < 1, ...) and in every second derivative."""
    pos = z > 0
    return fnp.where(pos, inner(fnp.where(pos, z, 1.0)), at_zero)


class _Norm(_Continuous):
    """The normal distribution ``N(loc, scale**2)``.

    Example:
        >>> round(float(norm.cdf(1.0)), 6)
        0.841345
    """

    name = "norm"

    def _logpdf(self, z):
        return -0.5 * z * z - _LOG_SQRT_2PI

    def _cdf(self, z):
        return _ndtr(z)

    def _sf(self, z):
        return _ndtr(-z)

    def _logcdf(self, z):
        return _log_ndtr(z)

    def _logsf(self, z):
        return _log_ndtr(-z)

    def _ppf(self, q):
        return _ndtri(q)

    def _isf(self, q):
        return -_ndtri(q)

    def _stats(self):
        return 0.0, 1.0

    def _entropy(self):
        return 0.5 * (_LOG_2PI + 1.0)

    def fit(
        self, data: Any, *args: Any, floc: Any = None, fscale: Any = None, **kwds: Any
    ) -> tuple:
        """``norm.fit``: the maximum-likelihood ``(loc, scale)`` of ``data`` (its mean and
        its ``ddof=0`` standard deviation; ``floc``/``fscale`` hold one fixed), as SciPy's
        closed form; differentiable in ``data``.

        Example:
            >>> import numpy as np
            >>> [float(v) for v in norm.fit(np.array([1.0, 2.0, 3.0, 6.0]))]
            [3.0, 1.8708286933869707]
        """
        if args or kwds.get("method", "MLE") not in ("MLE", "MM") or set(kwds) - {"method"}:
            raise UnsupportedOperationError(
                "ftransforms.scipy.stats.norm.fit(data, floc=, fscale=, method='MLE'): "
                f"got {args} {kwds}; starting guesses and optimizers are not supported"
            )
        x = fnp.ravel(fnp.asarray(data))
        loc = fnp.mean(x) if floc is None else fnp.asarray(floc)
        scale = fnp.sqrt(fnp.mean((x - loc) ** 2)) if fscale is None else fnp.asarray(fscale)
        return loc, scale

    def _rvs(self, rng, size):
        return _random().normal(rng, size=size)


class _Cauchy(_Continuous):
    """The Cauchy distribution.

    Example:
        >>> float(cauchy.cdf(1.0))
        0.75
    """

    name = "cauchy"

    def _logpdf(self, z):
        return -math.log(math.pi) - fnp.log1p(z * z)

    def _cdf(self, z):
        # atan2(1, -z) = pi/2 + atan(z): no 1/2 - 1/2 cancellation in the left tail
        return fnp.arctan2(1.0, -z) / math.pi

    def _sf(self, z):
        return fnp.arctan2(1.0, z) / math.pi

    def _ppf(self, q):
        # tan(pi (q - 1/2)) in the middle (q - 1/2 is exact there); in the tails the same
        # as -1/tan(pi q) and 1/tan(pi (1 - q)), accurate for tiny q and 1 - q
        mid = fnp.abs(q - 0.5) < 0.25
        low = q < 0.5
        qm = fnp.where(mid, q, 0.5)
        qt = fnp.where(mid, 0.25, fnp.where(low, q, 1.0 - q))
        tail = fnp.where(low, -1.0, 1.0) / fnp.tan(math.pi * qt)
        out = fnp.where(mid, fnp.tan(math.pi * (qm - 0.5)), tail)
        return fnp.where(q == 0, -fnp.inf, fnp.where(q == 1, fnp.inf, out))

    def _isf(self, q):
        return -self._ppf(q)

    def _stats(self):
        return math.nan, math.nan

    def _entropy(self):
        return math.log(4.0 * math.pi)


class _Laplace(_Continuous):
    """The Laplace (double exponential) distribution.

    Example:
        >>> float(laplace.cdf(0.0))
        0.5
    """

    name = "laplace"

    def _logpdf(self, z):
        return -math.log(2.0) - fnp.abs(z)

    def _cdf(self, z):
        neg = z < 0
        return fnp.where(
            neg, 0.5 * fnp.exp(fnp.where(neg, z, 0.0)), 1.0 - 0.5 * fnp.exp(-fnp.where(neg, 0.0, z))
        )

    def _sf(self, z):
        return self._cdf(-z)

    def _logcdf(self, z):
        neg = z < 0
        # where, not minimum/maximum: at z == 0 the taken branch gets the whole derivative
        zn = fnp.where(neg, z, 0.0)
        zp = fnp.where(neg, 0.0, z)
        return fnp.where(neg, zn - math.log(2.0), fnp.log1p(-0.5 * fnp.exp(-zp)))

    def _logsf(self, z):
        return self._logcdf(-z)

    def _ppf(self, q):
        low = q <= 0.5
        ql = fnp.where(low, q, 0.25)
        qh = fnp.where(low, 0.75, q)
        return fnp.where(low, fnp.log(2.0 * ql), -fnp.log(2.0 - 2.0 * qh))

    def _stats(self):
        return 0.0, 2.0

    def _entropy(self):
        return 1.0 + math.log(2.0)

    def _isf(self, q):
        return -self._ppf(q)

    def fit(self, data: Any, *args: Any, **kwds: Any) -> tuple:
        """``laplace.fit``: the maximum-likelihood ``(loc, scale)``: the median and the mean
        absolute deviation from it (``floc``/``fscale`` hold one fixed), as SciPy's closed
        form; differentiable in ``data``.

        Example:
            >>> import numpy as np
            >>> [float(v) for v in laplace.fit(np.array([1.0, 2.0, 3.0, 6.0]))]
            [2.5, 1.5]
        """
        floc, fscale = _fit_fixed("laplace", args, kwds)
        x = fnp.asarray(data)
        loc = fnp.median(x) if floc is None else fnp.asarray(floc)
        if fscale is not None:
            return loc, fnp.asarray(fscale)
        return loc, fnp.sum(fnp.abs(x - loc)) / (x.shape[0] if x.ndim else 1)


class _Logistic(_Continuous):
    """The logistic distribution.

    Example:
        >>> float(logistic.cdf(0.0))
        0.5
    """

    name = "logistic"

    def _logpdf(self, z):
        a = fnp.abs(z)
        return -a - 2.0 * fnp.log1p(fnp.exp(-a))

    def _cdf(self, z):
        return fsp.expit(z)

    def _sf(self, z):
        return fsp.expit(-z)

    def _logcdf(self, z):
        return -_softplus(-z)

    def _logsf(self, z):
        return -_softplus(z)

    def _ppf(self, q):
        return fnp.log(q) - fnp.log1p(-q)

    def _isf(self, q):
        return fnp.log1p(-q) - fnp.log(q)

    def _stats(self):
        return 0.0, math.pi**2 / 3.0

    def _entropy(self):
        return 2.0


class _Expon(_Continuous):
    """The exponential distribution (rate ``1 / scale``, support ``x >= loc``).

    Example:
        >>> round(float(expon.sf(1.0)), 6)
        0.367879
    """

    name = "expon"
    _finite_ends = (0.0, math.inf)

    def _logpdf(self, z):
        return fnp.where(z >= 0, -z, -fnp.inf)

    def _cdf(self, z):
        return -fnp.expm1(-fnp.maximum(z, 0.0))

    def _sf(self, z):
        return fnp.exp(-fnp.maximum(z, 0.0))

    def _logcdf(self, z):
        pos = z > 0
        return fnp.where(pos, _log1mexp(-fnp.where(pos, z, 1.0)), -fnp.inf)

    def _logsf(self, z):
        return -fnp.maximum(z, 0.0)

    def _ppf(self, q):
        return -fnp.log1p(-q)

    def _isf(self, q):
        return -fnp.log(q)

    def _stats(self):
        return 1.0, 1.0

    def _entropy(self):
        return 1.0

    def fit(self, data: Any, *args: Any, **kwds: Any) -> tuple:
        """``expon.fit``: the maximum-likelihood ``(loc, scale)``: the data's minimum and its
        mean less ``loc`` (``floc``/``fscale`` hold one fixed), as SciPy's closed form;
        differentiable in ``data``.

        Example:
            >>> import numpy as np
            >>> [float(v) for v in expon.fit(np.array([1.0, 2.0, 3.0, 6.0]))]
            [1.0, 2.0]
        """
        floc, fscale = _fit_fixed("expon", args, kwds)
        x = fnp.asarray(data)
        if floc is not None:
            _fit_check(fnp.min(x) >= floc, "expon", "every x >= floc")
        loc = fnp.min(x) if floc is None else fnp.asarray(floc)
        scale = fnp.mean(x) - loc if fscale is None else fnp.asarray(fscale)
        return fnp.astype(loc, numpy.float64), fnp.astype(scale, numpy.float64)  # SciPy's floats


class _Uniform(_Continuous):
    """The uniform distribution on ``[loc, loc + scale]``.

    Example:
        >>> float(uniform.cdf(0.25))
        0.25
    """

    name = "uniform"
    _finite_ends = (0.0, 1.0)

    def _logpdf(self, z):
        inside = (z >= 0) & (z <= 1)
        return fnp.where(inside, 0.0 * z, -fnp.inf)

    def _cdf(self, z):
        return fnp.clip(z, 0.0, 1.0)

    def _sf(self, z):
        return fnp.clip(1.0 - z, 0.0, 1.0)

    def _ppf(self, q):
        return q

    def _stats(self):
        return 0.5, 1.0 / 12.0

    def _entropy(self):
        return 0.0

    def fit(self, data: Any, *args: Any, **kwds: Any) -> tuple:
        """``uniform.fit``: the maximum-likelihood ``(loc, scale)``: the data's minimum and
        range; with ``floc``, ``max - floc``; with ``fscale``, the support centred over the
        data, as SciPy's closed form; differentiable in ``data``.

        Example:
            >>> import numpy as np
            >>> [float(v) for v in uniform.fit(np.array([1.0, 2.0, 3.0, 6.0]))]
            [1.0, 5.0]
        """
        floc, fscale = _fit_fixed("uniform", args, kwds)
        x = fnp.asarray(data)
        lo, hi = fnp.min(x), fnp.max(x)
        if fscale is not None:
            _fit_check(hi - lo <= fscale, "uniform", "np.ptp(data) <= fscale")
            loc, scale = lo - 0.5 * (fnp.asarray(fscale) - (hi - lo)), fnp.asarray(fscale)
            return fnp.astype(loc, numpy.float64), fnp.astype(scale, numpy.float64)
        if floc is not None:
            _fit_check(lo >= floc, "uniform", "every x >= floc")
        loc = lo if floc is None else fnp.asarray(floc)
        return fnp.astype(loc, numpy.float64), fnp.astype(hi - loc, numpy.float64)


class _Lognorm(_Continuous):
    """The log-normal distribution: ``log((x - loc) / scale)`` is ``N(0, s**2)``.

    Example:
        >>> float(lognorm.cdf(1.0, 0.5))
        0.5
    """

    name = "lognorm"
    _finite_ends = (0.0, math.inf)
    shapes = ("s",)

    def _valid(self, s):
        return s > 0

    def _logz(self, z):
        pos = z > 0
        return pos, fnp.log(fnp.where(pos, z, 1.0))

    def _logpdf(self, z, s):
        pos, lz = self._logz(z)
        out = -0.5 * (lz / s) ** 2 - lz - fnp.log(s) - _LOG_SQRT_2PI
        return fnp.where(pos, out, -fnp.inf)

    def _cdf(self, z, s):
        pos, lz = self._logz(z)
        return fnp.where(pos, _ndtr(lz / s), 0.0)

    def _sf(self, z, s):
        pos, lz = self._logz(z)
        return fnp.where(pos, _ndtr(-lz / s), 1.0)

    def _logcdf(self, z, s):
        pos, lz = self._logz(z)
        return fnp.where(pos, _log_ndtr(lz / s), -fnp.inf)

    def _logsf(self, z, s):
        pos, lz = self._logz(z)
        return fnp.where(pos, _log_ndtr(-lz / s), 0.0)

    def _ppf(self, q, s):
        return fnp.exp(s * _ndtri(q))

    def _isf(self, q, s):
        return fnp.exp(-s * _ndtri(q))

    def _stats(self, s):
        e = fnp.exp(s * s)
        return fnp.sqrt(e), (e - 1.0) * e

    def _entropy(self, s):
        return 0.5 * (_LOG_2PI + 1.0) + fnp.log(s)

    def fit(self, data: Any, *args: Any, **kwds: Any) -> tuple:
        """``lognorm.fit(data, floc=...)``: the maximum-likelihood ``(s, loc, scale)`` for a
        fixed ``loc``: ``scale = exp(mean(log(x - loc)))`` and ``s`` the ``ddof=0`` standard
        deviation of ``log(x - loc)`` (``f0``/``fscale`` hold one fixed), as SciPy's closed
        form; differentiable in ``data``.  A free ``loc`` (SciPy's root search) is an error.

        Example:
            >>> import numpy as np
            >>> s, loc, scale = lognorm.fit(np.array([1.0, np.e, np.e ** 2]), floc=0)
            >>> round(float(s), 6), float(loc), round(float(scale), 6)
            (0.816497, 0.0, 2.718282)
        """
        fs, floc, fscale = _fit_fixed("lognorm", args, kwds, ("s",))
        if floc is None:
            raise UnsupportedOperationError(
                "ftransforms.scipy.stats.lognorm.fit(data, floc=...): got no floc; on traced "
                "data only the closed form for a fixed location is supported (pass floc=0 "
                "for the two-parameter log-normal)"
            )
        loc = fnp.asarray(floc)
        _fit_check(fnp.min(fnp.asarray(data)) > loc, "lognorm", "every x > floc")
        lx = fnp.log(fnp.asarray(data) - loc)
        scale = fnp.exp(fnp.mean(lx)) if fscale is None else fnp.asarray(fscale)
        s = fnp.sqrt(fnp.mean((lx - fnp.log(scale)) ** 2)) if fs is None else fnp.asarray(fs)
        return s, loc, scale


def _power_overflows(z: Any, b: Any) -> Any:
    """Where ``|z|**b`` overflows (decided in logs: no tangent, no overflow)."""
    return b * fnp.log(fnp.abs(fnp.stop_gradient(z))) > 709.0


def _log1p_square_over(z: Any, df: Any) -> Any:
    """``log1p(z**2 / df)``, also where ``z**2`` overflows: ``2 log|z| - log(df) +
    log1p(df / z**2)`` above ``|z| = 1e150`` (``t.logpdf(1e300, 3)`` is -2762, not -inf,
    and its derivative in ``df`` finite, not NaN)."""
    big = fnp.abs(z) > 1e150
    zb = fnp.where(big, z, 1.0)
    zs = fnp.where(big, 0.0, z)
    far = 2.0 * fnp.log(fnp.abs(zb)) - fnp.log(df) + fnp.log1p(df / zb / zb)
    return fnp.where(big, far, fnp.log1p(zs * zs / df))


class _T(_Continuous):
    """Student's t distribution with ``df`` degrees of freedom.

    Example:
        >>> float(t.cdf(0.0, 3.0))
        0.5
    """

    name = "t"
    shapes = ("df",)

    def _valid(self, df):
        return df > 0

    def _logpdf(self, z, df):
        return (
            fsp.gammaln(0.5 * (df + 1.0))
            - fsp.gammaln(0.5 * df)
            - 0.5 * fnp.log(df * math.pi)
            - 0.5 * (df + 1.0) * _log1p_square_over(z, df)
        )

    def _cdf(self, z, df):
        # NOTE [t cdf near 0]: the tail form P(T > |z|) = betainc(df/2, 1/2, df/(df + z**2))
        # / 2 has 1 - x = z**2 / (df + z**2) lost to rounding near z = 0 (the density of
        # betainc there, (1 - x)**(-1/2), kept 6 digits at z = 1e-5) and the derivative
        # inf * 0 = NaN at z = 0 (in z and df, so t.ppf(0.5, df) in df).  For z**2 < df it
        # is P(|T| < |z|) = betainc(1/2, df/2, z**2 / (df + z**2)), exact in 1 - x; below
        # |z| = 1e-8 sqrt(df), where z**2 / df is under the rounding of 1, the line
        # 1/2 + pdf(0) z (every derivative to the second order exact to rounding).
        z2 = z * z
        center = z2 < df
        tiny = z2 < 1e-16 * df
        zc = fnp.where(center & ~tiny, z, fnp.sqrt(df))  # inside each branch's domain
        zt = fnp.where(center, 2.0 * fnp.sqrt(df), z)
        betainc = _special("betainc")
        half = 0.5 * betainc(0.5, 0.5 * df, zc * zc / (df + zc * zc))
        mid = 0.5 + fnp.where(z > 0, half, -half)
        tail = 0.5 * betainc(0.5 * df, 0.5, df / (df + zt * zt))
        far = fnp.where(z > 0, 1.0 - tail, tail)
        log_pdf0 = fsp.gammaln(0.5 * (df + 1.0)) - fsp.gammaln(0.5 * df)
        line = 0.5 + fnp.exp(log_pdf0 - 0.5 * fnp.log(df * math.pi)) * z
        return fnp.where(tiny, line, fnp.where(center, mid, far))

    def _sf(self, z, df):
        return self._cdf(-z, df)

    def _ppf(self, q, df):
        return _implicit_ppf("t", self, q, df)

    def _isf(self, q, df):
        return -_implicit_ppf("t", self, q, df)

    def _stats(self, df):
        mean = fnp.where(df > 1, 0.0, fnp.inf)  # SciPy's inf for df <= 1
        dfs = fnp.where(df > 2, df, 3.0)
        var = fnp.where(df > 2, dfs / (dfs - 2.0), fnp.where(df > 1, fnp.inf, fnp.nan))
        return mean, var

    def _entropy(self, df):
        h = 0.5 * (df + 1.0)
        return (
            h * (fsp.digamma(h) - fsp.digamma(0.5 * df))
            + 0.5 * fnp.log(df)
            + _betaln(0.5 * df, 0.5)
        )


class _Gamma(_Continuous):
    """The gamma distribution with shape ``a``.

    Example:
        >>> round(float(gamma.cdf(1.0, 1.0)), 6)
        0.632121
    """

    name = "gamma"
    _finite_ends = (0.0, math.inf)
    shapes = ("a",)

    def _valid(self, a):
        return a > 0

    def _logpdf(self, z, a):
        ok = z >= 0
        zs = fnp.where(ok, z, 1.0)
        return fnp.where(ok, fsp.xlogy(a - 1.0, zs) - zs - fsp.gammaln(a), -fnp.inf)

    def _cdf(self, z, a):
        return _from_zero(z, lambda zs: _special("gammainc")(a, zs), 0.0)

    def _sf(self, z, a):
        return _from_zero(z, lambda zs: _special("gammaincc")(a, zs), 1.0)

    def _ppf(self, q, a):
        return _implicit_ppf("gamma", self, q, a)

    def _isf(self, q, a):
        return _implicit_ppf("gamma", self, q, a, method="isf")

    def _stats(self, a):
        return a, a

    def _entropy(self, a):
        return a + fsp.gammaln(a) + (1.0 - a) * fsp.digamma(a)

    def fit(self, data: Any, *args: Any, **kwds: Any) -> tuple:
        """``gamma.fit(data, floc=...)``: the maximum-likelihood ``(a, loc, scale)`` for a
        fixed location, as SciPy's: ``a`` solves ``log(a) - digamma(a) = log(mean(x)) -
        mean(log(x))`` (SciPy's root, differentiated implicitly), ``scale = mean(x) / a``
        (``f0`` fixes ``a``).  A free ``loc``, a fixed ``fscale`` and ``method='MM'`` are
        errors on traced data.

        Example:
            >>> import numpy as np
            >>> a, loc, scale = gamma.fit(np.array([1.0, 2.0, 4.0, 8.0]), floc=0)
            >>> round(float(a), 6), round(float(scale), 6)
            (1.922771, 1.95031)
        """
        fa, floc, fscale = _fit_fixed("gamma", args, kwds, ("a",))
        if floc is None or fscale is not None:
            raise UnsupportedOperationError(
                "ftransforms.scipy.stats.gamma.fit(data, floc=..., f0=...): on traced data "
                "only a fixed location with a free scale is supported (SciPy's closed form "
                f"and root); got floc={floc!r}, fscale={fscale!r}"
            )
        x = fnp.asarray(data)
        _fit_check(fnp.min(x) > floc, "gamma", "every x > floc")
        x = fnp.ravel(x - floc)
        xbar = fnp.mean(x)
        a = fnp.asarray(fa) if fa is not None else gamma_shape(fnp.log(xbar) - fnp.mean(fnp.log(x)))
        return a, floc, xbar / a


class _Chi2(_Continuous):
    """The chi-squared distribution with ``df`` degrees of freedom.

    Example:
        >>> round(float(chi2.cdf(2.0, 2.0)), 6)
        0.632121
    """

    name = "chi2"
    _finite_ends = (0.0, math.inf)
    shapes = ("df",)

    def _valid(self, df):
        return df > 0

    def _logpdf(self, z, df):
        ok = z >= 0
        zs = fnp.where(ok, z, 1.0)
        h = 0.5 * df
        out = fsp.xlogy(h - 1.0, zs) - 0.5 * zs - fsp.gammaln(h) - h * math.log(2.0)
        return fnp.where(ok, out, -fnp.inf)

    def _cdf(self, z, df):
        return _from_zero(z, lambda zs: _special("gammainc")(0.5 * df, 0.5 * zs), 0.0)

    def _sf(self, z, df):
        return _from_zero(z, lambda zs: _special("gammaincc")(0.5 * df, 0.5 * zs), 1.0)

    def _ppf(self, q, df):
        return _implicit_ppf("chi2", self, q, df)

    def _isf(self, q, df):
        return _implicit_ppf("chi2", self, q, df, method="isf")

    def _stats(self, df):
        return df, 2.0 * df

    def _entropy(self, df):
        h = 0.5 * df
        return h + math.log(2.0) + fsp.gammaln(h) + (1.0 - h) * fsp.digamma(h)


class _Beta(_Continuous):
    """The beta distribution with shapes ``a`` and ``b`` on ``[loc, loc + scale]``.

    Example:
        >>> float(beta.cdf(0.5, 2.0, 2.0))
        0.5
    """

    name = "beta"
    _finite_ends = (0.0, 1.0)
    shapes = ("a", "b")

    def _valid(self, a, b):
        return (a > 0) & (b > 0)

    def _logpdf(self, z, a, b):
        ok = (z >= 0) & (z <= 1)
        zs = fnp.where(ok, z, 0.5)
        out = fsp.xlogy(a - 1.0, zs) + fsp.xlog1py(b - 1.0, -zs) - _betaln(a, b)
        return fnp.where(ok, out, -fnp.inf)

    def _ends(self, z, inner, at_0, at_1):
        # constants at and beyond the ends: betainc at a clipped z had the derivative
        # 0 * (the density at the end), NaN where a < 1 or b < 1 (in x, loc and scale, and
        # in every second derivative), and clip's 1/2 at the ends themselves
        below, above = z <= 0, z >= 1
        zs = fnp.where(below | above, 0.5, z)
        return fnp.where(below, at_0, fnp.where(above, at_1, inner(zs)))

    def _cdf(self, z, a, b):
        return self._ends(z, lambda zs: _special("betainc")(a, b, zs), 0.0, 1.0)

    def _sf(self, z, a, b):
        # (betaincc: 1 - z rounds, betainc(b, a, 1 - z) kept 12 digits at z = 1e-9)
        return self._ends(z, lambda zs: fsp.betaincc(a, b, zs), 1.0, 0.0)

    def _ppf(self, q, a, b):
        return _implicit_ppf("beta", self, q, a, b)

    def _isf(self, q, a, b):
        return 1.0 - _implicit_ppf("beta", self, q, b, a)

    def _stats(self, a, b):
        n = a + b
        return a / n, a * b / (n * n * (n + 1.0))

    def _entropy(self, a, b):
        return (
            _betaln(a, b)
            - (a - 1.0) * fsp.digamma(a)
            - (b - 1.0) * fsp.digamma(b)
            + (a + b - 2.0) * fsp.digamma(a + b)
        )


class _GumbelR(_Continuous):
    """The right-skewed Gumbel (extreme value) distribution, ``cdf = exp(-exp(-z))``.

    Example:
        >>> round(float(gumbel_r.cdf(0.0)), 6)  # exp(-1)
        0.367879
    """

    name = "gumbel_r"

    # NOTE [Gumbel tails]: exp(-z) overflows past z = -709, where the cdf exp(-exp(-z))
    # and the density are 0 but their derivatives were 0 * inf = NaN (and the sf's log
    # 0 * NaN); there the exponent is held at 709 (88 in float32; the log-density -inf,
    # the sf 1).  Far
    # right, where exp(-z) underflows, the logsf is -z - exp(-z)/2 (it was log(0) = -inf,
    # with a NaN derivative).

    def _e(self, z):
        cap = _exp_cap(z)
        over = z < -cap
        return fnp.exp(-fnp.where(over, -cap, z)), over

    def _logpdf(self, z):
        e, over = self._e(z)
        return fnp.where(over, -fnp.inf, -z - e)

    def _cdf(self, z):
        return fnp.exp(-self._e(z)[0])

    def _logcdf(self, z):
        return -fnp.exp(-z)

    def _sf(self, z):
        return -fnp.expm1(-self._e(z)[0])

    def _logsf(self, z):
        far = z > 30.0
        e, over = self._e(fnp.where(far, 0.0, z))
        zf = fnp.where(far, z, 30.0)
        near = fnp.where(over, 0.0, _log1mexp(-e))
        return fnp.where(far, -zf - 0.5 * fnp.exp(-zf), near)

    def _ppf(self, q):
        return -fnp.log(-fnp.log(q))

    def _isf(self, q):
        return -fnp.log(-fnp.log1p(-q))

    def _stats(self):
        return _EULER, math.pi**2 / 6.0


class _GumbelL(_Continuous):
    """The left-skewed Gumbel distribution, ``sf = exp(-exp(z))``.

    Example:
        >>> round(float(gumbel_l.sf(0.0)), 6)  # exp(-1)
        0.367879
    """

    name = "gumbel_l"

    # the mirror image of gumbel_r (NOTE [Gumbel tails])
    def _logpdf(self, z):
        return _GumbelR._logpdf(self, -z)

    def _cdf(self, z):
        return _GumbelR._sf(self, -z)

    def _logcdf(self, z):
        return _GumbelR._logsf(self, -z)

    def _sf(self, z):
        return _GumbelR._cdf(self, -z)

    def _logsf(self, z):
        return -fnp.exp(z)

    def _e(self, z):
        return _GumbelR._e(self, z)

    def _ppf(self, q):
        return fnp.log(-fnp.log1p(-q))

    def _isf(self, q):
        return fnp.log(-fnp.log(q))

    def _stats(self):
        return -_EULER, math.pi**2 / 6.0


class _Pareto(_Continuous):
    """The Pareto distribution with shape ``b`` (support ``z >= 1``).

    Example:
        >>> float(pareto.sf(2.0, 1.0))
        0.5
    """

    name = "pareto"
    _finite_ends = (1.0, math.inf)
    shapes = ("b",)

    def _valid(self, b):
        return b > 0

    def _logz(self, z):
        inside = z >= 1
        return inside, fnp.log(fnp.where(inside, z, 1.0))

    def _logpdf(self, z, b):
        inside, lz = self._logz(z)
        return fnp.where(inside, fnp.log(b) - (b + 1.0) * lz, -fnp.inf)

    def _cdf(self, z, b):
        _, lz = self._logz(z)
        return -fnp.expm1(-b * lz)

    def _sf(self, z, b):
        _, lz = self._logz(z)
        return fnp.exp(-b * lz)

    def _logsf(self, z, b):
        _, lz = self._logz(z)
        return -b * lz

    def _ppf(self, q, b):
        return fnp.exp(-fnp.log1p(-q) / b)

    def _isf(self, q, b):
        return fnp.exp(-fnp.log(q) / b)

    def _stats(self, b):
        ok1, ok2 = b > 1, b > 2
        b1 = fnp.where(ok1, b - 1.0, 1.0)
        var = b / (b1 * b1 * fnp.where(ok2, b - 2.0, 1.0))
        return fnp.where(ok1, b / b1, fnp.inf), fnp.where(ok2, var, fnp.inf)


class _Truncnorm(_Continuous):
    """The standard normal truncated to ``[a, b]`` (in standardized units, as SciPy's),
    then shifted and scaled by ``loc`` and ``scale``.  For ``a > 0`` it is computed as the
    mirror image of ``[-b, -a]``, so the upper tail keeps its accuracy.

    Example:
        >>> round(float(truncnorm.cdf(0.0, -1.0, 1.0)), 6)
        0.5
    """

    name = "truncnorm"
    shapes = ("a", "b")

    def _valid(self, a, b):
        return a < b

    def _mirror(self, a, b):
        """``(flip, lo, hi, log Z)``: the interval with ``lo <= 0`` or ``lo`` the nearer
        end to 0 (``flip`` where ``a > 0``), and ``Z = Phi(hi) - Phi(lo)``."""
        flip = a > 0
        lo = fnp.where(flip, -b, a)
        hi = fnp.where(flip, -a, b)
        return flip, lo, hi, fnp.log(_ndtr(hi) - _ndtr(lo))

    def _logpdf(self, z, a, b):
        inside = (z >= a) & (z <= b)
        _, _, _, log_z = self._mirror(a, b)
        zs = fnp.where(inside, z, 0.5 * (fnp.maximum(a, -1e300) + fnp.minimum(b, 1e300)))
        return fnp.where(inside, -0.5 * zs * zs - _LOG_SQRT_2PI - log_z, -fnp.inf)

    def _mass_below(self, z, a, b):
        """``(P(X <= z), P(X > z))`` with the mirrored interval's accurate differences."""
        flip, lo, hi, log_z = self._mirror(a, b)
        zc = fnp.clip(fnp.where(flip, -z, z), lo, hi)
        below = (_ndtr(zc) - _ndtr(lo)) / fnp.exp(log_z)  # of the mirrored variable
        above = (_ndtr(hi) - _ndtr(zc)) / fnp.exp(log_z)
        return fnp.where(flip, above, below), fnp.where(flip, below, above)

    def _cdf(self, z, a, b):
        return self._mass_below(z, a, b)[0]

    def _sf(self, z, a, b):
        return self._mass_below(z, a, b)[1]

    def _ppf(self, q, a, b):
        flip, lo, hi, log_z = self._mirror(a, b)
        qq = fnp.where(flip, 1.0 - q, q)
        x = _ndtri(_ndtr(lo) + qq * fnp.exp(log_z))
        x = fnp.clip(x, lo, hi)
        return fnp.where(flip, -x, x)

    def _isf(self, q, a, b):
        return -self._ppf(q, -b, -a)  # the mirror image: accurate for small q

    def _stats(self, a, b):
        # mean (phi(a) - phi(b)) / Z, variance 1 + (a phi(a) - b phi(b)) / Z - mean**2 (an
        # infinite end adds nothing: phi(+-inf) = 0)
        _, _, _, log_z = self._mirror(a, b)

        def phi(v):
            fin = fnp.isfinite(v)
            vs = fnp.where(fin, v, 0.0)
            dens = fnp.exp(-0.5 * vs * vs - _LOG_SQRT_2PI)
            return fnp.where(fin, dens, 0.0), fnp.where(fin, vs * dens, 0.0)

        (pa, apa), (pb, bpb) = phi(a), phi(b)
        z = fnp.exp(log_z)
        mean = (pa - pb) / z
        return mean, 1.0 + (apa - bpb) / z - mean * mean


class _Vonmises(_Continuous):
    """The von Mises distribution with concentration ``kappa``: the density
    ``exp(kappa cos z) / (2 pi I0(kappa))`` (periodic, as SciPy's); the cdf and sf are
    SciPy's values (``cdf(z + 2 pi) = cdf(z) + 1``) with their derivatives in ``z`` and
    ``kappa``.

    Example:
        >>> round(float(vonmises.pdf(0.0, 0.0)), 6)  # 1 / (2 pi)
        0.159155
    """

    name = "vonmises"
    shapes = ("kappa",)

    def _valid(self, kappa):
        return kappa >= 0

    def _logpdf(self, z, kappa):
        return kappa * (fnp.cos(z) - 1.0) - _LOG_2PI - fnp.log(_special("i0e")(kappa))

    def _partials(self, sign):
        """``d cdf / dz`` and ``d cdf / dkappa``: below SciPy's switch at
        ``kappa = 50`` the derivative of its series ``1/2 + z/(2 pi) + sum_n
        (I_n/I_0)(kappa) sin(n z) / (n pi)`` (``z`` wrapped to one period; 120 terms),
        above it those of its normal approximation ``Phi(sqrt(2/pi) / i0e(kappa) sin(z/2))``
        (in ``z`` too: the density below)."""

        def partials(z, kappa):
            dz = fnp.exp(self._logpdf(z, kappa))
            zw = z - 2.0 * math.pi * fnp.stop_gradient(fnp.round(z / (2.0 * math.pi)))
            small = kappa < 50.0
            ks = fnp.where(small, kappa, 1.0)
            n = fnp.reshape(fnp.arange(1.0, 121.0), (120,) + (1,) * fnp.ndim(ks))
            i0 = fsp.ive(0.0, ks)
            ratio = fsp.ive(n, ks) / i0
            d_ratio = 0.5 * (fsp.ive(n - 1.0, ks) + fsp.ive(n + 1.0, ks)) / i0
            d_ratio = d_ratio - ratio * fsp.ive(1.0, ks) / i0
            series = fnp.sum(d_ratio * fnp.sin(n * zw) / n, axis=0) / math.pi
            kl = fnp.where(small, 50.0, kappa)
            b = math.sqrt(2.0 / math.pi) / fsp.i0e(kl)
            s = fnp.sin(0.5 * zw)
            phi = fnp.exp(-0.5 * (b * s) ** 2 - _LOG_SQRT_2PI)
            normal = phi * s * b * (1.0 - fsp.i1e(kl) / fsp.i0e(kl))
            dz = fnp.where(small, dz, phi * b * 0.5 * fnp.cos(0.5 * zw))  # (the approximation's)
            return sign * dz, sign * fnp.where(small, series, normal)

        return partials

    def _cdf(self, z, kappa):
        prim = _valued_by_scipy("vonmises", "cdf", self._partials(1.0))
        return prim.bind(*fnp.broadcast_arrays(z, kappa))

    def _sf(self, z, kappa):
        prim = _valued_by_scipy("vonmises", "sf", self._partials(-1.0))
        return prim.bind(*fnp.broadcast_arrays(z, kappa))

    def _ppf(self, q, kappa):
        return _implicit_ppf("vonmises", self, q, kappa)

    def _isf(self, q, kappa):
        return _implicit_ppf("vonmises", self, q, kappa, method="isf")


class _Wrapcauchy(_Continuous):
    """The wrapped Cauchy distribution with shape ``0 < c < 1`` on ``[0, 2 pi]``
    (``logpdf``/``pdf`` only).

    Example:
        >>> import math
        >>> round(float(wrapcauchy.pdf(math.pi, 0.5)) * 6 * math.pi, 6)  # 1 / (6 pi)
        1.0
    """

    name = "wrapcauchy"
    shapes = ("c",)

    def _valid(self, c):
        return (c > 0) & (c < 1)

    def _logpdf(self, z, c):
        inside = (z >= 0) & (z <= 2.0 * math.pi)
        zs = fnp.where(inside, z, 1.0)
        out = fnp.log1p(-c * c) - _LOG_2PI - fnp.log1p(c * c - 2.0 * c * fnp.cos(zs))
        return fnp.where(inside, out, -fnp.inf)


class _Gennorm(_Continuous):
    """The generalized normal distribution with shape ``beta``: density
    ``beta / (2 Gamma(1/beta)) exp(-|z|**beta)`` (``beta = 2``: normal with variance 1/2,
    ``beta = 1``: Laplace).

    Example:
        >>> float(gennorm.cdf(0.0, 1.5))
        0.5
    """

    name = "gennorm"
    shapes = ("beta",)

    def _valid(self, beta):
        return beta > 0

    def _logpdf(self, z, beta):
        return fnp.log(beta) - math.log(2.0) - fsp.gammaln(1.0 / beta) - fnp.abs(z) ** beta

    def _density(self, z, beta):
        # where |z|**beta overflows the density is 0 and so are its derivatives (exp(-inf)
        # times the overflowing d|z|**beta was NaN): the formula runs at z = 0 there
        huge = _power_overflows(z, beta)
        return fnp.where(huge, 0.0, fnp.exp(self._logpdf(fnp.where(huge, 0.0, z), beta)))

    def _cdf(self, z, beta):
        # |z|**beta under 1e-16 (z = 0 included): the line 1/2 + pdf(0) z; gammaincc's
        # derivative there is x**(1/beta - 1) * d(|z|**beta) = inf * 0 (NaN in z and beta);
        # where |z|**beta overflows, the constant 0 or 1 (its derivative was 0 * inf)
        tiny = fnp.abs(z) ** beta < 1e-16
        huge = _power_overflows(z, beta)
        zs = fnp.where(tiny | huge, 1.0, z)
        half = 0.5 * _special("gammaincc")(1.0 / beta, fnp.abs(zs) ** beta)
        pdf0 = beta / (2.0 * fsp.gamma(1.0 / beta))
        line = 0.5 + pdf0 * z
        out = fnp.where(tiny, line, fnp.where(z > 0, 1.0 - half, half))
        return fnp.where(huge, fnp.where(z > 0, 1.0, 0.0), out)

    def _sf(self, z, beta):
        return self._cdf(-z, beta)

    def _stats(self, beta):
        return 0.0, fnp.exp(fsp.gammaln(3.0 / beta) - fsp.gammaln(1.0 / beta))


# -- discrete distributions ---------------------------------------------------------------


class _Poisson(_Discrete):
    """The Poisson distribution with mean ``mu``.

    Example:
        >>> round(float(poisson.pmf(2, 2.0)), 6)
        0.270671
    """

    name = "poisson"
    shapes = ("mu",)

    def _stats(self, mu):
        return mu, mu

    def _valid(self, mu):
        return mu >= 0

    def _in_support(self, k, mu):
        return k >= 0

    def _inside(self, mu):
        return 0.0

    def _logpmf(self, k, mu):
        return fsp.xlogy(k, mu) - mu - fsp.gammaln(k + 1.0)

    def _cdf(self, k, mu):
        ok = k >= 0
        return fnp.where(ok, _special("gammaincc")(fnp.maximum(k, 0.0) + 1.0, mu), 0.0)

    def _sf(self, k, mu):
        ok = k >= 0
        return fnp.where(ok, _special("gammainc")(fnp.maximum(k, 0.0) + 1.0, mu), 1.0)

    def entropy(self, *args: Any, **kwargs: Any) -> Any:
        """The Shannon entropy ``-sum_k p(k) log p(k)`` (``loc`` does not change it): the
        sum over ``k <= 700`` below ``mu = 400``, the asymptotic series
        ``log(2 pi e mu) / 2 - 1 / (12 mu) - 1 / (24 mu^2) - 19 / (360 mu^3)`` above
        (within 5e-12 there; SciPy's own sum stops converging near ``mu = 1e4``).

        Example:
            >>> round(float(poisson.entropy(3.0)), 6)
            1.93147
        """
        where = f"{self.name}.entropy"
        _, mu, _ = _split(0.0, args, kwargs, self.shapes, ("loc",), where)
        mu = _fl(mu)
        small = (mu > 0) & (mu < 400.0)
        ms = fnp.where(small, mu, 1.0)
        k = fnp.reshape(fnp.arange(701.0), (701,) + (1,) * fnp.ndim(ms))
        logp = k * fnp.log(ms) - ms - fsp.gammaln(k + 1.0)
        summed = -fnp.sum(fnp.exp(logp) * logp, axis=0)
        ml = fnp.where(mu >= 400.0, mu, 400.0)
        series = 0.5 * fnp.log(2.0 * math.pi * math.e * ml) - 1.0 / (12.0 * ml)
        series = series - 1.0 / (24.0 * ml**2) - 19.0 / (360.0 * ml**3)
        out = fnp.where(small, summed, fnp.where(mu >= 400.0, series, 0.0))
        return _nan_unless(self._valid(mu), out)


class _Binom(_Discrete):
    """The binomial distribution: successes in ``n`` trials of probability ``p``.

    Example:
        >>> float(binom.pmf(1, 2, 0.5))
        0.5
    """

    name = "binom"
    shapes = ("n", "p")

    def _stats(self, n, p):
        return n * p, n * p * (1.0 - p)

    def _valid(self, n, p):
        return (n >= 0) & (n == fnp.floor(n)) & (p >= 0) & (p <= 1)

    def _in_support(self, k, n, p):
        return (k >= 0) & (k <= n)

    def _inside(self, n, p):
        return 0.0

    def _logpmf(self, k, n, p):
        comb = fsp.gammaln(n + 1.0) - fsp.gammaln(k + 1.0) - fsp.gammaln(n - k + 1.0)
        return comb + fsp.xlogy(k, p) + fsp.xlog1py(n - k, -p)

    def _cdf(self, k, n, p):
        inside = (k >= 0) & (k < n)
        ks = fnp.where(inside, k, 0.0)
        ns = fnp.where(inside, n, 1.0)
        mid = _special("betainc")(ns - ks, ks + 1.0, 1.0 - p)
        return fnp.where(inside, mid, fnp.where(k < 0, 0.0, 1.0))

    def _sf(self, k, n, p):
        inside = (k >= 0) & (k < n)
        ks = fnp.where(inside, k, 0.0)
        ns = fnp.where(inside, n, 1.0)
        mid = _special("betainc")(ks + 1.0, ns - ks, p)
        return fnp.where(inside, mid, fnp.where(k < 0, 1.0, 0.0))


class _Nbinom(_Discrete):
    """The negative binomial distribution: failures before ``n`` successes of probability
    ``p``.

    Example:
        >>> float(nbinom.pmf(0, 1, 0.5))
        0.5
    """

    name = "nbinom"
    shapes = ("n", "p")

    def _stats(self, n, p):
        return n * (1.0 - p) / p, n * (1.0 - p) / (p * p)

    def _valid(self, n, p):
        return (n > 0) & (p > 0) & (p <= 1)

    def _in_support(self, k, n, p):
        return k >= 0

    def _inside(self, n, p):
        return 0.0

    def _logpmf(self, k, n, p):
        comb = fsp.gammaln(n + k) - fsp.gammaln(k + 1.0) - fsp.gammaln(n)
        return comb + n * fnp.log(p) + fsp.xlog1py(k, -p)

    def _cdf(self, k, n, p):
        ok = k >= 0
        return fnp.where(ok, _special("betainc")(n, fnp.maximum(k, 0.0) + 1.0, p), 0.0)

    def _sf(self, k, n, p):
        ok = k >= 0
        return fnp.where(ok, _special("betainc")(fnp.maximum(k, 0.0) + 1.0, n, 1.0 - p), 1.0)

    def logcdf(self, k: Any, *args: Any, **kwargs: Any) -> Any:
        """Log of the cdf, ``log1p(-sf)`` above the median (SciPy's: -5.5e-20, not 0, at
        ``nbinom.logcdf(80, 5, 0.5)``)."""
        k, (n, p), valid = self._args("logcdf", k, args, kwargs)
        k = fnp.floor(k)
        out = _log_of_complement(self._cdf(k, n, p), lambda: self._sf(k, n, p))
        return _nan_unless(valid, out)


class _Geom(_Discrete):
    """The geometric distribution: the trial of the first success, ``k >= 1``.

    Example:
        >>> float(geom.pmf(1, 0.25))
        0.25
    """

    name = "geom"
    shapes = ("p",)

    def _stats(self, p):
        return 1.0 / p, (1.0 - p) / (p * p)

    def _valid(self, p):
        return (p > 0) & (p <= 1)

    def _in_support(self, k, p):
        return k >= 1

    def _inside(self, p):
        return 1.0

    def _logpmf(self, k, p):
        return fsp.xlog1py(k - 1.0, -p) + fnp.log(p)

    def _log_sf(self, k, p):
        return fsp.xlog1py(fnp.maximum(k, 0.0), -p)

    def _cdf(self, k, p):
        return -fnp.expm1(self._log_sf(k, p))

    def _sf(self, k, p):
        return fnp.exp(self._log_sf(k, p))

    def logsf(self, k: Any, *args: Any, **kwargs: Any) -> Any:
        """Log of the survival function, ``k log(1 - p)``."""
        k, (p,), valid = self._args("logsf", k, args, kwargs)
        return _nan_unless(valid, self._log_sf(fnp.floor(k), p))

    def _ppf(self, q, p):
        k = fnp.ceil(fnp.log1p(-q) / fnp.log1p(-p))
        # SciPy's correction for rounding: the smallest k with cdf(k) >= q
        below = self._cdf(k - 1.0, p) >= q
        k = fnp.where(below & (k > 1), k - 1.0, k)
        return fnp.where(q == 0, 0.0, fnp.maximum(k, 1.0))  # SciPy: ppf(0) = support start - 1


class _Bernoulli(_Discrete):
    """The Bernoulli distribution: 1 with probability ``p``, else 0.

    Example:
        >>> float(bernoulli.pmf(1, 0.25))
        0.25
    """

    name = "bernoulli"
    shapes = ("p",)

    def _stats(self, p):
        return p, p * (1.0 - p)

    def _valid(self, p):
        return (p >= 0) & (p <= 1)

    def _in_support(self, k, p):
        return (k == 0) | (k == 1)

    def _inside(self, p):
        return 0.0

    def _logpmf(self, k, p):
        return fsp.xlogy(k, p) + fsp.xlog1py(1.0 - k, -p)

    def _cdf(self, k, p):
        return fnp.where(k < 0, 0.0, fnp.where(k >= 1, 1.0, 1.0 - p))

    def _sf(self, k, p):
        return fnp.where(k < 0, 1.0, fnp.where(k >= 1, 0.0, p))

    def _ppf(self, q, p):
        return fnp.where(q == 0, -1.0, fnp.where(q > 1.0 - p, 1.0, 0.0))


class _Betabinom(_Discrete):
    """The beta-binomial distribution: successes in ``n`` trials whose probability is
    ``Beta(a, b)`` (``logpmf``/``pmf`` only).

    Example:
        >>> round(float(betabinom.pmf(1, 2, 1.0, 1.0)), 6)  # uniform on {0, 1, 2}
        0.333333
    """

    name = "betabinom"
    shapes = ("n", "a", "b")

    def _valid(self, n, a, b):
        return (n >= 0) & (n == fnp.floor(n)) & (a > 0) & (b > 0)

    def _in_support(self, k, n, a, b):
        return (k >= 0) & (k <= n)

    def _inside(self, n, a, b):
        return 0.0

    def _logpmf(self, k, n, a, b):
        comb = fsp.gammaln(n + 1.0) - fsp.gammaln(k + 1.0) - fsp.gammaln(n - k + 1.0)
        return comb + _betaln(k + a, n - k + b) - _betaln(a, b)

    def _cdf(self, k, n, a, b):
        raise UnsupportedOperationError(
            "betabinom: only logpmf and pmf are supported (the cdf is a sum over k)"
        )

    def _stats(self, n, a, b):
        ab = a + b
        return n * a / ab, n * a * b * (ab + n) / (ab * ab * (ab + 1.0))


class _Hypergeom(_Discrete):
    """The hypergeometric distribution: successes in ``N`` draws without replacement from
    ``M`` objects of which ``n`` are successes (SciPy's names).  Its parameters are
    integers: the pmf is SciPy's formula in ``betaln``, the cdf and sf are SciPy's values
    (integer steps in ``k``: no derivative).

    Example:
        >>> round(float(hypergeom.pmf(1, 10, 4, 3)), 6)  # C(4,1) C(6,2) / C(10,3)
        0.5
    """

    name = "hypergeom"
    shapes = ("M", "n", "N")

    def _valid(self, M, n, N):  # noqa: N803  (SciPy's names)
        whole = (M == fnp.floor(M)) & (n == fnp.floor(n)) & (N == fnp.floor(N))
        return whole & (M >= 0) & (n >= 0) & (N >= 0) & (n <= M) & (N <= M)

    def _in_support(self, k, M, n, N):  # noqa: N803
        return (k >= fnp.maximum(N - (M - n), 0.0)) & (k <= fnp.minimum(n, N))

    def _inside(self, M, n, N):  # noqa: N803
        return fnp.maximum(N - (M - n), 0.0)

    def _logpmf(self, k, M, n, N):  # noqa: N803
        bad = M - n
        return (
            _betaln(n + 1.0, 1.0)
            + _betaln(bad + 1.0, 1.0)
            + _betaln(M - N + 1.0, N + 1.0)
            - _betaln(k + 1.0, n - k + 1.0)
            - _betaln(N - k + 1.0, bad - N + k + 1.0)
            - _betaln(M + 1.0, 1.0)
        )

    def _scipy(self, method, k, M, n, N):  # noqa: N803
        args = fnp.broadcast_arrays(
            *_like_all(k, (fnp.stop_gradient(k), *(fnp.stop_gradient(v) for v in (M, n, N))))
        )
        return scipy_ppf_p.bind(*args, dist="hypergeom", method=method)

    def cdf(self, k: Any, *args: Any, **kwargs: Any) -> Any:
        """``P(X <= k)``; NaN at a non-integer ``k`` inside the support, as SciPy's (its
        Boost cdf takes integers only; 0 below the support, 1 from its top)."""
        return self._off_integers("cdf", k, args, kwargs)

    def sf(self, k: Any, *args: Any, **kwargs: Any) -> Any:
        """``P(X > k)``; NaN at a non-integer ``k`` inside the support, as SciPy's."""
        return self._off_integers("sf", k, args, kwargs)

    def _off_integers(self, method, k, args, kwargs):
        out = getattr(super(), method)(k, *args, **kwargs)
        ks, shape, _ = self._args(method, k, args, kwargs)
        lo = self._inside(*shape)
        hi = fnp.minimum(shape[1], shape[2])
        odd = (ks != fnp.floor(ks)) & (ks >= lo) & (ks < hi)
        return fnp.where(odd, fnp.nan, out)

    def _cdf(self, k, M, n, N):  # noqa: N803
        return self._scipy("cdf", k, M, n, N)

    def _sf(self, k, M, n, N):  # noqa: N803
        return self._scipy("sf", k, M, n, N)

    def _stats(self, M, n, N):  # noqa: N803
        mean = N * n / M
        return mean, mean * (M - n) * (M - N) / (M * fnp.maximum(M - 1.0, 1.0))


class _Multinomial(_Dist):
    """The multinomial distribution: counts ``x`` (last axis) of ``n`` draws with
    probabilities ``p``.

    Example:
        >>> import numpy as np
        >>> float(multinomial.pmf(np.array([1.0, 1.0]), 2, np.array([0.5, 0.5])))
        0.5
    """

    name = "multinomial"

    def logpmf(self, x: Any, n: Any, p: Any) -> Any:
        """Log probability of the counts ``x`` (``-inf`` unless they are non-negative
        integers summing to ``n``)."""
        x, n, p = _fl(x), _fl(n), _fl(p)
        ok = fnp.all((x >= 0) & (x == fnp.floor(x)), axis=-1) & (fnp.sum(x, axis=-1) == n)
        xs = fnp.where(x >= 0, x, 0.0)
        out = fsp.gammaln(n + 1.0) + fnp.sum(fsp.xlogy(xs, p) - fsp.gammaln(xs + 1.0), axis=-1)
        return fnp.where(ok, out, -fnp.inf)

    def pmf(self, x: Any, n: Any, p: Any) -> Any:
        """Probability of the counts ``x``."""
        return fnp.exp(self.logpmf(x, n, p))


# -- multivariate ---------------------------------------------------------------------------


class _Dirichlet(_Dist):
    """The Dirichlet distribution with concentrations ``alpha`` (shape ``(K,)``); ``x`` has
    the components on its first axis, ``(K,)`` or ``(K, N)``, as in SciPy.

    Example:
        >>> import numpy as np
        >>> round(float(dirichlet.logpdf(np.array([0.2, 0.8]), np.array([1.0, 1.0]))), 6)
        0.0
    """

    name = "dirichlet"

    def logpdf(self, x: Any, alpha: Any) -> Any:
        """Log density at ``x`` (a point of the simplex, components on axis 0)."""
        x, alpha = _fl(x), _fl(alpha)
        if fnp.ndim(alpha) != 1:
            raise ValueError(
                f"dirichlet.logpdf(x, alpha): alpha must be 1-D, got shape {fnp.shape(alpha)}"
            )
        if fnp.shape(x)[:1] != fnp.shape(alpha):
            raise ValueError(
                f"dirichlet.logpdf(x, alpha): x must have the {fnp.shape(alpha)[0]} components "
                f"on its first axis, got shape {fnp.shape(x)}"
            )
        a = fnp.reshape(alpha, fnp.shape(alpha) + (1,) * (fnp.ndim(x) - 1))
        norm_const = fnp.sum(fsp.gammaln(alpha)) - fsp.gammaln(fnp.sum(alpha))
        return fnp.sum(fsp.xlogy(a - 1.0, x), axis=0) - norm_const

    def pdf(self, x: Any, alpha: Any) -> Any:
        """Density at ``x``."""
        return fnp.exp(self.logpdf(x, alpha))

    @staticmethod
    def _alpha(alpha: Any, where: str) -> Any:
        alpha = _fl(alpha)
        if fnp.ndim(alpha) != 1:
            raise ValueError(
                f"dirichlet.{where}(alpha): alpha must be 1-D, got shape {fnp.shape(alpha)}"
            )
        return alpha

    def mean(self, alpha: Any) -> Any:
        """``alpha / sum(alpha)``.

        Example:
            >>> import numpy as np
            >>> dirichlet.mean(np.array([1.0, 3.0])).tolist()
            [0.25, 0.75]
        """
        alpha = self._alpha(alpha, "mean")
        return alpha / fnp.sum(alpha)

    def var(self, alpha: Any) -> Any:
        """The components' variances, ``a (a0 - a) / (a0**2 (a0 + 1))``, ``a0 = sum(a)``."""
        alpha = self._alpha(alpha, "var")
        a0 = fnp.sum(alpha)
        return alpha * (a0 - alpha) / (a0 * a0 * (a0 + 1.0))

    def cov(self, alpha: Any) -> Any:
        """The covariance matrix, ``(diag(m) - m mᵀ) / (a0 + 1)``, ``m`` the mean."""
        alpha = self._alpha(alpha, "cov")
        a0 = fnp.sum(alpha)
        m = alpha / a0
        return (fnp.diag(m) - fnp.outer(m, m)) / (a0 + 1.0)

    def entropy(self, alpha: Any) -> Any:
        """Differential entropy, ``log B(alpha) + (a0 - K) psi(a0) - sum((a - 1) psi(a))``
        (the variational-inference term).

        Example:
            >>> import numpy as np
            >>> round(float(dirichlet.entropy(np.array([1.0, 1.0]))), 6)  # uniform on [0, 1]
            0.0
        """
        alpha = self._alpha(alpha, "entropy")
        a0 = fnp.sum(alpha)
        log_b = fnp.sum(fsp.gammaln(alpha)) - fsp.gammaln(a0)
        k = fnp.shape(alpha)[0]
        return log_b + (a0 - k) * fsp.digamma(a0) - fnp.sum((alpha - 1.0) * fsp.digamma(alpha))

    def rvs(self, alpha: Any, size: Any = 1, random_state: Any = None) -> Any:
        """Samples of shape ``size + (K,)`` (SciPy's), each ``g / sum(g)`` for independent
        ``g_k`` drawn from ``gamma(alpha_k)``: differentiable in ``alpha`` (the gamma
        draws are reparameterised through their quantile function).

        Example:
            >>> import numpy as np
            >>> x = dirichlet.rvs(np.array([1.0, 2.0, 3.0]), size=4, random_state=0)
            >>> x.shape, np.allclose(x.sum(axis=1), 1.0)
            ((4, 3), True)
        """
        rng = _rng(random_state, "dirichlet.rvs")
        alpha = _fl(alpha)
        if fnp.ndim(alpha) != 1:
            raise ValueError(
                f"dirichlet.rvs(alpha): alpha must be 1-D, got shape {fnp.shape(alpha)}"
            )
        g = gamma._rvs(rng, _rvs_size(size, ()) + fnp.shape(alpha), alpha)
        return g / fnp.sum(g, axis=-1, keepdims=True)


def _psd_factor(cov: Any, where: str) -> tuple:
    """``(basis, chol, rank, null, tol)`` of a positive semidefinite ``cov`` (SciPy's
    ``_PSD``, made differentiable and of fixed shapes).

    NOTE [singular multivariate normal]: the eigenvectors ``U`` of ``cov`` (computed
    without a derivative) split it into its range (eigenvalues above SciPy's cutoff,
    ``1e6 * eps * max|s|`` in float64, ``1e3 * eps`` in float32) and its null space.  In
    that basis ``Uᵀ cov U`` is restricted to the range by a mask and completed with the
    identity on the null space: a positive definite ``(d, d)`` matrix whose log
    determinant is the pseudo-determinant's and whose inverse, on ``Uᵀ (x - mean)``
    masked, gives the pseudo-inverse's Mahalanobis distance.  ``cov`` enters through
    ``Uᵀ cov U``, so the value and its gradient are exact for changes of ``cov`` that keep
    its range (all changes, when ``cov`` is positive definite); the shapes do not depend
    on the rank, so ``vmap`` and ``jit`` go through.  ``x`` off ``mean`` + range (SciPy's
    residual test, ``1e3`` times the cutoff) has density zero.
    """
    s, u = fnp.linalg.eigh(fnp.stop_gradient(cov))
    kind = numpy.dtype(dtype_of(cov)).char.lower()
    cond = (1e3 if kind == "f" else 1e6) * numpy.finfo(dtype_of(cov)).eps
    eps = cond * fnp.max(fnp.abs(s))
    if not isinstance(s, Tracer) and bool(fnp.min(s) < -eps):
        raise ValueError(
            f"multivariate_normal.{where}(allow_singular=True): cov must be symmetric "
            f"positive semidefinite, but it has the eigenvalue {float(fnp.min(s)):.3g}"
        )
    keep = s > eps
    mask = fnp.astype(keep, dtype_of(cov))
    inner = fnp.matmul(fnp.transpose(u), fnp.matmul(cov, u))
    masked = inner * (mask[:, None] * mask[None, :]) + fnp.diag(1.0 - mask)
    chol = fnp.linalg.cholesky(masked)
    basis = u * mask[None, :]
    null = u * (1.0 - mask)[None, :]
    return basis, chol, fnp.sum(mask), null, 1e3 * eps


class _MultivariateNormal(_Dist):
    """The multivariate normal distribution ``N(mean, cov)`` (``cov`` positive definite).

    Example:
        >>> import numpy as np
        >>> round(float(multivariate_normal.logpdf(np.zeros(2), np.zeros(2), np.eye(2))), 6)
        -1.837877
    """

    name = "multivariate_normal"

    def _prepare(
        self, method: str, mean: Any, cov: Any, x: Any = None, singular: bool = False
    ) -> tuple:
        """``(mean (d,), cholesky factor, d)`` from SciPy's forms: ``mean`` None, a scalar
        or ``(d,)``; ``cov`` a scalar, the diagonal ``(d,)`` or ``(d, d)`` (only its
        symmetric part is used, as JAX's, so its gradient is symmetric).  With
        ``singular`` the factor is :func:`_psd_factor`'s ``(basis, cholesky, rank,
        null basis, tolerance)`` instead."""
        where = f"multivariate_normal.{method}"
        cov = _fl(cov)
        if mean is not None:
            mean = _fl(mean)
            if fnp.ndim(mean) > 1:
                raise ValueError(f"{where}: mean must be 1-D, got shape {fnp.shape(mean)}")
            d = fnp.size(mean)
        elif fnp.ndim(cov) >= 1:
            d = fnp.shape(cov)[0]
        else:
            d = fnp.shape(x)[-1] if x is not None and fnp.ndim(x) >= 1 else 1
        dt = dtype_of(cov) if mean is None else numpy.result_type(dtype_of(mean), dtype_of(cov))
        ref = cov if mean is None else mean
        if mean is None:
            mean = fnp.zeros((d,), dtype=dt, like=ref)
        elif fnp.ndim(mean) == 0:
            mean = fnp.reshape(mean, (1,))
        if fnp.ndim(cov) == 0:
            cov = cov * fnp.eye(d, dtype=dtype_of(cov), like=ref)
        elif fnp.ndim(cov) == 1:
            cov = fnp.diag(cov)
        if fnp.shape(cov) != (d, d):
            raise ValueError(
                f"{where}: cov must be ({d}, {d}) for a mean of length {d}, got shape "
                f"{fnp.shape(cov)}"
            )
        cov = 0.5 * (cov + fnp.transpose(cov))
        if singular:
            return mean, _psd_factor(cov, where), d
        return mean, fnp.linalg.cholesky(cov), d

    @staticmethod
    def _singular(allow_singular: bool, where: str) -> None:
        if allow_singular:
            raise UnsupportedOperationError(
                f"multivariate_normal.{where}(allow_singular=True): only a positive definite "
                f"cov is supported (its Cholesky factor is differentiated)"
            )

    def logpdf(self, x: Any, mean: Any = None, cov: Any = 1.0, allow_singular: bool = False) -> Any:
        """Log density at ``x`` (``(..., d)``; for ``d == 1`` also ``()`` or ``(n,)``,
        ``n`` points, as SciPy reads them).  With ``allow_singular=True`` a positive
        semidefinite ``cov`` is accepted, as in SciPy: the density is that of the normal
        on ``mean`` plus the range of ``cov`` (pseudo-determinant and pseudo-inverse, the
        eigenvalues below SciPy's cutoff counted as zero), ``-inf`` off it; gradients
        follow ``cov`` along its range (NOTE [singular multivariate normal])."""
        x = _fl(x)
        if allow_singular:
            return self._logpdf_singular(x, mean, cov)
        mean, chol, d = self._prepare("logpdf", mean, cov, x)
        if d == 1 and fnp.ndim(x) <= 1:
            x = fnp.reshape(x, fnp.shape(x) + (1,))
        if fnp.shape(x)[-1:] != (d,):
            raise ValueError(
                f"multivariate_normal.logpdf: x must have {d} components on its last axis, "
                f"got shape {fnp.shape(x)}"
            )
        diff = x - mean
        flat = fnp.reshape(diff, (-1, d))
        w = solve_triangular(chol, fnp.transpose(flat), lower=True)
        maha = fnp.sum(w * w, axis=0)
        logdet = 2.0 * fnp.sum(fnp.log(fnp.diagonal(chol)))
        out = -0.5 * (maha + logdet + d * _LOG_2PI)
        return fnp.reshape(out, fnp.shape(diff)[:-1])

    def _logpdf_singular(self, x: Any, mean: Any, cov: Any) -> Any:
        mean, (basis, chol, rank, null, tol), d = self._prepare(
            "logpdf", mean, cov, x, singular=True
        )
        if d == 1 and fnp.ndim(x) <= 1:
            x = fnp.reshape(x, fnp.shape(x) + (1,))
        if fnp.shape(x)[-1:] != (d,):
            raise ValueError(
                f"multivariate_normal.logpdf: x must have {d} components on its last axis, "
                f"got shape {fnp.shape(x)}"
            )
        diff = x - mean
        flat = fnp.reshape(diff, (-1, d))
        w = solve_triangular(
            chol, fnp.matmul(fnp.transpose(basis), fnp.transpose(flat)), lower=True
        )
        maha = fnp.sum(w * w, axis=0)
        logdet = 2.0 * fnp.sum(fnp.log(fnp.diagonal(chol)))
        out = -0.5 * (maha + logdet + rank * _LOG_2PI)
        residual = fnp.sqrt(fnp.sum(fnp.matmul(fnp.stop_gradient(flat), null) ** 2, axis=-1))
        out = fnp.where(residual < tol, out, -fnp.inf)
        return fnp.reshape(out, fnp.shape(diff)[:-1])

    def pdf(self, x: Any, mean: Any = None, cov: Any = 1.0, allow_singular: bool = False) -> Any:
        """Density at ``x``."""
        return fnp.exp(self.logpdf(x, mean, cov, allow_singular))

    def cdf(
        self,
        x: Any,
        mean: Any = None,
        cov: Any = 1.0,
        allow_singular: bool = False,
        maxpts: Any = None,
        abseps: float = 1e-5,
        releps: float = 1e-5,
        *,
        lower_limit: Any = None,
        rng: Any = None,
    ) -> Any:
        """``P(X <= x)``, SciPy's value (exact in two dimensions; Genz's randomized
        quasi-Monte Carlo to ``abseps``/``releps`` beyond), differentiable in ``x``,
        ``mean`` and ``cov`` (NOTE [multivariate normal cdf] in ``stats_mvn_cdf.py``).

        Example:
            >>> import numpy as np
            >>> round(float(multivariate_normal.cdf(np.zeros(2), cov=np.eye(2))), 6)
            0.25
        """
        self._singular(allow_singular, "cdf")
        if lower_limit is not None or rng is not None:
            raise UnsupportedOperationError(
                "multivariate_normal.cdf on tracers: lower_limit and rng are not supported "
                "(the cdf up to x with SciPy's own random stream is)"
            )
        x = _fl(x)
        mean, chol, d = self._prepare("cdf", mean, cov, x)
        cov = fnp.matmul(chol, fnp.transpose(chol))
        if d == 1 and fnp.ndim(x) <= 1:
            x = fnp.reshape(x, fnp.shape(x) + (1,))
        if fnp.shape(x)[-1:] != (d,):
            raise ValueError(
                f"multivariate_normal.cdf: x must have {d} components on its last axis, "
                f"got shape {fnp.shape(x)}"
            )
        diff = x - mean
        flat = fnp.reshape(diff, (-1, d))
        n = fnp.shape(flat)[0]
        covs = fnp.broadcast_to(cov, (n, d, d))
        out = mvn_cdf(flat, covs, maxpts, abseps, releps)
        return fnp.reshape(out, fnp.shape(diff)[:-1])

    def logcdf(self, x: Any, *args: Any, **kwargs: Any) -> Any:
        """Log of :meth:`cdf` (SciPy's signature)."""
        return fnp.log(self.cdf(x, *args, **kwargs))

    def entropy(self, mean: Any = None, cov: Any = 1.0, allow_singular: bool = False) -> Any:
        """Differential entropy, ``(d log(2 pi e) + log det cov) / 2`` (with
        ``allow_singular=True``, the rank and the pseudo-determinant for ``d`` and
        ``det``, as SciPy)."""
        if allow_singular:
            _, (_, chol, rank, _, _), _ = self._prepare("entropy", mean, cov, singular=True)
            logdet = 2.0 * fnp.sum(fnp.log(fnp.diagonal(chol)))
            return 0.5 * (rank * (_LOG_2PI + 1.0) + logdet)
        mean, chol, d = self._prepare("entropy", mean, cov)
        logdet = 2.0 * fnp.sum(fnp.log(fnp.diagonal(chol)))
        return 0.5 * (d * (_LOG_2PI + 1.0) + logdet)

    def rvs(
        self,
        mean: Any = None,
        cov: Any = 1.0,
        size: Any = 1,
        random_state: Any = None,
        allow_singular: bool = False,
    ) -> Any:
        """Samples ``mean + L eps`` (``L L^T = cov``, ``eps`` from
        :func:`ftransforms.random.normal`), shape ``size + (d,)`` (SciPy's, with the
        size-1 axes of SciPy's squeeze kept); differentiable in ``mean`` and ``cov``."""
        self._singular(allow_singular, "rvs")
        rng = _rng(random_state, "multivariate_normal.rvs")
        mean, chol, d = self._prepare("rvs", mean, cov)
        size = _rvs_size(size, ())
        eps = _random().normal(rng, size=size + (d,), dtype=dtype_of(mean))
        return mean + fnp.matmul(eps, fnp.transpose(chol))


_EULER = 0.5772156649015329  # Euler-Mascheroni constant


class _Halfnorm(_Continuous):
    """The half-normal distribution, ``|Z|`` for a standard normal ``Z``.

    Example:
        >>> round(float(halfnorm.cdf(1.0)), 6)
        0.682689
    """

    name = "halfnorm"
    _finite_ends = (0.0, math.inf)

    def _logpdf(self, z):
        return fnp.where(z >= 0, 0.5 * math.log(2.0 / math.pi) - 0.5 * z * z, -fnp.inf)

    def _cdf(self, z):
        return fsp.erf(fnp.maximum(z, 0.0) / _SQRT2)

    def _sf(self, z):
        return fsp.erfc(fnp.maximum(z, 0.0) / _SQRT2)

    def _logsf(self, z):
        return math.log(2.0) + _log_ndtr(-fnp.maximum(z, 0.0))

    def _ppf(self, q):
        return _ndtri(0.5 * (1.0 + q))

    def _isf(self, q):
        return -_ndtri(0.5 * q)

    def _stats(self):
        return math.sqrt(2.0 / math.pi), 1.0 - 2.0 / math.pi

    def _entropy(self):
        return 0.5 * math.log(math.pi / 2.0) + 0.5


class _Halfcauchy(_Continuous):
    """The half-Cauchy distribution, ``|C|`` for a standard Cauchy ``C``.

    Example:
        >>> round(float(halfcauchy.cdf(1.0)), 6)
        0.5
    """

    name = "halfcauchy"

    def _logpdf(self, z):
        return fnp.where(z >= 0, math.log(2.0 / math.pi) - fnp.log1p(z * z), -fnp.inf)

    def _cdf(self, z):
        return (2.0 / math.pi) * fnp.arctan(fnp.maximum(z, 0.0))

    def _sf(self, z):
        return (2.0 / math.pi) * fnp.arctan2(1.0, fnp.maximum(z, 0.0))

    def _ppf(self, q):
        return fnp.tan(0.5 * math.pi * q)

    def _isf(self, q):
        return 1.0 / fnp.tan(0.5 * math.pi * q)

    def _stats(self):
        return fnp.inf, fnp.inf

    def _entropy(self):
        return math.log(2.0 * math.pi)


class _Rayleigh(_Continuous):
    """The Rayleigh distribution, the length of a standard normal 2-vector.

    Example:
        >>> round(float(rayleigh.sf(1.0)), 6)
        0.606531
    """

    name = "rayleigh"
    _finite_ends = (0.0, math.inf)

    def _logpdf(self, z):
        ok = z >= 0
        zs = fnp.where(ok, z, 1.0)
        return fnp.where(ok, fnp.log(zs) - 0.5 * zs * zs, -fnp.inf)

    def _cdf(self, z):
        r = fnp.maximum(z, 0.0)
        return -fnp.expm1(-0.5 * r * r)

    def _sf(self, z):
        r = fnp.maximum(z, 0.0)
        return fnp.exp(-0.5 * r * r)

    def _logsf(self, z):
        r = fnp.maximum(z, 0.0)
        return -0.5 * r * r

    def _ppf(self, q):
        return fnp.sqrt(-2.0 * fnp.log1p(-q))

    def _isf(self, q):
        return fnp.sqrt(-2.0 * fnp.log(q))

    def _stats(self):
        return math.sqrt(math.pi / 2.0), (4.0 - math.pi) / 2.0

    def _entropy(self):
        return _EULER / 2.0 + 1.0 - 0.5 * math.log(2.0)


class _WeibullMin(_Continuous):
    """The Weibull (minimum) distribution with shape ``c``: ``sf(z) = exp(-z**c)``.

    Example:
        >>> round(float(weibull_min.sf(1.0, 2.0)), 6)
        0.367879
    """

    name = "weibull_min"
    _finite_ends = (0.0, math.inf)
    shapes = ("c",)

    def _valid(self, c):
        return c > 0

    def _logpdf(self, z, c):
        ok = z >= 0
        zs = fnp.where(ok, z, 1.0)
        return fnp.where(ok, fnp.log(c) + fsp.xlogy(c - 1.0, zs) - zs**c, -fnp.inf)

    def _cdf(self, z, c):
        return _from_zero(z, lambda zs: _exp_neg_pow(zs, c, complement=True), 0.0)

    def _sf(self, z, c):
        return _from_zero(z, lambda zs: _exp_neg_pow(zs, c), 1.0)

    def _logcdf(self, z, c):
        pos = z > 0
        return fnp.where(pos, _exp_neg_pow(fnp.where(pos, z, 1.0), c, "log"), -fnp.inf)

    def _logsf(self, z, c):
        return _from_zero(z, lambda zs: -(zs**c), 0.0)

    def _ppf(self, q, c):
        return (-fnp.log1p(-q)) ** (1.0 / c)

    def _isf(self, q, c):
        return (-fnp.log(q)) ** (1.0 / c)

    def _stats(self, c):
        m = fsp.gamma(1.0 + 1.0 / c)
        return m, fsp.gamma(1.0 + 2.0 / c) - m * m

    def _entropy(self, c):
        return -fnp.log(c) + _EULER * (1.0 - 1.0 / c) + 1.0


class _Invgamma(_Continuous):
    """The inverse-gamma distribution with shape ``a``: ``1 / X`` for ``X ~ gamma(a)``.

    Example:
        >>> round(float(invgamma.cdf(1.0, 1.0)), 6)
        0.367879
    """

    name = "invgamma"
    _finite_ends = (0.0, math.inf)
    shapes = ("a",)

    def _valid(self, a):
        return a > 0

    def _logpdf(self, z, a):
        ok = z > 0
        zs = fnp.where(ok, z, 1.0)
        return fnp.where(ok, -(a + 1.0) * fnp.log(zs) - fsp.gammaln(a) - 1.0 / zs, -fnp.inf)

    def _cdf(self, z, a):
        ok = z > 0
        return fnp.where(ok, _special("gammaincc")(a, 1.0 / fnp.where(ok, z, 1.0)), 0.0)

    def _sf(self, z, a):
        ok = z > 0
        return fnp.where(ok, _special("gammainc")(a, 1.0 / fnp.where(ok, z, 1.0)), 1.0)

    def _ppf(self, q, a):
        return _implicit_ppf("invgamma", self, q, a)

    def _isf(self, q, a):
        return _implicit_ppf("invgamma", self, q, a, method="isf")

    def _stats(self, a):
        am1 = fnp.where(a > 1, a - 1.0, 1.0)
        mean = fnp.where(a > 1, 1.0 / am1, fnp.inf)
        var = fnp.where(a > 2, 1.0 / (am1 * am1 * fnp.where(a > 2, a - 2.0, 1.0)), fnp.inf)
        return fnp.where(a > 1, mean, fnp.nan), fnp.where(
            a > 2, var, fnp.where(a > 1, fnp.inf, fnp.nan)
        )

    def _entropy(self, a):
        return a - (a + 1.0) * fsp.digamma(a) + fsp.gammaln(a)


class _F(_Continuous):
    """Fisher's F distribution with ``dfn`` and ``dfd`` degrees of freedom: the cdf is
    ``betainc(dfn/2, dfd/2, dfn x / (dfn x + dfd))``, differentiable in both (NOTE [betainc
    in a and b] in ``ops/special.py``).

    Example:
        >>> round(float(f.sf(3.0, 2.0, 10.0)), 6)  # (1 + 2 * 3 / 10) ** -5
        0.095367
    """

    name = "f"
    _finite_ends = (0.0, math.inf)
    shapes = ("dfn", "dfd")

    def _valid(self, dfn, dfd):
        return (dfn > 0) & (dfd > 0)

    def _logpdf(self, z, dfn, dfd):
        ok = z >= 0
        zs = fnp.where(ok, z, 1.0)
        out = (
            0.5 * dfn * fnp.log(dfn)
            + 0.5 * dfd * fnp.log(dfd)
            + fsp.xlogy(0.5 * dfn - 1.0, zs)
            - 0.5 * (dfn + dfd) * fnp.log(dfd + dfn * zs)
            - _betaln(0.5 * dfn, 0.5 * dfd)
        )
        return fnp.where(ok, out, -fnp.inf)

    def _split(self, z, dfn, dfd):
        zs = fnp.maximum(z, 0.0)
        den = dfn * zs + dfd
        return dfn * zs / den, dfd / den  # w and 1 - w, each without cancellation

    def _cdf(self, z, dfn, dfd):
        def inner(zs):
            return _special("betainc")(0.5 * dfn, 0.5 * dfd, self._split(zs, dfn, dfd)[0])

        return _from_zero(z, inner, 0.0)

    def _sf(self, z, dfn, dfd):
        def inner(zs):
            return _special("betainc")(0.5 * dfd, 0.5 * dfn, self._split(zs, dfn, dfd)[1])

        return _from_zero(z, inner, 1.0)

    def _ppf(self, q, dfn, dfd):
        return _implicit_ppf("f", self, q, dfn, dfd)

    def _isf(self, q, dfn, dfd):
        return _implicit_ppf("f", self, q, dfn, dfd, method="isf")

    def _stats(self, dfn, dfd):
        d2 = fnp.where(dfd > 2, dfd - 2.0, 1.0)
        mean = fnp.where(dfd > 2, dfd / d2, fnp.inf)
        d4 = fnp.where(dfd > 4, dfd - 4.0, 1.0)
        var = 2.0 * dfd * dfd * (dfn + dfd - 2.0) / (dfn * d2 * d2 * d4)
        var = fnp.where(dfd > 4, var, fnp.where(dfd > 2, fnp.inf, fnp.nan))
        return mean, var


class _Skewnorm(_Continuous):
    """The skew-normal distribution with shape ``a``: density ``2 phi(x) Phi(a x)``, cdf
    ``Phi(x) - 2 owens_t(x, a)``.

    Example:
        >>> round(float(skewnorm.cdf(0.0, 1.0)), 6)  # 1/2 - 2 * (1/8)
        0.25
    """

    name = "skewnorm"
    shapes = ("a",)

    def _valid(self, a):
        return fnp.isfinite(a)

    def _logpdf(self, z, a):
        return math.log(2.0) - 0.5 * z * z - _LOG_SQRT_2PI + fsp.log_ndtr(a * z)

    def _scipy_valued(self, method, z, a, formula):
        """SciPy's value (``Phi(z) - 2 T(z, a)`` cancels in the tails: 5e-9 relative at
        sf = 2e-9, 0 for 1e-60), with the formula's derivatives (``v + (L - stop(L))``)."""
        value = scipy_ppf_p.bind(*fnp.broadcast_arrays(z, a), dist="skewnorm", method=method)
        return value + (formula - fnp.stop_gradient(formula))

    def _cdf(self, z, a):
        return self._scipy_valued("cdf", z, a, fsp.ndtr(z) - 2.0 * fsp.owens_t(z, a))

    def _sf(self, z, a):
        return self._scipy_valued("sf", z, a, fsp.ndtr(-z) - 2.0 * fsp.owens_t(-z, -a))

    def _ppf(self, q, a):
        return _implicit_ppf("skewnorm", self, q, a)

    def _isf(self, q, a):
        return _implicit_ppf("skewnorm", self, q, a, method="isf")

    def _stats(self, a):
        delta = a / fnp.sqrt(1.0 + a * a)
        mean = delta * math.sqrt(2.0 / math.pi)
        return mean, 1.0 - mean * mean


norm = _Norm()
cauchy = _Cauchy()
laplace = _Laplace()
logistic = _Logistic()
expon = _Expon()
uniform = _Uniform()
lognorm = _Lognorm()
t = _T()
gamma = _Gamma()
chi2 = _Chi2()
beta = _Beta()
poisson = _Poisson()
binom = _Binom()
nbinom = _Nbinom()
geom = _Geom()
bernoulli = _Bernoulli()
dirichlet = _Dirichlet()
multivariate_normal = _MultivariateNormal()
gumbel_r = _GumbelR()
gumbel_l = _GumbelL()
pareto = _Pareto()
truncnorm = _Truncnorm()
vonmises = _Vonmises()
wrapcauchy = _Wrapcauchy()
gennorm = _Gennorm()
halfnorm = _Halfnorm()
halfcauchy = _Halfcauchy()
rayleigh = _Rayleigh()
weibull_min = _WeibullMin()
invgamma = _Invgamma()
f = _F()
skewnorm = _Skewnorm()
betabinom = _Betabinom()
hypergeom = _Hypergeom()
multinomial = _Multinomial()


# NOTE [autograd's stats modules]: HIPS autograd has one module per distribution
# (``import autograd.scipy.stats.multivariate_normal as mvn``, ``from
# autograd.scipy.stats.norm import logpdf``), each with SciPy's functions of that
# distribution.  Those import paths resolve here too: a module of the distribution's
# methods under the dotted name, in ``sys.modules`` (which the import system consults
# before it needs a package).  ``import ...stats.norm as norm`` then binds the
# distribution object itself (the package attribute), whose methods are the same.
def _autograd_module(name: str) -> types.ModuleType:
    dist = globals()[name]
    module = types.ModuleType(f"{__name__}.{name}", f"autograd's module for {dist!r}.")
    for method in dir(dist):
        if not method.startswith("_") and callable(getattr(dist, method)):
            setattr(module, method, getattr(dist, method))
    return module


for _name in ("beta", "chi2", "dirichlet", "gamma", "multivariate_normal", "norm", "poisson", "t"):
    sys.modules[f"{__name__}.{_name}"] = _autograd_module(_name)
