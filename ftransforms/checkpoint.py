"""Gradient checkpointing (rematerialization): :func:`checkpoint`, alias :func:`remat`.

NOTE [checkpoint]: while a checkpointed function runs, every active reverse-mode
interpreter (``grad``/``vjp`` level) records the primitives applied to its tracers into a
*block* (primitive, settings, which inputs are tracers of that level, the other inputs as
constants) instead of appending tape nodes that hold the forward values.  The values
computed inside are returned as tracers with fresh ids, but no tape node keeps them, so
they are freed as soon as the function lets go of them.  When the function returns, the
block becomes ONE tape node whose inputs are the level's tracers the function used
(arguments and closed-over values alike, found as they are used) and whose outputs are the
values computed inside that are still alive (the return values, and anything else that got
out: a value stored in a list, a constant of another level's block, an argument the
function wrote into: it gets its arguments themselves, so the caller's array sees the
write, as in NumPy).  Its VJP replays the
block under a fresh reverse interpreter from the saved inputs and runs that small tape
backward: the forward values of one block exist at a time, during the backward pass.

Why a replay of recorded primitives rather than calling the function again: the replay
sees closed-over tracers (``checkpoint(lambda x: x * w)``) as the inputs they are, and
random draws (which take no traced input) are constants of the block, so the backward
pass sees the same noise as the forward pass.  The replay also runs through every
interpreter below the reverse level (``vmap``, ``jvp``, an outer ``grad``, ``jit``'s
recorder), exactly like the forward pass did, which is what makes ``vmap(grad(...))``,
``grad(grad(...))``, ``jacfwd(jacrev(...))`` and ``jit(grad(...))`` of checkpointed code
work.  A checkpointed call nested inside another is a block inside the block: replaying
the outer one re-enters checkpointing for the inner one.  Without any reverse level
active (plain calls, ``vmap``, ``jvp``, ``jit`` alone) there is nothing to save, and the
function is simply called.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable
from typing import Any

import numpy

from ftransforms.boundary import transform_outputs
from ftransforms.core.errors import ArgnumsError, UnsupportedOperationError
from ftransforms.core.primitive import Primitive, _add
from ftransforms.core.stack import current_stack, pushed
from ftransforms.interpreters.forward import DualTracer, ForwardInterpreter
from ftransforms.interpreters.reverse import Node, ReverseInterpreter, ReverseTracer, kept

__all__ = ["checkpoint", "checkpoint_policies", "remat"]


#: JAX's selective policies: ``ft.checkpoint_policies.<one of these>`` raises a clear
#: UnsupportedOperationError (what JAX's name means here, and the fix), not a bare
#: AttributeError.
_SELECTIVE_POLICIES = frozenset(
    {
        "dots_saveable",
        "checkpoint_dots",
        "dots_with_no_batch_dims_saveable",
        "checkpoint_dots_with_no_batch_dims",
        "save_only_these_names",
        "save_any_names_but_these",
        "save_anything_except_these_names",
        "save_from_both_policies",
        "save_and_offload_only_these_names",
        "offload_dot_with_no_batch_dims",
    }
)


class _Policies(type):
    def __getattr__(cls, name: str) -> Any:
        if name in _SELECTIVE_POLICIES:
            raise UnsupportedOperationError(
                f"checkpoint_policies.{name}: JAX's selective policy {name} is not "
                f"supported; ft.checkpoint_policies has nothing_saveable (the same as "
                f"policy=None: keep the function's inputs and outputs) and "
                f"everything_saveable: drop the policy, or checkpoint smaller pieces of "
                f"the function to choose what is stored"
            )
        raise AttributeError(f"type object 'checkpoint_policies' has no attribute {name!r}")


class checkpoint_policies(metaclass=_Policies):  # noqa: N801  (JAX's name: a namespace of policies)
    """The ``policy=`` values :func:`checkpoint` accepts, under JAX's names.  A policy
    says which values computed inside a checkpointed function the backward pass may keep
    instead of recomputing; ftransforms supports the two extremes.

    Example:
        >>> import numpy as np
        >>> from ftransforms import checkpoint, checkpoint_policies, grad
        >>> f = checkpoint(np.sin, policy=checkpoint_policies.nothing_saveable)
        >>> float(grad(f)(0.0))
        1.0
    """

    @staticmethod
    def nothing_saveable(prim: Any, *args: Any, **params: Any) -> bool:
        """Keep nothing computed inside: recompute it all (the same as ``policy=None``)."""
        return False

    @staticmethod
    def everything_saveable(prim: Any, *args: Any, **params: Any) -> bool:
        """Keep everything: no recomputation (the function is not checkpointed at all)."""
        return True


def checkpoint(
    fun: Callable,
    *,
    static_argnums: int | tuple[int, ...] = (),
    policy: Any = None,
    prevent_cse: bool = True,
    static_argnames: str | tuple[str, ...] = (),
) -> Callable:
    """``fun`` with its forward values recomputed in the backward pass instead of stored.

    Under ``grad``/``vjp``/``jacrev`` (and everything built on them) only the inputs and
    outputs of ``fun`` are kept for the backward pass; the values computed inside are
    freed and recomputed, one checkpointed call at a time, when the backward pass reaches
    them: memory for compute.  The results are the same as without ``checkpoint``.
    Composes with ``vmap``, ``jvp``, ``jit``, nesting and higher-order derivatives; with no
    reverse-mode transform active it just calls ``fun``.  ``fun`` may close over traced
    values (they become inputs of the checkpointed block).

    ``static_argnums`` marks arguments that are not arrays (accepted for JAX
    compatibility: ftransforms runs Python eagerly, so every argument may steer Python
    control flow); ``static_argnames`` (JAX's, the same for keyword arguments) is accepted
    too.  ``policy`` is ``None`` or ``checkpoint_policies.nothing_saveable``
    (keep only the inputs and outputs) or ``checkpoint_policies.everything_saveable``
    (keep everything: ``fun`` itself); selective policies (JAX's ``dots_saveable``,
    ``save_only_these_names``, custom callables) are not supported and raise
    :class:`~ftransforms.errors.UnsupportedOperationError`: to keep more, checkpoint
    smaller pieces.  ``prevent_cse`` has no effect (nothing is compiled), and is accepted
    for JAX compatibility.

    Example:
        >>> import numpy as np
        >>> from ftransforms import checkpoint, grad
        >>> block = checkpoint(lambda x: np.sin(np.sin(x)))
        >>> g = grad(lambda x: block(block(x)).sum())(np.array([0.5, 1.0]))
        >>> bool(np.allclose(g, grad(lambda x: np.sin(np.sin(np.sin(np.sin(x)))).sum())(
        ...     np.array([0.5, 1.0]))))
        True
    """
    name = getattr(fun, "__name__", None) or type(fun).__name__
    if not callable(fun):
        raise TypeError(
            f"checkpoint({name}): expected a function to wrap, got a {type(fun).__name__}; "
            f"write checkpoint(f)(x), or use it as a decorator"
        )
    if policy not in _POLICIES:
        raise UnsupportedOperationError(
            f"checkpoint({name}, policy={policy!r}): the supported policies are None and "
            f"ft.checkpoint_policies.nothing_saveable (keep the function's inputs and "
            f"outputs, recompute everything inside it) and "
            f"ft.checkpoint_policies.everything_saveable (keep everything); selective "
            f"policies such as jax.checkpoint_policies.dots_saveable are not: drop the "
            f"policy, or checkpoint smaller pieces of the function to choose what is stored"
        )
    statics = _static_argnums(static_argnums, name)
    names = (static_argnames,) if isinstance(static_argnames, str) else static_argnames
    if not isinstance(names, (tuple, list)) or not all(isinstance(n, str) for n in names):
        raise ArgnumsError(
            f"checkpoint({name}, static_argnames={static_argnames!r}): static_argnames must "
            f"be a str or a tuple of str (names of the non-array keyword arguments)"
        )
    save_all = policy is checkpoint_policies.everything_saveable

    @functools.wraps(fun)
    def checkpointed(*args: Any, **kwargs: Any) -> Any:
        for i in statics:
            if not -len(args) <= i < len(args):
                raise ArgnumsError(
                    f"checkpoint({name}, static_argnums={static_argnums!r}): argument {i} is "
                    f"out of range for a call with {len(args)} positional argument(s); "
                    f"static_argnums counts the positional arguments from 0"
                )
        if save_all:
            return fun(*args, **kwargs)
        return _run_checkpointed(fun, args, kwargs, name)

    return checkpointed


#: JAX's other name for :func:`checkpoint`.
remat = checkpoint


_POLICIES = (None, checkpoint_policies.nothing_saveable, checkpoint_policies.everything_saveable)


def _static_argnums(static_argnums: Any, name: str) -> tuple[int, ...]:
    nums = (static_argnums,) if not isinstance(static_argnums, (tuple, list)) else static_argnums
    if not all(isinstance(i, (int, numpy.integer)) and not isinstance(i, bool) for i in nums):
        raise ArgnumsError(
            f"checkpoint({name}, static_argnums={static_argnums!r}): static_argnums must be "
            f"an int or a tuple of ints (positions of the non-array arguments), got "
            f"{static_argnums!r}"
        )
    return tuple(int(i) for i in nums)


# -- recording: a block per reverse level ---------------------------------------------------


class _Segment:
    """What one reverse level records during one checkpointed call."""

    __slots__ = ("start", "eqns", "inputs", "made")

    def __init__(self, start: int) -> None:
        self.start = start  # ids above this were made inside the call
        self.eqns: list[tuple] = []  # (prim, params, refs, consts, out ids)
        self.inputs: dict[int, Any] = {}  # id of an outside tracer used -> its value
        self.made: list[tuple[int, Any]] = []  # (id, weakref to the tracer) made inside


class _Recorder:
    """Attached to a :class:`ReverseInterpreter` as ``recorder`` while checkpointed code
    runs; its ``process`` stands in for the interpreter's (see NOTE [checkpoint])."""

    __slots__ = ("segments",)

    def __init__(self) -> None:
        self.segments: list[_Segment] = []

    def process(self, interp: ReverseInterpreter, prim: Primitive, args: tuple, params: dict):
        seg = self.segments[-1]
        vals = []
        refs = []
        recorded = False
        for a in args:
            if type(a) is ReverseTracer and a._interp is interp:
                vals.append(a.value)
                refs.append(a.id)
                recorded = True
                if a.id <= seg.start and a.id not in seg.inputs:
                    seg.inputs[a.id] = a.value
            else:
                vals.append(kept(a))  # writes stay apart: NOTE [constants the tape keeps]
                refs.append(None)
        if recorded and prim.vjp_joint is not None:
            # the outputs as the tape's own rule makes them (a custom_vjp's fwd run as
            # ordinary code below: NOTE [custom_vjp's fwd is ordinary code to the levels
            # below]); the replay in the backward pass takes the rule's pullback
            out = prim.vjp_joint(vals, [r is not None for r in refs], **params)[0]
        else:
            out = prim.bind(*vals, **params)
        if not recorded or prim.is_nondiff(params):
            return out
        consts = tuple(v if r is None else None for v, r in zip(vals, refs))
        if prim.multiple_results:
            outs = tuple(_made(interp, seg, o) for o in out)
            seg.eqns.append((prim, params, tuple(refs), consts, tuple(t.id for t in outs)))
            return outs
        t = _made(interp, seg, out)
        seg.eqns.append((prim, params, tuple(refs), consts, t.id))
        return t


def adopt(interp: ReverseInterpreter, t: ReverseTracer) -> None:
    """``t`` was written into inside a checkpointed block: it may be one of its outputs."""
    interp.recorder.segments[-1].made.append((t.id, weakref.ref(t)))


def _made(interp: ReverseInterpreter, seg: _Segment, value: Any) -> ReverseTracer:
    interp.next_id += 1
    t = ReverseTracer(interp, value, interp.next_id)
    seg.made.append((t.id, weakref.ref(t)))
    return t


def _begin(interp: ReverseInterpreter) -> None:
    if interp.recorder is None:
        interp.recorder = _Recorder()
        interp.adopt = functools.partial(adopt, interp)
    interp.recorder.segments.append(_Segment(interp.next_id))


def _end(interp: ReverseInterpreter, name: str, failed: bool) -> None:
    """Close the innermost block of ``interp``: a tape node, or an entry of the enclosing
    block (a nested checkpoint)."""
    recorder = interp.recorder
    seg = recorder.segments.pop()
    parent = recorder.segments[-1] if recorder.segments else None
    if parent is None:
        interp.recorder = None
        interp.adopt = None
    if failed:
        return
    # By current id: a tracer written into (NOTE [mutation semantics]) holds a later id.
    alive, seen = [], set()
    for _, r in seg.made:
        t = r()
        if t is None or type(t) is not ReverseTracer or t._interp is not interp:
            continue
        if t.id > seg.start and t.id not in seen:
            seen.add(t.id)
            alive.append((t.id, t))
    if not alive:
        return  # nothing computed inside reaches the rest of the computation
    in_ids = tuple(seg.inputs)
    block = _Block(name, seg.eqns, in_ids, tuple(i for i, _ in alive))
    if parent is None:
        y = tuple(t.value for _, t in alive)
        interp.tape.append(
            Node(block.primitive(), {}, list(seg.inputs.values()), list(in_ids), y, block.out_ids)
        )
        return
    for i in in_ids:  # the enclosing block's own inputs among them
        if i <= parent.start and i not in parent.inputs:
            parent.inputs[i] = seg.inputs[i]
    parent.eqns.append((block, None, in_ids, (None,) * len(in_ids), block.out_ids))
    parent.made.extend((i, weakref.ref(t)) for i, t in alive)


def _run_checkpointed(fun: Callable, args: tuple, kwargs: dict, name: str) -> Any:
    levels = [i for i in current_stack() if isinstance(i, ReverseInterpreter)]
    if not levels:
        return fun(*args, **kwargs)
    for interp in levels:
        _begin(interp)
    failed = True
    try:
        # the arguments themselves: a write into one reaches the caller's, as in NumPy
        # (aliases and views included); the block records it (``adopt``)
        out = transform_outputs(fun(*args, **kwargs))
        failed = False
    finally:
        for interp in reversed(levels):
            _end(interp, name, failed)
    return out


# -- replay ----------------------------------------------------------------------------------


class _Block:
    """A recorded checkpointed call: replayable from the values of its inputs."""

    __slots__ = ("name", "eqns", "in_ids", "out_ids")

    def __init__(self, name: str, eqns: list, in_ids: tuple, out_ids: tuple) -> None:
        self.name = name
        self.eqns = eqns
        self.in_ids = in_ids
        self.out_ids = out_ids

    def replay(self, *values: Any) -> tuple:
        env = dict(zip(self.in_ids, values))
        for prim, params, refs, consts, outs in self.eqns:
            args = [c if r is None else env[r] for r, c in zip(refs, consts)]
            if type(prim) is _Block:  # a nested checkpointed call stays checkpointed
                res = _run_checkpointed(prim.replay, tuple(args), {}, prim.name)
            elif params:
                res = prim.bind(*args, **params)
            else:
                res = prim.bind(*args)
            if type(outs) is tuple:
                env.update(zip(outs, res))
            else:
                env[outs] = res
        return tuple(env[i] for i in self.out_ids)

    def primitive(self) -> Primitive:
        """The tape node's primitive: its rules replay the block."""
        return Primitive(
            f"checkpoint({self.name})",
            lambda xp, *values: self.replay(*values),
            jvp=self._jvp,
            vjp=self._vjp,
            multiple_results=True,
        )

    def _vjp(self, y_bar: tuple, y: tuple, *values: Any, wanted: Any) -> tuple:
        interp = ReverseInterpreter(f"checkpoint({self.name}) backward pass")
        with pushed(interp):
            inputs = [
                interp.new_input(v) if w and _dtype_kind(v) in "fc" else v
                for v, w in zip(values, wanted)
            ]
            outs = self.replay(*inputs)
        seeds: dict[int, Any] = {}
        for o, b in zip(outs, y_bar):
            if b is not None and type(o) is ReverseTracer and o._interp is interp:
                seeds[o.id] = b if o.id not in seeds else _add(seeds[o.id], b)
        ids = [t.id for t in inputs if type(t) is ReverseTracer]
        cts = iter(interp.backward(seeds, ids, consume=True) if seeds else [None] * len(ids))
        interp.tape.clear()
        return tuple(next(cts) if type(t) is ReverseTracer else None for t in inputs)

    def _jvp(self, tangents: list, y: tuple, *values: Any) -> tuple:
        interp = ForwardInterpreter(f"checkpoint({self.name}) jvp")
        with pushed(interp):
            inputs = [
                v if t is None else DualTracer(interp, v, t) for v, t in zip(values, tangents)
            ]
            outs = self.replay(*inputs)
        return tuple(
            o.tangent if type(o) is DualTracer and o._interp is interp else None for o in outs
        )


def _dtype_kind(x: Any) -> str:
    dt = getattr(x, "dtype", None)
    return numpy.dtype(dt).kind if dt is not None else numpy.asarray(x).dtype.kind
