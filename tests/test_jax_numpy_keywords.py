"""jax.numpy's own keywords and methods on ftransforms.numpy (code ported from JAX, and
NumPy's ufunc methods under ``import ftransforms.numpy as np``), against JAX itself."""

from __future__ import annotations

import numpy as np
import pytest

import ftransforms as ft
import ftransforms.numpy as fnp
from tests.jaxpr_evaluator import on_jax

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

X = np.array([3.0, -1.0, 2.0, 5.0, 2.0])
M = np.arange(12.0).reshape(3, 4)
IDX = np.array([0, 9, -1, -5, -6])


def assert_same(ours, theirs):
    o_leaves, t_leaves = ft.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(theirs)
    assert len(o_leaves) == len(t_leaves)
    for o, t in zip(o_leaves, t_leaves):
        t = np.asarray(t)
        assert np.shape(o) == t.shape and np.asarray(o).dtype == t.dtype
        np.testing.assert_allclose(o, t, rtol=1e-14, equal_nan=True)


def arr(m, v):
    """The array whose ``.at`` is used: ``fnp.at(v)`` here, a jax array there."""
    return fnp.at(v) if m is fnp else jnp.asarray(v).at


AT_CASES = {
    "get_fill": lambda m: arr(m, X)[IDX].get(mode="fill", fill_value=-1.0),
    "get_fill_default_nan": lambda m: arr(m, X)[IDX].get(mode="fill"),
    "get_fill_int_default": lambda m: arr(m, X.astype(np.int32))[np.array([0, 9])].get(mode="fill"),
    "get_clip": lambda m: arr(m, X)[IDX].get(mode="clip"),
    "get_no_negative_wrap": lambda m: arr(m, X)[IDX].get(
        mode="fill", wrap_negative_indices=False, fill_value=0.0
    ),
    "set_drop": lambda m: arr(m, X)[np.array([0, 9])].set(7.0, mode="drop"),
    "set_no_negative_wrap": lambda m: arr(m, X)[np.array([1, -1])].set(
        9.0, wrap_negative_indices=False
    ),
    "get_no_negative_wrap_default": lambda m: arr(m, X)[np.array([1, -1])].get(
        wrap_negative_indices=False
    ),
    "add_drop_repeated": lambda m: arr(m, X)[np.array([0, 9, 9, 0])].add(7.0, mode="drop"),
    "set_clip": lambda m: arr(m, X)[np.array([0, 9])].set(7.0, mode="clip"),
    "scalar_index_drop": lambda m: arr(m, X)[7].set(7.0, mode="drop"),
    "matrix_rows_and_slice": lambda m: arr(m, M)[np.array([0, 5]), 1:3].get(
        mode="fill", fill_value=0.0
    ),
    "matrix_two_arrays": lambda m: arr(m, M)[np.array([0, 5]), np.array([1, -9])].set(
        100.0, mode="drop"
    ),
    "max_drop": lambda m: arr(m, M)[:, np.array([0, 5])].max(100.0, mode="drop"),
    "ellipsis_and_newaxis": lambda m: arr(m, M)[None, 2, np.array([3, 4])].get(
        mode="fill", fill_value=1.5
    ),
    "apply": lambda m: arr(m, X)[np.array([1, 3])].apply(m.exp),
    "take_fill": lambda m: m.take(X, IDX, mode="fill", fill_value=-9.0),
    "take_fill_axis": lambda m: m.take(M, np.array([0, 7]), axis=1, mode="fill"),
    "take_along_axis_fill": lambda m: m.take_along_axis(
        M, np.array([[0, 9], [1, -1], [4, 2]]), axis=1, mode="fill", fill_value=0.0
    ),
    "ufunc_reduce": lambda m: m.add.reduce(M, axis=1),
    "ufunc_accumulate": lambda m: m.maximum.accumulate(X),
    "ufunc_outer": lambda m: m.subtract.outer(X, X[:3]),
    "ufunc_at_not_inplace": lambda m: m.add.at(X.copy(), np.array([0, 0, 2]), 1.0, inplace=False),
}


@pytest.mark.parametrize("name", sorted(AT_CASES))
def test_equal_to_jax(name):
    # JAX's own run for scatter_apply: the tests' jaxpr evaluator reads it as a plain scatter
    want = AT_CASES[name](jnp) if name == "apply" else on_jax(lambda: AT_CASES[name](jnp))
    assert_same(AT_CASES[name](fnp), want)


def test_modes_under_grad_vmap_and_jit():
    def f(m):
        def loss(v):
            read = arr(m, v)[IDX].get(mode="fill", fill_value=0.0) * m.arange(5.0)
            return read.sum() + arr(m, v)[np.array([1, 9])].set(v[0] * 3, mode="drop").sum()

        return loss

    np.testing.assert_allclose(ft.grad(f(fnp))(X), on_jax(jax.grad(f(jnp)), X), rtol=1e-14)
    rows = np.stack([X, 2 * X])
    at_rows = np.array([1, 7])

    def g(m):
        return lambda r, i: (
            r.at[i].add(1.0, mode="drop"),
            r.at[i].get(mode="fill", fill_value=0.0),
        )

    want = on_jax(jax.vmap(g(jnp)), rows, at_rows)
    assert_same(ft.vmap(g(fnp))(rows, at_rows), want)
    jg = ft.jit(ft.vmap(g(fnp)))
    jg(rows, at_rows[::-1].copy())
    assert_same(jg(rows, at_rows), want)


def test_ufunc_methods_on_traced_arrays_and_their_errors():
    def f(v):
        return (
            fnp.maximum.accumulate(v).sum() + fnp.add.reduce(v**2) + fnp.multiply.outer(v, v).sum()
        )

    def f_jax(v):
        return jax.lax.cummax(v).sum() + jnp.add.reduce(v**2) + jnp.multiply.outer(v, v).sum()

    np.testing.assert_allclose(ft.grad(f)(X), on_jax(jax.grad(f_jax), X), rtol=1e-14)

    def fill(v):  # NumPy's in-place add.at on a buffer made inside the function
        buf = fnp.zeros(3)
        fnp.add.at(buf, np.array([0, 0, 2]), v[:3])
        return buf

    rows = np.stack([X, 2 * X])
    np.testing.assert_allclose(ft.vmap(fill)(rows), np.stack([fill(r) for r in rows]))
    assert fnp.add.nin == 2 and fnp.add.identity == 0
    with pytest.raises(AttributeError, match="no attribute 'bogus'"):
        fnp.add.bogus  # noqa: B018
    with pytest.raises(IndexError):
        fnp.at(X)[9].get()  # NumPy's rule without a mode
    with pytest.raises(ValueError, match="mode must be one of"):
        fnp.at(X)[0].set(1.0, mode="bogus")
    with pytest.raises(TypeError, match="unexpected keyword"):
        fnp.at(X)[0].set(1.0, bogus=True)


# -- jax.numpy's other keywords -----------------------------------------------------------

KEYWORD_CASES = {
    "argsort_descending": lambda m: m.argsort(X, descending=True),
    "argsort_descending_2d": lambda m: m.argsort(
        np.array([[3, 1, 1], [0, 2, 2]]), axis=0, descending=True
    ),
    "sort_descending": lambda m: m.sort(X, descending=True),
    "repeat_padded": lambda m: m.repeat(X[:4], np.array([1, 0, 2, 1]), total_repeat_length=6),
    "repeat_cut": lambda m: m.repeat(X[:4], np.array([1, 0, 2, 1]), total_repeat_length=2),
    "repeat_scalar_count": lambda m: m.repeat(X[:4], 2, total_repeat_length=5),
    "repeat_axis": lambda m: m.repeat(M, np.array([2, 1, 0]), axis=0, total_repeat_length=4),
    "bincount_length": lambda m: m.bincount(np.array([0, 1, 1, 7]), length=5),
    "bincount_length_weights": lambda m: m.bincount(
        np.array([0, 1, 1]), weights=np.array([0.5, 1.0, 2.0]), length=4
    ),
    "fill_diagonal_copy": lambda m: m.fill_diagonal(np.zeros((3, 3)), 1.0, inplace=False),
    "put_copy": lambda m: m.put(np.zeros(4), np.array([1, 3]), np.array([5.0, 6.0]), inplace=False),
    "place_copy": lambda m: m.place(
        np.zeros(4), np.array([1, 0, 1, 0], bool), np.array([7.0]), inplace=False
    ),
    "dot_precision": lambda m: m.dot(M, X[:4], precision="highest"),
    "matmul_preferred": lambda m: m.matmul(M, M.T, preferred_element_type=np.float32),
    "einsum_preferred": lambda m: m.einsum(
        "ij,j->i", M, X[:4], precision=None, preferred_element_type=np.float32
    ),
    "tensordot_precision": lambda m: m.tensordot(M, M, axes=([0], [0]), precision=None),
    "convolve_precision": lambda m: m.convolve(X, X[:2], precision=None),
    "eigh_symmetrized": lambda m: m.linalg.eigh(M[:3, :3] + np.eye(3), symmetrize_input=True)[0],
    "delete_unique": lambda m: m.delete(X, np.array([1]), assume_unique_indices=True),
}


@pytest.mark.parametrize("name", sorted(KEYWORD_CASES))
def test_keywords_equal_to_jax(name):
    assert_same(KEYWORD_CASES[name](fnp), on_jax(lambda: KEYWORD_CASES[name](jnp)))


def test_fixed_lengths_batch_whole_and_differentiate():
    counts = np.array([[1, 2, 1], [0, 3, 1]])
    rows = np.stack([X[:3], X[1:4]])

    def f(m):
        return lambda r, c: (m.repeat(r, c, total_repeat_length=4), m.bincount(c, length=4))

    assert_same(ft.vmap(f(fnp))(rows, counts), on_jax(jax.vmap(f(jnp)), rows, counts))
    g = ft.grad(lambda r: fnp.repeat(r, np.array([1, 2, 0]), total_repeat_length=4).sum())(X[:3])
    np.testing.assert_array_equal(g, [1.0, 2.0, 1.0])  # the last element pads the end
    w = ft.grad(lambda w: (fnp.bincount(np.array([0, 1, 5]), weights=w, length=2) ** 2).sum())
    np.testing.assert_array_equal(w(np.ones(3)), [2.0, 2.0, 0.0])  # index 5 is dropped


def test_searchsorted_and_digitize_accept_jax_methods():
    a = np.sort(X)
    np.testing.assert_array_equal(
        fnp.searchsorted(a, np.array([0.0, 2.5]), method="compare_all"),
        np.searchsorted(a, np.array([0.0, 2.5])),
    )
    bins = np.array([0.0, 2.0, 4.0])
    np.testing.assert_array_equal(fnp.digitize(X, bins, method="scan"), np.digitize(X, bins))
    with pytest.raises(ValueError, match="method must be one of"):
        fnp.searchsorted(a, 1.0, method="bogus")


@pytest.mark.parametrize(
    ("mode", "kw"),
    [
        ("linear_ramp", {}),
        ("linear_ramp", {"end_values": (-4, 10)}),
        ("mean", {}),
        ("mean", {"stat_length": (1, 3)}),
        ("median", {"stat_length": 2}),
        ("maximum", {}),
        ("minimum", {"stat_length": 1}),
    ],
)
def test_numpy_pad_modes_values_and_derivatives(mode, kw):
    rng = np.random.default_rng(3)
    for x in (np.array([-5, 2, -7, 3]), rng.integers(-9, 9, size=(3, 4)), rng.normal(size=(3, 4))):
        want = np.pad(x, ((1, 2), (2, 0)) if x.ndim == 2 else (3, 2), mode=mode, **kw)
        got = fnp.pad(x, ((1, 2), (2, 0)) if x.ndim == 2 else (3, 2), mode=mode, **kw)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-14)
    v = rng.normal(size=5)

    def f(v):
        return (np.pad(v, (2, 3), mode=mode, **kw) * np.arange(10.0)).sum()

    h = 1e-6
    fd = [(f(v + h * e) - f(v - h * e)) / (2 * h) for e in np.eye(5)]
    np.testing.assert_allclose(ft.grad(f)(v), fd, atol=1e-6)
    rows = np.stack([v, -v])
    np.testing.assert_allclose(
        ft.vmap(lambda r: np.pad(r, (2, 3), mode=mode, **kw))(rows),
        np.stack([np.pad(r, (2, 3), mode=mode, **kw) for r in rows]),
    )


def test_linspace_retstep_and_axis_as_numpy():
    for args, kw in (
        ((0.0, 1.0, 5), {"retstep": True}),
        ((0.0, 1.0, 4), {"endpoint": False, "retstep": True}),
        ((np.zeros(2), np.ones(2), 3), {"axis": 1}),
    ):
        want, got = np.linspace(*args, **kw), fnp.linspace(*args, **kw)
        assert_same(got, want)
    # the step of traced end points is differentiable: (t - 0) / 2
    assert ft.grad(lambda t: fnp.linspace(0.0, t, 3, retstep=True)[1])(2.0) == 0.5
    assert ft.grad(lambda t: np.linspace(0.0, t, 3, retstep=True)[1])(2.0) == 0.5
    values, steps = ft.vmap(lambda t: fnp.linspace(0.0, t, 3, retstep=True))(np.array([1.0, 2.0]))
    np.testing.assert_allclose(steps, [0.5, 1.0])
    np.testing.assert_allclose(values, [[0.0, 0.5, 1.0], [0.0, 1.0, 2.0]])
