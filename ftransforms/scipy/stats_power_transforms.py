"""``scipy.stats``' power transforms at a given parameter on tracers: ``boxcox(x,
lmbda)``, ``yeojohnson(x, lmbda)`` and the Yeo-Johnson log-likelihood ``yeojohnson_llf``,
with SciPy's signatures.

They are elementwise compositions of :mod:`ftransforms.numpy` (``expm1``/``log1p`` as
SciPy's, the ``lmbda = 0`` and ``2`` branches as SciPy picks them), differentiable in the
data and in ``lmbda``.  Without ``lmbda`` SciPy maximises the likelihood over it with an
optimizer: that is refused on traced data with a clear error.

Example:
    >>> import numpy as np
    >>> yeojohnson(np.array([-1.0, 0.0, 3.0]), 0.5).round(6).tolist()
    [-1.218951, 0.0, 2.0]
"""

from __future__ import annotations

from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.scipy import special as fsp
from ftransforms.scipy.stats_tests import _propagate

__all__ = ["boxcox", "yeojohnson", "yeojohnson_llf"]


def _needs_lmbda(where: str) -> None:
    raise UnsupportedOperationError(
        f"scipy.stats.{where}(x, lmbda=None) on traced values: SciPy finds lmbda with an "
        f"optimizer; pass lmbda (for example the one SciPy's {where} returns for the plain "
        f"data: scipy.stats.{where}(x_values)[1])"
    )


def boxcox(x: Any, lmbda: Any = None, alpha: Any = None, optimizer: Any = None) -> Any:
    """``scipy.stats.boxcox(x, lmbda)``: ``(x**lmbda - 1) / lmbda`` (``log(x)`` at
    ``lmbda = 0``) of positive data, as ``scipy.special.boxcox``.

    Example:
        >>> import numpy as np
        >>> boxcox(np.array([1.0, 4.0]), 0.5).tolist()
        [0.0, 2.0]
    """
    if lmbda is None:
        _needs_lmbda("boxcox")
    x = fnp.asarray(x)
    if x.ndim != 1:
        raise ValueError(f"boxcox(x, lmbda): data must be 1-dimensional, got shape {x.shape}")
    return fsp.boxcox(x, lmbda)


def _transform(x: Any, lmbda: Any) -> Any:
    """SciPy's ``_yeojohnson_transform``, with SciPy's branches at ``lmbda`` 0 and 2."""
    x = fnp.asarray(x)
    dt = numpy.result_type(x.dtype if x.dtype.kind == "f" else numpy.float64, numpy.float16)
    x = fnp.astype(x, dt)
    eps = numpy.finfo(dt).eps
    lam = fnp.asarray(lmbda)
    pos = x >= 0
    xp_, xn_ = fnp.where(pos, x, 0.0), fnp.where(pos, 0.0, x)
    zero, two = fnp.abs(lam) < eps, fnp.abs(lam - 2) <= eps  # SciPy's branches
    lam_up = fnp.where(zero, 1.0, lam)
    lam_down = fnp.where(two, 1.0, 2 - lam)
    up = fnp.where(zero, fnp.log1p(xp_), fnp.expm1(lam_up * fnp.log1p(xp_)) / lam_up)
    down = fnp.where(two, -fnp.log1p(-xn_), -fnp.expm1(lam_down * fnp.log1p(-xn_)) / lam_down)
    return fnp.where(pos, up, down)


def yeojohnson(x: Any, lmbda: Any = None) -> Any:
    """``scipy.stats.yeojohnson(x, lmbda)``: the Yeo-Johnson power transform of ``x``.

    Example:
        >>> import numpy as np
        >>> yeojohnson(np.array([0.0, 3.0]), 0.0).round(6).tolist()  # log1p for x >= 0
        [0.0, 1.386294]
    """
    if lmbda is None:
        _needs_lmbda("yeojohnson")
    return _transform(x, lmbda)


def yeojohnson_llf(
    lmb: Any, data: Any, *, axis: Any = 0, nan_policy: str = "propagate", keepdims: bool = False
) -> Any:
    """``scipy.stats.yeojohnson_llf``: the Yeo-Johnson log-likelihood of ``lmb`` for
    ``data`` along ``axis``.

    Example:
        >>> import numpy as np
        >>> round(float(yeojohnson_llf(1.0, np.array([1.0, 2.0, 4.0]))), 6)
        -0.662749
    """
    _propagate(nan_policy, "yeojohnson_llf")
    data = fnp.asarray(data)
    src = data
    if axis is None:
        data, axis = fnp.ravel(data), 0
    y = _transform(data, lmb)
    sigma = fnp.var(y, axis=axis, keepdims=keepdims)
    finite = sigma >= numpy.finfo(numpy.float64).smallest_normal
    log_sigma = fnp.where(finite, fnp.log(fnp.where(finite, sigma, 1.0)), -fnp.inf)
    n = data.shape[axis]
    s = fnp.sum(fnp.sign(data) * fnp.log1p(fnp.abs(data)), axis=axis, keepdims=keepdims)
    out = -n / 2 * log_sigma + (lmb - 1) * s
    if keepdims and fnp.ndim(src) != fnp.ndim(data):
        out = fnp.reshape(out, (1,) * fnp.ndim(src))
    return out
