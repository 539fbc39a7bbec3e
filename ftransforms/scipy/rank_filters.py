"""``scipy.ndimage``'s rank filters on tracers (re-exported by
``ftransforms.scipy.ndimage``): ``median_filter``, ``maximum_filter``,
``minimum_filter``, ``percentile_filter``, ``rank_filter``.

Each gathers, for every output element, the input values under the footprint (the input
extended past its edges by ``mode``, the window placed by ``origin`` as SciPy places it),
then reduces them: ``max``/``min``, or sorts them and takes the element of the rank.  The
derivative flows to the selected element (to the tied elements as ``max`` splits it);
every transform works, at the cost of one copy of the input per footprint element.

Example:
    >>> import numpy as np
    >>> from ftransforms.scipy.ndimage import median_filter
    >>> median_filter(np.array([1.0, 9.0, 2.0, 3.0]), size=3).tolist()
    [1.0, 2.0, 3.0, 3.0]
"""

from __future__ import annotations

import operator
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.api import vmap
from ftransforms.numpy.helpers import normalize_axis
from ftransforms.scipy.ndimage_modes import pad_mode

__all__ = [
    "maximum_filter",
    "median_filter",
    "minimum_filter",
    "percentile_filter",
    "rank_filter",
]


def _axes(nd: int, axes: Any) -> list[int]:
    if axes is None:
        return list(range(nd))
    axes = [axes] if isinstance(axes, int) else list(axes)
    out = [normalize_axis(a, nd) for a in axes]
    if len(set(out)) != len(out):
        raise ValueError(f"axes must be unique, got {axes}")
    return out


def _per_axis(value: Any, n: int, what: str, where: str) -> list:
    if isinstance(value, str) or numpy.ndim(value) == 0:
        return [value] * n
    value = list(value)
    if len(value) != n:
        raise RuntimeError(f"{where}: {what} must have one entry per filtered axis ({n})")
    return value


def _footprint(size: Any, footprint: Any, n_axes: int, where: str) -> numpy.ndarray:
    if footprint is None:
        if size is None:
            raise RuntimeError(f"{where}: no footprint or filter size provided")
        sizes = [operator.index(s) for s in _per_axis(size, n_axes, "size", where)]
        return numpy.ones(sizes, dtype=bool)
    fp = numpy.asarray(footprint, dtype=bool)
    if fp.ndim != n_axes:
        raise RuntimeError(f"{where}: footprint array has incorrect shape {fp.shape}")
    if not fp.any():
        raise ValueError(f"{where}: all-zero footprint is not supported")
    return fp


def _windows(
    input: Any,  # noqa: A002
    size: Any,
    footprint: Any,
    mode: Any,
    cval: float,
    origin: Any,
    axes: Any,
    where: str,
    modes_per_axis: bool = False,
) -> tuple[Any, Any]:
    """``(stack, x)``: the footprint's values around every element, on a new last axis."""
    x = input if hasattr(input, "dtype") else fnp.asarray(input)
    nd = fnp.ndim(x)
    ax = _axes(nd, axes)
    fp = _footprint(size, footprint, len(ax), where)
    origins = [operator.index(o) for o in _per_axis(origin, len(ax), "origin", where)]
    if isinstance(mode, str) or not modes_per_axis:
        if not isinstance(mode, str):
            raise RuntimeError(f"{where}: a sequence of modes is not supported here")
        modes = [mode] * len(ax)
    else:
        modes = _per_axis(mode, len(ax), "mode", where)
    padded = x
    for a, m, o, w in zip(ax, modes, origins, fp.shape):
        if not -(w // 2) <= o <= (w - 1) // 2:
            raise ValueError(f"{where}: invalid origin {o} for a window of size {w}")
        center = w // 2 + o
        widths = [(0, 0)] * nd
        widths[a] = (center, w - 1 - center)
        pm = pad_mode(m, where)
        kw = {"constant_values": cval} if pm == "constant" else {}
        padded = fnp.pad(padded, widths, mode=pm, **kw)
    shape = fnp.shape(x)
    pieces = []
    for k in numpy.argwhere(fp):
        index = [slice(None)] * nd
        for a, start in zip(ax, k):
            index[a] = slice(int(start), int(start) + shape[a])
        pieces.append(padded[tuple(index)])
    return fnp.stack(pieces, axis=-1), x


def _finish(result: Any, x: Any, output: Any) -> Any:
    if output is None:
        return result
    if isinstance(output, (type, numpy.dtype, str)):
        return fnp.astype(result, output)
    output[...] = result
    return output


def maximum_filter(
    input: Any,  # noqa: A002
    size: Any = None,
    footprint: Any = None,
    output: Any = None,
    mode: Any = "reflect",
    cval: float = 0.0,
    origin: Any = 0,
    *,
    axes: Any = None,
) -> Any:
    """``scipy.ndimage.maximum_filter``: the largest value under the footprint (``size``
    or a boolean ``footprint``) around every element (``mode`` may be one per axis).

    Example:
        >>> import numpy as np
        >>> maximum_filter(np.array([1.0, 3.0, 2.0, 0.0]), size=2).tolist()
        [1.0, 3.0, 3.0, 2.0]
    """
    where = "maximum_filter(input, size)"
    stack, x = _windows(input, size, footprint, mode, cval, origin, axes, where, True)
    return _finish(fnp.max(stack, axis=-1), x, output)


def minimum_filter(
    input: Any,  # noqa: A002
    size: Any = None,
    footprint: Any = None,
    output: Any = None,
    mode: Any = "reflect",
    cval: float = 0.0,
    origin: Any = 0,
    *,
    axes: Any = None,
) -> Any:
    """``scipy.ndimage.minimum_filter``: the smallest value under the footprint around
    every element (``mode`` may be one per axis).

    Example:
        >>> import numpy as np
        >>> minimum_filter(np.array([1.0, 3.0, 2.0, 0.0]), size=2).tolist()
        [1.0, 1.0, 2.0, 0.0]
    """
    where = "minimum_filter(input, size)"
    stack, x = _windows(input, size, footprint, mode, cval, origin, axes, where, True)
    return _finish(fnp.min(stack, axis=-1), x, output)


def _ranked(
    input: Any,  # noqa: A002
    rank: Any,
    size: Any,
    footprint: Any,
    output: Any,
    mode: Any,
    cval: float,
    origin: Any,
    axes: Any,
    where: str,
) -> Any:
    stack, x = _windows(input, size, footprint, mode, cval, origin, axes, where)
    count = fnp.shape(stack)[-1]
    r = count // 2 if rank is None else (rank(count) if callable(rank) else operator.index(rank))
    if r < 0:
        r += count
    if not 0 <= r < count:
        raise RuntimeError(f"{where}: rank not within filter footprint size ({count})")
    if r == 0:
        return _finish(fnp.min(stack, axis=-1), x, output)
    if r == count - 1:
        return _finish(fnp.max(stack, axis=-1), x, output)
    return _finish(fnp.sort(stack, axis=-1)[..., r], x, output)


def rank_filter(
    input: Any,  # noqa: A002
    rank: int,
    size: Any = None,
    footprint: Any = None,
    output: Any = None,
    mode: str = "reflect",
    cval: float = 0.0,
    origin: Any = 0,
    *,
    axes: Any = None,
) -> Any:
    """``scipy.ndimage.rank_filter``: the element of rank ``rank`` (0: the smallest;
    negative: from the largest) under the footprint around every element.

    Example:
        >>> import numpy as np
        >>> rank_filter(np.array([4.0, 1.0, 3.0, 2.0]), 1, size=3).tolist()
        [4.0, 3.0, 2.0, 2.0]
    """
    where = "rank_filter(input, rank, size)"
    return _ranked(input, rank, size, footprint, output, mode, cval, origin, axes, where)


def median_filter(
    input: Any,  # noqa: A002
    size: Any = None,
    footprint: Any = None,
    output: Any = None,
    mode: str = "reflect",
    cval: float = 0.0,
    origin: Any = 0,
    *,
    axes: Any = None,
) -> Any:
    """``scipy.ndimage.median_filter``: the median (rank ``count // 2``) under the
    footprint around every element; the derivative flows to the median element.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> x = np.array([1.0, 9.0, 2.0, 3.0])
        >>> ft.grad(lambda x: median_filter(x, size=3)[1])(x).tolist()
        [0.0, 0.0, 1.0, 0.0]
    """
    where = "median_filter(input, size)"
    return _ranked(input, None, size, footprint, output, mode, cval, origin, axes, where)


def percentile_filter(
    input: Any,  # noqa: A002
    percentile: float,
    size: Any = None,
    footprint: Any = None,
    output: Any = None,
    mode: str = "reflect",
    cval: float = 0.0,
    origin: Any = 0,
    *,
    axes: Any = None,
) -> Any:
    """``scipy.ndimage.percentile_filter``: the element of rank
    ``int(count * percentile / 100)`` (the last for 100; negative percentiles count from
    100) under the footprint around every element.

    Example:
        >>> import numpy as np
        >>> percentile_filter(np.array([4.0, 1.0, 3.0, 2.0]), 50, size=3).tolist()
        [4.0, 3.0, 2.0, 2.0]
    """
    where = "percentile_filter(input, percentile, size)"
    p = float(percentile)
    if p < 0.0:
        p += 100.0
    if not 0.0 <= p <= 100.0:
        raise RuntimeError(f"{where}: invalid percentile {percentile}")

    def rank_of(count: int) -> int:
        r = int(float(count) * p / 100.0)
        return r - 1 if r == count else r

    return _ranked(input, rank_of, size, footprint, output, mode, cval, origin, axes, where)


def _along_axis(input: Any, axis: int) -> list[int]:  # noqa: A002
    return [normalize_axis(axis, fnp.ndim(input))]


def maximum_filter1d(
    input: Any,  # noqa: A002
    size: int,
    axis: int = -1,
    output: Any = None,
    mode: str = "reflect",
    cval: float = 0.0,
    origin: int = 0,
) -> Any:
    """``scipy.ndimage.maximum_filter1d``: :func:`maximum_filter` with a window of
    ``size`` along ``axis`` only.

    Example:
        >>> import numpy as np
        >>> maximum_filter1d(np.array([1.0, 3.0, 2.0, 0.0]), 2).tolist()
        [1.0, 3.0, 3.0, 2.0]
    """
    axes = _along_axis(input, axis)
    return maximum_filter(input, size, None, output, mode, cval, origin, axes=axes)


def minimum_filter1d(
    input: Any,  # noqa: A002
    size: int,
    axis: int = -1,
    output: Any = None,
    mode: str = "reflect",
    cval: float = 0.0,
    origin: int = 0,
) -> Any:
    """``scipy.ndimage.minimum_filter1d``: :func:`minimum_filter` with a window of
    ``size`` along ``axis`` only.

    Example:
        >>> import numpy as np
        >>> minimum_filter1d(np.array([1.0, 3.0, 2.0, 0.0]), 2).tolist()
        [1.0, 1.0, 2.0, 0.0]
    """
    axes = _along_axis(input, axis)
    return minimum_filter(input, size, None, output, mode, cval, origin, axes=axes)


def generic_filter(
    input: Any,  # noqa: A002
    function: Any,
    size: Any = None,
    footprint: Any = None,
    output: Any = None,
    mode: str = "reflect",
    cval: float = 0.0,
    origin: Any = 0,
    extra_arguments: tuple = (),
    extra_keywords: dict | None = None,
    *,
    axes: Any = None,
) -> Any:
    """``scipy.ndimage.generic_filter``: ``function(values)`` of the 1-d array of the
    values under the footprint around every element (a Python function returning a
    number, as SciPy calls it), here called once on all the windows through ``vmap``.

    Example:
        >>> import numpy as np
        >>> generic_filter(np.array([1.0, 3.0, 2.0, 0.0]), np.ptp, size=3).tolist()
        [2.0, 2.0, 3.0, 2.0]
    """
    where = "generic_filter(input, function, size)"
    stack, x = _windows(input, size, footprint, mode, cval, origin, axes, where)
    kw = dict(extra_keywords or {})
    rows = fnp.reshape(stack, (-1, fnp.shape(stack)[-1]))
    values = vmap(lambda w: fnp.asarray(function(w, *extra_arguments, **kw)))(rows)
    return _finish(fnp.reshape(values, fnp.shape(x)), x, output)
