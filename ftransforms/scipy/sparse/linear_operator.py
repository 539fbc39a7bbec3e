"""``scipy.sparse.linalg.LinearOperator`` applied to traced vectors and matrices.

SciPy's ``LinearOperator.matvec``/``matmat``/``dot`` (and so ``A @ x``, ``A * x``,
``A(x)``, ``A.T @ x``) convert their operand with ``numpy.asarray`` before calling the
operator's own ``_matvec``/``_matmat``, which a tracer cannot pass.  The operator
itself (a matrix's ``dot``, a sparse matrix, the user's ``matvec`` function) mostly
computes on tracers, so these are SciPy's shape checks and reshapes around the
operator's own methods, without the conversion; SciPy's methods answer traced operands
with them (NOTE [SciPy's own names under the transforms]).  ``cg``/``bicgstab`` given
a ``LinearOperator`` call its ``matvec`` on traced iterates.

Example:
    >>> import numpy as np
    >>> import scipy.sparse.linalg
    >>> import ftransforms as ft
    >>> op = scipy.sparse.linalg.aslinearoperator(np.array([[2.0, 0.0], [1.0, 1.0]]))
    >>> ft.grad(lambda x: (op @ x).sum())(np.ones(2)).tolist()  # the column sums
    [3.0, 1.0]
"""

from __future__ import annotations

from typing import Any

import numpy

import ftransforms.numpy as fnp

__all__ = ["traced_dot", "traced_matmat", "traced_matvec", "traced_rmatmat", "traced_rmatvec"]


def _dense(op: Any) -> Any:
    """The NumPy matrix of ``aslinearoperator(ndarray)`` (and of its adjoint), whose own
    ``_matmat`` is ``ndarray.dot``, a C method that takes no tracer; else None."""
    if type(op).__name__ in ("MatrixLinearOperator", "_AdjointMatrixOperator"):
        A = getattr(op, "A", None)
        if type(A) is numpy.ndarray:
            return A
    return None


def _mismatch(op: Any, what: str, shape: tuple) -> ValueError:
    return ValueError(
        f"{type(op).__name__}.{what}: dimension mismatch, operand shape {shape} for "
        f"operator shape {op.shape}"
    )


def traced_matvec(op: Any, x: Any) -> Any:
    """``op.matvec(x)`` for a traced ``x`` of shape ``(N,)`` or ``(N, 1)``.

    Example:
        >>> import numpy as np
        >>> import scipy.sparse.linalg
        >>> op = scipy.sparse.linalg.aslinearoperator(np.eye(2))
        >>> traced_matvec(op, np.ones(2)).tolist()
        [1.0, 1.0]
    """
    m, n = op.shape
    shape = tuple(fnp.shape(x))
    if shape not in ((n,), (n, 1)):
        raise _mismatch(op, "matvec", shape)
    dense = _dense(op)
    y = fnp.asarray(op._matvec(x) if dense is None else fnp.matmul(dense, x))
    return fnp.reshape(y, (m,) if len(shape) == 1 else (m, 1))


def traced_rmatvec(op: Any, x: Any) -> Any:
    """``op.rmatvec(x)`` (the adjoint's product) for a traced ``x``.

    Example:
        >>> import numpy as np
        >>> import scipy.sparse.linalg
        >>> op = scipy.sparse.linalg.aslinearoperator(np.array([[1.0, 2.0]]))
        >>> traced_rmatvec(op, np.ones(1)).tolist()
        [1.0, 2.0]
    """
    m, n = op.shape
    shape = tuple(fnp.shape(x))
    if shape not in ((m,), (m, 1)):
        raise _mismatch(op, "rmatvec", shape)
    y = fnp.asarray(op._rmatvec(x))
    return fnp.reshape(y, (n,) if len(shape) == 1 else (n, 1))


def traced_matmat(op: Any, X: Any) -> Any:
    """``op.matmat(X)`` for a traced 2-D ``X``.

    Example:
        >>> import numpy as np
        >>> import scipy.sparse.linalg
        >>> op = scipy.sparse.linalg.aslinearoperator(2 * np.eye(2))
        >>> traced_matmat(op, np.ones((2, 1))).tolist()
        [[2.0], [2.0]]
    """
    shape = tuple(fnp.shape(X))
    if len(shape) != 2 or shape[0] != op.shape[1]:
        raise _mismatch(op, "matmat", shape)
    dense = _dense(op)
    return fnp.asarray(op._matmat(X) if dense is None else fnp.matmul(dense, X))


def traced_rmatmat(op: Any, X: Any) -> Any:
    """``op.rmatmat(X)`` for a traced 2-D ``X``.

    Example:
        >>> import numpy as np
        >>> import scipy.sparse.linalg
        >>> op = scipy.sparse.linalg.aslinearoperator(np.array([[1.0, 2.0]]))
        >>> traced_rmatmat(op, np.ones((1, 1))).tolist()
        [[1.0], [2.0]]
    """
    shape = tuple(fnp.shape(X))
    if len(shape) != 2 or shape[0] != op.shape[0]:
        raise _mismatch(op, "rmatmat", shape)
    return fnp.asarray(op._rmatmat(X))


def traced_dot(op: Any, x: Any) -> Any:
    """``op.dot(x)`` (``op @ x``, ``op * x``, ``op(x)``) for a traced vector or matrix.

    Example:
        >>> import numpy as np
        >>> import scipy.sparse.linalg
        >>> op = scipy.sparse.linalg.aslinearoperator(2 * np.eye(2))
        >>> traced_dot(op, np.ones(2)).tolist()
        [2.0, 2.0]
    """
    nd = fnp.ndim(x)
    if nd == 1 or (nd == 2 and fnp.shape(x)[1] == 1):
        return op.matvec(x)
    if nd == 2:
        return op.matmat(x)
    raise ValueError(
        f"{type(op).__name__}.dot: expected a 1-d or 2-d array, got shape {fnp.shape(x)}"
    )
