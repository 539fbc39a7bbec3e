# ruff: noqa  (a published program in its authors' style)
"""Finite-difference stencils as physics-informed losses: a periodic Laplacian by np.roll, a
PDE residual by np.gradient, and a 2-D explicit heat equation updating u[1:-1, 1:-1] +=."""

import numpy as np


def laplacian_roll(u, h):
    return (
        np.roll(u, 1, 0) + np.roll(u, -1, 0) + np.roll(u, 1, 1) + np.roll(u, -1, 1) - 4 * u
    ) / h**2


def poisson_residual_loss(u, f, h):
    r = -laplacian_roll(u, h) - f
    return 0.5 * np.mean(r**2)


def burgers_residual(u, x, t, nu=0.05):
    # u on a (nt, nx) grid: u_t + u u_x - nu u_xx with np.gradient's second-order stencils
    u_t = np.gradient(u, t, axis=0)
    u_x = np.gradient(u, x, axis=1)
    u_xx = np.gradient(u_x, x, axis=1)
    return u_t + u * u_x - nu * u_xx


def heat2d(u0, alpha, dt, h, steps):
    u = u0.copy()
    r = alpha * dt / h**2
    for _ in range(steps):
        un = u.copy()
        u[1:-1, 1:-1] += r * (
            un[2:, 1:-1] + un[:-2, 1:-1] + un[1:-1, 2:] + un[1:-1, :-2] - 4 * un[1:-1, 1:-1]
        )
    return u


def heat2d_source(q, alpha=0.1, n=8, steps=10):
    h = 1.0 / (n - 1)
    dt = 0.2 * h**2 / alpha
    u = np.zeros((n, n))
    u[n // 2, n // 2] = q
    u = heat2d(u, alpha, dt, h, steps)
    return u[1:-1, 1:-1].sum()
