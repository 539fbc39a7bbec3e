"""Round two of the transforms as torch.func and JAX users write them: the torch.func
tutorials (ensembling, per-sample gradients, Jacobians/Hessians, the neural tangent
kernel, MAML, Hessian-vector products) redone with ``ftransforms.nn``, the idioms of
JAX's documentation (control flow, checkpoint, custom rules, linearize, stop_gradient,
the double-where trick, closures across levels, perturbation confusion, complex
gradients) and the exception types a user of each library catches.  Oracles: JAX in
float64 (each compiled once with ``jax.jit``), torch.func in float64, finite differences.
Round one (argument conventions) is tests/test_peer_semantics.py.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import optree
import pytest

import ftransforms as ft
from ftransforms import errors as E
from ftransforms import nn
from ftransforms import numpy as fnp
from tests.tolerances import assert_tree_close

close = functools.partial(assert_tree_close, rtol=1e-10, atol=1e-12, strict=True)


def j2n(tree):
    """A JAX (or torch) result as NumPy arrays."""
    return jax.tree_util.tree_map(np.asarray, tree)


def jaxify(tree):
    return jax.tree_util.tree_map(jnp.asarray, tree)


def jmlp(params, x):
    """JAX twin of ``nn.mlp`` (relu between linear layers, torch's (out, in) weights)."""
    for i, layer in enumerate(params):
        x = x @ layer["w"].T + layer["b"]
        if i < len(params) - 1:
            x = jax.nn.relu(x)
    return x


def rng(seed=0):
    return np.random.default_rng(seed)


# -- torch.func tutorial: model ensembling -----------------------------------------------


def test_model_ensembling_like_torch_func_tutorial():
    r = rng(1)
    models = [nn.init_mlp(r, [4, 6, 3], dtype=np.float64) for _ in range(5)]
    stacked = nn.stack_trees(models)
    minibatches = r.normal(size=(5, 7, 4))
    x = minibatches[0]
    # same minibatch for every model: in_dims=(0, None); a minibatch each: (0, 0)
    same = ft.vmap(nn.mlp, in_dims=(0, None))(stacked, x)
    each = ft.vmap(nn.mlp, in_dims=(0, 0))(stacked, minibatches)
    jstacked = jaxify(stacked)
    close(same, j2n(jax.jit(jax.vmap(jmlp, in_axes=(0, None)))(jstacked, x)))
    close(each, j2n(jax.jit(jax.vmap(jmlp, in_axes=(0, 0)))(jstacked, minibatches)))
    # and against the loop the tutorial replaces
    close(same, np.stack([nn.mlp(m, x) for m in models]))
    close(each, np.stack([nn.mlp(m, b) for m, b in zip(models, minibatches)]))
    # unstack_tree gives the members back
    close(nn.unstack_tree(stacked)[3], models[3])


# -- torch.func tutorial: per-sample gradients (conv net, dropout) -------------------------


def _conv_net(p, x):
    """The tutorial's small CNN on one (C, H, W) image: conv-relu-pool, linear, log_softmax."""
    h = nn.relu(nn.conv2d(x, p["conv"]["w"], p["conv"]["b"], padding=1))
    h = nn.max_pool2d(h, 2)
    h = nn.flatten(h, 0)
    return nn.log_softmax(nn.linear(p["fc"], h))


def test_per_sample_gradients_of_a_conv_net_like_torch_func():
    import torch
    import torch.nn.functional as F
    from torch.func import grad as tgrad
    from torch.func import vmap as tvmap

    r = rng(2)
    p = {"conv": nn.init_conv2d(r, 2, 3, 3, dtype=np.float64)}
    p["fc"] = nn.init_linear(r, 3 * 3 * 3, 4, dtype=np.float64)
    x = r.normal(size=(6, 2, 6, 6))
    y = r.integers(0, 4, size=6)

    def loss(p, x, y):
        # the tutorial adds the batch axis back for the single sample
        return nn.nll_loss(_conv_net(p, x)[None], y[None])

    per_sample = ft.vmap(ft.grad(loss), in_dims=(None, 0, 0))(p, x, y)

    tp = optree.tree_map(torch.from_numpy, p)

    def tloss(p, x, y):
        h = F.max_pool2d(F.relu(F.conv2d(x[None], p["conv"]["w"], p["conv"]["b"], padding=1)), 2)
        h = h.flatten(1) @ p["fc"]["w"].T + p["fc"]["b"]
        return F.nll_loss(F.log_softmax(h, -1), y[None])

    want = tvmap(tgrad(tloss), in_dims=(None, 0, 0))(tp, torch.from_numpy(x), torch.from_numpy(y))
    close(per_sample, optree.tree_map(lambda t: t.numpy(), want))
    # and the loop of single-sample gradients it replaces
    close(
        optree.tree_map(lambda a: a[4], per_sample), ft.grad(loss)(p, x[4], y[4]), err_msg="loop"
    )


def test_per_sample_gradients_with_dropout_randomness_modes():
    r = rng(3)
    p = nn.init_mlp(r, [5, 8, 2], dtype=np.float64)
    x = r.normal(size=(4, 5))
    drop_rng = np.random.default_rng(7)

    def loss(p, x, key_rng):
        h = nn.relu(nn.linear(p[0], x))
        h = nn.dropout(key_rng, h, p=0.5)
        return nn.logsumexp(nn.linear(p[1], h))

    with pytest.raises(E.RandomnessError):
        ft.vmap(ft.grad(loss), in_dims=(None, 0, None))(p, x, drop_rng)

    # 'same': one mask for the batch; the mask is the draw of the generator's state, so a
    # copy of that state replays it in a Python loop
    state = drop_rng.bit_generator.state
    same = ft.vmap(ft.grad(loss), in_dims=(None, 0, None), randomness="same")(p, x, drop_rng)
    replay = np.random.default_rng()
    replay.bit_generator.state = state
    h_mask = nn.dropout(replay, np.ones(8), p=0.5)  # the mask the vmap drew, as 0 / 2
    loop = [ft.grad(lambda p, x: loss_masked(p, x, h_mask))(p, x[i]) for i in range(4)]
    close(same, nn.stack_trees(loop))

    # 'different': a mask per sample (rows of the first layer's gradient differ in which
    # hidden units are zeroed); each sample's gradient is still that of *a* mask
    diff = ft.vmap(ft.grad(loss), in_dims=(None, 0, None), randomness="different")(
        p, x, drop_rng
    )
    zero_rows = [tuple(np.all(diff[0]["w"][i] == 0, axis=1)) for i in range(4)]
    assert len(set(zero_rows)) > 1, zero_rows


def loss_masked(p, x, mask):
    h = nn.relu(nn.linear(p[0], x)) * mask
    return nn.logsumexp(nn.linear(p[1], h))
