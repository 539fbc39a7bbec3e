# ruff: noqa  (a published program in its authors' style)
"""JAX's examples/pca_from_scratch.py: PCA by ``linalg.svd`` under ``@partial(jit,
static_argnames=['n_components'])``, and ``jit(vmap(pca, in_axes=(0, None)),
static_argnames=['n_components'])`` over a batch of datasets, called with the static
argument by position.  ``jax.random`` keys become a seeded generator; the timing lines
(``X_proj.block_until_ready()``, a method NumPy arrays do not have) and the plot are left
out, and the sizes are parameters."""

from functools import partial

import numpy as onp

import ftransforms.numpy as jnp
from ftransforms import jit, vmap


@partial(jit, static_argnames=["n_components"])
def pca(X, n_components=2):
    """PCA from scratch."""
    mean = jnp.mean(X, axis=0)
    X_centered = X - mean

    # SVD via XLA
    U, S, Vt = jnp.linalg.svd(X_centered, full_matrices=False)

    # Truncate components
    components = Vt[:n_components]

    # Project data
    X_projected = X_centered @ components.T

    # Calculate explained variance
    explained_variance = S**2 / (X.shape[0] - 1)
    explained_variance_ratio = explained_variance[:n_components] / jnp.sum(explained_variance)

    return X_projected, components, explained_variance_ratio


# 2. Vectorizing over a batch of distinct datasets
batched_pca = jit(vmap(pca, in_axes=(0, None)), static_argnames=["n_components"])


def main(n_samples=10_000, n_features=50, batch_size=10, batch_samples=5000, log=print):
    log("--- JAX PCA Example ---")
    key = onp.random.default_rng(42)

    base_data = key.normal(size=(n_samples, n_features))
    scales = jnp.array([10.0, 5.0] + [1.0] * (n_features - 2))
    scaled_data = base_data * scales

    random_matrix = key.normal(size=(n_features, n_features))
    rotation, _ = jnp.linalg.qr(random_matrix)  # Get an orthogonal matrix

    X = scaled_data @ rotation

    _ = pca(X, n_components=2)
    X_proj, comp, evr = pca(X, n_components=2)
    log(f"Explained variance ratio (first 2 PCs): {evr}")

    base_batch = key.normal(size=(batch_size, batch_samples, n_features))
    scaled_batch = base_batch * scales
    X_batch = scaled_batch @ rotation

    _ = batched_pca(X_batch, 2)
    X_proj_batch, comp_batch, evr_batch = batched_pca(X_batch, 2)
    log(f"Output shape of projected batch: {X_proj_batch.shape}")
    return X, (X_proj, comp, evr), X_batch, (X_proj_batch, comp_batch, evr_batch)
