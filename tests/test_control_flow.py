"""Structured control flow (``ft.cond``, ``switch``, ``while_loop``, ``fori_loop``, ``scan``)
under every transform, against ``jax.lax`` in float64 (and finite differences where JAX
cannot differentiate: reverse mode through a ``while_loop``).

Each test function is written once against a namespace ``L`` (ours or JAX's) holding the
control-flow operators, the transforms and the array module, the way a ``jax.lax`` user
writes it.
"""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ftransforms as ft
import ftransforms.numpy as fnp
from ftransforms.core.stack import current_stack
from ftransforms.errors import (
    BatchedControlFlowError,
    BranchOutputError,
    CarryError,
    ControlFlowError,
    PredicateError,
    ScanLengthError,
)
from ftransforms.strict_backend import asarray as to_strict
from ftransforms.strict_backend import to_numpy
from tests.jaxpr_evaluator import on_jax
from tests.tolerances import assert_tree_close, fd_tol, tol

jax.config.update("jax_enable_x64", True)

TOL = tol(np.float64)


class Ours:
    np = np
    cond = staticmethod(ft.cond)
    switch = staticmethod(ft.switch)
    while_loop = staticmethod(ft.while_loop)
    fori_loop = staticmethod(ft.fori_loop)
    scan = staticmethod(ft.scan)
    vmap = staticmethod(ft.vmap)
    grad = staticmethod(ft.grad)
    jacrev = staticmethod(ft.jacrev)
    jacfwd = staticmethod(ft.jacfwd)
    hessian = staticmethod(ft.hessian)
    jvp = staticmethod(ft.jvp)
    vjp = staticmethod(ft.vjp)
    jit = staticmethod(ft.jit)


class OursFnp(Ours):
    np = fnp  # plain device arrays outside any transform need the fnp namespace


def _jitted(transform):
    """The JAX oracle's transform, run by tests/jaxpr_evaluator.py (``on_jax``: JAX
    traces, NumPy runs the jaxpr; op-by-op JAX and XLA compiles are far slower here);
    inside another JAX transform (``Jax.vmap(Jax.grad(f))``) it is that one's trace."""

    def make(f, *a, **k):
        g = transform(f, *a, **k)

        def call(*args):
            if any(isinstance(v, jax.core.Tracer) for v in jax.tree_util.tree_leaves(args)):
                return g(*args)
            return on_jax(g, *args)

        return call

    return staticmethod(make)


class Jax:
    np = jnp
    cond = staticmethod(jax.lax.cond)
    switch = staticmethod(jax.lax.switch)
    while_loop = staticmethod(jax.lax.while_loop)
    fori_loop = staticmethod(jax.lax.fori_loop)
    scan = staticmethod(jax.lax.scan)
    vmap = _jitted(jax.vmap)
    grad = _jitted(jax.grad)
    jacrev = _jitted(jax.jacrev)
    jacfwd = _jitted(jax.jacfwd)
    hessian = _jitted(jax.hessian)
    jvp = staticmethod(jax.jvp)
    vjp = staticmethod(jax.vjp)
    jit = staticmethod(jax.jit)


def close(ours, theirs, **kw):
    theirs = jax.tree_util.tree_map(np.asarray, theirs)
    assert_tree_close(ours, theirs, **(kw or TOL))


rng = np.random.default_rng(0)
X = rng.normal(size=(5, 3))


# -- the functions under test, written once for both namespaces --------------------------


def piecewise(L, x):
    """cond with a pytree operand and output."""
    return L.cond(
        L.np.sum(x) > 0,
        lambda ops: (L.np.sin(ops[0]) * ops[1]["w"], ops[0] ** 2),
        lambda ops: (L.np.cos(ops[0]) + ops[1]["w"], -ops[0]),
        (x, {"w": 2.0 * x}),
    )


def piecewise_sum(L, x):
    a, b = piecewise(L, x)
    return L.np.sum(a * b)


def three_way(L, i, x):
    fs = [lambda v: L.np.sin(v), lambda v: v**3, lambda v: L.np.exp(-v)]
    return L.switch(i, fs, x)


def newton_sqrt(L, a):
    """Newton's method for sqrt(a): the trip count depends on a."""

    def body(state):
        x, k = state
        return 0.5 * (x + a / x), k + 1

    x, k = L.while_loop(lambda s: L.np.abs(s[0] * s[0] - a) > 1e-10 * a, body, (a, 0))
    return x


def newton_sum(L, a):
    return L.np.sum(L.vmap(lambda a: newton_sqrt(L, a))(a) ** 3)


def damped(L, x):
    """fori_loop with static bounds, using the index."""
    return L.fori_loop(1, 6, lambda i, v: L.np.tanh(v * 0.9 + 0.1 * i), x)


def rnn(L, params, xs):
    """An Elman RNN with scan: pytree carry and ys."""
    w, u = params

    def cell(carry, x):
        h, n = carry
        h = L.np.tanh(h @ w + x @ u)
        return (h, n + 1.0), (h, L.np.sum(h))

    h0 = w[0] * 0.0
    (h, n), (hs, s) = L.scan(cell, (h0, 0.0), xs)
    return h, n, hs, s


def rnn_loss(L, params, xs):
    h, _, hs, s = rnn(L, params, xs)
    return L.np.sum(h**2) + L.np.sum(hs * 0.5) + L.np.sum(s**2) * 0.1


PARAMS = (rng.normal(size=(4, 4)) * 0.5, rng.normal(size=(3, 4)) * 0.5)
XS = rng.normal(size=(6, 3))


# -- eager ------------------------------------------------------------------------------


def test_eager_matches_lax():
    for x in (X[0], -np.abs(X[1])):
        close(piecewise(Ours, x), piecewise(Jax, x))
    for i in (-3, 0, 1, 2, 9):
        close(three_way(Ours, i, X[0]), three_way(Jax, i, X[0]))
    for a in (0.5, 2.0, 30.0):
        close(newton_sqrt(Ours, np.array(a)), newton_sqrt(Jax, np.array(a)))
    close(damped(Ours, X[0]), damped(Jax, X[0]))
    close(rnn(Ours, PARAMS, XS), rnn(Jax, PARAMS, XS))


def test_scan_reverse_length_unroll_and_none_xs():
    def f(L, xs, reverse, unroll):
        return L.scan(
            lambda c, x: (c * 0.5 + x, L.np.stack([c, x])), 1.0, xs, reverse=reverse, unroll=unroll
        )

    xs = np.arange(5.0)
    for reverse in (False, True):
        for unroll in (1, 3, True):
            close(f(Ours, xs, reverse, unroll), f(Jax, xs, reverse, unroll))

    def g(L):
        return L.scan(lambda c, _: (c * 2.0, c), np.ones(2), None, length=4)

    close(g(Ours), g(Jax))

    def empty(L):
        return L.scan(lambda c, x: (c + x, x * 2.0), np.zeros(2), np.zeros((0, 2)))

    close(empty(Ours), empty(Jax))


def test_fori_loop_traced_bounds_under_vmap():
    def f(L, n, x):
        return L.fori_loop(0, n, lambda i, v: v * 1.5 + i, x)

    n = np.array([0, 1, 3, 6])
    x = np.linspace(0.1, 0.4, 4)
    close(Ours.vmap(lambda n, x: f(Ours, n, x))(n, x), Jax.vmap(lambda n, x: f(Jax, n, x))(n, x))
    close(Ours.vmap(lambda n: f(Ours, n, 1.0))(n), Jax.vmap(lambda n: f(Jax, n, 1.0))(n))


# -- vmap -------------------------------------------------------------------------------


def test_vmap_batched_predicate_cond_switch():
    X2 = X * np.array([[1.0], [-1.0], [1.0], [-1.0], [1.0]])
    close(
        Ours.vmap(lambda x: piecewise(Ours, x))(X2),
        Jax.vmap(lambda x: piecewise(Jax, x))(X2),
    )
    i = np.array([0, 1, 2, 7, -1])
    close(
        Ours.vmap(lambda i, x: three_way(Ours, i, x))(i, X),
        Jax.vmap(lambda i, x: three_way(Jax, i, x))(i, X),
    )
    # batched index only, operands unbatched; and the reverse
    close(
        Ours.vmap(lambda i: three_way(Ours, i, X[0]))(i),
        Jax.vmap(lambda i: three_way(Jax, i, X[0]))(i),
    )
    close(
        Ours.vmap(lambda x: three_way(Ours, 1, x))(X),
        Jax.vmap(lambda x: three_way(Jax, 1, x))(X),
    )


def test_vmap_unbatched_predicate_runs_one_branch():
    calls = []

    def t(v):
        calls.append("t")
        return v * 2.0

    def f(v):
        calls.append("f")
        return v - 1.0

    out = ft.vmap(lambda x, p: ft.cond(p, t, f, x), in_dims=(0, None))(X, True)
    np.testing.assert_allclose(out, X * 2.0)
    # only the branch taken runs: the other one is not tried for the output check
    # either, since it has an effect (calls.append) that its trial would make
    assert calls == ["t"]
    out = ft.vmap(lambda x, p: ft.cond(p, t, f, x), in_dims=(0, None))(X, False)
    np.testing.assert_allclose(out, X - 1.0)
    assert calls == ["t", "f"]


def test_vmap_while_loop_rows_need_different_trip_counts():
    a = np.array([0.01, 1.0, 2.0, 1e4])
    close(
        Ours.vmap(lambda a: newton_sqrt(Ours, a))(a),
        Jax.vmap(lambda a: newton_sqrt(Jax, a))(a),
    )

    def counter(L, n):
        return L.while_loop(lambda s: s[0] < n, lambda s: (s[0] + 1, s[1] * 2.0), (0, 1.0))

    n = np.array([0, 3, 1, 5])
    close(Ours.vmap(lambda n: counter(Ours, n))(n), Jax.vmap(lambda n: counter(Jax, n))(n))


def test_nested_vmap_predicate_batched_at_outer_level_only():
    def f(L, n, x):
        # the loop bound varies over the outer axis only; x over both
        return L.while_loop(lambda s: s[0] < n, lambda s: (s[0] + 1, s[1] * 1.1 + 0.1), (0, x))[1]

    n = np.array([1, 4, 2])
    xx = rng.normal(size=(3, 5))
    ours = Ours.vmap(lambda n, x: Ours.vmap(lambda x: f(Ours, n, x))(x))(n, xx)
    ref = Jax.vmap(lambda n, x: Jax.vmap(lambda x: f(Jax, n, x))(x))(n, xx)
    close(ours, ref)
    # a cond whose predicate is batched at the outer level, inside an inner vmap
    g = lambda L, p, x: L.cond(p > 0, lambda v: v * 3.0, lambda v: -v, x)  # noqa: E731
    p = np.array([1.0, -1.0, 2.0])
    ours = Ours.vmap(lambda p, x: Ours.vmap(lambda x: g(Ours, p, x))(x))(p, xx)
    ref = Jax.vmap(lambda p, x: Jax.vmap(lambda x: g(Jax, p, x))(x))(p, xx)
    close(ours, ref)


def test_vmap_scan_per_sequence():
    xs = rng.normal(size=(4, 6, 3))
    close(
        Ours.vmap(lambda xs: rnn(Ours, PARAMS, xs))(xs),
        Jax.vmap(lambda xs: rnn(Jax, PARAMS, xs))(xs),
    )
    close(
        Ours.vmap(Ours.grad(lambda p, xs: rnn_loss(Ours, p, xs)), in_dims=(None, 0))(PARAMS, xs),
        Jax.vmap(Jax.grad(lambda p, xs: rnn_loss(Jax, p, xs)), in_axes=(None, 0))(PARAMS, xs),
    )


# -- differentiation ---------------------------------------------------------------------


@pytest.mark.parametrize("transform", ["grad", "jacrev", "jacfwd", "hessian"])
def test_derivatives_match_lax(transform):
    ref = getattr(Jax, transform)(lambda x: piecewise_sum(Jax, x))  # one compile, 2 branches
    for x in (X[0], -np.abs(X[1])):
        close(getattr(Ours, transform)(lambda x: piecewise_sum(Ours, x))(x), ref(x))
    close(
        getattr(Ours, transform)(lambda x: np.sum(damped(Ours, x)))(X[0]),
        getattr(Jax, transform)(lambda x: jnp.sum(damped(Jax, x)))(X[0]),
    )
    for i in (0, 2):
        close(
            getattr(Ours, transform)(lambda x: np.sum(three_way(Ours, i, x)))(X[2]),
            getattr(Jax, transform)(lambda x: jnp.sum(three_way(Jax, i, x)))(X[2]),
        )
    w, u = PARAMS
    close(
        getattr(Ours, transform)(lambda w: rnn_loss(Ours, (w, u), XS))(w),
        getattr(Jax, transform)(lambda w: rnn_loss(Jax, (w, u), XS))(w),
    )


def test_jvp_vjp_match_lax():
    t = np.ones_like(X[0])
    close(
        Ours.jvp(lambda x: piecewise(Ours, x), (X[0],), (t,)),
        Jax.jvp(lambda x: piecewise(Jax, x), (X[0],), (t,)),
    )
    a = np.array(3.0)
    # forward mode through a while_loop is something JAX does too
    close(
        Ours.jvp(lambda a: newton_sqrt(Ours, a), (a,), (np.ones(()),)),
        Jax.jvp(lambda a: newton_sqrt(Jax, a), (a,), (jnp.ones(()),)),
    )
    out, vjp_fn = Ours.vjp(lambda p: rnn(Ours, p, XS), PARAMS)
    ref_out, ref_fn = Jax.vjp(lambda p: rnn(Jax, p, XS), PARAMS)
    close(out, ref_out)
    ct = jax.tree_util.tree_map(lambda o: np.ones_like(np.asarray(o)), ref_out)
    close(vjp_fn(ct), ref_fn(ct))


def _fd(f, x, h=1e-4):
    """Central finite differences of a scalar function (4th order)."""
    g = np.zeros_like(x)
    for k in range(x.size):
        e = np.zeros_like(x)
        e.flat[k] = h
        g.flat[k] = (-f(x + 2 * e) + 8 * f(x + e) - 8 * f(x - e) + f(x - 2 * e)) / (12 * h)
    return g


def test_reverse_mode_through_data_dependent_while_loop():
    a = np.array([0.3, 2.0, 50.0])
    g = ft.grad(lambda a: newton_sum(Ours, a))(a)
    fd = _fd(lambda a: float(newton_sum(Ours, a)), a)
    np.testing.assert_allclose(g, fd, **fd_tol(np.float64))
    np.testing.assert_allclose(g, 1.5 * np.sqrt(a), rtol=1e-8)  # d/da a^(3/2)

    # a loop whose trip count is data: the number of halvings until x < 1
    def halve(x):
        return ft.while_loop(lambda v: v > 1.0, lambda v: v * 0.5 + 0.01 * v * v, x)

    for x0 in (np.float64(3.7), np.float64(40.0)):
        g = ft.grad(halve)(x0)
        np.testing.assert_allclose(g, _fd(lambda v: float(halve(v)), np.array(x0)), rtol=1e-6)
    # per-row gradients of a batched while_loop, and second order
    per_row = ft.vmap(ft.grad(lambda a: newton_sqrt(Ours, a)))(a)
    np.testing.assert_allclose(per_row, 0.5 / np.sqrt(a), rtol=1e-8)
    h = ft.vmap(ft.hessian(lambda a: newton_sqrt(Ours, a)))(a)
    np.testing.assert_allclose(h, -0.25 * a**-1.5, rtol=1e-6)


def test_higher_order_compositions():
    x = X[3]
    close(
        Ours.hessian(lambda w: rnn_loss(Ours, (w, PARAMS[1]), XS))(PARAMS[0]),
        Jax.hessian(lambda w: rnn_loss(Jax, (w, PARAMS[1]), XS))(PARAMS[0]),
    )
    close(
        Ours.jacfwd(Ours.jacrev(lambda x: piecewise(Ours, x)[0]))(x),
        Jax.jacfwd(Jax.jacrev(lambda x: piecewise(Jax, x)[0]))(x),
    )
    X2 = X * np.array([[1.0], [-1.0], [1.0], [-1.0], [1.0]])
    close(
        Ours.vmap(Ours.jacrev(lambda x: piecewise(Ours, x)[0]))(X2),
        Jax.vmap(Jax.jacrev(lambda x: piecewise(Jax, x)[0]))(X2),
    )
    close(
        Ours.vmap(Ours.hessian(lambda x: piecewise_sum(Ours, x)))(X2),
        Jax.vmap(Jax.hessian(lambda x: piecewise_sum(Jax, x)))(X2),
    )
    close(
        Ours.jacrev(Ours.vmap(lambda x: piecewise_sum(Ours, x)))(X2),
        Jax.jacrev(Jax.vmap(lambda x: piecewise_sum(Jax, x)))(X2),
    )
    i = np.array([2, 0, 1, 1, 5])
    close(
        Ours.vmap(Ours.grad(lambda x, i: np.sum(three_way(Ours, i, x))))(X, i),
        Jax.vmap(Jax.grad(lambda x, i: jnp.sum(three_way(Jax, i, x))))(X, i),
    )
    a = np.array([0.5, 3.0, 7.0])
    t = np.array([1.0, -2.0, 0.5])
    close(
        Ours.vmap(lambda a, t: Ours.jvp(lambda a: newton_sqrt(Ours, a), (a,), (t,)))(a, t),
        Jax.vmap(lambda a, t: Jax.jvp(lambda a: newton_sqrt(Jax, a), (a,), (t,)))(a, t),
    )


def test_batched_cond_gradient_does_not_leak_nan_from_the_untaken_branch():
    def f(x):
        return ft.cond(x > 0, lambda v: np.sqrt(v) + np.log(v), lambda v: -v, x)

    x = np.array([4.0, -1.0, 0.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the untaken rows compute nan
        g = ft.vmap(ft.grad(f))(x)
        g2 = ft.grad(lambda x: ft.vmap(f)(x).sum())(x)
        h = ft.vmap(ft.hessian(f))(x)
    expected = np.where(x > 0, 0.5 / np.sqrt(np.abs(x) + (x <= 0)) + 1 / np.where(x > 0, x, 1), -1)
    np.testing.assert_allclose(g, expected, rtol=1e-12)
    np.testing.assert_allclose(g2, expected, rtol=1e-12)
    assert np.all(np.isfinite(h)) and np.all(h[x <= 0] == 0)


def test_batched_while_gradient_does_not_leak_nan_from_finished_rows():
    def f(x):  # the body is nan (and so is its derivative) on rows that have finished
        return ft.while_loop(lambda v: v > 2.0, lambda v: np.sqrt(v - 2.0) + 1.0, x)

    x = np.array([6.5, 1.0, 11.0, 2.5])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        g = ft.vmap(ft.grad(f))(x)
    fd = np.array([_fd(lambda v: float(f(v)), np.array(v))[()] for v in x])
    np.testing.assert_allclose(g, fd, rtol=1e-7)


# -- jit --------------------------------------------------------------------------------


def test_jit_newton_while_loop_different_trip_counts():
    f = ft.jit(lambda a: newton_sqrt(Ours, a))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # structured: never the value-dependent fallback
        for a in (2.0, 1e6, 0.01, 9.0):
            a = np.array(a)
            np.testing.assert_allclose(f(a), np.sqrt(a), rtol=1e-10)
    assert len(f.cache) == 1
    (program,) = f.cache.values()
    assert not program.value_dependent
    assert "while_loop" in str(program)


def test_jit_cond_takes_the_branch_of_each_call():
    f = ft.jit(lambda x: piecewise(Ours, x))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for x in (X[0], -np.abs(X[1]), np.abs(X[2]), -np.abs(X[3])):
            close(f(x), piecewise(Jax, x))
    g = ft.jit(lambda i, x: three_way(Ours, i, x))
    for i in (0, 2, 1, -4, 11):
        close(g(np.array(i), X[0]), three_way(Jax, i, X[0]))
    assert not any(p.value_dependent for p in list(f.cache.values()) + list(g.cache.values()))


def test_jit_scan_and_fori_loop_record_the_body_once():
    lengths = []
    for T in (3, 30, 300):
        xs = rng.normal(size=(T, 3))
        program = ft.make_program(lambda p, xs: rnn(Ours, p, xs))(PARAMS, xs)
        lengths.append((program.recorded, len(program)))
        f = ft.jit(lambda p, xs: rnn(Ours, p, xs))
        close(f(PARAMS, xs), rnn(Jax, PARAMS, xs))
        close(f(PARAMS, xs * 0.5), rnn(Jax, PARAMS, xs * 0.5))
    assert lengths[0] == lengths[1] == lengths[2], lengths
    for hi in (6, 60):
        program = ft.make_program(lambda x: ft.fori_loop(0, hi, lambda i, v: np.tanh(v), x))(X[0])
        assert program.recorded == 1
    close(ft.jit(lambda x: damped(Ours, x))(X[0]), damped(Jax, X[0]))
    rev = ft.jit(lambda xs: ft.scan(lambda c, x: (c + x, c * x), 0.0 * xs[0], xs, reverse=True))
    close(rev(XS), Jax.scan(lambda c, x: (c + x, c * x), 0.0 * XS[0], XS, reverse=True))


def test_jit_records_structured_control_flow_under_vmap_and_jvp():
    def programs(f):
        return list(f.cache.values())

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # never the value-dependent (eager) fallback
        f = ft.jit(ft.vmap(lambda a: newton_sqrt(Ours, a)))
        for a in (np.array([2.0, 5.0, 1e6]), np.array([0.01, 9.0, 3.0])):
            close(f(a), Jax.vmap(lambda a: newton_sqrt(Jax, a))(a))
        g = ft.jit(lambda a, t: ft.jvp(lambda a: newton_sqrt(Ours, a), (a,), (t,)))
        for a in (4.0, 1e4):
            ref = Jax.jvp(lambda a: newton_sqrt(Jax, a), (a,), (1.0,))
            close(g(np.array(a), np.array(1.0)), ref)
        lengths = set()
        for T in (4, 40):
            xs = rng.normal(size=(3, T, 3))
            per_seq = ft.vmap(lambda xs: rnn(Ours, PARAMS, xs))  # carry unbatched at first
            h = ft.jit(per_seq)
            close(h(xs), Jax.vmap(lambda xs: rnn(Jax, PARAMS, xs))(xs))
            lengths.add(len(ft.make_program(per_seq)(xs)))
            assert not any(p.value_dependent for p in programs(h))
        assert len(lengths) == 1, lengths
        unbatched_pred = ft.vmap(  # batched operands, one predicate: one branch recorded
            lambda x, p: ft.cond(p, lambda v: np.sin(v) * 2.0, lambda v: v - 1.0, x),
            in_dims=(0, None),
        )
        c = ft.jit(unbatched_pred)
        for p in (True, False, True):
            close(c(X, np.array(p)), np.sin(X) * 2.0 if p else X - 1.0)
        n = ft.jit(ft.vmap(lambda n, x: ft.fori_loop(0, n, lambda i, v: v * 1.5 + i, x)))
        for k in (np.array([0, 2, 5]), np.array([7, 1, 1])):
            ref = Jax.vmap(lambda n, x: Jax.fori_loop(0, n, lambda i, v: v * 1.5 + i, x))
            close(n(k, X[0]), ref(k, X[0]))
    assert not any(p.value_dependent for f_ in (f, g, c, n) for p in programs(f_))


def nested(L, xs, w):
    """A cond inside a while_loop inside a scan, closing over w and the step's x."""

    def step(c, x):
        def body(s):
            k, v = s
            v = L.cond(v.sum() > x.sum(), lambda u: u * 0.5, lambda u: u + w, v)
            return k + 1, v

        k, v = L.while_loop(lambda s: (s[0] < 3) & (s[1].sum() < 10.0), body, (0, c))
        return v + x * w, (k, v.sum())

    return L.scan(step, w * 0 + 1.0, xs)


def test_jit_nested_control_flow():
    xs, w = rng.normal(size=(6, 3)), rng.normal(size=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f = ft.jit(lambda xs, w: nested(Ours, xs, w))
        for s in (1.0, 2.0, -1.0):
            close(f(xs * s, w), nested(Jax, xs * s, w))
        # xs a constant the scan closes over, w batched: nodes inside nodes under vmap
        W = rng.normal(size=(4, 3))
        g = ft.jit(ft.vmap(lambda w: nested(Ours, xs, w)))
        for s in (1.0, -2.0):
            close(g(W * s), Jax.vmap(lambda w: nested(Jax, xs, w))(W * s))
    program = str(ft.make_program(lambda xs, w: nested(Ours, xs, w))(xs, w))
    assert program.count("while_loop") == 1 and program.count("cond[]") == 1, program


def test_jit_of_transformed_control_flow_is_right():
    """Under a transform inside jit, control flow runs eagerly: never a baked-in branch."""
    f = ft.jit(ft.vmap(lambda a: newton_sqrt(Ours, a)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for a in (np.array([2.0, 5.0]), np.array([1e6, 0.01])):
            np.testing.assert_allclose(f(a), np.sqrt(a), rtol=1e-10)
        g = ft.jit(ft.grad(lambda x: piecewise_sum(Ours, x)))
        for x in (X[0], -np.abs(X[1])):
            close(g(x), Jax.grad(lambda x: piecewise_sum(Jax, x))(x))
        h = ft.jit(ft.grad(lambda p, xs: rnn_loss(Ours, p, xs)))
        close(h(PARAMS, XS), Jax.grad(lambda p, xs: rnn_loss(Jax, p, xs))(PARAMS, XS))


# -- the strict CuPy stand-in -------------------------------------------------------------


def test_strict_backend():
    a = to_strict(np.array([0.3, 2.0, 50.0]))
    out = ft.vmap(lambda a: newton_sqrt(Ours, a))(a)
    assert type(out).__name__ == "StrictArray"
    np.testing.assert_allclose(to_numpy(out), np.sqrt(to_numpy(a)), rtol=1e-10)
    g = ft.vmap(ft.grad(lambda a: newton_sqrt(Ours, a)))(a)
    np.testing.assert_allclose(to_numpy(g), 0.5 / np.sqrt(to_numpy(a)), rtol=1e-8)
    X2 = X * np.array([[1.0], [-1.0], [1.0], [-1.0], [1.0]])
    close(
        to_numpy(ft.vmap(lambda x: piecewise(Ours, x))(to_strict(X2))),
        Jax.vmap(lambda x: piecewise(Jax, x))(X2),
    )
    i = np.array([0, 1, 2, 7, -1])
    close(
        to_numpy(ft.vmap(lambda i, x: three_way(Ours, i, x))(to_strict(i), to_strict(X))),
        Jax.vmap(lambda i, x: three_way(Jax, i, x))(i, X),
    )
    p = tuple(to_strict(w) for w in PARAMS)
    close(to_numpy(rnn(OursFnp, p, to_strict(XS))), rnn(Jax, PARAMS, XS))
    close(
        to_numpy(ft.grad(lambda p: rnn_loss(OursFnp, p, to_strict(XS)))(p)),
        Jax.grad(lambda p: rnn_loss(Jax, p, XS))(PARAMS),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f = ft.jit(lambda a: newton_sqrt(Ours, a))
        for v in (2.0, 1e4):
            np.testing.assert_allclose(to_numpy(f(to_strict(np.array(v)))), np.sqrt(v))
        g = ft.jit(lambda x: piecewise(Ours, x))
        for x in (X[0], -np.abs(X[1])):
            close(to_numpy(g(to_strict(x))), piecewise(Jax, x))
        h = ft.jit(lambda p, xs: rnn(OursFnp, p, xs))
        close(to_numpy(h(p, to_strict(XS))), rnn(Jax, PARAMS, XS))
        v = ft.jit(ft.vmap(lambda a: newton_sqrt(Ours, a)))  # batched predicate, structured
        for b in (np.array([0.3, 2.0, 50.0]), np.array([1e4, 1.0, 7.0])):
            np.testing.assert_allclose(to_numpy(v(to_strict(b))), np.sqrt(b), rtol=1e-10)
        xs3 = rng.normal(size=(2, 5, 3))
        r = ft.jit(ft.vmap(lambda xs: rnn(OursFnp, p, xs)))
        close(to_numpy(r(to_strict(xs3))), Jax.vmap(lambda xs: rnn(Jax, PARAMS, xs))(xs3))
    assert not any(q.value_dependent for q in list(v.cache.values()) + list(r.cache.values()))


# -- errors ------------------------------------------------------------------------------


def _raises(err, fn, *contains):
    with pytest.raises(err) as info:
        fn()
    for text in contains:
        assert text in str(info.value), str(info.value)
    assert current_stack() == ()
    return info.value


def test_errors_branch_outputs():
    bad = lambda x: ft.cond(x > 0, lambda v: v, lambda v: (v, v), x)  # noqa: E731
    for x in (np.array(1.0), np.array(-1.0)):  # eagerly, whichever branch is taken
        _raises(BranchOutputError, lambda: bad(x), "cond(", "true_fun", "false_fun")
    _raises(BranchOutputError, lambda: ft.grad(bad)(np.array(2.0)), "cond(")
    _raises(
        BranchOutputError,
        lambda: ft.switch(1, [lambda v: v, lambda v: v[:2], lambda v: v], X[0]),
        "switch(",
        "branch 1",
    )
    err = _raises(BranchOutputError, lambda: ft.vmap(bad)(X[0]), "cond(", "true_fun", "same")
    assert isinstance(err, TypeError) and isinstance(err, ControlFlowError)
    _raises(BranchOutputError, lambda: ft.jit(bad)(np.array(1.0)), "cond(")
    wrong_dtype = lambda x: ft.cond(x > 0, lambda v: v, lambda v: v.astype(np.float32), x)  # noqa: E731
    _raises(BranchOutputError, lambda: ft.vmap(wrong_dtype)(X[0]), "float32", "float64")
    sw = lambda i, x: ft.switch(i, [lambda v: v, lambda v: v[:2]], x)  # noqa: E731
    _raises(BranchOutputError, lambda: ft.vmap(sw)(np.array([0, 1, 0]), X[:3]), "switch(", "[3]")


def test_errors_carry_changes():
    _raises(
        CarryError,
        lambda: ft.while_loop(lambda v: v.sum() < 10, lambda v: np.append(v, 1.0), np.ones(2)),
        "while_loop(",
        "[2]",
        "[3]",
    )
    _raises(  # checked even when the loop runs zero times, as JAX does
        CarryError,
        lambda: ft.while_loop(lambda v: v.sum() > 10, lambda v: (v, v), np.ones(2)),
        "while_loop(",
    )
    _raises(
        CarryError,
        lambda: ft.fori_loop(0, 3, lambda i, v: v.astype(np.float32), np.ones(2)),
        "fori_loop(",
        "float32",
    )
    _raises(
        CarryError,
        lambda: ft.scan(lambda c, x: ((c, c), x), np.zeros(2), np.ones((3, 2))),
        "scan(",
        "f's new carry",
    )
    _raises(
        CarryError,
        lambda: ft.vmap(
            lambda a: ft.while_loop(lambda v: v.sum() < a, lambda v: v[:1] * 2.0, np.ones(2))
        )(np.array([3.0, 5.0])),
        "while_loop(",
    )


def test_errors_predicates_and_lengths():
    _raises(PredicateError, lambda: ft.cond(np.ones(3) > 0, lambda: 1.0, lambda: 2.0), "shape ()")
    _raises(
        PredicateError,
        lambda: ft.while_loop(lambda v: v > 0, lambda v: v - 1.0, np.ones(2)),
        "while_loop(",
        "fnp.all",
    )
    _raises(PredicateError, lambda: ft.switch(np.array(0.5), [lambda: 1.0], ()), "switch(")
    _raises(ScanLengthError, lambda: ft.scan(lambda c, x: (c, x), 0.0, (np.ones(3), np.ones(4))))
    _raises(ScanLengthError, lambda: ft.scan(lambda c, x: (c, x), 0.0, np.ones(3), length=4))
    _raises(ScanLengthError, lambda: ft.scan(lambda c, x: (c, x), 0.0, None))
    # the stack is clean and the next call works
    assert float(ft.cond(True, lambda: 1.0, lambda: 2.0)) == 1.0


def test_batched_control_flow_error_names_the_operators():
    def f(x):
        return x if x.sum() > 0 else -x

    err = _raises(
        BatchedControlFlowError, lambda: ft.vmap(f, split=False)(X), "ft.cond", "ft.while_loop"
    )
    assert "fnp.where" in str(err)


def test_public_names():
    for name in ("cond", "switch", "while_loop", "fori_loop", "scan"):
        assert name in ft.__all__ and callable(getattr(ft, name))
    assert fnp is not None
