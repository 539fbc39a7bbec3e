"""Every other ``scipy.special`` ufunc: one primitive each for one and for several outputs,
evaluated by SciPy, with derivatives from the table :data:`DERIVATIVES`.

NOTE [the remaining SciPy ufuncs]: ``ops/special.py`` declares the special functions
JAX has, one primitive each.  SciPy has about 230 more ufuncs (distribution functions
such as ``stdtr``, elliptic integrals, orthogonal polynomials, Struve and Kelvin
functions, ``huber`` ...).  Any of them called on a tracer binds :data:`scipy_ufunc_p`
(:data:`scipy_ufunc_multi_p` for ``ellipj``, ``airy`` and the others with several
outputs) with the ufunc's name as a parameter: elementwise, so ``vmap`` (the elementwise
family's batching rule), ``jit`` (a recorded equation that calls SciPy) and CuPy (where
``cupyx.scipy.special`` has the name) need nothing more.  Derivatives come from
:data:`DERIVATIVES`, ``name -> one entry per argument``: ``d(y, *args)`` gives ``dy/darg``
written with primitives (other table entries included, so higher orders work), and
``None`` marks an argument without a rule (an integer order, a shape parameter): a
derivative asked there raises :class:`UnsupportedOperationError` naming the function and
the argument, never a silent zero.  The rules are for real arguments (a complex argument
with a tangent raises).  To add one, add its entry to the table (:data:`MULTI_DERIVATIVES`
for those with several outputs: one tuple of the outputs' derivatives per argument).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ftransforms import lax
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.primitive import defop, prims
from ftransforms.ops._util import like_output, unbroadcast
from ftransforms.ops.elementwise import FAMILY
from ftransforms.ops.special import scipy_function

_PI = math.pi
_DEG = _PI / 180.0


def _impl(xp: Any, *args: Any, name: str) -> Any:
    return scipy_function(xp, name)(*args)


# -- the functions the rules are written with -----------------------------------------


def _u(name: str, *args: Any) -> Any:
    """``scipy.special.<name>(*args)`` as this module's primitive (any order)."""
    return scipy_ufunc_p.bind(*args, name=name)


_exp, _log, _sqrt, _where = lax.exp, lax.log, lax.sqrt, lax.select


def _sin(x: Any) -> Any:
    return prims.sin.bind(x)


def _floor(x: Any) -> Any:
    """An integer parameter that SciPy floors (``pdtr``'s ``k``, ``bdtr``'s ``k``, ``n``)."""
    return lax.floor(x) if getattr(x, "dtype", None) is None or x.dtype.kind in "fc" else x


def _trunc(x: Any) -> Any:
    """An integer order that SciPy truncates (``kn``'s ``n``)."""
    return prims.trunc.bind(x) if getattr(x, "dtype", None) is None or x.dtype.kind in "fc" else x


def _gammaln(x: Any) -> Any:
    return prims.gammaln.bind(x)


def _digamma(x: Any) -> Any:
    return prims.digamma.bind(x)


def _betaln(a: Any, b: Any) -> Any:
    return prims.betaln.bind(a, b)


def _t_pdf(df: Any, t: Any) -> Any:
    half = (df + 1.0) / 2.0
    return _exp(_gammaln(half) - _gammaln(df / 2.0) - half * _log(1.0 + t * t / df)) / _sqrt(
        df * _PI
    )


def _gamma_pdf(shape: Any, x: Any) -> Any:  # unit rate
    return _exp((shape - 1.0) * _log(x) - x - _gammaln(shape))


def _beta_pdf(a: Any, b: Any, x: Any) -> Any:
    return _exp((a - 1.0) * _log(x) + (b - 1.0) * _log(1.0 - x) - _betaln(a, b))


def _f_pdf(d1: Any, d2: Any, x: Any) -> Any:
    return _exp(
        0.5 * d1 * _log(d1)
        + 0.5 * d2 * _log(d2)
        + (0.5 * d1 - 1.0) * _log(x)
        - 0.5 * (d1 + d2) * _log(d2 + d1 * x)
        - _betaln(0.5 * d1, 0.5 * d2)
    )


def _betainc_da(a: Any, b: Any, x: Any) -> Any:
    return prims.betainc_da.bind(a, b, x)


def _betainc_db(a: Any, b: Any, x: Any) -> Any:
    return prims.betainc_db.bind(a, b, x)


def _gammainc_da(a: Any, x: Any) -> Any:
    return prims.gammainc_da.bind(a, x)


def _stdtr_ddf(df: Any, t: Any) -> Any:
    """d/d df of ``stdtr(df, t)``, in the three forms of NOTE [t cdf near 0]
    (``scipy/stats.py``): for ``t**2 >= df`` the tail ``I_z(df/2, 1/2) / 2``,
    ``z = df / (df + t**2)`` (below ``t < 0``, above it ``1 -`` that); for ``t**2 < df``
    ``1/2 + sign(t) I_w(1/2, df/2) / 2``, ``w = t**2 / (df + t**2)``, whose density term
    ``w**(-1/2) dw/ddf`` is written with ``t`` (the tail form's ``inf * 0`` at ``t = 0``
    was NaN: ``stdtrit(df, 0.5)`` in ``df``); below ``t**2 = 1e-16 df`` the line
    ``1/2 + pdf(0) t``, smooth to every order."""
    t2 = t * t
    center = t2 < df
    tiny = t2 < 1e-16 * df
    # the tail form (each branch on inputs inside its own domain, so no NaN leaks through
    # the select's other side at any order)
    tt2 = _where(center, 4.0 * df, t2)
    z = df / (df + tt2)
    dz = tt2 / ((df + tt2) * (df + tt2))
    dtail = 0.25 * _betainc_da(0.5 * df, 0.5, z) + 0.5 * _beta_pdf(0.5 * df, 0.5, z) * dz
    far = _where(t > 0, -dtail, dtail)
    # the centre form
    tc = _where(center & ~tiny, t, 0.5 * _sqrt(df))
    den = df + tc * tc
    w = tc * tc / den
    half_db = 0.25 * _betainc_db(0.5, 0.5 * df, w)
    density = (
        0.5
        * tc
        * _exp((0.5 * df - 1.0) * _log(df / den) - 1.5 * _log(den) - _betaln(0.5, 0.5 * df))
    )
    mid = _where(tc > 0, half_db, -half_db) - density
    # the line: t times d pdf(0) / d df
    log_pdf0 = _gammaln(0.5 * (df + 1.0)) - _gammaln(0.5 * df) - 0.5 * _log(df * _PI)
    dlog_pdf0 = 0.5 * (_digamma(0.5 * (df + 1.0)) - _digamma(0.5 * df)) - 0.5 / df
    line = t * _exp(log_pdf0) * dlog_pdf0
    return _where(tiny, line, _where(center, mid, far))


def _fdtr_dd(which: int) -> Callable[..., Any]:
    """d/d d1 (``which`` 0) or d/d d2 (1) of ``fdtr(d1, d2, x) = I_z(d1/2, d2/2)``,
    ``z = d1 x / (d1 x + d2)``."""

    def rule(d1: Any, d2: Any, x: Any) -> Any:
        den = d1 * x + d2
        z = d1 * x / den
        dz = x * d2 / (den * den) if which == 0 else -d1 * x / (den * den)
        da = (_betainc_da if which == 0 else _betainc_db)(0.5 * d1, 0.5 * d2, z)
        return 0.5 * da + _beta_pdf(0.5 * d1, 0.5 * d2, z) * dz

    return rule


def _lower(n: Any, f: Callable[[Any], Any]) -> Any:
    """``f(n - 1)`` (a polynomial of degree ``n - 1``), 0 where ``n == 0``."""
    zero = n == 0
    return _where(zero, 0.0, f(_where(zero, 1.0, n) - 1.0))


def _int(x: Any) -> Any:
    """A float that holds an integer order, as the integer SciPy's ``ld->d`` loops take."""
    return lax.convert(x, "int64")


def _agm_d(which: int) -> Callable[..., Any]:
    """d/da (``which`` 0) or d/db (1) of ``agm(a, b) = pi (a + b) / (4 K(m))``,
    ``m = ((a - b) / (a + b))**2``: ``M / (a + b) - M K'(m) / K(m) dm``, where
    ``dm/da = 4 b (a - b) / (a + b)**3`` (0 at ``a == b``: the derivative 1/2 there)."""

    def rule(y: Any, a: Any, b: Any) -> Any:
        s = a + b
        m = ((a - b) / s) ** 2
        k = _u("ellipk", m)
        dm = (4.0 * b * (a - b) if which == 0 else 4.0 * a * (b - a)) / (s * s * s)
        return y / s - y * _elliptic_k_dm(k, m) / k * dm

    return rule


def _kolmogorov_d2(x: Any) -> Any:
    """The second derivative of ``kolmogorov`` (minus the Kolmogorov density's slope): from
    ``8 y sum (-1)**(k-1) k**2 exp(-2 k**2 y**2)`` for ``y >= 1`` and from the theta form
    ``sqrt(2 pi) / y sum exp(-c / y**2)``, ``c = (2j - 1)**2 pi**2 / 8``, below (10 terms
    each: the next is below ``exp(-150)`` of the first)."""
    big = x >= 1.0
    y = _where(big, x, 1.0 + 0.0 * x)
    slope = 0.0 * x
    for k in range(1, 11):
        sign = 1.0 if k % 2 else -1.0
        e = _exp(-2.0 * k * k * y * y)
        slope = slope + sign * 8.0 * k * k * e * (1.0 - 4.0 * k * k * y * y)
    w = _where(big, 0.5 + 0.0 * x, x)
    small = 0.0 * x
    for j in range(1, 11):
        c = (2 * j - 1) ** 2 * _PI * _PI / 8.0
        e = _exp(-c / (w * w))
        w2, w3 = w * w, w * w * w
        small = small + e * (
            (2.0 * c / w3) * (2.0 * c / (w2 * w2) - 1.0 / w2) - 8.0 * c / (w3 * w2) + 2.0 / w3
        )
    return -_where(big, slope, math.sqrt(2.0 * _PI) * small)


def _elliptic_k_dm(y: Any, m: Any) -> Any:
    e = _u("ellipe", m)
    safe = _where(m == 0, 0.5, m)
    return _where(m == 0, _PI / 8.0, (e - (1.0 - safe) * y) / (2.0 * safe * (1.0 - safe)))


def _ellipkm1_dp(y: Any, p: Any) -> Any:
    # -dK/dm at m = 1 - p, written with p: (E - (1 - m) K) / (2 m (1 - m)) computed 1 - m
    # = 1 - (1 - p), which kept 7 digits at p = 1e-10
    one = p == 1.0  # m = 0: -pi/8
    safe = _where(one, 0.5, p)
    general = -(_u("ellipe", 1.0 - safe) - safe * y) / (2.0 * safe * (1.0 - safe))
    return _where(one, -_PI / 8.0, general)


def _ellipkinc_dm(y: Any, phi: Any, m: Any) -> Any:
    s = _sin(phi)
    delta = _sqrt(1.0 - m * s * s)
    safe = _where(m == 0, 0.5, m)
    general = (
        _u("ellipeinc", phi, safe) / (2.0 * safe * (1.0 - safe))
        - y / (2.0 * safe)
        - _sin(2.0 * phi) / (4.0 * (1.0 - safe) * delta)
    )
    return _where(m == 0, phi / 4.0 - _sin(2.0 * phi) / 8.0, general)


def _ellipeinc_dm(y: Any, phi: Any, m: Any) -> Any:
    safe = _where(m == 0, 0.5, m)
    general = (y - _u("ellipkinc", phi, safe)) / (2.0 * safe)
    return _where(m == 0, _sin(2.0 * phi) / 8.0 - phi / 4.0, general)


def _voigt_parts(x: Any, sigma: Any, gamma: Any) -> tuple[Any, Any, Any]:
    """``w(z)``, ``w'(z)`` (Faddeeva) and the scale of ``voigt_profile``, ``z = (x + i
    gamma) / (sigma sqrt 2)``: ``V = Re w(z) / (sigma sqrt(2 pi))``."""
    s2 = sigma * math.sqrt(2.0)
    z = prims.add.bind(x, prims.multiply.bind(gamma, 1j)) / s2
    w = prims.wofz.bind(z)
    dw = -2.0 * z * w + 2j / math.sqrt(_PI)
    return w, dw, sigma * math.sqrt(2.0 * _PI)


def _voigt_dx(y: Any, x: Any, sigma: Any, gamma: Any) -> Any:
    _, dw, scale = _voigt_parts(x, sigma, gamma)
    return prims.real.bind(dw) / (scale * sigma * math.sqrt(2.0))


def _voigt_dgamma(y: Any, x: Any, sigma: Any, gamma: Any) -> Any:
    _, dw, scale = _voigt_parts(x, sigma, gamma)
    return -prims.imag.bind(dw) / (scale * sigma * math.sqrt(2.0))


def _voigt_dsigma(y: Any, x: Any, sigma: Any, gamma: Any) -> Any:
    s2 = sigma * math.sqrt(2.0)
    z = prims.add.bind(x, prims.multiply.bind(gamma, 1j)) / s2
    _, dw, scale = _voigt_parts(x, sigma, gamma)
    return -y / sigma - prims.real.bind(dw * z) / (scale * sigma)


#: name -> one rule per argument, ``d(y, *args) -> dy/darg`` (``None``: no rule).
DERIVATIVES: dict[str, tuple[Callable | None, ...]] = {
    # elementary
    "cosm1": (lambda y, x: -_sin(x),),
    "powm1": (
        lambda y, x, p: p * prims.power.bind(x, p - 1.0),
        lambda y, x, p: (y + 1.0) * _log(x),
    ),
    "exp10": (lambda y, x: y * math.log(10.0),),
    "exprel": (
        lambda y, x: _where(
            prims.abs.bind(x) < 1e-3,
            0.5 + x / 3.0 + x * x / 8.0,
            (_exp(x) - y) / _where(x == 0, 1.0, x),
        ),
    ),
    "erfi": (lambda y, x: 2.0 / math.sqrt(_PI) * _exp(x * x),),
    "radian": (
        lambda y, d, m, s: _DEG + 0.0 * d,
        lambda y, d, m, s: _DEG / 60.0 + 0.0 * m,
        lambda y, d, m, s: _DEG / 3600.0 + 0.0 * s,
    ),
    "sindg": (lambda y, x: _u("cosdg", x) * _DEG,),
    "cosdg": (lambda y, x: -_u("sindg", x) * _DEG,),
    "tandg": (lambda y, x: (1.0 + y * y) * _DEG,),
    "cotdg": (lambda y, x: -(1.0 + y * y) * _DEG,),
    "inv_boxcox": (lambda y, x, lmbda: prims.power.bind(y, 1.0 - lmbda), None),
    "inv_boxcox1p": (lambda y, x, lmbda: prims.power.bind(y + 1.0, 1.0 - lmbda), None),
    "huber": (
        lambda y, delta, r: _where(prims.abs.bind(r) <= delta, 0.0 * r, prims.abs.bind(r) - delta),
        lambda y, delta, r: _where(prims.abs.bind(r) <= delta, r, delta * prims.sign.bind(r)),
    ),
    "pseudo_huber": (
        lambda y, delta, r: (
            2.0 * delta * (_sqrt(1.0 + (r / delta) ** 2) - 1.0)
            - r * r / (delta * _sqrt(1.0 + (r / delta) ** 2))
        ),
        lambda y, delta, r: r / _sqrt(1.0 + (r / delta) ** 2),
    ),
    "wrightomega": (lambda y, x: y / (1.0 + y),),
    # elliptic integrals
    "ellipk": (_elliptic_k_dm,),
    "ellipe": (
        lambda y, m: _where(
            m == 0, -_PI / 8.0, (y - _u("ellipk", m)) / (2.0 * _where(m == 0, 1.0, m))
        ),
    ),
    "ellipkm1": (_ellipkm1_dp,),
    # M(a, b) = pi (a + b) / (4 K(m)), m = ((a - b) / (a + b))**2
    "agm": (_agm_d(0), _agm_d(1)),
    # minus the Kolmogorov density: SciPy's private ufunc (its own derivative: a series)
    "kolmogorov": (lambda y, x: _u("_kolmogp", x),),
    "ellipkinc": (
        lambda y, phi, m: 1.0 / _sqrt(1.0 - m * _sin(phi) ** 2),
        _ellipkinc_dm,
    ),
    "ellipeinc": (lambda y, phi, m: _sqrt(1.0 - m * _sin(phi) ** 2), _ellipeinc_dm),
    "elliprf": (
        lambda y, x, yy, z: -_u("elliprd", yy, z, x) / 6.0,
        lambda y, x, yy, z: -_u("elliprd", z, x, yy) / 6.0,
        lambda y, x, yy, z: -_u("elliprd", x, yy, z) / 6.0,
    ),
    "elliprc": (
        lambda y, x, yy: -_u("elliprd", yy, yy, x) / 6.0,
        lambda y, x, yy: -_u("elliprd", x, yy, yy) / 3.0,
    ),
    # distribution functions, their complements and inverses in the probability
    # in a shape parameter through betainc_da / betainc_db / gammainc_da (NOTE [betainc in
    # a and b], NOTE [gammainc in a]), and the inverses by the implicit function theorem
    "stdtr": (lambda y, df, t: _stdtr_ddf(df, t), lambda y, df, t: _t_pdf(df, t)),
    "stdtrit": (
        lambda y, df, p: -_stdtr_ddf(df, y) / _t_pdf(df, y),
        lambda y, df, p: 1.0 / _t_pdf(df, y),
    ),
    "chdtr": (
        lambda y, v, x: 0.5 * _gammainc_da(0.5 * v, 0.5 * x),
        lambda y, v, x: 0.5 * _gamma_pdf(0.5 * v, 0.5 * x),
    ),
    "chdtrc": (
        lambda y, v, x: -0.5 * _gammainc_da(0.5 * v, 0.5 * x),
        lambda y, v, x: -0.5 * _gamma_pdf(0.5 * v, 0.5 * x),
    ),
    "chdtri": (
        lambda y, v, p: -_gammainc_da(0.5 * v, 0.5 * y) / _gamma_pdf(0.5 * v, 0.5 * y),
        lambda y, v, p: -2.0 / _gamma_pdf(0.5 * v, 0.5 * y),
    ),
    "gdtr": (
        lambda y, a, b, x: x * _gamma_pdf(b, a * x),
        lambda y, a, b, x: _gammainc_da(b, a * x),
        lambda y, a, b, x: a * _gamma_pdf(b, a * x),
    ),
    "gdtrc": (
        lambda y, a, b, x: -x * _gamma_pdf(b, a * x),
        lambda y, a, b, x: -_gammainc_da(b, a * x),
        lambda y, a, b, x: -a * _gamma_pdf(b, a * x),
    ),
    "pdtr": (None, lambda y, k, m: -_gamma_pdf(_floor(k) + 1.0, m)),
    "pdtrc": (None, lambda y, k, m: _gamma_pdf(_floor(k) + 1.0, m)),
    "pdtri": (None, lambda y, k, p: -1.0 / _gamma_pdf(_floor(k) + 1.0, y)),
    "bdtr": (None, None, lambda y, k, n, p: -_beta_pdf(_floor(k) + 1.0, _floor(n) - _floor(k), p)),
    # nbdtr(k, n, p) = betainc(n, k + 1, p), nbdtrc = betainc(k + 1, n, 1 - p)
    "nbdtr": (None, None, lambda y, k, n, p: _beta_pdf(_floor(n), _floor(k) + 1.0, p)),
    "nbdtrc": (None, None, lambda y, k, n, p: -_beta_pdf(_floor(n), _floor(k) + 1.0, p)),
    # ndtri_exp(y) = ndtri(exp(y)): dx/dy = exp(y) / phi(x)
    "ndtri_exp": (lambda x, y: _exp(y + 0.5 * x * x) * math.sqrt(2.0 * _PI),),
    "bdtrc": (None, None, lambda y, k, n, p: _beta_pdf(_floor(k) + 1.0, _floor(n) - _floor(k), p)),
    "fdtr": (
        lambda y, d1, d2, x: _fdtr_dd(0)(d1, d2, x),
        lambda y, d1, d2, x: _fdtr_dd(1)(d1, d2, x),
        lambda y, d1, d2, x: _f_pdf(d1, d2, x),
    ),
    "fdtrc": (
        lambda y, d1, d2, x: -_fdtr_dd(0)(d1, d2, x),
        lambda y, d1, d2, x: -_fdtr_dd(1)(d1, d2, x),
        lambda y, d1, d2, x: -_f_pdf(d1, d2, x),
    ),
    "fdtri": (
        lambda y, d1, d2, p: -_fdtr_dd(0)(d1, d2, y) / _f_pdf(d1, d2, y),
        lambda y, d1, d2, p: -_fdtr_dd(1)(d1, d2, y) / _f_pdf(d1, d2, y),
        lambda y, d1, d2, p: 1.0 / _f_pdf(d1, d2, y),
    ),
    "betaincc": (
        lambda y, a, b, x: -_betainc_da(a, b, x),
        lambda y, a, b, x: -_betainc_db(a, b, x),
        lambda y, a, b, x: -_beta_pdf(a, b, x),
    ),
    "betaincinv": (
        lambda y, a, b, p: -_betainc_da(a, b, y) / _beta_pdf(a, b, y),
        lambda y, a, b, p: -_betainc_db(a, b, y) / _beta_pdf(a, b, y),
        lambda y, a, b, p: 1.0 / _beta_pdf(a, b, y),
    ),
    "betainccinv": (
        lambda y, a, b, p: -_betainc_da(a, b, y) / _beta_pdf(a, b, y),
        lambda y, a, b, p: -_betainc_db(a, b, y) / _beta_pdf(a, b, y),
        lambda y, a, b, p: -1.0 / _beta_pdf(a, b, y),
    ),
    "gammaincinv": (
        lambda y, a, p: -_gammainc_da(a, y) / _gamma_pdf(a, y),
        lambda y, a, p: 1.0 / _gamma_pdf(a, y),
    ),
    "gammainccinv": (
        lambda y, a, p: -_gammainc_da(a, y) / _gamma_pdf(a, y),
        lambda y, a, p: -1.0 / _gamma_pdf(a, y),
    ),
    "voigt_profile": (_voigt_dx, _voigt_dsigma, _voigt_dgamma),
    # hypergeometric, Struve, Kelvin, Bessel
    "hyp0f1": (None, lambda y, b, x: _u("hyp0f1", b + 1.0, x) / b),
    "hyperu": (None, None, lambda y, a, b, x: -a * _u("hyperu", a + 1.0, b + 1.0, x)),
    "struve": (None, lambda y, v, x: _u("struve", v - 1.0, x) - v / x * y),
    "modstruve": (None, lambda y, v, x: _u("modstruve", v - 1.0, x) - v / x * y),
    "itstruve0": (lambda y, x: _u("struve", 0.0, x),),
    "it2struve0": (lambda y, x: -_u("struve", 0.0, x) / x,),
    "itmodstruve0": (lambda y, x: _u("modstruve", 0.0, x),),
    "ber": (lambda y, x: _u("berp", x),),
    "bei": (lambda y, x: _u("beip", x),),
    "ker": (lambda y, x: _u("kerp", x),),
    "kei": (lambda y, x: _u("keip", x),),
    # x^2 w'' + x w' - i x^2 w = 0 for w = ber + i bei (and ker + i kei)
    "berp": (lambda y, x: -y / x - _u("bei", x),),
    "beip": (lambda y, x: -y / x + _u("ber", x),),
    "kerp": (lambda y, x: -y / x - _u("kei", x),),
    "keip": (lambda y, x: -y / x + _u("ker", x),),
    "kn": (
        None,
        lambda y, n, x: -0.5 * (prims.kv.bind(_trunc(n) - 1, x) + prims.kv.bind(_trunc(n) + 1, x)),
    ),
    "jve": (None, lambda y, v, x: 0.5 * (prims.jv.bind(v - 1.0, x) - prims.jv.bind(v + 1.0, x))),
    "yve": (None, lambda y, v, x: 0.5 * (prims.yv.bind(v - 1.0, x) - prims.yv.bind(v + 1.0, x))),
    # Hankel functions (complex values of a real x): H' = (H_(v-1) - H_(v+1)) / 2, and the
    # scaled ones' factor exp(-+ i x) adds -+ i times the value
    "hankel1": (
        None,
        lambda y, v, x: 0.5 * (_u("hankel1", v - 1.0, x) - _u("hankel1", v + 1.0, x)),
    ),
    "hankel2": (
        None,
        lambda y, v, x: 0.5 * (_u("hankel2", v - 1.0, x) - _u("hankel2", v + 1.0, x)),
    ),
    "hankel1e": (
        None,
        lambda y, v, x: 0.5 * (_u("hankel1e", v - 1.0, x) - _u("hankel1e", v + 1.0, x)) - 1j * y,
    ),
    "hankel2e": (
        None,
        lambda y, v, x: 0.5 * (_u("hankel2e", v - 1.0, x) - _u("hankel2e", v + 1.0, x)) + 1j * y,
    ),
    # orthogonal polynomials, in x (d/dx C_n^(a) = 2 a C_(n-1)^(a+1))
    "eval_gegenbauer": (
        None,
        None,
        lambda y, n, a, x: 2.0 * a * _lower(n, lambda m: _u("eval_gegenbauer", m, a + 1.0, x)),
    ),
    "eval_legendre": (
        None,
        lambda y, n, x: _lower(n, lambda m: _u("eval_gegenbauer", m, 1.5, x)),
    ),
    "eval_sh_legendre": (
        None,
        lambda y, n, x: 2.0 * _lower(n, lambda m: _u("eval_gegenbauer", m, 1.5, 2.0 * x - 1.0)),
    ),
    "eval_chebyt": (None, lambda y, n, x: n * _lower(n, lambda m: _u("eval_chebyu", m, x))),
    "eval_chebyu": (
        None,
        lambda y, n, x: 2.0 * _lower(n, lambda m: _u("eval_gegenbauer", m, 2.0, x)),
    ),
    "eval_chebyc": (
        None,
        lambda y, n, x: n * _lower(n, lambda m: _u("eval_chebyu", m, 0.5 * x)),
    ),
    "eval_chebys": (
        None,
        lambda y, n, x: _lower(n, lambda m: _u("eval_gegenbauer", m, 2.0, 0.5 * x)),
    ),
    "eval_sh_chebyt": (
        None,
        lambda y, n, x: 2.0 * n * _lower(n, lambda m: _u("eval_chebyu", m, 2.0 * x - 1.0)),
    ),
    "eval_sh_chebyu": (
        None,
        lambda y, n, x: 4.0 * _lower(n, lambda m: _u("eval_gegenbauer", m, 2.0, 2.0 * x - 1.0)),
    ),
    "eval_laguerre": (
        None,
        lambda y, n, x: -_lower(n, lambda m: _u("eval_genlaguerre", m, 1.0, x)),
    ),
    "eval_genlaguerre": (
        None,
        None,
        lambda y, n, a, x: -_lower(n, lambda m: _u("eval_genlaguerre", m, a + 1.0, x)),
    ),
    # d/dx H_n = 2 n H_(n-1), d/dx He_n = n He_(n-1) (SciPy takes an integer order only)
    "eval_hermite": (
        None,
        lambda y, n, x: 2.0 * n * _lower(n, lambda m: _u("eval_hermite", _int(m), x)),
    ),
    "eval_hermitenorm": (
        None,
        lambda y, n, x: n * _lower(n, lambda m: _u("eval_hermitenorm", _int(m), x)),
    ),
    "eval_jacobi": (
        None,
        None,
        None,
        lambda y, n, a, b, x: (
            0.5 * (n + a + b + 1.0) * _lower(n, lambda m: _u("eval_jacobi", m, a + 1.0, b + 1.0, x))
        ),
    ),
}


def _lambertw_dz(y: Any, z: Any, k: Any, tol: Any) -> Any:
    # W / (z (1 + W)); near 0 on the principal branch the series of W' (1 at 0, and its
    # own derivative -2 there: the quotient's 0/0 had none)
    near = (prims.abs.bind(z) < 1e-3) & (k == 0)
    zn = _where(near, z, 0.0 * z)
    series = 1.0 + zn * (-2.0 + zn * (4.5 + zn * (-32.0 / 3.0 + zn * (625.0 / 24.0))))
    zs = _where(near, 1.0 + 0.0 * z, z)
    return _where(near, series + 0.0 * y, y / (zs * (1.0 + y)))


#: SciPy's private ufuncs behind ``spherical_jn`` & co. and ``lambertw``
#: (``ftransforms.scipy.special``'s counterparts bind them), looked up after
#: :data:`DERIVATIVES`.  The spherical Bessel functions' derivative is SciPy's ``_d``
#: ufunc, whose own derivative is the Bessel equation's
#: ``f'' = -2 f'/z + (-+1 + n (n + 1) / z**2) f`` (-1 for j and y, +1 for i and k);
#: ``W(z)``'s is ``W / (z (1 + W))`` (a series near 0).
PRIVATE_DERIVATIVES: dict[str, tuple[Callable | None, ...]] = {
    "_kolmogp": (lambda y, x: _kolmogorov_d2(x),),
    "_lambertw": (
        _lambertw_dz,
        None,
        None,
    ),
    **{
        f"_spherical_{kind}": (None, lambda y, n, z, kind=kind: _u(f"_spherical_{kind}_d", n, z))
        for kind in ("jn", "yn", "in", "kn")
    },
    **{
        f"_spherical_{kind}_d": (
            None,
            lambda y, n, z, kind=kind, sign=sign: (
                -2.0 * y / z + (sign + n * (n + 1.0) / (z * z)) * _u(f"_spherical_{kind}", n, z)
            ),
        )
        for kind, sign in (("jn", -1.0), ("yn", -1.0), ("in", 1.0), ("kn", 1.0))
    },
}


def _no_rule(name: str, i: int) -> UnsupportedOperationError:
    return UnsupportedOperationError(
        f"scipy.special.{name}: its derivative with respect to argument {i} is not "
        f"implemented (NOTE [the remaining SciPy ufuncs] in ftransforms/ops/scipy_ufuncs.py "
        f"lists those that are); hold that argument fixed (a constant, or "
        f"ftransforms.numpy.stop_gradient) or add its rule to the table."
    )


def _rule(name: str, i: int, arg: Any) -> Callable:
    rules = DERIVATIVES.get(name) or PRIVATE_DERIVATIVES.get(name, ())
    rule = rules[i] if i < len(rules) else None
    if rule is None or getattr(arg, "dtype", None) is not None and arg.dtype.kind == "c":
        raise _no_rule(name, i)
    return rule


def _jvp(tangents: Any, y: Any, *args: Any, name: str) -> Any:
    out = None
    for i, t in enumerate(tangents):
        if t is None:
            continue
        term = like_output(t * _rule(name, i, args[i])(y, *args), y)
        out = term if out is None else out + term
    return out


def _vjp(y_bar: Any, y: Any, *args: Any, wanted: Any, name: str) -> tuple:
    return tuple(
        unbroadcast(y_bar * _rule(name, i, a)(y, *args), a) if want else None
        for i, (a, want) in enumerate(zip(args, wanted))
    )


#: The ufuncs with several outputs: name -> one rule per argument, ``d(ys, *args)`` giving
#: the tuple of every output's derivative in that argument (``None``: no rule).
MULTI_DERIVATIVES: dict[str, tuple[Callable | None, ...]] = {
    # (Ai, Ai', Bi, Bi'): Ai'' = x Ai, Bi'' = x Bi
    "airy": (lambda ys, x: (ys[1], x * ys[0], ys[3], x * ys[2]),),
    # (sn, cn, dn, ph) in u: cn dn, -sn dn, -m sn cn, dn (m: no rule)
    "ellipj": (
        lambda ys, u, m: (ys[1] * ys[2], -ys[0] * ys[2], -m * ys[0] * ys[1], ys[2]),
        None,
    ),
    # (shi, chi): sinh(x) / x, cosh(x) / x
    "shichi": (lambda ys, x: (prims.sinh.bind(x) / x, prims.cosh.bind(x) / x),),
}


def _multi_rule(name: str, i: int, arg: Any) -> Callable:
    rules = MULTI_DERIVATIVES.get(name, ())
    rule = rules[i] if i < len(rules) else None
    if rule is None or getattr(arg, "dtype", None) is not None and arg.dtype.kind == "c":
        raise _no_rule(name, i)
    return rule


def _jvp_multi(tangents: Any, ys: Any, *args: Any, name: str) -> Any:
    out = None
    for i, t in enumerate(tangents):
        if t is None:
            continue
        terms = [
            like_output(t * d, y) for d, y in zip(_multi_rule(name, i, args[i])(ys, *args), ys)
        ]
        out = terms if out is None else [a + b for a, b in zip(out, terms)]
    return tuple(out)


def _vjp_multi(y_bars: Any, ys: Any, *args: Any, wanted: Any, name: str) -> tuple:
    bars = []
    for i, (a, want) in enumerate(zip(args, wanted)):
        if not want:
            bars.append(None)
            continue
        total = None
        for y_bar, d in zip(y_bars, _multi_rule(name, i, a)(ys, *args)):
            if y_bar is not None:
                total = y_bar * d if total is None else total + y_bar * d
        bars.append(None if total is None else unbroadcast(total, a))
    return tuple(bars)


scipy_ufunc_p = defop(
    "scipy_ufunc",
    _impl,
    jvp=_jvp,
    vjp=_vjp,
    family=FAMILY,
    doc="A ``scipy.special`` ufunc named by ``name`` (NOTE [the remaining SciPy ufuncs]).",
)

scipy_ufunc_multi_p = defop(
    "scipy_ufunc_multi",
    lambda xp, *args, name: tuple(_impl(xp, *args, name=name)),
    jvp=_jvp_multi,
    vjp=_vjp_multi,
    multiple_results=True,
    doc="A ``scipy.special`` ufunc with several outputs, named by ``name``.",
)
