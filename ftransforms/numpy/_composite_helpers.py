"""Private helpers shared by the NumPy composites of ``_quantiles``, ``_statistics``,
``_signal``, ``_polynomials`` and ``_builders``: operands as arrays on the right backend,
dtype promotion with weak Python scalars, host copies of concrete arrays, and the check that
a shape read from the data is the same for every element of a vmap batch.
"""

from __future__ import annotations

from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import BatchedControlFlowError
from ftransforms.core.tracer import Tracer

__all__: list[str] = []  # private helpers only


def _arr(x: Any, like: Any = None) -> Any:
    """Tracers and backend arrays as they are; Python scalars, lists (holding tracers or
    not) and, next to ``like`` on another backend, NumPy arrays as arrays on ``like``'s
    backend (a CuPy user may pass host constants such as weights or bins)."""
    if isinstance(x, Tracer):
        return x
    if hasattr(x, "dtype") and hasattr(x, "shape"):
        if like is None or type(x) is not numpy.ndarray:
            return x
        xp = fnp._xp(like)
        return x if xp is numpy else xp.asarray(x)
    if like is None or fnp._holds_tracer(x):
        return fnp.asarray(x)
    return fnp._xp(like).asarray(x)


def _result_type(*values: Any) -> Any:
    """``numpy.result_type`` of arrays' and tracers' dtypes, Python scalars staying weak
    (it never sees a backend array: CuPy's are not NumPy's)."""
    return numpy.result_type(
        *[
            v if isinstance(v, (bool, int, float, complex, type, numpy.dtype)) else fnp._dtype(v)
            for v in values
        ]
    )


def _host(x: Any) -> numpy.ndarray:
    """A NumPy copy of a concrete backend array (CuPy's included)."""
    return numpy.asarray(x.get() if hasattr(x, "get") else x)


def _like(*values: Any) -> Any:
    """The first backend array or tracer among ``values`` (None if there is none)."""
    return next((v for v in values if hasattr(v, "dtype") and hasattr(v, "shape")), None)


def _const(value: Any, like: Any, dtype: Any = None) -> Any:
    """A constant array on ``like``'s backend."""
    return fnp._xp(like).asarray(value, dtype=dtype)


def _same_across_batch(value: Any, what: str, fix: str) -> int:
    """The one concrete value of a logical scalar that decides a shape, read with
    :func:`fnp.peek` (its physical array holds one value per vmap batch element): an error
    naming ``fix`` when the batch elements disagree."""
    values = numpy.unique(_host(fnp.peek(value)))
    if values.size != 1:
        raise BatchedControlFlowError(
            f"{what} under vmap: the shape of the result depends on the values, and it "
            f"differs across the batch ({values.tolist()}); {fix}"
        )
    return int(values[0])
