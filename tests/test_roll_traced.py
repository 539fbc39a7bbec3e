"""``fnp.roll`` with a traced shift (one shift per example under ``vmap``): a loop over
``numpy.roll`` is the oracle, and the gradient is JAX's."""

from __future__ import annotations

import numpy as np
import pytest

import ftransforms as ft
import ftransforms.numpy as fnp

X = np.arange(30.0).reshape(3, 2, 5)
SHIFTS = np.array([1, -3, 7])


@pytest.mark.parametrize(
    "axis", [None, 0, 1, -1, (0, 1)], ids=["flat", "ax0", "ax1", "ax-1", "two_axes"]
)
def test_vmap_over_shift_matches_a_loop(axis):
    def f(x, s):
        shift = (s, 2) if isinstance(axis, tuple) else s
        return fnp.roll(x, shift, axis=axis)

    got = ft.vmap(f)(X, SHIFTS)
    for i in range(3):
        shift = (SHIFTS[i], 2) if isinstance(axis, tuple) else SHIFTS[i]
        np.testing.assert_array_equal(got[i], np.roll(X[i], shift, axis=axis))


def test_gradient_through_a_traced_shift_matches_jax():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    w = np.linspace(-1.0, 1.0, 10).reshape(2, 5)

    def ours(x, s):
        return fnp.sum(fnp.roll(x, s, axis=1) * w)

    def theirs(x, s):
        return jnp.sum(jnp.roll(x, s, axis=1) * w)

    got = ft.vmap(ft.grad(ours))(X, SHIFTS)
    want = jax.vmap(jax.grad(theirs))(X, SHIFTS)
    np.testing.assert_allclose(got, np.asarray(want), rtol=1e-12)


def test_mismatched_shift_and_axis_counts_raise():
    with pytest.raises(ValueError, match="one shift per axis"):
        ft.vmap(lambda s: fnp.roll(X[0], (s, s, s), axis=(0, 1)))(SHIFTS)
