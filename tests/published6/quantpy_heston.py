# ruff: noqa  (a published program in its authors' style)
"""QuantPy's "Heston Model Calibration in Python" notebook: the Heston characteristic
function in complex arithmetic (``np.sqrt``/``np.exp`` of complex values, ``S0**(phi*1j)``,
a complex power ``**(-2*a/sigma**2)``), the call price by a rectangular rule in a Python
loop accumulating ``P += dphi * numerator/denominator`` (``np.real`` at the end), and by
``scipy.integrate.quad`` of the integrand, which reads the strike ``K`` from the module.
``N`` (10000 in the notebook) is shrunk; the market data and calibration are left out."""

import numpy as np
from scipy.integrate import quad

# Parameters to test model
S0 = 100.0  # initial asset price
K = 100.0  # strike
v0 = 0.1  # initial variance
r = 0.03  # risk free rate
kappa = 1.5768  # rate of mean reversion of variance process
theta = 0.0398  # long-term mean variance
sigma = 0.3  # volatility of volatility
lambd = 0.575  # risk premium of variance
rho = -0.5711  # correlation between variance and stock process
tau = 1.0  # time to maturity

N_REC = 10000


def heston_charfunc(phi, S0, v0, kappa, theta, sigma, rho, lambd, tau, r):
    # constants
    a = kappa * theta
    b = kappa + lambd

    # common terms w.r.t phi
    rspi = rho * sigma * phi * 1j

    # define d parameter given phi and b
    d = np.sqrt((rho * sigma * phi * 1j - b) ** 2 + (phi * 1j + phi**2) * sigma**2)

    # define g parameter given phi, b and d
    g = (b - rspi + d) / (b - rspi - d)

    # calculate characteristic function by components
    exp1 = np.exp(r * phi * 1j * tau)
    term2 = S0 ** (phi * 1j) * ((1 - g * np.exp(d * tau)) / (1 - g)) ** (-2 * a / sigma**2)
    exp2 = np.exp(
        a * tau * (b - rspi + d) / sigma**2
        + v0 * (b - rspi + d) * ((1 - np.exp(d * tau)) / (1 - g * np.exp(d * tau))) / sigma**2
    )
    return exp1 * term2 * exp2


def integrand(phi, S0, v0, kappa, theta, sigma, rho, lambd, tau, r):
    args = (S0, v0, kappa, theta, sigma, rho, lambd, tau, r)
    numerator = np.exp(r * tau) * heston_charfunc(phi - 1j, *args) - K * heston_charfunc(phi, *args)
    denominator = 1j * phi * K ** (1j * phi)
    return numerator / denominator


def heston_price_rec(S0, K, v0, kappa, theta, sigma, rho, lambd, tau, r):
    args = (S0, v0, kappa, theta, sigma, rho, lambd, tau, r)

    P, umax, N = 0, 100, N_REC
    dphi = umax / N  # dphi is width

    for i in range(1, N):
        # rectangular integration
        phi = dphi * (2 * i + 1) / 2  # midpoint to calculate height
        numerator = np.exp(r * tau) * heston_charfunc(phi - 1j, *args) - K * heston_charfunc(
            phi, *args
        )
        denominator = 1j * phi * K ** (1j * phi)

        P += dphi * numerator / denominator

    return np.real((S0 - K * np.exp(-r * tau)) / 2 + P / np.pi)


def heston_price(S0, K, v0, kappa, theta, sigma, rho, lambd, tau, r):
    args = (S0, v0, kappa, theta, sigma, rho, lambd, tau, r)

    real_integral, err = np.real(quad(integrand, 0, 100, args=args))

    return (S0 - K * np.exp(-r * tau)) / 2 + real_integral / np.pi
