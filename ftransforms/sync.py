"""Waiting for the device: :func:`block_until_ready` (as ``jax.block_until_ready``), and
:func:`device_put` (as ``jax.device_put``).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> ft.block_until_ready({"w": np.ones(2)})  # NumPy is synchronous: returned as is
    {'w': array([1., 1.])}
"""

from __future__ import annotations

from typing import Any

import numpy

from ftransforms.core.tracer import Tracer
from ftransforms.errors import UnsupportedOperationError
from ftransforms.pytree import tree_leaves, tree_map

__all__ = ["block_until_ready", "device_get", "device_put"]


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


def device_put(x: Any, device: Any = None, *, may_alias: Any = None, donate: Any = None) -> Any:
    """``x`` with its leaves as arrays, as ``jax.device_put(x)`` (JAX programs call it on
    the NumPy data they start from).  Arrays stay on their own backend (a NumPy array is
    returned as is, a CuPy array stays on its GPU); Python scalars and sequences become
    NumPy arrays; tracers are returned as they are.  ``device`` other than ``None`` or
    ``"cpu"`` is refused: move data between backends with ``cupy.asarray``/``.get()``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> board = np.random.default_rng(0).random(3)
        >>> ft.device_put(board) is board, ft.device_put({"b": [1.0, 2.0]})["b"]
        (True, [array(1.), array(2.)])
    """
    if device is not None and str(device).lower() not in ("cpu", "tfrt_cpu_0", "cpu:0"):
        raise UnsupportedOperationError(
            f"device_put(x, device={device!r}): expected device=None or 'cpu' (the arrays "
            "stay on the backend they are on); move data to a GPU with cupy.asarray(x) "
            "and back with x.get()"
        )

    def put(leaf: Any) -> Any:
        if isinstance(leaf, Tracer) or hasattr(leaf, "__array_namespace__"):
            return leaf
        return numpy.asarray(leaf)

    return tree_map(put, x)


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
