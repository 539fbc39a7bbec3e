# ruff: noqa  (a published program in its authors' style)
"""A double pendulum: energies from positions built with np.array and np.cross (angular
momentum), the Lagrangian's equations of motion by np.linalg.solve, and an RK4 rollout
with a preallocated trajectory array (classical-mechanics course notebooks)."""

import numpy as np

g = 9.81


def positions(theta, l1=1.0, l2=0.7):
    t1, t2 = theta
    p1 = np.array([l1 * np.sin(t1), -l1 * np.cos(t1), 0.0])
    p2 = p1 + np.array([l2 * np.sin(t2), -l2 * np.cos(t2), 0.0])
    return p1, p2


def velocities(theta, omega, l1=1.0, l2=0.7):
    t1, t2 = theta
    w1, w2 = omega
    v1 = np.array([l1 * w1 * np.cos(t1), l1 * w1 * np.sin(t1), 0.0])
    v2 = v1 + np.array([l2 * w2 * np.cos(t2), l2 * w2 * np.sin(t2), 0.0])
    return v1, v2


def energy(state, m1=1.0, m2=0.5):
    theta, omega = state[:2], state[2:]
    p1, p2 = positions(theta)
    v1, v2 = velocities(theta, omega)
    T = 0.5 * m1 * np.dot(v1, v1) + 0.5 * m2 * np.linalg.norm(v2) ** 2
    V = m1 * g * p1[1] + m2 * g * p2[1]
    return T + V


def angular_momentum(state, m1=1.0, m2=0.5):
    p1, p2 = positions(state[:2])
    v1, v2 = velocities(state[:2], state[2:])
    return m1 * np.cross(p1, v1) + m2 * np.cross(p2, v2)


def derivs(state, m1=1.0, m2=0.5, l1=1.0, l2=0.7):
    t1, t2, w1, w2 = state
    d = t1 - t2
    M = np.array([[(m1 + m2) * l1, m2 * l2 * np.cos(d)], [l1 * np.cos(d), l2]])
    f = np.array(
        [
            -m2 * l2 * w2**2 * np.sin(d) - (m1 + m2) * g * np.sin(t1),
            l1 * w1**2 * np.sin(d) - g * np.sin(t2),
        ]
    )
    acc = np.linalg.solve(M, f)
    return np.array([w1, w2, acc[0], acc[1]])


def rk4_rollout(state0, dt=0.01, steps=50):
    traj = np.zeros((steps + 1, 4))
    traj[0] = state0
    y = state0
    for i in range(steps):
        k1 = derivs(y)
        k2 = derivs(y + 0.5 * dt * k1)
        k3 = derivs(y + 0.5 * dt * k2)
        k4 = derivs(y + dt * k3)
        y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        traj[i + 1] = y
    return traj
