"""SciPy users, round 14: derivatives of scipy.stats cdfs at their centre (t, gennorm,
t.ppf(0.5) in df), cdfs that kept few digits far in a tail (cauchy, cosine), derivatives
lost where an exponential overflows (exponpow), ..."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as st
from program_oracles import fd_jacobian

import ftransforms as ft

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
