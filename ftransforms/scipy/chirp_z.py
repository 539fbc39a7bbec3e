"""``scipy.signal.czt`` and ``zoom_fft`` on traced signals: the chirp z-transform as the
sum that defines it, ``X[k] = sum_n x[n] (a w^-k)^-n``, a product with a matrix of
powers (built once from the constants ``w`` and ``a``; from traced ones with
``ftransforms.numpy``), so every transform differentiates and batches it.  SciPy's own
``czt`` handed a tracer to its ``fft`` bound at import, whose conversion dropped the
imaginary parts under ``jit``/``vmap``.

Example:
    >>> import numpy as np
    >>> x = np.array([1.0, 2.0, 0.0, -1.0])
    >>> bool(np.allclose(czt(x), np.fft.fft(x)))  # the defaults are the DFT
    True
"""

from __future__ import annotations

from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.helpers import normalize_axis

__all__ = ["czt", "zoom_fft"]


def _powers(n: int, m: int, w: Any, a: Any) -> Any:
    """The ``(n, m)`` matrix ``a^-i w^(i k)``."""
    i = numpy.arange(n)[:, None]
    k = numpy.arange(m)[None, :]
    if isinstance(w, Tracer) or isinstance(a, Tracer):
        w, a = fnp.asarray(w).astype(complex), fnp.asarray(a).astype(complex)
        return fnp.power(a, -i) * fnp.power(w, i * k)
    return numpy.power(complex(a), -i) * numpy.power(complex(w), i * k)


def czt(x: Any, m: int | None = None, w: Any = None, a: Any = 1 + 0j, *, axis: int = -1) -> Any:
    """``scipy.signal.czt``: the chirp z-transform of ``x`` along ``axis`` at the ``m``
    points ``a w^-k`` (by default the DFT's), differentiable in ``x`` (and ``w``/``a``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> g = ft.grad(lambda x: czt(x, 3, a=0.5).real.sum())(np.ones(2))
        >>> (np.round(g, 6) + 0.0).tolist()  # the sum over k of the real part of (0.5 w^-k)^-n
        [3.0, 0.0]
    """
    x = fnp.asarray(x)
    axis = normalize_axis(axis, fnp.ndim(x))
    n = fnp.shape(x)[axis]
    m = n if m is None else int(m)
    if m < 1:
        raise ValueError(f"czt(x, m={m}): m must be a positive integer")
    if w is None:
        w = numpy.exp(-2j * numpy.pi / m)
    moved = fnp.moveaxis(x, axis, -1)
    out = fnp.matmul(moved.astype(complex), _powers(n, m, w, a))
    return fnp.moveaxis(out, -1, axis)


def zoom_fft(
    x: Any,
    fn: Any,
    m: int | None = None,
    *,
    fs: float = 2,
    endpoint: bool = False,
    axis: int = -1,
) -> Any:
    """``scipy.signal.zoom_fft``: the DFT of ``x`` at ``m`` frequencies spanning ``fn``
    (``[f1, f2]``, or ``[0, fn]``), as SciPy's ``ZoomFFT`` spaces them.

    Example:
        >>> import numpy as np
        >>> x = np.array([1.0, 2.0, 0.0, -1.0])
        >>> bool(np.allclose(zoom_fft(x, 2.0), np.fft.fft(x)))  # the whole band: the DFT
        True
    """
    fn = numpy.atleast_1d(fn)
    if fn.shape == (1,):
        f1, f2 = 0.0, float(fn[0])
    elif fn.shape == (2,):
        f1, f2 = float(fn[0]), float(fn[1])
    else:
        raise ValueError(f"zoom_fft(x, fn): fn must be a number or [f1, f2], got {fn!r}")
    n = fnp.shape(x)[normalize_axis(axis, fnp.ndim(x))]
    m = n if m is None else int(m)
    scale = ((f2 - f1) * m) / (fs * (m - 1)) if endpoint else (f2 - f1) / fs
    w = numpy.exp(-2j * numpy.pi * scale / m)
    a = numpy.exp(2j * numpy.pi * f1 / fs)
    return czt(x, m, w, a, axis=axis)
