"""``autograd.test_util``'s import path: :func:`~ftransforms.testing.check_grads`, which
takes autograd's curried form ``check_grads(f, modes=["rev"])(x)`` as well as JAX's.

Example:
    >>> import numpy as np
    >>> from ftransforms.test_util import check_grads
    >>> check_grads(lambda x: np.sum(np.tanh(x)), modes=["rev"])(np.array([0.5, -1.0]))
"""

from ftransforms.testing import check_grads

__all__ = ["check_grads"]
