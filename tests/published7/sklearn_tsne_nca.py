# ruff: noqa  (a published program in its authors' style)
"""scikit-learn's hand-written gradients of two embedding objectives:

* ``sklearn/manifold/_t_sne.py``'s ``_kl_divergence``: SciPy's ``pdist`` of the embedding
  modified in place (``dist /= ...; dist += 1.0; dist **= ...``), ``squareform`` of the
  weighted differences, and the gradient written row by row into an uninitialised
  ``np.ndarray((n_samples, n_components), dtype=params.dtype)`` before ``grad *= c``;
* ``sklearn/neighbors/_nca.py``'s ``NeighborhoodComponentsAnalysis._loss_grad_lbfgs``
  (its iteration printing left out): ``np.fill_diagonal(p_ij, np.inf)`` on the traced
  squared distances, scikit-learn's in-place ``softmax`` (``X -= max_prob``,
  ``np.exp(X, out=X)``, ``X /= sum_prob``) and ``np.fill_diagonal`` of the symmetric
  weights with their column sums.  ``pairwise_distances(X, squared=True)`` is reduced to
  the dense arithmetic of scikit-learn's ``_euclidean_distances``.

Copyright (c) 2007-2024 The scikit-learn developers; BSD-3-Clause license."""

import numpy as np
from scipy.spatial.distance import pdist, squareform

MACHINE_EPSILON = np.finfo(np.double).eps


def _kl_divergence(
    params,
    P,
    degrees_of_freedom,
    n_samples,
    n_components,
    skip_num_points=0,
    compute_error=True,
):
    X_embedded = params.reshape(n_samples, n_components)

    # Q is a heavy-tailed distribution: Student's t-distribution
    dist = pdist(X_embedded, "sqeuclidean")
    dist /= degrees_of_freedom
    dist += 1.0
    dist **= (degrees_of_freedom + 1.0) / -2.0
    Q = np.maximum(dist / (2.0 * np.sum(dist)), MACHINE_EPSILON)

    # Optimization trick below: np.dot(x, y) is faster than
    # np.sum(x * y) because it calls BLAS

    # Objective: C (Kullback-Leibler divergence of P and Q)
    if compute_error:
        kl_divergence = 2.0 * np.dot(P, np.log(np.maximum(P, MACHINE_EPSILON) / Q))
    else:
        kl_divergence = np.nan

    # Gradient: dC/dY
    # pdist always returns double precision distances. Thus we need to take
    grad = np.ndarray((n_samples, n_components), dtype=params.dtype)
    PQd = squareform((P - Q) * dist)
    for i in range(skip_num_points, n_samples):
        grad[i] = np.dot(np.ravel(PQd[i], order="K"), X_embedded[i] - X_embedded)
    grad = grad.ravel()
    c = 2.0 * (degrees_of_freedom + 1.0) / degrees_of_freedom
    grad *= c

    return kl_divergence, grad


def pairwise_distances(X, squared=False):
    XX = (X * X).sum(axis=1)[:, None]
    distances = -2 * X @ X.T
    distances += XX
    distances += XX.T
    np.maximum(distances, 0, out=distances)
    np.fill_diagonal(distances, 0)
    return distances if squared else np.sqrt(distances)


def softmax(X, copy=True):
    if copy:
        X = np.asarray(X, copy=True)
    max_prob = np.reshape(np.max(X, axis=1), (-1, 1))
    X -= max_prob
    np.exp(X, out=np.asarray(X))
    sum_prob = np.reshape(np.sum(X, axis=1), (-1, 1))
    X /= sum_prob
    return X


def _loss_grad_lbfgs(self, transformation, X, same_class_mask, sign=1.0):
    transformation = transformation.reshape(-1, X.shape[1])
    X_embedded = np.dot(X, transformation.T)  # (n_samples, n_components)

    # Compute softmax distances
    p_ij = pairwise_distances(X_embedded, squared=True)
    np.fill_diagonal(p_ij, np.inf)
    p_ij = softmax(-p_ij)  # (n_samples, n_samples)

    # Compute loss
    masked_p_ij = p_ij * same_class_mask
    p = np.sum(masked_p_ij, axis=1, keepdims=True)  # (n_samples, 1)
    loss = np.sum(p)

    # Compute gradient of loss w.r.t. `transform`
    weighted_p_ij = masked_p_ij - p_ij * p
    weighted_p_ij_sym = weighted_p_ij + weighted_p_ij.T
    np.fill_diagonal(weighted_p_ij_sym, -weighted_p_ij.sum(axis=0))
    gradient = 2 * X_embedded.T.dot(weighted_p_ij_sym).dot(X)
    # time complexity of the gradient: O(n_components x n_samples x (
    # n_samples + n_features))

    return sign * loss, sign * gradient.ravel()
