"""``custom_gradient``: JAX's (and TensorFlow's) one-function form of a custom VJP.

``fun(*args)`` returns ``(value, vjp)`` with ``vjp(g)`` the cotangents of the arguments;
the decorated function computes ``value`` and differentiates by ``vjp`` in reverse mode.
It is a :class:`~ftransforms.custom_vjp` whose residual is the ``vjp`` function itself,
carried as the traced values it closes over (NOTE [closure conversion] in
``ftransforms/closures.py``): so it composes with ``vmap`` and higher derivatives, as the
residuals of ``custom_vjp`` do.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> @custom_gradient
    ... def f(x):
    ...     return x**2, lambda g: (g * x,)  # a deliberately "wrong" gradient: x, not 2x
    >>> float(f(3.0)), float(ft.grad(f)(3.0))
    (9.0, 3.0)
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ftransforms.closures import hoist_traced
from ftransforms.custom import custom_vjp
from ftransforms.pytree import register_pytree_node

__all__ = ["custom_gradient"]


class _Rule:
    """A ``vjp`` rule as a residual: the closure-converted function (static) and the
    traced values it closed over (the pytree's leaves)."""

    def __init__(self, fn: Callable, consts: list) -> None:
        self.fn, self.consts = fn, consts

    def __call__(self, g: Any) -> Any:
        return self.fn(g, *self.consts)


register_pytree_node(
    _Rule, lambda r: (tuple(r.consts), r.fn), lambda fn, consts: _Rule(fn, list(consts))
)


def custom_gradient(fun: Callable) -> Callable:
    """``fun`` returning ``(value, vjp)`` made a function of the value whose reverse-mode
    derivative is ``vjp`` (``jax.custom_gradient``): ``vjp(g)`` returns one cotangent per
    positional argument (a tuple; a single value for one argument is taken too).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> @custom_gradient
        ... def clipped_identity(x):
        ...     return x, lambda g: (np.clip(g, -1.0, 1.0),)
        >>> ft.grad(lambda x: 5.0 * clipped_identity(x))(2.0)
        array(1.)
    """

    def primal(*args: Any) -> Any:
        return fun(*args)[0]

    functools.update_wrapper(primal, fun)
    wrapped = custom_vjp(primal)

    def fwd(*args: Any) -> Any:
        value, rule = fun(*args)
        converted, consts = hoist_traced(rule, arrays=True)
        return value, _Rule(converted, consts)

    def bwd(rule: _Rule, g: Any) -> tuple:
        out = rule(g)
        return tuple(out) if isinstance(out, (tuple, list)) else (out,)

    wrapped.defvjp(fwd, bwd)
    return wrapped
