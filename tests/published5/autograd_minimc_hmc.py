# ruff: noqa  (a published program in its authors' style)
"""Colin Carroll's minimc ("Hamiltonian Monte Carlo from scratch"), written with
``autograd``: a leapfrog integrator with in-place ``p -= ...`` updates, a Python list of
samples, a Metropolis accept with ``np.random.rand()``, and ``scipy.stats.norm`` for the
momentum; the negative log densities of its ``distributions`` module."""

import scipy.stats as st

import ftransforms.numpy as np
from ftransforms import grad
from ftransforms.scipy.special import logsumexp


def leapfrog(q, p, dVdq, path_len, step_size):
    """Leapfrog integrator for Hamiltonian Monte Carlo."""
    q, p = np.copy(q), np.copy(p)

    p -= step_size * dVdq(q) / 2  # half step
    for _ in range(int(path_len / step_size) - 1):
        q += step_size * p  # whole step
        p -= step_size * dVdq(q)  # whole step
    q += step_size * p  # whole step
    p -= step_size * dVdq(q) / 2  # half step

    # momentum flip at end
    return q, -p


def hamiltonian_monte_carlo(
    n_samples, negative_log_prob, initial_position, path_len=1, step_size=0.5
):
    """Run Hamiltonian Monte Carlo sampling."""
    initial_position = np.array(initial_position)
    # autograd magic
    dVdq = grad(negative_log_prob)

    # collect all our samples in a list
    samples = [initial_position]

    # Keep a single object for momentum resampling
    momentum = st.norm(0, 1)

    # If initial_position is a 10d vector and n_samples is 100, we want
    # 100 x 10 momentum draws. We can do this in one call to momentum.rvs, and
    # iterate over rows
    size = (n_samples,) + initial_position.shape[:1]
    for p0 in momentum.rvs(size=size):
        # Integrate over our path to get a new position and momentum
        q_new, p_new = leapfrog(samples[-1], p0, dVdq, path_len=path_len, step_size=step_size)

        # Check Metropolis acceptance criterion
        start_log_p = negative_log_prob(samples[-1]) - np.sum(momentum.logpdf(p0))
        new_log_p = negative_log_prob(q_new) - np.sum(momentum.logpdf(p_new))
        if np.log(np.random.rand()) < start_log_p - new_log_p:
            samples.append(q_new)
        else:
            samples.append(np.copy(samples[-1]))

    return np.array(samples[1:])


def neg_log_normal(mu, sigma):
    """-log N(x | mu, sigma)"""

    def logp(x):
        return 0.5 * (np.log(2 * np.pi * sigma * sigma) + ((x - mu) / sigma) ** 2)

    return logp


def neg_log_mvnormal(mu, sigma):
    """-log N(x | mu, sigma) for a multivariate normal."""

    def logp(x):
        k = mu.shape[0]
        return (
            k * np.log(2 * np.pi)
            + np.log(np.linalg.det(sigma))
            + np.dot(np.dot((x - mu).T, np.linalg.inv(sigma)), x - mu)
        ) * 0.5

    return logp


def mixture(neg_log_probs, probs):
    """-log of a mixture of the given densities."""

    def logp(x):
        return -logsumexp(np.log(probs) - np.array([nlp(x) for nlp in neg_log_probs]))

    return logp
