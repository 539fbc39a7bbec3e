"""The tracer base class: operators, array attributes and the NumPy protocols.

A tracer stands for an array inside a transform.  Subclasses (``BatchTracer``,
``DualTracer``, ``ReverseTracer``) say what they carry; this class makes them behave like
arrays: Python operators, ``.shape``/``.dtype``, methods such as ``.sum()``, and NumPy's
``__array_ufunc__``/``__array_function__`` so that functions written with ``import numpy
as np`` run unchanged under every transform.
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

    @property
    def T(self) -> Tracer:  # noqa: N802  (numpy's name)
        return fnp.transpose(self)

    @property
    def mT(self) -> Tracer:  # noqa: N802
        return fnp.swapaxes(self, -1, -2)

    @property
    def real(self) -> Tracer:
        return fnp.real(self)

    @property
    def imag(self) -> Tracer:
        return fnp.imag(self)

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

    # -- NumPy protocols ------------------------------------------------------------------

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        return fnp.protocol.handle_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        return fnp.protocol.handle_function(func, args, kwargs)

    # -- operators ------------------------------------------------------------------------

    def __add__(self, other):
        return fnp.add(self, other)

    def __radd__(self, other):
        return fnp.add(other, self)

    def __sub__(self, other):
        return fnp.subtract(self, other)

    def __rsub__(self, other):
        return fnp.subtract(other, self)

    def __mul__(self, other):
        return fnp.multiply(self, other)

    def __rmul__(self, other):
        return fnp.multiply(other, self)

    def __truediv__(self, other):
        return fnp.divide(self, other)

    def __rtruediv__(self, other):
        return fnp.divide(other, self)

    def __floordiv__(self, other):
        return fnp.floor_divide(self, other)

    def __rfloordiv__(self, other):
        return fnp.floor_divide(other, self)

    def __mod__(self, other):
        return fnp.remainder(self, other)

    def __rmod__(self, other):
        return fnp.remainder(other, self)

    def __pow__(self, other):
        return fnp.power(self, other)

    def __rpow__(self, other):
        return fnp.power(other, self)

    def __matmul__(self, other):
        return fnp.matmul(self, other)

    def __rmatmul__(self, other):
        return fnp.matmul(other, self)

    def __neg__(self):
        return fnp.negative(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return fnp.abs(self)

    def __invert__(self):
        return fnp.logical_not(self) if self.dtype.kind == "b" else fnp.invert(self)

    # NumPy's &, |, ^: bitwise (logical on booleans), never a silent bool on integers.
    def __and__(self, other):
        return fnp.bitwise_and(self, other)

    def __rand__(self, other):
        return fnp.bitwise_and(other, self)

    def __or__(self, other):
        return fnp.bitwise_or(self, other)

    def __ror__(self, other):
        return fnp.bitwise_or(other, self)

    def __xor__(self, other):
        return fnp.bitwise_xor(self, other)

    def __rxor__(self, other):
        return fnp.bitwise_xor(other, self)

    def __eq__(self, other):  # type: ignore[override]
        return fnp.equal(self, other)

    def __ne__(self, other):  # type: ignore[override]
        return fnp.not_equal(self, other)

    def __lt__(self, other):
        return fnp.less(self, other)

    def __le__(self, other):
        return fnp.less_equal(self, other)

    def __gt__(self, other):
        return fnp.greater(self, other)

    def __ge__(self, other):
        return fnp.greater_equal(self, other)

    __hash__ = None  # type: ignore[assignment]

    __iadd__ = _refuse_inplace("+")
    __isub__ = _refuse_inplace("-")
    __imul__ = _refuse_inplace("*")
    __itruediv__ = _refuse_inplace("/")
    __ifloordiv__ = _refuse_inplace("//")
    __imod__ = _refuse_inplace("%")
    __ipow__ = _refuse_inplace("**")
    __imatmul__ = _refuse_inplace("@")

    def __getitem__(self, index):
        return fnp.getitem(self, index)

    @property
    def at(self):
        return fnp.IndexUpdateHelper(self)

    # -- methods --------------------------------------------------------------------------

    def sum(self, axis=None, dtype=None, keepdims=False):
        return fnp.sum(self, axis=axis, dtype=dtype, keepdims=keepdims)

    def mean(self, axis=None, dtype=None, keepdims=False):
        return fnp.mean(self, axis=axis, dtype=dtype, keepdims=keepdims)

    def prod(self, axis=None, dtype=None, keepdims=False):
        return fnp.prod(self, axis=axis, dtype=dtype, keepdims=keepdims)

    def max(self, axis=None, keepdims=False):
        return fnp.max(self, axis=axis, keepdims=keepdims)

    def min(self, axis=None, keepdims=False):
        return fnp.min(self, axis=axis, keepdims=keepdims)

    def var(self, axis=None, dtype=None, ddof=0, keepdims=False):
        return fnp.var(self, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)

    def std(self, axis=None, dtype=None, ddof=0, keepdims=False):
        return fnp.std(self, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)

    def argmax(self, axis=None, keepdims=False):
        return fnp.argmax(self, axis=axis, keepdims=keepdims)

    def argmin(self, axis=None, keepdims=False):
        return fnp.argmin(self, axis=axis, keepdims=keepdims)

    def any(self, axis=None, keepdims=False):
        return fnp.any(self, axis=axis, keepdims=keepdims)

    def all(self, axis=None, keepdims=False):
        return fnp.all(self, axis=axis, keepdims=keepdims)

    def reshape(self, *shape, order="C"):
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = shape[0]
        return fnp.reshape(self, shape, order=order)

    def transpose(self, *axes):
        if len(axes) == 1 and not isinstance(axes[0], int):
            axes = axes[0]
        return fnp.transpose(self, axes or None)

    def swapaxes(self, axis1, axis2):
        return fnp.swapaxes(self, axis1, axis2)

    def squeeze(self, axis=None):
        return fnp.squeeze(self, axis)

    def ravel(self, order="C"):
        return fnp.ravel(self, order=order)

    flatten = ravel

    def astype(self, dtype, copy=True):
        return fnp.astype(self, dtype)

    def copy(self):
        return self

    def dot(self, other):
        return fnp.dot(self, other)

    def clip(self, min=None, max=None):  # noqa: A002  (numpy's names)
        return fnp.clip(self, min, max)

    def conj(self):
        return fnp.conj(self)

    conjugate = conj

    def take(self, indices, axis=None):
        return fnp.take(self, indices, axis=axis)

    def cumsum(self, axis=None):
        return fnp.cumsum(self, axis=axis)

    def cumprod(self, axis=None):
        return fnp.cumprod(self, axis=axis)

    def argsort(self, axis=-1, kind=None):
        return fnp.argsort(self, axis=axis, kind=kind)

    def argpartition(self, kth, axis=-1):
        return fnp.argpartition(self, kth, axis=axis)

    def searchsorted(self, v, side="left", sorter=None):
        return fnp.searchsorted(self, v, side=side, sorter=sorter)

    def repeat(self, repeats, axis=None):
        return fnp.repeat(self, repeats, axis=axis)

    def diagonal(self, offset=0, axis1=0, axis2=1):
        return fnp.diagonal(self, offset, axis1, axis2)


# Bottom import: ftransforms.numpy imports Tracer from here; its names are used at call time.
import ftransforms.numpy as fnp  # noqa: E402
