# ruff: noqa  (a published program in its authors' style)
"""Cranmer et al.'s Lagrangian Neural Networks tutorial (lagrangian_nns, LNN_Tutorial):
the double pendulum's equations of motion from its Lagrangian, ``pinv(hessian(L, 1))``
times ``grad(L, 0) - jacobian(jacobian(L, 1), 0) @ q_t``, integrated by ``odeint`` under
``jit(backend='cpu')``; then a learned Lagrangian (an MLP; ``stax.serial(Dense, Softplus,
...)`` written as a list of weight pairs) trained through ``vmap`` of that equation with
``grad`` of the loss: a third derivative of the network."""

from functools import partial

import numpy as np

import ftransforms as jax
import ftransforms.numpy as jnp
from ftransforms.scipy.integrate import odeint


def lagrangian(q, q_dot, m1, m2, l1, l2, g):
    t1, t2 = q  # theta 1 and theta 2
    w1, w2 = q_dot  # omega 1 and omega 2

    # kinetic energy (T)
    T1 = 0.5 * m1 * (l1 * w1) ** 2
    T2 = 0.5 * m2 * ((l1 * w1) ** 2 + (l2 * w2) ** 2 + 2 * l1 * l2 * w1 * w2 * jnp.cos(t1 - t2))
    T = T1 + T2

    # potential energy (V)
    y1 = -l1 * jnp.cos(t1)
    y2 = y1 - l2 * jnp.cos(t2)
    V = m1 * g * y1 + m2 * g * y2

    return T - V


def f_analytical(state, t=0, m1=1, m2=1, l1=1, l2=1, g=9.8):
    t1, t2, w1, w2 = state
    a1 = (l2 / l1) * (m2 / (m1 + m2)) * jnp.cos(t1 - t2)
    a2 = (l1 / l2) * jnp.cos(t1 - t2)
    f1 = -(l2 / l1) * (m2 / (m1 + m2)) * (w2**2) * jnp.sin(t1 - t2) - (g / l1) * jnp.sin(t1)
    f2 = (l1 / l2) * (w1**2) * jnp.sin(t1 - t2) - (g / l2) * jnp.sin(t2)
    g1 = (f1 - a1 * f2) / (1 - a1 * a2)
    g2 = (f2 - a2 * f1) / (1 - a1 * a2)
    return jnp.stack([w1, w2, g1, g2])


def equation_of_motion(lagrangian, state, t=None):
    q, q_t = jnp.split(state, 2)
    q_tt = jnp.linalg.pinv(jax.hessian(lagrangian, 1)(q, q_t)) @ (
        jax.grad(lagrangian, 0)(q, q_t) - jax.jacobian(jax.jacobian(lagrangian, 1), 0)(q, q_t) @ q_t
    )
    return jnp.concatenate([q_t, q_tt])


def solve_lagrangian(lagrangian, initial_state, **kwargs):
    # We currently run odeint on CPUs only, because its cost is dominated by
    # control flow, which is slow on GPUs.
    @partial(jax.jit, backend="cpu")
    def f(initial_state):
        return odeint(partial(equation_of_motion, lagrangian), initial_state, **kwargs)

    return f(initial_state)


# Double pendulum dynamics via the rewritten Euler-Lagrange
@partial(jax.jit, backend="cpu")
def solve_autograd(initial_state, times, m1=1, m2=1, l1=1, l2=1, g=9.8):
    L = partial(lagrangian, m1=m1, m2=m2, l1=l1, l2=l2, g=g)
    return solve_lagrangian(L, initial_state, t=times, rtol=1e-10, atol=1e-10)


# Double pendulum dynamics via analytical forces taken from Diego's blog
@partial(jax.jit, backend="cpu")
def solve_analytical(initial_state, times):
    return odeint(f_analytical, initial_state, t=times, rtol=1e-10, atol=1e-10)


def normalize_dp(state):
    # wrap generalized coordinates to [-pi, pi]
    return jnp.concatenate([(state[:2] + np.pi) % (2 * np.pi) - np.pi, state[2:]])


def rk4_step(f, x, t, h):
    # one step of runge-kutta integration
    k1 = h * f(x, t)
    k2 = h * f(x + k1 / 2, t + h / 2)
    k3 = h * f(x + k2 / 2, t + h / 2)
    k4 = h * f(x + k3, t + h)
    return x + 1 / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


# the MLP of stax.serial(Dense(h), Softplus, Dense(h), Softplus, Dense(1))
def init_random_params(rng, input_shape, hidden=16):
    sizes = [input_shape[-1], hidden, hidden, 1]
    return [
        (rng.normal(size=(m, n)) / np.sqrt(m), rng.normal(size=(n,)) * 1e-2)
        for m, n in zip(sizes[:-1], sizes[1:])
    ]


def nn_forward_fn(params, inputs):
    for i, (W, b) in enumerate(params):
        inputs = jnp.dot(inputs, W) + b
        if i < len(params) - 1:
            inputs = jax.nn.softplus(inputs)
    return inputs


def learned_lagrangian(params):
    def lagrangian(q, q_t):
        assert q.shape == (2,)
        state = normalize_dp(jnp.concatenate([q, q_t]))
        return jnp.squeeze(nn_forward_fn(params, state), axis=-1)

    return lagrangian


# define the loss of the model (MSE between predicted q, \dot q and targets)
@jax.jit
def loss(params, batch, time_step=None):
    state, targets = batch
    if time_step is not None:
        f = partial(equation_of_motion, learned_lagrangian(params))
        preds = jax.vmap(partial(rk4_step, f, t=0.0, h=time_step))(state)
    else:
        preds = jax.vmap(partial(equation_of_motion, learned_lagrangian(params)))(state)
    return jnp.mean((preds - targets) ** 2)


def train(params, batch, test_batch, num_batches=150, learn_rate=1e-3, log=print):
    @jax.jit
    def update_derivative(i, params, batch):
        g = jax.grad(loss)(params, batch, None)
        return [(W - learn_rate * gW, b - learn_rate * gb) for (W, b), (gW, gb) in zip(params, g)]

    train_losses = []
    test_losses = []
    for iteration in range(num_batches):
        if iteration % 50 == 0:
            train_loss = loss(params, batch)
            train_losses.append(train_loss)
            test_loss = loss(params, test_batch)
            test_losses.append(test_loss)
            log(f"iteration={iteration}, train_loss={train_loss:.6f}, test_loss={test_loss:.6f}")
        params = update_derivative(iteration, params, batch)
    return params, train_losses, test_losses
