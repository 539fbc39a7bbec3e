# ruff: noqa  (a published program in its authors' style)
"""Nonlinear least squares as taught in numerical-methods courses: Gauss-Newton and
Levenberg-Marquardt for a sum of decaying exponentials, the Jacobian written out column by
column (and by forward differences), the damping ``lam`` updated in Python (divided on a
successful step, multiplied on a rejected one), Marquardt's ``diag(J^T J)`` scaling and a
``while`` loop on the step size."""

import numpy as np


def model(p, t):
    a, k, c = p
    return a * np.exp(-k * t) + c


def jacobian(p, t):
    a, k, c = p
    J = np.empty((t.size, 3))
    e = np.exp(-k * t)
    J[:, 0] = e
    J[:, 1] = -a * t * e
    J[:, 2] = 1.0
    return J


def jacobian_fd(f, p, h=1e-7):
    f0 = f(p)
    J = np.zeros((f0.size, p.size))
    for j in range(p.size):
        dp = np.zeros_like(p)
        dp[j] = h * max(1.0, abs(p[j]))
        J[:, j] = (f(p + dp) - f0) / dp[j]
    return J


def gauss_newton(t, y, p0, n_iter=8):
    p = np.array(p0, dtype=float)
    for _ in range(n_iter):
        r = y - model(p, t)
        J = jacobian(p, t)
        dp = np.linalg.solve(J.T @ J, J.T @ r)
        p += dp
    return p


def levenberg_marquardt(t, y, p0, lam=1e-2, max_iter=50, tol=1e-12):
    p = np.array(p0, dtype=float)
    r = y - model(p, t)
    cost = 0.5 * r @ r
    for it in range(max_iter):
        J = jacobian(p, t)
        A = J.T @ J
        g = J.T @ r
        while True:
            A_damped = A + lam * np.diag(np.diag(A))
            step = np.linalg.solve(A_damped, g)
            p_new = p + step
            r_new = y - model(p_new, t)
            cost_new = 0.5 * r_new.dot(r_new)
            if cost_new < cost:
                lam /= 10.0
                break
            lam *= 10.0
            if lam > 1e10:
                return p
        converged = abs(cost - cost_new) < tol * (1 + cost)
        p, r, cost = p_new, r_new, cost_new
        if converged:
            break
    return p


def lm_fd_jacobian(t, y, p0, n_iter=12, mu=1e-3):
    # the same with a finite-difference Jacobian and Nielsen's damping update
    p = np.asarray(p0, dtype=float).copy()
    resid = lambda q: model(q, t) - y
    nu = 2.0
    for _ in range(n_iter):
        r = resid(p)
        J = jacobian_fd(resid, p)
        A = J.T.dot(J)
        g = J.T.dot(r)
        h = -np.linalg.solve(A + mu * np.eye(3), g)
        r_new = resid(p + h)
        rho = (r.dot(r) - r_new.dot(r_new)) / (h.dot(mu * h - g))
        if rho > 0:
            p = p + h
            mu *= max(1.0 / 3.0, 1 - (2 * rho - 1) ** 3)
            nu = 2.0
        else:
            mu *= nu
            nu *= 2
    return p


def make_data(n=20, seed=0, noise=0.02):
    rng = np.random.default_rng(seed)
    t = np.linspace(0, 4, n)
    y = model((2.0, 1.3, 0.5), t) + noise * rng.standard_normal(n)
    return t, y
