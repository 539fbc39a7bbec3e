"""Probe round 5: NumPy code that reads a number (or a count) from a 0-d traced value.

* ``np.float64(t)`` / ``np.int32(t)`` / ``np.bool_(t)`` of a 0-d tracer: NumPy calls
  ``__array__(dtype=...)``, which used to refuse (TracerConversionError) even where
  ``float(t)`` / ``int(t)`` / ``bool(t)`` read the number (under ``vmap``, ``jit``; an
  integer, or ``int()`` of a float, under ``grad``).  It reads it there now; a float that
  ``grad`` differentiates still refuses, as ``float(t)`` does.
* ``np.arange(n)`` of a traced 0-d integer ``n`` (under ``jit`` or ``vmap``) gave an OBJECT
  array (NumPy's arange over a foreign object), so later arithmetic ran element by element
  and the result had dtype object: it counts to ``n`` now, as ``np.arange(np.array(3))``
  does.
* ``np.tile(x, np.array(2))`` (a 0-d reps, which NumPy takes) raised TypeError.

Oracles: plain NumPy values, a Python loop over the rows for ``vmap``, the eager result on
new inputs for ``jit``, central finite differences for ``grad``."""

import warnings

import numpy as np
import pytest

import ftransforms as ft
import ftransforms.numpy as fnp

X = np.array([[0.5, 1.0, -2.0], [3.0, -1.5, 2.5], [1.0, 2.0, 0.25]])

pytestmark = pytest.mark.filterwarnings("ignore::ftransforms.errors.PerformanceWarning")


def loop(f, *args):
    return np.stack([f(*row) for row in zip(*args)])


def fd_grad(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(x.size)])


@pytest.mark.parametrize("scalar", [np.float64, np.float32, np.int64, np.int32, np.bool_])
def test_numpy_scalar_of_a_batched_0d_value_reads_each_row(scalar):
    def f(x):
        return x * scalar(x.sum())

    got = ft.vmap(f)(X)
    np.testing.assert_allclose(got, loop(f, X), rtol=1e-6)
    assert got.dtype == loop(f, X).dtype


def test_numpy_scalar_under_jit_reads_the_new_inputs_value():
    def f(x):
        return x * np.float64(x[0])

    jf = ft.jit(f)
    jf(X[0])
    for row in X[1:]:
        np.testing.assert_allclose(jf(row), f(row))


def test_integer_numpy_scalar_of_a_differentiated_value_is_piecewise_constant():
    def f(x):
        return (x * np.int64(x.sum()) + x**2 * np.float64(x[0] > 0)).sum()

    rows = X + 0.1  # no row sum is an integer: the finite differences see no step
    for row in rows:
        np.testing.assert_allclose(ft.grad(f)(row), fd_grad(f, row), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(
        ft.vmap(ft.grad(f))(rows), np.stack([fd_grad(f, r) for r in rows]), rtol=1e-6, atol=1e-6
    )


def test_float_numpy_scalar_of_a_differentiated_value_still_refuses():
    with pytest.raises(ft.errors.TracerConversionError):
        ft.grad(lambda x: (x * np.float64(x[0])).sum())(X[0])
    assert ft.grad(lambda x: (x**2).sum())(X[0]).tolist() == (2 * X[0]).tolist()


@pytest.mark.parametrize("module", [np, fnp], ids=["np", "fnp"])
def test_arange_of_a_traced_count_under_jit_counts_to_its_value(module):
    def f(x, n):
        return module.arange(n) * x.sum() + module.arange(1, n + 1)

    jf = ft.jit(f)
    x = np.array([1.0, 2.0, 0.5])
    for n in (3, 5, 2):
        got = jf(x, np.array(n))
        ref = f(x, np.array(n))
        assert got.dtype == ref.dtype == np.float64
        np.testing.assert_allclose(got, ref)


def test_arange_of_a_batched_count_under_vmap_is_numeric_per_row():
    def f(x, n):
        return (np.arange(n) * x[0]).sum() + np.arange(start=0, stop=n).sum()

    n = np.array([2, 2, 3])
    got = ft.vmap(f)(X, n)
    ref = loop(f, X, n)
    assert got.dtype == ref.dtype == np.float64
    np.testing.assert_allclose(got, ref)
    # same count on every row: one batched program, still numeric
    out = ft.vmap(lambda x, n: np.arange(n) * x[0])(X, np.array([3, 3, 3]))
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, np.stack([np.arange(3) * r[0] for r in X]))


def test_arange_of_a_differentiated_float_bound_refuses():
    with pytest.raises(ft.errors.TracerConversionError):
        ft.grad(lambda t: np.arange(t, t + 3.0).sum())(1.0)


def test_tile_takes_a_0d_reps_as_numpy_does():
    x = np.array([1.0, -2.0])
    np.testing.assert_array_equal(fnp.tile(x, np.array(2)), np.tile(x, np.array(2)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = ft.vmap(lambda r, n: np.tile(r, n))(X, np.array([2, 2, 2]))
    np.testing.assert_array_equal(got, np.stack([np.tile(r, 2) for r in X]))
    g = ft.grad(lambda r: np.tile(r, np.array(3)).sum())(X[0])
    np.testing.assert_allclose(g, np.full(3, 3.0))
