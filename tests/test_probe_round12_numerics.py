"""Round-12 numerics probes: derivatives through NumPy's legacy ``poly1d``, warnings of
derivative rules, branch cuts, masked arrays."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.interpolate

import ftransforms as ft


def central_differences(f, x, eps=1e-6):
    """float64 central differences of a scalar ``f`` at ``x``."""
    x = np.asarray(x, dtype=float)
    out = np.empty_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = eps
        out[i] = (f(x + step) - f(x - step)) / (2 * eps)
    return out


# -- NOTE [poly1d of traced coefficients keeps its leading zeros] -----------------------------


def test_grad_of_lagrange_on_linear_data_keeps_the_zero_cubic_coefficient():
    # linear data: the interpolating cubic's leading coefficient is exactly 0
    x = np.array([0.0, 0.5, 1.0, 1.5])

    def f(w):
        return scipy.interpolate.lagrange(x, w)(1.3)

    w = np.array([1.0, 2.0, 3.0, 4.0])
    np.testing.assert_allclose(ft.grad(f)(w), central_differences(f, w), atol=1e-7)


POLY1D_USES = {
    "call": lambda c: np.poly1d(c)(1.7),
    "deriv": lambda c: np.poly1d(c).deriv()(1.7),
    "integ": lambda c: np.poly1d(c).integ()(1.7),
    "mul": lambda c: (np.poly1d(c) * np.poly1d([1.0, 2.0]))(1.7),
    "pow": lambda c: (np.poly1d(c) ** 2)(1.7),
    "polyval": lambda c: np.polyval(np.poly1d(c), 1.7),
    "of_a_list": lambda c: np.poly1d([c[0], c[1], c[2]])(1.7),
}


@pytest.mark.parametrize("name", sorted(POLY1D_USES))
def test_poly1d_derivatives_with_leading_zero_coefficients(name):
    f = POLY1D_USES[name]
    c = np.array([0.0, 0.0, 2.0])
    expected = central_differences(f, c)
    np.testing.assert_allclose(ft.grad(f)(c), expected, atol=1e-7)
    tangent = np.array([1.0, -2.0, 0.5])
    _, jvp_out = ft.jvp(f, (c,), (tangent,))
    np.testing.assert_allclose(jvp_out, expected @ tangent, atol=1e-7)


def test_vmap_of_poly1d_when_some_rows_lead_with_zero_is_one_batch():
    rows = np.array([[0.0, 1.0, 2.0], [1.0, 1.0, 2.0], [0.0, 0.0, 3.0]])
    f = POLY1D_USES["call"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", ft.errors.PerformanceWarning)  # no split batch
        got = ft.vmap(f)(rows)
        grads = ft.vmap(ft.grad(f))(rows)
    np.testing.assert_allclose(got, [f(r) for r in rows])
    np.testing.assert_allclose(grads, [central_differences(f, r) for r in rows], atol=1e-7)


POLYNOMIAL = np.polynomial.polynomial
SERIES_USES = {
    "polyadd": lambda c: POLYNOMIAL.polyval(1.7, POLYNOMIAL.polyadd(c, [1.0])),
    "polymul": lambda c: POLYNOMIAL.polyval(1.7, POLYNOMIAL.polymul(c, [1.0, 1.0])),
    "Polynomial+1": lambda c: (np.polynomial.Polynomial(c) + 1)(1.7),
    "Chebyshev+1": lambda c: (np.polynomial.Chebyshev(c) + 1)(0.3),
}


@pytest.mark.parametrize("name", sorted(SERIES_USES))
def test_numpy_polynomial_series_keep_a_zero_highest_coefficient(name):
    f = SERIES_USES[name]
    c = np.array([1.0, 2.0, 0.0])  # trimseq drops the trailing zero
    np.testing.assert_allclose(ft.grad(f)(c), central_differences(f, c), atol=1e-7)


# -- NOTE [1 - z**2 on a branch cut]: arccosh and arcsinh -------------------------------------


def complex_derivative(f, z, h=1e-7):
    """f'(z) by central differences along the real line, or along the imaginary one for a
    z on the imaginary axis (arcsinh's cut), keeping the signed zero of the other part."""
    z = complex(z)
    if z.real == 0:
        plus = np.complex128(complex(z.real, z.imag + h))
        minus = np.complex128(complex(z.real, z.imag - h))
        return (f(plus) - f(minus)) / (2j * h)
    plus = np.complex128(complex(z.real + h, z.imag))
    minus = np.complex128(complex(z.real - h, z.imag))
    return (f(plus) - f(minus)) / (2 * h)


@pytest.mark.parametrize("f", [np.arccosh, np.arcsinh], ids=lambda f: f.__name__)
@pytest.mark.parametrize(
    "z",
    [
        complex(-2.0, 0.0),  # arccosh's cut, from above
        complex(-2.0, -0.0),  # and from below
        -2 + 1j,  # the left half-plane (arccosh's 1/sqrt(z*z - 1) had the wrong sign)
        -0.5 - 3j,
        complex(0.0, 2.0),  # arcsinh's cut, right of it
        complex(-0.0, 2.0),  # and left of it
        complex(0.0, -2.0),
        3 - 0.5j,
    ],
)
def test_complex_derivatives_of_arccosh_and_arcsinh_match_numpys_side_of_the_cut(f, z):
    z = np.complex128(z)
    _, got = ft.jvp(f, (z,), (np.complex128(1.0),))
    np.testing.assert_allclose(got, complex_derivative(f, z), rtol=1e-6)


# -- NOTE [floating-point warnings of derivatives] --------------------------------------------


def test_gradient_of_sqrt_at_zero_is_inf_without_a_warning():
    x = np.array([0.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        got = ft.grad(lambda v: np.sqrt(v).sum())(x)
        _, tangent = ft.jvp(np.sqrt, (x,), (np.ones(2),))
    np.testing.assert_array_equal(got, [np.inf, 0.5 / np.sqrt(2.0)])
    np.testing.assert_array_equal(tangent, got)


def test_errstate_of_the_forward_log_is_not_undone_by_its_derivative():
    def f(v):
        with np.errstate(all="ignore"):
            return np.log(v).sum()

    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        got = ft.grad(f)(np.array([0.0, 2.0]))
    np.testing.assert_array_equal(got, [np.inf, 0.5])


def test_jacfwd_through_an_infinite_derivative_keeps_one_batch():
    x = np.array([0.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # neither a RuntimeWarning nor a split batch
        got = ft.jacfwd(np.sqrt)(x)
    assert got[0, 0] == np.inf and got[1, 1] == 0.5 / np.sqrt(2.0) and got[1, 0] == 0.0


def test_warnings_of_the_users_forward_code_remain():
    def f(v):
        return (np.log(v) * 0.0).sum()  # -inf * 0: NumPy warns in the user's code

    with pytest.warns(RuntimeWarning):
        ft.grad(f)(np.array([0.0, 2.0]))
