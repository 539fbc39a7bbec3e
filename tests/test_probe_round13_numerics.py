"""Round-13 numerics probes: derivatives at kinks and special points, compared with JAX
(x64) and float64 finite differences."""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import jax.scipy.special as jsp_special
import numpy as np
import pytest
import scipy.special

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
    x = np.array([0.0, 0.5, 2.0])

    def f(v):
        return scipy.special.entr(v).sum()

    def jf(v):
        return jsp_special.entr(v).sum()

    np.testing.assert_array_equal(ft.grad(f)(x), jax.grad(jf)(x))
    np.testing.assert_allclose(np.diag(ft.hessian(f)(x)), np.diag(jax.hessian(jf)(x)), rtol=1e-12)
    np.testing.assert_allclose(
        ft.vmap(ft.grad(ft.grad(scipy.special.entr)))(x),
        jax.vmap(jax.grad(jax.grad(jsp_special.entr)))(x),
        rtol=1e-12,
    )
