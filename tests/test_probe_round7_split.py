"""Probe round 7 on vmap of per-example Python code (NOTE [splitting the batch] in
ftransforms/split.py): each test compares with the Python loop over the rows."""

import warnings

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.core.stack import current_stack


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ft.errors.PerformanceWarning)
        yield
    assert current_stack() == ()


def _loop(f, xs):
    return np.stack([np.asarray(f(x), dtype=float) for x in xs])


def test_while_loop_in_a_generator_does_not_yield_masked_rows():
    # A `while` inside a generator: rows leave at different yields; the rows that left
    # must not pass a value one step past their end to the consumer (sum()).
    def f(x):
        def positives():
            i = 0
            while i < 3 and x[i] > 0:
                yield x[i] * x[i]
                i += 1

        return sum(positives())

    xs = np.array([[1.0, 2.0, -1.0], [1.0, -1.0, 1.0], [2.0, 1.0, 3.0], [1.0, 2.0, -4.0]])
    want = _loop(f, xs)
    np.testing.assert_allclose(ft.vmap(f)(xs), want)
    np.testing.assert_allclose(ft.vmap(f, chunk_size=2)(xs), want)
    jf = ft.jit(ft.vmap(f))
    for perm in ([0, 1, 2, 3], [3, 2, 1, 0], [1, 3, 0, 2]):
        np.testing.assert_allclose(jf(xs[perm]), want[perm])
    grads = ft.vmap(ft.grad(f))(xs)
    np.testing.assert_allclose(grads, np.stack([ft.grad(f)(x) for x in xs]))
    np.testing.assert_allclose(grads[1], [2.0, 0.0, 0.0])
