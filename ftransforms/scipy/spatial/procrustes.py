"""``scipy.spatial.procrustes`` on traced point sets: both centred and scaled to unit
Frobenius norm, the second rotated (and scaled) onto the first by the orthogonal
Procrustes solution ``R = U Vᵀ`` of ``svd((Bᵀ A)ᵀ)`` with scale ``sum(s)``, as SciPy's;
written with ``ftransforms.numpy`` so the disparity differentiates (through the SVD:
distinct singular values).

Example:
    >>> import numpy as np
    >>> a = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    >>> rotated = a @ np.array([[0.0, -1.0], [1.0, 0.0]])  # the same shape, turned
    >>> round(float(procrustes(a, rotated)[2]), 12)
    0.0
"""

from __future__ import annotations

from typing import Any

import ftransforms.numpy as fnp

__all__ = ["procrustes"]


def procrustes(data1: Any, data2: Any) -> tuple:
    """``scipy.spatial.procrustes``: ``(mtx1, mtx2, disparity)``, the standardized first
    set, the second fitted onto it, and the sum of squared differences.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> a = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
        >>> g = ft.grad(lambda b: procrustes(a, b)[2])(a + 0.1 * np.eye(3, 2))
        >>> g.shape
        (3, 2)
    """
    a = fnp.asarray(data1, dtype=float)
    b = fnp.asarray(data2, dtype=float)
    if fnp.ndim(a) != 2 or fnp.ndim(b) != 2:
        raise ValueError("procrustes: input matrices must be two-dimensional")
    if fnp.shape(a) != fnp.shape(b):
        raise ValueError("procrustes: input matrices must be of same shape")
    if fnp.shape(a)[0] * fnp.shape(a)[1] == 0:
        raise ValueError("procrustes: input matrices must be >0 rows and >0 cols")
    a = a - fnp.mean(a, axis=0)
    b = b - fnp.mean(b, axis=0)
    norm_a, norm_b = fnp.linalg.norm(a), fnp.linalg.norm(b)
    if bool(norm_a == 0) or bool(norm_b == 0):
        raise ValueError("procrustes: input matrices must contain >1 unique points")
    a, b = a / norm_a, b / norm_b
    u, s, vt = fnp.linalg.svd(fnp.matmul(b.T, a).T)
    rotation = fnp.matmul(u, vt)
    fitted = fnp.matmul(b, rotation.T) * fnp.sum(s)
    return a, fitted, fnp.sum((a - fitted) ** 2)
