"""NumPy's ufunc methods on traced values, for any binary ``ftransforms.numpy`` function:
``outer`` (``np.subtract.outer(x, y)``: pairwise differences), ``reduce``
(``np.logaddexp.reduce(x)``), ``accumulate`` (``np.maximum.accumulate(x)``: a running
maximum, as in drawdowns) and ``reduceat`` (``np.add.reduceat(x, starts)``: segment sums).

They are compositions of the function itself with broadcasting, slicing and
concatenation, so every transform (and ``jit``) sees ordinary operations: an associative
function reduces as a pairwise tree and accumulates as a log-step scan (``ceil(log2 n)``
applications), any other as a left fold over the axis, in NumPy's order.  The NumPy
protocol answers ``numpy.<ufunc>.<method>(tracer)`` with them.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> x = np.array([1.0, 3.0, 2.0, 5.0])
    >>> accumulate(fnp.maximum, x).tolist()
    [1.0, 3.0, 3.0, 5.0]
    >>> ft.grad(lambda x: accumulate(fnp.maximum, x).sum())(x).tolist()
    [1.0, 2.0, 0.0, 1.0]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

from ftransforms.numpy.creation import as_operand
from ftransforms.numpy.helpers import ndim, normalize_axis, shape
from ftransforms.numpy.indexing import getitem
from ftransforms.numpy.manipulation import (
    concatenate,
    expand_dims,
    moveaxis,
    ravel,
    reshape,
    stack,
)

# Nothing joins the fnp namespace (fnp.outer is numpy.outer): call them by module.
__all__: list[str] = []

#: The binary ufuncs for which ``f(f(a, b), c) == f(a, f(b, c))``: these reduce as a tree
#: and accumulate as a log-step scan; the others fold left to right, as NumPy does.
ASSOCIATIVE = frozenset(
    {
        "add",
        "multiply",
        "maximum",
        "minimum",
        "fmax",
        "fmin",
        "logaddexp",
        "logaddexp2",
        "hypot",
        "logical_and",
        "logical_or",
        "logical_xor",
        "bitwise_and",
        "bitwise_or",
        "bitwise_xor",
        "gcd",
        "lcm",
    }
)


def _name(fn: Callable) -> str:
    return getattr(fn, "name", None) or getattr(fn, "__name__", "")


def outer(fn: Callable, a: Any, b: Any) -> Any:
    """``numpy.<ufunc>.outer(a, b)``: ``fn`` of every element of ``a`` with every element
    of ``b``, of shape ``a.shape + b.shape``.

    Example:
        >>> import numpy as np
        >>> import ftransforms.numpy as fnp
        >>> outer(fnp.subtract, np.array([1.0, 2.0]), np.array([0.5, 1.0, 4.0])).tolist()
        [[0.5, 0.0, -3.0], [1.5, 1.0, -2.0]]
    """
    a, b = as_operand(a), as_operand(b, like=a)
    return fn(reshape(a, shape(a) + (1,) * ndim(b)), b)


def _first_axis_reduced(x: Any, axis: Any) -> Any:
    """``x`` with the reduced axes merged into axis 0 (``axis=None``: all of them)."""
    if axis is None:
        return ravel(x)
    rank = ndim(x)
    if isinstance(axis, (tuple, list)):
        axes = [normalize_axis(int(a), rank) for a in axis]
        if len(set(axes)) != len(axes):
            raise ValueError(f"duplicate value in 'axis': {tuple(axis)}")
        moved = moveaxis(x, axes, list(range(len(axes))))
        return reshape(moved, (-1,) + tuple(shape(moved)[len(axes) :]))
    return moveaxis(x, normalize_axis(int(axis), rank), 0)


def reduce(fn: Callable, a: Any, axis: Any = 0, keepdims: bool = False) -> Any:
    """``numpy.<ufunc>.reduce(a, axis, keepdims=)``: ``fn`` applied along ``axis`` (an
    int, a tuple of axes, or ``None`` for all), left to right.

    Example:
        >>> import numpy as np
        >>> import ftransforms.numpy as fnp
        >>> float(reduce(fnp.logaddexp, np.log(np.array([1.0, 2.0, 5.0]))))  # log(8)
        2.0794415416798357
        >>> reduce(fnp.subtract, np.array([[10.0, 1.0], [2.0, 3.0]]), axis=1).tolist()
        [9.0, -1.0]
    """
    a = as_operand(a)
    rank = ndim(a)
    several = rank > 1 and (axis is None or (isinstance(axis, (tuple, list)) and len(axis) > 1))
    if several and _name(fn) not in ASSOCIATIVE:
        raise ValueError(
            f"reduction operation '{_name(fn)}' is not reorderable, so at most one axis may "
            f"be specified"
        )
    x = _first_axis_reduced(a, axis)
    n = shape(x)[0]
    if n == 0:
        raise ValueError(
            f"zero-size array to reduction operation {_name(fn)} which has no identity"
        )
    if _name(fn) in ASSOCIATIVE:
        while n > 1:  # pairwise tree: adjacent pairs keep the operands' order
            half = n // 2
            pairs = fn(getitem(x, slice(0, 2 * half, 2)), getitem(x, slice(1, 2 * half, 2)))
            x = concatenate([pairs, getitem(x, slice(2 * half, n))]) if n % 2 else pairs
            n = shape(x)[0]
        out = getitem(x, 0)
    else:
        out = getitem(x, 0)
        for i in range(1, n):
            out = fn(out, getitem(x, i))
    if keepdims:
        if axis is None:
            return reshape(out, (1,) * rank)
        axes = axis if isinstance(axis, (tuple, list)) else (axis,)
        out = expand_dims(out, tuple(sorted(normalize_axis(int(ax), rank) for ax in axes)))
    return out


def accumulate(fn: Callable, a: Any, axis: int = 0) -> Any:
    """``numpy.<ufunc>.accumulate(a, axis)``: the running ``fn`` along ``axis``
    (``out[i] = fn(out[i - 1], a[i])``).

    Example:
        >>> import numpy as np
        >>> import ftransforms.numpy as fnp
        >>> accumulate(fnp.minimum, np.array([3.0, 1.0, 2.0, 0.5])).tolist()
        [3.0, 1.0, 1.0, 0.5]
    """
    a = as_operand(a)
    if ndim(a) == 0:
        raise TypeError(f"{_name(fn)}.accumulate: cannot accumulate on a scalar")
    ax = normalize_axis(int(axis), ndim(a))
    x = moveaxis(a, ax, 0)
    n = shape(x)[0]
    if n == 0:
        return a
    if _name(fn) in ASSOCIATIVE:
        step = 1
        while step < n:  # Hillis-Steele scan: each element combines with the one `step` back
            head = getitem(x, slice(0, step))
            tail = fn(getitem(x, slice(0, n - step)), getitem(x, slice(step, n)))
            x = concatenate([head, tail])
            step *= 2
        out = x
    else:
        rows = [getitem(x, 0)]
        for i in range(1, n):
            rows.append(fn(rows[-1], getitem(x, i)))
        out = stack(rows)
    return moveaxis(out, 0, ax)


def reduceat(fn: Callable, a: Any, indices: Any, axis: int = 0) -> Any:
    """``numpy.<ufunc>.reduceat(a, indices, axis)``: ``fn`` reduced over each segment
    ``a[indices[i]:indices[i + 1]]`` along ``axis`` (to the end for the last), or
    ``a[indices[i]]`` itself where ``indices[i] >= indices[i + 1]``, as NumPy.  The indices
    are static (NumPy numbers).

    Example:
        >>> import numpy as np
        >>> import ftransforms.numpy as fnp
        >>> reduceat(fnp.add, np.arange(8.0), [0, 4, 1, 5]).tolist()
        [6.0, 4.0, 10.0, 18.0]
    """
    a = as_operand(a)
    if ndim(a) == 0:
        raise TypeError(f"{_name(fn)}.reduceat: cannot reduce a scalar")
    ax = normalize_axis(int(axis), ndim(a))
    x = moveaxis(a, ax, 0)
    n = shape(x)[0]
    idx = numpy.asarray(indices)
    if idx.ndim != 1 or idx.dtype.kind not in "iu":
        raise TypeError(f"{_name(fn)}.reduceat: indices must be a 1-d array of integers")
    bad = idx[(idx < 0) | (idx >= n)]
    if bad.size:
        raise IndexError(f"index {int(bad[0])} out-of-bounds in {_name(fn)}.reduceat [0, {n})")
    parts = []
    for i, start in enumerate(idx.tolist()):
        end = idx[i + 1] if i + 1 < idx.size else n
        if start < end:
            parts.append(reduce(fn, getitem(x, slice(start, int(end))), axis=0))
        else:
            parts.append(getitem(x, start))
    return moveaxis(stack(parts), 0, ax)
