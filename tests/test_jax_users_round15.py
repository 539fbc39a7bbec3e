"""Round 15 of JAX users' probes, each against JAX (x64): ``jnp.array``/``asarray``'s
keywords, ..."""

import numpy as np
import pytest
import scipy.linalg

import ftransforms as ft
from tests.tolerances import assert_tree_close, tol

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
jnp = jax.numpy


@pytest.mark.parametrize("ndmin", [0, 1, 3])
def test_array_ndmin_adds_leading_axes_as_jax(ndmin):
    # ndmin was swallowed by **kw: fnp.array(x, ndmin=3) kept x's two dimensions
    x = np.arange(6.0).reshape(2, 3)
    assert_tree_close(ft.numpy.array(x, ndmin=ndmin), jnp.array(x, ndmin=ndmin), **tol(np.float64))
    ours = ft.vmap(lambda r: ft.numpy.array(r, ndmin=ndmin))(x)
    theirs = jax.vmap(lambda r: jnp.array(r, ndmin=ndmin))(x)
    assert ours.shape == theirs.shape
    g = ft.grad(lambda t: (ft.numpy.array([t, 2 * t], ndmin=ndmin) ** 2).sum())(1.5)
    jg = jax.grad(lambda t: (jnp.array([t, 2 * t], ndmin=ndmin) ** 2).sum())(1.5)
    assert_tree_close(g, jg, **tol(np.float64))


def test_array_refuses_unknown_keywords():
    with pytest.raises(TypeError, match="unexpected keyword"):
        ft.numpy.array(np.ones(2), ndim=2)


def test_asarray_copy_keyword_copies():
    # copy=True was swallowed by **kw: the "copy" was the caller's array itself
    x = np.ones(3)
    y = ft.numpy.asarray(x, copy=True)
    assert y is not x and not np.shares_memory(x, y)
    with pytest.raises(TypeError, match="unexpected keyword"):
        ft.numpy.asarray(x, ndmin=2)


_CONTINUOUS_AT_NAN = [
    ("gamma", (2.0,)),
    ("chi2", (3.0, 0.1, 2.0)),
    ("expon", ()),
    ("beta", (2.0, 3.0)),
    ("pareto", (2.0,)),
    ("truncnorm", (-1.0, 2.0)),
    ("uniform", ()),
    ("lognorm", (0.5,)),
]


@pytest.mark.parametrize(("name", "params"), _CONTINUOUS_AT_NAN)
def test_continuous_stats_are_nan_at_nan_as_scipy(name, params):
    # a NaN x was taken for "outside the support": pdf 0, cdf 0, sf 1 instead of NaN
    # (SciPy's NaN; JAX's own gamma.pdf/truncnorm.cdf disagree with SciPy there)
    import scipy.stats

    xs = np.array([np.nan, 0.5, 2.0])
    for method in ["pdf", "logpdf", "cdf", "logcdf", "sf", "logsf"]:
        ours = getattr(getattr(ft.scipy.stats, name), method)(xs, *params)
        expect = getattr(getattr(scipy.stats, name), method)(xs, *params)
        assert np.isnan(ours[0]) and np.isnan(expect[0]), method
        assert_tree_close(ours[1:], expect[1:], **tol(np.float64))


@pytest.mark.parametrize(
    ("name", "params"), [("poisson", (2.0,)), ("binom", (5, 0.3)), ("nbinom", (3, 0.4))]
)
def test_discrete_stats_are_nan_at_nan_as_scipy(name, params):
    import scipy.stats

    ks = np.array([np.nan, 1.0, 3.0])
    for method in ["pmf", "logpmf", "cdf", "sf"]:
        ours = getattr(getattr(ft.scipy.stats, name), method)(ks, *params)
        expect = getattr(getattr(scipy.stats, name), method)(ks, *params)
        assert np.isnan(ours[0]) and np.isnan(expect[0]), method
        assert_tree_close(ours[1:], expect[1:], **tol(np.float64))


@pytest.mark.parametrize("side", ["right", "left"])
def test_polar_takes_jax_method_keywords(side):
    # jax.scipy.linalg.polar's keyword-only method/eps/max_iterations raised TypeError
    a = np.array([[2.0, 1.0, 0.0], [0.5, -3.0, 1.0], [0.0, 1.0, 4.0]])
    ours = ft.scipy.linalg.polar(a, side, method="svd")
    assert_tree_close(ours, jax.scipy.linalg.polar(a, side, method="svd"), **tol(np.float64))
    u, p = ft.scipy.linalg.polar(a, side, method="qdwh", eps=1e-12, max_iterations=10)
    assert_tree_close(u, ours[0], **tol(np.float64))
    with pytest.raises(ValueError, match="method"):
        ft.scipy.linalg.polar(a, method="newton")


@pytest.mark.parametrize("mode", ["full", "economic", "r"])
def test_scipy_qr_with_column_pivoting_matches_jax(mode):
    # qr(a, pivoting=True) raised UnsupportedOperationError; JAX returns (..., P) as SciPy
    a = np.array([[1.0, 3.0, -2.0], [0.5, 4.0, 1.0], [2.0, -1.0, 0.0], [1.0, 0.0, 5.0]])
    ours = ft.scipy.linalg.qr(a, mode=mode, pivoting=True)
    theirs = jax.scipy.linalg.qr(a, mode=mode, pivoting=True)
    assert len(ours) == len(theirs) and ours[-1].dtype == theirs[-1].dtype
    assert_tree_close(tuple(ours), tuple(theirs), **tol(np.float64))


def test_scipy_qr_pivoting_under_grad_and_vmap_matches_jax():
    a = np.array([[1.0, 3.0, -2.0], [0.5, 4.0, 1.0], [2.0, -1.0, 0.0], [1.0, 0.0, 5.0]])

    def f(qr, m):
        q, r, _ = qr(m, mode="economic", pivoting=True)
        return (r[0, :] ** 2).sum() + q[1, 1]

    g = ft.grad(lambda m: f(ft.scipy.linalg.qr, m))(a)
    assert_tree_close(g, jax.grad(lambda m: f(jax.scipy.linalg.qr, m))(a), **tol(np.float64))
    batch = np.stack([a, a[:, ::-1]])  # the rows pivot differently
    ours = ft.vmap(lambda m: ft.scipy.linalg.qr(m, mode="economic", pivoting=True))(batch)
    for i, m in enumerate(batch):  # SciPy row by row
        expect = scipy.linalg.qr(m, mode="economic", pivoting=True)
        assert_tree_close(tuple(o[i] for o in ours), expect, **tol(np.float64))


@pytest.mark.parametrize("full_matrices", [True, False])
def test_lax_linalg_qr_with_pivoting_over_batch_axes_matches_jax(full_matrices):
    a = np.array([[1.0, 3.0, -2.0], [0.5, 4.0, 1.0], [2.0, -1.0, 0.0], [1.0, 0.0, 5.0]])
    batch = np.stack([a, a[:, ::-1]])
    ours = ft.lax.linalg.qr(batch, pivoting=True, full_matrices=full_matrices)
    theirs = jax.lax.linalg.qr(batch, pivoting=True, full_matrices=full_matrices)
    assert ours[2].dtype == theirs[2].dtype
    assert_tree_close(tuple(ours), tuple(theirs), **tol(np.float64))


def test_dynamic_slice_allow_negative_indices_false_clamps_traced_starts_as_jax():
    # JAX's keyword-only allow_negative_indices raised TypeError; False: no wrap-around
    x = np.arange(10.0)
    starts = np.array([-3, 9, 4])
    ours = ft.vmap(lambda i: ft.lax.dynamic_slice(x, (i,), (2,), allow_negative_indices=False))(
        starts
    )
    theirs = jax.vmap(lambda i: jax.lax.dynamic_slice(x, (i,), (2,), allow_negative_indices=False))(
        starts
    )
    assert_tree_close(ours, theirs, **tol(np.float64))
    upd = ft.vmap(
        lambda i: ft.lax.dynamic_update_slice_in_dim(
            x, np.ones(2), i, 0, allow_negative_indices=False
        )
    )(starts)
    jupd = jax.vmap(
        lambda i: jax.lax.dynamic_update_slice_in_dim(
            x, np.ones(2), i, 0, allow_negative_indices=False
        )
    )(starts)
    assert_tree_close(upd, jupd, **tol(np.float64))
    with pytest.raises(ValueError, match="allow_negative_indices=False"):
        ft.lax.dynamic_index_in_dim(x, -3, allow_negative_indices=False)


def _padded(values, size, fill):
    """JAX's fixed-size set result from NumPy's: the first ``size``, padded with ``fill``."""
    values = np.asarray(values)[:size]
    return np.concatenate([values, np.full(size - len(values), fill, values.dtype)])


def test_unique_family_takes_jax_size_and_fill_value():
    # jnp.unique_*(x, size=, fill_value=) raised TypeError (only fnp.unique had them)
    x = np.array([3, 1, 3, 2, 1, 7])
    r = ft.numpy.unique_all(x, size=6, fill_value=-1)
    e = np.unique_all(x)
    np.testing.assert_array_equal(r.values, _padded(e.values, 6, -1))
    np.testing.assert_array_equal(r.counts, _padded(e.counts, 6, 0))  # JAX pads counts with 0
    np.testing.assert_array_equal(r.inverse_indices, e.inverse_indices)
    np.testing.assert_array_equal(ft.numpy.unique_values(x, size=2), [1, 2])
    np.testing.assert_array_equal(ft.numpy.unique_counts(x, size=2).counts, [2, 1])
    np.testing.assert_array_equal(ft.numpy.unique_inverse(x, size=2).values, [1, 2])
    batch = np.array([[1, 1, 2], [3, 3, 3]])
    ours = ft.vmap(lambda r: ft.numpy.unique_values(r, size=3, fill_value=0))(batch)
    theirs = jax.vmap(lambda r: jnp.unique_values(r, size=3, fill_value=0))(batch)
    assert_tree_close(ours, theirs, **tol(np.float64))


@pytest.mark.parametrize(("size", "fill"), [(6, None), (2, None), (4, -1)])
def test_intersect1d_setxor1d_take_jax_size_and_fill_value(size, fill):
    # size=/fill_value= raised TypeError; JAX pads values with the smallest one (or the
    # fill_value) and intersect1d's indices with the arrays' lengths
    a, b = np.array([3, 1, 3, 2, 7]), np.array([2, 5, 1])
    xor, both = np.setxor1d(a, b), np.intersect1d(a, b, return_indices=True)
    ours = ft.numpy.setxor1d(a, b, size=size, fill_value=fill)
    np.testing.assert_array_equal(ours, _padded(xor, size, xor[0] if fill is None else fill))
    ours = ft.numpy.intersect1d(a, b, return_indices=True, size=size, fill_value=fill)
    pad = both[0][0] if fill is None else fill
    expect = (_padded(both[0], size, pad), _padded(both[1], size, 5), _padded(both[2], size, 3))
    assert_tree_close(tuple(ours), expect, **tol(np.float64))
    if size == 4:  # JAX itself, once
        theirs = jnp.intersect1d(a, b, return_indices=True, size=size, fill_value=fill)
        assert_tree_close(tuple(ours), tuple(theirs), **tol(np.float64))


def test_eigvalsh_symmetrize_input_matches_jax():
    # jnp.linalg.eigvalsh(a, symmetrize_input=True) raised TypeError (eigh had it)
    a = np.array([[2.0, 1.5, 0.0], [0.5, 3.0, 1.0], [0.0, -1.0, 1.0]])
    ours = ft.numpy.linalg.eigvalsh(a, symmetrize_input=True)
    assert_tree_close(ours, jnp.linalg.eigvalsh(a, symmetrize_input=True), **tol(np.float64))
    g = ft.grad(lambda m: ft.numpy.linalg.eigvalsh(m, symmetrize_input=True)[-1])(a)
    jg = jax.grad(lambda m: jnp.linalg.eigvalsh(m, symmetrize_input=True)[-1])(a)
    assert_tree_close(g, jg, **tol(np.float64))
