"""Pytrees: a thin layer over optree, in the ``"ftransforms"`` registry namespace.

Tuples, lists, dicts, namedtuples and ``None`` (an empty subtree) are containers; anything
else is a leaf unless registered with :func:`register_pytree_node`.

Example:
    >>> from ftransforms.pytree import tree_flatten
    >>> tree_flatten({"w": 1, "b": (2, None)})[0]
    [2, 1]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import optree

NAMESPACE = "ftransforms"

PyTreeSpec = optree.PyTreeSpec


def tree_flatten(tree: Any, none_is_leaf: bool = False) -> tuple[list[Any], PyTreeSpec]:
    """Leaves (in a fixed order) and the structure needed to rebuild ``tree``."""
    return optree.tree_flatten(tree, none_is_leaf=none_is_leaf, namespace=NAMESPACE)


def tree_flatten_with_path(tree: Any, none_is_leaf: bool = False):
    """``(paths, leaves, spec)``; a path is the tuple of keys leading to a leaf."""
    return optree.tree_flatten_with_path(tree, none_is_leaf=none_is_leaf, namespace=NAMESPACE)


def tree_unflatten(spec: PyTreeSpec, leaves: Iterable[Any]) -> Any:
    """Rebuild a tree of structure ``spec`` from ``leaves``."""
    return optree.tree_unflatten(spec, leaves)


def tree_map(fn: Callable[..., Any], tree: Any, *rest: Any) -> Any:
    """Apply ``fn`` to every leaf of ``tree`` and the matching subtrees of ``rest`` (trees
    that have ``tree``'s structure, or ``tree`` as a prefix); ``None`` is an empty subtree.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> params = {"w": np.array([1.0, -2.0]), "b": np.array([0.5])}
        >>> grads = ft.grad(lambda p: np.sum(p["w"] ** 2) + np.sum(p["b"]))(params)
        >>> ft.tree_map(lambda p, g: p - 0.1 * g, params, grads)  # one gradient step
        {'w': array([ 0.8, -1.6]), 'b': array([0.4])}
    """
    return optree.tree_map(fn, tree, *rest, namespace=NAMESPACE)


def tree_leaves(tree: Any) -> list[Any]:
    """The leaves of ``tree``, in :func:`tree_flatten`'s order (dict keys sorted; ``None``
    is no leaf).

    Example:
        >>> import numpy as np
        >>> from ftransforms import nn
        >>> nn.tree_leaves({"w": np.array([1.0, 2.0]), "b": (3.0, None)})
        [3.0, array([1., 2.])]
    """
    return optree.tree_leaves(tree, namespace=NAMESPACE)


def broadcast_prefix(prefix: Any, tree: Any) -> list[Any]:
    """The leaves of ``prefix`` repeated to match each leaf of ``tree`` (``None`` a leaf)."""
    return optree.broadcast_prefix(prefix, tree, none_is_leaf=True, namespace=NAMESPACE)


def register_pytree_node(
    cls: type,
    flatten_fn: Callable[[Any], tuple[Iterable[Any], Any]],
    unflatten_fn: Callable[[Any, Iterable[Any]], Any],
) -> type:
    """Make ``cls`` a container: ``flatten_fn(obj) -> (children, aux)``,
    ``unflatten_fn(aux, children) -> obj``.

    Example:
        >>> class Pair:
        ...     def __init__(self, a, b):
        ...         self.a, self.b = a, b
        >>> _ = register_pytree_node(Pair, lambda p: ((p.a, p.b), None),
        ...                          lambda aux, ch: Pair(*ch))
        >>> tree_leaves(Pair(1, 2))
        [1, 2]
    """
    return optree.register_pytree_node(cls, flatten_fn, unflatten_fn, namespace=NAMESPACE)


def path_str(path: tuple) -> str:
    """``('w', 0)`` -> ``"['w'][0]"``."""
    return "".join(f"[{k!r}]" for k in path)
