"""A loop body captured by the jit recorder and emitted as one equation: the machinery
behind :meth:`TraceInterpreter.record_loop` (NOTE [control flow under jit] in
``tracing.py``; NOTE [parallel work out of recorded loops] in ``parallel_steps.py``).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> prog = ft.make_program(lambda xs: ft.scan(lambda c, x: (c + x, c * x), 0.0, xs))(
    ...     np.arange(3.0))
    >>> [e.prim.name for e in prog.eqns]
    ['scan']
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any

from ftransforms.backend import namespace_of
from ftransforms.interpreters import parallel_steps
from ftransforms.interpreters.tracing import (
    _LEAF,
    NotStructurable,
    TraceInterpreter,
    TraceTracer,
    _avals,
    _raise_all,
    _same_avals,
    _stacked,
    _value,
)
from ftransforms.program import ControlNode, compile_subprogram, eliminate_dead
from ftransforms.pytree import tree_flatten, tree_unflatten

__all__ = ["LoopCapture", "RowList", "RowReaders"]


class LoopCapture:
    """A loop body captured by :meth:`TraceInterpreter.record_loop` (NOTE [control flow
    under jit]), compiled and ready to be emitted as a ``ControlNode``."""

    def __init__(
        self,
        rec: TraceInterpreter,
        op: str,
        step: Callable,
        init: Any,
        indices: range,
        check: Callable,
        name: str,
        xs: list | None,
        rows: list | None,
    ) -> None:
        self.rec, self.name, self.indices = rec, name, indices
        leaves, spec = tree_flatten(init)
        structs, bottoms = rec._lower_all(leaves)
        xp = namespace_of(*[_value(b) for b in bottoms])
        values = rec._carry_values(bottoms, xp)
        nc = len(values)
        y_box: list = []
        rows_given = xs is not None or rows is not None
        first = indices[0] - min(indices)
        if rows is not None:  # one row of each: its structure and its value
            row_structs, row_bottoms = rec._lower_all(list(rows))
            rows0 = rec._carry_values(row_bottoms, xp)
            axes = None
            x_bottoms, x_values = None, None
        else:
            xs = list(xs or ())
            x_structs, x_bottoms = rec._lower_all(xs)
            row_structs, axes = [], []
            for st in x_structs:
                row_struct, leaf_axes = _without_axis(st, 0)
                row_structs.append(row_struct)
                axes += leaf_axes
            x_values = rec._carry_values(x_bottoms, xp)
            rows0 = [_row(v, ax, first) for v, ax in zip(x_values, axes)]
        nx = len(rows0)

        def body(ins: list) -> list:
            carry = tree_unflatten(spec, _raise_all(structs, ins[:nc]))
            if rows_given:
                out = step(carry, ins[nc], _raise_all(row_structs, ins[nc + 1 :]))
            else:
                out = step(carry, ins[nc])
            if not isinstance(out, tuple) or len(out) != 2:
                raise NotStructurable
            new, y = out
            what = "f's new carry" if name == "scan" else "body_fun's output"
            new_bottoms = rec._lower_carry(op, check, what, carry, new, spec, structs)
            y_leaves, y_spec = tree_flatten(y)
            y_structs, y_bottoms = rec._lower_all(y_leaves)
            y_box.append((y_spec, y_structs))
            return new_bottoms + y_bottoms

        eqns, ins, out, seen = rec._capture(body, values + [xp.asarray(indices[0])] + rows0)
        _same_avals(out[:nc], values)
        y_avals = []
        for y in out[nc:]:
            y = _value(y) if hasattr(y, "dtype") else xp.asarray(y)
            y_avals.append((tuple(y.shape), y.dtype))
        refs, consts = rec._outputs(out)
        in_slots = [t.ref for t in ins]
        free_slots = sorted(rec._free(eqns, in_slots, refs))
        index = xp.asarray(indices[0])
        in_avals = _avals(values + [index] + rows0 + [seen[s] for s in free_slots])
        # the whole step, compiled when the loop runs it (not when its work is split)
        self._step_args = (eqns, in_slots + free_slots, refs, consts, in_avals)
        self._step_fn: Callable | None = None
        self.y_spec, self.y_structs = y_box[-1]
        # the rows the step reads (another row is not sliced: its array may be zeros)
        live = eliminate_dead(eqns, {r for r in refs if r is not None})
        read = {r for e in live for r in e.refs if r is not None}
        read.update(r for r in refs if r is not None)
        row_slots = in_slots[nc + 1 :]
        self.read_rows = [j for j, slot in enumerate(row_slots) if slot in read]
        self.used = []
        at = 0
        for st in row_structs:
            n = _n_bottoms(st)
            self.used.append(any(row_slots[j] in read for j in range(at, at + n)))
            at += n
        # an output that repeats an earlier one (the same slot) shares its buffer
        first_of: dict = {}
        self.same = [
            first_of.setdefault(r, j) if r is not None else j for j, r in enumerate(refs[nc:])
        ]
        self.y_avals = y_avals
        self.y_leaf_of = [k for k, st in enumerate(self.y_structs) for _ in range(_n_bottoms(st))]
        self.spec, self.structs, self.bottoms, self.values = spec, structs, bottoms, values
        self.row_structs, self.axes, self.rows0 = row_structs, axes, rows0
        self.x_bottoms, self.x_values = x_bottoms, x_values
        self.free_slots, self.seen, self.xp, self.nc, self.nx = free_slots, seen, xp, nc, nx
        self.refs, self.in_slots = refs, in_slots
        # NOTE [parallel work out of recorded loops]
        known = {s: (tuple(v.shape), v.dtype) for s, v in seen.items() if hasattr(v, "shape")}
        known.update(zip(in_slots, _avals(values + [index] + rows0)))
        avals_of = parallel_steps.aval_table(eqns, known)
        self.split = parallel_steps.plan(eqns, in_slots, nc, refs, consts, avals_of, len(indices))
        # the rows (per value of xs) read as stacked arrays, before or after the loop
        self.stacked = [False] * len(row_structs)
        if self.split is not None:
            at = 0
            for k, st in enumerate(row_structs):
                n = _n_bottoms(st)
                self.stacked[k] = any(at <= j < at + n for j in self.split.rows_stacked)
                at += n

    @property
    def step_fn(self) -> Callable:
        """The whole step as one sub-program (the per-step outputs are copied into the
        stacks or kept as rows: the function does not copy them)."""
        if self._step_fn is None:
            eqns, inputs, refs, consts, in_avals = self._step_args
            self._step_fn = compile_subprogram(
                eqns, inputs, refs, consts, in_avals, shared_from=self.nc
            )
        return self._step_fn

    def emit(self, keep: list | None, init: Any = None, xs: list | None = None) -> tuple:
        """Run the loop and record it as one equation: on the carry and ``xs`` it was
        captured with, or on ``init`` and ``xs`` of the same wrapper structures and types
        (``NotStructurable`` otherwise).  Returns ``(carry, ys)``."""
        rec, xp, nc = self.rec, self.xp, self.nc
        bottoms, values = self.bottoms, self.values
        if init is not None:
            structs, bottoms = rec._lower_all(tree_flatten(init)[0])
            if structs != self.structs:
                raise NotStructurable
            values = rec._carry_values(bottoms, xp)
            _same_avals(values, self.values)
        x_bottoms, x_values, axes = self.x_bottoms, self.x_values, self.axes
        if xs is not None:
            x_structs, x_bottoms = rec._lower_all(list(xs))
            axes = []
            for st, row_struct in zip(x_structs, self.row_structs):
                got, leaf_axes = _without_axis(st, 0)
                if got != row_struct:
                    raise NotStructurable
                axes += leaf_axes
            if len(x_structs) != len(self.row_structs):
                raise NotStructurable
            x_values = rec._carry_values(x_bottoms, xp)
            for v, ax, row in zip(x_values, axes, self.rows0):
                if v.shape[:ax] + v.shape[ax + 1 :] != row.shape or v.dtype != row.dtype:
                    raise NotStructurable
        if x_values is None:
            raise NotStructurable  # captured from rows: emit needs the stacked values
        if self.split is not None:
            mark = len(rec.program)
            rec.captures.append([None, None])  # a value read while replaying: no split
            try:
                tracers = self._emit_split(keep, bottoms, values, x_bottoms, x_values, axes)
            except Exception:  # noqa: BLE001 - a read or an error: the per-step loop decides
                del rec.program[mark:]
                self.split = None  # the whole body at every step from now on
            else:
                carry = tree_unflatten(self.spec, _raise_all(self.structs, tracers[:nc]))
                stacked = [_stacked(s) for s in self.y_structs]
                return carry, tree_unflatten(self.y_spec, _raise_all(stacked, tracers[nc:]))
            finally:
                rec.captures.pop()
        free_values = [self.seen[s] for s in self.free_slots]
        free_args = rec._slot_tracers(self.free_slots, self.seen)
        tracers = self._emit_loop(
            keep,
            self.step_fn,
            bottoms,
            values,
            x_bottoms,
            x_values,
            axes,
            self.read_rows,
            free_args,
            free_values,
            self.y_avals,
            self.same,
            self.y_leaf_of,
        )
        carry = tree_unflatten(self.spec, _raise_all(self.structs, tracers[:nc]))
        stacked = [_stacked(s) for s in self.y_structs]
        return carry, tree_unflatten(self.y_spec, _raise_all(stacked, tracers[nc:]))

    def _emit_split(
        self, keep: Any, bottoms: list, values: list, x_bottoms: list, x_values: list, axes: list
    ) -> list:
        """The loop with the body's parallel work before and after it (NOTE [parallel work
        out of recorded loops]): the tracers of the carry's and the ys' bottoms."""
        rec, xp, nc, sp = self.rec, self.xp, self.nc, self.split
        length, base = len(self.indices), min(self.indices)
        row_slots = self.in_slots[nc + 1 :]
        inside = set(self.in_slots)
        env: dict = {}
        for e in sp.once + sp.pre + sp.post:
            for r in e.refs:
                if r is not None and r not in inside and r in self.seen and r not in env:
                    env[r] = TraceTracer(rec, self.seen[r], r)
        for r in sp.free_slots + sp.new_free:
            if r in self.seen and r not in env:
                env[r] = TraceTracer(rec, self.seen[r], r)
        sp.replay_once(env)
        x_arg = [b if type(b) is TraceTracer else v for b, v in zip(x_bottoms, x_values)]
        stacked_rows = {row_slots[j]: (x_arg[j], axes[j]) for j in sp.rows_stacked}
        want = list(dict.fromkeys(sp.new_rows + _reads(sp.post, "pre", sp) + sp.pre_ys()))
        pre = sp.replay_batched(sp.pre, env, stacked_rows, length, want) if want else {}
        # the loop: rows of xs it reads and of what ran before it; values from outside
        loop_x_args = [x_arg[j] for j in sp.rows_read] + [pre[s] for s in sp.new_rows]
        loop_x_values = [_value(v) for v in loop_x_args]
        loop_axes = [axes[j] for j in sp.rows_read] + [0] * len(sp.new_rows)
        free_args = [env[s] for s in sp.new_free + sp.free_slots]
        y_avals, leaf_of = [], []
        for (kind, _), av, leaf in zip(sp.ys, self.y_avals, self.y_leaf_of):
            if kind == "loop":
                y_avals.append(av)
                leaf_of.append(leaf)
        for r in sp.extra:
            y_avals.append(sp.aval(r))
            leaf_of.append(None)  # stored for the calls after the loop
        first_of: dict = {}
        same = [
            first_of.setdefault(r, j) if r is not None else j
            for j, r in enumerate(sp.loop_refs[nc:])
        ]
        tracers = self._emit_loop(
            keep,
            sp.step_fn,
            bottoms,
            values,
            loop_x_args,
            loop_x_values,
            loop_axes,
            list(range(len(loop_x_args))),
            free_args,
            [_value(v) for v in free_args],
            y_avals,
            same,
            leaf_of,
        )
        n_loop_y = len(y_avals) - len(sp.extra)
        post_in = dict(stacked_rows)
        for r, t in zip(sp.extra, tracers[nc + n_loop_y :]):
            post_in[r] = (t, 0)
        for s_ in _reads(sp.post, "pre", sp):
            post_in[s_] = (pre[s_], 0)
        if sp.index_in_post:
            index = xp.arange(base, base + length, dtype=xp.asarray(self.indices[0]).dtype)
            post_in[self.in_slots[nc]] = (index, 0)
        want = [r for kind, r in sp.ys if kind == "post"]
        post = sp.replay_batched(sp.post, env, post_in, length, want) if want else {}
        out = list(tracers[:nc])
        for kind, j in sp.ys:
            out.append(tracers[nc + j] if kind == "loop" else pre[j] if kind == "pre" else post[j])
        return out

    def _emit_loop(
        self,
        keep: Any,
        step_fn: Callable,
        bottoms: list,
        values: list,
        x_bottoms: list,
        x_values: list,
        axes: list,
        read_rows: list,
        free_args: list,
        free_values: list,
        y_avals: list,
        same: list,
        y_leaf_of: list,
    ) -> list:
        """Run the loop of ``step_fn`` and record it as one equation; returns the tracers of
        its results (the carry's bottoms, then the stacked ys')."""
        rec, xp, nc = self.rec, self.xp, self.nc
        nx = len(x_values)
        indices, base, length = self.indices, min(self.indices), len(self.indices)
        slices = [(j, axes[j]) for j in read_rows]
        shared: dict = {}
        for j, k in enumerate(same):
            shared.setdefault(k, []).append(j)
        steps = [(i - base, xp.asarray(i)) for i in indices]  # read-only 0-d indices

        recording = [True]
        zeros: dict = {}  # read-only, made once
        pool = threading.local()

        def impl(xp: Any, *args: Any) -> tuple:
            carry = list(args[:nc])
            x_arrays = args[nc : nc + nx]
            free = args[nc + nx :]
            step_fn = node.subprograms["step"]
            bufs: list = []
            stores = []
            lists = []  # outputs kept as the list of the steps' arrays
            for j, (shape, dtype) in enumerate(y_avals):
                if same[j] != j:
                    bufs.append(bufs[same[j]])
                    continue
                how = True if keep is None else _how(_kept(keep, y_leaf_of, shared[j]))
                if type(how) is RowReaders:
                    bufs.append(RowList([None] * length, how.count))
                    stores.append((j, bufs[j]))
                    lists.append(j)
                elif how:
                    # the buffer of the last call, when nothing holds it any more (a
                    # buffer per thread: the memory is not handed back and faulted in again)
                    own = pool.__dict__.setdefault("bufs", {})
                    b = own.get(j)
                    if b is None or _getrefcount(b) > 3:
                        b = own[j] = xp.empty((length,) + shape, dtype=dtype)
                    bufs.append(b)
                    stores.append((j, b))
                else:  # not stored: zeros that take no memory (a loop around may copy them)
                    z = zeros.get(j)
                    if z is None:
                        z = zeros[j] = xp.broadcast_to(xp.zeros((), dtype), (length,) + shape)
                    bufs.append(z)
            rows: list = [None] * nx
            # the last loop to read a RowList lets go of each row once read (NOTE [loops
            # under a reverse level in jit]): the memory goes back as the steps go
            last = [j for j, _ in slices if type(x_arrays[j]) is RowList and x_arrays[j].left == 1]
            for r, index in steps:
                for j, ax in slices:
                    x = x_arrays[j]
                    rows[j] = x[r] if not ax else x[(slice(None),) * ax + (r,)]
                for j in last:
                    x_arrays[j][r] = None
                outs = step_fn(*carry, index, *rows, *free)
                carry = outs[:nc]
                for j, b in stores:
                    b[r] = outs[nc + j]
            for x in {id(x): x for x in x_arrays if type(x) is RowList}.values():
                x.left -= 1
            if lists and recording[0]:  # the recorder holds arrays
                for j in lists:
                    bufs[j] = xp.stack(list(bufs[j]))
                bufs = [bufs[same[j]] for j in range(len(bufs))]
            return (*carry, *bufs)

        node = ControlNode(self.name, impl, {"step": step_fn})
        if keep is not None:

            def unread() -> set:  # read when the program is compiled: ``keep`` is final
                dead = {j for j in shared if _how(_kept(keep, y_leaf_of, shared[j])) is False}
                return {nc + j for j, k in enumerate(same) if k in dead}

            node.unread = unread
        results = impl(xp, *values, *x_values, *free_values)
        recording[0] = False
        args = [b if type(b) is TraceTracer else v for b, v in zip(bottoms, values)]
        args += [b if type(b) is TraceTracer else v for b, v in zip(x_bottoms, x_values)]
        args += free_args
        return rec._emit(node, xp, args, list(results))


def _without_axis(struct: tuple, axis: int) -> tuple[tuple, list]:
    """The structure of a value with its logical ``axis`` removed, and the physical axis
    of each of its bottom leaves that this logical axis is."""
    if struct == _LEAF:
        return _LEAF, [axis]
    if struct[0] == "batch":
        bdim = struct[2]
        inner_axis = axis if axis < bdim else axis + 1
        inner, axes = _without_axis(struct[3], inner_axis)
        return ("batch", struct[1], bdim - 1 if inner_axis < bdim else bdim, inner), axes
    primal, axes = _without_axis(struct[2], axis)
    tangent, more = _without_axis(struct[3], axis)
    return ("dual", struct[1], primal, tangent), axes + more


def _n_bottoms(struct: tuple) -> int:
    if struct == _LEAF:
        return 1
    if struct[0] == "batch":
        return _n_bottoms(struct[3])
    return _n_bottoms(struct[2]) + _n_bottoms(struct[3])


def _row(x: Any, axis: int, r: int) -> Any:
    """Row ``r`` of ``x`` along its physical ``axis`` (a view)."""
    return x[(slice(None),) * axis + (r,)]


class RowReaders:
    """A ``keep`` entry of :meth:`TraceInterpreter.record_loop`: store the output as a
    :class:`RowList`, read by ``count`` loops (counted as they are recorded)."""

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0


class RowList(list):
    """A loop's stacked output kept as the list of its steps' arrays (row ``r`` is
    ``x[r]``); ``left``: how many of the loops that read it have still to run."""

    __slots__ = ("left",)

    def __init__(self, rows: Any = (), left: int = 0) -> None:
        super().__init__(rows)
        self.left = left


def _reads(eqns: list, part: str, sp: Any) -> list:
    """The slots made by the part ``part`` of a split that ``eqns`` read."""
    made = sp.made(part)
    return list(dict.fromkeys(r for e in eqns for r in e.refs if r in made))


#: ``sys.getrefcount``: a loop's stacked output that only its pool (and the local name and
#: the call) holds, three references, is free to be written again by the next call.
_getrefcount = sys.getrefcount


def _kept(keep: list, leaf_of: list, outputs: list) -> list:
    """The ``keep`` entries of loop outputs (``True`` for one no leaf of ``y`` owns)."""
    return [True if leaf_of[k] is None else keep[leaf_of[k]] for k in outputs]


def _how(entries: Any) -> Any:
    """How an output shared by several leaves of ``y`` is stored (see ``record_loop``)."""
    entries = list(entries)
    if any(e is True for e in entries):
        return True
    rows = [e for e in entries if type(e) is RowReaders]
    return rows[0] if rows else False
