"""The transforms: ``vmap``, ``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``linearize``,
``jacrev``, ``jacfwd`` and ``hessian``, with torch.func's names and semantics.

Each call pushes one interpreter (see ``core/stack.py``), runs the function on tracers and
returns plain arrays (or the tracers of enclosing transforms, when nested).
"""

from __future__ import annotations

import contextlib
import functools
import numbers
from collections.abc import Callable, Sequence
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.aliased_arguments import alias_plan, link
from ftransforms.arguments import (
    FLOAT0,
    LEAF_TYPES,
    UNSET,
    LazyNames,
    arg_names,
    as_plain,
    call_passing,
    check_callable,
    check_chunk_size,
    check_differentiable,
    check_holomorphic_inputs,
    check_holomorphic_outputs,
    check_like,
    check_live,
    check_none_arg,
    check_pair,
    check_randomness,
    check_reduce_axes,
    check_scalar_output,
    check_shape,
    check_zero_tangent,
    dask_error,
    float0_zeros,
    fname,
    in_dims_per_leaf,
    is_dask,
    is_inexact,
    jax_axes,
    leaf_names,
    mutable_kwargs,
    normalize_argnums,
    out_dims_per_leaf,
    passed_inputs,
    structure_str,
    to_array,
)
from ftransforms.backend import is_array
from ftransforms.boundary import transform_inputs, transform_outputs
from ftransforms.core.errors import (
    ArgnumsError,
    BatchedControlFlowError,
    ChunkSizeError,
    GradOutputError,
    InDimsError,
    NonDifferentiableInputError,
    OutDimsError,
    RandomnessError,
    TangentMismatchError,
)
from ftransforms.core.mutation import detached, mutable, views_one_of
from ftransforms.core.stack import pushed
from ftransforms.core.tracer import Tracer
from ftransforms.host_random import (
    NO_REPLAY,
    TRACED_DRAWS,
    SeedReplay,
    entropy_taken,
    global_drew,
    global_mark,
    held_generators,
    moved,
    new_cached,
    note_global_object_draws,
    raw_states,
    restore,
    restore_global,
    unwatch,
    unwatch_global,
    watch_global,
    with_global_object,
)
from ftransforms.interpreters.batching import (
    BatchInterpreter,
    BatchSplit,
    BatchTracer,
    SpeculationFailed,
)
from ftransforms.interpreters.forward import DualTracer, ForwardInterpreter
from ftransforms.interpreters.reverse import ReverseInterpreter, ReverseTracer
from ftransforms.numpy.helpers import dtype_of, xp_of
from ftransforms.numpy.result_layout import laid_out_arguments
from ftransforms.pytree import (
    tree_flatten,
    tree_map,
    tree_unflatten,
)
from ftransforms.random import replaying_draws, same_randomness_across_chunks
from ftransforms.split import (
    check_rerunnable,
    join_parts,
    name_rows,
    own_state,
    restore_own_state,
    row_arguments,
    run_groups,
    split_batch,
)

__all__ = [
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacobian",
    "jacrev",
    "jvp",
    "linearize",
    "value_and_grad",
    "vjp",
    "vmap",
]

# -- shared helpers ----------------------------------------------------------------------


# -- vmap --------------------------------------------------------------------------------


def vmap(
    func: Callable,
    in_dims: Any = 0,
    out_dims: Any = 0,
    randomness: str = "error",
    *,
    chunk_size: int | None = None,
    axis_name: Any = None,
    in_axes: Any = UNSET,
    out_axes: Any = UNSET,
    axis_size: int | None = None,
    split: bool = True,
    spmd_axis_name: Any = None,
) -> Callable:
    """Vectorize ``func`` over a batch axis of its inputs.

    ``in_dims``/``out_dims`` are ints (negative allowed), ``None`` (not batched) or pytrees
    of those matching the positional arguments / the outputs.  Keyword arguments are passed
    through unbatched.  ``chunk_size`` runs the batch in pieces of that size (same result,
    less memory).  JAX's names are accepted too: ``in_axes``/``out_axes`` for
    ``in_dims``/``out_dims``, and ``axis_size``, the batch size, needed when no argument
    is batched (every in_dim None).  ``axis_name`` (any hashable) names the batch axis
    for the collectives ``ft.lax.psum``/``pmean``/``pmax``/``pmin``/``all_gather``/
    ``axis_index`` inside ``func``, as in JAX (an inner ``vmap`` may name an outer axis).
    JAX's ``spmd_axis_name`` (a mesh axis to shard the batch over) is accepted and has no
    effect: there is one device.

    ``func`` may be any per-example code: where it turns a batched value into a Python
    value (``if``, ``while``, ``int()``, ``.item()``, a boolean mask's size) and the rows
    disagree, the batch is split into groups of rows that agree and ``func`` runs on each
    (one ``PerformanceWarning`` per source line), so the result is always
    ``numpy.stack([func(x) for x in xs])``.  ``split=False`` raises
    ``BatchedControlFlowError`` there instead (NOTE [splitting the batch] in
    ftransforms/split.py).

    Example:
        >>> import numpy as np
        >>> from ftransforms import vmap
        >>> vmap(lambda x, w: x @ w, in_dims=(0, None))(np.ones((5, 3)), np.ones(3)).shape
        (5,)
    """
    check_callable(func, "vmap")
    check_randomness(
        randomness,
        f"vmap({fname(func)}, randomness={randomness!r})",
        "; vmap's fourth positional argument is torch.func's randomness: pass JAX's "
        "axis_name by keyword (axis_name=...)",
    )
    check_chunk_size(chunk_size, f"vmap({fname(func)}, chunk_size={chunk_size!r})")
    if chunk_size is not None and axis_name is not None:
        raise ChunkSizeError(
            f"vmap({fname(func)}, chunk_size={chunk_size!r}, axis_name={axis_name!r}): a "
            f"collective over a named axis needs the whole batch at once, so chunk_size "
            f"cannot be combined with axis_name; drop one of them"
        )
    in_dims, out_dims = jax_axes(fname(func), in_dims, out_dims, in_axes, out_axes, axis_size)

    where = f"vmap({fname(func)}, in_dims={in_dims!r})"

    @functools.wraps(func)
    def batched(*args: Any, **kwargs: Any) -> Any:
        args = transform_inputs(args)
        leaves, spec, dims, size = _vmap_inputs(func, in_dims, args, where, axis_size)
        aliases = alias_plan(leaves, dims)  # NOTE [aliased arguments]
        if chunk_size is None or size <= chunk_size:
            return _vmap_call(
                func,
                leaves,
                spec,
                dims,
                size,
                kwargs,
                out_dims,
                randomness,
                where,
                split,
                name=axis_name,
                aliases=aliases,
            )
        return _vmap_chunked(
            func, leaves, spec, dims, size, kwargs, out_dims, randomness, where, chunk_size, split,
            aliases,
        )  # fmt: skip

    return batched


def _vmap_inputs(func, in_dims, args, where, axis_size=None):
    if isinstance(in_dims, list):
        in_dims = tuple(in_dims)
    if not isinstance(in_dims, (int, numpy.integer, tuple, dict)) and in_dims is not None:
        raise InDimsError(
            f"{where}: in_dims must be an int, None, or a tuple (pytree) of those matching "
            f"the positional arguments, got {type(in_dims).__name__}; e.g. in_dims=0 or "
            f"in_dims=(0, None)"
        )
    if isinstance(in_dims, tuple) and len(in_dims) != len(args):
        raise InDimsError(
            f"{where}: in_dims has {len(in_dims)} entries but the function got {len(args)} "
            f"positional argument(s); give one entry per argument (None for unbatched ones)"
        )
    leaves, spec = tree_flatten(args, none_is_leaf=True)
    try:
        dims = in_dims_per_leaf(in_dims, args, leaves)
    except ValueError:
        raise InDimsError(
            f"{where}: in_dims does not match the structure of the arguments: in_dims is "
            f"{structure_str(in_dims, none_is_leaf=True)} but the arguments are "
            f"{structure_str(args, none_is_leaf=True)}; give an int/None per argument, or a "
            f"pytree with the argument's structure (same dict keys, same lengths)"
        ) from None
    size = None
    sizes = []
    for i, (leaf, d) in enumerate(zip(leaves, dims)):
        if d is None:
            if type(leaf) not in LEAF_TYPES and is_dask(leaf):
                raise dask_error(where, leaf_names(func, args)[i])
            continue
        if leaf is None:
            check_none_arg(func, in_dims, args, i, d, where)
            dims[i] = None
            continue
        if not isinstance(d, (int, numpy.integer)) or isinstance(d, bool):
            raise InDimsError(
                f"{where}: every in_dims entry must be an int or None, got {d!r} for "
                f"{leaf_names(func, args)[i]}"
            )
        if not (isinstance(leaf, Tracer) or is_array(leaf)):
            if is_dask(leaf):
                raise dask_error(where, leaf_names(func, args)[i])
            raise InDimsError(
                f"{where}: {leaf_names(func, args)[i]} is a {type(leaf).__name__}, which has "
                f"no axis {d} to map over; give it in_dim None or pass an array"
            )
        rank = fnp.ndim(leaf)
        if not -rank <= d < rank:
            raise InDimsError(
                f"{where}: in_dim={d} is out of range for {leaf_names(func, args)[i]} of "
                f"shape {fnp.shape(leaf)} (rank {rank}); use an axis in [-{rank}, {rank})"
                if rank
                else f"{where}: {leaf_names(func, args)[i]} is 0-d and has no axis {d} to "
                f"map over; give it in_dim None"
            )
        dims[i] = int(d) % rank
        n = fnp.shape(leaf)[dims[i]]
        sizes.append((i, n))
        if size is None:
            size = n
    if axis_size is not None:
        if any(n != axis_size for _, n in sizes):
            names = leaf_names(func, args)
            listing = ", ".join(f"{names[i]} has {n}" for i, n in sizes)
            raise InDimsError(
                f"{where}: axis_size={axis_size} but the batched arguments' axes differ from "
                f"it: {listing}; drop axis_size or batch them to that size"
            )
        size = axis_size
    if size is None:
        raise InDimsError(
            f"{where}: no argument is batched (every in_dim is None, or there are no array "
            f"arguments); give at least one argument an int in_dim, or pass axis_size"
        )
    if any(n != size for _, n in sizes):
        names = leaf_names(func, args)
        listing = ", ".join(f"{names[i]} has {n}" for i, n in sizes)
        raise InDimsError(
            f"{where}: arguments have different sizes on their batch axes: {listing}.  "
            f"Batch them to one size, or mark the unbatched ones with in_dim None (JAX: vmap "
            f"got inconsistent sizes for array axes to be mapped)."
        )
    return leaves, spec, dims, size


def _vmap_call(
    func, leaves, spec, dims, size, kwargs, out_dims, randomness, where, split=True, rows=None,
    masking=True, group=False, name=None, aliases=None,
):  # fmt: skip
    axis = None
    if name is not None:  # NOTE [collectives under vmap] in ftransforms/lax.py
        axis = (name, xp_of(*[leaf for leaf, d in zip(leaves, dims) if d is not None]))
    interp = BatchInterpreter(where, size, randomness, split, masking, axis)
    # draws from generators the user holds (NOTE [randomness under vmap] in random.py)
    watch = size > 1 and randomness != "same"
    gens = held_generators(func, _passed(leaves, kwargs)) if watch else ()
    before, mark = (raw_states(gens), len(TRACED_DRAWS.ids)) if gens else ([], 0)
    # ... set back with NumPy's global one (drawn per row already) where the rows rerun
    glob = watch_global() if gens else None  # one at a time
    seeds = entropy_taken() if watch else -1  # NOTE [fresh entropy under vmap]
    glob_mark = global_mark() if watch else None  # NOTE [NumPy's global generator ...]
    same = size > 1 and randomness == "same"
    held = held_generators(func, _passed(leaves, kwargs)) if same else ()
    same_mark = None  # (NOTE [NumPy's global generator reached as an object])
    if same:
        known = with_global_object(func, held)
        same_mark = global_mark() if known is held else None
        held = known
    held_states = raw_states(held) if held else None  # each rerun starts from these
    held_seen: set = set()  # ... but those that ftransforms.random replays itself
    if held:
        TRACED_DRAWS.watching.append(held_seen)
    # the fresh seeds of a 'same' batch, which its groups replay (NOTE [fresh entropy under
    # vmap] in host_random.py)
    same_seeds = SeedReplay() if size > 1 and randomness == "same" else NO_REPLAY
    drew = ""  # the batch shared a draw from a held generator before a split or error
    first = _HELD_DRAW  # the batch's result, where it drew (from a generator made inside)
    state = own_state(func, leaves) if split and size > 1 else ()  # NOTE [the function's own
    # state across a split] (split.py): what each run of a split starts from
    try:
        with pushed(interp), same_seeds:
            try:
                wrapped = [
                    mutable(leaf) if d is None else BatchTracer(interp, leaf, d)
                    for leaf, d in zip(leaves, dims)
                ]
                if aliases is not None:  # NOTE [aliased arguments]
                    wrapped = link(
                        aliases,
                        wrapped,
                        where,
                        lambda: leaf_names(func, tree_unflatten(spec, leaves)),
                    )
                wrapped = laid_out_arguments(leaves, wrapped, dims)  # NOTE [layout of
                # elementwise results]; NOTE [batched writes into captured arrays]:
                if not getattr(func, "over_a_basis", False):  # (jacfwd's, jacrev's rows:
                    # directions, each of which the math wants to see the state unwritten)
                    interp.outside = (func, wrapped, dims)  # (read at the first such write)
                out = transform_outputs(
                    func(*tree_unflatten(spec, wrapped), **mutable_kwargs(kwargs))
                )
                if interp.pending is not None:  # NOTE [a split under SciPy's compiled code]
                    raise interp.pending
                if interp.loops is not None and interp.loops.records:
                    raise SpeculationFailed(interp, "a masked loop was left by return or break")
                result = _vmap_outputs(interp, out, out_dims, size, where, leaves, dims)
            except (BatchSplit, SpeculationFailed, Exception):
                gens, before = _and_new_cached(gens, before)
                drew = _held_drew(gens, before, mark, seeds, glob_mark)
                raise
            # (inside the block: the draw log is cleared when the last transform returns)
            gens, before = _and_new_cached(gens, before)
            drew = _held_drew(gens, before, mark, seeds, glob_mark)
            if not drew:
                return result
        restore(gens, before)
        restore_global(glob)
        signal = _HELD_DRAW
        drew, held_draw, first = "", drew, result
    except BatchSplit as caught:  # NOTE [splitting the batch] (ftransforms/split.py)
        if caught.interp is not interp:
            raise
        signal = caught  # handled below, outside the except: no chained BatchSplit
    except SpeculationFailed as caught:
        if caught.interp is not interp:
            raise
        signal = None
    except Exception as err:
        masked = interp.loops is not None and (interp.loops.records or interp.loops.promoted)
        if interp.pending is not None and not drew:  # the run went on after a signal (row
            pending = interp.pending  # 0's number under SciPy, a `finally` that raised)
            signal = pending if isinstance(pending, BatchSplit) else None  # split now
        else:
            if not drew and not masked:
                row_arguments(err, interp)  # KeyError(x[0]): the row's key, as the loop's
                if group:  # a group of a split: say which rows
                    name_rows(err, where, rows)
                raise
            signal = None  # rows riding along in a masked loop may have caused it
    finally:
        if glob is not None:
            unwatch_global(glob)
        if held:
            unwatch(held_seen)
            held, held_states = _raw_drawn(held, held_states, held_seen)
    if drew:  # the rows shared a draw before a split or an error: the loop over the rows
        restore(gens, before)  # draws row by row (up to the row that fails)
        restore_global(glob)
        signal, held_draw = _HELD_DRAW, drew
    if signal is _HELD_DRAW:
        if held_draw == "global":  # NOTE [NumPy's global generator reached as an object]
            note_global_object_draws(func)
        if held_draw != "held" and randomness == "error" and first is not _HELD_DRAW:
            again = _vmap_call(  # the same batch, with new seeds: did they matter?
                func, leaves, spec, dims, size, kwargs, out_dims, "same", where, split, rows,
                masking, group, name, aliases,
            )  # fmt: skip
            return _unseeded_draws_unused(first, again, where, held_draw)
        if group:  # a group of a split: the whole batch runs row by row, in row order
            raise _HeldDrawInGroup(held_draw)
        return _draws_per_row(
            func, leaves, spec, dims, size, kwargs, out_dims, randomness, where, split, rows, name,
            aliases, held_draw,
        )  # fmt: skip
    if signal is None:  # run again without masking loops
        if held:
            restore(held, held_states)
        restore_own_state(state)
        return _vmap_call(
            func, leaves, spec, dims, size, kwargs, out_dims, randomness, where, split, rows,
            False, group, name, aliases,
        )  # fmt: skip

    def rerun(sub_leaves, sub_size, sub_rows):
        restore_own_state(state)
        return _vmap_call(
            func, sub_leaves, spec, dims, sub_size, kwargs, out_dims, randomness, where,
            split, sub_rows, masking, True, name, aliases,
        )  # fmt: skip

    if name is not None:  # a collective needs every row of its axis in one run
        raise BatchedControlFlowError(
            f"{where}: the rows of the batch disagree on a Python value "
            f"({signal.site[0]}:{signal.site[1]}), and a vmap with axis_name={name!r} cannot "
            f"split its batch: a collective (ft.lax.psum & co.) run on a group of rows would "
            f"reduce over that group only.  Write the choice as one batched program "
            f"(fnp.where, ft.cond, ft.while_loop), or drop axis_name."
        ) from None
    check_rerunnable(state, where, signal.site)
    rows = numpy.arange(size) if rows is None else rows
    if randomness != "same":
        try:  # a group's split is run by the group's caller (split.Regroup)
            return split_batch(signal, rerun, leaves, dims, rows, out_dims, where, group)
        except _HeldDrawInGroup as in_group:
            if group:
                raise
            held_draw = in_group.args[0]
        restore(gens, before)  # a group drew from a held generator: as the loop over rows
        restore_global(glob)
        return _draws_per_row(  # draws, the rows draw one at a time, in their order
            func, leaves, spec, dims, size, kwargs, out_dims, randomness, where, split, rows, name,
            None, held_draw,
        )  # fmt: skip
    if same_mark is not None and global_drew(same_mark):  # the first run drew from NumPy's
        note_global_object_draws(func)  # global generator: every group draws from where it
        glob_now = numpy.random.mtrand._rand  # left it (NOTE [NumPy's global generator
        held = (*held, glob_now)  # reached as an object])
        held_states = [*(held_states or []), *raw_states((glob_now,))]
    # the groups replay the first run's draws (random._DrawLog), then replay from copies
    with replaying_draws(interp), same_randomness_across_chunks():
        rerun = _sharing_held_draws(rerun, held, held_states, same_seeds)
        return split_batch(signal, rerun, leaves, dims, rows, out_dims, where)


def _passed(leaves: list, kwargs: dict) -> list:
    """What the call hands the function, where a generator it draws from may come in: the
    positional leaves and the keyword arguments (``f(x, rng=rng)``, which vmap does not
    batch but the function draws from all the same)."""
    return [*leaves, *kwargs.values()] if kwargs else leaves


def _unseeded_draws_unused(first: Any, again: Any, where: str, kind: str = "fresh") -> Any:
    """``first``, where a second run of the batch (new fresh seeds) returned the same:
    the function made a generator with no seed but its result does not depend on the
    draws (``RandomState(seed)`` takes a fresh seed before setting its own); otherwise
    randomness='error' raises (NOTE [fresh entropy under vmap] in host_random.py).
    ``kind='global'``: NumPy's global generator moved past its module functions (NOTE
    [NumPy's global generator reached as an object] in host_random.py)."""
    a, b = tree_flatten(first)[0], tree_flatten(again)[0]
    same = _close_values if kind == "global" else _same_values
    if len(a) == len(b) and all(same(x, y) for x, y in zip(a, b)):
        return first
    if kind == "global":
        raise RandomnessError(
            f"{where}: the function drew random numbers from NumPy's global generator "
            f"through an object that holds it (a scipy.stats distribution's rvs() with no "
            f"random_state, np.random.mtrand._rand), and random operations are disallowed "
            f"under vmap(randomness='error') (the default).  Pass randomness='different' "
            f"(each batch element its own draws) or randomness='same' (one draw shared by "
            f"the batch), or pass random_state=rng (a np.random.Generator) to the draw."
        )
    raise RandomnessError(
        f"{where}: the function drew random numbers from a generator it made with no seed "
        f"(np.random.default_rng(), np.random.RandomState(), random.Random()), and random "
        f"operations are disallowed under vmap(randomness='error') (the default).  Pass "
        f"randomness='different' (each batch element its own generator, as a loop over "
        f"the rows makes them) or randomness='same' (one draw shared by the batch), or "
        f"seed the generator (np.random.default_rng(seed), random.Random(seed))."
    )


def _close_values(x: Any, y: Any) -> bool:
    """:func:`_same_values`, or float arrays within 64 ulps of the larger magnitude (a
    library's own draws from NumPy's global generator: NOTE [NumPy's global generator
    reached as an object] in host_random.py)."""
    if _same_values(x, y):
        return True
    x = x._physical() if isinstance(x, Tracer) else x
    y = y._physical() if isinstance(y, Tracer) else y
    if not (is_array(x) and is_array(y)) or x.shape != y.shape or x.dtype.kind not in "fc":
        return False
    xp = xp_of(x, y)
    scale = float(xp.max(xp.abs(y))) if y.size else 0.0
    tol = 64 * float(numpy.finfo(x.dtype).eps) * scale
    return bool(xp.all(xp.abs(x - y) <= tol))


def _same_values(x: Any, y: Any) -> bool:
    """Whether two output leaves of a batch hold the same values (NaN equal to NaN; the
    arrays under an outer transform's tracers; where there are none, eval_shape's, yes)."""
    x = x._physical() if isinstance(x, Tracer) else x
    y = y._physical() if isinstance(y, Tracer) else y
    if is_array(x) and is_array(y):
        nan = x.dtype.kind in "fc"
        return x.shape == y.shape and bool(xp_of(x, y).array_equal(x, y, equal_nan=nan))
    if is_array(x) or is_array(y):
        return False
    return not isinstance(x, numbers.Number) or bool(x == y or (x != x and y != y))


def _and_new_cached(gens: tuple, before: list) -> tuple[tuple, list]:
    """``gens`` and their states ``before``, and the generators cached during the call with
    their states as made (NOTE [generators in a cache] in host_random.py)."""
    made, states = new_cached(gens)
    return ((*gens, *made), [*before, *states]) if made else (gens, before)


def _held_drew(
    gens: tuple, before: list, mark: int, seeds: int, glob_mark: tuple | None = None
) -> str:
    """Whether a batched call drew where no tracer sees it: ``'held'`` from a generator
    the function holds (``gens``, states ``before``), ``'fresh'`` from one it made with no
    seed (NumPy took a fresh seed since the count was ``seeds``; -1: not watched),
    ``'global'`` from NumPy's global one past its module functions (since ``glob_mark``;
    NOTE [NumPy's global generator reached as an object] in host_random.py), or ``''``."""
    if gens and moved(gens, before, mark):
        return "held"
    if seeds >= 0 and entropy_taken() != seeds:
        return "fresh"
    return "global" if global_drew(glob_mark) else ""


def _sharing_held_draws(
    run: Callable, gens: tuple, states: list | None, seeds: SeedReplay | None = None
) -> Callable:
    """``run`` for each part of a ``vmap(randomness='same')`` that runs in parts (the groups
    of a split, the chunks of ``chunk_size``): every part starts the generators the
    function holds (``rng.normal``, which no tracer sees) from ``states``, so all rows
    share one draw, and they are left where the first part left them, as after one run
    (NOTE [randomness under vmap] in random.py)."""
    seeds = SeedReplay() if seeds is None else seeds  # NOTE [fresh entropy under vmap]
    if not gens:

        def replayed(*args: Any) -> Any:
            with seeds:
                return run(*args)

        return replayed
    held = [gens, states]
    after: list = []

    def part(*args: Any) -> Any:
        restore(*held)
        seen: set = set()
        TRACED_DRAWS.watching.append(seen)
        try:
            with seeds:
                return run(*args)
        finally:
            unwatch(seen)
            if after:
                restore(held[0], after[0])
            else:
                held[:] = _raw_drawn(*held, seen)
                after.append(raw_states(held[0]))

    return part


def _raw_drawn(gens: tuple, states: list, seen: set) -> tuple[tuple, list]:
    """``gens`` and their ``states`` without those ``ftransforms.random`` drew from (ids in
    ``seen``): it replays them itself (:func:`same_randomness_across_chunks`)."""
    keep = [k for k, g in enumerate(gens) if id(g) not in seen]
    return tuple(gens[k] for k in keep), [states[k] for k in keep]


_HELD_DRAW = object()


class _HeldDrawInGroup(BaseException):
    """A group of a split drew from a generator the function holds: the vmap call that
    split runs its rows one at a time instead, so that they draw in row order, as the loop
    over the rows does (NOTE [randomness under vmap] in random.py)."""


def _draws_per_row(func, leaves, spec, dims, size, kwargs, out_dims, randomness, where, split,
                   rows, name, aliases=None, held_draw="held"):  # fmt: skip
    """The function drew from a generator it holds (``rng.normal``), which no tracer sees:
    under randomness='different' each row runs on its own, drawing in the order of a
    loop over the rows (the generators were set back before the first row).  A generator
    it made with no seed (``held_draw == 'fresh'``) is its own, as in the loop; under
    'error' the rows come here only where the batch split or raised after making one
    (NOTE [fresh entropy under vmap] in host_random.py)."""
    if (randomness == "error" and held_draw == "held") or name is not None:
        raise RandomnessError(
            f"{where}: the function drew random numbers from a generator it "
            + ("made with no seed (np.random.default_rng())" if held_draw == "fresh" else
               "holds (such as rng.normal(...) or Python's random.random())")
            + (f" under vmap(axis_name={name!r}), whose rows cannot run one at a time"
               if name is not None and randomness != "error" else
               ", and random operations are disallowed under vmap(randomness='error') "
               "(the default)")
            + ".  Pass randomness='different' (each batch element its own draws, as a loop "
            "over the rows makes them) or randomness='same' (one draw shared by the batch), "
            "or draw outside the vmapped function and pass the sample in."
        )  # fmt: skip

    def rerun(sub_leaves, sub_size, sub_rows):
        return _vmap_call(
            func, sub_leaves, spec, dims, sub_size, kwargs, out_dims, randomness, where,
            split, sub_rows, True, True, name, aliases,
        )  # fmt: skip

    rows = numpy.arange(size) if rows is None else rows
    groups = [numpy.array([i]) for i in range(size)]
    return run_groups(groups, rerun, leaves, dims, rows, out_dims, where)


def _vmap_outputs(interp, out, out_dims, size, where, in_leaves=(), in_dims=()):
    leaves, spec = tree_flatten(out, none_is_leaf=False)
    dims = out_dims_per_leaf(out_dims, out, where)
    results = []
    for leaf, d in zip(leaves, dims):
        check_live(leaf, where)
        batched = type(leaf) is BatchTracer and leaf._interp is interp
        if d is None:
            if batched:
                raise OutDimsError(
                    f"{where}: out_dims is None for an output that varies across the batch; "
                    f"give it an int out_dim, or return a value that does not depend on the "
                    f"batched inputs"
                )
            leaf = as_plain(leaf)
            results.append(leaf.copy() if views_one_of(leaf, in_leaves) else leaf)
            continue
        if not isinstance(d, (int, numpy.integer)) or isinstance(d, bool):
            raise OutDimsError(f"{where}: every out_dims entry must be an int or None, got {d!r}")
        value = to_array(leaf, where, "every output")
        rank = fnp.ndim(value) + 1
        if not -rank <= d < rank:
            raise OutDimsError(
                f"{where}: out_dim={d} is out of range for an output of rank {rank - 1} (rank "
                f"{rank} with the batch axis); use an axis in [-{rank}, {rank})"
            )
        d = int(d) % rank
        if batched:
            val = value.val
            val = val if value.bdim == d else fnp.moveaxis(val, value.bdim, d)
            if in_leaves and views_one_of(val, in_leaves):
                # vmap(lambda x: x)(X) is the loop's np.stack: a new array, not X itself
                val = val.copy()
            results.append(val)
        else:
            s = fnp.shape(value)
            expanded = fnp.broadcast_to(
                fnp.reshape(value, s[:d] + (1,) + s[d:]), s[:d] + (size,) + s[d:]
            )
            if not isinstance(expanded, Tracer):
                # a constant output (a Python bool, say) lives where the batch lives
                xp = xp_of(expanded)
                if xp is numpy:  # (the inputs are looked at only here, for such an output)
                    batched = [leaf for leaf, d in zip(in_leaves, in_dims) if d is not None]
                    xp = next((x for x in map(xp_of, batched) if x is not numpy), numpy)
                expanded = xp.array(expanded, copy=True)
            results.append(expanded)
    return tree_unflatten(spec, results)


def _vmap_chunked(
    func, leaves, spec, dims, size, kwargs, out_dims, randomness, where, chunk, split=True,
    aliases=None,
):  # fmt: skip
    def piece(start, stop):
        chunk_leaves = [
            leaf if d is None else fnp.getitem(leaf, (slice(None),) * d + (slice(start, stop),))
            for leaf, d in zip(leaves, dims)
        ]
        return _vmap_call(
            func, chunk_leaves, spec, dims, stop - start, kwargs, out_dims, randomness, where,
            split, numpy.arange(start, stop), aliases=aliases,
        )  # fmt: skip

    if randomness != "same" or size <= chunk:
        return _chunk_loop(piece, size, chunk, out_dims, randomness, where, paths=True)
    held = held_generators(func, _passed(leaves, kwargs))
    known = with_global_object(func, held)
    mark = global_mark() if known is held else None
    shared = _sharing_held_draws(piece, known, raw_states(known) if known else None)
    out = _chunk_loop(shared, size, chunk, out_dims, randomness, where, paths=True)
    if mark is not None and global_drew(mark):  # its chunks drew one after another from
        note_global_object_draws(func)  # NumPy's global generator: NOTE [NumPy's global
        held = (*held, numpy.random.mtrand._rand)  # generator reached as an object]
        shared = _sharing_held_draws(piece, held, raw_states(held))
        out = _chunk_loop(shared, size, chunk, out_dims, randomness, where, paths=True)
    return out


def _chunk_rows(size: int, chunk: int) -> Callable[[int], str]:
    """``describe(c)``: chunk ``c`` and its rows, for an error."""

    def describe(c: int) -> str:
        stop = min((c + 1) * chunk, size)
        return f"chunk {c} (rows {c * chunk}..{stop - 1})"

    return describe


def _chunk_loop(piece, size, chunk, out_dims, randomness, where, paths=False):
    """``piece(start, stop)`` for consecutive chunks of ``range(size)``, joined along each
    output's ``out_dims`` axis (outputs with out_dim None are taken from the first chunk;
    ``paths``: the chunks may take different Python paths, so they must agree on the
    outputs' structure, per-row shapes and out_dim None values, as a split's groups)."""
    pieces = []
    # Every chunk must draw the same noise under randomness='same' (see NOTE [randomness
    # under vmap] in ftransforms/random.py).
    if randomness == "same":
        replay = same_randomness_across_chunks(explicit=True)
    else:
        replay = contextlib.nullcontext()
    with replay as group:
        for start in range(0, size, chunk) if size else (0,):
            if group is not None:  # (a chunk that splits runs one interpreter per group)
                group.next_chunk()
            pieces.append(piece(start, min(start + chunk, size)))
    if len(pieces) == 1:
        return pieces[0]
    if paths:  # the chunks may have taken different Python paths: checked as groups are
        return join_parts(pieces, out_dims, where, _chunk_rows(size, chunk))
    out_spec = tree_flatten(pieces[0])[1]
    all_leaves = [tree_flatten(p)[0] for p in pieces]
    dims_out = out_dims_per_leaf(out_dims, pieces[0], where)
    joined = []
    for k, d in enumerate(dims_out):
        parts = [leaves_k[k] for leaves_k in all_leaves]
        if d is None:
            joined.append(parts[0])
        else:
            joined.append(fnp.concatenate(parts, axis=int(d) % fnp.ndim(parts[0])))
    return tree_unflatten(out_spec, joined)


# -- reverse mode ----------------------------------------------------------------------


def _prepare_primals(primals_leaves, where, names, copy):
    prepared = []
    for k, leaf in enumerate(primals_leaves):
        value = to_array(leaf, where, lambda: names[k])
        if dtype_of(value).kind not in "biufc":
            raise NonDifferentiableInputError(
                f"{where}: {names[k]} has dtype {dtype_of(value)}; only numeric arrays can "
                f"be differentiated"
            )
        if isinstance(value, Tracer):
            value = detached(value)  # later writes into the caller's tracer stay outside
        elif copy:
            value = xp_of(value).array(value, copy=True)  # vjp_fn must not see later writes
        prepared.append(value)
    return prepared


def _vjp(func, primals, has_aux, where, copy):
    originals, spec = tree_flatten(transform_inputs(primals))
    names = LazyNames(func, primals)
    leaves = _prepare_primals(originals, where, names, copy)
    interp = ReverseInterpreter(where)
    with pushed(interp):
        # an integer input is not differentiated: a buffer the function may write into, as
        # grad's other arguments are (the caller's array is left alone)
        wrapped = [interp.new_input(v) if is_inexact(v) else mutable(v) for v in leaves]
        aliases = alias_plan(originals)  # NOTE [aliased arguments]
        if aliases is not None:
            wrapped = link(aliases, wrapped, where, lambda: names)
        in_ids = [w.id if type(w) is ReverseTracer else None for w in wrapped]
        wrapped = laid_out_arguments(originals, wrapped)  # NOTE [layout of elementwise results]
        out = transform_outputs(func(*tree_unflatten(spec, wrapped)))
        aux = None
        if has_aux:
            out, aux = check_pair(out, where)
        out_leaves, out_spec = tree_flatten(out)
        values, ids = [], []
        for leaf in out_leaves:
            check_live(leaf, where)
            if type(leaf) is ReverseTracer and leaf._interp is interp:
                values.append(leaf.value)
                ids.append(leaf.id)
            else:
                values.append(to_array(leaf, where, "every output"))
                ids.append(None)
        if has_aux:
            aux = _strip(aux, interp, ReverseTracer, "value", where, originals)
    return interp, leaves, spec, in_ids, values, out_spec, ids, aux


def _detached_output(v):
    """An output of ``vjp``/``linearize``, whose tape lives on: a copy of an array, a new
    object for a tracer (NOTE [mutation semantics] in core/mutation.py).  The copy keeps the
    array's memory layout, strides included (a broadcast or strided view stays one, over
    copied memory), so later ops sum in the same order as on the undetached value (and as
    under an outer transform, whose tracer holds that value)."""
    return _same_layout_copy(v) if type(v) is numpy.ndarray else detached(v)


def _same_layout_copy(v: numpy.ndarray) -> numpy.ndarray:
    """A copy of ``v`` with ``v``'s strides: the memory ``v`` views is copied (when it is
    at most four times ``v``'s own size, or ``v`` repeats elements) and viewed the same way;
    otherwise an ``order="K"`` copy."""
    base = v
    while isinstance(base.base, numpy.ndarray):
        base = base.base
    if base is v or v.size == 0 or not (base.flags.c_contiguous or base.flags.f_contiguous):
        return v.copy(order="K")
    if base.nbytes > 4 * max(v.nbytes, 1) and 0 not in v.strides:
        return v.copy(order="K")
    memory = base.copy(order="K")
    offset = v.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    try:
        out = numpy.ndarray(v.shape, v.dtype, buffer=memory, offset=offset, strides=v.strides)
    except ValueError:  # an empty array, or a view NumPy will not rebuild on this buffer
        return v.copy(order="K")
    out.flags.writeable = v.flags.writeable  # a broadcast view stays read-only
    return out


def _strip(tree, interp, cls, attr, where, inputs=()):
    """Replace this level's tracers in ``tree`` by their inner values (aux outputs); one
    that is (a view of) an array of ``inputs`` is copied (:func:`_unaliased`)."""
    leaves, spec = tree_flatten(tree)
    out = []
    for leaf in leaves:
        check_live(leaf, where)
        out.append(getattr(leaf, attr) if type(leaf) is cls and leaf._interp is interp else leaf)
    return tree_unflatten(spec, _unaliased([as_plain(v) for v in out], inputs))


def _fresh_aux(aux: Any, args: tuple, kwargs: dict) -> Any:
    """``aux`` with each array that is (a view of) one of the caller's arguments copied
    (:func:`_unaliased`): ``grad(f, has_aux=True)(x, y)`` with ``f`` returning ``y``."""
    leaves, spec = tree_flatten(aux)
    return tree_unflatten(spec, _unaliased(leaves, tree_flatten((args, kwargs))[0]))


def _unaliased(values: list, inputs: Sequence) -> list:
    """``values`` (a transform's outputs), with each array that is (a view of) one of the
    caller's arrays ``inputs`` copied: a write into a transform's result never reaches the
    caller's array (jvp's ``f(x) = x``, a cotangent a vjp passes through, ``x`` as aux)."""
    if not inputs:
        return values
    return [_same_layout_copy(v) if views_one_of(v, inputs) else v for v in values]


def vjp(
    func: Callable,
    *primals: Any,
    has_aux: bool = False,
    holomorphic: bool = False,
    reduce_axes: Any = (),
):
    """Evaluate ``func(*primals)`` and return ``(output, vjp_fn[, aux])``.

    ``vjp_fn(cotangent)`` takes a cotangent with the output's structure, shapes and dtypes
    and returns a tuple with one cotangent per primal.  It may be called many times (also
    under ``vmap``); it keeps the recorded computation alive until it is dropped.  Complex
    values follow JAX (NOTE [complex derivatives]): for a holomorphic ``func``,
    ``vjp_fn(c)`` is ``f'(z) * c``; ``holomorphic=True`` only checks that the inputs and
    outputs are complex.

    Example:
        >>> import numpy as np
        >>> from ftransforms import vjp
        >>> out, vjp_fn = vjp(np.sin, np.zeros(2))
        >>> vjp_fn(np.ones(2))[0]
        array([1., 1.])
    """
    check_callable(func, "vjp", "vjp(f, x)")
    where = f"vjp({fname(func)}{', holomorphic=True' if holomorphic else ''})"
    check_reduce_axes(reduce_axes, where)
    if holomorphic:
        check_holomorphic_inputs(primals, where, lambda: "primals")
    interp, leaves, spec, in_ids, values, out_spec, ids, aux = _vjp(
        func, primals, has_aux, where, copy=True
    )
    if holomorphic:
        check_holomorphic_outputs(values, where)

    def vjp_fn(*args: Any) -> tuple:
        if len(args) != 1:
            name = fname(func)
            raise TypeError(
                f"{where} vjp_fn: the function that vjp applied to {name} returned takes one "
                f"cotangent (shaped like the output), but the vjp_fn of {name} was called "
                f"with {len(args)} arguments; pass one pytree (vjp_fn((ct0, ct1)) for a "
                f"function that returns a pair)"
            )
        ct_leaves, ct_spec = tree_flatten(transform_inputs(args[0]))
        if ct_spec != out_spec:
            raise TangentMismatchError(
                f"{where} vjp_fn: the cotangent's structure {structure_str(spec=ct_spec)} "
                f"differs from the output's {structure_str(spec=out_spec)}; pass one cotangent "
                f"per output leaf"
            )
        seeds = {}
        for k, (ct, val, i) in enumerate(zip(ct_leaves, values, ids)):
            if not is_inexact(val):  # an integer output: no derivative, any cotangent
                check_shape(ct, val, f"{where} vjp_fn", f"cotangent {k}", "output")
                continue  # of its shape (JAX's float0 zeros, ones_like(out)) goes nowhere
            ct = check_like(ct, val, f"{where} vjp_fn", f"cotangent {k}", "output")
            if i is not None:  # one value returned twice: its cotangents add up
                seeds[i] = ct if i not in seeds else fnp.add(seeds[i], ct)
        wanted = [i for i in in_ids if i is not None]
        grads = interp.backward(seeds, wanted) if seeds else [None] * len(wanted)
        it = iter(grads)
        result = []
        for leaf, i in zip(leaves, in_ids):
            g = next(it) if i is not None else None
            result.append(float0_zeros(leaf) if g is None else as_plain(g))
        return tuple(tree_unflatten(spec, _unaliased(result, ct_leaves)))

    # new arrays: the kept tape holds the values (a write into the output stays outside)
    out = tree_unflatten(out_spec, [_detached_output(as_plain(v)) for v in values])
    return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)


# NOTE [autograd's argnum]: HIPS autograd spells the keyword ``argnum`` (``grad(f,
# argnum=(0, 1))`` in its examples); the transforms that carry autograd's names (grad,
# value_and_grad, jacobian/jacrev, hessian) take that spelling too, as the same ``argnums``,
# so a program ported by changing its imports runs.  Only the transform's construction
# pays for the wrapper, never a call of the function it returns.
def _takes_autograd_argnum(transform: Callable) -> Callable:
    @functools.wraps(transform)
    def with_argnum(func: Callable, *args: Any, argnum: Any = None, **kwargs: Any) -> Callable:
        if argnum is not None:
            if args or "argnums" in kwargs:
                raise ArgnumsError(
                    f"{transform.__name__}({fname(func)}, ...): got both argnum={argnum!r} "
                    f"(autograd's spelling) and argnums; pass one of them"
                )
            kwargs["argnums"] = argnum
        return transform(func, *args, **kwargs)

    return with_argnum


def grad_and_value(
    func: Callable,
    argnums: Any = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
    allow_int: bool = False,
    reduce_axes: Any = (),
) -> Callable:
    """Like :func:`grad`, returning ``(gradient, value)`` (``(gradient, (value, aux))`` with
    ``has_aux``): torch.func's order; :func:`value_and_grad` is JAX's.

    Example:
        >>> import numpy as np
        >>> from ftransforms import grad_and_value
        >>> g, v = grad_and_value(lambda x: (x ** 2).sum())(np.arange(3.0))
        >>> g, float(v)
        (array([0., 2., 4.]), 5.0)
    """

    check_callable(func, "grad")
    where = f"grad({fname(func)}{', holomorphic=True' if holomorphic else ''})"
    check_reduce_axes(reduce_axes, where)

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        nums, single = normalize_argnums(argnums, len(args), where)
        args = passed_inputs(args, nums)
        diff = tuple(args[i] for i in nums)
        names = LazyNames(func, args, leaves=False)
        for i, d in zip(nums, diff):
            if not allow_int:
                check_differentiable(d, where, lambda: names[i])
            if holomorphic:
                check_holomorphic_inputs(d, where, lambda: names[i])

        def partial(*d):
            return call_passing(func, args, nums, d, kwargs, where)

        interp, leaves, spec, in_ids, values, out_spec, ids, aux = _vjp(
            partial, diff, has_aux, where, copy=False
        )
        if not out_spec.is_leaf():
            got = structure_str(spec=out_spec)
            raise GradOutputError(
                f"{where}: the output must be a real scalar, got "
                f"{got if got == 'None' else f'the pytree {got}'}; return one scalar (e.g. a "
                f"sum of losses), or use jacrev"
            )
        value = values[0]
        check_scalar_output(value, where, holomorphic)
        if ids[0] is None:
            grads = [None] * len(leaves)
        else:
            seed = fnp.ones_like(value)
            wanted = [i for i in in_ids if i is not None]
            it = iter(interp.backward({ids[0]: seed}, wanted, consume=True))
            grads = [next(it) if i is not None else None for i in in_ids]
        # A tracer the function stored (a logged loss) keeps its interpreter: drop the
        # tape here so that it does not keep every intermediate array too.
        interp.tape.clear()
        del interp
        result = [
            (float0_zeros(leaf) if allow_int else as_plain(fnp.zeros_like(leaf)))
            if g is None
            else as_plain(g)
            for leaf, g in zip(leaves, grads)
        ]
        g = tree_unflatten(spec, result)
        g = g[0] if single else g
        value = as_plain(value)
        if has_aux:
            return g, (value, _fresh_aux(aux, args, kwargs))
        return g, value

    return wrapped


@_takes_autograd_argnum
def grad(
    func: Callable,
    argnums: Any = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
    allow_int: bool = False,
    reduce_axes: Any = (),
) -> Callable:
    """The gradient of a real-scalar-valued ``func`` with respect to ``args[argnums]``.

    ``argnums`` is an int (the gradient has that argument's structure) or a tuple of ints
    (a tuple of gradients).  With ``has_aux=True`` ``func`` returns ``(output, aux)`` and
    the result is ``(gradient, aux)``.  Keyword arguments are not differentiated.  For a
    complex input and real output the gradient is ``df/dx - 1j df/dy`` (JAX's convention);
    ``holomorphic=True`` takes a complex scalar output of complex inputs and gives the
    complex derivative ``f'(z)`` (``2 z`` for ``z ** 2``).  Integer/bool inputs in
    ``argnums`` raise :class:`~ftransforms.errors.NonDifferentiableInputError`; with
    ``allow_int=True`` (JAX's option) their gradient is a zero array of JAX's ``float0``
    dtype (``ftransforms.arguments.FLOAT0``) and the input's shape.  JAX's deprecated
    ``reduce_axes`` is accepted empty only.

    Example:
        >>> import numpy as np
        >>> from ftransforms import grad
        >>> grad(lambda x: np.sum(x ** 3))(np.array([1.0, 2.0]))
        array([ 3., 12.])
        >>> complex(grad(lambda z: z ** 2, holomorphic=True)(np.complex128(1 + 2j)))
        (2+4j)
    """
    gv = grad_and_value(func, argnums, has_aux, holomorphic, allow_int, reduce_axes)

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapped


@_takes_autograd_argnum
def value_and_grad(
    func: Callable,
    argnums: Any = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
    allow_int: bool = False,
    reduce_axes: Any = (),
) -> Callable:
    """JAX's name and order: ``(value, gradient)``, ``((value, aux), gradient)`` with
    ``has_aux``; otherwise :func:`grad_and_value` (torch.func's ``(gradient, value)``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import value_and_grad
        >>> v, g = value_and_grad(lambda x: (x ** 2).sum())(np.arange(3.0))
        >>> float(v), g
        (5.0, array([0., 2., 4.]))
    """
    gv = grad_and_value(func, argnums, has_aux, holomorphic, allow_int, reduce_axes)

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        g, value = gv(*args, **kwargs)
        return value, g

    return wrapped


# -- forward mode ------------------------------------------------------------------------


def jvp(
    func: Callable,
    primals: Any,
    tangents: Any,
    *,
    has_aux: bool = False,
    holomorphic: bool = False,
    strict: bool = False,
):
    """Evaluate ``func(*primals)`` and its directional derivative along ``tangents``.

    Returns ``(output, jvp_out[, aux])``; ``tangents`` has the structure, shapes and dtypes
    of ``primals`` (both tuples of the positional arguments).  For a holomorphic ``func``
    of complex inputs ``jvp_out`` is ``f'(z) * t``; ``holomorphic=True`` only checks that
    the inputs and outputs are complex.  ``strict=True`` (torch.func's option) raises
    :class:`~ftransforms.errors.GradOutputError` where an output does not depend on the
    primals (by default its tangent is zeros).

    Example:
        >>> import numpy as np
        >>> from ftransforms import jvp
        >>> jvp(np.sin, (np.zeros(2),), (np.ones(2),))[1]
        array([1., 1.])
    """
    check_callable(func, "jvp", "jvp(f, (x,), (t,))")
    where = f"jvp({fname(func)}{', holomorphic=True' if holomorphic else ''})"
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TangentMismatchError(
            f"{where}: primals and tangents must be tuples of the function's positional "
            f"arguments, got {type(primals).__name__} and {type(tangents).__name__}; write "
            f"jvp(f, (x,), (t,))"
        )
    primals, tangents = transform_inputs((tuple(primals), tuple(tangents)))
    p_leaves, p_spec = tree_flatten(primals)
    t_leaves, t_spec = tree_flatten(tangents)
    if p_spec != t_spec:
        raise TangentMismatchError(
            f"{where}: tangents have structure {structure_str(spec=t_spec)} but primals have "
            f"{structure_str(spec=p_spec)}; give one tangent per primal leaf"
        )
    names = LazyNames(func, primals)
    if holomorphic:
        check_holomorphic_inputs(primals, where, lambda: "primals")
    interp = ForwardInterpreter(where)
    with pushed(interp):
        wrapped = []
        for k, (p, t) in enumerate(zip(p_leaves, t_leaves)):
            p = detached(to_array(p, where, lambda: names[k]))
            if is_inexact(p):
                t = check_like(t, p, where, lambda: f"the tangent of {names[k]}", "primal")
                wrapped.append(DualTracer(interp, p, t))
            else:
                check_zero_tangent(t, p, where, lambda: f"the tangent of {names[k]}", "primal")
                wrapped.append(mutable(p))  # a buffer: writes leave the caller's array alone
        aliases = alias_plan(p_leaves)  # NOTE [aliased arguments]
        if aliases is not None:
            wrapped = link(aliases, wrapped, where, lambda: names)
        wrapped = laid_out_arguments(p_leaves, wrapped)  # NOTE [layout of elementwise results]
        out = transform_outputs(func(*tree_unflatten(p_spec, wrapped)))
        aux = None
        if has_aux:
            out, aux = check_pair(out, where)
            aux = _strip(aux, interp, DualTracer, "primal", where, p_leaves + t_leaves)
        out_leaves, out_spec = tree_flatten(out)
        primal_out, tangent_out = [], []
        for leaf in out_leaves:
            check_live(leaf, where)
            if type(leaf) is DualTracer and leaf._interp is interp:
                primal_out.append(as_plain(leaf.primal))
                tangent_out.append(
                    as_plain(leaf.tangent) if is_inexact(leaf.primal) else float0_zeros(leaf)
                )
            else:
                if strict:
                    raise GradOutputError(
                        f"{where[:-1]}, strict=True): output leaf {len(primal_out)} does not "
                        f"depend on the primals, which strict=True does not allow (as in "
                        f"torch.func); drop strict=True to get a zero tangent for it"
                    )
                leaf = as_plain(to_array(leaf, where, "every output"))
                primal_out.append(leaf)
                tangent_out.append(float0_zeros(leaf))
    if holomorphic:
        check_holomorphic_outputs(primal_out, where)
    inputs = p_leaves + t_leaves
    primal_out, tangent_out = _unaliased(primal_out, inputs), _unaliased(tangent_out, inputs)
    result = (tree_unflatten(out_spec, primal_out), tree_unflatten(out_spec, tangent_out))
    return result + (aux,) if has_aux else result


def linearize(func: Callable, *primals: Any, has_aux: bool = False):
    """Evaluate ``func(*primals)`` once and return ``(output, jvp_fn)`` (with
    ``has_aux=True``, JAX's option: ``func`` returns ``(output, aux)`` and the result is
    ``(output, jvp_fn, aux)``).

    ``jvp_fn(*tangents)`` pushes tangents through the recorded computation without
    re-running ``func`` (JAX's and torch.func's ``linearize``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import linearize
        >>> out, jvp_fn = linearize(np.sin, np.zeros(2))
        >>> jvp_fn(np.ones(2))
        array([1., 1.])
    """
    check_callable(func, "linearize", "linearize(f, x)")
    where = f"linearize({fname(func)})"
    interp, leaves, spec, in_ids, values, out_spec, ids, aux = _vjp(
        func, primals, has_aux, where, copy=True
    )

    def jvp_fn(*tangents: Any) -> Any:
        t_leaves, t_spec = tree_flatten(transform_inputs(tangents))
        if t_spec != spec:
            raise TangentMismatchError(
                f"{where} jvp_fn: tangents have structure {structure_str(spec=t_spec)} but "
                f"primals have {structure_str(spec=spec)}; give one tangent per primal leaf"
            )
        seeds = {}
        for k, (t, p, i) in enumerate(zip(t_leaves, leaves, in_ids)):
            check = check_like if is_inexact(p) else check_zero_tangent
            t = check(t, p, f"{where} jvp_fn", f"tangent {k}", "primal")
            if i is not None:
                seeds[i] = t
        outs = interp.forward(seeds, [i for i in ids if i is not None])
        it = iter(outs)
        result = []
        for v, i in zip(values, ids):
            t = next(it) if i is not None else None
            if t is None or not is_inexact(v):  # an integer output: JAX's float0 zeros
                result.append(float0_zeros(v))
            else:
                result.append(as_plain(t))
        return tree_unflatten(out_spec, _unaliased(result, t_leaves))

    # new arrays: the kept tape holds the values (a write into the output stays outside)
    out = tree_unflatten(out_spec, [_detached_output(as_plain(v)) for v in values])
    return (out, jvp_fn, aux) if has_aux else (out, jvp_fn)


# -- Jacobians and Hessians -------------------------------------------------------------


def _basis(
    leaves: list,
    where: str,
    what: str = "value",
    rows: slice | None = None,
    holomorphic: bool = False,
) -> list:
    """For leaves of total size n: per leaf, the rows of eye(n) shaped (n, *leaf.shape);
    with ``rows``, only those rows (a chunk: (stop - start, *leaf.shape)).  Complex leaves
    only with ``holomorphic``, where every leaf must be complex."""
    sizes = [fnp.size(v) for v in leaves]
    total = sum(sizes)
    first, stop = (0, total) if rows is None else (rows.start, rows.stop)
    out, start = [], 0
    for v, n in zip(leaves, sizes):
        dt = dtype_of(v)
        if dt.kind not in "fc":
            raise GradOutputError(
                f"{where}: {where.split('(', 1)[0]} requires real-valued {what}s ({what} dtype "
                f"that is a sub-dtype of np.floating), but got {dt}: a Jacobian needs "
                f"floating-point {what}s, and an {what} of dtype {dt} has no derivative; cast "
                f"it to float (x.astype(np.float64)), or use vjp/jvp directly"
            )
        if holomorphic and dt.kind != "c":
            error = GradOutputError if what == "output" else NonDifferentiableInputError
            raise error(
                f"{where}: {where.split('(', 1)[0]} with holomorphic=True requires {what}s "
                f"with complex dtype, but got {dt}: holomorphic=True needs complex {what}s; "
                f"make it complex (x.astype(np.complex128)), or drop holomorphic=True"
            )
        if dt.kind == "c" and not holomorphic:
            raise GradOutputError(
                f"{where}: {where.split('(', 1)[0]} requires real-valued {what}s ({what} dtype "
                f"that is a sub-dtype of np.floating), but got {dt}: "
                f"this Jacobian would need complex {what}s as basis directions, which "
                f"is not defined for non-holomorphic functions (as in JAX); pass "
                f"holomorphic=True if the function is holomorphic, else split complex "
                f"values into real and imaginary parts, or use vjp/jvp directly"
            )
        xp = xp_of(v)
        # rows first..stop of eye(total) restricted to this leaf's columns start..start+n
        eye = xp.eye(stop - first, n, first - start, dtype=dt)
        out.append(eye.reshape((stop - first,) + tuple(fnp.shape(v))))
        start += n
    return out


def _map_basis(
    fn, leaves, where, what, chunk_size, out_dims=0, randomness="error", holomorphic=False
):
    """``vmap(fn, out_dims, randomness)(*_basis(leaves))``; with ``chunk_size``, each chunk
    of basis rows is built inside the chunk loop, so that memory is bounded by the chunk
    (the basis alone is n x n)."""
    fn.__name__ = fn.__qualname__ = where  # errors inside say "vmap(jacfwd(f), ...): "
    fn.over_a_basis = True  # NOTE [batched writes into captured arrays]: not a user's loop
    if not leaves:  # no output (jacrev) / input (jacfwd) leaves: a Jacobian of no blocks
        return vmap(fn, out_dims=out_dims, randomness=randomness, axis_size=0)()
    total = sum(fnp.size(v) for v in leaves)
    if chunk_size is None or total <= chunk_size:
        basis = _basis(leaves, where, what, holomorphic=holomorphic)
        return vmap(fn, out_dims=out_dims, randomness=randomness)(*basis)
    _basis(leaves, where, what, slice(0, 0), holomorphic)  # the dtype checks, before any work

    def piece(start, stop):
        basis = _basis(leaves, where, what, slice(start, stop), holomorphic)
        return vmap(fn, out_dims=out_dims, randomness=randomness)(*basis)

    if randomness == "same":  # every chunk the same draws, as one vmap's parts
        held = held_generators(fn, leaves)
        piece = _sharing_held_draws(piece, held, raw_states(held) if held else None)
    return _chunk_loop(piece, total, chunk_size, out_dims, randomness, where)


@_takes_autograd_argnum
def jacrev(
    func: Callable,
    argnums: Any = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
    allow_int: bool = False,
    *,
    chunk_size: int | None = None,
) -> Callable:
    """The Jacobian of ``func`` by reverse mode: ``vmap`` of ``vjp`` over output basis
    vectors.  Each output leaf becomes ``output.shape + input.shape``; with pytree outputs
    or ``argnums`` tuples the result nests as in torch.func/JAX.  ``chunk_size`` pulls back
    that many basis vectors at a time, each chunk's basis rows built inside the loop: peak
    memory is bounded by the chunk, not by the output size (same result).
    ``holomorphic=True``: complex inputs and outputs, the complex Jacobian ``df/dz``.
    The positional order is JAX's (``argnums, has_aux, holomorphic, allow_int``);
    ``allow_int=True`` gives integer inputs zero blocks of their dtype (as JAX).  Keyword
    arguments of the call are passed to ``func`` and not differentiated (as in JAX).

    Example:
        >>> import numpy as np
        >>> from ftransforms import jacrev
        >>> jacrev(np.sin)(np.zeros(2))
        array([[1., 0.],
               [0., 1.]])
    """
    check_callable(func, "jacrev")
    check_chunk_size(chunk_size, f"jacrev({fname(func)}, chunk_size={chunk_size!r})")

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        where = f"jacrev({fname(func)}{', holomorphic=True' if holomorphic else ''})"
        nums, single = normalize_argnums(argnums, len(args), where)
        args = passed_inputs(args, nums)
        diff = tuple(args[i] for i in nums)
        for i, d in zip(nums, diff):
            if not allow_int:
                check_differentiable(d, where, lambda: arg_names(func, len(args))[i])
            if holomorphic:
                check_holomorphic_inputs(d, where, lambda: arg_names(func, len(args))[i])

        def partial(*d):
            return call_passing(func, args, nums, d, kwargs, where)

        interp, leaves, spec, in_ids, values, out_spec, ids, aux = _vjp(
            partial, diff, has_aux, where, copy=False
        )

        def pullback(*basis_leaves):
            seeds = {}
            for b, i in zip(basis_leaves, ids):
                if i is not None:  # one value returned twice: its cotangents add up
                    seeds[i] = b if i not in seeds else fnp.add(seeds[i], b)
            wanted = [i for i in in_ids if i is not None]
            it = iter(interp.backward(seeds, wanted) if seeds else [None] * len(wanted))
            res = [next(it) if i is not None else None for i in in_ids]
            return [fnp.zeros_like(leaf) if g is None else g for leaf, g in zip(leaves, res)]

        # per input leaf: (M, *in)
        cols = _map_basis(pullback, values, where, "output", chunk_size, holomorphic=holomorphic)
        interp.tape.clear()  # done with it, even if a stored tracer outlives this call
        jac = _assemble(values, out_spec, leaves, spec, cols, single, rows_are_outputs=True)
        return (jac, _fresh_aux(aux, args, kwargs)) if has_aux else jac

    return wrapped


#: JAX's other name for :func:`jacrev` (``jax.jacobian``).
jacobian = jacrev


def _assemble(out_leaves, out_spec, in_leaves, in_spec, cols, single, rows_are_outputs):
    """Cut the stacked basis results into one block per (output leaf, input leaf)."""
    out_sizes = [fnp.size(v) for v in out_leaves]
    in_sizes = [fnp.size(v) for v in in_leaves]
    per_out = []
    o_start = 0
    for o_val, o_n in zip(out_leaves, out_sizes):
        o_shape = tuple(fnp.shape(o_val))
        blocks = []
        i_start = 0
        for k, (i_val, i_n) in enumerate(zip(in_leaves, in_sizes)):
            i_shape = tuple(fnp.shape(i_val))
            if rows_are_outputs:  # cols[k]: (total_out, *i_shape)
                block = cols[k][o_start : o_start + o_n]
                block = fnp.reshape(block, o_shape + i_shape)
            else:  # cols[j]: (total_in, *o_shape) for output leaf j
                block = cols[len(per_out)][i_start : i_start + i_n]
                block = fnp.moveaxis(block, 0, -1) if o_shape else block
                block = fnp.reshape(block, o_shape + i_shape)
            blocks.append(as_plain(block))
            i_start += i_n
        in_tree = tree_unflatten(in_spec, blocks)
        per_out.append(in_tree[0] if single else in_tree)
        o_start += o_n
    return tree_unflatten(out_spec, per_out)


def jacfwd(
    func: Callable,
    argnums: Any = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
    *,
    randomness: str = "error",
    chunk_size: int | None = None,
) -> Callable:
    """The Jacobian of ``func`` by forward mode: ``vmap`` of ``jvp`` over input basis
    vectors; same layout as :func:`jacrev`.  ``chunk_size`` pushes that many basis vectors
    at a time, each chunk's basis rows built inside the loop (peak memory bounded by the
    chunk; same result; neither JAX nor torch.func has it).  ``holomorphic=True``: complex
    inputs and outputs, the complex Jacobian ``df/dz``.  Keyword arguments of the call
    are passed to ``func`` and not differentiated (as in JAX).

    Example:
        >>> import numpy as np
        >>> from ftransforms import jacfwd
        >>> jacfwd(lambda x: x ** 2)(np.array([1.0, 3.0]))
        array([[2., 0.],
               [0., 6.]])
    """
    check_callable(func, "jacfwd")
    check_randomness(randomness, f"jacfwd({fname(func)}, randomness={randomness!r})")
    check_chunk_size(chunk_size, f"jacfwd({fname(func)}, chunk_size={chunk_size!r})")

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        where = f"jacfwd({fname(func)}{', holomorphic=True' if holomorphic else ''})"
        nums, single = normalize_argnums(argnums, len(args), where)
        args = passed_inputs(args, nums)
        diff = tuple(args[i] for i in nums)
        in_leaves, in_spec = tree_flatten(diff)
        in_leaves = [to_array(v, where, "every differentiated input") for v in in_leaves]
        for i, d in zip(nums, diff):
            check_differentiable(d, where, lambda: arg_names(func, len(args))[i])
        diff = tree_unflatten(in_spec, in_leaves)

        def partial(*d):
            out = call_passing(func, args, nums, d, kwargs, where)
            return check_pair(out, where) if has_aux else out

        def push(*basis_leaves):
            tangents = tree_unflatten(in_spec, list(basis_leaves))
            res = jvp(partial, diff, tangents, has_aux=has_aux)
            out, t_out = res[0], res[1]
            # an integer output's column is zeros of its dtype (JAX's jacfwd), not float0
            t_out = tree_map(_int_zeros_for_float0, t_out, out)
            return (t_out, out, res[2]) if has_aux else (t_out, out)

        # NOTE [jacfwd randomness]: under randomness='different' the primal output and aux
        # differ per basis vector, so they come back batched and, as in torch.func, the
        # first basis vector's are kept (the Jacobian only needs the output's shapes).
        o_dim = 0 if randomness == "different" else None
        out_dims = (0, o_dim, o_dim) if has_aux else (0, o_dim)
        res = _map_basis(
            push, in_leaves, where, "input", chunk_size, out_dims, randomness, holomorphic
        )
        if o_dim is not None:
            res = (res[0],) + tuple(_first_of_batch(r) for r in res[1:])
        t_out, out = res[0], res[1]
        out_leaves, out_spec = tree_flatten(out)
        if holomorphic:
            check_holomorphic_outputs(out_leaves, where)
        cols = tree_flatten(t_out)[0]  # per output leaf: (total_in, *o_shape)
        jac = _assemble(
            out_leaves, out_spec, in_leaves, in_spec, cols, single, rows_are_outputs=False
        )
        return (jac, _fresh_aux(res[2], args, kwargs)) if has_aux else jac

    return wrapped


def _int_zeros_for_float0(t: Any, out: Any) -> Any:
    """``t``, or zeros like ``out`` where ``t`` is ``jvp``'s float0 tangent of an integer
    output (a Jacobian holds zeros of the output's dtype there, as JAX's ``jacfwd``)."""
    return fnp.zeros_like(out) if dtype_of(t) == FLOAT0 else t


def _first_of_batch(tree: Any) -> Any:
    """Element 0 along the leading axis of every leaf (zeros of that shape for size 0)."""
    leaves, spec = tree_flatten(tree)
    firsts = [
        as_plain(fnp.getitem(v, 0)) if fnp.shape(v)[0] else fnp.zeros(fnp.shape(v)[1:], v.dtype)
        for v in leaves
    ]
    return tree_unflatten(spec, firsts)


@_takes_autograd_argnum
def hessian(
    func: Callable,
    argnums: Any = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
    *,
    chunk_size: int | None = None,
    randomness: str = "error",
) -> Callable:
    """The Hessian of a scalar ``func``: ``jacfwd(jacrev(func, argnums), argnums)``.
    ``chunk_size`` is the outer ``jacfwd``'s: that many Hessian columns (Hessian-vector
    products) at a time, so peak memory is bounded by the chunk (same result).
    ``randomness`` is the outer ``jacfwd``'s too: a ``func`` that draws (a dropout mask
    from ``rng.random``) raises under ``'error'``; ``'same'`` gives the Hessian for one
    draw, shared by every column (the generator moves on as one call of ``func`` moves
    it); ``'different'`` draws afresh per column, as ``jacfwd`` does.
    ``holomorphic=True`` is passed to both; with ``has_aux=True`` (JAX's) ``func`` returns
    ``(output, aux)`` and the result is ``(hessian, aux)``.  Keyword arguments of the call
    are passed to ``func`` and not differentiated.

    Example:
        >>> import numpy as np
        >>> from ftransforms import hessian
        >>> hessian(lambda x: (x ** 3).sum())(np.array([1.0, 2.0]))
        array([[ 6.,  0.],
               [ 0., 12.]])
    """
    check_callable(func, "hessian")
    check_chunk_size(chunk_size, f"hessian({fname(func)}, chunk_size={chunk_size!r})")
    check_randomness(randomness, f"hessian({fname(func)}, randomness={randomness!r})")
    inner = jacrev(func, argnums, has_aux, holomorphic)
    return jacfwd(
        inner, argnums, has_aux, holomorphic, chunk_size=chunk_size, randomness=randomness
    )
