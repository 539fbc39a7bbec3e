"""det's derivatives at singular matrices (NOTE [the adjugate]): grad, jvp, vmap and jit
against float64 central differences, JAX and the loop."""

from __future__ import annotations

import numpy as np
import pytest

import ftransforms as ft
import ftransforms.numpy as fnp

RNG = np.random.default_rng(7)
SINGULAR = {
    "rank1_2x2": np.array([[1.0, 2.0], [2.0, 4.0]]),
    "zeros_3x3": np.zeros((3, 3)),
    "outer_3x3": np.outer([1.0, 2.0, 3.0], [1.0, 0.0, 2.0]),
    "diag_with_zero": np.diag([1.0, 0.0, 3.0, 2.0]),
    "rank2_3x3": RNG.normal(size=(3, 2)) @ RNG.normal(size=(2, 3)),
}


def central(f, a, e, h=1e-6):
    return (f(a + h * e) - f(a - h * e)) / (2 * h)


@pytest.mark.parametrize("name", sorted(SINGULAR))
def test_grad_and_jvp_equal_differences(name):
    a = SINGULAR[name]
    g = ft.grad(fnp.linalg.det)(a)
    for _ in range(3):
        e = RNG.normal(size=a.shape)
        want = central(np.linalg.det, a, e)
        np.testing.assert_allclose((g * e).sum(), want, rtol=1e-7, atol=1e-8)
        np.testing.assert_allclose(ft.jvp(fnp.linalg.det, (a,), (e,))[1], want, atol=1e-8)


def test_the_gradient_is_the_transposed_cofactor_matrix():
    a = SINGULAR["diag_with_zero"]  # only the zero entry's cofactor (1*3*2) is nonzero
    want = np.zeros((4, 4))
    want[1, 1] = 6.0
    np.testing.assert_allclose(ft.grad(fnp.linalg.det)(a), want, atol=1e-12)


def test_against_jax_on_rank_deficient_matrices():
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    for name in ("rank1_2x2", "zeros_3x3", "outer_3x3"):
        a = SINGULAR[name]
        np.testing.assert_allclose(
            ft.grad(fnp.linalg.det)(a), np.asarray(jax.grad(jnp.linalg.det)(a)), atol=1e-12
        )


def test_vmap_and_jit_over_a_stack_with_singular_and_regular_matrices():
    stack = np.stack([SINGULAR["rank1_2x2"], RNG.normal(size=(2, 2)), np.zeros((2, 2))])
    loop = np.stack([ft.grad(fnp.linalg.det)(m) for m in stack])
    np.testing.assert_allclose(ft.vmap(ft.grad(fnp.linalg.det))(stack), loop, atol=1e-12)
    jg = ft.jit(ft.vmap(ft.grad(fnp.linalg.det)))
    jg(stack[::-1].copy())
    np.testing.assert_allclose(jg(stack), loop, atol=1e-12)
    # complex matrices: the holomorphic derivative, tr(adj(a) da)
    c = SINGULAR["outer_3x3"] * (1 + 2j)
    e = RNG.normal(size=(3, 3)) + 1j * RNG.normal(size=(3, 3))
    np.testing.assert_allclose(
        ft.jvp(fnp.linalg.det, (c,), (e,))[1], central(np.linalg.det, c, e), atol=1e-7
    )


def test_second_derivatives_still_need_an_invertible_matrix():
    a = RNG.normal(size=(3, 3))
    h = ft.hessian(fnp.linalg.det)(a)
    e1, e2 = RNG.normal(size=(2, 3, 3))
    want = central(lambda m: (ft.grad(fnp.linalg.det)(m) * e2).sum(), a, e1)
    np.testing.assert_allclose(np.einsum("ij,ijkl,kl->", e2, h, e1), want, rtol=1e-6)
    with pytest.raises(np.linalg.LinAlgError):
        ft.hessian(fnp.linalg.det)(SINGULAR["rank1_2x2"])
