"""chunk_size of jacrev, jacfwd and hessian: the same Jacobians as without chunks (and as
JAX), uneven last chunks, pytrees and argnums tuples, and peak memory bounded by the
chunk (tracemalloc): each chunk's basis rows are built inside the chunk loop."""

from __future__ import annotations

import functools
import tracemalloc

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ftransforms as ft
from ftransforms.core.stack import current_stack
from ftransforms.errors import ChunkSizeError
from ftransforms.strict_backend import StrictArray, asarray, to_numpy
from tests.tolerances import assert_tree_close, tol

jax.config.update("jax_enable_x64", True)

RNG = np.random.default_rng(7)
A = RNG.normal(size=(5, 4))
X = RNG.normal(size=4)
Y = RNG.normal(size=(2, 3))

# chunk sizes: one row at a time, uneven last chunk, exact divisor, all at once and beyond
CHUNKS = [1, 3, 2, 7, 1000]


def _np(tree):
    return jax.tree_util.tree_map(np.asarray, tree)


@functools.cache
def oracle(name: str):
    """JAX's result for one case, computed once (jitted: one compile instead of one per
    primitive in eager JAX)."""
    cases = {
        "vec": lambda: jax.jacrev(jvec)(X),
        "tree": lambda: jax.jacrev(jtree_fn, argnums=(0, 1))(X, Y),
        "tree1": lambda: jax.jacrev(jtree_fn, argnums=1)(X, Y),
        "hessian": lambda: jax.hessian(jscalar, argnums=(0, 1))(X, Y),
    }
    return _np(jax.jit(cases[name])())


def vec(x):
    return np.sin(A.astype(x.dtype) @ x) * x.sum()


def jvec(x):
    return jnp.sin(A @ x) * x.sum()


def tree_fn(x, y):
    """Two inputs (a vector and a matrix), a dict of outputs of different shapes."""
    h = np.tanh(A @ x)
    return {"h": h, "m": np.cos(y) * h[:3].sum(), "s": (h * h).sum() + (y**2).sum()}


def jtree_fn(x, y):
    h = jnp.tanh(A @ x)
    return {"h": h, "m": jnp.cos(y) * h[:3].sum(), "s": (h * h).sum() + (y**2).sum()}


def scalar(x, y):
    return np.sum(np.tanh(A.astype(x.dtype) @ x) ** 2) * np.sum(np.sin(y)) + np.prod(x[:2])


def jscalar(x, y):
    return jnp.sum(jnp.tanh(A @ x) ** 2) * jnp.sum(jnp.sin(y)) + jnp.prod(x[:2])


@pytest.mark.parametrize("chunk", CHUNKS)
@pytest.mark.parametrize("name", ["jacrev", "jacfwd"])
def test_vector_function(name, chunk, dtype):
    x = X.astype(dtype)
    ours = getattr(ft, name)
    got = ours(vec, chunk_size=chunk)(x)
    assert got.dtype == dtype and got.shape == (5, 4)
    # not bitwise: BLAS may sum in another order for another batch size
    assert_tree_close(got, ours(vec)(x), **tol(dtype))
    assert_tree_close(got, oracle("vec"), **tol(dtype))


@pytest.mark.parametrize("chunk", CHUNKS)
@pytest.mark.parametrize("name", ["jacrev", "jacfwd"])
def test_pytrees_and_argnums_tuple(name, chunk):
    ours = getattr(ft, name)
    got = ours(tree_fn, argnums=(0, 1), chunk_size=chunk)(X, Y)
    assert_tree_close(got, ours(tree_fn, argnums=(0, 1))(X, Y), **tol(np.float64))
    assert_tree_close(got, oracle("tree"), **tol(np.float64))
    got1 = ours(tree_fn, argnums=1, chunk_size=chunk)(X, Y)
    assert_tree_close(got1, oracle("tree1"), **tol(np.float64))


@pytest.mark.parametrize("chunk", [1, 4, 5])
@pytest.mark.parametrize("name", ["jacrev", "jacfwd"])
def test_has_aux(name, chunk):
    def f(x):
        return vec(x), {"norm": np.linalg.norm(x)}

    got, aux = getattr(ft, name)(f, has_aux=True, chunk_size=chunk)(X)
    assert_tree_close(got, oracle("vec"), **tol(np.float64))
    assert_tree_close(aux, {"norm": np.asarray(np.linalg.norm(X))}, **tol(np.float64))


@pytest.mark.parametrize("chunk", [1, 5, 6, 100])
def test_hessian(chunk, dtype):
    x, y = X.astype(dtype), Y.astype(dtype)
    got = ft.hessian(scalar, argnums=(0, 1), chunk_size=chunk)(x, y)
    assert_tree_close(got, ft.hessian(scalar, argnums=(0, 1))(x, y), **tol(dtype))
    assert_tree_close(got, oracle("hessian"), **tol(dtype))


def test_hessian_of_a_dict_input():
    def f(p):
        return np.sum(np.tanh(A @ p["x"]) * p["b"]) ** 2

    def jf(p):
        return jnp.sum(jnp.tanh(A @ p["x"]) * p["b"]) ** 2

    p = {"x": X, "b": np.linspace(0.1, 0.5, 5)}
    got = ft.hessian(f, chunk_size=4)(p)
    assert_tree_close(got, _np(jax.jit(jax.hessian(jf))(p)), **tol(np.float64))


@pytest.mark.parametrize("name", ["jacrev", "jacfwd"])
def test_under_vmap(name):
    xs = RNG.normal(size=(3, 4))
    got = ft.vmap(getattr(ft, name)(vec, chunk_size=3))(xs)
    want = jax.jit(jax.vmap(jax.jacrev(jvec)))(xs)
    assert_tree_close(got, np.asarray(want), **tol(np.float64))


def test_jacfwd_of_chunked_jacrev():
    got = ft.jacfwd(ft.jacrev(vec, chunk_size=2), chunk_size=3)(X)
    assert_tree_close(got, np.asarray(jax.jit(jax.jacfwd(jax.jacrev(jvec)))(X)), **tol(np.float64))


def test_jacfwd_randomness_same_is_one_draw_across_chunks():
    def noisy(x):
        return x * ft.random.normal(np.random.default_rng(0), size=x.shape)

    whole = ft.jacfwd(noisy, randomness="same")(X)
    chunked = ft.jacfwd(noisy, randomness="same", chunk_size=3)(X)
    np.testing.assert_array_equal(chunked, whole)
    np.testing.assert_array_equal(chunked, np.diag(np.diag(chunked)))


def test_empty_output_and_empty_input():
    assert ft.jacrev(lambda x: x[:0], chunk_size=2)(X).shape == (0, 4)
    assert ft.jacfwd(lambda x: x.sum() * np.ones(3), chunk_size=2)(np.zeros(0)).shape == (3, 0)


def test_strict_backend():
    a = asarray(A)

    def f(x):
        return np.sin(a @ x) * x.sum()

    for name in ("jacrev", "jacfwd"):
        got = getattr(ft, name)(f, chunk_size=3)(asarray(X))
        assert isinstance(got, StrictArray)
        np.testing.assert_allclose(to_numpy(got), ft.jacrev(vec)(X), **tol(np.float64))
    h = ft.hessian(lambda x: (np.tanh(a @ x) ** 2).sum(), chunk_size=3)(asarray(X))
    assert isinstance(h, StrictArray)
    want = ft.hessian(lambda x: (np.tanh(A @ x) ** 2).sum())(X)
    np.testing.assert_allclose(to_numpy(h), want, **tol(np.float64))


# -- memory ---------------------------------------------------------------------------------


def _peak_bytes(fn, *args):
    tracemalloc.start()
    try:
        out = fn(*args)
        return tracemalloc.get_traced_memory()[1], out
    finally:
        tracemalloc.stop()


def test_jacrev_chunked_peak_is_below_the_unchunked_one():
    # 2000 outputs, 8 inputs: the whole basis alone is 2000 x 2000 (32 MB); a chunk of 50
    # rows is 50 x 2000, and the Jacobian itself 2000 x 8.
    a = RNG.normal(size=(2000, 8))
    x = RNG.normal(size=8)

    def f(x):
        return np.tanh(a @ x)

    whole_peak, whole = _peak_bytes(ft.jacrev(f), x)
    chunk_peak, chunked = _peak_bytes(ft.jacrev(f, chunk_size=50), x)
    np.testing.assert_allclose(chunked, whole, **tol(np.float64))
    assert chunk_peak < 0.1 * whole_peak, (chunk_peak, whole_peak)
    assert chunk_peak < 2_000 * 2_000 * 8 / 4  # far from one whole basis


def test_jacfwd_chunked_peak_is_below_the_unchunked_one():
    b = RNG.normal(size=(8, 2000))
    x = RNG.normal(size=2000)

    def f(x):
        return np.tanh(b @ x)

    whole_peak, whole = _peak_bytes(ft.jacfwd(f), x)
    chunk_peak, chunked = _peak_bytes(ft.jacfwd(f, chunk_size=50), x)
    np.testing.assert_allclose(chunked, whole, **tol(np.float64))
    assert chunk_peak < 0.1 * whole_peak, (chunk_peak, whole_peak)


def test_hessian_chunked_peak_is_below_the_unchunked_one():
    # the Hessian-vector products of a wide layer: each one holds (n, 400) temporaries
    c = RNG.normal(size=(400, 150)) / 20
    x = RNG.normal(size=150)

    def f(x):
        return np.sum(np.tanh(c @ x) ** 2)

    whole_peak, whole = _peak_bytes(ft.hessian(f), x)
    chunk_peak, chunked = _peak_bytes(ft.hessian(f, chunk_size=15), x)
    np.testing.assert_allclose(chunked, whole, **tol(np.float64))
    assert chunk_peak < 0.5 * whole_peak, (chunk_peak, whole_peak)


# -- errors ---------------------------------------------------------------------------------

BAD = [0, -2, 1.5, True, "3"]


@pytest.mark.parametrize("bad", BAD)
@pytest.mark.parametrize("name", ["jacrev", "jacfwd", "hessian"])
def test_bad_chunk_size(name, bad):
    with pytest.raises(ChunkSizeError) as e:
        getattr(ft, name)(vec, chunk_size=bad)
    msg = str(e.value)
    assert msg.startswith(f"{name}(vec, chunk_size={bad!r}): chunk_size must be None or a ")
    assert "positive int" in msg and "chunk_size=None" in msg
    assert current_stack() == ()


@pytest.mark.parametrize("name", ["jacrev", "jacfwd", "hessian"])
def test_chunk_size_is_keyword_only(name):
    # the positional parameters are JAX's: jacrev(f, argnums, has_aux, holomorphic,
    # allow_int), jacfwd/hessian(f, argnums, has_aux, holomorphic)
    n_flags = 3 if name == "jacrev" else 2
    with pytest.raises(TypeError):
        getattr(ft, name)(vec, 0, *([False] * n_flags), 2)
