"""``autograd.misc.fixed_points``: :func:`fixed_point`, iterated forward and
differentiated implicitly.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> from ftransforms.misc.fixed_points import fixed_point
    >>> newton = lambda a: lambda x: 0.5 * (x + a / x)  # sqrt(a) is its fixed point
    >>> sqrt = lambda a: fixed_point(newton, a, 1.0, lambda x, y: abs(x - y), 1e-12)
    >>> round(float(sqrt(2.0)), 6), round(float(ft.grad(sqrt)(4.0)), 6)
    (1.414214, 0.25)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ftransforms.implicit import custom_root

__all__ = ["fixed_point"]


def _iterate(step: Callable, x0: Any, distance: Callable, tol: Any) -> Any:
    x, x_prev = step(x0), x0
    while distance(x, x_prev) > tol:
        x, x_prev = step(x), x
    return x


def fixed_point(f: Callable, a: Any, x0: Any, distance: Callable, tol: Any) -> Any:
    """The fixed point ``x = f(a)(x)`` as ``autograd.misc.fixed_points.fixed_point``:
    ``x = f(a)(x)`` iterated from ``x0`` until ``distance(x, x_prev) <= tol``.  Its
    derivative in ``a`` (and in what ``f`` closes over) is implicit, ``x* = f(a)(x*)``
    differentiated at the fixed point (``ft.custom_root`` of ``f(a)(x) - x``): its
    linear equation is solved by the same iteration on the Jacobian of ``f(a)``, with the
    same ``distance`` and ``tol``, so it converges where the forward iteration contracts.
    ``x0`` gets no derivative.  Derivatives of any order compose (``grad(grad(...))``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms.misc import fixed_point
        >>> step = lambda a: lambda x: x - 0.05 * (x**2 - a)  # gradient descent to sqrt(a)
        >>> sqrt = lambda a: fixed_point(step, a, 10.0, lambda x, y: np.abs(x - y), 1e-10)
        >>> round(float(ft.grad(sqrt)(2.0)), 6), round(float(ft.grad(ft.grad(sqrt))(2.0)), 5)
        (0.353553, -0.08839)
    """

    def solve(residual: Callable, guess: Any) -> Any:
        return _iterate(f(a), guess, distance, tol)

    def tangent_solve(g: Callable, y: Any) -> Any:
        # g(z) = J z - z with J the Jacobian of f(a) at x*: z = J z - y is a fixed point
        return _iterate(lambda z: z + g(z) - y, y * 0, distance, tol)

    return custom_root(lambda x: f(a)(x) - x, x0, solve, tangent_solve)
