"""jax.numpy's ``size=``/``fill_value=`` on nonzero, where, flatnonzero, argwhere and
unique: fixed shapes, equal to JAX's, batched by vmap without splitting the batch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ftransforms as ft
import ftransforms.numpy as fnp
from tests.jaxpr_evaluator import on_jax

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

A = np.array([3.0, 1.0, 3.0, 0.0, 2.0, 1.0])
M = np.array([[0, 1], [2, 0], [0, 3]])
CASES = {
    "unique_pad_min": lambda m: m.unique(A, size=6),
    "unique_pad_fill": lambda m: m.unique(A, size=6, fill_value=-1),
    "unique_truncate": lambda m: m.unique(A, size=2),
    "unique_all_outputs": lambda m: m.unique(
        A, size=6, return_index=True, return_inverse=True, return_counts=True
    ),
    "unique_truncated_counts": lambda m: m.unique(A, size=2, return_index=True, return_counts=True),
    "unique_ints": lambda m: m.unique(np.array([1, 5, 5, 2]), size=5),
    "nonzero_pad": lambda m: m.nonzero(M, size=5),
    "nonzero_fill": lambda m: m.nonzero(M, size=5, fill_value=-1),
    "nonzero_fill_per_axis": lambda m: m.nonzero(M, size=5, fill_value=(7, 8)),
    "nonzero_truncate": lambda m: m.nonzero(M, size=2),
    "nonzero_none_true": lambda m: m.nonzero(np.zeros(3), size=2),
    "where_one_arg": lambda m: m.where(M, size=4),
    "flatnonzero": lambda m: m.flatnonzero(M, size=4, fill_value=9),
    "argwhere": lambda m: m.argwhere(M, size=4, fill_value=-1),
}


def assert_same(ours, theirs):
    ours_leaves = ft.tree_util.tree_leaves(ours)
    their_leaves = jax.tree_util.tree_leaves(theirs)
    assert len(ours_leaves) == len(their_leaves)
    for o, t in zip(ours_leaves, their_leaves):
        t = np.asarray(t)
        assert np.asarray(o).dtype == t.dtype
        np.testing.assert_array_equal(o, t)


@pytest.mark.parametrize("name", sorted(CASES))
def test_equal_to_jax(name):
    assert_same(CASES[name](fnp), on_jax(lambda: CASES[name](jnp)))


def test_vmap_batches_whole_and_jit_replays():
    X = np.array([[1.0, 1.0, 2.0], [3.0, 4.0, 5.0], [0.0, 0.0, 0.0]])

    def f(m):
        return lambda r: (
            m.unique(r, size=3, fill_value=0, return_counts=True),
            m.nonzero(r > 1, size=2, fill_value=-1),
        )

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a split of the batch would warn
        got = ft.vmap(f(fnp))(X)
    assert_same(got, on_jax(jax.vmap(f(jnp)), X))
    jf = ft.jit(ft.vmap(f(fnp)))
    jf(X)
    assert_same(jf(X[::-1].copy()), on_jax(jax.vmap(f(jnp)), X[::-1].copy()))


def test_values_are_differentiable_by_gather():
    def f(m):
        return lambda r: (m.unique(r, size=4, fill_value=0.0) * m.arange(1, 5)).sum()

    np.testing.assert_array_equal(ft.grad(f(fnp))(A), on_jax(jax.grad(f(jnp)), A))


def test_bad_sizes_are_clear_errors():
    with pytest.raises(ValueError, match="non-negative"):
        fnp.nonzero(M, size=-1)
    with pytest.raises(ValueError, match="one value per axis"):
        fnp.nonzero(M, size=2, fill_value=(1, 2, 3))
    with pytest.raises(ValueError, match="empty"):
        fnp.unique(np.zeros(0), size=2)
