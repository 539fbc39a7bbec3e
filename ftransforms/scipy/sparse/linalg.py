"""``ftransforms.scipy.sparse.linalg``: solvers on tracers (like ``jax.scipy.sparse.linalg``).

``spsolve`` takes a constant SciPy sparse matrix and a traced right-hand side: the solve
runs SciPy's sparse factorization on plain arrays (``ft.pure_callback``), and is
differentiated implicitly (``ft.custom_linear_solve``): the tangent is a solve with the
same matrix, the cotangent one with its transpose, so ``grad``, ``jvp``, ``vmap`` and
``jit`` of an implicit time step (``spsolve(I - dt L, u)``) cost solves, not a dense
inverse.

``cg`` (symmetric positive definite ``A``) and ``bicgstab`` (general ``A``) take ``A`` as
an array, a SciPy sparse matrix, a function ``x -> A x``, or an object with ``matvec``,
and return ``(x, info)`` as SciPy does (``info`` 0 when converged, else the iterations
made).  The iterations run
in :func:`ftransforms.while_loop` (rows of a ``vmap`` stop on their own), and the result is
differentiated implicitly through :func:`ftransforms.custom_linear_solve`: the derivative
solves with ``A`` again (``cg``) or with ``A``'s transpose (``bicgstab``), never by
differentiating the iterations.

Example:
    >>> import numpy as np
    >>> from ftransforms import grad
    >>> from ftransforms.scipy.sparse.linalg import cg
    >>> A = np.array([[4.0, 1.0], [1.0, 3.0]])
    >>> x, info = cg(A, np.array([1.0, 2.0]), rtol=1e-12)
    >>> x.round(6).tolist(), int(info)
    ([0.090909, 0.636364], 0)
    >>> grad(lambda b: cg(A, b, rtol=1e-12)[0].sum())(np.ones(2)).round(6).tolist()
    [0.181818, 0.272727]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.callbacks import pure_callback
from ftransforms.control import while_loop
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.implicit import custom_linear_solve
from ftransforms.numpy.helpers import dtype_of
from ftransforms.numpy.sparse_operands import scipy_sparse_kind, sparse_matmul
from ftransforms.scipy.sparse.gmres import gmres
from ftransforms.shape_eval import ShapeDtypeStruct

__all__ = ["bicgstab", "cg", "gmres", "spsolve"]


def _operator(A: Any, where: str, what: str = "A") -> Callable:
    if A is None:
        return lambda v: v
    if scipy_sparse_kind(A) is not None:
        return lambda v: sparse_matmul(A, v)
    if hasattr(A, "matvec") and not hasattr(A, "__array__"):
        return A.matvec
    if callable(A) and not hasattr(A, "shape"):
        return A
    if hasattr(A, "shape"):
        return lambda v: fnp.matmul(A, v)
    raise TypeError(f"{where}: {what} must be an array, a function x -> {what} x, or have matvec")


def _dot(a: Any, b: Any) -> Any:
    return fnp.sum(fnp.conj(a) * b)


def _norm(v: Any) -> Any:
    return fnp.sqrt(fnp.real(_dot(v, v)))


def _checks(b: Any, callback: Any, where: str) -> Any:
    if callback is not None:
        raise UnsupportedOperationError(
            f"ftransforms.scipy.sparse.linalg.{where}(callback=...): the iterations run in "
            f"ft.while_loop, which calls no Python per step; leave callback=None"
        )
    b = fnp.asarray(b)
    if fnp.ndim(b) != 1:
        raise ValueError(f"{where}: b must be a vector, got shape {fnp.shape(b)}")
    return b.astype(fnp.float64) if b.dtype.kind in "biu" else b


def _cg_steps(matvec, precond, b, x0, rtol, atol, maxiter):
    """Preconditioned conjugate gradients; returns ``(x, iterations, converged)``."""
    tol = fnp.maximum(atol, rtol * _norm(b))
    r = b - matvec(x0)
    z = precond(r)
    init = (x0, r, z, _dot(r, z), 0)

    def going(carry):
        _, r, _, _, k = carry
        return (k < maxiter) & (_norm(r) > tol)

    def step(carry):
        x, r, p, rz, k = carry
        ap = matvec(p)
        alpha = rz / _dot(p, ap)
        x, r = x + alpha * p, r - alpha * ap
        z = precond(r)
        rz_new = _dot(r, z)
        return x, r, z + (rz_new / rz) * p, rz_new, k + 1

    x, r, _, _, k = while_loop(going, step, init)
    return x, k, _norm(r) <= tol


def _bicgstab_steps(matvec, precond, b, x0, rtol, atol, maxiter):
    """Preconditioned BiCGSTAB; returns ``(x, iterations, converged)``."""
    tol = fnp.maximum(atol, rtol * _norm(b))
    r = b - matvec(x0)
    one = fnp.ones((), dtype=r.dtype)
    zeros = fnp.zeros_like(r)
    init = (x0, r, zeros, zeros, one, one, one, 0)
    rhat = r

    def going(carry):
        r, k = carry[1], carry[-1]
        return (k < maxiter) & (_norm(r) > tol)

    def step(carry):
        x, r, p, v, rho_prev, alpha, omega, k = carry
        rho = _dot(rhat, r)
        p = r + (rho / rho_prev) * (alpha / omega) * (p - omega * v)
        phat = precond(p)
        v = matvec(phat)
        alpha = rho / _dot(rhat, v)
        s = r - alpha * v
        shat = precond(s)
        t = matvec(shat)
        tt = fnp.real(_dot(t, t))
        omega = fnp.where(tt > 0, _dot(t, s) / fnp.where(tt > 0, tt, 1.0), 0.0 * one)
        x = x + alpha * phat + omega * shat
        return x, s - omega * t, p, v, rho, alpha, fnp.where(tt > 0, omega, one), k + 1

    out = while_loop(going, step, init)
    return out[0], out[-1], _norm(out[1]) <= tol


def _jax_tol(tol: float | None, rtol: float, name: str) -> float:
    """``rtol``, or JAX's ``tol`` (its name for it, SciPy's before 1.14) when given."""
    if tol is None:
        return rtol
    if rtol != 1e-5:
        raise TypeError(f"{name}: got both tol={tol!r} (JAX's name) and rtol={rtol!r}; pass one")
    return tol


def _krylov(steps, name, A, b, x0, rtol, atol, maxiter, M, callback, symmetric):
    b = _checks(b, callback, name)
    matvec = _operator(A, name)
    precond = _operator(M, name, "M")
    n = fnp.shape(b)[0]
    maxiter = 10 * n if maxiter is None else int(maxiter)
    start = fnp.zeros_like(b) if x0 is None else fnp.asarray(x0).astype(b.dtype)

    def solve(mv, rhs):
        x, k, converged = steps(mv, precond, rhs, start, rtol, atol, maxiter)
        return x, fnp.where(converged, 0, k)

    def transpose_solve(vm, rhs):  # with has_aux, (x, aux) as from solve
        x, k, converged = steps(vm, precond, rhs, fnp.zeros_like(rhs), rtol, atol, maxiter)
        return x, fnp.where(converged, 0, k)

    x, info = custom_linear_solve(
        matvec,
        b,
        solve,
        transpose_solve=None if symmetric else transpose_solve,
        symmetric=symmetric,
        has_aux=True,
    )
    return x, info


def cg(
    A: Any,
    b: Any,
    x0: Any = None,
    *,
    rtol: float = 1e-5,
    atol: float = 0.0,
    maxiter: int | None = None,
    M: Any = None,
    callback: Any = None,
    tol: float | None = None,
) -> tuple[Any, Any]:
    """``scipy.sparse.linalg.cg``: conjugate gradients for ``A x = b`` (``A`` symmetric
    positive definite), stopping when ``|r| <= max(atol, rtol |b|)``; ``M`` preconditions.
    ``tol`` is ``rtol`` under JAX's name (``jax.scipy.sparse.linalg.cg``'s keyword).

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.sparse.linalg import cg
        >>> x, info = cg(lambda v: 2.0 * v, np.array([2.0, 4.0]))
        >>> x.tolist(), int(info)
        ([1.0, 2.0], 0)
    """
    rtol = _jax_tol(tol, rtol, "cg")
    return _krylov(_cg_steps, "cg", A, b, x0, rtol, atol, maxiter, M, callback, True)


def bicgstab(
    A: Any,
    b: Any,
    x0: Any = None,
    *,
    rtol: float = 1e-5,
    atol: float = 0.0,
    maxiter: int | None = None,
    M: Any = None,
    callback: Any = None,
    tol: float | None = None,
) -> tuple[Any, Any]:
    """``scipy.sparse.linalg.bicgstab``: BiCGSTAB for a general ``A x = b`` (``tol`` is
    ``rtol`` under JAX's name).

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.sparse.linalg import bicgstab
        >>> A = np.array([[3.0, 1.0], [-1.0, 2.0]])
        >>> x, info = bicgstab(A, np.array([4.0, 1.0]), rtol=1e-12)
        >>> x.round(6).tolist(), int(info)
        ([1.0, 1.0], 0)
    """
    rtol = _jax_tol(tol, rtol, "bicgstab")
    return _krylov(_bicgstab_steps, "bicgstab", A, b, x0, rtol, atol, maxiter, M, callback, False)


def _host_solver(matrix: Any, core_ndim: int, dtype: Any):
    """``solve(matvec, r)`` for ``custom_linear_solve``: SciPy's ``spsolve`` with
    ``matrix`` on plain arrays, any leading batch axes of ``r`` folded into columns."""
    from scipy.sparse.linalg import spsolve as scipy_spsolve  # noqa: PLC0415  late import: SciPy is optional

    def run(r: Any) -> Any:
        r = numpy.asarray(r)
        core = r.shape[r.ndim - core_ndim :]  # (n,) or (n, k); the batch axes lead
        batched = r.reshape((-1,) + core)
        cols = numpy.moveaxis(batched, 0, -1).reshape(core[0], -1)  # (n, k * batch)
        x = numpy.asarray(scipy_spsolve(matrix, cols)).reshape(cols.shape)
        x = numpy.moveaxis(x.reshape(core + (batched.shape[0],)), -1, 0)
        return x.reshape(r.shape).astype(dtype)

    def solve(matvec: Any, r: Any) -> Any:
        out = ShapeDtypeStruct(fnp.shape(r), dtype)
        return pure_callback(run, out, r, vmap_method="broadcast_all")

    return solve


def spsolve(A: Any, b: Any, permc_spec: Any = None, use_umfpack: bool = True) -> Any:  # noqa: N803
    """``scipy.sparse.linalg.spsolve``: ``x`` with ``A @ x = b`` for a constant sparse
    square ``A`` and ``b`` of shape ``(n,)`` or ``(n, k)`` (traced or not); see the module
    docstring.  ``permc_spec`` and ``use_umfpack`` are SciPy's solver settings.

    Example:
        >>> import numpy as np
        >>> import scipy.sparse
        >>> A = scipy.sparse.csc_matrix(np.array([[2.0, 0.0], [1.0, 1.0]]))
        >>> spsolve(A, np.array([2.0, 3.0])).tolist()
        [1.0, 2.0]
    """
    where = "spsolve(A, b)"
    if scipy_sparse_kind(A) is None:
        raise TypeError(
            f"{where}: A must be a scipy.sparse matrix (a constant), got {type(A).__name__}; "
            f"for a dense or traced matrix use ftransforms.numpy.linalg.solve"
        )
    n, m = A.shape
    if n != m:
        raise ValueError(f"{where}: A must be square, got shape {A.shape}")
    b = b if hasattr(b, "dtype") else fnp.asarray(b)
    if fnp.ndim(b) not in (1, 2) or fnp.shape(b)[0] != n:
        raise ValueError(f"{where}: b must have shape ({n},) or ({n}, k), got {fnp.shape(b)}")
    dtype = numpy.result_type(A.dtype, dtype_of(b), numpy.float32)
    if dtype_of(b) != dtype:
        b = fnp.astype(b, dtype)
    csc = A.tocsc()
    core = fnp.ndim(b)
    return custom_linear_solve(
        lambda x: sparse_matmul(csc, x),
        b,
        solve=_host_solver(csc, core, dtype),
        transpose_solve=_host_solver(csc.T.tocsc(), core, dtype),
    )
