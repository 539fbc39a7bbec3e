"""Building matrices: ``diag``, ``diagflat``, ``tril``/``triu``, ``vander`` (NumPy's "Array
creation routines: building matrices").
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy

import ftransforms.numpy.creation as creation
from ftransforms.numpy.creation import as_operand, zeros
from ftransforms.numpy.dispatch import implements
from ftransforms.numpy.helpers import dtype_of, ndim, shape, xp_of
from ftransforms.numpy.indexing import diagonal, diagonal_indices, scatter, where
from ftransforms.numpy.manipulation import broadcast_to, concatenate, ravel, reshape
from ftransforms.numpy.rearranging import flip
from ftransforms.numpy.reductions import cumprod
from ftransforms.numpy.ufuncs import astype

__all__ = ["diagflat", "diag", "tril", "triu", "vander"]


@implements(numpy.diagflat)
def diagflat(v: Any, k: int = 0) -> Any:
    """``numpy.diagflat``: a 2-D array with the flattened ``v`` on the k-th diagonal.

    Example:
        >>> import numpy as np
        >>> diagflat(np.array([[1, 2]]), 1).tolist()
        [[0, 1, 0], [0, 0, 2], [0, 0, 0]]
    """
    return diag(ravel(as_operand(v)), int(k))


@implements(numpy.diag)
def diag(v: Any, k: int = 0) -> Any:
    """``numpy.diag``: the k-th diagonal of a matrix, or a matrix with ``v`` on it; other
    ranks raise ``ValueError``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> A = np.arange(1.0, 10.0).reshape(3, 3)
        >>> fnp.diag(A).tolist(), fnp.diag(A, 1).tolist()
        ([1.0, 5.0, 9.0], [2.0, 6.0])
        >>> fnp.diag(np.array([1, 2])).tolist()
        [[1, 0], [0, 2]]
        >>> ft.grad(lambda a: fnp.diag(a).sum())(np.zeros((2, 2))).tolist()  # the trace
        [[1.0, 0.0], [0.0, 1.0]]
    """
    rank = ndim(v)
    if rank == 2:
        return diagonal(v, k)
    if rank != 1:
        raise ValueError("Input must be 1- or 2-d.")
    n = shape(v)[0] + builtins.abs(int(k))
    xp = xp_of(v)
    rows, cols = diagonal_indices(n, n, int(k), xp)
    return scatter(xp.zeros((n, n), dtype=dtype_of(v)), (rows, cols), v)


def _tri_mask(m: Any, k: int) -> Any:
    n, mm = (shape(m) * 2)[-2:] if ndim(m) == 1 else shape(m)[-2:]
    return xp_of(m).tri(n, mm, k, dtype=bool)


@implements(numpy.tril)
def tril(m: Any, k: int = 0) -> Any:
    """``numpy.tril``: zeros above the k-th diagonal (of the last two axes).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.tril(np.arange(1.0, 10.0).reshape(3, 3)).tolist()
        [[1.0, 0.0, 0.0], [4.0, 5.0, 0.0], [7.0, 8.0, 9.0]]
        >>> ft.grad(lambda a: fnp.tril(a).sum())(np.zeros((2, 2))).tolist()
        [[1.0, 0.0], [1.0, 1.0]]
    """
    return where(_tri_mask(m, int(k)), m, zeros((), dtype_of(m), like=m))


@implements(numpy.triu)
def triu(m: Any, k: int = 0) -> Any:
    """``numpy.triu``: zeros below the k-th diagonal (of the last two axes).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.triu(np.arange(1.0, 10.0).reshape(3, 3), 1).tolist()
        [[0.0, 2.0, 3.0], [0.0, 0.0, 6.0], [0.0, 0.0, 0.0]]
        >>> ft.grad(lambda a: fnp.triu(a).sum())(np.zeros((2, 2))).tolist()
        [[1.0, 1.0], [0.0, 1.0]]
    """
    return where(_tri_mask(m, int(k) - 1), zeros((), dtype_of(m), like=m), m)


@implements(numpy.vander)
def vander(x: Any, N: int | None = None, increasing: bool = False) -> Any:  # noqa: N803
    """``numpy.vander``: columns of powers of ``x`` (a running product, as NumPy's).

    Example:
        >>> import numpy as np
        >>> vander(np.array([1.0, 2.0, 3.0]), 3).tolist()
        [[1.0, 1.0, 1.0], [4.0, 2.0, 1.0], [9.0, 3.0, 1.0]]
    """
    x = as_operand(x)
    if ndim(x) != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    n = shape(x)[0]
    N = n if N is None else int(N)  # noqa: N806
    dt = numpy.promote_types(dtype_of(x), int)
    x = astype(x, dt)
    if N == 0:
        return zeros((n, 0), dt, like=x)
    ones = creation.ones((n, 1), dt, like=x)
    if N == 1:
        out = ones
    else:
        powers = cumprod(broadcast_to(reshape(x, (n, 1)), (n, N - 1)), axis=1)
        out = concatenate([ones, powers], axis=1)
    return out if increasing else flip(out, axis=1)
