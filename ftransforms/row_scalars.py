"""``numpy.isscalar`` of a per-row number under ``vmap``, as the loop over the rows has it.

NOTE [a row's NumPy scalars]
----------------------------
In the loop ``[f(x) for x in xs]`` a 0-d value of a row is a NumPy scalar: ``xs[i]`` of a
1-d batch, ``x[0]``, ``x.sum()``, ``np.argmax(x)`` are ``np.float64``/``np.int64``, and
``np.isscalar`` says True for them.  Under ``vmap`` the same value is a 0-d batched
tracer, for which NumPy's ``isscalar`` says False, so code written for scalars and arrays
(``if np.isscalar(x): ... else: ...``) took the array branch for every row (a silent
wrong answer).  While a transform is active ``numpy.isscalar`` answers True for a 0-d
value batched by ``vmap``, also below other transforms' tracers (``vmap(grad(f))``); the
tracers of other transforms alone stand for the value they were given, which may be a
0-d array, and keep NumPy's answer.  Installed with NumPy's patched functions
(``core/mutation.py``'s ``PATCHED_WHILE_ACTIVE``): nothing changes while no transform is
active.

``isinstance(x[0], float)`` (``np.floating``, ``numbers.Real``, a ``singledispatch`` on
``float``) said False as well, so ``if not isinstance(v, (int, float)): raise`` raised
and ``fractions.Fraction(x[0])`` refused the value.  ``isinstance`` asks an object's
``__class__`` once the type check fails, so a 0-d value that vmap batches (its interpreter
active) answers ``__class__`` with the NumPy scalar type of its dtype (``np.float64``,
a ``float``; ``np.float32``, ``np.int64``, ``np.bool_``, which are not) to the function's
own code.  The code of ftransforms, NumPy, SciPy and CuPy keeps the tracer's class (the
caller's module, one frame up, says which), as does ``type(x)``; the tracers of other
transforms (``vmap(grad(f))``: grad's) stay no ``float``, as under JAX.  C code that
checks the type itself (``decimal.Decimal(x[0])``, ``json``) still refuses the tracer.
Only failed checks and ``x.__class__`` reach it: a few per vmap call.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> f = lambda x: x * 2 if np.isscalar(x) else x.sum()
    >>> ft.vmap(f)(np.array([1.5, 2.0])).tolist()
    [3.0, 4.0]
"""

from __future__ import annotations

import functools
from typing import Any

import numpy

from ftransforms.core.mutation import PATCHED_WHILE_ACTIVE
from ftransforms.core.tracer import Tracer
from ftransforms.interpreters.batching import BatchTracer

_ISSCALAR = numpy.isscalar


@functools.wraps(_ISSCALAR)
def _isscalar(element: Any) -> bool:
    if isinstance(element, Tracer) and not element.shape:  # NOTE [a row's NumPy scalars]
        value = element
        for _ in range(_DEPTH):  # down to a vmap's value (vmap(grad(f)): grad's over it)
            if type(value) is BatchTracer:
                return True
            value = getattr(value, type(value)._payload[1], None)
            if not isinstance(value, Tracer):
                break
    return _ISSCALAR(element)


#: How many transform levels below a tracer a vmap's value is looked for.
_DEPTH = 16


PATCHED_WHILE_ACTIVE.append((vars(numpy), {"isscalar": _isscalar}, {"isscalar": _ISSCALAR}))
