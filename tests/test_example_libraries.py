"""``ftransforms.example_libraries.optimizers`` against JAX's own
``jax.example_libraries.optimizers`` (same updates on a pytree of parameters, schedules
included), under ``jit``, and differentiated through its steps."""

from __future__ import annotations

import jax
import jax.example_libraries.optimizers as jax_optimizers
import jax.numpy as jnp
import numpy as np
import pytest

import ftransforms as ft
from ftransforms.example_libraries import optimizers
from tests.program_oracles import FD_TOL, close, fd_jacobian

jax.config.update("jax_enable_x64", True)

CASES = [
    ("sgd", (0.1,), {}),
    ("momentum", (0.1,), {"mass": 0.9}),
    ("nesterov", (0.1,), {"mass": 0.8}),
    ("adagrad", (0.1,), {}),
    ("rmsprop", (0.1,), {}),
    ("rmsprop_momentum", (0.1,), {}),
    ("adam", (0.1,), {}),
    ("adamax", (0.1,), {}),
]


def loss(p, xp=np):
    return xp.sum((p["w"] - 1.0) ** 2 * xp.arange(1.0, 4.0)) + xp.sin(p["b"][0]) * p["b"][1]


@pytest.mark.parametrize("name, args, kwargs", CASES, ids=[c[0] for c in CASES])
def test_optimizers_match_jax(name, args, kwargs):
    params = {"w": np.array([0.5, -1.0, 2.0]), "b": np.array([0.3, 2.0])}
    ours = getattr(optimizers, name)(*args, **kwargs)
    theirs = getattr(jax_optimizers, name)(*args, **kwargs)
    state, j_state = ours.init_fn(params), theirs.init_fn(params)
    step = ft.jit(lambda i, s: ours.update_fn(i, ft.grad(loss)(ours.params_fn(s)), s))
    for i in range(2):
        state = step(i, state)
        j_grads = jax.grad(lambda p: loss(p, jnp))(theirs.params_fn(j_state))
        j_state = theirs.update_fn(i, j_grads, j_state)
    close(ours.params_fn(state), theirs.params_fn(j_state))
    close(ft.tree_leaves(state), jax.tree_util.tree_leaves(j_state))


def test_schedules_match_jax():
    pairs = [
        (
            optimizers.exponential_decay(0.5, 10, 0.3),
            jax_optimizers.exponential_decay(0.5, 10, 0.3),
        ),
        (
            optimizers.inverse_time_decay(0.5, 4, 2.0, staircase=True),
            jax_optimizers.inverse_time_decay(0.5, 4, 2.0, staircase=True),
        ),
        (
            optimizers.polynomial_decay(1.0, 6, 0.1, 2.0),
            jax_optimizers.polynomial_decay(1.0, 6, 0.1, 2.0),
        ),
        (
            optimizers.piecewise_constant([3, 7], [1.0, 0.5, 0.1]),
            jax_optimizers.piecewise_constant([3, 7], [1.0, 0.5, 0.1]),
        ),
    ]
    for ours, theirs in pairs:
        for i in (3, 7, 12):
            close(np.asarray(ours(i)), np.asarray(theirs(i)), msg=f"step {i}")
    grads = {"a": np.array([3.0, 4.0]), "b": np.array([12.0])}
    close(optimizers.l2_norm(grads), 13.0)
    close(optimizers.clip_grads(grads, 1.0), {k: v / 13.0 for k, v in grads.items()})
    close(optimizers.clip_grads(grads, 20.0), grads)


def test_optimizer_steps_are_differentiable_and_refuse_other_structures():
    def after_steps(step_size):
        init, update, get = optimizers.adam(step_size)
        state = init({"w": np.array([0.5, -1.0, 2.0]), "b": np.array([0.3, 2.0])})
        for i in range(3):
            state = update(i, ft.grad(loss)(get(state)), state)
        return loss(get(state))

    close(ft.grad(after_steps)(0.05), fd_jacobian(after_steps, (0.05,)), FD_TOL)
    init, update, _ = optimizers.sgd(0.1)
    state = init({"w": np.ones(2)})
    with pytest.raises(TypeError, match=r"update_fun\(step, grads, opt_state\): expected grads"):
        update(0, [np.ones(2)], state)
    with pytest.raises(TypeError, match=r"make_schedule\(step_size\)"):
        optimizers.sgd(np.ones(2))
    with pytest.raises(ValueError, match="one more value than boundaries"):
        optimizers.piecewise_constant([1, 2], [1.0, 2.0])
    packed = optimizers.pack_optimizer_state(optimizers.unpack_optimizer_state(state))
    close(ft.tree_leaves(packed), ft.tree_leaves(state))
