"""``ftransforms.scipy.spatial.distance``: SciPy's pairwise distances ``cdist``, ``pdist``
and ``squareform``, and the distance functions between two vectors, written with
``ftransforms.numpy`` so that every transform differentiates and batches them.

Metrics: ``euclidean``, ``sqeuclidean``, ``cityblock``, ``chebyshev``, ``minkowski``
(``p``, ``w``), ``cosine``, ``correlation``, ``seuclidean`` (``V``), ``mahalanobis``
(``VI``), ``braycurtis``, ``canberra``, and a Python function of two vectors (mapped over
the pairs with ``vmap``).  Differences are taken pair by pair (no ``|a|^2 + |b|^2 - 2ab``
cancellation), and the Euclidean distance of two equal points has derivative 0 (the
subgradient torch's ``cdist`` takes), not NaN.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> X = np.array([[0.0, 0.0], [3.0, 4.0]])
    >>> cdist(X, X).tolist()
    [[0.0, 5.0], [5.0, 0.0]]
    >>> ft.grad(lambda X: pdist(X).sum())(X).tolist()  # d|x0 - x1| / dx0 = (x0 - x1) / 5
    [[-0.6, -0.8], [0.6, 0.8]]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.api import vmap
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.numpy.ufuncs import float_input

__all__ = [
    "braycurtis",
    "canberra",
    "cdist",
    "chebyshev",
    "cityblock",
    "correlation",
    "cosine",
    "euclidean",
    "mahalanobis",
    "minkowski",
    "pdist",
    "seuclidean",
    "sqeuclidean",
    "squareform",
]


def _float(x: Any) -> Any:
    return float_input(x if hasattr(x, "dtype") else fnp.asarray(x), None)


def _safe_sqrt(s: Any) -> Any:
    """``sqrt(s)`` for ``s >= 0`` with derivative 0 (not inf) where ``s == 0``."""
    positive = s > 0
    return fnp.where(positive, fnp.sqrt(fnp.where(positive, s, 1.0)), 0.0)


def _pair_metric(metric: str, u: Any, v: Any, kw: dict) -> Any:
    """The distance of rows ``u`` and ``v`` (broadcast against each other), last axis."""
    w = kw.get("w")
    d = u - v
    if metric in ("euclidean", "sqeuclidean"):
        sq = d * d if w is None else _float(w) * d * d
        total = fnp.sum(sq, axis=-1)
        return _safe_sqrt(total) if metric == "euclidean" else total
    if metric == "cityblock":
        a = fnp.abs(d)
        return fnp.sum(a if w is None else _float(w) * a, axis=-1)
    if metric == "minkowski":
        p = kw.get("p", 2)
        a = fnp.abs(d) ** p
        total = fnp.sum(a if w is None else _float(w) * a, axis=-1)
        positive = total > 0
        return fnp.where(positive, fnp.where(positive, total, 1.0) ** (1.0 / p), 0.0)
    if metric == "chebyshev":
        return fnp.max(fnp.abs(d), axis=-1)
    if metric in ("cosine", "correlation"):
        if metric == "correlation":
            u = u - fnp.mean(u, axis=-1, keepdims=True)
            v = v - fnp.mean(v, axis=-1, keepdims=True)
        uv = fnp.sum(u * v, axis=-1)
        uu = fnp.sum(u * u, axis=-1)
        vv = fnp.sum(v * v, axis=-1)
        return 1.0 - uv / fnp.sqrt(uu * vv)
    if metric == "seuclidean":
        return _safe_sqrt(fnp.sum(d * d / kw["V"], axis=-1))
    if metric == "mahalanobis":
        return _safe_sqrt(fnp.einsum("...i,ij,...j->...", d, kw["VI"], d))
    if metric == "braycurtis":
        return fnp.sum(fnp.abs(d), axis=-1) / fnp.sum(fnp.abs(u + v), axis=-1)
    if metric == "canberra":
        num, den = fnp.abs(d), fnp.abs(u) + fnp.abs(v)
        nonzero = den != 0
        return fnp.sum(fnp.where(nonzero, num / fnp.where(nonzero, den, 1.0), 0.0), axis=-1)
    raise UnsupportedOperationError(
        f"cdist/pdist(metric={metric!r}): this metric is not available on traced values; "
        f"available: {', '.join(_METRICS)}, or a Python function of two vectors"
    )


_METRICS = (
    "braycurtis",
    "canberra",
    "chebyshev",
    "cityblock",
    "correlation",
    "cosine",
    "euclidean",
    "mahalanobis",
    "minkowski",
    "seuclidean",
    "sqeuclidean",
)
_ALIASES = {
    "euclid": "euclidean",
    "eu": "euclidean",
    "e": "euclidean",
    "sqe": "sqeuclidean",
    "sqeuclid": "sqeuclidean",
    "cblock": "cityblock",
    "manhattan": "cityblock",
    "cb": "cityblock",
    "c": "cityblock",
    "chebychev": "chebyshev",
    "cheby": "chebyshev",
    "cheb": "chebyshev",
    "ch": "chebyshev",
    "mi": "minkowski",
    "minkowsky": "minkowski",
    "cos": "cosine",
    "co": "correlation",
    "mahal": "mahalanobis",
    "mah": "mahalanobis",
    "se": "seuclidean",
}


def _settings(where: str, metric: str, rows: Any, kw: dict) -> dict:
    """The metric's keyword settings, SciPy's data-dependent defaults filled in from
    ``rows`` (None: the settings are required)."""
    kw = dict(kw)
    for name, default in (("V", fnp.var), ("VI", None)):
        needed = {"V": "seuclidean", "VI": "mahalanobis"}[name]
        if metric == needed and kw.get(name) is None:
            if rows is None:
                raise TypeError(f"{where}: {name} is required")
            if default is not None:
                kw[name] = default(rows, axis=0, ddof=1)
            else:
                kw[name] = fnp.linalg.inv(fnp.cov(fnp.transpose(rows))).T
    allowed = {"minkowski": {"p", "w"}, "seuclidean": {"V"}, "mahalanobis": {"VI"}}
    allowed.update({m: {"w"} for m in ("euclidean", "sqeuclidean", "cityblock")})
    extra = set(kw) - allowed.get(metric, set())
    if extra:
        raise TypeError(f"{where}: metric {metric!r} takes no settings {sorted(extra)}")
    return kw


def _metric_name(where: str, metric: Any) -> Any:
    if callable(metric):
        return metric
    if not isinstance(metric, str):
        raise TypeError(f"{where}: metric must be a string or a function, got {metric!r}")
    name = metric.lower()
    return _ALIASES.get(name, name)


def _check_rows(where: str, name: str, x: Any) -> Any:
    x = _float(x)
    if fnp.ndim(x) != 2:
        raise ValueError(f"{where}: {name} must be a 2-D array, got shape {fnp.shape(x)}")
    return x


def _no_out(where: str, out: Any) -> None:
    if out is not None:
        raise UnsupportedOperationError(
            f"{where}: out= is not available on traced values; use the returned array"
        )


def cdist(XA: Any, XB: Any, metric: Any = "euclidean", *, out: Any = None, **kwargs: Any) -> Any:  # noqa: N803
    """``scipy.spatial.distance.cdist``: the ``(len(XA), len(XB))`` distances between the
    rows of ``XA`` and of ``XB`` (see the module docstring for the metrics).

    Example:
        >>> import numpy as np
        >>> cdist(np.zeros((1, 2)), np.array([[1.0, 1.0]]), "cityblock").tolist()
        [[2.0]]
    """
    where = "cdist(XA, XB, metric)"
    _no_out(where, out)
    XA, XB = _check_rows(where, "XA", XA), _check_rows(where, "XB", XB)
    if fnp.shape(XA)[1] != fnp.shape(XB)[1]:
        raise ValueError(
            f"{where}: XA and XB must have the same number of columns, got "
            f"{fnp.shape(XA)[1]} and {fnp.shape(XB)[1]}"
        )
    metric = _metric_name(where, metric)
    if callable(metric):
        return vmap(vmap(lambda u, v: metric(u, v, **kwargs), (None, 0)), (0, None))(XA, XB)
    kw = _settings(where, metric, fnp.concatenate([XA, XB]), kwargs)
    return _pair_metric(metric, XA[:, None, :], XB[None, :, :], kw)


def pdist(X: Any, metric: Any = "euclidean", *, out: Any = None, **kwargs: Any) -> Any:  # noqa: N803
    """``scipy.spatial.distance.pdist``: the distances of the pairs ``i < j`` of rows of
    ``X``, in SciPy's condensed order (see :func:`squareform`).

    Example:
        >>> import numpy as np
        >>> pdist(np.array([[0.0], [1.0], [3.0]])).tolist()
        [1.0, 3.0, 2.0]
    """
    where = "pdist(X, metric)"
    _no_out(where, out)
    X = _check_rows(where, "X", X)
    i, j = numpy.triu_indices(fnp.shape(X)[0], k=1)
    metric = _metric_name(where, metric)
    if callable(metric):
        return vmap(lambda u, v: metric(u, v, **kwargs))(X[i], X[j])
    kw = _settings(where, metric, X, kwargs)
    return _pair_metric(metric, X[i], X[j], kw)


def squareform(X: Any, force: str = "no", checks: bool = True) -> Any:  # noqa: N803
    """``scipy.spatial.distance.squareform``: a condensed distance vector to the symmetric
    matrix with a zero diagonal, or such a matrix to its condensed vector.

    Example:
        >>> import numpy as np
        >>> squareform(np.array([1.0, 3.0, 2.0])).tolist()
        [[0.0, 1.0, 3.0], [1.0, 0.0, 2.0], [3.0, 2.0, 0.0]]
    """
    where = "squareform(X)"
    nd = fnp.ndim(X)
    to_matrix = force.lower() == "tomatrix" or (force.lower() == "no" and nd == 1)
    if to_matrix:
        if nd != 1:
            raise ValueError(f"{where}: force='tomatrix' needs a 1-D vector, got {nd}-D")
        m = fnp.shape(X)[0]
        n = int(round((1 + (1 + 8 * m) ** 0.5) / 2))
        if n * (n - 1) // 2 != m:
            raise ValueError(
                f"{where}: a condensed distance vector has n * (n - 1) / 2 entries; "
                f"{m} is not such a number"
            )
        if m == 0:
            return fnp.zeros((n, n), dtype=fnp.result_type(X))
        index = numpy.zeros((n, n), dtype=numpy.intp)
        i, j = numpy.triu_indices(n, k=1)
        index[i, j] = index[j, i] = numpy.arange(m)
        return fnp.where(numpy.eye(n, dtype=bool), 0, fnp.asarray(X)[index])
    if nd != 2:
        raise ValueError(f"{where}: a distance matrix must be 2-D, got {nd}-D")
    n = fnp.shape(X)[0]
    if fnp.shape(X)[1] != n:
        raise ValueError(f"{where}: a distance matrix must be square, got {fnp.shape(X)}")
    i, j = numpy.triu_indices(n, k=1)
    return fnp.asarray(X)[i, j]


#: SciPy's parameters after ``u, v`` of each vector distance, in order.
_VECTOR_PARAMETERS = {
    "euclidean": ("w",),
    "sqeuclidean": ("w",),
    "cityblock": ("w",),
    "minkowski": ("p", "w"),
    "chebyshev": ("w",),
    "cosine": ("w",),
    "correlation": ("w", "centered"),
    "seuclidean": ("V",),
    "mahalanobis": ("VI",),
    "braycurtis": ("w",),
    "canberra": ("w",),
}


def _vector_metric(name: str, example: str) -> Callable:
    names = _VECTOR_PARAMETERS[name]

    def distance(u: Any, v: Any, *args: Any, **kwargs: Any) -> Any:
        where = f"{name}(u, v)"
        if len(args) > len(names):
            raise TypeError(f"{where}: takes {len(names)} settings after u and v ({names})")
        kw = dict(zip(names, args))
        for k, value in kwargs.items():
            if k not in names or k in kw:
                raise TypeError(f"{where}: unexpected or repeated setting {k!r}")
            kw[k] = value
        if name == "correlation" and not kw.pop("centered", True):
            name_used = "cosine"  # correlation without centring is the cosine distance
        else:
            name_used = name
        kw = {k: w for k, w in kw.items() if w is not None}
        if name == "minkowski":
            kw.setdefault("p", 2)
        _settings(where, name_used, None, kw)
        return _pair_metric(name_used, _float(u), _float(v), kw)

    distance.__name__ = distance.__qualname__ = name
    distance.__doc__ = (
        f"``scipy.spatial.distance.{name}(u, v, {', '.join(names)})`` of two vectors.\n\n"
        f"    Example:\n        >>> import numpy as np\n        >>> {example}\n"
    )
    return distance


euclidean = _vector_metric("euclidean", "float(euclidean([0.0, 0.0], [3.0, 4.0]))\n        5.0")
sqeuclidean = _vector_metric("sqeuclidean", "float(sqeuclidean([0.0], [3.0]))\n        9.0")
cityblock = _vector_metric("cityblock", "float(cityblock([0.0, 0.0], [3.0, 4.0]))\n        7.0")
chebyshev = _vector_metric("chebyshev", "float(chebyshev([0.0, 0.0], [3.0, 4.0]))\n        4.0")
minkowski = _vector_metric(
    "minkowski", "float(minkowski([0.0, 0.0], [3.0, 4.0], p=1))\n        7.0"
)
cosine = _vector_metric("cosine", "float(cosine([1.0, 0.0], [0.0, 1.0]))\n        1.0")
correlation = _vector_metric(
    "correlation", "float(correlation([1.0, 2.0, 3.0], [3.0, 2.0, 1.0]))\n        2.0"
)
seuclidean = _vector_metric(
    "seuclidean", "float(seuclidean([0.0], [3.0], V=np.array([9.0])))\n        1.0"
)
mahalanobis = _vector_metric(
    "mahalanobis", "float(mahalanobis([0.0], [3.0], VI=np.array([[1.0]])))\n        3.0"
)
braycurtis = _vector_metric("braycurtis", "float(braycurtis([1.0, 0.0], [0.0, 1.0]))\n        1.0")
canberra = _vector_metric("canberra", "float(canberra([1.0, 0.0], [0.0, 1.0]))\n        2.0")
