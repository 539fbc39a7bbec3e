"""Focused tests of the NumPy composites (``ftransforms/numpy/_quantiles.py``,
``_statistics.py``, ``_signal.py``, ``_polynomials.py``, ``_builders.py``) beyond the op
database (``tests/op_db_stats.py``): per-sample gradients of a robust loss, Jacobians against
JAX, NumPy-spelled code on tracers, NaN and error behaviour, and value-dependent shapes under
vmap."""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ftransforms as ft
import ftransforms.numpy as fnp
from ftransforms.core.errors import (
    BatchedControlFlowError,
    PerformanceWarning,
    SplitOutputError,
)

jax.config.update("jax_enable_x64", True)


def close(got, want, rtol=1e-10, atol=1e-12):
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want), strict=True):
        assert isinstance(g, np.ndarray), type(g)
        np.testing.assert_allclose(g, np.asarray(w), rtol=rtol, atol=atol)


# -- per-sample gradients, Jacobians, NumPy-spelled code --------------------------------------


def test_per_sample_grads_of_a_percentile_loss_match_jax():
    """vmap(grad) of a trimmed (75th percentile) squared-error loss, written with numpy."""
    rng = np.random.default_rng(1)
    x = rng.normal(size=(8, 6, 3))
    y = rng.normal(size=(8, 6))
    w = rng.normal(size=3)

    def loss(w, x, y):
        r = (x @ w - y) ** 2
        return np.sum(np.percentile(r, [50.0, 75.0])) + np.nanquantile(r, 0.3)

    def jloss(w, x, y):
        r = (x @ w - y) ** 2
        return jnp.sum(jnp.percentile(r, jnp.array([50.0, 75.0]))) + jnp.nanquantile(r, 0.3)

    got = ft.vmap(ft.grad(loss), in_dims=(None, 0, 0))(w, x, y)
    want = jax.jit(jax.vmap(jax.grad(jloss), in_axes=(None, 0, 0)))(w, x, y)
    close(got, want)


def test_interp_jacobians_match_jax():
    rng = np.random.default_rng(2)
    xp = np.array([-1.0, 0.0, 0.7, 2.0, 3.5])
    fp = rng.normal(size=5)
    x = np.array([-1.5, -0.4, 0.3, 1.1, 2.9, 4.0])  # two outside, none on a sample point

    def f(x, xp, fp):
        return np.interp(x, xp, fp, right=-2.0)

    def jf(x, xp, fp):
        return jnp.interp(x, xp, fp, right=-2.0)

    want = jax.jit(jax.jacfwd(jf, argnums=(0, 1, 2)))(x, xp, fp)
    close(ft.jacfwd(f, argnums=(0, 1, 2))(x, xp, fp), want)
    close(ft.jacrev(f, argnums=(0, 1, 2))(x, xp, fp), want)


def test_cov_and_corrcoef_on_tracers_through_numpy():
    rng = np.random.default_rng(3)
    xs = rng.normal(size=(4, 3, 7))
    aw = rng.uniform(0.5, 2.0, size=7)

    def f(x, aw):
        return np.sum(np.cov(x, aweights=aw) ** 2) + np.sum(np.corrcoef(x) ** 3)

    def jf(x, aw):
        return jnp.sum(jnp.cov(x, aweights=aw) ** 2) + jnp.sum(jnp.corrcoef(x) ** 3)

    @jax.jit  # one compilation: JAX's op-by-op dispatch is far slower
    def want(xs, aw):
        return jax.vmap(jax.grad(jf, argnums=(0, 1)), in_axes=(0, None))(xs, aw), jax.hessian(jf)(
            xs[0], aw
        )

    per_sample, hess = want(xs, aw)
    close(ft.vmap(ft.grad(f, argnums=(0, 1)), in_dims=(0, None))(xs, aw), per_sample)
    close(ft.hessian(f)(xs[0], aw), hess, rtol=1e-9, atol=1e-10)
    close(ft.vmap(np.cov)(xs), np.stack([np.cov(x) for x in xs]))


def test_sequences_polynomials_and_signals_against_jax():
    rng = np.random.default_rng(4)
    a, b = 0.7, 2.5
    p, x, k = rng.normal(size=4), rng.normal(size=5), np.array([0.3, -0.2])
    sig, v = rng.normal(size=(3, 9)), np.stack([rng.normal(size=4)] * 3)
    modes = ("full", "same", "valid")

    def poly(np_, polyint):
        return lambda p, k: np_.sum(np_.polyval(polyint(p, 2, k), x))

    def conv(np_, mode):
        return lambda a, v: np_.sum(np_.sin(np_.convolve(a, v, mode)))

    @jax.jit  # one compilation: JAX's op-by-op dispatch is far slower
    def want(a, b, p, k, sig, v):
        return (
            jax.jacfwd(lambda a, b: jnp.geomspace(a, b, 6), argnums=(0, 1))(a, b),
            jax.jacrev(lambda a, b: jnp.logspace(a, b, 5, base=3.0), argnums=(0, 1))(a, b),
            jax.grad(poly(jnp, jnp.polyint), (0, 1))(p, k),
            [jax.vmap(jax.grad(conv(jnp, mode), (0, 1)))(sig, v) for mode in modes],
        )

    geom, log, polys, convs = want(a, b, p, k, sig, v)
    close(ft.jacfwd(lambda a, b: np.geomspace(a, b, 6), argnums=(0, 1))(a, b), geom)
    close(ft.jacrev(lambda a, b: np.logspace(a, b, 5, base=3.0), argnums=(0, 1))(a, b), log)
    close(ft.grad(poly(np, fnp.polyint), (0, 1))(p, k), polys)
    close(fnp.polyder(fnp.polyint(p, 2, k), 2), p)
    for mode, theirs in zip(modes, convs):
        close(ft.vmap(ft.grad(conv(np, mode), (0, 1)))(sig, v), theirs)


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve_and_correlate_match_numpy_for_every_length_pair(mode):
    rng = np.random.default_rng(5)
    for n in range(1, 6):
        for m in range(1, 6):
            a = rng.normal(size=n) + 1j * rng.normal(size=n)
            v = rng.normal(size=m) + 1j * rng.normal(size=m)
            close(fnp.convolve(a, v, mode), np.convolve(a, v, mode))
            close(fnp.correlate(a, v, mode), np.correlate(a, v, mode))
            close(fnp.correlate(a.real, v.real, mode), np.correlate(a.real, v.real, mode))


def test_delete_insert_histogram_digitize_under_transforms():
    rng = np.random.default_rng(6)
    x = rng.normal(size=(5, 4))
    got = ft.vmap(lambda r: np.insert(np.delete(r, [0, 2]), 1, r[0] * 2.0))(x)
    close(got, np.stack([np.insert(np.delete(r, [0, 2]), 1, r[0] * 2.0) for r in x]))
    got = ft.vmap(lambda r: np.histogram(r, 3))(x)
    want = [np.histogram(r, 3) for r in x]
    close(got[1], np.stack([e for _, e in want]))
    np.testing.assert_array_equal(got[0], np.stack([h for h, _ in want]))
    bins = np.sort(rng.normal(size=(5, 3)), axis=1)
    bins[::2] = bins[::2, ::-1]  # some decreasing: chosen per batch element
    got = ft.vmap(np.digitize)(x, bins)
    np.testing.assert_array_equal(got, np.stack([np.digitize(r, b) for r, b in zip(x, bins)]))
    # a traced index is read: the batch splits where it differs (an error with split=False)
    with pytest.raises(BatchedControlFlowError, match="delete"):
        ft.vmap(lambda r, i: np.delete(r, i), split=False)(x, np.arange(5) % 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PerformanceWarning)
        got = ft.vmap(lambda r, i: np.delete(r, i))(x, np.arange(5) % 4)
    close(got, np.stack([np.delete(r, i) for r, i in zip(x, np.arange(5) % 4)]))


# -- NaNs, errors, value-dependent shapes ----------------------------------------------------


def test_nan_behaviour_matches_numpy():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(3, 5))
    x[0, 1] = np.nan
    x[2, :] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for f in (
            lambda m, x: m.quantile(x, [0.2, 0.7], axis=1),
            lambda m, x: m.percentile(x, 40.0, axis=1, method="nearest"),
            lambda m, x: m.nanquantile(x, [0.2, 0.7], axis=1),
            lambda m, x: m.nanpercentile(x, 40.0, axis=1, method="higher"),
            lambda m, x: m.nanmedian(x, axis=1),
            lambda m, x: m.nanmedian(x),
        ):
            np.testing.assert_allclose(f(fnp, x), f(np, x), rtol=1e-12, equal_nan=True)
            batched = ft.vmap(lambda r, f=f: f(np, r[None]))(x)
            loop = np.stack([f(np, r[None]) for r in x])
            np.testing.assert_allclose(batched, loop, rtol=1e-12, equal_nan=True)


def test_errors():
    rng = np.random.default_rng(8)
    x = rng.normal(size=5)
    with pytest.raises(ValueError, match="range"):
        ft.grad(lambda x: np.quantile(x, 1.5))(x)
    with pytest.raises(ValueError, match="range"):
        ft.grad(lambda x: np.percentile(x, [-1.0, 50.0]))(x)
    with pytest.raises(ValueError, match="not a valid method"):
        ft.grad(lambda x: np.quantile(x, 0.5, method="bogus"))(x)
    with pytest.raises(ValueError, match="Only method 'inverted_cdf' supports weights"):
        ft.grad(lambda x: np.quantile(x, 0.5, method="hazen", weights=np.ones(5)))(x)
    with pytest.raises(ValueError, match="cannot include zero"):
        fnp.geomspace(0.0, 1.0, 3)
    with pytest.raises(ValueError, match="negative"):
        fnp.bincount(np.array([1, -1]))
    with pytest.raises(TypeError, match="tuple"):
        fnp.block((x, x))
    with pytest.raises(ValueError, match="monotonically"):
        fnp.digitize(x, np.array([0.0, 1.0, 0.5]))


def test_value_dependent_shapes_under_vmap():
    rng = np.random.default_rng(9)
    counts = ft.vmap(lambda i: np.bincount(i, minlength=6))(np.array([[0, 1, 1], [3, 5, 0]]))
    np.testing.assert_array_equal(counts, [[1, 2, 0, 0, 0, 0], [1, 0, 0, 1, 0, 1]])
    with pytest.raises(BatchedControlFlowError, match="minlength"):
        ft.vmap(np.bincount, split=False)(np.array([[0, 1, 1], [3, 5, 0]]))
    with pytest.warns(PerformanceWarning), pytest.raises(SplitOutputError, match="shapes"):
        ft.vmap(np.bincount)(np.array([[0, 1, 1], [3, 5, 0]]))  # ragged, as np.stack
    w = rng.normal(size=(2, 3))
    got = ft.vmap(ft.grad(lambda w: np.sum(np.bincount(np.array([0, 2, 2]), w) ** 2)))(w)
    close(got, np.stack([2 * np.bincount([0, 2, 2], r)[[0, 2, 2]] for r in w]))
    same_zeros = np.array([[0.0, 1.0, 2.0, 0.0], [0.0, 3.0, 0.0, 0.0]])
    with pytest.raises(BatchedControlFlowError, match="trim_zeros"):
        ft.vmap(np.trim_zeros, split=False)(same_zeros)
    np.testing.assert_array_equal(
        ft.vmap(lambda r: np.trim_zeros(r, "f"))(same_zeros), [[1.0, 2.0, 0.0], [3.0, 0.0, 0.0]]
    )
