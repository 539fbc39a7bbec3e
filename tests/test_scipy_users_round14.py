"""SciPy users, round 14: derivatives of scipy.stats cdfs at their centre (t, gennorm,
t.ppf(0.5) in df), cdfs that kept few digits far in a tail (cauchy, cosine), derivatives
lost where an exponential overflows (exponpow), ..."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sp
import scipy.stats as st
from program_oracles import fd_jacobian

import ftransforms as ft
import ftransforms.numpy as fnp
from ftransforms.core.stack import current_stack
from ftransforms.errors import UnsupportedOperationError

# -- t and gennorm cdfs at their centre (NOTE [t cdf near 0]) -------------------------------


@pytest.mark.parametrize("df", [0.3, 3.0, 1000.0])
def test_t_cdf_derivatives_at_and_near_zero(df):
    x = np.array([0.0, 1e-12, -1e-5, 0.5, -3.0, 40.0])
    # in x: the density, to rounding (the tail form's 1 - x kept 6 digits at 1e-5: NaN at 0)
    got = ft.vmap(ft.grad(lambda v: st.t.cdf(v, df)))(x)
    np.testing.assert_allclose(got, st.t.pdf(x, df), rtol=1e-13)
    np.testing.assert_allclose(ft.vmap(lambda v: st.t.cdf(v, df))(x), st.t.cdf(x, df), rtol=1e-13)
    # in df: 0 at x = 0 (every t is symmetric), differences elsewhere
    assert ft.grad(lambda d: st.t.cdf(0.0, d))(df) == 0.0
    for v in (-1e-5, 0.5, -3.0):
        got = ft.grad(lambda d, v=v: st.t.cdf(v, d))(df)
        want = fd_jacobian(lambda d, v=v: st.t.cdf(v, d), (df,), eps=1e-4 * df)
        assert got == pytest.approx(want, rel=1e-6, abs=1e-12)
    # the median's derivative in df (implicitly through the cdf's)
    assert ft.grad(lambda d: st.t.ppf(0.5, d))(df) == 0.0
    assert ft.grad(lambda q: st.t.ppf(q, df))(0.5) == pytest.approx(1.0 / st.t.pdf(0.0, df))


def test_t_cdf_second_derivative_in_x_at_zero():
    h = ft.hessian(lambda v: st.t.cdf(v, 3.0))
    assert h(0.0) == 0.0  # the density's slope at its mode
    assert h(0.2) == pytest.approx(fd_jacobian(lambda v: st.t.pdf(v, 3.0), (0.2,)), rel=1e-6)


@pytest.mark.parametrize("beta", [0.5, 1.5, 3.0])
def test_gennorm_cdf_derivatives_at_zero(beta):
    x = np.array([0.0, 1e-20, -0.3, 2.0])
    got = ft.vmap(ft.grad(lambda v: st.gennorm.cdf(v, beta)))(x)
    np.testing.assert_allclose(got, st.gennorm.pdf(x, beta), rtol=1e-12)
    got = ft.vmap(lambda v: st.gennorm.cdf(v, beta))(x)
    np.testing.assert_allclose(got, st.gennorm.cdf(x, beta), rtol=1e-14)
    assert ft.grad(lambda b: st.gennorm.cdf(0.0, b))(beta) == 0.0
    f = lambda b: st.gennorm.cdf(-0.3, b)  # noqa: E731
    assert ft.grad(f)(beta) == pytest.approx(fd_jacobian(f, (beta,), eps=1e-5), rel=1e-7)


# -- cdfs far in a tail --------------------------------------------------------------------


@pytest.mark.parametrize("name", ["cauchy", "cosine"])
def test_cdf_and_sf_at_a_tiny_quantile(name):
    dist = getattr(st, name)
    q = np.array([1e-10, 1e-6, 0.3])
    x = dist.ppf(q)
    # 0.5 + atan(z) / pi kept 6 digits at 1e-10; (pi + z + sin z) / (2 pi) kept 8
    np.testing.assert_allclose(ft.vmap(dist.cdf)(x), dist.cdf(x), rtol=1e-11)
    np.testing.assert_allclose(ft.vmap(dist.sf)(-x), dist.sf(-x), rtol=1e-11)
    # the density, as the cdf's derivative: 1 + cos z loses digits near -pi (SciPy's
    # pdf keeps 11 there), 2 cos(z/2)**2 does not: mpmath's values
    pdf = {
        "cauchy": [3.141592653589794e-20, 3.141592653579458e-12, 0.2083365252460686],
        "cosine": [1.927572976952659e-07, 8.946499315520538e-05, 0.2857777686556483],
    }[name]
    np.testing.assert_allclose(ft.vmap(ft.grad(dist.cdf))(x), pdf, rtol=1e-12)
    np.testing.assert_allclose(ft.vmap(dist.pdf)(x), pdf, rtol=1e-12)


def test_exponpow_derivatives_where_the_exponential_overflows():
    # exp(z**b) overflows past z**b = 709: the density, cdf and sf there are 0 or 1 with
    # derivative 0 (they were NaN: the derivative of exp(-inf) is 0 * inf)
    for method in ("pdf", "cdf", "sf", "logcdf"):
        for argnum in (0, 1):
            g = ft.grad(lambda x, b, m=method: getattr(st.exponpow, m)(x, b), argnums=argnum)
            assert g(30.0, 2.5) == 0.0, (method, argnum)
    x = np.array([0.5, 2.0, 5.0])  # below the overflow: unchanged
    for method in ("logpdf", "logsf", "cdf"):
        got = ft.vmap(ft.grad(lambda v, m=method: getattr(st.exponpow, m)(v, 2.5)))(x)
        want = [fd_jacobian(lambda v, m=method: getattr(st.exponpow, m)(v, 2.5), (v,), eps=1e-6)
                for v in x[:2]]  # fmt: skip
        np.testing.assert_allclose(got[:2], want, rtol=1e-7)
    assert ft.grad(lambda v: st.exponpow.logpdf(v, 2.5))(5.0) == pytest.approx(
        fd_jacobian(lambda v: st.exponpow.logpdf(v, 2.5), (5.0,), eps=1e-7), rel=1e-6
    )


# -- mean and var of round 13's distributions (closed forms) -------------------------------

MOMENT_CASES = [
    ("anglit", ()), ("bradford", (0.3,)), ("burr", (10.5, 4.3)), ("burr", (1.5, 2.0)),
    ("burr", (0.5, 2.0)), ("burr12", (10.0, 4.0)), ("burr12", (2.0, 0.75)),
    ("dweibull", (2.07,)), ("fisk", (3.09,)), ("fisk", (1.5,)), ("gengamma", (4.42, -3.12)),
    ("gengamma", (2.0, 1.5)), ("genlogistic", (0.41,)),
    ("invweibull", (10.58,)), ("invweibull", (0.5,)), ("johnsonsu", (2.55, 2.25)),
    ("loggamma", (0.41,)), ("loglaplace", (3.25,)), ("loglaplace", (1.5,)),
    ("loglaplace", (1.0,)), ("reciprocal", (0.01, 1.25)), ("loguniform", (0.01, 1.25)),
    ("truncexpon", (4.69,)), ("gumbel_r", ()), ("gumbel_l", ()), ("pareto", (2.62,)),
    ("pareto", (1.5,)), ("gennorm", (1.3,)), ("truncnorm", (-1.0, 2.0)),
    ("truncnorm", (0.1, 2.0)), ("truncnorm", (-np.inf, 0.5)), ("truncnorm", (3.0, np.inf)),
]  # fmt: skip


@pytest.mark.parametrize("name,shapes", MOMENT_CASES)
def test_mean_and_var_of_more_distributions(name, shapes):
    dist = getattr(st, name)

    def mv(q):  # at a traced loc too (SciPy answers the calls without a tracer itself)
        p, loc = q[1:], q[0]
        return fnp.stack([dist.mean(*p, loc=loc, scale=1.7), dist.var(*p, loc=loc, scale=1.7)])

    q = np.array([0.3, *shapes])
    want = np.array([dist.mean(*shapes, loc=0.3, scale=1.7), dist.var(*shapes, loc=0.3, scale=1.7)])
    np.testing.assert_allclose(ft.jit(mv)(q), want, rtol=1e-9)  # SciPy's NaN and inf included
    finite = np.isfinite(q)
    if np.isfinite(want).all():
        jac = ft.jacfwd(mv)(q)[:, finite]
        fd = fd_jacobian(lambda v: np.asarray(mv(v)), (q,), eps=1e-5)[:, finite]
        np.testing.assert_allclose(jac, fd, rtol=1e-6, atol=1e-9)


def test_halfgennorm_moments_are_the_closed_form():
    # E[X**n] = Gamma((n + 1)/beta) / Gamma(1/beta) (SciPy integrates: 1.4 s, 5e-12 off)
    b = 0.675
    m1, m2 = (sp.gamma((n + 1) / b) / sp.gamma(1 / b) for n in (1, 2))
    got = ft.jit(lambda c: fnp.stack([st.halfgennorm.mean(c), st.halfgennorm.var(c)]))(np.array(b))
    np.testing.assert_allclose(got, [m1, m2 - m1 * m1], rtol=1e-13)


def test_moments_where_scipy_returns_a_gamma_of_a_negative_number():
    # SciPy's generic moments give gengamma(0.5, -1).mean() = -2 and invweibull(1.5).var()
    # = -11.2 (Gamma at a negative number); the moments diverge: inf
    assert ft.jit(lambda a: st.gengamma.mean(a, -1.0))(np.array(0.5)) == np.inf
    assert ft.jit(lambda c: st.invweibull.var(c))(np.array(1.5)) == np.inf


@pytest.mark.parametrize(
    "name,shapes", [("betabinom", (5.0, 2.3, 0.63)), ("boltzmann", (1.4, 19.0))]
)
def test_mean_and_var_of_discrete_distributions(name, shapes):
    dist = getattr(st, name)
    got = ft.jit(lambda *p: fnp.stack([dist.mean(*p), dist.var(*p)]))(*map(np.array, shapes))
    np.testing.assert_allclose(got, [dist.mean(*shapes), dist.var(*shapes)], rtol=1e-12)
    i = 1 if name == "betabinom" else 0  # a continuous shape
    for method in ("mean", "var"):

        def along(s, method=method):
            return getattr(dist, method)(*shapes[:i], s, *shapes[i + 1 :])

        assert ft.grad(along)(shapes[i]) == pytest.approx(
            fd_jacobian(along, (shapes[i],), eps=1e-5), rel=1e-7
        )


# -- ncx2, nct, ncf (NOTE [noncentral distributions valued by SciPy]) -----------------------

NONCENTRAL = [("ncx2", (21.0, 1.06)), ("ncx2", (0.7, 8.0)), ("nct", (3.0, -2.0)),
              ("ncf", (3.0, 10.0, 2.0))]  # fmt: skip


@pytest.mark.parametrize("name,shapes", NONCENTRAL)
def test_noncentral_distributions_values_and_derivatives(name, shapes):
    dist = getattr(st, name)
    kw = {"loc": 0.3, "scale": 1.7}
    x = dist.ppf([1e-6, 0.3, 0.99], *shapes, **kw)
    for method in ("logpdf", "pdf", "cdf", "sf", "logcdf", "logsf"):
        got = ft.vmap(lambda v, m=method: getattr(dist, m)(v, *shapes, **kw))(x)
        np.testing.assert_allclose(got, getattr(dist, method)(x, *shapes, **kw), rtol=1e-12)
    q = np.array([0.0, 0.01, 0.5, 1.0])
    got = ft.vmap(lambda v: dist.isf(v, *shapes, **kw))(q)
    np.testing.assert_allclose(got, dist.isf(q, *shapes, **kw), rtol=1e-12)
    got = ft.jit(lambda *p: fnp.stack([dist.mean(*p, **kw), dist.var(*p, **kw)]))(*shapes)
    np.testing.assert_allclose(got, [dist.mean(*shapes, **kw), dist.var(*shapes, **kw)], rtol=1e-9)
    k = len(shapes)

    def four(a):  # in x, q, every shape, loc and scale
        s, loc, scale = a[2 : k + 2], a[-2], a[-1]
        return fnp.stack([dist.logpdf(a[0], *s, loc=loc, scale=scale),
                          dist.cdf(a[0], *s, loc=loc, scale=scale),
                          dist.sf(a[0], *s, loc=loc, scale=scale),
                          dist.ppf(a[1], *s, loc=loc, scale=scale)])  # fmt: skip

    args = np.array([x[1], 0.3, *shapes, 0.3, 1.7])
    jac = ft.jacfwd(four)(args)
    np.testing.assert_allclose(jac, fd_jacobian(lambda a: np.asarray(four(a)), (args,), eps=1e-4),
                               rtol=2e-5, atol=1e-7)  # fmt: skip
    np.testing.assert_allclose(ft.jacrev(four)(args), jac, rtol=1e-10, atol=1e-14)


def test_ncx2_second_derivatives_in_x_and_nc_and_the_refusal_in_df():
    p = np.array([2.5, 1.5])
    for method in ("logpdf", "cdf"):

        def f(p, method=method):
            return getattr(st.ncx2, method)(p[0], 3.0, p[1])

        np.testing.assert_allclose(ft.hessian(f)(p), fd_jacobian(ft.grad(f), (p,), eps=1e-5),
                                   rtol=1e-7, atol=1e-10)  # fmt: skip
    with pytest.raises(UnsupportedOperationError, match=r"ncx2\.cdf: its derivative in df"):
        ft.hessian(lambda d: st.ncx2.cdf(2.0, d, 1.0))(3.0)
    assert current_stack() == ()


def test_power_of_a_t_test_differentiated_in_the_effect_size():
    # a user's power curve: P(|T| > t_crit) under the noncentral t
    def power(effect, n=20):
        tcrit = st.t.ppf(0.975, n - 1)
        nc = effect * np.sqrt(n)
        return st.nct.sf(tcrit, n - 1, nc) + st.nct.cdf(-tcrit, n - 1, nc)

    effects = np.array([0.2, 0.5, 0.8])
    np.testing.assert_allclose(ft.vmap(power)(effects), [power(e) for e in effects], rtol=1e-13)
    fd = [fd_jacobian(power, (e,), eps=1e-5) for e in effects]
    np.testing.assert_allclose(ft.vmap(ft.grad(power))(effects), fd, rtol=1e-7)


# -- derivatives where exp overflows in a tail (NOTE [Gumbel tails]) ------------------------


@pytest.mark.parametrize(
    "name,shapes,x",
    [
        ("gumbel_r", (), -1000.0),
        ("gumbel_r", (), 1000.0),
        ("gumbel_l", (), 1000.0),
        ("gumbel_l", (), -1000.0),
        ("gompertz", (0.95,), 1000.0),
        ("hypsecant", (), 1000.0),
        ("hypsecant", (), -1000.0),
    ],
)
def test_derivatives_far_in_a_tail_are_not_nan(name, shapes, x):
    # the cdf, sf and density there are within 1e-250 of 0 or 1: so is the derivative
    # (it was 0 * inf = NaN where exp overflows)
    dist = getattr(st, name)
    for method in ("pdf", "cdf", "sf"):
        g = ft.grad(lambda v, m=method: getattr(dist, m)(v, *shapes, loc=0.3, scale=1.7))(x)
        assert abs(g) < 1e-250, method
    for method in ("logcdf", "logsf"):
        g = ft.grad(lambda v, m=method: getattr(dist, m)(v, *shapes))(x)
        assert not np.isnan(g), method


@pytest.mark.parametrize(
    "name,shapes,x", [("exponpow", (2.5,), 8.0), ("gompertz", (0.9,), 100.0),
                      ("gumbel_r", (), -100.0), ("gumbel_l", (), 100.0)]
)  # fmt: skip
def test_float32_derivatives_where_exp_overflows_in_float32(name, shapes, x):
    # float32's exp overflows past 88 (the exponent held at 709 was inf there)
    dist = getattr(st, name)
    for method in ("pdf", "cdf", "sf"):
        g = ft.vmap(ft.grad(lambda v, m=method: getattr(dist, m)(v, *shapes)))(
            np.array([x], np.float32)
        )
        assert g.dtype == np.float32 and g[0] == 0.0, method


def test_gumbel_logsf_far_right_is_minus_z():
    # log(1 - exp(-exp(-z))) = -z - exp(-z)/2 + ...: SciPy's value is -inf past z = 745
    z = np.array([20.0, 40.0, 800.0])
    got = ft.vmap(st.gumbel_r.logsf)(z)
    np.testing.assert_allclose(got[:2], st.gumbel_r.logsf(z[:2]), rtol=1e-14)
    assert got[2] == -800.0
    np.testing.assert_allclose(ft.vmap(ft.grad(st.gumbel_r.logsf))(z), [-1.0] * 3, rtol=1e-8)
    np.testing.assert_allclose(ft.vmap(st.gumbel_l.logcdf)(-z), got, rtol=1e-15)


# -- scipy.special derivatives: poles, cancellation --------------------------------------


def test_rgamma_derivatives_at_the_poles_of_gamma():
    # (-1)**m m! at -m (it was -0 * digamma(-m) = NaN); the second derivative, of
    # 1/gamma(x) = x (x + 1) ... / gamma(x + m + 1): 2 gamma at 0, mpmath's elsewhere
    x = np.array([-3.0, -2.0, -1.0, 0.0, 0.3, 2.0])
    np.testing.assert_allclose(
        ft.vmap(ft.grad(sp.rgamma))(x), [-6.0, 2.0, -1.0, 1.0, 1.170798412677589,
                                         -0.42278433509846713], rtol=1e-14)  # fmt: skip
    h = ft.vmap(ft.grad(ft.grad(sp.rgamma)))(x)
    np.testing.assert_allclose(h, [15.073412021181605, -3.6911373403938685, 0.8455686701969343,
                                   1.1544313298030657, 0.007458086737341921,
                                   -0.4661874728435735], rtol=1e-12)  # fmt: skip


def test_erfcx_derivative_for_large_x():
    # 2 x erfcx(x) - 2/sqrt(pi) cancels: it was 0 at 1e10 (-1/(sqrt(pi) x**2) there)
    x = np.array([3.0, 25.0, 1e4, 1e10])
    want = [-0.054372260007172871, -0.00090054546344462672, -5.6418957508491275e-9,
            -5.6418958354775629e-21]  # mpmath  # fmt: skip
    np.testing.assert_allclose(ft.vmap(ft.grad(sp.erfcx))(x), want, rtol=1e-13)


def test_ellipkm1_derivative_near_zero():
    # -dK/dm at m = 1 - p, with 1 - m computed back from m: 7 digits at p = 1e-10
    p = np.array([1e-10, 0.3, 1.0])
    want = [-4999999997.150195, -1.4739562556144814, -np.pi / 8]  # mpmath
    np.testing.assert_allclose(ft.vmap(ft.grad(sp.ellipkm1))(p), want, rtol=1e-13)


@pytest.mark.parametrize("kind", ["jn", "yn", "in", "kn"])
def test_spherical_bessel_functions_on_tracers(kind):
    # scipy.special.spherical_jn(n, tracer) raised NumPy's TypeError (its private ufunc
    # had no dispatch); the derivative is SciPy's derivative=True, the second the Bessel
    # equation's
    f = getattr(sp, f"spherical_{kind}")
    z = np.array([0.5, 3.0, 12.0])
    for n in (0, 2):
        np.testing.assert_allclose(ft.vmap(lambda v, n=n: f(n, v))(z), f(n, z), rtol=1e-14)
        g = ft.vmap(ft.grad(lambda v, n=n: f(n, v)))(z)
        np.testing.assert_allclose(g, f(n, z, derivative=True), rtol=1e-14)
        h = ft.vmap(ft.grad(ft.grad(lambda v, n=n: f(n, v))))(z)
        fd = [fd_jacobian(lambda v, n=n: f(n, v, derivative=True), (v,), eps=1e-6) for v in z]
        np.testing.assert_allclose(h, fd, rtol=1e-7)
        d = ft.vmap(lambda v, n=n: f(n, v, derivative=True))(z)
        np.testing.assert_allclose(d, f(n, z, derivative=True), rtol=1e-14)


@pytest.mark.parametrize("name", ["yn", "expn"])
def test_integer_order_derivatives_at_a_float_order(name):
    # SciPy truncates a float order (yn(0.3, x) is y0(x)); the derivative's neighbouring
    # orders were those of 0.3 (-0.7 and 1.3, read as 0 and 1: (y0 - y1)/2, not -y1)
    f = getattr(sp, name)
    x = np.array([0.7, 2.0])
    for n in (0.3, 2.7):
        got = ft.vmap(ft.grad(lambda v, n=n: f(n, v)))(x)
        want = ft.vmap(ft.grad(lambda v, n=n: f(int(n), v)))(x)
        np.testing.assert_allclose(got, want, rtol=1e-15)
        fd = [fd_jacobian(lambda v, n=n: f(n, v), (v,), eps=1e-6) for v in x]
        np.testing.assert_allclose(got, fd, rtol=1e-8)


@pytest.mark.parametrize(
    "name,call,deriv",
    [
        ("airy", lambda x: sp.airy(x), lambda x: [sp.airy(x)[1], x * sp.airy(x)[0],
                                                   sp.airy(x)[3], x * sp.airy(x)[2]]),
        ("ellipj", lambda u: sp.ellipj(u, 0.3), None),
        ("shichi", lambda x: sp.shichi(x), lambda x: [np.sinh(x) / x, np.cosh(x) / x]),
    ],
)  # fmt: skip
def test_several_output_special_functions_differentiate(name, call, deriv):
    # they raised "no derivative" (airy: Ai' and x Ai; ellipj in u: cn dn, -sn dn, ...)
    x = np.array([0.4, 1.7])
    nout = len(call(0.5))
    jac = ft.vmap(ft.jacfwd(lambda v: fnp.stack(call(v))))(x)
    rev = ft.vmap(ft.jacrev(lambda v: fnp.stack(call(v))))(x)
    if deriv is not None:
        np.testing.assert_allclose(jac.T, deriv(x), rtol=1e-14)
    for k in range(nout):
        fd = [fd_jacobian(lambda v, k=k: call(v)[k], (v,), eps=1e-6) for v in x]
        np.testing.assert_allclose(jac[:, k], fd, rtol=1e-7)
        h = ft.vmap(ft.hessian(lambda v, k=k: call(v)[k]))(x)
        fd2 = [fd_jacobian(ft.grad(lambda v, k=k: call(v)[k]), (v,), eps=1e-6) for v in x]
        np.testing.assert_allclose(h, fd2, rtol=1e-6)
    np.testing.assert_allclose(rev, jac, rtol=1e-14)


def test_lambertw_differentiates():
    # it raised 'numpy._lambertw has no ftransforms rule'; W' = W / (z (1 + W)), and near 0
    # its series (W'(0) = 1, W''(0) = -2)
    z = np.array([-0.3, 0.0, 5e-4, 1.0, 5.0])
    np.testing.assert_allclose(ft.vmap(sp.lambertw)(z), sp.lambertw(z), rtol=1e-15)
    w = sp.lambertw(z).real
    want = np.where(z == 0, 1.0, w / np.where(z == 0, 1.0, z) / (1 + w))
    got = ft.vmap(ft.grad(lambda v: sp.lambertw(v).real))(z)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    h = ft.vmap(ft.hessian(lambda v: sp.lambertw(v).real))(z)
    fd = [fd_jacobian(ft.grad(lambda v: sp.lambertw(v).real), (v,), eps=1e-6) for v in z]
    np.testing.assert_allclose(h, fd, rtol=1e-7)
    f = lambda v: sp.lambertw(v, k=-1).real  # noqa: E731
    assert ft.grad(f)(-0.2) == pytest.approx(fd_jacobian(f, (-0.2,), eps=1e-6), rel=1e-8)


# -- beta's cdf and sf at and beyond the ends of its support -------------------------------


@pytest.mark.parametrize("a,b", [(0.5, 3.0), (3.0, 0.4), (2.0, 3.0)])
def test_beta_cdf_and_sf_beyond_the_support_have_zero_derivatives(a, b):
    # betainc at a clipped z: 0 * (the density at the end), NaN where a < 1 or b < 1 (in
    # x, loc and scale), and NaN second derivatives in x for every a, b
    for x in (-0.5, 0.0, 1.0, 1.5):
        for method in ("cdf", "sf", "logcdf", "logsf"):

            def f(p, m=method):
                return getattr(st.beta, m)(p[0], a, b, loc=p[1], scale=p[2])

            p = np.array([x, 0.0, 1.0])
            np.testing.assert_array_equal(ft.grad(f)(p), 0.0, err_msg=f"{method} {x}")
            np.testing.assert_array_equal(ft.jacfwd(f)(p), 0.0, err_msg=f"{method} {x}")
            assert ft.hessian(lambda v, m=method: getattr(st.beta, m)(v, a, b))(x) == 0.0
    x = np.array([-0.5, 1e-9, 0.3, 0.999999, 1.5])
    for method in ("cdf", "sf", "logcdf", "logsf"):
        got = ft.vmap(lambda v, m=method: getattr(st.beta, m)(v, a, b))(x)
        np.testing.assert_allclose(got, getattr(st.beta, method)(x, a, b), rtol=1e-13)
    f = lambda v: st.beta.sf(v, a, b)  # noqa: E731
    assert ft.grad(f)(0.3) == pytest.approx(-st.beta.pdf(0.3, a, b), rel=1e-13)


@pytest.mark.parametrize(
    "name,shapes",
    [("gamma", (0.5,)), ("gamma", (2.0,)), ("chi2", (0.7,)), ("f", (0.7, 0.8)),
     ("weibull_min", (0.5,))],
)  # fmt: skip
def test_cdf_below_a_support_from_zero_has_zero_derivatives(name, shapes):
    # a formula at maximum(z, 0): 0 * (the density at 0), NaN where it is infinite, and
    # NaN second derivatives in x for every shape
    dist = getattr(st, name)
    for method in ("cdf", "sf", "logcdf", "logsf"):

        def f(p, m=method):
            return getattr(dist, m)(p[0], *shapes, loc=p[1], scale=p[2])

        p = np.array([-0.5, 0.0, 1.0])
        np.testing.assert_array_equal(ft.grad(f)(p), 0.0, err_msg=method)
        assert ft.hessian(lambda v, m=method: getattr(dist, m)(v, *shapes))(-0.5) == 0.0
        x = np.array([-0.5, 0.0, 1e-8, 0.7, 30.0])
        got = ft.vmap(lambda v, m=method: getattr(dist, m)(v, *shapes))(x)
        np.testing.assert_allclose(got, getattr(dist, method)(x, *shapes), rtol=1e-12)
