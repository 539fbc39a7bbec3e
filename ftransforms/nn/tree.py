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

    All trees must have the same structure; the result is what ``vmap`` over the models
    takes (``in_dims=axis``).
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
    """The inverse of :func:`stack_trees`: a list of trees, one per index along ``axis``."""
    leaves, spec = tree_flatten(tree)
    if not leaves:
        raise ValueError("unstack_tree: the tree has no leaves")
    sizes = {fnp.shape(x)[axis] for x in leaves}
    if len(sizes) != 1:
        raise ValueError(f"unstack_tree: the leaves have different sizes on axis {axis}: {sizes}")
    n = sizes.pop()
    return [tree_unflatten(spec, [fnp.take(x, i, axis=axis) for x in leaves]) for i in range(n)]
