"""``ftransforms.scipy.spatial``: the part of ``scipy.spatial`` that works on tracers, its
``distance`` module (``cdist``, ``pdist``, ``squareform`` and the vector distances).

Example:
    >>> import numpy as np
    >>> from ftransforms.scipy.spatial.distance import cdist
    >>> cdist(np.zeros((1, 2)), np.array([[3.0, 4.0]])).tolist()
    [[5.0]]
"""

from ftransforms.scipy.spatial import distance

__all__ = ["distance"]
