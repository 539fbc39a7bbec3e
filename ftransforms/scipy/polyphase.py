"""``scipy.signal.upfirdn`` and ``resample_poly`` on traced signals: upsample by zero
insertion, filter with the FIR ``h`` (a full convolution, by FFT), downsample by taking
every ``down``-th sample; ``resample_poly`` designs SciPy's filter (``firwin`` with
the window, on plain numbers), pads it so the output samples sit at the centre, and
keeps SciPy's slice.  Zero extension past the edges (``mode='constant'``, ``cval=0``),
and ``resample_poly``'s background padtypes (``mean``, ``median``, ``minimum``,
``maximum``: subtracted before, added back after).  Every transform applies, in ``x`` and
in ``h``.

Example:
    >>> import numpy as np
    >>> upfirdn(np.array([1.0, 1.0]), np.array([1.0, 2.0, 3.0]), up=2).tolist()
    [1.0, 1.0, 2.0, 2.0, 3.0, 3.0]
"""

from __future__ import annotations

import math
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.numpy.helpers import normalize_axis

__all__ = ["resample_poly", "upfirdn"]


def _output_len(len_h: int, n_in: int, up: int, down: int) -> int:
    return ((n_in - 1) * up + len_h - 1) // down + 1


def _upfirdn_last(h: Any, x: Any, up: int, down: int) -> Any:
    """``upfirdn`` along the last axis of ``x`` (zero extension)."""
    from ftransforms.scipy.signal import fftconvolve  # noqa: PLC0415  late import: signal imports this

    n = fnp.shape(x)[-1]
    if up > 1:
        zeros = fnp.zeros(fnp.shape(x) + (up - 1,), dtype=x.dtype)
        x = fnp.concatenate([x[..., None], zeros], axis=-1)
        x = fnp.reshape(x, fnp.shape(x)[:-2] + (n * up,))[..., : (n - 1) * up + 1]
    kernel = fnp.reshape(h, (1,) * (fnp.ndim(x) - 1) + (fnp.shape(h)[0],))
    full = fftconvolve(x, kernel, mode="full", axes=-1)
    return full[..., ::down][..., : _output_len(fnp.shape(h)[0], n, up, down)]


def _rates(where: str, up: Any, down: Any) -> tuple[int, int]:
    if int(up) != up or int(down) != down or int(up) < 1 or int(down) < 1:
        raise ValueError(f"{where}: up and down must be positive integers, got {up}, {down}")
    return int(up), int(down)


def upfirdn(
    h: Any,
    x: Any,
    up: int = 1,
    down: int = 1,
    axis: int = -1,
    mode: str = "constant",
    cval: float = 0,
) -> Any:
    """``scipy.signal.upfirdn``: ``x`` upsampled by ``up``, filtered with the FIR ``h``
    and downsampled by ``down`` along ``axis`` (zero extension only).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> ft.grad(lambda x: upfirdn(np.ones(3), x, down=2).sum())(np.ones(4)).tolist()
        [2.0, 1.0, 2.0, 1.0]
    """
    where = "upfirdn(h, x, up, down)"
    if mode != "constant" or cval != 0:
        raise UnsupportedOperationError(
            f"{where}: mode={mode!r}, cval={cval!r}: only the zero extension (mode='constant', "
            f"cval=0) is available on traced signals"
        )
    up, down = _rates(where, up, down)
    h = fnp.asarray(h)
    if fnp.ndim(h) != 1 or fnp.shape(h)[0] == 0:
        raise ValueError(f"{where}: h must be a non-empty 1-D array, got shape {fnp.shape(h)}")
    x = fnp.asarray(x)
    if x.dtype.kind in "biu":
        x = x.astype(float)
    ax = normalize_axis(axis, fnp.ndim(x))
    out = _upfirdn_last(h, fnp.moveaxis(x, ax, -1), up, down)
    return fnp.moveaxis(out, -1, ax)


_BACKGROUNDS = {"mean": fnp.mean, "median": fnp.median, "minimum": fnp.min, "maximum": fnp.max}


def resample_poly(
    x: Any,
    up: int,
    down: int,
    axis: int = 0,
    window: Any = ("kaiser", 5.0),
    padtype: str = "constant",
    cval: Any = None,
) -> Any:
    """``scipy.signal.resample_poly``: ``x`` resampled by ``up / down`` along ``axis``
    with SciPy's polyphase filter (``firwin`` of ``window``, or the given FIR
    coefficients), differentiable in ``x``.

    Example:
        >>> import numpy as np
        >>> import scipy.signal
        >>> x = np.sin(np.linspace(0.0, 6.0, 20))
        >>> y = resample_poly(x, 2, 1)
        >>> y.shape, bool(np.allclose(y, scipy.signal.resample_poly(x, 2, 1)))
        ((40,), True)
    """
    where = "resample_poly(x, up, down)"
    if cval is not None and padtype != "constant":
        raise ValueError(f"{where}: cval has no effect when padtype is {padtype!r}")
    if padtype not in _BACKGROUNDS and (padtype != "constant" or cval not in (None, 0)):
        raise UnsupportedOperationError(
            f"{where}: padtype={padtype!r}, cval={cval!r}: on traced signals padtype may be "
            f"'constant' (cval 0), 'mean', 'median', 'minimum' or 'maximum'"
        )
    up, down = _rates(where, up, down)
    x = fnp.asarray(x)
    if x.dtype.kind in "biu":
        x = x.astype(float)
    ax = normalize_axis(axis, fnp.ndim(x))
    g = math.gcd(up, down)
    up, down = up // g, down // g
    if up == down == 1:
        return x * 1
    n_in = fnp.shape(x)[ax]
    n_out = -(-n_in * up // down)
    if isinstance(window, (list, numpy.ndarray)):
        h = numpy.array(window, dtype=float)
        if h.ndim > 1:
            raise ValueError(f"{where}: window must be 1-D")
        half_len = (h.size - 1) // 2
    else:
        import scipy.signal  # noqa: PLC0415  late import: SciPy designs the filter

        max_rate = max(up, down)
        half_len = 10 * max_rate
        h = scipy.signal.firwin(2 * half_len + 1, 1.0 / max_rate, window=window)
    h = h * up
    n_pre_pad = down - half_len % down
    n_post_pad = 0
    n_pre_remove = (half_len + n_pre_pad) // down
    while _output_len(len(h) + n_pre_pad + n_post_pad, n_in, up, down) < n_out + n_pre_remove:
        n_post_pad += 1
    h = numpy.concatenate([numpy.zeros(n_pre_pad), h, numpy.zeros(n_post_pad)])
    moved = fnp.moveaxis(x, ax, -1)
    background = None
    if padtype in _BACKGROUNDS:
        background = _BACKGROUNDS[padtype](moved, axis=-1, keepdims=True)
        moved = moved - background
    y = _upfirdn_last(h, moved, up, down)[..., n_pre_remove : n_pre_remove + n_out]
    if background is not None:
        y = y + background
    return fnp.moveaxis(y, -1, ax)
