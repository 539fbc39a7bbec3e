"""Special functions: the elementwise ops of ``scipy.special`` and NumPy's less common
elementwise math (``logaddexp``, ``hypot``, ``sinc``).

Every op named after a ``scipy.special`` function evaluates with ``scipy.special``
(``cupyx.scipy.special`` for CuPy arrays), imported on first use: SciPy is an optional
dependency (the ``[scipy]`` extra), and a clear :class:`ImportError` says how to install
it.  ``expit`` (without SciPy), ``logaddexp``, ``hypot`` and ``sinc`` need NumPy only.
Derivatives come from the known formulas, written with these primitives so that every
order works; see NOTE [special parameter derivatives] for the arguments without one.

Derivative conventions follow JAX: ``xlogy(0, y)`` is 0 (NaN for a NaN ``y``, as in SciPy
and JAX), with derivative ``log(y)`` in
``x`` and ``x / y`` in ``y``; ``logaddexp``'s derivative in ``x`` is ``expit(x - y)``
(1/2 each at ties, and where both inputs are the same infinity); ``hypot``'s derivative at
the origin is 0.
"""

from __future__ import annotations

import math

import numpy

from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.primitive import defop
from ftransforms.ops import elementwise as _ew
from ftransforms.ops._util import like_output, unbroadcast
from ftransforms.ops.elementwise import defbinary, defnondiff, defunary

_SCIPY_OPS = "erf, gammaln, gammainc, the Bessel functions and the others from SciPy"


def scipy_special(xp):
    """``scipy.special`` for NumPy arrays, ``cupyx.scipy.special`` for CuPy arrays."""
    if xp.__name__.split(".")[0] == "cupy":
        import cupyx.scipy.special as sp  # noqa: PLC0415  (optional, imported on first use)

        return sp
    try:
        import scipy.special as sp  # noqa: PLC0415  (optional, imported on first use)
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError(
            f"ftransforms.scipy.special: {_SCIPY_OPS} are evaluated with scipy.special, "
            f"and SciPy is not installed; install it with `pip install 'ftransforms[scipy]'` "
            f"(or `pip install scipy`)."
        ) from err
    wrap = getattr(xp, "wrap_module", None)  # a NumPy-backed test backend (strict_backend)
    return sp if wrap is None else wrap(sp)


def _float_dtype(x):
    dt = getattr(x, "dtype", None)
    dt = numpy.result_type(x) if dt is None else numpy.dtype(dt)
    return dt if dt.kind in "fc" else numpy.dtype(numpy.float64)


def _safe_div(a, b):
    """``a / b``, and 0 where ``b == 0``."""
    zero = b == 0
    return _ew.select_p.bind(zero, 0.0, a / _ew.select_p.bind(zero, 1.0, b))


# -- logistic ---------------------------------------------------------------------------


_SCIPY: list = []  # [scipy.special or None], filled on first use


def _scipy_if_present():
    if not _SCIPY:
        try:
            import scipy.special as sp  # noqa: PLC0415  (optional)
        except ImportError:  # pragma: no cover - depends on the environment
            sp = None
        _SCIPY.append(sp)
    return _SCIPY[0]


def _expit_impl(xp, x):
    # SciPy's (or CuPy's) expit when present, so that values match it exactly; else a
    # formula that cannot overflow.
    sp = _scipy_if_present() if xp is numpy else None
    if xp.__name__.split(".")[0] == "cupy":
        sp = scipy_special(xp)
    if sp is not None:
        return sp.expit(x)
    e = xp.exp(-xp.abs(x))  # in (0, 1]
    return xp.where(x >= 0, 1 / (1 + e), e / (1 + e))


_EXPIT_DOC = """``ftransforms.scipy.special.expit(x)``: the logistic sigmoid ``1 / (1 + exp(-x))``,
elementwise, as ``scipy.special.expit`` (SciPy's values where SciPy is installed, an overflow-free
formula without it); its derivative is ``expit(x) * (1 - expit(x))``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import expit
    >>> expit(np.array([0.0, 100.0])).tolist()
    [0.5, 1.0]
    >>> float(ft.grad(expit)(0.0))
    0.25
"""
expit_p = defunary("expit", _expit_impl, lambda y, x: y * (1 - y), doc=_EXPIT_DOC)

# -- error function and gamma family (scipy.special) -------------------------------------

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_PI_OVER_TWO = math.sqrt(math.pi) / 2.0

_ERF_DOC = """``ftransforms.scipy.special.erf(x)``: the error function, elementwise, as
``scipy.special.erf`` (evaluated with SciPy); its derivative is ``2 / sqrt(pi) * exp(-x**2)``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import erf
    >>> np.round(erf(np.array([0.0, 1.0])), 6).tolist()
    [0.0, 0.842701]
    >>> round(float(ft.grad(erf)(0.0)), 6)  # 2 / sqrt(pi)
    1.128379
"""
erf_p = defunary(
    "erf",
    lambda xp, x: scipy_special(xp).erf(x),
    lambda y, x: _TWO_OVER_SQRT_PI * _ew.exp_p.bind(-(x * x)),
    doc=_ERF_DOC,
)

_ERFC_DOC = """``ftransforms.scipy.special.erfc(x)``: the complementary error function
``1 - erf(x)``, accurate for large ``x``, elementwise, as ``scipy.special.erfc`` (evaluated with
SciPy); its derivative is ``-2 / sqrt(pi) * exp(-x**2)``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import erfc
    >>> float(erfc(0.0))
    1.0
    >>> print(f"{float(erfc(10.0)):.4e}")  # 1 - erf(10.0) would be 0.0
    2.0885e-45
    >>> round(float(ft.grad(erfc)(0.0)), 6)  # -2 / sqrt(pi)
    -1.128379
"""
erfc_p = defunary(
    "erfc",
    lambda xp, x: scipy_special(xp).erfc(x),
    lambda y, x: -_TWO_OVER_SQRT_PI * _ew.exp_p.bind(-(x * x)),
    doc=_ERFC_DOC,
)

_ERFINV_DOC = """``ftransforms.scipy.special.erfinv(y)``: the inverse of ``erf`` on ``(-1, 1)``
(``-inf``/``inf`` at -1/1), elementwise, as ``scipy.special.erfinv`` (evaluated with SciPy); its
derivative is ``sqrt(pi) / 2 * exp(erfinv(y)**2)``.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import erf, erfinv
    >>> round(float(erfinv(erf(0.5))), 6)
    0.5
    >>> round(float(ft.grad(erfinv)(0.0)), 6)  # sqrt(pi) / 2
    0.886227
"""
erfinv_p = defunary(
    "erfinv",
    lambda xp, x: scipy_special(xp).erfinv(x),
    lambda y, x: _SQRT_PI_OVER_TWO * _ew.exp_p.bind(y * y),
    doc=_ERFINV_DOC,
)

_GAMMALN_DOC = """``ftransforms.scipy.special.gammaln(x)``: ``log|gamma(x)|``, elementwise, as
``scipy.special.gammaln`` (evaluated with SciPy); its derivative is ``digamma(x)``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import gammaln
    >>> np.round(gammaln(np.array([1.0, 5.0])), 6).tolist()  # log(0!), log(4!)
    [0.0, 3.178054]
    >>> round(float(ft.grad(gammaln)(1.0)), 6)  # digamma(1) = -Euler's gamma
    -0.577216
"""
gammaln_p = defunary(
    "gammaln",
    lambda xp, x: scipy_special(xp).gammaln(x),
    lambda y, x: digamma_p.bind(x),
    doc=_GAMMALN_DOC,
)

_DIGAMMA_DOC = """``ftransforms.scipy.special.digamma(x)``: the logarithmic derivative of gamma,
``gamma'(x) / gamma(x)`` (also ``ftransforms.scipy.special.psi``, the same operator), elementwise,
as ``scipy.special.digamma`` (evaluated with SciPy); its derivative is ``polygamma(1, x)``.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import digamma
    >>> round(float(digamma(1.0)), 6)  # -Euler's gamma
    -0.577216
    >>> round(float(ft.grad(digamma)(1.0)), 6)  # pi**2 / 6
    1.644934
"""


def _digamma_d(y, x):
    """``polygamma(1, x)``, which SciPy has for real ``x`` only (a complex one raised
    NumPy's bare ufunc TypeError from inside the rule)."""
    if numpy.dtype(getattr(x, "dtype", numpy.float64)).kind == "c":
        raise UnsupportedOperationError(
            "digamma(z): the derivative at a complex z (trigamma) is not implemented: "
            "scipy.special.polygamma takes real arguments only; differentiate in real "
            "arguments, or give it rules with ftransforms.custom_jvp"
        )
    return polygamma_p.bind(1, x)


digamma_p = defunary(
    "digamma",
    lambda xp, x: scipy_special(xp).digamma(x),
    _digamma_d,
    doc=_DIGAMMA_DOC,
)


def _polygamma_impl(xp, n, x):
    # an array n: cupyx's polygamma calls cupy.where(n == 0, ...), which needs one
    out = scipy_special(xp).polygamma(xp.asarray(n), x)
    return xp.asarray(out).astype(_float_dtype(x), copy=False)


polygamma_p = defop(
    "polygamma",
    _polygamma_impl,
    jvp=(None, lambda x_dot, y, n, x: like_output(x_dot * polygamma_p.bind(n + 1, x), y)),
    vjp=(None, lambda y_bar, y, n, x: unbroadcast(y_bar * polygamma_p.bind(n + 1, x), x)),
    family=_ew.FAMILY,
    doc="``polygamma(n, x)``: the n-th derivative of digamma (``n`` integer, not differentiated).",
)

# -- normal distribution, incomplete gamma and beta -----------------------------------------
#
# NOTE [special parameter derivatives]: a derivative that has no closed form in terms of
# the primitives here (the Bessel functions in their order
# ``v``, hyp2f1 in its parameters for |z| > 0.9, and the second derivatives of
# gammainc/gammaincc in ``a``, of betainc in ``a`` and ``b``, of hyp1f1 in ``a`` and ``b``
# and of hyp2f1 in ``a``, ``b``, ``c``, whose first derivatives are computed numerically:
# NOTE [gammainc in a], NOTE [betainc in a and b], NOTE [hyp1f1 in its parameters], NOTE
# [hyp2f1 in its parameters]) is refused with an
# UnsupportedOperationError when it is asked for (a tangent or cotangent reaches that
# argument), never silently returned as 0.  Integer orders (``jn``, ``yn``, ``expn``,
# ``polygamma``'s ``n``) are not differentiable at all.

_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_SQRT_2PI = math.sqrt(2.0 * math.pi)


def _refuse(call: str, arg: str, fix: str):
    """A JVP/VJP rule that raises: ``call`` has no derivative in ``arg``."""

    def rule(*args, **params):
        raise UnsupportedOperationError(
            f"{call}: the derivative with respect to {arg} is not implemented (see NOTE "
            f"[special parameter derivatives] in ftransforms/ops/special.py); {fix}"
        )

    return rule


def _hold(arg: str) -> str:
    return (
        f"hold {arg} fixed (a constant, or ftransforms.numpy.stop_gradient({arg})) and "
        f"differentiate in the other arguments"
    )


def scipy_function(xp, name: str):
    """``scipy.special.<name>``, or a clear error where the backend's module lacks it
    (``cupyx.scipy.special`` has fewer functions than SciPy)."""
    sp = scipy_special(xp)
    if name.startswith("_"):  # the private ufuncs behind spherical_jn & co. and lambertw
        fn = getattr(getattr(sp, "_ufuncs", None), name, None)
    else:
        fn = getattr(sp, name, None)
    if fn is None:
        raise UnsupportedOperationError(
            f"ftransforms.scipy.special.{name}: {sp.__name__} has no {name}, so it cannot be "
            f"evaluated on these arrays; move them to the host (NumPy) for this call."
        )
    return fn


def _keep_float32(out, args):
    """SciPy computes integer-order functions (``yn(int, float32)``) in float64: the result
    keeps the float32 of the floating-point inputs, as in JAX (and as ``polygamma`` does)."""
    dt = getattr(out, "dtype", None)
    if dt is None or dt != numpy.float64:
        return out
    floats = [
        a.dtype for a in args if getattr(a, "dtype", None) is not None and a.dtype.kind == "f"
    ]
    if floats and all(f == numpy.float32 for f in floats):
        return out.astype(numpy.float32)
    return out


def _sp_call(name: str):
    """``impl(xp, *args)``: ``scipy.special.<name>`` (or ``cupyx.scipy.special.<name>``)."""

    def impl(xp, *args):
        return _keep_float32(scipy_function(xp, name)(*args), args)

    impl.__name__ = f"{name}_impl"
    return impl


def _sp_unary(name: str, deriv, doc: str | None = None):
    return defunary(name, _sp_call(name), deriv, doc=doc)


def _binary_op(name: str, impl, derivs, doc: str | None = None):
    """A two- or three-input elementwise op from ``derivs[i](out, *args) -> d out/d arg_i``
    (a rule from :func:`_refuse` for an argument without derivative, ``None`` for an
    integer argument)."""

    def jvp_rule(d):
        if d is None or getattr(d, "refuses", False):
            return d
        return lambda t, out, *args: like_output(t * d(out, *args), out)

    def vjp_rule(i, d):
        if d is None or getattr(d, "refuses", False):
            return d
        return lambda y_bar, y, *args: unbroadcast(y_bar * d(y, *args), args[i])

    return defop(
        name,
        impl,
        jvp=tuple(jvp_rule(d) for d in derivs),
        vjp=tuple(vjp_rule(i, d) for i, d in enumerate(derivs)),
        family=_ew.FAMILY,
        doc=doc,
    )


def _refusing(call: str, arg: str):
    rule = _refuse(call, arg, _hold(arg))
    rule.refuses = True
    return rule


_NDTR_DOC = """``ftransforms.scipy.special.ndtr(x)``: the standard normal CDF, elementwise, as
``scipy.special.ndtr`` (evaluated with SciPy); its derivative is the normal density.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import ndtr
    >>> float(ndtr(0.0))
    0.5
    >>> round(float(ft.grad(ndtr)(0.0)), 6)  # 1 / sqrt(2 pi)
    0.398942
"""
ndtr_p = _sp_unary(
    "ndtr",
    lambda y, x: _INV_SQRT_2PI * _ew.exp_p.bind(-0.5 * (x * x)),
    doc=_NDTR_DOC,
)

_NDTRI_DOC = """``ftransforms.scipy.special.ndtri(p)``: the inverse of ``ndtr``, the standard normal
quantile, elementwise, as ``scipy.special.ndtri`` (evaluated with SciPy); its derivative is
``sqrt(2 pi) * exp(ndtri(p)**2 / 2)``.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import ndtri
    >>> round(float(ndtri(0.975)), 6)
    1.959964
    >>> round(float(ft.grad(ndtri)(0.5)), 6)  # sqrt(2 pi)
    2.506628
"""
ndtri_p = _sp_unary(
    "ndtri",
    lambda y, x: _SQRT_2PI * _ew.exp_p.bind(0.5 * (y * y)),
    doc=_NDTRI_DOC,
)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)

_LOG_NDTR_DOC = """``ftransforms.scipy.special.log_ndtr(x)``: ``log(ndtr(x))``, accurate in both
tails, elementwise, as ``scipy.special.log_ndtr`` (evaluated with SciPy); its derivative is
``pdf(x) / ndtr(x)``, also accurate far in the left tail.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import log_ndtr
    >>> round(float(log_ndtr(-40.0)), 6)  # log(ndtr(-40.0)) would be -inf
    -804.608442
    >>> round(float(ft.grad(log_ndtr)(0.0)), 6)  # sqrt(2 / pi)
    0.797885
"""


def _log_ndtr_d(y, x):
    # pdf(x) / ndtr(x).  Left of 0 as sqrt(2 / pi) / erfcx(-x / sqrt(2)): no 0/0 and no
    # cancellation far in the left tail (where exp(-x**2/2 - log_ndtr(x)) loses digits).
    # Right of 0 as exp(-x**2/2 - log_ndtr(x)) / sqrt(2 pi): erfcx(-x / sqrt(2)) overflows
    # past x ~ 38, and 1 / inf differentiates to -(-inf) / inf**2 = NaN (the second
    # derivative at 40 was NaN, not -0).  The erfcx side sees 0 there, so neither side's
    # derivative is inf * 0 under the select.
    left = x < 0
    x_left = _ew.select_p.bind(left, x, 0.0)
    from_erfcx = _SQRT_2_OVER_PI / erfcx_p.bind(x_left * (-1.0 / math.sqrt(2.0)))
    from_exp = _INV_SQRT_2PI * _ew.exp_p.bind(-0.5 * (x * x) - y)
    return _ew.select_p.bind(left, from_erfcx, from_exp)


log_ndtr_p = _sp_unary(
    "log_ndtr",
    _log_ndtr_d,
    doc=_LOG_NDTR_DOC,
)


def _gammainc_dx(out, a, x):
    # x**(a-1) e**-x / Gamma(a), through logs (xlogy: 0 at a == 1, x == 0)
    return _ew.exp_p.bind(xlogy_p.bind(a - 1, x) - x - gammaln_p.bind(a))


# NOTE [gammainc in a]: d/da P(a, x) has no closed form.  ``gammainc_da`` evaluates it in
# forward mode: the value and its a-derivative are carried together through the power
# series of P (for x <= a + 1) and through the continued fraction of Q = 1 - P (modified
# Lentz, for x > a + 1), each iterated until every element has converged (at most
# _GAMMAINC_MAX_TERMS terms, enough up to a = _GAMMAINC_LARGE_A; above it, where 2000 terms
# gave a wrong derivative (0.92 of it at a = 1e6), a five-point difference of SciPy's
# gammainc in a, whose own large-a expansion is accurate).  Its own derivative in x is
# closed (d/dx of x**(a-1) e**-x / Gamma(a) in a); the second derivative in a is refused.

_GAMMAINC_MAX_TERMS = 2000
#: Above this ``a`` the series and the fraction need more terms than the cap: differences.
_GAMMAINC_LARGE_A = 1e4
_GAMMAINC_CHECK_EVERY = 8
_TINY = 1e-300


def _converged(xp, step, k):
    return k % _GAMMAINC_CHECK_EVERY == 0 and not bool(xp.any(step))


def _gammainc_da_series(xp, sp, a, x):
    """dP/da from P = exp(L) * sum_n c_n, L = a log x - x - lgamma(a + 1),
    c_0 = 1, c_n = c_{n-1} x / (a + n)."""
    c = xp.ones_like(x)
    dc = xp.zeros_like(x)
    total, dtotal = c, dc
    for n in range(1, _GAMMAINC_MAX_TERMS + 1):
        r = x / (a + n)
        dc = dc * r - c * r / (a + n)
        c = c * r
        total = total + c
        dtotal = dtotal + dc
        if _converged(xp, xp.abs(c) > 1e-17 * xp.abs(total), n):
            break
    log_x = xp.log(x)
    lead = xp.exp(a * log_x - x - sp.gammaln(a + 1))
    return lead * (total * (log_x - sp.digamma(a + 1)) + dtotal)


def _gammainc_da_fraction(xp, sp, a, x):
    """-dQ/da from Q = exp(L) * h, L = a log x - x - lgamma(a), h the continued fraction
    1 / (x + 1 - a - 1 (1 - a) / (x + 3 - a - ...)), each quantity with its a-derivative."""
    b, db = x + 1 - a, -xp.ones_like(x)
    c, dc = xp.full_like(x, 1 / _TINY), xp.zeros_like(x)
    d, dd = 1 / b, -db / (b * b)
    h, dh = d, dd
    for i in range(1, _GAMMAINC_MAX_TERMS + 1):
        an, dan = -i * (i - a), float(i)
        b = b + 2
        # d <- 1 / (an d + b), c <- b + an / c
        den = an * d + b
        dden = dan * d + an * dd + db
        den = xp.where(xp.abs(den) < _TINY, _TINY, den)
        d, dd = 1 / den, -dden / (den * den)
        c, dc = b + an / c, db + dan / c - an * dc / (c * c)
        c = xp.where(xp.abs(c) < _TINY, _TINY, c)
        delta, ddelta = c * d, dc * d + c * dd
        h, dh = h * delta, dh * delta + h * ddelta
        if _converged(xp, (xp.abs(delta - 1) > 1e-15) | (xp.abs(ddelta) > 1e-15), i):
            break
    log_x = xp.log(x)
    lead = xp.exp(a * log_x - x - sp.gammaln(a))
    return -lead * (h * (log_x - sp.digamma(a)) + dh)


def _gammainc_da_differences(xp, sp, a, x):
    """dP/da for large ``a``: a five-point difference of SciPy's ``gammainc`` (Temme's
    expansion there) with a step of ``1e-3 sqrt(a)``, differencing whichever of ``P`` and
    ``1 - P`` is the smaller."""
    step = 1e-3 * xp.sqrt(a)
    upper = x > a

    def p(s):
        return xp.where(upper, -sp.gammaincc(s, x), sp.gammainc(s, x))

    return (p(a - 2 * step) - 8 * p(a - step) + 8 * p(a + step) - p(a + 2 * step)) / (12 * step)


def _gammainc_da_impl(xp, a, x):
    sp = scipy_special(xp)
    dt = numpy.result_type(_float_dtype(a), _float_dtype(x))
    a, x = xp.broadcast_arrays(
        xp.asarray(a, dtype=numpy.float64), xp.asarray(x, dtype=numpy.float64)
    )
    valid = (a > 0) & (x > 0) & (x < numpy.inf)  # (x = inf: P is 1 for every a, dP/da 0)
    large = valid & (a > _GAMMAINC_LARGE_A)
    valid = valid & ~large
    series = valid & (x <= a + 1)
    one = xp.ones_like(x)
    with numpy.errstate(all="ignore"):
        out = xp.where(
            series, _gammainc_da_series(xp, sp, xp.where(series, a, 1), xp.where(series, x, 1)), 0
        )
        frac = valid & ~series
        out = xp.where(
            frac,
            _gammainc_da_fraction(xp, sp, xp.where(frac, a, 1), xp.where(frac, x, 3 * one)),
            out,
        )
        if bool(xp.any(large)):
            safe_a = xp.where(large, a, 2 * _GAMMAINC_LARGE_A)
            out = xp.where(large, _gammainc_da_differences(xp, sp, safe_a, x), out)
    bad = (a <= 0) | (x < 0) | xp.isnan(a) | xp.isnan(x)
    out = xp.where(bad, xp.nan, out)  # x == 0: P is 0 for every a, so is dP/da
    return _keep_float32(xp.asarray(out).astype(dt), (a.astype(dt), x.astype(dt)))


def _gammainc_da_dx(out, a, x):
    # d/da [x**(a-1) e**-x / Gamma(a)] = that * (log x - digamma(a))
    return _gammainc_dx(None, a, x) * (_ew.log_p.bind(x) - digamma_p.bind(a))


_refuse_twice = _refuse(
    "gammainc(a, x)",
    "a to second order",
    "differentiate once in a (the mixed derivative in a and x works)",
)
_refuse_twice.refuses = True

gammainc_da_p = _binary_op(
    "gammainc_da",
    _gammainc_da_impl,
    (
        _refuse_twice,
        _gammainc_da_dx,
    ),
    doc="``d/da gammainc(a, x)``; see NOTE [gammainc in a].",
)

_GAMMAINC_DOC = """``ftransforms.scipy.special.gammainc(a, x)``: the regularized lower incomplete
gamma function ``P(a, x)``, elementwise with broadcasting, as ``scipy.special.gammainc`` (evaluated
with SciPy); its derivative in ``x`` is ``x**(a-1) exp(-x) / gamma(a)``; in ``a`` it is computed
numerically (series or continued fraction carried in forward mode), and a second derivative in ``a``
raises :class:`~ftransforms.errors.UnsupportedOperationError`.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import gammainc
    >>> round(float(gammainc(1.0, 1.0)), 6)  # 1 - exp(-1)
    0.632121
    >>> round(float(ft.grad(gammainc, argnums=1)(1.0, 1.0)), 6)  # exp(-1)
    0.367879
"""
gammainc_p = _binary_op(
    "gammainc",
    _sp_call("gammainc"),
    (lambda out, a, x: gammainc_da_p.bind(a, x), _gammainc_dx),
    doc=_GAMMAINC_DOC,
)

_GAMMAINCC_DOC = """``ftransforms.scipy.special.gammaincc(a, x)``: the regularized upper incomplete
gamma function ``Q(a, x) = 1 - P(a, x)``, elementwise with broadcasting, as
``scipy.special.gammaincc`` (evaluated with SciPy); its derivatives are those of ``gammainc``
negated (numerical in ``a``, to first order only).

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import gammaincc
    >>> round(float(gammaincc(1.0, 1.0)), 6)  # exp(-1)
    0.367879
    >>> round(float(ft.grad(gammaincc, argnums=1)(1.0, 1.0)), 6)  # -exp(-1)
    -0.367879
"""
gammaincc_p = _binary_op(
    "gammaincc",
    _sp_call("gammaincc"),
    (lambda out, a, x: -gammainc_da_p.bind(a, x), lambda out, a, x: -_gammainc_dx(out, a, x)),
    doc=_GAMMAINCC_DOC,
)


def _betaln_da(out, a, b):
    return digamma_p.bind(a) - digamma_p.bind(a + b)


_BETALN_DOC = """``ftransforms.scipy.special.betaln(a, b)``: ``log|beta(a, b)|``, without overflow,
elementwise with broadcasting, as ``scipy.special.betaln`` (evaluated with SciPy); its partial
derivative in ``a`` is ``digamma(a) - digamma(a + b)``, and symmetrically in ``b``.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import betaln
    >>> round(float(betaln(1.0, 2.0)), 6)  # log(1 / 2)
    -0.693147
    >>> round(float(ft.grad(betaln, argnums=1)(1.0, 2.0)), 6)  # d/db -log(b)
    -0.5
"""
betaln_p = _binary_op(
    "betaln",
    _sp_call("betaln"),
    (_betaln_da, lambda out, a, b: _betaln_da(out, b, a)),
    doc=_BETALN_DOC,
)

_BETA_DOC = """``ftransforms.scipy.special.beta(a, b)``: the beta function
``gamma(a) gamma(b) / gamma(a + b)``, elementwise with broadcasting, as ``scipy.special.beta``
(evaluated with SciPy); its partial derivative in ``a`` is
``beta(a, b) * (digamma(a) - digamma(a + b))``, and symmetrically in ``b``.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import beta
    >>> round(float(beta(2.0, 3.0)), 6)  # 1 / 12
    0.083333
    >>> round(float(ft.grad(beta, argnums=1)(1.0, 2.0)), 6)  # d/db 1 / b
    -0.25
"""
beta_p = _binary_op(
    "beta",
    _sp_call("beta"),
    (
        lambda out, a, b: out * _betaln_da(out, a, b),
        lambda out, a, b: out * _betaln_da(out, b, a),
    ),
    doc=_BETA_DOC,
)


def _betainc_dx(out, a, b, x):
    # x**(a-1) (1-x)**(b-1) / B(a, b), through logs
    return _ew.exp_p.bind(xlogy_p.bind(a - 1, x) + xlog1py_p.bind(b - 1, -x) - betaln_p.bind(a, b))


# NOTE [betainc in a and b]: d/da and d/db of I_x(a, b) have no closed form.  They are
# evaluated in forward mode, as NOTE [gammainc in a] does: I_x(a, b) = front * h with
# front = x**a (1-x)**b / (a B(a, b)) and h the continued fraction
# 1 / (1 + d1 / (1 + d2 / (1 + ...))), d_2m = m (b-m) x / ((a+2m-1)(a+2m)),
# d_2m+1 = -(a+m)(a+b+m) x / ((a+2m)(a+2m+1)) (modified Lentz), each quantity carried with
# its a- and b-derivatives (the derivatives of Boik and Robison-Cox, 1998).  The fraction
# converges fast for x < (a+1)/(a+b+2); above it I_x(a, b) = 1 - I_(1-x)(b, a).  Above
# a, b = _BETAINC_LARGE (the fraction's derivative loses digits to cancellation, 4e-6 at
# a = 1e6) a five-point difference of SciPy's betainc (or betaincc, the smaller of the two),
# with a step of 1e-3 min(p, sqrt(p)) in the parameter p.  Checked against mpmath to 4e-13
# (a, b from 0.01 to 3000).  Their derivative in x is closed (d/da and d/db of the beta
# density); a second derivative in a or b is refused.

#: Above this ``a`` or ``b`` the derivative is a difference of SciPy's betainc.
_BETAINC_LARGE = 1e4


def _betainc_fraction(xp, a, b, x):
    """The continued fraction ``h`` of I_x(a, b) and its derivatives in a and b."""

    def lentz_step(aa, daa, d, dd, c, dc):
        # d <- 1 / (1 + aa d), c <- 1 + aa / c, with the derivatives (tuples over a, b)
        t = 1 + aa * d
        dt = tuple(daa[i] * d + aa * dd[i] for i in range(2))
        t = xp.where(xp.abs(t) < _TINY, _TINY, t)
        d, dd = 1 / t, tuple(-v / (t * t) for v in dt)
        dc = tuple(daa[i] / c - aa * dc[i] / (c * c) for i in range(2))
        c = 1 + aa / c
        c = xp.where(xp.abs(c) < _TINY, _TINY, c)
        return d, dd, c, dc

    zero = xp.zeros_like(x)
    qab, qap = a + b, a + 1.0
    d = 1 - qab * x / qap
    dd = (-x / qap + qab * x / (qap * qap), -x / qap)
    d = xp.where(xp.abs(d) < _TINY, _TINY, d)
    dd, d = tuple(-v / (d * d) for v in dd), 1 / d
    c, dc = xp.ones_like(x), (zero, zero)
    h, dh = d, dd
    for m in range(1, _GAMMAINC_MAX_TERMS + 1):
        m2 = 2 * m
        den = (a + m2 - 1) * (a + m2)
        num = m * (b - m) * x
        even = (num / den, (-num * (2 * a + 2 * m2 - 1) / (den * den), m * x / den))
        den = (a + m2) * (a + m2 + 1)
        num = -(a + m) * (qab + m) * x
        odd = (
            num / den,
            (
                -(qab + a + 2 * m) * x / den - num * (2 * a + 2 * m2 + 1) / (den * den),
                -(a + m) * x / den,
            ),
        )
        for aa, daa in (even, odd):
            d, dd, c, dc = lentz_step(aa, daa, d, dd, c, dc)
            delta, ddelta = c * d, tuple(dc[i] * d + c * dd[i] for i in range(2))
            h, dh = h * delta, tuple(dh[i] * delta + h * ddelta[i] for i in range(2))
        step = xp.abs(delta - 1) > 1e-15
        step = step | (xp.abs(ddelta[0]) > 1e-15) | (xp.abs(ddelta[1]) > 1e-15)
        if _converged(xp, step, m):
            break
    return h, dh


def _betainc_dab_fraction(xp, sp, a, b, x):
    """(dI/da, dI/db) from the continued fraction, for x < (a+1)/(a+b+2)."""
    h, (ha, hb) = _betainc_fraction(xp, a, b, x)
    lx, l1x = xp.log(x), xp.log1p(-x)
    front = xp.exp(a * lx + b * l1x - sp.betaln(a, b)) / a
    value = front * h
    pab = sp.digamma(a + b)
    da = value * (lx - sp.digamma(a) + pab - 1 / a) + front * ha
    db = value * (l1x - sp.digamma(b) + pab) + front * hb
    return da, db


def _betainc_dab_differences(xp, sp, a, b, x):
    """(dI/da, dI/db) for large a or b: five-point differences of SciPy's betainc."""
    upper = sp.betainc(a, b, x) > 0.5

    def f(aa, bb):
        return xp.where(upper, -sp.betaincc(aa, bb, x), sp.betainc(aa, bb, x))

    def diff(p, g):
        step = 1e-3 * xp.minimum(p, xp.sqrt(p))
        return (g(-2 * step) - 8 * g(-step) + 8 * g(step) - g(2 * step)) / (12 * step)

    return diff(a, lambda s: f(a + s, b)), diff(b, lambda s: f(a, b + s))


def _betainc_dab(xp, a, b, x):
    """``(dI/da, dI/db)`` of ``I_x(a, b)`` in float64; see NOTE [betainc in a and b]."""
    sp = scipy_special(xp)
    a, b, x = xp.broadcast_arrays(*(xp.asarray(v, dtype=numpy.float64) for v in (a, b, x)))
    valid = (a > 0) & (b > 0) & (x > 0) & (x < 1)
    large = valid & ((a > _BETAINC_LARGE) | (b > _BETAINC_LARGE))
    frac = valid & ~large
    flip = x > (a + 1) / (a + b + 2)
    with numpy.errstate(all="ignore"):
        fa, fb, fx = (
            xp.where(frac, xp.where(flip, b, a), 1.0),
            xp.where(frac, xp.where(flip, a, b), 1.0),
            xp.where(frac, xp.where(flip, 1 - x, x), 0.5),
        )
        da, db = _betainc_dab_fraction(xp, sp, fa, fb, fx)
        da, db = xp.where(flip, -db, da), xp.where(flip, -da, db)
        da, db = xp.where(frac, da, 0.0), xp.where(frac, db, 0.0)
        if bool(xp.any(large)):
            la, lb = (xp.where(large, v, 2 * _BETAINC_LARGE) for v in (a, b))
            ga, gb = _betainc_dab_differences(xp, sp, la, lb, xp.where(large, x, 0.5))
            da, db = xp.where(large, ga, da), xp.where(large, gb, db)
    # x == 0 or 1: I is 0 or 1 for every a, b, so are its derivatives
    bad = (a <= 0) | (b <= 0) | (x < 0) | (x > 1) | xp.isnan(a) | xp.isnan(b) | xp.isnan(x)
    return xp.where(bad, xp.nan, da), xp.where(bad, xp.nan, db)


def _betainc_d_impl(which: int):
    def impl(xp, a, b, x):
        dt = numpy.result_type(_float_dtype(a), _float_dtype(b), _float_dtype(x))
        out = xp.asarray(_betainc_dab(xp, a, b, x)[which]).astype(dt)
        return _keep_float32(out, tuple(xp.asarray(v) for v in (a, b, x)))

    impl.__name__ = f"betainc_d{'ab'[which]}_impl"
    return impl


def _betainc_refuse_twice(arg: str):
    rule = _refuse(
        "betainc(a, b, x)",
        f"{arg} to second order",
        "differentiate once in a and b (the mixed derivative with x works)",
    )
    rule.refuses = True
    return rule


def _betainc_da_dx(out, a, b, x):
    # d/da of the beta density: density * (log x - digamma(a) + digamma(a + b))
    return _betainc_dx(None, a, b, x) * (
        _ew.log_p.bind(x) - digamma_p.bind(a) + digamma_p.bind(a + b)
    )


def _betainc_db_dx(out, a, b, x):
    return _betainc_dx(None, a, b, x) * (
        _ew.log1p_p.bind(-x) - digamma_p.bind(b) + digamma_p.bind(a + b)
    )


betainc_da_p = _binary_op(
    "betainc_da",
    _betainc_d_impl(0),
    (_betainc_refuse_twice("a"), _betainc_refuse_twice("b"), _betainc_da_dx),
    doc="``d/da betainc(a, b, x)``; see NOTE [betainc in a and b].",
)
betainc_db_p = _binary_op(
    "betainc_db",
    _betainc_d_impl(1),
    (_betainc_refuse_twice("a"), _betainc_refuse_twice("b"), _betainc_db_dx),
    doc="``d/db betainc(a, b, x)``; see NOTE [betainc in a and b].",
)


_BETAINC_DOC = """``ftransforms.scipy.special.betainc(a, b, x)``: the regularized incomplete beta
function ``I_x(a, b)``, elementwise with broadcasting, as ``scipy.special.betainc`` (evaluated with
SciPy); its derivative in ``x`` is the beta density ``x**(a-1) (1-x)**(b-1) / beta(a, b)``; in
``a`` and ``b`` it is computed numerically (the continued fraction carried in forward mode), and a
second derivative in ``a`` or ``b`` raises :class:`~ftransforms.errors.UnsupportedOperationError`.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import betainc
    >>> round(float(betainc(2.0, 3.0, 0.5)), 6)
    0.6875
    >>> round(float(ft.grad(betainc, argnums=2)(2.0, 3.0, 0.5)), 6)  # 0.5 * 0.25 * 12
    1.5
    >>> round(float(ft.grad(betainc, argnums=1)(1.0, 1.0, 0.5)), 6)  # d/db 1 - 0.5**b
    0.346574
"""
betainc_p = _binary_op(
    "betainc",
    _sp_call("betainc"),
    (
        lambda out, a, b, x: betainc_da_p.bind(a, b, x),
        lambda out, a, b, x: betainc_db_p.bind(a, b, x),
        _betainc_dx,
    ),
    doc=_BETAINC_DOC,
)

# -- gamma function relatives ------------------------------------------------------------

_GAMMA_DOC = """``ftransforms.scipy.special.gamma(x)``: the gamma function (``inf`` at 0, NaN at the
negative integers, as SciPy), elementwise, as ``scipy.special.gamma`` (evaluated with SciPy); its
derivative is ``gamma(x) * digamma(x)``.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import gamma
    >>> float(gamma(5.0))  # 4!
    24.0
    >>> round(float(ft.grad(gamma)(1.0)), 6)  # digamma(1)
    -0.577216
"""
gamma_p = _sp_unary("gamma", lambda y, x: y * digamma_p.bind(x), doc=_GAMMA_DOC)

_RGAMMA_DOC = """``ftransforms.scipy.special.rgamma(x)``: ``1 / gamma(x)``, 0 at the poles of gamma
(x = 0, -1, ...), elementwise, as ``scipy.special.rgamma`` (evaluated with SciPy); its derivative is
``-rgamma(x) * digamma(x)`` (``(-1)**m m!`` at the pole ``-m``, from the reflection formula).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import rgamma
    >>> rgamma(np.array([0.0, 4.0])).tolist()
    [0.0, 0.16666666666666666]
    >>> round(float(ft.grad(rgamma)(1.0)), 6)  # -digamma(1)
    0.577216
"""


def _rgamma_d(y, x):
    # -rgamma(x) digamma(x) is 0 * inf = NaN at the poles of gamma (x = 0, -1, ...), where
    # the derivative is (-1)**m m!; left of 1/2 it is the derivative of the reflection
    # 1/gamma(x) = sin(pi x) gamma(1 - x) / pi, finite there (and at every order)
    left = x < 0.5
    xl = _ew.select_p.bind(left, x, 0.0)
    g = gamma_p.bind(1.0 - xl)
    pix = math.pi * xl
    reflected = g * (_ew.cos_p.bind(pix) - _ew.sin_p.bind(pix) * digamma_p.bind(1.0 - xl) / math.pi)
    right = -y * digamma_p.bind(_ew.select_p.bind(left, 1.0, x))
    return _ew.select_p.bind(left, reflected, right)


rgamma_p = _sp_unary("rgamma", _rgamma_d, doc=_RGAMMA_DOC)

_GAMMASGN_DOC = """``ftransforms.scipy.special.gammasgn(x)``: the sign of ``gamma(x)``, -1.0 or 1.0,
elementwise, as ``scipy.special.gammasgn`` (evaluated with SciPy); it has no derivative (``ft.grad``
gives 0 through it).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import gammasgn
    >>> gammasgn(np.array([-1.5, -0.5, 0.5])).tolist()
    [1.0, -1.0, 1.0]
    >>> float(ft.grad(gammasgn)(0.5))
    0.0
"""
gammasgn_p = defnondiff("gammasgn", _sp_call("gammasgn"), doc=_GAMMASGN_DOC)

_LOGGAMMA_DOC = """``ftransforms.scipy.special.loggamma(x)``: ``log(gamma(x))`` for real ``x > 0``
(NaN for ``x < 0``, as SciPy's real ``loggamma``), elementwise, as ``scipy.special.loggamma``
(evaluated with SciPy); its derivative is ``digamma(x)``.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import loggamma
    >>> round(float(loggamma(5.0)), 6)  # log(4!)
    3.178054
    >>> round(float(ft.grad(loggamma)(2.0)), 6)  # digamma(2) = 1 - Euler's gamma
    0.422784
"""
loggamma_p = _sp_unary("loggamma", lambda y, x: digamma_p.bind(x), doc=_LOGGAMMA_DOC)

_POCH_DOC = """``ftransforms.scipy.special.poch(z, m)``: the rising factorial
``gamma(z + m) / gamma(z)``, elementwise with broadcasting, as ``scipy.special.poch`` (evaluated
with SciPy); its partial derivatives are ``poch * (digamma(z + m) - digamma(z))`` and
``poch * digamma(z + m)``.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import poch
    >>> float(poch(3.0, 2.0))  # 3 * 4
    12.0
    >>> round(float(ft.grad(poch)(3.0, 2.0)), 6)  # d/dz z (z + 1) = 2 z + 1
    7.0
"""
poch_p = _binary_op(
    "poch",
    _sp_call("poch"),
    (
        lambda out, z, m: out * (digamma_p.bind(z + m) - digamma_p.bind(z)),
        lambda out, z, m: out * digamma_p.bind(z + m),
    ),
    doc=_POCH_DOC,
)

_BINOM_DOC = """``ftransforms.scipy.special.binom(n, k)``: the binomial coefficient for real
arguments, ``gamma(n + 1) / (gamma(k + 1) gamma(n - k + 1))``, elementwise with broadcasting, as
``scipy.special.binom`` (evaluated with SciPy); differentiable in both (through ``digamma``).

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import binom
    >>> round(float(binom(5.0, 2.0)), 6)
    10.0
    >>> round(float(ft.grad(binom)(5.0, 2.0)), 6)  # d/dn n (n - 1) / 2 = n - 1/2
    4.5
"""


def _binom_d(out, n, k, wrt_n):
    # binom = gamma(n + 1) rgamma(k + 1) rgamma(z), z = n - k + 1.  Where z is a pole of
    # gamma (0, -1, ...; binom(2, 3) = 0), out * digamma(z) is 0 * inf = NaN; there the
    # partials are out digamma(n + 1) + a rgamma'(z) and -out digamma(k + 1) - a rgamma'(z),
    # a = gamma(n + 1) rgamma(k + 1) (valid near the pole too: its higher derivatives)
    z = n - k + 1
    pole = (z <= 0) & (_ew.floor_p.bind(z) == z)
    if wrt_n:
        regular = out * (digamma_p.bind(n + 1) - digamma_p.bind(z))
    else:
        regular = out * (digamma_p.bind(z) - digamma_p.bind(k + 1))
    zp = _ew.select_p.bind(pole, z, 0.0)
    a_r = gamma_p.bind(n + 1) * rgamma_p.bind(k + 1) * _rgamma_d(rgamma_p.bind(zp), zp)
    at_pole = out * digamma_p.bind(n + 1) + a_r if wrt_n else -out * digamma_p.bind(k + 1) - a_r
    return _ew.select_p.bind(pole, at_pole, regular)


binom_p = _binary_op(
    "binom",
    _sp_call("binom"),
    (
        lambda out, n, k: _binom_d(out, n, k, True),
        lambda out, n, k: _binom_d(out, n, k, False),
    ),
    doc=_BINOM_DOC,
)


# NOTE [zeta in x]: d^k/dx^k zeta(x, q) = (-1)**k sum_n log(n + q)**k (n + q)**-x has no
# closed form; ``zeta_dx(x, q, k=k)`` sums its first _ZETA_TERMS terms and the rest by
# Euler-Maclaurin: the integral of g(t) = log(t)**k t**-x from w = N + q to infinity (closed:
# an incomplete gamma function of integer order), g(w)/2, and the Bernoulli corrections
# B_2j/(2j)! g^(2j-1)(w), where the t-derivatives of g come from those of t**-x in x:
# d^m/dt^m t**-x = (-1)**m (x)_m t**(-x-m), (x)_m the rising factorial.  Its derivatives:
# in x, k + 1; in q, -x zeta_dx(x + 1, q, k) - k zeta_dx(x + 1, q, k - 1).

_ZETA_TERMS = 12
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510)


def _poly_derivative_values(xp, x, m: int, i: int):
    """The i-th derivative in x of the rising factorial (x)_m = x (x+1) ... (x+m-1)."""
    coef = numpy.polynomial.polynomial.polyfromroots([-j for j in range(m)])  # low -> high
    coef = numpy.polynomial.polynomial.polyder(coef, i) if i else coef
    out = xp.zeros_like(x)
    for c in coef[::-1]:
        out = out * x + float(c)
    return out


def _zeta_dx_impl(xp, x, q, k=1):
    dt = numpy.result_type(_float_dtype(x), _float_dtype(q))
    x, q = xp.broadcast_arrays(
        xp.asarray(x, dtype=numpy.float64), xp.asarray(q, dtype=numpy.float64)
    )
    with numpy.errstate(all="ignore"):
        total = xp.zeros_like(x)
        for n in range(_ZETA_TERMS):
            t = q + n
            lt = xp.log(t)
            total = total + lt**k * xp.exp(-x * lt)
        w = q + _ZETA_TERMS
        lw = xp.log(w)
        # integral from w to infinity of log(t)**k t**-x dt, sigma = x - 1
        sigma = x - 1
        integral = xp.zeros_like(x)
        for j in range(k + 1):
            integral = integral + (math.factorial(k) / math.factorial(j)) * lw**j / sigma ** (
                k + 1 - j
            )
        integral = integral * xp.exp(-sigma * lw)
        total = total + integral + 0.5 * lw**k * xp.exp(-x * lw)
        # - sum_j B_2j / (2j)! g^(2j-1)(w), g^(m)(w) = (-1)**(k+m) sum_i C(k,i) (x)_m^(i)
        #   (-log w)**(k-i) w**(-x-m)
        for jj, b in enumerate(_BERNOULLI, start=1):
            m = 2 * jj - 1
            gm = xp.zeros_like(x)
            for i in range(k + 1):
                gm = gm + math.comb(k, i) * _poly_derivative_values(xp, x, m, i) * (-lw) ** (k - i)
            gm = gm * ((-1.0) ** (k + m)) * xp.exp(-(x + m) * lw)
            total = total - (b / math.factorial(2 * jj)) * gm
        out = ((-1.0) ** k) * total
        out = xp.where((q > 0) & (x != 1), out, xp.nan)
    return _keep_float32(xp.asarray(out).astype(dt), (x.astype(dt), q.astype(dt)))


def _zeta_k(x, q, k):
    return zeta_p.bind(x, q) if k == 0 else zeta_dx_p.bind(x, q, k=k)


zeta_dx_p = defbinary(
    "zeta_dx",
    _zeta_dx_impl,
    lambda t, y, x, q, k=1: t * zeta_dx_p.bind(x, q, k=k + 1),
    lambda t, y, x, q, k=1: t * (-x * zeta_dx_p.bind(x + 1, q, k=k) - k * _zeta_k(x + 1, q, k - 1)),
    ufunc=None,
    doc="``d^k/dx^k zeta(x, q)`` (k >= 1); see NOTE [zeta in x].",
)


def _zeta_dq(out, x, q):
    return -x * zeta_p.bind(x + 1, q)


zeta_p = _binary_op(
    "zeta",
    _sp_call("zeta"),
    (lambda out, x, q: zeta_dx_p.bind(x, q, k=1), _zeta_dq),
    doc="The Hurwitz zeta function ``sum((k + q) ** -x)``.",
)

# -- error function relatives ------------------------------------------------------------

_ERFCX_DOC = """``ftransforms.scipy.special.erfcx(x)``: the scaled complementary error function
``exp(x**2) * erfc(x)``, which does not underflow for large ``x``, elementwise, as
``scipy.special.erfcx`` (evaluated with SciPy); its derivative is ``2 x erfcx(x) - 2 / sqrt(pi)``.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import erfcx
    >>> round(float(erfcx(30.0)), 6)  # about 1 / (30 sqrt(pi))
    0.018796
    >>> round(float(ft.grad(erfcx)(0.0)), 6)  # -2 / sqrt(pi)
    -1.128379
"""
#: (-1)**n (2n+1)!! / 2**n: erfcx'(x) ~ -1/sqrt(pi) sum_n c_n x**(-2n-2) for large x
_ERFCX_D_SERIES = (
    1.0, -1.5, 3.75, -13.125, 59.0625, -324.84375, 2111.484375, -15836.1328125,
    134607.12890625, -1278767.724609375,
)  # fmt: skip


def _erfcx_d(y, x):
    # 2 x erfcx(x) - 2/sqrt(pi) cancels for large x (it was 0 at x = 1e10, not -5.6e-21):
    # above 20 the asymptotic series, whose tenth term is 5e-18 of the first there
    big = x > 20.0
    xb = _ew.select_p.bind(big, x, 20.0)
    r = 1.0 / (xb * xb)
    series = _ERFCX_D_SERIES[-1]
    for c in _ERFCX_D_SERIES[-2::-1]:
        series = c + r * series
    asymptotic = (-1.0 / math.sqrt(math.pi)) * r * series
    return _ew.select_p.bind(big, asymptotic, 2.0 * x * y - _TWO_OVER_SQRT_PI)


erfcx_p = _sp_unary("erfcx", _erfcx_d, doc=_ERFCX_DOC)

_ERFCINV_DOC = """``ftransforms.scipy.special.erfcinv(y)``: the inverse of ``erfc`` on ``(0, 2)``,
elementwise, as ``scipy.special.erfcinv`` (evaluated with SciPy); its derivative is
``-sqrt(pi) / 2 * exp(erfcinv(y)**2)``.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import erfc, erfcinv
    >>> round(float(erfcinv(erfc(0.5))), 6)
    0.5
    >>> round(float(ft.grad(erfcinv)(1.0)), 6)  # -sqrt(pi) / 2
    -0.886227
"""
erfcinv_p = _sp_unary(
    "erfcinv",
    lambda y, x: -_SQRT_PI_OVER_TWO * _ew.exp_p.bind(y * y),
    doc=_ERFCINV_DOC,
)

_DAWSN_DOC = """``ftransforms.scipy.special.dawsn(x)``: Dawson's integral ``exp(-x**2)`` times the
integral of ``exp(t**2)`` from 0 to ``x``, elementwise, as ``scipy.special.dawsn`` (evaluated with
SciPy); its derivative is ``1 - 2 x dawsn(x)``.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import dawsn
    >>> round(float(dawsn(1.0)), 6)
    0.53808
    >>> float(ft.grad(dawsn)(0.0))
    1.0
"""
dawsn_p = _sp_unary("dawsn", lambda y, x: 1.0 - 2.0 * x * y, doc=_DAWSN_DOC)

_OWENS_T_DOC = """``ftransforms.scipy.special.owens_t(h, a)``: Owen's T function ``T(h, a)``,
elementwise with broadcasting, as ``scipy.special.owens_t`` (evaluated with SciPy); differentiable
in both arguments (closed forms).

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import owens_t
    >>> round(float(owens_t(0.0, 1.0)), 6)  # arctan(1) / (2 pi)
    0.125
    >>> round(float(ft.grad(owens_t, argnums=1)(0.0, 1.0)), 6)  # 1 / (2 pi (1 + a**2))
    0.079577
"""
owens_t_p = _binary_op(
    "owens_t",
    _sp_call("owens_t"),
    (
        lambda out, h, a: (
            (-0.5 * _INV_SQRT_2PI)
            * _ew.exp_p.bind(-0.5 * (h * h))
            * erf_p.bind(a * h * (1.0 / math.sqrt(2.0)))
        ),
        lambda out, h, a: (
            _ew.exp_p.bind(-0.5 * (h * h) * (1 + a * a)) / ((2.0 * math.pi) * (1 + a * a))
        ),
    ),
    doc=_OWENS_T_DOC,
)

# -- exponential integrals, Spence's function ----------------------------------------------


def _expn_impl(xp, n, x):
    # E_n for n >= 0 from SciPy; E_{-1} .. E_{-4} (what derivatives of E_0 need) by the
    # recurrence E_{n-1}(x) = (exp(-x) + (1 - n) E_n(x)) / x, down from E_0 = exp(-x) / x.
    sp = scipy_special(xp)
    if isinstance(n, int) and n >= 0:
        return _keep_float32(sp.expn(n, x), (x,))
    n = xp.asarray(n)
    out = sp.expn(xp.where(n < 0, 0, n), x)
    with numpy.errstate(divide="ignore", invalid="ignore"):
        e = xp.exp(-x)
        en = e / x  # E_0
        for k in range(0, -4, -1):  # en is E_k, becomes E_{k-1}
            en = (e + (1 - k) * en) / x
            out = xp.where(n == k - 1, en, out)
        out = xp.where(n < -4, xp.nan, out)
    return _keep_float32(xp.asarray(out), (x,))


_EXPN_DOC = """``ftransforms.scipy.special.expn(n, x)``: the generalized exponential integral
``E_n(x)`` of integer order ``n``, elementwise with broadcasting, as ``scipy.special.expn``
(evaluated with SciPy); its derivative in ``x`` is ``-E_{n-1}(x)`` (for ``n >= -3``); ``n`` is not
differentiated (a derivative in it raises :class:`~ftransforms.errors.UnsupportedOperationError`).

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import expn
    >>> round(float(expn(1, 1.0)), 6)  # E_1(1)
    0.219384
    >>> round(float(ft.grad(lambda x: expn(1, x))(1.0)), 6)  # -E_0(1) = -exp(-1)
    -0.367879
"""


def _int_order(n):
    """An integer order as SciPy reads a float one (truncated: ``yn(0.3, x)`` is
    ``y0(x)``), so a derivative's neighbouring orders are those of the order used."""
    kind = getattr(getattr(n, "dtype", None), "kind", "f" if isinstance(n, float) else "i")
    return _ew.trunc_p.bind(n) if kind == "f" else n


expn_p = _binary_op(
    "expn",
    _expn_impl,
    (_refusing("expn(n, x)", "n"), lambda out, n, x: -expn_p.bind(_int_order(n) - 1, x)),
    doc=_EXPN_DOC,
)

_EXP1_DOC = """``ftransforms.scipy.special.exp1(x)``: the exponential integral ``E_1(x)``,
elementwise, as ``scipy.special.exp1`` (evaluated with SciPy); its derivative is ``-exp(-x) / x``.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import exp1
    >>> round(float(exp1(1.0)), 6)
    0.219384
    >>> round(float(ft.grad(exp1)(1.0)), 6)  # -exp(-1)
    -0.367879
"""
exp1_p = _sp_unary("exp1", lambda y, x: -_ew.exp_p.bind(-x) / x, doc=_EXP1_DOC)

_EXPI_DOC = """``ftransforms.scipy.special.expi(x)``: the exponential integral ``Ei(x)``,
elementwise, as ``scipy.special.expi`` (evaluated with SciPy); its derivative is ``exp(x) / x``.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import expi
    >>> round(float(expi(1.0)), 6)
    1.895118
    >>> round(float(ft.grad(expi)(1.0)), 6)  # e
    2.718282
"""
expi_p = _sp_unary("expi", lambda y, x: _ew.exp_p.bind(x) / x, doc=_EXPI_DOC)


def _spence_d(y, z):
    # log(z) / (1 - z); at z == 1 its Taylor series -(1 - u/2 + u**2/3 - ...) in u = z - 1,
    # so that its derivatives there are the limits too (the constant -1 made spence'' 0, not
    # 1/2)
    one = z == 1
    zs = _ew.select_p.bind(one, 2.0, z)
    u = z - 1
    series = -(1 + u * (-1 / 2 + u * (1 / 3 + u * (-1 / 4 + u * (1 / 5 + u * (-1 / 6))))))
    return _ew.select_p.bind(one, series, _ew.log_p.bind(zs) / (1 - zs))


_SPENCE_DOC = """``ftransforms.scipy.special.spence(z)``: Spence's function, the integral of
``log(t) / (1 - t)`` from 1 to ``z`` (the dilogarithm ``Li2(1 - z)``), real ``z >= 0``, elementwise,
as ``scipy.special.spence`` (evaluated with SciPy); its derivative is ``log(z) / (1 - z)``, -1 at
``z == 1``.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import spence
    >>> round(float(spence(0.0)), 6)  # pi**2 / 6
    1.644934
    >>> float(ft.grad(spence)(1.0))
    -1.0
"""
spence_p = _sp_unary("spence", _spence_d, doc=_SPENCE_DOC)

# -- information theory --------------------------------------------------------------------


def _entr_d(y, x):
    # -(log(x) + 1) for x >= 0 (+inf at 0, as in JAX, and so -1/x = -inf the next order),
    # 0 where entr is -inf
    nonneg = x >= 0
    inside = -(_ew.log_p.bind(_ew.select_p.bind(nonneg, x, 1.0)) + 1)
    return _ew.select_p.bind(nonneg, inside, 0.0)


_ENTR_DOC = """``ftransforms.scipy.special.entr(x)``: ``-x log(x)``, 0 at 0 and ``-inf`` for
``x < 0``, elementwise, as ``scipy.special.entr`` (evaluated with SciPy); its derivative is
``-(log(x) + 1)`` (``inf`` at 0, as JAX).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import entr
    >>> np.round(entr(np.array([0.0, 0.5, 2.0])), 6).tolist()
    [0.0, 0.346574, -1.386294]
    >>> float(ft.grad(entr)(1.0))
    -1.0
"""
entr_p = _sp_unary("entr", _entr_d, doc=_ENTR_DOC)


def _rel_entr_parts(x, y):
    """(inside, x, y with 1 outside): the derivatives are those of x log(x/y) inside the
    domain x > 0, y > 0, and 0 outside (JAX's convention)."""
    inside = (x > 0) & (y > 0)
    return inside, _ew.select_p.bind(inside, x, 1.0), _ew.select_p.bind(inside, y, 1.0)


def _rel_entr_dx(out, x, y):
    inside, xs, ys = _rel_entr_parts(x, y)
    return _ew.select_p.bind(inside, _ew.log_p.bind(xs / ys) + 1, 0.0)


def _rel_entr_dy(out, x, y):
    inside, xs, ys = _rel_entr_parts(x, y)
    return _ew.select_p.bind(inside, -xs / ys, 0.0)


_REL_ENTR_DOC = """``ftransforms.scipy.special.rel_entr(x, y)``: ``x log(x / y)`` for ``x, y > 0``,
0 for ``x == 0 <= y``, ``inf`` otherwise, elementwise with broadcasting, as
``scipy.special.rel_entr`` (evaluated with SciPy); its partial derivatives are ``log(x / y) + 1``
and ``-x / y`` inside the domain, 0 outside (JAX's convention).

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import rel_entr
    >>> round(float(rel_entr(1.0, 2.0)), 6)  # log(1 / 2)
    -0.693147
    >>> [float(g) for g in ft.grad(rel_entr, argnums=(0, 1))(1.0, 1.0)]
    [1.0, -1.0]
"""
rel_entr_p = _binary_op(
    "rel_entr",
    _sp_call("rel_entr"),
    (_rel_entr_dx, _rel_entr_dy),
    doc=_REL_ENTR_DOC,
)

_KL_DIV_DOC = """``ftransforms.scipy.special.kl_div(x, y)``: ``x log(x / y) - x + y`` for
``x, y > 0``, ``y`` for ``x == 0 <= y``, ``inf`` otherwise, elementwise with broadcasting, as
``scipy.special.kl_div`` (evaluated with SciPy); its partial derivatives are ``log(x / y)`` and
``1 - x / y`` inside the domain.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import kl_div
    >>> float(kl_div(1.0, 1.0))
    0.0
    >>> [round(float(g), 6) for g in ft.grad(kl_div, argnums=(0, 1))(2.0, 1.0)]
    [0.693147, -1.0]
"""
kl_div_p = _binary_op(
    "kl_div",
    _sp_call("kl_div"),
    (
        lambda out, x, y: _rel_entr_dx(out, x, y) - 1,
        lambda out, x, y: _rel_entr_dy(out, x, y) + 1,
    ),
    doc=_KL_DIV_DOC,
)

# -- Bessel functions ------------------------------------------------------------------------


def _bessel(name: str, d, doc: str):
    return _binary_op(name, _sp_call(name), (_refusing(f"{name}(v, x)", "v"), d), doc=doc)


def _neighbours(prim, v, x):
    return prim.bind(v - 1, x), prim.bind(v + 1, x)


def _iv_d(out, v, x):
    lo, hi = _neighbours(iv_p, v, x)
    return 0.5 * (lo + hi)


def _ive_d(out, v, x):
    lo, hi = _neighbours(ive_p, v, x)
    return 0.5 * (lo + hi) - _ew.sign_p.bind(x) * out


def _kv_d(out, v, x):
    lo, hi = _neighbours(kv_p, v, x)
    return -0.5 * (lo + hi)


def _kve_d(out, v, x):
    lo, hi = _neighbours(kve_p, v, x)
    return out - 0.5 * (lo + hi)


def _jv_d(out, v, x):
    lo, hi = _neighbours(jv_p, v, x)
    return 0.5 * (lo - hi)


def _yv_d(out, v, x):
    lo, hi = _neighbours(yv_p, v, x)
    return 0.5 * (lo - hi)


def _yn_d(out, n, x):
    lo, hi = _neighbours(yn_p, _int_order(n), x)
    return 0.5 * (lo - hi)


_IV_DOC = """``ftransforms.scipy.special.iv(v, x)``: the modified Bessel function of the first kind
``I_v(x)``, elementwise with broadcasting, as ``scipy.special.iv`` (evaluated with SciPy); its
derivative in ``x`` is ``(I_{v-1}(x) + I_{v+1}(x)) / 2``; the order ``v`` is not differentiated (a
derivative in it raises :class:`~ftransforms.errors.UnsupportedOperationError`).

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import iv
    >>> float(iv(0.0, 0.0))
    1.0
    >>> float(ft.grad(iv, argnums=1)(1.0, 0.0))  # I_1'(0) = 1/2
    0.5
    >>> ft.grad(iv)(1.0, 1.0)  # in the order v
    Traceback (most recent call last):
        ...
    ftransforms.core.errors.UnsupportedOperationError: iv(v, x): the derivative ... v ...
"""
iv_p = _bessel("iv", _iv_d, _IV_DOC)

_IVE_DOC = """``ftransforms.scipy.special.ive(v, x)``: the exponentially scaled
``I_v(x) * exp(-|x|)``, finite where ``iv`` overflows, elementwise with broadcasting, as
``scipy.special.ive`` (evaluated with SciPy); its derivative in ``x`` is
``(ive(v - 1, x) + ive(v + 1, x)) / 2 - sign(x) * ive(v, x)``; the order ``v`` is not
differentiated (a derivative in it raises :class:`~ftransforms.errors.UnsupportedOperationError`).

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import ive
    >>> round(float(ive(0.0, 1000.0)), 6)
    0.012617
    >>> float(ft.grad(ive, argnums=1)(1.0, 0.0))
    0.5
"""
ive_p = _bessel("ive", _ive_d, _IVE_DOC)

_KV_DOC = """``ftransforms.scipy.special.kv(v, x)``: the modified Bessel function of the second kind
``K_v(x)``, elementwise with broadcasting, as ``scipy.special.kv`` (evaluated with SciPy); its
derivative in ``x`` is ``-(K_{v-1}(x) + K_{v+1}(x)) / 2``; the order ``v`` is not differentiated (a
derivative in it raises :class:`~ftransforms.errors.UnsupportedOperationError`).

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import kv
    >>> round(float(kv(0.5, 1.0)), 6)  # sqrt(pi / (2 x)) exp(-x) at x = 1
    0.461069
    >>> round(float(ft.grad(kv, argnums=1)(0.5, 1.0)), 6)  # -3/2 of it
    -0.691603
"""
kv_p = _bessel("kv", _kv_d, _KV_DOC)

_KVE_DOC = """``ftransforms.scipy.special.kve(v, x)``: the exponentially scaled ``K_v(x) * exp(x)``,
elementwise with broadcasting, as ``scipy.special.kve`` (evaluated with SciPy); its derivative in
``x`` is ``kve(v, x) - (kve(v-1, x) + kve(v+1, x)) / 2``; the order ``v`` is not differentiated (a
derivative in it raises :class:`~ftransforms.errors.UnsupportedOperationError`).

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import kve
    >>> round(float(kve(0.5, 1.0)), 6)  # sqrt(pi / (2 x)) at x = 1
    1.253314
    >>> round(float(ft.grad(kve, argnums=1)(0.5, 1.0)), 6)  # -1/2 of it
    -0.626657
"""
kve_p = _bessel("kve", _kve_d, _KVE_DOC)

_JV_DOC = """``ftransforms.scipy.special.jv(v, x)``: the Bessel function of the first kind
``J_v(x)``, elementwise with broadcasting, as ``scipy.special.jv`` (evaluated with SciPy); its
derivative in ``x`` is ``(J_{v-1}(x) - J_{v+1}(x)) / 2``; the order ``v`` is not differentiated (a
derivative in it raises :class:`~ftransforms.errors.UnsupportedOperationError`).

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import jv
    >>> float(jv(0.0, 0.0))
    1.0
    >>> float(ft.grad(jv, argnums=1)(1.0, 0.0))  # J_1'(0) = 1/2
    0.5
"""
jv_p = _bessel("jv", _jv_d, _JV_DOC)

_YV_DOC = """``ftransforms.scipy.special.yv(v, x)``: the Bessel function of the second kind
``Y_v(x)``, elementwise with broadcasting, as ``scipy.special.yv`` (evaluated with SciPy); its
derivative in ``x`` is ``(Y_{v-1}(x) - Y_{v+1}(x)) / 2``; the order ``v`` is not differentiated (a
derivative in it raises :class:`~ftransforms.errors.UnsupportedOperationError`).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import yv
    >>> round(float(yv(0.5, np.pi)), 6)  # -sqrt(2 / (pi x)) cos(x) at pi: sqrt(2) / pi
    0.450158
    >>> round(float(ft.grad(yv, argnums=1)(0.5, np.pi / 2)), 6)  # at pi / 2: 2 / pi
    0.63662
"""
yv_p = _bessel("yv", _yv_d, _YV_DOC)

_YN_DOC = """``ftransforms.scipy.special.yn(n, x)``: the Bessel function of the second kind
``Y_n(x)`` of integer order ``n``, elementwise with broadcasting, as ``scipy.special.yn`` (evaluated
with SciPy); its derivative in ``x`` is ``(Y_{n-1}(x) - Y_{n+1}(x)) / 2``; ``n`` is not
differentiated.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import yn
    >>> round(float(yn(1, 1.0)), 6)
    -0.781213
    >>> round(float(ft.grad(lambda x: yn(0, x))(1.0)), 6)  # -Y_1(1)
    0.781213
"""
yn_p = _bessel("yn", _yn_d, _YN_DOC)

_I0_DOC = """``ftransforms.scipy.special.i0(x)``: the modified Bessel function of the first kind of
order 0, ``I_0(x)``, elementwise, as ``scipy.special.i0`` (evaluated with SciPy); its derivative is
``I_1(x)``.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import i0
    >>> float(i0(0.0))
    1.0
    >>> round(float(ft.grad(i0)(1.0)), 6)  # I_1(1)
    0.565159
"""
i0_p = _sp_unary("i0", lambda y, x: i1_p.bind(x), doc=_I0_DOC)

_I0E_DOC = """``ftransforms.scipy.special.i0e(x)``: the exponentially scaled ``I_0(x) * exp(-|x|)``,
elementwise, as ``scipy.special.i0e`` (evaluated with SciPy); its derivative is
``i1e(x) - sign(x) * i0e(x)``.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import i0e
    >>> round(float(i0e(1000.0)), 6)  # about 1 / sqrt(2 pi x)
    0.012617
    >>> round(float(ft.grad(i0e)(1.0)), 6)  # i1e(1) - i0e(1)
    -0.257849
"""
i0e_p = _sp_unary("i0e", lambda y, x: i1e_p.bind(x) - _ew.sign_p.bind(x) * y, doc=_I0E_DOC)

_I1_DOC = """``ftransforms.scipy.special.i1(x)``: the modified Bessel function of the first kind of
order 1, ``I_1(x)``, elementwise, as ``scipy.special.i1`` (evaluated with SciPy); its derivative is
``(I_0(x) + I_2(x)) / 2``.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import i1
    >>> float(i1(0.0))
    0.0
    >>> float(ft.grad(i1)(0.0))
    0.5
"""
i1_p = _sp_unary("i1", lambda y, x: 0.5 * (i0_p.bind(x) + iv_p.bind(2, x)), doc=_I1_DOC)

_I1E_DOC = """``ftransforms.scipy.special.i1e(x)``: the exponentially scaled ``I_1(x) * exp(-|x|)``,
elementwise, as ``scipy.special.i1e`` (evaluated with SciPy); its derivative is
``(i0e(x) + ive(2, x)) / 2 - sign(x) * i1e(x)``.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import i1e
    >>> float(i1e(0.0))
    0.0
    >>> float(ft.grad(i1e)(0.0))
    0.5
"""
i1e_p = _sp_unary(
    "i1e",
    lambda y, x: 0.5 * (i0e_p.bind(x) + ive_p.bind(2, x)) - _ew.sign_p.bind(x) * y,
    doc=_I1E_DOC,
)

_K0_DOC = """``ftransforms.scipy.special.k0(x)``: the modified Bessel function of the second kind of
order 0, ``K_0(x)``, elementwise, as ``scipy.special.k0`` (evaluated with SciPy); its derivative is
``-K_1(x)``.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import k0
    >>> round(float(k0(1.0)), 6)
    0.421024
    >>> round(float(ft.grad(k0)(1.0)), 6)  # -K_1(1)
    -0.601907
"""
k0_p = _sp_unary("k0", lambda y, x: -k1_p.bind(x), doc=_K0_DOC)

_K0E_DOC = """``ftransforms.scipy.special.k0e(x)``: the exponentially scaled ``K_0(x) * exp(x)``,
elementwise, as ``scipy.special.k0e`` (evaluated with SciPy); its derivative is ``k0e(x) - k1e(x)``.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import k0e
    >>> round(float(k0e(1.0)), 6)
    1.144463
    >>> round(float(ft.grad(k0e)(1.0)), 6)  # k0e(1) - k1e(1)
    -0.49169
"""
k0e_p = _sp_unary("k0e", lambda y, x: y - k1e_p.bind(x), doc=_K0E_DOC)

_K1_DOC = """``ftransforms.scipy.special.k1(x)``: the modified Bessel function of the second kind of
order 1, ``K_1(x)``, elementwise, as ``scipy.special.k1`` (evaluated with SciPy); its derivative is
``-(K_0(x) + K_2(x)) / 2``.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import k1
    >>> round(float(k1(1.0)), 6)
    0.601907
    >>> round(float(ft.grad(k1)(1.0)), 6)  # -K_0(1) - K_1(1)
    -1.022932
"""
k1_p = _sp_unary("k1", lambda y, x: -0.5 * (k0_p.bind(x) + kv_p.bind(2, x)), doc=_K1_DOC)

_K1E_DOC = """``ftransforms.scipy.special.k1e(x)``: the exponentially scaled ``K_1(x) * exp(x)``,
elementwise, as ``scipy.special.k1e`` (evaluated with SciPy); its derivative is
``k1e(x) - (k0e(x) + kve(2, x)) / 2``.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import k1e
    >>> round(float(k1e(1.0)), 6)
    1.636153
    >>> round(float(ft.grad(k1e)(1.0)), 6)  # -k0e(1)
    -1.144463
"""
k1e_p = _sp_unary("k1e", lambda y, x: y - 0.5 * (k0e_p.bind(x) + kve_p.bind(2, x)), doc=_K1E_DOC)

_J0_DOC = """``ftransforms.scipy.special.j0(x)``: the Bessel function of the first kind of order 0,
``J_0(x)``, elementwise, as ``scipy.special.j0`` (evaluated with SciPy); its derivative is
``-J_1(x)``.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import j0
    >>> float(j0(0.0))
    1.0
    >>> round(float(ft.grad(j0)(1.0)), 6)  # -J_1(1)
    -0.440051
"""
j0_p = _sp_unary("j0", lambda y, x: -j1_p.bind(x), doc=_J0_DOC)

_J1_DOC = """``ftransforms.scipy.special.j1(x)``: the Bessel function of the first kind of order 1,
``J_1(x)``, elementwise, as ``scipy.special.j1`` (evaluated with SciPy); its derivative is
``(J_0(x) - J_2(x)) / 2``.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import j1
    >>> float(j1(0.0))
    0.0
    >>> float(ft.grad(j1)(0.0))
    0.5
"""
j1_p = _sp_unary("j1", lambda y, x: 0.5 * (j0_p.bind(x) - jv_p.bind(2, x)), doc=_J1_DOC)

_Y0_DOC = """``ftransforms.scipy.special.y0(x)``: the Bessel function of the second kind of order 0,
``Y_0(x)``, elementwise, as ``scipy.special.y0`` (evaluated with SciPy); its derivative is
``-Y_1(x)``.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import y0
    >>> round(float(y0(1.0)), 6)
    0.088257
    >>> round(float(ft.grad(y0)(1.0)), 6)  # -Y_1(1)
    0.781213
"""
y0_p = _sp_unary("y0", lambda y, x: -y1_p.bind(x), doc=_Y0_DOC)

_Y1_DOC = """``ftransforms.scipy.special.y1(x)``: the Bessel function of the second kind of order 1,
``Y_1(x)``, elementwise, as ``scipy.special.y1`` (evaluated with SciPy); its derivative is
``(Y_0(x) - Y_2(x)) / 2``.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import y1
    >>> round(float(y1(1.0)), 6)
    -0.781213
    >>> round(float(ft.grad(y1)(1.0)), 6)  # Y_0(1) - Y_1(1)
    0.86947
"""
y1_p = _sp_unary("y1", lambda y, x: 0.5 * (y0_p.bind(x) - yv_p.bind(2, x)), doc=_Y1_DOC)

# -- Box-Cox transformations, Faddeeva function --------------------------------------------


def _boxcox_dlmbda(log, x, lmbda):
    """d/dlmbda of expm1(lmbda L) / lmbda (L = log(x) or log1p(x)): L**2 phi(lmbda L) with
    phi(u) = (u e**u - expm1(u)) / u**2, from its series 1/2 + u/3 + u**2/8 + u**3/30 for
    |u| < 1e-3 (where the quotient cancels), and log(x)**2 / 2 at lmbda = 0."""
    el = log.bind(x)
    u = lmbda * el
    small = _ew.abs_p.bind(u) < 1e-3
    us = _ew.select_p.bind(small, 1.0, u)
    exact = (us * _ew.exp_p.bind(us) - _ew.expm1_p.bind(us)) / (us * us)
    series = 0.5 + u * (1.0 / 3.0 + u * (1.0 / 8.0 + u * (1.0 / 30.0)))
    return el * el * _ew.select_p.bind(small, series, exact)


_BOXCOX_DOC = """``ftransforms.scipy.special.boxcox(x, lmbda)``: the Box-Cox transformation
``(x**lmbda - 1) / lmbda`` (``log(x)`` at ``lmbda == 0``), elementwise with broadcasting, as
``scipy.special.boxcox`` (evaluated with SciPy); differentiable in both, its derivative in ``lmbda``
accurate near 0.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import boxcox
    >>> round(float(boxcox(3.0, 2.0)), 6)  # (9 - 1) / 2
    4.0
    >>> round(float(ft.grad(boxcox)(3.0, 2.0)), 6)  # x**(lmbda - 1)
    3.0
"""
boxcox_p = _binary_op(
    "boxcox",
    _sp_call("boxcox"),
    (
        lambda out, x, lmbda: _ew.exp_p.bind((lmbda - 1) * _ew.log_p.bind(x)),
        lambda out, x, lmbda: _boxcox_dlmbda(_ew.log_p, x, lmbda),
    ),
    doc=_BOXCOX_DOC,
)

_BOXCOX1P_DOC = """``ftransforms.scipy.special.boxcox1p(x, lmbda)``: ``boxcox(1 + x, lmbda)``,
accurate for small ``x``, elementwise with broadcasting, as ``scipy.special.boxcox1p`` (evaluated
with SciPy); differentiable in both.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import boxcox1p
    >>> round(float(boxcox1p(2.0, 2.0)), 6)  # (3**2 - 1) / 2
    4.0
    >>> round(float(ft.grad(boxcox1p)(2.0, 2.0)), 6)  # (1 + x)**(lmbda - 1)
    3.0
"""
boxcox1p_p = _binary_op(
    "boxcox1p",
    _sp_call("boxcox1p"),
    (
        lambda out, x, lmbda: _ew.exp_p.bind((lmbda - 1) * _ew.log1p_p.bind(x)),
        lambda out, x, lmbda: _boxcox_dlmbda(_ew.log1p_p, x, lmbda),
    ),
    doc=_BOXCOX1P_DOC,
)
_TWO_I_OVER_SQRT_PI = 2j / math.sqrt(math.pi)

_WOFZ_DOC = """``ftransforms.scipy.special.wofz(z)``: the Faddeeva function
``exp(-z**2) erfc(-i z)``, complex-valued, elementwise, as ``scipy.special.wofz`` (evaluated with
SciPy); it is holomorphic, with derivative ``2i / sqrt(pi) - 2 z wofz(z)``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import wofz
    >>> complex(wofz(0j))
    (1+0j)
    >>> complex(np.round(ft.jvp(wofz, (0j,), (1 + 0j,))[1], 6))  # 2i / sqrt(pi)
    1.128379j
"""
wofz_p = _binary_op(  # one input; _binary_op's VJP keeps Re for a real z
    "wofz",
    _sp_call("wofz"),
    (lambda out, z: _TWO_I_OVER_SQRT_PI - 2.0 * z * out,),
    doc=_WOFZ_DOC,
)

# -- hypergeometric functions --------------------------------------------------------------

# NOTE [hyp1f1 in its parameters]: d/da and d/db of 1F1(a; b; x) = sum_n (a)_n x**n /
# ((b)_n n!) have no closed form; ``hyp1f1_dparam(a, b, x, wrt=0 or 1)`` carries each term
# and its derivative through the series (T_n = T_{n-1} (a+n-1) x / ((b+n-1) n)) until every
# element has converged (at most _HYP1F1_MAX_TERMS terms), for x < 0 after Kummer's
# transformation 1F1(a; b; x) = e**x 1F1(b - a; b; -x), which makes the terms of one sign
# for b > a > 0.  Its derivative in x is closed (d/dx 1F1 = a/b 1F1(a+1; b+1; x)); a
# second derivative in the parameters is refused.

_HYP1F1_MAX_TERMS = 5000


def _hyp1f1_series(xp, a, b, x):
    """(sum, d sum/da, d sum/db) of the series of 1F1(a; b; x)."""
    t = xp.ones_like(x)
    ta = xp.zeros_like(x)
    tb = xp.zeros_like(x)
    total, da, db = t, ta, tb
    for n in range(1, _HYP1F1_MAX_TERMS + 1):
        bn = b + (n - 1)
        step = x / (bn * n)
        an = a + (n - 1)
        ta = ta * (an * step) + t * step
        tb = tb * (an * step) - t * (an * step) / bn
        t = t * (an * step)
        total, da, db = total + t, da + ta, db + tb
        small = (xp.abs(t) <= 1e-17 * xp.abs(total)) & (xp.abs(ta) <= 1e-17 * xp.abs(da) + 1e-300)
        if _converged(xp, ~(small & (n > xp.abs(x))), n):
            break
    return total, da, db


def _hyp1f1_dparam_impl(xp, a, b, x, wrt=0):
    dt = numpy.result_type(_float_dtype(a), _float_dtype(b), _float_dtype(x))
    a, b, x = xp.broadcast_arrays(*(xp.asarray(v, dtype=numpy.float64) for v in (a, b, x)))
    neg = x < 0
    with numpy.errstate(all="ignore"):
        c = xp.where(neg, b - a, a)
        _, dc, db = _hyp1f1_series(xp, c, b, xp.abs(x))
        e = xp.exp(x)
        if wrt == 0:
            out = xp.where(neg, -e * dc, dc)
        else:
            out = xp.where(neg, e * (dc + db), db)
    return _keep_float32(xp.asarray(out).astype(dt), tuple(v.astype(dt) for v in (a, b, x)))


def _hyp1f1_dparam_dx(out, a, b, x, wrt=0):
    # d/dx d/dp 1F1(a; b; x) = d/dp [a/b 1F1(a+1; b+1; x)]
    shifted = hyp1f1_p.bind(a + 1, b + 1, x)
    dp = hyp1f1_dparam_p.bind(a + 1, b + 1, x, wrt=wrt)
    if wrt == 0:
        return shifted / b + a / b * dp
    return -a / (b * b) * shifted + a / b * dp


_refuse_param_twice = _refuse(
    "hyp1f1(a, b, x)",
    "a or b to second order",
    "differentiate once in a and b (the mixed derivatives with x work)",
)
_refuse_param_twice.refuses = True


def _hyp1f1_dparam_rule(kind):
    def jvp(t, out, a, b, x, wrt=0):
        return like_output(t * _hyp1f1_dparam_dx(out, a, b, x, wrt=wrt), out)

    def vjp(g, out, a, b, x, wrt=0):
        return unbroadcast(g * _hyp1f1_dparam_dx(out, a, b, x, wrt=wrt), x)

    return jvp if kind == "jvp" else vjp


hyp1f1_dparam_p = defop(
    "hyp1f1_dparam",
    _hyp1f1_dparam_impl,
    jvp=(_refuse_param_twice, _refuse_param_twice, _hyp1f1_dparam_rule("jvp")),
    vjp=(_refuse_param_twice, _refuse_param_twice, _hyp1f1_dparam_rule("vjp")),
    family=_ew.FAMILY,
    doc="``d/da`` (wrt=0) or ``d/db`` (wrt=1) of ``hyp1f1(a, b, x)``; see NOTE [hyp1f1 in "
    "its parameters].",
)

_HYP1F1_DOC = """``ftransforms.scipy.special.hyp1f1(a, b, x)``: Kummer's confluent hypergeometric
function ``1F1(a; b; x)``, elementwise with broadcasting, as ``scipy.special.hyp1f1`` (evaluated
with SciPy); its derivative in ``x`` is ``a / b * 1F1(a + 1; b + 1; x)``; in ``a`` and ``b`` it is
computed numerically (the series carried in forward mode), to first order only.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import hyp1f1
    >>> round(float(hyp1f1(1.0, 1.0, 1.0)), 6)  # 1F1(a; a; x) = exp(x)
    2.718282
    >>> round(float(ft.grad(hyp1f1, argnums=2)(1.0, 1.0, 1.0)), 6)
    2.718282
"""
hyp1f1_p = _binary_op(
    "hyp1f1",
    _sp_call("hyp1f1"),
    (
        lambda out, a, b, x: hyp1f1_dparam_p.bind(a, b, x, wrt=0),
        lambda out, a, b, x: hyp1f1_dparam_p.bind(a, b, x, wrt=1),
        lambda out, a, b, x: a / b * hyp1f1_p.bind(a + 1, b + 1, x),
    ),
    doc=_HYP1F1_DOC,
)

_HYP2F1_DOC = """``ftransforms.scipy.special.hyp2f1(a, b, c, z)``: the Gauss hypergeometric function
``2F1(a, b; c; z)``, elementwise with broadcasting, as ``scipy.special.hyp2f1`` (evaluated with
SciPy); its derivative in ``z`` is ``a b / c * 2F1(a + 1, b + 1; c + 1; z)``; in ``a``, ``b`` and
``c`` it is the power series' own derivative for ``|z| <= 0.9`` (to first order; elsewhere
:class:`~ftransforms.errors.UnsupportedOperationError`: NOTE [hyp2f1 in its parameters]).

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import hyp2f1
    >>> round(float(hyp2f1(1.0, 1.0, 1.0, 0.5)), 6)  # 2F1(a, b; b; z) = (1 - z)**-a
    2.0
    >>> round(float(ft.grad(hyp2f1, argnums=3)(1.0, 1.0, 1.0, 0.5)), 6)  # a (1 - z)**(-a - 1)
    4.0
    >>> round(float(ft.grad(hyp2f1)(1.0, 1.0, 1.0, 0.5)), 6)  # -(1 - z)**-a log(1 - z)
    1.386294
"""
hyp2f1_p = _binary_op(
    "hyp2f1",
    _sp_call("hyp2f1"),
    (
        lambda out, a, b, c, z: hyp2f1_dparam_p.bind(a, b, c, z, wrt=0),
        lambda out, a, b, c, z: hyp2f1_dparam_p.bind(a, b, c, z, wrt=1),
        lambda out, a, b, c, z: hyp2f1_dparam_p.bind(a, b, c, z, wrt=2),
        lambda out, a, b, c, z: a * b / c * hyp2f1_p.bind(a + 1, b + 1, c + 1, z),
    ),
    doc=_HYP2F1_DOC,
)

# NOTE [hyp2f1 in its parameters]: d/da, d/db and d/dc of 2F1(a, b; c; z) = sum_n
# (a)_n (b)_n z**n / ((c)_n n!) have no closed form; ``hyp2f1_dparam(a, b, c, z, wrt=0, 1
# or 2)`` carries each term T_n = T_{n-1} r_n, r_n = (a+n-1)(b+n-1) z / ((c+n-1) n), and
# its derivative dT_n = dT_{n-1} r_n + T_{n-1} dr_n through the series (as JAX
# differentiates its own series), where it converges well: |z| <= _HYP2F1_MAX_Z.  Elsewhere
# (the analytic continuation SciPy evaluates) the derivative is refused with a clear error,
# never an unconverged sum.  A polynomial (a or b a non-positive integer) has a derivative
# in that parameter past its last term, which the recurrence keeps.  Its derivative in z is
# closed (d/dz 2F1 = ab/c 2F1(a+1, b+1; c+1; z)); a second derivative in the parameters is
# refused.

_HYP2F1_MAX_Z = 0.9
_HYP2F1_MAX_TERMS = 2000


def _hyp2f1_dparam_impl(xp, a, b, c, z, wrt=0):
    dt = numpy.result_type(*(_float_dtype(v) for v in (a, b, c, z)))
    work = numpy.complex128 if dt.kind == "c" else numpy.float64
    a, b, c, z = xp.broadcast_arrays(*(xp.asarray(v, dtype=work) for v in (a, b, c, z)))
    if bool(xp.any(xp.abs(z) > _HYP2F1_MAX_Z)):
        raise UnsupportedOperationError(
            f"hyp2f1(a, b, c, z): the derivative in {'abc'[wrt]} is computed from the power "
            f"series, which converges well only for |z| <= {_HYP2F1_MAX_Z}; got |z| up to "
            f"{float(xp.max(xp.abs(z)))} (see NOTE [hyp2f1 in its parameters]); hold "
            f"{'abc'[wrt]} fixed there, or transform z (a linear transformation such as "
            f"Pfaff's 2F1(a, b; c; z) = (1 - z)**-a 2F1(a, c - b; c; z / (z - 1)))"
        )
    t = xp.ones_like(z)
    dtn = xp.zeros_like(z)
    deriv = dtn
    with numpy.errstate(all="ignore"):
        for n in range(1, _HYP2F1_MAX_TERMS + 1):
            an, bn, cn = a + (n - 1), b + (n - 1), c + (n - 1)
            q = z / (cn * n)
            r = an * bn * q
            dr = (bn * q, an * q, -r / cn)[wrt]
            dtn = dtn * r + t * dr
            t = t * r
            deriv = deriv + dtn
            small = xp.abs(dtn) <= 1e-17 * xp.abs(deriv) + 1e-300
            small = small & (xp.abs(t) <= 1e-17)
            if _converged(xp, ~small, n):
                break
    out = deriv if dt.kind == "c" else xp.real(deriv)
    return xp.asarray(out).astype(dt)


def _hyp2f1_dparam_dz(out, a, b, c, z, wrt=0):
    # d/dz d/dp 2F1(a, b; c; z) = d/dp [ab/c 2F1(a+1, b+1; c+1; z)]
    shifted = hyp2f1_p.bind(a + 1, b + 1, c + 1, z)
    dp = hyp2f1_dparam_p.bind(a + 1, b + 1, c + 1, z, wrt=wrt)
    k = a * b / c
    own = (b / c, a / c, -a * b / (c * c))[wrt]
    return own * shifted + k * dp


_refuse_hyp2f1_twice = _refuse(
    "hyp2f1(a, b, c, z)",
    "a, b or c to second order",
    "differentiate once in a, b and c (the mixed derivatives with z work)",
)
_refuse_hyp2f1_twice.refuses = True


def _hyp2f1_dparam_rule(kind):
    def jvp(t, out, a, b, c, z, wrt=0):
        return like_output(t * _hyp2f1_dparam_dz(out, a, b, c, z, wrt=wrt), out)

    def vjp(g, out, a, b, c, z, wrt=0):
        return unbroadcast(g * _hyp2f1_dparam_dz(out, a, b, c, z, wrt=wrt), z)

    return jvp if kind == "jvp" else vjp


hyp2f1_dparam_p = defop(
    "hyp2f1_dparam",
    _hyp2f1_dparam_impl,
    jvp=(_refuse_hyp2f1_twice,) * 3 + (_hyp2f1_dparam_rule("jvp"),),
    vjp=(_refuse_hyp2f1_twice,) * 3 + (_hyp2f1_dparam_rule("vjp"),),
    family=_ew.FAMILY,
    doc="``d/da`` (wrt=0), ``d/db`` (wrt=1) or ``d/dc`` (wrt=2) of ``hyp2f1(a, b, c, z)``; "
    "see NOTE [hyp2f1 in its parameters].",
)

# -- Fresnel and sine/cosine integrals (one primitive per output) ----------------------------


def _part(name: str, k: int):
    def impl(xp, x):
        return scipy_function(xp, name)(x)[k]

    impl.__name__ = f"{name}_{k}_impl"
    return impl


_HALF_PI = 0.5 * math.pi
fresnel_s_p = defunary(
    "fresnel_s",
    _part("fresnel", 0),
    lambda y, x: _ew.sin_p.bind(_HALF_PI * (x * x)),
    doc="``fresnel(x)[0]``: S(x), the integral of sin(pi t**2 / 2) from 0 to x.",
)
fresnel_c_p = defunary(
    "fresnel_c",
    _part("fresnel", 1),
    lambda y, x: _ew.cos_p.bind(_HALF_PI * (x * x)),
    doc="``fresnel(x)[1]``: C(x), the integral of cos(pi t**2 / 2) from 0 to x.",
)
sici_si_p = defunary(
    "sici_si",
    _part("sici", 0),
    lambda y, x: sinc_p.bind(x * (1.0 / math.pi)),
    doc="``sici(x)[0]``: Si(x), the integral of sin(t) / t from 0 to x.",
)
sici_ci_p = defunary(
    "sici_ci",
    _part("sici", 1),
    lambda y, x: _ew.cos_p.bind(x) / x,
    doc="``sici(x)[1]``: Ci(x), the cosine integral.",
)

# -- x * log(y) with 0 * log(0) = 0 ------------------------------------------------------


def _xlog_impl(log):
    def impl(xp, x, y):
        # log of a Python float y is a float64 NumPy scalar, which is not weak: the result
        # takes NEP 50's dtype of (x, y) instead (float32 for xlogy(float32 array, 2.0),
        # as xlogy(2.0, float32 array) and JAX give), and at least a float
        dt = numpy.result_type(*(getattr(a, "dtype", a) for a in (x, y)), 1.0)
        with numpy.errstate(divide="ignore", invalid="ignore"):
            out = (x * log(xp, y)).astype(dt, copy=False)
        keep = (xp.asarray(x) != 0) | xp.isnan(y)  # NaN in y propagates, as in SciPy
        return xp.where(keep, out, xp.zeros((), dtype=out.dtype))

    return impl


_XLOGY_DOC = """``ftransforms.scipy.special.xlogy(x, y)``: ``x * log(y)``, 0 where ``x == 0`` (NaN
for a NaN ``y``), elementwise with broadcasting, as ``scipy.special.xlogy`` (evaluated with SciPy);
its partial derivatives are ``log(y)`` and ``x / y`` (JAX's convention at ``x == 0``).

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import xlogy
    >>> float(xlogy(0.0, 0.0))
    0.0
    >>> [float(g) for g in ft.grad(xlogy, argnums=(0, 1))(3.0, 1.0)]
    [0.0, 3.0]
"""
xlogy_p = defbinary(
    "xlogy",
    _xlog_impl(lambda xp, y: xp.log(y)),
    lambda t, out, x, y: t * _ew.log_p.bind(y),
    lambda t, out, x, y: t * x / y,
    ufunc=None,
    doc=_XLOGY_DOC,
)

_XLOG1PY_DOC = """``ftransforms.scipy.special.xlog1py(x, y)``: ``x * log1p(y)``, 0 where ``x == 0``,
elementwise with broadcasting, as ``scipy.special.xlog1py`` (evaluated with SciPy); its partial
derivatives are ``log1p(y)`` and ``x / (1 + y)``.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.special import xlog1py
    >>> float(xlog1py(0.0, -1.0))
    0.0
    >>> [float(g) for g in ft.grad(xlog1py, argnums=(0, 1))(3.0, 0.0)]
    [0.0, 3.0]
"""
xlog1py_p = defbinary(
    "xlog1py",
    _xlog_impl(lambda xp, y: xp.log1p(y)),
    lambda t, out, x, y: t * _ew.log1p_p.bind(y),
    lambda t, out, x, y: t * x / (1 + y),
    ufunc=None,
    doc=_XLOG1PY_DOC,
)

# -- logaddexp, hypot --------------------------------------------------------------------


def _lae_share(x, y, scale):
    """d logaddexp(x, y) / dx: ``expit(scale * (x - y))``, 1/2 where x == y (even inf).

    Only equal infinities are replaced (by 0, so that inf - inf gives no NaN): at a finite
    tie the difference keeps its own derivative, so that higher derivatives are right
    (``logaddexp(x, 0)'' = 1/4`` at 0, as in JAX)."""
    same_inf = (x == y) & _ew.isinf_p.bind(x)
    d = _ew.select_p.bind(same_inf, 0.0, x) - _ew.select_p.bind(same_inf, 0.0, y)
    return expit_p.bind(d * scale if scale != 1.0 else d)


def _logaddexp(name, impl, scale, doc):
    return defbinary(
        name,
        impl,
        lambda t, out, x, y: t * _lae_share(x, y, scale),
        lambda t, out, x, y: t * _lae_share(y, x, scale),
        doc=doc,
    )


_LOGADDEXP_DOC = """``fnp.logaddexp(x1, x2)``: ``log(exp(x1) + exp(x2))``, without overflow,
elementwise with broadcasting, as ``numpy.logaddexp`` (no ``out``/``where``/``dtype`` keywords); its
partial derivatives are ``expit(x1 - x2)`` and ``expit(x2 - x1)`` (1/2 each at a tie, equal
infinities included).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> float(fnp.logaddexp(1000.0, 1000.0))  # 1000 + log(2)
    1000.6931471805599
    >>> [float(g) for g in ft.grad(fnp.logaddexp, argnums=(0, 1))(0.0, 0.0)]
    [0.5, 0.5]
"""
logaddexp_p = _logaddexp("logaddexp", lambda xp, x, y: xp.logaddexp(x, y), 1.0, doc=_LOGADDEXP_DOC)

_LOGADDEXP2_DOC = """``fnp.logaddexp2(x1, x2)``: ``log2(2**x1 + 2**x2)``, without overflow,
elementwise with broadcasting, as ``numpy.logaddexp2`` (no ``out``/``where``/``dtype`` keywords);
its partial derivatives are ``1 / (1 + 2**(x2 - x1))`` and ``1 / (1 + 2**(x1 - x2))`` (1/2 each at a
tie).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> float(fnp.logaddexp2(3.0, 3.0))
    4.0
    >>> [float(g) for g in ft.grad(fnp.logaddexp2, argnums=(0, 1))(1.0, 1.0)]
    [0.5, 0.5]
"""
logaddexp2_p = _logaddexp(
    "logaddexp2", lambda xp, x, y: xp.logaddexp2(x, y), math.log(2.0), doc=_LOGADDEXP2_DOC
)

_HYPOT_DOC = """``fnp.hypot(x1, x2)``: ``sqrt(x1**2 + x2**2)``, without overflow, elementwise with
broadcasting, as ``numpy.hypot`` (no ``out``/``where``/``dtype`` keywords); its partial derivatives
are ``x1 / hypot`` and ``x2 / hypot`` (0 at the origin).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> float(fnp.hypot(3.0, 4.0))
    5.0
    >>> [float(g) for g in ft.grad(fnp.hypot, argnums=(0, 1))(3.0, 4.0)]
    [0.6, 0.8]
"""
hypot_p = defbinary(
    "hypot",
    lambda xp, x, y: xp.hypot(x, y),
    lambda t, out, x, y: t * _safe_div(x, out),
    lambda t, out, x, y: t * _safe_div(y, out),
    doc=_HYPOT_DOC,
)

# -- sinc and its derivatives ------------------------------------------------------------
#
# NOTE [sinc derivatives]: sinc(x) = s(pi x) with s(u) = sin(u) / u, an entire function.
# The primitive ``sinc(x, k=k)`` is the k-th derivative of sinc, pi**k * s^(k)(pi x), so
# its own derivative is ``sinc(x, k=k + 1)`` and every order is exact, at 0 included
# (where the quotient form is 0/0).  s^(k)(u) is summed from its Maclaurin series for
# |u| < 2 (s^(m)(0) = (-1)**(m/2) / (m + 1) for even m, 0 for odd m) and from Leibniz's
# rule on sin(u) * u**-1 elsewhere.

_SERIES_RADIUS = 2.0
_SERIES_TERMS = 40


def _sinc_coefficient(m):
    return 0.0 if m % 2 else (-1.0) ** (m // 2) / (m + 1)


def _sinc_deriv_u(xp, u, k):
    """s^(k)(u), the k-th derivative of sin(u)/u."""
    small = xp.abs(u) < _SERIES_RADIUS
    us = xp.where(small, u, 0)
    series = xp.zeros_like(us)
    term_pow = xp.ones_like(us)  # us**j / j!
    for j in range(_SERIES_TERMS):
        c = _sinc_coefficient(k + j)
        if c:
            series = series + c * term_pow
        term_pow = term_pow * us / (j + 1)
    ul = xp.where(small, 1, u)
    leibniz = xp.zeros_like(ul)
    for j in range(k + 1):
        # C(k, j) sin^(j)(u) * d^(k-j)/du^(k-j) u^-1
        r = k - j
        coef = math.comb(k, j) * (-1.0) ** r * math.factorial(r)
        leibniz = leibniz + coef * xp.sin(ul + j * (math.pi / 2)) / ul ** (r + 1)
    return xp.where(small, series, leibniz)


def _sinc_impl(xp, x, k=0):
    if k == 0:
        return xp.sinc(x)
    u = xp.asarray(x).astype(_float_dtype(x), copy=False)
    return xp.asarray(math.pi**k * _sinc_deriv_u(xp, math.pi * u, k)).astype(u.dtype)


sinc_p = defop(
    "sinc",
    _sinc_impl,
    jvp=(lambda x_dot, y, x, k=0: x_dot * sinc_p.bind(x, k=k + 1),),
    vjp=(lambda y_bar, y, x, k=0: y_bar * sinc_p.bind(x, k=k + 1),),
    family=_ew.FAMILY,
    doc="The k-th derivative of ``sinc(x) = sin(pi x) / (pi x)`` (k=0: numpy.sinc); see "
    "NOTE [sinc derivatives].",
)

__all__ = [name for name in dir() if name.endswith("_p")]
