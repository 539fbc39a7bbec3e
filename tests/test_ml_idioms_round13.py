"""Round 13: machine-learning code written in plain NumPy under the transforms (DP-SGD,
batch/layer norm with running statistics, dropout, masked attention, convolution by
``sliding_window_view``, cross-entropy with label smoothing, gradient accumulation, weight
tying, ensembles, MAML).  Oracles: the formula written out in NumPy with a Python loop,
the loop over examples for ``vmap``, and float64 central differences for derivatives.

* ``nn.cross_entropy``/``nn.nll_loss`` with an ``ignore_index`` that is a class in range
  (a padding token 0, as in ``F.cross_entropy(logits, tokens, ignore_index=pad_id)``)
  counted the ignored targets (a silent wrong answer): only an out-of-range index
  (torch's default -100) was left out.
"""

import numpy as np
import pytest

import ftransforms as ft
from ftransforms import nn
from tests.program_oracles import fd_jacobian
from tests.tolerances import assert_tree_close, fd_tol, tol


def _torch_cross_entropy(logits, target, weight=None, ignore_index=-100, label_smoothing=0.0):
    """torch's documented cross-entropy of (N, C) logits and class indices, 'mean'."""
    n, c = logits.shape
    w = np.ones(c) if weight is None else weight
    total, denom = 0.0, 0.0
    for i in range(n):
        if target[i] == ignore_index:
            continue
        z = logits[i]
        logp = z - np.log(np.exp(z).sum())
        total += (1 - label_smoothing) * -w[target[i]] * logp[target[i]]
        total += label_smoothing / c * -(w * logp).sum()
        denom += w[target[i]]
    return total / denom


@pytest.mark.parametrize(
    "kw", [{}, {"label_smoothing": 0.1}, {"weight": np.array([0.5, 2.0, 1.0, 1.5])}]
)
@pytest.mark.parametrize("pad", [0, 1])
def test_cross_entropy_ignores_an_index_in_range(kw, pad):
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(6, 4))
    tokens = np.array([0, 3, 1, 1, 2, 0])
    loss = nn.cross_entropy(logits, tokens, ignore_index=pad, **kw)
    expected = _torch_cross_entropy(logits, tokens, ignore_index=pad, **kw)
    assert_tree_close(loss, expected, **tol(np.float64))
    g = ft.grad(lambda z: nn.cross_entropy(z, tokens, ignore_index=pad, **kw))(logits)
    fd = fd_jacobian(lambda z: _torch_cross_entropy(z, tokens, ignore_index=pad, **kw), (logits,))
    assert_tree_close(g, fd, **fd_tol(np.float64))


def test_nll_loss_ignores_a_padding_token_of_a_sequence():
    rng = np.random.default_rng(1)
    logits = rng.normal(size=(2, 4, 3))  # (N, C, T)
    tokens = np.array([[1, 0, 2], [0, 0, 3]])
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    kept = [(n, t) for n in range(2) for t in range(3) if tokens[n, t] != 0]
    expected = -sum(logp[n, tokens[n, t], t] for n, t in kept) / len(kept)
    assert_tree_close(nn.nll_loss(logp, tokens, ignore_index=0), expected, **tol(np.float64))
    none = nn.nll_loss(logp, tokens, ignore_index=0, reduction="none")
    assert none[0, 1] == 0 and none[1, 0] == 0 and none[1, 1] == 0
