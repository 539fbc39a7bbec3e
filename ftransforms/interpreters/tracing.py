"""The recording interpreter behind ``ftransforms.jit``.

It sits at the bottom of the stack (below every transform inside the jitted function),
evaluates each primitive eagerly on concrete arrays, and appends the backend call to a
flat program: ``(primitive, xp, argument references, settings, output references)``.
Replaying the program runs only the NumPy/CuPy calls, with no tracer and no rule.

NOTE [value-dependent traces]: a program is only valid for inputs that take the same
Python paths.  Any read of a traced value (``bool()``, ``int()``, a boolean mask, a rule
that peeks at the data such as ``x.at[i].set``'s duplicate check, a random draw, an error
a backend call raised, which the function may catch) marks the trace as value-dependent,
and ``jit`` then runs that input signature eagerly instead of replaying.  So does an
operation on a tracer of an enclosing transform that the jitted function closes over
(``grad(lambda w: jit(lambda x: x * w)(x0))``): that value changes from call to call
without being an input.  A read while a control-flow sub-program is
being captured drops that capture instead (NOTE [value reads during a capture]).

NOTE [control flow under jit]: ``ftransforms.control``'s operators, called while only
``vmap``/``jvp`` levels sit above this recorder (``jit(f)``, ``jit(vmap(f))``,
``jit(jvp(f))``), are recorded as one structured equation each (a
:class:`~ftransforms.program.ControlNode`) instead of the eager Python path they take.
Every value is lowered to its bottom-level recorded arrays and a wrapper structure
(batch axes, tangents) that is raised back around the results (``_lower``/``_raise``).
Every branch of a ``cond``/``switch`` is recorded (each on the real operands, the
untaken ones with floating-point warnings off), and the predicate of a ``while_loop``,
the body of a ``while_loop``/``fori_loop``/``scan`` once (with a recorded step index),
as sub-programs (``compile_subprogram``) of the carry (or operands) and of the values the
body closes over.  A body that batches (or differentiates) a carry that started plain is
recorded again with that carry widened first (``CarryStructureChanged``).  The replay
evaluates the real predicate (through ``.get()`` on a device) and runs the body as many
times as the data ask, so a recording never bakes in a branch or a trip count, and a
scan's recording does not grow with its length.  A ``scan`` (or a ``fori_loop`` with
static bounds) under a reverse-mode level (``jit(grad(f))``, ``jit(vmap(grad(f)))``) is
recorded as a forward and a backward loop (NOTE [loops under a reverse level in jit] in
``ftransforms/loop_vjp.py``).  A loop's rows of ``xs`` are sliced per step as views of the
stacked arrays, its outputs stacked as the steps go (into the buffers of the last call
when nothing else holds them any more), and the body's work that does not follow the
carry runs once for all steps (NOTE [parallel work out of recorded loops]).  When that is
not possible the operator runs eagerly and the ordinary rules apply (a predicate read
marks the trace value-dependent; a loop with static bounds is recorded unrolled): under a
reverse-mode level inside ``jit`` for ``cond``/``switch``/``while_loop`` and where
``loop_vjp`` falls back (``jit(grad(grad(f)))``: the tape of the steps taken is eager),
when the body reads a traced value itself (NOTE [value reads during a capture]: the capture is
dropped at the read, before any of it is used), when a branch raises, or when a step changes the
carry's physical dtype (a Python-scalar carry or ``fori_loop``'s index promoting a
float32 carry, which eagerly stays float32).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy

from ftransforms.backend import is_array, namespace_of
from ftransforms.core.errors import ControlFlowError
from ftransforms.core.outside_operands import unrouted
from ftransforms.core.primitive import QUIET_ERRSTATE, REGISTRY, Primitive
from ftransforms.core.stack import Interpreter
from ftransforms.core.tracer import Tracer, ValTracer, _storing_into_an_array
from ftransforms.interpreters.batching import BatchTracer
from ftransforms.interpreters.constant_subscripts import (
    ConstantTracer,
    rebind,
    subscript_being_read,
    undo_all,
)
from ftransforms.interpreters.forward import DualTracer
from ftransforms.program import (
    EFFECT_PRIMITIVES,
    MUTED,
    ControlNode,
    Eqn,
    Inside,
    compile_subprogram,
    inside,
)
from ftransforms.pytree import tree_flatten, tree_unflatten


class NotStructurable(Exception):  # noqa: N818 - an internal signal, never shown to users
    """Raised by the structured recorders: run this control flow eagerly instead."""


class ValueReadInCapture(NotStructurable):
    """A traced value was read while a sub-program was being captured (NOTE [value reads
    during a capture]): the capture is abandoned and its operator runs eagerly."""


class CarryStructureChanged(NotStructurable):
    """The body returned a carry batched (or with a tangent) at levels where the initial
    carry was not: ``structs`` is what it returned; widen the carry and record again."""

    def __init__(self, structs: list) -> None:
        super().__init__()
        self.structs = structs


#: The most elements a Python read of a recorded value may have for a replay to check it
#: (NOTE [checked value reads under jit] in ftransforms/jit.py); a larger one runs eagerly.
_CHECKED_READ_SIZE = 4096


class TraceTracer(ValTracer):
    """A concrete array known to the recorder as slot ``ref``."""

    __slots__ = ()  # the layout is Tracer's (NOTE [mutation semantics])
    _payload = ("_interp", "val", "ref")
    _value_only = True  # float() reads the value (NOTE [number conversions])

    def __init__(self, interp: TraceInterpreter, val: Any, ref: int) -> None:
        self._interp = interp
        self.val = val
        self.ref = ref

    def _concrete(self) -> Any:
        interp = self._interp
        if not interp.active:  # kept past its recording (``self.last = x * 2``)
            self._check_live("a Python read of its value")
        # ``R[t]`` of a closed-over array: NOTE [constant subscripts in a capture]
        sub = subscript_being_read() if interp.captures else None
        val = self.val
        if (
            not interp.captures
            and interp.seen is None
            and not interp.quiet
            and (type(val) is numpy.ndarray or isinstance(val, numpy.generic))
            and val.size <= _CHECKED_READ_SIZE
            and val.dtype.kind in "biuf"
        ):
            # NOTE [checked value reads under jit] (ftransforms/jit.py): a replay checks it
            interp.reads.append((self.ref, val.copy()))
            return val
        interp.note_value_read(f"a Python read of a traced value {self!r}", sub)
        return val

    # A Python number read from a recording is a read of the data, as bool() is: the
    # recording becomes value-dependent (never replayed); the value below decides, so a
    # derivative-tracking tracer there still refuses.  (vmap's split reads rows this way.)
    def __float__(self) -> float:
        if _storing_into_an_array(1):
            return self._stored_into_array(0.0)
        return float(self._concrete())

    def __complex__(self) -> complex:
        if _storing_into_an_array(1):
            return self._stored_into_array(0j)
        return complex(self._concrete())

    def __int__(self) -> int:
        if _storing_into_an_array(1):
            return self._stored_into_array(0)
        return int(self._concrete())

    def item(self, *args: Any) -> Any:
        return self._concrete().item(*args)

    def tolist(self) -> Any:
        return self._concrete().tolist()

    def _physical(self) -> Any:
        return self.val

    def __repr__(self) -> str:
        return f"TraceTracer(%{self.ref}, shape={self.val.shape}, dtype={self.val.dtype})"

    def __str__(self) -> str:
        # its value, as grad's tracer shows it: ``print(x)`` in the recording call shows
        # the numbers (a Python side effect, not part of the recording: no value read)
        return f"TraceTracer(%{self.ref}, value={self.val!r})"


#: NumPy's context variable of its error handling (np.errstate, np.seterr), read to
#: notice a change (NOTE [np.errstate under jit]); None where NumPy has none (NumPy 1).
_ERRSTATE = getattr(getattr(numpy, "_core", None), "umath", None)
_ERRSTATE = getattr(_ERRSTATE, "_extobj_contextvar", None)


def _warning_hooks() -> tuple:
    """What shows a warning (``catch_warnings(record=True)`` replaces both: NOTE
    [warnings set inside under jit])."""
    return (warnings.showwarning, getattr(warnings, "_showwarnmsg_impl", None))


def _numeric(category: Any) -> bool:
    """Whether a filter of ``category`` applies to the warnings data raise (``divide by
    zero``, ``Mean of empty slice``: ``RuntimeWarning`` and its subclasses)."""
    return isinstance(category, type) and (
        issubclass(RuntimeWarning, category) or issubclass(category, RuntimeWarning)
    )


def _filters_set(at_call: tuple, now: list) -> tuple:
    """``(filters, whole)``: the warnings filters of ``RuntimeWarning`` (what NumPy's
    operations warn with) that the function put in front of the caller's (or, with
    ``whole``, the whole list, where it removed or reordered some), or ``(None,
    False)`` where they do not differ (NOTE [error handling set inside under jit])."""
    mine = tuple(w for w in now if _numeric(w[2]))
    theirs = tuple(w for w in at_call if _numeric(w[2]))
    if mine == theirs:
        return None, False
    front = len(mine) - len(theirs)
    if front > 0 and mine[front:] == theirs:
        return mine[:front], False
    return mine, True


#: The settings seen set inside (NOTE [error handling set inside under jit]), one object
#: each: equal operations recorded under them are one primitive.
_INSIDE_STATES: dict = {}


class TraceInterpreter(Interpreter):
    """Evaluates and records every backend call made on traced values."""

    __slots__ = (
        "program",
        "n_slots",
        "value_dependent",
        "reason",
        "chain",
        "diagonal",
        "seen",
        "captures",
        "quiet",
        "opaque",
        "errstate",
        "warning_filters",
        "warnings_at_call",
        "inside",
        "errbase",
        "raises_inside",
        "reads",
        "elided",
    )

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.program: list[tuple] = []
        # slot of a transpose/reshape result -> (op, the chain's source tracer, axes)
        self.chain: dict[int, tuple] = {}
        # slot of an ``identity * v`` result (the matrix diag(v)) -> the tracer of v
        self.diagonal: dict[int, TraceTracer] = {}
        self.n_slots = 0
        self.value_dependent = False
        self.reason = ""
        # NOTE [checked value reads under jit] (ftransforms/jit.py): [(slot, value read)]
        self.reads: list = []
        # the constant operands of operations not recorded (``x * c`` with ``c`` all ones):
        # NOTE [values derived from outside arrays under jit] (ftransforms/jit_guards.py)
        self.elided: list = []
        # While a control-flow body is recorded: slot -> value of every slot it reads.
        self.seen: dict[int, Any] | None = None
        # Per capture in progress, innermost last: [first value read in it, its subscript].
        self.captures: list[list] = []
        # While a body is recorded that runs again afterwards, or an untaken branch:
        # effect primitives (ft.debug) are recorded without running (NOTE [callbacks]).
        self.quiet = False
        # ids of arrays from outside the arguments (NOTE [values read from outside under
        # jit]): the peepholes never read their values, which the user may change later
        self.opaque: frozenset = frozenset()
        # NumPy's error handling at the call (NOTE [np.errstate under jit])
        self.errstate = (_ERRSTATE.get(), numpy.geterr()) if _ERRSTATE is not None else None
        # the warnings filters seen last (the list and its length), and at the call with
        # what shows a warning (NOTE [warnings set inside under jit])
        self.warning_filters = (warnings.filters, len(warnings.filters))
        self.warnings_at_call = (tuple(warnings.filters), _warning_hooks())
        # NOTE [error handling set inside under jit] (program.py): what the function set
        # that differs from the call, as (np.errstate entries, filters), and its Inside
        self.inside: Any = None
        # inside a capture run under the library's own np.errstate: (NumPy's settings
        # there, the entries the function had set outside it), which the delta is of
        self.errbase: tuple | None = None
        self.raises_inside = False  # an operation recorded under a setting that raises

    def new_input(self, value: Any) -> TraceTracer:
        self.n_slots += 1
        return TraceTracer(self, value, self.n_slots - 1)

    def before_write(self, target: Any) -> None:
        """A write while a control-flow body is recorded: run that control flow eagerly
        (the sub-program would not see a write into a value from outside the body)."""
        if self.seen is not None:
            raise NotStructurable

    def _errstate_changed(self) -> None:
        """NOTE [np.errstate under jit]: ``with np.errstate(divide='raise')`` (or
        ``np.seterr``) inside the function makes NumPy raise FloatingPointError where a
        ``try`` in the function may catch it (per row under vmap: NOTE [errors of some
        rows]); a replay runs under the caller's error handling and would return inf/nan
        instead.  So the operations recorded under a setting made inside replay under it
        (NOTE [error handling set inside under jit] in program.py): a replay that raises
        there runs the call eagerly (NOTE [a replay that raises] in jit.py), where the
        function's ``try`` sees the error, and a replay that does not raise is what the
        eager call computes; an operation recorded where NumPy calls back (``'call'``,
        ``'log'``: a function of the user's, which may record what it is called with)
        makes the trace value-dependent (that signature runs eagerly).  Costs one
        contextvar read per recorded operation."""
        _, at_call = self.errstate
        current = _ERRSTATE.get()
        self.errstate = (current, at_call)
        if current is QUIET_ERRSTATE:  # NOTE [floating-point warnings of derivatives]
            return  # the derivative rules' own setting, not the function's
        now = numpy.geterr()
        if any(v in ("call", "log") and at_call.get(k) != v for k, v in now.items()):
            self.note_value_read("an operation under np.errstate(...='call') set inside it")
        if self.errbase is None:
            errstate = tuple(sorted((k, v) for k, v in now.items() if at_call.get(k) != v))
        else:  # under the library's own setting (``_quiet_capture``): the function's on top
            base, outer = self.errbase
            entries = dict(outer)
            entries.update((k, v) for k, v in now.items() if base.get(k) != v)
            errstate = tuple(sorted(entries.items()))
        self._set_inside(errstate, None)

    def _quiet_capture(self, fn: Callable, values: list) -> tuple:
        """``self._capture(fn, values)`` under ``np.errstate(all="ignore")``, for a body
        that may run on values it will not get at a replay (a branch not taken, a loop's
        body past its end); the setting is the library's, so it is not recorded (NOTE
        [error handling set inside under jit] in program.py), what the function sets
        inside is."""
        saved, errstate = self.errbase, self.errstate
        with numpy.errstate(all="ignore"):
            if errstate is not None:
                outer = self.inside.errstate if self.inside is not None else ()
                self.errbase = (numpy.geterr(), outer)
                self.errstate = (_ERRSTATE.get(), errstate[1])
            try:
                return self._capture(fn, values)
            finally:
                self.errbase = saved

    def _warnings_changed(self) -> None:
        """NOTE [warnings set inside under jit]: ``warnings.catch_warnings()`` inside the
        function (as ``np.testing.suppress_warnings``) puts a new list of filters in place,
        and a filter ``"error"`` set in it turns NumPy's ``RuntimeWarning`` (``divide by
        zero``) into an exception that the function's own ``try`` may catch; with
        ``record=True`` the warnings are collected in a list that the function may read
        (``if caught: ...``).  A replay runs under the caller's filters and reads no list:
        it would return the values the recording's data led to (``-inf``) where the eager
        call catches an error or branches on a warning.  So an operation recorded where
        the warnings are collected makes the trace value-dependent (that signature runs
        eagerly); the filters of ``RuntimeWarning`` (which data raise, or a class above
        it) set inside, ``"error"`` and ``"ignore"``, are replayed with the operations
        recorded under them (NOTE [error handling set inside under jit] in program.py):
        a replay that raises runs the call eagerly.  Costs one attribute read
        per recorded operation: the filters' list is replaced on entering the block, and
        ``warnings.simplefilter("error")`` called without one inserts into it in place."""
        at_call, hooks = self.warnings_at_call
        now = warnings.filters
        self.warning_filters = (now, len(now))
        if _warning_hooks() != hooks:
            self.note_value_read(
                "an operation under warnings.catch_warnings(record=True) set inside it, "
                "whose warnings the function may read"
            )
        self._set_inside(None, _filters_set(at_call, now))

    def _set_inside(self, errstate: tuple | None, filters: tuple | None) -> None:
        """NOTE [error handling set inside under jit] (program.py): the settings that
        differ from the call's now (``None``: that part has not changed since)."""
        old = self.inside
        if errstate is None:
            errstate = old.errstate if old is not None else ()
        if filters is None:
            filters = (old.filters, old.whole) if old is not None else (None, False)
        if not errstate and filters[0] is None:
            self.inside = None
        elif old is None or (errstate, *filters) != (old.errstate, old.filters, old.whole):
            key = (errstate, *filters)
            state = _INSIDE_STATES.get(key)
            if state is None:
                state = _INSIDE_STATES[key] = Inside(errstate, *filters)
            self.inside = state
            self.raises_inside = self.raises_inside or state.raises

    def _inside(self, prim: Any) -> Any:
        """``prim`` as recorded under the settings set inside (NOTE [error handling set
        inside under jit]); effects keep their primitive (they warn about no data)."""
        if type(prim) is not Primitive or prim.effectful or prim in EFFECT_PRIMITIVES:
            return prim
        return inside(prim, self.inside)

    def _kept(self, consts: tuple) -> tuple:
        """The constants an equation keeps: NOTE [constants the tape keeps] in
        interpreters/reverse.py, for the recording.  A writeable plain array made during
        the recording (``b = init.copy()``; not one from outside, of :attr:`opaque`, nor a
        view of one, which every replay reads as it is then) is kept as a copy: the
        function may write into it in place after this operation read it (``y = b * x;
        b[:] = 0``), and a replay must compute with the value the operation read."""
        if not any(type(c) is numpy.ndarray and c.flags.writeable for c in consts):
            return consts
        return tuple(
            c.copy(order="K")
            if type(c) is numpy.ndarray and c.flags.writeable and not _of(c, self.opaque)
            else c
            for c in consts
        )

    def note_value_read(self, reason: str, subscript: Any = None) -> None:
        if self.captures:  # NOTE [value reads during a capture]
            read = self.captures[-1]
            if read[0] is None:
                read[0], read[1] = reason, subscript
            raise ValueReadInCapture(reason)
        if not self.value_dependent:
            self.value_dependent = True
            self.reason = reason

    def process(self, prim: Any, args: tuple, params: dict) -> Any:
        if _ERRSTATE is not None and _ERRSTATE.get() is not self.errstate[0]:
            self._errstate_changed()
        filters, count = self.warning_filters
        if warnings.filters is not filters or len(filters) != count:
            self._warnings_changed()
        # One pass over the arguments; the peephole checks below only for the few
        # primitives they concern (the recording is on the first call's critical path).
        vals = []
        refs = []
        consts = []
        constant = foreign = other = has_const = False
        for a in args:
            t = type(a)
            if t is TraceTracer and a._interp is self:
                v = a.val
                vals.append(v)
                refs.append(a.ref)
                consts.append(None)
            else:
                has_const = True
                if t is ConstantTracer:  # NOTE [constant subscripts in a capture]
                    v = a.val
                    constant = True
                else:
                    v = a
                    if isinstance(a, Tracer):
                        foreign = True
                vals.append(v)
                refs.append(None)
                consts.append(v)
            if type(v) is not numpy.ndarray and type(v) not in _PYTHON_SCALARS:
                other = True  # NumPy scalars, CuPy arrays: namespace_of decides
        if self.seen is not None:
            for r, v in zip(refs, vals):
                if r is not None:
                    self.seen[r] = v
        if prim.effectful:
            # random bits, an io_callback: results that are not functions of the arguments
            self.note_value_read(f"the effectful primitive {prim.name!r}")
        if foreign:
            self.note_value_read(
                f"{prim.name} uses a value of an enclosing transform (a closure over a "
                f"traced value), which a replay would not see"
            )
        xp = namespace_of(*vals) if other else numpy
        if prim in EFFECT_PRIMITIVES and (self.quiet or MUTED[0]):
            if MUTED[0]:
                return ()  # a trial run: neither run nor recorded
            out = ()  # recorded, to run when the recording is replayed
        else:
            # NOTE [outside arrays in rules under jit]: an implementation (a host
            # callback's NumPy code) computes on plain values, its binds not routed
            try:
                out = (
                    prim.impl(xp, *vals, **params)
                    if not self.opaque
                    else unrouted(prim.impl, xp, *vals, **params)
                )
            except Exception as err:
                # NOTE [value-dependent traces]: an error of the data (``inv`` of a singular
                # matrix) that the function catches decides its path as an ``if`` would (a
                # TypeError is one of the operand types, which the signature holds)
                if not isinstance(err, TypeError):
                    self.note_value_read(f"a {type(err).__name__} raised by {prim.name}")
                raise
        if constant and all(r is None for r in refs):
            return tuple(out) if prim.multiple_results else out  # constants alone
        consts = tuple(consts)
        if prim.multiple_results:
            consts = self._kept(consts) if has_const else consts
            outs = tuple(self.new_input(o) for o in out)
            avals = tuple((o.shape, o.dtype) for o in out)
            recorded = prim if self.inside is None else self._inside(prim)
            self.program.append(
                Eqn(recorded, xp, tuple(refs), consts, params, tuple(o.ref for o in outs), avals)
            )
            return outs
        name = prim.name
        if (
            name not in _PEEPHOLE
            or (not has_const and name in _CONSTANT_PEEPHOLE)
            or (has_const and self.opaque and any(id(c) in self.opaque for c in consts))
        ):
            # the common case: record and return
            if has_const:
                consts = self._kept(consts)
            ref = self.n_slots
            self.n_slots = ref + 1
            if self.inside is not None:
                prim = self._inside(prim)
            self.program.append(
                _new_eqn(Eqn, (prim, xp, tuple(refs), consts, params, ref, (out.shape, out.dtype)))
            )
            return TraceTracer(self, out, ref)
        same = _identity_operand(prim, vals, refs, out, params)
        if same is not None:
            if has_const:  # (``x * np.max(W)`` where the max is 1.0: W's, all the same)
                self.elided.extend(consts)
            a = args[same]  # a new object: NumPy's result is a new array (writes stay apart)
            return TraceTracer(self, a.val, a.ref) if type(a) is TraceTracer else a
        if _constant_result(prim, vals, refs, params):
            self.elided.extend(consts)
            return out  # not recorded: a constant of this signature
        if prim.name == "matmul" and not params:
            scaled = self._diagonal_matmul(args, refs, out)
            if scaled is not None:
                return scaled
        if prim.name == "reduce_sum" and refs[0] in self.diagonal:
            diagonal = self._diagonal_sum(refs[0], out, params)
            if diagonal is not None:
                return diagonal
        chained = self.chain.get(refs[0]) if prim.name in ("transpose", "reshape") else None
        if chained is not None and chained[0] != prim.name:
            chained = None  # a transpose of a reshape (or the reverse): no folding
        if chained is not None:
            # transpose(transpose(x)) / reshape(reshape(x)): one op from x, or x itself
            inner, inner_axes = chained[1], chained[2]
            if out.shape == inner.val.shape and (
                prim.name == "reshape" or _compose(inner_axes, params["axes"]) == _ident(out)
            ):
                return TraceTracer(self, inner.val, inner.ref)  # a new object, as above
            if prim.name == "transpose":
                params = {"axes": _compose(inner_axes, params["axes"])}
            refs, consts = [inner.ref], (None,)
        o = self.new_input(out)
        aval = (out.shape, out.dtype)
        recorded = prim if self.inside is None else self._inside(prim)
        consts = self._kept(consts) if has_const else consts
        self.program.append(Eqn(recorded, xp, tuple(refs), consts, params, o.ref, aval))
        if prim.name in ("transpose", "reshape") and refs[0] is not None:
            source = chained[1] if chained is not None else args[0]
            self.chain[o.ref] = (prim.name, source, params.get("axes"))
        if prim.name == "multiply" and out.ndim == 2 and out.shape[0] == out.shape[1]:
            for i in (0, 1):  # identity * v: the diagonal matrix diag(v)
                v, c = args[1 - i], vals[i]
                if refs[i] is None and refs[1 - i] is not None and _is_identity(c, out):
                    if v.val.shape in ((out.shape[0],), (1, out.shape[0]), (out.shape[0], 1)):
                        self.diagonal[o.ref] = v
        return o

    # -- structured control flow (NOTE [control flow under jit]) -------------------------

    def _own(self, leaf: Any) -> bool:
        if type(leaf) is TraceTracer and leaf._interp is self:
            return True
        if isinstance(leaf, Tracer):
            raise NotStructurable  # a value of another transform
        return False

    def _capture(
        self, fn: Callable, values: list, quiet: bool = True
    ) -> tuple[list, list, Any, dict]:
        """Run ``fn(inputs)`` on fresh slots holding ``values``, recording into a list of
        its own: ``(eqns, input tracers, fn's output, slot -> value read)``.  ``quiet``:
        the recording runs again (a loop) or is not taken (a branch), so effects wait.

        NOTE [value reads during a capture]: every sub-program the recorder keeps (a loop
        body, a ``while_loop`` predicate, each ``cond``/``switch`` branch, and whatever is
        captured later) is recorded here, once, and replayed for inputs it was not
        recorded with.  So a read of a traced value while ``fn`` runs (``bool``/``int``/
        ``float``/``__index__``/``__array__`` of a recorded value, ``fnp.peek``, a random
        draw, a closure over an enclosing transform's tracer: everything that reaches
        :meth:`note_value_read`) would freeze the value of this one recording into every
        replay.  Instead it raises :class:`ValueReadInCapture` at the read and marks this
        capture (the innermost), which is then refused even if ``fn`` caught the signal:
        nothing recorded in it is used, and the operator that asked for it runs eagerly
        (``ftransforms.control``'s ``except NotStructurable``), where the same read marks
        the whole trace value-dependent (NOTE [value-dependent traces]) unless the eager
        path makes it a plain Python value (``fori_loop``'s index is an ``int`` eagerly).
        The read does not mark the trace itself: the eager rerun decides.  A capture added
        later inherits this by going through this method; it costs one list append per
        capture and nothing per recorded operation.
        """
        undo: list = []
        try:
            for _ in range(_MAX_REBINDS):
                read: list = [None, None]
                try:
                    return self._capture_once(fn, values, read, quiet)
                except NotStructurable:
                    # R[t] of a closed-over array: NOTE [constant subscripts in a capture]
                    sub = read[1]
                    if sub is None or not rebind(fn, sub, ConstantTracer(self, sub.value), undo):
                        raise
            raise NotStructurable
        finally:
            undo_all(undo)

    def _capture_once(self, fn: Callable, values: list, read: list, quiet: bool) -> tuple:
        saved_program, saved_seen, saved_quiet = self.program, self.seen, self.quiet
        self.program, self.seen = [], {}
        self.quiet = quiet or saved_quiet
        self.captures.append(read)
        try:
            ins = [self.new_input(v) for v in values]
            try:
                out = fn(ins)
            except NotStructurable:
                raise
            except Exception as err:  # the eager path reruns it (and raises it if it must)
                raise NotStructurable from err
            if read[0] is not None:  # fn caught the signal of its read and went on
                raise ValueReadInCapture(read[0])
            return self.program, ins, out, self.seen
        finally:
            self.captures.pop()
            if saved_seen is not None:
                saved_seen.update(self.seen)
            self.program, self.seen, self.quiet = saved_program, saved_seen, saved_quiet

    def _outputs(self, leaves: list) -> tuple[list, list]:
        refs, consts = [], []
        for leaf in leaves:
            if self._own(leaf):
                refs.append(leaf.ref)
                consts.append(None)
            else:
                refs.append(None)
                consts.append(leaf)
        return refs, consts

    @staticmethod
    def _free(eqns: list, inputs: list, out_refs: list) -> set:
        produced = set(inputs)
        used = set()
        for eqn in eqns:
            used.update(r for r in eqn.refs if r is not None and r not in produced)
            produced.update(eqn.out if type(eqn.out) is tuple else (eqn.out,))
        used.update(r for r in out_refs if r is not None and r not in produced)
        return used

    def _carry_values(self, bottoms: list, xp: Any) -> list:
        """Each bottom carry leaf as an array (a constant too: it changes from step to step)."""
        vals = []
        for b in bottoms:
            if type(b) is TraceTracer:
                vals.append(b.val)
            elif is_array(b):
                vals.append(b)
            elif isinstance(b, (bool, int, float, complex, numpy.generic)):
                vals.append(xp.asarray(b))
            else:
                raise NotStructurable
        return vals

    def _emit(self, node: ControlNode, xp: Any, args: list, outs: list) -> list:
        """Append the node's equation; returns the tracers of its results."""
        refs = tuple(a.ref if type(a) is TraceTracer else None for a in args)
        consts = tuple(None if type(a) is TraceTracer else a for a in args)
        if self.seen is not None:
            self.seen.update((a.ref, a.val) for a in args if type(a) is TraceTracer)
        results = [self.new_input(o) for o in outs]
        avals = tuple((o.shape, o.dtype) for o in outs)
        out = tuple(r.ref for r in results)
        self.program.append(Eqn(node, xp, refs, consts, {}, out, avals))
        return results

    def _slot_tracers(self, slots: list, seen: dict) -> list:
        return [TraceTracer(self, seen[s], s) for s in slots]

    def _lower_carry(
        self, op: str, check: Any, what: str, carry: Any, new: Any, spec: Any, structs: list
    ) -> list:
        """The bottoms of a loop body's new carry, checked against the carry it got: a
        different structure or dtype is not structurable, different wrapper levels restart
        the recording wider (:class:`CarryStructureChanged`)."""
        try:
            check(op, carry, new, what)
        except ControlFlowError as err:
            raise NotStructurable from err
        new_leaves, new_spec = tree_flatten(new)
        new_structs, new_bottoms = self._lower_all(new_leaves)
        if new_spec != spec:
            raise NotStructurable
        if new_structs != structs:
            raise CarryStructureChanged(new_structs)
        return new_bottoms

    def _lower_all(self, leaves: list) -> tuple[list, list]:
        """Every user-level leaf as its wrapper structure and its bottom leaves."""
        structs, bottoms = [], []
        for leaf in leaves:
            structs.append(_lower(self, leaf, bottoms))
        return structs, bottoms

    def record_branch(
        self, op: str, sel: TraceTracer, branches: list, operands: tuple, check: Callable
    ) -> Any:
        """``cond``/``switch`` with a recorded selector: every branch becomes a sub-program."""
        leaves, spec = tree_flatten(operands)
        structs, bottoms = self._lower_all(leaves)
        traced = [i for i, b in enumerate(bottoms) if type(b) is TraceTracer]
        values = [bottoms[i].val for i in traced]
        boolean = op.startswith("cond")
        taken = int(_host_bool(sel.val)) if boolean else _host_scalar(sel.val)
        recorded = []
        out_struct_box: list = []
        for k, fun in enumerate(branches):

            def call(ins: list, fun: Callable = fun) -> Any:
                bs = list(bottoms)
                for i, t in zip(traced, ins):
                    bs[i] = t
                out = fun(*tree_unflatten(spec, _raise_all(structs, bs)))
                out_struct_box.append(out)
                o_leaves, o_spec = tree_flatten(out)
                o_structs, o_bottoms = self._lower_all(o_leaves)
                return (o_spec, o_structs, o_bottoms)

            if k == taken:
                recorded.append(self._capture(call, values, quiet=False))
            else:
                recorded.append(self._quiet_capture(call, values))
        check(op, out_struct_box)
        out_spec, out_structs, _ = recorded[0][2]
        if any(r[2][0] != out_spec or r[2][1] != out_structs for r in recorded):
            raise NotStructurable  # e.g. one branch batched, the other not
        out_bottoms = [r[2][2] for r in recorded]
        if not out_bottoms[0]:
            raise NotStructurable
        # the array type of each output: a branch's Python-scalar output takes the others'
        ref_avals = []
        for j in range(len(out_bottoms[0])):
            arrays = [ob[j] for ob in out_bottoms if hasattr(ob[j], "dtype")]
            if not arrays:
                raise NotStructurable
            ref_avals.append((tuple(arrays[0].shape), numpy.dtype(arrays[0].dtype)))
            if any((tuple(b.shape), numpy.dtype(b.dtype)) != ref_avals[-1] for b in arrays):
                raise NotStructurable
        xp = namespace_of(*values, *[_value(b) for ob in out_bottoms for b in ob])
        free: set = set()
        per_branch = []
        for (eqns, ins, _, seen), o_bottoms in zip(recorded, out_bottoms):
            refs, consts = self._outputs(o_bottoms)
            consts = [
                c if c is None or hasattr(c, "dtype") else xp.asarray(c, dtype=av[1])
                for c, av in zip(consts, ref_avals)
            ]
            in_slots = [t.ref for t in ins]
            free |= self._free(eqns, in_slots, refs)
            per_branch.append((eqns, in_slots, refs, consts, seen))
        free_slots = sorted(free)
        fns = []
        free_vals: dict = {}
        for branch in per_branch:
            free_vals.update(branch[4])
        in_avals = _avals(values + [free_vals[s] for s in free_slots])
        for eqns, in_slots, refs, consts, _ in per_branch:
            fns.append(compile_subprogram(eqns, in_slots + free_slots, refs, consts, in_avals))
        names = [f"branch {k}" for k in range(len(fns))]

        def impl(xp: Any, sel: Any, *args: Any) -> tuple:
            i = int(_host_bool(sel)) if boolean else _host_scalar(sel)
            return tuple(node.subprograms[names[i]](*args))  # NOTE [compiled tier]

        name = "cond" if boolean else f"switch[{len(branches)}]"
        node = ControlNode(name, impl, {f"branch {k}": fn for k, fn in enumerate(fns)})
        out_vals = [
            _value(b) if hasattr(b, "dtype") else xp.asarray(b, dtype=av[1])
            for b, av in zip(out_bottoms[taken], ref_avals)
        ]
        args = [sel] + [bottoms[i] for i in traced]
        args += self._slot_tracers(free_slots, free_vals)
        results = self._emit(node, xp, args, out_vals)
        return tree_unflatten(out_spec, _raise_all(out_structs, results))

    def record_while(
        self, op: str, cond_fun: Callable, body_fun: Callable, init: Any, check: Callable
    ) -> Any:
        """``while_loop`` with a recorded predicate: predicate and body as sub-programs."""
        leaves, spec = tree_flatten(init)
        structs, bottoms = self._lower_all(leaves)
        if not bottoms:
            raise NotStructurable
        xp = namespace_of(*[_value(b) for b in bottoms])
        values = self._carry_values(bottoms, xp)

        def pred_of(ins: list) -> list:
            p = cond_fun(tree_unflatten(spec, _raise_all(structs, ins)))
            p_struct, p_bottoms = self._lower_all([p])
            if p_struct != [_LEAF]:
                raise NotStructurable  # a predicate that is not one bottom-level value
            return p_bottoms

        def body_of(ins: list) -> list:
            carry = tree_unflatten(spec, _raise_all(structs, ins))
            new = body_fun(carry)
            return self._lower_carry(op, check, "body_fun's output", carry, new, spec, structs)

        c_eqns, c_ins, c_out, c_seen = self._capture(pred_of, values)
        b_eqns, b_ins, b_out, b_seen = self._quiet_capture(body_of, values)
        _same_avals(b_out, values)
        c_refs, c_consts = self._outputs(c_out)
        b_refs, b_consts = self._outputs(b_out)
        c_slots, b_slots = [t.ref for t in c_ins], [t.ref for t in b_ins]
        free_slots = sorted(
            self._free(c_eqns, c_slots, c_refs) | self._free(b_eqns, b_slots, b_refs)
        )
        seen = {**c_seen, **b_seen}
        in_avals = _avals(values + [seen[s] for s in free_slots])
        pred_fn = compile_subprogram(c_eqns, c_slots + free_slots, c_refs, c_consts, in_avals)
        body_fn = compile_subprogram(b_eqns, b_slots + free_slots, b_refs, b_consts, in_avals)
        n = len(values)

        def impl(xp: Any, *args: Any) -> tuple:
            carry = list(args[:n])
            free = args[n:]
            pred_fn, body_fn = node.subprograms["cond"], node.subprograms["body"]
            while _host_bool(pred_fn(*carry, *free)[0]):
                carry = body_fn(*carry, *free)
            return tuple(carry)

        node = ControlNode("while_loop", impl, {"cond": pred_fn, "body": body_fn})
        outs = impl(xp, *values, *[seen[s] for s in free_slots])
        args = [b if type(b) is TraceTracer else v for b, v in zip(bottoms, values)]
        args += self._slot_tracers(free_slots, seen)
        results = self._emit(node, xp, args, list(outs))
        return tree_unflatten(spec, _raise_all(structs, results))

    def record_loop(
        self,
        op: str,
        step: Callable,
        init: Any,
        indices: range,
        check: Callable,
        name: str,
        xs: list | None = None,
        keep: list | None = None,
        used: list | None = None,
        rows: list | None = None,
        run: bool = True,
    ) -> Any:
        """``scan``/``fori_loop``: ``carry, y = step(carry, i)`` for ``i`` in ``indices``
        recorded once (``i`` a recorded 0-d integer) and replayed per index; the ``y`` of
        index ``i`` is stored at ``ys[i - min(indices)]``.  Returns ``(carry, ys)``.

        With ``xs`` (values stacked along their leading axis, one row per index, in the
        order of ``ys``) the step is ``step(carry, i, rows)``: each replayed step gets
        its rows as views of the physical arrays (no recorded indexing), and ``used``
        (a list) gets one bool per value of ``xs``: whether the step reads it.
        ``keep`` (one entry per leaf of ``y``, read at every replay) says which outputs
        are stored: ``True`` as arrays, a ``RowReaders`` (for loops that read them by rows)
        after the recording call as a ``RowList`` of the steps' arrays, without a copy;
        ``False`` not at all (zeros, a read-only broadcast).  (``loop_capture.py``.)

        With ``run=False`` the loop is captured and not run: the result is a
        ``LoopCapture``, whose ``emit`` runs and records it, on this carry and ``xs``
        or on others of the same types; ``rows`` (one row of each value of ``xs``, standing
        for stacked values given to ``emit`` later) may then replace ``xs``.
        """
        from ftransforms.interpreters.loop_capture import (  # late import: it imports tracing
            LoopCapture,
        )

        capture = LoopCapture(self, op, step, init, indices, check, name, xs, rows)
        if used is not None:
            used.extend(capture.used)
        if not run:
            return capture
        return capture.emit(keep)

    def _diagonal_sum(self, ref: int, out: Any, params: dict) -> Any:
        """``sum(diag(v), axis=0 or 1)`` is ``v``: jacfwd/hessian multiply the identity
        basis into an elementwise tangent and a reduction then sums it (the same caveat
        as :meth:`_diagonal_matmul` for inf and nan: ``0 * inf`` is nan)."""
        v = self.diagonal[ref]
        if params["keepdims"] or len(params["axis"]) != 1 or out.ndim != 1:
            return None
        if v.val.dtype != out.dtype or v.val.size != out.size:
            return None
        if v.val.shape == out.shape:
            return v
        return self.process(REGISTRY["reshape"], (v,), {"shape": out.shape})

    def _diagonal_matmul(self, args: tuple, refs: list, out: Any) -> Any:
        """``I @ x`` and ``x @ I`` are ``x``; ``diag(v) @ w`` is ``v[:, None] * w`` and
        ``w @ diag(v)`` is ``w * v``: jacrev/jacfwd/hessian multiply the identity basis
        into the first linear layer, an n^3 product for n^2 work.  (The results are the
        same numbers, except where ``w`` holds inf or nan: a product with the identity
        turns those into nan along the row, the rewrite does not.)"""
        a, b = args
        if out.ndim != 2 or a.ndim != 2 or b.ndim != 2:
            return None
        for i, other in ((0, b), (1, a)):
            if refs[i] is None and refs[1 - i] is not None and _is_identity(args[i], out):
                if _same_aval(other.val, out):
                    return other  # I @ x = x @ I = x
        multiply = REGISTRY["multiply"]
        reshape = REGISTRY["reshape"]
        for i in (0, 1):
            v = self.diagonal.get(refs[i]) if refs[i] is not None else None
            if v is None:
                continue
            n = out.shape[0] if i == 0 else out.shape[1]
            shape = (n, 1) if i == 0 else (n,)
            d = v if v.val.shape == shape else self.process(reshape, (v,), {"shape": shape})
            other = args[1 - i]
            pair = (d, other) if i == 0 else (other, d)
            result = self.process(multiply, pair, {})
            if _same_aval(getattr(result, "val", result), out):
                return result
        return None


#: The primitives :meth:`TraceInterpreter.process` simplifies while recording (see the
#: peephole section below); every other one is recorded as it comes.
_PEEPHOLE = frozenset(
    {"getitem", "power", "multiply", "divide", "matmul", "reduce_sum", "transpose", "reshape"}
)

#: Those of them simplified only with a constant operand (``x * 1``, ``x ** 0``, ``I * v``).
_CONSTANT_PEEPHOLE = frozenset({"power", "multiply", "divide"})

#: Python scalars: no array namespace of their own.
_PYTHON_SCALARS = frozenset({int, float, complex, bool})

#: ``Eqn``'s constructor without the Python frame of the named tuple's ``__new__``.
_new_eqn = tuple.__new__


def _of(a: numpy.ndarray, ids: frozenset) -> bool:
    """Whether ``a`` or an array it is a NumPy view of has its id in ``ids``."""
    while ids:
        if id(a) in ids:
            return True
        a = a.base
        if type(a) is not numpy.ndarray:
            return False
    return False


#: Subscripts of closed-over arrays one capture may rebind before it gives up.
_MAX_REBINDS = 8

#: The structure of a bottom-level leaf (a recorded value or a constant).
_LEAF = ("leaf",)


def _lower(rec: TraceInterpreter, x: Any, bottoms: list) -> tuple:
    """The wrapper structure of a user-level value over the recorder (batch axes, tangents),
    appending its bottom-level leaves to ``bottoms``; ``NotStructurable`` for a tape."""
    t = type(x)
    if t is TraceTracer:
        if x._interp is not rec:
            raise NotStructurable
        bottoms.append(x)
        return _LEAF
    if t is BatchTracer:
        return ("batch", x._interp, x.bdim, _lower(rec, x.val, bottoms))
    if t is ConstantTracer:
        bottoms.append(x.val)
        return _LEAF
    if t is DualTracer:
        return ("dual", x._interp, _lower(rec, x.primal, bottoms), _lower(rec, x.tangent, bottoms))
    if isinstance(x, Tracer):
        raise NotStructurable
    bottoms.append(x)
    return _LEAF


def _raise(struct: tuple, bottoms: Any) -> Any:
    if struct is _LEAF or struct == _LEAF:
        return next(bottoms)
    if struct[0] == "batch":
        return BatchTracer(struct[1], _raise(struct[3], bottoms), struct[2])
    primal = _raise(struct[2], bottoms)
    return DualTracer(struct[1], primal, _raise(struct[3], bottoms))


def _raise_all(structs: list, bottoms: list) -> list:
    it = iter(bottoms)
    return [_raise(s, it) for s in structs]


def _stacked(struct: tuple) -> tuple:
    """The structure of values stacked along a new leading (logical) axis."""
    if struct == _LEAF:
        return struct
    if struct[0] == "batch":
        return ("batch", struct[1], struct[2] + 1, _stacked(struct[3]))
    return ("dual", struct[1], _stacked(struct[2]), _stacked(struct[3]))


def _value(b: Any) -> Any:
    return b.val if type(b) is TraceTracer else b


def _avals(values: list) -> list:
    """``(shape, dtype)`` of a sub-program's inputs (for the compiled tier)."""
    return [(tuple(v.shape), v.dtype) if hasattr(v, "dtype") else None for v in values]


def _same_avals(new: list, old: list) -> None:
    """A step must keep every bottom array's shape and dtype (see the NOTE)."""
    for n, o in zip(new, old):
        n = _value(n)
        if not hasattr(n, "dtype") or (tuple(n.shape), n.dtype) != (tuple(o.shape), o.dtype):
            raise NotStructurable


def _host_bool(x: Any) -> bool:
    """A 0-d predicate on the host: ``bool`` for NumPy, the explicit ``.get()`` otherwise."""
    if isinstance(x, (bool, numpy.ndarray, numpy.generic)):
        return bool(x)
    get = getattr(x, "get", None)
    return bool(get()) if callable(get) else bool(x)


def _host_scalar(x: Any) -> int:
    if isinstance(x, (int, numpy.ndarray, numpy.generic)):
        return int(x)
    get = getattr(x, "get", None)
    return int(get()) if callable(get) else int(x)


def _is_one(c: Any) -> bool:
    if isinstance(c, (int, float)) and not isinstance(c, bool):
        return c == 1
    if isinstance(c, numpy.ndarray | numpy.generic) and c.dtype.kind in "iufc" and c.size:
        return bool(numpy.all(c == 1))
    return False


# -- peephole simplifications made while recording ----------------------------------------
#
# The recorder sees every concrete value, so it can tell when an op returns one of its
# traced operands unchanged (``x * 1`` from reverse mode's all-ones seeds, ``x ** 1``, a
# full slice from jacrev's chunking) or a constant (``x ** 0``): nothing is recorded and
# the operand (or the constant) stands for the result.  Chains of transposes or reshapes
# are folded into one op from the chain's source.


def _same_aval(x: Any, out: Any) -> bool:
    return getattr(x, "shape", None) == out.shape and getattr(x, "dtype", None) == out.dtype


def _ident(x: Any) -> tuple:
    return tuple(range(len(x.shape)))


def _compose(inner: tuple, outer: tuple) -> tuple:
    """Axes of ``transpose(transpose(x, inner), outer)`` as one transpose of ``x``."""
    return tuple(inner[a] for a in outer)


def _full_slices(index: Any, ndim: int) -> bool:
    return (
        isinstance(index, tuple)
        and len(index) <= ndim
        and all(type(i) is slice and i.step in (None, 1) for i in index)
    )


def _is_identity(c: Any, out: Any) -> bool:
    """``c`` is a constant identity matrix of ``out``'s size (jacrev/jacfwd's basis)."""
    if getattr(c, "ndim", 0) != 2 or c.shape != (out.shape[0],) * 2 or c.dtype.kind not in "fc":
        return False
    n = c.shape[0]
    if n == 0 or c[0, 0] != 1 or (n > 1 and c[0, 1] != 0):  # most fail here, at no cost
        return False
    if namespace_of(c) is not numpy:
        # one host copy, on the recording call only: on CuPy, count_nonzero and all() are
        # reductions that compile a kernel per shape, 1-2 s each on a fresh machine
        # (jit(hessian) D=64: 3.9 of its 5.3 s first call, H200, 2026-11-27)
        c = c.get()
    # n ones on the diagonal and n nonzeros in all: no n x n temporary
    return bool((numpy.diagonal(c) == 1).all()) and int(numpy.count_nonzero(c)) == n


def _constant_result(prim: Any, vals: list, refs: list, params: dict) -> bool:
    """``x ** 0``: ones of ``x``'s shape whatever ``x`` holds (NumPy: nan ** 0 == 1)."""
    return (
        prim.name == "power"
        and refs[1] is None
        and isinstance(vals[1], (int, float))
        and not isinstance(vals[1], bool)
        and vals[1] == 0
    )


def _identity_operand(prim: Any, vals: list, refs: list, out: Any, params: dict) -> int | None:
    """The index of the traced operand that ``out`` equals exactly (see above), or None."""
    name = prim.name
    if name == "getitem" and refs[0] is not None and len(vals) == 1:
        x = vals[0]
        if _same_aval(x, out) and _full_slices(params["index"], x.ndim):
            return 0  # a slice of every axis with step 1 and the same length: all of it
        return None
    if name == "power" and refs[0] is not None and refs[1] is None:
        if isinstance(vals[1], int | float) and vals[1] == 1 and _same_aval(vals[0], out):
            return 0
        return None
    if name not in ("multiply", "divide") or len(vals) != 2:
        return None
    for i, j in ((0, 1), (1, 0)):
        if prim.name == "divide" and i == 1:
            break
        if refs[i] is None or refs[j] is not None or not _is_one(vals[j]):
            continue
        if _same_aval(vals[i], out):
            return i
    return None
