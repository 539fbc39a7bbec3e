"""SciPy's interpolating functions with traced data values, SciPy's signatures:
``make_interp_spline``, ``griddata``, ``interpn``, ``krogh_interpolate`` and
``barycentric_interpolate`` (exported from ``ftransforms.scipy.interpolate``; NOTE
[SciPy's interpolators on traced data] in ``interpolate_data.py``).  SciPy computes on
plain basis columns; the data enter by a contraction.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> x = np.linspace(0.0, 1.0, 5)
    >>> w = ft.grad(lambda y: make_interp_spline(x, y, k=1)(0.375))(np.zeros(5))
    >>> w.tolist()  # halfway between the 2nd and 3rd nodes
    [0.0, 0.5, 0.5, 0.0, 0.0]
"""

from __future__ import annotations

from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.scipy.interpolate_data import affine_in_data
from ftransforms.scipy.interpolate_data import traced as holds_tracer

__all__ = [
    "barycentric_interpolate",
    "griddata",
    "interpn",
    "krogh_interpolate",
    "lagrange",
    "make_interp_spline",
    "make_lsq_spline",
    "make_smoothing_spline",
]


class _Theirs:
    """SciPy's own functions (not the wrappers that send traced calls here)."""

    def __getattr__(self, name: str) -> Any:
        import scipy.interpolate  # noqa: PLC0415  late import: SciPy is optional

        fn = getattr(scipy.interpolate, name)
        return getattr(fn, "__wrapped__", fn)


def _scipy_interpolate() -> Any:
    return _Theirs()


def make_interp_spline(
    x: Any,
    y: Any,
    k: int = 3,
    t: Any = None,
    bc_type: Any = None,
    axis: int = 0,
    check_finite: bool = True,
) -> Any:
    """``scipy.interpolate.make_interp_spline`` of traced data ``y``: SciPy's B-spline
    read through the data (calls, ``derivative``, ``antiderivative``, ``integrate``,
    ``c``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> x = np.arange(5.0)
        >>> round(float(ft.grad(lambda y: make_interp_spline(x, y)(2.0))(x**2)[2]), 12)
        1.0
    """
    args = (x, y, k, t, bc_type, axis, check_finite)
    theirs = _scipy_interpolate().make_interp_spline
    if not holds_tracer(y):
        return theirs(*args)
    return affine_in_data(theirs, "make_interp_spline", args, {}, "y", axis="axis")


def make_lsq_spline(
    x: Any,
    y: Any,
    t: Any,
    k: int = 3,
    w: Any = None,
    axis: int = 0,
    check_finite: bool = True,
    *,
    method: str = "qr",
) -> Any:
    """``scipy.interpolate.make_lsq_spline`` of traced data ``y``: the least-squares
    B-spline on the knots ``t`` is linear in ``y``, read through the data as
    :func:`make_interp_spline`.

    Example:
        >>> import numpy as np
        >>> x = np.linspace(0.0, 4.0, 9)
        >>> t = [0.0] * 4 + [2.0] + [4.0] * 4
        >>> round(float(make_lsq_spline(x, x**2, t)(1.5)), 12)
        2.25
    """
    args = (x, y, t, k, w, axis, check_finite)
    theirs = _scipy_interpolate().make_lsq_spline
    if not holds_tracer(y):
        return theirs(*args, method=method)
    kwargs = {"method": method}
    return affine_in_data(theirs, "make_lsq_spline", args, kwargs, "y", axis="axis")


def make_smoothing_spline(x: Any, y: Any, w: Any = None, lam: Any = None, *, axis: int = 0) -> Any:
    """``scipy.interpolate.make_smoothing_spline`` of traced data ``y`` with a given
    ``lam``: the penalised least-squares spline is linear in ``y``, read through the data
    as :func:`make_interp_spline`.  ``lam=None`` (SciPy's generalized cross-validation
    chooses it from ``y``) is not linear and raises.

    Example:
        >>> import numpy as np
        >>> x = np.linspace(0.0, 4.0, 9)
        >>> round(float(make_smoothing_spline(x, 3 * x + 1, lam=0.5)(1.5)), 10)  # a line
        5.5
    """
    theirs = _scipy_interpolate().make_smoothing_spline
    if not holds_tracer(y):
        return theirs(x, y, w, lam, axis=axis)
    if lam is None:
        raise UnsupportedOperationError(
            "scipy.interpolate.make_smoothing_spline(x, y, lam=None) with traced y: the "
            "generalized cross-validation choice of lam depends on y, so the spline is not "
            "linear in y; pass a number lam= (the spline is then linear in y)"
        )
    kwargs = {"axis": axis}
    return affine_in_data(theirs, "make_smoothing_spline", (x, y, w, lam), kwargs, "y", axis="axis")


def griddata(
    points: Any,
    values: Any,
    xi: Any,
    method: str = "linear",
    fill_value: float = numpy.nan,
    rescale: bool = False,
) -> Any:
    """``scipy.interpolate.griddata`` of traced ``values`` (SciPy's triangulation of
    the plain ``points``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> pts = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
        >>> g = ft.grad(lambda v: griddata(pts, v, np.array([[0.25, 0.25]]))[0])(np.zeros(3))
        >>> g.tolist()  # the barycentric coordinates
        [0.5, 0.25, 0.25]
    """
    args = (points, values, xi, method, fill_value, rescale)
    theirs = _scipy_interpolate().griddata
    if not holds_tracer(values):
        return theirs(*args)
    return affine_in_data(theirs, "griddata", args, {}, "values", result="values")


def interpn(
    points: Any,
    values: Any,
    xi: Any,
    method: str = "linear",
    bounds_error: bool = True,
    fill_value: float = numpy.nan,
) -> Any:
    """``scipy.interpolate.interpn``: traced ``values`` on the plain grid, traced ``xi``
    for the methods ``linear``/``nearest`` (``RegularGridInterpolator``'s call).

    Example:
        >>> import numpy as np
        >>> grid = (np.array([0.0, 1.0]), np.array([0.0, 1.0]))
        >>> interpn(grid, np.array([[0.0, 1.0], [2.0, 3.0]]), np.array([0.5, 0.5])).tolist()
        [1.5]
    """
    rgi = _scipy_interpolate().RegularGridInterpolator
    if not holds_tracer(values):
        return rgi(points, values, method, bounds_error, fill_value)(xi)

    def theirs(points, values, xi, method, bounds_error, fill_value):
        return rgi(points, values, method, bounds_error, fill_value)(xi)

    args = (points, values, xi, method, bounds_error, fill_value)
    return affine_in_data(
        theirs, "interpn", args, {}, "values", lead=len(points), result="values", query="xi"
    )


def krogh_interpolate(xi: Any, yi: Any, x: Any, der: Any = 0, axis: int = 0) -> Any:
    """``scipy.interpolate.krogh_interpolate`` of traced ``yi``.

    Example:
        >>> import numpy as np
        >>> float(krogh_interpolate(np.arange(3.0), np.array([0.0, 1.0, 4.0]), 1.5))
        2.25
    """
    args = (xi, yi, x, der, axis)
    theirs = _scipy_interpolate().krogh_interpolate
    if not holds_tracer(yi):
        return theirs(*args)
    return affine_in_data(theirs, "krogh_interpolate", args, {}, "yi", "axis", result="values")


def barycentric_interpolate(
    xi: Any, yi: Any, x: Any, axis: int = 0, *, der: Any = 0, rng: Any = None
) -> Any:
    """``scipy.interpolate.barycentric_interpolate`` of traced ``yi``.

    Example:
        >>> import numpy as np
        >>> y = np.array([0.0, 1.0, 4.0])
        >>> round(float(barycentric_interpolate(np.arange(3.0), y, 1.5)), 12)
        2.25
    """
    kwargs = {"der": der, "rng": rng}
    theirs = _scipy_interpolate().barycentric_interpolate
    if not holds_tracer(yi):
        return theirs(xi, yi, x, axis, **kwargs)
    return affine_in_data(
        theirs, "barycentric_interpolate", (xi, yi, x, axis), kwargs, "yi", "axis", result="values"
    )


def lagrange(x: Any, w: Any) -> Any:
    """``scipy.interpolate.lagrange`` of traced ``w`` (or ``x``): the interpolating
    :class:`numpy.poly1d`, by SciPy's sums of products in SciPy's order.  SciPy builds each
    term as ``poly1d(w[j])``, which drops a ``w[j]`` that is exactly 0 (its derivative with
    it: a zero gradient for ``y[0] = sin(0)``); here each term keeps it.  The result is a
    ``poly1d`` that keeps every coefficient (NOTE [poly1d of traced coefficients keeps its
    leading zeros] in ``ftransforms/numpy/polynomials.py``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> x = np.array([0.0, 0.5, 1.0])
        >>> w = np.array([0.0, 1.0, 0.0])  # w[0] == 0 keeps its derivative
        >>> ft.grad(lambda w: lagrange(x, w)(0.25))(w).round(12).tolist()
        [0.375, 0.75, -0.125]
    """
    if not (holds_tracer(w) or holds_tracer(x)):
        return _scipy_interpolate().lagrange(x, w)
    x, w = fnp.asarray(x), fnp.asarray(w)
    m = len(x)
    total = fnp.zeros((1,), dtype=fnp.result_type(x, w, 1.0))
    for j in range(m):
        term = fnp.reshape(w[j], (1,))
        for k in range(m):
            if k != j:
                term = fnp.convolve(term, fnp.stack([fnp.ones_like(x[k]), -x[k]]) / (x[j] - x[k]))
        pad = fnp.shape(term)[0] - fnp.shape(total)[0]
        total = fnp.concatenate([fnp.zeros((pad,), dtype=total.dtype), total]) + term
    return numpy.poly1d(total)
