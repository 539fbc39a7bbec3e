"""``scipy.signal.savgol_filter``/``savgol_coeffs`` on tracers (re-exported by
``ftransforms.scipy.signal``).  The coefficients depend only on the settings (computed
on the host in float64); the filter is linear in the data: a convolution along
``axis`` (``ftransforms.scipy.ndimage.convolve1d``), and for ``mode='interp'`` the
polynomial fits of the edge windows, each a fixed matrix applied to the window.

Example:
    >>> import numpy as np
    >>> from ftransforms.scipy.signal import savgol_filter
    >>> (savgol_filter(np.array([0.0, 1.0, 4.0, 9.0, 16.0]), 3, 2).round(12) + 0.0).tolist()
    [0.0, 1.0, 4.0, 9.0, 16.0]
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.numpy.helpers import dtype_of, normalize_axis
from ftransforms.scipy.ndimage import convolve1d

__all__ = ["savgol_coeffs", "savgol_filter"]


def _settings(window_length: Any, polyorder: Any, deriv: Any, where: str) -> tuple[int, int, int]:
    wl, po, d = (operator.index(v) for v in (window_length, polyorder, deriv))
    if wl < 1:
        raise ValueError(f"{where}: window_length must be positive, got {wl}")
    if po >= wl:
        raise ValueError(f"{where}: polyorder must be less than window_length, got {po} >= {wl}")
    if d < 0:
        raise ValueError(f"{where}: deriv must be nonnegative, got {d}")
    return wl, po, d


def _coeffs(wl: int, po: int, d: int, delta: float, pos: Any, use: str) -> numpy.ndarray:
    half, rem = divmod(wl, 2)
    if pos is None:
        pos = half if rem else half - 0.5
    if not 0 <= pos < wl:
        raise ValueError(f"savgol_coeffs: pos must be nonnegative and less than {wl}, got {pos}")
    if use not in ("conv", "dot"):
        raise ValueError(f"savgol_coeffs: use must be 'conv' or 'dot', got {use!r}")
    if d > po:
        return numpy.zeros(wl)
    x = numpy.arange(-pos, wl - pos, dtype=float)
    if use == "conv":
        x = x[::-1]
    a = x ** numpy.arange(po + 1).reshape(-1, 1)
    y = numpy.zeros(po + 1)
    y[d] = math.factorial(d) / delta**d
    return numpy.linalg.lstsq(a, y, rcond=None)[0]


def savgol_coeffs(
    window_length: int,
    polyorder: int,
    deriv: int = 0,
    delta: float = 1.0,
    pos: Any = None,
    use: str = "conv",
    *,
    xp: Any = None,
    device: Any = None,
) -> numpy.ndarray:
    """``scipy.signal.savgol_coeffs``: the filter's coefficients (plain float64: they
    depend on the settings only).

    Example:
        >>> savgol_coeffs(5, 2).round(6).tolist()
        [-0.085714, 0.342857, 0.485714, 0.342857, -0.085714]
    """
    wl, po, d = _settings(window_length, polyorder, deriv, "savgol_coeffs")
    return _coeffs(wl, po, d, float(delta), pos, use)


def _edge_matrix(wl: int, po: int, d: int, delta: float, at: numpy.ndarray) -> numpy.ndarray:
    """``M`` with ``M @ window`` = the ``d``-th derivative, at the positions ``at``, of the
    least-squares polynomial of order ``po`` through the window (positions ``0..wl-1``)."""
    pos = numpy.arange(wl, dtype=float)
    vander = pos[:, None] ** numpy.arange(po + 1)
    fit = numpy.linalg.pinv(vander)  # (po + 1, wl): monomial coefficients
    k = numpy.arange(po + 1)
    scale = numpy.array([math.perm(int(j), d) if j >= d else 0 for j in k], dtype=float)
    powers = numpy.maximum(k - d, 0)
    evaluate = scale * at[:, None] ** powers  # (len(at), po + 1)
    return evaluate @ fit / delta**d


def savgol_filter(
    x: Any,
    window_length: int,
    polyorder: int,
    deriv: int = 0,
    delta: float = 1.0,
    axis: int = -1,
    mode: str = "interp",
    cval: float = 0.0,
) -> Any:
    """``scipy.signal.savgol_filter``: the Savitzky-Golay filter of ``x`` along ``axis``:
    a convolution with :func:`savgol_coeffs` extended past the edges by ``mode``
    ('mirror', 'constant' with ``cval``, 'nearest', 'wrap'), or with ``mode='interp'``
    (default) the edge windows' polynomial fits.  Linear in ``x`` (every transform).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> x = np.array([2.0, 2.0, 5.0, 2.0, 1.0, 0.0, 1.0, 4.0, 9.0])
        >>> savgol_filter(x, 5, 2).round(6).tolist()[:3]
        [1.657143, 3.171429, 3.542857]
        >>> ft.grad(lambda x: savgol_filter(x, 5, 2)[4])(x).round(6).tolist()[2:7]
        [-0.085714, 0.342857, 0.485714, 0.342857, -0.085714]
    """
    where = "savgol_filter(x, window_length, polyorder)"
    if mode not in ("mirror", "constant", "nearest", "interp", "wrap"):
        raise ValueError(
            f"{where}: mode must be 'mirror', 'constant', 'nearest', 'wrap' or 'interp', "
            f"got {mode!r}"
        )
    wl, po, d = _settings(window_length, polyorder, deriv, where)
    x = x if hasattr(x, "dtype") else fnp.asarray(x)
    if dtype_of(x) not in (numpy.float32, numpy.float64) and dtype_of(x).kind != "c":
        x = fnp.astype(x, numpy.float64)  # single or double precision, as SciPy's
    delta = float(delta)
    coeffs = _coeffs(wl, po, d, delta, None, "conv")
    nd = fnp.ndim(x)
    ax = normalize_axis(axis, nd)
    if mode != "interp":
        return fnp.astype(convolve1d(x, coeffs, axis=ax, mode=mode, cval=cval), dtype_of(x))
    n = fnp.shape(x)[ax]
    if wl > n:
        raise ValueError(
            f"{where}: with mode='interp', window_length ({wl}) must be less than or equal "
            f"to the size of x along axis ({n})"
        )
    y = convolve1d(x, coeffs, axis=ax, mode="constant")
    half = wl // 2
    if half == 0:
        return fnp.astype(y, dtype_of(x))
    y = fnp.moveaxis(y, ax, -1)
    xm = fnp.moveaxis(x, ax, -1)
    start = _edge_matrix(wl, po, d, delta, numpy.arange(half, dtype=float))
    stop = _edge_matrix(wl, po, d, delta, numpy.arange(wl - half, wl, dtype=float))
    head = fnp.matmul(xm[..., :wl], fnp.asarray(start.T, like=x))
    tail = fnp.matmul(xm[..., n - wl :], fnp.asarray(stop.T, like=x))
    y = fnp.concatenate([head, y[..., half : n - half], tail], axis=-1)
    return fnp.astype(fnp.moveaxis(y, -1, ax), dtype_of(x))
