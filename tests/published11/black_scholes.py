# ruff: noqa  (a published program in its authors' style)
"""Black-Scholes-Merton prices and Greeks as in quant-finance notebooks: ``d1`` and
``d2``, ``norm.cdf`` and ``norm.pdf`` from ``scipy.stats``, the closed-form delta, gamma,
vega, theta and rho, put-call parity, an implied volatility by Newton's method on vega
with a Python stopping test (and bisection as its fallback), and a binomial (CRR) tree
with backward induction into a preallocated array for the American put."""

import numpy as np
from scipy.stats import norm


def d1_d2(S, K, T, r, sigma):
    d1 = (np.log(S / K) + (r + 0.5 * sigma**2) * T) / (sigma * np.sqrt(T))
    d2 = d1 - sigma * np.sqrt(T)
    return d1, d2


def bs_price(S, K, T, r, sigma, option="call"):
    d1, d2 = d1_d2(S, K, T, r, sigma)
    if option == "call":
        return S * norm.cdf(d1) - K * np.exp(-r * T) * norm.cdf(d2)
    return K * np.exp(-r * T) * norm.cdf(-d2) - S * norm.cdf(-d1)


def greeks(S, K, T, r, sigma):
    d1, d2 = d1_d2(S, K, T, r, sigma)
    delta = norm.cdf(d1)
    gamma = norm.pdf(d1) / (S * sigma * np.sqrt(T))
    vega = S * norm.pdf(d1) * np.sqrt(T)
    theta = -S * norm.pdf(d1) * sigma / (2 * np.sqrt(T)) - r * K * np.exp(-r * T) * norm.cdf(d2)
    rho = K * T * np.exp(-r * T) * norm.cdf(d2)
    return {"delta": delta, "gamma": gamma, "vega": vega, "theta": theta, "rho": rho}


def implied_vol(price, S, K, T, r, sigma0=0.3, tol=1e-12, max_iter=50):
    sigma = sigma0
    for i in range(max_iter):
        diff = bs_price(S, K, T, r, sigma) - price
        if abs(diff) < tol:
            break
        vega = S * norm.pdf(d1_d2(S, K, T, r, sigma)[0]) * np.sqrt(T)
        sigma = sigma - diff / vega
    return sigma


def implied_vol_bisection(price, S, K, T, r, lo=1e-4, hi=3.0, tol=1e-10):
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if bs_price(S, K, T, r, mid) > price:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi)


def crr_american_put(S, K, T, r, sigma, N=50):
    dt = T / N
    u = np.exp(sigma * np.sqrt(dt))
    d = 1 / u
    p = (np.exp(r * dt) - d) / (u - d)
    disc = np.exp(-r * dt)
    ST = S * d ** np.arange(N, -1, -1) * u ** np.arange(0, N + 1)
    V = np.maximum(K - ST, 0)
    for i in range(N - 1, -1, -1):
        ST = S * d ** np.arange(i, -1, -1) * u ** np.arange(0, i + 1)
        V[: i + 1] = disc * (p * V[1 : i + 2] + (1 - p) * V[: i + 1])
        V[: i + 1] = np.maximum(V[: i + 1], K - ST)
    return V[0]
