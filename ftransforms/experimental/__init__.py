"""JAX's ``jax.experimental`` names that JAX programs import:
:mod:`ftransforms.experimental.ode` and :mod:`ftransforms.experimental.jet`.

Example:
    >>> import ftransforms.experimental.ode
    >>> callable(ftransforms.experimental.ode.odeint)
    True
"""

from ftransforms.experimental import jet, ode

__all__ = ["jet", "ode"]
