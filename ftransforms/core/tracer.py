"""The tracer base class: what every tracer is, and what it refuses.

A tracer stands for an array inside a transform.  Subclasses (``BatchTracer``,
``DualTracer``, ``ReverseTracer``) say what they carry; this class holds the abstract array
attributes (``.shape``/``.dtype``), the conversions (``bool()``, ``int()``, ...) and the
errors for escaped tracers and in-place writes.  The NumPy layer installs the rest: Python
operators, methods such as ``.sum()`` and NumPy's ``__array_ufunc__``/``__array_function__``
(:mod:`ftransforms.numpy.array_methods`), so that this layer imports nothing above it.
"""

from __future__ import annotations

import math
from typing import Any

from ftransforms.core.errors import EscapedTracerError, InPlaceError, TracerConversionError


def escaped_error(tracer: Tracer, use: str) -> EscapedTracerError:
    """The error for a tracer used (``use``: "by add", "bool()", ...) after its transform
    returned."""
    return EscapedTracerError(
        f"{tracer._interp.name}: one of its tracers was used ({use}) after that transform "
        f"had returned (an escaped tracer: it was stored in a global, a closure or a "
        f"container during the transform and used later).  Return the value from the "
        f"transformed function instead, or compute with the plain array outside the "
        f"transform."
    )


def _refuse_inplace(op: str):
    def method(self: Tracer, other: Any) -> Any:
        raise InPlaceError(
            f"{self._interp.name}: x {op}= y on a tracer would write into an array the "
            f"transform is tracking (tracers are immutable); write x = x {op} y instead."
        )

    return method


class Tracer:
    """An array-like value that belongs to one interpreter (``_interp``)."""

    __slots__ = ("_interp",)
    __array_priority__ = 1000

    # -- subclasses provide -------------------------------------------------------------

    @property
    def shape(self) -> tuple[int, ...]:  # pragma: no cover
        raise NotImplementedError

    @property
    def dtype(self) -> Any:  # pragma: no cover
        raise NotImplementedError

    def _concrete(self) -> Any:
        """The concrete array this tracer stands for, when it has a single one."""
        raise NotImplementedError  # pragma: no cover

    def _physical(self) -> Any:
        """The backend array at the bottom of the tracer (batch axes included)."""
        raise NotImplementedError  # pragma: no cover

    # -- array attributes -----------------------------------------------------------------

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d array (a tracer of shape ())")
        return self.shape[0]

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    # -- conversions ----------------------------------------------------------------------

    #: The fix named when a tracer is converted to a Python number or a NumPy array.
    _conversion_fix = (
        "Keep it as an array (fnp.* works on 0-d arrays), or convert fnp.stop_gradient(x) "
        "if the number is only for control flow or printing."
    )

    def _check_live(self, use: str) -> None:
        """Raise :class:`EscapedTracerError` if this tracer's transform has returned."""
        if not self._interp.active:
            raise escaped_error(self, use)

    def _conversion_error(self, what: str) -> TracerConversionError:
        self._check_live(what)
        return TracerConversionError(
            f"{self._interp.name}: {what} on a tracer would drop what the transform tracks "
            f"(its derivative or its batch).  {self._conversion_fix}"
        )

    def __bool__(self) -> bool:
        self._check_live("bool()")
        return bool(self._concrete())

    def __float__(self) -> float:
        raise self._conversion_error("float()")

    def __complex__(self) -> complex:
        raise self._conversion_error("complex()")

    def __int__(self) -> int:
        if self.dtype.kind not in "iub":
            raise self._conversion_error("int()")
        self._check_live("int()")
        return int(self._concrete())

    __index__ = __int__

    def item(self) -> Any:
        if self.dtype.kind not in "iub":
            raise self._conversion_error(".item()")
        self._check_live(".item()")
        return self._concrete().item()

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        self._check_live("numpy.asarray()")
        raise TracerConversionError(
            f"{self._interp.name}: numpy.asarray()/numpy.array() on a tracer: the result "
            f"would be a plain array that the transform cannot see.  Use fnp.asarray(x) "
            f"(ftransforms.numpy) or drop the conversion; numpy functions such as np.sum(x) "
            f"work on tracers directly."
        )

    def tolist(self) -> Any:
        raise self._conversion_error(".tolist()")

    # -- in-place writes are refused ------------------------------------------------------

    def __setitem__(self, index: Any, value: Any) -> None:
        raise InPlaceError(
            f"{self._interp.name}: item assignment x[...] = v on a tracer: tracers are "
            f"immutable.  Use the functional form x = x.at[index].set(v) (or .add(v)), or "
            f"fnp.where(mask, v, x)."
        )

    __hash__ = None  # type: ignore[assignment]

    __iadd__ = _refuse_inplace("+")
    __isub__ = _refuse_inplace("-")
    __imul__ = _refuse_inplace("*")
    __itruediv__ = _refuse_inplace("/")
    __ifloordiv__ = _refuse_inplace("//")
    __imod__ = _refuse_inplace("%")
    __ipow__ = _refuse_inplace("**")
    __imatmul__ = _refuse_inplace("@")
