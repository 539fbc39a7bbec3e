"""SciPy's FITPACK interfaces with traced data: ``splrep`` (interpolating, ``s=0``, or
least squares on given knots ``t``), ``splev`` (traced coefficients and/or points), and
the classes ``InterpolatedUnivariateSpline`` and ``LSQUnivariateSpline``.

FITPACK fits one 1-D data vector per call, so the basis columns of NOTE [SciPy's
interpolators on traced data] are fitted one by one (``N + 1`` calls, ``N`` at most
``MAX_DATA``) and the answers are stacked; the data enter by the same affine
contraction.  ``splev`` is the B-spline sum ``sum_j c_j B_j(x)``: the basis ``B_j`` at
the (possibly traced) points by SciPy's ``BSpline`` of the identity, contracted with
the (possibly traced) coefficients.  Smoothing fits whose knots FITPACK chooses from
the data (``s > 0`` without ``t``, ``UnivariateSpline``) are not affine in the data and
raise.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> x = np.linspace(0.0, 3.0, 6)
    >>> w = ft.grad(lambda y: splev(1.2, splrep(x, y)))(np.zeros(6))
    >>> (w.round(6) + 0.0).tolist()  # 1.2 is the third node: its value alone
    [0.0, 0.0, 1.0, 0.0, 0.0, 0.0]
"""

from __future__ import annotations

from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.scipy.interpolate_data import MAX_DATA, DataInterpolant, basis_columns, traced
from ftransforms.scipy.roots import _host

__all__ = [
    "InterpolatedUnivariateSpline",
    "LSQUnivariateSpline",
    "UnivariateSpline",
    "splev",
    "splint",
    "splrep",
]


def _theirs(name: str) -> Any:
    import scipy.interpolate  # noqa: PLC0415  late import: SciPy is optional

    fn = getattr(scipy.interpolate, name)
    return getattr(fn, "__wrapped__", fn)  # SciPy's own, not the wrapper that sent it here


def _columns(n: int, where: str) -> numpy.ndarray:
    if n > MAX_DATA:
        raise UnsupportedOperationError(
            f"{where}: {n} traced data values; the fit is made once per basis column and "
            f"takes at most {MAX_DATA} (NOTE [SciPy's interpolators on traced data])"
        )
    return basis_columns((n,))


def _plain(value: Any) -> Any:
    return value if value is None or isinstance(value, (int, float)) else _host(value)


class _Stacked:
    """SciPy's fits of the basis columns answering as one: each answer stacked on a last
    axis (read by :class:`DataInterpolant`)."""

    def __init__(self, fits: list) -> None:
        self._fits = fits

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._answer("__call__", args, kwargs)

    def _answer(self, name: str, args: tuple, kwargs: dict) -> Any:
        outs = [getattr(f, name)(*args, **kwargs) for f in self._fits]
        if hasattr(outs[0], "_eval_args") or callable(outs[0]):  # a spline: stack lazily
            return _Stacked(outs)
        return numpy.stack([numpy.asarray(o) for o in outs], axis=-1)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        theirs = getattr(self._fits[0], name)
        if not callable(theirs):
            return theirs
        return lambda *a, **k: self._answer(name, a, k)


#: UnivariateSpline's answers that are affine in the data (beyond DataInterpolant's).
_SPLINE_METHODS = ("__call__", "derivative", "antiderivative", "integral", "derivatives")


class _SplineOfData(DataInterpolant):
    def __getattr__(self, name: str) -> Any:
        if name == "get_coeffs":
            return lambda: self._contract(self._basis.get_coeffs(), move=False)
        if name in _SPLINE_METHODS:
            theirs = getattr(self._basis, name)
            return lambda *a, **k: self._answer(theirs(*a, **k))
        return super().__getattr__(name)

    def _answer(self, out: Any) -> Any:
        if isinstance(out, _Stacked):
            return _SplineOfData(out, self._data, self._axis, self._lead, self._name)
        return super()._answer(out)


def _fitted(name: str, make: Any, x: Any, y: Any) -> Any:
    if traced(x):
        raise UnsupportedOperationError(
            f"scipy.interpolate.{name}: only the data values y may be traced here, not x "
            f"(NOTE [SciPy's interpolators on traced data])"
        )
    y = fnp.asarray(y)
    if fnp.ndim(y) != 1:
        raise ValueError(f"scipy.interpolate.{name}: y must be 1-D")
    cols = _columns(fnp.shape(y)[0], f"scipy.interpolate.{name}")
    fits = [make(_host(x), cols[:, j]) for j in range(cols.shape[1])]
    return _SplineOfData(_Stacked(fits), y, 0, 1, name)


def InterpolatedUnivariateSpline(  # noqa: N802  (SciPy's class name)
    x: Any,
    y: Any,
    w: Any = None,
    bbox: Any = (None, None),
    k: int = 3,
    ext: Any = 0,
    check_finite: bool = False,
) -> Any:
    """``scipy.interpolate.InterpolatedUnivariateSpline`` of traced ``y``: calls,
    ``derivatives``, ``derivative``, ``antiderivative``, ``integral`` and
    ``get_coeffs`` read through the data.

    Example:
        >>> import numpy as np
        >>> x = np.arange(5.0)
        >>> round(float(InterpolatedUnivariateSpline(x, x**2)(2.5)), 12)
        6.25
    """
    cls = _theirs("InterpolatedUnivariateSpline")

    def make(xp: Any, col: Any) -> Any:
        return cls(xp, col, w=_plain(w), bbox=list(bbox), k=k, ext=ext, check_finite=check_finite)

    return _fitted("InterpolatedUnivariateSpline", make, x, y)


def UnivariateSpline(  # noqa: N802  (SciPy's class name)
    x: Any,
    y: Any,
    w: Any = None,
    bbox: Any = (None, None),
    k: int = 3,
    s: Any = None,
    ext: Any = 0,
    check_finite: bool = False,
) -> Any:
    """``scipy.interpolate.UnivariateSpline`` of traced ``y`` with ``s=0`` (SciPy's
    interpolating spline, read through the data as :func:`InterpolatedUnivariateSpline`).
    A smoothing fit (``s > 0``, or SciPy's default ``s=None``, which is ``len(x)``) has
    knots FITPACK chooses from the data and a smoothing factor solved from them: it is
    not affine in ``y`` and raises :class:`UnsupportedOperationError`.

    Example:
        >>> import numpy as np
        >>> x = np.arange(5.0)
        >>> round(float(UnivariateSpline(x, x**2, s=0)(2.5)), 12)
        6.25
    """
    cls = _theirs("UnivariateSpline")
    if not traced(y) and not traced(x):
        return cls(x, y, w=w, bbox=bbox, k=k, s=s, ext=ext, check_finite=check_finite)
    if s is None or not isinstance(s, (int, float)) or s != 0:
        raise UnsupportedOperationError(
            f"scipy.interpolate.UnivariateSpline(x, y, s={s!r}) with traced y: a smoothing "
            "fit (s > 0; s=None means s=len(x)) takes its knots and smoothing factor from "
            "the data, so it is not affine in y; use s=0 (the interpolating spline), "
            "LSQUnivariateSpline(x, y, t) on chosen knots, or "
            "make_smoothing_spline(x, y, lam=...) with a fixed lam"
        )

    def make(xp: Any, col: Any) -> Any:
        return cls(xp, col, w=_plain(w), bbox=list(bbox), k=k, s=0, ext=ext,
                   check_finite=check_finite)  # fmt: skip

    return _fitted("UnivariateSpline", make, x, y)


def LSQUnivariateSpline(  # noqa: N802  (SciPy's class name)
    x: Any,
    y: Any,
    t: Any,
    w: Any = None,
    bbox: Any = (None, None),
    k: int = 3,
    ext: Any = 0,
    check_finite: bool = False,
) -> Any:
    """``scipy.interpolate.LSQUnivariateSpline`` of traced ``y`` (least squares on the
    interior knots ``t``), read through the data as
    :func:`InterpolatedUnivariateSpline`.

    Example:
        >>> import numpy as np
        >>> x = np.linspace(0.0, 4.0, 9)
        >>> round(float(LSQUnivariateSpline(x, x**2, [2.0])(1.5)), 12)
        2.25
    """
    cls = _theirs("LSQUnivariateSpline")

    def make(xp: Any, col: Any) -> Any:
        return cls(xp, col, _plain(t), w=_plain(w), bbox=list(bbox), k=k, ext=ext,
                   check_finite=check_finite)  # fmt: skip

    return _fitted("LSQUnivariateSpline", make, x, y)


def splrep(
    x: Any,
    y: Any,
    w: Any = None,
    xb: Any = None,
    xe: Any = None,
    k: int = 3,
    task: int = 0,
    s: Any = None,
    t: Any = None,
    full_output: int = 0,
    per: int = 0,
    quiet: int = 1,
) -> Any:
    """``scipy.interpolate.splrep`` of traced ``y``: ``(t, c, k)`` with ``c`` traced,
    for the interpolating fit (``s=0``, the default without weights) or least squares on
    given knots ``t``.

    Example:
        >>> import numpy as np
        >>> t, c, k = splrep(np.arange(5.0), np.arange(5.0) ** 2)
        >>> float(splev(2.5, (t, c, k)))
        6.25
    """
    theirs = _theirs("splrep")
    args = (w, xb, xe, k, task, s, t, full_output, per, quiet)
    if not traced(y):
        return theirs(x, y, *args)
    smoothing = (s is None and w is not None) or (s is not None and s != 0)
    if (smoothing and t is None) or task != 0 or full_output:
        raise UnsupportedOperationError(
            "scipy.interpolate.splrep(x, y) with traced y: only the interpolating fit "
            "(s=0) or least squares on given knots t is affine in y (FITPACK chooses a "
            "smoothing fit's knots from the data); full_output and task are not available"
        )
    if traced(x):
        raise UnsupportedOperationError("scipy.interpolate.splrep: x may not be traced here")
    y = fnp.asarray(y)
    cols = _columns(fnp.shape(y)[0], "scipy.interpolate.splrep")
    plain = (_plain(w), xb, xe, k, 0, s, _plain(t), 0, per, quiet)
    fits = [theirs(_host(x), cols[:, j], *plain) for j in range(cols.shape[1])]
    coeffs = numpy.stack([f[1] for f in fits], axis=-1)  # (nc, N + 1)
    f0 = coeffs[:, :1]
    c = f0[:, 0] + fnp.matmul(coeffs[:, 1:] - f0, y)
    return fits[0][0], c, fits[0][2]


def splev(x: Any, tck: Any, der: int = 0, ext: int = 0) -> Any:
    """``scipy.interpolate.splev`` with traced coefficients and/or points: the B-spline
    sum of SciPy's basis, differentiable in both (``ext`` 0 extrapolates, 1 gives 0
    outside, 2 raises, 3 holds the boundary value).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> tck = splrep(np.arange(5.0), np.arange(5.0) ** 2)
        >>> round(float(ft.grad(lambda x: splev(x, tck))(1.5)), 10)  # d/dx x**2
        3.0
    """
    if not isinstance(tck, tuple) or len(tck) != 3:
        if callable(tck):  # a BSpline: SciPy calls it
            return tck(x, der) if ext == 0 else _theirs("splev")(x, tck, der, ext)
        raise TypeError("splev(x, tck): tck must be a tuple (t, c, k)")
    t, c, k = tck
    t = numpy.asarray(_plain(t), dtype=float)
    k = int(k)
    nb = t.shape[0] - k - 1
    c = fnp.asarray(c)
    if fnp.ndim(c) != 1:
        raise UnsupportedOperationError(
            "splev(x, tck): only 1-D coefficients (no parametric splines)"
        )
    x = fnp.asarray(x, dtype=float)
    lo, hi = float(t[k]), float(t[nb])
    outside = (x < lo) | (x > hi)
    if ext == 2 and bool(fnp.any(outside)):
        raise ValueError("splev(x, tck, ext=2): x value out of interpolation range")
    if ext == 3:
        x = fnp.clip(x, lo, hi)
    basis = _theirs("BSpline")(t, numpy.eye(nb), k, extrapolate=True)
    values = basis(x, der)  # (..., nb): SciPy's own call answers traced points
    out = fnp.matmul(values, c[:nb])
    if ext == 1:
        out = fnp.where(outside, 0.0, out)
    return out


def splint(a: Any, b: Any, tck: Any, full_output: int = 0) -> Any:
    """``scipy.interpolate.splint``: the integral over ``[a, b]`` of a spline whose
    coefficients may be traced (``splrep`` of traced data): the integrals of SciPy's
    B-spline basis contracted with them.  Traced bounds: :func:`splev` of the
    antiderivative is not SciPy's here; they raise.

    Example:
        >>> import numpy as np
        >>> round(float(splint(0.0, 3.0, splrep(np.arange(5.0), np.arange(5.0) ** 2))), 10)
        9.0
    """
    if traced(a) or traced(b) or full_output:
        raise UnsupportedOperationError(
            "scipy.interpolate.splint(a, b, tck): only the coefficients may be traced here "
            "(not the bounds), without full_output; for traced bounds integrate "
            "make_interp_spline(...).antiderivative() at them"
        )
    if not isinstance(tck, tuple) or len(tck) != 3:
        return _theirs("splint")(a, b, tck, full_output)
    t, c, k = tck
    t = numpy.asarray(_plain(t), dtype=float)
    k = int(k)
    nb = t.shape[0] - k - 1
    c = fnp.asarray(c)
    if fnp.ndim(c) != 1:
        raise UnsupportedOperationError("splint(a, b, tck): only 1-D coefficients")
    theirs = _theirs("splint")
    weights = numpy.array([theirs(a, b, (t, e, k)) for e in numpy.eye(t.shape[0])[:nb]])
    return fnp.matmul(fnp.asarray(weights), c[:nb])
