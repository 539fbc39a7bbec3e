# ruff: noqa  (a published program in its authors' style)
"""Integrators of Hamiltonian systems from a computational-physics course: the pendulum and
the Kepler problem integrated by classical RK4, velocity Verlet / leapfrog and symplectic
Euler, each filling preallocated trajectory arrays (``traj[n + 1] = ...``), the energy
along the way, a double pendulum's right-hand side written with ``np.sin``/``np.cos`` of
angle differences, and the period of a pendulum found by detecting the sign change of the
velocity with linear interpolation between steps."""

import numpy as np


def pendulum_rhs(t, y, g=9.81, L=1.0):
    theta, omega = y
    return np.array([omega, -(g / L) * np.sin(theta)])


def rk4(f, y0, t, *args):
    y = np.zeros((len(t), len(y0)))
    y[0] = y0
    for n in range(len(t) - 1):
        h = t[n + 1] - t[n]
        k1 = f(t[n], y[n], *args)
        k2 = f(t[n] + h / 2, y[n] + h / 2 * k1, *args)
        k3 = f(t[n] + h / 2, y[n] + h / 2 * k2, *args)
        k4 = f(t[n] + h, y[n] + h * k3, *args)
        y[n + 1] = y[n] + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y


def kepler_accel(r, GM=1.0):
    return -GM * r / np.linalg.norm(r) ** 3


def velocity_verlet(r0, v0, dt, n_steps, GM=1.0):
    r = np.empty((n_steps + 1, 2))
    v = np.empty((n_steps + 1, 2))
    r[0], v[0] = r0, v0
    a = kepler_accel(r0, GM)
    for n in range(n_steps):
        r[n + 1] = r[n] + v[n] * dt + 0.5 * a * dt**2
        a_new = kepler_accel(r[n + 1], GM)
        v[n + 1] = v[n] + 0.5 * (a + a_new) * dt
        a = a_new
    return r, v


def energy_kepler(r, v, GM=1.0):
    return 0.5 * np.sum(v**2, axis=1) - GM / np.linalg.norm(r, axis=1)


def symplectic_euler(q0, p0, dt, n_steps, k=1.0, m=1.0):
    q = np.zeros(n_steps + 1)
    p = np.zeros(n_steps + 1)
    q[0], p[0] = q0, p0
    for n in range(n_steps):
        p[n + 1] = p[n] - dt * k * q[n]
        q[n + 1] = q[n] + dt * p[n + 1] / m
    return q, p


def leapfrog_map(z, dt, n_steps, grad_V):
    q, p = z[: len(z) // 2].copy(), z[len(z) // 2 :].copy()
    for _ in range(n_steps):
        p -= 0.5 * dt * grad_V(q)
        q += dt * p
        p -= 0.5 * dt * grad_V(q)
    return np.concatenate([q, p])


def double_pendulum_rhs(t, y, m1=1.0, m2=1.0, l1=1.0, l2=1.0, g=9.81):
    th1, w1, th2, w2 = y
    d = th2 - th1
    den1 = (m1 + m2) * l1 - m2 * l1 * np.cos(d) ** 2
    dw1 = (
        m2 * l1 * w1**2 * np.sin(d) * np.cos(d)
        + m2 * g * np.sin(th2) * np.cos(d)
        + m2 * l2 * w2**2 * np.sin(d)
        - (m1 + m2) * g * np.sin(th1)
    ) / den1
    den2 = (l2 / l1) * den1
    dw2 = (
        -m2 * l2 * w2**2 * np.sin(d) * np.cos(d)
        + (m1 + m2) * g * np.sin(th1) * np.cos(d)
        - (m1 + m2) * l1 * w1**2 * np.sin(d)
        - (m1 + m2) * g * np.sin(th2)
    ) / den2
    return np.array([w1, dw1, w2, dw2])


def pendulum_period(theta0, dt=0.01, g=9.81, L=1.0):
    # integrate until omega changes sign from negative to positive: half a period
    y = np.array([theta0, 0.0])
    t = 0.0
    while True:
        y_new = rk4(pendulum_rhs, y, np.array([t, t + dt]), g, L)[1]
        if y[1] < 0 and y_new[1] >= 0:
            frac = -y[1] / (y_new[1] - y[1])
            return 2 * (t + frac * dt)
        y, t = y_new, t + dt
