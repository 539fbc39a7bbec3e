"""The tracer's array behaviour, installed on :class:`~ftransforms.core.tracer.Tracer` by
the NumPy layer: Python operators (``t + u``, ``t @ u``, ``t[i]``), the array attributes and
methods (``.T``, ``.real``, ``.sum()``, ``.reshape()``, ``.at[i]``), and NumPy's
``__array_ufunc__``/``__array_function__`` protocols.

``ftransforms.core`` defines what a tracer is and refuses (conversions, in-place writes)
and imports nothing above it; this module, run when ``ftransforms.numpy`` is imported,
copies the members of :class:`ArrayMethods` onto ``Tracer``, so the operators call the
``ftransforms.numpy`` functions directly (no lookup through the package on each call).

Example:
    >>> import numpy as np
    >>> from ftransforms import vmap
    >>> vmap(lambda t: (t * 2.0 + 1.0).sum())(np.ones((3, 2))).tolist()
    [6.0, 6.0, 6.0]
"""

from __future__ import annotations

import sys
from typing import Any

import numpy

import ftransforms.numpy.inplace as inplace
from ftransforms.core.errors import InPlaceError, UnsupportedOperationError
from ftransforms.core.mutation import (
    NOT_IN_C_ORDER,
    ROOT_LAYOUTS,
    Buffer,
    clone,
    mutable,
    strides_of,
)
from ftransforms.core.primitive import OBJECT_ARRAY_CONVERTER
from ftransforms.core.private_arrays import private_out
from ftransforms.core.tracer import DTYPE_HIDDEN_FROM, SPARSE_DISPATCHED, Tracer
from ftransforms.numpy.helpers import array_like, dtype_of, physical
from ftransforms.numpy.indexing import IndexUpdateHelper, choose, compress, getitem, nonzero, take
from ftransforms.numpy.manipulation import ravel
from ftransforms.numpy.products import dot, matmul, trace
from ftransforms.numpy.protocol import NAMESPACE, UFUNC_ALIASES, handle_function, handle_ufunc
from ftransforms.numpy.rearranging import repeat
from ftransforms.numpy.reductions import (
    all,
    any,
    argmax,
    argmin,
    cumprod,
    cumsum,
    max,
    mean,
    min,
    prod,
    ptp,
    std,
    sum,
    var,
)
from ftransforms.numpy.result_layout import (
    in_order_of,
    laid_out_as_numpy,
    laid_out_as_numpy_function,
)
from ftransforms.numpy.sorting import argpartition, argsort, partition, searchsorted
from ftransforms.numpy.sparse_operands import scipy_sparse_kind, sparse_matmul
from ftransforms.numpy.ufuncs import (
    abs,
    add,
    astype,
    bitwise_and,
    bitwise_or,
    bitwise_xor,
    clip,
    conj,
    divide,
    equal,
    floor_divide,
    greater,
    greater_equal,
    invert,
    left_shift,
    less,
    less_equal,
    logical_not,
    multiply,
    negative,
    not_equal,
    power,
    reciprocal,
    remainder,
    right_shift,
    sqrt,
    square,
    subtract,
)
from ftransforms.numpy.ufuncs import divmod as divmod_
from ftransforms.numpy.ufuncs import round as round_

#: Operands that a NumPy integer scalar repeats under ``*`` (NOTE [repeating a sequence]).
_SEQUENCES = frozenset({list, tuple, str, bytes})

__all__ = []


def _defer(other: Any) -> Any:
    """``NotImplemented`` for an operand that opts out of NumPy's ufuncs
    (``__array_ufunc__ = None``, as ``numpy.polynomial.Polynomial``), so that Python asks
    its reflected operator, as ``ndarray``'s operators do (NEP 13); otherwise the error
    being handled is raised again."""
    if getattr(type(other), "__array_ufunc__", False) is None:
        return NotImplemented
    raise  # noqa: PLE0704  (re-raises the TypeError the operator is handling)


def _sparse_on_right(x: Any, matrix: Any) -> Any:
    """``x @ matrix`` for a ``scipy.sparse`` ``matrix``: ``(matrix.T @ x.T).T``
    (NOTE [SciPy sparse operands])."""
    if x.ndim == 1:
        return sparse_matmul(matrix.transpose(), x)
    return sparse_matmul(matrix.transpose(), x.T).T


def _out(method: str, out: Any, result: Any) -> Any:
    """``result``, or written into ``out`` (and ``out`` returned) as NumPy's ``out=``."""
    if out is None:
        return result
    if isinstance(out, tuple):
        (out,) = out
    return inplace.write_out(f"x.{method}(..., out=...)", out, result)


_NDARRAY = numpy.ndarray

#: NumPy's ``a ** p`` of a float or complex array for a Python ``int`` -1 or 2 or a Python
#: ``float`` 0.5 is ``reciprocal``/``square``/``sqrt`` (its fast scalar power), which for
#: complex rounds otherwise than ``power`` (``a ** 2.0`` and ``np.power(a, 2)`` are power).
_FAST_POWERS = {(int, -1): reciprocal, (int, 2): square, (float, 0.5): sqrt}
_ND = _NDARRAY


def _numpys_layout(out: Any, a: Any, b: Any) -> Any:
    """``out``, the result of an operator on ``a`` and ``b`` (None for a unary one), laid out
    as NumPy lays it out (NOTE [layout of elementwise results] in numpy/result_layout.py)."""
    if NOT_IN_C_ORDER and (id(a) in NOT_IN_C_ORDER or id(b) in NOT_IN_C_ORDER):
        return laid_out_as_numpy(out, (a,) if b is None else (a, b))
    if type(b) is numpy.ndarray and b.ndim > 1 and not b.flags.c_contiguous:
        return laid_out_as_numpy(out, (a, b))
    return out


class ArrayMethods:
    """The members :func:`install` copies onto :class:`Tracer` (never instantiated)."""

    __slots__ = ()

    # Views (basic indexing, .T, transpose, reshape, ...) and writes follow NumPy's
    # mutation semantics: NOTE [mutation semantics] in core/mutation.py.
    @property
    def T(self) -> Tracer:  # noqa: N802  (numpy's name)
        return inplace.transpose_view(self)

    @property
    def mT(self) -> Tracer:  # noqa: N802
        return inplace.swapaxes_view(self, -1, -2)

    @property
    def real(self) -> Tracer:
        return inplace.real_view(self)

    @real.setter
    def real(self, value) -> None:
        inplace.setitem(inplace.real_view(self), Ellipsis, value)

    @property
    def imag(self) -> Tracer:
        return inplace.imag_view(self)

    @imag.setter
    def imag(self, value) -> None:
        if dtype_of(self).kind != "c":
            raise TypeError("array does not have imaginary part to set")  # NumPy's words
        inplace.setitem(inplace.imag_view(self), Ellipsis, value)

    # -- NumPy protocols ------------------------------------------------------------------

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        out = kwargs.get("out")
        if out is not None and type(out) is tuple and len(out) == 1 and type(out[0]) is _ND:
            # x0 += t into a plain array only x0 holds (NOTE [traced writes into private
            # NumPy arrays]): the same lines as private_arrays._OutProbe's, which counts
            swapped = private_out(out[0], inputs, kwargs, ufunc, method)
            if swapped is not None:
                inputs, kwargs = swapped
        return handle_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        return handle_function(func, args, kwargs)

    # -- operators ------------------------------------------------------------------------

    def __add__(self, other):
        try:
            out = add(self, other)
            if NOT_IN_C_ORDER or type(other) is _NDARRAY:
                return _numpys_layout(out, self, other)
            return out
        except TypeError:
            return _defer(other)

    def __radd__(self, other):
        try:
            out = add(other, self)
            if NOT_IN_C_ORDER or type(other) is _NDARRAY:
                return _numpys_layout(out, self, other)
            return out
        except TypeError:
            return _defer(other)

    def __sub__(self, other):
        try:
            out = subtract(self, other)
            if NOT_IN_C_ORDER or type(other) is _NDARRAY:
                return _numpys_layout(out, self, other)
            return out
        except TypeError:
            return _defer(other)

    def __rsub__(self, other):
        try:
            out = subtract(other, self)
            if NOT_IN_C_ORDER or type(other) is _NDARRAY:
                return _numpys_layout(out, self, other)
            return out
        except TypeError:
            return _defer(other)

    # NOTE [NumPy matrix operands]: ``M * t`` with ``M`` a ``numpy.matrix`` is a matrix
    # product, as NumPy computes it for matrices (MATLAB ports: ``T.T * k_local * T``):
    # ``matrix.__mul__`` gives way to a tracer (it has ``__rmul__``), so the tracer's
    # ``__rmul__`` and ``__mul__`` take ``@`` for a matrix operand.  Every other operation
    # reads a matrix operand as its 2-d array (``bind``'s general path converts it when a
    # tracer is among the operands), so a tracer's values are never matrices; the result
    # is a traced 2-d array where NumPy gives a matrix.
    # NOTE [repeating a sequence]: ``[0] * n`` and ``"ab" * n`` with ``n`` a NumPy integer
    # scalar repeat the sequence (``n`` gives way, as a Python int does), so a 0-d integer
    # tracer does too: its number is read (``__index__``; under vmap rows with different
    # counts split the batch), as in the loop over rows, whose ``x[i]`` is such a scalar.
    def __mul__(self, other):
        if type(other) is numpy.matrix:
            return matmul(self, numpy.asarray(other))
        if type(other) in _SEQUENCES and not self.shape and self.dtype.kind in "iu":
            return other * self.__index__()
        try:
            out = multiply(self, other)
            if NOT_IN_C_ORDER or type(other) is _NDARRAY:
                return _numpys_layout(out, self, other)
            return out
        except TypeError:
            kind = scipy_sparse_kind(other)  # NOTE [SciPy sparse operands]
            if kind == "matrix":  # a scipy.sparse matrix's * is @
                return _sparse_on_right(self, other)
            if kind == "array":  # elementwise: the values of the dense array
                return multiply(self, other.toarray())
            return _defer(other)

    def __rmul__(self, other):
        if type(other) in SPARSE_DISPATCHED and scipy_sparse_kind(other) == "matrix":
            return sparse_matmul(other, self)  # a scipy.sparse matrix's * is @
        if type(other) is numpy.matrix:  # NOTE [NumPy matrix operands]
            return matmul(numpy.asarray(other), self)
        if type(other) in _SEQUENCES and not self.shape and self.dtype.kind in "iu":
            return other * self.__index__()  # NOTE [repeating a sequence]
        try:
            out = multiply(other, self)
            if NOT_IN_C_ORDER or type(other) is _NDARRAY:
                return _numpys_layout(out, self, other)
            return out
        except TypeError:
            return _defer(other)

    def __truediv__(self, other):
        try:
            out = divide(self, other)
            if NOT_IN_C_ORDER or type(other) is _NDARRAY:
                return _numpys_layout(out, self, other)
            return out
        except TypeError:
            return _defer(other)

    def __rtruediv__(self, other):
        try:
            out = divide(other, self)
            if NOT_IN_C_ORDER or type(other) is _NDARRAY:
                return _numpys_layout(out, self, other)
            return out
        except TypeError:
            return _defer(other)

    def __floordiv__(self, other):
        try:
            out = floor_divide(self, other)
            if NOT_IN_C_ORDER or type(other) is _NDARRAY:
                return _numpys_layout(out, self, other)
            return out
        except TypeError:
            return _defer(other)

    def __rfloordiv__(self, other):
        try:
            out = floor_divide(other, self)
            if NOT_IN_C_ORDER or type(other) is _NDARRAY:
                return _numpys_layout(out, self, other)
            return out
        except TypeError:
            return _defer(other)

    def __mod__(self, other):
        try:
            out = remainder(self, other)
            if NOT_IN_C_ORDER or type(other) is _NDARRAY:
                return _numpys_layout(out, self, other)
            return out
        except TypeError:
            return _defer(other)

    def __rmod__(self, other):
        try:
            out = remainder(other, self)
            if NOT_IN_C_ORDER or type(other) is _NDARRAY:
                return _numpys_layout(out, self, other)
            return out
        except TypeError:
            return _defer(other)

    def __pow__(self, other):
        try:
            if other.__class__ is int and other == 2 and self.dtype.kind == "b":
                out = square(self)  # NumPy's a ** 2 is square(a): int8 for bools, not int64
            else:
                kind = other.__class__
                fast = _FAST_POWERS.get((kind, other)) if kind is int or kind is float else None
                if fast is not None and self.dtype.kind in "fc":
                    out = fast(self)
                else:
                    out = power(self, other)
            if NOT_IN_C_ORDER or type(other) is _NDARRAY:
                return _numpys_layout(out, self, other)
            return out
        except TypeError:
            return _defer(other)

    def __rpow__(self, other):
        try:
            out = power(other, self)
            if NOT_IN_C_ORDER or type(other) is _NDARRAY:
                return _numpys_layout(out, self, other)
            return out
        except TypeError:
            return _defer(other)

    def __matmul__(self, other):
        try:
            return matmul(self, other)
        except (TypeError, ValueError):  # NOTE [SciPy sparse operands]: only then checked
            if scipy_sparse_kind(other) is not None:
                return _sparse_on_right(self, other)
            raise

    def __rmatmul__(self, other):
        try:
            return matmul(other, self)
        except (TypeError, ValueError):
            if scipy_sparse_kind(other) is not None:
                return sparse_matmul(other, self)
            raise

    def __neg__(self):
        out = negative(self)
        if NOT_IN_C_ORDER:
            return _numpys_layout(out, self, None)
        return out

    def __pos__(self):
        return _numpys_layout(
            clone(self), self, None
        )  # a new array, as NumPy's +a (NOTE [a new array, not the argument])

    def __abs__(self):
        out = abs(self)
        if NOT_IN_C_ORDER:
            return _numpys_layout(out, self, None)
        return out

    def __invert__(self):
        out = logical_not(self) if self.dtype.kind == "b" else invert(self)
        if NOT_IN_C_ORDER:
            return _numpys_layout(out, self, None)
        return out

    # NumPy's &, |, ^: bitwise (logical on booleans), never a silent bool on integers.
    def __and__(self, other):
        out = bitwise_and(self, other)
        if NOT_IN_C_ORDER or type(other) is _NDARRAY:
            return _numpys_layout(out, self, other)
        return out

    def __rand__(self, other):
        out = bitwise_and(other, self)
        if NOT_IN_C_ORDER or type(other) is _NDARRAY:
            return _numpys_layout(out, self, other)
        return out

    def __or__(self, other):
        out = bitwise_or(self, other)
        if NOT_IN_C_ORDER or type(other) is _NDARRAY:
            return _numpys_layout(out, self, other)
        return out

    def __ror__(self, other):
        out = bitwise_or(other, self)
        if NOT_IN_C_ORDER or type(other) is _NDARRAY:
            return _numpys_layout(out, self, other)
        return out

    def __xor__(self, other):
        out = bitwise_xor(self, other)
        if NOT_IN_C_ORDER or type(other) is _NDARRAY:
            return _numpys_layout(out, self, other)
        return out

    def __rxor__(self, other):
        out = bitwise_xor(other, self)
        if NOT_IN_C_ORDER or type(other) is _NDARRAY:
            return _numpys_layout(out, self, other)
        return out

    def __lshift__(self, other):
        out = left_shift(self, other)
        if NOT_IN_C_ORDER or type(other) is _NDARRAY:
            return _numpys_layout(out, self, other)
        return out

    def __rlshift__(self, other):
        out = left_shift(other, self)
        if NOT_IN_C_ORDER or type(other) is _NDARRAY:
            return _numpys_layout(out, self, other)
        return out

    def __rshift__(self, other):
        out = right_shift(self, other)
        if NOT_IN_C_ORDER or type(other) is _NDARRAY:
            return _numpys_layout(out, self, other)
        return out

    def __rrshift__(self, other):
        out = right_shift(other, self)
        if NOT_IN_C_ORDER or type(other) is _NDARRAY:
            return _numpys_layout(out, self, other)
        return out

    def __eq__(self, other):  # type: ignore[override]
        out = equal(self, other)
        if NOT_IN_C_ORDER or type(other) is _NDARRAY:
            return _numpys_layout(out, self, other)
        return out

    def __ne__(self, other):  # type: ignore[override]
        out = not_equal(self, other)
        if NOT_IN_C_ORDER or type(other) is _NDARRAY:
            return _numpys_layout(out, self, other)
        return out

    def __hash__(self) -> int:
        # Refused, as for NumPy arrays (hash(np.array(1.0)) raises): a traced value is an
        # array even where NumPy has a hashable scalar (x[0]); the error names the key.
        raise TypeError(
            f"{self._interp.name}: hash() of a traced value (unhashable type: "
            f"'{type(self).__name__}'), as a dict key, a set element or an lru_cache "
            f"argument: a traced value is an array, which NumPy does not hash either.  Use a "
            f"Python number read from it as the key: float(v), int(v) or v.item() (under "
            f"vmap the rows that hold different numbers then run as separate groups)."
        )

    def __lt__(self, other):
        out = less(self, other)
        if NOT_IN_C_ORDER or type(other) is _NDARRAY:
            return _numpys_layout(out, self, other)
        return out

    def __le__(self, other):
        out = less_equal(self, other)
        if NOT_IN_C_ORDER or type(other) is _NDARRAY:
            return _numpys_layout(out, self, other)
        return out

    def __gt__(self, other):
        out = greater(self, other)
        if NOT_IN_C_ORDER or type(other) is _NDARRAY:
            return _numpys_layout(out, self, other)
        return out

    def __ge__(self, other):
        out = greater_equal(self, other)
        if NOT_IN_C_ORDER or type(other) is _NDARRAY:
            return _numpys_layout(out, self, other)
        return out

    def __getitem__(self, index):
        return inplace.getitem_view(self, index)

    def __setitem__(self, index, value):
        inplace.setitem(self, index, value)

    @property
    def at(self):
        return IndexUpdateHelper(self)

    @property
    def flat(self):
        return FlatIter(self)

    @flat.setter
    def flat(self, value):
        inplace.flat_assign(self, value)  # ``t.flat = v``

    @property
    def flags(self):
        return inplace.TracerFlags(self)

    @property
    def base(self):
        # NumPy's: the array a view's elements belong to, None for one that owns them
        return inplace.numpy_base(self)

    # -- methods --------------------------------------------------------------------------

    # Reductions take NumPy's method signatures: ``out=`` (written with NumPy's mutation
    # semantics, NOTE [mutation semantics]) in NumPy's position, ``where=``/``initial=``
    # passed on to the function (which refuses what it does not support).
    def sum(self, axis=None, dtype=None, out=None, keepdims=False, **kw):
        return _out("sum", out, sum(self, axis=axis, dtype=dtype, keepdims=keepdims, **kw))

    def mean(self, axis=None, dtype=None, out=None, keepdims=False, **kw):
        return _out("mean", out, mean(self, axis=axis, dtype=dtype, keepdims=keepdims, **kw))

    def prod(self, axis=None, dtype=None, out=None, keepdims=False, **kw):
        return _out("prod", out, prod(self, axis=axis, dtype=dtype, keepdims=keepdims, **kw))

    def max(self, axis=None, out=None, keepdims=False, **kw):
        return _out("max", out, max(self, axis=axis, keepdims=keepdims, **kw))

    def min(self, axis=None, out=None, keepdims=False, **kw):
        return _out("min", out, min(self, axis=axis, keepdims=keepdims, **kw))

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kw):
        got = var(self, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims, **kw)
        return _out("var", out, got)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kw):
        got = std(self, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims, **kw)
        return _out("std", out, got)

    def argmax(self, axis=None, out=None, *, keepdims=False):
        return _out("argmax", out, argmax(self, axis=axis, keepdims=keepdims))

    def argmin(self, axis=None, out=None, *, keepdims=False):
        return _out("argmin", out, argmin(self, axis=axis, keepdims=keepdims))

    def any(self, axis=None, out=None, keepdims=False, **kw):
        return _out("any", out, any(self, axis=axis, keepdims=keepdims, **kw))

    def all(self, axis=None, out=None, keepdims=False, **kw):
        return _out("all", out, all(self, axis=axis, keepdims=keepdims, **kw))

    def reshape(self, *shape, order="C"):
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = shape[0]
        return inplace.reshape_view(self, shape, order=order)

    def transpose(self, *axes):
        if len(axes) == 1 and not isinstance(axes[0], int):
            axes = axes[0]
        return inplace.transpose_view(self, axes or None)

    def swapaxes(self, axis1, axis2):
        return inplace.swapaxes_view(self, axis1, axis2)

    def squeeze(self, axis=None):
        return inplace.squeeze_view(self, axis)

    def view(self, dtype=None, type=None):  # noqa: A002 - NumPy's names
        return inplace.identity_view(self, dtype, type)

    def ravel(self, order="C"):
        return inplace.ravel_view(self, order=order)

    def flatten(self, order="C"):
        return inplace.copy_of(inplace.memory_ravel(self, order))

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        if casting != "unsafe" and not numpy.can_cast(self.dtype, dtype, casting):
            raise TypeError(  # NumPy's words
                f"Cannot cast array data from {self.dtype!r} to {numpy.dtype(dtype)!r} "
                f"according to the rule {casting!r}"
            )
        out = astype(self, dtype)
        if out is self:
            return inplace.copy_in_order(self, order) if copy else out
        return in_order_of(out, self, order)  # NOTE [layout of elementwise results]

    def copy(self, order="C"):
        return inplace.copy_in_order(self, order)

    def dot(self, other, out=None):
        return _out("dot", out, dot(self, other))

    def nonzero(self, *, size=None, fill_value=None):  # JAX's keywords
        return nonzero(self, size=size, fill_value=fill_value)

    def choose(self, choices, out=None, mode="raise"):
        return choose(self, choices, out=out, mode=mode)

    def partition(self, kth, axis=-1, kind="introselect", order=None):
        # in place, as NumPy; the values end in a valid partition order (fully sorted)
        inplace.assign(self, partition(self, kth, axis=axis, kind=kind, order=order))

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @property
    def strides(self) -> tuple:
        # NumPy's strides for a view (NOTE [byte strides of views]); else C order, as
        # numpy.array(t) lays the elements out
        if getattr(self, "_base", None) is not None or id(self) in ROOT_LAYOUTS:
            known = strides_of(self)  # (NOTE [layout of elementwise results]: roots too)
            if known is not None:
                return known
        elif type(self) is Buffer:
            return self.val.strides  # a plain array's own (np.zeros(s, order="F"))
        out, step = [], self.dtype.itemsize
        for n in reversed(self.shape):
            out.append(step)
            step *= n
        return tuple(reversed(out))

    @strides.setter
    def strides(self, value) -> None:
        # NumPy re-reads the memory in place: no transform can
        raise UnsupportedOperationError(
            f"{self._interp.name}: x.strides = {tuple(value)} on a traced array re-reads its "
            f"memory in place, which is not supported under a transform (and deprecated in "
            f"NumPy); take the view with numpy.lib.stride_tricks.as_strided(x, shape, strides)"
        )

    def __contains__(self, value):
        return bool(any(equal(self, value)))

    def clip(self, min=None, max=None, out=None, **kw):  # noqa: A002  (numpy's names)
        return _out("clip", out, clip(self, min, max, **kw))

    def conj(self):
        return conj(self)

    conjugate = conj

    def take(self, indices, axis=None, out=None, mode="raise"):
        return _out("take", out, take(self, indices, axis=axis, mode=mode))

    def cumsum(self, axis=None, dtype=None, out=None):
        return _out("cumsum", out, cumsum(self, axis=axis, dtype=dtype))

    def cumprod(self, axis=None, dtype=None, out=None):
        return _out("cumprod", out, cumprod(self, axis=axis, dtype=dtype))

    def argsort(self, axis=-1, kind=None, order=None, *, stable=None, descending=False):
        return argsort(self, axis, kind, order, stable=stable, descending=descending)

    def ptp(self, axis=None, out=None, keepdims=False):  # jax.Array's (NumPy 2 dropped it)
        return _out("ptp", out, ptp(self, axis=axis, keepdims=keepdims))

    def argpartition(self, kth, axis=-1):
        return argpartition(self, kth, axis=axis)

    def searchsorted(self, v, side="left", sorter=None):
        return searchsorted(self, v, side=side, sorter=sorter)

    def repeat(self, repeats, axis=None):
        return repeat(self, repeats, axis=axis)

    def diagonal(self, offset=0, axis1=0, axis2=1):
        return inplace.diagonal_view(self, offset, axis1, axis2)

    def trace(self, offset=0, axis1=0, axis2=1, dtype=None, out=None):
        return _out("trace", out, trace(self, offset, axis1, axis2, dtype))

    def compress(self, condition, axis=None, out=None):
        return _out("compress", out, compress(condition, self, axis))

    def round(self, decimals=0, out=None):
        return _out("round", out, round_(self, decimals))

    def __round__(self, ndigits=None):
        if ndigits is None and self.ndim == 0:
            return int(round_(self, 0))  # a Python int, as round() of a NumPy scalar
        return round_(self, ndigits or 0)

    def is_integer(self) -> bool:
        """``x.is_integer()`` of a 0-d value, as of a NumPy scalar (``x[i]`` in a loop over
        rows): a Python bool read from the value (under vmap rows that differ split)."""
        kind = self.dtype.kind
        if self.ndim or kind not in "iuf":
            name = "numpy.ndarray" if self.ndim else f"numpy.{self.dtype}"
            raise AttributeError(f"'{name}' object has no attribute 'is_integer'")
        if kind != "f":
            return True
        return bool(NAMESPACE["isfinite"](self) & equal(self, NAMESPACE["floor"](self)))

    def as_integer_ratio(self) -> tuple[int, int]:
        """``x.as_integer_ratio()`` of a 0-d floating value, as of a NumPy scalar (``x[i]``
        in a loop over rows; ``fractions.Fraction(x[i])`` calls it): Python ints read from
        the value (under vmap rows that differ split)."""
        if self.ndim or self.dtype.kind != "f":
            name = "numpy.ndarray" if self.ndim else f"numpy.{self.dtype}"
            raise AttributeError(f"'{name}' object has no attribute 'as_integer_ratio'")
        return float(self.item()).as_integer_ratio()

    def __divmod__(self, other):
        return divmod_(self, other)

    def __rdivmod__(self, other):
        return divmod_(other, self)

    # A copy is a new tracer object with the same value, still traced (a write into one
    # leaves the other).  Without these, copy.deepcopy(params) would rebuild the tracer
    # through pickling and cut it off from its transform.
    def __copy__(self):
        return inplace.copy_of(self)

    def __deepcopy__(self, memo):
        return inplace.copy_of(self)

    def sort(self, axis=-1, kind=None, order=None):
        if order is not None:
            raise InPlaceError("t.sort(order=...): structured arrays are not supported")
        inplace.sort_inplace(self, axis, kind)

    def fill(self, value):
        inplace.fill(self, value)

    def put(self, indices, values, mode="raise"):
        inplace.put(self, indices, values, mode)

    def __len__(self) -> int:
        shape = self.shape
        if not shape:
            raise TypeError("len() of a 0-d array (a tracer of shape ())")
        if len(shape) > 1:  # NOTE [shuffling a traced array] (numpy/inplace.py)
            inplace.note_len_call(self, shape[0])
        return shape[0]

    def resize(self, *new_shape, refcheck=True):
        inplace.resize(self, new_shape)

    def setflags(self, write=None, align=None, uic=None):
        if write is not None:
            self.flags.writeable = write

    @property
    def device(self) -> Any:
        """The Array API's ``x.device``: ``"cpu"`` for NumPy (as ``ndarray.device``), the
        array's own device for CuPy (what SciPy's array-API code asks of its inputs)."""
        value = physical(self)
        return getattr(value, "device", "cpu")

    def byteswap(self, inplace: bool = False) -> Any:
        """``x.byteswap()``: of an array of constants made inside (a buffer), NumPy's (in
        place: written into it, so its views see it); a traced array's bytes are not
        there to swap."""
        if type(self) is Buffer:
            swapped = self.val.byteswap()
            if not inplace:
                return mutable(swapped)
            self[...] = swapped
            return self
        raise UnsupportedOperationError(
            f"{self._interp.name}: x.byteswap() of a traced array reinterprets its bytes, "
            f"which a transform does not track; byteswap the inputs before the transform "
            f"(x.astype(x.dtype.newbyteorder()) converts values and keeps them)"
        )

    @property
    def data(self) -> memoryview:
        """``x.data``: of a buffer, a read-only memoryview of its elements (a write through
        it cannot reach the array); a traced array has no memory to view."""
        if type(self) is Buffer:
            return memoryview(numpy.asarray(self))
        raise UnsupportedOperationError(
            f"{self._interp.name}: x.data (the array's memory as a memoryview) of a traced "
            f"array: its values exist only as what the transform tracks; read them with "
            f"the array itself, or take the memoryview outside the transform"
        )

    def to_device(self, device: Any, /, *, stream: Any = None) -> Tracer:
        if device != self.device:
            raise UnsupportedOperationError(
                f"x.to_device({device!r}): a traced array stays on its device "
                f"({self.device!r}); move the inputs before the transform"
            )
        return self


def _method_in_numpys_layout(method: Any) -> Any:
    """A method of :class:`ArrayMethods` whose new result is laid out as NumPy's function of
    that name lays it out (NOTE [layout of elementwise results] in numpy/result_layout.py)."""

    def laid_out(self, *args, **kwargs):
        out = method(self, *args, **kwargs)
        if not NOT_IN_C_ORDER or (id(self) not in NOT_IN_C_ORDER and method.__name__ != "clip"):
            return out  # (clip: its bounds may be the arrays laid out otherwise)
        return laid_out_as_numpy_function(method.__name__, out, (self, *args), kwargs)

    laid_out.__name__, laid_out.__qualname__ = method.__name__, method.__qualname__
    laid_out.__doc__ = method.__doc__
    return laid_out


for _name in "sum mean prod max min var std any all cumsum cumprod clip round".split():
    setattr(ArrayMethods, _name, _method_in_numpys_layout(vars(ArrayMethods)[_name]))


class FlatIter:
    """``t.flat`` of a tracer: a read-only view of its elements in C order, as NumPy's
    ``flatiter`` is (``for v in t.flat``, ``t.flat[i]``, ``t.flat[2:5]``, ``len(t.flat)``,
    ``t.flat.copy()``); ``t.flat[i] = v`` writes into ``t``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> ft.grad(lambda x: x.flat[1] * x.flat[-1])(np.array([[1.0, 2.0], [3.0, 4.0]]))
        array([[0., 4.],
               [0., 2.]])
    """

    __slots__ = ("base",)

    def __init__(self, base: Tracer) -> None:
        self.base = base

    def __len__(self) -> int:
        return self.base.size

    def __iter__(self):
        return iter(ravel(self.base))

    def __getitem__(self, index: Any) -> Any:
        return getitem(ravel(self.base), index)

    def __setitem__(self, index: Any, value: Any) -> None:
        inplace.flat_setitem(self.base, index, value)

    def copy(self) -> Tracer:
        return ravel(self.base)


_NOT_MEMBERS = {"__module__", "__qualname__", "__doc__", "__slots__", "__dict__", "__weakref__"}


def install(cls: type = Tracer) -> None:
    """Copy the members of :class:`ArrayMethods` onto ``cls`` (the tracer base class)."""
    for name, value in vars(ArrayMethods).items():
        if name not in _NOT_MEMBERS:
            setattr(cls, name, value)
    for name, value in inplace.INPLACE_OPERATORS.items():  # x += y, x @= y, ...
        setattr(cls, name, value)


def _ufunc_method(name: str, fn: Any) -> Any:
    def method(self: Tracer) -> Any:
        return fn(self)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"``numpy.{name}`` of the tracer (what NumPy calls on object arrays)."
    return method


def _integral_method(name: str, fn: Any) -> Any:
    """``math.floor``/``ceil``/``trunc`` of a 0-d tracer give a Python int, as they do of
    a NumPy scalar (``range(math.ceil(x))``, ``a[math.floor(x)]``), read as ``int()``
    reads it (NOTE [number conversions]); NumPy's object loops of ``floor``/``ceil``/
    ``trunc`` call them too and give ints there as well."""

    def method(self: Tracer) -> Any:
        out = fn(self)
        return int(out) if self.ndim == 0 and self.dtype.kind != "c" else out

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"``math.{name[2:-2]}`` of the tracer: a Python int for a 0-d one."
    return method


def _binary_ufunc_method(name: str, fn: Any) -> Any:
    def method(self: Tracer, other: Any) -> Any:
        return fn(self, other)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"``numpy.{name}(t, other)`` (what NumPy calls on object arrays)."
    return method


def _install_ufunc_methods(cls: type = Tracer) -> None:
    """Give ``cls`` a method per unary or binary NumPy ufunc that ``ftransforms.numpy``
    has (``t.exp()``, ``t.sqrt()``, ``t.arctan2(u)``, ...): NumPy's loops over object arrays
    call the method of the ufunc's name on each element, so ``np.exp(np.array([t, u]))``
    computes on tracers; ``math.floor``/``ceil``/``trunc``, which NumPy's object loops of
    ``floor``/``ceil``/``trunc`` call, answer ``__floor__``/``__ceil__``/``__trunc__``.
    Existing attributes are kept."""
    for ufunc in vars(numpy).values():
        if isinstance(ufunc, numpy.ufunc) and ufunc.nin in (1, 2) and ufunc.nout == 1:
            name = ufunc.__name__
            fn = NAMESPACE.get(UFUNC_ALIASES.get(name, name))
            if fn is not None and not hasattr(cls, name):
                make = _ufunc_method if ufunc.nin == 1 else _binary_ufunc_method
                setattr(cls, name, make(name, fn))
    for dunder, name in (("__floor__", "floor"), ("__ceil__", "ceil"), ("__trunc__", "trunc")):
        if not hasattr(cls, dunder):
            setattr(cls, dunder, _integral_method(dunder, NAMESPACE[name]))


def _hide_dtype_from_numpy_scalar_casts() -> None:
    """NumPy's mean/var/std of an object array end with ``x.dtype.type(x)`` when their sum
    ``x`` has a ``dtype``, which would call ``float()`` on a tracer: there the tracer's
    ``dtype`` reads as absent, so they divide the tracer instead (``np.mean([t1, t2])``)."""
    methods = sys.modules.get("numpy._core._methods")
    for name in ("_mean", "_var", "_std"):
        fn = getattr(methods, name, None)
        if fn is not None:
            DTYPE_HIDDEN_FROM.add(fn.__code__)


install()
_install_ufunc_methods()
OBJECT_ARRAY_CONVERTER[:] = [array_like]
_hide_dtype_from_numpy_scalar_casts()
