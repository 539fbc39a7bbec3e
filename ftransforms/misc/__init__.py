"""HIPS autograd's ``autograd.misc`` helpers: :func:`flatten` and :func:`flatten_func`
(``autograd.misc.flatten``), :func:`fixed_point` (``autograd.misc.fixed_points``), and
the optimizers of :mod:`ftransforms.misc.optimizers` (``sgd``, ``rmsprop``, ``adam``).
The submodules carry autograd's module names, so ``from ftransforms.misc.flatten import
flatten_func`` and ``from ftransforms.misc.optimizers import adam`` read as autograd's.

Example:
    >>> import numpy as np
    >>> from ftransforms.misc import flatten
    >>> flat, unflatten = flatten([np.ones(2), (3.0,)])
    >>> flat, unflatten(flat)[1]
    (array([1., 1., 3.]), (array(3.),))
"""

from ftransforms.misc import optimizers
from ftransforms.misc.fixed_points import fixed_point
from ftransforms.misc.flatten import flatten, flatten_func

__all__ = ["fixed_point", "flatten", "flatten_func", "optimizers"]
