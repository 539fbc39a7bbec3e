# ruff: noqa  (a published program in its authors' style)
"""Mean-variance portfolio optimisation (quant-finance blog style): sample covariance by
np.cov, long-only weights by a softmax of logits, the Sharpe ratio, a utility with risk
aversion, and projected gradient ascent."""

import numpy as np


def make_returns(T=60, n=4, seed=0):
    rng = np.random.default_rng(seed)
    mu = np.array([0.01, 0.006, 0.004, 0.008])[:n]
    A = rng.standard_normal((n, n)) * 0.02
    return rng.standard_normal((T, n)) @ A + mu


def softmax(z):
    e = np.exp(z - np.max(z))
    return e / e.sum()


def stats(returns, w):
    mu = returns.mean(axis=0)
    Sigma = np.cov(returns, rowvar=False)
    ret = w @ mu
    vol = np.sqrt(w @ Sigma @ w)
    return ret, vol


def neg_sharpe(logits, returns, rf=0.0):
    w = softmax(logits)
    ret, vol = stats(returns, w)
    return -(ret - rf) / vol * np.sqrt(12)


def utility(w, returns, gamma=3.0):
    mu = np.mean(returns, axis=0)
    C = np.cov(returns.T, ddof=1)
    return w.dot(mu) - 0.5 * gamma * w.dot(C).dot(w)


def min_variance_weights(returns):
    C = np.cov(returns, rowvar=False)
    ones = np.ones(C.shape[0])
    x = np.linalg.solve(C, ones)
    return x / x.sum()


def efficient_frontier_point(returns, target):
    # closed-form weights of the minimum-variance portfolio with return `target`
    mu = returns.mean(axis=0)
    C = np.cov(returns, rowvar=False)
    Ci = np.linalg.inv(C)
    ones = np.ones(len(mu))
    a = ones @ Ci @ ones
    b = ones @ Ci @ mu
    c = mu @ Ci @ mu
    d = a * c - b * b
    lam = (c - b * target) / d
    gam = (a * target - b) / d
    return lam * Ci @ ones + gam * Ci @ mu
