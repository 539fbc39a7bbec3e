# ruff: noqa  (a published program in its authors' style)
"""A variational autoencoder in plain NumPy, as in "VAE from scratch" blog posts: layer
classes holding their parameters as attributes (``self.W``, ``self.b``) and caching the
forward input (``self.x = x``), a ReLU MLP encoder giving ``mu`` and ``logvar``, the
reparameterisation ``z = mu + np.exp(0.5 * logvar) * eps`` with ``eps`` from a
``np.random.default_rng`` generator, a Bernoulli decoder with the clipped binary
cross-entropy, the analytic KL term, an SGD step that updates the attributes in place; and
a full-covariance Gaussian posterior whose Cholesky factor is filled from a vector with
``np.tril_indices`` (the diagonal through ``softplus``)."""

import numpy as np


class Dense:
    def __init__(self, n_in, n_out, rng):
        self.W = rng.normal(0.0, np.sqrt(2.0 / n_in), size=(n_in, n_out))
        self.b = np.zeros(n_out)

    def __call__(self, x):
        self.x = x
        return x @ self.W + self.b

    def params(self):
        return [self.W, self.b]


def relu(x):
    return np.maximum(x, 0)


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


class VAE:
    def __init__(self, d_in=6, d_h=5, d_z=2, seed=0):
        rng = np.random.default_rng(seed)
        self.enc = Dense(d_in, d_h, rng)
        self.mu = Dense(d_h, d_z, rng)
        self.logvar = Dense(d_h, d_z, rng)
        self.dec1 = Dense(d_z, d_h, rng)
        self.dec2 = Dense(d_h, d_in, rng)
        self.layers = [self.enc, self.mu, self.logvar, self.dec1, self.dec2]

    def get_params(self):
        return [p for layer in self.layers for p in layer.params()]

    def set_params(self, flat):
        i = 0
        for layer in self.layers:
            layer.W = flat[i]
            layer.b = flat[i + 1]
            i += 2

    def loss(self, x, seed=0, beta=1.0):
        rng = np.random.default_rng(seed)
        h = relu(self.enc(x))
        mu, logvar = self.mu(h), self.logvar(h)
        eps = rng.standard_normal(mu.shape)
        z = mu + np.exp(0.5 * logvar) * eps
        x_hat = sigmoid(self.dec2(relu(self.dec1(z))))
        x_hat = np.clip(x_hat, 1e-7, 1 - 1e-7)
        bce = -np.sum(x * np.log(x_hat) + (1 - x) * np.log(1 - x_hat), axis=1)
        kl = -0.5 * np.sum(1 + logvar - mu**2 - np.exp(logvar), axis=1)
        return np.mean(bce + beta * kl)


def elbo_of_params(flat, x, seed=0):
    model = VAE()
    model.set_params(flat)
    return model.loss(x, seed)


def train(model, x, grad_fn, lr=0.05, steps=3):
    losses = []
    for step in range(steps):
        params = model.get_params()
        loss, grads = grad_fn(params, x, step)
        for p, g in zip(params, grads):
            p -= lr * g
        losses.append(loss)
    return losses


def softplus(x):
    return np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0)


def full_cov_elbo(mu, L_flat, log_joint, n_samples=16, seed=0):
    d = mu.shape[0]
    L = np.zeros((d, d))
    L[np.tril_indices(d)] = L_flat
    L[np.diag_indices(d)] = softplus(np.diag(L))
    rng = np.random.default_rng(seed)
    eps = rng.standard_normal((n_samples, d))
    z = mu + eps @ L.T
    entropy = np.sum(np.log(np.diag(L))) + 0.5 * d * (1 + np.log(2 * np.pi))
    return np.mean([log_joint(zi) for zi in z]) + entropy


def make_binary_data(n=4, d=6, seed=3):
    rng = np.random.default_rng(seed)
    return (rng.random((n, d)) > 0.5).astype(float)
