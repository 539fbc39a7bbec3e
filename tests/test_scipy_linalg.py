"""``ftransforms.scipy.linalg`` beyond the op database (``tests/op_db_scipy.py``): values
against ``scipy.linalg`` for every function and option, derivatives against
``jax.scipy.linalg`` (where JAX differentiates the function) and float64 finite
differences (``sqrtm``, ``logm``, ``solve_sylvester``, ``solve_banded``, generalized
``eigh``), ``vmap`` against a loop (``expm``'s scaling differs across the batch), ``jit``,
and errors."""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np
import pytest
import scipy.linalg as sl

import ftransforms as ft
import ftransforms.numpy as fnp
from ftransforms.errors import UnsupportedOperationError
from ftransforms.scipy import linalg as fl
from ftransforms.testing import check_grads, check_vmap

jax.config.update("jax_enable_x64", True)

RNG = np.random.default_rng(17)
A = RNG.standard_normal((4, 4))
B = RNG.standard_normal((4, 2))
E = RNG.standard_normal((4, 4))
SPD = A @ A.T + 4 * np.eye(4)
NEAR_I = np.eye(3) + 0.25 * RNG.standard_normal((3, 3))


def close(a, b, rtol=1e-10, atol=1e-12):
    for x, y in zip(
        a if isinstance(a, (tuple, list)) else [a], b if isinstance(b, (tuple, list)) else [b]
    ):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=rtol, atol=atol)


# -- values --------------------------------------------------------------------------------------


def test_basic_wrappers_match_scipy():
    close(fl.inv(A), sl.inv(A))
    close(fl.det(A), sl.det(A))
    close(fl.solve(A, B), sl.solve(A, B))
    close(fl.solve(A, B, transposed=True), sl.solve(A, B, transposed=True))
    junk = SPD + np.triu(RNG.standard_normal((4, 4)), 1)  # 'pos' reads the lower triangle
    close(
        fl.solve(junk, B, assume_a="pos", lower=True), sl.solve(junk, B, assume_a="pos", lower=True)
    )
    close(fl.solve(junk.T, B, assume_a="sym"), sl.solve(junk.T, B, assume_a="sym"))
    close(fl.cholesky(SPD), sl.cholesky(SPD))
    close(fl.cholesky(SPD, lower=True), sl.cholesky(SPD, lower=True))
    close(fl.svd(A, compute_uv=False), sl.svd(A, compute_uv=False))
    w, v = fl.eigh(SPD)
    close(w, sl.eigh(SPD)[0])
    close(v @ np.diag(w) @ v.T, SPD)
    q, r = fl.qr(B)
    assert q.shape == (4, 4) and r.shape == (4, 2)
    close(q @ r, B)
    close(np.abs(fl.qr(B, mode="economic")[1]), np.abs(sl.qr(B, mode="economic")[1]))
    (r_only,) = fl.qr(B, mode="r")
    close(np.abs(r_only), np.abs(sl.qr(B, mode="r")[0]))


@pytest.mark.parametrize("trans", [0, 1, 2, "N", "T", "C"])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("unit", [True, False])
def test_solve_triangular_matches_scipy(trans, lower, unit):
    got = fl.solve_triangular(A, B, trans=trans, lower=lower, unit_diagonal=unit)
    close(got, sl.solve_triangular(A, B, trans=trans, lower=lower, unit_diagonal=unit))


@pytest.mark.parametrize("lower", [True, False])
def test_cho_factor_and_solve_match_scipy(lower):
    c, low = fl.cho_factor(SPD, lower=lower)
    sc, slow = sl.cho_factor(SPD, lower=lower)
    close(c, sc)
    assert low == slow
    close(fl.cho_solve((c, low), B), sl.cho_solve((sc, slow), B))


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 4, 4)])
def test_lu_matches_scipy(shape):
    m = RNG.standard_normal(shape)
    close(fl.lu(m), sl.lu(m))
    close(fl.lu(m, permute_l=True), sl.lu(m, permute_l=True))
    p, low, up = fl.lu(m, p_indices=True)
    sp_, slow, sup = sl.lu(m, p_indices=True)
    np.testing.assert_array_equal(p, sp_)
    close((low, up), (slow, sup))
    if len(shape) == 2:
        close(fl.lu_factor(m), sl.lu_factor(m))


def test_lu_of_singular_matrices_matches_scipy():
    for m in (np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]]), np.zeros((3, 3))):
        close(fl.lu(m), sl.lu(m))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SciPy warns of the zero pivot
            close(fl.lu_factor(m), sl.lu_factor(m))


@pytest.mark.parametrize("trans", [0, 1, 2])
def test_lu_solve_matches_scipy(trans):
    close(
        fl.lu_solve(fl.lu_factor(A), B, trans=trans), sl.lu_solve(sl.lu_factor(A), B, trans=trans)
    )
    close(
        fl.lu_solve(fl.lu_factor(A), B[:, 0], trans=trans),
        sl.lu_solve(sl.lu_factor(A), B[:, 0], trans=trans),
    )


@pytest.mark.parametrize("scale", [1e-3, 0.1, 1.0, 10.0, 60.0])
def test_expm_matches_scipy(scale):
    close(fl.expm(scale * A), sl.expm(scale * A), rtol=1e-9)
    stack = np.stack([scale * A, -scale * E])
    close(fl.expm(stack), sl.expm(stack), rtol=1e-9)


def test_matrix_functions_match_scipy():
    close(fl.expm_frechet(A, E), sl.expm_frechet(A, E), rtol=1e-9)
    close(
        fl.expm_frechet(A, E, compute_expm=False),
        sl.expm_frechet(A, E, compute_expm=False),
        rtol=1e-9,
    )
    for m in (SPD, NEAR_I, np.diag([1e-3, 1.0, 1e3])):
        close(fl.sqrtm(m), sl.sqrtm(m), rtol=1e-9, atol=1e-11)
        close(fl.logm(m), sl.logm(m), rtol=1e-9, atol=1e-11)
    close(fl.solve_sylvester(A, SPD, E), sl.solve_sylvester(A, SPD, E))
    ab = RNG.standard_normal((4, 5))
    ab[2] += 5.0
    rhs = RNG.standard_normal((5, 2))
    close(fl.solve_banded((1, 2), ab, rhs), sl.solve_banded((1, 2), ab, rhs))
    close(fl.block_diag(A, B, np.ones(3), 2.0), sl.block_diag(A, B, np.ones(3), 2.0))
    close(fl.toeplitz(B[:, 0], A[0]), sl.toeplitz(B[:, 0], A[0]))
    close(fl.toeplitz(B[:, 0]), sl.toeplitz(B[:, 0]))


def test_generalized_eigh_matches_scipy():
    bm = np.eye(4) + 0.1 * SPD
    w, v = fl.eigh(SPD, bm)
    sw, _ = sl.eigh(SPD, bm)
    close(w, sw)
    close(v.T @ bm @ v, np.eye(4), atol=1e-11)
    close(SPD @ v, bm @ v * w, atol=1e-10)
    close(fl.eigh(SPD, eigvals_only=True), sl.eigh(SPD, eigvals_only=True))


# -- derivatives against JAX ----------------------------------------------------------------


def _jax_check(f_ours, f_jax, args):
    """Gradients of a scalar loss in every argument, against JAX (jit-compiled)."""
    argnums = tuple(range(len(args)))
    ours = ft.grad(lambda *a: fnp.sum(f_ours(*a) ** 2), argnums=argnums)(*args)
    theirs = jax.jit(jax.grad(lambda *a: jnp.sum(f_jax(*a) ** 2), argnums=argnums))(*args)
    close(ours, [np.asarray(t) for t in theirs], rtol=1e-9, atol=1e-11)


def test_derivatives_match_jax():
    """Beyond the op database's JAX compositions (tests/op_db_scipy.py): expm with many
    squarings, LU of a wide matrix, lu_solve transposed."""
    cases = [
        (lambda a: fl.expm(3.0 * a), lambda a: jsl.expm(3.0 * a), (A,)),
        (lambda a: fl.lu(a)[2], lambda a: jsl.lu(a)[2], (A[:3, :],)),
        (
            lambda a, b: fl.lu_solve(fl.lu_factor(a), b, trans=1),
            lambda a, b: jsl.lu_solve(jsl.lu_factor(a), b, trans=1),
            (A, B),
        ),
    ]
    for ours, theirs, args in cases:
        _jax_check(ours, theirs, args)


# -- derivatives against finite differences ------------------------------------------------


def test_matrix_function_derivatives_fd():
    check_grads(fl.sqrtm, (NEAR_I,), order=1)
    check_grads(fl.logm, (NEAR_I,), order=1)
    check_grads(lambda a: fl.logm(a @ a.T + np.eye(3)), (0.5 * NEAR_I,), order=1)
    check_grads(fl.solve_sylvester, (A[:3, :3] + 3 * np.eye(3), SPD[:2, :2], E[:3, :2]), order=2)
    ab = RNG.standard_normal((3, 4))
    ab[1] += 4.0
    check_grads(lambda ab, b: fl.solve_banded((1, 1), ab, b), (ab, B), order=2)
    bm = np.eye(4) + 0.1 * SPD

    def geigh(a, b):
        w, v = fl.eigh(a + a.T, b + b.T)
        return w, v * v

    check_grads(geigh, (SPD / 2, bm / 2), order=1, eps=1e-4)


def test_expm_second_order():
    check_grads(fl.expm, (0.5 * A,), order=2)


# -- vmap, jit -----------------------------------------------------------------------------------


def test_vmap_matches_a_loop():
    # the two matrices need different numbers of squarings
    stack = np.stack([0.1 * A, 20.0 * E])
    check_vmap(fl.expm, (stack,))
    check_vmap(lambda a: fl.lu(a)[1:], (RNG.standard_normal((3, 4, 4)),))
    check_vmap(fl.sqrtm, (np.stack([NEAR_I, NEAR_I.T, SPD[:3, :3]]),))
    check_vmap(fl.logm, (np.stack([NEAR_I, SPD[:3, :3] / 4]),))
    check_vmap(lambda b: fl.lu_solve(fl.lu_factor(A), b), (B.T,))
    check_vmap(
        lambda a, b: fl.solve_triangular(a, b, lower=True),
        (RNG.standard_normal((3, 4, 4)) + 4 * np.eye(4), B),
        in_dims=(0, None),
    )
    per_matrix = ft.vmap(ft.grad(lambda a: fnp.sum(fl.expm(a))))(stack)
    loop = np.stack([ft.grad(lambda a: fnp.sum(fl.expm(a)))(m) for m in stack])
    close(per_matrix, loop)


def test_jit():
    f = ft.jit(ft.grad(lambda a, b: fnp.sum(fl.lu_solve(fl.lu_factor(a), b))))
    for a in (A, E):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # replayed: the pivots come from a primitive
            got = f(a, B)
        close(got, ft.grad(lambda a, b: fnp.sum(fl.lu_solve(fl.lu_factor(a), b)))(a, B))
    g = ft.jit(fl.expm)
    with pytest.warns(RuntimeWarning, match="eagerly"):
        close(g(A), sl.expm(A), rtol=1e-9)
    close(g(10 * A), sl.expm(10 * A), rtol=1e-9)


# -- errors ----------------------------------------------------------------------------------


def test_errors_name_the_call():
    with pytest.raises(ValueError, match=r"^expm\(A\): expected a square matrix"):
        fl.expm(np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"^solve_triangular\(a, b, trans=3\)"):
        fl.solve_triangular(A, B, trans=3)
    with pytest.raises(ValueError, match=r"^qr\(a, mode='raw'\)"):
        fl.qr(A, mode="raw")
    with pytest.raises(ValueError, match=r"^solve_banded\(\(l, u\), ab, b\): ab must have"):
        fl.solve_banded((1, 1), np.ones((2, 4)), np.ones(4))
    with pytest.raises(ValueError, match=r"^solve_sylvester\(a, b, q\): q must be \(4, 2\)"):
        fl.solve_sylvester(A, np.eye(2), np.ones((3, 2)))
    with pytest.raises(ValueError, match=r"^expm_frechet\(A, E\): A and E must have the same"):
        fl.expm_frechet(A, np.eye(3))
    with pytest.raises(UnsupportedOperationError, match=r"^solve\(a, b, assume_a='banded'\)"):
        fl.solve(A, B, assume_a="banded")
