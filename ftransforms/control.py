"""Structured control flow: ``cond``, ``switch``, ``while_loop``, ``fori_loop``, ``scan``.

The signatures and semantics are ``jax.lax``'s: operands, carries and outputs are pytrees;
a loop's carry keeps its structure, shapes and dtypes; the branches of ``cond``/``switch``
return the same structure; ``switch`` clamps its index into range; ``scan`` stacks its
per-step outputs along a new leading axis (``reverse=True`` walks ``xs`` from the end but
still stores ``ys[t]`` for ``xs[t]``).

How each transform sees them:

* **No transform, ``grad``/``vjp``/``jvp``/``jacrev``/``jacfwd``/``hessian``**: the
  predicate has one concrete value (derivative levels carry a value), so they run as the
  Python ``if``/``while``/``for`` they describe.  The eager tape records the path actually
  taken, so reverse mode works through a ``while_loop`` whose trip count depends on the
  data (which ``jax.lax.while_loop`` cannot differentiate), and higher orders nest.  Only
  the branch taken runs, except once per set of branches for the output check (NOTE
  [eager branch check]).  A loop's carry is checked at every step it takes.  When a loop
  ends, its tape segment is rewritten so that the cotangents of values made before the
  loop and used at every step (closed-over weights, the rows of ``xs``) are summed with
  one contraction after the backward walk instead of step by step (NOTE [hoisted loop
  cotangents] in ``ftransforms/loop_cotangents.py``).
* **vmap, predicate not batched**: one branch / an ordinary loop, operands stay batched.
* **vmap, predicate batched**: see NOTE [batched cond] and NOTE [batched while_loop].
  The predicate is never converted to a host boolean: only the 0-d "some row still runs"
  flag of a batched ``while_loop`` is, and on a device backend through ``.get()``.
* **jit**: see NOTE [control flow under jit] in ``ftransforms/interpreters/tracing.py``.

What the peers do differently (for the README's table):

* JAX traces ``lax`` control flow once and compiles it; reverse mode through
  ``while_loop`` is refused (forward mode only), here it works.  Under ``vmap`` a batched
  predicate runs both branches and selects, as here, but nothing keeps an untaken
  branch's nan out of the gradient; here operands are masked.  JAX checks a loop body's
  carry at trace time even when the loop runs zero times; eagerly it is checked on the
  steps taken.
* torch.func has no structured control flow of its own: Python ``if``/``while`` on a
  batched tensor raises under ``vmap``; ``torch.cond``/``while_loop`` are higher-order
  ops aimed at ``torch.compile``/export, with narrower transform support (no reverse
  mode through ``while_loop``).
* ``jit`` here records ``cond``/``while_loop``/``scan`` as structured nodes replayed
  with the real predicate, without a compiler.

NOTE [batched cond]: with a predicate (index) that differs across the ``vmap`` batch,
``cond``/``switch`` run every branch on all rows and keep each row's own result with
``where`` (JAX's choice too).  The alternative, gathering each branch's rows, running the
branch on that sub-batch and scattering back, was measured with
``python -m benchmarks.batched_cond`` (B=4096 rows of 16 float64, half taking each
branch, best of 7, on the shared 2-core machine under load): branches a 3-layer tanh MLP
(width 256) and a rational function: select 94 ms, gather 56 ms; MLP and -MLP: 222 ms vs
117 ms; elementwise sqrt and negate: 0.23 ms vs 0.25 ms.  Gathering saves the work of the
untaken branch, so it wins by up to 2x when the branches are expensive; it ties on cheap
ones.  It is still not what ``cond`` does, because it cannot be done in general: a branch
may close over values batched at the same level (``lambda v: v @ w`` with ``w`` a
per-row weight), whose rows a gather of the operands would not select, and closures
cannot be seen; under inner transforms (``vmap(grad(...))``) the rows are inside tracers
of a higher level; the sub-batch sizes are data, so it needs a device-to-host copy of the
predicate (a synchronising copy on a GPU, every call) and would give ``jit`` recordings
whose shapes depend on the data.  Select is one ``where`` per output leaf, is right at
every nesting, and records as straight-line code.  When the branches are expensive and
the operands are all it reads, gather the rows yourself (as the benchmark does).

The untaken branch also runs on rows where it may produce inf or nan (``sqrt`` of a
negative, ``log`` of 0).  The selected forward values are right, but reverse mode would
multiply the zero cotangent of those rows by an infinite local derivative and leak nan
into the gradient.  So each branch receives its differentiable operands as
``where(taken, x, stop_gradient(x))``: the transpose of that ``where`` sends exactly zero
(not ``0 * nan``) to the rows where the branch is not taken.  This covers operands; a
value the branch closes over is not masked (pass it as an operand when that matters).
Floating-point warnings are off while the branches run forward (the untaken rows are
expected to raise them); the backward pass of those rows may still warn.  Each branch gets
copies of the operand objects (NOTE [mutation semantics]); an operand a branch wrote into
becomes ``where(taken, written, operand)``, so only its own rows see the write; an array
from outside the branch (a closure) that it wrote into gets its value back after the
branch and then the same ``where`` (``watch_writes`` in ``core/mutation.py``).  A branch
that no row takes and whose code may have effects (NOTE [eager branch check]) does not run.

NOTE [batched while_loop]: with a predicate that differs across the batch the loop runs
while any row's predicate holds; each step computes the body on every row and keeps the
old carry (``where``) on rows whose predicate is already false, so finished rows are
frozen (JAX's semantics).  Only ``any(predicate)`` over the physical batch axes comes
back to the host, once per step.  The body's writes into arrays from outside it reach the
rows still running only, as do its in-place writes into the carry it got while that carry
is still the loop's initial array (the Python loop's aliasing: ``c *= 2; return c``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms import loop_cotangents, loop_vjp
from ftransforms.backend import namespace_of
from ftransforms.core.errors import (
    BranchesError,
    BranchOutputError,
    CarryError,
    ControlFlowError,
    PredicateError,
    ScanLengthError,
)
from ftransforms.core.mutation import (
    Buffer,
    TrialWrite,
    assign,
    clone,
    payload,
    restore,
    trial_run,
    watch_writes,
)
from ftransforms.core.stack import current_stack
from ftransforms.core.tracer import Tracer
from ftransforms.effect_scan import may_have_effects
from ftransforms.interpreters.batching import BatchInterpreter, BatchTracer
from ftransforms.interpreters.forward import DualTracer, ForwardInterpreter
from ftransforms.interpreters.loop_capture import _without_axis
from ftransforms.interpreters.reverse import ReverseTracer
from ftransforms.interpreters.tracing import (
    _LEAF,
    CarryStructureChanged,
    NotStructurable,
    TraceInterpreter,
    TraceTracer,
    _stacked,
)
from ftransforms.numpy.helpers import array_like
from ftransforms.program import effects_muted
from ftransforms.pytree import tree_flatten, tree_map, tree_unflatten
from ftransforms.shape_eval import ShapeTracer

__all__ = ["cond", "fori_loop", "scan", "switch", "while_loop"]


# -- looking at values ----------------------------------------------------------------------


def _strip_derivatives(x: Any) -> Any:
    """``x`` without its derivative levels (dual and tape tracers)."""
    while True:
        t = type(x)
        if t is DualTracer:
            x = x.primal
        elif t is ReverseTracer:
            x = x.value
        else:
            return x


def _is_batched(x: Any) -> bool:
    return type(_strip_derivatives(x)) is BatchTracer


def has_derivative(x: Any) -> bool:
    """Whether ``x`` carries a derivative (a jvp tangent or a place on a grad tape) at
    some level, looking through the levels that wrap a value (vmap, jit, buffers)."""
    while isinstance(x, Tracer):
        if type(x) in (DualTracer, ReverseTracer):
            return True
        x = getattr(x, "val", None)
    return False


def _bottom(x: Any) -> Any:
    """The backend array (or the jit recorder's tracer) under every transform level."""
    while True:
        t = type(x)
        if t is BatchTracer:
            x = x.val
        elif t is DualTracer:
            x = x.primal
        elif t is ReverseTracer:
            x = x.value
        else:
            return x


def host_bool(x: Any) -> bool:
    """A concrete 0-d value as a Python bool; device arrays go through ``.get()``.

    Example:
        >>> import numpy as np
        >>> host_bool(np.array(True))
        True
    """
    if isinstance(x, (bool, int, numpy.ndarray, numpy.generic)):
        return bool(x)
    get = getattr(x, "get", None)
    return bool(get()) if callable(get) else bool(x)


def _concrete_bool(pred: Any) -> bool:
    """The truth value of an unbatched predicate (a jit recording notes the read)."""
    p = _strip_derivatives(pred)
    if isinstance(p, Tracer):
        p = p._concrete()  # TraceTracer: marks the recording as value-dependent
    return host_bool(p)


def _shape(x: Any) -> tuple:
    s = getattr(x, "shape", None)
    return tuple(s) if s is not None else numpy.shape(x)


_WEAK = {bool: "b", int: "i", float: "f", complex: "c"}


def _aval(x: Any) -> tuple:
    """``(shape, dtype)``, where a Python scalar's dtype is its kind ("weak", as in JAX)."""
    kind = _WEAK.get(type(x))
    if kind is not None:
        return ((), "weak " + kind)
    return (_shape(x), numpy.dtype(x.dtype) if hasattr(x, "dtype") else numpy.asarray(x).dtype)


#: Python scalars promote upwards through these kinds (JAX's weak-type lattice, coarsely).
_KIND_RANK = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}


def _promote_weak_init(init: Any, trial: Callable[[Any], Any]) -> Any:
    """A carry that starts as a Python number takes the type the body gives it, as in JAX.

    ``fori_loop(0, 3, lambda i, c: c + 0.5, 0)`` is ``1.5``, and ``scan`` from ``0.0`` over
    float32 ``xs`` carries float32.  Only leaves that are Python scalars are promoted, only
    upwards (bool < int < float < complex), and only when the body, run once on ``init``
    (``trial``), returns a scalar of a kind at least as high; every other mismatch is left
    to the loop's own carry check, which names it.  Costs one extra body call, and only
    when ``init`` holds a Python scalar.
    """
    leaves, spec = tree_flatten(init)
    if not any(type(leaf) in _WEAK for leaf in leaves) or may_have_effects(trial):
        return init  # a body with effects is not run twice (NOTE [eager branch check])
    try:
        with effects_muted(), trial_run():  # a trial run: ft.debug callbacks stay quiet
            new_leaves, new_spec = tree_flatten(trial(_trial_operands(init)))
    except Exception:  # noqa: BLE001 - the loop runs the body again and reports the error
        return init
    if new_spec != spec:
        return init
    promoted = []
    for old, new in zip(leaves, new_leaves):
        kind = _WEAK.get(type(old))
        if kind is not None:
            new_kind = _WEAK.get(type(new))
            if new_kind is not None:
                if _KIND_RANK[new_kind] > _KIND_RANK[kind]:
                    old = type(new)(old)
            elif _shape(new) == () and hasattr(new, "dtype"):
                dtype = numpy.dtype(new.dtype)
                if _KIND_RANK.get(dtype.kind, -1) >= _KIND_RANK[kind]:
                    old = namespace_of(_bottom(new)).asarray(old, dtype=dtype)
        promoted.append(old)
    return tree_unflatten(spec, promoted)


def _compatible(a: tuple, b: tuple) -> bool:
    if a[0] != b[0]:
        return False
    da, db = a[1], b[1]
    if isinstance(da, str) or isinstance(db, str):
        ka = da[-1] if isinstance(da, str) else da.kind
        kb = db[-1] if isinstance(db, str) else db.kind
        groups = ("b", "iu", "f", "c")
        return any(ka in g and kb in g for g in groups)
    return da == db


def _describe(spec: Any, leaves: list) -> str:
    avals = []
    for leaf in leaves:
        shape, dtype = _aval(leaf)
        avals.append(f"{dtype}{list(shape)}")
    return f"{spec} with leaves ({', '.join(avals)})"


def _same_leaf(x: Any, y: Any) -> bool:
    """Same shape and dtype (the fast common case of :func:`_compatible`)."""
    try:
        return x.shape == y.shape and x.dtype == y.dtype
    except AttributeError:
        return _compatible(_aval(x), _aval(y))


def _check_same(op: str, what_a: str, a: Any, what_b: str, b: Any, err: type, fix: str) -> None:
    la, sa = tree_flatten(a)
    lb, sb = tree_flatten(b)
    ok = sa == sb and all(
        _same_leaf(x, y) or _compatible(_aval(x), _aval(y)) for x, y in zip(la, lb)
    )
    if not ok:
        raise err(
            f"{op}: {what_a} and {what_b} must have the same structure, shapes and dtypes, "
            f"but {what_a} is {_describe(sa, la)} and {what_b} is {_describe(sb, lb)}.  {fix}"
        )


_KIND_WORDS = {
    "biuf": "a boolean or number",
    "iub": "an integer",
    "b": "a boolean",
    "iu": "an integer",
    "iuf": "an integer or float",
}


def _check_pred(op: str, pred: Any, kinds: str, what: str) -> Any:
    shape = _shape(pred)
    if isinstance(pred, (bool, int, numpy.bool_, numpy.integer)):
        return pred
    dtype = getattr(pred, "dtype", None)
    if dtype is None:
        if isinstance(pred, float) and "f" in kinds:
            return pred
        raise PredicateError(
            f"{op}: the {what} must be a boolean or integer scalar, got {type(pred).__name__}; "
            f"compute it with a comparison such as x > 0."
        )
    if shape != () or numpy.dtype(dtype).kind not in kinds:
        raise PredicateError(
            f"{op}: the {what} must be {_KIND_WORDS[kinds]} scalar (shape ()), got "
            f"{numpy.dtype(dtype)}{list(shape)}; reduce it to one value (e.g. fnp.all(x > 0)) "
            f"or, for an elementwise choice, use fnp.where(condition, a, b)."
        )
    return pred


def _as_bool(pred: Any) -> Any:
    if isinstance(pred, (bool, numpy.bool_)):
        return bool(pred)
    if getattr(pred, "dtype", None) is not None and numpy.dtype(pred.dtype).kind == "b":
        return pred
    if isinstance(pred, (int, float, numpy.number)):
        return bool(pred)
    return fnp.not_equal(pred, 0)


def _recorder() -> TraceInterpreter | None:
    """The jit recorder, when only ``vmap``/``jvp`` levels are above it (their tracers are
    plain data over recorded values; a tape is not): structured recording."""
    stack = current_stack()
    if not stack or type(stack[0]) is not TraceInterpreter:
        return None
    for interp in stack[1:]:
        if type(interp) not in (BatchInterpreter, ForwardInterpreter):
            return None
    return stack[0]


def _arrays(tree: Any) -> Any:
    """Python-scalar leaves as 0-d arrays: what comes out of control flow is arrays, as in
    JAX (a loop started from ``0.0`` returns an array)."""
    leaves, spec = tree_flatten(tree)
    if not any(_is_scalar(x) for x in leaves):
        return tree
    return tree_unflatten(spec, [numpy.asarray(x) if _is_scalar(x) else x for x in leaves])


def _is_scalar(x: Any) -> bool:
    return type(x) in _WEAK or isinstance(x, numpy.generic)


def _select(pred: Any, a: list, b: list) -> list:
    return [fnp.where(pred, x, y) for x, y in zip(a, b)]


def _masked(leaves: list, taken: Any) -> list:
    """Differentiable operands as ``where(taken, x, stop_gradient(x))`` (NOTE [batched cond])."""
    out = []
    for x in leaves:
        if has_derivative(x) and numpy.dtype(x.dtype).kind in "fc":
            x = fnp.where(taken, x, fnp.stop_gradient(x))
        out.append(x)
    return out


def _promote(x: Any, target: tuple) -> Any:
    """``x`` given the wrapper structure ``target``: batched (broadcast along the batch
    axis) at the ``vmap`` levels it lacks, a zero tangent at the ``jvp`` levels it lacks.
    Used when a loop's body returns a carry batched (or differentiated) where the initial
    carry was not, so that one recorded body fits every step."""
    if target == _LEAF:
        if isinstance(x, Tracer) and type(x) is not TraceTracer:
            raise NotStructurable
        return x
    interp = target[1]
    t = type(x)
    if t in (BatchTracer, DualTracer) and x._interp is not interp:
        if x._interp.level > interp.level:
            raise NotStructurable  # x has a level the target lacks
    if target[0] == "batch":
        if t is BatchTracer and x._interp is interp:
            if x.bdim != target[2]:
                raise NotStructurable
            return BatchTracer(interp, _promote(x.val, target[3]), x.bdim)
        v = _promote(x, target[3])
        if not hasattr(v, "shape"):
            v = fnp.asarray(v)
        b = target[2]
        shape = tuple(v.shape)
        full = shape[:b] + (interp.axis_size,) + shape[b:]
        return BatchTracer(interp, fnp.broadcast_to(fnp.expand_dims(v, b), full), b)
    if t is DualTracer and x._interp is interp:
        return DualTracer(interp, _promote(x.primal, target[2]), _promote(x.tangent, target[3]))
    primal = _promote(x, target[2])
    return DualTracer(interp, primal, _promote(fnp.zeros_like(x), target[3]))


def _structured(record: Callable, init: Any) -> Any:
    """``record(init)``, once more with the carry widened if its first step widened it."""
    try:
        try:
            return record(init)
        except CarryStructureChanged as changed:
            leaves, spec = tree_flatten(init)
            if len(leaves) != len(changed.structs):
                raise NotStructurable from None
            wide = [_promote(x, st) for x, st in zip(leaves, changed.structs)]
            return record(tree_unflatten(spec, wide))
    except NotStructurable:
        raise
    except Exception as err:
        # The recorded loop raised while it ran the real steps (``inv`` of a singular
        # matrix at a step whose ``try`` in the body would catch it: the recorded body has
        # no ``try``): the loop runs step by step instead, where the body's own code runs
        # (and an error it does not catch is raised as without ``jit``).
        raise NotStructurable from err


# -- cond / switch --------------------------------------------------------------------------


_NO_OPERAND = object()


def cond(
    pred: Any, true_fun: Callable, false_fun: Callable, *operands: Any, operand: Any = _NO_OPERAND
) -> Any:
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``, under every transform.

    ``pred`` is a boolean (or number) scalar; under ``vmap`` it may differ per row, and
    each row then gets the result of its own branch (NOTE [batched cond]).  JAX's older
    keyword form ``cond(pred, true_fun, false_fun, operand=x)`` passes one operand.

    Example:
        >>> import numpy as np
        >>> from ftransforms import vmap
        >>> f = lambda x: cond(x > 0, np.sqrt, lambda v: -v, x)
        >>> vmap(f)(np.array([4.0, -2.0])).tolist()
        [2.0, 2.0]
    """
    op = "cond(pred, true_fun, false_fun, *operands)"
    _check_callables(op, true_fun=true_fun, false_fun=false_fun)
    if operand is not _NO_OPERAND:
        if operands:
            raise TypeError(
                f"{op}: got both positional operands and operand=; pass the operands "
                f"positionally only"
            )
        operands = (operand,)
    pred = _as_bool(_check_pred(op, pred, "biuf", "predicate"))
    return _arrays(_branch(op, pred, [false_fun, true_fun], operands, "boolean"))


def switch(index: Any, branches: Sequence[Callable], *operands: Any) -> Any:
    """``branches[index](*operands)``, ``index`` clamped into ``[0, len(branches) - 1]``.

    Example:
        >>> import numpy as np
        >>> from ftransforms import vmap
        >>> fs = [lambda x: x, lambda x: 2 * x, lambda x: 3 * x]
        >>> vmap(lambda i, x: switch(i, fs, x))(np.array([0, 2, 7]), np.ones(3)).tolist()
        [1.0, 3.0, 3.0]
    """
    op = "switch(index, branches, *operands)"
    branches = list(branches)
    if not branches or not all(callable(b) for b in branches):
        raise BranchesError(
            f"{op}: branches must be a non-empty sequence of callables, got "
            f"{[type(b).__name__ for b in branches]}; pass e.g. [lambda x: x, lambda x: -x]"
        )
    index = _check_pred(op, index, "iub", "index")
    n = len(branches)
    if isinstance(index, (bool, int, numpy.integer, numpy.bool_)):
        return _arrays(_run_one(op, branches, min(max(int(index), 0), n - 1), operands))
    if n == 1:
        return _arrays(branches[0](*operands))
    if numpy.dtype(index.dtype).kind == "b":
        index = fnp.astype(index, numpy.int64)
    index = fnp.clip(index, 0, n - 1)
    return _arrays(_branch(op, index, branches, operands, "integer"))


def _branch(op: str, sel: Any, branches: list, operands: tuple, kind: str) -> Any:
    """Run ``branches[sel](*operands)`` for a selector that is a bool or an integer."""
    if isinstance(sel, bool):
        return _run_one(op, branches, int(sel), operands)
    if _is_batched(sel):
        return _batched_branch(op, sel, branches, operands, kind)
    rec = _recorder()
    if rec is not None and type(sel) is TraceTracer and not _untaken_effects(branches, sel, kind):
        try:
            return rec.record_branch(op, sel, branches, operands, _check_branches)
        except NotStructurable:
            pass
    s = _strip_derivatives(sel)
    if type(s) is ShapeTracer:  # under eval_shape: every branch, checked, as JAX traces them
        outs = [fun(*operands) for fun in branches]
        _check_branches(op, outs)
        return outs[-1]
    if isinstance(s, Tracer):
        s = s._concrete()
    if kind == "boolean":
        return _run_one(op, branches, int(host_bool(s)), operands)
    get = getattr(s, "get", None)
    i = int(get()) if callable(get) and not isinstance(s, numpy.ndarray) else int(s)
    return _run_one(op, branches, i, operands)


def _untaken_effects(branches: list, sel: TraceTracer, kind: str) -> bool:
    """Whether a branch not taken may have effects: ``jit``'s recording would run it (to
    record it) where the Python ``if`` does not, so the call runs eagerly instead (NOTE
    [eager branch check]).  Likewise a loop body with effects is not recorded once for
    all its steps (``_structurable``)."""
    taken = int(host_bool(sel.val)) if kind == "boolean" else _int(sel.val)
    taken = min(max(taken, 0), len(branches) - 1)
    return any(may_have_effects(b) for k, b in enumerate(branches) if k != taken)


def _structurable(*funs: Callable) -> bool:
    """A loop whose functions have no effects: ``jit`` may record its body once (run once)
    for all its steps, where the Python loop runs it per step."""
    return not any(may_have_effects(f) for f in funs)


#: Branch sets (code objects and operand types) whose outputs were found to agree.
_CHECKED: set = set()


def _run_one(op: str, branches: list, taken: int, operands: tuple) -> Any:
    """``branches[taken](*operands)``, eagerly.

    NOTE [eager branch check]: JAX checks at trace time that all branches return the same
    structure, shapes and dtypes.  Eagerly only the branch taken needs to run, so the
    others run once per set of branch functions (keyed by their code) and operand types,
    on the same operands with floating-point warnings off, to make the same check; later
    calls run the branch taken alone.  A branch that raises in that trial run is not
    checked (its error belongs to the calls that take it); nor is one that writes into a
    traced array (the trial stops at the write) or into an operand (it gets copies of the
    NumPy arrays), so that an untaken branch changes nothing.  A branch whose code may
    change anything else (a NumPy array it closes over, a list, a random generator: see
    ``ftransforms/effect_scan.py``) is not run at all; nor, by the same rule, is a loop
    body run on trial (a loop run zero times, a Python-number carry's promotion).
    """
    out = branches[taken](*operands)
    if len(branches) > 1:
        try:
            key = _branch_key(op, branches, operands)
        except TypeError:  # an unhashable code or operand: no cache, no trial run
            return out
        if key not in _CHECKED:
            if any(may_have_effects(f) for k, f in enumerate(branches) if k != taken):
                return out  # its trial run could change what the program sees
            outs = []
            for k, fun in enumerate(branches):
                if k == taken:
                    outs.append(out)
                    continue
                try:  # a trial run: warnings off, ft.debug callbacks quiet, no writes
                    with numpy.errstate(all="ignore"), effects_muted(), trial_run():
                        outs.append(fun(*_trial_operands(operands)))
                except TrialWrite:  # a branch that writes is not checked (NOTE above)
                    _CHECKED.add(key)
                    return out
                except Exception:  # noqa: BLE001 - see the NOTE: not this call's error
                    return out
            _check_branches(op, outs)
            if len(_CHECKED) > 4096:
                _CHECKED.clear()
            _CHECKED.add(key)
    return out


def _trial_operands(operands: tuple) -> tuple:
    """Copies of the plain NumPy arrays among ``operands`` (a trial run that writes into
    them must leave the caller's arrays as they are; a write into a tracer stops it)."""
    leaves, spec = tree_flatten(operands)
    if not any(type(x) is numpy.ndarray for x in leaves):
        return operands
    return tree_unflatten(spec, [x.copy() if type(x) is numpy.ndarray else x for x in leaves])


def _branch_key(op: str, branches: list, operands: tuple) -> tuple:
    leaves, spec = tree_flatten(operands)
    codes = tuple(getattr(b, "__code__", b) for b in branches)
    return (op, codes, spec, tuple((type(x), _aval(x)) for x in leaves))


def _check_branches(op: str, outs: list) -> None:
    is_cond = op.startswith("cond")
    for i in range(1, len(outs)):
        _check_same(
            op,
            "true_fun's output" if is_cond else "branch 0's output",
            outs[1] if is_cond else outs[0],
            "false_fun's output" if is_cond else f"branch {i}'s output",
            outs[0] if is_cond else outs[i],
            BranchOutputError,
            "Make every branch return the same pytree of arrays with the same shapes and "
            "dtypes (cast with .astype, broadcast with fnp.broadcast_to).",
        )


def _batched_branch(op: str, sel: Any, branches: list, operands: tuple, kind: str) -> Any:
    leaves, spec = tree_flatten(operands)
    with numpy.errstate(all="ignore"):  # each branch also runs on the rows it does not take
        outs, takens = _run_all(sel, branches, leaves, spec, kind)
    if all(o is not None for o in outs):
        _check_branches(op, outs)
    ran = [i for i, o in enumerate(outs) if o is not None]  # a branch no row takes may not
    out_leaves = [tree_flatten(o)[0] if o is not None else None for o in outs]
    out_spec = tree_flatten(outs[ran[0]])[1]
    if kind == "boolean" and len(ran) == 2:
        result = _select(sel, out_leaves[1], out_leaves[0])
    else:
        result = out_leaves[ran[-1]]
        for i in reversed(ran[:-1]):
            result = _select(takens[i], out_leaves[i], result)
    return tree_unflatten(out_spec, result)


def _run_all(sel: Any, branches: list, leaves: list, spec: Any, kind: str) -> tuple:
    outs, takens, writes = [], [], []
    for i, fun in enumerate(branches):
        if kind == "boolean":
            taken = sel if i == 1 else fnp.logical_not(sel)
        else:
            taken = fnp.equal(sel, i)
        takens.append(taken)
        if may_have_effects(fun) and not bool(fnp.peek(taken).any()):
            outs.append(None)  # no row takes it: it must not run (NOTE [eager branch check])
            continue
        # each branch gets objects of its own, so that a write into an operand reaches
        # only the rows that take that branch (merged below)
        pre = _masked(leaves, taken)
        given = [clone(x) if isinstance(x, Tracer) else x for x in pre]
        with watch_writes() as log:
            outs.append(fun(*tree_unflatten(spec, given)))
        for k, (p, g) in enumerate(zip(pre, given)):
            if isinstance(leaves[k], Tracer) and _moved(g, p):
                writes.append((leaves[k], taken, g))
        writes += _outside_writes(log, given, taken)
    for x, taken, g in writes:
        assign(x, fnp.astype(fnp.where(taken, g, x), x.dtype))
    return outs, takens


def _outside_writes(log: dict, given: list, rows: Any) -> list:
    """The writes a branch or loop body run on all rows made into arrays from outside it
    (``log`` of :class:`watch_writes`): each array gets its value back, and the caller
    writes ``where(rows, new, old)`` into it."""
    if not log:
        return []
    own = {id(g) for g in given}
    out = []
    for obj, before in log.values():
        if id(obj) not in own:
            out.append((obj, rows, clone(obj)))
            restore(obj, before)
    return out


def _moved(given: Tracer, before: Tracer) -> bool:
    """Whether a write turned ``given`` (a copy of ``before``) into another value."""
    return type(given) is not type(before) or any(
        getattr(given, n, None) is not getattr(before, n, None) for n in payload(type(given))
    )


# -- loops -------------------------------------------------------------------------------


_CARRY_FIX = (
    "The carry must keep its pytree structure, shapes and dtypes from one step to the next: "
    "cast with .astype(init.dtype), and start from arrays of the final shape (e.g. "
    "fnp.zeros(n) rather than 0.0)."
)


def while_loop(cond_fun: Callable, body_fun: Callable, init_val: Any) -> Any:
    """``val = init_val; while cond_fun(val): val = body_fun(val); return val``.

    Under ``vmap`` with a per-row predicate, rows that finish are frozen while the others
    go on (NOTE [batched while_loop]).  Reverse mode differentiates through the steps
    actually taken, whatever their number.

    Example:
        >>> import numpy as np
        >>> from ftransforms import grad
        >>> def sqrt_newton(a):
        ...     step = lambda x: 0.5 * (x + a / x)
        ...     return while_loop(lambda x: np.abs(x * x - a) > 1e-12, step, a)
        >>> round(float(sqrt_newton(2.0)), 12), round(float(grad(sqrt_newton)(4.0)), 6)
        (1.414213562373, 0.25)
    """
    op = "while_loop(cond_fun, body_fun, init_val)"
    _check_callables(op, cond_fun=cond_fun, body_fun=body_fun)
    init_val = _promote_weak_init(init_val, body_fun)
    pred = _loop_pred(op, cond_fun, init_val)
    if type(_strip_derivatives(pred)) is ShapeTracer:  # eval_shape: the carry's types
        _check_carry(op, init_val, body_fun(init_val))
        return _arrays(init_val)
    if _is_batched(pred):
        return _arrays(_batched_while(op, cond_fun, body_fun, init_val, pred))
    return _arrays(_while(op, cond_fun, body_fun, init_val, pred))


def _check_callables(op: str, **functions: Any) -> None:
    """A ControlFlowError naming each of ``functions`` that is not callable."""
    for name, fn in functions.items():
        if not callable(fn):
            raise ControlFlowError(
                f"{op}: {name} must be callable, got {type(fn).__name__}; pass a function "
                f"(a lambda) of the operands"
            )


def _loop_pred(op: str, cond_fun: Callable, val: Any) -> Any:
    return _as_bool(_check_pred(op, cond_fun(val), "b", "value of cond_fun"))


_YS_FIX = "f must return ys of one structure, shape and dtype at every step."


def _object_arrays_traced(fn: Callable) -> Callable:
    """``fn`` with each NumPy object array of tracers in its output made one traced array,
    for the structured recordings under ``jit`` (run once; the eager loops convert on a
    failing check, :func:`_check_carry`)."""

    def wrapped(*args: Any) -> Any:
        return tree_map(_traced_if_object, fn(*args))

    return wrapped


def _traced_if_object(v: Any) -> Any:
    return array_like(v) if type(v) is numpy.ndarray and v.dtype.kind == "O" else v


def _check_carry(op: str, old: Any, new: Any, what: str = "body_fun's output") -> Any:
    """``new``, checked against the carry ``old``; a NumPy object array of tracers in it
    (``np.array([c0 + 1, c1 * a])`` in a body) is made one traced array, as
    ``jnp.array`` makes one in JAX (only on the failing check: nothing on the common path)."""
    try:
        _check_same(op, "the carry", old, what, new, CarryError, _CARRY_FIX)
    except CarryError:
        fixed = tree_map(array_like, new)
        _check_same(op, "the carry", old, what, fixed, CarryError, _CARRY_FIX)
        return fixed
    return new


def _while(op: str, cond_fun: Callable, body_fun: Callable, val: Any, pred: Any) -> Any:
    rec = _recorder()
    if rec is not None and type(pred) is TraceTracer and _structurable(cond_fun, body_fun):
        try:
            return _structured(
                lambda v: rec.record_while(
                    op, cond_fun, _object_arrays_traced(body_fun), v, _check_carry
                ),
                val,
            )
        except NotStructurable:
            pass
    marks = loop_cotangents.begin()
    val = _while_steps(op, cond_fun, body_fun, val, pred)
    loop_cotangents.end(marks)  # NOTE [hoisted loop cotangents]
    return val


def _while_steps(op: str, cond_fun: Callable, body_fun: Callable, val: Any, pred: Any) -> Any:
    first = True
    while True:
        if _is_batched(pred):
            return _batched_while(op, cond_fun, body_fun, val, pred)
        if not _concrete_bool(pred):
            if first:
                _trial_body(op, body_fun, val)
            return val
        first = False
        new = body_fun(val)
        new = _check_carry(op, val, new)
        val = new
        pred = _loop_pred(op, cond_fun, val)


def _trial_body(op: str, body_fun: Callable, val: Any) -> None:
    """A loop that ran zero times: check its body's carry once, as JAX does at trace time
    (NOTE [eager branch check]; a body that raises on this carry is not checked)."""
    try:
        leaves, spec = tree_flatten(val)
        key = (op, getattr(body_fun, "__code__", body_fun), spec, tuple(map(_aval, leaves)))
        if key in _CHECKED or may_have_effects(body_fun):
            return
    except TypeError:
        return
    try:  # on copies, writes into tracers stopped: the body changes nothing
        with numpy.errstate(all="ignore"), effects_muted(), trial_run():
            new = body_fun(_trial_operands(val))
    except Exception:  # noqa: BLE001 - not this call's error
        return
    _check_carry(op, val, new)
    _CHECKED.add(key)


def _batched_while(op: str, cond_fun: Callable, body_fun: Callable, val: Any, pred: Any) -> Any:
    leaves, spec = tree_flatten(val)
    # In one row's Python loop the body's first carry *is* the array the loop started
    # from, and stays it while the body returns the object it got (``c *= 2; return c``):
    # its in-place writes reach that array.  Here the body gets copies, so each write is
    # passed on to the rows still running, as long as that chain of objects holds.
    chain = [x if isinstance(x, Tracer) else None for x in leaves]
    # where(p, x, x): every carry leaf batched from the start, so the carry's form is fixed
    state = (tree_unflatten(spec, _select(pred, leaves, leaves)), pred)

    def any_row(state: Any) -> Any:
        return fnp.any(_bottom(state[1]))

    def step(state: Any) -> Any:
        val, p = state
        # frozen rows: no derivative through the body there (NOTE [batched cond]'s nan)
        leaves, spec = tree_flatten(val)
        # the body gets objects of its own: a write into the carry in place must not reach
        # the old carry that the finished rows keep
        pre = _masked(leaves, p)
        given = [clone(x) if isinstance(x, Tracer) else x for x in pre]
        # the body also runs on the finished rows: no warnings, and its writes into arrays
        # from outside it reach only the rows still running
        with numpy.errstate(all="ignore"), watch_writes() as log:
            new = body_fun(tree_unflatten(spec, given))
        writes = _outside_writes(log, given, p)
        new = _check_carry(op, val, new)
        new_leaves, new_spec = tree_flatten(new)
        for k, x in enumerate(chain):
            if x is not None:
                if _moved(given[k], pre[k]):
                    writes.append((x, p, given[k]))
                if k >= len(new_leaves) or new_leaves[k] is not given[k]:
                    chain[k] = None
        for x, rows, g in writes:
            assign(x, fnp.astype(fnp.where(rows, g, x), x.dtype))
        kept = tree_unflatten(new_spec, _select(p, new_leaves, tree_flatten(val)[0]))
        return (kept, _loop_pred(op, cond_fun, kept))

    step.effects_of = (cond_fun, body_fun)  # type: ignore[attr-defined]
    return _while(op, any_row, step, state, any_row(state))[0]


def fori_loop(
    lower: Any, upper: Any, body_fun: Callable, init_val: Any, *, unroll: int | bool | None = None
) -> Any:
    """``val = init_val; for i in range(lower, upper): val = body_fun(i, val)``.

    With concrete bounds this is a ``scan`` over ``i`` (``jit`` records the body once);
    with traced bounds a ``while_loop``.  ``unroll`` is accepted for JAX compatibility (the
    loop runs eagerly; the result is the same).

    Example:
        >>> import numpy as np
        >>> float(fori_loop(0, 4, lambda i, x: x * 2.0, np.float64(1.0)))
        16.0
    """
    op = "fori_loop(lower, upper, body_fun, init_val)"
    _check_callables(op, body_fun=body_fun)
    for name, b in (("lower", lower), ("upper", upper)):
        _check_pred(op, b, "iuf", f"bound {name}")
    _check_bound_types(op, lower, upper)
    if not isinstance(lower, Tracer) and not isinstance(upper, Tracer):
        lo, hi = _int(lower), _int(upper)
        init_val = _promote_weak_init(init_val, lambda v: body_fun(lo, v))
        rec = _recorder()
        if rec is not None and hi > lo and _structurable(body_fun):
            try:
                step = _object_arrays_traced(lambda val, i: (body_fun(i, val), None))
                steps = range(lo, hi)
                return _arrays(
                    _structured(
                        lambda v: rec.record_loop(op, step, v, steps, _check_carry, "fori_loop"),
                        init_val,
                    )[0]
                )
            except NotStructurable:
                pass
        target = loop_vjp.reverse_level() if rec is None and hi > lo else None
        if target is not None and _structurable(body_fun):
            try:  # NOTE [loops under a reverse level in jit]
                return _arrays(
                    loop_vjp.record(
                        target[0],
                        target[1],
                        "fori_loop",
                        lambda val, i, _: (body_fun(i, val), None),
                        init_val,
                        [],
                        None,
                        range(lo, hi),
                        _loop_recorder(target[0], op, "fori_loop"),
                    )[0]
                )
            except Exception:  # noqa: BLE001 - NotStructurable, or an error of a step: as
                pass  # in _structured, the steps run one by one
        marks = loop_cotangents.begin()
        val = init_val
        for i in range(lo, hi):
            new = body_fun(i, val)
            new = _check_carry(op, val, new)
            val = new
        loop_cotangents.end(marks)  # NOTE [hoisted loop cotangents]
        return _arrays(val)

    def keep_going(state: Any) -> Any:
        return state[0] < state[1]

    def step(state: Any) -> Any:
        i, hi, val = state
        return (i + 1, hi, body_fun(i, val))

    return while_loop(keep_going, step, (lower, upper, init_val))[2]


class _loop_recorder:  # noqa: N801 - used as a function: loop(step, init, indices, ...)
    """``loop(step, init, indices, xs, keep, used, rows, run)``: a loop recorded by ``rec``
    (its carry widened as needed; see ``TraceInterpreter.record_loop``); ``loop.emit``
    records a captured loop on a carry and ``xs`` widened to the captured types."""

    def __init__(self, rec: TraceInterpreter, op: str, name: str) -> None:
        self.rec, self.op, self.name = rec, op, name

    def __call__(
        self,
        step: Callable,
        init: Any,
        indices: range,
        xs: Any = None,
        keep: Any = None,
        used: Any = None,
        rows: Any = None,
        run: bool = True,
    ) -> Any:
        def record(v: Any) -> Any:
            if used is not None:
                used.clear()
            return self.rec.record_loop(
                self.op, step, v, indices, _check_carry, self.name, xs, keep, used, rows, run
            )

        return _structured(record, init)

    def emit(self, capture: Any, keep: Any, init: Any, xs: list) -> tuple:
        leaves, spec = tree_flatten(init)
        if len(leaves) != len(capture.structs) or len(xs) != len(capture.row_structs):
            raise NotStructurable
        rec = self.rec

        def fit(x: Any, struct: tuple, stacked: bool) -> Any:
            got = rec._lower_all([x])[0][0]
            if (_without_axis(got, 0)[0] if stacked else got) == struct:
                return x  # the same wrappers (a stacked value's rows in any layout)
            return _promote(x, _stacked(struct) if stacked else struct)

        try:
            init = tree_unflatten(
                spec, [fit(x, st, False) for x, st in zip(leaves, capture.structs)]
            )
            xs = [fit(x, st, True) for x, st in zip(xs, capture.row_structs)]
        except NotStructurable:
            raise
        except Exception as err:
            raise NotStructurable from err
        return capture.emit(keep, init, xs)


def _is_float_bound(b: Any) -> bool:
    """Whether a (checked) ``fori_loop`` bound is a float: a Python float or a float array."""
    return isinstance(b, float) or (
        getattr(b, "dtype", None) is not None and numpy.dtype(b.dtype).kind == "f"
    )


def _check_bound_types(op: str, lower: Any, upper: Any) -> None:
    """Float bounds are accepted as in JAX (concrete ones truncated by ``int``, traced ones
    counting in floats), but only both at once: JAX refuses an int and a float bound."""
    if _is_float_bound(lower) != _is_float_bound(upper):
        kinds = ["float" if _is_float_bound(b) else "integer" for b in (lower, upper)]
        raise TypeError(
            f"{op}: lower and upper must have equal types, got {kinds[0]} and {kinds[1]} "
            f"(as in JAX); give both as integers, e.g. int(upper)."
        )


def _int(x: Any) -> int:
    get = getattr(x, "get", None)
    if callable(get) and not isinstance(x, numpy.ndarray):
        x = get()
    return int(x)


def scan(
    f: Callable,
    init: Any,
    xs: Any = None,
    length: int | None = None,
    reverse: bool = False,
    unroll: int | bool = 1,
) -> tuple[Any, Any]:
    """``carry, y = f(carry, x)`` for each ``x`` along the leading axis of ``xs``; returns
    the final carry and the ``y``'s stacked along a new leading axis.

    ``xs`` may be ``None`` with ``length``; ``reverse=True`` walks from the end (``ys[t]``
    still belongs to ``xs[t]``); ``unroll`` is accepted for JAX compatibility (the result
    does not depend on it).

    Under ``grad``/``vjp`` the gradient of a weight ``f`` closes over (``W @ h``) and of
    ``xs`` is formed once after the backward pass from every step's factors, not summed
    step by step (NOTE [hoisted loop cotangents] in ``ftransforms/loop_cotangents.py``):
    the backward pass then holds about ``length`` times one step's output cotangent (at
    most ``loop_cotangents.HOIST["chunk_bytes"]`` per weight; longer loops are done in
    chunks of steps).  Under ``jit(grad(...))`` the loop is recorded as a forward and a
    backward loop, each body once (NOTE [loops under a reverse level in jit] in
    ``ftransforms/loop_vjp.py``).

    Example:
        >>> import numpy as np
        >>> carry, ys = scan(lambda c, x: (c + x, c * x), 0.0, np.arange(1.0, 4.0))
        >>> float(carry), ys.tolist()
        (6.0, [0.0, 2.0, 9.0])
    """
    op = "scan(f, init, xs, length=None, reverse=False, unroll=1)"
    _check_callables(op, f=f)
    x_leaves, x_spec = tree_flatten(xs)
    lengths = {_shape(x)[0] if _shape(x) else None for x in x_leaves}
    if None in lengths:
        raise ScanLengthError(f"{op}: every leaf of xs needs a leading axis to scan over")
    if length is not None:
        length = _int(length)
        if length < 0:
            raise ScanLengthError(f"{op}: length must be a non-negative int, got {length}")
        lengths.add(length)
    if len(lengths) > 1:
        raise ScanLengthError(
            f"{op}: the leaves of xs (and length=) must agree on the scanned length, got "
            f"{sorted(lengths)}; slice them to one length."
        )
    if not lengths:
        raise ScanLengthError(f"{op}: xs is None (or empty), so give length=")
    n = lengths.pop()
    if n > 0:
        first = n - 1 if reverse else 0
        # the trial step gets a copy of a NumPy x (a view of xs: its writes would reach xs)
        x_first = _trial_operands(tree_unflatten(x_spec, [leaf[first] for leaf in x_leaves]))
        init = _promote_weak_init(init, lambda c: _pair(op, f(c, x_first))[0])
    rec = _recorder()
    if rec is not None and n > 0 and _structurable(f):

        @_object_arrays_traced
        def step(carry: Any, t: Any, rows: list) -> Any:
            return f(carry, tree_unflatten(x_spec, rows))

        steps = range(n - 1, -1, -1) if reverse else range(n)
        xs_values = [x.val if type(x) is Buffer else x for x in x_leaves]
        try:  # each step's rows of xs: views of the stacked arrays (no recorded indexing)
            carry, ys = _structured(
                lambda v: rec.record_loop(op, step, v, steps, _check_carry, "scan", xs_values),
                init,
            )
            return _arrays(carry), ys
        except NotStructurable:
            pass
    target = loop_vjp.reverse_level() if rec is None and n > 0 else None
    if target is not None and _structurable(f):
        try:  # NOTE [loops under a reverse level in jit]
            steps = range(n - 1, -1, -1) if reverse else range(n)
            carry, ys = loop_vjp.record(
                target[0],
                target[1],
                "scan",
                lambda c, i, x: f(c, x),
                init,
                x_leaves,
                x_spec,
                steps,
                _loop_recorder(target[0], op, "scan"),
            )
            return _arrays(carry), ys
        except Exception:  # noqa: BLE001 - NotStructurable, or an error of a step: as in
            pass  # _structured, the steps run one by one
    marks = loop_cotangents.begin()
    carry = init
    ys: list = [None] * n
    steps = range(n - 1, -1, -1) if reverse else range(n)
    y_spec = None
    for t in steps:
        x = tree_unflatten(x_spec, [leaf[t] for leaf in x_leaves])
        new, y = _pair(op, f(carry, x))
        new = _check_carry(op, carry, new, "f's new carry")
        carry = new
        leaves, spec = tree_flatten(y)
        if y_spec is None:
            y_spec, y_first = spec, y
        else:
            try:
                _check_same(op, "the first y", y_first, "a later y", y, CarryError, _YS_FIX)
            except CarryError:  # np.array([...]) of tracers: one traced array (_check_carry)
                y_first, y = tree_map(array_like, y_first), tree_map(array_like, y)
                _check_same(op, "the first y", y_first, "a later y", y, CarryError, _YS_FIX)
                leaves = tree_flatten(y)[0]
        ys[t] = _snapshot(leaves, carry)
    loop_cotangents.end(marks)  # NOTE [hoisted loop cotangents]
    if n == 0:
        x = tree_unflatten(x_spec, [fnp.zeros(_shape(leaf)[1:], leaf.dtype) for leaf in x_leaves])
        _, y = f(init, x)
        leaves, y_spec = tree_flatten(y)
        stacked = [fnp.zeros((0,) + _aval(v)[0], _np_dtype(v)) for v in leaves]
        return _arrays(carry), tree_unflatten(y_spec, stacked)
    stacked = [_stack([ys[t][k] for t in range(n)]) for k in range(len(ys[0]))]
    return _arrays(carry), tree_unflatten(y_spec, stacked)


def _snapshot(leaves: list, carry: Any) -> list:
    """A step's ``y`` as it is now: a later step that writes into the carry in place
    (``c += x; return c, c``) must not change it.  Tracers are cloned (a clone is no view:
    writes into the carry leave it); a NumPy array is copied when it shares memory with
    the carry."""
    carry_arrays = None
    out = []
    for v in leaves:
        if isinstance(v, Tracer):
            v = clone(v)
        elif type(v) is numpy.ndarray:
            if carry_arrays is None:
                carry_arrays = [c for c in tree_flatten(carry)[0] if type(c) is numpy.ndarray]
            if any(numpy.may_share_memory(v, c) for c in carry_arrays):
                v = v.copy()
        out.append(v)
    return out


def _pair(op: str, out: Any) -> tuple:
    if not isinstance(out, tuple) or len(out) != 2:
        raise CarryError(f"{op}: f must return a pair (carry, y), got {type(out).__name__}")
    return out


def _stack(values: list) -> Any:
    """``fnp.stack``, straight to the backend when no value is a tracer (nor a NumPy
    object array of tracers: ``np.array([...])`` in a scan body's ys)."""
    if any(
        isinstance(v, Tracer) or (type(v) is numpy.ndarray and v.dtype.kind == "O") for v in values
    ):
        return fnp.stack(values)
    return namespace_of(*values).stack(values)


def _np_dtype(v: Any) -> Any:
    return numpy.dtype(v.dtype) if hasattr(v, "dtype") else numpy.asarray(v).dtype
