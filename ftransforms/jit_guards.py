"""Which values from outside its arguments a ``jit`` recording depends on, and whether
they are still there.

NOTE [values read from outside under jit]: a recording holds what the function read from
outside its arguments (a global ``W``, a closed-over ``scale``, ``self.w`` of a bound
method, ``params[0]`` of a global list, ``Config.k`` of a class, ``cfg.lr`` of a
namespace, a default argument, a ``functools.partial``'s argument, a helper function it
calls by name) as constants of the program. ``jax.jit`` replays such constants even
after the user rebinds the name; in a notebook that is a silent wrong answer (re-run the
cell defining ``W`` or ``helper``, call the jitted function, get the old one). So when
``jit`` records a signature it notes where those values live: the arrays, numbers and
settings (strings, ``None``, enum members), the sets, the functions, classes and other
callables (a library function by the name the code reads: ``ACTS[0] = np.sin``, and
``tanh`` of ``from numpy import tanh``, rebound by ``tanh = np.sin``), and the lists,
tuples and dicts of them (empty ones too; their subclasses, a namedtuple or an
``OrderedDict``, and a ``deque`` as well), that the function, the functions it names
as globals or closes over, and the objects of its bound methods (or of the methods it
calls, through ``self`` too: ``self.helper(x)``, a staticmethod's ``Model.k``, a
sub-model's ``self.layer(x)``) hold, the fields of the user's modules it imports in
its body (``import settings``), and the fields of the user's objects among them
(``self.layer.w``, ``__slots__`` too, and the class attributes read through an object,
and what a property's getter reads; names the code reads, as attributes or as strings:
``getattr(cfg, "lr")``; followed a few levels, as ``host_random`` does for generators;
the functions called by name, to the end of the chain), each as a place (a dict entry,
a closure cell, a list slot, an attribute) and the object found there; and the
environment when the code reads it (``os.environ``, ``os.getenv``). Before a replay,
:meth:`Guards.hold` checks that every place still holds the same object (numbers and
strings: an equal one; a bound method: the same function of the same object; a list:
also its length, a dict its keys in order, a set its members, and for a list or dict of
more than ``_MAX_ITEMS`` items, the same objects in it, which are not followed further;
the environment: equal; not a length or content that the recording itself changed, a
Python side effect, but a setting it set, ``self.scale = 2.0`` after ``None``, whose old
value its path may have followed, and an attribute of ``self`` the code sets that was
absent); when one does not, the signature records again (``jit`` warns once it has
happened often: pass such values as arguments). A function that reads no such value gets
no guards and its replays check nothing. An in-place change of a global array (``W[0] =
10``) is not a rebinding: the replay reads the array itself where the recording used it
directly (an operand, or an output returned as it is: ``program.LiveOutput``) or where a
transform's rule computed with it (NOTE [outside arrays in rules under jit] in
``core/outside_operands.py``); values the user's code derived from it with NumPy
(``np.exp(W)``) are checked where no equation holds the array itself (NOTE [values
derived from outside arrays under jit]).
An integer or boolean array (up to ``_MAX_INDEX`` elements: an index, a mask, a count, a
shape) is the exception: code reads its numbers on the host (``x[IDX[0]]``,
``np.delete(x, IDX)``, ``y[IDX] = v``, ``x.reshape(tuple(SHAPE))``), so the replay
checks them as well, and a change records again.  A write the function itself makes into
such an array (``counts[k] += 1``, ``buf[:] = 7.0``) would happen only while recording
(and a replay would read the array as the caller left it): a recording that changed one
(:func:`fingerprints` before and after) runs that signature eagerly instead.
"""

from __future__ import annotations

import collections
import contextvars
import dis
import enum
import functools
import inspect
import io
import os
import sys
import threading
import types
import weakref
import zlib
from typing import Any

import numpy

from ftransforms.backend import is_array
from ftransforms.host_random import (
    attribute_strings as _attribute_strings,
)
from ftransforms.host_random import code_names, nested_codes, wrapped_of
from ftransforms.host_random import globals_loaded as _globals_loaded

__all__ = ["Guards", "guards_of"]

_DEPTH = 4
#: Levels of the user's objects (and the containers between them) whose fields the code
#: names are followed: ``model.blocks[1].attn.proj.inner.k`` (all fields: ``_DEPTH``).
_OBJECT_DEPTH = 8
#: Containers in containers followed, at most (NOTE [nested containers under jit]).
_NESTING = 16
_NUMBERS = (bool, int, float, complex, numpy.generic)
_MISSING = object()
_CELL = object()  # the key of a closure cell's place
_LEN = object()  # the key of a list's or dict's length (``holder`` is the list or dict)


_WHOLE = object()  # the key of a check of the holder's whole content (``value``: a copy)
_CONTEXT = object()  # the key of a ``ContextVar``'s value in the current context

#: Names by which code reads the environment (``os.environ["K"]``, ``os.getenv("K")``).
_ENVIRON_NAMES = frozenset({"environ", "environb", "getenv", "getenvb"})


def _environment_objects() -> tuple:
    return tuple(
        getattr(os, n) for n in ("environ", "environb", "getenv", "getenvb") if hasattr(os, n)
    )


def _reads_environment(fn: types.FunctionType, names: set) -> bool:
    """Whether ``fn``'s code reads the environment: by the names ``os`` gives it, or
    through a global or closed-over name bound to it (``from os import environ`` in an
    enclosing function, ``ENV = os.environ``)."""
    if not names.isdisjoint(_ENVIRON_NAMES):
        return True
    objects = _environment_objects()
    glb = fn.__globals__
    if any(any(glb.get(n) is o for o in objects) for n in names):
        return True
    for cell in fn.__closure__ or ():
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if any(value is o for o in objects):
            return True
    return False


class _Snapshot(dict):
    """A copy of a holder's content, compared by equality (``os.environ``'s)."""


class _Contents:
    """A copy of an array's numbers, which an array holds when it equals them."""

    __slots__ = ("copy", "data")

    def __init__(self, array: Any) -> None:
        self.copy = array.copy()
        # numbers (an index, a mask, a scale): their bytes, compared at C speed (a float's
        # -0.0 differs from 0.0 there: a recording again, never a stale replay)
        self.data = (
            array.tobytes()
            if type(array) is numpy.ndarray and array.dtype.kind in "biufc"
            else None
        )

    def __eq__(self, now: Any) -> bool:
        copy = self.copy
        if now.shape != copy.shape or now.dtype != copy.dtype:
            return False
        if self.data is not None and type(now) is numpy.ndarray:
            return now.tobytes() == self.data
        if copy.dtype.kind == "O":  # Python objects: the same ones (a new one records again)
            return all(a is b for a, b in zip(now.flat, copy.flat))
        same = now == copy
        if copy.dtype.kind in "fc":  # nan is nan
            same |= (now != now) & (copy != copy)
        return bool(same.all())

    __hash__ = None  # type: ignore[assignment]


class _Items:
    """The objects a large list or dict holds (under its keys), which it holds when the
    same objects are there (an equal number is not enough: ``L[70] = 5.0`` records again)."""

    __slots__ = ("keys", "items", "ids")

    def __init__(self, container: Any) -> None:
        is_dict = isinstance(container, dict)
        self.keys = tuple(container) if is_dict else None
        self.items = tuple(container.values() if is_dict else container)
        self.ids = tuple(map(id, self.items))  # (the items are kept: no id is reused)

    def __eq__(self, now: Any) -> bool:
        if isinstance(now, dict):
            return tuple(now) == self.keys and tuple(map(id, now.values())) == self.ids
        return tuple(map(id, now)) == self.ids

    __hash__ = None  # type: ignore[assignment]


class _Absent(tuple):
    """Attributes that objects do not have of their own (``attrs[k]`` not in the ``__dict__``
    ``now[k]``): an item's ``k`` set later would shadow its class's ``C.k``."""

    __slots__ = ()

    def __eq__(self, now: Any) -> bool:
        return not any(map(dict.__contains__, now, self))

    __hash__ = None  # type: ignore[assignment]


class _Keys(tuple):
    """A dict's keys, in order (``for k, v in D.items()``), which it holds when equal."""

    __slots__ = ()

    def __new__(cls, d: dict) -> _Keys:
        return super().__new__(cls, d)

    def __eq__(self, now: Any) -> bool:
        return tuple(now) == tuple(self)

    __hash__ = None  # type: ignore[assignment]


class _Members(frozenset):
    """A set's members, which it holds when equal."""

    __slots__ = ()


class _Attr(str):
    """The key of an attribute's place (``f.__defaults__``: ``holder`` is ``f``)."""


#: Items of a list or dict checked one by one, at most (a larger one: only itself).
_MAX_ITEMS = 64
#: The largest integer or boolean array from outside whose numbers are checked.
_MAX_INDEX = 1 << 14
#: The largest outside array checked for the values derived from it (NOTE [values
#: derived from outside arrays under jit]): a replay compares at most this many bytes
#: per array (about 30 us).
_MAX_DERIVED = 1 << 20
#: Lists and dicts the code reads with more items than this are searched for stored
#: values only in what the recording added to them (NOTE [traced values stored outside
#: under jit]): walking an op database's lists on every recording cost 25 ms.
_WALKED_ITEMS = 64
#: Guards gathered, after which the fields of further objects are not followed.
_MAX_CHECKS = 1024
#: ... and after which the named fields of objects in long lists are not guarded.
_LONG_LIST_CHECKS = 4 * _MAX_CHECKS


def _container(v: Any) -> type | None:
    """``list``, ``tuple`` or ``dict`` for those and their subclasses (an ``OrderedDict``,
    a ``defaultdict``, an attribute dict, a namedtuple; a ``deque`` counts as a list),
    whose items are guarded as theirs are; ``None`` for anything else."""
    t = type(v)
    if t is list or t is tuple or t is dict:
        return t
    if isinstance(v, (list, collections.deque)):
        return list
    return tuple if isinstance(v, tuple) else dict if isinstance(v, dict) else None


def _is_data(v: Any) -> bool:
    return isinstance(v, _NUMBERS) or type(v) is numpy.ndarray or is_array(v)


def _is_setting(v: Any) -> bool:
    """A string, ``None`` or an enum member: a setting (``MODE = "sin"``, ``W = None``)
    that Python code branches on, guarded like a number."""
    return v is None or type(v) is str or isinstance(v, enum.Enum)


def _same(now: Any, then: Any) -> bool:
    if now is then:
        return True
    if type(then) is str:
        return type(now) is str and now == then
    if type(then) in _COMPARED:
        return then == now
    if type(then) is types.MethodType:  # ``obj.method`` read again: a new bound method
        return (
            type(now) is types.MethodType
            and now.__func__ is then.__func__
            and (now.__self__ is then.__self__)
        )
    if isinstance(then, _NUMBERS) and type(now) is type(then):
        if isinstance(then, (float, complex, numpy.inexact)):  # -0.0 is not 0.0; nan is nan
            return repr(now) == repr(then)
        try:
            return bool(now == then) or (now != now and then != then)
        except Exception:  # noqa: BLE001 - a number type that refuses comparison: changed
            return False
    return False


#: The kinds of snapshot a check compares the place's content with (``then == now``).
_COMPARED = frozenset({_Snapshot, _Contents, _Items, _Keys, _Members, _Absent})


def _now(holder: Any, key: Any) -> Any:
    """What the place ``(holder, key)`` of a check holds now."""
    if key is _CELL:
        try:
            return holder.cell_contents
        except ValueError:  # the cell was emptied (``del``)
            return _MISSING
    if key is _LEN:
        return len(holder)
    if key is _WHOLE:
        return holder
    if key is _CONTEXT:
        return _context_value(holder)
    if type(key) is _Attr:
        return getattr(holder, key, _MISSING)
    if _container(holder) in (list, tuple):
        return holder[key] if key < len(holder) else _MISSING
    return holder.get(key, _MISSING)


def _context_value(var: contextvars.ContextVar) -> Any:
    """What ``var.get()`` returns in the current context (its default where it has no
    value there; ``var.get(d)`` would return ``d`` instead), or ``_MISSING``."""
    try:
        return var.get()
    except LookupError:
        return _MISSING


class Guards:
    """The places a recording read values from outside its arguments, and those values:
    ``checks`` are ``(holder, key, value)`` with ``holder`` a dict (``holder.get(key)``),
    a list (``holder[key]``) or a closure cell (``key`` is ``_CELL``)."""

    __slots__ = ("checks", "names", "stores", "iterators", "codes", "idents", "itself")

    def __init__(
        self,
        checks: list,
        names: list,
        stores: tuple = (),
        iterators: tuple = (),
        codes: tuple = (),
        idents: dict | None = None,
    ) -> None:
        self.checks = tuple(checks)
        self.names = names
        # more holders the code may store into (its globals, cells, fields): (holder, the
        # names it uses there, or None for all)
        self.stores = stores
        # the names of the iterators it can reach (NOTE [iterators read from outside])
        self.iterators = iterators
        # NOTE [containers the recording changes]: the code visited, and the name by which
        # it reaches each container (id -> ``"LOG"``, ``"hist"``; ``None``: an item of a
        # list); the checks the recording itself made fail and kept (``settle``)
        self.codes = codes
        self.idents = idents or {}
        self.itself: tuple = ()

    def concretize(self, ours: Any) -> list[str]:
        """NOTE [traced values stored outside under jit]: ``global STATE; STATE = STATE +
        x``, ``self.h = h``, ``HISTORY.append(loss)`` store one of the recording's values
        (``ours(v)``) where the caller reads it after the call: eagerly an array, here a
        tracer that raises when used after the recording (an escaped tracer), and a
        replay would store nothing.  So each such value in a place the recording knows
        (a holder of its checks, a global or closure cell of its code; in a list, tuple or
        dict there, a few levels down) is replaced by its array, and the names of the
        places are returned: that signature then runs eagerly, as NumPy does."""
        found: list[str] = []
        # a module's namespace: only the names the code uses (``stores`` has them), not
        # every global of a notebook; any other holder (an object's fields, a list or a
        # dict of the user's): all of it
        names: dict = {}
        for holder, key, _ in self.checks:
            if type(key) is str and "__builtins__" in holder:
                names.setdefault(id(holder), set()).add(key)
        for holder, used in self.stores:
            if used is not None:
                names.setdefault(id(holder), set()).update(used)
        # a large list or dict the code read: only what the recording added to it (its
        # length or keys at the recording's start are checks); a small one: all of it
        before: dict = {id(h): k_v for h, k, k_v in self.checks if k is _LEN or k is _WHOLE}
        seen: set[int] = set()
        for holder in (*(c[0] for c in self.checks), *(h for h, _ in self.stores)):
            if id(holder) in seen:
                continue
            seen.add(id(holder))
            if type(holder) is types.CellType:
                try:
                    value = holder.cell_contents
                except ValueError:
                    continue
                new, held = _concrete(value, ours, 0)
                if held:
                    holder.cell_contents = new
                    found.append("a closed-over variable")
                continue
            kind = _container(holder)
            old = before.get(id(holder))
            if not ((kind is dict and type(old) is _Keys) or (kind is list and type(old) is int)):
                old = None
            large = old is not None and (len(old) if kind is dict else old) > _WALKED_ITEMS
            if kind is dict:
                used = names.get(id(holder))
                if used is None and large:
                    known = set(old)
                    used = [k for k in holder if k not in known]
                items = [(k, holder[k]) for k in (holder if used is None else used) if k in holder]
            elif kind is list and type(holder) is not collections.deque:
                start = old if large else 0
                items = [(k, holder[k]) for k in range(start, len(holder))]
            else:
                continue
            for k, value in items:
                new, held = _concrete(value, ours, 0)
                if held:
                    if new is not value:
                        holder[k] = new
                    found.append(str(k) if kind is dict else f"a list's item {k}")
        return found

    def hold(self) -> bool:
        """Whether every place still holds its value."""
        for holder, key, value in self.checks:
            # a module's global (most checks) without the call to _now: this runs per call
            now = (
                holder.get(key, _MISSING)
                if type(key) is str and type(holder) is dict
                else _now(holder, key)
            )
            if now is not value and not _same(now, value):
                return False
        return True

    def settle(self) -> list[str]:
        """Drop the checks of lengths and contents that the recording itself changed in
        a container the code only changes (``calls.append(1)``, ``os.environ["K"] =
        "1"``: Python side effects, which run only while recording), which would
        otherwise fail at every call.  The other checks the recording made fail are kept,
        and their names returned (NOTE [containers the recording changes]): a setting or
        an absent attribute it set (``if self.scale is None: self.scale = 2.0``), whose
        old value the recording's path followed, so the next call, which sees the new
        one, records again (once, where the function sets the same value at every
        call); and a container the code also reads (``LOG.append(1); return x *
        len(LOG)``), where a replay would compute with the length of the recording."""
        kept, itself = [], []
        reads = None
        for c, n in zip(self.checks, self.names):
            now = _now(c[0], c[1])
            if now is c[2] or _same(now, c[2]):
                kept.append((c, n))
                continue
            if c[1] is _LEN or c[1] is _WHOLE:
                if reads is None:
                    reads = names_read_back(self.codes)
                ident = self.idents.get(id(c[0]))
                if ident is not None and ident not in reads:
                    continue  # only changed by the code: a side effect of the recording
            kept.append((c, n))
            itself.append((c, n))
        self.checks = tuple(c for c, _ in kept)
        self.names = [n for _, n in kept]
        self.itself = tuple(c for c, _ in itself)
        return [n for _, n in itself]

    def changed_itself(self) -> bool:
        """Whether a check that the recording itself made fail (``settle``) fails now:
        the call records again because of the recording's own change."""
        return any(not Guards([c], [""]).hold() for c in self.itself)

    def hold_contents(self, arrays: list) -> None:
        """Check the numbers of ``arrays`` too (each read on the host while recording:
        NOTE [outside arrays in rules under jit] in ``core/outside_operands.py``)."""
        new = {id(a): (a, _WHOLE, _Contents(a)) for a in arrays}
        self.checks += tuple(new.values())
        self.names += ["the numbers of an array read while recording"] * len(new)

    def index_arrays(self) -> list:
        """The integer and boolean NumPy arrays among the values, of at most
        ``_MAX_INDEX`` elements: indices, masks, counts and shapes, whose numbers code
        reads on the host (``x[:N[0]]``, ``np.delete(x, IDX)``, ``y[IDX] = v``)."""
        return [a for _, a in self.arrays() if a.dtype.kind in "biu" and a.size <= _MAX_INDEX]

    def derived_arrays(self, live: set) -> tuple[list, list]:
        """NOTE [values derived from outside arrays under jit]: a value the user's own
        NumPy code computes from an outside array (``np.exp(self.log_std)``, ``x *
        A.sum()``, ``np.linalg.inv(W)``) never reaches the recorder: it is a constant of
        the recording, and an in-place change of the array (``log_std -= lr * g``) was
        replayed with the old numbers.  A read of an array's values cannot be seen, but
        an array the recording used as an operand (``x @ W``, ``W.T``: ``live``, the ids
        of the arrays the recording's equations hold, and the arrays they view) is read
        by every replay, and an array the code does not name is not read at all.  The
        others, the arrays the code names (an attribute, a global, a string key among
        the names it reads; a closed-over one; an item of a container it reads) that no
        equation holds, of at most ``_MAX_DERIVED`` bytes, are the ones such a value may
        have come from: their numbers are checked before each replay (a copy's bytes
        against theirs), and a change records again.  An array that is an operand too
        (``x @ W + np.linalg.norm(W)``, then ``W -= lr * g``) is checked the same way
        where the recording holds a constant that may be such a value (``jit.py``'s
        ``_bakes_derived``: a NumPy scalar, a Python float the code neither writes as a
        literal nor reads from outside, an array of more than two distinct values that
        views no outside array), so the transforms' own constants (a seed of ones, a
        fill of ``1/n``, a one-hot basis, a size) leave ``jit(grad(loss))`` of a global
        data set unchecked; so the operands come back apart, ``(not operands,
        operands)``.  A value from such an array that leaves no such constant (a Python
        ``int``, a branch taken on it, a two-valued array), an element changed inside an
        array of objects (a shallow copy is compared by identity), or an array over
        ``_MAX_DERIVED`` keeps the old value (documented: pass it as an argument)."""
        read: set = set()
        loaded: set = set()  # the names read as globals (``W``, not ``self.W``)
        for code in self.codes:
            read |= _names_read(code)
            loaded |= _globals_loaded(code)
        out: dict = {}
        held: dict = {}
        for holder, key, value in self.checks:
            if type(key) is str and key not in read:
                continue  # (``self.emb`` of a model whose method does not name it)
            if type(key) is str and "__builtins__" in holder and key not in loaded:
                continue  # (a global ``W`` where the code reads ``self.W``)
            kind = _container(value)
            values = value.values() if kind is dict else value
            for v in values if kind is not None else (value,):
                if type(v) is numpy.ndarray and v.nbytes <= _MAX_DERIVED:
                    (held if id(v) in live else out)[id(v)] = v
        return list(out.values()), list(held.values())

    def known_numbers(self) -> set:
        """The numbers the code visited writes as literals, and the numbers among the
        values read from outside: constants of a recording that were not computed from an
        array (NOTE [values derived from outside arrays under jit])."""
        out = set()
        for code in self.codes:
            out |= _literal_numbers(code)
        out.update(v for _, _, v in self.checks if type(v) in (float, complex))
        return out

    def array_ids(self) -> frozenset:
        """The ids of the arrays among the values (the recording must not fold them)."""
        out = set()
        for _, _, value in self.checks:
            kind = _container(value)
            values = value.values() if kind is dict else value
            for v in values if kind is not None else (value,):
                if type(v) is numpy.ndarray or is_array(v):
                    out.add(id(v))
        return frozenset(out)

    def arrays(self) -> list[tuple[str, numpy.ndarray]]:
        """``(name, array)`` for each NumPy array among the values (once each)."""
        out: dict = {}
        for (_, _, value), name in zip(self.checks, self.names):
            kind = _container(value)
            values = value.values() if kind is dict else value
            for v in values if kind is not None else (value,):
                if type(v) is numpy.ndarray and id(v) not in out:
                    out[id(v)] = (name, v)
        return list(out.values())

    def changed(self) -> list[str]:
        """The names of the places that no longer hold their value."""
        out = []
        for (holder, key, value), name in zip(self.checks, self.names):
            if not Guards([(holder, key, value)], [name]).hold():
                out.append(name)
        return out


def guards_of(func: Any, static: tuple = ()) -> Guards | None:
    """The guards of the values ``func`` reads from outside its arguments, or ``None``
    when it reads none (NOTE [values read from outside under jit]); ``static``: jit's
    static arguments, whose fields (``self.w`` of a static ``self``) count too."""
    checks: list = []
    names: list = []
    seen: set[int] = set()
    seen_fields: dict = {}  # id -> the fields of an object read so far (``fields_read``)
    placed: set[int] = set()  # the user objects whose fields are guarded
    stores: dict = {}  # id -> (a namespace, cell or fields the code may store into, names)
    iterators: list = []  # NOTE [iterators read from outside]: (name, key of its place)
    read: set = set()  # the names the code visited reads
    long_lists: list = []  # NOTE [objects in long lists under jit]
    deep: list = []  # (a user object below _DEPTH, its name, its depth)
    objects: list = []  # (a user object placed, its name): its methods are followed
    codes: list = []  # the code visited
    idents: dict = {}  # id(container) -> the name the code reaches it by, or None
    class_data: dict = {}  # a class -> its attributes guarded (``class_fields``)
    shadowed: set = set()  # (id of an object's dict, attribute) checked to stay absent

    def note(check: tuple, name: str) -> None:
        checks.append(check)
        names.append(name)

    def place(
        holder: Any, key: Any, value: Any, name: str, depth: int = 0, nesting: int = 0
    ) -> bool:
        """A place that holds ``value``: guarded when it is data or holds data (in
        nested lists, tuples and dicts too: ``params["layer"]["w"]``)."""
        if _is_data(value) or _is_setting(value):
            checks.append((holder, key, value))
            names.append(name)
            return True
        if type(value) is contextvars.ContextVar:
            # NOTE [thread-local settings under jit]: ``MODE.get()`` of a ``ContextVar``
            # (a setting a ``with`` block sets) is its value in the context of the call:
            # the variable is guarded, and what it holds in the replaying context
            checks.append((holder, key, value))
            names.append(name)
            place(value, _CONTEXT, _context_value(value), f"{name}.get()", depth + 1, nesting)
            return True
        if (
            getattr(type(value), "__next__", None) is not None
            and not _user_object(value)
            and not isinstance(value, io.IOBase)  # (a log file it writes to)
        ):
            # NOTE [iterators read from outside]: ``next(BATCHES)`` of a global generator,
            # ``itertools.count()`` or ``cycle(schedule)`` gives a new item at every eager
            # call, which a replay would not read (nor could a check see it change: its
            # state is not Python fields): the recording runs that signature eagerly, as
            # for an iterator passed as an argument
            iterators.append((name, key))
            return False
        kind = _container(value)
        if kind is None and _user_object(value):  # ``self.layer.w``, ``model.layers[1].b``
            checks.append((holder, key, value))  # the object itself: rebinding it counts
            names.append(name)
            objects.append((value, name))
            if id(value) in placed or len(checks) > _MAX_CHECKS:
                return True
            if depth > _DEPTH:  # deeper: only the fields the code names, at the end
                deep.append((value, name, depth))
                return True
            placed.add(id(value))
            if type(getattr(value, "__dict__", None)) is dict:
                stores[id(value.__dict__)] = (value.__dict__, None)  # (``model.layer.h = h``)
            for holder_k, k, v in _fields(value)[:_MAX_ITEMS]:
                place(holder_k, k, v, f"{name}.{k}", depth + 1)
            as_array(value, name)
            return True
        if kind is None and callable(value) and not isinstance(value, types.ModuleType):
            # ``helper`` redefined by running its cell again, ``ACTS[0] = np.sin``
            checks.append((holder, key, value))
            names.append(name)
            if depth:  # what it reads (a global's or a closure's is visited already)
                visit(value, 1, name)
            return True
        if type(value) is set or type(value) is frozenset:  # ``len(S)``, ``k in S``
            checks.append((holder, key, value))
            names.append(name)
            if type(value) is set:
                idents[id(value)] = _ident(key, name)
                checks.append((value, _WHOLE, _Members(value)))
                names.append(f"the members of {name}")
            return True
        if kind is None or id(value) in seen or nesting > _NESTING:
            return False
        seen.add(id(value))
        # NOTE [nested containers under jit]: a config of dicts in dicts
        # (``CFG["model"]["enc"]["l1"]["attn"]["heads"]``) is followed to its leaves: a
        # container's items are one level deeper than it for the first container only
        # (the depth that bounds following objects' fields and functions), and containers
        # in it are followed up to ``_NESTING`` levels (a change deeper was replayed stale)
        inner = depth + 1 if nesting == 0 else depth
        items = list(value.items() if kind is dict else enumerate(value))
        mark = len(checks)
        if kind is tuple or len(items) > _MAX_ITEMS:
            if len(items) > _MAX_ITEMS:  # NOTE [objects in long lists under jit]
                long_lists.append((items, name, inner))
            held = any(_is_data(v) or _is_setting(v) for _, v in items)
            for k, v in items:  # the items of a tuple cannot change, but theirs can
                if len(items) <= _MAX_ITEMS and (_container(v) or _user_object(v)):
                    held = place(value, k, v, f"{name}[{k!r}]", inner, nesting + 1) or held
        else:  # a list or dict can change in place
            for k, v in items:
                place(value, k, v, f"{name}[{k!r}]", inner, nesting + 1)
        if kind is not tuple:
            idents[id(value)] = _ident(key, name)  # NOTE [containers the recording changes]
        if kind is list:
            # ``sum(L)`` after an append: a list (an empty one too) can grow
            checks.append((value, _LEN, len(value)))
            names.append(f"len({name})")
        elif kind is dict:  # ``D.get(k, 1.0)`` after ``D[k] = 2.0``; its order too
            checks.append((value, _WHOLE, _Keys(value)))
            names.append(f"the keys of {name}")
        if kind is not tuple:
            if len(items) > _MAX_ITEMS:  # its items, at once (not followed into)
                checks.append((value, _WHOLE, _Items(value)))
                names.append(f"the items of {name}")
            held = True
        if held:
            checks.insert(mark, (holder, key, value))
            names.insert(mark, name)
        return held

    def visit(obj: Any, depth: int, name: str) -> None:
        if depth > _DEPTH or id(obj) in seen or _is_data(obj) or len(checks) > _MAX_CHECKS:
            return
        seen.add(id(obj))
        if isinstance(obj, types.MethodType):
            visit(obj.__func__, depth, name)
            fields_of(obj.__self__, obj.__func__)
            if _container(obj.__self__) is not None and not _library(obj.__self__):
                # a method of the user's ``NamedTuple`` (or list, dict): ``self.w`` is an
                # item, no field, and NumPy's values from it (``np.exp(self.w)``) are
                # checked as those of a container's items (NOTE [values derived from
                # outside arrays under jit])
                place(obj, _Attr("__self__"), obj.__self__, "self")
            return
        wrapped = wrapped_of(obj)
        if wrapped is not None:
            visit(wrapped, depth + 1, name)
        if isinstance(obj, functools.partial):
            # its arguments, where ``p.keywords["b"] = 1.0`` (a new one too) shows
            place(obj, _Attr("args"), obj.args, f"{name}.args", 1)
            place(obj, _Attr("keywords"), obj.keywords, f"{name}.keywords", 1)
            for v in (obj.func, *obj.args, *obj.keywords.values()):
                if not _is_data(v):
                    visit(v, depth + 1, name)
            return
        if _library(obj):
            # a transform's wrapper (or NumPy's own function): its own state is not the
            # user's, but the user's functions it holds are followed
            for v in _held(obj):
                if callable(v):
                    visit(v, depth + 1, name)
            return
        if not isinstance(obj, (types.FunctionType, type)) and callable(obj):
            fields = getattr(obj, "__dict__", None)
            if type(fields) is dict and not _library(obj):  # (``self.h = h``)
                stores[id(fields)] = (fields, None)
            if not _library(obj):  # a callable object (a model): its fields (slots too)
                objects.append((obj, name))  # (and its special methods)
                for holder, k, v in _fields(obj):
                    place(holder, k, v, f"{type(obj).__name__}.{k}")
                    visit(v, depth + 1, k)
            # its ``__call__``, also one it inherits (``Module.__call__`` calling
            # ``self.forward(x)``: what ``forward`` reads, through ``class_fields``)
            call = next(
                (c.__dict__["__call__"] for c in type(obj).__mro__ if "__call__" in c.__dict__),
                None,
            )
            visit(call, depth + 1, name)
            if not _library(obj) and not _library(call):
                if isinstance(call, types.FunctionType):  # ``type(self).k``
                    owner = fields if type(fields) is dict else None  # (``__slots__``: None)
                    class_fields(type(obj), owner, _names_read(call.__code__))
                    if owner is not None:
                        absent(owner, call.__code__)
        if isinstance(obj, types.FunctionType):
            code = obj.__code__
            codes.append(code)
            stored = _stores(code)  # NOTE [traced values stored outside under jit]
            if _STORE_GLOBAL in stored:
                held = stores.setdefault(id(obj.__globals__), (obj.__globals__, set()))
                held[1].update(_names_read(code))
            if _STORE_DEREF in stored:  # (``nonlocal h; h = ...``)
                for cell in obj.__closure__ or ():
                    stores[id(cell)] = (cell, None)
            for attr in ("__defaults__", "__kwdefaults__"):  # ``def f(x, w=np.ones(3))``
                if getattr(obj, attr) is not None:
                    place(obj, _Attr(attr), getattr(obj, attr), f"{name}.{attr}")
            if obj.__defaults__:  # ``def f(x, calls=[])``: ``calls`` names the list
                first = code.co_argcount - len(obj.__defaults__)
                for param, v in zip(code.co_varnames[first:], obj.__defaults__):
                    if id(v) in idents:
                        idents[id(v)] = param
            names = _names_read(code)
            read.update(names)
            if id(os.environ) not in seen and _reads_environment(obj, names):
                # ``float(os.environ["SCALE"])``: a number of the recording, set from outside
                seen.add(id(os.environ))
                env = getattr(os.environ, "_data", os.environ)  # (CPython's: str -> bytes)
                note((env, _WHOLE, _Snapshot(env)), "os.environ")
                idents[id(env)] = "environ"
            for cell, var in zip(obj.__closure__ or (), code.co_freevars):
                try:
                    value = cell.cell_contents
                except ValueError:  # an empty cell
                    continue
                place(cell, _CELL, value, var)
                visit(value, _deeper(value, depth), var)
                fields_read(value, var, names, _attribute_strings(code))
            glb = obj.__globals__
            # the names the code reads as globals, or names as strings (``globals()["W"]``);
            # an attribute's name (``m.add``, ``self.data``) does not read the module's
            # global of that name, whose walk may reach a whole registry
            loaded = _globals_loaded(code)
            strings = _attribute_strings(code)
            for var in names:
                value = glb.get(var, _MISSING)
                if value is _MISSING:  # ``import settings`` in the function: its fields
                    module = sys.modules.get(var)
                    if isinstance(module, types.ModuleType) and _user_module(var):
                        fields_read(module, var, names)
                    continue
                if var not in loaded and var not in strings:
                    continue
                if _imported(value):
                    # ``ACT = np.tanh``, ``from numpy import tanh`` (as ``ACT`` or not),
                    # rebound by a notebook cell (``tanh = np.sin``): the name is guarded
                    # (one dict look-up per replay), not the library's code; where the
                    # code reads it as a global (not ``np.tanh``'s attribute)
                    if var in loaded:
                        note((glb, var, value), var)
                    continue
                place(glb, var, value, var)
                fields_read(value, var, names, strings)
                if not isinstance(value, types.ModuleType):
                    visit(value, _deeper(value, depth), var)

    def fields_read(value: Any, var: str, names: set, strings: frozenset = frozenset()) -> None:
        """``config.W`` of the user's own module, ``Config.k`` of a class, ``cfg.lr`` of a
        plain object (a namespace): the fields whose names the code reads; and those it
        names as strings that the object does not have (``getattr(cfg, "boost", 1.0)``),
        checked to be still absent."""
        if _is_data(value) or _library(value):
            return
        if _container(value) is not None:
            if type(value) not in (list, tuple, dict) and not _library(type(value)):
                methods_named(value, var, names)  # a ``NamedTuple`` of the user's
            return
        if not isinstance(value, (types.ModuleType, type, types.FunctionType)) and callable(value):
            return  # a model: visited (a function's attributes, ``f.scale``, are read below)
        attrs = getattr(value, "__dict__", None)
        slotted = attrs is None and _user_object(value)
        if slotted:  # ``__slots__``: its fields are placed with it (``place``); its
            attrs = {}  # class's and those its methods read are followed here
        if attrs is None:
            return
        done = seen_fields.get(id(value))
        named = names & attrs.keys()
        if done is not None:  # read again by other code (a helper's ``helper.k``, ``cfg.b``):
            named -= done  # the fields that code names besides
            if not named:
                return
        seen_fields.setdefault(id(value), set()).update(named)
        for attr in named:
            if isinstance(value, threading.local):  # NOTE [thread-local settings under jit]
                place(value, _Attr(attr), attrs[attr], f"{var}.{attr}")
            else:
                place(attrs, attr, attrs[attr], f"{var}.{attr}")
            fields_read(attrs[attr], f"{var}.{attr}", names)  # ``cfg.opt.lr``
            fn = attrs[attr]
            fn = fn.__func__ if isinstance(fn, (staticmethod, classmethod)) else fn
            if isinstance(fn, types.FunctionType):  # ``mymodule.helper(x)``, ``C.helper(x)``
                visit(fn, 1, f"{var}.{attr}")
                if isinstance(value, type) and not _library(value):
                    # ``Base.forward(self, x)``: the class attributes it reads (``self.k``)
                    class_fields(value, None, _names_read(fn.__code__))
        if done is not None:
            return
        if isinstance(value, type) and not _library(value):
            # ``Scaler(2.0)(x)``: what the methods that making and calling one run read
            for attr in ("__init__", "__post_init__", "__call__"):
                fn = _user_method(value, attr)
                if fn is not None and id(fn) not in seen:
                    visit(fn, 1, f"{var}.{attr}")
                    class_fields(value, None, _names_read(fn.__code__))
        if not _user_object(value):
            return
        # ``c.k`` of a global ``c``: ``C.k``
        class_fields(type(value), None if slotted else attrs, names)
        if not slotted:
            for attr in sorted(strings - attrs.keys()):
                note((attrs, attr, _MISSING), f"{var}.{attr}")
        as_array(value, var)
        methods_named(value, var, names - attrs.keys())

    def methods_named(value: Any, var: str, names: set) -> None:
        """The methods of ``value``'s class among ``names`` (``model.predict(x)`` reads
        ``self.w``, a ``NamedTuple``'s ``PARAMS.apply(x)`` a global) and the class
        attributes among them."""
        if _container(value) is not None:
            class_fields(type(value), None, names)
        for attr in sorted(names):
            method = getattr(type(value), attr, None)
            if isinstance(method, types.FunctionType):
                visit(method, 1, f"{var}.{attr}")
                fields_of(value, method)

    def as_array(obj: Any, name: str) -> None:
        """An object of the user's with an ``__array__`` method (an array-like passed in
        or read from outside): ``np.asarray(obj)`` runs that method, which no code the
        walk visits names, so what it reads (``self.a``) is followed as for a method the
        code calls; a value NumPy derives from it (``np.sin(np.asarray(obj))``) is then
        checked (NOTE [values derived from outside arrays under jit])."""
        method = getattr(type(obj), "__array__", None)
        if isinstance(method, types.FunctionType) and id(method) not in seen:
            visit(method, 1, f"{name}.__array__")
            fields_of(obj, method)

    def fields_of(obj: Any, method: Any) -> None:
        """The fields of ``obj`` (``self.w``) and of its class (``type(self).k``) that
        its method may read."""
        if isinstance(obj, type) and isinstance(method, types.FunctionType):
            if not _library(obj):  # a classmethod's ``cls.k``
                class_fields(obj, None, _names_read(method.__code__))
            return
        owner = getattr(obj, "__dict__", None)
        if not _library(obj):
            for holder, k, v in _fields(obj):
                place(holder, k, v, f"self.{k}")
                visit(v, 1, f"self.{k}")  # ``self.layer(x)``: what the layer reads
        if _library(obj):
            return
        objects.append((obj, "self"))  # ``self[0]``, ``len(self)``: its special methods
        if type(owner) is dict:
            stores[id(owner)] = (owner, None)  # ``self.last = h`` (NOTE [traced values stored
        if isinstance(method, types.FunctionType):  # outside under jit])
            # (an object with ``__slots__`` has no ``__dict__``: its class's fields count)
            class_fields(
                type(obj), owner if type(owner) is dict else None, _names_read(method.__code__)
            )
            if type(owner) is dict:
                absent(owner, method.__code__)

    def absent(owner: dict, code: types.CodeType) -> None:
        """``if not hasattr(self, "k"): self.k = ...``: an attribute the code sets and
        ``self`` does not have yet is checked to be still absent (the recording's path
        followed its absence), as is one it names as a string (``getattr(self, "boost",
        1.0)``, ``hasattr(self, "bias")``: an optional attribute set later)."""
        wanted = _stored_attributes(code) | _attribute_strings(code)
        for attr in sorted(wanted - owner.keys()):
            checks.append((owner, attr, _MISSING))
            names.append(f"self.{attr}")

    def class_fields(cls: type, owner: dict | None, read: set) -> None:
        """The class attributes among ``read`` (``self.k``, ``cls.k``, ``type(self).k``),
        wherever in the class's bases they are found, and that no class before it, nor the
        instance (``owner``), has set one of the same name (which would shadow it)."""
        mro = [c for c in cls.__mro__ if c is not object and not _library(c)]
        for attr in sorted(read):
            where = next((k for k, c in enumerate(mro) if attr in c.__dict__), None)
            if where is None:
                continue
            value = mro[where].__dict__[attr]
            getter = getattr(value, "fget", None) or getattr(value, "func", None)
            if isinstance(value, (property, functools.cached_property)) and isinstance(
                getter, types.FunctionType
            ):  # ``self.scale`` of a property: what its getter reads, and the property
                if (id(mro[where]), attr) not in shadowed:  # itself (``C.k = property(..)``)
                    shadowed.add((id(mro[where]), attr))
                    note((mro[where].__dict__, attr, value), f"{mro[where].__name__}.{attr}")
                if id(getter) not in seen:
                    visit(getter, 1, f"{mro[where].__name__}.{attr}")
                    class_fields(cls, owner, _names_read(getter.__code__) - read)
                continue
            if place(mro[where].__dict__, attr, value, f"{mro[where].__name__}.{attr}"):
                class_data.setdefault(cls, set()).add(attr)
                for c in mro[:where]:
                    checks.append((c.__dict__, attr, _MISSING))
                    names.append(f"{c.__name__}.{attr}")
                if owner is not None and attr not in owner:
                    shadowed.add((id(owner), attr))
                    checks.append((owner, attr, _MISSING))
                    names.append(f"self.{attr}")
            # ``self.helper(x)``, ``self.act(x)`` of a staticmethod, ``cls.make(x)``: what
            # the method reads (a global, ``Model.scale``, ``self.k`` of the class)
            method = value.__func__ if isinstance(value, (staticmethod, classmethod)) else value
            if isinstance(method, types.FunctionType) and id(method) not in seen:
                visit(method, 1, f"{mro[where].__name__}.{attr}")
                class_fields(cls, owner, _names_read(method.__code__) - read)
            # ``super().forward(x)`` in it: the definitions it overrides, further along
            for c in mro[where + 1 :] if _calls_super(method) else ():
                base = c.__dict__.get(attr)
                if base is None:
                    continue  # (a class between that does not define it)
                base = base.__func__ if isinstance(base, (staticmethod, classmethod)) else base
                if isinstance(base, types.FunctionType) and id(base) not in seen:
                    visit(base, 1, f"{c.__name__}.{attr}")
                    class_fields(cls, owner, _names_read(base.__code__) - read)
                if not _calls_super(base):
                    break

    visit(func, 0, getattr(func, "__name__", "f"))
    for obj in static:
        if isinstance(obj, type) and not _library(obj):  # a class passed in: ``C.k``,
            code = getattr(getattr(func, "__func__", func), "__code__", None)
            named = _names_read(code) if code is not None else set()
            class_fields(obj, None, named)
            for attr in sorted(named):  # and what its methods read (``C.apply(x)``)
                member = inspect.getattr_static(obj, attr, None)
                if isinstance(member, (classmethod, staticmethod)):
                    member = member.__func__
                if isinstance(member, types.FunctionType):
                    visit(member, 1, f"{obj.__name__}.{attr}")
                    class_fields(obj, None, _names_read(member.__code__))
            continue
        if has_fields(obj) and not _library(obj):
            # a static ``self``: its fields, and its class's that ``func`` reads
            fields_of(obj, getattr(func, "__func__", func))
            as_array(obj, type(obj).__name__)
        if callable(obj) and not isinstance(obj, type):  # ``f(x, act)``: what ``act`` reads
            visit(obj, 1, getattr(obj, "__name__", type(obj).__name__))
    # NOTE [methods of objects in containers under jit]: a user's object reached as an
    # item or a field (``for l in self.layers: x = l(x)``, ``self.blocks["a"](x)``,
    # ``LAYERS[0].act(x)``) has its fields guarded where it is placed, but what its
    # methods read (a global ``SCALE``, the class's ``k`` through ``self``) was not
    # followed: its ``__call__`` (inherited too), the other special methods Python calls
    # without the code naming them (``T[0]``, ``len(T)``, ``float(v)``, ``x * s``) and
    # the methods the code names are visited here, once per class, with the class
    # attributes they read; until no more names are read (a method may name another's).
    done: set = set()  # (class, name) followed
    for _ in range(3):
        before = len(read)
        wanted = tuple(sorted(read))
        for cls in {type(v): None for v, _ in objects}:
            if len(checks) > _MAX_CHECKS:
                break
            fresh = [a for a in (*_protocol_methods(cls), *wanted) if (cls, a) not in done]
            done.update((cls, a) for a in fresh)
            # ``LAYERS[0].k``, a property's ``l.scale``: the class's fields the code names
            class_fields(cls, None, set(fresh))
            for attr in fresh:
                fn = _user_method(cls, attr)
                if fn is not None:  # (per class; the items' own fields: below)
                    visit(fn, 1, f"{cls.__name__}.{attr}")
                    class_fields(cls, None, _names_read(fn.__code__))
        if len(read) == before:
            break
    # an item's own ``k``, set later, would shadow its class's ``C.k`` that its methods
    # read: each such attribute is checked to stay absent from the objects of the class
    # (in one check: a model's layers are many)
    owners, attrs = [], []
    for obj, _ in objects:
        owner = getattr(obj, "__dict__", None)
        if type(owner) is not dict or isinstance(obj, threading.local):
            continue
        for attr in sorted(class_data.get(type(obj), ())):
            if attr not in owner and (id(owner), attr) not in shadowed:
                shadowed.add((id(owner), attr))
                owners.append(owner)
                attrs.append(attr)
    if owners:
        note((tuple(owners), _WHOLE, _Absent(attrs)), "an object's own attribute over its class's")
    # NOTE [objects in long lists under jit]: a list of more than ``_MAX_ITEMS`` items is
    # checked to hold the same objects, not followed into (an op database's lists); but a
    # model's 100 layers (``for l in self.layers: x = l(x)``), whose ``l.w`` a training
    # loop rebinds, would then replay the old weights.  So the arrays and numbers in the
    # fields of the user's objects in such lists are guarded where the code names them
    # (``w``), up to a budget, and not followed further (an op database's functions).
    # the user's objects below ``_DEPTH`` (``NET.blocks[1].attn.proj.inner.k``): the fields
    # the code names, down to ``_OBJECT_DEPTH``, so that deep data that no code reads
    # does not spend the budget of the places that follow
    while deep and len(checks) <= _MAX_CHECKS:
        value, where, depth = deep.pop()
        if id(value) in placed or depth > _OBJECT_DEPTH:
            continue
        placed.add(id(value))
        for holder, k, v in _fields(value)[:_MAX_ITEMS]:
            if k in read:
                place(holder, k, v, f"{where}.{k}", depth + 1)
    wanted: dict = {}  # a class -> the names of its objects' fields the code reads
    for items, where, _ in long_lists:
        for k, v in items:
            if len(checks) > _LONG_LIST_CHECKS:
                break
            fields = getattr(v, "__dict__", None)
            if type(fields) is not dict:
                continue
            attrs = wanted.get(type(v))
            if attrs is None:
                attrs = wanted[type(v)] = sorted(read & fields.keys()) if _user_object(v) else []
            for attr in attrs:
                field = fields.get(attr, _MISSING)
                if field is not _MISSING and _is_data(field):
                    note((fields, attr, field), f"{where}[{k!r}].{attr}")
    # an iterator in a field or global the code names (``next(self.rates)``), not one an
    # object merely holds (``self.loader`` of a trainer whose jitted step does not use it)
    used = tuple(n for n, k in iterators if not isinstance(k, str) or k in read)
    if checks or stores or used:
        return Guards(checks, names, tuple(stores.values()), used, tuple(codes), idents)
    return None


def _concrete(value: Any, ours: Any, depth: int) -> tuple[Any, bool]:
    """``(value, whether it held one of the recording's tracers)``, the tracers in it
    replaced by their arrays (a list in place, a tuple or dict by a new one)."""
    if ours(value):
        return value.val, True
    t = type(value)
    if depth > 2 or not (t is list or t is tuple or t is dict):
        return value, False
    items = list(value.values() if t is dict else value)
    new = [_concrete(v, ours, depth + 1) for v in items]
    if not any(held for _, held in new):
        return value, False
    new = [v for v, _ in new]
    if t is list:
        value[:] = new  # (the same list: the caller may hold it)
        return value, True
    return (dict(zip(value, new)) if t is dict else tuple(new)), True


def _deeper(value: Any, depth: int) -> int:
    """The depth at which a value a function reads by name is visited: a function's is the
    same (a call chain ``loss -> net -> layer -> dense`` is followed to its end, each
    function once, up to ``_MAX_CHECKS`` guards), another object's one deeper."""
    return depth if type(value) is types.FunctionType else depth + 1


_STORE_GLOBAL = dis.opmap["STORE_GLOBAL"]
_STORE_DEREF = dis.opmap["STORE_DEREF"]


def _stores(code: types.CodeType) -> set:
    """Which of ``STORE_GLOBAL`` and ``STORE_DEREF`` ``code`` (or a function nested in it)
    executes: whether it assigns a global (``global STATE; STATE = ...``) or a variable
    of a closure (``nonlocal h; h = ...``)."""
    out = set()
    stack = [code]
    while stack:
        c = stack.pop()
        ops = c.co_code[::2]
        out.update(op for op in (_STORE_GLOBAL, _STORE_DEREF) if op in ops)
        stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return out


def _literal_numbers(code: types.CodeType) -> frozenset:
    """The Python numbers ``code`` (and the functions nested in it) writes as literals."""
    found = _LITERALS.get(code)
    if found is None:
        out = set()
        for c in nested_codes(code):
            for k in c.co_consts:
                if type(k) in (float, complex):
                    out.add(k)
                    out.add(-k)  # (``-2.0`` is a literal and a negation)
        found = _LITERALS[code] = frozenset(out)
    return found


_LITERALS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


#: Special methods that read nothing a call computes with (made, shown, set, compared
#: by identity), not followed (NOTE [methods of objects in containers under jit]).
_NOT_FOLLOWED = frozenset(
    {"__init__", "__new__", "__del__", "__repr__", "__str__", "__format__", "__setattr__",
     "__delattr__", "__init_subclass__", "__class_getitem__", "__getstate__", "__setstate__",
     "__reduce__", "__reduce_ex__", "__copy__", "__deepcopy__", "__enter__", "__exit__",
     "__set_name__", "__subclasshook__", "__hash__", "__eq__", "__ne__", "__dir__",
     "__sizeof__"}
)  # fmt: skip


def _protocol_methods(cls: type) -> list[str]:
    """The special methods of the user's that ``cls`` defines along its MRO (``__call__``,
    ``__getitem__``, ``__rmul__``, ``__float__``, ...): Python runs them for the code
    without it naming them."""
    found = _PROTOCOL.get(cls)
    if found is None:
        out: dict = {}
        for c in cls.__mro__:
            if _library(c):
                continue
            for k, v in c.__dict__.items():
                if k.startswith("__") and k.endswith("__") and k not in _NOT_FOLLOWED:
                    if isinstance(v, types.FunctionType):
                        out.setdefault(k, None)
        found = _PROTOCOL[cls] = sorted(out)
    return found


_PROTOCOL: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _user_method(cls: type, attr: str) -> types.FunctionType | None:
    """The function of the user's that ``cls`` has as the method ``attr`` (found along
    its MRO; a staticmethod's or classmethod's too), or ``None``."""
    for c in cls.__mro__:
        if attr in c.__dict__:
            v = c.__dict__[attr]
            v = v.__func__ if isinstance(v, (staticmethod, classmethod)) else v
            if isinstance(v, types.FunctionType) and not _library(v):
                return v
            return None
    return None


def _calls_super(fn: Any) -> bool:
    """Whether a method's code calls ``super()`` (its zero-argument form reads the
    ``__class__`` cell; ``super(C, self)`` names ``super`` too)."""
    code = getattr(fn, "__code__", None)
    return code is not None and ("super" in code.co_names or "__class__" in code.co_freevars)


def _stored_attributes(code: types.CodeType) -> set:
    """The attribute names ``code`` (and the functions nested in it) assigns
    (``self.k = ...``)."""
    out = set()
    stack = [code]
    while stack:
        c = stack.pop()
        out.update(i.argval for i in dis.get_instructions(c) if i.opname == "STORE_ATTR")
        stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return out


# NOTE [containers the recording changes]: a recording runs the function's Python once;
# a change it makes to a container from outside (``LOG.append(1)``, ``S.add(k)``,
# ``CACHE[k] = v``) is a side effect a replay does not repeat, and when the code only
# changes the container, that is the rule (``calls.append(1)`` counts recordings, as under
# ``jax.jit``): its check, which the change made fail, is dropped.  But where the code also
# reads it (``return x * len(LOG)``, ``sum(hist)``, ``CACHE.get(k)``), the replay would
# compute with the recording's length or items, where the eager call sees its own change:
# the check is kept, so the next call records again (a memo cache filled once then
# replays), and a recording made again for such a change of its own that changes it once
# more (a counter, ``self.steps += 1``, a log it reads) runs that signature eagerly.
# Which names the code reads is found in its bytecode (:func:`names_read_back`), only
# when a recording changed a container.
#: Methods that change a container and return nothing of it (``LOG.append(1)``).
_MUTATORS = frozenset(
    {"append", "extend", "insert", "add", "update", "appendleft", "extendleft", "clear"}
    | {"discard", "remove"}
)
_NAME_LOADS = frozenset(
    {"LOAD_GLOBAL", "LOAD_DEREF", "LOAD_CLASSDEREF", "LOAD_ATTR", "LOAD_NAME", "LOAD_FAST"}
)


def _ident(key: Any, name: str) -> str | None:
    """The name code reaches the container at ``key`` by: a global's, an attribute's or
    a string key's, a closure cell's (``name``); ``None`` for a list's item."""
    if key is _CELL:
        return name
    return str(key) if isinstance(key, str) else None


def names_read_back(codes: tuple) -> set:
    """The names ``codes`` (and the functions nested in them) load for a use other than
    changing what they name: ``len(LOG)``, ``sum(self.hist)``, ``CFG["log"][0]``,
    ``CACHE.get(k)``, but not ``LOG.append(1)``, ``CFG["log"].append(1)``, ``S.add(k)``
    or ``D["k"] = v`` (NOTE [containers the recording changes])."""
    out: set = set()
    stack = list(codes)
    seen: set = set()
    while stack:
        c = stack.pop()
        if id(c) in seen:
            continue
        seen.add(id(c))
        ins = list(dis.get_instructions(c))
        n = len(ins)
        for k, i in enumerate(ins):
            if i.opname in _NAME_LOADS and type(i.argval) is str:
                name, after = i.argval, k + 1
            elif (
                i.opname == "LOAD_CONST"
                and type(i.argval) is str
                and k + 1 < n
                and ins[k + 1].opname == "BINARY_SUBSCR"
            ):
                name, after = i.argval, k + 2  # ``CFG["log"]``
            else:
                continue
            use = ins[after] if after < n else None
            if use is not None and use.opname in ("LOAD_METHOD", "LOAD_ATTR"):
                if use.argval in _MUTATORS:
                    continue
            elif (
                use is not None
                and use.opname in ("LOAD_CONST", "LOAD_FAST")
                and after + 1 < n
                and ins[after + 1].opname in ("STORE_SUBSCR", "DELETE_SUBSCR")
            ):
                continue  # ``D["k"] = v``
            out.add(name)
        stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return out


def has_fields(v: Any) -> bool:
    """Whether ``v`` holds fields (a ``__dict__`` or ``__slots__``) that ``jit`` guards
    when it is passed as an argument (a static ``self``, a config object, a class)."""
    if isinstance(v, type):  # a class passed in: its attributes (``C.k``)
        return True
    return type(getattr(v, "__dict__", None)) is dict or bool(_slot_names(type(v)))


def _names_read(code: types.CodeType) -> set:
    """The global and attribute names ``code`` (and the functions nested in it) uses, and
    the names among its string constants (``getattr(cfg, "lr")``)."""
    return code_names(code) | _attribute_strings(code)


def _slot_names(cls: type) -> list:
    """The ``__slots__`` fields of ``cls`` and its bases (an object without ``__dict__``)."""
    out = []
    for c in cls.__mro__:
        slots = c.__dict__.get("__slots__", ())
        for k in (slots,) if type(slots) is str else slots:
            if k not in ("__dict__", "__weakref__") and k not in out:
                out.append(k)
    return out


def _fields(obj: Any) -> list:
    """``(holder, key, value)`` of each field of ``obj``: its ``__dict__``'s entries, and
    its ``__slots__`` (``holder`` is ``obj``, the key an attribute)."""
    out = []
    fields = getattr(obj, "__dict__", None)
    if type(fields) is dict and isinstance(obj, threading.local):
        # NOTE [thread-local settings under jit]: the fields of a ``threading.local``
        # (``SETTINGS.scale``, per thread) are in a dict of the thread that reads
        # ``obj.__dict__``: a check on that dict would compare the recording thread's
        # value at a replay in another thread, which set its own.  So its places are
        # attributes of the object, ``getattr(obj, k)``, read in the replaying thread.
        # A ``contextvars.ContextVar`` the code reaches is checked the same way: its
        # ``get()`` in the replaying context (``_CONTEXT``), per thread and asyncio task.
        out.extend((obj, _Attr(k), v) for k, v in list(fields.items()))
    elif type(fields) is dict:
        out.extend((fields, k, v) for k, v in list(fields.items()))
    for k in _slot_names(type(obj)):
        v = getattr(obj, k, _MISSING)
        if v is not _MISSING:
            out.append((obj, _Attr(k), v))
    return out


def same_fields(then: Any, now: Any) -> bool:
    """Whether ``now`` is of ``then``'s class and has the same fields, each the same
    object (numbers and strings: an equal one), as ``then`` (NOTE [equal static objects
    under jit] in ``jit.py``)."""
    if type(then) is not type(now):
        return False
    a, b = _fields(then), _fields(now)
    return [k for _, k, _ in a] == [k for _, k, _ in b] and all(
        x is y or _same(y, x) for (_, _, x), (_, _, y) in zip(a, b)
    )


def _imported(v: Any) -> bool:
    """A library's function or class found by name (``from numpy import tanh``): its
    name is guarded, but what it reads is not the user's (``jit(helper)`` and
    ``jit(grad(loss))`` wrap the user's function, found at the end of the chain of
    ``__wrapped__``)."""
    if not callable(v) or not _library(v):
        return False
    for _ in range(_NESTING):  # (``jit(grad(f))``: the chain of wrappers, to its end)
        v = wrapped_of(v)
        if v is None:
            return True
        if not _library(v):
            return False
    return True


def _user_module(name: str) -> bool:
    """A module of the user's (not the standard library's nor a library's)."""
    top = name.partition(".")[0]
    return top not in sys.stdlib_module_names and top not in _LIBRARIES


def _user_object(v: Any) -> bool:
    """An instance of the user's own class (a layer, a config; a ``SimpleNamespace``; one
    with ``__slots__``), not of the standard library's (a logger's caches change as it is
    used)."""
    if _library(v):
        return False
    if type(getattr(v, "__dict__", None)) is not dict and not _slot_names(type(v)):
        return False
    if isinstance(v, (types.FunctionType, types.MethodType, type, types.ModuleType)):
        return False
    module = type(v).__module__
    stdlib = isinstance(module, str) and module.partition(".")[0] in sys.stdlib_module_names
    return not stdlib or type(v) is types.SimpleNamespace


#: Packages whose functions and objects are not the user's: their state is not guarded
#: (the test runner's too: a rewritten ``assert`` in the user's code names pytest's
#: helpers, whose globals reach every test report of the session).
_LIBRARIES = frozenset(
    {"ftransforms", "batching_rules", "numpy", "scipy", "cupy", "optree", "_pytest", "pytest"}
)
#: ... and the code of the standard library and of installed packages (functions and
#: modules: a package's own counters and caches, numba's ``_ir_dump_counter``), but not
#: their objects (a ``SimpleNamespace`` of settings, a fitted estimator are the user's).
_STDLIB = frozenset(sys.stdlib_module_names)
_INSTALLED: dict = {}  # module name -> whether its file is in an installed package


def _installed(module: str, where: str) -> bool:
    found = _INSTALLED.get(module)
    if found is None:
        found = _INSTALLED[module] = "site-packages" in where or "dist-packages" in where
    return found


def _library(obj: Any) -> bool:
    where = None
    if isinstance(obj, types.FunctionType):  # where it was defined (``wraps`` copies the
        module = obj.__globals__.get("__name__")  # wrapped function's ``__module__``)
        where = obj.__code__.co_filename
    elif isinstance(obj, types.ModuleType):
        module = obj.__name__
        where = getattr(obj, "__file__", None) or ""
    else:
        module = type(obj).__module__
    if not isinstance(module, str):
        return False
    root = module.partition(".")[0]
    if root in _LIBRARIES:
        return True
    return where is not None and (root in _STDLIB or _installed(module, where))


def _held(obj: Any) -> list:
    """The objects a library function or object holds: closure contents, fields."""
    out = []
    for cell in getattr(obj, "__closure__", None) or ():
        try:
            out.append(cell.cell_contents)
        except ValueError:
            pass
    fields = getattr(obj, "__dict__", None)
    if type(fields) is dict:
        out.extend(fields.values())
    return out


def fingerprints(arrays: list) -> list:
    """``(name, array, fingerprint)`` of writeable NumPy arrays: a checksum of a contiguous
    one's memory (no copy), a copy of any other."""
    out = []
    for name, a in arrays:
        if a.flags.writeable and a.dtype.kind != "O":
            if a.flags.c_contiguous:
                out.append((name, a, zlib.crc32(a)))
            else:
                out.append((name, a, a.copy()))
    return out


def written(prints: list) -> list[str]:
    """The names of the arrays of :func:`fingerprints` whose contents changed since."""
    out = []
    for name, a, before in prints:
        if type(before) is numpy.ndarray:
            if not numpy.array_equal(a, before, equal_nan=a.dtype.kind in "fc"):
                out.append(name)
        elif not a.flags.c_contiguous or zlib.crc32(a) != before:
            out.append(name)
    return out
