"""A SciPy sparse matrix as a constant operand of ``@`` with a traced array.

NOTE [SciPy sparse operands]: ``L @ u`` with ``L`` a ``scipy.sparse`` matrix or array
(a finite-difference Laplacian, a graph) and ``u`` traced runs ``L.__matmul__(u)``
first.  SciPy's operator dispatch converts ``u`` with ``numpy.asanyarray`` and, by
design, returns ``NotImplemented`` when that gives a 0-d object array, so that the other
operand's reflected operator runs; ``Tracer.__array__`` answers so when the caller is
that dispatch (``core/tracer.py``, which remembers the sparse class), and the tracer's
``__rmatmul__`` (and ``__rmul__`` for ``scipy.sparse``'s matrices, whose ``*`` is the
product) computes the product here,
with the matrix's nonzeros as constants: a gather of ``u``'s entries and a scatter-add
into the rows, so every transform differentiates and batches it, and the cost follows
the number of nonzeros.  ``u @ L`` is ``L.T @ u`` transposed, and ``u * L`` is that too
for a sparse matrix (elementwise, with the dense values, for a sparse array).  Any other
operation given a sparse matrix raises (``bind``'s general path refuses one), never an
array of matrices.  The checks cost nothing on the common paths: the operators look at
their operand only after the operation refused it, and the reflected ``*`` does one set
lookup of the operand's class.  A sparse matrix whose
values are traced cannot exist (SciPy stores plain arrays).
"""

from __future__ import annotations

from typing import Any

import numpy

from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.numpy.creation import zeros
from ftransforms.numpy.helpers import dtype_of, ndim, shape
from ftransforms.numpy.indexing import at, take

__all__ = ["scipy_sparse_kind", "sparse_matmul"]


def scipy_sparse_kind(x: Any) -> str | None:
    """``"matrix"`` for a ``scipy.sparse`` matrix (``*`` is its product), ``"array"`` for a
    sparse array, None for anything else (SciPy is never imported here).

    Example:
        >>> import numpy as np
        >>> scipy_sparse_kind(np.eye(2)) is None
        True
    """
    cls = type(x)
    if not cls.__module__.startswith("scipy.sparse"):
        return None
    names = {c.__name__ for c in cls.__mro__}
    if "spmatrix" in names:
        return "matrix"
    return "array" if "sparray" in names else None


def sparse_matmul(matrix: Any, x: Any) -> Any:
    """``matrix @ x`` for a 2-D ``scipy.sparse`` ``matrix`` and a (traced) vector or
    matrix ``x``, as SciPy computes it (NOTE [SciPy sparse operands]).

    Example:
        >>> import numpy as np
        >>> import scipy.sparse
        >>> import ftransforms as ft
        >>> L = scipy.sparse.diags([1.0, -2.0, 1.0], [-1, 0, 1], shape=(3, 3))
        >>> ft.grad(lambda u: (L @ u).sum())(np.ones(3))  # the column sums of L
        array([-1.,  0., -1.])
    """
    m_shape = matrix.shape
    if len(m_shape) != 2:
        raise ValueError(
            f"sparse @ x: a {len(m_shape)}-D sparse array; only 2-D sparse matrices are "
            f"supported as operands of traced arrays"
        )
    nd = ndim(x)
    if nd == 0:  # (A * s, a scipy.sparse matrix's * with a traced number)
        raise UnsupportedOperationError(
            f"sparse * x: a scipy.sparse ({m_shape[0]}, {m_shape[1]}) matrix times a traced "
            f"number would be a sparse matrix of traced values, which SciPy cannot hold; "
            f"scale the product instead: (A @ v) * s"
        )
    if nd not in (1, 2) or shape(x)[0] != m_shape[1]:
        raise ValueError(
            f"matmul: dimension mismatch: a sparse ({m_shape[0]}, {m_shape[1]}) matrix "
            f"times shape {shape(x)}"
        )
    coo = matrix.tocoo()
    rows = numpy.asarray(coo.row, dtype=numpy.intp)
    cols = numpy.asarray(coo.col, dtype=numpy.intp)
    data = numpy.asarray(coo.data)
    dtype = numpy.result_type(data.dtype, dtype_of(x))
    gathered = take(x, cols, axis=0)
    terms = gathered * (data if nd == 1 else data[:, None]).astype(dtype)
    out = zeros((m_shape[0],) + tuple(shape(x)[1:]), dtype=dtype)
    return at(out)[rows].add(terms)
