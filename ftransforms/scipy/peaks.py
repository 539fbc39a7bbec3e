"""``scipy.signal``'s peak finding on traced signals: ``find_peaks``, ``peak_prominences``,
``peak_widths`` and ``argrelextrema``/``argrelmax``/``argrelmin``.

Which samples are peaks (and their bases, the samples where a width's level is
crossed) is decided by comparisons, so SciPy's own code decides it on the signal's
values (read as ``ftransforms.scipy.optimize``'s root finders read theirs: under
``vmap`` each row alone, under ``jit`` eagerly); the index arrays come back as SciPy's.
The properties that are values are then recomputed from the traced signal at those
indices, so they carry derivatives: ``peak_heights = x[peaks]``, the thresholds
``x[peak] - x[peak -/+ 1]``, ``prominences = x[peak] - max(x[left_base],
x[right_base])``, and for widths the level ``x[peak] - rel_height * prominence`` and
the interpolated crossings ``left_ips = i + (level - x[i]) / (x[i + 1] - x[i])`` (and
mirrored on the right), with ``i`` SciPy's crossing sample.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> x = np.array([0.0, 2.0, 0.0, 3.0, 1.0])
    >>> ft.grad(lambda x: x[find_peaks(x)[0]].sum())(x).tolist()
    [0.0, 1.0, 0.0, 1.0, 0.0]
"""

from __future__ import annotations

from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.scipy.roots import _host

__all__ = [
    "argrelextrema",
    "argrelmax",
    "argrelmin",
    "find_peaks",
    "peak_prominences",
    "peak_widths",
]


def _theirs(name: str) -> Any:
    import scipy.signal  # noqa: PLC0415  late import: SciPy is optional

    fn = getattr(scipy.signal, name)
    return getattr(fn, "__wrapped__", fn)  # SciPy's own, not the wrapper that sent it here


def _plain(value: Any) -> Any:
    if value is None or isinstance(value, (int, float, str)):
        return value
    if isinstance(value, (tuple, list)):
        return type(value)(_plain(v) for v in value)
    return _host(value)


def _prominences(x: Any, peaks: numpy.ndarray, left: Any, right: Any) -> Any:
    bases = fnp.maximum(fnp.take(x, numpy.asarray(left)), fnp.take(x, numpy.asarray(right)))
    return fnp.take(x, peaks) - bases


def _widths(x: Any, peaks, prominences, left_ips, right_ips, rel_height) -> tuple:
    """SciPy's widths, recomputed from the traced ``x`` at SciPy's crossing samples."""
    level = fnp.take(x, peaks) - prominences * rel_height
    n = fnp.shape(x)[0]
    li = numpy.floor(left_ips).astype(numpy.intp)
    lf = left_ips > li  # interpolated (the sample at li is below the level)
    li1 = numpy.minimum(li + 1, n - 1)
    xl, xl1 = fnp.take(x, li), fnp.take(x, li1)
    left = li + fnp.where(lf, (level - xl) / fnp.where(lf, xl1 - xl, 1.0), 0.0)
    ri = numpy.ceil(right_ips).astype(numpy.intp)
    rf = right_ips < ri
    ri0 = numpy.maximum(ri - 1, 0)
    xr, xr0 = fnp.take(x, ri), fnp.take(x, ri0)
    right = ri - fnp.where(rf, (level - xr) / fnp.where(rf, xr0 - xr, 1.0), 0.0)
    return right - left, level, left, right


def peak_prominences(x: Any, peaks: Any, wlen: Any = None) -> tuple:
    """``scipy.signal.peak_prominences``: ``(prominences, left_bases, right_bases)``,
    the prominences differentiable in ``x``.

    Example:
        >>> import numpy as np
        >>> x = np.array([0.0, 2.0, 1.0, 3.0, 0.0])
        >>> peak_prominences(x, np.array([1, 3]))[0].tolist()
        [1.0, 3.0]
    """
    x = fnp.asarray(x)
    peaks = numpy.asarray(_plain(peaks), dtype=numpy.intp)
    _, left, right = _theirs("peak_prominences")(_host(x), peaks, wlen=_plain(wlen))
    return _prominences(x, peaks, left, right), left, right


def peak_widths(
    x: Any, peaks: Any, rel_height: float = 0.5, prominence_data: Any = None, wlen: Any = None
) -> tuple:
    """``scipy.signal.peak_widths``: ``(widths, width_heights, left_ips, right_ips)``,
    differentiable in ``x`` (and in traced ``prominence_data``).

    Example:
        >>> import numpy as np
        >>> x = np.array([0.0, 1.0, 2.0, 1.0, 0.0])
        >>> peak_widths(x, np.array([2]))[0].tolist()  # at half the prominence
        [2.0]
    """
    x = fnp.asarray(x)
    peaks = numpy.asarray(_plain(peaks), dtype=numpy.intp)
    plain_data = None if prominence_data is None else _plain(tuple(prominence_data))
    _, _, left_ips, right_ips = _theirs("peak_widths")(
        _host(x), peaks, rel_height=float(rel_height), prominence_data=plain_data, wlen=_plain(wlen)
    )
    if prominence_data is None:
        prominences = peak_prominences(x, peaks, wlen)[0]
    else:
        prominences = fnp.asarray(prominence_data[0])
    return _widths(x, peaks, prominences, left_ips, right_ips, rel_height)


def find_peaks(
    x: Any,
    height: Any = None,
    threshold: Any = None,
    distance: Any = None,
    prominence: Any = None,
    width: Any = None,
    wlen: Any = None,
    rel_height: float = 0.5,
    plateau_size: Any = None,
) -> tuple:
    """``scipy.signal.find_peaks``: SciPy's ``(peaks, properties)``, the peaks chosen on
    the values of ``x`` and the value properties recomputed from the traced ``x``
    (module docstring).

    Example:
        >>> import numpy as np
        >>> x = np.array([0.0, 2.0, 0.0, 3.0, 1.0])
        >>> peaks, props = find_peaks(x, height=0.5)
        >>> peaks.tolist(), props["peak_heights"].tolist()
        ([1, 3], [2.0, 3.0])
    """
    x = fnp.asarray(x)
    if fnp.ndim(x) != 1:
        raise ValueError(f"find_peaks(x): x must be 1-D, got shape {fnp.shape(x)}")
    peaks, props = _theirs("find_peaks")(
        _host(x),
        height=_plain(height),
        threshold=_plain(threshold),
        distance=_plain(distance),
        prominence=_plain(prominence),
        width=_plain(width),
        wlen=_plain(wlen),
        rel_height=float(rel_height),
        plateau_size=_plain(plateau_size),
    )
    if "peak_heights" in props:
        props["peak_heights"] = fnp.take(x, peaks)
    if "left_thresholds" in props:
        props["left_thresholds"] = fnp.take(x, peaks) - fnp.take(x, peaks - 1)
        props["right_thresholds"] = fnp.take(x, peaks) - fnp.take(x, peaks + 1)
    if "prominences" in props:
        props["prominences"] = _prominences(x, peaks, props["left_bases"], props["right_bases"])
    if "widths" in props:
        out = _widths(
            x, peaks, props["prominences"], props["left_ips"], props["right_ips"], rel_height
        )
        for key, value in zip(("widths", "width_heights", "left_ips", "right_ips"), out):
            props[key] = value
    return peaks, props


def argrelextrema(
    data: Any, comparator: Any, axis: int = 0, order: int = 1, mode: str = "clip"
) -> tuple:
    """``scipy.signal.argrelextrema``: the indices of the relative extrema, SciPy's,
    decided on the values of ``data`` (no derivative: they are indices).

    Example:
        >>> import numpy as np
        >>> [i.tolist() for i in argrelextrema(np.array([0.0, 2.0, 0.0, 3.0, 1.0]), np.greater)]
        [[1, 3]]
    """
    return _theirs("argrelextrema")(_host(data), comparator, axis=axis, order=order, mode=mode)


def argrelmax(data: Any, axis: int = 0, order: int = 1, mode: str = "clip") -> tuple:
    """``scipy.signal.argrelmax``: :func:`argrelextrema` with ``numpy.greater``.

    Example:
        >>> import numpy as np
        >>> argrelmax(np.array([0.0, 2.0, 0.0]))[0].tolist()
        [1]
    """
    return argrelextrema(data, numpy.greater, axis, order, mode)


def argrelmin(data: Any, axis: int = 0, order: int = 1, mode: str = "clip") -> tuple:
    """``scipy.signal.argrelmin``: :func:`argrelextrema` with ``numpy.less``.

    Example:
        >>> import numpy as np
        >>> argrelmin(np.array([2.0, 0.0, 2.0]))[0].tolist()
        [1]
    """
    return argrelextrema(data, numpy.less, axis, order, mode)
