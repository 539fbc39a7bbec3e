"""JAX's ``jax.experimental`` names that JAX programs import:
:mod:`ftransforms.experimental.ode`, :mod:`ftransforms.experimental.jet` and
:func:`io_callback`.

Example:
    >>> import ftransforms.experimental.ode
    >>> callable(ftransforms.experimental.ode.odeint)
    True
"""

from ftransforms.callbacks import io_callback
from ftransforms.experimental import jet, ode

__all__ = ["io_callback", "jet", "ode"]
