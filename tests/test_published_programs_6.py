"""Published programs, round six: classic NumPy programs with hand-written backward
passes, scientific and engineering scripts, and finance code, run unchanged.

Each program lives in its own module under ``tests/published6/`` with its authors' import
lines (``import numpy as np``; ``jax.numpy``/``autograd.numpy`` would read
``ftransforms.numpy``), plotting and file I/O left out; the program bodies keep their
authors' loops, dicts of states, in-place updates, buffers and printing. Sizes and
iteration counts are shrunk to keep this file fast.

Oracles: the programs' own hand-written backward passes (``ft.grad``/``ft.vjp`` must
reproduce them), float64 central differences, Python loops for ``vmap``, and closed forms.
"""

from __future__ import annotations

import types

import numpy as np
import optree
import pytest

import ftransforms as ft
from tests.published6 import karpathy_min_char_rnn
from tests.tolerances import FD_TOL, assert_tree_close, tol

TOL = tol(np.float64)


def close(actual, expected, tolerance=TOL, msg=""):
    """``actual`` (what a transform or program returned) is ``expected`` to ``tolerance``."""
    assert_tree_close(actual, optree.tree_map(np.asarray, expected), err_msg=msg, **tolerance)


def fd_jacobian(f, args, argnum=0, eps=1e-3):
    """4th-order central differences in float64 of ``f`` in ``args[argnum]``."""
    x = np.asarray(args[argnum], dtype=np.float64)

    def at(v):
        call = list(args)
        call[argnum] = v
        return np.asarray(f(*call), dtype=np.float64)

    cols = []
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = eps
        e = e.reshape(x.shape)
        cols.append((-at(x + 2 * e) + 8 * at(x + e) - 8 * at(x - e) + at(x - 2 * e)) / (12 * eps))
    out = np.stack(cols, axis=-1)
    return out.reshape(out.shape[:-1] + x.shape)


def with_globals(fn, **names):
    """``fn``'s code run with its module's globals updated by ``names`` (a program that
    reads its parameters from module globals, differentiated in them)."""
    rebound = dict(fn.__globals__)
    rebound.update(names)
    return types.FunctionType(fn.__code__, rebound, fn.__name__, fn.__defaults__)


@pytest.fixture
def rng():
    return np.random.default_rng(6)


# ======================================================================================
# 1. Karpathy's min-char-rnn.py: ft.grad of lossFun's loss equals its hand-written
#    backward pass (dicts of states, dy[targets[t]] -= 1, np.clip(..., out=dparam))
# ======================================================================================


def test_min_char_rnn():
    m = karpathy_min_char_rnn
    inputs = [m.char_to_ix[ch] for ch in m.data[: m.seq_length]]
    targets = [m.char_to_ix[ch] for ch in m.data[1 : m.seq_length + 1]]
    rng = np.random.RandomState(1)
    params = {k: rng.randn(*getattr(m, k).shape) * 0.3 for k in ("Wxh", "Whh", "Why", "bh", "by")}
    hprev = np.tanh(rng.randn(m.hidden_size, 1))

    def loss(params, hprev):
        return with_globals(m.lossFun, **params)(inputs, targets, hprev)[0]

    loss_, dWxh, dWhh, dWhy, dbh, dby, h_last = with_globals(m.lossFun, **params)(
        inputs, targets, hprev
    )
    assert max(abs(d).max() for d in (dWxh, dWhh, dWhy, dbh, dby)) < 5  # the clip is inactive
    g = ft.grad(loss)(params, hprev)
    close(g, {"Wxh": dWxh, "Whh": dWhh, "Why": dWhy, "bh": dbh, "by": dby}, msg="grad vs bptt")
    close(ft.grad(loss, 1)(params, hprev), fd_jacobian(lambda h: loss(params, h), (hprev,)), FD_TOL)
    # the whole function (its backward pass and the clip included) under a transform:
    # d(sum of the clipped dWhy)/d hprev against finite differences
    dwhy_sum = lambda h: with_globals(m.lossFun, **params)(inputs, targets, h)[3].sum()  # noqa: E731
    close(ft.grad(dwhy_sum)(hprev), fd_jacobian(dwhy_sum, (hprev,)), FD_TOL, "through bptt")
    # the same loss over a batch of initial states, by vmap and by a loop
    hs = np.tanh(rng.randn(3, m.hidden_size, 1))
    close(ft.vmap(lambda h: loss(params, h))(hs), np.stack([loss(params, h) for h in hs]))
    # the Adagrad loop runs (in place on the module's arrays) and the loss goes down
    before = float(loss(params, np.zeros((m.hidden_size, 1))))
    saved = {k: getattr(m, k).copy() for k in params}
    try:
        m.train(60)
        after = with_globals(m.lossFun, **{k: getattr(m, k) for k in params})(
            inputs, targets, np.zeros((m.hidden_size, 1))
        )[0]
    finally:
        for k, v in saved.items():
            getattr(m, k)[...] = v
    assert after < before
