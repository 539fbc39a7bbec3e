"""``jax.experimental.ode``: :func:`odeint`, JAX's ``odeint(func, y0, t, *args, rtol=1.4e-8,
atol=1.4e-8, mxstep=inf, hmax=inf)`` with ``func(y, t, *args)`` and adjoint derivatives in
``y0``, ``t`` and ``args``.  It is :func:`ftransforms.scipy.integrate.odeint` (the same
solver, which also takes SciPy's keywords), so ``from jax.experimental.ode import odeint``
becomes ``from ftransforms.experimental.ode import odeint``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> from ftransforms.experimental.ode import odeint
    >>> def decay(k):
    ...     return odeint(lambda y, t, k: -k * y, np.array([1.0]), np.array([0.0, 1.0]), k)[-1, 0]
    >>> round(float(ft.grad(decay)(0.5)), 6)  # d/dk exp(-k) = -exp(-k)
    -0.606531
"""

from ftransforms.scipy.integrate import odeint

__all__ = ["odeint"]
