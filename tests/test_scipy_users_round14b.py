"""SciPy users, round 14b: density derivatives at the ends of a bounded support
(NOTE [density derivatives at a support end]), ..."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.signal as sg
import scipy.special as sp
import scipy.stats as st

import ftransforms as ft
from ftransforms.core.stack import current_stack
from ftransforms.errors import UnsupportedOperationError


def _one_sided(f, x0, side, h=1e-6):
    """Second-order one-sided difference of ``f`` at ``x0`` into the side ``side``."""
    return (-3.0 * f(x0) + 4.0 * f(x0 + side * h) - f(x0 + 2 * side * h)) / (2 * side * h)


# -- density derivatives at a finite end of the support ---------------------------------

_ENDS = [
    ("beta", (2.0, 3.0), 0.0, 1.0),
    ("beta", (3.0, 2.0), 1.0, -1.0),
    ("gamma", (2.0,), 0.0, 1.0),
    ("chi2", (4.0,), 0.0, 1.0),
    ("weibull_min", (2.0,), 0.0, 1.0),
    ("rayleigh", (), 0.0, 1.0),
    ("f", (4.0, 5.0), 0.0, 1.0),
    ("betaprime", (2.0, 3.0), 0.0, 1.0),
    ("burr12", (2.0, 3.0), 0.0, 1.0),
    ("triang", (0.5,), 0.0, 1.0),
    ("rice", (1.0,), 0.0, 1.0),
    ("ncx2", (4.0, 1.0), 0.0, 1.0),
    ("gamma", (3.0,), 0.0, 1.0),
    ("maxwell", (), 0.0, 1.0),
]


@pytest.mark.parametrize("name, shape, end, side", _ENDS)
def test_pdf_derivative_at_support_end_is_one_sided(name, shape, end, side):
    dist = getattr(st, name)
    f = lambda x: dist.pdf(x, *shape)  # noqa: E731
    expected = _one_sided(f, end, side)
    got = ft.grad(f)(end)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-8)
    # the value at the end stays SciPy's
    assert ft.vmap(f)(np.array([end])) == f(end)


def test_beta_pdf_end_derivatives_in_x_loc_scale_shape_and_second_order():
    f = lambda x: st.beta.pdf(x, 2.0, 3.0)  # noqa: E731  12 x (1 - x)**2
    x = np.array([0.0, 0.5, 1.0])
    np.testing.assert_allclose(ft.vmap(ft.grad(f))(x), [12.0, -3.0, 0.0], atol=1e-9)
    np.testing.assert_allclose(ft.jacrev(f)(x), np.diag([12.0, -3.0, 0.0]), atol=1e-9)
    np.testing.assert_allclose(ft.jit(ft.grad(f))(0.0), 12.0, rtol=1e-12)
    # second derivative 12 (-4 + 6 x) = -48 at 0 (the one-sided limit)
    np.testing.assert_allclose(ft.grad(ft.grad(f))(0.0), -48.0, rtol=1e-6)
    # loc moves the density: d/dloc = -d/dx
    g = ft.grad(lambda loc: st.gamma.pdf(1.0, 2.0, loc=loc, scale=2.0))(1.0)
    np.testing.assert_allclose(g, -0.25, rtol=1e-10)
    # the density is 0 at x = 0 for every a > 1: no derivative in a
    assert ft.grad(lambda a: st.beta.pdf(0.0, a, 3.0))(2.0) == 0.0
    # finite nonzero values at an end keep their exact derivatives
    assert ft.grad(lambda x: st.expon.pdf(x))(0.0) == -1.0


# -- scipy.special: agm, Hermite polynomials, kolmogorov ---------------------------------


def _central(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


@pytest.mark.parametrize("a, b", [(1.5, 2.0), (2.0, 2.0), (0.1, 10.0), (-1.0, -3.0)])
def test_agm_derivatives_match_differences(a, b):
    ga = ft.grad(lambda u: sp.agm(u, b))(a)
    gb = ft.grad(lambda v: sp.agm(a, v))(b)
    np.testing.assert_allclose(ga, _central(lambda u: sp.agm(u, b), a), rtol=1e-7)
    np.testing.assert_allclose(gb, _central(lambda v: sp.agm(a, v), b), rtol=1e-7)
    # homogeneous of degree 1: a dM/da + b dM/db = M
    np.testing.assert_allclose(a * ga + b * gb, sp.agm(a, b), rtol=1e-12)


def test_agm_second_derivative():
    got = ft.hessian(lambda u: sp.agm(u, 2.0))(1.5)
    d1 = lambda u: _central(lambda v: sp.agm(v, 2.0), u, 1e-4)  # noqa: E731
    np.testing.assert_allclose(got, _central(d1, 1.5, 1e-4), rtol=1e-6)


@pytest.mark.parametrize("fn", [sp.eval_hermite, sp.eval_hermitenorm])
def test_hermite_derivatives_in_x(fn):
    x = np.array([-1.3, 0.0, 0.7, 2.0])
    n = np.array([0, 1, 3, 5])
    got = ft.vmap(ft.grad(lambda k, v: fn(k, v), argnums=1))(n, x)
    np.testing.assert_allclose(got, _central(lambda v: fn(n, v), x), rtol=1e-7, atol=1e-7)
    # second order: d2/dx2 H_4 = 2*4 * 2*3 H_2, d2/dx2 He_4 = 4*3 He_2
    c = 48.0 if fn is sp.eval_hermite else 12.0
    np.testing.assert_allclose(ft.hessian(lambda v: fn(4, v))(0.7), c * fn(2, 0.7), rtol=1e-12)


def test_kolmogorov_derivative_is_minus_the_kstwobign_density():
    y = np.array([0.3, 0.7, 1.5, 4.0])
    got = ft.vmap(ft.grad(sp.kolmogorov))(y)
    np.testing.assert_allclose(got, -st.kstwobign.pdf(y), rtol=1e-12)
    np.testing.assert_allclose(got, _central(sp.kolmogorov, y), rtol=1e-6)
    # second order: the density's slope, on both sides of the series' switch at y = 1
    from scipy.special._ufuncs import _kolmogp

    y2 = np.array([0.2, 0.5, 0.999, 1.0, 1.3])
    h = ft.vmap(ft.hessian(sp.kolmogorov))(y2)
    np.testing.assert_allclose(h, _central(_kolmogp, y2), rtol=1e-6)


# -- scipy.signal.dlsim on traced inputs; lsim/impulse/step: a clear error ---------------

_SS = (
    np.array([[0.9, 0.1], [0.0, 0.8]]),
    np.array([[1.0], [0.5]]),
    np.array([[1.0, 0.0]]),
    np.array([[0.2]]),
    0.1,
)


def _fd_vec(f, x, h=1e-6):
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(x.size)])


def test_dlsim_is_differentiable_in_input_and_initial_state():
    u = np.array([1.0, 2.0, 0.5, -1.0, 3.0])
    f = lambda v: sg.dlsim(([1.0], [1.0, -0.5], 1.0), v)[1].sum()  # noqa: E731
    np.testing.assert_allclose(ft.grad(f)(u), _fd_vec(f, u), rtol=1e-8)
    g = lambda x0: sum(o.sum() for o in sg.dlsim(_SS, u, x0=x0)[1:])  # noqa: E731
    x0 = np.array([1.0, -1.0])
    np.testing.assert_allclose(ft.grad(g)(x0), _fd_vec(g, x0), rtol=1e-8)
    # values under vmap: SciPy's, row by row (tout, yout, xout for a state-space system)
    rows = np.stack([u, -2.0 * u])
    got = ft.vmap(lambda v: sg.dlsim(_SS, v)[1:])(rows)
    for k, r in enumerate(rows):
        _, y, x = sg.dlsim(_SS, r)
        np.testing.assert_allclose(got[0][k], y, rtol=1e-13)
        np.testing.assert_allclose(got[1][k], x, rtol=1e-13)
    # t resamples u linearly onto the steps
    t = np.array([0.0, 0.25, 0.5])
    sys = ([1.0], [1.0, -0.5], 0.1)
    got = ft.vmap(lambda v: sg.dlsim(sys, v, t=t)[1])(u[None, :3])[0]
    np.testing.assert_allclose(got, sg.dlsim(sys, u[:3], t=t)[1], rtol=1e-13)


def test_traced_system_and_continuous_simulations_name_the_scipy_function():
    u = np.ones(5)
    with pytest.raises(UnsupportedOperationError, match=r"scipy\.signal\.dlsim.*traced"):
        ft.grad(lambda a: sg.dlsim(([1.0], [1.0, a], 1.0), u)[1].sum())(-0.5)
    with pytest.raises(UnsupportedOperationError, match=r"scipy\.signal\.lsim.*dlsim"):
        ft.grad(lambda v: sg.lsim(([1.0], [1.0, 1.0]), v, np.arange(5.0))[1].sum())(u)
    for fn in (sg.impulse, sg.step):
        with pytest.raises(UnsupportedOperationError, match=rf"scipy\.signal\.{fn.__name__}"):
            ft.grad(lambda a, fn=fn: fn(([1.0], [1.0, a]))[1].sum())(1.0)
    assert current_stack() == ()


# -- derivatives where z**b overflows (x = +-1e300) ---------------------------------------


def test_exponpow_and_gennorm_far_tails_have_zero_not_nan_derivatives():
    x = np.array([1e300, 2.0])
    for fn in [
        lambda v: st.exponpow.cdf(v, 2.5),
        lambda v: st.gennorm.pdf(v, 3.0),
        lambda v: st.gennorm.cdf(v, 3.0),
        lambda v: st.gennorm.cdf(-v, 3.0),
    ]:
        got = ft.vmap(ft.grad(fn))(x)
        assert got[0] == 0.0
        np.testing.assert_allclose(got[1], _central(fn, x[1]), rtol=1e-6)
        np.testing.assert_allclose(ft.vmap(fn)(x), fn(x), rtol=1e-14)
    # (SciPy's exponpow.pdf is NaN there, 0 * inf; the density underflows to 0)
    assert ft.value_and_grad(lambda v: st.exponpow.pdf(v, 2.5))(1e300) == (0.0, 0.0)
    # in the shape too
    assert ft.grad(lambda b: st.gennorm.cdf(1e300, b))(3.0) == 0.0
    assert ft.grad(lambda b: st.exponpow.sf(1e300, b))(2.5) == 0.0
    assert ft.grad(lambda b: st.gennorm.pdf(-1e300, b))(3.0) == 0.0


def test_t_logpdf_far_tail_in_df_is_finite():
    df, z = 3.0, 1e300
    got = ft.value_and_grad(lambda d: st.t.logpdf(z, d))(df)
    # log1p(z**2/df) = 2 log z - log df there (df / z**2 underflows)
    log1p_term = 2.0 * np.log(z) - np.log(df)
    value = (
        sp.gammaln((df + 1) / 2)
        - sp.gammaln(df / 2)
        - 0.5 * np.log(df * np.pi)
        - 0.5 * (df + 1) * log1p_term
    )
    slope = (
        0.5 * (sp.digamma((df + 1) / 2) - sp.digamma(df / 2))
        - 0.5 / df
        - 0.5 * log1p_term
        + 0.5 * (df + 1) / df
    )
    np.testing.assert_allclose(got[0], value, rtol=1e-14)
    np.testing.assert_allclose(got[1], slope, rtol=1e-12)
    assert ft.grad(lambda d: st.t.pdf(z, d))(df) == 0.0
    # below the switch the ordinary form, to rounding
    for v in (1e140, 1e160):
        np.testing.assert_allclose(
            ft.vmap(lambda u: st.t.logpdf(u, df))(np.array([v])),
            [
                sp.gammaln(2.0)
                - sp.gammaln(1.5)
                - 0.5 * np.log(3 * np.pi)
                - 2.0 * (2 * np.log(v) - np.log(3.0))
            ],
            rtol=1e-14,
        )


def test_infinite_one_sided_slope_at_an_end_stays_nan_not_a_finite_number():
    # semicircular's density vanishes like sqrt(1 + x) at -1; beta(1.5, 3)'s like sqrt(x)
    assert np.isnan(ft.grad(lambda x: st.semicircular.pdf(x))(-1.0))
    assert np.isnan(ft.grad(lambda x: st.beta.pdf(x, 1.5, 3.0))(0.0))
    # next to them, the ordinary derivatives
    np.testing.assert_allclose(
        ft.grad(lambda x: st.semicircular.pdf(x))(0.5),
        _central(st.semicircular.pdf, 0.5),
        rtol=1e-7,
    )
