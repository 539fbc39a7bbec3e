"""``jax.ad_checkpoint`` under its JAX name: :func:`checkpoint_name` and the checkpoint
transform (``checkpoint``/``remat``/``checkpoint_policies``, documented in
``ftransforms.checkpoint``).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> from ftransforms.ad_checkpoint import checkpoint, checkpoint_name
    >>> f = checkpoint(lambda x: np.sum(checkpoint_name(np.sin(x), "hidden") ** 2))
    >>> round(float(ft.grad(f)(0.5)), 6)  # 2 sin(x) cos(x)
    0.841471
"""

from __future__ import annotations

from typing import Any

from ftransforms.checkpoint import checkpoint, checkpoint_policies, remat

__all__ = ["checkpoint", "checkpoint_name", "checkpoint_policies", "remat"]


def checkpoint_name(x: Any, name: str) -> Any:
    """``x`` itself, tagged ``name`` for a names-based checkpoint policy in JAX
    (``save_only_these_names``).  ftransforms' :func:`checkpoint` keeps a checkpointed
    function's inputs and outputs only (selective policies raise), so the tag changes
    nothing: model code that names its values runs unchanged.

    Example:
        >>> import numpy as np
        >>> from ftransforms.ad_checkpoint import checkpoint_name
        >>> checkpoint_name(np.ones(2), "h")
        array([1., 1.])
    """
    if not isinstance(name, str):
        raise TypeError(
            f"checkpoint_name(x, name={name!r}): name must be a str, got {type(name).__name__}"
        )
    return x
