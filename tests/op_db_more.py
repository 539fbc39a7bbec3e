"""Op-database entries for the primitives declared by the operator-coverage work in
``ftransforms/ops/special.py``, ``ftransforms/ops/sorting.py`` and ``cumprod`` in
``ftransforms/ops/reductions.py`` (their composites are tested in ``test_more_ops.py``).

Each entry: ``name`` (the primitive), ``fn`` (an ``ftransforms`` callable that binds it),
``args`` (example argument tuples; every array is an operand, floats inside the domain and
away from ties, and staying so under moves of 1e-2), ``jax_fn`` (the JAX equivalent,
called with the same arguments), and for primitives without a derivative ``nondiff`` and
``grads`` (both saying so).  Exact zeros in cumprod's second sample exercise its zero path
only if the sample is used unmoved; ``test_more_ops.py`` tests that path directly.
"""

from __future__ import annotations

import jax.numpy as jnp
import jax.scipy.special as jsp
import numpy as np

import ftransforms.numpy as fnp
import ftransforms.scipy.special as fsp

_rng = np.random.default_rng(0)


def _u(lo, hi, *shape):
    return _rng.uniform(lo, hi, shape)


def _spaced(*shape):
    """Distinct values at least 0.1 apart (their order survives small moves)."""
    return _rng.permutation(np.prod(shape)).reshape(shape) / 10.0


_N = np.array([0, 1, 2, 3, 1])

ENTRIES = [
    {
        "name": "expit",
        "fn": fsp.expit,
        "args": [(_u(-6, 6, 5),), (_u(-3, 3, 2, 3),)],
        "jax_fn": jsp.expit,
    },
    {"name": "erf", "fn": fsp.erf, "args": [(_u(-2, 2, 5),)], "jax_fn": jsp.erf},
    {"name": "erfc", "fn": fsp.erfc, "args": [(_u(-2, 2, 5),)], "jax_fn": jsp.erfc},
    {"name": "erfinv", "fn": fsp.erfinv, "args": [(_u(-0.8, 0.8, 5),)], "jax_fn": jsp.erfinv},
    {"name": "gammaln", "fn": fsp.gammaln, "args": [(_u(0.5, 4, 5),)], "jax_fn": jsp.gammaln},
    {"name": "digamma", "fn": fsp.digamma, "args": [(_u(0.5, 4, 5),)], "jax_fn": jsp.digamma},
    {
        "name": "polygamma",
        "fn": lambda x: fsp.polygamma(_N, x),
        "args": [(_u(0.5, 4, 5),)],
        "jax_fn": lambda x: jsp.polygamma(_N, x),
    },
    {
        "name": "xlogy",
        "fn": fsp.xlogy,
        "args": [(_u(-2, 2, 2, 3), _u(0.5, 3, 3))],
        "jax_fn": jsp.xlogy,
    },
    {
        "name": "xlog1py",
        "fn": fsp.xlog1py,
        "args": [(_u(-2, 2, 2, 3), _u(-0.5, 3, 3))],
        "jax_fn": jsp.xlog1py,
    },
    {
        "name": "logaddexp",
        "fn": fnp.logaddexp,
        "args": [(_u(-2, 2, 2, 3), _u(-2, 2, 3))],
        "jax_fn": jnp.logaddexp,
    },
    {
        "name": "logaddexp2",
        "fn": fnp.logaddexp2,
        "args": [(_u(-2, 2, 2, 3), _u(-2, 2, 2, 3))],
        "jax_fn": jnp.logaddexp2,
    },
    {
        "name": "hypot",
        "fn": fnp.hypot,
        "args": [(_u(-2, 2, 2, 3), _u(0.5, 2, 2, 3))],
        "jax_fn": jnp.hypot,
    },
    {"name": "sinc", "fn": fnp.sinc, "args": [(np.r_[0.0, _u(-3, 3, 5)],)], "jax_fn": jnp.sinc},
    {
        "name": "cumprod",
        "fn": lambda x: fnp.cumprod(x, axis=1),
        "args": [(_u(0.5, 1.5, 3, 4),), (np.array([[1.5, 0.0, -0.7, 2.0], [0.0, 1.2, 0.0, 0.9]]),)],
        "jax_fn": lambda x: jnp.cumprod(x, axis=1),
    },
    {
        "name": "argsort",
        "fn": lambda x: fnp.argsort(x, axis=0),
        "args": [(_spaced(4, 3),)],
        "jax_fn": lambda x: jnp.argsort(x, axis=0),
        "nondiff": True,
        "grads": False,
    },
    {
        "name": "argpartition",
        "fn": lambda x: fnp.sort(fnp.argpartition(x, 2, axis=1)[:, :2], axis=1),
        "args": [(_spaced(3, 5),)],
        "jax_fn": lambda x: jnp.sort(jnp.argsort(x, axis=1)[:, :2], axis=1),
        "nondiff": True,
        "grads": False,
    },
    {
        "name": "searchsorted",
        "fn": fnp.searchsorted,
        "args": [(np.linspace(-1.0, 1.0, 6), np.array([[-1.3, -0.5, 0.1], [0.3, 0.95, 1.5]]))],
        "jax_fn": jnp.searchsorted,
        "nondiff": True,
        "grads": False,
    },
]
