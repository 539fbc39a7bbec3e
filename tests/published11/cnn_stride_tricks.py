# ruff: noqa  (a published program in its authors' style)
"""A small convolutional network's forward pass written with NumPy's stride tricks, as in
the blog posts that replace the four nested loops of a naive convolution: the input
padded with ``np.pad``, its patches viewed with ``np.lib.stride_tricks.as_strided`` (and
with ``sliding_window_view``) and contracted with the filters by ``np.tensordot`` /
``np.einsum``; an ``im2col`` matrix built from the strided view; 2x2 max pooling by a
reshape; ReLU; a fully connected layer and softmax cross-entropy."""

import numpy as np
from numpy.lib.stride_tricks import as_strided, sliding_window_view


def conv2d_strided(x, w, b, stride=1, pad=1):
    # x: (N, C, H, W), w: (F, C, HH, WW)
    N, C, H, W = x.shape
    F, _, HH, WW = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)), mode="constant")
    Hp, Wp = H + 2 * pad, W + 2 * pad
    Ho = (Hp - HH) // stride + 1
    Wo = (Wp - WW) // stride + 1
    sN, sC, sH, sW = xp.strides
    patches = as_strided(
        xp,
        shape=(N, C, Ho, Wo, HH, WW),
        strides=(sN, sC, sH * stride, sW * stride, sH, sW),
        writeable=False,
    )
    out = np.tensordot(patches, w, axes=([1, 4, 5], [1, 2, 3]))  # (N, Ho, Wo, F)
    return out.transpose(0, 3, 1, 2) + b[None, :, None, None]


def conv2d_windows(x, w, b, pad=1):
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    win = sliding_window_view(xp, w.shape[2:], axis=(2, 3))  # (N, C, Ho, Wo, HH, WW)
    return np.einsum("nchwij,fcij->nfhw", win, w) + b.reshape(1, -1, 1, 1)


def im2col(x, HH, WW, stride=1, pad=1):
    N, C, H, W = x.shape
    xp = np.pad(x, [(0, 0), (0, 0), (pad, pad), (pad, pad)])
    Ho = (H + 2 * pad - HH) // stride + 1
    Wo = (W + 2 * pad - WW) // stride + 1
    s0, s1, s2, s3 = xp.strides
    cols = as_strided(
        xp,
        (N, Ho, Wo, C, HH, WW),
        (s0, s2 * stride, s3 * stride, s1, s2, s3),
    )
    return cols.reshape(N * Ho * Wo, C * HH * WW), Ho, Wo


def conv2d_im2col(x, w, b, stride=1, pad=1):
    N = x.shape[0]
    F, C, HH, WW = w.shape
    cols, Ho, Wo = im2col(x, HH, WW, stride, pad)
    out = cols @ w.reshape(F, -1).T + b
    return out.reshape(N, Ho, Wo, F).transpose(0, 3, 1, 2)


def conv2d_naive(x, w, b, stride=1, pad=1):
    N, C, H, W = x.shape
    F, _, HH, WW = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    Ho = 1 + (H + 2 * pad - HH) // stride
    Wo = 1 + (W + 2 * pad - WW) // stride
    out = np.zeros((N, F, Ho, Wo))
    for n in range(N):
        for f in range(F):
            for i in range(Ho):
                for j in range(Wo):
                    window = xp[n, :, i * stride : i * stride + HH, j * stride : j * stride + WW]
                    out[n, f, i, j] = np.sum(window * w[f]) + b[f]
    return out


def max_pool_2x2(x):
    N, C, H, W = x.shape
    return x.reshape(N, C, H // 2, 2, W // 2, 2).max(axis=(3, 5))


def max_pool_strided(x, size=2, stride=2):
    N, C, H, W = x.shape
    Ho = (H - size) // stride + 1
    Wo = (W - size) // stride + 1
    s = x.strides
    view = as_strided(
        x, (N, C, Ho, Wo, size, size), (s[0], s[1], s[2] * stride, s[3] * stride, s[2], s[3])
    )
    return view.max(axis=(4, 5))


def relu(x):
    return np.maximum(0, x)


def init_params(C=2, F=3, H=6, W=6, n_classes=4, seed=0):
    rng = np.random.default_rng(seed)
    return {
        "W1": 0.3 * rng.standard_normal((F, C, 3, 3)),
        "b1": 0.1 * rng.standard_normal(F),
        "W2": 0.3 * rng.standard_normal((F * (H // 2) * (W // 2), n_classes)),
        "b2": np.zeros(n_classes),
    }


def forward(params, x, conv=conv2d_strided, pool=max_pool_2x2):
    a = relu(conv(x, params["W1"], params["b1"]))
    p = pool(a)
    return p.reshape(p.shape[0], -1) @ params["W2"] + params["b2"]


def loss(params, x, y, conv=conv2d_strided, pool=max_pool_2x2):
    scores = forward(params, x, conv, pool)
    scores = scores - scores.max(axis=1, keepdims=True)
    log_probs = scores - np.log(np.exp(scores).sum(axis=1, keepdims=True))
    return -log_probs[np.arange(len(y)), y].mean()


def make_data(N=3, C=2, H=6, W=6, n_classes=4, seed=1):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((N, C, H, W)), rng.integers(0, n_classes, N)
