"""JAX's ``jax.flatten_util``: :func:`ravel_pytree` (the same function as
``ft.ravel_pytree``).

Example:
    >>> import numpy as np
    >>> from ftransforms.flatten_util import ravel_pytree
    >>> flat, unravel = ravel_pytree((np.ones(2), 3.0))
    >>> flat, unravel(flat)[1]
    (array([1., 1., 3.]), array(3.))
"""

from ftransforms.pytree import ravel_pytree

__all__ = ["ravel_pytree"]
