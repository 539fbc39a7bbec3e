"""The ``jax.lax`` names that JAX programs call, under ``ftransforms.lax``: control flow,
dynamic and static slicing, ``pad``, ``dot_general``, sorting and ``top_k``, iotas, the
cumulative and whole-axis reductions, and the elementwise operators under JAX's names.

NOTE [jax.lax names in ftransforms.lax]
---------------------------------------
``ftransforms.lax`` is the thin primitive layer that rules are written in (NOTE [layers]
in ``ftransforms/lax.py``), so it cannot import this module, which is built on the NumPy
face and the control flow above it.  Instead the package (``ftransforms/__init__.py``)
calls :func:`install` once at import: every name of :data:`__all__` that ``lax`` does not
define itself becomes an attribute of the ``lax`` module through a module ``__getattr__``
(so that ``lax.py``'s own code keeps Python's ``map``, ``slice``, ``max``...) and joins its
``__all__``.  So
``from ftransforms import lax`` then ``lax.scan(...)``, ``lax.dynamic_slice(...)`` or
``lax.rsqrt(x)`` run a JAX program's calls unchanged, while the layer's own functions
(``lax.add``, ``lax.exp``, ``lax.reshape``, ``lax.cumsum(x, axis=0, reverse=False)``...)
are already JAX's spellings and stay as they are.  Everything here is a composition of
primitives, so every transform goes through it; the operators JAX names differently from
NumPy are NumPy's own functions (``lax.exp is ftransforms.numpy.exp``), the binary ones
behind a check that the arrays share a dtype, as JAX's (``lax.max(int32, float64)`` raises
``DtypeMismatchError``; a Python scalar is accepted; ``lax.add``, ``lax.select`` and
``lax.concatenate``, the layer's own functions that the rules call, promote).

The modules next to this one add more of ``jax.lax`` the same way: ``jax_lax_gather``
(``gather``/``scatter`` with dimension numbers), ``jax_lax_conv`` (the convolutions and
their layout helpers), ``jax_lax_collectives`` (``ppermute``, ``all_to_all``...) and
``jax_lax_misc`` (``reduce``, ``fft``, the enums...); ``jax_lax_linalg`` is the namespace
``ft.lax.linalg`` (``jax.lax.linalg``).

Differences from JAX: ``precision=``/``preferred_element_type=`` are accepted and have no
effect beyond the result dtype; ``lax.round`` rounds half away from zero (JAX's default)
or to even with ``rounding_method=1``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> from ftransforms import lax
    >>> x = np.arange(10.0)
    >>> lax.dynamic_slice(x, (8,), (3,)).tolist()  # the start is clamped, as in JAX
    [7.0, 8.0, 9.0]
    >>> ft.vmap(lambda i: lax.dynamic_slice_in_dim(x, i, 2))(np.array([0, 4])).tolist()
    [[0.0, 1.0], [4.0, 5.0]]
"""

from __future__ import annotations

import builtins
import math
import operator
import sys
import types
from collections.abc import Callable, Sequence
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms import lax as _lax
from ftransforms.control import cond, fori_loop, scan, switch, while_loop
from ftransforms.core.errors import (
    DimensionNumbersError,
    DtypeMismatchError,
    UnsupportedOperationError,
)
from ftransforms.core.tracer import Tracer
from ftransforms.implicit import custom_linear_solve, custom_root
from ftransforms.numpy.helpers import constant_like
from ftransforms.ops.bits import bitcast_convert_type_p
from ftransforms.scans import associative_scan
from ftransforms.scans import map as _map
from ftransforms.scipy import special as _special

#: NumPy's functions under JAX's names (the same objects: the same rules and docs).
ALIASES: dict[str, Callable] = {
    "abs": fnp.abs,
    "acos": fnp.arccos,
    "acosh": fnp.arccosh,
    "asin": fnp.arcsin,
    "asinh": fnp.arcsinh,
    "atan": fnp.arctan,
    "atan2": fnp.arctan2,
    "atanh": fnp.arctanh,
    "bitwise_and": fnp.bitwise_and,
    "bitwise_not": fnp.invert,
    "bitwise_or": fnp.bitwise_or,
    "bitwise_xor": fnp.bitwise_xor,
    "cbrt": fnp.cbrt,
    "ceil": fnp.ceil,
    "cos": fnp.cos,
    "cosh": fnp.cosh,
    "eq": fnp.equal,
    "exp2": fnp.exp2,
    "expm1": fnp.expm1,
    "ge": fnp.greater_equal,
    "gt": fnp.greater,
    "is_finite": fnp.isfinite,
    "le": fnp.less_equal,
    "log1p": fnp.log1p,
    "lt": fnp.less,
    "max": fnp.maximum,
    "min": fnp.minimum,
    "mul": fnp.multiply,
    "ne": fnp.not_equal,
    "neg": fnp.negative,
    "nextafter": fnp.nextafter,
    "pow": fnp.power,
    "rem": fnp.fmod,
    "shift_left": fnp.left_shift,
    "shift_right_arithmetic": fnp.right_shift,
    "sign": fnp.sign,
    "sin": fnp.sin,
    "sinh": fnp.sinh,
    "square": fnp.square,
    "sub": fnp.subtract,
    "tan": fnp.tan,
    "tanh": fnp.tanh,
    "erf": _special.erf,
    "erfc": _special.erfc,
    "erf_inv": _special.erfinv,
    "lgamma": _special.gammaln,
    "digamma": _special.digamma,
    "zeta": _special.zeta,
    "polygamma": _special.polygamma,
    "igamma": _special.gammainc,
    "igammac": _special.gammaincc,
    "betainc": _special.betainc,
    "bessel_i0e": _special.i0e,
    "bessel_i1e": _special.i1e,
    "tile": fnp.tile,
    "map": _map,  # under its own name it would shadow Python's map in this module
}


def _check_same_dtype(op: str, *args: Any) -> None:
    """Raise :class:`DtypeMismatchError` when the arrays among ``args`` differ in dtype
    (``jax.lax`` promotes nothing); Python scalars (``int``, ``float``...) are left out, so
    ``lax.mul(x, 2.0)`` keeps working.  NumPy scalars count as arrays, as in JAX."""
    dtypes = [
        numpy.dtype(a.dtype)
        for a in args
        if type(a) not in (bool, int, float, builtins.complex) and hasattr(a, "dtype")
    ]
    if any(d != dtypes[0] for d in dtypes[1:]):
        other = next(d for d in dtypes[1:] if d != dtypes[0])
        raise DtypeMismatchError(
            f"lax.{op} requires arrays of the same dtype, got {dtypes[0]} and {other}; "
            f"convert one first, e.g. lax.convert_element_type(y, x.dtype) (a Python scalar "
            f"is accepted as is), or use ftransforms.numpy, which promotes."
        )


def _same_dtype(op: str, f: Callable) -> Callable:
    """``f`` (a binary NumPy function) refusing arrays of different dtypes, as ``lax.op``."""

    def strict(x: Any, y: Any) -> Any:
        _check_same_dtype(op, x, y)
        return f(x, y)

    strict.__name__ = strict.__qualname__ = op
    args, result = _SAME_DTYPE_EXAMPLES[op]
    strict.__doc__ = (
        f"``jax.lax.{op}`` of two arrays of the same dtype (or a Python scalar).\n\n"
        f"Example:\n    >>> import numpy as np\n    >>> from ftransforms import lax\n"
        f"    >>> lax.{op}({args}).tolist()\n    {result}\n"
    )
    return strict


#: Each strict operator's docstring example: its arguments and NumPy's result.
_SAME_DTYPE_EXAMPLES = {
    "atan2": (
        "np.array([1.0, -1.0]), np.array([1.0, 1.0])",
        "[0.7853981633974483, -0.7853981633974483]",
    ),
    "bitwise_and": ("np.array([6, 5]), np.array([3, 3])", "[2, 1]"),
    "bitwise_or": ("np.array([6, 5]), np.array([3, 3])", "[7, 7]"),
    "bitwise_xor": ("np.array([6, 5]), np.array([3, 3])", "[5, 6]"),
    "eq": ("np.array([1, 2]), np.array([1, 3])", "[True, False]"),
    "ge": ("np.array([1, 2]), np.array([1, 3])", "[True, False]"),
    "gt": ("np.array([1, 2]), np.array([1, 3])", "[False, False]"),
    "le": ("np.array([1, 2]), np.array([1, 3])", "[True, True]"),
    "lt": ("np.array([1, 2]), np.array([1, 3])", "[False, True]"),
    "max": ("np.array([1.0, 4.0]), np.array([2.0, 3.0])", "[2.0, 4.0]"),
    "min": ("np.array([1.0, 4.0]), np.array([2.0, 3.0])", "[1.0, 3.0]"),
    "mul": ("np.array([1.5, 2.0]), 2.0", "[3.0, 4.0]"),
    "ne": ("np.array([1, 2]), np.array([1, 3])", "[False, True]"),
    "nextafter": ("np.array([1.0]), np.array([2.0])", "[1.0000000000000002]"),
    "rem": ("np.array([7, -7]), np.array([3, 3])", "[1, -1]"),  # C's remainder
    "shift_left": ("np.array([1, 3]), np.array([2, 1])", "[4, 6]"),
    "shift_right_arithmetic": ("np.array([-8, 8]), np.array([1, 2])", "[-4, 2]"),
    "sub": ("np.array([5.0, 1.0]), 2.0", "[3.0, -1.0]"),
}


#: The binary operators of ALIASES whose operands must share a dtype in JAX (``pow``,
#: whose exponent may be an integer, is not one).
_SAME_DTYPE = (
    "atan2 bitwise_and bitwise_or bitwise_xor eq ge gt le lt max min mul ne nextafter rem "
    "shift_left shift_right_arithmetic sub"
).split()
ALIASES.update({name: _same_dtype(name, ALIASES[name]) for name in _SAME_DTYPE})

#: The control flow and implicit solves that ftransforms has at its top level, under lax too.
REEXPORTS: dict[str, Callable] = {
    "associative_scan": associative_scan,
    "cond": cond,
    "custom_linear_solve": custom_linear_solve,
    "custom_root": custom_root,
    "fori_loop": fori_loop,
    "scan": scan,
    "switch": switch,
    "while_loop": while_loop,
}


# -- elementwise ---------------------------------------------------------------------------


def div(x: Any, y: Any) -> Any:
    """``x / y``, rounded toward zero for integers (C's division, ``jax.lax.div``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.div(np.array([7, -7]), 2).tolist(), float(lax.div(7.0, 2.0))
        ([3, -3], 3.5)
    """
    _check_same_dtype("div", x, y)
    if numpy.result_type(fnp.result_type(x), fnp.result_type(y)).kind in "iu":
        q = fnp.floor_divide(x, y)
        inexact = fnp.not_equal(fnp.multiply(q, y), x)
        return fnp.where(inexact & ((x < 0) != (y < 0)), q + 1, q)
    return fnp.true_divide(x, y)


def conj(x: Any) -> Any:
    """The complex conjugate (``jax.lax.conj``): a real float input becomes complex, as in
    JAX (``fnp.conj`` keeps NumPy's real result).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.conj(np.array([1.0, 2.0])).dtype, lax.conj(np.array([1 + 2j])).tolist()
        (dtype('complex128'), [(1-2j)])
    """
    dt = fnp.result_type(x)
    if dt.kind == "c":
        return _lax.conj_or_self(x)
    if dt.kind != "f":
        raise TypeError(f"lax.conj takes float or complex arrays, not {dt}: cast with .astype")
    return fnp.asarray(x).astype(numpy.result_type(dt, numpy.complex64))


def rsqrt(x: Any) -> Any:
    """``1 / sqrt(x)`` (``jax.lax.rsqrt``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.rsqrt(np.array([4.0, 16.0])).tolist()
        [0.5, 0.25]
    """
    return fnp.reciprocal(fnp.sqrt(x))


def reciprocal(x: Any) -> Any:
    """``1 / x`` (``jax.lax.reciprocal``).

    Example:
        >>> from ftransforms import lax
        >>> float(lax.reciprocal(4.0))
        0.25
    """
    return fnp.true_divide(1, x)


def integer_pow(x: Any, y: int) -> Any:
    """``x ** y`` for a Python integer ``y`` (``jax.lax.integer_pow``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import lax
        >>> lax.integer_pow(np.array([2.0, 3.0]), 3).tolist()
        [8.0, 27.0]
        >>> float(ft.grad(lax.integer_pow)(2.0, -1))
        -0.25
    """
    return fnp.power(x, operator.index(y))


def logistic(x: Any) -> Any:
    """The logistic sigmoid ``1 / (1 + exp(-x))`` (``jax.lax.logistic``).

    Example:
        >>> from ftransforms import lax
        >>> float(lax.logistic(0.0))
        0.5
    """
    return fnp.true_divide(1, fnp.add(1, fnp.exp(fnp.negative(x))))


def clamp(min: Any, x: Any, max: Any) -> Any:  # noqa: A002  (JAX's parameter names)
    """``x`` clipped to ``[min, max]``; note JAX's order of arguments (``jax.lax.clamp``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.clamp(0.0, np.array([-1.0, 0.5, 2.0]), 1.0).tolist()
        [0.0, 0.5, 1.0]

    The derivative is JAX's: ``x``'s flows only where ``min < x < max``, ``min``'s where
    ``x < min``, ``max``'s where ``x > max``; at a tie nothing flows (``minimum``/``maximum``
    would split it, 1/2 each).  ``min > max`` gives ``max`` everywhere, as XLA's clamp.
    """
    _check_same_dtype("clamp", min, x, max)
    below, above = fnp.less(x, min), fnp.greater(x, max)
    inside = fnp.logical_and(fnp.greater(x, min), fnp.less(x, max))
    tie = fnp.stop_gradient(x)  # a value at a bound: equal to it, with no derivative
    low = fnp.where(fnp.less_equal(min, max), min, max)  # x < min: XLA gives min(min, max)
    return fnp.where(inside, x, fnp.where(below, low, fnp.where(above, max, tie)))


def round(x: Any, rounding_method: int = 0) -> Any:  # noqa: A001  (JAX's name)
    """``x`` rounded to an integral value: half away from zero (``rounding_method=0``,
    JAX's default) or half to even (``1``) (``jax.lax.round``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> x = np.array([0.5, 1.5, -2.5])
        >>> lax.round(x).tolist(), lax.round(x, 1).tolist()
        ([1.0, 2.0, -3.0], [0.0, 2.0, -2.0])
    """
    method = int(getattr(rounding_method, "value", rounding_method))
    if method == 1:
        return fnp.round(x)
    if method != 0:
        raise UnsupportedOperationError(
            f"lax.round(x, rounding_method): rounding_method must be 0 (away from zero) or 1 "
            f"(to nearest even), got {rounding_method!r}"
        )
    return fnp.copysign(fnp.floor(fnp.abs(x) + 0.5), x)


def population_count(x: Any) -> Any:
    """The number of set bits of each integer, in its dtype (``jax.lax.population_count``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.population_count(np.array([7, -1], np.int32)).tolist()
        [3, 32]
    """
    x = fnp.asarray(x)
    # NumPy's bitwise_count counts the bits of |x|; JAX's, of the two's complement word
    unsigned = numpy.dtype(f"u{x.dtype.itemsize}")
    return fnp.bitwise_count(x.astype(unsigned)).astype(x.dtype)


def shift_right_logical(x: Any, y: Any) -> Any:
    """``x >> y`` filling with zeros, also for signed integers (``jax.lax.shift_right_logical``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> int(lax.shift_right_logical(np.int8(-128), np.int8(4)))
        8
    """
    dt = numpy.dtype(fnp.result_type(x))
    if dt.kind != "i":
        return fnp.right_shift(x, y)
    unsigned = numpy.dtype(f"u{dt.itemsize}")
    out = fnp.right_shift(fnp.asarray(x).astype(unsigned), fnp.asarray(y).astype(unsigned))
    return out.astype(dt)


def clz(x: Any) -> Any:
    """The number of leading zero bits of each integer (``jax.lax.clz``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.clz(np.array([1, 255, 0], np.uint8)).tolist()
        [7, 0, 8]
    """
    x = fnp.asarray(x)
    bits = x.dtype.itemsize * 8
    unsigned = numpy.dtype(f"u{x.dtype.itemsize}")
    # the top k + 1 bits are all zero exactly for k < clz(x)
    tops = numpy.array([1 << (bits - 1 - k) for k in range(bits)], dtype=unsigned)
    below = fnp.less(fnp.expand_dims(x.astype(unsigned), -1), tops)
    return fnp.sum(below, axis=-1).astype(x.dtype)


def complex(x: Any, y: Any) -> Any:  # noqa: A001  (JAX's name)
    """``x + 1j * y`` (``jax.lax.complex``).

    Example:
        >>> from ftransforms import lax
        >>> lax.complex(1.0, 2.0).item()
        (1+2j)
    """
    _check_same_dtype("complex", x, y)
    return fnp.add(x, fnp.multiply(1j, y))


def convert_element_type(operand: Any, new_dtype: Any) -> Any:
    """``operand`` cast to ``new_dtype`` (``jax.lax.convert_element_type``).  A float to
    integer cast truncates toward zero and saturates as XLA's does: out-of-range values
    become the type's minimum or maximum and NaN becomes 0 (NumPy's ``astype`` wraps or
    gives an arbitrary value there, which ``fnp.astype`` keeps).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.convert_element_type(np.array([1.7, -1.7]), np.int32).tolist()
        [1, -1]
        >>> lax.convert_element_type(np.array([300.0, -1.0, np.nan]), np.uint8).tolist()
        [255, 0, 0]
    """
    x = fnp.asarray(operand)
    new = numpy.dtype(new_dtype)
    if x.dtype.kind == "f" and new.kind in "iu":
        return _saturating_float_to_int(x, new)
    return x.astype(new)


def _saturating_float_to_int(x: Any, new: numpy.dtype) -> Any:
    """``x`` (real floating) cast to the integer dtype ``new``, saturating (XLA's rule)."""
    info = numpy.iinfo(new)
    low, top = float(info.min), float(info.max) + 1.0  # both powers of two: exact floats
    above = fnp.greater_equal(x, top)
    inside = fnp.where(fnp.isnan(x) | above, 0.0, fnp.maximum(x, low))
    return fnp.where(above, int(info.max), inside.astype(new)).astype(new)


def select_n(which: Any, *cases: Any) -> Any:
    """``cases[which]`` elementwise: ``which`` is a bool (two cases: false, then true) or an
    integer array (``jax.lax.select_n``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.select_n(np.array([0, 2, 1]), np.zeros(3), np.ones(3), np.full(3, 2.0)).tolist()
        [0.0, 2.0, 1.0]
    """
    if not cases:
        raise UnsupportedOperationError("lax.select_n(which, *cases): needs at least one case")
    out = cases[0]
    for i, case in enumerate(cases[1:], start=1):
        out = fnp.where(fnp.equal(which, i) if i > 1 or _is_int(which) else which, case, out)
    return out


def _is_int(x: Any) -> bool:
    return numpy.dtype(fnp.result_type(x)).kind in "iu"


# -- creation and shapes -----------------------------------------------------------------------


def iota(dtype: Any, size: int) -> Any:
    """``0, 1, ..., size - 1`` of ``dtype`` (``jax.lax.iota``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.iota(np.int32, 3).tolist()
        [0, 1, 2]
    """
    return numpy.arange(operator.index(size), dtype=dtype)


def broadcasted_iota(dtype: Any, shape: Sequence[int], dimension: int) -> Any:
    """An array of ``shape`` whose entries are their index along ``dimension``
    (``jax.lax.broadcasted_iota``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.broadcasted_iota(np.int32, (2, 3), 1).tolist()
        [[0, 1, 2], [0, 1, 2]]
    """
    shape = tuple(shape)
    line = numpy.arange(shape[dimension], dtype=dtype)
    view = [1] * len(shape)
    view[dimension] = shape[dimension]
    return numpy.broadcast_to(line.reshape(view), shape).copy()


def full(shape: Sequence[int], fill_value: Any, dtype: Any = None) -> Any:
    """An array of ``shape`` filled with ``fill_value`` (``jax.lax.full``).

    Example:
        >>> from ftransforms import lax
        >>> lax.full((2,), 3.0).tolist()
        [3.0, 3.0]
    """
    return fnp.full(tuple(shape), fill_value, dtype=dtype)


def full_like(x: Any, fill_value: Any, dtype: Any = None, shape: Any = None) -> Any:
    """An array like ``x`` (or of ``shape``) filled with ``fill_value`` (``jax.lax.full_like``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.full_like(np.zeros((2, 2), np.float32), 1).dtype
        dtype('float32')
    """
    dtype = fnp.result_type(x) if dtype is None else dtype
    return fnp.full(fnp.shape(x) if shape is None else tuple(shape), fill_value, dtype=dtype)


def broadcast(operand: Any, sizes: Sequence[int]) -> Any:
    """``operand`` with leading axes of ``sizes`` added (``jax.lax.broadcast``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.broadcast(np.arange(3), (2,)).shape
        (2, 3)
    """
    return fnp.broadcast_to(operand, (*tuple(sizes), *fnp.shape(operand)))


def broadcast_in_dim(
    operand: Any, shape: Sequence[int], broadcast_dimensions: Sequence[int]
) -> Any:
    """``operand`` broadcast to ``shape``, its axis ``i`` becoming axis
    ``broadcast_dimensions[i]`` (``jax.lax.broadcast_in_dim``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.broadcast_in_dim(np.arange(3), (3, 2), (0,)).tolist()
        [[0, 0], [1, 1], [2, 2]]
    """
    shape, dims = tuple(shape), tuple(broadcast_dimensions)
    in_shape = fnp.shape(operand)
    if len(dims) != len(in_shape) or list(dims) != sorted(dims):
        raise UnsupportedOperationError(
            f"lax.broadcast_in_dim(operand, shape, broadcast_dimensions): need one increasing "
            f"dimension per axis of the operand (shape {in_shape}), got {dims}"
        )
    view = [1] * len(shape)
    for axis, d in zip(dims, in_shape, strict=True):
        view[axis] = d
    return fnp.broadcast_to(fnp.reshape(operand, tuple(view)), shape)


def collapse(operand: Any, start_dimension: int, stop_dimension: int | None = None) -> Any:
    """``operand`` with axes ``start_dimension:stop_dimension`` merged into one
    (``jax.lax.collapse``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.collapse(np.zeros((2, 3, 4)), 1).shape
        (2, 12)
    """
    shape = fnp.shape(operand)
    stop = len(shape) if stop_dimension is None else stop_dimension
    start = start_dimension % max(1, len(shape))
    stop = stop % (len(shape) + 1) if stop < 0 else stop
    merged = math.prod(shape[start:stop])
    return fnp.reshape(operand, (*shape[:start], merged, *shape[stop:]))


def rev(operand: Any, dimensions: Sequence[int]) -> Any:
    """``operand`` reversed along ``dimensions`` (``jax.lax.rev``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.rev(np.arange(3), (0,)).tolist()
        [2, 1, 0]
    """
    return fnp.flip(operand, axis=tuple(dimensions))


def pad(operand: Any, padding_value: Any, padding_config: Sequence[tuple[int, int, int]]) -> Any:
    """``operand`` padded with ``padding_value``: per axis ``(low, high, interior)``, with
    ``interior`` values between neighbours and negative ``low``/``high`` cropping
    (``jax.lax.pad``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.pad(np.array([1.0, 2.0, 3.0]), 0.0, [(1, -1, 1)]).tolist()
        [0.0, 1.0, 0.0, 2.0, 0.0]
    """
    _check_same_dtype("pad", operand, padding_value)
    return _pad(operand, padding_value, padding_config)


def _pad(operand: Any, padding_value: Any, padding_config: Sequence[tuple[int, int, int]]) -> Any:
    """:func:`pad` without its dtype check (``reduce_window``'s ``init`` may be a NumPy
    scalar of another dtype; the padding takes the operand's)."""
    x = fnp.asarray(operand)
    config = [tuple(map(int, c)) for c in padding_config]
    if len(config) != x.ndim:
        raise UnsupportedOperationError(
            f"lax.pad(operand, padding_value, padding_config): one (low, high, interior) per "
            f"axis of the operand ({x.ndim}), got {len(config)}"
        )
    value = (
        fnp.asarray(padding_value).astype(x.dtype)
        if isinstance(padding_value, Tracer)
        else constant_like(padding_value, x, x.dtype)  # on x's backend
    )
    for axis, (low, high, interior) in enumerate(config):
        if interior < 0:
            raise UnsupportedOperationError(
                f"lax.pad: interior padding must be >= 0, got {interior}"
            )
        n = x.shape[axis]
        if interior > 0 and n > 1:
            size = n + (n - 1) * interior
            shape = list(x.shape)
            shape[axis] = size
            spread = fnp.broadcast_to(fnp.expand_dims(value, tuple(range(x.ndim))), tuple(shape))
            index = [builtins.slice(None)] * x.ndim
            index[axis] = builtins.slice(0, size, interior + 1)
            x = fnp.at(spread)[tuple(index)].set(x)
        parts = []
        for width in (low, high):
            shape = list(x.shape)
            shape[axis] = builtins.max(width, 0)
            parts.append(
                fnp.broadcast_to(fnp.expand_dims(value, tuple(range(x.ndim))), tuple(shape))
            )
        x = fnp.concatenate([parts[0], x, parts[1]], axis=axis)
        start, stop = builtins.max(-low, 0), x.shape[axis] - builtins.max(-high, 0)
        index = [builtins.slice(None)] * x.ndim
        index[axis] = builtins.slice(start, builtins.max(start, stop))
        x = x[tuple(index)]
    return x


# -- slicing -------------------------------------------------------------------------------------


def slice(  # noqa: A001  (JAX's name)
    operand: Any,
    start_indices: Sequence[int],
    limit_indices: Sequence[int],
    strides: Sequence[int] | None = None,
) -> Any:
    """``operand[start:limit:stride]`` on every axis (``jax.lax.slice``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.slice(np.arange(10), (1,), (8,), (3,)).tolist()
        [1, 4, 7]
    """
    x = fnp.asarray(operand)
    starts = [operator.index(a) for a in start_indices]
    limits = [operator.index(b) for b in limit_indices]
    steps = [1] * len(starts) if strides is None else [operator.index(s) for s in strides]
    where = f"lax.slice(operand, {tuple(starts)}, {tuple(limits)}, strides)"
    if not len(starts) == len(limits) == len(steps) == x.ndim:
        raise DimensionNumbersError(
            f"{where}: start_indices, limit_indices and strides need one entry per axis of "
            f"the operand of shape {x.shape}"
        )
    for a, b, s, n in zip(starts, limits, steps, x.shape, strict=True):
        if not 0 <= a <= b <= n or s < 1:  # JAX's TypeError: no wrapping, no clamping
            raise DimensionNumbersError(
                f"{where}: each axis needs 0 <= start <= limit <= its size and a positive "
                f"stride (JAX neither wraps negative indices nor clamps), got start {a}, "
                f"limit {b}, stride {s} for an axis of size {n} (operand shape {x.shape})"
            )
    return x[tuple(builtins.slice(a, b, s) for a, b, s in zip(starts, limits, steps))]


def slice_in_dim(
    operand: Any, start_index: int | None, limit_index: int | None, stride: int = 1, axis: int = 0
) -> Any:
    """``operand[start:limit:stride]`` along ``axis`` (``jax.lax.slice_in_dim``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.slice_in_dim(np.arange(12).reshape(3, 4), 1, 3, axis=1).tolist()
        [[1, 2], [5, 6], [9, 10]]
    """
    x = fnp.asarray(operand)
    axis = operator.index(axis) % builtins.max(x.ndim, 1)
    n = x.shape[axis]
    # JAX's: None is the axis' start or end, a negative index counts from the end
    start = 0 if start_index is None else operator.index(start_index)
    limit = n if limit_index is None else operator.index(limit_index)
    start, limit = start + n if start < 0 else start, limit + n if limit < 0 else limit
    starts, limits, strides = [0] * x.ndim, list(x.shape), [1] * x.ndim
    starts[axis], limits[axis], strides[axis] = start, limit, stride
    return slice(x, starts, limits, strides)


def index_in_dim(operand: Any, index: int, axis: int = 0, keepdims: bool = True) -> Any:
    """Entry ``index`` along ``axis``, the axis kept with size 1 by default
    (``jax.lax.index_in_dim``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.index_in_dim(np.arange(6).reshape(2, 3), 1, axis=1).tolist()
        [[1], [4]]
    """
    x = fnp.asarray(operand)
    n = x.shape[axis]
    i = operator.index(index)
    if not -n <= i < n:  # JAX's (and NumPy's) IndexError
        raise IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")
    i = i + n if i < 0 else i
    out = slice_in_dim(x, i, i + 1, 1, axis)
    return out if keepdims else fnp.squeeze(out, axis=axis)


def _clamped_start(start: Any, dim: int, size: int, wrap: bool = True) -> Any:
    """The start as JAX reads it: a negative one counts from the end (``-1`` is ``dim -
    1``; with ``wrap`` False, JAX's ``allow_negative_indices=False``, a negative int raises
    and a traced one is clamped to 0), then it is moved into ``[0, dim - size]``; an int,
    or a traced 0-d array."""
    if isinstance(start, Tracer):
        if wrap:
            start = fnp.where(start < 0, start + dim, start)
        return fnp.clip(start, 0, dim - size)
    start = operator.index(start)
    if start < 0 and not wrap:
        raise ValueError(
            f"Index {start} is out of bounds for dimension {dim} if allow_negative_indices=False"
        )
    start = start + dim if start < 0 else start
    return builtins.max(0, builtins.min(start, dim - size))


def _wraps(allow_negative_indices: bool | Sequence[bool], ndim: int) -> list[bool]:
    """JAX's ``allow_negative_indices`` (one bool, or one per axis) as one per axis."""
    if isinstance(allow_negative_indices, (bool, numpy.bool_)):
        return [bool(allow_negative_indices)] * ndim
    flags = [bool(f) for f in allow_negative_indices]
    if len(flags) != ndim:
        raise ValueError(
            f"allow_negative_indices must be a bool or one per axis ({ndim}), got {len(flags)}"
        )
    return flags


def dynamic_slice(
    operand: Any,
    start_indices: Sequence[Any],
    slice_sizes: Sequence[int],
    *,
    allow_negative_indices: bool | Sequence[bool] = True,
) -> Any:
    """``operand[start:start + size]`` on every axis, with starts that may be traced (batched
    under ``vmap``); as in JAX a negative start counts from the end, and the start is then
    clamped so that the slice fits (``jax.lax.dynamic_slice``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> x = np.arange(12).reshape(3, 4)
        >>> lax.dynamic_slice(x, (1, 3), (2, 2)).tolist()  # the column start is clamped to 2
        [[6, 7], [10, 11]]
    """
    x = fnp.asarray(operand)
    starts, sizes = list(start_indices), [operator.index(s) for s in slice_sizes]
    if len(starts) != x.ndim or len(sizes) != x.ndim:
        raise UnsupportedOperationError(
            f"lax.dynamic_slice(operand, start_indices, slice_sizes): one start and one size "
            f"per axis of the operand ({x.ndim}), got {len(starts)} and {len(sizes)}"
        )
    wraps = _wraps(allow_negative_indices, x.ndim)
    for axis, (start, size) in enumerate(zip(starts, sizes, strict=True)):
        dim = x.shape[axis]
        if not 0 <= size <= dim:
            raise UnsupportedOperationError(
                f"lax.dynamic_slice: slice size {size} does not fit axis {axis} of size {dim}"
            )
        s = _clamped_start(start, dim, size, wraps[axis])
        if isinstance(s, int):
            x = slice_in_dim(x, s, s + size, 1, axis)
        else:
            x = fnp.take(x, s + numpy.arange(size), axis=axis)
    return x


def dynamic_update_slice(
    operand: Any,
    update: Any,
    start_indices: Sequence[Any],
    *,
    allow_negative_indices: bool | Sequence[bool] = True,
) -> Any:
    """``operand`` with the block at ``start_indices`` replaced by ``update``; traced starts
    allowed; a negative one counts from the end, then each is clamped so that the block
    fits, as in JAX (``jax.lax.dynamic_update_slice``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.dynamic_update_slice(np.zeros(5), np.ones(2), (4,)).tolist()
        [0.0, 0.0, 0.0, 1.0, 1.0]
    """
    _check_same_dtype("dynamic_update_slice", operand, update)
    x, u = fnp.asarray(operand), fnp.asarray(update)
    starts = list(start_indices)
    if len(starts) != x.ndim or u.ndim != x.ndim:
        raise UnsupportedOperationError(
            f"lax.dynamic_update_slice(operand, update, start_indices): the update and the "
            f"starts need one entry per axis of the operand ({x.ndim}), got {u.ndim} and "
            f"{len(starts)}"
        )
    index = []
    wraps = _wraps(allow_negative_indices, x.ndim)
    for axis, start in enumerate(starts):
        dim, size = x.shape[axis], u.shape[axis]
        s = _clamped_start(start, dim, size, wraps[axis])
        if isinstance(s, int):
            index.append(builtins.slice(s, s + size))
        else:
            shape = [1] * x.ndim
            shape[axis] = size
            index.append(fnp.reshape(s + numpy.arange(size), tuple(shape)))
    if all(isinstance(i, builtins.slice) for i in index):
        return fnp.at(x)[tuple(index)].set(u.astype(x.dtype))
    index = [  # basic slices become index arrays too, to broadcast with the traced ones
        i
        if not isinstance(i, builtins.slice)
        else numpy.arange(i.start, i.stop).reshape([-1 if a == k else 1 for a in range(x.ndim)])
        for k, i in enumerate(index)
    ]
    return fnp.at(x)[tuple(index)].set(u.astype(x.dtype))


def dynamic_slice_in_dim(
    operand: Any,
    start_index: Any,
    slice_size: int,
    axis: int = 0,
    *,
    allow_negative_indices: bool = True,
) -> Any:
    """:func:`dynamic_slice` along one ``axis`` (``jax.lax.dynamic_slice_in_dim``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.dynamic_slice_in_dim(np.arange(6), 2, 3).tolist()
        [2, 3, 4]
    """
    x = fnp.asarray(operand)
    axis = axis % x.ndim
    starts = [0] * x.ndim
    starts[axis] = start_index
    sizes = list(x.shape)
    sizes[axis] = slice_size
    return dynamic_slice(x, starts, sizes, allow_negative_indices=allow_negative_indices)


def dynamic_index_in_dim(
    operand: Any,
    index: Any,
    axis: int = 0,
    keepdims: bool = True,
    *,
    allow_negative_indices: bool = True,
) -> Any:
    """Entry ``index`` (may be traced) along ``axis`` (``jax.lax.dynamic_index_in_dim``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.dynamic_index_in_dim(np.arange(6).reshape(3, 2), 2, keepdims=False).tolist()
        [4, 5]
    """
    out = dynamic_slice_in_dim(
        operand, index, 1, axis, allow_negative_indices=allow_negative_indices
    )
    return out if keepdims else fnp.squeeze(out, axis=axis)


def dynamic_update_slice_in_dim(
    operand: Any, update: Any, start_index: Any, axis: int, *, allow_negative_indices: bool = True
) -> Any:
    """:func:`dynamic_update_slice` along one ``axis``
    (``jax.lax.dynamic_update_slice_in_dim``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.dynamic_update_slice_in_dim(np.zeros((3, 2)), np.ones((1, 2)), 1, 0).tolist()
        [[0.0, 0.0], [1.0, 1.0], [0.0, 0.0]]
    """
    x = fnp.asarray(operand)
    starts = [0] * x.ndim
    starts[axis % x.ndim] = start_index
    return dynamic_update_slice(x, update, starts, allow_negative_indices=allow_negative_indices)


def dynamic_update_index_in_dim(
    operand: Any, update: Any, index: Any, axis: int, *, allow_negative_indices: bool = True
) -> Any:
    """``operand`` with entry ``index`` along ``axis`` replaced by ``update`` (with or
    without that axis) (``jax.lax.dynamic_update_index_in_dim``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.dynamic_update_index_in_dim(np.zeros((3, 2)), np.ones(2), 2, 0).tolist()
        [[0.0, 0.0], [0.0, 0.0], [1.0, 1.0]]
    """
    x, u = fnp.asarray(operand), fnp.asarray(update)
    if u.ndim == x.ndim - 1:
        u = fnp.expand_dims(u, axis)
    return dynamic_update_slice_in_dim(
        x, u, index, axis, allow_negative_indices=allow_negative_indices
    )


# -- reductions ------------------------------------------------------------------------------


def _axes(axes: Sequence[int]) -> tuple[int, ...]:
    return tuple(operator.index(a) for a in axes)


def _kept_dtype(x: Any) -> Any:
    """The dtype a ``lax`` sum or product of ``x`` accumulates in: an integer type's own
    (JAX wraps around; NumPy's ``sum`` would widen ``int8`` to ``int64``), else NumPy's."""
    dtype = numpy.dtype(fnp.result_type(x))
    return dtype if dtype.kind in "iu" else None


def sum_in_dtype(x: Any, axis: Any) -> Any:
    """``fnp.sum`` in ``x``'s own integer type (:func:`_kept_dtype`)."""
    return fnp.sum(x, axis=axis, dtype=_kept_dtype(x))


def prod_in_dtype(x: Any, axis: Any) -> Any:
    """``fnp.prod`` in ``x``'s own integer type (:func:`_kept_dtype`)."""
    return fnp.prod(x, axis=axis, dtype=_kept_dtype(x))


def reduce_sum(operand: Any, axes: Sequence[int]) -> Any:
    """The sum over ``axes`` (``jax.lax.reduce_sum``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.reduce_sum(np.ones((2, 3)), (1,)).tolist()
        [3.0, 3.0]
        >>> lax.reduce_sum(np.array([200, 100], np.uint8), (0,)).item()  # wraps, as JAX's
        44
    """
    return sum_in_dtype(fnp.asarray(operand), _axes(axes))


def reduce_prod(operand: Any, axes: Sequence[int]) -> Any:
    """The product over ``axes`` (``jax.lax.reduce_prod``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> float(lax.reduce_prod(np.array([2.0, 3.0]), (0,)))
        6.0
    """
    return prod_in_dtype(fnp.asarray(operand), _axes(axes))


def reduce_max(operand: Any, axes: Sequence[int]) -> Any:
    """The maximum over ``axes`` (``jax.lax.reduce_max``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.reduce_max(np.array([[1, 5], [7, 2]]), (0,)).tolist()
        [7, 5]
    """
    return fnp.max(operand, axis=_axes(axes))


def reduce_min(operand: Any, axes: Sequence[int]) -> Any:
    """The minimum over ``axes`` (``jax.lax.reduce_min``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.reduce_min(np.array([[1, 5], [7, 2]]), (1,)).tolist()
        [1, 2]
    """
    return fnp.min(operand, axis=_axes(axes))


def reduce_and(operand: Any, axes: Sequence[int]) -> Any:
    """``all`` over ``axes`` (``jax.lax.reduce_and``, booleans).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.reduce_and(np.array([[True, False], [True, True]]), (1,)).tolist()
        [False, True]
    """
    return fnp.all(operand, axis=_axes(axes))


def reduce_or(operand: Any, axes: Sequence[int]) -> Any:
    """``any`` over ``axes`` (``jax.lax.reduce_or``, booleans).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.reduce_or(np.array([[True, False], [False, False]]), (1,)).tolist()
        [True, False]
    """
    return fnp.any(operand, axis=_axes(axes))


def argmax(operand: Any, axis: int, index_dtype: Any) -> Any:
    """The index of the maximum along ``axis``, of ``index_dtype`` (``jax.lax.argmax``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.argmax(np.array([[1, 5], [7, 2]]), 1, np.int32).tolist()
        [1, 0]
    """
    return fnp.argmax(operand, axis=axis).astype(index_dtype)


def argmin(operand: Any, axis: int, index_dtype: Any) -> Any:
    """The index of the minimum along ``axis``, of ``index_dtype`` (``jax.lax.argmin``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.argmin(np.array([[1, 5], [7, 2]]), 1, np.int32).tolist()
        [0, 1]
    """
    return fnp.argmin(operand, axis=axis).astype(index_dtype)


def _cumulative(f: Callable, x: Any, axis: int, reverse: bool) -> Any:
    x = fnp.asarray(x)
    if reverse:
        return fnp.flip(f(fnp.flip(x, axis=axis), axis=axis), axis=axis)
    return f(x, axis=axis)


def cummax(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """The running maximum along ``axis`` (from the end with ``reverse``) (``jax.lax.cummax``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.cummax(np.array([1, 3, 2, 5])).tolist()
        [1, 3, 3, 5]
        >>> lax.cummax(np.array([1, 3, 2]), reverse=True).tolist()
        [3, 3, 2]
    """
    return _cumulative(
        lambda x, axis: numpy.maximum.accumulate(x, axis=axis), operand, axis, reverse
    )


def cummin(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """The running minimum along ``axis`` (from the end with ``reverse``) (``jax.lax.cummin``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.cummin(np.array([3, 1, 2])).tolist()
        [3, 1, 1]
    """
    return _cumulative(
        lambda x, axis: numpy.minimum.accumulate(x, axis=axis), operand, axis, reverse
    )


def cumlogsumexp(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """``log(cumsum(exp(x)))`` along ``axis``, computed stably (``jax.lax.cumlogsumexp``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> np.round(lax.cumlogsumexp(np.log(np.array([1.0, 2.0, 3.0]))), 6).tolist()
        [0.0, 1.098612, 1.791759]
    """
    return _cumulative(
        lambda x, axis: numpy.logaddexp.accumulate(x, axis=axis), operand, axis, reverse
    )


# -- products and sorting -------------------------------------------------------------------------


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _padding(
    padding: Any, shape: Sequence[int], window: Sequence[int], strides: Sequence[int]
) -> list[tuple[int, int]]:
    """JAX's ``padtype_to_pads``: ``"VALID"``, ``"SAME"``/``"SAME_LOWER"``, or the pairs."""
    if not isinstance(padding, str):
        return [tuple(map(int, p)) for p in padding]
    kind = padding.upper()
    if kind == "VALID":
        return [(0, 0)] * len(shape)
    if kind not in ("SAME", "SAME_LOWER"):
        raise UnsupportedOperationError(
            f"lax.reduce_window(..., padding={padding!r}): padding must be 'VALID', 'SAME', "
            f"'SAME_LOWER' or one (low, high) pair per axis"
        )
    pads = []
    for n, w, st in zip(shape, window, strides, strict=True):
        total = builtins.max((-(-n // st) - 1) * st + w - n, 0)
        lo = total // 2 if kind == "SAME" else total - total // 2
        pads.append((lo, total - lo))
    return pads


_MONOIDS = {  # the computations with a whole-axis NumPy reduction (lax.add is the layer's)
    id(fnp.add): sum_in_dtype,
    id(_lax.add): sum_in_dtype,
    id(fnp.maximum): fnp.max,
    id(_lax.maximum): fnp.max,
    id(fnp.minimum): fnp.min,
    id(_lax.minimum): fnp.min,
    id(fnp.multiply): prod_in_dtype,
    id(_lax.multiply): prod_in_dtype,
}


def _identity(whole: Callable, dtype: numpy.dtype) -> Any:
    """The entry that changes nothing in the whole-axis reduction ``whole`` (a sum, a
    product, ``fnp.max``, ``fnp.min``) of ``dtype``."""
    if whole is sum_in_dtype:
        return 0
    if whole is prod_in_dtype:
        return 1
    if dtype.kind == "b":
        return whole is fnp.min
    top = numpy.inf if dtype.kind in "fc" else numpy.iinfo(dtype).max
    bottom = -numpy.inf if dtype.kind in "fc" else numpy.iinfo(dtype).min
    return bottom if whole is fnp.max else top


def _real_entries(shape: tuple, base: list, pads: list, index: tuple) -> Any:
    """Per window entry (``index``'s layout), whether it is an operand entry: False at the
    padding and at the base dilation's holes, which JAX's ``reduce_window`` skips (only
    ``init_value`` and the operand's entries are combined); None where every entry is."""
    if all(b == 1 for b in base) and all(p == (0, 0) for p in pads):
        return None
    real = numpy.ones(shape, dtype=bool)
    if any(b > 1 for b in base):
        dilated = numpy.zeros([(n - 1) * b + 1 if n else 0 for n, b in zip(shape, base)], bool)
        dilated[tuple(builtins.slice(None, None, b) for b in base)] = real
        real = dilated
    real = numpy.pad(real, pads)
    real = real[index]
    return None if real.all() else real


def reduce_window(
    operand: Any,
    init_value: Any,
    computation: Callable[[Any, Any], Any],
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    padding: Any,
    base_dilation: Sequence[int] | None = None,
    window_dilation: Sequence[int] | None = None,
) -> Any:
    """``computation`` folded over every window of ``operand`` (starting from
    ``init_value``): pooling.  ``padding`` is ``"VALID"``, ``"SAME"`` or ``(low, high)`` per
    axis; dilations as JAX's (``jax.lax.reduce_window``).  As in JAX, each window combines
    ``init_value`` once with the operand's entries in it: the padding and the base
    dilation's holes count for nothing.
    ``lax.add``/``max``/``min``/``mul`` reduce each window at once; any other binary
    ``computation`` is folded over the window's entries.

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> x = np.arange(16.0).reshape(4, 4)
        >>> lax.reduce_window(x, -np.inf, lax.max, (2, 2), (2, 2), "VALID").tolist()
        [[5.0, 7.0], [13.0, 15.0]]
    """
    if isinstance(operand, (tuple, list)):
        return _reduce_windows_together(
            operand, init_value, computation, window_dimensions, window_strides, padding,
            base_dilation, window_dilation,
        )  # fmt: skip
    x = fnp.asarray(operand)
    init = fnp.asarray(init_value).astype(x.dtype)
    windows, out_shape, real_of = _windows(
        x, init, window_dimensions, window_strides, padding, base_dilation, window_dilation
    )
    axes = tuple(range(x.ndim, 2 * x.ndim))
    # NOTE [reduce_window's padding]: JAX (XLA) combines init_value once with the operand's
    # entries of each window and skips the padding and the base dilation's holes.  They are
    # filled with init_value above, which is the same where init_value is the reduction's
    # identity (0 for add, -inf for max: pooling); otherwise they are masked out here.
    whole = _MONOIDS.get(id(computation))
    neutral = None if whole is None else _identity(whole, x.dtype)
    if whole is not None and not isinstance(init, Tracer) and bool(numpy.all(init == neutral)):
        real = None  # the common case, pooling: nothing to mask
    else:
        real = real_of()
    if whole is not None:
        if real is not None:
            windows = fnp.where(real, windows, neutral)
        return computation(init, whole(windows, axis=axes))
    (acc,) = _fold_windows([windows], [init], lambda a, b: (computation(a[0], b[0]),), real)
    return acc


def _windows(
    x: Any,
    init: Any,
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    padding: Any,
    base_dilation: Sequence[int] | None,
    window_dilation: Sequence[int] | None,
) -> tuple[Any, list[int], Callable[[], Any]]:
    """``x``'s windows, shaped ``(*out, *window)`` (the padding and the base dilation's
    holes hold ``init``), the output's shape, and a function giving the mask of the
    operand's own entries among them (None where all are)."""
    nd = x.ndim
    window = [operator.index(w) for w in window_dimensions]
    strides = [operator.index(st) for st in window_strides]
    base = [1] * nd if base_dilation is None else [operator.index(b) for b in base_dilation]
    wdil = [1] * nd if window_dilation is None else [operator.index(d) for d in window_dilation]
    if not len(window) == len(strides) == len(base) == len(wdil) == nd:
        raise UnsupportedOperationError(
            f"lax.reduce_window: window_dimensions, window_strides and the dilations need one "
            f"entry per axis of the operand ({nd})"
        )
    operand_shape = x.shape
    if any(b > 1 for b in base):
        x = _pad(x, init, [(0, 0, b - 1) for b in base])
    span = [(w - 1) * d + 1 for w, d in zip(window, wdil, strict=True)]
    pads = _padding(padding, x.shape, span, strides)
    if any(p != (0, 0) for p in pads):
        x = _pad(x, init, [(lo, hi, 0) for lo, hi in pads])
    out_shape = [
        builtins.max(0, (n - sp) // st + 1)
        for n, sp, st in zip(x.shape, span, strides, strict=True)
    ]
    # one index array per axis, shaped (*out, *window) by broadcasting
    index = []
    for axis in range(nd):
        starts = numpy.arange(out_shape[axis]) * strides[axis]
        offsets = numpy.arange(window[axis]) * wdil[axis]
        shape = [1] * (2 * nd)
        shape[axis] = out_shape[axis]
        ix = starts.reshape(shape)
        shape = [1] * (2 * nd)
        shape[nd + axis] = window[axis]
        index.append(ix + offsets.reshape(shape))
    windows = x[tuple(index)]
    return windows, out_shape, lambda: _real_entries(operand_shape, base, pads, tuple(index))


def _fold_windows(windows: list, inits: list, step: Callable, real: Any) -> list:
    """``step`` (tuples of values to a tuple) folded over the windows' entries from
    ``inits``, entry by entry, skipping the entries ``real`` masks out."""
    out_shape = tuple(windows[0].shape[: windows[0].ndim // 2])
    flats = [fnp.reshape(w, (*out_shape, -1)) for w in windows]
    real = None if real is None else numpy.reshape(real, (*out_shape, -1))
    acc = [fnp.broadcast_to(i, out_shape) for i in inits]
    for j in range(flats[0].shape[-1]):
        new = list(step(tuple(acc), tuple(f[..., j] for f in flats)))
        if len(new) != len(acc):
            raise UnsupportedOperationError(
                f"lax.reduce_window: the computation must return {len(acc)} values, one per "
                f"operand, got {len(new)}"
            )
        acc = [n if real is None else fnp.where(real[..., j], n, a) for n, a in zip(new, acc)]
    return acc


def _reduce_windows_together(
    operands: Sequence[Any],
    init_values: Any,
    computation: Callable,
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    padding: Any,
    base_dilation: Sequence[int] | None,
    window_dilation: Sequence[int] | None,
) -> Any:
    """``reduce_window`` of several operands of one shape at once, ``computation`` taking
    and returning tuples (``jax.lax.reduce_window``'s variadic form: an argmax pooling)."""
    xs = [fnp.asarray(o) for o in operands]
    inits = list(init_values) if isinstance(init_values, (tuple, list)) else [init_values]
    if len(inits) != len(xs) or len({x.shape for x in xs}) > 1:
        raise UnsupportedOperationError(
            f"lax.reduce_window: one init value per operand and operands of one shape, got "
            f"{len(inits)} init values for operands of shapes {[x.shape for x in xs]}"
        )
    inits = [fnp.asarray(i).astype(x.dtype) for i, x in zip(inits, xs, strict=True)]
    windows, real_of = [], None
    for x, init in zip(xs, inits, strict=True):
        w, _, real_of = _windows(
            x, init, window_dimensions, window_strides, padding, base_dilation, window_dilation
        )
        windows.append(w)
    like = tuple if isinstance(operands, tuple) else list  # the computation sees the operands'
    out = _fold_windows(windows, inits, lambda a, b: computation(like(a), like(b)), real_of())
    return like(out)


def dot_general(
    lhs: Any,
    rhs: Any,
    dimension_numbers: Any,
    precision: Any = None,
    preferred_element_type: Any = None,
    **_: Any,
) -> Any:
    """The general tensor contraction: ``dimension_numbers = ((lhs_contract, rhs_contract),
    (lhs_batch, rhs_batch))``; the result's axes are the batch axes, then ``lhs``'s free
    axes, then ``rhs``'s (``jax.lax.dot_general``, an ``einsum``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> a, b = np.ones((5, 2, 3)), np.ones((5, 3, 4))
        >>> lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,)))).shape
        (5, 2, 4)
    """
    (lc, rc), (lb, rb) = dimension_numbers
    nl, nr = fnp.ndim(lhs), fnp.ndim(rhs)
    lc, rc, lb, rb = ([a % n for a in axes] for axes, n in ((lc, nl), (rc, nr), (lb, nl), (rb, nr)))
    letters = iter(_LETTERS)
    ls, rs = [None] * nl, [None] * nr
    for a, b in zip(lb, rb, strict=True):
        ls[a] = rs[b] = next(letters)
    for a, b in zip(lc, rc, strict=True):
        ls[a] = rs[b] = next(letters)
    for i in range(nl):
        ls[i] = ls[i] or next(letters)
    for i in range(nr):
        rs[i] = rs[i] or next(letters)
    free_l = [ls[i] for i in range(nl) if i not in lb and i not in lc]
    free_r = [rs[i] for i in range(nr) if i not in rb and i not in rc]
    out = "".join([ls[a] for a in lb] + free_l + free_r)
    result = fnp.einsum(f"{''.join(ls)},{''.join(rs)}->{out}", lhs, rhs)
    return result if preferred_element_type is None else result.astype(preferred_element_type)


def dot(lhs: Any, rhs: Any, precision: Any = None, preferred_element_type: Any = None) -> Any:
    """The vector-vector, matrix-vector or matrix-matrix product (``jax.lax.dot``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.dot(np.eye(2), np.array([1.0, 2.0])).tolist()
        [1.0, 2.0]
    """
    if fnp.ndim(lhs) > 2 or fnp.ndim(rhs) > 2:
        raise UnsupportedOperationError(
            f"lax.dot(lhs, rhs): operands of rank 1 or 2, got {fnp.ndim(lhs)} and "
            f"{fnp.ndim(rhs)}; use lax.dot_general or lax.batch_matmul"
        )
    result = fnp.dot(lhs, rhs)
    return result if preferred_element_type is None else result.astype(preferred_element_type)


def batch_matmul(lhs: Any, rhs: Any, precision: Any = None) -> Any:
    """Matrix products over matching leading batch axes (``jax.lax.batch_matmul``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.batch_matmul(np.ones((4, 2, 3)), np.ones((4, 3, 5))).shape
        (4, 2, 5)
    """
    return fnp.matmul(lhs, rhs)


def descending_key(x: Any) -> Any:
    """A key whose ascending order is ``x``'s descending order (integers: bitwise not)."""
    return fnp.invert(x) if _is_int(x) else fnp.negative(x)


def sort(operand: Any, dimension: int = -1, is_stable: bool = True, num_keys: int = 1) -> Any:
    """``operand`` sorted along ``dimension``; a sequence of arrays is sorted together,
    ordered by its first ``num_keys`` arrays lexicographically (``jax.lax.sort``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.sort(np.array([3, 1, 2])).tolist()
        [1, 2, 3]
        >>> keys, vals = lax.sort((np.array([2, 1, 2]), np.array([10.0, 20.0, 30.0])))
        >>> keys.tolist(), vals.tolist()
        ([1, 2, 2], [20.0, 10.0, 30.0])
    """
    if not isinstance(operand, (tuple, list)):
        return fnp.sort(operand, axis=dimension, kind="stable")
    arrays = [fnp.asarray(a) for a in operand]
    if not 1 <= num_keys <= len(arrays):
        raise UnsupportedOperationError(
            f"lax.sort(operand, num_keys={num_keys}): num_keys must be between 1 and the "
            f"number of operands ({len(arrays)})"
        )
    order = None
    for key in reversed(arrays[:num_keys]):  # least significant key first, stable sorts
        k = key if order is None else fnp.take_along_axis(key, order, axis=dimension)
        step = fnp.argsort(k, axis=dimension, kind="stable")
        order = step if order is None else fnp.take_along_axis(order, step, axis=dimension)
    return tuple(fnp.take_along_axis(a, order, axis=dimension) for a in arrays)


def split(operand: Any, sizes: Sequence[int], axis: int = 0) -> list[Any]:  # noqa: A001
    """``operand`` cut along ``axis`` into pieces of ``sizes`` (which sum to its length)
    (``jax.lax.split``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> [p.tolist() for p in lax.split(np.arange(5), (2, 3))]
        [[0, 1], [2, 3, 4]]
    """
    x = fnp.asarray(operand)
    sizes = [operator.index(n) for n in sizes]
    if sum(sizes) != x.shape[axis] or any(n < 0 for n in sizes):
        raise UnsupportedOperationError(
            f"lax.split(operand, sizes, axis={axis}): the sizes {sizes} must be non-negative and "
            f"sum to the axis' length {x.shape[axis]}"
        )
    cuts = numpy.cumsum(sizes)[:-1].tolist()
    return list(fnp.split(x, cuts, axis=axis))


def sort_key_val(keys: Any, values: Any, dimension: int = -1, is_stable: bool = True) -> Any:
    """``(keys, values)`` sorted by ``keys`` along ``dimension`` (``jax.lax.sort_key_val``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> [a.tolist() for a in lax.sort_key_val(np.array([3, 1]), np.array([0.5, 1.5]))]
        [[1, 3], [1.5, 0.5]]
    """
    return sort((keys, values), dimension, is_stable, 1)


def _total_order_descending_key(x: Any) -> Any:
    """A key whose stable ascending order is ``x``'s descending order in XLA's total order
    of floats (``NaN > inf > ... > 0.0 > -0.0 > ... > -inf > -NaN``), which
    ``jax.lax.top_k`` ranks by: a float's bits read as a signed integer, the non-sign bits
    flipped where the sign is set, then bitwise-not (integers: bitwise-not, booleans: not)."""
    if numpy.dtype(x.dtype).kind == "b":
        return fnp.logical_not(x)
    if _is_int(x) or numpy.dtype(x.dtype).kind not in "f":
        return descending_key(x)
    signed = numpy.dtype(f"i{numpy.dtype(x.dtype).itemsize}")
    bits = bitcast_convert_type_p.bind(fnp.stop_gradient(x), new_dtype=signed)
    ordered = fnp.where(bits < 0, fnp.bitwise_xor(bits, numpy.iinfo(signed).max), bits)
    return fnp.invert(ordered)


def top_k(operand: Any, k: int, *, axis: int = -1) -> tuple[Any, Any]:
    """The ``k`` largest entries along ``axis`` (the last by default) and their ``int32``
    indices, the lower index first among ties (``jax.lax.top_k``); differentiable in the
    values.  Floats are ranked as XLA ranks them: ``NaN`` above ``inf``, ``0.0`` above
    ``-0.0``, a negative ``NaN`` below ``-inf``.

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> values, indices = lax.top_k(np.array([1.0, 4.0, 2.0, 4.0]), 2)
        >>> values.tolist(), indices.tolist()
        ([4.0, 4.0], [1, 3])
        >>> lax.top_k(np.array([1.0, np.nan, 2.0]), 2)[1].tolist()
        [1, 2]
    """
    k = operator.index(k)
    x = fnp.asarray(operand)
    axis = operator.index(axis)
    if not -x.ndim <= axis < x.ndim:
        raise UnsupportedOperationError(
            f"lax.top_k(operand, k, axis={axis}): axis out of range for an operand of "
            f"{x.ndim} dimensions"
        )
    x = fnp.moveaxis(x, axis, -1)
    if not 0 <= k <= x.shape[-1]:
        raise UnsupportedOperationError(
            f"lax.top_k(operand, k): k must be between 0 and the size {x.shape[-1]} of "
            f"axis {axis}, got {k}"
        )
    values, order = largest_along_last(x, k, _total_order_descending_key)
    return fnp.moveaxis(values, -1, axis), fnp.moveaxis(order, -1, axis)


def largest_along_last(x: Any, k: int, key: Callable[[Any], Any]) -> tuple[Any, Any]:
    """The ``k`` entries of ``x`` first in the stable ascending order of ``key(x)`` along
    the last axis, and their ``int32`` indices (``top_k``'s and ``approx_max_k``'s core)."""
    order = fnp.argsort(key(x), axis=-1, kind="stable")[..., :k]
    return fnp.take_along_axis(x, order, axis=-1), order.astype(numpy.int32)


# -- installing into ftransforms.lax ------------------------------------------------------------

#: The names this module gives ``ftransforms.lax`` (NOTE [jax.lax names in ftransforms.lax]).
__all__ = sorted(
    [
        *ALIASES,
        "argmax",
        "argmin",
        "associative_scan",
        "batch_matmul",
        "broadcast",
        "broadcast_in_dim",
        "conj",
        "broadcasted_iota",
        "clamp",
        "clz",
        "collapse",
        "complex",
        "cond",
        "convert_element_type",
        "cumlogsumexp",
        "cummax",
        "cummin",
        "custom_linear_solve",
        "custom_root",
        "div",
        "dot",
        "dot_general",
        "dynamic_index_in_dim",
        "dynamic_slice",
        "dynamic_slice_in_dim",
        "dynamic_update_index_in_dim",
        "dynamic_update_slice",
        "dynamic_update_slice_in_dim",
        "fori_loop",
        "full",
        "full_like",
        "index_in_dim",
        "integer_pow",
        "iota",
        "logistic",
        "map",
        "pad",
        "population_count",
        "reciprocal",
        "reduce_and",
        "reduce_max",
        "reduce_min",
        "reduce_or",
        "reduce_prod",
        "reduce_sum",
        "reduce_window",
        "rev",
        "round",
        "rsqrt",
        "scan",
        "select_n",
        "shift_right_logical",
        "slice",
        "slice_in_dim",
        "sort",
        "sort_key_val",
        "split",
        "switch",
        "top_k",
        "while_loop",
    ]
)

#: The layer's own functions that are JAX's too, made public with this module's names.
ALSO_PUBLIC = ("cumsum", "cumprod")


def install(lax_module: types.ModuleType) -> None:
    """Make the names of :data:`__all__` and of the modules next to this one that
    ``lax_module`` (``ftransforms.lax``) does not define its attributes, through a module
    ``__getattr__``, and list them (with :data:`ALSO_PUBLIC`) in its ``__all__``
    (NOTE [jax.lax names in ftransforms.lax]).

    Example:
        >>> import ftransforms
        >>> from ftransforms import lax
        >>> "dynamic_slice" in lax.__all__ and bool(lax.rsqrt(4.0) == 0.5)
        True
    """
    # late import: the modules next to this one build on it (conv on pad, reduce on _MONOIDS)
    from ftransforms import jax_lax_collectives as collectives  # noqa: PLC0415  late import: above
    from ftransforms import jax_lax_conv as conv_module  # noqa: PLC0415  late import: above
    from ftransforms import jax_lax_gather as gather_module  # noqa: PLC0415  late import: above
    from ftransforms import jax_lax_linalg as linalg  # noqa: PLC0415  late import: above
    from ftransforms import jax_lax_misc as misc  # noqa: PLC0415  late import: above

    modules = (collectives, conv_module, gather_module, misc)
    defined = {**globals(), **{n: getattr(m, n) for m in modules for n in m.__all__}}
    names = sorted({*__all__, *(n for m in modules for n in m.__all__)})
    given = {n: {**ALIASES, **REEXPORTS}.get(n) or defined[n] for n in names}
    given = {n: f for n, f in given.items() if n not in vars(lax_module)}
    given["linalg"] = linalg  # ft.lax.linalg, as jax.lax.linalg (a namespace)
    # ... which `import ftransforms.lax.linalg` finds too (lax is a module, not a package)
    sys.modules[f"{lax_module.__name__}.linalg"] = linalg

    def __getattr__(name: str) -> Any:  # noqa: N807  (PEP 562's module hook)
        # A module __getattr__, not setattr: lax.py's own code keeps Python's builtins
        # (map, slice, max, ...) that several of these names would shadow in its globals.
        try:
            return given[name]
        except KeyError:
            raise AttributeError(
                f"module {lax_module.__name__!r} has no attribute {name!r}"
            ) from None

    def __dir__() -> list[str]:  # noqa: N807
        return sorted({*vars(lax_module), *given})

    lax_module.__getattr__ = __getattr__
    lax_module.__dir__ = __dir__
    lax_module.__all__ = sorted({*lax_module.__all__, *names, *ALSO_PUBLIC})
