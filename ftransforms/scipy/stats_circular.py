"""``scipy.stats``' circular statistics on tracers: ``circmean``, ``circvar`` and
``circstd`` of samples on the interval ``[low, high)``, with SciPy's signatures.

Each is the mean resultant of ``sin``/``cos`` of the samples scaled to ``[0, 2 pi)``, so
it is differentiable and batchable (SciPy's own code clips through its array-API layer,
which takes a traced array for an object array).  Only ``nan_policy='propagate'`` is
supported.

Example:
    >>> import numpy as np
    >>> round(float(circmean(np.array([0.1, 2 * np.pi - 0.1]))), 6)  # across the wrap
    0.0
"""

from __future__ import annotations

import math
from typing import Any

import ftransforms.numpy as fnp
from ftransforms.scipy.stats_tests import _float, _propagate

__all__ = ["circmean", "circstd", "circvar"]


def _resultant(samples: Any, high: Any, low: Any, axis: Any, nan_policy: str, where: str) -> tuple:
    """The sums of ``sin`` and ``cos`` of the samples as angles, and the sample count."""
    _propagate(nan_policy, where)
    a = _float(samples)
    angles = a * (2.0 * math.pi / (high - low))
    n = a.size if axis is None else a.shape[axis]
    return fnp.sum(fnp.sin(angles), axis=axis), fnp.sum(fnp.cos(angles), axis=axis), n, a


def _kept(out: Any, a: Any, axis: Any, keepdims: bool) -> Any:
    if not keepdims:
        return out
    return fnp.reshape(out, (1,) * a.ndim) if axis is None else fnp.expand_dims(out, axis)


def _length(s: Any, c: Any, n: int) -> Any:
    """The mean resultant length, at most 1 (rounding can pass it)."""
    return fnp.minimum(fnp.sqrt((s / n) ** 2 + (c / n) ** 2), 1.0)


def circmean(
    samples: Any,
    high: Any = 2 * math.pi,
    low: Any = 0,
    axis: Any = None,
    nan_policy: str = "propagate",
    *,
    keepdims: bool = False,
) -> Any:
    """``scipy.stats.circmean``: the angle of the mean resultant, in ``[low, high)``.

    Example:
        >>> import numpy as np
        >>> round(float(circmean(np.array([350.0, 10.0, 20.0]), high=360)), 6)
        6.704953
    """
    s, c, _, a = _resultant(samples, high, low, axis, nan_policy, "circmean")
    period = high - low
    out = (fnp.arctan2(s, c) * (period / (2.0 * math.pi)) - low) % period + low
    return _kept(out, a, axis, keepdims)


def circvar(
    samples: Any,
    high: Any = 2 * math.pi,
    low: Any = 0,
    axis: Any = None,
    nan_policy: str = "propagate",
    *,
    keepdims: bool = False,
) -> Any:
    """``scipy.stats.circvar``: one less the mean resultant length, in ``[0, 1]``.

    Example:
        >>> import numpy as np
        >>> round(float(circvar(np.array([0.0, np.pi / 2]))), 6)
        0.292893
    """
    s, c, n, a = _resultant(samples, high, low, axis, nan_policy, "circvar")
    return _kept(1.0 - _length(s, c, n), a, axis, keepdims)


def circstd(
    samples: Any,
    high: Any = 2 * math.pi,
    low: Any = 0,
    axis: Any = None,
    nan_policy: str = "propagate",
    *,
    normalize: bool = False,
    keepdims: bool = False,
) -> Any:
    """``scipy.stats.circstd``: ``sqrt(-2 log R)`` of the mean resultant length ``R``, in
    the samples' units (``normalize=True``: in radians).

    Example:
        >>> import numpy as np
        >>> round(float(circstd(np.array([0.0, np.pi / 2]))), 6)
        0.832555
    """
    s, c, n, a = _resultant(samples, high, low, axis, nan_policy, "circstd")
    out = fnp.sqrt(-2.0 * fnp.log(_length(s, c, n))) + 0.0
    if not normalize:
        out = out * ((high - low) / (2.0 * math.pi))
    return _kept(out, a, axis, keepdims)
