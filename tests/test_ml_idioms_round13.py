"""Round 13: machine-learning code written in plain NumPy under the transforms (DP-SGD,
batch/layer norm with running statistics, dropout, masked attention, convolution by
``sliding_window_view``, cross-entropy with label smoothing, gradient accumulation, weight
tying, ensembles, MAML).  Oracles: the formula written out in NumPy with a Python loop,
the loop over examples for ``vmap``, and float64 central differences for derivatives.

* ``nn.cross_entropy``/``nn.nll_loss`` with an ``ignore_index`` that is a class in range
  (a padding token 0, as in ``F.cross_entropy(logits, tokens, ignore_index=pad_id)``)
  counted the ignored targets (a silent wrong answer): only an out-of-range index
  (torch's default -100) was left out.
* A batch-norm layer updating ``self.running_mean += (1 - m) * mu`` under ``vmap``/``grad``
  raised ``InPlaceError`` saying only ``numpy.add(..., out=...)``, "an argument that is not
  transformed" and "y = vmap(...)"; it names the in-place operator (``a += t``) now, the
  causes (an attribute such as ``self.running_mean``, ``a.copy()`` of a plain array) and
  the fixes (return the new statistics, as ``nn.batch_norm`` does; ``np.copy(a)``).
* ``hessian`` of a loss with dropout (a mask from a held generator) raised
  ``RandomnessError`` telling to pass ``randomness=`` to a ``vmap`` the user never wrote;
  ``hessian`` takes ``randomness=`` now and hands it to its outer ``jacfwd``.
"""

import numpy as np
import pytest

import ftransforms as ft
from ftransforms import nn
from ftransforms.core.stack import current_stack
from ftransforms.errors import InPlaceError
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


class _BatchNorm:
    """A practitioner's layer: running statistics updated in place."""

    def __init__(self, n, momentum=0.1):
        self.running_mean = np.zeros(n)
        self.momentum = momentum

    def __call__(self, x):
        mu = x.mean(0)
        self.running_mean += self.momentum * mu
        return (x - mu) / np.sqrt(x.var(0) + 1e-5)


@pytest.mark.parametrize("transform", ["vmap", "grad"])
def test_running_statistics_written_in_place_raise_naming_the_operator(transform):
    layer = _BatchNorm(3)
    x = np.random.default_rng(2).normal(size=(4, 5, 3))
    f = ft.vmap(layer) if transform == "vmap" else ft.grad(lambda x: (layer(x) ** 2).sum())
    with pytest.raises(InPlaceError) as info:
        f(x if transform == "vmap" else x[0])
    msg = str(info.value)
    assert msg.startswith(f"{transform}(")
    assert "a += t (numpy.add(..., out=...))" in msg
    assert "self.running_mean" in msg and "nn.batch_norm" in msg
    np.testing.assert_array_equal(layer.running_mean, 0.0)
    assert not current_stack()


def test_a_copy_of_an_outside_array_accumulated_into_is_the_loops():
    stats = {"sum": np.zeros(3)}

    def f(x):
        acc = stats["sum"].copy()  # only acc holds it (NOTE [traced writes into private
        acc -= x  # NumPy arrays])
        return acc

    xs = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(ft.vmap(f)(xs), np.stack([f(x) for x in xs]))
    np.testing.assert_array_equal(stats["sum"], 0.0)
    np.testing.assert_array_equal(
        ft.vmap(lambda x: np.copy(stats["sum"]) - x)(np.ones((2, 3))), -1.0
    )


def _dropout_loss(rng):
    def loss(w):
        h = np.tanh(w)
        keep = rng.random(h.shape) < 0.5
        return ((h * keep / 0.5) ** 2).sum()

    return loss


def test_hessian_of_a_loss_with_dropout_takes_randomness():
    w = np.random.default_rng(3).normal(size=5)
    with pytest.raises(ft.errors.RandomnessError):
        ft.hessian(_dropout_loss(np.random.default_rng(0)))(w)
    rng = np.random.default_rng(0)
    h = ft.hessian(_dropout_loss(rng), randomness="same")(w)
    again = np.random.default_rng(0)
    keep = again.random(5) < 0.5
    fixed = lambda v: ((np.tanh(v) * keep / 0.5) ** 2).sum()  # noqa: E731
    assert_tree_close(h, fd_jacobian(ft.grad(fixed), (w,)), **fd_tol(np.float64))
    assert rng.random() == again.random()  # one call's draws
    cols = ft.hessian(_dropout_loss(np.random.default_rng(0)), randomness="different")(w)
    again = np.random.default_rng(0)  # column j: the j-th call's mask, as a loop draws them
    for j in range(5):
        keep = again.random(5) < 0.5
        fixed = lambda v: ((np.tanh(v) * keep / 0.5) ** 2).sum()  # noqa: E731
        col = fd_jacobian(ft.grad(fixed), (w,))[:, j]
        assert_tree_close(cols[:, j], col, **fd_tol(np.float64))
