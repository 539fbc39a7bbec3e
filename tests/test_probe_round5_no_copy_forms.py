"""Probe round 5: NumPy calls that work on their argument itself, without a copy.

* ``np.nan_to_num(a, copy=False)`` replaces NaN/inf in ``a`` and returns ``a``; on a
  traced array it returned a new array and left ``a`` unchanged, so code that ignores
  the return value (the usual use of ``copy=False``) silently kept the NaNs.
* ``np.array(a, copy=False)`` / ``copy=None`` (NumPy 1.x's "copy only if needed", and
  NumPy 2's "never copy") returns ``a`` itself: on a traced array it gave a read-only
  object array (a write into it raised).

Oracles: plain NumPy on each row (a Python loop for ``vmap``), the eager result on new
inputs for ``jit``, central finite differences for ``grad``."""

import numpy as np
import pytest

import ftransforms as ft

X = np.array([[0.5, np.nan, 2.2, np.inf], [1.0, 2.9, -np.inf, -0.5], [np.nan, 1.5, 0.25, 3.0]])


def cleaned_in_place(x):
    a = x * 2.0
    np.nan_to_num(a, copy=False, posinf=10.0, neginf=-10.0)  # the result is a itself
    return a * a


def check(f, xs):
    ref = np.stack([f(x.copy()) for x in xs])
    np.testing.assert_allclose(ft.vmap(f)(xs), ref)
    jf = ft.jit(ft.vmap(f))
    jf(xs[::-1].copy())
    np.testing.assert_allclose(jf(xs), ref)


def test_nan_to_num_without_copy_replaces_in_the_array():
    check(cleaned_in_place, X)
    out = ft.vmap(lambda x: np.nan_to_num(x * 1.0, copy=False))(X)
    np.testing.assert_allclose(out, np.nan_to_num(X))


def test_gradient_through_nan_to_num_in_place():
    def loss(x):
        return cleaned_in_place(x).sum()

    x = np.array([0.5, 1.5, -2.0])  # finite: d/dx (2x)^2 = 8x
    np.testing.assert_allclose(ft.grad(loss)(x), 8 * x)
    g = ft.vmap(ft.grad(loss))(X)
    finite = np.isfinite(X)
    np.testing.assert_allclose(g[finite], 8 * X[finite])
    np.testing.assert_array_equal(g[~finite], 0.0)


def aliased_by_array(copy):
    def f(x):
        a = x * 1.0
        b = np.array(a, copy=copy)  # a itself: no copy is needed
        b[0] = 5.0 * b[1]
        c = np.array(a, dtype=np.float32, copy=None)  # a cast: a new array
        c[1] = 6.0
        return a + c

    return f


@pytest.mark.parametrize("copy", [False, None])
def test_array_without_copy_is_the_traced_array_itself(copy):
    xs = np.array([[0.5, -1.0, 2.0], [1.0, 2.0, 3.0]])
    check(aliased_by_array(copy), xs)

    def loss(x):  # float64 throughout, for the finite differences
        a = x * 1.0
        b = np.array(a, copy=copy)
        b[0] = 5.0 * b[1]
        return (a**2).sum()

    eps = 1e-6
    for x in xs:
        fd = [(loss(x + eps * e) - loss(x - eps * e)) / (2 * eps) for e in np.eye(3)]
        np.testing.assert_allclose(ft.grad(loss)(x), fd, rtol=1e-5)


def test_array_without_copy_refuses_a_cast_as_numpy_does():
    with pytest.raises(ValueError, match="avoid copy"):
        np.array(np.ones(3), dtype=np.float32, copy=False)
    with pytest.raises(ValueError, match="avoid copy"):
        ft.vmap(lambda x: np.array(x, dtype=np.float32, copy=False))(np.ones((2, 3)))
