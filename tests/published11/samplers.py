# ruff: noqa  (a published program in its authors' style)
"""Markov-chain Monte Carlo as written in Bayesian-computation course notebooks: random-walk
Metropolis-Hastings with the acceptance test in a Python ``if`` and the chain in a
preallocated array, Hamiltonian Monte Carlo with a hand-written leapfrog, a Gibbs sampler
for a bivariate normal, and importance sampling estimates; each with
``np.random.default_rng(seed)`` so a run is a deterministic function of its inputs."""

import numpy as np


def log_target_banana(x, b=0.1):
    return -0.5 * (x[0] ** 2 / 4.0 + (x[1] + b * x[0] ** 2 - 2.0 * b) ** 2)


def grad_log_target_banana(x, b=0.1):
    t = x[1] + b * x[0] ** 2 - 2.0 * b
    return np.array([-x[0] / 4.0 - 2 * b * x[0] * t, -t])


def metropolis_hastings(log_p, x0, n_samples, step, seed=0):
    rng = np.random.default_rng(seed)
    d = len(x0)
    chain = np.zeros((n_samples, d))
    x = x0
    lp = log_p(x)
    accepted = 0
    for i in range(n_samples):
        proposal = x + step * rng.standard_normal(d)
        lp_prop = log_p(proposal)
        if np.log(rng.uniform()) < lp_prop - lp:
            x, lp = proposal, lp_prop
            accepted += 1
        chain[i] = x
    return chain, accepted / n_samples


def leapfrog(q, p, grad_U, eps, L):
    p = p - 0.5 * eps * grad_U(q)
    for l in range(L):
        q = q + eps * p
        if l != L - 1:
            p = p - eps * grad_U(q)
    p = p - 0.5 * eps * grad_U(q)
    return q, -p


def hmc(U, grad_U, q0, n_samples, eps, L, seed=0):
    rng = np.random.default_rng(seed)
    samples = np.empty((n_samples, len(q0)))
    q = q0
    for i in range(n_samples):
        p0 = rng.standard_normal(len(q))
        q_new, p_new = leapfrog(q, p0, grad_U, eps, L)
        H0 = U(q) + 0.5 * p0 @ p0
        H1 = U(q_new) + 0.5 * p_new @ p_new
        if rng.random() < np.exp(H0 - H1):
            q = q_new
        samples[i] = q
    return samples


def gibbs_bivariate_normal(mu, rho, n_samples, seed=0):
    rng = np.random.default_rng(seed)
    x = np.zeros((n_samples, 2))
    s = np.sqrt(1 - rho**2)
    for i in range(1, n_samples):
        x[i, 0] = rng.normal(mu[0] + rho * (x[i - 1, 1] - mu[1]), s)
        x[i, 1] = rng.normal(mu[1] + rho * (x[i, 0] - mu[0]), s)
    return x


def importance_mean(f, log_p, mu_q, sigma_q, n=200, seed=0):
    rng = np.random.default_rng(seed)
    xs = mu_q + sigma_q * rng.standard_normal(n)
    log_q = -0.5 * ((xs - mu_q) / sigma_q) ** 2 - np.log(sigma_q)
    log_w = log_p(xs) - log_q
    w = np.exp(log_w - log_w.max())
    w /= w.sum()
    return np.sum(w * f(xs))
