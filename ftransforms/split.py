"""Splitting a vmap batch where its rows take different Python paths.

NOTE [splitting the batch]
--------------------------
``vmap(f)(xs)`` means ``np.stack([f(x) for x in xs])``.  One batched run of ``f`` gives
that as long as ``f`` never turns a batched value into a Python value.  Where it does
(``bool()`` for ``if``/``while``/``and``/comparisons in ``max()``; ``int()``, ``float()``,
``complex()``, ``.item()``, ``.tolist()``, ``operator.index`` for ``range(n)`` and slice
bounds; the counts behind boolean masks, ``nonzero``, ``unique``, ``compress``...), every
such read goes through ``BatchTracer._concrete`` (interpreters/batching.py).  There:

- all rows hold the same value (bit for bit): it is returned and the run goes on, as it
  always did.  A batch whose rows agree costs nothing more, and gives the same bits.
- the rows disagree: it raises ``BatchSplit``, a ``BaseException`` (a user's ``except
  Exception`` must not swallow it) that carries the owning ``BatchInterpreter`` and the
  concrete per-row values.  It unwinds every transform inside the vmap (each pops its
  interpreter in ``finally``), and the vmap call that pushed that interpreter catches it
  (:func:`split_batch` below; any other vmap re-raises it: nested vmaps split only their
  own axis).  A bare ``except:`` (or ``except BaseException``, ``contextlib.suppress``)
  would swallow it and a ``finally`` that raises would replace it, so the interpreter
  keeps the first signal (``pending``): every later read raises it again (the run must not
  go on with every row in the ``except`` branch, a masked loop around it never ending),
  and the vmap call acts on it when the function returns or raises anyway (the run's
  results are dropped).  The rows are grouped by
  their value (first row first), ``f`` runs again, vmapped, on each group's rows, and
  the groups' outputs are put back in row order with ``concatenate`` and a ``take`` by
  the inverse permutation.  Those are ordinary
  differentiable primitives on the values below the vmap, so a ``grad``/``jvp``/``jit``
  outside sees one program, and ``vmap(grad(f))`` splits the same way (``grad``'s tracers
  read their primal values, which are the batched ones).

Within a group the value that split it is uniform, so the re-run passes that point and may
split again further on, one level per disagreeing read.  Each re-run is a fresh vmap
call, so no record of earlier decisions is needed: a read that came before the split
point agreed on the whole batch and so agrees on every group.  A group's run that splits
hands its subgroups back to the split that runs it (``Regroup``; not under
``randomness='same'``, whose groups replay draws level by level), so the Python stack
does not grow with the number of levels.  With k different paths
``f`` runs at most 2k - 1 times (each split abandons one run and starts one per group).
The price is that each group runs its path from the start (docs/guides/control-flow.md
has the measured cost and the ways that stay one batched program).

While loops.  Splitting a ``while`` whose rows need different trip counts would re-run the
common prefix once per distinct count (a Newton solve with 40 distinct counts: 25x the
cost of ``ft.while_loop``).  So where rows disagree at a ``while`` loop's own condition
(``MaskedLoops``: the ``bool()`` comes straight from a conditional jump that ``dis``
shows to be the loop's back-edge, or a jump to the instruction after it), the vmap does
what a batched ``while_loop`` does instead: the rows that leave stay in the batch but are
*masked*.  The loop goes on while any row is active; every later evaluation of its
condition puts the masked rows' state back into the frame's locals (``fnp.where`` per
local that changed, written back as a debugger does) and masks the rows that leave then;
when none is active the loop exits with every row's own final state.  A traced array
written in place keeps its identity, so the arrays the frame reaches (its locals, the
globals its code names, and what lists, dicts and objects among them hold, a few levels
down, ``__slots__`` included) are copied at
each evaluation of the condition, and one written since gets the masked rows' values back
through a write (``where``), which its aliases and views see.  Inside the body a
Python value is read from the active rows only, so masked rows (one step past their state,
discarded) never split anything.  The frame's locals are the loop's whole state only for
plain code, so masking gives up (``SpeculationFailed``: the call runs again, splitting
without masking) when it cannot be sure: a ``break``/``return`` out of the loop (the
frame is found outside the loop's body), a new local, a Python value other than a number
that changed, a list/dict/object attribute mutated in place (``self.trace.append``,
``hist['err'].append``: looked for the same few levels down), an iterator among the
locals, or any exception while rows are masked (it might come from a masked row).  A
callable among the locals (a callback: ``cb=hist.append``, a bound ``log.add``, a closure
over a list or a ``nonlocal`` counter) counts as the state it can change: its closure's
cells (other than the frame's own locals) and the object it is bound to.  A
loop in a generator or coroutine is not masked at all (the batch splits): each ``yield``
hands the masked rows' values, one step past their state, to the consumer.  A
Python number that changes in the loop (a counter) is the same for all active rows; each
row's own is kept, and at the exit, if the rows' numbers differ, the local becomes a
batched array of them.  Where the function looks at its type or identity
(``isinstance(n, int)``, ``type(n) is int``, ``n is m``: read from its code and that of
the functions it hands ``n`` to, globals, closures and nested ``def``s alike; a helper's
``isinstance``, ``n.__class__`` or ``singledispatch`` of it, anywhere outside the
libraries, asks the batched number's ``__class__``, which gives up then;
``np.result_type``/``np.can_cast`` take it as the weak Python number it stands for:
``Tracer._python_kind``), or where
it meets an array of a narrower dtype (float32 and the like: a Python number leaves that
dtype alone, an int64/float64 array would widen it), or where Python's arithmetic on
the rows' numbers is not NumPy's (``7 // n`` or ``1 / t`` of a zero row raises
ZeroDivisionError, ``n ** 20`` outgrows int64, ``t ** 0.5`` of a negative row is complex,
``flag + flag`` of Python bools is an int;
``_python_arithmetic_differs`` in interpreters/batching.py), or where a row's number
outgrew int64 in the loop, masking gives up; a later exception
in that run gives up too, and so does ``repr(n)`` (the loop writes the number's repr;
``str(n)`` and ``f"{n}"`` read the rows, as for any batched value).  Giving up, the run
goes on as a split.  Globals and
the caller's state are not checked: as for ``jax.vmap``, ``f`` is taken to be a function
of its arguments; what it rebinds of its own (``self.t += 1``, a ``nonlocal`` counter) is
rebound back before each rerun (NOTE [the function's own state across a split]).

Library code that reads counts (a boolean mask's, ``nonzero``'s) reads only the count,
so rows with equal counts stay one batched run; code with a batched path of its own
reads under ``refusing_splits()`` and takes that path. Exceptions raised in a group's
run keep their type and get a note naming the group's rows (an argument of the
exception that is a batched value, ``KeyError(x[0])``, becomes the first failing row's
value, as the loop raises it: ``row_arguments``); of several failing groups
the one with the lowest row raises (the loop over rows raises that one). Groups whose
outputs differ in structure or shape raise :class:`~ftransforms.errors.SplitOutputError`
naming both. Each source line that splits warns once
(:class:`~ftransforms.errors.PerformanceWarning`). NumPy's floating-point warnings under
the ``always`` action split the batch as errors of some rows do (NOTE [warnings of some
rows] in row_warnings.py). ``vmap(f, split=False)`` raises ``BatchedControlFlowError``
at the first disagreement, as JAX and torch.func do. Under ``randomness='different'``
every group draws fresh noise for its rows (independent draws, not the numbers an
unsplit run would have drawn); under ``'same'`` the groups replay the first run's draws,
so the whole batch still shares them (``random._DrawLog``: the first run's draws, taken
back in order; past them :func:`~ftransforms.random.same_randomness_across_chunks`, as
for ``chunk_size``).
"""

from __future__ import annotations

import dis
import heapq
import inspect
import io
import itertools
import linecache
import types
import warnings
import weakref
from collections.abc import (
    Callable,
    Iterator,
    Mapping,
    MutableMapping,
    MutableSequence,
    MutableSet,
)
from typing import Any

import numpy

import ftransforms.interpreters.batching as batching
import ftransforms.numpy as fnp
import ftransforms.row_scalars  # noqa: F401  (NOTE [a row's NumPy scalars]: its wrapper)
import ftransforms.row_warnings  # noqa: F401  (NOTE [warnings of some rows]: its wrapper)
import ftransforms.whole_lines  # noqa: F401  (NOTE [a printed line is written whole])
from ftransforms.arguments import out_dims_per_leaf, structure_str
from ftransforms.core.errors import BatchedControlFlowError, PerformanceWarning, SplitOutputError
from ftransforms.core.mutation import assign, clone, payload
from ftransforms.core.private_arrays import write_locals
from ftransforms.core.stack import current_stack
from ftransforms.core.tracer import Tracer
from ftransforms.interpreters.batching import BatchSplit, BatchTracer, SpeculationFailed
from ftransforms.numpy.helpers import dtype_of, to_host, xp_of
from ftransforms.pytree import tree_flatten, tree_unflatten

#: Source lines (file, line) that have warned already: one PerformanceWarning per site.
WARNED_SITES: set[tuple[str, int]] = set()


def group_rows(rows: Any) -> list[numpy.ndarray]:
    """Row indices grouped by equal (bitwise) values, groups ordered by their first row."""
    host = numpy.ascontiguousarray(to_host(rows))
    n = host.shape[0]
    flat = host.reshape(n, -1)
    keys = flat.view(numpy.dtype((numpy.void, flat.dtype.itemsize * flat.shape[1])))[:, 0]
    _, first, inverse = numpy.unique(keys, return_index=True, return_inverse=True)
    order = numpy.argsort(first, kind="stable")
    rank = numpy.empty_like(order)
    rank[order] = numpy.arange(order.size)
    labels = rank[inverse.reshape(-1)]
    return [numpy.flatnonzero(labels == g) for g in range(order.size)]


def _rows_text(ids: numpy.ndarray) -> str:
    shown = ", ".join(str(int(i)) for i in ids[:8])
    return shown + (f", ... ({ids.size} rows)" if ids.size > 8 else "")


# NOTE [the function's own state across a split]: each group of a split runs the function
# again from its start, so a change the first run made to state the function keeps outside
# its arguments (``self.t += 1`` of a layer, ``self.running_mean = ...``, a ``nonlocal``
# counter) would be made once more per group, and a group would compute with the count the
# groups before it left (``x * self.t``: neither the loop over rows nor a single run).
# ``vmap`` runs the function once (jax.vmap, torch.func.vmap), so every run of a split
# starts from the state the call found: :func:`own_state` notes, before the first run, the
# attributes of the object the function is bound to (or that it is: a callable layer), of
# the user's objects its closure holds, its code names as globals or it is passed as is (a
# pytree leaf among its arguments), its closure's cells and those globals' bindings
# (through the closures of transformed functions, to the user's code);
# :func:`restore_own_state` rebinds what a run rebound before the next run.
# Rebinding only: an in-place change (``self.hist.append``, ``self.rm *= 0.9``) is not
# undone.  An iterator among those values (``next(batches)``) cannot be set back, and a
# rerun would read its next items: the split raises BatchedControlFlowError instead
# (:func:`check_rerunnable`).  About a microsecond per vmap call (one shallow copy per object).
def own_state(func: Any, leaves: list = ()) -> list:
    """``(holder, shallow copy)`` of the function's own state (NOTE [the function's own
    state across a split]): ``(cell, contents)`` for its closure's cells, ``(__dict__,
    copy)`` for the objects it is bound to, is, closes over or names as globals, or that
    are among the argument ``leaves``, and
    ``((globals, name), value)`` for the globals it names; through the closures of
    transformed functions (``vmap(grad(layer))``) to the user's function or object."""
    if type(func) is types.FunctionType and func.__closure__ is None:
        # (the commonest case, a function of its arguments and modules: nothing to note)
        glb = func.__globals__
        for name in func.__code__.co_names:
            if not isinstance(glb.get(name, len), _SKIPPED):  # (``len``: absent, skipped)
                break
        else:
            for leaf in leaves:
                if type(leaf) not in _PLAIN:
                    break
            else:
                return []
    out: list = []
    seen: set = set()
    _own_state(func, out, seen, 0)
    for leaf in leaves:  # an object passed as is (a pytree leaf: ``vmap(f)(x, opt)``)
        if type(leaf) not in _PLAIN and not isinstance(leaf, Tracer):
            _value(leaf, out, seen)
    return out


_PLAIN = frozenset({numpy.ndarray, float, int, bool, complex, str, type(None)})


_ABSENT = object()
_SKIPPED = (type, types.ModuleType, types.FunctionType, types.MethodType, types.BuiltinFunctionType)


def _own_state(func: Any, out: list, seen: set, depth: int) -> None:
    if id(func) in seen or depth > 4:
        return
    seen.add(id(func))
    kind = type(func)
    if kind is types.MethodType:
        _object_state(func.__self__, out, seen)
        _own_state(func.__func__, out, seen, depth + 1)
        return
    if kind is not types.FunctionType:
        _object_state(func, out, seen)  # a callable layer: its own attributes
        try:
            call = kind.__call__
        except AttributeError:
            return
        if type(call) is types.FunctionType:  # ... and what its __call__ names
            _own_state(call, out, seen, depth + 1)
        return
    user = not (func.__module__ or "").startswith("ftransforms")
    for cell in func.__closure__ or ():
        try:
            value = cell.cell_contents
        except ValueError:  # not yet bound
            continue
        if user:
            out.append((cell, value))
        if callable(value) and not isinstance(value, type):
            _own_state(value, out, seen, depth + 1)
        elif user:
            _value(value, out, seen)
    if user:  # the globals it names: a counter it rebinds, a layer it calls
        names = func.__globals__
        for name in func.__code__.co_names:
            value = names.get(name, _ABSENT)
            if value is not _ABSENT and not isinstance(value, _SKIPPED):
                out.append(((names, name), value))
                _value(value, out, seen)


def _value(value: Any, out: list, seen: set) -> None:
    if type(value) in _PLAIN:
        return
    if isinstance(value, Iterator) and not isinstance(value, io.IOBase):
        out.append((_ITERATOR, value))
    else:
        _object_state(value, out, seen)


def check_rerunnable(state: list, where: str, site: tuple) -> None:
    """Raise where the function holds an iterator that a rerun of a split would advance
    (NOTE [the function's own state across a split])."""
    for holder, value in state:
        if holder is _ITERATOR:
            raise BatchedControlFlowError(
                f"{where}: the rows of the batch disagree on a Python value at "
                f"{site[0]}:{site[1]}, where the batch would be split and the function run "
                f"again per group of rows, but it reads from an iterator it holds "
                f"({type(value).__name__}), whose items a rerun would not see again.  Take "
                f"the item outside the vmapped function and pass it in, or write the choice "
                f"with fnp.where / ft.cond so that the batch stays one run."
            )


_ITERATOR = object()  # in own_state: an iterator the function holds


def _object_state(obj: Any, out: list, seen: set) -> None:
    attrs = getattr(obj, "__dict__", None)
    if type(attrs) is dict and id(attrs) not in seen and not isinstance(obj, _SKIPPED):
        seen.add(id(attrs))
        out.append((attrs, dict(attrs)))


def restore_own_state(state: list) -> None:
    """Rebind what a run rebound in :func:`own_state`'s holders."""
    for holder, old in state:
        if holder is _ITERATOR:
            continue
        if type(holder) is tuple:  # (a module's globals, a name)
            if holder[0].get(holder[1], _ABSENT) is not old:
                holder[0][holder[1]] = old
            continue
        if type(holder) is types.CellType:
            try:
                if holder.cell_contents is not old:
                    holder.cell_contents = old
            except ValueError:
                holder.cell_contents = old
            continue
        for key in [k for k in holder if k not in old]:
            del holder[key]
        for key, value in old.items():
            if holder.get(key, _ABSENT) is not value:
                holder[key] = value


class Regroup(BaseException):
    """A group's run split again: the :func:`run_groups` that ran the group runs the
    subgroups itself (``groups``: indices into the group's rows), so that splits within
    splits add no recursion (a staircase of 400 one-row splits ran out of stack)."""

    def __init__(self, groups: list) -> None:
        super().__init__("a group split again")
        self.groups = groups


def split_batch(
    signal: BatchSplit,
    rerun: Callable[[list, int, numpy.ndarray], Any],
    leaves: list,
    dims: list,
    row_ids: numpy.ndarray,
    out_dims: Any,
    where: str,
    nested: bool = False,
) -> Any:
    """The outputs of a vmap whose run raised ``signal``: ``rerun(leaves, size, row_ids)``
    on each group of rows, joined back in row order (NOTE [splitting the batch]).
    ``nested``: this run is itself a group of a split, whose :func:`run_groups` runs the
    groups (:class:`Regroup`)."""
    groups = group_rows(signal.rows)
    if len(groups) < 2:  # pragma: no cover  (uniform_row said they differ)
        raise AssertionError(f"{where}: a split with one group")
    site = signal.site
    if site[:2] not in WARNED_SITES:
        WARNED_SITES.add(site[:2])
        line = linecache.getline(site[0], site[1]).strip()
        what = (
            f"the rows of the batch disagree on a Python value at {site[0]}:{site[1]} ({line!r})"
            if signal.reason is None
            else f"{signal.reason} was raised for some rows at {site[0]}:{site[1]} "
            f"({line!r}) (NOTE [errors of some rows])"
        )
        warnings.warn_explicit(
            f"{where}: {what}, so the batch was split into {len(groups)} "
            f"groups and the function runs once per group (a Python loop over the "
            f"groups).  To keep one batched program, write the branch with fnp.where or "
            f"ft.cond, the loop with ft.while_loop; silence this with "
            f"warnings.filterwarnings('ignore', category=ft.errors.PerformanceWarning).",
            PerformanceWarning,
            site[0],
            site[1],
            module=site[2] or None,
        )
    if nested:
        raise Regroup(groups)
    return run_groups(groups, rerun, leaves, dims, row_ids, out_dims, where)


def run_groups(
    groups: list,
    rerun: Callable[[list, int, numpy.ndarray], Any],
    leaves: list,
    dims: list,
    row_ids: numpy.ndarray,
    out_dims: Any,
    where: str,
) -> Any:
    """``rerun(leaves, size, row_ids)`` on each group of rows (arrays of row indices),
    in the order of their first rows (a group that splits again, :class:`Regroup`, gives
    its place to its subgroups), joined back in row order.  Where groups raise, the error
    of the lowest row is raised, as the loop over the rows would: a group whose first row
    comes before the failed row still runs."""
    outs, done = [], []
    failed, first = None, 0  # the exception raised for the lowest row so far, that row
    level = len(current_stack())
    queue = [(int(row_ids[idx[0]]), k, idx) for k, idx in enumerate(groups)]
    heapq.heapify(queue)
    count = len(queue)
    while queue:
        start, _, idx = heapq.heappop(queue)
        if failed is not None and start > first:
            break  # the groups come in the order of their first rows
        ids = row_ids[idx]
        sub = [
            leaf if d is None else fnp.take(leaf, _index_like(leaf, idx), axis=d)
            for leaf, d in zip(leaves, dims)
        ]
        try:
            out = rerun(sub, idx.size, ids)
        except Regroup as again:
            for part in again.groups:
                heapq.heappush(queue, (int(ids[part[0]]), count, idx[part]))
                count += 1
            continue
        except Exception as err:
            row = _rows_of(err).setdefault(level, int(ids[0]))
            if failed is None or row < first:
                failed, first = err, row
            continue
        outs.append(out)
        done.append(idx)
    if failed is not None:
        raise failed
    return join_groups(outs, done, out_dims, where, row_ids)


def name_rows(err: BaseException, where: str, row_ids: numpy.ndarray) -> None:
    """Note on ``err`` (raised by ``f`` on part of the batch: a group of a split, or a
    chunk) which rows it was raised for, once per vmap level: the innermost part of that
    level names them (nested vmaps each name their own rows)."""
    rows = _rows_of(err)
    level = len(current_stack())
    if level not in rows:
        err.add_note(f"{where}: raised for batch row(s) {_rows_text(row_ids)}")
        rows[level] = int(numpy.min(to_host(row_ids)))


def row_arguments(err: BaseException, interp: Any) -> None:
    """The arguments of ``err`` (raised by ``f`` for every row of this run) that are values
    batched by ``interp`` become their first row's value, the row the loop over the rows
    raises for: ``KeyError(x[0])`` says ``np.float64(1.5)``, not the batch (the vmap has
    returned when the error is shown, so its tracers would show the whole batch)."""
    args = err.args
    if not any(type(a) is BatchTracer and a._interp is interp for a in args):
        return
    try:
        err.args = tuple(
            a.val[(slice(None),) * a.bdim + (0,)]
            if type(a) is BatchTracer and a._interp is interp
            else a
            for a in args
        )
    except Exception:  # noqa: BLE001, S110 - an exception class whose args are fixed
        pass


def _rows_of(err: BaseException) -> dict:
    """The first row ``err`` was raised for, per vmap level (by the depth of the
    interpreter stack where that level's parts run: a nested vmap runs deeper)."""
    rows = getattr(err, "_ftransforms_first_rows", None)
    if rows is None:
        rows = err._ftransforms_first_rows = {}
    return rows


def _index_like(value: Any, idx: numpy.ndarray) -> Any:
    phys = value._physical() if isinstance(value, Tracer) else value
    return idx if isinstance(phys, numpy.ndarray) else xp_of(phys).asarray(idx)


def _describe(groups: list, g: int, row_ids: Any = None) -> str:
    rows = groups[g] if row_ids is None else row_ids[groups[g]]
    return f"group {g} (rows {_rows_text(rows)})"


def unbatched_output(parts: list, k: int, where: str, describe: Callable[[int], str]) -> Any:
    """Output ``k`` (out_dim None) of a batch run in parts (the groups of a split, the
    chunks of ``chunk_size``): the one value every part gave, else SplitOutputError."""
    shapes = [fnp.shape(p) for p in parts]
    for g, s in enumerate(shapes[1:], 1):
        same = s == shapes[0] and bool(
            numpy.array_equal(
                to_host(fnp.physical(parts[0])), to_host(fnp.physical(parts[g])), equal_nan=True
            )
        )
        if not same:
            raise SplitOutputError(
                f"{where}: output {k} has out_dim None but its value differs between "
                f"{describe(0)} and {describe(g)}, which took different Python paths; give "
                f"it an int out_dim"
            )
    return parts[0]


def join_groups(outs: list, groups: list, out_dims: Any, where: str, row_ids: Any = None) -> Any:
    """The groups' outputs as one output of the whole batch, rows in their first order
    (``row_ids``: the batch rows that the groups' indices stand for, in errors)."""
    order = numpy.concatenate(groups)
    inverse = numpy.empty_like(order)
    inverse[order] = numpy.arange(order.size)
    return join_parts(outs, out_dims, where, lambda g: _describe(groups, g, row_ids), inverse)


def join_parts(
    outs: list, out_dims: Any, where: str, describe: Callable[[int], str], inverse: Any = None
) -> Any:
    """The outputs of a batch run in parts that may have taken different Python paths (the
    groups of a split, the chunks of ``chunk_size``) as one output: concatenated along
    each output's batch axis, rows put back in order by the permutation ``inverse`` (None:
    they are in order).  Parts that differ in structure or per-row shape raise
    SplitOutputError naming them (``describe(part)``)."""
    flat = [tree_flatten(o, none_is_leaf=False) for o in outs]
    spec = flat[0][1]
    for g, (_, s) in enumerate(flat[1:], 1):
        if s != spec:
            raise SplitOutputError(
                f"{where}: the rows took different Python paths and returned outputs of "
                f"different structures: {describe(0)} returned {structure_str(outs[0])}, "
                f"{describe(g)} returned {structure_str(outs[g])}.  Return the same "
                f"structure on every path (as numpy.stack of the per-row results would need)."
            )
    dims = out_dims_per_leaf(out_dims, outs[0], where)
    joined = []
    for k, d in enumerate(dims):
        parts = [leaves[k] for leaves, _ in flat]
        shapes = [fnp.shape(p) for p in parts]
        if d is None:
            joined.append(unbatched_output(parts, k, where, describe))
            continue
        axis = int(d) % len(shapes[0])
        rest = [s[:axis] + s[axis + 1 :] for s in shapes]
        for g, r in enumerate(rest[1:], 1):
            if r != rest[0]:
                raise SplitOutputError(
                    f"{where}: the rows took different Python paths and output {k} has "
                    f"different shapes: {describe(0)} gives per-row shape {rest[0]}, "
                    f"{describe(g)} gives {r}.  Return the same shape on every path (as "
                    f"numpy.stack of the per-row results would need)."
                )
        dtype = numpy.result_type(*[dtype_of(p) for p in parts])
        parts = [p if dtype_of(p) == dtype else fnp.astype(p, dtype) for p in parts]
        both = fnp.concatenate(parts, axis=axis)
        joined.append(
            both if inverse is None else fnp.take(both, _index_like(both, inverse), axis=axis)
        )
    return tree_unflatten(spec, joined)


# -- masking the finished rows of a Python while loop -------------------------------------

_BOOL_CODE = Tracer.__bool__.__code__
#: Code flags of generators and coroutines, whose frames pass values out at each `yield`.
_YIELDING = (
    inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
    | inspect.CO_ITERABLE_COROUTINE
)  # fmt: skip


def _truth(opname: str) -> bool | None:
    """The value on which a conditional jump jumps (None: not a jump on a truth value)."""
    if "JUMP" not in opname or "NONE" in opname:
        return None
    return True if "IF_TRUE" in opname else False if "IF_FALSE" in opname else None


def _jumps(code: Any) -> dict[int, tuple[int, int, bool, int]]:
    """The conditions of the while loops in ``code``: offset of a conditional jump ->
    (first offset of the loop's body, its back-edge's offset, the truth value that stays in
    the loop, the back-edge's offset as the loop's name).  A condition is the back-edge
    itself (a backward conditional jump) or a jump to the instruction after the back-edge.
    While rows are masked the frame must stay within the body (else the loop was left some
    other way, and masking gives up)."""
    found = _JUMPS.get(code)
    if found is not None:
        return found
    found = {}
    ins = list(dis.get_instructions(code))
    at = {i.offset: k for k, i in enumerate(ins)}
    for k, edge in enumerate(ins[:-1]):
        truth = _truth(edge.opname)
        if not isinstance(edge.argval, int) or edge.argval >= edge.offset:
            continue
        start, exit_ = edge.argval, ins[k + 1].offset
        if start not in at or ins[at[start]].opname == "FOR_ITER":
            continue
        if any(
            isinstance(i.argval, int) and i.argval < start and i.offset > edge.offset
            for i in ins[k + 1 :]
            if "JUMP" in i.opname
        ):  # inside another loop: a silent exit (a break, a condition on Python values)
            continue  # and a new entry would look like the same loop going on
        if truth is None:  # 3.12+: a while loop ends with `cond; jump out; JUMP_BACKWARD`
            before = ins[k - 1] if k else edge
            if not (edge.opname.startswith("JUMP_BACKWARD") and _truth(before.opname) is not None):
                continue
            if before.argval != exit_:
                continue
        if truth is not None:  # 3.10/3.11: the condition jumps back into the loop
            found[edge.offset] = (start, edge.offset, truth, edge.offset)
        for j in range(k):  # a jump to the loop's exit: its head condition's parts (`and`),
            t = _truth(ins[j].opname)  # a `break` on a value, an `if` that skips the loop
            if t is not None and ins[j].argval == exit_:
                found.setdefault(ins[j].offset, (start, edge.offset, not t, edge.offset))
    _JUMPS[code] = found
    return found


_JUMPS: dict[Any, dict] = {}


#: How far below a loop's local masking looks for state a masked row's step could change
#: (levels of containers and attributes, items per container, nodes per local).
_STATE_DEPTH, _STATE_ITEMS, _STATE_NODES = 4, 64, 1024

#: Values with no parts at all (the common locals: numbers, strings, None).
_ATOMS = frozenset({int, float, complex, bool, str, bytes, type(None), numpy.float64})

#: Containers other than list/tuple/set/dict whose items a loop may change in place.
_MUTABLE = (MutableSequence, MutableSet, MutableMapping)

#: Values whose parts are not state a loop changes by mutation.
_OPAQUE = (Tracer, type, types.ModuleType, types.FunctionType, types.MethodType)


def _parts(value: Any) -> list | None:
    """(key, item) pairs of a list, tuple, set or dict, or of an object's attributes (its
    ``__dict__`` and ``__slots__``), the first ``_STATE_ITEMS``; None for anything else."""
    if isinstance(value, (list, tuple)):
        return list(enumerate(value[:_STATE_ITEMS]))
    if isinstance(value, dict):
        return list(itertools.islice(value.items(), _STATE_ITEMS))
    if isinstance(value, (set, frozenset)):
        return [(None, v) for v in itertools.islice(value, _STATE_ITEMS)]
    if isinstance(value, _OPAQUE) or isinstance(value, numpy.ndarray):
        return None
    if isinstance(value, _MUTABLE):  # a deque, bytearray, array.array, a mapping or set
        items = value.items() if isinstance(value, Mapping) else enumerate(value)
        return list(itertools.islice(items, _STATE_ITEMS))
    state = getattr(value, "__dict__", None)
    pairs = list(itertools.islice(state.items(), _STATE_ITEMS)) if isinstance(state, dict) else []
    for name, slot in _slots(type(value)):  # a dataclass(slots=True) state
        try:
            pairs.append((name, slot.__get__(value)))
        except AttributeError:  # an unset slot
            pass
    return pairs or None


def _slots(cls: type) -> tuple:
    """The ``__slots__`` attributes (name, descriptor) of instances of ``cls``."""
    found = _SLOTS.get(cls)
    if found is None:
        found = _SLOTS[cls] = tuple(
            (name, slot)
            for c in cls.__mro__[:-1]
            for name, slot in vars(c).items()
            if isinstance(slot, types.MemberDescriptorType)
        )[:_STATE_ITEMS]
    return found


_SLOTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _shallow(value: Any, depth: int = 0, own: tuple = (), budget: list | None = None) -> Any:
    """What a mutation of a container or an object would change (compared by identity),
    followed ``_STATE_DEPTH`` levels down (``self.trace.append(e)``, ``hist["err"].append``,
    a ``__slots__`` attribute).  ``own``: the loop frame's cell variables (a closure over
    them sees its locals)."""
    if type(value) in _ATOMS or isinstance(value, Tracer):
        return None
    budget = [_STATE_NODES] if budget is None else budget
    if budget[0] <= 0:
        return None
    budget[0] -= 1
    if type(value) is numpy.ndarray and value.dtype.kind == "O":  # np.array([t, u]) holds
        return tuple(map(id, value.flat))  # tracers, written element by element
    if depth < 2 and isinstance(value, _CALLBACKS):
        return _callback_state(value, depth + 1, own)
    parts = _parts(value)
    if parts is None:
        return None
    size = len(value) if isinstance(value, (list, tuple, set, frozenset, dict, _MUTABLE)) else -1
    inner = depth + 1 < _STATE_DEPTH
    return (size,) + tuple(
        (k, id(v), _shallow(v, depth + 1, own, budget) if inner else None) for k, v in parts
    )


#: Callables among a loop's locals that can carry state out of it (``cb=hist.append``,
#: ``log.add``, a closure over a list or a ``nonlocal`` counter).
_CALLBACKS = (types.FunctionType, types.MethodType, types.BuiltinMethodType)


def _callback_state(func: Any, depth: int, own: tuple) -> Any:
    """What a callback called in a masked loop could change outside its frame: the
    contents of its closure's cells (rebound or mutated) and of the object it is bound to
    (and that object's attributes).  A masked row's step must not reach them."""
    parts: list = []
    code = getattr(func, "__code__", None)
    cells = getattr(func, "__closure__", None) or ()
    for name, cell in zip(code.co_freevars if code else (), cells):
        if name in own:  # the loop frame's own local, which masking follows
            continue
        try:
            held = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        parts.append((id(held), _shallow(held, depth)))
    owner = getattr(func, "__self__", None)
    if owner is not None and not isinstance(owner, (type, types.ModuleType)):
        parts.append(_shallow(owner, depth))
        for held in list(getattr(owner, "__dict__", {}).values())[:64]:
            parts.append(_shallow(held, depth))
    return tuple(parts) or None


def _followable(values: dict) -> bool:
    """Whether masking can follow a loop over these locals: no iterator, whose position
    would be shared by rows that left the loop and rows still in it."""
    return not any(hasattr(v, "__next__") for v in values.values())


class _Loop:
    __slots__ = (
        "frame", "start", "stop", "edge", "stay", "outer", "active", "saved", "shapes", "numbers",
        "values",
    )  # fmt: skip


def _values_of(local_values: dict, frame: Any) -> dict:
    """The traced arrays a loop's frame reaches, by path, with copies of their current
    values (a later write in place into one of them does not reach its copy): its locals,
    the globals its code names, and what lists, tuples, dicts and objects among those
    hold (``_STATE_DEPTH`` levels down, as :func:`_shallow` looks)."""
    out: dict = {}
    seen: set = set()
    budget = [_STATE_NODES]

    def collect(v: Any, path: tuple, depth: int, limit: int) -> None:
        if isinstance(v, Tracer):
            if id(v) not in seen:
                seen.add(id(v))
                out[path] = (v, clone(v))
            return
        if depth >= limit or budget[0] <= 0 or type(v) in _ATOMS:
            return
        budget[0] -= 1
        items = _parts(v)
        for k, e in items or ():
            collect(e, (*path, k), depth + 1, limit)

    for name, v in local_values.items():
        collect(v, (name,), 0, _STATE_DEPTH)
    glob = frame.f_globals
    for name in frame.f_code.co_names:  # globals: one level down (a module's objects can
        if name in glob and name not in local_values:  # be large; f is taken to be a
            collect(glob[name], ("<global>", name), 0, 2)  # function of its arguments)
    return out


def _changed(value: Tracer, before: Tracer) -> bool:
    """Whether a write turned ``value`` into another value than its copy ``before``."""
    return type(value) is not type(before) or any(
        getattr(value, n, None) is not getattr(before, n, None) for n in payload(type(value))
    )


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, complex, numpy.number, numpy.bool_))


class MaskedLoops:
    """The Python ``while`` loops of one vmap call whose rows finished at different trip
    counts (NOTE [splitting the batch], "while loops")."""

    def __init__(self, interp: Any) -> None:
        self.interp = interp
        self.records: list[_Loop] = []  # innermost last
        self.promoted = False  # a Python number became per-row values at a loop's exit

    def first_active(self) -> int:
        return int(numpy.flatnonzero(self.records[-1].active)[0])

    def _fail(self, why: str) -> SpeculationFailed:
        return SpeculationFailed(self.interp, why)

    def _site(self, caller: Any) -> tuple[Any, tuple] | None:
        """(frame, back-edge) when ``bool()`` was called by a while loop's condition."""
        if caller.f_code is not _BOOL_CODE:
            return None
        frame = caller.f_back
        edge = _jumps(frame.f_code).get(frame.f_lasti)
        return None if edge is None else (frame, edge)

    def disagree(self, tracer: Any, rows: Any, caller: Any) -> Any:
        """The rows disagree at ``bool()``: at a while loop's condition, the rows that leave
        the loop are masked and the others go on (returns the truth value that stays in the
        loop); anywhere else None (the batch splits)."""
        site = self._site(caller)
        if site is None or rows.ndim != 1:
            return None
        frame, (start, stop, stay, edge) = site
        if frame.f_code.co_flags & _YIELDING:  # a `yield` in the loop hands masked rows'
            return None  # values to the consumer, outside the frame: split instead
        active = self.records[-1].active if self.records else numpy.ones(rows.shape[0], bool)
        loop = _Loop()
        loop.frame, loop.start, loop.stop, loop.edge = frame, start, stop, edge
        loop.stay, loop.outer = stay, active
        loop.active = active & (to_host(rows).astype(bool) == stay)
        loop.saved = dict(frame.f_locals)
        if not _followable(loop.saved):
            return None
        own = frame.f_code.co_cellvars
        loop.shapes = {k: _shallow(v, 0, own) for k, v in loop.saved.items()}
        loop.values = _values_of(loop.saved, frame)
        loop.numbers = {}
        self.records.append(loop)
        return stay

    def read(self, tracer: Any, rows: Any, caller: Any) -> Any:
        """A Python value read while some rows ride along in a masked loop."""
        running = set()
        frame = caller
        while frame is not None:
            running.add(id(frame))
            frame = frame.f_back
        for loop in self.records:  # a break / return left a loop without its condition
            if id(loop.frame) not in running or not loop.start <= loop.frame.f_lasti <= loop.stop:
                raise self._fail("the loop was left without its condition")
        loop = self.records[-1]
        site = self._site(caller)
        if site is not None and site[0] is loop.frame and site[1][3] == loop.edge:
            return self._step(loop, rows, site[1][2])
        live = rows[loop.active]
        if not live.size or batching.uniform_row(live, 0)[1] is None:  # NaN rows agree,
            return live[0]  # 0.0 and -0.0 do not (as outside masked loops)
        value = self.disagree(tracer, rows, caller) if rows.ndim == 1 else None
        if value is not None:
            return value
        raise BatchSplit(self.interp, rows)  # the masked run is dropped; groups start afresh

    def _step(self, loop: _Loop, rows: Any, stay: bool) -> bool:
        """A condition of the loop again: rows that finished earlier get their state back,
        rows that leave here keep theirs, the rest go on."""
        frame = loop.frame
        now = dict(frame.f_locals)
        if now.keys() != loop.saved.keys():
            raise self._fail("the loop bound a new local name")
        merged = {}
        written = []  # arrays written in place: (array, its value when the rows left)
        keep = None
        for name, value in now.items():
            old = loop.saved[name]
            if value is old:
                if _shallow(value, 0, frame.f_code.co_cellvars) != loop.shapes[name]:
                    raise self._fail(f"{name} was mutated in the loop")
                continue
            if not (isinstance(value, Tracer) or isinstance(old, Tracer)):
                if not (_is_number(value) and _is_number(old)):
                    raise self._fail(f"the Python value {name} changed in the loop")
                # A Python number (a counter): the same for every active row (they took
                # the same path); each row's own is kept, the frame keeps the active one.
                per_row = loop.numbers.get(name)
                if per_row is None:
                    per_row = loop.numbers[name] = numpy.empty(loop.active.size, object)
                    per_row[:] = [old] * loop.active.size
                per_row[loop.active] = value
                loop.saved[name] = value
                continue
            if fnp.shape(value) != fnp.shape(old):
                raise self._fail(f"{name} changed shape in the loop")
            if keep is None:
                keep = _index_like(value, loop.active)
            if (name,) in loop.values:  # its value then, if written in place since
                old = loop.values[(name,)][1]
            merged[name] = fnp.where(_as_rows(self.interp, keep), value, old)
        for target, before in loop.values.values():
            if _changed(target, before):
                if keep is None:
                    keep = _index_like(target, loop.active)
                written.append((target, fnp.where(_as_rows(self.interp, keep), target, before)))
        loop.active = loop.active & (to_host(rows).astype(bool) == stay)
        # an array written in place (``y[i] *= 0.5``) keeps its identity: the rows that
        # left get their values back through a write, which its aliases and views see
        for target, value in written:
            assign(target, fnp.astype(value, dtype_of(target)))
        if merged:
            write_locals(frame, merged)
            loop.saved.update(merged)
        if merged or written:
            loop.values = _values_of(loop.saved, frame)
        if loop.active.any():
            return stay
        self.records.pop()
        self._settle_numbers(loop)
        return not stay

    def _settle_numbers(self, loop: _Loop) -> None:
        """At the loop's exit a Python number whose rows ended with different values
        becomes a batched array of them (each row's own number, as the loop over rows has
        it); a later exception then runs the call again without masking, in case the
        array was used where only a Python number works."""
        values = {}
        for name, per_row in loop.numbers.items():
            live = per_row[loop.outer]
            if all(v == live[0] and type(v) is type(live[0]) for v in live):
                if loop.frame.f_locals[name] is not live[0]:
                    values[name] = live[0]
                continue
            if _looks_at_type(loop.frame.f_code, name, loop.frame):  # an array is no
                raise self._fail(f"the type of the Python number {name} is looked at")  # int
            per_row[~loop.outer] = live[0]  # rows not in the loop: any value, unused
            xp = numpy
            for v in loop.frame.f_locals.values():
                if isinstance(v, Tracer):
                    xp = xp_of(v._physical())
                    break
            numbers = numpy.asarray(per_row.tolist())
            if numbers.dtype.kind in "Ou":  # Python ints past int64 (uint64, object arrays)
                raise self._fail(f"the Python number {name} outgrew int64")
            values[name] = BatchTracer(self.interp, xp.asarray(numbers), 0)
            self.promoted = True
            kinds = {type(v) for v in live}
            if kinds <= {bool, int, float, complex}:  # weak in NumPy: watched where they meet
                if self.interp.weak is None:  # arrays (BatchInterpreter._process_weak)
                    self.interp.weak = {}
                kind = next(k for k in (complex, float, int, bool) if k in kinds)
                self.interp.weak[id(values[name])] = (values[name], kind)
        if values:
            write_locals(loop.frame, values)


#: Builtins whose answer for a Python number differs from theirs for a batched array.
_TYPE_LOOKS = frozenset(
    {"isinstance", "type", "issubclass", "hasattr", "getattr", "id", "callable"}
)
_LOADS = frozenset(
    {"LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_DEREF", "LOAD_NAME", "LOAD_FAST_LOAD_FAST"}
)


def _looks_at_type(code: Any, name: str, frame: Any = None) -> bool:
    """Whether ``code`` looks at the type or identity of its local ``name``:
    ``isinstance(name, ...)``, ``type(name)``, ``hasattr(name, ...)``, ``name.__class__``,
    ``name is ...``, or passes it to a function whose code looks at the type of one of its
    parameters (one call deep: a global of ``frame``'s, or a local or closure variable of
    it, a nested ``def`` or a lambda).  A Python number made a batched array at a masked
    loop's exit would answer those as an array does, not as the loop's number (NOTE
    [splitting the batch], "while loops"): then masking gives up and the batch splits.
    Read from the code, so it errs on the side of splitting."""
    found, callees, made = _type_looks(code, name)
    if found or frame is None:
        return found
    for op, callee in callees:
        space = frame.f_globals if op in ("LOAD_GLOBAL", "LOAD_NAME") else frame.f_locals
        helper = space.get(callee)
        inner = helper.__code__ if isinstance(helper, types.FunctionType) else made.get(callee)
        if inner is not None:
            params = inner.co_varnames[: inner.co_argcount + inner.co_kwonlyargcount]
            if any(_type_looks(inner, p)[0] for p in params):
                return True
    return False


def _type_looks(code: Any, name: str) -> tuple[bool, tuple, dict]:
    """``code``'s own looks at the type of its local ``name`` (see :func:`_looks_at_type`),
    the (load op, name) of the functions it calls with ``name`` among the arguments, and
    the code of the functions it makes (``def``, a lambda) by the local they are stored in
    (a helper defined after the loop is not in the frame's locals yet)."""
    key = (code, name)
    found = _TYPE_LOOKED.get(key)
    if found is not None:
        return found
    ins = list(dis.get_instructions(code))

    def loads(k: int, local: str = name) -> bool:
        if not 0 <= k < len(ins) or ins[k].opname not in _LOADS:
            return False
        v = ins[k].argval
        return local in v if isinstance(v, tuple) else v == local

    looks, callees, made, code_made = False, [], {}, None
    for k, i in enumerate(ins):
        op, arg = i.opname, i.argval
        if op == "LOAD_CONST" and isinstance(arg, types.CodeType):
            code_made = arg
        elif code_made is not None and op in ("STORE_FAST", "STORE_DEREF", "STORE_NAME"):
            made[arg], code_made = code_made, None
        if (
            (op in ("LOAD_GLOBAL", "LOAD_NAME") and arg in _TYPE_LOOKS and loads(k + 1))
            or (op in ("LOAD_ATTR", "LOAD_METHOD") and arg == "__class__" and loads(k - 1))
            or (op == "IS_OP" and (loads(k - 1) or loads(k - 2)))
        ):
            looks = True
            break
        if op in _LOADS or op in ("LOAD_GLOBAL", "LOAD_NAME"):
            end = next((j for j in range(k + 1, len(ins)) if "CALL" in ins[j].opname), k)
            if isinstance(arg, str) and any(loads(j) for j in range(k + 1, end)):
                callees.append((op, arg))  # ``describe(n)``
    found = _TYPE_LOOKED[key] = (looks, tuple(callees), made)
    return found


_TYPE_LOOKED: dict[tuple, tuple[bool, tuple, dict]] = {}


def _as_rows(interp: Any, mask: Any) -> Any:
    """A per-row boolean as a value batched at ``interp``'s level."""
    return BatchTracer(interp, mask, 0)


batching.LOOP_MASKING.append(MaskedLoops)
