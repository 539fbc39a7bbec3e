"""More of ``scipy.stats``' discrete distributions on tracers, SciPy's names and shape
parameters (``loc`` shifts the support): ``logpmf``/``pmf``, ``cdf``/``sf`` (and their
logarithms) from closed forms, differentiable in the continuous shape parameters;
``ppf``/``isf`` are SciPy's integers (no derivative), as for the others in
:mod:`ftransforms.scipy.stats`.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.stats import planck
    >>> round(float(planck.cdf(2, 0.5)), 6)  # 1 - exp(-1.5)
    0.77687
    >>> round(float(ft.grad(lambda lam: planck.logpmf(2, lam))(0.5)), 6)
    -0.458506
"""

from __future__ import annotations

import ftransforms.numpy as fnp
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.scipy import special as fsp
from ftransforms.scipy.stats_base import _betaln, _Discrete


class _Randint(_Discrete):
    """The discrete uniform distribution on ``low, ..., high - 1``.

    Example:
        >>> float(randint.cdf(3, 0, 8))
        0.5
    """

    name = "randint"
    shapes = ("low", "high")

    def _valid(self, low, high):
        return high > low

    def _in_support(self, k, low, high):
        return (k >= low) & (k < high)

    def _inside(self, low, high):
        return low

    def _logpmf(self, k, low, high):
        return -fnp.log(high - low)

    def _cdf(self, k, low, high):
        return fnp.clip((k - low + 1.0) / (high - low), 0.0, 1.0)

    def _stats(self, low, high):
        n = high - low
        return 0.5 * (high + low - 1.0), (n * n - 1.0) / 12.0


class _Dlaplace(_Discrete):
    """The discrete Laplace distribution: ``pmf = tanh(a/2) exp(-a |k|)`` on the integers.

    Example:
        >>> round(float(dlaplace.pmf(0, 1.0)), 6)  # tanh(1/2)
        0.462117
    """

    name = "dlaplace"
    shapes = ("a",)

    def _valid(self, a):
        return a > 0

    def _in_support(self, k, a):
        return fnp.isfinite(k)

    def _inside(self, a):
        return 0.0

    def _logpmf(self, k, a):
        return fnp.log(fnp.tanh(0.5 * a)) - a * fnp.abs(k)

    def _cdf(self, k, a):  # SciPy's two branches
        up = k >= 0
        above = 1.0 - fnp.exp(-a * fnp.where(up, k, 0.0)) / (fnp.exp(a) + 1.0)
        below = fnp.exp(a * (fnp.where(up, -1.0, k) + 1.0)) / (fnp.exp(a) + 1.0)
        return fnp.where(up, above, below)

    def _sf(self, k, a):
        up = k >= 0
        above = fnp.exp(-a * fnp.where(up, k, 0.0)) / (fnp.exp(a) + 1.0)
        below = 1.0 - fnp.exp(a * (fnp.where(up, -1.0, k) + 1.0)) / (fnp.exp(a) + 1.0)
        return fnp.where(up, above, below)

    def _stats(self, a):
        ea = fnp.exp(-a)
        return 0.0 * a, 2.0 * ea / (1.0 - ea) ** 2


class _Planck(_Discrete):
    """The Planck (discrete exponential) distribution: ``pmf = (1 - e^-l) e^(-l k)``,
    ``k >= 0``.

    Example:
        >>> round(float(planck.sf(0, 1.0)), 6)  # exp(-1)
        0.367879
    """

    name = "planck"
    shapes = ("lambda_",)

    def _valid(self, lam):
        return lam > 0

    def _in_support(self, k, lam):
        return k >= 0

    def _inside(self, lam):
        return 0.0

    def _logpmf(self, k, lam):
        return fnp.log(-fnp.expm1(-lam)) - lam * k

    def _cdf(self, k, lam):
        return fnp.where(k >= 0, -fnp.expm1(-lam * (fnp.maximum(k, -1.0) + 1.0)), 0.0)

    def _sf(self, k, lam):
        return fnp.where(k >= 0, fnp.exp(-lam * (fnp.maximum(k, -1.0) + 1.0)), 1.0)

    def _stats(self, lam):
        em = fnp.expm1(lam)
        return 1.0 / em, fnp.exp(-lam) / (-fnp.expm1(-lam)) ** 2


class _Boltzmann(_Discrete):
    """The Boltzmann (truncated discrete exponential) distribution on ``0, ..., N - 1``.

    Example:
        >>> round(float(boltzmann.cdf(0, 1.0, 2)), 6)  # 1 / (1 + e^-1)
        0.731059
    """

    name = "boltzmann"
    shapes = ("lambda_", "N")

    def _valid(self, lam, n):
        return (lam > 0) & (n > 0) & (n == fnp.floor(n))

    def _in_support(self, k, lam, n):
        return (k >= 0) & (k < n)

    def _inside(self, lam, n):
        return 0.0

    def _logpmf(self, k, lam, n):
        return fnp.log(-fnp.expm1(-lam)) - lam * k - fnp.log(-fnp.expm1(-lam * n))

    def _cdf(self, k, lam, n):
        kk = fnp.clip(k, -1.0, n - 1.0)
        return fnp.expm1(-lam * (kk + 1.0)) / fnp.expm1(-lam * n)

    def _sf(self, k, lam, n):
        kk = fnp.clip(k, -1.0, n - 1.0)
        return (fnp.exp(-lam * (kk + 1.0)) - fnp.exp(-lam * n)) / -fnp.expm1(-lam * n)

    def _stats(self, lam, n):
        # 1 / (e^lam - 1) - N / (e^(lam N) - 1), and the variance's
        # e^lam / (e^lam - 1)**2 - N**2 e^(lam N) / (e^(lam N) - 1)**2
        e1, en = fnp.expm1(lam), fnp.expm1(lam * n)
        mean = 1.0 / e1 - n / en
        return mean, (e1 + 1.0) / (e1 * e1) - n * n * (en + 1.0) / (en * en)


class _Yulesimon(_Discrete):
    """The Yule-Simon distribution: ``pmf = alpha B(k, alpha + 1)``, ``k >= 1``;
    ``sf = k B(k, alpha + 1)`` at the integer below ``k`` (SciPy evaluates it at ``k``
    itself between the integers: 0.969 for 0.917 = P(X <= 1) at ``cdf(1.5, 11)``).

    Example:
        >>> float(yulesimon.pmf(1, 1.0))  # 1 * B(1, 2)
        0.5
    """

    name = "yulesimon"
    shapes = ("alpha",)

    def _valid(self, alpha):
        return alpha > 0

    def _in_support(self, k, alpha):
        return k >= 1

    def _inside(self, alpha):
        return 1.0

    def _logpmf(self, k, alpha):
        return fnp.log(alpha) + _betaln(k, alpha + 1.0)

    def _log_sf(self, k, alpha):
        ks = fnp.maximum(k, 1.0)
        return fnp.log(ks) + _betaln(ks, alpha + 1.0)

    def _cdf(self, k, alpha):
        return fnp.where(k >= 1, -fnp.expm1(self._log_sf(k, alpha)), 0.0)

    def _sf(self, k, alpha):
        return fnp.where(k >= 1, fnp.exp(self._log_sf(k, alpha)), 1.0)

    def _stats(self, alpha):
        ok1, ok2 = alpha > 1, alpha > 2
        a1 = fnp.where(ok1, alpha - 1.0, 1.0)
        var = alpha * alpha / (a1 * a1 * fnp.where(ok2, alpha - 2.0, 1.0))
        return fnp.where(ok1, alpha / a1, fnp.inf), fnp.where(ok2, var, fnp.inf)


class _Zipf(_Discrete):
    """The Zipf (zeta) distribution: ``pmf = k**-a / zeta(a)``, ``k >= 1``;
    ``sf = zeta(a, k + 1) / zeta(a)`` (Hurwitz's zeta).

    Example:
        >>> round(float(zipf.pmf(1, 2.0)), 6)  # 6 / pi**2
        0.607927
    """

    name = "zipf"
    shapes = ("a",)

    def _valid(self, a):
        return a > 1

    def _in_support(self, k, a):
        return k >= 1

    def _inside(self, a):
        return 1.0

    def _logpmf(self, k, a):
        return -a * fnp.log(k) - fnp.log(fsp.zeta(a, 1.0))

    def _sf(self, k, a):
        ks = fnp.maximum(k, 0.0)
        return fnp.where(k >= 1, fsp.zeta(a, ks + 1.0) / fsp.zeta(a, 1.0), 1.0)

    def _cdf(self, k, a):
        return 1.0 - self._sf(k, a)

    def _stats(self, a):
        z = fsp.zeta(a, 1.0)
        ok1, ok2 = a > 2, a > 3
        mean = fsp.zeta(fnp.where(ok1, a - 1.0, 3.0), 1.0) / z
        second = fsp.zeta(fnp.where(ok2, a - 2.0, 3.0), 1.0) / z
        return fnp.where(ok1, mean, fnp.inf), fnp.where(ok2, second - mean * mean, fnp.inf)


class _Logser(_Discrete):
    """The log-series distribution: ``pmf = -p**k / (k log(1 - p))``, ``k >= 1``
    (``logpmf``/``pmf``/mean/variance; its cdf is a series: SciPy's value on plain data).

    Example:
        >>> round(float(logser.pmf(1, 0.5)), 6)  # 0.5 / log(2)
        0.721348
    """

    name = "logser"
    shapes = ("p",)

    def _valid(self, p):
        return (p > 0) & (p < 1)

    def _in_support(self, k, p):
        return k >= 1

    def _inside(self, p):
        return 1.0

    def _logpmf(self, k, p):
        return k * fnp.log(p) - fnp.log(k) - fnp.log(-fnp.log1p(-p))

    def _cdf(self, k, p):
        raise UnsupportedOperationError(
            "logser: the cdf/sf on tracers is not supported (a series in k); "
            "logpmf, pmf, mean and var are"
        )

    def _stats(self, p):
        r = fnp.log1p(-p)
        mean = p / ((p - 1.0) * r)
        return mean, -p * (p + r) / ((1.0 - p) ** 2 * r * r)


class _Skellam(_Discrete):
    """The Skellam distribution: the difference of Poisson counts with means ``mu1`` and
    ``mu2`` (``logpmf``/``pmf``/mean/variance: ``ive`` of the integer order ``|k|``).

    Example:
        >>> round(float(skellam.pmf(0, 1.0, 1.0)), 6)  # exp(-2) I0(2)
        0.308508
    """

    name = "skellam"
    shapes = ("mu1", "mu2")

    def _valid(self, mu1, mu2):
        return (mu1 >= 0) & (mu2 >= 0)

    def _in_support(self, k, mu1, mu2):
        return fnp.isfinite(k)

    def _inside(self, mu1, mu2):
        return 0.0

    def _logpmf(self, k, mu1, mu2):
        z = 2.0 * fnp.sqrt(mu1 * mu2)
        order = fnp.stop_gradient(fnp.abs(k))  # an integer order: no derivative in it
        return (
            -((fnp.sqrt(mu1) - fnp.sqrt(mu2)) ** 2)
            + 0.5 * k * (fnp.log(mu1) - fnp.log(mu2))
            + fnp.log(fsp.ive(order, z))
        )

    def _cdf(self, k, mu1, mu2):
        raise UnsupportedOperationError(
            "skellam: the cdf/sf on tracers is not supported (SciPy's noncentral chi-square "
            "has no derivative here); logpmf, pmf, mean and var are"
        )

    def _stats(self, mu1, mu2):
        return mu1 - mu2, mu1 + mu2


randint = _Randint()
dlaplace = _Dlaplace()
planck = _Planck()
boltzmann = _Boltzmann()
yulesimon = _Yulesimon()
zipf = _Zipf()
logser = _Logser()
skellam = _Skellam()

#: The distributions of this module, by SciPy's names.
DISCRETE = ("randint", "dlaplace", "planck", "boltzmann", "yulesimon", "zipf", "logser", "skellam")
