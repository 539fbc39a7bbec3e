"""``ftransforms.scipy.sparse``: ``linalg``'s solvers (``spsolve`` with a constant sparse
matrix, the Krylov solvers ``cg`` and ``bicgstab``) on tracers.

Example:
    >>> import numpy as np
    >>> from ftransforms.scipy.sparse import linalg
    >>> linalg.cg(np.eye(2), np.ones(2))[0].tolist()
    [1.0, 1.0]
"""

from ftransforms.scipy.sparse import linalg

__all__ = ["linalg"]
