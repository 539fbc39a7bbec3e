"""Interpolation, convolution and finite differences of NumPy (``interp``, ``convolve``,
``correlate``, ``ediff1d``, ``gradient``), written from ``ftransforms.numpy`` functions that
have every rule (so each is differentiable and batchable with no rule of its own).
Re-exported by :mod:`ftransforms.numpy`.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.tracer import Tracer
from ftransforms.numpy._composite_helpers import _arr, _like, _result_type

__all__ = [
    "convolve",
    "correlate",
    "ediff1d",
    "gradient",
    "interp",
]


# -- interpolation -------------------------------------------------------------------------


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
    like = _like(x, xp, fp)
    x, xp, fp = _arr(x, like), _arr(xp, like), _arr(fp, like)
    cdt = numpy.dtype(numpy.complex128 if fnp._dtype(fp).kind == "c" else numpy.float64)
    if fnp.ndim(xp) != 1 or fnp.ndim(fp) != 1:
        raise ValueError("Data points must be 1D sequences")
    if fnp.shape(xp)[0] != fnp.shape(fp)[0]:
        raise ValueError("fp and xp are not of the same length")
    if fnp.shape(xp)[0] == 0:
        raise ValueError("array of sample points is empty")
    x = fnp.astype(x, numpy.float64)
    xp = fnp.astype(xp, numpy.float64)
    fp = fnp.astype(fp, cdt)
    if period is not None:
        if not isinstance(period, Tracer) and period == 0:
            raise ValueError("period must be a non-zero value")
        period = fnp.abs(period) if isinstance(period, Tracer) else builtins.abs(period)
        left = right = None
        x = fnp.remainder(x, period)
        xp = fnp.remainder(xp, period)
        order = fnp.argsort(xp)
        xp, fp = fnp.take(xp, order), fnp.take(fp, order)
        xp = fnp.concatenate(
            [fnp.getitem(xp, slice(-1, None)) - period, xp, fnp.getitem(xp, slice(0, 1)) + period]
        )
        fp = fnp.concatenate([fnp.getitem(fp, slice(-1, None)), fp, fnp.getitem(fp, slice(0, 1))])
    n = fnp.shape(xp)[0]
    if n == 1:
        f = fnp.broadcast_to(fnp.getitem(fp, 0), fnp.shape(x))
    else:
        i = fnp.clip(fnp.searchsorted(xp, x, side="right"), 1, n - 1)
        xl, xr = fnp.take(xp, i - 1), fnp.take(xp, i)
        fl, fr = fnp.take(fp, i - 1), fnp.take(fp, i)
        dx = xr - xl
        flat = dx == 0  # repeated sample points: no NaN, and no NaN derivative
        slope = (fr - fl) / fnp.where(flat, fnp.ones((), numpy.float64, like=dx), dx)
        f = fnp.where(flat, fl, slope * (x - xl) + fl)
    first, last = fnp.getitem(xp, 0), fnp.getitem(xp, -1)
    below = fnp.getitem(fp, 0) if left is None else fnp.astype(_arr(left, fp), cdt)
    above = fnp.getitem(fp, -1) if right is None else fnp.astype(_arr(right, fp), cdt)
    f = fnp.where(x < first, below, f)
    return fnp.where(x > last, above, f)


# -- convolution ---------------------------------------------------------------------------


def _conv_full(a: Any, v: Any) -> Any:
    """The full 1-D convolution ``out[k] = sum_j a[k - j] v[j]`` as one gather and one
    matrix-vector product (the windows are taken from the longer operand)."""
    if fnp.shape(a)[0] < fnp.shape(v)[0]:
        a, v = v, a
    n, m = fnp.shape(a)[0], fnp.shape(v)[0]
    if m == 1:
        return a * v
    zeros = fnp.zeros((m - 1,), fnp._dtype(a), like=a)
    padded = fnp.concatenate([zeros, a, zeros])
    xp = fnp._xp(a)
    index = xp.arange(n + m - 1)[:, None] + xp.arange(m)[None, :]
    return fnp.matmul(fnp.take(padded, index), fnp.flip(v))


def _mode(mode: Any) -> str:
    if mode not in ("valid", "same", "full"):
        raise ValueError("Use one of 'valid', 'same', or 'full' for convolve/correlate mode")
    return mode


def _mode_slice(full: Any, long: int, short: int, mode: str) -> Any:
    if mode == "full":
        return full
    if mode == "same":
        start = short - 1 - short // 2
        return fnp.getitem(full, slice(start, start + long))
    return fnp.getitem(full, slice(short - 1, long))


def _prepare_1d(a: Any, v: Any, name: str) -> tuple[Any, Any]:
    like = _like(a, v)
    a, v = fnp.atleast_1d(_arr(a, like)), fnp.atleast_1d(_arr(v, like))
    if fnp.ndim(a) != 1 or fnp.ndim(v) != 1:
        raise ValueError(f"{name}: object too deep for desired array")
    if fnp.shape(a)[0] == 0:
        raise ValueError("a cannot be empty")
    if fnp.shape(v)[0] == 0:
        raise ValueError("v cannot be empty")
    dt = _result_type(a, v)
    return fnp.astype(a, dt), fnp.astype(v, dt)


def convolve(a: Any, v: Any, mode: str = "full") -> Any:
    """``numpy.convolve`` of two 1-D sequences (modes 'full', 'same', 'valid').

    Example:
        >>> import numpy as np
        >>> convolve(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.5])).tolist()
        [0.0, 1.0, 2.5, 4.0, 1.5]
    """
    mode = _mode(mode)
    a, v = _prepare_1d(a, v, "convolve")
    n, m = fnp.shape(a)[0], fnp.shape(v)[0]
    return _mode_slice(_conv_full(a, v), builtins.max(n, m), builtins.min(n, m), mode)


def correlate(a: Any, v: Any, mode: str = "valid") -> Any:
    """``numpy.correlate``: ``out[k] = sum_n a[n + k] * conj(v[n])`` (modes 'valid',
    'same', 'full').

    Example:
        >>> import numpy as np
        >>> correlate(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.5]), "same").tolist()
        [2.0, 3.5, 3.0]
    """
    mode = _mode(mode)
    a, v = _prepare_1d(a, v, "correlate")
    n, m = fnp.shape(a)[0], fnp.shape(v)[0]
    v = fnp.conj(v)
    if n >= m:
        return _mode_slice(_conv_full(a, fnp.flip(v)), n, m, mode)
    # NumPy swaps the operands and reverses the result
    return fnp.flip(_mode_slice(_conv_full(v, fnp.flip(a)), m, n, mode))


# -- differences ---------------------------------------------------------------------------


def ediff1d(ary: Any, to_end: Any = None, to_begin: Any = None) -> Any:
    """``numpy.ediff1d``: differences of the flattened array, with extra values around.

    Example:
        >>> import numpy as np
        >>> ediff1d(np.array([1.0, 2.0, 4.0, 7.0]), to_begin=-99.0).tolist()
        [-99.0, 1.0, 2.0, 3.0]
    """
    ary = fnp.ravel(_arr(ary))
    dt = fnp._dtype(ary)
    parts = []
    for extra, name in ((to_begin, "to_begin"), (None, ""), (to_end, "to_end")):
        if name == "":
            lo, hi = fnp.getitem(ary, slice(1, None)), fnp.getitem(ary, slice(None, -1))
            parts.append(lo - hi)
        elif extra is not None:
            extra = _arr(extra, ary)
            if not numpy.can_cast(fnp._dtype(extra), dt, casting="same_kind"):
                raise TypeError(
                    f"dtype of `{name}` must be compatible with input `ary` under the "
                    f"`same_kind` rule."
                )
            parts.append(fnp.astype(fnp.ravel(extra), dt))
    return fnp.concatenate(parts) if len(parts) > 1 else parts[0]


def gradient(f: Any, *varargs: Any, axis: Any = None, edge_order: int = 1) -> Any:
    """``numpy.gradient``: central differences inside, one-sided (first or second order)
    at the edges; spacing as scalars or coordinate arrays (both may be traced).

    Example:
        >>> import numpy as np
        >>> gradient(np.array([1.0, 2.0, 4.0, 7.0, 11.0]), 2.0).tolist()
        [0.5, 0.75, 1.25, 1.75, 2.0]
    """
    f = _arr(f)
    rank = fnp.ndim(f)
    if axis is None:
        axes = tuple(range(rank))
    else:
        axes = (axis,) if isinstance(axis, (int, numpy.integer)) else tuple(axis)
        axes = tuple(fnp._normalize_axis(int(a), rank) for a in axes)
        if len(set(axes)) != len(axes):
            raise ValueError("repeated axis")
    if len(varargs) == 0:
        spacing: list = [1.0] * len(axes)
    elif len(varargs) == 1 and fnp.ndim(varargs[0]) == 0:
        spacing = [varargs[0]] * len(axes)
    elif len(varargs) == len(axes):
        spacing = []
        for i, d in enumerate(varargs):
            if fnp.ndim(d) == 0:
                spacing.append(d)
                continue
            d = _arr(d, f)
            if fnp.ndim(d) != 1:
                raise ValueError("distances must be either scalars or 1d")
            if fnp.shape(d)[0] != fnp.shape(f)[axes[i]]:
                raise ValueError(
                    "when 1d, distances must match the length of the corresponding dimension"
                )
            if fnp._dtype(d).kind in "iub":
                d = fnp.astype(d, numpy.float64)
            diffx = fnp.getitem(d, slice(1, None)) - fnp.getitem(d, slice(None, -1))
            if not isinstance(diffx, Tracer) and bool((diffx == diffx[0]).all()):
                diffx = diffx[0]  # uniform coordinates: the scalar formulas, as NumPy
            spacing.append(diffx)
    else:
        raise TypeError("invalid number of arguments")
    if edge_order > 2:
        raise ValueError("'edge_order' greater than 2 not supported")
    otype = fnp._dtype(f)
    if otype.kind not in "fc":
        otype = numpy.dtype(numpy.float64)
        f = fnp.astype(f, otype)
    outs = []
    for ax, h in zip(axes, spacing):
        if fnp.shape(f)[ax] < edge_order + 1:
            raise ValueError(
                "Shape of array too small to calculate a numerical gradient, at least "
                "(edge_order + 1) elements are required."
            )
        outs.append(fnp.astype(_gradient_axis(f, h, ax, edge_order, rank), otype))
    return outs[0] if len(outs) == 1 else tuple(outs)


def _gradient_axis(f: Any, h: Any, ax: int, edge_order: int, rank: int) -> Any:
    def sl(start: Any, stop: Any = "one") -> Any:
        if stop == "one":  # one position, kept as an axis of length 1
            stop = start + 1 if start != -1 else None
        return fnp.getitem(f, (slice(None),) * ax + (slice(start, stop),))

    uniform = fnp.ndim(h) == 0
    if uniform:
        inner = (sl(2, None) - sl(None, -2)) / (2.0 * h)
    else:
        shape = tuple(-1 if i == ax else 1 for i in range(rank))
        dx1, dx2 = fnp.getitem(h, slice(0, -1)), fnp.getitem(h, slice(1, None))
        a = -dx2 / (dx1 * (dx1 + dx2))
        b = (dx2 - dx1) / (dx1 * dx2)
        c = dx1 / (dx2 * (dx1 + dx2))
        a, b, c = (fnp.reshape(t, shape) for t in (a, b, c))
        inner = a * sl(None, -2) + b * sl(1, -1) + c * sl(2, None)
    if edge_order == 1:
        h0 = h if uniform else fnp.getitem(h, 0)
        hn = h if uniform else fnp.getitem(h, -1)
        first = (sl(1) - sl(0)) / h0
        last = (sl(-1) - sl(-2)) / hn
    else:
        if uniform:
            a, b, c = -1.5 / h, 2.0 / h, -0.5 / h
        else:
            dx1, dx2 = fnp.getitem(h, 0), fnp.getitem(h, 1)
            a = -(2.0 * dx1 + dx2) / (dx1 * (dx1 + dx2))
            b = (dx1 + dx2) / (dx1 * dx2)
            c = -dx1 / (dx2 * (dx1 + dx2))
        first = a * sl(0) + b * sl(1) + c * sl(2)
        if uniform:
            a, b, c = 0.5 / h, -2.0 / h, 1.5 / h
        else:
            dx1, dx2 = fnp.getitem(h, -2), fnp.getitem(h, -1)
            a = dx2 / (dx1 * (dx1 + dx2))
            b = -(dx2 + dx1) / (dx1 * dx2)
            c = (2.0 * dx2 + dx1) / (dx2 * (dx1 + dx2))
        last = a * sl(-3) + b * sl(-2) + c * sl(-1)
    dt = _result_type(first, inner, last)
    parts = [fnp.astype(p, dt) for p in (first, inner, last)]
    return fnp.concatenate(parts, axis=ax)
