"""Looking at values inside transforms (``jax.debug``): :func:`print` and :func:`callback`.

Both see the concrete values wherever they are called: under ``vmap`` once per row (in
order, with that row's values, as JAX does), under ``grad``/``jvp`` with the primal values,
and under ``jit`` on every call, the replays included (NOTE [callbacks] in
``ftransforms/callbacks.py``).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> def f(x):
    ...     ft.debug.print("x = {}", x)
    ...     return x * 2
    >>> _ = ft.vmap(f)(np.array([1.0, 2.0]))
    x = 1.0
    x = 2.0
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

from ftransforms.callbacks import debug_callback

__all__ = ["callback", "print"]


def callback(
    fn: Callable[..., Any],
    *args: Any,
    ordered: bool = False,
    partitioned: bool = False,
    **kwargs: Any,
) -> None:
    """Call ``fn(*args, **kwargs)`` with the concrete values of ``args`` (host NumPy
    arrays), wherever the call sits (``jax.debug.callback``).

    Under ``vmap`` it is called once per row, in order, with that row's values; under
    ``grad``/``jvp``/``vjp`` with the primal values; under ``jit`` on every call, the
    replays included.  ``fn``'s return value is ignored.  Calls always run in program
    order (we are eager), so ``ordered`` (and ``partitioned``) are accepted and have
    nothing to change.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> seen = []
        >>> f = ft.jit(lambda x: (callback(seen.append, x.sum()), x + 1)[1])
        >>> _ = f(np.ones(2)); _ = f(np.zeros(2))  # the second call is a replay
        >>> [float(s) for s in seen]
        [2.0, 0.0]
    """
    del ordered, partitioned
    if not callable(fn):
        raise TypeError(f"debug.callback(fn, *args): fn must be callable, got {fn!r}")
    debug_callback(fn, *args, **kwargs)


def print(fmt: str, *args: Any, ordered: bool = False, **kwargs: Any) -> None:  # noqa: A001
    """Print ``fmt.format(*args, **kwargs)`` with the concrete values (``jax.debug.print``):
    one line per row under ``vmap``, the primal values under ``grad``, and a line on
    every ``jit`` call (replays included).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> def loss(w):
        ...     print("w = {w}, loss = {l:.2f}", w=w, l=(w**2).sum())
        ...     return (w**2).sum()
        >>> g = ft.grad(loss)(np.array([1.0, 2.0]))
        w = [1. 2.], loss = 5.00
    """
    if not isinstance(fmt, str):
        raise TypeError(f"debug.print(fmt, *args): fmt must be a str, got {type(fmt).__name__}")
    callback(lambda *a, **k: builtins.print(fmt.format(*a, **k)), *args, ordered=ordered, **kwargs)
