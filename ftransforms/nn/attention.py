"""Scaled dot-product attention with ``jax.nn.dot_product_attention``'s signature and
layout: ``(batch, seq, heads, head_dim)``, grouped key/value heads, a bias, a boolean mask,
causal and sliding-window masks and per-batch sequence lengths.
"""

from __future__ import annotations

import math
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.nn.activations import softmax


def _window_mask(t: int, s: int, is_causal: bool, window: Any) -> numpy.ndarray | None:
    """The ``(t, s)`` positions a query may see: causal and/or within ``window``."""
    if not is_causal and window is None:
        return None
    q = numpy.arange(t)[:, None]
    k = numpy.arange(s)[None, :]
    keep = numpy.ones((t, s), bool)
    if is_causal:
        keep &= k <= q
    if window is not None:
        left, right = (window, window) if isinstance(window, int) else window
        keep &= (k >= q - left) & (k <= q + right)
    return keep


def dot_product_attention(
    query: Any,
    key: Any,
    value: Any,
    bias: Any = None,
    mask: Any = None,
    *,
    scale: float | None = None,
    is_causal: bool = False,
    query_seq_lengths: Any = None,
    key_value_seq_lengths: Any = None,
    local_window_size: int | tuple[int, int] | None = None,
    implementation: str | None = None,
) -> Any:
    """``softmax(q kᵀ * scale + bias, masked) v`` per head (``jax.nn.dot_product_attention``).

    ``query`` is ``(B, T, N, H)`` (or ``(T, N, H)``), ``key``/``value`` ``(B, S, K, H)``
    with ``N`` a multiple of ``K`` (grouped-query attention); ``bias`` and ``mask`` broadcast
    to ``(B, N, T, S)`` (``mask`` is ``True`` where attending is allowed); ``scale`` defaults
    to ``1 / sqrt(H)``; ``is_causal`` and ``local_window_size`` (``w`` or ``(left, right)``)
    restrict the keys each query sees, and ``query_seq_lengths``/``key_value_seq_lengths``
    (``(B,)``) the valid positions (padded queries give zeros).  The softmax runs in at
    least float32 (JAX's rounds float64 logits to float32: the results agree to about
    1e-7), and a query that sees no key attends to all of them uniformly, as in JAX.
    Differentiable in ``query``, ``key``, ``value`` and ``bias``; ``implementation`` is
    accepted (``None`` or ``"xla"``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> q = k = v = np.random.default_rng(0).normal(size=(2, 5, 4, 8))
        >>> out = ft.nn.dot_product_attention(q, k, v, is_causal=True)
        >>> out.shape, bool(np.allclose(out[:, 0], v[:, 0]))  # the first query sees only key 0
        ((2, 5, 4, 8), True)
    """
    if implementation not in (None, "xla"):
        raise UnsupportedOperationError(
            f"nn.dot_product_attention(..., implementation={implementation!r}): only None or "
            f"'xla' (plain array code) is available; drop the argument"
        )
    query, key, value = fnp.asarray(query), fnp.asarray(key), fnp.asarray(value)
    unbatched = query.ndim == 3
    if unbatched:
        query, key, value = (fnp.expand_dims(a, 0) for a in (query, key, value))
    if query.ndim != 4 or key.ndim != 4 or value.ndim != 4:
        raise UnsupportedOperationError(
            f"nn.dot_product_attention: query, key and value must be (B, T, N, H) or "
            f"(T, N, H), got shapes {tuple(query.shape)}, {tuple(key.shape)}, "
            f"{tuple(value.shape)}"
        )
    b, t, n, h = query.shape
    s, kh = key.shape[1], key.shape[2]
    if tuple(key.shape) != tuple(value.shape[:3]) + (h,) or value.shape[:3] != key.shape[:3]:
        raise UnsupportedOperationError(
            f"nn.dot_product_attention: key {tuple(key.shape)} and value {tuple(value.shape)} "
            f"must agree on (B, S, K) and key's head size must be the query's {h}"
        )
    if n % kh:
        raise UnsupportedOperationError(
            f"nn.dot_product_attention: the query's {n} heads must be a multiple of the key's "
            f"{kh} (grouped-query attention)"
        )
    if n != kh:  # each key/value head serves n // kh query heads
        key = fnp.repeat(key, n // kh, axis=2)
        value = fnp.repeat(value, n // kh, axis=2)
    scale = 1.0 / math.sqrt(h) if scale is None else scale
    dtype = numpy.promote_types(query.dtype, numpy.float32)
    logits = fnp.einsum("btnh,bsnh->bnts", query, key).astype(dtype) * dtype.type(scale)
    if bias is not None:
        bias = fnp.asarray(bias)
        logits = logits + (fnp.expand_dims(bias, 0) if unbatched and bias.ndim == 4 else bias)
    keep = None
    if mask is not None:
        keep = fnp.asarray(mask).astype(bool)
        if unbatched and keep.ndim == 4:
            keep = fnp.expand_dims(keep, 0)
    window = _window_mask(t, s, is_causal, local_window_size)
    if window is not None:
        keep = window if keep is None else keep & window
    ql = None if query_seq_lengths is None else fnp.asarray(query_seq_lengths)
    if ql is not None or key_value_seq_lengths is not None:
        rows = (
            numpy.ones((b, t), bool)
            if ql is None
            else numpy.arange(t)[None, :] < fnp.reshape(ql, (b, 1))
        )
        kl = key_value_seq_lengths
        cols = (
            numpy.ones((b, s), bool)
            if kl is None
            else numpy.arange(s)[None, :] < fnp.reshape(fnp.asarray(kl), (b, 1))
        )
        lengths = fnp.reshape(rows, (b, 1, t, 1)) & fnp.reshape(cols, (b, 1, 1, s))
        keep = lengths if keep is None else keep & lengths
    if keep is not None:
        # JAX's large negative: a masked logit, finite in float32 (a row with no visible
        # key therefore attends uniformly, as JAX's does)
        top = min(float(numpy.finfo(logits.dtype).max), float(numpy.finfo(numpy.float32).max))
        logits = fnp.where(keep, logits, logits.dtype.type(-0.7 * top))
    # in the logits' precision: at least float32, as JAX's, but float64 stays float64
    # (JAX rounds float64 logits to float32 for the softmax)
    weights = softmax(logits, axis=-1).astype(key.dtype)
    out = fnp.einsum("bnts,bsnh->btnh", weights, value)
    if ql is not None:  # the padded queries give zeros
        out = out * fnp.reshape(numpy.arange(t)[None, :] < fnp.reshape(ql, (b, 1)), (b, t, 1, 1))
    return out[0] if unbatched else out
