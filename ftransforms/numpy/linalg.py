"""``ftransforms.numpy.linalg``: ``numpy.linalg`` over arrays and tracers.

The matrix functions map over leading axes like NumPy's (``inv``, ``solve``, ``det``,
``slogdet``, ``cholesky``, ``eigh``, ``eigvalsh``, ``eig``, ``eigvals``, ``svd``,
``svdvals``, ``qr``, ``pinv`` are primitives of ``ftransforms.ops.linalg``);
``matrix_power``, ``lstsq``, ``norm``, ``matrix_norm``, ``vector_norm``, ``cond``,
``matrix_rank`` and ``multi_dot`` are built from them.  Inputs are real or complex, with
derivatives under JAX's convention (NOTE [complex linear algebra] in
``ftransforms/ops/linalg.py``); integer inputs are computed in float64, as NumPy does.

Example:
    >>> import numpy as np
    >>> import ftransforms.numpy as fnp
    >>> from ftransforms import grad
    >>> a = np.array([[2.0, 1.0], [1.0, 3.0]])
    >>> np.allclose(grad(lambda a: slogdet(a)[1])(a), np.linalg.inv(a).T)
    True
"""

from __future__ import annotations

import math
import operator
from collections import namedtuple
from typing import Any

import numpy
from numpy.linalg import LinAlgError

import ftransforms.numpy.creation as creation
import ftransforms.numpy.helpers as helpers
import ftransforms.numpy.indexing as indexing
import ftransforms.numpy.inplace as inplace
import ftransforms.numpy.manipulation as manipulation
import ftransforms.numpy.products as products
import ftransforms.numpy.rearranging as rearranging
import ftransforms.numpy.reductions as reductions
import ftransforms.numpy.sorting as sorting
import ftransforms.numpy.ufuncs as ufuncs
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.dispatch import implements
from ftransforms.ops import linalg as _la

# NumPy's own result types (so results have the same pytree structure as NumPy's).
try:
    from numpy.linalg._linalg import EighResult, EigResult, QRResult, SlogdetResult, SVDResult
except ImportError:  # pragma: no cover  (numpy < 2)
    EigResult = namedtuple("EigResult", ["eigenvalues", "eigenvectors"])
    EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
    QRResult = namedtuple("QRResult", ["Q", "R"])
    SlogdetResult = namedtuple("SlogdetResult", ["sign", "logabsdet"])
    SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])

__all__ = [
    "LinAlgError",
    "cholesky",
    "cond",
    "cross",
    "det",
    "diagonal",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "inv",
    "lstsq",
    "matmul",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "matrix_transpose",
    "multi_dot",
    "norm",
    "outer",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "svd",
    "svdvals",
    "tensordot",
    "tensorinv",
    "tensorsolve",
    "trace",
    "vecdot",
    "vector_norm",
]

_NO_VALUE = numpy._NoValue


# -- input checks ------------------------------------------------------------------------


def _float(x: Any, name: str) -> Any:
    """``x`` as an array or tracer of a floating or complex dtype (integers and booleans
    become float64, as in NumPy)."""
    if not isinstance(x, Tracer) and not hasattr(x, "dtype"):
        x = creation.asarray(x)
    kind = numpy.dtype(x.dtype).kind
    if kind not in "fc":
        x = ufuncs.astype(x, numpy.float64)
    return x


def _is_complex(x: Any) -> bool:
    return numpy.dtype(x.dtype).kind == "c"


def _abs2(x: Any) -> Any:
    """``|x|**2``, real (``x * x`` for real ``x``)."""
    return ufuncs.real(x * ufuncs.conj(x)) if _is_complex(x) else x * x


def _dot_square(v: Any) -> Any:
    """``sum(|v|**2)`` of a vector as NumPy's ``norm`` sums it over all elements: the dot
    product of ``v`` with itself (of its real and imaginary parts for complex ``v``)."""
    if _is_complex(v):
        re, im = ufuncs.real(v), ufuncs.imag(v)
        return products.vecdot(re, re) + products.vecdot(im, im)
    return products.vecdot(v, v)


def _matrices(a: Any, name: str, square: bool = True) -> Any:
    a = _float(a, name)
    rank = helpers.ndim(a)
    if rank < 2:
        raise LinAlgError(f"{rank}-dimensional array given. Array must be at least two-dimensional")
    if square and a.shape[-1] != a.shape[-2]:
        raise LinAlgError("Last 2 dimensions of the array must be square")
    return a


def _common_float(a: Any, b: Any, name: str) -> tuple[Any, Any]:
    a, b = _float(a, name), _float(b, name)
    dt = numpy.result_type(a.dtype, b.dtype)
    return ufuncs.astype(a, dt), ufuncs.astype(b, dt)


def _mT(x: Any) -> Any:  # noqa: N802  (numpy's name)
    return manipulation.swapaxes(x, -1, -2)


def _mH(x: Any) -> Any:  # noqa: N802
    return ufuncs.conj(_mT(x)) if _is_complex(x) else _mT(x)


# -- the primitives' front ends ----------------------------------------------------------


@implements(numpy.linalg.inv)
def inv(a: Any) -> Any:
    """``numpy.linalg.inv``: the inverse of each square matrix over the last two axes
    (integers are inverted in float64); derivative ``-inv(a) @ da @ inv(a)``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.linalg.inv(np.array([[2.0, 0.0], [0.0, 4.0]])).tolist()
        [[0.5, 0.0], [0.0, 0.25]]
        >>> float(ft.grad(lambda t: fnp.linalg.inv(t * np.eye(2))[0, 0])(2.0))  # -1/t**2
        -0.25
    """
    return _la.inv_p.bind(_matrices(a, "inv"))


@implements(numpy.linalg.solve)
def solve(a: Any, b: Any) -> Any:
    """``numpy.linalg.solve``: ``x`` with ``a @ x == b`` (NumPy 2 semantics: ``b`` is a
    vector only when 1-D).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> A = np.array([[2.0, 1.0], [1.0, 3.0]])
        >>> fnp.linalg.solve(A, np.array([3.0, 4.0])).tolist()
        [1.0, 1.0]
        >>> total = lambda b: fnp.linalg.solve(A, b).sum()
        >>> ft.grad(total)(np.zeros(2)).tolist()  # inv(A).T @ [1, 1]
        [0.4, 0.2]
    """
    a = _matrices(a, "solve")
    a, b = _common_float(a, b, "solve")
    if helpers.ndim(b) == 1:
        x = _la.solve_p.bind(a, manipulation.reshape(b, (-1, 1)))
        return manipulation.reshape(x, x.shape[:-1])
    return _la.solve_p.bind(a, b)


@implements(numpy.linalg.det)
def det(a: Any) -> Any:
    """``numpy.linalg.det``: the determinant of each square matrix over the last two axes;
    its gradient is the cofactor matrix ``det(a) * inv(a).T``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> A = np.array([[2.0, 1.0], [1.0, 3.0]])
        >>> round(float(fnp.linalg.det(A)), 6)
        5.0
        >>> np.round(ft.grad(fnp.linalg.det)(A), 6).tolist()
        [[3.0, -1.0], [-1.0, 2.0]]
    """
    return _la.det_p.bind(_matrices(a, "det"))


@implements(numpy.linalg.slogdet)
def slogdet(a: Any) -> SlogdetResult:
    """``numpy.linalg.slogdet``: ``(sign, logabsdet)``; ``sign`` has derivative 0, and the
    gradient of ``logabsdet`` is ``inv(a).T``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> sign, logabsdet = fnp.linalg.slogdet(np.array([[0.0, 2.0], [1.0, 0.0]]))
        >>> float(sign), round(float(logabsdet), 6)  # det = -2
        (-1.0, 0.693147)
        >>> A = np.array([[2.0, 1.0], [1.0, 3.0]])
        >>> np.round(ft.grad(lambda a: fnp.linalg.slogdet(a).logabsdet)(A), 6).tolist()
        [[0.6, -0.2], [-0.2, 0.4]]
    """
    return SlogdetResult(*_la.slogdet_p.bind(_matrices(a, "slogdet")))


@implements(numpy.linalg.cholesky)
def cholesky(a: Any, /, *, upper: bool = False, symmetrize_input: bool = False) -> Any:
    """``numpy.linalg.cholesky``: reads the lower (``upper=True``: upper) triangle only,
    and so does its derivative (NOTE [numpy reads one triangle] in ``ops/linalg.py``).
    ``jax.numpy``'s ``symmetrize_input=True`` (JAX's default) factors ``(a + a^H) / 2``
    instead, so the gradient is symmetric (Hermitian), as JAX's.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> A = np.array([[4.0, 2.0], [2.0, 5.0]])
        >>> fnp.linalg.cholesky(A).tolist()
        [[2.0, 0.0], [1.0, 2.0]]
        >>> fnp.linalg.cholesky(A, upper=True).tolist()
        [[2.0, 1.0], [0.0, 2.0]]
        >>> float(ft.grad(lambda t: fnp.linalg.cholesky(t * A)[0, 0])(1.0))  # d/dt sqrt(4 t)
        1.0
    """
    a = _matrices(a, "cholesky")
    if symmetrize_input:  # jax.numpy's keyword: the factor of (a + a^H) / 2
        a = (a + _mH(a)) / 2
    if upper:
        return _mH(_la.cholesky_p.bind(_mH(a)))
    return _la.cholesky_p.bind(a)


def _uplo(a: Any, uplo: str) -> Any:
    if uplo not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    # the conjugate transpose's lower triangle holds the upper one's Hermitian matrix
    return a if uplo == "L" else _mH(a)


@implements(numpy.linalg.eigh)
def eigh(
    a: Any,
    UPLO: str = "L",  # noqa: N803  (numpy's name)
    symmetrize_input: bool = False,
) -> EighResult:
    """``numpy.linalg.eigh``: ascending eigenvalues and eigenvectors of a symmetric or
    Hermitian matrix (its ``UPLO`` triangle is read; ``jax.numpy``'s
    ``symmetrize_input=True``, JAX's default, uses ``(a + a^H) / 2`` instead, so the
    gradient is symmetric).  Eigenvector derivatives need distinct
    eigenvalues.  For complex input with ``UPLO='U'`` the eigenvectors may differ from
    NumPy's by a phase per column (LAPACK picks phases per triangle; any is valid).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> w, v = fnp.linalg.eigh(np.array([[2.0, 0.0], [0.0, 1.0]]))
        >>> w.tolist(), v.tolist()
        ([1.0, 2.0], [[0.0, 1.0], [1.0, 0.0]])
        >>> top = lambda a: fnp.linalg.eigh(a).eigenvalues[-1]
        >>> ft.grad(top)(np.array([[2.0, 0.0], [0.0, 1.0]])).tolist()  # v v^T of its vector
        [[1.0, 0.0], [0.0, 0.0]]
    """
    a = _matrices(a, "eigh")
    if symmetrize_input:  # jax.numpy's keyword (its default): eigh of (a + a^H) / 2
        a = (a + _mH(a)) / 2
    a = _uplo(a, UPLO)
    return EighResult(*_la.eigh_p.bind(a, eigenvectors=True))


@implements(numpy.linalg.eigvalsh)
def eigvalsh(a: Any, UPLO: str = "L", *, symmetrize_input: bool = False) -> Any:  # noqa: N803
    """``numpy.linalg.eigvalsh``: the ascending eigenvalues of a symmetric or Hermitian
    matrix, from its ``UPLO`` triangle (``'L'`` or ``'U'``); ``jax.numpy``'s
    ``symmetrize_input=True`` uses ``(a + a^H) / 2`` instead, as :func:`eigh`.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> A = np.array([[2.0, 1.0], [1.0, 2.0]])
        >>> fnp.linalg.eigvalsh(A).tolist()
        [1.0, 3.0]
        >>> np.round(ft.grad(lambda a: fnp.linalg.eigvalsh(a).sum())(A), 6).tolist()  # trace
        [[1.0, 0.0], [0.0, 1.0]]
    """
    a = _matrices(a, "eigvalsh")
    if symmetrize_input:  # as eigh's
        a = (a + _mH(a)) / 2
    a = _uplo(a, UPLO)
    return _la.eigh_p.bind(a, eigenvectors=False)[0]


def _numpy_real_if_all_real(a: Any, outs: tuple) -> tuple:
    """NumPy's rule for ``eig``/``eigvals`` of a real input: the results are real when every
    eigenvalue is (a decision on the data, over the whole stack as in NumPy).  Under
    ``vmap`` each batch element decides for itself, as in the loop over the elements:
    elements that disagree split the batch (NOTE [splitting the batch])."""
    if _is_complex(a):
        return outs
    if not isinstance(outs[0], Tracer):
        complex_ = bool((helpers.to_host(ufuncs.imag(outs[0])) != 0).any())
    else:
        complex_ = helpers.read_per_row(
            reductions.any(ufuncs.not_equal(ufuncs.imag(outs[0]), 0)),  # per element
            "linalg.eig under vmap(split=False): the eigenvalues are complex for some "
            "batch elements and real for others, so NumPy would give them different "
            "dtypes; take .astype(complex) of the input, or drop split=False",
        )
    return outs if complex_ else tuple(ufuncs.real(o) for o in outs)


@implements(numpy.linalg.eig)
def eig(a: Any) -> EigResult:
    """``numpy.linalg.eig``: eigenvalues and unit-norm right eigenvectors of a general
    square matrix.  As in NumPy, the results are complex unless the input is real and
    every eigenvalue is real (a decision on the data, over a whole stack as in NumPy;
    under ``vmap`` each batch element decides, as in the loop over them, and ``jit``
    replays only for this data).

    Derivatives: eigenvalues always (holomorphic in ``a``); eigenvectors need distinct
    eigenvalues and follow NumPy's normalisation (unit 2-norm, largest component real),
    whose phase is a convention: use phase-invariant quantities (NOTE [eig gauge] in
    ``ftransforms/ops/linalg.py``).

    Example:
        >>> import numpy as np
        >>> import ftransforms.numpy as fnp
        >>> from ftransforms import grad
        >>> a = np.array([[0.0, 1.0], [-2.0, -3.0]])
        >>> fnp.linalg.eig(a).eigenvalues
        array([-1., -2.])
        >>> np.allclose(grad(lambda a: fnp.linalg.eigvals(a).sum())(a), np.eye(2))
        True
    """
    a = _matrices(a, "eig")
    outs = _la.eig_p.bind(a, eigenvectors=True)
    return EigResult(*_numpy_real_if_all_real(a, outs))


@implements(numpy.linalg.eigvals)
def eigvals(a: Any) -> Any:
    """``numpy.linalg.eigvals``: the eigenvalues of a general square matrix (complex unless
    the input is real and every eigenvalue is real, as in NumPy); their derivative is
    holomorphic in ``a`` and needs no gauge.

    Example:
        >>> import numpy as np
        >>> import ftransforms.numpy as fnp
        >>> fnp.linalg.eigvals(np.array([[0.0, -1.0], [1.0, 0.0]]))
        array([0.+1.j, 0.-1.j])
    """
    a = _matrices(a, "eigvals")
    return _numpy_real_if_all_real(a, _la.eig_p.bind(a, eigenvectors=False))[0]


@implements(numpy.linalg.svd)
def svd(
    a: Any, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False
) -> Any:
    """``numpy.linalg.svd``.  Derivatives need distinct nonzero singular values; with
    ``full_matrices=True`` (the default) a real matrix's extra singular vectors are
    differentiable when there is one (a DLT's null vector ``vh[-1]`` of an 8x9 system),
    otherwise only the reduced factors are.  ``hermitian=True`` computes
    it from ``eigh`` (lower triangle read) as NumPy does: ``s = |w|`` in descending order,
    the signs of ``w`` moved into ``Vh``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> U, s, Vh = fnp.linalg.svd(np.array([[3.0, 0.0], [0.0, -2.0]]))
        >>> s.tolist()
        [3.0, 2.0]
        >>> top = lambda a: fnp.linalg.svd(a, compute_uv=False)[0]
        >>> ft.grad(top)(np.array([[3.0, 0.0], [0.0, -2.0]])).tolist()  # u v^T of s[0]
        [[1.0, 0.0], [0.0, 0.0]]
    """
    if hermitian:
        return _hermitian_svd(_matrices(a, "svd"), compute_uv)
    a = _matrices(a, "svd", square=False)
    if not compute_uv:
        return _la.svd_p.bind(a, full_matrices=False, compute_uv=False)[0]
    return SVDResult(*_la.svd_p.bind(a, full_matrices=bool(full_matrices), compute_uv=True))


def _hermitian_svd(a: Any, compute_uv: bool) -> Any:
    if not compute_uv:
        return rearranging.flip(sorting.sort(ufuncs.abs(eigvalsh(a)), axis=-1), axis=-1)
    w, v = eigh(a)
    order = rearranging.flip(sorting.argsort(ufuncs.abs(w), axis=-1), axis=-1)
    sign = indexing.take_along_axis(ufuncs.sign(w), order, axis=-1)
    s = indexing.take_along_axis(ufuncs.abs(w), order, axis=-1)
    u = indexing.take_along_axis(v, manipulation.expand_dims(order, -2), axis=-1)
    return SVDResult(u, s, ufuncs.conj(_mT(u * manipulation.expand_dims(sign, -2))))


@implements("numpy.linalg.svdvals")
def svdvals(x: Any, /) -> Any:
    """``numpy.linalg.svdvals``: the singular values, descending.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> A = np.array([[0.0, 2.0], [1.0, 0.0]])
        >>> fnp.linalg.svdvals(A).tolist()
        [2.0, 1.0]
        >>> ft.grad(lambda a: fnp.linalg.svdvals(a).sum())(A).tolist()  # U Vh
        [[0.0, 1.0], [1.0, 0.0]]
    """
    return svd(x, compute_uv=False)


@implements(numpy.linalg.qr)
def qr(a: Any, mode: str = "reduced") -> Any:
    """``numpy.linalg.qr`` for ``mode`` 'reduced', 'complete' and 'r' (others raise
    :class:`~ftransforms.errors.UnsupportedOperationError`).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> M = np.array([[3.0, 1.0], [4.0, 2.0]])
        >>> Q, R = fnp.linalg.qr(M)
        >>> np.round(R, 6).tolist(), bool(np.allclose(Q @ R, M))
        ([[-5.0, -2.2], [0.0, 0.4]], True)
        >>> float(ft.grad(lambda t: fnp.linalg.qr(t * M).R[0, 0])(1.0))  # R scales with t
        -5.0
    """
    a = _matrices(a, "qr", square=False)
    if mode == "r":
        return _la.qr_p.bind(a, mode="reduced")[1]
    if mode not in ("reduced", "complete"):
        raise UnsupportedOperationError(
            f"linalg.qr: mode={mode!r} is not supported; use 'reduced', 'complete' or 'r'"
        )
    return QRResult(*_la.qr_p.bind(a, mode=mode))


@implements(numpy.linalg.pinv)
def pinv(a: Any, rcond: Any = None, hermitian: bool = False, *, rtol: Any = _NO_VALUE) -> Any:
    """``numpy.linalg.pinv`` (a scalar ``rcond``/``rtol``); the derivative is that of the
    pseudo-inverse of the truncated matrix where ``rcond`` drops non-zero singular values
    (NOTE [pinv with cut singular values]), the constant-rank one where they are zero.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> np.round(fnp.linalg.pinv(np.array([[1.0], [2.0]])), 6).tolist()
        [[0.2, 0.4]]
        >>> fnp.linalg.pinv(np.array([[2.0, 0.0], [0.0, 0.0]])).tolist()  # rank 1
        [[0.5, 0.0], [0.0, 0.0]]
        >>> float(ft.grad(lambda t: fnp.linalg.pinv(t * np.eye(2))[0, 0])(2.0))  # -1/t**2
        -0.25
    """
    a = _matrices(a, "pinv", square=False)
    if rcond is None:
        if rtol is _NO_VALUE:
            rcond = 1e-15
        elif rtol is None:
            rcond = max(a.shape[-2:]) * numpy.finfo(a.dtype).eps
        else:
            rcond = rtol
    elif rtol is not _NO_VALUE:
        raise ValueError("`rtol` and `rcond` can't be both set.")
    if numpy.ndim(rcond) != 0:
        raise UnsupportedOperationError("linalg.pinv: only a scalar rcond/rtol is supported")
    if hermitian:
        a = _la.fold_lower(a)
    return _la.pinv_p.bind(a, rcond=float(rcond))


# -- composites --------------------------------------------------------------------------


@implements(numpy.linalg.matrix_power)
def matrix_power(a: Any, n: int) -> Any:
    """``numpy.linalg.matrix_power`` by repeated squaring (``inv`` first for ``n < 0``); a
    non-integer ``n`` raises ``TypeError``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.linalg.matrix_power(np.array([[1.0, 1.0], [0.0, 1.0]]), 3).tolist()
        [[1.0, 3.0], [0.0, 1.0]]
        >>> fnp.linalg.matrix_power(np.array([[2.0, 0.0], [0.0, 4.0]]), -1).tolist()
        [[0.5, 0.0], [0.0, 0.25]]
        >>> float(ft.grad(lambda t: fnp.linalg.matrix_power(t * np.eye(2), 3)[0, 0])(2.0))
        12.0
    """
    a = creation.asarray(a) if not isinstance(a, Tracer) and not hasattr(a, "dtype") else a
    if helpers.ndim(a) < 2 or a.shape[-1] != a.shape[-2]:
        raise LinAlgError("Last 2 dimensions of the array must be square")
    try:
        n = operator.index(n)
    except TypeError as e:
        raise TypeError("exponent must be an integer") from e
    if n == 0:
        eye = creation.eye(a.shape[-1], dtype=a.dtype, like=a)
        return (
            creation.copy(manipulation.broadcast_to(eye, a.shape)) if helpers.ndim(a) > 2 else eye
        )
    if n < 0:
        a, n = inv(a), -n
    result, z = None, a
    while True:
        if n & 1:
            result = z if result is None else products.matmul(result, z)
        n >>= 1
        if not n:
            return result
        z = products.matmul(z, z)


@implements(numpy.linalg.lstsq)
def lstsq(a: Any, b: Any, rcond: Any = None) -> tuple[Any, Any, Any, Any]:
    """``numpy.linalg.lstsq``: ``(x, residuals, rank, s)``, ``x = pinv(a) @ b``.

    ``residuals`` is filled when ``a`` is tall and of full rank, else empty (under ``vmap``
    every batch element must agree on that).  ``rank`` is an integer array.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> t = np.array([0.0, 1.0, 2.0, 3.0])
        >>> a = np.stack([np.ones(4), t], axis=1)  # fit y = c0 + c1 t
        >>> x, residuals, rank, s = fnp.linalg.lstsq(a, np.array([1.0, 2.0, 2.0, 4.0]))
        >>> np.round(x, 4).tolist(), np.round(residuals, 4).tolist(), int(rank)
        ([0.9, 0.9], [0.7], 2)
        >>> slope = lambda y: fnp.linalg.lstsq(a, y)[0][1]
        >>> np.round(ft.grad(slope)(np.zeros(4)), 4).tolist()  # (t - 1.5) / sum((t - 1.5)**2)
        [-0.3, -0.1, 0.1, 0.3]
    """
    a, b = _common_float(a, b, "lstsq")
    if helpers.ndim(a) != 2 or helpers.ndim(b) not in (1, 2):
        bad = helpers.ndim(a) if helpers.ndim(a) != 2 else helpers.ndim(b)
        raise LinAlgError(f"{bad}-dimensional array given. Array must be two-dimensional")
    m, n = a.shape
    if b.shape[0] != m:
        raise LinAlgError("Incompatible dimensions")
    if rcond is None:
        rcond = numpy.finfo(a.dtype).eps * max(m, n)
    x = products.matmul(_la.pinv_p.bind(a, rcond=float(rcond)), b)
    s = svdvals(a)
    rank = ufuncs.astype(
        reductions.sum(ufuncs.greater(s, rcond * reductions.max(s))), numpy.int32
    )  # NumPy's
    # only a tall a's residuals have a size that depends on the data: a square or wide
    # one's are always empty, and reading the rank would make jit record per value
    full = helpers.peek(rank) == n if m > n else numpy.zeros((), bool)
    if m > n and full.any() and not full.all():  # rows that disagree split the batch
        full = numpy.asarray(
            helpers.read_per_row(
                ufuncs.equal(rank, n),
                "linalg.lstsq under vmap(split=False): some batch elements have full rank "
                "and some do not, so the residuals would have different sizes; compute "
                "them as ((b - a @ x) ** 2).sum(axis=0) instead, or drop split=False.",
            )
        )
    if m > n and full.all():
        residuals = reductions.sum(_abs2(b - products.matmul(a, x)), axis=0)
        if helpers.ndim(b) == 1:
            residuals = manipulation.reshape(residuals, (1,))
    else:
        residuals = creation.zeros((0,), dtype=s.dtype, like=a)
    return x, residuals, rank, s


@implements(numpy.linalg.tensorsolve)
def tensorsolve(a: Any, b: Any, axes: Any = None) -> Any:
    """``numpy.linalg.tensorsolve``: ``x`` with ``tensordot(a, x, x.ndim) == b``, as one
    ``solve`` of the flattened problem.

    Example:
        >>> import numpy as np
        >>> import ftransforms.numpy as fnp
        >>> a = np.eye(6).reshape(6, 2, 3)
        >>> fnp.linalg.tensorsolve(a, np.arange(6.0)).shape
        (2, 3)
    """
    a, b = _common_float(a, b, "tensorsolve")
    rank = helpers.ndim(a)
    if axes is not None:
        order = [k for k in range(rank) if k not in [ax % rank for ax in axes]]
        a = manipulation.transpose(a, order + [ax % rank for ax in axes])
    shape = a.shape[-(rank - helpers.ndim(b)) :]
    n = math.prod(shape)
    if math.prod(a.shape) != n * n:
        raise LinAlgError(
            "Input arrays must satisfy the requirement "
            "prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])"
        )
    x = solve(manipulation.reshape(a, (n, n)), manipulation.reshape(b, (n,)))
    return manipulation.reshape(x, shape)


@implements(numpy.linalg.tensorinv)
def tensorinv(a: Any, ind: int = 2) -> Any:
    """``numpy.linalg.tensorinv``: the inverse of ``a`` seen as a map from its last axes
    (from ``ind`` on) to its first ``ind`` axes, as one ``inv`` of the flattened matrix.

    Example:
        >>> import numpy as np
        >>> import ftransforms.numpy as fnp
        >>> fnp.linalg.tensorinv(np.eye(6).reshape(2, 3, 6), ind=2).shape
        (6, 2, 3)
    """
    a = _float(a, "tensorinv")
    if ind <= 0:
        raise ValueError("Invalid ind argument.")
    old = a.shape
    rows = math.prod(old[:ind])
    if math.prod(old[ind:]) != rows:
        raise LinAlgError("Last 2 dimensions of the array must be square")
    inverse = inv(manipulation.reshape(a, (rows, rows)))
    return manipulation.reshape(inverse, old[ind:] + old[:ind])


def _reduce_abs(x: Any, ord: Any, axis: int, keepdims: bool) -> Any:  # noqa: A002
    ax = ufuncs.abs(x)
    if ord == numpy.inf:
        return reductions.max(ax, axis=axis, keepdims=keepdims)
    if ord == -numpy.inf:
        return reductions.min(ax, axis=axis, keepdims=keepdims)
    if ord == 0:
        return reductions.sum(
            ufuncs.astype(ufuncs.not_equal(x, 0), ax.dtype), axis=axis, keepdims=keepdims
        )
    if ord == 1:
        return reductions.sum(ax, axis=axis, keepdims=keepdims)
    if ord is None or ord == 2:
        return ufuncs.sqrt(reductions.sum(_abs2(x), axis=axis, keepdims=keepdims))
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order '{ord}' for vectors")
    p = float(ord)
    return reductions.sum(ax**p, axis=axis, keepdims=keepdims) ** (1.0 / p)


def _svd_norm(x: Any, row: int, col: int, reduce: Any) -> Any:
    return reduce(svdvals(manipulation.moveaxis(x, (row, col), (-2, -1))), axis=-1)


@implements(numpy.linalg.norm)
def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:  # noqa: A002
    """``numpy.linalg.norm``: vector norms (``ord`` None, 0, ±1, ±2, ±inf, any p) and
    matrix norms (``ord`` None, 'fro', 'nuc', ±1, ±2, ±inf), of real or complex ``x`` (the
    result is real).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> v = np.array([3.0, 4.0])
        >>> [float(fnp.linalg.norm(v, p)) for p in (None, 1, np.inf)]
        [5.0, 7.0, 4.0]
        >>> fnp.linalg.norm(np.array([[3.0, 4.0], [6.0, 8.0]]), axis=1).tolist()
        [5.0, 10.0]
        >>> np.round(ft.grad(fnp.linalg.norm)(v), 6).tolist()  # v / |v|
        [0.6, 0.8]
    """
    x = _float(x, "norm")
    rank = helpers.ndim(x)
    if axis is None:
        if ord is None or (ord in ("f", "fro") and rank == 2) or (ord == 2 and rank == 1):
            out = ufuncs.sqrt(_dot_square(manipulation.ravel(x)))
            return manipulation.reshape(out, (1,) * rank) if keepdims else out
        if rank not in (1, 2):
            raise ValueError("Improper number of dimensions to norm.")
        axis = tuple(range(rank))
    elif not isinstance(axis, tuple):
        try:
            axis = (operator.index(axis),)
        except TypeError as e:
            raise TypeError("'axis' must be None, an integer or a tuple of integers") from e
    axis = tuple(a % rank if -rank <= a < rank else _bad_axis(a, rank) for a in axis)
    if len(axis) == 1:
        return _reduce_abs(x, ord, axis[0], keepdims)
    if len(axis) != 2:
        raise ValueError("Improper number of dimensions to norm.")
    row, col = axis
    if row == col:
        raise ValueError("Duplicate axes given.")
    if ord == 2:
        out = _svd_norm(x, row, col, reductions.max)
    elif ord == -2:
        out = _svd_norm(x, row, col, reductions.min)
    elif ord in (1, -1):
        reduce = reductions.max if ord == 1 else reductions.min
        out = reduce(reductions.sum(ufuncs.abs(x), axis=row), axis=col - (col > row))
    elif ord in (numpy.inf, -numpy.inf):
        reduce = reductions.max if ord == numpy.inf else reductions.min
        out = reduce(reductions.sum(ufuncs.abs(x), axis=col), axis=row - (row > col))
    elif ord in (None, "fro", "f"):
        out = ufuncs.sqrt(reductions.sum(_abs2(x), axis=axis))
    elif ord == "nuc":
        out = _svd_norm(x, row, col, reductions.sum)
    else:
        raise ValueError("Invalid norm order for matrices.")
    if keepdims:
        shape = list(x.shape)
        shape[row] = shape[col] = 1
        out = manipulation.reshape(out, tuple(shape))
    return out


def _bad_axis(axis: int, rank: int) -> int:
    raise numpy.exceptions.AxisError(axis, rank)


@implements("numpy.linalg.matrix_norm")
def matrix_norm(x: Any, /, *, keepdims: bool = False, ord: Any = "fro") -> Any:  # noqa: A002
    """``numpy.linalg.matrix_norm`` (over the last two axes; ``ord`` as in :func:`norm`,
    Frobenius by default).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> float(fnp.linalg.matrix_norm(np.array([[1.0, 2.0], [2.0, 4.0]])))
        5.0
        >>> fnp.linalg.matrix_norm(np.stack([np.eye(2), 2 * np.eye(2)]), ord=1).tolist()
        [1.0, 2.0]
        >>> np.round(ft.grad(fnp.linalg.matrix_norm)(np.diag([3.0, 4.0])), 6).tolist()
        [[0.6, 0.0], [0.0, 0.8]]
    """
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


@implements("numpy.linalg.vector_norm")
def vector_norm(x: Any, /, *, axis: Any = None, keepdims: bool = False, ord: Any = 2) -> Any:  # noqa: A002
    """``numpy.linalg.vector_norm`` (``axis=None``: over all elements, whatever the rank;
    ``ord`` as for vectors in :func:`norm`).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> float(fnp.linalg.vector_norm(np.array([[3.0, 0.0], [0.0, 4.0]])))
        5.0
        >>> fnp.linalg.vector_norm(np.array([[3.0, 4.0], [6.0, 8.0]]), axis=-1).tolist()
        [5.0, 10.0]
        >>> l1 = lambda x: fnp.linalg.vector_norm(x, ord=1)
        >>> ft.grad(l1)(np.array([-2.0, 3.0])).tolist()  # sign(x)
        [-1.0, 1.0]
    """
    x = _float(x, "vector_norm")
    if axis is None:
        out = _reduce_abs(manipulation.ravel(x), ord, 0, False)
        return manipulation.reshape(out, (1,) * helpers.ndim(x)) if keepdims else out
    if isinstance(axis, tuple):
        rank = helpers.ndim(x)
        axes = tuple(a % rank for a in axis)
        rest = [i for i in range(rank) if i not in axes]
        moved = manipulation.transpose(x, rest + list(axes))
        flat = manipulation.reshape(moved, tuple(x.shape[i] for i in rest) + (-1,))
        out = _reduce_abs(flat, ord, -1, False)
        if keepdims:
            out = manipulation.reshape(
                out, tuple(1 if i in axes else n for i, n in enumerate(x.shape))
            )
        return out
    return _reduce_abs(x, ord, axis, keepdims)


@implements(numpy.linalg.cond)
def cond(x: Any, p: Any = None) -> Any:
    """``numpy.linalg.cond``: ``s[0] / s[-1]`` for ``p`` None/2 (-2: the inverse), else
    ``norm(x, p) * norm(inv(x), p)``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> A = np.array([[3.0, 0.0], [0.0, 1.5]])
        >>> float(fnp.linalg.cond(A)), float(fnp.linalg.cond(A, 1)), float(fnp.linalg.cond(A, -2))
        (2.0, 2.0, 0.5)
        >>> cond_t = lambda t: fnp.linalg.cond(fnp.diag(fnp.array([t, 1.0])))  # t for t > 1
        >>> float(ft.grad(cond_t)(3.0))
        1.0
    """
    x = _matrices(x, "cond", square=p not in (None, 2, -2))
    if p in (None, 2, -2):
        s = svdvals(x)
        first, last = s[..., 0], s[..., -1]
        return first / last if p != -2 else last / first
    return norm(x, p, axis=(-2, -1)) * norm(inv(x), p, axis=(-2, -1))


@implements(numpy.linalg.matrix_rank)
def matrix_rank(A: Any, tol: Any = None, hermitian: bool = False, *, rtol: Any = None) -> Any:  # noqa: N803
    """``numpy.linalg.matrix_rank``: the number of singular values above ``tol`` (default
    ``max(m, n) * eps * s.max()``), an integer, so no derivative.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> int(fnp.linalg.matrix_rank(np.array([[1.0, 2.0], [2.0, 4.0]])))
        1
        >>> ft.vmap(fnp.linalg.matrix_rank)(np.stack([np.eye(2), np.ones((2, 2))])).tolist()
        [2, 1]
    """
    A = _float(A, "matrix_rank")  # noqa: N806
    if helpers.ndim(A) < 2:
        return int(not reductions.all(ufuncs.equal(A, 0)))
    s = svdvals(_la.fold_lower(A) if hermitian else A)
    if tol is None:
        if rtol is None:
            rtol = max(A.shape[-2:]) * numpy.finfo(s.dtype).eps
        tol = reductions.max(s, axis=-1, keepdims=True) * rtol
    else:
        tol = manipulation.expand_dims(creation.asarray(tol), -1)
    return reductions.sum(ufuncs.astype(ufuncs.greater(s, tol), numpy.intp), axis=-1)


@implements(numpy.linalg.multi_dot)
def multi_dot(arrays: Any, *, out: Any = None) -> Any:
    """``numpy.linalg.multi_dot``: the chain product in the cheapest order (a 1-D first or
    last array is a row or column vector, as in NumPy).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> A, B, C = np.ones((10, 2)), np.ones((2, 10)), np.ones((10, 1))
        >>> fnp.linalg.multi_dot([A, B, C]).shape  # computed as A @ (B @ C)
        (10, 1)
        >>> u, w = np.array([1.0, 2.0]), np.array([3.0, 4.0])
        >>> ft.grad(lambda m: fnp.linalg.multi_dot([u, m, w]))(np.eye(2)).tolist()  # outer(u, w)
        [[3.0, 4.0], [6.0, 8.0]]
    """
    if out is not None:  # written as NumPy's out= is (NOTE [mutation semantics])
        return inplace.write_out("linalg.multi_dot(..., out=...)", out, multi_dot(arrays))
    arrays = list(arrays)
    n = len(arrays)
    if n < 2:
        raise ValueError("Expecting at least two arrays.")
    if n == 2:
        return products.dot(arrays[0], arrays[1])
    arrays = [
        a if isinstance(a, Tracer) or hasattr(a, "dtype") else creation.asarray(a) for a in arrays
    ]
    first, last = helpers.ndim(arrays[0]), helpers.ndim(arrays[-1])
    if first == 1:
        arrays[0] = manipulation.reshape(arrays[0], (1, -1))
    if last == 1:
        arrays[-1] = manipulation.reshape(arrays[-1], (-1, 1))
    for a in arrays:
        if helpers.ndim(a) != 2:
            raise LinAlgError(
                f"{helpers.ndim(a)}-dimensional array given. Array must be two-dimensional"
            )
    order = _chain_order([a.shape for a in arrays])
    result = _chain_product(arrays, order, 0, n - 1)
    if first == 1 and last == 1:
        return result[0, 0]
    if first == 1 or last == 1:
        return manipulation.ravel(result)
    return result


def _chain_order(shapes: list[tuple[int, int]]) -> list[list[int]]:
    """The split points of the cheapest parenthesization (Cormen et al., 15.2)."""
    n = len(shapes)
    p = [s[0] for s in shapes] + [shapes[-1][1]]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _chain_product(arrays: list, split: list[list[int]], i: int, j: int) -> Any:
    if i == j:
        return arrays[i]
    k = split[i][j]
    return products.matmul(
        _chain_product(arrays, split, i, k), _chain_product(arrays, split, k + 1, j)
    )


# -- the array-API names numpy.linalg also has -------------------------------------------


@implements("numpy.linalg.matmul")
def matmul(x1: Any, x2: Any, /) -> Any:
    """``numpy.linalg.matmul``: the array-API name of :func:`ftransforms.numpy.matmul`.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> A = np.array([[1.0, 2.0], [3.0, 4.0]])
        >>> fnp.linalg.matmul(A, A).tolist()
        [[7.0, 10.0], [15.0, 22.0]]
        >>> ft.grad(lambda m: fnp.linalg.matmul(m, np.ones((2, 1))).sum())(A).tolist()
        [[1.0, 1.0], [1.0, 1.0]]
    """
    return products.matmul(x1, x2)


@implements("numpy.linalg.matrix_transpose")
def matrix_transpose(x: Any, /) -> Any:
    """``numpy.linalg.matrix_transpose``: swap the last two axes (fewer than two raise
    ``ValueError``).

    Example:
        >>> import numpy as np
        >>> import ftransforms.numpy as fnp
        >>> fnp.linalg.matrix_transpose(np.array([[1.0, 2.0], [3.0, 4.0]])).tolist()
        [[1.0, 3.0], [2.0, 4.0]]
        >>> fnp.linalg.matrix_transpose(np.ones((5, 2, 3))).shape
        (5, 3, 2)
    """
    if helpers.ndim(x) < 2:
        raise ValueError("Input array must be at least 2-dimensional")
    return _mT(x)


@implements("numpy.linalg.outer")
def outer(x1: Any, x2: Any, /) -> Any:
    """``numpy.linalg.outer`` (1-D inputs; others raise ``ValueError``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.linalg.outer(np.array([1.0, 2.0]), np.array([3.0, 4.0])).tolist()
        [[3.0, 4.0], [6.0, 8.0]]
        >>> ft.jacfwd(lambda x: fnp.linalg.outer(x, np.array([3.0, 4.0])))(np.ones(1)).tolist()
        [[[3.0], [4.0]]]
    """
    if helpers.ndim(x1) != 1 or helpers.ndim(x2) != 1:
        raise ValueError("Input arrays must be one-dimensional")
    return products.outer(x1, x2)


@implements(numpy.linalg.cross)
def cross(x1: Any, x2: Any, /, *, axis: int = -1) -> Any:
    """``numpy.linalg.cross`` / ``jax.numpy.linalg.cross``: the cross product of 3-vectors
    along ``axis`` (of both inputs, broadcast).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.linalg.cross(np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])).tolist()
        [0.0, 0.0, 1.0]
        >>> ft.grad(lambda a: fnp.linalg.cross(a, np.array([0.0, 0.0, 1.0]))[0])(np.ones(3))
        array([0., 1., 0.])
    """
    if helpers.shape(x1)[axis] != 3 or helpers.shape(x2)[axis] != 3:
        raise ValueError(
            f"linalg.cross(x1, x2, axis={axis}): both inputs need size 3 along axis {axis}, "
            f"got shapes {helpers.shape(x1)} and {helpers.shape(x2)}"
        )
    return products.cross(x1, x2, axis=axis)


@implements(numpy.linalg.vecdot)
def vecdot(
    x1: Any,
    x2: Any,
    /,
    *,
    axis: int = -1,
    precision: Any = None,
    preferred_element_type: Any = None,
) -> Any:
    """``numpy.linalg.vecdot`` / ``jax.numpy.linalg.vecdot``: ``sum(conj(x1) * x2)``
    along ``axis`` (``precision`` is accepted and has no effect).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.linalg.vecdot(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([1.0, 1.0])).tolist()
        [3.0, 7.0]
        >>> ft.grad(lambda x: fnp.linalg.vecdot(x, np.array([2.0, 3.0])))(np.zeros(2))
        array([2., 3.])
    """
    out = products.vecdot(x1, x2, axis=axis)
    return out if preferred_element_type is None else out.astype(preferred_element_type)


@implements("numpy.linalg.tensordot")
def tensordot(x1: Any, x2: Any, /, *, axes: Any = 2) -> Any:
    """``numpy.linalg.tensordot``: :func:`ftransforms.numpy.tensordot` with ``axes``
    keyword-only.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> A = np.array([[1.0, 2.0], [3.0, 4.0]])
        >>> float(fnp.linalg.tensordot(A, A)), fnp.linalg.tensordot(A, A, axes=1).tolist()
        (30.0, [[7.0, 10.0], [15.0, 22.0]])
        >>> ft.grad(lambda m: fnp.linalg.tensordot(m, A))(np.zeros((2, 2))).tolist()
        [[1.0, 2.0], [3.0, 4.0]]
    """
    return products.tensordot(x1, x2, axes=axes)


@implements("numpy.linalg.diagonal")
def diagonal(x: Any, /, *, offset: int = 0) -> Any:
    """``numpy.linalg.diagonal``: the ``offset`` diagonal of the last two axes (any shape
    of those two, any offset; the diagonal is the last axis of the result).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> A = np.array([[1.0, 2.0], [3.0, 4.0]])
        >>> fnp.linalg.diagonal(np.stack([A, 2 * A])).tolist()
        [[1.0, 4.0], [2.0, 8.0]]
        >>> ft.grad(lambda m: fnp.linalg.diagonal(m) @ np.array([1.0, 2.0]))(A).tolist()
        [[1.0, 0.0], [0.0, 2.0]]
    """
    if helpers.ndim(x) < 2:
        raise ValueError(f"linalg.diagonal: x needs at least 2 dimensions, got {helpers.ndim(x)}")
    return indexing.diagonal(x, operator.index(offset), -2, -1)


@implements("numpy.linalg.trace")
def trace(x: Any, /, *, offset: int = 0, dtype: Any = None) -> Any:
    """``numpy.linalg.trace``: the sum of the ``offset`` diagonal of the last two axes
    (any shape of those two, any offset).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> A = np.array([[1.0, 2.0], [3.0, 4.0]])
        >>> fnp.linalg.trace(np.stack([A, np.eye(2)])).tolist()
        [5.0, 2.0]
        >>> ft.grad(fnp.linalg.trace)(A).tolist()
        [[1.0, 0.0], [0.0, 1.0]]
    """
    if helpers.ndim(x) < 2:
        raise ValueError(f"linalg.trace: x needs at least 2 dimensions, got {helpers.ndim(x)}")
    return products.trace(x, operator.index(offset), -2, -1, dtype=dtype)
