"""``ftransforms.scipy.interpolate``: SciPy's 1-D and grid interpolators, written with
``ftransforms.numpy`` so that every transform differentiates and batches them: in the
query points, in the data values and (for the splines and ``interp1d``) in the nodes.

* :class:`interp1d` with ``kind`` ``linear``/``slinear``, ``nearest``, ``nearest-up``,
  ``zero``/``previous``, ``next`` (SciPy's ``bounds_error``/``fill_value``, ``
  'extrapolate'`` for the linear kinds), and ``cubic`` (:class:`CubicSpline`'s not-a-knot
  spline, which is SciPy's cubic interpolating B-spline); ``quadratic`` raises;
* :class:`CubicSpline` with ``bc_type`` ``not-a-knot``, ``natural``, ``clamped``,
  ``periodic`` or ``((order, value), (order, value))``: the knot slopes solve SciPy's
  linear system (a dense solve, differentiable in ``y`` and ``x``), evaluation and
  derivatives (``nu``) as :class:`PPoly`;
* :class:`PPoly`: a piecewise polynomial ``(c, x)`` in SciPy's layout, evaluated at
  traced points;
* :class:`RegularGridInterpolator` with ``method`` ``linear`` or ``nearest`` (as
  ``jax.scipy.interpolate``).

SciPy's own instances built from plain data and called with traced points are answered
with the evaluation here (NOTE [SciPy's own names under the transforms]).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> x = np.linspace(0.0, 3.0, 7)
    >>> spline = lambda y: CubicSpline(x, y)(1.25)
    >>> ft.grad(spline)(np.sin(x)).shape  # the weights of the data in the value
    (7,)
"""

from __future__ import annotations

from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.helpers import normalize_axis
from ftransforms.numpy.ufuncs import float_input
from ftransforms.scipy.fitpack_data import splev, splint, splrep
from ftransforms.scipy.interpolate_functions import (
    barycentric_interpolate,
    griddata,
    interpn,
    krogh_interpolate,
    lagrange,
    make_interp_spline,
    make_lsq_spline,
    make_smoothing_spline,
)

__all__ = [
    "CubicSpline",
    "PPoly",
    "RegularGridInterpolator",
    "barycentric_interpolate",
    "griddata",
    "interp1d",
    "interpn",
    "krogh_interpolate",
    "lagrange",
    "make_interp_spline",
    "make_lsq_spline",
    "make_smoothing_spline",
    "splev",
    "splint",
    "splrep",
]


def _float(v: Any) -> Any:
    return float_input(v if hasattr(v, "dtype") else fnp.asarray(v), None)


def _any(condition: Any) -> bool:
    """Whether any element holds (a value read: under ``vmap`` the rows may split)."""
    return bool(fnp.any(condition))


# -- piecewise polynomials -------------------------------------------------------------------


def _ppoly_eval(c: Any, x: Any, xq: Any, nu: int, extrapolate: Any) -> Any:
    """``sum_j c[j, i] (xq - x[i])^(k-1-j)`` differentiated ``nu`` times, ``i`` the interval
    of each query point; ``c`` has shape ``(k, m, *trailing)``, ``x`` ``(m + 1,)``.  Returns
    shape ``xq.shape + trailing``."""
    k, m = fnp.shape(c)[0], fnp.shape(c)[1]
    trailing = tuple(fnp.shape(c)[2:])
    xq = _float(xq)
    flat = fnp.reshape(xq, (-1,))
    lo, hi = x[0], x[-1]
    if extrapolate == "periodic":
        flat = lo + fnp.mod(flat - lo, hi - lo)
    increasing = not _any(x[-1] < x[0])
    xs = x if increasing else x[::-1]
    i = fnp.searchsorted(xs, flat, side="right") - 1
    if not increasing:
        i = m - 1 - i
    i = fnp.clip(i, 0, m - 1)
    t = flat - fnp.take(x, i)
    coeff = fnp.take(c, i, axis=1)  # (k, q, *trailing)
    t = fnp.reshape(t, fnp.shape(t) + (1,) * len(trailing))
    out = 0.0 * t
    for j in range(k - nu):  # Horner over the degrees k-1-nu down to 0 of the derivative
        factor = 1.0
        for r in range(nu):
            factor *= k - 1 - j - r
        out = out * t + factor * coeff[j]
    if extrapolate is False:
        outside = (flat < fnp.minimum(lo, hi)) | (flat > fnp.maximum(lo, hi))
        outside = fnp.reshape(outside, fnp.shape(outside) + (1,) * len(trailing))
        out = fnp.where(outside, fnp.nan, out)
    return fnp.reshape(out, fnp.shape(xq) + trailing)


class PPoly:
    """``scipy.interpolate.PPoly``: a piecewise polynomial with coefficients ``c`` (shape
    ``(k, m, ...)``, highest degree first) on the breakpoints ``x`` (``m + 1``).

    Example:
        >>> import numpy as np
        >>> p = PPoly(np.array([[1.0, 1.0], [0.0, 2.0]]), np.array([0.0, 1.0, 2.0]))
        >>> p(np.array([0.5, 1.5])).tolist()  # t on [0, 1), t + 2 on [1, 2)
        [0.5, 2.5]
    """

    def __init__(self, c: Any, x: Any, extrapolate: Any = None, axis: int = 0) -> None:
        self.c = _float(c)
        self.x = _float(x)
        self.extrapolate = True if extrapolate is None else extrapolate
        if axis != 0:
            raise UnsupportedOperationError(
                "PPoly(c, x, axis=...): only axis=0 is available; move the axis first"
            )
        self.axis = axis
        if fnp.ndim(self.c) < 2 or fnp.shape(self.c)[1] != fnp.shape(self.x)[0] - 1:
            raise ValueError(
                f"PPoly(c, x): c must have shape (k, len(x) - 1, ...), got {fnp.shape(self.c)} "
                f"for {fnp.shape(self.x)[0]} breakpoints"
            )

    def __call__(self, x: Any, nu: int = 0, extrapolate: Any = None) -> Any:
        extrapolate = self.extrapolate if extrapolate is None else extrapolate
        return _ppoly_eval(self.c, self.x, x, int(nu), extrapolate)

    def derivative(self, nu: int = 1) -> PPoly:
        """The ``nu``-th derivative as a piecewise polynomial."""
        c = self.c
        for _ in range(nu):
            k = fnp.shape(c)[0]
            if k <= 1:
                c = fnp.zeros_like(c[:1])
                break
            powers = numpy.arange(k - 1, 0, -1, dtype=float)
            c = c[:-1] * fnp.reshape(powers, (k - 1,) + (1,) * (fnp.ndim(c) - 1))
        return PPoly(c, self.x, self.extrapolate)


# -- cubic splines ---------------------------------------------------------------------------


def _bc(where: str, bc_type: Any) -> tuple:
    if isinstance(bc_type, str):
        named = {
            "not-a-knot": "not-a-knot",
            "periodic": "periodic",
            "clamped": (1, 0.0),
            "natural": (2, 0.0),
        }
        if bc_type not in named:
            raise ValueError(f"{where}: bc_type {bc_type!r} is not one of {sorted(named)}")
        return named[bc_type], named[bc_type]
    start, end = bc_type
    out = []
    for b in (start, end):
        if isinstance(b, str):
            out.append(_bc(where, b)[0])
        else:
            order, value = b
            if order not in (1, 2):
                raise ValueError(f"{where}: a boundary condition's order must be 1 or 2")
            out.append((order, value))
    if (out[0] == "periodic") != (out[1] == "periodic"):
        raise ValueError(f"{where}: 'periodic' must be used at both ends")
    return tuple(out)


def _hermite_coefficients(x: Any, y: Any, s: Any) -> Any:
    """``c`` of the cubic Hermite interpolant with slopes ``s`` (SciPy's layout)."""
    dx = fnp.diff(x)
    dxr = fnp.reshape(dx, (fnp.shape(dx)[0],) + (1,) * (fnp.ndim(y) - 1))
    slope = fnp.diff(y, axis=0) / dxr
    t = (s[:-1] + s[1:] - 2 * slope) / dxr
    return fnp.stack([t / dxr, (slope - s[:-1]) / dxr - t, s[:-1], y[:-1]])


def _spline_slopes(x: Any, y: Any, bc: tuple) -> Any:
    """The knot slopes of SciPy's cubic spline: the rows of its tridiagonal system (dense
    here, so that ``solve`` differentiates in ``x`` and ``y``)."""
    n = fnp.shape(x)[0]
    dx = fnp.diff(x)
    dxr = fnp.reshape(dx, (n - 1,) + (1,) * (fnp.ndim(y) - 1))
    slope = fnp.diff(y, axis=0) / dxr
    start, end = bc
    if n == 2:
        start = (1, slope[0]) if start in ("not-a-knot", "periodic") else start
        end = (1, slope[0]) if end in ("not-a-knot", "periodic") else end
    if n == 3 and start == "not-a-knot" and end == "not-a-knot":
        A = fnp.stack(
            [
                fnp.stack([1.0 + 0 * dx[0], 1.0 + 0 * dx[0], 0 * dx[0]]),
                fnp.stack([dx[1], 2 * (dx[0] + dx[1]), dx[0]]),
                fnp.stack([0 * dx[0], 1.0 + 0 * dx[0], 1.0 + 0 * dx[0]]),
            ]
        )
        b = fnp.stack([2 * slope[0], 3 * (dxr[0] * slope[1] + dxr[1] * slope[0]), 2 * slope[1]])
        return fnp.reshape(fnp.linalg.solve(A, fnp.reshape(b, (3, -1))), fnp.shape(y))
    if start == "periodic":
        if n == 3:
            t = fnp.sum(slope / dxr, axis=0) / fnp.sum(1.0 / dxr, axis=0)
            return fnp.broadcast_to(t, fnp.shape(y))
        size = n - 1  # s[n - 1] = s[0]
        prev = fnp.concatenate([dx[-1:], dx[:-1]])  # the interval before knot i
        nxt = dx  # the interval after knot i
        slope_prev = fnp.concatenate([slope[-1:], slope[:-1]])
        eye = numpy.eye(size)
        # row i: nxt s[i-1] + 2 (prev + nxt) s[i] + prev s[i+1] (indices mod n - 1)
        A = (
            fnp.diag(2 * (prev + nxt))
            + nxt[:, None] * numpy.roll(eye, -1, axis=1)
            + prev[:, None] * numpy.roll(eye, 1, axis=1)
        )
        prev_r = fnp.reshape(prev, (size,) + (1,) * (fnp.ndim(y) - 1))
        nxt_r = fnp.reshape(nxt, (size,) + (1,) * (fnp.ndim(y) - 1))
        b = 3 * (nxt_r * slope_prev + prev_r * slope)
        s = fnp.linalg.solve(A, fnp.reshape(b, (size, -1)))
        s = fnp.concatenate([s, s[:1]])
        return fnp.reshape(s, fnp.shape(y))
    main = fnp.concatenate([fnp.zeros(1), 2 * (dx[:-1] + dx[1:]), fnp.zeros(1)])
    upper = fnp.concatenate([fnp.zeros(1), dx[:-1]])  # (i, i + 1): dx[i - 1], rows 1..n-2
    lower = fnp.concatenate([dx[1:], fnp.zeros(1)])  # (i, i - 1): dx[i], rows 1..n-2
    rows = fnp.diag(main) + fnp.diag(upper, 1) + fnp.diag(lower, -1)
    b_mid = 3 * (dxr[1:] * slope[:-1] + dxr[:-1] * slope[1:])
    first_row, b0 = _boundary_row(start, x, dx, dxr, slope, y, n, at_start=True)
    last_row, b1 = _boundary_row(end, x, dx, dxr, slope, y, n, at_start=False)
    A = fnp.concatenate([first_row[None], rows[1:-1], last_row[None]])
    b = fnp.concatenate([b0[None], b_mid, b1[None]])
    s = fnp.linalg.solve(A, fnp.reshape(b, (n, -1)))
    return fnp.reshape(s, fnp.shape(y))


def _boundary_row(bc: Any, x, dx, dxr, slope, y, n: int, at_start: bool) -> tuple:
    """The first (or last) row of the slopes' system and its right-hand side."""
    zeros = fnp.zeros(n) + 0 * dx[0]
    e = numpy.eye(n)
    if at_start:
        i, j = 0, 1
        if bc == "not-a-knot":
            d = x[2] - x[0]
            row = dx[1] * e[0] + d * e[1] + zeros
            rhs = ((dxr[0] + 2 * d) * dxr[1] * slope[0] + dxr[0] ** 2 * slope[1]) / d
        elif bc[0] == 1:
            row = e[0] + zeros
            rhs = bc[1] + 0 * y[0]
        else:
            row = 2 * dx[0] * e[0] + dx[0] * e[1] + zeros
            rhs = -0.5 * bc[1] * dxr[0] ** 2 + 3 * (y[1] - y[0])
    else:
        i, j = n - 1, n - 2
        if bc == "not-a-knot":
            d = x[-1] - x[-3]
            row = dx[-2] * e[i] + d * e[j] + zeros
            rhs = (dxr[-1] ** 2 * slope[-2] + (2 * d + dxr[-1]) * dxr[-2] * slope[-1]) / d
        elif bc[0] == 1:
            row = e[i] + zeros
            rhs = bc[1] + 0 * y[0]
        else:
            row = 2 * dx[-1] * e[i] + dx[-1] * e[j] + zeros
            rhs = 0.5 * bc[1] * dxr[-1] ** 2 + 3 * (y[-1] - y[-2])
    return row, rhs


class CubicSpline(PPoly):
    """``scipy.interpolate.CubicSpline``: the cubic spline through ``(x, y)`` (``y``
    along ``axis``) with SciPy's boundary conditions; differentiable in ``x`` and ``y``
    and at the query points.

    Example:
        >>> import numpy as np
        >>> x = np.arange(4.0)
        >>> round(float(CubicSpline(x, x**3)(1.5)), 12)  # not-a-knot: exact for cubics
        3.375
    """

    def __init__(
        self, x: Any, y: Any, axis: int = 0, bc_type: Any = "not-a-knot", extrapolate: Any = None
    ) -> None:
        where = "CubicSpline(x, y)"
        x = _float(x)
        y = _float(y)
        if fnp.ndim(x) != 1 or fnp.shape(x)[0] < 2:
            raise ValueError(f"{where}: x must be 1-D with at least 2 points")
        axis = normalize_axis(axis, fnp.ndim(y))
        y = fnp.moveaxis(y, axis, 0)
        if fnp.shape(y)[0] != fnp.shape(x)[0]:
            raise ValueError(f"{where}: x and y must have the same length along axis")
        if _any(fnp.diff(x) <= 0):
            raise ValueError(f"{where}: x must be strictly increasing")
        bc = _bc(where, bc_type)
        if bc[0] == "periodic" and _any(fnp.abs(y[0] - y[-1]) > 1e-15 * fnp.abs(y[0]) + 0):
            raise ValueError(
                f"{where}: the first and last values of y must be equal for bc_type='periodic'"
            )
        s = _spline_slopes(x, y, bc)
        if extrapolate is None:
            extrapolate = "periodic" if bc[0] == "periodic" else True
        super().__init__(_hermite_coefficients(x, y, s), x, extrapolate)
        self.axis = axis

    def __call__(self, x: Any, nu: int = 0, extrapolate: Any = None) -> Any:
        out = super().__call__(x, nu, extrapolate)
        if self.axis == 0:
            return out
        nq = fnp.ndim(x) if hasattr(x, "shape") else numpy.ndim(x)
        return fnp.moveaxis(out, list(range(nq)), list(range(self.axis, self.axis + nq)))


# -- interp1d ----------------------------------------------------------------------------------


_KINDS = ("linear", "slinear", "nearest", "nearest-up", "zero", "previous", "next", "cubic")


class interp1d:  # noqa: N801  (SciPy's name)
    """``scipy.interpolate.interp1d`` of the kinds ``linear``/``slinear``, ``nearest``,
    ``nearest-up``, ``zero``/``previous``, ``next`` and ``cubic``, along ``axis`` of ``y``;
    differentiable in ``x``, ``y`` and the query points (piecewise).

    Example:
        >>> import numpy as np
        >>> f = interp1d(np.array([0.0, 1.0, 2.0]), np.array([0.0, 10.0, 0.0]))
        >>> f(np.array([0.25, 1.5])).tolist()
        [2.5, 5.0]
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
        where = "interp1d(x, y)"
        if kind not in _KINDS:
            raise UnsupportedOperationError(
                f"{where}: kind={kind!r} is not available; the spline kinds are "
                f"CubicSpline's (ftransforms.scipy.interpolate.CubicSpline(x, y)); the "
                f"others are {', '.join(_KINDS)}"
            )
        x = _float(x)
        y = _float(y)
        axis = normalize_axis(axis, fnp.ndim(y))
        y = fnp.moveaxis(y, axis, 0)
        if not assume_sorted:
            order = fnp.argsort(x, kind="stable")
            x, y = fnp.take(x, order), fnp.take(y, order, axis=0)
        self.x, self._y, self.axis, self.kind = x, y, axis, kind
        self.fill_value = fill_value
        extrapolating = isinstance(fill_value, str) and fill_value == "extrapolate"
        self.bounds_error = (not extrapolating) if bounds_error is None else bool(bounds_error)

    @property
    def y(self) -> Any:
        return fnp.moveaxis(self._y, 0, self.axis)

    def __call__(self, x_new: Any) -> Any:
        where = "interp1d(...)(x_new)"
        x, y = self.x, self._y
        xq = _float(x_new)
        flat = fnp.reshape(xq, (-1,))
        n = fnp.shape(x)[0]
        trailing = tuple(fnp.shape(y)[1:])
        below, above = flat < x[0], flat > x[-1]
        if self.bounds_error:
            if _any(below):
                raise ValueError(
                    f"{where}: a value in x_new is below the interpolation range's minimum "
                    f"value (SciPy's ValueError); pass bounds_error=False"
                )
            if _any(above):
                raise ValueError(
                    f"{where}: a value in x_new is above the interpolation range's maximum "
                    f"value (SciPy's ValueError); pass bounds_error=False"
                )
        kind = "linear" if self.kind == "slinear" else self.kind
        if kind == "cubic":  # SciPy's cubic B-spline through the points: not-a-knot ends
            out = CubicSpline(x, y, axis=0)(flat)
        elif kind == "linear":
            i = fnp.clip(fnp.searchsorted(x, flat, side="left") - 1, 0, n - 2)
            x0, x1 = fnp.take(x, i), fnp.take(x, i + 1)
            w = (flat - x0) / (x1 - x0)
            w = fnp.reshape(w, fnp.shape(w) + (1,) * len(trailing))
            out = fnp.take(y, i, axis=0) * (1 - w) + fnp.take(y, i + 1, axis=0) * w
        else:
            if kind in ("nearest", "nearest-up"):
                mids = (x[1:] + x[:-1]) / 2.0
                side = "left" if kind == "nearest" else "right"
                i = fnp.searchsorted(mids, flat, side=side)
            elif kind in ("zero", "previous"):
                i = fnp.searchsorted(x, flat, side="right") - 1
                if kind == "previous":
                    i = fnp.where(flat == x[-1], n - 1, i)
            else:  # next
                i = fnp.searchsorted(x, flat, side="left")
            i = fnp.clip(i, 0, n - 1)
            out = fnp.take(y, i, axis=0)
        extrapolating = isinstance(self.fill_value, str) and self.fill_value == "extrapolate"
        if not extrapolating:
            fill = self.fill_value
            lo_fill, hi_fill = fill if isinstance(fill, tuple) else (fill, fill)
            shape_b = fnp.shape(below) + (1,) * len(trailing)
            out = fnp.where(fnp.reshape(below, shape_b), lo_fill, out)
            out = fnp.where(fnp.reshape(above, shape_b), hi_fill, out)
        elif kind in ("previous", "next"):
            # SciPy extrapolates previous/next with nan beyond their side
            shape_b = fnp.shape(below) + (1,) * len(trailing)
            if kind == "previous":
                out = fnp.where(fnp.reshape(below, shape_b), fnp.nan, out)
            else:
                out = fnp.where(fnp.reshape(above, shape_b), fnp.nan, out)
        out = fnp.reshape(out, fnp.shape(xq) + trailing)
        if self.axis != 0:
            nq = fnp.ndim(xq)
            out = fnp.moveaxis(out, list(range(nq)), list(range(self.axis, self.axis + nq)))
        return out


# -- regular grids -------------------------------------------------------------------------------


class RegularGridInterpolator:
    """``scipy.interpolate.RegularGridInterpolator`` with ``method`` ``linear`` or
    ``nearest``: ``values`` on the grid ``points`` (one 1-D array per dimension),
    interpolated at ``xi`` (shape ``(..., ndim)``); differentiable in ``values`` and
    ``xi``.

    Example:
        >>> import numpy as np
        >>> grid = (np.array([0.0, 1.0]), np.array([0.0, 1.0]))
        >>> f = RegularGridInterpolator(grid, np.array([[0.0, 1.0], [2.0, 3.0]]))
        >>> f(np.array([[0.5, 0.5]])).tolist()
        [1.5]
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
        where = "RegularGridInterpolator(points, values)"
        self._check_method(where, method)
        self.grid = tuple(_float(p) for p in points)
        self.values = values if isinstance(values, Tracer) else _float(values)
        if len(self.grid) > fnp.ndim(self.values):
            raise ValueError(
                f"{where}: there are {len(self.grid)} point arrays for "
                f"{fnp.ndim(self.values)}-D values"
            )
        self.method, self.bounds_error, self.fill_value = method, bounds_error, fill_value

    @staticmethod
    def _check_method(where: str, method: str) -> None:
        if method not in ("linear", "nearest"):
            raise UnsupportedOperationError(
                f"{where}: method={method!r} is not available (linear and nearest are, as "
                f"in jax.scipy.interpolate.RegularGridInterpolator)"
            )

    def __call__(self, xi: Any, method: str | None = None, *, nu: Any = None) -> Any:
        where = "RegularGridInterpolator(...)(xi)"
        method = self.method if method is None else method
        self._check_method(where, method)
        if nu is not None and any(numpy.atleast_1d(nu)):
            raise UnsupportedOperationError(f"{where}: nu (derivative orders) is not available")
        nd = len(self.grid)
        xi = _grid_points(xi, nd)
        if fnp.shape(xi)[-1] != nd:
            raise ValueError(f"{where}: xi must have {nd} coordinates in its last axis")
        shape = fnp.shape(xi)[:-1]
        pts = fnp.reshape(xi, (-1, nd))
        outside = None
        per_axis = []
        for d, g in enumerate(self.grid):
            c = pts[:, d]
            off = (c < g[0]) | (c > g[-1])
            outside = off if outside is None else outside | off
            n = fnp.shape(g)[0]
            i = fnp.clip(fnp.searchsorted(g, c, side="right") - 1, 0, n - 2)
            g0, g1 = fnp.take(g, i), fnp.take(g, i + 1)
            w = (c - g0) / (g1 - g0)
            if method == "nearest":
                per_axis.append([(fnp.where(w <= 0.5, i, i + 1), None)])
            else:
                per_axis.append([(i, 1.0 - w), (i + 1, w)])
        if self.bounds_error and _any(outside):
            raise ValueError(f"{where}: one of the requested xi is out of bounds")
        trailing = tuple(fnp.shape(self.values)[nd:])
        out = None
        for choice in numpy.ndindex(*[len(p) for p in per_axis]):
            index = tuple(per_axis[d][k][0] for d, k in enumerate(choice))
            term = self.values[index]
            for d, k in enumerate(choice):
                w = per_axis[d][k][1]
                if w is not None:
                    term = term * fnp.reshape(w, fnp.shape(w) + (1,) * len(trailing))
            out = term if out is None else out + term
        if self.fill_value is not None:
            mask = fnp.reshape(outside, fnp.shape(outside) + (1,) * len(trailing))
            out = fnp.where(mask, self.fill_value, out)
        return fnp.reshape(out, shape + trailing)


def _grid_points(xi: Any, nd: int) -> Any:
    """SciPy's reading of ``xi``: a tuple of coordinate arrays (broadcast together), or an
    array whose last axis holds the coordinates (a 1-D one: points of ``nd`` values)."""
    if isinstance(xi, tuple) and len(xi) == 1:
        xi = xi[0]
    if isinstance(xi, tuple):
        parts = fnp.broadcast_arrays(*[_float(p) for p in xi])
        return fnp.stack(parts, axis=-1)
    xi = _float(xi)
    if fnp.ndim(xi) == 0:
        xi = fnp.reshape(xi, (1,))
    if fnp.ndim(xi) == 1:
        xi = fnp.reshape(xi, (-1, nd))
    return xi


def scipy_instance_call(kind: str, instance: Any, args: tuple, kwargs: dict) -> Any:
    """The evaluation here of SciPy's own interpolator ``instance`` (built from plain data)
    at traced points: NOTE [SciPy's own names under the transforms]."""
    if kind == "PPoly":
        c = numpy.asarray(instance.c)
        if getattr(instance, "axis", 0) not in (0, None) and c.ndim > 2:
            raise UnsupportedOperationError(
                f"{type(instance).__name__}(...)(x): a spline along axis="
                f"{instance.axis} is answered only for axis=0 under the transforms"
            )
        ours = PPoly(c, numpy.asarray(instance.x), instance.extrapolate)
        return ours(*args, **kwargs)
    if kind == "interp1d":
        ours = interp1d.__new__(interp1d)
        ours.x = numpy.asarray(instance.x)
        ours._y = numpy.moveaxis(numpy.asarray(instance.y), instance.axis, 0)
        ours.axis, ours.kind = instance.axis, instance._kind
        ours.fill_value = instance.fill_value
        if isinstance(ours.fill_value, numpy.ndarray) and ours.fill_value.ndim == 0:
            ours.fill_value = float(ours.fill_value)
        if getattr(instance, "_extrapolate", False):
            ours.fill_value = "extrapolate"
        ours.bounds_error = instance.bounds_error
        if ours.kind == "spline" and getattr(getattr(instance, "_spline", None), "k", 0) == 3:
            ours.kind = "cubic"  # SciPy's cubic B-spline: the not-a-knot cubic spline
        if ours.kind not in _KINDS:
            raise UnsupportedOperationError(
                f"interp1d(kind={ours.kind!r})(x_new): the spline kinds are not answered on "
                f"traced points; use ftransforms.scipy.interpolate.CubicSpline"
            )
        return ours(*args, **kwargs)
    ours = RegularGridInterpolator(
        tuple(numpy.asarray(g) for g in instance.grid),
        numpy.asarray(instance.values),
        instance.method,
        instance.bounds_error,
        instance.fill_value,
    )
    return ours(*args, **kwargs)
