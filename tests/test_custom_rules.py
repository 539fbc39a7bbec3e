"""custom_jvp / custom_vjp: JAX's semantics, composed with vmap and with each other."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ftransforms as ft
from ftransforms.core.stack import current_stack

jax.config.update("jax_enable_x64", True)


@ft.custom_jvp
def softplus(x):
    return np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0)


@softplus.defjvp
def _softplus_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return softplus(x), t / (1 + np.exp(-x))


@jax.custom_jvp
def jsoftplus(x):
    return jnp.log1p(jnp.exp(-jnp.abs(x))) + jnp.maximum(x, 0)


@jsoftplus.defjvp
def _jsoftplus_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return jsoftplus(x), t / (1 + jnp.exp(-x))


@ft.custom_vjp
def scaled_sin(x, y):
    return np.sin(x) * y


def _scaled_sin_fwd(x, y):
    return scaled_sin(x, y), (np.cos(x), np.sin(x), y)


def _scaled_sin_bwd(res, g):
    cos_x, sin_x, y = res
    return cos_x * g * y, sin_x * g


scaled_sin.defvjp(_scaled_sin_fwd, _scaled_sin_bwd)


@ft.custom_vjp
def clip_gradient(x):
    return x


clip_gradient.defvjp(lambda x: (x, None), lambda res, g: (np.clip(g, -1.0, 1.0),))

X = np.array([-3.0, -0.5, 0.25, 2.0])
Y = np.array([1.5, -2.0, 0.5, 3.0])


def test_custom_jvp_rule_is_used_where_the_body_would_overflow():
    big = np.array([800.0, -800.0])
    with np.errstate(over="ignore"):
        g = ft.grad(lambda x: softplus(x).sum())(big)
    np.testing.assert_allclose(g, [1.0, 0.0])


TRANSFORM_PAIRS = {
    "grad": (
        lambda f: ft.grad(lambda x: f(x).sum()),
        lambda f: jax.grad(lambda x: f(x).sum()),
    ),
    "vmap_grad": (lambda f: ft.vmap(ft.grad(f)), lambda f: jax.vmap(jax.grad(f))),
    "jacfwd": (ft.jacfwd, jax.jacfwd),
    "jacrev": (ft.jacrev, jax.jacrev),
    "hessian": (
        lambda f: ft.hessian(lambda x: f(x).sum()),
        lambda f: jax.hessian(lambda x: f(x).sum()),
    ),
    "vmap_vmap_grad": (
        lambda f: ft.vmap(ft.vmap(ft.grad(f)), in_dims=1),
        lambda f: jax.vmap(jax.vmap(jax.grad(f)), in_axes=1),
    ),
}


@pytest.mark.parametrize("name", sorted(TRANSFORM_PAIRS))
def test_custom_jvp_matches_jax_under_transforms(name):
    ours, theirs = TRANSFORM_PAIRS[name]
    x = np.stack([X, Y]) if name == "vmap_vmap_grad" else X
    np.testing.assert_allclose(ours(softplus)(x), theirs(jsoftplus)(x), rtol=1e-12)


def test_custom_vjp_grad_vmap_and_jacrev_use_bwd():
    gx, gy = ft.grad(lambda x, y: scaled_sin(x, y).sum(), argnums=(0, 1))(X, Y)
    np.testing.assert_allclose(gx, np.cos(X) * Y)
    np.testing.assert_allclose(gy, np.sin(X))
    bx, by = ft.vmap(ft.grad(scaled_sin, argnums=(0, 1)))(X, Y)
    np.testing.assert_allclose(bx, gx)
    np.testing.assert_allclose(by, gy)
    np.testing.assert_allclose(ft.jacrev(scaled_sin)(X, Y), np.diag(np.cos(X) * Y))
    vx, vy = ft.grad(lambda x, y: ft.vmap(scaled_sin)(x, y).sum(), argnums=(0, 1))(X, Y)
    np.testing.assert_allclose(vx, gx)
    np.testing.assert_allclose(vy, gy)


def test_custom_vjp_bwd_really_replaces_the_derivative():
    g = ft.grad(lambda x: (5.0 * clip_gradient(x)).sum())(X)
    np.testing.assert_allclose(g, np.ones_like(X))  # 5 clipped to 1
    gg = ft.grad(ft.grad(lambda x: np.sin(clip_gradient(x))))(0.3)
    np.testing.assert_allclose(gg, -np.sin(0.3))


def test_custom_vjp_under_forward_mode_is_a_clear_error_and_stack_is_clean():
    with pytest.raises(TypeError, match="forward-mode"):
        ft.jvp(scaled_sin, (X, Y), (X, Y))
    assert current_stack() == ()
    np.testing.assert_allclose(ft.grad(lambda x: scaled_sin(x, Y).sum())(X), np.cos(X) * Y)


def test_custom_functions_without_transforms_run_their_body():
    np.testing.assert_allclose(scaled_sin(X, Y), np.sin(X) * Y)
    np.testing.assert_allclose(softplus(X), np.log1p(np.exp(X)))
    np.testing.assert_allclose(ft.vmap(scaled_sin)(X, Y), np.sin(X) * Y)


def test_custom_vjp_matches_jax_custom_vjp_in_vmap_of_jacrev():
    @jax.custom_vjp
    def jscaled(x, y):
        return jnp.sin(x) * y

    jscaled.defvjp(
        lambda x, y: (jscaled(x, y), (jnp.cos(x), jnp.sin(x), y)),
        lambda res, g: (res[0] * g * res[2], res[1] * g),
    )
    xs = np.stack([X, Y, X * 2])
    got = ft.vmap(ft.jacrev(scaled_sin, argnums=(0, 1)), in_dims=(0, None))(xs, Y)
    want = jax.vmap(jax.jacrev(jscaled, argnums=(0, 1)), in_axes=(0, None))(xs, Y)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-12)
