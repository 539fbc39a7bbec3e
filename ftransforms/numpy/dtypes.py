"""Data types and constants: NumPy's own dtype objects, ``finfo``/``iinfo``, ``result_type``
(NumPy's "Data type routines" and "Constants").
"""

from __future__ import annotations

from typing import Any

import numpy

from ftransforms.backend import _lookup, is_array
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


class _ArrayType(type):
    """The metaclass of :class:`ndarray`: instance and subclass checks that count tracers
    and every backend's arrays; calling the class makes a NumPy array."""

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, (numpy.ndarray, Tracer)) or is_array(obj)

    def __subclasscheck__(cls, sub: type) -> bool:
        if sub is cls or issubclass(sub, (numpy.ndarray, Tracer)):
            return True
        return not issubclass(sub, numpy.generic) and _backend_array_type(sub)

    def __call__(cls, *args: Any, **kwargs: Any) -> numpy.ndarray:
        return numpy.ndarray(*args, **kwargs)


def _backend_array_type(sub: type) -> bool:
    return _lookup(sub) is not None  # a registered backend's array type (cupy.ndarray)


class ndarray(metaclass=_ArrayType):
    """The array type as code written for NumPy or ``jax.numpy`` checks it:
    ``isinstance(x, fnp.ndarray)`` is true for NumPy and CuPy arrays *and* for the traced
    arrays a transform passes to a function (``jax.numpy.ndarray``/``jax.Array``, which is
    also ``ftransforms.Array``), so ``if isinstance(x, np.ndarray)`` takes the array branch
    under the transforms when the code imports ``ftransforms.numpy as np``.  Calling it
    makes a NumPy array (``numpy.ndarray(shape, dtype)``); ``type(x)`` of a NumPy array is
    still ``numpy.ndarray``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> def f(x):
        ...     return (x**2).sum() if isinstance(x, fnp.ndarray) else x**2
        >>> ft.grad(f)(np.array([1.0, 2.0]))
        array([2., 4.])
        >>> isinstance(np.float64(1.0), fnp.ndarray), fnp.ndarray((2,)).shape
        (False, (2,))
    """


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
    if isinstance(x, Tracer):
        kind = x._python_kind()  # a loop's Python number, weak as in the loop over rows
        return x.dtype if kind is None else kind(0)
    if is_array(x) and type(x) is not numpy.ndarray:
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
