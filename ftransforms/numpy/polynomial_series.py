"""``numpy.polynomial``'s functions and series classes on tracers: NumPy's dtypes.

NOTE [numpy.polynomial's dtypes on tracers]: ``numpy.polynomial``'s Python functions turn
their arguments into arrays with ``np.array(c, ndmin=1)`` / ``np.asarray`` (directly or in
``polyutils.as_series``), which for a tracer is a NumPy object array of 0-d tracers, and
then compute through NumPy's object loops.  There NumPy's own dtype rules did not run:
integer coefficients stayed integers (``c.dtype.char in '?bBhHiIlLqQpP'`` is False for an
object array, and ``np.common_type`` refuses one), and a float64 array met in an object
loop becomes Python floats, which leave a float32 tracer float32 (``polyval(x, c)`` of
float32 ``c`` and float64 ``x`` was float32; NumPy's is float64): a silent difference of
dtype and precision.  So while a transform is active, an object array holding tracers that
``numpy.array``/``asarray``/``asanyarray`` make for code of ``numpy.polynomial`` (core/
mutation.py's wrappers hand NumPy's object results to :func:`_polynomial_objects`) has its
tracers cast to the dtype NumPy computes in there: the result dtype of the calling
function's array arguments (arrays, NumPy scalars, tracers and the tracers in object arrays
and lists; Python numbers are weak, as in NumPy), integers and booleans made float64 as
``numpy.polynomial`` makes them (``c + 0.0``, ``np.common_type``).  Arrays that are no
object arrays, and object arrays for other callers, cost one dtype test.  The arrays that
``numpy.zeros``/``empty``/... make there while an argument holds a tracer are buffers
(core/mutation.py's ``LIBRARY_OBJECT_CREATIONS``), which take the tracers written into them,
and one that ``dtype=c.dtype`` of an object ``c`` would make an object array is of the
computing dtype (``polycompanion``'s ``np.zeros((n, n), dtype=c.dtype)`` then ``bot[...] =
1``: a Python ``1`` beside float32 tracers made the companion matrix float64).  The same hook
sees ``np.array(c, ndmin=1)`` in the ``...val(x, c)`` functions, which reshape ``c`` for
an ndarray ``x`` only: for a traced ``x`` it is reshaped there
(:func:`_reshaped_for_points`).  Two more repairs of the package on tracers:
``polyval2d``/``polygrid2d``, its two functions that
dispatch by ``__array_function__``, run NumPy's own Python code there (``protocol.py``),
and ``polyutils._fit`` gets NumPy's default ``rcond`` for traced sample points.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> x = np.linspace(-1.0, 1.0, 3)
    >>> c = np.ones(3, np.float32)
    >>> ft.jvp(lambda c: np.polynomial.polynomial.polyval(x, c), (c,), (c,))[0].dtype
    dtype('float64')
"""

from __future__ import annotations

import functools
import sys
from typing import Any

import numpy
import numpy.polynomial.polyutils

from ftransforms.core.mutation import (
    LIBRARY_OBJECT_ARRAYS,
    LIBRARY_OBJECT_CREATIONS,
    PATCHED_WHILE_ACTIVE,
)
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.helpers import array_like, holds_tracer

__all__: list[str] = []

#: Arguments of ``numpy.polynomial``'s functions that count or select, and the scalars
#: they apply in place or add to an element (``c *= scl``, ``tmp[0] += k[i]``): none of
#: them changes the dtype NumPy computes in.
_SETTINGS = frozenset(
    {"deg", "m", "cnt", "axis", "n", "pow", "maxpower", "trim", "tensor", "scl", "k", "lbnd"}
)

#: Code objects that make their own frame inside a function (Python 3.11's comprehensions).
_INNER = frozenset({"<listcomp>", "<genexpr>", "<dictcomp>", "<setcomp>"})


def _dtypes_of(value: Any, out: list, depth: int = 0) -> None:
    """Append to ``out`` the dtypes that ``value`` (an argument) brings to NumPy's
    promotion: an array's, a NumPy scalar's, a tracer's, those of the tracers and NumPy
    scalars in an object array, and those of a list's elements (numbers as in
    ``numpy.array``; one level down in a list of arrays).  A Python number argument is
    weak, as in NumPy."""
    if isinstance(value, Tracer):
        out.append(value.dtype)
    elif type(value) is numpy.ndarray:
        if value.dtype.kind != "O":
            out.append(value.dtype)
        elif depth < 2:
            for v in value.ravel().tolist():
                _dtypes_of(v, out, 2)
    elif isinstance(value, numpy.generic):
        out.append(value.dtype)
    elif depth and type(value) in (bool, int, float, complex):
        out.append(numpy.asarray(value).dtype)  # a list's numbers become an array's
    elif type(value) in (list, tuple) and depth < 2:
        for v in value:
            _dtypes_of(v, out, depth + 1)


def _computing_dtype(frame: Any) -> numpy.dtype | None:
    """The dtype NumPy computes in for the call of the function running in ``frame``
    (NOTE [numpy.polynomial's dtypes on tracers]); None where it is no number dtype."""
    code = frame.f_code
    names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    local = frame.f_locals
    found: list = []
    for name in names:
        if name not in _SETTINGS and name != "self":
            _dtypes_of(local.get(name), found)
    if not found:
        return None
    try:
        dtype = numpy.result_type(*found)
    except TypeError:
        return None
    if dtype.kind in "biu":
        return numpy.dtype(numpy.float64)
    return dtype if dtype.kind in "fc" else None


def _polynomial_objects(out: numpy.ndarray) -> numpy.ndarray:
    """``out``, an object array that ``numpy.array``/``asarray`` made for its caller two
    frames up, with its tracers cast to the dtype the caller computes in where the caller
    is ``numpy.polynomial``'s (NOTE [numpy.polynomial's dtypes on tracers])."""
    frame = sys._getframe(2)
    if frame.f_code in _VAL_CODES:
        out = _reshaped_for_points(out, frame)
    if out.dtype.kind != "O":
        return out
    if frame.f_code.co_name in _INNER:
        frame = frame.f_back
    if not (frame.f_globals.get("__name__") or "").startswith("numpy.polynomial"):
        return out
    items = out.ravel().tolist()
    if not any(isinstance(v, Tracer) for v in items):
        return out
    dtype = _computing_dtype(frame)
    if dtype is None:
        return out
    cast = [v.astype(dtype) if isinstance(v, Tracer) and v.dtype != dtype else v for v in items]
    fixed = numpy.empty(len(cast), dtype=object)
    for i, v in enumerate(cast):
        fixed[i] = v  # an element of an object array is stored as it is
    return fixed.reshape(out.shape)


LIBRARY_OBJECT_ARRAYS.append(_polynomial_objects)


def _polynomial_creation(out: numpy.ndarray) -> numpy.ndarray:
    """For the array ``out`` that ``numpy.zeros``/``empty``/... made for its caller two
    frames up, where that caller is ``numpy.polynomial``'s code computing on tracers: a
    new plain array to hold as a buffer (which takes the tracers it writes: ``tmp[0] =
    c[0] * 0`` in ``chebint``), and for an object array (``np.zeros((n, n),
    dtype=c.dtype)`` of the object array ``c`` in ``polycompanion``) one of the dtype it
    computes in, zeros in place of ``np.empty``'s ``None``; else ``out`` (NOTE
    [numpy.polynomial's dtypes on tracers]).  The numbers it then writes (``bot[...] =
    1``) are cast as NumPy casts them, where Python's ``1`` beside float32 tracers in an
    object array made the result float64."""
    frame = sys._getframe(2)
    if frame.f_code.co_name in _INNER:
        frame = frame.f_back
    if not (frame.f_globals.get("__name__") or "").startswith("numpy.polynomial"):
        return out
    if not _holds_traced_argument(frame):
        return out
    if out.dtype.kind != "O":
        return out.copy()
    dtype = _computing_dtype(frame)
    if dtype is None:
        return out
    items = out.ravel().tolist()
    if all(v is None for v in items):
        return numpy.zeros(out.shape, dtype)
    try:
        return out.astype(dtype)
    except (TypeError, ValueError):
        return out


def _holds_traced_argument(frame: Any) -> bool:
    """Whether an argument of the call running in ``frame`` holds a tracer."""
    code = frame.f_code
    local = frame.f_locals
    names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    return any(holds_tracer(local.get(name)) for name in names)


LIBRARY_OBJECT_CREATIONS.append(_polynomial_creation)


#: The code of numpy.polynomial's ``...val(x, c, tensor=True)`` functions.
_VAL_CODES = frozenset(
    f.__code__
    for f in (
        numpy.polynomial.polynomial.polyval,
        numpy.polynomial.polynomial.polyvalfromroots,
        numpy.polynomial.chebyshev.chebval,
        numpy.polynomial.legendre.legval,
        numpy.polynomial.laguerre.lagval,
        numpy.polynomial.hermite.hermval,
        numpy.polynomial.hermite_e.hermeval,
    )
)


def _reshaped_for_points(c: numpy.ndarray, frame: Any) -> numpy.ndarray:
    """The coefficients (or roots) ``c`` that a ``...val(x, c, tensor)`` function running
    in ``frame`` converted with ``np.array(c, ndmin=1)``, reshaped to ``c.shape + (1,) *
    x.ndim`` for a traced ``x``: NumPy's code makes that reshape for an ndarray ``x``
    only (``isinstance(x, np.ndarray)``), so each polynomial of a 2-d ``c`` met a traced
    ``x`` elementwise, and ``polyvalfromroots(x, r)`` multiplied ``x - r`` into one
    number where ``len(x) == len(r)``: a silently wrong result."""
    local = frame.f_locals
    x = local.get("x")
    if isinstance(x, Tracer) and x.ndim and local.get("tensor") and c is not x:
        return c.reshape(c.shape + (1,) * x.ndim)
    return c


_NUMPY_FIT = numpy.polynomial.polyutils._fit


@functools.wraps(_NUMPY_FIT)
def _fit(
    vander_f: Any,
    x: Any,
    y: Any,
    deg: Any,
    rcond: Any = None,
    full: bool = False,
    w: Any = None,
) -> Any:
    """``polyutils._fit`` (behind ``polyfit``, ``chebfit``, ..., ``Polynomial.fit``) with
    traced sample points: NumPy's default ``rcond``, ``len(x) * eps`` of the points' float
    dtype, which NumPy reads from ``x.dtype`` (an object array's here: ``np.finfo``
    refused it), is given to it."""
    if rcond is None and holds_tracer(x):
        dtype = array_like(x).dtype
        if dtype.kind in "biu":
            dtype = numpy.dtype(numpy.float64)  # NumPy's x + 0.0
        rcond = len(x) * numpy.finfo(dtype).eps
    return _NUMPY_FIT(vander_f, x, y, deg, rcond, full, w)


PATCHED_WHILE_ACTIVE.append(
    (vars(numpy.polynomial.polyutils), {"_fit": _fit}, {"_fit": _NUMPY_FIT})
)
