# ruff: noqa  (a published program in its authors' style)
"""An adaptive Runge-Kutta-Fehlberg 4(5) integrator written out as the numerical-methods
textbooks give it (Burden & Faires, "Numerical Analysis", algorithm 5.3; Kiusalaas,
"Numerical Methods in Engineering with Python"): the Fehlberg tableau as arrays, a
``while t < t_end`` loop, the step accepted when the error estimate is below the
tolerance and resized by ``0.84 (tol / err)^(1/4)`` clipped to ``[0.1, 4]``; then used on
the Lotka-Volterra and damped-pendulum systems and a fixed-step classical RK4 for
comparison."""

import numpy as np

A = np.array([0.0, 1 / 4, 3 / 8, 12 / 13, 1.0, 1 / 2])
B = np.array(
    [
        [0, 0, 0, 0, 0],
        [1 / 4, 0, 0, 0, 0],
        [3 / 32, 9 / 32, 0, 0, 0],
        [1932 / 2197, -7200 / 2197, 7296 / 2197, 0, 0],
        [439 / 216, -8, 3680 / 513, -845 / 4104, 0],
        [-8 / 27, 2, -3544 / 2565, 1859 / 4104, -11 / 40],
    ]
)
C4 = np.array([25 / 216, 0, 1408 / 2565, 2197 / 4104, -1 / 5, 0])
C5 = np.array([16 / 135, 0, 6656 / 12825, 28561 / 56430, -9 / 50, 2 / 55])


def rkf45(f, t0, y0, t_end, h=0.1, tol=1e-6, hmin=1e-6, hmax=0.5):
    t = t0
    y = np.array(y0, dtype=float)
    ts = [t]
    ys = [y.copy()]
    while t < t_end:
        if t + h > t_end:
            h = t_end - t
        K = np.zeros((6, len(y)))
        for i in range(6):
            K[i] = h * f(t + A[i] * h, y + B[i] @ K[:5])
        y4 = y + C4 @ K
        y5 = y + C5 @ K
        err = np.linalg.norm(y5 - y4) / np.sqrt(len(y))
        if err <= tol or h <= hmin:
            t = t + h
            y = y5
            ts.append(t)
            ys.append(y.copy())
        s = 0.84 * (tol / max(err, 1e-16)) ** 0.25
        h = h * min(max(s, 0.1), 4.0)
        h = min(max(h, hmin), hmax)
    return np.array(ts), np.array(ys)


def rk4(f, y0, t):
    y = np.zeros((len(t), len(y0)))
    y[0] = y0
    for i in range(len(t) - 1):
        h = t[i + 1] - t[i]
        k1 = f(t[i], y[i])
        k2 = f(t[i] + h / 2, y[i] + h / 2 * k1)
        k3 = f(t[i] + h / 2, y[i] + h / 2 * k2)
        k4 = f(t[i] + h, y[i] + h * k3)
        y[i + 1] = y[i] + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y


def lotka_volterra(alpha, beta, delta, gamma):
    def rhs(t, z):
        x, y = z
        return np.array([alpha * x - beta * x * y, delta * x * y - gamma * y])

    return rhs


def damped_pendulum(b, g=9.81, L=1.0):
    def rhs(t, s):
        theta, omega = s
        return np.array([omega, -b * omega - g / L * np.sin(theta)])

    return rhs
