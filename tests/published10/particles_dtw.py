# ruff: noqa  (a published program in its authors' style)
"""Two programs of the "fill arrays in loops" kind: a molecular-dynamics toy (a box of
Lennard-Jones particles integrated by velocity Verlet, as in Frenkel & Smit's algorithms
and the undergraduate computational-physics notes: pair forces by ``np.linalg.norm``,
a cut-off by ``np.where``, reflecting walls that flip velocities with ``np.where``,
kinetic and potential energy recorded per step) and dynamic time warping with its soft
variant (Sakoe & Chiba 1978; Cuturi & Blondel 2017), whose cost matrix and
accumulated-cost table are filled in double loops."""

import numpy as np


def lj_forces(pos, epsilon=1.0, sigma=1.0, r_cut=2.5):
    n = pos.shape[0]
    forces = np.zeros_like(pos)
    potential = 0.0
    for i in range(n - 1):
        rij = pos[i] - pos[i + 1 :]
        r = np.linalg.norm(rij, axis=1)
        sr6 = (sigma / r) ** 6
        inside = r < r_cut
        pot = np.where(inside, 4 * epsilon * (sr6**2 - sr6), 0.0)
        fmag = np.where(inside, 24 * epsilon * (2 * sr6**2 - sr6) / r**2, 0.0)
        fij = fmag[:, None] * rij
        forces[i] += fij.sum(axis=0)
        forces[i + 1 :] -= fij
        potential += pot.sum()
    return forces, potential


def velocity_verlet(pos, vel, dt, n_steps, box=4.0, mass=1.0):
    pos = pos.copy()
    vel = vel.copy()
    forces, pot = lj_forces(pos)
    energies = np.zeros((n_steps, 2))
    for step in range(n_steps):
        vel += 0.5 * dt * forces / mass
        pos += dt * vel
        # reflecting walls
        hit_low = pos < 0
        hit_high = pos > box
        pos = np.where(hit_low, -pos, pos)
        pos = np.where(hit_high, 2 * box - pos, pos)
        vel = np.where(hit_low | hit_high, -vel, vel)
        forces, pot = lj_forces(pos)
        vel += 0.5 * dt * forces / mass
        energies[step, 0] = 0.5 * mass * np.sum(vel**2)
        energies[step, 1] = pot
    return pos, vel, energies


def dtw(x, y):
    n, m = len(x), len(y)
    cost = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            cost[i, j] = (x[i] - y[j]) ** 2
    D = np.full((n + 1, m + 1), np.inf)
    D[0, 0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            D[i, j] = cost[i - 1, j - 1] + min(D[i - 1, j], D[i, j - 1], D[i - 1, j - 1])
    return D[n, m]


def softmin(a, b, c, gamma):
    vals = np.array([a, b, c]) / -gamma
    vmax = np.max(vals)
    return -gamma * (np.log(np.sum(np.exp(vals - vmax))) + vmax)


def soft_dtw(x, y, gamma=0.1):
    n, m = len(x), len(y)
    R = np.full((n + 1, m + 1), np.inf)
    R[0, 0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            d = (x[i - 1] - y[j - 1]) ** 2
            R[i, j] = d + softmin(R[i - 1, j], R[i, j - 1], R[i - 1, j - 1], gamma)
    return R[n, m]
