"""Signal processing: ``convolve``/``correlate``, ``interp``, ``gradient``, ``ediff1d``,
``unwrap`` (NumPy's "Mathematical functions: miscellaneous" and "Statistics:
correlating").
"""

from __future__ import annotations

import builtins
import functools
from typing import Any

import numpy

import ftransforms.numpy.creation as creation
from ftransforms.core.mutation import PATCHED_WHILE_ACTIVE
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.creation import as_operand, ones
from ftransforms.numpy.dispatch import implements
from ftransforms.numpy.helpers import (
    dtype_of,
    first_array,
    ndim,
    normalize_axis,
    shape,
    weak_result_type,
    xp_of,
)
from ftransforms.numpy.indexing import getitem, take, where
from ftransforms.numpy.manipulation import atleast_1d, broadcast_to, concatenate, ravel, reshape
from ftransforms.numpy.products import matmul
from ftransforms.numpy.rearranging import flip
from ftransforms.numpy.reductions import cumsum, diff, sum
from ftransforms.numpy.sorting import argsort, searchsorted
from ftransforms.numpy.ufuncs import (
    abs,
    astype,
    clip,
    conj,
    equal,
    imag,
    isnan,
    logical_and,
    mod,
    real,
    remainder,
)

__all__ = ["unwrap", "interp", "convolve", "correlate", "ediff1d", "gradient"]


@implements(numpy.unwrap)
def unwrap(p: Any, discont: Any = None, axis: int = -1, *, period: float = 2 * numpy.pi) -> Any:
    """``numpy.unwrap``: undo jumps larger than ``discont`` (default ``period / 2``) along
    ``axis`` by adding multiples of ``period``; the derivative is the identity (the
    corrections are piecewise constant), as in ``jax.numpy.unwrap``.

    Example:
        >>> import numpy as np
        >>> unwrap(np.array([0.0, 3.0, 6.0]), period=4.0).tolist()
        [0.0, -1.0, -2.0]
    """
    p = as_operand(p)
    nd = ndim(p)
    axis = normalize_axis(axis, nd)
    dd = diff(p, axis=axis)
    if discont is None:
        discont = period / 2
    dtype = weak_result_type(dd, period)
    if dtype.kind in "iu":
        high, rem = divmod(period, 2)
        ambiguous = rem == 0
    else:
        high, ambiguous = period / 2, True
    low = -high
    ddmod = mod(dd - low, period) + low
    if ambiguous:
        ddmod = where(logical_and(equal(ddmod, low), dd > 0), high, ddmod)
    correction = where(abs(dd) < discont, 0, ddmod - dd)
    head = [slice(None)] * nd
    tail = [slice(None)] * nd
    head[axis], tail[axis] = slice(0, 1), slice(1, None)
    up = astype(p, dtype)
    rest = getitem(up, tuple(tail)) + cumsum(correction, axis=axis)
    return concatenate([getitem(up, tuple(head)), astype(rest, dtype)], axis=axis)


@implements(numpy.interp)
def interp(
    x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None, period: Any = None
) -> Any:
    """``numpy.interp``: piecewise-linear interpolation, differentiable in ``x``, ``xp``
    and ``fp`` (and ``left``/``right``) like ``jax.numpy.interp``.

    Example:
        >>> import numpy as np
        >>> from ftransforms import grad
        >>> xp, fp = np.array([0.0, 1.0, 2.0]), np.array([0.0, 10.0, 0.0])
        >>> float(interp(0.25, xp, fp)), float(grad(lambda x: interp(x, xp, fp))(1.5))
        (2.5, -10.0)
    """
    like = first_array(x, xp, fp)
    x, xp, fp = as_operand(x, like), as_operand(xp, like), as_operand(fp, like)
    cdt = numpy.dtype(numpy.complex128 if dtype_of(fp).kind == "c" else numpy.float64)
    if ndim(xp) != 1 or ndim(fp) != 1:
        raise ValueError("Data points must be 1D sequences")
    if shape(xp)[0] != shape(fp)[0]:
        raise ValueError("fp and xp are not of the same length")
    if shape(xp)[0] == 0:
        raise ValueError("array of sample points is empty")
    x = astype(x, numpy.float64)
    xp = astype(xp, numpy.float64)
    fp = astype(fp, cdt)
    if period is not None:
        if not isinstance(period, Tracer) and period == 0:
            raise ValueError("period must be a non-zero value")
        period = abs(period) if isinstance(period, Tracer) else builtins.abs(period)
        left = right = None
        x = remainder(x, period)
        xp = remainder(xp, period)
        order = argsort(xp)
        xp, fp = take(xp, order), take(fp, order)
        xp = concatenate(
            [getitem(xp, slice(-1, None)) - period, xp, getitem(xp, slice(0, 1)) + period]
        )
        fp = concatenate([getitem(fp, slice(-1, None)), fp, getitem(fp, slice(0, 1))])
    n = shape(xp)[0]
    if n == 1:
        f = broadcast_to(getitem(fp, 0), shape(x))
    else:
        f = _interp_segments(x, xp, fp, n)
    first, last = getitem(xp, 0), getitem(xp, -1)
    below = getitem(fp, 0) if left is None else astype(as_operand(left, fp), cdt)
    above = getitem(fp, -1) if right is None else astype(as_operand(right, fp), cdt)
    f = where(x < first, below, f)
    return where(x > last, above, f)


def _interp_segments(x: Any, xp: Any, fp: Any, n: int) -> Any:
    """NumPy's ``interp`` inside ``[xp[0], xp[-1]]`` (its C loop, as selections): the
    segment's ``slope * (x - xl) + fl``; where that is NaN (an infinite ``fp``) the same
    from the right end, ``slope * (x - xr) + fr``, and ``fl`` where both ends are equal;
    at a sample point ``fl`` itself, at the last one ``fp[-1]`` (the formula from the
    right end: ``fr`` to the bit, and the segment's slope as the derivative in ``x``,
    ``jax.numpy.interp``'s); a NaN ``x`` gives NaN.  Complex ``fp`` takes its real and
    imaginary parts apart, each with the slope ``(fr - fl) * (1 / dx)``, as NumPy.  (An
    infinite ``fp`` gave NaN before, even at ``x == xp[0]``.)"""
    j = searchsorted(xp, x, side="right") - 1  # xp[j] <= x < xp[j + 1]
    i = clip(j, 0, n - 2)
    xl, xr = take(xp, i), take(xp, i + 1)
    dx = xr - xl
    flat = dx == 0  # repeated sample points: no NaN, and no NaN derivative
    dx = where(flat, ones((), numpy.float64, like=dx), dx)
    number = ~isnan(x)
    at_last = (j >= n - 1) & number  # a NaN x sorts last
    knot = x == xl

    def part(fl: Any, fr: Any, slope: Any) -> Any:
        from_left, from_right = slope * (x - xl) + fl, slope * (x - xr) + fr
        f = where(isnan(from_left), from_right, from_left)
        f = where(isnan(f) & (fl == fr) & number, fl, f)
        f = where(knot & isnan(from_left), fl, f)
        return where(at_last, where(isnan(from_right), fr, from_right), f)

    fl, fr = take(fp, i), take(fp, i + 1)
    if dtype_of(fp).kind != "c":
        return part(fl, fr, (fr - fl) / dx)
    inv_dx = 1.0 / dx
    parts = [part(a, b, (b - a) * inv_dx) for a, b in ((real(fl), real(fr)), (imag(fl), imag(fr)))]
    return parts[0] + 1j * parts[1]


# NumPy's ``interp`` dispatches on ``x``, ``xp`` and ``fp`` only: with those plain and a
# traced ``left``/``right``/``period`` its own code ran and asked ``float()`` of the
# tracer (TracerConversionError under grad, the batch split per row under vmap).  While a
# transform is active (``core/mutation.py``'s ``PATCHED_WHILE_ACTIVE``) such a call comes
# here; others cost three type tests.
_NUMPY_INTERP = numpy.interp


@functools.wraps(_NUMPY_INTERP)
def _interp_traced_ends(x, xp, fp, left=None, right=None, period=None):  # noqa: ANN001, ANN202
    if isinstance(left, Tracer) or isinstance(right, Tracer) or isinstance(period, Tracer):
        return interp(x, xp, fp, left=left, right=right, period=period)
    return _NUMPY_INTERP(x, xp, fp, left=left, right=right, period=period)


PATCHED_WHILE_ACTIVE.append(
    (vars(numpy), {"interp": _interp_traced_ends}, {"interp": _NUMPY_INTERP})
)


def _conv_full(a: Any, v: Any) -> Any:
    """The full 1-D convolution ``out[k] = sum_j a[k - j] v[j]``: where the operands
    overlap fully, one gather of windows of the longer operand and one matrix-vector
    product; the ``m - 1`` partial overlaps at each end sum only the pairs that exist
    (a zero pad times an inf or NaN of ``v`` would be NaN where NumPy has a number)."""
    if shape(a)[0] < shape(v)[0]:
        a, v = v, a
    n, m = shape(a)[0], shape(v)[0]
    if m == 1:
        return a * v
    xp = xp_of(a)
    taps = flip(v)
    cols = xp.arange(m)[None, :]
    middle = matmul(take(a, xp.arange(n - m + 1)[:, None] + cols), taps)
    zeros = creation.zeros((m - 1,), dtype_of(a), like=a)
    padded = concatenate([zeros, a, zeros])
    left_rows = xp.arange(m - 1)[:, None]  # out[k], k < m - 1: pairs with k + c >= m - 1
    with numpy.errstate(invalid="ignore"):  # a pad's 0 * inf: masked out below
        left = take(padded, left_rows + cols) * taps
    right_rows = xp.arange(n, n + m - 1)[:, None]  # k >= n: pairs with k + c <= n + m - 2
    with numpy.errstate(invalid="ignore"):
        right = take(padded, right_rows + cols) * taps
    ends = [
        sum(left, axis=-1, where=left_rows + cols >= m - 1),
        sum(right, axis=-1, where=right_rows + cols <= n + m - 2),
    ]
    dt = dtype_of(middle)  # (a masked sum of bools counts them)
    return concatenate([astype(ends[0], dt), middle, astype(ends[1], dt)])


def _mode(mode: Any) -> str:
    if mode not in ("valid", "same", "full"):
        raise ValueError("Use one of 'valid', 'same', or 'full' for convolve/correlate mode")
    return mode


def _mode_slice(full: Any, long: int, short: int, mode: str) -> Any:
    if mode == "full":
        return full
    if mode == "same":
        start = short - 1 - short // 2
        return getitem(full, slice(start, start + long))
    return getitem(full, slice(short - 1, long))


def _prepare_1d(a: Any, v: Any, name: str) -> tuple[Any, Any]:
    like = first_array(a, v)
    a, v = atleast_1d(as_operand(a, like)), atleast_1d(as_operand(v, like))
    if ndim(a) != 1 or ndim(v) != 1:
        raise ValueError(f"{name}: object too deep for desired array")
    if shape(a)[0] == 0:
        raise ValueError("a cannot be empty")
    if shape(v)[0] == 0:
        raise ValueError("v cannot be empty")
    dt = weak_result_type(a, v)
    return astype(a, dt), astype(v, dt)


@implements(numpy.convolve)
def convolve(
    a: Any, v: Any, mode: str = "full", *, precision: Any = None, preferred_element_type: Any = None
) -> Any:
    """``numpy.convolve`` of two 1-D sequences (modes 'full', 'same', 'valid').

    Example:
        >>> import numpy as np
        >>> convolve(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.5])).tolist()
        [0.0, 1.0, 2.5, 4.0, 1.5]
    """
    if preferred_element_type is not None:  # jax.numpy's keywords (precision: XLA's)
        return astype(convolve(a, v, mode), preferred_element_type)
    mode = _mode(mode)
    a, v = _prepare_1d(a, v, "convolve")
    n, m = shape(a)[0], shape(v)[0]
    return _mode_slice(_conv_full(a, v), builtins.max(n, m), builtins.min(n, m), mode)


@implements(numpy.correlate)
def correlate(
    a: Any,
    v: Any,
    mode: str = "valid",
    *,
    precision: Any = None,
    preferred_element_type: Any = None,
) -> Any:
    """``numpy.correlate``: ``out[k] = sum_n a[n + k] * conj(v[n])`` (modes 'valid',
    'same', 'full').

    Example:
        >>> import numpy as np
        >>> correlate(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.5]), "same").tolist()
        [2.0, 3.5, 3.0]
    """
    if preferred_element_type is not None:  # jax.numpy's keywords (precision: XLA's)
        return astype(correlate(a, v, mode), preferred_element_type)
    mode = _mode(mode)
    a, v = _prepare_1d(a, v, "correlate")
    n, m = shape(a)[0], shape(v)[0]
    v = conj(v)
    if n >= m:
        return _mode_slice(_conv_full(a, flip(v)), n, m, mode)
    # NumPy swaps the operands and reverses the result
    return flip(_mode_slice(_conv_full(v, flip(a)), m, n, mode))


@implements(numpy.ediff1d)
def ediff1d(ary: Any, to_end: Any = None, to_begin: Any = None) -> Any:
    """``numpy.ediff1d``: differences of the flattened array, with extra values around.

    Example:
        >>> import numpy as np
        >>> ediff1d(np.array([1.0, 2.0, 4.0, 7.0]), to_begin=-99.0).tolist()
        [-99.0, 1.0, 2.0, 3.0]
    """
    ary = ravel(as_operand(ary))
    dt = dtype_of(ary)
    parts = []
    for extra, name in ((to_begin, "to_begin"), (None, ""), (to_end, "to_end")):
        if name == "":
            lo, hi = getitem(ary, slice(1, None)), getitem(ary, slice(None, -1))
            parts.append(lo - hi)
        elif extra is not None:
            extra = as_operand(extra, ary)
            if not numpy.can_cast(dtype_of(extra), dt, casting="same_kind"):
                raise TypeError(
                    f"dtype of `{name}` must be compatible with input `ary` under the "
                    f"`same_kind` rule."
                )
            parts.append(astype(ravel(extra), dt))
    return concatenate(parts) if len(parts) > 1 else parts[0]


@implements(numpy.gradient)
def gradient(f: Any, *varargs: Any, axis: Any = None, edge_order: int = 1) -> Any:
    """``numpy.gradient``: central differences inside, one-sided (first or second order)
    at the edges; spacing as scalars or coordinate arrays (both may be traced).

    Example:
        >>> import numpy as np
        >>> gradient(np.array([1.0, 2.0, 4.0, 7.0, 11.0]), 2.0).tolist()
        [0.5, 0.75, 1.25, 1.75, 2.0]
    """
    f = as_operand(f)
    rank = ndim(f)
    if axis is None:
        axes = tuple(range(rank))
    else:
        axes = (axis,) if isinstance(axis, (int, numpy.integer)) else tuple(axis)
        axes = tuple(normalize_axis(int(a), rank) for a in axes)
        if len(set(axes)) != len(axes):
            raise ValueError("repeated axis")
    if len(varargs) == 0:
        spacing: list = [1.0] * len(axes)
    elif len(varargs) == 1 and ndim(varargs[0]) == 0:
        spacing = [varargs[0]] * len(axes)
    elif len(varargs) == len(axes):
        spacing = []
        for i, d in enumerate(varargs):
            if ndim(d) == 0:
                spacing.append(d)
                continue
            d = as_operand(d, f)
            if ndim(d) != 1:
                raise ValueError("distances must be either scalars or 1d")
            if shape(d)[0] != shape(f)[axes[i]]:
                raise ValueError(
                    "when 1d, distances must match the length of the corresponding dimension"
                )
            if dtype_of(d).kind in "iub":
                d = astype(d, numpy.float64)
            diffx = getitem(d, slice(1, None)) - getitem(d, slice(None, -1))
            if not isinstance(diffx, Tracer) and bool((diffx == diffx[0]).all()):
                diffx = diffx[0]  # uniform coordinates: the scalar formulas, as NumPy
            spacing.append(diffx)
    else:
        raise TypeError("invalid number of arguments")
    if edge_order > 2:
        raise ValueError("'edge_order' greater than 2 not supported")
    otype = dtype_of(f)
    if otype.kind not in "fc":
        otype = numpy.dtype(numpy.float64)
        f = astype(f, otype)
    outs = []
    for ax, h in zip(axes, spacing):
        if shape(f)[ax] < edge_order + 1:
            raise ValueError(
                "Shape of array too small to calculate a numerical gradient, at least "
                "(edge_order + 1) elements are required."
            )
        outs.append(astype(_gradient_axis(f, h, ax, edge_order, rank), otype))
    return outs[0] if len(outs) == 1 else tuple(outs)


def _gradient_axis(f: Any, h: Any, ax: int, edge_order: int, rank: int) -> Any:
    def sl(start: Any, stop: Any = "one") -> Any:
        if stop == "one":  # one position, kept as an axis of length 1
            stop = start + 1 if start != -1 else None
        return getitem(f, (slice(None),) * ax + (slice(start, stop),))

    uniform = ndim(h) == 0
    if uniform:
        inner = (sl(2, None) - sl(None, -2)) / (2.0 * h)
    else:
        shape = tuple(-1 if i == ax else 1 for i in range(rank))
        dx1, dx2 = getitem(h, slice(0, -1)), getitem(h, slice(1, None))
        a = -dx2 / (dx1 * (dx1 + dx2))
        b = (dx2 - dx1) / (dx1 * dx2)
        c = dx1 / (dx2 * (dx1 + dx2))
        a, b, c = (reshape(t, shape) for t in (a, b, c))
        inner = a * sl(None, -2) + b * sl(1, -1) + c * sl(2, None)
    if edge_order == 1:
        h0 = h if uniform else getitem(h, 0)
        hn = h if uniform else getitem(h, -1)
        first = (sl(1) - sl(0)) / h0
        last = (sl(-1) - sl(-2)) / hn
    else:
        if uniform:
            a, b, c = -1.5 / h, 2.0 / h, -0.5 / h
        else:
            dx1, dx2 = getitem(h, 0), getitem(h, 1)
            a = -(2.0 * dx1 + dx2) / (dx1 * (dx1 + dx2))
            b = (dx1 + dx2) / (dx1 * dx2)
            c = -dx1 / (dx2 * (dx1 + dx2))
        first = a * sl(0) + b * sl(1) + c * sl(2)
        if uniform:
            a, b, c = 0.5 / h, -2.0 / h, 1.5 / h
        else:
            dx1, dx2 = getitem(h, -2), getitem(h, -1)
            a = dx2 / (dx1 * (dx1 + dx2))
            b = -(dx2 + dx1) / (dx1 * dx2)
            c = (2.0 * dx2 + dx1) / (dx2 * (dx1 + dx2))
        last = a * sl(-3) + b * sl(-2) + c * sl(-1)
    dt = weak_result_type(first, inner, last)
    parts = [astype(p, dt) for p in (first, inner, last)]
    return concatenate(parts, axis=ax)
