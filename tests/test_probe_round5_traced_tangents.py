"""Probe round 5: ``jvp`` of a function with an integer input whose TANGENT is itself a
traced value (``jvp`` inside ``vmap`` or ``jit``).  ``jvp`` alone refuses a nonzero tangent
for an integer input (TangentMismatchError, as JAX refuses it); a traced tangent skipped
that check, so under ``vmap`` the nonzero direction was dropped without a word (the
output's tangent came back zero).  Oracle: the per-row loop, which raises on the row that
holds a nonzero tangent, and JAX (x64), which refuses such a tangent."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ftransforms as ft

jax.config.update("jax_enable_x64", True)


def f(x, n):
    return x * n + x**2


X = np.array([[1.5, -2.0], [0.5, 3.0], [2.0, 1.0]])
N = np.array([[2, 3], [1, 4], [5, 0]])


def jvp_of(x, n, tx, tn):
    return ft.jvp(f, (x, n), (tx, tn))


def test_jax_refuses_a_nonzero_tangent_for_an_integer_input():
    with pytest.raises(TypeError):
        jax.jvp(f, (jnp.asarray(X[0]), jnp.asarray(N[0])), (jnp.ones(2), jnp.ones(2)))


@pytest.mark.parametrize("bad_row", [0, 2])
def test_a_batched_nonzero_integer_tangent_is_refused_under_vmap(bad_row):
    tn = np.zeros((3, 2))
    tn[bad_row, 1] = 1.0
    with pytest.raises(ft.errors.TangentMismatchError, match="integer"):
        jvp_of(X[bad_row], N[bad_row], np.ones(2), tn[bad_row])  # the loop's row
    with pytest.raises(ft.errors.TangentMismatchError, match="integer"):
        ft.vmap(jvp_of)(X, N, np.ones((3, 2)), tn)
    # the stack is clean: the next call works
    out, tan = ft.vmap(jvp_of)(X, N, np.ones((3, 2)), np.zeros((3, 2)))
    np.testing.assert_allclose(tan, N + 2 * X)


def test_zero_batched_tangents_of_an_integer_input_give_jax_s_answer():
    tx = np.array([[0.5, 2.0], [1.0, -1.0], [0.0, 3.0]])
    out, tan = ft.vmap(jvp_of)(X, N, tx, np.zeros((3, 2), dtype=np.int64))
    for i in range(3):
        j_out, j_tan = jax.jvp(
            f,
            (jnp.asarray(X[i]), jnp.asarray(N[i])),
            (jnp.asarray(tx[i]), np.zeros(2, dtype=jax.dtypes.float0)),
        )
        np.testing.assert_allclose(out[i], j_out)
        np.testing.assert_allclose(tan[i], j_tan)


def test_jit_checks_the_tangent_of_each_call_not_only_the_recorded_one():
    jf = ft.jit(jvp_of)
    _, tan = jf(X[0], N[0], np.ones(2), np.zeros(2))
    np.testing.assert_allclose(tan, N[0] + 2 * X[0])
    with pytest.raises(ft.errors.TangentMismatchError, match="integer"):
        jf(X[0], N[0], np.ones(2), np.array([0.0, 1.0]))
    _, tan = jf(X[1], N[1], np.ones(2), np.zeros(2))
    np.testing.assert_allclose(tan, N[1] + 2 * X[1])
