"""Traced writes into plain NumPy arrays that only the writing function holds.

NOTE [traced writes into private NumPy arrays]: NumPy's creation functions make buffers
while a transform is active (NOTE [mutation semantics] in core/mutation.py), but user code
makes plain arrays in many other ways that cannot be hooked: ``np.r_[0.0, 1.0]``,
``np.repeat([1.0, 2.0], 3)``, ``np.tile``/``np.concatenate`` of lists, ``init.copy()``,
``init.astype(float)``, ``init * 2`` or ``init[[0, 2]]`` of a global ``init`` (C methods and
operators).  NumPy lets the function write into such an array; ``buf[i] = t`` with a traced
``t`` hands ``t`` to NumPy's C code, which converts it with ``float()``/``__array__``.

There, the conversion (:func:`store_into_private_array`) looks at the frame running
``buf[index] = t`` (the STORE_SUBSCR instruction; ``buf[index] op= t`` too):

* the array must be a local variable of that frame (``LOAD_FAST``: not a global, a closure
  variable or an attribute), and the index an expression this module can evaluate again
  without side effects (names, constants, slices, tuples, integer arithmetic, an element
  of a list or of a plain integer array, a list display, a call of ``np.arange``/``range``/
  ``len``/``np.ix_`` on plain numbers or lists: ``buf[i]``, ``buf[:, j + 1]``,
  ``buf[idx[k]]``, ``buf[[0, 2]]``, ``buf[np.arange(N), y]``);
  an integer or boolean tracer in it (traced labels ``y``) is read as NumPy reads it: where
  NumPy converts such a tracer and it is the store's index (:func:`index_of_store`), it
  gives NumPy its value, as a read ``buf[np.arange(N), y]`` and ``buf[int(t)]`` do
  (NOTE [number conversions]), and a traced value stored at it takes that value too;
* the array must be private: no other reference to it than that variable and the store
  in progress (its reference count equals that of a fresh array stored into the same way,
  measured on one: :func:`_baseline`), so no alias, view, container, global or caller sees
  it, and its memory is its own or its one base's, which nothing else holds.  Then NumPy
  semantics and the functional form agree: the write reaches nothing but that variable.

The variable is then rebound (as a debugger does: :func:`write_locals`) to a buffer holding
a copy of the array with ``t`` written at ``index`` (the buffer's own traced write), and
NumPy finishes its store into the old array with zeros (``dummy``), which no one sees.
``x0 op= t`` (``x0 = init.copy(); x0 += t``) reaches the tracer's ``__array_ufunc__`` with
``out=(x0,)``: where the user's frame stores the operator's result back into the variable
``x0`` (``BINARY_OP +=``, ``STORE_FAST x0``) and ``x0`` is private (counted as above, against
``probe_target += probe`` with a stand-in whose ``__array_ufunc__`` has the tracer's lines:
:func:`private_out`), the ufunc writes into a buffer copy instead and returns it, and
Python binds it to ``x0``.  ``buf[i:j] op= t`` hands the operator NumPy's temporary view of
``buf``: a buffer copy of it takes the result, and the store that follows writes it into
``buf`` as ``buf[i:j] = t`` does (so a global's slice still refuses, unwritten).  A helper
of the user's that writes into its caller's array (``step(u, dt)`` doing ``u[1:-1] += ...``)
counts the variables of its callers that hold it (the user's frames up to the first frame
of a library, :func:`_caller_bindings`) and rebinds them all.  A ufunc the user's frame
calls with ``out=`` such an array (``np.add(x0, t, out=x0)``, ``np.exp(t, out=buf)``) is
counted against the same ufunc called the same way on a fresh array
(:func:`_call_baseline`), and the variables holding it are rebound to the buffer that takes
the result (``out=(x0,)`` too, its tuple counted against a tuple display on the fresh
array; a tuple a variable holds counts more and keeps the error).
Anything else keeps the InPlaceError, whose message names the fix: an array a caller or a
global can see (``x0 = init; x0[0] = t`` would write into ``init``: refused, as JAX refuses
it, rather than changing the caller's data), a view of another array, an alias.  A list
holding tracers (``buf[:2] = [t, u]``) is converted element by element: where the stored
expression is a list display of reads, subscripts and arithmetic (``[x[0], 1.0]``), its
elements are computed again from the frame's variables (:func:`_listed_value`), and where
it is another list display (``[np.sin(x[0]), 1.0]``: a call is not run again) the list
being stored is the one holding the tracer that no object refers to, only the value
stack (:func:`_stored_list`); the list is written whole at the first conversion, the
others given zeros; otherwise (a list a variable holds, a nested display) the
second conversion in the same store undoes the rebinding and raises; and where one
conversion could be of one element of a list or object array (``buf[:2] = [row, ones]``),
the store refuses (:func:`_whole_value`: ``t`` must fill its target, a number conversion
one element, unless the stored expression is known to be a tracer, which NumPy converts
whole and broadcasts: ``b2d[:] = x[:3]``).  Costs nothing until a traced value is written
into a plain array (then one evaluation and one reference count).
"""

from __future__ import annotations

import ctypes
import dis
import gc
import operator
import sys
import threading
import types
import weakref
from typing import Any

import numpy

from ftransforms.core.errors import InPlaceError
from ftransforms.core.mutation import (
    _WRAPPERS,
    Buffer,
    frame_is_user_code,
    live_buffer_scope,
    new_buffer,
)
from ftransforms.core.tracer import PRIVATE_STORE, STORE_INDEX, Tracer

_STORE_SUBSCR = dis.opmap["STORE_SUBSCR"]

#: Integer arithmetic an index may use, by BINARY_OP's argrepr.
_ARITHMETIC = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "//": operator.floordiv,
    "%": operator.mod,
}
_INTEGERS = (int, numpy.integer)

#: Instructions an index expression may consist of.
_INDEX_OPS = frozenset(
    {
        "LOAD_FAST",
        "LOAD_CONST",
        "LOAD_DEREF",
        "LOAD_GLOBAL",
        "LOAD_ATTR",
        "BUILD_SLICE",
        "BUILD_TUPLE",
        "BUILD_LIST",
        "LIST_EXTEND",
        "BINARY_OP",
        "UNARY_NEGATIVE",
        "BINARY_SUBSCR",
        # a call of one of _PURE_CALLS (np.arange(n), range(n), len(y), np.ix_(i, j))
        "PUSH_NULL",
        "LOAD_METHOD",
        "PRECALL",
        "CALL",
    }
)


def _ints(*args: Any) -> bool:
    return all(isinstance(a, _INTEGERS) for a in args)


def _int_lists(*args: Any) -> bool:
    return all(
        (type(a) in (list, tuple, range) and all(isinstance(v, _INTEGERS) for v in a))
        or (type(a) is numpy.ndarray and a.dtype.kind in "iub")
        for a in args
    )


def _sized(*args: Any) -> bool:
    return len(args) == 1 and isinstance(args[0], (Tracer, numpy.ndarray, list, tuple, range))


#: The functions an index may call, each with the test its positional arguments must
#: pass: they make a new index from plain numbers or lists, with no side effect, so
#: evaluating the index again is safe (``d[np.arange(N), y] -= 1``, ``K[np.ix_(i, i)]``).
_PURE_CALLS: dict[Any, Any] = {
    numpy.arange: _ints,
    range: _ints,
    len: _sized,
    numpy.ix_: _int_lists,
}

#: While a transform is active, ``numpy.arange`` is the wrapper that makes buffers (NOTE
#: [mutation semantics]): an index evaluated again calls NumPy's own.
_UNWRAPPED = {_WRAPPERS["arange"]: numpy.arange}

#: Stands for the NULL a call's instructions push beside the callable.
_NULL = object()

#: (code, offset of the store) -> (the array's variable name, the index's instructions), or
#: None where the store is not of that form.
_PLANS: dict[tuple, Any] = {}


def _plan(code: Any, lasti: int) -> tuple | None:
    """How to find the array and the index of the STORE_SUBSCR at ``lasti`` in ``code``:
    ``(name, instructions)``: the local variable loaded first on the store's target (the
    instruction at the target's start position) and the instructions that compute the
    index after it (the plain store, or ``buf[index] op= v``'s COPY/SWAP form)."""
    key = (code, lasti)
    if key in _PLANS:
        return _PLANS[key]
    _PLANS[key] = plan = _find_plan(list(dis.get_instructions(code)), lasti)
    return plan


def _find_plan(ins: list, lasti: int) -> tuple | None:
    k = next((n for n, i in enumerate(ins) if i.offset == lasti), None)
    if k is None or ins[k].opcode != _STORE_SUBSCR:
        return None
    pos = getattr(ins[k], "positions", None)
    if pos is None or pos.lineno is None:  # Python < 3.11: no positions
        return None
    start = (pos.lineno, pos.col_offset)
    j = k - 1
    while j >= 0 and not (
        ins[j].opname == "LOAD_FAST"
        and ins[j].positions is not None
        and (ins[j].positions.lineno, ins[j].positions.col_offset) == start
    ):
        j -= 1
    if j < 0:
        return None
    m, depth = j + 1, 1
    while m < k and ins[m].opname in _INDEX_OPS:
        depth += _stack_effect(ins[m])
        if depth < 2:  # consumed the array: not an index of it (buf[i][j] = v)
            return None
        m += 1
    if depth != 2:
        return None
    body = tuple(ins[j + 1 : m])
    if m == k:
        return ins[j].argval, body
    names = [i.opname for i in ins[m : m + 3]] + [i.opname for i in ins[k - 2 : k]]
    args = [i.arg for i in ins[m : m + 2]] + [i.arg for i in ins[k - 2 : k]]
    if names == ["COPY", "COPY", "BINARY_SUBSCR", "SWAP", "SWAP"] and args == [2, 2, 3, 2]:
        # buf[index] op= v: v runs between the index and the store, so it must not rebind
        # the names the index reads (buf[i] += (i := 2)) or buf
        read = {i.argval for i in body if i.opname.startswith("LOAD")} | {ins[j].argval}
        if any(
            i.opname.startswith(("STORE", "DELETE")) and i.argval in read
            for i in ins[m + 3 : k - 2]
        ):
            return None
        return ins[j].argval, body
    return None


def _stack_effect(i: Any) -> int:
    if i.opname in ("LOAD_GLOBAL", "LOAD_ATTR") and _pushes_null(i):
        return 2 if i.opname == "LOAD_GLOBAL" else 1  # a callable and a NULL beside it
    if i.opname in ("BUILD_SLICE", "BUILD_TUPLE", "BUILD_LIST"):
        return 1 - i.arg
    if i.opname in ("BINARY_OP", "BINARY_SUBSCR", "LIST_EXTEND"):
        return -1
    if i.opname in ("UNARY_NEGATIVE", "LOAD_ATTR", "PRECALL"):
        return 0
    if i.opname == "CALL":
        return -1 - i.arg  # the callable, its NULL and the arguments, for the result
    return 1  # (LOAD_METHOD: the module, for the function and a NULL)


def _pushes_null(i: Any) -> bool:
    """Whether ``i`` (LOAD_GLOBAL, or LOAD_ATTR from Python 3.12) loads a callable
    together with the NULL of a call."""
    if i.opname == "LOAD_ATTR" and sys.version_info < (3, 12):
        return False
    return bool((i.arg or 0) & 1)


class _Unknown(Exception):  # noqa: N818 - an internal signal
    """The index cannot be evaluated again without side effects."""


def _evaluate(body: tuple, frame: Any, names: dict) -> Any:
    """The index that ``body`` (from :func:`_plan`) computes in ``frame``."""
    stack: list = []
    for i in body:
        op = i.opname
        if op in ("LOAD_FAST", "LOAD_DEREF"):
            if i.argval not in names:
                raise _Unknown
            value = names[i.argval]
            stack.append(value.val if type(value) is Buffer else value)  # (only read)
        elif op == "LOAD_CONST":
            stack.append(i.argval)
        elif op == "LOAD_GLOBAL":
            scope = frame.f_globals
            if _pushes_null(i):
                stack.append(_NULL)
            if i.argval in scope:
                stack.append(scope[i.argval])
            elif hasattr(frame.f_builtins, "get") and i.argval in frame.f_builtins:
                stack.append(frame.f_builtins[i.argval])
            else:
                raise _Unknown
        elif op in ("LOAD_ATTR", "LOAD_METHOD"):  # np.newaxis: a module's attribute only
            obj = stack.pop()
            if type(obj) is not types.ModuleType:
                raise _Unknown
            if op == "LOAD_METHOD" or _pushes_null(i):
                stack.append(_NULL)
            stack.append(getattr(obj, i.argval))
        elif op == "PUSH_NULL":
            stack.append(_NULL)
        elif op == "PRECALL":
            pass
        elif op == "CALL":  # [NULL, f] or [f, NULL] (Python 3.13), then the arguments
            args = tuple(stack[len(stack) - i.arg :]) if i.arg else ()
            del stack[len(stack) - i.arg :]
            pair = (stack.pop(), stack.pop())
            fn = pair[0] if pair[1] is _NULL else pair[1] if pair[0] is _NULL else _NULL
            fn = _UNWRAPPED.get(fn, fn)
            check = _PURE_CALLS.get(fn) if fn is not _NULL else None
            if check is None or not check(*args):
                raise _Unknown
            stack.append(fn(*args))
        elif op == "BUILD_SLICE":
            parts = stack[-i.arg :]
            del stack[-i.arg :]
            stack.append(slice(*parts))
        elif op in ("BUILD_TUPLE", "BUILD_LIST"):
            parts = stack[len(stack) - i.arg :] if i.arg else []
            del stack[len(stack) - i.arg :]
            if op == "BUILD_LIST" and not all(isinstance(v, _INTEGERS) for v in parts):
                raise _Unknown  # (a list index of plain integers only)
            stack.append(tuple(parts) if op == "BUILD_TUPLE" else list(parts))
        elif op == "LIST_EXTEND":  # [0, 2, 3]: a list of constants extended by their tuple
            items = stack.pop()
            if (
                type(stack[-i.arg]) is not list
                or type(items) is not tuple
                or not all(isinstance(v, _INTEGERS) for v in items)
            ):
                raise _Unknown
            stack[-i.arg].extend(items)
        elif op == "UNARY_NEGATIVE":
            if not isinstance(stack[-1], _INTEGERS):
                raise _Unknown
            stack.append(-stack.pop())
        elif op == "BINARY_OP":
            b, a = stack.pop(), stack.pop()
            fn = _ARITHMETIC.get(i.argrepr)
            if fn is None or not (_integral(a) and _integral(b)):
                raise _Unknown
            stack.append(fn(a, b))
        else:  # BINARY_SUBSCR: an element of a list, tuple, range or plain integer array
            b, a = stack.pop(), stack.pop()
            if not (
                type(a) in (list, tuple, range)
                or (type(a) is numpy.ndarray and a.dtype.kind in "iub")
            ) or not isinstance(b, (*_INTEGERS, slice)):
                raise _Unknown
            stack.append(a[b])
    return stack[-1]


def index_of_store(t: Tracer, frame: Any) -> bool:
    """Whether ``t`` (an integer or boolean tracer NumPy converts with ``__array__``) is
    the index, or an array of the index tuple, of the store ``buf[index] = value`` that
    ``frame`` runs (``d[np.arange(N), y] -= 1`` with a traced ``y``).  Then NumPy gets its
    value, as a read ``d[np.arange(N), y]`` and an integer index ``d[i] = v`` get theirs
    (NOTE [number conversions]: no derivative is lost; a ``jit`` recording reads data,
    rows that disagree split a ``vmap`` batch)."""
    if frame.f_code.co_code[frame.f_lasti] != _STORE_SUBSCR:
        return False
    plan = _plan(frame.f_code, frame.f_lasti)
    if plan is None:
        return False
    try:
        index = _evaluate(plan[1], frame, frame.f_locals)
    except (_Unknown, IndexError, KeyError, TypeError, ValueError, ZeroDivisionError):
        return False
    return index is t or (type(index) is tuple and any(p is t for p in index))


def _concrete_index(index: Any) -> Any:
    """``index`` with its integer and boolean tracers replaced by their values (NumPy has
    converted them so: :func:`index_of_store`), or None where a tracer of another dtype
    is in it."""
    parts = index if type(index) is tuple else (index,)
    out = []
    for p in parts:
        if isinstance(p, Tracer) and type(p) is not Buffer:
            if p.dtype.kind not in "iub":
                return None
            p = numpy.asarray(p._concrete())
        out.append(p)
    return tuple(out) if type(index) is tuple else out[0]


def _integral(v: Any) -> bool:
    return isinstance(v, _INTEGERS) or (type(v) is numpy.ndarray and v.dtype.kind in "iu")


def _traced(index: Any) -> bool:
    if type(index) is tuple:
        return any(_traced(i) for i in index)
    return isinstance(index, Tracer) and type(index) is not Buffer


def structured(a: Any) -> bool:
    """Whether ``a`` is a plain array of a structured dtype or a field of one."""
    if type(a) is not numpy.ndarray:
        return False
    base = a.base
    return a.dtype.names is not None or (
        type(base) is numpy.ndarray and base.dtype.names is not None
    )


def _owner(a: numpy.ndarray) -> Any:
    """The array ``a``'s memory belongs to: ``a`` or its base (NumPy keeps one level)."""
    return a if a.base is None else a.base


def _counts(frame: Any, name: str) -> tuple[int, int]:
    """The reference counts of the array held by ``frame``'s variable ``name`` and of its
    base (0 where none), as :func:`_baseline` measures them too."""
    value = frame.f_locals[name]
    base = value.base
    return sys.getrefcount(value), (0 if base is None else sys.getrefcount(base))


class _Probe:
    """A stand-in for a tracer written into a fresh array by :func:`_baseline`: NumPy
    converts it along the same path (the tracer's conversions), which counts then."""

    __array_priority__ = 1000

    def __init__(self, shape: tuple, dtype: Any, based: bool) -> None:
        self.shape, self.dtype, self.based, self.seen = shape, dtype, based, None

    def _count(self) -> None:
        if self.seen is None:
            self.seen = _counts(sys._getframe(2), "probe_target")

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        self._count()
        return numpy.zeros(self.shape, dtype=dtype or self.dtype)

    def __float__(self) -> float:
        self._count()
        return 0.0

    def __complex__(self) -> complex:
        self._count()
        return 0j

    def __int__(self) -> int:
        self._count()
        return 0

    def __len__(self) -> int:
        return self.shape[0]


def _baseline(array: numpy.ndarray, index: Any, value: Any) -> tuple[int, int]:
    """The counts :func:`_counts` gives for a fresh array like ``array`` (with a base that
    nothing else holds where ``array`` has one) that ``probe_target[index] = value`` stores
    into (a list ``value``: stand-ins at its tracers, NumPy converting the first)."""
    dtype, based = numpy.dtype(array.dtype), array.base is not None
    if type(value) is list:
        probe = [
            _Probe(tuple(v.shape), dtype, based) if isinstance(v, Tracer) else v for v in value
        ]
        probes = [p for p in probe if type(p) is _Probe]
    else:
        probe = _Probe(tuple(value.shape), dtype, based)
        probes = [probe]
    probe_target = numpy.zeros(array.shape, dtype=array.dtype)
    if array.base is not None:
        probe_target = probe_target.view()
    probe_target[index] = probe
    return next((p.seen for p in probes if p.seen is not None), (-1, -1))


class _LastStore(threading.local):
    def __init__(self) -> None:
        self.entry: tuple | None = None  # (id(frame), lasti, name, ref(old), ref(new))


_LAST = _LastStore()


def store_into_private_array(t: Tracer, frame: Any, scalar: bool) -> Any:
    """NOTE [traced writes into private NumPy arrays]: ``frame`` runs ``buf[index] = t``
    (NumPy converting ``t``: with ``float()``/``int()``/``complex()`` where ``scalar``,
    else ``__array__``); where ``buf`` is a plain array only that frame's variable holds,
    that variable becomes a buffer holding the write.  Returns the array's dtype (then
    the caller gives NumPy zeros of it to finish its own store), or None."""
    scope = live_buffer_scope()
    if scope is None or frame.f_code.co_code[frame.f_lasti] != _STORE_SUBSCR:
        return None
    code = frame.f_code
    if code.co_flags & (0x20 | 0x80 | 0x200) or not frame_is_user_code(frame):
        return None  # a generator's variables outlive the transform
    plan = _plan(code, frame.f_lasti)
    if plan is None:
        return None
    name, body = plan
    names = frame.f_locals
    last = _LAST.entry
    if (
        last is not None
        and last[:3] == (id(frame), frame.f_lasti, name)
        and last[3]() is not None
        and names.get(name) is last[4]()
    ):  # converted again in the same store: a list holding tracers (buf[:2] = [t, u])
        if len(last) > 5:  # the list was written whole at the first conversion
            return last[5]
        _LAST.entry = None
        write_locals(frame, {name: last[3]()})
        raise InPlaceError(
            f"{t._interp.name}: {name}[...] = [...] writes a list holding traced values into "
            f"the NumPy array {name!r}, which NumPy converts element by element; stack them "
            f"into one array first ({name}[...] = np.stack([...]))."
        )
    array = names.get(name)
    if structured(array):
        raise InPlaceError(
            f"{t._interp.name}: {name}[...] = t writes a traced value into the structured "
            f"NumPy array {name!r} or one of its fields, which cannot hold what the "
            f"transform tracks (its derivative or its batch); keep each field in an array "
            f"of its own (np.zeros(n) per field, or one float array with a column per field)."
        )
    if type(array) is not numpy.ndarray or array.dtype.kind not in "biufc":
        return None
    base = array.base
    if not array.flags.writeable or (base is not None and type(base) is not numpy.ndarray):
        return None
    del base
    try:
        index = _evaluate(body, frame, names)
    except (_Unknown, IndexError, KeyError, TypeError, ValueError, ZeroDivisionError):
        return None
    if _traced(index):
        # an integer index NumPy has converted to its value (index_of_store)
        index = _concrete_index(index)
        if index is None:
            return None
    listed = _listed_value(frame, t)
    if listed is None and not _whole_value(t, array, index, scalar, frame):
        return None
    if not _owner(array).flags.owndata:
        return None
    try:
        expected = _baseline(array, index, t if listed is None else listed)
    except Exception:  # noqa: BLE001 - NumPy refuses the store itself: leave it to NumPy
        return None
    callers, extra = _caller_bindings(frame, array)
    del names, last, array  # (counted: only the frames' variables and the store hold it)
    if _counts(frame, name) != (expected[0] + extra, expected[1]):
        return None
    array = frame.f_locals[name]
    buf = new_buffer(scope, array.copy(order="K"))
    buf[index] = t if listed is None else listed  # the buffer's own traced write
    dtype = array.dtype
    _LAST.entry = (id(frame), frame.f_lasti, name, weakref.ref(array), weakref.ref(buf))
    if listed is not None:
        _LAST.entry += (dtype,)
    write_locals(frame, {name: buf})
    for caller, held in callers:
        write_locals(caller, dict.fromkeys(held, buf))
    return dtype


def _whole_value(
    t: Tracer, array: numpy.ndarray, index: Any, scalar: bool, frame: Any = None
) -> bool:
    """Whether NumPy converting ``t`` for ``array[index] = value`` shows that ``value`` is
    ``t`` itself, not a list or object array holding it (``buf[:2] = [row, ones]``, whose
    other elements NumPy converts without ``t``): a number conversion is NumPy's for one
    element of a list or object array unless the target is one element; ``__array__``
    is for a list's element too, but a list of several elements has one axis more than
    its elements, so ``t`` must fill the target without broadcasting (a 0-d ``t`` may: in
    a list NumPy converts it twice, and the second conversion raises), unless the stored
    expression is known to be a tracer (:func:`_value_is_a_tracer`: ``b[:] = x[:3]``),
    which NumPy converts whole and broadcasts."""
    try:
        target = numpy.shape(array[index])
    except Exception:  # noqa: BLE001 - NumPy's own store raises it again
        return False
    if scalar:
        return target == ()
    if not t.shape:
        return True
    if _without_leading_ones(tuple(t.shape)) == _without_leading_ones(target):
        return True
    try:
        fits = numpy.broadcast_shapes(tuple(t.shape), target) == target
    except ValueError:
        return False
    return fits and frame is not None and _value_is_a_tracer(frame)


#: The instructions a stored expression known to give a tracer may consist of.
_VALUE_OPS = frozenset(
    {
        "LOAD_FAST",
        "LOAD_DEREF",
        "LOAD_GLOBAL",
        "LOAD_CONST",
        "BUILD_SLICE",
        "BUILD_TUPLE",
        "BINARY_SUBSCR",
        "BINARY_OP",
        "UNARY_NEGATIVE",
    }
)


def _listed_value(frame: Any, t: Tracer) -> list | None:
    """For ``buf[index] = [x[0], 1.0]`` (a list display of expressions that read variables
    and constants with subscripts and arithmetic, with ``t`` among its elements' values):
    the list, its elements computed again from ``frame``'s variables (pure: those
    operations on tracers, arrays and numbers), written whole by the caller at NumPy's
    first conversion; for any other list display (``[np.sin(x[0]), 1.0]``: a call is not
    computed again) the list being stored itself (:func:`_stored_list`); None otherwise."""
    body = _value_plan(frame.f_code, frame.f_lasti, lists=True)
    if body is None or body[-1].opname != "BUILD_LIST":
        return _stored_list(frame, t)
    try:
        value = _compute(body, frame)
    except (_Unknown, ArithmeticError, IndexError, KeyError, TypeError, ValueError):
        return _stored_list(frame, t)
    if type(value) is not list or not any(isinstance(v, Tracer) for v in value):
        return None
    if not any(v is t or _same_value(v, t) for v in value):
        return None
    return value


def _stored_list(frame: Any, t: Tracer) -> list | None:
    """The list that ``frame``'s store ``buf[index] = [..., t, ...]`` writes, where its
    value is a list display of ``n`` elements (``BUILD_LIST n`` just before ``buf`` is
    loaded, no jump landing between): a new list only the interpreter's value stack
    holds, so among the lists holding ``t`` it is the one of length ``n`` that no object
    the garbage collector sees refers to (a list a variable or container holds is
    referred to by the frame's ``f_locals`` snapshot or by that container; a display's
    inner list by the outer one).  None where not exactly one list is such (then the
    store keeps the InPlaceError).  Costs a walk over the collector's objects, on this
    path only."""
    n = _display_length(frame.f_code, frame.f_lasti)
    if n is None:
        return None
    frame.f_locals  # noqa: B018 - the snapshot holds what the variables hold (< 3.13)
    found = [r for r in gc.get_referrers(t) if type(r) is list and len(r) == n]
    found = [r for r in found if any(e is t for e in r)]
    unheld = [r for r in found if all(o is found for o in gc.get_referrers(r))]
    if len(unheld) != 1 or not any(isinstance(v, Tracer) for v in unheld[0]):
        return None
    return list(unheld[0])


def _display_length(code: Any, lasti: int) -> int | None:
    """``n`` where the plain store ``buf[index] = value`` at ``lasti`` has a list display
    of ``n`` elements as its value (``BUILD_LIST n`` right before ``buf``'s load, which no
    jump reaches), else None."""
    key = (code, lasti, "display")
    if key not in _PLANS:
        ins = list(dis.get_instructions(code))
        plan = _find_plan(ins, lasti)
        k = next((n for n, i in enumerate(ins) if i.offset == lasti), None)
        found = None
        if plan is not None and k is not None:
            j = k - 1 - len(plan[1])
            if (
                j > 0
                and ins[j].opname == "LOAD_FAST"
                and ins[j].argval == plan[0]
                and not ins[j].is_jump_target
                and ins[j - 1].opname == "BUILD_LIST"
                and ins[j - 1].arg
            ):
                found = ins[j - 1].arg
        _PLANS[key] = found
    return _PLANS[key]


def _same_value(v: Any, t: Tracer) -> bool:
    return isinstance(v, Tracer) and tuple(v.shape) == tuple(t.shape) and v.dtype == t.dtype


_OPERATORS = {
    **_ARITHMETIC,
    "/": operator.truediv,
    "**": operator.pow,
    "@": operator.matmul,
}
_OPERANDS = (Tracer, numpy.ndarray, numpy.generic, int, float, complex)


def _compute(body: tuple, frame: Any) -> Any:
    """The value ``body`` (from :func:`_value_plan`) computes in ``frame``: loads of
    variables and constants, slices, tuples, subscripts of tracers, arrays, lists and
    tuples, arithmetic on tracers, arrays and numbers, negation, one list display."""
    names, stack = frame.f_locals, []
    for i in body:
        op = i.opname
        if op == "LOAD_CONST":
            stack.append(i.argval)
        elif op.startswith("LOAD"):
            scope = frame.f_globals if op == "LOAD_GLOBAL" else names
            if i.argval not in scope:
                raise _Unknown
            stack.append(scope[i.argval])
        elif op in ("BUILD_SLICE", "BUILD_TUPLE", "BUILD_LIST"):
            parts = stack[len(stack) - i.arg :]
            del stack[len(stack) - i.arg :]
            kind = {"BUILD_SLICE": lambda p: slice(*p), "BUILD_TUPLE": tuple}.get(op, list)
            stack.append(kind(parts))
        elif op == "BINARY_SUBSCR":
            b, a = stack.pop(), stack.pop()
            if not isinstance(a, (Tracer, numpy.ndarray, list, tuple)) or isinstance(b, dict):
                raise _Unknown
            stack.append(a[b])
        elif op == "BINARY_OP":
            b, a = stack.pop(), stack.pop()
            fn = _OPERATORS.get(i.argrepr)
            if fn is None or not (isinstance(a, _OPERANDS) and isinstance(b, _OPERANDS)):
                raise _Unknown
            stack.append(fn(a, b))
        else:  # UNARY_NEGATIVE
            if not isinstance(stack[-1], _OPERANDS):
                raise _Unknown
            stack.append(-stack.pop())
    if len(stack) != 1:
        raise _Unknown
    return stack[0]


def _value_plan(code: Any, lasti: int, lists: bool = False) -> tuple | None:
    """The instructions computing the value of the plain store ``buf[index] = value`` at
    ``lasti`` (those before ``buf``'s load whose stack effect is that one value), or None
    where the value uses anything else (a call, an attribute, a list display)."""
    key = (code, lasti, "value", lists)
    if key not in _PLANS:
        ins = list(dis.get_instructions(code))
        plan = _find_plan(ins, lasti)
        k = next((n for n, i in enumerate(ins) if i.offset == lasti), None)
        found = None
        if plan is not None and k is not None:
            j = k - 1 - len(plan[1])  # buf's LOAD_FAST (the plain form: index, then store)
            if ins[j].opname == "LOAD_FAST" and ins[j].argval == plan[0]:
                need, m = 1, j - 1
                while (
                    m >= 0
                    and need > 0
                    and (
                        ins[m].opname in _VALUE_OPS
                        or (lists and ins[m].opname == "BUILD_LIST" and m == j - 1)
                    )
                    and not (ins[m].opname == "LOAD_GLOBAL" and (ins[m].arg or 0) & 1)
                ):  # (a LOAD_GLOBAL that also pushes NULL is a call's)
                    need += _consumed(ins[m]) - 1
                    m -= 1
                if need == 0:
                    found = tuple(ins[m + 1 : j])
        _PLANS[key] = found
    return _PLANS[key]


def _consumed(i: Any) -> int:
    if i.opname in ("BUILD_SLICE", "BUILD_TUPLE", "BUILD_LIST"):
        return i.arg
    if i.opname in ("BINARY_OP", "BINARY_SUBSCR"):
        return 2
    return 1 if i.opname == "UNARY_NEGATIVE" else 0


def _value_is_a_tracer(frame: Any) -> bool:
    """Whether the value ``frame``'s store ``buf[index] = value`` writes is a tracer: its
    expression reads variables and constants only, with subscripts, arithmetic and
    negation, and each operation has a tracer operand and otherwise tracers, NumPy arrays,
    numbers or indices (``x[:3]``, ``-x[1:] * 2.0``, ``row``), so it gives a tracer, which
    NumPy converts whole (no list or object array holding it)."""
    body = _value_plan(frame.f_code, frame.f_lasti)
    if body is None:
        return False
    names = frame.f_locals
    stack: list = []  # "t": a tracer, "a": an array or number, "i": an index
    for i in body:
        op = i.opname
        if op.startswith("LOAD") and op != "LOAD_CONST":
            scope = frame.f_globals if op == "LOAD_GLOBAL" else names
            value = scope.get(i.argval, _VALUE_OPS)  # (absent: refused below)
            if isinstance(value, Tracer):
                stack.append("t")
            elif isinstance(value, (numpy.ndarray, numpy.generic, int, float, complex)):
                stack.append("a")
            elif value is None or type(value) in (slice, tuple):
                stack.append("i")
            else:
                return False
        elif op == "LOAD_CONST":
            stack.append("a" if isinstance(i.argval, (int, float, complex)) else "i")
        elif op in ("BUILD_SLICE", "BUILD_TUPLE"):
            del stack[len(stack) - i.arg :]
            stack.append("i")
        elif op == "BINARY_SUBSCR":
            b, a = stack.pop(), stack.pop()
            stack.append("t" if a == "t" else "?")
        elif op == "BINARY_OP":
            b, a = stack.pop(), stack.pop()
            stack.append("t" if "t" in (a, b) and "i" not in (a, b) and "?" not in (a, b) else "?")
        elif stack[-1] != "t":  # UNARY_NEGATIVE
            return False
    return stack == ["t"]


def _without_leading_ones(shape: tuple) -> tuple:
    k = 0
    while k < len(shape) and shape[k] == 1:
        k += 1
    return shape[k:]


def _caller_bindings(frame: Any, value: Any) -> tuple[list, int]:
    """The user's functions that called ``frame``'s (directly, frame by frame, up to the
    first frame of a library such as the transform's own) and hold ``value`` in local
    variables (``fill(buf, t)`` called with the caller's ``buf``): ``[(frame, names)]``,
    and the references those variables make (each one, and its entry in the frame's
    ``f_locals`` snapshot where that is a dict, Python < 3.13).  A cell variable (one a
    nested function shares) ends the walk: it outlives the call."""
    found, refs = [], 0
    f = frame.f_back
    while f is not None and frame_is_user_code(f) and not f.f_code.co_flags & 0x2A0:
        code = f.f_code
        snapshot = f.f_locals
        held = [n for n, v in snapshot.items() if v is value]
        if any(n not in code.co_varnames or n in code.co_cellvars for n in held):
            return [], -1  # (never matches a count)
        if held:
            found.append((f, held))
            refs += len(held) * (2 if type(snapshot) is dict else 1)
        f = f.f_back
    return found, refs


# -- x0 op= t: the operator's out= ---------------------------------------------------------


class _Calibrating(threading.local):
    def __init__(self) -> None:
        self.on = False
        self.seen: tuple | None = None


_CALIBRATING = _Calibrating()


def private_out(
    array: numpy.ndarray, inputs: tuple, kwargs: dict, ufunc: Any = None, method: str = ""
) -> tuple | None:
    """NOTE [traced writes into private NumPy arrays], for ``x0 op= t``: NumPy calls the
    tracer's ``__array_ufunc__`` with ``out=(x0,)``; where the user's frame runs that
    operator and stores its result back into the variable ``x0`` (``BINARY_OP`` ``+=``,
    then ``STORE_FAST x0``) and ``x0`` is private to it, ``(inputs, kwargs)`` with the array
    replaced by a buffer holding a copy of it (the ufunc writes into the buffer and
    returns it, and Python binds it to ``x0``); else None.  Called by ``__array_ufunc__``
    itself (the reference count is compared with :func:`_out_baseline`'s, measured at
    this same point)."""
    frame = sys._getframe(2)
    if frame.f_code.co_code[frame.f_lasti] == _CALL:  # np.add(x0, t, out=x0)
        return _called_with_out(frame, array, inputs, kwargs, ufunc, method)
    if _CALIBRATING.on:
        _CALIBRATING.seen = _out_counts(frame, array)
        return None
    scope = live_buffer_scope()
    if scope is None or not _private_candidate(array):
        return None
    name = _inplace_target(frame)
    if name is _ITEM:  # buf[index] op= t, buf a plain array: NumPy's temporary view of it
        # takes the result and the store writes it back; here a buffer copy takes it, and
        # the store (a traced value now) goes where a[i] = t goes
        buf = new_buffer(scope, array.copy(order="K"))
        inputs = tuple(buf if a is array else a for a in inputs)
        return inputs, {**kwargs, "out": (buf,)}
    if name is None or frame.f_locals.get(name) is not array:
        return None
    callers, extra = _caller_bindings(frame, array)
    counts = _out_counts(frame, array)
    expected = _out_baseline(array)
    if counts != (expected[0] + extra, expected[1]):
        return None
    buf = new_buffer(scope, array.copy(order="K"))
    for caller, held in callers:
        write_locals(caller, dict.fromkeys(held, buf))
    inputs = tuple(buf if a is array else a for a in inputs)
    return inputs, {**kwargs, "out": (buf,)}


_CALL = dis.opmap["CALL"] if "CALL" in dis.opmap else -1


def _called_with_out(
    frame: Any,
    array: numpy.ndarray,
    inputs: tuple,
    kwargs: dict,
    ufunc: Any,
    method: str,
) -> tuple | None:
    """``np.add(x0, t, out=x0)``, ``np.exp(t, out=buf)`` (the ufunc called by the user's
    frame, out= a private plain array held by local variables of it and of its callers):
    as :func:`private_out`, those variables rebound to the buffer that takes the result.
    The count is compared with the same ufunc called the same way on a fresh array
    (:func:`_call_baseline`), the array given as ``out=x0`` or in a tuple display
    ``out=(x0,)``; a tuple a variable holds (``outs = (x0,)``; ``out=outs``) counts more
    and refuses: it would keep the old array."""
    if _CALIBRATING.on:
        _CALIBRATING.seen = (*_out_counts(frame, array), sys.getrefcount(kwargs["out"]))
        return None
    scope = live_buffer_scope()
    code = frame.f_code
    if (
        scope is None
        or not _private_candidate(array)
        or method != "__call__"
        or type(ufunc) is not numpy.ufunc
        or ufunc.nout != 1
        or ufunc.nin > 2
        or len(inputs) != ufunc.nin
        or code.co_flags & (0x20 | 0x80 | 0x200)
        or not frame_is_user_code(frame)
    ):
        return None
    snapshot = frame.f_locals
    held = [n for n, v in snapshot.items() if v is array]
    if not held or any(n not in code.co_varnames or n in code.co_cellvars for n in held):
        return None
    per_name = 2 if type(snapshot) is dict else 1  # the variable and its snapshot entry
    del snapshot
    callers, extra = _caller_bindings(frame, array)
    forms = _call_baseline(array, ufunc, tuple(a is array for a in inputs))
    counts = (*_out_counts(frame, array), sys.getrefcount(kwargs["out"]))
    more = extra + per_name * (len(held) - 1)  # the other variables holding it
    if not any(counts == (e[0] + more, *e[1:]) for e in forms if e[0] >= 0):
        return None
    buf = new_buffer(scope, array.copy(order="K"))
    write_locals(frame, dict.fromkeys(held, buf))
    for caller, names in callers:
        write_locals(caller, dict.fromkeys(names, buf))
    inputs = tuple(buf if a is array else a for a in inputs)
    return inputs, {**kwargs, "out": (buf,)}


def _call_baseline(array: numpy.ndarray, ufunc: Any, where: tuple) -> tuple:
    """The counts :func:`_called_with_out` sees for a fresh array like ``array`` in
    ``ufunc(..., out=probe_target)`` with ``probe_target`` the inputs ``where`` marks
    (the others a stand-in for the tracer), called with ``out=`` an array by keyword and
    by position (NumPy makes the tuple: (-1, -1, -1) where the two disagree, then nothing
    matches), then with ``out=(probe_target,)``, a tuple display of the user's: ``(array
    counts, tuple counts)``.  The display's tuple is counted from what holds it in the
    call (the tuple NumPy makes has no other holder): where it counts no more than
    NumPy's, the tuple form is (-1, -1, -1) (then ``out=(x0,)`` refuses)."""
    probe_target = numpy.zeros(array.shape, dtype=array.dtype)
    if array.base is not None:
        probe_target = probe_target.view()
    probe = _OutProbe()
    seen = []
    _CALIBRATING.on = True
    try:
        for form in ("keyword", "position", "tuple"):
            _CALIBRATING.seen = None
            if where == (False,):
                if form == "keyword":
                    ufunc(probe, out=probe_target)
                elif form == "position":
                    ufunc(probe, probe_target)
                else:
                    ufunc(probe, out=(probe_target,))
            elif where == (True, False):
                if form == "keyword":
                    ufunc(probe_target, probe, out=probe_target)
                elif form == "position":
                    ufunc(probe_target, probe, probe_target)
                else:
                    ufunc(probe_target, probe, out=(probe_target,))
            elif where == (False, True):
                if form == "keyword":
                    ufunc(probe, probe_target, out=probe_target)
                elif form == "position":
                    ufunc(probe, probe_target, probe_target)
                else:
                    ufunc(probe, probe_target, out=(probe_target,))
            elif where == (False, False):
                if form == "keyword":
                    ufunc(probe, probe, out=probe_target)
                elif form == "position":
                    ufunc(probe, probe, probe_target)
                else:
                    ufunc(probe, probe, out=(probe_target,))
            seen.append(_CALIBRATING.seen)
    except Exception:  # noqa: BLE001 - the ufunc refuses these inputs: nothing matches
        return (-1, -1, -1), (-1, -1, -1)
    finally:
        _CALIBRATING.on = False
    unknown = (-1, -1, -1)
    array_form = seen[0] if seen[0] is not None and seen[0] == seen[1] else unknown
    tuple_form = seen[2] if seen[2] is not None else unknown
    if array_form == unknown or tuple_form[2] <= array_form[2]:
        tuple_form = unknown  # (the two forms could not be told apart)
    return array_form, tuple_form


def _private_candidate(array: numpy.ndarray) -> bool:
    """Whether ``array`` is a writeable numeric array whose memory is its own or its
    base's (an ndarray)."""
    base = array.base
    return (
        array.dtype.kind in "biufc"
        and bool(array.flags.writeable)
        and (base is None or (type(base) is numpy.ndarray and bool(base.flags.owndata)))
        and (base is not None or bool(array.flags.owndata))
    )


#: :func:`_inplace_target`'s answer for ``buf[index] op= t``.
_ITEM = "<item>"


def _inplace_target(frame: Any) -> str | None:
    """The local variable that the in-place operator ``frame`` runs stores back into
    (``x0 += t``: ``BINARY_OP +=``, ``STORE_FAST x0``), :data:`_ITEM` where it stores into
    an item (``buf[i] += t``: ``BINARY_OP +=``, ``SWAP 3``, ``SWAP 2``, ``STORE_SUBSCR``),
    or None."""
    code = frame.f_code
    if code.co_flags & (0x20 | 0x80 | 0x200) or not frame_is_user_code(frame):
        return None
    key = (code, frame.f_lasti, "inplace")
    if key not in _PLANS:
        ins = list(dis.get_instructions(code))
        k = next((n for n, i in enumerate(ins) if i.offset == frame.f_lasti), None)
        found = None
        if (
            k is not None
            and k + 1 < len(ins)
            and ins[k].opname == "BINARY_OP"
            and ins[k].argrepr.endswith("=")
            and ins[k + 1].opname == "STORE_FAST"
        ):  # (only ``name op= v`` compiles to that pair: its left operand is ``name``)
            found = ins[k + 1].argval
        elif (
            k is not None
            and k + 3 < len(ins)
            and ins[k].opname == "BINARY_OP"
            and ins[k].argrepr.endswith("=")
            and [(i.opname, i.arg) for i in ins[k + 1 : k + 4]]
            == [("SWAP", 3), ("SWAP", 2), ("STORE_SUBSCR", None)]
        ):
            found = _ITEM
        _PLANS[key] = found
    return _PLANS[key]


def _out_counts(frame: Any, array: numpy.ndarray) -> tuple[int, int]:
    names = frame.f_locals  # (the same snapshot of the frame's variables in both counts)
    del names
    base = array.base
    return sys.getrefcount(array), (0 if base is None else sys.getrefcount(base))


class _OutProbe:
    """A stand-in for a tracer in ``probe_target += _OutProbe()`` (:func:`_out_baseline`):
    its ``__array_ufunc__`` is the tracer's, line for line, so the counts agree."""

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        out = kwargs.get("out")
        if out is not None and type(out) is tuple and len(out) == 1 and type(out[0]) is _ND:
            swapped = private_out(out[0], inputs, kwargs, ufunc, method)
            if swapped is not None:  # pragma: no cover  (never while calibrating)
                inputs, kwargs = swapped
        return out[0]


_ND = numpy.ndarray


def _out_baseline(array: numpy.ndarray) -> tuple[int, int]:
    """The counts :func:`private_out` sees for a fresh array like ``array`` (with a base
    that nothing else holds where ``array`` has one) in ``probe_target += probe``."""
    probe_target = numpy.zeros(array.shape, dtype=array.dtype)
    if array.base is not None:
        probe_target = probe_target.view()
    probe = _OutProbe()
    _CALIBRATING.on, _CALIBRATING.seen = True, None
    try:
        probe_target += probe
    finally:
        _CALIBRATING.on = False
    return _CALIBRATING.seen or (-1, -1)


def write_locals(frame: Any, values: dict) -> None:
    """Rebind local variables of a running frame (as a debugger does)."""
    if sys.version_info >= (3, 13):  # f_locals is a write-through proxy
        for name, value in values.items():
            frame.f_locals[name] = value
        return
    frame.f_locals.update(values)
    ctypes.pythonapi.PyFrame_LocalsToFast(ctypes.py_object(frame), ctypes.c_int(0))


PRIVATE_STORE.append(store_into_private_array)
STORE_INDEX.append(index_of_store)
