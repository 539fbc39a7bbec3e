# ruff: noqa  (a published program in its authors' style)
"""Chapter 3 of the NeurIPS 2020 tutorial "Deep Implicit Layers" (Kolter, Duvenaud &
Johnson; implicit-layers-tutorial.org), in JAX: a residual network and an ODE-Net fitted
to ``y = x^3 + 0.1 x``; the ODE-Net's dynamics ``mlp(params, hstack([state, time]))``
integrated by ``jax.experimental.ode.odeint`` over ``[0, 1]``, batched by ``vmap(odenet,
in_axes=(None, 0))``, trained by a jitted ``grad`` step.  The imports name
``ftransforms`` where the original names ``jax``; the training loops (1000 steps, with
plots) are :func:`train_resnet` and :func:`train_odenet` (a few steps, printing)."""

import ftransforms.numpy as jnp


def mlp(params, inputs):
    # A multi-layer perceptron, i.e. a fully-connected neural network.
    for w, b in params:
        outputs = jnp.dot(inputs, w) + b  # Linear transform
        inputs = jnp.tanh(outputs)  # Nonlinearity
    return outputs


def resnet(params, inputs, depth):
    for i in range(depth):
        outputs = mlp(params, inputs) + inputs
    return outputs


import numpy.random as npr
from ftransforms import jit, grad

resnet_depth = 3


def resnet_squared_loss(params, inputs, targets):
    preds = resnet(params, inputs, resnet_depth)
    return jnp.mean(jnp.sum((preds - targets) ** 2, axis=1))


def init_random_params(scale, layer_sizes, rng=npr.RandomState(0)):
    return [
        (scale * rng.randn(m, n), scale * rng.randn(n))
        for m, n in zip(layer_sizes[:-1], layer_sizes[1:])
    ]


# A simple gradient-descent optimizer.
@jit
def resnet_update(params, inputs, targets):
    grads = grad(resnet_squared_loss)(params, inputs, targets)
    return [(w - step_size * dw, b - step_size * db) for (w, b), (dw, db) in zip(params, grads)]


# Toy 1D dataset.
inputs = jnp.reshape(jnp.linspace(-2.0, 2.0, 10), (10, 1))
targets = inputs**3 + 0.1 * inputs

# Hyperparameters.
layer_sizes = [1, 20, 1]
param_scale = 1.0
step_size = 0.01
train_iters = 1000


def train_resnet(train_iters):
    # Initialize and train.
    resnet_params = init_random_params(param_scale, layer_sizes, rng=npr.RandomState(0))
    for i in range(train_iters):
        resnet_params = resnet_update(resnet_params, inputs, targets)
    return resnet_params


def nn_dynamics(state, time, params):
    state_and_time = jnp.hstack([state, jnp.array(time)])
    return mlp(params, state_and_time)


from ftransforms.experimental.ode import odeint


def odenet(params, input):
    start_and_end_times = jnp.array([0.0, 1.0])
    init_state, final_state = odeint(nn_dynamics, input, start_and_end_times, params)
    return final_state


from ftransforms import vmap

batched_odenet = vmap(odenet, in_axes=(None, 0))

# We need to change the input dimension to 2, to allow time-dependent dynamics.
odenet_layer_sizes = [2, 20, 1]


def odenet_loss(params, inputs, targets):
    preds = batched_odenet(params, inputs)
    return jnp.mean(jnp.sum((preds - targets) ** 2, axis=1))


@jit
def odenet_update(params, inputs, targets):
    grads = grad(odenet_loss)(params, inputs, targets)
    return [(w - step_size * dw, b - step_size * db) for (w, b), (dw, db) in zip(params, grads)]


def train_odenet(train_iters):
    # Initialize and train ODE-Net.
    odenet_params = init_random_params(param_scale, odenet_layer_sizes, rng=npr.RandomState(0))
    for i in range(train_iters):
        odenet_params = odenet_update(odenet_params, inputs, targets)
        print(i, odenet_loss(odenet_params, inputs, targets))
    return odenet_params
