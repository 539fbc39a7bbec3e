"""Users' programs, round eleven (the lead's probes): SciPy's and NumPy's functions
differentiated as their users check them, entry by entry against float64 central
differences of the library's own function.

* ``scipy.linalg.eigh`` reads one triangle of ``a`` (and of ``b``), like
  ``scipy.linalg.cholesky`` and ``numpy.linalg.eigh``; its gradient was the symmetric one
  of ``(a + a^T) / 2`` (JAX's), which differs from the differences of SciPy's function
  entry by entry (by 1.1 at an off-diagonal entry here).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

import ftransforms as ft


def _central(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


@pytest.mark.parametrize("lower", [True, False])
def test_scipy_eigh_gradient_is_that_of_the_triangle_it_reads(lower):
    rng = np.random.default_rng(0)
    a = rng.normal(size=(4, 4))
    b = a @ a.T + 4 * np.eye(4)
    m = b + a + 2 * a.T  # not symmetric: SciPy reads one triangle
    w = np.arange(1.0, 5.0)

    def values(x):
        return scipy.linalg.eigh(x, lower=lower)[0] @ w

    def generalized_in_a(x):
        return scipy.linalg.eigh(x, b, lower=lower)[0] @ w

    def generalized_in_b(x):
        return scipy.linalg.eigh(m, x, lower=lower, eigvals_only=True) @ w

    def vector(x):
        return (scipy.linalg.eigh(x, b, lower=lower)[1][:, 0] ** 2) @ w

    for f, x in (
        (values, m),
        (generalized_in_a, m),
        (generalized_in_b, b + np.triu(a, 1)),
        (vector, m),
    ):
        np.testing.assert_allclose(ft.grad(f)(x), _central(f, x), rtol=1e-6, atol=1e-7)
