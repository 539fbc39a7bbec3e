"""``ftransforms.scipy.spatial``: the part of ``scipy.spatial`` that works on tracers,
``distance`` (``cdist``, ``pdist``, ``squareform`` and the two-vector distances) and
``transform`` (``Rotation``, ``Slerp``).

Example:
    >>> import numpy as np
    >>> from ftransforms.scipy.spatial import distance
    >>> float(distance.euclidean(np.zeros(2), np.array([3.0, 4.0])))
    5.0
"""

from ftransforms.scipy.spatial import distance, transform

__all__ = ["distance", "transform"]
