"""``ft.jit`` replays that once differed from the eager (recording) call.

A replay runs the recorded program after the rewrites of ``ftransforms/program_rewrites.py``;
every call here is compared with the eager transform and with JAX in float64.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ftransforms as ft
from ftransforms.program_rewrites import sink_transposes

jax.config.update("jax_enable_x64", True)

LR = 0.01


def _net(xp, act, p, x):
    w1, b1, w2, b2, w3, b3 = p
    h = act(x @ w1.T + b1)
    h = act(h @ w2.T + b2)  # w2 is square: its transpose keeps its shape
    return h @ w3.T + b3


def _np_relu(z):
    return np.maximum(z, 0)


def _jax_relu(z):
    return jnp.maximum(z, 0)


def _params(rng, hidden=12):
    shapes = [(hidden, 1), (hidden,), (hidden, hidden), (hidden,), (1, hidden), (1,)]
    return tuple(rng.normal(size=s) for s in shapes)


def _data(rng, tasks=3, k=5):
    xs, xq = rng.uniform(-5, 5, size=(2, tasks, k, 1))
    return xs, np.sin(xs), xq, np.sin(xq)


def _meta_grads(xp, act, grad, vmap, use_vmap=True):
    mean = np.mean if xp is np else jnp.mean

    def mse(p, x, y):
        return mean((_net(xp, act, p, x) - y) ** 2)

    def task_loss(p, xs, ys, xq, yq):
        g = grad(mse)(p, xs, ys)
        return mse(tuple(a - LR * ga for a, ga in zip(p, g)), xq, yq)

    def meta_loss(p, xs, ys, xq, yq):
        if use_vmap:
            return mean(vmap(task_loss, (None, 0, 0, 0, 0))(p, xs, ys, xq, yq))
        return task_loss(p, xs[0], ys[0], xq[0], yq[0])

    return meta_loss


CASES = {
    "relu-grad-vmap": (_np_relu, _jax_relu, True, "grad"),
    "tanh-grad-vmap": (np.tanh, jnp.tanh, True, "grad"),
    "relu-grad-no-vmap": (_np_relu, _jax_relu, False, "grad"),
    "relu-jacrev-vmap": (_np_relu, _jax_relu, True, "jacrev"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_second_order_maml_meta_gradient_replays_equal_eager_and_jax(case):
    np_act, jax_act, use_vmap, outer = CASES[case]
    rng = np.random.default_rng(0)
    p, data = _params(rng), _data(rng)
    ft_outer = {"grad": ft.grad, "jacrev": ft.jacrev}[outer]
    jax_outer = {"grad": jax.grad, "jacrev": jax.jacrev}[outer]
    f = ft_outer(_meta_grads(np, np_act, ft.grad, ft.vmap, use_vmap))
    expected = jax.jit(jax_outer(_meta_grads(jnp, jax_act, jax.grad, jax.vmap, use_vmap)))(
        tuple(jnp.asarray(a) for a in p), *data
    )
    eager = f(p, *data)
    jitted = ft.jit(f, compile=False)
    for call in range(3):  # the first call records (eagerly); the others replay
        got = jitted(p, *data)
        for k, (g, e, x) in enumerate(zip(got, eager, expected)):
            np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12, err_msg=f"call {call} p[{k}]")
            np.testing.assert_allclose(g, np.asarray(x), rtol=1e-9, atol=1e-9)


def test_sink_transposes_keeps_the_transpose_of_a_square_operand():
    # transpose(x.T + y) is x + y.T, not x + reshape(y): a square y keeps its shape under
    # the transpose, its values move.
    def f(x, y):
        return np.transpose(np.transpose(x) + y)

    x, y = np.arange(16.0).reshape(4, 4), 10 * np.arange(16.0).reshape(4, 4)
    prog = ft.make_program(f, optimize=False)(x, y)
    types = [((4, 4), np.float64)] * 2
    names = [e.prim.name for e in sink_transposes(prog.eqns, prog.out_refs, types)]
    assert "reshape" not in names
    jitted = ft.jit(f, compile=False)
    for _ in range(3):
        np.testing.assert_array_equal(jitted(x, y), x + y.T)
