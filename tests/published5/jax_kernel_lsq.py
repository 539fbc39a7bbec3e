# ruff: noqa  (a published program in its authors' style)
"""JAX's examples/kernel_lsq.py: kernel least squares, a Gram matrix by nested ``vmap``
of a kernel, ``jit(partial(gram, kernel))``, the momentum optimizer of
``jax.example_libraries.optimizers`` in a jitted update step, and a jitted ``vmap`` of the
predictor.  The step count is a parameter."""

from functools import partial

import numpy.random as npr

import ftransforms.numpy as jnp
from ftransforms import grad, jit, vmap
from ftransforms.example_libraries import optimizers


def gram(kernel, xs):
    """Compute a Gram matrix from a kernel and an array of data points."""
    return vmap(lambda x: vmap(lambda y: kernel(x, y))(xs))(xs)


def minimize(f, x, num_steps=10000, step_size=0.000001, mass=0.9):
    opt_init, opt_update, get_params = optimizers.momentum(step_size, mass)

    @jit
    def update(i, opt_state):
        x = get_params(opt_state)
        return opt_update(i, grad(f)(x), opt_state)

    opt_state = opt_init(x)
    for i in range(num_steps):
        opt_state = update(i, opt_state)
    return get_params(opt_state)


def train(kernel, xs, ys, regularization=0.01, num_steps=10000):
    gram_ = jit(partial(gram, kernel))
    gram_mat = gram_(xs)
    n = xs.shape[0]

    def objective(v):
        risk = 0.5 * jnp.sum((jnp.dot(gram_mat, v) - ys) ** 2.0)
        reg = regularization * jnp.sum(v**2.0)
        return risk + reg

    v = minimize(objective, jnp.zeros(n), num_steps=num_steps)

    def predict(x):
        prods = vmap(lambda x_: kernel(x, x_))(xs)
        return jnp.sum(v * prods)

    return jit(vmap(predict))


def main(n=100, d=20, num_steps=10000):
    # linear kernel
    kernel = lambda x, y: jnp.dot(x, y)
    truth = npr.randn(d)
    xs = npr.randn(n, d)
    ys = jnp.dot(xs, truth)

    predict = train(kernel, xs, ys, num_steps=num_steps)

    mse = jnp.sum((predict(xs) - ys) ** 2.0)
    print("MSE:", mse)
    return predict, xs, ys, mse
