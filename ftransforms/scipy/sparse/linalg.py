"""``ftransforms.scipy.sparse.linalg``: matrix-free Krylov solvers on tracers (like
``jax.scipy.sparse.linalg``).

``cg`` (symmetric positive definite ``A``) and ``bicgstab`` (general ``A``) take ``A`` as
an array, a function ``x -> A x``, or an object with ``matvec``, and return ``(x, info)``
as SciPy does (``info`` 0 when converged, else the iterations made).  The iterations run
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
    [0.090909, 0.272727]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ftransforms.numpy as fnp
from ftransforms.control import while_loop
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.implicit import custom_linear_solve

__all__ = ["bicgstab", "cg"]


def _operator(A: Any, where: str, what: str = "A") -> Callable:
    if A is None:
        return lambda v: v
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
) -> tuple[Any, Any]:
    """``scipy.sparse.linalg.cg``: conjugate gradients for ``A x = b`` (``A`` symmetric
    positive definite), stopping when ``|r| <= max(atol, rtol |b|)``; ``M`` preconditions.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.sparse.linalg import cg
        >>> x, info = cg(lambda v: 2.0 * v, np.array([2.0, 4.0]))
        >>> x.tolist(), int(info)
        ([1.0, 2.0], 0)
    """
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
) -> tuple[Any, Any]:
    """``scipy.sparse.linalg.bicgstab``: BiCGSTAB for a general ``A x = b``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.sparse.linalg import bicgstab
        >>> A = np.array([[3.0, 1.0], [-1.0, 2.0]])
        >>> x, info = bicgstab(A, np.array([4.0, 1.0]), rtol=1e-12)
        >>> x.round(6).tolist(), int(info)
        ([1.0, 1.0], 0)
    """
    return _krylov(_bicgstab_steps, "bicgstab", A, b, x0, rtol, atol, maxiter, M, callback, False)
