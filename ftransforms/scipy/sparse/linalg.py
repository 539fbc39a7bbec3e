"""``ftransforms.scipy.sparse.linalg``: ``spsolve`` with a constant SciPy sparse matrix and
a traced right-hand side.

The solve runs SciPy's sparse factorization on plain arrays (``ft.pure_callback``), and
is differentiated implicitly (``ft.custom_linear_solve``): the tangent is a solve with
the same matrix, the cotangent one with its transpose, so ``grad``, ``jvp``, ``vmap`` and
``jit`` of an implicit time step (``spsolve(I - dt L, u)``) work and cost solves, not a
dense inverse.

Example:
    >>> import numpy as np
    >>> import scipy.sparse
    >>> import ftransforms as ft
    >>> A = scipy.sparse.diags([1.0, 2.0, 4.0]).tocsc()
    >>> ft.grad(lambda b: spsolve(A, b).sum())(np.ones(3)).tolist()  # A^-T 1
    [1.0, 0.5, 0.25]
"""

from __future__ import annotations

from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.callbacks import pure_callback
from ftransforms.implicit import custom_linear_solve
from ftransforms.numpy.helpers import dtype_of
from ftransforms.numpy.sparse_operands import scipy_sparse_kind, sparse_matmul
from ftransforms.shape_eval import ShapeDtypeStruct

__all__ = ["spsolve"]


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
