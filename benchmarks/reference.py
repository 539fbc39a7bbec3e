"""Hand-written, vectorized NumPy for every workload: derivatives derived by hand, no
autodiff.

The same code is the float64 reference every row is checked against (computed once per
run, in the main process) and, in float32, the ``numpy`` peer that the table's ratios are
relative to.  Every function takes the array namespace ``xp`` (numpy, or cupy for
``--device cuda``) and returns a list of output leaves in the canonical order documented in
``cases.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarks.cases import W5_BLOCK, W5_REPEATS, Case, param_names


def _t(a: Any) -> Any:
    """Swap the last two axes (a batched transpose)."""
    return a.swapaxes(-1, -2)


# -- W1: per-sample gradients of softmax cross-entropy, MLP 64-256-256-10 tanh --------------


def w1_per_sample_grads(inp: dict, xp: Any = np) -> list:
    """Per-example backprop for the whole batch at once; weight gradients are outer
    products ``delta[:, :, None] * activation[:, None, :]``.  Leaves ``[w1, b1, w2, b2, w3,
    b3]``, each with a leading batch axis."""
    x, y = inp["x"], inp["y"]
    w1, b1, w2, b2, w3, b3 = (inp[k] for k in param_names(3))
    h1 = xp.tanh(x @ w1.T + b1)
    h2 = xp.tanh(h1 @ w2.T + b2)
    logits = h2 @ w3.T + b3
    z = xp.exp(logits - logits.max(axis=-1, keepdims=True))
    p = z / z.sum(axis=-1, keepdims=True)
    onehot = (xp.arange(logits.shape[-1]) == y[:, None]).astype(p.dtype)
    d3 = p - onehot  # d loss / d logits
    d2 = (d3 @ w3) * (1 - h2 * h2)  # d loss / d pre-activation 2
    d1 = (d2 @ w2) * (1 - h1 * h1)  # d loss / d pre-activation 1
    return [
        d1[:, :, None] * x[:, None, :],
        d1,
        d2[:, :, None] * h1[:, None, :],
        d2,
        d3[:, :, None] * h2[:, None, :],
        d3,
    ]


def w1_loss(inp: dict, xp: Any = np) -> Any:
    """Per-example losses (B,), for tests."""
    x, y = inp["x"], inp["y"]
    w1, b1, w2, b2, w3, b3 = (inp[k] for k in param_names(3))
    logits = xp.tanh(xp.tanh(x @ w1.T + b1) @ w2.T + b2) @ w3.T + b3
    m = logits.max(axis=-1, keepdims=True)
    lse = xp.log(xp.exp(logits - m).sum(axis=-1)) + m[:, 0]
    return lse - xp.take_along_axis(logits, y[:, None], axis=-1)[:, 0]


# -- W2: Jacobian of tanh(W x + b) ------------------------------------------------------------


def w2_jacobian(inp: dict, xp: Any = np) -> list:
    """``diag(1 - y**2) @ W`` (as a row scaling)."""
    w, b, x = inp["w"], inp["b"], inp["x"]
    y = xp.tanh(w @ x + b)
    return [(1 - y * y)[:, None] * w]


# -- W3: Hessian of sum(tanh(A x)**2) + sum(x**2)**2 -----------------------------------------


def w3_hessian(inp: dict, xp: Any = np) -> list:
    """With ``t = tanh(A x)`` and ``s = x . x``:
    ``H = A^T diag((1 - t**2)(2 - 6 t**2)) A + 4 s I + 8 x x^T``."""
    a, x = inp["a"], inp["x"]
    t = xp.tanh(a @ x)
    c = (1 - t * t) * (2 - 6 * t * t)
    h = (a.T * c) @ a + 8 * xp.outer(x, x)
    s = x @ x
    idx = xp.arange(x.shape[0])
    h[idx, idx] += 4 * s
    return [h]


def w3_objective(x: Any, a: Any, xp: Any = np) -> Any:
    return xp.sum(xp.tanh(a @ x) ** 2) + xp.sum(x**2) ** 2


# -- W4: MAML meta-gradient, MLP 1-40-40-1 relu, MSE, one inner SGD step -------------------
#
# Per task t, with support loss L_s and query loss L_q (mean squared error):
#     theta'_t = theta - lr * grad L_s,t(theta)
#     meta-loss = mean_t L_q,t(theta'_t)
#     meta-grad = mean_t (I - lr * H_s,t(theta)) grad L_q,t(theta'_t)
# (d theta'/d theta = I - lr H_s, and H_s is symmetric).  H_s,t v is computed by hand by
# Pearlmutter's R-operator: differentiate the hand-written forward and backward pass in
# the direction v.  relu'' = 0, so the masks are constants of the R-pass.
# Every array carries a leading task axis T; parameters broadcast (shared, or per task).

_W4_NAMES = param_names(3)


def _w4_forward(p: dict, x: Any, y: Any) -> dict:
    a1 = x @ _t(p["w1"]) + p["b1"][..., None, :]
    m1 = (a1 > 0).astype(a1.dtype)
    h1 = a1 * m1
    a2 = h1 @ _t(p["w2"]) + p["b2"][..., None, :]
    m2 = (a2 > 0).astype(a2.dtype)
    h2 = a2 * m2
    o = h2 @ _t(p["w3"]) + p["b3"][..., None, :]
    n = x.shape[-2] * o.shape[-1]
    do = 2 * (o - y) / n  # d loss / d o
    da2 = (do @ p["w3"]) * m2
    da1 = (da2 @ p["w2"]) * m1
    return {
        "x": x,
        "m1": m1,
        "h1": h1,
        "m2": m2,
        "h2": h2,
        "o": o,
        "n": n,
        "do": do,
        "da2": da2,
        "da1": da1,
    }


def _w4_grads(c: dict) -> dict:
    return {
        "w1": _t(c["da1"]) @ c["x"],
        "b1": c["da1"].sum(axis=-2),
        "w2": _t(c["da2"]) @ c["h1"],
        "b2": c["da2"].sum(axis=-2),
        "w3": _t(c["do"]) @ c["h2"],
        "b3": c["do"].sum(axis=-2),
    }


def _w4_hvp(p: dict, c: dict, v: dict) -> dict:
    """H v for the loss whose forward/backward is cached in ``c``, by the R-operator."""
    r_h1 = (c["x"] @ _t(v["w1"]) + v["b1"][..., None, :]) * c["m1"]
    r_h2 = (r_h1 @ _t(p["w2"]) + c["h1"] @ _t(v["w2"]) + v["b2"][..., None, :]) * c["m2"]
    r_o = r_h2 @ _t(p["w3"]) + c["h2"] @ _t(v["w3"]) + v["b3"][..., None, :]
    r_do = 2 * r_o / c["n"]
    r_da2 = (r_do @ p["w3"] + c["do"] @ v["w3"]) * c["m2"]
    r_da1 = (r_da2 @ p["w2"] + c["da2"] @ v["w2"]) * c["m1"]
    return {
        "w1": _t(r_da1) @ c["x"],
        "b1": r_da1.sum(axis=-2),
        "w2": _t(r_da2) @ c["h1"] + _t(c["da2"]) @ r_h1,
        "b2": r_da2.sum(axis=-2),
        "w3": _t(r_do) @ c["h2"] + _t(c["do"]) @ r_h2,
        "b3": r_do.sum(axis=-2),
    }


def w4_meta_grad(inp: dict, lr: float, xp: Any = np) -> list:
    """The second-order MAML meta-gradient, batched over tasks.  Leaves ``[w1, b1, w2, b2,
    w3, b3]`` with the parameters' shapes."""
    p = {k: inp[k] for k in _W4_NAMES}
    cs = _w4_forward(p, inp["xs"], inp["ys"])
    gs = _w4_grads(cs)  # per-task support gradients, (T, ...)
    fast = {k: p[k] - lr * gs[k] for k in _W4_NAMES}
    gq = _w4_grads(_w4_forward(fast, inp["xq"], inp["yq"]))
    hv = _w4_hvp(p, cs, gq)
    return [(gq[k] - lr * hv[k]).mean(axis=0) for k in _W4_NAMES]


def w4_meta_loss(inp: dict, lr: float, xp: Any = np) -> Any:
    """The meta-loss (a scalar), for tests."""
    p = {k: inp[k] for k in _W4_NAMES}
    gs = _w4_grads(_w4_forward(p, inp["xs"], inp["ys"]))
    fast = {k: p[k] - lr * gs[k] for k in _W4_NAMES}
    o = _w4_forward(fast, inp["xq"], inp["yq"])["o"]
    return xp.mean((o - inp["yq"]) ** 2)


# -- W5: 50 chained elementwise ops ----------------------------------------------------------


def w5_chain(ns: Any, x: Any) -> Any:
    """The chain, written with any namespace that has sin/tanh/multiply/add (numpy,
    ftransforms.numpy, torch, jax.numpy, autograd.numpy): the peers call this too."""
    for _ in range(W5_REPEATS):
        for op, c in W5_BLOCK:
            if op == "square":
                x = ns.multiply(x, x)
            elif c is None:
                x = getattr(ns, op)(x)
            else:
                x = getattr(ns, op)(x, c)
    return x


def w5_chain_grad(x: Any, xp: Any = np) -> Any:
    """d sum(chain(x)) / dx, elementwise (the chain acts elementwise): the product of the
    ops' derivatives, propagated forward alongside the value."""
    d = xp.ones_like(x)
    for _ in range(W5_REPEATS):
        for op, c in W5_BLOCK:
            if op == "sin":
                d = d * xp.cos(x)
                x = xp.sin(x)
            elif op == "multiply":
                d = d * c
                x = x * c
            elif op == "add":
                x = x + c
            elif op == "tanh":
                x = xp.tanh(x)
                d = d * (1 - x * x)
            elif op == "square":
                d = d * (2 * x)
                x = x * x
            else:  # pragma: no cover
                raise ValueError(op)
    return d


def w5(inp: dict, mode: str, xp: Any = np) -> list:
    x = inp["x"]
    if mode in ("none", "vmap"):  # vmap of an elementwise chain is the chain on the batch
        return [w5_chain(xp, x)]
    return [w5_chain_grad(x, xp)]


# -- dispatch ----------------------------------------------------------------------------------


# -- W6: per-sequence gradients of an LSTM, backpropagation through time by hand -------------


def _sigmoid(z: Any, xp: Any) -> Any:
    return 1 / (1 + xp.exp(-z))


def w6_lstm_grads(inp: dict, xp: Any = np) -> list:
    """BPTT for every sequence of the batch at once.  Per sequence: ``z_t = wx x_t + b + wh
    h_{t-1}``, gates ``i, f, o = sigmoid``, ``g = tanh`` (stacked in that order),
    ``c_t = f c_{t-1} + i g``, ``h_t = o tanh(c_t)``, loss ``mean_t (v . h_t - y_t)**2``.
    Leaves ``[wx, wh, b, v]``, each with a leading batch axis."""
    wx, wh, b, v, x, y = (inp[k] for k in ("wx", "wh", "b", "v", "x", "y"))
    n, t_len, _ = x.shape
    h = wh.shape[1]
    xz = x @ wx.T + b  # (B, T, 4H): the input projection of every step at once
    hs = xp.zeros((n, t_len + 1, h), dtype=x.dtype)
    cs = xp.zeros((n, t_len + 1, h), dtype=x.dtype)
    acts = xp.empty((n, t_len, 4 * h), dtype=x.dtype)  # i, f, g, o after their nonlinearity
    for t in range(t_len):
        z = xz[:, t] + hs[:, t] @ wh.T
        a = acts[:, t]
        a[:, : 2 * h] = _sigmoid(z[:, : 2 * h], xp)
        a[:, 2 * h : 3 * h] = xp.tanh(z[:, 2 * h : 3 * h])
        a[:, 3 * h :] = _sigmoid(z[:, 3 * h :], xp)
        cs[:, t + 1] = a[:, h : 2 * h] * cs[:, t] + a[:, :h] * a[:, 2 * h : 3 * h]
        hs[:, t + 1] = a[:, 3 * h :] * xp.tanh(cs[:, t + 1])
    r = 2 * (hs[:, 1:] @ v - y) / t_len  # d loss / d prediction, (B, T)
    dz = xp.empty_like(acts)
    dh_next = xp.zeros((n, h), dtype=x.dtype)
    dc_next = xp.zeros((n, h), dtype=x.dtype)
    for t in reversed(range(t_len)):
        i, f = acts[:, t, :h], acts[:, t, h : 2 * h]
        g, o = acts[:, t, 2 * h : 3 * h], acts[:, t, 3 * h :]
        tc = xp.tanh(cs[:, t + 1])
        dh = r[:, t, None] * v + dh_next
        dc = dh * o * (1 - tc * tc) + dc_next
        dz[:, t, :h] = dc * g * i * (1 - i)
        dz[:, t, h : 2 * h] = dc * cs[:, t] * f * (1 - f)
        dz[:, t, 2 * h : 3 * h] = dc * i * (1 - g * g)
        dz[:, t, 3 * h :] = dh * tc * o * (1 - o)
        dc_next = dc * f
        dh_next = dz[:, t] @ wh
    dz_t = _t(dz)  # (B, 4H, T)
    return [dz_t @ x, dz_t @ hs[:, :-1], dz.sum(axis=1), (r[:, :, None] * hs[:, 1:]).sum(axis=1)]


def w6_loss(inp: dict, xp: Any = np) -> Any:
    """Per-sequence losses (B,), for tests."""
    wx, wh, b, v, x, y = (inp[k] for k in ("wx", "wh", "b", "v", "x", "y"))
    n, t_len, _ = x.shape
    h = wh.shape[1]
    xz = x @ wx.T + b
    hh = cc = xp.zeros((n, h), dtype=x.dtype)
    total = 0
    for t in range(t_len):
        z = xz[:, t] + hh @ wh.T
        i, f = _sigmoid(z[:, :h], xp), _sigmoid(z[:, h : 2 * h], xp)
        g, o = xp.tanh(z[:, 2 * h : 3 * h]), _sigmoid(z[:, 3 * h :], xp)
        cc = f * cc + i * g
        hh = o * xp.tanh(cc)
        total = total + (hh @ v - y[:, t]) ** 2
    return total / t_len


def compute(case: Case, inp: dict, xp: Any = np) -> list:
    """The hand-written result for ``case`` in the dtype of ``inp``."""
    if case.workload == "W1":
        return w1_per_sample_grads(inp, xp)
    if case.workload == "W2":
        return w2_jacobian(inp, xp)  # jacrev and jacfwd rows: the same Jacobian
    if case.workload == "W3":
        return w3_hessian(inp, xp)
    if case.workload == "W4":
        return w4_meta_grad(inp, case.extra["lr"], xp)
    if case.workload == "W5":
        return w5(inp, case.mode, xp)
    if case.workload == "W6":
        return w6_lstm_grads(inp, xp)
    raise ValueError(case.workload)
