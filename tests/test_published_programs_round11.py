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
  value: ``d[np.arange(N), y] = w``);
* a traced value added into a plain array through an index holding a list display
  (``K[np.ix_([a, b], [a, b])] += ke * k_e``, ``d[[0, 2, 3]] = w``: a grounded spring
  network's stiffness from ``np.diag([...])``) raised ``InPlaceError``: a list of plain
  integers in the index is evaluated again like the rest of it;
* a traced index the store cannot evaluate again (``d[y[:2]] = 1.0``) still raises, but
  the message said only "writes a traced value": for an integer or boolean tracer it now
  names the index case and the way out (``i = y[:2]; d[i] = 1.0``, which works).
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
from tests.published11 import (
    attention_mask,
    black_scholes,
    cnn_stride_tricks,
    fem_1d,
    gp_cholesky,
    hamiltonian,
    image_filters,
    levenberg_marquardt,
    lstm_gru,
    samplers,
    softmax_knn,
    vae_numpy,
)


def central(f, x, eps=1e-6):
    """Second-order central difference of the scalar function ``f`` at the scalar ``x``."""
    return (f(x + eps) - f(x - eps)) / (2 * eps)


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


def test_gaussian_process_regression():
    m = gp_cholesky
    X, y = m.make_data()
    Xs = np.linspace(-3, 3, 4)[:, None]
    theta = np.array([1.0, 1.2, 0.3])
    # the naive (det, inv) and the stable (Cholesky, triangular solves) likelihoods agree,
    # and so do their gradients and Hessians
    stable, naive = m.nll_fn(X, y), m.nll_fn(X, y, naive=True)
    g = check_fd_grad(stable, (theta,))
    close(ft.grad(naive)(theta), g, msg="naive")
    check_hessian(stable, (theta,))
    # Algorithm 2.1 in the log-hyperparameters, the test inputs and the targets
    lt = np.log(theta)
    alg = lambda lt_: m.predict_alg21(Xs, X, y, lt_)  # noqa: E731
    flat = lambda lt_: np.concatenate([np.atleast_1d(v) for v in alg(lt_)])  # noqa: E731
    J = ft.jacfwd(alg)(lt)
    close(np.concatenate([J[0], J[1], J[2][None]]), fd_jacobian(flat, (lt,)), FD_TOL, "alg 2.1")
    close(ft.jacrev(alg)(lt), J, msg="jacrev")
    close(m.predict_alg21(Xs, X, y, lt)[2], -stable(theta), msg="log marginal")
    check_vmap(lambda xs: m.predict_alg21(xs[None], X, y, lt), (Xs,), (0,))
    check_vmap(lambda yy: m.predict_alg21(Xs, X, yy, lt), (np.stack([y, 2 * y, -y]),), (0,))
    # ARD kernel by cdist, cho_factor/cho_solve, the diagonal written in place
    X2, y2 = m.make_data(8, 2, seed=1)
    lp = np.array([0.1, -0.2, 0.3, np.log(0.2)])
    check_fd_grad(m.ard_log_marginal, (lp, X2, y2), argnums=1)
    check_vmap(ft.grad(m.ard_log_marginal), (np.stack([lp, lp + 0.1]), X2, y2), (0, None, None))
    check_jit(m.ard_log_marginal, (lp, X2, y2), (lp + 0.1, X2 * 1.1, y2))
    # the Matern-5/2 posterior mean in the test points (cdist's square root away from 0)
    X2s = np.array([[0.1, 0.2], [1.0, -1.0], [0.5, 0.5]])
    mean = lambda xs: m.matern_mean(xs, X2, y2, 1.3, 1.0, 0.1)  # noqa: E731
    close(ft.jacrev(mean)(X2s), fd_jacobian(mean, (X2s,)), FD_TOL, "matern")
    close(ft.jacfwd(mean)(X2s), ft.jacrev(mean)(X2s), msg="matern jacfwd")


# ======================================================================================
# Softmax regression and kNN (continued): the naive loops, the gradient check, training
# ======================================================================================


def test_softmax_forms_agree_and_knn():
    m = softmax_knn
    X, y = m.make_data(n=8)
    W = 0.1 * np.random.default_rng(1).standard_normal((3, 4))
    loss, dW = m.softmax_loss_naive(W, X, y, 1e-2)
    for fn in (m.softmax_loss_naive, m.softmax_loss_vectorized, m.softmax_loss_add_at):
        # the hand-written gradient is the gradient of the loss; its Jacobian the Hessian
        close(ft.grad(lambda w, fn=fn: fn(w, X, y, 1e-2)[0])(W), dW, msg=fn.__name__)
        H = ft.hessian(lambda w, fn=fn: fn(w, X, y, 1e-2)[0])(W)
        close(H, ft.jacfwd(lambda w, fn=fn: fn(w, X, y, 1e-2)[1])(W), msg=fn.__name__)
        check_vmap(lambda xi, yi, fn=fn: fn(W, xi[None], yi[None], 1e-2), (X, y), (0, 0))
    # the course's sparse gradient check, with ft.grad as the analytic gradient
    errs = m.grad_check_sparse(
        lambda w: m.softmax_loss_vectorized(w, X, y, 1e-2)[0], W.copy(), dW, num_checks=3
    )
    assert errs.max() < 1e-7
    # the loss after mini-batch SGD (rng.choice batches, W -= lr * grad) in the rate
    final = lambda lr: m.softmax_loss_vectorized(
        m.train_softmax(W.copy(), X, y, lr, num_iters=8)[0], X, y, 0.0
    )[0]  # noqa: E731
    close(ft.grad(final)(0.5), central(final, 0.5), FD_TOL, "training")
    # kNN: the three distance matrices, neighbours by argsort, votes by bincount
    Xt = np.random.default_rng(5).standard_normal((4, 3))
    D = m.dists_two_loops(Xt, X)
    J = ft.jacrev(m.dists_two_loops)(Xt, X)
    for fn in (m.dists_one_loop, m.dists_no_loops):
        close(ft.jacfwd(fn)(Xt, X), J, msg=fn.__name__)
    check_vmap(lambda d: m.knn_predict_labels(d[None], y)[0], (D,), (0,))
    yr = X[:, 0] ** 2 + np.sin(X[:, 1])
    check_fd_grad(lambda q: m.knn_regress_weighted(q, X, yr), (Xt[0],))
    check_vmap(ft.grad(lambda q: m.knn_regress_weighted(q, X, yr)), (Xt,), (0,))
    check_jit(lambda q, v: m.knn_regress(q, X, v), (Xt, yr), (Xt[::-1].copy(), 2 * yr))
    check_hessian(lambda q: m.nadaraya_watson(q[None], X, yr, 0.7)[0], (Xt[0],))


# ======================================================================================
# LSTM and GRU with per-timestep buffers
# ======================================================================================


def test_lstm_and_gru():
    m = lstm_gru
    x, y, mask = m.make_data(N=2, T=4)
    p = m.init_lstm(4, 3, 6)
    g = ft.grad(m.lstm_loss)(p, x, y, mask)
    for k in ("Wx", "Wh", "b"):
        fk = lambda v, k=k: m.lstm_loss({**p, k: v}, x, y, mask)  # noqa: E731
        close(g[k], fd_jacobian(fk, (p[k],)), FD_TOL, k)
    # one sequence at a time is the batch's row
    fw = lambda xx: m.lstm_forward(xx[None], np.zeros((1, 3)), p["Wx"], p["Wh"], p["b"])[0]  # noqa: E731
    check_vmap(fw, (x,), (0,))
    check_jit(m.lstm_loss, (p, x, y, mask), (m.init_lstm(4, 3, 6, seed=2), 2 * x, y, mask))
    rng = np.random.default_rng(3)
    Ws = [rng.standard_normal((4, 3) if i % 2 == 0 else (3, 3)) for i in range(6)]
    h0 = 0.1 * np.ones((2, 3))
    gru = lambda h: m.gru_forward(x, h, *Ws)  # noqa: E731
    J = ft.jacrev(gru)(h0)
    close(J, fd_jacobian(gru, (h0,)), FD_TOL, "gru in h0")
    close(ft.jacfwd(gru)(h0), J, msg="gru jacfwd")
    check_vmap(lambda W: m.gru_forward(x, h0, W, *Ws[1:]), (np.stack([Ws[0], 2 * Ws[0]]),), (0,))


# ======================================================================================
# A CNN forward with stride tricks
# ======================================================================================


def test_convolutions_by_stride_tricks():
    m = cnn_stride_tricks
    x, y = m.make_data(N=2, H=4, W=4)
    p = m.init_params(H=4, W=4)
    args = (x[:1], p["W1"], p["b1"])
    Jn = ft.jacrev(m.conv2d_naive, argnums=(0, 1))(*args)
    for conv in (m.conv2d_strided, m.conv2d_windows, m.conv2d_im2col):
        close(conv(*args), m.conv2d_naive(*args), msg=conv.__name__)
        close(ft.jacfwd(conv, argnums=(0, 1))(*args), Jn, msg=conv.__name__)
        check_vmap(lambda xi, conv=conv: conv(xi[None], p["W1"], p["b1"])[0], (x,), (0,))
    close(Jn[1], fd_jacobian(m.conv2d_naive, args, 1), FD_TOL, "naive")
    for pool in (m.max_pool_2x2, m.max_pool_strided):
        g = ft.grad(m.loss)(p, x, y, m.conv2d_strided, pool)
        for k in ("W1", "b1"):
            fk = lambda v, k=k, pool=pool: m.loss({**p, k: v}, x, y, m.conv2d_strided, pool)  # noqa: E731
            close(g[k], fd_jacobian(fk, (p[k],)), FD_TOL, k)
        check_vmap(
            lambda xi, pool=pool: ft.grad(m.loss)(p, xi[None], y[:1], m.conv2d_windows, pool),
            (x,),
            (0,),
        )
    check_jit(
        lambda q, xx: m.loss(q, xx, y, m.conv2d_im2col),
        (p, x),
        (m.init_params(H=4, W=4, seed=3), 2 * x),
    )


# ======================================================================================
# Gauss-Newton and Levenberg-Marquardt
# ======================================================================================


def test_gauss_newton_and_levenberg_marquardt():
    m = levenberg_marquardt
    t, y = m.make_data(n=12)
    p0 = np.array([1.0, 1.0, 0.0])
    # the fitted parameters in the data (damping decided in Python along the way)
    for solver in (m.gauss_newton, m.levenberg_marquardt):
        fit = lambda yy, solver=solver: solver(t, yy, p0)  # noqa: E731
        J = ft.jacrev(fit)(y)
        close(J, fd_jacobian(fit, (y,), eps=1e-6), {"rtol": 1e-6, "atol": 1e-8}, solver.__name__)
        close(ft.jacfwd(fit)(y), J, msg=solver.__name__)
        check_vmap(
            lambda q, solver=solver: solver(t, y, q),
            (np.stack([p0, p0 + 0.5, np.array([3.0, 2.0, 1.0])]),),
            (0,),
        )
    # at the optimum the implicit-function theorem on the normal equations J^T r = 0
    p = m.levenberg_marquardt(t, y, p0)
    normal = lambda q, yy: m.jacobian(q, t).T @ (yy - m.model(q, t))  # noqa: E731
    implicit = -np.linalg.solve(fd_jacobian(normal, (p, y)), fd_jacobian(normal, (p, y), 1))
    close(ft.jacrev(lambda yy: m.gauss_newton(t, yy, p, n_iter=30))(y), implicit, FD_TOL)
    check_jit(lambda yy: m.lm_fd_jacobian(t, yy, p0), (y,), (1.1 * y,), False)


# ======================================================================================
# One-dimensional finite elements
# ======================================================================================


def test_finite_element_assembly():
    m = fem_1d
    k = np.array([1.0, 2.0, 1.5, 0.7, 1.2])
    f = np.array([1.0, 0.5, 0.0, 2.0, 1.0])
    for solve in (m.solve_poisson, m.stiffness_by_penalty):
        J = ft.jacrev(solve)(k, f)
        close(J, fd_jacobian(solve, (k, f)), FD_TOL, solve.__name__)
        close(ft.jacfwd(solve)(k, f), J, msg=solve.__name__)
    check_vmap(m.solve_poisson, (np.stack([k, 2 * k, k**2]), f), (0, None))
    check_jit(m.solve_poisson, (k, f), (2 * k, f + 1))
    # a bar's compliance: sum 1 / (n k_e), its gradient and Hessian in closed form
    n = len(k)
    close(m.bar_compliance(k), np.sum(1 / (n * k)), msg="compliance")
    close(ft.grad(m.bar_compliance)(k), -1 / (n * k**2), msg="grad")
    close(ft.hessian(m.bar_compliance)(k), np.diag(2 / (n * k**3)), msg="hessian")
    # a cantilever beam under a uniform load: tip deflection qL^4 / (8 EI)
    close(m.cantilever_beam(np.full(4, 2.0), 3.0)[-2], 3.0 / (8 * 2.0), msg="beam")
    beam = lambda EI: m.cantilever_beam(EI, 1.0)  # noqa: E731
    close(ft.jacfwd(beam)(k), fd_jacobian(beam, (k,)), FD_TOL, "beam")
    check_vmap(m.cantilever_beam, (np.stack([k, 2 * k]), np.array([1.0, 2.0])), (0, 0))


# ======================================================================================
# Black-Scholes, Greeks, implied volatility, a binomial tree
# ======================================================================================


def test_black_scholes_greeks():
    m = black_scholes
    S, K, T, r, sig = 100.0, 95.0, 0.5, 0.03, 0.25
    gr = m.greeks(S, K, T, r, sig)
    # the Greeks are the price's derivatives
    d = ft.jacfwd(lambda a: m.bs_price(*a))(np.array([S, K, T, r, sig]))
    close(
        d[[0, 2, 3, 4]], np.array([gr["delta"], -gr["theta"], gr["rho"], gr["vega"]]), msg="greeks"
    )
    close(ft.hessian(m.bs_price)(S, K, T, r, sig), gr["gamma"], msg="gamma")
    close(ft.grad(m.bs_price)(S, K, T, r, sig, "put"), gr["delta"] - 1, msg="put delta")
    strikes = np.array([80.0, 95.0, 100.0, 120.0])
    check_vmap(lambda kk: m.greeks(S, kk, T, r, sig), (strikes,), (0,))
    deltas = ft.vmap(ft.grad(m.bs_price), in_dims=(None, 0, None, None, None))(
        S, strikes, T, r, sig
    )
    close(deltas, m.greeks(S, strikes, T, r, sig)["delta"], msg="vmap delta")
    # implied volatility by Newton with a Python stopping test: d sigma / d price = 1/vega
    price = m.bs_price(S, K, T, r, sig)
    close(m.implied_vol(price, S, K, T, r), sig, msg="implied vol")
    close(ft.grad(m.implied_vol)(price, S, K, T, r), 1 / gr["vega"], {"rtol": 1e-8, "atol": 1e-10})
    check_vmap(lambda pr: m.implied_vol(pr, S, K, T, r), (price * np.array([0.9, 1.0, 1.1]),), (0,))
    # the American put on a CRR tree (np.maximum of continuation and exercise in place)
    tree = lambda s, v: m.crr_american_put(s, K, T, r, v, N=30)  # noqa: E731
    close(ft.grad(tree, argnums=1)(S, sig), central(lambda v: tree(S, v), sig), FD_TOL, "vega")
    check_vmap(tree, (np.array([80.0, 100.0, 120.0]), sig), (0, None))
    check_jit(tree, (np.float64(S), np.float64(sig)), (np.float64(90.0), np.float64(0.3)))


# ======================================================================================
# Masked attention in a transformer block
# ======================================================================================


def test_masked_attention():
    m = attention_mask
    rng = np.random.default_rng(0)
    q, k, v = rng.standard_normal((3, 4, 4))
    mask = m.causal_mask(4)
    # -1e9 by np.where and -inf by a triu_indices write give the same attention
    where_form = lambda q, k, v: m.attention(q, k, v, mask)[0]  # noqa: E731
    close(m.attention_inf_mask(q, k, v), where_form(q, k, v), msg="masks")
    for fn in (where_form, m.attention_inf_mask):
        J = ft.jacrev(fn, argnums=(0, 1, 2))(q, k, v)
        close(J[1], fd_jacobian(fn, (q, k, v), 1), FD_TOL, "keys")
        close(ft.jacfwd(fn, argnums=(0, 1, 2))(q, k, v), J, msg="jacfwd")
    check_jit(m.attention_inf_mask, (q, k, v), (k, v, q))
    # a causal, padded transformer block's language-model loss
    p = m.init_block(4, 8)
    emb = 0.5 * rng.standard_normal((7, 4))
    tokens, lengths = rng.integers(0, 7, (2, 5)), np.array([5, 3])
    check_fd_grad(m.lm_loss, (p, tokens, emb, lengths), argnums=2)
    g = ft.grad(m.lm_loss)(p, tokens, emb, lengths)
    fq = lambda w: m.lm_loss({**p, "Wq": w}, tokens, emb, lengths)  # noqa: E731
    close(g["Wq"], fd_jacobian(fq, (p["Wq"],)), FD_TOL, "Wq")
    per_seq = lambda tk, ln: ft.grad(m.lm_loss, argnums=2)(p, tk[None], emb, ln[None])  # noqa: E731
    check_vmap(per_seq, (tokens, lengths), (0, 0))
    check_jit(
        lambda q_, e: m.lm_loss(q_, tokens, e, lengths),
        (p, emb),
        (m.init_block(4, 8, seed=1), 2 * emb),
    )


# ======================================================================================
# Image filtering with np.pad and loops
# ======================================================================================


def test_image_filters():
    m = image_filters
    img = m.test_image(4)
    K = m.gaussian_kernel(3, 1.0)
    close(m.gaussian_kernel_mgrid(3, 1.0), K, msg="mgrid kernel")
    for mode in ("reflect", "wrap"):
        f = lambda im, k, mode=mode: m.filter2d(im, k, mode)  # noqa: E731
        close(ft.jacrev(f, argnums=1)(img, K), fd_jacobian(f, (img, K), 1), FD_TOL, mode)
    check_fd_grad(lambda s: m.filter2d(img, m.gaussian_kernel(3, s)).sum() ** 2, (1.2,))
    check_fd_grad(lambda im: m.sobel_magnitude(im).sum(), (img,))
    check_fd_grad(lambda sr: m.bilateral(img, 3, 1.0, sr).sum(), (0.2,))
    check_jit(
        lambda im, sr: m.bilateral(im, 3, 1.0, sr),
        (img, np.float64(0.2)),
        (img**2, np.float64(0.3)),
    )
    # the median of each window selects a pixel: its derivative is that pixel's
    J = ft.jacrev(m.median_filter)(img)
    close(J, fd_jacobian(m.median_filter, (img,), eps=1e-6), FD_TOL, "median")
    check_vmap(m.median_filter, (np.stack([img, 1 - img]),), (0,))
    close(ft.jacfwd(m.unsharp_mask)(img), fd_jacobian(m.unsharp_mask, (img,), eps=1e-6), FD_TOL)
    close(ft.jacrev(m.equalize)(img), fd_jacobian(m.equalize, (img,), eps=1e-7), FD_TOL)
    # total-variation denoising (np.roll differences, u -= step * ...) in the data
    tv = lambda im: m.tv_denoise(im, 0.1, 12, 0.1, 0.05)  # noqa: E731
    close(ft.jacrev(tv)(img), fd_jacobian(tv, (img,)), FD_TOL, "tv")
    check_vmap(lambda a: m.tv_denoise(img, a), (np.array([0.05, 0.2]),), (0,))


# ======================================================================================
# MCMC: Metropolis-Hastings, HMC, Gibbs, importance sampling
# ======================================================================================


def test_mcmc_samplers():
    m = samplers
    x0 = np.array([0.5, -0.3])
    # the chain with its randomness fixed is piecewise smooth in x0 and the target's b
    mean = lambda x, b: m.metropolis_hastings(  # noqa: E731
        lambda z: m.log_target_banana(z, b), x, 25, 0.8
    )[0].mean(0)
    J = ft.jacrev(mean, argnums=(0, 1))(x0, 0.1)
    close(J[0], fd_jacobian(mean, (x0, 0.1), eps=1e-6), FD_TOL, "x0")
    close(J[1], fd_jacobian(mean, (x0, 0.1), 1, eps=1e-6), FD_TOL, "b")
    close(ft.jacfwd(mean, argnums=(0, 1))(x0, 0.1), J, msg="jacfwd")
    # chains whose acceptances differ: vmap splits them, as the loop runs them
    chain = lambda x, s: m.metropolis_hastings(m.log_target_banana, x, 25, s)  # noqa: E731
    check_vmap(chain, (np.stack([x0, -x0, 2 * x0]), 0.8), (0, None))
    check_vmap(chain, (x0, np.array([0.3, 0.8, 1.5])), (None, 0))
    # HMC with the hand-written gradient and with ft.grad of the potential
    U = lambda q: -m.log_target_banana(q)  # noqa: E731
    gU = lambda q: -m.grad_log_target_banana(q)  # noqa: E731
    close(ft.grad(U)(x0), gU(x0), msg="grad U")
    hmc = lambda q, eps: m.hmc(U, gU, q, 10, eps, 4)  # noqa: E731
    close(m.hmc(U, ft.grad(U), x0, 10, 0.2, 4), hmc(x0, 0.2), msg="hmc with ft.grad")
    close(ft.jacrev(hmc, argnums=1)(x0, 0.2), fd_jacobian(hmc, (x0, 0.2), 1, eps=1e-6), FD_TOL)
    check_vmap(hmc, (np.stack([x0, -x0]), 0.2), (0, None))
    # the leapfrog map (momentum flipped) is symplectic up to the flip: J^T O J = -O
    lf = lambda z: np.concatenate(m.leapfrog(z[:2], z[2:], gU, 0.1, 5))  # noqa: E731
    Jl = ft.jacfwd(lf)(np.array([0.5, -0.3, 0.2, 0.4]))
    omega = np.block([[np.zeros((2, 2)), np.eye(2)], [-np.eye(2), np.zeros((2, 2))]])
    close(Jl.T @ omega @ Jl, -omega, msg="symplectic")
    gibbs = lambda mu, rho: m.gibbs_bivariate_normal(mu, rho, 30)  # noqa: E731
    mu = np.array([1.0, -1.0])
    close(ft.jacrev(gibbs)(mu, 0.6), fd_jacobian(gibbs, (mu, 0.6)), FD_TOL, "gibbs")
    check_vmap(gibbs, (mu, np.array([0.1, 0.6, 0.9])), (None, 0))
    check_jit(gibbs, (mu, np.float64(0.6)), (np.array([0.0, 2.0]), np.float64(0.3)))
    est = lambda v: m.importance_mean(np.sin, lambda x: -0.5 * (x - 1.0) ** 2, v[0], v[1])  # noqa: E731
    check_hessian(est, (np.array([0.5, 1.5]),))


# ======================================================================================
# Hamiltonian systems: RK4, velocity Verlet, symplectic Euler, leapfrog
# ======================================================================================


def test_hamiltonian_integrators():
    m = hamiltonian
    ts = np.linspace(0, 2, 16)
    pend = lambda y0, g: m.rk4(m.pendulum_rhs, y0, ts, g)  # noqa: E731
    y0 = np.array([1.0, 0.0])
    J = ft.jacrev(pend, argnums=(0, 1))(y0, 9.81)
    close(J[0], fd_jacobian(pend, (y0, 9.81)), FD_TOL, "y0")
    close(ft.jacfwd(pend, argnums=(0, 1))(y0, 9.81), J, msg="jacfwd")
    check_vmap(pend, (y0, np.array([9.81, 1.62, 24.8])), (None, 0))
    check_jit(pend, (y0, np.float64(9.81)), (2 * y0, np.float64(1.62)))
    r0, v0 = np.array([1.0, 0.0]), np.array([0.0, 1.1])
    orbit = lambda v: m.velocity_verlet(r0, v, 0.1, 20)  # noqa: E731
    close(
        ft.jacrev(lambda v: orbit(v)[0][-1])(v0),
        fd_jacobian(lambda v: orbit(v)[0][-1], (v0,)),
        FD_TOL,
    )
    check_fd_grad(lambda v: m.energy_kepler(*orbit(v)).std(), (v0,))
    check_vmap(orbit, (np.stack([v0, 0.9 * v0]),), (0,))
    # symplectic maps: det J = 1 (symplectic Euler), J^T O J = O (leapfrog)
    euler = lambda z: np.array([a[-1] for a in m.symplectic_euler(z[0], z[1], 0.1, 40)])  # noqa: E731
    close(np.linalg.det(ft.jacfwd(euler)(np.array([1.0, 0.0]))), 1.0, msg="det")
    grad_V = lambda q: np.sin(q) + 0.1 * q**3  # noqa: E731
    lf = lambda z: m.leapfrog_map(z, 0.1, 15, grad_V)  # noqa: E731
    z0 = np.array([0.3, -0.5, 0.2, 0.1])
    Jl = ft.jacrev(lf)(z0)
    omega = np.block([[np.zeros((2, 2)), np.eye(2)], [-np.eye(2), np.zeros((2, 2))]])
    close(Jl.T @ omega @ Jl, omega, msg="symplectic")
    close(Jl, fd_jacobian(lf, (z0,)), FD_TOL, "leapfrog")
    check_vmap(lf, (np.stack([z0, -z0]),), (0,))
    dp = lambda y: m.rk4(m.double_pendulum_rhs, y, np.linspace(0, 0.5, 4))  # noqa: E731
    y4 = np.array([1.0, 0.0, 0.5, 0.0])
    close(ft.jacrev(dp)(y4), fd_jacobian(dp, (y4,)), FD_TOL, "double pendulum")
    # the period found by a while loop and a sign change, interpolated: smooth in theta0
    period = lambda a: m.pendulum_period(a, dt=0.02)  # noqa: E731
    close(ft.grad(period)(0.5), central(period, 0.5), FD_TOL, "period")


# ======================================================================================
# A VAE with layer classes, the reparameterisation and in-place SGD
# ======================================================================================


def test_vae_from_scratch():
    m = vae_numpy
    x = m.make_binary_data()
    params = m.VAE().get_params()
    g = ft.grad(m.elbo_of_params)(params, x)
    for k in (0, 3, 7):
        fk = lambda p, k=k: m.elbo_of_params(params[:k] + [p] + params[k + 1 :], x)  # noqa: E731
        close(g[k], fd_jacobian(fk, (params[k],)), FD_TOL, f"param {k}")
    check_vmap(lambda xi: ft.grad(m.elbo_of_params)(params, xi[None]), (x,), (0,))
    check_jit(m.elbo_of_params, (params, x), ([1.1 * p for p in params], x[::-1].copy()))

    # training that updates the layers' attributes in place (p -= lr * g), in the rate
    def trained_loss(lr):
        model = m.VAE()
        grad_fn = lambda p, xx, s: (m.elbo_of_params(p, xx, s), ft.grad(m.elbo_of_params)(p, xx, s))  # noqa: E731
        m.train(model, x, grad_fn, lr=lr, steps=2)
        return model.loss(x)

    close(ft.grad(trained_loss)(0.05), central(trained_loss, 0.05), FD_TOL, "training")
    # a full-covariance Gaussian posterior: L filled by tril_indices, softplus diagonal
    log_joint = lambda z: (
        -0.5 * np.sum((z - 1.0) ** 2 / np.array([1.0, 2.0, 0.5])) - 0.1 * np.sum(z**4)
    )  # noqa: E731
    mu, Lf = np.array([0.1, 0.2, -0.3]), np.array([0.2, 0.1, -0.3, 0.05, 0.2, 0.4])
    check_fd_grad(m.full_cov_elbo, (mu, Lf, log_joint), argnums=1)
    check_vmap(lambda mm: m.full_cov_elbo(mm, Lf, log_joint), (np.stack([mu, -mu]),), (0,))


def test_spring_network_assembled_by_ix_with_lists():
    # the regression of the list-display index: K is a plain array (np.diag of a list)
    m = fem_1d
    elements = [(0, 1), (1, 2), (2, 3), (1, 3)]
    k = np.array([1.0, 2.0, 0.5, 1.5])
    f = lambda kk: m.spring_network(kk, elements, 4, 3)  # noqa: E731
    check_fd_grad(f, (k,))
    check_vmap(f, (np.stack([k, 2 * k]),), (0,))
    check_jit(f, (k,), (2 * k,))

    A = np.arange(15.0).reshape(5, 3)

    def rows(w):
        d = A.copy()
        d[[0, 2, 3]] = w
        d[[1, 4], [0, 2]] += w**2
        return d

    close(ft.jacfwd(rows)(1.3), fd_jacobian(rows, (1.3,)), FD_TOL)
    check_vmap(rows, (np.array([1.0, -2.0]),), (0,))


def test_error_for_an_index_expression_names_the_index():
    A = np.arange(15.0).reshape(5, 3)
    y = np.array([0, 1, 2, 1, 0])

    def sliced(yy):
        d = A.copy()
        d[yy[:2]] = 1.0
        return d

    def named(yy):
        d = A.copy()
        i = yy[:2]
        d[i] = 1.0
        return d

    with pytest.raises(ft.errors.InPlaceError, match=r"may be the store's index.*i = y\[:2\]"):
        ft.vmap(sliced)(np.stack([y, y[::-1]]))
    check_vmap(named, (np.stack([y, y[::-1]]),), (0,))
