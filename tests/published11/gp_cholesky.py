# ruff: noqa  (a published program in its authors' style)
"""Gaussian-process regression as in Rasmussen & Williams' Algorithm 2.1 and the blog
posts that follow it: a squared-exponential (ARD) kernel from ``scipy.spatial.distance.cdist``
and from the ``sum(X**2) - 2 X X^T`` expansion, the Cholesky factor from
``scipy.linalg.cholesky`` / ``np.linalg.cholesky``, ``alpha`` from ``cho_solve`` and from two
triangular solves, the predictive mean and variance and the log marginal likelihood in the
log-hyperparameters; a Matern-5/2 kernel and a noisy-inputs variance read-out."""

import numpy as np
from scipy.linalg import cho_factor, cho_solve, cholesky, solve_triangular
from scipy.spatial.distance import cdist


def sq_dist(X1, X2):
    return np.sum(X1**2, 1).reshape(-1, 1) + np.sum(X2**2, 1) - 2 * np.dot(X1, X2.T)


def rbf_kernel(X1, X2, length=1.0, sigma_f=1.0):
    return sigma_f**2 * np.exp(-0.5 / length**2 * sq_dist(X1, X2))


def ard_kernel(X1, X2, lengths, sigma_f):
    d = cdist(X1 / lengths, X2 / lengths, "sqeuclidean")
    return sigma_f**2 * np.exp(-0.5 * d)


def matern52(X1, X2, length, sigma_f):
    r = cdist(X1, X2) / length
    s5 = np.sqrt(5.0) * r
    return sigma_f**2 * (1 + s5 + 5.0 / 3.0 * r**2) * np.exp(-s5)


def posterior(X_s, X_train, Y_train, l=1.0, sigma_f=1.0, sigma_y=1e-8):
    K = rbf_kernel(X_train, X_train, l, sigma_f) + sigma_y**2 * np.eye(len(X_train))
    K_s = rbf_kernel(X_train, X_s, l, sigma_f)
    K_ss = rbf_kernel(X_s, X_s, l, sigma_f) + 1e-8 * np.eye(len(X_s))
    K_inv = np.linalg.inv(K)
    mu_s = K_s.T.dot(K_inv).dot(Y_train)
    cov_s = K_ss - K_s.T.dot(K_inv).dot(K_s)
    return mu_s, cov_s


def predict_alg21(X_s, X, y, log_theta):
    # Rasmussen & Williams, Algorithm 2.1
    l, sf, sn = np.exp(log_theta)
    n = X.shape[0]
    K = rbf_kernel(X, X, l, sf)
    L = np.linalg.cholesky(K + sn**2 * np.eye(n))
    alpha = solve_triangular(L.T, solve_triangular(L, y, lower=True), lower=False)
    k_s = rbf_kernel(X, X_s, l, sf)
    f_mean = k_s.T @ alpha
    v = solve_triangular(L, k_s, lower=True)
    f_var = sf**2 - np.sum(v**2, axis=0)
    log_ml = -0.5 * y @ alpha - np.sum(np.log(np.diag(L))) - n / 2 * np.log(2 * np.pi)
    return f_mean, f_var, log_ml


def nll_fn(X_train, Y_train, naive=False):
    Y_train = Y_train.ravel()

    def nll_naive(theta):
        K = rbf_kernel(X_train, X_train, length=theta[0], sigma_f=theta[1]) + theta[
            2
        ] ** 2 * np.eye(len(X_train))
        return (
            0.5 * np.log(np.linalg.det(K))
            + 0.5 * Y_train.dot(np.linalg.inv(K).dot(Y_train))
            + 0.5 * len(X_train) * np.log(2 * np.pi)
        )

    def nll_stable(theta):
        K = rbf_kernel(X_train, X_train, length=theta[0], sigma_f=theta[1]) + theta[
            2
        ] ** 2 * np.eye(len(X_train))
        L = cholesky(K, lower=True)
        S1 = solve_triangular(L, Y_train, lower=True)
        S2 = solve_triangular(L.T, S1, lower=False)
        return (
            np.sum(np.log(np.diagonal(L)))
            + 0.5 * Y_train.dot(S2)
            + 0.5 * len(X_train) * np.log(2 * np.pi)
        )

    return nll_naive if naive else nll_stable


def ard_log_marginal(log_params, X, y):
    D = X.shape[1]
    lengths = np.exp(log_params[:D])
    sf = np.exp(log_params[D])
    sn = np.exp(log_params[D + 1])
    K = ard_kernel(X, X, lengths, sf)
    K[np.diag_indices_from(K)] += sn**2
    c, low = cho_factor(K)
    alpha = cho_solve((c, low), y)
    return -0.5 * y @ alpha - np.log(np.diag(c)).sum() - 0.5 * len(y) * np.log(2 * np.pi)


def matern_mean(X_s, X, y, length, sf, sn):
    K = matern52(X, X, length, sf)
    K += sn**2 * np.eye(len(X))
    K_s = matern52(X, X_s, length, sf)
    return K_s.T @ np.linalg.solve(K, y)


def make_data(n=8, d=1, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, size=(n, d))
    y = np.sin(X).sum(1) + 0.1 * rng.standard_normal(n)
    return X, y


def polynomial_features(x, degree=3):
    return np.vander(x, degree + 1, increasing=True)


def blr_posterior(Phi, t, alpha, beta):
    # Bishop, PRML eq. (3.53)-(3.54)
    S_N_inv = alpha * np.eye(Phi.shape[1]) + beta * Phi.T @ Phi
    S_N = np.linalg.inv(S_N_inv)
    m_N = beta * S_N @ Phi.T @ t
    return m_N, S_N


def blr_sample_curves(x_plot, Phi, t, alpha, beta, n_samples=4, seed=0):
    # weight samples from the posterior, the curves they draw (the figure of PRML 3.8)
    m_N, S_N = blr_posterior(Phi, t, alpha, beta)
    rng = np.random.default_rng(seed)
    w_samples = rng.multivariate_normal(m_N, S_N, size=n_samples)
    return polynomial_features(x_plot, Phi.shape[1] - 1) @ w_samples.T


def blr_thompson_legacy(x_plot, Phi, t, alpha, beta, seed=0):
    m_N, S_N = blr_posterior(Phi, t, alpha, beta)
    rs = np.random.RandomState(seed)
    w = rs.multivariate_normal(m_N, S_N)
    return polynomial_features(x_plot, Phi.shape[1] - 1) @ w
