"""``scipy.linalg``'s Lyapunov and Riccati solvers on tracers (re-exported by
``ftransforms.scipy.linalg``).

NOTE [Riccati solutions by Newton steps]: the Lyapunov equations are linear in ``X``:
they are solved in their Kronecker form (``sum_i P_i X Q_i = R`` is
``(sum_i Q_i^T (x) P_i) vec(X) = vec(R)``, ``O(n^6)``: small matrices), so values and
every derivative are those of a linear solve.  The algebraic Riccati equations
``F(X, p) = 0`` are not: SciPy solves them on the host (``pure_callback`` on the
stop-gradient data, one call per ``vmap`` row), and two Newton steps
``X <- X - J_X^-1 F(X, p)`` follow in ``fnp`` operations, where ``J_X`` (the derivative
in ``X``) is a Lyapunov operator of the closed-loop matrix.  At the solution a Newton step
leaves the value alone (to rounding) and its derivative in ``p`` is that of the implicit
function, ``-J_X^-1 F_p``; Newton's map has zero derivative in ``X`` at the solution, so
``k`` steps give the exact derivatives up to order ``k``: two steps give exact gradients,
Jacobians and Hessians.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> from ftransforms.scipy.linalg import solve_continuous_lyapunov
    >>> a = np.array([[-2.0, 0.0], [0.0, -1.0]])
    >>> solve_continuous_lyapunov(a, -np.eye(2)).round(12).tolist()
    [[0.25, 0.0], [0.0, 0.5]]
"""

from __future__ import annotations

from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.callbacks import pure_callback
from ftransforms.numpy.helpers import dtype_of
from ftransforms.numpy.ufuncs import float_input
from ftransforms.shape_eval import ShapeDtypeStruct

__all__ = [
    "solve_continuous_are",
    "solve_continuous_lyapunov",
    "solve_discrete_are",
    "solve_discrete_lyapunov",
]


def _arr(x: Any) -> Any:
    return float_input(x if hasattr(x, "dtype") else fnp.asarray(x), None)


def _square(x: Any, where: str, name: str) -> Any:
    x = _arr(x)
    s = fnp.shape(x)
    if len(s) != 2 or s[0] != s[1]:
        raise ValueError(f"{where}: {name} must be a square matrix, got shape {s}")
    return x


def _mH(x: Any) -> Any:  # noqa: N802
    return fnp.conj(fnp.swapaxes(x, -1, -2))


def _solve_terms(terms: list[tuple[Any, Any]], rhs: Any) -> Any:
    """``X`` with ``sum_i P_i X Q_i = rhs`` (NOTE [Riccati solutions by Newton steps]):
    column-major ``vec(P X Q) = (Q^T (x) P) vec(X)``."""
    m, n = fnp.shape(rhs)[-2:]
    big = None
    for p, q in terms:
        qt = fnp.swapaxes(q, -1, -2)  # [j, l]
        block = fnp.reshape(qt[:, None, :, None] * p[None, :, None, :], (n * m, n * m))
        big = block if big is None else big + block
    x = fnp.linalg.solve(big, fnp.reshape(fnp.swapaxes(rhs, -1, -2), (n * m,)))
    return fnp.swapaxes(fnp.reshape(x, (n, m)), -1, -2)


def _eye(n: int, like: Any, dtype: Any) -> Any:
    return fnp.eye(n, dtype=dtype, like=like)


def solve_continuous_lyapunov(a: Any, q: Any) -> Any:
    """``scipy.linalg.solve_continuous_lyapunov``: ``X`` with ``A X + X A^H = Q``
    (Kronecker form: small matrices; every derivative is that of the linear solve).

    Example:
        >>> import numpy as np
        >>> a = np.array([[-1.0, 1.0], [0.0, -2.0]])
        >>> x = solve_continuous_lyapunov(a, -np.eye(2))
        >>> bool(np.allclose(a @ x + x @ a.T, -np.eye(2)))
        True
    """
    where = "solve_continuous_lyapunov(a, q)"
    a = _square(a, where, "a")
    q = _square(q, where, "q")
    _same_size(a, q, where)
    n = fnp.shape(a)[0]
    eye = _eye(n, a, fnp.result_type(a, q))
    return _solve_terms([(a, eye), (eye, _mH(a))], q)


def _same_size(a: Any, q: Any, where: str) -> None:
    if fnp.shape(a) != fnp.shape(q):
        raise ValueError(
            f"{where}: a and q must have the same shape, got {fnp.shape(a)} and {fnp.shape(q)}"
        )


def solve_discrete_lyapunov(a: Any, q: Any, method: Any = None) -> Any:
    """``scipy.linalg.solve_discrete_lyapunov``: ``X`` with ``A X A^H - X + Q = 0``
    (Kronecker form for every ``method``: 'direct' and 'bilinear' give the same ``X``).

    Example:
        >>> import numpy as np
        >>> x = solve_discrete_lyapunov(np.diag([0.5, 0.0]), np.eye(2))
        >>> x.round(12).tolist()
        [[1.333333333333, 0.0], [0.0, 1.0]]
    """
    where = "solve_discrete_lyapunov(a, q)"
    if method not in (None, "direct", "bilinear"):
        raise ValueError(f"{where}: method must be None, 'direct' or 'bilinear', got {method!r}")
    a = _square(a, where, "a")
    q = _square(q, where, "q")
    _same_size(a, q, where)
    n = fnp.shape(a)[0]
    eye = _eye(n, a, fnp.result_type(a, q))
    return _solve_terms([(eye, eye), (-a, _mH(a))], q)


def _are_inputs(where: str, a: Any, b: Any, q: Any, r: Any, e: Any, s: Any) -> tuple:
    a = _square(a, where, "a")
    n = fnp.shape(a)[0]
    b = _arr(b)
    if fnp.ndim(b) != 2 or fnp.shape(b)[0] != n:
        raise ValueError(f"{where}: b must be ({n}, m) for a {n}x{n} a, got {fnp.shape(b)}")
    m = fnp.shape(b)[1]
    q = _square(q, where, "q")
    r = _square(r, where, "r")
    if fnp.shape(q)[0] != n or fnp.shape(r)[0] != m:
        raise ValueError(
            f"{where}: q must be ({n}, {n}) and r ({m}, {m}), got {fnp.shape(q)} and {fnp.shape(r)}"
        )
    if e is not None:
        e = _square(e, where, "e")
        if fnp.shape(e)[0] != n:
            raise ValueError(f"{where}: e must be ({n}, {n}), got {fnp.shape(e)}")
    if s is not None:
        s = _arr(s)
        if fnp.shape(s) != (n, m):
            raise ValueError(f"{where}: s must be ({n}, {m}), got {fnp.shape(s)}")
    return a, b, q, r, e, s


def _host_solution(solver_name: str, args: list, balanced: bool) -> Any:
    """SciPy's solution on the stop-gradient data, one host call per ``vmap`` row."""
    present = [v is not None for v in args]
    given = [fnp.stop_gradient(v) for v in args if v is not None]
    dt = numpy.result_type(*[dtype_of(v) for v in given])
    n = fnp.shape(given[0])[0]

    def run(*vals: Any) -> numpy.ndarray:
        import scipy.linalg  # a host callback: SciPy is needed only here

        it = iter(vals)
        full = [next(it) if p else None for p in present]
        a, b, q, r, e, s = full
        out = getattr(scipy.linalg, solver_name)(a, b, q, r, e=e, s=s, balanced=balanced)
        return numpy.asarray(out, dtype=dt)

    return pure_callback(run, ShapeDtypeStruct((n, n), dt), *given, vmap_method="sequential")


def solve_continuous_are(
    a: Any,
    b: Any,
    q: Any,
    r: Any,
    e: Any = None,
    s: Any = None,
    balanced: bool = True,
) -> Any:
    """``scipy.linalg.solve_continuous_are``: the stabilizing ``X`` of
    ``A^H X E + E^H X A - (E^H X B + S) R^-1 (B^H X E + S^H) + Q = 0``.  The value is
    SciPy's; derivatives (exact to second order) come from Newton steps, each a Lyapunov
    equation with the closed-loop matrix (NOTE [Riccati solutions by Newton steps]).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> one = np.ones((1, 1))
        >>> float(solve_continuous_are(0 * one, one, one, one)[0, 0])  # X^2 = 1
        1.0
        >>> g = ft.grad(lambda q: solve_continuous_are(0 * one, one, q, one)[0, 0])(one)
        >>> g.round(12).tolist()  # X = sqrt(q): dX/dq = 1 / (2 sqrt(q))
        [[0.5]]
    """
    where = "solve_continuous_are(a, b, q, r)"
    a, b, q, r, e, s = _are_inputs(where, a, b, q, r, e, s)
    x = _host_solution("solve_continuous_are", [a, b, q, r, e, s], balanced)
    n = fnp.shape(a)[0]
    dt = fnp.result_type(a, b, q, r, *(v for v in (e, s) if v is not None))
    ee = _eye(n, a, dt) if e is None else e
    for _ in range(2):
        xe = fnp.matmul(x, ee)
        cross = fnp.matmul(_mH(b), xe) if s is None else fnp.matmul(_mH(b), xe) + _mH(s)
        k = fnp.linalg.solve(r, cross)  # R^-1 (B^H X E + S^H)
        resid = fnp.matmul(_mH(a), xe) + fnp.matmul(_mH(ee), fnp.matmul(x, a))
        resid = resid - fnp.matmul(_mH(cross), k) + q
        closed = a - fnp.matmul(b, k)
        x = x - _solve_terms([(_mH(closed), ee), (_mH(ee), closed)], resid)
    return x


def solve_discrete_are(
    a: Any,
    b: Any,
    q: Any,
    r: Any,
    e: Any = None,
    s: Any = None,
    balanced: bool = True,
) -> Any:
    """``scipy.linalg.solve_discrete_are``: the stabilizing ``X`` of
    ``A^H X A - E^H X E - (A^H X B + S) (R + B^H X B)^-1 (B^H X A + S^H) + Q = 0``.  The
    value is SciPy's; derivatives (exact to second order) come from Newton steps, each a
    Stein equation with the closed-loop matrix (NOTE [Riccati solutions by Newton steps]).

    Example:
        >>> import numpy as np
        >>> one = np.ones((1, 1))
        >>> round(float(solve_discrete_are(one, one, one, one)[0, 0]), 12)  # X^2 = X + 1
        1.61803398875
    """
    where = "solve_discrete_are(a, b, q, r)"
    a, b, q, r, e, s = _are_inputs(where, a, b, q, r, e, s)
    x = _host_solution("solve_discrete_are", [a, b, q, r, e, s], balanced)
    n = fnp.shape(a)[0]
    dt = fnp.result_type(a, b, q, r, *(v for v in (e, s) if v is not None))
    ee = _eye(n, a, dt) if e is None else e
    for _ in range(2):
        xb = fnp.matmul(x, b)
        g = r + fnp.matmul(_mH(b), xb)
        cross = fnp.matmul(_mH(xb), a) if s is None else fnp.matmul(_mH(xb), a) + _mH(s)
        k = fnp.linalg.solve(g, cross)  # (R + B^H X B)^-1 (B^H X A + S^H)
        resid = fnp.matmul(_mH(a), fnp.matmul(x, a)) - fnp.matmul(_mH(ee), fnp.matmul(x, ee))
        resid = resid - fnp.matmul(_mH(cross), k) + q
        closed = a - fnp.matmul(b, k)
        x = x - _solve_terms([(_mH(closed), closed), (-_mH(ee), ee)], resid)
    return x
