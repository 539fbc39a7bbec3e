"""``jax.lax.linalg`` as ``ftransforms.lax.linalg``: the factorizations and solves with
JAX's signatures and output conventions (``eigh`` returns the eigenvectors first, ``lu``
its pivots and permutation as ``int32``, ``triangular_solve`` solves ``x @ a = b`` unless
``left_side``), over ``ftransforms.numpy.linalg`` and ``ftransforms.scipy.linalg``, so every
transform goes through their rules.  Batch axes lead, as in JAX.

Example:
    >>> import numpy as np
    >>> from ftransforms import lax
    >>> a = np.array([[2.0, 0.0], [1.0, 1.0]])
    >>> b = np.array([[2.0], [3.0]])
    >>> lax.linalg.triangular_solve(a, b, left_side=True, lower=True).tolist()
    [[1.0], [2.0]]
"""

from __future__ import annotations

from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.api import vmap
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.numpy.helpers import constant_like
from ftransforms.scipy import linalg as _sl


def _mT(x: Any) -> Any:  # noqa: N802  (matrix transpose)
    return fnp.swapaxes(x, -1, -2)


def _mH(x: Any) -> Any:  # noqa: N802  (conjugate transpose)
    return fnp.conj(_mT(x))


def cholesky(x: Any, *, symmetrize_input: bool = True) -> Any:
    """The lower Cholesky factor ``L`` of ``x = L L^H``, of ``(x + x^H) / 2`` when
    ``symmetrize_input`` (``jax.lax.linalg.cholesky``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.linalg.cholesky(np.array([[4.0, 2.0], [2.0, 5.0]])).tolist()
        [[2.0, 0.0], [1.0, 2.0]]
    """
    if symmetrize_input:
        x = (x + _mH(x)) / 2
    return fnp.linalg.cholesky(x)


def cholesky_update(r_matrix: Any, w_vector: Any) -> Any:
    """The upper Cholesky factor of ``R^H R + w w^H`` from the upper factor ``R`` of a
    matrix (``jax.lax.linalg.cholesky_update``; refactored here, not updated in O(n^2)).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> r = np.array([[2.0, 1.0], [0.0, 2.0]])
        >>> lax.linalg.cholesky_update(r, np.array([0.0, 3.0])).tolist()
        [[2.0, 1.0], [0.0, 3.605551275463989]]
    """
    w = fnp.asarray(w_vector)
    a = _mH(r_matrix) @ r_matrix + fnp.expand_dims(w, -1) * fnp.conj(fnp.expand_dims(w, -2))
    return _mH(fnp.linalg.cholesky(a))


def eigh(
    x: Any,
    *,
    lower: bool = True,
    symmetrize_input: bool = True,
    sort_eigenvalues: bool = True,
    subset_by_index: tuple[int, int] | None = None,
    implementation: Any = None,
) -> tuple[Any, Any]:
    """``(v, w)``: the eigenvectors (columns) and ascending eigenvalues of the Hermitian
    ``x``, read from its ``lower`` or upper triangle, or from ``(x + x^H) / 2`` when
    ``symmetrize_input``; ``subset_by_index=(lo, hi)`` keeps eigenvalues ``lo..hi-1``
    (``jax.lax.linalg.eigh``: note the eigenvectors come first).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> v, w = lax.linalg.eigh(np.array([[2.0, 1.0], [1.0, 2.0]]))
        >>> w.tolist()
        [1.0, 3.0]
    """
    if symmetrize_input:
        x = (x + _mH(x)) / 2
    w, v = fnp.linalg.eigh(x, UPLO="L" if lower else "U")
    if subset_by_index is not None:
        lo, hi = (int(i) for i in subset_by_index)
        w, v = w[..., lo:hi], v[..., lo:hi]
    return v, w


def eig(
    x: Any,
    *,
    compute_left_eigenvectors: bool = True,
    compute_right_eigenvectors: bool = True,
    enable_eigvec_derivs: bool = False,
    implementation: Any = None,
    use_magma: bool | None = None,
) -> list[Any]:
    """``[w, vl, vr]``: the eigenvalues and, as asked, the left (``vl^H x = w vl^H``) and
    right eigenvectors of a square ``x``, unit columns (``jax.lax.linalg.eig``; the left
    ones are ``inv(vr)^H`` normalized, so their phase may differ from LAPACK's).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> w, vl, vr = lax.linalg.eig(np.diag([2.0, 1.0]))
        >>> w.tolist()
        [(2+0j), (1+0j)]
    """
    if compute_left_eigenvectors:
        w, vr = fnp.linalg.eig(x)
        # the rows of vr^-1 are the left eigenvectors (conjugated), paired with w
        vl = _mH(fnp.linalg.inv(vr))
        vl = vl / fnp.linalg.norm(vl, axis=-2, keepdims=True)
        out = [w, vl, vr] if compute_right_eigenvectors else [w, vl]
    elif compute_right_eigenvectors:
        out = list(fnp.linalg.eig(x))
    else:
        out = [fnp.linalg.eigvals(x)]
    dt = numpy.result_type(numpy.dtype(fnp.result_type(x)), numpy.complex64)
    return [o.astype(dt) for o in out]


def lu_pivots_to_permutation(pivots: Any, permutation_size: int) -> Any:
    """The permutation that the row swaps ``pivots`` (row ``i`` swapped with row
    ``pivots[i]``, in turn) make of ``range(permutation_size)``, as ``int32``
    (``jax.lax.linalg.lu_pivots_to_permutation``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.linalg.lu_pivots_to_permutation(np.array([2, 2, 2], np.int32), 4).tolist()
        [2, 0, 1, 3]
    """
    piv = fnp.asarray(pivots)
    n = int(permutation_size)
    iota = constant_like(numpy.arange(n, dtype=numpy.int32), piv)
    perm = fnp.broadcast_to(iota, (*piv.shape[:-1], n))
    for i in range(piv.shape[-1]):
        p = fnp.expand_dims(piv[..., i], -1).astype(numpy.int32)
        at_i = perm[..., i : i + 1]
        at_p = fnp.take_along_axis(perm, p, axis=-1)
        perm = fnp.where(iota == i, at_p, fnp.where(iota == p, at_i, perm))
    return perm.astype(numpy.int32)


def lu(x: Any) -> tuple[Any, Any, Any]:
    """``(lu, pivots, permutation)``: the packed LU factors of ``x`` with partial
    pivoting (``L`` unit lower below the diagonal, ``U`` on and above), the row swaps and
    the row permutation they make, both ``int32``: ``x[perm] = L @ U``
    (``jax.lax.linalg.lu``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lu, piv, perm = lax.linalg.lu(np.array([[1.0, 2.0], [3.0, 4.0]]))
        >>> perm.tolist(), lu.tolist()
        ([1, 0], [[3.0, 4.0], [0.3333333333333333, 0.6666666666666667]])
    """
    packed, piv = _sl.lu_factor(x)
    piv = fnp.asarray(piv).astype(numpy.int32)
    return packed, piv, lu_pivots_to_permutation(piv, fnp.shape(x)[-2])


def qr(
    x: Any, *, pivoting: bool = False, full_matrices: bool = True, use_magma: bool | None = None
) -> tuple[Any, ...]:
    """``(q, r)`` with ``x = q @ r``: ``q`` square when ``full_matrices``, else
    ``(m, min(m, n))`` (``jax.lax.linalg.qr``, over leading batch axes); ``pivoting``
    appends the int32 column order ``p`` with ``x[..., p] = q @ r`` (SciPy's, as
    :func:`ftransforms.scipy.linalg.qr`'s).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> q, r = lax.linalg.qr(np.ones((3, 2)), full_matrices=False)
        >>> q.shape, r.shape
        ((3, 2), (2, 2))
        >>> lax.linalg.qr(np.array([[1.0, 3.0], [0.0, 4.0]]), pivoting=True)[2].tolist()
        [1, 0]
    """
    if not pivoting:
        return tuple(fnp.linalg.qr(x, mode="complete" if full_matrices else "reduced"))
    mode = "full" if full_matrices else "economic"
    x = fnp.asarray(x)
    if fnp.ndim(x) < 2:
        raise ValueError(f"lax.linalg.qr(x): x must have at least 2 axes, got {fnp.shape(x)}")
    one = lambda m: _sl.qr(m, mode=mode, pivoting=True, check_finite=False)  # noqa: E731
    for _ in range(fnp.ndim(x) - 2):  # the leading batch axes
        one = vmap(one)
    return tuple(one(x))


def svd(
    x: Any,
    *,
    full_matrices: bool = True,
    compute_uv: bool = True,
    subset_by_index: tuple[int, int] | None = None,
    algorithm: Any = None,
) -> Any:
    """``(u, s, vh)`` with ``x = u @ diag(s) @ vh`` and descending ``s``, or ``s`` alone
    (``jax.lax.linalg.svd``); ``subset_by_index=(lo, hi)`` keeps singular values
    ``lo..hi-1``.

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.linalg.svd(np.diag([1.0, 3.0]), compute_uv=False).tolist()
        [3.0, 1.0]
    """
    if not compute_uv:
        s = fnp.linalg.svd(x, compute_uv=False)
        return s if subset_by_index is None else s[..., subset_by_index[0] : subset_by_index[1]]
    u, s, vh = fnp.linalg.svd(x, full_matrices=full_matrices)
    if subset_by_index is not None:
        lo, hi = (int(i) for i in subset_by_index)
        u, s, vh = u[..., lo:hi], s[..., lo:hi], vh[..., lo:hi, :]
    return u, s, vh


def triangular_solve(
    a: Any,
    b: Any,
    *,
    left_side: bool = False,
    lower: bool = False,
    transpose_a: bool = False,
    conjugate_a: bool = False,
    unit_diagonal: bool = False,
) -> Any:
    """``x`` with ``op(a) @ x = b`` (``left_side``) or ``x @ op(a) = b``, ``a`` triangular
    (its ``lower`` or upper triangle is read, its diagonal taken as ones with
    ``unit_diagonal``), ``op`` the transpose and/or the conjugate as asked
    (``jax.lax.linalg.triangular_solve``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> a = np.array([[2.0, 1.0], [0.0, 4.0]])
        >>> lax.linalg.triangular_solve(a, np.array([[2.0, 9.0]])).tolist()  # x @ a = b
        [[1.0, 2.0]]
    """
    if conjugate_a and not transpose_a:
        a, conjugate_a = fnp.conj(a), False
    trans = ("C" if conjugate_a else "T") if transpose_a else "N"
    if left_side:
        return _sl.solve_triangular(a, b, trans=trans, lower=lower, unit_diagonal=unit_diagonal)
    # x op(a) = b  <=>  op(a)^T x^T = b^T
    flipped = {"N": "T", "T": "N", "C": "N"}[trans]
    if trans == "C":  # (a^H)^T = conj(a)
        a = fnp.conj(a)
    out = _sl.solve_triangular(a, _mT(b), trans=flipped, lower=lower, unit_diagonal=unit_diagonal)
    return _mT(out)


def tridiagonal_solve(dl: Any, d: Any, du: Any, b: Any, *, perturb_singular: bool = False) -> Any:
    """The solution of the tridiagonal system with sub-, main and super-diagonals ``dl``,
    ``d``, ``du`` (each of length ``n``; ``dl[0]`` and ``du[-1]`` are ignored) and
    right-hand sides ``b`` ``(n, k)`` (``jax.lax.linalg.tridiagonal_solve``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> dl, d, du = np.array([0.0, 1.0]), np.array([2.0, 2.0]), np.array([1.0, 0.0])
        >>> lax.linalg.tridiagonal_solve(dl, d, du, np.array([[3.0], [3.0]])).tolist()
        [[1.0], [1.0]]
    """
    n = fnp.shape(d)[-1]
    eye, below, above = (constant_like(numpy.eye(n, k=k), d) for k in (0, -1, 1))
    a = (
        fnp.expand_dims(d, -1) * eye
        + fnp.expand_dims(dl, -1) * below
        + fnp.expand_dims(du, -1) * above
    )
    return fnp.linalg.solve(a, b)


def schur(
    x: Any,
    *,
    compute_schur_vectors: bool = True,
    sort_eig_vals: bool = False,
    select_callable: Any = None,
) -> Any:
    """``(t, vs)`` with ``x = vs @ t @ vs^H``, ``t`` quasi-upper-triangular (real input)
    or upper triangular (complex), or ``t`` alone (``jax.lax.linalg.schur``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> t, vs = lax.linalg.schur(np.array([[1.0, 2.0], [0.0, 3.0]]))
        >>> bool(np.allclose(vs @ t @ vs.T, [[1.0, 2.0], [0.0, 3.0]]))
        True
    """
    if sort_eig_vals or select_callable is not None:
        raise UnsupportedOperationError(
            "lax.linalg.schur(x, sort_eig_vals=...): sorting is not supported; use "
            "ft.scipy.linalg.schur(x, sort=...)"
        )
    t, vs = _sl.schur(x)
    return (t, vs) if compute_schur_vectors else t


def symmetric_product(
    a_matrix: Any,
    c_matrix: Any,
    *,
    alpha: float = 1.0,
    beta: float = 0.0,
    symmetrize_output: bool = False,
) -> Any:
    """``alpha * a @ a^T + beta * c`` (``jax.lax.linalg.symmetric_product``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.linalg.symmetric_product(np.array([[1.0, 2.0]]), np.ones((1, 1)), beta=2.0).tolist()
        [[7.0]]
    """
    out = alpha * (a_matrix @ _mT(a_matrix)) + beta * c_matrix
    return (out + _mT(out)) / 2 if symmetrize_output else out


def householder_product(a: Any, taus: Any) -> Any:
    """The first ``n`` columns of ``H_0 @ H_1 @ ... @ H_{k-1}``, ``H_i = I - taus[i] v_i
    v_i^H``, where ``v_i`` is column ``i`` of ``a`` below the diagonal with a 1 on it
    (LAPACK's ``orgqr``/``ungqr``: ``jax.lax.linalg.householder_product``); batch axes lead.

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> a = np.array([[0.0, 0.0], [1.0, 0.0]])  # v_0 = [1, 1]; tau = 1: I - v v^T
        >>> lax.linalg.householder_product(a, np.array([1.0, 0.0])).tolist()
        [[0.0, -1.0], [-1.0, 0.0]]
    """
    a, taus = fnp.asarray(a), fnp.asarray(taus)
    m, n, k = a.shape[-2], a.shape[-1], taus.shape[-1]
    if not (k <= n <= m):
        raise UnsupportedOperationError(
            f"lax.linalg.householder_product(a, taus): needs taus.shape[-1] <= n <= m for "
            f"a of shape (..., m, n), got a {a.shape} and taus {taus.shape}"
        )
    dtype = fnp.result_type(a, taus)
    rows = numpy.arange(m)
    q = fnp.broadcast_to(fnp.eye(m, dtype=dtype), (*a.shape[:-2], m, m))
    for i in range(k):
        below = fnp.where(rows > i, a[..., :, i], fnp.zeros((), dtype))
        v = fnp.where(rows == i, fnp.ones((), dtype), below)  # (..., m)
        qv = fnp.matmul(q, v[..., :, None])  # (..., m, 1)
        q = q - taus[..., i, None, None] * qv * fnp.conj(v)[..., None, :]
    return q[..., :, :n]


def _reflector(alpha: Any, x: Any) -> tuple:
    """LAPACK's ``larfg``: ``(beta, tau, v)`` with ``(I - tau [1, v] [1, v]^H)^H`` mapping
    ``[alpha, x]`` to ``[beta, 0...]`` (``beta`` real; ``tau = 0`` when there is nothing to
    annihilate).  ``alpha`` has shape ``(...)``, ``x`` ``(..., r)``."""
    xnorm2 = fnp.sum(fnp.real(x * fnp.conj(x)), axis=-1)
    none = (xnorm2 == 0) & (fnp.imag(alpha) == 0)
    norm = fnp.sqrt(fnp.real(alpha * fnp.conj(alpha)) + xnorm2)
    beta = -fnp.where(fnp.real(alpha) >= 0, 1.0, -1.0) * norm
    safe = fnp.where(none, 1.0, beta)
    tau = fnp.where(none, 0.0, (beta - alpha) / safe)
    scale = fnp.where(none, 1.0, alpha - safe)
    v = x / scale[..., None]
    return fnp.where(none, fnp.real(alpha), beta), tau, v


def tridiagonal(a: Any, *, lower: bool = True) -> tuple[Any, Any, Any, Any]:
    """``(arr, d, e, taus)``: the Hermitian ``a`` reduced to the tridiagonal ``T = Q^H a Q``
    with diagonal ``d`` and off-diagonal ``e``, ``Q`` given by the Householder vectors kept
    in ``arr`` past the off-diagonal and ``taus`` (LAPACK's ``sytrd``/``hetrd``:
    ``jax.lax.linalg.tridiagonal``; only ``lower=True``); batch axes lead.

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> a = np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 1.0], [0.0, 1.0, 2.0]])
        >>> arr, d, e, taus = lax.linalg.tridiagonal(a)  # already tridiagonal: Q = I
        >>> d.tolist(), e.tolist(), taus.tolist()
        ([2.0, 2.0, 2.0], [1.0, 1.0], [0.0, 0.0])
    """
    if not lower:
        raise UnsupportedOperationError(
            "lax.linalg.tridiagonal(a, lower=False) is not supported; transpose (conjugate) a "
            "and use lower=True"
        )
    arr = given = fnp.asarray(a)
    n = arr.shape[-1]
    es, taus = [], []
    for i in range(n - 1):
        beta, tau, v = _reflector(arr[..., i + 1, i], arr[..., i + 2 :, i])
        w = fnp.concatenate([fnp.ones_like(tau[..., None]), v], axis=-1)  # (..., n - i - 1)
        h = fnp.eye(n - i - 1, dtype=fnp.result_type(arr, tau)) - tau[..., None, None] * (
            w[..., :, None] * fnp.conj(w)[..., None, :]
        )
        block = fnp.matmul(fnp.matmul(_mH(h), arr[..., i + 1 :, i + 1 :]), h)
        column = fnp.concatenate([beta[..., None].astype(block.dtype), v], axis=-1)
        top = arr[..., : i + 1, :]
        left = fnp.concatenate([arr[..., i + 1 :, :i], column[..., :, None]], axis=-1)
        arr = fnp.concatenate([top, fnp.concatenate([left, block], axis=-1)], axis=-2)
        es.append(beta)
        taus.append(tau)
    # as LAPACK, the strict upper triangle is a's own (only the lower one is read)
    arr = fnp.where(numpy.tri(n, dtype=bool), arr, given)
    d = fnp.real(fnp.diagonal(arr, axis1=-2, axis2=-1))
    rest = arr.shape[:-2]
    e = fnp.stack(es, axis=-1) if es else fnp.zeros((*rest, 0), d.dtype)
    tau = fnp.stack(taus, axis=-1) if taus else fnp.zeros((*rest, 0), arr.dtype)
    return arr, d, fnp.real(e), tau


__all__ = [
    "cholesky",
    "tridiagonal",
    "householder_product",
    "cholesky_update",
    "eig",
    "eigh",
    "lu",
    "lu_pivots_to_permutation",
    "qr",
    "schur",
    "svd",
    "symmetric_product",
    "triangular_solve",
    "tridiagonal_solve",
]
