"""Probe round 5: ``np.require`` of a traced array.  NumPy returns the array itself where
it already meets the requirements (a write into the result reaches it) and a copy where it
does not.  Under the transforms ``np.require(t)`` used to give a read-only object array
(a write raised), ``np.require(t, requirements='W')`` / ``'O'`` a copy (a write through
the result silently missed ``t``), and ``np.require(t, dtype=...)`` raised.

Oracles: plain NumPy on each row (a Python loop for ``vmap``), the eager result on new
inputs for ``jit``, central finite differences in float64 for ``grad``."""

import numpy as np
import pytest

import ftransforms as ft

X = np.array([[0.5, 1.0, -2.0], [3.0, -1.5, 2.5]])


def writes_through_require(requirements):
    def f(x):
        x = x * 1.0  # an array of the function's own, which NumPy lets it write
        y = np.require(x, requirements=requirements)
        y[1] = 5.0 * y[0]
        return x * y

    return f


def fd_grad(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(x.size)])


@pytest.mark.parametrize("requirements", [None, "W", ["C", "A"], "O", ["writeable", "E"]])
def test_a_write_through_require_reaches_the_array(requirements):
    f = writes_through_require(requirements)
    ref = np.stack([f(x) for x in X])
    np.testing.assert_allclose(ft.vmap(f)(X), ref)
    jf = ft.jit(ft.vmap(f))
    jf(X[::-1])
    np.testing.assert_allclose(jf(X), ref)

    def loss(x):
        return (f(x) ** 2).sum()

    np.testing.assert_allclose(
        ft.vmap(ft.grad(loss))(X), np.stack([fd_grad(loss, x) for x in X]), rtol=1e-6
    )


def test_require_of_a_view_that_is_not_contiguous_or_not_owning_copies():
    def f(x):
        x = x * 1.0
        y = np.require(x[::2], requirements="C")  # NumPy: a copy (the view is strided)
        y[0] = 100.0
        z = np.require(x[1:], requirements="O")  # NumPy: a copy (a view owns no data)
        z[0] = 200.0
        w = np.require(x[1:])  # NumPy: the view itself
        w[-1] = 300.0
        return x + y.sum() + z.sum()

    np.testing.assert_allclose(ft.vmap(f)(X), np.stack([f(x) for x in X]))


def test_require_with_a_dtype_casts_as_numpy_does():
    def f(x):
        return np.require(x, dtype=np.float32) * 2

    got = ft.vmap(f)(X)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, np.stack([f(x) for x in X]))
    g = ft.grad(lambda x: np.require(x, np.float64, "C").sum() * 3.0)(X[0])
    np.testing.assert_allclose(g, np.full(3, 3.0))


def test_require_of_both_orders_raises_numpy_s_error():
    with pytest.raises(ValueError, match="both"):
        ft.vmap(lambda x: np.require(x, requirements=["C", "F"]))(X)
    with pytest.raises(ValueError, match="both"):
        np.require(X, requirements=["C", "F"])
