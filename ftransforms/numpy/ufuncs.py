"""Universal functions: each NumPy ufunc with a primitive is that primitive, plus the
rounding, complex-part, casting and clipping functions written as one primitive each
(NumPy's "Universal functions" and the elementwise part of "Mathematical functions").
"""

from __future__ import annotations

from typing import Any

import numpy

from ftransforms import lax
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.dispatch import implements
from ftransforms.numpy.helpers import as_array, dtype_of
from ftransforms.ops import elementwise as _ew

__all__ = [
    "negative",
    "exp",
    "exp2",
    "expm1",
    "log",
    "log2",
    "log10",
    "log1p",
    "sqrt",
    "cbrt",
    "square",
    "reciprocal",
    "sin",
    "cos",
    "tan",
    "arcsin",
    "arccos",
    "arctan",
    "sinh",
    "cosh",
    "tanh",
    "arcsinh",
    "arccosh",
    "arctanh",
    "abs",
    "absolute",
    "fabs",
    "sign",
    "floor",
    "ceil",
    "trunc",
    "rint",
    "fix",
    "isnan",
    "isinf",
    "isfinite",
    "signbit",
    "logical_not",
    "invert",
    "gcd",
    "lcm",
    "left_shift",
    "right_shift",
    "bitwise_left_shift",
    "bitwise_right_shift",
    "bitwise_count",
    "spacing",
    "add",
    "subtract",
    "multiply",
    "divide",
    "true_divide",
    "power",
    "maximum",
    "minimum",
    "arctan2",
    "remainder",
    "mod",
    "floor_divide",
    "fmod",
    "nextafter",
    "divmod",
    "modf",
    "frexp",
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "logical_and",
    "logical_or",
    "logical_xor",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "positive",
    "round",
    "around",
    "stop_gradient",
    "clip",
    "astype",
    "real",
    "imag",
    "conj",
    "conjugate",
]


negative = _ew.negative_p
exp, exp2, expm1 = _ew.exp_p, _ew.exp2_p, _ew.expm1_p
log, log2, log10, log1p = _ew.log_p, _ew.log2_p, _ew.log10_p, _ew.log1p_p
sqrt, cbrt, square, reciprocal = _ew.sqrt_p, _ew.cbrt_p, _ew.square_p, _ew.reciprocal_p
sin, cos, tan = _ew.sin_p, _ew.cos_p, _ew.tan_p
arcsin, arccos, arctan = _ew.arcsin_p, _ew.arccos_p, _ew.arctan_p
sinh, cosh, tanh = _ew.sinh_p, _ew.cosh_p, _ew.tanh_p
arcsinh, arccosh, arctanh = _ew.arcsinh_p, _ew.arccosh_p, _ew.arctanh_p
abs = absolute = _ew.abs_p  # noqa: A001
sign, floor, ceil, trunc, rint = _ew.sign_p, _ew.floor_p, _ew.ceil_p, _ew.trunc_p, _ew.rint_p
fix = trunc
implements(numpy.fix)(fix)  # numpy.fix is no ufunc: it dispatches by __array_function__
isnan, isinf, isfinite, signbit = _ew.isnan_p, _ew.isinf_p, _ew.isfinite_p, _ew.signbit_p
logical_not, invert = _ew.logical_not_p, _ew.invert_p
add, subtract, multiply = _ew.add_p, _ew.subtract_p, _ew.multiply_p
divide = true_divide = _ew.divide_p
power, maximum, minimum, arctan2 = _ew.power_p, _ew.maximum_p, _ew.minimum_p, _ew.arctan2_p
remainder = mod = _ew.remainder_p
floor_divide = _ew.floor_divide_p
fmod, nextafter = _ew.fmod_p, _ew.nextafter_p
divmod, modf, frexp = _ew.divmod_p, _ew.modf_p, _ew.frexp_p  # noqa: A001
equal, not_equal, less, less_equal = _ew.equal_p, _ew.not_equal_p, _ew.less_p, _ew.less_equal_p
greater, greater_equal = _ew.greater_p, _ew.greater_equal_p
logical_and, logical_or, logical_xor = _ew.logical_and_p, _ew.logical_or_p, _ew.logical_xor_p
bitwise_and, bitwise_or, bitwise_xor = _ew.bitwise_and_p, _ew.bitwise_or_p, _ew.bitwise_xor_p
gcd, lcm, bitwise_count, spacing = _ew.gcd_p, _ew.lcm_p, _ew.bitwise_count_p, _ew.spacing_p
left_shift = bitwise_left_shift = _ew.left_shift_p
right_shift = bitwise_right_shift = _ew.right_shift_p


def positive(x: Any) -> Any:
    """``numpy.positive``: ``+x``, which is ``x`` itself (derivative 1).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.positive(np.array([-1.0, 2.0])).tolist()
        [-1.0, 2.0]
        >>> float(ft.grad(lambda x: 2 * fnp.positive(x))(1.0))
        2.0
    """
    return as_array(x)


@implements(numpy.around, numpy.round)
def round(x: Any, decimals: int = 0) -> Any:  # noqa: A001
    """``numpy.round`` (also ``fnp.around``): round to ``decimals`` places, halves to even;
    its derivative is 0.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.round(np.array([0.5, 1.5, 2.5])).tolist()
        [0.0, 2.0, 2.0]
        >>> fnp.around(np.array([1.234, -5.678]), 2).tolist()
        [1.23, -5.68]
        >>> float(ft.grad(lambda x: fnp.round(x) + x)(1.3))  # only x contributes
        1.0
    """
    return _ew.round_p.bind(x, decimals=decimals)


around = round


def stop_gradient(x: Any) -> Any:
    """``x`` with no derivative at any transform level (still batched under ``vmap``).

    Example:
        >>> from ftransforms import grad
        >>> float(grad(lambda x: x * stop_gradient(x))(3.0))
        3.0
    """
    return _ew.stop_gradient_p.bind(x)


@implements(numpy.clip)
def clip(a: Any, a_min: Any = None, a_max: Any = None, **kwargs: Any) -> Any:
    """``numpy.clip`` (``min``/``max`` keywords accepted too); derivative 1 inside the
    bounds, 0 outside, and at a bound the two sides share it (1/2 each).  Other keywords
    (``out=``) raise :class:`~ftransforms.errors.UnsupportedOperationError`.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> x = np.array([-2.0, 0.5, 1.0, 3.0])
        >>> fnp.clip(x, 0.0, 1.0).tolist()
        [0.0, 0.5, 1.0, 1.0]
        >>> ft.grad(lambda x: fnp.clip(x, 0.0, 1.0).sum())(x).tolist()
        [0.0, 1.0, 0.5, 0.0]
    """
    a_min = kwargs.pop("min", a_min)
    a_max = kwargs.pop("max", a_max)
    if kwargs:
        raise UnsupportedOperationError(f"clip: unsupported arguments {sorted(kwargs)}")
    a = as_array(a)
    dt = dtype_of(a)
    if dt.kind in "iu":
        # NumPy's clip drops a Python int bound past the integer dtype's range (a bound
        # on the far side stays, and its cast raises NumPy's OverflowError)
        info = numpy.iinfo(dt)
        if type(a_min) is int and a_min <= info.min:
            a_min = None
        if type(a_max) is int and a_max >= info.max:
            a_max = None
    if a_min is not None:
        a = maximum(a, a_min)
    if a_max is not None:
        a = minimum(a, a_max)
    return a


@implements("numpy.astype")
def astype(x: Any, dtype: Any, copy: bool = True) -> Any:
    """``x.astype(dtype)``; a cast to an integer or bool dtype has no derivative.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.astype(np.array([1.7, -2.2]), np.int32).tolist()
        [1, -2]
        >>> float(ft.grad(lambda x: 3 * fnp.astype(x, np.float32))(1.0))
        3.0
        >>> float(ft.grad(lambda x: x + fnp.astype(x, int))(1.5))  # the int part adds 0
        1.0
    """
    if isinstance(x, Tracer) and numpy.dtype(dtype).kind == "O":
        # an object array holds the elements themselves (0-d traced arrays), as NumPy's
        # holds Python numbers, so the derivative goes on through them
        return numpy.array(x, dtype=object)
    return lax.convert(x, dtype)


@implements(numpy.real)
def real(x: Any) -> Any:
    """``numpy.real``: the real part (real inputs are returned as they are).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.real(np.array([1 + 2j, 3 - 1j])).tolist()
        [1.0, 3.0]
        >>> float(ft.grad(lambda x: fnp.real((1 + 2j) * x))(1.0))  # Re((1+2i) x) = x
        1.0
    """
    return lax.real(as_array(x))


@implements(numpy.imag)
def imag(x: Any) -> Any:
    """``numpy.imag``: the imaginary part (constant zeros for real inputs).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.imag(np.array([1 + 2j, 3 - 1j])).tolist()
        [2.0, -1.0]
        >>> float(ft.grad(lambda x: fnp.imag((1 + 2j) * x))(1.0))  # Im((1+2i) x) = 2 x
        2.0
    """
    return lax.imag(as_array(x))


@implements(numpy.conjugate)
def conj(x: Any) -> Any:
    """``numpy.conjugate`` (also ``fnp.conj``): the complex conjugate (real inputs are
    returned as they are).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.conj(np.array([1 + 2j, 3 - 1j])).tolist()
        [(1-2j), (3+1j)]
        >>> float(ft.grad(lambda x: fnp.imag(fnp.conjugate((1 + 2j) * x)))(1.0))  # -2 x
        -2.0
    """
    x = as_array(x)
    if dtype_of(x).kind == "b":  # NumPy's conjugate has no bool loop: int8's is used
        x = astype(x, numpy.int8)
    return lax.conj_or_self(x)


conjugate = conj


def fabs(x: Any) -> Any:
    """``numpy.fabs``: the absolute value in NumPy's float loop (int8/uint8/bool give
    float16, int16/uint16 float32, wider integers float64); complex input gives its modulus
    (NumPy's ``fabs`` refuses it).

    Example:
        >>> import numpy as np
        >>> import ftransforms.numpy as fnp
        >>> fnp.fabs(np.array([-3, 2], np.int8))
        array([3., 2.], dtype=float16)
    """
    x = as_array(x)
    if dtype_of(x).kind in "biu":
        x = astype(x, loop_dtype(numpy.fabs, x))
    return abs(x)


def float_input(x: Any, dtype: Any) -> Any:
    x = as_array(x)
    if dtype is not None:
        return astype(x, dtype)
    if dtype_of(x).kind not in "fc":
        return astype(x, numpy.float64)
    return x


def to_float(x: Any) -> Any:
    """``x`` cast to float64 when it is an integer or bool (NumPy's float ufunc loops)."""
    x = as_array(x)
    return astype(x, numpy.float64) if dtype_of(x).kind in "biu" else x


def loop_dtype(ufunc: Any, *xs: Any) -> Any:
    """The dtype of the loop NumPy's ``ufunc`` runs for ``xs`` (Python numbers weak): the
    smallest float that holds the integers, so int8/uint8/bool give float16 and
    int16/uint16 float32 (``np.deg2rad(np.int8(1))`` is float16)."""
    # a Python bool is a bool (resolve_dtypes takes no bool type; it raised, so float64)
    types = tuple(type(x) if type(x) in (int, float, complex) else dtype_of(x) for x in xs)
    try:
        return numpy.dtype(ufunc.resolve_dtypes(types + (None,) * ufunc.nout)[0])
    except (TypeError, ValueError):  # no loop: the caller's float64 rule
        return numpy.result_type(*[dtype_of(x) for x in xs], numpy.float64)
