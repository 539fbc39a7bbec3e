"""Round-13 numerics probes: derivatives at kinks and special points, compared with JAX
(x64) and float64 finite differences."""

from __future__ import annotations

import math
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.special
import scipy.stats

import ftransforms as ft

jax.config.update("jax_enable_x64", True)


# -- arcsin/arccos at +-1: 1 - x*x is +0 there (NOTE [1 - z**2 on a branch cut]) -------------


@pytest.mark.parametrize("name", ["arcsin", "arccos"])
@pytest.mark.parametrize("x", [1.0, -1.0])
def test_inverse_sine_and_cosine_derivatives_at_the_ends_have_jaxs_sign(name, x):
    f, jf = getattr(np, name), getattr(jnp, name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        first = ft.grad(f)(x)
        second = ft.grad(ft.grad(f))(x)
        rows = ft.vmap(ft.grad(f))(np.array([x, 0.5 * x]))
    assert float(first) == float(jax.grad(jf)(x))  # arcsin: +inf at both ends
    assert float(second) == float(jax.grad(jax.grad(jf))(x))
    np.testing.assert_allclose(rows, jax.vmap(jax.grad(jf))(jnp.array([x, 0.5 * x])), rtol=1e-12)


def test_arcsin_derivative_of_float32_at_one_is_float32_plus_inf():
    got = ft.grad(np.arcsin)(np.float32(1.0))
    assert got.dtype == np.float32
    assert got == np.inf


# -- entr: the derivative -(log(x) + 1) holds at 0 too, so its own derivative is -1/x -------


def test_second_derivative_of_entr_at_zero_is_jaxs_minus_inf():
    # entr' = -(log(x) + 1) and entr'' = -1/x, so +inf and -inf at 0 (JAX's values too)
    x = np.array([0.0, 0.5, 2.0])

    def f(v):
        return scipy.special.entr(v).sum()

    with np.errstate(divide="ignore"):
        first, second = -(np.log(x) + 1), -1 / x
    np.testing.assert_allclose(ft.grad(f)(x), first, rtol=1e-12)
    np.testing.assert_allclose(np.diag(ft.hessian(f)(x)), second, rtol=1e-12)
    np.testing.assert_allclose(ft.vmap(ft.grad(ft.grad(scipy.special.entr)))(x), second, rtol=1e-12)


# -- log_ndtr far right: its derivative no longer divides by an overflowed erfcx -------------


def test_higher_derivatives_of_log_ndtr_far_right_are_zero_not_nan():
    # d/dx log(ndtr(x)) = r = pdf/ndtr, and r' = -r (x + r): both underflow to 0 at x = 40
    x = np.array([40.0, 39.0, 3.0, -3.0])
    second = ft.vmap(ft.grad(ft.grad(scipy.special.log_ndtr)))(x)
    third = ft.vmap(ft.grad(ft.grad(ft.grad(scipy.special.log_ndtr))))(x)
    r = np.exp(scipy.stats.norm.logpdf(x) - scipy.special.log_ndtr(x))
    np.testing.assert_allclose(second, -r * (x + r), rtol=1e-12, atol=0)
    # r'' = -r' (x + r) - r (1 + r'), whose two terms cancel to 1e-3 of their size at -3
    r1 = -r * (x + r)
    np.testing.assert_allclose(third, -r1 * (x + r) - r * (1 + r1), rtol=1e-9, atol=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert float(ft.hessian(scipy.special.log_ndtr)(40.0)) == 0.0


# -- xlogy/xlog1py with a Python float second argument keep NEP 50's dtype ------------------


@pytest.mark.parametrize("name", ["xlogy", "xlog1py"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_xlogy_of_a_low_precision_array_and_a_python_float_keeps_the_arrays_dtype(name, dtype):
    # jnp's xlogy(float32 array, 2.0) is float32 (the Python float is weak), as this
    # library's xlogy(2.0, float32 array) already was
    f = getattr(scipy.special, name)
    x = np.array([0.0, 0.3, 1.5], dtype=dtype)
    for transformed in (ft.vmap(lambda v: f(v, 2.0)), ft.jit(lambda v: f(v, 2.0))):
        got = transformed(x)
        assert got.dtype == dtype
        np.testing.assert_allclose(got, f(x.astype(np.float64), 2.0), rtol=1e-3)
    assert ft.vmap(lambda v: f(2.0, v))(x).dtype == dtype
    assert ft.jacfwd(lambda v: f(v, 2.0))(x).dtype == dtype
    # a float64 NumPy scalar is not weak: float64, as NumPy gives
    assert ft.vmap(lambda v: f(v, np.float64(2.0)))(x).dtype == np.float64


# -- spence at 1: its derivative's removable singularity keeps its own derivatives ----------


def test_higher_derivatives_of_spence_at_one_are_the_limits():
    # spence(z) = Li2(1 - z): spence' = log(z) / (1 - z) = -(1 - u/2 + u**2/3 - u**3/4 ...)
    # in u = z - 1, so spence^(k)(1) = -(-1)**(k-1) (k-1)! / k
    got = [scipy.special.spence]
    for _ in range(4):
        got.append(ft.grad(got[-1]))
    for k in range(1, 5):
        expected = -((-1) ** (k - 1)) * math.factorial(k - 1) / k
        assert float(got[k](1.0)) == pytest.approx(expected, rel=1e-12)
    rows = ft.vmap(ft.grad(ft.grad(scipy.special.spence)))(np.array([1.0, 2.0]))
    # at 2: d/dz log(z) / (1 - z) = (1/z) / (1 - z) + log(z) / (1 - z)**2
    np.testing.assert_allclose(rows, [0.5, -0.5 + np.log(2.0)], rtol=1e-12)
