"""Op-database entries for the linear-algebra primitives (``ftransforms/ops/linalg.py``:
inv, solve, det, slogdet, cholesky, eigh, svd, qr, pinv) and the ``fnp.linalg`` composites
built on them, for ``tests/op_db.py`` to wire in.

``ENTRIES``: one dict per primitive, ``{"name": <primitive name>, "fn": <fnp callable>,
"args": [<example argument tuples>], "jax_fn": <the same function in jax.numpy>}``.
``COMPOSITE_ENTRIES``: the same fields for composite ``fnp`` functions (``name`` is the
``fnp`` function's name, not a primitive).

Inputs are float64, deterministic and well conditioned: SPD matrices for cholesky,
symmetric matrices with eigenvalues about 1 apart for eigh, singular values about 0.7
apart for svd.  Functions of eigenvectors and singular vectors are sign-invariant (``v * v``,
``u @ diag(g(s)) @ vh``) so that any sign convention compares equal.  NumPy's cholesky and
eigh read only the lower triangle (NOTE [numpy reads one triangle] in
``ftransforms/ops/linalg.py``); their ``jax_fn`` is given that same function, and their
samples carry junk in the strict upper triangle to show that it is ignored.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import ftransforms.numpy as fnp

jax.config.update("jax_enable_x64", True)

_RNG = np.random.default_rng(2024)


def _general(n, m=None, *batch):
    m = n if m is None else m
    a = 0.3 * _RNG.standard_normal(batch + (n, m))
    k = min(n, m)
    a[..., range(k), range(k)] += 1.5
    return a


def _spd(n, *batch):
    x = _RNG.standard_normal(batch + (n, n))
    return x @ np.swapaxes(x, -1, -2) / n + np.eye(n)


def _sym_distinct(n):
    q = np.linalg.qr(_RNG.standard_normal((n, n)))[0]
    lam = np.arange(n) - (n - 1) / 2 + 0.1 * _RNG.standard_normal(n)
    return (q * lam) @ q.T


def _distinct_sv(m, n):
    k = min(m, n)
    u = np.linalg.qr(_RNG.standard_normal((m, k)))[0]
    v = np.linalg.qr(_RNG.standard_normal((n, k)))[0]
    return (u * (1.0 + 0.7 * np.arange(k)[::-1])) @ v.T


def _junk_above(a):
    return a + np.triu(_RNG.standard_normal(a.shape), 1)


def _jfold(a):
    """What numpy's cholesky/eigh see: the symmetric matrix of the lower triangle."""
    return jnp.tril(a) + jnp.swapaxes(jnp.tril(a, -1), -1, -2)


def _eigh_fn(m, eigh):
    def fn(a):
        w, v = eigh(a)
        recon = m.matmul(v * m.cos(w)[..., None, :], m.swapaxes(v, -1, -2))
        return w, v * v, recon

    return fn


def _svd_fn(m):
    def fn(a):
        u, s, vh = m.linalg.svd(a, full_matrices=False)
        return u * u, s, vh * vh, m.matmul(u * m.sin(s)[..., None, :], vh)

    return fn


def _qr_fn(m):
    def fn(a):
        q, r = m.linalg.qr(a)
        k = np.arange(r.shape[-2])
        return q * q, r * r, m.matmul(q * m.cos(r[..., k, k])[..., None, :], r)

    return fn


ENTRIES = [
    {
        "name": "inv",
        "fn": fnp.linalg.inv,
        "args": [(_general(3),), (_general(3, 3, 2),)],
        "jax_fn": jnp.linalg.inv,
    },
    {
        "name": "solve",
        "fn": fnp.linalg.solve,
        "args": [
            (_general(3), _RNG.standard_normal(3)),
            (_general(3), _RNG.standard_normal((3, 2))),
            (_general(3, 3, 2), _RNG.standard_normal((3, 2))),
        ],
        "jax_fn": jnp.linalg.solve,
    },
    {
        "name": "det",
        "fn": fnp.linalg.det,
        "args": [(_general(3),), (-_general(3, 3, 2),)],
        "jax_fn": jnp.linalg.det,
    },
    {
        "name": "slogdet",
        "fn": lambda a: tuple(fnp.linalg.slogdet(a)),
        "args": [(_general(3),), (-_general(3, 3, 2),)],
        "jax_fn": lambda a: tuple(jnp.linalg.slogdet(a)),
    },
    {
        "name": "cholesky",
        "fn": fnp.linalg.cholesky,
        "args": [(_junk_above(_spd(3)),), (_spd(3, 2),)],
        "jax_fn": lambda a: jnp.linalg.cholesky(_jfold(a)),
    },
    {
        "name": "eigh",
        "fn": _eigh_fn(fnp, fnp.linalg.eigh),
        "args": [(_junk_above(_sym_distinct(4)),), (_sym_distinct(3),)],
        "jax_fn": _eigh_fn(jnp, lambda a: jnp.linalg.eigh(_jfold(a))),
    },
    {
        "name": "svd",
        "fn": _svd_fn(fnp),
        "args": [(_distinct_sv(3, 3),), (_distinct_sv(5, 3),), (_distinct_sv(3, 5),)],
        "jax_fn": _svd_fn(jnp),
    },
    {
        "name": "qr",
        "fn": _qr_fn(fnp),
        "args": [(_general(3),), (_general(5, 3),), (_general(3, 5),)],
        "jax_fn": _qr_fn(jnp),
    },
    {
        "name": "pinv",
        "fn": fnp.linalg.pinv,
        "args": [(_general(3),), (_general(5, 3),), (_general(3, 5),)],
        "jax_fn": jnp.linalg.pinv,
    },
]

COMPOSITE_ENTRIES = [
    {
        "name": "linalg.eigvalsh",
        "fn": lambda a: fnp.linalg.eigvalsh(a),
        "args": [(_junk_above(_sym_distinct(4)),)],
        "jax_fn": lambda a: jnp.linalg.eigvalsh(_jfold(a)),
    },
    {
        "name": "linalg.svdvals",
        "fn": lambda a: fnp.linalg.svd(a, compute_uv=False),
        "args": [(_distinct_sv(4, 3),), (_distinct_sv(3, 4),)],
        "jax_fn": lambda a: jnp.linalg.svd(a, compute_uv=False),
    },
    {
        "name": "linalg.matrix_power",
        "fn": lambda a: fnp.linalg.matrix_power(a, 3),
        "args": [(_general(3),), (_general(3, 3, 2),)],
        "jax_fn": lambda a: jnp.linalg.matrix_power(a, 3),
    },
    {
        "name": "linalg.matrix_power_neg",
        "fn": lambda a: fnp.linalg.matrix_power(a, -2),
        "args": [(_general(3),)],
        "jax_fn": lambda a: jnp.linalg.matrix_power(a, -2),
    },
    {
        "name": "linalg.lstsq",
        "fn": lambda a, b: fnp.linalg.lstsq(a, b)[:2],
        "args": [
            (_general(5, 3), _RNG.standard_normal(5)),
            (_general(5, 3), _RNG.standard_normal((5, 2))),
        ],
        "jax_fn": lambda a, b: jnp.linalg.lstsq(a, b)[:2],
    },
    {
        "name": "linalg.norm_vector",
        "fn": lambda x: [fnp.linalg.norm(x, o) for o in (None, 1, np.inf, -np.inf, 3)],
        "args": [(np.array([0.7, -1.3, 0.9, -0.55, 1.1]),)],
        "jax_fn": lambda x: [jnp.linalg.norm(x, o) for o in (None, 1, np.inf, -np.inf, 3)],
    },
    {
        "name": "linalg.norm_matrix",
        "fn": lambda x: [
            fnp.linalg.norm(x, o) for o in (None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf)
        ],
        "args": [(np.array([[0.7, -1.3, 0.2], [1.9, -0.55, 1.1], [0.3, 0.45, -2.4]]),)],
        "jax_fn": lambda x: [
            jnp.linalg.norm(x, o) for o in (None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf)
        ],
    },
    {
        "name": "linalg.cond",
        "fn": fnp.linalg.cond,
        "args": [(_distinct_sv(4, 3),)],
        "jax_fn": jnp.linalg.cond,
    },
    {
        "name": "linalg.multi_dot",
        "fn": lambda a, b, c: fnp.linalg.multi_dot([a, b, c]),
        "args": [(_RNG.standard_normal(3), _RNG.standard_normal((3, 5)), _RNG.standard_normal(5))],
        "jax_fn": lambda a, b, c: jnp.linalg.multi_dot([a, b, c]),
    },
    {
        "name": "kron",
        "fn": fnp.kron,
        "args": [(_RNG.standard_normal((2, 3)), _RNG.standard_normal((3, 2)))],
        "jax_fn": jnp.kron,
    },
    {
        "name": "vdot",
        "fn": fnp.vdot,
        "args": [(_RNG.standard_normal((2, 3)), _RNG.standard_normal((3, 2)))],
        "jax_fn": jnp.vdot,
    },
    {
        "name": "inner",
        "fn": fnp.inner,
        "args": [(_RNG.standard_normal((2, 3)), _RNG.standard_normal((4, 3)))],
        "jax_fn": jnp.inner,
    },
]
