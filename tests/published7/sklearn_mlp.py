# ruff: noqa  (a published program in its authors' style)
"""scikit-learn's multilayer perceptron (``sklearn/neural_network/_base.py`` and
``BaseMultilayerPerceptron._forward_pass``/``_backprop``/``_compute_loss_grad`` of
``_multilayer_perceptron.py``): the activations are written in place into a list of
layer arrays (``np.tanh(X, out=X)``, ``logistic_sigmoid(X, out=X)`` with SciPy's
``expit``, ``np.maximum(X, 0, out=X)``, softmax by ``np.exp(tmp, out=X); X /= ...``),
``activations[i + 1] += self.intercepts_[i]``, and the hand-written backward pass
modifies the deltas in place (``delta *= 1 - Z**2``, ``delta[Z == 0] = 0``,
``coef_grads[layer] += ...; coef_grads[layer] /= sw_sum``).  ``MLP`` stands for the
estimator: it holds what ``_initialize`` sets (``coefs_``, ``intercepts_``,
``n_layers_``, ``out_activation_``); ``safe_sparse_dot`` is reduced to its dense branch.

Copyright (c) 2007-2024 The scikit-learn developers; BSD-3-Clause license."""

import numpy as np
from scipy.special import expit as logistic_sigmoid
from scipy.special import xlogy


def safe_sparse_dot(a, b):
    return a @ b


def inplace_identity(X):
    # Nothing to do
    pass


def inplace_logistic(X):
    logistic_sigmoid(X, out=X)


def inplace_tanh(X):
    np.tanh(X, out=X)


def inplace_relu(X):
    np.maximum(X, 0, out=X)


def inplace_softmax(X):
    tmp = X - X.max(axis=1)[:, np.newaxis]
    np.exp(tmp, out=X)
    X /= X.sum(axis=1)[:, np.newaxis]


ACTIVATIONS = {
    "identity": inplace_identity,
    "tanh": inplace_tanh,
    "logistic": inplace_logistic,
    "relu": inplace_relu,
    "softmax": inplace_softmax,
}


def inplace_identity_derivative(Z, delta):
    # Nothing to do
    pass


def inplace_logistic_derivative(Z, delta):
    delta *= Z
    delta *= 1 - Z


def inplace_tanh_derivative(Z, delta):
    delta *= 1 - Z**2


def inplace_relu_derivative(Z, delta):
    delta[Z == 0] = 0


DERIVATIVES = {
    "identity": inplace_identity_derivative,
    "tanh": inplace_tanh_derivative,
    "logistic": inplace_logistic_derivative,
    "relu": inplace_relu_derivative,
}


def squared_loss(y_true, y_pred, sample_weight=None):
    return 0.5 * np.average((y_true - y_pred) ** 2, weights=sample_weight, axis=0).mean()


def log_loss(y_true, y_prob, sample_weight=None):
    eps = np.finfo(y_prob.dtype).eps
    y_prob = np.clip(y_prob, eps, 1 - eps)
    if y_prob.shape[1] == 1:
        y_prob = np.append(1 - y_prob, y_prob, axis=1)

    if y_true.shape[1] == 1:
        y_true = np.append(1 - y_true, y_true, axis=1)

    return -np.average(xlogy(y_true, y_prob), weights=sample_weight, axis=0).sum()


def binary_log_loss(y_true, y_prob, sample_weight=None):
    eps = np.finfo(y_prob.dtype).eps
    y_prob = np.clip(y_prob, eps, 1 - eps)
    return -np.average(
        xlogy(y_true, y_prob) + xlogy(1 - y_true, 1 - y_prob),
        weights=sample_weight,
        axis=0,
    ).sum()


LOSS_FUNCTIONS = {
    "squared_error": squared_loss,
    "log_loss": log_loss,
    "binary_log_loss": binary_log_loss,
}


class MLP:
    def __init__(self, coefs, intercepts, activation, out_activation, loss, alpha):
        self.coefs_ = coefs
        self.intercepts_ = intercepts
        self.n_layers_ = len(coefs) + 1
        self.activation = activation
        self.out_activation_ = out_activation
        self.loss = loss
        self.alpha = alpha

    def _forward_pass(self, activations):
        hidden_activation = ACTIVATIONS[self.activation]
        # Iterate over the hidden layers
        for i in range(self.n_layers_ - 1):
            activations[i + 1] = safe_sparse_dot(activations[i], self.coefs_[i])
            activations[i + 1] += self.intercepts_[i]

            # For the hidden layers
            if (i + 1) != (self.n_layers_ - 1):
                hidden_activation(activations[i + 1])

        # For the last layer
        output_activation = ACTIVATIONS[self.out_activation_]
        output_activation(activations[i + 1])

        return activations

    def _backprop(self, X, y, sample_weight, activations, deltas, coef_grads, intercept_grads):
        n_samples = X.shape[0]

        # Forward propagate
        activations = self._forward_pass(activations)

        # Get loss
        loss_func_name = self.loss
        if loss_func_name == "log_loss" and self.out_activation_ == "logistic":
            loss_func_name = "binary_log_loss"
        loss = LOSS_FUNCTIONS[loss_func_name](y, activations[-1], sample_weight)
        # Add L2 regularization term to loss
        values = 0
        for s in self.coefs_:
            s = s.ravel()
            values += np.dot(s, s)
        if sample_weight is None:
            sw_sum = n_samples
        else:
            sw_sum = sample_weight.sum()
        loss += (0.5 * self.alpha) * values / sw_sum

        # Backward propagate
        last = self.n_layers_ - 2

        deltas[last] = activations[-1] - y
        if sample_weight is not None:
            deltas[last] *= sample_weight.reshape(-1, 1)

        # Compute gradient for the last layer
        self._compute_loss_grad(last, sw_sum, activations, deltas, coef_grads, intercept_grads)

        inplace_derivative = DERIVATIVES[self.activation]
        # Iterate over the hidden layers
        for i in range(last, 0, -1):
            deltas[i - 1] = safe_sparse_dot(deltas[i], self.coefs_[i].T)
            inplace_derivative(activations[i], deltas[i - 1])

            self._compute_loss_grad(i - 1, sw_sum, activations, deltas, coef_grads, intercept_grads)

        return loss, coef_grads, intercept_grads

    def _compute_loss_grad(self, layer, sw_sum, activations, deltas, coef_grads, intercept_grads):
        coef_grads[layer] = safe_sparse_dot(activations[layer].T, deltas[layer])
        coef_grads[layer] += self.alpha * self.coefs_[layer]
        coef_grads[layer] /= sw_sum

        intercept_grads[layer] = np.sum(deltas[layer], axis=0) / sw_sum
