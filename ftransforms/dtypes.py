"""``jax.dtypes`` under its JAX name: ``float0`` (the dtype of the derivative of an
integer input, as ``grad(..., allow_int=True)`` returns it and ``jvp`` accepts it as the
tangent of one) and NumPy's dtype helpers (``issubdtype``, ``result_type``, ``finfo``,
``iinfo``).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> ft.grad(lambda x: x * 2.0, allow_int=True)(3).dtype == ft.dtypes.float0
    True
    >>> ft.dtypes.issubdtype(np.float32, np.floating)
    True
"""

from __future__ import annotations

from typing import Any

import numpy
from numpy import finfo, iinfo, issubdtype, result_type

from ftransforms.arguments import FLOAT0 as float0

__all__ = [
    "canonicalize_dtype",
    "finfo",
    "float0",
    "iinfo",
    "issubdtype",
    "result_type",
]


def canonicalize_dtype(dtype: Any) -> numpy.dtype:
    """``dtype`` as a NumPy dtype (every NumPy dtype is kept as it is: no x64 switch here).

    Example:
        >>> from ftransforms.dtypes import canonicalize_dtype
        >>> canonicalize_dtype(float)
        dtype('float64')
    """
    return numpy.dtype(dtype)
