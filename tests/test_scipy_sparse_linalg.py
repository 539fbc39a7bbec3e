"""``ftransforms.scipy.sparse.linalg``: cg and bicgstab on tracers, differentiated
implicitly.  Oracles: ``numpy.linalg.solve`` for the solution and its derivatives
(``dx = A^-1 (db - dA x)``), SciPy's own solvers for ``info``, a Python loop for vmap."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse.linalg as ssl

import ftransforms as ft
from ftransforms.errors import UnsupportedOperationError
from ftransforms.scipy.sparse.linalg import bicgstab, cg

RNG = np.random.default_rng(0)
B = RNG.normal(size=(6, 6))
SPD = B @ B.T + 6 * np.eye(6)
GENERAL = RNG.normal(size=(6, 6)) + 4 * np.eye(6)
b = RNG.normal(size=6)
SOLVERS = [(cg, SPD), (bicgstab, GENERAL)]


@pytest.mark.parametrize("solver,A", SOLVERS, ids=["cg", "bicgstab"])
def test_solution_for_every_form_of_A(solver, A):
    want = np.linalg.solve(A, b)
    op = ssl.aslinearoperator(A)
    for form in (A, lambda v: A @ v, op):
        x, info = solver(form, b, rtol=1e-12)
        np.testing.assert_allclose(x, want, rtol=1e-10, atol=1e-12)
        assert int(info) == 0
    x, _ = solver(A, b, rtol=1e-12, M=np.diag(1.0 / np.diag(A)), x0=np.ones(6))
    np.testing.assert_allclose(x, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("solver,A", SOLVERS, ids=["cg", "bicgstab"])
def test_info_counts_iterations_as_scipy(solver, A):
    ours = solver(A, b, maxiter=2)[1]
    theirs = getattr(ssl, solver.__name__)(A, b, maxiter=2)[1]
    assert int(ours) == theirs == 2


@pytest.mark.parametrize("solver,A", SOLVERS, ids=["cg", "bicgstab"])
def test_derivatives_are_implicit(solver, A):
    x = np.linalg.solve(A, b)
    lam = np.linalg.solve(A.T, np.ones(6))
    grad_b = ft.grad(lambda v: solver(A, v, rtol=1e-12)[0].sum())(b)
    np.testing.assert_allclose(grad_b, lam, rtol=1e-9)
    grad_a = ft.grad(lambda m: solver(m, b, rtol=1e-12)[0].sum())(A)
    np.testing.assert_allclose(grad_a, -np.outer(lam, x), rtol=1e-8, atol=1e-12)
    jac = ft.jacfwd(lambda v: solver(A, v, rtol=1e-12)[0])(b)
    np.testing.assert_allclose(jac, np.linalg.inv(A), rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("solver,A", SOLVERS, ids=["cg", "bicgstab"])
def test_vmap_and_jit(solver, A):
    rhs = RNG.normal(size=(3, 6))
    got = ft.vmap(lambda v: solver(A, v, rtol=1e-12)[0])(rhs)
    np.testing.assert_allclose(got, [np.linalg.solve(A, r) for r in rhs], rtol=1e-9, atol=1e-12)
    jitted = ft.jit(lambda v: solver(A, v, rtol=1e-12)[0])
    for r in rhs:
        np.testing.assert_allclose(jitted(r), np.linalg.solve(A, r), rtol=1e-9, atol=1e-12)


def test_scipys_own_names_and_clear_errors():
    g = ft.grad(lambda v: ssl.cg(SPD, v, rtol=1e-12)[0].sum())(b)
    np.testing.assert_allclose(g, np.linalg.solve(SPD, np.ones(6)), rtol=1e-9)
    with pytest.raises(UnsupportedOperationError, match="callback"):
        cg(SPD, b, callback=print)
    with pytest.raises(ValueError, match="b must be a vector"):
        cg(SPD, np.ones((6, 1)))
