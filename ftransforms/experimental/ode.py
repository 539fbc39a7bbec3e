"""``jax.experimental.ode``: :func:`odeint`, JAX's ``odeint(func, y0, t, *args, rtol=1.4e-8,
atol=1.4e-8, mxstep=inf, hmax=inf)`` with ``func(y, t, *args)`` and adjoint derivatives in
``y0``, ``t`` and ``args``.  It is :func:`ftransforms.scipy.integrate.odeint` (the same
solver, JAX's steps: NOTE [odeint steps as JAX's]) with JAX's default tolerances, so
``from jax.experimental.ode import odeint`` becomes ``from ftransforms.experimental.ode
import odeint`` and prints what JAX prints.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> from ftransforms.experimental.ode import odeint
    >>> def decay(k):
    ...     return odeint(lambda y, t, k: -k * y, np.array([1.0]), np.array([0.0, 1.0]), k)[-1, 0]
    >>> round(float(ft.grad(decay)(0.5)), 6)  # d/dk exp(-k) = -exp(-k)
    -0.606531
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ftransforms.scipy import integrate as _integrate

__all__ = ["odeint"]

#: ``jax.experimental.ode.odeint``'s default ``rtol`` and ``atol``.
_JAX_TOL = 1.4e-8


def odeint(
    func: Callable,
    y0: Any,
    t: Any,
    *args: Any,
    rtol: float = _JAX_TOL,
    atol: float = _JAX_TOL,
    mxstep: int | float = math.inf,
    hmax: float = math.inf,
) -> Any:
    """``jax.experimental.ode.odeint``: ``y`` at every time of ``t`` for ``dy/dt =
    func(y, t, *args)`` from ``y(t[0]) = y0``, with JAX's defaults (see the module doc and
    :func:`ftransforms.scipy.integrate.odeint`).

    Example:
        >>> import numpy as np
        >>> ys = odeint(lambda y, t: -y, np.array([1.0]), np.array([0.0, 1.0]))
        >>> round(float(ys[1, 0]), 6)
        0.367879
    """
    return _integrate.odeint(func, y0, t, *args, rtol=rtol, atol=atol, mxstep=mxstep, hmax=hmax)
