"""JAX's ``jax.dtypes`` names, for code ported from JAX: ``float0`` (the dtype of the
gradient of an integer input under ``allow_int=True``), ``canonicalize_dtype`` and
``scalar_type_of``; ``issubdtype``/``result_type``/``finfo``/``iinfo`` are
:mod:`ftransforms.numpy`'s.  ftransforms follows NumPy's dtypes, which are JAX's with
``jax_enable_x64``: canonicalizing changes nothing.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> g = ft.grad(lambda x, n: x * n, argnums=1, allow_int=True)(2.0, 3)
    >>> g.dtype == ft.dtypes.float0
    True
"""

from __future__ import annotations

from typing import Any

import numpy

from ftransforms.arguments import FLOAT0 as float0  # a dtype: documented above
from ftransforms.numpy import finfo, iinfo, issubdtype, result_type
from ftransforms.numpy.helpers import dtype_of

__all__ = [
    "canonicalize_dtype",
    "finfo",
    "iinfo",
    "issubdtype",
    "result_type",
    "scalar_type_of",
]


def canonicalize_dtype(dtype: Any, allow_extended_dtype: bool = False) -> numpy.dtype:
    """``jax.dtypes.canonicalize_dtype``: ``dtype`` as a NumPy dtype (64-bit types stay
    64-bit, as in JAX with x64 enabled).

    Example:
        >>> import numpy as np
        >>> canonicalize_dtype(np.float64), canonicalize_dtype(int)
        (dtype('float64'), dtype('int64'))
    """
    return numpy.dtype(dtype)


def scalar_type_of(x: Any) -> type:
    """``jax.dtypes.scalar_type_of``: the Python scalar type (bool, int, float or complex)
    of ``x``'s dtype.

    Example:
        >>> import numpy as np
        >>> scalar_type_of(np.float32(1.0)), scalar_type_of(np.arange(3))
        (<class 'float'>, <class 'int'>)
    """
    kind = dtype_of(x).kind
    if kind == "b":
        return bool
    if kind in "iu":
        return int
    if kind == "f" or dtype_of(x) == float0:
        return float
    if kind == "c":
        return complex
    raise TypeError(f"scalar_type_of(x): x's dtype {dtype_of(x)} has no Python scalar type")
