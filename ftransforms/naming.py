"""Names for profiles: :func:`named_call` and :func:`named_scope` (``jax.named_call``,
``jax.named_scope``).  In JAX they label the operations in the compiled program for
profilers; here every operation runs eagerly, so a profiler already sees the Python
function names, and these keep JAX programs running unchanged: the values, derivatives and
batching are those of the undecorated code.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> with ft.named_scope("encoder"):
    ...     y = ft.named_call(np.tanh, name="act")(np.zeros(2))
    >>> y.tolist()
    [0.0, 0.0]
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["named_call", "named_scope"]


def named_call(fun: Callable, *, name: str | None = None) -> Callable:
    """``fun`` under the name ``name`` (default: its own), for profiles (``jax.named_call``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> f = ft.named_call(lambda x: (x**2).sum(), name="loss")
        >>> f.__name__, ft.grad(f)(np.array([1.0, 2.0])).tolist()
        ('loss', [2.0, 4.0])
    """
    if not callable(fun):
        raise TypeError(
            f"named_call(fun, name={name!r}): fun must be callable, got {type(fun).__name__}"
        )

    @functools.wraps(fun)
    def named(*args: Any, **kwargs: Any) -> Any:
        return fun(*args, **kwargs)

    if name is not None:
        named.__name__ = named.__qualname__ = name
    return named


@contextlib.contextmanager
def named_scope(name: str) -> Iterator[None]:
    """A context whose operations are labelled ``name`` in profiles (``jax.named_scope``).

    Example:
        >>> import ftransforms as ft
        >>> with ft.named_scope("block1"):
        ...     pass
    """
    if not isinstance(name, str):
        raise TypeError(f"named_scope(name): name must be a str, got {type(name).__name__}")
    yield
