"""``scipy.signal.lombscargle`` on tracers: the generalized Lomb-Scargle periodogram of
unevenly sampled data, with SciPy's signature and normalizations.

SciPy's formulation (weighted sums of ``cos``/``sin`` of ``freqs * x`` about the time
offset ``tau``; ``floating_mean`` fits an offset too) written with
:mod:`ftransforms.numpy`, so it is differentiable in the samples ``y``, the times ``x``,
the frequencies and the weights, and batchable.

Example:
    >>> import numpy as np
    >>> x = np.linspace(0.0, 10.0, 40)
    >>> p = lombscargle(x, np.sin(2.0 * x), np.array([1.0, 2.0, 3.0]), normalize=True)
    >>> int(np.argmax(p))  # the angular frequency 2
    1
"""

from __future__ import annotations

from typing import Any

import numpy

import ftransforms.numpy as fnp

__all__ = ["lombscargle"]


def lombscargle(
    x: Any,
    y: Any,
    freqs: Any,
    precenter: bool = False,
    normalize: Any = False,
    *,
    weights: Any = None,
    floating_mean: bool = False,
) -> Any:
    """``scipy.signal.lombscargle``: the periodogram of ``y`` sampled at times ``x`` at the
    angular frequencies ``freqs``; ``normalize`` is ``False``/``'power'``,
    ``True``/``'normalize'`` or ``'amplitude'`` (complex amplitudes).

    Example:
        >>> import numpy as np
        >>> x = np.array([0.0, 1.0, 2.5, 4.0])
        >>> round(float(lombscargle(x, np.cos(x), np.array([1.0]))), 6)
        1.180504
    """
    where = "lombscargle(x, y, freqs)"
    x = fnp.astype(fnp.asarray(x), numpy.float64)
    y = fnp.astype(fnp.asarray(y), numpy.float64)
    freqs = fnp.astype(fnp.asarray(freqs), numpy.float64)
    w = fnp.ones_like(y) if weights is None else fnp.astype(fnp.asarray(weights), numpy.float64)
    if not (x.ndim == 1 and x.shape[0] > 0 and x.shape == y.shape == w.shape):
        raise ValueError(f"{where}: x, y and weights must be 1-D arrays of equal non-zero length")
    if not (freqs.ndim == 1 and freqs.shape[0] > 0):
        raise ValueError(f"{where}: freqs must be a 1-D array of non-zero length")
    if isinstance(normalize, bool):
        normalize = "normalize" if normalize else "power"
    if normalize not in ("power", "normalize", "amplitude"):
        raise ValueError(
            f"{where}: normalize must be False (or 'power'), True (or 'normalize') or "
            f"'amplitude', got {normalize!r}"
        )
    w = w / fnp.sum(w)
    if precenter:
        y = y - fnp.mean(y)
    wt = x[:, None] * freqs[None, :]
    cos, sin = fnp.cos(wt), fnp.sin(wt)
    wc = w[:, None]
    mean_y = fnp.sum(w * y)
    cc = fnp.sum(wc * cos * cos, axis=0)
    ss = 1.0 - cc
    cs = fnp.sum(wc * cos * sin, axis=0)
    if floating_mean:
        c, s = fnp.sum(wc * cos, axis=0), fnp.sum(wc * sin, axis=0)
        cc, ss, cs = cc - c * c, ss - s * s, cs - c * s
    tau = 0.5 * fnp.arctan2(2.0 * cs, cc - ss)
    cos_t, sin_t = fnp.cos(wt - tau), fnp.sin(wt - tau)
    wy = (w * y)[:, None]
    yc, ys = fnp.sum(wy * cos_t, axis=0), fnp.sum(wy * sin_t, axis=0)
    cc = fnp.sum(wc * cos_t * cos_t, axis=0)
    ss = 1.0 - cc
    if floating_mean:
        c, s = fnp.sum(wc * cos_t, axis=0), fnp.sum(wc * sin_t, axis=0)
        yc, ys = yc - mean_y * c, ys - mean_y * s
        cc, ss = cc - c * c, ss - s * s
    tiny = numpy.finfo(numpy.float64).epsneg
    cc, ss = fnp.maximum(cc, tiny), fnp.maximum(ss, tiny)
    a, b = yc / cc, ys / ss
    if normalize == "amplitude":  # (one frequency: a 0-d result, as SciPy's squeeze)
        return fnp.squeeze((a + 1j * b) * fnp.exp(1j * tau))
    pgram = fnp.squeeze(2.0 * (a * yc + b * ys))
    if normalize == "power":
        return pgram * (x.shape[0] / 4.0)
    yy = fnp.sum(w * y * y)
    if floating_mean:
        yy = yy - mean_y * mean_y
    return pgram * (0.5 / yy)
