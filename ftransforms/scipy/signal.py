"""``ftransforms.scipy.signal``: n-dimensional ``convolve``, ``correlate`` and
``fftconvolve`` on tracers (like ``jax.scipy.signal``), ``convolve2d``/``correlate2d``
with SciPy's boundary modes, and the linear filters ``lfilter`` (with initial states),
``filtfilt``, ``sosfilt`` and ``sosfiltfilt`` (with ``lfilter_zi``/``sosfilt_zi``); the
chirp z-transform ``czt``/``zoom_fft``; the zero-padded median/order filters
``medfilt``/``medfilt2d``/``order_filter``; ``upfirdn``/``resample_poly``; the peak
finders ``find_peaks``, ``peak_prominences``, ``peak_widths``, ``argrelextrema``; the
frequency responses ``freqz``/``freqz_sos``.

``method='direct'`` sums shifted copies of the larger input, one per element of the
smaller one (cheap for small kernels); ``method='fft'`` multiplies ``fnp.fft`` transforms
(real ones for real inputs); ``'auto'`` takes the FFT when the direct sum would cost more
than about ``32 * n log n``.  Both are compositions of ``fnp`` operations, so every
transform applies.  Modes 'full', 'same' and 'valid' slice the full result as SciPy does.

Example:
    >>> import numpy as np
    >>> from ftransforms.scipy.signal import convolve
    >>> convolve(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.5])).tolist()
    [0.0, 1.0, 2.5, 4.0, 1.5]
"""

from __future__ import annotations

import math
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.numpy.helpers import dtype_of
from ftransforms.numpy.ufuncs import float_input
from ftransforms.scipy.chirp_z import czt, zoom_fft
from ftransforms.scipy.convolve_axes import convolve_axes
from ftransforms.scipy.frequency_response import freqz, freqz_sos
from ftransforms.scipy.lombscargle import lombscargle
from ftransforms.scipy.lti_simulation import dlsim, impulse, lsim, step
from ftransforms.scipy.order_filters import medfilt, medfilt2d, order_filter
from ftransforms.scipy.peaks import (
    argrelextrema,
    argrelmax,
    argrelmin,
    find_peaks,
    peak_prominences,
    peak_widths,
)
from ftransforms.scipy.polyphase import resample_poly, upfirdn
from ftransforms.scipy.savgol import savgol_coeffs, savgol_filter
from ftransforms.scipy.spectral import csd, detrend, istft, spectrogram, stft, welch

__all__ = [
    "argrelextrema",
    "argrelmax",
    "argrelmin",
    "convolve",
    "convolve2d",
    "correlate",
    "correlate2d",
    "csd",
    "czt",
    "detrend",
    "dlsim",
    "fftconvolve",
    "filtfilt",
    "find_peaks",
    "freqz",
    "freqz_sos",
    "impulse",
    "istft",
    "lfilter",
    "lfilter_zi",
    "lombscargle",
    "lsim",
    "medfilt",
    "medfilt2d",
    "order_filter",
    "peak_prominences",
    "peak_widths",
    "resample_poly",
    "savgol_coeffs",
    "savgol_filter",
    "sosfilt",
    "sosfilt_zi",
    "sosfiltfilt",
    "spectrogram",
    "step",
    "stft",
    "upfirdn",
    "welch",
    "zoom_fft",
]


def _arr(x: Any) -> Any:
    if not hasattr(x, "dtype"):
        x = fnp.asarray(x)
    return float_input(x, None)


def _coef(v: Any) -> Any:
    """A filter's ``b`` or ``a`` as SciPy reads it: a number is a 1-tap filter
    (``lfilter(h, 1.0, x)``, SciPy's ``atleast_1d``)."""
    return fnp.atleast_1d(_arr(v))


def _check(in1: Any, in2: Any, mode: str, where: str) -> tuple[Any, Any]:
    in1, in2 = _arr(in1), _arr(in2)
    if fnp.ndim(in1) != fnp.ndim(in2):
        raise ValueError(
            f"{where}: in1 and in2 must have the same number of dimensions, got shapes "
            f"{fnp.shape(in1)} and {fnp.shape(in2)}"
        )
    if mode not in ("full", "same", "valid"):
        raise ValueError(f"{where}: mode must be 'full', 'same' or 'valid', got {mode!r}")
    if mode == "valid":
        s1, s2 = fnp.shape(in1), fnp.shape(in2)
        if not (all(a >= b for a, b in zip(s1, s2)) or all(b >= a for a, b in zip(s1, s2))):
            raise ValueError(
                f"{where}: for 'valid' mode, one input must be at least as large as the other "
                f"in every dimension, got shapes {s1} and {s2}"
            )
    return in1, in2


def _centered(full: Any, shape: tuple) -> Any:
    start = [(f - s) // 2 for f, s in zip(fnp.shape(full), shape)]
    return full[tuple(slice(a, a + s) for a, s in zip(start, shape))]


def _crop(full: Any, s1: tuple, s2: tuple, mode: str) -> Any:
    if mode == "full":
        return full
    if mode == "same":
        return _centered(full, s1)
    return _centered(full, tuple(abs(a - b) + 1 for a, b in zip(s1, s2)))


def _direct_full(in1: Any, in2: Any) -> Any:
    s1, s2 = fnp.shape(in1), fnp.shape(in2)
    big, small = (in1, in2) if math.prod(s1) >= math.prod(s2) else (in2, in1)
    sb, ss = fnp.shape(big), fnp.shape(small)
    out = None
    for k in numpy.ndindex(*ss):
        pads = [(int(i), int(n - 1 - i)) for i, n in zip(k, ss)]
        term = fnp.pad(big, pads) * small[k]
        out = term if out is None else out + term
    if out is None:  # an empty input
        shape = tuple(a + b - 1 for a, b in zip(sb, ss))
        return fnp.zeros(tuple(max(v, 0) for v in shape), dtype=fnp.result_type(in1, in2))
    return out


def _fft_full(in1: Any, in2: Any, axes: tuple) -> Any:
    s1, s2 = fnp.shape(in1), fnp.shape(in2)
    shape = [s1[a] + s2[a] - 1 for a in axes]
    if dtype_of(in1).kind == "c" or dtype_of(in2).kind == "c":
        f = fnp.fft.fftn(in1, s=shape, axes=axes) * fnp.fft.fftn(in2, s=shape, axes=axes)
        return fnp.fft.ifftn(f, s=shape, axes=axes)
    f = fnp.fft.rfftn(in1, s=shape, axes=axes) * fnp.fft.rfftn(in2, s=shape, axes=axes)
    return fnp.fft.irfftn(f, s=shape, axes=axes)


def _choose(in1: Any, in2: Any) -> str:
    n1, n2 = math.prod(fnp.shape(in1)), math.prod(fnp.shape(in2))
    n = n1 + n2
    return "fft" if min(n1, n2) * max(n1, n2) > 32 * n * max(math.log2(max(n, 2)), 1) else "direct"


def _empty(in1: Any, in2: Any) -> bool:
    return 0 in fnp.shape(in1) or 0 in fnp.shape(in2)


def convolve(
    in1: Any,
    in2: Any,
    mode: str = "full",
    method: str = "auto",
    *,
    axes: Any = None,
    dot_axes: Any = None,
) -> Any:
    """``scipy.signal.convolve``: the n-dimensional convolution of ``in1`` and ``in2``.
    With ``axes=(axes_1, axes_2)`` and/or ``dot_axes``, HIPS autograd's tensor
    convolution (``autograd.scipy.signal.convolve``): those axis pairs convolved, the
    ``dot_axes`` pairs contracted, the other axes kept (:mod:`~ftransforms.scipy.convolve_axes`).

    Example:
        >>> import numpy as np
        >>> convolve(np.ones(3), np.ones(2), mode="same").tolist()
        [1.0, 2.0, 2.0]
        >>> convolve(np.ones((2, 3, 5, 5)), np.ones((3, 4, 2, 2)), axes=([2, 3], [2, 3]),
        ...          dot_axes=([1], [0]), mode="valid").shape  # a convolutional layer
        (2, 4, 4, 4)
    """
    if axes is not None or dot_axes is not None:
        return convolve_axes(in1, in2, axes, dot_axes, mode)
    in1, in2 = _check(in1, in2, mode, f"convolve(in1, in2, mode={mode!r})")
    if method not in ("auto", "direct", "fft"):
        raise ValueError(
            f"convolve(in1, in2, method={method!r}): method must be 'auto', 'direct' or 'fft'"
        )
    if fnp.ndim(in1) == 0:
        return in1 * in2
    if _empty(in1, in2):
        return fnp.zeros((0,) * fnp.ndim(in1), dtype=fnp.result_type(in1, in2))
    if method == "auto":
        method = _choose(in1, in2)
    if method == "fft":
        full = _fft_full(in1, in2, tuple(range(fnp.ndim(in1))))
    else:
        full = _direct_full(in1, in2)
    return _crop(full, fnp.shape(in1), fnp.shape(in2), mode)


def correlate(in1: Any, in2: Any, mode: str = "full", method: str = "auto") -> Any:
    """``scipy.signal.correlate``: the n-dimensional cross-correlation,
    ``convolve(in1, conj(in2) reversed)``.

    Example:
        >>> import numpy as np
        >>> correlate(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0])).tolist()
        [1.0, 2.0, 3.0, 0.0]
    """
    in1, in2 = _check(in1, in2, mode, f"correlate(in1, in2, mode={mode!r})")
    if fnp.ndim(in2) == 0:
        return in1 * fnp.conj(in2)
    rev = fnp.conj(fnp.flip(in2))
    return convolve(in1, rev, mode=mode, method=method)


def fftconvolve(in1: Any, in2: Any, mode: str = "full", axes: Any = None) -> Any:
    """``scipy.signal.fftconvolve``: convolution through the FFT, over ``axes`` (default:
    all; the other axes broadcast).

    Example:
        >>> import numpy as np
        >>> fftconvolve(np.ones(3), np.ones(2)).round(12).tolist()
        [1.0, 2.0, 2.0, 1.0]
    """
    where = f"fftconvolve(in1, in2, mode={mode!r})"
    in1, in2 = _arr(in1), _arr(in2)
    if fnp.ndim(in1) != fnp.ndim(in2):
        raise ValueError(
            f"{where}: in1 and in2 must have the same number of dimensions, got shapes "
            f"{fnp.shape(in1)} and {fnp.shape(in2)}"
        )
    if fnp.ndim(in1) == 0:
        return in1 * in2
    if axes is None:
        return convolve(in1, in2, mode=mode, method="fft")
    nd = fnp.ndim(in1)
    axes = tuple(sorted({int(a) % nd for a in numpy.atleast_1d(axes)}))
    s1, s2 = fnp.shape(in1), fnp.shape(in2)
    for a in range(nd):
        if a not in axes and s1[a] != s2[a] and 1 not in (s1[a], s2[a]):
            raise ValueError(
                f"{where}: in1 and in2 must match (or be 1) on the axes not convolved, got "
                f"shapes {s1} and {s2}"
            )
    if mode not in ("full", "same", "valid"):
        raise ValueError(f"{where}: mode must be 'full', 'same' or 'valid', got {mode!r}")
    full = _fft_full(in1, in2, axes)
    out_shape = list(fnp.shape(full))
    for a in axes:
        if mode == "same":
            out_shape[a] = s1[a]
        elif mode == "valid":
            out_shape[a] = abs(s1[a] - s2[a]) + 1
    return _centered(full, tuple(out_shape)) if mode != "full" else full


def lfilter(b: Any, a: Any, x: Any, axis: int = -1, zi: Any = None) -> Any:
    """``scipy.signal.lfilter``: the IIR/FIR filter ``a[0] y[n] = sum_k b[k] x[n-k] -
    sum_{k>=1} a[k] y[n-k]`` along ``axis``; with ``zi`` (the initial state of SciPy's
    transposed direct form, shaped like ``x`` with ``max(len(a), len(b)) - 1`` along
    ``axis``) it returns ``(y, zf)``, the final state too.

    The ``b`` part is a sum of shifted copies of ``x``.  With a constant ``a`` (a NumPy
    array or list) the recursion is a convolution with its impulse response, computed once
    on the host; with a traced ``a`` it runs step by step.  Differentiable in ``b``, ``a``
    and ``x`` under every transform.  The reinforcement-learning idiom for discounted
    returns, ``lfilter([1], [1, -gamma], r[::-1])[::-1]``, is one call.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> r = np.array([1.0, 0.0, 2.0])
        >>> lfilter([1.0], [1.0, -0.5], r[::-1])[::-1].tolist()  # r + 0.5 r' + 0.25 r''
        [1.5, 1.0, 2.0]
        >>> ft.grad(lambda r: lfilter([1.0], [1.0, -0.5], r[::-1])[::-1][0])(r).tolist()
        [1.0, 0.5, 0.25]
    """
    if zi is not None:
        return _lfilter_from_state(b, a, x, axis, zi)
    b, a, x = _coef(b), _coef(a), _arr(x)
    if fnp.ndim(b) != 1 or fnp.ndim(a) != 1 or fnp.shape(a)[0] == 0 or fnp.shape(b)[0] == 0:
        raise ValueError(
            f"lfilter(b, a, x): b and a must be non-empty 1-D arrays, got shapes "
            f"{fnp.shape(b)} and {fnp.shape(a)}"
        )
    if fnp.ndim(x) == 0:
        raise ValueError("lfilter(b, a, x): x must have at least one dimension")
    x = fnp.moveaxis(x, axis, -1)
    n = fnp.shape(x)[-1]
    a0 = a[0]
    b, a_norm = b / a0, a / a0
    lead = fnp.shape(x)[:-1]
    # the moving-average part: v[n] = sum_k b[k] x[n - k]
    v = b[0] * x
    for k in range(1, min(fnp.shape(b)[0], n)):
        shifted = fnp.concatenate(
            [fnp.zeros(lead + (k,), dtype=dtype_of(x), like=x), x[..., :-k]], axis=-1
        )
        v = v + b[k] * shifted
    m = fnp.shape(a)[0]
    if m == 1 or n == 0:
        y = v
    elif type(a) is numpy.ndarray:
        # a constant recursion: convolve with its impulse response (length n)
        coef = numpy.asarray(a, dtype=numpy.float64)
        coef = coef / coef[0]
        h = numpy.zeros(n)
        h[0] = 1.0
        for i in range(1, n):
            k = min(m - 1, i)
            h[i] = -numpy.dot(coef[1 : k + 1], h[i - k : i][::-1])
        h = fnp.asarray(h.reshape((1,) * len(lead) + (n,)), dtype=dtype_of(v), like=v)
        y = convolve(v, h, mode="full")[..., :n]
    else:
        rows: list = []
        for i in range(n):
            acc = v[..., i]
            for k in range(1, min(m - 1, i) + 1):
                acc = acc - a_norm[k] * rows[i - k]
            rows.append(acc)
        y = fnp.stack(rows, axis=-1)
    return fnp.moveaxis(y, -1, axis)


def _padded_coefficients(b: Any, a: Any) -> tuple[Any, Any, int]:
    """``b / a[0]`` and ``a / a[0]`` padded with zeros to the same length ``K``."""
    b, a = _coef(b), _coef(a)
    a0 = a[0]
    b, a = b / a0, a / a0
    k = max(fnp.shape(a)[0], fnp.shape(b)[0])
    b = fnp.concatenate([b, fnp.zeros(k - fnp.shape(b)[0], dtype=dtype_of(b))])
    a = fnp.concatenate([a, fnp.zeros(k - fnp.shape(a)[0], dtype=dtype_of(a))])
    return b, a, k


def _lfilter_from_state(b: Any, a: Any, x: Any, axis: int, zi: Any) -> tuple[Any, Any]:
    """``lfilter`` from the state ``zi``: the zero-state output plus the zero-input one
    (the impulse response of ``Z(z) / A(z)``, ``Z`` the state's polynomial), and the final
    state from the last samples: ``zf[k] = sum_m (b[k+1+m] x[-1-m] - a[k+1+m] y[-1-m])``
    (plus the initial state's term while fewer samples than taps have come)."""
    bn, an, k = _padded_coefficients(b, a)
    x = _arr(x)
    nd = fnp.ndim(x)
    axis = axis % nd
    x = fnp.moveaxis(x, axis, -1)
    zi = fnp.moveaxis(_arr(zi), axis, -1)
    if fnp.shape(zi)[-1] != k - 1:
        raise ValueError(
            f"lfilter(b, a, x, zi): zi must have max(len(a), len(b)) - 1 = {k - 1} values "
            f"along axis, got shape {fnp.shape(fnp.moveaxis(zi, -1, axis))}"
        )
    n = fnp.shape(x)[-1]
    y = lfilter(bn, an, x, axis=-1)
    if k > 1 and n > 0:
        impulse = numpy.zeros(n)
        impulse[0] = 1.0
        lead = fnp.shape(x)[:-1]
        z = fnp.broadcast_to(zi, lead + (k - 1,))
        # y_zi[..., t] = sum_j z[..., j] h[t - j], h the impulse response of 1 / A(z)
        h = lfilter(numpy.ones(1), an, impulse)
        for j in range(min(k - 1, n)):
            shifted = fnp.concatenate([fnp.zeros(j, dtype=dtype_of(h)), h[: n - j]])
            y = y + z[..., j : j + 1] * shifted
    states = []
    for idx in range(k - 1):
        acc = 0.0
        for m in range(min(k - 2 - idx, n - 1) + 1):
            acc = acc + bn[idx + 1 + m] * x[..., n - 1 - m] - an[idx + 1 + m] * y[..., n - 1 - m]
        if idx + n <= k - 2:
            acc = acc + fnp.broadcast_to(zi, fnp.shape(x)[:-1] + (k - 1,))[..., idx + n]
        states.append(acc + 0.0 * x[..., 0] if n else acc)
    zf = fnp.stack(states, axis=-1) if states else fnp.zeros(fnp.shape(x)[:-1] + (0,))
    return fnp.moveaxis(y, -1, axis), fnp.moveaxis(zf, -1, axis)


def lfilter_zi(b: Any, a: Any) -> Any:
    """``scipy.signal.lfilter_zi``: the state of the filter's step response at steady
    state (``lfilter(b, a, ones, zi=lfilter_zi(b, a))`` is constant); a linear solve with
    the companion matrix of ``a``, differentiable in ``b`` and ``a``.

    Example:
        >>> import numpy as np
        >>> lfilter_zi([1.0], [1.0, -0.5]).tolist()  # y = 2 at steady state: z = 0.5 y
        [1.0]
    """
    bn, an, k = _padded_coefficients(b, a)
    if k == 1:
        return fnp.zeros(0, dtype=dtype_of(bn))
    # I - companion(a).T: first column -a[1:], ones on the superdiagonal
    eye = numpy.eye(k - 1)
    upper = numpy.eye(k - 1, k=1)
    first_col = numpy.zeros((k - 1, k - 1))
    first_col[:, 0] = 1.0
    matrix = eye - upper + first_col * an[1:, None]
    rhs = bn[1:] - an[1:] * bn[0]
    return fnp.linalg.solve(matrix, rhs)


def _odd_ext(x: Any, n: int) -> Any:
    left = 2 * x[..., :1] - x[..., n:0:-1]
    right = 2 * x[..., -1:] - x[..., -2 : -(n + 2) : -1]
    return fnp.concatenate([left, x, right], axis=-1)


def _even_ext(x: Any, n: int) -> Any:
    return fnp.concatenate([x[..., n:0:-1], x, x[..., -2 : -(n + 2) : -1]], axis=-1)


def _const_ext(x: Any, n: int) -> Any:
    ones = numpy.ones(n)
    return fnp.concatenate([x[..., :1] * ones, x, x[..., -1:] * ones], axis=-1)


def _extend(where: str, x: Any, padtype: Any, padlen: Any, ntaps: int) -> tuple[int, Any]:
    """SciPy's ``_validate_pad`` on the last axis: ``(edge, extended x)``."""
    if padtype not in ("even", "odd", "constant", None):
        raise ValueError(f"{where}: unknown value {padtype!r} given to padtype")
    edge = 0 if padtype is None else (ntaps * 3 if padlen is None else int(padlen))
    if fnp.shape(x)[-1] <= edge:
        raise ValueError(
            f"{where}: the length of the input vector x must be greater than padlen, "
            f"which is {edge}"
        )
    if padtype is None or edge == 0:
        return edge, x
    ext = {"odd": _odd_ext, "even": _even_ext, "constant": _const_ext}[padtype]
    return edge, ext(x, edge)


def filtfilt(
    b: Any,
    a: Any,
    x: Any,
    axis: int = -1,
    padtype: Any = "odd",
    padlen: Any = None,
    method: str = "pad",
    irlen: Any = None,
) -> Any:
    """``scipy.signal.filtfilt`` (``method='pad'``): the zero-phase forward-backward filter,
    with SciPy's edge extension and steady-state initial conditions.

    Example:
        >>> import numpy as np
        >>> y = filtfilt([0.5], [1.0, -0.5], np.ones(20))  # the DC gain is 1
        >>> bool(np.allclose(y, 1.0))
        True
    """
    where = "filtfilt(b, a, x)"
    if method != "pad":
        raise UnsupportedOperationError(f"{where}: method={method!r}: only 'pad' is available")
    x = _arr(x)
    nd = fnp.ndim(x)
    axis = axis % nd
    x = fnp.moveaxis(x, axis, -1)
    ntaps = max(fnp.shape(_coef(a))[0], fnp.shape(_coef(b))[0])
    edge, ext = _extend(where, x, padtype, padlen, ntaps)
    zi = lfilter_zi(b, a)
    y, _ = lfilter(b, a, ext, axis=-1, zi=zi * ext[..., :1])
    y, _ = lfilter(b, a, y[..., ::-1], axis=-1, zi=zi * y[..., -1:])
    y = y[..., ::-1]
    if edge > 0:
        y = y[..., edge:-edge]
    return fnp.moveaxis(y, -1, axis)


def _sections(sos: Any, where: str) -> Any:
    sos = _arr(sos)
    if fnp.ndim(sos) != 2 or fnp.shape(sos)[1] != 6:
        raise ValueError(f"{where}: sos must have shape (n_sections, 6), got {fnp.shape(sos)}")
    return sos


def sosfilt(sos: Any, x: Any, axis: int = -1, zi: Any = None) -> Any:
    """``scipy.signal.sosfilt``: the cascade of second-order sections (rows ``b0 b1 b2 a0
    a1 a2``); with ``zi`` (shape ``(n_sections, ..., 2, ...)``) returns ``(y, zf)``.

    Example:
        >>> import numpy as np
        >>> sosfilt(np.array([[1.0, 0.0, 0.0, 1.0, -0.5, 0.0]]), np.ones(3)).tolist()
        [1.0, 1.5, 1.75]
    """
    sos = _sections(sos, "sosfilt(sos, x)")
    y = _arr(x)
    finals = []
    for i in range(fnp.shape(sos)[0]):
        b, a = sos[i, :3], sos[i, 3:]
        if zi is None:
            y = lfilter(b, a, y, axis=axis)
        else:
            y, zf = lfilter(b, a, y, axis=axis, zi=zi[i])
            finals.append(zf)
    return y if zi is None else (y, fnp.stack(finals))


def sosfilt_zi(sos: Any) -> Any:
    """``scipy.signal.sosfilt_zi``: the steady-state initial conditions of each section
    (shape ``(n_sections, 2)``) for a step input.

    Example:
        >>> import numpy as np
        >>> sosfilt_zi(np.array([[1.0, 0.0, 0.0, 1.0, -0.5, 0.0]])).tolist()
        [[1.0, 0.0]]
    """
    sos = _sections(sos, "sosfilt_zi(sos)")
    rows = []
    scale = 1.0
    for i in range(fnp.shape(sos)[0]):
        b, a = sos[i, :3], sos[i, 3:]
        rows.append(scale * lfilter_zi(b, a))
        scale = scale * fnp.sum(b) / fnp.sum(a)
    return fnp.stack(rows)


def sosfiltfilt(sos: Any, x: Any, axis: int = -1, padtype: Any = "odd", padlen: Any = None) -> Any:
    """``scipy.signal.sosfiltfilt``: the zero-phase forward-backward filter of
    second-order sections, with SciPy's edge extension and initial conditions.

    Example:
        >>> import numpy as np
        >>> sos = np.array([[0.5, 0.0, 0.0, 1.0, -0.5, 0.0]])
        >>> bool(np.allclose(sosfiltfilt(sos, np.ones(20)), 1.0))
        True
    """
    where = "sosfiltfilt(sos, x)"
    sos = _sections(sos, where)
    x = _arr(x)
    nd = fnp.ndim(x)
    axis = axis % nd
    x = fnp.moveaxis(x, axis, -1)
    n_sections = fnp.shape(sos)[0]
    plain = numpy.asarray(fnp.stop_gradient(sos)) if not isinstance(sos, numpy.ndarray) else sos
    ntaps = 2 * n_sections + 1 - min(int((plain[:, 2] == 0).sum()), int((plain[:, 5] == 0).sum()))
    edge, ext = _extend(where, x, padtype, padlen, ntaps)
    zi = fnp.reshape(sosfilt_zi(sos), (n_sections,) + (1,) * (fnp.ndim(x) - 1) + (2,))
    y, _ = sosfilt(sos, ext, axis=-1, zi=zi * ext[..., :1])
    y, _ = sosfilt(sos, y[..., ::-1], axis=-1, zi=zi * y[..., -1:])
    y = y[..., ::-1]
    if edge > 0:
        y = y[..., edge:-edge]
    return fnp.moveaxis(y, -1, axis)


_BOUNDARY_PAD = {"fill": "constant", "wrap": "wrap", "symm": "symmetric"}


def convolve2d(
    in1: Any, in2: Any, mode: str = "full", boundary: str = "fill", fillvalue: Any = 0
) -> Any:
    """``scipy.signal.convolve2d``: 2-D convolution with SciPy's boundary handling
    (``'fill'`` with ``fillvalue``, ``'wrap'`` periodic, ``'symm'`` mirrored), as a
    padding of ``in1`` followed by :func:`convolve`.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> img, k = np.arange(9.0).reshape(3, 3), np.array([[0.0, 1.0], [1.0, 0.0]])
        >>> convolve2d(img, k, mode="valid").tolist()
        [[4.0, 6.0], [10.0, 12.0]]
        >>> ft.grad(lambda im: convolve2d(im, k, mode="same", boundary="wrap").sum())(img)
        array([[2., 2., 2.],
               [2., 2., 2.],
               [2., 2., 2.]])
    """
    where = f"convolve2d(in1, in2, mode={mode!r}, boundary={boundary!r})"
    in1, in2 = _arr(in1), _arr(in2)
    if fnp.ndim(in1) != 2 or fnp.ndim(in2) != 2:
        raise ValueError(
            f"{where}: in1 and in2 must be 2-D, got shapes {fnp.shape(in1)} and {fnp.shape(in2)}"
        )
    if boundary not in _BOUNDARY_PAD:
        raise ValueError(f"{where}: boundary must be 'fill', 'wrap' or 'symm'")
    if mode not in ("full", "same", "valid"):
        raise ValueError(f"{where}: mode must be 'full', 'same' or 'valid', got {mode!r}")
    if mode == "valid" or (boundary == "fill" and _is_zero(fillvalue)):
        return convolve(in1, in2, mode=mode, method="direct")
    s1, s2 = fnp.shape(in1), fnp.shape(in2)
    pads = [(m - 1, m - 1) for m in s2]
    if boundary == "fill":
        padded = fnp.pad(in1, pads, mode="constant", constant_values=fillvalue)
    else:
        padded = fnp.pad(in1, pads, mode=_BOUNDARY_PAD[boundary])
    full = convolve(padded, in2, mode="valid", method="direct")  # the full-size result
    if mode == "full":
        return full
    return _centered(full, s1)


def correlate2d(
    in1: Any, in2: Any, mode: str = "full", boundary: str = "fill", fillvalue: Any = 0
) -> Any:
    """``scipy.signal.correlate2d``: 2-D cross-correlation, ``convolve2d`` with ``in2``
    flipped (and conjugated), with the same boundary handling.

    Example:
        >>> import numpy as np
        >>> correlate2d(np.arange(9.0).reshape(3, 3), np.ones((2, 2)), mode="valid").tolist()
        [[8.0, 12.0], [20.0, 24.0]]
    """
    in1, in2 = _arr(in1), _arr(in2)
    flipped = fnp.conj(fnp.flip(in2))
    if mode != "same":
        return convolve2d(in1, flipped, mode=mode, boundary=boundary, fillvalue=fillvalue)
    full = convolve2d(in1, flipped, mode="full", boundary=boundary, fillvalue=fillvalue)
    # SciPy centres correlate2d's 'same' window rounding up (convolve2d's rounds down)
    starts = [(f - s + 1) // 2 for f, s in zip(fnp.shape(full), fnp.shape(in1))]
    return full[tuple(slice(b, b + s) for b, s in zip(starts, fnp.shape(in1)))]


def _is_zero(value: Any) -> bool:
    return not hasattr(value, "shape") and value == 0
