# ruff: noqa  (a published program in its authors' style)
"""JAX's ``examples/mnist_classifier.py``: a ``stax.serial(Dense(1024), Relu, Dense(1024),
Relu, Dense(10), LogSoftmax)`` classifier trained by ``optimizers.momentum`` with a jitted
``update(i, opt_state, batch)`` fed by ``next(itercount)`` and a ``data_stream``
generator over ``numpy.random.RandomState`` permutations.  The imports name
``ftransforms`` where the original names ``jax``; the ``__main__`` block is ``main`` with
the data, the sizes and the number of epochs as parameters (MNIST and printing left out).

Copyright 2018 Google LLC; Apache License, Version 2.0."""

import itertools

import numpy.random as npr

import ftransforms.numpy as jnp
from ftransforms import jit, grad, random
from ftransforms.example_libraries import optimizers
from ftransforms.example_libraries import stax
from ftransforms.example_libraries.stax import Dense, Relu, LogSoftmax


def loss(params, batch):
    inputs, targets = batch
    preds = predict(params, inputs)
    return -jnp.mean(jnp.sum(preds * targets, axis=1))


def accuracy(params, batch):
    inputs, targets = batch
    target_class = jnp.argmax(targets, axis=1)
    predicted_class = jnp.argmax(predict(params, inputs), axis=1)
    return jnp.mean(predicted_class == target_class)


init_random_params, predict = stax.serial(
    Dense(1024), Relu, Dense(1024), Relu, Dense(10), LogSoftmax
)


def main(train_images, train_labels, test_images, test_labels, num_epochs=10, batch_size=128):
    rng = random.key(0)

    step_size = 0.001
    momentum_mass = 0.9

    num_train = train_images.shape[0]
    num_complete_batches, leftover = divmod(num_train, batch_size)
    num_batches = num_complete_batches + bool(leftover)

    def data_stream():
        rng = npr.RandomState(0)
        while True:
            perm = rng.permutation(num_train)
            for i in range(num_batches):
                batch_idx = perm[i * batch_size : (i + 1) * batch_size]
                yield train_images[batch_idx], train_labels[batch_idx]

    batches = data_stream()

    opt_init, opt_update, get_params = optimizers.momentum(step_size, mass=momentum_mass)

    @jit
    def update(i, opt_state, batch):
        params = get_params(opt_state)
        return opt_update(i, grad(loss)(params, batch), opt_state)

    _, init_params = init_random_params(rng, (-1, 28 * 28))
    opt_state = opt_init(init_params)
    itercount = itertools.count()

    accuracies = []
    for epoch in range(num_epochs):
        for _ in range(num_batches):
            opt_state = update(next(itercount), opt_state, next(batches))

        params = get_params(opt_state)
        train_acc = accuracy(params, (train_images, train_labels))
        test_acc = accuracy(params, (test_images, test_labels))
        accuracies.append((train_acc, test_acc))
    return init_params, get_params(opt_state), accuracies
