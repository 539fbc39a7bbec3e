"""``scipy.optimize.linear_sum_assignment`` and ``nnls`` on traced arrays.

The assignment is a choice made by comparisons: SciPy's own solver makes it on the cost
matrix's values (read as in NOTE [root finders on traced parameters]: under ``vmap``
each row alone, under ``jit`` eagerly) and returns its index arrays, so the optimal
cost ``C[rows, cols].sum()`` differentiates through the indexing.  ``nnls`` is SciPy's
solution; its derivative is that of the least-squares solution on SciPy's passive set
(the coordinates that are positive; the others stay 0), ``(A_PᵀA_P)⁻¹A_Pᵀb``, and
``rnorm`` is ``‖Ax - b‖`` at it.

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

__all__ = ["linear_sum_assignment", "nnls"]


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


def nnls(A: Any, b: Any, maxiter: Any = None, *, atol: Any = None) -> tuple:
    """``scipy.optimize.nnls``: SciPy's ``(x, rnorm)``, differentiable in ``A`` and ``b``
    on SciPy's passive set (module docstring).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> A = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
        >>> ft.jacrev(lambda b: nnls(A, b)[0])(np.array([1.0, -1.0, 0.0])).tolist()
        [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    """
    x_plain, _ = _theirs("nnls")(_host(A), _host(b), maxiter=maxiter, atol=atol)
    A, b = fnp.asarray(A), fnp.asarray(b)
    passive = numpy.flatnonzero(x_plain > 0)
    x = fnp.zeros(x_plain.shape, dtype=fnp.result_type(A, b, float)) + x_plain
    if passive.size:
        a_p = fnp.take(A, passive, axis=1)
        formula = fnp.linalg.solve(fnp.matmul(a_p.T, a_p), fnp.matmul(a_p.T, b))
        x = fnp.at(x)[passive].add(formula - fnp.stop_gradient(formula))
    r = fnp.matmul(A, x) - b
    return x, fnp.sqrt(fnp.sum(r * r))
