"""``numpy.emath`` (``numpy.lib.scimath``) on tracers: the square root, logarithms, power
and inverse sines/cosines/tanh whose result is complex where a real argument lies outside
the real function's domain (``np.emath.sqrt(-4.0)`` is ``2j``, not NaN).

NOTE [np.emath's dtype per call]: NumPy decides the dtype from the values, once per call:
``if any(x < 0)`` the whole argument is cast to complex (``complex64`` for ``float32`` and
the small integers, ``complex128`` otherwise) and the ufunc runs on it.  Under ``vmap`` the
loop over the rows makes that decision per row, and ``np.stack`` of the rows' results is
complex where any row's is, the real rows' values cast (the complex functions of a real
argument differ from the real ones by a few ulps, so the real rows must still be computed
by the real function).  So the flag is computed per call (``any`` over the logical axes:
one per row), and read once over the whole batch: no row set, the real function; every
row set, the complex one; some rows, both, each on the rows it serves (the others get a
harmless value, 1 or 0, so neither side makes a NaN, a warning or a NaN derivative) and
``where`` puts each row's own result in place.  No split of the batch and no re-run; the
read marks a ``jit`` recording value-dependent.  Derivatives are the complex functions'
(NOTE [complex derivatives] in ``ops/elementwise.py``).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> ft.vmap(np.emath.sqrt)(np.array([[-4.0], [9.0]])).tolist()
    [[2j], [(3+0j)]]
    >>> float(ft.grad(lambda t: np.emath.log(t).real)(-2.0))  # d/dt log|t| = 1/t
    -0.5
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

from ftransforms.numpy.creation import as_operand
from ftransforms.numpy.dispatch import implements
from ftransforms.numpy.helpers import constant_like, dtype_of, peek, to_host
from ftransforms.numpy.indexing import where
from ftransforms.numpy.reductions import any as any_
from ftransforms.numpy.ufuncs import abs as abs_
from ftransforms.numpy.ufuncs import arccos as _arccos
from ftransforms.numpy.ufuncs import arcsin as _arcsin
from ftransforms.numpy.ufuncs import arctanh as _arctanh
from ftransforms.numpy.ufuncs import astype, divide, less, multiply
from ftransforms.numpy.ufuncs import log as _log
from ftransforms.numpy.ufuncs import log2 as _log2
from ftransforms.numpy.ufuncs import log10 as _log10
from ftransforms.numpy.ufuncs import power as _power
from ftransforms.numpy.ufuncs import sqrt as _sqrt

__all__ = ["sqrt", "log", "log2", "log10", "logn", "power", "arccos", "arcsin", "arctanh"]

#: The dtypes NumPy's ``_tocomplex`` turns into ``complex64`` (every other one: complex128).
_TO_COMPLEX64 = frozenset(
    numpy.dtype(t) for t in ("float32", "int8", "int16", "uint8", "uint16", "complex64")
)


class _Fix:
    """How NumPy fixes one argument: where ``outside(x)`` holds at an element, ``convert``
    the whole argument; ``safe`` stands in for the rows that are converted on the other side
    (NOTE [np.emath's dtype per call])."""

    __slots__ = ("outside", "convert", "safe")

    def __init__(self, outside: Callable, convert: Callable, safe: float) -> None:
        self.outside, self.convert, self.safe = outside, convert, safe


def _to_complex(x: Any) -> Any:
    return astype(x, numpy.complex64 if dtype_of(x) in _TO_COMPLEX64 else numpy.complex128)


def _to_float(p: Any) -> Any:
    return multiply(p, 1.0)  # NumPy's ``p * 1.0`` (an integer exponent becomes float64)


_NEGATIVE = _Fix(lambda x: less(x, 0), _to_complex, 1.0)
_BEYOND_ONE = _Fix(lambda x: less(1, abs_(x)), _to_complex, 0.0)
_NEGATIVE_EXPONENT = _Fix(lambda p: less(p, 0), _to_float, 1.0)


def _per_call(f: Callable, args: list[Any], fixes: list[_Fix]) -> Any:
    """``f(*args)`` with each argument fixed as NumPy would, per call: per row under
    ``vmap`` (NOTE [np.emath's dtype per call])."""
    done = len(args) - len(fixes)
    if not fixes:
        return f(*args)
    before, x, after = args[:done], as_operand(args[done]), args[done + 1 :]
    fix, rest = fixes[0], fixes[1:]
    if dtype_of(x).kind == "c":  # NumPy's conversion leaves a complex argument as it is
        return _per_call(f, [*before, x, *after], rest)
    flag = any_(fix.outside(x))  # one per call: per row under vmap
    seen = to_host(peek(flag))
    if not seen.any():
        return _per_call(f, [*before, x, *after], rest)
    if seen.all():
        return _per_call(f, [*before, fix.convert(x), *after], rest)
    safe = constant_like(fix.safe, x, dtype_of(x))  # in x's dtype: NumPy's loop stays x's
    fixed = fix.convert(where(flag, x, safe))
    kept = where(flag, safe, x)
    return where(
        flag,
        _per_call(f, [*before, fixed, *after], rest),
        _per_call(f, [*before, kept, *after], rest),
    )


@implements(numpy.emath.sqrt)
def sqrt(x: Any) -> Any:
    """``numpy.emath.sqrt``: the square root, complex if an element of ``x`` is negative.

    Example:
        >>> import numpy as np
        >>> sqrt(np.array([-1.0, 4.0])).tolist()
        [1j, (2+0j)]
    """
    return _per_call(_sqrt, [x], [_NEGATIVE])


@implements(numpy.emath.log)
def log(x: Any) -> Any:
    """``numpy.emath.log``: the natural logarithm, complex if an element is negative.

    Example:
        >>> import numpy as np
        >>> log(np.array([1.0])).tolist()
        [0.0]
    """
    return _per_call(_log, [x], [_NEGATIVE])


@implements(numpy.emath.log2)
def log2(x: Any) -> Any:
    """``numpy.emath.log2``: the base-2 logarithm, complex if an element is negative.

    Example:
        >>> import numpy as np
        >>> log2(np.array([8.0])).tolist()
        [3.0]
    """
    return _per_call(_log2, [x], [_NEGATIVE])


@implements(numpy.emath.log10)
def log10(x: Any) -> Any:
    """``numpy.emath.log10``: the base-10 logarithm, complex if an element is negative.

    Example:
        >>> import numpy as np
        >>> log10(np.array([100.0])).tolist()
        [2.0]
    """
    return _per_call(_log10, [x], [_NEGATIVE])


@implements(numpy.emath.logn)
def logn(n: Any, x: Any) -> Any:
    """``numpy.emath.logn``: the logarithm of ``x`` to the base ``n``, each made complex
    if it has a negative element.

    Example:
        >>> import numpy as np
        >>> logn(2, np.array([8.0])).tolist()
        [3.0]
    """
    return _per_call(lambda n, x: divide(_log(x), _log(n)), [n, x], [_NEGATIVE, _NEGATIVE])


@implements(numpy.emath.power)
def power(x: Any, p: Any) -> Any:
    """``numpy.emath.power``: ``x**p``, complex if an element of ``x`` is negative; a
    negative integer exponent is made float first (NumPy's ``p * 1.0``).

    Example:
        >>> import numpy as np
        >>> power(np.array([-4.0]), 0.5).tolist()
        [(1.2246467991473532e-16+2j)]
    """
    return _per_call(_power, [x, p], [_NEGATIVE, _NEGATIVE_EXPONENT])


@implements(numpy.emath.arccos)
def arccos(x: Any) -> Any:
    """``numpy.emath.arccos``: the inverse cosine, complex if ``|x| > 1`` somewhere.

    Example:
        >>> import numpy as np
        >>> arccos(np.array([1.0])).tolist()
        [0.0]
    """
    return _per_call(_arccos, [x], [_BEYOND_ONE])


@implements(numpy.emath.arcsin)
def arcsin(x: Any) -> Any:
    """``numpy.emath.arcsin``: the inverse sine, complex if ``|x| > 1`` somewhere.

    Example:
        >>> import numpy as np
        >>> arcsin(np.array([0.0])).tolist()
        [0.0]
    """
    return _per_call(_arcsin, [x], [_BEYOND_ONE])


@implements(numpy.emath.arctanh)
def arctanh(x: Any) -> Any:
    """``numpy.emath.arctanh``: the inverse hyperbolic tangent, complex if ``|x| > 1``
    somewhere.

    Example:
        >>> import numpy as np
        >>> arctanh(np.array([0.0])).tolist()
        [0.0]
    """
    return _per_call(_arctanh, [x], [_BEYOND_ONE])
