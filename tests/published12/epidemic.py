# ruff: noqa  (a published program in its authors' style)
"""SIR / SEIR epidemic models integrated with scipy.integrate.odeint and solve_ivp, and a
least-squares fit of the transmission and recovery rates to case counts (the standard
epidemiology notebook)."""

import numpy as np
from scipy.integrate import odeint, solve_ivp


def sir_rhs(y, t, N, beta, gamma):
    S, I, R = y
    dSdt = -beta * S * I / N
    dIdt = beta * S * I / N - gamma * I
    dRdt = gamma * I
    return dSdt, dIdt, dRdt


def seir_rhs(t, y, beta, sigma, gamma):
    S, E, I, R = y
    N = S + E + I + R
    return [-beta * S * I / N, beta * S * I / N - sigma * E, sigma * E - gamma * I, gamma * I]


def simulate_sir(params, t, N=1000.0, I0=1.0):
    beta, gamma = params
    y0 = N - I0, I0, 0.0
    ret = odeint(sir_rhs, y0, t, args=(N, beta, gamma))
    S, I, R = ret.T
    return I


def simulate_seir(params, t):
    beta, sigma, gamma = params
    y0 = np.array([0.99, 0.01, 0.0, 0.0])
    sol = solve_ivp(
        seir_rhs, (t[0], t[-1]), y0, t_eval=t, args=(beta, sigma, gamma), rtol=1e-10, atol=1e-12
    )
    return sol.y[2]


def sir_loss(params, t, data):
    return np.sum((simulate_sir(params, t) - data) ** 2) / len(t)


def seir_loss(params, t, data):
    return np.mean((simulate_seir(params, t) - data) ** 2)
