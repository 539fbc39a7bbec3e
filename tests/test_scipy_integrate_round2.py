"""``solve_ivp`` (RK45, RK23) and ``simpson`` on tracers.  Oracles: SciPy's own solver
and rule (the same steps, so the same times and values to rounding), float64 central
differences for gradients, a Python loop for vmap; and SciPy's own names reaching them
under the transforms."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.integrate as si

import ftransforms as ft
import ftransforms.numpy as fnp
from ftransforms.errors import UnsupportedOperationError
from ftransforms.scipy.integrate import simpson, solve_ivp


def lotka(t, y, a=1.5, b=1.0, c=3.0, d=1.0):
    return fnp.stack([a * y[0] - b * y[0] * y[1], -c * y[1] + d * y[0] * y[1]])


def lotka_np(t, y, a=1.5, b=1.0, c=3.0, d=1.0):
    return np.array([a * y[0] - b * y[0] * y[1], -c * y[1] + d * y[0] * y[1]])


Y0 = np.array([10.0, 5.0])
OPTIONS = [
    {},
    {"rtol": 1e-8, "atol": 1e-10},
    {"t_eval": np.linspace(0.0, 5.0, 11)},
    {"max_step": 0.1},
    {"first_step": 0.01},
]


@pytest.mark.parametrize("method", ["RK45", "RK23"])
@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(o) or "defaults")
def test_solve_ivp_takes_scipys_steps(method, options):
    ours = solve_ivp(lotka, (0.0, 5.0), Y0, method=method, **options)
    theirs = si.solve_ivp(lotka_np, (0.0, 5.0), Y0, method=method, **options)
    assert ours.t.shape == theirs.t.shape and ours.nfev == theirs.nfev
    # the step-size controller reads the error estimate, a difference of nearly equal
    # stage sums: its relative rounding is about eps / rtol, and the steps inherit it
    # through error_norm ** (-1 / 5) (at rtol=1e-8, about 1e-9 after 100 steps)
    rounding = 1e-10 if "rtol" not in options else 1e-7
    np.testing.assert_allclose(ours.t, theirs.t, rtol=rounding)
    np.testing.assert_allclose(ours.y, theirs.y, rtol=100 * rounding, atol=1e-10)
    assert ours.success and ours.status == 0 and ours.message == theirs.message


def test_solve_ivp_backwards_with_args():
    kw = {"args": (0.7,), "t_eval": [2.0, 1.5, 0.3, 0.0]}
    ours = solve_ivp(lambda t, y, k: -k * y, (2.0, 0.0), np.array([1.0, 2.0]), **kw)
    theirs = si.solve_ivp(lambda t, y, k: -k * y, (2.0, 0.0), np.array([1.0, 2.0]), **kw)
    np.testing.assert_allclose(ours.t, theirs.t)
    np.testing.assert_allclose(ours.y, theirs.y, rtol=1e-12)


def _end(y0, k=1.3, method="RK45"):
    rhs = lambda t, y: -k * y + fnp.sin(y)  # noqa: E731
    tol = 1e-10 if method == "RK45" else 1e-7  # RK23 is third order: ~10x the steps
    return solve_ivp(rhs, (0.0, 1.5), y0, method=method, rtol=tol, atol=tol / 100).y[:, -1].sum()


@pytest.mark.parametrize("method", ["RK45", "RK23"])
def test_gradients_equal_finite_differences(method):
    y0, eps = np.array([0.5, 1.0]), 1e-6
    fd = [
        (_end(y0 + eps * e, method=method) - _end(y0 - eps * e, method=method)) / (2 * eps)
        for e in np.eye(2)
    ]
    np.testing.assert_allclose(ft.grad(lambda v: _end(v, method=method))(y0), fd, rtol=1e-6)
    dk = (_end(y0, 1.3 + eps, method) - _end(y0, 1.3 - eps, method)) / (2 * eps)
    np.testing.assert_allclose(ft.grad(lambda k: _end(y0, k, method))(1.3), dk, rtol=1e-5)
    np.testing.assert_allclose(ft.jacfwd(lambda v: _end(v, method=method))(y0), fd, rtol=1e-6)


def test_vmap_equals_the_loop_when_rows_take_different_steps():
    rows = np.array([[0.5, 1.0], [2.0, -1.0], [0.1, 0.1]])

    def f(y0):
        return solve_ivp(lambda t, y: -(y**3), (0.0, 2.0), y0, t_eval=[1.0, 2.0]).y

    np.testing.assert_allclose(ft.vmap(f)(rows), [f(r) for r in rows])


def test_the_other_methods_run_on_odeint():
    for method in ("DOP853", "Radau", "BDF", "LSODA"):
        ours = solve_ivp(
            lotka, (0.0, 2.0), Y0, method=method, t_eval=[1.0, 2.0], rtol=1e-10, atol=1e-10
        )
        theirs = si.solve_ivp(
            lotka_np, (0.0, 2.0), Y0, method="DOP853", t_eval=[1.0, 2.0], rtol=1e-12, atol=1e-12
        )
        np.testing.assert_allclose(ours.y, theirs.y, rtol=1e-7)


def test_unsupported_settings_are_clear_errors():
    with pytest.raises(ValueError, match="method must be one of"):
        solve_ivp(lotka, (0.0, 1.0), Y0, method="Euler")
    with pytest.raises(UnsupportedOperationError, match="events"):
        solve_ivp(lotka, (0.0, 1.0), Y0, events=lambda t, y: y[0])


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 9, 10])
def test_simpson_equals_scipy(n):
    rng = np.random.default_rng(n)
    y, x = rng.normal(size=(3, n)), np.sort(rng.uniform(size=n))
    for kw in ({}, {"x": x}, {"dx": 0.3}, {"x": np.tile(x, (3, 1))}):
        np.testing.assert_allclose(simpson(y, **kw), si.simpson(y, **kw), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(
        simpson(y.T, x=x, axis=0), si.simpson(y.T, x=x, axis=0), rtol=1e-12, atol=1e-14
    )


def test_scipys_own_names_reach_them_under_the_transforms():
    x = np.linspace(0.0, 1.0, 6)

    def f(y0):
        sol = si.solve_ivp(lambda t, y: -y, (0.0, 1.0), y0, rtol=1e-9, atol=1e-12)
        return sol.y[0, -1] + si.simpson(fnp.sin(y0[0] * x), x=x)

    y0, eps = np.array([0.8]), 1e-6
    fd = (f(y0 + eps) - f(y0 - eps)) / (2 * eps)
    np.testing.assert_allclose(ft.grad(f)(y0), fd, rtol=1e-6)
