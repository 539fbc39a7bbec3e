"""Which ``ftransforms.numpy`` function answers a NumPy function called on a tracer.

NumPy's ``__array_function__`` protocol hands ``numpy.foo(tracer, ...)`` to the tracer;
:func:`implements` on the ``ftransforms.numpy`` function that does the work, where it is
defined, is the one place that says so.  A NumPy function with no registration raises
:class:`~ftransforms.errors.UnsupportedOperationError` (see :mod:`ftransforms.numpy.protocol`).

Example:
    >>> import numpy
    >>> from ftransforms.numpy.dispatch import FUNCTIONS
    >>> FUNCTIONS[numpy.sum].__module__
    'ftransforms.numpy.reductions'
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["FUNCTIONS", "implements"]

F = TypeVar("F", bound=Callable[..., Any])

#: NumPy function -> the ``ftransforms.numpy`` function that implements it on tracers.
FUNCTIONS: dict[Any, Callable[..., Any]] = {}


def _resolve(spec: Any) -> Any:
    """A NumPy function, or None for a dotted name this NumPy version does not have."""
    if not isinstance(spec, str):
        return spec
    module, _, name = spec.rpartition(".")
    return getattr(importlib.import_module(module), name, None)


def implements(*numpy_functions: Any) -> Callable[[F], F]:
    """Register the decorated function for ``numpy_functions`` under ``__array_function__``.

    Each entry is a NumPy function (``numpy.sum``, ``numpy.linalg.norm``) or, for one that
    only newer NumPy versions have, its dotted name (``"numpy.unstack"``: skipped where
    absent).  Registering a second function for the same NumPy function is an error.

    Example:
        >>> import numpy
        >>> @implements(numpy.sum)  # doctest: +SKIP
        ... def sum(x, axis=None, dtype=None, keepdims=False): ...
    """
    if not numpy_functions:
        raise TypeError("implements() needs at least one NumPy function")

    def register(fn: F) -> F:
        for spec in numpy_functions:
            func = _resolve(spec)
            if func is None:
                continue
            if FUNCTIONS.get(func, fn) is not fn:
                raise ValueError(
                    f"implements({spec!r}) on {_describe(fn)}: it is already implemented by "
                    f"{_describe(FUNCTIONS[func])}; remove one of the two registrations"
                )
            FUNCTIONS[func] = fn
        return fn

    return register


def _describe(fn: Any) -> str:
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', fn)}"
