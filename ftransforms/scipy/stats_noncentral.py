"""SciPy's noncentral distributions on tracers: ``ncx2(df, nc)``, ``nct(df, nc)`` and
``ncf(dfn, dfd, nc)``, with SciPy's names and call forms (``loc``/``scale`` as in
:mod:`ftransforms.scipy.stats`).

NOTE [noncentral distributions valued by SciPy]: their densities and cdfs are Poisson
(or normal) mixtures that SciPy evaluates with Boost; written here with ``ive`` or
``hyp1f1`` they lose digits in the tails.  So ``logpdf``, ``cdf`` and ``sf`` are SciPy's
values (an elementwise primitive each), and each partial derivative is given by a
function called only when that argument is differentiated:

* closed forms written with these same primitives (so they differentiate again): the
  density in ``x`` of the cdf; in the noncentrality of ``ncx2`` and ``ncf`` the Poisson
  mixture's shift, ``dF/dnc = (F(x; df + 2) - F(x; df)) / 2`` (``ncf``: at
  ``x dfn / (dfn + 2)`` with ``dfn + 2``), the same for the density;
* where none is known (the degrees of freedom, ``nct``'s noncentrality, ``nct``'s and
  ``ncf``'s density in ``x``) a five-point difference of SciPy's function with the step
  ``1e-3 max(|p|, 1)`` (``|p| / 4`` for a smaller positive parameter), whose own
  derivative raises :class:`~ftransforms.errors.UnsupportedOperationError` (as the
  second derivative of ``betainc`` in its parameters does).

Quantiles are SciPy's, differentiated implicitly through these cdfs.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.stats import ncx2
    >>> round(float(ncx2.cdf(3.0, 2.0, 1.5)), 6)
    0.551314
    >>> round(float(ft.grad(lambda nc: ncx2.cdf(3.0, 2.0, nc))(1.5)), 6)
    -0.132679
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ftransforms.numpy as fnp
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.primitive import FAMILY_BATCH_RULES, Primitive
from ftransforms.ops.scipy_ops import scipy_ppf_p
from ftransforms.scipy import special as fsp
from ftransforms.scipy.stats_distributions import _Bounded, _Positive

_PRIMS: dict[str, Primitive] = {}


#: The arguments of each distribution's methods, for the errors.
_ARGS = {"ncx2": ("x", "df", "nc"), "nct": ("x", "df", "nc"), "ncf": ("x", "dfn", "dfd", "nc")}


def _refusal(name: str, method: str, i: int) -> Any:
    def rule(*args: Any, **kwargs: Any) -> Any:
        raise UnsupportedOperationError(
            f"scipy.stats.{name}.{method}: its derivative in {_ARGS[name][i]} is a "
            "difference of SciPy's values, which is not differentiated again (see NOTE "
            "[noncentral distributions valued by SciPy] in ftransforms/scipy/stats_noncentral.py); "
            "differentiate once "
            "in that parameter, or hold it fixed"
        )

    return rule


def _difference(name: str, method: str, i: int, positive: bool) -> Primitive:
    """``d/dp_i scipy.stats.<name>.<method>(*p)`` by a five-point difference (its own
    derivatives refused)."""
    key = f"{name}.{method}.d{i}"
    prim = _PRIMS.get(key)
    if prim is not None:
        return prim

    def impl(xp, *args):
        v = args[i]
        h = 1e-3 * xp.maximum(xp.abs(v), 1.0)
        if positive:
            h = xp.minimum(h, 0.25 * xp.abs(v))

        def at(step):
            moved = list(args)
            moved[i] = v + step
            return scipy_ppf_p.impl(xp, *moved, dist=name, method=method)

        return (at(-2 * h) - 8 * at(-h) + 8 * at(h) - at(2 * h)) / (12 * h)

    refuse = _refusal(name, method, i)

    def jvp(tangents, out, *args):
        return refuse()

    def vjp(g, out, *args, wanted):
        return refuse()

    prim = Primitive(
        key, impl, jvp=jvp, vjp=vjp, batch=FAMILY_BATCH_RULES["elementwise"], family="elementwise"
    )
    _PRIMS[key] = prim
    return prim


def _valued(name: str, method: str, partials: tuple[Callable | None, ...]) -> Primitive:
    """``scipy.stats.<name>.<method>(z, *shape)`` as an elementwise primitive whose
    partial derivative in argument ``i`` is ``partials[i](z, *shape)``, called only for
    the arguments differentiated."""
    key = f"{name}.{method}"
    prim = _PRIMS.get(key)
    if prim is not None:
        return prim

    def impl(xp, *args):
        return scipy_ppf_p.impl(xp, *args, dist=name, method=method)

    def jvp(tangents, out, *args):
        total = fnp.zeros_like(out)
        for t, p in zip(tangents, partials):
            if t is not None:
                total = total + t * p(*args)
        return total

    def vjp(g, out, *args, wanted):
        return tuple(g * p(*args) if w else None for p, w in zip(partials, wanted))

    batch = FAMILY_BATCH_RULES["elementwise"]
    prim = Primitive(key, impl, jvp=jvp, vjp=vjp, batch=batch, family="elementwise")
    _PRIMS[key] = prim
    return prim


def _bind(prim: Primitive, *args: Any) -> Any:
    return prim.bind(*fnp.broadcast_arrays(*args))


def _diff(name: str, method: str, i: int, positive: bool = True) -> Callable:
    return lambda *args: _bind(_difference(name, method, i, positive), *args)


# -- ncx2 ----------------------------------------------------------------------------------


class _Ncx2(_Positive):
    """The noncentral chi-squared distribution with ``df`` degrees of freedom and
    noncentrality ``nc`` (NOTE [noncentral distributions valued by SciPy]).

    Example:
        >>> round(float(ncx2.mean(3.0, 2.0)), 6)
        5.0
    """

    name = "ncx2"
    shapes = ("df", "nc")

    def _valid(self, df, nc):
        return (df > 0) & (nc >= 0)

    def _logpdf_prim(self) -> Primitive:
        return _valued(
            "ncx2",
            "logpdf",
            (self._dlogpdf_dx, _diff("ncx2", "logpdf", 1), self._dlogpdf_dnc),
        )

    def _lp(self, z, df, nc):
        return _bind(self._logpdf_prim(), z, df, nc)

    def _dlogpdf_dx(self, z, df, nc):
        # -1/2 + nu/x + nc I_{nu+1}(s) / (2 s I_nu(s)), s = sqrt(nc x), nu = df/2 - 1
        # (the ratio's series 1/(2(nu+1)) (1 - s**2/(4(nu+1)(nu+2))) below s = 1e-3)
        nu = 0.5 * df - 1.0
        s = fnp.sqrt(nc * z)
        small = s < 1e-3
        ss = fnp.where(small, 1.0, s)
        ratio = fsp.ive(nu + 1.0, ss) / (ss * fsp.ive(nu, ss))
        t = fnp.where(small, s, 0.0)
        series = (1.0 - t * t / (4.0 * (nu + 1.0) * (nu + 2.0))) / (2.0 * (nu + 1.0))
        return -0.5 + nu / z + 0.5 * nc * fnp.where(small, series, ratio)

    def _dlogpdf_dnc(self, z, df, nc):
        # d/dnc f = (f(x; df + 2) - f(x; df)) / 2
        return 0.5 * fnp.expm1(self._lp(z, df + 2.0, nc) - self._lp(z, df, nc))

    def _c(self, z, df, nc):
        prim = _valued(
            "ncx2",
            "cdf",
            (
                lambda z, df, nc: fnp.exp(self._lp(z, df, nc)),
                _diff("ncx2", "cdf", 1),
                lambda z, df, nc: 0.5 * (self._c(z, df + 2.0, nc) - self._c(z, df, nc)),
            ),
        )
        return _bind(prim, z, df, nc)

    def _s(self, z, df, nc):
        prim = _valued(
            "ncx2",
            "sf",
            (
                lambda z, df, nc: -fnp.exp(self._lp(z, df, nc)),
                _diff("ncx2", "sf", 1),
                lambda z, df, nc: 0.5 * (self._s(z, df + 2.0, nc) - self._s(z, df, nc)),
            ),
        )
        return _bind(prim, z, df, nc)

    def _stats(self, df, nc):
        return df + nc, 2.0 * (df + 2.0 * nc)


# -- nct -----------------------------------------------------------------------------------


class _Nct(_Bounded):
    """The noncentral t distribution with ``df`` degrees of freedom and noncentrality
    ``nc`` (NOTE [noncentral distributions valued by SciPy]).

    Example:
        >>> round(float(nct.cdf(0.0, 5.0, 0.0)), 6)
        0.5
    """

    name = "nct"
    shapes = ("df", "nc")

    def _valid(self, df, nc):
        return df > 0

    def _lp(self, z, df, nc):
        prim = _valued(
            "nct",
            "logpdf",
            (
                _diff("nct", "logpdf", 0, positive=False),
                _diff("nct", "logpdf", 1),
                _diff("nct", "logpdf", 2, positive=False),
            ),
        )
        return _bind(prim, z, df, nc)

    def _c(self, z, df, nc):
        prim = _valued(
            "nct",
            "cdf",
            (
                lambda z, df, nc: fnp.exp(self._lp(z, df, nc)),
                _diff("nct", "cdf", 1),
                _diff("nct", "cdf", 2, positive=False),
            ),
        )
        return _bind(prim, z, df, nc)

    def _s(self, z, df, nc):
        prim = _valued(
            "nct",
            "sf",
            (
                lambda z, df, nc: -fnp.exp(self._lp(z, df, nc)),
                _diff("nct", "sf", 1),
                _diff("nct", "sf", 2, positive=False),
            ),
        )
        return _bind(prim, z, df, nc)

    def _stats(self, df, nc):
        # E[T] = nc sqrt(df/2) Gamma((df-1)/2) / Gamma(df/2) for df > 1; E[T**2] =
        # df (1 + nc**2) / (df - 2) for df > 2 (SciPy's inf and NaN below)
        ok1, ok2 = df > 1, df > 2
        d1 = fnp.where(ok1, df, 3.0)
        g = fnp.exp(fsp.gammaln(0.5 * (d1 - 1.0)) - fsp.gammaln(0.5 * d1))
        mean = nc * fnp.sqrt(0.5 * d1) * g
        d2 = fnp.where(ok2, df, 3.0)
        var = d2 * (1.0 + nc * nc) / (d2 - 2.0) - mean * mean
        return fnp.where(ok1, mean, fnp.inf), fnp.where(ok2, var, fnp.where(ok1, fnp.inf, fnp.nan))


# -- ncf -----------------------------------------------------------------------------------


class _Ncf(_Positive):
    """The noncentral F distribution with ``dfn`` and ``dfd`` degrees of freedom and
    noncentrality ``nc`` (NOTE [noncentral distributions valued by SciPy]).

    Example:
        >>> round(float(ncf.mean(3.0, 10.0, 2.0)), 6)  # dfd (dfn + nc) / (dfn (dfd - 2))
        2.083333
    """

    name = "ncf"
    shapes = ("dfn", "dfd", "nc")

    def _valid(self, dfn, dfd, nc):
        return (dfn > 0) & (dfd > 0) & (nc >= 0)

    def _lp(self, z, dfn, dfd, nc):
        prim = _valued(
            "ncf",
            "logpdf",
            (
                _diff("ncf", "logpdf", 0),
                _diff("ncf", "logpdf", 1),
                _diff("ncf", "logpdf", 2),
                self._dlogpdf_dnc,
            ),
        )
        return _bind(prim, z, dfn, dfd, nc)

    def _dlogpdf_dnc(self, z, dfn, dfd, nc):
        # d/dnc f = (dfn / (dfn + 2) f(x dfn / (dfn + 2); dfn + 2) - f(x)) / 2
        r = dfn / (dfn + 2.0)
        up = self._lp(z * r, dfn + 2.0, dfd, nc) - self._lp(z, dfn, dfd, nc)
        return 0.5 * (r * fnp.exp(up) - 1.0)

    def _shift(self, method, z, dfn, dfd, nc):
        r = dfn / (dfn + 2.0)
        return 0.5 * (method(z * r, dfn + 2.0, dfd, nc) - method(z, dfn, dfd, nc))

    def _c(self, z, dfn, dfd, nc):
        prim = _valued(
            "ncf",
            "cdf",
            (
                lambda z, dfn, dfd, nc: fnp.exp(self._lp(z, dfn, dfd, nc)),
                _diff("ncf", "cdf", 1),
                _diff("ncf", "cdf", 2),
                lambda *a: self._shift(self._c, *a),
            ),
        )
        return _bind(prim, z, dfn, dfd, nc)

    def _s(self, z, dfn, dfd, nc):
        prim = _valued(
            "ncf",
            "sf",
            (
                lambda z, dfn, dfd, nc: -fnp.exp(self._lp(z, dfn, dfd, nc)),
                _diff("ncf", "sf", 1),
                _diff("ncf", "sf", 2),
                lambda *a: self._shift(self._s, *a),
            ),
        )
        return _bind(prim, z, dfn, dfd, nc)

    def _stats(self, dfn, dfd, nc):
        ok1, ok2 = dfd > 2, dfd > 4
        d1 = fnp.where(ok1, dfd, 5.0)
        mean = d1 * (dfn + nc) / (dfn * (d1 - 2.0))
        d2 = fnp.where(ok2, dfd, 5.0)
        num = (dfn + nc) ** 2 + (dfn + 2.0 * nc) * (d2 - 2.0)
        var = 2.0 * (d2 / dfn) ** 2 * num / ((d2 - 2.0) ** 2 * (d2 - 4.0))
        return fnp.where(ok1, mean, fnp.inf), fnp.where(ok2, var, fnp.inf)


ncx2 = _Ncx2()
nct = _Nct()
ncf = _Ncf()
