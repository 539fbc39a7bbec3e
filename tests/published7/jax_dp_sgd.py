# ruff: noqa  (a published program in its authors' style)
"""JAX's ``examples/differentially_private_sgd.py``: DP-SGD on a ``stax`` conv net
(``Conv``/``Relu``/``MaxPool``/``Flatten``/``Dense``, ``stax.logsoftmax``): per-example
gradients by ``vmap(clipped_grad, (None, None, 0))`` over a batch shaped
``(-1, 1, 28, 28, 1)`` (each example a batch of one), each clipped by the norm of
``jnp.array`` of its leaves' norms, summed, noised with ``random.normal`` of
``random.split`` keys, and the jitted ``private_update`` with ``random.fold_in(rng, i)``.
The imports name ``ftransforms`` where the original names ``jax``; the flags become
``main``'s parameters, MNIST a batch handed in, the privacy accounting is left out.

Copyright 2019 Google LLC; Apache License, Version 2.0."""

from ftransforms import grad
from ftransforms import jit
from ftransforms import random
from ftransforms import vmap
from ftransforms.example_libraries import optimizers
from ftransforms.example_libraries import stax
import ftransforms.numpy as jnp
from ftransforms.tree_util import tree_flatten, tree_unflatten


init_random_params, predict = stax.serial(
    stax.Conv(16, (8, 8), padding="SAME", strides=(2, 2)),
    stax.Relu,
    stax.MaxPool((2, 2), (1, 1)),
    stax.Conv(32, (4, 4), padding="VALID", strides=(2, 2)),
    stax.Relu,
    stax.MaxPool((2, 2), (1, 1)),
    stax.Flatten,
    stax.Dense(32),
    stax.Relu,
    stax.Dense(10),
)


def loss(params, batch):
    inputs, targets = batch
    logits = predict(params, inputs)
    logits = stax.logsoftmax(logits)  # log normalize
    return -jnp.mean(jnp.sum(logits * targets, axis=1))  # cross entropy loss


def accuracy(params, batch):
    inputs, targets = batch
    target_class = jnp.argmax(targets, axis=1)
    predicted_class = jnp.argmax(predict(params, inputs), axis=1)
    return jnp.mean(predicted_class == target_class)


def clipped_grad(params, l2_norm_clip, single_example_batch):
    """Evaluate gradient for a single-example batch and clip its grad norm."""
    grads = grad(loss)(params, single_example_batch)
    nonempty_grads, tree_def = tree_flatten(grads)
    total_grad_norm = jnp.linalg.norm(
        jnp.array([jnp.linalg.norm(neg.ravel()) for neg in nonempty_grads])
    )
    divisor = jnp.maximum(total_grad_norm / l2_norm_clip, 1.0)
    normalized_nonempty_grads = [g / divisor for g in nonempty_grads]
    return tree_unflatten(tree_def, normalized_nonempty_grads)


def private_grad(params, batch, rng, l2_norm_clip, noise_multiplier, batch_size):
    """Return differentially private gradients for params, evaluated on batch."""
    clipped_grads = vmap(clipped_grad, (None, None, 0))(params, l2_norm_clip, batch)
    clipped_grads_flat, grads_treedef = tree_flatten(clipped_grads)
    aggregated_clipped_grads = [g.sum(0) for g in clipped_grads_flat]
    rngs = random.split(rng, len(aggregated_clipped_grads))
    noised_aggregated_clipped_grads = [
        g + l2_norm_clip * noise_multiplier * random.normal(r, g.shape)
        for r, g in zip(rngs, aggregated_clipped_grads)
    ]
    normalized_noised_aggregated_clipped_grads = [
        g / batch_size for g in noised_aggregated_clipped_grads
    ]
    return tree_unflatten(grads_treedef, normalized_noised_aggregated_clipped_grads)


def shape_as_image(images, labels, dummy_dim=False):
    target_shape = (-1, 1, 28, 28, 1) if dummy_dim else (-1, 28, 28, 1)
    return jnp.reshape(images, target_shape), labels


def main(
    batches,
    learning_rate=0.15,
    noise_multiplier=1.1,
    l2_norm_clip=1.0,
    batch_size=256,
    seed=0,
    dpsgd=True,
):
    key = random.key(seed)

    opt_init, opt_update, get_params = optimizers.sgd(learning_rate)

    @jit
    def update(_, i, opt_state, batch):
        params = get_params(opt_state)
        return opt_update(i, grad(loss)(params, batch), opt_state)

    @jit
    def private_update(rng, i, opt_state, batch):
        params = get_params(opt_state)
        rng = random.fold_in(rng, i)  # get new key for new random numbers
        return opt_update(
            i,
            private_grad(params, batch, rng, l2_norm_clip, noise_multiplier, batch_size),
            opt_state,
        )

    _, init_params = init_random_params(key, (-1, 28, 28, 1))
    opt_state = opt_init(init_params)
    for i, batch in enumerate(batches):
        if dpsgd:
            opt_state = private_update(key, i, opt_state, shape_as_image(*batch, dummy_dim=True))
        else:
            opt_state = update(key, i, opt_state, shape_as_image(*batch))
    return init_params, get_params(opt_state)
