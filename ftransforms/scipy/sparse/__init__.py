"""``ftransforms.scipy.sparse``: ``linalg``'s solvers (``spsolve`` with a constant sparse
matrix, the Krylov solvers ``cg`` and ``bicgstab``) on tracers; ``diags``/``spdiags``
given traced values refuse clearly (a SciPy sparse matrix holds plain arrays).

Example:
    >>> import numpy as np
    >>> from ftransforms.scipy.sparse import linalg
    >>> linalg.cg(np.eye(2), np.ones(2))[0].tolist()
    [1.0, 1.0]
"""

from ftransforms.scipy.sparse import linalg
from ftransforms.scipy.sparse.traced_values import diags, diags_array, spdiags

__all__ = ["diags", "diags_array", "linalg", "spdiags"]
