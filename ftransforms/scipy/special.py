"""``ftransforms.scipy.special``: ``scipy.special`` functions with every transform's rules.

What ``jax.scipy.special`` offers with a derivative, with SciPy's names and signatures:
the gamma family (``gamma``, ``rgamma``, ``gammasgn``, ``gammaln``, ``loggamma``,
``digamma``/``psi``, ``polygamma``, ``multigammaln``, ``poch``, ``beta``, ``betaln``,
``binom``, ``comb``, ``factorial``), incomplete integrals (``gammainc``, ``gammaincc``,
``betainc``), ``zeta``, the normal distribution (``ndtr``, ``ndtri``, ``log_ndtr``), the
error functions (``erf``, ``erfc``, ``erfinv``, ``erfcx``, ``erfcinv``, ``dawsn``,
``owens_t``, ``fresnel``, ``wofz`` (complex)), exponential and trigonometric integrals
(``expn``, ``exp1``, ``expi``, ``sici``), Spence's function (``spence``), Bessel
functions (``i0``, ``i0e``, ``i1``, ``i1e``, ``iv``, ``ive``, ``k0``, ``k0e``, ``k1``,
``k1e``, ``kv``, ``kve``, ``j0``, ``j1``, ``jn``, ``jv``, ``y0``, ``y1``, ``yn``, ``yv``),
``hyp1f1``, ``hyp2f1``, ``boxcox``, ``boxcox1p``, information measures (``entr``,
``rel_entr``, ``kl_div``), and ``expit``, ``log_expit``, ``logit``, ``softplus``,
``sinc``, ``xlogy``, ``xlog1py``, ``logsumexp``, ``softmax``, ``log_softmax``.

They evaluate with ``scipy.special`` (``cupyx.scipy.special`` for CuPy), imported on first
use: SciPy is an optional dependency (``pip install 'ftransforms[scipy]'``).  The ufuncs
among them also dispatch from SciPy itself: ``scipy.special.gammainc(a, tracer)`` works;
so does every other ``scipy.special`` ufunc (``stdtr``, ``ellipk``, ``eval_legendre``,
``huber``, ...), with the derivatives listed in NOTE [the remaining SciPy ufuncs]
(``ops/scipy_ufuncs.py``).

Derivatives in every argument except: the Bessel
functions in their order, ``hyp2f1`` in its parameters where ``|z| > 0.9``, and
``betainc`` in ``a`` and ``b``,
``gammainc``/``gammaincc`` in ``a``, ``hyp1f1`` in ``a`` and ``b`` and ``hyp2f1`` in ``a``,
``b``, ``c`` to second order (their first derivatives there are computed numerically,
by series carried in forward mode; ``zeta``'s in ``x``, to
every order, by Euler-Maclaurin summation); asking for one of those raises
:class:`~ftransforms.errors.UnsupportedOperationError` (never a silent 0).  Integer orders
(``jn``, ``yn``, ``expn``, ``polygamma``) are not differentiated.  At points where a
derivative is infinite or undefined (the poles of ``gamma``/``rgamma``, ``entr`` at 0)
the rules give the formula's value (NaN or inf), as JAX does.

Conventions follow JAX: ``xlogy(0, y) = 0`` with derivative ``log(y)`` in ``x``;
``logsumexp``, ``softmax`` and ``log_softmax`` subtract the maximum under
:func:`~ftransforms.numpy.stop_gradient`, so they neither overflow nor carry its derivative
(the gradient of ``logsumexp`` is ``softmax``).  ``softmax`` and ``log_softmax`` default
to ``axis=None``, as SciPy's do (``jax.nn``'s default to the last axis).

Example:
    >>> import numpy as np
    >>> from ftransforms import grad
    >>> from ftransforms.scipy.special import erf
    >>> float(grad(erf)(0.0))  # 2 / sqrt(pi)
    1.1283791670955126
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.numpy.helpers import dtype_of, normalize_axes
from ftransforms.numpy.protocol import register_foreign_ufuncs
from ftransforms.numpy.ufuncs import float_input
from ftransforms.ops import scipy_ufuncs as _su
from ftransforms.ops import special as _sp
from ftransforms.scipy.special_integer_orders import bernoulli, bessel_jn, sph_harm_y

__all__ = [
    "bernoulli",
    "bessel_jn",
    "beta",
    "betainc",
    "betaln",
    "binom",
    "boxcox",
    "boxcox1p",
    "comb",
    "dawsn",
    "digamma",
    "entr",
    "erf",
    "erfc",
    "erfcinv",
    "erfcx",
    "erfinv",
    "exp1",
    "expi",
    "expit",
    "expn",
    "factorial",
    "fresnel",
    "gamma",
    "gammainc",
    "gammaincc",
    "gammaln",
    "gammasgn",
    "hyp1f1",
    "hyp2f1",
    "i0",
    "i0e",
    "i1",
    "i1e",
    "iv",
    "ive",
    "j0",
    "j1",
    "jn",
    "jv",
    "k0",
    "k0e",
    "k1",
    "k1e",
    "kl_div",
    "kv",
    "kve",
    "lambertw",
    "log_expit",
    "log_ndtr",
    "log_softmax",
    "loggamma",
    "logit",
    "logsumexp",
    "multigammaln",
    "ndtr",
    "ndtri",
    "owens_t",
    "poch",
    "polygamma",
    "psi",
    "rel_entr",
    "rgamma",
    "sici",
    "sinc",
    "softmax",
    "softplus",
    "spence",
    "sph_harm_y",
    "spherical_in",
    "spherical_jn",
    "spherical_kn",
    "spherical_yn",
    "wofz",
    "xlog1py",
    "xlogy",
    "y0",
    "y1",
    "yn",
    "yv",
    "zeta",
]

expit = _sp.expit_p
erf = _sp.erf_p
erfc = _sp.erfc_p
erfinv = _sp.erfinv_p
gammaln = _sp.gammaln_p
digamma = psi = _sp.digamma_p
xlogy = _sp.xlogy_p
xlog1py = _sp.xlog1py_p
# Elementwise primitives with SciPy's signatures (positional arguments, broadcasting);
# see ``ftransforms/ops/special.py`` for their derivatives.
ndtr = _sp.ndtr_p
ndtri = _sp.ndtri_p
log_ndtr = _sp.log_ndtr_p
gammainc = _sp.gammainc_p
gammaincc = _sp.gammaincc_p
gamma = _sp.gamma_p
rgamma = _sp.rgamma_p
gammasgn = _sp.gammasgn_p
loggamma = _sp.loggamma_p
poch = _sp.poch_p
binom = _sp.binom_p
beta = _sp.beta_p
betaln = _sp.betaln_p
betainc = _sp.betainc_p
erfcx = _sp.erfcx_p
erfcinv = _sp.erfcinv_p
dawsn = _sp.dawsn_p
owens_t = _sp.owens_t_p
expn = _sp.expn_p
exp1 = _sp.exp1_p
expi = _sp.expi_p
spence = _sp.spence_p
entr = _sp.entr_p
rel_entr = _sp.rel_entr_p
kl_div = _sp.kl_div_p
iv = _sp.iv_p
ive = _sp.ive_p
kv = _sp.kv_p
kve = _sp.kve_p
jv = _sp.jv_p
yv = _sp.yv_p
yn = _sp.yn_p
i0 = _sp.i0_p
i0e = _sp.i0e_p
i1 = _sp.i1_p
i1e = _sp.i1e_p
k0 = _sp.k0_p
k0e = _sp.k0e_p
k1 = _sp.k1_p
k1e = _sp.k1e_p
j0 = _sp.j0_p
j1 = _sp.j1_p
y0 = _sp.y0_p
y1 = _sp.y1_p
hyp1f1 = _sp.hyp1f1_p
hyp2f1 = _sp.hyp2f1_p
boxcox = _sp.boxcox_p
boxcox1p = _sp.boxcox1p_p
wofz = _sp.wofz_p


def jn(n: Any, x: Any) -> Any:
    """``scipy.special.jn``: the Bessel function J_n(x) of integer order ``n``.

    Example:
        >>> from ftransforms import grad
        >>> round(float(grad(lambda x: jn(1, x))(0.0)), 6)  # J_1'(0) = 1/2
        0.5
    """
    return _sp.jv_p.bind(n, x)


def zeta(x: Any, q: Any = None, out: Any = None) -> Any:
    """``scipy.special.zeta``: the Hurwitz zeta function ``sum((k + q) ** -x)`` (Riemann's
    for ``q=None``).  Differentiable in ``q`` (``d/dq zeta(x, q) = -x zeta(x + 1, q)``) and,
    to every order, in ``x`` (NOTE [zeta in x] in ``ftransforms/ops/special.py``).
    ``out=`` is SciPy's output array, not available here.

    Example:
        >>> round(float(zeta(2.0)), 6)  # pi**2 / 6
        1.644934
    """
    if out is not None:
        raise UnsupportedOperationError(
            "zeta(x, q, out=...): out= is not available on traced values; use the returned "
            "array (y = zeta(x, q))"
        )
    return _sp.zeta_p.bind(x, 1.0 if q is None else q)


def multigammaln(a: Any, d: int) -> Any:
    """``scipy.special.multigammaln``: the log of the multivariate gamma function of
    dimension ``d`` (static), ``d (d-1)/4 log(pi) + sum_j gammaln(a - j/2)``.

    SciPy raises for ``a <= (d - 1) / 2``; here (values may be traced) the result is NaN
    there.

    Example:
        >>> import scipy.special
        >>> abs(float(multigammaln(3.0, 2)) - float(scipy.special.multigammaln(3.0, 2))) < 1e-12
        True
    """
    d = operator.index(d)
    if d < 1:
        raise ValueError(f"multigammaln(a, d={d}): d must be a positive integer")
    a = float_input(a, None)
    total = _sp.gammaln_p.bind(a)
    for j in range(1, d):
        total = total + _sp.gammaln_p.bind(a - 0.5 * j)
    out = total + 0.25 * d * (d - 1) * math.log(math.pi)
    nan = fnp.full((), fnp.nan, dtype_of(out), like=out)
    return fnp.where(a > 0.5 * (d - 1), out, nan)


def softplus(x: Any) -> Any:
    """``scipy.special.softplus``: ``log(1 + exp(x))``, without overflow; its derivative
    is ``expit(x)``.

    Example:
        >>> round(float(softplus(0.0)), 6)  # log(2)
        0.693147
    """
    x = float_input(x, None)
    return fnp.logaddexp(x, fnp.zeros((), dtype_of(x), like=x))


def log_expit(x: Any) -> Any:
    """``scipy.special.log_expit``: ``log(expit(x)) = -softplus(-x)``, accurate in both
    tails; its derivative is ``expit(-x)``.

    Example:
        >>> round(float(log_expit(0.0)), 6)  # -log(2)
        -0.693147
    """
    x = float_input(x, None)
    return -fnp.logaddexp(-x, fnp.zeros((), dtype_of(x), like=x))


def sinc(x: Any) -> Any:
    """``sin(pi x) / (pi x)`` (NumPy's ``sinc``, exposed here as in ``jax.scipy.special``
    lists): every derivative is exact at 0.

    Example:
        >>> float(sinc(0.0))
        1.0
    """
    return fnp.sinc(x)


def _spherical(kind: str, n: Any, z: Any, derivative: bool) -> Any:
    name = f"_spherical_{kind}" + ("_d" if derivative else "")
    n = fnp.asarray(n).astype(numpy.int64) if not isinstance(n, int) else n
    return _su.scipy_ufunc_p.bind(n, float_input(fnp.asarray(z), None), name=name)


def spherical_jn(n: Any, z: Any, derivative: bool = False) -> Any:
    """``scipy.special.spherical_jn``: the spherical Bessel function ``j_n(z)`` of integer
    order ``n`` (or its derivative in ``z``), differentiable in ``z`` to every order.

    Example:
        >>> from ftransforms import grad
        >>> round(float(spherical_jn(0, 1.0)), 6)  # sin(1) / 1
        0.841471
        >>> round(float(grad(lambda z: spherical_jn(0, z))(1.0)), 6)  # -j_1(1)
        -0.301169
    """
    return _spherical("jn", n, z, derivative)


def spherical_yn(n: Any, z: Any, derivative: bool = False) -> Any:
    """``scipy.special.spherical_yn``: the spherical Bessel function ``y_n(z)`` (or its
    derivative), differentiable in ``z``.

    Example:
        >>> round(float(spherical_yn(0, 1.0)), 6)  # -cos(1) / 1
        -0.540302
    """
    return _spherical("yn", n, z, derivative)


def spherical_in(n: Any, z: Any, derivative: bool = False) -> Any:
    """``scipy.special.spherical_in``: the modified spherical Bessel function ``i_n(z)``
    (or its derivative), differentiable in ``z``.

    Example:
        >>> round(float(spherical_in(0, 1.0)), 6)  # sinh(1) / 1
        1.175201
    """
    return _spherical("in", n, z, derivative)


def spherical_kn(n: Any, z: Any, derivative: bool = False) -> Any:
    """``scipy.special.spherical_kn``: the modified spherical Bessel function ``k_n(z)``
    (or its derivative), differentiable in ``z``.

    Example:
        >>> round(float(spherical_kn(0, 1.0)), 6)  # pi/2 exp(-1) / 1
        0.577864
    """
    return _spherical("kn", n, z, derivative)


def lambertw(z: Any, k: Any = 0, tol: float = 1e-8) -> Any:
    """``scipy.special.lambertw``: the branch ``k`` of the Lambert W function (complex,
    as SciPy's), differentiable in ``z``: ``W / (z (1 + W))``.

    Example:
        >>> from ftransforms import grad
        >>> round(float(lambertw(1.0).real), 6)  # the omega constant
        0.567143
        >>> round(float(grad(lambda z: lambertw(z).real)(1.0)), 6)  # W / (1 + W)
        0.361896
    """
    k = fnp.asarray(k).astype(numpy.int64) if not isinstance(k, int) else k
    z = fnp.asarray(z)
    z = z if dtype_of(z).kind == "c" else float_input(z, None)
    return _su.scipy_ufunc_p.bind(z, k, float(tol), name="_lambertw")


def fresnel(x: Any) -> tuple[Any, Any]:
    """``scipy.special.fresnel``: the Fresnel integrals ``(S(x), C(x))``.

    Example:
        >>> from ftransforms import grad
        >>> float(grad(lambda x: fresnel(x)[1])(0.0))  # C'(x) = cos(pi x**2 / 2)
        1.0
    """
    return _sp.fresnel_s_p.bind(x), _sp.fresnel_c_p.bind(x)


def sici(x: Any) -> tuple[Any, Any]:
    """``scipy.special.sici``: the sine and cosine integrals ``(Si(x), Ci(x))``.

    Example:
        >>> from ftransforms import grad
        >>> float(grad(lambda x: sici(x)[0])(0.0))  # Si'(x) = sin(x) / x
        1.0
    """
    return _sp.sici_si_p.bind(x), _sp.sici_ci_p.bind(x)


def factorial(n: Any, exact: bool = False, extend: str = "zero") -> Any:
    """``scipy.special.factorial`` (``exact=False``): ``gamma(n + 1)``, 0 for ``n < 0``
    (``extend='zero'``, SciPy's default) or ``gamma(n + 1)`` there too
    (``extend='complex'``).

    Example:
        >>> float(factorial(4.0))
        24.0
    """
    if exact:
        raise UnsupportedOperationError(
            "factorial(n, exact=True): exact integer factorials have no derivative and do not "
            "run on tracers; use exact=False (gamma(n + 1)) or scipy.special.factorial."
        )
    if extend not in ("zero", "complex"):
        raise ValueError(f"factorial(n, extend={extend!r}): extend must be 'zero' or 'complex'")
    n = float_input(n, None)
    if extend == "complex":
        return _sp.gamma_p.bind(n + 1)
    out = _sp.gamma_p.bind(fnp.where(n >= 0, n, fnp.zeros((), dtype_of(n), like=n)) + 1)
    return fnp.where(n >= 0, out, fnp.zeros((), dtype_of(out), like=out))


def comb(N: Any, k: Any, *, exact: bool = False, repetition: bool = False) -> Any:  # noqa: N803
    """``scipy.special.comb`` (``exact=False``): ``binom(N, k)``, 0 unless ``0 <= k <= N``;
    with ``repetition=True``, ``binom(N + k - 1, k)`` (1 for ``k == 0 <= N``), as SciPy.

    Example:
        >>> float(comb(5.0, 2.0))
        10.0
    """
    if exact:
        raise UnsupportedOperationError(
            "comb(N, k, exact=True): exact integer combinations have no derivative and do not "
            "run on tracers; use exact=False or scipy.special.comb."
        )
    if repetition:
        out = _sp.binom_p.bind(N + k - 1, k)
        one = fnp.ones((), dtype_of(out), like=out)
        return fnp.where((k == 0) & (N >= 0), one, out)
    out = _sp.binom_p.bind(N, k)
    valid = (k >= 0) & (N >= 0) & (k <= N)
    return fnp.where(valid, out, fnp.zeros((), dtype_of(out), like=out))


def polygamma(n: Any, x: Any) -> Any:
    """``scipy.special.polygamma``: the ``n``-th derivative of digamma, elementwise with
    broadcasting.  ``n`` must be an integer (array; a float ``n`` raises :class:`TypeError`)
    and is not differentiated; the derivative in ``x`` is ``polygamma(n + 1, x)``.

    Example:
        >>> import ftransforms as ft
        >>> from ftransforms.scipy.special import polygamma
        >>> round(float(polygamma(1, 1.0)), 6)  # pi**2 / 6
        1.644934
        >>> round(float(ft.grad(lambda x: polygamma(1, x))(1.0)), 6)  # -2 zeta(3)
        -2.404114
    """
    if isinstance(n, (float, numpy.floating)) or (
        isinstance(n, numpy.ndarray) and n.dtype.kind == "f"
    ):
        # SciPy takes a concrete float order that is integral (polygamma(1.0, x))
        n_int = numpy.asarray(n).astype(numpy.int64)
        if numpy.array_equal(n_int, n):
            n = n_int if isinstance(n, numpy.ndarray) else int(n_int)
    if dtype_of(n).kind not in "iu":
        raise TypeError(
            f"polygamma: n must be an integer (or a concrete integral float), got dtype "
            f"{dtype_of(n)}"
        )
    return _sp.polygamma_p.bind(n, x)


def logit(x: Any) -> Any:
    """``scipy.special.logit``: ``log(x / (1 - x))``, the inverse of :func:`expit`; its
    derivative is ``1 / (x (1 - x))``.

    Example:
        >>> import ftransforms as ft
        >>> from ftransforms.scipy.special import expit, logit
        >>> float(logit(0.5))
        0.0
        >>> float(expit(logit(0.25)))
        0.25
        >>> float(ft.grad(logit)(0.5))
        4.0
    """
    x = float_input(x, None)
    # SciPy's log(x / (1 - x)); at 0 and 1 the form log(x) - log1p(-x), whose derivative
    # 1/x + 1/(1 - x) is inf there (JAX's), not NaN
    edge = (x == 0) | (x == 1)
    xs = fnp.where(edge, 0.5, x)
    return fnp.where(edge, fnp.log(x) - fnp.log1p(-x), fnp.log(xs / (1 - xs)))


def _max_shift(a: Any, axis: Any, keep_posinf: bool = False) -> Any:
    """The maximum over ``axis`` (kept), without derivative, 0 where it is not finite (and
    for an empty ``a``, which has no maximum: ``softmax`` of it is empty, as in JAX).

    With ``keep_posinf`` a ``+inf`` maximum is kept, so that ``x - shift`` is NaN at it and
    the whole row of a ``softmax`` becomes NaN (SciPy's and JAX's answer: ``inf / inf``),
    not ``[nan, 0, ...]``; an all ``-inf`` row still shifts by 0."""
    if fnp.size(a) == 0:
        return fnp.zeros_like(fnp.sum(fnp.stop_gradient(a), axis=axis, keepdims=True))
    m = fnp.max(fnp.stop_gradient(a), axis=axis, keepdims=True)
    keep = (m != -fnp.inf) if keep_posinf else fnp.isfinite(m)
    return fnp.where(keep, m, fnp.zeros((), dtype_of(m), like=m))


def logsumexp(
    a: Any,
    axis: Any = None,
    b: Any = None,
    keepdims: bool = False,
    return_sign: bool = False,
    where: Any = None,
) -> Any:
    """``scipy.special.logsumexp``: ``log(sum(b * exp(a)))`` over ``axis``, stably.

    The maximum is subtracted under ``stop_gradient``, so the derivative in ``a`` is
    ``b * exp(a - out)`` (``softmax`` for ``b=None``).  Elements with ``b == 0`` are left
    out (as in JAX: even an infinite ``a`` there contributes nothing), and so are those
    where ``where`` (JAX's keyword, broadcast against ``a``) is False.  With
    ``return_sign`` the result is ``(log|s|, sign(s))``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms.scipy.special import logsumexp
        >>> round(float(logsumexp(np.array([1000.0, 1000.0]))), 6)  # 1000 + log(2)
        1000.693147
        >>> logsumexp(np.zeros((2, 3)), axis=1, b=np.array([1.0, 1.0, 0.0])).round(6).tolist()
        [0.693147, 0.693147]
        >>> ft.grad(logsumexp)(np.array([0.0, np.log(3.0)])).round(6).tolist()  # softmax
        [0.25, 0.75]
    """
    a = float_input(a, None)
    if where is not None:
        a = fnp.where(where, a, fnp.full((), -fnp.inf, dtype_of(a), like=a))
    if b is not None:
        a, b = fnp.broadcast_arrays(a, b)
        a = fnp.where(b != 0, a, fnp.full((), -fnp.inf, dtype_of(a), like=a))
        shift = _max_shift(a, axis)
        total = fnp.sum(b * fnp.exp(a - shift), axis=axis, keepdims=True)
    else:
        shift = _max_shift(a, axis)
        total = fnp.sum(fnp.exp(a - shift), axis=axis, keepdims=True)
    if return_sign:
        sign = fnp.sign(total)
        total = fnp.abs(total)
    out = fnp.log(total) + shift
    if not keepdims:
        axes = normalize_axes(axis, fnp.ndim(out))
        out = fnp.squeeze(out, axis=axes)
        if return_sign:
            sign = fnp.squeeze(sign, axis=axes)
    return (out, sign) if return_sign else out


def softmax(x: Any, axis: Any = None) -> Any:
    """``scipy.special.softmax``: ``exp(x) / sum(exp(x))`` over ``axis`` (default: all),
    without overflow; its Jacobian along ``axis`` is ``diag(p) - p p^T``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms.scipy.special import softmax
        >>> softmax(np.array([0.0, np.log(3.0)])).round(6).tolist()
        [0.25, 0.75]
        >>> ft.jacfwd(softmax)(np.zeros(2)).tolist()  # diag(p) - p p^T, p = [1/2, 1/2]
        [[0.25, -0.25], [-0.25, 0.25]]
    """
    x = float_input(x, None)
    e = fnp.exp(x - _max_shift(x, axis, keep_posinf=True))
    return e / fnp.sum(e, axis=axis, keepdims=True)


def log_softmax(x: Any, axis: Any = None) -> Any:
    """``scipy.special.log_softmax``: ``x - logsumexp(x)`` over ``axis`` (default: all),
    without overflow; the gradient of its ``i``-th element is ``e_i - softmax(x)``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms.scipy.special import log_softmax
        >>> log_softmax(np.zeros(2)).round(6).tolist()  # log(1 / 2)
        [-0.693147, -0.693147]
        >>> ft.grad(lambda x: log_softmax(x)[0])(np.zeros(2)).tolist()  # e_0 - softmax(x)
        [0.5, -0.5]
    """
    return _log_softmax(x, axis)


def _log_softmax(x: Any, axis: Any, keep_posinf: bool = False) -> Any:
    """``log_softmax`` shifting by ``_max_shift(x, axis, keep_posinf)``: SciPy's answer
    at a ``+inf`` entry is ``[nan, -inf, ...]``, JAX's (``keep_posinf``) all NaN."""
    x = float_input(x, None)
    if fnp.size(x) == 0:
        return x
    shifted = x - _max_shift(x, axis, keep_posinf)
    return shifted - fnp.log(fnp.sum(fnp.exp(shifted), axis=axis, keepdims=True))


#: scipy.special ufunc name -> the function here (``scipy.special.erf(tracer)`` works).
UFUNCS = {
    "erf": erf,
    "erfc": erfc,
    "erfinv": erfinv,
    "gammaln": gammaln,
    "psi": digamma,
    "expit": expit,
    "logit": logit,
    "xlogy": xlogy,
    "xlog1py": xlog1py,
    "softplus": softplus,
    "log_expit": log_expit,
    "jn": jn,
    "fresnel": fresnel,
    "sici": sici,
    **{
        name: globals()[name]
        for name in (
            "ndtr ndtri log_ndtr gammainc gammaincc gamma rgamma gammasgn loggamma poch binom "
            "beta betaln betainc erfcx erfcinv dawsn owens_t expn exp1 expi spence entr "
            "rel_entr kl_div iv ive kv kve jv yv yn i0 i0e i1 i1e k0 k0e k1 k1e j0 j1 y0 y1 "
            "hyp1f1 hyp2f1 boxcox boxcox1p wofz"
        ).split()
    },
}


def _remaining_ufunc(ufunc: numpy.ufunc) -> Any:
    """``scipy.special``'s other ufuncs on tracers (NOTE [the remaining SciPy ufuncs] in
    ``ops/scipy_ufuncs.py``)."""
    name = ufunc.__name__
    multi = ufunc.nout > 1
    prim = _su.scipy_ufunc_multi_p if multi else _su.scipy_ufunc_p

    def call(*args: Any) -> Any:
        if len(args) != ufunc.nin:
            raise TypeError(f"scipy.special.{name} takes {ufunc.nin} arguments, got {len(args)}")
        operands = [a if isinstance(a, (int, float, complex)) else fnp.asarray(a) for a in args]
        out = prim.bind(*operands, name=name)
        return tuple(out) if multi else out

    call.__name__ = call.__qualname__ = name
    call.__doc__ = (
        f"``scipy.special.{name}`` under every transform (NOTE [the remaining SciPy "
        f"ufuncs] in ``ftransforms/ops/scipy_ufuncs.py``)."
    )
    return call


#: scipy.special's ufuncs that compute NumPy's functions of the same name.
_NUMPY_TWINS = ("cbrt", "exp2", "expm1", "log1p")


def __getattr__(name: str) -> Any:
    """``ftransforms.scipy.special.<name>`` for each other ufunc of ``scipy.special``
    (``stdtr``, ``ellipk``, ``eval_legendre``, ...), made on first use."""
    if name.startswith("__"):
        raise AttributeError(name)
    theirs = getattr(_sp.scipy_special(numpy), name, None)
    if not isinstance(theirs, numpy.ufunc):
        raise AttributeError(f"module 'ftransforms.scipy.special' has no attribute {name!r}")
    # NumPy's twins (expm1, log1p, cbrt, exp2): ftransforms.numpy's, with their derivatives,
    # as scipy.special.expm1(tracer) resolves
    twin = getattr(fnp, name) if name in _NUMPY_TWINS else None
    fn = globals()[name] = twin or _remaining_ufunc(theirs)
    return fn


register_foreign_ufuncs("scipy.special", UFUNCS, fallback=_remaining_ufunc)
