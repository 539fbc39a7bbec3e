# ruff: noqa  (a published program in its authors' style)
"""Langtangen & Linge, "Finite Difference Computing with PDEs", ``wave1D_u0.py`` and
``wave1D_u0v.py``: the explicit scheme for u_tt = c^2 u_xx + f with u = 0 at both ends,
the scalar version (``u_n[i] = I(x[i])`` into ``np.zeros`` buffers, a special first step,
``u_nm1[:] = u_n; u_n[:] = u``) and the vectorized one (``u[1:-1] = ...`` slices, the
buffers swapped by ``u_nm1, u_n, u = u_n, u, u_nm1``), with ``user_action`` callbacks and
the book's exact quadratic solution test. ``time.clock`` reads ``time.perf_counter``
(Python 3)."""

import time

import numpy as np


def solver(I, V, f, c, L, dt, C, T, user_action=None):
    """Solve u_tt=c^2*u_xx + f on (0,L)x(0,T]."""
    Nt = int(round(T / dt))
    t = np.linspace(0, Nt * dt, Nt + 1)  # Mesh points in time
    dx = dt * c / float(C)
    Nx = int(round(L / dx))
    x = np.linspace(0, L, Nx + 1)  # Mesh points in space
    C2 = C**2  # Help variable in the scheme
    # Make sure dx and dt are compatible with x and t
    dx = x[1] - x[0]
    dt = t[1] - t[0]

    if f is None or f == 0:
        f = lambda x, t: 0
    if V is None or V == 0:
        V = lambda x: 0

    u = np.zeros(Nx + 1)  # Solution array at new time level
    u_n = np.zeros(Nx + 1)  # Solution at 1 time level back
    u_nm1 = np.zeros(Nx + 1)  # Solution at 2 time levels back

    t0 = time.perf_counter()  # Measure CPU time

    # Load initial condition into u_n
    for i in range(0, Nx + 1):
        u_n[i] = I(x[i])

    if user_action is not None:
        user_action(u_n, x, t, 0)

    # Special formula for first time step
    n = 0
    for i in range(1, Nx):
        u[i] = (
            u_n[i]
            + dt * V(x[i])
            + 0.5 * C2 * (u_n[i - 1] - 2 * u_n[i] + u_n[i + 1])
            + 0.5 * dt**2 * f(x[i], t[n])
        )
    u[0] = 0
    u[Nx] = 0

    if user_action is not None:
        user_action(u, x, t, 1)

    # Switch variables before next step
    u_nm1[:] = u_n
    u_n[:] = u

    for n in range(1, Nt):
        # Update all inner points at time t[n+1]
        for i in range(1, Nx):
            u[i] = (
                -u_nm1[i]
                + 2 * u_n[i]
                + C2 * (u_n[i - 1] - 2 * u_n[i] + u_n[i + 1])
                + dt**2 * f(x[i], t[n])
            )

        # Insert boundary conditions
        u[0] = 0
        u[Nx] = 0
        if user_action is not None:
            if user_action(u, x, t, n + 1):
                break

        # Switch variables before next step
        u_nm1[:] = u_n
        u_n[:] = u

    cpu_time = time.perf_counter() - t0
    return u, x, t, cpu_time


def solver_vectorized(I, V, f, c, L, dt, C, T, user_action=None):
    """Solve u_tt=c^2*u_xx + f on (0,L)x(0,T]: the vectorized version."""
    Nt = int(round(T / dt))
    t = np.linspace(0, Nt * dt, Nt + 1)  # Mesh points in time
    dx = dt * c / float(C)
    Nx = int(round(L / dx))
    x = np.linspace(0, L, Nx + 1)  # Mesh points in space
    C2 = C**2  # Help variable in the scheme
    dx = x[1] - x[0]
    dt = t[1] - t[0]

    if f is None or f == 0:
        f = lambda x, t: np.zeros(x.size) if isinstance(x, np.ndarray) else 0
    if V is None or V == 0:
        V = lambda x: np.zeros(x.size) if isinstance(x, np.ndarray) else 0

    u = np.zeros(Nx + 1)  # Solution array at new time level
    u_n = np.zeros(Nx + 1)  # Solution at 1 time level back
    u_nm1 = np.zeros(Nx + 1)  # Solution at 2 time levels back

    t0 = time.perf_counter()

    # Load initial condition into u_n
    u_n[:] = I(x)

    if user_action is not None:
        user_action(u_n, x, t, 0)

    # Special formula for first time step
    n = 0
    u[1:-1] = (
        u_n[1:-1]
        + dt * V(x[1:-1])
        + 0.5 * C2 * (u_n[0:-2] - 2 * u_n[1:-1] + u_n[2:])
        + 0.5 * dt**2 * f(x[1:-1], t[n])
    )
    u[0] = 0
    u[Nx] = 0

    if user_action is not None:
        user_action(u, x, t, 1)

    # Switch variables before next step
    u_nm1, u_n, u = u_n, u, u_nm1

    for n in range(1, Nt):
        u[1:-1] = (
            -u_nm1[1:-1]
            + 2 * u_n[1:-1]
            + C2 * (u_n[0:-2] - 2 * u_n[1:-1] + u_n[2:])
            + dt**2 * f(x[1:-1], t[n])
        )

        # Insert boundary conditions
        u[0] = 0
        u[Nx] = 0
        if user_action is not None:
            if user_action(u, x, t, n + 1):
                break

        # Switch variables before next step
        u_nm1, u_n, u = u_n, u, u_nm1

    # Wrong assignment u = u_nm1 must be corrected before return
    u = u_n
    cpu_time = time.perf_counter() - t0
    return u, x, t, cpu_time


def test_quadratic():
    """Check that u(x,t)=x(L-x)(1+t/2) is exactly reproduced."""

    def u_exact(x, t):
        return x * (L - x) * (1 + 0.5 * t)

    def I(x):
        return u_exact(x, 0)

    def V(x):
        return 0.5 * u_exact(x, 0)

    def f(x, t):
        return 2 * (1 + 0.5 * t) * c**2

    L = 2.5
    c = 1.5
    C = 0.75
    Nx = 6  # Very coarse mesh for this exact test
    dt = C * (L / Nx) / c
    T = 18

    def assert_no_error(u, x, t, n):
        u_e = u_exact(x, t[n])
        diff = np.abs(u - u_e).max()
        tol = 1e-13
        assert diff < tol

    solver(I, V, f, c, L, dt, C, T, user_action=assert_no_error)
