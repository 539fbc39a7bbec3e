"""JAX's ``jax.experimental`` names that JAX programs import: :mod:`ftransforms.experimental.ode`.

Example:
    >>> import ftransforms.experimental.ode
    >>> callable(ftransforms.experimental.ode.odeint)
    True
"""

from ftransforms.experimental import ode

__all__ = ["ode"]
