"""``jit``: record a (transformed) function's backend calls once per input signature and
replay them as a flat program, with no tracers and no rules.

Example:
    >>> import numpy as np
    >>> from ftransforms import grad, jit, vmap
    >>> f = jit(vmap(grad(lambda x: np.sum(np.tanh(x) ** 2))))
    >>> f(np.zeros((4, 3))).shape
    (4, 3)
"""

from __future__ import annotations

import copy
import enum
import functools
import gc
import inspect
import math
import threading
import types
import warnings
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import Any

import numpy
import optree

from ftransforms.aliased_arguments import alias_plan, link
from ftransforms.backend import is_array, namespace_of
from ftransforms.boundary import transform_inputs, transform_outputs
from ftransforms.compiled import tier
from ftransforms.core.errors import ArgumentWriteWarning, MixedBackendError, PerformanceWarning
from ftransforms.core.mutation import Buffer, live_buffer_scope, mutable, views_one_of
from ftransforms.core.outside_operands import routed_to
from ftransforms.core.stack import pushed
from ftransforms.core.tracer import Tracer
from ftransforms.errors import (
    ArgnumsError,
    NotAnArrayError,
    UnsupportedOperationError,
)
from ftransforms.host_random import drew, fresh_entropy, snapshot
from ftransforms.interpreters.tracing import TraceInterpreter, TraceTracer
from ftransforms.jit_aot import lower, trace
from ftransforms.jit_guards import fingerprints, guards_of, has_fields, same_fields, written
from ftransforms.numpy.helpers import holds_tracer
from ftransforms.numpy.result_layout import iteration_order, laid_out_arguments
from ftransforms.program import LiveOutput, Program, SameOutput, freeze
from ftransforms.pytree import (
    NAMESPACE,
    path_str,
    tree_flatten,
    tree_flatten_with_path,
    tree_map,
    tree_unflatten,
)
from ftransforms.shape_eval import ShapedArray, ShapeDtypeStruct, eval_shape

__all__ = ["Program", "jit", "make_jaxpr", "make_program"]


#: NumPy scalars that ``jit`` takes as 0-d array inputs (integers and bools stay static:
#: they are sizes, indices and flags far more often than data).
_FLOAT_SCALARS = (numpy.floating, numpy.complexfloating)


def _signature(leaves: list, name: str = "f") -> tuple[tuple, list, bool]:
    """``(key, array leaves, any tracer)`` in one pass over the argument leaves: arrays are
    keyed by type, shape and dtype; every other leaf is static, keyed by its value."""
    sig = []
    arrays = []
    traced = False
    for leaf in leaves:
        t = type(leaf)
        if t is numpy.ndarray or is_array(leaf):
            if t is numpy.ndarray and leaf.ndim > 1 and not leaf.flags.c_contiguous:
                # NOTE [layout of elementwise results]: f sees the caller's layout: the order
                # of its axes in memory (a.T, asfortranarray) and that it is not contiguous
                # (x[:, ::2]: its reshapes copy); views with other steps share a recording
                order = iteration_order(leaf.shape, (leaf,))
                sig.append((t, leaf.shape, leaf.dtype, order, leaf.flags.f_contiguous))
            else:
                sig.append((t, leaf.shape, leaf.dtype))
            if t is numpy.ndarray and not leaf.flags.writeable:  # f sees it read-only: a
                sig.append("read-only")  # write into it raises (laid_out_arguments)
            arrays.append(leaf)
        elif isinstance(leaf, Tracer):
            traced = True
        else:
            try:
                sig.append(("static", freeze(leaf)))
            except TypeError:
                raise TypeError(
                    f"jit({name}): an argument leaf must be an array or a hashable Python "
                    f"value (a static one), got an unhashable {t.__name__}; register "
                    f"{t.__name__} as a pytree (ft.register_pytree_node) so that its "
                    f"arrays are inputs, or make it hashable"
                ) from None
    return tuple(sig), arrays, traced


def _dict_orders(tree: Any) -> tuple:
    """The key orders of the dicts in ``tree`` that are not sorted: the function sees a
    dict in the caller's order (``list(d.values())``), which the tree structure, equal
    for ``{"a": .., "b": ..}`` and ``{"b": .., "a": ..}``, does not tell apart."""
    out = []
    stack = [tree]
    while stack:
        t = stack.pop()
        if isinstance(t, dict):
            keys = tuple(t)
            try:
                unsorted = list(keys) != sorted(keys)
            except TypeError:  # keys that do not compare: keep their order
                unsorted = True
            if unsorted:
                out.append(keys)
            stack.extend(v for v in t.values() if isinstance(v, (dict, list, tuple)))
        elif isinstance(t, (list, tuple)):
            stack.extend(v for v in t if isinstance(v, (dict, list, tuple)))
    return tuple(out)


def _fast_key(args: tuple) -> tuple[tuple, list] | None:
    """``(key, leaves)`` for the common call of plain NumPy arrays (and tuples or lists of
    them) as positional arguments, or ``None``: a cache key found in one cheap pass,
    without flattening the arguments or freezing anything (NOTE [jit's fast path])."""
    key = []
    leaves: list = []
    for a in args:
        t = type(a)
        if t is numpy.ndarray:
            flags = a.flags
            if a.dtype.hasobject or (a.ndim > 1 and not flags.c_contiguous):
                return None  # (not C-contiguous: keyed by its layout too, in _signature)
            if not flags.writeable:
                return None  # (keyed as read-only too, in _signature)
            key.append((a.shape, a.dtype))
            leaves.append(a)
        elif t is tuple or t is list:
            sub = []
            for v in a:
                if type(v) is not numpy.ndarray or v.dtype.hasobject:
                    return None
                flags = v.flags
                if (v.ndim > 1 and not flags.c_contiguous) or not flags.writeable:
                    return None
                sub.append((v.shape, v.dtype))
            key.append((t, tuple(sub)))
            leaves.extend(a)
        else:
            return None
    return tuple(key), leaves


#: The fast-path key of a recording that writes into an argument (NOTE [aliased arguments]).
_WRITES = object()


def _aliased(leaves: list) -> bool:
    """Whether some of these arrays share memory (NOTE [aliased arguments])."""
    if len(leaves) < 2:
        return False
    if all(a.base is None for a in leaves) and len(set(map(id, leaves))) == len(leaves):
        return False
    return alias_plan(leaves) is not None


def _kept_spec(spec: Any) -> Any:
    """The tree structure a recording is keyed by: where the user registered pytree nodes
    of their own, a copy of ``spec``, so that the data such a node keeps besides its
    leaves (a dict or list of settings), changed in place later, no longer equals the
    recording's (it would, being the same object); ``spec`` itself where a copy is not
    equal (data compared by identity), and for a large tree (copying one costs about
    50 us per node)."""
    if spec.num_nodes > _MAX_KEPT_NODES or not any(
        not _library_node(t) for t in optree.register_pytree_node.get(namespace=NAMESPACE)
    ):
        return spec
    try:
        kept = copy.deepcopy(spec)
    except Exception:  # noqa: BLE001 - data that cannot be copied: compared as it is
        return spec
    return kept if kept == spec else spec


#: The largest tree structure :func:`_kept_spec` copies.
_MAX_KEPT_NODES = 256


def _library_node(t: Any) -> bool:
    """A pytree node type registered by Python, optree or ftransforms, not the user."""
    module = getattr(t, "__module__", None) or ""
    return module.partition(".")[0] in ("builtins", "collections", "optree", "ftransforms")


def _unlike_ndarray(arrays: list) -> str:
    """NOTE [arrays jit does not record]: a subclass of ``np.ndarray`` other than
    ``np.memmap`` changes what operations mean (``*`` of two ``np.matrix`` is a matrix
    product, a masked array's ``mean`` skips the masked entries, a ``recarray`` has fields
    as attributes), and a structured dtype's fields (``x["a"]``) are no array operations,
    nor is Python code on the elements of an array of strings or objects (``len(n)`` for
    ``n`` in ``np.array(["a", "bb"])``; ``jax.jit`` refuses such arguments): a recording
    would compute as for a plain ``ndarray`` (or fail), so such a signature runs eagerly.
    Which argument that is, or ``""``; asked only before a recording."""
    for a in arrays:
        t = type(a)
        if t is numpy.ndarray:
            if a.dtype.names is not None:
                return (
                    f"an argument has the structured dtype {a.dtype}, whose operations jit "
                    f"does not record (pass its fields as plain arrays)"
                )
            if a.dtype.kind in "OUSV":
                what = "Python objects" if a.dtype.kind == "O" else "strings or bytes"
                return (
                    f"an argument is an array of {what} (dtype {a.dtype}), on which jit "
                    f"records no operations (pass the numbers computed from it as arrays)"
                )
        elif isinstance(a, numpy.ndarray) and not isinstance(a, numpy.memmap):
            return (
                f"an argument is a {t.__module__}.{t.__name__}, a subclass of np.ndarray, "
                f"whose operations jit does not record (pass np.asarray(x) for a plain array)"
            )
    return ""


def _leaf_names(n: int) -> list[str]:
    return [f"argument leaf {k}" for k in range(n)]


def _same_leaf(a: Any, b: Any) -> bool:
    """The same object, or an equal Python number or string (``d["lr"] *= 1.0``)."""
    return a is b or (type(a) is type(b) and type(a) in (int, float, complex, bool, str) and a == b)


def _assigned_place(given: Any, spec: Any, leaves: list, out: Any) -> str:
    """NOTE [assignments into argument containers under jit]: ``jit`` (as ``jax.jit``)
    hands the function new dicts, lists and pytree nodes rebuilt from the flattened
    arguments, so an item the function assigns into one (``state["t"] += 1``, ``p["W"] =
    p["W"] - lr * g``, ``hist.append(loss)``) never reaches the caller's container, on the
    recorded call nor on a replay (which runs no Python), where without ``jit`` it does.
    Such a recording is told with ``ArgumentWriteWarning``, as a write into an argument's
    array is.  ``given``: the ``(args, kwargs)`` the function received, ``spec`` and
    ``leaves`` what they were built from.  The first place assigned (``"argument 1['t']"``)
    or ``""``; asked once per recording.  An argument the function returns as it is
    (``p["W"] = ...; return p``) is left out: its caller sees the items in the result."""
    now, now_spec = tree_flatten(given)
    if now_spec == spec and all(map(_same_leaf, now, leaves)):
        return ""
    paths, now, _ = tree_flatten_with_path(given)
    before = dict(zip(tree_flatten_with_path(tree_unflatten(spec, leaves))[0], leaves))
    changed = [p for p, v in zip(paths, now) if p not in before or not _same_leaf(before.pop(p), v)]
    returned = {id(out)} | ({id(o) for o in out} if type(out) in (tuple, list) else set())
    for path in [*changed, *before]:
        if len(path) < 2:
            return "an argument"
        if id(given[path[0]][path[1]]) in returned:
            continue
        head = f"argument {path[1]}" if path[0] == 0 else str(path[1])
        return head + path_str(path[2:])
    return ""


def _private_copies(tree: Any) -> Any:
    """``tree`` with its NumPy array leaves copied, for a signature that runs eagerly
    (NOTE [mutation semantics]: the function may write into its arguments, which a
    transform never lets reach the caller's arrays, on a recorded call nor on an eager
    one).  The copies alias each other as the arrays do: one copy for an array passed
    twice, views of one copied base for views of one base."""
    leaves, spec = tree_flatten(tree)
    if not any(isinstance(v, numpy.ndarray) for v in leaves):
        return tree
    roots: dict = {}
    copies: dict = {}
    for v in leaves:
        if type(v) is numpy.ndarray:
            roots.setdefault(id(_root(v)), []).append(v)
        elif isinstance(v, numpy.ndarray):  # a subclass (np.matrix, a masked array): its own
            copies[id(v)] = v.copy()
    for views in roots.values():
        root = _root(views[0])
        shared = len({id(v) for v in views}) > 1 and root.flags.forc
        memory = root.copy(order="K") if shared else None
        for v in views:
            if id(v) in copies:
                continue
            if memory is None:
                c = v.copy(order="K")
            else:
                at = v.__array_interface__["data"][0] - root.__array_interface__["data"][0]
                c = numpy.ndarray(v.shape, v.dtype, buffer=memory, offset=at, strides=v.strides)
            c.flags.writeable = v.flags.writeable
            copies[id(v)] = c
    return tree_unflatten(spec, [copies.get(id(v), v) for v in leaves])


def _root(v: numpy.ndarray) -> numpy.ndarray:
    """The array whose memory ``v`` views (``v`` itself when it owns its memory)."""
    while isinstance(v.base, numpy.ndarray):
        v = v.base
    return v


class _young_collections_only:  # noqa: N801 - used as ``with _young_collections_only():``
    """NOTE [no full collections while recording]: a recording keeps every equation (and
    its tuples) alive until it ends, so the collector's full pass, which a growing heap
    triggers, scans it again and again: one pass cost a third of recording 5000 small
    ops.  While a recording runs the full pass is put off (the young generations, where
    short-lived cycles die, are still collected), and it runs as usual afterwards.  The
    setting is the process's: recordings in several threads share one count, and the last
    to end restores it."""

    def __enter__(self) -> None:
        with _GC_LOCK:
            if not _GC_STATE:
                saved = gc.get_threshold()
                _GC_STATE.append(saved)
                gc.set_threshold(saved[0], saved[1], 1 << 30)
            _GC_STATE.append(None)

    def __exit__(self, *exc: Any) -> None:
        with _GC_LOCK:
            _GC_STATE.pop()
            if len(_GC_STATE) == 1:
                gc.set_threshold(*_GC_STATE.pop())


#: ``[saved thresholds, one None per recording in progress]`` (NOTE [no full collections
#: while recording]); empty when none is.
_GC_STATE: list = []
_GC_LOCK = threading.Lock()


def _returned_function_fix(fn: Callable) -> str:
    """What to do instead of returning ``fn`` (which holds traced arrays) from ``jit``."""
    made_by = {"vjp.<locals>.vjp_fn": "vjp", "linearize.<locals>.jvp_fn": "linearize"}
    transform = made_by.get(getattr(fn, "__qualname__", ""))
    if transform is None or getattr(fn, "__module__", None) != "ftransforms.api":
        return "call it inside the function and return what it computes"
    arg = "ct" if transform == "vjp" else "t"
    return (
        f"the function that ft.{transform} returns holds the recorded computation, not "
        f"arrays (JAX returns a Partial there; here it cannot be a jit output): jit the "
        f"whole computation, ft.jit(lambda x, {arg}: ft.{transform}(f, x)[1]({arg})), or "
        f"apply ft.{transform} outside to the jitted function, ft.{transform}(ft.jit(f), x)"
    )


def _held_arrays(eqns: list, out_consts: list) -> set:
    """The ids of the arrays the equations (their loop bodies and branches too) and the
    outputs hold as constants, and of the arrays those view (NOTE [values derived from
    outside arrays under jit] in ``jit_guards.py``)."""
    live: set = set()
    stack = [(eqns, out_consts)]
    while stack:
        body, outs = stack.pop()
        for c in (*(c for e in body for c in e.consts), *outs):
            if type(c) is LiveOutput:
                c = c.value
            while type(c) is numpy.ndarray and id(c) not in live:
                live.add(id(c))
                c = c.base
        for e in body:
            for fn in getattr(e.prim, "subprograms", {}).values():
                stack.append((fn.eqns, getattr(fn, "out_consts", ())))
    return live


def _bakes_derived(eqns: list, out_consts: list, opaque: frozenset, known: set) -> bool:
    """Whether the recording holds a constant that a value the user's NumPy code computed
    from an outside array may be (``np.linalg.norm(W)``, ``W.max()``, ``float(W.sum())``,
    ``np.exp(W)``): a NumPy scalar; a Python float the code does not write as a literal
    nor read from outside (``known``); an array that is none of the outside arrays nor
    views one, with more than two distinct values (the transforms' own constants, a
    cotangent seed of ones, a fill of ``1/n``, a one-hot basis, have at most two; so have
    Python ints, sizes and counts, which are left out) (NOTE [values derived from outside
    arrays under jit] in ``jit_guards.py``)."""
    stack = [(eqns, out_consts)]
    while stack:
        body, outs = stack.pop()
        for c in (*(c for e in body for c in e.consts), *outs):
            t = type(c)
            if t is numpy.ndarray:
                root = c
                while type(root.base) is numpy.ndarray and id(root) not in opaque:
                    root = root.base
                if id(root) not in opaque and not _two_valued(c):
                    return True
            elif isinstance(c, numpy.generic) or (t in (float, complex) and c not in known):
                return True
        for e in body:
            for fn in getattr(e.prim, "subprograms", {}).values():
                stack.append((fn.eqns, getattr(fn, "out_consts", ())))
    return False


def _two_valued(a: numpy.ndarray) -> bool:
    """Whether ``a`` holds at most two distinct values (``nan`` counts as distinct)."""
    if a.size == 0 or a.dtype.kind not in "biufc":
        return True
    flat = a.ravel()
    rest = flat[flat != flat[0]]
    return rest.size == 0 or bool((rest == rest[0]).all())


def _of_call(interp: TraceInterpreter, scope: Any) -> Callable[[Any], bool]:
    """Whether a value is one of the recording's: traced, or an array the call made."""

    def ours(v: Any) -> bool:
        t = type(v)
        return (t is TraceTracer and v._interp is interp) or (t is Buffer and v._interp is scope)

    return ours


def _trace(
    func: Callable,
    args: tuple,
    kwargs: dict,
    optimize: bool = True,
    name: str | None = None,
    guards: Any = None,
    statics: tuple = (),
    aliases: Any = None,
    again: bool = False,
    check_reads: bool = True,
) -> tuple[Program, Any]:
    """Record ``func`` on these arguments: ``(program, result)``.  ``again``: the call
    records again because a check the last recording itself made fail fails (NOTE
    [containers the recording changes] in ``jit_guards.py``)."""
    leaves, spec = tree_flatten((args, kwargs))
    interp = TraceInterpreter(f"jit({name or getattr(func, '__name__', 'f')})")
    if guards is not None:
        interp.opaque = guards.array_ids()
    # NOTE [NumPy random draws under jit] (ftransforms/host_random.py)
    draws = snapshot(func, [*leaves, *statics])
    routes = routed_to(interp.opaque, interp)
    fresh = fresh_entropy()
    # arrays from outside the function: a write into one is repeated only eagerly
    outside = fingerprints(guards.arrays()) if guards is not None else ()
    with _young_collections_only(), pushed(interp), routes, fresh:
        wrapped = [interp.new_input(v) if is_array(v) else v for v in leaves]
        n_inputs = interp.n_slots
        if aliases is not None:  # NOTE [aliased arguments]
            wrapped = link(aliases, wrapped, interp.name, lambda: _leaf_names(len(wrapped)))
        laid_out_arguments(leaves, wrapped)  # NOTE [layout of elementwise results]
        wrapped_args, wrapped_kwargs = tree_unflatten(spec, wrapped)
        try:
            raw = func(*wrapped_args, **wrapped_kwargs)
            out = transform_outputs(raw)
        except BaseException:
            if guards is not None:  # NOTE [traced values stored outside under jit]: also
                # where the function raised after storing one (eagerly: an array)
                guards.concretize(_of_call(interp, live_buffer_scope()))
            raise
        scope = live_buffer_scope()  # the arrays the call made (buffers) belong to it
        assigned = _assigned_place((wrapped_args, wrapped_kwargs), spec, wrapped, raw)
        # whether a write reached an argument (NOTE [aliased arguments]): its slot moved on
        writes_inputs = any(
            type(w) is not TraceTracer or w.ref != k
            for k, w in enumerate(w for v, w in zip(leaves, wrapped) if is_array(v))
        )
        out_leaves, out_spec = tree_flatten(out)
        refs, consts, values, views_inputs = [], [], [], []
        first: dict = {}  # id -> the output that first returned an array object
        made = ""  # a mutable object among the outputs that the call made
        for k, leaf in enumerate(out_leaves):
            if type(leaf) is TraceTracer or type(leaf) is numpy.ndarray:
                if id(leaf) in first:  # NOTE [one output object returned twice]
                    refs.append(None)
                    consts.append(SameOutput(first[id(leaf)]))
                    values.append(values[first[id(leaf)]])
                    continue
                first[id(leaf)] = k
            if type(leaf) is TraceTracer and leaf._interp is interp:
                refs.append(leaf.ref)
                consts.append(None)
                # An input returned as it is (``x * 1`` is not recorded): a new array, as
                # eagerly and as on replay, so that updating the result leaves the input be.
                if leaf.ref >= n_inputs and views_one_of(leaf.val, leaves):
                    views_inputs.append(len(values))  # (Program.views_inputs)
                    values.append(leaf.val.copy())
                else:
                    values.append(leaf.val.copy() if leaf.ref < n_inputs else leaf.val)
            else:
                if isinstance(leaf, Tracer):
                    raise TypeError(f"jit: the function returned a foreign tracer {leaf!r}")
                if isinstance(leaf, Iterator):  # a generator: it computes when iterated,
                    raise NotAnArrayError(  # after the recording (and a replay returns it again)
                        f"{interp.name}: the function returned a {type(leaf).__name__}, "
                        f"which computes only when iterated, after jit has recorded the call; "
                        f"return its values (list(...) or a tuple) instead"
                    )
                if isinstance(leaf, Awaitable):  # ``async def``: computes when awaited
                    if inspect.iscoroutine(leaf):
                        leaf.close()  # (never awaited: no warning that it was not)
                    raise NotAnArrayError(
                        f"{interp.name}: the function returned a {type(leaf).__name__}, "
                        f"which computes only when awaited, after jit has recorded the call; "
                        f"jit the synchronous function that computes the arrays, and await "
                        f"around it"
                    )
                if type(leaf) not in _PLAIN_OUTPUTS and _holds_tracer(leaf, 0):
                    # (a constant of the replay would hold this call's tracers)
                    kind = type(leaf).__name__
                    fix = (
                        _returned_function_fix(leaf)
                        if callable(leaf)
                        else f"register {kind} with ft.register_pytree_node so that its "
                        f"arrays are outputs"
                    )
                    raise NotAnArrayError(
                        f"{interp.name}: an output is a {kind} that holds traced arrays, "
                        f"which jit can only return as arrays (in tuples, lists, dicts or "
                        f"registered pytrees); {fix}"
                    )
                if (
                    type(leaf) not in _PLAIN_OUTPUTS
                    and not made
                    and _made_by_call(leaf, guards, (*leaves, *statics))
                ):
                    made = type(leaf).__name__  # NOTE [mutable objects returned under jit]
                refs.append(None)
                consts.append(LiveOutput(leaf) if _views_outside(leaf, interp.opaque) else leaf)
                values.append(leaf)
    if made and not interp.value_dependent:
        interp.value_dependent = True
        interp.reason = (
            f"an output that is a {made} the call made, a new one at every call, which a "
            f"replay would return again (return arrays or immutable values instead)"
        )
    if (drew(draws) or fresh.drew) and not interp.value_dependent:
        interp.value_dependent = True
        interp.reason = (
            "a draw from a NumPy random generator"
            if not fresh.drew
            else "a NumPy random generator made with no seed (fresh entropy)"
        )
    if not interp.value_dependent and any(isinstance(v, Iterator) for v in (*leaves, *statics)):
        # an iterator passed in (``next(batches)``) gives the function new items at every
        # call, which a replay would not read: that signature runs eagerly
        interp.value_dependent = True
        interp.reason = "an iterator argument, whose next items the function may read"
    if not interp.value_dependent and guards is not None and guards.iterators:
        interp.value_dependent = True  # NOTE [iterators read from outside] (jit_guards.py)
        interp.reason = (
            f"the iterator {', '.join(guards.iterators)} read from outside the function, "
            f"whose next items it may read"
        )
    if guards is not None:  # NOTE [traced values stored outside under jit]
        stored = guards.concretize(_of_call(interp, scope))
        if stored and not interp.value_dependent:
            interp.value_dependent = True
            interp.reason = (
                f"a traced value stored in {', '.join(dict.fromkeys(stored))}, outside the "
                f"function, which a replay would not store"
            )
    if writes_inputs and not interp.value_dependent and interp.raises_inside:
        # NOTE [error handling set inside under jit] (program.py): a replay that raises is
        # run again eagerly only where it wrote into no argument
        interp.value_dependent = True
        interp.reason = (
            "an operation under np.errstate(...='raise') or a warnings filter 'error' set "
            "inside a function that writes into its arguments"
        )
    changed = written(outside) if outside and not interp.value_dependent else ()
    if changed:
        interp.value_dependent = True
        interp.reason = f"a write into {', '.join(changed)}, an array from outside the function"
    reads = interp.reads
    if reads and not check_reads and not interp.value_dependent:
        interp.value_dependent = True  # (make_program shows the program jit replays)
        interp.reason = f"a Python read of a traced value {reads[0][1]!r}"
    if reads and writes_inputs and not interp.value_dependent:
        interp.value_dependent = True  # (a replay that wrote into an argument cannot rerun)
        interp.reason = (
            f"a Python read of a traced value {reads[0][1]!r} in a function that writes "
            f"into its arguments"
        )
    # Inputs that are not arrays are baked in: renumber array inputs to slots 0..n-1.
    in_avals = [ShapedArray(v.shape, v.dtype) for v in leaves if is_array(v)]
    checked = bool(reads) and not interp.value_dependent
    if checked:  # NOTE [checked value reads under jit]: the values read are outputs too
        program_spec = tree_flatten((tree_unflatten(out_spec, values), [v for _, v in reads]))[1]
    program = (CheckedProgram if checked else Program)(
        interp.program,
        n_inputs,
        [*refs, *(r for r, _ in reads)] if checked else refs,
        [*consts, *(None for _ in reads)] if checked else consts,
        program_spec if checked else out_spec,
        in_avals,
        value_dependent=interp.value_dependent,
        reason=interp.reason,
        optimize=optimize,
        in_types=[(v.shape, v.dtype) for v in leaves if is_array(v)],
    )
    program.writes_inputs = writes_inputs
    program.assigns_into = assigned
    if checked:
        program.expected = tuple(_read_value(v) for _, v in reads)
        program.user_spec, program.n_user = out_spec, len(refs)
        program.user_leaf = out_spec == tree_flatten(0)[1]
    if views_inputs:
        program.views_inputs = tuple(views_inputs)
    itself = guards.settle() if guards is not None and not program.value_dependent else ()
    if itself and again:  # NOTE [containers the recording changes] (jit_guards.py)
        program.value_dependent = True
        program.reason = (
            f"a change it makes at every call to {', '.join(dict.fromkeys(itself))}, read "
            f"from outside the function, which a replay would not make"
        )
    if guards is not None and not program.value_dependent:
        # NOTE [outside arrays in rules under jit]; indices and masks whose numbers Python
        # code may have read (NOTE [values read from outside under jit])
        read = [*routes.read, *guards.index_arrays()]
        derived, operands = guards.derived_arrays(_held_arrays(interp.program, consts))
        read += derived
        if operands and _bakes_derived(
            interp.program, [*consts, *interp.elided], interp.opaque, guards.known_numbers()
        ):
            read += operands  # (``x @ W + np.linalg.norm(W)``)
        if read:
            guards.hold_contents(read)
        program.guards = guards if guards.checks else None  # (all side effects: nothing)
        program.opaque = interp.opaque
    values = [numpy.asarray(v) if isinstance(v, numpy.generic) else v for v in values]
    return program, tree_unflatten(out_spec, values)


# NOTE [checked value reads under jit]: a recording whose Python code read a recorded
# value (``if x.sum() > 0:``, ``float(loss)``, ``int(n)``, ``.item()``, the boolean mask
# of ``x[x > 0]``, whose elements decide which and how many are taken) is replayed all the
# same: each value read (a small array: at most ``_CHECKED_READ_SIZE`` elements) is an
# extra output of the program, with the value the recording saw beside it, and a replay
# returns only where every one equals its recorded value exactly (``-0.0`` is not ``0.0``,
# which ``math.copysign`` tells apart; a NaN is the NaN read: ``_read_value``); then the
# Python code would have read the same values and taken the same path, so the recording
# is that call's program.  Where one differs, the replay raises ``ReadChanged`` and the
# call runs eagerly or records (below), as any replay that raises runs eagerly (NOTE [a
# replay that raises]): the replay is pure (it writes into nothing: a recording that wrote into an
# argument and read a value runs eagerly instead), so its results are simply dropped, and
# NumPy's floating-point warnings of it are counted, not shown, until its reads are checked
# (``_COLLECT``).  A recording with no such read is a plain ``Program``: nothing on its
# path checks anything.  Reads a replay cannot check (``fnp.peek``, a read inside a
# control-flow body or a capture, a large array's ``tolist()``) still make the signature
# run eagerly.
#
# Branches: the recordings of one signature agree up to the first value read whose value
# differs (the same Python ran on the same kinds of arguments), so where read ``j`` differs
# and reads ``0..j-1`` matched, the recording for this call's value of read ``j`` is found
# under ``(j, that value)`` in ``others`` (and is itself checked in full); a value not seen
# yet records once more (``ReadChanged.point``), up to ``_BRANCHES`` recordings per
# signature, after which such calls run eagerly.  (``jax.jit`` refuses such reads.)

#: The most recordings one signature keeps for the paths its value reads take.
_BRANCHES = 8


class _Branch(threading.local):
    """The branch a call's recording is for, handed from a replay to the call it makes."""

    point: tuple | None = None

    def __reduce__(self) -> str:
        return "_BRANCH"  # pickled by name (a jitted function sent to dask workers holds it)


_BRANCH = _Branch()


#: NumPy's error state (NumPy 2: a context variable) and one that counts each floating
#: point error in ``_HITS`` instead of warning: a replay of a path the call does not take
#: must not warn (``np.log`` of the negative numbers the other branch keeps), so a
#: checked replay runs under it and, where its reads hold and it counted an error, runs
#: again under the caller's own (a replay is pure).  Where NumPy has no such variable
#: (NumPy 1) the replay warns as it computes.
_UMATH = getattr(getattr(numpy, "_core", None), "umath", None)
_EXTOBJ = getattr(_UMATH, "_extobj_contextvar", None)
_HITS = [0]


def _count_error(kind: str, flag: int) -> None:  # noqa: ARG001 - NumPy's errcall signature
    _HITS[0] += 1


_COLLECT = (
    _UMATH._make_extobj(all="call", call=_count_error)
    if _EXTOBJ is not None and hasattr(_UMATH, "_make_extobj")
    else None
)


#: What a replay that reads a value whose recording read another runs: eagerly.
def _eager_scalars_as_arrays(out: Any) -> Any:
    """``out`` with its NumPy scalars as 0-d arrays, as a recording returns them (in
    tuples, lists and dicts)."""
    kind = type(out)
    if isinstance(out, numpy.generic):
        return numpy.asarray(out)
    if kind is tuple or kind is list:
        return kind(_eager_scalars_as_arrays(v) for v in out)
    if kind is dict:
        return {k: _eager_scalars_as_arrays(v) for k, v in out.items()}
    return out


_EAGER = Program([], 0, [], [], None, [], value_dependent=True)


class _ExactFloat(float):
    """A float zero or NaN read by the recording's Python code, equal only to a float of
    the same sign and kind: ``math.copysign(1.0, v)``, ``math.atan2`` and ``1 / v`` tell
    ``-0.0`` from ``0.0``, which ``==`` does not, and a NaN the code read (``math.isnan``)
    takes the same path again (NOTE [checked value reads under jit])."""

    __slots__ = ()

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, float):
            return False
        a, b = float(other), float(self)
        same = a == b or (math.isnan(a) and math.isnan(b))
        return same and math.copysign(1.0, a) == math.copysign(1.0, b)

    def __ne__(self, other: Any) -> bool:
        return not self.__eq__(other)

    __hash__ = float.__hash__


def _read_value(v: numpy.ndarray) -> Any:
    """What a replay compares a value read with: a 0-d read as a Python number (a float
    zero or NaN as an ``_ExactFloat``), an array's bytes (``-0.0`` is not ``0.0``; the
    same NaN bits are the same NaN)."""
    if v.ndim:
        return v.tobytes()
    item = v.item()
    if type(item) is float and (item == 0.0 or item != item):
        return _ExactFloat(item)
    return item


class ReadChanged(Exception):
    """A replay found a value the recording's Python code read to differ now; ``point``:
    ``(program, key)`` where a recording of this call belongs, or None (run eagerly)."""

    def __init__(self, point: tuple | None) -> None:
        super().__init__()
        self.point = point


class CheckedProgram(Program):
    """A recording whose last outputs are the values its Python code read, which a
    replay checks against ``expected`` (NOTE [checked value reads under jit])."""

    expected: tuple = ()
    others: dict | None = None  # (j, the value of read j) -> the recording for it
    count: list | None = None  # [recordings of this signature], shared by its branches

    user_spec: Any = None  # the function's output structure (``out_spec`` holds the reads)
    n_user = 0  # how many leaves it has: the reads are the program's outputs after them
    user_leaf = False  # whether the function returns one array

    def call(self, *leaves: Any) -> Any:
        fn = self._fn if self._fn is not None else self._compiled()
        if _COLLECT is not None:  # NumPy's warnings counted, not shown, until checked
            hits = _HITS[0]
            token = _EXTOBJ.set(_COLLECT)
            try:
                flat = fn(*leaves)  # (a list: the output structure is never a plain one)
            finally:
                _EXTOBJ.reset(token)
            warned = _HITS[0] != hits
        else:
            flat, warned = fn(*leaves), False
        n = self.n_user
        for j, then in enumerate(self.expected):
            now = flat[n + j]
            # a 0-d read as a Python number (``then``), an array's as its bytes
            if not (now.item() == then if type(then) is not bytes else now.tobytes() == then):
                now = numpy.asarray(now)
                key = (j, now.dtype.str, now.shape, now.tobytes())
                other = self.others.get(key) if self.others is not None else None
                count = self.count if self.count is not None else [1]
                if other is not None:
                    if other.value_dependent:
                        raise ReadChanged(None)
                    if other.guards is None or other.guards.hold():
                        return other.call(*leaves)
                    del self.others[key]  # it read a value from outside that was rebound:
                    count[0] -= 1  # record this branch again
                raise ReadChanged((self, key) if count[0] < _BRANCHES else None)
        if warned:  # this path's own warnings (or errors): again, under the caller's state
            flat = fn(*leaves)
        if self.views_inputs:
            out = list(flat[:n])
            for k in self.views_inputs:
                out[k] = out[k].copy()
        elif self.user_leaf:
            return flat[0]
        else:
            out = flat[:n]
        return tree_unflatten(self.user_spec, out)

    def add_branch(self, key: tuple, program: Program) -> None:
        """Keep ``program``, recorded where read ``key[0]`` gave the value in ``key``."""
        if self.count is None:
            self.count = [1]
        if self.others is None:
            self.others = {}
        if isinstance(program, CheckedProgram):
            program.count = self.count
        self.others[key] = program
        self.count[0] += 1


def _static_objects(static: tuple, leaves: list) -> tuple:
    """The static arguments and the objects passed as static leaves (``self`` of an
    ``@jit`` method, a function ``f(x, act)`` calls), whose fields a recording guards."""
    out = tuple(v for _, v in static[0]) + tuple(v for _, v in static[1])
    return out + tuple(v for v in leaves if not is_array(v) and has_fields(v))


# NOTE [equal static objects under jit]: a static object whose class defines ``__eq__``
# (and ``__hash__``) by some of its fields (``Model("mlp", w)`` equal by name, a config)
# keys the cache by value, so a call with another object equal to the recording's finds
# its program, whose guards check the recording's object: ``b.scale`` of the new one was
# never read, and the replay computed with ``a.scale``.  So such objects are kept with
# the program, and a call with another one replays only where its fields are the same
# values as theirs (``_same_objects``); else it records again.  Objects compared by
# identity (the default) cost nothing: an equal key is the same object.
def _equal_by_value(v: Any) -> bool:
    return not isinstance(v, type) and type(v).__eq__ is not object.__eq__ and has_fields(v)


def _same_objects(then: tuple, now: tuple) -> bool:
    return len(then) == len(now) and all(a is b or same_fields(a, b) for a, b in zip(then, now))


def _views_outside(leaf: Any, opaque: frozenset) -> bool:
    """Whether the output ``leaf`` is an array from outside the arguments (of ``opaque``)
    or a NumPy view of one (``return W[0]``, ``W.T``): returned as it is at every replay,
    as eagerly, so that a change made in it in place since the recording shows."""
    while opaque:
        if id(leaf) in opaque:
            return True
        if type(leaf) is not numpy.ndarray:
            return False
        leaf = leaf.base
    return False


#: Output leaves that hold no array (a constant of the recording as they are).
_PLAIN_OUTPUTS = frozenset({type(None), bool, int, float, complex, str, numpy.ndarray})

# NOTE [mutable objects returned under jit]: a replay returns an output leaf that is no
# array as the recording's constant, the same object at every call.  For a value that
# cannot change (a number, a string, ``None``, a function, a class, a dtype, an enum
# member, a frozen dataclass) and for an object from outside the call (``return loss,
# self``; an argument; an object the guards of NOTE [values read from outside under jit]
# know), that is what the function returns eagerly.  A mutable object the call made
# (``return y, set()``, a ``Stats()`` the caller then updates) is a new one at every eager
# call, while every replay would return the one the caller changed: such a signature runs
# eagerly.  Checked once per recording, for output leaves that are not plain values.
_IMMUTABLE_OUTPUTS = (
    str,
    int,
    float,
    complex,
    bytes,
    frozenset,
    range,
    slice,
    type(Ellipsis),
    type,
    numpy.generic,
    numpy.dtype,
    numpy.ufunc,
    enum.Enum,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    types.ModuleType,
    functools.partial,
    ShapeDtypeStruct,
)


def _made_by_call(leaf: Any, guards: Any, given: tuple) -> bool:
    """Whether the output ``leaf`` (no array, nor a plain value) is a mutable object that
    the call made (NOTE [mutable objects returned under jit])."""
    if isinstance(leaf, _IMMUTABLE_OUTPUTS) or is_array(leaf):
        return False
    params = getattr(type(leaf), "__dataclass_params__", None)
    if params is not None and params.frozen:
        return False
    outside = {id(v) for v in given}
    if guards is not None:
        for holder, _, value in guards.checks:
            outside.add(id(holder))
            outside.add(id(value))
    return id(leaf) not in outside and id(getattr(leaf, "__dict__", None)) not in outside


def _holds_tracer(obj: Any, depth: int) -> bool:
    """Whether ``obj`` (an output leaf that is no array) holds a tracer in its fields or
    items, a few levels down (``Result(w=x * 2)`` of a class that is not a pytree)."""
    if isinstance(obj, Tracer):
        return True
    if depth > 3 or type(obj) in _PLAIN_OUTPUTS or isinstance(obj, numpy.generic):
        return False
    if isinstance(obj, dict):
        items = list(obj.values())
    elif isinstance(obj, (list, tuple, set, frozenset)):
        items = list(obj)
    elif isinstance(obj, types.FunctionType):  # ``lambda y: y * x``: its closure
        items = [c.cell_contents for c in obj.__closure__ or () if _filled(c)]
    elif isinstance(obj, functools.partial):
        items = [*obj.args, *obj.keywords.values()]
    else:
        fields = getattr(obj, "__dict__", None)
        items = list(fields.values()) if type(fields) is dict else []
        items += [getattr(obj, k, None) for k in getattr(type(obj), "__slots__", ())]
    return any(_holds_tracer(v, depth + 1) for v in items[:64])


def _filled(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - an empty cell raises
    except ValueError:
        return False
    return True


def make_program(
    func: Callable,
    *,
    optimize: bool = True,
    static_argnums: int | Sequence[int] = (),
    return_shape: bool = False,
) -> Callable[..., Any]:
    """``make_program(f)(*args)``: the program ``jit`` would replay for ``f`` at these
    arguments (like ``jax.make_jaxpr``), for reading what a transformed function computes.
    ``optimize=False`` shows every backend call as recorded, before dead and repeated
    calls are removed; ``program.source`` is the generated Python.  As in
    ``jax.make_jaxpr``: the positional arguments in ``static_argnums`` are constants of
    the program, not inputs, and ``return_shape=True`` returns ``(program, shapes)``,
    the output's pytree of :class:`~ftransforms.ShapeDtypeStruct`.

    Example:
        >>> import numpy as np
        >>> from ftransforms import grad
        >>> print(make_program(grad(lambda x: np.sin(x).sum()), optimize=False)(np.zeros(2)))
        { lambda %0:float64[2] .
            %1 = sin[] %0
            %2 = reduce_sum[axis=(0,) keepdims=False] %1
            %3 = cos[] %0
          in ( %3 ) }
    """

    nums = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        fixed = {}
        for i in nums:
            if not -len(args) <= i < len(args):
                raise ValueError(
                    f"make_jaxpr({getattr(func, '__name__', 'f')}, static_argnums={nums!r}): "
                    f"the call has {len(args)} positional argument(s), so there is no "
                    f"argument {i}; static_argnums counts them from 0"
                )
            fixed[i % len(args)] = args[i]
        call, dynamic = func, args
        if fixed:
            dynamic = tuple(a for j, a in enumerate(args) if j not in fixed)

            def call(*dyn: Any, **kw: Any) -> Any:
                rest = iter(dyn)
                return func(
                    *[fixed[j] if j in fixed else next(rest) for j in range(len(args))], **kw
                )

        program, result = _trace(
            call, dynamic, kwargs, optimize, name=getattr(func, "__name__", None),
            check_reads=False,
        )  # fmt: skip
        if not return_shape:
            return program
        shapes = tree_map(lambda v: ShapeDtypeStruct(numpy.shape(v), _dtype(v)), result)
        return program, shapes

    return wrapped


def _dtype(value: Any) -> numpy.dtype:
    return value.dtype if hasattr(value, "dtype") else numpy.asarray(value).dtype


#: The name JAX users look for.
make_jaxpr = make_program


# NOTE [disable_jit]: ``ft.disable_jit()`` (a context manager, per thread) and
# ``ft.config.update("jax_disable_jit", True)`` (everywhere) make every jitted function run
# its Python eagerly, on private copies of its arguments as an eager run of a
# value-dependent signature does, so that it can be stepped through with pdb; the test is
# one attribute read at the top of each jitted call.  ``ft.clear_caches()`` empties the
# recordings of every jitted function (the caches are held weakly here).
class _JitOff(threading.local):
    depth = 0

    def __reduce__(self) -> str:
        return "JIT_OFF"  # pickled by name (a jitted function sent to dask workers holds it)


JIT_OFF = _JitOff()
JIT_OFF_EVERYWHERE = [False]
PROGRAM_CACHES: weakref.WeakValueDictionary = weakref.WeakValueDictionary()  # id -> cache


def jit(
    func: Callable | None = None,
    *,
    static_argnums: int | Sequence[int] = (),
    static_argnames: str | Sequence[str] = (),
    max_cached: int = 32,
    compile: bool | None = None,  # noqa: A002 - the name users look for
    donate_argnums: int | Sequence[int] = (),
    donate_argnames: str | Sequence[str] = (),
    keep_unused: bool = False,
    inline: bool = False,
    backend: str | None = None,
    device: Any = None,
) -> Callable:
    """Compile ``func`` (usually a transformed function) into a replayed flat program.

    The first call for an input signature (tree structure, array types, shapes, dtypes,
    and the values of static arguments) runs ``func`` eagerly while recording; later
    calls with that signature replay the recording as generated straight-line NumPy/CuPy
    code (see ``ftransforms/program.py``).  Arrays anywhere in the arguments, keyword
    arguments included, and NumPy float/complex scalars (as 0-d arrays) are inputs; every
    other leaf (Python numbers, NumPy integers, strings, ...) is static — part of the
    signature, so a new value records again — as are the positional arguments in
    ``static_argnums`` and the keyword arguments in ``static_argnames`` (as
    in ``jax.jit``; they must be hashable).  As in JAX, each of the two is inferred from
    the other through ``func``'s signature (``static_argnums=1`` also makes that parameter
    static when it is passed by keyword), and a static parameter with a default may be
    left out.  At most ``max_cached`` signatures are kept.  JAX's ``donate_argnums``,
    ``donate_argnames``, ``keep_unused`` and ``inline`` are accepted and have no effect
    (no buffer is donated: the caller's arrays are never written); so are
    ``backend="cpu"`` and ``device="cpu"`` (the program runs where its arrays are: a NumPy
    program on the CPU), and any other ``backend``/``device`` raises
    ``UnsupportedOperationError``.

    A trace whose Python read a small traced value (``if x.sum() > 0:``, ``float(loss)``,
    a boolean mask) is replayed checking each value read, and a call whose values differ
    gets a recording of its own path (NOTE [checked value reads under jit]).  One that
    read data otherwise (random draws, a closure over an enclosing transform's value; see
    NOTE [value-dependent traces]) is not replayed: that signature keeps running eagerly,
    with a warning the first time; such a read inside a ``cond``/``switch`` branch or a
    loop body makes only that operator run eagerly (NOTE [value reads during a
    capture]), and ``R[i]`` of a closed-over NumPy array by a loop's step is recorded as
    a gather (NOTE [constant subscripts in a capture]).  Inside another transform (``grad(jit(f))``,
    ``vmap(jit(f))``) ``jit`` is transparent: ``f`` runs under that transform, so put
    ``jit`` outermost for speed.  Use it as ``jit(f)`` or ``@jit``.

    With the optional compiler installed (``pip install 'ftransforms[compile]'``), a
    program replayed often is compiled to fused loops in the background and kept when it
    measures faster; ``compile=True`` compiles every recording at once (in the
    background), ``compile=False`` never, and ``jit(f).compile()`` compiles the recorded
    signatures here and now (docs/guides/jit.md, NOTE [compiled tier]).

    As ``jax.jit``'s, the jitted function has ``trace(*args)`` and ``lower(*args)``
    (recording now; its ``.compile()`` takes arguments of those types, static ones left
    out), ``eval_shape(*args)`` and ``clear_cache()`` (NOTE [jit's ahead-of-time API]).

    Example:
        >>> import numpy as np
        >>> from ftransforms import grad
        >>> step = jit(grad(lambda w, x: np.sum((x @ w) ** 2)))
        >>> step(np.ones(3), np.eye(3)).tolist()
        [2.0, 2.0, 2.0]
    """
    if func is None:
        return functools.partial(
            jit,
            static_argnums=static_argnums,
            static_argnames=static_argnames,
            max_cached=max_cached,
            compile=compile,
            donate_argnums=donate_argnums,
            donate_argnames=donate_argnames,
            keep_unused=keep_unused,
            inline=inline,
            backend=backend,
            device=device,
        )
    for what, where in (("backend", backend), ("device", device)):
        if where is not None and str(where).lower() not in ("cpu", "tfrt_cpu_0", "cpu:0"):
            raise UnsupportedOperationError(
                f"jit(func, {what}={where!r}): expected {what}=None or 'cpu'; a jitted "
                "program runs where its arrays are (NumPy arrays on the CPU, CuPy arrays on "
                f"their GPU), so leave {what} out and pass CuPy arrays to run on a GPU"
            )
    if not callable(func):
        raise TypeError(f"jit: expected a function, got {type(func).__name__}")
    name = getattr(func, "__name__", "f")
    argnums = _static_entries(name, "static_argnums", static_argnums, int)
    argnames = _static_entries(name, "static_argnames", static_argnames, str)
    if argnums or argnames:  # (reading the signature costs; only static arguments need it)
        argnums, argnames = _infer_static(func, name, argnums, argnames)
    cache = _ProgramCache()
    PROGRAM_CACHES[id(cache)] = cache
    # NOTE [jit's fast path]: a call whose positional arguments are all plain NumPy arrays
    # (or tuples/lists of them) and that has no keyword or static arguments is keyed by
    # the arrays' shapes and dtypes alone (``_fast_key``): the same signature the general
    # key (tree structure, array types, shapes, dtypes) describes for such a call, found
    # without flattening.  It maps to the program of the general cache, replayed only
    # when it is not value-dependent; eviction from the general cache empties it.
    fast: dict = cache.fast
    stale = [0]  # recordings made again because an outside value was rebound
    plain = not (argnums or argnames)
    attach_later: dict = {}  # id -> a recorded program not yet given its compiled tier

    no_static = ((), ())
    wrote = [False]  # an ArgumentWriteWarning was shown
    number_values: dict = {}  # NOTE [Python numbers are static]

    @functools.wraps(func)
    def compiled(*args: Any, **kwargs: Any) -> Any:
        if JIT_OFF.depth or JIT_OFF_EVERYWHERE[0]:  # NOTE [disable_jit]
            return func(*_private_copies(args), **_private_copies(kwargs))
        point = None  # where a recording of a new branch goes (NOTE [checked value reads
        if plain and not kwargs:  # under jit])
            found = _fast_key(args)
            if found is not None:
                program = fast.get(found[0])
                if program is not None and (program.guards is None or program.guards.hold()):
                    try:
                        return program.call(*found[1])
                    except ReadChanged as err:  # NOTE [checked value reads under jit]
                        if err.point is None:
                            return func(*_private_copies(args))
                        point, found = err.point, None
                    except Exception:  # NOTE [a replay that raises]
                        return func(*_private_copies(args))
                if program is None:  # one that writes into an argument (NOTE [aliased
                    program = fast.get((_WRITES, found[0]))  # arguments]) holds unaliased
                    if program is not None and (program.guards is None or program.guards.hold()):
                        if not _aliased(found[1]):  # (a write may have happened: no rerun)
                            return program.call(*found[1])
                        found = None  # a recording of its own
        else:
            found = None
        if _BRANCH.point is not None:  # (set by the replay below, for the call it makes)
            point, _BRANCH.point = _BRANCH.point, None
        if argnums or argnames:
            static, dynamic, dyn_kwargs = _split_static(name, args, kwargs, argnums, argnames)
            static_key = freeze(static)
        else:
            static, dynamic, dyn_kwargs, static_key = no_static, args, kwargs, no_static
        leaves, spec = tree_flatten((dynamic, dyn_kwargs))
        if any(type(v) is Buffer for v in leaves):  # NOTE [mutation semantics]: plain
            leaves = [v.val if type(v) is Buffer else v for v in leaves]
            dynamic, dyn_kwargs = tree_unflatten(spec, leaves)
        if any(isinstance(v, _FLOAT_SCALARS) for v in leaves):
            # A NumPy float scalar (``prices[i]``) is an input, as a 0-d array (jax.jit's
            # rule), not a static value that records again for every new number.
            leaves = _scalars_as_arrays(leaves)
            dynamic, dyn_kwargs = tree_unflatten(spec, leaves)
        if any(
            type(v) is numpy.ndarray and v.dtype.kind == "O" and holds_tracer(v) for v in leaves
        ):
            # np.array([t, 1.0]) of an enclosing transform's tracers: an array of them.
            args, kwargs = transform_inputs((args, kwargs))
            return compiled(*args, **kwargs)
        sig, arrays, traced = _signature(leaves, name)
        if traced:
            # Under an enclosing transform (grad(jit(f)), vmap(jit(f)), jit(jit(f))), jit
            # is transparent: f runs under that transform, which sees every operation (on
            # new objects: the caller's values are not written, as at the top level).
            everything, whole = tree_flatten((args, kwargs))
            aliases = alias_plan(leaves)  # NOTE [aliased arguments]
            # a NumPy array (a buffer's included) as a new buffer, which f may write into as
            # into the traced input jit makes of it at the top level
            new = [mutable(v.val if type(v) is Buffer else v) for v in everything]
            if aliases is not None and len(everything) == len(leaves):
                new = link(aliases, new, f"jit({name})", lambda: _leaf_names(len(new)))
            new = laid_out_arguments(everything, new)  # NOTE [layout of elementwise results]
            args, kwargs = tree_unflatten(whole, new)
            return transform_outputs(func(*args, **kwargs))
        key = (spec, sig, static_key)
        orders = _dict_orders((dynamic, dyn_kwargs))
        if static[1]:  # the keyword arguments in the caller's order, static ones among
            orders += (tuple(kwargs),)  # them (``**kw`` sees it), not sorted ones last
        if orders:
            key += (orders,)
        program = cache.get(key)
        aliases = None
        again = False
        if program is None or getattr(program, "writes_inputs", True):
            # NOTE [aliased arguments]: a recording that wrote into an argument holds for
            # its own aliasing only; one that wrote into none, for any
            aliases = alias_plan(leaves)
            if aliases is not None:
                key += (aliases.key,)
                program = cache.get(key)
        if (
            program is not None
            and program.guards is not None
            and (
                not program.guards.hold()
                or (  # NOTE [equal static objects under jit]
                    getattr(program, "static_objects", None)
                    and not _same_objects(program.static_objects, _static_objects(static, leaves))
                )
            )
        ):
            # NOTE [values read from outside under jit]: a value f reads from outside its
            # arguments was rebound since the recording: record again
            point = None  # (a branch of a recording that no longer holds: a recording)
            again = program.guards.changed_itself()
            if not again:
                _recording_again(name, program.guards, stale)
            del cache[key]
            attach_later.pop(id(program), None)
            program = None
        if point is not None:
            program = None  # a recording of a new branch (NOTE [checked value reads under jit])
        if program is None:
            unlike = _unlike_ndarray(arrays)
            if unlike:  # NOTE [arrays jit does not record]
                program = Program([], len(arrays), [], [], None, [], value_dependent=True)
                cache[(_kept_spec(spec), *key[1:])] = program
                if len(cache) > max_cached:
                    attach_later.pop(id(cache.popitem(last=False)[1]), None)
                warnings.warn(
                    f"jit({name}): {unlike}; this input signature runs eagerly",
                    RuntimeWarning,
                    stacklevel=2,
                )
                return func(*_private_copies(args), **_private_copies(kwargs))
            if _WARNED not in number_values:
                _count_number_values(name, spec, sig, leaves, number_values)

            def call(*dyn_args: Any, **dyn_kw: Any) -> Any:
                if not static[1]:
                    return func(*_merge_static(dyn_args, static), **dyn_kw)
                given = {**dyn_kw, **dict(static[1])}
                return func(*_merge_static(dyn_args, static), **{k: given[k] for k in kwargs})

            # NOTE [values read from outside under jit]: where they are, before the call
            statics = _static_objects(static, leaves)
            guards = guards_of(func, statics)
            program, result = _trace(
                call, dynamic, dyn_kwargs, name=name, guards=guards, statics=statics,
                aliases=aliases, again=again,
            )  # fmt: skip
            if point is not None:  # NOTE [checked value reads under jit]: a new branch
                parent, at = point
                j = at[0]
                if program.value_dependent or (
                    isinstance(program, CheckedProgram)
                    and len(program.expected) > j
                    and not program.expected[j] == parent.expected[j]
                ):
                    parent.add_branch(at, program)
                else:  # the recording read what its parent read (the replay computed the
                    parent.add_branch(at, _EAGER)  # value differently): such calls run eagerly
                return result
            if program.guards is not None:  # NOTE [equal static objects under jit]
                by_value = tuple(v for v in statics if _equal_by_value(v))
                if by_value:
                    program.static_objects = by_value
            how = _HOW[compile] if compile is not None else tier.mode()
            if how == "auto" and not program.value_dependent:
                # attached at the first replay: attaching builds the replay, which the
                # first call does not need (NOTE [deferred program passes])
                attach_later[id(program)] = program
            else:
                tier.attach(program, how)
            if aliases is not None and not program.writes_inputs:
                key = key[:-1]  # good for every aliasing of these arguments
            cache[(_kept_spec(spec), *key[1:])] = program
            if len(cache) > max_cached:
                attach_later.pop(id(cache.popitem(last=False)[1]), None)
                fast.clear()
            if program.writes_inputs and not wrote[0]:
                wrote[0] = True  # (once per jitted function)
                warnings.warn(
                    f"jit({name}): the function writes into an argument in place (x -= ..., "
                    f"x[i] = ..., out=x); under jit, as under jax.jit, the caller's arrays "
                    f"are never modified, where calling {name} without jit modifies them.  "
                    f"Return the new values and assign them (p = step(p, g)).",
                    ArgumentWriteWarning,
                    stacklevel=2,
                )
            elif program.assigns_into and not wrote[0]:
                wrote[0] = True  # NOTE [assignments into argument containers under jit]
                warnings.warn(
                    f"jit({name}): the function assigns into {program.assigns_into}, an "
                    f"item of a container it was passed (d[k] = ..., d[k] += ..., "
                    f"lst.append(...)); under jit, as under jax.jit, the function gets a "
                    f"copy of each dict, list and pytree node, so the caller's stays as it "
                    f"was, where calling {name} without jit changes it.  Return the new "
                    f"values and assign them (p, state = step(p, state, g)).",
                    ArgumentWriteWarning,
                    stacklevel=2,
                )
            if program.value_dependent:
                warnings.warn(
                    f"jit({name}): the trace depends on data ({program.reason}), so this "
                    f"input signature runs eagerly",
                    RuntimeWarning,
                    stacklevel=2,
                )
            return result
        if program.value_dependent:
            # eagerly, on copies: the caller's arrays stay as the recording left them; a
            # NumPy scalar as a 0-d array, as the recording returned it
            out = func(*_private_copies(args), **_private_copies(kwargs))
            return _eager_scalars_as_arrays(out)
        if attach_later and attach_later.pop(id(program), None) is not None:
            tier.attach(program, "auto")
        if found is not None:
            if not program.writes_inputs:
                fast[found[0]] = program
            elif aliases is None:
                fast[(_WRITES, found[0])] = program
        if program.writes_inputs:  # a write may have happened before an error: no rerun
            return program.call(*arrays)
        try:
            return program.call(*arrays)
        except ReadChanged as err:  # NOTE [checked value reads under jit]
            if err.point is None or point is not None:
                return func(*_private_copies(args), **_private_copies(kwargs))
            _BRANCH.point = err.point
            try:
                return compiled(*args, **kwargs)
            finally:
                _BRANCH.point = None
        except Exception:
            # NOTE [a replay that raises]: an error of the data (np.linalg.inv of a singular
            # matrix, in some rows of a vmap) may be one the function catches (`try: ...
            # except LinAlgError:`), which a replay cannot run: the call runs eagerly,
            # where the function's own `try` sees it (and where it does not catch it, it
            # raises as without jit).  A replay that writes nothing into the arguments
            # leaves nothing the eager run would read; the eager run gets copies, as a
            # signature that runs eagerly does (its ``except`` may write into them).
            return func(*_private_copies(args), **_private_copies(kwargs))

    compiled.cache = cache  # type: ignore[attr-defined]

    def compile_all() -> int:
        attach_later.clear()  # compiled here and now: no counting replay to attach
        return sum(tier.compile_now(p) for p in list(cache.values()) if not p.value_dependent)

    compiled.compile = compile_all  # type: ignore[attr-defined]
    # NOTE [jit's ahead-of-time API] (ftransforms/jit_aot.py): jax.jit's methods
    compiled.lower = lower(compiled, cache, name, argnums, argnames)  # type: ignore[attr-defined]
    compiled.trace = trace(compiled.lower)  # type: ignore[attr-defined]
    compiled.eval_shape = functools.partial(eval_shape, compiled)  # type: ignore[attr-defined]

    def clear_cache() -> None:
        """Forget every recording (``jax.jit(f).clear_cache()``): the next call records."""
        cache.clear()
        attach_later.clear()

    compiled.clear_cache = clear_cache  # type: ignore[attr-defined]
    return compiled


def _scalars_as_arrays(leaves: list) -> list:
    """The NumPy float scalars of ``leaves`` as 0-d arrays: on the device of the call's
    device arrays where there are some (``cupy_x * np.float64(2)`` is CuPy's own
    arithmetic eagerly; a NumPy 0-d array beside a CuPy array would be a mixed call)."""
    xp = numpy
    if any(is_array(v) and type(v) is not numpy.ndarray for v in leaves):
        try:
            xp = namespace_of(*leaves)
        except MixedBackendError:  # the function itself raises on such arguments
            xp = numpy
    return [xp.asarray(v) if isinstance(v, _FLOAT_SCALARS) else v for v in leaves]


class _ProgramCache(OrderedDict):
    """``jit(f).cache``: signature -> program.  Removing programs (``jf.cache.clear()``,
    to record again after a value ``f`` reads from outside changed) empties the fast-path
    map too (NOTE [jit's fast path]), which would go on replaying them."""

    def __init__(self) -> None:
        super().__init__()
        self.fast: dict = {}

    def clear(self) -> None:
        self.fast.clear()
        super().clear()

    def __delitem__(self, key: Any) -> None:
        self.fast.clear()
        super().__delitem__(key)

    def pop(self, *args: Any) -> Any:
        self.fast.clear()
        return super().pop(*args)

    def popitem(self, last: bool = True) -> Any:
        self.fast.clear()
        return super().popitem(last=last)


#: Recordings made again for rebound outside values after which ``jit`` warns (as
#: torch.compile's recompile limit): each costs a first call.
RECORD_AGAIN_WARN = 8


# NOTE [Python numbers are static]: a Python ``int``/``float`` argument leaf is part of a
# signature (code branches and loops on it, sizes arrays by it), so each new value records
# again; ``jax.jit`` traces Python numbers instead.  A function called with a counter or a
# schedule (``update(i, state)``, ``step(x, lr)``) would record every call, a few times
# slower than running eagerly, with no sign why: so ``jit`` warns once the numbers in one
# arrangement of arguments have taken ``RECORD_AGAIN_WARN`` values, naming them and the
# fix (an array, ``np.asarray(i)``, is an input).  Counting costs a set insertion per
# recording, nothing per replay.
_NUMBER_TYPES = (int, float, complex)
_WARNED = object()  # the key of ``seen`` set once the function has warned


def _count_number_values(name: str, spec: Any, sig: tuple, leaves: list, seen: dict) -> None:
    numbers = [
        k
        for k, v in enumerate(leaves)
        if isinstance(v, _NUMBER_TYPES) and not isinstance(v, (bool, numpy.generic))
    ]
    if not numbers:
        return
    where = set(numbers)
    family = (spec, tuple(type(leaves[k]) if k in where else s for k, s in enumerate(sig)))
    values = seen.setdefault(family, set())
    values.add(tuple(leaves[k] for k in numbers))
    if len(values) == RECORD_AGAIN_WARN:
        seen[_WARNED] = True
        kinds = ", ".join(f"leaf {k} ({type(leaves[k]).__name__})" for k in numbers)
        warnings.warn(
            f"jit({name}): the Python numbers among the arguments ({kinds}) are static, so "
            f"each new value records the function again ({len(values)} recordings so "
            f"far); pass a number that changes from call to call as an array "
            f"(np.asarray(i)), which is an input, as jax.jit treats Python numbers",
            PerformanceWarning,
            stacklevel=3,
        )


def _recording_again(name: str, guards: Any, stale: list) -> None:
    stale[0] += 1
    if stale[0] == RECORD_AGAIN_WARN:
        changed = ", ".join(guards.changed()) or "a value"
        warnings.warn(
            f"jit({name}): {changed} (read from outside the arguments) changed, and the "
            f"function has been recorded again {stale[0]} times; pass values that change "
            f"as arguments, so that calls replay",
            RuntimeWarning,
            stacklevel=3,
        )


#: jit's ``compile`` argument as a compiled-tier policy (``None``: FTRANSFORMS_JIT_COMPILE).
_HOW = {True: "eager", False: "never"}


def _static_entries(name: str, what: str, given: Any, kind: type) -> tuple:
    """``static_argnums`` (ints) or ``static_argnames`` (strs) as a tuple, or an
    ArgnumsError naming the entry of the wrong type."""
    if given is None:  # (JAX's spelling of none)
        return ()
    entries = (given,) if isinstance(given, kind) else given
    try:
        entries = tuple(entries)
    except TypeError:
        entries = (given,)
    if kind is int:  # (a NumPy integer is an int here, a bool is not)
        entries = tuple(int(e) if isinstance(e, numpy.integer) else e for e in entries)
    for e in entries:
        if not isinstance(e, kind) or (kind is int and isinstance(e, bool)):
            want = "ints (positions)" if kind is int else "strs (parameter names)"
            raise ArgnumsError(
                f"jit({name}, {what}={given!r}): {what} must be {want}, got {e!r}; "
                f"e.g. static_argnums=1 or static_argnames='n'"
            )
    return entries


def _infer_static(
    func: Callable, name: str, argnums: tuple, argnames: tuple
) -> tuple[tuple, tuple]:
    """JAX's rule: ``static_argnames`` inferred from ``static_argnums`` through ``func``'s
    signature when only the latter is given, and the other way round; both checked
    against the signature."""
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):  # a builtin without a signature: nothing to infer
        return argnums, argnames
    kinds = inspect.Parameter
    positional = [
        p for p in params if p.kind in (kinds.POSITIONAL_ONLY, kinds.POSITIONAL_OR_KEYWORD)
    ]
    n = len(positional)
    if not any(p.kind is kinds.VAR_POSITIONAL for p in params):
        for i in argnums:
            if not -n <= i < n:
                raise ArgnumsError(
                    f"jit({name}, static_argnums={argnums!r}): static_argnums has {i}, but "
                    f"{name} takes {n} positional argument(s); static_argnums counts its "
                    f"positional parameters from 0"
                )
    keyword = [
        p.name for p in params if p.kind in (kinds.POSITIONAL_OR_KEYWORD, kinds.KEYWORD_ONLY)
    ]
    unknown = sorted(set(argnames) - set(keyword))
    if unknown and not any(p.kind is kinds.VAR_KEYWORD for p in params):
        raise ArgnumsError(
            f"jit({name}, static_argnames={argnames!r}): {name} has no parameter(s) "
            f"{unknown} that can be passed by keyword; its parameters are {keyword}"
        )
    by_keyword = {
        k: p.name for k, p in enumerate(positional) if p.kind is kinds.POSITIONAL_OR_KEYWORD
    }
    if argnums and not argnames:
        argnames = tuple(by_keyword[i % n] for i in argnums if -n <= i < n and i % n in by_keyword)
    elif argnames and not argnums:
        argnums = tuple(k for k, name_k in by_keyword.items() if name_k in argnames)
    return argnums, argnames


def _split_static(
    name: str,
    args: tuple,
    kwargs: dict,
    argnums: tuple,
    argnames: tuple,
) -> tuple[tuple, tuple, dict]:
    """``((static positional, static keyword), dynamic args, dynamic kwargs)``; the static
    parts are hashable and key the cache.  Dynamic positions of static args hold ``None``.
    A static position beyond the call's positional arguments is skipped, as ``jax.jit``
    does (a required one left out then gets the function's own TypeError)."""
    n = len(args)
    positions = set()
    for i in argnums:
        j = i + n if i < 0 else i
        if 0 <= j < n:
            positions.add(j)  # a static argument not passed by position is left out (jax.jit)
    static_pos = tuple((j, args[j]) for j in sorted(positions))
    static_kw = tuple(sorted((k, v) for k, v in kwargs.items() if k in argnames))
    for where, value in [(f"argument {j}", v) for j, v in static_pos] + [
        (f"argument {k!r}", v) for k, v in static_kw
    ]:
        try:
            freeze(value)
        except TypeError:  # (a ValueError too, as jax.jit raises)
            raise ArgnumsError(
                f"jit({name}): static {where} must be hashable, got "
                f"{type(value).__name__}; pass arrays as ordinary (traced) arguments"
            ) from None
    dynamic = tuple(None if j in positions else a for j, a in enumerate(args))
    dyn_kwargs = {k: v for k, v in kwargs.items() if k not in argnames}
    return (static_pos, static_kw), dynamic, dyn_kwargs


def _merge_static(dynamic: tuple, static: tuple) -> list:
    merged = list(dynamic)
    for j, value in static[0]:
        merged[j] = value
    return merged
