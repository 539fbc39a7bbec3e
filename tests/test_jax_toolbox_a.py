"""JAX's transform toolbox, part a (issue 24): ravel_pytree, eval_shape, linear_transpose,
custom_vmap, associative_scan, map; each against JAX (x64) under vmap, grad and jit, and
on the strict CuPy stand-in.  Callbacks and the SciPy fixes are in
``tests/test_jax_toolbox_a_callbacks.py``."""

from __future__ import annotations

import jax
import jax.flatten_util
import jax.numpy as jnp
import numpy as np
import pytest

import ftransforms as ft
import ftransforms.numpy as fnp
from ftransforms.errors import (
    LinearityError,
    OutDimsError,
    TangentMismatchError,
    TracerConversionError,
)
from ftransforms.pytree import ravel_pytree, tree_leaves
from ftransforms.strict_backend import StrictArray, asarray, to_numpy

rng = np.random.default_rng(24)


def close(a, b, tol=1e-10):
    for x, y in zip(tree_leaves(a), jax.tree_util.tree_leaves(b), strict=True):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=tol, atol=tol)


# -- ravel_pytree ------------------------------------------------------------------------


TREES = [
    {"w": rng.normal(size=(2, 3)), "b": rng.normal(size=3)},
    [np.arange(3, dtype=np.int32), np.ones(2, np.float32)],
    (1.0, np.arange(3, dtype=np.float32)),
    (np.float32(2.0), np.arange(4, dtype=np.int32).reshape(2, 2)),
    [np.arange(3, dtype=np.int32), np.ones(2, np.bool_)],
    (rng.normal(size=2) + 1j, rng.normal(size=3)),
    {"a": (), "b": None, "c": np.zeros((0, 2))},
]


@pytest.mark.parametrize("k", range(len(TREES)))
def test_ravel_pytree_matches_jax(k):
    tree = TREES[k]
    flat, unravel = ravel_pytree(tree)
    jflat, junravel = jax.flatten_util.ravel_pytree(tree)
    assert flat.dtype == jflat.dtype and flat.shape == jflat.shape
    np.testing.assert_array_equal(flat, np.asarray(jflat))
    back, jback = unravel(flat), junravel(jflat)
    for a, b in zip(tree_leaves(back), jax.tree_util.tree_leaves(jback), strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, np.asarray(b))


def test_ravel_pytree_empty_and_checks():
    flat, unravel = ravel_pytree({})
    assert flat.shape == (0,) and unravel(flat) == {}
    flat, unravel = ravel_pytree([np.ones(2, np.float32), np.zeros(3, np.int32)])
    with pytest.raises(ValueError, match=r"expected a 1-d array of shape \(5,\)"):
        unravel(flat[:3])
    # leaves of several dtypes: the dtype is checked (one dtype: any is kept, as JAX's)
    with pytest.raises(TypeError, match="dtype float64, but expected dtype float32"):
        unravel(flat.astype(np.float64))


def test_ravel_pytree_under_transforms():
    params = {"w": rng.normal(size=(3, 2)), "b": rng.normal(size=2)}
    x = rng.normal(size=(5, 3))
    flat, unravel = ravel_pytree(params)
    jflat, junravel = jax.flatten_util.ravel_pytree(params)

    def loss(flat, x, unravel, np_):
        p = unravel(flat)
        return np_.sum(np_.tanh(x @ p["w"] + p["b"]) ** 2)

    close(ft.grad(loss)(flat, x, unravel, np), jax.grad(loss)(jflat, x, junravel, jnp))
    flats = rng.normal(size=(4, flat.size))
    close(
        ft.vmap(lambda f: unravel(f)["w"])(flats),
        jax.vmap(lambda f: junravel(f)["w"])(flats),
    )
    close(ft.jit(lambda f: unravel(f)["b"] * 2)(flats[0]), junravel(flats[0])["b"] * 2)
    # ravel inside a transform: the gradient of the flat vector's norm w.r.t. the tree
    g = ft.grad(lambda p: (ravel_pytree(p)[0] ** 2).sum())(params)
    jg = jax.grad(lambda p: (jax.flatten_util.ravel_pytree(p)[0] ** 2).sum())(params)
    close(g, jg)
    g = ft.vmap(lambda w: ravel_pytree({"w": w, "b": 2.0})[0])(rng.normal(size=(3, 2)))
    assert g.shape == (3, 3) and np.all(g[:, 0] == 2.0)


def test_ravel_pytree_strict_backend():
    tree = {"w": asarray(rng.normal(size=(2, 2))), "b": asarray(np.ones(3))}
    flat, unravel = ravel_pytree(tree)
    assert type(flat) is StrictArray
    want, _ = ravel_pytree({k: to_numpy(v) for k, v in tree.items()})
    np.testing.assert_array_equal(flat.get(), want)
    back = unravel(flat)
    assert type(back["w"]) is StrictArray
    np.testing.assert_array_equal(back["w"].get(), tree["w"].get())
    g = ft.grad(lambda f: (unravel(f)["w"] ** 2).sum())(flat)
    assert type(g) is StrictArray
    np.testing.assert_allclose(g.get()[3:], 2 * tree["w"].get().ravel())
    # traced device leaves next to Python numbers and untraced device arrays
    g = ft.grad(lambda w: (ravel_pytree({"w": w, "b": (1.0, tree["b"])})[0] ** 2).sum())(tree["w"])
    assert type(g) is StrictArray
    np.testing.assert_allclose(g.get(), 2 * tree["w"].get())


# -- eval_shape --------------------------------------------------------------------------


def mlp(params, x, np_):
    h = np_.tanh(x @ params["w1"] + params["b1"])
    return np_.sum(np_.log1p(np_.exp(h @ params["w2"])), axis=-1)


PARAMS = {
    "w1": rng.normal(size=(3, 4)),
    "b1": rng.normal(size=4),
    "w2": rng.normal(size=(4, 2)),
}


def _same_structs(ours, theirs):
    a, b = tree_leaves(ours), jax.tree_util.tree_leaves(theirs)
    assert len(a) == len(b)
    for s, t in zip(a, b):
        assert isinstance(s, ft.ShapeDtypeStruct)
        assert s.shape == t.shape and s.dtype == t.dtype, (s, t)


@pytest.mark.parametrize(
    "make",
    [
        lambda np_, api: lambda p, x: mlp(p, x, np_),
        lambda np_, api: api.grad(lambda p, x: mlp(p, x, np_).sum()),
        lambda np_, api: api.vmap(lambda p, x: mlp(p, x, np_), in_axes=(None, 0)),
        lambda np_, api: api.jacrev(lambda p, x: mlp(p, x, np_), argnums=1),
        lambda np_, api: api.jit(api.vmap(api.grad(lambda p, x: mlp(p, x, np_)), (None, 0))),
        lambda np_, api: lambda p, x: (np_.linalg.inv(x.T @ x + np_.eye(3)), x > 0),
        lambda np_, api: lambda p, x: (x.astype(np_.float32) * 2, np_.argsort(x, axis=0)),
    ],
    ids=["mlp", "grad", "vmap", "jacrev", "jit_vmap_grad", "inv", "casts"],
)
def test_eval_shape_matches_jax(make):
    x = np.zeros((5, 3))
    ours = ft.eval_shape(make(np, ft), PARAMS, x)
    theirs = jax.eval_shape(make(jnp, jax), PARAMS, x)
    _same_structs(ours, theirs)


def test_eval_shape_takes_structs_and_never_reads_data():
    big = ft.ShapeDtypeStruct((20_000, 20_000), np.float32)  # 1.6 GB if it were real
    out = ft.eval_shape(lambda a: (np.exp(a) * 2.0 + 1).sum(0), big)
    assert out == ft.ShapeDtypeStruct((20_000,), np.float32)
    # strict CuPy stand-in arguments: shapes only, no conversion, no device call
    s = ft.eval_shape(lambda a, b: a @ b, asarray(np.ones((4, 3))), asarray(np.ones((3, 2))))
    assert s == ft.ShapeDtypeStruct((4, 2), np.float64)
    # matmul by its shape rule (no 20000^3 product), inv on an identity stand-in
    mm = ft.eval_shape(lambda a: np.tanh(a @ a.T), big)
    assert mm == ft.ShapeDtypeStruct((20_000, 20_000), np.float32)
    for sa, sb in [((5,), (5,)), ((3, 5), (5,)), ((5,), (5, 4)), ((2, 1, 3, 5), (7, 5, 4))]:
        a, b = np.ones(sa, np.float32), np.ones(sb, np.int32)
        s = ft.eval_shape(np.matmul, a, b)
        assert (s.shape, s.dtype) == ((a @ b).shape, (a @ b).dtype)
    with pytest.raises(ValueError, match="mismatch in its core dimension"):
        ft.eval_shape(np.matmul, np.ones((2, 3)), np.ones((4, 2)))
    # reductions, cumulative sums, reshapes by their shape rules: O(1) on 4e8 elements
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    for f in [
        lambda a: (a.sum(0), a.max(1, keepdims=True), a.argmax(0), np.any(a > 0, 0)),
        lambda a: (np.cumsum(a, 0), a.astype(np.int32).cumsum(), a.mean((0, 1))),
        lambda a: (a.reshape(-1), a.T.reshape(2, -1, 2), np.prod(a.astype(np.int8), 0)),
    ]:
        for s, r in zip(ft.eval_shape(f, x), f(x), strict=True):
            assert (s.shape, s.dtype) == (np.shape(r), np.asarray(r).dtype)
        for s, r in zip(ft.eval_shape(f, big), jax.eval_shape(f, big), strict=True):
            assert s.shape == r.shape
    inv = ft.eval_shape(np.linalg.inv, ft.ShapeDtypeStruct((4, 300, 300), np.float64))
    assert inv == ft.ShapeDtypeStruct((4, 300, 300), np.float64)

    # cond/switch on an abstract predicate: every branch, checked, as JAX traces them
    def branchy(api, np_):
        lax = api if api is ft else jax.lax
        return lambda x: lax.cond(x.sum() > 0, lambda v: np_.sin(v) * 2, lambda v: -v, x)

    _same_structs(
        ft.eval_shape(ft.grad(lambda x: branchy(ft, np)(x).sum()), np.ones((2, 3))),
        jax.eval_shape(jax.grad(lambda x: branchy(jax, jnp)(x).sum()), np.ones((2, 3))),
    )

    def newton(api, np_):
        lax = api if api is ft else jax.lax
        return lambda a: lax.while_loop(
            lambda x: np_.abs(x * x - a).max() > 1e-9, lambda x: 0.5 * (x + a / x), a
        )

    _same_structs(
        ft.eval_shape(newton(ft, np), ft.ShapeDtypeStruct((4,), np.float32)),
        jax.eval_shape(newton(jax, jnp), jax.ShapeDtypeStruct((4,), np.float32)),
    )
    with pytest.raises(ft.errors.BranchOutputError):
        ft.eval_shape(lambda x: ft.cond(x.sum() > 0, lambda v: v, lambda v: v[:2], x), x)
    with pytest.raises(TracerConversionError, match="eval_shape"):
        ft.eval_shape(lambda a: a if a.sum() > 0 else -a, np.ones(3))
    assert repr(ft.ShapeDtypeStruct((2,), np.float32)) == repr(
        jax.ShapeDtypeStruct((2,), jnp.float32)
    )


# -- linear_transpose --------------------------------------------------------------------


A = rng.normal(size=(4, 3))


def linear_fns(np_):
    return {
        "matvec": (lambda x: A @ x, (np.zeros(3),)),
        "two_inputs": (lambda x, y: (2.0 * x, y.sum() - x[0]), (np.zeros(3), np.zeros((2, 2)))),
        "indexing": (lambda x: np_.concatenate([x[::2], -x[1:], x.reshape(-1)]), (np.zeros(4),)),
        "cumsum_transpose": (lambda x: np_.cumsum(x.T, axis=0) / 3.0, (np.zeros((2, 3)),)),
        "einsum": (lambda x: np_.einsum("ij,jk->ik", A, x), (np.zeros((3, 2)),)),
        "affine": (lambda x: x * 3.0 + 1.0, (np.zeros(2),)),
        "where": (lambda x: np_.where(np_.arange(3) > 0, x, 0.0 * x), (np.zeros(3),)),
        "solve_pad_roll": (
            lambda x: np_.roll(np_.pad(np_.linalg.solve(A[:3] + 3 * np_.eye(3), x), 1), 1),
            (np.zeros(3),),
        ),
        "convolve_kron_mean": (
            lambda x: (np_.convolve(x, A[0]), np_.kron(x, A[1]), x.mean(), np_.diff(x)),
            (np.zeros(4),),
        ),
    }


@pytest.mark.parametrize("name", list(linear_fns(np)))
def test_linear_transpose_matches_jax(name):
    f, primals = linear_fns(np)[name]
    jf, _ = linear_fns(jnp)[name]
    out = jax.eval_shape(jf, *primals)
    ct = jax.tree_util.tree_map(lambda s: rng.normal(size=s.shape), out)
    ours = ft.linear_transpose(f, *primals)(ct)
    theirs = jax.linear_transpose(jf, *primals)(ct)
    close(ours, theirs)


def test_linear_transpose_composes():
    ft_t = ft.linear_transpose(lambda x: A @ x, np.zeros(3))
    jt = jax.linear_transpose(lambda x: A @ x, np.zeros(3))
    cts = rng.normal(size=(5, 4))
    close(ft.vmap(lambda c: ft_t(c)[0])(cts), jax.vmap(lambda c: jt(c)[0])(cts))
    close(ft.jit(lambda c: ft_t(c)[0])(cts[0]), jt(cts[0])[0])
    # grad through the transpose (w.r.t. the cotangent): A A^T c
    g = ft.grad(lambda c: (ft_t(c)[0] ** 2).sum())(cts[0])
    close(g, jax.grad(lambda c: (jt(c)[0] ** 2).sum())(cts[0]))
    # the strict stand-in: primals on the device give device cotangents
    st = ft.linear_transpose(lambda x: x[::-1] * 2.0, asarray(np.zeros(3)))
    (r,) = st(asarray(np.arange(3.0)))
    assert type(r) is StrictArray and r.get().tolist() == [4.0, 2.0, 0.0]
    # ShapeDtypeStruct primals, as JAX accepts
    (r,) = ft.linear_transpose(lambda x: x.sum(), ft.ShapeDtypeStruct((3,), np.float64))(2.0)
    assert r.tolist() == [2.0, 2.0, 2.0]


@pytest.mark.parametrize(
    "f",
    [np.sin, lambda x: x * x, lambda x: x @ x, lambda x: 1.0 / x, lambda x: np.abs(x)],
    ids=["sin", "square", "xx", "reciprocal", "abs"],
)
def test_linear_transpose_rejects_nonlinear(f):
    with pytest.raises(LinearityError, match=r"^linear_transpose\(.*\): .* is not linear"):
        ft.linear_transpose(f, np.zeros(3))
    assert ft.linear_transpose(lambda x: 2 * x, np.zeros(1))(np.ones(1))[0].tolist() == [2.0]


def test_linear_transpose_checks_the_cotangent():
    t = ft.linear_transpose(lambda x: (x, x.sum()), np.zeros(2))
    with pytest.raises(TangentMismatchError, match="structure"):
        t(np.ones(2))
    with pytest.raises(TangentMismatchError, match="shape"):
        t((np.ones(3), 1.0))


# -- custom_vmap -------------------------------------------------------------------------


def _make_custom_vmap(api, np_, calls):
    custom = ft.custom_vmap if api is ft else jax.custom_batching.custom_vmap

    @custom
    def f(x, y):
        return np_.sin(x) * y

    @f.def_vmap
    def rule(axis_size, in_batched, x, y):
        calls.append((axis_size, list(in_batched)))
        # a deliberately different rule, so that using it is visible
        out = np_.cos(x) * y
        return out, any(in_batched)

    return f


@pytest.mark.parametrize(
    "case",
    ["vmap", "vmap_in_axes", "nested", "jit_vmap", "grad_vmap", "jvp_vmap", "plain"],
)
def test_custom_vmap_matches_jax(case):
    ours_calls, jax_calls = [], []
    f = _make_custom_vmap(ft, np, ours_calls)
    jf = _make_custom_vmap(jax, jnp, jax_calls)
    x, y = rng.normal(size=(3, 2)), rng.normal(size=2)
    xx = rng.normal(size=(4, 3, 2))

    def run(api, g):
        if case == "vmap":
            return api.vmap(g)(x, x)
        if case == "vmap_in_axes":
            return api.vmap(g, in_axes=(0, None))(x, y)
        if case == "nested":
            return api.vmap(api.vmap(g, in_axes=(0, None)), in_axes=(0, None))(xx, y)
        if case == "jit_vmap":
            return api.jit(api.vmap(g, in_axes=(0, None)))(x, y)
        if case == "grad_vmap":
            return api.grad(lambda x: api.vmap(g, in_axes=(0, None))(x, y).sum())(x)
        if case == "jvp_vmap":
            return api.jvp(lambda x: api.vmap(g, in_axes=(0, None))(x, y), (x,), (x,))
        return g(x, y)

    close(run(ft, f), run(jax, jf))
    assert ours_calls == jax_calls or (case == "jit_vmap" and ours_calls == jax_calls[:1])


def test_custom_vmap_where_jax_refuses():
    """grad of the function and vmap of grad: JAX raises, we differentiate the body."""
    f = _make_custom_vmap(ft, np, [])
    x, y = rng.normal(size=3), 2.0
    close(ft.grad(lambda x: f(x, y).sum())(x), np.cos(x) * y)
    close(ft.vmap(ft.grad(f), in_dims=(0, None))(x, y), np.cos(x) * y)
    with pytest.raises(ValueError):
        jax.grad(lambda x: _make_custom_vmap(jax, jnp, [])(x, y).sum())(x)


def test_custom_vmap_errors_and_strict_backend():
    g = ft.custom_vmap(lambda x: x * 2.0)
    with pytest.raises(TypeError, match="no batching rule"):
        ft.vmap(g)(np.ones(2))
    g.def_vmap(lambda n, b, x: (x[0], True))
    with pytest.raises(OutDimsError, match="batch axis"):
        ft.vmap(g)(np.ones((2, 3)))
    g.def_vmap(lambda n, b, x: (x, [True]))
    with pytest.raises(OutDimsError, match="out_batched"):
        ft.vmap(g)(np.ones((2, 3)))
    g.def_vmap(lambda n, b, x: (x * 3.0, b[0]))
    out = ft.vmap(g)(asarray(np.ones((2, 3))))
    assert type(out) is StrictArray and out.get().tolist() == [[3.0] * 3] * 2


# -- associative_scan --------------------------------------------------------------------


def _affine(a, b):
    """(A1, b1) then (A2, b2): the composition of affine maps, not commutative."""
    return (a[0] * b[0], b[0] * a[1] + b[1])


@pytest.mark.parametrize("n", [1, 2, 5, 8, 13])
@pytest.mark.parametrize("reverse", [False, True])
def test_associative_scan_matches_jax(n, reverse):
    elems = (rng.normal(size=(n, 3)), rng.normal(size=(n, 3)))
    ours = ft.associative_scan(_affine, elems, reverse=reverse)
    theirs = jax.jit(lambda e: jax.lax.associative_scan(_affine, e, reverse=reverse))(elems)
    close(ours, theirs)
    x = rng.normal(size=(2, n, 4))
    close(
        ft.associative_scan(np.add, x, reverse=reverse, axis=1),
        jax.jit(lambda v: jax.lax.associative_scan(jnp.add, v, reverse=reverse, axis=1))(x),
    )


def test_associative_scan_transforms():
    x = rng.uniform(0.5, 1.5, size=(6, 3))

    def loss(api, np_, x):
        prods = api(np_.multiply, x, axis=0)
        return (np_.sin(prods) * x).sum()

    close(
        ft.grad(lambda x: loss(ft.associative_scan, np, x))(x),
        jax.jit(jax.grad(lambda x: loss(jax.lax.associative_scan, jnp, x)))(x),
    )
    xs = rng.normal(size=(4, 7))
    close(
        ft.vmap(lambda v: ft.associative_scan(np.maximum, v))(xs),
        jax.jit(jax.vmap(lambda v: jax.lax.associative_scan(jnp.maximum, v)))(xs),
    )
    close(ft.jit(lambda v: ft.associative_scan(np.add, v))(xs[0]), np.cumsum(xs[0]))
    s = ft.associative_scan(fnp.add, asarray(xs))
    assert type(s) is StrictArray
    np.testing.assert_allclose(s.get(), np.cumsum(xs, axis=0))
    with pytest.raises(ValueError, match="same length"):
        ft.associative_scan(_affine, (np.ones(3), np.ones(4)))


# -- map ---------------------------------------------------------------------------------


@pytest.mark.parametrize("batch_size", [None, 1, 3, 7, 10])
def test_map_matches_jax(batch_size):
    xs = {"a": rng.normal(size=(7, 2)), "b": rng.normal(size=7)}

    def f(np_):
        return lambda d: (np_.tanh(d["a"]) * d["b"], d["b"] ** 2)

    close(ft.map(f(np), xs, batch_size=batch_size), jax.lax.map(f(jnp), xs, batch_size=batch_size))
    g = ft.grad(lambda a: ft.map(lambda r: np.sin(r).sum(), a, batch_size=batch_size).sum())
    jg = jax.grad(lambda a: jax.lax.map(lambda r: jnp.sin(r).sum(), a, batch_size=batch_size).sum())
    close(g(xs["a"]), jg(xs["a"]))
    vm = ft.vmap(lambda a: ft.map(lambda r: r * a[0], a, batch_size=batch_size))
    jvm = jax.vmap(lambda a: jax.lax.map(lambda r: r * a[0], a, batch_size=batch_size))
    close(vm(xs["a"].T), jvm(xs["a"].T))
    close(
        ft.jit(lambda a: ft.map(np.cos, a, batch_size=batch_size))(xs["b"]),
        np.cos(xs["b"]),
    )


def test_map_strict_backend_and_errors():
    xs = asarray(rng.normal(size=(5, 2)))
    out = ft.map(lambda r: fnp.sum(r * r), xs, batch_size=2)
    assert type(out) is StrictArray
    np.testing.assert_allclose(out.get(), (xs.get() ** 2).sum(1))
    with pytest.raises(ValueError, match="batch_size must be a positive int"):
        ft.map(np.sin, np.ones(3), batch_size=0)
