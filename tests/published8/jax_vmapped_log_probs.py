# ruff: noqa  (a published program in its authors' style)
"""JAX's documentation notebook "Autobatching log-densities example"
(docs/notebooks/vmapped_log_probs.md): a Bayesian logistic regression's log-joint written
for one ``beta``, batched by hand and by ``jax.vmap``; then variational inference with
``jax.jit(jax.vmap(log_joint))`` inside a jitted ELBO, ``jax.jit(jax.value_and_grad(elbo,
argnums=(0, 1)))``, ``normal_sample`` jitted with ``static_argnums=(1,)`` and SGD by ``+=``.
The imports name ``ftransforms`` where the notebook names ``jax``; the cells run at import
except the optimisation loop, which is ``optimize(num_steps)`` (1000 steps in the
notebook), and the plots, which are left out.

From https://github.com/jax-ml/jax (docs/notebooks/vmapped_log_probs.md), Copyright 2018
The JAX Authors; Apache License, Version 2.0."""

import functools
import itertools
import re
import sys
import time

import ftransforms as jax

from ftransforms import lax
import ftransforms.numpy as jnp
import ftransforms.scipy as jsp
from ftransforms import random

import numpy as np
import scipy as sp

# ## Generate a fake binary classification dataset

np.random.seed(10009)

num_features = 10
num_points = 100

true_beta = np.random.randn(num_features).astype(jnp.float32)
all_x = np.random.randn(num_points, num_features).astype(jnp.float32)
y = (np.random.rand(num_points) < sp.special.expit(all_x.dot(true_beta))).astype(jnp.int32)

# ### Non-batched


def log_joint(beta):
    result = 0.0
    # Note that no `axis` parameter is provided to `jnp.sum`.
    result = result + jnp.sum(jsp.stats.norm.logpdf(beta, loc=0.0, scale=1.0))
    result = result + jnp.sum(-jnp.log(1 + jnp.exp(-(2 * y - 1) * jnp.dot(all_x, beta))))
    return result


log_joint(np.random.randn(num_features))

# This doesn't work, because we didn't write `log_prob()` to handle batching.
try:
    batch_size = 10
    batched_test_beta = np.random.randn(batch_size, num_features)

    log_joint(np.random.randn(batch_size, num_features))
except ValueError as e:
    print("Caught expected exception " + str(e))

# ### Manually batched


def batched_log_joint(beta):
    result = 0.0
    # Here (and below) `sum` needs an `axis` parameter. At best, forgetting to set axis
    # or setting it incorrectly yields an error; at worst, it silently changes the
    # semantics of the model.
    result = result + jnp.sum(jsp.stats.norm.logpdf(beta, loc=0.0, scale=1.0), axis=-1)
    # Note the multiple transposes. Getting this right is not rocket science,
    # but it's also not totally mindless. (I didn't get it right on the first
    # try.)
    result = result + jnp.sum(
        -jnp.log(1 + jnp.exp(-(2 * y - 1) * jnp.dot(all_x, beta.T).T)), axis=-1
    )
    return result


batch_size = 10
batched_test_beta = np.random.randn(batch_size, num_features)

manually_batched = batched_log_joint(batched_test_beta)

# ### Autobatched with vmap

vmap_batched_log_joint = jax.vmap(log_joint)
autobatched = vmap_batched_log_joint(batched_test_beta)

# ## Self-contained variational inference example

non_batched_log_joint = log_joint  # (the notebook rebinds the name below)


@jax.jit
def log_joint(beta):
    result = 0.0
    # Note that no `axis` parameter is provided to `jnp.sum`.
    result = result + jnp.sum(jsp.stats.norm.logpdf(beta, loc=0.0, scale=10.0))
    result = result + jnp.sum(-jnp.log(1 + jnp.exp(-(2 * y - 1) * jnp.dot(all_x, beta))))
    return result


batched_log_joint = jax.jit(jax.vmap(log_joint))

# ### Define the ELBO and its gradient


def elbo(beta_loc, beta_log_scale, epsilon):
    beta_sample = beta_loc + jnp.exp(beta_log_scale) * epsilon
    return jnp.mean(batched_log_joint(beta_sample), 0) + jnp.sum(
        beta_log_scale - 0.5 * np.log(2 * np.pi)
    )


elbo = jax.jit(elbo)
elbo_val_and_grad = jax.jit(jax.value_and_grad(elbo, argnums=(0, 1)))

# ### Optimize the ELBO using SGD


def normal_sample(key, shape):
    """Convenience function for quasi-stateful RNG."""
    new_key, sub_key = random.split(key)
    return new_key, random.normal(sub_key, shape)


normal_sample = jax.jit(normal_sample, static_argnums=(1,))


def optimize(num_steps=1000):
    key = random.PRNGKey(10003)

    beta_loc = jnp.zeros(num_features, jnp.float32)
    beta_log_scale = jnp.zeros(num_features, jnp.float32)

    step_size = 0.01
    batch_size = 128
    epsilon_shape = (batch_size, num_features)
    for i in range(num_steps):
        key, epsilon = normal_sample(key, epsilon_shape)
        elbo_val, (beta_loc_grad, beta_log_scale_grad) = elbo_val_and_grad(
            beta_loc, beta_log_scale, epsilon
        )
        beta_loc += step_size * beta_loc_grad
        beta_log_scale += step_size * beta_log_scale_grad
        if i % 10 == 0:
            print("{}\t{}".format(i, elbo_val))
    return beta_loc, beta_log_scale
