"""NOTE [buffers after their transform]: a plain array of the function (an argument that is
not transformed, a buffer it made) kept by a closure stays usable after the forward pass:
custom_root's backward pass re-runs ``f``, which reads it (found by scipy10: grad with
array arguments raised EscapedTracerError)."""

from __future__ import annotations

import numpy as np
import pytest

import ftransforms as ft


def newton(f, x0):
    x = x0
    for _ in range(30):
        x = x - f(x) / ft.grad(f)(x)
    return x


def sqrt_of_product(a, b):
    return ft.custom_root(lambda x: x**2 - a * b, 1.0, newton, lambda g, y: y / g(1.0))


A, B = np.array(2.0), np.array(3.0)


def test_custom_root_differentiated_in_each_array_argument():
    root = np.sqrt(A * B)
    np.testing.assert_allclose(ft.grad(sqrt_of_product, argnums=0)(A, B), B / (2 * root))
    np.testing.assert_allclose(ft.grad(sqrt_of_product, argnums=1)(A, B), A / (2 * root))
    ga, gb = ft.grad(sqrt_of_product, argnums=(0, 1))(A, B)
    np.testing.assert_allclose([ga, gb], [B / (2 * root), A / (2 * root)])
    np.testing.assert_allclose(ft.jacrev(sqrt_of_product, argnums=1)(A, B), A / (2 * root))
    bs = np.array([3.0, 8.0])
    np.testing.assert_allclose(
        ft.vmap(ft.grad(sqrt_of_product, argnums=1), in_dims=(None, 0))(A, bs),
        [ft.grad(sqrt_of_product, argnums=1)(A, b) for b in bs],
    )


def test_scipy_root_finder_with_a_second_array_parameter():
    so = pytest.importorskip("scipy.optimize")

    def root(a, b):
        return so.brentq(lambda x: x**2 - a * b, 0.0, 10.0)

    np.testing.assert_allclose(ft.grad(root, argnums=1)(A, B), A / (2 * np.sqrt(A * B)), rtol=1e-8)


def test_a_kept_buffer_reads_as_its_array_and_other_tracers_still_escape():
    kept, leaked = [], []

    def f(x):
        buf = np.zeros(2)
        buf[0] = 3.0
        kept.append(buf)
        leaked.append(x * 2)
        return (x * 2).sum()

    ft.grad(f)(np.ones(2))
    np.testing.assert_array_equal(kept[0] + 1, [4.0, 1.0])
    np.testing.assert_array_equal(np.asarray(kept[0]), [3.0, 0.0])
    with pytest.raises(ft.errors.EscapedTracerError):
        leaked[0] + 1
