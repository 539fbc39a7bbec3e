"""NumPy's own random generators, read while ``jit`` records.

NOTE [NumPy random draws under jit]: a draw from NumPy's random generators
(``np.random.normal``, ``rng.normal`` of a ``np.random.Generator``; ``random.random()``
of Python's too) happens in code that no tracer sees: its result would enter the
recording as a constant, and every replay would return the same "random" numbers.  So
while ``jit`` records a signature it fingerprints the state of the generators the
function can reach — NumPy's global ``RandomState``, Python's global ``random.Random``,
and every generator (and ``BitGenerator``) that the function, the functions it closes
over or names as globals, the objects of its bound methods, and its arguments hold
(followed a few levels, through lists, tuples, dicts, partials, the fields of the
user's objects, the members of the user's classes: a generator class attribute and the
methods, walked once per class while the names that held a generator still hold it; the
attributes of the user's modules it names, ``cfg.rng``; a SciPy frozen distribution's
``random_state``; the results of a small ``functools.lru_cache``, NOTE [generators in a
cache]) — and a state that moved
during the recording marks the trace value-dependent (NOTE [value-dependent traces]):
that signature runs eagerly, drawing afresh on every call.  It costs only the first call
of a signature, never a replay.

A generator made during the recording from fresh entropy (``np.random.default_rng()``,
``RandomState()``, ``PCG64()`` with no seed, inside the function) is not there to
fingerprint beforehand: :class:`fresh_entropy` counts the entropy NumPy asks the
operating system for while the recording runs (``SeedSequence``'s one source; and
``random.Random()``'s seeding with none, and the draws of a ``random.SystemRandom``,
which has no state), and any marks the trace value-dependent too (a seeded
``default_rng(0)`` draws the same numbers at every call and is replayed).

The same fingerprints serve ``vmap`` (NOTE [randomness under vmap] in random.py) for the
generators a user holds (``rng.normal(...)`` is a method of a C object that nothing can
wrap): the ``Generator``/``RandomState`` objects a function reaches are found once per
function object (:func:`held_generators`, cached), their states read before and after
the call; NumPy's global ``RandomState`` is left out there, its module functions being
wrapped instead (code that holds it as an object: NOTE [NumPy's global generator reached
as an object]).
"""

from __future__ import annotations

import ctypes
import dis
import functools
import gc
import itertools
import random
import sys
import threading
import types
import weakref
from collections.abc import Iterator
from typing import Any

import numpy

from ftransforms.backend import is_array
from ftransforms.core.mutation import PATCHED_WHILE_ACTIVE, frame_is_user_code
from ftransforms.core.tracer import Tracer
from ftransforms.interpreters import batching
from ftransforms.numpy.generator_out import SEED_GIVEN

_GENERATORS = (numpy.random.Generator, numpy.random.RandomState)
_DEPTH = 4
#: Levels followed by the walks done once (per function object, per class, per jit
#: signature): a model's generator sits deeper (``wrapper.model.encoder.layers[0].drop.rng``,
#: reached through a lambda or a bound method) than the per-call walk of arguments goes.
_CACHED_DEPTH = 8
#: Types of argument leaves that hold no generator (not walked by :func:`held_generators`).
_PLAIN_TYPES = frozenset((numpy.ndarray, bool, int, float, complex, str, bytes, type(None)))


def _may_hold(leaf: Any) -> bool:
    """Whether an argument leaf may hold a generator: not an array, a tracer or a scalar."""
    return not isinstance(leaf, (Tracer, numpy.generic)) and not is_array(leaf)


#: What ``jit`` and ``vmap`` watch: NumPy's generators and Python's (``random.random()``
#: draws from the module's hidden ``random.Random``), NumPy's bit generators (a global
#: ``bits = PCG64(0)`` rebound is looked for again) and its ``SeedSequence``, whose
#: ``spawn`` hands out new children (NOTE [spawned generators]).
_WATCHED = (*_GENERATORS, random.Random, numpy.random.BitGenerator, numpy.random.SeedSequence)
#: Items of a container and fields of an object followed, at most (``deep``).
_MAX_ITEMS = 64
#: Packages whose objects' fields are not followed (``deep``).
_LIBRARIES = frozenset({"numpy", "scipy", "ftransforms", "batching_rules", "cupy", "builtins"})


def _fingerprint(state: Any) -> Any:
    if isinstance(state, dict):
        return tuple((k, _fingerprint(v)) for k, v in sorted(state.items()))
    if isinstance(state, numpy.ndarray):
        return state.tobytes()
    if isinstance(state, (tuple, list)):
        return tuple(_fingerprint(v) for v in state)
    return state


def _generators(
    func: Any,
    kinds: tuple = _GENERATORS,
    deep: bool = False,
    classes: list | None = None,
    limit: int = _DEPTH,
    places: list | None = None,
    caches: list | None = None,
) -> list:
    """The generators of ``kinds`` that ``func`` reaches; ``deep`` (``jit``'s recording):
    also through the items of lists, tuples and dicts, the fields of any object of the
    user's (not only of a callable one), and ``func`` may be a tuple of objects (the
    arguments).  ``places`` receives ``(container, key, generator)`` for each generator
    found as an item of a list or dict or a field of an object (see :func:`_still_held`),
    ``caches`` each ``functools.lru_cache`` reached (NOTE [generators in a cache])."""
    found: dict[int, Any] = {}
    seen: set[int] = set()
    walked: dict[type, tuple] = {}  # the classes this walk looked at: their slots

    def visit_items(container: Any, items: Any, depth: int, users: bool = True) -> None:
        for k, v in itertools.islice(items, _MAX_ITEMS):
            if type(v) not in _PLAIN_TYPES:  # (a model's arrays: one set lookup)
                if places is not None and (
                    isinstance(v, kinds) or _random_state_of(v) is not None
                ):  # (a frozen distribution rebuilt: walked again)
                    places.append((container, k, v))
                visit(v, depth + 1)
            elif v is None and places is not None and users:  # NOTE [generators made
                places.append((container, k, None))  # on first use]

    def visit(obj: Any, depth: int) -> None:
        if isinstance(obj, kinds):
            found[id(obj)] = obj
            return
        if deep and isinstance(obj, numpy.random.BitGenerator):  # ``Generator(bg)`` inside
            found[id(obj)] = obj
            return
        if obj is random and random.Random in kinds:  # random.random(): the module's own
            found[id(random._inst)] = random._inst
            return
        if depth > limit or id(obj) in seen:
            return
        seen.add(id(obj))
        if isinstance(obj, types.MethodType):
            if isinstance(obj.__self__, kinds):  # ``from random import gauss``
                found[id(obj.__self__)] = obj.__self__
                return
            visit(obj.__func__, depth)
            owner = obj.__self__
            if deep and not isinstance(owner, type) and _users(type(owner)):
                visit(owner, depth + 1)  # ``vmap(model.forward)``: the model, as an object
                return
            for v in _fields(owner):
                if isinstance(v, kinds):
                    found[id(v)] = v
            return
        wrapped = wrapped_of(obj)
        if wrapped is not None:
            visit(wrapped, depth + 1)
        if type(obj) is _LRU_CACHE:  # ``get_rng()`` of an ``@functools.cache``
            if caches is not None:
                caches.append(obj)
            for v in _cached_results(obj):
                visit(v, depth + 1)
            return
        if isinstance(obj, functools.partial):
            for v in (obj.func, *obj.args, *obj.keywords.values()):
                visit(v, depth + 1)
            return
        if deep and isinstance(obj, (list, tuple, dict)):  # ``RNGS[0]``, ``cfg["rng"]``
            items = list(obj.items()) if isinstance(obj, dict) else enumerate(list(obj))
            visit_items(obj, items, depth)
            return
        if deep and not callable(obj) and not isinstance(obj, types.ModuleType):
            cls = type(obj)  # ``state.rng`` of an object of the user's
            module = cls.__module__
            if not isinstance(module, str) or module.partition(".")[0] in _LIBRARIES:
                held = _random_state_of(obj)  # a SciPy frozen distribution's generator
                if held is not None:
                    found[id(held)] = held
                return
            fields = getattr(obj, "__dict__", {})
            visit_items(fields, list(fields.items()), depth)
        elif not isinstance(obj, (types.FunctionType, type)) and callable(obj):
            # a callable object (a model with an ``rng`` attribute): its fields and __call__
            cls = type(obj)
            fields = getattr(obj, "__dict__", {})
            visit_items(fields, list(fields.items()), depth, _users(cls))
            visit(cls.__dict__.get("__call__"), depth + 1)
        else:
            cls = None
        if cls is not None:  # and its slots, and its class's members (``class Model: rng``)
            slots = walked.get(cls)
            if slots is None:
                walked[cls] = slots = _slots(cls)
                if _users(cls):
                    found.update((id(g), g) for g in _class_generators(cls, kinds, deep, classes))
            if slots:
                for v in _slot_values(obj, slots):
                    visit(v, depth + 1)
            if deep and not callable(obj):
                return
        if isinstance(obj, types.FunctionType):
            for v in (*(obj.__defaults__ or ()), *(obj.__kwdefaults__ or {}).values()):
                visit(v, depth + 1)
            for cell in obj.__closure__ or ():
                try:
                    visit(cell.cell_contents, depth + 1)
                except ValueError:  # an empty cell
                    pass
            if _own_function(obj):  # this library's module state (_HELD's cached
                return  # walks of other functions) holds no generator of the user's
            names = code_names(obj.__code__)
            glb = obj.__globals__
            users = places is not None and _users_function(obj)
            # (a global the code reads as such or names as a string; not one that only
            # shares an attribute's name, ``m.add``: it may reach a whole registry)
            read = globals_loaded(obj.__code__) | attribute_strings(obj.__code__)
            for name in names:
                if name in glb and name in read:
                    value = glb[name]
                    if value is None or isinstance(value, kinds):
                        if users:  # (``_RNG = None`` set on first use, NOTE [generators
                            places.append((glb, name, value))  # made on first use], or
                        if value is None:  # rebound: walked again)
                            continue
                    if isinstance(value, types.ModuleType):  # ``cfg.rng`` of a module
                        for attr in _module_members(value, names):
                            visit(attr, depth + 1)
                    else:
                        visit(value, depth + 1)

    visit(func, 0)
    found[id(numpy.random.mtrand._rand)] = numpy.random.mtrand._rand
    return list(found.values())


def _random_state_of(obj: Any) -> Any:
    """The generator a library's object draws from, by SciPy's convention (its frozen
    distributions' ``random_state``: ``stats.multivariate_normal(mean, cov, seed=0)``,
    ``dist.random_state = rng``), or None."""
    cls = type(obj)
    has = _HAS_RANDOM_STATE.get(cls)
    if has is None:
        has = _HAS_RANDOM_STATE[cls] = any("random_state" in vars(k) for k in cls.__mro__)
    if not has:
        return None
    try:
        held = obj.random_state
    except Exception:  # noqa: BLE001 - a property of the library's that cannot answer
        return None
    return held if isinstance(held, _WATCHED) else None


#: Per library class: whether it has a ``random_state`` (:func:`_random_state_of`).
_HAS_RANDOM_STATE: dict[type, bool] = {}


#: Per class: the slot descriptors of its MRO (``()`` for the usual class without slots); a
#: plain dict, read for every object walked (cleared past ``_MAX_CLASSES`` classes).
_SLOTS: dict[type, tuple] = {}
_MAX_CLASSES = 4096


def _slots(cls: type) -> tuple:
    """The slot descriptors of ``cls``'s MRO (cached in ``_SLOTS``)."""
    cached = _SLOTS.get(cls)
    if cached is not None:
        return cached
    found = []
    for klass in cls.__mro__:
        slots = vars(klass).get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            slot = vars(klass).get(name)  # the slot itself, not a property of a subclass
            if isinstance(slot, types.MemberDescriptorType):
                found.append(slot)
    if len(_SLOTS) >= _MAX_CLASSES:
        _SLOTS.clear()
    _SLOTS[cls] = slots = tuple(found)
    return slots


def _slot_values(obj: Any, slots: tuple) -> list:
    """The values of ``obj``'s slots (``slots``: its class's descriptors), those set."""
    values = []
    for slot in slots[:_MAX_ITEMS]:
        try:
            values.append(slot.__get__(obj))
        except AttributeError:  # a slot never set
            pass
    return values


def _fields(obj: Any) -> list:
    """The values of an object's fields: its ``__dict__`` and its ``__slots__`` (a
    ``dataclass(slots=True)``), at most ``_MAX_ITEMS`` of each."""
    fields = getattr(obj, "__dict__", None)
    values = [] if fields is None else list(itertools.islice(fields.values(), _MAX_ITEMS))
    return values + _slot_values(obj, _slots(type(obj)))


def _users_function(func: types.FunctionType) -> bool:
    """Whether a function is the user's (its module is not a library's or Python's)."""
    module = getattr(func, "__module__", None)
    if not isinstance(module, str):
        return False
    root = module.partition(".")[0]
    return root not in _LIBRARIES and root not in sys.stdlib_module_names


def _own_function(func: types.FunctionType) -> bool:
    """Whether a function is this library's own (``ftransforms``, ``batching_rules``): its
    closure may hold the user's function (a transform's wrapper), but the globals it names
    are the library's state, such as the generators cached for other functions in
    ``_HELD``, which are not this call's."""
    module = getattr(func, "__module__", None)
    return isinstance(module, str) and module.partition(".")[0] in _OWN_MODULES


_OWN_MODULES = frozenset({"ftransforms", "batching_rules"})


def _users(owner: Any) -> bool:
    """Whether a class or module is the user's (not NumPy's, SciPy's, this library's or
    Python's own: their members are not followed)."""
    module = getattr(owner, "__module__", None) if isinstance(owner, type) else owner.__name__
    if not isinstance(module, str):
        return False
    root = module.partition(".")[0]
    return root not in _LIBRARIES and root not in sys.stdlib_module_names


def _class_members(cls: type) -> tuple[list, list]:
    """The members of the user's classes in ``cls``'s MRO that may reach a generator: a
    generator class attribute (``class Model: rng = np.random.default_rng(0)``) and the
    methods and properties (``forward``, which ``__call__`` calls, using a global RNG);
    and the namespaces whose names holding a generator are watched for rebinding."""
    members, spaces = [], []
    for klass in cls.__mro__:
        if klass is object or not _users(klass):
            continue
        spaces.append((vars(klass), None))
        for v in list(vars(klass).values())[:_MAX_ITEMS]:
            if isinstance(v, (staticmethod, classmethod)):
                v = v.__func__
            elif isinstance(v, property):
                v = v.fget
            if isinstance(v, types.FunctionType):
                spaces += _named_spaces(v)
            if isinstance(v, (*_WATCHED, numpy.random.BitGenerator, types.FunctionType)):
                members.append(v)
    return members, spaces


#: Per class (and walk): the generators its members reach, and (namespace, name, generator)
#: for each name that held one, checked at every use (a rebound one walks the class again).
_CLASS_HELD: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _class_current(cls: type, kinds: tuple, deep: bool) -> bool:
    """Whether the generators cached for ``cls`` still hold (no name that held one was
    rebound: ``Model.rng = np.random.default_rng(1)`` after the first call)."""
    cached = _CLASS_HELD.get(cls, {}).get((kinds, deep))
    return cached is not None and all(space.get(n) is g for space, n, g in cached[1])


def _class_generators(cls: type, kinds: tuple, deep: bool, classes: list | None = None) -> tuple:
    """The generators of ``kinds`` that the members of ``cls`` (the user's classes in its
    MRO: class attributes, methods) reach, walked once per class while the names that held
    a generator still hold it (NOTE [NumPy random draws under jit])."""
    try:
        per_class = _CLASS_HELD.setdefault(cls, {})
    except TypeError:  # not weakly referable
        per_class = {}
    if classes is not None:  # (a caller that caches what it found checks these again)
        classes.append(cls)
    if _class_current(cls, kinds, deep):
        return per_class[(kinds, deep)][0]
    per_class[(kinds, deep)] = ((), ())  # a member that reaches the class again: nothing more
    members, spaces = _class_members(cls)
    reached: dict[int, Any] = {}
    for member in members:
        reached.update((id(g), g) for g in _generators(member, kinds, deep, limit=_CACHED_DEPTH))
    held = tuple(
        (space, name, space[name])
        for space, names in spaces
        for name in (list(space) if names is None else names)
        if isinstance(space.get(name), _WATCHED)
    )
    per_class[(kinds, deep)] = (tuple(reached.values()), held)
    return per_class[(kinds, deep)][0]


def _named_spaces(func: types.FunctionType) -> list:
    """``(namespace, names)`` where ``func`` looks names up: its globals, and the user's
    modules it names (``cfg.rng``)."""
    names = code_names(func.__code__)
    glb = func.__globals__
    spaces = [(glb, names)]
    for n in names:
        value = glb.get(n)
        if isinstance(value, types.ModuleType) and _users(value):
            spaces.append((vars(value), names))
    return spaces


def _module_members(module: types.ModuleType, names: set) -> list:
    """The attributes of the user's module that a function names (``cfg.rng.normal``:
    ``rng``); nothing for NumPy's, SciPy's, this library's or Python's modules (the
    ``random`` module's own generator is found by name)."""
    if module is random:
        return [module]
    if not _users(module):
        return []
    members = vars(module)
    return [
        members[n] for n in names if n in members and not isinstance(members[n], types.ModuleType)
    ]


def reachable(objects: tuple, kinds: tuple) -> list:
    """The objects of ``kinds`` that the functions and objects ``objects`` reach: through
    closures, defaults, the globals their code names, partials, methods, the items of
    lists, tuples and dicts and the fields of the user's objects (as for generators)."""
    return [o for o in _generators(objects, kinds, deep=True) if isinstance(o, kinds)]


batching.REACHABLE[0] = reachable  # NOTE [batched writes into captured arrays]


def wrapped_of(obj: Any) -> Any:
    """``obj.__wrapped__`` (the function a decorator wraps), or ``None``: also for an
    object whose ``__getattr__`` raises another error than AttributeError for a name it
    lacks (``__getattr__ = dict.__getitem__`` of an attribute dict raises KeyError)."""
    try:
        return getattr(obj, "__wrapped__", None)
    except Exception:  # noqa: BLE001 - the user's __getattr__: it has no such attribute
        return None


def code_names(code: types.CodeType) -> set:
    """The global (and attribute) names a code object and its nested functions use."""
    return {n for c in nested_codes(code) for n in c.co_names}


def nested_codes(code: types.CodeType) -> Iterator[types.CodeType]:
    """``code`` and the code objects of the functions nested in it."""
    stack = [code]
    while stack:
        c = stack.pop()
        yield c
        stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))


def globals_loaded(code: types.CodeType) -> frozenset:
    """The names ``code`` (and the functions nested in it) reads as globals, not as
    attributes (cached while the code lives: reading its instructions costs tens of us).

    >>> sorted(globals_loaded((lambda m: m.add(W)).__code__))
    ['W']
    """
    found = _LOADED.get(code)
    if found is None:
        found = _LOADED[code] = frozenset(
            ins.argval
            for c in nested_codes(code)
            for ins in dis.get_instructions(c)
            if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME")
        )
    return found


def attribute_strings(code: types.CodeType) -> frozenset:
    """The identifiers among the string constants of ``code`` (and of the functions nested
    in it): the names it may read by string (``getattr(self, "boost", 1.0)``,
    ``globals()["W"]``).

    >>> sorted(attribute_strings((lambda c: getattr(c, "lr", 0.1)).__code__))
    ['lr']
    """
    found = _STRINGS.get(code)
    if found is None:
        found = _STRINGS[code] = frozenset(
            k
            for c in nested_codes(code)
            for k in c.co_consts
            if type(k) is str and k.isidentifier()
        )
    return found


_LOADED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_STRINGS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _state(gen: Any) -> Any:
    return gen.getstate() if isinstance(gen, random.Random) else _fingerprint(_raw(gen))


def snapshot(func: Any, args: Any = ()) -> list:
    """The generators ``func`` can reach (Python's ``random`` module's too), and those
    among ``args`` (a generator passed as an argument, ``f(x, rng)``), with their states
    now."""
    caches: list = []  # NOTE [generators in a cache]
    places: list = []  # NOTE [generators made on first use]
    gens = _generators(func, _WATCHED, deep=True, limit=_CACHED_DEPTH, caches=caches, places=places)
    # (NumPy's global again: once)
    gens += _generators(tuple(args), _WATCHED, deep=True, limit=_CACHED_DEPTH, caches=caches)
    # (a random.SystemRandom has no state: its draws are counted, see fresh_entropy)
    unique = {id(g): g for g in gens if not isinstance(g, random.SystemRandom)}
    snap = _Snapshot((g, _state(g)) for g in unique.values())
    snap.caches = tuple(caches)
    snap.lazy = tuple(p for p in places if p[2] is None)
    snap.func = func
    return snap


class _Snapshot(list):
    """:func:`snapshot`'s ``(generator, state)`` pairs, the ``lru_cache`` objects the walk
    reached (``caches``), the places that held None (``lazy``) and the function."""

    caches: tuple = ()
    lazy: tuple = ()
    func: Any = None


def drew(snap: list) -> bool:
    """Whether any generator of ``snap`` moved since, or one cached since (in the caches the
    walk reached) moved from its state as made (or has none known: NOTE [generators in a
    cache])."""
    if any(_state(g) != s for g, s in snap):
        return True
    caches, lazy = getattr(snap, "caches", ()), getattr(snap, "lazy", ())
    if not caches and not lazy:
        return False
    old = {id(g) for g, _ in snap}
    now = _in_caches(caches)
    if lazy and not _still_held(lazy):  # NOTE [generators made on first use]
        now.update((id(g), g) for g in _generators(snap.func, _WATCHED, True, limit=_CACHED_DEPTH))
    for g in now.values():
        if id(g) not in old and _stateful(g):
            made = _state_as_made(g)
            if made is None or _fingerprint(_raw(g)) != _fingerprint(made):
                return True
    return False


_HELD: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def held_generators(func: Any, args: list) -> tuple:
    """The generators other than NumPy's global one that ``func`` reaches (found at the
    first call of each function object, and again where a global of ``func``, an item of a
    list or dict or a field of an object that held a generator was rebound since: a
    notebook's cell ``rng = np.random.default_rng(0)`` run again, ``cfg["rng"] = ...``; a
    generator reached some other way and replaced later, as a closure's cell, is not seen),
    and those among ``args``."""
    others = [a for a in args if type(a) not in _PLAIN_TYPES]  # (arrays: one set lookup)
    passed = tuple(a for a in others if isinstance(a, _WATCHED))
    objects = tuple(a for a in others if not isinstance(a, _WATCHED) and _may_hold(a))
    if objects:  # ``f(x, state)`` with ``state.rng``: walked at every call
        passed += tuple(g for g in _generators(objects, _WATCHED, deep=True) if _stateful(g))
    try:
        found, globals_held, classes, places, caches, lazy = _HELD[func]
    except (KeyError, TypeError):
        pass
    else:
        if (
            (not globals_held or all(glb.get(n) is gen for glb, n, gen in globals_held))
            and (not classes or all(_class_current(cls, _WATCHED, True) for cls in classes))
            and (not places or _still_held(places))
        ):
            if not caches and not lazy:
                return found + passed
            return _with_caches(found + passed, caches, lazy, func, args)
    glob = numpy.random.mtrand._rand
    classes = []  # the classes whose members were walked (their generators cached per class)
    places = []  # the items and fields that held one (``cfg["rng"]``, ``state.rng``)
    caches = []  # the lru_caches it reached (NOTE [generators in a cache])
    reached = _generators(
        func, _WATCHED, deep=True, classes=classes, limit=_CACHED_DEPTH, places=places,
        caches=caches,
    )  # fmt: skip
    found = tuple(g for g in reached if g is not glob and _stateful(g))
    glb = getattr(func, "__globals__", None)
    code = getattr(func, "__code__", None)
    globals_held = ()
    if isinstance(glb, dict) and isinstance(code, types.CodeType):
        globals_held = tuple(  # (and in the user's modules it names: ``cfg.rng``)
            (space, name, space[name])
            for space, names in _named_spaces(func)
            for name in names
            if isinstance(space.get(name), _WATCHED)
        )
    lazy = tuple(p for p in places if p[2] is None)
    try:
        _HELD[func] = (found, globals_held, tuple(classes), tuple(places), tuple(caches), lazy)
    except TypeError:  # not weakly referable: found again at each call
        pass
    if not caches and not lazy:
        return found + passed
    return _with_caches(found + passed, tuple(caches), lazy, func, args)


def _with_caches(gens: tuple, caches: tuple, lazy: tuple, func: Any, args: list) -> tuple:
    """``gens`` with the generators ``caches`` hold now, as a :class:`HeldGenerators` (the
    function reaches a cache or a place that holds None: NOTE [generators in a cache],
    NOTE [generators made on first use])."""
    if caches:
        glob = numpy.random.mtrand._rand
        cached = _in_caches(caches)
        for g in gens:
            cached.pop(id(g), None)
        gens = (*gens, *(g for g in cached.values() if g is not glob and _stateful(g)))
    out = HeldGenerators(gens)
    out.caches, out.lazy, out.func, out.args = caches, lazy, func, args
    return out


# NOTE [generators in a cache]: ``@functools.cache def get_rng(): return
# np.random.default_rng(0)`` hands every call the one generator it made at the first, so a
# loop over the rows draws further from it row by row; under one batched call the rows shared
# one draw.  The walk for generators follows an ``lru_cache``'s results (``gc.get_referents``
# of the cache: its results, or its dict of them), and :func:`held_generators` looks in the
# caches it reached at every call, for a generator cached since (a cache of more than 16
# results memoizes a computation and is not looked through: ~0.1 us a result).  One made in the
# call itself (the cache was empty) is new afterwards (:func:`new_cached`): its state as made
# comes from its ``SeedSequence`` (a seeded ``default_rng(seed)``, ``Generator(PCG64(s))``),
# and where it moved from there the call drew from it, as from a generator held before (set
# back there for the rows; one with no ``SeedSequence``, as ``RandomState(seed)``, is left
# where it is: under 'different' the rows draw on from there).  ``jit`` looks in the caches
# its walk reached the same way: a generator cached during the recording that moved (or
# whose state as made is unknown) makes the trace value-dependent.
_LRU_CACHE = type(functools.lru_cache(None)(len))


def _cached_results(cache: Any) -> list:
    """The results an ``lru_cache`` holds that may hold a generator (its keys are tuples and
    dicts of arguments; arrays and numbers are left out), where it holds at most
    ``_MAX_CACHED`` (a larger one memoizes a computation: not looked through)."""
    info = cache.cache_info()
    if not 0 < info.currsize <= _MAX_CACHED:
        return []
    own = getattr(cache, "__dict__", None)
    holding = _HOLDING_TYPES
    found = []
    for v in gc.get_referents(cache):
        if type(v) is dict:  # an unbounded cache's dict of results (a bounded one's: links)
            if info.maxsize is None and v is not own:
                found += (r for r in v.values() if holding.get(type(r), True))
        elif holding.get(type(v), True):  # (a bounded cache's links: key and result each)
            found.append(v)
    return found


#: Results an ``lru_cache`` holds at most to be looked through (NOTE [generators in a cache]).
_MAX_CACHED = 16
#: Types of an ``lru_cache``'s referents that are or hold no generator it cached (its
#: keys, its links' types, the function: :func:`_cached_results`).
_HOLDING_TYPES: dict[type, bool] = dict.fromkeys(
    (*_PLAIN_TYPES, tuple, type, object, types.FunctionType), False
)


def _in_caches(caches: tuple) -> dict[int, Any]:
    """The generators the ``lru_cache`` objects ``caches`` hold now, by id."""
    return {id(g): g for c in caches for g in _cached_results(c) if isinstance(g, _WATCHED)}


class HeldGenerators(tuple):
    """:func:`held_generators`' answer for a function that reaches ``lru_cache`` objects
    (``caches``) or names and fields that held None (``lazy``), with the function and its
    arguments (NOTE [generators in a cache], NOTE [generators made on first use])."""

    caches: tuple = ()
    lazy: tuple = ()
    func: Any = None
    args: list = []


# NOTE [generators made on first use]: ``_RNG = None`` set by ``get_rng()`` on its first
# call (``global _RNG; if _RNG is None: _RNG = np.random.default_rng(0)``), or a model's
# ``self._rng`` made by a property, hands later calls the generator the first made: as for
# a cache (NOTE [generators in a cache]), a loop's rows draw on from it, and one batched
# call shared a draw.  The walk for generators records the names (the globals the user's
# functions name) and the fields of the user's objects that held None; a call after which
# one holds something else walks again, and a generator found then that was not there
# before was made during the call: its state as made is compared and set back as for a
# cached one.  The next call walks again too (the place no longer holds None).


def new_cached(gens: tuple) -> tuple[tuple, list]:
    """The generators cached or made on first use since :func:`held_generators` returned
    ``gens``, and their states as made, those whose state as made is known (NOTE
    [generators in a cache], NOTE [generators made on first use])."""
    if type(gens) is not HeldGenerators:
        return (), []
    lazy = gens.lazy
    if lazy and not gens.caches and _still_held(lazy):
        return (), []  # (nothing made on first use, no cache: the usual case)
    old = {id(g) for g in gens}
    old.update(id(b) for b in map(_bits_of, gens) if b is not None)  # (a walk may meet
    old.add(id(numpy.random.mtrand._rand._bit_generator))  # them through their owners)
    now = _in_caches(gens.caches)
    if lazy and not _still_held(lazy):
        now.update((id(g), g) for g in held_generators(gens.func, gens.args))
    made, states = [], []
    for g in now.values():
        state = None if id(g) in old else _state_as_made(g)
        if state is not None:
            made.append(g)
            states.append(state)
    return tuple(made), states


def _bits_of(gen: Any) -> Any:
    """The bit generator a ``Generator`` or ``RandomState`` draws from, or None."""
    if isinstance(gen, numpy.random.Generator):
        return gen.bit_generator
    if isinstance(gen, numpy.random.RandomState):
        return getattr(gen, "_bit_generator", None)
    return None


def _state_as_made(gen: Any) -> Any:
    """The raw state ``gen`` had when its ``SeedSequence`` seeded it, or None."""
    bits = gen.bit_generator if isinstance(gen, numpy.random.Generator) else gen
    seq = getattr(bits, "seed_seq", None)
    if type(seq) is not _SEED_SEQUENCE or not isinstance(bits, numpy.random.BitGenerator):
        return None
    fresh = _SEED_SEQUENCE(seq.entropy, spawn_key=seq.spawn_key, pool_size=seq.pool_size)
    try:
        return type(bits)(fresh).state, 0
    except TypeError:  # a bit generator of the user's that takes other arguments
        return None


def _still_held(places: tuple) -> bool:
    """Whether each ``(container, key, generator)`` of ``places`` still holds its generator
    (``cfg["rng"] = np.random.default_rng(1)`` after the first call: walked again)."""
    for container, key, gen in places:
        try:
            if container[key] is not gen:
                return False
        except (LookupError, TypeError):
            return False
    return True


def _stateful(gen: Any) -> bool:
    """Whether ``gen``'s state can be read and set back (a ``random.SystemRandom`` has none:
    its draws are counted, see :class:`fresh_entropy`)."""
    return not isinstance(gen, random.SystemRandom)


def _raw(gen: Any) -> Any:
    """``gen``'s state, as :func:`restore` takes it back: a NumPy bit generator's with the
    children its ``SeedSequence`` spawned (``rng.spawn(1)`` moves no state, but a loop's
    next row spawns the next child: NOTE [spawned generators])."""
    if isinstance(gen, random.Random):
        return gen.getstate()
    if isinstance(gen, numpy.random.Generator):
        gen = gen.bit_generator
    if isinstance(gen, numpy.random.BitGenerator):  # (``Generator(bg)`` made inside)
        seq = gen.seed_seq
        return gen.state, seq.n_children_spawned if type(seq) is _SEED_SEQUENCE else None
    if isinstance(gen, _SEED_SEQUENCE):
        return gen.n_children_spawned
    return gen.get_state(legacy=False)


# NOTE [spawned generators]: ``rng.spawn(n)`` (``Generator``, ``BitGenerator``,
# ``SeedSequence``) hands out the children numbered from its ``SeedSequence``'s
# ``n_children_spawned`` on and counts them there, moving no generator state: in a loop over
# the rows each row spawns the next children, under one batched call every row shared one
# spawn.  So the count is part of the state ``vmap`` and ``jit`` compare (a ``SeedSequence``
# the function reaches is watched as a generator is), and setting it back re-runs the
# sequence's ``__init__`` with its own entropy and key and the old count (the count has no
# setter; the pool is made again from the same entropy).
_SEED_SEQUENCE = numpy.random.SeedSequence


def _set_spawned(seq: Any, count: int | None) -> None:
    """Set ``seq``'s count of spawned children back to ``count`` (NOTE [spawned
    generators])."""
    if count is not None and type(seq) is _SEED_SEQUENCE and seq.n_children_spawned != count:
        seq.__init__(  # type: ignore[misc]
            seq.entropy, spawn_key=seq.spawn_key, pool_size=seq.pool_size, n_children_spawned=count
        )


class _GlobalSlots(threading.local):
    def __init__(self) -> None:
        self.slots: list[list] = []  # one per vmap call watching NumPy's global generator


_GLOBAL_SLOTS = _GlobalSlots()


def watch_global() -> list:
    """A slot that receives the state of NumPy's global generator before the first draw
    from it (``np.random.normal`` & co., ``random.py``'s wrappers call
    :func:`before_global_draw`) until :func:`unwatch_global`: a ``vmap`` whose rows may
    rerun one at a time sets it back from there, as the loop over the rows draws (its
    state costs 0.1-0.3 ms to read, so it is read only where a draw comes)."""
    slot: list = [None]
    _GLOBAL_SLOTS.slots.append(slot)
    return slot


def unwatch_global(slot: list) -> None:
    _GLOBAL_SLOTS.slots.remove(slot)


def before_global_draw() -> None:
    """NumPy's global generator is about to draw: fill the watching slots still empty."""
    _MOVED_BY_WRAPPERS[0] += 1  # NOTE [NumPy's global generator reached as an object]
    slots = _GLOBAL_SLOTS.slots
    if slots:
        state = None
        for slot in slots:
            if slot[0] is None:
                state = _raw(numpy.random.mtrand._rand) if state is None else state
                slot[0] = state


# NOTE [NumPy's global generator reached as an object]: NumPy's module functions
# (``np.random.normal``, ``np.random.seed``) are wrapped while a transform is active, but
# code holding the global ``RandomState`` itself draws past them: SciPy's distributions keep
# ``np.random.mtrand._rand`` from import (``random_state=None``), so ``stats.norm.rvs(size=3)``
# inside ``vmap`` drew once for the whole batch, under 'error' too.  Its state costs
# 70-130 us to read (more than a small vmap call), so a vmap call that watches draws reads a
# fingerprint only, through the bit generator's ctypes interface (its MT19937 state struct:
# ``key[624]``, then ``pos``): the position and the first key word, which every draw of MT
# words changes (624 of them regenerate the keys), ~1 us.  A move that no wrapped module
# function made (they count their moves in ``_MOVED_BY_WRAPPERS``; a call with both kinds is
# taken as theirs) is a draw the batch shared (api._held_drew's 'global'): 'different' runs
# the rows one at a time (after the shared draw: the state is not set back, so the rows'
# numbers are not the loop's, each row its own all the same); 'error' runs the batch again
# and raises if the result changed beyond rounding (another thread may have drawn
# meanwhile, and a library may draw for itself from the global generator, as SciPy's
# BarycentricInterpolator permutes its nodes: a result within 64 ulps of the first drew
# nothing that mattered; who drew cannot be told from the state).  A function seen drawing
# so is remembered (:func:`note_global_object_draws`): a 'same' batch of it that runs in
# parts (the chunks of ``chunk_size``, a split's groups) reads the state before the first
# part and starts every part from there, as a generator it holds (api._sharing_held_draws);
# where a chunked 'same' call is the first to see it draw, its chunks drew one after another,
# and the call runs again, every chunk from the state they left.  Not seen: a legacy normal
# served from ``RandomState``'s cached second Gaussian (it moves no MT word), and a draw in a
# call that also draws through the module functions (taken as theirs).
#: Offset of ``pos`` in NumPy's MT19937 state struct (``uint32_t key[624]; int pos;``), as
#: its ctypes interface's ``state_address`` holds it.
_MT_POS = 624 * ctypes.sizeof(ctypes.c_uint32)
#: Moves of NumPy's global generator made through the wrapped module functions (all threads).
_MOVED_BY_WRAPPERS = [0]
_MTRAND = numpy.random.mtrand
#: [the global RandomState, its state's pos, its key[0], its bit generator] (the views:
#: None where it is not an MT19937)
_GLOBAL_VIEW: list = [None, None, None, None]


def note_global_move() -> None:
    """A wrapped module function is about to move NumPy's global generator (a seed)."""
    _MOVED_BY_WRAPPERS[0] += 1


def global_mark() -> tuple | None:
    """A fingerprint of NumPy's global generator's state and of the moves the wrapped
    module functions made, or None where it is not an MT19937 (NOTE [NumPy's global
    generator reached as an object])."""
    view = _GLOBAL_VIEW
    if _MTRAND._rand is not view[0]:  # (its bit generator is its own for its lifetime)
        bits = getattr(_MTRAND._rand, "_bit_generator", None)
        if type(bits) is numpy.random.MT19937:
            address = bits.ctypes.state_address
            pos = ctypes.c_int.from_address(address + _MT_POS)
            view[:] = [_MTRAND._rand, pos, ctypes.c_uint32.from_address(address), bits]
        else:
            view[:] = [_MTRAND._rand, None, None, bits]
    pos = view[1]
    return None if pos is None else (pos.value, view[2].value, _MOVED_BY_WRAPPERS[0])


def global_drew(mark: tuple | None) -> bool:
    """Whether NumPy's global generator moved since ``global_mark()`` returned ``mark``
    other than through the wrapped module functions."""
    if mark is None:
        return False
    now = global_mark()
    return now != mark and now is not None and now[2] == mark[2]


#: The functions seen drawing from NumPy's global generator past its module functions: a
#: ``vmap(randomness='same')`` of one that runs in parts sets it back for each part (NOTE
#: [NumPy's global generator reached as an object]).
_GLOBAL_OBJECT_DRAWERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def note_global_object_draws(func: Any) -> None:
    """``func`` drew from NumPy's global generator past its module functions."""
    try:
        _GLOBAL_OBJECT_DRAWERS[func] = True
    except TypeError:  # not weakly referable or not hashable: found out at each call
        pass


def with_global_object(func: Any, gens: tuple) -> tuple:
    """``gens``, and NumPy's global generator where ``func`` was seen drawing from it past
    its module functions (:func:`note_global_object_draws`)."""
    try:
        known = func in _GLOBAL_OBJECT_DRAWERS
    except TypeError:
        return gens
    return (*gens, numpy.random.mtrand._rand) if known else gens


def restore_global(slot: list | None) -> None:
    """Set NumPy's global generator back to the state ``slot`` received, if any."""
    if slot is not None and slot[0] is not None:
        numpy.random.mtrand._rand.set_state(slot[0])


def raw_states(gens: tuple) -> list:
    """The states of ``gens`` now, as :func:`restore` takes them back."""
    return [_raw(g) for g in gens]


class _TracedDraws(threading.local):
    def __init__(self) -> None:
        self.ids: list[int] = []  # cleared when the thread's last transform returns
        self.watching: list[set] = []  # sets that collect the ids too, for their owner


#: ``id()`` of each generator ``ftransforms.random`` drew from (it follows ``randomness``
#: itself, so those moves need no rerun).
TRACED_DRAWS = _TracedDraws()


def note_traced_draw(rng: Any) -> None:
    """``ftransforms.random`` drew from ``rng`` (see :func:`moved`)."""
    TRACED_DRAWS.ids.append(id(rng))
    for seen in TRACED_DRAWS.watching:
        seen.add(id(rng))


def unwatch(seen: set) -> None:
    """Stop collecting into ``seen`` (by identity: another watcher's set may be equal)."""
    watching = TRACED_DRAWS.watching
    for k in range(len(watching) - 1, -1, -1):
        if watching[k] is seen:
            del watching[k]
            return


def clear_traced_draws() -> None:
    TRACED_DRAWS.ids.clear()


def moved(gens: tuple, raw: list, mark: int) -> bool:
    """Whether any of ``gens`` drew since its state was ``raw`` other than through
    ``ftransforms.random`` (the draws noted after position ``mark``)."""
    traced = set(TRACED_DRAWS.ids[mark:])
    return any(
        id(g) not in traced and _fingerprint(_raw(g)) != _fingerprint(r) for g, r in zip(gens, raw)
    )


def restore(gens: tuple, raw: list) -> None:
    """Set ``gens`` back to the states ``raw``."""
    for g, state in zip(gens, raw):
        if isinstance(g, random.Random):
            g.setstate(state)
            continue
        if isinstance(g, numpy.random.Generator):
            g = g.bit_generator
        if isinstance(g, numpy.random.BitGenerator):
            g.state = state[0]
            _set_spawned(g.seed_seq, state[1])
        elif isinstance(g, _SEED_SEQUENCE):
            _set_spawned(g, state)
        else:
            g.set_state(state)


class _Entropy(threading.local):
    def __init__(self) -> None:
        self.taken = 0  # fresh seeds NumPy took on this thread while watched
        self.replays: list = []  # the SeedReplay of each running 'same' part, outermost first


_ENTROPY = _Entropy()
_ENTROPY_LOCK = threading.Lock()
_ENTROPY_WATCHES = [0, None, None]  # [recordings watching, NumPy's own source, Python's]
_PYTHON_SEED = random.Random.seed


def _counted_randbits(k: int) -> int:
    _ENTROPY.taken += 1
    return _ENTROPY_WATCHES[1](k)


def _counted_seed(self: random.Random, a: Any = None, *args: Any, **kwargs: Any) -> None:
    if a is None:  # ``random.Random()``: seeded from the operating system
        _ENTROPY.taken += 1
    return _ENTROPY_WATCHES[2](self, a, *args, **kwargs)


#: ``random.SystemRandom``'s draws (every other method draws through these), which read
#: the operating system's entropy and have no state to fingerprint.
_SYSTEM_DRAWS = {k: random.SystemRandom.__dict__[k] for k in ("random", "getrandbits")}


def _counted_system(name: str) -> Any:
    draw = _SYSTEM_DRAWS[name]

    def counted(self: random.SystemRandom, *args: Any) -> Any:
        _ENTROPY.taken += 1
        return draw(self, *args)

    return counted


_COUNTED_SYSTEM = {k: _counted_system(k) for k in _SYSTEM_DRAWS}


def _watch_entropy(on: bool) -> None:
    """Count (``on``) or stop counting the fresh entropy taken (see :class:`fresh_entropy`)."""
    if on:  # (the one there now: a transform's window may have put its own, below)
        _ENTROPY_WATCHES[2] = random.Random.__dict__["seed"]
    random.Random.seed = _counted_seed if on else _ENTROPY_WATCHES[2]
    for k in _SYSTEM_DRAWS:
        setattr(random.SystemRandom, k, (_COUNTED_SYSTEM if on else _SYSTEM_DRAWS)[k])
    if _SEED_SOURCE is not None:
        if on:
            _ENTROPY_WATCHES[1] = _SEED_SOURCE.randbits
        _SEED_SOURCE.randbits = _counted_randbits if on else _ENTROPY_WATCHES[1]


class fresh_entropy:  # noqa: N801 - used as ``with fresh_entropy() as fresh:``
    """While the block runs, count the fresh seeds NumPy takes on this thread (a generator
    made with no seed); ``drew`` says whether it took any (NOTE [NumPy random draws under
    jit]).  NumPy's entropy source is wrapped only while some thread is in such a block."""

    __slots__ = ("start", "drew")

    def __enter__(self) -> fresh_entropy:
        with _ENTROPY_LOCK:
            if _ENTROPY_WATCHES[0] == 0:
                _watch_entropy(True)
            _ENTROPY_WATCHES[0] += 1
        self.start = _ENTROPY.taken
        self.drew = False
        return self

    def __exit__(self, *exc: Any) -> None:
        self.drew = _ENTROPY.taken != self.start
        with _ENTROPY_LOCK:
            _ENTROPY_WATCHES[0] -= 1
            if _ENTROPY_WATCHES[0] == 0:
                _watch_entropy(False)


def _seed_source() -> Any:
    """The module whose ``randbits`` seeds NumPy's generators made with no seed (its
    ``SeedSequence``), or ``None`` where this NumPy seeds otherwise."""
    module = getattr(numpy.random, "bit_generator", None)
    return module if callable(getattr(module, "randbits", None)) else None


_SEED_SOURCE = _seed_source()


_OWN_ROOTS = frozenset({"ftransforms", "numpy"})


def _made_by_user_code(frame: Any) -> bool:
    """Whether the first frame above NumPy's and this library's (``np.random.default_rng``
    is wrapped here) is the user's code, not a library's (NOTE [fresh entropy under
    vmap])."""
    while frame is not None:
        if frame.f_code.co_filename.startswith("<doctest"):
            return True  # a docstring's example is the user's code
        if (frame.f_globals.get("__name__") or "").split(".")[0] not in _OWN_ROOTS:
            return frame_is_user_code(frame)
        frame = frame.f_back
    return False


def _counted_while_active(k: int) -> int:
    if not _made_by_user_code(sys._getframe(1)):
        return _NUMPY_RANDBITS(k)  # a library's own generator
    _ENTROPY.taken += 1
    replays = _ENTROPY.replays
    return _replayed_seed(replays, len(replays) - 1, k) if replays else _NUMPY_RANDBITS(k)


def _python_seed_while_active(
    self: random.Random, a: Any = None, *args: Any, **kwargs: Any
) -> None:
    """``random.Random.seed`` while a transform is active: ``random.Random()`` made by the
    user's code takes a fresh seed as NumPy's generators made with no seed do (counted, and
    replayed in the parts of a 'same' batch: NOTE [fresh entropy under vmap])."""
    if a is None:
        frame = sys._getframe(1)
        while frame is not None and frame.f_globals.get("__name__") == "random":
            frame = frame.f_back  # (``Random.__init__`` calls ``self.seed()``)
        if _made_by_user_code(frame):
            _ENTROPY.taken += 1
            replays = _ENTROPY.replays
            if replays:
                a = _replayed_seed(replays, len(replays) - 1, _PYTHON_SEED_BITS)
    return _PYTHON_SEED(self, a, *args, **kwargs)


#: The bits of the seed a replayed ``random.Random()`` takes (NumPy's own take 128).
_PYTHON_SEED_BITS = 128


class _RandomSeed:
    """``random.Random``'s ``seed`` as ``PATCHED_WHILE_ACTIVE`` updates a namespace (a class's
    ``__dict__`` is read-only): :func:`_python_seed_while_active` while a transform is
    active (one attribute store each way)."""

    __slots__ = ()

    def update(self, values: dict) -> None:
        random.Random.seed = values["seed"]


def _replayed_seed(replays: list, level: int, k: int) -> int:
    """The next seed of the 'same' batch at ``level``: the one its first part took there,
    or a new one (from the batch around it, if any), logged for the parts after."""
    if level < 0:
        return _NUMPY_RANDBITS(k)
    replay = replays[level]
    log, at = replay.log, replay.at
    if at < len(log) and log[at][0] == k:
        seed = log[at][1]
    else:
        seed = _replayed_seed(replays, level - 1, k)
        del log[at:]
        log.append((k, seed))
    replay.at = at + 1
    return seed


class SeedReplay:
    """While a ``with`` block runs, the fresh seeds NumPy hands out on this thread are those
    the first block with this object took, in order (new ones past them are logged), so a
    generator made with no seed inside draws the same numbers in every part of a
    ``vmap(randomness='same')`` that runs in parts: the groups of a split, the chunks of
    ``chunk_size`` (NOTE [fresh entropy under vmap]).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms.host_random import SeedReplay
        >>> replay = SeedReplay()
        >>> draw = ft.vmap(lambda x: x + np.random.default_rng().random(), randomness="same")
        >>> with replay:
        ...     a = draw(np.zeros(2))
        >>> with replay:
        ...     b = draw(np.zeros(2))
        >>> bool((a == b).all())
        True
    """

    __slots__ = ("log", "at")

    def __init__(self) -> None:
        self.log: list[tuple[int, int]] = []
        self.at = 0

    def __enter__(self) -> SeedReplay:
        self.at = 0
        _ENTROPY.replays.append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        _ENTROPY.replays.pop()


class _NoReplay:
    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


#: The ``with`` of a batch that replays no seeds.
NO_REPLAY = _NoReplay()


# NOTE [fresh entropy under vmap]: a generator the function makes with no seed
# (``np.random.default_rng()``, ``RandomState()``, ``PCG64()``; Python's ``random.Random()``)
# has no state before the call to compare, and its draws are those of one call, shared by
# the whole batch; a loop over the rows makes a generator per row.  So while a transform is
# active NumPy's seed source and ``random.Random.seed`` also count the seeds they hand out
# (two more entries of core/mutation.py's window: a dict update and a class attribute set
# at the outermost call), and a ``vmap`` call that took one:
#   'different'  runs its rows one at a time, as the loop does (api._draws_per_row);
#   'error'      runs the batch once more, with new seeds, and raises RandomnessError if the
#                result changed (the second run of a batch whose fresh seeds did not
#                matter returns the same, which is kept; api._unseeded_draws_unused;
#                ``RandomState(seed)`` made by user code while a transform is active takes
#                a fresh seed before it sets its own, which :class:`seed_given` leaves
#                uncounted);
#   'same'       keeps its one draw; where it runs in parts (chunk_size, the groups of a
#                split) every part is handed the seeds the first part took
#                (:class:`SeedReplay`).
# Only the user's own generators count: one that a library makes for itself with no seed
# (SciPy's BarycentricInterpolator permutes its nodes with one) is part of how that
# function computes, as it is in the loop, so its seed is not counted (the first Python
# frame above NumPy's seed source is the library's).
if _SEED_SOURCE is not None:
    _NUMPY_RANDBITS = _SEED_SOURCE.randbits
    PATCHED_WHILE_ACTIVE.append(
        (vars(_SEED_SOURCE), {"randbits": _counted_while_active}, {"randbits": _NUMPY_RANDBITS})
    )
    PATCHED_WHILE_ACTIVE.append(
        (
            _RandomSeed(),  # type: ignore[arg-type]
            {"seed": _python_seed_while_active},
            {"seed": _PYTHON_SEED},
        )
    )


class seed_given:  # noqa: N801 - used as ``with seed_given():``
    """While NumPy's ``RandomState(seed)`` is made from a seed the caller gave, the fresh
    seed it takes first (its bit generator is made unseeded, then seeded from ``seed``) is
    not counted: the generator draws the same numbers at every call, as ``default_rng(0)``
    does (NOTE [NumPy random draws under jit], NOTE [fresh entropy under vmap])."""

    __slots__ = ("start",)

    def __enter__(self) -> None:
        self.start = _ENTROPY.taken

    def __exit__(self, *exc: Any) -> None:
        _ENTROPY.taken = self.start


SEED_GIVEN.append(seed_given)


def entropy_taken() -> int:
    """How many fresh seeds NumPy took on this thread while watched (NOTE [fresh entropy
    under vmap]); compare two readings."""
    return _ENTROPY.taken
