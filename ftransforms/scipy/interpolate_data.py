"""SciPy's interpolators built from traced data values.

NOTE [SciPy's interpolators on traced data]: with the nodes fixed, SciPy's interpolants
are affine in the data values: ``interp1d`` of every kind, ``CubicSpline`` and
``make_interp_spline`` (boundary derivatives given as numbers included), ``splrep`` with
``s=0``, ``InterpolatedUnivariateSpline`` (and ``UnivariateSpline`` with ``s=0``),
``make_lsq_spline``, ``make_smoothing_spline`` with a given ``lam``, ``BarycentricInterpolator``,
``KroghInterpolator``, ``RegularGridInterpolator``/``interpn`` (``linear``,
``nearest``, ``slinear``: SciPy fits the others by iterative solves or not affinely),
``griddata``, ``LinearNDInterpolator``, ``NearestNDInterpolator``,
``CloughTocher2DInterpolator`` and ``RBFInterpolator``.  So, when the data ``y`` (``N``
values along the interpolation axis, or on the grid) is traced, SciPy's own interpolator
is built once on plain data, ``N + 1`` columns: zeros, then the identity, and
everything it answers, ``f``, is mapped back by ``f(y) = f(0) + sum_i y_i (f(e_i) -
f(0))``, a contraction that every transform differentiates and batches.  The values are
SciPy's (the fill values, the spline's boundary conditions and kind are SciPy's own), at
the cost of ``N + 1`` interpolations instead of one (so at most :data:`MAX_DATA` values;
Clough-Tocher's, ``griddata(..., method='cubic')``, to the tolerance of its iterated
gradients, ``tol=1e-6``).  What comes back is a
:class:`DataInterpolant` in place of SciPy's instance: calling it, ``derivative``,
``antiderivative``, ``integrate`` and the coefficients ``c`` are answered this way (its
query points may be traced where SciPy's instance answers traced points: NOTE [SciPy's
own names under the transforms]); a method that is not affine in the data (``roots``)
raises.  Traced nodes are not affine: ``CubicSpline``/``interp1d``/
``RegularGridInterpolator`` then use ``ftransforms.scipy.interpolate``'s own classes,
the others raise.  ``PchipInterpolator``, ``Akima1DInterpolator`` (and
``CubicHermiteSpline``) are not affine either: they are always built by
``ftransforms.scipy.hermite_splines``, which computes SciPy's slopes.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.mutation import Buffer
from ftransforms.numpy.helpers import holds_traced_value, normalize_axis

__all__ = ["DataInterpolant", "affine_in_data", "basis_columns", "traced"]


def traced(value: Any) -> bool:
    """Whether ``value`` holds a tracer other than a plain array made inside the
    transformed function (a buffer: ``np.linspace`` in the function is still constant).

    Example:
        >>> import numpy as np
        >>> traced(np.ones(2)), traced([1.0, 2.0])
        (False, False)
    """
    return holds_traced_value(value)


#: The most data values read through basis columns (their ``N * (N + 1)`` numbers).
MAX_DATA = 2048

#: The methods of SciPy's interpolants whose answers are affine in the data.
AFFINE_METHODS = ("__call__", "derivative", "antiderivative", "integrate", "partial_derivative")


def basis_columns(lead_shape: tuple) -> numpy.ndarray:
    """Data of shape ``lead_shape + (N + 1,)``: zeros, then the ``N`` unit vectors.

    Example:
        >>> basis_columns((2,)).tolist()
        [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """
    n = math.prod(lead_shape)
    cols = numpy.concatenate([numpy.zeros((n, 1)), numpy.eye(n)], axis=1)
    return cols.reshape(tuple(lead_shape) + (n + 1,))


class DataInterpolant:
    """SciPy's interpolant ``basis`` (built on :func:`basis_columns`) read as the
    interpolant of the traced data ``y`` (NOTE [SciPy's interpolators on traced data]).

    Example:
        >>> import numpy as np
        >>> import scipy.interpolate
        >>> x = np.arange(4.0)
        >>> basis = scipy.interpolate.make_interp_spline(x, basis_columns((4,)))
        >>> f = DataInterpolant(basis, x**2, axis=0, lead=1, name="make_interp_spline")
        >>> float(f(1.5))  # a cubic spline reproduces the parabola
        2.25
    """

    def __init__(self, basis: Any, y: Any, axis: int, lead: int, name: str) -> None:
        y = fnp.asarray(y)
        moved = fnp.moveaxis(y, axis, 0) if lead == 1 else y
        self._rest = tuple(fnp.shape(moved)[lead:])
        n = math.prod(fnp.shape(moved)[:lead])
        self._y = fnp.reshape(moved, (n, math.prod(self._rest)))
        self._basis, self._axis, self._lead, self._name = basis, axis, lead, name
        self._data = y

    def _contract(self, out: Any, move: bool) -> Any:
        f0 = out[..., :1]
        value = f0 + fnp.matmul(out[..., 1:] - f0, self._y)
        nq = fnp.ndim(value) - 1
        value = fnp.reshape(value, tuple(fnp.shape(value)[:-1]) + self._rest)
        if move and self._axis and nq:
            value = fnp.moveaxis(value, list(range(nq)), list(range(self._axis, self._axis + nq)))
        return value

    def _answer(self, out: Any) -> Any:
        if hasattr(out, "shape") and not callable(out):
            return self._contract(out, move=True)
        if isinstance(out, tuple):
            return tuple(self._answer(o) for o in out)
        return DataInterpolant(out, self._data, self._axis, self._lead, self._name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._answer(self._basis(*args, **kwargs))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        theirs = getattr(self._basis, name)
        if name in ("c", "coeffs"):
            return self._contract(theirs, move=False)
        if name in ("y", "yi", "values", "d"):
            return self._data
        if callable(theirs):
            if name not in AFFINE_METHODS:
                raise UnsupportedOperationError(
                    f"{self._name}(...).{name}: with traced data only the answers affine in "
                    f"the data ({', '.join(AFFINE_METHODS)}) are available (NOTE [SciPy's "
                    f"interpolators on traced data])"
                )
            return lambda *a, **k: self._answer(theirs(*a, **k))
        return theirs

    def __repr__(self) -> str:
        return f"<{self._name} of traced data ({type(self._basis).__name__} on a basis)>"


def affine_in_data(
    theirs: Callable,
    name: str,
    args: tuple,
    kwargs: dict,
    data: str,
    axis: str | None = None,
    lead: int | Callable | None = 1,
    result: str = "interpolant",
    init: bool = False,
    query: str | None = None,
) -> Any:
    """``theirs(*args, **kwargs)`` (a SciPy constructor or function) with its traced
    ``data`` argument replaced by :func:`basis_columns` and the answer read back
    (NOTE [SciPy's interpolators on traced data]).  ``axis`` names the parameter that
    places the interpolation axis, ``lead`` counts the data's leading interpolation
    dimensions (a function of the bound arguments for grids), ``result`` is
    ``"interpolant"`` (a :class:`DataInterpolant`) or ``"values"`` (the interpolated
    values, the functions ``griddata``/``interpn``); ``init``: ``theirs`` is a class,
    bound by its ``__init__``'s signature; ``query`` names a parameter that may be
    traced too (the points, when ``theirs`` answers traced points).

    Example:
        >>> import numpy as np
        >>> import scipy.interpolate
        >>> x = np.arange(3.0)
        >>> f = affine_in_data(scipy.interpolate.interp1d, "interp1d", (x, 2 * x), {}, "y",
        ...                    axis="axis")
        >>> float(f(0.5))
        1.0
    """
    init = init or isinstance(theirs, type)
    if init:  # (the class's own signature would be its patched __new__'s)
        bound = inspect.signature(theirs.__init__).bind(None, *args, **kwargs)
    else:
        bound = inspect.signature(theirs).bind(*args, **kwargs)
    values = bound.arguments  # (no defaults filled: some would conflict, rng/random_state)
    values.pop("self", None)
    params = inspect.signature(theirs.__init__ if init else theirs).parameters
    for name_ in (axis, query):
        if name_ is not None and name_ not in values:
            values[name_] = params[name_].default
    others = [k for k, v in values.items() if k not in (data, query) and traced(v)]
    if others:
        raise UnsupportedOperationError(
            f"scipy.interpolate.{name}: only the data values ({data}) may be traced here, "
            f"not {', '.join(others)} (NOTE [SciPy's interpolators on traced data]); the "
            f"nodes of ftransforms.scipy.interpolate.CubicSpline and interp1d may be traced"
        )
    y = fnp.asarray(values[data])
    for k in values:
        if k != data:
            values[k] = _plain(values[k])
    nd = fnp.ndim(y)
    if callable(lead):
        n_lead = lead(values)
    else:
        n_lead = lead
    if axis is not None:
        ax = normalize_axis(values[axis], nd)
        values[axis] = 0
        moved_shape = (fnp.shape(y)[ax],)
    else:
        ax = 0
        moved_shape = tuple(fnp.shape(y)[:n_lead])
    if math.prod(moved_shape) > MAX_DATA:
        raise UnsupportedOperationError(
            f"scipy.interpolate.{name}: {math.prod(moved_shape)} traced data values; this "
            f"path builds SciPy's interpolant on one basis column per value (N**2 numbers) "
            f"and takes at most {MAX_DATA}: use ftransforms.scipy.interpolate's CubicSpline, "
            f"interp1d or RegularGridInterpolator, or numpy.interp (NOTE [SciPy's "
            f"interpolators on traced data])"
        )
    values[data] = basis_columns(moved_shape)
    if "bc_type" in values:  # boundary derivatives given as numbers: one per basis column
        values["bc_type"] = _bc_per_column(values["bc_type"], math.prod(moved_shape) + 1)
    basis = theirs(**values)
    lead_n = 1 if axis is not None else n_lead
    answer = DataInterpolant(
        None if result == "values" else basis, y, ax if axis is not None else 0, lead_n, name
    )
    if result == "values":
        return answer._contract(basis, move=True)
    return answer


def _plain(value: Any) -> Any:
    """``value`` with the buffers in it as the plain arrays they hold (SciPy's own
    constructor then sees no tracer)."""
    if type(value) is Buffer:
        return numpy.asarray(value)
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(_plain(v) for v in value)
    return value


def _bc_per_column(bc: Any, columns: int) -> Any:
    """SciPy's ``bc_type`` with each boundary derivative value repeated for the basis
    columns (``((1, 0.5), (2, 0.0))``, ``([(1, 0.5)], [(2, 0.0)])``)."""
    if isinstance(bc, (str, type(None))):
        return bc
    if isinstance(bc, tuple) and len(bc) == 2 and isinstance(bc[0], (int, numpy.integer)):
        order, value = bc
        if numpy.ndim(value) != 0:
            raise UnsupportedOperationError(
                f"scipy.interpolate: with traced data, the boundary derivative values in "
                f"bc_type must be numbers, got {value!r}"
            )
        return (order, numpy.full(columns, float(value)))
    return type(bc)(_bc_per_column(b, columns) for b in bc)


def _grid_lead(values: dict) -> int:
    return len(values["points"])


#: SciPy's interpolator classes answered here when built from traced data: the data
#: parameter, the axis parameter, the data's leading interpolation dimensions, and the
#: parameters whose tracing sends the call to ftransforms.scipy.interpolate's own class.
CONSTRUCTORS: dict[str, tuple] = {
    "CubicSpline": ("y", "axis", 1, ("x",)),
    "interp1d": ("y", "axis", 1, ("x",)),
    "RegularGridInterpolator": ("values", None, _grid_lead, ("points",)),
    "BarycentricInterpolator": ("yi", "axis", 1, ()),
    "KroghInterpolator": ("yi", "axis", 1, ()),
    "RBFInterpolator": ("d", None, 1, ()),
    "LinearNDInterpolator": ("values", None, 1, ()),
    "NearestNDInterpolator": ("y", None, 1, ()),
    "CloughTocher2DInterpolator": ("values", None, 1, ()),
    "PchipInterpolator": ("y", "axis", 1, None),  # None: always ftransforms' own class
    "Akima1DInterpolator": ("y", "axis", 1, None),
    "CubicHermiteSpline": ("y", "axis", 1, None),
    "InterpolatedUnivariateSpline": ("y", None, 1, None),  # (fitpack_data.py)
    "LSQUnivariateSpline": ("y", None, 1, None),
    "UnivariateSpline": ("y", None, 1, None),
}


def construct(name: str, cls: type, args: tuple, kwargs: dict, ours: tuple) -> Any:
    """SciPy's ``cls(*args, **kwargs)`` (one of :data:`CONSTRUCTORS`) with traced
    arguments: a :class:`DataInterpolant`, or the class of that name in the modules
    ``ours`` (NOTE [SciPy's interpolators on traced data])."""
    data, axis, lead, own = CONSTRUCTORS[name]
    values = inspect.signature(cls.__init__).bind(None, *args, **kwargs).arguments
    if name == "RegularGridInterpolator" and values.get("method") in ("cubic", "quintic", "pchip"):
        raise UnsupportedOperationError(
            f"scipy.interpolate.RegularGridInterpolator(points, values, method="
            f"{values['method']!r}): with traced values only the methods 'linear', "
            f"'nearest' and 'slinear' are available (SciPy's cubic and quintic fits are "
            f"iterative solves, pchip is not affine in the data)"
        )
    periodic = name == "CubicSpline" and values.get("bc_type") == "periodic"
    if own is None or any(traced(values[k]) for k in own) or periodic:
        values.pop("self", None)  # (the basis columns cannot be periodic data)
        return getattr(next(m for m in ours if hasattr(m, name)), name)(**values)
    return affine_in_data(cls, name, args, kwargs, data, axis, lead, init=True)
