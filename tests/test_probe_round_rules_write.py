"""Probe round: user functions that the toolbox calls (``associative_scan``'s ``fn``,
``custom_jvp``/``custom_vjp`` rules, ``custom_vmap`` rules) written NumPy-style, with
in-place updates of what they receive.  Oracles: NumPy, central differences, JAX."""

import jax
import jax.numpy as jnp
import numpy as np

import ftransforms as ft

jax.config.update("jax_enable_x64", True)

X = np.arange(1.0, 6.0)
ROWS = np.stack([X, 0.5 * X, -X])


def add_into_first(a, b):
    a += b
    return a


def mul_into_second(a, b):
    b *= a
    return b


def test_associative_scan_fn_that_writes_its_argument():
    np.testing.assert_allclose(ft.associative_scan(add_into_first, X), np.cumsum(X))
    np.testing.assert_allclose(
        ft.associative_scan(mul_into_second, X, reverse=True), np.cumprod(X[::-1])[::-1]
    )
    np.testing.assert_allclose(
        ft.vmap(lambda v: ft.associative_scan(add_into_first, v))(ROWS), np.cumsum(ROWS, 1)
    )
    np.testing.assert_allclose(
        ft.grad(lambda v: ft.associative_scan(mul_into_second, v).sum())(X),
        jax.grad(lambda v: jax.lax.associative_scan(jnp.multiply, v).sum())(X),
    )


@ft.custom_jvp
def square(x):
    y = x.copy()
    y **= 2
    return y


@square.defjvp
def _square_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    dt = t.copy()  # a copy of the tangent, scaled in place
    dt *= 2 * x
    return square(x), dt


def test_custom_jvp_rule_that_copies_and_scales_the_tangent():
    ones = np.ones(5)
    np.testing.assert_allclose(ft.jvp(square, (X,), (ones,))[1], 2 * X)
    np.testing.assert_allclose(ft.vmap(lambda v: ft.jvp(square, (v,), (ones,))[1])(ROWS), 2 * ROWS)
    np.testing.assert_allclose(ft.jacrev(square)(X), np.diag(2 * X))
    np.testing.assert_allclose(ft.vmap(ft.grad(lambda v: square(v).sum()))(ROWS), 2 * ROWS)


@ft.custom_vjp
def clip_grad(x):
    return x * 1.0


def _clip_fwd(x):
    return x * 1.0, None


def _clip_bwd(_, g):
    g = g.copy()
    np.clip(g, -0.5, 0.5, out=g)
    return (g,)


clip_grad.defvjp(_clip_fwd, _clip_bwd)


def test_custom_vjp_bwd_that_clips_the_cotangent_in_place():
    w = np.linspace(-1.0, 1.0, 5)
    np.testing.assert_allclose(
        ft.grad(lambda v: (clip_grad(v) * w).sum())(X), np.clip(w, -0.5, 0.5)
    )
    np.testing.assert_allclose(
        ft.vmap(ft.grad(lambda v: (clip_grad(v) * w).sum()))(ROWS),
        np.tile(np.clip(w, -0.5, 0.5), (3, 1)),
    )


def test_custom_vmap_rule_that_computes_with_an_unbatched_argument():
    @ft.custom_vmap
    def f(x, y):
        return np.sin(x) * y

    @f.def_vmap
    def _rule(axis_size, in_batched, x, y):
        return np.sin(x) * y, any(in_batched)

    y = np.array([2.0, -1.0, 0.5, 1.0, 3.0])
    np.testing.assert_allclose(ft.vmap(f, in_dims=(0, None))(ROWS, y), np.sin(ROWS) * y)
