"""``ftransforms.scipy.sparse``: what works on tracers with SciPy's sparse matrices as
constants: ``L @ u`` itself (NOTE [SciPy sparse operands] in
``ftransforms/numpy/sparse_operands.py``) and ``linalg.spsolve``.

Example:
    >>> import numpy as np
    >>> import scipy.sparse
    >>> from ftransforms.scipy.sparse.linalg import spsolve
    >>> A = scipy.sparse.identity(3, format="csc") * 2.0
    >>> spsolve(A, np.ones(3)).tolist()
    [0.5, 0.5, 0.5]
"""

from ftransforms.scipy.sparse import linalg

__all__ = ["linalg"]
