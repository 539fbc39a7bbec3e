"""Op-database entries for ``fnp.linalg`` (the primitives of ``ftransforms/ops/linalg.py``:
inv, solve, det, slogdet, cholesky, eigh, svd, qr, pinv, and the composites built on
them).  Format: ``tests/op_db.py``.

Float64 only (float32 factorizations are checked in ``tests/test_linalg.py``).  Inputs are
well conditioned for every seed: a dominant diagonal for general matrices, SPD matrices
for cholesky, symmetric matrices with eigenvalues about 1 apart for eigh, singular values
about 0.7 apart for svd.  Functions of eigenvectors and singular vectors are
sign-invariant (``v * v``, ``u @ diag(g(s)) @ vh``) so that any sign convention compares
equal.  NumPy's cholesky and eigh read only the lower triangle (NOTE [numpy reads one
triangle] in ``ftransforms/ops/linalg.py``); JAX is given that same matrix, and samples
carry junk in the strict upper triangle to show that it is ignored.
"""

from __future__ import annotations

import numpy as np

from tests.op_db_base import JNP, Draw, S, Sample, add

F64 = (np.dtype(np.float64),)
LINALG = {"dtypes": F64}


def general(d: Draw, n: int, m: int | None = None, *batch: int) -> np.ndarray:
    """A matrix with a dominant diagonal (well conditioned)."""
    m = n if m is None else m
    a = 0.3 * d.rng.standard_normal(batch + (n, m))
    k = min(n, m)
    a[..., range(k), range(k)] += 1.5
    return d._f(a)


def spd(d: Draw, n: int, *batch: int) -> np.ndarray:
    x = d.rng.standard_normal(batch + (n, n))
    return d._f(x @ np.swapaxes(x, -1, -2) / n + np.eye(n))


def sym_distinct(d: Draw, n: int) -> np.ndarray:
    """Symmetric, eigenvalues about 1 apart."""
    q = np.linalg.qr(d.rng.standard_normal((n, n)))[0]
    lam = np.arange(n) - (n - 1) / 2 + 0.1 * d.rng.standard_normal(n)
    return d._f((q * lam) @ q.T)


def distinct_sv(d: Draw, m: int, n: int) -> np.ndarray:
    """Singular values about 0.7 apart."""
    k = min(m, n)
    u = np.linalg.qr(d.rng.standard_normal((m, k)))[0]
    v = np.linalg.qr(d.rng.standard_normal((n, k)))[0]
    return d._f((u * (1.0 + 0.7 * np.arange(k)[::-1])) @ v.T)


def junk_above(d: Draw, a: np.ndarray) -> np.ndarray:
    return d._f(a + np.triu(d.rng.standard_normal(a.shape), 1))


def lower_sym(m, a):
    """What NumPy's cholesky/eigh see: the symmetric matrix of the lower triangle (for
    JAX, which reads both)."""
    if m is not JNP:
        return a
    return m.tril(a) + m.swapaxes(m.tril(a, -1), -1, -2)


def _eigh(m, a):
    w, v = m.linalg.eigh(lower_sym(m, a))
    recon = m.matmul(v * m.cos(w)[..., None, :], m.swapaxes(v, -1, -2))
    return w, v * v, recon


def _svd(m, a):
    u, s, vh = m.linalg.svd(a, full_matrices=False)
    return u * u, s, vh * vh, m.matmul(u * m.sin(s)[..., None, :], vh)


def _qr(m, a):
    q, r = m.linalg.qr(a)
    k = np.arange(r.shape[-2])
    return q * q, r * r, m.matmul(q * m.cos(r[..., k, k])[..., None, :], r)


def _square(d: Draw) -> list[Sample]:
    return [S("3x3", general(d, 3)), S("2x3x3", general(d, 3, 3, 2))]


def _shapes(d: Draw) -> list[Sample]:
    return [S("3x3", general(d, 3)), S("5x3", general(d, 5, 3)), S("3x5", general(d, 3, 5))]


# -- the primitives --------------------------------------------------------------------------

add("inv", lambda m, a: m.linalg.inv(a), _square, funcs="linalg.inv", **LINALG)
add(
    "solve",
    lambda m, a, b: m.linalg.solve(a, b),
    lambda d: [
        S("3x3_3x1", general(d, 3), d.u((3, 1))),
        S("3x3_3x2", general(d, 3), d.u((3, 2))),
        S("2x3x3_2x3x2", general(d, 3, 3, 2), d.u((2, 3, 2))),
    ],
    funcs="linalg.solve",
    **LINALG,
)
add(
    "det",
    lambda m, a: m.linalg.det(a),
    lambda d: [S("3x3", general(d, 3)), S("2x3x3_negative", -general(d, 3, 3, 2))],
    funcs="linalg.det",
    prims=("det", "adjugate"),
    **LINALG,
)
add(
    "slogdet",
    lambda m, a: tuple(m.linalg.slogdet(a)),
    lambda d: [S("3x3", general(d, 3)), S("2x3x3_negative", -general(d, 3, 3, 2))],
    funcs="linalg.slogdet",
    **LINALG,
)
add(
    "cholesky",
    lambda m, a: m.linalg.cholesky(lower_sym(m, a)),
    lambda d: [S("3x3_junk_above", junk_above(d, spd(d, 3))), S("2x3x3", spd(d, 3, 2))],
    funcs="linalg.cholesky",
    **LINALG,
)
add(
    "eigh",
    _eigh,
    lambda d: [
        S("4x4_junk_above", junk_above(d, sym_distinct(d, 4))),
        S("3x3", sym_distinct(d, 3)),
    ],
    funcs="linalg.eigh",
    **LINALG,
)
# svd's singular vectors have large higher derivatives: the 4th-order difference quotient
# needs a smaller step to stay within the finite-difference tolerance (truncation error)
add(
    "svd",
    _svd,
    lambda d: [
        S(f"{m}x{n}", distinct_sv(d, m, n), _fd_eps=5e-4) for m, n in ((3, 3), (5, 3), (3, 5))
    ],
    funcs="linalg.svd",
    **LINALG,
)
add("qr", _qr, _shapes, funcs="linalg.qr", **LINALG)
add("pinv", lambda m, a: m.linalg.pinv(a), _shapes, funcs="linalg.pinv", **LINALG)

# -- composites ------------------------------------------------------------------------------

add(
    "linalg_eigvalsh",
    lambda m, a: m.linalg.eigvalsh(lower_sym(m, a)),
    lambda d: [S("4x4_junk_above", junk_above(d, sym_distinct(d, 4)))],
    prims="eigh",
    funcs="linalg.eigvalsh",
    **LINALG,
)
add(
    "linalg_svdvals",
    lambda m, a: m.linalg.svdvals(a),
    lambda d: [S("4x3", distinct_sv(d, 4, 3)), S("3x4", distinct_sv(d, 3, 4))],
    prims="svd",
    funcs="linalg.svdvals",
    **LINALG,
)
add(
    "linalg_svd_compute_uv_false",
    lambda m, a: m.linalg.svd(a, compute_uv=False),
    lambda d: [S("4x3", distinct_sv(d, 4, 3))],
    prims="svd",
    funcs="linalg.svd",
    **LINALG,
)
add(
    "linalg_matrix_power",
    lambda m, a, n: m.linalg.matrix_power(a, n),
    lambda d: (
        [S("3x3_n3", general(d, 3), 3), S("2x3x3_n3", general(d, 3, 3, 2), 3)]
        + [S("3x3_n-2", general(d, 3), -2), S("3x3_n0", general(d, 3), 0)]
    ),
    prims="matmul",
    funcs="linalg.matrix_power",
    **LINALG,
)
add(
    "linalg_lstsq",
    lambda m, a, b: tuple(m.linalg.lstsq(a, b)[:2]),
    lambda d: [
        S("5x3_5", general(d, 5, 3), d.u((5,))),
        S("5x3_5x2", general(d, 5, 3), d.u((5, 2))),
    ],
    prims="svd",
    funcs="linalg.lstsq",
    value_dependent="lstsq reads the singular values for the rank (fnp.peek)",
    via_numpy=False,  # numpy.linalg.lstsq warns about rcond; covered by fnp
    **LINALG,
)
_VECTOR_ORDS = (None, 1, np.inf, -np.inf, 3)
_MATRIX_ORDS = (None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf)
add(
    "linalg_norm_vector_ords",
    lambda m, x: [m.linalg.norm(x, o) for o in _VECTOR_ORDS],
    lambda d: [S("5", d.away((5,), lo=0.3) + np.linspace(0, 0.5, 5).astype(d.dtype))],
    prims=("abs", "reduce_max", "reduce_min", "power"),
    funcs="linalg.norm",
    **LINALG,
)
add(
    "linalg_norm_matrix_ords",
    lambda m, x: [m.linalg.norm(x, o) for o in _MATRIX_ORDS],
    lambda d: [S("3x3", distinct_sv(d, 3, 3) * np.asarray([[1.0, -1.2, 0.7]]))],
    prims=("svd", "reduce_max", "reduce_min"),
    funcs="linalg.norm",
    **LINALG,
)
add(
    "linalg_cond",
    lambda m, a: m.linalg.cond(a),
    lambda d: [S("4x3", distinct_sv(d, 4, 3)), S("3x3", distinct_sv(d, 3, 3))],
    prims="svd",
    funcs="linalg.cond",
    **LINALG,
)
add(
    "linalg_multi_dot",
    lambda m, a, b, c: m.linalg.multi_dot([a, b, c]),
    lambda d: [
        S("3_3x5_5", d.u((3,)), d.u((3, 5)), d.u((5,))),
        S("2x3_3x4_4x2", d.u((2, 3)), d.u((3, 4)), d.u((4, 2))),
    ],
    prims="matmul",
    funcs="linalg.multi_dot",
    **LINALG,
)
