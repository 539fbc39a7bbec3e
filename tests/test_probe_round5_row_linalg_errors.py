"""Probe round 5: per-example ``try/except`` around a linear-algebra call that fails for
some rows only.  ``vmap(f)(As)`` means ``np.stack([f(A) for A in As])``; with one singular
matrix in the stack, NumPy's batched ``inv`` (``cholesky``, ``solve``) raises for the
whole batch, so ``f``'s ``except LinAlgError`` branch ran for EVERY row: the fallback value
(zeros, a jittered Cholesky, NaNs) replaced the right answer of the good rows, silently.
The error now splits the batch (NOTE [errors of some rows]) so that the ``except`` runs
for the failing rows only.  Oracles: the loop over the rows; finite differences for
``vmap(grad)``; the eager loop on new data for ``jit(vmap)``."""

import warnings

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.core.stack import current_stack

pytestmark = pytest.mark.filterwarnings("ignore::ftransforms.errors.PerformanceWarning")

AS = np.stack(
    [
        np.eye(2) * 2,
        np.zeros((2, 2)),  # singular
        np.array([[1.0, 2.0], [3.0, 4.0]]),
        np.array([[1.0, 2.0], [2.0, 4.0]]),  # singular
        np.array([[0.5, 0.1], [0.2, 0.3]]),
    ]
)


def inverse_or_zeros(A):
    try:
        return np.linalg.inv(A)
    except np.linalg.LinAlgError:
        return np.zeros_like(A)


def solve_or_nan(A):
    try:
        return np.linalg.solve(A, np.ones(2))
    except np.linalg.LinAlgError:
        return np.full(2, np.nan)


def cholesky_with_jitter(K):
    try:
        L = np.linalg.cholesky(K)
    except np.linalg.LinAlgError:
        L = np.linalg.cholesky(K + 1.0 * np.eye(2))
    return L


KS = np.stack([np.eye(2), np.array([[1.0, 1.0], [1.0, 1.0]]), np.eye(2) * 3, -np.eye(2)])


def loop(f, xs):
    return np.stack([f(x) for x in xs])


@pytest.mark.parametrize(
    "f, xs", [(inverse_or_zeros, AS), (solve_or_nan, AS), (cholesky_with_jitter, KS[:3])]
)
def test_the_except_branch_runs_for_the_failing_rows_only(f, xs):
    ref = loop(f, xs)
    np.testing.assert_allclose(ft.vmap(f)(xs), ref)
    jf = ft.jit(ft.vmap(f))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # "the trace depends on data"
        np.testing.assert_allclose(jf(xs), ref)
        other = xs[::-1].copy()  # other rows fail: the recording must not be replayed
        np.testing.assert_allclose(jf(other), loop(f, other))


def test_vmap_of_grad_through_the_per_row_fallback():
    def loss(A):
        return inverse_or_zeros(A).sum()

    eps = 1e-6

    def fd(A):
        E = np.eye(4).reshape(4, 2, 2)
        return np.array([(loss(A + eps * e) - loss(A - eps * e)) / (2 * eps) for e in E])

    got = ft.vmap(ft.grad(loss))(AS)
    singular = [1, 3]  # the fallback is a constant there (finite differences would jump)
    for i, A in enumerate(AS):
        if i in singular:
            np.testing.assert_array_equal(got[i], 0.0)
        else:
            np.testing.assert_allclose(got[i], fd(A).reshape(2, 2), rtol=1e-6, atol=1e-6)


def test_nested_vmaps_and_an_uncaught_error_name_the_row():
    stacks = np.stack([AS, AS[::-1]])
    np.testing.assert_allclose(
        ft.vmap(ft.vmap(inverse_or_zeros))(stacks),
        np.stack([loop(inverse_or_zeros, s) for s in stacks]),
    )
    with pytest.raises(np.linalg.LinAlgError) as info:
        ft.vmap(np.linalg.inv)(AS)
    assert "row(s) 1" in "".join(getattr(info.value, "__notes__", []))  # the loop's first
    assert current_stack() == ()


def test_a_traced_index_out_of_range_in_some_rows_fails_those_rows_only():
    x = np.arange(5.0)

    def pick(x, i):
        try:
            return x[i] * 2
        except IndexError:
            return -1.0

    rows = np.array([0, 7, 2, -9, 4])
    np.testing.assert_allclose(
        ft.vmap(pick, in_dims=(None, 0))(x, rows), [pick(x, i) for i in rows]
    )
