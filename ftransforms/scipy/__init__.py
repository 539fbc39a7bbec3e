"""``ftransforms.scipy``: the part of SciPy's API that works on tracers (like ``jax.scipy``).

Example:
    >>> import numpy as np
    >>> from ftransforms import grad
    >>> from ftransforms.scipy.special import logsumexp
    >>> np.round(grad(logsumexp)(np.zeros(4)), 3)
    array([0.25, 0.25, 0.25, 0.25])
"""

from ftransforms.scipy import special

__all__ = ["special"]
