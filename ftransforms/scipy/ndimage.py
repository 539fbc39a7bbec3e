"""``ftransforms.scipy.ndimage``: ``scipy.ndimage``'s linear filters on tracers.

``correlate1d``, ``convolve1d``, ``correlate``, ``convolve``, ``gaussian_filter1d``,
``gaussian_filter`` (derivative orders too), ``uniform_filter1d``, ``uniform_filter``,
``sobel``, ``prewitt``, ``laplace``, ``gaussian_laplace`` and
``gaussian_gradient_magnitude``, with SciPy's signatures,
boundary modes (``reflect``, ``mirror``, ``nearest``, ``wrap``, ``constant`` with ``cval``) and
``origin``: each is a sum of shifted copies of the edge-extended input, so it is linear,
differentiable and batchable.  ``output`` may be a dtype or an array to write into.
``map_coordinates`` interpolates at given coordinates with ``order`` 0 or 1 (as
``jax.scipy.ndimage``), differentiable in the input and the coordinates; ``zoom``,
``shift``, ``rotate`` and ``affine_transform`` build their coordinates as SciPy does and
interpolate with it (their settings may be traced).  The spline orders 2-5 apply SciPy's
own map as a fixed linear one (NOTE [spline interpolation as a fixed linear map]): exact
values and input derivatives, fixed settings.  The rank filters (``median_filter``, ...,
``generic_filter``) and the measurements (``center_of_mass``, ``sum_labels``/``sum``,
``mean``, ``variance``, ...) come from ``rank_filters`` and ``ndimage_measurements``.

Example:
    >>> import numpy as np
    >>> from ftransforms import grad
    >>> from ftransforms.scipy.ndimage import uniform_filter1d
    >>> uniform_filter1d(np.array([1.0, 2.0, 3.0, 4.0]), 3).tolist()
    [1.3333333333333333, 2.0, 3.0, 3.6666666666666665]
    >>> grad(lambda x: uniform_filter1d(x, 3)[0])(np.ones(4)).round(4).tolist()
    [0.6667, 0.3333, 0.0, 0.0]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

import ftransforms.numpy as fnp
import ftransforms.scipy.special as _special
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.helpers import (
    dtype_of,
    holds_traced_value,
    normalize_axis,
    peek,
    same_across_batch,
)
from ftransforms.ops.special import scipy_special
from ftransforms.scipy.ndimage_fourier import (
    fourier_ellipsoid,
    fourier_gaussian,
    fourier_shift,
    fourier_uniform,
)
from ftransforms.scipy.ndimage_measurements import (
    center_of_mass,
    maximum,
    mean,
    minimum,
    standard_deviation,
    sum_labels,
    variance,
)
from ftransforms.scipy.ndimage_modes import PAD as _PAD
from ftransforms.scipy.ndimage_modes import pad_mode as _pad_mode
from ftransforms.scipy.rank_filters import (
    generic_filter,
    maximum_filter,
    maximum_filter1d,
    median_filter,
    minimum_filter,
    minimum_filter1d,
    percentile_filter,
    rank_filter,
)

__all__ = [
    "affine_transform",
    "center_of_mass",
    "convolve",
    "convolve1d",
    "correlate",
    "correlate1d",
    "fourier_ellipsoid",
    "fourier_gaussian",
    "fourier_shift",
    "fourier_uniform",
    "gaussian_filter",
    "gaussian_filter1d",
    "gaussian_gradient_magnitude",
    "gaussian_laplace",
    "generic_filter",
    "laplace",
    "map_coordinates",
    "maximum",
    "maximum_filter",
    "maximum_filter1d",
    "mean",
    "median_filter",
    "minimum",
    "minimum_filter",
    "minimum_filter1d",
    "percentile_filter",
    "prewitt",
    "rank_filter",
    "rotate",
    "shift",
    "sobel",
    "spline_filter",
    "spline_filter1d",
    "standard_deviation",
    "sum",
    "sum_labels",
    "uniform_filter",
    "uniform_filter1d",
    "variance",
    "zoom",
]

sum = sum_labels  # noqa: A001  (SciPy's older name)


def _finish(result: Any, output: Any, dtype: Any) -> Any:
    """SciPy's ``output``: None (the input's dtype: integers truncated, as SciPy casts),
    a dtype (the result cast), or an array written into."""
    if output is None:
        return result.astype(dtype) if numpy.dtype(dtype).kind in "biu" else result
    if isinstance(output, (type, numpy.dtype, str)):
        return result.astype(output)
    output[...] = result
    return output


def _float(x: Any) -> tuple[Any, Any]:
    """``x`` as an inexact array (integers and booleans in float64), and its dtype."""
    x = fnp.asarray(x)
    return (x.astype(fnp.float64) if x.dtype.kind in "biu" else x), x.dtype


def _weights(weights: Any, x: Any) -> Any:
    """The filter in ``x``'s precision (a float32 image stays float32, as in SciPy)."""
    if hasattr(weights, "shape") and not isinstance(weights, numpy.ndarray):
        return weights  # a traced filter: its own dtype
    w = numpy.asarray(weights, dtype=float)
    return w.astype(x.dtype) if x.dtype == numpy.float32 else w


def _correlate_along(
    x: Any, weights: Any, axis: int, mode: str, cval: float, origin: int, where: str
) -> Any:
    """``out[i] = sum_j w[j] x[i + j - (len(w) // 2 + origin)]`` along ``axis``, the
    input extended past its edges by ``mode``."""
    w = _weights(weights, x)
    size = int(fnp.shape(w)[0])
    center = size // 2 + origin
    if not 0 <= center < size:
        raise ValueError(f"{where}: invalid origin {origin} for a filter of size {size}")
    axis = normalize_axis(axis, fnp.ndim(x))
    n = fnp.shape(x)[axis]
    widths = [(0, 0)] * fnp.ndim(x)
    widths[axis] = (center, size - 1 - center)
    pad = _pad_mode(mode, where)
    kw = {"constant_values": cval} if pad == "constant" else {}
    padded = fnp.pad(x, widths, mode=pad, **kw)

    def shifted(j: int) -> Any:
        return fnp.take(padded, numpy.arange(j, j + n), axis=axis)

    if isinstance(w, numpy.ndarray) and size % 2 and origin == 0 and size > 1:
        # SciPy's order for (anti)symmetric filters: the centre, then pairs around it
        c = size // 2
        sign = 1.0 if (w == w[::-1]).all() else -1.0 if (w == -w[::-1]).all() else 0.0
        if sign:
            out = shifted(c) * w[c]
            for j in range(1, c + 1):
                pair = (
                    shifted(c + j) + shifted(c - j) if sign > 0 else shifted(c + j) - shifted(c - j)
                )
                out = out + pair * w[c + j]
            return out
    out = None
    for j in range(size):
        piece = shifted(j) * w[j]
        out = piece if out is None else out + piece
    return out


def correlate1d(
    input: Any,
    weights: Any,
    axis: int = -1,
    output: Any = None,
    mode: str = "reflect",
    cval: float = 0.0,
    origin: int = 0,
) -> Any:
    """``scipy.ndimage.correlate1d``: the 1-D correlation with ``weights`` along ``axis``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.ndimage import correlate1d
        >>> correlate1d(np.array([1.0, 2.0, 4.0]), np.array([1.0, -1.0])).tolist()
        [0.0, -1.0, -2.0]
    """
    x, dtype = _float(input)
    result = _correlate_along(x, weights, axis, mode, cval, origin, "correlate1d")
    return _finish(result, output, dtype)


def convolve1d(
    input: Any,
    weights: Any,
    axis: int = -1,
    output: Any = None,
    mode: str = "reflect",
    cval: float = 0.0,
    origin: int = 0,
) -> Any:
    """``scipy.ndimage.convolve1d``: the 1-D convolution with ``weights`` along ``axis``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.ndimage import convolve1d
        >>> convolve1d(np.array([1.0, 2.0, 4.0]), np.array([1.0, -1.0])).tolist()
        [1.0, 2.0, 0.0]
    """
    weights = fnp.asarray(weights)[::-1]
    origin = -origin - (0 if fnp.shape(weights)[0] % 2 else 1)
    return correlate1d(input, weights, axis, output, mode, cval, origin)


def _per_axis(value: Any, n: int) -> list:
    if isinstance(value, (str, int, float)) or value is None or numpy.ndim(value) == 0:
        return [value] * n
    value = list(value)
    if len(value) != n:
        raise ValueError(
            f"a sequence argument must have one entry per axis ({n}), got {len(value)}"
        )
    return value


def _axes(input: Any, axes: Any) -> list[int]:
    nd = fnp.ndim(input)
    if axes is None:
        return list(range(nd))
    axes = [axes] if isinstance(axes, int) else list(axes)
    return [normalize_axis(a, nd) for a in axes]


def correlate(
    input: Any,
    weights: Any,
    output: Any = None,
    mode: str = "reflect",
    cval: float = 0.0,
    origin: Any = 0,
    *,
    axes: Any = None,
) -> Any:
    """``scipy.ndimage.correlate``: the N-D correlation with the array ``weights`` (one
    axis of ``weights`` per axis of ``axes``, every axis by default).

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.ndimage import correlate
        >>> correlate(np.eye(2), np.ones((2, 2)), mode="constant").tolist()
        [[1.0, 1.0], [1.0, 2.0]]
    """
    x, dtype = _float(input)
    axes_ = _axes(x, axes)
    w = _weights(weights, x)
    if fnp.ndim(w) != len(axes_):
        raise ValueError(
            f"correlate: weights must have one axis per filtered axis ({len(axes_)}), "
            f"got shape {fnp.shape(w)}"
        )
    origins = _per_axis(origin, len(axes_))
    widths = [(0, 0)] * fnp.ndim(x)
    centers = []
    for a, size, o in zip(axes_, fnp.shape(w), origins):
        center = size // 2 + int(o)
        if not 0 <= center < size:
            raise ValueError(f"correlate: invalid origin {o} for a filter of size {size}")
        centers.append(center)
        widths[a] = (center, size - 1 - center)
    pad = _pad_mode(mode, "correlate")
    padded = fnp.pad(
        x, widths, mode=pad, **({"constant_values": cval} if pad == "constant" else {})
    )
    out = None
    for offset in numpy.ndindex(*fnp.shape(w)):
        index = [slice(None)] * fnp.ndim(x)
        for a, j in zip(axes_, offset):
            index[a] = slice(j, j + fnp.shape(x)[a])
        piece = padded[tuple(index)] * w[offset]
        out = piece if out is None else out + piece
    return _finish(out, output, dtype)


def convolve(
    input: Any,
    weights: Any,
    output: Any = None,
    mode: str = "reflect",
    cval: float = 0.0,
    origin: Any = 0,
    *,
    axes: Any = None,
) -> Any:
    """``scipy.ndimage.convolve``: the N-D convolution with the array ``weights``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.ndimage import convolve
        >>> convolve(np.eye(2), np.array([[0.0, 1.0], [0.0, 0.0]]), mode="constant").tolist()
        [[0.0, 1.0], [0.0, 0.0]]
    """
    w = fnp.asarray(weights)
    flipped = w[(slice(None, None, -1),) * fnp.ndim(w)]
    origins = _per_axis(origin, fnp.ndim(w))
    origins = [-int(o) - (0 if size % 2 else 1) for o, size in zip(origins, fnp.shape(w))]
    return correlate(input, flipped, output, mode, cval, origins, axes=axes)


def _gaussian_kernel(sigma: float, order: int, radius: int) -> numpy.ndarray:
    """The sampled Gaussian (normalised to sum 1) on ``-radius..radius``, times the
    polynomial of its ``order``-th derivative (built by differentiating ``q(x) phi(x)``
    ``order`` times: ``q' - x q / sigma**2``)."""
    x = numpy.arange(-radius, radius + 1, dtype=float)
    phi = numpy.exp(-0.5 / (sigma * sigma) * x * x)
    phi /= phi.sum()
    if order == 0:
        return phi
    powers = numpy.arange(order + 1)
    q = numpy.zeros(order + 1)
    q[0] = 1.0
    derivative = numpy.diag(powers[1:].astype(float), 1) + numpy.diag(
        numpy.full(order, -1.0 / (sigma * sigma)), -1
    )
    for _ in range(order):
        q = derivative @ q
    return (x[:, None] ** powers) @ q * phi


def gaussian_filter1d(
    input: Any,
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
    """``scipy.ndimage.gaussian_filter1d``: the Gaussian filter (``order``: its derivative)
    along ``axis``, the kernel cut at ``truncate`` standard deviations (or ``radius``).

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.ndimage import gaussian_filter1d
        >>> gaussian_filter1d(np.array([0.0, 0.0, 1.0, 0.0, 0.0]), 1.0).round(4).tolist()
        [0.0584, 0.2421, 0.3989, 0.2421, 0.0584]
    """
    if order < 0:
        raise ValueError("gaussian_filter1d: order must be non-negative")
    sd = float(sigma)
    lw = int(truncate * sd + 0.5) if radius is None else int(radius)
    if lw < 0:
        raise ValueError("gaussian_filter1d: radius must be a non-negative integer")
    weights = _gaussian_kernel(sd, int(order), lw)[::-1]
    return correlate1d(input, weights, axis, output, mode, cval, 0)


def gaussian_filter(
    input: Any,
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
    """``scipy.ndimage.gaussian_filter``: the separable Gaussian filter over ``axes``
    (every axis by default); ``sigma``, ``order``, ``mode`` and ``radius`` per axis or one
    for all.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.ndimage import gaussian_filter
        >>> round(float(gaussian_filter(np.eye(3), 1.0).sum()), 6)
        3.0
    """
    x, dtype = _float(input)
    axes_ = _axes(x, axes)
    n = len(axes_)
    for m in _per_axis(mode, n):
        _pad_mode(m, "gaussian_filter(input, sigma)")
    settings = zip(
        axes_, _per_axis(sigma, n), _per_axis(order, n), _per_axis(mode, n), _per_axis(radius, n)
    )
    for axis, sd, o, m, r in settings:
        if float(sd) > 1e-15:
            x = gaussian_filter1d(x, sd, axis, o, None, m, cval, truncate, radius=r)
    return _finish(x, output, dtype)


def uniform_filter1d(
    input: Any,
    size: int,
    axis: int = -1,
    output: Any = None,
    mode: str = "reflect",
    cval: float = 0.0,
    origin: int = 0,
) -> Any:
    """``scipy.ndimage.uniform_filter1d``: the moving average of ``size`` samples.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.ndimage import uniform_filter1d
        >>> uniform_filter1d(np.array([0.0, 3.0, 0.0]), 3, mode="constant").tolist()
        [1.0, 1.0, 1.0]
    """
    if size < 1:
        raise ValueError("uniform_filter1d: size must be at least 1")
    x, dtype = _float(input)
    total = _correlate_along(x, numpy.ones(int(size)), axis, mode, cval, origin, "uniform_filter1d")
    return _finish(total / size, output, dtype)  # the window's sum, then one division (SciPy's)


def uniform_filter(
    input: Any,
    size: Any = 3,
    output: Any = None,
    mode: Any = "reflect",
    cval: float = 0.0,
    origin: Any = 0,
    *,
    axes: Any = None,
) -> Any:
    """``scipy.ndimage.uniform_filter``: the moving average over a box of ``size`` along
    each of ``axes``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.ndimage import uniform_filter
        >>> float(uniform_filter(np.ones((3, 3)))[1, 1])
        1.0
    """
    x, dtype = _float(input)
    axes_ = _axes(x, axes)
    n = len(axes_)
    for m in _per_axis(mode, n):
        _pad_mode(m, "uniform_filter(input, size)")
    for axis, s, m, o in zip(axes_, _per_axis(size, n), _per_axis(mode, n), _per_axis(origin, n)):
        if int(s) > 1:
            x = uniform_filter1d(x, int(s), axis, None, m, cval, int(o))
    return _finish(x, output, dtype)


def _derivative_filter(input, axis, output, mode, cval, smooth: Sequence[float]) -> Any:
    x, dtype = _float(input)
    axis = normalize_axis(axis, fnp.ndim(x))
    x = correlate1d(x, numpy.array([-1.0, 0.0, 1.0]), axis, None, mode, cval, 0)
    for other in range(fnp.ndim(x)):
        if other != axis:
            x = correlate1d(x, numpy.array(smooth), other, None, mode, cval, 0)
    return _finish(x, output, dtype)


def sobel(
    input: Any, axis: int = -1, output: Any = None, mode: str = "reflect", cval: float = 0.0
) -> Any:
    """``scipy.ndimage.sobel``: the Sobel derivative along ``axis`` (smoothed ``[1, 2, 1]``
    along the others).

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.ndimage import sobel
        >>> sobel(np.array([0.0, 1.0, 2.0, 3.0])).tolist()
        [1.0, 2.0, 2.0, 1.0]
    """
    return _derivative_filter(input, axis, output, mode, cval, (1.0, 2.0, 1.0))


def prewitt(
    input: Any, axis: int = -1, output: Any = None, mode: str = "reflect", cval: float = 0.0
) -> Any:
    """``scipy.ndimage.prewitt``: the Prewitt derivative along ``axis`` (smoothed
    ``[1, 1, 1]`` along the others).

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.ndimage import prewitt
        >>> prewitt(np.array([0.0, 1.0, 2.0, 3.0])).tolist()
        [1.0, 2.0, 2.0, 1.0]
    """
    return _derivative_filter(input, axis, output, mode, cval, (1.0, 1.0, 1.0))


def laplace(
    input: Any, output: Any = None, mode: str = "reflect", cval: float = 0.0, *, axes: Any = None
) -> Any:
    """``scipy.ndimage.laplace``: the sum over ``axes`` of the second differences
    ``[1, -2, 1]``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.ndimage import laplace
        >>> laplace(np.array([0.0, 1.0, 4.0, 9.0]), mode="nearest").tolist()
        [1.0, 2.0, 2.0, -5.0]
    """
    x, dtype = _float(input)
    total = None
    for axis in _axes(x, axes):
        term = correlate1d(x, numpy.array([1.0, -2.0, 1.0]), axis, None, mode, cval, 0)
        total = term if total is None else total + term
    return _finish(x if total is None else total, output, dtype)


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
        >>> from ftransforms.scipy.ndimage import gaussian_laplace
        >>> round(float(gaussian_laplace(np.ones((5, 5)), 1.0)[2, 2]), 6)  # SciPy's too
        -0.000144
    """
    x, dtype = _float(input)
    axes_ = _axes(x, axes)
    n = len(axes_)
    sigmas, modes = _per_axis(sigma, n), _per_axis(mode, n)
    out = None
    for i in range(n):
        orders = [0] * n
        orders[i] = 2
        term = gaussian_filter(x, sigmas, orders, None, modes, cval, axes=axes_, **kwargs)
        out = term if out is None else out + term
    return _finish(out, output, dtype)


# -- interpolation at coordinates --------------------------------------------------------------


def gaussian_gradient_magnitude(
    input: Any,  # noqa: A002
    sigma: Any,
    output: Any = None,
    mode: Any = "reflect",
    cval: float = 0.0,
    *,
    axes: Any = None,
    **kwargs: Any,
) -> Any:
    """``scipy.ndimage.gaussian_gradient_magnitude``: ``sqrt(sum_d g_d**2)``, ``g_d``
    the input filtered with the first derivative of the Gaussian along axis ``d``;
    ``kwargs`` go to the Gaussian filter (``truncate``, ``radius``).

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.ndimage import gaussian_gradient_magnitude
        >>> x = np.arange(5.0)[:, None] * np.ones((5, 5))  # slope 1 along axis 0
        >>> round(float(gaussian_gradient_magnitude(x, 1.0)[2, 2]), 6)  # SciPy's too
        0.970125
    """
    x, dtype = _float(input)
    axes_ = _axes(x, axes)
    n = len(axes_)
    sigmas, modes = _per_axis(sigma, n), _per_axis(mode, n)
    total = None
    for i in range(n):
        orders = [0] * n
        orders[i] = 1
        g = gaussian_filter(x, sigmas, orders, None, modes, cval, axes=axes_, **kwargs)
        total = g * g if total is None else total + g * g
    return _finish(fnp.sqrt(total), output, dtype)


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
    raise ValueError(f"{where}: mode must be one of {sorted(_PAD)}, got {mode!r}")


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
    ``[0, n - 1]`` as SciPy does.  Orders 2-5: SciPy's spline map as a fixed linear map
    (fixed coordinates, a small input: NOTE [spline interpolation as a fixed linear map]).

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.ndimage import map_coordinates
        >>> img = np.arange(9.0).reshape(3, 3)
        >>> map_coordinates(img, np.array([[0.5, 2.0], [1.0, 1.5]]), order=1).tolist()
        [2.5, 7.5]
    """
    where = "map_coordinates(input, coordinates)"
    if _spline_order(order, where) > 1:
        _static_settings(where, order, coordinates=coordinates)
        coords = numpy.asarray(coordinates, dtype=float)

        def call(a: Any, c: Any) -> Any:
            return _scipy_ndimage().map_coordinates(a, coords, None, order, mode, c, prefilter)

        x, dtype = _float(input)
        key = _settings_key("map_coordinates", coords, order, mode, prefilter)
        out = _spline_dense(x, call, coords.shape[1:], mode, cval, where, key)
        return _finish(out, output, dtype)
    x, dtype = _float(input)
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
    return _finish(out, output, dtype)


# -- geometric transforms on map_coordinates ----------------------------------------------------


def _concrete(value: Any) -> numpy.ndarray:
    """The values of a setting that decides a shape (a read of the data when traced:
    NOTE [value-dependent traces])."""
    if isinstance(value, Tracer):
        value = peek(fnp.stop_gradient(value))
    get = getattr(value, "get", None)
    return numpy.asarray(
        get() if get is not None and not isinstance(value, numpy.ndarray) else value
    )


def _grid(shape: tuple, like: Any) -> Any:
    """The output's index coordinates, ``(len(shape), *shape)`` floats."""
    return fnp.asarray(numpy.indices(shape, dtype=float), like=like)


def _setting(value: Any, like: Any) -> Any:
    return (
        value
        if hasattr(value, "dtype")
        else fnp.asarray(numpy.asarray(value, dtype=float), like=like)
    )


def affine_transform(
    input: Any,  # noqa: A002
    matrix: Any,
    offset: Any = 0.0,
    output_shape: Any = None,
    output: Any = None,
    order: int = 3,
    mode: str = "constant",
    cval: float = 0.0,
    prefilter: bool = True,
) -> Any:
    """``scipy.ndimage.affine_transform``: the output at index ``o`` is the input at
    ``matrix @ o + offset`` (interpolated by :func:`map_coordinates`: ``order`` 0 or 1).
    ``matrix`` is ``(ndim, ndim)``, a diagonal ``(ndim,)``, or homogeneous
    ``(ndim + 1, ndim + 1)``/``(ndim, ndim + 1)``; ``matrix`` and ``offset`` may be traced
    (differentiable with ``order=1``).

    Example:
        >>> import numpy as np
        >>> img = np.arange(4.0).reshape(2, 2)
        >>> affine_transform(img, np.array([1.0, 1.0]), offset=0.5, order=1).tolist()
        [[1.5, 0.0], [0.0, 0.0]]
    """
    where = "affine_transform(input, matrix)"
    if _spline_order(order, where) > 1:
        _static_settings(where, order, matrix=matrix, offset=offset)
        shape_out = output_shape
        if shape_out is None:
            shape_out = output.shape if hasattr(output, "shape") else fnp.shape(input)

        def call(a: Any, c: Any) -> Any:
            return _scipy_ndimage().affine_transform(
                a, matrix, offset, shape_out, None, order, mode, c, prefilter
            )

        x, dtype = _float(input)
        key = _settings_key("affine", matrix, offset, tuple(shape_out), order, mode, prefilter)
        out = _spline_dense(x, call, tuple(shape_out), mode, cval, where, key)
        return _finish(out, output, dtype)
    x = fnp.asarray(input)
    nd = fnp.ndim(x)
    if nd < 1:
        raise RuntimeError(f"{where}: input rank must be > 0")
    m = _setting(matrix, x)
    ms = fnp.shape(m)
    if fnp.ndim(m) not in (1, 2) or ms[0] < 1:
        raise RuntimeError(f"{where}: no proper affine matrix provided, got shape {ms}")
    if fnp.ndim(m) == 2 and ms[1] == nd + 1 and ms[0] in (nd, nd + 1):
        if ms[0] == nd + 1:
            bottom = _concrete(m)[nd]
            if not numpy.all(bottom == [0] * nd + [1]):
                raise ValueError(
                    f"{where}: expected a homogeneous transformation matrix with shape {ms} "
                    f"for image shape {fnp.shape(x)}, but its bottom row was not "
                    f"{[0] * nd + [1]}"
                )
        offset = m[:nd, nd]
        m = m[:nd, :nd]
        ms = fnp.shape(m)
    if ms[0] != nd:
        raise RuntimeError(f"{where}: affine matrix has wrong number of rows: {ms[0]} != {nd}")
    out_shape = tuple(fnp.shape(x) if output_shape is None else (int(s) for s in output_shape))
    if output_shape is None and output is not None and hasattr(output, "shape"):
        out_shape = tuple(output.shape)
    if fnp.ndim(m) == 2 and ms[1] != len(out_shape):
        raise RuntimeError(f"{where}: affine matrix has wrong number of columns")
    off = _setting(offset, x)
    if fnp.ndim(off) == 0:
        off = fnp.broadcast_to(off, (nd,))
    if fnp.shape(off) != (nd,):
        raise RuntimeError(f"{where}: offset must be a scalar or have {nd} entries")
    grid = _grid(out_shape, x)
    if fnp.ndim(m) == 1:  # SciPy's zoom_shift: (o + offset / m) * m
        extra = (1,) * len(out_shape)
        coords = (grid + fnp.reshape(off / m, (nd,) + extra)) * fnp.reshape(m, (nd,) + extra)
    else:
        coords = _affine_coordinates(m, off, grid)
    return map_coordinates(x, coords, output, order, mode, cval, prefilter)


def _affine_coordinates(m: Any, off: Any, grid: Any) -> Any:
    """``m @ o + off`` at every output index ``o``, summed in SciPy's order (its
    ``order=0`` rounding at half-way coordinates sees the same floats)."""
    rows = []
    for i in range(fnp.shape(m)[0]):
        c = off[i]  # SciPy adds the offset first
        for j in range(fnp.shape(m)[1]):
            c = c + m[i, j] * grid[j]
        rows.append(c)
    return fnp.stack(rows)


def shift(
    input: Any,  # noqa: A002
    shift: Any,
    output: Any = None,
    order: int = 3,
    mode: str = "constant",
    cval: float = 0.0,
    prefilter: bool = True,
) -> Any:
    """``scipy.ndimage.shift``: the output at index ``o`` is the input at ``o - shift``
    (``order`` 0 or 1; ``shift`` may be traced).

    Example:
        >>> import numpy as np
        >>> shift(np.array([1.0, 2.0, 3.0]), 1, order=1).tolist()
        [0.0, 1.0, 2.0]
    """
    if _spline_order(order, "shift(input, shift)") > 1:
        _static_settings("shift(input, shift)", order, shift=shift)
        x, dtype = _float(input)
        per_axis = list(numpy.broadcast_to(numpy.asarray(shift, float), (fnp.ndim(x),)))

        def call(a: Any, s: Any, c: Any) -> Any:
            return _scipy_ndimage().shift(a, s, None, order, mode, c, prefilter)

        return _finish(_spline_separable(x, call, per_axis, mode, cval), output, dtype)
    x = fnp.asarray(input)
    nd = fnp.ndim(x)
    if nd < 1:
        raise RuntimeError("shift(input, shift): input rank must be > 0")
    s = _setting(shift, x)
    if fnp.ndim(s) == 0:
        s = fnp.broadcast_to(s, (nd,))
    if fnp.shape(s) != (nd,):
        raise RuntimeError(f"shift(input, shift): shift must be a scalar or have {nd} entries")
    ones = fnp.ones((nd,), dtype=dtype_of(s), like=x)
    return affine_transform(x, ones, -s, None, output, order, mode, cval, prefilter)


def zoom(
    input: Any,  # noqa: A002
    zoom: Any,
    output: Any = None,
    order: int = 3,
    mode: str = "constant",
    cval: float = 0.0,
    prefilter: bool = True,
    *,
    grid_mode: bool = False,
) -> Any:
    """``scipy.ndimage.zoom``: resample to ``round(shape * zoom)`` (``order`` 0 or 1).
    As SciPy's, the first and last samples stay aligned (``grid_mode=True``: the pixel
    edges are aligned instead, output ``o`` samples the input at
    ``(o + 0.5) * n_in / n_out - 0.5``).  The output shape reads ``zoom``.

    Example:
        >>> import numpy as np
        >>> zoom(np.array([0.0, 2.0]), 2, order=1).round(12).tolist()
        [0.0, 0.666666666667, 1.333333333333, 2.0]
    """
    if _spline_order(order, "zoom(input, zoom)") > 1:
        _static_settings("zoom(input, zoom)", order, zoom=zoom)
        x, dtype = _float(input)
        per_axis = list(numpy.broadcast_to(numpy.asarray(zoom, float), (fnp.ndim(x),)))
        if all(z == 1 for z in per_axis) and prefilter:
            return _finish(x, output, dtype)

        def call(a: Any, z: Any, c: Any) -> Any:
            if numpy.ndim(a) == 1 and z[0] == 1:  # SciPy's nD zoom filters this axis too
                return _scipy_ndimage().shift(a, 0.0, None, order, mode, c, prefilter)
            return _scipy_ndimage().zoom(a, z, None, order, mode, c, prefilter, grid_mode=grid_mode)

        return _finish(_spline_separable(x, call, per_axis, mode, cval), output, dtype)
    x = fnp.asarray(input)
    nd = fnp.ndim(x)
    if nd < 1:
        raise RuntimeError("zoom(input, zoom): input rank must be > 0")
    factors = numpy.broadcast_to(_concrete(zoom).astype(float), (nd,))
    in_shape = numpy.array(fnp.shape(x))
    out_shape = tuple(int(round(n * z)) for n, z in zip(in_shape, factors))
    if numpy.all(factors == 1) and prefilter:
        return _finish(_float(x)[0], output, dtype_of(x))
    num, div = in_shape.astype(float), numpy.array(out_shape, dtype=float)
    if not grid_mode:
        num, div = num - 1, div - 1
    scale = numpy.divide(num, div, out=numpy.ones(nd), where=div != 0)
    grid = _grid(out_shape, x)
    extra = (1,) * nd
    if grid_mode:
        coords = (grid + 0.5) * numpy.reshape(scale, (nd,) + extra) - 0.5
    else:
        coords = grid * numpy.reshape(scale, (nd,) + extra)
    return map_coordinates(x, coords, output, order, mode, cval, prefilter)


def rotate(
    input: Any,  # noqa: A002
    angle: Any,
    axes: Any = (1, 0),
    reshape: bool = True,
    output: Any = None,
    order: int = 3,
    mode: str = "constant",
    cval: float = 0.0,
    prefilter: bool = True,
) -> Any:
    """``scipy.ndimage.rotate``: rotate by ``angle`` degrees in the plane of ``axes``
    (about the centre; ``reshape``: the output grows to hold the whole input), every
    plane parallel to it alike (``order`` 0 or 1; ``angle`` may be traced).

    Example:
        >>> import numpy as np
        >>> rotate(np.array([[1.0, 2.0], [3.0, 4.0]]), 90, order=1).round(12).tolist()
        [[2.0, 4.0], [1.0, 3.0]]
    """
    where = "rotate(input, angle)"
    if _spline_order(order, where) > 1:
        _static_settings(where, order, angle=angle)

        def call(a: Any, c: Any) -> Any:
            return _scipy_ndimage().rotate(a, angle, axes, reshape, None, order, mode, c, prefilter)

        x, dtype = _float(input)
        shape_out = call(numpy.zeros(fnp.shape(x)), 0.0).shape
        key = _settings_key("rotate", angle, tuple(axes), reshape, order, mode, prefilter)
        out = _spline_dense(x, call, shape_out, mode, cval, where, key)
        return _finish(out, output, dtype)
    x = fnp.asarray(input)
    nd = fnp.ndim(x)
    if nd < 2:
        raise ValueError(f"{where}: input array should be at least 2D")
    axes = list(axes)
    if len(axes) != 2:
        raise ValueError(f"{where}: axes should contain exactly two values")
    axes = [int(a) + nd if int(a) < 0 else int(a) for a in axes]
    if not all(0 <= a < nd for a in axes) or axes[0] == axes[1]:
        raise ValueError(f"{where}: invalid rotation plane specified")
    axes.sort()
    img_shape = numpy.array(fnp.shape(x))
    in_plane = img_shape[axes]
    iy, ix = in_plane
    corners = numpy.array([[0, 0, iy, iy], [0, ix, 0, ix]], dtype=float)
    if isinstance(angle, Tracer):
        c, s = _special.cosdg(angle), _special.sindg(angle)  # exact at multiples of 90
        rot0 = None
        if reshape:  # the output's size reads the angle: vmap rows that disagree split
            rot_t = fnp.stack([fnp.stack([c, s]), fnp.stack([-s, c])])
            bounds = fnp.matmul(fnp.stop_gradient(rot_t), corners)
            size = fnp.max(bounds, axis=1) - fnp.min(bounds, axis=1) + 0.5
            out_plane = numpy.array(
                [_agreed(fnp.astype(size[k], numpy.int64), where) for k in (0, 1)]
            )
        else:
            out_plane = in_plane
    else:
        c = s = None
        deg = float(angle)
        sp = scipy_special(numpy)  # SciPy's cosdg/sindg: the same floats as its rotate
        c0, s0 = float(sp.cosdg(deg)), float(sp.sindg(deg))
        rot0 = numpy.array([[c0, s0], [-s0, c0]])
        if reshape:
            out_plane = (numpy.ptp(rot0 @ corners, axis=1) + 0.5).astype(int)
        else:
            out_plane = in_plane
    if c is None:
        rot = rot0
    else:
        rot = fnp.stack([fnp.stack([c, s]), fnp.stack([-s, c])])
    in_center = (in_plane - 1) / 2
    if c is None:
        offset = fnp.asarray(in_center - rot0 @ ((out_plane - 1) / 2), like=x)
    else:
        offset = in_center - fnp.matmul(rot, (out_plane - 1) / 2)
    # the rotation plane last, every other axis a batch of planes
    others = [a for a in range(nd) if a not in axes]
    moved = fnp.transpose(x, others + axes)
    lead = fnp.shape(moved)[:-2]
    planes = fnp.reshape(moved, (-1,) + tuple(int(v) for v in in_plane))
    out_plane_t = tuple(int(v) for v in out_plane)
    grid = _grid(out_plane_t, x)
    coords2 = _affine_coordinates(fnp.asarray(rot, like=x), offset, grid)
    out = _map_planes(planes, coords2, order, mode, cval, prefilter)
    out = fnp.reshape(out, lead + out_plane_t)
    inverse = numpy.argsort(others + axes)
    return _finish(fnp.transpose(out, tuple(int(i) for i in inverse)), output, dtype_of(x))


def _agreed(size: Any, where: str) -> int:
    """A size read from the data; ``vmap`` rows of other sizes split the batch (NOTE
    [splitting the batch]), as each row of the loop gets its own shape."""
    return same_across_batch(
        size,
        where,
        "with reshape=True the output's shape depends on the angle; pass reshape=False, "
        "or drop split=False",
    )


def _map_planes(
    planes: Any, coords: Any, order: int, mode: str, cval: float, prefilter: bool
) -> Any:
    """``map_coordinates`` of each plane of a stack at the same in-plane coordinates."""
    outs = [
        map_coordinates(planes[k], coords, None, order, mode, cval, prefilter)
        for k in range(fnp.shape(planes)[0])
    ]
    return fnp.stack(outs)


# -- spline orders 2-5 ---------------------------------------------------------------------------
#
# NOTE [spline interpolation as a fixed linear map]: with its settings fixed (the zoom
# factors, the shift, the matrix, the coordinates), SciPy's spline interpolation is an
# affine map of the input: the prefilter and the B-spline weights are linear, and ``cval``
# enters only where SciPy puts it.  So the map is taken from SciPy once, on the host: the
# per-axis matrices of ``zoom``/``shift`` (separable: SciPy's 1-D map of each basis
# vector), the whole matrix for ``rotate``/``affine_transform``/
# ``map_coordinates`` (its response to every basis image: small inputs), and the response
# to a zero image for ``cval``.  Applying them is a ``tensordot``: every transform works,
# the values are SciPy's, the derivative in the input is exact; the settings cannot be
# traced (order 1 differentiates in them).

_DENSE_LIMIT = 1 << 22  # entries of a whole interpolation matrix (32 MiB in float64)


def _spline_order(order: Any, where: str) -> int:
    order = int(order)
    if not 0 <= order <= 5:
        raise RuntimeError(f"{where}: spline order {order} not supported (0 to 5)")
    return order


def _static_settings(where: str, order: int, **settings: Any) -> None:
    for name, value in settings.items():
        if holds_traced_value(value):
            raise UnsupportedOperationError(
                f"{where}: order={order} interpolates with a fixed linear map, so {name} "
                f"cannot be traced; pass order=1 to differentiate in {name}"
            )


def _scipy_ndimage() -> Any:
    import scipy.ndimage  # noqa: PLC0415  SciPy computes the fixed maps: the optional extra

    return scipy.ndimage


def _along(y: Any, matrix: numpy.ndarray, axis: int) -> Any:
    m = fnp.asarray(matrix, like=y)
    return fnp.moveaxis(fnp.tensordot(m, y, axes=([1], [axis])), 0, axis)


def _spline_separable(x: Any, call: Any, per_axis: list, mode: str, cval: Any) -> Any:
    """``call(array, factors, cval)`` (SciPy's zoom or shift, one factor per axis) as one
    fixed matrix per axis (NOTE [spline interpolation as a fixed linear map])."""
    y = x if dtype_of(x).kind in "fc" else fnp.astype(x, numpy.float64)
    for d, f in enumerate(per_axis):
        n = fnp.shape(x)[d]
        columns = [call(e, (f,), 0.0) for e in numpy.eye(n)]  # SciPy's 1-D map, per basis
        y = _along(y, numpy.stack(columns, axis=1), d)
    if mode in ("constant", "grid-constant") and cval != 0:
        y = y + fnp.asarray(call(numpy.zeros(fnp.shape(x)), tuple(per_axis), cval), like=x)
    return y


def _settings_key(*values: Any) -> tuple:
    """A hashable key of a spline map's settings (arrays by their bytes)."""
    out = []
    for v in values:
        a = numpy.asarray(v)
        out.append((a.shape, a.dtype.str, a.tobytes()) if a.dtype != object else repr(v))
    return tuple(out)


#: The latest dense spline maps (a training loop calls with the same settings).
_DENSE_CACHE: dict = {}
_DENSE_CACHE_SIZE = 4


def _spline_dense(
    x: Any, call: Any, out_shape: tuple, mode: str, cval: Any, where: str, key: tuple
) -> Any:
    """``call(array, cval)`` as one fixed matrix from SciPy's response to every basis
    image (NOTE [spline interpolation as a fixed linear map]), kept for the next call
    with the same settings."""
    shape = tuple(fnp.shape(x))
    n_in, n_out = int(numpy.prod(shape)), int(numpy.prod(out_shape))
    if n_in * n_out > _DENSE_LIMIT:
        raise UnsupportedOperationError(
            f"{where}: a spline order on a traced {shape} input needs a {n_out}x{n_in} "
            f"interpolation matrix (over {_DENSE_LIMIT} entries); pass order=1 or order=0, "
            f"or a smaller input"
        )
    key = (key, shape)
    cols = _DENSE_CACHE.pop(key, None)
    if cols is None:
        basis = numpy.zeros(shape)
        cols = numpy.empty((n_in, n_out))
        for k in range(n_in):
            basis.flat[k] = 1.0
            cols[k] = numpy.ravel(call(basis, 0.0))
            basis.flat[k] = 0.0
        while len(_DENSE_CACHE) >= _DENSE_CACHE_SIZE:
            _DENSE_CACHE.pop(next(iter(_DENSE_CACHE)))
    _DENSE_CACHE[key] = cols  # the most recent last
    y = x if dtype_of(x).kind in "fc" else fnp.astype(x, numpy.float64)
    flat = fnp.reshape(y, (n_in,))
    out = fnp.reshape(fnp.matmul(flat, fnp.asarray(cols, like=x)), out_shape)
    if mode in ("constant", "grid-constant") and cval != 0:
        out = out + fnp.asarray(call(numpy.zeros(shape), cval), like=x)
    return out


#: SciPy's prefilter matrices, by (length, order, mode) (a training loop repeats them).
_PREFILTERS: dict = {}


def _prefilter_matrix(n: int, order: int, mode: str) -> numpy.ndarray:
    key = (n, order, mode)
    m = _PREFILTERS.get(key)
    if m is None:
        f = _scipy_ndimage().spline_filter1d
        m = numpy.stack([f(e, order, -1, numpy.float64, mode) for e in numpy.eye(n)], axis=1)
        _PREFILTERS[key] = m
    return m


def spline_filter1d(
    input: Any, order: int = 3, axis: int = -1, output: Any = numpy.float64, mode: str = "mirror"
) -> Any:
    """``scipy.ndimage.spline_filter1d``: the B-spline prefilter (interpolation
    coefficients) of ``order`` along ``axis``, SciPy's fixed 1-D map as a matrix (NOTE
    [spline interpolation as a fixed linear map]); orders 0 and 1 copy the input.

    Example:
        >>> import numpy as np
        >>> spline_filter1d(np.array([0.0, 1.0, 0.0, 0.0]), 3).round(4).tolist()
        [-0.9333, 1.8667, -0.5333, 0.2667]
    """
    where = "spline_filter1d(input, order, axis)"
    order = _spline_order(order, where)
    x, dtype = _float(input)
    if order > 1 and fnp.ndim(x):
        axis = normalize_axis(axis, fnp.ndim(x))
        x = _along(x, _prefilter_matrix(fnp.shape(x)[axis], order, mode), axis)
    return _finish(x, output, dtype)


def spline_filter(
    input: Any, order: int = 3, output: Any = numpy.float64, mode: str = "mirror"
) -> Any:
    """``scipy.ndimage.spline_filter``: :func:`spline_filter1d` along every axis.

    Example:
        >>> import numpy as np
        >>> spline_filter(np.eye(2), 2).round(4).tolist()
        [[2.5, -1.5], [-1.5, 2.5]]
    """
    if not 2 <= int(order) <= 5:  # (SciPy's spline_filter1d copies at orders 0 and 1)
        raise RuntimeError(
            f"spline_filter(input, order): spline order {order} not supported (2 to 5)"
        )
    x, dtype = _float(input)
    for axis in range(fnp.ndim(x)):
        x = _along(x, _prefilter_matrix(fnp.shape(x)[axis], int(order), mode), axis)
    return _finish(x, output, dtype)
