"""``ftransforms.scipy.cluster``: ``vq.vq`` on tracers (like ``jax.scipy.cluster``).

Example:
    >>> import numpy as np
    >>> from ftransforms.scipy.cluster import vq
    >>> vq.vq(np.array([[0.9], [3.2]]), np.array([[1.0], [3.0]]))[0].tolist()
    [0, 1]
"""

from ftransforms.scipy.cluster import vq

__all__ = ["vq"]
