"""Each transform on its own, as a torch.func/JAX user would test it.

Oracles: a Python loop-and-stack for ``vmap``; JAX (float64, x64 enabled) for the
derivative transforms.  Every result must be a plain NumPy array of the input's dtype.
"""

from __future__ import annotations

import functools
from collections import namedtuple

import jax
import jax.numpy as jnp
import numpy as np
import optree
import pytest

import ftransforms.numpy as fnp
from ftransforms import (
    grad,
    grad_and_value,
    hessian,
    jacfwd,
    jacrev,
    jvp,
    linearize,
    vjp,
    vmap,
)
from tests.tolerances import assert_tree_close as _assert_tree_close
from tests.tolerances import tol

# what a transform returns must be a numpy.ndarray (see tolerances.assert_tree_close)
assert_tree_close = functools.partial(_assert_tree_close, strict=True)

Point = namedtuple("Point", ["a", "b"])


def rand(rng, shape, dtype):
    return rng.standard_normal(shape).astype(dtype)


def f64(tree):
    """The float64 copy of a pytree of arrays: what the JAX oracle runs on."""
    return optree.tree_map(lambda a: np.asarray(a, dtype=np.float64), tree)


def np_tree(tree):
    """JAX's result as NumPy arrays, structure kept."""
    return optree.tree_map(np.asarray, tree)


def loop_vmap(f, in_dims, args, size, out_dim=0):
    """The oracle for vmap: call ``f`` on each slice and stack along ``out_dim``."""
    outs = []
    for i in range(size):
        sl = [a if d is None else np.take(a, i, axis=d) for a, d in zip(args, in_dims, strict=True)]
        outs.append(f(*sl))
    return optree.tree_map(lambda *xs: np.stack(xs, axis=out_dim), *outs)


def close(actual, expected, dtype, msg=""):
    assert_tree_close(actual, expected, dtype=dtype, err_msg=msg, **tol(dtype))


# ======================================================================================
# vmap
# ======================================================================================


def f_mix(x, w):
    return np.tanh(x @ w) * np.sum(x**2)


def f_mix_fnp(x, w):
    return fnp.tanh(fnp.matmul(x, w)) * fnp.sum(x**2)


@pytest.mark.parametrize("fn", [f_mix, f_mix_fnp], ids=["np", "fnp"])
@pytest.mark.parametrize("in_dim", [0, 1, 2, -1, -3])
def test_vmap_in_dims_int_and_negative(fn, in_dim, dtype, rng):
    x_un = rand(rng, (3, 4), dtype)  # per-example shape
    w = rand(rng, (4, 2), dtype)
    x = np.stack([x_un + i for i in range(5)], axis=in_dim % 3)
    out = vmap(fn, in_dims=(in_dim, None))(x, w)
    expected = loop_vmap(fn, (in_dim % 3, None), (x, w), 5)
    close(out, expected, dtype)


def test_vmap_in_dims_tuple_mixed_axes(dtype, rng):
    x = rand(rng, (3, 5), dtype)  # batch on axis 1
    y = rand(rng, (5, 3), dtype)  # batch on axis 0
    z = rand(rng, (3,), dtype)  # unbatched

    def f(x, y, z):
        return np.sin(x) * y + z

    out = vmap(f, in_dims=(1, 0, None))(x, y, z)
    close(out, loop_vmap(f, (1, 0, None), (x, y, z), 5), dtype)
    # a list in_dims means the same as the tuple
    close(vmap(f, in_dims=[1, 0, None])(x, y, z), out, dtype)


def test_vmap_in_dims_nested_dict(dtype, rng):
    params = {"w": rand(rng, (4, 3, 2), dtype), "b": rand(rng, (2,), dtype)}
    x = rand(rng, (3, 4), dtype)

    def f(p, x):
        return np.tanh(x @ p["w"] + p["b"])

    out = vmap(f, in_dims=({"w": 0, "b": None}, 1))(params, x)
    expected = np.stack([f({"w": params["w"][i], "b": params["b"]}, x[:, i]) for i in range(4)])
    close(out, expected, dtype)


def test_vmap_in_dims_namedtuple_and_list(dtype, rng):
    pt = Point(a=rand(rng, (6, 2), dtype), b=rand(rng, (2, 6), dtype))
    xs = [rand(rng, (6,), dtype), rand(rng, (2,), dtype)]

    def f(p, xs):
        return p.a * p.b + xs[0] * xs[1]

    out = vmap(f, in_dims=(Point(a=0, b=1), [0, None]))(pt, xs)
    expected = np.stack([f(Point(pt.a[i], pt.b[:, i]), [xs[0][i], xs[1]]) for i in range(6)])
    close(out, expected, dtype)
    # a single int in_dim for a namedtuple argument applies to every leaf
    pt0 = Point(a=pt.a, b=pt.b.T.copy())
    out0 = vmap(lambda p: p.a - p.b, in_dims=(0,))(pt0)
    close(out0, pt0.a - pt0.b, dtype)


def test_vmap_pytree_outputs_keep_structure(dtype, rng):
    x = rand(rng, (4, 3), dtype)

    def f(x):
        return {"s": np.sum(x), "p": Point(a=x * 2, b=[np.cos(x)])}

    out = vmap(f)(x)
    close(out, loop_vmap(f, (0,), (x,), 4), dtype)
    assert isinstance(out["p"], Point) and isinstance(out["p"].b, list)


@pytest.mark.parametrize("out_dims", [0, 1, 2, -1, -2])
def test_vmap_out_dims_int(out_dims, dtype, rng):
    x = rand(rng, (5, 3, 2), dtype)

    def f(x):
        return np.exp(x) * x[0, 0]

    out = vmap(f, out_dims=out_dims)(x)
    close(out, loop_vmap(f, (0,), (x,), 5, out_dim=out_dims % 3), dtype)


def test_vmap_out_dims_tuple_and_none(dtype, rng):
    x = rand(rng, (4, 3), dtype)
    c = rand(rng, (2,), dtype)

    def f(x, c):
        return x * 3, np.sum(x), c * 2

    a, s, k = vmap(f, in_dims=(0, None), out_dims=(1, 0, None))(x, c)
    close(a, (x * 3).T, dtype)
    close(s, x.sum(axis=1), dtype)
    close(k, c * 2, dtype)  # out_dim None: returned once, without a batch axis


def test_vmap_out_dims_pytree_prefix(dtype, rng):
    x = rand(rng, (4, 3), dtype)

    def f(x):
        return {"a": x + 1, "b": (x * 2, np.sum(x))}

    out = vmap(f, out_dims={"a": 1, "b": (-1, 0)})(x)
    close(out["a"], (x + 1).T, dtype)
    close(out["b"][0], (x * 2).T, dtype)
    close(out["b"][1], x.sum(1), dtype)


def test_vmap_kwargs_are_not_batched(dtype, rng):
    x = rand(rng, (5, 3), dtype)
    scale = rand(rng, (3,), dtype)

    def f(x, *, scale, shift=0.0):
        return x * scale + shift

    out = vmap(f)(x, scale=scale, shift=dtype.type(1.5))
    close(out, x * scale + dtype.type(1.5), dtype)


def test_vmap_nested_outer_product(dtype, rng):
    x = rand(rng, (4,), dtype)
    y = rand(rng, (3,), dtype)

    def f(a, b):
        return np.sin(a) * np.exp(b)

    out = vmap(vmap(f, in_dims=(None, 0)), in_dims=(0, None))(x, y)
    close(out, np.sin(x)[:, None] * np.exp(y)[None, :], dtype)
    out_t = vmap(vmap(f, in_dims=(None, 0)), in_dims=(0, None), out_dims=1)(x, y)
    close(out_t, (np.sin(x)[:, None] * np.exp(y)[None, :]).T, dtype)


def test_vmap_nested_batch_matmul_inner_batched_on_other_axis(dtype, rng):
    a = rand(rng, (2, 4, 3, 5), dtype)  # outer batch 0, then inner batch 1
    b = rand(rng, (3, 5, 2), dtype)  # outer batch -1, then inner batch 0

    def f(a, b):
        return np.tanh(a @ b).sum(axis=0)

    out = vmap(vmap(f, in_dims=(1, 0)), in_dims=(0, -1))(a, b)
    expected = np.stack(
        [np.stack([f(a[i][:, j], b[..., i][j]) for j in range(3)]) for i in range(2)]
    )
    close(out, expected, dtype)


@pytest.mark.parametrize("chunk_size", [1, 2, 3, 7, 10])
def test_vmap_chunk_size_equals_unchunked(chunk_size, dtype, rng):
    x = rand(rng, (3, 7), dtype)  # batch 7 on axis 1
    w = rand(rng, (3, 2), dtype)

    def f(x, w):
        return {"y": np.tanh(x @ w), "n": np.sum(x**2)}, w * 2

    kw = {"in_dims": (1, None), "out_dims": ({"y": -1, "n": 0}, None)}
    ref = vmap(f, **kw)(x, w)
    out = vmap(f, chunk_size=chunk_size, **kw)(x, w)
    close(out, ref, dtype)
    close(ref[0]["y"], np.tanh(x.T @ w).T, dtype)


def test_vmap_chunk_size_nested_and_under_grad(dtype, rng):
    x = rand(rng, (5, 3), dtype)

    def loss(x):
        return np.sum(vmap(lambda r: np.sum(np.sin(r) ** 2), chunk_size=2)(x))

    g = grad(loss)(x)
    close(g, 2 * np.sin(x) * np.cos(x), dtype)


def test_vmap_python_scalar_outputs_broadcast(dtype, rng):
    x = rand(rng, (4, 2), dtype)
    out = vmap(lambda x: (np.sum(x), 1.5))(x)
    ref = jax.jit(jax.vmap(lambda x: (jnp.sum(x), 1.5)))(f64(x))
    close(out[0], np.asarray(ref[0]), dtype)
    assert isinstance(out[1], np.ndarray) and out[1].shape == (4,)
    np.testing.assert_array_equal(out[1], np.asarray(ref[1]))


def test_vmap_unbatched_outputs_are_broadcast_copies(dtype, rng):
    x = rand(rng, (4, 2), dtype)
    c = rand(rng, (3,), dtype)

    def f(x, c):
        return c, np.cos(c)  # neither depends on the batched input

    a, b = vmap(f, in_dims=(0, None), out_dims=(0, 1))(x, c)
    close(a, np.broadcast_to(c, (4, 3)), dtype)
    close(b, np.broadcast_to(np.cos(c)[:, None], (3, 4)), dtype)
    # the result is an array of its own, not a read-only view of c
    a[0, 0] = 123.0
    assert c[0] != 123.0


def test_vmap_size_one_batch(dtype, rng):
    x = rand(rng, (1, 3), dtype)
    out = vmap(lambda x: np.outer(x, x))(x)
    close(out, x[:, :, None] * x[:, None, :], dtype)


def test_vmap_reductions_and_reshape_follow_logical_axes(dtype, rng):
    x = rand(rng, (3, 5, 4), dtype)  # batch on axis 1

    def f(x):  # x: (3, 4)
        y = x.reshape(2, 6).T  # (6, 2)
        return y.sum(axis=0) + np.max(x, axis=-1).mean() + x[:, 1:3].prod()

    out = vmap(f, in_dims=1)(x)
    close(out, loop_vmap(f, (1,), (x,), 5), dtype)


def test_vmap_non_array_arguments_with_in_dim_none(dtype, rng):
    x = rand(rng, (3, 2), dtype)

    def f(x, n, mode):
        return x * n if mode == "mul" else x + n

    close(vmap(f, in_dims=(0, None, None))(x, 3, "mul"), x * 3, dtype)
    close(vmap(f, in_dims=(0, None, None))(x, 3, "add"), x + 3, dtype)


def test_vmap_identity_moves_the_batch_axis(dtype, rng):
    x = rand(rng, (2, 5, 3), dtype)
    close(vmap(lambda x: x, in_dims=1)(x), np.moveaxis(x, 1, 0), dtype)
    close(vmap(lambda x: x, in_dims=1, out_dims=-1)(x), np.moveaxis(x, 1, -1), dtype)


def test_vmap_none_in_outputs_and_inputs(dtype, rng):
    x = rand(rng, (3, 2), dtype)
    out = vmap(lambda p: (p["w"] * 2, None))({"w": x, "b": None})
    assert out[1] is None
    close(out[0], x * 2, dtype)


@pytest.mark.parametrize("chunk_size", [None, 2])
def test_vmap_none_outputs_with_out_dims(chunk_size, dtype, rng):
    x = rand(rng, (5, 2), dtype)

    def f(x):
        return None, x * 2, {"n": None, "s": np.sum(x)}

    out = vmap(f, out_dims=(0, 1, 0), chunk_size=chunk_size)(x)
    assert out[0] is None and out[2]["n"] is None
    close(out[1], (x * 2).T, dtype)
    close(out[2]["s"], x.sum(1), dtype)


def test_vmap_inner_out_dims_none_for_an_outer_batched_value(dtype, rng):
    x, y = rand(rng, (3,), dtype), rand(rng, (4,), dtype)
    # a * 2 varies over the outer batch but not over the inner one: out_dims=None is fine
    out = vmap(lambda a: vmap(lambda b: a * 2 + b * 0, in_dims=0, out_dims=0)(y))(x)
    close(out, np.broadcast_to((x * 2)[:, None], (3, 4)), dtype)
    out = vmap(lambda a: vmap(lambda b: a * 2, out_dims=None)(y))(x)
    close(out, x * 2, dtype)


def test_vmap_inner_closes_over_outer_tracer(dtype, rng):
    x, y = rand(rng, (3,), dtype), rand(rng, (4, 2), dtype)
    out = vmap(lambda a: vmap(lambda b: np.sin(a * b))(y))(x)
    close(out, np.sin(x[:, None, None] * y[None]), dtype)


# ======================================================================================
# grad / grad_and_value
# ======================================================================================


def loss3(x, y, z):
    return np.sum(np.tanh(x * y) ** 2) + np.sum(z * x) ** 2


def loss3_jax(x, y, z):
    return jnp.sum(jnp.tanh(x * y) ** 2) + jnp.sum(z * x) ** 2


@pytest.mark.parametrize("argnums", [0, 1, 2, -1, -3, (0, 2), (2, 0), (-1, 1), (0, 1, 2)])
def test_grad_argnums(argnums, dtype, rng):
    args = tuple(rand(rng, (4,), dtype) for _ in range(3))
    g = grad(loss3, argnums=argnums)(*args)
    ref = np_tree(jax.jit(jax.grad(loss3_jax, argnums=argnums))(*f64(args)))
    close(g, ref, dtype)
    assert isinstance(g, tuple) == isinstance(argnums, tuple)


def test_grad_fnp_namespace_matches_numpy(dtype, rng):
    x = rand(rng, (5,), dtype)

    def loss_fnp(x):
        return fnp.sum(fnp.log1p(fnp.exp(x)) * fnp.sin(x))

    def loss_jax(x):
        return jnp.sum(jnp.log1p(jnp.exp(x)) * jnp.sin(x))

    close(grad(loss_fnp)(x), np.asarray(jax.jit(jax.grad(loss_jax))(f64(x))), dtype)


def test_grad_pytree_inputs(dtype, rng):
    params = {
        "layers": [
            {"w": rand(rng, (3, 4), dtype), "b": rand(rng, (3,), dtype)},
            {"w": rand(rng, (2, 3), dtype), "b": rand(rng, (2,), dtype)},
        ],
        "scale": Point(a=rand(rng, (), dtype), b=rand(rng, (2,), dtype)),
    }
    x = rand(rng, (4,), dtype)

    def make(xp):
        def loss(p, x):
            h = x
            for layer in p["layers"]:
                h = xp.tanh(layer["w"] @ h + layer["b"])
            return xp.sum((h * p["scale"].a + p["scale"].b) ** 2)

        return loss

    g = grad(make(np))(params, x)
    ref = np_tree(jax.jit(jax.grad(make(jnp)))(f64(params), f64(x)))
    close(g, ref, dtype)
    assert isinstance(g["scale"], Point) and isinstance(g["layers"], list)


def test_grad_namedtuple_with_none_field(dtype, rng):
    p = Point(a=rand(rng, (2,), dtype), b=None)
    g = grad(lambda p: np.sum(np.exp(p.a)))(p)
    assert isinstance(g, Point) and g.b is None
    close(g.a, np.exp(p.a), dtype)


def test_grad_unused_input_is_zero(dtype, rng):
    x, y = rand(rng, (3,), dtype), rand(rng, (2,), dtype)
    gx, gy = grad(lambda x, y: np.sum(x**3), argnums=(0, 1))(x, y)
    close(gx, 3 * x**2, dtype)
    close(gy, np.zeros_like(y), dtype)


def test_grad_has_aux(dtype, rng):
    x = rand(rng, (4,), dtype)

    def f(x):
        y = np.sin(x)
        return np.sum(y**2), {"y": y, "n": np.sum(x)}

    g, aux = grad(f, has_aux=True)(x)
    rg, raux = jax.jit(
        jax.grad(
            lambda x: (jnp.sum(jnp.sin(x) ** 2), {"y": jnp.sin(x), "n": x.sum()}), has_aux=True
        )
    )(f64(x))
    close(g, np.asarray(rg), dtype)
    close(aux, np_tree(raux), dtype)


def test_grad_kwargs_are_not_differentiated(dtype, rng):
    x = rand(rng, (3,), dtype)
    c = rand(rng, (3,), dtype)
    g = grad(lambda x, *, c: np.sum(c * x**2))(x, c=c)
    close(g, 2 * c * x, dtype)


def test_grad_python_control_flow_on_values(dtype, rng):
    x = np.abs(rand(rng, (3,), dtype)) + dtype.type(0.5)

    def f(x):
        if np.sum(x) > 0:  # eager: fine under grad
            return np.sum(x**2)
        return np.sum(x)

    close(grad(f)(x), 2 * x, dtype)
    close(grad(f)(-x), np.ones_like(x), dtype)


def test_grad_scalar_input(dtype):
    x = np.asarray(0.7, dtype=dtype)
    g = grad(lambda x: np.sin(x) * x)(x)
    close(g, np.asarray(np.cos(0.7) * 0.7 + np.sin(0.7)), dtype)
    assert g.shape == ()


def test_grad_of_output_independent_of_input_is_zero(dtype, rng):
    x = rand(rng, (2,), dtype)
    for f in (lambda x: 3.0, lambda x: np.asarray(3.0, dtype)):
        g = grad(f)(x)
        close(g, np.zeros_like(x), dtype)
    close(vmap(grad(lambda x: 1.0))(np.stack([x, x])), np.zeros((2, 2), dtype), dtype)


def test_grad_python_float_input_and_int_static_argument(dtype, rng):
    g = grad(lambda x: x**2)(3.0)
    ref = jax.grad(lambda x: x**2)(3.0)
    assert isinstance(g, np.ndarray) and g.shape == () and float(g) == float(ref)
    x = rand(rng, (3,), dtype)
    close(grad(lambda x, i: np.sum(x[i] ** 2))(x, 1), np.eye(3, dtype=dtype)[1] * 2 * x, dtype)


def test_grad_and_value(dtype, rng):
    x, y = rand(rng, (4,), dtype), rand(rng, (4,), dtype)

    def f(x, y):
        return np.sum(np.exp(x) * y)

    g, v = grad_and_value(f, argnums=(0, 1))(x, y)
    rv, rg = jax.jit(jax.value_and_grad(lambda x, y: jnp.sum(jnp.exp(x) * y), argnums=(0, 1)))(
        *f64((x, y))
    )
    close(g, np_tree(rg), dtype)
    close(v, np.asarray(rv), dtype)
    assert np.ndim(v) == 0


def test_grad_and_value_has_aux(dtype, rng):
    x = rand(rng, (4,), dtype)

    def f(x):
        return np.sum(np.cos(x)), (x * 2, np.max(x))

    g, (v, aux) = grad_and_value(f, has_aux=True)(x)
    (rv, raux), rg = jax.jit(
        jax.value_and_grad(lambda x: (jnp.sum(jnp.cos(x)), (x * 2, jnp.max(x))), has_aux=True)
    )(f64(x))
    close(g, np.asarray(rg), dtype)
    close(v, np.asarray(rv), dtype)
    close(aux, np_tree(raux), dtype)


# ======================================================================================
# vjp
# ======================================================================================


def test_vjp_basic_and_called_twice(dtype, rng):
    x, y = rand(rng, (3,), dtype), rand(rng, (3, 2), dtype)

    def f(x, y):
        return np.tanh(x @ y) * np.sum(x)

    def fj(x, y):
        return jnp.tanh(x @ y) * jnp.sum(x)

    out, vjp_fn = vjp(f, x, y)
    rout, rvjp = jax.vjp(fj, *f64((x, y)))
    close(out, np.asarray(rout), dtype)
    ct1, ct2 = rand(rng, (2,), dtype), rand(rng, (2,), dtype)
    r1 = vjp_fn(ct1)
    assert isinstance(r1, tuple) and len(r1) == 2
    close(r1, np_tree(rvjp(f64(ct1))), dtype)
    # a second and third call: same recorded computation, new cotangents
    close(vjp_fn(ct2), np_tree(rvjp(f64(ct2))), dtype)
    close(vjp_fn(ct1), r1, dtype)


def test_vjp_pytree_in_and_out(dtype, rng):
    p = {"a": rand(rng, (3,), dtype), "b": [rand(rng, (2,), dtype), rand(rng, (), dtype)]}

    def make(xp):
        def f(p):
            s = xp.sum(p["a"] ** 2) * p["b"][1]
            return Point(a=xp.sin(p["a"]) * s, b={"u": p["b"][0] * s, "v": s})

        return f

    out, vjp_fn = vjp(make(np), p)
    rout, rvjp = jax.vjp(make(jnp), f64(p))
    close(out, np_tree(rout), dtype)
    ct = Point(a=rand(rng, (3,), dtype), b={"u": rand(rng, (2,), dtype), "v": rand(rng, (), dtype)})
    close(vjp_fn(ct), np_tree(rvjp(f64(ct))), dtype)


def test_vjp_has_aux(dtype, rng):
    x = rand(rng, (3,), dtype)
    out, vjp_fn, aux = vjp(lambda x: (np.exp(x), {"m": np.max(x)}), x, has_aux=True)
    close(out, np.exp(x), dtype)
    close(aux, {"m": np.max(x)}, dtype)
    ct = rand(rng, (3,), dtype)
    close(vjp_fn(ct), (ct * np.exp(x),), dtype)


def test_vjp_fn_under_vmap_gives_jacobian_rows(dtype, rng):
    x = rand(rng, (3,), dtype)
    w = rand(rng, (4, 3), dtype)

    def f(x):
        return np.tanh(w @ x)

    _, vjp_fn = vjp(f, x)
    (jac,) = vmap(vjp_fn)(np.eye(4, dtype=dtype))
    close(jac, np.asarray(jax.jit(jax.jacrev(lambda x: jnp.tanh(f64(w) @ x)))(f64(x))), dtype)


# ======================================================================================
# jvp / linearize
# ======================================================================================


def test_jvp_basic(dtype, rng):
    x, y = rand(rng, (3,), dtype), rand(rng, (3,), dtype)
    tx, ty = rand(rng, (3,), dtype), rand(rng, (3,), dtype)
    out, t = jvp(lambda x, y: np.sin(x) * np.exp(y), (x, y), (tx, ty))
    rout, rt = jax.jit(lambda p, t: jax.jvp(lambda x, y: jnp.sin(x) * jnp.exp(y), p, t))(
        f64((x, y)), f64((tx, ty))
    )
    close(out, np.asarray(rout), dtype)
    close(t, np.asarray(rt), dtype)


def test_jvp_pytrees(dtype, rng):
    p = {"w": rand(rng, (2, 3), dtype), "b": rand(rng, (2,), dtype)}
    x = rand(rng, (3,), dtype)
    tp = {"w": rand(rng, (2, 3), dtype), "b": rand(rng, (2,), dtype)}
    tx = rand(rng, (3,), dtype)

    def make(xp):
        def f(p, x):
            h = xp.tanh(p["w"] @ x + p["b"])
            return {"h": h, "loss": (xp.sum(h**2), [h[0]])}

        return f

    out, t = jvp(make(np), (p, x), (tp, tx))
    rout, rt = jax.jit(lambda p, t: jax.jvp(make(jnp), p, t))(f64((p, x)), f64((tp, tx)))
    close(out, np_tree(rout), dtype)
    close(t, np_tree(rt), dtype)


def test_jvp_has_aux(dtype, rng):
    x, tx = rand(rng, (3,), dtype), rand(rng, (3,), dtype)
    out, t, aux = jvp(lambda x: (np.cos(x), x * 2), (x,), (tx,), has_aux=True)
    close(out, np.cos(x), dtype)
    close(t, -np.sin(x) * tx, dtype)
    close(aux, x * 2, dtype)


def test_jvp_output_not_depending_on_input(dtype, rng):
    x, tx = rand(rng, (3,), dtype), rand(rng, (3,), dtype)
    c = rand(rng, (2,), dtype)
    out, t = jvp(lambda x: (c * 2, np.sum(x)), (x,), (tx,))
    close(out, (c * 2, np.sum(x)), dtype)
    close(t, (np.zeros_like(c), np.sum(tx)), dtype)


def test_linearize_matches_jvp_and_runs_once(dtype, rng):
    x, y = rand(rng, (4,), dtype), rand(rng, (4,), dtype)
    calls = []

    def f(x, y):
        calls.append(1)
        return {"a": np.tanh(x * y), "b": np.sum(np.exp(x) * y)}

    out, jvp_fn = linearize(f, x, y)
    assert len(calls) == 1
    rout, rjvp_fn = jax.linearize(
        lambda x, y: {"a": jnp.tanh(x * y), "b": jnp.sum(jnp.exp(x) * y)}, *f64((x, y))
    )
    close(out, np_tree(rout), dtype)
    for _ in range(3):
        tx, ty = rand(rng, (4,), dtype), rand(rng, (4,), dtype)
        t = jvp_fn(tx, ty)
        close(t, np_tree(rjvp_fn(*f64((tx, ty)))), dtype)
        calls_before = len(calls)
        close(t, jvp(f, (x, y), (tx, ty))[1], dtype)
        assert len(calls) == calls_before + 1
    assert len(calls) == 4  # jvp_fn itself never re-ran f


def test_linearize_jvp_fn_under_vmap(dtype, rng):
    x = rand(rng, (3,), dtype)
    tangents = rand(rng, (4, 3), dtype)
    _, jvp_fn = linearize(lambda x: np.sin(x) * np.sum(x), x)
    out = vmap(jvp_fn)(tangents)
    close(out, np.stack([jvp_fn(t) for t in tangents]), dtype)
    ref = jax.vmap(lambda t: jax.jvp(lambda x: jnp.sin(x) * jnp.sum(x), (f64(x),), (t,))[1])(
        f64(tangents)
    )
    close(out, np.asarray(ref), dtype)


# ======================================================================================
# jacrev / jacfwd / hessian
# ======================================================================================

JACS = [
    (jacrev, lambda *a, **k: jax.jit(jax.jacrev(*a, **k))),
    (jacfwd, lambda *a, **k: jax.jit(jax.jacfwd(*a, **k))),
]
JAC_IDS = ["jacrev", "jacfwd"]


@pytest.mark.parametrize("ours,theirs", JACS, ids=JAC_IDS)
def test_jac_basic(ours, theirs, dtype, rng):
    x = rand(rng, (3,), dtype)
    w, b = rand(rng, (4, 3), dtype), rand(rng, (4,), dtype)
    jac = ours(lambda x: np.tanh(w @ x + b))(x)
    ref = theirs(lambda x: jnp.tanh(f64(w) @ x + f64(b)))(f64(x))
    close(jac, np.asarray(ref), dtype)


@pytest.mark.parametrize("ours,theirs", JACS, ids=JAC_IDS)
@pytest.mark.parametrize("argnums", [1, -1, (0, 1), (1, 0), (0, 2)])
def test_jac_argnums(ours, theirs, argnums, dtype, rng):
    args = (rand(rng, (3,), dtype), rand(rng, (2, 3), dtype), rand(rng, (), dtype))

    def make(xp):
        return lambda x, w, s: xp.sin(w @ x) * s + xp.sum(x) * s

    jac = ours(make(np), argnums=argnums)(*args)
    ref = theirs(make(jnp), argnums=argnums)(*f64(args))
    close(jac, np_tree(ref), dtype)


@pytest.mark.parametrize("ours,theirs", JACS, ids=JAC_IDS)
def test_jac_pytree_inputs_and_outputs_nest_like_jax(ours, theirs, dtype, rng):
    p = {"w": rand(rng, (2, 3), dtype), "b": rand(rng, (2,), dtype)}
    x = rand(rng, (3,), dtype)

    def make(xp):
        def f(p, x):
            h = xp.tanh(p["w"] @ x + p["b"])
            return (h, {"s": xp.sum(h**2), "x": x * h[0]})

        return f

    jac = ours(make(np), argnums=(0, 1))(p, x)
    ref = theirs(make(jnp), argnums=(0, 1))(*f64((p, x)))
    close(jac, np_tree(ref), dtype)  # checks nesting: output structure outer, inputs inner
    assert jac[0][0]["w"].shape == (2, 2, 3)
    assert jac[1]["s"][1].shape == (3,)


@pytest.mark.parametrize("ours,theirs", JACS, ids=JAC_IDS)
def test_jac_scalar_input_and_output(ours, theirs, dtype, rng):
    x = rand(rng, (3,), dtype)
    s = np.asarray(0.3, dtype=dtype)
    close(ours(lambda x: np.sum(np.sin(x)))(x), np.cos(x), dtype)
    close(ours(lambda s: np.exp(s * x))(s), x * np.exp(s * x), dtype)
    close(ours(lambda s: s**3)(s), np.asarray(3 * s**2), dtype)


@pytest.mark.parametrize("ours,theirs", JACS, ids=JAC_IDS)
def test_jac_has_aux(ours, theirs, dtype, rng):
    x = rand(rng, (3,), dtype)
    jac, aux = ours(lambda x: (np.sin(x) * x[0], {"c": np.cos(x)}), has_aux=True)(x)
    rjac, raux = theirs(lambda x: (jnp.sin(x) * x[0], {"c": jnp.cos(x)}), has_aux=True)(f64(x))
    close(jac, np.asarray(rjac), dtype)
    close(aux, np_tree(raux), dtype)


@pytest.mark.parametrize("ours,theirs", JACS, ids=JAC_IDS)
def test_jac_of_output_independent_of_input_is_zero(ours, theirs, dtype, rng):
    x = rand(rng, (2,), dtype)
    c = rand(rng, (3,), dtype)
    close(ours(lambda x: c * 2)(x), np.zeros((3, 2), dtype), dtype)
    close(ours(lambda x: (c, x[0]), argnums=0)(x), (np.zeros((3, 2)), np.eye(2)[0]), dtype)


@pytest.mark.parametrize("chunk_size", [1, 2, 5, 100])
def test_jacrev_chunk_size(chunk_size, dtype, rng):
    x = rand(rng, (3,), dtype)
    w = rand(rng, (5, 3), dtype)

    def f(x):
        return np.tanh(w @ x), np.sum(x**2)

    jac = jacrev(f, chunk_size=chunk_size)(x)
    close(jac, jacrev(f)(x), dtype)
    close(
        jac,
        np_tree(jax.jit(jax.jacrev(lambda x: (jnp.tanh(f64(w) @ x), jnp.sum(x**2))))(f64(x))),
        dtype,
    )


def test_jacfwd_matrix_input(dtype, rng):
    x = rand(rng, (2, 3), dtype)
    jac = jacfwd(lambda x: x @ x.T)(x)
    close(jac, np.asarray(jax.jit(jax.jacfwd(lambda x: x @ x.T))(f64(x))), dtype)
    assert jac.shape == (2, 2, 2, 3)


def test_hessian(dtype, rng):
    x = rand(rng, (4,), dtype)
    a = rand(rng, (4, 4), dtype)

    def make(xp):
        return lambda x: xp.sum(xp.tanh(a @ x) ** 2) + x[0] * xp.sum(x**3)

    h = hessian(make(np))(x)
    close(h, np.asarray(jax.jit(jax.hessian(make(jnp)))(f64(x))), dtype)
    close(h, h.T, dtype)


def test_hessian_argnums_tuple_nests_like_jax(dtype, rng):
    x, y = rand(rng, (3,), dtype), rand(rng, (2,), dtype)
    m = rand(rng, (2, 3), dtype)

    def make(xp):
        return lambda x, y: xp.sum(xp.sin(m @ x) * y**2)

    h = hessian(make(np), argnums=(0, 1))(x, y)
    close(h, np_tree(jax.jit(jax.hessian(make(jnp), argnums=(0, 1)))(*f64((x, y)))), dtype)


def test_hessian_pytree_input(dtype, rng):
    p = {"a": rand(rng, (2,), dtype), "b": rand(rng, (), dtype)}

    def make(xp):
        return lambda p: xp.sum(xp.exp(p["a"] * p["b"])) + p["b"] ** 3

    h = hessian(make(np))(p)
    close(h, np_tree(jax.jit(jax.hessian(make(jnp)))(f64(p))), dtype)
