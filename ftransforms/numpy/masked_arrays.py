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
cost of one type test.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> ft.grad(lambda v: np.ma.log(np.ma.masked_array(v, [0, 1, 0])).sum())(
    ...     np.array([1.0, 2.0, 4.0]))
    array([1.  , 0.  , 0.25])
"""

from __future__ import annotations

import functools
from typing import Any

import numpy
import numpy._core.umath

from ftransforms.core.mutation import PATCHED_WHILE_ACTIVE
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.helpers import array_like, holds_tracer

__all__ = ["object_isfinite"]

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
