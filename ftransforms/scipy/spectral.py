"""Spectral analysis of ``ftransforms.scipy.signal``: ``stft``, ``istft``, ``welch``,
``csd`` and ``detrend`` with SciPy's signatures and results (``jax.scipy.signal``'s
names), as compositions of ``fnp`` operations so that every transform applies.

The segments of a signal are one gather (``x[..., starts[:, None] + arange(nperseg)]``),
each detrended, windowed and transformed by ``fnp.fft.rfft``/``fft``; ``istft``'s
overlap-add is one scatter-add (``fnp.at(...).add``) of the inverse transforms.  Windows
given by name are SciPy's ``get_window`` (SciPy imported on first use); an array window
may be traced.

Example:
    >>> import numpy as np
    >>> from ftransforms.scipy.signal import welch
    >>> f, p = welch(np.cos(np.pi * np.arange(64) / 2), nperseg=16)
    >>> int(f[np.argmax(p)] * 16)  # a quarter of the sampling rate
    4
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.numpy.helpers import dtype_of

__all__ = ["csd", "detrend", "istft", "spectrogram", "stft", "welch"]


def _float(x: Any) -> Any:
    x = fnp.asarray(x)
    if dtype_of(x).kind not in "fc":
        x = x.astype(numpy.float64)
    return x


def detrend(
    data: Any, axis: int = -1, type: str = "linear", bp: Any = 0, overwrite_data: bool = False
) -> Any:
    """``data`` less its least-squares line (``type='linear'``, one line per piece between
    the break points ``bp``, indices along ``axis``) or its mean (``'constant'``), as
    ``scipy.signal.detrend``; integer data become float64.  ``overwrite_data`` is accepted
    and has no effect (the input is never changed).

    Example:
        >>> import numpy as np
        >>> np.round(detrend(np.array([1.0, 3.0, 5.0, 8.0])), 6).tolist()
        [0.2, -0.1, -0.4, 0.3]
    """
    where = "detrend"
    if type not in ("linear", "l", "constant", "c"):
        raise ValueError(f"{where}(type={type!r}): type must be 'linear' or 'constant'")
    data = _float(data)
    if fnp.ndim(data) == 0:
        raise ValueError(f"{where}: data must have at least one dimension, got a scalar")
    axis = int(axis)
    x = fnp.moveaxis(data, axis, -1)
    n = fnp.shape(x)[-1]
    if type in ("constant", "c"):
        return fnp.moveaxis(x - fnp.mean(x, axis=-1, keepdims=True), -1, axis)
    points = numpy.unique(numpy.concatenate([[0], numpy.atleast_1d(bp).astype(int), [n]]))
    if points[0] < 0 or points[-1] > n:
        raise ValueError(
            f"{where}: break points must lie between 0 and the data's length {n} along "
            f"axis {axis}, got bp={bp!r}"
        )
    pieces = []
    for a, b in zip(points[:-1], points[1:]):
        piece = x[..., a:b]
        t = numpy.arange(b - a, dtype=numpy.float64) - (b - a - 1) / 2.0
        tt = float((t * t).sum())
        centred = piece - fnp.mean(piece, axis=-1, keepdims=True)
        if tt > 0:
            slope = (
                fnp.sum(centred * t.astype(dtype_of(x).char.lower()), axis=-1, keepdims=True) / tt
            )
            centred = centred - slope * t.astype(dtype_of(x).char.lower())
        pieces.append(centred)
    out = pieces[0] if len(pieces) == 1 else fnp.concatenate(pieces, axis=-1)
    return fnp.moveaxis(out.astype(dtype_of(x)), -1, axis)


def _get_window(window: Any, n: int, where: str) -> numpy.ndarray:
    try:
        from scipy.signal import get_window  # noqa: PLC0415  (optional: windows by name)
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError(
            f"{where}: a window given by name is SciPy's get_window, and SciPy is not "
            "installed; install it with `pip install 'ftransforms[scipy]'`, or pass the "
            "window as an array"
        ) from err
    return get_window(window, n)


def _window(window: Any, nperseg: Any, length: int, where: str, default: int) -> tuple[Any, int]:
    """The window array and the segment length (SciPy's rules for their defaults)."""
    if isinstance(window, (str, tuple)):
        nperseg = default if nperseg is None else _positive(nperseg, where)
        if nperseg > length:
            warnings.warn(
                f"{where}: nperseg = {nperseg} is greater than the input length {length}, "
                f"using nperseg = {length}",
                UserWarning,
                stacklevel=3,
            )
            nperseg = length
        return _get_window(window, nperseg, where), nperseg
    win = fnp.asarray(window)
    if fnp.ndim(win) != 1:
        raise ValueError(f"{where}: window must be 1-d, got shape {fnp.shape(win)}")
    if fnp.shape(win)[0] > length:
        raise ValueError(
            f"{where}: the window ({fnp.shape(win)[0]} samples) is longer than the input "
            f"signal ({length})"
        )
    if nperseg is not None and _positive(nperseg, where) != fnp.shape(win)[0]:
        raise ValueError(
            f"{where}: nperseg={nperseg} differs from the window's length {fnp.shape(win)[0]}"
        )
    return win, fnp.shape(win)[0]


def _positive(n: Any, where: str) -> int:
    n = int(n)
    if n < 1:
        raise ValueError(f"{where}: nperseg must be a positive integer, got {n}")
    return n


def _overlap(nperseg: int, noverlap: Any, nfft: Any, where: str) -> tuple[int, int]:
    nfft = nperseg if nfft is None else int(nfft)
    if nfft < nperseg:
        raise ValueError(f"{where}: nfft ({nfft}) must be at least nperseg ({nperseg})")
    noverlap = nperseg // 2 if noverlap is None else int(noverlap)
    if noverlap >= nperseg:
        raise ValueError(f"{where}: noverlap ({noverlap}) must be less than nperseg ({nperseg})")
    return noverlap, nfft


def _extend(x: Any, n: int, boundary: Any, where: str) -> Any:
    """``x`` extended by ``n`` samples at both ends of its last axis (SciPy's boundary)."""
    if boundary is None or n == 0:
        return x
    if boundary == "zeros":
        return fnp.pad(x, [(0, 0)] * (fnp.ndim(x) - 1) + [(n, n)])
    if boundary == "constant":
        return fnp.concatenate(
            [fnp.repeat(x[..., :1], n, -1), x, fnp.repeat(x[..., -1:], n, -1)], -1
        )
    if boundary == "even":
        return fnp.concatenate([x[..., n:0:-1], x, x[..., -2 : -n - 2 : -1]], -1)
    if boundary == "odd":
        left = 2 * x[..., :1] - x[..., n:0:-1]
        right = 2 * x[..., -1:] - x[..., -2 : -n - 2 : -1]
        return fnp.concatenate([left, x, right], -1)
    raise ValueError(
        f"{where}(boundary={boundary!r}): boundary must be 'even', 'odd', 'constant', "
        "'zeros' or None"
    )


def _detrender(detrend_: Any, axis: int) -> Callable[[Any], Any]:
    if detrend_ is False or detrend_ is None:
        return lambda d: d
    if callable(detrend_):
        if axis == -1:
            return detrend_
        return lambda d: fnp.moveaxis(detrend_(fnp.moveaxis(d, -1, axis)), axis, -1)
    return lambda d: detrend(d, axis=-1, type=detrend_)


def _segments_fft(
    x: Any, win: Any, nperseg: int, noverlap: int, nfft: int, onesided: bool, detrend_: Any
) -> Any:
    """The windowed transforms of the segments of ``x``'s last axis: ``(..., seg, freq)``."""
    step = nperseg - noverlap
    count = (fnp.shape(x)[-1] - nperseg) // step + 1
    index = numpy.arange(count)[:, None] * step + numpy.arange(nperseg)[None, :]
    seg = detrend_(x[..., index])
    seg = seg * win
    if onesided:
        return fnp.fft.rfft(fnp.real(seg), n=nfft, axis=-1)
    return fnp.fft.fft(seg, n=nfft, axis=-1)


def _spectral(
    x: Any,
    y: Any,
    fs: Any,
    window: Any,
    nperseg: Any,
    noverlap: Any,
    nfft: Any,
    detrend_: Any,
    return_onesided: bool,
    scaling: str,
    axis: int,
    mode: str,
    boundary: Any,
    padded: bool,
    where: str,
    default: int = 256,
) -> tuple[Any, Any, Any]:
    """SciPy's spectral helper: ``(freqs, times, result)`` with the frequency axis where
    ``axis`` was and the segments last; ``y is None`` is ``x`` itself."""
    x = _float(x)
    y = None if y is None else _float(y)
    axis = int(axis)
    cdtype = numpy.result_type(dtype_of(x), numpy.complex64)
    if y is not None:
        cdtype = numpy.result_type(cdtype, dtype_of(y))
    x = fnp.moveaxis(x, axis, -1)
    if y is not None:
        y = fnp.moveaxis(y, axis, -1) if fnp.ndim(y) > 1 else y
        nx, ny = fnp.shape(x)[-1], fnp.shape(y)[-1]
        if nx < ny:
            x = fnp.pad(x, [(0, 0)] * (fnp.ndim(x) - 1) + [(0, ny - nx)])
        elif ny < nx:
            y = fnp.pad(y, [(0, 0)] * (fnp.ndim(y) - 1) + [(0, nx - ny)])
    win, nperseg = _window(window, nperseg, fnp.shape(x)[-1], where, default)
    noverlap, nfft = _overlap(nperseg, noverlap, nfft, where)
    step = nperseg - noverlap
    x = _extend(x, nperseg // 2, boundary, where)
    if y is not None:
        y = _extend(y, nperseg // 2, boundary, where)
    if padded:
        extra = (-(fnp.shape(x)[-1] - nperseg) % step) % nperseg
        x = fnp.pad(x, [(0, 0)] * (fnp.ndim(x) - 1) + [(0, extra)])
        if y is not None:
            y = fnp.pad(y, [(0, 0)] * (fnp.ndim(y) - 1) + [(0, extra)])
    if not hasattr(win, "dtype") or isinstance(win, numpy.ndarray):
        win = numpy.asarray(win).astype(numpy.result_type(cdtype, numpy.float32).char.lower())
    if scaling == "density":
        scale = 1.0 / (fs * fnp.sum(win * win))
    elif scaling == "spectrum":
        scale = 1.0 / fnp.sum(win) ** 2
    else:
        raise ValueError(f"{where}(scaling={scaling!r}): unknown scaling")
    if mode == "stft":
        scale = fnp.sqrt(scale)
    complex_in = dtype_of(x).kind == "c" or (y is not None and dtype_of(y).kind == "c")
    onesided = bool(return_onesided)
    if onesided and complex_in:
        warnings.warn(
            f"{where}: the input is complex, switching to return_onesided=False",
            UserWarning,
            stacklevel=3,
        )
        onesided = False
    freqs = numpy.fft.rfftfreq(nfft, 1 / fs) if onesided else numpy.fft.fftfreq(nfft, 1 / fs)
    trend = _detrender(detrend_, axis)
    result = _segments_fft(x, win, nperseg, noverlap, nfft, onesided, trend)
    if y is not None:
        result = fnp.conj(result) * _segments_fft(y, win, nperseg, noverlap, nfft, onesided, trend)
    elif mode == "psd":
        result = fnp.conj(result) * result
    result = result * scale
    if onesided and mode == "psd":
        double = numpy.full(fnp.shape(result)[-1], 2.0)
        double[0] = 1.0
        if nfft % 2 == 0:
            double[-1] = 1.0
        result = result * double
    times = numpy.arange(nperseg / 2, fnp.shape(x)[-1] - nperseg / 2 + 1, step) / float(fs)
    if boundary is not None:
        times = times - (nperseg / 2) / fs
    result = result.astype(cdtype)
    if y is None and mode != "stft":
        result = fnp.real(result)
    result = fnp.moveaxis(result, -1, axis - 1 if axis < 0 else axis)
    return freqs, times, result


def stft(
    x: Any,
    fs: float = 1.0,
    window: Any = "hann",
    nperseg: int = 256,
    noverlap: Any = None,
    nfft: Any = None,
    detrend: Any = False,
    return_onesided: bool = True,
    boundary: Any = "zeros",
    padded: bool = True,
    axis: int = -1,
    scaling: str = "spectrum",
) -> tuple[Any, Any, Any]:
    """The short-time Fourier transform ``(f, t, Zxx)`` of ``x`` along ``axis``, as
    ``scipy.signal.stft``: segments of ``nperseg`` samples overlapping by ``noverlap``
    (half by default), detrended, windowed, transformed; ``Zxx`` has the frequencies
    where ``axis`` was and the segments last.  ``boundary`` extends both ends by half a
    segment, ``padded`` zero-pads to whole segments; ``scaling`` 'spectrum' or 'psd'.

    Example:
        >>> import numpy as np
        >>> f, t, Z = stft(np.ones(8), nperseg=4)
        >>> Z.shape, t.tolist()
        ((3, 5), [0.0, 2.0, 4.0, 6.0, 8.0])
    """
    if scaling == "psd":
        scaling = "density"
    elif scaling != "spectrum":
        raise ValueError(f"stft(scaling={scaling!r}): scaling must be 'spectrum' or 'psd'")
    return _spectral(
        x, None, fs, window, nperseg, noverlap, nfft, detrend, return_onesided, scaling,
        axis, "stft", boundary, padded, "stft",
    )  # fmt: skip


def istft(
    Zxx: Any,
    fs: float = 1.0,
    window: Any = "hann",
    nperseg: Any = None,
    noverlap: Any = None,
    nfft: Any = None,
    input_onesided: bool = True,
    boundary: bool = True,
    time_axis: int = -1,
    freq_axis: int = -2,
    scaling: str = "spectrum",
) -> tuple[Any, Any]:
    """The inverse of :func:`stft` by weighted overlap-add, ``(t, x)``, as
    ``scipy.signal.istft`` (its ``t`` counts ``x.shape[0]`` samples, as SciPy's does).

    Example:
        >>> import numpy as np
        >>> x = np.sin(np.arange(16.0))
        >>> t, back = istft(stft(x, nperseg=8)[2], nperseg=8)
        >>> bool(np.allclose(back, x))
        True
    """
    where = "istft"
    Z = fnp.asarray(Zxx)
    Z = Z.astype(numpy.result_type(dtype_of(Z), numpy.complex64))
    if fnp.ndim(Z) < 2:
        raise ValueError(f"{where}: Zxx must be at least 2-d, got shape {fnp.shape(Z)}")
    ndim = fnp.ndim(Z)
    freq_axis, time_axis = int(freq_axis) % ndim, int(time_axis) % ndim
    if freq_axis == time_axis:
        raise ValueError(f"{where}: time_axis and freq_axis must differ, both are {time_axis}")
    nseg, nfreq = fnp.shape(Z)[time_axis], fnp.shape(Z)[freq_axis]
    n_default = 2 * (nfreq - 1) if input_onesided else nfreq
    nperseg = n_default if nperseg is None else _positive(nperseg, where)
    if nfft is None:
        nfft = nperseg if (input_onesided and nperseg == n_default + 1) else n_default
    noverlap, nfft = _overlap(nperseg, noverlap, nfft, where)
    step = nperseg - noverlap
    outer = [a for a in range(ndim) if a not in (freq_axis, time_axis)]
    Z = fnp.transpose(Z, outer + [time_axis, freq_axis])  # (..., seg, freq)
    if isinstance(window, (str, tuple)):
        win = _get_window(window, nperseg, where)
    else:
        win = fnp.asarray(window)
        if fnp.shape(win) != (nperseg,):
            raise ValueError(
                f"{where}: window must be 1-d of length nperseg={nperseg}, got shape "
                f"{fnp.shape(win)}"
            )
    subs = fnp.fft.irfft(Z, n=nfft, axis=-1) if input_onesided else fnp.fft.ifft(Z, n=nfft, axis=-1)
    subs = subs[..., :nperseg]
    rdtype = numpy.result_type(dtype_of(subs), numpy.float32).char.lower()
    if isinstance(win, numpy.ndarray):
        win = win.astype(rdtype)
    if scaling == "spectrum":
        subs = subs * fnp.sum(win)
    elif scaling == "psd":
        subs = subs * fnp.sqrt(fs * fnp.sum(win**2))
    else:
        raise ValueError(f"{where}(scaling={scaling!r}): scaling must be 'spectrum' or 'psd'")
    length = nperseg + (nseg - 1) * step
    index = (numpy.arange(nseg)[:, None] * step + numpy.arange(nperseg)[None, :]).ravel()
    frames = subs * win
    lead = fnp.shape(frames)[:-2]
    frames = fnp.reshape(frames, lead + (nseg * nperseg,))
    x = fnp.at(fnp.zeros(lead + (length,), dtype=dtype_of(frames)))[..., index].add(frames)
    norm = fnp.at(fnp.zeros(length, dtype=dtype_of(win)))[index].add(fnp.tile(win**2, nseg))
    if boundary:
        half = nperseg // 2
        x, norm = x[..., half : length - half], norm[half : length - half]
    if numpy.any(numpy.asarray(fnp.abs(norm) <= 1e-10)):
        warnings.warn(
            f"{where}: the NOLA condition fails, the STFT may not be invertible"
            + ("" if boundary else " (possibly because boundary=False)"),
            UserWarning,
            stacklevel=2,
        )
    x = x / fnp.where(norm > 1e-10, norm, 1.0)
    if input_onesided:
        x = fnp.real(x)
    if fnp.ndim(x) > 1 and time_axis != ndim - 1:
        x = fnp.moveaxis(x, -1, time_axis - 1 if freq_axis < time_axis else time_axis)
    return numpy.arange(fnp.shape(x)[0]) / float(fs), x


def csd(
    x: Any,
    y: Any,
    fs: float = 1.0,
    window: Any = "hann",
    nperseg: Any = None,
    noverlap: Any = None,
    nfft: Any = None,
    detrend: Any = "constant",
    return_onesided: bool = True,
    scaling: str = "density",
    axis: int = -1,
    average: str = "mean",
) -> tuple[Any, Any]:
    """The cross power spectral density ``(f, Pxy)`` of ``x`` and ``y`` by Welch's method,
    as ``scipy.signal.csd``: ``conj(X) * Y`` of the windowed segments' transforms,
    averaged over the segments (``average`` 'mean' or 'median', the latter divided by
    its bias for exponentially distributed values).

    Example:
        >>> import numpy as np
        >>> x = np.cos(np.pi * np.arange(64) / 4)
        >>> f, p = csd(x, x, nperseg=16)
        >>> float(f[np.argmax(np.abs(p))])
        0.125
    """
    return _averaged(
        x, y, fs, window, nperseg, noverlap, nfft, detrend, return_onesided, scaling, axis,
        average, "csd",
    )  # fmt: skip


def welch(
    x: Any,
    fs: float = 1.0,
    window: Any = "hann",
    nperseg: Any = None,
    noverlap: Any = None,
    nfft: Any = None,
    detrend: Any = "constant",
    return_onesided: bool = True,
    scaling: str = "density",
    axis: int = -1,
    average: str = "mean",
) -> tuple[Any, Any]:
    """The power spectral density ``(f, Pxx)`` of ``x`` by Welch's method (the average
    of the segments' periodograms), as ``scipy.signal.welch``.

    Example:
        >>> import numpy as np
        >>> f, p = welch(np.ones(32), window="boxcar", nperseg=8, detrend=False, scaling="spectrum")
        >>> f.tolist(), np.round(p, 6).tolist()
        ([0.0, 0.125, 0.25, 0.375, 0.5], [1.0, 0.0, 0.0, 0.0, 0.0])
    """
    return _averaged(
        x, None, fs, window, nperseg, noverlap, nfft, detrend, return_onesided, scaling, axis,
        average, "welch",
    )  # fmt: skip


def spectrogram(
    x: Any,
    fs: float = 1.0,
    window: Any = ("tukey", 0.25),
    nperseg: Any = None,
    noverlap: Any = None,
    nfft: Any = None,
    detrend: Any = "constant",
    return_onesided: bool = True,
    scaling: str = "density",
    axis: int = -1,
    mode: str = "psd",
) -> tuple[Any, Any, Any]:
    """``(f, t, Sxx)``: the spectrogram of ``x`` as ``scipy.signal.spectrogram`` (segments
    overlapping by ``nperseg // 8`` by default, no boundary extension), ``mode`` 'psd'
    (the periodogram of each segment), 'complex', 'magnitude', 'angle' or 'phase'
    (the angle unwrapped along the frequencies).

    Example:
        >>> import numpy as np
        >>> f, t, s = spectrogram(np.cos(np.pi * np.arange(64) / 4), nperseg=16)
        >>> s.shape, float(f[np.argmax(s[:, 0])])
        ((9, 4), 0.125)
    """
    where = "spectrogram"
    if mode not in ("psd", "complex", "magnitude", "angle", "phase"):
        raise ValueError(
            f"{where}(mode={mode!r}): unknown value for mode, must be one of "
            f"'psd', 'complex', 'magnitude', 'angle', 'phase'"
        )
    if noverlap is None:
        length = fnp.shape(x)[int(axis)]
        with warnings.catch_warnings():  # (_spectral warns once, below)
            warnings.simplefilter("ignore", UserWarning)
            noverlap = _window(window, nperseg, length, where, 256)[1] // 8
    helper_mode = "psd" if mode == "psd" else "stft"
    freqs, times, sxx = _spectral(
        x, None, fs, window, nperseg, noverlap, nfft, detrend, return_onesided, scaling, axis,
        helper_mode, None, False, where,
    )  # fmt: skip
    if mode == "magnitude":
        sxx = fnp.abs(sxx)
    elif mode in ("angle", "phase"):
        sxx = fnp.angle(sxx)
        if mode == "phase":
            sxx = fnp.unwrap(sxx, axis=int(axis) - 1 if int(axis) < 0 else int(axis))
    return freqs, times, sxx


def _median_bias(n: int) -> float:
    i2 = 2 * numpy.arange(1.0, (n - 1) // 2 + 1)
    return float(1 + numpy.sum(1.0 / (i2 + 1) - 1.0 / i2))


def _averaged(
    x, y, fs, window, nperseg, noverlap, nfft, detrend_, onesided, scaling, axis, average, where
) -> tuple[Any, Any]:
    if scaling not in ("density", "spectrum"):
        raise ValueError(f"{where}(scaling={scaling!r}): scaling must be 'density' or 'spectrum'")
    if average not in ("mean", "median"):
        raise ValueError(f"{where}(average={average!r}): average must be 'mean' or 'median'")
    freqs, _, p = _spectral(
        x, y, fs, window, nperseg, noverlap, nfft, detrend_, onesided, scaling, axis, "psd",
        None, False, where,
    )  # fmt: skip
    if fnp.ndim(p) >= 2 and fnp.size(p) > 0:
        if fnp.shape(p)[-1] > 1:
            if average == "median":
                bias = _median_bias(fnp.shape(p)[-1])
                if dtype_of(p).kind == "c":
                    med = fnp.median(fnp.real(p), axis=-1) + 1j * fnp.median(fnp.imag(p), axis=-1)
                else:
                    med = fnp.median(p, axis=-1)
                p = med / bias
            else:
                p = fnp.mean(p, axis=-1)
        else:
            p = fnp.reshape(p, fnp.shape(p)[:-1])
    return freqs, p
