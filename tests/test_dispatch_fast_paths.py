"""The dispatch fast paths against the general ones they shortcut.

``Primitive.bind`` decides one- and two-argument calls by the arguments' types (NOTE [bind
fast paths]), ``BatchInterpreter.process`` applies the elementwise family rule's fast path
inline (NOTE [elementwise under vmap]) and ``ReverseInterpreter`` records one- and
two-input nodes without lists.  Oracles: the family rule itself (called directly), a
Python loop for ``vmap``, finite differences in float64 for ``grad``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import ftransforms.numpy as fnp
from batching_rules.elementwise import elementwise
from ftransforms import grad, jvp, vjp, vmap
from ftransforms.core.errors import EscapedTracerError
from ftransforms.core.primitive import _PLAIN_TYPES
from ftransforms.core.tracer import TRACER_TYPES
from ftransforms.interpreters.batching import BatchTracer
from ftransforms.interpreters.forward import DualTracer
from ftransforms.interpreters.reverse import ReverseTracer
from ftransforms.lax import normalize_axes
from ftransforms.ops.elementwise import add_p, multiply_p, subtract_p
from ftransforms.ops.shape import transpose_p

RNG = np.random.default_rng(0)


def test_tracer_types_are_registered_and_never_plain():
    assert {BatchTracer, DualTracer, ReverseTracer} <= TRACER_TYPES
    assert not TRACER_TYPES & _PLAIN_TYPES


# -- elementwise under vmap: every placement of a batched and an unbatched operand ------

SHAPES = [(), (3,), (2, 3), (4, 2, 3)]


def _batched(shape, bdim, size=5):
    x = RNG.standard_normal(shape[:bdim] + (size,) + shape[bdim:])
    return x


@pytest.mark.parametrize("prim", [add_p, subtract_p, multiply_p], ids=lambda p: p.name)
@pytest.mark.parametrize("a_shape", SHAPES[1:], ids=str)
@pytest.mark.parametrize("b_shape", SHAPES, ids=str)
def test_batched_with_unbatched_matches_loop(prim, a_shape, b_shape):
    b = RNG.standard_normal(b_shape)
    for bdim, swap in itertools.product(range(len(a_shape) + 1), (False, True)):
        a = _batched(a_shape, bdim)
        f = (lambda u: prim(b, u)) if swap else (lambda u: prim(u, b))
        got = vmap(f, in_dims=bdim)(a)
        want = np.stack([f(np.take(a, i, axis=bdim)) for i in range(5)])
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("a_shape", SHAPES, ids=str)
@pytest.mark.parametrize("b_shape", SHAPES, ids=str)
def test_two_batched_values_match_loop(a_shape, b_shape):
    for da, db in itertools.product(range(len(a_shape) + 1), range(len(b_shape) + 1)):
        a, b = _batched(a_shape, da), _batched(b_shape, db)
        got = vmap(multiply_p, in_dims=(da, db))(a, b)
        want = np.stack([np.take(a, i, axis=da) * np.take(b, i, axis=db) for i in range(5)])
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("scalar", [2, 2.5, True, 1 + 2j, np.float32(2.5)], ids=repr)
def test_scalars_keep_numpy_promotion(scalar):
    a = RNG.standard_normal((5, 3)).astype(np.float32)
    for f in (lambda u: multiply_p(u, scalar), lambda u: subtract_p(scalar, u)):
        got = vmap(f)(a)
        want = np.stack([f(row) for row in a])
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_inline_path_agrees_with_the_family_rule():
    """The inline fast path returns what the rule returns, batch axis included."""
    a = _batched((2, 3), 1)
    bias = RNG.standard_normal(3)
    captured = {}

    def f(u):
        out = add_p(u, bias)
        captured["bdim"] = out.bdim
        return out

    vmap(f, in_dims=1, out_dims=1)(a)
    out, bdim = elementwise(add_p, [a, bias], [1, None], 5)
    assert captured["bdim"] == bdim
    got = vmap(lambda u: add_p(u, bias), in_dims=1, out_dims=bdim)(a)
    np.testing.assert_array_equal(got, out)


def test_nested_vmap_levels():
    x = RNG.standard_normal((4, 5, 3))
    y = RNG.standard_normal((5, 3))
    got = vmap(vmap(lambda u, v: u * v + 1.0, in_dims=(0, 0)), in_dims=(0, None))(x, y)
    np.testing.assert_array_equal(got, x * y + 1.0)
    # the inner level's tracer meets the outer's: dispatch goes to the higher level
    got = vmap(lambda u: vmap(lambda v: u - v)(y))(x[:, 0])
    np.testing.assert_array_equal(got, x[:, 0][:, None, :] - y[None])


# -- bind: escaped tracers and object arrays on the two-argument paths -----------------


def test_escaped_tracer_raises_on_every_arity():
    leaked = []
    vmap(lambda u: leaked.append(u) or u)(np.ones((2, 3)))
    (t,) = leaked
    for call in (
        lambda: fnp.sin(t),
        lambda: multiply_p(t, 2.0),
        lambda: multiply_p(np.ones(3), t),
        lambda: multiply_p(t, t),
        lambda: fnp.where(t > 0, t, 1.0),
    ):
        with pytest.raises(EscapedTracerError):
            call()


def test_object_array_with_a_tracer_is_no_constant():
    def f(u):
        return multiply_p(np.array([u[0], 1.0], dtype=object), u[1])

    g = grad(lambda u: fnp.sum(f(u)))(np.array([2.0, 3.0]))
    np.testing.assert_allclose(g, [3.0, 3.0])


# -- reverse mode: one-, two- and three-input nodes, transposes ------------------------


def _fd_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


def test_grad_through_unary_binary_ternary_and_transpose():
    w = RNG.standard_normal((3, 4))

    def f(x):
        h = np.tanh(x @ w)  # matmul (two inputs), tanh (one)
        h = fnp.where(h > 0, h, 0.1 * h)  # select (three inputs)
        h = transpose_p(h.reshape(2, 2, 1), axes=(2, 0, 1))  # transpose VJP inverts it
        return fnp.sum(h * h) - fnp.sum(x * 2.0)

    x = RNG.standard_normal(3)
    np.testing.assert_allclose(grad(f)(x), _fd_grad(f, x), rtol=1e-6, atol=1e-8)
    _, vjp_fn = vjp(f, x)
    np.testing.assert_allclose(vjp_fn(np.float64(1.0))[0], _fd_grad(f, x), rtol=1e-6, atol=1e-8)
    t = RNG.standard_normal(3)
    np.testing.assert_allclose(jvp(f, (x,), (t,))[1], _fd_grad(f, x) @ t, rtol=1e-6)


@pytest.mark.parametrize("perm", list(itertools.permutations(range(3))), ids=str)
def test_transpose_vjp_is_the_inverse_permutation(perm):
    x = RNG.standard_normal((2, 3, 4))
    c = RNG.standard_normal(np.transpose(x, perm).shape)
    _, vjp_fn = vjp(lambda u: transpose_p(u, axes=perm), x)
    np.testing.assert_array_equal(vjp_fn(c)[0], np.transpose(c, np.argsort(perm)))


def test_normalize_axes_canonical_and_not():
    assert normalize_axes((0, 2), 3) == (0, 2)
    assert normalize_axes((2, 0), 3) == (0, 2)
    assert normalize_axes((-1,), 3) == (2,)
    assert normalize_axes((np.int64(1),), 3) == (1,)
    with pytest.raises(ValueError):
        normalize_axes((1, 1), 3)
    with pytest.raises(np.exceptions.AxisError):
        normalize_axes((3,), 3)


def test_unbroadcast_dtype_and_shape():
    """The cotangent of a broadcast float32 input is summed back and keeps its dtype."""
    b = np.ones(3, dtype=np.float32)
    x = RNG.standard_normal((4, 3))
    g = grad(lambda v: fnp.sum(x * v))(b)
    assert g.dtype == np.float32 and g.shape == (3,)
    np.testing.assert_allclose(g, x.sum(0).astype(np.float32), rtol=1e-6)


# -- NumPy's ufuncs on tracers: the resolved function is remembered per ufunc -----------


def test_numpy_ufunc_calls_repeat_and_keep_keyword_checks():
    x = RNG.standard_normal((4, 3))
    for _ in range(2):  # the second call takes the remembered function
        got = vmap(lambda u: np.tanh(np.sin(u)) + np.add(u, 1.0))(x)
        np.testing.assert_allclose(got, np.tanh(np.sin(x)) + x + 1.0)
    got = vmap(lambda u: np.add(u, 1, dtype=np.float32))(x)  # keywords: the full path
    assert got.dtype == np.float32
    # out=: a buffer made inside takes the result (NOTE [mutation semantics]); an array
    # from outside is refused
    np.testing.assert_allclose(vmap(lambda u: np.sin(u, out=np.empty(3)))(x), np.sin(x))
    outside = np.empty(3)
    with pytest.raises(Exception, match="out="):
        vmap(lambda u: np.sin(u, out=outside))(x)
