# ruff: noqa  (a published program in its authors' style)
"""Scaled dot-product attention as written in "transformer from scratch in NumPy" posts:
a causal mask from ``np.triu(np.ones((T, T)), k=1)``, masking by ``np.where(mask, -1e9,
scores)`` and by ``scores[mask] = -np.inf``, a padding mask from sequence lengths, the
softmax with the max subtracted, multi-head attention by reshape/transpose of the
projections, layer normalisation, a position-wise feed-forward block with GELU, and
sinusoidal positional encodings filled with slice assignments."""

import numpy as np


def softmax(x, axis=-1):
    x = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(x)
    return e / np.sum(e, axis=axis, keepdims=True)


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


def attention(q, k, v, mask=None):
    d_k = q.shape[-1]
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, -1e9, scores)
    w = softmax(scores, axis=-1)
    return w @ v, w


def attention_inf_mask(q, k, v):
    T = q.shape[0]
    scores = q @ k.T / np.sqrt(q.shape[1])
    scores[np.triu_indices(T, 1)] = -np.inf
    w = np.exp(scores - scores.max(axis=1, keepdims=True))
    w /= w.sum(axis=1, keepdims=True)
    return w @ v


def padding_mask(lengths, T):
    # True where the key position is padding
    return np.arange(T)[None, :] >= np.asarray(lengths)[:, None]


def positional_encoding(T, d):
    pe = np.zeros((T, d))
    pos = np.arange(T)[:, np.newaxis]
    div = np.exp(np.arange(0, d, 2) * -(np.log(10000.0) / d))
    pe[:, 0::2] = np.sin(pos * div)
    pe[:, 1::2] = np.cos(pos * div)
    return pe


def layer_norm(x, g, b, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return g * (x - mu) / np.sqrt(var + eps) + b


def gelu(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))


def multi_head_attention(x, Wq, Wk, Wv, Wo, n_heads, mask=None):
    B, T, d = x.shape
    dh = d // n_heads

    def split(t):
        return t.reshape(B, T, n_heads, dh).transpose(0, 2, 1, 3)

    q, k, v = split(x @ Wq), split(x @ Wk), split(x @ Wv)
    out, w = attention(q, k, v, mask)
    out = out.transpose(0, 2, 1, 3).reshape(B, T, d)
    return out @ Wo


def init_block(d, n_ff, seed=0):
    rng = np.random.default_rng(seed)
    s = 1 / np.sqrt(d)
    return {
        "Wq": rng.normal(0, s, (d, d)),
        "Wk": rng.normal(0, s, (d, d)),
        "Wv": rng.normal(0, s, (d, d)),
        "Wo": rng.normal(0, s, (d, d)),
        "W1": rng.normal(0, s, (d, n_ff)),
        "W2": rng.normal(0, 1 / np.sqrt(n_ff), (n_ff, d)),
        "g1": np.ones(d),
        "b1": np.zeros(d),
        "g2": np.ones(d),
        "b2": np.zeros(d),
    }


def transformer_block(p, x, lengths, n_heads=2):
    B, T, d = x.shape
    mask = causal_mask(T)[None, None] | padding_mask(lengths, T)[:, None, None, :]
    h = layer_norm(x, p["g1"], p["b1"])
    x = x + multi_head_attention(h, p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, mask)
    h = layer_norm(x, p["g2"], p["b2"])
    return x + gelu(h @ p["W1"]) @ p["W2"]


def lm_loss(p, tokens, emb, lengths):
    B, T = tokens.shape
    x = emb[tokens] + positional_encoding(T, emb.shape[1])
    h = transformer_block(p, x, lengths)
    logits = h @ emb.T
    logp = (
        logits
        - np.log(np.exp(logits - logits.max(-1, keepdims=True)).sum(-1, keepdims=True))
        - logits.max(-1, keepdims=True)
    )
    targets = tokens[:, 1:]
    lp = np.take_along_axis(logp[:, :-1], targets[..., None], axis=-1)[..., 0]
    valid = np.arange(T - 1)[None, :] < (np.asarray(lengths)[:, None] - 1)
    return -(lp * valid).sum() / valid.sum()
