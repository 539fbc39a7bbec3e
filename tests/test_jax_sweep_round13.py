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


def test_lax_conj_of_a_real_array_is_complex_as_in_jax() -> None:
    # jax.lax.conj gives complex64/complex128 for float32/float64 input; ft.lax.conj gave
    # the real array back (the rules' conjugate, now lax.conj_or_self)
    from ftransforms import lax

    x = np.array([1.0, -2.0])
    assert lax.conj(x).dtype == np.complex128
    assert lax.conj(x.astype(np.float32)).dtype == np.complex64
    np.testing.assert_array_equal(lax.conj(x), x.astype(np.complex128))
    assert ft.vmap(lax.conj)(np.ones((3, 2))).dtype == np.complex128
    # the derivative of Re(conj(x) * c) in x is Re(c)
    c = np.array([1.0 + 1.0j, 2.0 - 1.0j])
    grad = ft.grad(lambda v: fnp.sum(fnp.real(lax.conj(v) * c)))(x)
    np.testing.assert_array_equal(grad, c.real)
    z = np.array([1.0 + 2.0j])
    np.testing.assert_array_equal(lax.conj(z), np.conj(z))
    assert fnp.conj(x).dtype == np.float64  # NumPy's conj keeps a real array real
