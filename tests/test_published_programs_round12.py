"""Published programs, round twelve: NumPy/SciPy programs of kinds earlier rounds did not
have, run unchanged under the transforms.

Each program lives in its own module under ``tests/published12/``, written in its
authors' style: a toy ray tracer (``x /= np.linalg.norm(...)`` in place, ``np.clip``,
``np.where`` on hits and misses), a planar arm's forward kinematics from
``np.array([[c, -s, x], [s, c, y], [0, 0, 1]])`` of traced angles and its inverse kinematics
by Newton steps through ``np.linalg.pinv`` / damped ``np.linalg.lstsq`` (a Jacobian filled
entry by entry into ``np.zeros``), mean-variance portfolios (``np.cov``, a softmax of
logits, the closed-form frontier through ``np.linalg.inv``), SIR/SEIR epidemics through
``scipy.integrate.odeint`` / ``solve_ivp`` and their fits, SoftSort / soft ranks /
NeuralSort, a double pendulum (``np.cross`` angular momentum, ``np.linalg.solve`` equations
of motion, an RK4 rollout into a preallocated trajectory), a Lotka-Volterra fit, and
finite-difference physics losses (``np.roll`` Laplacian, ``np.gradient`` Burgers residual,
an explicit 2-D heat equation updating ``u[1:-1, 1:-1] +=``).

Oracles: float64 central differences, Python loops for ``vmap``, closed forms (the
inverse-kinematics Jacobian is ``inv(J(q*))`` at the solution; the mean-variance utility's
Hessian is ``-gamma * cov``), and eager runs for ``jit``.

What this round found and fixed (the test here fails without it):

* ``np.linalg.lstsq(a, b)`` with a square or wide ``a`` read the rank's value (to size the
  residuals, which are empty for such an ``a`` whatever the data), so ``jit`` marked every
  program calling it value-dependent and recorded it again for each new input; only a tall
  ``a`` reads the rank now;
* ``rng.laplace`` / ``logistic`` / ``gumbel`` / ``rayleigh`` / ``gamma`` / ``weibull`` with
  a traced location, scale or Weibull shape (a ``Generator``'s, a ``RandomState``'s or
  ``np.random``'s: a noisy renderer's jitter, a reparameterised sample) raised
  ``TracerConversionError`` in NumPy's C code, as ``normal`` did before NOTE [draws with
  traced parameters]; they are now NumPy's draw with unit parameters (``weibull``: the
  standard exponential) mapped by the traced ones, as NumPy's C code computes them: bit for
  bit its values.  A traced gamma ``shape`` (drawn by rejection) and a Weibull ``a`` of 0
  (no draw in NumPy) raise ``UnsupportedOperationError`` naming the way out;
* the other draws (``poisson``, ``binomial``, ...) given a traced parameter raised a
  ``TracerConversionError`` about ``numpy.array(..., dtype=float64)`` from NumPy's C code,
  naming no draw; they raise ``UnsupportedOperationError`` naming the draw, why, and the
  draws that take traced parameters.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ftransforms as ft
from tests.program_oracles import (
    FD_TOL,
    check_jit,
    check_vmap,
    close,
    fd_jacobian,
)
from tests.published12 import (
    arm_ik,
    epidemic,
    lotka_volterra,
    pendulum,
    pinn_stencil,
    portfolio,
    ray_tracing,
    softsort,
)

#: ODE solutions carry the integrator's error (rtol 1e-10) into the differences
ODE_TOL = {"rtol": 1e-5, "atol": 1e-7}


@pytest.fixture(autouse=True)
def _quiet_splits():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ft.errors.PerformanceWarning)
        yield


def fd_close(transform, f, args, argnum=0, eps=1e-3, tolerance=FD_TOL):
    got = transform(f, argnums=argnum)(*args)
    close(got, fd_jacobian(f, args, argnum, eps=eps), tolerance, transform.__name__)
    return got


# ======================================================================================
# Ray tracing
# ======================================================================================


def test_ray_tracer_image_loss_derivatives():
    m = ray_tracing
    S = np.array([0.1, 0.2, 1.0])
    L = np.array([5.0, 5.0, -10.0])
    target = np.full((30, 3), 0.3)
    args = (S, L, target)
    fd_close(ft.grad, m.image_loss, args, 0, eps=1e-5)
    fd_close(ft.grad, m.image_loss, args, 1, eps=1e-5)
    fd_close(ft.jacfwd, m.image_loss, args, 0, eps=1e-5)
    check_jit(m.image_loss, args, (S + 0.05, L, target))


def test_ray_tracer_vmap_over_scenes_and_rays():
    m = ray_tracing
    O, D = m.make_rays()  # noqa: E741
    S = np.array([0.1, 0.2, 1.0])
    L = np.array([5.0, 5.0, -10.0])
    blue = np.array([0.0, 0.0, 1.0])
    check_vmap(lambda s: m.shade(O, D, s, 0.7, L, blue), (np.stack([S, S + 0.1, S - 0.2]),), (0,))
    one_ray = lambda o, d: m.intersect_sphere(o[None], d[None], S, 0.7)  # noqa: E731
    check_vmap(one_ray, (O, D), (0, 0))


# ======================================================================================
# Arm kinematics
# ======================================================================================


@pytest.mark.parametrize("fk", ["forward_kinematics", "fk_rotations", "fk_cumsum"])
def test_forward_kinematics_chain(fk):
    fk = getattr(arm_ik, fk)
    q = np.array([0.3, -0.4, 0.6])
    lengths = np.array([1.0, 0.8, 0.5])
    jac = fd_close(ft.jacrev, fk, (q, lengths))
    close(ft.jacfwd(fk)(q, lengths), jac)
    check_vmap(fk, (np.stack([q, 2 * q, -q]), lengths), (0, None))
    total = lambda q: fk(q, lengths).sum()  # noqa: E731
    close(ft.hessian(total)(q), fd_jacobian(ft.grad(total), (q,)), FD_TOL)


def test_hand_written_arm_jacobian_matches_jacrev():
    q = np.array([0.3, -0.4, 0.6])
    lengths = np.array([1.0, 0.8, 0.5])
    close(ft.jacrev(arm_ik.fk_cumsum)(q, lengths), arm_ik.jacobian(q, lengths))


@pytest.mark.parametrize("solver", ["ik_pinv", "ik_lstsq"])
def test_inverse_kinematics_newton(solver):
    solver = getattr(arm_ik, solver)
    q0 = np.array([0.3, 0.9])
    lengths = np.array([1.0, 0.8])
    target = np.array([1.2, 1.0])
    q_star = solver(target, q0, lengths)
    close(arm_ik.fk_cumsum(q_star, lengths), target)
    # the converged solution's sensitivity is the inverse Jacobian there
    jac = ft.jacfwd(solver)(target, q0, lengths)
    close(jac, np.linalg.inv(arm_ik.jacobian(q_star, lengths)), {"rtol": 1e-9, "atol": 1e-10})
    close(ft.jacrev(solver)(target, q0, lengths), jac)
    fd_close(ft.grad, lambda ls: solver(target, q0, ls).sum(), (lengths,), eps=1e-4)
    targets = np.stack([target, 0.9 * target, target[::-1]])
    check_vmap(solver, (targets, q0, lengths), (0, None, None))
    # a tall lstsq's residuals are empty or not by the rank's value: jit records per input
    tall = solver is arm_ik.ik_lstsq
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check_jit(solver, (target, q0, lengths), (0.9 * target, q0, lengths), not tall)


def test_lstsq_of_a_square_or_wide_matrix_does_not_read_the_data_under_jit():
    # the fix: only a tall a's residuals depend on the rank's value
    rng = np.random.default_rng(0)
    for shape in [(3, 3), (2, 3)]:
        A = rng.standard_normal(shape)
        b = np.ones(shape[0])
        solve = lambda a: np.linalg.lstsq(a, b, rcond=None)  # noqa: E731
        check_jit(solve, (A,), (2 * A + 0.1,))
        x, res, rank, s = ft.jit(solve)(A)
        assert res.shape == (0,) and int(rank) == min(shape)
    # a tall one still has its residuals
    A = rng.standard_normal((4, 2))
    with pytest.warns(RuntimeWarning, match="depends on data"):
        x, res, rank, s = ft.jit(lambda a: np.linalg.lstsq(a, np.ones(4), rcond=None))(A)
    close(res, np.linalg.lstsq(A, np.ones(4), rcond=None)[1])


# ======================================================================================
# Portfolios
# ======================================================================================


def test_sharpe_ratio_of_softmax_weights():
    m = portfolio
    R = m.make_returns()
    z = np.array([0.1, -0.2, 0.3, 0.0])
    fd_close(ft.grad, m.neg_sharpe, (z, R), 0)
    fd_close(ft.grad, m.neg_sharpe, (z, R), 1)
    close(ft.hessian(m.neg_sharpe)(z, R), fd_jacobian(ft.grad(m.neg_sharpe), (z, R)), FD_TOL)
    check_vmap(m.neg_sharpe, (z, np.stack([R, 1.1 * R, R[::-1]])), (None, 0))
    check_vmap(ft.grad(m.neg_sharpe), (np.stack([z, -z, 2 * z]), R), (0, None))
    check_jit(m.neg_sharpe, (z, R), (2 * z, 1.1 * R))


def test_mean_variance_utility_and_frontier():
    m = portfolio
    R = m.make_returns()
    w = m.softmax(np.array([0.1, -0.2, 0.3, 0.0]))
    close(ft.hessian(m.utility)(w, R), -3.0 * np.cov(R, rowvar=False))
    fd_close(ft.grad, m.utility, (w, R), 1)
    fd_close(ft.jacrev, m.min_variance_weights, (R,), eps=1e-5)
    fd_close(ft.jacfwd, m.min_variance_weights, (R,), eps=1e-5)
    fd_close(ft.jacrev, m.efficient_frontier_point, (R, 0.007), 0, eps=1e-5)
    fd_close(ft.jacfwd, m.efficient_frontier_point, (R, 0.007), 1, eps=1e-5)
    check_vmap(m.efficient_frontier_point, (R, np.array([0.005, 0.007, 0.009])), (None, 0))


# ======================================================================================
# Epidemics
# ======================================================================================


def test_sir_odeint_fit():
    m = epidemic
    t = np.linspace(0, 40, 11)
    p = np.array([0.4, 0.1])
    data = m.simulate_sir(np.array([0.35, 0.12]), t)
    fd_close(ft.grad, m.sir_loss, (p, t, data), eps=1e-5, tolerance=ODE_TOL)
    check_vmap(m.simulate_sir, (np.stack([p, 1.1 * p, 0.9 * p]), t), (0, None), ODE_TOL)


def test_seir_solve_ivp_fit():
    m = epidemic
    t = np.linspace(0, 20, 6)
    p = np.array([0.9, 0.3, 0.2])
    data = m.simulate_seir(np.array([1.0, 0.25, 0.2]), t)
    fd_close(ft.grad, m.seir_loss, (p, t, data), eps=1e-5, tolerance=ODE_TOL)
    check_vmap(m.simulate_seir, (np.stack([p, 1.1 * p]), t), (0, None), ODE_TOL)


# ======================================================================================
# Differentiable sorting
# ======================================================================================


@pytest.mark.parametrize("name", ["softsort", "soft_rank", "neuralsort", "softsort_matrix"])
def test_soft_sorting(name):
    fn = getattr(softsort, name)
    f = lambda s: np.ravel(fn(s))  # noqa: E731
    s = np.array([0.3, -1.2, 2.0, 0.7, 0.1])
    jac = fd_close(ft.jacrev, f, (s,))
    close(ft.jacfwd(f)(s), jac)
    check_vmap(f, (np.stack([s, -s, s[::-1]]),), (0,))
    check_jit(f, (s,), (s[::-1].copy(),), False)


def test_spearman_loss_with_soft_ranks():
    m = softsort
    s = np.array([0.3, -1.2, 2.0, 0.7, 0.1])
    target = np.array([1.0, 3.0, 2.0, 5.0, 4.0])
    fd_close(ft.grad, m.spearman_loss, (s, target))
    close(
        ft.hessian(m.spearman_loss)(s, target),
        fd_jacobian(ft.grad(m.spearman_loss), (s, target)),
        FD_TOL,
    )
    check_vmap(m.spearman_loss, (s, np.stack([target, target[::-1]])), (None, 0))


# ======================================================================================
# Double pendulum and Lotka-Volterra
# ======================================================================================


def test_double_pendulum_energy_and_momentum():
    m = pendulum
    state = np.array([0.5, -0.3, 0.8, 1.1])
    fd_close(ft.grad, m.energy, (state,))
    close(ft.hessian(m.energy)(state), fd_jacobian(ft.grad(m.energy), (state,)), FD_TOL)
    fd_close(ft.jacrev, m.angular_momentum, (state,))
    fd_close(ft.jacfwd, m.angular_momentum, (state,))
    fd_close(ft.jacfwd, m.derivs, (state,))
    traj = m.rk4_rollout(state)
    check_vmap(ft.hessian(m.energy), (traj[:5],), (0,))


def test_double_pendulum_rollout():
    m = pendulum
    state = np.array([0.5, -0.3, 0.8, 1.1])
    fd_close(ft.jacrev, lambda s: m.rk4_rollout(s, steps=20)[-1], (state,))
    check_vmap(lambda s: m.rk4_rollout(s, steps=20), (np.stack([state, -state]),), (0,))
    check_jit(lambda s: m.rk4_rollout(s, steps=20), (state,), (0.7 * state,))


def test_lotka_volterra_fit():
    m = lotka_volterra
    lp = np.log(np.array([1.0, 0.5, 0.4, 0.8]))
    z0 = np.array([2.0, 1.0])
    data = m.integrate(np.exp(lp + 0.1), z0)
    args = (lp, z0, data)
    fd_close(ft.grad, m.misfit, args, 0, eps=1e-5)
    fd_close(ft.grad, m.misfit, args, 1, eps=1e-5)
    fit = lambda p: m.fit(p, z0, data, grad_fn=ft.grad(m.misfit))  # noqa: E731
    check_jit(fit, (lp,), (lp + 0.05,))
    check_vmap(ft.grad(m.misfit), (np.stack([lp, lp + 0.05]), z0, data), (0, None, None))


# ======================================================================================
# Finite-difference physics
# ======================================================================================


def test_poisson_residual_with_roll_stencil():
    m = pinn_stencil
    rng = np.random.default_rng(0)
    u, f, h = rng.standard_normal((6, 6)), rng.standard_normal((6, 6)), 0.2
    fd_close(ft.grad, m.poisson_residual_loss, (u, f, h))
    hess = ft.hessian(m.poisson_residual_loss)(u, f, h).reshape(36, 36)
    close(hess, fd_jacobian(ft.grad(m.poisson_residual_loss), (u, f, h)).reshape(36, 36), FD_TOL)
    check_vmap(m.poisson_residual_loss, (np.stack([u, 2 * u]), f, h), (0, None, None))


def test_burgers_residual_with_np_gradient():
    m = pinn_stencil
    rng = np.random.default_rng(1)
    x = np.linspace(0, 1, 7)
    t = np.array([0.0, 0.1, 0.25, 0.3])  # uneven spacing
    u = rng.standard_normal((4, 7))
    args = (u, x, t)
    fd_close(ft.jacrev, m.burgers_residual, args, 0)
    fd_close(ft.jacfwd, m.burgers_residual, args, 1, eps=1e-5)
    fd_close(ft.jacrev, m.burgers_residual, args, 2, eps=1e-5)
    check_vmap(m.burgers_residual, (np.stack([u, -u]), x, t), (0, None, None))
    check_vmap(m.burgers_residual, (u, np.stack([x, x**2]), t), (None, 0, None))
    check_jit(m.burgers_residual, args, (2 * u, x, t))


def test_heat_2d_explicit_steps():
    m = pinn_stencil
    fd_close(ft.grad, m.heat2d_source, (1.5,))
    fd_close(ft.grad, m.heat2d_source, (1.5, 0.1), 1, eps=1e-5)
    u0 = np.random.default_rng(2).random((7, 7))
    step = lambda u, a: m.heat2d(u, a, 0.01, 0.2, 5)  # noqa: E731
    jac = fd_close(ft.jacrev, step, (u0, 0.1))
    close(ft.jacfwd(step)(u0, 0.1), jac)
    check_vmap(step, (np.stack([u0, u0**2]), 0.1), (0, None))
    check_vmap(step, (u0, np.array([0.1, 0.2, 0.05])), (None, 0))
    check_jit(step, (u0, np.float64(0.1)), (u0**2, np.float64(0.2)))


# ======================================================================================
# Draws with traced parameters (a noisy renderer's or a stochastic model's samples)
# ======================================================================================

_LOCATION_SCALE_DRAWS = {
    "laplace": lambda r, a, b: r.laplace(a, b, size=(2, 3)),
    "logistic": lambda r, a, b: r.logistic(loc=a, scale=b, size=6),
    "gumbel": lambda r, a, b: r.gumbel(a, b, 6),
    "rayleigh": lambda r, a, b: r.rayleigh(b, 6) + a,
    "gamma": lambda r, a, b: r.gamma(np.array([0.5, 2.0, 3.0]), b, size=(2, 3)) + a,
    "gamma_keywords": lambda r, a, b: r.gamma(shape=2.5, scale=b * np.ones(4)),
    "weibull": lambda r, a, b: r.weibull(np.array([0.5, 1.0, 2.5]) * b, size=(2, 3)) + a,
}


def _seeded(maker, call):
    def sample(q):
        if maker == "global":
            np.random.seed(7)
            rng = np.random
        else:
            rng = np.random.default_rng(7) if maker == "Generator" else np.random.RandomState(7)
        return call(rng, q[0], np.exp(q[1]))

    return sample


@pytest.mark.parametrize("maker", ["Generator", "RandomState", "global"])
@pytest.mark.parametrize("name", sorted(_LOCATION_SCALE_DRAWS))
def test_location_scale_draws_with_traced_parameters(maker, name):
    # the fix: these raised TracerConversionError in NumPy's C code; now NumPy's unit draw
    # mapped by the traced parameters, bit for bit NumPy's values
    f = _seeded(maker, _LOCATION_SCALE_DRAWS[name])
    p = np.array([0.3, -0.2])
    ps = np.stack([p, 2 * p, -p])
    mapped = ft.vmap(f, randomness="same" if maker == "global" else "error")(ps)
    np.testing.assert_array_equal(mapped, np.stack([f(q) for q in ps]))
    close(ft.jacrev(f)(p), fd_jacobian(f, (p,)), FD_TOL)  # the seed fixed
    compiled = ft.jit(f)
    with warnings.catch_warnings():  # a global draw is recorded per call
        warnings.simplefilter("ignore", RuntimeWarning)
        compiled(p)
    np.testing.assert_array_equal(compiled(2 * p), f(2 * p))


def test_draws_with_traced_parameters_keep_numpys_checks():
    with pytest.raises(ValueError, match="scale < 0"):
        ft.grad(lambda s: np.random.default_rng(0).laplace(0.0, -s))(2.0)
    with pytest.raises(ft.errors.UnsupportedOperationError, match="traced shape"):
        ft.grad(lambda k: np.random.default_rng(0).gamma(k, 1.0))(2.0)
    with pytest.raises(ft.errors.UnsupportedOperationError, match="an a of 0"):
        ft.vmap(lambda a: np.random.default_rng(0).weibull(a))(np.array([1.0, 0.0]))
    with pytest.raises(ValueError, match="a < 0"):
        ft.grad(lambda a: np.random.default_rng(0).weibull(-a))(2.0)


@pytest.mark.parametrize(
    "draw",
    [
        lambda lam: np.random.default_rng(0).poisson(lam, 3),
        lambda lam: np.random.RandomState(0).binomial(5, lam / 4, 3),
        lambda lam: np.random.poisson(lam, 3),
    ],
)
def test_draws_that_cannot_take_traced_parameters_say_so(draw):
    # the fix: NumPy's C code met the tracer with a conversion error naming no draw
    for transform in (ft.grad, ft.vmap):
        f = (lambda lam: draw(lam).sum() * lam) if transform is ft.grad else draw
        wrapped = transform(f) if transform is ft.grad else ft.vmap(f, randomness="same")
        with pytest.raises(ft.errors.UnsupportedOperationError, match=r"poisson|binomial"):
            wrapped(np.array([1.0, 2.0]) if transform is ft.vmap else 1.0)
    # an array the function made is plain data: it still draws
    made = lambda w: np.random.default_rng(0).poisson(np.array([1.0, 2.0]), 2) * w  # noqa: E731
    close(ft.vmap(made)(np.array([1.0, 2.0])), np.stack([made(1.0), made(2.0)]))
