"""Waiting for the device: :func:`block_until_ready` (as ``jax.block_until_ready``).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> ft.block_until_ready({"w": np.ones(2)})  # NumPy is synchronous: returned as is
    {'w': array([1., 1.])}
"""

from __future__ import annotations

from typing import Any

from ftransforms.core.tracer import Tracer
from ftransforms.pytree import tree_leaves, tree_map

__all__ = ["block_until_ready", "device_get"]


def block_until_ready(x: Any) -> Any:
    """Wait until the work that computes the leaves of ``x`` has finished, and return
    ``x``: for a CuPy array, the current CUDA stream of its device is synchronized (each
    device once); a leaf with a ``block_until_ready()`` method (a JAX array) has it
    called; NumPy arrays, Python scalars, other leaves and tracers need no waiting.
    Use it before reading a clock when timing GPU code.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> out = ft.block_until_ready(ft.vmap(np.sin)(np.zeros((2, 3))))
        >>> out.shape
        (2, 3)
    """
    waited: set[Any] = set()
    for leaf in tree_leaves(x):
        if isinstance(leaf, Tracer):
            continue
        wait = getattr(leaf, "block_until_ready", None)
        if callable(wait):
            wait()
            continue
        if type(leaf).__module__.startswith("cupy") and hasattr(leaf, "device"):
            import cupy  # noqa: PLC0415  (late import: optional dependency, seen with a cupy array)

            device = leaf.device
            if device.id not in waited:
                waited.add(device.id)
                with device:
                    cupy.cuda.get_current_stream().synchronize()
    return x


def device_get(x: Any) -> Any:
    """``x`` with its CuPy leaves copied to host NumPy arrays (``jax.device_get``): what a
    training loop calls to read metrics; NumPy arrays and Python values are returned as
    they are.  A tracer (inside a transform) has no value to fetch: ``TypeError``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> ft.device_get({"loss": np.float64(0.5), "w": np.ones(2)})
        {'loss': np.float64(0.5), 'w': array([1., 1.])}
    """

    def get(leaf: Any) -> Any:
        if isinstance(leaf, Tracer):
            raise TypeError(
                "device_get(x): a leaf of x is a tracer of an active transform, which has no "
                "value on a device to fetch; call device_get outside the transformed function"
            )
        if type(leaf).__module__.startswith("cupy") and hasattr(leaf, "get"):
            return leaf.get()
        return leaf

    return tree_map(get, x)
