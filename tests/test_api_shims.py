"""The names people reach for when porting from JAX and HIPS autograd: ``ft.tree_util``,
``ft.tree``, ``ft.flatten_util``, ``ft.misc.flatten``, ``ft.elementwise_grad``,
``ft.hessian_tensor_product``/``hessian_vector_product``, ``ft.make_hvp``,
``ft.block_until_ready`` and the top-level ``tree_flatten`` & co.

Oracles: JAX (x64) for the tree utilities, ``ravel_pytree`` and Hessian-vector products;
central finite differences in float64 for ``elementwise_grad`` and the HVPs; autograd's
documented rules (tuples, lists and dicts, keys sorted, NumPy promotion) for ``flatten``.
"""

from __future__ import annotations

import collections
import functools
import operator

import jax
import jax.numpy as jnp
import jax.tree_util as jtu
import numpy as np
import pytest
from jax.flatten_util import ravel_pytree as jax_ravel_pytree

import ftransforms as ft
from ftransforms import tree_util as tu
from tests.program_oracles import fd_jacobian

NT = collections.namedtuple("NT", "x y")

TREES = [
    1.0,
    None,
    (),
    [1, (2, 3), None],
    {"b": [1, 2], "a": (3, None), "c": {"z": 4, "y": 5}},
    NT(1, [2, 3]),
    collections.OrderedDict([("b", 1), ("a", (2, 3))]),
    [NT(None, 1), {}, [[]], {"k": (4,)}],
]


def fd_grad(f, x):
    """Central finite differences of a scalar ``f`` at ``x`` (float64, 4th order)."""
    return fd_jacobian(f, (np.asarray(x, dtype=np.float64),), eps=1e-4)


# -- tree_util against jax.tree_util -----------------------------------------------------


@pytest.mark.parametrize("tree", TREES, ids=range(len(TREES)))
def test_flatten_structure_and_treedef_methods_match_jax(tree):
    leaves, treedef = tu.tree_flatten(tree)
    jleaves, jtreedef = jtu.tree_flatten(tree)
    assert leaves == jleaves
    assert tu.tree_leaves(tree) == jtu.tree_leaves(tree)
    assert treedef.num_leaves == jtreedef.num_leaves
    assert treedef.num_nodes == jtreedef.num_nodes
    assert tu.tree_structure(tree) == treedef
    assert len(tu.treedef_children(treedef)) == len(jtu.treedef_children(jtreedef))
    assert tu.treedef_is_leaf(treedef) == jtu.treedef_is_leaf(jtreedef)
    new = [object() for _ in leaves]
    assert tu.tree_leaves(tu.tree_unflatten(treedef, new)) == new
    assert tu.tree_unflatten(treedef, leaves) == jtu.tree_unflatten(jtreedef, jleaves)
    assert treedef.unflatten(leaves) == tree
    assert all(a is b for a, b in zip(treedef.flatten_up_to(tree), leaves))


def test_is_leaf_matches_jax():
    tree = [(1, 2), {"a": (3,), "b": 4}, None]
    is_tuple = lambda x: isinstance(x, tuple)  # noqa: E731
    assert tu.tree_leaves(tree, is_tuple) == jtu.tree_leaves(tree, is_tuple)
    assert tu.tree_flatten(tree, is_leaf=is_tuple)[0] == jtu.tree_flatten(tree, is_tuple)[0]
    assert tu.tree_structure(tree, is_tuple).num_leaves == 3
    assert tu.tree_flatten_with_path(tree, is_tuple)[0][0] == ((tu.SequenceKey(0),), (1, 2))


def test_is_leaf_on_a_whole_subtree():
    tree = [(1, 2), {"a": (3,), "b": 4}, None]
    is_tuple = lambda x: isinstance(x, tuple)  # noqa: E731
    count = lambda x: len(x) if isinstance(x, tuple) else -x  # noqa: E731
    assert tu.tree_map(count, tree, is_leaf=is_tuple) == jtu.tree_map(count, tree, is_leaf=is_tuple)
    assert tu.tree_map(count, tree, is_leaf=is_tuple) == [2, {"a": 1, "b": -4}, None]


def test_tree_map_several_trees_and_prefixes_match_jax():
    a = {"w": [1.0, 2.0], "b": None, "c": 3.0}
    b = {"w": [10.0, 20.0], "b": None, "c": (4.0, 5.0)}  # a is a prefix of b
    f = lambda x, y: (x, y)  # noqa: E731
    assert tu.tree_map(f, a, b) == jtu.tree_map(f, a, b)
    assert ft.tree_map is tu.tree_map and ft.tree.map is tu.tree_map
    with pytest.raises(ValueError):
        jtu.tree_map(f, {"a": 1, "b": None}, {"a": 1, "b": 3})
    with pytest.raises(ValueError):
        tu.tree_map(f, {"a": 1, "b": None}, {"a": 1, "b": 3})
    with pytest.raises(ValueError):
        tu.tree_map(f, [1, 2], [1, 2, 3])


def test_reduce_all_all_leaves_match_jax():
    tree = {"a": 1, "b": [2, (3, None)]}
    assert tu.tree_reduce(operator.add, tree) == jtu.tree_reduce(operator.add, tree) == 6
    assert tu.tree_reduce(operator.add, tree, 10) == jtu.tree_reduce(operator.add, tree, 10) == 16
    is_list = lambda x: isinstance(x, list)  # noqa: E731
    assert tu.tree_reduce(lambda s, x: s + [x], tree, [], is_list) == [1, [2, (3, None)]]
    with pytest.raises(TypeError):
        tu.tree_reduce(operator.add, [None])
    for t in ([], [None], [1, 0], {"a": True}, [1, [2, 0.0]]):
        assert tu.tree_all(t) == jtu.tree_all(t)
    for it in ([1, 2], [1, (2,)], [None], []):
        assert tu.all_leaves(it) == jtu.all_leaves(it)


def test_transpose_matches_jax():
    tree = [{"a": 1, "b": (2, 3)}, {"a": 4, "b": (5, 6)}]
    outer = tu.tree_structure([0, 0])
    inner = tu.tree_structure({"a": 0, "b": (0, 0)})
    want = jtu.tree_transpose(jtu.tree_structure([0, 0]), None, tree)
    assert tu.tree_transpose(outer, None, tree) == want
    assert tu.tree_transpose(outer, inner, tree) == want == {"a": [1, 4], "b": ([2, 5], [3, 6])}


def test_key_paths_and_keystr_match_jax():
    class Box:
        def __init__(self, a, b):
            self.a, self.b = a, b

    for register in (ft.register_pytree_node, jtu.register_pytree_node):
        register(Box, lambda p: ((p.a, p.b), None), lambda _, ch: Box(*ch))

    def tree(partial):
        return {"w": [1, (2, 3)], "n": NT(4, None), "z": Box(5, [6]), "p": partial(max, 8, key=9)}

    pairs, treedef = tu.tree_flatten_with_path(tree(tu.Partial))
    jpairs, _ = jtu.tree_flatten_with_path(tree(jtu.Partial))
    assert [x for _, x in pairs] == [x for _, x in jpairs] and treedef.num_leaves == 8
    for (path, _), (jpath, _) in zip(pairs, jpairs):
        assert tu.keystr(path) == jtu.keystr(jpath)
        assert tu.keystr(path, simple=True, separator="/") == jtu.keystr(
            jpath, simple=True, separator="/"
        )
        for k, jk in zip(path, jpath):
            assert type(k).__name__ == type(jk).__name__
            field = {"DictKey": "key", "SequenceKey": "idx", "GetAttrKey": "name"}.get(
                type(k).__name__, "key"
            )
            assert getattr(k, field) == getattr(jk, field)
    assert tu.tree_leaves_with_path(tree(tu.Partial)) == pairs
    assert ft.tree.leaves_with_path(tree(tu.Partial)) == pairs
    f = lambda p, x, y: (tu.keystr(p), x + y)  # noqa: E731
    g = lambda p, x, y: (jtu.keystr(p), x + y)  # noqa: E731
    t = {"b": [1, (2,)], "a": NT(3, 4)}
    assert tu.tree_map_with_path(f, t, t) == jtu.tree_map_with_path(g, t, t)


def test_register_pytree_node_class_composes_with_grad():
    @tu.register_pytree_node_class
    class Linear:
        def __init__(self, w, b):
            self.w, self.b = w, b

        def tree_flatten(self):
            return (self.w, self.b), "meta"

        @classmethod
        def tree_unflatten(cls, aux, children):
            assert aux == "meta"
            return cls(*children)

    m = Linear(np.array([1.0, -2.0]), np.array(0.5))
    x = np.array([3.0, 4.0])
    g = ft.grad(lambda m: np.sum((m.w * x + m.b) ** 2))(m)
    r = m.w * x + m.b
    assert isinstance(g, Linear)
    np.testing.assert_allclose(g.w, 2 * r * x)
    np.testing.assert_allclose(g.b, np.sum(2 * r))
    assert ft.tree_leaves(m)[0] is m.w


def test_partial_is_a_pytree_of_its_bound_arguments():
    a = np.array([1.0, 2.0])
    p = tu.Partial(np.multiply, a)
    jp = jtu.Partial(np.multiply, a)
    assert isinstance(p, functools.partial)
    assert [id(x) for x in ft.tree_leaves(p)] == [id(x) for x in jtu.tree_leaves(jp)]
    kw = tu.Partial(np.clip, a_min=0.0, a_max=1.5)
    assert ft.tree_leaves(kw) == jtu.tree_leaves(jtu.Partial(np.clip, a_min=0.0, a_max=1.5))
    np.testing.assert_allclose(ft.tree_map(lambda v: v * 10, kw)(a), [1.0, 2.0])
    x = np.array([3.0, 5.0])
    np.testing.assert_allclose(ft.jit(lambda p, x: p(x))(p, x), a * x)
    g = ft.grad(lambda p: np.sum(p(x)))(p)  # a Partial of the gradient
    assert isinstance(g, tu.Partial) and g.func is np.multiply
    np.testing.assert_allclose(g.args[0], x)
    # a partial given as the function stays whole: its arguments are structure, not leaves
    add3 = lambda a, b, c: a + b + c  # noqa: E731
    nested, jnested = tu.Partial(tu.Partial(add3, 1), 2), jtu.Partial(jtu.Partial(add3, 1), 2)
    assert ft.tree_leaves(nested) == jtu.tree_leaves(jnested) == [2]
    assert ft.tree_map(lambda v: v * 10, nested)(3) == jtu.tree_map(lambda v: v * 10, jnested)(3)
    rows = ft.vmap(lambda p, x: p(x), in_dims=(0, None))(tu.Partial(np.multiply, np.eye(2)), x)
    np.testing.assert_allclose(rows, np.diag(x))


def test_tree_namespace_and_top_level_are_the_same_functions():
    pairs = {
        "map": "tree_map",
        "leaves": "tree_leaves",
        "structure": "tree_structure",
        "flatten": "tree_flatten",
        "unflatten": "tree_unflatten",
        "reduce": "tree_reduce",
        "all": "tree_all",
        "transpose": "tree_transpose",
        "flatten_with_path": "tree_flatten_with_path",
        "leaves_with_path": "tree_leaves_with_path",
        "map_with_path": "tree_map_with_path",
        "broadcast": "tree_broadcast",
        "reduce_associative": "tree_reduce_associative",
    }
    assert sorted(ft.tree.__all__) == sorted([*pairs, "static"])  # static: a field maker
    assert hasattr(jax.tree, "static")
    for short, long in pairs.items():
        assert getattr(ft.tree, short) is getattr(tu, long)
        assert hasattr(jax.tree, short)  # the name exists in JAX's namespace too
    for name in ("tree_flatten", "tree_unflatten", "tree_leaves", "tree_structure"):
        assert getattr(ft, name) is getattr(tu, name)
    assert ft.register_pytree_node is tu.register_pytree_node
    assert set(tu.__all__) <= set(dir(jtu))


def test_ravel_pytree_namespace_matches_jax():
    assert ft.flatten_util.ravel_pytree is ft.ravel_pytree
    tree = {"w": np.arange(6.0).reshape(2, 3), "b": (np.float32(2.0), 3), "n": None}
    flat, unravel = ft.flatten_util.ravel_pytree(tree)
    jflat, junravel = jax_ravel_pytree(tree)
    assert flat.dtype == jflat.dtype
    np.testing.assert_array_equal(flat, np.asarray(jflat))
    back, jback = unravel(flat * 2), junravel(jflat * 2)
    for x, y in zip(ft.tree_leaves(back), jtu.tree_leaves(jback)):
        assert np.shape(x) == y.shape and np.asarray(x).dtype == y.dtype
        np.testing.assert_array_equal(x, np.asarray(y))


# -- autograd's operators ---------------------------------------------------------------


def _elementwise(x):
    return np.sin(x) * np.exp(0.3 * x) + x**3


def test_elementwise_grad_is_the_derivative_at_every_element():
    x = np.linspace(-1.0, 1.5, 7).reshape(7)
    got = ft.elementwise_grad(_elementwise)(x)
    want = np.array([fd_grad(lambda t: _elementwise(t), np.array(xi)) for xi in x])
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-8)
    x2 = np.linspace(0.1, 2.0, 6).reshape(2, 3)
    np.testing.assert_allclose(ft.elementwise_grad(np.log)(x2), 1 / x2, rtol=1e-12)  # shape kept


def test_elementwise_grad_is_the_gradient_of_the_summed_output():
    # autograd's definition: vjp with ones, so a non-elementwise function gives column sums
    A = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.0]])
    f = lambda x: np.tanh(A @ x)  # noqa: E731
    x = np.array([0.2, -0.4])
    want = fd_grad(lambda t: np.sum(f(t)), x)
    np.testing.assert_allclose(ft.elementwise_grad(f)(x), want, rtol=1e-7)
    np.testing.assert_allclose(
        ft.elementwise_grad(f)(x), jax.grad(lambda t: jnp.tanh(A @ t).sum())(x), rtol=1e-12
    )


def test_elementwise_grad_argnums_kwargs_and_pytree_outputs():
    x, y = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    f = lambda x, y, scale=1.0: (x * y * scale, {"s": np.sin(y)})  # noqa: E731
    gy = ft.elementwise_grad(f, argnum=1)(x, y, scale=2.0)
    np.testing.assert_allclose(gy, 2.0 * x + np.cos(y), rtol=1e-12)
    gx, gy2 = ft.elementwise_grad(f, (0, 1))(x, y)
    np.testing.assert_allclose(gx, y)
    np.testing.assert_allclose(gy2, x + np.cos(y), rtol=1e-12)
    # a negative argnum counts from the end, as autograd's: here the scale
    np.testing.assert_allclose(ft.elementwise_grad(f, argnum=-1)(x, y, 2.0), np.sum(x * y))


def test_elementwise_grad_refuses_complex_outputs_and_bad_argnum():
    with pytest.raises(TypeError, match=r"^elementwise_grad\(<lambda>, argnum=0\): .*real"):
        ft.elementwise_grad(lambda x: x * 1j)(np.ones(2))
    with pytest.raises(ft.errors.ArgnumsError, match=r"^elementwise_grad\(sin, argnum=2\)"):
        ft.elementwise_grad(np.sin, argnum=2)(np.ones(2))
    with pytest.raises(ft.errors.ArgnumsError, match="an int or a tuple"):
        ft.elementwise_grad(np.sin, argnum="x")(np.ones(2))


def test_elementwise_grad_under_vmap_and_jit():
    xs = np.linspace(-1.0, 1.0, 12).reshape(4, 3)
    eg = ft.elementwise_grad(_elementwise)
    loop = np.stack([eg(x) for x in xs])
    np.testing.assert_allclose(ft.vmap(eg)(xs), loop, rtol=1e-13)
    np.testing.assert_allclose(ft.jit(eg)(xs), loop, rtol=1e-13)
    np.testing.assert_allclose(ft.jit(eg)(xs + 0.5), np.stack([eg(x) for x in xs + 0.5]))
    # the second derivative, elementwise
    second = ft.elementwise_grad(eg)(xs[0])
    want = np.array([fd_grad(lambda t: eg(t), np.array(v)) for v in xs[0]])
    np.testing.assert_allclose(second, want, rtol=1e-6)


def _loss(x, w, scale=1.0):
    return scale * (np.sum(np.sin(x) * w) + np.sum(x**2) ** 2 * np.sum(w**2))


def _jloss(x, w, scale=1.0):
    return scale * (jnp.sum(jnp.sin(x) * w) + jnp.sum(x**2) ** 2 * jnp.sum(w**2))


def _hessian_x(x, w, scale=1.0):
    """The Hessian of _loss in x, by hand."""
    r2 = np.sum(x**2)
    return scale * (
        np.diag(-np.sin(x) * w) + np.sum(w**2) * (8 * np.outer(x, x) + 4 * r2 * np.eye(x.size))
    )


def _hessian_w(x, w, scale=1.0):
    """The Hessian of _loss in w, by hand."""
    return scale * 2 * np.sum(x**2) ** 2 * np.eye(w.size)


def _jax_hvp(f, x, v, argnum=0, *args):
    def g(x):
        full = list(args)
        full.insert(argnum, x)
        return jax.grad(f, argnums=argnum)(*full)

    return jax.jvp(g, (x,), (v,))[1]


def test_hessian_tensor_product_matches_finite_differences_and_jax():
    assert ft.hessian_vector_product is ft.hessian_tensor_product
    x, w, v = np.array([0.3, -0.7, 1.1]), np.array([1.0, 2.0, -0.5]), np.array([1.0, -2.0, 0.5])
    got = ft.hessian_tensor_product(_loss)(x, w, v)
    gx = lambda t: ft.grad(_loss)(t, w)  # noqa: E731
    fd = (gx(x + 1e-6 * v) - gx(x - 1e-6 * v)) / 2e-6
    np.testing.assert_allclose(got, fd, rtol=1e-6)
    np.testing.assert_allclose(got, _jax_hvp(_jloss, x, v, 0, w), rtol=1e-12)
    np.testing.assert_allclose(got, _hessian_x(x, w) @ v, rtol=1e-12)
    # argnum=1, keyword arguments passed to fun, a matrix-shaped argument
    got1 = ft.hessian_vector_product(_loss, argnum=1)(x, w, v, scale=3.0)
    np.testing.assert_allclose(got1, _hessian_w(x, w, 3.0) @ v, rtol=1e-12)
    X, V = x.reshape(3, 1) * np.ones((3, 2)), np.arange(6.0).reshape(3, 2)
    f2 = lambda X: np.sum(np.cos(X) * X**2)  # noqa: E731
    want2 = jax.jvp(jax.grad(lambda X: jnp.sum(jnp.cos(X) * X**2)), (X,), (V,))[1]
    np.testing.assert_allclose(ft.hessian_tensor_product(f2)(X, V), want2, rtol=1e-12)


def test_hessian_tensor_product_tuple_argnum_and_errors():
    x, w = np.array([0.3, -0.7]), np.array([1.0, 2.0])
    vx, vw = np.array([1.0, 0.5]), np.array([-1.0, 2.0])
    hx, hw = ft.hessian_tensor_product(_loss, (0, 1))(x, w, (vx, vw))
    jx, jw = jax.jvp(lambda a, b: jax.grad(_jloss, (0, 1))(a, b), (x, w), (vx, vw))[1]
    np.testing.assert_allclose(hx, jx, rtol=1e-12)
    np.testing.assert_allclose(hw, jw, rtol=1e-12)
    with pytest.raises(TypeError, match=r"^hessian_tensor_product\(_loss, argnum=0\)"):
        ft.hessian_tensor_product(_loss)()
    with pytest.raises(ft.errors.ArgnumsError, match="out of range"):
        ft.hessian_tensor_product(_loss, argnum=1)(x, vx)  # only one argument before v
    with pytest.raises(
        ft.errors.TangentMismatchError,
        match=r"^hessian_tensor_product\(_loss, argnum=0\): the tensor has shape \(3,\)",
    ):
        ft.hessian_tensor_product(_loss)(x, w, np.ones(3))
    # array-likes and other float dtypes are taken as autograd's tensordot takes them
    want = _hessian_x(x, w) @ vx
    np.testing.assert_allclose(ft.hessian_tensor_product(_loss)(x, w, vx.tolist()), want)
    got32 = ft.hessian_tensor_product(_loss)(x, w, vx.astype(np.float32))
    assert got32.dtype == np.float64
    np.testing.assert_allclose(got32, want, rtol=1e-12)
    hvp, _ = ft.make_hvp(_loss)(x, w)
    np.testing.assert_allclose(hvp(vx.tolist()), want, rtol=1e-12)
    with pytest.raises(ft.errors.TangentMismatchError, match=r"^make_hvp\(_loss, argnum=0\) hvp"):
        hvp(np.ones(3))


def test_make_hvp_returns_the_hvp_and_the_gradient():
    x, w = np.array([0.3, -0.7, 1.1]), np.array([1.0, 2.0, -0.5])
    hvp, g = ft.make_hvp(_loss)(x, w)
    np.testing.assert_allclose(g, jax.grad(_jloss)(x, w), rtol=1e-12)
    H = _hessian_x(x, w)
    for v in np.eye(3):  # the same recorded gradient, several vectors
        np.testing.assert_allclose(hvp(v), H @ v, rtol=1e-12, atol=1e-14)
    hvp1, g1 = ft.make_hvp(_loss, argnum=1)(x, w, scale=2.0)
    np.testing.assert_allclose(g1, ft.grad(_loss, 1)(x, w, 2.0), rtol=1e-12)
    v = np.array([0.5, 1.0, -1.0])
    np.testing.assert_allclose(hvp1(v), _hessian_w(x, w, 2.0) @ v, rtol=1e-12)


def test_grad_and_vmap_of_hvp():
    w, v = np.array([1.0, 2.0, -0.5]), np.array([1.0, -2.0, 0.5])
    x = np.array([0.3, -0.7, 1.1])
    hvp = ft.hessian_tensor_product(_loss)
    # the gradient of <v, H(x) v>, a third derivative
    got = ft.grad(lambda x: np.dot(v, hvp(x, w, v)))(x)
    want = jax.grad(lambda x: jnp.dot(v, _jax_hvp(_jloss, x, v, 0, w)))(x)
    np.testing.assert_allclose(got, want, rtol=1e-11)
    # every basis vector at once: the Hessian
    H = ft.vmap(lambda e: hvp(x, w, e))(np.eye(3))
    np.testing.assert_allclose(H, _hessian_x(x, w), rtol=1e-12)
    hvp_fn, _ = ft.make_hvp(_loss)(x, w)
    np.testing.assert_allclose(ft.vmap(hvp_fn)(np.eye(3)), H, rtol=1e-12)


# -- autograd.misc.flatten --------------------------------------------------------------


def test_flatten_follows_autograds_rules():
    value = {
        "k2": np.arange(4.0).reshape(2, 2),
        "k": (np.float32(3.0), [np.array([1, 2], dtype=np.int32), ()]),
        "nt": NT(5.0, 6.0),  # a namedtuple is one leaf for autograd: raveled as an array
    }
    flat, unflatten = ft.misc.flatten(value)
    want = np.concatenate(
        [np.ravel(np.float32(3.0)), np.ravel(np.array([1, 2], dtype=np.int32))]
        + [np.ravel(np.arange(4.0).reshape(2, 2)), np.ravel(NT(5.0, 6.0))]
    )
    assert flat.dtype == want.dtype == np.float64  # NumPy's promotion, not JAX's
    np.testing.assert_array_equal(flat, want)
    back = unflatten(flat)
    assert np.shape(back["k"][0]) == () and back["k"][1][1] == () and back["k2"].shape == (2, 2)
    np.testing.assert_array_equal(ft.misc.flatten(back)[0], flat)
    empty, unflatten_empty = ft.misc.flatten([(), {}])
    assert empty.dtype == np.float64 and empty.shape == (0,)
    assert unflatten_empty(empty) == [(), {}]
    with pytest.raises(ValueError, match=r"^flatten's unflatten\(vector\): expected .*\(9,\)"):
        unflatten(np.ones(3))


def test_flatten_is_differentiable():
    params = {"w": np.array([[1.0, 2.0], [3.0, 4.0]]), "b": [np.array(0.5)]}
    flat, unflatten = ft.misc.flatten(params)

    def loss(v):
        p = unflatten(v)
        return np.sum(np.tanh(p["w"] @ np.array([1.0, -1.0]) + p["b"][0]) ** 2)

    np.testing.assert_allclose(ft.grad(loss)(flat), fd_grad(loss, flat), rtol=1e-7)
    g = ft.grad(lambda p: np.sum(ft.misc.flatten(p)[0] ** 2))(params)
    np.testing.assert_allclose(g["w"], 2 * params["w"])


# -- block_until_ready ------------------------------------------------------------------


def test_block_until_ready_returns_its_argument_and_waits_on_leaves():
    tree = {"a": np.ones(2), "b": [1.0, None, "s"]}
    assert ft.block_until_ready(tree) is tree

    class Pending:
        waited = 0

        def block_until_ready(self):
            Pending.waited += 1
            return self

    leaves = [Pending(), Pending()]
    assert ft.block_until_ready(leaves) is leaves and Pending.waited == 2
    jx = jnp.ones(3)  # a JAX array waits through its own method, as in jax
    assert ft.block_until_ready((jx,))[0] is jx
    seen = []
    ft.vmap(lambda x: seen.append(ft.block_until_ready(x)) or x)(np.ones((2, 3)))
    assert len(seen) == 1  # a tracer passes through


def test_block_until_ready_synchronizes_each_cupy_device_once(monkeypatch):
    """CuPy's side, with a stand-in module (no GPU here): the current stream of each
    leaf's device is synchronized once, inside that device's context."""
    import types

    log = []

    class Device:
        def __init__(self, i):
            self.id = i

        def __enter__(self):
            log.append(("enter", self.id))

        def __exit__(self, *exc):
            log.append(("exit", self.id))

    class Stream:
        def synchronize(self):
            log.append(("sync", log[-1][1]))

    fake = types.ModuleType("cupy")
    fake.cuda = types.SimpleNamespace(get_current_stream=lambda: Stream())
    monkeypatch.setitem(__import__("sys").modules, "cupy", fake)
    FakeArray = type("ndarray", (), {"__module__": "cupy"})
    arrays = []
    for i in (0, 1, 0):
        a = FakeArray()
        a.device = Device(i)
        arrays.append(a)
    tree = {"a": arrays, "n": np.ones(1)}
    assert ft.block_until_ready(tree) is tree
    assert log == [("enter", 0), ("sync", 0), ("exit", 0), ("enter", 1), ("sync", 1), ("exit", 1)]
