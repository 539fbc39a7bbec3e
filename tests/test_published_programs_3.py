"""Published programs, round three: HIPS autograd's example programs and CS231n layers.

autograd's examples (``examples/`` of HIPS/autograd: neural_net, lstm, gaussian_process,
black_box_svi, bayesian_neural_net, ica, negative_binomial_maxlike, hmm_em, gmm,
fixed_points, tanh, sinusoid, generative_adversarial_net, variational_autoencoder,
ode_net, fluidsim, convnet, define_gradient, logistic_regression,
mixture_variational_inference) are transcribed here with their logic and style kept:
``import numpy as np`` for ``autograd.numpy``, and autograd's other names mapped to ours
by replacing ``autograd`` with ``ftransforms`` in the import path
(``from ftransforms.misc.optimizers import adam``, ``import
ftransforms.scipy.stats.multivariate_normal as mvn``, ``import ftransforms.numpy.random as
npr``, ...); a few run again with ``import ftransforms.numpy as np``.  The CS231n-style
layers (a naive convolution with ``np.pad`` and in-place writes, max pooling, batch norm
with running statistics in a dict, softmax loss) and the layer classes of "neural networks
from scratch" run the same way.

Oracles: JAX in float64 on the same code (``jaxify``; one compile per program), float64
central differences, Python loops for ``vmap``, the eager result for ``jit`` on new
inputs, closed forms, and, for the optimizers, their published update rules (Kingma & Ba
for Adam) written out on flat vectors.

What this round found and fixed (each has a test here that fails without it):

* autograd's import paths with ``autograd`` replaced by ``ftransforms`` did not resolve:
  now ``ftransforms.misc.optimizers`` (``sgd``/``rmsprop``/``adam``, new),
  ``ftransforms.misc.flatten`` (``flatten_func``, new), ``ftransforms.misc.fixed_points``
  (``fixed_point``, new), autograd's per-distribution modules
  (``ftransforms.scipy.stats.multivariate_normal``, ``.norm``, ``.t``, ...),
  ``ftransforms.numpy.random``, ``ftransforms.builtins``, ``ftransforms.extend``
  (``primitive``/``defvjp``/``defjvp``, new) and ``ftransforms.test_util``
  (``check_grads(f, modes=...)(x)``, the curried form);
* autograd's ``argnum=`` keyword (``grad(objective, argnum=(0, 1))`` in the GAN and
  negative-binomial examples) was a TypeError in ``grad``/``value_and_grad``/
  ``jacobian``/``hessian``;
* autograd's remaining operators (``make_vjp``, ``make_jvp``, ``deriv``,
  ``tensor_jacobian_product``, ``grad_and_aux``, ``holomorphic_grad``, ``grad_named``,
  ``make_ggnvp``) were missing;
* convnet.py's ``convolve(inputs, params, axes=..., dot_axes=..., mode="valid")``
  (autograd's tensor convolution) had no counterpart in ``ft.scipy.signal.convolve``;
* ``flatten_func`` of a scalar objective returned shape ``(1,)``, which ``ft.grad``
  (JAX's rule) refuses: gmm.py's ``grad(flattened_obj)`` now works;
* ``x[range(n), y]`` on a tracer (nnfs's cross-entropy) was a TypeError;
* the SciPy cookbook's rolling window, ``np.lib.stride_tricks.as_strided(a, shape,
  a.strides + ...)``: tracers had no ``strides``, and NumPy's ``as_strided`` of a float32
  tracer read an object array with 4-byte strides (a segfault); now a gather, any dtype;
* with ``import ftransforms.numpy as np``: ``np.prod(shape, dtype=int)`` of a tuple failed
  (convnet.py), and NumPy names that ``ftransforms.numpy`` does not define
  (``np.triu_indices``, ``np.hanning``, ``np.acos``, ``np.errstate``) were missing.

Left as is, by design: a tracer stored in the caller's dict or object (batch norm's
running statistics, nnfs's ``layer.output``) raises ``EscapedTracerError`` when used after
the transform; ``grad`` of a shape-``(1,)`` output raises (JAX's and torch.func's rule,
pinned by tests/test_peer_semantics.py; autograd takes any size-1 output, which
bayesian_optimization.py relies on); a primitive with only ``defvjp`` refuses forward
mode (``ft.hessian``; ``jacrev(jacrev(f))`` is autograd's ``hessian``).  Not done:
CS231n's ``conv_forward_strides`` sets ``x_cols.shape = (...)`` (an in-place reshape;
tracers' ``shape`` has no setter), and ``fnp.maximum.accumulate`` (``numpy.maximum.
accumulate(t)`` works; fnp's ufuncs are primitives without ufunc methods).
"""

from __future__ import annotations

import itertools
import sys
import warnings
from functools import partial

import ftransforms.numpy.random as npr
import ftransforms.scipy.stats.multivariate_normal as mvn
import jax
import numpy as np
import pytest
import scipy.optimize
from scipy.optimize import minimize

import ftransforms as ft
from ftransforms import (
    deriv,
    grad,
    grad_and_aux,
    grad_named,
    hessian_vector_product,
    holomorphic_grad,
    make_ggnvp,
    make_jvp,
    make_vjp,
    tensor_jacobian_product,
    value_and_grad,
    vector_jacobian_product,
)
from ftransforms import elementwise_grad as egrad
from ftransforms.builtins import tuple as atuple
from ftransforms.errors import ArgnumsError
from ftransforms.extend import defvjp, primitive
from ftransforms.misc import flatten
from ftransforms.misc.fixed_points import fixed_point
from ftransforms.misc.flatten import flatten_func
from ftransforms.misc.optimizers import adam, rmsprop, sgd
from ftransforms.numpy.linalg import solve
from ftransforms.scipy.integrate import odeint
from ftransforms.scipy.signal import convolve
from ftransforms.scipy.special import expit as sigmoid
from ftransforms.scipy.special import gammaln, logsumexp
from ftransforms.scipy.stats import norm, t
from ftransforms.test_util import check_grads
from tests.program_oracles import (
    FD_TOL,
    check_fd_grad,
    check_grad,
    check_hessian,
    check_jit,
    check_vmap,
    close,
    fd_jacobian,
)

jax.config.update("jax_enable_x64", True)


# ======================================================================================
# 0. autograd's import paths, with "autograd" replaced by "ftransforms"
# ======================================================================================

AUTOGRAD_IMPORTS = """
import ftransforms.numpy.random as npr
import ftransforms.scipy.stats.multivariate_normal as mvn
import ftransforms.scipy.stats.norm as norm_module
from ftransforms.scipy.stats.t import logpdf as t_logpdf
from ftransforms.scipy.stats.dirichlet import logpdf as dirichlet_logpdf, rvs as dirichlet_rvs
from ftransforms.scipy.stats.poisson import logpmf as poisson_logpmf
from ftransforms.misc.optimizers import adam, rmsprop, sgd
from ftransforms.misc.flatten import flatten, flatten_func
from ftransforms.misc.fixed_points import fixed_point
from ftransforms.builtins import tuple
from ftransforms.extend import defjvp, defvjp, primitive
from ftransforms.test_util import check_grads
from ftransforms import (checkpoint, deriv, elementwise_grad, grad, grad_and_aux,
    grad_named, hessian, hessian_tensor_product, hessian_vector_product,
    holomorphic_grad, jacobian, make_ggnvp, make_hvp, make_jvp, make_vjp,
    tensor_jacobian_product, value_and_grad, vector_jacobian_product)
"""


def test_autograd_import_paths():
    names: dict = {}
    exec(AUTOGRAD_IMPORTS, names)
    assert names["npr"].RandomState(0).randn(2).shape == (2,)
    x = np.array([0.3, -1.2])
    close(names["mvn"].logpdf(x, np.zeros(2), np.eye(2)), np.sum(norm.logpdf(x)))
    close(names["norm_module"].logpdf(x, 1.0, 2.0), norm.logpdf(x, 1.0, 2.0))
    close(names["t_logpdf"](x, 3.0), t.logpdf(x, 3.0))
    close(names["dirichlet_logpdf"](np.array([0.2, 0.8]), np.ones(2)), 0.0)
    close(names["poisson_logpmf"](2, 3.0), np.log(4.5) - 3.0)
    # autograd's dirichlet module has SciPy's rvs: here reparameterised, so differentiable
    rvs = names["dirichlet_rvs"]
    alpha = np.array([1.0, 2.0, 3.0])
    draws = rvs(alpha, size=5, random_state=0)
    assert draws.shape == (5, 3) and np.allclose(draws.sum(axis=1), 1.0) and np.all(draws > 0)
    first = lambda a: np.sum(rvs(a, size=3, random_state=1)[:, 0])  # noqa: E731
    close(ft.grad(first)(alpha), fd_jacobian(first, (alpha,)), FD_TOL)
    # NumPy's random module under the explicit namespace too
    import ftransforms.numpy as fnp

    assert fnp.random is np.random


# ======================================================================================
# 1. neural_net.py: an MLP on a list of (W, b) tuples, l2 norm through flatten, adam
# ======================================================================================


def init_random_params(scale, layer_sizes, rs=None):
    rs = rs if rs is not None else npr.RandomState(0)
    return [
        (scale * rs.randn(m, n), scale * rs.randn(n)) for m, n in itertools.pairwise(layer_sizes)
    ]


def p_neural_net_predict(params, inputs):
    for W, b in params:
        outputs = np.dot(inputs, W) + b
        inputs = np.tanh(outputs)
    return outputs - logsumexp(outputs, axis=1, keepdims=True)


def l2_norm(params):
    flattened, _ = flatten(params)
    return np.dot(flattened, flattened)


def log_posterior(params, inputs, targets, L2_reg):
    log_prior = -L2_reg * l2_norm(params)
    log_lik = np.sum(p_neural_net_predict(params, inputs) * targets)
    return log_prior + log_lik


def adam_by_hand(flat_grad, x, num_iters, step_size, b1=0.9, b2=0.999, eps=1e-8):
    """Kingma & Ba's Algorithm 1 on a flat vector: the oracle of ``adam``'s steps."""
    m, v = np.zeros_like(x), np.zeros_like(x)
    for i in range(num_iters):
        g = flat_grad(x, i)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g**2
        x = x - step_size * (m / (1 - b1 ** (i + 1))) / (np.sqrt(v / (1 - b2 ** (i + 1))) + eps)
    return x


def test_autograd_neural_net():
    rs = npr.RandomState(1)
    params = init_random_params(0.5, [4, 3, 3])
    inputs, targets = rs.randn(5, 4), np.eye(3)[rs.randint(0, 3, 5)]
    flat, unflatten = flatten(params)

    def flat_objective(v):
        return log_posterior(unflatten(v), inputs, targets, 0.1)

    check_fd_grad(flat_objective, (flat,))
    g = grad(log_posterior)(params, inputs, targets, 0.1)
    assert isinstance(g, list) and isinstance(g[0], tuple)
    close(flatten(g)[0], ft.grad(flat_objective)(flat))
    # per-example gradients: the batch of one example at a time
    per_example = lambda p, x, y: grad(log_posterior)(p, x[None], y[None], 0.0)  # noqa: E731
    check_vmap(per_example, (params, inputs, targets), in_dims=(None, 0, 0))
    new_params = [(W + 0.1, b - 0.1) for W, b in params]
    check_jit(
        grad(log_posterior), (params, inputs, targets, 0.1), (new_params, inputs, targets, 0.1)
    )

    # training with autograd's adam over the nested parameters, with its callback
    def objective(params, iter):
        return -log_posterior(params, inputs, targets, 0.1)

    seen = []

    def print_perf(params, iter, gradient):
        assert isinstance(params, list) and isinstance(gradient[1], tuple)
        seen.append((iter, float(objective(params, iter))))

    trained = adam(grad(objective), params, step_size=0.05, num_iters=20, callback=print_perf)
    assert [i for i, _ in seen] == list(range(20)) and seen[-1][1] < seen[0][1]
    want = adam_by_hand(lambda x, i: flatten(grad(objective)(unflatten(x), i))[0], flat, 20, 0.05)
    close(flatten(trained)[0], want)


# ======================================================================================
# 2. rnn.py and lstm.py: dict parameters, np.hstack of the state, a list of outputs
# ======================================================================================


def p_sigmoid(x):
    return 0.5 * (np.tanh(x) + 1.0)


def p_concat_and_multiply(weights, *args):
    cat_state = np.hstack(args + (np.ones((args[0].shape[0], 1)),))
    return np.dot(cat_state, weights)


def p_lstm_predict(params, inputs):
    def update_lstm(input, hiddens, cells):
        change = np.tanh(p_concat_and_multiply(params["change"], input, hiddens))
        forget = p_sigmoid(p_concat_and_multiply(params["forget"], input, hiddens))
        ingate = p_sigmoid(p_concat_and_multiply(params["ingate"], input, hiddens))
        outgate = p_sigmoid(p_concat_and_multiply(params["outgate"], input, hiddens))
        cells = cells * forget + ingate * change
        hiddens = outgate * np.tanh(cells)
        return hiddens, cells

    def hiddens_to_output_probs(hiddens):
        output = p_concat_and_multiply(params["predict"], hiddens)
        return output - logsumexp(output, axis=1, keepdims=True)

    num_sequences = inputs.shape[1]
    hiddens = np.repeat(params["init hiddens"], num_sequences, axis=0)
    cells = np.repeat(params["init cells"], num_sequences, axis=0)
    output = [hiddens_to_output_probs(hiddens)]
    for input in inputs:  # Iterate over time steps.
        hiddens, cells = update_lstm(input, hiddens, cells)
        output.append(hiddens_to_output_probs(hiddens))
    return output


def p_lstm_log_likelihood(params, inputs, targets):
    logprobs = p_lstm_predict(params, inputs)
    loglik = 0.0
    num_time_steps, num_examples, _ = inputs.shape
    for t in range(num_time_steps):  # noqa: F402 (lstm.py's name; t.logpdf is ica.py's)
        loglik += np.sum(logprobs[t] * targets[t])
    return loglik / (num_time_steps * num_examples)


def test_autograd_lstm():
    rs = npr.RandomState(2)
    n_in, n_state = 5, 3
    rp = lambda *shape: rs.randn(*shape) * 0.5  # noqa: E731
    params = {
        "init cells": rp(1, n_state),
        "init hiddens": rp(1, n_state),
        "change": rp(n_in + n_state + 1, n_state),
        "forget": rp(n_in + n_state + 1, n_state),
        "ingate": rp(n_in + n_state + 1, n_state),
        "outgate": rp(n_in + n_state + 1, n_state),
        "predict": rp(n_state + 1, n_in),
    }
    seqs = np.eye(n_in)[rs.randint(0, n_in, (4, 2))]  # (time, sequences, alphabet)
    check_grad(p_lstm_log_likelihood, (params, seqs, seqs))
    one = lambda p, s: p_lstm_log_likelihood(p, s[:, None], s[:, None])  # noqa: E731
    check_vmap(one, (params, seqs.transpose(1, 0, 2)), in_dims=(None, 0))  # one sequence each
    moved = {k: v + 0.05 for k, v in params.items()}
    check_jit(p_lstm_log_likelihood, (params, seqs, seqs), (moved, seqs, seqs))
    # print_training_prediction: np.asarray of the list of log-probabilities, traced
    g = grad(lambda p: np.sum(np.asarray(p_lstm_predict(p, seqs))[:, :, 0]))(params)
    assert set(g) == set(params)


# ======================================================================================
# 3. gaussian_process.py: mvn.logpdf of a kernel matrix, value_and_grad into scipy
# ======================================================================================


def make_gp_funs(cov_func, num_cov_params):
    def unpack_kernel_params(params):
        mean = params[0]
        cov_params = params[2:]
        noise_scale = np.exp(params[1]) + 0.0001
        return mean, cov_params, noise_scale

    def predict(params, x, y, xstar):
        mean, cov_params, noise_scale = unpack_kernel_params(params)
        cov_f_f = cov_func(cov_params, xstar, xstar)
        cov_y_f = cov_func(cov_params, x, xstar)
        cov_y_y = cov_func(cov_params, x, x) + noise_scale * np.eye(len(y))
        pred_mean = mean + np.dot(solve(cov_y_y, cov_y_f).T, y - mean)
        pred_cov = cov_f_f - np.dot(solve(cov_y_y, cov_y_f).T, cov_y_f)
        return pred_mean, pred_cov

    def log_marginal_likelihood(params, x, y):
        mean, cov_params, noise_scale = unpack_kernel_params(params)
        cov_y_y = cov_func(cov_params, x, x) + noise_scale * np.eye(len(y))
        prior_mean = mean * np.ones(len(y))
        return mvn.logpdf(y, prior_mean, cov_y_y)

    return num_cov_params + 2, predict, log_marginal_likelihood


def rbf_covariance(kernel_params, x, xp):
    output_scale = np.exp(kernel_params[0])
    lengthscales = np.exp(kernel_params[1:])
    diffs = np.expand_dims(x / lengthscales, 1) - np.expand_dims(xp / lengthscales, 0)
    return output_scale * np.exp(-0.5 * np.sum(diffs**2, axis=2))


def test_autograd_gaussian_process():
    rs = npr.RandomState(0)
    num_params, predict, log_marginal_likelihood = make_gp_funs(rbf_covariance, num_cov_params=2)
    X = np.linspace(-2, 2, 8).reshape(8, 1)
    y = (np.cos(X[:, 0]) + rs.randn(8) * 0.1) / 2.0
    objective = lambda params: -log_marginal_likelihood(params, X, y)  # noqa: E731
    init_params = 0.1 * rs.randn(num_params)
    value, g = value_and_grad(objective)(init_params)
    close(value, objective(init_params))
    close(g, fd_jacobian(objective, (init_params,)), FD_TOL)
    check_hessian(objective, (init_params,))
    check_vmap(objective, (init_params + 0.1 * rs.randn(3, num_params),), in_dims=(0,))
    check_jit(objective, (init_params,), (init_params + 0.1,))
    mean_at = lambda p: predict(p, X, y, X[:3])[0]  # noqa: E731
    close(ft.jacfwd(mean_at)(init_params), fd_jacobian(mean_at, (init_params,)), FD_TOL)
    result = minimize(value_and_grad(objective), init_params, jac=True, method="CG")
    assert result.fun < objective(init_params) and np.max(np.abs(result.jac)) < 1e-4


# ======================================================================================
# 4. black_box_svi.py and bayesian_neural_net.py: a RandomState in a closure, einsum
# ======================================================================================


def black_box_variational_inference(logprob, D, num_samples):
    def unpack_params(params):
        mean, log_std = params[:D], params[D:]
        return mean, log_std

    def gaussian_entropy(log_std):
        return 0.5 * D * (1.0 + np.log(2 * np.pi)) + np.sum(log_std)

    rs = npr.RandomState(0)

    def variational_objective(params, t):
        mean, log_std = unpack_params(params)
        samples = rs.randn(num_samples, D) * np.exp(log_std) + mean
        lower_bound = gaussian_entropy(log_std) + np.mean(logprob(samples, t))
        return -lower_bound

    gradient = grad(variational_objective)
    return variational_objective, gradient, unpack_params


def make_nn_funs(layer_sizes, L2_reg, noise_variance, nonlinearity=np.tanh):
    shapes = list(itertools.pairwise(layer_sizes))
    num_weights = sum((m + 1) * n for m, n in shapes)

    def unpack_layers(weights):
        num_weight_sets = len(weights)
        for m, n in shapes:
            yield (
                weights[:, : m * n].reshape((num_weight_sets, m, n)),
                weights[:, m * n : m * n + n].reshape((num_weight_sets, 1, n)),
            )
            weights = weights[:, (m + 1) * n :]

    def predictions(weights, inputs):
        inputs = np.expand_dims(inputs, 0)
        for W, b in unpack_layers(weights):
            outputs = np.einsum("mnd,mdo->mno", inputs, W) + b
            inputs = nonlinearity(outputs)
        return outputs

    def logprob(weights, inputs, targets):
        log_prior = -L2_reg * np.sum(weights**2, axis=1)
        preds = predictions(weights, inputs)
        log_lik = -np.sum((preds - targets) ** 2, axis=1)[:, 0] / noise_variance
        return log_prior + log_lik

    return num_weights, predictions, logprob


def test_autograd_black_box_svi_bayesian_neural_net():
    def log_density(x, t):
        mu, log_sigma = x[:, 0], x[:, 1]
        sigma_density = norm.logpdf(log_sigma, 0, 1.35)
        mu_density = norm.logpdf(mu, 0, np.exp(log_sigma))
        return sigma_density + mu_density

    # Each instance draws from its own RandomState(0): a fresh one per evaluation makes
    # the stochastic objective a deterministic function for the finite differences.
    fresh = lambda p: black_box_variational_inference(log_density, 2, 50)[0](p, 0)  # noqa: E731
    init = np.array([-1.0, -1.0, -2.0, -2.0])
    _, gradient, _ = black_box_variational_inference(log_density, 2, 50)
    close(gradient(init, 0), fd_jacobian(fresh, (init,)), FD_TOL)
    variational_contour = lambda m: np.sum(mvn.pdf(np.ones((3, 2)), m, np.diag(np.exp(2 * m))))  # noqa: E731
    check_fd_grad(variational_contour, (np.array([0.2, -0.1]),))

    rbf = lambda x: np.exp(-(x**2))  # noqa: E731
    num_weights, predictions, logprob = make_nn_funs([1, 4, 1], 0.1, 0.01, nonlinearity=rbf)
    inputs = np.linspace(-1, 1, 6).reshape(6, 1)
    targets = np.cos(4 * inputs)
    log_posterior = lambda weights, t: logprob(weights, inputs, targets)  # noqa: E731
    objective, gradient, unpack_params = black_box_variational_inference(
        log_posterior, num_weights, num_samples=4
    )
    rs = npr.RandomState(0)
    params = np.concatenate([rs.randn(num_weights), -3 * np.ones(num_weights)])
    fresh = lambda p: black_box_variational_inference(log_posterior, num_weights, 4)[0](p, 0)  # noqa: E731
    close(gradient(params, 0), fd_jacobian(fresh, (params,)), FD_TOL)
    one_set = lambda w: logprob(w[None], inputs, targets)[0]  # noqa: E731
    check_vmap(one_set, (rs.randn(3, num_weights),), in_dims=(0,))
    # the closure's RandomState moves on every call: jit runs it eagerly, drawing afresh
    twice = black_box_variational_inference(log_posterior, num_weights, 4)[0]
    compiled = ft.jit(black_box_variational_inference(log_posterior, num_weights, 4)[0])
    with pytest.warns(RuntimeWarning, match="random"):
        close(compiled(params, 0), twice(params, 0))
        close(compiled(params, 1), twice(params, 1))  # the second draws, not the first again


# ======================================================================================
# 5. ica.py (t.logpdf) and negative_binomial_maxlike.py (gammaln, grad of grad, Newton)
# ======================================================================================


def ica_logprob(weights, latents, noise_std, observed):
    preds = np.dot(weights, latents).T
    log_lik = np.sum(t.logpdf(preds, 2.4, observed, noise_std))
    return log_lik


def p_negbin_loglike(r, p, x):
    return gammaln(r + x) - gammaln(r) - gammaln(x + 1) + x * np.log(p) + r * np.log(1 - p)


def test_autograd_ica_and_negative_binomial():
    rs = npr.RandomState(3)
    weights, latents = rs.randn(3, 2), rs.randn(2, 5)
    observed = np.dot(weights, latents).T + 0.3 * rs.randn(5, 3)
    check_fd_grad(ica_logprob, (weights, latents, 0.5, observed))
    check_hessian(ica_logprob, (weights, latents, 0.5, observed))

    x = np.array([0, 1, 3, 7, 2, 9, 4, 12, 0, 5])
    loglike = lambda r, p: np.sum(p_negbin_loglike(r, p, x))  # noqa: E731
    check_fd_grad(loglike, (2.5, 0.4), argnums=0)
    check_fd_grad(loglike, (2.5, 0.4), argnums=1)
    p = lambda r: np.sum(x) / np.sum(r + x)  # noqa: E731
    rprime = lambda r: grad(loglike)(r, p(r))  # noqa: E731
    close(grad(rprime)(2.0), fd_jacobian(rprime, (2.0,)), FD_TOL)
    r = scipy.optimize.newton(rprime, 1.0, fprime=grad(rprime), fprime2=grad(grad(rprime)))
    assert abs(rprime(r)) < 1e-8 and r > 0
    grad_both = grad(loglike, argnum=(0, 1))  # autograd's spelling of argnums
    close(grad_both(r, p(r)), (grad(loglike, 0)(r, p(r)), grad(loglike, 1)(r, p(r))))
    close(grad_both(r, p(r))[0], 0.0, {"rtol": 0, "atol": 1e-8})  # the maximum in r
    with pytest.raises(ArgnumsError, match="argnum=0 .* and argnums"):
        grad(loglike, 1, argnum=0)


# ======================================================================================
# 6. hmm_em.py: the E step as the gradient of the log partition function
# ======================================================================================


def p_log_partition_function(natural_params, data):
    if isinstance(data, list):
        return sum(map(partial(p_log_partition_function, natural_params), data))

    log_pi, log_A, log_B = natural_params

    log_alpha = log_pi
    for y in data:
        log_alpha = logsumexp(log_alpha[:, None] + log_A, axis=0) + log_B[:, y]

    return logsumexp(log_alpha)


def normalize(a):
    def replace_zeros(a):
        return np.where(a > 0.0, a, 1.0)

    return a / replace_zeros(a.sum(-1, keepdims=True))


def test_autograd_hmm_em():
    rs = npr.RandomState(4)
    params = [normalize(rs.rand(3)), normalize(rs.rand(3, 3)), normalize(rs.rand(3, 5))]
    data = [np.array([0, 1, 4, 2, 2]), np.array([3, 3, 1])]
    natural_params = list(map(np.log, params))
    loglike, E_stats = value_and_grad(p_log_partition_function)(natural_params, data)
    check_grad(p_log_partition_function, (natural_params, data))
    # the expected counts: one initial state and one emission per step of each sequence
    close(np.sum(E_stats[0]), 2.0)
    close(np.sum(E_stats[2]), 8.0)
    close(np.sum(E_stats[1]), 8.0)  # this forward pass moves before every emission
    new_params = list(map(normalize, E_stats))  # the M step
    assert p_log_partition_function(list(map(np.log, new_params)), data) > loglike
    one_sequence = lambda p: p_log_partition_function(p, data[0])  # noqa: E731
    check_jit(grad(one_sequence), (natural_params,), ([v - 0.1 for v in natural_params],))


# ======================================================================================
# 7. gmm.py: flatten_func, minimize(Newton-CG) with grad and hessian_vector_product
# ======================================================================================


def init_gmm_params(num_components, D, scale, rs=None):
    rs = rs if rs is not None else npr.RandomState(0)
    return {
        "log proportions": rs.randn(num_components) * scale,
        "means": rs.randn(num_components, D) * scale,
        "lower triangles": np.zeros((num_components, D, D)) + np.eye(D),
    }


def log_normalize(x):
    return x - logsumexp(x)


def unpack_gmm_params(params):
    normalized_log_proportions = log_normalize(params["log proportions"])
    return normalized_log_proportions, params["means"], params["lower triangles"]


def gmm_log_likelihood(params, data):
    cluster_lls = []
    for log_proportion, mean, cov_sqrt in zip(*unpack_gmm_params(params)):
        cov = np.dot(cov_sqrt.T, cov_sqrt)
        cluster_lls.append(log_proportion + mvn.logpdf(data, mean, cov))
    return np.sum(logsumexp(np.vstack(cluster_lls), axis=0))


def test_autograd_gmm():
    rs = npr.RandomState(5)
    data = np.concatenate([rs.randn(6, 2) + 2.0, rs.randn(6, 2) - 2.0])
    init_params = init_gmm_params(num_components=2, D=2, scale=0.5, rs=rs)

    def objective(params):
        return -gmm_log_likelihood(params, data)

    flattened_obj, unflatten, flattened_init_params = flatten_func(objective, init_params)
    assert flattened_init_params.shape == (2 + 4 + 8,)
    check_fd_grad(flattened_obj, (flattened_init_params,))
    v = rs.randn(flattened_init_params.size)
    H = fd_jacobian(grad(flattened_obj), (flattened_init_params,))
    close(hessian_vector_product(flattened_obj)(flattened_init_params, v), H @ v, FD_TOL)
    seen = []
    result = minimize(
        flattened_obj,
        flattened_init_params,
        jac=grad(flattened_obj),
        hessp=hessian_vector_product(flattened_obj),
        method="Newton-CG",
        callback=lambda flattened_params: seen.append(objective(unflatten(flattened_params))),
        options={"maxiter": 5},
    )
    assert seen and result.fun < objective(init_params)


# ======================================================================================
# 8. fixed_points.py, tanh.py and sinusoid.py: derivatives of iterations and of egrad
# ======================================================================================


def grad_descent_sqrt_iter(a):
    return lambda x: x - 0.05 * (x**2 - a)


def distance(x, y):
    return np.abs(x - y)


def fixed_point_sqrt(a, guess=10.0):
    return fixed_point(grad_descent_sqrt_iter, a, guess, distance, 1e-10)


def tanh(x):
    return (1.0 - np.exp(-2 * x)) / (1.0 + np.exp(-(2 * x)))


def taylor_sine(x):  # sinusoid.py's series, stopped at a generous tolerance
    currterm = x
    ans = currterm
    for i in range(1000):
        currterm = -currterm * x**2 / ((2 * i + 3) * (2 * i + 2))
        ans = ans + currterm
        if np.abs(currterm) < 0.2:
            break
    return ans


def test_autograd_fixed_points_tanh_sinusoid():
    close(fixed_point_sqrt(2.0), np.sqrt(2.0), {"rtol": 1e-7, "atol": 0})
    close(grad(fixed_point_sqrt)(2.0), 0.5 / np.sqrt(2.0), {"rtol": 1e-6, "atol": 0})
    close(grad(grad(fixed_point_sqrt))(2.0), -0.25 * 2.0**-1.5, {"rtol": 1e-5, "atol": 0})
    a = np.array([0.5, 2.0, 9.0])
    close(ft.vmap(fixed_point_sqrt)(a), np.sqrt(a), {"rtol": 1e-7, "atol": 0})
    close(ft.vmap(grad(fixed_point_sqrt))(a), 0.5 / np.sqrt(a), {"rtol": 1e-6, "atol": 0})

    x = np.linspace(-3, 3, 13)
    th = np.tanh(x)
    close(egrad(tanh)(x), 1 - th**2)
    close(egrad(egrad(tanh))(x), -2 * th * (1 - th**2))
    close(egrad(egrad(egrad(tanh)))(x), (1 - th**2) * (6 * th**2 - 2))
    close(ft.jit(egrad(egrad(tanh)))(x + 0.1), -2 * np.tanh(x + 0.1) * (1 - np.tanh(x + 0.1) ** 2))

    d_fun = grad(taylor_sine)
    dd_fun = grad(d_fun)
    for x0 in (-2.5, 0.7, 4.0):
        close(d_fun(x0), fd_jacobian(taylor_sine, (x0,)), FD_TOL)
        close(dd_fun(x0), fd_jacobian(d_fun, (x0,)), FD_TOL)


# ======================================================================================
# 9. autograd.misc.optimizers: the update rules, meta-gradients and ensembles
# ======================================================================================


def test_misc_optimizers():
    target = {"w": np.array([1.0, -2.0]), "b": (0.5,)}

    def objective(params, iter):
        err = params["w"] - target["w"]
        return np.sum(err**2 * np.array([1.0, 3.0])) + (params["b"][0] - target["b"][0]) ** 2

    x0 = {"w": np.zeros(2), "b": (np.array(0.0),)}
    flat0, unflatten = flatten(x0)
    flat_grad = lambda x, i: flatten(grad(objective)(unflatten(x), i))[0]  # noqa: E731

    # sgd with momentum and rmsprop, their published rules written out
    x, velocity = flat0, np.zeros(3)
    for i in range(30):
        velocity = 0.9 * velocity - 0.1 * flat_grad(x, i)
        x = x + 0.2 * velocity
    close(flatten(sgd(grad(objective), x0, num_iters=30, step_size=0.2))[0], x)
    x, avg = flat0, np.ones(3)
    for i in range(30):
        g = flat_grad(x, i)
        avg = 0.9 * avg + 0.1 * g**2
        x = x - 0.05 * g / (np.sqrt(avg) + 1e-8)
    close(flatten(rmsprop(grad(objective), x0, num_iters=30, step_size=0.05))[0], x)
    trained = adam(grad(objective), x0, num_iters=30, step_size=0.1)
    assert isinstance(trained["b"], tuple)
    close(flatten(trained)[0], adam_by_hand(flat_grad, flat0, 30, 0.1))

    # the optimizers are differentiable: the final loss's derivative in the step size
    def final_loss(step_size):
        return objective(sgd(grad(objective), x0, num_iters=10, step_size=step_size), 0)

    close(grad(final_loss)(0.3), fd_jacobian(final_loss, (0.3,)), FD_TOL)
    # and map over an ensemble of starting points
    starts = np.array([[0.0, 0.0, 0.0], [1.0, -1.0, 2.0], [3.0, 0.5, -1.0]])
    run = lambda s: flatten(adam(grad(objective), unflatten(s), num_iters=8, step_size=0.1))[0]  # noqa: E731
    check_vmap(run, (starts,), in_dims=(0,))


# ======================================================================================
# 10. generative_adversarial_net.py and variational_autoencoder.py: grad with
#     argnum=(0, 1), np.logaddexp, expit, batch normalisation, reparameterised samples
# ======================================================================================


def relu(x):
    return np.maximum(0, x)


def logsigmoid(x):
    return x - np.logaddexp(0, x)


def batch_normalize(activations):
    mbmean = np.mean(activations, axis=0, keepdims=True)
    return (activations - mbmean) / (np.std(activations, axis=0, keepdims=True) + 1)


def gan_predict(params, inputs):
    inpW, inpb = params[0]
    inputs = relu(np.dot(inputs, inpW) + inpb)
    for W, b in params[1:-1]:
        outputs = batch_normalize(np.dot(inputs, W) + b)
        inputs = relu(outputs)
    outW, outb = params[-1]
    outputs = np.dot(inputs, outW) + outb
    return outputs


def generate_from_noise(gen_params, num_samples, noise_dim, rs):
    noise = rs.rand(num_samples, noise_dim)
    samples = gan_predict(gen_params, noise)
    return sigmoid(samples)


def gan_objective(gen_params, dsc_params, real_data, num_samples, noise_dim, rs):
    fake_data = generate_from_noise(gen_params, num_samples, noise_dim, rs)
    logprobs_fake = logsigmoid(gan_predict(dsc_params, fake_data))
    logprobs_real = logsigmoid(gan_predict(dsc_params, real_data))
    return np.mean(logprobs_real) - np.mean(logprobs_fake)


def diag_gaussian_log_density(x, mu, log_std):
    return np.sum(norm.logpdf(x, mu, np.exp(log_std)), axis=-1)


def unpack_gaussian_params(params):
    D = np.shape(params)[-1] // 2
    mean, log_std = params[:, :D], params[:, D:]
    return mean, log_std


def bernoulli_log_density(targets, unnormalized_logprobs):
    label_probabilities = -np.logaddexp(0, -unnormalized_logprobs * targets)
    return np.sum(label_probabilities, axis=-1)


def vae_lower_bound(gen_params, rec_params, data, rs):
    q_means, q_log_stds = unpack_gaussian_params(gan_predict(rec_params, data))
    latents = rs.randn(*q_means.shape) * np.exp(q_log_stds) + q_means
    q_latents = diag_gaussian_log_density(latents, q_means, q_log_stds)
    p_latents = diag_gaussian_log_density(latents, 0, 0)
    likelihood = bernoulli_log_density(data, gan_predict(gen_params, latents))
    return np.mean(p_latents + likelihood - q_latents)


def test_autograd_gan_and_vae():
    rs = npr.RandomState(7)
    gen = init_random_params(0.5, [2, 4, 4, 3], rs=rs)
    dsc = init_random_params(0.5, [3, 4, 4, 1], rs=rs)
    real = rs.rand(5, 3)

    def objective(gen_params, dsc_params, iter):  # a fresh seed per call: deterministic
        return gan_objective(gen_params, dsc_params, real, 4, 2, npr.RandomState(iter))

    both_objective_grad = grad(objective, argnum=(0, 1))
    g_gen, g_dsc = both_objective_grad(gen, dsc, 0)
    flat, unflatten = flatten((gen, dsc))
    flat_objective = lambda v: objective(*unflatten(v), 0)  # noqa: E731
    close(flatten((g_gen, g_dsc))[0], fd_jacobian(flat_objective, (flat,)), FD_TOL)

    images = np.where(rs.rand(6, 3) > 0.5, 1.0, -1.0)  # binarised as the example does
    gen = init_random_params(0.5, [2, 4, 3], rs=rs)
    rec = init_random_params(0.5, [3, 4, 4], rs=rs)

    def vae_objective(combined_params, iter):
        gen_params, rec_params = combined_params
        return -vae_lower_bound(gen_params, rec_params, images, npr.RandomState(iter))

    flat, unflatten = flatten((gen, rec))
    got = flatten(grad(vae_objective)((gen, rec), 1))[0]
    close(got, fd_jacobian(lambda v: vae_objective(unflatten(v), 1), (flat,)), FD_TOL)
    trained = adam(grad(vae_objective), (gen, rec), step_size=0.05, num_iters=10)
    assert vae_objective(trained, 1) < vae_objective((gen, rec), 1)


# ======================================================================================
# 11. ode_net.py (odeint of a network, autograd's builtins.tuple) and fluidsim.py
#     (np.roll stencils, in-place -=, interpolation with floor().astype(int) indices)
# ======================================================================================


def nn_predict(inputs, t, params):
    for W, b in params:
        outputs = np.dot(inputs, W) + b
        inputs = np.maximum(0, outputs)
    return outputs


def ode_pred(params, y0, t):
    return odeint(nn_predict, y0, t, atuple((params,)), rtol=0.01)


def L1_loss(pred, targets):
    return np.mean(np.abs(pred - targets))


def project(vx, vy):
    p = np.zeros(vx.shape)
    h = 1.0 / vx.shape[0]
    div = (
        -0.5
        * h
        * (
            np.roll(vx, -1, axis=0)
            - np.roll(vx, 1, axis=0)
            + np.roll(vy, -1, axis=1)
            - np.roll(vy, 1, axis=1)
        )
    )
    for _k in range(10):
        p = (
            div
            + np.roll(p, 1, axis=0)
            + np.roll(p, -1, axis=0)
            + np.roll(p, 1, axis=1)
            + np.roll(p, -1, axis=1)
        ) / 4.0
    vx -= 0.5 * (np.roll(p, -1, axis=0) - np.roll(p, 1, axis=0)) / h
    vy -= 0.5 * (np.roll(p, -1, axis=1) - np.roll(p, 1, axis=1)) / h
    return vx, vy


def advect(f, vx, vy):
    rows, cols = f.shape
    cell_ys, cell_xs = np.meshgrid(np.arange(rows), np.arange(cols))
    center_xs = (cell_xs - vx).ravel()
    center_ys = (cell_ys - vy).ravel()
    left_ix = np.floor(center_xs).astype(int)
    top_ix = np.floor(center_ys).astype(int)
    rw = center_xs - left_ix
    bw = center_ys - top_ix
    left_ix = np.mod(left_ix, rows)
    right_ix = np.mod(left_ix + 1, rows)
    top_ix = np.mod(top_ix, cols)
    bot_ix = np.mod(top_ix + 1, cols)
    flat_f = (1 - rw) * ((1 - bw) * f[left_ix, top_ix] + bw * f[left_ix, bot_ix]) + rw * (
        (1 - bw) * f[right_ix, top_ix] + bw * f[right_ix, bot_ix]
    )
    return np.reshape(flat_f, (rows, cols))


def simulate(vx, vy, smoke, num_time_steps):
    for _t in range(num_time_steps):
        vx_updated = advect(vx, vx, vy)
        vy_updated = advect(vy, vx, vy)
        vx, vy = project(vx_updated, vy_updated)
        smoke = advect(smoke, vx, vy)
    return smoke


def test_autograd_ode_net_and_fluidsim():
    true_y0 = np.array([2.0, 0.0]).T
    t_grid = np.linspace(0.0, 1.5, 8)
    true_A = np.array([[-0.1, 2.0], [-2.0, -0.1]])
    true_y = odeint(lambda y, t0, A: np.dot(y**3, A), true_y0, t_grid, args=(true_A,))

    def train_loss(params, iter):
        pred = ode_pred(params, true_y0, t_grid)
        return L1_loss(pred, true_y)

    params = init_random_params(0.3, [2, 6, 2], rs=npr.RandomState(8))
    trained = adam(grad(train_loss), params, step_size=0.02, num_iters=5)
    assert train_loss(trained, 0) < train_loss(params, 0)

    rs = npr.RandomState(9)
    rows = cols = 5
    init_smoke, target = rs.rand(rows, cols), rs.rand(rows, cols)

    def objective(params):
        init_vx = np.reshape(params[: (rows * cols)], (rows, cols))
        init_vy = np.reshape(params[(rows * cols) :], (rows, cols))
        final_smoke = simulate(init_vx, init_vy, init_smoke, 3)
        return np.mean((target - final_smoke) ** 2)

    p0 = 0.3 * rs.randn(2 * rows * cols)
    value, g = value_and_grad(objective)(p0)
    close(value, objective(p0))
    # central differences that stay inside one interpolation cell
    close(g, fd_jacobian(objective, (p0,), eps=1e-6), {"rtol": 1e-6, "atol": 1e-9})
    result = minimize(value_and_grad(objective), p0, jac=True, method="CG", options={"maxiter": 3})
    assert result.fun < value


# ======================================================================================
# 12. convnet.py: autograd's tensor convolution (axes=, dot_axes=), a WeightsParser over
#     one flat parameter vector, layer objects, max pooling by reshape
# ======================================================================================


class WeightsParser:
    """A helper class to index into a parameter vector."""

    def __init__(self):
        self.idxs_and_shapes = {}
        self.N = 0

    def add_weights(self, name, shape):
        start = self.N
        self.N += np.prod(shape)
        self.idxs_and_shapes[name] = (slice(start, self.N), shape)

    def get(self, vect, name):
        idxs, shape = self.idxs_and_shapes[name]
        return np.reshape(vect[idxs], shape)


def convnet_logsumexp(X, axis, keepdims=False):
    max_X = np.max(X)
    return max_X + np.log(np.sum(np.exp(X - max_X), axis=axis, keepdims=keepdims))


def make_convnet_funs(input_shape, layer_specs, L2_reg):
    parser = WeightsParser()
    cur_shape = input_shape
    for layer in layer_specs:
        N_weights, cur_shape = layer.build_weights_dict(cur_shape)
        parser.add_weights(layer, (N_weights,))

    def predictions(W_vect, inputs):
        cur_units = inputs
        for layer in layer_specs:
            cur_weights = parser.get(W_vect, layer)
            cur_units = layer.forward_pass(cur_units, cur_weights)
        return cur_units

    def loss(W_vect, X, T):
        log_prior = -L2_reg * np.dot(W_vect, W_vect)
        log_lik = np.sum(predictions(W_vect, X) * T)
        return -log_prior - log_lik

    return parser.N, predictions, loss


class conv_layer:  # noqa: N801 (convnet.py's name)
    def __init__(self, kernel_shape, num_filters):
        self.kernel_shape = kernel_shape
        self.num_filters = num_filters

    def forward_pass(self, inputs, param_vector):
        params = self.parser.get(param_vector, "params")
        biases = self.parser.get(param_vector, "biases")
        conv = convolve(inputs, params, axes=([2, 3], [2, 3]), dot_axes=([1], [0]), mode="valid")
        return conv + biases

    def build_weights_dict(self, input_shape):
        self.parser = WeightsParser()
        self.parser.add_weights("params", (input_shape[0], self.num_filters) + self.kernel_shape)
        self.parser.add_weights("biases", (1, self.num_filters, 1, 1))
        output_shape = (self.num_filters,) + self.conv_output_shape(
            input_shape[1:], self.kernel_shape
        )
        return self.parser.N, output_shape

    def conv_output_shape(self, A, B):
        return (A[0] - B[0] + 1, A[1] - B[1] + 1)


class maxpool_layer:  # noqa: N801
    def __init__(self, pool_shape):
        self.pool_shape = pool_shape

    def build_weights_dict(self, input_shape):
        output_shape = list(input_shape)
        for i in [0, 1]:
            assert input_shape[i + 1] % self.pool_shape[i] == 0
            output_shape[i + 1] = input_shape[i + 1] / self.pool_shape[i]
        return 0, output_shape

    def forward_pass(self, inputs, param_vector):
        new_shape = inputs.shape[:2]
        for i in [0, 1]:
            pool_width = self.pool_shape[i]
            img_width = inputs.shape[i + 2]
            new_shape += (img_width // pool_width, pool_width)
        result = inputs.reshape(new_shape)
        return np.max(np.max(result, axis=3), axis=4)


class full_layer:  # noqa: N801
    def __init__(self, size):
        self.size = size

    def build_weights_dict(self, input_shape):
        input_size = np.prod(input_shape, dtype=int)
        self.parser = WeightsParser()
        self.parser.add_weights("params", (input_size, self.size))
        self.parser.add_weights("biases", (self.size,))
        return self.parser.N, (self.size,)

    def forward_pass(self, inputs, param_vector):
        params = self.parser.get(param_vector, "params")
        biases = self.parser.get(param_vector, "biases")
        if inputs.ndim > 2:
            inputs = inputs.reshape((inputs.shape[0], np.prod(inputs.shape[1:])))
        return self.nonlinearity(np.dot(inputs[:, :], params) + biases)


class tanh_layer(full_layer):  # noqa: N801
    def nonlinearity(self, x):
        return np.tanh(x)


class softmax_layer(full_layer):  # noqa: N801
    def nonlinearity(self, x):
        return x - convnet_logsumexp(x, axis=1, keepdims=True)


def test_autograd_convnet():
    layer_specs = [conv_layer((3, 3), 2), maxpool_layer((2, 2)), tanh_layer(3), softmax_layer(2)]
    N_weights, pred_fun, loss_fun = make_convnet_funs((1, 6, 6), layer_specs, 1.0)
    rs = npr.RandomState(10)
    W = rs.randn(N_weights) * 0.3
    images = rs.rand(3, 1, 6, 6)
    one_hot = lambda x, K: np.array(x[:, None] == np.arange(K)[None, :], dtype=int)  # noqa: E731
    labels = one_hot(np.array([0, 1, 1]), 2)
    assert pred_fun(W, images).shape == (3, 2)
    check_fd_grad(loss_fun, (W, images, labels))
    per_example = lambda w, x, t: loss_fun(w, x[None], t[None])  # noqa: E731
    check_vmap(per_example, (W, images, labels), in_dims=(None, 0, 0))
    check_jit(grad(loss_fun), (W, images, labels), (W + 0.05, images, labels))
    # the training loop's momentum step, W -= learning_rate * cur_dir, on plain arrays
    cur_dir = np.zeros(N_weights)
    before = loss_fun(W, images, labels)
    for _ in range(5):
        cur_dir = 0.9 * cur_dir + 0.1 * grad(loss_fun)(W, images, labels)
        W -= 0.05 * cur_dir
    assert loss_fun(W, images, labels) < before


# ======================================================================================
# 13. define_gradient.py (autograd.extend's primitive/defvjp), logistic_regression.py
#     (check_grads' curried form, boolean targets, weights -= ...), autograd's other
#     operators, and mixture_variational_inference.py (np.random.choice in a sampler)
# ======================================================================================


@primitive
def lse_primitive(x):
    """Numerically stable log(sum(exp(x))), also defined in scipy.special"""
    max_x = np.max(x)
    return max_x + np.log(np.sum(np.exp(x - max_x)))


def logsumexp_vjp(ans, x):
    x_shape = x.shape
    return lambda g: np.full(x_shape, g) * np.exp(x - np.full(x_shape, ans))


defvjp(lse_primitive, logsumexp_vjp)


def example_func(y):
    z = y**2
    lse = lse_primitive(z)
    return np.sum(lse)


def logistic_predictions(weights, inputs):
    return 0.5 * (np.tanh(np.dot(inputs, weights)) + 1)


def test_autograd_define_gradient_and_logistic_regression():
    y = npr.RandomState(11).randn(6)
    z = y**2
    softmax = np.exp(z) / np.sum(np.exp(z))
    close(grad(example_func)(y), 2 * y * softmax)
    check_grads(example_func, modes=["rev"])(y)
    # the rule is written with NumPy: reverse over reverse, vmap and jit see through it
    want = 2 * np.diag(softmax) + 4 * np.outer(y, y) * (
        np.diag(softmax) - np.outer(softmax, softmax)
    )
    close(ft.jacrev(ft.jacrev(example_func))(y), want)
    check_vmap(grad(example_func), (y + np.arange(3.0)[:, None],), in_dims=(0,))
    check_jit(grad(example_func), (y,), (y + 0.5,))
    # only a VJP was given: forward mode says so (autograd's hessian is reverse-over-
    # reverse; jacrev(jacrev(...)) above is its counterpart)
    with pytest.raises(TypeError, match="forward-mode"):
        ft.jacfwd(example_func)(y)

    inputs = np.array(
        [[0.52, 1.12, 0.77], [0.88, -1.08, 0.15], [0.52, 0.06, -1.30], [0.74, -2.49, 1.39]]
    )
    targets = np.array([True, True, False, True])

    def training_loss(weights):
        preds = logistic_predictions(weights, inputs)
        label_probabilities = preds * targets + (1 - preds) * (1 - targets)
        return -np.sum(np.log(label_probabilities))

    training_gradient_fun = grad(training_loss)
    weights = np.array([0.0, 0.0, 0.0])
    check_grads(training_loss, modes=["rev"])(weights)
    check_fd_grad(training_loss, (weights + 0.3,))
    initial = training_loss(weights)
    for _ in range(100):
        weights -= training_gradient_fun(weights) * 0.01
    assert training_loss(weights) < initial


def test_autograd_operators():
    x = np.array([0.3, -1.2, 2.0])
    f = lambda x: np.sin(x) * x  # noqa: E731
    df = np.cos(x) * x + np.sin(x)
    vjp, ans = make_vjp(f)(x)
    close(ans, f(x))
    close(vjp(np.array([1.0, 2.0, 3.0])), df * [1.0, 2.0, 3.0])
    value, tangent = make_jvp(f)(x)(np.array([1.0, 0.0, -1.0]))
    close(value, f(x))
    close(tangent, df * [1.0, 0.0, -1.0])
    close(deriv(f)(x), df)
    outer = lambda v: np.outer(v, v**2)  # noqa: E731
    tensor = np.array([1.0, -1.0, 0.5])
    close(tensor_jacobian_product(outer)(x, tensor), np.tensordot(tensor, ft.jacrev(outer)(x), 1))
    close(vector_jacobian_product(f)(x, np.ones(3)), df)
    g, aux = grad_and_aux(lambda w: (np.sum(w**2), w[0]))(x)
    close(g, 2 * x)
    close(aux, x[0])
    close(holomorphic_grad(lambda z: z**3)(1.0 + 2.0j), 3 * (1.0 + 2.0j) ** 2)
    close(grad_named(lambda w, scale: scale * np.sum(w**2), "scale")(x, 2.0), np.sum(x**2))
    A = np.array([[1.0, 2.0, 0.0], [0.0, 3.0, 1.0]])
    net = lambda w: np.tanh(A @ w)  # noqa: E731
    J = (1 - np.tanh(A @ x) ** 2)[:, None] * A
    v = np.array([0.5, -1.0, 2.0])
    close(make_ggnvp(net)(x)(v), J.T @ (J @ v))  # g = 1/2 |y|^2: H = I


def diag_gaussian_log_density_mixture(x, mu, log_std):
    return np.sum(norm.logpdf(x, mu, np.exp(log_std)), axis=-1)


def unpack_mixture_gaussian_params(params):
    D = np.shape(params)[0] // 2
    mean, log_std = params[:D], params[D:]
    return mean, log_std


def variational_log_density_gaussian(params, x):
    mean, log_std = unpack_mixture_gaussian_params(params)
    return diag_gaussian_log_density_mixture(x, mean, log_std)


def sample_diag_gaussian(params, num_samples, rs):
    mean, log_std = unpack_mixture_gaussian_params(params)
    D = np.shape(mean)[0]
    return rs.randn(num_samples, D) * np.exp(log_std) + mean


def build_mog_bbsvi(logprob, num_samples, k=10, rs=None):
    rs = rs if rs is not None else npr.RandomState(0)

    def unpack_mixture_params(mixture_params):
        log_weights = log_normalize(mixture_params[:k])
        var_params = np.reshape(mixture_params[k:], (k, -1))
        return log_weights, var_params

    def sample(var_mixture_params, num_samples, rs):
        log_weights, var_params = unpack_mixture_params(var_mixture_params)
        samples = np.concatenate(
            [
                sample_diag_gaussian(params_k, num_samples, rs)[:, np.newaxis, :]
                for params_k in var_params
            ],
            axis=1,
        )
        ixs = np.random.choice(k, size=num_samples, p=np.exp(log_weights))
        return np.array([samples[i, ix, :] for i, ix in enumerate(ixs)])

    def mixture_log_density(var_mixture_params, x):
        log_weights, var_params = unpack_mixture_params(var_mixture_params)
        component_log_densities = np.vstack(
            [variational_log_density_gaussian(params_k, x) for params_k in var_params]
        ).T
        return logsumexp(component_log_densities + log_weights, axis=1, keepdims=False)

    def mixture_elbo(var_mixture_params, t):
        def mixture_lower_bound(params):
            samples = sample_diag_gaussian(params, num_samples, rs)
            log_qs = mixture_log_density(var_mixture_params, samples)
            log_ps = logprob(samples, t)
            log_ps = np.reshape(log_ps, (num_samples, -1))
            log_qs = np.reshape(log_qs, (num_samples, -1))
            return np.mean(log_ps - log_qs)

        log_weights, var_params = unpack_mixture_params(var_mixture_params)
        component_elbos = np.stack([mixture_lower_bound(params_k) for params_k in var_params])
        return np.sum(component_elbos * np.exp(log_weights))

    return mixture_elbo, mixture_log_density, sample


def test_autograd_mixture_variational_inference():
    def log_density(x, t):
        mu, log_sigma = x[:, 0], x[:, 1]
        sigma_density = norm.logpdf(log_sigma, 0, 1.35)
        mu_density = norm.logpdf(mu, -0.5, np.exp(log_sigma))
        sigma_density2 = norm.logpdf(log_sigma, 0.1, 1.35)
        mu_density2 = norm.logpdf(mu, 0.5, np.exp(log_sigma))
        return np.logaddexp(sigma_density + mu_density, sigma_density2 + mu_density2)

    k = 3
    rs = npr.RandomState(12)
    params = np.concatenate([np.ones(k), np.concatenate([rs.randn(4) * 0.3 for _ in range(k)])])
    fresh = lambda p: -build_mog_bbsvi(log_density, 6, k=k)[0](p, 0)  # noqa: E731
    objective = lambda p, t: -build_mog_bbsvi(log_density, 6, k=k)[0](p, t)  # noqa: E731
    close(grad(objective)(params, 0), fd_jacobian(fresh, (params,)), FD_TOL)
    _, mixture_log_density, sample = build_mog_bbsvi(log_density, 6, k=k)
    np.random.seed(0)
    draws = sample(params, 5, rs)
    assert draws.shape == (5, 2)
    check_fd_grad(lambda p: np.sum(mixture_log_density(p, draws)), (params,))
    trained = adam(grad(objective), params, step_size=0.05, num_iters=10)
    assert objective(trained, 0) < objective(params, 0)


# ======================================================================================
# 14. "Neural networks from scratch" (nnfs): layer objects holding their outputs, a
#     categorical cross-entropy with y_pred[range(samples), y_true], and its hand-written
#     backward pass with dinputs[range(samples), y_true] -= 1
# ======================================================================================


class Layer_Dense:  # noqa: N801 (nnfs's names)
    def __init__(self, n_inputs, n_neurons, rs):
        self.weights = 0.5 * rs.randn(n_inputs, n_neurons)
        self.biases = np.zeros((1, n_neurons))

    def forward(self, inputs):
        self.inputs = inputs
        self.output = np.dot(inputs, self.weights) + self.biases


class Activation_ReLU:  # noqa: N801
    def forward(self, inputs):
        self.inputs = inputs
        self.output = np.maximum(0, inputs)


class Activation_Softmax:  # noqa: N801
    def forward(self, inputs):
        exp_values = np.exp(inputs - np.max(inputs, axis=1, keepdims=True))
        probabilities = exp_values / np.sum(exp_values, axis=1, keepdims=True)
        self.output = probabilities


class Loss_CategoricalCrossentropy:  # noqa: N801
    def calculate(self, output, y):
        sample_losses = self.forward(output, y)
        data_loss = np.mean(sample_losses)
        return data_loss

    def forward(self, y_pred, y_true):
        samples = len(y_pred)
        y_pred_clipped = np.clip(y_pred, 1e-7, 1 - 1e-7)
        if len(y_true.shape) == 1:
            correct_confidences = y_pred_clipped[range(samples), y_true]
        elif len(y_true.shape) == 2:
            correct_confidences = np.sum(y_pred_clipped * y_true, axis=1)
        negative_log_likelihoods = -np.log(correct_confidences)
        return negative_log_likelihoods


def softmax_crossentropy_backward(dvalues, y_true):
    samples = len(dvalues)
    dinputs = dvalues.copy()
    dinputs[range(samples), y_true] -= 1
    dinputs = dinputs / samples
    return dinputs


def test_nnfs_network():
    rs = npr.RandomState(13)
    X, y = rs.randn(6, 2), np.array([0, 1, 2, 0, 1, 2])
    dense1, activation1 = Layer_Dense(2, 4, rs), Activation_ReLU()
    dense2, activation2 = Layer_Dense(4, 3, rs), Activation_Softmax()
    loss_function = Loss_CategoricalCrossentropy()

    def loss(weights1, weights2, X=X, y=y):
        dense1.weights, dense2.weights = weights1, weights2
        dense1.forward(X)
        activation1.forward(dense1.output)
        dense2.forward(activation1.output)
        activation2.forward(dense2.output)
        return loss_function.calculate(activation2.output, y)

    W1, W2 = dense1.weights.copy(), dense2.weights.copy()
    check_fd_grad(loss, (W1, W2), argnums=1)
    check_fd_grad(loss, (W1, W2), argnums=0)
    close(ft.grad(loss)(W1, W2, X, np.eye(3)[y]), ft.grad(loss)(W1, W2))  # one-hot labels
    check_vmap(loss, (W1 + 0.1 * rs.randn(3, 2, 4), W2), in_dims=(0, None))
    # the layers keep their outputs in attributes (self.output = ...), which the book reads
    # after the call: values stored outside the function, so jit runs it eagerly and the
    # layers hold the call's arrays (NOTE [traced values stored outside under jit])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check_jit(loss, (W1, W2), (W1 + 0.1, W2 - 0.1), replayed=False)
        ft.jit(loss)(W1 - 0.2, W2)
    kept = activation2.output
    loss(W1 - 0.2, W2)
    assert type(kept) is np.ndarray and np.array_equal(kept, activation2.output)
    # the book's combined softmax/cross-entropy backward pass is the derivative
    logits = rs.randn(6, 3)

    def from_logits(z):
        activation2.forward(z)
        return loss_function.calculate(activation2.output, y)

    close(
        ft.grad(from_logits)(logits),
        softmax_crossentropy_backward(
            np.exp(logits) / np.sum(np.exp(logits), axis=1, keepdims=True), y
        ),
    )
    per_sample = lambda z: np.sum(softmax_crossentropy_backward(z, y) ** 2)  # noqa: E731
    check_fd_grad(per_sample, (logits,))


# ======================================================================================
# 15. CS231n layers: naive convolution with np.pad and in-place writes, max pooling,
#     batch norm with its running statistics in bn_param, softmax loss with dx
# ======================================================================================


def conv_forward_naive(x, w, b, conv_param):
    stride, pad = conv_param["stride"], conv_param["pad"]
    N, C, H, W = x.shape
    F, _, HH, WW = w.shape
    H_out = 1 + (H + 2 * pad - HH) // stride
    W_out = 1 + (W + 2 * pad - WW) // stride
    out = np.zeros((N, F, H_out, W_out))
    x_pad = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)), mode="constant")
    for n in range(N):
        for f in range(F):
            for i in range(H_out):
                for j in range(W_out):
                    hs, ws = i * stride, j * stride
                    window = x_pad[n, :, hs : hs + HH, ws : ws + WW]
                    out[n, f, i, j] = np.sum(window * w[f]) + b[f]
    cache = (x, w, b, conv_param)
    return out, cache


def max_pool_forward_naive(x, pool_param):
    N, C, H, W = x.shape
    ph, pw, s = pool_param["pool_height"], pool_param["pool_width"], pool_param["stride"]
    H_out, W_out = 1 + (H - ph) // s, 1 + (W - pw) // s
    out = np.zeros((N, C, H_out, W_out))
    for i in range(H_out):
        for j in range(W_out):
            out[:, :, i, j] = np.max(x[:, :, i * s : i * s + ph, j * s : j * s + pw], axis=(2, 3))
    return out, (x, pool_param)


def batchnorm_forward(x, gamma, beta, bn_param):
    mode = bn_param["mode"]
    eps = bn_param.get("eps", 1e-5)
    momentum = bn_param.get("momentum", 0.9)
    N, D = x.shape
    running_mean = bn_param.get("running_mean", np.zeros(D, dtype=x.dtype))
    running_var = bn_param.get("running_var", np.zeros(D, dtype=x.dtype))
    out, cache = None, None
    if mode == "train":
        sample_mean = x.mean(axis=0)
        sample_var = x.var(axis=0)
        x_hat = (x - sample_mean) / np.sqrt(sample_var + eps)
        out = gamma * x_hat + beta
        cache = (x, x_hat, sample_mean, sample_var, gamma, beta, eps)
        running_mean = momentum * running_mean + (1 - momentum) * sample_mean
        running_var = momentum * running_var + (1 - momentum) * sample_var
    elif mode == "test":
        out = gamma * (x - running_mean) / np.sqrt(running_var + eps) + beta
    bn_param["running_mean"] = running_mean
    bn_param["running_var"] = running_var
    return out, cache


def softmax_loss(x, y):
    shifted_logits = x - np.max(x, axis=1, keepdims=True)
    Z = np.sum(np.exp(shifted_logits), axis=1, keepdims=True)
    log_probs = shifted_logits - np.log(Z)
    probs = np.exp(log_probs)
    N = x.shape[0]
    loss = -np.sum(log_probs[np.arange(N), y]) / N
    dx = probs.copy()
    dx[np.arange(N), y] -= 1
    dx /= N
    return loss, dx


def test_cs231n_layers():
    rs = npr.RandomState(6)
    x, w, b = rs.randn(2, 2, 5, 5), rs.randn(3, 2, 3, 3), rs.randn(3)
    y = np.array([0, 2])

    def loss(w, x):
        out, _ = conv_forward_naive(x, w, b, {"stride": 2, "pad": 1})
        pooled, _ = max_pool_forward_naive(
            np.maximum(out, 0), {"pool_height": 2, "pool_width": 2, "stride": 1}
        )
        h = pooled.reshape(pooled.shape[0], -1)
        bn_param = {"mode": "train"}
        h, _ = batchnorm_forward(
            h, np.linspace(0.5, 1.5, h.shape[1]), np.zeros(h.shape[1]), bn_param
        )
        return softmax_loss(h[:, :3], y)[0]

    check_fd_grad(loss, (w, x))
    check_vmap(loss, (w + 0.1 * rs.randn(2, 3, 2, 3, 3), x), in_dims=(0, None))
    check_jit(loss, (w, x), (w + 0.05, x))
    # softmax_loss's hand-written dx against the derivative
    scores = rs.randn(4, 5)
    labels = np.array([1, 0, 4, 4])
    close(ft.grad(lambda s: softmax_loss(s, labels)[0])(scores), softmax_loss(scores, labels)[1])

    # The running statistics written into the caller's bn_param during grad do not depend
    # on gamma: buffers of the finished grad, they read as NumPy's own running statistics
    # afterwards (NOTE [buffers after their transform]).
    bn_param = {"mode": "train"}
    g = grad(lambda gamma: np.sum(batchnorm_forward(scores, gamma, 0.0, bn_param)[0] ** 3))
    g(np.ones(5))
    eager_param = {"mode": "train"}
    batchnorm_forward(scores, np.ones(5), 0.0, eager_param)
    bn_param["mode"] = eager_param["mode"] = "test"
    close(
        batchnorm_forward(scores, 1.0, 0.0, bn_param)[0],
        batchnorm_forward(scores, 1.0, 0.0, eager_param)[0],
    )


# ======================================================================================
# 16. The same programs with autograd.numpy mapped to ftransforms.numpy
# ======================================================================================


def lennard_jones_energy(positions):
    # pairwise energies over the upper triangle (molecular-dynamics course style)
    i, j = np.triu_indices(len(positions), k=1)
    r = np.linalg.norm(positions[i] - positions[j], axis=1)
    return np.sum(4.0 * ((1.0 / r) ** 12 - (1.0 / r) ** 6))


def bond_angles(positions):
    # NumPy 2's names for the inverse trigonometric functions
    u, v = positions[:-2] - positions[1:-1], positions[2:] - positions[1:-1]
    cos = np.sum(u * v, axis=1) / (np.linalg.norm(u, axis=1) * np.linalg.norm(v, axis=1))
    heading = np.atan2(u[:, 1], u[:, 0])
    return np.sum(np.acos(np.clip(cos, -1.0, 1.0)) ** 2) + np.sum(np.pow(np.sin(heading), 2))


def windowed_power(signal):
    with np.errstate(divide="ignore"):
        tapered = signal * np.hanning(len(signal))
    return np.sum(np.abs(np.fft.rfft(tapered)) ** 2 * np.arange(len(signal) // 2 + 1))


def rolling_window(a, window):
    # the SciPy cookbook's rolling window: a strided view, no copy
    shape = a.shape[:-1] + (a.shape[-1] - window + 1, window)
    strides = a.strides + (a.strides[-1],)
    return np.lib.stride_tricks.as_strided(a, shape=shape, strides=strides)


def moving_average_loss(y, target):
    return np.sum((np.mean(rolling_window(y, 3), -1) - target) ** 2)


def test_cookbook_rolling_window_as_strided():
    rs = npr.RandomState(15)
    y, target = rs.randn(2, 9), rs.randn(2, 7)
    close(rolling_window(y, 3)[1, 2], y[1, 2:5])
    check_fd_grad(moving_average_loss, (y, target))
    check_vmap(moving_average_loss, (y + rs.randn(3, 2, 9), target), in_dims=(0, None))
    check_jit(moving_average_loss, (y, target), (y + 0.1, target))
    close(ft.jacfwd(lambda y: rolling_window(y, 3))(y)[0, 1, 2, 0, 3], 1.0)
    y32 = y.astype(np.float32)  # element strides of 4 bytes: the gather, not NumPy's bytes
    close(
        ft.grad(moving_average_loss)(y32, target),
        ft.grad(moving_average_loss)(y, target),
        {"rtol": 1e-5, "atol": 1e-6},
    )

    # a write through overlapping windows reaches y, as NumPy's does (round 12: it raised)
    def write(y):
        rolling_window(y, 3)[0, 0, 0] = 1.0
        return np.sum(y)

    expected = np.ones_like(y)
    expected[0, 0] = 0.0  # y[0, 0] was overwritten
    close(ft.grad(write)(y.copy()), expected)
    # NumPy's own as_strided (bound before the transform) forwards to the gather while a
    # transform is active (round 13b): float32's 4-byte strides too (it raised before)
    from numpy.lib.stride_tricks import as_strided

    def bound_early(y):
        return np.sum(as_strided(y, (3, 3), (y.strides[-1],) * 2) ** 2)

    close(ft.grad(bound_early)(y[0]), fd_jacobian(bound_early, (y[0],)), FD_TOL)
    close(
        ft.grad(bound_early)(y32[0]),
        ft.grad(bound_early)(y[0]),
        {"rtol": 1e-5, "atol": 1e-6},
    )


def test_numpy_names_under_ftransforms_numpy(monkeypatch):
    rs = npr.RandomState(14)
    zigzag = np.stack([1.1 * np.arange(5.0), 0.8 * (np.arange(5) % 2)], axis=1)
    positions = zigzag + 0.05 * rs.randn(5, 2)
    signal = rs.randn(16)
    expected = [
        f(x)
        for f, x in (
            (lennard_jones_energy, positions),
            (bond_angles, positions),
            (windowed_power, signal),
        )
    ]
    import ftransforms.numpy as fnp

    monkeypatch.setattr(sys.modules[__name__], "np", fnp)
    for f, x, want in zip(
        (lennard_jones_energy, bond_angles, windowed_power),
        (positions, positions, signal),
        expected,
    ):
        close(f(x), want)
        check_fd_grad(f, (x,))
        check_vmap(f, (x + 0.01 * rs.randn(3, *x.shape),), in_dims=(0,))
        check_jit(f, (x,), (x + 0.01,))


@pytest.mark.parametrize(
    "program", [test_autograd_convnet, test_autograd_gmm, test_autograd_neural_net]
)
def test_with_ftransforms_numpy(program, monkeypatch):
    # `import ftransforms.numpy as np` in place of `import autograd.numpy as np`: the
    # programs above (np.prod(shape, dtype=int), np.random, ...) run on the explicit
    # namespace too, against the same oracles
    import ftransforms.numpy as fnp

    monkeypatch.setattr(sys.modules[__name__], "np", fnp)
    program()
