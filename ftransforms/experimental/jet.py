"""JAX's ``jax.experimental.jet`` module path: :func:`ftransforms.jet` (Taylor-mode
propagation of a truncated power series), for ``from jax.experimental.jet import jet``.

Example:
    >>> import numpy as np
    >>> from ftransforms.experimental.jet import jet
    >>> y, (y1, y2) = jet(np.exp, (0.0,), ((1.0, 0.0),))  # x(t) = t: exp(t)'s series
    >>> float(y), float(y1), float(y2)
    (1.0, 1.0, 1.0)
"""

from ftransforms.jet import jet

__all__ = ["jet"]
