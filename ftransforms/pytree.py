"""Pytrees: a thin layer over optree, in the ``"ftransforms"`` registry namespace.

Tuples, lists, dicts, namedtuples and ``None`` (an empty subtree) are containers; anything
else is a leaf unless registered with :func:`register_pytree_node`.

Example:
    >>> from ftransforms.pytree import tree_flatten
    >>> tree_flatten({"w": 1, "b": (2, None)})[0]
    [2, 1]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

import numpy
import optree

from ftransforms.backend import namespace_of
from ftransforms.core.tracer import Tracer

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


def tree_map(
    fn: Callable[..., Any],
    tree: Any,
    *rest: Any,
    is_leaf: Callable[[Any], bool] | None = None,
) -> Any:
    """Apply ``fn`` to every leaf of ``tree`` and the matching subtrees of ``rest`` (trees
    that have ``tree``'s structure, or ``tree`` as a prefix); ``None`` is an empty subtree;
    ``is_leaf(x)`` true makes ``x`` a leaf (as ``jax.tree_util.tree_map``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> params = {"w": np.array([1.0, -2.0]), "b": np.array([0.5])}
        >>> grads = ft.grad(lambda p: np.sum(p["w"] ** 2) + np.sum(p["b"]))(params)
        >>> ft.tree_map(lambda p, g: p - 0.1 * g, params, grads)  # one gradient step
        {'w': array([ 0.8, -1.6]), 'b': array([0.4])}
    """
    return optree.tree_map(fn, tree, *rest, is_leaf=is_leaf, namespace=NAMESPACE)


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
    """The leaves of ``prefix`` repeated to match each leaf of ``tree`` (``None`` a leaf).

    Only ``tree``'s structure is looked at: optree's mismatch message would print its leaves,
    and printing a tracer reads its values (under vmap, a split of the batch).
    """
    leaves, spec = optree.tree_flatten(tree, none_is_leaf=True, namespace=NAMESPACE)
    if prefix is None or type(prefix) is int:
        return [prefix] * len(leaves)
    try:
        skeleton = spec.unflatten(range(len(leaves)))
    except Exception:  # noqa: BLE001 - a node of the user's whose rebuild checks its children
        skeleton = tree
    return optree.broadcast_prefix(prefix, skeleton, none_is_leaf=True, namespace=NAMESPACE)


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


def ravel_pytree(tree: Any) -> tuple[Any, Callable[[Any], Any]]:
    """``(flat, unravel)``: every leaf of ``tree`` raveled and concatenated into one 1-d
    array, and the function that rebuilds the tree from such an array (as
    ``jax.flatten_util.ravel_pytree``).

    The flat array has the leaves' dtypes promoted as JAX does (integers with a float
    type give that float type; Python numbers count as float64/int64).  ``unravel``
    casts each piece back to its leaf's dtype and works on tracers, so ``grad``,
    ``vmap`` and ``jit`` go through it; it checks what it gets: a 1-d array of the same
    length (``ValueError``) and dtype (``TypeError``), as JAX's does; when every leaf
    has one dtype, any dtype is accepted and kept (JAX's too: ``unravel(flat < 0)``).  An empty tree
    gives an empty float64 array.

    Example:
        >>> import numpy as np
        >>> flat, unravel = ravel_pytree({"w": np.ones((2, 2)), "b": np.zeros(2)})
        >>> flat.tolist()
        [0.0, 0.0, 1.0, 1.0, 1.0, 1.0]
        >>> unravel(flat * 2)["w"].tolist()
        [[2.0, 2.0], [2.0, 2.0]]
    """
    # On tracers, NumPy's protocols reach ``ftransforms.numpy`` (this module sits below
    # it); on arrays, their own namespace ``xp`` computes.
    leaves, spec = tree_flatten(tree)
    shapes = [
        numpy.shape(leaf) if not hasattr(leaf, "shape") else tuple(leaf.shape) for leaf in leaves
    ]
    dtypes = [_leaf_dtype(leaf) for leaf in leaves]
    sizes = [math.prod(s) for s in shapes]
    dtype = _promoted(leaves, dtypes)
    physical = [
        leaf._physical() if _is_tracer(leaf) else leaf for leaf in leaves if hasattr(leaf, "shape")
    ]
    xp = namespace_of(*physical) if physical else numpy
    pieces = [
        numpy.ravel(leaf).astype(dtype) if _is_tracer(leaf) else xp.asarray(leaf, dtype=dtype)
        for leaf in leaves
    ]
    pieces = [p if _is_tracer(p) else p.reshape(-1) for p in pieces]
    traced = [p for p in pieces if _is_tracer(p)]
    if traced:
        # NumPy's protocol, asked of a tracer directly: numpy.concatenate would ask the
        # first array type it meets, and a CuPy array refuses NumPy's functions.
        t = traced[0]
        flat = t.__array_function__(numpy.concatenate, (type(t),), (pieces,), {})
    else:
        flat = xp.concatenate(pieces) if pieces else xp.zeros(0, dtype=dtype)
    n = sum(sizes)
    # leaves of one dtype: unravel keeps the flat array's dtype, whatever it is (JAX's)
    one_dtype = len(set(dtypes)) == 1
    offsets = [0]
    for s in sizes:
        offsets.append(offsets[-1] + s)

    def unravel(arr: Any) -> Any:
        shape = tuple(arr.shape) if hasattr(arr, "shape") else numpy.shape(arr)
        if shape != (n,):
            raise ValueError(
                f"ravel_pytree's unravel(flat): expected a 1-d array of shape ({n},), got "
                f"shape {shape}; pass an array shaped like the flat array ravel_pytree "
                f"returned"
            )
        got = numpy.dtype(arr.dtype)
        if got != dtype and not one_dtype:
            raise TypeError(
                f"ravel_pytree's unravel(flat): got an array of dtype {got}, but expected "
                f"dtype {dtype} (the leaves have several dtypes); cast it with "
                f".astype({dtype}) first"
            )
        parts = []
        for i, (shp, dt) in enumerate(zip(shapes, dtypes)):
            piece = arr[offsets[i] : offsets[i + 1]].reshape(shp)
            if piece.dtype != dt and not one_dtype:
                if numpy.dtype(dt).kind != "c" and piece.dtype.kind == "c":
                    piece = piece.real  # JAX drops the imaginary part as well
                piece = piece.astype(dt)
            parts.append(piece)
        return tree_unflatten(spec, parts)

    return flat, unravel


def _is_tracer(leaf: Any) -> bool:
    return isinstance(leaf, Tracer)


def _promoted(leaves: list, dtypes: list) -> numpy.dtype:
    """JAX's promotion of the leaves' dtypes (Python numbers count as their default
    dtype, ``float64``, ``int64``, ...): NumPy's, except that integer or bool arrays with
    a float (complex) array give that float (complex) type, not a wider one (``int32``
    and ``float32`` give ``float32``)."""
    if not leaves:
        return numpy.dtype(numpy.float64)
    inexact = [d for d in dtypes if d.kind in "fc"]
    return numpy.result_type(*(inexact or dtypes))


def _leaf_dtype(leaf: Any) -> numpy.dtype:
    """A leaf's dtype; a Python number's is NumPy's default for it."""
    dt = getattr(leaf, "dtype", None)
    return numpy.dtype(dt) if dt is not None else numpy.result_type(leaf)
