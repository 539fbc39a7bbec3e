"""Loop-invariant cotangents hoisted out of the backward pass of an eager loop (NOTE
[hoisted loop cotangents] in ``ftransforms/loop_cotangents.py``), against JAX's
``lax.scan`` in float64: ``grad``, ``vmap(grad)``, ``jit(vmap(grad))``, ``jacrev``,
``hessian``, ``linearize`` and ``vjp`` of scans whose bodies close over weights used as
``matmul``/``einsum`` factors and elementwise operands, with carries and ``xs`` of several
shapes; and checks that the rewrite happens (gather nodes on the tape) or is left out
where it must be.

Each model is written once against a namespace ``L`` (ours or JAX's).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ftransforms as ft
from ftransforms import loop_cotangents, loop_vjp
from ftransforms.core.stack import current_stack
from ftransforms.interpreters.reverse import ReverseInterpreter
from tests.tolerances import assert_tree_close, tol

jax.config.update("jax_enable_x64", True)

TOL = tol(np.float64)


class Ours:
    np = np
    scan = staticmethod(ft.scan)
    fori_loop = staticmethod(ft.fori_loop)


class Jax:
    np = jnp
    scan = staticmethod(jax.lax.scan)
    fori_loop = staticmethod(jax.lax.fori_loop)


@pytest.fixture(autouse=True)
def _rewrite_every_group():
    """The models here are tiny: rewrite them whatever their size (see HOIST)."""
    saved = dict(loop_cotangents.HOIST)
    loop_cotangents.HOIST["min_elements"] = 0
    yield
    loop_cotangents.HOIST.update(saved)


def _r(*shape, seed=0):
    return np.random.default_rng(seed + sum(shape)).standard_normal(shape) * 0.5


# -- models: (params, xs) -> a scalar loss; params is a tuple of arrays ---------------------

H, D, T = 3, 2, 5


def lstm(L, p, xs):
    """Gates from one closed-over matrix (``W @ h``), a readout ``h @ v``, pytree carry."""
    w, u, v = p
    xz = xs @ u.T

    def step(carry, x):
        h, c = carry
        z = x + w @ h
        i, f = 1 / (1 + L.np.exp(-z[:H])), 1 / (1 + L.np.exp(-z[H : 2 * H]))
        g = L.np.tanh(z[2 * H :])
        c = f * c + i * g
        h = L.np.tanh(c)
        return (h, c), (h @ v - 0.5) ** 2

    h0 = L.np.zeros(H, dtype=v.dtype)
    (h, c), err = L.scan(step, (h0, h0), xz)
    return err.mean() + (h * c).sum()


LSTM_P = (_r(3 * H, H), _r(3 * H, D), _r(H))
LSTM_XS = _r(T, D)


def matrices(L, p, xs):
    """Matrix carry, 3-D ``xs``; ``W @ C`` (both 2-D), ``v @ C`` (a vector times a matrix),
    batched stacks ``A @ C`` with ``A`` (2, 3, 3), and broadcasting elementwise constants
    at both positions of ``+``, ``-`` and ``*``, a Python-scalar factor, an einsum."""
    w, a, b, s, e = p

    def step(c, x):
        c = L.np.tanh(w @ c + x @ e) * s + b
        stacked = a @ L.np.stack([c, c * 0.5])[:, :, :1]
        c = (b - c) * 0.5 + L.np.einsum("ij,jk->ik", w, c) - stacked[0] - s
        y = L.np.einsum("j,ij->i", b[0], c) + w[0] @ c @ b[0]
        return c, y

    c, ys = L.scan(step, L.np.ones((3, 2)), xs, reverse=True)
    return (c**2).sum() + (ys**2).sum()


MAT_P = (_r(3, 3), _r(2, 3, 3), _r(1, 2), _r(3, 1), _r(2, 2))
MAT_XS = _r(4, 3, 2)

MODELS = {"lstm": (lstm, LSTM_P, LSTM_XS), "matrices": (matrices, MAT_P, MAT_XS)}


def _ours(model):
    return lambda p, xs: model(Ours, p, xs)


def _jax(model):
    return lambda p, xs: model(Jax, p, xs)


# -- against JAX ------------------------------------------------------------------------------
#
# JAX's eager scan is slow and each jit compiles for about a second, so every model has one
# jitted oracle, per-sequence gradients over the three sequences of ``_batch``, shared by
# the grad, vmap(grad) and jit tests.

_ORACLES: dict = {}


def _batch(xs):
    return np.stack([xs, xs * 2.0, -xs])


def _oracle(name):
    if name not in _ORACLES:
        model, p, xs = MODELS[name]
        f = jax.jit(jax.vmap(jax.grad(_jax(model), argnums=(0, 1)), in_axes=(None, 0)))
        _ORACLES[name] = jax.tree.map(np.asarray, f(p, _batch(xs)))
    return _ORACLES[name]


def _rows(tree, rows):
    return jax.tree.map(lambda a: a[rows], tree)


@pytest.mark.parametrize("name", MODELS)
def test_grad_of_params_and_xs(name):
    model, p, xs = MODELS[name]
    got = ft.grad(_ours(model), argnums=(0, 1))(p, xs)
    assert_tree_close(got, _rows(_oracle(name), 0), **TOL)


@pytest.mark.parametrize("name", MODELS)
def test_vmap_grad_per_sequence(name):
    model, p, xs = MODELS[name]
    got = ft.vmap(ft.grad(_ours(model), argnums=(0, 1)), in_dims=(None, 0))(p, _batch(xs))
    assert_tree_close(got, _oracle(name), **TOL)


@pytest.mark.parametrize("name", MODELS)
def test_jit_vmap_grad_records_and_replays(name):
    model, p, xs = MODELS[name]
    f = ft.jit(ft.vmap(ft.grad(_ours(model), argnums=(0, 1)), in_dims=(None, 0)))
    batch = _batch(xs)
    for rows in (slice(0, 2), slice(1, 3)):  # the first call records, the second replays
        assert_tree_close(f(p, batch[rows]), _rows(_oracle(name), rows), **TOL)
    assert len(f.cache) == 1 and not next(iter(f.cache.values())).value_dependent


def test_jacrev_of_a_scan_closing_over_weights():
    w, xs = _r(3, 3), _r(6, 3)

    def f(L, w):
        return L.scan(lambda h, x: (L.np.tanh(w @ h + x), (h @ w) * x), L.np.ones(3), xs)

    got = ft.jacrev(lambda w: f(Ours, w))(w)
    want = jax.jit(jax.jacrev(lambda w: f(Jax, w)))(w)
    assert_tree_close(got, want, **TOL)


def test_hessian_and_grad_of_grad():
    w, xs = _r(2, 2), _r(4, 2)

    def f(L, w):
        return L.scan(lambda h, x: (L.np.sin(w @ h) + x, None), L.np.ones(2), xs)[0].sum()

    assert_tree_close(
        ft.hessian(lambda w: f(Ours, w))(w), jax.jit(jax.hessian(lambda w: f(Jax, w)))(w), **TOL
    )
    got = ft.grad(lambda w: ft.grad(lambda w: f(Ours, w))(w).sum())(w)
    want = jax.jit(jax.grad(lambda w: jax.grad(lambda w: f(Jax, w))(w).sum()))(w)
    assert_tree_close(got, want, **TOL)


def test_linearize_pushes_tangents_through_the_gather_nodes():
    model, p, xs = MODELS["lstm"]
    t = tuple(_r(*a.shape, seed=7) for a in p)
    _, jvp_fn = ft.linearize(lambda p: _ours(model)(p, xs), p)
    _, want = jax.jit(lambda p, t: jax.jvp(lambda p: _jax(model)(p, xs), (p,), (t,)))(p, t)
    assert_tree_close(jvp_fn(t), want, **TOL)


def test_vjp_fn_called_twice():
    model, p, xs = MODELS["matrices"]
    out, vjp_fn = ft.vjp(_ours(model), p, xs)
    want = _rows(_oracle("matrices"), 0)
    assert_tree_close(vjp_fn(np.float64(1.0)), want, **TOL)
    assert_tree_close(vjp_fn(np.float64(2.0)), jax.tree.map(lambda a: 2 * a, want), **TOL)


def test_fori_loop_and_while_loop():
    w, x0 = _r(3, 3), _r(3)

    def f_fori(L, w):
        return L.fori_loop(0, 6, lambda i, h: L.np.tanh(w @ h) * 0.9 + h * w[0], x0).sum()

    def f_while(w):
        body = lambda s: (s[0] + 1, np.tanh(w @ s[1]) * 0.9 + s[1] * w[0])  # noqa: E731
        return ft.while_loop(lambda s: s[0] < 6, body, (0, x0))[1].sum()

    ws = np.stack([w, w * 0.5])
    want = jax.jit(jax.vmap(jax.grad(lambda w: f_fori(Jax, w))))(ws)
    assert_tree_close(ft.grad(lambda w: f_fori(Ours, w))(w), want[0], **TOL)
    assert_tree_close(ft.grad(f_while)(w), want[0], **TOL)
    assert_tree_close(ft.vmap(ft.grad(f_while))(ws), want, **TOL)


def test_complex_weights():
    w = _r(2, 2) + 1j * _r(2, 2, seed=3)
    xs = _r(4, 2) + 0j

    def f(L, w):
        h, _ = L.scan(lambda h, x: (L.np.sin(w @ h) * 0.5 + x, None), L.np.ones(2) + 0j, xs)
        return L.np.real(h * L.np.conj(h)).sum()

    assert_tree_close(
        ft.grad(lambda w: f(Ours, w))(w), jax.jit(jax.grad(lambda w: f(Jax, w)))(w), **TOL
    )


def test_float32_keeps_its_dtype():
    model, p, xs = MODELS["lstm"]
    p32 = tuple(a.astype(np.float32) for a in p)
    got = ft.vmap(ft.grad(_ours(model), argnums=(0, 1)), in_dims=(None, 0))(
        p32, _batch(xs).astype(np.float32)
    )
    assert all(g.dtype == np.float32 for g in jax.tree.leaves(got))
    want = jax.tree.map(lambda a: a.astype(np.float32), _oracle("lstm"))
    assert_tree_close(got, want, **tol(np.float32))


# -- the rewrite itself -----------------------------------------------------------------------


def _hoisted(fn, *args):
    """``fn(*args)`` under ``grad``, returning the kinds of the gather nodes on the tape
    right after ``fn`` ran (and the gradient)."""
    seen = []

    def wrapped(*a):
        out = fn(*a)
        (interp,) = [i for i in current_stack() if type(i) is ReverseInterpreter]
        seen.extend(n.prim.key[0] for n in interp.tape if type(n.prim) is loop_cotangents._Gather)
        return out

    return ft.grad(wrapped)(*args), sorted(seen)


def test_gather_nodes_replace_the_step_by_step_sums():
    w, v, xs = _r(3, 3), _r(3), _r(5, 3)

    def f(p):
        w, v = p
        h, ys = ft.scan(lambda h, x: (np.tanh(w @ h + x) * v + v, h @ v), np.ones(3), xs)
        return h.sum() + ys.sum()

    def f_xs(xs):
        return ft.scan(lambda h, x: (np.tanh(w @ h + x), None), np.ones(3), xs)[0].sum()

    g, kinds = _hoisted(f, (w, v))
    assert kinds == ["add", "contract", "contract", "multiply"]
    _, kinds = _hoisted(f_xs, xs)
    assert kinds == ["getitem"]  # w is a constant here
    loop_cotangents.HOIST["enabled"] = False
    plain, kinds = _hoisted(f, (w, v))
    assert kinds == []
    assert_tree_close(g, plain, **TOL)


def test_chunks_bound_the_stacked_factors():
    w, xs = _r(3, 3), _r(10, 3)

    def f(w):
        return ft.scan(lambda h, x: (np.tanh(w @ h + x), None), np.ones(3), xs)[0].sum()

    loop_cotangents.HOIST["chunk_bytes"] = 3 * (3 + 3) * 8  # three steps' y_bar and h
    g, kinds = _hoisted(f, w)
    loop_cotangents.HOIST["chunk_bytes"] = 8  # not even two steps: left as it was
    g_none, kinds_none = _hoisted(f, w)
    assert kinds == ["contract"] * 3  # 10 steps in runs of 3, 3, 3 (the last one left as it was)
    assert kinds_none == []

    def f_jax(w):
        return jax.lax.scan(lambda h, x: (jnp.tanh(w @ h + x), None), jnp.ones(3), xs)[0].sum()

    want = jax.jit(jax.grad(f_jax))(w)
    assert_tree_close(g, want, **TOL)
    assert_tree_close(g_none, want, **TOL)


def test_not_rewritten_where_it_does_not_apply():
    w, xs = _r(3, 3), _r(4, 3)
    body = lambda h, x: (np.tanh(w @ h + x), None)  # noqa: E731

    # checkpointed steps: one opaque node per step
    g, kinds = _hoisted(lambda w: ft.scan(ft.checkpoint(body), np.ones(3), xs)[0].sum(), w)
    assert kinds == []
    assert_tree_close(g, ft.grad(lambda w: ft.scan(body, np.ones(3), xs)[0].sum())(w), **TOL)
    # one step: nothing to sum
    _, kinds = _hoisted(lambda w: ft.scan(body, np.ones(3), xs[:1])[0].sum(), w)
    assert kinds == []

    def stacks(w1):
        step = lambda c, x: (np.tanh(w1 @ c + x[:, None]), None)  # noqa: E731
        return ft.scan(step, np.ones((2, 3, 1)), xs)[0].sum()

    g, kinds = _hoisted(stacks, w[None])
    assert kinds == []  # w1 (1, 3, 3) broadcasts against the carry (2, 3, 1)
    want = jax.jit(
        jax.grad(
            lambda w1: jax.lax.scan(
                lambda c, x: (jnp.tanh(w1 @ c + x[:, None]), None), jnp.ones((2, 3, 1)), xs
            )[0].sum()
        )
    )(w[None])
    assert_tree_close(g, want, **TOL)


def test_small_groups_are_left_eagerly_but_rewritten_into_a_jit_recording():
    w, xs = _r(3, 3), _r(10, 3)

    def f(w):
        return ft.scan(lambda h, x: (np.tanh(w @ h + x), None), np.ones(3), xs)[0].sum()

    loop_cotangents.HOIST["min_elements"] = 10 * 9 + 1  # steps x elements of w, plus one
    g, kinds = _hoisted(f, w)
    assert kinds == []
    loop_cotangents.HOIST["min_elements"] = 10 * 9
    _, kinds = _hoisted(f, w)
    assert kinds == ["contract"]
    loop_cotangents.HOIST["min_elements"] = 1 << 30
    # the eager tape recorded (not the structured loops of ftransforms/loop_vjp.py)
    loop_vjp.STRUCTURED["enabled"] = False
    try:
        program = ft.make_program(ft.grad(f))(w)
        assert "concatenate" in str(program)  # the stacked factors of the one contraction
        assert_tree_close(ft.jit(ft.grad(f))(w), g, **TOL)
    finally:
        loop_vjp.STRUCTURED["enabled"] = True


def test_nested_scans_pytree_xs_and_a_python_float_weight():
    w, xs, ys = _r(3, 3), _r(4, 2, 3), _r(4, 3)

    def f(L, w, s, xs, ys):
        def inner(h, x):
            return L.np.tanh(w @ h * s + x), (h * s) @ w

        def outer(h, xy):
            x, y = xy
            h, zs = L.scan(inner, h + y, x)
            return h * s, zs.sum(axis=0)

        h, out = L.scan(outer, L.np.ones(3), (xs, ys))
        return (h**2).sum() + (out**2).sum()

    got = ft.grad(lambda *a: f(Ours, *a), argnums=(0, 1, 2, 3))(w, 0.7, xs, ys)
    want = jax.jit(jax.grad(lambda *a: f(Jax, *a), argnums=(0, 1, 2, 3)))(w, 0.7, xs, ys)
    assert_tree_close(got, want, **TOL)


def test_grad_of_vmap_and_views_of_a_weight_made_at_every_step():
    """``grad(vmap(...))``: the batching rule makes ``W.T`` at every step; a body's own
    ``W.T``, ``W[0]`` and ``tanh(W)`` likewise: one value per step, hoisted all the same."""
    w, xs = _r(3, 3), _r(3, 5, 3)

    def f(L, w, xs):
        def one(xs):
            def step(h, x):
                return L.np.tanh(h @ w.T + w @ x * L.np.tanh(w)[0]), h @ w[0]

            h, ys = L.scan(step, L.np.ones(3), xs)
            return (h**2).sum() + ys.sum()

        return L.vmap(one)(xs).sum()

    Ours.vmap, Jax.vmap = staticmethod(ft.vmap), staticmethod(jax.vmap)
    g, kinds = _hoisted(lambda w: f(Ours, w, xs), w)
    # h @ w.T and w @ x (both x_batch @ w.T once batched) in one group, h @ w[0] in
    # another, * tanh(w)[0]; step 0's unbatched h @ ... alone are left as they were
    assert kinds == ["contract", "contract", "multiply"]
    assert_tree_close(g, jax.jit(jax.grad(lambda w: f(Jax, w, xs)))(w), **TOL)
