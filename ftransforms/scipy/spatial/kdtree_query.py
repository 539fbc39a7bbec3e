"""``scipy.spatial.KDTree.query`` at traced points (the tree built from plain data): the
neighbours are SciPy's, found on the points' values (as NOTE [root finders on traced
parameters] reads them: under ``vmap`` each row alone, under ``jit`` eagerly), and the
distances are recomputed from the traced points to those neighbours (``minkowski``, a
zero distance with derivative 0), so they differentiate; a missing neighbour (beyond
``distance_upper_bound``) keeps SciPy's ``inf`` and index ``n``.  SciPy's ``cKDTree`` is
a compiled type that cannot be answered this way: its query keeps the clear error.

Example:
    >>> import numpy as np
    >>> import scipy.spatial
    >>> import ftransforms as ft
    >>> tree = scipy.spatial.KDTree(np.array([[0.0, 0.0], [3.0, 4.0]]))
    >>> ft.grad(lambda x: tree.query(x)[0])(np.array([2.9, 4.2])).round(6).tolist()
    [-0.447214, 0.894427]
"""

from __future__ import annotations

from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.scipy.roots import _host
from ftransforms.scipy.spatial.distance import minkowski

__all__ = ["traced_query"]


def traced_query(tree: Any, theirs: Any, x: Any, *args: Any, **kwargs: Any) -> tuple:
    """``tree.query(x, ...)`` (SciPy's ``theirs``) with differentiable distances.

    Example:
        >>> import numpy as np
        >>> import scipy.spatial
        >>> tree = scipy.spatial.KDTree(np.array([[0.0], [2.0]]))
        >>> d, i = traced_query(tree, scipy.spatial.KDTree.query, np.array([1.5]))
        >>> float(d), int(i)
        (0.5, 1)
    """
    d_plain, i = theirs(tree, _host(x), *args, **kwargs)
    p = kwargs.get("p", args[2] if len(args) > 2 else 2.0)
    data = numpy.asarray(tree.data)
    n = data.shape[0]
    idx = numpy.asarray(i)
    found = idx < n
    neighbours = data[numpy.where(found, idx, 0)]  # (..., [k,] m)
    x = fnp.asarray(x, dtype=float)
    if numpy.ndim(d_plain) > fnp.ndim(x) - 1:  # a k axis
        x = x[..., None, :]
    d = minkowski(x, neighbours, p)
    return fnp.where(found, d, numpy.inf), i
