"""The reverse-mode interpreter behind ``vjp``/``grad`` (and ``linearize``): a tape.

Each differentiable primitive applied to this level's tracers appends a :class:`Node`
(primitive, settings, unwrapped inputs, output) to the interpreter's tape.  The backward
walk (:meth:`ReverseInterpreter.backward`) goes over the tape in reverse, iteratively (no
recursion limit), applying VJP rules that bind primitives on the unwrapped values, so
outer transforms see and transform the backward pass.  Cotangents are accumulated in tape
order, which makes results bitwise reproducible.  The tape lives as long as the ``vjp_fn``
(or ``linearize``'s ``jvp_fn``) that owns it; ``grad`` drops it as soon as it is done.
"""

from __future__ import annotations

from typing import Any

import numpy

from ftransforms.core.mutation import COPY_BYTES, clone, keep_unwritten
from ftransforms.core.outside_operands import read_by_reference
from ftransforms.core.primitive import _add, end_quiet_derivatives, quiet_derivatives
from ftransforms.core.stack import Interpreter
from ftransforms.core.tracer import TRACER_TYPES, Tracer


class ReverseTracer(Tracer):
    """A value recorded on a tape, known there by ``id``."""

    __slots__ = ()  # the layout is Tracer's (NOTE [mutation semantics])
    _payload = ("_interp", "value", "id")

    def __init__(self, interp: ReverseInterpreter, value: Any, id: int) -> None:  # noqa: A002
        self._interp = interp
        self.value = value
        self.id = id

    @property
    def shape(self) -> tuple[int, ...]:
        return self.value.shape

    @property
    def ndim(self) -> int:
        return self.value.ndim

    @property
    def dtype(self) -> Any:
        return self.value.dtype

    def _concrete(self) -> Any:
        v = self.value
        return v._concrete() if isinstance(v, Tracer) else v

    def _physical(self) -> Any:
        v = self.value
        return v._physical() if isinstance(v, Tracer) else v

    def __repr__(self) -> str:
        return f"ReverseTracer(level={self._interp.level}, id={self.id}, value={self.value!r})"


class Node:
    """One recorded primitive application."""

    __slots__ = ("prim", "params", "args", "parents", "y", "out_id")

    def __init__(self, prim, params, args, parents, y, out_id) -> None:
        self.prim = prim
        self.params = params
        self.args = args
        self.parents = parents  # per input: the id it came from, or None (a constant)
        self.y = y
        self.out_id = out_id  # an int, or a tuple of ints for multiple results


#: Primitives whose derivatives never read a constant operand's values.
_SHAPE_ONLY = frozenset({"add", "subtract"})


def kept(v: Any, prim_name: str = "") -> Any:
    """NOTE [constants the tape keeps]: the value the tape keeps of a constant operand
    ``v`` (an input no tracer of this level is): a tracer as a new object (its writes
    make the old object another value, :func:`~ftransforms.core.mutation.become`), and
    a writeable plain NumPy array as a copy: the user's code may write into it in place
    later in the function (``b = init.copy(); y = b * x; b[:] = 0``, ``self.w *= 0.5``,
    ``W[0] += 1``), NumPy's own write that no transform sees, and the backward pass
    must use the value the operation read, as NumPy's result did (torch raises for
    such a write; jax keeps its own copy).  A buffer's array is never written in place
    (NOTE [mutation semantics]), nor a read-only array; an array a ``jit`` recording
    reads by reference (NOTE [outside arrays in rules under jit]) stays so, to be read
    at every replay.  ``checkpoint``'s blocks keep their constants so too.  Costs a copy
    of each such operand an operation records up to 64 KiB (a few microseconds); a
    larger one is made read-only until the outermost transform returns instead
    (:func:`~ftransforms.core.mutation.keep_unwritten`: a copy would double a
    memory-bound ``grad`` of ``X @ w`` with a closed-over ``X``), so a write into it
    raises ``InPlaceError`` naming the fix, as torch raises.  ``add``/``subtract``,
    whose derivatives read only the traced operand, keep the array as it is."""
    if type(v) is numpy.ndarray:
        if v.flags.writeable and prim_name not in _SHAPE_ONLY and not read_by_reference(v):
            if v.nbytes > COPY_BYTES:
                return keep_unwritten(v)
            return v.copy(order="K")
        return v
    if type(v) in TRACER_TYPES:
        return clone(v)
    return v


class ReverseInterpreter(Interpreter):
    """One ``vjp``/``grad`` level: evaluates eagerly and records a tape."""

    __slots__ = ("tape", "next_id", "recorder", "adopt")

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.tape: list[Node] = []
        self.next_id = 0
        # set while a checkpointed function runs: see NOTE [checkpoint] in checkpoint.py
        self.recorder: Any = None
        # set with the recorder: told of a tracer written into (NOTE [mutation semantics])
        self.adopt: Any = None

    def new_input(self, value: Any) -> ReverseTracer:
        """Wrap an input of the differentiated function."""
        self.next_id += 1
        return ReverseTracer(self, value, self.next_id)

    def process(self, prim: Any, args: tuple, params: dict) -> Any:
        if self.recorder is not None:
            return self.recorder.process(self, prim, args, params)
        if prim.vjp_joint is not None:
            return self._process_joint(prim, args, params)
        # One and two arguments spelled out (nearly every call): tuples instead of lists,
        # and no star-unpacking into ``bind`` (see NOTE [bind fast paths]).
        n = len(args)
        if n == 1:
            a = args[0]
            if type(a) is not ReverseTracer or a._interp is not self:
                return prim.bind(a, **params)
            v = a.value
            out = prim.bind(v, **params) if params else prim.bind(v)
            vals = (v,)
            parents = (a.id,)
        elif n == 2:
            a, b = args
            if type(a) is ReverseTracer and a._interp is self:
                av = a.value
                pa = a.id
            else:
                av = a
                pa = None
            if type(b) is ReverseTracer and b._interp is self:
                bv = b.value
                pb = b.id
            else:
                bv = b
                pb = None
            out = prim.bind(av, bv, **params) if params else prim.bind(av, bv)
            if pa is None:
                if pb is None:
                    return out
                av = kept(av, prim.name)  # the tape keeps its value, whatever writes follow
            elif pb is None:
                bv = kept(bv, prim.name)
            vals = (av, bv)
            parents = (pa, pb)
        else:
            vals = []
            ps = []
            for a in args:
                if type(a) is ReverseTracer and a._interp is self:
                    vals.append(a.value)
                    ps.append(a.id)
                else:
                    vals.append(a)
                    ps.append(None)
            out = prim.bind(*vals, **params)
            if all(p is None for p in ps):
                return out
            vals = tuple(kept(v) if p is None else v for v, p in zip(vals, ps))
            parents = tuple(ps)
        if prim.nondiff or (prim.nondiff_when is not None and prim.nondiff_when(**params)):
            return out
        if prim.multiple_results:
            ids = tuple(range(self.next_id + 1, self.next_id + 1 + len(out)))
            self.next_id += len(out)
            self.tape.append(Node(prim, params, vals, parents, out, ids))
            return tuple(ReverseTracer(self, o, i) for o, i in zip(out, ids))
        i = self.next_id = self.next_id + 1
        self.tape.append(Node(prim, params, vals, parents, out, i))
        return ReverseTracer(self, out, i)

    def _process_joint(self, prim: Any, args: tuple, params: dict) -> Any:
        """A primitive with a ``vjp_joint`` rule (multiple results): its outputs and their
        pullback come from one call, which the tape keeps (``Primitive.vjp_joint``)."""
        vals = [a.value if type(a) is ReverseTracer and a._interp is self else a for a in args]
        ps = [a.id if type(a) is ReverseTracer and a._interp is self else None for a in args]
        if all(p is None for p in ps):
            return prim.bind(*vals, **params)
        out, pullback = prim.vjp_joint(vals, [p is not None for p in ps], **params)
        vals = tuple(kept(v) if p is None else v for v, p in zip(vals, ps))
        ids = tuple(range(self.next_id + 1, self.next_id + 1 + len(out)))
        self.next_id += len(out)
        self.tape.append(Node(prim, {**params, "pullback": pullback}, vals, tuple(ps), out, ids))
        return tuple(ReverseTracer(self, o, i) for o, i in zip(out, ids))

    def backward(self, seeds: dict[int, Any], wanted: list[int], consume: bool = False) -> list:
        """Cotangents of the ids in ``wanted`` given output cotangents ``seeds``.

        ``None`` in the result is a symbolic zero.  ``consume=True`` (``grad``: one
        backward pass) pops each node once it is done, so the forward values it holds
        are freed as the walk goes instead of all at the end.  Runs under NOTE
        [floating-point warnings of derivatives].
        """
        quiet = quiet_derivatives()
        try:
            return self._backward(seeds, wanted, consume)
        finally:
            end_quiet_derivatives(quiet)

    def _backward(self, seeds: dict[int, Any], wanted: list[int], consume: bool) -> list:
        cts: dict[int, Any] = {}
        for i, ct in seeds.items():
            cts[i] = ct if i not in cts else _add(cts[i], ct)
        tape = self.tape
        pop = cts.pop
        for k in range(len(tape) - 1, -1, -1):
            node = tape.pop() if consume else tape[k]
            out_id = node.out_id
            if type(out_id) is tuple:
                y_bar = tuple(pop(i, None) for i in out_id)
                if all(b is None for b in y_bar):
                    continue
            else:
                y_bar = pop(out_id, None)
                if y_bar is None:
                    continue
            parents = node.parents
            if len(parents) == 1 and parents[0] is not None:  # one input, recorded
                (x_bar,) = node.prim.apply_vjp(y_bar, node.y, node.args, _ONE, node.params)
                if x_bar is not None:
                    pid = parents[0]
                    prev = cts.get(pid)
                    cts[pid] = x_bar if prev is None else _add(prev, x_bar)
                continue
            if len(parents) == 2:
                wanted_here = (parents[0] is not None, parents[1] is not None)
            else:
                wanted_here = [p is not None for p in parents]
            x_bars = node.prim.apply_vjp(y_bar, node.y, node.args, wanted_here, node.params)
            for pid, x_bar in zip(parents, x_bars):
                if pid is None or x_bar is None:
                    continue
                prev = cts.get(pid)
                cts[pid] = x_bar if prev is None else _add(prev, x_bar)
        return [cts.get(i) for i in wanted]

    def forward(self, tangents: dict[int, Any], wanted: list[int]) -> list[Any]:
        """Push input tangents through the recorded tape (``linearize``), under NOTE
        [floating-point warnings of derivatives]."""
        quiet = quiet_derivatives()
        try:
            return self._forward(tangents, wanted)
        finally:
            end_quiet_derivatives(quiet)

    def _forward(self, tangents: dict[int, Any], wanted: list[int]) -> list[Any]:
        tans = dict(tangents)
        for node in self.tape:
            in_tans = [None if p is None else tans.get(p) for p in node.parents]
            if all(t is None for t in in_tans):
                continue
            out_dot = node.prim.apply_jvp(node.args, in_tans, node.y, node.params)
            if type(node.out_id) is tuple:
                for i, t in zip(node.out_id, out_dot):
                    if t is not None:
                        tans[i] = t
            elif out_dot is not None:
                tans[node.out_id] = out_dot
        return [tans.get(i) for i in wanted]


#: ``wanted`` for a one-input node: a node is recorded only when an input is.
_ONE = (True,)
