"""The thread-local interpreter stack.

Every transform call pushes an :class:`Interpreter` with a fresh level (its depth in the
stack) and pops it in ``finally``, so the stack is clean after any exception.

NOTE [levels and dispatch]: ``Primitive.bind`` dispatches to the interpreter of the
highest level among its arguments' tracers, not to the top of the stack.  A level whose
tracers are absent sees the values as constants and does no work at all, and a transform
only ever receives its own tracers, which is what rules out perturbation confusion
(``grad`` of a function that closes over an outer ``grad``'s tracer).  Only interpreters
that are on the stack are ``active``; a tracer of a popped interpreter has escaped.
"""

from __future__ import annotations

import threading
from typing import Any

from ftransforms.core.errors import FTransformsError, InPlaceError


class Interpreter:
    """One transform's level: subclasses implement :meth:`process`."""

    __slots__ = ("level", "active", "name", "__weakref__")

    def __init__(self, name: str) -> None:
        self.name = name  # the call form used in error messages, e.g. "vmap(f)"
        self.level = 0
        self.active = False

    def process(self, prim: Any, args: tuple, params: dict) -> Any:  # pragma: no cover
        raise NotImplementedError

    def before_write(self, target: Any) -> None:
        """Called before a write into ``target`` (NOTE [mutation semantics] in
        core/mutation.py): raise if this level may hold it or cannot record the write."""

    def before_value(self, target: Any, new: Any) -> None:
        """Called before ``new`` is written into ``target`` (``assign``): raise if this
        level cannot give that write its meaning (NOTE [batched writes into captured
        arrays] in interpreters/batching.py)."""

    def __repr__(self) -> str:
        state = "active" if self.active else "finished"
        return f"<{type(self).__name__} level={self.level} {state} {self.name}>"


class _Stack(threading.local):
    def __init__(self) -> None:
        self.interpreters: list[Interpreter] = []
        # SciPy functions that computed on object arrays of tracers in the current
        # outermost transform (NOTE [SciPy's Python functions on tracers]).
        self.object_paths: list[str] = []


_STACK = _Stack()

#: ``(entered(interp), exited())`` pairs called when this thread's stack becomes non-empty
#: and empty again (core/mutation.py: buffers made inside transforms).
OUTERMOST_HOOKS: list[tuple[Any, Any]] = []
#: Why a "read-only" ValueError ended the outermost call (core/mutation.py sets it).
READ_ONLY_NOTE: list[Any] = [None]


class pushed:  # noqa: N801 - used as ``with pushed(interp) as interp:``, like a function
    """Push ``interp`` for the duration of the block; pop it (and deactivate) on exit.

    A class rather than a ``@contextmanager`` generator: it runs on every transform call,
    and this costs a fraction as much.
    """

    __slots__ = ("interp",)

    def __init__(self, interp: Interpreter) -> None:
        self.interp = interp

    def __enter__(self) -> Interpreter:
        interp = self.interp
        stack = _STACK.interpreters
        if not stack:
            for entered, _ in OUTERMOST_HOOKS:
                entered(interp)
        interp.level = len(stack) + 1
        interp.active = True
        stack.append(interp)
        return interp

    def __exit__(self, *exc: Any) -> None:
        interp = self.interp
        stack = _STACK.interpreters
        interp.active = False
        # Pop back to below this interpreter, even if an inner transform misbehaved.
        while stack and stack[-1] is not interp:
            stack.pop().active = False
        if stack:
            stack.pop()
        if not stack:
            for _, exited in OUTERMOST_HOOKS:
                exited()
        if _STACK.object_paths:
            if exc[1] is not None and not isinstance(exc[1], FTransformsError):
                _note_object_paths(exc[1])
            if not stack:
                _STACK.object_paths.clear()
        if type(exc[1]) is TypeError and not stack and "which has no callable" in str(exc[1]):
            _note_object_ufunc(exc[1])
        if (
            type(exc[1]) is ValueError
            and not stack
            and "read-only" in str(exc[1])
            and READ_ONLY_NOTE[0] is not None
        ):
            note = READ_ONLY_NOTE[0]()  # NOTE [constants the tape keeps]
            if note is not None:
                raise InPlaceError(f"{exc[1]}: {note}").with_traceback(exc[2]) from exc[1]
        if type(exc[1]) is ValueError and isinstance(exc[1].__cause__, FTransformsError):
            # NumPy's ``a[i] = t`` wraps the error of ``float(t)`` (a traced value written
            # into a plain array) in "setting an array element with a sequence"
            raise exc[1].__cause__.with_traceback(exc[2]) from None


def note_object_path(name: str) -> None:
    """Record that the SciPy function ``name`` computes on an object array of tracers: an
    error leaving the transform then says so (NOTE [SciPy's Python functions on
    tracers])."""
    if _STACK.interpreters and name not in _STACK.object_paths:
        _STACK.object_paths.append(name)


def _note_object_paths(err: BaseException) -> None:
    names = ", ".join(_STACK.object_paths)
    note = (
        f"ftransforms: {names} computed on a NumPy object array of tracers (its input went "
        f"through numpy.asarray); the error above may come from code in it that takes no "
        f"object arrays (a SciPy ufunc, a compiled routine, a dtype check).  Write it with "
        f"ftransforms.numpy, or give it rules with ftransforms.custom_vjp / custom_jvp."
    )
    if note not in getattr(err, "__notes__", ()):
        err.add_note(note)


def _note_object_ufunc(err: BaseException) -> None:
    """NumPy's "loop of ufunc does not support argument 0 of type float which has no
    callable sin method": a NumPy ufunc given an object array that holds tracers and plain
    numbers calls ``.sin()`` on each element (NOTE [lists holding tracers into
    numpy.array] in core/mutation.py says which lists stay object arrays)."""
    note = (
        "ftransforms: a NumPy ufunc got a NumPy object array holding tracers and plain "
        "numbers (a list straight into the ufunc, np.sin([t, 1.0]), or an array made with "
        "dtype=object or by library code), and calls a method of that name on each "
        "element, which a Python number lacks.  Make the list one array first: "
        "np.array([...]) in your code, or fnp.asarray([...])."
    )
    if note not in getattr(err, "__notes__", ()):
        err.add_note(note)


def current_stack() -> tuple[Interpreter, ...]:
    """The interpreters active on this thread, outermost first (for debugging/tests)."""
    return tuple(_STACK.interpreters)
