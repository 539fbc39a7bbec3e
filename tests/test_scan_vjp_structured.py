"""``scan``/``fori_loop`` under ``jit(grad)``/``jit(vmap(grad))`` recorded as a forward and
a backward loop (NOTE [loops under a reverse level in jit] in ``ftransforms/loop_vjp.py``),
against JAX's ``lax.scan`` in float64 (x64) and central finite differences: every jitted
function is called twice (the recording, then a replay on other inputs).  The counters:
the recording holds each loop body once whatever the length, and the cases that must
fall back to the eager tape do (and still agree).

Each model is written once against a namespace ``L`` (ours or JAX's).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ftransforms as ft
import ftransforms.numpy as fnp
from ftransforms import loop_vjp
from ftransforms.compiled import tier
from ftransforms.errors import CarryError
from ftransforms.program import ControlNode
from tests.jaxpr_evaluator import on_jax
from tests.tolerances import assert_tree_close, tol

jax.config.update("jax_enable_x64", True)

TOL = tol(np.float64)


class Ours:
    np = np
    scan = staticmethod(ft.scan)
    fori_loop = staticmethod(ft.fori_loop)
    vmap = staticmethod(ft.vmap)


class Jax:
    np = jnp
    scan = staticmethod(jax.lax.scan)
    fori_loop = staticmethod(jax.lax.fori_loop)
    vmap = staticmethod(jax.vmap)


def _r(*shape, seed=0):
    return np.random.default_rng(seed + 7 * sum(shape)).standard_normal(shape) * 0.5


@pytest.fixture
def structured():
    """Counts the loops that took the structured path (and those that fell back)."""
    counts = {"structured": 0, "fell back": 0}
    record = loop_vjp.record

    def counting(*args, **kwargs):
        try:
            out = record(*args, **kwargs)
        except Exception:
            counts["fell back"] += 1
            raise
        counts["structured"] += 1
        return out

    loop_vjp.record = counting
    yield counts
    loop_vjp.record = record


def _scan_nodes(program) -> int:
    return sum(isinstance(e.prim, ControlNode) for e in program.eqns)


def _size(eqns) -> int:
    """Equations of a recording, those of its loop bodies included (a counter)."""
    n = 0
    for e in eqns:
        n += 1
        if isinstance(e.prim, ControlNode):
            n += sum(_size(fn.eqns) for fn in e.prim.subprograms.values())
    return n


def _twice(fn, first, second):
    """``fn`` jitted, recorded on ``first`` and replayed on ``second``: the replay's result."""
    jitted = ft.jit(fn)
    jitted(*first)
    out = jitted(*second)
    (program,) = jitted.cache.values()
    assert not getattr(program, "value_dependent", False)
    return out, program


# -- models ---------------------------------------------------------------------------------

H, D, T = 3, 2, 6


def lstm(L, p, xs, ys):
    """The W6 benchmark's LSTM: gates from ``W @ h`` (closed over), a readout ``h @ v``."""
    wx, wh, b, v = p
    xz = xs @ wx.T + b

    def step(carry, inputs):
        hh, cc = carry
        xz_t, y_t = inputs
        z = xz_t + wh @ hh
        i, f = 1 / (1 + L.np.exp(-z[:H])), 1 / (1 + L.np.exp(-z[H : 2 * H]))
        g, o = L.np.tanh(z[2 * H : 3 * H]), 1 / (1 + L.np.exp(-z[3 * H :]))
        cc = f * cc + i * g
        hh = o * L.np.tanh(cc)
        return (hh, cc), (hh @ v - y_t) ** 2

    h0 = L.np.zeros_like(v)
    (h, c), errors = L.scan(step, (h0, h0), (xz, ys))
    return errors.mean() + 0.1 * (h * c).sum()


def lstm_inputs(b, t, seed=0):
    p = tuple(_r(*s, seed=seed) for s in ((4 * H, D), (4 * H, H), (4 * H,), (H,)))
    return p, _r(b, t, D, seed=seed + 1), _r(b, t, seed=seed + 2)


def reverse_pytree(L, w, xs):
    """``reverse=True``, a dict/tuple ``y``, closures used elementwise and by indexing."""

    def step(c, x):
        c2 = L.np.tanh(w @ c + x * w[0] + 0.3) * 1.5 - w[1, 2]
        return c2, {"a": c2 * x, "b": (c2.sum(), L.np.cos(c2))}

    c, ys = L.scan(step, L.np.ones(3), xs, reverse=True)
    return c.sum() + ys["a"].sum() + ys["b"][0].sum() + ys["b"][1].sum()


def length_only(L, w, xs):
    """``xs=None`` with ``length=``, an integer counter in the carry."""

    def step(carry, _):
        k, c = carry
        return (k + 1, L.np.sin(w @ c) + k), c.sum() * k

    (k, c), ys = L.scan(step, (0, xs[0]), None, length=5)
    return c.sum() + ys.sum()


def fori(L, w, xs):
    """``fori_loop`` with static bounds: the index scales the step and picks a row."""
    return L.fori_loop(1, 6, lambda i, c: L.np.tanh(w @ c * i + xs[i]), xs[0]).sum()


def einsum_closure(L, w, xs):
    """Closed-over ``w`` in an ``einsum``, ``x`` in a contraction with the carry."""

    def step(c, x):
        c = L.np.einsum("ij,j->i", w, c) * 0.9 + L.np.einsum("i,i->", x, c) * x
        return c, c

    _, ys = L.scan(step, xs[0], xs)
    return (ys**2).sum()


def nested(L, w, xs):
    """A scan inside the body of a scan, closing over the outer carry."""

    def outer(c, x):
        def inner(d, y):
            d = L.np.tanh(w @ d + y * c)
            return d, d.sum()

        d, s = L.scan(inner, c, xs[:3])
        return d * x, s

    c, ys = L.scan(outer, L.np.ones(3), xs)
    return c.sum() + ys.sum()


def passthrough(L, w, xs):
    """A carry leaf returned as it came, ``y`` the row of ``xs`` and the closure itself."""

    def step(c, x):
        a, b = c
        return (a, b * (w @ a) + x), (x, w, a)

    (a, b), (x2, w2, a2) = L.scan(step, (xs[0], xs[1]), xs)
    return b.sum() + (x2 * b).sum() + w2.sum() + a2.sum()


def inner_vmap(L, w, xs):
    """A ``vmap`` inside the body, over pairs of rows, closing over the carry."""

    def step(c, x):
        rows = L.vmap(lambda r: L.np.tanh(w @ r + c))(L.np.reshape(x[:2], (2, 1)) * x)
        return c * 0.5 + rows.sum(0), rows[0] @ c

    c, ys = L.scan(step, L.np.ones(3), xs)
    return c.sum() + ys.sum()


MODELS = [reverse_pytree, length_only, fori, einsum_closure, nested, passthrough, inner_vmap]


def _w_xs(seed):
    return _r(3, 3, seed=seed), _r(7, 3, seed=seed + 1)


# -- against JAX ------------------------------------------------------------------------------


def test_lstm_per_sequence_gradients(structured):
    first, second = lstm_inputs(4, T), lstm_inputs(4, T, seed=5)
    fn = ft.vmap(ft.grad(lambda p, x, y: lstm(Ours, p, x, y)), in_dims=(None, 0, 0))
    got, program = _twice(fn, first, second)
    want = on_jax(
        jax.vmap(jax.grad(lambda p, x, y: lstm(Jax, p, x, y)), in_axes=(None, 0, 0)), *second
    )
    assert_tree_close(got, want, **TOL)
    assert structured == {"structured": 1, "fell back": 0}
    assert _scan_nodes(program) == 2  # the forward and the backward loop


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_grad_and_vmap_grad(model, structured):
    fn = ft.grad(lambda w, xs: model(Ours, w, xs), argnums=(0, 1))
    want_fn = jax.grad(lambda w, xs: model(Jax, w, xs), argnums=(0, 1))
    got, _ = _twice(fn, _w_xs(0), _w_xs(10))
    batched = [np.stack(pair) for pair in zip(_w_xs(20), _w_xs(30))]
    other = [np.stack(pair) for pair in zip(_w_xs(40), _w_xs(50))]
    # both oracles in one compile (eagerly JAX compiles each scan on its own: slower)
    want, want_batched = on_jax(lambda a, b: (want_fn(*a), jax.vmap(want_fn)(*b)), _w_xs(10), other)
    assert_tree_close(got, want, **TOL)
    assert_tree_close(fn(*_w_xs(10)), got, **TOL)  # eager, on the tape
    got, _ = _twice(ft.vmap(fn), batched, other)
    assert_tree_close(got, want_batched, **TOL)
    assert structured["fell back"] == 0 and structured["structured"] >= 2


def test_transforms_over_the_loop_node(structured):
    """jacrev (vmap of the backward loop), hessian and jacfwd(grad) (jvp levels between
    the recorder and the reverse level), linearize (the tangent loop), vjp."""
    p, xs, ys = lstm_inputs(1, T)
    x, y = xs[0], ys[0]

    def ours(x):
        return lstm(Ours, p, x, y)

    def theirs(x):
        return lstm(Jax, p, x, y)

    x2 = x[::-1] * 0.7

    def want(x2, t):  # the five oracles in one program
        return (
            jax.jacrev(theirs)(x2),
            jax.hessian(theirs)(x2),
            jax.jacfwd(jax.grad(theirs))(x2),
            jax.jvp(theirs, (x2,), (t,))[1],
            jax.vjp(theirs, x2)[1](3.0),
        )

    want_jacrev, want_hessian, want_jacfwd_grad, want_jvp, want_vjp = on_jax(want, x2, x)
    for make, wanted in [
        (ft.jacrev, want_jacrev),
        (ft.hessian, want_hessian),
        (lambda f: ft.jacfwd(ft.grad(f)), want_jacfwd_grad),
    ]:
        got, _ = _twice(make(ours), (x,), (x2,))
        assert_tree_close(got, wanted, **TOL)

    def tangent(x, t):
        return ft.linearize(ours, x)[1](t)

    got, _ = _twice(tangent, (x, np.ones_like(x)), (x2, x))
    assert_tree_close(got, want_jvp, **TOL)

    def pullback(x, c):
        return ft.vjp(ours, x)[1](c)

    got, _ = _twice(pullback, (x, np.array(1.0)), (x2, np.array(3.0)))
    assert_tree_close(got, want_vjp, **TOL)
    assert structured["fell back"] == 0 and structured["structured"] >= 5


def test_finite_differences():
    w, xs = _w_xs(3)
    g = ft.jit(ft.grad(lambda w: reverse_pytree(Ours, w, xs)))(w)
    eps = 1e-6
    for i, j in [(0, 0), (1, 2), (2, 1)]:
        e = np.zeros_like(w)
        e[i, j] = eps
        fd = (reverse_pytree(Ours, w + e, xs) - reverse_pytree(Ours, w - e, xs)) / (2 * eps)
        assert abs(g[i, j] - fd) < 1e-7 * max(1.0, abs(fd))


# -- what the recording holds ------------------------------------------------------------------


def test_the_recording_holds_the_body_once_whatever_the_length():
    fn = ft.vmap(ft.grad(lambda p, x, y: lstm(Ours, p, x, y)), in_dims=(None, 0, 0))
    sizes = [_size(ft.make_program(fn)(*lstm_inputs(4, t)).eqns) for t in (3, 8, 20)]
    assert sizes[0] == sizes[1] == sizes[2]
    loop_vjp.STRUCTURED["enabled"] = False
    try:  # on the eager tape the recording grows with every step
        unrolled = [_size(ft.make_program(fn)(*lstm_inputs(4, t)).eqns) for t in (3, 8)]
    finally:
        loop_vjp.STRUCTURED["enabled"] = True
    assert unrolled[1] > unrolled[0] > sizes[0]


def test_grad_of_grad_runs_on_the_tape(structured):
    """Two reverse levels: the inner loop is not structured (the outer tape differentiates
    its steps); the result is JAX's."""
    w, xs = _w_xs(4)

    def ours(w):
        return ft.grad(lambda w: fori(Ours, w, xs))(w).sum()

    got, _ = _twice(ft.grad(ours), (w,), (w * 0.8,))
    jxs = jnp.asarray(xs)
    want = on_jax(jax.grad(lambda w: jax.grad(lambda w: fori(Jax, w, jxs))(w).sum()), w * 0.8)
    assert_tree_close(got, want, **TOL)
    assert structured["structured"] == 0


# -- what falls back to the eager tape, and still agrees -----------------------------------


def _eager_and_jit(fn, *args):
    return ft.grad(fn)(*args), ft.jit(ft.grad(fn))(*args)


def test_a_value_read_in_the_body_falls_back(structured):
    w, xs = _w_xs(6)

    def f(w):
        def step(c, x):
            scale = 2.0 if float(fnp.stop_gradient(c).sum()) > 0 else 0.5  # a data branch
            return np.tanh(w @ c) * scale + x, c.sum()

        return ft.scan(step, xs[0], xs)[1].sum()

    eager, jitted = _eager_and_jit(f, w)  # (the unrolled steps' reads are checked at each
    assert_tree_close(jitted, eager, **TOL)  # replay: NOTE [checked value reads under jit])
    assert structured == {"structured": 0, "fell back": 1}


def test_a_random_draw_in_the_body_falls_back(structured):
    w, xs = _w_xs(7)

    def f(w, seed):
        rng = np.random.default_rng(seed)

        def step(c, x):
            return np.tanh(w @ c + ft.random.normal(rng, size=3)) + x, c

        return ft.scan(step, xs[0], xs)[0].sum()

    eager = ft.grad(f)(w, 3)
    jitted = ft.jit(ft.grad(f), static_argnums=1)
    with pytest.warns(RuntimeWarning, match="depends on data"):
        assert_tree_close(jitted(w, 3), eager, **TOL)
    assert_tree_close(jitted(w, 3), eager, **TOL)  # drawn again: the same seed
    assert structured["structured"] == 0


def test_effects_checkpoint_and_custom_vjp_in_the_body(structured):
    w, xs = _w_xs(8)
    seen = []

    @ft.custom_vjp
    def double(x):
        return 2.0 * x

    double.defvjp(lambda x: (2.0 * x, None), lambda _, g: (2.0 * g,))
    bodies = {
        "effect": lambda c, x: (ft.debug.callback(seen.append, 1) or np.tanh(w @ c) + x, c),
        "checkpoint": ft.checkpoint(lambda c, x: (np.tanh(w @ c) + x, c)),
        "custom_vjp": lambda c, x: (double(np.tanh(w @ c)) + x, c),
    }
    for name, body in bodies.items():

        def f(w, body=body):
            return ft.scan(body, xs[0] * w[0, 0], xs)[1].sum()

        eager, jitted = _eager_and_jit(f, w)
        assert_tree_close(jitted, eager, **TOL), name
    assert structured["structured"] == 0


def test_integer_inputs_and_float0_cotangents():
    w, xs = _w_xs(9)

    def f(w, n):
        def step(carry, x):
            k, c = carry
            return (k + n, np.tanh(w @ c) * k + x), c.sum()

        (k, c), ys = ft.scan(step, (np.int64(1), xs[0]), xs)
        return c.sum() + ys.sum()

    n = np.int64(2)
    got = ft.jit(ft.grad(f, argnums=(0, 1), allow_int=True))(w, n)
    want = ft.grad(f, argnums=(0, 1), allow_int=True)(w, n)
    assert_tree_close(got[0], want[0], **TOL)
    assert got[1].dtype == want[1].dtype


def test_a_carry_of_another_shape_raises_as_eagerly():
    w, xs = _w_xs(11)

    def f(w):
        return ft.scan(lambda c, x: (np.concatenate([c, x]), None), xs[0] * w[0, 0], xs)[0].sum()

    with pytest.raises(CarryError) as eager:
        ft.grad(f)(w)
    with pytest.raises(CarryError) as jitted:
        ft.jit(ft.grad(f))(w)
    assert str(jitted.value) == str(eager.value)
    assert ft.jit(ft.grad(lambda w: (w * 2).sum()))(w).shape == w.shape  # a clean stack


# -- the compiled tier on the two loops ----------------------------------------------------------


@pytest.mark.skipif(not tier.available(), reason="the optional compiler (numba)")
def test_compiled_tier_equals_the_replay(tmp_path, monkeypatch):
    from ftransforms.compiled import cache

    monkeypatch.setenv("FTRANSFORMS_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(cache, "_DIR", None)
    args = lstm_inputs(4, T)
    fn = ft.vmap(ft.grad(lambda p, x, y: lstm(Ours, p, x, y)), in_dims=(None, 0, 0))
    jitted = ft.jit(fn, compile=False)
    replayed = jitted(*args)
    (program,) = jitted.cache.values()
    assert tier.compile_now(program), program.tier
    got = jitted(*args)
    for g, r in zip(got, replayed):
        np.testing.assert_allclose(g, r, rtol=0, atol=1e-12 * max(1.0, float(np.abs(r).max())))


# -- the loop's bookkeeping: stored residuals, buffers, two backward loops ---------------------


def test_two_backward_loops_read_the_same_residuals():
    """A ``vjp_fn`` called twice records two backward loops over one forward loop: the
    residuals the first reads are still there for the second (RowList release)."""
    w, xs = _w_xs(12)

    def both(w, c1, c2):
        _, pullback = ft.vjp(lambda w: reverse_pytree(Ours, w, xs), w)
        return pullback(c1)[0], pullback(c2)[0]

    got, program = _twice(
        both, (w, np.array(1.0), np.array(2.0)), (w * 0.9, np.array(3.0), np.array(-1.0))
    )

    def want(w):
        _, pullback = jax.vjp(lambda w: reverse_pytree(Jax, w, xs), w)
        return pullback(3.0)[0], pullback(-1.0)[0]

    assert_tree_close(got, on_jax(want, w * 0.9), **TOL)
    assert _scan_nodes(program) == 3  # one forward loop, two backward loops


def test_outputs_are_not_written_by_the_next_call():
    """A loop's stacked output buffer is written again on a later call only when nothing
    holds it: results a caller keeps stay as they were."""
    w, xs = _w_xs(13)

    def f(w, xs):
        return ft.scan(lambda c, x: (np.tanh(w @ c + x), c * x), xs[0], xs)[1]

    g = ft.jit(ft.grad(lambda w, xs: f(w, xs).sum(), argnums=(0, 1)))
    h = ft.jit(f)
    kept_g = [np.array(a) for a in g(w, xs)]
    first_g = g(w, xs)
    first_h = h(w, xs)
    kept_h = first_h.copy()
    for _ in range(3):
        g(w * 0.5, xs[::-1])
        h(w * 0.5, xs[::-1])
    assert_tree_close(list(first_g), kept_g, rtol=0, atol=0)
    np.testing.assert_array_equal(first_h, kept_h)


@pytest.mark.parametrize("how", ["residuals missing", "backward step by step"])
def test_the_backward_loop_recovers(how, monkeypatch):
    """White-box: a backward loop that needs residuals the forward loop did not store gets
    them from the forward loop recorded again; one that cannot be recorded once runs step
    by step.  Either way the gradient is JAX's."""
    apply_vjp = loop_vjp.LoopPrimitive.apply_vjp

    def patched(self, *args):
        self.dry = None
        if how == "residuals missing":
            self.recorded = set()
        else:
            monkeypatch.setattr(self, "loop", _refusing(self.loop))
        return apply_vjp(self, *args)

    monkeypatch.setattr(loop_vjp.LoopPrimitive, "apply_vjp", patched)
    fn = ft.grad(lambda w, xs: reverse_pytree(Ours, w, xs), argnums=(0, 1))
    got, _ = _twice(fn, _w_xs(14), _w_xs(15))
    want = on_jax(jax.grad(lambda w, xs: reverse_pytree(Jax, w, xs), argnums=(0, 1)), *_w_xs(15))
    assert_tree_close(got, want, **TOL)


class _refusing:
    """A loop recorder whose loops cannot be recorded once (NotStructurable)."""

    def __init__(self, loop):
        self.emit = loop.emit

    def __call__(self, *args, **kwargs):
        from ftransforms.interpreters.tracing import NotStructurable

        raise NotStructurable


# -- the parallel work of a loop body (NOTE [parallel work out of recorded loops]) -------------


def test_a_forward_scan_runs_the_work_off_the_carry_outside_the_loop():
    w, xs = _w_xs(16)

    def f(w, xs):
        def step(c, x):
            c = np.tanh(w @ c + x)  # the recurrence
            return c, np.exp(-(c**2)) * np.cos(x) + np.sin(x) * 2.0  # not on its path

        return ft.scan(step, xs[0], xs)

    program = ft.make_program(f)(w, xs)
    (node,) = [e.prim for e in program.eqns if isinstance(e.prim, ControlNode)]
    body = [e.prim.name for e in node.subprograms["step"].eqns]
    assert "exp" not in body and "cos" not in body and "sin" not in body
    assert "tanh" in body
    got = ft.jit(f)(w * 0.7, xs[::-1])
    want = jax.lax.scan(
        lambda c, x: (
            jnp.tanh(w * 0.7 @ c + x),
            jnp.exp(-(jnp.tanh(w * 0.7 @ c + x) ** 2)) * jnp.cos(x) + jnp.sin(x) * 2.0,
        ),
        xs[::-1][0],
        xs[::-1],
    )
    assert_tree_close(got, want, **TOL)


def test_a_loop_that_the_derivative_does_not_reach(structured):
    w, xs = _w_xs(17)

    def f(w, xs):
        c, ys = ft.scan(lambda c, x: (np.tanh(c + x), c.sum()), xs[0], xs)
        return (w * 2.0).sum() + ys.sum() + c.sum()

    # (a contiguous copy: a reversed view, laid out otherwise, gets a recording of its own)
    got, _ = _twice(ft.grad(f), (w, xs), (w * 3.0, np.ascontiguousarray(xs[::-1])))
    np.testing.assert_array_equal(got, np.full_like(w, 2.0))
    assert structured == {"structured": 1, "fell back": 0}


def test_on_the_strict_cupy_stand_in(structured):
    """The two loops on device arrays (the strict CuPy stand-in refuses any silent trip
    through NumPy): the results stay on the device and equal the NumPy ones."""
    from ftransforms import strict_backend as sb

    first, second = lstm_inputs(2, T), lstm_inputs(2, T, seed=5)
    fn = ft.vmap(ft.grad(lambda p, x, y: lstm(Ours, p, x, y)), in_dims=(None, 0, 0))
    jitted = ft.jit(fn, compile=False)
    on_device = [ft.tree_map(sb.asarray, args) for args in (first, second)]
    jitted(*on_device[0])
    got = jitted(*on_device[1])
    assert all(type(g) is sb.StrictArray for g in got)
    want = ft.jit(fn, compile=False)(*second)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.get(), w, rtol=1e-12, atol=1e-12)
    assert structured == {"structured": 2, "fell back": 0}  # on the device, then NumPy


def _forward_model(w, xs):
    def step(c, x):
        c = np.tanh(w @ c + x)
        return c, np.exp(-(c**2)) * np.cos(x) + np.sin(x) * 2.0

    return ft.scan(step, xs[0], xs)


@pytest.mark.parametrize("how", ["too big", "a replay that fails"])
def test_the_parallel_work_stays_in_the_loop(how, monkeypatch):
    """White-box: calls whose results over all steps would take more than ``MAX_BYTES``,
    or whose batched replay fails, stay in the loop body; the values are the same."""
    from ftransforms.interpreters import parallel_steps

    if how == "too big":
        monkeypatch.setattr(parallel_steps, "MAX_BYTES", 7 * 3 * 8)  # less than one result
    else:

        def failing(*args, **kwargs):
            raise RuntimeError("a batching rule that cannot run here")

        monkeypatch.setattr(parallel_steps.StepSplit, "replay_batched", failing)
    w, xs = _w_xs(18)
    program = ft.make_program(_forward_model)(w, xs)
    (node,) = [e.prim for e in program.eqns if isinstance(e.prim, ControlNode)]
    assert "exp" in [e.prim.name for e in node.subprograms["step"].eqns]
    got = ft.jit(_forward_model)(w * 0.7, xs[::-1])
    monkeypatch.undo()
    want = ft.jit(_forward_model)(w * 0.7, xs[::-1])  # split, and recorded anew
    assert_tree_close(got, want, **TOL)


def test_integer_rows_carries_and_outputs():
    """Token ids as ``xs`` picking rows of a closed-over embedding, a step counter in the
    carry, an ``argmax`` among the ys: the integers ride along, the floats differentiate."""

    def model(L, emb, w, toks):
        def step(c, t):
            h, n = c
            h = L.np.tanh(w @ h + emb[t])
            return (h, n + 1), (h.sum(), L.np.argmax(h))

        (h, n), (s, _) = L.scan(step, (L.np.zeros(4), 0), toks)
        return s.sum() + h.sum() + 0.0 * n

    rng = np.random.default_rng(19)
    emb, w = rng.normal(size=(10, 4)), rng.normal(size=(4, 4)) * 0.5
    toks = [rng.integers(0, 10, size=(2, 7)) for _ in range(2)]
    fn = ft.vmap(
        ft.grad(lambda e, w, t: model(Ours, e, w, t), argnums=(0, 1)), in_dims=(None, None, 0)
    )
    got, program = _twice(fn, (emb, w, toks[0]), (emb * 0.5, w, toks[1]))
    want = on_jax(
        jax.vmap(
            jax.grad(lambda e, w, t: model(Jax, e, w, t), argnums=(0, 1)),
            in_axes=(None, None, 0),
        ),
        emb * 0.5,
        w,
        toks[1],
    )
    assert_tree_close(got, want, **TOL)
    assert _scan_nodes(program) == 2
