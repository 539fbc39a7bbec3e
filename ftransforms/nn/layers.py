"""Layers as pure functions of arrays and parameter pytrees (``torch.nn.functional``
semantics and layouts: NCHW images, ``(out, in)`` linear weights, ``(out, in/groups, kh,
kw)`` convolution kernels).

Every function works on arrays and tracers alike, under every transform; the convolution
and window primitives they use are declared in ``ftransforms/ops/nn.py``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.nn._utils import out_size, padding_pairs, pair, positive_pair
from ftransforms.nn.activations import relu
from ftransforms.numpy.helpers import dtype_of
from ftransforms.ops.nn import (
    conv2d_p,
    conv_transpose2d_p,
    max_pool2d_p,
    sliding_windows_p,
    window_sum_p,
)
from ftransforms.random import bernoulli

# -- dense -------------------------------------------------------------------------------


def linear(params: Any, x: Any) -> Any:
    """``x @ w.T + b`` for ``params = {"w": (out, in), "b": (out,) or None}``; ``x`` is
    ``(..., in)``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import nn
        >>> params, x = {"w": np.array([[1.0, 2.0]]), "b": np.array([0.5])}, np.array([3.0, 4.0])
        >>> nn.linear(params, x)  # 1*3 + 2*4 + 0.5
        array([11.5])
        >>> ft.grad(lambda p: nn.linear(p, x)[0])(params)  # d/dw = x, d/db = 1
        {'w': array([[3., 4.]]), 'b': array([1.])}
    """
    w = params["w"]
    y = fnp.matmul(x, fnp.transpose(w))
    b = params.get("b") if isinstance(params, dict) else None
    return y if b is None else y + b


def mlp(params: Any, x: Any, activation: Any = None) -> Any:
    """A multilayer perceptron: ``linear`` layers (``params`` from :func:`init_mlp`) with
    ``activation`` (default ``relu``) between them, none after the last.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import nn
        >>> params = [{"w": np.array([[1.0], [-1.0]]), "b": np.zeros(2)},  # 1 -> 2
        ...           {"w": np.array([[1.0, 1.0]]), "b": np.zeros(1)}]  # 2 -> 1: |x|
        >>> nn.mlp(params, np.array([[2.0], [-3.0]]))  # relu(x) + relu(-x)
        array([[2.],
               [3.]])
        >>> ft.vmap(ft.grad(lambda x: nn.mlp(params, x)[0]))(np.array([[2.0], [-3.0]]))
        array([[ 1.],
               [-1.]])
    """
    if activation is None:
        activation = relu
    for k, layer in enumerate(params):
        x = linear(layer, x)
        if k < len(params) - 1:
            x = activation(x)
    return x


# -- convolution ---------------------------------------------------------------------------


def _conv_padding(padding: Any, kernel: tuple, stride: tuple, dilation: tuple, where: str):
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0), (0, 0))
        if padding == "same":
            if stride != (1, 1):
                raise ValueError(
                    f"{where}: padding='same' is not supported for strided convolutions"
                )
            out = []
            for k, d in zip(kernel, dilation):
                total = d * (k - 1)
                out.append((total // 2, total - total // 2))
            return tuple(out)
        raise ValueError(
            f"{where}: padding must be 'valid', 'same', an int or pairs, got {padding!r}"
        )
    return padding_pairs(padding, where)


def _common_float(x: Any, w: Any) -> tuple[Any, Any]:
    dt = fnp.result_type(x, w)
    if dt.kind not in "fc":
        dt = numpy.dtype(numpy.float64)
    return fnp.astype(x, dt), fnp.astype(w, dt)


def conv2d(
    x: Any,
    w: Any,
    b: Any = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Any:
    """2-D convolution (cross-correlation, like ``torch.nn.functional.conv2d``).

    ``x``: ``(N, C, H, W)`` or unbatched ``(C, H, W)``; ``w``: ``(O, C/groups, kh, kw)``;
    ``b``: ``(O,)`` or None.  ``padding``: an int, ``(ph, pw)``, ``((top, bottom), (left,
    right))``, ``'valid'`` or ``'same'``.  Returns ``(N, O, Ho, Wo)`` (or ``(O, Ho, Wo)``).

    Example:
        >>> import numpy as np
        >>> conv2d(np.ones((1, 2, 5, 5)), np.ones((3, 2, 3, 3)), padding=1).shape
        (1, 3, 5, 5)
    """
    where = "conv2d(x, w)"
    if fnp.ndim(w) != 4:
        raise ValueError(f"{where}: w must have shape (O, C/groups, kh, kw), got {fnp.shape(w)}")
    unbatched = fnp.ndim(x) == 3
    if unbatched:
        x = fnp.expand_dims(x, 0)
    elif fnp.ndim(x) != 4:
        raise ValueError(
            f"{where}: x must have shape (N, C, H, W) or (C, H, W), got {fnp.shape(x)}"
        )
    groups = int(groups)
    o, cg, kh, kw = fnp.shape(w)
    c = fnp.shape(x)[1]
    if groups < 1 or c != cg * groups or o % groups:
        raise ValueError(
            f"{where}: with groups={groups}, x's {c} channels must equal w.shape[1] * groups "
            f"= {cg * groups} and w's {o} output channels must be a multiple of groups"
        )
    stride = positive_pair(stride, "stride", where)
    dilation = positive_pair(dilation, "dilation", where)
    pads = _conv_padding(padding, (kh, kw), stride, dilation, where)
    h, wd = fnp.shape(x)[2:]
    for n, k, s, d, (lo, hi) in zip((h, wd), (kh, kw), stride, dilation, pads):
        if out_size(n, k, s, d, lo, hi) < 1:
            raise ValueError(
                f"{where}: the (dilated) kernel is larger than the padded input: input "
                f"{(h, wd)}, kernel {(kh, kw)}, dilation {dilation}, padding {pads}"
            )
    x, w = _common_float(x, w)
    y = conv2d_p.bind(x, w, stride=stride, padding=pads, dilation=dilation, groups=groups)
    if b is not None:
        y = y + fnp.reshape(b, (-1, 1, 1))
    return fnp.squeeze(y, 0) if unbatched else y


def conv_transpose2d(
    x: Any,
    w: Any,
    b: Any = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Any:
    """Transposed 2-D convolution (``torch.nn.functional.conv_transpose2d``, same argument
    order): ``x`` ``(N, C_in, H, W)`` or ``(C_in, H, W)``, ``w`` ``(C_in, C_out/groups, kh,
    kw)``; the output has ``(H - 1) * stride - 2 * padding + dilation * (kh - 1) +
    output_padding + 1`` rows.  It is the derivative of :func:`conv2d` with respect to its
    input.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import nn
        >>> x, w = np.ones((1, 2, 2)), np.ones((1, 1, 2, 2))
        >>> nn.conv_transpose2d(x, w)  # each input spreads over a 2x2 patch
        array([[[1., 2., 1.],
                [2., 4., 2.],
                [1., 2., 1.]]])
        >>> _, pullback = ft.vjp(lambda z: nn.conv2d(z, w), np.zeros((1, 3, 3)))
        >>> np.array_equal(pullback(x)[0], nn.conv_transpose2d(x, w))
        True
    """
    where = "conv_transpose2d(x, w)"
    if fnp.ndim(w) != 4:
        raise ValueError(
            f"{where}: w must have shape (C_in, C_out/groups, kh, kw), got {fnp.shape(w)}"
        )
    unbatched = fnp.ndim(x) == 3
    if unbatched:
        x = fnp.expand_dims(x, 0)
    elif fnp.ndim(x) != 4:
        raise ValueError(
            f"{where}: x must have shape (N, C, H, W) or (C, H, W), got {fnp.shape(x)}"
        )
    groups = int(groups)
    cin, _, kh, kw = fnp.shape(w)
    if fnp.shape(x)[1] != cin or cin % groups:
        raise ValueError(
            f"{where}: x has {fnp.shape(x)[1]} channels, w.shape[0] is {cin} (it must match, "
            f"and be a multiple of groups={groups})"
        )
    stride = positive_pair(stride, "stride", where)
    dilation = positive_pair(dilation, "dilation", where)
    ph, pw = _pair_nonneg(padding, where)
    oph, opw = _pair_nonneg(output_padding, where, "output_padding")
    for op, s, d in ((oph, stride[0], dilation[0]), (opw, stride[1], dilation[1])):
        if op >= max(s, d):
            raise ValueError(f"{where}: output_padding must be smaller than stride or dilation")
    h, wd = fnp.shape(x)[2:]
    in_size = (
        (h - 1) * stride[0] - 2 * ph + dilation[0] * (kh - 1) + oph + 1,
        (wd - 1) * stride[1] - 2 * pw + dilation[1] * (kw - 1) + opw + 1,
    )
    if min(in_size) < 1:
        raise ValueError(f"{where}: the output size {in_size} is not positive")
    x, w = _common_float(x, w)
    y = conv_transpose2d_p.bind(
        x,
        w,
        in_size=in_size,
        stride=stride,
        padding=((ph, ph), (pw, pw)),
        dilation=dilation,
        groups=groups,
    )
    if b is not None:
        y = y + fnp.reshape(b, (-1, 1, 1))
    return fnp.squeeze(y, 0) if unbatched else y


def _pair_nonneg(v: Any, where: str, name: str = "padding") -> tuple[int, int]:
    p = pair(v, name, where)
    if min(p) < 0:
        raise ValueError(f"{where}: {name} must be non-negative, got {v!r}")
    return p


# -- sliding windows and pooling -------------------------------------------------------------


def sliding_windows(
    x: Any,
    kernel_size: Any,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    pad_value: float = 0.0,
) -> Any:
    """The sliding windows of the last two axes: ``(..., H, W) -> (..., Ho, Wo, kh, kw)``
    (a view when nothing is padded).  The building block of pooling; ``unfold`` in torch
    terms, with the window axes last.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import nn
        >>> x = np.arange(9.0).reshape(3, 3)
        >>> windows = nn.sliding_windows(x, 2)  # (Ho, Wo, kh, kw)
        >>> windows.shape, windows[0, 1].tolist()
        ((2, 2, 2, 2), [[1.0, 2.0], [4.0, 5.0]])
        >>> ft.grad(lambda x: nn.sliding_windows(x, 2).sum())(x)  # windows per element
        array([[1., 2., 1.],
               [2., 4., 2.],
               [1., 2., 1.]])
    """
    where = "sliding_windows(x, kernel_size)"
    kernel = positive_pair(kernel_size, "kernel_size", where)
    stride = positive_pair(stride, "stride", where)
    dilation = positive_pair(dilation, "dilation", where)
    pads = padding_pairs(padding, where)
    if fnp.ndim(x) < 2:
        raise ValueError(f"{where}: x needs at least two axes, got shape {fnp.shape(x)}")
    h, w = fnp.shape(x)[-2:]
    for n, k, s, d, (lo, hi) in zip((h, w), kernel, stride, dilation, pads):
        if out_size(n, k, s, d, lo, hi) < 1:
            raise ValueError(
                f"{where}: the window {kernel} (dilation {dilation}) is larger than the padded "
                f"input {(h, w)} (padding {pads})"
            )
    return sliding_windows_p.bind(
        x, kernel_size=kernel, stride=stride, padding=pads, dilation=dilation, pad_value=pad_value
    )


def _pool_geometry(x, kernel_size, stride, padding, dilation, ceil_mode, where):
    if fnp.ndim(x) not in (3, 4):
        raise ValueError(
            f"{where}: x must have shape (N, C, H, W) or (C, H, W), got {fnp.shape(x)}"
        )
    kernel = positive_pair(kernel_size, "kernel_size", where)
    stride = kernel if stride is None else positive_pair(stride, "stride", where)
    dilation = positive_pair(dilation, "dilation", where)
    ph, pw = _pair_nonneg(padding, where)
    if ph > kernel[0] // 2 or pw > kernel[1] // 2:
        raise ValueError(f"{where}: padding should be at most half of the kernel size")
    pads = []
    for n, k, s, d, p in zip(fnp.shape(x)[-2:], kernel, stride, dilation, (ph, pw)):
        span = n + 2 * p - d * (k - 1) - 1
        if span < 0:
            raise ValueError(f"{where}: the window is larger than the padded input")
        out = (span + (s - 1 if ceil_mode else 0)) // s + 1
        if ceil_mode and (out - 1) * s >= n + p:  # the last window must start inside
            out -= 1
        extra = max(0, (out - 1) * s + d * (k - 1) + 1 - (n + 2 * p))
        pads.append((p, p + extra))
    return kernel, stride, dilation, tuple(pads)


def max_pool2d(
    x: Any,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
) -> Any:
    """2-D max pooling (``torch.nn.functional.max_pool2d``) over ``(N, C, H, W)`` or
    ``(C, H, W)``; ``stride`` defaults to ``kernel_size``; padding is ``-inf``.

    Ties: the derivative is shared equally by every element of a window that attains its
    maximum, as for ``max`` everywhere in this library (NOTE [ties in max pooling] in
    ops/nn.py).  torch instead gives it all to the first maximal element, and
    ``jax.lax.reduce_window`` to one of them; away from ties all three agree.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import nn
        >>> x = np.arange(16.0).reshape(1, 4, 4)  # (C, H, W)
        >>> nn.max_pool2d(x, 2)
        array([[[ 5.,  7.],
                [13., 15.]]])
        >>> ft.grad(lambda x: nn.max_pool2d(x, 2).sum())(x)[0]  # 1 at each window's maximum
        array([[0., 0., 0., 0.],
               [0., 1., 0., 1.],
               [0., 0., 0., 0.],
               [0., 1., 0., 1.]])
    """
    where = "max_pool2d(x, kernel_size)"
    kernel, stride, dilation, pads = _pool_geometry(
        x, kernel_size, stride, padding, dilation, ceil_mode, where
    )
    return max_pool2d_p.bind(x, kernel_size=kernel, stride=stride, padding=pads, dilation=dilation)


def avg_pool2d(
    x: Any,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Any:
    """2-D average pooling (``torch.nn.functional.avg_pool2d``, the same divisors: with
    ``count_include_pad`` the zero padding counts, the part of a ``ceil_mode`` window past
    the padding never does).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import nn
        >>> x = np.arange(16.0).reshape(1, 4, 4)  # (C, H, W)
        >>> nn.avg_pool2d(x, 2)
        array([[[ 2.5,  4.5],
                [10.5, 12.5]]])
        >>> ft.grad(lambda x: nn.avg_pool2d(x, 2).sum())(x)[0, 0]  # 1 / (2 * 2)
        array([0.25, 0.25, 0.25, 0.25])
    """
    where = "avg_pool2d(x, kernel_size)"
    kernel, stride, dilation, pads = _pool_geometry(
        x, kernel_size, stride, padding, 1, ceil_mode, where
    )
    if dtype_of(x).kind not in "fc":
        x = fnp.astype(x, numpy.float64)
    total = window_sum_p.bind(x, kernel_size=kernel, stride=stride, padding=pads, dilation=dilation)
    if divisor_override is not None:
        return total / divisor_override
    h, w = fnp.shape(x)[-2:]
    (pt, _), (pl, _) = pads
    region = numpy.zeros((h + 2 * pt, w + 2 * pl), dtype=dtype_of(x))
    if count_include_pad:
        region[...] = 1
    else:
        region[pt : pt + h, pl : pl + w] = 1
    counts = _window_counts(region, kernel, stride, pads, (h, w))
    if (counts == counts.flat[0]).all():
        return total / counts.flat[0]
    return total / fnp.asarray(counts, like=x)


def _window_counts(region, kernel, stride, pads, in_size):
    """How many cells of ``region`` (the input plus its symmetric padding, ones where they
    count) each window covers; the ceil-mode overflow counts nothing."""
    (pt, pb), (pl, pr) = pads
    h, w = in_size
    full = numpy.zeros((h + pt + pb, w + pl + pr), dtype=region.dtype)
    full[: region.shape[0], : region.shape[1]] = region
    win = numpy.lib.stride_tricks.sliding_window_view(full, kernel)[:: stride[0], :: stride[1]]
    return win.sum(axis=(-2, -1))


def adaptive_avg_pool2d(x: Any, output_size: Any) -> Any:
    """``torch.nn.functional.adaptive_avg_pool2d``: output cell ``(i, j)`` is the mean of
    rows ``floor(i H / oh)`` to ``ceil((i + 1) H / oh)`` (exclusive) and the same for the
    columns, torch's bins (they overlap where ``oh`` does not divide ``H``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import nn
        >>> x = np.arange(16.0).reshape(1, 1, 4, 4)  # (N, C, H, W)
        >>> nn.adaptive_avg_pool2d(x, (1, 1))  # the mean of 0..15
        array([[[[7.5]]]])
        >>> nn.adaptive_avg_pool2d(x, (2, 1)).ravel()  # row blocks 0..7 and 8..15
        array([ 3.5, 11.5])
        >>> nn.adaptive_avg_pool2d(x[..., :1, :3], (1, 2)).ravel()  # bins [0, 2), [1, 3)
        array([0.5, 1.5])
        >>> float(ft.grad(lambda x: nn.adaptive_avg_pool2d(x, 1).sum())(x)[0, 0, 0, 0])  # 1/16
        0.0625
    """
    oh, ow = positive_pair(output_size, "output_size", "adaptive_avg_pool2d(x, output_size)")
    h, w = fnp.shape(x)[-2:]
    if h % oh == 0 and w % ow == 0:
        return avg_pool2d(x, (h // oh, w // ow))
    if dtype_of(x).kind not in "fc":
        x = fnp.astype(x, numpy.float64)
    # a mean over a rectangle is a mean over its rows of means over its columns: one
    # averaging matrix per axis, out = P_h x P_w^T
    rows, cols = (
        fnp.asarray(_adaptive_bins(n, m, dtype_of(x)), like=x) for n, m in ((h, oh), (w, ow))
    )
    return fnp.einsum("ih,...hw,jw->...ij", rows, x, cols)


def _adaptive_bins(n: int, m: int, dtype: Any) -> Any:
    """The ``(m, n)`` matrix averaging torch's adaptive bins of ``n`` cells into ``m``."""
    out = numpy.zeros((m, n), dtype=dtype)
    for i in range(m):
        start, stop = (i * n) // m, -(-((i + 1) * n) // m)
        out[i, start:stop] = 1.0 / (stop - start)
    return out


# -- normalisation -------------------------------------------------------------------------


def layer_norm(
    x: Any,
    weight: Any = None,
    bias: Any = None,
    eps: float = 1e-5,
    normalized_shape: Any = None,
) -> Any:
    """Layer normalisation over the trailing ``normalized_shape`` axes (default: the
    shape of ``weight``, else the last axis), then ``* weight + bias`` (torch's
    ``layer_norm``; biased variance).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import nn
        >>> x = np.array([1.0, 2.0, 3.0])
        >>> nn.layer_norm(x)  # (x - 2) / sqrt(2/3 + eps)
        array([-1.22473569,  0.        ,  1.22473569])
        >>> ft.grad(lambda x: nn.layer_norm(x).sum())(x)  # the outputs always sum to 0
        array([0., 0., 0.])
    """
    dims = weight if isinstance(weight, tuple) else (weight,)
    if isinstance(weight, (tuple, int)) and all(
        isinstance(d, int) and not isinstance(d, bool) for d in dims
    ):
        # torch's F.layer_norm(x, normalized_shape, weight, bias) has the shape second
        raise TypeError(
            f"layer_norm(x, weight=None, bias=None, eps=1e-5, normalized_shape=None): got "
            f"weight={weight!r}, a shape; torch's second argument (normalized_shape) is the "
            f"keyword normalized_shape= here: nn.layer_norm(x, normalized_shape={weight!r})"
        )
    if normalized_shape is None:
        normalized_shape = fnp.shape(weight) if weight is not None else fnp.shape(x)[-1:]
    elif isinstance(normalized_shape, (int, numpy.integer)):
        normalized_shape = (int(normalized_shape),)
    normalized_shape = tuple(normalized_shape)
    k = len(normalized_shape)
    if tuple(fnp.shape(x)[fnp.ndim(x) - k :]) != normalized_shape or k > fnp.ndim(x):
        raise ValueError(
            f"layer_norm: x of shape {fnp.shape(x)} does not end with normalized_shape "
            f"{normalized_shape}"
        )
    axes = tuple(range(fnp.ndim(x) - k, fnp.ndim(x)))
    mu = fnp.mean(x, axis=axes, keepdims=True)
    xc = x - mu
    var = fnp.mean(xc * xc, axis=axes, keepdims=True)
    y = xc / fnp.sqrt(var + eps)
    if weight is not None:
        y = y * weight
    if bias is not None:
        y = y + bias
    return y


def batch_norm(
    x: Any,
    running_mean: Any = None,
    running_var: Any = None,
    weight: Any = None,
    bias: Any = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> tuple[Any, Any, Any]:
    """Batch normalisation of ``(N, C, ...)`` over every axis but the channels (axis 1).

    Functional: returns ``(y, new_running_mean, new_running_var)``.  In training, ``y``
    uses the batch statistics (biased variance) and the running statistics are updated
    as torch does (``(1 - momentum) * old + momentum * batch``, unbiased variance), as
    constants (no derivative flows into them); in evaluation, ``y`` uses the running
    statistics, which come back unchanged.  Missing running statistics come back as None.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import nn
        >>> x = np.array([[1.0], [3.0]])  # (N=2, C=1)
        >>> y, mean, var = nn.batch_norm(x, np.zeros(1), np.ones(1), training=True)
        >>> np.round(y, 4).tolist(), mean.tolist(), var.tolist()  # var: 0.9 * 1 + 0.1 * 2
        ([[-1.0], [1.0]], [0.2], [1.1])
        >>> g = ft.grad(lambda x: nn.batch_norm(x, mean, var)[0].sum())(x)  # evaluation mode
        >>> np.round(g, 4).tolist()  # 1 / sqrt(1.1 + eps)
        [[0.9535], [0.9535]]
    """
    if fnp.ndim(x) < 2:
        raise ValueError(f"batch_norm: x must have shape (N, C, ...), got {fnp.shape(x)}")
    c = fnp.shape(x)[1]
    axes = (0,) + tuple(range(2, fnp.ndim(x)))
    bshape = (c,) + (1,) * (fnp.ndim(x) - 2)
    if training:
        n = math.prod(fnp.shape(x)[a] for a in axes)
        if n <= 1:
            raise ValueError(
                f"batch_norm: expected more than 1 value per channel when training, got x "
                f"of shape {fnp.shape(x)}"
            )
        mean = fnp.mean(x, axis=axes)
        xc = x - fnp.reshape(mean, bshape)
        var = fnp.mean(xc * xc, axis=axes)
        y = xc / fnp.sqrt(fnp.reshape(var, bshape) + eps)
        new_mean = new_var = None
        if running_mean is not None:
            new_mean = (1 - momentum) * running_mean + momentum * fnp.stop_gradient(mean)
        if running_var is not None:
            unbiased = fnp.stop_gradient(var) * (n / (n - 1))
            new_var = (1 - momentum) * running_var + momentum * unbiased
    else:
        if running_mean is None or running_var is None:
            raise ValueError("batch_norm: evaluation (training=False) needs the running statistics")
        y = (x - fnp.reshape(running_mean, bshape)) / fnp.sqrt(
            fnp.reshape(running_var, bshape) + eps
        )
        new_mean, new_var = running_mean, running_var
    if weight is not None:
        y = y * fnp.reshape(weight, bshape)
    if bias is not None:
        y = y + fnp.reshape(bias, bshape)
    return y, new_mean, new_var


# -- dropout, embeddings, one-hot -------------------------------------------------------------


def dropout(rng: Any, x: Any, p: float = 0.5, training: bool = True) -> Any:
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``;
    the identity when ``training`` is False or ``p == 0``.

    The mask comes from :func:`ftransforms.random.bernoulli`, so under ``vmap`` it follows
    the ``randomness`` setting: ``'different'`` draws a mask per batch element, ``'same'``
    shares one, ``'error'`` (the default) raises.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import nn
        >>> rng = np.random.default_rng(2)
        >>> nn.dropout(rng, np.ones(4))  # kept elements scaled by 1 / (1 - 0.5)
        array([2., 2., 0., 2.])
        >>> ft.vmap(lambda x: nn.dropout(rng, x), randomness="same")(np.ones((2, 4)))
        array([[0., 0., 2., 2.],
               [0., 0., 2., 2.]])
    """
    if not 0 <= p <= 1:
        raise ValueError(f"dropout: p must be a probability in [0, 1], got {p!r}")
    if not training or p == 0:
        return x
    keep = bernoulli(rng, 1 - p, fnp.shape(x))
    if p == 1:
        return fnp.where(keep, x, 0)
    return fnp.where(keep, x * (1 / (1 - p)), 0)


def embedding(weight: Any, idx: Any) -> Any:
    """Rows of ``weight`` ``(num_embeddings, dim)`` at the integer indices ``idx``:
    ``idx.shape + (dim,)``; differentiable with respect to ``weight``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import nn
        >>> weight = np.arange(6.0).reshape(3, 2)
        >>> nn.embedding(weight, np.array([2, 0]))
        array([[4., 5.],
               [0., 1.]])
        >>> ft.grad(lambda w: nn.embedding(w, np.array([2, 0, 2])).sum())(weight)  # row counts
        array([[1., 1.],
               [0., 0.],
               [2., 2.]])
    """
    if dtype_of(idx).kind not in "iu":
        raise TypeError(f"embedding: idx must be integers, got dtype {dtype_of(idx)}")
    return fnp.take(weight, idx, axis=0)


def one_hot(labels: Any, num_classes: int = -1, dtype: Any = None, *, axis: int = -1) -> Any:
    """1 at each label, 0 elsewhere (a constant), with the new axis of size ``num_classes``
    at ``axis`` (default: last, ``labels.shape + (num_classes,)``).  ``num_classes=-1``
    takes ``labels.max() + 1`` (concrete labels only); a label outside ``[0,
    num_classes)`` gives zeros.  As ``jax.nn.one_hot`` (with x64): the default ``dtype``
    is float64 and float labels are compared with the classes (``1.0`` is class 1).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import nn
        >>> nn.one_hot(np.array([0, 2]), 3)
        array([[1., 0., 0.],
               [0., 0., 1.]])
        >>> ft.vmap(lambda label: nn.one_hot(label, 3, dtype=np.float32))(np.array([1, 0]))
        array([[0., 1., 0.],
               [1., 0., 0.]], dtype=float32)
        >>> nn.one_hot(np.array([0, 2]), 3, axis=0).shape
        (3, 2)
    """
    dtype = numpy.float64 if dtype is None else dtype
    if dtype_of(labels).kind not in "iuf":
        raise TypeError(
            f"one_hot: labels must be integers (or floats holding them), got dtype "
            f"{dtype_of(labels)}"
        )
    if num_classes == -1:
        num_classes = int(fnp.max(labels)) + 1
    out_ndim = fnp.ndim(labels) + 1
    if not -out_ndim <= axis < out_ndim:
        raise ValueError(
            f"one_hot(labels, {num_classes}, axis={axis}): axis is out of range for labels "
            f"of rank {out_ndim - 1} (the result has rank {out_ndim}); use an axis in "
            f"[{-out_ndim}, {out_ndim})"
        )
    axis %= out_ndim
    classes = fnp.arange(num_classes, like=labels)
    classes = fnp.reshape(classes, (num_classes,) + (1,) * (out_ndim - 1 - axis))
    return fnp.astype(fnp.expand_dims(labels, axis) == classes, dtype)


def flatten(x: Any, start_dim: int = 1, end_dim: int = -1) -> Any:
    """Merge the axes ``start_dim..end_dim`` into one (``torch.flatten``; the default keeps
    the batch axis 0).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import nn
        >>> nn.flatten(np.zeros((2, 3, 4))).shape
        (2, 12)
        >>> ft.vmap(lambda x: nn.flatten(x, start_dim=0))(np.zeros((2, 3, 4))).shape
        (2, 12)
    """
    s = fnp.shape(x)
    r = len(s)
    a, b = start_dim % r if r else 0, end_dim % r if r else 0
    return fnp.reshape(x, s[:a] + (math.prod(s[a : b + 1]),) + s[b + 1 :])
