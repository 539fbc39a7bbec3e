"""SciPy users, round 13: SciPy's values where a cdf rounds to 1 (logcdf/logsf through the
complement), hypergeom off the integers, more scipy.stats distributions on tracers, ..."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.interpolate as si
import scipy.linalg as sl
import scipy.special as sp
import scipy.stats as st
from program_oracles import fd_jacobian
from scipy.stats._distr_params import distcont as DIST_PARAMS

import ftransforms as ft
import ftransforms.numpy as fnp
import ftransforms.scipy.special as fsp
import ftransforms.scipy.stats as fss
from ftransforms.core.stack import current_stack
from ftransforms.errors import UnsupportedOperationError
from ftransforms.scipy.stats_distributions import DISTRIBUTIONS

# -- logcdf / logsf above the median: log1p of the other tail (SciPy's generic rule) -------


@pytest.mark.parametrize(
    "dist,shapes,x",
    [
        (st.f, (3.0, 7.0), np.array([0.2, 1e2, 1e4])),
        (st.t, (4.5,), np.array([-1e3, 0.1, 1e3])),
        (st.gamma, (2.5,), np.array([0.1, 30.0, 40.0])),
        (st.beta, (2.0, 3.0), np.array([1e-9, 0.5, 0.99999])),
    ],
)
def test_logcdf_and_logsf_keep_the_other_tail(dist, shapes, x):
    for method in ("logcdf", "logsf"):
        got = ft.vmap(lambda v, m=method: getattr(dist, m)(v, *shapes))(x)
        ref = getattr(dist, method)(x, *shapes)
        np.testing.assert_allclose(got, ref, rtol=1e-9, atol=0)
    # the derivative of log1p(-sf): -pdf / cdf
    g = ft.grad(lambda v: dist.logcdf(v, *shapes))(x[-1])
    assert g == pytest.approx(dist.pdf(x[-1], *shapes) / dist.cdf(x[-1], *shapes), rel=1e-7)


def test_nbinom_logcdf_above_the_median():
    k = np.array([1.0, 5.0, 80.0])
    got = ft.vmap(lambda v: st.nbinom.logcdf(v, 5, 0.5))(k)
    np.testing.assert_allclose(got, st.nbinom.logcdf(k, 5, 0.5), rtol=1e-9, atol=0)


# -- hypergeom off the integers: SciPy's NaN inside the support -----------------------------


@pytest.mark.parametrize("shapes", [(20, 7, 12), (20, 15, 12)])
def test_hypergeom_cdf_and_sf_at_non_integer_points(shapes):
    k = np.array([-0.5, 0.0, 2.0, 2.5, 6.5, 7.0, 7.5, 11.5, 12.0, 12.5])
    for method in ("cdf", "sf"):
        got = ft.vmap(lambda v, m=method: getattr(st.hypergeom, m)(v, *shapes))(k)
        np.testing.assert_allclose(got, getattr(st.hypergeom, method)(k, *shapes), rtol=1e-12)
    # log of a NaN probability is NaN, not -inf
    odd = np.array(7.5 if shapes[1] > 7 else 2.5)
    assert np.isnan(ft.jit(lambda v: st.hypergeom.logcdf(v, *shapes))(odd))


# -- SciPy's spline fits that are linear in traced data -------------------------------------

X = np.linspace(0.0, 3.0, 9)
XQ = np.array([0.4, 1.3, 2.9])
KNOTS = np.r_[[0.0] * 4, 1.5, [3.0] * 4]


@pytest.mark.parametrize(
    "fit",
    [
        lambda y: si.UnivariateSpline(X, y, s=0)(XQ),
        lambda y: si.UnivariateSpline(X, y, s=0).derivative()(XQ),
        lambda y: np.atleast_1d(si.UnivariateSpline(X, y, s=0).integral(0.2, 2.5)),
        lambda y: si.make_lsq_spline(X, y, KNOTS)(XQ),
        lambda y: si.make_smoothing_spline(X, y, lam=0.1)(XQ),
        lambda y: np.atleast_1d(si.splint(0.2, 2.5, si.splrep(X, y))),
    ],
    ids=[
        "univariate",
        "univariate-derivative",
        "univariate-integral",
        "lsq",
        "smoothing",
        "splint",
    ],  # fmt: skip
)
def test_spline_fits_of_traced_data(fit):
    y = np.sin(X)
    np.testing.assert_allclose(ft.jit(fit)(y), fit(y), rtol=1e-12, atol=1e-13)
    # linear in y: the Jacobian is the fit of the unit vectors
    basis = np.stack([fit(e) - fit(np.zeros_like(y)) for e in np.eye(len(y))], axis=-1)
    np.testing.assert_allclose(ft.jacrev(fit)(y), basis, rtol=1e-10, atol=1e-12)
    ys = np.stack([y, np.cos(X)])
    np.testing.assert_allclose(ft.vmap(fit)(ys), [fit(r) for r in ys], rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda y: si.UnivariateSpline(X, y)(XQ), "s=None"),
        (lambda y: si.UnivariateSpline(X, y, s=0.1)(XQ), "s=0.1"),
        (lambda y: si.make_smoothing_spline(X, y)(XQ), "lam=None"),
    ],
)
def test_smoothing_fits_chosen_from_the_data_refuse(call, match):
    with pytest.raises(UnsupportedOperationError, match=match):
        ft.grad(lambda y: call(y).sum())(np.sin(X))
    assert current_stack() == ()


# -- ftransforms.scipy.special's names of NumPy's functions ---------------------------------


#: scipy.special's names of NumPy's functions, with their derivatives
TWINS = {
    "expm1": np.exp,
    "log1p": lambda x: 1.0 / (1.0 + x),
    "cbrt": lambda x: x ** (-2.0 / 3.0) / 3.0,
    "exp2": lambda x: np.exp2(x) * np.log(2.0),
}


@pytest.mark.parametrize("name", sorted(TWINS))
def test_special_twins_of_numpy_functions_differentiate(name):
    f = getattr(fsp, name)
    x = np.array([0.3, 1.7])
    np.testing.assert_allclose(ft.vmap(ft.grad(f))(x), TWINS[name](x), rtol=1e-14)
    np.testing.assert_allclose(f(x), getattr(sp, name)(x), rtol=1e-15)


# -- more scipy.stats distributions (ftransforms/scipy/stats_distributions.py) --------------

#: SciPy's example shape parameters, and a few more (both signs of the extreme-value
#: shapes, c = 0 included: the derivative in c there comes from a series)
NEW_DISTRIBUTIONS = [(name, shapes) for name, shapes in DIST_PARAMS if name in DISTRIBUTIONS] + [
    ("genextreme", (0.4,)),
    ("genextreme", (0.0,)),
    ("genpareto", (-0.3,)),
    ("gengamma", (2.0, -1.5)),
    ("triang", (0.0,)),
]
LOC, SCALE = 0.3, 1.7
QS = np.array([0.002, 0.3, 0.75, 0.999])


def _points(dist, shapes):
    return dist.ppf(QS, *shapes, loc=LOC, scale=SCALE)


@pytest.mark.parametrize("name,shapes", NEW_DISTRIBUTIONS)
def test_more_distributions_values_match_scipy(name, shapes):
    dist = getattr(st, name)
    lo, hi = dist.support(*shapes, loc=LOC, scale=SCALE)
    x = np.concatenate([_points(dist, shapes), [lo - 1.0, hi + 1.0, lo, hi]])
    x = x[np.isfinite(x)]
    at_x = ("logpdf", "cdf", "logcdf", "sf", "logsf")

    def methods(v, names):
        return fnp.stack([getattr(dist, m)(v, *shapes, loc=LOC, scale=SCALE) for m in names])

    got = ft.vmap(lambda v: methods(v, at_x), out_axes=1)(x)
    for row, method in zip(got, at_x):
        want = getattr(dist, method)(x, *shapes, loc=LOC, scale=SCALE)
        np.testing.assert_allclose(row, want, rtol=1e-8, atol=1e-300, err_msg=method)
    q = np.concatenate([QS, [0.0, 1.0]])
    got = ft.vmap(lambda v: methods(v, ("ppf", "isf")), out_axes=1)(q)
    for row, method in zip(got, ("ppf", "isf")):
        want = getattr(dist, method)(q, *shapes, loc=LOC, scale=SCALE)
        np.testing.assert_allclose(row, want, rtol=1e-8, err_msg=method)


# (triang at c = 0: central differences in c leave its domain)
@pytest.mark.parametrize("name,shapes", [c for c in NEW_DISTRIBUTIONS if c != ("triang", (0.0,))])
def test_more_distributions_derivatives_in_every_parameter(name, shapes):
    dist = getattr(st, name)
    n = len(shapes)
    point = float(_points(dist, shapes)[1])  # away from a kink (triang's mode, ...)

    def three(a):  # logpdf and cdf at the point, ppf at 0.3: in x, the shapes, loc, scale
        shape, loc, scale = a[2 : n + 2], a[-2], a[-1]
        return fnp.stack(
            [
                dist.logpdf(a[0], *shape, loc=loc, scale=scale),
                dist.cdf(a[0], *shape, loc=loc, scale=scale),
                dist.ppf(a[1], *shape, loc=loc, scale=scale),
            ]
        )

    args = np.array([point, 0.3, *shapes, LOC, SCALE])
    got = ft.jacfwd(three)(args)
    want = fd_jacobian(lambda a: np.asarray(three(a)), (args,), eps=1e-4)
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-7)


def test_genextreme_fit_by_maximum_likelihood_under_jit():
    # a user's negative log-likelihood of annual maxima, minimised with SciPy's names
    data = st.genextreme.rvs(-0.2, loc=10.0, scale=2.0, size=40, random_state=0)

    def nll(p):
        return -st.genextreme.logpdf(data, p[0], loc=p[1], scale=np.exp(p[2])).sum()

    p = np.array([-0.1, 9.5, 0.5])
    g = ft.jit(ft.grad(nll))(p)
    np.testing.assert_allclose(g, fd_jacobian(nll, (p,), eps=1e-4), rtol=1e-7)
    h = ft.hessian(nll)(p)
    np.testing.assert_allclose(h, fd_jacobian(ft.grad(nll), (p,), eps=1e-4), rtol=1e-6)


def test_rice_cdf_second_derivatives_through_scipys_values():
    # the cdf is SciPy's chndtr; its derivatives are written (pdf; Marcum's Q in b)
    def cdf(p):
        return st.rice.cdf(p[0], p[1], scale=p[2])

    p = np.array([1.3, 0.7, 1.2])
    np.testing.assert_allclose(
        ft.hessian(cdf)(p), fd_jacobian(ft.grad(cdf), (p,), eps=1e-4), rtol=1e-7
    )


# -- multivariate_normal.cdf (NOTE [multivariate normal cdf]) -------------------------------

COV2 = np.array([[1.0, 0.5], [0.5, 2.0]])


def test_multivariate_normal_cdf_values_and_derivatives_in_two_dimensions():
    def cdf(x, mean, cov):
        return st.multivariate_normal.cdf(x, mean=mean, cov=cov)

    x, mean = np.array([0.3, 0.2]), np.array([0.1, -0.4])
    assert ft.jit(cdf)(x, mean, COV2) == pytest.approx(cdf(x, mean, COV2), rel=1e-14)
    for argnum in range(3):
        got = ft.grad(cdf, argnums=argnum)(x, mean, COV2)
        want = fd_jacobian(cdf, (x, mean, COV2), argnum=argnum, eps=1e-4)
        if argnum == 2:  # SciPy reads the symmetric part: compare along symmetric moves
            got, want = got + got.T, want + want.T
        np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-10)
    h = ft.hessian(cdf)(x, mean, COV2)
    np.testing.assert_allclose(h, fd_jacobian(ft.grad(cdf), (x, mean, COV2), eps=1e-4), rtol=1e-7)
    xs = np.array([[0.3, 0.2], [-1.0, 0.5], [2.0, 1.0]])
    got = ft.vmap(lambda v: cdf(v, mean, COV2))(xs)
    np.testing.assert_allclose(got, [cdf(v, mean, COV2) for v in xs], rtol=1e-14)


def test_multivariate_normal_cdf_gradient_in_three_dimensions_at_zero_correlation():
    # independent margins: Phi_3 is a product, and Plackett's identity gives the
    # off-diagonal covariance derivatives phi_i phi_j Phi_k
    s = np.array([1.0, 2.0, 0.5])
    x = np.array([0.3, -0.2, 0.4])
    z = x / s
    cdf1, pdf1 = st.norm.cdf(z), st.norm.pdf(z) / s
    gx, gcov = ft.grad(lambda v, c: st.multivariate_normal.cdf(v, cov=c), argnums=(0, 1))(
        x, np.diag(s**2)
    )
    want = [pdf1[i] * np.prod(np.delete(cdf1, i)) for i in range(3)]
    np.testing.assert_allclose(gx, want, rtol=1e-9)
    i, j, k = 0, 1, 2
    np.testing.assert_allclose(gcov[i, j] + gcov[j, i], pdf1[i] * pdf1[j] * cdf1[k], rtol=1e-9)


# -- scipy.linalg: svdvals, pinvh, solve_toeplitz, solveh_banded on tracers -----------------

_A = np.array([[2.0, 0.3, -0.5], [0.1, 1.5, 0.4], [-0.2, 0.6, 3.0]])
_B = np.array([0.3, -1.0, 2.0])
_C = np.array([4.0, 1.0, 0.5])


@pytest.mark.parametrize(
    "fn,arg",
    [
        (lambda a: sl.svdvals(a), _A),
        (lambda a: sl.svdvals(a[:2]), _A),
        (lambda a: sl.pinvh(a @ a.T), _A),
        (lambda a: sl.pinvh(a, lower=False), _A + _A.T),  # reads the upper triangle
        (lambda a: sl.pinvh(a @ np.diag([1.0, 1.0, 0.0]) @ a.T), _A),  # a dropped eigenvalue
        (lambda c: sl.solve_toeplitz(c, _B), _C),
        (lambda r: sl.solve_toeplitz((_C, r), _B), np.array([4.0, 2.0, 0.3])),
        (lambda b: sl.solve_toeplitz(_C, np.stack([b, 2 * b], 1)), _B),
        (lambda ab: sl.solveh_banded(ab, _B), np.array([[0.0, 1.0, 1.0], [4.0, 4.0, 4.0]])),
        (lambda ab: sl.solveh_banded(ab, _B, lower=True), np.array([[4.0, 4, 4], [1.0, 1, 0]])),
    ],
    ids=[
        "svdvals",
        "svdvals-wide",
        "pinvh",
        "pinvh-upper",
        "pinvh-cut",
        "toeplitz",
        "toeplitz-row",
        "toeplitz-2d",
        "solveh_banded",
        "solveh_banded-lower",
    ],  # fmt: skip
)
def test_scipy_linalg_functions_on_tracers(fn, arg):
    want = fn(arg)
    np.testing.assert_allclose(ft.jit(fn)(arg), want, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(
        ft.jacrev(fn)(arg), fd_jacobian(fn, (arg,), eps=1e-5), rtol=1e-7, atol=1e-9
    )
    batch = np.stack([arg, 1.1 * arg])
    np.testing.assert_allclose(ft.vmap(fn)(batch), [fn(r) for r in batch], rtol=1e-12, atol=1e-14)


# -- rv_continuous.expect / interval / stats / moment on tracers ---------------------------


def test_expect_differentiates_through_infinite_supports():
    # SciPy's expect integrates from loc + _a * scale: a traced infinity (NaN before)
    def second_moment(m, s):
        return st.norm.expect(lambda x: x**2, loc=m, scale=s)  # m**2 + s**2

    np.testing.assert_allclose(ft.grad(second_moment, argnums=(0, 1))(1.5, 0.5), [3.0, 1.0])
    np.testing.assert_allclose(
        ft.vmap(second_moment)(np.array([1.5, 2.0]), np.ones(2)), [3.25, 5.0]
    )

    def gamma_moment(a, s):  # E[X**2] = a (a + 1) s**2
        return st.gamma(a, scale=s).expect(lambda x: x**2)

    g = ft.grad(gamma_moment, argnums=(0, 1))(2.0, 1.5)
    np.testing.assert_allclose(g, [(2 * 2.0 + 1) * 1.5**2, 2 * 2.0 * 3.0 * 1.5], rtol=1e-8)
    cond = lambda m: st.norm.expect(lambda x: x, loc=m, lb=0.0, conditional=True)  # noqa: E731
    assert ft.grad(cond)(0.5) == pytest.approx(fd_jacobian(cond, (0.5,), eps=1e-4), rel=1e-7)


def test_cdf_at_infinity_has_no_derivative_in_the_parameters():
    got = ft.grad(lambda s: st.norm.cdf(np.inf, loc=0.3, scale=s) + st.norm.sf(-np.inf, scale=s))
    assert got(1.5) == 0.0
    assert ft.grad(lambda a: st.gamma.cdf(np.inf, a, scale=2.0))(2.5) == 0.0  # d/da P(a, inf)
    assert ft.grad(lambda a: sp.gammaincc(a, np.inf))(2.5) == 0.0


def test_frozen_interval_stats_and_moment():
    def summary(m, a):
        lo, hi = st.norm(m, 2.0).interval(0.9)
        mean, var = st.gamma(a, scale=m).stats(moments="mv")
        return fnp.stack([lo, hi, mean, var, st.gamma(a).moment(2), st.gamma.moment(1, a)])

    m, a = 0.5, 2.0
    want = [*st.norm(m, 2.0).interval(0.9), *st.gamma(a, scale=m).stats(moments="mv"),
            st.gamma(a).moment(2), st.gamma.moment(1, a)]  # fmt: skip
    np.testing.assert_allclose(ft.jit(summary)(np.array(m), np.array(a)), want, rtol=1e-12)
    jac = ft.jacfwd(summary, argnums=(0, 1))(m, a)
    fd = [
        fd_jacobian(lambda *p: np.asarray(summary(*p)), (m, a), argnum=i, eps=1e-5) for i in (0, 1)
    ]
    np.testing.assert_allclose(jac[0], fd[0], rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(jac[1], fd[1], rtol=1e-7, atol=1e-10)


def test_new_distributions_on_the_strict_device_stand_in():
    # the CuPy path: values from SciPy come back as device arrays (strict backend)
    from ftransforms.strict_backend import asarray, to_numpy

    x = np.array([-1.0, 0.5, 2.0])
    got = [
        fss.genextreme.logpdf(asarray(x), asarray(np.array(0.2))),
        fss.rice.cdf(asarray(x), asarray(np.array(0.7))),
        fss.nakagami.ppf(asarray(np.array([0.1, 0.5])), asarray(np.array(1.5))),
        fss.multivariate_normal.cdf(asarray(np.array([0.3, 0.2])), cov=asarray(COV2)),
    ]
    want = [
        st.genextreme.logpdf(x, 0.2),
        st.rice.cdf(x, 0.7),
        st.nakagami.ppf([0.1, 0.5], 1.5),
        st.multivariate_normal.cdf([0.3, 0.2], cov=COV2),
    ]
    for g, w in zip(got, want):
        np.testing.assert_allclose(to_numpy(g), w, rtol=1e-12)


# -- more discrete distributions (ftransforms/scipy/stats_discrete.py) ----------------------

DISCRETE_CASES = [
    ("randint", (2.0, 9.0)),
    ("dlaplace", (0.8,)),
    ("planck", (0.51,)),
    ("boltzmann", (1.4, 19.0)),
    ("yulesimon", (1.5,)),
    ("zipf", (3.6,)),
    ("logser", (0.6,)),
    ("skellam", (1.5, 2.5)),
]
#: the shape parameters with a derivative (randint's ends and boltzmann's N are integers)
CONTINUOUS_SHAPES = {"dlaplace": (0,), "planck": (0,), "boltzmann": (0,), "yulesimon": (0,),
                     "zipf": (0,), "logser": (0,), "skellam": (0, 1)}  # fmt: skip


@pytest.mark.parametrize("name,shapes", DISCRETE_CASES)
def test_more_discrete_distributions(name, shapes):
    dist = getattr(st, name)
    k = np.array([-3.0, -1.0, 0.0, 1.0, 2.0, 3.0, 5.0, 8.0, 13.0])  # loc=1 shifts them
    methods = ("logpmf", "pmf") if name in ("logser", "skellam") else (
        "logpmf", "pmf", "cdf", "sf", "logcdf", "logsf")  # fmt: skip
    got = ft.vmap(
        lambda v: fnp.stack([getattr(dist, m)(v, *shapes, loc=1.0) for m in methods]), out_axes=1
    )(k)
    for row, method in zip(got, methods):
        want = getattr(dist, method)(k, *shapes, loc=1.0)
        np.testing.assert_allclose(row, want, rtol=2e-7, atol=1e-300, err_msg=method)
    q = np.array([0.0, 0.1, 0.5, 0.9])
    np.testing.assert_array_equal(ft.vmap(lambda v: dist.ppf(v, *shapes))(q), dist.ppf(q, *shapes))
    for i in CONTINUOUS_SHAPES.get(name, ()):
        for method in methods[:1] + methods[2:3]:

            def along(s, i=i, method=method):
                return getattr(dist, method)(3.0, *shapes[:i], s, *shapes[i + 1 :])

            assert ft.grad(along)(shapes[i]) == pytest.approx(
                fd_jacobian(along, (shapes[i],), eps=1e-4), rel=1e-7
            ), (method, i)


def test_dlaplace_sf_in_the_tail_is_the_closed_form():
    # SciPy's 1 - cdf keeps 6 digits at k = 29; the closed form exp(-a k) / (e^a + 1) all
    a, k = 0.8, 29.0
    assert float(ft.jit(lambda v: st.dlaplace.sf(v, a))(np.array(k))) == pytest.approx(
        np.exp(-a * k) / (np.exp(a) + 1.0), rel=1e-14
    )


@pytest.mark.parametrize("kappa", [0.5, 4.0, 30.0, 60.0])  # SciPy switches at 50
def test_vonmises_cdf_sf_ppf_values_and_derivatives(kappa):
    x = np.array([-2.5, 0.3, 1.0, 7.0])  # 7: one period on
    for method in ("cdf", "sf"):
        got = ft.vmap(lambda v, m=method: getattr(st.vonmises, m)(v, kappa, loc=0.2))(x)
        np.testing.assert_allclose(got, getattr(st.vonmises, method)(x, kappa, loc=0.2), rtol=1e-13)

    def cdf(p):  # in x, kappa, loc and scale
        return st.vonmises.cdf(p[0], p[1], loc=p[2], scale=p[3])

    p = np.array([0.3, kappa, 0.2, 1.3])
    np.testing.assert_allclose(
        ft.grad(cdf)(p), fd_jacobian(cdf, (p,), eps=1e-5), rtol=1e-6, atol=1e-11
    )
    if kappa < 50:
        np.testing.assert_allclose(
            ft.hessian(cdf)(p), fd_jacobian(ft.grad(cdf), (p,), eps=1e-5), rtol=1e-6, atol=1e-10
        )
        q = np.array([0.1, 0.5, 0.9])
        np.testing.assert_allclose(
            ft.vmap(lambda v: st.vonmises.ppf(v, kappa))(q),
            st.vonmises.ppf(q, kappa),
            rtol=1e-10,
            atol=1e-12,
        )
