"""``gmres`` of ``ftransforms.scipy.sparse.linalg``: restarted GMRES for a general
``A x = b`` (``scipy.sparse.linalg.gmres``, ``jax.scipy.sparse.linalg.gmres``).

Each cycle builds an Arnoldi basis of ``restart`` vectors of the right-preconditioned
operator ``A M`` from the current residual (modified Gram-Schmidt; a breakdown gives a
zero vector and a zero column), solves the small least-squares problem
``min |beta e1 - H y|`` by QR and updates ``x += M V y``.  Cycles run
in :func:`ftransforms.while_loop` until ``|b - A x| <= max(atol, rtol |b|)`` or
``maxiter`` cycles, and the solution is differentiated implicitly, through
``custom_linear_solve`` as ``cg``'s and ``bicgstab``'s are (the cotangent solves with
``A``'s transpose).

Example:
    >>> import numpy as np
    >>> from ftransforms.scipy.sparse.linalg import gmres
    >>> A = np.array([[3.0, 1.0], [-1.0, 2.0]])
    >>> x, info = gmres(A, np.array([4.0, 1.0]), rtol=1e-12)
    >>> x.round(6).tolist(), int(info)
    ([1.0, 1.0], 0)
"""

from __future__ import annotations

import functools
from typing import Any

import ftransforms.numpy as fnp
from ftransforms.control import while_loop
from ftransforms.scipy.linalg import solve_triangular

__all__ = ["gmres"]


def _dot(a: Any, b: Any) -> Any:
    return fnp.sum(fnp.conj(a) * b)


def _norm(v: Any) -> Any:
    return fnp.sqrt(fnp.real(_dot(v, v)))


def _unit(v: Any, norm: Any) -> Any:
    """``v / norm``, the zero vector where ``norm`` vanishes (a breakdown)."""
    ok = norm > 0
    return fnp.where(ok, v / fnp.where(ok, norm, 1.0), 0.0 * v)


def _least_squares(H: Any, rhs: Any) -> Any:
    """``argmin |rhs - H y|`` for the Hessenberg ``H``: by QR, where a breakdown (its
    columns after it are zero) leaves zeros on ``R``'s diagonal: those entries of ``y``
    are 0, the equations before them do not involve them."""
    q, r = fnp.linalg.qr(H)
    c = fnp.matmul(fnp.conj(fnp.transpose(q)), rhs)
    diag = fnp.abs(fnp.diagonal(r))
    dead = diag <= 1e-14 * fnp.max(diag)
    r = r + fnp.diag(fnp.where(dead, 1.0, 0.0).astype(r.dtype))
    return solve_triangular(r, fnp.where(dead, 0.0, c).astype(r.dtype))


def _cycle(matvec: Any, precond: Any, b: Any, x: Any, restart: int) -> Any:
    """One GMRES cycle of ``restart`` Arnoldi steps from ``x``."""
    r = b - matvec(x)
    beta = _norm(r)
    basis = [_unit(r, beta)]
    columns = []
    for j in range(restart):
        w = matvec(precond(basis[j]))
        col = []
        for v in basis:  # modified Gram-Schmidt
            h = _dot(v, w)
            w = w - h * v
            col.append(h)
        hn = _norm(w)
        col.append(hn.astype(w.dtype))
        col += [fnp.zeros((), dtype=w.dtype)] * (restart - j - 1)
        columns.append(fnp.stack(col))
        basis.append(_unit(w, hn))
    H = fnp.stack(columns, axis=1)  # (restart + 1, restart)
    e1 = fnp.zeros(restart + 1, dtype=H.dtype)
    rhs = fnp.where(fnp.arange(restart + 1) == 0, beta.astype(H.dtype), e1)
    y = _least_squares(H, rhs)
    V = fnp.stack(basis[:restart], axis=1)  # (n, restart)
    return x + precond(fnp.matmul(V, y))


def _gmres_steps(matvec, precond, b, x0, rtol, atol, maxiter, *, restart):
    """Restarted GMRES; returns ``(x, cycles, converged)``."""
    tol = fnp.maximum(atol, rtol * _norm(b))

    def going(carry):
        x, k = carry
        return (k < maxiter) & (_norm(b - matvec(x)) > tol)

    def step(carry):
        x, k = carry
        return _cycle(matvec, precond, b, x, restart), k + 1

    x, k = while_loop(going, step, (x0, 0))
    return x, k, _norm(b - matvec(x)) <= tol


def gmres(
    A: Any,
    b: Any,
    x0: Any = None,
    *,
    rtol: float = 1e-5,
    atol: float = 0.0,
    restart: int | None = None,
    maxiter: int | None = None,
    M: Any = None,
    callback: Any = None,
    callback_type: Any = None,
    tol: float | None = None,
    solve_method: str = "batched",
) -> tuple[Any, Any]:
    """``scipy.sparse.linalg.gmres``: restarted GMRES for ``A x = b`` (``A`` any square
    operator: an array, a SciPy sparse matrix, a function ``x -> A x`` or an object with
    ``matvec``), stopping when ``|b - A x| <= max(atol, rtol |b|)``; ``restart`` Arnoldi
    vectors per cycle (20, at most ``n``), ``maxiter`` cycles (``10 n``), ``M`` a right
    preconditioner approximating ``A``'s inverse.  Returns ``(x, info)``, ``info`` 0 when
    converged, else the cycles made.  JAX's spellings are accepted too: ``tol`` for
    ``rtol`` and ``solve_method`` ('batched' or 'incremental': the same solution here).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> A = np.array([[2.0, 1.0, 0.0], [0.0, 3.0, 1.0], [1.0, 0.0, 4.0]])
        >>> x, info = gmres(A, np.ones(3), rtol=1e-12)
        >>> bool(np.allclose(A @ x, 1.0)), int(info)
        (True, 0)
        >>> g = ft.grad(lambda b: gmres(A, b, rtol=1e-12)[0].sum())(np.ones(3))
        >>> bool(np.allclose(g, np.linalg.solve(A.T, np.ones(3))))
        True
    """
    from ftransforms.scipy.sparse.linalg import _krylov  # noqa: PLC0415  # late import: sparse.linalg imports this module

    if solve_method not in ("batched", "incremental"):
        raise ValueError(
            f"gmres(solve_method={solve_method!r}): solve_method must be 'batched' or 'incremental'"
        )
    if callback_type not in (None, "x", "pr_norm", "legacy"):
        raise ValueError(f"gmres(callback_type={callback_type!r}): unknown callback type")
    if tol is not None:
        rtol = tol
    n = fnp.shape(fnp.asarray(b))[0] if fnp.ndim(fnp.asarray(b)) >= 1 else 1
    restart = min(20 if restart is None else int(restart), max(n, 1))
    if restart < 1:
        raise ValueError(f"gmres: restart must be a positive integer, got {restart}")
    steps = functools.partial(_gmres_steps, restart=restart)
    return _krylov(steps, "gmres", A, b, x0, rtol, atol, maxiter, M, callback, False)
