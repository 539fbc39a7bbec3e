"""SciPy users, round 15: derivatives that hit inf * 0 = NaN (stdtr/stdtrit in df at the
centre, arcsine's logcdf near 0, loggamma's far left tail, Weibull-type cdfs where a power
overflows or underflows, burr12 far right), rice's slope in b at 0, SciPy's frozen
multivariate_normal and dirichlet's moments on tracers, Hankel derivatives, and the
refusal of digamma's derivative at a complex argument."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sp
from program_oracles import fd_jacobian

import ftransforms as ft


def _t_pdf0(df):
    return sp.gamma((df + 1) / 2) / (np.sqrt(df * np.pi) * sp.gamma(df / 2))


# -- stdtr / stdtrit in df at the centre (NOTE [t cdf near 0]) ----------------------------


@pytest.mark.parametrize("df", [0.3, 3.0, 50.0])
def test_stdtr_and_stdtrit_in_df_at_the_centre(df):
    # t = 0: every t distribution has cdf 1/2 there, so 0 in df (was inf * 0 = NaN)
    assert ft.grad(lambda d: sp.stdtr(d, 0.0))(df) == 0.0
    assert ft.grad(lambda d: sp.stdtrit(d, 0.5))(df) == 0.0
    # near 0: t times d pdf(0) / d df (the differences of stdtr there keep few digits)
    d_pdf0 = fd_jacobian(_t_pdf0, (df,), eps=1e-5 * df)
    assert ft.grad(lambda d: sp.stdtr(d, 1e-5))(df) == pytest.approx(1e-5 * d_pdf0, rel=1e-6)
    for t in (0.3, -0.7, -3.0):
        f = lambda d, t=t: sp.stdtr(d, t)  # noqa: E731
        want = fd_jacobian(f, (df,), eps=1e-5 * df)
        assert ft.grad(f)(df) == pytest.approx(want, rel=1e-5, abs=1e-15)
    for p in (0.3, 0.99):
        f = lambda d, p=p: sp.stdtrit(d, p)  # noqa: E731
        want = fd_jacobian(f, (df,), eps=1e-5 * df)
        assert ft.grad(f)(df) == pytest.approx(want, rel=1e-6)
    # vmapped over t through the three forms (line, centre, tail)
    t = np.array([0.0, 1e-12, 0.5, -2.0 * np.sqrt(df)])
    got = ft.vmap(ft.grad(lambda d, v: sp.stdtr(d, v)), in_dims=(None, 0))(df, t)
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(
        got[2:],
        [fd_jacobian(lambda d, v=v: sp.stdtr(d, v), (df,), eps=1e-5 * df) for v in t[2:]],
        rtol=1e-5,
    )


def test_stdtr_mixed_derivative_in_df_and_t_at_zero():
    # d/dt d/ddf stdtr at t = 0 is d pdf(0) / d df: finite, to differences
    got = ft.grad(lambda t: ft.grad(lambda d: sp.stdtr(d, t))(3.0))(0.0)
    want = fd_jacobian(_t_pdf0, (3.0,), eps=1e-5)
    assert got == pytest.approx(want, rel=1e-8)


# -- rice in b at b = 0 -------------------------------------------------------------------


def test_rice_logpdf_in_b_at_zero_is_zero():
    # log I0(z b) is even in b: the slope at b = 0 is 0 (through i0e's kink it was z)
    import scipy.stats as st

    for z in (2.0, 0.01, 30.0):
        assert ft.grad(lambda b, z=z: st.rice.logpdf(z, b))(0.0) == 0.0
        assert ft.grad(lambda b, z=z: st.rice.pdf(z, b))(0.0) == 0.0
    # the second derivative at 0: -1 + z**2 / 2 (I0(u) = 1 + u**2 / 4 + ...)
    assert ft.hessian(lambda b: st.rice.logpdf(2.0, b))(0.0) == pytest.approx(1.0, rel=1e-12)
    for b, z in ((0.05, 3.0), (0.3, 2.0), (40.0, 30.0), (30.0, 25.0)):
        f = lambda v, z=z: st.rice.logpdf(z, v)  # noqa: E731
        assert ft.jit(f)(b) == pytest.approx(f(b), rel=1e-13)
        assert ft.grad(f)(b) == pytest.approx(fd_jacobian(f, (b,), eps=1e-6 * b), rel=1e-6)


# -- SciPy's frozen multivariate distributions at a traced point --------------------------


def _mvn_case():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 3))
    return np.array([0.1, -0.2, 0.3]), a @ a.T + 3.0 * np.eye(3), np.array([0.5, 0.1, -0.4])


def test_frozen_multivariate_normal_density_at_a_traced_point():
    import scipy.stats as st

    mean, cov, x = _mvn_case()
    rv = st.multivariate_normal(mean, cov)  # plain parameters: SciPy's frozen object
    for f in (
        rv.logpdf,
        lambda v: st.multivariate_normal(mean=mean, cov=cov).pdf(v),  # frozen inside
        lambda v: rv.logpdf(np.stack([v, 2.0 * v])).sum(),
    ):
        assert ft.jit(f)(x) == pytest.approx(f(x), rel=1e-13)
        np.testing.assert_allclose(ft.grad(f)(x), fd_jacobian(f, (x,), eps=1e-5), rtol=1e-7)
    np.testing.assert_allclose(
        ft.vmap(rv.logpdf)(np.stack([x, 2.0 * x])), rv.logpdf(np.stack([x, 2.0 * x])), rtol=1e-13
    )
    # the cdf in x: the marginal density times the conditional cdf of the others
    d = x - mean
    want = []
    for i in range(3):
        o = [j for j in range(3) if j != i]
        mu = cov[o, i] / cov[i, i] * d[i]
        c = cov[np.ix_(o, o)] - np.outer(cov[o, i], cov[i, o]) / cov[i, i]
        marginal = st.norm.pdf(d[i], 0.0, np.sqrt(cov[i, i]))
        want.append(marginal * st.multivariate_normal.cdf(d[o], mu, c))
    np.testing.assert_allclose(ft.grad(rv.cdf)(x), want, rtol=1e-6)
    # a singular one keeps SciPy's value on its support
    rs = st.multivariate_normal(np.zeros(2), np.ones((2, 2)), allow_singular=True)
    assert ft.jit(rs.logpdf)(np.array([0.3, 0.3])) == pytest.approx(rs.logpdf([0.3, 0.3]))


def test_frozen_dirichlet_and_multinomial_at_a_traced_point():
    import scipy.stats as st

    rd = st.dirichlet(np.array([1.5, 2.0, 3.0]))
    f = lambda v: rd.logpdf(v / v.sum())  # noqa: E731
    x = np.array([0.2, 0.3, 0.5])
    assert ft.jit(f)(x) == pytest.approx(f(x), rel=1e-13)
    np.testing.assert_allclose(ft.grad(f)(x), fd_jacobian(f, (x,), eps=1e-6), rtol=1e-7)
    rm = st.multinomial(10, np.array([0.2, 0.3, 0.5]))
    k = np.array([2.0, 3.0, 5.0])
    assert ft.jit(rm.logpmf)(k) == pytest.approx(rm.logpmf(k), rel=1e-13)
    assert ft.jit(rm.pmf)(k) == pytest.approx(rm.pmf(k), rel=1e-13)


# -- dirichlet's moments and entropy in alpha ---------------------------------------------


@pytest.mark.parametrize("method", ["mean", "var", "cov", "entropy"])
def test_dirichlet_moments_and_entropy_in_alpha(method):
    import scipy.stats as st

    alpha = np.array([1.5, 2.0, 3.0])
    want_value = getattr(st.dirichlet, method)(alpha)
    weights = np.arange(1.0, 1.0 + np.size(want_value)).reshape(np.shape(want_value)) ** 2

    def f(a):
        return np.sum(getattr(st.dirichlet, method)(a) * weights)

    np.testing.assert_allclose(
        ft.jit(lambda a: getattr(st.dirichlet, method)(a))(alpha), want_value, rtol=1e-13
    )
    np.testing.assert_allclose(ft.grad(f)(alpha), fd_jacobian(f, (alpha,), eps=1e-6), rtol=1e-7)
    # frozen, and vmapped over alphas
    g = lambda a: np.sum(getattr(st.dirichlet(a), method)() * weights)  # noqa: E731
    np.testing.assert_allclose(ft.grad(g)(alpha), ft.grad(f)(alpha), rtol=1e-14)
    batch = np.stack([alpha, 2.0 * alpha])
    np.testing.assert_allclose(ft.vmap(f)(batch), [f(a) for a in batch], rtol=1e-13)


# -- loggamma's far left tail, arcsine's logcdf near 0 ------------------------------------


def test_loggamma_far_left_tail_values_and_derivatives():
    import scipy.stats as st

    c = 0.414
    for x in (-1112.0, -750.0, -709.0, -500.0, -3.0):
        # the values: SciPy's series below log(tiny) (cdf was 0, logcdf -inf there)
        for method in ("cdf", "logcdf", "sf", "logsf"):
            got = ft.jit(lambda t, m=method: getattr(st.loggamma, m)(t, c))(x)
            assert got == pytest.approx(getattr(st.loggamma, method)(x, c), rel=1e-12)
        # in x: the density, and its ratios to the cdf and sf (were NaN and inf)
        pdf, logpdf = st.loggamma.pdf(x, c), st.loggamma.logpdf(x, c)
        assert ft.grad(lambda t: st.loggamma.cdf(t, c))(x) == pytest.approx(pdf, rel=1e-10)
        assert ft.grad(lambda t: st.loggamma.sf(t, c))(x) == pytest.approx(-pdf, rel=1e-10)
        want = np.exp(logpdf - st.loggamma.logcdf(x, c))
        assert ft.grad(lambda t: st.loggamma.logcdf(t, c))(x) == pytest.approx(want, rel=1e-10)
        # in c, to differences
        f = lambda s, x=x: st.loggamma.logcdf(x, s)  # noqa: E731
        assert ft.grad(f)(c) == pytest.approx(fd_jacobian(f, (c,), eps=1e-6), rel=1e-8)


def test_arcsine_logcdf_derivative_near_zero_is_finite():
    import scipy.stats as st

    for x in (2.5e-24, 1e-10, 0.3, 0.7):
        want = np.exp(st.arcsine.logpdf(x) - st.arcsine.logcdf(x))
        assert ft.grad(st.arcsine.logcdf)(x) == pytest.approx(want, rel=1e-9)
        assert ft.grad(st.arcsine.cdf)(x) == pytest.approx(st.arcsine.pdf(x), rel=1e-12)
        assert ft.grad(st.arcsine.sf)(x) == pytest.approx(-st.arcsine.pdf(x), rel=1e-12)
        assert ft.jit(st.arcsine.cdf)(x) == pytest.approx(st.arcsine.cdf(x), rel=1e-13)
        assert ft.jit(st.arcsine.sf)(x) == pytest.approx(st.arcsine.sf(x), rel=1e-13)
    assert ft.hessian(st.arcsine.cdf)(0.7) == pytest.approx(ft.grad(st.arcsine.pdf)(0.7), rel=1e-12)


# -- Hankel functions in x ----------------------------------------------------------------


@pytest.mark.parametrize("name", ["hankel1", "hankel2", "hankel1e", "hankel2e"])
def test_hankel_functions_differentiate_in_x(name):
    h = getattr(sp, name)
    for f in (
        lambda x: np.abs(h(1.5, x)),
        lambda x: np.angle(h(1.5, x)),
        lambda x: np.real(h(0.7, x)),
        lambda x: np.imag(h(2.0, x)),
    ):
        for x in (0.3, 2.3, 40.0):
            assert ft.grad(f)(x) == pytest.approx(fd_jacobian(f, (x,), eps=1e-6 * x), rel=1e-7)
    # the complex derivative itself, forward: real and imaginary parts to differences
    d = ft.jacfwd(lambda x: h(1.5, x))(2.3)
    for part in (np.real, np.imag):
        want = fd_jacobian(lambda x, part=part: part(h(1.5, x)), (2.3,), eps=1e-6)
        assert part(d) == pytest.approx(want, rel=1e-7)


# -- digamma at a complex argument: a clear refusal ----------------------------------------


def test_digamma_derivative_at_a_complex_argument_is_a_clear_error():
    from ftransforms.core.stack import current_stack
    from ftransforms.errors import UnsupportedOperationError

    def f(v):
        return np.real(sp.digamma(v[0] + 1j * v[1]))

    with pytest.raises(UnsupportedOperationError, match=r"digamma\(z\).*complex"):
        ft.grad(f)(np.array([0.5, 0.3]))
    assert current_stack() == ()
    # its value and loggamma's derivative (digamma itself) at a complex z still work
    assert ft.jit(f)(np.array([0.5, 0.3])) == pytest.approx(f(np.array([0.5, 0.3])), rel=1e-14)
    g = ft.grad(lambda v: np.real(sp.loggamma(v[0] + 1j * v[1])))(np.array([0.5, 0.3]))
    want = fd_jacobian(lambda v: np.real(sp.loggamma(v[0] + 1j * v[1])), (np.array([0.5, 0.3]),))
    np.testing.assert_allclose(g, want, rtol=1e-8)


# -- burr12 far right: log1p(z**c) without the overflow -------------------------------------


def test_burr12_logpdf_far_right_is_finite_in_value_and_derivatives():
    import scipy.stats as st

    c, d = 1.5, 2.0
    for x in (1e300, 1e200, 1e10, 3.0, 1.0, 0.5, 1e-10):
        # log(c d) + (c - 1) log x - (d + 1) log1p(x**c); for x > 1 log1p(x**c) is
        # c log x + log1p(x**-c) exactly (1e300**1.5 overflows: SciPy's value is -inf there)
        log_x = np.log(x)
        tail = c * log_x + np.log1p(x**-c) if x > 1 else np.log1p(x**c)
        want = np.log(c * d) + (c - 1.0) * log_x - (d + 1.0) * tail
        assert fs_burr12_logpdf(x, c, d) == pytest.approx(want, rel=1e-14)
        if x <= 1e200:
            assert st.burr12.logpdf(x, c, d) == pytest.approx(want, rel=1e-14)
        # in c: log x (1 - (d + 1) x**c / (1 + x**c)) + 1 / c, finite (was NaN at 1e300)
        frac = 1.0 / (1.0 + x**-c) if x > 1 else x**c / (1.0 + x**c)
        want_c = 1.0 / c + log_x * (1.0 - (d + 1.0) * frac)
        got_c = ft.grad(lambda s, x=x: st.burr12.logpdf(x, s, d))(c)
        assert got_c == pytest.approx(want_c, rel=1e-12)
        # in d: 1 / d - log1p(x**c) (was -inf at 1e300)
        got_d = ft.grad(lambda s, x=x: st.burr12.logpdf(x, c, s))(d)
        assert got_d == pytest.approx(1.0 / d - tail, rel=1e-12)


def fs_burr12_logpdf(x, c, d):
    import ftransforms.scipy.stats as fs

    return fs.burr12.logpdf(np.float64(x), c, d)


# -- Weibull's cdf and sf where the power overflows -----------------------------------------


def test_weibull_cdf_sf_in_c_where_the_power_overflows():
    import scipy.stats as st

    c = 1.79
    # z**c overflows to inf: exp(-inf) = 0 had the derivative 0 * inf = NaN in c
    for dist, x, method in (
        (st.weibull_min, 1e300, "sf"),
        (st.weibull_min, 1e300, "cdf"),
        (st.weibull_min, 1e300, "logcdf"),
        (st.weibull_max, -1e300, "sf"),
        (st.weibull_max, -1e300, "cdf"),
        (st.weibull_max, -1e300, "logsf"),
    ):
        f = lambda s, d=dist, x=x, m=method: getattr(d, m)(x, s)  # noqa: E731
        assert ft.grad(f)(c) == 0.0
        g = lambda t, d=dist, m=method: getattr(d, m)(t, c)  # noqa: E731
        assert ft.grad(g)(x) == 0.0
        assert ft.jit(g)(np.float64(x)) == getattr(dist, method)(x, c)
    # where it does not overflow, the derivatives to differences
    for x in (3.0, 2.0, 0.3):
        for method in ("sf", "cdf", "logcdf"):
            f = lambda s, x=x, m=method: getattr(st.weibull_min, m)(x, s)  # noqa: E731
            assert ft.grad(f)(c) == pytest.approx(
                fd_jacobian(f, (c,), eps=1e-6), rel=1e-6, abs=1e-300
            )


def test_dweibull_and_exponweib_tails_have_finite_derivatives():
    import scipy.stats as st

    c = 2.0685
    for x in (1e300, -1e300):
        for method in ("cdf", "sf"):
            f = lambda s, x=x, m=method: getattr(st.dweibull, m)(x, s)  # noqa: E731
            assert ft.grad(f)(c) == 0.0
    a, c = 2.89, 1.95
    # far right: exp(-z**c) underflows; far left: z**c underflows (log 0 = -inf before)
    for x in (1e300, 1e-300):
        for method in ("cdf", "sf", "logsf"):
            for i in (0, 1):
                f = lambda s, x=x, m=method, i=i: getattr(st.exponweib, m)(  # noqa: E731
                    x, *((s, c) if i == 0 else (a, s))
                )
                assert np.isfinite(ft.grad(f)((a, c)[i]))
    # logcdf far left: a c log(x), finite (SciPy's underflows to -inf)
    got = ft.grad(lambda s: st.exponweib.logcdf(1e-300, s, c))(a)
    assert got == pytest.approx(c * np.log(1e-300), rel=1e-12)
    for x in (1e-3, 0.3, 2.0):  # around the switch at z**c = 1e-8, to differences
        f = lambda s, x=x: st.exponweib.logcdf(x, a, s)  # noqa: E731
        assert ft.grad(f)(c) == pytest.approx(fd_jacobian(f, (c,), eps=1e-6), rel=1e-6)
        assert ft.jit(lambda t: st.exponweib.logcdf(t, a, c))(np.float64(x)) == pytest.approx(
            st.exponweib.logcdf(x, a, c), rel=1e-12
        )
