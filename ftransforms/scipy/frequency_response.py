"""``scipy.signal.freqz`` and ``freqz_sos`` of traced filter coefficients: the frequency
response ``H(e^{jw}) = sum_k b[k] e^{-jwk} / sum_k a[k] e^{-jwk}`` at SciPy's
frequencies (a product with a matrix of powers, SciPy's values to rounding; SciPy's FFT
shortcut gives the same numbers), so a filter design loss on ``|H|`` differentiates in
the coefficients.  One filter (1-D ``b`` and ``a``); ``plot`` is called as SciPy's.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> gain_at_dc = lambda b: np.abs(freqz(b, worN=4)[1][0])  # |sum b|
    >>> ft.grad(gain_at_dc)(np.array([0.5, 0.5])).tolist()
    [1.0, 1.0]
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import UnsupportedOperationError

__all__ = ["freqz", "freqz_sos"]


def _coefficients(v: Any, what: str) -> Any:
    v = fnp.atleast_1d(fnp.asarray(v))
    if fnp.ndim(v) != 1:
        raise UnsupportedOperationError(
            f"freqz(b, a): {what} must be 1-D on traced values (one filter), got shape "
            f"{fnp.shape(v)}"
        )
    return v


def _powers(w: numpy.ndarray, n: int) -> numpy.ndarray:
    return numpy.exp(-1j * numpy.outer(w, numpy.arange(n)))


def freqz(
    b: Any,
    a: Any = 1,
    worN: Any = 512,  # noqa: N803  (SciPy's name)
    whole: bool = False,
    plot: Any = None,
    fs: float = 2 * math.pi,
    include_nyquist: bool = False,
) -> tuple:
    """``scipy.signal.freqz``: ``(w, h)``, the frequencies (SciPy's, in the units of
    ``fs``) and the complex response, differentiable in ``b`` and ``a``.

    Example:
        >>> import numpy as np
        >>> w, h = freqz(np.array([1.0, 1.0]), worN=3)
        >>> np.round(np.abs(h), 6).tolist()
        [2.0, 1.732051, 1.0]
    """
    b, a = _coefficients(b, "b"), _coefficients(a, "a")
    if worN is None:
        worN = 512
    if isinstance(worN, (int, numpy.integer)):
        n = operator.index(worN)
        if n < 0:
            raise ValueError(f"freqz: worN must be nonnegative, got {n}")
        last = 2 * math.pi if whole else math.pi
        w = numpy.linspace(0, last, n, endpoint=include_nyquist and not whole)
    else:
        w = numpy.atleast_1d(numpy.asarray(numpy.real(worN), dtype=float))
        w = 2 * math.pi * w / fs
    h = fnp.matmul(_powers(w, fnp.shape(b)[0]), b.astype(complex))
    h = h / fnp.matmul(_powers(w, fnp.shape(a)[0]), a.astype(complex))
    w = w * (fs / (2 * math.pi))
    if plot is not None:
        plot(w, h)
    return w, h


def freqz_sos(sos: Any, worN: Any = 512, whole: bool = False, fs: float = 2 * math.pi) -> tuple:  # noqa: N803
    """``scipy.signal.freqz_sos``: the response of second-order sections, the product of
    each section's :func:`freqz`.

    Example:
        >>> import numpy as np
        >>> sos = np.array([[1.0, 1.0, 0.0, 1.0, 0.0, 0.0]] * 2)
        >>> float(np.abs(freqz_sos(sos, worN=2)[1][0]))  # (1 + 1)**2 at DC
        4.0
    """
    sos = fnp.asarray(sos)
    if fnp.ndim(sos) != 2 or fnp.shape(sos)[1] != 6 or fnp.shape(sos)[0] == 0:
        raise ValueError(f"freqz_sos: sos must have shape (n_sections, 6), got {fnp.shape(sos)}")
    h = None
    for i in range(fnp.shape(sos)[0]):
        w, part = freqz(sos[i, :3], sos[i, 3:], worN=worN, whole=whole, fs=fs)
        h = part if h is None else h * part
    return w, h
