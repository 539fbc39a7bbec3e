# ruff: noqa  (a published program in its authors' style)
"""A bootstrap particle filter (Gordon, Salmond & Smith 1993; Doucet & Johansen's
tutorial) for the nonlinear benchmark model
``x_t = x/2 + 25 x/(1 + x^2) + 8 cos(1.2 t) + v_t``, ``y_t = x_t^2 / 20 + w_t``, written
with a ``np.random.Generator``: log-weights normalised by the log-sum-exp trick, the
likelihood estimate accumulated, the effective sample size, and systematic and
multinomial resampling by ``cumsum`` and ``searchsorted``."""

import numpy as np


def transition(x, t, rng, sigma_v):
    return (
        0.5 * x + 25 * x / (1 + x**2) + 8 * np.cos(1.2 * t) + sigma_v * rng.standard_normal(x.shape)
    )


def simulate(T, sigma_v, sigma_w, seed=0):
    rng = np.random.default_rng(seed)
    x = np.zeros(T)
    y = np.zeros(T)
    xt = 0.1
    for t in range(T):
        xt = (
            0.5 * xt + 25 * xt / (1 + xt**2) + 8 * np.cos(1.2 * t) + sigma_v * rng.standard_normal()
        )
        x[t] = xt
        y[t] = xt**2 / 20 + sigma_w * rng.standard_normal()
    return x, y


def systematic_resample(weights, rng):
    N = len(weights)
    positions = (rng.random() + np.arange(N)) / N
    cumulative_sum = np.cumsum(weights)
    cumulative_sum[-1] = 1.0  # avoid round-off error
    return np.searchsorted(cumulative_sum, positions)


def multinomial_resample(weights, rng):
    cumulative_sum = np.cumsum(weights)
    cumulative_sum[-1] = 1.0
    return np.searchsorted(cumulative_sum, rng.random(len(weights)))


def effective_sample_size(weights):
    return 1.0 / np.sum(np.square(weights))


def bootstrap_filter(
    y, n_particles, sigma_v, sigma_w, seed=0, resample=systematic_resample, ess_threshold=0.5
):
    rng = np.random.default_rng(seed)
    T = len(y)
    particles = 0.1 + np.sqrt(5.0) * rng.standard_normal(n_particles)
    weights = np.ones(n_particles) / n_particles
    means = np.zeros(T)
    log_evidence = 0.0
    for t in range(T):
        particles = transition(particles, t, rng, sigma_v)
        log_w = -0.5 * ((y[t] - particles**2 / 20) / sigma_w) ** 2 - np.log(
            np.sqrt(2 * np.pi) * sigma_w
        )
        log_w += np.log(weights)
        max_log_w = np.max(log_w)
        w = np.exp(log_w - max_log_w)
        log_evidence += max_log_w + np.log(np.sum(w))
        weights = w / np.sum(w)
        means[t] = np.sum(weights * particles)
        if effective_sample_size(weights) < ess_threshold * n_particles:
            idx = resample(weights, rng)
            particles = particles[idx]
            weights = np.full(n_particles, 1.0 / n_particles)
    return means, log_evidence
