"""Published programs, round ten: textbook and tutorial NumPy/SciPy programs run unchanged
under the transforms, as their users would run them (the gradient of a final loss in a
hyperparameter or an initial state, ``vmap`` over data sets and initial conditions,
``jit`` of a step).

Each program lives in its own module under ``tests/published10/`` with its authors'
import lines (``import numpy as np``), written in their style: loops filling
preallocated arrays, in-place updates (``m *= beta1; m += (1 - beta1) * g``,
``P = ...; m += K @ v``, ``u[1:-1] = ...``), ``np.random.default_rng`` generators,
Python ``while`` loops on residuals and error estimates.

Programs: a from-scratch two-layer network with a hand-written backward pass trained by
mini-batch momentum and Adam; a Kalman filter (Joseph form, prediction-error
log-likelihood) with the Rauch-Tung-Striebel smoother; FTCS and Crank-Nicolson (Thomas
algorithm) heat solvers, a leapfrog wave solver, a 2-D heat equation with Neumann
boundaries; a bootstrap particle filter (systematic and multinomial resampling by
``cumsum``/``searchsorted``); Gaussian-mixture EM, logistic regression by Newton/IRLS and
by weighted least squares, conjugate gradients; an adaptive Runge-Kutta-Fehlberg 4(5)
integrator and classical RK4; k-means with k-means++ seeding, PCA by the SVD, an HMM's
scaled and log-space forward algorithms, Viterbi, a linear-chain CRF; a Lennard-Jones
velocity-Verlet simulation with reflecting walls; DTW and soft-DTW.

Oracles: the programs' own backward passes, float64 central differences, Python loops
for ``vmap``, closed forms (``A^-1`` for CG, brute-force marginals for the CRF, a
brute-force HMM likelihood, ``F = -grad U``), and eager runs for ``jit``.

What this round found and fixed (each has a test here that fails without it):

* an array drawn from a ``np.random.default_rng(seed)`` generator made inside the
  transformed function (``W = rng.standard_normal((n, m)) * s``, every network
  initialiser) was a plain NumPy array, so the optimizer's in-place update
  ``params[k] -= lr * dW`` under ``grad`` in the learning rate raised ``InPlaceError``:
  the generator's draws are now buffers, as ``np.zeros``'s and ``np.random.randn``'s are;
* ``rng.choice(n, p=probs)`` / ``np.random.choice(n, p=probs)`` with probabilities computed
  from traced data (k-means++ seeding) and ``rng.choice(X, ...)`` of a traced ``X`` crashed
  in NumPy's C code (``TracerConversionError``): the indices are drawn from ``p``'s values
  (rows with other probabilities split a ``vmap`` batch) and a traced population is
  indexed by them (NOTE [choices among traced values]);
* the same with the legacy ``np.random.RandomState(seed)`` made inside (CS231n's
  ``W = 0.01 * rng.randn(D, H)``): while a transform is active the name is a subclass
  whose draws are buffers too (``isinstance`` still holds for NumPy's own instances);
* ``rng.normal(loc, scale)``, ``uniform``, ``exponential`` and ``lognormal`` with a traced
  parameter (a particle filter's ``rng.normal(f(x), sigma)``), from a generator made
  inside and from ``np.random``'s global functions, raised ``TracerConversionError``: the
  standard numbers are drawn as NumPy draws them and mapped by the traced parameters
  (NOTE [draws with traced parameters]).

``u = u0.copy()`` of a NumPy array the transformed function closes over, then written
with a traced value (``u[1:-1] = ...`` with the diffusivity traced), works since round 13's
private arrays (it raised ``InPlaceError``); the closed-over array stays as it was.
Soft-DTW's gradient in ``gamma`` is NaN, as in JAX: ``inf / -gamma`` of the table's
border has an infinite derivative, multiplied by ``exp(-inf) = 0``.
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
from tests.published10 import (
    em_irls_cg,
    heat_wave_fd,
    kalman_rts,
    kmeans_pca_hmm,
    numpy_mlp_adam,
    particle_filter,
    particles_dtw,
    rkf45_adaptive,
)


@pytest.fixture(autouse=True)
def _quiet_splits():
    # rows taking other Python paths split a vmap batch, with a PerformanceWarning
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ft.errors.PerformanceWarning)
        yield


def central(f, x, eps):
    """Second-order central difference of the scalar function ``f`` at the scalar ``x``
    (for a loss with ReLU kinks a small step stays on one piece)."""
    return (f(x + eps) - f(x - eps)) / (2 * eps)


# ======================================================================================
# 1. A NumPy network from scratch: hand-written backward, momentum and Adam in place
# ======================================================================================


def test_mlp_backward_and_training_in_the_learning_rate():
    m = numpy_mlp_adam
    X, y = m.make_spirals()
    params = m.init_params(2, 8, 3)
    # the hand-written backward pass is the gradient of the loss
    loss_of = lambda p: m.loss_and_grads(p, X, y)[0]  # noqa: E731
    close(ft.grad(loss_of)(params), m.loss_and_grads(params, X, y)[1], msg="backward")

    # the loss after training, in the learning rate: the network is initialised inside
    # (rng.standard_normal(...) * s), then updated in place by the optimizer
    def final_loss(lr, optimizer):
        p = m.init_params(2, 8, 3)
        p, _ = m.train(p, X, y, optimizer(lr), epochs=1, batch_size=30)
        return m.loss_and_grads(p, X, y)[0]

    for optimizer in (m.Adam, m.Momentum):
        f = lambda lr: final_loss(lr, optimizer)  # noqa: E731
        close(ft.grad(f)(0.05), central(f, 0.05, 1e-6), FD_TOL, optimizer.__name__)
    # vmap over learning rates is the loop over them
    check_vmap(lambda lr: final_loss(lr, m.Adam), (np.array([0.01, 0.05, 0.1]),), (0,))
    # an ensemble: vmap over initial parameters of the whole training run
    stacked = {k: np.stack([m.init_params(2, 8, 3, seed=s)[k] for s in range(3)]) for k in params}

    def trained(p):
        p, history = m.train(dict(p), X, y, m.Adam(lr=0.05), epochs=2)
        return m.loss_and_grads(p, X, y)[0], np.stack(history)

    check_vmap(trained, (stacked,), (0,))

    # a jitted SGD step replays on new parameters and a new mini-batch
    def step(p, xb, yb):
        loss, grads = m.loss_and_grads(p, xb, yb)
        return {k: p[k] - 0.1 * grads[k] for k in p}, loss

    other = m.init_params(2, 8, 3, seed=1)
    check_jit(step, (params, X[:16], y[:16]), (other, X[16:32], y[16:32]))


def test_generator_draws_made_inside_are_buffers():
    # the regression of the first fix: a draw from a generator made inside, updated in
    # place with a traced value
    def f(x):
        rng = np.random.default_rng(0)
        w = rng.standard_normal(3) * 2.0
        w -= x * rng.random(3)
        return (w**2).sum()

    x = np.array([0.5, -1.0, 2.0])
    check_fd_grad(f, (x,))
    check_vmap(f, (np.stack([x, 2 * x]),), (0,))


def test_legacy_random_state_made_inside():
    # CS231n-style initialisation with the legacy class, then in-place SGD; its
    # normal/choice/permutation with traced arguments; NumPy's draws, bit for bit
    before = np.random.RandomState(0)

    def f(x):
        rng = np.random.RandomState(1)
        assert isinstance(before, np.random.RandomState)  # a generator made before
        W = 0.1 * rng.randn(3, 3)
        b = np.zeros(3)
        for _ in range(3):
            g = W @ x + b
            W -= 0.1 * np.outer(g, x)
            b -= 0.1 * g
        noise = rng.normal(x, 0.5) + x[rng.permutation(3)]
        noise += rng.choice(x, 3, p=np.abs(x) / np.abs(x).sum())
        return (W**2).sum() + noise.sum() + b.sum()

    x = np.array([0.5, -1.0, 2.0])
    close(ft.vmap(f)(x[None]), np.array([f(x)]), msg="the eager value")
    check_fd_grad(f, (x,))
    check_vmap(f, (np.stack([x, 1.2 * x, -x]),), (0,))


# ======================================================================================
# 2. Kalman filter and RTS smoother
# ======================================================================================


def test_kalman_filter_and_rts_smoother():
    m = kalman_rts
    F, Q, H, R = m.cv_model(0.1, 0.5, 0.2)
    zs_all = np.stack(
        [m.simulate(F, Q, H, R, np.zeros(2), 12, np.random.default_rng(s))[1] for s in range(3)]
    )
    zs = zs_all[0]
    log_params = np.log(np.array([0.5, 0.2]))
    # the negative log-likelihood in the noise parameters: grad and hessian
    check_fd_grad(m.negative_loglik, (log_params, zs))
    check_hessian(m.negative_loglik, (log_params, zs))

    def smoothed(zs, log_params):
        q, r = np.exp(log_params)
        F, Q, H, R = m.cv_model(0.1, q, r)
        ms, Ps, _ = m.kalman_filter(zs, F, Q, H, R, np.zeros(2), np.eye(2) * 10.0)
        ms_s, Ps_s = m.rts_smoother(ms, Ps, F, Q)
        return ms_s[:, 0], Ps_s[:, 0, 0]

    positions = lambda z: smoothed(z, log_params)[0]  # noqa: E731
    J = ft.jacrev(positions)(zs)
    close(J, fd_jacobian(positions, (zs,)), FD_TOL, "smoother in the data")
    close(ft.jacfwd(positions)(zs), J, msg="jacfwd")
    variances = lambda lp: smoothed(zs, lp)[1].sum()  # noqa: E731
    check_fd_grad(variances, (log_params,))
    # vmap over measurement sequences, and per-sequence gradients
    check_vmap(smoothed, (zs_all, log_params), (0, None))
    check_vmap(ft.grad(m.negative_loglik), (log_params, zs_all), (None, 0))
    check_jit(m.negative_loglik, (log_params, zs), (log_params + 0.1, zs_all[1]))


# ======================================================================================
# 3. Finite differences for the heat and wave equations
# ======================================================================================


def test_heat_solvers_in_the_diffusivity_and_the_initial_state():
    m = heat_wave_fd
    x = np.linspace(0, 1, 11)
    u0 = np.sin(np.pi * x) + 0.3 * np.sin(3 * np.pi * x)
    for solver, kwargs in ((m.ftcs_heat, {"nt": 40}), (m.crank_nicolson_heat, {"nt": 8})):
        f = lambda u, a: solver(u, a, **kwargs)  # noqa: E731, B023
        check_fd_grad(lambda u, a: f(u, a).sum(), (u0, 0.5), argnums=1)
        J = ft.jacrev(f)(u0, 0.5)
        close(J, fd_jacobian(f, (u0, 0.5)), FD_TOL, solver.__name__)
        close(ft.jacfwd(f)(u0, 0.5), J, msg=solver.__name__)
        check_vmap(f, (np.stack([u0, 2 * u0, np.sin(2 * np.pi * x)]), 0.5), (0, None))
        check_vmap(f, (u0, np.array([0.2, 0.5, 0.7])), (None, 0))
        check_jit(f, (u0, np.float64(0.5)), (np.sin(2 * np.pi * x), np.float64(0.3)))
    # the closed-over initial state copied and written (NOTE [traced writes into private
    # NumPy arrays]): the copy only the solver holds takes the traced writes
    check_fd_grad(lambda a: m.ftcs_heat(u0, a, nt=40).sum(), (0.5,))
    np.testing.assert_array_equal(u0, np.sin(np.pi * x) + 0.3 * np.sin(3 * np.pi * x))


def test_wave_and_2d_heat():
    m = heat_wave_fd
    x = np.linspace(0, 1, 15)
    g = np.cos(np.pi * x) * x * (1 - x)
    wave = lambda f, g, c: m.leapfrog_wave(f, g, c, nt=60)  # noqa: E731
    f0 = np.sin(np.pi * x)
    check_fd_grad(lambda f, g, c: wave(f, g, c)[5], (f0, g, 1.0), argnums=2)
    J = ft.jacrev(lambda g: wave(f0, g, 1.0))(g)
    close(J, fd_jacobian(lambda g: wave(f0, g, 1.0), (g,)), FD_TOL, "wave in g")
    check_vmap(wave, (f0, g, np.array([0.5, 1.0])), (None, None, 0))
    u2 = np.outer(np.sin(np.pi * x[:6]), np.cos(np.pi * x[:7]))
    heat = lambda u, k: m.heat_2d_neumann(u, k, nt=20)  # noqa: E731
    check_fd_grad(lambda u, k: (heat(u, k) ** 2).sum(), (u2, 0.5), argnums=1)
    check_vmap(heat, (np.stack([u2, u2**2]), 0.5), (0, None))
    check_jit(heat, (u2, np.float64(0.5)), (u2**2, np.float64(0.25)))


# ======================================================================================
# 4. A bootstrap particle filter
# ======================================================================================


def test_particle_filter():
    m = particle_filter
    _, y = m.simulate(12, 1.0, 1.0)
    evidence = lambda sw: m.bootstrap_filter(y, 40, 1.0, sw)[1]  # noqa: E731
    close(ft.grad(evidence)(1.0), central(evidence, 1.0, 1e-6), FD_TOL, "d evidence / d sigma_w")
    means = lambda yy: m.bootstrap_filter(yy, 40, 1.0, 1.0, resample=m.multinomial_resample)[0]  # noqa: E731
    J = ft.jacrev(means)(y)
    close(J, fd_jacobian(means, (y,), eps=1e-6), FD_TOL, "filter means in the data")
    close(ft.jacfwd(means)(y), J, msg="jacfwd")
    ys = np.stack([m.simulate(12, 1.0, 1.0, seed=s)[1] for s in range(3)])
    run = lambda yy, sw: m.bootstrap_filter(yy, 40, 1.0, sw)  # noqa: E731
    check_vmap(run, (ys, 1.0), (0, None))
    check_vmap(run, (y, np.array([0.5, 1.0, 2.0])), (None, 0))
    check_jit(run, (y, np.float64(1.0)), (ys[1], np.float64(0.7)))

    # the transition written with rng.normal(loc, scale): a traced location and scale
    def filter_normal(sigma_v):
        rng = np.random.default_rng(0)
        particles = rng.normal(0.1, np.sqrt(5.0), size=30)
        log_z = 0.0
        for t in range(len(y)):
            loc = 0.5 * particles + 25 * particles / (1 + particles**2) + 8 * np.cos(1.2 * t)
            particles = rng.normal(loc, sigma_v)
            log_w = -0.5 * (y[t] - particles**2 / 20) ** 2
            log_z += np.log(np.mean(np.exp(log_w)))
            particles = particles[m.systematic_resample(np.exp(log_w) / np.exp(log_w).sum(), rng)]
        return log_z

    close(ft.grad(filter_normal)(1.0), central(filter_normal, 1.0, 1e-6), FD_TOL, "rng.normal")
    check_vmap(filter_normal, (np.array([0.5, 1.0]),), (0,))


def test_draws_with_traced_parameters_are_numpys():
    mu = np.array([0.5, -1.0, 2.0])
    scale = np.array([[1.0], [2.0]])
    draws = {
        "normal": lambda r, m: r.normal(m, scale),
        "uniform": lambda r, m: r.uniform(m, m + scale),
        "exponential": lambda r, m: r.exponential(np.abs(m), size=(2, 3)),
        "lognormal": lambda r, m: r.lognormal(m, 0.5),
    }
    for name, draw in draws.items():
        for source in ("generator", "global"):

            def f(m, draw=draw, source=source):
                if source == "global":
                    np.random.seed(3)
                    return draw(np.random, m)
                return draw(np.random.default_rng(3), m)

            value, tangent = ft.jvp(f, (mu,), (np.ones(3),))
            close(value, f(mu), msg=f"{name} {source}")  # NumPy's numbers
            close(tangent, fd_jacobian(f, (mu,), eps=1e-6).sum(-1), FD_TOL, f"{name} {source}")
            out = ft.vmap(f, randomness="different")(np.stack([mu, mu + 1]))
            close(out, np.stack([f(mu), f(mu + 1)]), msg=f"{name} {source} vmap")
    # NumPy's checks of the parameters
    with pytest.raises(ValueError, match="scale < 0"):
        ft.grad(lambda s: np.random.default_rng(0).normal(0.0, s).sum())(np.array([-1.0]))
    with pytest.raises(ValueError, match="not compatible"):
        ft.grad(lambda m: np.random.default_rng(0).normal(m, 1.0, size=(2, 1)).sum())(mu)


# ======================================================================================
# 5. EM for a Gaussian mixture, IRLS, conjugate gradients
# ======================================================================================


def test_gmm_em_irls_and_conjugate_gradients():
    m = em_irls_cg
    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal([-2, 0], 0.7, (10, 2)), rng.normal([2, 1], 0.5, (10, 2))])
    X = X[rng.permutation(20)]
    em = lambda X: m.gmm_em(X, 2, 4)  # noqa: E731
    close(
        ft.grad(lambda X: em(X)[3][-1])(X),
        fd_jacobian(lambda X: em(X)[3][-1], (X,), eps=1e-5),
        FD_TOL,
        "EM log-likelihood",
    )
    check_vmap(em, (np.stack([X, X * 1.1 + 0.2, X[::-1]]),), (0,))
    check_jit(em, (X,), (X * 1.1 + 0.2,))

    Xl = np.c_[np.ones(30), rng.standard_normal((30, 2))]
    yl = (rng.random(30) < m.sigmoid(Xl @ np.array([0.3, 0.5, -0.8]))).astype(float)
    fit = lambda lam: m.logistic_irls(Xl, yl, lam)  # noqa: E731
    close(ft.jacrev(fit)(1.0), fd_jacobian(fit, (1.0,), eps=1e-4), FD_TOL, "IRLS in lambda")
    close(ft.jacfwd(fit)(1.0), ft.jacrev(fit)(1.0), msg="IRLS jacfwd")
    wls = lambda X: m.logistic_irls_weighted_lstsq(X, yl)  # noqa: E731
    close(wls(Xl), m.logistic_irls(Xl, yl, 0.0, 20), msg="WLS and Newton agree")
    close(ft.jacrev(wls)(Xl), fd_jacobian(wls, (Xl,), eps=1e-5), FD_TOL, "WLS in X")
    check_vmap(lambda y: m.logistic_irls(Xl, y, 1.0), (np.stack([yl, 1 - yl]),), (0,))

    B = rng.standard_normal((5, 5))
    A = B @ B.T + 5 * np.eye(5)
    b = rng.standard_normal(5)
    inv = np.linalg.inv(A)
    close(ft.jacrev(lambda b: m.conjugate_gradient(A, b))(b), inv, msg="CG jacrev")
    close(ft.jacfwd(lambda b: m.conjugate_gradient(A, b))(b), inv, msg="CG jacfwd")
    close(ft.hessian(lambda b: m.conjugate_gradient(A, b) @ b)(b), inv + inv.T, msg="CG hess")
    check_vmap(m.conjugate_gradient, (np.stack([A, A + np.eye(5), 2 * A]), b), (0, None))
    check_jit(m.conjugate_gradient, (A, b), (A + np.eye(5), -b))


# ======================================================================================
# 6. Runge-Kutta-Fehlberg 4(5) with a while loop on the error, and RK4
# ======================================================================================


def test_adaptive_runge_kutta():
    m = rkf45_adaptive
    rhs = m.lotka_volterra(1.0, 0.5, 0.2, 0.6)
    final = lambda y0: m.rkf45(rhs, 0.0, y0, 2.0)[1][-1]  # noqa: E731
    y0 = np.array([2.0, 1.0])
    J = ft.jacrev(final)(y0)
    close(J, fd_jacobian(final, (y0,), eps=1e-6), FD_TOL, "rkf45 in y0")
    close(ft.jacfwd(final)(y0), J, msg="jacfwd")
    in_params = lambda p: m.rkf45(m.lotka_volterra(*p), 0.0, [2.0, 1.0], 2.0)[1][-1]  # noqa: E731
    p = np.array([1.0, 0.5, 0.2, 0.6])
    close(ft.jacrev(in_params)(p), fd_jacobian(in_params, (p,), eps=1e-6), FD_TOL, "params")
    # initial conditions whose step sequences differ: the batch splits, as rows of a loop
    check_vmap(final, (np.array([[2.0, 1.0], [1.5, 1.2], [3.0, 0.5]]),), (0,))
    t = np.linspace(0, 2, 11)
    pend = lambda b: m.rk4(m.damped_pendulum(b), np.array([1.0, 0.0]), t)[:, 0]  # noqa: E731
    close(ft.jacrev(pend)(0.3), fd_jacobian(pend, (0.3,), eps=1e-4), FD_TOL, "rk4")
    check_hessian(lambda b: pend(b)[-1], (0.3,))
    check_vmap(pend, (np.array([0.1, 0.3]),), (0,))


# ======================================================================================
# 7. k-means++, PCA, HMMs and a CRF
# ======================================================================================


def test_kmeans_plus_plus_under_the_transforms():
    m = kmeans_pca_hmm
    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal(c, 0.4, (8, 2)) for c in ([0, 0], [3, 0], [0, 3])])
    inertia = lambda X: m.kmeans(X, 3)[2]  # noqa: E731
    check_fd_grad(inertia, (X,))
    check_vmap(lambda X: m.kmeans(X, 3), (np.stack([X, X + 1, X[::-1]]),), (0,))
    compiled = ft.jit(lambda X: m.kmeans(X, 3))
    for data in (X, X[::-1] * 1.5):
        close(compiled(data), m.kmeans(data, 3), msg="jit")

    # choice with traced probabilities or population: NumPy's draws, from any generator
    def pick(X, source):
        d2 = (X**2).sum(1)
        probs = d2 / d2.sum()
        if source == "global":
            np.random.seed(1)
            return X[np.random.choice(len(X), 4, p=probs)].sum() + np.random.choice(
                X[:, 0], p=probs
            )
        r = np.random.default_rng(1)
        return X[r.choice(len(X), 4, p=probs)].sum() + r.choice(X, 2, p=probs, axis=0).sum()

    for source in ("generator", "global"):
        # piecewise smooth (an index jumps where the probabilities cross a draw): a
        # small step stays on one piece
        f = lambda X: pick(X, source)  # noqa: B023, E731
        close(ft.grad(f)(X[:6]), fd_jacobian(f, (X[:6],), eps=1e-6), FD_TOL, "choice grad")
        out = ft.vmap(lambda X: pick(X, source), randomness="different")(np.stack([X, X[::-1]]))  # noqa: B023
        close(out, np.array([pick(X, source), pick(X[::-1], source)]), msg=f"choice vmap {source}")
    with pytest.raises(ValueError, match="non-negative"):
        ft.grad(lambda x: np.random.default_rng(0).choice(x, p=x).sum())(np.array([-0.5, 1.5]))


def test_pca_hmm_viterbi_crf():
    m = kmeans_pca_hmm
    rng = np.random.default_rng(1)
    P = rng.standard_normal((10, 4)) @ rng.standard_normal((4, 4))
    rec = lambda X: m.pca(X, 2)[1]  # noqa: E731
    close(ft.jacrev(rec)(P), fd_jacobian(rec, (P,), eps=1e-5), FD_TOL, "PCA reconstruction")
    check_vmap(lambda X: m.pca(X, 2), (np.stack([P, P**2, 2 * P[::-1]]),), (0,))

    N, K, T = 3, 4, 6
    A = rng.dirichlet(np.ones(N), N)
    B = rng.dirichlet(np.ones(K), N)
    pi = rng.dirichlet(np.ones(N))
    obs = rng.integers(0, K, T)
    # the scaled forward algorithm against the sum over all state paths
    paths = np.stack(np.meshgrid(*[np.arange(N)] * T, indexing="ij"), -1).reshape(-1, T)
    probs = pi[paths[:, 0]] * B[paths[:, 0], obs[0]]
    for t in range(1, T):
        probs = probs * A[paths[:, t - 1], paths[:, t]] * B[paths[:, t], obs[t]]
    close(m.hmm_forward_scaled(pi, A, B, obs)[0], np.log(probs.sum()), msg="forward")
    check_fd_grad(lambda A: m.hmm_forward_scaled(pi, A, B, obs)[0], (A,))
    log_forward = lambda lA: m.hmm_forward_log(np.log(pi), lA, np.log(B), obs)  # noqa: E731
    check_hessian(log_forward, (np.log(A),))
    many = rng.integers(0, K, (3, T))
    check_vmap(lambda o: m.hmm_forward_scaled(pi, A, B, o)[0], (many,), (0,))
    viterbi = lambda o: m.viterbi(np.log(pi), np.log(A), np.log(B), o)  # noqa: E731
    check_vmap(viterbi, (many,), (0,))
    check_fd_grad(lambda lB: m.viterbi(np.log(pi), np.log(A), lB, obs)[1], (np.log(B),))

    U = rng.standard_normal((4, 3))
    Tr = rng.standard_normal((3, 3))
    labels = np.array([0, 2, 1, 1])
    # d log Z / d unary is the label marginals (brute force over the 81 sequences)
    seqs = np.stack(np.meshgrid(*[np.arange(3)] * 4, indexing="ij"), -1).reshape(-1, 4)
    scores = np.array([m.crf_score(U, Tr, s) for s in seqs])
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()
    marginals = np.stack([np.bincount(seqs[:, t], weights, 3) for t in range(4)])
    close(ft.grad(m.crf_log_partition)(U, Tr), marginals, msg="CRF marginals")
    check_hessian(m.crf_log_partition, (U, Tr), argnums=1)
    Us, labs = rng.standard_normal((3, 4, 3)), rng.integers(0, 3, (3, 4))
    check_vmap(ft.grad(m.crf_nll, 1), (Us, Tr, labs), (0, None, 0))
    check_jit(m.crf_nll, (U, Tr, labels), (Us[0], Tr + 0.1, labs[0]))


# ======================================================================================
# 8. Lennard-Jones velocity Verlet with walls; DTW and soft-DTW in double loops
# ======================================================================================


def test_lennard_jones_velocity_verlet():
    m = particles_dtw
    grid = np.stack(np.meshgrid(np.arange(2), np.arange(2)), -1).reshape(-1, 2) * 1.2 + 0.6
    rng = np.random.default_rng(0)
    pos0 = grid + 0.05 * rng.standard_normal(grid.shape)
    vel0 = 2.0 * rng.standard_normal(grid.shape)
    run = lambda p, v: m.velocity_verlet(p, v, 0.01, 10, box=3.0)  # noqa: E731
    pos, _, energies = run(pos0, vel0)
    assert np.ptp(energies.sum(1)) < 0.05 * np.abs(energies.sum(1)).max()  # Verlet conserves
    potential = lambda p: m.lj_forces(p)[1]  # noqa: E731
    close(ft.grad(potential)(pos0), -m.lj_forces(pos0)[0], msg="F = -grad U")
    final = lambda p, v: run(p, v)[0]  # noqa: E731
    J = ft.jacrev(final, argnums=1)(pos0, vel0)
    close(J, fd_jacobian(final, (pos0, vel0), 1, eps=1e-6), FD_TOL, "through the walls")
    check_vmap(run, (pos0, np.stack([vel0, -vel0, 0.5 * vel0])), (None, 0))
    check_jit(run, (pos0, vel0), (pos0 + 0.01, -vel0))


def test_dtw_and_soft_dtw():
    m = particles_dtw
    x = np.sin(np.linspace(0, 3, 5))
    y = np.sin(np.linspace(0.3, 3.2, 4))
    check_fd_grad(m.dtw, (x, y))
    check_hessian(m.soft_dtw, (x, y))
    xs = np.stack([x, x[::-1], 2 * x])
    check_vmap(ft.grad(m.soft_dtw), (xs, y), (0, None))
    check_vmap(m.dtw, (xs, y), (0, None))
    check_jit(m.soft_dtw, (x, y), (xs[1], y))
