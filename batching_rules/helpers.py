"""Small helpers shared by the batching rules."""

from __future__ import annotations

from typing import Any

import ftransforms.numpy as fnp


def ndim(x: Any) -> int:
    """Number of axes of an array, tracer or Python scalar."""
    return getattr(x, "ndim", 0)


def logical_rank(x: Any, bdim: int | None) -> int:
    """Rank of ``x`` as the user sees it (without the batch axis)."""
    return ndim(x) - (bdim is not None)


def move_bdim_to_front(x: Any, bdim: int | None) -> Any:
    """``x`` with its batch axis moved to 0 (unbatched values are returned as they are)."""
    if bdim is None or bdim == 0:
        return x
    return fnp.moveaxis(x, bdim, 0)


def move_bdim_to(x: Any, bdim: int, dst: int) -> Any:
    """``x`` with its batch axis moved from ``bdim`` to ``dst``."""
    return x if bdim == dst else fnp.moveaxis(x, bdim, dst)


def ensure_bdim(x: Any, bdim: int | None, axis_size: int) -> Any:
    """``x`` with a batch axis at the front, broadcasting (a view) if it had none."""
    if bdim is None:
        shape = fnp.shape(x)
        return fnp.broadcast_to(fnp.reshape(x, (1,) + shape), (axis_size,) + shape)
    return move_bdim_to_front(x, bdim)


def pad_rank_after_front(x: Any, rank: int) -> Any:
    """Insert size-1 axes after the front batch axis until the logical rank is ``rank``."""
    shape = fnp.shape(x)
    missing = rank - (len(shape) - 1)
    if missing <= 0:
        return x
    return fnp.reshape(x, shape[:1] + (1,) * missing + shape[1:])


def physical_axis(axis: int, bdim: int) -> int:
    """The physical axis of logical ``axis`` in a value batched at ``bdim``."""
    return axis + (axis >= bdim)


def reshape_dim_into(src: int, dst: int, x: Any) -> Any:
    """Merge axis ``src`` into axis ``dst`` (``src`` becomes the outer part of ``dst``).

    ``dst`` counts axes of the result.
    """
    x = fnp.moveaxis(x, src, dst)
    shape = fnp.shape(x)
    return fnp.reshape(x, shape[:dst] + (shape[dst] * shape[dst + 1],) + shape[dst + 2 :])


def reshape_dim_outof(src: int, size1: int, x: Any) -> Any:
    """Split axis ``src`` into ``(size1, shape[src] // size1)``."""
    shape = fnp.shape(x)
    return fnp.reshape(x, shape[:src] + (size1, shape[src] // size1) + shape[src + 1 :])
