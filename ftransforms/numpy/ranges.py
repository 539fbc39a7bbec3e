"""Numerical ranges: ``arange``, ``linspace`` (with traced end points), ``logspace``,
``geomspace``, ``meshgrid`` (NumPy's "Array creation routines: numerical ranges").
"""

from __future__ import annotations

import operator
from typing import Any

import numpy

import ftransforms.numpy.ufuncs as ufuncs
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.mutation import numbers_of, user_array
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.creation import as_operand, asarray
from ftransforms.numpy.dispatch import implements
from ftransforms.numpy.helpers import (
    dtype_of,
    first_array,
    invalid_in_rows,
    ndim,
    shape,
    weak_result_type,
    xp_like,
)
from ftransforms.numpy.indexing import getitem, where
from ftransforms.numpy.manipulation import (
    broadcast_arrays,
    broadcast_shapes,
    broadcast_to,
    concatenate,
    expand_dims,
    moveaxis,
    reshape,
)
from ftransforms.numpy.ufuncs import astype, log10, power

__all__ = ["arange", "linspace", "logspace", "geomspace", "linspace_traced", "meshgrid"]


def arange(*args: Any, dtype: Any = None, like: Any = None) -> Any:
    """``numpy.arange``: evenly spaced constants in ``[start, stop)``, on ``like``'s backend
    (NumPy by default).

    Example:
        >>> import ftransforms.numpy as fnp
        >>> fnp.arange(4).tolist()
        [0, 1, 2, 3]
        >>> fnp.arange(1.0, 2.0, 0.25).tolist()
        [1.0, 1.25, 1.5, 1.75]
    """
    args, _ = numbers_of(args, {})  # a traced bound counts as its number, as in NumPy
    return user_array(xp_like(like).arange(*args, dtype=dtype), "arange")


def linspace(
    start: Any,
    stop: Any,
    num: int = 50,
    endpoint: bool = True,
    retstep: bool = False,
    dtype: Any = None,
    axis: int = 0,
    *,
    device: Any = None,
    like: Any = None,
) -> Any:
    """``numpy.linspace``: ``num`` evenly spaced values from ``start`` to ``stop``, on
    ``like``'s backend; traced end points go to :func:`linspace_traced` (through NumPy's
    dispatch), so they are differentiable.

    Example:
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.linspace(0.0, 1.0, 5).tolist()
        [0.0, 0.25, 0.5, 0.75, 1.0]
        >>> float(ft.grad(lambda t: fnp.linspace(0.0, t, 3).sum())(2.0))  # 0 + t/2 + t
        1.5
    """
    if isinstance(start, Tracer) or isinstance(stop, Tracer):
        return linspace_traced(start, stop, num, endpoint, retstep=retstep, dtype=dtype, axis=axis)
    out = xp_like(like).linspace(start, stop, num, endpoint, retstep, dtype, axis)
    if retstep:
        return user_array(out[0], "linspace"), out[1]
    return user_array(out, "linspace")


def _linspace(start: Any, stop: Any, num: int, endpoint: bool, axis: int) -> Any:
    """NumPy's ``linspace`` on traced or untraced ``start``/``stop``, on their backend, in
    NumPy's dtype (Python numbers weak: float16 end points give float16) and NumPy's
    arithmetic to the bit: ``arange(num) * step + start`` with ``step = (stop - start) /
    div``, ``arange(num) / div * delta + start`` where ``step`` underflows to 0, and the end
    point exactly ``stop``."""
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    dt = weak_result_type(start, stop, 1.0)  # NumPy's ensure_inexact on weak scalars
    like = first_array(start, stop)
    start, stop = astype(as_operand(start, like), dt), astype(as_operand(stop, like), dt)
    bshape = broadcast_shapes(shape(start), shape(stop))
    delta = stop - start
    div = num - 1 if endpoint else num
    steps = reshape(arange(num, dtype=dt, like=start), (num,) + (1,) * len(bshape))
    if div > 0:
        step = delta / div
        # where the step underflows to 0 (a denormal delta, numpy#5437) NumPy divides first
        y = where(step == 0, steps / div * delta, steps * step)
    else:
        y = steps * delta
    y = broadcast_to(y + start, (num,) + bshape)
    if endpoint and num > 1:
        last = reshape(broadcast_to(stop, bshape), (1,) + bshape)
        y = concatenate([getitem(y, slice(0, -1)), last])
    return moveaxis(y, 0, axis) if axis != 0 else y


@implements(numpy.logspace)
def logspace(
    start: Any,
    stop: Any,
    num: int = 50,
    endpoint: bool = True,
    base: Any = 10.0,
    dtype: Any = None,
    axis: int = 0,
) -> Any:
    """``numpy.logspace``: ``base ** linspace(start, stop)``; ``start``, ``stop`` and
    ``base`` may be traced.

    Example:
        >>> logspace(0.0, 2.0, 3).tolist()
        [1.0, 10.0, 100.0]
    """
    if not isinstance(base, (float, int)) and ndim(base):
        ndmax = len(broadcast_shapes(shape(start), shape(stop), shape(base)))
        like = first_array(start, stop, base)
        start, stop, base = (
            reshape(as_operand(v, like), (1,) * (ndmax - ndim(v)) + shape(v))
            for v in (start, stop, base)
        )
        base = expand_dims(base, axis)
    y = _linspace(start, stop, num, endpoint, axis)
    out = power(base, y)
    return out if dtype is None else astype(out, dtype)


@implements(numpy.geomspace)
def geomspace(
    start: Any, stop: Any, num: int = 50, endpoint: bool = True, dtype: Any = None, axis: int = 0
) -> Any:
    """``numpy.geomspace`` (real ``start``/``stop``, which may be traced): a geometric
    progression with the end points exactly ``start`` and ``stop``.

    Example:
        >>> geomspace(1.0, 1000.0, 4).tolist()
        [1.0, 10.0, 100.0, 1000.0]
    """
    like = first_array(start, stop)
    start, stop = as_operand(start, like), as_operand(stop, like)
    for v in (start, stop):
        if invalid_in_rows(v == 0):  # read per row under vmap (the loop's rows raise)
            raise ValueError("Geometric sequence cannot include zero")
    dt = numpy.result_type(dtype_of(start), dtype_of(stop), float(num), numpy.float64)
    if dt.kind == "c":
        raise UnsupportedOperationError("geomspace: complex start/stop are not supported")
    start, stop = astype(start, dt), astype(stop, dt)
    sign = ufuncs.sign(start)
    start, stop = start / sign, stop / sign
    out = logspace(log10(start), log10(stop), num=num, endpoint=endpoint, base=10.0)
    out = astype(out, dt)
    if num > 0:
        bshape = (1,) + shape(out)[1:]
        parts = [reshape(broadcast_to(start, shape(out)[1:]), bshape)]
        if num > 1:
            stop_b = reshape(broadcast_to(stop, shape(out)[1:]), bshape)
            if endpoint:
                parts += [getitem(out, slice(1, -1)), stop_b]
            else:
                parts.append(getitem(out, slice(1, None)))
        out = concatenate(parts, axis=0) if len(parts) > 1 else parts[0]
    out = sign * out
    if axis != 0:
        out = moveaxis(out, 0, axis)
    return out if dtype is None else astype(out, dtype)


@implements(numpy.linspace)
def linspace_traced(start: Any, stop: Any, num: int = 50, endpoint: bool = True, **kw: Any):
    """``numpy.linspace`` with traced end points (``np.linspace(tracer, ...)``): supports
    ``num``, ``endpoint``, ``retstep``, ``dtype`` and ``axis``; anything else raises
    ``TypeError``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> ft.vmap(lambda t: fnp.linspace_traced(0.0, t, 3))(np.array([1.0, 2.0])).tolist()
        [[0.0, 0.5, 1.0], [0.0, 1.0, 2.0]]
        >>> float(ft.grad(lambda t: np.linspace(0.0, t, 3).sum())(2.0))  # 0 + t/2 + t
        1.5
    """
    dtype = kw.pop("dtype", None)
    axis = kw.pop("axis", 0)
    retstep = kw.pop("retstep", False)
    kw.pop("device", None)
    if kw:
        raise TypeError(f"linspace: unexpected arguments {sorted(kw)}")
    out = _linspace(start, stop, num, endpoint, axis)
    if dtype is not None:
        if numpy.issubdtype(dtype, numpy.integer):
            out = ufuncs.floor(out)  # NumPy floors before the cast (-0.5 -> -1, not 0)
        out = astype(out, dtype)
    if retstep:  # NumPy's step: (stop - start) / div, NaN for no step
        div = num - 1 if endpoint else num
        delta = asarray(stop) - asarray(start)
        return out, delta / div if div > 0 else numpy.nan
    return out


@implements(numpy.meshgrid)
def meshgrid(*xi: Any, copy: bool = True, sparse: bool = False, indexing: str = "xy") -> tuple:
    """``numpy.meshgrid``: coordinate arrays from 1-D vectors (``indexing="xy"`` or
    ``"ij"``, ``sparse=True`` leaves them unbroadcast); tracers stay traced.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> X, Y = fnp.meshgrid(np.array([1, 2, 3]), np.array([10, 20]))
        >>> X.tolist(), Y.tolist()
        ([[1, 2, 3], [1, 2, 3]], [[10, 10, 10], [20, 20, 20]])
        >>> def f(x):
        ...     X, Y = fnp.meshgrid(x, np.array([1.0, 2.0]))
        ...     return (X * Y).sum()
        >>> ft.grad(f)(np.ones(3)).tolist()  # each x meets y = 1 and y = 2
        [3.0, 3.0, 3.0]
    """
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    n = len(xi)
    ones = (1,) * n
    out = [reshape(x, ones[:i] + (-1,) + ones[i + 1 :]) for i, x in enumerate(xi)]
    if indexing == "xy" and n > 1:
        out[0] = reshape(out[0], (1, -1) + ones[2:])
        out[1] = reshape(out[1], (-1, 1) + ones[2:])
    if not sparse:
        out = broadcast_arrays(*out)
    return tuple(out)
