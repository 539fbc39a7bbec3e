"""``scipy.integrate.romb`` and ``cumulative_simpson`` of traced samples, written with
``ftransforms.numpy`` (SciPy's converts its input to plain arrays): Romberg's
extrapolation of the trapezoid sums on ``2**k + 1`` samples, and the cumulative
Simpson rule of SciPy's, whose interval integrals come from the quadratic through each
interval and its neighbours, the first ``h1`` formula on the even intervals and the
reversed one on the odd intervals and the last (equal spacing ``dx`` or nodes ``x``).
Every transform differentiates and batches them, in ``y`` and ``x``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> ft.grad(lambda y: romb(y, dx=0.5))(np.zeros(3)).tolist()  # Simpson's weights
    [0.16666666666666666, 0.6666666666666666, 0.16666666666666666]
"""

from __future__ import annotations

from typing import Any

import ftransforms.numpy as fnp
from ftransforms.numpy.helpers import normalize_axis

__all__ = ["cumulative_simpson", "romb"]


def _floats(v: Any) -> Any:
    v = fnp.asarray(v)
    return v.astype(fnp.float64) if v.dtype.kind in "biu" else v


def romb(y: Any, dx: float = 1.0, axis: int = -1, show: bool = False) -> Any:
    """``scipy.integrate.romb``: Romberg integration of ``2**k + 1`` equally spaced
    samples ``y`` along ``axis``, differentiable in ``y`` and ``dx`` (``show``, SciPy's
    printout of the table, prints nothing here).

    Example:
        >>> import numpy as np
        >>> float(romb(np.linspace(0.0, 1.0, 5) ** 2, dx=0.25))  # exact for polynomials
        0.3333333333333333
    """
    y = _floats(y)
    y = fnp.moveaxis(y, normalize_axis(axis, fnp.ndim(y)), -1)
    intervals = fnp.shape(y)[-1] - 1
    k = max(intervals, 1).bit_length() - 1
    if intervals < 1 or 1 << k != intervals:
        raise ValueError(
            f"romb(y): the number of samples must be one plus a power of 2, got {intervals + 1}"
        )
    h = intervals * fnp.asarray(dx, dtype=float)
    rows = [[(y[..., 0] + y[..., -1]) / 2.0 * h]]
    start = step = intervals
    for i in range(1, k + 1):
        start >>= 1
        row = [0.5 * (rows[i - 1][0] + h * fnp.sum(y[..., start:intervals:step], axis=-1))]
        step >>= 1
        for j in range(1, i + 1):
            prev = row[j - 1]
            row.append(prev + (prev - rows[i - 1][j - 1]) / ((1 << (2 * j)) - 1))
        rows.append(row)
        h = h / 2.0
    return rows[k][k]


def _h1_integrals(y: Any, dx: Any) -> Any:
    """The integral over each first interval of three nodes, from the quadratic through
    them (the nodes' spacings ``dx``)."""
    x21, x32 = dx[..., :-1], dx[..., 1:]
    f1, f2, f3 = y[..., :-2], y[..., 1:-1], y[..., 2:]
    x21_x31 = x21 / (x21 + x32)
    x21_x32 = x21 / x32
    both = x21_x31 * x21_x32
    return x21 / 6 * ((3 - x21_x31) * f1 + (3 + both + x21_x31) * f2 - both * f3)


def cumulative_simpson(
    y: Any, *, x: Any = None, dx: float = 1.0, axis: int = -1, initial: Any = None
) -> Any:
    """``scipy.integrate.cumulative_simpson``: the running integral of ``y`` along
    ``axis`` by SciPy's cumulative Simpson rule (fewer than 3 samples: the trapezoid),
    differentiable in ``y`` (and ``x``, ``dx``, ``initial``).

    Example:
        >>> import numpy as np
        >>> cumulative_simpson(np.linspace(0.0, 1.0, 5) ** 2, dx=0.25).round(6).tolist()
        [0.005208, 0.041667, 0.140625, 0.333333]
    """
    y = _floats(y)
    ax = normalize_axis(axis, fnp.ndim(y))
    y_last = fnp.moveaxis(y, ax, -1)
    n = fnp.shape(y_last)[-1]
    if x is not None:
        x = _floats(x)
        if fnp.ndim(x) == 1:
            if fnp.shape(x)[0] != n:
                raise ValueError(
                    "cumulative_simpson(y, x=x): x must be 1-D with the length of y along "
                    "axis, or shaped like y"
                )
            x = fnp.broadcast_to(x, fnp.shape(y_last))
        elif fnp.shape(x) == fnp.shape(y):
            x = fnp.moveaxis(x, ax, -1)
        else:
            raise ValueError(
                "cumulative_simpson(y, x=x): x must be 1-D with the length of y along axis, "
                "or shaped like y"
            )
        spacing = fnp.diff(x, axis=-1)
        if bool(fnp.any(spacing <= 0)):
            raise ValueError("cumulative_simpson(y, x=x): x must be strictly increasing")
    else:
        dx = _floats(dx)
        if fnp.ndim(dx) != 0:
            dx = fnp.moveaxis(dx, ax, -1)
        spacing = fnp.broadcast_to(dx, fnp.shape(y_last)[:-1] + (n - 1,))
    if n < 3:
        res = fnp.cumsum((y_last[..., 1:] + y_last[..., :-1]) / 2.0 * spacing, axis=-1)
    else:
        h1 = _h1_integrals(y_last, spacing)
        h2 = fnp.flip(_h1_integrals(fnp.flip(y_last, -1), fnp.flip(spacing, -1)), -1)
        # interval i < n - 2: h1[i] (its triple's first) when even, else h2[i - 1]
        # (the previous triple's second); the last interval: h2's last
        h2_before = fnp.concatenate([h2[..., :1], h2[..., :-1]], axis=-1)
        pieces = fnp.where(fnp.arange(n - 2) % 2 == 0, h1, h2_before)
        res = fnp.cumsum(fnp.concatenate([pieces, h2[..., -1:]], axis=-1), axis=-1)
    if initial is not None:
        initial = _floats(initial)
        if fnp.ndim(initial) != 0:
            initial = fnp.moveaxis(initial, ax, -1)
        initial = fnp.broadcast_to(initial, fnp.shape(res)[:-1] + (1,))
        res = fnp.concatenate([initial, res + initial], axis=-1)
    return fnp.moveaxis(res, -1, ax)
