"""JAX's ``jax.tree_util`` names over ftransforms' pytrees (optree, registry namespace
``"ftransforms"``): code written for JAX's tree utilities runs unchanged.

Containers are tuples, lists, dicts (keys sorted), namedtuples, ``None`` (a node with no
children, as in JAX) and the classes registered here; everything else is a leaf.  A
``PyTreeDef`` is optree's ``PyTreeSpec``: ``num_leaves``, ``num_nodes``,
``unflatten(leaves)``, ``flatten_up_to(tree)`` and ``children()`` work as JAX's do.
Key paths are tuples of :class:`DictKey`, :class:`SequenceKey`, :class:`GetAttrKey` and
:class:`FlattenedIndexKey`, as JAX's.

Example:
    >>> import numpy as np
    >>> from ftransforms import tree_util
    >>> leaves, treedef = tree_util.tree_flatten({"w": np.ones(2), "b": 0.5})
    >>> leaves[0], treedef.num_leaves
    (0.5, 2)
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

import optree

from ftransforms.pytree import NAMESPACE, register_pytree_node, tree_map

__all__ = [
    "DictKey",
    "FlattenedIndexKey",
    "GetAttrKey",
    "Partial",
    "SequenceKey",
    "all_leaves",
    "keystr",
    "register_pytree_node",
    "register_pytree_node_class",
    "tree_all",
    "tree_flatten",
    "tree_flatten_with_path",
    "tree_leaves",
    "tree_leaves_with_path",
    "tree_map",
    "tree_map_with_path",
    "tree_reduce",
    "tree_structure",
    "tree_transpose",
    "tree_unflatten",
    "treedef_children",
    "treedef_is_leaf",
]

#: The structure type (optree's ``PyTreeSpec``), for type hints; optree documents it.
PyTreeDef = optree.PyTreeSpec

IsLeaf = Callable[[Any], bool] | None


def tree_flatten(tree: Any, is_leaf: IsLeaf = None) -> tuple[list[Any], PyTreeDef]:
    """``(leaves, treedef)``: the leaves of ``tree`` in a fixed order (dict keys sorted,
    ``None`` no leaf) and its structure; ``is_leaf(x)`` true stops the descent at ``x``.

    Example:
        >>> import ftransforms as ft
        >>> leaves, treedef = ft.tree_flatten({"b": (1, None), "a": [2, 3]})
        >>> leaves, treedef.num_leaves
        ([2, 3, 1], 3)
        >>> ft.tree_flatten([(1, 2), 3], is_leaf=lambda x: isinstance(x, tuple))[0]
        [(1, 2), 3]
    """
    return optree.tree_flatten(tree, is_leaf, namespace=NAMESPACE)


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> Any:
    """The tree of structure ``treedef`` with ``leaves`` in :func:`tree_flatten`'s order.

    Example:
        >>> import ftransforms as ft
        >>> leaves, treedef = ft.tree_flatten({"a": 1, "b": (2, 3)})
        >>> ft.tree_unflatten(treedef, [x * 10 for x in leaves])
        {'a': 10, 'b': (20, 30)}
    """
    return optree.tree_unflatten(treedef, leaves)


def tree_leaves(tree: Any, is_leaf: IsLeaf = None) -> list[Any]:
    """The leaves of ``tree``, in :func:`tree_flatten`'s order.

    Example:
        >>> import ftransforms as ft
        >>> ft.tree_leaves({"w": [1, 2], "b": None, "a": 0})
        [0, 1, 2]
    """
    return optree.tree_leaves(tree, is_leaf, namespace=NAMESPACE)


def tree_structure(tree: Any, is_leaf: IsLeaf = None) -> PyTreeDef:
    """The structure of ``tree`` (its ``PyTreeDef``), leaves left out.

    Example:
        >>> import ftransforms as ft
        >>> treedef = ft.tree_structure({"w": [1, 2], "b": None})
        >>> treedef.num_leaves, treedef.unflatten([5, 6])["w"]
        (2, [5, 6])
    """
    return optree.tree_structure(tree, is_leaf, namespace=NAMESPACE)


def treedef_children(treedef: PyTreeDef) -> list[PyTreeDef]:
    """The structures of the root's children.

    Example:
        >>> import ftransforms as ft
        >>> [t.num_leaves for t in treedef_children(ft.tree_structure([1, (2, 3)]))]
        [1, 2]
    """
    return list(treedef.children())


def treedef_is_leaf(treedef: PyTreeDef) -> bool:
    """Whether ``treedef`` is a single node: a leaf, or a container with no children
    (``None``, ``()``), as JAX counts it.

    Example:
        >>> import ftransforms as ft
        >>> [treedef_is_leaf(ft.tree_structure(t)) for t in (1.0, None, (1.0,))]
        [True, True, False]
    """
    return treedef.num_nodes == 1


def all_leaves(iterable: Iterable[Any], is_leaf: IsLeaf = None) -> bool:
    """Whether every element of ``iterable`` is a leaf (``None`` is not one).

    Example:
        >>> all_leaves([1.0, "a"]), all_leaves([1.0, (2.0,)])
        (True, False)
    """
    return optree.all_leaves(iterable, is_leaf, namespace=NAMESPACE)


_NO_INITIALIZER = object()


def tree_reduce(
    function: Callable[[Any, Any], Any],
    tree: Any,
    initializer: Any = _NO_INITIALIZER,
    is_leaf: IsLeaf = None,
) -> Any:
    """``functools.reduce(function, tree_leaves(tree)[, initializer])``; an empty tree
    without ``initializer`` raises ``TypeError``, as ``functools.reduce`` does.

    Example:
        >>> import operator
        >>> import numpy as np
        >>> tree_reduce(operator.add, {"a": 1, "b": [2, 3]})
        6
        >>> tree_reduce(lambda n, x: n + np.size(x), [np.ones((2, 3)), 1.0], 0)
        7
    """
    leaves = tree_leaves(tree, is_leaf)
    if initializer is _NO_INITIALIZER:
        return functools.reduce(function, leaves)
    return functools.reduce(function, leaves, initializer)


def tree_all(tree: Any, *, is_leaf: IsLeaf = None) -> bool:
    """``all(tree_leaves(tree))``: true for a tree with no leaves.

    Example:
        >>> tree_all({"a": True, "b": [1, 2]}), tree_all([1, 0]), tree_all([None])
        (True, False, True)
    """
    return all(tree_leaves(tree, is_leaf))


def tree_transpose(
    outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None, pytree_to_transpose: Any
) -> Any:
    """Turn a tree of structure ``outer_treedef`` whose subtrees all have structure
    ``inner_treedef`` into a tree of ``inner_treedef`` whose subtrees have
    ``outer_treedef``; ``inner_treedef=None`` takes the first subtree's structure.

    Example:
        >>> import ftransforms as ft
        >>> pairs = [(1, "a"), (2, "b"), (3, "c")]
        >>> tree_transpose(ft.tree_structure([0, 0, 0]), None, pairs)
        ([1, 2, 3], ['a', 'b', 'c'])
    """
    if inner_treedef is None:
        inner_treedef = tree_structure(outer_treedef.flatten_up_to(pytree_to_transpose)[0])
    return optree.tree_transpose(outer_treedef, inner_treedef, pytree_to_transpose)


# -- key paths -------------------------------------------------------------------------


@dataclass(frozen=True)
class DictKey:
    """A dict entry on a key path; ``str`` gives ``"['a']"``.

    Example:
        >>> str(DictKey("a")), DictKey("a").key
        ("['a']", 'a')
    """

    key: Any

    def __str__(self) -> str:
        return f"[{self.key!r}]"


@dataclass(frozen=True)
class SequenceKey:
    """A tuple or list position on a key path; ``str`` gives ``"[0]"``.

    Example:
        >>> str(SequenceKey(0)), SequenceKey(0).idx
        ('[0]', 0)
    """

    idx: int

    def __str__(self) -> str:
        return f"[{self.idx!r}]"


@dataclass(frozen=True)
class GetAttrKey:
    """A namedtuple field or dataclass attribute on a key path; ``str`` gives ``".x"``.

    Example:
        >>> str(GetAttrKey("x")), GetAttrKey("x").name
        ('.x', 'x')
    """

    name: str

    def __str__(self) -> str:
        return f".{self.name}"


@dataclass(frozen=True)
class FlattenedIndexKey:
    """The position of a child of a registered class on a key path.

    Example:
        >>> str(FlattenedIndexKey(1)), FlattenedIndexKey(1).key
        ('[<flat index 1>]', 1)
    """

    key: int

    def __str__(self) -> str:
        return f"[<flat index {self.key}>]"


def _key(entry: optree.PyTreeEntry) -> Any:
    """JAX's key for one entry of an optree accessor."""
    if isinstance(entry, _KeyEntry):  # registered with keys: the key given
        return entry.entry
    if isinstance(entry, _FieldEntry):
        return GetAttrKey(entry.entry)
    if isinstance(entry, (optree.NamedTupleEntry, optree.StructSequenceEntry)):
        return GetAttrKey(entry.field)
    if isinstance(entry, optree.GetAttrEntry):
        return GetAttrKey(entry.name)
    if isinstance(entry, optree.MappingEntry):
        return DictKey(entry.key)
    if isinstance(entry, optree.SequenceEntry):
        return SequenceKey(entry.index)
    return FlattenedIndexKey(entry.entry)


def _key_path(accessor: optree.PyTreeAccessor) -> tuple:
    return tuple(_key(entry) for entry in accessor)


def keystr(keys: tuple, *, simple: bool = False, separator: str = "") -> str:
    """A key path as text: ``"['a'][0].x"``; ``simple=True`` gives the bare keys
    (``"a", "0", "x"``) joined with ``separator``.

    Example:
        >>> [(keystr(p), x) for p, x in tree_leaves_with_path({"a": [1, 2]})]
        [("['a'][0]", 1), ("['a'][1]", 2)]
        >>> keystr((DictKey("a"), SequenceKey(0)), simple=True, separator="/")
        'a/0'
    """
    if not simple:
        return separator.join(str(k) for k in keys)
    return separator.join(str(next(iter(vars(k).values()))) for k in keys)


def tree_flatten_with_path(
    tree: Any, is_leaf: IsLeaf = None
) -> tuple[list[tuple[tuple, Any]], PyTreeDef]:
    """``([(key_path, leaf), ...], treedef)``: :func:`tree_flatten` with each leaf's
    key path.

    Example:
        >>> pairs, treedef = tree_flatten_with_path({"w": [1.0], "b": 2.0})
        >>> [(keystr(p), x) for p, x in pairs]
        [("['b']", 2.0), ("['w'][0]", 1.0)]
    """
    accessors, leaves, treedef = optree.tree_flatten_with_accessor(
        tree, is_leaf, namespace=NAMESPACE
    )
    return [(_key_path(a), x) for a, x in zip(accessors, leaves)], treedef


def tree_leaves_with_path(tree: Any, is_leaf: IsLeaf = None) -> list[tuple[tuple, Any]]:
    """``[(key_path, leaf), ...]`` in :func:`tree_flatten`'s order.

    Example:
        >>> [(keystr(p), x) for p, x in tree_leaves_with_path([1, {"k": 2}])]
        [('[0]', 1), ("[1]['k']", 2)]
    """
    return tree_flatten_with_path(tree, is_leaf)[0]


def tree_map_with_path(f: Callable[..., Any], tree: Any, *rest: Any, is_leaf: IsLeaf = None) -> Any:
    """:func:`tree_map` whose ``f`` gets each leaf's key path first:
    ``f(key_path, leaf, *leaves_of_rest)``.

    Example:
        >>> tree_map_with_path(lambda p, x: f"{keystr(p)}={x}", {"a": 1, "b": (2,)})
        {'a': "['a']=1", 'b': ("['b'][0]=2",)}
    """
    return optree.tree_map_with_accessor(
        lambda accessor, *xs: f(_key_path(accessor), *xs),
        tree,
        *rest,
        is_leaf=is_leaf,
        namespace=NAMESPACE,
    )


# -- registration ----------------------------------------------------------------------


def register_pytree_node_class(cls: type) -> type:
    """Class decorator: ``cls`` is a container through its ``tree_flatten(self) ->
    (children, aux_data)`` method and ``tree_unflatten(cls, aux_data, children)``
    classmethod, as JAX's.

    Example:
        >>> import ftransforms as ft
        >>> @register_pytree_node_class
        ... class Point:
        ...     def __init__(self, x, y):
        ...         self.x, self.y = x, y
        ...     def tree_flatten(self):
        ...         return (self.x, self.y), None
        ...     @classmethod
        ...     def tree_unflatten(cls, aux_data, children):
        ...         return cls(*children)
        >>> ft.tree_map(lambda v: v * 2, Point(1, 2)).y
        4
    """
    return optree.register_pytree_node_class(cls, namespace=NAMESPACE)


class Partial(functools.partial):
    """``functools.partial`` that is a pytree: its leaves are the bound positional and
    keyword arguments, the function is part of its structure; so it can be passed to
    and returned from transformed functions (as JAX's ``Partial``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> scale = Partial(np.multiply, np.array([1.0, 2.0]))
        >>> ft.tree_leaves(scale)
        [array([1., 2.])]
        >>> ft.tree_map(lambda x: x * 10, scale)(np.ones(2))
        array([10., 20.])

    A ``functools.partial`` given as the function stays whole: its bound arguments are
    part of the structure, not leaves (as in JAX; ``functools.partial`` itself would
    merge them into this one's).
    """

    def __new__(cls, func: Callable, /, *args: Any, **keywords: Any) -> Partial:
        if isinstance(func, functools.partial):
            func = _WholePartial(func)
        return super().__new__(cls, func, *args, **keywords)


class _WholePartial:
    """A ``functools.partial`` seen as a plain callable, so that ``Partial`` does not
    merge its arguments; compares and hashes as the partial it holds."""

    __slots__ = ("partial",)

    def __init__(self, partial: functools.partial) -> None:
        self.partial = partial

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.partial(*args, **kwargs)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _WholePartial) and self.partial == other.partial

    def __hash__(self) -> int:
        return hash(self.partial)

    def __repr__(self) -> str:
        return repr(self.partial)


register_pytree_node(
    Partial,
    lambda p: ((p.args, p.keywords), p.func),
    lambda func, children: Partial(func, *children[0], **children[1]),
)


# -- registration with keys, dataclasses, static classes (round 9) -------------------------


class _KeyEntry(optree.GetItemEntry):
    """An optree path entry holding the JAX key object that registration gave a child;
    :func:`_key` hands that key back (so key paths show ``DictKey``/``GetAttrKey``...)."""


class _FieldEntry(optree.GetAttrEntry):
    """A dataclass field on a path: ``GetAttrKey(name)``, and ``getattr`` to follow it."""


def register_pytree_with_keys(
    nodetype: type,
    flatten_with_keys: Callable[[Any], tuple[Iterable[tuple[Any, Any]], Any]],
    unflatten_func: Callable[[Any, Iterable[Any]], Any],
    flatten_func: Callable[[Any], tuple[Iterable[Any], Any]] | None = None,
) -> type:
    """Make ``nodetype`` a container whose children carry keys:
    ``flatten_with_keys(obj) -> ([(key, child), ...], aux)`` with JAX's key objects
    (:class:`GetAttrKey`, :class:`DictKey`, ...), ``unflatten_func(aux, children) -> obj``
    (``jax.tree_util.register_pytree_with_keys``; ``flatten_func`` is accepted, the keyed
    flatten serves both).

    Example:
        >>> import ftransforms as ft
        >>> class Box:
        ...     def __init__(self, lo, hi):
        ...         self.lo, self.hi = lo, hi
        >>> _ = register_pytree_with_keys(
        ...     Box,
        ...     lambda b: (((GetAttrKey("lo"), b.lo), (GetAttrKey("hi"), b.hi)), None),
        ...     lambda aux, ch: Box(*ch),
        ... )
        >>> [keystr(p) for p, _ in tree_leaves_with_path(Box(0.0, 1.0))]
        ['.lo', '.hi']
        >>> float(ft.grad(lambda b: b.hi * b.lo)(Box(2.0, 3.0)).lo)
        3.0
    """

    def flatten(obj: Any) -> tuple[list, Any, list]:
        pairs, aux = flatten_with_keys(obj)
        pairs = list(pairs)
        return [c for _, c in pairs], aux, [k for k, _ in pairs]

    return optree.register_pytree_node(
        nodetype, flatten, unflatten_func, path_entry_type=_KeyEntry, namespace=NAMESPACE
    )


def register_pytree_with_keys_class(cls: type) -> type:
    """Class decorator: :func:`register_pytree_with_keys` with the class's
    ``tree_flatten_with_keys(self)`` method and ``tree_unflatten(cls, aux, children)``
    classmethod (``jax.tree_util.register_pytree_with_keys_class``).

    Example:
        >>> @register_pytree_with_keys_class
        ... class Pair:
        ...     def __init__(self, a, b):
        ...         self.a, self.b = a, b
        ...     def tree_flatten_with_keys(self):
        ...         return ((GetAttrKey("a"), self.a), (GetAttrKey("b"), self.b)), None
        ...     @classmethod
        ...     def tree_unflatten(cls, aux, children):
        ...         return cls(*children)
        >>> [keystr(p) for p, _ in tree_leaves_with_path(Pair(1, 2))]
        ['.a', '.b']
    """
    return register_pytree_with_keys(
        cls, lambda obj: obj.tree_flatten_with_keys(), cls.tree_unflatten
    )


def register_dataclass(
    nodetype: type,
    data_fields: Iterable[str] | None = None,
    meta_fields: Iterable[str] | None = None,
    drop_fields: Iterable[str] = (),
) -> type:
    """Make a dataclass a container: its ``data_fields`` are children (with
    :class:`GetAttrKey` paths), its ``meta_fields`` part of the structure (hashable,
    compared by ``==``).  Without the lists, the dataclass's fields decide: a field with
    ``metadata=dict(static=True)`` is a meta field, the others data fields
    (``jax.tree_util.register_dataclass``); usable as a decorator.

    Example:
        >>> import dataclasses
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> @register_dataclass
        ... @dataclasses.dataclass
        ... class Layer:
        ...     w: np.ndarray
        ...     b: np.ndarray
        ...     act: str = dataclasses.field(default="tanh", metadata=dict(static=True))
        >>> g = ft.grad(lambda p: np.tanh(p.w * 2.0 + p.b).sum())(Layer(np.zeros(2), np.zeros(2)))
        >>> g.w.tolist(), g.act
        ([2.0, 2.0], 'tanh')
        >>> [keystr(p) for p, _ in tree_leaves_with_path(g)]
        ['.w', '.b']
    """
    if data_fields is None and meta_fields is None:
        if not dataclasses.is_dataclass(nodetype):
            raise TypeError(
                f"register_dataclass({nodetype.__name__}): without data_fields and meta_fields "
                f"the class must be a dataclass; decorate it with @dataclasses.dataclass or "
                f"pass the field lists"
            )
        fields = [f for f in dataclasses.fields(nodetype) if f.init]
        data = [f.name for f in fields if not f.metadata.get("static", False)]
        meta = [f.name for f in fields if f.metadata.get("static", False)]
    else:
        data, meta = list(data_fields or ()), list(meta_fields or ())
    if dataclasses.is_dataclass(nodetype):
        init = {f.name for f in dataclasses.fields(nodetype) if f.init}
        missing = init - set(data) - set(meta) - set(drop_fields)
        if missing:
            raise TypeError(
                f"register_dataclass({nodetype.__name__}): the init fields {sorted(missing)} "
                f"are in neither data_fields nor meta_fields; list each (or in drop_fields)"
            )

    def flatten(obj: Any) -> tuple[list, tuple, list]:
        return [getattr(obj, n) for n in data], tuple(getattr(obj, n) for n in meta), data

    def unflatten(aux: tuple, children: Iterable[Any]) -> Any:
        return nodetype(**dict(zip(data, children)), **dict(zip(meta, aux)))

    return optree.register_pytree_node(
        nodetype, flatten, unflatten, path_entry_type=_FieldEntry, namespace=NAMESPACE
    )


def register_static(cls: type) -> type:
    """Make ``cls`` a container with no children: its instances are part of the
    structure, never leaves (hashable, compared by ``==``) (``jax.tree_util.register_static``).

    Example:
        >>> import ftransforms as ft
        >>> @register_static
        ... class Config:
        ...     def __init__(self, n):
        ...         self.n = n
        ...     def __hash__(self):
        ...         return hash(self.n)
        ...     def __eq__(self, other):
        ...         return isinstance(other, Config) and other.n == self.n
        >>> ft.tree_leaves({"cfg": Config(3), "x": 1.0})
        [1.0]
    """
    return optree.register_pytree_node(
        cls, lambda obj: ((), obj), lambda aux, _: aux, namespace=NAMESPACE
    )


def tree_broadcast(prefix_tree: Any, full_tree: Any, is_leaf: IsLeaf = None) -> Any:
    """``prefix_tree`` with each of its leaves repeated over the subtree of ``full_tree``
    at its place (``jax.tree_util.tree_broadcast``).

    Example:
        >>> tree_broadcast({"a": 0, "b": 1}, {"a": (1, 2), "b": [3]})
        {'a': (0, 0), 'b': [1]}
    """
    return optree.tree_broadcast_prefix(prefix_tree, full_tree, is_leaf, namespace=NAMESPACE)


def flatten_one_level(tree: Any) -> tuple[tuple[Any, ...], Any]:
    """``(children, aux_data)`` of the root of ``tree``; a leaf raises ``ValueError``
    (``jax.tree_util.flatten_one_level``).

    Example:
        >>> flatten_one_level({"b": 2, "a": 1})[0]
        (1, 2)
    """
    if optree.treespec_is_leaf(optree.tree_structure(tree, namespace=NAMESPACE)):
        raise ValueError(
            f"flatten_one_level: can't tree-flatten type {type(tree).__name__}: it is a leaf, "
            f"not a node (JAX's wording); pass a container or a registered pytree node"
        )
    out = optree.tree_flatten_one_level(tree, namespace=NAMESPACE)
    return tuple(out.children), out.metadata


__all__ += [
    "flatten_one_level",
    "register_dataclass",
    "register_pytree_with_keys",
    "register_pytree_with_keys_class",
    "register_static",
    "tree_broadcast",
]


# -- the leftovers of jax.tree_util: keys of one level, node types, associative reduce --------

#: A key of one step of a key path (:class:`DictKey`, :class:`SequenceKey`,
#: :class:`GetAttrKey`, :class:`FlattenedIndexKey` or a registered class's own key), for
#: type hints, as JAX's ``jax.tree_util.KeyEntry``.
KeyEntry = TypeVar("KeyEntry", bound=Any)
#: A key path, a tuple of :data:`KeyEntry` (``jax.tree_util.KeyPath``).
KeyPath = tuple[KeyEntry, ...]


def flatten_one_level_with_keys(tree: Any) -> tuple[tuple[tuple[Any, Any], ...], Any]:
    """``(((key, child), ...), aux_data)`` of the root of ``tree``, the keys those of
    :func:`tree_flatten_with_path`; a leaf raises ``ValueError``
    (``jax.tree_util.flatten_one_level_with_keys``).

    Example:
        >>> flatten_one_level_with_keys({"b": [2], "a": 1})[0]
        ((DictKey(key='a'), 1), (DictKey(key='b'), [2]))
    """
    children, aux = flatten_one_level(tree)
    # every node below the root is a leaf here: the root's children with their keys
    pairs = tree_flatten_with_path(tree, is_leaf=lambda node: node is not tree)[0]
    return tuple((path[0], child) for (path, _), child in zip(pairs, children)), aux


def is_tree_node(typ: type) -> bool:
    """Whether instances of ``typ`` are containers (built in, a namedtuple, or registered
    here), not leaves: ``jax.tree_util.is_tree_node``.

    Example:
        >>> import collections
        >>> is_tree_node(dict), is_tree_node(collections.namedtuple("P", "x")), is_tree_node(int)
        (True, True, False)
    """
    if not isinstance(typ, type):
        raise TypeError(f"is_tree_node(typ): expected a type, got {type(typ).__name__}")
    if optree.is_namedtuple_class(typ) or optree.is_structseq_class(typ):
        return True
    return optree.register_pytree_node.get(typ, namespace=NAMESPACE) is not None


def treedef_tuple(treedefs: Iterable[PyTreeDef]) -> PyTreeDef:
    """The structure of a tuple of trees of the structures ``treedefs``:
    ``jax.tree_util.treedef_tuple``.

    Example:
        >>> a, b = tree_structure([1, 2]), tree_structure({"k": 3})
        >>> treedef_tuple([a, b]) == tree_structure(([1, 2], {"k": 3}))
        True
    """
    return optree.treespec_tuple(list(treedefs), namespace=NAMESPACE)


class _NoIdentity:
    def __repr__(self) -> str:
        return "<no identity>"


_NO_IDENTITY = _NoIdentity()


def _halves(leaves: list, operation: Callable[[Any, Any], Any], identity: Any) -> Any:
    if not leaves:
        if identity is _NO_IDENTITY:
            raise TypeError(
                "tree_reduce_associative(operation, tree): the tree has no leaves; pass "
                "identity= for the value of an empty reduction"
            )
        return identity
    if len(leaves) == 1:
        return leaves[0]
    middle = len(leaves) // 2
    return operation(
        _halves(leaves[:middle], operation, identity),
        _halves(leaves[middle:], operation, identity),
    )


def tree_reduce_associative(
    operation: Callable[[Any, Any], Any],
    tree: Any,
    *,
    identity: Any = _NO_IDENTITY,
    is_leaf: IsLeaf = None,
) -> Any:
    """The leaves of ``tree`` combined with an associative ``operation`` as a balanced
    tree (each half reduced, then the two combined: the order JAX uses), so the depth is
    logarithmic; an empty tree gives ``identity`` (``TypeError`` without it):
    ``jax.tree_util.tree_reduce_associative`` (``jax.tree.reduce_associative``).

    Example:
        >>> import operator
        >>> tree_reduce_associative(operator.add, {"a": 1, "b": [2, 3]})
        6
        >>> tree_reduce_associative(lambda a, b: f"({a}{b})", [1, 2, 3, 4])
        '((12)(34))'
    """
    return _halves(tree_leaves(tree, is_leaf), operation, identity)


class PyTreeRegistry:
    """JAX's ``jax.tree_util.default_registry`` (its ``PyTreeRegistry``): the registry of
    container types that ``tree_flatten`` and the transforms use, with JAX's methods
    ``flatten``, ``flatten_one_level``, ``flatten_one_level_with_keys``,
    ``flatten_with_path``, ``is_node``, ``register_node`` and ``register_dataclass_node``.

    Example:
        >>> default_registry.flatten({"a": 1, "b": (2,)})[0]
        [1, 2]
        >>> default_registry.flatten_one_level(3) is None  # a leaf
        True
    """

    def flatten(self, tree: Any, leaf_predicate: IsLeaf = None) -> tuple[list, PyTreeDef]:
        return tree_flatten(tree, leaf_predicate)

    def flatten_with_path(self, tree: Any, leaf_predicate: IsLeaf = None) -> tuple:
        return tree_flatten_with_path(tree, leaf_predicate)

    def flatten_one_level(self, tree: Any) -> tuple | None:
        return flatten_one_level(tree) if is_tree_node(type(tree)) else None

    def flatten_one_level_with_keys(self, tree: Any) -> tuple | None:
        return flatten_one_level_with_keys(tree) if is_tree_node(type(tree)) else None

    def is_node(self, typ: type) -> bool:
        return is_tree_node(typ)

    def register_node(
        self,
        nodetype: type,
        to_iterable: Callable,
        from_iterable: Callable,
        to_iterable_with_keys: Callable | None = None,
    ) -> None:
        if to_iterable_with_keys is None:
            register_pytree_node(nodetype, to_iterable, from_iterable)
        else:
            register_pytree_with_keys(nodetype, to_iterable_with_keys, from_iterable, to_iterable)

    def register_dataclass_node(
        self, nodetype: type, data_fields: Iterable[str], meta_fields: Iterable[str], *_: Any
    ) -> None:
        register_dataclass(nodetype, data_fields, meta_fields)


#: The registry (see :class:`PyTreeRegistry`).
default_registry = PyTreeRegistry()

__all__ += [
    "default_registry",
    "flatten_one_level_with_keys",
    "is_tree_node",
    "tree_reduce_associative",
    "treedef_tuple",
]
