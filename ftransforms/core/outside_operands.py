"""Operations that a transform's rule applies to arrays from outside a ``jit`` recording.

NOTE [outside arrays in rules under jit]: ``jit`` replays an array the function reads
from outside its arguments (a global ``W``) as that array itself, so a change made in it
in place (``W[0] = 3``) shows (NOTE [values read from outside under jit] in
``ftransforms/jit_guards.py``).  But a transform's rule may combine it with one of its
own constants before any recorded value is involved: ``jacfwd``'s identity basis times
``W`` (the tangents of ``x * W``), ``jacrev``'s cotangent basis ``@ A``, a constant
tangent of ``jvp``.  Both are plain arrays, so ``bind`` computed the product eagerly and
the recording kept it as a constant: the old ``W`` at every replay.  So while a
recording that read outside arrays runs, :func:`routed_to` makes ``bind`` hand an
operation on plain operands, one of them such an array, to the recorder, which records
it like any other (its result is a recorded value, recomputed at every replay).  It is
switched on (``Primitive.bind`` swapped, process-wide, as long as one such recording runs
on some thread) only then, so no other call pays for it; a thread whose innermost
recording is not one of these takes the ordinary path.  A value the user's own NumPy
code computes from ``W`` (``W * 2`` with NumPy) never reaches ``bind`` and stays a
constant (NOTE [values derived from outside arrays under jit] in ``jit_guards.py``).
"""

from __future__ import annotations

import threading
from typing import Any

from ftransforms.core.primitive import Primitive
from ftransforms.core.tracer import Tracer

__all__ = ["note_host_read", "read_by_reference", "routed_to", "unrouted"]

_ORDINARY_BIND = Primitive.bind


class _Routes(threading.local):
    def __init__(self) -> None:
        # (array ids, recorder, the arrays among them read on the host), innermost last
        self.stack: list[tuple[frozenset, Any, list]] = []


_ROUTES = _Routes()
_LOCK = threading.Lock()
_RECORDINGS = [0]  # recordings on any thread that route their outside arrays


def read_by_reference(a: Any) -> bool:
    """Whether the innermost recording on this thread reads the plain array ``a`` from
    outside by reference at every replay (NOTE [outside arrays in rules under jit])."""
    stack = _ROUTES.stack
    if not stack:
        return False
    ids = stack[-1][0]
    while id(a) not in ids:
        a = getattr(a, "base", None)  # (a NumPy view of one: W[0], W.T)
        if a is None:
            return False
    return True


def _routing_bind(self: Primitive, *args: Any, **params: Any) -> Any:
    stack = _ROUTES.stack
    if stack:
        ids, recorder, _ = stack[-1]
        outside = False
        for a in args:
            if isinstance(a, Tracer):
                break  # a traced operand: the ordinary dispatch (the recorder sees it later)
            if id(a) in ids:
                outside = True
        else:
            if outside and recorder.active:
                return recorder.process(self, args, params)
    return _ORDINARY_BIND(self, *args, **params)


class routed_to:  # noqa: N801 - used as ``with routed_to(ids, recorder):``
    """While the block runs on this thread, an operation whose operands are plain and
    include an array of ``ids`` is processed by ``recorder`` (NOTE [outside arrays in
    rules under jit]); with no ``ids``, by no recorder (one recording inside another)."""

    __slots__ = ("entry", "read")

    def __init__(self, ids: frozenset, recorder: Any) -> None:
        self.read: list = []  # the arrays of ``ids`` whose values were read on the host
        self.entry = (ids, recorder, self.read)

    def __enter__(self) -> None:
        if self.entry[0]:
            with _LOCK:
                _RECORDINGS[0] += 1
                if _RECORDINGS[0] == 1:
                    Primitive.bind = Primitive.__call__ = _routing_bind
        _ROUTES.stack.append(self.entry)  # (one with no ids: a recording inside that routes none)

    def __exit__(self, *exc: Any) -> None:
        _ROUTES.stack.pop()
        if self.entry[0]:
            with _LOCK:
                _RECORDINGS[0] -= 1
                if not _RECORDINGS[0]:
                    Primitive.bind = Primitive.__call__ = _ORDINARY_BIND


_NO_ROUTE = (frozenset(), None, [])


def unrouted(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` with no routing on this thread: a primitive's implementation,
    run by the recorder on plain values (a host callback's own NumPy code among them),
    computes what it computes eagerly."""
    stack = _ROUTES.stack
    stack.append(_NO_ROUTE)
    try:
        return fn(*args, **kwargs)
    finally:
        stack.pop()


def note_host_read(value: Any) -> None:
    """Library code reads ``value``'s numbers on the host to decide the recording (a
    boolean mask's positions): if it is an array from outside the recording, ``jit``
    checks before each replay that it still holds them
    (NOTE [outside arrays in rules under jit])."""
    stack = _ROUTES.stack
    if stack and id(value) in stack[-1][0]:
        stack[-1][2].append(value)
