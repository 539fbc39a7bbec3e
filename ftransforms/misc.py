"""HIPS autograd's ``autograd.misc`` helpers: :func:`flatten`.

Example:
    >>> import numpy as np
    >>> from ftransforms.misc import flatten
    >>> flat, unflatten = flatten([np.ones(2), (3.0,)])
    >>> flat, unflatten(flat)[1]
    (array([1., 1., 3.]), (array(3.),))
"""

from ftransforms.autograd_compat import flatten

__all__ = ["flatten"]
