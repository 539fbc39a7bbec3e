"""``R[i]`` of a closed-over NumPy array ``R`` and a recorded index, as a recorded gather.

NOTE [constant subscripts in a capture]: NumPy's ``ndarray.__getitem__`` has no protocol
for a foreign index: it asks the index for ``__index__`` (or ``__array__``), so ``R[i]``
with ``R`` a plain array and ``i`` a loop's recorded step index reads ``i``'s value, which
a loop body recorded once cannot do (NOTE [value reads during a capture]).  Indexing a
table of constants by the step is common (``h + R[i]``, ``c * w[t]``), so instead of
dropping the capture the recorder finds the array: the Python frame that made the read is
executing the subscript (``BINARY_SUBSCR``), and its bytecode says which instruction
loaded the container.  When that is a closure variable (``LOAD_DEREF``) or a global
(``LOAD_GLOBAL``) holding a NumPy/CuPy array of numbers, and the function executing the
subscript is reachable from the capture's callable through closure cells (the user's
body, or a helper it closes over), the capture is run again with that name bound to a
:class:`ConstantTracer` of the same array: then ``R[i]`` is a tracer operation, recorded
as a gather of the constant by the traced index, and every other use of ``R`` computes
the same numbers (operations on constants alone are not recorded; ``numpy.asarray(R)``
is ``R``).  The binding is made without touching the user's objects where possible: a
global is rebound in a copy of the function (its globals copied, the copy put in the
closure cell of the library's wrapper that calls it); a closure variable is rebound by
setting its cell for the duration of the capture.  Everything is put back when the
capture ends.  What is not handled this way (the container is an attribute, a local, a
list; the function is a bound method or not reachable) reads the index as before: the
capture is dropped and the loop runs eagerly, where the index is a Python ``int``.  (A
table the body makes with NumPy's creation functions needs none of this: it is a Buffer,
NOTE [mutation semantics], a tracer, so its subscript is a recorded gather already.)  The
one difference a program can see while a body is captured is ``isinstance(R,
numpy.ndarray)``, false for the tracer.
"""

from __future__ import annotations

import dis
import sys
import types
from typing import Any

import numpy

from ftransforms.backend import is_array
from ftransforms.core.tracer import ValTracer


def _opcodes(*names: str) -> set[int]:
    """The opcodes of ``names`` this Python has (the bytecode changes between versions)."""
    return {dis.opmap[n] for n in names if n in dis.opmap}


_SUBSCR = dis.opmap.get("BINARY_SUBSCR", -1)  # Python 3.14 has none: nothing is rebound
_LOADS = _opcodes("LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_CONST", "LOAD_DEREF", "LOAD_GLOBAL")
_ONE_OPERAND = _opcodes("LOAD_ATTR", "UNARY_NEGATIVE", "UNARY_INVERT")
_TWO_OPERANDS = _opcodes("BINARY_OP", "BINARY_SUBSCR", "COMPARE_OP")
_TWO_OPERANDS |= _opcodes(  # Python 3.10's binary operators
    "BINARY_ADD",
    "BINARY_SUBTRACT",
    "BINARY_MULTIPLY",
    "BINARY_MODULO",
    "BINARY_FLOOR_DIVIDE",
    "BINARY_TRUE_DIVIDE",
)
_N_OPERANDS = _opcodes("BUILD_TUPLE", "BUILD_SLICE")
_SKIPPED = _opcodes("CACHE", "NOP", "EXTENDED_ARG")
_REBINDABLE = {"LOAD_DEREF": "closure", "LOAD_GLOBAL": "global"}

#: (code, offset of the subscript) -> (kind, name) of the container, or None.
_CONTAINERS: dict[tuple, tuple | None] = {}


class ConstantTracer(ValTracer):
    """A closed-over constant array seen as a tracer of the recorder while a body is
    captured, so that indexing it by a recorded value is recorded (see the NOTE); reading
    its value reads no data."""

    __slots__ = ()

    def __init__(self, interp: Any, val: Any) -> None:
        self._interp = interp
        self.val = val

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        return numpy.asarray(self.val, dtype=dtype)

    def __repr__(self) -> str:
        return f"ConstantTracer(shape={self.val.shape}, dtype={self.val.dtype})"


class ConstantSubscript(Exception):  # noqa: N818 - an internal signal, never shown to users
    """``R[t]`` read ``t`` while a body was captured, with ``R`` the array held by the
    closure variable or global ``name`` of the function running ``code``."""

    def __init__(self, code: Any, kind: str, name: str, value: Any) -> None:
        super().__init__(name)
        self.code, self.kind, self.name, self.value = code, kind, name, value


def subscript_being_read() -> ConstantSubscript | None:
    """The constant subscript the first frame outside ftransforms is executing, if the
    read under way is its index and its container is a rebindable array (see the NOTE)."""
    frame: Any = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__", "").startswith("ftransforms."):
        frame = frame.f_back
    if frame is None or frame.f_code.co_code[frame.f_lasti] != _SUBSCR:
        return None
    key = (frame.f_code, frame.f_lasti)
    if key not in _CONTAINERS:
        if len(_CONTAINERS) > 4096:  # code objects of many cells or exec'd programs
            _CONTAINERS.clear()
        _CONTAINERS[key] = _container(frame.f_code, frame.f_lasti)
    found = _CONTAINERS[key]
    if found is None:
        return None
    kind, name = found
    if kind == "closure":
        value = frame.f_locals.get(name)
    else:
        value = frame.f_globals.get(name)
    if not is_array(value) or numpy.dtype(value.dtype).kind not in "biufc":
        return None
    return ConstantSubscript(frame.f_code, kind, name, value)


def _container(code: Any, offset: int) -> tuple | None:
    """``(kind, name)`` of the instruction that loaded the container of the subscript at
    ``offset``: walk back over the index expression, counting stack slots."""
    instructions = [i for i in dis.get_instructions(code) if i.offset <= offset]
    if instructions.pop().is_jump_target:
        return None  # the index is a conditional expression: two ways to the stack
    depth = 1  # the container is one below the index on the stack
    for ins in reversed(instructions):
        op = ins.opcode
        if op in _SKIPPED:
            continue
        if ins.is_jump_target:
            return None
        if op in _LOADS:
            pops = 0
        elif op in _ONE_OPERAND:
            pops = 1
        elif op in _TWO_OPERANDS:
            pops = 2
        elif op in _N_OPERANDS:
            pops = ins.arg
        else:
            return None
        pushes = pops + dis.stack_effect(op, ins.arg)
        if depth < pushes:
            kind = _REBINDABLE.get(ins.opname)
            if kind is None or depth != 0:
                return None  # a NULL pushed with a global, or not a named container
            return kind, ins.argval
        depth += pops - pushes
    return None


def rebind(root: Any, sub: ConstantSubscript, tracer: ConstantTracer, undo: list) -> bool:
    """Bind ``sub.name`` to ``tracer`` in the function running ``sub.code``, found through
    the closure cells reachable from ``root``; ``undo`` collects ``(cell, old, new)``."""
    found = _find(root, sub.code, set(), 6)
    if found is None:
        return False
    fn, holder = found
    if sub.kind == "closure":
        if sub.name not in fn.__code__.co_freevars or fn.__closure__ is None:
            return False  # a variable of the function's own frame: not reachable
        cell = fn.__closure__[fn.__code__.co_freevars.index(sub.name)]
        if cell.cell_contents is not sub.value:
            return False  # another closure of the same code: not the one that ran
        undo.append((cell, cell.cell_contents, tracer))
        cell.cell_contents = tracer
        return True
    if holder is None or fn.__globals__.get(sub.name) is not sub.value:
        return False
    if _stores_globals(fn.__code__):
        return False
    copy = types.FunctionType(
        fn.__code__,
        {**fn.__globals__, sub.name: tracer},
        fn.__name__,
        fn.__defaults__,
        fn.__closure__,
    )
    copy.__kwdefaults__ = fn.__kwdefaults__
    undo.append((holder, holder.cell_contents, copy))
    holder.cell_contents = copy
    return True


def _stores_globals(code: Any) -> bool:
    """Whether ``code`` assigns a global (which a copy of its globals would not keep)."""
    return any(i.opname in ("STORE_GLOBAL", "DELETE_GLOBAL") for i in dis.get_instructions(code))


def undo_all(undo: list) -> None:
    """Put back what :func:`rebind` changed (a cell the program assigned since is left)."""
    for cell, contents, ours in reversed(undo):
        if cell.cell_contents is ours:
            cell.cell_contents = contents
    undo.clear()


def _find(obj: Any, code: Any, visited: set, depth: int, holder: Any = None) -> tuple | None:
    """``(function running code, the cell holding it or None)`` reachable from ``obj``."""
    if type(obj) is not types.FunctionType or id(obj) in visited or depth == 0:
        return None
    visited.add(id(obj))
    if obj.__code__ is code:
        return obj, holder
    for cell in obj.__closure__ or ():
        try:
            inner = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        found = _find(inner, code, visited, depth - 1, cell)
        if found is not None:
            return found
    for inner in obj.__defaults__ or ():  # ``def call(ins, fun=fun)``: not swappable
        found = _find(inner, code, visited, depth - 1)
        if found is not None:
            return found
    return None
