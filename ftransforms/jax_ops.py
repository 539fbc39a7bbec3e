"""``jax.ops``'s segment reductions under ``ftransforms.ops``: ``segment_sum``,
``segment_prod``, ``segment_max`` and ``segment_min`` (message passing in graph networks,
per-group statistics).  Each is a scatter into an array of the reduction's identity, so
every transform goes through the ``x.at[ids]`` updates' rules: ``grad`` of
``segment_max``/``segment_min`` splits the derivative evenly among tied maxima, as JAX.

``ftransforms.ops`` is the package of the primitives' declarations, below the NumPy face
these functions are built on, so it cannot import this module: the package
(``ftransforms/__init__.py``) calls :func:`install` once at import, as it does for
``ftransforms.lax`` (NOTE [jax.lax names in ftransforms.lax] in ``jax_lax.py``).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> ft.ops.segment_sum(np.arange(5.0), np.array([0, 0, 2, 1, 2]), num_segments=3).tolist()
    [1.0, 3.0, 6.0]
"""

from __future__ import annotations

import operator
import types
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.jax_lax_gather import GatherScatterMode

__all__ = ["segment_max", "segment_min", "segment_prod", "segment_sum"]


def _identity(kind: str, dtype: numpy.dtype) -> Any:
    """The value an empty segment gets: the reduction's identity in ``dtype`` (JAX's)."""
    if kind == "sum":
        return 0
    if kind == "prod":
        return 1
    if dtype.kind == "b":
        return kind == "min"
    if dtype.kind in "iu":
        info = numpy.iinfo(dtype)
        return info.min if kind == "max" else info.max
    return -numpy.inf if kind == "max" else numpy.inf


def _num_segments(ids: Any, num_segments: Any, where: str) -> int:
    if num_segments is not None:
        return operator.index(num_segments)
    try:
        return int(fnp.max(ids)) + 1 if ids.size else 0
    except Exception as e:  # a traced segment_ids whose maximum is not one number
        raise TypeError(
            f"{where}: without num_segments the number of segments is max(segment_ids) + 1, "
            f"which must be one concrete number: pass num_segments= (JAX requires it under jit)"
        ) from e


def _segment(
    kind: str,
    data: Any,
    segment_ids: Any,
    num_segments: Any,
    mode: Any,
) -> Any:
    where = f"ops.segment_{kind}(data, segment_ids, num_segments={num_segments})"
    data, ids = fnp.asarray(data), fnp.asarray(segment_ids)
    if numpy.dtype(ids.dtype).kind not in "iu":
        raise TypeError(f"{where}: segment_ids must be integers, got {ids.dtype}")
    if ids.ndim != 1 or (data.ndim and data.shape[0] != ids.shape[0]):
        raise ValueError(
            f"{where}: segment_ids must be one-dimensional with one entry per row of data "
            f"(its leading axis), got segment_ids of shape {ids.shape} and data of shape "
            f"{data.shape}"
        )
    if kind == "sum" and numpy.dtype(data.dtype).kind == "b":
        raise TypeError(f"{where}: data of dtype bool has no sum (as JAX): cast it to an integer")
    n = _num_segments(ids, num_segments, where)
    if data.ndim == 0:  # one value for every id, as JAX broadcasts it
        data = fnp.broadcast_to(data, ids.shape)
    if GatherScatterMode.from_any(mode) is GatherScatterMode.CLIP:
        ids = fnp.clip(ids, 0, max(n - 1, 0))
    else:  # out-of-range ids, negative ones too, are dropped (x.at[] would wrap -1)
        ids = fnp.where((ids < 0) | (ids >= n), n, ids)
    dtype = numpy.dtype(data.dtype)
    out = fnp.full((n, *data.shape[1:]), _identity(kind, dtype), dtype=dtype)
    update = {"sum": "add", "prod": "multiply", "max": "max", "min": "min"}[kind]
    return getattr(fnp.at(out)[ids], update)(data, mode="drop")


def segment_sum(
    data: Any,
    segment_ids: Any,
    num_segments: int | None = None,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    bucket_size: int | None = None,
    mode: Any = None,
) -> Any:
    """The sums of ``data``'s rows over each segment: ``out[s] = sum(data[segment_ids ==
    s])`` (``jax.ops.segment_sum``).  ``num_segments`` defaults to ``max(segment_ids) + 1``;
    ids out of ``[0, num_segments)`` are dropped (``mode="clip"`` clamps them);
    ``indices_are_sorted``, ``unique_indices`` and ``bucket_size`` change nothing.

    Example:
        >>> import numpy as np
        >>> from ftransforms import ops
        >>> ops.segment_sum(np.ones((4, 2)), np.array([1, 1, 0, 5]), 3).tolist()
        [[1.0, 1.0], [2.0, 2.0], [0.0, 0.0]]
    """
    return _segment("sum", data, segment_ids, num_segments, mode)


def segment_prod(
    data: Any,
    segment_ids: Any,
    num_segments: int | None = None,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    bucket_size: int | None = None,
    mode: Any = None,
) -> Any:
    """The products of ``data``'s rows over each segment, ``1`` for an empty one
    (``jax.ops.segment_prod``); the arguments as :func:`segment_sum`'s.

    Example:
        >>> import numpy as np
        >>> from ftransforms import ops
        >>> ops.segment_prod(np.array([2.0, 3.0, 4.0]), np.array([0, 0, 2]), 3).tolist()
        [6.0, 1.0, 4.0]
    """
    return _segment("prod", data, segment_ids, num_segments, mode)


def segment_max(
    data: Any,
    segment_ids: Any,
    num_segments: int | None = None,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    bucket_size: int | None = None,
    mode: Any = None,
) -> Any:
    """The maxima of ``data``'s rows over each segment, ``-inf`` (an integer type's
    minimum) for an empty one (``jax.ops.segment_max``); the arguments as
    :func:`segment_sum`'s.

    Example:
        >>> import numpy as np
        >>> from ftransforms import ops
        >>> ops.segment_max(np.array([2.0, 3.0, 4.0]), np.array([0, 0, 2]), 3).tolist()
        [3.0, -inf, 4.0]
    """
    return _segment("max", data, segment_ids, num_segments, mode)


def segment_min(
    data: Any,
    segment_ids: Any,
    num_segments: int | None = None,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    bucket_size: int | None = None,
    mode: Any = None,
) -> Any:
    """The minima of ``data``'s rows over each segment, ``inf`` (an integer type's
    maximum) for an empty one (``jax.ops.segment_min``); the arguments as
    :func:`segment_sum`'s.

    Example:
        >>> import numpy as np
        >>> from ftransforms import ops
        >>> ops.segment_min(np.array([2, 3, 4]), np.array([0, 0, 2]), 2).tolist()
        [2, 9223372036854775807]
    """
    return _segment("min", data, segment_ids, num_segments, mode)


def install(ops_module: types.ModuleType) -> None:
    """Give ``ops_module`` (``ftransforms.ops``) the names of :data:`__all__`, as
    ``jax.ops`` has them (see the module docstring).

    Example:
        >>> import ftransforms
        >>> from ftransforms import ops
        >>> ops.segment_sum is segment_sum
        True
    """
    for name in __all__:
        setattr(ops_module, name, globals()[name])
