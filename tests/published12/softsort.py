# ruff: noqa  (a published program in its authors' style)
"""Differentiable sorting and ranking (SoftSort, Prillo & Eisenschlos 2020; pairwise-sigmoid
soft ranks; NeuralSort's permutation matrix), written with broadcasting."""

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def softsort_matrix(s, tau=0.5):
    s_sorted = -np.sort(-s)  # descending
    pairwise = -np.abs(s_sorted[:, None] - s[None, :])
    return softmax(pairwise / tau, axis=-1)


def softsort(s, tau=0.5):
    return softsort_matrix(s, tau) @ s


def soft_rank(s, tau=0.1):
    diff = s[:, None] - s[None, :]
    return 1.0 + np.sum(1.0 / (1.0 + np.exp(-diff / tau)), axis=1) - 0.5


def neuralsort(s, tau=1.0):
    n = len(s)
    A = np.abs(s[:, None] - s[None, :])
    B = A @ np.ones(n)
    scaling = n + 1 - 2 * (np.arange(n) + 1)
    C = s[None, :] * scaling[:, None]
    P_max = (C - B[None, :]) / tau
    return softmax(P_max, axis=-1)


def spearman_loss(pred, target, tau=0.1):
    r = soft_rank(pred, tau)
    rt = np.argsort(np.argsort(target)).astype(float) + 1
    r = r - r.mean()
    rt = rt - rt.mean()
    return 1 - (r @ rt) / (np.linalg.norm(r) * np.linalg.norm(rt))
