"""``ftransforms.numpy.linalg``: ``numpy.linalg`` over arrays and tracers.

The matrix functions map over leading axes like NumPy's (``inv``, ``solve``, ``det``,
``slogdet``, ``cholesky``, ``eigh``, ``eigvalsh``, ``svd``, ``svdvals``, ``qr``, ``pinv``
are primitives of ``ftransforms.ops.linalg``); ``matrix_power``, ``lstsq``, ``norm``,
``matrix_norm``, ``vector_norm``, ``cond``, ``matrix_rank`` and ``multi_dot`` are built from
them.  Inputs are real (complex ones raise :class:`UnsupportedOperationError`); integer
inputs are computed in float64, as NumPy does.

Example:
    >>> import numpy as np
    >>> import ftransforms.numpy as fnp
    >>> from ftransforms import grad
    >>> a = np.array([[2.0, 1.0], [1.0, 3.0]])
    >>> np.allclose(grad(lambda a: fnp.linalg.slogdet(a)[1])(a), np.linalg.inv(a).T)
    True
"""

from __future__ import annotations

import builtins
import math
import operator
from collections import namedtuple
from typing import Any

import numpy
from numpy.linalg import LinAlgError

import ftransforms.numpy.creation as creation
import ftransforms.numpy.products as products
from ftransforms.core.errors import BatchedControlFlowError, UnsupportedOperationError
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.creation import asarray, copy, zeros
from ftransforms.numpy.dispatch import implements
from ftransforms.numpy.helpers import ndim, normalize_axis, peek
from ftransforms.numpy.manipulation import (
    broadcast_to,
    expand_dims,
    moveaxis,
    ravel,
    reshape,
    swapaxes,
    transpose,
)
from ftransforms.numpy.products import dot, einsum
from ftransforms.numpy.reductions import all, max, min, sum
from ftransforms.numpy.ufuncs import abs, astype, equal, greater, not_equal, sqrt
from ftransforms.ops import linalg as _la

# NumPy's own result types (so results have the same pytree structure as NumPy's).
try:
    from numpy.linalg._linalg import EighResult, QRResult, SlogdetResult, SVDResult
except ImportError:  # pragma: no cover  (numpy < 2)
    EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
    QRResult = namedtuple("QRResult", ["Q", "R"])
    SlogdetResult = namedtuple("SlogdetResult", ["sign", "logabsdet"])
    SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])

__all__ = [
    "LinAlgError",
    "cholesky",
    "cond",
    "det",
    "diagonal",
    "eigh",
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
    "trace",
    "vector_norm",
    "tensorinv",
    "tensorsolve",
]

_NO_VALUE = numpy._NoValue


# -- input checks ------------------------------------------------------------------------


def _float(x: Any, name: str) -> Any:
    """``x`` as an array or tracer of a real floating dtype (integers become float64)."""
    if not isinstance(x, Tracer) and not hasattr(x, "dtype"):
        x = asarray(x)
    kind = numpy.dtype(x.dtype).kind
    if kind == "c":
        raise UnsupportedOperationError(f"linalg.{name}: complex inputs are not supported yet")
    if kind != "f":
        x = astype(x, numpy.float64)
    return x


def _matrices(a: Any, name: str, square: bool = True) -> Any:
    a = _float(a, name)
    rank = ndim(a)
    if rank < 2:
        raise LinAlgError(f"{rank}-dimensional array given. Array must be at least two-dimensional")
    if square and a.shape[-1] != a.shape[-2]:
        raise LinAlgError("Last 2 dimensions of the array must be square")
    return a


def _common_float(a: Any, b: Any, name: str) -> tuple[Any, Any]:
    a, b = _float(a, name), _float(b, name)
    dt = numpy.result_type(a.dtype, b.dtype)
    return astype(a, dt), astype(b, dt)


def _mT(x: Any) -> Any:  # noqa: N802  (numpy's name)
    return swapaxes(x, -1, -2)


# -- the primitives' front ends ----------------------------------------------------------


@implements(numpy.linalg.inv)
def inv(a: Any) -> Any:
    """``numpy.linalg.inv``."""
    return _la.inv_p.bind(_matrices(a, "inv"))


@implements(numpy.linalg.solve)
def solve(a: Any, b: Any) -> Any:
    """``numpy.linalg.solve`` (NumPy 2 semantics: ``b`` is a vector only when 1-D)."""
    a = _matrices(a, "solve")
    a, b = _common_float(a, b, "solve")
    if ndim(b) == 1:
        x = _la.solve_p.bind(a, reshape(b, (-1, 1)))
        return reshape(x, x.shape[:-1])
    return _la.solve_p.bind(a, b)


@implements(numpy.linalg.det)
def det(a: Any) -> Any:
    """``numpy.linalg.det``."""
    return _la.det_p.bind(_matrices(a, "det"))


@implements(numpy.linalg.slogdet)
def slogdet(a: Any) -> SlogdetResult:
    """``numpy.linalg.slogdet``: ``(sign, logabsdet)``; ``sign`` has derivative 0."""
    return SlogdetResult(*_la.slogdet_p.bind(_matrices(a, "slogdet")))


@implements(numpy.linalg.cholesky)
def cholesky(a: Any, /, *, upper: bool = False) -> Any:
    """``numpy.linalg.cholesky``: reads the lower (``upper=True``: upper) triangle only,
    and so does its derivative (NOTE [numpy reads one triangle] in ``ops/linalg.py``)."""
    a = _matrices(a, "cholesky")
    if upper:
        return _mT(_la.cholesky_p.bind(_mT(a)))
    return _la.cholesky_p.bind(a)


def _uplo(a: Any, uplo: str) -> Any:
    if uplo not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    return a if uplo == "L" else _mT(a)


@implements(numpy.linalg.eigh)
def eigh(a: Any, UPLO: str = "L") -> EighResult:  # noqa: N803  (numpy's name)
    """``numpy.linalg.eigh``: ascending eigenvalues and eigenvectors of a symmetric matrix
    (its ``UPLO`` triangle is read).  Derivatives need distinct eigenvalues."""
    a = _uplo(_matrices(a, "eigh"), UPLO)
    return EighResult(*_la.eigh_p.bind(a, eigenvectors=True))


@implements(numpy.linalg.eigvalsh)
def eigvalsh(a: Any, UPLO: str = "L") -> Any:  # noqa: N803
    """``numpy.linalg.eigvalsh``."""
    a = _uplo(_matrices(a, "eigvalsh"), UPLO)
    return _la.eigh_p.bind(a, eigenvectors=False)[0]


@implements(numpy.linalg.svd)
def svd(
    a: Any, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False
) -> Any:
    """``numpy.linalg.svd``.  Derivatives of ``U``/``Vh`` need ``full_matrices=False`` for
    non-square matrices, and distinct nonzero singular values."""
    if hermitian:
        raise UnsupportedOperationError(
            "linalg.svd(..., hermitian=True) is not supported; call it with hermitian=False"
        )
    a = _matrices(a, "svd", square=False)
    if not compute_uv:
        return _la.svd_p.bind(a, full_matrices=False, compute_uv=False)[0]
    return SVDResult(*_la.svd_p.bind(a, full_matrices=bool(full_matrices), compute_uv=True))


@implements("numpy.linalg.svdvals")
def svdvals(x: Any, /) -> Any:
    """``numpy.linalg.svdvals``: the singular values, descending."""
    return svd(x, compute_uv=False)


@implements(numpy.linalg.qr)
def qr(a: Any, mode: str = "reduced") -> Any:
    """``numpy.linalg.qr`` for ``mode`` 'reduced', 'complete' and 'r'."""
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
    """``numpy.linalg.pinv`` (a scalar ``rcond``/``rtol``); the derivative holds where the
    rank is locally constant."""
    a = _matrices(a, "pinv", square=False)
    if rcond is None:
        if rtol is _NO_VALUE:
            rcond = 1e-15
        elif rtol is None:
            rcond = builtins.max(a.shape[-2:]) * numpy.finfo(a.dtype).eps
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
    """``numpy.linalg.matrix_power`` by repeated squaring (``inv`` first for ``n < 0``)."""
    a = asarray(a) if not isinstance(a, Tracer) and not hasattr(a, "dtype") else a
    if ndim(a) < 2 or a.shape[-1] != a.shape[-2]:
        raise LinAlgError("Last 2 dimensions of the array must be square")
    try:
        n = operator.index(n)
    except TypeError as e:
        raise TypeError("exponent must be an integer") from e
    if n == 0:
        eye = creation.eye(a.shape[-1], dtype=a.dtype, like=a)
        return copy(broadcast_to(eye, a.shape)) if ndim(a) > 2 else eye
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
    """
    a, b = _common_float(a, b, "lstsq")
    if ndim(a) != 2 or ndim(b) not in (1, 2):
        bad = ndim(a) if ndim(a) != 2 else ndim(b)
        raise LinAlgError(f"{bad}-dimensional array given. Array must be two-dimensional")
    m, n = a.shape
    if b.shape[0] != m:
        raise LinAlgError("Incompatible dimensions")
    if rcond is None:
        rcond = numpy.finfo(a.dtype).eps * builtins.max(m, n)
    x = products.matmul(_la.pinv_p.bind(a, rcond=float(rcond)), b)
    s = svdvals(a)
    rank = sum(astype(greater(s, rcond * max(s)), numpy.int64))
    full = peek(rank) == n  # the residuals' size depends on the data
    if m > n and full.all():
        r = b - products.matmul(a, x)
        residuals = sum(r * r, axis=0)
        if ndim(b) == 1:
            residuals = reshape(residuals, (1,))
    elif m > n and full.any():
        raise BatchedControlFlowError(
            "linalg.lstsq under vmap: some batch elements have full rank and some do not, "
            "so the residuals would have different sizes; compute them as "
            "fnp.sum((b - a @ x) ** 2, axis=0) instead."
        )
    else:
        residuals = zeros((0,), dtype=a.dtype, like=a)
    return x, residuals, rank, s


def _reduce_abs(x: Any, ord: Any, axis: int, keepdims: bool) -> Any:  # noqa: A002
    ax = abs(x)
    if ord == numpy.inf:
        return max(ax, axis=axis, keepdims=keepdims)
    if ord == -numpy.inf:
        return min(ax, axis=axis, keepdims=keepdims)
    if ord == 0:
        return sum(astype(not_equal(x, 0), x.dtype), axis=axis, keepdims=keepdims)
    if ord == 1:
        return sum(ax, axis=axis, keepdims=keepdims)
    if ord is None or ord == 2:
        return sqrt(sum(x * x, axis=axis, keepdims=keepdims))
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order '{ord}' for vectors")
    p = float(ord)
    return sum(ax**p, axis=axis, keepdims=keepdims) ** (1.0 / p)


def _svd_norm(x: Any, row: int, col: int, reduce: Any) -> Any:
    return reduce(svdvals(moveaxis(x, (row, col), (-2, -1))), axis=-1)


@implements(numpy.linalg.norm)
def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:  # noqa: A002
    """``numpy.linalg.norm``: vector norms (``ord`` None, 0, ±1, ±2, ±inf, any p) and
    matrix norms (``ord`` None, 'fro', 'nuc', ±1, ±2, ±inf)."""
    x = _float(x, "norm")
    rank = ndim(x)
    if axis is None:
        if ord is None or (ord in ("f", "fro") and rank == 2) or (ord == 2 and rank == 1):
            out = sqrt(sum(x * x))
            return reshape(out, (1,) * rank) if keepdims else out
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
        out = _svd_norm(x, row, col, max)
    elif ord == -2:
        out = _svd_norm(x, row, col, min)
    elif ord in (1, -1):
        reduce = max if ord == 1 else min
        out = reduce(sum(abs(x), axis=row), axis=col - (col > row))
    elif ord in (numpy.inf, -numpy.inf):
        reduce = max if ord == numpy.inf else min
        out = reduce(sum(abs(x), axis=col), axis=row - (row > col))
    elif ord in (None, "fro", "f"):
        out = sqrt(sum(x * x, axis=axis))
    elif ord == "nuc":
        out = _svd_norm(x, row, col, sum)
    else:
        raise ValueError("Invalid norm order for matrices.")
    if keepdims:
        shape = list(x.shape)
        shape[row] = shape[col] = 1
        out = reshape(out, tuple(shape))
    return out


def _bad_axis(axis: int, rank: int) -> int:
    raise numpy.exceptions.AxisError(axis, rank)


@implements("numpy.linalg.matrix_norm")
def matrix_norm(x: Any, /, *, keepdims: bool = False, ord: Any = "fro") -> Any:  # noqa: A002
    """``numpy.linalg.matrix_norm`` (over the last two axes)."""
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


@implements("numpy.linalg.vector_norm")
def vector_norm(x: Any, /, *, axis: Any = None, keepdims: bool = False, ord: Any = 2) -> Any:  # noqa: A002
    """``numpy.linalg.vector_norm`` (``axis=None``: over all elements)."""
    x = _float(x, "vector_norm")
    if axis is None:
        out = _reduce_abs(ravel(x), ord, 0, False)
        return reshape(out, (1,) * ndim(x)) if keepdims else out
    if isinstance(axis, tuple):
        rank = ndim(x)
        axes = tuple(a % rank for a in axis)
        rest = [i for i in range(rank) if i not in axes]
        moved = transpose(x, rest + list(axes))
        flat = reshape(moved, tuple(x.shape[i] for i in rest) + (-1,))
        out = _reduce_abs(flat, ord, -1, False)
        if keepdims:
            out = reshape(out, tuple(1 if i in axes else n for i, n in enumerate(x.shape)))
        return out
    return _reduce_abs(x, ord, axis, keepdims)


@implements(numpy.linalg.cond)
def cond(x: Any, p: Any = None) -> Any:
    """``numpy.linalg.cond``: ``s[0] / s[-1]`` for ``p`` None/2 (-2: the inverse), else
    ``norm(x, p) * norm(inv(x), p)``."""
    x = _matrices(x, "cond", square=p not in (None, 2, -2))
    if p in (None, 2, -2):
        s = svdvals(x)
        first, last = s[..., 0], s[..., -1]
        return first / last if p != -2 else last / first
    return norm(x, p, axis=(-2, -1)) * norm(inv(x), p, axis=(-2, -1))


@implements(numpy.linalg.matrix_rank)
def matrix_rank(A: Any, tol: Any = None, hermitian: bool = False, *, rtol: Any = None) -> Any:  # noqa: N803
    """``numpy.linalg.matrix_rank`` (an integer, so no derivative)."""
    A = _float(A, "matrix_rank")  # noqa: N806
    if ndim(A) < 2:
        return int(not all(equal(A, 0)))
    s = svdvals(_la.fold_lower(A) if hermitian else A)
    if tol is None:
        if rtol is None:
            rtol = builtins.max(A.shape[-2:]) * numpy.finfo(s.dtype).eps
        tol = max(s, axis=-1, keepdims=True) * rtol
    else:
        tol = expand_dims(asarray(tol), -1)
    return sum(astype(greater(s, tol), numpy.intp), axis=-1)


@implements(numpy.linalg.multi_dot)
def multi_dot(arrays: Any, *, out: Any = None) -> Any:
    """``numpy.linalg.multi_dot``: the chain product in the cheapest order."""
    if out is not None:
        raise UnsupportedOperationError(
            "linalg.multi_dot(..., out=...): ftransforms arrays are immutable; use the return value"
        )
    arrays = list(arrays)
    n = len(arrays)
    if n < 2:
        raise ValueError("Expecting at least two arrays.")
    if n == 2:
        return dot(arrays[0], arrays[1])
    arrays = [a if isinstance(a, Tracer) or hasattr(a, "dtype") else asarray(a) for a in arrays]
    first, last = ndim(arrays[0]), ndim(arrays[-1])
    if first == 1:
        arrays[0] = reshape(arrays[0], (1, -1))
    if last == 1:
        arrays[-1] = reshape(arrays[-1], (-1, 1))
    for a in arrays:
        if ndim(a) != 2:
            raise LinAlgError(f"{ndim(a)}-dimensional array given. Array must be two-dimensional")
    order = _chain_order([a.shape for a in arrays])
    result = _chain_product(arrays, order, 0, n - 1)
    if first == 1 and last == 1:
        return result[0, 0]
    if first == 1 or last == 1:
        return ravel(result)
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
    """``numpy.linalg.matmul``."""
    return products.matmul(x1, x2)


@implements("numpy.linalg.matrix_transpose")
def matrix_transpose(x: Any, /) -> Any:
    """``numpy.linalg.matrix_transpose``: swap the last two axes."""
    if ndim(x) < 2:
        raise ValueError("Input array must be at least 2-dimensional")
    return _mT(x)


@implements("numpy.linalg.outer")
def outer(x1: Any, x2: Any, /) -> Any:
    """``numpy.linalg.outer`` (1-D inputs)."""
    if ndim(x1) != 1 or ndim(x2) != 1:
        raise ValueError("Input arrays must be one-dimensional")
    return products.outer(x1, x2)


@implements("numpy.linalg.tensordot")
def tensordot(x1: Any, x2: Any, /, *, axes: Any = 2) -> Any:
    """``numpy.linalg.tensordot``."""
    return products.tensordot(x1, x2, axes=axes)


@implements("numpy.linalg.diagonal")
def diagonal(x: Any, /, *, offset: int = 0) -> Any:
    """``numpy.linalg.diagonal`` (of the last two axes; ``offset`` 0)."""
    if offset:
        raise UnsupportedOperationError("linalg.diagonal: offset != 0 is not supported yet")
    return einsum("...ii->...i", x)


@implements("numpy.linalg.trace")
def trace(x: Any, /, *, offset: int = 0, dtype: Any = None) -> Any:
    """``numpy.linalg.trace`` (of the last two axes; ``offset`` 0)."""
    if offset:
        raise UnsupportedOperationError("linalg.trace: offset != 0 is not supported yet")
    out = einsum("...ii->...", x)
    return out if dtype is None else astype(out, dtype)


@implements(numpy.linalg.tensorinv)
def tensorinv(a: Any, ind: int = 2) -> Any:
    """``numpy.linalg.tensorinv``: the inverse of ``a`` read as a matrix with the first
    ``ind`` axes as rows, shaped ``a.shape[ind:] + a.shape[:ind]``.

    Example:
        >>> import numpy as np
        >>> tensorinv(np.eye(4).reshape(4, 2, 2), ind=1).shape
        (2, 2, 4)
    """
    a = creation.as_operand(a)
    if ind <= 0:
        raise ValueError("Invalid ind argument.")
    old = a.shape
    rows = math.prod(old[:ind])
    return reshape(inv(reshape(a, (rows, -1))), old[ind:] + old[:ind])


@implements(numpy.linalg.tensorsolve)
def tensorsolve(a: Any, b: Any, axes: Any = None) -> Any:
    """``numpy.linalg.tensorsolve``: ``x`` with ``tensordot(a, x, x.ndim) == b`` (the axes
    listed in ``axes`` moved to the end of ``a`` first).

    Example:
        >>> import numpy as np
        >>> tensorsolve(np.eye(6).reshape(6, 2, 3), np.ones(6)).shape
        (2, 3)
    """
    a, b = creation.as_operand(a), creation.as_operand(b, a)
    rank = ndim(a)
    if axes is not None:
        order = [k for k in range(rank) if k not in [normalize_axis(i, rank) for i in axes]]
        a = transpose(a, order + [normalize_axis(i, rank) for i in axes])
    x_shape = a.shape[-(rank - ndim(b)) :]
    n = math.prod(x_shape)
    if math.prod(a.shape) != n * n:
        raise LinAlgError(
            f"tensorsolve: a's shape {a.shape} does not make a square system for x of shape "
            f"{x_shape}; prod(x.shape)**2 must equal a.size"
        )
    return reshape(solve(reshape(a, (-1, n)), ravel(b)), x_shape)
