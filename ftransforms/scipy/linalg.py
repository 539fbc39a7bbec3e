"""``ftransforms.scipy.linalg``: ``scipy.linalg`` functions on tracers (like
``jax.scipy.linalg``).

Every function is a composition of :mod:`ftransforms.numpy` operations, so it works under
every transform and its derivative is the derivative of the computation:

* ``inv``, ``det``, ``solve``, ``cholesky``, ``eigh``, ``svd``, ``qr`` wrap the
  ``fnp.linalg`` primitives with SciPy's signatures (``cholesky`` returns the *upper*
  factor by default, ``qr``'s modes are 'full', 'economic' and 'r', ``eigh`` reads the
  ``lower`` triangle and solves the generalized problem with ``b``).
* ``solve_triangular``, ``cho_factor``/``cho_solve``, ``lu_solve``, ``solve_banded``,
  ``solve_sylvester`` reduce to ``solve`` on the matrix they describe (the triangle, the
  band, the Kronecker form ``I (x) A + B^T (x) I`` of Sylvester's equation, which costs
  ``O(n^6)``: meant for small matrices).
* ``lu``/``lu_factor`` take the row order of partial pivoting from SciPy (no derivative:
  it is a permutation) and eliminate in that order with ``fnp`` operations, so ``L`` and
  ``U`` are differentiable.
* ``expm``: scaling and squaring with the degree-13 Padé approximant; ``expm_frechet``:
  the JVP of ``expm``; ``sqrtm``: the scaled Denman-Beavers iteration (principal root,
  for matrices with no eigenvalue on the closed negative real axis); ``logm``: inverse
  scaling and squaring (square roots until ``A`` is near ``I``, then a Gauss-Legendre
  quadrature of ``log(I + X)``).  The scaling and the iteration counts read the data
  (NOTE [value-dependent traces]: ``jit`` runs these eagerly).
* ``block_diag``, ``toeplitz``, ``hankel``, ``circulant``, ``companion`` build arrays;
  ``pinv``/``lstsq`` go through the SVD, ``norm`` is NumPy's.

Example:
    >>> import numpy as np
    >>> from ftransforms import grad
    >>> from ftransforms.scipy.linalg import expm
    >>> round(float(grad(lambda a: expm(a)[0, 0])(np.zeros((2, 2)))[0, 0]), 12)
    1.0
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.api import jvp
from ftransforms.core.tracer import Tracer
from ftransforms.errors import UnsupportedOperationError
from ftransforms.numpy.helpers import dtype_of, invalid_in_rows, read_per_row
from ftransforms.numpy.ufuncs import float_input
from ftransforms.ops import linalg as _la
from ftransforms.ops.checks import check_finite
from ftransforms.ops.scipy_ops import lu_row_order_p
from ftransforms.scipy.decompositions import (
    eig,
    eigvals,
    hessenberg,
    null_space,
    orth,
    polar,
    schur,
)
from ftransforms.scipy.matrix_equations import (
    solve_continuous_are,
    solve_continuous_lyapunov,
    solve_discrete_are,
    solve_discrete_lyapunov,
)
from ftransforms.scipy.qr_schur import qr_multiply, qr_pivots, rsf2csf
from ftransforms.scipy.special_matrices import (
    convolution_matrix,
    dft,
    eigh_tridiagonal,
    fiedler,
    fiedler_companion,
    hadamard,
    helmert,
    hilbert,
    invhilbert,
    invpascal,
    leslie,
    pascal,
)

__all__ = [
    "block_diag",
    "cho_factor",
    "cho_solve",
    "cholesky",
    "circulant",
    "companion",
    "convolution_matrix",
    "coshm",
    "cosm",
    "det",
    "dft",
    "eig",
    "eigh",
    "eigh_tridiagonal",
    "eigvals",
    "eigvalsh",
    "expm",
    "expm_frechet",
    "fiedler",
    "fiedler_companion",
    "fractional_matrix_power",
    "funm",
    "hadamard",
    "hankel",
    "helmert",
    "hessenberg",
    "hilbert",
    "inv",
    "invhilbert",
    "invpascal",
    "leslie",
    "logm",
    "lstsq",
    "lu",
    "lu_factor",
    "lu_solve",
    "norm",
    "null_space",
    "orth",
    "pascal",
    "pinv",
    "pinvh",
    "polar",
    "qr",
    "qr_multiply",
    "rsf2csf",
    "schur",
    "sinhm",
    "sinm",
    "solve",
    "solve_banded",
    "solve_continuous_are",
    "solve_continuous_lyapunov",
    "solve_discrete_are",
    "solve_discrete_lyapunov",
    "solve_sylvester",
    "solve_toeplitz",
    "solve_triangular",
    "solveh_banded",
    "sqrtm",
    "svd",
    "svdvals",
    "tanhm",
    "tanm",
    "toeplitz",
]


def _mat(a: Any, where: str, square: bool = True) -> Any:
    if not (hasattr(a, "dtype") and hasattr(a, "shape")):
        a = fnp.asarray(a)
    a = float_input(a, None)
    s = fnp.shape(a)
    if len(s) < 2 or (square and s[-1] != s[-2]):
        want = "a square matrix (..., n, n)" if square else "a matrix (..., m, n)"
        raise ValueError(f"{where}: expected {want}, got shape {s}")
    return a


def _mT(a: Any) -> Any:  # noqa: N802
    return fnp.swapaxes(a, -1, -2)


def _finite(*arrays: Any) -> None:
    """SciPy's ``check_finite=True``: ValueError for an argument that holds inf or NaN
    (NOTE [finiteness checks] in ``ops/checks.py``)."""
    check_finite(*[fnp.asarray(v) for v in arrays if v is not None])


def _eye_like(a: Any, n: int) -> Any:
    return fnp.eye(n, dtype=dtype_of(a), like=a)


# -- wrappers of fnp.linalg -------------------------------------------------------------------


def inv(
    a: Any,
    overwrite_a: bool = False,
    check_finite: bool = True,
    *,
    assume_a: str | None = None,
    lower: bool = False,
) -> Any:
    """``scipy.linalg.inv``: the inverse of a square matrix (stacks too).  As SciPy's,
    ``assume_a`` 'sym', 'her' and 'pos' read the ``lower`` (default upper) triangle of
    ``a``, and 'diagonal', 'lower triangular' and 'upper triangular' read what they name.

    Example:
        >>> import numpy as np
        >>> inv(np.array([[2.0, 0.0], [0.0, 4.0]])).tolist()
        [[0.5, 0.0], [0.0, 0.25]]
    """
    if check_finite:
        _finite(a)
    a = _mat(a, "inv(a)")
    kind = assume_a or "gen"
    if kind in ("sym", "her", "pos", "symmetric", "hermitian", "positive definite"):
        a = _sym_from(a, lower)
    elif kind == "diagonal":
        a = fnp.tril(fnp.triu(a))
    elif kind in ("lower triangular", "upper triangular"):
        a = fnp.tril(a) if kind.startswith("lower") else fnp.triu(a)
    elif kind not in ("gen", "general"):
        raise UnsupportedOperationError(
            f"inv(a, assume_a={assume_a!r}): supported: 'gen', 'sym', 'her', 'pos', "
            f"'diagonal', 'lower triangular', 'upper triangular'"
        )
    return fnp.linalg.inv(a)


def det(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> Any:
    """``scipy.linalg.det``.

    Example:
        >>> import numpy as np
        >>> round(float(det(np.array([[2.0, 1.0], [1.0, 3.0]]))), 12)
        5.0
    """
    if check_finite:
        _finite(a)
    return fnp.linalg.det(_mat(a, "det(a)"))


def _sym_from(a: Any, lower: bool) -> Any:
    """The symmetric matrix that one triangle of ``a`` describes."""
    t = fnp.tril(a) if lower else fnp.triu(a)
    strict = fnp.tril(a, -1) if lower else fnp.triu(a, 1)
    return t + fnp.conj(_mT(strict))


def solve(
    a: Any,
    b: Any,
    lower: bool = False,
    overwrite_a: bool = False,
    overwrite_b: bool = False,
    check_finite: bool = True,
    assume_a: str | None = None,
    transposed: bool = False,
) -> Any:
    """``scipy.linalg.solve``: ``x`` with ``a @ x = b`` (``a.T @ x = b`` if ``transposed``).

    ``assume_a`` 'sym', 'her' and 'pos' read the ``lower`` (default upper) triangle of
    ``a``, as SciPy does; 'diagonal', 'lower triangular' and 'upper triangular' read what
    they name.

    Example:
        >>> import numpy as np
        >>> solve(np.array([[2.0, 0.0], [0.0, 4.0]]), np.array([1.0, 1.0])).tolist()
        [0.5, 0.25]
    """
    if check_finite:
        _finite(a, b)
    a = _mat(a, "solve(a, b)")
    kind = assume_a or "gen"
    if kind in ("sym", "her", "pos", "symmetric", "hermitian", "positive definite"):
        a = _sym_from(a, lower)
    elif kind == "diagonal":
        a = fnp.tril(fnp.triu(a))
    elif kind in ("lower triangular", "upper triangular"):
        return solve_triangular(a, b, trans=1 if transposed else 0, lower=kind.startswith("lower"))
    elif kind not in ("gen", "general"):
        raise UnsupportedOperationError(
            f"solve(a, b, assume_a={assume_a!r}): supported: 'gen', 'sym', 'her', 'pos', "
            f"'diagonal', 'lower triangular', 'upper triangular'"
        )
    if transposed:
        a = _mT(a)
    return fnp.linalg.solve(a, b)


def _trans_code(trans: Any) -> int:
    codes = {0: 0, 1: 1, 2: 2, "N": 0, "T": 1, "C": 2}
    if trans not in codes:
        raise ValueError(
            f"solve_triangular(a, b, trans={trans!r}): trans must be 0, 1, 2, 'N', 'T' or 'C'"
        )
    return codes[trans]


def solve_triangular(
    a: Any,
    b: Any,
    trans: Any = 0,
    lower: bool = False,
    unit_diagonal: bool = False,
    overwrite_b: bool = False,
    check_finite: bool = True,
) -> Any:
    """``scipy.linalg.solve_triangular``: solve with the ``lower`` (default upper) triangle
    of ``a`` (``trans`` 1/'T': its transpose, 2/'C': its conjugate transpose; the other
    triangle is never read, and neither is the diagonal with ``unit_diagonal``).

    Example:
        >>> import numpy as np
        >>> a = np.array([[2.0, 9.0], [1.0, 4.0]])
        >>> solve_triangular(a, np.array([2.0, 5.0]), lower=True).tolist()
        [1.0, 1.0]
    """
    if check_finite:
        _finite(a, b)
    a = _mat(a, "solve_triangular(a, b)")
    code = _trans_code(trans)
    t = fnp.tril(a) if lower else fnp.triu(a)
    if unit_diagonal:
        n = fnp.shape(a)[-1]
        t = fnp.tril(t, -1) + fnp.triu(t, 1) + _eye_like(a, n)
    if code:
        t = _mT(t)
        if code == 2:
            t = fnp.conj(t)
    return fnp.linalg.solve(t, b)


def cholesky(
    a: Any, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True
) -> Any:
    """``scipy.linalg.cholesky``: the upper factor ``U`` with ``a = U^H U`` (``lower``:
    ``L`` with ``a = L L^H``), reading that triangle of ``a`` only.

    Example:
        >>> import numpy as np
        >>> cholesky(np.array([[4.0, 2.0], [2.0, 5.0]])).tolist()
        [[2.0, 1.0], [0.0, 2.0]]
    """
    if check_finite:
        _finite(a)
    a = _mat(a, "cholesky(a)")
    return fnp.linalg.cholesky(a, upper=not lower)


def cho_factor(
    a: Any, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True
) -> tuple[Any, bool]:
    """``scipy.linalg.cho_factor``: ``(c, lower)``, the Cholesky factor in the ``lower``
    (default upper) triangle of ``c`` and ``a``'s own entries in the other, as in SciPy.

    Example:
        >>> import numpy as np
        >>> c, low = cho_factor(np.array([[4.0, 2.0], [2.0, 5.0]]))
        >>> c.tolist(), low
        ([[2.0, 1.0], [2.0, 2.0]], False)
    """
    if check_finite:
        _finite(a)
    a = _mat(a, "cho_factor(a)")
    f = cholesky(a, lower=lower)
    other = fnp.triu(a, 1) if lower else fnp.tril(a, -1)
    return f + other, lower


def cho_solve(
    c_and_lower: tuple[Any, bool], b: Any, overwrite_b: bool = False, check_finite: bool = True
) -> Any:
    """``scipy.linalg.cho_solve``: solve ``a x = b`` from ``cho_factor(a)``.

    Example:
        >>> import numpy as np
        >>> a = np.array([[4.0, 2.0], [2.0, 5.0]])
        >>> cho_solve(cho_factor(a), a @ np.array([1.0, -1.0])).round(12).tolist()
        [1.0, -1.0]
    """
    if check_finite:
        _finite(c_and_lower[0], b)
    c, lower = c_and_lower
    c = _mat(c, "cho_solve((c, lower), b)")
    trans = 2 if dtype_of(c).kind == "c" else 1
    if lower:
        y = solve_triangular(c, b, lower=True)
        return solve_triangular(c, y, trans=trans, lower=True)
    y = solve_triangular(c, b, trans=trans, lower=False)
    return solve_triangular(c, y, lower=False)


# -- LU ----------------------------------------------------------------------------------------


def _row_order(a: Any) -> tuple[Any, Any]:

    return lu_row_order_p.bind(fnp.stop_gradient(a))


def _eliminate(pa: Any) -> tuple[Any, Any]:
    """``(L, U)`` of ``pa`` without pivoting (Doolittle), with ``fnp`` operations: ``L`` is
    ``(..., m, k)`` unit lower triangular, ``U`` ``(..., k, n)`` upper, ``k = min(m, n)``."""
    m, n = fnp.shape(pa)[-2:]
    k = min(m, n)
    dt = dtype_of(pa)
    rows: list = []  # rows of U, each (..., n)
    cols: list = []  # columns of L, each (..., m)
    for j in range(k):
        u = pa[..., j, :]
        lcol = pa[..., :, j]
        if j:
            l_prev = fnp.stack(cols, axis=-1)  # (..., m, j)
            u_prev = fnp.stack(rows, axis=-2)  # (..., j, n)
            u = u - fnp.matmul(l_prev[..., j, :][..., None, :], u_prev)[..., 0, :]
            lcol = lcol - fnp.matmul(l_prev, u_prev[..., :, j][..., None])[..., 0]
        cols_n = fnp.arange(n, like=pa)
        rows_m = fnp.arange(m, like=pa)
        u = fnp.where(cols_n >= j, u, fnp.zeros((), dtype=dt, like=pa))
        # a zero pivot (a singular matrix) leaves the column of L at 0, as LAPACK does
        pivot = u[..., j][..., None]
        zero = pivot == 0
        safe = fnp.where(zero, fnp.ones((), dtype=dt, like=pa), pivot)
        keep = (rows_m > j) & ~zero
        lcol = fnp.where(keep, lcol / safe, fnp.zeros((), dtype=dt, like=pa))
        lcol = fnp.where(rows_m == j, fnp.ones((), dtype=dt, like=pa), lcol)
        rows.append(u)
        cols.append(lcol)
    return fnp.stack(cols, axis=-1), fnp.stack(rows, axis=-2)


def lu(
    a: Any,
    permute_l: bool = False,
    overwrite_a: bool = False,
    check_finite: bool = True,
    p_indices: bool = False,
) -> Any:
    """``scipy.linalg.lu``: ``(P, L, U)`` with ``a = P @ L @ U`` (partial pivoting);
    ``permute_l``: ``(P @ L, U)``; ``p_indices``: ``(p, L, U)`` with ``a = L[p] @ U``.
    The permutation has no derivative; ``L`` and ``U`` do.

    Example:
        >>> import numpy as np
        >>> a = np.array([[1.0, 2.0], [3.0, 4.0]])
        >>> p, l, u = lu(a)
        >>> bool(np.allclose(p @ l @ u, a))
        True
    """
    if check_finite:
        _finite(a)
    a = _mat(a, "lu(a)", square=False)
    order = _row_order(a)[0]
    m = fnp.shape(a)[-2]
    pa = fnp.take_along_axis(a, order[..., :, None], axis=-2)
    low, up = _eliminate(pa)
    if p_indices or permute_l:
        inverse = fnp.argsort(order, axis=-1)
        if permute_l:
            return fnp.take_along_axis(low, inverse[..., :, None], axis=-2), up
        return inverse, low, up
    # P[order[i], i] = 1
    perm = fnp.astype(order[..., None, :] == fnp.arange(m, like=a)[:, None], dtype_of(a))
    return perm, low, up


def lu_factor(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> tuple[Any, Any]:
    """``scipy.linalg.lu_factor``: ``(lu, piv)``, ``L`` (unit diagonal not stored) and
    ``U`` in one matrix, and LAPACK's pivots (row ``i`` was swapped with row ``piv[i]``).

    Example:
        >>> import numpy as np
        >>> lu_, piv = lu_factor(np.array([[1.0, 2.0], [3.0, 4.0]]))
        >>> piv.tolist()
        [1, 1]
    """
    if check_finite:
        _finite(a)
    a = _mat(a, "lu_factor(a)", square=False)
    order, piv = _row_order(a)
    pa = fnp.take_along_axis(a, order[..., :, None], axis=-2)
    low, up = _eliminate(pa)
    m, n = fnp.shape(a)[-2:]
    k = min(m, n)
    if m >= n:
        packed = (
            fnp.tril(low, -1)
            + fnp.concatenate(
                [up, fnp.zeros(fnp.shape(up)[:-2] + (m - k, n), dtype=dtype_of(up))], axis=-2
            )
            if m > k
            else fnp.tril(low, -1) + up
        )
    else:
        pad = fnp.zeros(fnp.shape(low)[:-2] + (m, n - k), dtype=dtype_of(low), like=low)
        packed = fnp.concatenate([fnp.tril(low, -1), pad], axis=-1) + up
    return packed, piv


def _order_from_pivots(piv: Any, n: int) -> Any:
    """The row order that LAPACK's swaps ``piv`` produce (``order[i]``: the original row
    that ends up at ``i``), with integer ``fnp`` operations (batched pivots work)."""
    idx = fnp.arange(n, like=piv)
    order = fnp.broadcast_to(idx, fnp.shape(piv)[:-1] + (n,))
    for i in range(fnp.shape(piv)[-1]):
        j = piv[..., i : i + 1]
        at_i = order[..., i : i + 1]
        at_j = fnp.take_along_axis(order, j, axis=-1)
        order = fnp.where(idx == i, at_j, fnp.where(idx == j, at_i, order))
    return order


def lu_solve(
    lu_and_piv: tuple[Any, Any],
    b: Any,
    trans: int = 0,
    overwrite_b: bool = False,
    check_finite: bool = True,
) -> Any:
    """``scipy.linalg.lu_solve``: solve ``a x = b`` (``trans`` 1: ``a^T x = b``, 2:
    ``a^H x = b``) from ``lu_factor(a)``.

    Example:
        >>> import numpy as np
        >>> a = np.array([[1.0, 2.0], [3.0, 4.0]])
        >>> lu_solve(lu_factor(a), a @ np.array([1.0, 2.0])).round(12).tolist()
        [1.0, 2.0]
    """
    if check_finite:
        _finite(b)
    packed, piv = lu_and_piv
    packed = _mat(packed, "lu_solve((lu, piv), b)")
    n = fnp.shape(packed)[-1]
    code = _trans_code(trans)
    order = _order_from_pivots(piv, n)
    b = float_input(b if hasattr(b, "dtype") else fnp.asarray(b), None)
    if code == 0:
        pb = fnp.take(b, order, axis=0)
        y = solve_triangular(packed, pb, lower=True, unit_diagonal=True)
        return solve_triangular(packed, y, lower=False)
    y = solve_triangular(packed, b, trans=code, lower=False)
    z = solve_triangular(packed, y, trans=code, lower=True, unit_diagonal=True)
    return fnp.take(z, fnp.argsort(order), axis=0)


# -- eigen, singular values, QR --------------------------------------------------------------


def eigh(
    a: Any,
    b: Any = None,
    *,
    lower: bool = True,
    eigvals_only: bool = False,
    overwrite_a: bool = False,
    overwrite_b: bool = False,
    type: int = 1,  # noqa: A002  (SciPy's name)
    check_finite: bool = True,
    subset_by_index: Any = None,
    subset_by_value: Any = None,
    driver: Any = None,
) -> Any:
    """``scipy.linalg.eigh``: ascending eigenvalues ``w`` and eigenvectors ``v`` of a
    symmetric/Hermitian ``a`` (its ``lower``, default, or upper triangle), or of the
    generalized problem ``a v = w b v`` (``b`` positive definite; ``v^H b v = I``).
    ``subset_by_index=[lo, hi]`` keeps eigenpairs ``lo..hi`` (inclusive).  Derivatives need
    distinct eigenvalues and are those of SciPy's function, which reads one triangle of
    ``a`` and ``b`` (the gradient is triangular, as ``cholesky``'s: NOTE [numpy reads one
    triangle]); eigenvector signs may differ from SciPy's.

    Example:
        >>> import numpy as np
        >>> eigh(np.array([[2.0, 1.0], [1.0, 2.0]]), eigvals_only=True).round(12).tolist()
        [1.0, 3.0]
    """
    if check_finite:
        _finite(a, b)
    if type != 1 or subset_by_value is not None:
        raise UnsupportedOperationError(
            "eigh(a, ...): type=1 without subset_by_value is supported; select from w yourself"
        )
    a = _sym_from(_mat(a, "eigh(a)"), lower)
    if b is None:
        w, v = fnp.linalg.eigh(a)
    else:
        chol = fnp.linalg.cholesky(_sym_from(_mat(b, "eigh(a, b)"), lower))
        c = solve_triangular(chol, a, lower=True)
        c = _mT(fnp.conj(solve_triangular(chol, fnp.conj(_mT(c)), lower=True)))
        w, y = fnp.linalg.eigh(_sym_from(c, True))
        v = solve_triangular(chol, y, trans=2 if dtype_of(chol).kind == "c" else 1, lower=True)
    if subset_by_index is not None:
        lo, hi = (operator.index(i) for i in subset_by_index)
        n = fnp.shape(w)[-1]
        if not 0 <= lo <= hi < n:
            raise ValueError(
                f"eigh(a, subset_by_index=[{lo}, {hi}]): need 0 <= lo <= hi < {n} (inclusive)"
            )
        w, v = w[..., lo : hi + 1], v[..., lo : hi + 1]
    return w if eigvals_only else (w, v)


def svd(
    a: Any,
    full_matrices: bool = True,
    compute_uv: bool = True,
    overwrite_a: bool = False,
    check_finite: bool = True,
    lapack_driver: str = "gesdd",
) -> Any:
    """``scipy.linalg.svd``: ``(U, s, Vh)``, or ``s`` alone with ``compute_uv=False``.

    Example:
        >>> import numpy as np
        >>> svd(np.diag([3.0, 4.0]), compute_uv=False).tolist()
        [4.0, 3.0]
    """
    if check_finite:
        _finite(a)
    a = _mat(a, "svd(a)", square=False)
    return fnp.linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


def qr(
    a: Any,
    overwrite_a: bool = False,
    lwork: Any = None,
    mode: str = "full",
    pivoting: bool = False,
    check_finite: bool = True,
) -> Any:
    """``scipy.linalg.qr``: ``(Q, R)`` for ``mode`` 'full' (default) and 'economic', and
    ``(R,)`` for 'r' (a 1-tuple, as in SciPy).  With ``pivoting`` the column order ``P``
    (int32) is appended, ``a[:, P] = Q R``: SciPy's (LAPACK's ``geqp3`` on the values, read
    on the host: piecewise constant, no derivative) and the QR is that of the permuted
    columns, so every transform goes through it.

    Example:
        >>> import numpy as np
        >>> q, r = qr(np.array([[3.0], [4.0]]))
        >>> q.shape, r.round(12).tolist()
        ((2, 2), [[-5.0], [0.0]])
        >>> q, r, p = qr(np.array([[1.0, 3.0], [0.0, 4.0]]), pivoting=True)
        >>> p.tolist(), np.abs(r).round(12).tolist()
        ([1, 0], [[5.0, 0.6], [0.0, 0.8]])
    """
    if check_finite:
        _finite(a)
    if mode not in ("full", "economic", "r"):
        raise ValueError(f"qr(a, mode={mode!r}): mode must be 'full', 'economic' or 'r'")
    a = _mat(a, "qr(a)", square=False)
    perm = ()
    if pivoting:
        perm = (qr_pivots(a),)
        a = fnp.take(a, perm[0], axis=1)
    if mode == "economic":
        return (*fnp.linalg.qr(a, mode="reduced"), *perm)
    q, r = fnp.linalg.qr(a, mode="complete")
    return (q, r, *perm) if mode == "full" else (r, *perm)


# -- matrix functions --------------------------------------------------------------------------

# Padé [13/13] coefficients of exp (Higham 2005) and the 1-norm below which it is accurate.
_PADE13 = (
    64764752532480000.0,
    32382376266240000.0,
    7771770303897600.0,
    1187353796428800.0,
    129060195264000.0,
    10559470521600.0,
    670442572800.0,
    33522128640.0,
    1323241920.0,
    40840800.0,
    960960.0,
    16380.0,
    182.0,
    1.0,
)
_THETA13 = 5.371920351148152


def _norm1(a: Any) -> Any:
    """The matrix 1-norm (max column sum), without derivative."""
    return fnp.max(fnp.sum(fnp.abs(fnp.stop_gradient(a)), axis=-2), axis=-1)


def _peek_host(x: Any) -> numpy.ndarray:
    """The values under ``x`` (every batch element) on the host: a read of the data
    (NOTE [value-dependent traces])."""
    v = fnp.peek(x)
    get = getattr(v, "get", None)
    return numpy.asarray(get() if get is not None and not isinstance(v, numpy.ndarray) else v)


def _max_int(x: Any) -> int:
    """The largest value of an integer-valued array over every batch element (a read of
    the data: NOTE [value-dependent traces])."""
    v = _peek_host(x)
    return int(v.max()) if v.size else 0


def expm(A: Any) -> Any:  # noqa: N803  (SciPy's name)
    """``scipy.linalg.expm``: the matrix exponential (stacks of matrices too), by scaling
    and squaring with the degree-13 Padé approximant.

    Example:
        >>> import numpy as np
        >>> expm(np.zeros((2, 2))).tolist()
        [[1.0, 0.0], [0.0, 1.0]]
    """
    a = _mat(A, "expm(A)")
    n = fnp.shape(a)[-1]
    if n == 0:
        return a
    nrm = _norm1(a)
    s = fnp.maximum(fnp.ceil(fnp.log2(fnp.maximum(nrm, 1e-300) / _THETA13)), 0.0)
    s_max = _max_int(s)
    a = a / fnp.power(2.0, s)[..., None, None]
    b = _PADE13
    eye = _eye_like(a, n)
    a2 = fnp.matmul(a, a)
    a4 = fnp.matmul(a2, a2)
    a6 = fnp.matmul(a4, a2)
    u_inner = fnp.matmul(a6, b[13] * a6 + b[11] * a4 + b[9] * a2)
    u = fnp.matmul(a, u_inner + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye)
    v = fnp.matmul(a6, b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4
    v = v + b[2] * a2 + b[0] * eye
    r = eye + fnp.linalg.solve(v - u, 2.0 * u)  # = (V - U)^-1 (V + U), exact at A = 0
    for i in range(s_max):
        r = fnp.where((s > i)[..., None, None], fnp.matmul(r, r), r)
    return r


def expm_frechet(
    A: Any,  # noqa: N803
    E: Any,  # noqa: N803
    method: Any = None,
    compute_expm: bool = True,
    check_finite: bool = True,
) -> Any:
    """``scipy.linalg.expm_frechet``: the Fréchet derivative of ``expm`` at ``A`` in the
    direction ``E`` (the JVP of :func:`expm`); ``(expm(A), L)`` or, without
    ``compute_expm``, ``L``.

    Example:
        >>> import numpy as np
        >>> e, l = expm_frechet(np.zeros((2, 2)), np.eye(2))
        >>> l.round(12).tolist()
        [[1.0, 0.0], [0.0, 1.0]]
    """
    if check_finite:
        _finite(A, E)
    a = _mat(A, "expm_frechet(A, E)")
    e = _mat(E, "expm_frechet(A, E)")
    if fnp.shape(a) != fnp.shape(e):
        raise ValueError(
            f"expm_frechet(A, E): A and E must have the same shape, got {fnp.shape(a)} and "
            f"{fnp.shape(e)}"
        )
    out, frechet = jvp(expm, (a,), (e,))
    return (out, frechet) if compute_expm else frechet


def _db_sqrt(a: Any, max_iter: int = 60) -> Any:
    """The principal square root by the scaled product Denman-Beavers iteration, until
    every matrix of the batch has converged (then a few more steps: they are fixed points)."""
    n = fnp.shape(a)[-1]
    y = a
    z = fnp.broadcast_to(_eye_like(a, n), fnp.shape(a))
    tol = 8 * numpy.finfo(dtype_of(a)).eps if dtype_of(a).kind == "f" else 1e-15
    extra = 2
    for _ in range(max_iter):
        # determinant scaling: mu = |det(Y) det(Z)|^(-1/(2n))
        _, ldy = fnp.linalg.slogdet(y)
        _, ldz = fnp.linalg.slogdet(z)
        mu = fnp.exp(-(ldy + ldz) / (2 * n))[..., None, None]
        y, z, y_old = (
            0.5 * (mu * y + fnp.linalg.inv(mu * z)),
            0.5 * (mu * z + fnp.linalg.inv(mu * y)),
            y,
        )
        change = fnp.max(fnp.abs(fnp.stop_gradient(y - y_old)))
        size = fnp.max(fnp.abs(fnp.stop_gradient(y)))
        if float(numpy.max(_peek_host(change / size))) < tol:
            extra -= 1
            if extra < 0:
                break
    return y


def sqrtm(A: Any, disp: bool = True, blocksize: int = 64) -> Any:  # noqa: N803
    """``scipy.linalg.sqrtm``: the principal square root ``X`` with ``X @ X = A``, for
    matrices with no eigenvalue on the closed negative real axis (scaled Denman-Beavers
    iteration; derivatives by composition); a real matrix with a real eigenvalue <= 0,
    whose root SciPy gives complex, raises UnsupportedOperationError.

    Example:
        >>> import numpy as np
        >>> sqrtm(np.array([[4.0, 0.0], [0.0, 9.0]])).round(12).tolist()
        [[2.0, 0.0], [0.0, 3.0]]
    """
    a = _mat(A, "sqrtm(A)")
    _real_root_exists(a, "sqrtm(A)", "sqrt")
    return _db_sqrt(a)


def _real_root_exists(a: Any, where: str, fn: str) -> None:
    """Raise where a real ``a`` has a real eigenvalue <= 0: SciPy's principal square root
    or logarithm is complex there (or does not exist), and the real iteration would give a
    wrong real matrix.  Read per row under ``vmap`` (the other rows compute)."""
    if dtype_of(a).kind == "c":
        return
    w = fnp.linalg.eigvals(fnp.astype(fnp.stop_gradient(a), numpy.complex128))
    bad = (fnp.real(w) <= 0) & (fnp.imag(w) == 0)
    if invalid_in_rows(fnp.any(bad)):
        raise UnsupportedOperationError(
            f"{where}: A has a real eigenvalue <= 0, where the principal {fn} is complex "
            f"(or does not exist); this version computes real results only.  Compute it "
            f"from the eigendecomposition: w, v = np.linalg.eig(A.astype(complex)); "
            f"v @ np.diag(np.{fn}(w)) @ np.linalg.inv(v)"
        )


# Gauss-Legendre nodes and weights on [0, 1] for log(I + X) = int_0^1 X (I + t X)^-1 dt.
_GL_NODES, _GL_WEIGHTS = numpy.polynomial.legendre.leggauss(12)
_GL_NODES = (_GL_NODES + 1.0) / 2.0
_GL_WEIGHTS = _GL_WEIGHTS / 2.0


def logm(A: Any, disp: bool = True) -> Any:  # noqa: N803
    """``scipy.linalg.logm``: the principal matrix logarithm, for matrices with no
    eigenvalue on the closed negative real axis (inverse scaling and squaring: square
    roots until ``||A - I||_1 <= 1/4``, then a 12-point Gauss-Legendre rule for
    ``log(I + X)``; derivatives by composition); a real matrix with a real eigenvalue
    <= 0, whose logarithm SciPy gives complex, raises UnsupportedOperationError.

    Example:
        >>> import numpy as np
        >>> logm(np.diag([1.0, np.e])).round(12).tolist()
        [[0.0, 0.0], [0.0, 1.0]]
    """
    a = _mat(A, "logm(A)")
    _real_root_exists(a, "logm(A)", "log")
    n = fnp.shape(a)[-1]
    eye = _eye_like(a, n)
    k = 0
    while _max_norm_off_identity(a, eye) > 0.25 and k < 40:
        a = _db_sqrt(a)
        k += 1
    x = a - eye
    out = 0.0 * x
    for node, weight in zip(_GL_NODES, _GL_WEIGHTS):
        out = out + weight * fnp.linalg.solve(eye + node * x, x)
    return out * float(2**k)


def _max_norm_off_identity(a: Any, eye: Any) -> float:
    v = _peek_host(_norm1(a - eye))
    return float(v.max()) if v.size else 0.0


def _maybe_real(a: Any, f: Any) -> Any:
    """SciPy's ``_maybe_real``: the real part of ``f`` when ``a`` is real and ``f``'s
    imaginary part is negligible (a read of the data: NOTE [value-dependent traces])."""
    if dtype_of(a).kind == "c" or dtype_of(f).kind != "c":
        return f
    if not fnp.size(f):
        return fnp.real(f)
    f0 = fnp.stop_gradient(f)
    tol = {numpy.dtype("complex64"): 1e3, numpy.dtype("complex128"): 1e6}.get(dtype_of(f), 1e6)
    eps = numpy.finfo(dtype_of(f)).eps
    small = fnp.max(fnp.abs(fnp.imag(f0))) <= tol * eps * fnp.maximum(
        fnp.max(fnp.abs(fnp.real(f0))), 1.0
    )  # per row under vmap: each row decides, rows that disagree split the batch
    real = read_per_row(
        small,
        "a matrix function under vmap(split=False): the result is real for some batch "
        "elements and complex for others, so SciPy would give them different dtypes; "
        "take .real of the result (or use complex input), or drop split=False",
    )
    return fnp.real(f) if real else f


def funm(A: Any, func: Any, disp: bool = True) -> Any:  # noqa: N803
    """``scipy.linalg.funm``: the matrix function of the scalar ``func`` (applied to the
    eigenvalues, so it must compute on arrays of tracers, e.g. ``np.sin``), for
    diagonalizable ``A``: ``V diag(func(w)) V^-1``; real when ``A`` is real and the
    result's imaginary part is negligible, as SciPy's.  Derivatives need distinct
    eigenvalues.  ``disp=False`` returns ``(F, errest)`` (``errest``: ``eps`` times the
    condition number of the eigenvector basis, at most 1: a defective ``A``); with
    ``disp=True`` a large estimate is printed, as SciPy does.

    Example:
        >>> import numpy as np
        >>> funm(np.diag([1.0, 4.0]), np.sqrt).tolist()
        [[1.0, 0.0], [0.0, 2.0]]
    """
    a = _mat(A, "funm(A, func)")
    w, v = fnp.linalg.eig(a)
    w = fnp.astype(w, numpy.result_type(dtype_of(w), numpy.complex64))
    v = fnp.astype(v, dtype_of(w))
    f = fnp.matmul(v * fnp.asarray(func(w))[..., None, :], fnp.linalg.inv(v))
    f = _maybe_real(a, f)
    # the error estimate: eps times the eigenvector basis' condition number (1 for a
    # defective A, where V is singular and the result is wrong, as SciPy's is then)
    eps = numpy.finfo(dtype_of(f)).eps
    err = fnp.minimum(eps * fnp.linalg.cond(fnp.stop_gradient(v)), 1.0)
    if disp:
        worst = float(numpy.max(_peek_host(err)))
        if worst > 1000 * eps:
            print("funm result may be inaccurate, approximate err =", worst)  # as SciPy's
        return f
    return f, err


def _expm_i(a: Any, sign: float) -> Any:
    cdt = numpy.result_type(dtype_of(a), numpy.complex64)
    return expm(fnp.astype(a, cdt) * (sign * 1j))


def cosm(A: Any) -> Any:  # noqa: N803
    """``scipy.linalg.cosm``: the matrix cosine, ``(expm(iA) + expm(-iA)) / 2`` (the real
    part of ``expm(iA)`` for real ``A``).

    Example:
        >>> import numpy as np
        >>> cosm(np.zeros((2, 2))).tolist()
        [[1.0, 0.0], [0.0, 1.0]]
    """
    a = _mat(A, "cosm(A)")
    if dtype_of(a).kind != "c":
        return fnp.real(_expm_i(a, 1.0))
    return 0.5 * (_expm_i(a, 1.0) + _expm_i(a, -1.0))


def sinm(A: Any) -> Any:  # noqa: N803
    """``scipy.linalg.sinm``: the matrix sine, ``(expm(iA) - expm(-iA)) / 2i`` (the
    imaginary part of ``expm(iA)`` for real ``A``).

    Example:
        >>> import numpy as np
        >>> sinm(np.zeros((2, 2))).tolist()
        [[0.0, 0.0], [0.0, 0.0]]
    """
    a = _mat(A, "sinm(A)")
    if dtype_of(a).kind != "c":
        return fnp.imag(_expm_i(a, 1.0))
    return -0.5j * (_expm_i(a, 1.0) - _expm_i(a, -1.0))


def tanm(A: Any) -> Any:  # noqa: N803
    """``scipy.linalg.tanm``: the matrix tangent, ``cosm(A)^-1 sinm(A)``.

    Example:
        >>> import numpy as np
        >>> tanm(np.zeros((2, 2))).tolist()
        [[0.0, 0.0], [0.0, 0.0]]
    """
    a = _mat(A, "tanm(A)")
    return _maybe_real(a, fnp.linalg.solve(cosm(a), sinm(a)))


def coshm(A: Any) -> Any:  # noqa: N803
    """``scipy.linalg.coshm``: the hyperbolic matrix cosine, ``(expm(A) + expm(-A)) / 2``.

    Example:
        >>> import numpy as np
        >>> coshm(np.zeros((2, 2))).tolist()
        [[1.0, 0.0], [0.0, 1.0]]
    """
    a = _mat(A, "coshm(A)")
    return _maybe_real(a, 0.5 * (expm(a) + expm(-a)))


def sinhm(A: Any) -> Any:  # noqa: N803
    """``scipy.linalg.sinhm``: the hyperbolic matrix sine, ``(expm(A) - expm(-A)) / 2``.

    Example:
        >>> import numpy as np
        >>> sinhm(np.zeros((2, 2))).tolist()
        [[0.0, 0.0], [0.0, 0.0]]
    """
    a = _mat(A, "sinhm(A)")
    return _maybe_real(a, 0.5 * (expm(a) - expm(-a)))


def tanhm(A: Any) -> Any:  # noqa: N803
    """``scipy.linalg.tanhm``: the hyperbolic matrix tangent, ``coshm(A)^-1 sinhm(A)``.

    Example:
        >>> import numpy as np
        >>> tanhm(np.zeros((2, 2))).tolist()
        [[0.0, 0.0], [0.0, 0.0]]
    """
    a = _mat(A, "tanhm(A)")
    return _maybe_real(a, fnp.linalg.solve(coshm(a), sinhm(a)))


def fractional_matrix_power(A: Any, t: Any) -> Any:  # noqa: N803
    """``scipy.linalg.fractional_matrix_power``: ``A^t``; an integer ``t`` by repeated
    products (its inverse for ``t < 0``), else the principal power ``expm(t logm(A))``
    for ``A`` with no eigenvalue on the closed negative real axis.  ``t`` may be traced
    (then always the principal power).

    Example:
        >>> import numpy as np
        >>> fractional_matrix_power(np.diag([4.0, 9.0]), 0.5).round(12).tolist()
        [[2.0, 0.0], [0.0, 3.0]]
    """
    a = _mat(A, "fractional_matrix_power(A, t)")
    if not isinstance(t, Tracer) and numpy.ndim(t) == 0:
        as_float = float(numpy.asarray(t))
        if as_float == int(as_float):
            return fnp.linalg.matrix_power(a, int(as_float))
    return _maybe_real(a, expm(t * logm(a)))


# -- Sylvester, banded -------------------------------------------------------------------------


def solve_sylvester(a: Any, b: Any, q: Any) -> Any:
    """``scipy.linalg.solve_sylvester``: ``X`` with ``A X + X B = Q``, by solving the
    Kronecker form ``(I (x) A + B^T (x) I) vec(X) = vec(Q)`` (``O((mn)^3)``: small
    matrices).

    Example:
        >>> import numpy as np
        >>> solve_sylvester(np.eye(2), np.eye(2), 2 * np.eye(2)).round(12).tolist()
        [[1.0, 0.0], [0.0, 1.0]]
    """
    a = _mat(a, "solve_sylvester(a, b, q)")
    b = _mat(b, "solve_sylvester(a, b, q)")
    m, n = fnp.shape(a)[-1], fnp.shape(b)[-1]
    if fnp.shape(q)[-2:] != (m, n):
        raise ValueError(
            f"solve_sylvester(a, b, q): q must be ({m}, {n}) for a {m}x{m} and b {n}x{n}, "
            f"got shape {fnp.shape(q)}"
        )
    # column-major vec: vec(A X) = (I_n (x) A) vec(X), vec(X B) = (B^T (x) I_m) vec(X)
    big = fnp.kron(_eye_like(a, n), a) + fnp.kron(_mT(b), _eye_like(b, m))
    vq = fnp.reshape(_mT(q), (m * n,))
    x = fnp.linalg.solve(big, vq)
    return _mT(fnp.reshape(x, (n, m)))


def solve_banded(
    l_and_u: tuple[int, int],
    ab: Any,
    b: Any,
    overwrite_ab: bool = False,
    overwrite_b: bool = False,
    check_finite: bool = True,
) -> Any:
    """``scipy.linalg.solve_banded``: solve with the banded matrix whose diagonals ``ab``
    holds in LAPACK's layout (``a[i, j] = ab[u + i - j, j]``).

    Example:
        >>> import numpy as np
        >>> ab = np.array([[0.0, 1.0, 1.0], [2.0, 2.0, 2.0], [1.0, 1.0, 0.0]])
        >>> solve_banded((1, 1), ab, np.array([3.0, 4.0, 3.0])).round(12).tolist()
        [1.0, 1.0, 1.0]
    """
    if check_finite:
        _finite(ab, b)
    nl, nu = (int(v) for v in l_and_u)
    ab = float_input(ab if hasattr(ab, "dtype") else fnp.asarray(ab), None)
    if fnp.ndim(ab) != 2 or fnp.shape(ab)[0] != nl + nu + 1:
        raise ValueError(
            f"solve_banded((l, u), ab, b): ab must have l + u + 1 = {nl + nu + 1} rows, got "
            f"shape {fnp.shape(ab)}"
        )
    n = fnp.shape(ab)[1]
    i, j = numpy.meshgrid(numpy.arange(n), numpy.arange(n), indexing="ij")
    band = (i - j <= nl) & (j - i <= nu)
    rows = fnp.asarray(numpy.where(band, nu + i - j, 0), like=ab)
    cols = fnp.asarray(j, like=ab)
    dense = fnp.where(fnp.asarray(band, like=ab), ab[rows, cols], 0.0)
    return fnp.linalg.solve(dense, b)


def solveh_banded(
    ab: Any,
    b: Any,
    overwrite_ab: bool = False,
    overwrite_b: bool = False,
    lower: bool = False,
    check_finite: bool = True,
) -> Any:
    """``scipy.linalg.solveh_banded``: solve with the symmetric (Hermitian) positive
    definite banded matrix whose upper (or, ``lower=True``, lower) diagonals ``ab`` holds
    in LAPACK's layout (``a[i, j] = ab[u + i - j, j]`` for ``i <= j``; lower:
    ``ab[i - j, j]`` for ``i >= j``), through its Cholesky factor.

    Example:
        >>> import numpy as np
        >>> ab = np.array([[0.0, 1.0, 1.0], [4.0, 4.0, 4.0]])
        >>> solveh_banded(ab, np.array([5.0, 6.0, 5.0])).round(12).tolist()
        [1.0, 1.0, 1.0]
    """
    if check_finite:
        _finite(ab, b)
    ab = float_input(ab if hasattr(ab, "dtype") else fnp.asarray(ab), None)
    if fnp.ndim(ab) != 2:
        raise ValueError(f"solveh_banded(ab, b): ab must be 2-D, got shape {fnp.shape(ab)}")
    u, n = fnp.shape(ab)[0] - 1, fnp.shape(ab)[1]
    i, j = numpy.meshgrid(numpy.arange(n), numpy.arange(n), indexing="ij")
    band = (i - j <= 0) & (j - i <= u) if not lower else (i - j >= 0) & (i - j <= u)
    rows = numpy.where(band, (i - j) if lower else (u + i - j), 0)
    tri = fnp.where(fnp.asarray(band, like=ab), ab[fnp.asarray(rows, like=ab), j], 0.0)
    factor = cholesky(_sym_from(tri, lower), lower=True, check_finite=False)
    return cho_solve((factor, True), b, check_finite=False)


def solve_toeplitz(c_or_cr: Any, b: Any, check_finite: bool = True) -> Any:
    """``scipy.linalg.solve_toeplitz``: solve with the Toeplitz matrix of first column
    ``c`` (and first row ``r``, given as ``(c, r)``; else ``conj(c)``), built densely and
    solved by LU (SciPy's Levinson recursion gives the same solution).

    Example:
        >>> import numpy as np
        >>> solve_toeplitz(np.array([2.0, 1.0]), np.array([3.0, 3.0])).round(12).tolist()
        [1.0, 1.0]
    """
    c, r = c_or_cr if isinstance(c_or_cr, tuple) else (c_or_cr, None)
    if check_finite:
        _finite(c, b) if r is None else _finite(c, r, b)
    c = fnp.ravel(float_input(c if hasattr(c, "dtype") else fnp.asarray(c), None))
    r = fnp.conj(c) if r is None else fnp.ravel(fnp.asarray(r))
    return fnp.linalg.solve(toeplitz(c, r), b)


def svdvals(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> Any:
    """``scipy.linalg.svdvals``: the singular values, in decreasing order.

    Example:
        >>> import numpy as np
        >>> svdvals(np.diag([1.0, 3.0])).tolist()
        [3.0, 1.0]
    """
    if check_finite:
        _finite(a)
    return fnp.linalg.svd(_mat(a, "svdvals(a)", square=False), compute_uv=False)


def pinvh(
    a: Any,
    atol: Any = None,
    rtol: Any = None,
    lower: bool = True,
    return_rank: bool = False,
    check_finite: bool = True,
) -> Any:
    """``scipy.linalg.pinvh``: the pseudo-inverse of the Hermitian matrix whose ``lower``
    (or upper) triangle ``a`` holds; eigenvalues with ``|w| <= atol + rtol max|w|`` are
    dropped (:func:`pinv` of that matrix: its singular values are ``|w|``).

    Example:
        >>> import numpy as np
        >>> pinvh(np.array([[2.0, 9.0], [0.0, 0.0]])).tolist()  # the lower triangle
        [[0.5, 0.0], [0.0, 0.0]]
    """
    if check_finite:
        _finite(a)
    sym = _sym_from(_mat(a, "pinvh(a)"), lower)
    return pinv(sym, atol=atol, rtol=rtol, return_rank=return_rank)


# -- builders ------------------------------------------------------------------------------------


def block_diag(*arrs: Any) -> Any:
    """``scipy.linalg.block_diag``: the arrays on the diagonal of one matrix (scalars and
    1-D arrays count as 1-row matrices).

    Example:
        >>> import numpy as np
        >>> block_diag(np.ones((1, 1)), 2 * np.ones((1, 2))).tolist()
        [[1.0, 0.0, 0.0], [0.0, 2.0, 2.0]]
    """
    if not arrs:
        return fnp.zeros((1, 0))
    mats = []
    for a in arrs:
        a = a if hasattr(a, "dtype") else fnp.asarray(a)
        if fnp.ndim(a) > 2:
            raise ValueError(
                f"block_diag(*arrs): arguments must have at most 2 dimensions, got shape "
                f"{fnp.shape(a)}"
            )
        mats.append(fnp.atleast_2d(a))
    dt = numpy.result_type(*[dtype_of(m) for m in mats])
    widths = [fnp.shape(m)[1] for m in mats]
    total = sum(widths)
    rows = []
    start = 0
    for m, w in zip(mats, widths):
        h = fnp.shape(m)[0]
        left = fnp.zeros((h, start), dtype=dt, like=m)
        right = fnp.zeros((h, total - start - w), dtype=dt, like=m)
        rows.append(fnp.concatenate([left, fnp.astype(m, dt), right], axis=1))
        start += w
    return fnp.concatenate(rows, axis=0)


def toeplitz(c: Any, r: Any = None) -> Any:
    """``scipy.linalg.toeplitz``: first column ``c``, first row ``r`` (default
    ``conj(c)``; ``r[0]`` is ignored).

    Example:
        >>> import numpy as np
        >>> toeplitz(np.array([1.0, 2.0, 3.0])).tolist()
        [[1.0, 2.0, 3.0], [2.0, 1.0, 2.0], [3.0, 2.0, 1.0]]
    """
    c = fnp.ravel(c if hasattr(c, "dtype") else fnp.asarray(c))
    r = fnp.conj(c) if r is None else fnp.ravel(r if hasattr(r, "dtype") else fnp.asarray(r))
    nc, nr = fnp.shape(c)[0], fnp.shape(r)[0]
    vals = fnp.concatenate([fnp.flip(c, 0), r[1:]])
    idx = nc - 1 - numpy.arange(nc)[:, None] + numpy.arange(nr)[None, :]
    return vals[fnp.asarray(idx, like=c)]


def _vec(x: Any) -> Any:
    return fnp.ravel(x if hasattr(x, "dtype") else fnp.asarray(x))


def hankel(c: Any, r: Any = None) -> Any:
    """``scipy.linalg.hankel``: first column ``c``, last row ``r`` (default zeros;
    ``r[0]`` is ignored), constant along the anti-diagonals.

    Example:
        >>> import numpy as np
        >>> hankel(np.array([1.0, 2.0, 3.0])).tolist()
        [[1.0, 2.0, 3.0], [2.0, 3.0, 0.0], [3.0, 0.0, 0.0]]
    """
    c = _vec(c)
    r = fnp.zeros_like(c) if r is None else _vec(r)
    nc, nr = fnp.shape(c)[0], fnp.shape(r)[0]
    vals = fnp.concatenate([c, fnp.astype(r[1:], fnp.result_type(c, r))])
    idx = numpy.arange(nc)[:, None] + numpy.arange(nr)[None, :]
    return vals[fnp.asarray(idx, like=c)]


def circulant(c: Any) -> Any:
    """``scipy.linalg.circulant``: the circulant matrix with first column ``c``,
    ``C[i, j] = c[(i - j) % n]``.

    Example:
        >>> import numpy as np
        >>> circulant(np.array([1.0, 2.0, 3.0])).tolist()
        [[1.0, 3.0, 2.0], [2.0, 1.0, 3.0], [3.0, 2.0, 1.0]]
    """
    c = _vec(c)
    n = fnp.shape(c)[0]
    idx = (numpy.arange(n)[:, None] - numpy.arange(n)[None, :]) % max(n, 1)
    return c[fnp.asarray(idx, like=c)]


def companion(a: Any) -> Any:
    """``scipy.linalg.companion``: the companion matrix of the polynomial with
    coefficients ``a`` (highest degree first): first row ``-a[1:] / a[0]``, ones below
    the diagonal.

    Example:
        >>> import numpy as np
        >>> companion(np.array([1.0, -3.0, 2.0])).tolist()  # roots 1 and 2
        [[3.0, -2.0], [1.0, 0.0]]
    """
    a = float_input(_vec(a), None)
    n = fnp.shape(a)[0]
    if n < 2:
        raise ValueError(f"companion(a): a must have at least 2 coefficients, got {n}")
    first = -a[1:] / a[0]
    below = fnp.eye(n - 2, n - 1, dtype=dtype_of(a), like=a)
    return fnp.concatenate([first[None, :], below], axis=0)


def pinv(a: Any, *, atol: Any = None, rtol: Any = None, return_rank: bool = False, **_: Any) -> Any:
    """``scipy.linalg.pinv``: the Moore-Penrose pseudo-inverse, by the SVD (singular
    values below ``atol + rtol * max(s)`` are dropped; ``rtol`` defaults to
    ``max(m, n) * eps``); differentiable across the cut (NOTE [pinv with cut singular
    values]) and at repeated singular values.

    Example:
        >>> import numpy as np
        >>> pinv(np.array([[2.0, 0.0], [0.0, 0.0]])).tolist()
        [[0.5, 0.0], [0.0, 0.0]]
    """
    a = _mat(a, "pinv(a)", square=False)
    m, n = fnp.shape(a)[-2:]
    eps = numpy.finfo(numpy.result_type(dtype_of(a), numpy.float32)).eps
    rt = max(m, n) * eps if rtol is None else rtol
    at = 0.0 if atol is None else atol
    if numpy.ndim(rt) != 0 or numpy.ndim(at) != 0 or at < 0 or rt < 0:
        raise ValueError("atol and rtol values must be positive.")
    # the derivative across the cut: NOTE [pinv with cut singular values]
    out = _la.pinv_p.bind(a, rcond=float(rt), atol=float(at))
    if not return_rank:
        return out
    s = fnp.stop_gradient(fnp.linalg.svd(a, compute_uv=False))
    return out, fnp.sum(s > at + rt * fnp.max(s, axis=-1, keepdims=True), axis=-1)


def lstsq(a: Any, b: Any, cond: Any = None, **_: Any) -> tuple[Any, Any, Any, Any]:
    """``scipy.linalg.lstsq``: ``(x, residues, rank, s)`` minimizing ``||a x - b||``
    (through the pseudo-inverse; ``residues`` is the squared residual norm per column when
    ``a`` has full column rank and ``m > n``, else empty, as SciPy's).

    Example:
        >>> import numpy as np
        >>> x, res, rank, s = lstsq(np.array([[1.0], [1.0]]), np.array([1.0, 3.0]))
        >>> x.round(12).tolist(), round(float(res), 12), int(rank)
        ([2.0], 2.0, 1)
    """
    a = _mat(a, "lstsq(a, b)", square=False)
    m, n = fnp.shape(a)
    p, rank = pinv(a, rtol=cond, return_rank=True)
    x = fnp.matmul(p, b)
    s = fnp.linalg.svd(a, compute_uv=False)
    if m > n and int(fnp.stop_gradient(rank)) == n:
        r = b - fnp.matmul(a, x)
        res = fnp.sum(fnp.abs(r) ** 2, axis=0)
    else:
        res = fnp.zeros((0,), dtype=dtype_of(x), like=x)
    return x, res, rank, s


def norm(a: Any, ord: Any = None, axis: Any = None, keepdims: bool = False, **_: Any) -> Any:  # noqa: A002
    """``scipy.linalg.norm``: the vector or matrix norm (NumPy's ``linalg.norm``).

    Example:
        >>> import numpy as np
        >>> float(norm(np.array([3.0, 4.0])))
        5.0
    """
    return fnp.linalg.norm(a, ord=ord, axis=axis, keepdims=keepdims)


def eigvalsh(a: Any, b: Any = None, *, lower: bool = True, **kwargs: Any) -> Any:
    """``scipy.linalg.eigvalsh``: the eigenvalues of :func:`eigh`.

    Example:
        >>> import numpy as np
        >>> eigvalsh(np.array([[2.0, 1.0], [1.0, 2.0]])).round(12).tolist()
        [1.0, 3.0]
    """
    return eigh(a, b, lower=lower, eigvals_only=True, **kwargs)


del math
