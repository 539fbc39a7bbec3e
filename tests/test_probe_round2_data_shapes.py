"""Probe round 2: NumPy functions whose result's size depends on the data (``roots``,
``polydiv``'s remainder, ``lstsq``'s residuals) under ``vmap`` with rows that disagree:
the batch splits as for the user's own per-example Python (NOTE [splitting the batch]),
so what does not depend on the ragged part equals the loop over rows; a ragged result
raises ``SplitOutputError`` (the loop's ``np.stack`` fails too); ``split=False`` keeps the
clear refusal."""

import warnings

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.errors import BatchedControlFlowError, SplitOutputError

A = np.array([[[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]], [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]])
B = np.array([[1.0, 2.0, 3.0], [1.0, 2.0, 3.5]])


def loop(f, *args):
    return np.stack([f(*row) for row in zip(*args)])


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ft.errors.PerformanceWarning)
        yield


def test_roots_with_zeros_inside_the_polynomial_stay_one_batch():
    p = np.array([[1.0, -3.0, 2.0], [2.0, 1.0, -2.0], [1.0, 0.0, -4.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error", ft.errors.PerformanceWarning)  # no split
        got = ft.vmap(np.roots)(p)
    np.testing.assert_allclose(np.sort(got, axis=1), np.sort(loop(np.roots, p), axis=1))


def test_roots_with_leading_and_trailing_zeros_on_some_rows():
    p = np.array([[1.0, -3.0, 2.0, 0.0], [0.0, 1.0, -3.0, 2.0], [2.0, -6.0, 4.0, 0.0]])

    def two_largest(q):
        return np.sort(np.roots(q).real)[-2:]

    np.testing.assert_allclose(ft.vmap(two_largest)(p), loop(two_largest, p))
    with pytest.raises(SplitOutputError, match="different shapes"):
        ft.vmap(np.roots)(p)  # 3 roots, 2 roots: ragged, as np.stack of the loop
    with pytest.raises(BatchedControlFlowError, match="roots under vmap"):
        ft.vmap(np.roots, split=False)(p)


def test_polydiv_remainders_of_different_lengths():
    u = np.array([[1.0, 0.0, 0.0, 0.0], [1.0, 0.0, -1.0, 0.0], [2.0, 1.0, 0.0, 1.0]])
    v = np.array([1.0, 0.0, -1.0])

    def quotient_and_remainder_sum(a):
        q, r = np.polydiv(a, v)
        return np.concatenate([q, [r.sum(), r.size]])

    f = quotient_and_remainder_sum
    np.testing.assert_allclose(ft.vmap(f)(u), loop(f, u))
    with pytest.raises(BatchedControlFlowError, match="polydiv under vmap"):
        ft.vmap(f, split=False)(u)


def test_lstsq_solution_and_its_gradient_on_rows_of_mixed_rank():
    def solve(a, b):
        return np.linalg.lstsq(a, b, rcond=None)[0]

    np.testing.assert_allclose(ft.vmap(solve)(A, B), loop(solve, A, B))
    g = ft.grad(lambda a, b: solve(a, b).sum())
    np.testing.assert_allclose(ft.vmap(g)(A, B), loop(g, A, B), atol=1e-12)
    with pytest.raises(BatchedControlFlowError, match="lstsq"):
        ft.vmap(solve, split=False)(A, B)
