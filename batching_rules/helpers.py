"""Small helpers shared by the batching rules (defined in ``ftransforms.lax``, where
custom rules can reach them too)."""

from ftransforms.lax import (  # noqa: F401  (re-exported for the batching rules)
    ensure_bdim,
    logical_rank,
    move_bdim_to,
    move_bdim_to_front,
    ndim,
    pad_rank_after_front,
    physical_axis,
    reshape_dim_into,
    reshape_dim_outof,
)
