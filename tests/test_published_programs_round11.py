"""Published programs, round eleven: textbook, course and blog-post NumPy programs run
unchanged under the transforms (programs of kinds earlier rounds did not have).

Each program lives in its own module under ``tests/published11/`` with its authors'
import lines, written in their style: per-timestep buffers filled in a loop
(``h[:, t, :] = prev_h``), ``np.lib.stride_tricks.as_strided`` / ``sliding_window_view``
windows, ``scipy.linalg`` Cholesky solves, damping updated in Python ``if``/``while``,
stiffness matrices assembled with ``K[e:e+2, e:e+2] += ke`` and ``np.ix_``, ``scipy.stats.norm``,
``dscores[np.arange(N), y] -= 1`` and ``np.add.at``, ``np.argsort`` neighbours, masks from
``np.triu`` and ``np.where``.

Programs: an LSTM and a GRU forward with a temporal softmax loss; a CNN forward with
``as_strided``/``sliding_window_view``/im2col convolutions and strided max pooling;
Gaussian-process regression (R&W Algorithm 2.1, ``cho_solve``, ``cdist`` ARD and Matern
kernels); Gauss-Newton and Levenberg-Marquardt; 1-D finite elements (Poisson, a bar's
compliance, an Euler-Bernoulli beam); Black-Scholes prices, Greeks, implied volatility and a
CRR tree; softmax regression (naive, vectorised, ``np.add.at``) and k-nearest neighbours;
masked multi-head attention in a transformer block.

Oracles: float64 central differences, Python loops for ``vmap``, closed forms (the
Black-Scholes Greeks, a bar's compliance ``sum 1/(n k)``, the beam's ``qL^4/8EI``), the
programs' own hand-written gradients, a naive loop convolution, and eager runs for ``jit``.

What this round found and fixed (each has a test here that fails without it):

* ``rng.multivariate_normal(m_N, S_N)`` with a traced covariance (posterior weight
  samples of Bayesian linear regression, PRML fig. 3.8) raised ``TracerConversionError``
  in NumPy's code, and ``np.random.RandomState(s).multivariate_normal`` /
  ``np.random.multivariate_normal`` with a traced mean raised a cryptic ``UFuncTypeError``
  (``x += mean`` into NumPy's plain array): the standard normals are drawn as NumPy draws
  them and mapped by NumPy's own factor of the covariance (SVD, ``eigh`` or Cholesky, as
  ``method=`` says; ``RandomState``'s older SVD form), bit for bit NumPy's values
  (NOTE [draws with traced parameters]);
* a store into a plain array with a traced integer index, the CS231n softmax gradient's
  ``dscores[np.arange(N), y] -= 1`` (``dscores`` plain when the weights are not traced:
  ``vmap`` over labels; or an object array under ``jit``), raised ``InPlaceError`` ("writes
  a traced value") though a read ``d[np.arange(N), y]`` worked: the index is now converted
  to its value as a read's is (``jit`` records reading data, rows that disagree split a
  ``vmap``), and an index expression may call ``np.arange``/``range``/``len``/``np.ix_``
  (evaluated again to recognise the index, and for the private-array write of a traced
  value: ``d[np.arange(N), y] = w``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ftransforms as ft
from tests.program_oracles import (
    FD_TOL,
    check_fd_grad,
    check_hessian,
    check_jit,
    check_vmap,
    close,
    fd_jacobian,
)
from tests.published11 import gp_cholesky, softmax_knn


@pytest.fixture(autouse=True)
def _quiet_splits():
    # rows taking other Python paths split a vmap batch, with a PerformanceWarning
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ft.errors.PerformanceWarning)
        yield


# ======================================================================================
# Softmax regression and k-nearest neighbours
# ======================================================================================


def test_softmax_gradient_scatter_with_traced_labels():
    # the regression of the first fix: dscores[np.arange(N), y] -= 1 with traced y
    m = softmax_knn
    X, y = m.make_data()
    W = 0.1 * np.random.default_rng(1).standard_normal((3, 4))
    labels = np.stack([y, y[::-1], (y + 1) % 4])
    fn = m.softmax_loss_vectorized
    check_vmap(lambda yy: fn(W, X, yy, 1e-2), (labels,), (0,))
    check_jit(lambda w, yy: fn(w, X, yy, 1e-2), (W, y), (2 * W, labels[1]), False)

    A = np.arange(15.0).reshape(5, 3)

    def scatter(w, yy):
        d = A.copy()  # a plain array only d holds
        d[np.arange(5), yy] -= 1
        d[range(len(yy)), yy] += w
        d[yy] = d[yy] * 2.0
        return d * w

    y5 = np.array([0, 1, 2, 1, 0])
    check_vmap(scatter, (2.0, np.stack([y5, y5[::-1], y5 * 0])), (None, 0))
    check_jit(scatter, (np.float64(2.0), y5), (np.float64(3.0), y5[::-1].copy()), False)
    total = lambda w: scatter(w, y5).sum()  # noqa: E731
    close(ft.grad(total)(2.0), fd_jacobian(total, (2.0,)), FD_TOL)


def test_ufunc_at_with_traced_indices_into_a_plain_array():
    # the regression of the second fix: np.add.at(dW.T, y, -X) with traced labels and a
    # plain dW (the weights not traced)
    m = softmax_knn
    X, y = m.make_data()
    W = 0.1 * np.random.default_rng(1).standard_normal((3, 4))
    labels = np.stack([y, y[::-1], (y + 1) % 4])
    fn = m.softmax_loss_add_at
    check_vmap(lambda yy: fn(W, X, yy, 1e-2), (labels,), (0,))
    check_jit(lambda w, yy: fn(w, X, yy, 1e-2), (W, y), (2 * W, labels[1]), False)
    # the vectorised form's gradient is the add.at form's, per label set
    close(
        ft.vmap(lambda yy: fn(W, X, yy, 1e-2)[1])(labels),
        np.stack([m.softmax_loss_vectorized(W, X, yy, 1e-2)[1] for yy in labels]),
    )

    def counts(w, idx):
        c = np.zeros(4)  # (a buffer) and a plain array, written at traced indices
        h = np.arange(4.0) * 0
        np.add.at(h, idx, 1.0)
        np.add.at(c, idx, w)
        return c + h

    idx = np.array([0, 2, 2, 3, 0])
    check_vmap(counts, (1.5, np.stack([idx, idx[::-1] % 2])), (None, 0))
    check_fd_grad(lambda w: counts(w, idx) @ np.arange(1.0, 5.0), (1.5,))


# ======================================================================================
# Gaussian processes and Bayesian linear regression
# ======================================================================================


def test_posterior_weight_samples_with_traced_covariance():
    # the regression of the multivariate_normal fix
    m = gp_cholesky
    rng = np.random.default_rng(0)
    x = np.linspace(-1, 1, 10)
    t = np.sin(2 * x) + 0.1 * rng.standard_normal(10)
    Phi, xp = m.polynomial_features(x), np.linspace(-1, 1, 5)
    curves = lambda a, b: m.blr_sample_curves(xp, Phi, t, a, b)  # noqa: E731
    # NumPy's draws, bit for bit, inside a transform
    np.testing.assert_array_equal(
        ft.vmap(curves, in_dims=(0, None))(np.array([0.5]), 20.0)[0], curves(0.5, 20.0)
    )
    close(ft.jacrev(curves)(0.5, 20.0), fd_jacobian(curves, (0.5, 20.0)), FD_TOL, "alpha")
    close(
        ft.jacfwd(curves, argnums=1)(0.5, 20.0),
        fd_jacobian(curves, (0.5, 20.0), 1, eps=1e-2),
        FD_TOL,
    )
    check_vmap(curves, (np.array([0.1, 0.5, 2.0]), 20.0), (0, None))
    check_jit(curves, (np.float64(0.5), np.float64(20.0)), (np.float64(1.0), np.float64(10.0)))
    legacy = lambda a: m.blr_thompson_legacy(xp, Phi, t, a, 20.0)  # noqa: E731
    close(ft.jacrev(legacy)(0.5), fd_jacobian(legacy, (0.5,)), FD_TOL, "RandomState")
    check_vmap(legacy, (np.array([0.1, 0.5, 2.0]),), (0,))

    C = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 0.5]])
    mean = np.array([0.1, -0.2, 0.3])
    for kw in ({"method": "eigh"}, {"method": "cholesky", "size": (2, 3)}):

        def draw(mu, s, kw=kw):
            return np.random.default_rng(1).multivariate_normal(mu, s * C, **kw)

        np.testing.assert_array_equal(
            ft.vmap(draw, in_dims=(None, 0))(mean, np.array([1.3]))[0], draw(mean, 1.3)
        )
        check_fd_grad(lambda s, draw=draw: draw(mean, s).sum(), (1.3,))

    def global_draw(mu):
        np.random.seed(0)
        return np.random.multivariate_normal(mu, C, size=2)

    close(ft.jacrev(global_draw)(mean), fd_jacobian(global_draw, (mean,)), FD_TOL, "global")
    # NumPy's check of the covariance, NumPy's error
    bad = np.array([[1.0, 2.0], [2.0, 1.0]])
    with pytest.raises(ValueError, match="positive-semidefinite"):
        ft.grad(
            lambda s: (
                np.random.default_rng(0)
                .multivariate_normal(np.zeros(2), s * bad, check_valid="raise")
                .sum()
            )
        )(1.0)
