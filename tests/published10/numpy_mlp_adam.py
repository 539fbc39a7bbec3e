# ruff: noqa  (a published program in its authors' style)
"""A two-layer network written from scratch in NumPy, trained by mini-batch gradient
descent with a hand-written backward pass, in the style of the "neural network from
scratch" tutorials: ReLU hidden layer, softmax output with the max-subtracted
(log-sum-exp) cross-entropy, L2 weight decay, and two optimizers whose state is updated in
place (momentum ``v *= mu; v -= lr * g`` and Adam ``m *= beta1; m += (1 - beta1) * g``)."""

import numpy as np


def init_params(n_in, n_hidden, n_out, seed=0):
    rng = np.random.default_rng(seed)
    params = {}
    params["W1"] = rng.standard_normal((n_in, n_hidden)) * np.sqrt(2.0 / n_in)
    params["b1"] = np.zeros(n_hidden)
    params["W2"] = rng.standard_normal((n_hidden, n_out)) * np.sqrt(2.0 / n_hidden)
    params["b2"] = np.zeros(n_out)
    return params


def softmax(z):
    z = z - np.max(z, axis=1, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=1, keepdims=True)


def forward(params, X):
    h_pre = X @ params["W1"] + params["b1"]
    h = np.maximum(0, h_pre)
    scores = h @ params["W2"] + params["b2"]
    cache = (X, h_pre, h, scores)
    return scores, cache


def loss_and_grads(params, X, y, reg=1e-3):
    n = X.shape[0]
    scores, cache = forward(params, X)
    X, h_pre, h, scores = cache
    shifted = scores - scores.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    loss = -np.mean(log_probs[np.arange(n), y])
    loss += 0.5 * reg * (np.sum(params["W1"] ** 2) + np.sum(params["W2"] ** 2))

    dscores = np.exp(log_probs)
    dscores[np.arange(n), y] -= 1
    dscores /= n
    grads = {}
    grads["W2"] = h.T @ dscores + reg * params["W2"]
    grads["b2"] = dscores.sum(axis=0)
    dh = dscores @ params["W2"].T
    dh[h_pre <= 0] = 0
    grads["W1"] = X.T @ dh + reg * params["W1"]
    grads["b1"] = dh.sum(axis=0)
    return loss, grads


class Momentum:
    def __init__(self, lr=0.1, mu=0.9):
        self.lr = lr
        self.mu = mu
        self.v = None

    def update(self, params, grads):
        if self.v is None:
            self.v = {k: np.zeros_like(p) for k, p in params.items()}
        for k in params:
            self.v[k] *= self.mu
            self.v[k] -= self.lr * grads[k]
            params[k] += self.v[k]


class Adam:
    def __init__(self, lr=1e-2, beta1=0.9, beta2=0.999, eps=1e-8):
        self.lr = lr
        self.beta1 = beta1
        self.beta2 = beta2
        self.eps = eps
        self.t = 0
        self.m = None
        self.v = None

    def update(self, params, grads):
        if self.m is None:
            self.m = {k: np.zeros_like(p) for k, p in params.items()}
            self.v = {k: np.zeros_like(p) for k, p in params.items()}
        self.t += 1
        for k in params:
            self.m[k] *= self.beta1
            self.m[k] += (1 - self.beta1) * grads[k]
            self.v[k] *= self.beta2
            self.v[k] += (1 - self.beta2) * grads[k] ** 2
            m_hat = self.m[k] / (1 - self.beta1**self.t)
            v_hat = self.v[k] / (1 - self.beta2**self.t)
            params[k] -= self.lr * m_hat / (np.sqrt(v_hat) + self.eps)


def iterate_minibatches(n, batch_size, rng):
    order = rng.permutation(n)
    for start in range(0, n, batch_size):
        yield order[start : start + batch_size]


def train(params, X, y, optimizer, epochs=3, batch_size=16, seed=0, reg=1e-3):
    rng = np.random.default_rng(seed)
    history = []
    for epoch in range(epochs):
        for idx in iterate_minibatches(X.shape[0], batch_size, rng):
            loss, grads = loss_and_grads(params, X[idx], y[idx], reg)
            optimizer.update(params, grads)
        history.append(loss)
    return params, history


def accuracy(params, X, y):
    scores, _ = forward(params, X)
    return np.mean(np.argmax(scores, axis=1) == y)


def make_spirals(n_per_class=20, n_classes=3, seed=0):
    rng = np.random.default_rng(seed)
    X = np.zeros((n_per_class * n_classes, 2))
    y = np.zeros(n_per_class * n_classes, dtype=int)
    for j in range(n_classes):
        ix = range(n_per_class * j, n_per_class * (j + 1))
        r = np.linspace(0.1, 1, n_per_class)
        t = np.linspace(j * 4, (j + 1) * 4, n_per_class) + rng.standard_normal(n_per_class) * 0.2
        X[ix] = np.c_[r * np.sin(t), r * np.cos(t)]
        y[ix] = j
    return X, y
