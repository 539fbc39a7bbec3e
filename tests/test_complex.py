"""Complex numbers follow JAX's convention: VJPs are plain transposes, and grad of a real
function f of complex z is df/dx - i df/dy (see NOTE [complex derivatives])."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ftransforms as ft
import ftransforms.numpy as fnp

jax.config.update("jax_enable_x64", True)

rng = np.random.default_rng(7)
Z = rng.normal(size=4) + 1j * rng.normal(size=4)
W = rng.normal(size=(4, 4)) + 1j * rng.normal(size=(4, 4))

# (ftransforms function, JAX function): real-valued functions of a complex vector.
REAL_VALUED = {
    "abs_sq": (lambda z: np.sum(np.abs(z) ** 2), lambda z: jnp.sum(jnp.abs(z) ** 2)),
    "abs": (lambda z: np.sum(np.abs(z)), lambda z: jnp.sum(jnp.abs(z))),
    "real_sq": (lambda z: np.sum(np.real(z * z)), lambda z: jnp.sum(jnp.real(z * z))),
    "imag_exp": (lambda z: np.sum(np.imag(np.exp(z))), lambda z: jnp.sum(jnp.imag(jnp.exp(z)))),
    "conj_prod": (
        lambda z: np.sum(np.real(np.conj(z) * np.sin(z))),
        lambda z: jnp.sum(jnp.real(jnp.conj(z) * jnp.sin(z))),
    ),
    "matmul_norm": (
        lambda z: np.sum(np.abs(W @ z) ** 2),
        lambda z: jnp.sum(jnp.abs(W @ z) ** 2),
    ),
    "angle": (lambda z: np.sum(fnp.angle(z) * z.real), lambda z: jnp.sum(jnp.angle(z) * z.real)),
}


@pytest.mark.parametrize("name", sorted(REAL_VALUED))
def test_grad_of_real_function_of_complex_input_matches_jax(name):
    f, jf = REAL_VALUED[name]
    g = ft.grad(f)(Z)
    assert g.dtype == np.complex128
    np.testing.assert_allclose(g, jax.grad(jf)(Z), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(REAL_VALUED))
def test_grad_equals_finite_differences_df_dx_minus_i_df_dy(name):
    f, _ = REAL_VALUED[name]
    g = ft.grad(f)(Z)
    eps = 1e-6
    for k in range(len(Z)):
        e = np.zeros_like(Z)
        e[k] = 1.0
        dfdx = (f(Z + eps * e) - f(Z - eps * e)) / (2 * eps)
        dfdy = (f(Z + 1j * eps * e) - f(Z - 1j * eps * e)) / (2 * eps)
        np.testing.assert_allclose(g[k], dfdx - 1j * dfdy, rtol=1e-6, atol=1e-8)


def test_vjp_and_jvp_of_holomorphic_and_mixed_functions_match_jax():
    def f(z, x):
        return np.sin(z) * x + np.conj(z) ** 2

    def jf(z, x):
        return jnp.sin(z) * x + jnp.conj(z) ** 2

    x = rng.normal(size=4)
    ct = rng.normal(size=4) + 1j * rng.normal(size=4)
    out, vjp_fn = ft.vjp(f, Z, x)
    jout, jvjp_fn = jax.vjp(jf, Z, x)
    np.testing.assert_allclose(out, jout, rtol=1e-12)
    for a, b in zip(vjp_fn(ct), jvjp_fn(ct)):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    tz = rng.normal(size=4) + 1j * rng.normal(size=4)
    tx = rng.normal(size=4)
    np.testing.assert_allclose(
        ft.jvp(f, (Z, x), (tz, tx))[1], jax.jvp(jf, (Z, x), (tz, tx))[1], rtol=1e-10
    )


def test_vmap_of_grad_and_hessian_of_complex_functions():
    f, jf = REAL_VALUED["conj_prod"]
    zs = rng.normal(size=(3, 4)) + 1j * rng.normal(size=(3, 4))
    np.testing.assert_allclose(ft.vmap(ft.grad(f))(zs), jax.vmap(jax.grad(jf))(zs), rtol=1e-10)
    np.testing.assert_allclose(
        ft.jacrev(lambda z: np.abs(np.sin(z)) ** 2)(Z),
        jax.jacrev(lambda z: jnp.abs(jnp.sin(z)) ** 2)(Z),
        rtol=1e-10,
    )


def test_jacobians_of_complex_outputs_are_refused_like_jax():
    with pytest.raises(TypeError, match="complex"):
        ft.jacrev(np.sin)(Z)
    with pytest.raises(TypeError, match="complex"):
        ft.jacfwd(np.sin)(Z)
    x = Z.real
    np.testing.assert_allclose(
        ft.jacfwd(lambda x: x * (1 + 1j))(x), jax.jacfwd(lambda x: x * (1 + 1j))(x)
    )


def test_complex64_stays_complex64():
    z = Z.astype(np.complex64)
    g = ft.grad(lambda z: np.sum(np.abs(z) ** 2))(z)
    assert g.dtype == np.complex64
    np.testing.assert_allclose(g, 2 * np.conj(z), rtol=1e-6)


def test_real_imag_conj_of_real_inputs_are_cheap_identities():
    x = rng.normal(size=3)
    assert fnp.real(x) is x
    assert fnp.conj(x) is x
    np.testing.assert_array_equal(fnp.imag(x), np.zeros(3))
    np.testing.assert_allclose(ft.grad(lambda x: np.sum(np.real(x) * x))(x), 2 * x)
