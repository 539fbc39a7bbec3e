"""JAX's newer ``jax.tree`` namespace: the functions of :mod:`ftransforms.tree_util`
under their short names (``ft.tree.map`` is ``ft.tree_util.tree_map``).

Example:
    >>> import ftransforms as ft
    >>> ft.tree.map(lambda x: x + 1, {"a": 1, "b": (2, None)})
    {'a': 2, 'b': (3, None)}
"""

import dataclasses
from typing import Any

from ftransforms.tree_util import tree_all as all  # noqa: A004
from ftransforms.tree_util import tree_broadcast as broadcast
from ftransforms.tree_util import tree_flatten as flatten
from ftransforms.tree_util import tree_flatten_with_path as flatten_with_path
from ftransforms.tree_util import tree_leaves as leaves
from ftransforms.tree_util import tree_leaves_with_path as leaves_with_path
from ftransforms.tree_util import tree_map as map  # noqa: A004
from ftransforms.tree_util import tree_map_with_path as map_with_path
from ftransforms.tree_util import tree_reduce as reduce
from ftransforms.tree_util import tree_reduce_associative as reduce_associative
from ftransforms.tree_util import tree_structure as structure
from ftransforms.tree_util import tree_transpose as transpose
from ftransforms.tree_util import tree_unflatten as unflatten

__all__ = [
    "all",
    "broadcast",
    "flatten",
    "flatten_with_path",
    "leaves",
    "leaves_with_path",
    "map",
    "map_with_path",
    "reduce",
    "reduce_associative",
    "static",
    "structure",
    "transpose",
    "unflatten",
]


def static(**kwargs: Any) -> Any:
    """A dataclass field that is part of the structure, not a child: ``dataclasses.field``
    with ``metadata={"static": True}`` added, which :func:`ftransforms.tree_util.register_dataclass`
    reads (``jax.tree.static``).

    Example:
        >>> import dataclasses
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> @ft.tree_util.register_dataclass
        ... @dataclasses.dataclass
        ... class Op:
        ...     x: np.ndarray
        ...     kind: str = static(default="add")
        >>> ft.tree.leaves(Op(np.ones(2))), ft.tree.map(lambda v: v * 2, Op(np.ones(2))).kind
        ([array([1., 1.])], 'add')
    """
    metadata = {"static": True, **(kwargs.pop("metadata", None) or {})}
    return dataclasses.field(metadata=metadata, **kwargs)
