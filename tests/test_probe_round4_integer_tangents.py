"""Probe round 4: ``jvp``/``linearize`` with an integer input.  An integer has no
derivative, so its tangent can only be zero (JAX asks for ``float0``; ftransforms also takes
zeros of any dtype).  A nonzero tangent for it used to be dropped without a word (the
output's tangent then left out that direction); it is refused now, as JAX refuses it.
Oracle: JAX (x64)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ftransforms as ft

jax.config.update("jax_enable_x64", True)


def f(x, n):
    return x * n + x**2


X = np.array([1.5, -2.0])
N = np.array([2, 3])


@pytest.mark.parametrize("tangent", [np.ones(2), np.ones(2, dtype=np.int64)])
def test_a_nonzero_tangent_of_an_integer_input_is_refused_as_in_jax(tangent):
    with pytest.raises(TypeError):  # JAX: float0 is the only tangent dtype of an int
        jax.jvp(f, (jnp.asarray(X), jnp.asarray(N)), (jnp.ones(2), jnp.asarray(tangent)))
    with pytest.raises(ft.errors.TangentMismatchError, match="integer"):
        ft.jvp(f, (X, N), (np.ones(2), tangent))
    _, jvp_fn = ft.linearize(f, X, N)
    with pytest.raises(ft.errors.TangentMismatchError, match="integer"):
        jvp_fn(np.ones(2), tangent)


@pytest.mark.parametrize(
    "zero", [np.zeros(2), np.zeros(2, dtype=np.int64), np.zeros(2, dtype=jax.dtypes.float0)]
)
def test_zero_tangents_of_an_integer_input_give_jax_s_answer(zero):
    t = np.array([0.5, 2.0])
    want = jax.jvp(f, (X, N), (t, np.zeros(2, dtype=jax.dtypes.float0)))
    np.testing.assert_allclose(ft.jvp(f, (X, N), (t, zero))[1], want[1])
    _, jvp_fn = ft.linearize(f, X, N)
    np.testing.assert_allclose(jvp_fn(t, zero), want[1])


def test_the_tangent_of_an_integer_input_must_have_its_shape():
    with pytest.raises(ft.errors.TangentMismatchError, match="shape"):
        ft.jvp(f, (X, N), (np.ones(2), np.zeros(3)))
