"""The work of a recorded loop's step that does not follow the carry, done for all steps
at once (``TraceInterpreter.record_loop``).

NOTE [parallel work out of recorded loops]: a recorded ``scan``/``fori_loop`` body runs
once per step, and each of its calls is a NumPy call on one step's small arrays: the
replay's cost is the number of calls times the steps.  Only the calls on the path from
the carry to the next carry have to run step after step.  Of the others, a call that does
not depend on the carry (nor the step index) reads only rows of ``xs``, values from
outside the body and constants: it runs *before* the loop, once, on the stacked rows (the
body's equations replayed under a ``vmap`` over the steps, so each primitive's batching
rule does the stacking), or, when it reads no row either, once on its own; and a call
that depends on the carry but that the next carry does not need (a ``y`` computed from
the new carry, as ``(h @ v - y_t) ** 2``) runs *after* the loop on the stacked values it
reads, which the loop then stores.  The backward loop of a gradient (NOTE [loops under a
reverse level in jit]) has many of the first kind: the derivative factors of ``tanh`` and
the sigmoids (``1 - y**2``) read only the forward loop's stored values.  The loop body
keeps the rest, in their order; the values and their types are the same (a batched call
may sum in another order than the per-step one, so results agree to rounding).

It applies when at least :data:`MIN_CALLS` calls (not counting views) move out, the
results of the calls that move, over all steps, take at most :data:`MAX_BYTES` (a step's
``outer(x_t, x_t)`` of a long ``x_t`` is done step by step, not held for every step at
once), and every call of the body is a registered primitive with a batching rule and no
effect (no nested loop, no ``ft.debug``); otherwise, or when a batching rule reads a value
while the calls are replayed (which would make the recording value-dependent), the loop
runs the whole body per step, as it was captured.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy

from ftransforms.core.primitive import REGISTRY
from ftransforms.core.stack import pushed
from ftransforms.interpreters.batching import BatchInterpreter, BatchTracer
from ftransforms.program import EFFECT_PRIMITIVES, compile_subprogram

__all__ = ["MAX_BYTES", "MIN_CALLS", "StepSplit", "plan"]

#: The fewest calls (views aside) that must leave the loop for the split to be made.
MIN_CALLS = 2

#: The most bytes the results of the calls run for all steps at once may take together.
MAX_BYTES = 64 << 20

#: Calls that return views: moving them saves little.
_VIEWS = frozenset({"reshape", "transpose", "broadcast_to", "getitem"})


def _outs(eqn: Any) -> tuple:
    return eqn.out if type(eqn.out) is tuple else (eqn.out,)


def _avals(eqn: Any) -> tuple:
    return eqn.avals if type(eqn.out) is tuple else (eqn.avals,)


class StepSplit:
    """A loop body cut into the calls run before the loop (``pre``: on stacked rows;
    ``once``: on no row), in it (``seq``) and after it (``post``)."""

    def __init__(self) -> None:
        self.once: list = []
        self.pre: list = []
        self.seq: list = []
        self.post: list = []
        self.new_rows: list = []  # slots of ``pre`` results the loop reads by rows
        self.new_free: list = []  # slots of ``once`` results the loop reads
        self.extra: list = []  # loop slots (or carry inputs) ``post`` reads, stacked
        self.ys: list = []  # per output y: ("loop", j) / ("pre", slot) / ("post", slot)
        self.loop_refs: list = []  # the loop step's outputs: the carry, then its ys
        self.loop_consts: list = []
        self.step_fn: Callable | None = None
        self.free_slots: list = []  # the loop step's values from outside the body
        self.rows_read: list = []  # rows (of the body's xs) the loop step reads
        self.rows_stacked: list = []  # rows ``pre`` or ``post`` read as stacked arrays
        self.index_in_post = False

    def replay_once(self, env: dict) -> None:
        _replay(self.once, env)

    def made(self, part: str) -> set:
        """The slots the calls of ``part`` make."""
        return {s for e in getattr(self, part) for s in _outs(e)}

    def pre_ys(self) -> list:
        return [r for kind, r in self.ys if kind == "pre"]

    def aval(self, slot: int) -> tuple:
        return self.avals_of(slot)

    def replay_batched(self, eqns: list, env: dict, batched: dict, size: int, want: list) -> dict:
        """``eqns`` under a ``vmap`` of ``size`` steps: ``batched`` maps slots to ``(stacked
        value, its physical step axis)``, ``env`` the others; returns the stacked values
        (step axis first) of the slots ``want``."""
        interp = BatchInterpreter("a loop's steps at once", size, split=False, masking=False)
        with pushed(interp):
            local = dict(env)
            for slot, (value, axis) in batched.items():
                local[slot] = BatchTracer(interp, value, axis)
            _replay(eqns, local)
            got = [local[s] for s in want]
        out = {}
        for s, v in zip(want, got):
            if type(v) is BatchTracer and v._interp is interp:
                value, axis = v.val, v.bdim
                if axis:
                    rank = len(value.shape)
                    perm = (axis,) + tuple(a for a in range(rank) if a != axis)
                    value = REGISTRY["transpose"].bind(value, axes=perm)
                out[s] = value
            else:  # the same at every step
                shape = tuple(getattr(v, "shape", ()))
                out[s] = REGISTRY["broadcast_to"].bind(
                    REGISTRY["reshape"].bind(v, shape=(1,) + shape), shape=(size,) + shape
                )
        return out


def _replay(eqns: list, env: dict) -> None:
    for eqn in eqns:
        args = [c if r is None else env[r] for r, c in zip(eqn.refs, eqn.consts)]
        res = eqn.prim.bind(*args, **eqn.params) if eqn.params else eqn.prim.bind(*args)
        if type(eqn.out) is tuple:
            env.update(zip(eqn.out, res))
        else:
            env[eqn.out] = res


def _batchable(prim: Any) -> bool:
    return (
        REGISTRY.get(getattr(prim, "name", None)) is prim
        and prim.batch is not None
        and not prim.effectful
        and prim not in EFFECT_PRIMITIVES
    )


def plan(
    eqns: list,
    in_slots: list,
    nc: int,
    refs: list,
    consts: list,
    avals_of: Callable,
    length: int,
) -> StepSplit | None:
    """The split of a captured step (NOTE [parallel work out of recorded loops]), or
    ``None``.  ``in_slots``: the carry's ``nc`` slots, the index's, the rows'; ``refs``/
    ``consts``: the step's outputs (the new carry, then the ``y``s); ``avals_of(slot)``:
    a slot's ``(shape, dtype)`` (for the compiled tier's input types)."""
    if not all(_batchable(e.prim) for e in eqns):
        return None
    carry_in = set(in_slots[:nc])
    index_slot = in_slots[nc]
    row_of = {s: j for j, s in enumerate(in_slots[nc + 1 :])}
    made_by: dict = {}
    for k, e in enumerate(eqns):
        for s in _outs(e):
            made_by[s] = k
    # calls that follow the carry (or the index), and those that read rows
    seq_dep: set = set()
    row_dep: set = set()
    for k, e in enumerate(eqns):
        for r in e.refs:
            if r is None:
                continue
            if r in carry_in or r == index_slot or made_by.get(r) in seq_dep:
                seq_dep.add(k)
            if r in row_of or made_by.get(r) in row_dep:
                row_dep.add(k)
    # the calls the next carry needs
    need: set = set()
    todo = [made_by[r] for r in refs[:nc] if r in made_by]
    while todo:
        k = todo.pop()
        if k not in need:
            need.add(k)
            todo.extend(made_by[r] for r in eqns[k].refs if r in made_by)
    sp = StepSplit()
    where: dict = {}
    for k, e in enumerate(eqns):
        if k in seq_dep:
            part = "seq" if k in need else "post"
        else:
            part = "pre" if k in row_dep else "once"
        getattr(sp, part).append(e)
        where[k] = part
    moved = sum(e.prim.name not in _VIEWS for e in sp.once + sp.pre + sp.post)
    if moved < MIN_CALLS:
        return None
    size = 0
    for e in sp.pre + sp.post:
        for shape, dtype in _avals(e):
            size += math.prod(shape) * numpy.dtype(dtype).itemsize * length
    if size > MAX_BYTES:
        return None
    part_of = {s: where[k] for s, k in made_by.items()}
    # what the loop reads from before it (its new carry too), and what the calls after
    # it read from it
    for r in [r for e in sp.seq for r in e.refs] + list(refs[:nc]):
        p = part_of.get(r)
        if p == "pre" and r not in sp.new_rows:
            sp.new_rows.append(r)
        elif p == "once" and r not in sp.new_free:
            sp.new_free.append(r)
    stacked_rows: set = set()
    for e in sp.pre + sp.post:
        for r in e.refs:
            if r in row_of:
                stacked_rows.add(row_of[r])
    for e in sp.post:
        for r in e.refs:
            if r == index_slot:
                sp.index_in_post = True
            elif (part_of.get(r) == "seq" or r in carry_in) and r not in sp.extra:
                sp.extra.append(r)
    # the outputs: the carry and the ys the loop computes, then what post reads
    sp.loop_refs = list(refs[:nc])
    sp.loop_consts = list(consts[:nc])
    for r, c in zip(refs[nc:], consts[nc:]):
        p = part_of.get(r)
        if p in ("pre", "post"):
            sp.ys.append((p, r))
            continue
        if p == "once" and r not in sp.new_free:
            sp.new_free.append(r)
        sp.ys.append(("loop", len(sp.loop_refs) - nc))
        sp.loop_refs.append(r)
        sp.loop_consts.append(c)
    for r in sp.extra:
        sp.loop_refs.append(r)
        sp.loop_consts.append(None)
    # the loop's step: the carry, the index, the rows it reads, the rows made before it
    rows_read: set = set()
    for e in sp.seq:
        rows_read.update(row_of[r] for r in e.refs if r in row_of)
    rows_read.update(row_of[r] for r in sp.loop_refs if r in row_of)
    sp.rows_read = sorted(rows_read)
    sp.rows_stacked = sorted(stacked_rows)
    inputs = list(in_slots[: nc + 1]) + [in_slots[nc + 1 + j] for j in sp.rows_read]
    inputs += sp.new_rows + sp.new_free
    produced = set(inputs)
    free: set = set()
    for e in sp.seq:
        free.update(r for r in e.refs if r is not None and r not in produced)
        produced.update(_outs(e))
    free.update(r for r in sp.loop_refs if r is not None and r not in produced)
    sp.free_slots = sorted(free)
    in_avals = [avals_of(s) for s in inputs + sp.free_slots]
    sp.avals_of = avals_of
    sp.step_fn = compile_subprogram(
        sp.seq, inputs + sp.free_slots, sp.loop_refs, sp.loop_consts, in_avals, shared_from=nc
    )
    return sp


def aval_table(eqns: list, known: dict) -> Callable:
    """``avals_of`` for :func:`plan`: the slots the equations make, then ``known``."""
    table = dict(known)
    for e in eqns:
        for s, av in zip(_outs(e), _avals(e)):
            table[s] = (tuple(av[0]), av[1])
    return lambda s: table.get(s)
