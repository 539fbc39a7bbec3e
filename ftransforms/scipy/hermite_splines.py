"""``scipy.interpolate``'s cubic Hermite interpolants whose slopes come from the data:
``PchipInterpolator`` (SciPy's weighted harmonic mean of the neighbouring secants, zero
at a local extremum, and its one-sided three-point ends), ``Akima1DInterpolator``
(``method`` ``'akima'`` or ``'makima'``, SciPy's 1e-9 cutoff of the weights), and
``CubicHermiteSpline`` (slopes given).  The slopes are not affine in ``y``, so they are
computed here with ``ftransforms.numpy`` (every transform differentiates and batches
them, in ``x`` and ``y``); SciPy's constructors given traced data build these (NOTE
[SciPy's interpolators on traced data]).

Example:
    >>> import numpy as np
    >>> x = np.arange(4.0)
    >>> PchipInterpolator(x, np.array([0.0, 1.0, 1.0, 3.0]))(np.array([1.5])).tolist()
    [1.0]
"""

from __future__ import annotations

from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.numpy.helpers import normalize_axis
from ftransforms.scipy.interpolate import PPoly, _float, _hermite_coefficients

__all__ = ["Akima1DInterpolator", "CubicHermiteSpline", "PchipInterpolator"]


class CubicHermiteSpline(PPoly):
    """``scipy.interpolate.CubicHermiteSpline``: the piecewise cubic with values ``y`` and
    slopes ``dydx`` at ``x`` (along ``axis``).

    Example:
        >>> import numpy as np
        >>> x = np.array([0.0, 1.0])
        >>> float(CubicHermiteSpline(x, np.zeros(2), np.array([1.0, 1.0]))(0.5))
        0.0
    """

    def __init__(self, x: Any, y: Any, dydx: Any, axis: int = 0, extrapolate: Any = None) -> None:
        x, y = _float(x), _float(y)
        axis = normalize_axis(axis, fnp.ndim(y))
        y = fnp.moveaxis(y, axis, 0)
        dydx = fnp.moveaxis(_float(dydx), axis, 0)
        if fnp.ndim(x) != 1 or fnp.shape(x)[0] != fnp.shape(y)[0] or fnp.shape(x)[0] < 2:
            raise ValueError(
                f"{type(self).__name__}(x, y): x must be 1-D with at least 2 points, as "
                f"long as y along axis"
            )
        if bool(fnp.any(fnp.diff(x) <= 0)):
            raise ValueError(f"{type(self).__name__}(x, y): x must be strictly increasing")
        super().__init__(_hermite_coefficients(x, y, dydx), x, extrapolate)
        self.axis = axis

    def __call__(self, x: Any, nu: int = 0, extrapolate: Any = None) -> Any:
        out = super().__call__(x, nu, extrapolate)
        if self.axis == 0:
            return out
        nq = fnp.ndim(x) if hasattr(x, "shape") else numpy.ndim(x)
        return fnp.moveaxis(out, list(range(nq)), list(range(self.axis, self.axis + nq)))


def _column(x: Any, like: Any) -> Any:
    return fnp.reshape(x, (fnp.shape(x)[0],) + (1,) * (fnp.ndim(like) - 1))


def _pchip_edge(h0: Any, h1: Any, m0: Any, m1: Any) -> Any:
    d = ((2 * h0 + h1) * m0 - h0 * m1) / (h0 + h1)
    flat = fnp.sign(d) != fnp.sign(m0)
    steep = (fnp.sign(m0) != fnp.sign(m1)) & (fnp.abs(d) > 3.0 * fnp.abs(m0))
    return fnp.where(flat, 0.0, fnp.where(steep, 3.0 * m0, d))


def _pchip_slopes(x: Any, y: Any) -> Any:
    hk = fnp.diff(_column(x, y), axis=0)
    mk = fnp.diff(y, axis=0) / hk
    if fnp.shape(y)[0] == 2:
        return fnp.concatenate([mk, mk], axis=0)
    smk = fnp.sign(mk)
    flat = (smk[1:] != smk[:-1]) | (mk[1:] == 0) | (mk[:-1] == 0)
    w1 = 2 * hk[1:] + hk[:-1]
    w2 = hk[1:] + 2 * hk[:-1]
    whmean = (w1 / fnp.where(flat, 1.0, mk[:-1]) + w2 / fnp.where(flat, 1.0, mk[1:])) / (w1 + w2)
    inner = fnp.where(flat, 0.0, 1.0 / fnp.where(flat, 1.0, whmean))
    first = _pchip_edge(hk[0], hk[1], mk[0], mk[1])
    last = _pchip_edge(hk[-1], hk[-2], mk[-1], mk[-2])
    return fnp.concatenate([first[None], inner, last[None]], axis=0)


class PchipInterpolator(CubicHermiteSpline):
    """``scipy.interpolate.PchipInterpolator``: the monotone piecewise cubic Hermite
    interpolant of ``y`` (along ``axis``), with SciPy's slopes (module docstring).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> x = np.arange(4.0)
        >>> g = ft.grad(lambda y: PchipInterpolator(x, y)(1.5))(np.array([0.0, 1.0, 2.0, 3.0]))
        >>> np.round(g, 6).tolist()  # (the slopes depend on the data too)
        [-0.0625, 0.5625, 0.5625, -0.0625]
    """

    def __init__(self, x: Any, y: Any, axis: int = 0, extrapolate: Any = None) -> None:
        y = _float(y)
        axis = normalize_axis(axis, fnp.ndim(y))
        moved = fnp.moveaxis(y, axis, 0)
        slopes = fnp.moveaxis(_pchip_slopes(_float(x), moved), 0, axis)
        super().__init__(x, y, slopes, axis, extrapolate)


def _akima_slopes(x: Any, y: Any, method: str) -> Any:
    dx = fnp.diff(_column(x, y), axis=0)
    mid = fnp.diff(y, axis=0) / dx
    if fnp.shape(y)[0] == 2:
        return fnp.concatenate([mid, mid], axis=0)
    m1 = 2.0 * mid[0] - mid[1]
    m0 = 2.0 * m1 - mid[0]
    r1 = 2.0 * mid[-1] - mid[-2]
    r2 = 2.0 * r1 - mid[-1]
    m = fnp.concatenate([m0[None], m1[None], mid, r1[None], r2[None]], axis=0)
    n = fnp.shape(y)[0]
    t = 0.5 * (m[3:] + m[:-3])
    dm = fnp.abs(fnp.diff(m, axis=0))
    f1, f2 = dm[2:], dm[:-2]
    if method == "makima":
        pm = fnp.abs(m[1:] + m[:-1])
        f1, f2 = f1 + 0.5 * pm[2:], f2 + 0.5 * pm[:-2]
    f12 = f1 + f2
    defined = f12 > 1e-9 * fnp.max(f12)
    weighted = m[1 : n + 1] + f2 / fnp.where(defined, f12, 1.0) * (m[2 : n + 2] - m[1 : n + 1])
    return fnp.where(defined, weighted, t)


class Akima1DInterpolator(CubicHermiteSpline):
    """``scipy.interpolate.Akima1DInterpolator``: Akima's (or ``method='makima'``, the
    modified) piecewise cubic of ``y`` along ``axis``, with SciPy's slopes; no
    extrapolation by default, as SciPy's.

    Example:
        >>> import numpy as np
        >>> x = np.arange(5.0)
        >>> float(Akima1DInterpolator(x, 2 * x)(2.5))  # exact on a line
        5.0
    """

    def __init__(
        self, x: Any, y: Any, axis: int = 0, *, method: str = "akima", extrapolate: Any = None
    ) -> None:
        if method not in ("akima", "makima"):
            raise NotImplementedError(f"Akima1DInterpolator: `method`={method} is unsupported.")
        y = _float(y)
        axis = normalize_axis(axis, fnp.ndim(y))
        moved = fnp.moveaxis(y, axis, 0)
        slopes = fnp.moveaxis(_akima_slopes(_float(x), moved, method), 0, axis)
        super().__init__(x, y, slopes, axis, False if extrapolate is None else extrapolate)
