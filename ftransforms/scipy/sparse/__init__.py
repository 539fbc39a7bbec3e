"""``ftransforms.scipy.sparse``: ``linalg``'s matrix-free Krylov solvers (``cg``,
``bicgstab``) on tracers.

Example:
    >>> import numpy as np
    >>> from ftransforms.scipy.sparse import linalg
    >>> linalg.cg(np.eye(2), np.ones(2))[0].tolist()
    [1.0, 1.0]
"""

from ftransforms.scipy.sparse import linalg

__all__ = ["linalg"]
