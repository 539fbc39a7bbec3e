# ruff: noqa  (a published program in its authors' style)
"""Three classic iterative algorithms as the machine-learning and numerical-analysis
textbooks write them out in NumPy: expectation-maximisation for a Gaussian mixture
(Bishop, PRML 9.2.2; responsibilities by the log-sum-exp trick, the M-step filling
covariances in a loop over components), logistic regression fitted by Newton's method /
iteratively reweighted least squares (Bishop 4.3.3; Murphy 8.3.4) with an L2 penalty,
and the conjugate-gradient method (Shewchuk, "An Introduction to the Conjugate Gradient
Method Without the Agonizing Pain", B2) with its residual check in a ``while`` loop."""

import numpy as np
from scipy.special import logsumexp


def log_gaussian(X, mu, Sigma):
    d = X.shape[1]
    L = np.linalg.cholesky(Sigma)
    diff = np.linalg.solve(L, (X - mu).T)
    maha = np.sum(diff**2, axis=0)
    log_det = 2 * np.sum(np.log(np.diag(L)))
    return -0.5 * (d * np.log(2 * np.pi) + log_det + maha)


def gmm_em(X, K, n_iter=20, reg=1e-6, init_means=None):
    n, d = X.shape
    weights = np.full(K, 1.0 / K)
    means = X[:K].copy() if init_means is None else init_means.copy()
    covs = np.array([np.eye(d) for _ in range(K)])
    log_liks = []
    for it in range(n_iter):
        # E-step
        log_r = np.zeros((n, K))
        for k in range(K):
            log_r[:, k] = np.log(weights[k]) + log_gaussian(X, means[k], covs[k])
        log_norm = logsumexp(log_r, axis=1)
        log_r -= log_norm[:, None]
        resp = np.exp(log_r)
        log_liks.append(log_norm.sum())
        # M-step
        Nk = resp.sum(axis=0)
        weights = Nk / n
        means = (resp.T @ X) / Nk[:, None]
        for k in range(K):
            diff = X - means[k]
            covs[k] = (resp[:, k, None] * diff).T @ diff / Nk[k]
            covs[k] += reg * np.eye(d)
    return weights, means, covs, np.array(log_liks)


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def logistic_irls(X, y, lam=1.0, n_iter=10, tol=1e-10):
    n, d = X.shape
    w = np.zeros(d)
    for it in range(n_iter):
        p = sigmoid(X @ w)
        S = p * (1 - p)
        grad = X.T @ (p - y) + lam * w
        H = X.T @ (S[:, None] * X) + lam * np.eye(d)
        step = np.linalg.solve(H, grad)
        w -= step
        if np.linalg.norm(step) < tol:
            break
    return w


def logistic_irls_weighted_lstsq(X, y, n_iter=8):
    """The same fit as a sequence of weighted least-squares problems (no penalty)."""
    n, d = X.shape
    w = np.zeros(d)
    for it in range(n_iter):
        eta = X @ w
        p = sigmoid(eta)
        s = p * (1 - p)
        z = eta + (y - p) / s
        sw = np.sqrt(s)
        w, *_ = np.linalg.lstsq(X * sw[:, None], z * sw, rcond=None)
    return w


def conjugate_gradient(A, b, x0=None, tol=1e-10, max_iter=None):
    n = len(b)
    x = np.zeros(n) if x0 is None else x0.copy()
    r = b - A @ x
    p = r.copy()
    rs_old = r @ r
    it = 0
    max_iter = n if max_iter is None else max_iter
    while np.sqrt(rs_old) > tol and it < max_iter:
        Ap = A @ p
        alpha = rs_old / (p @ Ap)
        x += alpha * p
        r -= alpha * Ap
        rs_new = r @ r
        p = r + (rs_new / rs_old) * p
        rs_old = rs_new
        it += 1
    return x
