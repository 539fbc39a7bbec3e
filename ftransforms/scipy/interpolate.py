"""``ftransforms.scipy.interpolate``: interpolants differentiable in the data they
interpolate (``y``, the grid values) and in the points asked for.

* :class:`CubicSpline` (``bc_type`` ``'not-a-knot'``, ``'natural'``, ``'clamped'`` or
  ``((order, value), (order, value))``; derivatives ``nu`` up to 3), solving SciPy's
  system for the slopes, so the values are SciPy's to rounding;
* :class:`interp1d` (kinds ``linear``/``slinear``, ``nearest``, ``nearest-up``,
  ``previous``, ``next``, ``zero``, ``cubic``; ``fill_value`` and ``bounds_error``);
* :class:`RegularGridInterpolator` (methods ``linear`` and ``nearest``).

Which interval a point falls in is read from the values with derivatives stopped (a
piecewise function's pieces are chosen, not differentiated), as ``jax.numpy.interp``
does; a bounds check reads the values too.

Example:
    >>> import numpy as np
    >>> from ftransforms import grad
    >>> from ftransforms.scipy.interpolate import CubicSpline
    >>> x = np.arange(5.0)
    >>> round(float(CubicSpline(x, x**3)(2.5)), 6)  # a cubic is reproduced exactly
    15.625
    >>> grad(lambda y: CubicSpline(x, y)(2.0))(x**3).round(6).tolist()  # at a knot: y[2]
    [0.0, 0.0, 1.0, 0.0, 0.0]
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import UnsupportedOperationError

__all__ = ["CubicSpline", "RegularGridInterpolator", "interp1d"]


def _stopped(x: Any) -> Any:
    return fnp.stop_gradient(x)


def _interval(knots: Any, points: Any) -> Any:
    """The index ``i`` of the interval ``[knots[i], knots[i + 1]]`` of each point
    (the end intervals extended outwards)."""
    n = fnp.shape(knots)[0]
    i = fnp.searchsorted(_stopped(knots), _stopped(points), side="right") - 1
    return fnp.clip(i, 0, n - 2)


def _inexact(a: Any) -> Any:
    a = fnp.asarray(a)
    return a.astype(fnp.float64) if a.dtype.kind in "biu" else a


class CubicSpline:
    """``scipy.interpolate.CubicSpline(x, y, axis=0, bc_type='not-a-knot',
    extrapolate=None)``: the piecewise cubic with continuous second derivative through
    ``(x[i], y[i])``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.interpolate import CubicSpline
        >>> s = CubicSpline(np.array([0.0, 1.0, 2.0]), np.array([0.0, 1.0, 0.0]), bc_type="natural")
        >>> round(float(s(0.5)), 6), round(float(s(0.5, nu=1)), 6)
        (0.6875, 1.125)
    """

    def __init__(
        self, x: Any, y: Any, axis: int = 0, bc_type: Any = "not-a-knot", extrapolate: Any = None
    ) -> None:
        x, y = _inexact(x), _inexact(y)
        if fnp.ndim(x) != 1 or fnp.shape(x)[0] < 2:
            raise ValueError("CubicSpline: x must be 1-D with at least 2 points")
        axis = axis % max(fnp.ndim(y), 1)
        y = fnp.moveaxis(y, axis, 0)
        if fnp.shape(y)[0] != fnp.shape(x)[0]:
            raise ValueError(
                f"CubicSpline: y has {fnp.shape(y)[0]} points along axis {axis}, x has "
                f"{fnp.shape(x)[0]}"
            )
        if not bool(fnp.all(fnp.diff(_stopped(x)) > 0)):
            raise ValueError("CubicSpline: x must be strictly increasing")
        if extrapolate == "periodic" or bc_type == "periodic":
            raise UnsupportedOperationError(
                "ftransforms.scipy.interpolate.CubicSpline: periodic splines are not supported "
                "under the transforms; use bc_type='not-a-knot', 'natural' or 'clamped'"
            )
        self.x, self.axis = x, axis
        self.extrapolate = True if extrapolate is None else bool(extrapolate)
        self.c = self._coefficients(x, y, bc_type)  # (4, n - 1, ...): highest power first

    @staticmethod
    def _ends(bc_type: Any) -> tuple:
        named = {"not-a-knot": "not-a-knot", "natural": (2, 0.0), "clamped": (1, 0.0)}
        if isinstance(bc_type, str):
            if bc_type not in named:
                raise ValueError(f"CubicSpline: unknown bc_type {bc_type!r}")
            return named[bc_type], named[bc_type]
        left, right = bc_type
        return tuple(named[e] if isinstance(e, str) else e for e in (left, right))

    def _coefficients(self, x: Any, y: Any, bc_type: Any) -> Any:
        n = fnp.shape(x)[0]
        dx = fnp.diff(x)
        rest = (1,) * (fnp.ndim(y) - 1)
        dxr = fnp.reshape(dx, (n - 1,) + rest)
        slope = fnp.diff(y, axis=0) / dxr
        left, right = self._ends(bc_type)
        if n == 2 and left == right == "not-a-knot":
            s = fnp.concatenate([slope, slope], axis=0)
        elif n == 3 and left == right == "not-a-knot":  # the parabola through three points
            a = fnp.stack(
                [
                    fnp.stack([1.0 + 0 * dx[0], 1.0 + 0 * dx[0], 0 * dx[0]]),
                    fnp.stack([dx[1], 2.0 * (dx[0] + dx[1]), dx[0]]),
                    fnp.stack([0 * dx[0], 1.0 + 0 * dx[0], 1.0 + 0 * dx[0]]),
                ]
            )
            b = fnp.stack(
                [
                    2.0 * slope[0],
                    3.0 * (dxr[0] * slope[1] + dxr[1] * slope[0]),
                    2.0 * slope[1],
                ]
            )
            s = self._solve(a, b)
        else:
            s = self._solve(*self._system(dx, dxr, slope, left, right, n))
        t = (s[:-1] + s[1:] - 2.0 * slope) / dxr
        return fnp.stack([t / dxr, (slope - s[:-1]) / dxr - t, s[:-1], y[:-1]])

    @staticmethod
    def _solve(a: Any, b: Any) -> Any:
        flat = fnp.reshape(b, (fnp.shape(b)[0], -1))
        return fnp.reshape(fnp.linalg.solve(a, flat), fnp.shape(b))

    @staticmethod
    def _system(dx, dxr, slope, left, right, n) -> tuple:
        """SciPy's tridiagonal system for the slopes ``s`` (as a dense matrix)."""
        zero = 0.0 * dx[0]
        rows, rhs = [], []
        if left == "not-a-knot":
            d = dx[0] + dx[1]
            rows.append([(0, dx[1]), (1, d)])
            rhs.append(((dxr[0] + 2.0 * d) * dxr[1] * slope[0] + dxr[0] ** 2 * slope[1]) / d)
        elif left[0] == 1:
            rows.append([(0, 1.0 + zero)])
            rhs.append(0.0 * slope[0] + left[1])
        elif left[0] == 2:
            rows.append([(0, 2.0 + zero), (1, 1.0 + zero)])
            rhs.append(3.0 * slope[0] - 0.5 * left[1] * dxr[0])
        else:
            raise ValueError(
                f"CubicSpline: a boundary condition's order must be 1 or 2, got {left}"
            )
        for i in range(1, n - 1):
            rows.append([(i - 1, dx[i]), (i, 2.0 * (dx[i - 1] + dx[i])), (i + 1, dx[i - 1])])
            rhs.append(3.0 * (dxr[i] * slope[i - 1] + dxr[i - 1] * slope[i]))
        if right == "not-a-knot":
            d = dx[-1] + dx[-2]
            rows.append([(n - 2, d), (n - 1, dx[-2])])
            rhs.append((dxr[-1] ** 2 * slope[-2] + (2.0 * d + dxr[-1]) * dxr[-2] * slope[-1]) / d)
        elif right[0] == 1:
            rows.append([(n - 1, 1.0 + zero)])
            rhs.append(0.0 * slope[-1] + right[1])
        elif right[0] == 2:
            rows.append([(n - 2, 1.0 + zero), (n - 1, 2.0 + zero)])
            rhs.append(3.0 * slope[-1] + 0.5 * right[1] * dxr[-1])
        else:
            raise ValueError(
                f"CubicSpline: a boundary condition's order must be 1 or 2, got {right}"
            )
        a = fnp.stack([fnp.stack([dict(row).get(j, zero) for j in range(n)]) for row in rows])
        return a, fnp.stack(rhs)

    def __call__(self, x: Any, nu: int = 0, extrapolate: Any = None) -> Any:
        """The spline (``nu``: its ``nu``-th derivative) at ``x``."""
        if nu not in (0, 1, 2, 3):
            raise ValueError(f"CubicSpline: nu must be 0, 1, 2 or 3, got {nu}")
        xs = _inexact(x)
        i = _interval(self.x, xs)
        h = xs - self.x[i]
        c = [self.c[k][i] for k in range(4)]  # each (*x.shape, ...)
        extra = fnp.ndim(c[0]) - fnp.ndim(h)
        h = fnp.reshape(h, fnp.shape(h) + (1,) * extra)
        if nu == 0:
            out = ((c[0] * h + c[1]) * h + c[2]) * h + c[3]
        elif nu == 1:
            out = (3.0 * c[0] * h + 2.0 * c[1]) * h + c[2]
        elif nu == 2:
            out = 6.0 * c[0] * h + 2.0 * c[1]
        else:
            out = 6.0 * c[0] + 0.0 * h
        keep = self.extrapolate if extrapolate is None else bool(extrapolate)
        if not keep:
            inside = (xs >= self.x[0]) & (xs <= self.x[-1])
            out = fnp.where(fnp.reshape(inside, fnp.shape(inside) + (1,) * extra), out, fnp.nan)
        if self.axis and extra:
            out = fnp.moveaxis(
                out,
                list(range(fnp.ndim(xs))),
                list(range(self.axis, self.axis + fnp.ndim(xs))),
            )
        return out


_KINDS = ("linear", "slinear", "nearest", "nearest-up", "previous", "next", "zero", "cubic")


class interp1d:  # noqa: N801  (SciPy's name)
    """``scipy.interpolate.interp1d(x, y, kind='linear', axis=-1, copy=True,
    bounds_error=None, fill_value=nan, assume_sorted=False)``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.interpolate import interp1d
        >>> f = interp1d(np.array([0.0, 1.0, 2.0]), np.array([0.0, 10.0, 0.0]))
        >>> float(f(0.25))
        2.5
    """

    def __init__(
        self,
        x: Any,
        y: Any,
        kind: Any = "linear",
        axis: int = -1,
        copy: bool = True,
        bounds_error: Any = None,
        fill_value: Any = numpy.nan,
        assume_sorted: bool = False,
    ) -> None:
        if kind not in _KINDS:
            raise UnsupportedOperationError(
                f"ftransforms.scipy.interpolate.interp1d(kind={kind!r}): supported kinds are "
                f"{list(_KINDS)}"
            )
        x, y = _inexact(x), _inexact(y)
        axis = axis % fnp.ndim(y)
        y = fnp.moveaxis(y, axis, 0)
        if not assume_sorted:
            order = numpy.argsort(numpy.asarray(fnp.stop_gradient(x)), kind="stable")
            x, y = x[order], y[order]
        self.x, self.y, self.kind, self.axis = x, y, kind, axis
        self.extrapolate = isinstance(fill_value, str) and fill_value == "extrapolate"
        self.bounds_error = (not self.extrapolate) if bounds_error is None else bounds_error
        if not self.extrapolate:
            below, above = fill_value if isinstance(fill_value, tuple) else (fill_value, fill_value)
            self.fill = (below, above)
        self.spline = CubicSpline(x, y, axis=0) if kind == "cubic" else None

    def _values(self, xs: Any) -> Any:
        x, y, n = self.x, self.y, fnp.shape(self.x)[0]
        kind = self.kind
        if self.spline is not None:
            return self.spline(xs)
        if kind in ("linear", "slinear"):
            i = _interval(x, xs)
            t = (xs - x[i]) / (x[i + 1] - x[i])
            t = fnp.reshape(t, fnp.shape(t) + (1,) * (fnp.ndim(y) - 1))
            return y[i] + t * (y[i + 1] - y[i])
        stopped_x, stopped = _stopped(x), _stopped(xs)
        if kind in ("nearest", "nearest-up"):
            middles = (stopped_x[1:] + stopped_x[:-1]) / 2.0
            side = "left" if kind == "nearest" else "right"
            i = fnp.searchsorted(middles, stopped, side=side)
        elif kind in ("previous", "zero"):
            i = fnp.searchsorted(stopped_x, stopped, side="right") - 1
        else:  # next
            i = fnp.searchsorted(stopped_x, stopped, side="left")
        out = y[fnp.clip(i, 0, n - 1)]
        if kind in ("previous", "next"):  # no previous point below x[0], no next above x[-1]
            none = (i < 0) | (i > n - 1)
            none = fnp.reshape(none, fnp.shape(none) + (1,) * (fnp.ndim(out) - fnp.ndim(none)))
            out = fnp.where(none, fnp.nan, out)
        return out

    def __call__(self, x_new: Any) -> Any:
        """The interpolant at ``x_new``: shape ``y.shape`` with ``axis`` replaced by
        ``x_new.shape``."""
        xs = _inexact(x_new)
        out = self._values(xs)
        rest = (1,) * (fnp.ndim(out) - fnp.ndim(xs))
        if not self.extrapolate:
            below = _stopped(xs) < _stopped(self.x[0])
            above = _stopped(xs) > _stopped(self.x[-1])
            if self.bounds_error:
                if bool(fnp.any(below)):
                    raise ValueError("A value in x_new is below the interpolation range.")
                if bool(fnp.any(above)):
                    raise ValueError("A value in x_new is above the interpolation range.")
            out = fnp.where(fnp.reshape(below, fnp.shape(below) + rest), self.fill[0], out)
            out = fnp.where(fnp.reshape(above, fnp.shape(above) + rest), self.fill[1], out)
        if self.axis and rest:
            out = fnp.moveaxis(
                out, list(range(fnp.ndim(xs))), list(range(self.axis, self.axis + fnp.ndim(xs)))
            )
        return out


class RegularGridInterpolator:
    """``scipy.interpolate.RegularGridInterpolator(points, values, method='linear',
    bounds_error=True, fill_value=nan)`` with the methods ``linear`` and ``nearest``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.interpolate import RegularGridInterpolator
        >>> g = np.array([0.0, 1.0])
        >>> f = RegularGridInterpolator((g, g), np.array([[0.0, 1.0], [2.0, 3.0]]))
        >>> float(f(np.array([0.5, 0.5]))[0])
        1.5
    """

    def __init__(
        self,
        points: Any,
        values: Any,
        method: str = "linear",
        bounds_error: bool = True,
        fill_value: Any = numpy.nan,
        *,
        solver: Any = None,
        solver_args: Any = None,
    ) -> None:
        self._check_method(method)
        self.grid = tuple(_inexact(p) for p in points)
        self.values = _inexact(values)
        if fnp.ndim(self.values) < len(self.grid):
            raise ValueError(
                f"RegularGridInterpolator: {len(self.grid)} grid axes but values of shape "
                f"{fnp.shape(self.values)}"
            )
        for k, g in enumerate(self.grid):
            if fnp.shape(g)[0] != fnp.shape(self.values)[k]:
                raise ValueError(
                    f"RegularGridInterpolator: there are {fnp.shape(g)[0]} points in dimension "
                    f"{k}, but values has {fnp.shape(self.values)[k]}"
                )
        self.method, self.bounds_error, self.fill_value = method, bounds_error, fill_value

    @staticmethod
    def _check_method(method: str) -> None:
        if method not in ("linear", "nearest"):
            raise UnsupportedOperationError(
                f"ftransforms.scipy.interpolate.RegularGridInterpolator(method={method!r}): "
                f"supported methods are 'linear' and 'nearest'"
            )

    def __call__(self, xi: Any, method: str | None = None, *, nu: Any = None) -> Any:
        """The interpolant at the points ``xi`` (``(..., ndim)``)."""
        method = method or self.method
        self._check_method(method)
        xi = _inexact(xi)
        nd = len(self.grid)
        if fnp.ndim(xi) == 1 and nd > 1 and fnp.shape(xi)[0] == nd:
            xi = fnp.reshape(xi, (1, nd))
        elif nd == 1 and fnp.shape(xi)[-1] != 1:
            xi = xi[..., None]
        coords = [xi[..., k] for k in range(nd)]
        outside = None
        for g, c in zip(self.grid, coords):
            off = (_stopped(c) < _stopped(g[0])) | (_stopped(c) > _stopped(g[-1]))
            outside = off if outside is None else outside | off
        if self.bounds_error and bool(fnp.any(outside)):
            raise ValueError("One of the requested xi is out of bounds")
        index = [_interval(g, c) for g, c in zip(self.grid, coords)]
        frac = [(c - g[i]) / (g[i + 1] - g[i]) for g, c, i in zip(self.grid, coords, index)]
        if method == "nearest":
            picks = tuple(fnp.where(_stopped(t) <= 0.5, i, i + 1) for t, i in zip(frac, index))
            out = self.values[picks]
        else:
            out = None
            for corner in itertools.product((0, 1), repeat=nd):
                weight = None
                for t, up in zip(frac, corner):
                    w = t if up else 1.0 - t
                    weight = w if weight is None else weight * w
                vals = self.values[tuple(i + up for i, up in zip(index, corner))]
                extra = fnp.ndim(vals) - fnp.ndim(weight)
                term = fnp.reshape(weight, fnp.shape(weight) + (1,) * extra) * vals
                out = term if out is None else out + term
        if self.fill_value is not None:
            extra = fnp.ndim(out) - fnp.ndim(outside)
            out = fnp.where(
                fnp.reshape(outside, fnp.shape(outside) + (1,) * extra), self.fill_value, out
            )
        return out
