"""``rankdata`` and ``mode`` of ``ftransforms.scipy.stats``: ranks and most frequent
values along an axis from one stable sort, as ``scipy.stats`` computes them.

After sorting, the runs of equal values are found without data-dependent shapes: a run
starts where a value differs from its predecessor, and a running maximum of the start
positions (``numpy.maximum.accumulate``, on tracers through NumPy's protocol) gives each
sorted element the start of its run; a reversed running minimum of the end positions
gives its end.  Ranks are piecewise constant (zero
derivative); ``mode``'s value is an element of the input, so it carries that element's
derivative.  Every step is an ``fnp``/``lax`` operation, so ``vmap`` and ``jit`` apply.

Example:
    >>> import numpy as np
    >>> from ftransforms.scipy.stats import rankdata
    >>> rankdata(np.array([10.0, 30.0, 20.0, 20.0])).tolist()
    [1.0, 4.0, 2.5, 2.5]
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.numpy.helpers import dtype_of

__all__ = ["ModeResult", "mode", "rankdata"]

ModeResult = namedtuple("ModeResult", ["mode", "count"])
ModeResult.__doc__ = """``mode``'s result: the most frequent values and their counts.

Example:
    >>> ModeResult(1, 2).count
    2
"""

_METHODS = ("average", "min", "max", "dense", "ordinal")
_POLICIES = ("propagate", "omit", "raise")


def _runs(s: Any) -> tuple[Any, Any, Any]:
    """For ``s`` sorted along its last axis: each element's run start and end positions
    and whether it starts a run (NaNs are one run, as ``numpy.unique`` counts them)."""
    n = fnp.shape(s)[-1]
    differ = s[..., 1:] != s[..., :-1]
    if dtype_of(s).kind in "fc":
        differ = differ & ~(fnp.isnan(s[..., 1:]) & fnp.isnan(s[..., :-1]))
    edge = fnp.ones(fnp.shape(s)[:-1] + (1,), dtype=bool)
    first = fnp.concatenate([edge, differ], axis=-1)
    last = fnp.concatenate([differ, edge], axis=-1)
    pos = numpy.arange(n)
    start = numpy.maximum.accumulate(fnp.where(first, pos, 0), axis=-1)
    ends = fnp.flip(fnp.where(last, pos, n - 1), axis=-1)
    end = fnp.flip(numpy.minimum.accumulate(ends, axis=-1), axis=-1)
    return start, end, first


def _policy(nan_policy: str, where: str) -> None:
    if nan_policy not in _POLICIES:
        raise ValueError(
            f"{where}(nan_policy={nan_policy!r}): nan_policy must be one of "
            f"{', '.join(repr(p) for p in _POLICIES)}"
        )


def rankdata(
    a: Any, method: str = "average", *, axis: int | None = None, nan_policy: str = "propagate"
) -> Any:
    """The ranks (from 1) of ``a``'s values along ``axis`` (flattened when ``None``), as
    ``scipy.stats.rankdata``: ties get the ``'average'`` of their ranks (float64), or the
    ``'min'``, ``'max'``, ``'dense'`` (consecutive) or ``'ordinal'`` (order of appearance)
    rank (integers).  With ``nan_policy='propagate'`` a slice holding a NaN ranks as all
    NaN (the result is then float64, as SciPy's), ``'omit'`` gives NaN its own places,
    ``'raise'`` refuses NaN.  (``jax.scipy.stats.rankdata`` returns float64 always.)

    Example:
        >>> import numpy as np
        >>> x = np.array([3, 1, 3, 2])
        >>> rankdata(x, "min").tolist(), rankdata(x, "dense").tolist()
        ([3, 1, 3, 2], [3, 1, 3, 2])
        >>> rankdata(x, "ordinal").tolist(), rankdata(x, "max").tolist()
        ([3, 1, 4, 2], [4, 1, 4, 2])
    """
    where = "rankdata"
    if method not in _METHODS:
        raise ValueError(
            f"{where}(method={method!r}): method must be one of "
            f"{', '.join(repr(m) for m in _METHODS)}"
        )
    _policy(nan_policy, where)
    a = fnp.asarray(a)
    if axis is None:
        a, axis = fnp.reshape(a, (-1,)), 0
    axis = int(axis)
    x = fnp.moveaxis(a, axis, -1)
    n = fnp.shape(x)[-1]
    floating = dtype_of(x).kind in "fc"
    nan = fnp.any(fnp.isnan(x), axis=-1, keepdims=True) if floating else None
    if nan is not None and nan_policy == "raise" and bool(fnp.any(nan)):
        raise ValueError(f"{where}(nan_policy='raise'): the input contains NaN")
    if n == 0:
        kind = numpy.float64 if method == "average" else numpy.int64
        return fnp.moveaxis(fnp.zeros(fnp.shape(x), dtype=kind), -1, axis)
    order = fnp.argsort(x, axis=-1, kind="stable")
    inverse = fnp.argsort(order, axis=-1, kind="stable")
    if method == "ordinal":
        ranks = inverse + 1
    else:
        s = fnp.take_along_axis(x, order, axis=-1)
        start, end, first = _runs(s)
        if method == "dense":
            sorted_ranks = fnp.cumsum(first.astype(numpy.int64), axis=-1)
        elif method == "min":
            sorted_ranks = start + 1
        elif method == "max":
            sorted_ranks = end + 1
        else:
            sorted_ranks = (start + end + 2) / 2.0
        ranks = fnp.take_along_axis(sorted_ranks, inverse, axis=-1)
    ranks = ranks.astype(numpy.float64 if method == "average" else numpy.int64)
    if nan is not None and nan_policy != "raise":
        if nan_policy == "omit" and (method == "average" or bool(fnp.any(nan))):
            ranks = fnp.where(fnp.isnan(x), numpy.nan, ranks)
        elif method == "average" or bool(fnp.any(nan)):  # (integer ranks: SciPy's dtype
            ranks = fnp.where(nan, numpy.nan, ranks)  # depends on the data)
    return fnp.moveaxis(ranks, -1, axis)


def mode(
    a: Any, axis: int | None = 0, nan_policy: str = "propagate", keepdims: bool = False
) -> Any:
    """The most frequent value along ``axis`` (the smallest of equally frequent ones) and
    its count, as ``scipy.stats.mode``: ``ModeResult(mode, count)``; ``axis=None``
    flattens.  NaNs count as one value (SciPy's ``'propagate'``); ``'omit'`` leaves
    them out (a slice of NaNs only gives NaN with count 0).

    Example:
        >>> import numpy as np
        >>> m = mode(np.array([[1, 2, 2], [3, 3, 1]]), axis=1)
        >>> m.mode.tolist(), m.count.tolist()
        ([2, 3], [2, 2])
    """
    where = "mode"
    _policy(nan_policy, where)
    a = fnp.asarray(a)
    ndim = fnp.ndim(a)
    flat = axis is None
    if flat:
        a, axis = fnp.reshape(a, (-1,)), 0
    axis = int(axis)
    x = fnp.moveaxis(a, axis, -1)
    floating = dtype_of(x).kind in "fc"
    if floating and nan_policy == "raise" and bool(fnp.any(fnp.isnan(x))):
        raise ValueError(f"{where}(nan_policy='raise'): the input contains NaN")
    if fnp.shape(x)[-1] == 0:
        raise ValueError(f"{where}: the axis to take the mode along is empty, shape {fnp.shape(a)}")
    order = fnp.argsort(x, axis=-1, kind="stable")
    s = fnp.take_along_axis(x, order, axis=-1)
    start, end, _ = _runs(s)
    counts = end - start + 1
    if floating and nan_policy == "omit":
        counts = fnp.where(fnp.isnan(s), 0, counts)
    best = fnp.argmax(counts, axis=-1)[..., None]  # the first: the smallest value
    value = fnp.take_along_axis(s, best, axis=-1)
    count = fnp.take_along_axis(counts, best, axis=-1).astype(numpy.int64)
    if floating and nan_policy == "omit":
        value = fnp.where(count == 0, numpy.nan, value)
        if not flat and bool(fnp.any(fnp.isnan(x))):  # (SciPy's counts are then float64)
            count = count.astype(numpy.float64)
    if keepdims and flat:
        return ModeResult(fnp.reshape(value, (1,) * ndim), fnp.reshape(count, (1,) * ndim))
    if keepdims:
        return ModeResult(fnp.moveaxis(value, -1, axis), fnp.moveaxis(count, -1, axis))
    return ModeResult(value[..., 0], count[..., 0])
