"""Small helpers shared by the batching rules."""

from __future__ import annotations

from typing import Any

from ftransforms import lax

ndim = lax.ndim


def logical_rank(x: Any, x_bdim: int | None) -> int:
    """Rank of ``x`` as the user sees it (without the batch axis)."""
    return ndim(x) - (x_bdim is not None)


def move_bdim_to_front(x: Any, x_bdim: int | None) -> Any:
    """``x`` with its batch axis moved to 0 (unbatched values are returned as they are)."""
    if x_bdim is None or x_bdim == 0:
        return x
    return lax.moveaxis(x, x_bdim, 0)


def move_bdim_to(x: Any, x_bdim: int, dst: int) -> Any:
    """``x`` with its batch axis moved from ``x_bdim`` to ``dst``."""
    return x if x_bdim == dst else lax.moveaxis(x, x_bdim, dst)


def ensure_bdim(x: Any, x_bdim: int | None, axis_size: int) -> Any:
    """``x`` with a batch axis at the front, broadcasting (a view) if it had none."""
    if x_bdim is None:
        shape = lax.shape(x)
        return lax.broadcast_to(lax.reshape(x, (1,) + shape), (axis_size,) + shape)
    return move_bdim_to_front(x, x_bdim)


def pad_rank_after_front(x: Any, rank: int) -> Any:
    """Insert size-1 axes after the front batch axis until the logical rank is ``rank``."""
    shape = lax.shape(x)
    missing = rank - (len(shape) - 1)
    if missing <= 0:
        return x
    return lax.reshape(x, shape[:1] + (1,) * missing + shape[1:])


def physical_axis(axis: int, x_bdim: int) -> int:
    """The physical axis of logical ``axis`` in a value batched at ``x_bdim``."""
    return axis + (axis >= x_bdim)


def reshape_dim_into(src: int, dst: int, x: Any) -> Any:
    """Merge axis ``src`` into axis ``dst`` (``src`` becomes the outer part of ``dst``).

    ``dst`` counts axes of the result.
    """
    x = lax.moveaxis(x, src, dst)
    shape = lax.shape(x)
    return lax.reshape(x, shape[:dst] + (shape[dst] * shape[dst + 1],) + shape[dst + 2 :])


def reshape_dim_outof(src: int, size1: int, x: Any) -> Any:
    """Split axis ``src`` into ``(size1, shape[src] // size1)``."""
    shape = lax.shape(x)
    return lax.reshape(x, shape[:src] + (size1, shape[src] // size1) + shape[src + 1 :])
