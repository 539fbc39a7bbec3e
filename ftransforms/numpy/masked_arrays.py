"""``numpy.ma`` on tracers: the finiteness masks of its operations.

NOTE [numpy.ma's masks of traced values]: a ``numpy.ma.masked_array`` of a tracer holds a
NumPy object array of 0-d tracers, and NumPy's object loops compute through them.  But
``numpy.ma``'s division, ``log``, ``sqrt``, ``power`` (``m ** 2``) and
``mean(keepdims=True)`` mask the invalid results with ``umath.isfinite(result)`` /
``np.isfinite(result)``, a ufunc with no object loop: TypeError (``ft.grad(lambda v:
np.ma.log(np.ma.masked_array(v, [0, 1, 0])).sum())``).  So while a transform is active,
``isfinite`` of ``numpy`` and of ``numpy._core.umath`` (the module ``numpy.ma`` calls it
from) answer an object array that holds tracers, called with no other argument, with
the plain boolean array of the traced values' finiteness: a mask has no derivative, and
NumPy's masks are plain arrays.  It is read as a tracer's value is read (under ``jit``
the recording then depends on the data; under ``vmap`` rows whose masks differ split the
batch: NOTE [splitting the batch]).  Other calls reach NumPy's ufunc as they are, at the
cost of one type test.  A traced boolean mask given to ``numpy.ma``
(``masked_array(v, mask=v > 0.6)``, which converts it with ``np.array(mask,
dtype=bool)``) is read the same way (``Tracer.__array__``): it raised there, and ``numpy.ma``
took the TypeError for a mask of tuples (MaskError).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> ft.grad(lambda v: np.ma.log(np.ma.masked_array(v, [0, 1, 0])).sum())(
    ...     np.array([1.0, 2.0, 4.0]))
    array([1.  , 0.  , 0.25])
"""

from __future__ import annotations

import functools
import sys
from typing import Any

import numpy
import numpy._core.umath
import numpy.ma.core

from ftransforms.core.mutation import PATCHED_WHILE_ACTIVE
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.helpers import array_like, holds_tracer

__all__ = ["object_isfinite", "traced_check_fill_value", "traced_extremum_fill_value"]

_ISFINITE = numpy.isfinite


@functools.wraps(_ISFINITE)
def object_isfinite(x: Any, *args: Any, **kwargs: Any) -> Any:
    """``numpy.isfinite`` that answers an object array holding tracers with the plain
    boolean array of their finiteness (NOTE [numpy.ma's masks of traced values]).

    Example:
        >>> import numpy as np
        >>> object_isfinite(np.array([1.0, np.inf])).tolist()
        [True, False]
    """
    if type(x) is numpy.ndarray and x.dtype.kind == "O" and not args and not kwargs:
        if holds_tracer(x):
            finite = _ISFINITE(array_like(x))
            return numpy.asarray(finite._concrete() if isinstance(finite, Tracer) else finite)
    return _ISFINITE(x, *args, **kwargs)


for _namespace in (vars(numpy), vars(numpy._core.umath)):
    PATCHED_WHILE_ACTIVE.append(
        (_namespace, {"isfinite": object_isfinite}, {"isfinite": _ISFINITE})
    )


# NOTE [fill values of traced masked arrays]: ``numpy.ma``'s ``max``/``min``/``ptp``/
# ``argmax``/``argmin``/``sort``/``median`` fill the masked elements with
# ``maximum_fill_value``/``minimum_fill_value`` of the array's dtype, and for the object
# array of 0-d tracers (NOTE [numpy.ma's masks of traced values]) NumPy has none (its
# string default ``'?'``, which then meets a float in a comparison: TypeError).  So while
# a transform is active those two functions of ``numpy.ma.core`` (where ``numpy.ma``'s
# methods look them up) answer such an array with the fill value of the dtype the traced
# elements have (``-inf`` for float64's maximum), the value NumPy uses for the plain array.
# Likewise ``_check_fill_value(value, object)``, which ``filled(value)`` and the
# ``fill_value`` of a traced array (``self`` of its caller) ask for: the value as a NumPy
# scalar of the tracers' dtype (``np.float32(0)`` for ``filled(0)`` of float32 data, whose
# Python ``0`` beside the tracers made the result float64; ``1e20``, not ``'?'``, where a
# row is all masked), held in the object array NumPy then copies from.
_EXTREMUM_FILLS = {
    name: getattr(numpy.ma.core, name) for name in ("maximum_fill_value", "minimum_fill_value")
}
_CHECK_FILL_VALUE = numpy.ma.core._check_fill_value


def _traced_element_dtype(obj: Any) -> numpy.dtype | None:
    """The promoted dtype of the tracers an object (masked) array holds; None for any
    other argument (one type test for a plain array)."""
    if not isinstance(obj, numpy.ndarray) or obj.dtype.kind != "O":
        return None
    dtypes = [v.dtype for v in numpy.ma.getdata(obj).flat if isinstance(v, Tracer)]
    return numpy.result_type(*dtypes) if dtypes else None


def traced_extremum_fill_value(name: str) -> Any:
    """``numpy.ma``'s ``maximum_fill_value`` / ``minimum_fill_value`` (``name``) that
    answer an object array of tracers with the fill value of the tracers' dtype (NOTE
    [fill values of traced masked arrays]).

    Example:
        >>> import numpy as np
        >>> float(traced_extremum_fill_value("maximum_fill_value")(np.zeros(2)))
        -inf
    """
    original = _EXTREMUM_FILLS[name]

    @functools.wraps(original)
    def fill_value(obj: Any) -> Any:
        dtype = _traced_element_dtype(obj)
        return original(obj if dtype is None else numpy.empty(0, dtype))

    return fill_value


def traced_check_fill_value(fill_value: Any, ndtype: Any) -> numpy.ndarray:
    """``numpy.ma.core._check_fill_value`` that, called for the object array of tracers
    that is its caller's ``self``, gives the fill value as NumPy scalars of the tracers'
    dtype in an object array (NOTE [fill values of traced masked arrays]).

    Example:
        >>> import numpy as np
        >>> traced_check_fill_value(0, np.float32).dtype
        dtype('float32')
    """
    if isinstance(ndtype, numpy.dtype) and ndtype.kind == "O":
        dtype = _traced_element_dtype(sys._getframe(1).f_locals.get("self"))
        if dtype is not None:
            # as NumPy copies it into the typed array (its default 1e20 is float64)
            typed = numpy.asarray(_CHECK_FILL_VALUE(fill_value, dtype)).astype(dtype)
            out = numpy.empty(typed.size, dtype=object)
            for i, v in enumerate(typed.flat):
                out[i] = v  # a NumPy scalar, kept as it is
            return out.reshape(typed.shape)
    return _CHECK_FILL_VALUE(fill_value, ndtype)


PATCHED_WHILE_ACTIVE.append(
    (
        vars(numpy.ma.core),
        {
            **{name: traced_extremum_fill_value(name) for name in _EXTREMUM_FILLS},
            "_check_fill_value": traced_check_fill_value,
        },
        {**_EXTREMUM_FILLS, "_check_fill_value": _CHECK_FILL_VALUE},
    )
)
