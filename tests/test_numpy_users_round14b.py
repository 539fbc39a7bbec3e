"""Round 14b: numpy.polynomial's functions and series classes on tracers keep NumPy's
dtypes (NOTE [numpy.polynomial's dtypes on tracers] in ftransforms/numpy/polynomial_series.py).

Oracles: eager NumPy for values and dtypes, float64 finite differences for derivatives."""

import numpy as np
import pytest
from program_oracles import fd_jacobian
from tolerances import assert_tree_close, fd_tol, tol

import ftransforms as ft

npp = np.polynomial
P = npp.polynomial
X = np.linspace(-0.9, 0.8, 5)
C32 = np.array([0.3, -1.2, 0.7], np.float32)
CINT = np.array([1, 2, 3])


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert_tree_close(got, want, **tol(want))


def test_polyval_of_float32_coefficients_at_float64_points_is_float64():
    f = lambda c: P.polyval(X, c)  # noqa: E731
    primal, tangent = ft.jvp(f, (C32,), (np.ones(3, np.float32),))
    _same(primal, f(C32))
    _same(tangent, f(np.ones(3, np.float32)))  # linear in c


@pytest.mark.parametrize(
    "f",
    [
        lambda c: P.polyder(c),
        lambda c: P.polymulx(c),
        lambda c: npp.chebyshev.chebmul(c, c[::-1]),
        lambda c: npp.legendre.legint(c, 1, k=[1]),
        lambda c: npp.hermite.hermval(X, c),
        lambda c: (npp.Polynomial(c) * npp.Polynomial(c)).coef,
        lambda c: npp.Laguerre(c).coef,
        lambda c: npp.HermiteE(c).deriv().coef,
    ],
    ids=["polyder", "polymulx", "chebmul", "legint", "hermval", "Poly*Poly", "Laguerre", "deriv"],
)
@pytest.mark.parametrize("transform", ["vmap", "jit"])
def test_integer_coefficients_give_float64_as_in_numpy(f, transform):
    want = f(CINT)
    if transform == "vmap":
        got = ft.vmap(f)(np.stack([CINT, 2 * CINT]))
        _same(got[0], want)
        _same(got[1], f(2 * CINT))
    else:
        _same(ft.jit(f)(CINT), want)


def test_float32_series_stay_float32():
    f = lambda c: (npp.Chebyshev(c) ** 2).coef  # noqa: E731
    _same(ft.jit(f)(C32), f(C32))


def test_float32_coefficients_with_integer_lists_promote_as_in_numpy():
    for f in (
        lambda c: P.polyadd(c, [1, 2]),  # np.common_type(float32, int64): float64
        lambda c: npp.chebyshev.chebval([0.5, 0.25], c),  # a list of points: float64
        lambda c: npp.legendre.legint(c, 1, k=[1.0], lbnd=0.5),  # k, lbnd: float32
    ):
        _same(ft.jit(f)(C32), f(C32))
        _same(ft.vmap(f)(np.stack([C32, C32]))[1], f(C32))


def test_polyval2d_and_polygrid2d_under_grad():
    for name in ("polyval2d", "polygrid2d"):
        g = getattr(P, name)
        f = lambda c, g=g: g(X[:2], X[1:3], c).sum()  # noqa: E731
        c = np.outer(C32, C32).astype(np.float64)
        got = ft.grad(f)(c)
        assert_tree_close(got, fd_jacobian(f, (c,)), **fd_tol(np.float64))


def test_series_derivative_against_finite_differences():
    f = lambda c: npp.Legendre(c).integ(lbnd=0.5)(X).sum() * npp.polynomial.polyval(0.3, c)  # noqa: E731
    c = C32.astype(np.float64)
    assert_tree_close(ft.grad(f)(c), fd_jacobian(f, (c,)), **fd_tol(np.float64))


def test_fit_at_traced_sample_points():
    xs = np.linspace(-1.0, 1.0, 7)
    for fit in (P.polyfit, npp.chebyshev.chebfit, lambda x, y, d: npp.Hermite.fit(x, y, d).coef):
        f = lambda s, fit=fit: fit(xs * s[0] + s[1], np.cos(xs), 2)  # noqa: E731
        s = np.array([0.9, 0.1])
        _same(ft.jit(f)(s), f(s))
        assert_tree_close(ft.jacrev(f)(s), fd_jacobian(f, (s,)), **fd_tol(np.float64))


# -- numpy.ma: NOTE [numpy.ma's masks of traced values] ----------------------------------

V = np.array([1.0, 2.0, 4.0])


@pytest.mark.parametrize(
    "f",
    [
        lambda v: (np.ma.masked_array(v, [0, 1, 0]) / 2.0).sum(),
        lambda v: (1.0 / np.ma.masked_array(v, [0, 1, 0])).sum(),
        lambda v: np.ma.log(np.ma.masked_array(v, [0, 1, 0])).sum(),
        lambda v: np.ma.sqrt(np.ma.masked_array(v, [1, 0, 0])).sum(),
        lambda v: (np.ma.masked_array(v, [0, 1, 0]) ** 2).sum(),
        lambda v: np.ma.masked_array(v, [0, 1, 0]).mean(keepdims=True).sum(),
    ],
    ids=["div", "rdiv", "log", "sqrt", "power", "mean_keepdims"],
)
def test_masked_operations_that_mask_invalid_results_under_grad(f):
    got = ft.grad(f)(V)
    assert_tree_close(got, fd_jacobian(f, (V,)), **fd_tol(np.float64))


def test_masked_log_masks_the_invalid_elements_under_grad():
    f = lambda v: np.ma.log(np.ma.masked_array(v, [0, 0, 0])).sum()  # noqa: E731
    v = np.array([1.0, -2.0, 4.0])  # log(-2) is masked, as NumPy masks it
    assert_tree_close(ft.grad(f)(v), np.array([1.0, 0.0, 0.25]), **tol(np.float64))


@pytest.mark.parametrize("stat", ["var", "std"])
def test_masked_var_and_std_under_grad(stat):
    # numpy.ma's var views its NumPy scalar as a MaskedArray, which is the scalar itself
    f = lambda v: getattr(np.ma.masked_array(v, [0, 1, 0, 0]), stat)()  # noqa: E731
    v = np.array([1.0, 2.0, 4.0, 3.5])
    got = ft.grad(f)(v)
    assert_tree_close(got, fd_jacobian(f, (v,)), **fd_tol(np.float64))


def test_values_at_traced_points_of_several_polynomials_and_of_roots():
    x = np.array([0.5, 1.5, 2.0])
    roots = np.array([1.0, 2.0, 3.0])  # as many roots as points: was one number
    coefs = np.arange(6.0).reshape(3, 2)  # two polynomials: a (2, 3) result
    for f in (
        lambda x: P.polyvalfromroots(x, roots),
        lambda x: P.polyval(x, coefs),
        lambda x: npp.hermite_e.hermeval(x, coefs),
        lambda x: npp.chebyshev.chebval(x, x[:, None] * coefs[:, :1]),  # traced both
    ):
        _same(ft.jit(f)(x), f(x))
        _same(ft.vmap(f)(np.stack([x, x + 1.0]))[1], f(x + 1.0))
        g = lambda x, f=f: f(x).sum()  # noqa: E731
        assert_tree_close(ft.grad(g)(x), fd_jacobian(g, (x,)), **fd_tol(np.float64))
