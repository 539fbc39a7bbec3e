"""Python's ``statistics`` module on traced values.

NOTE [the statistics module on tracers]: ``statistics.mean(x)``, ``variance``, ``stdev``,
``pvariance``, ``pstdev``, ``harmonic_mean`` and ``NormalDist.from_samples`` (its
``_mean_stdev``) sum the data exactly, as fractions (``x.as_integer_ratio()``), and
convert the fraction back with the data's type; ``fmean`` and ``geometric_mean`` call
``float()`` on each value.  On a traced row neither can be done (a tracer has no exact
fraction, and ``float()`` drops a derivative or splits the batch into one run per row),
so they raised "can't convert type 'BatchTracer' to numerator/denominator" where the loop
over the rows gives numbers.  So these functions of the ``statistics`` module compute
on data that holds a floating tracer (a 1-d traced array, or an iterable of 0-d traced
values and numbers) with ``ftransforms.numpy``: the same formulas in floating point
(within rounding of the exact result: sums in float64 at least, so float32 rows give the
float32 nearest the exact mean; an elementwise step the module rounds, as ``(x - c) *
(x - c)`` of a given center, is rounded in the data's dtype), differentiable, one batched
program.  Their errors are the module's (``StatisticsError`` for too few values, or for
a non-positive value of ``geometric_mean``, a negative one of ``harmonic_mean``, read
per row).  ``mean``/``variance``/``pvariance``/``harmonic_mean`` keep the data's dtype
(``np.float32`` rows give float32, as the loop's ``np.float32`` results);
``stdev``/``pstdev``/``fmean``/``geometric_mean`` give float64 (the loop's Python
``float``); ``NormalDist`` holds Python floats, so ``float()`` reads them per row.
Traced data that is not floating (integers, booleans: the module truncates a mean of
``np.int64`` values to an integer, and raises for ``stdev`` of them) is read, row by
row, and handed to the module's own code as the loop's NumPy numbers (it holds no
derivative; under ``vmap`` rows that differ split the batch); plain numbers reach the
module as they are, as do its other functions (``median``, ``mode``, ``quantiles``:
comparisons, which split the batch).

The function objects themselves are redirected when ``ftransforms.numpy`` is imported,
so that ``vmap(statistics.mean)`` and a ``from statistics import mean`` made earlier are
answered too (as NOTE [SciPy's function objects bound before the first transform] does
for SciPy's): the module's code moves to a copy of the function, and the object's
``__code__`` becomes a trampoline whose keyword-only default is the wrapper
(``__signature__`` keeps the module's signature, ``__wrapped__`` is the copy).  Outside
the transforms that costs one more Python call and one test (is a transform running?).

Example:
    >>> import statistics
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> ft.vmap(statistics.stdev)(np.array([[1.0, 2.0, 4.0], [0.0, 0.0, 3.0]])).round(4).tolist()
    [1.5275, 1.7321]
"""

from __future__ import annotations

import functools
import inspect
import statistics
import types
from collections.abc import Callable
from typing import Any

import numpy

import ftransforms.numpy.creation as creation
import ftransforms.numpy.indexing as indexing
import ftransforms.numpy.reductions as reductions
import ftransforms.numpy.ufuncs as ufuncs
from ftransforms.core.mutation import ACTIVE_THREADS
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.helpers import array_like, dtype_of, holds_tracer

__all__ = ["on_traced_data"]


#: Element types that hold no tracer.
_NUMBERS = frozenset(
    {int, float, bool, numpy.float64, numpy.float32, numpy.int64, numpy.int32, numpy.bool_}
)


def _floating_values(data: Any) -> tuple[Any, Any]:
    """``(values, data)``: the data as one floating traced vector where it holds a
    floating tracer (else None), and the data to hand the module (an iterator read once
    is handed on as a list)."""
    if isinstance(data, Tracer):
        ok = data.ndim == 1 and numpy.dtype(dtype_of(data)).kind == "f"
        return (data if ok else None), data
    if not isinstance(data, (list, tuple, numpy.ndarray)):
        data = list(data)
    if type(data) in (list, tuple) and set(map(type, data)) <= _NUMBERS:
        return None, data  # (the common case, at C speed)
    if not holds_tracer(data):
        return None, data
    try:
        values = array_like(list(data))
    except (TypeError, ValueError):
        return None, data
    ok = values.ndim == 1 and numpy.dtype(dtype_of(values)).kind == "f"
    return (values if ok else None), data


def _count(values: Any, name: str, least: int) -> int:
    n = values.shape[0]
    if n < least:
        needed = "at least one data point" if least == 1 else "at least two data points"
        raise statistics.StatisticsError(f"{name} requires {needed}")
    return n


def _float64(x: Any) -> Any:
    return x.astype(numpy.float64)


def _wide(values: Any) -> Any:
    """``values`` in float64 at least: the module sums exactly and rounds once, so the
    loop's mean of float32 rows is the float32 nearest the exact mean (a float32 sum
    would be off by its rounding)."""
    return values if values.dtype.itemsize >= 8 else _float64(values)


def _mean(values: Any) -> Any:
    n = _count(values, "mean", 1)
    return (reductions.sum(_wide(values)) / n).astype(values.dtype)


def _fmean(values: Any, weights: Any = None) -> Any:
    if weights is None:
        return _float64(reductions.sum(_wide(values))) / _count(values, "fmean", 1)
    w = creation.asarray(array_like(weights) if holds_tracer(weights) else weights)
    if w.shape != values.shape:
        raise statistics.StatisticsError("data and weights must be the same length")
    total = reductions.sum(_wide(w))
    if not bool(total):  # per row: splits the batch where the rows' totals differ
        raise statistics.StatisticsError("sum of weights must be non-zero")
    return _float64(reductions.sum(_wide(values * w)) / total)


def _geometric_mean(values: Any) -> Any:
    if values.shape[0] == 0 or bool(reductions.any(values <= 0)):  # per row
        raise statistics.StatisticsError(
            "geometric mean requires a non-empty dataset containing positive numbers"
        )
    return _float64(ufuncs.exp(reductions.mean(ufuncs.log(_wide(values)))))


def _harmonic_mean(values: Any, weights: Any = None) -> Any:
    """The module's ``harmonic_mean`` of NumPy numbers: its error for a negative value or
    weight (read per row); a zero value of non-zero weight makes the sum of the ratios
    infinite (NumPy's ``1 / 0.0``, not Python's ZeroDivisionError), so the mean 0."""
    negative = "harmonic mean does not support negative values"
    n = _count(values, "harmonic_mean", 1)
    if n == 1 and weights is None:
        if bool(values[0] < 0):
            raise statistics.StatisticsError(negative)
        return values[0]
    if weights is None:
        w, total_weight = creation.ones_like(values), n
    else:
        if not holds_tracer(weights) and iter(weights) is weights:
            weights = list(weights)
        if type(weights) in (list, tuple) and set(map(type, weights)) <= {int, float, bool}:
            w = creation.asarray(weights, dtype=values.dtype)  # Python numbers stay weak
        else:
            w = creation.asarray(array_like(weights))
        if w.shape != values.shape:
            raise statistics.StatisticsError("Number of weights does not match data size")
        if bool(reductions.any(w < 0)):
            raise statistics.StatisticsError(negative)
        total_weight = reductions.sum(_wide(w))
    if bool(reductions.any(values < 0)):
        raise statistics.StatisticsError(negative)
    used = w != 0
    terms = indexing.where(used, w / indexing.where(used, values, 1), 0)  # each rounded
    total = reductions.sum(_wide(terms))  # (the module sums them exactly)
    if bool(total <= 0):
        raise statistics.StatisticsError("Weighted sum must be positive")
    return (total_weight / total).astype(terms.dtype)


def _squares(values: Any, center: Any, name: str, least: int) -> tuple[Any, int]:
    """The sum of squared deviations: from the exact mean, or (a given ``center``) of the
    deviations squared in their own dtype, as the module computes ``(x - c) * (x - c)``."""
    n = _count(values, name, least)
    if center is None:
        x = _wide(values)
        deviation = x - reductions.sum(x) / n
        return reductions.sum(deviation * deviation), n
    deviation = values - center
    return reductions.sum(_wide(deviation * deviation)), n


def _variance(values: Any, xbar: Any = None) -> Any:
    ss, n = _squares(values, xbar, "variance", 2)
    return (ss / (n - 1)).astype(values.dtype)


def _pvariance(values: Any, mu: Any = None) -> Any:
    ss, n = _squares(values, mu, "pvariance", 1)
    return (ss / n).astype(values.dtype)


def _stdev(values: Any, xbar: Any = None) -> Any:
    ss, n = _squares(values, xbar, "stdev", 2)
    return _float64(ufuncs.sqrt(ss / (n - 1)))


def _pstdev(values: Any, mu: Any = None) -> Any:
    ss, n = _squares(values, mu, "pstdev", 1)
    return _float64(ufuncs.sqrt(ss / n))


def _mean_stdev(values: Any) -> tuple[Any, Any]:
    """``NormalDist.from_samples``'s mean and sample standard deviation, as floats."""
    ss, n = _squares(values, None, "stdev", 2)
    return _float64(reductions.sum(_wide(values)) / n), _float64(ufuncs.sqrt(ss / (n - 1)))


def _read_exact(tree: Any) -> Any:
    """``tree`` with each traced value that is not floating (integers, booleans) replaced
    by the value it holds, as the NumPy scalar or array of the loop's row: the module sums
    such data exactly (``as_integer_ratio``), which a tracer cannot, and they hold no
    derivative.  Under ``vmap`` rows that hold other values split the batch (NOTE
    [splitting the batch])."""
    if isinstance(tree, Tracer):
        if numpy.dtype(dtype_of(tree)).kind == "f":
            return tree
        value = tree._concrete()
        return value[()] if getattr(value, "ndim", None) == 0 else value
    if type(tree) in (list, tuple):
        return type(tree)(_read_exact(v) for v in tree)
    if type(tree) is dict:
        return {k: _read_exact(v) for k, v in tree.items()}
    return tree


def on_traced_data(original: Callable, traced: Callable) -> Callable:
    """``original`` (a function of the ``statistics`` module) that calls ``traced`` on data
    holding a floating tracer, or with a traced second argument (NOTE [the statistics
    module on tracers]).

    Example:
        >>> import statistics
        >>> mean = on_traced_data(statistics.mean, _mean)
        >>> mean([1.0, 2.0, 4.5])  # plain data reach the module's own function
        2.5
    """

    @functools.wraps(original)
    def call(data: Any, *args: Any, **kwargs: Any) -> Any:
        if not ACTIVE_THREADS[0]:  # no transform is running: no data holds a tracer
            return original(data, *args, **kwargs)
        values, data = _floating_values(data)
        if values is None and (holds_tracer(args) or holds_tracer(list(kwargs.values()))):
            plain = creation.asarray(data)
            if plain.ndim == 1 and plain.dtype.kind == "f":
                values = plain
        if values is None:
            data, args, kwargs = _read_exact((data, args, kwargs))
            return original(data, *args, **kwargs)
        return traced(values, *args, **kwargs)

    return call


def _trampoline(*args: Any, _ftransforms_statistics_: Any = None, **kwargs: Any) -> Any:
    return _ftransforms_statistics_(*args, **kwargs)


def _redirect(theirs: types.FunctionType, traced: Callable) -> None:
    """``theirs`` (the module's function object, wherever it is held) calls
    :func:`on_traced_data` of a copy of itself (NOTE [the statistics module on
    tracers])."""
    if theirs.__closure__ or theirs.__code__ is _trampoline.__code__:
        return  # (none of the module's functions has a closure; redirected once)
    copy = types.FunctionType(
        theirs.__code__, theirs.__globals__, theirs.__name__, theirs.__defaults__
    )
    copy.__kwdefaults__ = theirs.__kwdefaults__
    copy.__qualname__, copy.__module__, copy.__doc__ = (
        theirs.__qualname__,
        theirs.__module__,
        theirs.__doc__,
    )
    signature = inspect.signature(theirs)
    theirs.__code__ = _trampoline.__code__
    theirs.__defaults__ = None
    theirs.__kwdefaults__ = {"_ftransforms_statistics_": on_traced_data(copy, traced)}
    theirs.__signature__ = signature  # type: ignore[attr-defined]
    theirs.__wrapped__ = copy  # type: ignore[attr-defined]


_TRACED = {
    "mean": _mean,
    "fmean": _fmean,
    "geometric_mean": _geometric_mean,
    "harmonic_mean": _harmonic_mean,
    "_mean_stdev": _mean_stdev,  # NormalDist.from_samples (Python 3.11 on)
    "variance": _variance,
    "pvariance": _pvariance,
    "stdev": _stdev,
    "pstdev": _pstdev,
}
for _name, _fn in _TRACED.items():
    _theirs = getattr(statistics, _name, None)
    if isinstance(_theirs, types.FunctionType):
        _redirect(_theirs, _fn)
