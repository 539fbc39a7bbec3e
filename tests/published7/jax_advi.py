# ruff: noqa  (a published program in its authors' style)
"""JAX's ``examples/advi.py``: automatic differentiation variational inference of the
funnel density, a Monte Carlo ELBO averaged by ``vmap(partial(elbo, logprob),
in_axes=(0, None, None))`` over ``random.split`` keys, ``vmap(norm.logpdf)`` inside, the
plotting helper ``jit(static_argnums=(0, 1, 2, 4))`` (a decorator made by ``jit`` called
with options only) evaluating a function on a grid, and ``optimizers.momentum`` driven by
a jitted ``update`` whose step number seeds ``random.key(t)``.  The imports name
``ftransforms`` where the original names ``jax``; the ``__main__`` block's optimisation
loop is ``run`` (plotting left out).

Copyright 2018 Google LLC; Apache License, Version 2.0."""

from functools import partial

from ftransforms import jit, grad, vmap
from ftransforms import random
from ftransforms.example_libraries import optimizers
import ftransforms.numpy as jnp
import ftransforms.scipy.stats.norm as norm


# ========= Functions to define the evidence lower bound. =========


def diag_gaussian_sample(rng, mean, log_std):
    # Take a single sample from a diagonal multivariate Gaussian.
    return mean + jnp.exp(log_std) * random.normal(rng, mean.shape)


def diag_gaussian_logpdf(x, mean, log_std):
    # Evaluate a single point on a diagonal multivariate Gaussian.
    return jnp.sum(vmap(norm.logpdf)(x, mean, jnp.exp(log_std)))


def elbo(logprob, rng, mean, log_std):
    # Single-sample Monte Carlo estimate of the variational lower bound.
    sample = diag_gaussian_sample(rng, mean, log_std)
    return logprob(sample) - diag_gaussian_logpdf(sample, mean, log_std)


def batch_elbo(logprob, rng, params, num_samples):
    # Average over a batch of random samples.
    rngs = random.split(rng, num_samples)
    vectorized_elbo = vmap(partial(elbo, logprob), in_axes=(0, None, None))
    return jnp.mean(vectorized_elbo(rngs, *params))


# ========= Helper function for plotting. =========


@jit(static_argnums=(0, 1, 2, 4))
def _mesh_eval(func, x_limits, y_limits, params, num_ticks):
    # Evaluate func on a 2D grid defined by x_limits and y_limits.
    x = jnp.linspace(*x_limits, num=num_ticks)
    y = jnp.linspace(*y_limits, num=num_ticks)
    X, Y = jnp.meshgrid(x, y)
    xy_vec = jnp.stack([X.ravel(), Y.ravel()]).T
    zs = vmap(func, in_axes=(0, None))(xy_vec, params)
    return X, Y, zs.reshape(X.shape)


def mesh_eval(func, x_limits, y_limits, params, num_ticks=101):
    return _mesh_eval(func, x_limits, y_limits, params, num_ticks)


# ========= Define an intractable unnormalized density =========


def funnel_log_density(params):
    return norm.logpdf(params[0], 0, jnp.exp(params[1])) + norm.logpdf(params[1], 0, 1.35)


def run(num_iters=100, num_samples=40):
    @jit
    def objective(params, t):
        rng = random.key(t)
        return -batch_elbo(funnel_log_density, rng, params, num_samples)

    target_dist = lambda x, _: jnp.exp(funnel_log_density(x))
    approx_dist = lambda x, params: jnp.exp(diag_gaussian_logpdf(x, *params))

    # Set up optimizer.
    D = 2
    init_mean = jnp.zeros(D)
    init_std = jnp.zeros(D)
    init_params = (init_mean, init_std)
    opt_init, opt_update, get_params = optimizers.momentum(step_size=0.1, mass=0.9)
    opt_state = opt_init(init_params)

    @jit
    def update(i, opt_state):
        params = get_params(opt_state)
        gradient = grad(objective)(params, i)
        return opt_update(i, gradient, opt_state)

    # Main loop.
    bounds = []
    for t in range(num_iters):
        opt_state = update(t, opt_state)
        params = get_params(opt_state)
        bounds.append(objective(params, t))
    x_limits = (-2, 2)
    y_limits = (-4, 2)
    grids = (
        mesh_eval(target_dist, x_limits, y_limits, 1, 5),
        mesh_eval(approx_dist, x_limits, y_limits, params, 5),
    )
    rngs = random.split(random.key(num_iters - 1), num_samples)
    samples = vmap(diag_gaussian_sample, in_axes=(0, None, None))(rngs, *params)
    return params, bounds, grids, samples
