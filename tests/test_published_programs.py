"""Published-style NumPy/SciPy programs run unchanged under the transforms.

Each program below is written the way tutorials, textbooks and blog posts write NumPy code
(``import numpy as np``, ``.T``, ``keepdims=True``, ``np.newaxis``, fancy indexing, Python
loops, ``np.array([...])`` of computed values, dict-of-arrays parameters, ``scipy.special``
ufuncs), not for this library.  Each one is called under ``grad``, ``vmap``, ``jacfwd`` or
``hessian`` and ``jit``.

Oracles: for gradients, JAX in float64 running *the same function object's code* with
``np`` and the SciPy names rebound to ``jax.numpy``/``jax.scipy`` (see :func:`jaxify`; one
JAX compile per program keeps the file fast); for Jacobians and Hessians, 4th-order central
differences in float64 (of the JAX-checked gradient for Hessians) and ``jacrev``; a Python
loop for ``vmap``; closed forms (Black-Scholes greeks, SciPy's ``rosen_der``/``rosen_hess``)
where they exist; for ``jit``, the eager result on *new* inputs after the program was
recorded, and that the recording is replayed (not an eager fallback).
"""

from __future__ import annotations

import math
import warnings

import jax
import jax.scipy.signal
import numpy as np
import pytest
import scipy.optimize
import scipy.stats
from scipy.special import expit, gammaln  # SciPy's ufuncs dispatch to ftransforms

import ftransforms as ft
from ftransforms.errors import TracerConversionError
from ftransforms.scipy.signal import convolve2d, lfilter  # SciPy's call np.asarray
from ftransforms.scipy.special import logsumexp  # scipy.special.logsumexp calls np.asarray
from ftransforms.scipy.stats import norm
from ftransforms.scipy.stats import t as t_dist
from tests.program_oracles import (
    FD_TOL,
    check_grad,
    check_hessian,
    check_jacfwd,
    check_jit,
    check_vmap,
    close,
    fd_jacobian,
    jax_call,
    jaxify,
    perturb,
)

jax.config.update("jax_enable_x64", True)

# Factorizations (cholesky, svd, eigh, inv) in a chain of solves: LAPACK and JAX's XLA
# kernels round differently, so compare to a few ulps times the conditioning.
LINALG_TOL = {"rtol": 1e-8, "atol": 1e-10}


# ======================================================================================
# 1. Logistic regression by hand (Ng-style course notes)
# ======================================================================================


def p_sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def p_logistic_cost(w, b, X, y, lam=0.1):
    m = X.shape[0]
    z = np.dot(X, w) + b
    h = p_sigmoid(z)
    h = np.clip(h, 1e-12, 1 - 1e-12)
    cost = -(1.0 / m) * np.sum(y * np.log(h) + (1 - y) * np.log(1 - h))
    reg = (lam / (2 * m)) * np.dot(w.T, w)
    return cost + reg


def p_logistic_cost_expit(w, X, y):
    # the same model with scipy.special.expit and a column of ones for the intercept
    Xb = np.hstack([np.ones((X.shape[0], 1)), X])
    p = expit(Xb @ w)
    return -np.mean(y * np.log(p) + (1 - y) * np.log1p(-p))


def _logistic_data(rng, n=12, d=3):
    X = rng.standard_normal((n, d))
    y = (rng.random(n) < 0.5).astype(np.float64)
    return X, y


def test_logistic_regression(rng):
    X, y = _logistic_data(rng)
    w, b = 0.3 * rng.standard_normal(3), 0.1
    check_grad(p_logistic_cost, (w, b, X, y), argnums=(0, 1))
    check_hessian(p_logistic_cost, (w, b, X, y))
    # per-example gradients: vmap over the rows of X and y
    per_example = ft.vmap(ft.grad(p_logistic_cost), in_dims=(None, None, 0, 0))
    got = per_example(w, b, X[:, np.newaxis, :], y[:, np.newaxis])
    want = [ft.grad(p_logistic_cost)(w, b, X[i : i + 1], y[i : i + 1]) for i in range(len(y))]
    close(got, np.stack(want))
    w1 = 0.3 * rng.standard_normal(4)
    check_grad(p_logistic_cost_expit, (w1, X, y))
    check_hessian(p_logistic_cost_expit, (w1, X, y))
    step = ft.grad(p_logistic_cost_expit)
    check_jit(step, (w1, X, y), perturb((w1, X, y), rng))


# ======================================================================================
# 2. A two-layer softmax classifier with dict parameters (cs231n style)
# ======================================================================================


def p_two_layer_loss(params, X, y, reg=1e-3):
    W1, b1 = params["W1"], params["b1"]
    W2, b2 = params["W2"], params["b2"]
    N = X.shape[0]
    hidden = np.maximum(0, X.dot(W1) + b1)  # ReLU
    scores = hidden.dot(W2) + b2
    scores -= np.max(scores, axis=1, keepdims=True)
    exp_scores = np.exp(scores)
    probs = exp_scores / np.sum(exp_scores, axis=1, keepdims=True)
    correct_logprobs = -np.log(probs[np.arange(N), y])
    data_loss = np.sum(correct_logprobs) / N
    reg_loss = 0.5 * reg * np.sum(W1 * W1) + 0.5 * reg * np.sum(W2 * W2)
    return data_loss + reg_loss


def p_two_layer_predict(params, X):
    hidden = np.maximum(0, X @ params["W1"] + params["b1"])
    return np.argmax(hidden @ params["W2"] + params["b2"], axis=1)


def _two_layer_params(rng, D=4, H=5, C=3, std=0.5):
    return {
        "W1": std * rng.standard_normal((D, H)),
        "b1": np.zeros(H),
        "W2": std * rng.standard_normal((H, C)),
        "b2": np.zeros(C),
    }


def test_two_layer_softmax_net(rng):
    params = _two_layer_params(rng)
    X, y = rng.standard_normal((6, 4)), np.array([0, 2, 1, 1, 0, 2])
    check_grad(p_two_layer_loss, (params, X, y))
    # an ensemble of 3 networks: vmap over a stacked parameter dict
    ensemble = {k: np.stack([v, v + 0.1, v - 0.2]) for k, v in params.items()}
    check_vmap(ft.grad(p_two_layer_loss), (ensemble, X, y), in_dims=(0, None, None))
    check_vmap(p_two_layer_predict, (ensemble, X), in_dims=(0, None))
    check_jit(ft.grad(p_two_layer_loss), (params, X, y), (perturb(params, rng), X, y))
    # a few steps of SGD, the training loop of the tutorial, under jit
    step = ft.jit(ft.grad(p_two_layer_loss))
    p = params
    for _ in range(3):
        g = step(p, X, y)
        p = {k: p[k] - 0.5 * g[k] for k in p}
    assert p_two_layer_loss(p, X, y) < p_two_layer_loss(params, X, y)


# ======================================================================================
# 3. Gaussian-process marginal likelihood (Rasmussen & Williams, Algorithm 2.1)
# ======================================================================================


def p_sq_exp_kernel(X1, X2, length_scale, signal_var):
    sqdist = np.sum(X1**2, 1).reshape(-1, 1) + np.sum(X2**2, 1) - 2 * np.dot(X1, X2.T)
    return signal_var * np.exp(-0.5 / length_scale**2 * sqdist)


def p_gp_neg_log_marginal_likelihood(log_params, X, y):
    length_scale, signal_var, noise_var = np.exp(log_params)
    n = len(y)
    K = p_sq_exp_kernel(X, X, length_scale, signal_var) + noise_var * np.eye(n)
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y.dot(alpha) + np.sum(np.log(np.diagonal(L))) + 0.5 * n * np.log(2 * np.pi)


def p_gp_nll_slogdet(log_params, X, y):
    # the same quantity written with inv and slogdet, as many blog posts do
    length_scale, signal_var, noise_var = np.exp(log_params)
    K = p_sq_exp_kernel(X, X, length_scale, signal_var) + noise_var * np.eye(X.shape[0])
    sign, logdet = np.linalg.slogdet(K)
    return 0.5 * y @ np.linalg.inv(K) @ y + 0.5 * logdet + 0.5 * len(y) * math.log(2 * math.pi)


def p_gp_predict(log_params, X, y, Xs):
    length_scale, signal_var, noise_var = np.exp(log_params)
    K = p_sq_exp_kernel(X, X, length_scale, signal_var) + noise_var * np.eye(len(X))
    Ks = p_sq_exp_kernel(X, Xs, length_scale, signal_var)
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    mu = Ks.T @ alpha
    v = np.linalg.solve(L, Ks)
    var = signal_var - np.sum(v**2, axis=0)
    return mu, var


def test_gaussian_process_marginal_likelihood(rng):
    X = np.linspace(-2, 2, 7).reshape(-1, 1)
    y = np.sin(2 * X).ravel() + 0.1 * rng.standard_normal(7)
    theta = np.log(np.array([0.8, 1.2, 0.05]))
    g = check_grad(p_gp_neg_log_marginal_likelihood, (theta, X, y), tolerance=LINALG_TOL)
    close(ft.grad(p_gp_nll_slogdet)(theta, X, y), g, LINALG_TOL)
    close(p_gp_nll_slogdet(theta, X, y), p_gp_neg_log_marginal_likelihood(theta, X, y))
    # higher orders against finite differences of the gradient JAX just confirmed (JAX's
    # compile of a Hessian through cholesky costs seconds)
    H = ft.hessian(p_gp_neg_log_marginal_likelihood)(theta, X, y)
    close(H, fd_jacobian(ft.grad(p_gp_neg_log_marginal_likelihood), (theta, X, y)), FD_TOL)
    close(H, H.T)
    thetas = theta + 0.2 * rng.standard_normal((4, 3))
    check_vmap(
        ft.grad(p_gp_neg_log_marginal_likelihood), (thetas, X, y), (0, None, None), LINALG_TOL
    )
    Xs = np.array([[-0.5], [0.3], [1.7]])
    J_mu, J_var = ft.jacfwd(p_gp_predict)(theta, X, y, Xs)
    close(J_mu, fd_jacobian(lambda t: p_gp_predict(t, X, y, Xs)[0], (theta,)), FD_TOL)
    close(J_var, fd_jacobian(lambda t: p_gp_predict(t, X, y, Xs)[1], (theta,)), FD_TOL)
    close(ft.jacrev(p_gp_predict)(theta, X, y, Xs), (J_mu, J_var), LINALG_TOL)
    check_jit(
        ft.grad(p_gp_neg_log_marginal_likelihood),
        (theta, X, y),
        (theta + 0.1, X, y + 0.05),
        tolerance=LINALG_TOL,
    )


# ======================================================================================
# 4. RK4 integration of the Lotka-Volterra equations in a Python loop
# ======================================================================================


def p_lotka_volterra(state, t, alpha, beta, delta, gamma):
    x, y = state
    dxdt = alpha * x - beta * x * y
    dydt = delta * x * y - gamma * y
    return np.array([dxdt, dydt])


def p_rk4(f, y0, t, args=()):
    n = len(t)
    y = [y0]
    for i in range(n - 1):
        h = t[i + 1] - t[i]
        k1 = f(y[i], t[i], *args)
        k2 = f(y[i] + k1 * h / 2.0, t[i] + h / 2.0, *args)
        k3 = f(y[i] + k2 * h / 2.0, t[i] + h / 2.0, *args)
        k4 = f(y[i] + k3 * h, t[i] + h, *args)
        y.append(y[i] + (h / 6.0) * (k1 + 2 * k2 + 2 * k3 + k4))
    return np.array(y)


def p_lv_trajectory(params, y0):
    t = np.linspace(0, 2.0, 11)
    return p_rk4(p_lotka_volterra, y0, t, args=tuple(params))


def p_lv_fit_loss(params, y0, observed):
    return np.mean((p_lv_trajectory(params, y0) - observed) ** 2)


def test_rk4_lotka_volterra(rng):
    params = np.array([1.1, 0.4, 0.1, 0.4])
    y0 = np.array([10.0, 5.0])
    observed = p_lv_trajectory(params * 1.05, y0)
    assert observed.shape == (11, 2)
    # JAX needs ~10 s to compile this unrolled loop of scalar arithmetic: the oracle is
    # finite differences, with a step of 1e-4 (x*y ~ 50 makes the 5th derivative in delta
    # large: at 1e-3 the differences are off by 2e-7, shrinking as step**4)
    J_params, J_y0 = ft.jacfwd(p_lv_trajectory, argnums=(0, 1))(params, y0)
    close(J_params, fd_jacobian(p_lv_trajectory, (params, y0), 0, 1e-4), FD_TOL)
    close(J_y0, fd_jacobian(p_lv_trajectory, (params, y0), 1, 1e-4), FD_TOL)
    close(ft.jacrev(p_lv_trajectory)(params, y0), J_params)
    g = ft.grad(p_lv_fit_loss)(params, y0, observed)
    close(g, fd_jacobian(p_lv_fit_loss, (params, y0, observed), 0, 1e-4), FD_TOL)
    check_vmap(
        p_lv_trajectory, (params, np.array([[10.0, 5.0], [8.0, 6.0], [12.0, 3.0]])), (None, 0)
    )
    check_jit(ft.grad(p_lv_fit_loss), (params, y0, observed), (params * 0.9, y0, observed))


# ======================================================================================
# 5. Black-Scholes price and greeks (quant-finance blog style)
# ======================================================================================


def p_black_scholes_call(S, K, T, r, sigma):
    d1 = (np.log(S / K) + (r + 0.5 * sigma**2) * T) / (sigma * np.sqrt(T))
    d2 = d1 - sigma * np.sqrt(T)
    return S * norm.cdf(d1) - K * np.exp(-r * T) * norm.cdf(d2)


def p_black_scholes_put(S, K, T, r, sigma):
    # the textbook's put, with math.* on the (plain float) maturity and rate
    disc = math.exp(-r * T)
    d1 = (np.log(S / K) + (r + sigma**2 / 2) * T) / (sigma * math.sqrt(T))
    d2 = d1 - sigma * math.sqrt(T)
    return K * disc * norm.cdf(-d2) - S * norm.cdf(-d1)


def test_black_scholes_greeks():
    S, K, T, r, sigma = 100.0, 95.0, 0.5, 0.03, 0.25
    d1 = (math.log(S / K) + (r + 0.5 * sigma**2) * T) / (sigma * math.sqrt(T))
    pdf = math.exp(-0.5 * d1**2) / math.sqrt(2 * math.pi)
    cdf = 0.5 * (1 + math.erf(d1 / math.sqrt(2)))
    # closed-form greeks
    delta = ft.grad(p_black_scholes_call)(S, K, T, r, sigma)
    gamma = ft.grad(ft.grad(p_black_scholes_call))(S, K, T, r, sigma)
    vega = ft.grad(p_black_scholes_call, argnums=4)(S, K, T, r, sigma)
    close(delta, cdf)
    close(gamma, pdf / (S * sigma * math.sqrt(T)))
    close(vega, S * pdf * math.sqrt(T))
    close(ft.grad(p_black_scholes_put)(S, K, T, r, sigma), cdf - 1)  # put-call parity
    check_grad(p_black_scholes_call, (S, K, T, r, sigma), argnums=(0, 1, 2, 3, 4))
    # a strike ladder: vmap over K, and the whole Hessian in (S, sigma)
    strikes = np.linspace(80.0, 120.0, 5)
    check_vmap(ft.grad(p_black_scholes_put), (S, strikes, T, r, sigma), (None, 0, None, None, None))
    spots = np.array([90.0, 100.0, 110.0])
    check_vmap(ft.grad(p_black_scholes_call), (spots, K, T, r, sigma), (0, None, None, None, None))
    price_of = lambda x: p_black_scholes_call(x[0], K, T, r, x[1])  # noqa: E731
    H = ft.hessian(price_of)(np.array([S, sigma]))
    close(
        H,
        jax_call(
            jax.hessian(lambda x: jaxify(p_black_scholes_call)(x[0], K, T, r, x[1])),
            np.array([S, sigma]),
        ),
    )
    check_jit(
        ft.grad(p_black_scholes_call, argnums=(0, 4)),
        (np.array(S), K, T, r, np.array(sigma)),  # NumPy scalars: see test_jit.py's xfail
        (np.array(104.0), K, T, r, np.array(0.3)),
    )


# ======================================================================================
# 6. k-means assignment step and the EM E-step of a spherical Gaussian mixture
# ======================================================================================


def p_kmeans_inertia(centroids, X):
    # distances from every point to every centroid, by broadcasting
    distances = np.sqrt(((X - centroids[:, np.newaxis]) ** 2).sum(axis=2))
    labels = np.argmin(distances, axis=0)
    return np.sum((X - centroids[labels]) ** 2), labels


def p_kmeans_update(centroids, X):
    _, labels = p_kmeans_inertia(centroids, X)
    return np.array([X[labels == k].mean(axis=0) for k in range(centroids.shape[0])])


def p_gmm_log_likelihood(means, log_var, log_weights, X):
    n, d = X.shape
    var = np.exp(log_var)
    diff = X[:, np.newaxis, :] - means[np.newaxis, :, :]
    log_prob = -0.5 * np.sum(diff**2, axis=2) / var - 0.5 * d * np.log(2 * np.pi * var)
    log_weights = log_weights - logsumexp(log_weights)
    weighted = log_prob + log_weights
    log_norm = logsumexp(weighted, axis=1, keepdims=True)
    resp = np.exp(weighted - log_norm)  # the E-step
    return np.sum(log_norm), resp


def test_kmeans_and_em_estep(rng):
    X = np.concatenate([rng.standard_normal((5, 2)) + [2, 2], rng.standard_normal((5, 2)) - 2])
    centroids = np.array([[1.5, 1.0], [-1.0, -2.5], [0.2, 0.1]])
    X[4] = [0.3, 0.0]  # every cluster keeps a point
    inertia = lambda c, X: p_kmeans_inertia(c, X)[0]  # noqa: E731
    check_grad(inertia, (centroids, X))
    stacked = np.stack([centroids, centroids[::-1], centroids + 0.3])
    check_vmap(p_kmeans_inertia, (stacked, X), (0, None))
    Xs = np.stack([X, -X, X[::-1]])
    check_vmap(inertia, (stacked, Xs), (0, 0))
    # a plain NumPy array (centroids) indexed by a traced index (labels depend on the
    # mapped X): NumPy's __getitem__ has no protocol hook, so the index is read row by row
    # and the batch splits (one group per distinct labels row); with split=False the error
    # names the one-batched-gather fix
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ft.errors.PerformanceWarning)
        check_vmap(inertia, (centroids, Xs), (None, 0))
    with pytest.raises(TracerConversionError, match=r"fnp\.take\(a, t, axis=0\)"):
        ft.vmap(inertia, in_dims=(None, 0), split=False)(centroids, Xs)
    # the Lloyd update uses a boolean mask per cluster: fine under grad (it is eager)
    new = p_kmeans_update(centroids, X)
    J = ft.jacfwd(p_kmeans_update, argnums=1)(centroids, X)
    close(J, fd_jacobian(p_kmeans_update, (centroids, X), 1), FD_TOL)
    assert new.shape == (3, 2)
    means, log_var, log_w = centroids, np.array([0.1, -0.2, 0.3]), np.array([0.0, 0.5, -0.5])
    ll = lambda m, v, w, X: p_gmm_log_likelihood(m, v, w, X)[0]  # noqa: E731
    check_grad(ll, (means, log_var, log_w, X), argnums=(0, 1, 2))
    check_hessian(ll, (means, log_var, log_w, X), argnums=1)
    check_jacfwd(p_gmm_log_likelihood, (means, log_var, log_w, X))
    check_vmap(
        p_gmm_log_likelihood, (means, log_var, log_w, X[:, np.newaxis]), (None, None, None, 0)
    )
    check_jit(ft.grad(ll), (means, log_var, log_w, X), perturb((means, log_var, log_w, X), rng))
    # argmin and the gather it drives are recorded: the replay reassigns the points
    moved = np.array([[-1.0, -2.5], [0.2, 0.1], [1.5, 1.0]])
    assert (p_kmeans_inertia(moved, X)[1] != p_kmeans_inertia(centroids, X)[1]).any()
    check_jit(ft.grad(inertia), (centroids, X), (moved, X))
    check_jit(p_kmeans_inertia, (centroids, X), (moved, X))


# ======================================================================================
# 7. PCA reconstruction error, by SVD and by the covariance's eigendecomposition
# ======================================================================================


def p_pca_reconstruction_error(X, k=2):
    X_centered = X - X.mean(axis=0)
    U, S, Vt = np.linalg.svd(X_centered, full_matrices=False)
    X_reconstructed = U[:, :k] @ np.diag(S[:k]) @ Vt[:k, :]
    return np.linalg.norm(X_centered - X_reconstructed, "fro") ** 2 / X.shape[0]


def p_pca_eigh(X, k=2):
    mean = np.mean(X, axis=0)
    Xc = X - mean
    cov = np.cov(Xc, rowvar=False)
    eigenvalues, eigenvectors = np.linalg.eigh(cov)
    idx = np.argsort(eigenvalues)[::-1]  # largest first
    components = eigenvectors[:, idx[:k]]
    projected = Xc @ components
    explained = eigenvalues[idx[:k]].sum() / np.trace(cov)
    return projected @ components.T + mean, explained


def test_pca_reconstruction(rng):
    X = rng.standard_normal((8, 4)) @ np.diag([3.0, 2.0, 1.0, 0.3])
    g = check_grad(p_pca_reconstruction_error, (X,), tolerance=LINALG_TOL)
    # the error is the sum of the discarded squared singular values
    S = np.linalg.svd(X - X.mean(axis=0), compute_uv=False)
    close(p_pca_reconstruction_error(X), np.sum(S[2:] ** 2) / 8)
    recon, explained = p_pca_eigh(X)
    close(explained, np.sum(S[:2] ** 2) / np.sum(S**2))
    # eigh's projection is the SVD's: the same error, and the same gradient
    err_eigh = lambda X: np.sum((X - p_pca_eigh(X)[0]) ** 2) / X.shape[0]  # noqa: E731
    close(ft.grad(err_eigh)(X), g, LINALG_TOL)
    J = ft.jacfwd(lambda X: p_pca_eigh(X)[1])(X)
    close(J, fd_jacobian(lambda X: p_pca_eigh(X)[1], (X,)), FD_TOL)
    batch = np.stack([X, X[::-1] * 1.5, X + 1.0])
    check_vmap(ft.grad(p_pca_reconstruction_error), (batch,), (0,), LINALG_TOL)
    check_vmap(p_pca_eigh, (batch,), (0,), LINALG_TOL)
    check_jit(ft.grad(p_pca_reconstruction_error), (X,), (X * 1.1,), tolerance=LINALG_TOL)


# ======================================================================================
# 8. Scaled dot-product attention, one head, causal mask ("attention from scratch")
# ======================================================================================


def p_softmax(x, axis=-1):
    e_x = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e_x / e_x.sum(axis=axis, keepdims=True)


def p_attention(X, Wq, Wk, Wv, causal=True):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    d_k = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d_k)
    if causal:
        mask = np.tril(np.ones((X.shape[0], X.shape[0])))
        scores = np.where(mask == 0, -1e9, scores)
    weights = p_softmax(scores, axis=-1)
    return weights @ V


def p_attention_einsum(X, W):
    # the batched-heads form: W has shape (3, heads, d_model, d_head)
    q, k, v = (np.einsum("td,hde->hte", X, W[i]) for i in range(3))
    scores = np.einsum("hqe,hke->hqk", q, k) / math.sqrt(q.shape[-1])
    out = np.einsum("hqk,hke->qhe", p_softmax(scores), v)
    return out.reshape(X.shape[0], -1)


def test_scaled_dot_product_attention(rng):
    T, d = 4, 3
    X = rng.standard_normal((T, d))
    Wq, Wk, Wv = (rng.standard_normal((d, d)) * 0.5 for _ in range(3))
    check_jacfwd(p_attention, (X, Wq, Wk, Wv), argnums=(0, 1))
    loss = lambda X, Wq, Wk, Wv: np.sum(p_attention(X, Wq, Wk, Wv) ** 2)  # noqa: E731
    check_grad(loss, (X, Wq, Wk, Wv), argnums=(1, 2, 3))
    batch = rng.standard_normal((3, T, d))
    check_vmap(p_attention, (batch, Wq, Wk, Wv), (0, None, None, None))
    check_vmap(ft.grad(loss), (batch, Wq, Wk, Wv), (0, None, None, None))
    W = rng.standard_normal((3, 2, d, 2)) * 0.5
    J = check_jacfwd(p_attention_einsum, (X, W))
    close(ft.jacrev(p_attention_einsum)(X, W), J)
    check_vmap(p_attention_einsum, (batch, W), (0, None))
    check_jit(p_attention, (X, Wq, Wk, Wv), perturb((X, Wq, Wk, Wv), rng))
    check_jit(ft.jacrev(p_attention_einsum), (X, W), perturb((X, W), rng))


# ======================================================================================
# 9. 1-D convolution: smoothing, matched filtering and a denoising objective
# ======================================================================================


def p_denoise_objective(signal, kernel, noisy, lam=0.5):
    smoothed = np.convolve(signal, kernel, mode="same")
    fidelity = np.sum((smoothed - noisy) ** 2)
    roughness = np.sum(np.diff(signal) ** 2)
    return fidelity + lam * roughness


def p_matched_filter(x, template):
    corr = np.correlate(x, template, mode="valid")
    corr = corr / (np.linalg.norm(template) * np.sqrt(len(template)))
    return np.max(corr), np.argmax(corr)


def p_moving_average(x, w=3):
    return np.convolve(x, np.ones(w), "valid") / w


def test_one_d_convolution(rng):
    t = np.linspace(0, 1, 12)
    clean = np.sin(2 * np.pi * t)
    noisy = clean + 0.1 * rng.standard_normal(12)
    kernel = np.array([0.25, 0.5, 0.25])
    check_grad(p_denoise_objective, (clean, kernel, noisy), argnums=(0, 1))
    check_hessian(p_denoise_objective, (clean, kernel, noisy))
    template = np.array([0.0, 1.0, 0.5, -0.5])
    check_grad(lambda x, tpl: p_matched_filter(x, tpl)[0], (noisy, template), argnums=(0, 1))
    many = np.stack([noisy, np.roll(noisy, 3), noisy[::-1]])
    check_vmap(p_matched_filter, (many, template), (0, None))
    check_vmap(ft.jacfwd(p_moving_average), (many,), (0,))
    check_jacfwd(p_moving_average, (noisy,))
    check_jit(
        ft.grad(p_denoise_objective, argnums=(0, 1)),
        (clean, kernel, noisy),
        (noisy, kernel[::-1] * 1.2, clean),
    )


# ======================================================================================
# 10. A chain of masses and springs under gravity (physics-simulation style)
# ======================================================================================


def p_spring_energy(positions, k=10.0, rest_length=1.0, mass=1.0, g=9.81):
    # positions: (N, 2) array of the masses' coordinates; mass 0 is pinned at the origin
    pos = np.vstack([np.zeros((1, 2)), positions])
    segments = np.diff(pos, axis=0)
    lengths = np.linalg.norm(segments, axis=1)
    elastic = 0.5 * k * np.sum((lengths - rest_length) ** 2)
    gravity = mass * g * np.sum(positions[:, 1])
    return elastic + gravity


def p_ring_energy(theta, radius=1.0, k=2.0):
    # N masses on a closed ring: neighbours through np.roll
    xy = radius * np.stack([np.cos(theta), np.sin(theta)], axis=1)
    d = xy - np.roll(xy, 1, axis=0)
    r = np.sqrt((d**2).sum(axis=1))
    return 0.5 * k * np.sum(r**2) + np.sum(1.0 / r)


def p_simulate_chain(positions, velocities, dt=0.01, steps=5):
    # semi-implicit Euler with forces from the energy's gradient
    traj = []
    for _ in range(steps):
        forces = -ft.grad(p_spring_energy)(positions)
        velocities = velocities + dt * forces
        positions = positions + dt * velocities
        traj.append(positions)
    return np.stack(traj)


def test_spring_chain(rng):
    pos = np.array([[0.9, -0.3], [1.7, -0.9], [2.2, -1.9]])
    forces = -check_grad(p_spring_energy, (pos,))
    assert forces.shape == (3, 2)
    K = ft.hessian(p_spring_energy)(pos)  # the stiffness matrix
    assert K.shape == (3, 2, 3, 2)
    close(K.reshape(6, 6), K.reshape(6, 6).T)
    close(K, fd_jacobian(ft.grad(p_spring_energy), (pos,)), FD_TOL)
    configs = pos + 0.1 * rng.standard_normal((4, 3, 2))
    check_vmap(ft.grad(p_spring_energy), (configs,), (0,))
    theta = np.linspace(0, 2 * np.pi, 6, endpoint=False) + 0.05 * rng.standard_normal(6)
    check_grad(p_ring_energy, (theta,))
    check_hessian(p_ring_energy, (theta,))
    # grad inside the simulated dynamics, differentiated again by jacfwd
    v0 = np.zeros((3, 2))
    J = ft.jacfwd(lambda p: p_simulate_chain(p, v0)[-1])(pos)
    close(J, fd_jacobian(lambda p: p_simulate_chain(p, v0)[-1], (pos,)), FD_TOL)
    check_vmap(p_simulate_chain, (configs, v0), (0, None))
    check_jit(ft.hessian(p_ring_energy), (theta,), (theta[::-1].copy(),))


# ======================================================================================
# 11. Gaussian-mixture log-density with full covariances (EM textbook chapter)
# ======================================================================================


def p_mvn_logpdf(X, mean, cov):
    d = X.shape[1]
    diff = X - mean
    sign, logdet = np.linalg.slogdet(cov)
    maha = np.einsum("ij,jk,ik->i", diff, np.linalg.inv(cov), diff)
    return -0.5 * (d * np.log(2 * np.pi) + logdet + maha)


def p_gmm_full_logdensity(weights, means, chol_factors, X):
    covs = [L @ L.T + 1e-6 * np.eye(L.shape[0]) for L in chol_factors]
    log_p = np.stack(
        [np.log(w) + p_mvn_logpdf(X, m, c) for w, m, c in zip(weights, means, covs)], axis=1
    )
    return logsumexp(log_p, axis=1)


def p_mixture_1d(x, locs, scales, weights):
    # the 1-D case with scipy.stats.norm.logpdf and the weights as a Python list
    comps = np.array([norm.logpdf(x, loc=m, scale=s) for m, s in zip(locs, scales)])
    return logsumexp(comps.T + np.log(weights), axis=-1)


def test_gaussian_mixture_full_covariance(rng):
    X = rng.standard_normal((6, 2))
    weights = np.array([0.3, 0.7])
    means = np.array([[0.5, -0.2], [-1.0, 0.8]])
    chols = np.array([[[1.0, 0.0], [0.3, 0.8]], [[0.7, 0.0], [-0.2, 1.1]]])
    args = (weights, means, chols, X)
    total = lambda w, m, L, X: np.sum(p_gmm_full_logdensity(w, m, L, X))  # noqa: E731
    check_grad(total, args, argnums=(1, 2), tolerance=LINALG_TOL)
    J = ft.jacfwd(p_gmm_full_logdensity, argnums=(0, 1, 2))(*args)
    for i in range(3):
        close(J[i], fd_jacobian(p_gmm_full_logdensity, args, i), FD_TOL)
    check_vmap(p_gmm_full_logdensity, (weights, means, chols, X[:, None, :]), (None, None, None, 0))
    check_vmap(
        ft.grad(total, argnums=1),
        (weights, np.stack([means, -means]), chols, X),
        (None, 0, None, None),
        LINALG_TOL,
    )
    x = np.linspace(-3, 3, 5)
    locs, scales, w = [-1.0, 1.5], np.array([0.8, 1.2]), [0.4, 0.6]
    # (jax.numpy refuses the Python list of weights: finite differences)
    g = ft.grad(lambda s: np.sum(p_mixture_1d(x, locs, s, w)))(scales)
    close(g, fd_jacobian(lambda s: np.sum(p_mixture_1d(x, locs, s, w)), (scales,)), FD_TOL)
    check_vmap(ft.grad(lambda x: p_mixture_1d(x, locs, scales, w)), (x,), (0,))
    check_jit(ft.grad(total, argnums=(1, 2)), args, perturb(args, rng, 0.05), tolerance=LINALG_TOL)


# ======================================================================================
# 12. A Kalman filter over a sequence, and its log-likelihood (filterpy-style steps)
# ======================================================================================


def p_kalman_predict(x, P, F, Q):
    x = F @ x
    P = F @ P @ F.T + Q
    return x, P


def p_kalman_update(x, P, z, H, R):
    y = z - H @ x  # innovation
    S = H @ P @ H.T + R
    K = P @ H.T @ np.linalg.inv(S)
    x = x + K @ y
    I = np.eye(len(x))  # noqa: E741
    P = (I - K @ H) @ P
    log_lik = -0.5 * (y @ np.linalg.solve(S, y) + np.linalg.slogdet(2 * np.pi * S)[1])
    return x, P, log_lik


def p_kalman_log_likelihood(log_q, log_r, zs, dt=0.1):
    F = np.array([[1.0, dt], [0.0, 1.0]])
    H = np.array([[1.0, 0.0]])
    q = np.exp(log_q)
    Q = q * np.array([[dt**3 / 3, dt**2 / 2], [dt**2 / 2, dt]])
    R = np.exp(log_r) * np.eye(1)
    x = np.zeros(2)
    P = np.eye(2) * 10.0
    total = 0.0
    for t in range(len(zs)):
        x, P = p_kalman_predict(x, P, F, Q)
        x, P, ll = p_kalman_update(x, P, zs[t].reshape(1), H, R)
        total += ll
    return total


def test_kalman_filter(rng):
    zs = np.cumsum(0.1 * rng.standard_normal(6)) + 0.05 * rng.standard_normal(6)
    g = ft.grad(p_kalman_log_likelihood, argnums=(0, 1))(-1.0, -2.0, zs)
    want = fd_jacobian(lambda a, b: p_kalman_log_likelihood(a, b, zs), (-1.0, -2.0), 0)
    close(g[0], want, FD_TOL)
    want = fd_jacobian(lambda a, b: p_kalman_log_likelihood(a, b, zs), (-1.0, -2.0), 1)
    close(g[1], want, FD_TOL)
    dz = ft.grad(p_kalman_log_likelihood, argnums=2)(-1.0, -2.0, zs)
    close(dz, fd_jacobian(p_kalman_log_likelihood, (-1.0, -2.0, zs), 2), FD_TOL)
    # the same filter for several noise levels at once, and for several sequences
    log_qs = np.array([-2.0, -1.0, 0.5])
    check_vmap(ft.grad(p_kalman_log_likelihood), (log_qs, -2.0, zs), (0, None, None))
    many = np.stack([zs, zs[::-1], 2 * zs])
    check_vmap(p_kalman_log_likelihood, (-1.0, -2.0, many), (None, None, 0))
    check_jit(ft.grad(p_kalman_log_likelihood, argnums=2), (-1.0, -2.0, zs), (-1.0, -2.0, zs * 2))


# ======================================================================================
# 13. Ridge regression in closed form, and the validation loss's hypergradient
# ======================================================================================


def p_ridge_fit(X, y, alpha):
    n_features = X.shape[1]
    A = X.T @ X + alpha * np.identity(n_features)
    return np.linalg.solve(A, X.T @ y)


def p_ridge_validation_loss(log_alpha, X_train, y_train, X_val, y_val):
    w = p_ridge_fit(X_train, y_train, np.exp(log_alpha))
    residual = X_val @ w - y_val
    return np.mean(residual**2)


def p_ridge_path(alphas, X, y):
    # the regularisation path, as a list comprehension stacked into an array
    return np.array([p_ridge_fit(X, y, a) for a in alphas])


def test_ridge_regression_closed_form(rng):
    X = rng.standard_normal((10, 3))
    y = X @ np.array([1.0, -2.0, 0.5]) + 0.3 * rng.standard_normal(10)
    Xv, yv = rng.standard_normal((5, 3)), rng.standard_normal(5)
    args = (np.array(0.1), X, y, Xv, yv)
    check_grad(p_ridge_validation_loss, args, argnums=(0, 1, 2), tolerance=LINALG_TOL)
    check_hessian(p_ridge_validation_loss, args)
    alphas = np.logspace(-2, 1, 4)
    check_jacfwd(p_ridge_path, (alphas, X, y), tolerance=LINALG_TOL)
    check_vmap(p_ridge_fit, (X, y, alphas), (None, None, 0), LINALG_TOL)
    check_vmap(
        ft.grad(p_ridge_validation_loss),
        (np.log(alphas), X, y, Xv, yv),
        (0, None, None, None, None),
        LINALG_TOL,
    )
    check_jit(
        ft.grad(p_ridge_validation_loss), args, (np.array(-1.0), X, y, Xv, yv), tolerance=LINALG_TOL
    )


# ======================================================================================
# 14. Rosenbrock and Rastrigin test functions (optimisation-course style)
# ======================================================================================


def p_rosenbrock(x):
    # scipy.optimize.rosen's formula
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2.0) ** 2.0 + (1 - x[:-1]) ** 2.0)


def p_rastrigin(x, A=10):
    n = len(x)
    return A * n + sum([(xi**2 - A * np.cos(2 * math.pi * xi)) for xi in x])


def p_himmelblau(p):
    x, y = p
    return (x**2 + y - 11) ** 2 + (x + y**2 - 7) ** 2


def p_newton_steps(x, steps=3):
    for _ in range(steps):
        g = ft.grad(p_rosenbrock)(x)
        H = ft.hessian(p_rosenbrock)(x)
        x = x - np.linalg.solve(H, g)
    return x


def test_rosenbrock_rastrigin(rng):
    x = np.array([-1.2, 1.0, 0.8, 1.3])
    close(ft.grad(p_rosenbrock)(x), scipy.optimize.rosen_der(x))
    close(ft.hessian(p_rosenbrock)(x), scipy.optimize.rosen_hess(x))
    v = np.array([0.3, -1.0, 2.0, 0.5])
    hvp = ft.jvp(ft.grad(p_rosenbrock), (x,), (v,))[1]
    close(hvp, scipy.optimize.rosen_hess_prod(x, v))
    points = rng.uniform(-2, 2, (5, 4))
    got = check_vmap(ft.hessian(p_rosenbrock), (points,), (0,))
    close(got, np.stack([scipy.optimize.rosen_hess(p) for p in points]))
    # Rastrigin: the sum() over a Python iteration of the array's rows
    z = np.array([0.4, -1.3, 2.2])
    g = ft.grad(p_rastrigin)(z)
    close(g, 2 * z + 2 * math.pi * 10 * np.sin(2 * math.pi * z))
    close(ft.hessian(p_rastrigin)(z), np.diag(2 + 4 * math.pi**2 * 10 * np.cos(2 * math.pi * z)))
    check_vmap(ft.grad(p_rastrigin), (points[:, :3],), (0,))
    check_grad(p_himmelblau, (np.array([3.2, 1.7]),))
    # Newton's method from the textbook's start converges to (1, 1, 1, 1)
    x0 = np.array([1.2, 1.1, 0.9, 1.05])
    want = x0
    for _ in range(8):
        want = want - np.linalg.solve(
            scipy.optimize.rosen_hess(want), scipy.optimize.rosen_der(want)
        )
    close(p_newton_steps(x0, steps=8), want)
    np.testing.assert_allclose(want, np.ones(4), atol=1e-6)
    check_jit(ft.hessian(p_rosenbrock), (x,), (points[0],))
    check_jit(p_newton_steps, (x,), (points[1],))


# ======================================================================================
# 15. REINFORCE: a softmax policy's policy-gradient loss over an episode
# ======================================================================================


def p_discount_rewards(rewards, gamma=0.99):
    discounted = []
    running = 0.0
    for r in reversed(rewards):
        running = r + gamma * running
        discounted.append(running)
    return np.array(discounted[::-1])


def p_policy_gradient_loss(theta, states, actions, rewards):
    logits = states @ theta  # (T, n_actions)
    log_probs = logits - logsumexp(logits, axis=1, keepdims=True)
    chosen = log_probs[np.arange(len(actions)), actions]
    returns = p_discount_rewards(rewards)
    advantages = (returns - returns.mean()) / (returns.std() + 1e-8)
    entropy = -np.sum(np.exp(log_probs) * log_probs, axis=1).mean()
    return -np.sum(chosen * advantages) - 0.01 * entropy


def p_discount_cumsum(x, discount):
    # rllab / Spinning Up: discounted cumulative sums of a vector, via a linear filter
    return lfilter([1], [1, float(-discount)], x[::-1], axis=0)[::-1]


def p_gae_advantages(values, rewards, gamma=0.99, lam=0.95):
    deltas = rewards[:-1] + gamma * values[1:] - values[:-1]
    return p_discount_cumsum(deltas, gamma * lam)


def p_policy_probs(theta, state):
    z = state.dot(theta)
    exp = np.exp(z - np.max(z))
    return exp / np.sum(exp)


def test_softmax_policy_gradient(rng):
    T, d, n_actions = 7, 3, 4
    theta = 0.5 * rng.standard_normal((d, n_actions))
    states = rng.standard_normal((T, d))
    actions = rng.integers(0, n_actions, T)
    rewards = rng.standard_normal(T)
    args = (theta, states, actions, rewards)
    check_grad(p_policy_gradient_loss, args)
    check_grad(p_policy_gradient_loss, args, argnums=3)  # the rewards, through the loop
    # the score function: d log pi(a|s) / d theta, per step, by vmap
    log_pi = lambda th, s, a: np.log(p_policy_probs(th, s)[a])  # noqa: E731
    check_vmap(ft.grad(log_pi), (theta, states, actions), (None, 0, 0))
    check_jacfwd(p_policy_probs, (theta, states[0]))
    episodes = (states[None] + 0.1 * rng.standard_normal((3, T, d)), np.stack([actions] * 3))
    check_vmap(ft.grad(p_policy_gradient_loss), (theta, *episodes, rewards), (None, 0, 0, None))
    check_jit(ft.grad(p_policy_gradient_loss), args, (theta * 0.5, states, actions, -rewards))
    # generalized advantage estimation with the linear-filter discount
    values = rng.standard_normal(T + 1)
    rew = np.append(rewards, 0.0)
    adv = p_gae_advantages(values, rew)
    close(adv, p_discount_rewards(rew[:-1] + 0.99 * values[1:] - values[:-1], 0.99 * 0.95))
    J = ft.jacfwd(p_gae_advantages)(values, rew)
    close(J, fd_jacobian(p_gae_advantages, (values, rew)), FD_TOL)
    close(ft.jacrev(p_gae_advantages)(values, rew), J)
    check_vmap(p_gae_advantages, (np.stack([values, -values]), rew), (0, None))
    check_jit(ft.jacrev(p_gae_advantages), (values, rew), (values * 2, rew))


# ======================================================================================
# 16. Poisson regression with an intercept column, and a 2-D density on a grid
# ======================================================================================


def p_poisson_nll(beta, X, counts):
    X_design = np.column_stack((np.ones(len(X)), X))
    eta = X_design @ beta
    mu = np.exp(eta)
    return -np.sum(counts * eta - mu - gammaln(counts + 1))


def p_grid_normaliser(mu, log_sigma):
    # the normalising constant of a 2-D Gaussian bump, by the trapezoid rule on a grid
    xs = np.linspace(-4, 4, 41)
    X, Y = np.meshgrid(xs, xs)
    sigma = np.exp(log_sigma)
    Z = np.exp(-0.5 * (((X - mu[0]) / sigma) ** 2 + ((Y - mu[1]) / sigma) ** 2))
    return np.trapezoid(np.trapezoid(Z, xs, axis=1), xs)


def p_empirical_features(x):
    # feature engineering of the kind found in notebooks
    x = x.astype(np.float64)
    padded = np.pad(x, (1, 1), mode="edge")
    smooth = (padded[:-2] + padded[1:-1] + padded[2:]) / 3
    cum = np.cumsum(x) / np.arange(1, len(x) + 1)
    srt = np.sort(x)
    trimmed = srt[1:-1].mean()
    z = (x - np.mean(x)) / np.std(x)
    feats = np.concatenate([smooth, cum, [trimmed, np.var(x), np.max(np.abs(z))]])
    return np.outer(feats, feats)[np.triu_indices(len(feats))].sum() + np.prod(np.diff(srt))


def test_poisson_regression_grid_and_features(rng):
    X = rng.standard_normal((9, 2))
    counts = rng.poisson(2.0, 9).astype(np.float64)
    beta = np.array([0.5, 0.2, -0.3])
    check_grad(p_poisson_nll, (beta, X, counts))
    check_hessian(p_poisson_nll, (beta, X, counts))
    betas = beta + 0.1 * rng.standard_normal((4, 3))
    check_vmap(ft.grad(p_poisson_nll), (betas, X, counts), (0, None, None))
    check_jit(ft.hessian(p_poisson_nll), (beta, X, counts), (betas[0], X, counts))
    mu, log_sigma = np.array([0.3, -0.2]), np.log(0.8)
    Z = p_grid_normaliser(mu, log_sigma)
    assert abs(Z - 2 * np.pi * 0.8**2) < 1e-3
    check_grad(p_grid_normaliser, (mu, log_sigma), argnums=(0, 1))
    check_vmap(p_grid_normaliser, (np.stack([mu, -mu, 2 * mu]), log_sigma), (0, None))
    x = np.array([0.3, 1.2, -0.7, 2.1, 0.05, -1.4])
    # (jax.numpy's concatenate refuses the Python list of scalars: finite differences)
    g = ft.grad(p_empirical_features)(x)
    close(g, fd_jacobian(p_empirical_features, (x,)), FD_TOL)
    check_vmap(ft.grad(p_empirical_features), (np.stack([x, x[::-1] * 0.5]),), (0,))
    check_jit(ft.grad(p_empirical_features), (x,), (x * 1.3 + 0.1,))


# ======================================================================================
# 17. Windowed features, a MATLAB port and a frozen likelihood (signal-processing notes)
# ======================================================================================


def p_rolling_zscore(x, window=4):
    windows = np.lib.stride_tricks.sliding_window_view(x, window)
    mu = windows.mean(axis=-1)
    sd = windows.std(axis=-1)
    return (x[window - 1 :] - mu) / (sd + 1e-3)


def p_sylvester_residual(X, A, B, C):
    # vec(A X B) = (B^T kron A) vec(X), with MATLAB's column-major vec
    vecX = X.flatten("F")
    lhs = np.kron(B.T, A) @ vecX
    return np.sum((lhs.reshape(C.shape, order="F") - C) ** 2)


def p_student_t_nll(params, data):
    rv = t_dist(df=4.0, loc=params[0], scale=np.exp(params[1]))
    return -np.sum(rv.logpdf(data))


def test_windows_fortran_order_and_frozen_likelihood(rng):
    x = np.cumsum(rng.standard_normal(10))
    J = ft.jacfwd(p_rolling_zscore)(x)
    close(J, fd_jacobian(p_rolling_zscore, (x,)), FD_TOL)
    check_vmap(p_rolling_zscore, (np.stack([x, -x, 0.5 * x]),), (0,))
    check_jit(ft.jacrev(p_rolling_zscore), (x,), (x[::-1].copy(),))
    A, B = rng.standard_normal((2, 2)), rng.standard_normal((3, 3))
    X, C = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    close(np.kron(B.T, A) @ X.flatten("F"), (A @ X @ B).flatten("F"))
    check_grad(p_sylvester_residual, (X, A, B, C), argnums=(0, 1, 2))
    check_vmap(
        ft.grad(p_sylvester_residual), (np.stack([X, 2 * X]), A, B, C), (0, None, None, None)
    )
    data = rng.standard_normal(8) * 1.5 + 0.3
    params = np.array([0.1, 0.2])
    g = ft.grad(p_student_t_nll)(params, data)
    close(g, fd_jacobian(p_student_t_nll, (params, data)), FD_TOL)
    close(p_student_t_nll(params, data), -np.sum(scipy.stats.t(4.0, 0.1, np.exp(0.2)).logpdf(data)))
    check_vmap(
        ft.grad(p_student_t_nll), (params + np.array([[0.0], [0.5], [-0.5]]), data), (0, None)
    )
    check_jit(ft.hessian(p_student_t_nll), (params, data), (params * 2, data))


# ======================================================================================
# 18. Image processing: Sobel edges and total-variation denoising (scikit-image style)
# ======================================================================================


def p_sobel_magnitude(img):
    kx = np.array([[1, 0, -1], [2, 0, -2], [1, 0, -1]], dtype=float)
    gx = convolve2d(img, kx, mode="same", boundary="symm")
    gy = convolve2d(img, kx.T, mode="same", boundary="symm")
    return np.sqrt(gx**2 + gy**2 + 1e-12)


def p_tv_denoise_energy(u, f, weight=0.1):
    dx = np.diff(u, axis=1)
    dy = np.diff(u, axis=0)
    tv = np.sum(np.sqrt(dx[:-1, :] ** 2 + dy[:, :-1] ** 2 + 1e-8))
    blur = convolve2d(u, np.ones((3, 3)) / 9.0, mode="same", boundary="fill")
    return 0.5 * np.sum((blur - f) ** 2) + weight * tv


def test_image_processing(rng):
    img = rng.random((6, 5))
    J = ft.jacfwd(p_sobel_magnitude)(img)
    # step 1e-4: the magnitude's curvature puts 5e-8 of truncation error into 1e-3 steps
    close(J, fd_jacobian(p_sobel_magnitude, (img,), 0, 1e-4), FD_TOL)
    check_vmap(p_sobel_magnitude, (np.stack([img, 1 - img]),), (0,))
    noisy = img + 0.1 * rng.standard_normal(img.shape)
    check_grad(p_tv_denoise_energy, (img, noisy))
    # a few steps of gradient descent, jitted
    step = ft.jit(ft.grad(p_tv_denoise_energy))
    u = noisy
    for _ in range(5):
        u = u - 0.5 * step(u, noisy)
    assert p_tv_denoise_energy(u, noisy) < p_tv_denoise_energy(noisy, noisy)
    check_jit(ft.grad(p_tv_denoise_energy), (img, noisy), (noisy, img))
