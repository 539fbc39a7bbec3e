"""More of ``scipy.stats``' continuous distributions on tracers, with SciPy's names,
shape parameters and conventions (``loc``/``scale`` as in :mod:`ftransforms.scipy.stats`):
``logpdf``/``pdf``, ``cdf``/``logcdf``, ``sf``/``logsf``, ``ppf``/``isf`` from closed
forms or :mod:`ftransforms.scipy.special` functions, differentiable in the point and in
``loc``, ``scale`` and the shape parameters; quantiles without a closed form are valued
by SciPy and differentiated implicitly (``_implicit_ppf``).

Each distribution gives its support (``_support``) and its formulas at points inside it
(``_lp``, ``_c``, ``_s``, optionally ``_lc``/``_ls`` in log space); :class:`_Bounded`
makes the values outside SciPy's (``logpdf = -inf``, ``cdf`` 0 below and 1 above) as
constants, so no formula is evaluated where it is undefined (no NaN in a derivative).

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.stats import genextreme
    >>> round(float(genextreme.cdf(0.0, 0.5)), 6)  # exp(-1)
    0.367879
    >>> round(float(ft.grad(lambda c: genextreme.logpdf(0.3, c))(0.5)), 6)
    0.337455
"""

from __future__ import annotations

import math
from typing import Any

import ftransforms.numpy as fnp
from ftransforms.core.primitive import FAMILY_BATCH_RULES, Primitive
from ftransforms.ops.scipy_ops import scipy_ppf_p
from ftransforms.scipy import special as fsp
from ftransforms.scipy.stats_base import (
    _LOG_SQRT_2PI,
    _SQRT2,
    _betaln,
    _Continuous,
    _exp_cap,
    _exp_neg_pow,
    _implicit_ppf,
    _log1mexp,
    _log_ndtr,
    _log_of_complement,
    _ndtr,
    _ndtri,
    _softplus,
)

_INF = math.inf
_EULER = 0.5772156649015329


def _where(c: Any, a: Any, b: Any) -> Any:
    return fnp.where(c, a, b)


def _log1p_ratio(w: Any) -> Any:
    """``log1p(w) / w``, 1 at ``w = 0``, smooth through it (its Taylor series for
    ``|w| < 1e-3``), so ``log1p(c z) / c = z log1p_ratio(c z)`` has its derivatives in
    ``c`` at ``c = 0`` too."""
    small = fnp.abs(w) < 1e-3
    ws = _where(small, 0.5, w)
    wt = _where(small, w, 0.0)
    series = 1.0 - wt * (0.5 - wt * (1.0 / 3.0 - wt * (0.25 - wt * 0.2)))
    return _where(small, series, fnp.log1p(ws) / ws)


def _raw_moments(raw: Any, ok1: Any, ok2: Any) -> tuple:
    """``(mean, var)`` from the raw moments ``raw(1)``, ``raw(2)``; NaN (SciPy's) where
    ``ok1``/``ok2`` say the first/second moment diverges."""
    m1, m2 = raw(1.0), raw(2.0)
    return fnp.where(ok1, m1, fnp.nan), fnp.where(ok2, m2 - m1 * m1, fnp.nan)


def _expm1_capped(u: Any) -> tuple:
    """``(expm1(min(u, 709)), u > 709)`` (88 in float32): where ``exp(u)`` overflows, a
    ``cdf = exp(-c expm1(u))`` is 0 either way but its derivative ``0 * inf`` was NaN;
    with the exponent held at 709 it is 0 (a log-density or log-sf there is ``-inf``: the caller's
    ``where``)."""
    cap = _exp_cap(u)
    over = u > cap
    return fnp.expm1(_where(over, cap, u)), over


_VALUED: dict[str, Primitive] = {}


def _valued_by_scipy(name: str, method: str, partials: Any) -> Primitive:
    """``scipy.stats.<name>.<method>(z, *shape)`` as an elementwise primitive, valued by
    SciPy and differentiated by ``partials(z, *shape)`` (one partial derivative per input,
    written with differentiable functions, so every order works): for a cdf whose
    special function has no derivative of its own (``rice``: ``chndtr``)."""
    key = f"{name}.{method}"
    prim = _VALUED.get(key)
    if prim is not None:
        return prim

    def impl(xp, *args):
        return scipy_ppf_p.impl(xp, *args, dist=name, method=method)

    def jvp(tangents, out, *args):
        total = fnp.zeros_like(out)
        for t, p in zip(tangents, partials(*args)):
            if t is not None:
                total = total + t * p
        return total

    def vjp(g, out, *args, wanted):
        return tuple(g * p if w else None for p, w in zip(partials(*args), wanted))

    batch = FAMILY_BATCH_RULES["elementwise"]
    prim = Primitive(key, impl, jvp=jvp, vjp=vjp, batch=batch, family="elementwise")
    _VALUED[key] = prim
    return prim


class _Bounded(_Continuous):
    """A continuous distribution on ``[lo, hi]`` (``_support(*shape)``): the formulas
    ``_lp``/``_c``/``_s`` (and ``_lc``/``_ls``, the quantiles ``_pq``/``_iq``) run at
    points inside only.  As SciPy's: the cdf is 0 at ``lo`` and 1 at ``hi``, ``ppf(0)``
    and ``ppf(1)`` are the ends, and the density at an end is the formula's value there
    (an indeterminate form, where the density vanishes, is ``-inf``), or ``-inf`` for
    the distributions SciPy gives an open support (``_open``)."""

    _open = False

    def _support(self, *shape: Any) -> tuple:
        return -_INF, _INF

    def _inside_point(self, *shape: Any) -> Any:
        lo, hi = self._support(*shape)
        lo_fin = not (isinstance(lo, float) and math.isinf(lo))
        hi_fin = not (isinstance(hi, float) and math.isinf(hi))
        if lo_fin and hi_fin:
            return 0.5 * (lo + hi)
        if lo_fin:
            return lo + 1.0
        return hi - 1.0 if hi_fin else 0.0

    def _parts(self, z: Any, shape: tuple, ends: bool = False) -> tuple:
        """``(below, above, z inside)``; ``ends``: the ends count as outside."""
        lo, hi = self._support(*shape)
        below, above = (z <= lo, z >= hi) if ends else (z < lo, z > hi)
        zs = _where(below | above, self._inside_point(*shape), z)
        return below, above, zs

    def _logpdf(self, z: Any, *shape: Any) -> Any:
        below, above, zs = self._parts(z, shape)
        lp = self._lp(zs, *shape)
        lo, hi = self._support(*shape)
        end = (z == lo) | (z == hi)
        lp = _where(end, -fnp.inf, lp) if self._open else _where(end & (lp != lp), -fnp.inf, lp)
        return _where(below | above, -fnp.inf, lp)

    def _cdf(self, z: Any, *shape: Any) -> Any:
        below, above, zs = self._parts(z, shape, ends=True)
        return _where(below, 0.0, _where(above, 1.0, self._c(zs, *shape)))

    def _sf(self, z: Any, *shape: Any) -> Any:
        below, above, zs = self._parts(z, shape, ends=True)
        return _where(below, 1.0, _where(above, 0.0, self._s(zs, *shape)))

    def _logcdf(self, z: Any, *shape: Any) -> Any:
        below, above, zs = self._parts(z, shape, ends=True)
        inner = getattr(self, "_lc", None)
        if inner is None:
            out = _log_of_complement(self._c(zs, *shape), lambda: self._s(zs, *shape))
        else:
            out = inner(zs, *shape)
        return _where(below, -fnp.inf, _where(above, 0.0, out))

    def _logsf(self, z: Any, *shape: Any) -> Any:
        below, above, zs = self._parts(z, shape, ends=True)
        inner = getattr(self, "_ls", None)
        if inner is None:
            out = _log_of_complement(self._s(zs, *shape), lambda: self._c(zs, *shape))
        else:
            out = inner(zs, *shape)
        return _where(below, 0.0, _where(above, -fnp.inf, out))

    def _s(self, z: Any, *shape: Any) -> Any:
        return 1.0 - self._c(z, *shape)

    def _ends(self, q: Any, shape: tuple, formula: Any, first: Any, last: Any) -> Any:
        """``formula(q)`` inside ``(0, 1)``, the support's ends at 0 and 1."""
        edge = (q == 0) | (q == 1)
        inner = formula(_where(edge, 0.5, q), *shape)
        return _where(q == 0, first, _where(q == 1, last, inner))

    def _ppf(self, q: Any, *shape: Any) -> Any:
        lo, hi = self._support(*shape)
        return self._ends(q, shape, self._pq, lo, hi)

    def _isf(self, q: Any, *shape: Any) -> Any:
        lo, hi = self._support(*shape)
        return self._ends(q, shape, self._iq, hi, lo)

    def _pq(self, q: Any, *shape: Any) -> Any:
        return _implicit_ppf(self.name, self, q, *shape)

    def _iq(self, q: Any, *shape: Any) -> Any:
        return _implicit_ppf(self.name, self, q, *shape, method="isf")


class _Positive(_Bounded):
    def _support(self, *shape: Any) -> tuple:
        return 0.0, _INF


class _Unit(_Bounded):
    def _support(self, *shape: Any) -> tuple:
        return 0.0, 1.0


# -- extreme values and Pareto tails -------------------------------------------------------


class _Genextreme(_Bounded):
    """The generalized extreme value distribution with SciPy's sign of ``c``:
    ``cdf = exp(-(1 - c z)**(1/c))`` (``c = 0``: Gumbel, with its derivatives in ``c``).

    Example:
        >>> round(float(genextreme.cdf(1.0, 0.0)), 6)  # exp(-exp(-1))
        0.692201
    """

    name = "genextreme"
    shapes = ("c",)

    def _valid(self, c):
        return fnp.isfinite(c)

    def _support(self, c):
        edge = 1.0 / _where(c == 0, 1.0, c)
        return _where(c < 0, edge, -fnp.inf), _where(c > 0, edge, fnp.inf)

    def _inside_point(self, c):
        return 0.0

    def _logs(self, z, c):
        log_u = -z * _log1p_ratio(-c * z)  # log(u) = log(1 - c z) / c
        return c * log_u, log_u  # log(1 - c z), log(u)

    def _lp(self, z, c):
        big_l, log_u = self._logs(z, c)
        return -fnp.exp(log_u) + log_u - big_l

    def _c(self, z, c):
        return fnp.exp(-fnp.exp(self._logs(z, c)[1]))

    def _s(self, z, c):
        return -fnp.expm1(-fnp.exp(self._logs(z, c)[1]))

    def _lc(self, z, c):
        return -fnp.exp(self._logs(z, c)[1])

    def _ls(self, z, c):
        return _log1mexp(-fnp.exp(self._logs(z, c)[1]))

    def _from_y(self, y, c):  # the point where u = y: -expm1(c log y) / c
        log_y = fnp.log(y)
        return -log_y * fsp.exprel(c * log_y)

    def _pq(self, q, c):
        return self._from_y(-fnp.log(q), c)

    def _iq(self, q, c):
        return self._from_y(-fnp.log1p(-q), c)

    def _stats(self, c):
        ok1 = c > -1.0
        g1 = fsp.gamma(1.0 + _where(ok1, c, 0.0))
        cs = _where(c == 0, 1.0, c)
        mean = _where(ok1, _where(c == 0, _EULER, (1.0 - g1) / cs), fnp.inf)
        ok2 = c > -0.5
        g2 = fsp.gamma(1.0 + 2.0 * _where(ok2, c, 0.0))
        var = _where(c == 0, math.pi**2 / 6.0, (g2 - g1 * g1) / (cs * cs))
        return mean, _where(ok2, var, fnp.inf)


class _Genpareto(_Bounded):
    """The generalized Pareto distribution: ``sf = (1 + c z)**(-1/c)`` on ``z >= 0``
    (and ``z <= -1/c`` for ``c < 0``; ``c = 0``: exponential).

    Example:
        >>> float(genpareto.sf(1.0, 1.0))  # 1 / (1 + 1)
        0.5
    """

    name = "genpareto"
    shapes = ("c",)

    def _valid(self, c):
        return fnp.isfinite(c)

    def _support(self, c):
        return 0.0, _where(c < 0, -1.0 / _where(c < 0, c, -1.0), fnp.inf)

    def _inside_point(self, c):
        return 0.0

    def _log_sf(self, z, c):
        return -z * _log1p_ratio(c * z)  # -log1p(c z) / c

    def _lp(self, z, c):
        return (c + 1.0) * self._log_sf(z, c)

    def _c(self, z, c):
        return -fnp.expm1(self._log_sf(z, c))

    def _s(self, z, c):
        return fnp.exp(self._log_sf(z, c))

    def _ls(self, z, c):
        return self._log_sf(z, c)

    def _lc(self, z, c):
        return _log1mexp(self._log_sf(z, c))

    def _from_log_sf(self, log_s, c):  # expm1(-c log_s) / c
        return -log_s * fsp.exprel(-c * log_s)

    def _pq(self, q, c):
        return self._from_log_sf(fnp.log1p(-q), c)

    def _iq(self, q, c):
        return self._from_log_sf(fnp.log(q), c)

    def _stats(self, c):
        ok1, ok2 = c < 1.0, c < 0.5
        m1 = _where(ok1, 1.0 - c, 1.0)
        mean = _where(ok1, 1.0 / m1, fnp.inf)
        var = _where(ok2, 1.0 / (m1 * m1 * _where(ok2, 1.0 - 2.0 * c, 1.0)), fnp.inf)
        return mean, var


class _WeibullMax(_Bounded):
    """The Weibull maximum distribution with shape ``c``: ``cdf = exp(-(-z)**c)``, ``z <= 0``.

    Example:
        >>> round(float(weibull_max.cdf(-1.0, 2.0)), 6)  # exp(-1)
        0.367879
    """

    name = "weibull_max"
    shapes = ("c",)

    def _valid(self, c):
        return c > 0

    def _support(self, c):
        return -_INF, 0.0

    def _lp(self, z, c):
        return fnp.log(c) + fsp.xlogy(c - 1.0, -z) - (-z) ** c

    def _c(self, z, c):
        return _exp_neg_pow(-z, c)

    def _s(self, z, c):
        return _exp_neg_pow(-z, c, complement=True)

    def _lc(self, z, c):
        return -((-z) ** c)

    def _ls(self, z, c):
        return _exp_neg_pow(-z, c, "log")

    def _pq(self, q, c):
        return -((-fnp.log(q)) ** (1.0 / c))

    def _iq(self, q, c):
        return -((-fnp.log1p(-q)) ** (1.0 / c))

    def _stats(self, c):
        m = fsp.gamma(1.0 + 1.0 / c)
        return -m, fsp.gamma(1.0 + 2.0 / c) - m * m


class _Invweibull(_Positive):
    """The inverted Weibull (Frechet) distribution: ``cdf = exp(-z**(-c))``, ``z > 0``.

    Example:
        >>> round(float(invweibull.cdf(1.0, 3.0)), 6)  # exp(-1)
        0.367879
    """

    name = "invweibull"
    _open = True
    shapes = ("c",)

    def _valid(self, c):
        return c > 0

    def _lp(self, z, c):
        return fnp.log(c) - (c + 1.0) * fnp.log(z) - z ** (-c)

    def _lc(self, z, c):
        return -(z ** (-c))

    def _c(self, z, c):
        return fnp.exp(-(z ** (-c)))

    def _s(self, z, c):
        return -fnp.expm1(-(z ** (-c)))

    def _ls(self, z, c):
        return _log1mexp(-(z ** (-c)))

    def _pq(self, q, c):
        return (-fnp.log(q)) ** (-1.0 / c)

    def _iq(self, q, c):
        return (-fnp.log1p(-q)) ** (-1.0 / c)

    def _stats(self, c):
        # E[X**n] = Gamma(1 - n/c) for c > n: NaN (SciPy's) where the mean diverges, and
        # the variance infinite for 1 < c <= 2 (SciPy's Gamma of a negative number there)
        mean, var = _raw_moments(lambda n: fsp.gamma(1.0 - n / c), c > 1, c > 2)
        return mean, fnp.where((c > 1) & (c <= 2), fnp.inf, var)


class _Lomax(_Positive):
    """The Lomax (Pareto II) distribution: ``sf = (1 + z)**(-c)``, ``z >= 0``.

    Example:
        >>> float(lomax.sf(1.0, 1.0))
        0.5
    """

    name = "lomax"
    shapes = ("c",)

    def _valid(self, c):
        return c > 0

    def _lp(self, z, c):
        return fnp.log(c) - (c + 1.0) * fnp.log1p(z)

    def _ls(self, z, c):
        return -c * fnp.log1p(z)

    def _s(self, z, c):
        return fnp.exp(-c * fnp.log1p(z))

    def _c(self, z, c):
        return -fnp.expm1(-c * fnp.log1p(z))

    def _pq(self, q, c):
        return fnp.expm1(-fnp.log1p(-q) / c)

    def _iq(self, q, c):
        return fnp.expm1(-fnp.log(q) / c)

    def _stats(self, c):
        ok1, ok2 = c > 1, c > 2
        c1 = _where(ok1, c - 1.0, 1.0)
        var = c / (c1 * c1 * _where(ok2, c - 2.0, 1.0))
        return _where(ok1, 1.0 / c1, fnp.inf), _where(ok2, var, fnp.inf)


class _Burr12(_Positive):
    """The Burr type XII distribution: ``sf = (1 + z**c)**(-d)``.

    Example:
        >>> float(burr12.sf(1.0, 2.0, 1.0))
        0.5
    """

    name = "burr12"
    shapes = ("c", "d")

    def _valid(self, c, d):
        return (c > 0) & (d > 0)

    @staticmethod
    def _log1p_pow(z, c):
        """``log1p(z**c)``; above ``z = 1`` as ``c log z + log1p(z**-c)``, so that ``z**c``
        never overflows (SciPy's is -inf at ``z = 1e300``, and its derivative in ``c``
        was NaN there; the value is finite)."""
        big = z > 1.0
        zb = _where(big, z, 2.0)
        zs = _where(big, 0.5, z)
        far = c * fnp.log(zb) + fnp.log1p(zb ** (-c))
        return _where(big, far, fnp.log1p(zs**c))

    def _lp(self, z, c, d):
        return fnp.log(c * d) + fsp.xlogy(c - 1.0, z) - (d + 1.0) * self._log1p_pow(z, c)

    def _ls(self, z, c, d):
        return -d * self._log1p_pow(z, c)

    def _s(self, z, c, d):
        return fnp.exp(self._ls(z, c, d))

    def _c(self, z, c, d):
        return -fnp.expm1(self._ls(z, c, d))

    def _pq(self, q, c, d):
        return fnp.expm1(-fnp.log1p(-q) / d) ** (1.0 / c)

    def _iq(self, q, c, d):
        return fnp.expm1(-fnp.log(q) / d) ** (1.0 / c)

    def _stats(self, c, d):
        # E[X**n] = d B(d - n/c, 1 + n/c) for c d > n; SciPy's NaN where it diverges
        return _raw_moments(lambda n: d * fsp.beta(d - n / c, 1.0 + n / c), c * d > 1, c * d > 2)


class _Burr(_Positive):
    """The Burr type III distribution: ``cdf = (1 + z**(-c))**(-d)``.

    Example:
        >>> float(burr.cdf(1.0, 2.0, 1.0))
        0.5
    """

    name = "burr"
    shapes = ("c", "d")

    def _valid(self, c, d):
        return (c > 0) & (d > 0)

    def _lp(self, z, c, d):
        return fnp.log(c * d) - (c + 1.0) * fnp.log(z) - (d + 1.0) * fnp.log1p(z ** (-c))

    def _lc(self, z, c, d):
        return -d * fnp.log1p(z ** (-c))

    def _c(self, z, c, d):
        return fnp.exp(self._lc(z, c, d))

    def _s(self, z, c, d):
        return -fnp.expm1(self._lc(z, c, d))

    def _pq(self, q, c, d):
        return fnp.expm1(-fnp.log(q) / d) ** (-1.0 / c)

    def _iq(self, q, c, d):
        return fnp.expm1(-fnp.log1p(-q) / d) ** (-1.0 / c)

    def _stats(self, c, d):
        # E[X**n] = d B(1 - n/c, d + n/c) for c > n; SciPy's NaN where it diverges
        return _raw_moments(lambda n: d * fsp.beta(1.0 - n / c, d + n / c), c > 1, c > 2)


class _Fisk(_Positive):
    """The Fisk (log-logistic) distribution: ``cdf = 1 / (1 + z**(-c))``.

    Example:
        >>> float(fisk.cdf(1.0, 3.0))
        0.5
    """

    name = "fisk"
    shapes = ("c",)

    def _valid(self, c):
        return c > 0

    def _lp(self, z, c):
        lz = fnp.log(z)
        return fnp.log(c) + (c - 1.0) * lz - 2.0 * _softplus(c * lz)

    def _c(self, z, c):
        return fsp.expit(c * fnp.log(z))

    def _s(self, z, c):
        return fsp.expit(-c * fnp.log(z))

    def _lc(self, z, c):
        return -_softplus(-c * fnp.log(z))

    def _ls(self, z, c):
        return -_softplus(c * fnp.log(z))

    def _pq(self, q, c):
        return fnp.exp(fsp.logit(q) / c)

    def _iq(self, q, c):
        return fnp.exp(-fsp.logit(q) / c)

    def _stats(self, c):
        # E[X**n] = B(1 - n/c, 1 + n/c) for c > n; SciPy's NaN where it diverges
        return _raw_moments(lambda n: fsp.beta(1.0 - n / c, 1.0 + n / c), c > 1, c > 2)


class _Gompertz(_Positive):
    """The Gompertz distribution: ``sf = exp(-c (exp(z) - 1))``, ``z >= 0``.

    Example:
        >>> round(float(gompertz.sf(math.log(2.0), 1.0)), 6)  # exp(-1)
        0.367879
    """

    name = "gompertz"
    shapes = ("c",)

    def _valid(self, c):
        return c > 0

    def _lp(self, z, c):
        e, over = _expm1_capped(z)
        return _where(over, -fnp.inf, fnp.log(c) + z - c * e)

    def _ls(self, z, c):
        e, over = _expm1_capped(z)
        return _where(over, -fnp.inf, -c * e)

    def _s(self, z, c):
        return fnp.exp(-c * _expm1_capped(z)[0])

    def _c(self, z, c):
        return -fnp.expm1(-c * _expm1_capped(z)[0])

    def _pq(self, q, c):
        return fnp.log1p(-fnp.log1p(-q) / c)

    def _iq(self, q, c):
        return fnp.log1p(-fnp.log(q) / c)


class _Exponweib(_Positive):
    """The exponentiated Weibull distribution: ``cdf = (1 - exp(-z**c))**a``.

    Example:
        >>> round(float(exponweib.cdf(1.0, 1.0, 1.0)), 6)  # 1 - exp(-1)
        0.632121
    """

    name = "exponweib"
    shapes = ("a", "c")

    def _valid(self, a, c):
        return (a > 0) & (c > 0)

    def _lp(self, z, a, c):
        zc = z**c
        log_w = _log1mexp(-zc)  # log(1 - exp(-z**c))
        return fnp.log(a * c) + fsp.xlogy(a - 1.0, fnp.exp(log_w)) - zc + fsp.xlogy(c - 1.0, z)

    def _lc(self, z, a, c):
        # log(1 - exp(-t)), t = z**c: log(t) - t/2 below t = 1e-8 (t underflowed to 0 at
        # z = 1e-300: log 0 = -inf, every derivative NaN)
        log_t = c * fnp.log(z)
        small = log_t < math.log(1e-8)
        ts = fnp.exp(_where(small, log_t, -20.0))
        near = log_t - 0.5 * ts
        far = _exp_neg_pow(_where(small, 1.0, z), c, "log")
        return a * _where(small, near, far)

    def _c(self, z, a, c):
        return fnp.exp(self._lc(z, a, c))

    def _s(self, z, a, c):
        return -fnp.expm1(self._lc(z, a, c))

    def _pq(self, q, a, c):
        return (-fnp.log1p(-(q ** (1.0 / a)))) ** (1.0 / c)

    def _iq(self, q, a, c):
        return (-_log1mexp(fnp.log1p(-q) / a)) ** (1.0 / c)


class _Exponpow(_Positive):
    """The exponential power distribution: ``sf = exp(1 - exp(z**b))``.

    Example:
        >>> round(float(exponpow.sf(0.0, 2.0)), 6)
        1.0
    """

    name = "exponpow"
    shapes = ("b",)

    def _valid(self, b):
        return b > 0

    def _e(self, z, b):
        # where z**b itself overflows, the formula runs at z = 1 (its derivative b z**(b-1)
        # overflowed too: 0 * inf = NaN through the cap's where)
        huge = b * fnp.log(fnp.stop_gradient(z)) > 709.0
        return _expm1_capped(_where(huge, _INF, _where(huge, 1.0, z) ** b))

    def _lp(self, z, b):
        e, over = self._e(z, b)
        zs = _where(over, 1.0, z)
        lp = fnp.log(b) + fsp.xlogy(b - 1.0, zs) - e + zs**b
        return fnp.where(over, -fnp.inf, lp)

    def _ls(self, z, b):
        e, over = self._e(z, b)
        return fnp.where(over, -fnp.inf, -e)

    def _s(self, z, b):
        return fnp.exp(-self._e(z, b)[0])

    def _c(self, z, b):
        return -fnp.expm1(-self._e(z, b)[0])

    def _pq(self, q, b):
        return fnp.log1p(-fnp.log1p(-q)) ** (1.0 / b)

    def _iq(self, q, b):
        return fnp.log1p(-fnp.log(q)) ** (1.0 / b)


# -- transformed normals and gammas --------------------------------------------------------


class _Nakagami(_Positive):
    """The Nakagami distribution with shape ``nu``: ``cdf = gammainc(nu, nu z**2)``.

    Example:
        >>> round(float(nakagami.cdf(1.0, 1.0)), 6)  # 1 - exp(-1)
        0.632121
    """

    name = "nakagami"
    shapes = ("nu",)

    def _valid(self, nu):
        return nu > 0

    def _lp(self, z, nu):
        return (
            math.log(2.0)
            + nu * fnp.log(nu)
            - fsp.gammaln(nu)
            + fsp.xlogy(2.0 * nu - 1.0, z)
            - nu * z * z
        )

    def _c(self, z, nu):
        return fsp.gammainc(nu, nu * z * z)

    def _s(self, z, nu):
        return fsp.gammaincc(nu, nu * z * z)

    def _pq(self, q, nu):
        return fnp.sqrt(fsp.gammaincinv(nu, q) / nu)

    def _iq(self, q, nu):
        return fnp.sqrt(fsp.gammainccinv(nu, q) / nu)

    def _stats(self, nu):
        mean = fnp.exp(fsp.gammaln(nu + 0.5) - fsp.gammaln(nu)) / fnp.sqrt(nu)
        return mean, 1.0 - mean * mean


class _Rice(_Positive):
    """The Rice distribution with shape ``b``: the length of a 2-vector of unit normals
    about a point at distance ``b``.  The cdf and sf are SciPy's (``chndtr(z**2, 2,
    b**2)``), with their derivatives ``pdf`` in ``z`` and ``-z exp(-(z - b)**2/2)
    i1e(z b)`` in ``b`` (Marcum's Q).

    Example:
        >>> round(float(rice.cdf(1.0, 0.0)), 6)  # Rayleigh's: 1 - exp(-1/2)
        0.393469
    """

    name = "rice"
    shapes = ("b",)

    def _valid(self, b):
        return b >= 0

    def _lp(self, z, b):
        # log I0(u) - (z**2 + b**2) / 2, u = z b: through i0e (whose exp(-|u|) has a kink
        # at u = 0, so the derivative in b at b = 0 was z, not 0) only where i0 overflows
        u = z * b
        big = u > 700.0
        near = fnp.log(fsp.i0(fnp.where(big, 0.0, u))) - 0.5 * (z * z + b * b)
        far = fnp.log(fsp.i0e(fnp.where(big, u, 701.0))) - 0.5 * (z - b) ** 2
        return fsp.xlogy(1.0, z) + fnp.where(big, far, near)

    def _partials(self, sign):
        def partials(z, b):
            dz = fnp.exp(self._lp(z, b))
            db = -z * fnp.exp(-0.5 * (z - b) ** 2) * fsp.i1e(z * b)
            return sign * dz, sign * db

        return partials

    def _c(self, z, b):
        prim = _valued_by_scipy("rice", "cdf", self._partials(1.0))
        return prim.bind(*fnp.broadcast_arrays(z, b))

    def _s(self, z, b):
        prim = _valued_by_scipy("rice", "sf", self._partials(-1.0))
        return prim.bind(*fnp.broadcast_arrays(z, b))

    def _stats(self, b):
        nu2 = 0.5 * b * b
        # L_{1/2}(-b**2/2) = exp(-x/2) ((1 + x) I0(x/2) + x I1(x/2)) at x = b**2/2, scaled
        lag = (1.0 + nu2) * fsp.i0e(0.5 * nu2) + nu2 * fsp.i1e(0.5 * nu2)
        mean = math.sqrt(math.pi / 2.0) * lag
        return mean, 2.0 + b * b - mean * mean


class _Chi(_Positive):
    """The chi distribution with ``df`` degrees of freedom: ``cdf = gammainc(df/2, z**2/2)``.

    Example:
        >>> round(float(chi.cdf(1.0, 1.0)), 6)  # erf(1 / sqrt(2))
        0.682689
    """

    name = "chi"
    shapes = ("df",)

    def _valid(self, df):
        return df > 0

    def _lp(self, z, df):
        h = 0.5 * df
        return (1.0 - h) * math.log(2.0) - fsp.gammaln(h) + fsp.xlogy(df - 1.0, z) - 0.5 * z * z

    def _c(self, z, df):
        return fsp.gammainc(0.5 * df, 0.5 * z * z)

    def _s(self, z, df):
        return fsp.gammaincc(0.5 * df, 0.5 * z * z)

    def _pq(self, q, df):
        return fnp.sqrt(2.0 * fsp.gammaincinv(0.5 * df, q))

    def _iq(self, q, df):
        return fnp.sqrt(2.0 * fsp.gammainccinv(0.5 * df, q))

    def _stats(self, df):
        mean = _SQRT2 * fnp.exp(fsp.gammaln(0.5 * (df + 1.0)) - fsp.gammaln(0.5 * df))
        return mean, df - mean * mean


class _Maxwell(_Chi):
    """The Maxwell distribution (chi with 3 degrees of freedom).

    Example:
        >>> round(float(maxwell.mean()), 6)  # 2 sqrt(2 / pi)
        1.595769
    """

    name = "maxwell"
    shapes = ()

    def _valid(self):
        return True

    def _lp(self, z):
        return super()._lp(z, 3.0)

    def _c(self, z):
        return super()._c(z, 3.0)

    def _s(self, z):
        return super()._s(z, 3.0)

    def _pq(self, q):
        return super()._pq(q, 3.0)

    def _iq(self, q):
        return super()._iq(q, 3.0)

    def _stats(self):
        return 2.0 * math.sqrt(2.0 / math.pi), 3.0 - 8.0 / math.pi


class _Halfgennorm(_Positive):
    """The upper half of the generalized normal: ``cdf = gammainc(1/beta, z**beta)``.

    Example:
        >>> round(float(halfgennorm.cdf(1.0, 1.0)), 6)  # 1 - exp(-1)
        0.632121
    """

    name = "halfgennorm"
    shapes = ("beta",)

    def _valid(self, beta):
        return beta > 0

    def _lp(self, z, beta):
        return fnp.log(beta) - fsp.gammaln(1.0 / beta) - z**beta

    def _c(self, z, beta):
        return fsp.gammainc(1.0 / beta, z**beta)

    def _s(self, z, beta):
        return fsp.gammaincc(1.0 / beta, z**beta)

    def _pq(self, q, beta):
        return fsp.gammaincinv(1.0 / beta, q) ** (1.0 / beta)

    def _iq(self, q, beta):
        return fsp.gammainccinv(1.0 / beta, q) ** (1.0 / beta)

    def _stats(self, beta):
        g1 = fsp.gammaln(1.0 / beta)
        m1 = fnp.exp(fsp.gammaln(2.0 / beta) - g1)
        return m1, fnp.exp(fsp.gammaln(3.0 / beta) - g1) - m1 * m1


class _Gengamma(_Positive):
    """The generalized gamma distribution: density ``|c| z**(c a - 1) exp(-z**c) /
    Gamma(a)``, ``cdf = gammainc(a, z**c)`` (``gammaincc`` for ``c < 0``).

    Example:
        >>> round(float(gengamma.cdf(1.0, 1.0, 1.0)), 6)  # 1 - exp(-1)
        0.632121
    """

    name = "gengamma"
    shapes = ("a", "c")

    def _valid(self, a, c):
        return (a > 0) & (c != 0)

    def _lp(self, z, a, c):
        return fnp.log(fnp.abs(c)) + fsp.xlogy(c * a - 1.0, z) - z**c - fsp.gammaln(a)

    def _c(self, z, a, c):
        zc = z**c
        return _where(c > 0, fsp.gammainc(a, zc), fsp.gammaincc(a, zc))

    def _s(self, z, a, c):
        zc = z**c
        return _where(c > 0, fsp.gammaincc(a, zc), fsp.gammainc(a, zc))

    def _pq(self, q, a, c):
        return _where(c > 0, fsp.gammaincinv(a, q), fsp.gammainccinv(a, q)) ** (1.0 / c)

    def _iq(self, q, a, c):
        return _where(c > 0, fsp.gammainccinv(a, q), fsp.gammaincinv(a, q)) ** (1.0 / c)

    def _stats(self, a, c):
        # E[X**n] = Gamma(a + n/c) / Gamma(a), infinite where a + n/c <= 0 (c < 0)
        def raw(n):
            s = a + n / c
            return fnp.where(
                s > 0, fnp.exp(fsp.gammaln(fnp.where(s > 0, s, 1.0)) - fsp.gammaln(a)), fnp.inf
            )

        m1, m2 = raw(1.0), raw(2.0)
        return m1, fnp.where(fnp.isinf(m2), fnp.inf, m2 - m1 * m1)


class _Loggamma(_Bounded):
    """The log-gamma distribution: ``log(X)`` for ``X ~ gamma(c)``.

    Example:
        >>> round(float(loggamma.cdf(0.0, 1.0)), 6)  # 1 - exp(-1)
        0.632121
    """

    name = "loggamma"
    shapes = ("c",)

    def _valid(self, c):
        return c > 0

    def _lp(self, z, c):
        return c * z - fnp.exp(z) - fsp.gammaln(c)

    # below log(tiny) the cdf is its series' first term exp(c z) / Gamma(c + 1), as SciPy's
    # (gammainc of exp(z) underflowed to 0: logcdf -inf, derivatives inf * 0 = NaN)
    _LOG_TINY = math.log(2.2250738585072014e-308)

    def _small(self, z, c):
        small = z < self._LOG_TINY
        return small, c * _where(small, z, self._LOG_TINY) - fsp.gammaln(c + 1.0)

    def _c(self, z, c):
        small, lead = self._small(z, c)
        big = fsp.gammainc(c, fnp.exp(_where(small, 0.0, z)))
        return _where(small, fnp.exp(lead), big)

    def _s(self, z, c):
        small, lead = self._small(z, c)
        big = fsp.gammaincc(c, fnp.exp(_where(small, 0.0, z)))
        return _where(small, 1.0 - fnp.exp(lead), big)  # (expm1's rule, y + 1, is 0 here)

    def _lc(self, z, c):
        small, lead = self._small(z, c)
        zs = _where(small, 0.0, z)
        big = _log_of_complement(self._c(zs, c), lambda: self._s(zs, c))
        return _where(small, lead, big)

    def _pq(self, q, c):
        return fnp.log(fsp.gammaincinv(c, q))

    def _iq(self, q, c):
        return fnp.log(fsp.gammainccinv(c, q))

    def _stats(self, c):
        return fsp.digamma(c), fsp.polygamma(1, c)


class _Betaprime(_Positive):
    """The beta prime distribution: ``X / (1 - X)`` for ``X ~ beta(a, b)``.

    Example:
        >>> float(betaprime.cdf(1.0, 2.0, 2.0))
        0.5
    """

    name = "betaprime"
    _open = True
    shapes = ("a", "b")

    def _valid(self, a, b):
        return (a > 0) & (b > 0)

    def _lp(self, z, a, b):
        return fsp.xlogy(a - 1.0, z) - (a + b) * fnp.log1p(z) - _betaln(a, b)

    def _c(self, z, a, b):
        return fsp.betainc(a, b, z / (1.0 + z))

    def _s(self, z, a, b):
        return fsp.betainc(b, a, 1.0 / (1.0 + z))

    def _stats(self, a, b):
        ok1, ok2 = b > 1, b > 2
        b1 = _where(ok1, b - 1.0, 1.0)
        var = a * (a + b - 1.0) / (b1 * b1 * _where(ok2, b - 2.0, 1.0))
        return _where(ok1, a / b1, fnp.inf), _where(ok2, var, fnp.inf)


class _Invgauss(_Positive):
    """The inverse Gaussian distribution with mean ``mu``.

    Example:
        >>> round(float(invgauss.mean(0.5)), 6)
        0.5
    """

    name = "invgauss"
    _open = True
    shapes = ("mu",)

    def _valid(self, mu):
        return mu > 0

    def _lp(self, z, mu):
        return -_LOG_SQRT_2PI - 1.5 * fnp.log(z) - (z - mu) ** 2 / (2.0 * z * mu * mu)

    def _terms(self, z, mu):
        r = fnp.sqrt(z)
        return (z / mu - 1.0) / r, 2.0 / mu + _log_ndtr(-(z / mu + 1.0) / r)

    def _c(self, z, mu):
        a, log_b = self._terms(z, mu)
        return _ndtr(a) + fnp.exp(log_b)

    def _s(self, z, mu):
        a, log_b = self._terms(z, mu)
        return _ndtr(-a) - fnp.exp(log_b)

    def _lc(self, z, mu):
        a, log_b = self._terms(z, mu)
        return fnp.logaddexp(_log_ndtr(a), log_b)

    def _ls(self, z, mu):
        a, log_b = self._terms(z, mu)
        log_first = _log_ndtr(-a)
        return log_first + _log1mexp(fnp.minimum(log_b - log_first, 0.0))

    def _stats(self, mu):
        return mu, mu**3


class _Wald(_Invgauss):
    """The Wald distribution (inverse Gaussian with ``mu = 1``).

    Example:
        >>> float(wald.mean())
        1.0
    """

    name = "wald"
    shapes = ()

    def _valid(self):
        return True

    def _lp(self, z):
        return super()._lp(z, 1.0)

    def _c(self, z):
        return super()._c(z, 1.0)

    def _s(self, z):
        return super()._s(z, 1.0)

    def _lc(self, z):
        return super()._lc(z, 1.0)

    def _ls(self, z):
        return super()._ls(z, 1.0)

    def _stats(self):
        return 1.0, 1.0


class _Fatiguelife(_Positive):
    """The fatigue-life (Birnbaum-Saunders) distribution:
    ``cdf = Phi((sqrt(z) - 1/sqrt(z)) / c)``.

    Example:
        >>> float(fatiguelife.cdf(1.0, 0.5))
        0.5
    """

    name = "fatiguelife"
    _open = True
    shapes = ("c",)

    def _valid(self, c):
        return c > 0

    def _arg(self, z, c):
        r = fnp.sqrt(z)
        return (r - 1.0 / r) / c

    def _lp(self, z, c):
        return (
            fnp.log1p(z)
            - math.log(2.0)
            - fnp.log(c)
            - 1.5 * fnp.log(z)
            - _LOG_SQRT_2PI
            - 0.5 * self._arg(z, c) ** 2
        )

    def _c(self, z, c):
        return _ndtr(self._arg(z, c))

    def _s(self, z, c):
        return _ndtr(-self._arg(z, c))

    def _lc(self, z, c):
        return _log_ndtr(self._arg(z, c))

    def _ls(self, z, c):
        return _log_ndtr(-self._arg(z, c))

    def _from_t(self, t):
        return 0.25 * (t + fnp.sqrt(t * t + 4.0)) ** 2

    def _pq(self, q, c):
        return self._from_t(c * _ndtri(q))

    def _iq(self, q, c):
        return self._from_t(-c * _ndtri(q))

    def _stats(self, c):
        c2 = c * c
        return 1.0 + 0.5 * c2, c2 * (1.0 + 1.25 * c2)


class _Gibrat(_Positive):
    """Gibrat's distribution, ``lognorm`` with ``s = 1``: ``cdf = Phi(log z)``.

    Example:
        >>> float(gibrat.cdf(1.0))
        0.5
    """

    name = "gibrat"
    _open = True

    def _lp(self, z):
        lz = fnp.log(z)
        return -lz - _LOG_SQRT_2PI - 0.5 * lz * lz

    def _c(self, z):
        return _ndtr(fnp.log(z))

    def _s(self, z):
        return _ndtr(-fnp.log(z))

    def _lc(self, z):
        return _log_ndtr(fnp.log(z))

    def _ls(self, z):
        return _log_ndtr(-fnp.log(z))

    def _pq(self, q):
        return fnp.exp(_ndtri(q))

    def _iq(self, q):
        return fnp.exp(-_ndtri(q))

    def _stats(self):
        return math.exp(0.5), math.exp(2.0) - math.exp(1.0)


class _Foldnorm(_Positive):
    """The folded normal distribution, ``|N(c, 1)|``.

    Example:
        >>> round(float(foldnorm.cdf(1.0, 0.0)), 6)  # erf(1 / sqrt(2))
        0.682689
    """

    name = "foldnorm"
    shapes = ("c",)

    def _valid(self, c):
        return c >= 0

    def _lp(self, z, c):
        return fnp.logaddexp(-0.5 * (z - c) ** 2, -0.5 * (z + c) ** 2) - _LOG_SQRT_2PI

    def _c(self, z, c):
        return _ndtr(z - c) - _ndtr(-z - c)

    def _s(self, z, c):
        return _ndtr(c - z) + _ndtr(-z - c)

    def _stats(self, c):
        mean = math.sqrt(2.0 / math.pi) * fnp.exp(-0.5 * c * c) + c * fsp.erf(c / _SQRT2)
        return mean, c * c + 1.0 - mean * mean


class _Powernorm(_Bounded):
    """The power normal distribution: ``sf = Phi(-z)**c``.

    Example:
        >>> float(powernorm.cdf(0.0, 1.0))
        0.5
    """

    name = "powernorm"
    shapes = ("c",)

    def _valid(self, c):
        return c > 0

    def _lp(self, z, c):
        return fnp.log(c) - 0.5 * z * z - _LOG_SQRT_2PI + (c - 1.0) * _log_ndtr(-z)

    def _ls(self, z, c):
        return c * _log_ndtr(-z)

    def _s(self, z, c):
        return fnp.exp(c * _log_ndtr(-z))

    def _c(self, z, c):
        return -fnp.expm1(c * _log_ndtr(-z))

    def _pq(self, q, c):
        return -_ndtri(fnp.exp(fnp.log1p(-q) / c))

    def _iq(self, q, c):
        return -_ndtri(q ** (1.0 / c))


class _Exponnorm(_Bounded):
    """The exponentially modified normal distribution with shape ``K``.

    Example:
        >>> round(float(exponnorm.cdf(0.0, 1e-8)), 6)  # close to the normal's
        0.5
    """

    name = "exponnorm"
    shapes = ("K",)

    def _valid(self, K):  # noqa: N803  (SciPy's name)
        return K > 0

    def _log_tail(self, z, K):  # noqa: N803
        return 0.5 / (K * K) - z / K + _log_ndtr(z - 1.0 / K)

    def _lp(self, z, K):  # noqa: N803
        return -fnp.log(K) + self._log_tail(z, K)

    def _c(self, z, K):  # noqa: N803
        return _ndtr(z) - fnp.exp(self._log_tail(z, K))

    def _s(self, z, K):  # noqa: N803
        return _ndtr(-z) + fnp.exp(self._log_tail(z, K))

    def _stats(self, K):  # noqa: N803
        return K, 1.0 + K * K


class _Johnsonsu(_Bounded):
    """Johnson's SU distribution: ``cdf = Phi(a + b asinh(z))``.

    Example:
        >>> float(johnsonsu.cdf(0.0, 0.0, 1.0))
        0.5
    """

    name = "johnsonsu"
    shapes = ("a", "b")

    def _valid(self, a, b):
        return b > 0

    def _arg(self, z, a, b):
        return a + b * fnp.arcsinh(z)

    def _lp(self, z, a, b):
        t = self._arg(z, a, b)
        return fnp.log(b) - 0.5 * fnp.log1p(z * z) - _LOG_SQRT_2PI - 0.5 * t * t

    def _c(self, z, a, b):
        return _ndtr(self._arg(z, a, b))

    def _s(self, z, a, b):
        return _ndtr(-self._arg(z, a, b))

    def _lc(self, z, a, b):
        return _log_ndtr(self._arg(z, a, b))

    def _ls(self, z, a, b):
        return _log_ndtr(-self._arg(z, a, b))

    def _pq(self, q, a, b):
        return fnp.sinh((_ndtri(q) - a) / b)

    def _iq(self, q, a, b):
        return fnp.sinh((-_ndtri(q) - a) / b)

    def _stats(self, a, b):
        w = fnp.exp(1.0 / (b * b))
        mean = -fnp.sqrt(w) * fnp.sinh(a / b)
        return mean, 0.5 * (w - 1.0) * (w * fnp.cosh(2.0 * a / b) + 1.0)


class _Johnsonsb(_Unit):
    """Johnson's SB distribution on ``(0, 1)``: ``cdf = Phi(a + b log(z / (1 - z)))``.

    Example:
        >>> float(johnsonsb.cdf(0.5, 0.0, 1.0))
        0.5
    """

    name = "johnsonsb"
    _open = True
    shapes = ("a", "b")

    def _valid(self, a, b):
        return b > 0

    def _arg(self, z, a, b):
        return a + b * fsp.logit(z)

    def _lp(self, z, a, b):
        t = self._arg(z, a, b)
        return fnp.log(b) - fnp.log(z) - fnp.log1p(-z) - _LOG_SQRT_2PI - 0.5 * t * t

    def _c(self, z, a, b):
        return _ndtr(self._arg(z, a, b))

    def _s(self, z, a, b):
        return _ndtr(-self._arg(z, a, b))

    def _pq(self, q, a, b):
        return fsp.expit((_ndtri(q) - a) / b)

    def _iq(self, q, a, b):
        return fsp.expit((-_ndtri(q) - a) / b)


# -- logistic, Laplace and Levy relatives ---------------------------------------------------


class _Genlogistic(_Bounded):
    """The generalized (type I) logistic distribution: ``cdf = (1 + exp(-z))**(-c)``.

    Example:
        >>> float(genlogistic.cdf(0.0, 1.0))
        0.5
    """

    name = "genlogistic"
    shapes = ("c",)

    def _valid(self, c):
        return c > 0

    def _lp(self, z, c):
        return fnp.log(c) - z - (c + 1.0) * _softplus(-z)

    def _lc(self, z, c):
        return -c * _softplus(-z)

    def _c(self, z, c):
        return fnp.exp(-c * _softplus(-z))

    def _s(self, z, c):
        return -fnp.expm1(-c * _softplus(-z))

    def _pq(self, q, c):
        return -fnp.log(fnp.expm1(-fnp.log(q) / c))

    def _iq(self, q, c):
        return -fnp.log(fnp.expm1(-fnp.log1p(-q) / c))

    def _stats(self, c):
        return _EULER + fsp.digamma(c), math.pi**2 / 6.0 + fsp.polygamma(1, c)


class _Halflogistic(_Positive):
    """The half-logistic distribution: ``cdf = tanh(z / 2)``.

    Example:
        >>> round(float(halflogistic.cdf(1.0)), 6)
        0.462117
    """

    name = "halflogistic"

    def _lp(self, z):
        return math.log(2.0) - z - 2.0 * fnp.log1p(fnp.exp(-z))

    def _c(self, z):
        return fnp.tanh(0.5 * z)

    def _s(self, z):
        return 2.0 * fsp.expit(-z)

    def _ls(self, z):
        return math.log(2.0) - _softplus(z)

    def _pq(self, q):
        return 2.0 * fnp.arctanh(q)

    def _iq(self, q):
        return fnp.log(2.0 / q - 1.0)

    def _stats(self):
        return 2.0 * math.log(2.0), math.pi**2 / 3.0 - 4.0 * math.log(2.0) ** 2


class _Hypsecant(_Bounded):
    """The hyperbolic secant distribution: density ``1 / (pi cosh(z))``.

    Example:
        >>> float(hypsecant.cdf(0.0))
        0.5
    """

    name = "hypsecant"

    def _lp(self, z):
        a = fnp.abs(z)
        return -math.log(math.pi / 2.0) - a - fnp.log1p(fnp.exp(-2.0 * a))

    def _c(self, z):
        # the nearer tail's 2/pi atan(exp(-|z|)): exp(|z|) overflowed past 709, and the
        # derivative exp(z) / (1 + exp(2 z)) was inf / inf
        left = z <= 0
        tail = (2.0 / math.pi) * fnp.arctan(fnp.exp(-fnp.abs(z)))
        return _where(left, tail, 1.0 - tail)

    def _s(self, z):
        return self._c(-z)

    def _pq(self, q):
        return fnp.log(fnp.tan(0.5 * math.pi * q))

    def _iq(self, q):
        return -fnp.log(fnp.tan(0.5 * math.pi * q))

    def _stats(self):
        return 0.0, math.pi**2 / 4.0


class _Loglaplace(_Positive):
    """The log-Laplace distribution: ``cdf = z**c / 2`` below 1, ``1 - z**(-c) / 2`` above.

    Example:
        >>> float(loglaplace.cdf(1.0, 2.0))
        0.5
    """

    name = "loglaplace"
    shapes = ("c",)

    def _valid(self, c):
        return c > 0

    def _lp(self, z, c):
        lz = fnp.log(z)
        return fnp.log(0.5 * c) - lz - c * fnp.abs(lz)

    def _c(self, z, c):
        lz = fnp.log(z)
        half = 0.5 * fnp.exp(-c * fnp.abs(lz))
        return _where(lz < 0, half, 1.0 - half)

    def _s(self, z, c):
        lz = fnp.log(z)
        half = 0.5 * fnp.exp(-c * fnp.abs(lz))
        return _where(lz < 0, 1.0 - half, half)

    def _pq(self, q, c):
        low = q < 0.5
        return fnp.exp(_where(low, fnp.log(2.0 * q), -fnp.log(2.0 - 2.0 * q)) / c)

    def _iq(self, q, c):
        low = q < 0.5
        return fnp.exp(_where(low, -fnp.log(2.0 * q), fnp.log(2.0 - 2.0 * q)) / c)

    def _stats(self, c):
        # E[X**n] = c**2 / (c**2 - n**2) for c > n, infinite otherwise (SciPy's)
        def raw(n):
            ok = c > n
            cs = fnp.where(ok, c, n + 1.0)
            return fnp.where(ok, cs * cs / (cs * cs - n * n), fnp.inf)

        m1, m2 = raw(1.0), raw(2.0)
        return m1, fnp.where(fnp.isinf(m2), fnp.inf, m2 - m1 * m1)


class _LaplaceAsymmetric(_Bounded):
    """The asymmetric Laplace distribution with shape ``kappa`` (SciPy's form).

    Example:
        >>> float(laplace_asymmetric.cdf(0.0, 1.0))
        0.5
    """

    name = "laplace_asymmetric"
    shapes = ("kappa",)

    def _valid(self, kappa):
        return kappa > 0

    def _lp(self, z, kappa):
        return -fnp.log(kappa + 1.0 / kappa) + _where(z >= 0, -z * kappa, z / kappa)

    def _tails(self, z, kappa):
        k2 = kappa * kappa
        low = k2 / (1.0 + k2) * fnp.exp(fnp.minimum(z, 0.0) / kappa)  # cdf below 0
        high = fnp.exp(-kappa * fnp.maximum(z, 0.0)) / (1.0 + k2)  # sf above 0
        return low, high

    def _c(self, z, kappa):
        low, high = self._tails(z, kappa)
        return _where(z < 0, low, 1.0 - high)

    def _s(self, z, kappa):
        low, high = self._tails(z, kappa)
        return _where(z < 0, 1.0 - low, high)

    def _pq(self, q, kappa):
        k2 = kappa * kappa
        split = k2 / (1.0 + k2)
        low = q < split
        below = kappa * fnp.log(_where(low, q, split) / split)
        above = -fnp.log((1.0 - _where(low, split, q)) * (1.0 + k2)) / kappa
        return _where(low, below, above)

    def _stats(self, kappa):
        return 1.0 / kappa - kappa, 1.0 / kappa**2 + kappa**2


class _Levy(_Positive):
    """The Levy distribution: ``cdf = erfc(1 / sqrt(2 z))``.

    Example:
        >>> round(float(levy.cdf(1.0)), 6)
        0.317311
    """

    name = "levy"
    _open = True

    def _lp(self, z):
        return -_LOG_SQRT_2PI - 1.5 * fnp.log(z) - 0.5 / z

    def _c(self, z):
        return fsp.erfc(1.0 / fnp.sqrt(2.0 * z))

    def _s(self, z):
        return fsp.erf(1.0 / fnp.sqrt(2.0 * z))

    def _pq(self, q):
        return 1.0 / _ndtri(0.5 * q) ** 2

    def _iq(self, q):
        return 0.5 / fsp.erfinv(q) ** 2

    def _stats(self):
        return fnp.inf, fnp.inf


class _LevyL(_Bounded):
    """The left-skewed Levy distribution, the mirror image of ``levy``.

    Example:
        >>> round(float(levy_l.sf(-1.0)), 6)
        0.317311
    """

    name = "levy_l"
    _open = True

    def _support(self):
        return -_INF, 0.0

    def _lp(self, z):
        return _Levy._lp(self, -z)

    def _c(self, z):
        return fsp.erf(1.0 / fnp.sqrt(-2.0 * z))

    def _s(self, z):
        return fsp.erfc(1.0 / fnp.sqrt(-2.0 * z))

    def _pq(self, q):
        return -0.5 / fsp.erfinv(q) ** 2

    def _iq(self, q):
        return -1.0 / _ndtri(0.5 * q) ** 2

    def _stats(self):
        return fnp.inf, fnp.inf  # (SciPy's; the mean of the mirror image is -inf)


class _Moyal(_Bounded):
    """The Moyal distribution: ``cdf = erfc(exp(-z/2) / sqrt(2))``.

    Example:
        >>> round(float(moyal.cdf(0.0)), 6)
        0.317311
    """

    name = "moyal"

    def _lp(self, z):
        return -0.5 * (z + fnp.exp(-z)) - _LOG_SQRT_2PI

    def _c(self, z):
        return fsp.erfc(fnp.exp(-0.5 * z) / _SQRT2)

    def _s(self, z):
        return fsp.erf(fnp.exp(-0.5 * z) / _SQRT2)

    def _pq(self, q):
        return -2.0 * fnp.log(_SQRT2 * fsp.erfcinv(q))

    def _iq(self, q):
        return -2.0 * fnp.log(_SQRT2 * fsp.erfinv(q))

    def _stats(self):
        return _EULER + math.log(2.0), math.pi**2 / 2.0


class _Dweibull(_Bounded):
    """The double Weibull distribution: density ``c/2 |z|**(c-1) exp(-|z|**c)``.

    Example:
        >>> float(dweibull.cdf(0.0, 2.0))
        0.5
    """

    name = "dweibull"
    shapes = ("c",)

    def _valid(self, c):
        return c > 0

    def _lp(self, z, c):
        a = fnp.abs(z)
        return fnp.log(0.5 * c) + fsp.xlogy(c - 1.0, a) - a**c

    def _half(self, z, c):
        return 0.5 * _exp_neg_pow(fnp.abs(z), c)

    def _c(self, z, c):
        return _where(z <= 0, self._half(z, c), 1.0 - self._half(z, c))

    def _s(self, z, c):
        return _where(z <= 0, 1.0 - self._half(z, c), self._half(z, c))

    def _pq(self, q, c):
        low = q < 0.5
        tail = _where(low, q, 1.0 - q)
        mag = (-fnp.log(2.0 * tail)) ** (1.0 / c)
        return _where(low, -mag, mag)

    def _iq(self, q, c):
        return -self._pq(q, c)

    def _stats(self, c):
        return 0.0, fsp.gamma(1.0 + 2.0 / c)


# -- bounded supports ------------------------------------------------------------------------


class _Powerlaw(_Unit):
    """The power-function distribution: ``cdf = z**a`` on ``[0, 1]``.

    Example:
        >>> float(powerlaw.cdf(0.25, 0.5))
        0.5
    """

    name = "powerlaw"
    shapes = ("a",)

    def _valid(self, a):
        return a > 0

    def _lp(self, z, a):
        return fnp.log(a) + fsp.xlogy(a - 1.0, z)

    def _logpdf(self, z, a):  # SciPy leaves out 0 for a < 1, where the density is infinite
        return _where((z == 0) & (a < 1), -fnp.inf, super()._logpdf(z, a))

    def _c(self, z, a):
        return z**a

    def _lc(self, z, a):
        return a * fnp.log(z)

    def _pq(self, q, a):
        return q ** (1.0 / a)

    def _iq(self, q, a):
        return (1.0 - q) ** (1.0 / a)

    def _stats(self, a):
        return a / (a + 1.0), a / ((a + 2.0) * (a + 1.0) ** 2)


class _Triang(_Unit):
    """The triangular distribution on ``[0, 1]`` with its mode at ``c``.

    Example:
        >>> float(triang.cdf(0.5, 0.5))
        0.5
    """

    name = "triang"
    shapes = ("c",)

    def _valid(self, c):
        return (c >= 0) & (c <= 1)

    def _pieces(self, z, c):
        left = z < c
        cl = _where(c > 0, c, 1.0)
        cr = _where(c < 1, 1.0 - c, 1.0)
        return left, cl, cr

    def _lp(self, z, c):
        left, cl, cr = self._pieces(z, c)
        return math.log(2.0) + _where(left, fnp.log(z / cl), fnp.log((1.0 - z) / cr))

    def _c(self, z, c):
        left, cl, cr = self._pieces(z, c)
        return _where(left, z * z / cl, 1.0 - (1.0 - z) ** 2 / cr)

    def _s(self, z, c):
        left, cl, cr = self._pieces(z, c)
        return _where(left, 1.0 - z * z / cl, (1.0 - z) ** 2 / cr)

    def _pq(self, q, c):
        low = q < c  # (each square root at 1 where it is not taken: no 0/0 in a derivative)
        left = fnp.sqrt(_where(low, c * q, 1.0))
        right = fnp.sqrt(_where(low, 1.0, (1.0 - c) * (1.0 - q)))
        return _where(low, left, 1.0 - right)

    def _iq(self, q, c):
        return self._pq(1.0 - q, c)

    def _stats(self, c):
        return (1.0 + c) / 3.0, (1.0 - c + c * c) / 18.0


class _Arcsine(_Unit):
    """The arcsine distribution on ``[0, 1]``: ``cdf = 2/pi arcsin(sqrt(z))``.

    Example:
        >>> round(float(arcsine.cdf(0.5)), 12)
        0.5
    """

    name = "arcsine"

    def _lp(self, z):
        return -math.log(math.pi) - 0.5 * fnp.log(z) - 0.5 * fnp.log1p(-z)

    def _c(self, z):
        return self._arc(z, 1.0 - z)

    def _s(self, z):
        return self._arc(1.0 - z, z)

    @staticmethod
    def _arc(u, v):
        """``2/pi arcsin(sqrt(u))`` with ``v = 1 - u``: ``arccos(sqrt(v))`` for ``u > 1/2``,
        so the derivative never goes through ``arcsin'(1) = inf`` where ``1 - z`` rounds to
        1 (NaN in ``logcdf`` at ``z = 1e-24``, whose upper branch took the sf there)."""
        big = u > 0.5
        near = fnp.arcsin(fnp.sqrt(_where(big, 0.25, u)))
        far = fnp.arccos(fnp.sqrt(_where(big, v, 0.25)))
        return (2.0 / math.pi) * _where(big, far, near)

    def _pq(self, q):
        return fnp.sin(0.5 * math.pi * q) ** 2

    def _iq(self, q):
        return fnp.cos(0.5 * math.pi * q) ** 2

    def _stats(self):
        return 0.5, 0.125


class _Semicircular(_Bounded):
    """The semicircular distribution on ``[-1, 1]``: density ``2/pi sqrt(1 - z**2)``.

    Example:
        >>> float(semicircular.cdf(0.0))
        0.5
    """

    name = "semicircular"

    def _support(self):
        return -1.0, 1.0

    def _lp(self, z):
        return math.log(2.0 / math.pi) + 0.5 * fnp.log1p(-z * z)

    def _c(self, z):
        return 0.5 + (z * fnp.sqrt(1.0 - z * z) + fnp.arcsin(z)) / math.pi

    def _s(self, z):
        return self._c(-z)

    def _stats(self):
        return 0.0, 0.25


class _Anglit(_Bounded):
    """The anglit distribution on ``[-pi/4, pi/4]``: density ``cos(2 z)``.

    Example:
        >>> round(float(anglit.cdf(0.0)), 12)
        0.5
    """

    name = "anglit"

    def _support(self):
        return -math.pi / 4.0, math.pi / 4.0

    def _lp(self, z):
        return fnp.log(fnp.cos(2.0 * z))

    def _c(self, z):
        return fnp.sin(z + math.pi / 4.0) ** 2

    def _s(self, z):
        return fnp.cos(z + math.pi / 4.0) ** 2

    def _pq(self, q):
        return fnp.arcsin(fnp.sqrt(q)) - math.pi / 4.0

    def _iq(self, q):
        return fnp.arccos(fnp.sqrt(q)) - math.pi / 4.0

    def _stats(self):
        return 0.0, math.pi**2 / 16.0 - 0.5


def _w_minus_sin(w: Any) -> Any:
    """``w - sin(w)`` for ``w >= 0``, its Taylor series below 1 (the difference cancels:
    the cosine distribution's cdf at ``w = pi + z`` near its lower end)."""
    small = w < 1.0
    ws = _where(small, w, 0.0)
    w2, term, total = ws * ws, ws * ws * ws / 6.0, 0.0
    for k in range(1, 10):  # w**(2k+1) / (2k+1)!, alternating; 10 terms reach 1e-19
        total = total + term
        term = -term * w2 / ((2 * k + 2) * (2 * k + 3))
    wl = _where(small, 1.0, w)
    return _where(small, total, wl - fnp.sin(wl))


class _Cosine(_Bounded):
    """The cosine distribution on ``[-pi, pi]``: density ``(1 + cos z) / (2 pi)``.

    Example:
        >>> float(cosine.cdf(0.0))
        0.5
    """

    name = "cosine"

    def _support(self):
        return -math.pi, math.pi

    def _lp(self, z):
        # 1 + cos z = 2 cos(z/2)**2: no cancellation near the ends (log1p(cos z) kept 11
        # digits at the 1e-10 quantile, as SciPy's pdf)
        end = fnp.abs(z) >= math.pi
        zs = _where(end, 0.0, z)
        return _where(end, -fnp.inf, 2.0 * fnp.log(fnp.cos(0.5 * zs)) - math.log(math.pi))

    def _c(self, z):
        # (w - sin w) / (2 pi) with w = pi + z, the nearer end's form on each side
        left = z < 0
        w = fnp.where(left, math.pi + z, math.pi - z)
        mass = _w_minus_sin(w) / (2.0 * math.pi)
        return fnp.where(left, mass, 1.0 - mass)

    def _s(self, z):
        return self._c(-z)

    def _stats(self):
        return 0.0, math.pi**2 / 3.0 - 2.0


class _Bradford(_Unit):
    """The Bradford distribution on ``[0, 1]``: ``cdf = log1p(c z) / log1p(c)``.

    Example:
        >>> float(bradford.cdf(1.0, 2.0))
        1.0
    """

    name = "bradford"
    shapes = ("c",)

    def _valid(self, c):
        return c > 0

    def _lp(self, z, c):
        return fnp.log(c) - fnp.log(fnp.log1p(c)) - fnp.log1p(c * z)

    def _c(self, z, c):
        return fnp.log1p(c * z) / fnp.log1p(c)

    def _pq(self, q, c):
        return fnp.expm1(q * fnp.log1p(c)) / c

    def _iq(self, q, c):
        return self._pq(1.0 - q, c)

    def _stats(self, c):
        k = fnp.log1p(c)
        return (c - k) / (c * k), ((c + 2.0) * k - 2.0 * c) / (2.0 * c * k * k)


class _Truncexpon(_Bounded):
    """The exponential distribution truncated to ``[0, b]``.

    Example:
        >>> round(float(truncexpon.cdf(1.0, 2.0)), 6)  # (1 - e**-1) / (1 - e**-2)
        0.731059
    """

    name = "truncexpon"
    shapes = ("b",)

    def _valid(self, b):
        return b > 0

    def _support(self, b):
        return 0.0, b

    def _lp(self, z, b):
        return -z - fnp.log(-fnp.expm1(-b))

    def _c(self, z, b):
        return fnp.expm1(-z) / fnp.expm1(-b)

    def _s(self, z, b):
        return (fnp.exp(-z) - fnp.exp(-b)) / -fnp.expm1(-b)

    def _pq(self, q, b):
        return -fnp.log1p(q * fnp.expm1(-b))

    def _iq(self, q, b):
        return self._pq(1.0 - q, b)

    def _stats(self, b):
        e = fnp.expm1(b)  # E[X] = 1 - b / (e**b - 1); E[X**2] = 2 - b (b + 2) / (e**b - 1)
        m1 = 1.0 - b / e
        return m1, 2.0 - b * (b + 2.0) / e - m1 * m1


class _Reciprocal(_Bounded):
    """The log-uniform (reciprocal) distribution on ``[a, b]``.

    Example:
        >>> float(loguniform.cdf(10.0, 1.0, 100.0))
        0.5
    """

    name = "reciprocal"
    shapes = ("a", "b")

    def _valid(self, a, b):
        return (a > 0) & (b > a)

    def _support(self, a, b):
        return a, b

    def _lp(self, z, a, b):
        return -fnp.log(z) - fnp.log(fnp.log(b) - fnp.log(a))

    def _c(self, z, a, b):
        return (fnp.log(z) - fnp.log(a)) / (fnp.log(b) - fnp.log(a))

    def _s(self, z, a, b):
        return (fnp.log(b) - fnp.log(z)) / (fnp.log(b) - fnp.log(a))

    def _pq(self, q, a, b):
        return fnp.exp(fnp.log(a) + q * (fnp.log(b) - fnp.log(a)))

    def _iq(self, q, a, b):
        return self._pq(1.0 - q, a, b)

    def _stats(self, a, b):
        lr = fnp.log(b) - fnp.log(a)
        m1 = (b - a) / lr
        return m1, (b * b - a * a) / (2.0 * lr) - m1 * m1


class _Loguniform(_Reciprocal):
    name = "loguniform"
    __doc__ = _Reciprocal.__doc__


class _Erlang(_Positive):
    """The Erlang distribution, ``gamma`` with an integer shape ``a``.

    Example:
        >>> round(float(erlang.cdf(1.0, 1)), 6)  # 1 - exp(-1)
        0.632121
    """

    name = "erlang"
    shapes = ("a",)

    def _valid(self, a):
        return a > 0

    def _lp(self, z, a):
        return fsp.xlogy(a - 1.0, z) - z - fsp.gammaln(a)

    def _c(self, z, a):
        return fsp.gammainc(a, z)

    def _s(self, z, a):
        return fsp.gammaincc(a, z)

    def _pq(self, q, a):
        return fsp.gammaincinv(a, q)

    def _iq(self, q, a):
        return fsp.gammainccinv(a, q)

    def _stats(self, a):
        return a, a


genextreme = _Genextreme()
genpareto = _Genpareto()
weibull_max = _WeibullMax()
invweibull = _Invweibull()
lomax = _Lomax()
burr12 = _Burr12()
burr = _Burr()
fisk = _Fisk()
gompertz = _Gompertz()
exponweib = _Exponweib()
exponpow = _Exponpow()
nakagami = _Nakagami()
rice = _Rice()
chi = _Chi()
maxwell = _Maxwell()
halfgennorm = _Halfgennorm()
gengamma = _Gengamma()
loggamma = _Loggamma()
betaprime = _Betaprime()
invgauss = _Invgauss()
wald = _Wald()
fatiguelife = _Fatiguelife()
gibrat = _Gibrat()
foldnorm = _Foldnorm()
powernorm = _Powernorm()
exponnorm = _Exponnorm()
johnsonsu = _Johnsonsu()
johnsonsb = _Johnsonsb()
genlogistic = _Genlogistic()
halflogistic = _Halflogistic()
hypsecant = _Hypsecant()
loglaplace = _Loglaplace()
laplace_asymmetric = _LaplaceAsymmetric()
levy = _Levy()
levy_l = _LevyL()
moyal = _Moyal()
dweibull = _Dweibull()
powerlaw = _Powerlaw()
triang = _Triang()
arcsine = _Arcsine()
semicircular = _Semicircular()
anglit = _Anglit()
cosine = _Cosine()
bradford = _Bradford()
truncexpon = _Truncexpon()
reciprocal = _Reciprocal()
loguniform = _Loguniform()
erlang = _Erlang()

#: The distributions of this module, by SciPy's names.
DISTRIBUTIONS = tuple(
    name for name, value in list(globals().items()) if isinstance(value, _Bounded)
)
