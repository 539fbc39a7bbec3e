"""Published programs, round fifteen: NumPy/SciPy programs of kinds earlier rounds did not
have, run unchanged under the transforms.

Written in their authors' styles: Numerical Recipes' tridiagonal solver (``tridag``: the
Thomas algorithm filling preallocated ``cp``/``dp``/``x`` in Python loops) driving a
Crank-Nicolson heat step, the same scheme through ``scipy.linalg.solve_banded``, a
Gauss-Seidel sweep writing ``x[i]`` in place, ``scipy.linalg.lu_factor``/``lu_solve``,
Raschka's scikit-learn-style ``AdalineGD``/``LogisticRegressionGD`` (``fit`` returning
``self``, ``self.w_[1:] +=`` updates, a seeded ``RandomState`` start, ``cost_`` list),
numpy-ml's ``Adam`` (a cache dict of per-parameter state) and CS231n's ``adam(w, dw,
config)`` (``config.setdefault``, ``config["t"] += 1``) under ``jit`` step by step, a
Metropolis-Hastings chain with an ``if`` on the acceptance test, a multiclass hinge through
``np.take_along_axis``/``np.put_along_axis``, and a CTMC likelihood through
``scipy.linalg.expm``.

Oracles: float64 central differences, Python loops for ``vmap``, the eager program for
``jit``, and closed forms (``lu_solve`` against ``np.linalg.solve``; the log-determinant's
gradient ``inv(A).T``).

What this round found and fixed (the test here fails without it):

* ``jit`` of a function returning an object that holds traced arrays (a scikit-learn-style
  ``fit`` returning ``self``), a generator or a coroutine raised a plain ``TypeError``; it
  raises ``ft.errors.NotAnArrayError`` (still a ``TypeError``), as ``vmap`` does for such
  outputs;
* a sampler that seeds NumPy's global generator (``np.random.seed(42)`` then
  ``np.random.normal``/``rand`` in a Metropolis loop) under ``vmap(randomness='same')``
  (every row of the loop reseeds, so the rows share their draws) whose rows split at the
  acceptance ``if`` returned other numbers than the loop: each group took the first run's
  draws back from the log without drawing, so after its own reseed the generator repeated
  them (NOTE [a reseed in a split 'same' batch] in ftransforms/random.py); NumPy's
  generator was also left where the seed put it instead of where the loop leaves it; the
  same for a generator the function makes from a seed and draws from through
  ``ftransforms.random`` (``ft.random.normal(rng)``): its draws past the log repeated the
  log's;
* ``np.random.RandomState(1)`` made inside a jitted function (Raschka's ``fit``: ``rgen =
  np.random.RandomState(self.random_state)``) counted as a generator made from fresh
  entropy (NumPy makes its bit generator unseeded, then seeds it), so every call of that
  signature ran eagerly with a RuntimeWarning; the seed it is given is no fresh entropy
  now (``host_random.seed_given``), and the recording is replayed.  ``RandomState()``
  still runs eagerly.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.linalg

import ftransforms as ft
from tests.program_oracles import FD_TOL, check_jit, check_vmap, close, fd_jacobian


@pytest.fixture(autouse=True)
def _quiet_splits():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ft.errors.PerformanceWarning)
        yield


def fd_close(transform, f, args, argnum=0):
    got = transform(f, argnums=argnum)(*args)
    close(got, fd_jacobian(f, args, argnum, eps=1e-4), FD_TOL, transform.__name__)


# --- Numerical Recipes: tridag and a Crank-Nicolson heat step -------------------------


def tridag(a, b, c, d):
    """The Thomas algorithm: sub-, main and super-diagonals a, b, c; right-hand side d."""
    n = len(d)
    cp = np.zeros(n)
    dp = np.zeros(n)
    x = np.zeros(n)
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for i in range(1, n):
        m = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m if i < n - 1 else 0.0
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m
    x[-1] = dp[-1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return x


def crank_nicolson(u0, alpha, nt=3, dx=0.1, dt=0.01):
    n = len(u0)
    r = alpha * dt / dx**2
    a = np.full(n, -r / 2)
    b = np.full(n, 1 + r)
    c = np.full(n, -r / 2)
    u = u0.copy()
    for _ in range(nt):
        rhs = np.empty_like(u)
        rhs[1:-1] = r / 2 * u[:-2] + (1 - r) * u[1:-1] + r / 2 * u[2:]
        rhs[0] = (1 - r) * u[0] + r / 2 * u[1]
        rhs[-1] = (1 - r) * u[-1] + r / 2 * u[-2]
        u = tridag(a, b, c, rhs)
    return u


def crank_nicolson_banded(u0, alpha, nt=3, dx=0.1, dt=0.01):
    n = len(u0)
    r = alpha * dt / dx**2
    ab = np.zeros((3, n))
    ab[0, 1:] = -r / 2
    ab[1, :] = 1 + r
    ab[2, :-1] = -r / 2
    u = u0
    for _ in range(nt):
        rhs = (1 - r) * u
        rhs[1:] += r / 2 * u[:-1]
        rhs[:-1] += r / 2 * u[1:]
        u = scipy.linalg.solve_banded((1, 1), ab, rhs)
    return u


def test_crank_nicolson_by_tridag_and_solve_banded():
    u0 = np.sin(np.linspace(0, np.pi, 6))
    close(crank_nicolson_banded(u0, 0.5), crank_nicolson(u0, 0.5))
    batch = (np.stack([u0, 2 * u0, u0 + 1]), np.array([0.3, 0.5, 0.7]))
    for step in (crank_nicolson, crank_nicolson_banded):

        def energy(u, alpha, step=step):
            return np.sum(step(u, alpha) ** 3)

        fd_close(ft.jacrev, step, (u0, 0.5))
        fd_close(ft.jacfwd, step, (u0, 0.5), 1)
        fd_close(ft.grad, energy, (u0, 0.5), 1)
        got = ft.hessian(energy)(u0, 0.5)
        close(got, fd_jacobian(ft.grad(energy), (u0, 0.5), eps=1e-4), FD_TOL, "hessian")
        check_vmap(step, batch, (0, 0))
        check_vmap(ft.grad(energy, argnums=1), batch, (0, 0))
        alpha = np.float64(0.5)  # (a Python float is static under jit)
        check_jit(step, (u0, alpha), (u0 + 0.1, alpha + 0.1))
        jit_grad = ft.jit(ft.grad(energy, argnums=1))(u0, alpha)
        close(jit_grad, fd_jacobian(energy, (u0, 0.5), 1, eps=1e-4), FD_TOL)


# --- Gauss-Seidel and LU ------------------------------------------------------------


def gauss_seidel(A, b, iters=10):
    n = len(b)
    x = np.zeros_like(b)
    for _ in range(iters):
        for i in range(n):
            s1 = np.dot(A[i, :i], x[:i])
            s2 = np.dot(A[i, i + 1 :], x[i + 1 :])
            x[i] = (b[i] - s1 - s2) / A[i, i]
    return x


def lu_fit(A, b):
    lu, piv = scipy.linalg.lu_factor(A)
    return scipy.linalg.lu_solve((lu, piv), b)


def log_abs_det_by_lu(A):
    _, _, u = scipy.linalg.lu(A)
    return np.log(np.abs(np.prod(np.diag(u))))


def test_gauss_seidel_and_lu_solvers():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((4, 4)) + 6 * np.eye(4)
    b = rng.standard_normal(4)
    close(gauss_seidel(A, b, 25), np.linalg.solve(A, b))
    close(lu_fit(A, b), np.linalg.solve(A, b))
    close(scipy.linalg.lu_solve(scipy.linalg.lu_factor(A), b, trans=1), np.linalg.solve(A.T, b))
    As = np.stack([A, A.T, A + 1])
    for solve in (gauss_seidel, lu_fit):

        def loss(A, b, solve=solve):
            return np.sum(solve(A, b) ** 3)

        fd_close(ft.jacrev, solve, (A, b))
        fd_close(ft.jacfwd, solve, (A, b), 1)
        got = ft.hessian(loss, argnums=1)(A, b)
        close(got, fd_jacobian(ft.grad(loss, argnums=1), (A, b), 1, eps=1e-4), FD_TOL)
        check_vmap(solve, (As, b), (0, None))
        check_vmap(ft.grad(loss), (As, b), (0, None))
        check_jit(solve, (A, b), (A + 0.1, b + 0.2))
    close(ft.grad(log_abs_det_by_lu)(A), np.linalg.inv(A).T)
    check_vmap(log_abs_det_by_lu, (As,), (0,))


# --- Raschka's scikit-learn-style classifiers ------------------------------------------


class AdalineGD:
    def __init__(self, eta=0.01, n_iter=10):
        self.eta = eta
        self.n_iter = n_iter

    def fit(self, X, y):
        self.w_ = np.zeros(1 + X.shape[1])
        self.cost_ = []
        for _ in range(self.n_iter):
            errors = y - self.net_input(X)
            self.w_[1:] += self.eta * X.T.dot(errors)
            self.w_[0] += self.eta * errors.sum()
            self.cost_.append((errors**2).sum() / 2.0)
        return self

    def net_input(self, X):
        return np.dot(X, self.w_[1:]) + self.w_[0]

    def predict(self, X):
        return self.net_input(X)


class LogisticRegressionGD(AdalineGD):
    def __init__(self, eta=0.05, n_iter=8, random_state=1):
        super().__init__(eta, n_iter)
        self.random_state = random_state

    def fit(self, X, y):
        rgen = np.random.RandomState(self.random_state)
        self.w_ = rgen.normal(loc=0.0, scale=0.01, size=1 + X.shape[1])
        self.cost_ = []
        for _ in range(self.n_iter):
            output = self.activation(self.net_input(X))
            errors = y - output
            self.w_[1:] += self.eta * X.T.dot(errors)
            self.w_[0] += self.eta * errors.sum()
            self.cost_.append(-y.dot(np.log(output)) - (1 - y).dot(np.log(1 - output)))
        return self

    def activation(self, z):
        return 1.0 / (1.0 + np.exp(-np.clip(z, -250, 250)))

    def predict_proba(self, X):
        return self.activation(self.net_input(X))


def adaline_score(X, y):
    model = AdalineGD().fit(X, y)
    return np.mean((model.predict(X + 0.1) - y) ** 2) + model.cost_[-1]


def logistic_score(X, y):
    return np.sum(LogisticRegressionGD().fit(X, y).predict_proba(X))


def test_raschka_classifiers_fit_predict():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((8, 3))
    y = X @ np.array([1.0, -2.0, 0.5]) + 0.3
    Xs = np.stack([X, 2 * X, X + 1])
    fd_close(ft.grad, adaline_score, (X, y))
    fd_close(ft.grad, adaline_score, (X, y), 1)
    check_vmap(adaline_score, (Xs, y), (0, None))
    check_jit(adaline_score, (X, y), (X + 0.1, y))
    labels = (y > 0).astype(float)
    fd_close(ft.grad, logistic_score, (X, labels))
    check_vmap(logistic_score, (Xs, labels), (0, None))
    # the RandomState(1) made inside draws the same numbers at every call: replayed
    check_jit(logistic_score, (X, labels), (X + 0.1, labels))


def test_jit_of_a_fit_returning_self_raises_not_an_array_error():
    X = np.arange(6.0).reshape(3, 2)
    with pytest.raises(ft.errors.NotAnArrayError, match="AdalineGD.*register_pytree_node"):
        ft.jit(AdalineGD(n_iter=2).fit)(X, X[:, 0])
    with pytest.raises(ft.errors.NotAnArrayError, match="generator"):
        ft.jit(lambda x: (v for v in x))(X)
    close(ft.jit(lambda x: 2 * x)(X), 2 * X)  # the next call works


# --- optimizers with state: numpy-ml's Adam, CS231n's adam ------------------------------


class NumpyMLAdam:
    def __init__(self, lr=0.1, decay1=0.9, decay2=0.999, eps=1e-7):
        self.cache = {}
        self.hyperparameters = {"lr": lr, "decay1": decay1, "decay2": decay2, "eps": eps}

    def update(self, param, param_grad, param_name):
        C, H = self.cache, self.hyperparameters
        d1, d2, eps, lr = H["decay1"], H["decay2"], H["eps"], H["lr"]
        if param_name not in C:
            C[param_name] = {
                "t": 0,
                "mean": np.zeros_like(param_grad),
                "var": np.zeros_like(param_grad),
            }
        t = C[param_name]["t"] + 1
        var, mean = C[param_name]["var"], C[param_name]["mean"]
        C[param_name]["t"] = t
        C[param_name]["var"] = d2 * var + (1 - d2) * param_grad**2
        C[param_name]["mean"] = d1 * mean + (1 - d1) * param_grad
        v_hat = C[param_name]["var"] / (1 - d2**t)
        m_hat = C[param_name]["mean"] / (1 - d1**t)
        return param - lr * m_hat / (np.sqrt(v_hat) + eps)


def cs231n_adam(w, dw, config=None):
    if config is None:
        config = {}
    config.setdefault("learning_rate", 1e-3)
    config.setdefault("beta1", 0.9)
    config.setdefault("beta2", 0.999)
    config.setdefault("epsilon", 1e-8)
    config.setdefault("m", np.zeros_like(w))
    config.setdefault("v", np.zeros_like(w))
    config.setdefault("t", 0)
    config["t"] += 1
    config["m"] = config["beta1"] * config["m"] + (1 - config["beta1"]) * dw
    mt = config["m"] / (1 - config["beta1"] ** config["t"])
    config["v"] = config["beta2"] * config["v"] + (1 - config["beta2"]) * (dw**2)
    vt = config["v"] / (1 - config["beta2"] ** config["t"])
    next_w = w - config["learning_rate"] * mt / (np.sqrt(vt) + config["epsilon"])
    return next_w, config


def test_adam_optimizers_stepped_under_jit_and_differentiated():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((8, 3))
    y = X @ np.array([1.0, -2.0, 0.5])
    w0 = np.array([0.3, -0.2, 0.1])

    def gradient(w):
        return 2 * X.T @ (X @ w - y) / len(y)

    def numpy_ml_steps(jitted):
        opt = NumpyMLAdam()
        update = ft.jit(opt.update) if jitted else opt.update
        w, path = w0, []
        for _ in range(4):
            w = update(w, gradient(w), "W")
            path.append(w)
        return np.stack(path), opt.cache["W"]["t"], opt.cache["W"]["mean"]

    def cs231n_steps(jitted):
        step = ft.jit(cs231n_adam) if jitted else cs231n_adam
        w, config, path = w0, {"learning_rate": 0.1}, []
        for _ in range(4):
            w, config = step(w, gradient(w), config)
            path.append(w)
        return np.stack(path), config["t"], config["m"]

    for steps in (numpy_ml_steps, cs231n_steps):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # (state kept outside: eager)
            got = steps(True)
        want = steps(False)
        close(got[0], want[0])
        assert got[1] == want[1] == 4
        close(got[2], want[2])

    def trained_loss(w):
        opt, config = NumpyMLAdam(), {"learning_rate": 0.1}
        for _ in range(3):
            w = opt.update(w, gradient(w), "W")
            w, config = cs231n_adam(w, gradient(w), config)
        return np.sum((X @ w - y) ** 2)

    fd_close(ft.grad, trained_loss, (w0,))
    close(ft.hessian(trained_loss)(w0), fd_jacobian(ft.grad(trained_loss), (w0,), eps=1e-4))
    check_vmap(trained_loss, (np.stack([w0, 2 * w0, w0 - 1]),), (0,))
    check_jit(trained_loss, (w0,), (w0 + 0.1,))


# --- Metropolis-Hastings, a multiclass hinge, a CTMC likelihood ---------------------------


def metropolis_mean(x0, mu, proposals, uniforms):
    def log_p(z):
        return -0.5 * (z - mu) ** 2

    x = x0
    samples = np.empty(len(proposals))
    for i in range(len(proposals)):
        x_new = x + proposals[i]
        if np.log(uniforms[i]) < log_p(x_new) - log_p(x):
            x = x_new
        samples[i] = x
    return samples.mean()


def multiclass_hinge(scores, y):
    correct = np.take_along_axis(scores, y[:, None], axis=1)
    margins = np.maximum(0, scores - correct + 1)
    np.put_along_axis(margins, y[:, None], 0, axis=1)
    return margins.sum() / scores.shape[0]


def ctmc_log_likelihood(q):
    Q = np.array([[-q[0], q[0], 0], [q[1], -q[1] - q[2], q[2]], [0, q[3], -q[3]]])
    P = scipy.linalg.expm(0.7 * Q)
    return np.log(P[0, 2]) + np.log(P[2, 1])


def test_metropolis_hinge_and_ctmc():
    rng = np.random.default_rng(3)
    proposals, uniforms = 0.5 * rng.standard_normal(15), rng.random(15)
    starts = np.array([0.1, -2.0, 3.0])
    fd_close(ft.grad, metropolis_mean, (0.1, 1.3, proposals, uniforms), 1)
    check_vmap(metropolis_mean, (starts, 1.3, proposals, uniforms), (0, None, None, None))
    dmu = ft.grad(metropolis_mean, argnums=1)
    check_vmap(dmu, (starts, 1.3, proposals, uniforms), (0, None, None, None))

    scores, y = rng.standard_normal((5, 4)), np.array([0, 3, 1, 2, 1])
    fd_close(ft.grad, multiclass_hinge, (scores, y))
    check_vmap(multiclass_hinge, (np.stack([scores, 2 * scores, scores + 1]), y), (0, None))
    check_vmap(multiclass_hinge, (scores, np.stack([y, y[::-1], (y + 1) % 4])), (None, 0))
    check_jit(multiclass_hinge, (scores, y), (scores + 0.1, y))

    q = np.array([0.5, 0.3, 0.9, 0.4])
    fd_close(ft.grad, ctmc_log_likelihood, (q,))
    check_vmap(ctmc_log_likelihood, (np.stack([q, 2 * q, q + 0.1]),), (0,))
    # (expm picks its squarings from the norm: a signature that reads the data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check_jit(ctmc_log_likelihood, (q,), (q + 0.1,), replayed=False)


# --- a sampler that seeds NumPy's global generator, vmapped with randomness='same' --------


def metropolis_seeded(mu, n=20):
    """A textbook random-walk Metropolis sampler: reproducible through np.random.seed."""
    np.random.seed(42)
    x, chain = 0.0, []
    for _ in range(n):
        proposal = x + np.random.normal(0, 0.5)
        if np.random.rand() < np.exp(-0.5 * (proposal - mu) ** 2 + 0.5 * (x - mu) ** 2):
            x = proposal
        chain.append(x)
    return np.mean(chain)


def test_seeded_sampler_under_a_split_same_randomness_vmap_draws_as_the_loop():
    # every row of the loop reseeds, so they share their draws: randomness='same'; the
    # rows accept different proposals, so the batch splits at the ``if``, and each group
    # reseeds before drawing past the draws it replays (NOTE [a reseed in a split 'same'
    # batch])
    mus = np.array([0.5, 2.0, 0.7, 3.0, 0.1])
    want = np.array([metropolis_seeded(m) for m in mus])
    after_loop = np.random.get_state()
    dmu = np.array([ft.grad(metropolis_seeded)(m) for m in mus])
    for chunk_size in (None, 2):
        np.random.seed(0)
        got = ft.vmap(metropolis_seeded, randomness="same", chunk_size=chunk_size)(mus)
        close(got, want)
        after = np.random.get_state()  # where the loop leaves NumPy's generator
        assert after[2] == after_loop[2] and np.array_equal(after[1], after_loop[1])
        same = ft.vmap(ft.grad(metropolis_seeded), randomness="same", chunk_size=chunk_size)
        close(same(mus), dmu)
    close(ft.vmap(metropolis_seeded, randomness="different")(mus), want)


def noisy_quadratic_with_own_generator(mu):
    """Draws from a generator it seeds itself, through ftransforms.random (one import)."""
    rng = np.random.default_rng(42)
    first = ft.random.normal(rng)
    if mu > 1:  # the rows split here
        mu = 2 * mu
    rest = ft.random.normal(rng, size=2)
    return np.concatenate([np.atleast_1d(first), rest]) * mu


def test_generator_made_inside_under_a_split_same_randomness_vmap_draws_as_the_loop():
    mus = np.array([0.5, 2.0, 0.7])
    want = np.stack([noisy_quadratic_with_own_generator(m) for m in mus])
    close(ft.vmap(noisy_quadratic_with_own_generator, randomness="same")(mus), want)
