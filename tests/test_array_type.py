"""``ftransforms.numpy.ndarray`` / ``ftransforms.Array``: isinstance checks that count traced
arrays, as ``jax.numpy.ndarray``/``jax.Array`` do, under every transform."""

from __future__ import annotations

import numpy as np
import pytest

import ftransforms as ft
import ftransforms.numpy as fnp


def norm(x):
    """A helper with a scalar branch, as NumPy code writes it."""
    if isinstance(x, fnp.ndarray):
        return np.sqrt((x**2).sum())
    return abs(x)


X = np.array([[3.0, 4.0], [1.0, 2.0]])


@pytest.mark.parametrize(
    "run",
    [
        lambda f: ft.grad(f)(X[0]),
        lambda f: ft.vmap(f)(X),
        lambda f: ft.jvp(f, (X[0],), (np.ones(2),))[1],
        lambda f: ft.jit(f)(X[0]),
        lambda f: ft.jacrev(f)(X[0]),
        lambda f: ft.hessian(f)(X[0]),
        lambda f: ft.vmap(ft.grad(f))(X),
        lambda f: ft.jit(ft.vmap(ft.grad(f)))(X),
    ],
    ids=["grad", "vmap", "jvp", "jit", "jacrev", "hessian", "vmap_grad", "jit_vmap_grad"],
)
def test_the_array_branch_is_taken_under_every_transform(run):
    seen = []

    def f(x):
        seen.append(isinstance(x, fnp.ndarray) and isinstance(x, ft.Array))
        return norm(x)

    out = run(f)
    assert seen and all(seen)
    assert np.all(np.isfinite(out))


def test_values_match_the_eager_array_branch():
    g = ft.grad(norm)(X[0])
    np.testing.assert_allclose(g, X[0] / np.linalg.norm(X[0]), rtol=1e-15)
    np.testing.assert_allclose(ft.vmap(norm)(X), np.linalg.norm(X, axis=1), rtol=1e-15)


def test_what_is_not_an_array():
    assert isinstance(np.ones(2), fnp.ndarray)
    assert isinstance(np.ma.masked_array([1.0]), fnp.ndarray)
    for value in (1.0, 3, np.float64(1.0), np.float32(2.0), [1.0], None):
        assert not isinstance(value, fnp.ndarray)
    assert issubclass(np.ndarray, fnp.ndarray) and issubclass(np.ma.MaskedArray, ft.Array)
    assert not issubclass(np.float64, fnp.ndarray) and not issubclass(list, fnp.ndarray)


def test_calling_the_class_makes_a_numpy_array():
    a = fnp.ndarray((2, 3), dtype=np.float32)
    assert type(a) is np.ndarray and a.shape == (2, 3) and a.dtype == np.float32
