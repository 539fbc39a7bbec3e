# ruff: noqa  (a published program in its authors' style)
"""Finite-difference solvers of the one-dimensional heat and wave equations as the
numerical-PDE courses write them (LeVeque, "Finite Difference Methods for ODEs and PDEs";
the "12 steps to Navier-Stokes" style): the explicit FTCS scheme with a ``u[1:-1] = ...``
stencil in a time loop, Crank-Nicolson with a tridiagonal system solved by the Thomas
algorithm written out (forward sweep and back substitution in Python loops), the
leapfrog wave scheme with a special first step, and a 2-D heat equation with Neumann
boundaries copied from the neighbours."""

import numpy as np


def ftcs_heat(u0, alpha, L=1.0, T=0.1, nt=200):
    nx = u0.shape[0]
    dx = L / (nx - 1)
    dt = T / nt
    r = alpha * dt / dx**2
    u = u0.copy()
    for n in range(nt):
        un = u.copy()
        u[1:-1] = un[1:-1] + r * (un[2:] - 2 * un[1:-1] + un[:-2])
        u[0] = 0.0
        u[-1] = 0.0
    return u


def thomas(a, b, c, d):
    """Solve a tridiagonal system with sub-diagonal a, diagonal b, super-diagonal c."""
    n = len(d)
    cp = np.zeros(n)
    dp = np.zeros(n)
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for i in range(1, n):
        denom = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / denom if i < n - 1 else 0.0
        dp[i] = (d[i] - a[i] * dp[i - 1]) / denom
    x = np.zeros(n)
    x[-1] = dp[-1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return x


def crank_nicolson_heat(u0, alpha, L=1.0, T=0.1, nt=20):
    nx = u0.shape[0]
    dx = L / (nx - 1)
    dt = T / nt
    r = alpha * dt / dx**2
    m = nx - 2
    a = np.full(m, -r / 2)
    b = np.full(m, 1 + r)
    c = np.full(m, -r / 2)
    u = u0.copy()
    for n in range(nt):
        rhs = (1 - r) * u[1:-1] + r / 2 * (u[2:] + u[:-2])
        u[1:-1] = thomas(a, b, c, rhs)
    return u


def leapfrog_wave(f, g, c, L=1.0, T=0.5, nt=100):
    nx = f.shape[0]
    dx = L / (nx - 1)
    dt = T / nt
    C2 = (c * dt / dx) ** 2
    u_prev = f.copy()
    u = np.zeros(nx)
    # first step with the initial velocity g (u_t = g at t = 0)
    u[1:-1] = u_prev[1:-1] + dt * g[1:-1] + 0.5 * C2 * (u_prev[2:] - 2 * u_prev[1:-1] + u_prev[:-2])
    for n in range(1, nt):
        u_next = np.empty(nx)
        u_next[1:-1] = 2 * u[1:-1] - u_prev[1:-1] + C2 * (u[2:] - 2 * u[1:-1] + u[:-2])
        u_next[0] = 0
        u_next[-1] = 0
        u_prev, u = u, u_next
    return u


def heat_2d_neumann(u0, kappa, nt=50, dt=0.1):
    u = u0.copy()
    for _ in range(nt):
        lap = np.zeros_like(u)
        lap[1:-1, 1:-1] = (
            u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1]
        )
        u = u + kappa * dt * lap
        u[0, :] = u[1, :]
        u[-1, :] = u[-2, :]
        u[:, 0] = u[:, 1]
        u[:, -1] = u[:, -2]
    return u
