"""Round 13's sweep of ``jax.numpy``/``jax.lax`` names against ``ftransforms.numpy``/``lax``:
the silent differences it found, each checked against NumPy (or JAX for ``lax``)."""

from __future__ import annotations

import numpy as np

import ftransforms as ft
import ftransforms.numpy as fnp


def test_lexsort_of_a_1d_array_reads_its_entries_as_0d_keys() -> None:
    # NumPy (and jnp) read an array's axis 0 as the sequence of keys: a 1-d array is four
    # 0-d keys, whose one order is 0; read as one key it gave argsort's [3, 2, 1, 0]
    x = np.array([0.9, 0.7, 0.5, 0.3])
    got = fnp.lexsort(x)
    want = np.lexsort(x)
    assert np.shape(got) == np.shape(want) == ()
    assert got == want and np.asarray(got).dtype == np.asarray(want).dtype
    # under vmap each row is such an array
    rows = np.array([[0.9, 0.7, 0.5], [0.1, 0.3, 0.2]])
    assert ft.vmap(fnp.lexsort)(rows).tolist() == [np.lexsort(r) for r in rows]


def test_concatenate_of_an_array_joins_its_rows() -> None:
    # NumPy reads an array given as ``arrays`` as the sequence of its rows; it raised
    # "truth value of an array ... is ambiguous" here
    x = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(fnp.concatenate(x[0]), np.concatenate(x[0]))
    np.testing.assert_array_equal(fnp.concatenate(x, axis=1), np.concatenate(x, axis=1))
    np.testing.assert_array_equal(fnp.concatenate(x, axis=None), np.concatenate(x, axis=None))
    looped = np.stack([np.concatenate(r) for r in x])
    np.testing.assert_array_equal(ft.vmap(fnp.concatenate)(x), looped)
    w = np.linspace(-1.0, 1.0, 12)
    grad = ft.grad(lambda a: fnp.sum(fnp.concatenate(a) * w))(x[0])
    np.testing.assert_array_equal(grad, w.reshape(3, 4))
