"""Neural-network primitives: 2-D convolution (three bilinear primitives closed under
transposition), sliding windows, pooling, ``relu`` and ``softplus``.  Front ends live in
:mod:`ftransforms.nn`.

NOTE [convolution as three bilinear primitives]: with ``y = conv2d(x, w)``,

* ``conv2d(x, w)``                 ``(N, C, H, W), (O, C/G, kh, kw) -> (N, O, Ho, Wo)``
* ``conv_transpose2d(g, w)``       ``(N, O, Ho, Wo), (O, C/G, kh, kw) -> (N, C, H, W)``:
  ``x_bar`` for the cotangent ``g`` of ``y`` (torch's ``conv_transpose2d``, or
  ``torch.nn.grad.conv2d_input``);
* ``conv2d_weight(x, g)``          ``(N, C, H, W), (N, O, Ho, Wo) -> (O, C/G, kh, kw)``:
  ``w_bar`` (``torch.nn.grad.conv2d_weight``).

Each is bilinear, so its JVP is the sum of the op applied to each tangent, and the
transpose of each with respect to either argument is one of the three, by
``<conv2d(x, w), g> = <x, conv_transpose2d(g, w)> = <w, conv2d_weight(x, g)>``.  Every
derivative of any order is therefore again one of the three primitives (no generic
fallback), and each has a batching rule that folds the ``vmap`` axis into the batch axis
``N``, the output channels, or the groups (``batching_rules/nn.py``).

The implementation is im2col: the input's sliding windows are a strided *view*
(``sliding_window_view``), copied once into a ``(G, N*Ho*Wo, C/G*kh*kw)`` matrix and
multiplied with the kernel by one (stacked-over-groups) GEMM.  The transpose scatters the
columns back with ``kh*kw`` strided slice-adds (col2im).

Settings, normalised by the front ends: ``stride=(sh, sw)``, ``padding=((top, bottom),
(left, right))`` (zeros), ``dilation=(dh, dw)``, ``groups`` (an int);
``conv_transpose2d`` also takes ``in_size=(H, W)`` and ``conv2d_weight``
``kernel_size=(kh, kw)`` (the shapes they cannot infer).
"""

from __future__ import annotations

import numpy

from ftransforms import lax
from ftransforms.core.primitive import defop
from ftransforms.ops.elementwise import defunary
from ftransforms.ops.special import expit_p

# -- array-level helpers (impls only) ------------------------------------------------------


def _pad_hw(xp, x, padding, value=0):
    (pt, pb), (pl, pr) = padding
    if not (pt or pb or pl or pr):
        return x
    widths = [(0, 0)] * (x.ndim - 2) + [(pt, pb), (pl, pr)]
    return xp.pad(x, widths, mode="constant", constant_values=value)


def _windows(xp, x, kernel_size, stride, padding, dilation, pad_value=0):
    """``(..., H, W) -> (..., Ho, Wo, kh, kw)``: a read-only strided view (no copy)."""
    x = _pad_hw(xp, x, padding, pad_value)
    (kh, kw), (sh, sw), (dh, dw) = kernel_size, stride, dilation
    eh, ew = dh * (kh - 1) + 1, dw * (kw - 1) + 1
    win = xp.lib.stride_tricks.sliding_window_view(x, (eh, ew), axis=(-2, -1))
    if (sh, sw, dh, dw) != (1, 1, 1, 1):
        win = win[..., ::sh, ::sw, ::dh, ::dw]
    return win


def _scatter_taps(xp, tap, lead, out_hw, in_size, kernel_size, stride, padding, dilation, dtype):
    """``sum over taps (i, j)`` of ``tap(i, j)`` (``(..., Ho, Wo)``) added into the input
    positions that tap reads: col2im, the transpose of :func:`_windows` (zero padding)."""
    (h, w), (pt, pb), (pl, pr) = in_size, *padding
    out = xp.zeros(lead + (h + pt + pb, w + pl + pr), dtype=dtype)
    for i, j, rows, cols in _taps(kernel_size, stride, dilation, out_hw):
        out[..., rows, cols] += tap(i, j)
    return out[..., pt : pt + h, pl : pl + w] if pt or pb or pl or pr else out


def _col2im(xp, cols, in_size, stride, padding, dilation):
    """``(..., Ho, Wo, kh, kw) -> (..., H, W)``, overlapping windows adding up."""
    *lead, ho, wo, kh, kw = cols.shape
    return _scatter_taps(
        xp,
        lambda i, j: cols[..., i, j],
        tuple(lead),
        (ho, wo),
        in_size,
        (kh, kw),
        stride,
        padding,
        dilation,
        cols.dtype,
    )


def _im2col_t(xp, x, groups, kernel_size, stride, padding, dilation):
    """``(N, C, H, W) -> (G, C/G*kh*kw, N*Ho*Wo)`` (one copy) and ``(Ho, Wo)``.

    The taps are the rows and the output positions the columns, so the copy reads whole
    strided rows of the image (about twice as fast as the transposed layout)."""
    n, c = x.shape[:2]
    kh, kw = kernel_size
    win = _windows(xp, x, kernel_size, stride, padding, dilation)
    ho, wo = win.shape[2:4]
    cg = c // groups
    win = win.reshape(n, groups, cg, ho, wo, kh, kw).transpose(1, 2, 5, 6, 0, 3, 4)
    return win.reshape(groups, cg * kh * kw, n * ho * wo), (ho, wo)


def _channels_first(y_bar, groups):
    """``(N, O, Ho, Wo) -> (G, O/G, N*Ho*Wo)``."""
    n, o, ho, wo = y_bar.shape
    y_bar = y_bar.reshape(n, groups, o // groups, ho * wo).transpose(1, 2, 0, 3)
    return y_bar.reshape(groups, o // groups, n * ho * wo)


def _conv2d_impl(xp, x, w, *, stride, padding, dilation, groups):
    n = x.shape[0]
    o, cg, kh, kw = w.shape
    cols, (ho, wo) = _im2col_t(xp, x, groups, (kh, kw), stride, padding, dilation)
    out = xp.matmul(w.reshape(groups, o // groups, cg * kh * kw), cols)  # (G, O/G, N*Ho*Wo)
    out = out.reshape(o, n, ho, wo).transpose(1, 0, 2, 3)
    return xp.ascontiguousarray(out)


def _conv_transpose2d_impl(xp, g, w, *, in_size, stride, padding, dilation, groups):
    n, o, ho, wo = g.shape
    _, cg, kh, kw = w.shape
    wm = w.reshape(groups, o // groups, cg * kh * kw)
    wt = xp.ascontiguousarray(wm.transpose(0, 2, 1))
    cols = xp.matmul(wt, _channels_first(g, groups))  # (G, Cg*kh*kw, N*Ho*Wo)
    cols = cols.reshape(groups, cg, kh, kw, n, ho, wo)
    out = _scatter_taps(
        xp,
        lambda i, j: cols[:, :, i, j].transpose(2, 0, 1, 3, 4),  # (N, G, Cg, Ho, Wo)
        (n, groups, cg),
        (ho, wo),
        in_size,
        (kh, kw),
        stride,
        padding,
        dilation,
        cols.dtype,
    )
    return xp.ascontiguousarray(out).reshape(n, groups * cg, *in_size)


def _conv2d_weight_impl(xp, x, g, *, kernel_size, stride, padding, dilation, groups):
    n, o, ho, wo = g.shape
    c = x.shape[1]
    cols, _ = _im2col_t(xp, x, groups, kernel_size, stride, padding, dilation)
    # (G, N*Ho*Wo, O/G), contiguous: stacked matmul only reaches BLAS for plain layouts
    gt = g.reshape(n, groups, o // groups, ho * wo).transpose(1, 0, 3, 2)
    gt = gt.reshape(groups, n * ho * wo, o // groups)
    out = xp.matmul(cols, gt)  # (G, Cg*kh*kw, O/G)
    return xp.ascontiguousarray(out.transpose(0, 2, 1)).reshape(o, c // groups, *kernel_size)


# -- rules -----------------------------------------------------------------------------------


def _cast(v, like):
    return lax.convert(v, like.dtype) if v.dtype != like.dtype else v


def _conv2d(x, w, **p):
    return conv2d_p.bind(x, w, **p)


def _conv_t(y_bar, w, in_size, **p):
    return conv_transpose2d_p.bind(y_bar, w, in_size=tuple(in_size), **p)


def _conv_w(x, g, kernel_size, **p):
    return conv2d_weight_p.bind(x, g, kernel_size=tuple(kernel_size), **p)


conv2d_p = defop(
    "conv2d",
    _conv2d_impl,
    jvp=(
        lambda x_dot, y, x, w, **p: _conv2d(x_dot, w, **p),
        lambda w_dot, y, x, w, **p: _conv2d(x, w_dot, **p),
    ),
    vjp=(
        lambda y_bar, y, x, w, **p: _cast(_conv_t(y_bar, w, x.shape[2:], **p), x),
        lambda y_bar, y, x, w, **p: _cast(_conv_w(x, y_bar, w.shape[2:], **p), w),
    ),
    doc="2-D cross-correlation, NCHW input, OIHW kernel (see NOTE [convolution as three "
    "bilinear primitives]).",
)

conv_transpose2d_p = defop(
    "conv_transpose2d",
    _conv_transpose2d_impl,
    jvp=(
        lambda g_dot, y, g, w, in_size, **p: _conv_t(g_dot, w, in_size, **p),
        lambda w_dot, y, g, w, in_size, **p: _conv_t(g, w_dot, in_size, **p),
    ),
    vjp=(
        lambda v, y, g, w, in_size, **p: _cast(_conv2d(v, w, **p), g),
        lambda v, y, g, w, in_size, **p: _cast(_conv_w(v, g, w.shape[2:], **p), w),
    ),
    doc="The transpose of conv2d in its input: (N, O, Ho, Wo), (O, C/G, kh, kw) -> "
    "(N, C, *in_size).",
)

conv2d_weight_p = defop(
    "conv2d_weight",
    _conv2d_weight_impl,
    jvp=(
        lambda x_dot, y, x, g, kernel_size, **p: _conv_w(x_dot, g, kernel_size, **p),
        lambda g_dot, y, x, g, kernel_size, **p: _conv_w(x, g_dot, kernel_size, **p),
    ),
    vjp=(
        lambda u, y, x, g, kernel_size, **p: _cast(_conv_t(g, u, x.shape[2:], **p), x),
        lambda u, y, x, g, kernel_size, **p: _cast(_conv2d(x, u, **p), g),
    ),
    doc="The transpose of conv2d in its kernel: (N, C, H, W), (N, O, Ho, Wo) -> "
    "(O, C/G, *kernel_size).",
)


# NOTE [sliding windows]: ``sliding_windows(x)`` is ``(..., H, W) -> (..., Ho, Wo, kh, kw)``
# over the last two axes, padded with ``pad_value``.  It is affine in ``x`` (linear when
# ``pad_value == 0``): its derivative is the same windows of the tangent padded with zeros,
# and its transpose is col2im (``sliding_windows_transpose``, linear, whose transpose is the
# windows again).  It is the general building block (``ftransforms.nn.sliding_windows``);
# pooling has its own primitives below because NumPy reduces over small trailing axes of
# a strided view an order of magnitude slower than it takes ``kh*kw`` strided slices.

sliding_windows_p = defop(
    "sliding_windows",
    lambda xp, x, *, kernel_size, stride, padding, dilation, pad_value: _windows(
        xp, x, kernel_size, stride, padding, dilation, pad_value
    ),
    jvp=(lambda x_dot, y, x, pad_value, **p: sliding_windows_p.bind(x_dot, pad_value=0, **p),),
    vjp=(
        lambda g, y, x, pad_value, **p: sliding_windows_transpose_p.bind(
            g, in_size=tuple(x.shape[-2:]), **p
        ),
    ),
    doc="The sliding windows of the last two axes: (..., H, W) -> (..., Ho, Wo, kh, kw).",
)

sliding_windows_transpose_p = defop(
    "sliding_windows_transpose",
    lambda xp, g, *, in_size, kernel_size, stride, padding, dilation: _col2im(
        xp, g, in_size, stride, padding, dilation
    ),
    transpose=lambda y_bar, g, in_size, **p: sliding_windows_p.bind(y_bar, pad_value=0, **p),
    doc="col2im, the transpose of sliding_windows: (..., Ho, Wo, kh, kw) -> (..., *in_size).",
)


# -- pooling ---------------------------------------------------------------------------------
#
# Window geometry (the params of every pooling primitive): ``kernel_size=(kh, kw)``,
# ``stride``, ``padding=((top, bottom), (left, right))``, ``dilation``; the ops act on the
# last two axes, any leading axes are batch axes.


def _taps(kernel_size, stride, dilation, out_hw):
    """``(i, j, rows, cols)`` for each kernel tap: the strided slices of the padded input
    that tap ``(i, j)`` reads for every output position."""
    (kh, kw), (sh, sw), (dh, dw), (ho, wo) = kernel_size, stride, dilation, out_hw
    for i in range(kh):
        rows = slice(i * dh, i * dh + sh * (ho - 1) + 1, sh)
        for j in range(kw):
            yield i, j, rows, slice(j * dw, j * dw + sw * (wo - 1) + 1, sw)


def _out_hw(in_hw, kernel_size, stride, padding, dilation):
    return tuple(
        (n + lo + hi - d * (k - 1) - 1) // s + 1
        for n, k, s, (lo, hi), d in zip(in_hw, kernel_size, stride, padding, dilation)
    )


def _lowest(dtype):
    dtype = numpy.dtype(dtype)
    if dtype.kind == "f":
        return -numpy.inf
    if dtype.kind in "iu":
        return numpy.iinfo(dtype).min
    return False


def _window_sum_impl(xp, x, *, kernel_size, stride, padding, dilation):
    out_hw = _out_hw(x.shape[-2:], kernel_size, stride, padding, dilation)
    xpad = _pad_hw(xp, x, padding)
    out = None
    for _, _, rows, cols in _taps(kernel_size, stride, dilation, out_hw):
        tap = xpad[..., rows, cols]
        out = tap.copy() if out is None else xp.add(out, tap, out=out)
    return out


def _window_sum_transpose_impl(xp, g, *, in_size, kernel_size, stride, padding, dilation):
    return _scatter_taps(
        xp,
        lambda i, j: g,
        g.shape[:-2],
        g.shape[-2:],
        in_size,
        kernel_size,
        stride,
        padding,
        dilation,
        g.dtype,
    )


window_sum_p = defop(
    "window_sum",
    _window_sum_impl,
    transpose=lambda y_bar, x, **p: window_sum_transpose_p.bind(
        y_bar, in_size=tuple(x.shape[-2:]), **p
    ),
    doc="The sum of each (zero-padded) window of the last two axes: (..., H, W) -> "
    "(..., Ho, Wo); average pooling divides it by the window sizes.",
)

window_sum_transpose_p = defop(
    "window_sum_transpose",
    _window_sum_transpose_impl,
    transpose=lambda y_bar, g, in_size, **p: window_sum_p.bind(y_bar, **p),
    doc="The transpose of window_sum: each output adds its value to its window, "
    "(..., Ho, Wo) -> (..., *in_size).",
)


def _max_pool_impl(xp, x, *, kernel_size, stride, padding, dilation):
    out_hw = _out_hw(x.shape[-2:], kernel_size, stride, padding, dilation)
    xpad = _pad_hw(xp, x, padding, _lowest(x.dtype))
    out = None
    for _, _, rows, cols in _taps(kernel_size, stride, dilation, out_hw):
        tap = xpad[..., rows, cols]
        out = tap.copy() if out is None else xp.maximum(out, tap, out=out)
    return out


def _max_hits(xp, x, y, kernel_size, stride, padding, dilation, dtype):
    """Per tap, where it attains its window's maximum; and per window, how many taps do.

    NOTE [ties in max pooling]: the derivative of a window's maximum is shared equally by
    every element that attains it (weights ``hit / count``), as for ``max`` everywhere in
    this library (NOTE [ties in max/min] in ops/reductions.py).  ``x`` and ``y`` broadcast
    over their leading axes (a ``vmap`` over the tangent alone leaves them unbatched).
    """
    xpad = _pad_hw(xp, x, padding, _lowest(x.dtype))
    hits = [
        xpad[..., rows, cols] == y
        for _, _, rows, cols in _taps(kernel_size, stride, dilation, y.shape[-2:])
    ]
    count = hits[0].astype(dtype)
    for h in hits[1:]:
        count += h
    return hits, count


def _max_pool_jvp_impl(xp, t, x, y, *, kernel_size, stride, padding, dilation):
    dtype = numpy.result_type(t.dtype, y.dtype)
    hits, count = _max_hits(xp, x, y, kernel_size, stride, padding, dilation, dtype)
    tpad = _pad_hw(xp, t, padding)
    out = None
    for (_, _, rows, cols), hit in zip(_taps(kernel_size, stride, dilation, y.shape[-2:]), hits):
        term = xp.multiply(hit, tpad[..., rows, cols], dtype=dtype)  # (faster than where)
        out = term if out is None else xp.add(out, term, out=out)
    return xp.divide(out, count, out=out)


def _max_pool_vjp_impl(xp, g, x, y, *, kernel_size, stride, padding, dilation):
    dtype = numpy.result_type(g.dtype, x.dtype)
    hits, count = _max_hits(xp, x, y, kernel_size, stride, padding, dilation, dtype)
    share = g / count
    kw = kernel_size[1]
    lead = numpy.broadcast_shapes(g.shape[:-2], x.shape[:-2], y.shape[:-2])
    return _scatter_taps(
        xp,
        lambda i, j: hits[i * kw + j] * share,
        lead,
        y.shape[-2:],
        x.shape[-2:],
        kernel_size,
        stride,
        padding,
        dilation,
        dtype,
    )


max_pool2d_p = defop(
    "max_pool2d",
    _max_pool_impl,
    jvp=(lambda x_dot, y, x, **p: max_pool2d_jvp_p.bind(x_dot, x, y, **p),),
    vjp=(lambda y_bar, y, x, **p: _cast(max_pool2d_vjp_p.bind(y_bar, x, y, **p), x),),
    doc="The maximum of each (-inf-padded) window of the last two axes: (..., H, W) -> "
    "(..., Ho, Wo).  See NOTE [ties in max pooling].",
)

max_pool2d_jvp_p = defop(
    "max_pool2d_jvp",
    _max_pool_jvp_impl,
    jvp=(lambda t_dot, out, t, x, y, **p: max_pool2d_jvp_p.bind(t_dot, x, y, **p), None, None),
    vjp=(
        lambda y_bar, out, t, x, y, **p: _cast(max_pool2d_vjp_p.bind(y_bar, x, y, **p), t),
        None,
        None,
    ),
    doc="The tangent of max_pool2d (y = max_pool2d(x)) for the input tangent t: linear in "
    "t, with no derivative in x and y (they only pick the maxima).",
)

max_pool2d_vjp_p = defop(
    "max_pool2d_vjp",
    _max_pool_vjp_impl,
    jvp=(lambda g_dot, out, g, x, y, **p: max_pool2d_vjp_p.bind(g_dot, x, y, **p), None, None),
    vjp=(lambda v, out, g, x, y, **p: _cast(max_pool2d_jvp_p.bind(v, x, y, **p), g), None, None),
    doc="The cotangent of max_pool2d's input for the output cotangent g: the transpose of "
    "max_pool2d_jvp.",
)


# -- activations -------------------------------------------------------------------------------


def _relu_slope(y, x):
    return lax.convert(x > 0, lax.dtype_of(x))  # 0 at 0, like jax.nn.relu


relu_p = defunary(
    "relu",
    lambda xp, x: xp.maximum(x, 0),
    _relu_slope,
    doc="max(x, 0) with derivative 0 at 0 (jax.nn.relu's convention); NaN propagates.  "
    "A primitive because NumPy's maximum is many times faster than where(x > 0, x, 0).",
)


softplus_p = defunary(
    "softplus",
    lambda xp, x: xp.logaddexp(x, 0),
    lambda y, x: expit_p.bind(x),
    doc="log(1 + exp(x)), computed without overflow; its derivative is expit(x) (smooth "
    "everywhere, unlike logaddexp(x, 0), whose derivative rule splits ties).",
)

__all__ = [
    "conv2d_p",
    "conv2d_weight_p",
    "conv_transpose2d_p",
    "max_pool2d_jvp_p",
    "max_pool2d_p",
    "max_pool2d_vjp_p",
    "relu_p",
    "sliding_windows_p",
    "sliding_windows_transpose_p",
    "softplus_p",
    "window_sum_p",
    "window_sum_transpose_p",
]
