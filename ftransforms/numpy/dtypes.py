"""Data types and constants: NumPy's own dtype objects, ``finfo``/``iinfo``, ``result_type``
(NumPy's "Data type routines" and "Constants").
"""

from __future__ import annotations

from typing import Any

import numpy

from ftransforms.backend import is_array
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.dispatch import implements

__all__ = [
    "pi",
    "e",
    "inf",
    "nan",
    "newaxis",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "bool_",
    "dtype",
    "finfo",
    "iinfo",
    "ndarray",
    "result_type",
    "can_cast",
    "common_type",
]


pi, e, inf, nan, newaxis = numpy.pi, numpy.e, numpy.inf, numpy.nan, None
float16, float32, float64 = numpy.float16, numpy.float32, numpy.float64
complex64, complex128 = numpy.complex64, numpy.complex128
int8, int16, int32, int64 = numpy.int8, numpy.int16, numpy.int32, numpy.int64
uint8, bool_ = numpy.uint8, numpy.bool_
dtype, finfo, iinfo = numpy.dtype, numpy.finfo, numpy.iinfo
ndarray = numpy.ndarray


@implements(numpy.result_type)
def result_type(*args: Any) -> Any:
    """``numpy.result_type`` that accepts tracers (a tracer counts by its dtype, as an
    array does; Python scalars stay weak).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.result_type(np.ones(2, np.float32), np.ones(2, np.int64))
        dtype('float64')
        >>> def f(x):
        ...     print(fnp.result_type(x, 2.0))  # a Python float keeps float32
        ...     return x.sum()
        >>> _ = ft.grad(f)(np.ones(2, np.float32))
        float32
    """
    return numpy.result_type(*[_dtype_stand_in(a) for a in args])


def _dtype_stand_in(x: Any) -> Any:
    """A tracer's or a device array's dtype (what NumPy 2's casting rules look at) in place
    of it: ``numpy.result_type`` would convert a CuPy array to a host array."""
    if isinstance(x, Tracer) or (is_array(x) and type(x) is not numpy.ndarray):
        return x.dtype
    return x


@implements(numpy.can_cast)
def can_cast(from_: Any, to: Any, casting: str = "safe") -> bool:
    """``numpy.can_cast`` of a tracer: decided by its dtype, as NumPy 2 does for arrays.

    Example:
        >>> can_cast(numpy.float32, numpy.float64)
        True
    """
    return bool(numpy.can_cast(_dtype_stand_in(from_), _dtype_stand_in(to), casting))


@implements(numpy.common_type)
def common_type(*arrays: Any) -> Any:
    """``numpy.common_type``: the inexact scalar type of the inputs' dtypes.

    Example:
        >>> common_type(numpy.ones(2, numpy.float32)).__name__
        'float32'
    """
    return numpy.common_type(
        *[numpy.empty(0, a.dtype) if isinstance(a, Tracer) else a for a in arrays]
    )
