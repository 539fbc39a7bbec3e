# ruff: noqa  (a published program in its authors' style)
"""Unsupervised-learning and sequence-model classics written out in NumPy as the course
notes give them: Lloyd's k-means with k-means++ seeding (Arthur & Vassilvitskii 2007),
PCA by the SVD of the centred data (explained variance, projection, reconstruction),
an HMM's scaled forward algorithm and its log-space version with ``logsumexp`` in a loop
(Rabiner 1989), Viterbi decoding filling a back-pointer table in a double loop, and a
linear-chain CRF's log-partition function and negative log-likelihood."""

import numpy as np
from scipy.special import logsumexp


def kmeans_pp_init(X, k, rng):
    n = X.shape[0]
    centers = [X[rng.integers(n)]]
    for _ in range(1, k):
        d2 = np.min([np.sum((X - c) ** 2, axis=1) for c in centers], axis=0)
        probs = d2 / d2.sum()
        centers.append(X[rng.choice(n, p=probs)])
    return np.array(centers)


def kmeans(X, k, n_iter=10, seed=0):
    rng = np.random.default_rng(seed)
    centers = kmeans_pp_init(X, k, rng)
    for _ in range(n_iter):
        dists = np.linalg.norm(X[:, None, :] - centers[None, :, :], axis=2)
        labels = np.argmin(dists, axis=1)
        new_centers = np.array([X[labels == j].mean(axis=0) for j in range(k)])
        if np.allclose(new_centers, centers):
            break
        centers = new_centers
    inertia = np.sum((X - centers[labels]) ** 2)
    return centers, labels, inertia


def pca(X, n_components):
    X_centered = X - X.mean(axis=0)
    U, S, Vt = np.linalg.svd(X_centered, full_matrices=False)
    components = Vt[:n_components]
    explained_variance = S**2 / (X.shape[0] - 1)
    ratio = explained_variance / explained_variance.sum()
    Z = X_centered @ components.T
    X_rec = Z @ components + X.mean(axis=0)
    return Z, X_rec, ratio[:n_components]


def hmm_forward_scaled(pi, A, B, obs):
    T = len(obs)
    N = len(pi)
    alpha = np.zeros((T, N))
    c = np.zeros(T)
    alpha[0] = pi * B[:, obs[0]]
    c[0] = alpha[0].sum()
    alpha[0] /= c[0]
    for t in range(1, T):
        alpha[t] = (alpha[t - 1] @ A) * B[:, obs[t]]
        c[t] = alpha[t].sum()
        alpha[t] /= c[t]
    return np.log(c).sum(), alpha


def hmm_forward_log(log_pi, log_A, log_B, obs):
    log_alpha = log_pi + log_B[:, obs[0]]
    for t in range(1, len(obs)):
        log_alpha = logsumexp(log_alpha[:, None] + log_A, axis=0) + log_B[:, obs[t]]
    return logsumexp(log_alpha)


def viterbi(log_pi, log_A, log_B, obs):
    T, N = len(obs), len(log_pi)
    delta = np.zeros((T, N))
    psi = np.zeros((T, N), dtype=int)
    delta[0] = log_pi + log_B[:, obs[0]]
    for t in range(1, T):
        for j in range(N):
            scores = delta[t - 1] + log_A[:, j]
            psi[t, j] = np.argmax(scores)
            delta[t, j] = scores[psi[t, j]] + log_B[j, obs[t]]
    path = np.zeros(T, dtype=int)
    path[-1] = np.argmax(delta[-1])
    for t in range(T - 2, -1, -1):
        path[t] = psi[t + 1, path[t + 1]]
    return path, delta[-1].max()


def crf_log_partition(unary, transitions):
    """unary: (T, K) emission scores, transitions: (K, K) scores of label i -> j."""
    T, K = unary.shape
    alpha = unary[0].copy()
    for t in range(1, T):
        alpha = logsumexp(alpha[:, None] + transitions, axis=0) + unary[t]
    return logsumexp(alpha)


def crf_score(unary, transitions, labels):
    score = unary[0, labels[0]]
    for t in range(1, len(labels)):
        score += transitions[labels[t - 1], labels[t]] + unary[t, labels[t]]
    return score


def crf_nll(unary, transitions, labels):
    return crf_log_partition(unary, transitions) - crf_score(unary, transitions, labels)
