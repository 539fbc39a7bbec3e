# ruff: noqa  (a published program in its authors' style)
"""Recurrent layers written out in NumPy, course-notebook style: an LSTM and a GRU forward
over a whole sequence with preallocated per-timestep buffers (``h[:, t] = ...``,
``c[:, t] = ...``), the four gates computed from one stacked matrix product and sliced
apart, a temporal affine read-out and a softmax cross-entropy over every timestep."""

import numpy as np


def sigmoid(x):
    # the numerically stable form found in most course code
    pos = x >= 0
    neg = ~pos
    z = np.zeros_like(x)
    z[pos] = np.exp(-x[pos])
    z[neg] = np.exp(x[neg])
    top = np.ones_like(x)
    top[neg] = z[neg]
    return top / (1 + z)


def init_lstm(D, H, V, seed=0):
    rng = np.random.default_rng(seed)
    return {
        "Wx": rng.standard_normal((D, 4 * H)) / np.sqrt(D),
        "Wh": rng.standard_normal((H, 4 * H)) / np.sqrt(H),
        "b": np.zeros(4 * H),
        "Wy": rng.standard_normal((H, V)) / np.sqrt(H),
        "by": np.zeros(V),
    }


def lstm_step(x, prev_h, prev_c, Wx, Wh, b):
    H = prev_h.shape[1]
    a = x.dot(Wx) + prev_h.dot(Wh) + b
    i = sigmoid(a[:, :H])
    f = sigmoid(a[:, H : 2 * H])
    o = sigmoid(a[:, 2 * H : 3 * H])
    g = np.tanh(a[:, 3 * H :])
    next_c = f * prev_c + i * g
    next_h = o * np.tanh(next_c)
    return next_h, next_c


def lstm_forward(x, h0, Wx, Wh, b):
    N, T, D = x.shape
    H = h0.shape[1]
    h = np.zeros((N, T, H))
    c = np.zeros((N, T, H))
    prev_h = h0
    prev_c = np.zeros_like(h0)
    for t in range(T):
        prev_h, prev_c = lstm_step(x[:, t, :], prev_h, prev_c, Wx, Wh, b)
        h[:, t, :] = prev_h
        c[:, t] = prev_c
    return h


def gru_forward(x, h0, Wz, Uz, Wr, Ur, Wh, Uh):
    N, T, D = x.shape
    H = h0.shape[1]
    hs = np.empty((T + 1, N, H))
    hs[0] = h0
    for t in range(T):
        xt = x[:, t]
        z = sigmoid(xt @ Wz + hs[t] @ Uz)
        r = sigmoid(xt @ Wr + hs[t] @ Ur)
        h_tilde = np.tanh(xt @ Wh + (r * hs[t]) @ Uh)
        hs[t + 1] = (1 - z) * hs[t] + z * h_tilde
    return hs[1:].transpose(1, 0, 2)


def temporal_affine(h, W, b):
    N, T, H = h.shape
    return h.reshape(N * T, H).dot(W).reshape(N, T, -1) + b


def temporal_softmax_loss(scores, y, mask):
    N, T, V = scores.shape
    flat = scores.reshape(N * T, V)
    y_flat = y.reshape(N * T)
    mask_flat = mask.reshape(N * T)
    probs = np.exp(flat - np.max(flat, axis=1, keepdims=True))
    probs /= np.sum(probs, axis=1, keepdims=True)
    loss = -np.sum(mask_flat * np.log(probs[np.arange(N * T), y_flat])) / N
    return loss


def lstm_loss(params, x, y, mask):
    N = x.shape[0]
    H = params["Wh"].shape[0]
    h0 = np.zeros((N, H))
    h = lstm_forward(x, h0, params["Wx"], params["Wh"], params["b"])
    scores = temporal_affine(h, params["Wy"], params["by"])
    return temporal_softmax_loss(scores, y, mask)


def make_data(N=3, T=5, D=4, V=6, seed=1):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((N, T, D))
    y = rng.integers(0, V, size=(N, T))
    mask = rng.random((N, T)) > 0.2
    return x, y, mask
