# ruff: noqa  (a published program in its authors' style)
"""Lotka-Volterra predator-prey: a hand-written RK4 integrator filling a preallocated
array, the data misfit of the four rates, and gradient descent on log-parameters."""

import numpy as np


def lv(z, alpha, beta, delta, gamma):
    x, y = z[0], z[1]
    return np.array([alpha * x - beta * x * y, delta * x * y - gamma * y])


def integrate(params, z0, dt=0.1, n=25):
    alpha, beta, delta, gamma = params
    Z = np.empty((n, 2))
    Z[0] = z0
    for k in range(n - 1):
        z = Z[k]
        k1 = lv(z, alpha, beta, delta, gamma)
        k2 = lv(z + dt / 2 * k1, alpha, beta, delta, gamma)
        k3 = lv(z + dt / 2 * k2, alpha, beta, delta, gamma)
        k4 = lv(z + dt * k3, alpha, beta, delta, gamma)
        Z[k + 1] = z + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return Z


def misfit(log_params, z0, data):
    Z = integrate(np.exp(log_params), z0)
    return 0.5 * np.sum((np.log(Z) - np.log(data)) ** 2)


def fit(log_params, z0, data, lr=1e-3, steps=3, grad_fn=None):
    p = log_params.copy()
    for _ in range(steps):
        p -= lr * grad_fn(p, z0, data)
    return p
