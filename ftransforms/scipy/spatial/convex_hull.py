"""``scipy.spatial.ConvexHull`` of traced points: Qhull picks the facets on the points'
values (read as NOTE [root finders on traced parameters] reads them: under ``vmap`` each
row alone, under ``jit`` eagerly), and the measures are recomputed from the traced
points: ``volume`` as the sum over facets of the simplices they span with the centroid,
``|det(P_f - c)| / d!``, and ``area`` as the sum of the facets' measures,
``sqrt(det(E Eᵀ)) / (d - 1)!`` (``E`` a facet's edge vectors), so both differentiate.
The combinatorial attributes (``simplices``, ``vertices``, ``neighbors``) are SciPy's;
``equations`` are SciPy's plain values.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> square = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    >>> ft.grad(lambda p: TracedConvexHull(p).volume)(2.0 * square).tolist()  # d area
    [[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]]
"""

from __future__ import annotations

import math
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.scipy.roots import _host

__all__ = ["TracedConvexHull"]


class TracedConvexHull:
    """SciPy's ``ConvexHull(points)`` of traced ``points`` (module docstring).

    Example:
        >>> import numpy as np
        >>> hull = TracedConvexHull(np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0], [0.5, 0.5]]))
        >>> float(hull.volume), sorted(hull.vertices.tolist())
        (2.0, [0, 1, 2])
    """

    def __init__(self, points: Any, incremental: bool = False, qhull_options: Any = None) -> None:
        import scipy.spatial  # noqa: PLC0415  late import: SciPy is optional

        self.points = fnp.asarray(points, dtype=float)
        self._hull = scipy.spatial.ConvexHull(_host(points), incremental, qhull_options)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._hull, name)

    @property
    def volume(self) -> Any:
        facets = fnp.take(self.points, numpy.asarray(self._hull.simplices), axis=0)  # (f, d, d)
        centre = fnp.mean(fnp.take(self.points, numpy.asarray(self._hull.vertices), axis=0), axis=0)
        d = fnp.shape(self.points)[1]
        return fnp.sum(fnp.abs(fnp.linalg.det(facets - centre))) / math.factorial(d)

    @property
    def area(self) -> Any:
        facets = fnp.take(self.points, numpy.asarray(self._hull.simplices), axis=0)
        edges = facets[:, 1:, :] - facets[:, :1, :]  # (f, d - 1, d)
        gram = fnp.matmul(edges, fnp.swapaxes(edges, -1, -2))
        d = fnp.shape(self.points)[1]
        return fnp.sum(fnp.sqrt(fnp.linalg.det(gram))) / math.factorial(d - 1)
