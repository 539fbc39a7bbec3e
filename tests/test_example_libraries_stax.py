"""``ftransforms.example_libraries.stax`` (JAX's ``jax.example_libraries.stax`` API)
against NumPy written out: each layer's output and its ``init_fun``'s output shape (a
``-1`` batch dimension kept), the combinators' composition, gradients against float64
differences, ``vmap`` over examples against the batched network, and the dropout key.
(JAX's own stax computes the same, bit for bit from the same keys; it is too slow to run
here op by op: tests/test_published_programs_7.py runs JAX's programs that use it.)"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.example_libraries import stax
from tests.tolerances import FD_TOL, assert_tree_close


def close(a, b, tol=None):
    assert_tree_close(a, b, **(tol or {"rtol": 1e-10, "atol": 1e-12}))


def _pads(size, window, stride, padding):
    if padding == "VALID":
        return (0, 0)
    if padding == "SAME":
        out = -(-size // stride)
        total = max((out - 1) * stride + window - size, 0)
        return (total // 2, total - total // 2)
    return padding


def _windows(x, window, stride, padding, fill):
    """The (out_h, out_w, n, kh, kw, c) windows of an NHWC array, padded with ``fill``."""
    (ph, pw) = [
        _pads(
            x.shape[1 + i],
            window[i],
            stride[i],
            padding if isinstance(padding, str) else padding[i],
        )
        for i in range(2)
    ]
    xp = np.pad(x, ((0, 0), ph, pw, (0, 0)), constant_values=fill)
    oh = (xp.shape[1] - window[0]) // stride[0] + 1
    ow = (xp.shape[2] - window[1]) // stride[1] + 1
    return np.array(
        [
            [
                xp[
                    :,
                    i * stride[0] : i * stride[0] + window[0],
                    j * stride[1] : j * stride[1] + window[1],
                    :,
                ]
                for j in range(ow)
            ]
            for i in range(oh)
        ]
    )


def np_conv(x, W, b, stride, padding):
    w = _windows(x, W.shape[:2], stride, padding, 0.0)
    return np.einsum("ijnabc,abco->nijo", w, W) + b


def test_a_conv_net_equals_numpy_and_differentiates():
    init, apply = stax.serial(
        stax.Conv(3, (3, 3), strides=(2, 2), padding="SAME"),
        stax.Relu,
        stax.MaxPool((2, 2), (1, 1)),
        stax.Conv(4, (2, 2), padding=((1, 0), (0, 1))),
        stax.Tanh,
        stax.AvgPool((2, 2), padding="SAME"),
        stax.Flatten,
        stax.Dense(5),
        stax.LogSoftmax,
    )
    shape, params = init(ft.random.key(3), (-1, 9, 9, 2))
    (W1, b1), _, _, (W2, b2), _, _, _, (W3, b3), _ = params
    assert W1.shape == (3, 3, 2, 3) and b1.shape == (1, 1, 1, 3) and W3.shape == (64, 5)
    x = np.random.default_rng(0).normal(size=(4, 9, 9, 2))

    h = np.maximum(np_conv(x, W1, b1, (2, 2), "SAME"), 0)
    h = _windows(h, (2, 2), (1, 1), "VALID", -np.inf).max(axis=(3, 4)).transpose(2, 0, 1, 3)
    h = np.tanh(np_conv(h, W2, b2, (1, 1), ((1, 0), (0, 1))))
    sums = _windows(h, (2, 2), (1, 1), "SAME", 0.0).sum(axis=(3, 4)).transpose(2, 0, 1, 3)
    counts = (
        _windows(np.ones_like(h), (2, 2), (1, 1), "SAME", 0.0)
        .sum(axis=(3, 4))
        .transpose(2, 0, 1, 3)
    )
    logits = (sums / counts).reshape(4, -1) @ W3 + b3
    expected = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    out = apply(params, x)
    close(out, expected)
    assert shape == (-1,) + out.shape[1:]

    def loss(b3):
        p = list(params)
        p[7] = (W3, b3)
        return -apply(p, x)[:, 1].mean()

    close(ft.grad(loss)(b3), (np.exp(expected).mean(0) - np.eye(5)[1]) / 1.0)
    assert ft.jacfwd(lambda x: apply(params, x))(x[:1]).shape == (1, 5, 1, 9, 9, 2)
    close(ft.vmap(lambda e: apply(params, e[None])[0])(x), out)


def test_layers_shapes_and_values():
    key = ft.random.key(5)
    x = np.random.default_rng(1).normal(size=(2, 3, 6, 6))
    # NCHW layouts and a channel spec
    init, apply = stax.GeneralConv(("NCHW", "OIHW", "NCHW"), 2, (3, 3), strides=(1, 2))
    shape, (W, b) = init(key, (-1, 3, 6, 6))
    expected = np_conv(
        x.transpose(0, 2, 3, 1), W.transpose(2, 3, 1, 0), b.transpose(0, 2, 3, 1), (1, 2), "VALID"
    )
    close(apply((W, b), x), expected.transpose(0, 3, 1, 2))
    assert shape == (-1, 2, 4, 2)
    init, apply = stax.MaxPool((2, 2), strides=(2, 2), spec="NCHW")
    assert init(key, x.shape)[0] == (2, 3, 3, 3)
    close(apply((), x), x.reshape(2, 3, 3, 2, 3, 2).max(axis=(3, 5)))
    # batch norm over (0, 2, 3) without gamma
    init, apply = stax.BatchNorm(axis=(0, 2, 3), scale=False)
    shape, (beta, gamma) = init(key, x.shape)
    assert beta.shape == (3,) and gamma == () and shape == x.shape
    m, v = x.mean(axis=(0, 2, 3), keepdims=True), x.var(axis=(0, 2, 3), keepdims=True)
    close(apply((beta + 0.5, gamma), x), (x - m) / np.sqrt(v + 1e-5) + 0.5)
    # combinators: FanOut, parallel, FanInSum / FanInConcat, shape_dependent, Identity
    init, apply = stax.serial(
        stax.Flatten,
        stax.FanOut(3),
        stax.parallel(stax.Dense(4), stax.serial(stax.Dense(4), stax.Selu), stax.Identity),
        stax.parallel(stax.Identity, stax.Identity, stax.Dense(4)),
        stax.FanOut(2),
        stax.parallel(stax.FanInSum, stax.FanInConcat()),
        stax.parallel(stax.Exp, stax.shape_dependent(lambda s: stax.Dense(s[-1]))),
    )
    shape, params = init(key, (-1, 3, 6, 6))
    assert shape == [(-1, 4), (-1, 12)]
    flat = x.reshape(2, -1)
    (_, _, [(Wa, ba), [(Wb, bb), _], _], [_, _, (Wc, bc)], _, _, [_, (Wd, bd)]) = params
    sel = stax.selu(flat @ Wb + bb)
    branches = [flat @ Wa + ba, sel, flat @ Wc + bc]
    out = apply(params, x)
    close(out[0], np.exp(sum(branches)))
    close(out[1], np.concatenate(branches, axis=-1) @ Wd + bd)


def test_activations_and_gelus_approximation():
    x = np.array([[-2.0, -0.5, 0.0, 0.7, 3.0]])
    tanh_gelu = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))
    for layer, expected in [
        (stax.Gelu, tanh_gelu),  # JAX's default, the tanh approximation
        (stax.Relu, np.maximum(x, 0)),
        (stax.Sigmoid, 1 / (1 + np.exp(-x))),
        (stax.Softplus, np.log1p(np.exp(x))),
        (stax.Elu, np.where(x > 0, x, np.expm1(x))),
        (stax.LeakyRelu, np.where(x > 0, x, 0.01 * x)),
        (stax.Softmax, np.exp(x) / np.exp(x).sum()),
    ]:
        close(layer[1]((), x), expected)
    close(
        ft.grad(lambda v: stax.gelu(v).sum())(x),
        np.asarray(FD(lambda v: stax.gelu(v).sum(), x)),
        FD_TOL,
    )


def FD(f, x, eps=1e-5):
    g = np.zeros_like(x)
    for i in itertools.product(*map(range, x.shape)):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


def test_dropout_keeps_with_probability_rate_and_needs_a_key():
    _, apply = stax.Dropout(0.75)
    x = np.full(4000, 3.0)
    y = apply((), x, rng=ft.random.key(2))
    assert set(np.unique(y).tolist()) == {0.0, 4.0}  # kept inputs divided by the keep rate
    assert abs((y > 0).mean() - 0.75) < 0.03
    close(apply((), x, rng=ft.random.key(2)), y)  # the same key, the same mask
    close(stax.Dropout(0.75, mode="test")[1]((), x, rng=ft.random.key(2)), x)
    with pytest.raises(ValueError, match=r"stax\.Dropout's apply_fun\(params, inputs, rng=key\)"):
        apply((), x)
    # serial splits its key over the layers
    init, apply = stax.serial(stax.Dense(5), stax.Dropout(0.6), stax.Dense(2))
    _, params = init(ft.random.key(1), (-1, 3))
    a = apply(params, np.ones((4, 3)), rng=ft.random.key(7))
    close(a, apply(params, np.ones((4, 3)), rng=ft.random.key(7)))
    assert not np.allclose(a, apply(params, np.ones((4, 3)), rng=ft.random.key(8)))
