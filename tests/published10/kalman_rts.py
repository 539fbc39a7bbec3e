# ruff: noqa  (a published program in its authors' style)
"""A linear-Gaussian state-space model in the textbook form (Särkkä, "Bayesian Filtering
and Smoothing", ch. 4 and 8; Labbe's "Kalman and Bayesian Filters in Python"): a
constant-velocity tracker with position measurements, the Kalman filter written out with
in-place covariance updates and the Joseph form, the prediction-error decomposition of
the log-likelihood, and the Rauch-Tung-Striebel smoother filling preallocated arrays
backwards in time."""

import numpy as np


def cv_model(dt, q, r):
    F = np.array([[1.0, dt], [0.0, 1.0]])
    Q = q * np.array([[dt**3 / 3, dt**2 / 2], [dt**2 / 2, dt]])
    H = np.array([[1.0, 0.0]])
    R = np.array([[r]])
    return F, Q, H, R


def simulate(F, Q, H, R, x0, n_steps, rng):
    n = F.shape[0]
    xs = np.zeros((n_steps, n))
    zs = np.zeros((n_steps, H.shape[0]))
    x = x0.copy()
    LQ = np.linalg.cholesky(Q)
    LR = np.linalg.cholesky(R)
    for k in range(n_steps):
        x = F @ x + LQ @ rng.standard_normal(n)
        xs[k] = x
        zs[k] = H @ x + LR @ rng.standard_normal(H.shape[0])
    return xs, zs


def kalman_filter(zs, F, Q, H, R, m0, P0):
    n_steps, n = zs.shape[0], F.shape[0]
    ms = np.zeros((n_steps, n))
    Ps = np.zeros((n_steps, n, n))
    m = m0.copy()
    P = P0.copy()
    loglik = 0.0
    I = np.eye(n)
    for k in range(n_steps):
        # predict
        m = F @ m
        P = F @ P @ F.T + Q
        # update
        v = zs[k] - H @ m
        S = H @ P @ H.T + R
        K = P @ H.T @ np.linalg.inv(S)
        m += K @ v
        IKH = I - K @ H
        P = IKH @ P @ IKH.T + K @ R @ K.T  # Joseph form
        sign, logdet = np.linalg.slogdet(2 * np.pi * S)
        loglik -= 0.5 * (logdet + v @ np.linalg.solve(S, v))
        ms[k] = m
        Ps[k] = P
    return ms, Ps, loglik


def rts_smoother(ms, Ps, F, Q):
    n_steps = ms.shape[0]
    ms_s = ms.copy()
    Ps_s = Ps.copy()
    for k in range(n_steps - 2, -1, -1):
        m_pred = F @ ms[k]
        P_pred = F @ Ps[k] @ F.T + Q
        G = Ps[k] @ F.T @ np.linalg.inv(P_pred)
        ms_s[k] += G @ (ms_s[k + 1] - m_pred)
        Ps_s[k] += G @ (Ps_s[k + 1] - P_pred) @ G.T
    return ms_s, Ps_s


def negative_loglik(log_params, zs, dt=0.1):
    q, r = np.exp(log_params)
    F, Q, H, R = cv_model(dt, q, r)
    m0 = np.zeros(2)
    P0 = np.eye(2) * 10.0
    _, _, ll = kalman_filter(zs, F, Q, H, R, m0, P0)
    return -ll
