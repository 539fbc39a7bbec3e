# ruff: noqa  (a published program in its authors' style)
"""JAX's examples/hmm_em.py: EM for a hidden Markov model where the E step is ``grad`` of
the log normalizer (the forward algorithm as a ``scan`` with ``logsumexp``), the M step a
list comprehension, iterated by ``fori_loop`` inside ``jit``; the dataset built from a
string with ``defaultdict(partial(next, count()))``.  ``from jax import lax`` reads
``import ftransforms as lax`` (``ftransforms`` has ``scan``/``fori_loop`` at the top);
``sample`` (``random.categorical`` of keys) is left out."""

from collections import defaultdict
from functools import partial
from itertools import count

import ftransforms as lax
import ftransforms.numpy as np
from ftransforms import grad, jit
from ftransforms.scipy.special import logsumexp


def log_normalizer(params, seq):
    log_pi, log_A, log_B = params

    def marginalize(log_alpha, obs):
        log_alpha = logsumexp(log_alpha[:, None] + log_A, axis=0) + log_B[:, obs]
        return log_alpha, None

    log_alpha, _ = lax.scan(marginalize, log_pi, seq)
    return logsumexp(log_alpha)


@jit
def EM(params, seq, num_steps):
    def update(i, params):
        moments = grad(log_normalizer)(params, seq)  # E step
        return [np.log(x / x.sum(-1, keepdims=True)) for x in moments]  # M step

    return lax.fori_loop(0, num_steps, update, params)


def build_dataset(string):
    encodings = defaultdict(partial(next, count()))
    data = np.array([encodings[c] for c in string])
    decodings = {i: c for c, i in encodings.items()}
    return data, decodings
