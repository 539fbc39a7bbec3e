"""Checking and naming the arguments of the transforms: the names used in error messages,
``argnums``, ``in_dims``/``out_dims`` per leaf, ``randomness``/``chunk_size``, the inputs
a derivative needs and the outputs ``grad`` accepts.  Every check raises the specific
exception of ``ftransforms.errors`` whose message starts with the call form and names the
fix; ``ftransforms/api.py`` holds the transforms themselves.

Example:
    >>> from ftransforms.arguments import normalize_argnums
    >>> normalize_argnums((0, 2), 3, "grad(f)")
    ((0, 2), False)
"""

from __future__ import annotations

import collections
import inspect
from collections.abc import Callable
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.aliased_arguments import alias_plan, link
from ftransforms.backend import is_array
from ftransforms.boundary import transform_inputs
from ftransforms.core.errors import (
    ArgnumsError,
    AuxError,
    ChunkSizeError,
    DaskArrayError,
    EscapedTracerError,
    GradOutputError,
    InDimsError,
    NonDifferentiableInputError,
    NotAnArrayError,
    OutDimsError,
    RandomnessError,
    TangentMismatchError,
    UnsupportedOperationError,
)
from ftransforms.core.mutation import Buffer, mutable
from ftransforms.core.tracer import Tracer, note_stored
from ftransforms.numpy.helpers import dtype_of
from ftransforms.pytree import (
    broadcast_prefix,
    path_str,
    tree_flatten,
    tree_flatten_with_path,
    tree_unflatten,
)


def fname(func: Callable) -> str:
    name = getattr(func, "__name__", None)
    if not name:  # a primitive used as a function (fnp.sin) is named by its .name
        name = getattr(func, "name", None)
    return name if isinstance(name, str) and name else type(func).__name__


def arg_names(func: Callable, n: int) -> list[str]:
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        params = []
    names = []
    for i in range(n):
        if i < len(params) and params[i].kind in (
            inspect.Parameter.POSITIONAL_ONLY,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
        ):
            names.append(params[i].name)
        else:
            names.append(f"args[{i}]")
    return names


def leaf_names(func: Callable, args: tuple) -> list[str]:
    names = arg_names(func, len(args))
    paths, _, _ = tree_flatten_with_path(args, none_is_leaf=True)
    return [names[p[0]] + path_str(p[1:]) for p in paths]


class LazyNames:
    """Names of the leaves of ``args`` for error messages, computed on first use only
    (``inspect.signature`` is too slow for every call)."""

    def __init__(self, func: Callable, args: tuple, leaves: bool = True) -> None:
        self._func, self._args, self._leaves, self._names = func, args, leaves, None

    def __getitem__(self, i: int) -> str:
        if self._names is None:
            if self._leaves:
                self._names = leaf_names(self._func, self._args)
            else:
                self._names = arg_names(self._func, len(self._args))
        return self._names[i]


def check_callable(func: Any, transform: str, usage: str = "") -> None:
    """A transform is given the function to transform (JAX checks it on the spot too)."""
    if not callable(func):
        raise TypeError(
            f"{transform}({type(func).__name__}): expected a function to transform, got "
            f"{func!r:.60}; write {usage or transform + '(f)(x)'} with f a function (a "
            f"lambda) of the arguments"
        )


def check_reduce_axes(reduce_axes: Any, where: str) -> None:
    """JAX's ``reduce_axes`` (deprecated there): accepted when empty, refused otherwise,
    as JAX refuses it."""
    if reduce_axes:
        raise UnsupportedOperationError(
            f"{where}: reduce_axes={reduce_axes!r} is not supported (JAX deprecated it and "
            f"refuses it too); sum over the named axis inside the function (ft.lax.psum), "
            f"and leave reduce_axes out"
        )


def check_live(value: Any, where: str) -> None:
    if isinstance(value, Tracer) and not value._interp.active:
        raise EscapedTracerError(
            f"{where}: the function returned a tracer of {value._interp.name}, which had "
            f"already returned (an escaped tracer).  Return values computed inside the "
            f"transform that created them."
        )


def as_plain(value: Any) -> Any:
    """Turn NumPy scalars (from reductions) into 0-d arrays; leave everything else."""
    if isinstance(value, numpy.generic):
        return numpy.asarray(value)
    return value


def is_dask(value: Any) -> bool:
    """A dask collection, recognized by its type's module: the core never imports dask."""
    return type(value).__module__.startswith("dask")


def dask_error(where: str, what: Any) -> DaskArrayError:
    what = what() if callable(what) else what
    return DaskArrayError(
        f"{where}: {what} is a lazy dask array, but this transform runs on in-memory "
        f"NumPy/CuPy arrays; map over dask arrays with ftransforms.distributed (fd.vmap, "
        f"fd.map_reduce, fd.jacrev, fd.hessian), or pass x.compute()"
    )


def to_array(value: Any, where: str, what: Any) -> Any:
    """``value`` as an array (Python numbers become 0-d arrays); ``what`` names it in the
    error, and may be a zero-argument callable so that the name is only made on error."""
    if isinstance(value, numpy.matrix):
        what = what() if callable(what) else what
        raise NotAnArrayError(
            f"{where}: {what} is a numpy.matrix, whose * is a matrix product where an "
            f"array's is elementwise, so the traced values inside (arrays) would compute "
            f"other products; pass np.asarray(m) and write @ for the matrix products"
        )
    if isinstance(value, Tracer) or is_array(value):
        return value
    if isinstance(value, (bool, int, float, complex, numpy.generic)):
        return numpy.asarray(value)
    if is_dask(value):
        raise dask_error(where, what)
    what = what() if callable(what) else what
    raise NotAnArrayError(
        f"{where}: {what} must be an array or a Python number, got {type(value).__name__}; "
        f"pass numpy/cupy arrays (or pytrees of them)"
    )


def is_inexact(x: Any) -> bool:
    return dtype_of(x).kind in "fc"


def check_holomorphic_inputs(tree: Any, where: str, name: Callable[[], str]) -> None:
    """With ``holomorphic=True`` every differentiated leaf must be complex (as in JAX)."""
    paths, leaves, _ = tree_flatten_with_path(tree)
    for path, leaf in zip(paths, leaves):
        dt = dtype_of(to_array(leaf, where, lambda: f"{name()}{path_str(path)}"))
        if dt.kind != "c":
            raise NonDifferentiableInputError(
                f"{where}: {_transform(where)} with holomorphic=True requires inputs with "
                f"complex dtype, but got {dt} ({name()}{path_str(path)}): holomorphic=True "
                f"needs complex inputs; pass it as complex (x.astype(np.complex128)), or drop "
                f"holomorphic=True to differentiate a real input"
            )


def check_holomorphic_outputs(leaves: list, where: str) -> None:
    """With ``holomorphic=True`` every output leaf must be complex (as in JAX)."""
    for k, leaf in enumerate(leaves):
        dt = dtype_of(leaf)
        if dt.kind != "c":
            what = "the output" if len(leaves) == 1 else f"output leaf {k}"
            raise GradOutputError(
                f"{where}: {_transform(where)} with holomorphic=True requires outputs with "
                f"complex dtype, but got {dt} ({what}): holomorphic=True needs complex "
                f"outputs; return a complex value (out.astype(np.complex128)), or drop "
                f"holomorphic=True to differentiate a real output"
            )


def _transform(where: str) -> str:
    """``grad`` of ``grad(f, holomorphic=True)``: messages carry JAX's sentence too."""
    return where.split("(", 1)[0]


def structure_str(tree: Any = None, spec: Any = None, none_is_leaf: bool = False) -> str:
    """A pytree's structure for messages, leaves as ``*``: ``({'a': *}, *)``."""
    if spec is None:
        spec = tree_flatten(tree, none_is_leaf=none_is_leaf)[1]
    s = repr(spec).split(", namespace=")[0].removesuffix(")").removesuffix(", NoneIsLeaf")
    return s.removeprefix("PyTreeSpec(")


def check_pair(out: Any, where: str) -> tuple[Any, Any]:
    if not (isinstance(out, tuple) and len(out) == 2):
        if isinstance(out, tuple):
            got = f"a tuple of length {len(out)}"
        elif isinstance(out, Tracer) or is_array(out):
            got = f"a single array of shape {fnp.shape(out)}"
        else:
            got = type(out).__name__
        raise AuxError(
            f"{where}: has_aux=True requires the function to return a pair (output, aux) "
            f"(a two-element tuple), got {got}; return (output, aux) or drop has_aux"
        )
    return out


def normalize_argnums(argnums: Any, nargs: int, where: str) -> tuple[tuple[int, ...], bool]:
    """(argnums as non-negative ints, whether the user gave a single int)."""
    if type(argnums) is int and 0 <= argnums < nargs:  # the common case, checked fast
        return (argnums,), True
    single = isinstance(argnums, (int, numpy.integer)) and not isinstance(argnums, bool)
    nums = (argnums,) if single else argnums
    if (
        not isinstance(nums, tuple)
        or not nums
        or not all(isinstance(i, (int, numpy.integer)) and not isinstance(i, bool) for i in nums)
    ):
        raise ArgnumsError(
            f"{where}: argnums must be an int or a non-empty tuple of ints, got {argnums!r}"
        )
    out = []
    for i in nums:
        if not -nargs <= i < nargs:
            raise ArgnumsError(
                f"{where}: argnums={argnums!r} is out of range: the function got {nargs} "
                f"positional argument(s); argnums counts from 0 (negative counts from the end)"
            )
        out.append(int(i) % nargs)
    if len(set(out)) != len(out):
        raise ArgnumsError(f"{where}: argnums={argnums!r} has duplicates; list each once")
    return tuple(out), single


_SCALARS = frozenset({int, float, complex, bool, str, type(None)})


def replace_args(
    args: tuple,
    argnums: tuple[int, ...],
    values: tuple,
    where: str = "",
    func: Any = None,
    kept: list | None = None,
) -> tuple:
    """``args`` with ``values`` at ``argnums``; the other arguments' NumPy arrays as buffers
    that the function may write into (NOTE [mutation semantics] in core/mutation.py), and
    made views of each other where they alias in the caller (NOTE [aliased arguments]).
    With ``kept``, their lists and dicts are the caller's own, their arrays swapped for
    buffers until :func:`put_back` (NOTE [writes into argument containers])."""
    new = [
        a if type(a) in _SCALARS or i in argnums else mutable_tree(a, kept, (i,))
        for i, a in enumerate(args)
    ]
    for i, v in zip(argnums, values):
        new[i] = v
    if len(args) > 1 and len(argnums) < len(args):  # (the differentiated ones: _vjp, jvp)
        if all(type(a) in LEAF_TYPES or isinstance(a, Tracer) for a in args):
            aliases = alias_plan(args)  # every argument a leaf: no flattening
            if aliases is not None:
                return tuple(link(aliases, new, where, lambda: LazyNames(func, args)))
            return tuple(new)
        originals, spec = tree_flatten(args, none_is_leaf=True)
        aliases = alias_plan(originals)
        if aliases is not None:
            wrapped = tree_flatten(tuple(new), none_is_leaf=True)[0]
            linked = link(aliases, wrapped, where, lambda: LazyNames(func, args))
            if kept is None:
                return tuple(tree_unflatten(spec, linked))
            relinked = {id(a): b for a, b in zip(wrapped, linked) if a is not b}
            seen: set = set()
            relink = lambda v: relinked.get(id(v), v)  # noqa: E731
            return tuple(_swap(a, relink, kept, seen, (i,)) for i, a in enumerate(new))
    return tuple(new)


# NOTE [writes into argument containers]: an argument that is not transformed (grad's
# other arguments, keyword arguments) is the caller's object, as in eager NumPy and
# jax.grad: the function's Python-level changes to its lists and dicts (``s["count"] += 1``,
# ``log.append(v)``, ``s["lr"] = 0.1``) are the caller's.  Only their NumPy arrays are
# swapped, in place, for buffers (NOTE [mutation semantics]), and :func:`put_back` swaps
# them back when the function returns (raises included), so a write into such an array
# still leaves the caller's array alone; a buffer the function stored there becomes its
# plain array, and a traced value stored there stays a tracer, which raises
# EscapedTracerError when used after the transform (as JAX's leaked tracer does), the
# message naming its place (``s['last']``: core/tracer.py's ``note_stored``).
# Tuples and namedtuples (immutable) are rebuilt around the caller's lists and dicts; an
# object of a registered pytree class (a dataclass) is the caller's, its ``__dict__``
# swapped as a dict (``self.step += 1`` reaches the caller, as under jax.grad); other
# pytree nodes (a deque, a class with __slots__) are rebuilt.
# vmap's ``in_dims=None`` arguments are rebuilt (``kept`` None), as jax.vmap and
# torch.func.vmap flatten every argument; an object that is a pytree leaf is passed as is.


def mutable_tree(tree: Any, kept: list | None = None, path: tuple = ()) -> Any:
    """An argument the transform does not transform (``grad``'s other arguments, keyword
    arguments) as the function gets it: a NumPy array as a buffer (:func:`mutable`).  With
    ``kept``, its lists and dicts are the caller's, with their arrays swapped for buffers
    until :func:`put_back`; without, a container holding an array is rebuilt with its
    arrays as buffers (NOTE [writes into argument containers])."""
    if type(tree) in LEAF_TYPES or isinstance(tree, Tracer):
        return _mutable_leaf(tree)
    if type(tree) in _SCALARS:
        return tree
    if kept is not None:
        return _swap(tree, _passed_leaf, kept, set(), path)
    return _rebuilt(tree)


def passed_inputs(args: tuple, argnums: tuple[int, ...]) -> tuple:
    """``transform_inputs(args)`` but for the containers among the arguments not in
    ``argnums``, which stay the caller's (:func:`mutable_tree` with ``kept`` converts their
    leaves; NOTE [writes into argument containers]): an enclosing transform's buffers in
    them (hessian's jacrev inside jacfwd) are no reason to copy them."""
    new = transform_inputs(args)
    if new is args:
        return args
    return tuple(
        n if i in argnums or type(a) in LEAF_TYPES or isinstance(a, Tracer) else a
        for i, (a, n) in enumerate(zip(args, new))
    )


def _passed_leaf(v: Any) -> Any:
    if type(v) is numpy.ndarray and v.dtype.kind == "O":  # np.array([t, 1.0])
        v = transform_inputs(v)
    return _mutable_leaf(v)


def _rebuilt(tree: Any) -> Any:
    kind = type(tree)
    if kind is tuple or kind is list:  # the common (X, y): no flattening
        if all(type(v) in LEAF_TYPES or type(v) in _SCALARS for v in tree):
            if not any(type(v) in (numpy.ndarray, Buffer) for v in tree):
                return tree
            return kind(_mutable_leaf(v) if type(v) in LEAF_TYPES else v for v in tree)
    leaves, spec = tree_flatten(tree, none_is_leaf=True)
    if spec.is_leaf() or not any(type(v) in (numpy.ndarray, Buffer) for v in leaves):
        return tree
    return tree_unflatten(spec, [_mutable_leaf(v) for v in leaves])


_IN_PLACE = frozenset({dict, list, collections.OrderedDict, collections.defaultdict})


def _swap(tree: Any, leaf: Callable, kept: list, seen: set, path: tuple) -> Any:
    """``tree`` with ``leaf`` applied to its leaves: in place in its lists and dicts (each
    recorded in ``kept`` with the ``(old, new)`` values it swapped), tuples rebuilt."""
    kind = type(tree)
    if kind in LEAF_TYPES or isinstance(tree, Tracer):
        return leaf(tree)
    if kind in _SCALARS:
        return tree
    if kind in _IN_PLACE:
        if id(tree) in seen:  # the same list twice (or inside itself): swapped once
            return tree
        seen.add(id(tree))
        swaps = []
        for k, v in list(tree.items() if isinstance(tree, dict) else enumerate(tree)):
            n = _swap(v, leaf, kept, seen, (*path, k))
            if n is not v:
                tree[k] = n
                swaps.append((v, n))
        kept.append((tree, swaps, path))
        return tree
    if isinstance(tree, tuple) and (kind is tuple or hasattr(kind, "_fields")):
        new = [_swap(v, leaf, kept, seen, (*path, i)) for i, v in enumerate(tree)]
        if all(a is b for a, b in zip(new, tree)):
            return tree
        return tuple(new) if kind is tuple else kind._make(new)  # (a namedtuple)
    attrs = getattr(tree, "__dict__", None)
    if type(attrs) is dict and not tree_flatten(tree, none_is_leaf=True)[1].is_leaf():
        _swap(
            attrs, leaf, kept, seen, (*path, _ATTRIBUTES)
        )  # a registered class (a dataclass): its attributes
        return tree
    return _rebuilt(tree) if leaf is _passed_leaf else tree


def put_back(kept: list, names: Callable[[], list[str]]) -> None:
    """Undo :func:`_swap` in the caller's lists and dicts, keeping the function's other
    changes; a tracer the function stored there is noted for the escaped-tracer error,
    with its place (``names``: the arguments' names; NOTE [writes into argument
    containers])."""
    back = {id(new): old for _, swaps, _ in kept for old, new in swaps}
    for container, _, path in kept:
        items = container.items() if isinstance(container, dict) else enumerate(container)
        for k, v in list(items):
            if id(v) in back:
                while id(v) in back:
                    v = back[id(v)]
                container[k] = v
            elif type(v) is Buffer:  # an array made in the function: the plain array
                container[k] = v.val
            elif isinstance(v, Tracer):
                note_stored(v, lambda p=(*path, k): _place(p, names))


_ATTRIBUTES = object()  # in a path: the next key is an attribute's name


def _place(path: tuple, names: Callable[[], list[str]]) -> str:
    """``s['last']`` for the path ``(1, 'last')`` of ``f(x, s)``."""
    head = names()[path[0]] if type(path[0]) is int else path[0]
    out, attribute = [head], False
    for key in path[1:]:
        if key is _ATTRIBUTES:
            attribute = True
            continue
        out.append(f".{key}" if attribute else f"[{key!r}]")
        attribute = False
    return "".join(out)


def call_passing(
    func: Callable, args: tuple, argnums: tuple, values: tuple, kwargs: dict, where: str
) -> Any:
    """``func`` called with ``values`` at ``argnums`` and the caller's other arguments
    (NOTE [writes into argument containers])."""
    kept: list = []
    try:
        return func(
            *replace_args(args, argnums, values, where, func, kept),
            **mutable_kwargs(kwargs, kept),
        )
    finally:
        if kept:
            put_back(kept, lambda: arg_names(func, len(args)))


def _mutable_leaf(v: Any) -> Any:
    # a buffer of an enclosing transform (hessian's inner jacrev): a new buffer over its
    # array, never that array itself (which may be the caller's)
    return mutable(v.val if type(v) is Buffer else v)


def mutable_kwargs(kwargs: dict, kept: list | None = None) -> dict:
    """The keyword arguments a transformed function gets (:func:`mutable_tree`)."""
    if not kwargs:
        return kwargs
    return {k: v if type(v) in _SCALARS else mutable_tree(v, kept, (k,)) for k, v in kwargs.items()}


RANDOMNESS = ("error", "different", "same")


def check_randomness(randomness: Any, where: str, hint: str = "") -> None:
    if not isinstance(randomness, str) or randomness not in RANDOMNESS:
        raise RandomnessError(
            f"{where}: randomness must be one of 'error' (drawing random numbers raises), "
            f"'different' (independent draws per batch element) or 'same' (one draw shared "
            f"by the batch), got {randomness!r}{hint}"
        )


def check_chunk_size(chunk_size: Any, where: str) -> None:
    if chunk_size is not None and (
        not isinstance(chunk_size, (int, numpy.integer))
        or isinstance(chunk_size, bool)
        or chunk_size < 1
    ):
        raise ChunkSizeError(
            f"{where}: chunk_size must be None or a positive int, got {chunk_size!r}; use "
            f"chunk_size=None to run the whole batch at once"
        )


class _Unset:
    """The default of an optional alias argument: tells "not given" apart from ``None``."""

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()


def jax_axes(
    name: str, in_dims: Any, out_dims: Any, in_axes: Any, out_axes: Any, axis_size: Any
) -> tuple[Any, Any]:
    """``(in_dims, out_dims)`` from vmap's torch.func names or JAX's ``in_axes``/``out_axes``
    (one name each, not both), after checking JAX's ``axis_size``."""
    if in_axes is not UNSET:
        if not (type(in_dims) is int and in_dims == 0):
            raise InDimsError(
                f"vmap({name}): in_dims={in_dims!r} and in_axes={in_axes!r} both given; they "
                f"are the same argument (torch.func's and JAX's name): pass one"
            )
        in_dims = in_axes
    if out_axes is not UNSET:
        if not (type(out_dims) is int and out_dims == 0):
            raise OutDimsError(
                f"vmap({name}): out_dims={out_dims!r} and out_axes={out_axes!r} both given; "
                f"they are the same argument (torch.func's and JAX's name): pass one"
            )
        out_dims = out_axes
    if axis_size is not None and (
        not isinstance(axis_size, (int, numpy.integer))
        or isinstance(axis_size, bool)
        or axis_size < 0
    ):
        raise InDimsError(
            f"vmap({name}, axis_size={axis_size!r}): axis_size must be None or a "
            f"non-negative int, the size of the batch axis"
        )
    return in_dims, out_dims


def in_dims_per_leaf(in_dims: Any, args: tuple, leaves: list) -> list:
    """One in_dim per argument leaf.  Fast path: every argument is itself a leaf (an
    array, tracer, scalar or None) and ``in_dims`` is an int/None or one entry each."""
    if len(leaves) == len(args) and all(
        type(a) in LEAF_TYPES or isinstance(a, Tracer) for a in args
    ):
        if in_dims is None or type(in_dims) is int:
            return [in_dims] * len(args)
        if type(in_dims) is tuple and all(d is None or type(d) is int for d in in_dims):
            return list(in_dims)
    return broadcast_prefix(in_dims, args)


#: Types that optree flattens to a single leaf (with ``none_is_leaf=True``).
LEAF_TYPES = frozenset(
    {numpy.ndarray, float, int, bool, complex, type(None), numpy.float32, numpy.float64}
)


def check_none_arg(func, in_dims, args, i, d, where):
    """An int in_dim given explicitly (not broadcast from a prefix) for a None argument."""
    if not isinstance(in_dims, (tuple, dict)):
        return
    path = tree_flatten_with_path(args, none_is_leaf=True)[0][i]
    in_paths, in_leaves, _ = tree_flatten_with_path(in_dims, none_is_leaf=True)
    if path in in_paths and in_leaves[in_paths.index(path)] is not None:
        raise InDimsError(
            f"{where}: {leaf_names(func, args)[i]} is None, which has no axis {d} to map "
            f"over; give it in_dim None"
        )


def out_dims_per_leaf(out_dims, out, where):
    """One out_dim per leaf of ``out`` (``None`` outputs have no leaf and get none)."""
    if isinstance(out_dims, list):
        out_dims = tuple(out_dims)
    if isinstance(out_dims, tuple) and not isinstance(out, tuple) and len(out_dims) == 1:
        out_dims = out_dims[0]
    if type(out_dims) is int and (type(out) in LEAF_TYPES or isinstance(out, Tracer)):
        return [] if out is None else [out_dims]  # one output leaf: the common case
    try:
        dims = broadcast_prefix(out_dims, out)
    except ValueError:
        raise OutDimsError(
            f"{where}: out_dims={out_dims!r} does not match the structure of the outputs: "
            f"out_dims is {structure_str(out_dims, none_is_leaf=True)} but the function "
            f"returned {structure_str(out)}; give an int/None per output, or a pytree with the "
            f"outputs' structure"
        ) from None
    # broadcast_prefix counts None outputs as leaves; tree_flatten does not: drop theirs.
    return [d for d, leaf in zip(dims, tree_flatten(out, none_is_leaf=True)[0]) if leaf is not None]


def check_like(t, ref, where, what, ref_what):
    """``t`` as an array of ``ref``'s shape and dtype, or a TangentMismatchError."""
    t = to_array(t, where, what)
    if fnp.shape(t) == fnp.shape(ref) and dtype_of(t) == dtype_of(ref):
        return t
    what = what() if callable(what) else what
    if fnp.shape(t) != fnp.shape(ref):
        raise TangentMismatchError(
            f"{where}: {what} has shape {fnp.shape(t)} but the {ref_what} has shape "
            f"{fnp.shape(ref)}; they must match"
        )
    td, rd = dtype_of(t), dtype_of(ref)
    if td != rd:
        raise TangentMismatchError(
            f"{where}: {what} has dtype {td} but the {ref_what} has dtype {rd}; cast it "
            f"with .astype({rd.name!r})"
        )
    return t


def check_shape(t, ref, where, what, ref_what):
    """``t`` as an array of ``ref``'s shape (any dtype: the cotangent of an integer
    output, which carries no derivative), or a TangentMismatchError."""
    t = to_array(t, where, what)
    if fnp.shape(t) != fnp.shape(ref):
        raise TangentMismatchError(
            f"{where}: {what} has shape {fnp.shape(t)} but the {ref_what} has shape "
            f"{fnp.shape(ref)}; they must match"
        )
    return t


def check_zero_tangent(t, ref, where, what, ref_what):
    """The tangent ``t`` of an integer/bool ``ref``, which has no derivative: zeros of its
    shape (any dtype, JAX's ``float0`` too), or a TangentMismatchError; a nonzero one
    would be dropped without a word (JAX refuses it too)."""
    t = to_array(t, where, what)
    what = what() if callable(what) else what
    if fnp.shape(t) != fnp.shape(ref):
        raise TangentMismatchError(
            f"{where}: {what} has shape {fnp.shape(t)} but the {ref_what} has shape "
            f"{fnp.shape(ref)}; they must match"
        )
    # a traced tangent (jvp inside vmap or jit) is checked by its value too: under vmap
    # the rows that hold a nonzero one raise, as a loop over the rows would
    if dtype_of(t) != FLOAT0 and bool(fnp.any(t != 0)):
        raise TangentMismatchError(
            f"{where}: {what} is nonzero but the {ref_what} is an integer/bool input "
            f"(dtype {dtype_of(ref)}), which has no derivative to go along it; pass the "
            f"{ref_what} as float (e.g. .astype(np.float64)) to differentiate along it, or "
            f"give zeros as its tangent"
        )
    return t


def check_differentiable(arg, where, name):
    """Refuse integer/bool leaves; ``name()`` gives the argument's name.  Complex inputs are
    fine: see NOTE [complex derivatives] in ops/elementwise.py."""
    if type(arg) is numpy.ndarray and arg.dtype.kind in "fc":
        return  # the common case, checked without flattening
    paths, leaves, _ = tree_flatten_with_path(arg)
    for path, leaf in zip(paths, leaves):
        if type(leaf) is numpy.ndarray and leaf.dtype.kind == "f":
            continue
        dt = dtype_of(leaf) if (isinstance(leaf, Tracer) or hasattr(leaf, "dtype")) else None
        if isinstance(leaf, (bool, int)) or (dt is not None and dt.kind in "biu"):
            kind = type(leaf).__name__ if dt is None else f"dtype {dt}"
            got = numpy.result_type(leaf) if dt is None else dt
            # JAX's sentence: jacfwd's says np.floating (complex needs holomorphic=True)
            wanted = (
                "real-valued inputs (input dtype that is a sub-dtype of np.floating)"
                if _transform(where) == "jacfwd"
                else "real- or complex-valued inputs (input dtype that is a sub-dtype of "
                "np.inexact)"
            )
            raise NonDifferentiableInputError(
                f"{where}: {_transform(where)} requires {wanted}, but got {got}: "
                f"{name()}{path_str(path)} is an integer/bool input ({kind}); "
                f"differentiation needs floating-point inputs: pass it as float (e.g. "
                f"x.astype(np.float32)), or leave it out of argnums"
            )


#: JAX's ``float0``: the dtype of the gradient of an integer input under ``allow_int=True``
#: (a structured dtype of zero-byte items, which no arithmetic accepts).
FLOAT0 = numpy.dtype([("float0", "V")])


def float0_zeros(x: Any) -> Any:
    """The ``allow_int`` gradient of ``x``: zeros of dtype :data:`FLOAT0` for integer/bool
    inputs (as JAX), zeros like ``x`` otherwise."""
    if dtype_of(x).kind in "biu":
        return numpy.zeros(fnp.shape(x), dtype=FLOAT0)
    return as_plain(fnp.zeros_like(x))


def check_scalar_output(value, where, holomorphic=False):
    if type(value) is not numpy.ndarray and is_dask(value):
        raise dask_error(where, "the output (computed from a dask argument)")
    s = fnp.shape(value)
    dt = dtype_of(value)
    if s != ():
        raise GradOutputError(
            f"{where}: the output must be a {'complex' if holomorphic else 'real'} scalar, got "
            f"shape {s}; reduce it with .sum() (or .mean()), or use jacrev for the full Jacobian"
        )
    if holomorphic:
        check_holomorphic_outputs([value], where)
        return
    if dt.kind == "c":
        raise GradOutputError(
            f"{where}: grad requires real-valued outputs (output dtype that is a sub-dtype of "
            f"np.floating), but got {dt}: the output is complex; grad needs a real scalar: "
            f"take .real, abs(...) or abs(...)**2 of it, or pass holomorphic=True if func is "
            f"holomorphic"
        )
    if dt.kind not in "f":
        raise GradOutputError(
            f"{where}: grad requires real-valued outputs (output dtype that is a sub-dtype of "
            f"np.floating), but got {dt}: the output has dtype {dt}; grad needs a "
            f"floating-point scalar output (an integer output has no derivative)"
        )
