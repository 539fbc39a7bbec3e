"""Random numbers that work under every transform, from an explicit generator or from
JAX-style keys (``PRNGKey``, ``split``, ``normal(key, shape)``, ...: NOTE [random keys] in
``ftransforms/random_keys.py``; a call whose first argument is a key goes there).

Each function takes a ``numpy.random.Generator`` (``numpy.random.default_rng(seed)``) or a
``cupy.random.Generator`` as its first argument and otherwise mirrors the generator method
of the same name (``normal``, ``uniform``, ``integers``/``randint``, ``permutation``,
``choice``), plus ``bernoulli`` (a mask)::

    normal(rng, loc=0.0, scale=1.0, size=None, *, dtype=None)
    uniform(rng, low=0.0, high=1.0, size=None, *, dtype=None)
    bernoulli(rng, p=0.5, size=None, *, dtype=bool)
    randint(rng, low, high=None, size=None, dtype=int64, endpoint=False)   # = integers
    permutation(rng, x, axis=0)
    choice(rng, a, size=None, replace=True, p=None, axis=0)

Parameters (``loc``, ``scale``, ``low``, ``high``, ``p``, and the arrays ``x``/``a`` that
are permuted or chosen from) may be tracers.  The samples are reparameterised, so
derivatives flow through the parameters and the noise is a constant:
``normal = loc + scale * eps``, ``uniform = low + (high - low) * u``, ``permutation`` and
``choice`` gather from ``x``/``a``.  Nothing is differentiable with respect to the
generator; ``bernoulli``, ``randint`` and the indices of ``choice`` have no derivative.
With scalar parameters and the default float64, ``normal``/``uniform``/``permutation``
draw exactly what the generator's own method draws from the same state.

NOTE [randomness under vmap]
----------------------------
``vmap(f, randomness=...)`` follows torch.func, level by level::

    randomness    a draw inside this vmap level
    'error'       raises RandomnessError (the default)
    'different'   one independent draw per batch element: the noise gets this level's
                  batch axis (axis_size), so every element sees a different sample
    'same'        one draw shared by the whole batch: the noise has no batch axis

The rule is applied to the *noise* (eps, u, the random keys or indices), drawn once per
call, and the parameters are then combined with the noise by ordinary primitives.  So a
batched parameter stays batched in every mode: under 'same' with a batched ``loc`` the
elements share eps and differ through ``loc`` (torch.func raises "same randomness with a
batched tensor input" there; torch's dropout under 'same' shares the mask the same way).

A draw usually has no tracer among its inputs (``normal(rng, size=3)``), so
``Primitive.bind`` would never reach a ``BatchInterpreter``.  Instead every function here
looks at the active interpreter stack (``core.stack.current_stack()``) itself, innermost
level first: any vmap level with 'error' raises; the 'different' levels (outermost first)
become leading axes of one physical draw of shape ``(*their axis sizes, *size)``, which is
wrapped in one ``BatchTracer`` per level; 'same' levels add nothing.  Levels of other
transforms (grad, jvp) do not wrap the noise, which is why it is a constant for them.  This
is what torch's FuncTorchVmapMode does: every vmap layer sees every random op, batched
inputs or not.  Because the whole treatment happens before ``bind``, no batching rule has
to know the randomness setting, and ``BatchInterpreter`` needs no change; the draw
primitives' batching rule is never reached (they take no positional inputs) and says so.

NumPy's own global functions (``np.random.normal``, ``np.random.randn``, ...) follow the
same rule: while a transform is active they are wrapped (with NumPy's creation functions,
``core/mutation.py``'s ``PATCHED_WHILE_ACTIVE``; nothing is wrapped otherwise); under
'different' each batch element gets its own call, under 'same' one call serves the batch.
A ``np.random.Generator`` held by the user (``rng.normal``) is a C object that cannot be
wrapped (nor can Python's ``random.random()``, a method of the module's
``random.Random``): vmap finds the generators the function reaches (closures, globals,
defaults, bound objects, the items of containers and the fields of the user's objects,
object arguments; ``host_random.held_generators``, once per function object, again
where a global that held a generator was rebound since) and reads their states before
and after the call.  A state that moved means the batch shared one draw: 'error' raises
(the states set back), 'different' runs the rows one at a time from the states before
(NumPy's global one set back too: the draws of a loop over the rows; also where the
batch split or raised after a shared draw, or a group of a split drew: the groups would
draw in group order), 'same' keeps the result; a generator made inside with no seed:
NOTE [fresh entropy under vmap] in host_random.py;
where a 'same' batch runs in parts (the groups of a split, the chunks of ``chunk_size``)
each part starts those generators from their states before the first part, and they are
left where the first part left them (``api._sharing_held_draws``; a generator that
``ftransforms.random`` draws from is replayed as below instead).

``vmap(..., chunk_size=n, randomness='same')`` runs the batch in pieces; every piece must
see the same noise, so api.py wraps the chunk loop in :func:`same_randomness_across_chunks`,
which replays each generator from its state at its first use (torch resets its global RNG
state per chunk for the same reason).  Where a 'same' batch splits, its first run drew
before anything was copied (a copy at every call would cost more than the call: 0.1-1 ms
for a ``Generator``/``RandomState``), so the draws of each 'same' call's first run are
logged instead (:class:`_DrawLog`, a list append per draw) and every group's run takes
them back in order; its draws past them go through the same replay as chunks.
``jacfwd(f, randomness=...)`` passes the setting to
the vmap over basis vectors, exactly as torch.func does.
"""

from __future__ import annotations

import copy
import math
import operator
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.backend import is_array
from ftransforms.core.errors import PRNGKeyError, RandomnessError
from ftransforms.core.mutation import PATCHED_WHILE_ACTIVE, user_array
from ftransforms.core.primitive import defop
from ftransforms.core.stack import OUTERMOST_HOOKS, current_stack
from ftransforms.core.tracer import Tracer
from ftransforms.host_random import before_global_draw, clear_traced_draws, note_traced_draw
from ftransforms.interpreters.batching import BatchInterpreter, BatchTracer
from ftransforms.numpy.generator_out import (
    TRACED_PARAMETER_DRAWS,
    refuse_traced_parameters,
    standard_method,
    traced_choice,
    traced_parameter_draw,
)
from ftransforms.numpy.helpers import dtype_of, holds_tracer, normalize_axis, xp_of
from ftransforms.row_seeds import GLOBAL_SEEDER, RESEEDED, SEED_WRAPPERS

__all__ = [
    "bernoulli",
    "choice",
    "integers",
    "normal",
    "permutation",
    "randint",
    "same_randomness_across_chunks",
    "uniform",
]


# -- the draw primitives ----------------------------------------------------------------


def _unreachable_batch_rule(prim: Any, args: Any, bdims: Any, axis_size: int, **params: Any):
    raise AssertionError(
        f"{prim.name}: a draw primitive takes no positional inputs, so no BatchInterpreter "
        f"can dispatch to it; vmap's randomness is applied before bind (see NOTE "
        f"[randomness under vmap] in ftransforms/random.py)"
    )


def _float_draw_dtype(dtype: numpy.dtype) -> numpy.dtype:
    # Generators draw float32/float64 only; float16 is drawn as float32 and rounded.
    return dtype if dtype.itemsize >= 4 else numpy.dtype(numpy.float32)


def _normal_impl(xp: Any, *, rng: Any, shape: tuple, dtype: numpy.dtype) -> Any:
    out = rng.standard_normal(shape, dtype=_float_draw_dtype(dtype))
    return out if out.dtype == dtype else out.astype(dtype)


def _uniform_impl(xp: Any, *, rng: Any, shape: tuple, dtype: numpy.dtype) -> Any:
    out = rng.random(shape, dtype=_float_draw_dtype(dtype))
    if out.dtype == dtype:
        return out
    below_one = numpy.nextafter(dtype.type(1), dtype.type(0))  # rounding must not reach 1
    return _backend(rng).minimum(out.astype(dtype), below_one)


def _integers_impl(xp: Any, *, rng: Any, low: Any, high: Any, shape: tuple, dtype: Any) -> Any:
    return rng.integers(low, high, shape, dtype=dtype)


def _permutation_impl(xp: Any, *, rng: Any, shape: tuple) -> Any:
    n = shape[-1]
    if _is_numpy_rng(rng):
        if len(shape) == 1:
            return rng.permutation(n)
        return rng.permuted(numpy.broadcast_to(numpy.arange(n), shape), axis=-1)
    return _backend(rng).argsort(rng.random(shape), axis=-1)  # one random key per slot


random_normal_p = defop(
    "random_normal",
    _normal_impl,
    nondiff=True,
    batch=_unreachable_batch_rule,
    doc="Standard normal noise of ``shape`` (params: rng, shape, dtype).",
)
random_uniform_p = defop(
    "random_uniform",
    _uniform_impl,
    nondiff=True,
    batch=_unreachable_batch_rule,
    doc="Uniform noise in [0, 1) of ``shape`` (params: rng, shape, dtype).",
)
random_integers_p = defop(
    "random_integers",
    _integers_impl,
    nondiff=True,
    batch=_unreachable_batch_rule,
    doc="Integers in [low, high) of ``shape``; low/high are concrete (params).",
)
random_permutation_p = defop(
    "random_permutation",
    _permutation_impl,
    nondiff=True,
    batch=_unreachable_batch_rule,
    doc="Independent permutations of range(shape[-1]) along the last axis of ``shape``.",
)


# -- generators and backends ------------------------------------------------------------


def _is_numpy_rng(rng: Any) -> bool:
    return isinstance(rng, numpy.random.Generator)


def _is_cupy_rng(rng: Any) -> bool:
    return type(rng).__module__.split(".")[0] == "cupy" and hasattr(rng, "standard_normal")


def _backend(rng: Any) -> Any:
    if _is_numpy_rng(rng):
        return numpy
    import cupy  # noqa: PLC0415  (optional dependency, imported only for a cupy generator)

    return cupy


def _check_rng(rng: Any, where: str) -> None:
    if _is_numpy_rng(rng) or _is_cupy_rng(rng):
        return
    got = type(rng).__name__
    if hasattr(rng, "dtype"):
        got = f"{got} of dtype {rng.dtype}"
    raise PRNGKeyError(
        f"{where}: rng must be a numpy.random.Generator or a cupy.random.Generator, or a "
        f"JAX-style key (a uint32 array of shape (2,)), got {got}; create a generator with "
        f"numpy.random.default_rng(seed), or a key with ft.random.key(seed)"
    )


# -- the vmap levels: NOTE [randomness under vmap] ---------------------------------------


def _different_levels(where: str) -> list[BatchInterpreter]:
    """The active vmap levels with randomness='different', outermost first; raises for any
    level with randomness='error' (the innermost such level is named)."""
    levels = []
    for interp in reversed(current_stack()):
        note = getattr(interp, "note_value_read", None)
        if note is not None:  # a jit recording must not bake this draw in
            note(f"a random draw ({where})")
        if not isinstance(interp, BatchInterpreter):
            continue
        if interp.randomness == "error":
            raise RandomnessError(
                f"{interp.name}: {where} draws random numbers, and random operations are "
                f"disallowed under vmap(randomness='error') (the default).  Pass "
                f"randomness='different' (an independent draw per batch element) or "
                f"randomness='same' (one draw shared by the whole batch) to vmap (or to "
                f"jacfwd), or draw outside the vmapped function and pass the sample in."
            )
        if interp.randomness == "different":
            levels.append(interp)
    levels.reverse()
    return levels


def _wrap(raw: Any, levels: list[BatchInterpreter]) -> Any:
    """``raw`` with leading axes (one per level, outermost first) as a batched value."""
    out = raw
    for interp in levels:
        out = BatchTracer(interp, out, 0)
    return out


def _draw(where: str, rng: Any, make: Any) -> Any:
    """Noise for the current vmap levels: ``make(rng, batch_shape)`` draws a raw array
    whose leading axes are ``batch_shape`` (the 'different' levels' sizes)."""
    levels = _different_levels(where)
    batch = tuple(interp.axis_size for interp in levels)
    note_traced_draw(rng)  # vmap need not rerun rows for it (host_random.moved)
    return _wrap(_logged(lambda: make(_replayed(rng), batch), rng), levels)


# -- NumPy's global random functions (np.random.normal, ...) under vmap ------------------

#: ``numpy.random``'s module functions that draw from its global ``RandomState``.
_GLOBAL_DRAWS = (
    "beta binomial chisquare choice dirichlet exponential f gamma geometric gumbel "
    "hypergeometric laplace logistic lognormal logseries multinomial multivariate_normal "
    "negative_binomial noncentral_chisquare noncentral_f normal pareto permutation poisson "
    "power rand randint randn random random_integers random_sample ranf rayleigh sample "
    "shuffle standard_cauchy standard_exponential standard_gamma standard_normal standard_t "
    "triangular uniform vonmises wald weibull zipf"
).split()
_METHOD = {"ranf": "random_sample", "sample": "random_sample"}
_GLOBAL = numpy.random.mtrand._rand  # the generator they draw from


def _global_draw(name: str) -> Any:
    method = _METHOD.get(name, name)
    where = f"numpy.random.{name}"

    def draw(*args: Any, **kwargs: Any) -> Any:
        levels = _different_levels(where)  # raises under randomness='error'
        before_global_draw()  # a vmap whose rows may rerun sets it back from here
        if name in _TRACED_ARGUMENTS and any(
            isinstance(v, Tracer) for v in (*args, *kwargs.values())
        ):
            return _TRACED_ARGUMENTS[name](name, levels, args, kwargs)
        if name not in ("permutation", "shuffle"):  # (these take a traced array)
            refuse_traced_parameters(where, args, kwargs)
        if RESEEDED:  # rows that reseeded draw the same numbers (NOTE [seeds of some rows])
            levels = [interp for interp in levels if interp not in RESEEDED]
        if not levels and name == "permutation":  # called by that name: a traced array is
            permutation = _replayed(numpy.random.mtrand._rand).permutation  # then copied
            return _logged(lambda: permutation(*args, **kwargs), _GLOBAL)  # (tracer's __array__)
        if not levels and name != "shuffle":  # no vmap, or randomness='same': one draw for
            drawn = _logged(  # the whole batch
                lambda: getattr(_replayed(numpy.random.mtrand._rand), method)(*args, **kwargs),
                _GLOBAL,
            )
            # a new array, as np.zeros makes: user code may write traced values into it
            # (v = np.random.randn(n); v += t), NOTE [mutation semantics]
            return user_array(drawn, name)
        rng = _replayed(numpy.random.mtrand._rand)
        if not levels:  # shuffle, with randomness='same' or no vmap
            shuffle = rng.shuffle  # called by that name: NOTE [shuffling a traced array]
            return shuffle(*args, **kwargs)
        if name == "shuffle":
            raise RandomnessError(
                f"{levels[-1].name}: numpy.random.shuffle shuffles one array in place, so "
                f"it cannot give each batch element its own order under "
                f"randomness='different'; use x = np.random.permutation(x)."
            )
        batch = tuple(interp.axis_size for interp in levels)
        if name == "permutation" and args and holds_tracer(args[0]) and not kwargs:
            # a traced array: each row's order drawn as a loop over the rows draws it
            # (permutation(len(x)) takes the same draws), then the rows gathered by it
            n = len(args[0])
            order = _logged(
                lambda: numpy.stack([rng.permutation(n) for _ in range(math.prod(batch))]).reshape(
                    batch + (n,)
                ),
                _GLOBAL,
            )
            return args[0][_wrap(order, levels)]

        def rows() -> Any:
            drawn = [
                numpy.asarray(getattr(rng, method)(*args, **kwargs))
                for _ in range(math.prod(batch))
            ]
            raw = numpy.stack(drawn) if drawn else numpy.empty((0,))
            return raw.reshape(batch + raw.shape[1:])

        return _wrap(_logged(rows, _GLOBAL), levels)

    draw.__name__ = draw.__qualname__ = name
    draw.__wrapped__ = getattr(numpy.random, name)
    draw.__doc__ = draw.__wrapped__.__doc__
    return draw


def _global_drawer(levels: list) -> Any:
    """``drawer(call)``: ``call(rng)``'s draws from NumPy's global generator as a global
    draw makes them: one draw for the batch (no vmap, or randomness='same'), or one per
    row of the 'different' levels among ``levels`` (a batched value)."""
    if RESEEDED:  # NOTE [seeds of some rows]
        levels = [interp for interp in levels if interp not in RESEEDED]
    rng = _replayed(numpy.random.mtrand._rand)
    if not levels:
        return lambda call: _logged(lambda: call(rng), _GLOBAL)
    batch = tuple(interp.axis_size for interp in levels)

    def rows(call: Any) -> Any:
        drawn = [numpy.asarray(call(rng)) for _ in range(math.prod(batch))]
        return numpy.stack(drawn).reshape(batch + drawn[0].shape)

    return lambda call: _wrap(_logged(lambda: rows(call), _GLOBAL), levels)


def _traced_choice(name: str, levels: list, args: tuple, kwargs: dict) -> Any:
    """``numpy.random.choice`` with a traced population or probabilities (NOTE [choices
    among traced values] in ftransforms/numpy/generator_out.py)."""

    def choice(a: Any, size: Any = None, replace: bool = True, p: Any = None) -> Any:
        if isinstance(a, Tracer) and a.ndim > 1:
            raise ValueError("a must be 1-dimensional")  # NumPy's words (RandomState's)
        drawer = _global_drawer(levels)
        return traced_choice(a, p, 0, lambda n, q: drawer(lambda r: r.choice(n, size, replace, q)))

    return choice(*args, **kwargs)


_STANDARD_DRAWS = {
    "normal": "standard_normal",
    "uniform": "random_sample",
    "exponential": "standard_exponential",
}


def _traced_parameters(name: str, levels: list, args: tuple, kwargs: dict) -> Any:
    """``numpy.random.<name>`` with a traced parameter (NOTE [draws with traced
    parameters] in ftransforms/numpy/generator_out.py)."""
    drawer = _global_drawer(levels)

    def standard(kind: Any, shape: tuple) -> Any:
        method, unit = standard_method(_STANDARD_DRAWS, kind)
        return drawer(lambda r: getattr(r, method)(*unit, shape))

    return traced_parameter_draw(name, standard, args, kwargs)


#: The global draws that take traced arguments (the others refuse them, as NumPy does).
_TRACED_ARGUMENTS = {"choice": _traced_choice}
_TRACED_ARGUMENTS.update(dict.fromkeys(TRACED_PARAMETER_DRAWS, _traced_parameters))


OUTERMOST_HOOKS.append((lambda interp: None, clear_traced_draws))

_GLOBAL_WRAPPERS = {name: _global_draw(name) for name in _GLOBAL_DRAWS}
_GLOBAL_WRAPPERS.update(SEED_WRAPPERS)  # NOTE [seeds of some rows]
PATCHED_WHILE_ACTIVE.append(
    (vars(numpy.random), _GLOBAL_WRAPPERS, {n: w.__wrapped__ for n, w in _GLOBAL_WRAPPERS.items()})
)


# -- chunked vmap with randomness='same' -------------------------------------------------


class _ChunkGroup:
    """One chunked vmap call with randomness='same': each chunk replays the generators."""

    def __init__(self, level: int, explicit: bool = False) -> None:
        self.level = level  # the stack level the chunk interpreters are pushed at
        self.chunk: Any = None  # the interpreter of the chunk now running
        self.snapshots: dict[int, tuple[Any, Any]] = {}  # id(rng) -> (rng, state copy)
        self.replays: dict[int, Any] = {}  # id(rng) -> the copy this chunk draws from
        # chunks are started by next_chunk() (a chunk whose batch splits runs several
        # interpreters at its level, one per group), not told apart by the interpreter
        self.explicit = explicit

    def start(self, chunk: Any) -> None:
        first = self.chunk is None
        self.chunk = chunk
        self.replays = {} if first else {k: None for k in self.snapshots}

    def next_chunk(self) -> None:
        self.start(object())


class _Groups(threading.local):
    def __init__(self) -> None:
        self.active: list[_ChunkGroup] = []


_GROUPS = _Groups()


@contextmanager
def same_randomness_across_chunks(explicit: bool = False) -> Iterator[_ChunkGroup]:
    """Make every chunk of a chunked ``vmap(randomness='same')`` draw the same noise.

    Used by ``vmap`` around its chunk loop.  The first chunk draws from the user's
    generators (leaving them where an unchunked call would); later chunks draw from copies
    of each generator taken just before its first use in the first chunk.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms.random import normal, same_randomness_across_chunks
        >>> rng = np.random.default_rng(0)
        >>> f = ft.vmap(lambda x: x + normal(rng), randomness="same")
        >>> with same_randomness_across_chunks():  # each call plays the part of a chunk
        ...     chunks = [f(np.zeros(2)), f(np.zeros(2))]
        >>> np.concatenate(chunks)  # rng's first draw everywhere, as with chunk_size=2
        array([0.12573022, 0.12573022, 0.12573022, 0.12573022])
        >>> float(np.random.default_rng(0).normal())
        0.1257302210933933
    """
    group = _ChunkGroup(len(current_stack()) + 1, explicit)
    _GROUPS.active.append(group)
    try:
        yield group
    finally:
        _GROUPS.active.remove(group)


def _replayed(rng: Any) -> Any:
    """The generator a draw must use: ``rng``, or its replay inside a later chunk."""
    if not _GROUPS.active:
        return rng
    stack = current_stack()
    for group in _GROUPS.active:
        if len(stack) < group.level:
            continue
        chunk = stack[group.level - 1]
        if not group.explicit and chunk is not group.chunk:  # a new chunk started: replay
            group.start(chunk)  # from the snapshots
        key = id(rng)
        if key not in group.snapshots:
            group.snapshots[key] = (rng, copy.deepcopy(rng))
        elif group.replays.get(key, 0) is None:
            group.replays[key] = copy.deepcopy(group.snapshots[key][1])
        replay = group.replays.get(key)
        if replay is not None:
            rng = replay
    return rng


# -- a split vmap(randomness='same') replays its first run's draws ----------------------


class _DrawLog:
    """The draws of one run of a ``vmap(randomness='same')`` level, in order (kept on its
    interpreter, made at its first draw); where that run splits the batch, the run of each
    group takes them back in the same order (its path up to the split is the first run's),
    so every row shares the draws, as in the loop over rows each starting from the same
    generator state.  Draws past them go through :func:`same_randomness_across_chunks`."""

    __slots__ = ("level", "values", "sources", "frozen", "run", "pos", "reseeded")

    def __init__(self) -> None:
        self.level = 0  # the stack level of the group runs replaying it
        self.values: list = []
        self.sources: list = []  # the generator each value came from
        # a draw in a masked Python loop (rows riding along, split.py), or once a split
        # waits (NOTE [a split under SciPy's compiled code]), stops the log: a group whose
        # rows leave the loop sooner draws less there, and its later draws would take other
        # draws' values (of other sizes)
        self.frozen = False
        self.run: Any = None  # the interpreter of the group run now replaying
        self.pos = 0  # the next value it takes
        self.reseeded = False  # whether that run seeded NumPy's global generator (NOTE [a
        # reseed in a split 'same' batch])


class _Logs(threading.local):
    def __init__(self) -> None:
        self.active: list[_DrawLog] = []  # the logs being replayed, outermost first


_LOGS = _Logs()


@contextmanager
def replaying_draws(interp: Any) -> Iterator[None]:
    """While the groups of a split of ``interp``'s run (a ``vmap(randomness='same')``
    level, api.py) run, each group's run takes back that run's draws (:class:`_DrawLog`)."""
    log = interp.draw_log
    if log is None:  # it drew nothing
        yield
        return
    log.level = len(current_stack()) + 1
    _LOGS.active.append(log)
    try:
        yield
    finally:
        _LOGS.active.remove(log)


def _logged(draw: Any, source: Any) -> Any:
    """``draw()``, or the value a replayed :class:`_DrawLog` holds for this point of the
    run; the 'same' vmap levels on the stack log it.  ``source``: the generator drawn from
    (NOTE [a reseed in a split 'same' batch])."""
    stack = current_stack()
    value = _NOT_LOGGED
    for log in _LOGS.active:  # outermost first: its value is the one its run drew here
        if len(stack) < log.level:
            continue
        _log_run(log, stack)
        if log.pos < len(log.values):
            if value is _NOT_LOGGED and _replays(log, source):
                value = log.values[log.pos]
            log.pos += 1
    value = draw() if value is _NOT_LOGGED else _copy(value)
    for interp in stack:
        if type(interp) is BatchInterpreter and interp.randomness == "same":
            log = interp.draw_log
            if log is None:
                log = interp.draw_log = _DrawLog()
            if log.frozen:
                continue
            if (interp.loops is not None and interp.loops.records) or interp.pending:
                log.frozen = True
            else:
                log.values.append(_copy(value))
                log.sources.append(source)
    return value


def _replays(log: _DrawLog, source: Any) -> bool:
    """Whether the group run takes the log's value here rather than drawing: not from a
    generator the run made itself, nor from NumPy's after the run reseeded it."""
    if log.sources[log.pos] is not source:
        return False
    return not (log.reseeded and source is _GLOBAL)


_NOT_LOGGED = object()


def _log_run(log: _DrawLog, stack: list) -> None:
    """Follow the group run now at ``log``'s level: a new one replays from the log's start."""
    run = stack[log.level - 1]
    if run is not log.run:
        log.run, log.pos, log.reseeded = run, 0, False


# NOTE [a reseed in a split 'same' batch]: a function that seeds NumPy's global generator
# and then draws (``np.random.seed(42)`` at the top of a sampler), or draws from a generator
# it makes from a seed (``rng = np.random.default_rng(42)``; ``ft.random.normal(rng)``),
# gives every row of a loop the same draws, as vmap(randomness='same') does.  Where that
# batch splits, each group's run took the first run's draws back from its log
# (:class:`_DrawLog`) without drawing, so the group's freshly seeded generator stood where
# the seed put it, and its draws past the log repeated the log's first values (a silent
# difference from the loop).  So the log keeps the generator of each value, and a group's
# run draws again where the generator is not the one the first run drew from (one it made
# itself) or is NumPy's after the run reseeded it (a reseed marks the logs): a generator
# seeded as in the first run gives the first run's values.  The reseed goes to the
# generator that run draws from (the first group's: NumPy's own; a later group's: its
# replay copy, :func:`_replayed`), so that NumPy's generator ends where the loop leaves it.
# Costs a list append per draw of a 'same' batch and a list walk per ``np.random.seed``
# under a transform, nothing elsewhere.
def _seed_global(seed: Any) -> None:
    stack = current_stack()
    for log in _LOGS.active:
        if len(stack) >= log.level:
            _log_run(log, stack)
            log.reseeded = True
    rng = _replayed(numpy.random.mtrand._rand)
    if rng is numpy.random.mtrand._rand:
        _NUMPY_SEED(seed)
    else:
        rng.seed(seed)


_NUMPY_SEED = numpy.random.seed  # (imported while no transform is active: NumPy's own)
GLOBAL_SEEDER[0] = _seed_global


def _copy(value: Any) -> Any:
    return value.copy() if hasattr(value, "copy") else value


# -- argument handling ------------------------------------------------------------------


def _size(size: Any, where: str) -> tuple[int, ...] | None:
    if size is None:
        return None
    try:
        if hasattr(size, "__iter__"):
            out = tuple(operator.index(s) for s in size)
        else:
            out = (operator.index(size),)
    except TypeError:
        raise TypeError(
            f"{where}: size must be None, an int or a tuple of ints, got {size!r}"
        ) from None
    if any(s < 0 for s in out):
        raise ValueError(f"{where}: size must not be negative, got {out}")
    return out


def _param(value: Any, name: str, where: str) -> Any:
    """A distribution parameter: an array, a tracer or a Python/NumPy number."""
    if isinstance(value, (Tracer, bool, int, float, numpy.generic)) or is_array(value):
        return value
    if isinstance(value, list):
        return numpy.asarray(value)
    hint = (
        "; the signature mirrors numpy's Generator methods, so give size= by keyword"
        if isinstance(value, tuple)
        else ""
    )
    raise TypeError(
        f"{where}: {name} must be an array or a number, got {type(value).__name__}{hint}"
    )


def _is_python_number(value: Any) -> bool:
    return isinstance(value, (bool, int, float))


def _float_dtype(dtype: Any, params: tuple, where: str) -> numpy.dtype:
    """The sample dtype: ``dtype`` if given, else that of the array parameters (Python
    numbers are weak, as in NumPy 2), else float64."""
    if dtype is not None:
        dtype = numpy.dtype(dtype)
        if dtype.kind != "f":
            raise TypeError(
                f"{where}: dtype must be a real floating-point dtype (float16, float32, "
                f"float64), got {dtype}"
            )
        return dtype
    dtypes = [dtype_of(p) for p in params if not _is_python_number(p)]
    if not dtypes:
        return numpy.dtype(numpy.float64)
    found = numpy.result_type(*dtypes)
    if found.kind == "c":
        raise TypeError(f"{where}: complex parameters are not supported, got {found}")
    return found if found.kind == "f" else numpy.dtype(numpy.float64)


def _sample_shape(size: tuple | None, params: dict, where: str) -> tuple[int, ...]:
    """``size``, or the broadcast shape of the parameters; checks they broadcast to it."""
    shapes = {name: fnp.shape(v) for name, v in params.items()}
    try:
        joint = numpy.broadcast_shapes(*shapes.values()) if shapes else ()
    except ValueError:
        listing = ", ".join(f"{k} has shape {s}" for k, s in shapes.items())
        raise ValueError(f"{where}: the parameters do not broadcast together: {listing}") from None
    if size is None:
        return joint
    try:
        ok = numpy.broadcast_shapes(size, joint) == size
    except ValueError:
        ok = False
    if not ok:
        listing = ", ".join(f"{k} has shape {s}" for k, s in shapes.items())
        raise ValueError(
            f"{where}: the parameters must broadcast to size={size}, but {listing}; give a "
            f"size they broadcast to, or size=None for their broadcast shape"
        )
    return size


def _cast(x: Any, dtype: numpy.dtype) -> Any:
    return x if dtype_of(x) == dtype else fnp.astype(x, dtype)


def _is_zero(x: Any) -> bool:
    return _is_python_number(x) and x == 0


def _is_one(x: Any) -> bool:
    return _is_python_number(x) and x == 1


# -- continuous distributions -----------------------------------------------------------


def normal(
    rng: Any, loc: Any = 0.0, scale: Any = 1.0, size: Any = None, *, dtype: Any = None
) -> Any:
    """Normal samples ``loc + scale * eps`` (``Generator.normal``), differentiable in
    ``loc`` and ``scale``.  ``dtype`` defaults to that of the array parameters, else
    float64.  Under ``vmap`` see NOTE [randomness under vmap].

    Example:
        >>> import numpy as np
        >>> from ftransforms import random
        >>> random.normal(np.random.default_rng(0), size=3).shape
        (3,)
    """
    where = "random.normal(rng, loc, scale, size)"
    _check_rng(rng, where)
    loc, scale = _param(loc, "loc", where), _param(scale, "scale", where)
    size = _size(size, where)
    dtype = _float_dtype(dtype, (loc, scale), where)
    shape = _sample_shape(size, {"loc": loc, "scale": scale}, where)
    eps = _draw(
        where,
        rng,
        lambda g, batch: random_normal_p.bind(rng=g, shape=batch + shape, dtype=dtype),
    )
    out = eps if _is_one(scale) else fnp.multiply(scale, eps)
    out = out if _is_zero(loc) else fnp.add(loc, out)
    return _cast(out, dtype)


def uniform(
    rng: Any, low: Any = 0.0, high: Any = 1.0, size: Any = None, *, dtype: Any = None
) -> Any:
    """Uniform samples in ``[low, high)`` as ``low + (high - low) * u``
    (``Generator.uniform``), differentiable in ``low`` and ``high``.

    Example:
        >>> import numpy as np
        >>> from ftransforms import random
        >>> x = random.uniform(np.random.default_rng(0), 2.0, 3.0, size=4)
        >>> bool(((x >= 2.0) & (x < 3.0)).all())
        True
    """
    where = "random.uniform(rng, low, high, size)"
    _check_rng(rng, where)
    low, high = _param(low, "low", where), _param(high, "high", where)
    size = _size(size, where)
    dtype = _float_dtype(dtype, (low, high), where)
    shape = _sample_shape(size, {"low": low, "high": high}, where)
    u = _draw(
        where,
        rng,
        lambda g, batch: random_uniform_p.bind(rng=g, shape=batch + shape, dtype=dtype),
    )
    if _is_zero(low) and _is_one(high):
        out = u
    else:
        width = high - low if _is_python_number(low) and _is_python_number(high) else None
        out = fnp.multiply(fnp.subtract(high, low) if width is None else width, u)
        out = out if _is_zero(low) else fnp.add(low, out)
    return _cast(out, dtype)


# -- discrete distributions -------------------------------------------------------------


def bernoulli(rng: Any, p: Any = 0.5, size: Any = None, *, dtype: Any = numpy.bool_) -> Any:
    """Bernoulli samples: 1 (``True``) with probability ``p``, as ``u < p``.

    The result has ``dtype`` (default ``bool``, so that ``x * mask`` keeps the dtype of
    ``x``); it has no derivative with respect to ``p``.  Dropout:
    ``x * bernoulli(rng, keep, x.shape) / keep``.

    Example:
        >>> import numpy as np
        >>> from ftransforms import random
        >>> random.bernoulli(np.random.default_rng(0), 1.0, size=3)
        array([ True,  True,  True])
    """
    where = "random.bernoulli(rng, p, size)"
    _check_rng(rng, where)
    p = _param(p, "p", where)
    size = _size(size, where)
    dtype = numpy.dtype(dtype)
    if not isinstance(p, Tracer):
        xp = _array_module(p)
        q = xp.asarray(p)
        if q.dtype.kind not in "biuf" or bool(((q < 0) | (q > 1) | xp.isnan(q)).any()):
            raise ValueError(f"{where}: p must be a probability in [0, 1], got {p!r}")
    shape = _sample_shape(size, {"p": p}, where)
    u_dtype = _float_dtype(None, (p,), where)
    u = _draw(
        where,
        rng,
        lambda g, batch: random_uniform_p.bind(rng=g, shape=batch + shape, dtype=u_dtype),
    )
    return _cast(fnp.less(u, fnp.stop_gradient(p) if isinstance(p, Tracer) else p), dtype)


def randint(
    rng: Any,
    low: Any,
    high: Any = None,
    size: Any = None,
    dtype: Any = numpy.int64,
    endpoint: bool = False,
) -> Any:
    """Uniform integers in ``[low, high)`` (``[low, high]`` with ``endpoint=True``), as
    ``Generator.integers``; with ``high=None`` the range is ``[0, low)``.

    Concrete bounds draw with the generator's ``integers``; bounds that are tracers
    (batched under ``vmap``) use ``floor(low + (high - low) * u)``, exact for ranges below
    2**53.  No derivative.

    Example:
        >>> import numpy as np
        >>> from ftransforms import random
        >>> random.randint(np.random.default_rng(0), 5, size=8).max() < 5
        np.True_
    """
    where = "random.randint(rng, low, high, size)"
    _check_rng(rng, where)
    if high is None:
        low, high = 0, low
    low, high = _param(low, "low", where), _param(high, "high", where)
    size = _size(size, where)
    dtype = numpy.dtype(dtype)
    if dtype.kind not in "iu":
        raise TypeError(f"{where}: dtype must be an integer dtype, got {dtype}")
    for name, v in (("low", low), ("high", high)):
        if dtype_of(v).kind not in "biu":
            raise TypeError(f"{where}: {name} must be an integer, got dtype {dtype_of(v)}")
    shape = _sample_shape(size, {"low": low, "high": high}, where)
    if not isinstance(low, Tracer) and not isinstance(high, Tracer):
        lo, hi = numpy.asarray(low), numpy.asarray(high)
        if ((hi < lo) if endpoint else (hi <= lo)).any():
            raise ValueError(f"{where}: high must be {'>=' if endpoint else '>'} low")
        return _draw(
            where,
            rng,
            lambda g, batch: random_integers_p.bind(
                rng=g,
                low=low,
                high=high + 1 if endpoint else high,
                shape=batch + shape,
                dtype=dtype,
            ),
        )
    u = _draw(
        where,
        rng,
        lambda g, batch: random_uniform_p.bind(
            rng=g, shape=batch + shape, dtype=numpy.dtype(numpy.float64)
        ),
    )
    top = fnp.add(high, 1) if endpoint else high  # exclusive
    span = fnp.subtract(top, low)
    k = fnp.floor(fnp.multiply(span, u))
    k = fnp.minimum(k, fnp.subtract(span, 1))  # rounding of span * u may reach span
    return _cast(fnp.add(low, k), dtype)


integers = randint


# -- permutations and choice ------------------------------------------------------------


def _population(x: Any, axis: int, where: str) -> tuple[Any, int, int]:
    """(the array to take from or None, its size along ``axis``, ``axis`` normalized)."""
    if isinstance(x, (int, numpy.integer)) and not isinstance(x, bool):
        if x < 0:
            raise ValueError(f"{where}: a population size must be non-negative, got {x}")
        return None, int(x), 0
    x = _param(x, "the population", where)
    if _is_python_number(x) or fnp.ndim(x) == 0:
        raise ValueError(
            f"{where}: the population must be an int or an array with at least one axis, "
            f"got a 0-d {type(x).__name__}"
        )
    axis = normalize_axis(axis, fnp.ndim(x))
    return x, fnp.shape(x)[axis], axis


def permutation(rng: Any, x: Any, axis: int = 0) -> Any:
    """A random permutation of ``range(x)`` (int ``x``), or ``x`` shuffled along ``axis``
    (``Generator.permutation``); differentiable in ``x``.  Under vmap 'different' each
    batch element gets its own permutation; under 'same' all share one.

    Example:
        >>> import numpy as np
        >>> from ftransforms import random
        >>> sorted(random.permutation(np.random.default_rng(0), 4).tolist())
        [0, 1, 2, 3]
    """
    where = "random.permutation(rng, x)"
    _check_rng(rng, where)
    pool, n, axis = _population(x, axis, where)
    perm = _draw(where, rng, lambda g, batch: random_permutation_p.bind(rng=g, shape=batch + (n,)))
    return perm if pool is None else fnp.take(pool, perm, axis=axis)


def choice(
    rng: Any, a: Any, size: Any = None, replace: bool = True, p: Any = None, axis: int = 0
) -> Any:
    """Random samples from ``range(a)`` (int ``a``) or from ``a`` along ``axis``
    (``Generator.choice``), differentiable in ``a``; ``p`` gives the probabilities.

    With ``replace=False`` and ``p`` the sample is drawn by the Gumbel-top-k trick (the
    same distribution as drawing one item at a time and renormalising).  ``p`` may be a
    tracer (e.g. batched under vmap); its values are checked only when it is concrete.

    Example:
        >>> import numpy as np
        >>> from ftransforms import random
        >>> random.choice(np.random.default_rng(0), 5, size=5, replace=False).size
        5
    """
    where = "random.choice(rng, a, size, replace, p)"
    _check_rng(rng, where)
    pool, n, axis = _population(a, axis, where)
    size = _size(size, where)
    shape = () if size is None else size
    k = math.prod(shape)
    if p is not None:
        p = _param(p, "p", where)
        if fnp.shape(p) != (n,):
            raise ValueError(
                f"{where}: p must be 1-dimensional with one probability per item ({n}), "
                f"got shape {fnp.shape(p)}"
            )
        if not isinstance(p, Tracer):
            p = p if is_array(p) else numpy.asarray(p)
            _check_probabilities(p, k, replace, where)
    if n == 0 and k > 0:
        raise ValueError(f"{where}: a cannot be empty unless no samples are taken")
    if not replace and k > n:
        raise ValueError(
            f"{where}: cannot take a larger sample ({k}) than the population ({n}) when "
            f"replace=False"
        )
    if replace:
        idx = _choice_with_replacement(rng, n, shape, p, where)
    else:
        idx = _choice_without_replacement(rng, n, k, shape, p, where)
    return idx if pool is None else fnp.take(pool, idx, axis=axis)


def _check_probabilities(p: Any, k: int, replace: bool, where: str) -> None:
    xp = _array_module(p)
    if p.dtype.kind not in "biuf" or bool(((p < 0) | xp.isnan(p)).any()):
        raise ValueError(f"{where}: probabilities must be non-negative")
    total = float(p.sum(dtype=numpy.float64))
    atol = math.sqrt(numpy.finfo(numpy.float64).eps)
    if p.dtype.kind == "f":  # as numpy: a float32 p is checked to float32 precision
        atol = max(atol, math.sqrt(numpy.finfo(p.dtype).eps))
    if abs(total - 1.0) > atol:
        raise ValueError(f"{where}: probabilities must sum to 1, got {total}")
    if not replace and int((p > 0).sum()) < k:
        raise ValueError(f"{where}: fewer non-zero entries in p than size ({k})")


def _array_module(x: Any) -> Any:
    return xp_of(x) if is_array(x) else numpy


def _choice_with_replacement(rng: Any, n: int, shape: tuple, p: Any, where: str) -> Any:
    if p is None:
        return _draw(
            where,
            rng,
            lambda g, batch: random_integers_p.bind(
                rng=g, low=0, high=n, shape=batch + shape, dtype=numpy.dtype(numpy.int64)
            ),
        )
    f64 = numpy.dtype(numpy.float64)
    if not isinstance(p, Tracer):  # inverse CDF with a binary search, on the raw draw

        def make(g: Any, batch: tuple) -> Any:
            xp = _backend(g)
            cdf = xp.cumsum(xp.asarray(p, dtype=f64))
            cdf /= cdf[-1]
            u = random_uniform_p.bind(rng=g, shape=batch + shape, dtype=f64)
            return xp.minimum(xp.searchsorted(cdf, u, side="right"), n - 1)

        return _draw(where, rng, make)
    # A traced p: idx = #{j : cdf[j] <= u}, which skips items of probability 0.
    u = _draw(
        where, rng, lambda g, batch: random_uniform_p.bind(rng=g, shape=batch + shape, dtype=f64)
    )
    cdf = fnp.cumsum(fnp.astype(fnp.stop_gradient(p), f64))
    cdf = fnp.divide(cdf, fnp.getitem(cdf, -1))
    hits = fnp.less_equal(cdf, fnp.expand_dims(u, -1))
    idx = fnp.sum(fnp.astype(hits, numpy.int64), axis=-1)
    return fnp.minimum(idx, n - 1)


def _choice_without_replacement(rng: Any, n: int, k: int, shape: tuple, p: Any, where: str) -> Any:
    if p is None:
        perm = _draw(
            where, rng, lambda g, batch: random_permutation_p.bind(rng=g, shape=batch + (n,))
        )
        return fnp.reshape(fnp.getitem(perm, slice(0, k)), shape)
    f64 = numpy.dtype(numpy.float64)
    if not isinstance(p, Tracer):  # Gumbel-top-k with a sort, on the raw draw

        def make(g: Any, batch: tuple) -> Any:
            xp = _backend(g)
            u = random_uniform_p.bind(rng=g, shape=batch + (n,), dtype=f64)
            with numpy.errstate(divide="ignore"):
                keys = xp.log(xp.asarray(p, dtype=f64)) - xp.log(-xp.log1p(-u))
            top = xp.argsort(-keys, axis=-1, kind="stable")[..., :k]
            return top.reshape(batch + shape)

        return _draw(where, rng, make)
    # A traced p: rank the keys by pairwise comparison (no sort primitive is needed);
    # items of probability 0 get key -inf and rank after the k that are taken.
    u = _draw(
        where, rng, lambda g, batch: random_uniform_p.bind(rng=g, shape=batch + (n,), dtype=f64)
    )
    with numpy.errstate(divide="ignore"):  # log(0) = -inf is wanted here
        logp = fnp.log(fnp.astype(fnp.stop_gradient(p), f64))
        keys = fnp.subtract(logp, fnp.log(fnp.negative(fnp.log1p(fnp.negative(u)))))
    above = fnp.greater(fnp.expand_dims(keys, 0), fnp.expand_dims(keys, 1))  # [j, i]: i > j
    rank = fnp.sum(fnp.astype(above, numpy.int64), axis=1)  # rank[j] = #keys above key j
    slots = numpy.arange(k).reshape(k, 1)
    picks = fnp.astype(fnp.equal(fnp.expand_dims(rank, 0), slots), numpy.int64)  # [r, j]
    idx = fnp.sum(fnp.multiply(picks, numpy.arange(n)), axis=1)  # item of rank r
    return fnp.reshape(idx, shape)


# -- JAX-style keys (NOTE [random keys] in ftransforms/random_keys.py) ----------------------
#
# normal, uniform, bernoulli, randint, permutation and choice take a Generator first, or a
# key (a uint32 array); a key hands the whole call to the function of that name in
# random_keys, so ``ft.random.normal(key, (3,))`` is ``jax.random.normal(key, (3,))``.

from ftransforms import random_keys as _keys  # noqa: E402  (after the Generator functions)

# the key-only names of jax.random, public here
PRNGKey = _keys.PRNGKey
bits = _keys.bits
categorical = _keys.categorical
cauchy = _keys.cauchy
clone = _keys.clone
exponential = _keys.exponential
fold_in = _keys.fold_in
gumbel = _keys.gumbel
key = _keys.key
key_data = _keys.key_data
key_impl = _keys.key_impl
laplace = _keys.laplace
logistic = _keys.logistic
lognormal = _keys.lognormal
multivariate_normal = _keys.multivariate_normal
orthogonal = _keys.orthogonal
rademacher = _keys.rademacher
split = _keys.split
truncated_normal = _keys.truncated_normal
wrap_key_data = _keys.wrap_key_data


def _accepting_keys(with_generator: Any, with_key: Any) -> Any:
    def either(rng: Any = None, *args: Any, **kwargs: Any) -> Any:
        if rng is None and "key" in kwargs:  # JAX's keyword: normal(key=k, shape=(3,))
            return with_key(kwargs.pop("key"), *args, **kwargs)
        if type(rng) is not numpy.random.Generator and _keys.is_key(rng):
            return with_key(rng, *args, **kwargs)
        return with_generator(rng, *args, **kwargs)

    either.__name__ = either.__qualname__ = with_generator.__name__
    either.__module__ = __name__
    either.__wrapped__ = with_generator  # inspect.signature shows the Generator form
    either.__doc__ = (
        f"{with_generator.__doc__.rstrip()}\n\n"
        f"    With a key first (``{with_generator.__name__}(key, ...)``, a ``uint32`` array of "
        f"shape ``(2,)``)\n    it is :func:`ftransforms.random_keys.{with_key.__name__}`, JAX's "
        f"``jax.random.{with_key.__name__}``:\n\n"
        f"    {with_key.__doc__.strip().splitlines()[0]}\n"
    )
    return either


normal = _accepting_keys(normal, _keys.normal)
uniform = _accepting_keys(uniform, _keys.uniform)
bernoulli = _accepting_keys(bernoulli, _keys.bernoulli)
randint = _accepting_keys(randint, _keys.randint)
permutation = _accepting_keys(permutation, _keys.permutation)
choice = _accepting_keys(choice, _keys.choice)

__all__ += [n for n in _keys.__all__ if n not in __all__]

# the rest of jax.random's samplers (ftransforms/random_distributions.py), loaded on first
# use: they sit on custom_jvp and pure_callback, which import api, which imports this module
_DISTRIBUTIONS = (
    "ball",
    "beta",
    "binomial",
    "chisquare",
    "dirichlet",
    "double_sided_maxwell",
    "f",
    "gamma",
    "generalized_normal",
    "geometric",
    "key_dtype",
    "loggamma",
    "maxwell",
    "multinomial",
    "pareto",
    "poisson",
    "rayleigh",
    "t",
    "triangular",
    "wald",
    "weibull_min",
)
__all__ += _DISTRIBUTIONS


def __getattr__(name: str) -> Any:
    if name in _DISTRIBUTIONS:
        # function-local: random_distributions imports custom/callbacks, which import api,
        # which imports this module
        from ftransforms import random_distributions  # noqa: PLC0415  late import: see above

        value = getattr(random_distributions, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
