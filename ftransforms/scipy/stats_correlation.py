"""``scipy.stats.pearsonr`` on tracers: Pearson's correlation coefficient and its p-value
under the null hypothesis of independent normal samples, with SciPy's signature.

The coefficient is a composition of :mod:`ftransforms.numpy`; the p-value is the tail of
the coefficient's exact distribution under the null, a beta distribution on ``[-1, 1]``
with both shapes ``n/2 - 1`` (:func:`ftransforms.scipy.special.betainc`), as in SciPy, so
both are differentiable in the data and work under every transform.  The result unpacks
as ``(statistic, pvalue)`` and has ``confidence_interval`` (Fisher's transform).

Example:
    >>> import numpy as np
    >>> from ftransforms import grad
    >>> from ftransforms.scipy.stats import pearsonr
    >>> x = np.array([1.0, 2.0, 3.0, 4.0])
    >>> round(float(pearsonr(x, np.array([1.0, 3.0, 2.0, 5.0])).statistic), 6)
    0.831522
    >>> bool(np.allclose(grad(lambda y: pearsonr(x, y)[0])(2 * x + 1), 0.0))  # r = 1 is a maximum
    True
"""

from __future__ import annotations

import math
from collections import namedtuple
from typing import Any

import ftransforms.numpy as fnp
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.pytree import register_pytree_node
from ftransforms.scipy import special as fsp

__all__ = ["ConfidenceInterval", "PearsonRResult", "pearsonr"]

ConfidenceInterval = namedtuple("ConfidenceInterval", ["low", "high"])
ConfidenceInterval.__doc__ = """``confidence_interval``'s result: ``low`` and ``high``.

Example:
    >>> ConfidenceInterval(-0.5, 0.9).high
    0.9
"""


class PearsonRResult(tuple):
    """``pearsonr``'s result: ``statistic`` and ``pvalue`` (it unpacks as the pair), and
    ``confidence_interval(confidence_level=0.95)`` of the coefficient by Fisher's
    transform, as SciPy's for ``method=None``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.stats import pearsonr
        >>> r, p = pearsonr(np.array([1.0, 2.0, 3.0]), np.array([2.0, 4.0, 7.0]))
        >>> round(float(r), 4), round(float(p), 4)
        (0.9934, 0.0732)
    """

    def __new__(cls, statistic: Any, pvalue: Any, n: int, alternative: str) -> PearsonRResult:
        out = super().__new__(cls, (statistic, pvalue))
        out._n, out._alternative = n, alternative
        return out

    def __repr__(self) -> str:
        return f"PearsonRResult(statistic={self[0]!r}, pvalue={self[1]!r})"

    @property
    def statistic(self) -> Any:
        return self[0]

    @property
    def pvalue(self) -> Any:
        return self[1]

    @property
    def correlation(self) -> Any:
        """SciPy's older name of ``statistic``."""
        return self[0]

    def confidence_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """``(low, high)``: the interval of the coefficient at ``confidence_level``."""
        z = fnp.arctanh(self.statistic)
        se = 1.0 / math.sqrt(self._n - 3)
        ndtri = fsp.ndtri
        if self._alternative == "two-sided":
            h = ndtri(0.5 + confidence_level / 2) * se
            return ConfidenceInterval(fnp.tanh(z - h), fnp.tanh(z + h))
        h = ndtri(confidence_level) * se
        if self._alternative == "less":
            return ConfidenceInterval(-fnp.ones_like(z), fnp.tanh(z + h))
        return ConfidenceInterval(fnp.tanh(z - h), fnp.ones_like(z))


# (a pytree: jit and vmap return it; the sample size and the alternative are its aux data)
register_pytree_node(
    PearsonRResult,
    lambda res: (tuple(res), (res._n, res._alternative)),
    lambda aux, children: PearsonRResult(*children, *aux),
)


def pearsonr(
    x: Any, y: Any, *, alternative: str = "two-sided", method: Any = None, axis: int | None = 0
) -> PearsonRResult:
    """Pearson's correlation coefficient of ``x`` and ``y`` along ``axis`` (``None``: the
    flattened arrays) and its p-value for ``alternative`` ``'two-sided'``, ``'less'`` or
    ``'greater'``, as ``scipy.stats.pearsonr``; SciPy's resampling ``method`` objects are
    not supported.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.stats import pearsonr
        >>> res = pearsonr(np.array([1.0, 2.0, 3.0, 4.0]), np.array([1.0, 3.0, 2.0, 5.0]))
        >>> round(float(res.pvalue), 6)
        0.168478
    """
    where = "ftransforms.scipy.stats.pearsonr"
    if method is not None:
        raise UnsupportedOperationError(
            f"{where}(method={method!r}): only method=None (the exact beta distribution of "
            f"the coefficient) is supported; resample with a loop over ft.vmap instead"
        )
    if alternative not in ("two-sided", "less", "greater"):
        raise ValueError(
            f"{where}(alternative={alternative!r}): alternative must be 'two-sided', 'less' "
            f"or 'greater'"
        )
    x, y = fnp.asarray(x), fnp.asarray(y)
    if axis is None:
        x, y, axis = fnp.ravel(x), fnp.ravel(y), 0
    x, y = fnp.broadcast_arrays(x, y)
    if x.dtype.kind in "biu":
        x = x.astype(fnp.float64)
    if y.dtype.kind in "biu":
        y = y.astype(fnp.float64)
    n = x.shape[axis]
    if n < 2:
        raise ValueError(f"{where}: x and y must have length at least 2 along the axis, got {n}")
    xm = x - fnp.mean(x, axis=axis, keepdims=True)
    ym = y - fnp.mean(y, axis=axis, keepdims=True)
    r = fnp.sum(xm * ym, axis=axis) / fnp.sqrt(
        fnp.sum(xm * xm, axis=axis) * fnp.sum(ym * ym, axis=axis)
    )
    r = fnp.clip(r, -1.0, 1.0)
    if n == 2:  # SciPy: the coefficient is +-1 and the p-value 1, for every alternative
        return PearsonRResult(r, fnp.ones_like(r), n, alternative)
    a = n / 2 - 1  # R = 2 B - 1 with B ~ Beta(a, a) under the null
    if alternative == "two-sided":
        pvalue = 2 * fsp.betainc(a, a, (1 - fnp.abs(r)) / 2)
    elif alternative == "greater":
        pvalue = fsp.betainc(a, a, (1 - r) / 2)
    else:
        pvalue = fsp.betainc(a, a, (1 + r) / 2)
    return PearsonRResult(r, fnp.clip(pvalue, 0.0, 1.0), n, alternative)
