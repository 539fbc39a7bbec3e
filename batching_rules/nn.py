"""Convolution and sliding windows: the ``vmap`` axis is folded into an axis the primitive
already loops over, so a batched convolution is still one stacked GEMM.

See NOTE [convolution as three bilinear primitives] in ``ftransforms/ops/nn.py``.  With
``B`` the batch size and ``G`` the groups:

* only the image (or output cotangent) batched: ``B`` goes into the batch axis ``N``;
* only the kernel batched (an ensemble on shared data): ``B`` goes into the kernel's
  per-group output channels (``(G, O/G) -> (G, B*O/G)``);
* both batched (per-example gradients, ensembles on their own data): ``B`` goes into the
  groups, ``G -> B*G``.
"""

from __future__ import annotations

from batching_rules.helpers import (
    move_bdim_to_front,
    reshape_dim_into,
    reshape_dim_outof,
)
from ftransforms import lax
from ftransforms.core.primitive import register_batch_rule
from ftransforms.ops import nn as ops


def _fold_front_into_axis1(v):
    """``(B, N, ...) -> (B*N, ...)``."""
    return reshape_dim_into(0, 0, v)


def _fold_into_groups(v):
    """``(B, N, K, ...) -> (N, B*K, ...)``: the batch becomes the outer part of the groups."""
    return reshape_dim_into(0, 1, v)


def _fold_into_group_members(v, groups, axis):
    """``v`` with its front batch axis ``B`` moved into axis ``axis`` (logical) after the
    group index: ``(B, ..., G*K, ...) -> (..., G*B*K, ...)``."""
    s = lax.shape(v)
    b, k = s[0], s[axis + 1] // groups
    v = lax.reshape(v, s[: axis + 1] + (groups, k) + s[axis + 2 :])
    v = lax.moveaxis(v, 0, axis + 1)  # (..., G, B, K, ...)
    return lax.reshape(v, s[1 : axis + 1] + (groups * b * k,) + s[axis + 2 :])


def _split_group_members(v, groups, b, axis):
    """The inverse of :func:`_fold_into_group_members`: ``(..., G*B*K, ...)`` -> the batch
    axis and ``(..., G*K, ...)``; returns ``(value, bdim)``."""
    s = lax.shape(v)
    k = s[axis] // (groups * b)
    if groups == 1:
        return lax.reshape(v, s[:axis] + (b, k) + s[axis + 1 :]), axis
    v = lax.reshape(v, s[:axis] + (groups, b, k) + s[axis + 1 :])
    v = lax.moveaxis(v, axis + 1, 0)  # (B, ..., G, K, ...)
    t = lax.shape(v)
    return lax.reshape(v, t[: axis + 1] + (groups * k,) + t[axis + 3 :]), 0


def _unfold_n(out, b):
    return reshape_dim_outof(0, b, out), 0


def _unfold_groups(out, b, axis):
    return reshape_dim_outof(axis, b, out), axis


def conv2d(prim, args, x_bdims, axis_size, *, groups, **params):
    """Batch ``conv2d(x, w)``."""
    x, w = args
    x_bdim, w_bdim = x_bdims
    b = axis_size
    if w_bdim is None:
        out = prim.bind(
            _fold_front_into_axis1(move_bdim_to_front(x, x_bdim)), w, groups=groups, **params
        )
        return _unfold_n(out, b)
    w = move_bdim_to_front(w, w_bdim)
    if x_bdim is None:
        out = prim.bind(x, _fold_into_group_members(w, groups, 0), groups=groups, **params)
        return _split_group_members(out, groups, b, 1)
    x = move_bdim_to_front(x, x_bdim)
    out = prim.bind(_fold_into_groups(x), _fold_front_into_axis1(w), groups=b * groups, **params)
    return _unfold_groups(out, b, 1)


def conv_transpose2d(prim, args, x_bdims, axis_size, *, groups, **params):
    """Batch ``conv_transpose2d(g, w)`` (output shaped like conv2d's input)."""
    g, w = args
    g_bdim, w_bdim = x_bdims
    b = axis_size
    if w_bdim is None:
        out = prim.bind(
            _fold_front_into_axis1(move_bdim_to_front(g, g_bdim)), w, groups=groups, **params
        )
        return _unfold_n(out, b)
    w = move_bdim_to_front(w, w_bdim)
    if g_bdim is None:
        # (B, O, Cg, kh, kw) -> (O, B*Cg, kh, kw): the batch joins each group's outputs.
        out = prim.bind(g, _fold_into_groups(w), groups=groups, **params)
        return _split_group_members(out, groups, b, 1)
    g = move_bdim_to_front(g, g_bdim)
    out = prim.bind(_fold_into_groups(g), _fold_front_into_axis1(w), groups=b * groups, **params)
    return _unfold_groups(out, b, 1)


def conv2d_weight(prim, args, x_bdims, axis_size, *, groups, **params):
    """Batch ``conv2d_weight(x, g)`` (output shaped like the kernel)."""
    x, g = args
    x_bdim, g_bdim = x_bdims
    b = axis_size
    if g_bdim is None:
        # the batch joins each group's input channels: the result is (O, B*Cg, kh, kw)
        x = _fold_into_group_members(move_bdim_to_front(x, x_bdim), groups, 1)
        out = prim.bind(x, g, groups=groups, **params)
        return _unfold_groups(out, b, 1)
    g = move_bdim_to_front(g, g_bdim)
    if x_bdim is None:
        out = prim.bind(x, _fold_into_group_members(g, groups, 1), groups=groups, **params)
        return _split_group_members(out, groups, b, 0)
    x = move_bdim_to_front(x, x_bdim)
    out = prim.bind(_fold_into_groups(x), _fold_into_groups(g), groups=b * groups, **params)
    return _unfold_groups(out, b, 0)


def trailing(k: int):
    """The rule of a one-input op that works on the last ``k`` axes and treats all leading
    axes as batch axes (windows, pooling): a batch axis among the leading axes stays where
    it is, one among the last ``k`` moves to the front."""

    def rule(prim, args, x_bdims, axis_size, **params):
        (x,), (x_bdim,) = args, x_bdims
        if x_bdim >= lax.ndim(x) - k:
            x, x_bdim = move_bdim_to_front(x, x_bdim), 0
        return prim.bind(x, **params), x_bdim

    rule.__name__ = f"trailing_{k}"
    return rule


def broadcasting_trailing(k: int):
    """The rule of an op on the last ``k`` axes whose inputs broadcast over their leading
    axes (the max-pooling derivatives): batched inputs get their batch axis in front, and
    unbatched ones broadcast against it (NumPy aligns the leading axes from the right)."""

    def rule(prim, args, x_bdims, axis_size, **params):
        moved = [
            a if x_bdim is None else move_bdim_to_front(a, x_bdim)
            for a, x_bdim in zip(args, x_bdims)
        ]
        return prim.bind(*moved, **params), 0

    rule.__name__ = f"broadcasting_trailing_{k}"
    return rule


register_batch_rule(ops.conv2d_p, conv2d)
register_batch_rule(ops.conv_transpose2d_p, conv_transpose2d)
register_batch_rule(ops.conv2d_weight_p, conv2d_weight)
for _prim in (ops.sliding_windows_p, ops.window_sum_p, ops.window_sum_transpose_p):
    register_batch_rule(_prim, trailing(2))
register_batch_rule(ops.sliding_windows_transpose_p, trailing(4))
register_batch_rule(ops.max_pool2d_p, trailing(2))
register_batch_rule(ops.max_pool2d_jvp_p, broadcasting_trailing(2))
register_batch_rule(ops.max_pool2d_vjp_p, broadcasting_trailing(2))
