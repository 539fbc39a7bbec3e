"""Logic functions: whole-array comparisons (``allclose``, ``isclose``, ``array_equal``)
and array type testing (``isreal``, ``iscomplexobj``, ...) (NumPy's "Logic functions").
"""

from __future__ import annotations

from typing import Any

import numpy

from ftransforms.core.tracer import Tracer
from ftransforms.numpy.creation import as_operand
from ftransforms.numpy.dispatch import implements
from ftransforms.numpy.helpers import dtype_of, same_across_batch, shape, to_host
from ftransforms.numpy.indexing import where
from ftransforms.numpy.reductions import all
from ftransforms.numpy.ufuncs import (
    abs,
    equal,
    imag,
    isfinite,
    isinf,
    isnan,
    logical_and,
    logical_not,
    logical_or,
    real,
    signbit,
)

__all__ = [
    "allclose",
    "isclose",
    "isposinf",
    "isneginf",
    "isreal",
    "iscomplex",
    "isrealobj",
    "iscomplexobj",
    "real_if_close",
    "array_equal",
    "array_equiv",
]


@implements(numpy.allclose)
def allclose(
    a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> bool:
    """``numpy.allclose``: whether :func:`isclose` holds everywhere, as a Python bool
    (infinities are close to themselves, NaNs to each other with ``equal_nan=True``).  A
    batched value has no single bool, so under ``vmap`` it raises
    :class:`~ftransforms.errors.BatchedControlFlowError`; use :func:`isclose` there.

    Example:
        >>> import numpy as np
        >>> import ftransforms.numpy as fnp
        >>> fnp.allclose(np.array([1.0, 2.0]), np.array([1.0, 2.0 + 1e-9]))
        True
        >>> fnp.allclose(1.0, 1.1)
        False
        >>> fnp.allclose(np.array([np.inf, np.nan]), np.array([np.inf, np.nan]), equal_nan=True)
        True
    """
    return bool(all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)))


@implements(numpy.isclose)
def isclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False):
    """``numpy.isclose``: elementwise ``|a - b| <= atol + rtol * |b|``, infinities close only
    to themselves, NaNs to each other with ``equal_nan=True`` (no derivative: a boolean
    result).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> a, b = np.array([1.0, 1.1, np.nan]), np.array([1.0 + 1e-9, 1.0, np.nan])
        >>> fnp.isclose(a, b).tolist(), fnp.isclose(a, b, equal_nan=True).tolist()
        ([True, False, False], [True, False, True])
        >>> ft.vmap(lambda x: fnp.isclose(x, 1.0))(np.array([1.0, 1.5])).tolist()
        [True, False]
    """
    finite = logical_and(isfinite(a), isfinite(b))
    # the non-finite entries are replaced by 0 first: inf - inf would warn (NumPy's does not)
    a_f, b_f = where(finite, a, 0), where(finite, b, 0)
    close = logical_and(finite, abs(a_f - b_f) <= atol + rtol * abs(b_f))
    close = logical_or(close, a == b)  # infinities are close only to themselves
    if equal_nan:
        close = logical_or(close, logical_and(isnan(a), isnan(b)))
    return close


@implements(numpy.isposinf)
def isposinf(x: Any) -> Any:
    """``numpy.isposinf``: whether each element is ``+inf`` (a boolean result).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> x = np.array([np.inf, -np.inf, 1.0, np.nan])
        >>> fnp.isposinf(x).tolist()
        [True, False, False, False]
        >>> ft.vmap(fnp.isposinf)(x).tolist()
        [True, False, False, False]
    """
    return logical_and(isinf(x), logical_not(signbit(x)))


@implements(numpy.isneginf)
def isneginf(x: Any) -> Any:
    """``numpy.isneginf``: whether each element is ``-inf`` (a boolean result).

    Example:
        >>> import numpy as np
        >>> import ftransforms.numpy as fnp
        >>> fnp.isneginf(np.array([np.inf, -np.inf, 1.0, np.nan])).tolist()
        [False, True, False, False]
    """
    return logical_and(isinf(x), signbit(x))


@implements(numpy.isreal)
def isreal(x: Any) -> Any:
    """``numpy.isreal``: whether each element's imaginary part is zero (all true for a
    real dtype).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.isreal(np.array([1 + 0j, 1 + 2j, 3.0])).tolist()
        [True, False, True]
        >>> ft.vmap(fnp.isreal)(np.array([1 + 0j, 1 + 2j])).tolist()
        [True, False]
    """
    return imag(x) == 0


@implements(numpy.iscomplex)
def iscomplex(x: Any) -> Any:
    """``numpy.iscomplex``: whether each element's imaginary part is nonzero.

    Example:
        >>> import numpy as np
        >>> import ftransforms.numpy as fnp
        >>> fnp.iscomplex(np.array([1 + 0j, 1 + 2j, 3.0])).tolist()
        [False, True, False]
    """
    return imag(x) != 0


@implements(numpy.isrealobj)
def isrealobj(x: Any) -> bool:
    """``numpy.isrealobj``: whether the dtype is not complex (decided by the dtype alone,
    so a tracer answers it without reading values).

    Example:
        >>> import numpy as np
        >>> import ftransforms.numpy as fnp
        >>> fnp.isrealobj(np.array([1.0])), fnp.isrealobj(np.array([1 + 0j]))
        (True, False)
    """
    return _dtype_kind(x) != "c"


def _dtype_kind(x: Any) -> str:
    """The dtype kind of an array, tracer, scalar or (nested) sequence of them."""
    if isinstance(x, (list, tuple)):
        return as_operand(x).dtype.kind
    return dtype_of(x).kind


@implements(numpy.iscomplexobj)
def iscomplexobj(x: Any) -> bool:
    """``numpy.iscomplexobj``: whether the dtype is complex, even with zero imaginary
    parts (decided by the dtype alone).

    Example:
        >>> import numpy as np
        >>> import ftransforms.numpy as fnp
        >>> fnp.iscomplexobj(np.array([1 + 0j])), fnp.iscomplexobj(np.array([1, 2]))
        (True, False)
    """
    return _dtype_kind(x) == "c"


@implements(numpy.real_if_close)
def real_if_close(a: Any, tol: float = 100) -> Any:
    """``numpy.real_if_close``: the real part when every imaginary part is within ``tol``
    (machine epsilons if ``tol > 1``) of zero.  The choice is read from the values: under
    ``vmap`` it must be the same for every batch element.

    Example:
        >>> import numpy as np
        >>> real_if_close(np.array([2.0 + 1e-16j, 1.0 + 0j])).tolist()
        [2.0, 1.0]
    """
    a = as_operand(a)
    dt = dtype_of(a)
    if dt.kind != "c":
        return a
    if tol > 1:
        tol = numpy.finfo(dt).eps * tol
    close = all(abs(imag(a)) < tol)
    fix = "the imaginary parts must be negligible for all batch elements or for none"
    if same_across_batch(close, "real_if_close(a)", fix):
        return real(a)
    return a


def _boolean(result: Any, *inputs: Any) -> Any:
    """A Python bool for plain arrays (as NumPy), a 0-d boolean tracer otherwise."""
    if any(isinstance(x, Tracer) for x in inputs):
        return result
    return bool(to_host(result))


@implements(numpy.array_equal)
def array_equal(a1: Any, a2: Any, equal_nan: bool = False) -> Any:
    """``numpy.array_equal``: same shape and elements.  A Python bool for arrays; on
    tracers a 0-d boolean tracer (``bool()`` works on it outside ``vmap``).

    Example:
        >>> import numpy as np
        >>> array_equal(np.array([1.0, np.nan]), np.array([1.0, np.nan]), equal_nan=True)
        True
    """
    a1, a2 = as_operand(a1), as_operand(a2, a1)
    if shape(a1) != shape(a2):
        return False
    same = equal(a1, a2)
    if equal_nan and dtype_of(a1).kind in "fc" and dtype_of(a2).kind in "fc":
        same = logical_or(same, logical_and(isnan(a1), isnan(a2)))
    return _boolean(all(same), a1, a2)


@implements(numpy.array_equiv)
def array_equiv(a1: Any, a2: Any) -> Any:
    """``numpy.array_equiv``: equal after broadcasting (a Python bool for arrays, a 0-d
    boolean tracer on tracers).

    Example:
        >>> import numpy as np
        >>> array_equiv(np.array([1, 2]), np.array([[1, 2], [1, 2]]))
        True
    """
    a1, a2 = as_operand(a1), as_operand(a2, a1)
    try:
        numpy.broadcast_shapes(shape(a1), shape(a2))
    except ValueError:
        return False
    return _boolean(all(equal(a1, a2)), a1, a2)
