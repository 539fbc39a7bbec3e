"""``scipy.spatial``'s ``distance_matrix``, ``minkowski_distance`` and
``minkowski_distance_p`` on tracers (the vectors along the last axis, broadcast like
SciPy's), built on :func:`ftransforms.scipy.spatial.distance.minkowski`: a zero distance
has derivative 0.

Example:
    >>> import numpy as np
    >>> distance_matrix(np.array([[0.0, 0.0]]), np.array([[3.0, 4.0], [0.0, 1.0]])).tolist()
    [[5.0, 1.0]]
"""

from __future__ import annotations

from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.scipy.spatial.distance import minkowski

__all__ = ["distance_matrix", "minkowski_distance", "minkowski_distance_p"]


def minkowski_distance_p(x: Any, y: Any, p: float = 2.0) -> Any:
    """``scipy.spatial.minkowski_distance_p``: ``sum(|x - y|**p)`` over the last axis
    (the largest ``|x - y|`` for ``p = inf``), without the root.

    Example:
        >>> import numpy as np
        >>> float(minkowski_distance_p(np.zeros(2), np.array([3.0, 4.0])))
        25.0
    """
    d = fnp.abs(fnp.asarray(x, dtype=float) - fnp.asarray(y, dtype=float))
    if numpy.isinf(p):
        return fnp.max(d, axis=-1)
    if p == 1:
        return fnp.sum(d, axis=-1)
    return fnp.sum(d**p, axis=-1)


def minkowski_distance(x: Any, y: Any, p: float = 2.0) -> Any:
    """``scipy.spatial.minkowski_distance``: the ``p``-norm of ``x - y`` over the last
    axis.

    Example:
        >>> import numpy as np
        >>> float(minkowski_distance(np.zeros(2), np.array([3.0, 4.0]), p=1))
        7.0
    """
    x, y = fnp.asarray(x, dtype=float), fnp.asarray(y, dtype=float)
    return minkowski(x, y, p)


def distance_matrix(x: Any, y: Any, p: float = 2.0, threshold: int = 1000000) -> Any:
    """``scipy.spatial.distance_matrix``: the ``(m, n)`` matrix of ``p``-norm distances
    between the rows of ``x`` (``m, k``) and of ``y`` (``n, k``); ``threshold`` only picks
    SciPy's algorithm.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> x = np.array([[0.0, 0.0], [3.0, 4.0]])
        >>> ft.grad(lambda x: distance_matrix(x, x).sum())(x).round(6).tolist()
        [[-1.2, -1.6], [1.2, 1.6]]
    """
    x, y = fnp.asarray(x, dtype=float), fnp.asarray(y, dtype=float)
    if fnp.ndim(x) != 2 or fnp.ndim(y) != 2 or fnp.shape(x)[1] != fnp.shape(y)[1]:
        raise ValueError(
            f"distance_matrix(x, y): x and y must be 2-D with the same number of columns, "
            f"got shapes {fnp.shape(x)} and {fnp.shape(y)}"
        )
    return minkowski(x[:, None, :], y[None, :, :], p)
