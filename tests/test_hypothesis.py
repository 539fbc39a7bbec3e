"""Property tests: hypothesis draws shapes, batch axes and stacks of transforms.

* ``vmap`` with drawn ``in_dims``/``out_dims`` against a Python loop-and-stack;
* random compositions of ``grad``/``vmap``/``jvp`` over elementwise + reduction functions
  against the same composition in JAX (float64, x64 enabled).

The profile (``ci``: derandomized, ~30 examples; ``explore``: many more) is chosen in
``conftest.py`` from ``FTRANSFORMS_HYPOTHESIS_PROFILE``.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import optree
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ftransforms
from tests.tolerances import assert_tree_close as _assert_tree_close
from tests.tolerances import tol

# what a transform returns must be a numpy.ndarray (see tolerances.assert_tree_close)
assert_tree_close = functools.partial(_assert_tree_close, strict=True)

DTYPES = st.sampled_from([np.dtype(np.float32), np.dtype(np.float64)])


def arrays(dtype, shape):
    """Bounded, finite values (well-conditioned for float32)."""
    return hnp.arrays(
        dtype,
        shape,
        elements=st.floats(-2, 2, width=dtype.itemsize * 8, allow_subnormal=False),
    )


def loop_vmap(f, args, in_dims, size, out_dim):
    outs = []
    for i in range(size):
        outs.append(f(*[a if d is None else np.take(a, i, axis=d) for a, d in zip(args, in_dims)]))
    return optree.tree_map(lambda *xs: np.stack(xs, axis=out_dim), *outs)


def batched(draw, dtype, logical_shape, size, allow_none=True):
    """Draw an in_dim (None, or an axis counted from either end) and the matching array."""
    rank = len(logical_shape) + 1
    choices = [None] if allow_none else []
    choices += list(range(-rank, rank))
    d = draw(st.sampled_from(choices))
    if d is None:
        return d, draw(arrays(dtype, logical_shape))
    axis = d % rank
    shape = logical_shape[:axis] + (size,) + logical_shape[axis:]
    return d, draw(arrays(dtype, shape))


# -- vmap vs a loop --------------------------------------------------------------------------

UNARY = {
    "sin_times_sum": lambda x: np.sin(x) * np.sum(x**2),
    "softmax": lambda x: np.exp(x - np.max(x)) / np.sum(np.exp(x - np.max(x))),
    "tanh_mean": lambda x: np.tanh(x) - np.mean(x),
    "reshape_T": lambda x: np.reshape(x.T, (-1,)) * 2.0,
    "where_max": lambda x: np.where(x > 0, x, np.maximum(x, -0.5) * 3),
}


@given(data=st.data(), dtype=DTYPES, name=st.sampled_from(sorted(UNARY)))
def test_vmap_unary_in_and_out_dims(data, dtype, name):
    f = UNARY[name]
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, max_side=3), label="shape")
    size = data.draw(st.integers(1, 4), label="size")
    in_dim, x = batched(data.draw, dtype, shape, size, allow_none=False)
    out_rank = len(np.shape(f(np.zeros(shape, dtype)))) + 1
    out_dim = data.draw(st.integers(-out_rank, out_rank - 1), label="out_dim")
    out = ftransforms.vmap(f, in_dims=in_dim, out_dims=out_dim)(x)
    expected = loop_vmap(f, (x,), (in_dim % x.ndim,), size, out_dim % out_rank)
    assert_tree_close(out, expected, dtype=dtype, **tol(dtype))


@given(data=st.data(), dtype=DTYPES)
def test_vmap_binary_broadcasting(data, dtype):
    def f(x, y):
        return x * np.tanh(y) + np.sum(y, axis=-1, keepdims=True)

    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, max_side=3), label="shape")
    # y's logical shape broadcasts against x's: some leading axes dropped, some set to 1
    drop = data.draw(st.integers(0, len(shape) - 1), label="drop")
    y_shape = tuple(1 if data.draw(st.booleans(), label="ones") else n for n in shape[drop:])
    size = data.draw(st.integers(1, 3), label="size")
    dx, x = batched(data.draw, dtype, shape, size)
    dy, y = batched(data.draw, dtype, y_shape, size, allow_none=dx is not None)
    out = ftransforms.vmap(f, in_dims=(dx, dy))(x, y)
    dims = (None if dx is None else dx % x.ndim, None if dy is None else dy % y.ndim)
    assert_tree_close(out, loop_vmap(f, (x, y), dims, size, 0), dtype=dtype, **tol(dtype))


@given(data=st.data(), dtype=DTYPES)
def test_vmap_reduction_axis_and_matmul(data, dtype):
    n, k, m = (data.draw(st.integers(1, 3), label="nkm") for _ in range(3))
    axis = data.draw(st.sampled_from([0, 1, -1, -2, None, (0, 1)]), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")

    def f(a, b):
        c = np.tanh(a @ b)
        return np.sum(c, axis=axis, keepdims=keepdims), np.max(a, axis=0) @ b

    size = data.draw(st.integers(1, 3), label="size")
    da, a = batched(data.draw, dtype, (n, k), size)
    db, b = batched(data.draw, dtype, (k, m), size, allow_none=da is not None)
    out_dims = data.draw(st.tuples(st.sampled_from([0, -1]), st.sampled_from([0, 1])))
    out = ftransforms.vmap(f, in_dims=(da, db), out_dims=out_dims)(a, b)
    dims = (None if da is None else da % 3, None if db is None else db % 3)
    outs = [
        f(*[v if d is None else np.take(v, i, axis=d) for v, d in zip((a, b), dims)])
        for i in range(size)
    ]
    expected = tuple(np.stack([o[j] for o in outs], axis=out_dims[j]) for j in range(2))
    assert_tree_close(out, expected, dtype=dtype, **tol(dtype))


@given(data=st.data(), dtype=DTYPES)
def test_vmap_pytree_in_dims(data, dtype):
    size = data.draw(st.integers(1, 3), label="size")
    dw, w = batched(data.draw, dtype, (2, 3), size)
    db, b = batched(data.draw, dtype, (3,), size)
    dx, x = batched(data.draw, dtype, (2,), size, allow_none=dw is not None or db is not None)

    def f(p, x):
        return {"y": np.tanh(x @ p["w"] + p["b"]), "n": np.sum(p["w"] ** 2)}

    out = ftransforms.vmap(f, in_dims=({"w": dw, "b": db}, dx))(({"w": w, "b": b}), x)
    norm = [None if d is None else d % v.ndim for d, v in ((dw, w), (db, b), (dx, x))]
    outs = []
    for i in range(size):
        wi, bi, xi = (v if d is None else np.take(v, i, axis=d) for v, d in zip((w, b, x), norm))
        outs.append(f({"w": wi, "b": bi}, xi))
    expected = optree.tree_map(lambda *xs: np.stack(xs), *outs)
    assert_tree_close(out, expected, dtype=dtype, **tol(dtype))


# -- random compositions vs JAX ----------------------------------------------------------------


def base_functions(xp):
    return {
        "sin_sum": lambda x: xp.sin(x) * xp.sum(x**2),
        "tanh_mean_exp": lambda x: xp.tanh(x) * xp.mean(xp.exp(-(x**2))),
        "log1p_max": lambda x: xp.log1p(x**2) + xp.max(x) * x,
        "softmax": lambda x: xp.exp(x - xp.max(x)) / xp.sum(xp.exp(x - xp.max(x))),
        "prod_cos": lambda x: xp.cos(x) * xp.prod(1 + 0.1 * x),
    }


LAYERS = ("grad", "vmap", "jvp")


def compose(T, xp, name, layers, in_dims):
    """Stack ``layers`` (innermost first) over a base function of one array.

    grad: x -> grad(sum(F))(x); jvp: x -> F(x) + J_F(x) sin(x); vmap: maps F over an
    extra axis of x (at in_dims[i]) and stacks the outputs on axis 0.
    """
    f = base_functions(xp)[name]
    dims = iter(in_dims)
    for layer in layers:
        if layer == "grad":
            f = T.grad(lambda x, f=f: xp.sum(f(x)))
        elif layer == "jvp":

            def f(x, g=f):
                out, t = T.jvp(g, (x,), (xp.sin(x),))
                return out + t

        else:
            f = T.vmap(f, in_dims=next(dims))
    return f


class JaxT:
    grad = staticmethod(jax.grad)

    @staticmethod
    def vmap(f, in_dims=0):
        return jax.vmap(f, in_axes=in_dims)

    @staticmethod
    def jvp(f, primals, tangents):
        return jax.jvp(f, primals, tangents)


@given(
    data=st.data(),
    dtype=DTYPES,
    name=st.sampled_from(sorted(base_functions(np))),
    layers=st.lists(st.sampled_from(LAYERS), min_size=1, max_size=3),
)
def test_random_compositions_match_jax(data, dtype, name, layers):
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=2, max_side=3), label="shape")
    in_dims = []
    for layer in layers:
        if layer == "vmap":  # the input grows an axis of this size at a drawn position
            size = data.draw(st.integers(1, 3), label="size")
            d = data.draw(st.integers(-len(shape) - 1, len(shape)), label="in_dim")
            axis = d % (len(shape) + 1)
            shape = shape[:axis] + (size,) + shape[axis:]
            in_dims.append(d)
    x = data.draw(
        hnp.arrays(dtype, shape, elements=st.floats(-1, 1, width=dtype.itemsize * 8)),
        label="x",
    )
    out = compose(ftransforms, np, name, layers, in_dims)(x)
    if layers[-1] == "jvp":  # out + t is the test's own numpy arithmetic on 0-d arrays
        out = np.asarray(out)
    ref = jax.jit(compose(JaxT, jnp, name, layers, in_dims))(x.astype(np.float64))
    assert_tree_close(out, np.asarray(ref), dtype=dtype, **tol(dtype))
