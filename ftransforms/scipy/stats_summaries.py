"""``scipy.stats``' summary statistics on tracers: ``entropy``, ``zscore``, ``sem``,
``moment``, ``skew``, ``kurtosis``, ``variation`` and ``gmean``, with SciPy's signatures.

Each is a composition of :mod:`ftransforms.numpy` and :mod:`ftransforms.scipy.special`, so
it works under every transform.  ``axis=None`` works on the flattened input, as in SciPy.
Only ``nan_policy='propagate'`` (SciPy's default) is supported: ``'omit'`` and ``'raise'``
would make the result's shape or the control flow depend on the values.

Example:
    >>> import numpy as np
    >>> from ftransforms import grad
    >>> from ftransforms.scipy.stats import entropy
    >>> round(float(entropy(np.array([0.5, 0.5]), base=2)), 6)
    1.0
    >>> grad(lambda p: entropy(p))(np.array([0.5, 0.5])).tolist()  # the uniform is a maximum
    [0.0, 0.0]
"""

from __future__ import annotations

import math
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.scipy import special as fsp

__all__ = [
    "entropy",
    "gmean",
    "gstd",
    "kurtosis",
    "lmoment",
    "moment",
    "sem",
    "skew",
    "variation",
    "zmap",
    "zscore",
]


def _propagate(nan_policy: str, where: str) -> None:
    if nan_policy != "propagate":
        raise UnsupportedOperationError(
            f"ftransforms.scipy.stats.{where}(nan_policy={nan_policy!r}): only 'propagate' is "
            f"supported under the transforms (the result's shape would depend on the values); "
            f"drop the NaNs first (fnp.where(fnp.isnan(a), fill, a)) or use fnp.nanmean & co."
        )


def _flat(a: Any, axis: Any) -> tuple[Any, Any]:
    """SciPy's ``axis=None``: the flattened array along axis 0."""
    a = fnp.asarray(a)
    if a.dtype.kind in "biu":
        a = a.astype(fnp.float64)
    return (fnp.ravel(a), 0) if axis is None else (a, axis)


def _kept(out: Any, a: Any, axis: Any, keepdims: bool) -> Any:
    """``axis=None, keepdims=True``: the result with ``a``'s rank, every axis of length 1."""
    if axis is None and keepdims:
        return fnp.reshape(out, (1,) * fnp.ndim(a))
    return out


def _central(a: Any, order: int, axis: Any, keepdims: bool = False) -> Any:
    dev = a - fnp.mean(a, axis=axis, keepdims=True)
    return fnp.mean(dev**order, axis=axis, keepdims=keepdims)


def _constant(a: Any, m2: Any, axis: Any, keepdims: bool) -> Any:
    """Where the data are constant along ``axis`` (SciPy's test: ``m2`` below the squared
    resolution of the mean); ``skew``/``kurtosis`` are NaN there, as SciPy's."""
    resolution = 10.0 ** -fnp.finfo(a.dtype).precision
    mean = fnp.mean(a, axis=axis, keepdims=keepdims)
    return m2 <= (resolution * mean) ** 2


def entropy(
    pk: Any,
    qk: Any = None,
    base: float | None = None,
    axis: int = 0,
    *,
    nan_policy: str = "propagate",
    keepdims: bool = False,
) -> Any:
    """Shannon entropy ``-sum(pk log pk)`` of the distribution ``pk`` (normalised along
    ``axis``), or with ``qk`` the relative entropy ``sum(pk log(pk / qk))``, in units of
    ``base`` (``e`` by default), as ``scipy.stats.entropy``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.stats import entropy
        >>> round(float(entropy(np.array([1.0, 1.0]), np.array([1.0, 3.0]))), 6)
        0.143841
    """
    _propagate(nan_policy, "entropy")
    flat = axis is None
    src, asked = pk, axis
    pk, axis = _flat(pk, axis)
    if qk is not None:  # SciPy broadcasts the two before normalising them
        pk, qk = fnp.broadcast_arrays(pk, _flat(qk, None)[0] if flat else fnp.asarray(qk))
    pk = pk / fnp.sum(pk, axis=axis, keepdims=True)
    if qk is None:
        vec = fsp.entr(pk)
    else:
        vec = fsp.rel_entr(pk, qk / fnp.sum(qk, axis=axis, keepdims=True))
    out = fnp.sum(vec, axis=axis, keepdims=keepdims)
    return _kept(out if base is None else out / math.log(base), src, asked, keepdims)


def zscore(a: Any, axis: int | None = 0, ddof: int = 0, nan_policy: str = "propagate") -> Any:
    """``(a - mean) / std`` along ``axis`` (``ddof`` for the standard deviation), as
    ``scipy.stats.zscore``; ``axis=None`` standardises the whole array, keeping its shape.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.stats import zscore
        >>> zscore(np.array([1.0, 2.0, 3.0])).round(4).tolist()
        [-1.2247, 0.0, 1.2247]
    """
    _propagate(nan_policy, "zscore")
    a = fnp.asarray(a)
    if a.dtype.kind in "biu":
        a = a.astype(fnp.float64)
    mean = fnp.mean(a, axis=axis, keepdims=True)
    std = fnp.std(a, axis=axis, ddof=ddof, keepdims=True)
    return (a - mean) / std


def sem(
    a: Any, axis: int | None = 0, ddof: int = 1, nan_policy: str = "propagate", *, keepdims=False
) -> Any:
    """The standard error of the mean, ``std(a, ddof) / sqrt(n)``, as ``scipy.stats.sem``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.stats import sem
        >>> round(float(sem(np.array([1.0, 2.0, 3.0, 4.0]))), 6)
        0.645497
    """
    _propagate(nan_policy, "sem")
    src, asked = a, axis
    a, axis = _flat(a, axis)
    n = a.shape[axis]
    return _kept(
        fnp.std(a, axis=axis, ddof=ddof, keepdims=keepdims) / math.sqrt(n), src, asked, keepdims
    )


def moment(
    a: Any,
    order: int = 1,
    axis: int | None = 0,
    nan_policy: str = "propagate",
    *,
    center: Any = None,
    keepdims: bool = False,
    moment: int | None = None,
) -> Any:
    """The ``order``-th moment about ``center`` (the mean by default, so the first is 0),
    as ``scipy.stats.moment`` (``moment=``: SciPy's older name of ``order``).

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.stats import moment
        >>> float(moment(np.array([1.0, 2.0, 3.0, 4.0]), order=2))
        1.25
    """
    _propagate(nan_policy, "moment")
    if moment is not None:
        order = moment
    src, asked = a, axis
    a, axis = _flat(a, axis)
    if center is None:
        return _kept(_central(a, order, axis, keepdims), src, asked, keepdims)
    return _kept(
        fnp.mean((a - center) ** order, axis=axis, keepdims=keepdims), src, asked, keepdims
    )


def skew(
    a: Any,
    axis: int | None = 0,
    bias: bool = True,
    nan_policy: str = "propagate",
    *,
    keepdims=False,
) -> Any:
    """The sample skewness ``m3 / m2**1.5`` (with ``bias=False`` the adjusted
    Fisher-Pearson coefficient), NaN for constant data, as ``scipy.stats.skew``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.stats import skew
        >>> round(float(skew(np.array([1.0, 2.0, 3.0, 10.0]))), 6)
        1.018234
    """
    _propagate(nan_policy, "skew")
    src, asked = a, axis
    a, axis = _flat(a, axis)
    n = a.shape[axis]
    m2, m3 = _central(a, 2, axis, keepdims), _central(a, 3, axis, keepdims)
    constant = _constant(a, m2, axis, keepdims)
    g1 = m3 / fnp.where(constant, 1.0, m2) ** 1.5
    if not bias and n > 2:
        g1 = g1 * math.sqrt((n - 1.0) * n) / (n - 2.0)
    return _kept(fnp.where(constant, fnp.nan, g1), src, asked, keepdims)


def kurtosis(
    a: Any,
    axis: int | None = 0,
    fisher: bool = True,
    bias: bool = True,
    nan_policy: str = "propagate",
    *,
    keepdims: bool = False,
) -> Any:
    """The sample kurtosis ``m4 / m2**2`` (minus 3 with ``fisher=True``, SciPy's default;
    with ``bias=False`` the unbiased estimator), NaN for constant data, as
    ``scipy.stats.kurtosis``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.stats import kurtosis
        >>> round(float(kurtosis(np.array([1.0, 2.0, 3.0, 10.0]))), 6)
        -0.7696
    """
    _propagate(nan_policy, "kurtosis")
    src, asked = a, axis
    a, axis = _flat(a, axis)
    n = a.shape[axis]
    m2, m4 = _central(a, 2, axis, keepdims), _central(a, 4, axis, keepdims)
    constant = _constant(a, m2, axis, keepdims)
    g2 = m4 / fnp.where(constant, 1.0, m2) ** 2
    if not bias and n > 3:
        g2 = ((n * n - 1.0) * g2 - 3.0 * (n - 1.0) ** 2) / ((n - 2.0) * (n - 3.0)) + 3.0
    g2 = fnp.where(constant, fnp.nan, g2)
    return _kept(g2 - 3.0 if fisher else g2, src, asked, keepdims)


def variation(
    a: Any, axis: int | None = 0, nan_policy: str = "propagate", ddof: int = 0, *, keepdims=False
) -> Any:
    """The coefficient of variation ``std(a, ddof) / mean(a)``, as ``scipy.stats.variation``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.stats import variation
        >>> round(float(variation(np.array([1.0, 2.0, 3.0]))), 6)
        0.408248
    """
    _propagate(nan_policy, "variation")
    src, asked = a, axis
    a, axis = _flat(a, axis)
    std = fnp.std(a, axis=axis, ddof=ddof, keepdims=keepdims)
    return _kept(std / fnp.mean(a, axis=axis, keepdims=keepdims), src, asked, keepdims)


def gmean(
    a: Any,
    axis: int | None = 0,
    dtype: Any = None,
    weights: Any = None,
    *,
    nan_policy: str = "propagate",
    keepdims: bool = False,
) -> Any:
    """The geometric mean ``exp(mean(log a))`` (weighted with ``weights``), as
    ``scipy.stats.gmean``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.stats import gmean
        >>> round(float(gmean(np.array([1.0, 4.0]))), 6)
        2.0
    """
    _propagate(nan_policy, "gmean")
    a = fnp.asarray(a) if dtype is None else fnp.asarray(a).astype(dtype)
    if weights is not None:
        weights = fnp.broadcast_to(fnp.asarray(weights), fnp.shape(a))
    src, asked = a, axis
    a, axis = _flat(a, axis)
    logs = fnp.log(a)
    if weights is None:
        return _kept(fnp.exp(fnp.mean(logs, axis=axis, keepdims=keepdims)), src, asked, keepdims)
    w = fnp.ravel(weights) if fnp.ndim(weights) != fnp.ndim(a) else weights
    total = fnp.sum(w * logs, axis=axis, keepdims=keepdims)
    return _kept(fnp.exp(total / fnp.sum(w, axis=axis, keepdims=keepdims)), src, asked, keepdims)


def zmap(
    scores: Any, compare: Any, axis: int | None = 0, ddof: int = 0, nan_policy: str = "propagate"
) -> Any:
    """``(scores - mean(compare)) / std(compare)`` along ``axis``, as ``scipy.stats.zmap``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.stats import zmap
        >>> zmap(np.array([2.0, 4.0]), np.array([1.0, 2.0, 3.0])).round(4).tolist()
        [0.0, 2.4495]
    """
    _propagate(nan_policy, "zmap")
    scores, compare = fnp.asarray(scores), fnp.asarray(compare)
    if scores.dtype.kind in "biu":
        scores = scores.astype(fnp.float64)
    if compare.dtype.kind in "biu":
        compare = compare.astype(fnp.float64)
    if axis is None:
        mean, std = fnp.mean(compare), fnp.std(compare, ddof=ddof)
    else:
        mean = fnp.mean(compare, axis=axis, keepdims=True)
        std = fnp.std(compare, axis=axis, ddof=ddof, keepdims=True)
    return (scores - mean) / std


def gstd(
    a: Any, axis: int | None = 0, ddof: int = 1, *, keepdims: bool = False, nan_policy="propagate"
) -> Any:
    """The geometric standard deviation ``exp(std(log(a), ddof))``, as ``scipy.stats.gstd``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.stats import gstd
        >>> round(float(gstd(np.array([1.0, np.e, np.e**2]))), 6)
        2.718282
    """
    _propagate(nan_policy, "gstd")
    src = a
    a, ax = _flat(a, axis)
    out = fnp.exp(fnp.std(fnp.log(a), axis=ax, ddof=ddof, keepdims=keepdims and axis is not None))
    return _kept(out, src, axis, keepdims)


def lmoment(
    sample: Any,
    order: Any = None,
    *,
    axis: int | None = 0,
    sorted: bool = False,  # noqa: A002  (SciPy's name)
    standardize: bool = True,
    nan_policy: str = "propagate",
    keepdims: bool = False,
) -> Any:
    """``scipy.stats.lmoment``: the sample L-moments of the given orders (1 to 4 by default;
    the ratios ``l_k / l_2`` for ``k > 2`` with ``standardize``), from the probability
    weighted moments ``b_r = sum_j C(j, r) / C(n-1, r) x_(j) / n`` of the sorted sample and
    the shifted Legendre coefficients, as SciPy computes them (NaN for orders above ``n``).

    Example:
        >>> import numpy as np
        >>> lmoment(np.array([1.0, 2.0, 4.0]), order=[1, 2]).round(6).tolist()
        [2.333333, 1.0]
    """
    _propagate(nan_policy, "lmoment")
    rank = fnp.ndim(sample)
    sample, ax = _flat(sample, axis)
    orders = numpy.arange(1, 5) if order is None else numpy.asarray(order)
    if orders.dtype.kind not in "iu" or orders.size == 0 or orders.ndim > 1 or (orders <= 0).any():
        raise ValueError("`order` must be a scalar or a non-empty array of positive integers.")
    x = fnp.moveaxis(sample, ax, -1)
    x = x if sorted else fnp.sort(x, axis=-1)
    n = fnp.shape(x)[-1]
    m = int(orders.max())
    # b_r = x @ w[:, r], w[j, r] = C(j, r) / C(n - 1, r) / n (0 for r >= n, as SciPy's)
    w = numpy.array(
        [
            [math.comb(j, r) / math.comb(n - 1, r) / n if r < n else 0.0 for r in range(m)]
            for j in range(n)
        ]
    ).reshape(n, m)
    # l_(k+1) = sum_r p*_(k, r) b_r, p*_(k, r) = (-1)**(k-r) C(k, r) C(k+r, r)
    p = numpy.array(
        [
            [(-1.0) ** (k - r) * math.comb(k, r) * math.comb(k + r, r) for k in range(m)]
            for r in range(m)
        ]
    ).reshape(m, m)
    b = fnp.matmul(x, fnp.asarray(w, dtype=x.dtype, like=x))
    lmoms = fnp.moveaxis(fnp.matmul(b, fnp.asarray(p, dtype=x.dtype, like=x)), -1, 0)
    if standardize and m > 2:
        lmoms = fnp.concatenate([lmoms[:2], lmoms[2:] / lmoms[1]], axis=0)
    if n < m:
        lmoms = fnp.concatenate([lmoms[:n], fnp.full_like(lmoms[n:], fnp.nan)], axis=0)
    out = lmoms[orders - 1] if orders.ndim else lmoms[int(orders) - 1]
    if keepdims:
        lead = fnp.shape(out)[:1] if orders.ndim else ()
        rest = (1,) * rank if axis is None else None
        if rest is not None:
            out = fnp.reshape(out, lead + rest)
        else:
            out = fnp.expand_dims(out, len(lead) + (axis % rank))
    return out
