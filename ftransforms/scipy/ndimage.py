"""``ftransforms.scipy.ndimage``: SciPy's linear image filters and linear interpolation at
coordinates, written with ``ftransforms.numpy`` (so every transform differentiates and
batches them), with SciPy's signatures, boundary modes and results.

Filters: ``correlate1d``, ``convolve1d``, ``correlate``, ``convolve``,
``gaussian_filter1d``, ``gaussian_filter`` (``order`` for derivatives of the Gaussian),
``uniform_filter1d``, ``uniform_filter``, ``sobel``, ``prewitt``, ``laplace`` and
``gaussian_laplace``; the boundary modes ``reflect`` (the default), ``mirror``,
``nearest``, ``wrap``, ``constant`` and their ``grid-`` synonyms.  The kernels are
constants (a traced ``sigma`` or ``weights`` of ``correlate`` work too: ``weights`` is
an operand).  ``map_coordinates`` interpolates with ``order`` 0 or 1 (as
``jax.scipy.ndimage.map_coordinates``); SciPy's default cubic spline (``order=3``) is
not available.  ``output`` may be None or a dtype, not an array to write into.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> img = np.zeros((5, 5))
    >>> img[2, 2] = 1.0
    >>> round(float(gaussian_filter(img, 1.0).sum()), 12)  # the kernel sums to one
    1.0
    >>> ft.grad(lambda im: uniform_filter(im, 3)[2, 2])(img)[1:4, 1:4].round(4).tolist()[0]
    [0.1111, 0.1111, 0.1111]
"""

from __future__ import annotations

from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.helpers import dtype_of, normalize_axis
from ftransforms.numpy.ufuncs import float_input

__all__ = [
    "convolve",
    "convolve1d",
    "correlate",
    "correlate1d",
    "gaussian_filter",
    "gaussian_filter1d",
    "gaussian_laplace",
    "laplace",
    "map_coordinates",
    "prewitt",
    "sobel",
    "uniform_filter",
    "uniform_filter1d",
]

#: SciPy's boundary modes (filters) as ``numpy.pad``'s.
_PAD_MODES = {
    "reflect": "symmetric",
    "grid-mirror": "symmetric",
    "mirror": "reflect",
    "nearest": "edge",
    "wrap": "wrap",
    "grid-wrap": "wrap",
    "constant": "constant",
    "grid-constant": "constant",
}


def _image(x: Any) -> Any:
    return float_input(x if hasattr(x, "dtype") else fnp.asarray(x), None)


def _check_output(where: str, output: Any, x: Any) -> Any:
    """``x`` as SciPy's ``output`` asks: None (as it is) or a dtype (cast)."""
    if output is None:
        return x
    if isinstance(output, (numpy.ndarray, Tracer)):
        raise UnsupportedOperationError(
            f"{where}: output= an array to write into is not available on traced values; "
            f"use the returned array (or pass a dtype)"
        )
    return fnp.astype(x, numpy.dtype(output))


def _pad_mode(where: str, mode: str) -> str:
    if mode not in _PAD_MODES:
        raise ValueError(f"{where}: mode must be one of {sorted(_PAD_MODES)}, got {mode!r}")
    return _PAD_MODES[mode]


def _pad_axis(x: Any, axis: int, before: int, after: int, mode: str, cval: float) -> Any:
    widths = [(0, 0)] * fnp.ndim(x)
    widths[axis] = (before, after)
    pad_mode = _PAD_MODES[mode]
    if pad_mode == "constant":
        return fnp.pad(x, widths, mode="constant", constant_values=cval)
    # (for pads wider than the axis NumPy repeats the reflection, as SciPy extends)
    return fnp.pad(x, widths, mode=pad_mode)


def _origin_check(where: str, size: int, origin: int) -> None:
    if not -(size // 2) <= origin <= (size - 1) // 2:
        raise ValueError(f"{where}: invalid origin {origin} for a filter of size {size}")


def _correlate_along(x: Any, w: Any, axis: int, mode: str, cval: float, origin: int) -> Any:
    """Correlation of ``x`` with the 1-D ``w`` along ``axis``: ``out[i] = sum_j w[j]
    x[i + j - (len(w) // 2 + origin)]`` with SciPy's boundary extension."""
    size = len(w) if not isinstance(w, Tracer) else fnp.shape(w)[0]
    left = size // 2 + origin
    right = size - 1 - left
    padded = _pad_axis(x, axis, left, right, mode, cval)
    n = fnp.shape(x)[axis]
    out = None
    for j in range(size):
        piece = fnp.take(padded, numpy.arange(j, j + n), axis=axis)
        term = piece * w[j]
        out = term if out is None else out + term
    return out


def _weights(w: Any) -> Any:
    if isinstance(w, Tracer):
        return w
    return numpy.asarray(w, dtype=numpy.float64)


def correlate1d(
    input: Any,  # noqa: A002  (SciPy's name)
    weights: Any,
    axis: int = -1,
    output: Any = None,
    mode: str = "reflect",
    cval: float = 0.0,
    origin: int = 0,
) -> Any:
    """``scipy.ndimage.correlate1d``: a 1-D correlation along ``axis``.

    Example:
        >>> import numpy as np
        >>> correlate1d(np.array([2.0, 8.0, 0.0, 4.0]), [1.0, 3.0]).tolist()
        [8.0, 26.0, 8.0, 12.0]
    """
    where = "correlate1d(input, weights)"
    x = _image(input)
    w = _weights(weights)
    if fnp.ndim(w) != 1 or fnp.shape(w)[0] < 1:
        raise ValueError(f"{where}: weights must be 1-D and not empty")
    _pad_mode(where, mode)
    _origin_check(where, fnp.shape(w)[0], origin)
    axis = normalize_axis(axis, fnp.ndim(x))
    return _check_output(where, output, _correlate_along(x, w, axis, mode, cval, origin))


def convolve1d(
    input: Any,  # noqa: A002
    weights: Any,
    axis: int = -1,
    output: Any = None,
    mode: str = "reflect",
    cval: float = 0.0,
    origin: int = 0,
) -> Any:
    """``scipy.ndimage.convolve1d``: a 1-D convolution along ``axis`` (the correlation
    with the reversed weights, SciPy's origin shift for even sizes included).

    Example:
        >>> import numpy as np
        >>> convolve1d(np.array([2.0, 8.0, 0.0, 4.0]), [1.0, 3.0]).tolist()
        [14.0, 24.0, 4.0, 12.0]
    """
    w = _weights(weights)
    w = w[::-1]
    origin = -origin
    if not fnp.shape(w)[0] & 1:
        origin -= 1
    return correlate1d(input, w, axis, output, mode, cval, origin)


def _per_axis(value: Any, n: int) -> list:
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise ValueError(f"a sequence of {len(value)} settings for {n} axes")
        return list(value)
    return [value] * n


def _axes(x: Any, axes: Any) -> list:
    nd = fnp.ndim(x)
    if axes is None:
        return list(range(nd))
    if isinstance(axes, int):
        axes = (axes,)
    return [normalize_axis(a, nd) for a in axes]


def correlate(
    input: Any,  # noqa: A002
    weights: Any,
    output: Any = None,
    mode: str = "reflect",
    cval: float = 0.0,
    origin: Any = 0,
    *,
    axes: Any = None,
) -> Any:
    """``scipy.ndimage.correlate``: the N-d correlation with ``weights`` (over ``axes``,
    every axis by default).

    Example:
        >>> import numpy as np
        >>> correlate(np.arange(9.0).reshape(3, 3), np.ones((2, 2)), mode="constant").tolist()
        [[0.0, 0.0, 0.0], [0.0, 8.0, 12.0], [0.0, 20.0, 24.0]]
    """
    where = "correlate(input, weights)"
    x = _image(input)
    w = weights if isinstance(weights, Tracer) else numpy.asarray(weights, dtype=numpy.float64)
    axes_ = _axes(x, axes)
    if fnp.ndim(w) != len(axes_):
        raise RuntimeError(
            f"{where}: weights must have one dimension per axis filtered ({len(axes_)}), "
            f"got {fnp.ndim(w)}"
        )
    _pad_mode(where, mode)
    origins = _per_axis(origin, len(axes_))
    shape_w = fnp.shape(w)
    padded = x
    for ax, size, org in zip(axes_, shape_w, origins):
        _origin_check(where, size, org)
        left = size // 2 + org
        padded = _pad_axis(padded, ax, left, size - 1 - left, mode, cval)
    out = None
    for offsets in numpy.ndindex(*shape_w):
        index = [slice(None)] * fnp.ndim(x)
        for ax, off in zip(axes_, offsets):
            index[ax] = slice(off, off + fnp.shape(x)[ax])
        term = padded[tuple(index)] * w[offsets]
        out = term if out is None else out + term
    return _check_output(where, output, out)


def convolve(
    input: Any,  # noqa: A002
    weights: Any,
    output: Any = None,
    mode: str = "reflect",
    cval: float = 0.0,
    origin: Any = 0,
    *,
    axes: Any = None,
) -> Any:
    """``scipy.ndimage.convolve``: the N-d convolution (the correlation with the flipped
    weights, SciPy's origin shift for even sizes included).

    Example:
        >>> import numpy as np
        >>> convolve(np.arange(4.0), [1.0, 0.0, -1.0], mode="nearest").tolist()
        [1.0, 2.0, 2.0, 1.0]
    """
    x = _image(input)
    w = weights if isinstance(weights, Tracer) else numpy.asarray(weights, dtype=numpy.float64)
    axes_ = _axes(x, axes)
    nd_w = fnp.ndim(w)
    w = w[(slice(None, None, -1),) * nd_w]
    origins = [-o for o in _per_axis(origin, len(axes_))]
    origins = [o - 1 if not size & 1 else o for o, size in zip(origins, fnp.shape(w))]
    return correlate(x, w, output, mode, cval, origins, axes=axes)


def _gaussian_kernel1d(sigma: float, order: int, radius: int) -> numpy.ndarray:
    """The sampled Gaussian (normalized to sum 1) and, for ``order > 0``, its ``order``-th
    derivative: the polynomial factor by repeated differentiation of ``q(x) phi(x)``."""
    if order < 0:
        raise ValueError("order must be non-negative")
    x = numpy.arange(-radius, radius + 1, dtype=numpy.float64)
    s2 = sigma * sigma
    phi = numpy.exp(-0.5 / s2 * x * x)
    phi /= phi.sum()
    if order == 0:
        return phi
    # q holds the coefficients of the polynomial factor; d/dx (q phi) = (q' - x q / s2) phi
    q = numpy.zeros(order + 1)
    q[0] = 1.0
    powers = numpy.arange(order + 1)
    derivative = numpy.diag(powers[1:].astype(float), 1) + numpy.diag(
        numpy.full(order, -1.0 / s2), -1
    )
    for _ in range(order):
        q = derivative @ q
    return (x[:, None] ** powers) @ q * phi


def _sigma(where: str, sigma: Any) -> float:
    if isinstance(sigma, Tracer):
        raise UnsupportedOperationError(
            f"{where}: a traced sigma is not available (the kernel's size depends on it); "
            f"build the kernel with ftransforms.numpy and call correlate1d"
        )
    return float(sigma)


def gaussian_filter1d(
    input: Any,  # noqa: A002
    sigma: float,
    axis: int = -1,
    order: int = 0,
    output: Any = None,
    mode: str = "reflect",
    cval: float = 0.0,
    truncate: float = 4.0,
    *,
    radius: int | None = None,
) -> Any:
    """``scipy.ndimage.gaussian_filter1d``: a Gaussian filter (``order`` > 0: a derivative
    of the Gaussian) along ``axis``, the kernel truncated at ``truncate`` standard
    deviations (or ``radius``).

    Example:
        >>> import numpy as np
        >>> round(float(gaussian_filter1d(np.ones(5), 1.0)[2]), 12)
        1.0
    """
    _pad_mode("gaussian_filter1d(input, sigma)", mode)
    sd = _sigma("gaussian_filter1d(input, sigma)", sigma)
    lw = int(truncate * sd + 0.5) if radius is None else int(radius)
    weights = _gaussian_kernel1d(sd, order, lw)[::-1]
    return correlate1d(input, weights, axis, output, mode, cval, 0)


def gaussian_filter(
    input: Any,  # noqa: A002
    sigma: Any,
    order: Any = 0,
    output: Any = None,
    mode: Any = "reflect",
    cval: float = 0.0,
    truncate: float = 4.0,
    *,
    radius: Any = None,
    axes: Any = None,
) -> Any:
    """``scipy.ndimage.gaussian_filter``: :func:`gaussian_filter1d` along each of ``axes``
    (``sigma``, ``order``, ``mode`` and ``radius`` per axis or one for all).

    Example:
        >>> import numpy as np
        >>> round(float(gaussian_filter(np.ones((4, 4)), 2.0)[0, 0]), 12)
        1.0
    """
    x = _image(input)
    axes_ = _axes(x, axes)
    n = len(axes_)
    settings = zip(
        axes_,
        _per_axis(sigma, n),
        _per_axis(order, n),
        _per_axis(mode, n),
        _per_axis(radius, n),
    )
    for ax, sd, o, m, r in settings:
        _pad_mode("gaussian_filter(input, sigma)", m)
        if _sigma("gaussian_filter(input, sigma)", sd) > 1e-15:
            x = gaussian_filter1d(x, sd, ax, o, None, m, cval, truncate, radius=r)
    return _check_output("gaussian_filter(input, sigma)", output, x)


def uniform_filter1d(
    input: Any,  # noqa: A002
    size: int,
    axis: int = -1,
    output: Any = None,
    mode: str = "reflect",
    cval: float = 0.0,
    origin: int = 0,
) -> Any:
    """``scipy.ndimage.uniform_filter1d``: the mean over a window of ``size`` along ``axis``.

    Example:
        >>> import numpy as np
        >>> uniform_filter1d(np.array([2.0, 8.0, 0.0, 4.0, 1.0]), 3).round(4).tolist()
        [4.0, 3.3333, 4.0, 1.6667, 2.0]
    """
    size = int(size)
    _pad_mode("uniform_filter1d(input, size)", mode)
    if size < 1:
        raise RuntimeError("uniform_filter1d(input, size): size must be positive")
    return correlate1d(input, numpy.full(size, 1.0 / size), axis, output, mode, cval, origin)


def uniform_filter(
    input: Any,  # noqa: A002
    size: Any = 3,
    output: Any = None,
    mode: Any = "reflect",
    cval: float = 0.0,
    origin: Any = 0,
    *,
    axes: Any = None,
) -> Any:
    """``scipy.ndimage.uniform_filter``: :func:`uniform_filter1d` along each of ``axes``.

    Example:
        >>> import numpy as np
        >>> float(uniform_filter(np.ones((3, 3)), 3)[1, 1])
        1.0
    """
    x = _image(input)
    axes_ = _axes(x, axes)
    n = len(axes_)
    for ax, s, m, o in zip(axes_, _per_axis(size, n), _per_axis(mode, n), _per_axis(origin, n)):
        _pad_mode("uniform_filter(input, size)", m)
        if int(s) > 1:
            x = uniform_filter1d(x, s, ax, None, m, cval, o)
    return _check_output("uniform_filter(input, size)", output, x)


def _derivative_filter(x: Any, axis: int, mode: str, cval: float, smooth: list) -> Any:
    """``[-1, 0, 1]`` along ``axis``, ``smooth`` along every other axis."""
    x = _image(x)
    axis = normalize_axis(axis, fnp.ndim(x))
    out = _correlate_along(x, numpy.array([-1.0, 0.0, 1.0]), axis, mode, cval, 0)
    for other in range(fnp.ndim(x)):
        if other != axis:
            out = _correlate_along(out, numpy.array(smooth), other, mode, cval, 0)
    return out


def sobel(
    input: Any,  # noqa: A002
    axis: int = -1,
    output: Any = None,
    mode: str = "reflect",
    cval: float = 0.0,
) -> Any:
    """``scipy.ndimage.sobel``: the Sobel derivative along ``axis`` (``[-1, 0, 1]`` there,
    smoothed by ``[1, 2, 1]`` along the other axes).

    Example:
        >>> import numpy as np
        >>> sobel(np.arange(4.0)).tolist()
        [1.0, 2.0, 2.0, 1.0]
    """
    _pad_mode("sobel(input)", mode)
    out = _derivative_filter(input, axis, mode, cval, [1.0, 2.0, 1.0])
    return _check_output("sobel(input)", output, out)


def prewitt(
    input: Any,  # noqa: A002
    axis: int = -1,
    output: Any = None,
    mode: str = "reflect",
    cval: float = 0.0,
) -> Any:
    """``scipy.ndimage.prewitt``: the Prewitt derivative along ``axis`` (smoothed by
    ``[1, 1, 1]`` along the other axes).

    Example:
        >>> import numpy as np
        >>> prewitt(np.arange(4.0)).tolist()
        [1.0, 2.0, 2.0, 1.0]
    """
    _pad_mode("prewitt(input)", mode)
    out = _derivative_filter(input, axis, mode, cval, [1.0, 1.0, 1.0])
    return _check_output("prewitt(input)", output, out)


def laplace(
    input: Any,  # noqa: A002
    output: Any = None,
    mode: Any = "reflect",
    cval: float = 0.0,
    *,
    axes: Any = None,
) -> Any:
    """``scipy.ndimage.laplace``: the sum over ``axes`` of the second differences
    ``[1, -2, 1]``.

    Example:
        >>> import numpy as np
        >>> laplace(np.array([0.0, 1.0, 4.0, 9.0])).tolist()
        [1.0, 2.0, 2.0, -5.0]
    """
    x = _image(input)
    axes_ = _axes(x, axes)
    modes = _per_axis(mode, len(axes_))
    out = None
    for ax, m in zip(axes_, modes):
        _pad_mode("laplace(input)", m)
        term = _correlate_along(x, numpy.array([1.0, -2.0, 1.0]), ax, m, cval, 0)
        out = term if out is None else out + term
    return _check_output("laplace(input)", output, out if out is not None else x)


def gaussian_laplace(
    input: Any,  # noqa: A002
    sigma: Any,
    output: Any = None,
    mode: Any = "reflect",
    cval: float = 0.0,
    *,
    axes: Any = None,
    **kwargs: Any,
) -> Any:
    """``scipy.ndimage.gaussian_laplace``: the Laplacian of the Gaussian-smoothed input
    (second derivatives of the Gaussian along each axis, summed); ``kwargs`` go to the
    Gaussian filter (``truncate``, ``radius``).

    Example:
        >>> import numpy as np
        >>> abs(float(gaussian_laplace(np.ones((5, 5)), 1.0)[2, 2])) < 1e-12
        True
    """
    x = _image(input)
    axes_ = _axes(x, axes)
    n = len(axes_)
    sigmas, modes = _per_axis(sigma, n), _per_axis(mode, n)
    out = None
    for i in range(n):
        orders = [0] * n
        orders[i] = 2
        term = gaussian_filter(x, sigmas, orders, None, modes, cval, axes=axes_, **kwargs)
        out = term if out is None else out + term
    return _check_output("gaussian_laplace(input, sigma)", output, out)


# -- interpolation at coordinates --------------------------------------------------------------


def _mapped_index(where: str, index: Any, n: int, mode: str) -> tuple[Any, Any]:
    """``(index inside [0, n), valid)`` for an integer index array and SciPy's ``mode``."""
    if mode in ("nearest",):
        return fnp.clip(index, 0, n - 1), None
    if mode == "grid-wrap":
        return fnp.mod(index, n), None
    if mode == "wrap":  # the coordinate was wrapped already (map_coordinates)
        return fnp.clip(index, 0, n - 1), None
    if mode in ("mirror",):
        if n == 1:
            return fnp.zeros_like(index), None
        period = 2 * n - 2
        r = fnp.mod(index, period)
        return fnp.where(r >= n, period - r, r), None
    if mode in ("reflect", "grid-mirror"):
        period = 2 * n
        r = fnp.mod(index, period)
        return fnp.where(r >= n, period - 1 - r, r), None
    if mode in ("constant", "grid-constant"):
        valid = (index >= 0) & (index <= n - 1)
        return fnp.clip(index, 0, n - 1), valid
    raise ValueError(f"{where}: mode must be one of {sorted(_PAD_MODES)}, got {mode!r}")


def _wrap_coordinate(c: Any, n: int) -> Any:
    if n <= 1:
        return 0.0 * c
    sz = n - 1
    low = c + sz * (fnp.floor(-c / sz) + 1)
    high = c - sz * fnp.floor(c / sz)
    return fnp.where(c < 0, low, fnp.where(c > n - 1, high, c))


def _mirror_coordinate(c: Any, n: int) -> Any:
    if n <= 1:
        return 0.0 * c
    sz2 = 2 * n - 2
    low = sz2 * fnp.floor(-c / sz2) + c
    low = fnp.where(low <= 1 - n, low + sz2, -low)
    high = c - sz2 * fnp.floor(c / sz2)
    high = fnp.where(high >= n, sz2 - high, high)
    return fnp.where(c < 0, low, fnp.where(c > n - 1, high, c))


def _reflect_coordinate(c: Any, n: int) -> Any:
    sz2 = 2 * n
    low = fnp.where(c < -sz2, sz2 * fnp.floor(-c / sz2) + c, c)
    low = fnp.where(low < -n, low + sz2, -low - 1)
    high = c - sz2 * fnp.floor(c / sz2)
    high = fnp.where(high >= n, sz2 - high - 1, high)
    return fnp.where(c < 0, low, fnp.where(c > n - 1, high, c))


def map_coordinates(
    input: Any,  # noqa: A002
    coordinates: Any,
    output: Any = None,
    order: int = 3,
    mode: str = "constant",
    cval: float = 0.0,
    prefilter: bool = True,
) -> Any:
    """``scipy.ndimage.map_coordinates`` with ``order`` 0 (nearest) or 1 (linear): the
    input's values at ``coordinates`` (shape ``(input.ndim, ...)``), differentiable in the
    input and in the coordinates (linear order).  ``mode='constant'`` gives ``cval`` outside
    ``[0, n - 1]`` as SciPy does.

    Example:
        >>> import numpy as np
        >>> img = np.arange(9.0).reshape(3, 3)
        >>> map_coordinates(img, np.array([[0.5, 2.0], [1.0, 1.5]]), order=1).tolist()
        [2.5, 7.5]
    """
    where = "map_coordinates(input, coordinates)"
    if order not in (0, 1):
        raise UnsupportedOperationError(
            f"{where}: order={order} is not available (the spline orders 2-5 need SciPy's "
            f"prefilter); pass order=1 (linear) or order=0 (nearest), as "
            f"jax.scipy.ndimage.map_coordinates takes"
        )
    x = _image(input)
    coords = coordinates if hasattr(coordinates, "dtype") else fnp.asarray(coordinates)
    coords = fnp.astype(coords, dtype_of(x)) if dtype_of(coords).kind != "f" else coords
    nd = fnp.ndim(x)
    if fnp.shape(coords)[0] != nd:
        raise RuntimeError(
            f"{where}: coordinates must have input.ndim ({nd}) rows, got {fnp.shape(coords)[0]}"
        )
    shape = fnp.shape(x)
    # per axis: the neighbour indices with their weights
    per_axis = []
    outside = None
    for d in range(nd):
        c = coords[d]
        n = shape[d]
        if mode == "wrap":
            # SciPy's 'wrap' makes the last sample and the first overlap: a coordinate
            # outside [0, n - 1] is moved by whole periods n - 1 (ni_interpolation.c's
            # map_coordinate, its truncations included)
            c = _wrap_coordinate(c, n)
        if mode in ("constant",):
            off = (c < -0.0) | (c > n - 1)  # SciPy's 'constant': no interpolation beyond
            outside = off if outside is None else outside | off
        if order == 0:
            if mode == "mirror":  # the coordinate is reflected before it is rounded
                c = _mirror_coordinate(c, n)
            elif mode in ("reflect", "grid-mirror"):
                c = _reflect_coordinate(c, n)
            idx = fnp.astype(fnp.floor(c + 0.5), numpy.intp)
            i, valid = _mapped_index(where, idx, n, mode)
            per_axis.append([(i, valid, None)])
        else:
            lo = fnp.floor(c)
            frac = c - lo
            lo_i = fnp.astype(lo, numpy.intp)
            i0, v0 = _mapped_index(where, lo_i, n, mode)
            i1, v1 = _mapped_index(where, lo_i + 1, n, mode)
            per_axis.append([(i0, v0, 1.0 - frac), (i1, v1, frac)])
    out = None
    for choice in numpy.ndindex(*[len(p) for p in per_axis]):
        index = tuple(per_axis[d][k][0] for d, k in enumerate(choice))
        value = x[index]
        weight = None
        for d, k in enumerate(choice):
            i, valid, w = per_axis[d][k]
            if valid is not None:
                value = fnp.where(valid, value, cval)
            if w is not None:
                weight = w if weight is None else weight * w
        term = value if weight is None else value * weight
        out = term if out is None else out + term
    if outside is not None:
        out = fnp.where(outside, cval, out)
    return _check_output(where, output, out)
