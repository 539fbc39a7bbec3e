"""Traced values that a function closes over, found and made into parameters.

NOTE [closure conversion]: a solver that is one primitive with its own derivative rules
(``odeint``, ``solve_ivp``) calls the user's function on plain arrays, so a traced value
it closes over (``solve_ivp(lambda t, y: -k * y, ...)`` under ``grad`` in ``k``) would
be a value from outside the primitive, invisible to its rules.  :func:`hoist_traced`
finds such tracers by looking where Python keeps what a function holds: its closure
cells, its defaults, a ``functools.partial``'s arguments, and the same recursively in the
functions they hold (pytrees of arrays in a cell are searched leaf by leaf).  It returns
the tracers and a function that takes them as extra trailing parameters: the solver
passes them as its own operands, so every transform sees them (JAX's
``jax.closure_convert`` does this by tracing; Python's introspection suffices here).
A tracer reachable only through an object's attributes or a module global is not found;
the solver's "closes over a traced value" error names that case.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from typing import Any

import numpy

from ftransforms.core.tracer import Tracer
from ftransforms.pytree import tree_flatten, tree_unflatten

__all__ = ["closure_convert", "closure_tracers", "hoist_traced"]

_MAX_DEPTH = 8  # nested closures searched: a function's helpers and their helpers


class _Plan:
    """Where the tracers sit in one object, and how to rebuild it with new values;
    ``arrays``: NumPy arrays are hoisted too."""

    def __init__(self, arrays: bool = False) -> None:
        self.tracers: list = []
        self.arrays = arrays


def _value_plan(value: Any, plan: _Plan, depth: int, seen: set) -> Callable | None:
    """A rebuild of ``value`` (taking an iterator of the new leaves) if it holds tracers,
    else None."""
    if isinstance(value, Tracer) or (
        plan.arrays and type(value) is numpy.ndarray and value.dtype.kind in "fc"
    ):
        plan.tracers.append(value)
        return lambda new: next(new)
    if callable(value) and not isinstance(value, type):
        return _function_plan(value, plan, depth, seen)
    if isinstance(value, (list, tuple, dict)):
        leaves, spec = tree_flatten(value)
        parts = [_value_plan(leaf, plan, depth, seen) for leaf in leaves]
        if not any(parts):
            return None

        def rebuild(new: Any) -> Any:
            return tree_unflatten(spec, [p(new) if p else leaf for p, leaf in zip(parts, leaves)])

        return rebuild
    return None


def _function_plan(fn: Any, plan: _Plan, depth: int, seen: set) -> Callable | None:
    if depth > _MAX_DEPTH or id(fn) in seen:
        return None
    seen = seen | {id(fn)}
    if isinstance(fn, functools.partial):
        inner = _function_plan(fn.func, plan, depth + 1, seen)
        args = _value_plan(tuple(fn.args), plan, depth + 1, seen)
        kws = _value_plan(dict(fn.keywords), plan, depth + 1, seen)
        if not (inner or args or kws):
            return None

        def rebuild_partial(new: Any) -> Any:
            f = inner(new) if inner else fn.func
            a = args(new) if args else fn.args
            k = kws(new) if kws else fn.keywords
            return functools.partial(f, *a, **k)

        return rebuild_partial
    if not isinstance(fn, types.FunctionType):
        return None
    cells = fn.__closure__ or ()
    cell_plans = []
    for cell in cells:
        try:
            content = cell.cell_contents
        except ValueError:  # an empty cell (a name assigned later)
            cell_plans.append(None)
            continue
        cell_plans.append(_value_plan(content, plan, depth + 1, seen))
    defaults = _value_plan(fn.__defaults__, plan, depth + 1, seen) if fn.__defaults__ else None
    kwdefaults = (
        _value_plan(fn.__kwdefaults__, plan, depth + 1, seen) if fn.__kwdefaults__ else None
    )
    if not (any(cell_plans) or defaults or kwdefaults):
        return None

    def rebuild_function(new: Any) -> Any:
        closure = tuple(types.CellType(p(new)) if p else cell for p, cell in zip(cell_plans, cells))
        new_defaults = defaults(new) if defaults else fn.__defaults__
        g = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, new_defaults, closure)
        g.__kwdefaults__ = kwdefaults(new) if kwdefaults else fn.__kwdefaults__
        g.__qualname__, g.__doc__, g.__module__ = fn.__qualname__, fn.__doc__, fn.__module__
        g.__dict__.update(fn.__dict__)
        return g

    return rebuild_function


def closure_tracers(fn: Any) -> list:
    """The tracers that ``fn`` closes over (see NOTE [closure conversion]).

    Example:
        >>> import ftransforms as ft
        >>> def count(k):
        ...     found = closure_tracers(lambda y: -k * y)
        ...     return len(found) * k
        >>> float(ft.grad(count)(2.0))  # one tracer, k
        1.0
    """
    plan = _Plan()
    _function_plan(fn, plan, 0, set())
    return plan.tracers


def hoist_traced(fn: Callable, arrays: bool = False) -> tuple[Callable, list]:
    """``(converted, tracers)``: ``converted(*args, *tracers)`` computes ``fn(*args)``
    with the closed-over tracers replaced by the trailing arguments' values (NOTE
    [closure conversion]).  Without such tracers, ``(fn, [])``.  With ``arrays``, the
    floating NumPy arrays it closes over are hoisted too (a ``custom_vjp`` residual
    computed from plain inputs, which a higher derivative re-traces).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> def f(k):
        ...     g, consts = hoist_traced(lambda y: -k * y)
        ...     return g(np.array(3.0), *consts)
        >>> ft.grad(f)(2.0)
        array(-3.)
    """
    plan = _Plan(arrays)
    rebuild = _function_plan(fn, plan, 0, set())
    if rebuild is None:
        return fn, []
    n = len(plan.tracers)

    def converted(*args: Any) -> Any:
        head, consts = args[: len(args) - n], args[len(args) - n :]
        return rebuild(iter(consts))(*head)

    converted.__name__ = getattr(fn, "__name__", "func")
    return converted, plan.tracers


def closure_convert(fun: Callable, *example_args: Any) -> tuple[Callable, list]:
    """``jax.closure_convert``: ``(converted, hoisted)`` with ``converted(*args,
    *hoisted)`` computing ``fun(*args)``, ``hoisted`` the traced values ``fun`` closes over
    (through its closure, defaults, ``functools.partial`` arguments and the functions
    they hold: NOTE [closure conversion]), so that a ``custom_vjp`` of a higher-order
    function can take them as arguments.  ``example_args`` are accepted for JAX's
    signature (nothing is traced here: the closure is read directly).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> def scaled_sum(w):
        ...     f, consts = closure_convert(lambda x: np.sum(w * x), np.ones(2))
        ...     return f(np.ones(2), *consts)
        >>> ft.grad(scaled_sum)(np.array([1.0, 2.0]))
        array([1., 1.])
    """
    return hoist_traced(fun)
