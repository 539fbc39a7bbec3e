"""``scipy.optimize.linear_sum_assignment`` and ``nnls`` on traced arrays.

The assignment is a choice made by comparisons: SciPy's own solver makes it on the cost
matrix's values (read as in NOTE [root finders on traced parameters]: under ``vmap``
each row alone, under ``jit`` eagerly) and returns its index arrays, so the optimal
cost ``C[rows, cols].sum()`` differentiates through the indexing.  ``nnls`` is SciPy's
solution; its derivative is that of the least-squares solution on SciPy's passive set
(the coordinates that are positive; the others stay 0), ``(A_PᵀA_P)⁻¹A_Pᵀb``, and
``rnorm`` is ``‖Ax - b‖`` at it.  ``lsq_linear`` is the same with SciPy's active set
(the coordinates on a bound stay there).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> C = np.array([[4.0, 1.0], [2.0, 3.0]])
    >>> ft.grad(lambda C: C[linear_sum_assignment(C)].sum())(C).tolist()
    [[0.0, 1.0], [1.0, 0.0]]
"""

from __future__ import annotations

from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.scipy.roots import _host, _scipy_optimize

__all__ = ["linear_sum_assignment", "lsq_linear", "nnls"]


def _theirs(name: str) -> Any:
    fn = getattr(_scipy_optimize(), name)
    return getattr(fn, "__wrapped__", fn)  # SciPy's own, not the wrapper that sent it here


def linear_sum_assignment(cost_matrix: Any, maximize: bool = False) -> tuple:
    """``scipy.optimize.linear_sum_assignment``: SciPy's ``(row_ind, col_ind)`` for the
    values of ``cost_matrix`` (index arrays: index the traced matrix with them for a
    differentiable optimal cost).

    Example:
        >>> import numpy as np
        >>> [i.tolist() for i in linear_sum_assignment(np.array([[4.0, 1.0], [2.0, 3.0]]))]
        [[0, 1], [1, 0]]
    """
    return _theirs("linear_sum_assignment")(_host(cost_matrix), maximize=maximize)


def _on_free_set(A: Any, b: Any, x_plain: numpy.ndarray, free: numpy.ndarray) -> Any:
    """SciPy's solution ``x_plain`` with the derivative of the least-squares solution on
    the ``free`` coordinates (the others held)."""
    A, b = fnp.asarray(A), fnp.asarray(b)
    x = fnp.zeros(x_plain.shape, dtype=fnp.result_type(A, b, float)) + x_plain
    if free.size:
        held = numpy.setdiff1d(numpy.arange(x_plain.shape[0]), free)
        rhs = b - fnp.matmul(fnp.take(A, held, axis=1), fnp.take(x, held)) if held.size else b
        a_f = fnp.take(A, free, axis=1)
        formula = fnp.linalg.solve(fnp.matmul(a_f.T, a_f), fnp.matmul(a_f.T, rhs))
        x = fnp.at(x)[free].add(formula - fnp.stop_gradient(formula))
    return x


def lsq_linear(
    A: Any,
    b: Any,
    bounds: Any = (-numpy.inf, numpy.inf),
    method: str = "trf",
    tol: float = 1e-10,
    lsq_solver: Any = None,
    lsmr_tol: Any = None,
    max_iter: Any = None,
    verbose: int = 0,
    *,
    lsmr_maxiter: Any = None,
) -> Any:
    """``scipy.optimize.lsq_linear``: SciPy's result whose ``x`` (and ``fun``, ``cost``)
    is differentiable in ``A`` and ``b`` on SciPy's active set (module docstring).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> A = np.array([[1.0, 0.0], [0.0, 1.0]])
        >>> fit = lambda b: lsq_linear(A, b, bounds=(0.0, 1.0)).x
        >>> ft.jacrev(fit)(np.array([0.5, 2.0])).tolist()  # the second held at its bound
        [[1.0, 0.0], [0.0, 0.0]]
    """
    plain_bounds = tuple(_host(v) for v in bounds) if isinstance(bounds, tuple) else bounds
    res = _theirs("lsq_linear")(
        _host(A), _host(b), bounds=plain_bounds, method=method, tol=tol, lsq_solver=lsq_solver,
        lsmr_tol=lsmr_tol, max_iter=max_iter, verbose=verbose, lsmr_maxiter=lsmr_maxiter,
    )  # fmt: skip
    x = _on_free_set(A, b, res.x, numpy.flatnonzero(res.active_mask == 0))
    res.x = x
    res.fun = fnp.matmul(fnp.asarray(A), x) - fnp.asarray(b)
    res.cost = 0.5 * fnp.sum(res.fun * res.fun)
    return res


def nnls(A: Any, b: Any, maxiter: Any = None, *, atol: Any = None) -> tuple:
    """``scipy.optimize.nnls``: SciPy's ``(x, rnorm)``, differentiable in ``A`` and ``b``
    on SciPy's passive set (module docstring).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> A = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
        >>> ft.jacrev(lambda b: nnls(A, b)[0])(np.array([1.0, -1.0, 0.0])).tolist()
        [[0.5, 0.0, 0.5], [0.0, 0.0, 0.0]]
    """
    x_plain, _ = _theirs("nnls")(_host(A), _host(b), maxiter=maxiter, atol=atol)
    x = _on_free_set(A, b, x_plain, numpy.flatnonzero(x_plain > 0))
    r = fnp.matmul(fnp.asarray(A), x) - fnp.asarray(b)
    return x, fnp.sqrt(fnp.sum(r * r))
