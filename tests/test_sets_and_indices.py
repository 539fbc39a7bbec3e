"""Focused tests of the set, index-builder and NaN-aware functions of ``fnp``: outputs
(values and dtypes) against NumPy, derivatives against ``jax.numpy``, and ``vmap`` of
value-dependent shapes (the same size for every batch element works, different sizes raise
``BatchedControlFlowError``)."""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ftransforms as ft
import ftransforms.numpy as fnp
from ftransforms.core.errors import BatchedControlFlowError, PerformanceWarning, SplitOutputError

jax.config.update("jax_enable_x64", True)


def same(got, want):
    """Same structure, dtypes, shapes and values (NaN matches NaN)."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)
        return
    if isinstance(want, bool):
        assert got is want
        return
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(got, want)


X = np.array([[1.0, np.nan, 3.0], [np.nan, -2.0, 0.0], [np.nan, -np.inf, 5.0]])


# -- NaN-aware ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["nanargmax", "nanargmin"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_nanarg_matches_numpy(name, axis):
    same(getattr(fnp, name)(X, axis=axis), getattr(np, name)(X, axis=axis))
    same(getattr(fnp, name)(X, axis=axis, keepdims=True), getattr(np, name)(X, axis, keepdims=True))
    # through the NumPy protocols, under vmap
    out = ft.vmap(lambda r: getattr(np, name)(r))(X)
    same(out, np.array([getattr(np, name)(r) for r in X]))


def test_nanarg_all_nan():
    with pytest.raises(ValueError, match="All-NaN slice"):
        fnp.nanargmax(np.array([np.nan, np.nan]))
    # under vmap the row that is all NaN raises, as in the loop over the rows (it was -1,
    # as in jax.numpy: a silent answer where NumPy raises); the other rows compute
    with pytest.raises(ValueError, match="All-NaN slice") as info:
        ft.vmap(fnp.nanargmin)(np.array([[2.0, 1.0], [np.nan, np.nan]]))
    assert "row(s) 1" in " ".join(info.value.__notes__)


@pytest.mark.parametrize("name", ["nancumsum", "nancumprod"])
def test_nancum_matches_numpy_and_jax(name):
    x = np.where(np.isinf(X), 4.0, X)  # no -inf * 0
    for axis in (None, 0, 1):
        same(getattr(fnp, name)(x, axis=axis), getattr(np, name)(x, axis=axis))
    ints = np.array([[1, 2], [3, 4]], np.int32)
    same(getattr(fnp, name)(ints), getattr(np, name)(ints))
    same(getattr(fnp, name)(ints, dtype=np.float32), getattr(np, name)(ints, dtype=np.float32))
    x = np.array([[0.5, np.nan, 1.5], [np.nan, -2.0, 0.7]])
    g = ft.grad(lambda v: np.sum(getattr(np, name)(v, axis=1) ** 2))(x)
    want = jax.grad(lambda v: jnp.sum(getattr(jnp, name)(v, axis=1) ** 2))(x)
    np.testing.assert_allclose(g, want, rtol=1e-12)


# -- argwhere, flatnonzero ------------------------------------------------------------------


def test_argwhere_flatnonzero_match_numpy():
    for a in (
        np.array([[0.0, 2.0, 0.0], [3.0, 0.0, 1.0]]),
        np.array([True, False, True]),
        np.zeros((2, 0)),
        np.float64(3.0),
        np.float64(0.0),
        np.zeros((2, 3)),
    ):
        same(fnp.argwhere(a), np.argwhere(a))
        same(fnp.flatnonzero(a), np.flatnonzero(a))


def test_argwhere_under_vmap():
    batch = np.array([[0.0, 1.0, 2.0], [3.0, 0.0, 4.0]])
    same(ft.vmap(np.argwhere)(batch), np.stack([np.argwhere(r) for r in batch]))
    same(ft.vmap(fnp.flatnonzero)(batch), np.stack([np.flatnonzero(r) for r in batch]))
    with pytest.raises(BatchedControlFlowError, match="argwhere.*differs across the batch"):
        ft.vmap(fnp.argwhere, split=False)(np.array([[0.0, 1.0, 2.0], [3.0, 0.0, 0.0]]))
    # split (the default): ragged per-row results cannot be stacked, as with np.stack
    with pytest.warns(PerformanceWarning), pytest.raises(SplitOutputError, match="shapes"):
        ft.vmap(fnp.argwhere)(np.array([[0.0, 1.0, 2.0], [3.0, 0.0, 0.0]]))
    with pytest.raises(BatchedControlFlowError, match="flatnonzero"):
        ft.vmap(np.flatnonzero, split=False)(np.array([[0.0, 1.0], [3.0, 2.0]]))


# -- index arithmetic ---------------------------------------------------------------------


def test_indices_from_match_numpy():
    same(fnp.diag_indices_from(np.zeros((3, 3, 3))), np.diag_indices_from(np.zeros((3, 3, 3))))
    for k in (-1, 0, 2):
        a = np.zeros((3, 5))
        same(fnp.tril_indices_from(a, k), np.tril_indices_from(a, k))
        same(fnp.triu_indices_from(a, k=k), np.triu_indices_from(a, k=k))
    with pytest.raises(ValueError, match="equal length"):
        fnp.diag_indices_from(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="2-d"):
        fnp.tril_indices_from(np.zeros(3))
    out = ft.vmap(lambda m: np.tril_indices_from(m)[1])(np.zeros((4, 2, 2)))
    same(out, np.tile(np.tril_indices(2)[1], (4, 1)))


def test_ravel_unravel_match_numpy():
    i, j = np.array([[1, 2], [0, 2]]), np.array([[0, 3], [-1, 7]])
    for mode in ("wrap", "clip", ("clip", "wrap")):
        for order in ("C", "F"):
            same(
                fnp.ravel_multi_index((i, j), (3, 4), mode=mode, order=order),
                np.ravel_multi_index((i, j), (3, 4), mode=mode, order=order),
            )
    with pytest.raises(ValueError, match="invalid entry"):
        fnp.ravel_multi_index((i, j), (3, 4))
    same(
        np.asarray(fnp.ravel_multi_index((1, 2), (3, 4))),
        np.asarray(np.ravel_multi_index((1, 2), (3, 4))),
    )
    flat = np.array([[0, 5], [23, 11]], np.int32)
    for order in ("C", "F"):
        same(fnp.unravel_index(flat, (2, 3, 4), order), np.unravel_index(flat, (2, 3, 4), order))
    with pytest.raises(ValueError, match="out of bounds"):
        fnp.unravel_index(np.array([24]), (2, 3, 4))
    with pytest.raises(TypeError, match="only int indices"):
        fnp.unravel_index(np.array([1.0]), (2, 3))
    out = ft.vmap(lambda f: np.unravel_index(f, (3, 4)))(np.array([[1, 5], [11, 0]]))
    same(out, np.unravel_index(np.array([[1, 5], [11, 0]]), (3, 4)))


# -- unwrap, sort_complex, real_if_close ----------------------------------------------------


def test_unwrap_matches_numpy_and_jax():
    rng = np.random.default_rng(0)
    p = np.cumsum(rng.uniform(-5.0, 5.0, (3, 9)), axis=1)
    for kw in ({}, {"axis": 0}, {"period": 4.0}, {"discont": 4.0}, {"discont": 1.0}):
        np.testing.assert_allclose(fnp.unwrap(p, **kw), np.unwrap(p, **kw), rtol=1e-13)
    p32 = p.astype(np.float32)
    assert fnp.unwrap(p32).dtype == np.unwrap(p32).dtype == np.float32
    ints = np.array([0, 5, 10, 3, -4, 9])
    for period in (6, 7):
        same(fnp.unwrap(ints, period=period), np.unwrap(ints, period=period))
    same(fnp.unwrap(ints), np.unwrap(ints))
    g = ft.grad(lambda v: np.sum(np.sin(np.unwrap(v)) * v))(p)
    want = jax.grad(lambda v: jnp.sum(jnp.sin(jnp.unwrap(v)) * v))(p)
    np.testing.assert_allclose(g, want, rtol=1e-12)
    batched = ft.vmap(lambda r: fnp.unwrap(r, period=4.0))(p)
    np.testing.assert_allclose(batched, np.unwrap(p, period=4.0), rtol=1e-13)


def test_sort_complex_matches_numpy_and_jax():
    c = np.array([[1 + 2j, 1 - 1j, 0j, -3 + 0j], [2j, 2 - 1j, 1j, 0j]])
    same(fnp.sort_complex(c), np.sort_complex(c))
    for dt in (np.int16, np.int64, np.float32, np.float64, np.bool_):
        a = np.array([3, 1, 2], dt)
        same(fnp.sort_complex(a), np.sort_complex(a))
    x = np.array([0.3, -1.2, 2.5, 0.1])
    g = ft.grad(lambda v: np.sum(np.real(np.sort_complex(v)) * np.arange(4.0)))(x)
    want = jax.grad(lambda v: jnp.sum(jnp.real(jnp.sort_complex(v)) * jnp.arange(4.0)))(x)
    np.testing.assert_allclose(g, want)


def test_real_if_close():
    for a in (
        np.array([1 + 1e-16j, 2.0 + 0j]),
        np.array([1 + 1e-3j]),
        np.array([1 + 1e-8j], np.complex64),
        np.array([1.0, 2.0]),
    ):
        same(fnp.real_if_close(a), np.real_if_close(a))
    same(
        fnp.real_if_close(np.array([1 + 1e-3j]), tol=1e-2),
        np.real_if_close(np.array([1 + 1e-3j]), tol=1e-2),
    )
    batch = np.array([[1 + 0j, 2 + 1e-17j], [3 + 0j, 4 + 0j]])
    same(ft.vmap(np.real_if_close)(batch), batch.real)
    with pytest.raises(BatchedControlFlowError, match="real_if_close"):
        ft.vmap(fnp.real_if_close, split=False)(np.array([[1 + 0j], [1 + 1j]]))
    # split: each row as NumPy returns it, stacked (a real and a complex row: complex)
    rows = np.array([[1 + 0j], [1 + 1j]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PerformanceWarning)
        same(ft.vmap(fnp.real_if_close)(rows), np.stack([np.real_if_close(r) for r in rows]))


def test_isclose_and_allclose_with_infinities_and_nan():
    a = np.array([np.inf, -np.inf, 1.0, np.nan, 2.0])
    b = np.array([np.inf, np.inf, 1.0 + 1e-9, np.nan, 2.1])
    for equal_nan in (False, True):
        same(fnp.isclose(a, b, equal_nan=equal_nan), np.isclose(a, b, equal_nan=equal_nan))
    for x, y in ((a[:1], b[:1]), (a[2:3], b[2:3]), (a[:4], a[:4]), (a[[0, 2]], a[[0, 2]])):
        for equal_nan in (False, True):
            want = bool(np.allclose(x, y, equal_nan=equal_nan))
            same(fnp.allclose(x, y, equal_nan=equal_nan), want)

            # NumPy's allclose of a tracer reads the same bool (the branch taken under grad)
            def f(v, y=y, equal_nan=equal_nan):
                s = np.sum(np.where(np.isfinite(v), v, 0.0))
                return s if np.allclose(v, y, equal_nan=equal_nan) else -s

            want_g = np.where(np.isfinite(x), 1.0 if want else -1.0, 0.0)
            np.testing.assert_array_equal(ft.grad(f)(x), want_g)


# -- array_equal, array_equiv ----------------------------------------------------------------


def test_array_equal_equiv():
    a, b = np.array([1.0, np.nan]), np.array([1.0, np.nan])
    for args in ((a, b), (a, a[:1]), (np.arange(3), np.arange(3.0)), ([1, 2], [1, 3])):
        same(fnp.array_equal(*args), np.array_equal(*args))
    same(fnp.array_equal(a, b, equal_nan=True), np.array_equal(a, b, equal_nan=True))
    for args in (([1, 2], [[1, 2], [1, 2]]), ([1, 2], [1, 2, 3]), ([1, 2], [[1, 2], [1, 3]])):
        same(fnp.array_equiv(*args), np.array_equiv(*args))
    out = ft.vmap(np.array_equal)(
        np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[1.0, 2.0], [3.0, 5.0]])
    )
    same(out, np.array([True, False]))
    # bool() on the result works under grad (no vmap)
    g = ft.grad(lambda v: np.sum(v) if np.array_equal(v, v) else -np.sum(v))(np.ones(2))
    same(g, np.ones(2))


# -- unique and sets --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "ar",
    [
        np.array([[3.0, 1.0, np.nan], [3.0, 2.0, np.nan]]),
        np.array([5, 1, 5, 5, 0], np.int32),
        np.array([True, False, True]),
        np.zeros((0,)),
    ],
)
def test_unique_matches_numpy(ar):
    same(fnp.unique(ar), np.unique(ar))
    same(fnp.unique(ar, True, True, True), np.unique(ar, True, True, True))
    same(fnp.unique(ar, return_inverse=True), np.unique(ar, return_inverse=True))
    if ar.dtype.kind == "f":
        same(
            fnp.unique(ar, equal_nan=False, return_counts=True),
            np.unique(ar, equal_nan=False, return_counts=True),
        )


def test_unique_derivative_and_vmap():
    x = np.array([3.0, 1.0, 3.0, 2.0, 1.0])
    f = lambda v: np.sum(np.unique(v) ** 3)  # noqa: E731
    g = ft.grad(f)(x)
    want = jax.grad(lambda v: jnp.sum(jnp.unique(v, size=3) ** 3))(x)
    np.testing.assert_allclose(g, want)
    batch = np.array([[3.0, 1.0, 3.0], [0.0, 0.0, 7.0]])
    vals, counts = ft.vmap(lambda v: np.unique(v, return_counts=True))(batch)
    same(vals, np.array([[1.0, 3.0], [0.0, 7.0]]))
    same(counts, np.array([[1, 2], [2, 1]]))
    with pytest.raises(BatchedControlFlowError, match="unique"):
        ft.vmap(np.unique, split=False)(np.array([[3.0, 1.0, 3.0], [0.0, 1.0, 7.0]]))
    same(fnp.unique(batch, axis=0), np.unique(batch, axis=0))  # (tests/test_numpy_users_round11.py)


def test_set_functions_match_numpy():
    a = np.array([4.0, 1.0, 2.0, 1.0, np.nan])
    b = np.array([[2.0, 5.0], [4.0, 7.0]])
    for name in ("union1d", "intersect1d", "setdiff1d", "setxor1d"):
        same(getattr(fnp, name)(a, b), getattr(np, name)(a, b))
        same(getattr(fnp, name)(a[:0], b), getattr(np, name)(a[:0], b))
    ia, ib = np.array([5, 1, 3]), np.array([3, 9])
    for name in ("intersect1d", "setdiff1d", "setxor1d"):
        same(
            getattr(fnp, name)(ia, ib, assume_unique=True),
            getattr(np, name)(ia, ib, assume_unique=True),
        )
    same(fnp.union1d([3, 1], [[2, 1]]), np.union1d([3, 1], [[2, 1]]))
    x, y = np.array([1.0, 2.0, 3.0]), np.array([2.0, 5.0])
    g = ft.grad(lambda v: np.sum(np.union1d(v, y) ** 2))(x)
    want = jax.grad(lambda v: jnp.sum(jnp.union1d(v, y, size=4) ** 2))(x)
    np.testing.assert_allclose(g, want)
    with pytest.raises(BatchedControlFlowError, match="intersect1d"):
        ft.vmap(lambda v: np.intersect1d(v, y), split=False)(
            np.array([[1.0, 2.0, 3.0], [2.0, 5.0, 4.0]])
        )


# -- numpy.lib.stride_tricks.sliding_window_view ----------------------------------------


SWV = np.lib.stride_tricks.sliding_window_view


@pytest.mark.parametrize(
    "window, axis", [(3, None), (3, -1), ((2, 2), (0, 1)), ((2, 1), (1, 1)), ((2, 3), None)]
)
def test_sliding_window_view_matches_numpy_and_its_gradient_counts_windows(window, axis):
    # im2col / moving-window code: np.lib.stride_tricks.sliding_window_view(x, k) @ kernel
    x = np.random.default_rng(4).standard_normal((4, 5))
    if axis is None and np.ndim(window) == 0:
        x = x[0]
    want = SWV(x, window, axis=axis)
    J = ft.jacfwd(lambda t: SWV(t, window, axis=axis))(x)  # the Jacobian: a 0/1 gather
    assert J.shape == want.shape + x.shape
    np.testing.assert_array_equal(np.tensordot(J, x, axes=x.ndim), want)
    w = np.random.default_rng(5).standard_normal(want.shape)

    def loss(m, t):
        windows = SWV(t, window, axis=axis) if m is np else jax_swv(t, window, axis)
        return (m.tanh(windows) * w).sum()

    np.testing.assert_allclose(
        ft.grad(lambda t: loss(np, t))(x), jax.jit(jax.grad(lambda t: loss(jnp, t)))(x), rtol=1e-12
    )
    batch = np.stack([x, 2 * x, -x])
    np.testing.assert_array_equal(
        ft.vmap(lambda t: SWV(t, window, axis=axis))(batch),
        np.stack([SWV(t, window, axis=axis) for t in batch]),
    )


def jax_swv(t, window, axis):
    """The same windows in JAX, by explicit index arrays (JAX has no sliding_window_view)."""
    idx = SWV(np.arange(t.size).reshape(t.shape), window, axis=axis)
    return t.ravel()[idx]


def test_sliding_window_view_errors_like_numpy():
    with pytest.raises(ValueError, match="larger than input"):
        ft.grad(lambda t: SWV(t, 4).sum())(np.ones(3))
    with pytest.raises(ValueError, match="window_shape for all dimensions"):
        ft.grad(lambda t: SWV(t, 2).sum())(np.ones((3, 3)))
    # writeable=True reads as NumPy's view does
    np.testing.assert_allclose(
        ft.grad(lambda t: SWV(t, 2, writeable=True).sum())(np.ones(3)), [1, 2, 1]
    )

    def write_windows(t):
        w = SWV(t * 1.0, 2, writeable=True)
        w[0, 1] = 5.0
        return w.sum()

    # since round 12 a write through the windows lands where NumPy's does (NOTE [writes
    # through overlapping views]): element 1, shared by both windows, is the constant 5
    assert write_windows(np.ones(3)) == 12.0
    np.testing.assert_allclose(ft.grad(write_windows)(np.ones(3)), [1.0, 0.0, 1.0])
