"""Whether a Python function may change something outside itself when called.

``cond``/``switch`` check an untaken branch, and ``while_loop``/``fori_loop``/``scan``
a loop body, by a trial call (NOTE [eager branch check]).  A trial call must change
nothing the program can see afterwards: a write into a traced array stops it (the
``trial_run`` guard), but a write into a plain NumPy array from outside (a closure, a
global, an attribute), a list's ``append``, a random draw that moves a generator on, or a
``print`` cannot be stopped or undone.  :func:`may_have_effects` reads the function's
bytecode (and that of the functions it calls by a global or closed-over name, and of the
functions defined inside it) for such an effect; where it finds one, or cannot read the
function, the trial is skipped (the check is lost, never the answer).

Example:
    >>> import numpy as np
    >>> acc = np.zeros(2)
    >>> def pure(v):
    ...     return np.sin(v) * 2
    >>> def writes(v):
    ...     acc[0] += v.sum()
    ...     return v
    >>> may_have_effects(pure), may_have_effects(writes)
    (False, True)
"""

from __future__ import annotations

import builtins
import dis
import functools
import importlib.util
import os
import types
from typing import Any

import numpy

__all__ = ["may_have_effects"]

#: Instructions that write outside the function's own local names.
_WRITES = frozenset(
    {
        "STORE_SUBSCR",
        "STORE_SLICE",
        "DELETE_SUBSCR",
        "DELETE_SLICE",
        "STORE_ATTR",
        "DELETE_ATTR",
        "STORE_GLOBAL",
        "DELETE_GLOBAL",
        "STORE_NAME",
        "DELETE_NAME",
    }
)

#: Methods that change their object, the output or a random generator's state, when the
#: object they are called on is not known (a local, an attribute): containers' and
#: arrays' in-place methods and every drawing method of NumPy's generators.  (``x.at[i]``
#: is not one: on a traced array it is JAX's functional update.)
_EFFECT_NAMES = frozenset(
    {
        "append",
        "extend",
        "insert",
        "pop",
        "popitem",
        "remove",
        "clear",
        "update",
        "setdefault",
        "add",
        "discard",
        "appendleft",
        "extendleft",
        "fill",
        "sort",
        "put",
        "itemset",
        "resize",
        "partition",
        "setflags",
        "byteswap",
        "write",
        "send",
        "seed",
        "shuffle",
        "__setitem__",
        "__delitem__",
    }  # fmt: skip
    | {
        n
        for cls in (numpy.random.Generator, numpy.random.RandomState)
        for n in dir(cls)
        if not n.startswith("_") and n not in vars(numpy)  # not numpy.power, say
    }
) - {"bit_generator", "spawn"}

#: NumPy's functions that write into an argument (called as ``np.copyto(...)``; every
#: other function of a module is pure, but for an ``out=``, which the keyword scan sees).
_WRITING_FUNCTIONS = frozenset(
    {"copyto", "put", "place", "putmask", "fill_diagonal", "put_along_axis", "shuffle", "seed"}
)

#: An array's attributes: views of it (``x.T``) or numbers, never an outside object.
_ARRAY_ATTRS = frozenset({"T", "mT", "real", "imag", "flat", "shape", "dtype", "ndim", "size"})

_UNKNOWN = object()

#: Builtins whose call is an effect (``print(...)``; ``ft.debug.print``, an attribute,
#: is recorded as an effect by ``jit`` and is not one of them).
_BUILTIN_EFFECTS = frozenset(
    {"print", "input", "open", "exec", "eval", "setattr", "delattr", "next"}
)

_CACHE: dict[Any, bool] = {}


def _package_dir(name: str) -> str:
    spec = importlib.util.find_spec(name)  # without importing it
    if spec is None or not spec.origin:
        return "\0"  # matches no file
    return os.path.dirname(spec.origin) + os.sep


_LIBRARY_DIRS = tuple(_package_dir(n) for n in ("numpy", "scipy", "ftransforms"))
_OWN = _LIBRARY_DIRS[-1]


def may_have_effects(fun: Any) -> bool:
    """Whether calling ``fun`` may change anything outside it (conservative: a callable
    whose code cannot be read counts as one that may, NumPy's ufuncs and builtins aside).
    A wrapper of ours whose own bookkeeping writes names the user's functions it calls in
    its ``effects_of`` attribute."""
    try:
        return _scan(fun, 0, set())
    except Exception:  # noqa: BLE001 - an unreadable function: assume it may
        return True


def _code_of(fun: Any) -> Any:
    while isinstance(fun, functools.partial):
        fun = fun.func
    fun = getattr(fun, "__func__", fun)  # a bound method
    return fun, getattr(fun, "__code__", None)


def _library(fun: Any) -> bool:
    """NumPy's, SciPy's and our own functions change nothing without an ``out=`` or a
    writing function's name, which the caller's code shows (and which it scans)."""
    if isinstance(fun, (numpy.ufunc, types.BuiltinFunctionType)):
        return True
    code = getattr(fun, "__code__", None)
    if code is not None:
        return code.co_filename.startswith(_LIBRARY_DIRS)
    mod = getattr(fun, "__module__", None) or ""
    return mod.split(".")[0] in ("numpy", "scipy", "ftransforms")


def _scan(fun: Any, depth: int, seen: set) -> bool:
    wraps = getattr(fun, "effects_of", None)  # our wrapper: the user's functions it calls
    if wraps is not None:
        return any(_scan(f, depth, seen) for f in wraps)
    fun, code = _code_of(fun)
    if _library(fun) and (depth or code is None or not code.co_filename.startswith(_OWN)):
        return False  # (at the top, our own wrappers of a user's function are read)
    if code is None:
        return True
    if code in seen:
        return False
    seen.add(code)
    closure = {}
    for n, cell in zip(code.co_freevars, getattr(fun, "__closure__", None) or ()):
        try:
            closure[n] = cell.cell_contents
        except ValueError:  # an empty cell
            continue
    # what the scan reads of a closed-over value: its type, and which module it is
    key = (
        code,
        *((type(c), c if isinstance(c, types.ModuleType) else None) for c in closure.values()),
    )
    cached = _CACHE.get(key)
    if cached is None:
        cached = _code_writes(code, closure, getattr(fun, "__globals__", {}))
        if len(_CACHE) > 4096:
            _CACHE.clear()
        _CACHE[key] = cached
    if cached:
        return True
    if depth >= 4:
        return False
    # the functions it calls by a closed-over or global name
    callees = []
    for cell in getattr(fun, "__closure__", None) or ():
        try:
            callees.append(cell.cell_contents)
        except ValueError:  # an empty cell
            continue
    glob = getattr(fun, "__globals__", {})
    callees += [glob[n] for n in code.co_names if n in glob]
    for c in callees:
        if isinstance(c, (types.FunctionType, types.MethodType, functools.partial)):
            if _scan(c, depth + 1, seen):
                return True
    return False


def _code_writes(code: Any, closure: dict, glob: dict) -> bool:
    """Whether ``code`` writes outside its locals; ``closure`` and ``glob`` resolve the
    names it loads (so that a module's function is told from an object's method)."""
    for const in code.co_consts:
        if isinstance(const, tuple) and "out" in const:  # a call with out=
            return True
        if isinstance(const, types.CodeType) and _code_writes(const, {}, glob):
            return True
    free = set(code.co_freevars)
    cur: Any = _UNKNOWN  # the object the last instruction loaded, where it is known
    in_place = outside = False  # ``a += b``; an array (or a holder of some) from outside
    attr_locals: set = set()  # locals bound to an attribute (``a = self.buf``)
    prev = pending = None  # the last instruction; an in-place op waiting for its target
    for ins in dis.get_instructions(code):
        op = ins.opname
        if op in _WRITES:
            return True
        if op == "STORE_FAST":
            if pending and ins.argval in attr_locals:
                return True  # ``a = self.buf; a += 1`` writes self.buf
            if prev == "LOAD_ATTR":
                attr_locals.add(ins.argval)
            pending = None
        if op not in ("CACHE", "EXTENDED_ARG"):
            # an attribute that is an object's (not a method); an array's own view of one
            # (``self.buf.T``) still is, of an argument (``x.T``) is not
            if op == "LOAD_ATTR" and ins.argrepr.startswith("NULL"):
                prev = None
            elif op != "LOAD_ATTR" or ins.argval not in _ARRAY_ATTRS:
                prev = op
            elif prev != "LOAD_ATTR":
                prev = None
        if op in ("STORE_DEREF", "DELETE_DEREF") and ins.argval in free:
            return True  # ``nonlocal`` rebinding
        if op.startswith("INPLACE_") or (op == "BINARY_OP" and ins.argrepr.endswith("=")):
            in_place = pending = True
        if op in ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF"):
            cur = (closure if op == "LOAD_DEREF" else glob).get(ins.argval, _UNKNOWN)
            if cur is _UNKNOWN and op != "LOAD_DEREF":
                cur = vars(builtins).get(ins.argval, _UNKNOWN)
                if ins.argval in _BUILTIN_EFFECTS:
                    return True
            outside = outside or _holds_arrays(cur)
            continue
        if op in ("LOAD_ATTR", "LOAD_METHOD"):
            name = ins.argval
            if isinstance(cur, types.ModuleType):
                if cur.__name__.startswith("numpy.random") or name in _WRITING_FUNCTIONS:
                    return True
                cur = getattr(cur, name, _UNKNOWN)
                continue
            if isinstance(cur, numpy.ufunc):
                if name == "at":  # np.add.at(a, i, v) writes a
                    return True
            elif isinstance(cur, (numpy.random.Generator, numpy.random.RandomState)):
                return True
            elif name in _EFFECT_NAMES:
                return True
            elif cur is not _UNKNOWN and not callable(cur):
                outside = True  # an attribute of an object from outside (``model.w``)
            cur = _UNKNOWN
            continue
        if op not in ("PUSH_NULL", "CACHE", "EXTENDED_ARG"):
            cur = _UNKNOWN
    # ``a += b`` writes the array ``a`` in place: the function's own (a local made
    # inside it; the trials give it copies of its operands) unless it may reach one from
    # outside (``for row in G: row += 1``)
    return in_place and outside


def _holds_arrays(value: Any) -> bool:
    """Whether a value from outside a function may be (or hold) a NumPy array."""
    if value is _UNKNOWN:
        return True  # a closed-over name the scan cannot see
    return isinstance(value, (numpy.ndarray, list, tuple, dict, set)) or not (
        callable(value) or isinstance(value, (types.ModuleType, int, float, complex, str, bytes))
    )
