# ruff: noqa  (a published program in its authors' style)
"""CS231n assignment 2 (a typical completed solution): ``layers.py``'s affine, ReLU, layer
normalisation, inverted dropout (its mask drawn by ``np.random.rand(*x.shape) < p`` after
``np.random.seed(dropout_param["seed"])``) and the multiclass SVM loss
(``margins[np.arange(N), y] = 0``, ``dx[margins > 0] = 1``, ``dx[np.arange(N), y] -=
num_pos``), with their backward passes; ``layer_utils.py``'s ``affine_relu`` sandwich;
and ``fc_net.py``'s ``FullyConnectedNet``, whose ``loss`` walks the layers with
``self.params["W%d" % i]`` and a dict of caches, adds L2 regularisation, and returns the
hand-written gradients."""

import numpy as np


def affine_forward(x, w, b):
    out = None
    out = x.reshape(x.shape[0], -1).dot(w) + b
    cache = (x, w, b)
    return out, cache


def affine_backward(dout, cache):
    x, w, b = cache
    dx, dw, db = None, None, None
    dx = dout.dot(w.T).reshape(x.shape)
    dw = x.reshape(x.shape[0], -1).T.dot(dout)
    db = np.sum(dout, axis=0)
    return dx, dw, db


def relu_forward(x):
    out = None
    out = np.maximum(0, x)
    cache = x
    return out, cache


def relu_backward(dout, cache):
    dx, x = None, cache
    dx = dout * (x > 0)
    return dx


def layernorm_forward(x, gamma, beta, ln_param):
    out, cache = None, None
    eps = ln_param.get("eps", 1e-5)
    mu = x.mean(axis=1, keepdims=True)
    var = x.var(axis=1, keepdims=True)
    std = np.sqrt(var + eps)
    x_hat = (x - mu) / std
    out = gamma * x_hat + beta
    cache = (x_hat, gamma, std)
    return out, cache


def layernorm_backward(dout, cache):
    dx, dgamma, dbeta = None, None, None
    x_hat, gamma, std = cache
    D = x_hat.shape[1]
    dgamma = np.sum(dout * x_hat, axis=0)
    dbeta = np.sum(dout, axis=0)
    dx_hat = dout * gamma
    dx = (
        (1.0 / D)
        / std
        * (
            D * dx_hat
            - np.sum(dx_hat, axis=1, keepdims=True)
            - x_hat * np.sum(dx_hat * x_hat, axis=1, keepdims=True)
        )
    )
    return dx, dgamma, dbeta


def dropout_forward(x, dropout_param):
    p, mode = dropout_param["p"], dropout_param["mode"]
    if "seed" in dropout_param:
        np.random.seed(dropout_param["seed"])

    mask = None
    out = None

    if mode == "train":
        mask = (np.random.rand(*x.shape) < p) / p
        out = x * mask
    elif mode == "test":
        out = x

    cache = (dropout_param, mask)
    out = out.astype(x.dtype, copy=False)

    return out, cache


def dropout_backward(dout, cache):
    dropout_param, mask = cache
    mode = dropout_param["mode"]

    dx = None
    if mode == "train":
        dx = dout * mask
    elif mode == "test":
        dx = dout
    return dx


def svm_loss(x, y):
    loss, dx = None, None
    N = x.shape[0]
    correct_class_scores = x[np.arange(N), y]
    margins = np.maximum(0, x - correct_class_scores[:, np.newaxis] + 1.0)
    margins[np.arange(N), y] = 0
    loss = np.sum(margins) / N
    num_pos = np.sum(margins > 0, axis=1)
    dx = np.zeros_like(x)
    dx[margins > 0] = 1
    dx[np.arange(N), y] -= num_pos
    dx /= N
    return loss, dx


def affine_relu_forward(x, w, b):
    a, fc_cache = affine_forward(x, w, b)
    out, relu_cache = relu_forward(a)
    cache = (fc_cache, relu_cache)
    return out, cache


def affine_relu_backward(dout, cache):
    fc_cache, relu_cache = cache
    da = relu_backward(dout, relu_cache)
    dx, dw, db = affine_backward(da, fc_cache)
    return dx, dw, db


class FullyConnectedNet(object):
    """Class for a multi-layer fully connected neural network.

    {affine - [layer norm] - relu - [dropout]} x (L - 1) - affine - svm
    """

    def __init__(
        self,
        hidden_dims,
        input_dim=3 * 32 * 32,
        num_classes=10,
        dropout_keep_ratio=1,
        normalization=None,
        reg=0.0,
        weight_scale=1e-2,
        dtype=np.float32,
        seed=None,
    ):
        self.normalization = normalization
        self.use_dropout = dropout_keep_ratio != 1
        self.reg = reg
        self.num_layers = 1 + len(hidden_dims)
        self.dtype = dtype
        self.params = {}

        dims = [input_dim] + hidden_dims + [num_classes]
        for i in range(self.num_layers):
            self.params["W%d" % (i + 1)] = weight_scale * np.random.randn(dims[i], dims[i + 1])
            self.params["b%d" % (i + 1)] = np.zeros(dims[i + 1])
            if self.normalization is not None and i < self.num_layers - 1:
                self.params["gamma%d" % (i + 1)] = np.ones(dims[i + 1])
                self.params["beta%d" % (i + 1)] = np.zeros(dims[i + 1])

        self.dropout_param = {}
        if self.use_dropout:
            self.dropout_param = {"mode": "train", "p": dropout_keep_ratio}
            if seed is not None:
                self.dropout_param["seed"] = seed

        self.ln_params = []
        if self.normalization == "layernorm":
            self.ln_params = [{} for i in range(self.num_layers - 1)]

        # Cast all parameters to the correct datatype.
        for k, v in self.params.items():
            self.params[k] = v.astype(dtype)

    def loss(self, X, y=None):
        X = X.astype(self.dtype)
        mode = "test" if y is None else "train"

        if self.use_dropout:
            self.dropout_param["mode"] = mode

        scores = None
        caches = {}
        out = X
        for i in range(1, self.num_layers):
            W, b = self.params["W%d" % i], self.params["b%d" % i]
            out, caches["affine%d" % i] = affine_forward(out, W, b)
            if self.normalization == "layernorm":
                gamma, beta = self.params["gamma%d" % i], self.params["beta%d" % i]
                out, caches["norm%d" % i] = layernorm_forward(
                    out, gamma, beta, self.ln_params[i - 1]
                )
            out, caches["relu%d" % i] = relu_forward(out)
            if self.use_dropout:
                out, caches["dropout%d" % i] = dropout_forward(out, self.dropout_param)
        W, b = self.params["W%d" % self.num_layers], self.params["b%d" % self.num_layers]
        scores, caches["affine%d" % self.num_layers] = affine_forward(out, W, b)

        # If test mode return early
        if mode == "test":
            return scores

        loss, grads = 0.0, {}
        loss, dout = svm_loss(scores, y)
        for i in range(1, self.num_layers + 1):
            W = self.params["W%d" % i]
            loss += 0.5 * self.reg * np.sum(W * W)

        dout, grads["W%d" % self.num_layers], grads["b%d" % self.num_layers] = affine_backward(
            dout, caches["affine%d" % self.num_layers]
        )
        grads["W%d" % self.num_layers] += self.reg * self.params["W%d" % self.num_layers]
        for i in range(self.num_layers - 1, 0, -1):
            if self.use_dropout:
                dout = dropout_backward(dout, caches["dropout%d" % i])
            dout = relu_backward(dout, caches["relu%d" % i])
            if self.normalization == "layernorm":
                dout, grads["gamma%d" % i], grads["beta%d" % i] = layernorm_backward(
                    dout, caches["norm%d" % i]
                )
            dout, grads["W%d" % i], grads["b%d" % i] = affine_backward(dout, caches["affine%d" % i])
            grads["W%d" % i] += self.reg * self.params["W%d" % i]

        return loss, grads
