"""The four user examples from the foundation issue, each written the way a user would:
once with ``import numpy as np`` and once with ``import ftransforms.numpy as fnp``, in
float32 and float64, against the same program written for JAX.

1. per-sample gradients of an MLP's softmax cross-entropy loss,
2. jacrev / jacfwd of ``tanh(x @ W.T + b)``,
3. the Hessian of a scalar function of a vector,
4. a MAML step batched over tasks.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import optree
import pytest

import ftransforms.numpy as fnp
from ftransforms import grad, hessian, jacfwd, jacrev, jvp, vmap
from tests.tolerances import assert_tree_close as _assert_tree_close
from tests.tolerances import tol

# what a transform returns must be a numpy.ndarray (see tolerances.assert_tree_close)
assert_tree_close = functools.partial(_assert_tree_close, strict=True)

NAMESPACES = pytest.mark.parametrize("xp", [np, fnp], ids=["numpy", "fnp"])


def f64(tree):
    return optree.tree_map(
        lambda a: np.asarray(a, np.float64) if np.asarray(a).dtype.kind == "f" else a, tree
    )


def check(actual, expected, dtype):
    expected = optree.tree_map(np.asarray, expected)
    assert_tree_close(actual, expected, dtype=dtype, **tol(dtype))


# -- (1) per-sample gradients -------------------------------------------------------------


def mlp_loss(xp):
    """Softmax cross-entropy of a tanh MLP on one example; ``label`` is an int class."""

    def loss(params, x, label):
        h = x
        for layer in params["hidden"]:
            h = xp.tanh(h @ layer["w"].T + layer["b"])
        logits = h @ params["out"][0].T + params["out"][1]
        z = logits - xp.max(logits)
        logp = z - xp.log(xp.sum(xp.exp(z)))
        return -logp[label]

    return loss


def mlp_params(rng, dtype, sizes=(5, 4, 4, 3)):
    layers = [
        {"w": rng.standard_normal((o, i)) / np.sqrt(i), "b": rng.standard_normal(o) * 0.1}
        for i, o in zip(sizes[:-2], sizes[1:-1])
    ]
    out = [rng.standard_normal((sizes[-1], sizes[-2])), rng.standard_normal(sizes[-1]) * 0.1]
    return optree.tree_map(lambda a: a.astype(dtype), {"hidden": layers, "out": out})


@NAMESPACES
def test_per_sample_gradients(xp, dtype, rng):
    params = mlp_params(rng, dtype)
    x = rng.standard_normal((6, 5)).astype(dtype)
    labels = rng.integers(0, 3, size=6)

    per_sample = vmap(grad(mlp_loss(xp)), in_dims=(None, 0, 0))(params, x, labels)
    ref = jax.jit(jax.vmap(jax.grad(mlp_loss(jnp)), in_axes=(None, 0, 0)))(
        *f64((params, x, labels))
    )
    check(per_sample, ref, dtype)
    assert per_sample["hidden"][0]["w"].shape == (6, 4, 5)
    # the mean of the per-sample gradients is the gradient of the mean loss
    mean_grad = grad(lambda p: xp.mean(vmap(mlp_loss(xp), in_dims=(None, 0, 0))(p, x, labels)))(
        params
    )
    check(mean_grad, optree.tree_map(lambda g: g.mean(0), f64(per_sample)), dtype)


# -- (2) Jacobians of a dense layer ----------------------------------------------------------


def dense(xp):
    return lambda x, w, b: xp.tanh(x @ w.T + b)


@NAMESPACES
@pytest.mark.parametrize("argnums", [0, (0, 1, 2)], ids=["x", "all"])
def test_dense_layer_jacobians(xp, argnums, dtype, rng):
    x = rng.standard_normal(4).astype(dtype)
    w = rng.standard_normal((3, 4)).astype(dtype)
    b = rng.standard_normal(3).astype(dtype)
    ref = jax.jit(jax.jacrev(dense(jnp), argnums=argnums))(*f64((x, w, b)))
    check(jacrev(dense(xp), argnums=argnums)(x, w, b), ref, dtype)
    check(jacfwd(dense(xp), argnums=argnums)(x, w, b), ref, dtype)
    # batched inputs: a Jacobian per example
    xs = rng.standard_normal((5, 4)).astype(dtype)
    per_example = vmap(jacrev(dense(xp)), in_dims=(0, None, None))(xs, w, b)
    ref = jax.jit(jax.vmap(jax.jacrev(dense(jnp)), (0, None, None)))(*f64((xs, w, b)))
    check(per_example, ref, dtype)


# -- (3) Hessian of a scalar function -----------------------------------------------------


def scalar_fn(xp):
    def f(x):
        return xp.sum(xp.sin(x) * x**2) + xp.log(xp.sum(xp.exp(x))) + x[0] * x[-1]

    return f


@NAMESPACES
def test_hessian_of_scalar_function(xp, dtype, rng):
    x = rng.standard_normal(5).astype(dtype)
    h = hessian(scalar_fn(xp))(x)
    ref = jax.jit(jax.hessian(scalar_fn(jnp)))(f64(x))
    check(h, ref, dtype)
    np.testing.assert_array_equal(h.shape, (5, 5))
    # Hessian-vector product by forward-over-reverse agrees with the full Hessian
    v = rng.standard_normal(5).astype(dtype)

    hvp = jvp(grad(scalar_fn(xp)), (x,), (v,))[1]
    check(hvp, np.asarray(ref) @ f64(v), dtype)


# -- (4) MAML --------------------------------------------------------------------------------


def maml(xp, T):
    """Return ``outer_loss(params, xs, ys, xq, yq)``: the mean over tasks of the query loss
    after one inner gradient step on the support set; ``T`` provides vmap and grad."""
    vmap_, grad_ = T

    def predict(params, x):
        h = xp.tanh(x @ params["w1"] + params["b1"])
        return h @ params["w2"] + params["b2"]

    def loss(params, x, y):
        return xp.mean((predict(params, x) - y) ** 2)

    def task_loss(params, xs, ys, xq, yq):
        g = grad_(loss)(params, xs, ys)
        adapted = {k: params[k] - 0.1 * g[k] for k in params}
        return loss(adapted, xq, yq)

    def outer_loss(params, xs, ys, xq, yq):
        return xp.mean(vmap_(task_loss, (None, 0, 0, 0, 0))(params, xs, ys, xq, yq))

    return outer_loss


@NAMESPACES
def test_maml_step(xp, dtype, rng):
    n_tasks, k, hidden = 4, 5, 6
    params = {
        "w1": rng.standard_normal((1, hidden)),
        "b1": rng.standard_normal(hidden) * 0.1,
        "w2": rng.standard_normal((hidden, 1)) / np.sqrt(hidden),
        "b2": np.zeros(1),
    }
    amp = rng.uniform(0.5, 2.0, size=(n_tasks, 1, 1))
    phase = rng.uniform(0, np.pi, size=(n_tasks, 1, 1))
    xs = rng.uniform(-3, 3, size=(n_tasks, k, 1))
    xq = rng.uniform(-3, 3, size=(n_tasks, k, 1))
    ys, yq = amp * np.sin(xs + phase), amp * np.sin(xq + phase)
    args = optree.tree_map(lambda a: a.astype(dtype), (params, xs, ys, xq, yq))

    meta_grad = grad(maml(xp, (vmap, grad)))(*args)
    ref = jax.jit(jax.grad(maml(jnp, (jax.vmap, jax.grad))))(*f64(args))
    check(meta_grad, ref, dtype)
    # and one meta-update step, as the user would take it
    new = {k: args[0][k] - 0.01 * meta_grad[k] for k in params}
    assert all(new[k].dtype == dtype for k in new)
