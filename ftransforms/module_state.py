"""torch.func's model-state helpers for plain Python models whose weights are attributes.

``functional_call`` calls a model object with some of its arrays replaced (its attributes
named by dotted paths, ``"layer1.W"``, ``"blocks.0.b"``), ``stack_module_state`` stacks
the arrays of several such models along a new leading axis (the model-ensembling recipe:
``vmap`` over the stacked state), and ``functionalize`` is accepted for code written for
``torch.func.functionalize`` (ftransforms' transforms already give a function that writes
into arrays NumPy's semantics; NOTE [mutation semantics]).

The *arrays of a model* are found by walking its attributes: an object's ``__dict__``
(or ``__slots__``), and inside them lists, tuples and dicts (keys joined with ``.``, list
positions as numbers), the way torch names the parameters of nested modules
(``"layers.0.weight"``).  Attributes whose names start with ``__`` are skipped, and an
object reached twice is walked once (its arrays keep their first name; further names of
the same array are its *tied* names).
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.backend import is_array
from ftransforms.core.errors import ModuleStateError
from ftransforms.core.tracer import Tracer, note_stored

__all__ = ["functional_call", "functionalize", "named_arrays", "stack_module_state"]


def _is_leaf_array(value: Any) -> bool:
    return isinstance(value, Tracer) or is_array(value)


def _children(obj: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(obj, Mapping):
        for key, value in obj.items():
            yield str(key), value
    elif isinstance(obj, (list, tuple)):
        for i, value in enumerate(obj):
            yield str(i), value
    else:
        names = getattr(obj, "__dict__", None)
        if names is not None:
            for key, value in list(names.items()):
                if not key.startswith("__"):
                    yield key, value
        for slot in getattr(type(obj), "__slots__", ()):
            if not slot.startswith("__") and hasattr(obj, slot):
                yield slot, getattr(obj, slot)


def _holds_arrays(value: Any) -> bool:
    """Whether the walk looks inside ``value``: containers, and objects with attributes
    (layers, parameter holders), not functions, methods, classes or modules."""
    if isinstance(value, (Mapping, list, tuple)):
        return True
    if isinstance(value, (type, types.ModuleType, functools.partial)):
        return False
    if isinstance(value, (types.FunctionType, types.MethodType, types.BuiltinFunctionType)):
        return False
    return hasattr(value, "__dict__") or bool(getattr(type(value), "__slots__", ()))


def _walk(obj: Any, prefix: str, seen: set[int], out: list[tuple[str, Any]]) -> None:
    for key, value in _children(obj):
        name = f"{prefix}{key}"
        if _is_leaf_array(value):
            out.append((name, value))
        elif _holds_arrays(value) and id(value) not in seen:
            seen.add(id(value))
            _walk(value, name + ".", seen, out)


def _all_named_arrays(model: Any) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    _walk(model, "", {id(model)}, out)
    return out


def named_arrays(model: Any) -> dict[str, Any]:
    """The arrays a model object holds, by dotted name (torch's ``named_parameters``
    together with its buffers): each array once, under its first name.

    Example:
        >>> import numpy as np
        >>> class Layer:
        ...     def __init__(self):
        ...         self.W, self.b = np.ones((2, 3)), np.zeros(2)
        >>> class MLP:
        ...     def __init__(self):
        ...         self.layers = [Layer(), Layer()]
        >>> sorted(named_arrays(MLP()))
        ['layers.0.W', 'layers.0.b', 'layers.1.W', 'layers.1.b']
    """
    found: dict[str, Any] = {}
    ids: set[int] = set()
    for name, value in _all_named_arrays(model):
        if id(value) not in ids:
            ids.add(id(value))
            found[name] = value
    return found


def _resolve(model: Any, name: str, call: str) -> tuple[Any, str]:
    """The object holding the attribute/item ``name`` names, and its last part."""
    *path, last = name.split(".")
    holder = model
    for depth, part in enumerate(path):
        try:
            holder = _get(holder, part)
        except (AttributeError, KeyError, IndexError, ValueError):
            raise AttributeError(
                f"{call}: the model has no {'.'.join(path[: depth + 1])!r} (in {name!r}); "
                "name arrays by their attribute path, as named_arrays(model) lists them"
            ) from None
    return holder, last


def _get(holder: Any, part: str) -> Any:
    if isinstance(holder, Mapping):
        return holder[part] if part in holder else holder[int(part)]
    if isinstance(holder, (list, tuple)):
        return holder[int(part)]
    return getattr(holder, part)


_MISSING = object()


def _swap(holder: Any, part: str, value: Any, call: str) -> Any:
    """Set ``holder.part`` (or its item) to ``value``; return the old value or _MISSING."""
    if isinstance(holder, Mapping):
        key = part if part in holder or not part.lstrip("-").isdigit() else int(part)
        old = holder.get(key, _MISSING)
        if value is _MISSING:
            del holder[key]
        else:
            holder[key] = value
        return old
    if isinstance(holder, list):
        old = holder[int(part)]
        holder[int(part)] = value
        return old
    if isinstance(holder, tuple):
        raise TypeError(
            f"{call}: {part!r} is an entry of a tuple, which cannot be replaced; hold the "
            "model's arrays in lists, dicts or attributes"
        )
    old = getattr(holder, part, _MISSING)
    if value is _MISSING:
        delattr(holder, part)
    else:
        setattr(holder, part, value)
    return old


def _merged(dicts: Any, call: str) -> list:
    """``(name, array, the dict it came from)`` for a dict, a sequence of dicts (params,
    buffers) or an iterable of ``(name, array)`` pairs (``named_arrays(m).items()``), as
    torch.func's ``functional_call`` takes them.  The dict is None where nothing is written
    back: for pairs, and for a sequence of dicts, which torch merges into one new dict
    before the call (its write-back reaches that merged dict, never the caller's; writing
    into a caller's ``buffers`` closed over by a transformed function would leave a tracer
    in it)."""
    if isinstance(dicts, Mapping):
        single = True
        dicts = (dicts,)
    elif isinstance(dicts, Iterable) and not isinstance(dicts, (str, bytes)):
        single = False
        items = list(dicts)
        if not all(isinstance(d, Mapping) for d in items):
            if any(isinstance(d, Mapping) for d in items) or not all(
                isinstance(d, tuple) and len(d) == 2 and isinstance(d[0], str) for d in items
            ):
                raise ModuleStateError(
                    f"{call}: parameter_and_buffer_dicts must be a dict of arrays, a sequence "
                    f"of such dicts, or an iterable of (name, array) pairs, got items "
                    f"{sorted({type(d).__name__ for d in items})}; pass e.g. "
                    "ft.named_arrays(model) or (params, buffers)"
                )
            dicts = (None,)
            pairs = items
    else:
        raise ModuleStateError(
            f"{call}: parameter_and_buffer_dicts must be a dict of arrays, a sequence of such "
            f"dicts, or an iterable of (name, array) pairs, got {type(dicts).__name__}; pass "
            "e.g. ft.named_arrays(model) or (params, buffers)"
        )
    entries: list[tuple[str, Any, Mapping | None]] = []
    seen: set[str] = set()
    for d in dicts:
        for key, value in d.items() if d is not None else pairs:
            if key in seen:
                raise ModuleStateError(
                    f"{call}: {key!r} appears in more than one of the dicts (or of the pairs); "
                    "give each name once"
                )
            seen.add(key)
            entries.append((key, value, d if single else None))
    return entries


def functional_call(
    module: Any,
    parameter_and_buffer_dicts: Mapping[str, Any]
    | Sequence[Mapping[str, Any]]
    | Iterable[tuple[str, Any]],
    args: Any = None,
    kwargs: Mapping[str, Any] | None = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    """Call ``module(*args, **kwargs)`` with some of its arrays replaced
    (``torch.func.functional_call``), restoring them afterwards.

    ``module`` is any callable object whose weights are attributes (or entries of lists and
    dicts it holds); ``parameter_and_buffer_dicts`` maps dotted names (``"fc1.W"``,
    ``"layers.0.b"``, as :func:`named_arrays` lists them) to the arrays to use, or is a
    sequence of such dicts (params, buffers), or an iterable of ``(name, array)`` pairs
    (``named_arrays(model).items()``, as torch takes ``model.named_parameters()``).  A
    single non-tuple ``args`` is the one positional argument.  ``tie_weights``: an array
    the model holds under two names (``self.out.W = self.emb.W``) is replaced under both
    when one is given.  ``strict``: the names must be exactly the model's arrays (a tied
    name counts as given when its twin is, unless ``tie_weights=False``).  A name the model
    rebinds during the call (``self.count = self.count + 1``) is written back into the
    dict when one dict is given, as torch does (a sequence of dicts torch merges into a
    new one first, so nothing reaches the caller's dicts: none here either); a traced value
    written back into a dict that outlives the transform raises EscapedTracerError naming
    the entry when used.  Under
    :func:`vmap`/:func:`grad` this is how a model object is called with batched or
    differentiated weights.

    Example:
        >>> import numpy as np, ftransforms as ft
        >>> class Linear:
        ...     def __init__(self):
        ...         self.W, self.b = np.ones((2, 3)), np.zeros(2)
        ...     def __call__(self, x):
        ...         return self.W @ x + self.b
        >>> model = Linear()
        >>> params = ft.named_arrays(model)
        >>> loss = lambda p, x: ft.functional_call(model, p, (x,)).sum()
        >>> ft.grad(loss)(params, np.arange(3.0))["W"]
        array([[0., 1., 2.],
               [0., 1., 2.]])
    """
    call = f"functional_call({type(module).__name__})"
    entries = _merged(parameter_and_buffer_dicts, call)
    given = {key for key, _, _ in entries}
    if strict or tie_weights:
        current = _all_named_arrays(module)
    if tie_weights:
        by_id: dict[int, list[str]] = {}
        for name, value in current:
            by_id.setdefault(id(value), []).append(name)
        extra: list[tuple[str, Any, Mapping | None]] = []
        for tied in by_id.values():
            if len(tied) < 2:
                continue
            chosen = [e for e in entries if e[0] in tied]
            if len({id(e[1]) for e in chosen}) > 1:
                raise ModuleStateError(
                    f"{call}: {', '.join(repr(e[0]) for e in chosen)} are tied (one array in "
                    "the model) but were given different values; give one of them, or pass "
                    "tie_weights=False"
                )
            if chosen:
                extra += [(name, chosen[0][1], None) for name in tied if name not in given]
        entries = entries + extra
    if strict:  # checked after tying: a tied name counts as given with its twin (as torch)
        names = {name for name, _ in current}
        given = {key for key, _, _ in entries}
        missing, unexpected = sorted(names - given), sorted(given - names)
        if missing or unexpected:
            raise ModuleStateError(
                f"{call}: strict=True needs exactly the model's arrays: missing "
                f"{missing}, unexpected {unexpected}; pass strict=False to replace some"
            )
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    swapped: list[tuple[Any, str, Any, Any, str, Mapping | None]] = []
    try:
        for key, value, source in entries:
            holder, part = _resolve(module, key, call)
            old = _swap(holder, part, value, call)
            swapped.append((holder, part, old, value, key, source))
        return module(*args, **dict(kwargs or {}))
    finally:
        for holder, part, old, value, key, source in reversed(swapped):
            now = _swap(holder, part, old, call)
            if now is not value and now is not _MISSING and source is not None:
                try:
                    source[key] = now  # type: ignore[index]
                except TypeError:  # a read-only mapping: nothing to write back into
                    continue
                if isinstance(now, Tracer):  # used after its transform: say who put it there
                    note_stored(now, lambda k=key: k, _WROTE_BACK.format(call=call))


_WROTE_BACK = (
    "{call} wrote it into the dict of arrays it was given, under {{!r}}, as "
    "torch.func.functional_call writes back an array the model rebinds during the call "
    "(a running statistic), and that dict (a closed-over one) outlived the transform; "
    "give functional_call a copy, dict(buffers), to keep the dict's arrays"
)


def stack_module_state(models: Sequence[Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Stack the arrays of several models of one architecture along a new axis 0
    (``torch.func.stack_module_state``): ``(params, buffers)``, floating-point arrays in
    ``params``, the others (integer counters, boolean masks) in ``buffers``.  ``vmap``
    over them with :func:`functional_call` runs the ensemble at once.

    Example:
        >>> import numpy as np, ftransforms as ft
        >>> class Linear:
        ...     def __init__(self, seed):
        ...         self.W = np.random.default_rng(seed).normal(size=(2, 3))
        ...     def __call__(self, x):
        ...         return self.W @ x
        >>> models = [Linear(s) for s in range(4)]
        >>> params, buffers = ft.stack_module_state(models)
        >>> params["W"].shape, buffers
        ((4, 2, 3), {})
        >>> run = lambda p, x: ft.functional_call(models[0], p, (x,))
        >>> ft.vmap(run, in_dims=(0, None))(params, np.ones(3)).shape
        (4, 2)
    """
    models = list(models)
    if not models:
        raise ModuleStateError("stack_module_state(models): expected at least one model, got none")
    modes = {getattr(m, "training", None) for m in models}  # a train/eval flag, as torch's
    if len(modes) > 1:
        raise ModuleStateError(
            "stack_module_state(models): the models have different training flags "
            f"({sorted(modes, key=repr)}); set one mode on all (model.training = ...)"
        )
    classes = sorted({type(m).__name__ for m in models})
    if len(classes) > 1:
        raise ModuleStateError(
            f"stack_module_state(models): the models are of different classes {classes}; "
            "an ensemble stacks models of one architecture (one class)"
        )
    states = [named_arrays(m) for m in models]
    names = list(states[0])
    for i, state in enumerate(states[1:], 1):
        if list(state) != names:
            raise ModuleStateError(
                f"stack_module_state(models): model {i} holds arrays "
                f"{sorted(set(state) ^ set(names))} that model 0 does not (or the other way "
                "round); all models must share one architecture"
            )
    params: dict[str, Any] = {}
    buffers: dict[str, Any] = {}
    for name in names:
        values = [state[name] for state in states]
        shapes = {numpy.shape(v) for v in values}
        if len(shapes) > 1:
            raise ModuleStateError(
                f"stack_module_state(models): {name!r} has different shapes across the "
                f"models: {sorted(shapes)}; all models must share one architecture"
            )
        stacked = fnp.stack(values)
        kind = numpy.dtype(stacked.dtype).kind
        (params if kind in "fc" else buffers)[name] = stacked
    return params, buffers


def functionalize(func: Callable, *, remove: str = "mutations") -> Callable:
    """``torch.func.functionalize``, accepted for code written for it: ftransforms'
    transforms already run functions that write into arrays with NumPy's semantics
    (NOTE [mutation semantics]), so the returned function is ``func`` with the same
    behaviour under every transform (as torch's, it still writes into its arguments when
    called outside any transform).

    Example:
        >>> import numpy as np, ftransforms as ft
        >>> def f(x):
        ...     y = x.copy()
        ...     y[0] = 0.0
        ...     return (y * x).sum()
        >>> ft.grad(ft.functionalize(f))(np.array([1.0, 2.0, 3.0]))
        array([0., 4., 6.])
    """
    if remove not in ("mutations", "mutations_and_views"):
        raise ValueError(
            f"functionalize({getattr(func, '__name__', func)!r}): remove must be 'mutations' "
            f"or 'mutations_and_views', got {remove!r}"
        )

    @functools.wraps(func)
    def functionalized(*args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    return functionalized
