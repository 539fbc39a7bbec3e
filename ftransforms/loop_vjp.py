"""Reverse mode of ``scan``/``fori_loop`` inside ``jit`` as two recorded loops.

NOTE [loops under a reverse level in jit]: inside ``jit`` a ``scan`` (or a ``fori_loop``
with static bounds) whose innermost transform is ``grad``/``vjp`` (``jit(grad(f))``,
``jit(vmap(grad(f)))``: one reverse level on top, only ``vmap``/``jvp`` levels between it
and the recorder) is not run step by step through the tape.  Its body runs once, at the
reverse level, inside a capture of the recorder (``TraceInterpreter.record_loop``): the
carry and the reverse-level rows of ``xs`` enter as fresh tracers of that level, and the
tape nodes the step leaves (its *linearization*) are taken off the tape.  Values the body
closes over that the level tracks (a weight ``W`` of ``W @ h``) are found as the tape
nodes' inputs from before the step: closure conversion happens as the body runs, as for
``checkpoint`` (NOTE [checkpoint]).  The step's *residuals* are the values made inside it
that its nodes hold.  One tape node (:class:`LoopPrimitive`) stands for the whole loop;
its VJP is a second loop, over the steps in reverse, whose body walks the step's nodes
backward with the residuals of its step put in place of the captured ones: the carry's
cotangent is that loop's carry, the cotangents of the rows of ``xs`` are its stacked
outputs.  That backward step is captured right after the forward one, on stand-ins (the
captured values), so the forward loop stores only the residuals it reads: as the list of
the steps' arrays (a ``RowList``, no copy; the last loop to read it lets go of each row
as it goes) where only loops read them by rows, as stacked arrays where a contraction
after the loop or its parallel work (NOTE [parallel work out of recorded loops]) reads
them.  The backward loop recorded when the cotangents come is that capture when they fit
its types (widened to them where a value is not batched), else a new one; a residual it
needs that the recording lacks comes from the forward loop recorded again.  Both loops
are recorded once (JAX's scan transpose, with the residuals found by running the step
rather than by partial evaluation), so the recording holds the body twice whatever the
length, where the eager tape held every step.  The cotangent of a closed-over value that
a step uses in a contraction or an elementwise ``add``/``subtract``/``multiply`` is not
summed step by step: the backward loop stacks that node's output cotangent, and one
contraction over the steps follows it (NOTE [hoisted loop cotangents]); other uses add up
in the backward loop's carry.  The tape node's JVP (``linearize``) is a third loop pushing
tangents through the same nodes.  Everything a rule of the node reads that a step of an
enclosing loop could change is among its inputs, so loops nest (a loop inside a loop's
capture stores all its residuals, as stacked arrays).

What falls back to the eager tape (the loop runs as the Python loop, as before): a body
with effects, a value read or a random draw in it (NOTE [value reads during a capture]),
a write into an array from outside it, a carry whose structure or dtype changes, a tape
node other than a registered primitive's or a nested loop's (``checkpoint``,
``custom_vjp``, an eager inner loop's rewritten nodes: they keep values of their own that
a later step could not replace), another reverse level below the top one (``grad`` of
``grad``), a ``checkpoint`` recording at that level, ``STRUCTURED["enabled"] = False``.
If the backward (or tangent) loop cannot be recorded once (a rule reads a value), it runs
step by step: the same result, a flat recording.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms import lax
from ftransforms.core.mutation import Buffer
from ftransforms.core.primitive import REGISTRY, _add
from ftransforms.core.stack import current_stack
from ftransforms.core.tracer import Tracer
from ftransforms.interpreters.batching import BatchInterpreter, BatchTracer
from ftransforms.interpreters.forward import DualTracer, ForwardInterpreter
from ftransforms.interpreters.loop_capture import RowReaders
from ftransforms.interpreters.reverse import Node, ReverseInterpreter, ReverseTracer
from ftransforms.interpreters.tracing import NotStructurable, TraceInterpreter, TraceTracer
from ftransforms.loop_cotangents import _Deferring, _group_key, sum_over_steps
from ftransforms.pytree import tree_flatten, tree_unflatten

__all__ = ["STRUCTURED", "LoopPrimitive", "record", "reverse_level"]

#: ``enabled``: record such loops structured (NOTE [loops under a reverse level in jit]);
#: ``False`` runs them on the eager tape into the recording, as before.
STRUCTURED: dict[str, bool] = {"enabled": True}


def reverse_level() -> tuple[TraceInterpreter, ReverseInterpreter] | None:
    """``(recorder, level)`` when a loop here takes the structured reverse mode (NOTE
    [loops under a reverse level in jit]): the jit recorder at the bottom, one reverse level
    on top not recording a ``checkpoint``, only ``vmap``/``jvp`` levels between.

    Example:
        >>> reverse_level() is None  # nothing active
        True
    """
    stack = current_stack()
    if len(stack) < 2 or type(stack[0]) is not TraceInterpreter or not STRUCTURED["enabled"]:
        return None
    top = stack[-1]
    if type(top) is not ReverseInterpreter or top.recorder is not None:
        return None
    for interp in stack[1:-1]:
        if type(interp) not in (BatchInterpreter, ForwardInterpreter):
            return None
    return stack[0], top


def record(
    rec: TraceInterpreter,
    level: ReverseInterpreter,
    name: str,
    body: Callable,
    init: Any,
    x_leaves: list,
    x_spec: Any,
    indices: range,
    loop: Callable,
) -> tuple[Any, Any]:
    """``body(carry, i, x) -> (carry, y)`` for ``i`` in ``indices`` (``x`` the rows
    ``i`` of ``x_leaves``), recorded as a forward loop and one tape node of ``level``
    whose VJP records the backward loop (NOTE [loops under a reverse level in jit]).

    ``loop(step, init, indices, xs, keep, used, rows, run)`` records a loop at the levels
    below ``level`` (``TraceInterpreter.record_loop``: ``step(carry, i, rows)`` with the
    rows ``i`` of ``xs``, the ``y`` of index ``i`` stored at ``ys[i - min(indices)]``;
    with ``run=False`` a ``LoopCapture``, which ``loop.emit(capture, keep, init, xs)``
    records later), and raises ``NotStructurable`` when it cannot: then nothing is left
    on the tape and the caller runs the loop eagerly.  Returns the final carry and the
    stacked ``y``'s, at ``level``.
    """
    init_leaves, init_spec = tree_flatten(init)
    init_lo, init_ids = _split(level, init_leaves)
    xs_lo, x_ids = _split(level, x_leaves)
    mark = len(level.tape)
    box: list = []

    def forward(carry: Any, i: Any, x_lo: list) -> Any:
        del level.tape[mark:]  # what an abandoned capture left
        box.clear()
        first_id = level.next_id
        c_leaves, c_spec = tree_flatten(carry)
        # the capture's inputs are its first slots: the carry's, then the index
        start = i.ref - len(rec._lower_all(c_leaves)[1])
        c_in = [level.new_input(c) if _inexact(c) else c for c in c_leaves]
        x_in = [level.new_input(v) if k is not None else v for v, k in zip(x_lo, x_ids)]
        x = tree_unflatten(x_spec, x_in) if x_spec is not None else None
        out = body(tree_unflatten(c_spec, c_in), i, x)
        if not isinstance(out, tuple) or len(out) != 2:
            raise NotStructurable
        new, y = out
        s = _Step()
        s.nodes = level.tape[mark:]
        del level.tape[mark:]
        new_leaves, new_spec = tree_flatten(new)
        y_leaves, y_spec = tree_flatten(y)
        s.carry_in = [c.id if type(c) is ReverseTracer else None for c in c_in]
        s.x_in = [x.id if type(x) is ReverseTracer else None for x in x_in]
        new_lo, s.new_ids = _split(level, new_leaves)
        y_lo, s.y_ids = _split(level, y_leaves)
        x_keys = {_key(v, start): k for k, v in enumerate(x_lo)}
        residuals = _classify(s, start, first_id, x_keys)
        s.residuals, s.x_rows, s.y_rows, s.carry_rows = residuals, x_lo, y_lo, c_leaves
        for i, leaf in zip(s.new_ids + s.y_ids, new_leaves + y_leaves):
            if i is not None and i <= first_id:  # a closed-over value returned as it is
                s.closures[i] = (leaf.value, True)
        box.append(s)
        return tree_unflatten(new_spec, new_lo), (tree_unflatten(y_spec, y_lo), residuals)

    try:
        captured = loop(forward, tree_unflatten(init_spec, init_lo), indices, xs_lo, run=False)
    finally:
        del level.tape[mark:]
    s = box[0]
    init_r = [k for k, i in enumerate(init_ids) if i is not None]
    xs_r = [k for k, i in enumerate(x_ids) if i is not None]
    closure_ids = sorted(s.closures)
    n_y = len(captured.y_structs) - len(s.residuals)
    keep = [True] * len(captured.y_structs)
    if not init_r and not xs_r and not closure_ids:
        keep[n_y:] = [False] * len(s.residuals)
        carry_lo, (ys_lo, _) = captured.emit(keep)
        return carry_lo, ys_lo  # nothing of this level goes in: no derivative comes out
    backward = range(indices[-1], indices[0] - indices.step, -indices.step)
    # the backward step captured now (with stand-ins for its inputs): which residuals the
    # forward loop must store, and (outside other captures) the backward loop to emit
    live = [k for k, i in enumerate(s.y_ids) if i is not None]
    bwd_rows = s.residuals + list(s.x_rows) + [s.y_rows[k] for k in live]
    closures = {c: s.closures[c][0] for c in closure_ids}
    used: list = []
    dry = None
    if not rec.captures:  # inside a capture, a loop stores every residual (as arrays)
        try:
            dry = loop(
                _backward_step(s, s.free, closures, live),
                _backward_init(s, closures, s.carry_rows),
                backward,
                used=used,
                rows=bwd_rows,
                run=False,
            )
        except NotStructurable:
            pass  # every residual is stored until a backward loop says what it reads
    readers = RowReaders()  # the loops that read residuals by rows, as they are recorded
    if dry is not None:
        arrays = _contracted(s) | {j for j in range(len(s.residuals)) if dry.stacked[j]}
        for j in range(len(s.residuals)):
            keep[n_y + j] = True if j in arrays else readers if used[j] else False
    carry_lo, (ys_lo, res_stacks) = captured.emit(keep)
    c_leaves, c_spec = tree_flatten(carry_lo)
    y_leaves, y_spec = tree_flatten(ys_lo)
    layout = {
        "n_carry": len(c_leaves),
        "init_r": init_r,
        "n_xs_r": len(xs_r),
        "closure_ids": closure_ids,
        "n_res": len(res_stacks),
        "n_xs": len(xs_lo),
        "base": min(indices),
        "forward": indices,
        "backward": backward,
        "live": live,
    }
    args = [init_lo[k] for k in init_r] + [xs_lo[k] for k in xs_r]
    args += [s.closures[c][0] for c in closure_ids]
    args += list(res_stacks) + list(xs_lo) + list(s.free)
    parents = [init_ids[k] for k in init_r] + [x_ids[k] for k in xs_r] + closure_ids
    parents += [None] * (len(args) - len(parents))
    prim = LoopPrimitive(name, s, layout, loop, rec, keep, len(y_leaves), dry, readers)
    prim.captured = captured if not rec.captures else None
    outs = tuple(c_leaves) + tuple(y_leaves)  # the VJP reads every one of them
    ids = tuple(range(level.next_id + 1, level.next_id + 1 + len(outs)))
    level.next_id += len(outs)
    level.tape.append(Node(prim, {}, args, parents, outs, ids))
    wrapped = [ReverseTracer(level, v, i) if _inexact(v) else v for v, i in zip(outs, ids)]
    n = len(c_leaves)
    return tree_unflatten(c_spec, wrapped[:n]), tree_unflatten(y_spec, wrapped[n:])


# -- one captured step ------------------------------------------------------------------


class _Step:
    """What one captured step left: its tape nodes (``nodes``), the ids of its carry
    inputs, rows of ``xs``, new carry and ``y`` (``None``: not this level's), the
    closed-over inputs (id -> (value, used other than hoisted)), where each tracer value
    the nodes hold comes from (``where``: id -> ("r", residual) / ("x", row of xs) /
    ("f", free value)), and the hoisted uses ``(proxy id, node index, position)``."""

    __slots__ = (
        "nodes",
        "carry_in",
        "x_in",
        "new_ids",
        "y_ids",
        "closures",
        "where",
        "free",
        "hoisted",
        "residuals",
        "x_rows",
        "y_rows",
        "carry_rows",
    )


def _inexact(x: Any) -> bool:
    dtype = getattr(x, "dtype", None)
    return dtype is not None and numpy.dtype(dtype).kind in "fc"


def _split(level: ReverseInterpreter, leaves: list) -> tuple[list, list]:
    """The leaves without ``level`` (its tracers' values) and their ids (``None``: not one)."""
    values, ids = [], []
    for x in leaves:
        if type(x) is ReverseTracer and x._interp is level:
            values.append(x.value)
            ids.append(x.id)
        elif type(x) is ReverseTracer:
            raise NotStructurable  # another reverse level's value
        elif type(x) is Buffer:  # an array made inside the transform: its value
            values.append(x.val)
            ids.append(None)
        else:
            values.append(x)
            ids.append(None)
    return values, ids


def _key(x: Any, start: int) -> tuple | None:
    """A value's identity across tracer objects (its wrappers and recorded slots), or
    ``None`` when no slot of it was made at or after ``start`` (a loop-invariant value)."""
    t = type(x)
    if t is TraceTracer:
        return ("slot", x.ref) if x.ref >= start else None
    if t is BatchTracer:
        inner = _key(x.val, start)
        return None if inner is None else ("batch", id(x._interp), x.bdim, inner)
    if t is DualTracer:
        p, d = _key(x.primal, start), _key(x.tangent, start)
        return None if p is None and d is None else ("dual", id(x._interp), p, d)
    if isinstance(x, Tracer):
        raise NotStructurable  # a constant subscript, another level's tracer: not replaceable
    return None


def _classify(s: _Step, start: int, first_id: int, x_keys: dict) -> list:
    """Fill in ``s.where``/``free``/``closures``/``hoisted``; returns the residuals (one
    object per value made inside the step that a node holds)."""
    residuals: list = []
    free: list = []
    where: dict = {}
    by_key: dict = {}
    closures: dict = {}
    hoisted: list = []
    for k, node in enumerate(s.nodes):
        prim = node.prim
        if REGISTRY.get(prim.name) is not prim and type(prim) is not LoopPrimitive:
            raise NotStructurable  # a node with values of its own (see the NOTE)
        values = list(node.args) + (list(node.y) if type(node.out_id) is tuple else [node.y])
        for v in values:
            if id(v) in where or not isinstance(v, Tracer):
                continue  # plain values are constants of the recording
            key = _key(v, start)
            if key is None:
                where[id(v)] = ("f", len(free))
                free.append(v)
                continue
            found = by_key.get(key)
            if found is None:
                row = x_keys.get(key)
                if row is not None:
                    found = ("x", row)
                else:
                    found = ("r", len(residuals))
                    residuals.append(v)
                by_key[key] = found
            where[id(v)] = found
        for pos, p in enumerate(node.parents):
            if p is None or p > first_id:
                continue
            entry = closures.setdefault(p, [node.args[pos], False])
            group = _group_key(node, pos) if type(prim) is not LoopPrimitive else None
            if group is not None and group[0] != "getitem":
                hoisted.append((-1 - len(hoisted), k, pos))
            else:
                entry[1] = True
    s.where, s.free, s.hoisted = where, free, hoisted
    s.closures = {c: tuple(e) for c, e in closures.items()}
    return residuals


# -- the loop's tape node ---------------------------------------------------------------


class _Inputs:
    """A loop node's arguments by role (see :class:`LoopPrimitive`)."""

    __slots__ = ("init", "xs_rows", "closures", "residuals", "xs", "free")

    def __init__(self, lay: dict, args: Any) -> None:
        a = list(args)
        sizes = (len(lay["init_r"]), lay["n_xs_r"], len(lay["closure_ids"]))
        sizes += (lay["n_res"], lay["n_xs"])
        parts = []
        at = 0
        for n in sizes:
            parts.append(a[at : at + n])
            at += n
        self.init, self.xs_rows, self.closures, self.residuals, self.xs = parts
        self.free = a[at:]


def _nodes_at(s: _Step, free: list, res_rows: list, x_rows: list, hoist: bool) -> list:
    """The step's nodes with the values of one step (``res_rows``, ``x_rows``: the rows
    of the residuals and of ``xs``) in place of the captured ones; with ``hoist``, the
    hoisted inputs' cotangents go to their proxies."""
    where = s.where

    def at_step(x: Any) -> Any:
        found = where.get(id(x))
        if found is None:
            return x
        kind, j = found
        return free[j] if kind == "f" else res_rows[j] if kind == "r" else x_rows[j]

    deferred: dict = {}
    if hoist:
        for p, k, pos in s.hoisted:
            deferred.setdefault(k, {})[pos] = p
    out = []
    for k, node in enumerate(s.nodes):
        args = [at_step(a) for a in node.args]
        if type(node.out_id) is tuple:
            y = tuple(at_step(v) for v in node.y)
        else:
            y = at_step(node.y)
        prim, parents = node.prim, node.parents
        d = deferred.get(k)
        if d is not None:
            parents = [d.get(pos, p) for pos, p in enumerate(parents)]
            prim = _Deferring(prim, frozenset(d))
        out.append(Node(prim, node.params, args, parents, y, node.out_id))
    return out


class LoopPrimitive:
    """The tape node of a whole loop (NOTE [loops under a reverse level in jit]).  Its
    inputs (``Node.args``) are the level's inputs of the loop (rows of the initial carry
    and of ``xs`` that are this level's, the closed-over values), then every other
    tracer its rules read (the stacked residuals, ``xs``, the values the step's nodes
    hold from outside it), so that a step of an enclosing loop can put its own in."""

    multiple_results = True
    nondiff = False
    nondiff_when = None
    effectful = False

    def __init__(
        self,
        name: str,
        step: _Step,
        layout: dict,
        loop: Callable,
        rec: Any,
        keep: list,
        n_y: int,
        dry: Any,
        readers: RowReaders,
    ) -> None:
        self.name = f"{name} (structured vjp)"
        self.step = step
        self.layout = layout
        self.loop = loop
        self.rec = rec
        self.keep = keep  # the forward loop's stored outputs: its y, then the residuals
        self.n_y = n_y
        # whether a backward or tangent loop has said what it reads
        self.decided = dry is not None
        self.dry = dry  # the backward loop captured with the forward one (or None)
        self.readers = readers
        # the residuals whose stacks the recording holds; the forward loop's capture
        self.recorded = {j for j in range(len(keep) - n_y) if keep[n_y + j]}
        self.captured = None

    def _reads(self, j: int, rows: bool = False) -> None:
        """The forward loop stores residual ``j`` (as an array, or with ``rows`` for loops
        that read its rows, a ``RowList``), and once a loop that reads residuals is
        recorded, only those that such a loop reads."""
        if not self.decided:
            self.decided = True
            for k in range(self.n_y, len(self.keep)):
                self.keep[k] = False
        k = self.n_y + j
        self.keep[k] = self.readers if rows and self.keep[k] is not True else True

    def _complete(self, xs: list, needed: list) -> list:
        """``xs`` of a loop that reads the residuals ``needed``: one that the recording
        does not hold (the forward loop did not store it) comes from the forward loop
        recorded again, storing those."""
        missing = [j for j in needed if j not in self.recorded]
        if not missing:
            return xs
        if self.captured is None:  # pragma: no cover - a nested loop records every residual
            raise RuntimeError(
                f"{self.name}: the recording lacks residuals {missing} of a loop inside "
                f"another loop's body (an ftransforms bug: please report it); "
                f"ftransforms.loop_vjp.STRUCTURED['enabled'] = False avoids it"
            )
        keep = [False] * len(self.keep)
        for j in missing:
            keep[self.n_y + j] = True
        _, (_, stacks) = self.captured.emit(keep)
        xs = list(xs)
        for j in missing:
            xs[j] = stacks[j]
        self.recorded.update(missing)
        return xs

    def is_nondiff(self, params: dict) -> bool:
        return False

    def _over_steps(self, ins: _Inputs, x: Any) -> tuple:
        """A value a step's node held, over all steps: ``(stacked, True)``, or ``(x,
        False)`` for a value that is the same at every step."""
        found = self.step.where.get(id(x))
        if found is None:
            return x, False
        kind, j = found
        if kind == "f":
            return ins.free[j], False
        if kind == "x":
            return ins.xs[j], True
        self._reads(j)
        return ins.residuals[j], True

    def _run(self, step: Callable, init: Any, indices: range, xs: list) -> tuple:
        """The loop recorded once, or (a rule that reads a value, a recorder no longer
        active) step by step: the same values, a flat recording.  The forward loop
        stores the residuals the step reads from then on."""
        n_res = self.layout["n_res"]
        if self.rec.active:
            used: list = []
            try:
                capture = self.loop(step, init, indices, xs, used=used, run=False)
            except NotStructurable:
                pass
            else:
                needed = [j for j in range(n_res) if used[j]]
                xs = self._complete(xs, needed)
                for j in needed:
                    self._reads(j, rows=not capture.stacked[j])
                self.readers.count += 1
                return capture.emit(None, None, xs)
        xs = self._complete(xs, list(range(n_res)))
        for j in range(n_res):
            self._reads(j)
        carry = init
        base = min(indices)
        rows: list = [None] * len(indices)
        for i in indices:
            carry, y = step(carry, i, [fnp.getitem(x, i - base) for x in xs])
            rows[i - base] = y
        n = len(rows[0])
        return carry, [fnp.stack([r[j] for r in rows]) for j in range(n)]

    def apply_vjp(self, y_bar: tuple, y: tuple, args: Any, wanted: Any, params: dict) -> tuple:
        s, lay = self.step, self.layout
        ins = _Inputs(lay, args)
        n_carry = lay["n_carry"]
        ct0 = [lax.zeros_like(v) if b is None else b for b, v in zip(y_bar, y[:n_carry])]
        ct_ys = list(y_bar[n_carry:])
        live = [k for k, b in enumerate(ct_ys) if b is not None]
        closures = dict(zip(lay["closure_ids"], ins.closures))
        acc_ids = [c for c in lay["closure_ids"] if s.closures[c][1]]
        init = (ct0, [lax.zeros_like(closures[c]) for c in acc_ids])
        xs = ins.residuals + ins.xs + [ct_ys[k] for k in live]
        out = None
        if self.dry is not None and live == lay["live"] and self.rec.active:
            try:
                out = self.loop.emit(self.dry, None, init, xs)
            except NotStructurable:
                out = None
            else:
                self.readers.count += 1
        if out is None:
            step = _backward_step(s, ins.free, closures, live)
            out = self._run(step, init, lay["backward"], xs)
        (ct_c, acc), stacked = out
        cts: dict = dict(zip(acc_ids, acc))
        x_rows = [k for k, i in enumerate(s.x_in) if i is not None]
        for (_, k, pos), ybars in zip(s.hoisted, stacked[len(x_rows) :]):
            node = s.nodes[k]
            others = [
                None if j == pos else self._over_steps(ins, a) for j, a in enumerate(node.args)
            ]
            c = node.parents[pos]
            part = sum_over_steps(_group_key(node, pos), pos, others, ybars, closures[c])
            cts[c] = part if c not in cts else _add(cts[c], part)
        res = [ct_c[k] for k in lay["init_r"]]
        res += stacked[: len(x_rows)]
        res += [cts.get(c) for c in lay["closure_ids"]]
        return tuple(res) + (None,) * (len(args) - len(res))

    def apply_jvp(self, primals: Any, tangents: Any, y: Any, params: dict) -> tuple:
        s, lay = self.step, self.layout
        ins, tans = _Inputs(lay, primals), _Inputs(lay, tangents)
        n_carry, n_res, n_xs = lay["n_carry"], lay["n_res"], lay["n_xs"]
        carry_out, ys_out = list(y[:n_carry]), list(y[n_carry:])
        init_dot = [lax.zeros_like(v) for v in carry_out]
        for k, d in zip(lay["init_r"], tans.init):
            if d is not None:
                init_dot[k] = d
        fixed = {c: d for c, d in zip(lay["closure_ids"], tans.closures) if d is not None}
        x_rows = [k for k, i in enumerate(s.x_in) if i is not None]
        live = [(k, d) for k, d in zip(x_rows, tans.xs_rows) if d is not None]
        wanted = [i for i in s.new_ids + s.y_ids if i is not None]
        xs = ins.residuals + ins.xs + [d for _, d in live]

        def step(c_dot: Any, t: Any, rows: list) -> Any:
            seeds = dict(fixed)
            for i, d in zip(s.carry_in, c_dot):
                if i is not None:
                    seeds[i] = d
            for (k, _), d in zip(live, rows[n_res + n_xs :]):
                seeds[s.x_in[k]] = d
            walker = ReverseInterpreter("a structured loop's step")
            walker.tape = _nodes_at(s, ins.free, rows[:n_res], rows[n_res : n_res + n_xs], False)
            got = dict(zip(wanted, walker.forward(seeds, wanted)))
            new = [_dot(got, i, v) for i, v in zip(s.new_ids, carry_out)]
            outs = [_dot(got, i, v, rows=True) for i, v in zip(s.y_ids, ys_out)]
            return new, outs

        c_dot, ys_dot = self._run(step, init_dot, lay["forward"], xs)
        return tuple(c_dot) + tuple(ys_dot)


def _contracted(s: _Step) -> set:
    """The residuals a hoisted cotangent's contraction reads (stacked, after the loop)."""
    out = set()
    for _, k, pos in s.hoisted:
        for j, a in enumerate(s.nodes[k].args):
            found = s.where.get(id(a))
            if j != pos and found is not None and found[0] == "r":
                out.add(found[1])
    return out


def _backward_init(s: _Step, closures: dict, carry: list) -> tuple:
    """Stand-ins of the backward loop's carry for its capture: the carry's cotangent and
    the sums of the closed-over values' (their types are what matters)."""
    return (list(carry), [closures[c] for c in sorted(closures) if s.closures[c][1]])


def _backward_step(s: _Step, free: list, closures: dict, live: list) -> Callable:
    """One step of the backward loop: ``((ct of the carry, sums of the closed-over values'
    cotangents), t, rows) -> (..., [ct of the rows of xs] + [hoisted y_bar's])`` with rows
    the residuals, the rows of ``xs`` and of the ``ys``' cotangents that are not zero (the
    ``y``s of positions ``live``)."""
    n_res, n_xs = len(s.residuals), len(s.x_in)
    acc_ids = [c for c in sorted(closures) if s.closures[c][1]]
    x_rows = [k for k, i in enumerate(s.x_in) if i is not None]
    proxies = [p for p, _, _ in s.hoisted]
    wanted_ids = [i for i in s.carry_in if i is not None]
    wanted_ids += [s.x_in[k] for k in x_rows] + acc_ids + proxies

    def step(state: Any, t: Any, rows: list) -> Any:
        ct_c, acc = state
        nodes = _nodes_at(s, free, rows[:n_res], rows[n_res : n_res + n_xs], hoist=True)
        seeds: dict = {}
        for i, b in zip(s.new_ids, ct_c):
            if i is not None:
                seeds[i] = b if i not in seeds else _add(seeds[i], b)
        for k, b in zip(live, rows[n_res + n_xs :]):
            i = s.y_ids[k]
            if i is not None:
                seeds[i] = b if i not in seeds else _add(seeds[i], b)
        walker = ReverseInterpreter("a structured loop's step")
        walker.tape = nodes
        got = dict(zip(wanted_ids, walker.backward(seeds, wanted_ids)))
        new_ct = []
        for i, c in zip(s.carry_in, ct_c):
            b = got.get(i) if i is not None else None
            new_ct.append(lax.zeros_like(c) if b is None else b)
        new_acc = [a if got[c] is None else _add(a, got[c]) for a, c in zip(acc, acc_ids)]
        outs = []
        for k in x_rows:
            b = got[s.x_in[k]]
            outs.append(lax.zeros_like(rows[n_res + k]) if b is None else b)
        for p, k, _ in s.hoisted:
            b = got[p]
            outs.append(lax.zeros_like(nodes[k].y) if b is None else b)
        return (new_ct, new_acc), outs

    return step


def _dot(got: dict, i: Any, v: Any, rows: bool = False) -> Any:
    """The tangent of output ``i`` (zeros of ``v``, or of one of its rows, when none)."""
    d = got.get(i) if i is not None else None
    if d is None:
        return lax.zeros_like(v[0] if rows else v)
    return d
