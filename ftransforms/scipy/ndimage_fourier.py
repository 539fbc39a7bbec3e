"""``scipy.ndimage``'s Fourier-domain filters on tracers: ``fourier_gaussian``,
``fourier_uniform``, ``fourier_shift`` and ``fourier_ellipsoid``, with SciPy's signatures.

Each multiplies the (complex or real) Fourier transform ``input`` by a separable factor,
one per axis, of the sample frequencies: ``fftfreq(s)`` along a full transform's axis, and
``arange(s) / n`` along ``axis`` when ``n > 0`` says the input is a real transform of an
``n``-long signal.  The factors are built with :mod:`ftransforms.numpy`, so every
transform works and ``sigma``/``size``/``shift`` may be traced too.  The result's dtype is
SciPy's: the input's for complex and float32 input, else float64 (``fourier_shift``:
complex128 unless the input is complex).

Example:
    >>> import numpy as np
    >>> f = np.fft.fft(np.array([0.0, 1.0, 0.0, 0.0]))
    >>> np.fft.ifft(fourier_shift(f, 1)).real.round(6).tolist()  # one sample later (SciPy too)
    [0.0, 0.0, 1.0, -0.0]
"""

from __future__ import annotations

import math
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.numpy.helpers import normalize_axis
from ftransforms.scipy.special import j1

__all__ = ["fourier_ellipsoid", "fourier_gaussian", "fourier_shift", "fourier_uniform"]


def _per_axis(value: Any, nd: int, where: str) -> list:
    if fnp.ndim(value) == 0:
        return [value] * nd
    if len(value) != nd:
        raise RuntimeError(f"{where}: one value per axis of the input ({nd}), got {len(value)}")
    return [value[d] for d in range(nd)]


def _filtered(
    input: Any, value: Any, n: int, axis: int, output: Any, where: str, factor: Any
) -> Any:
    x = fnp.asarray(input)
    nd = fnp.ndim(x)
    axis = normalize_axis(axis, nd) if nd else 0
    values = _per_axis(value, nd, where)
    out = x
    for d, s in enumerate(fnp.shape(x)):
        f = numpy.arange(s) / n if n > 0 and d == axis else numpy.fft.fftfreq(s)
        shape = [1] * nd
        shape[d] = s
        out = out * fnp.reshape(factor(f, values[d]), shape)
    return out if output is None else out.astype(output)


def _real_dtype(x: Any) -> Any:
    kind = fnp.asarray(x).dtype
    return kind if kind in (numpy.complex64, numpy.complex128, numpy.float32) else numpy.float64


def fourier_gaussian(
    input: Any, sigma: Any, n: int = -1, axis: int = -1, output: Any = None
) -> Any:
    """``scipy.ndimage.fourier_gaussian``: the transform times ``exp(-2 pi^2 sigma^2 f^2)``
    per axis (a Gaussian filter in the signal domain).

    Example:
        >>> import numpy as np
        >>> fourier_gaussian(np.ones(4), 1.0).round(4).tolist()
        [1.0, 0.2912, 0.0072, 0.2912]
    """

    def factor(f: Any, s: Any) -> Any:
        return fnp.exp(-2.0 * math.pi**2 * s * s * (f * f))

    out = _filtered(input, sigma, n, axis, None, "fourier_gaussian(input, sigma)", factor)
    return out.astype(_real_dtype(input) if output is None else output)


def fourier_uniform(input: Any, size: Any, n: int = -1, axis: int = -1, output: Any = None) -> Any:
    """``scipy.ndimage.fourier_uniform``: the transform times ``sinc(f size)`` per axis (a
    box filter of width ``size`` in the signal domain).

    Example:
        >>> import numpy as np
        >>> fourier_uniform(np.ones(4), 2.0).round(4).tolist()
        [1.0, 0.6366, 0.0, 0.6366]
    """

    def factor(f: Any, s: Any) -> Any:
        return fnp.sinc(f * s)

    out = _filtered(input, size, n, axis, None, "fourier_uniform(input, size)", factor)
    return out.astype(_real_dtype(input) if output is None else output)


def fourier_shift(input: Any, shift: Any, n: int = -1, axis: int = -1, output: Any = None) -> Any:
    """``scipy.ndimage.fourier_shift``: the transform times ``exp(-2 pi i f shift)`` per
    axis (a shift by ``shift`` samples in the signal domain).

    Example:
        >>> import numpy as np
        >>> fourier_shift(np.ones(4), 1.0).round(4).tolist()
        [(1+0j), -1j, (-1+0j), 1j]
    """

    def factor(f: Any, s: Any) -> Any:
        return fnp.exp((-2j * math.pi) * (f * s))

    x = fnp.asarray(input)
    kind = x.dtype if x.dtype in (numpy.complex64, numpy.complex128) else numpy.complex128
    out = _filtered(x.astype(kind), shift, n, axis, None, "fourier_shift(input, shift)", factor)
    return out.astype(kind if output is None else output)


def fourier_ellipsoid(
    input: Any, size: Any, n: int = -1, axis: int = -1, output: Any = None
) -> Any:
    """``scipy.ndimage.fourier_ellipsoid``: the transform times the transform of an
    ellipsoid of semi-axes ``size / 2`` (1-3 dimensions): with ``r = pi |f * size|``,
    ``sin(r) / r``, ``2 J1(r) / r`` or ``3 (sin r - r cos r) / r**3``.

    Example:
        >>> import numpy as np
        >>> fourier_ellipsoid(np.ones(4), 2.0).round(4).tolist()
        [1.0, 0.6366, 0.0, 0.6366]
    """
    x = fnp.asarray(input)
    nd = fnp.ndim(x)
    if not 1 <= nd <= 3:
        raise NotImplementedError(
            f"fourier_ellipsoid(input, size): only 1-, 2- and 3-dimensional inputs are "
            f"supported (as SciPy's), got {nd} dimensions"
        )
    axis = normalize_axis(axis, nd)
    sizes = _per_axis(size, nd, "fourier_ellipsoid(input, size)")
    r2 = 0.0
    for d, s in enumerate(fnp.shape(x)):
        f = numpy.arange(s) / n if n > 0 and d == axis else numpy.fft.fftfreq(s)
        shape = [1] * nd
        shape[d] = s
        r2 = r2 + fnp.reshape((f * sizes[d]) ** 2, shape)
    zero = r2 == 0
    r = math.pi * fnp.sqrt(fnp.where(zero, 1.0, r2))
    if nd == 1:
        factor = fnp.sin(r) / r
    elif nd == 2:
        factor = 2.0 * j1(r) / r
    else:
        factor = 3.0 * (fnp.sin(r) - r * fnp.cos(r)) / r**3
    out = x * fnp.where(zero, 1.0, factor)
    return out.astype(_real_dtype(input) if output is None else output)
