"""``ftransforms.scipy.spatial``: the part of ``scipy.spatial`` that works on tracers,
``distance`` (``cdist``, ``pdist``, ``squareform`` and the two-vector distances),
``distance_matrix``/``minkowski_distance``/``minkowski_distance_p``, ``procrustes`` and
``transform`` (``Rotation``, ``Slerp``).

Example:
    >>> import numpy as np
    >>> from ftransforms.scipy.spatial import distance
    >>> float(distance.euclidean(np.zeros(2), np.array([3.0, 4.0])))
    5.0
"""

from ftransforms.scipy.spatial import distance, transform
from ftransforms.scipy.spatial.minkowski_distances import (
    distance_matrix,
    minkowski_distance,
    minkowski_distance_p,
)
from ftransforms.scipy.spatial.procrustes import procrustes

__all__ = [
    "distance",
    "distance_matrix",
    "minkowski_distance",
    "minkowski_distance_p",
    "procrustes",
    "transform",
]
