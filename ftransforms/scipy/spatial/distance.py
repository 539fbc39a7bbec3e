"""``ftransforms.scipy.spatial.distance``: ``scipy.spatial.distance`` on tracers.

``cdist(XA, XB, metric)``, ``pdist(X, metric)`` and ``squareform``, and the distances
between two vectors (``euclidean(u, v)``, ``cosine``, ...), with SciPy's signatures and
metrics: euclidean, sqeuclidean, cityblock, chebyshev, minkowski (``p``), cosine,
correlation, braycurtis, canberra, seuclidean (``V``), mahalanobis (``VI``), hamming, or a
Python callable ``metric(u, v)``; ``w`` weights where SciPy takes them.  Each distance is
computed pair by pair from the differences (not from a Gram matrix), so the values are
SciPy's to rounding.  Where a distance is 0 the square roots have derivative 0 (the
subgradient; a plain ``sqrt`` would give NaN), as for ``torch.cdist``.

Example:
    >>> import numpy as np
    >>> from ftransforms import grad
    >>> from ftransforms.scipy.spatial.distance import cdist
    >>> cdist(np.array([[0.0, 0.0]]), np.array([[3.0, 4.0], [0.0, 1.0]])).tolist()
    [[5.0, 1.0]]
    >>> grad(lambda x: cdist(x, x).sum())(np.array([[0.0, 0.0], [3.0, 4.0]])).round(6).tolist()
    [[-1.2, -1.6], [1.2, 1.6]]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.api import vmap
from ftransforms.scipy.special import rel_entr

__all__ = [
    "braycurtis",
    "canberra",
    "cdist",
    "chebyshev",
    "cityblock",
    "correlation",
    "cosine",
    "euclidean",
    "hamming",
    "jensenshannon",
    "mahalanobis",
    "minkowski",
    "pdist",
    "seuclidean",
    "sqeuclidean",
    "squareform",
]


def _sqrt0(x: Any) -> Any:
    """``sqrt(x)`` with derivative 0 where ``x`` is 0."""
    pos = x > 0
    return fnp.where(pos, fnp.sqrt(fnp.where(pos, x, 1.0)), 0.0)


def _sum(x: Any, w: Any) -> Any:
    return fnp.sum(x if w is None else w * x, axis=-1)


def _float(u: Any) -> Any:
    u = fnp.asarray(u)
    return u.astype(fnp.float64) if u.dtype.kind in "biu" else u


# -- two vectors (or broadcast stacks of them: the last axis is the vector) ---------------


def sqeuclidean(u: Any, v: Any, w: Any = None) -> Any:
    """The squared Euclidean distance ``sum(w (u - v)**2)``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.spatial.distance import sqeuclidean
        >>> float(sqeuclidean(np.array([0.0, 0.0]), np.array([3.0, 4.0])))
        25.0
    """
    d = _float(u) - _float(v)
    return _sum(d * d, w)


def euclidean(u: Any, v: Any, w: Any = None) -> Any:
    """The Euclidean distance ``sqrt(sum(w (u - v)**2))``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.spatial.distance import euclidean
        >>> float(euclidean(np.array([0.0, 0.0]), np.array([3.0, 4.0])))
        5.0
    """
    return _sqrt0(sqeuclidean(u, v, w))


def cityblock(u: Any, v: Any, w: Any = None) -> Any:
    """The Manhattan distance ``sum(w |u - v|)``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.spatial.distance import cityblock
        >>> float(cityblock(np.array([0.0, 0.0]), np.array([3.0, -4.0])))
        7.0
    """
    return _sum(fnp.abs(_float(u) - _float(v)), w)


def chebyshev(u: Any, v: Any, w: Any = None) -> Any:
    """The Chebyshev distance ``max |u - v|`` (over the positive weights ``w``).

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.spatial.distance import chebyshev
        >>> float(chebyshev(np.array([0.0, 0.0]), np.array([3.0, -4.0])))
        4.0
    """
    d = fnp.abs(_float(u) - _float(v))
    if w is not None:
        d = fnp.where(fnp.asarray(w) > 0, d, 0.0)
    return fnp.max(d, axis=-1)


def minkowski(u: Any, v: Any, p: float = 2, w: Any = None) -> Any:
    """The Minkowski distance ``sum(w |u - v|**p) ** (1 / p)`` (``p = inf``: Chebyshev).

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.spatial.distance import minkowski
        >>> float(minkowski(np.array([0.0, 0.0]), np.array([3.0, 4.0]), p=1))
        7.0
    """
    if p <= 0:
        raise ValueError(f"minkowski: p must be greater than 0, got {p}")
    if numpy.isinf(p):
        return chebyshev(u, v, w)
    if p == 2:
        return euclidean(u, v, w)
    if p == 1:
        return cityblock(u, v, w)
    s = _sum(fnp.abs(_float(u) - _float(v)) ** p, w)
    pos = s > 0
    return fnp.where(pos, fnp.where(pos, s, 1.0) ** (1.0 / p), 0.0)


def _average(x: Any, w: Any) -> Any:
    if w is None:
        return fnp.mean(x, axis=-1)
    return fnp.sum(w * x, axis=-1) / fnp.sum(w, axis=-1)


def correlation(u: Any, v: Any, w: Any = None, centered: bool = True) -> Any:
    """The correlation distance ``1 - corr(u, v)`` (``centered=False``: ``cosine``),
    clipped to ``[0, 2]`` as SciPy does.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.spatial.distance import correlation
        >>> float(correlation(np.array([1.0, 2.0, 3.0]), np.array([3.0, 2.0, 1.0])))
        2.0
    """
    u, v = _float(u), _float(v)
    if centered:
        u = u - _average(u, w)[..., None]
        v = v - _average(v, w)[..., None]
    uv, uu, vv = _average(u * v, w), _average(u * u, w), _average(v * v, w)
    return fnp.clip(1.0 - uv / fnp.sqrt(uu * vv), 0.0, 2.0)


def cosine(u: Any, v: Any, w: Any = None) -> Any:
    """The cosine distance ``1 - u.v / (|u| |v|)``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.spatial.distance import cosine
        >>> float(cosine(np.array([1.0, 0.0]), np.array([0.0, 2.0])))
        1.0
    """
    return correlation(u, v, w, centered=False)


def braycurtis(u: Any, v: Any, w: Any = None) -> Any:
    """The Bray-Curtis distance ``sum |u - v| / sum |u + v|``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.spatial.distance import braycurtis
        >>> float(braycurtis(np.array([1.0, 0.0]), np.array([0.0, 1.0])))
        1.0
    """
    u, v = _float(u), _float(v)
    return _sum(fnp.abs(u - v), w) / _sum(fnp.abs(u + v), w)


def canberra(u: Any, v: Any, w: Any = None) -> Any:
    """The Canberra distance ``sum w |u - v| / (|u| + |v|)`` (terms ``0 / 0`` count 0).

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.spatial.distance import canberra
        >>> float(canberra(np.array([1.0, 0.0]), np.array([0.0, 0.0])))
        1.0
    """
    u, v = _float(u), _float(v)
    den = fnp.abs(u) + fnp.abs(v)
    nonzero = den > 0
    terms = fnp.where(nonzero, fnp.abs(u - v) / fnp.where(nonzero, den, 1.0), 0.0)
    return _sum(terms, w)


def seuclidean(u: Any, v: Any, V: Any) -> Any:
    """The standardized Euclidean distance ``sqrt(sum((u - v)**2 / V))``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.spatial.distance import seuclidean
        >>> float(seuclidean(np.array([0.0, 0.0]), np.array([2.0, 0.0]), np.array([4.0, 1.0])))
        1.0
    """
    d = _float(u) - _float(v)
    return _sqrt0(fnp.sum(d * d / V, axis=-1))


def mahalanobis(u: Any, v: Any, VI: Any) -> Any:
    """The Mahalanobis distance ``sqrt((u - v) VI (u - v))``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.spatial.distance import mahalanobis
        >>> float(mahalanobis(np.array([0.0, 0.0]), np.array([2.0, 0.0]), np.eye(2) / 4))
        1.0
    """
    d = _float(u) - _float(v)
    return _sqrt0(fnp.sum(d * fnp.matmul(d, fnp.transpose(fnp.asarray(VI))), axis=-1))


def hamming(u: Any, v: Any, w: Any = None) -> Any:
    """The fraction (weighted by ``w``) of the entries where ``u`` and ``v`` differ.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.spatial.distance import hamming
        >>> float(hamming(np.array([1, 0, 1, 1]), np.array([1, 1, 1, 0])))
        0.5
    """
    differ = (fnp.asarray(u) != fnp.asarray(v)).astype(fnp.float64)
    return _average(differ, None if w is None else fnp.asarray(w))


def _counts(u: Any, v: Any, w: Any) -> tuple:
    """The (weighted) counts of true-true, true-false, false-true and false-false entries
    of two boolean vectors (SciPy's boolean metrics; no derivative: they are counts)."""
    a, b = fnp.asarray(u).astype(bool), fnp.asarray(v).astype(bool)

    def count(m: Any) -> Any:
        return _sum(m.astype(fnp.float64), None if w is None else fnp.asarray(w))

    return count(a & b), count(a & ~b), count(~a & b), count(~a & ~b)


def _ratio(num: Any, den: Any) -> Any:
    """``num / den``, 0 where both are 0 (SciPy's boolean metrics of all-false pairs)."""
    zero = den == 0
    return fnp.where(zero, 0.0, num / fnp.where(zero, 1.0, den))


def _jaccard(u: Any, v: Any, w: Any = None) -> Any:
    ntt, ntf, nft, _ = _counts(u, v, w)
    return _ratio(ntf + nft, ntt + ntf + nft)


def _dice(u: Any, v: Any, w: Any = None) -> Any:
    ntt, ntf, nft, _ = _counts(u, v, w)
    return (ntf + nft) / (2.0 * ntt + ntf + nft)


def _rogerstanimoto(u: Any, v: Any, w: Any = None) -> Any:
    ntt, ntf, nft, nff = _counts(u, v, w)
    r = 2.0 * (ntf + nft)
    return r / (ntt + nff + r)


def _russellrao(u: Any, v: Any, w: Any = None) -> Any:
    ntt, ntf, nft, nff = _counts(u, v, w)
    n = ntt + ntf + nft + nff
    return (n - ntt) / n


def _sokalsneath(u: Any, v: Any, w: Any = None) -> Any:
    ntt, ntf, nft, _ = _counts(u, v, w)
    r = 2.0 * (ntf + nft)
    return r / (ntt + r)


def _yule(u: Any, v: Any, w: Any = None) -> Any:
    ntt, ntf, nft, nff = _counts(u, v, w)
    half = ntf * nft
    return _ratio(2.0 * half, ntt * nff + half)


def _jensenshannon_rows(u: Any, v: Any, base: Any = None) -> Any:
    return jensenshannon(u, v, base, axis=-1)


_METRICS: dict[str, Callable] = {
    "dice": _dice,
    "jaccard": _jaccard,
    "jensenshannon": _jensenshannon_rows,
    "rogerstanimoto": _rogerstanimoto,
    "russellrao": _russellrao,
    "sokalsneath": _sokalsneath,
    "yule": _yule,
    "braycurtis": braycurtis,
    "canberra": canberra,
    "chebyshev": chebyshev,
    "chebychev": chebyshev,
    "cityblock": cityblock,
    "manhattan": cityblock,
    "correlation": correlation,
    "cosine": cosine,
    "euclidean": euclidean,
    "hamming": hamming,
    "mahalanobis": mahalanobis,
    "minkowski": minkowski,
    "seuclidean": seuclidean,
    "sqeuclidean": sqeuclidean,
}


#: SciPy's other spellings of the metric names.
_ALIASES = {
    **dict.fromkeys(("ch", "cheby", "cheb", "c"), "chebyshev"),
    **dict.fromkeys(("cblock", "cb"), "cityblock"),
    "co": "correlation",
    "cos": "cosine",
    **dict.fromkeys(("euclid", "e", "eu"), "euclidean"),
    **dict.fromkeys(("matching", "ha", "hamm", "h"), "hamming"),
    **dict.fromkeys(("jacc", "ja", "j"), "jaccard"),
    "js": "jensenshannon",
    **dict.fromkeys(("mahal", "mah"), "mahalanobis"),
    **dict.fromkeys(("pnorm", "m", "mi"), "minkowski"),
    **dict.fromkeys(("se", "s"), "seuclidean"),
    **dict.fromkeys(("sqe", "sqeuclid"), "sqeuclidean"),
}


def _metric(metric: Any, stacked: Any, kwargs: dict, where: str) -> Callable:
    """The pair function ``d(U, V)`` on broadcast stacks, with SciPy's defaults for
    ``seuclidean``'s ``V`` and ``mahalanobis``' ``VI`` (from all the points given)."""
    if callable(metric):
        pairwise = vmap(lambda u, v: metric(u, v, **kwargs))
        return lambda U, V: _each(pairwise, U, V)
    name = str(metric).lower()
    fn = _METRICS.get(_ALIASES.get(name, name))
    if fn is None:
        raise ValueError(
            f"{where}: unknown metric {metric!r} under the transforms; use one of "
            f"{sorted(_METRICS)} or a Python callable metric(u, v)"
        )
    kwargs = dict(kwargs)
    if fn is seuclidean and kwargs.get("V") is None:
        kwargs["V"] = fnp.var(stacked(), axis=0, ddof=1)
    if fn is mahalanobis and kwargs.get("VI") is None:
        kwargs["VI"] = fnp.transpose(fnp.linalg.inv(fnp.cov(fnp.transpose(stacked()))))
    return lambda U, V: fn(U, V, **kwargs)


def _each(pairwise: Callable, U: Any, V: Any) -> Any:
    """A callable metric on every pair of the broadcast stacks ``U``, ``V`` (..., d)."""
    U, V = fnp.broadcast_arrays(U, V)
    lead = U.shape[:-1]
    flat = pairwise(fnp.reshape(U, (-1, U.shape[-1])), fnp.reshape(V, (-1, V.shape[-1])))
    return fnp.reshape(flat, lead)


def _write(result: Any, out: Any) -> Any:
    if out is None:
        return result
    out[...] = result
    return out


def cdist(XA: Any, XB: Any, metric: Any = "euclidean", *, out: Any = None, **kwargs: Any) -> Any:
    """The distances between each row of ``XA`` (m, d) and each row of ``XB`` (n, d):
    an (m, n) array, as ``scipy.spatial.distance.cdist``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.spatial.distance import cdist
        >>> cdist(np.eye(2), np.eye(2), "cityblock").tolist()
        [[0.0, 2.0], [2.0, 0.0]]
    """
    XA, XB = fnp.asarray(XA), fnp.asarray(XB)
    if XA.ndim != 2 or XB.ndim != 2 or XA.shape[1] != XB.shape[1]:
        raise ValueError(
            f"cdist: XA and XB must be 2-D with the same number of columns, got shapes "
            f"{XA.shape} and {XB.shape}"
        )
    d = _metric(metric, lambda: fnp.concatenate([XA, XB]), kwargs, "cdist")
    return _write(d(XA[:, None, :], XB[None, :, :]), out)


def pdist(X: Any, metric: Any = "euclidean", *, out: Any = None, **kwargs: Any) -> Any:
    """The distances between the pairs of rows ``i < j`` of ``X`` (m, d), condensed into a
    vector of ``m (m - 1) / 2`` in SciPy's order (``squareform`` makes the matrix).

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.spatial.distance import pdist
        >>> pdist(np.array([[0.0, 0.0], [3.0, 4.0], [0.0, 1.0]])).tolist()
        [5.0, 1.0, 4.242640687119285]
    """
    X = fnp.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"pdist: X must be 2-D (m points by d coordinates), got shape {X.shape}")
    i, j = numpy.triu_indices(X.shape[0], 1)
    d = _metric(metric, lambda: X, kwargs, "pdist")
    return _write(d(X[i], X[j]), out)


def squareform(X: Any, force: str = "no", checks: bool = True) -> Any:
    """A condensed distance vector to its symmetric square matrix with a zero diagonal,
    or such a matrix back to the vector, as ``scipy.spatial.distance.squareform``
    (``checks`` of a traced matrix's symmetry are skipped: they would read its values).

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.spatial.distance import squareform
        >>> squareform(np.array([1.0, 2.0, 3.0])).tolist()
        [[0.0, 1.0, 2.0], [1.0, 0.0, 3.0], [2.0, 3.0, 0.0]]
    """
    X = fnp.asarray(X)
    to_vector = force.lower() == "tovector" or (force.lower() != "tomatrix" and X.ndim == 2)
    if to_vector:
        if X.ndim != 2 or X.shape[0] != X.shape[1]:
            raise ValueError(f"squareform: a distance matrix must be square, got {X.shape}")
        i, j = numpy.triu_indices(X.shape[0], 1)
        return X[i, j]
    if X.ndim != 1:
        raise ValueError(f"squareform: a condensed distance vector must be 1-D, got {X.shape}")
    k = X.shape[0]
    m = int(round((1 + (1 + 8 * k) ** 0.5) / 2))
    if m * (m - 1) // 2 != k:
        raise ValueError(
            f"squareform: a condensed distance vector has m (m - 1) / 2 entries, got {k}"
        )
    position = numpy.zeros((m, m), dtype=numpy.intp)  # 0: the diagonal's zero
    i, j = numpy.triu_indices(m, 1)
    position[i, j] = position[j, i] = numpy.arange(1, k + 1)
    return fnp.concatenate([fnp.zeros((1,), dtype=X.dtype), X])[position]


def jensenshannon(
    p: Any, q: Any, base: Any = None, *, axis: int = 0, keepdims: bool = False
) -> Any:
    """The Jensen-Shannon distance between the distributions ``p`` and ``q`` along
    ``axis`` (each normalized to sum 1): ``sqrt((KL(p, m) + KL(q, m)) / 2)``, ``m`` their
    mean, in nats (or in ``base``).

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.spatial.distance import jensenshannon
        >>> float(jensenshannon(np.array([1.0, 0.0]), np.array([0.0, 1.0]), base=2))
        1.0
    """
    p, q = _float(p), _float(q)
    p = p / fnp.sum(p, axis=axis, keepdims=True)
    q = q / fnp.sum(q, axis=axis, keepdims=True)
    m = (p + q) / 2.0
    js = fnp.sum(rel_entr(p, m), axis=axis, keepdims=keepdims)
    js = js + fnp.sum(rel_entr(q, m), axis=axis, keepdims=keepdims)
    if base is not None:
        js = js / numpy.log(base)
    return _sqrt0(js / 2.0)
