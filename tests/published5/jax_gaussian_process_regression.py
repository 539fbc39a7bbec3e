# ruff: noqa  (a published program in its authors' style)
"""JAX's examples/gaussian_process_regression.py: hyperparameters in a dict, a covariance
matrix by nested ``vmap``, ``scipy.linalg.cholesky``/``solve_triangular``, ``jit(grad(...))``
of a ``partial``, and a hand-written RMSProp-with-momentum loop updating the dicts in place.
``jax.random`` keys become a seeded NumPy generator; the plot is left out and the step
count is a parameter."""

from functools import partial

import numpy as onp

import ftransforms.numpy as np
import ftransforms.scipy as scipy
from ftransforms import grad, jit, vmap


def main(unused_argv, num_steps=1000, log=print):
    numpts = 7
    key = onp.random.default_rng(0)
    eye = np.eye(numpts)

    def cov_map(cov_func, xs, xs2=None):
        """Compute a covariance matrix from a covariance function and data points."""
        if xs2 is None:
            return vmap(lambda x: vmap(lambda y: cov_func(x, y))(xs))(xs)
        else:
            return vmap(lambda x: vmap(lambda y: cov_func(x, y))(xs))(xs2).T

    def softplus(x):
        return np.logaddexp(x, 0.0)

    def exp_quadratic(x1, x2):
        return np.exp(-np.sum((x1 - x2) ** 2))

    def gp(params, x, y, xtest=None, compute_marginal_likelihood=False):
        noise = softplus(params["noise"])
        amp = softplus(params["amplitude"])
        ls = softplus(params["lengthscale"])
        ymean = np.mean(y)
        y = y - ymean
        x = x / ls
        train_cov = amp * cov_map(exp_quadratic, x) + eye * (noise + 1e-6)
        chol = scipy.linalg.cholesky(train_cov, lower=True)
        kinvy = scipy.linalg.solve_triangular(
            chol.T, scipy.linalg.solve_triangular(chol, y, lower=True)
        )
        if compute_marginal_likelihood:
            log2pi = np.log(2.0 * 3.1415)
            ml = np.sum(
                -0.5 * np.dot(y.T, kinvy) - np.sum(np.log(np.diag(chol))) - (numpts / 2.0) * log2pi
            )
            ml -= np.sum(-0.5 * np.log(2 * 3.1415) - np.log(amp) ** 2)  # lognormal prior
            return -ml

        if xtest is not None:
            xtest = xtest / ls
        cross_cov = amp * cov_map(exp_quadratic, x, xtest)
        mu = np.dot(cross_cov.T, kinvy) + ymean
        v = scipy.linalg.solve_triangular(chol, cross_cov, lower=True)
        var = amp * cov_map(exp_quadratic, xtest) - np.dot(v.T, v)
        return mu, var

    marginal_likelihood = partial(gp, compute_marginal_likelihood=True)
    predict = partial(gp, compute_marginal_likelihood=False)
    grad_fun = jit(grad(marginal_likelihood))

    # Covariance hyperparameters to be learned
    params = {
        "amplitude": np.zeros((1, 1)),
        "noise": np.zeros((1, 1)) - 5.0,
        "lengthscale": np.zeros((1, 1)),
    }
    momentums = dict([(k, p * 0.0) for k, p in params.items()])
    scales = dict([(k, p * 0.0 + 1.0) for k, p in params.items()])

    lr = 0.01  # Learning rate

    def train_step(params, momentums, scales, x, y):
        grads = grad_fun(params, x, y)
        for k in params:
            momentums[k] = 0.9 * momentums[k] + 0.1 * grads[k][0]
            scales[k] = 0.9 * scales[k] + 0.1 * grads[k][0] ** 2
            params[k] -= lr * momentums[k] / np.sqrt(scales[k] + 1e-5)
        return params, momentums, scales

    # Create a really simple toy 1D function
    noise_draws = key.normal(size=(200, 1))

    def y_fun(x):
        return np.sin(x) + 0.1 * noise_draws[: x.shape[0]]

    x = (key.uniform(size=(numpts, 1)) * 4.0) + 1
    y = y_fun(x)
    xtest = np.linspace(0, 6.0, 200)[:, None]

    for i in range(num_steps):
        params, momentums, scales = train_step(params, momentums, scales, x, y)
        if i % 50 == 0:
            ml = marginal_likelihood(params, x, y)
            log("Step: %d, neg marginal likelihood: %f" % (i, ml))

    mu, var = predict(params, x, y, xtest)
    std = np.sqrt(np.diag(var))
    return params, mu, std, (marginal_likelihood, grad_fun, x, y)
