"""The exception types, importable as ``ftransforms.errors`` (defined in ``core/errors.py``).

Every class is listed in ``__all__``; each subclasses :class:`FTransformsError` and the
built-in exception torch.func or JAX raise for the same mistake.

Example:
    >>> import numpy as np
    >>> from ftransforms import grad
    >>> from ftransforms.errors import GradOutputError
    >>> try:
    ...     grad(lambda x: x)(np.ones(3))
    ... except GradOutputError as err:
    ...     print(type(err).__name__)
    GradOutputError
"""

from ftransforms.core import errors as _core
from ftransforms.core.errors import *  # noqa: F403  (every exception class)

__all__ = sorted(
    name
    for name, value in vars(_core).items()
    if isinstance(value, type)
    and issubclass(value, BaseException)
    and value.__module__ == _core.__name__
)
