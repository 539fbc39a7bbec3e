"""Pytree helpers for parameters: ``tree_map``, and stacking models into an ensemble.

Example:
    >>> import numpy as np
    >>> from ftransforms.nn import init_linear, stack_trees, unstack_tree
    >>> rng = np.random.default_rng(0)
    >>> models = [init_linear(rng, 3, 2) for _ in range(4)]
    >>> ensemble = stack_trees(models)
    >>> ensemble["w"].shape
    (4, 2, 3)
    >>> len(unstack_tree(ensemble))
    4
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import ftransforms.numpy as fnp
from ftransforms.pytree import tree_flatten, tree_leaves, tree_map, tree_unflatten

__all__ = ["stack_trees", "tree_leaves", "tree_map", "unstack_tree"]


def stack_trees(trees: Sequence[Any], axis: int = 0) -> Any:
    """One tree whose leaves are the matching leaves of ``trees`` stacked along ``axis``.

    All trees must have the same structure (else ``ValueError``); the result is what
    ``vmap`` over the models takes (``in_dims=axis``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import nn
        >>> ensemble = nn.stack_trees([{"w": np.array([1.0, 2.0])}, {"w": np.array([3.0, 4.0])}])
        >>> ensemble["w"]
        array([[1., 2.],
               [3., 4.]])
        >>> ft.vmap(lambda p, x: p["w"] @ x, in_dims=(0, None))(ensemble, np.ones(2))
        array([3., 7.])
    """
    trees = list(trees)
    if not trees:
        raise ValueError("stack_trees: need at least one tree")
    spec = tree_flatten(trees[0])[1]
    for k, t in enumerate(trees[1:], 1):
        other = tree_flatten(t)[1]
        if other != spec:
            raise ValueError(
                f"stack_trees: tree {k} has structure {other}, but tree 0 has {spec}; all "
                f"models of an ensemble need the same structure"
            )
    return tree_map(lambda *xs: fnp.stack(xs, axis=axis), *trees)


def unstack_tree(tree: Any, axis: int = 0) -> list[Any]:
    """The inverse of :func:`stack_trees`: a list of trees, one per index along ``axis``.

    Example:
        >>> import numpy as np
        >>> from ftransforms import nn
        >>> models = nn.unstack_tree({"w": np.array([[1.0, 2.0], [3.0, 4.0]])})
        >>> models
        [{'w': array([1., 2.])}, {'w': array([3., 4.])}]
        >>> nn.stack_trees(models)["w"].tolist()
        [[1.0, 2.0], [3.0, 4.0]]
    """
    leaves, spec = tree_flatten(tree)
    if not leaves:
        raise ValueError("unstack_tree: the tree has no leaves")
    sizes = {fnp.shape(x)[axis] for x in leaves}
    if len(sizes) != 1:
        raise ValueError(f"unstack_tree: the leaves have different sizes on axis {axis}: {sizes}")
    n = sizes.pop()
    return [tree_unflatten(spec, [fnp.take(x, i, axis=axis) for x in leaves]) for i in range(n)]
