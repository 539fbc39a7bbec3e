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

import ftransforms.numpy as fnp
from batching_rules.helpers import move_bdim_to_front


def _fold_front_into_axis1(v):
    """``(B, N, ...) -> (B*N, ...)``."""
    s = fnp.shape(v)
    return fnp.reshape(v, (s[0] * s[1],) + s[2:])


def _fold_into_groups(v):
    """``(B, N, K, ...) -> (N, B*K, ...)``: the batch becomes the outer part of the groups."""
    s = fnp.shape(v)
    return fnp.reshape(fnp.moveaxis(v, 0, 1), (s[1], s[0] * s[2]) + s[3:])


def _fold_into_group_members(v, groups, axis):
    """``v`` with its front batch axis ``B`` moved into axis ``axis`` (logical) after the
    group index: ``(B, ..., G*K, ...) -> (..., G*B*K, ...)``."""
    s = fnp.shape(v)
    b, k = s[0], s[axis + 1] // groups
    v = fnp.reshape(v, s[: axis + 1] + (groups, k) + s[axis + 2 :])
    v = fnp.moveaxis(v, 0, axis + 1)  # (..., G, B, K, ...)
    return fnp.reshape(v, s[1 : axis + 1] + (groups * b * k,) + s[axis + 2 :])


def _split_group_members(v, groups, b, axis):
    """The inverse of :func:`_fold_into_group_members`: ``(..., G*B*K, ...)`` -> the batch
    axis and ``(..., G*K, ...)``; returns ``(value, bdim)``."""
    s = fnp.shape(v)
    k = s[axis] // (groups * b)
    if groups == 1:
        return fnp.reshape(v, s[:axis] + (b, k) + s[axis + 1 :]), axis
    v = fnp.reshape(v, s[:axis] + (groups, b, k) + s[axis + 1 :])
    v = fnp.moveaxis(v, axis + 1, 0)  # (B, ..., G, K, ...)
    t = fnp.shape(v)
    return fnp.reshape(v, t[: axis + 1] + (groups * k,) + t[axis + 3 :]), 0


def _unfold_n(out, b):
    s = fnp.shape(out)
    return fnp.reshape(out, (b, s[0] // b) + s[1:]), 0


def _unfold_groups(out, b, axis):
    s = fnp.shape(out)
    return fnp.reshape(out, s[:axis] + (b, s[axis] // b) + s[axis + 1 :]), axis


def conv2d(prim, args, bdims, axis_size, *, groups, **params):
    """Batch ``conv2d(x, w)``."""
    x, w = args
    xd, wd = bdims
    b = axis_size
    if wd is None:
        out = prim.bind(
            _fold_front_into_axis1(move_bdim_to_front(x, xd)), w, groups=groups, **params
        )
        return _unfold_n(out, b)
    w = move_bdim_to_front(w, wd)
    if xd is None:
        out = prim.bind(x, _fold_into_group_members(w, groups, 0), groups=groups, **params)
        return _split_group_members(out, groups, b, 1)
    x = move_bdim_to_front(x, xd)
    out = prim.bind(_fold_into_groups(x), _fold_front_into_axis1(w), groups=b * groups, **params)
    return _unfold_groups(out, b, 1)


def conv_transpose2d(prim, args, bdims, axis_size, *, groups, **params):
    """Batch ``conv_transpose2d(g, w)`` (output shaped like conv2d's input)."""
    g, w = args
    gd, wd = bdims
    b = axis_size
    if wd is None:
        out = prim.bind(
            _fold_front_into_axis1(move_bdim_to_front(g, gd)), w, groups=groups, **params
        )
        return _unfold_n(out, b)
    w = move_bdim_to_front(w, wd)
    if gd is None:
        # (B, O, Cg, kh, kw) -> (O, B*Cg, kh, kw): the batch joins each group's outputs.
        s = fnp.shape(w)
        w2 = fnp.reshape(fnp.moveaxis(w, 0, 1), (s[1], s[0] * s[2]) + s[3:])
        out = prim.bind(g, w2, groups=groups, **params)
        return _split_group_members(out, groups, b, 1)
    g = move_bdim_to_front(g, gd)
    out = prim.bind(_fold_into_groups(g), _fold_front_into_axis1(w), groups=b * groups, **params)
    return _unfold_groups(out, b, 1)


def conv2d_weight(prim, args, bdims, axis_size, *, groups, **params):
    """Batch ``conv2d_weight(x, g)`` (output shaped like the kernel)."""
    x, g = args
    xd, gd = bdims
    b = axis_size
    if gd is None:
        # the batch joins each group's input channels: the result is (O, B*Cg, kh, kw)
        x = _fold_into_group_members(move_bdim_to_front(x, xd), groups, 1)
        out = prim.bind(x, g, groups=groups, **params)
        return _unfold_groups(out, b, 1)
    g = move_bdim_to_front(g, gd)
    if xd is None:
        out = prim.bind(x, _fold_into_group_members(g, groups, 1), groups=groups, **params)
        return _split_group_members(out, groups, b, 0)
    x = move_bdim_to_front(x, xd)
    out = prim.bind(_fold_into_groups(x), _fold_into_groups(g), groups=b * groups, **params)
    return _unfold_groups(out, b, 0)


def trailing(k: int):
    """The rule of a one-input op that works on the last ``k`` axes and treats all leading
    axes as batch axes (windows, pooling): a batch axis among the leading axes stays where
    it is, one among the last ``k`` moves to the front."""

    def rule(prim, args, bdims, axis_size, **params):
        (x,), (d,) = args, bdims
        if d >= fnp.ndim(x) - k:
            x, d = move_bdim_to_front(x, d), 0
        return prim.bind(x, **params), d

    rule.__name__ = f"trailing_{k}"
    return rule


def broadcasting_trailing(k: int):
    """The rule of an op on the last ``k`` axes whose inputs broadcast over their leading
    axes (the max-pooling derivatives): batched inputs get their batch axis in front, and
    unbatched ones broadcast against it (NumPy aligns the leading axes from the right)."""

    def rule(prim, args, bdims, axis_size, **params):
        moved = [a if d is None else move_bdim_to_front(a, d) for a, d in zip(args, bdims)]
        return prim.bind(*moved, **params), 0

    rule.__name__ = f"broadcasting_trailing_{k}"
    return rule
