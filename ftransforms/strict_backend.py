"""A strict stand-in for CuPy: a NumPy-backed array that refuses to become a NumPy array.

``StrictArray`` behaves like ``cupy.ndarray`` where it matters for catching host
transfers: ``numpy.asarray(a)`` / ``np.array(a)`` / NumPy functions on it raise
``TypeError`` (as CuPy's ``__array__`` does), reductions return 0-d arrays rather than
Python/NumPy scalars, and ``a.get()`` is the only way back to NumPy.  Its namespace
:data:`xp` wraps NumPy function by function (unwrap, compute, wrap), so every primitive
implementation that goes through ``xp`` runs on it unchanged.  Running the op database on
this backend proves that no rule or implementation silently converts to NumPy, without
a GPU.

Example:
    >>> import numpy as np
    >>> from ftransforms import grad
    >>> from ftransforms.strict_backend import asarray
    >>> g = grad(lambda x: (x * x).sum())(asarray(np.arange(3.0)))
    >>> type(g).__name__, g.get()
    ('StrictArray', array([0., 2., 4.]))
"""

from __future__ import annotations

import types
from typing import Any

import numpy

from ftransforms import strict_backend_kernels as _kernels
from ftransforms.backend import register_backend
from ftransforms.pytree import tree_map

__all__ = ["ElementwiseKernel", "ReductionKernel", "StrictArray", "asarray", "to_numpy", "xp"]


class HostConversionError(TypeError):
    """A StrictArray was converted to a NumPy array implicitly."""


def _unwrap(value: Any) -> Any:
    if type(value) is StrictArray:
        return value._data
    if isinstance(value, (list, tuple)):
        return type(value)(_unwrap(v) for v in value)
    if isinstance(value, dict):
        return {k: _unwrap(v) for k, v in value.items()}
    return value


def _wrap(value: Any) -> Any:
    if isinstance(value, numpy.ndarray):
        return StrictArray(value)
    if isinstance(value, numpy.generic):  # like CuPy: scalars stay on the device, 0-d
        return StrictArray(numpy.asarray(value))
    if isinstance(value, tuple):
        return tuple(_wrap(v) for v in value)
    if isinstance(value, list):
        return [_wrap(v) for v in value]
    if hasattr(value, "_fields") or type(value).__module__.startswith("numpy.linalg"):
        return type(value)(*[_wrap(v) for v in value])  # namedtuple results (eigh, svd, ...)
    return value


def _no_sequences(name: str, args: tuple) -> None:
    """CuPy's ufuncs (``where`` is one) take arrays and scalars, not Python sequences:
    ``cupy.add((a, b), c)`` raises ``TypeError: Unsupported type <class 'tuple'>``."""
    for a in args:
        if isinstance(a, (list, tuple)):
            raise TypeError(f"{name}: Unsupported type {type(a)} (CuPy's ufuncs take no sequences)")


#: NumPy functions that CuPy implements as ufuncs (their operands: no sequences).
_UFUNC_LIKE = frozenset({"where"})


def _wrapped(fn: Any) -> Any:
    name = getattr(fn, "__name__", "fn")

    def call(*args: Any, **kwargs: Any) -> Any:
        if name in _UFUNC_LIKE:
            _no_sequences(name, args)
        return _wrap(fn(*_unwrap(args), **_unwrap(kwargs)))

    call.__name__ = getattr(fn, "__name__", "fn")
    call.__doc__ = f"Strict-backend wrapper of numpy's {call.__name__}."
    return call


class _UFunc:
    """A NumPy ufunc on StrictArrays, with its methods (``at`` works in place)."""

    def __init__(self, ufunc: numpy.ufunc) -> None:
        self._ufunc = ufunc
        self.__name__ = ufunc.__name__

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        _no_sequences(self.__name__, args)
        return _wrap(self._ufunc(*_unwrap(args), **_unwrap(kwargs)))

    def at(self, a: StrictArray, indices: Any, b: Any = None) -> None:
        args = (a._data, _unwrap(indices)) + (() if b is None else (_unwrap(b),))
        self._ufunc.at(*args)

    def reduce(self, *args: Any, **kwargs: Any) -> Any:
        return _wrap(self._ufunc.reduce(*_unwrap(args), **_unwrap(kwargs)))

    def accumulate(self, *args: Any, **kwargs: Any) -> Any:
        return _wrap(self._ufunc.accumulate(*_unwrap(args), **_unwrap(kwargs)))


#: NumPy names that CuPy (14.2) does not have and that ftransforms' implementations reach
#: for (seen on a GPU run, 2026-11-27): the stand-in lacks them too, so that the fallbacks
#: written for CuPy run here.
CUPY_LACKS = frozenset({"spacing"})


class _Namespace(types.ModuleType):
    """A module whose attributes are NumPy's, wrapped for StrictArrays."""

    def __init__(self, name: str, source: Any) -> None:
        super().__init__(name)
        self._source = source

    def wrap_module(self, module: Any) -> _Namespace:
        """Another NumPy-based module (e.g. ``scipy.special``) wrapped the same way."""
        return _Namespace(f"{self.__name__}.{module.__name__}", module)

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__") or (self._source is numpy and attr in CUPY_LACKS):
            raise AttributeError(attr)
        target = getattr(self._source, attr)
        if isinstance(target, numpy.ufunc):
            value: Any = _UFunc(target)
        elif isinstance(target, types.ModuleType):
            value = _Namespace(f"{self.__name__}.{attr}", target)
        elif isinstance(target, type) or not callable(target):
            value = target  # dtypes, constants, classes
        else:
            value = _wrapped(target)
        setattr(self, attr, value)
        return value


#: The array namespace of the strict backend (what ``xp`` is for StrictArrays).
xp = _Namespace("strictnumpy", numpy)


def _binary(name: str):
    ufunc = getattr(numpy, name)

    def op(self: StrictArray, other: Any) -> Any:
        if getattr(other, "__array_priority__", 0) > 0 and type(other) is not StrictArray:
            return NotImplemented  # CuPy defers to operands of higher __array_priority__
        if isinstance(other, numpy.ndarray):
            raise HostConversionError(
                f"StrictArray {name} a numpy.ndarray: mixing device and host arrays; move "
                f"one of them first"
            )
        return _wrap(ufunc(self._data, _unwrap(other)))

    def rop(self: StrictArray, other: Any) -> Any:
        if getattr(other, "__array_priority__", 0) > 0 and type(other) is not StrictArray:
            return NotImplemented
        return _wrap(ufunc(_unwrap(other), self._data))

    return op, rop


class StrictArray:
    """A device-like array: NumPy storage, no implicit conversion to NumPy."""

    __slots__ = ("_data",)
    __array_ufunc__ = None  # numpy ufuncs/operators on a StrictArray: NotImplemented -> error

    def __init__(self, data: numpy.ndarray) -> None:
        self._data = data

    # conversions: only explicit ones
    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        raise HostConversionError(
            "Implicit conversion of a StrictArray to a NumPy array is not allowed (as for "
            "cupy.ndarray); call .get() explicitly"
        )

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        raise HostConversionError(
            f"numpy.{func.__name__} called on a StrictArray: library code must go through the "
            f"array namespace xp, not numpy"
        )

    def get(self) -> numpy.ndarray:
        """The data as a NumPy array (the explicit device-to-host copy)."""
        return self._data.copy()

    def item(self) -> Any:
        return self._data.item()

    def __bool__(self) -> bool:
        return bool(self._data)

    def __float__(self) -> float:
        return float(self._data)

    def __int__(self) -> int:
        return int(self._data)

    def __index__(self) -> int:
        return self._data.__index__()

    def __len__(self) -> int:
        return len(self._data)

    def __iter__(self):
        return (StrictArray(numpy.asarray(v)) for v in self._data)

    def __repr__(self) -> str:
        return f"StrictArray({self._data!r})"

    # attributes
    shape = property(lambda self: self._data.shape)
    dtype = property(lambda self: self._data.dtype)
    ndim = property(lambda self: self._data.ndim)
    size = property(lambda self: self._data.size)
    T = property(lambda self: StrictArray(self._data.T))
    real = property(lambda self: StrictArray(numpy.asarray(self._data.real)))
    imag = property(lambda self: StrictArray(numpy.asarray(self._data.imag)))
    flags = property(lambda self: self._data.flags)
    strides = property(lambda self: self._data.strides)

    def __getitem__(self, index: Any) -> Any:
        return _wrap(self._data[_unwrap(index)])

    def __setitem__(self, index: Any, value: Any) -> None:
        if isinstance(value, numpy.ndarray):
            raise HostConversionError("StrictArray[...] = numpy.ndarray: move the value first")
        self._data[_unwrap(index)] = _unwrap(value)

    def __getattr__(self, attr: str) -> Any:
        method = getattr(self._data, attr)  # astype, reshape, sum, max, any, copy, ...
        if not callable(method):
            raise AttributeError(attr)
        return _wrapped(method)

    def __neg__(self) -> Any:
        return StrictArray(numpy.negative(self._data))

    def __pos__(self) -> Any:
        return self

    def __abs__(self) -> Any:
        return StrictArray(numpy.abs(self._data))

    def __invert__(self) -> Any:
        return StrictArray(numpy.invert(self._data))

    __add__, __radd__ = _binary("add")
    __sub__, __rsub__ = _binary("subtract")
    __mul__, __rmul__ = _binary("multiply")
    __truediv__, __rtruediv__ = _binary("divide")
    __floordiv__, __rfloordiv__ = _binary("floor_divide")
    __mod__, __rmod__ = _binary("remainder")
    __divmod__, __rdivmod__ = _binary("divmod")  # a pair of arrays, as cupy.ndarray gives
    __pow__, __rpow__ = _binary("power")
    __matmul__, __rmatmul__ = _binary("matmul")
    __and__, __rand__ = _binary("bitwise_and")
    __or__, __ror__ = _binary("bitwise_or")
    __xor__, __rxor__ = _binary("bitwise_xor")
    __eq__, _ = _binary("equal")  # type: ignore[assignment]
    __ne__, _ = _binary("not_equal")  # type: ignore[assignment]
    __lt__, _ = _binary("less")
    __le__, _ = _binary("less_equal")
    __gt__, _ = _binary("greater")
    __ge__, _ = _binary("greater_equal")
    __hash__ = None  # type: ignore[assignment]


def asarray(value: Any, dtype: Any = None) -> StrictArray:
    """Move ``value`` (a NumPy array or nested lists) to the strict "device"."""
    if type(value) is StrictArray:
        return value if dtype is None else StrictArray(value._data.astype(dtype))
    return StrictArray(numpy.array(value, dtype=dtype))


def to_numpy(tree: Any) -> Any:
    """Every StrictArray in a pytree back to NumPy (for comparisons in tests)."""

    return tree_map(lambda v: v.get() if type(v) is StrictArray else v, tree)


def _kernel_args(kernel: Any, args: tuple, params: list) -> list:
    if len(args) != len(params):
        raise TypeError(f"{kernel.name}: {len(params)} arguments expected, {len(args)} given")
    out = []
    for a, (dtype, name) in zip(args, params):
        if type(a) is not StrictArray:
            raise HostConversionError(
                f"{kernel.name}: argument {name} is a {type(a).__name__}, not a device array"
            )
        if a.dtype != dtype:
            raise TypeError(f"{kernel.name}: argument {name} is {a.dtype}, declared {dtype}")
        out.append(a._data)
    return out


class ElementwiseKernel:
    """``cupy.ElementwiseKernel`` on the stand-in: the source is checked and interpreted
    (``strict_backend_kernels``); outputs are passed after the inputs, and must have the
    broadcast shape.  ``calls`` records each call's argument ``(shape, dtype)``."""

    def __init__(
        self, in_params: str, out_params: str, operation: str, name: str = "kernel", **kw: Any
    ) -> None:
        self.name, self.calls = name, []
        self.source = _kernels.Elementwise(in_params, out_params, operation, kw.get("preamble", ""))

    def __call__(self, *args: Any) -> Any:
        src = self.source
        n = len(src.ins)
        ins = _kernel_args(self, args[:n], src.ins)
        outs = _kernel_args(self, args[n:], src.outs)
        shape = numpy.broadcast_shapes(*(a.shape for a in ins + outs))
        if any(o.shape != shape for o in outs):
            raise ValueError(f"{self.name}: outputs must have the broadcast shape {shape}")
        self.calls.append({"args": [(a.shape, a.dtype) for a in args]})
        for o, value in zip(outs, src.run(ins, shape)):
            o[...] = value
        return args[n] if len(outs) == 1 else args[n:]


class ReductionKernel:
    """``cupy.ReductionKernel`` on the stand-in: checked and interpreted source, called
    with the inputs (and ``axis``/``keepdims``), returning a new array."""

    def __init__(
        self,
        in_params: str,
        out_params: str,
        map_expr: str,
        reduce_expr: str,
        post_map_expr: str,
        identity: str,
        name: str = "reduce_kernel",
        reduce_type: str | None = None,
        preamble: str = "",
        **kw: Any,
    ) -> None:
        self.name, self.calls = name, []
        self.source = _kernels.Reduction(
            in_params,
            out_params,
            map_expr,
            reduce_expr,
            post_map_expr,
            identity,
            reduce_type,
            preamble,
        )

    def __call__(self, *args: Any, axis: Any = None, keepdims: bool = False) -> Any:
        ins = _kernel_args(self, args, self.source.ins)
        ndim = len(numpy.broadcast_shapes(*(a.shape for a in ins)))
        axes = tuple(range(ndim)) if axis is None else (axis,) if isinstance(axis, int) else axis
        self.calls.append(
            {"args": [(a.shape, a.dtype) for a in args], "axis": axes, "keepdims": keepdims}
        )
        return StrictArray(numpy.asarray(self.source.run(ins, tuple(axes), keepdims)))


xp.ElementwiseKernel = ElementwiseKernel
xp.ReductionKernel = ReductionKernel
register_backend(StrictArray, xp)
