"""Op-database entries for the linear-algebra primitives on complex inputs, and for the
general eigendecomposition ``eig`` (``ftransforms/ops/linalg.py``) and the composite
``fnp.linalg`` functions on complex inputs; also ``tensorsolve`` and ``tensorinv`` (real).
Format: ``tests/op_db.py``.

The generic tests differentiate real operands and real outputs only, so each complex
matrix is passed as its real and imaginary parts ``(x, y)`` and rebuilt as ``x + 1j * y``
inside ``fn``; complex results come back as ``(real, imag)`` parts, and eigenvectors and
singular vectors through phase-invariant quantities (``|v|**2``, reconstructions).  That
covers every complex derivative (JAX's convention: NOTE [complex derivatives]).

Hermitian inputs are built inside ``fn`` (``z + z^H``, ``z z^H / n + I``), so that NumPy's
lower-triangle reading and JAX's symmetrisation see the same matrix.  ``eig``'s
eigenvectors are compared directly with JAX's ``enable_eigvec_derivs=True``, which
differentiates through the same LAPACK normalisation (NOTE [eig gauge]).  The forward
reference is JAX (``ref="jax"``), float64 only; inputs are drawn well conditioned for
every seed (a dominant diagonal, eigenvalues and singular values well apart).
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import numpy as np

import ftransforms.numpy as fnp
from ftransforms.core.primitive import REGISTRY
from tests.op_db_base import FNP, JNP, Draw, S, Sample, add

F64 = (np.dtype(np.float64),)


def _parts(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(x, y): the real and imaginary parts of a complex array, as float64 operands."""
    return np.ascontiguousarray(z.real), np.ascontiguousarray(z.imag)


def _cplx(d: Draw, *shape: int) -> np.ndarray:
    return d.rng.standard_normal(shape) + 1j * d.rng.standard_normal(shape)


def _general(d: Draw, n: int, m: int | None = None, *batch: int) -> np.ndarray:
    m = n if m is None else m
    a = 0.3 * _cplx(d, *batch, n, m)
    k = min(n, m)
    a[..., range(k), range(k)] += 1.5
    return a


def _distinct_sv(d: Draw, m: int, n: int) -> np.ndarray:
    k = min(m, n)
    u = np.linalg.qr(_cplx(d, m, k))[0]
    v = np.linalg.qr(_cplx(d, n, k))[0]
    return (u * (1.0 + 0.7 * np.arange(k)[::-1])) @ v.conj().T


def _herm_distinct(d: Draw, n: int) -> np.ndarray:
    """Half of a Hermitian matrix with eigenvalues about 1 apart (``z + z^H`` doubles it)."""
    q = np.linalg.qr(_cplx(d, n, n))[0]
    lam = np.arange(n) - (n - 1) / 2 + 0.1 * d.rng.standard_normal(n)
    return (q * lam) @ q.conj().T / 2


def _nonnormal(d: Draw, n: int) -> np.ndarray:
    x = _general(d, n)
    lam = np.arange(n) + 1.0 + 0.5j * d.rng.standard_normal(n)
    return (x * lam) @ np.linalg.inv(x)


def _real_with_complex_pair(d: Draw) -> np.ndarray:
    x = _general(d, 3).real
    block = np.array([[0.5, -1.2, 0.0], [1.2, 0.5, 0.0], [0.0, 0.0, 2.0]])
    return x @ block @ np.linalg.inv(x)


# -- functions written once over a namespace -------------------------------------------------


def _z(x, y):
    return x + 1j * y


def _reim(m, z):
    return m.real(z), m.imag(z)


def _mH(m, x):  # noqa: N802
    return m.conj(m.swapaxes(x, -1, -2))


def _fn(body: Callable) -> Callable:
    """``fn(m, *parts) = body(m, *complex_operands)``: operands given as real parts."""

    def fn(m, *parts):
        zs = [_z(x, y) for x, y in zip(parts[::2], parts[1::2])]
        return body(m, *zs)

    fn.__name__ = getattr(body, "__name__", "complex_fn")
    return fn


def _svd_body(m, a):
    u, s, vh = m.linalg.svd(a, full_matrices=False)
    recon = m.matmul(u * m.sin(s)[..., None, :], vh)
    return (*_reim(m, recon), m.abs(u) ** 2, s, m.abs(vh) ** 2)


def _eigh_body(m, x):
    w, v = m.linalg.eigh(x + _mH(m, x))
    recon = m.matmul(v * m.cos(w)[..., None, :], _mH(m, v))
    return (w, m.abs(v) ** 2, *_reim(m, recon))


def _qr_body(m, a):
    q, r = m.linalg.qr(a)
    return (*_reim(m, q), *_reim(m, r))


def _eig_of(m, a):
    if m is JNP:
        return jax.lax.linalg.eig(a, compute_left_eigenvectors=False, enable_eigvec_derivs=True)
    return m.linalg.eig(a)


def _eig_body(m, a):
    w, v = _eig_of(m, a)
    return (*_reim(m, w), m.abs(v) ** 2, *_reim(m, v))


def _eig_real(m, a):
    w, v = _eig_of(m, a)
    return (*_reim(m, w), m.abs(v) ** 2, *_reim(m, v))


def _psd(m, x):
    n = x.shape[-1]
    eye = fnp.eye(n, dtype=x.dtype, like=x) if m is FNP else m.eye(n)
    return m.matmul(x, _mH(m, x)) / n + eye


# -- the entries -------------------------------------------------------------------------------


def _s(label: str, *zs: np.ndarray, **kwargs) -> Sample:
    """A sample whose operands are the real and imaginary parts of the complex ``zs``."""
    return S(label, *[p for z in zs for p in _parts(z)], **kwargs)


def _add(name: str, body: Callable, sampler: Callable, funcs: str, **opts) -> None:
    """``linalg_complex_<name>`` over real parts; prims ``(name,)`` when a primitive."""
    prefix = "linalg_complex_" if name in REGISTRY else "linalg_complex_composite_linalg_"
    add(
        prefix + name,
        _fn(body),
        sampler,
        prims=(name,) if name in REGISTRY else (),
        funcs=funcs,
        dtypes=F64,
        ref="jax",
        via_numpy=False,
        **opts,
    )


_ULP = (
    "NumPy's complex scalar multiply and its multiply ufunc round one ulp apart; the check "
    "compares primal values bit for bit"
)
_add(
    "inv",
    lambda m, a: _reim(m, m.linalg.inv(a)),
    lambda d: [_s("3x3", _general(d, 3))],
    "linalg.inv",
)
_add(
    "solve",
    lambda m, a, b: _reim(m, m.linalg.solve(a, b)),
    lambda d: [_s("3x3_3x2", _general(d, 3), _cplx(d, 3, 2))],
    "linalg.solve",
)
_add(
    "det",
    lambda m, a: _reim(m, m.linalg.det(a)),
    lambda d: [_s("3x3", _general(d, 3))],
    "linalg.det",
)
_add(
    "slogdet",
    lambda m, a: (m.linalg.slogdet(a)[1], *_reim(m, m.linalg.slogdet(a)[0])),
    # the 3x3 sample of seed 0 meets det's one-ulp rounding (sign_bar * sign in the VJP)
    lambda d: [
        _s("3x3", _general(d, 3), _xfail={"test_second_order": _ULP}),
        _s("2x3x3", _general(d, 3, 3, 2)),
    ],
    "linalg.slogdet",
)
_add(
    "cholesky",
    lambda m, x: _reim(m, m.linalg.cholesky(_psd(m, x))),
    lambda d: [_s("3x3", _cplx(d, 3, 3))],
    "linalg.cholesky",
)
_add("eigh", _eigh_body, lambda d: [_s("3x3", _herm_distinct(d, 3))], "linalg.eigh")
# svd's singular vectors have large higher derivatives: the 4th-order difference quotient
# needs a smaller step to stay within the finite-difference tolerance (truncation error)
_add(
    "svd",
    _svd_body,
    lambda d: [
        _s(f"{a}x{b}", _distinct_sv(d, a, b), _fd_eps=5e-4) for a, b in ((3, 3), (4, 2), (2, 4))
    ],
    "linalg.svd",
)
# the wide sample is not the first: JAX has no QR derivative for wide matrices, and only
# an entry's first sample is compared with JAX (the others with finite differences)
_add(
    "qr",
    _qr_body,
    lambda d: [_s(f"{a}x{b}", _general(d, a, b)) for a, b in ((3, 3), (4, 2), (2, 4))],
    "linalg.qr",
)
_add(
    "pinv",
    lambda m, a: _reim(m, m.linalg.pinv(a)),
    lambda d: [_s(f"{a}x{b}", _general(d, a, b)) for a, b in ((3, 3), (4, 2), (2, 4))],
    "linalg.pinv",
)
_EIG_REAL = (
    "eig of a real matrix is real when every eigenvalue is (NumPy's rule, read from the "
    "values: fnp.peek)"
)
_add(
    "eig",
    _eig_body,
    lambda d: [_s("3x3", _nonnormal(d, 3))],
    "linalg.eig",
)
add(
    "linalg_complex_eig_real_input",
    _eig_real,
    lambda d: [S("3x3", _real_with_complex_pair(d))],
    prims=("eig",),
    funcs="linalg.eig",
    dtypes=F64,
    ref="jax",
    via_numpy=False,
    value_dependent=_EIG_REAL,
)

# -- composite fnp.linalg functions on complex inputs -------------------------------------------

_add(
    "eigvals",
    lambda m, a: _reim(m, m.linalg.eigvals(a)),
    lambda d: [_s("3x3", _nonnormal(d, 3))],
    "linalg.eigvals",
)
_add(
    "eigvalsh",
    lambda m, x: m.linalg.eigvalsh(x + _mH(m, x)),
    lambda d: [_s("4x4", _herm_distinct(d, 4))],
    "linalg.eigvalsh",
)
_add(
    "svdvals",
    lambda m, a: m.linalg.svd(a, compute_uv=False),
    lambda d: [_s("4x3", _distinct_sv(d, 4, 3)), _s("3x4", _distinct_sv(d, 3, 4))],
    "linalg.svd",
)
_add(
    "matrix_power",
    lambda m, a: _reim(m, m.linalg.matrix_power(a, -2)),
    lambda d: [_s("3x3", _general(d, 3))],
    "linalg.matrix_power",
)
_add(
    "lstsq",
    lambda m, a, b: (*_reim(m, m.linalg.lstsq(a, b)[0]), m.linalg.lstsq(a, b)[1]),
    lambda d: [_s("5x3_5", _general(d, 5, 3), _cplx(d, 5))],
    "linalg.lstsq",
    value_dependent="lstsq reads the singular values for the rank (fnp.peek)",
)
_add(
    "norm_vector",
    lambda m, x: [m.linalg.norm(x, o) for o in (None, 1, np.inf, -np.inf, 3)],
    lambda d: [_s("5", _cplx(d, 5))],
    "linalg.norm",
)
_add(
    "norm_matrix",
    lambda m, x: [m.linalg.norm(x, o) for o in (None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf)],
    lambda d: [_s("3x3", _distinct_sv(d, 3, 3) + np.diag([0.0, 0.3, 0.7]))],
    "linalg.norm",
)
_add(
    "cond",
    lambda m, a: m.linalg.cond(a),
    lambda d: [_s("4x3", _distinct_sv(d, 4, 3))],
    "linalg.cond",
)

# -- tensorsolve and tensorinv (real: one solve/inv of the flattened problem) ----------------------


def _general_real(d: Draw, n: int) -> np.ndarray:
    return d._f(0.3 * d.rng.standard_normal((n, n)) + 1.5 * np.eye(n))


add(
    "linalg_tensorsolve",
    lambda m, a, b, axes=None: m.linalg.tensorsolve(a, b, axes=axes),
    lambda d: [
        S("2x3x6_2x3", _general_real(d, 6).reshape(2, 3, 6), d.u((2, 3))),
        S(
            "axes0_6x2x3_2x3",
            _general_real(d, 6).reshape(2, 3, 6).transpose(2, 0, 1),
            d.u((2, 3)),
            axes=(0,),
        ),
    ],
    prims="solve",
    funcs="linalg.tensorsolve",
    dtypes=F64,
)
add(
    "linalg_tensorinv",
    lambda m, a, ind=2: m.linalg.tensorinv(a, ind=ind),
    lambda d: [
        S("2x3x6_ind2", _general_real(d, 6).reshape(2, 3, 6)),
        S("4x2x2_ind1", _general_real(d, 4).reshape(4, 2, 2), ind=1),
    ],
    prims="inv",
    funcs="linalg.tensorinv",
    dtypes=F64,
)
