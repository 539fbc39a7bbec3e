"""Calling outside code from transformed functions: :func:`pure_callback` (SciPy, C
extensions, any host function of arrays) and the debugging callbacks behind
``ft.debug.callback`` / ``ft.debug.print``.

NOTE [callbacks]: each callback is one primitive whose parameter is the user's function
(flattened over its argument pytree, :class:`FlatCallback`).  Its implementation hands
the callback host NumPy arrays (a CuPy array is copied with ``.get()``, as JAX copies to
the CPU) and moves the results back to the arguments' backend.  Being a primitive is what
makes it compose: ``jit`` records it as one equation and calls it again on every replay
(the debugging primitives are in ``program.EFFECT_PRIMITIVES``, so a replay keeps them
although no output depends on them); ``vmap`` applies its batching rule (per row, or one
call on the batch, as ``vmap_method`` says; the debugging callbacks always run per row,
as JAX's do); ``jvp``/``grad`` raise ``CallbackError`` for ``pure_callback`` (its outputs
have no derivative unless a ``custom_jvp``/``custom_vjp`` gives one) and call the
debugging callbacks on the primal values.  The debugging callbacks fire once per
executed call, as in JAX: trial runs (a loop body run once to type its carry, the check
of a ``cond``'s untaken branches) are muted (``program.effects_muted``), and ``jit``'s
recorder records them in loop bodies and untaken branches without running them (its
``quiet`` flag), so that only the steps and branches that run print.

Example:
    >>> import numpy as np
    >>> import scipy.special
    >>> import ftransforms as ft
    >>> def gammaln(x):
    ...     out = ft.ShapeDtypeStruct(np.shape(x), np.float64)
    ...     return ft.pure_callback(scipy.special.gammaln, out, x, vmap_method="expand_dims")
    >>> ft.jit(ft.vmap(gammaln))(np.array([1.0, 5.0])).tolist()
    [0.0, 3.1780538303479458]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

from ftransforms import lax
from ftransforms.core.errors import CallbackError, UnsupportedOperationError
from ftransforms.core.primitive import defop
from ftransforms.core.tracer import Tracer
from ftransforms.program import EFFECT_PRIMITIVES, MUTED
from ftransforms.pytree import tree_flatten, tree_unflatten
from ftransforms.shape_eval import ShapeDtypeStruct  # noqa: F401  (the examples use it)

__all__ = ["FlatCallback", "debug_callback", "io_callback", "pure_callback"]

_VMAP_METHODS = (
    "sequential",
    "sequential_unrolled",
    "expand_dims",
    "broadcast_all",
    "legacy_vectorized",
    None,
)


class FlatCallback:
    """``fn`` called on flat argument leaves: the leaves at ``dynamic`` positions come from
    the call, the others are the static values kept here.  Equal (and hashing equal) for
    the same function and argument structure, so ``jit``'s programs can key on it."""

    __slots__ = ("fn", "spec", "static", "dynamic")

    def __init__(self, fn: Callable, spec: Any, static: tuple, dynamic: tuple) -> None:
        self.fn, self.spec, self.static, self.dynamic = fn, spec, static, dynamic

    def __call__(self, *flat: Any) -> Any:
        leaves = list(self.static)
        for i, v in zip(self.dynamic, flat):
            leaves[i] = v
        args, kwargs = tree_unflatten(self.spec, leaves)
        return self.fn(*args, **kwargs)

    def _key(self) -> tuple:
        return (self.fn, self.spec, tuple(map(repr, self.static)), self.dynamic)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FlatCallback) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return getattr(self.fn, "__name__", repr(self.fn))


def _split(fn: Callable, args: tuple, kwargs: dict) -> tuple[FlatCallback, list]:
    """The callback over the array leaves of ``(args, kwargs)`` and those leaves; other
    leaves stay static: Python numbers (given to the callback as 0-d NumPy arrays, as
    JAX does), strings, None, other objects."""
    leaves, spec = tree_flatten((args, kwargs))
    static, dynamic, values = [], [], []
    for i, leaf in enumerate(leaves):
        if isinstance(leaf, Tracer) or (hasattr(leaf, "dtype") and hasattr(leaf, "shape")):
            static.append(None)
            dynamic.append(i)
            values.append(leaf)
        elif isinstance(leaf, (bool, int, float, complex)):
            static.append(numpy.asarray(leaf))
        else:
            static.append(leaf)
    return FlatCallback(fn, spec, tuple(static), tuple(dynamic)), values


def _to_host(x: Any) -> Any:
    if isinstance(x, (numpy.ndarray, numpy.generic)):
        return x
    get = getattr(x, "get", None)
    return get() if callable(get) else numpy.asarray(x)


def _host_argument(x: Any, writeable: bool) -> Any:
    """A host array the callback may not write back through: the values the transforms
    hold (and, under ``jit``, the caller's arrays) stay as they are.  A copy where the
    callback may write into it (NumPy code does, JAX's ``v *= 2`` rebinds), else a
    read-only view."""
    x = _to_host(x)
    if type(x) is not numpy.ndarray:
        return x
    if writeable:
        return x.copy()
    x = x.view()
    x.flags.writeable = False
    return x


def _callback_name(callback: FlatCallback) -> str:
    return getattr(callback.fn, "__name__", "callback")


# -- pure_callback ------------------------------------------------------------------------


def _pure_impl(xp: Any, *args: Any, callback: FlatCallback, result_avals: tuple, vmap_method):
    out = callback(*[_host_argument(a, True) for a in args])
    where = f"pure_callback({_callback_name(callback)}, result_shape_dtypes, ...)"
    return _checked_results(xp, out, result_avals, where)


def _checked_results(xp: Any, out: Any, result_avals: tuple, where: str) -> tuple:
    """A callback's results on ``xp``'s backend, checked against ``result_shape_dtypes``."""
    leaves, _ = tree_flatten(out)
    if len(leaves) != len(result_avals):
        raise CallbackError(
            f"{where}: the callback returned {len(leaves)} array(s), but result_shape_dtypes "
            f"describes {len(result_avals)}; make them match"
        )
    results = []
    for k, (leaf, (shape, dtype)) in enumerate(zip(leaves, result_avals)):
        host = numpy.asarray(_to_host(leaf))
        if host.shape != shape or host.dtype != dtype:
            raise CallbackError(
                f"{where}: result {k} of the callback has shape {host.shape} and dtype "
                f"{host.dtype}, but result_shape_dtypes says shape {shape} and dtype "
                f"{numpy.dtype(dtype)}; return exactly that (cast with .astype), or fix "
                f"result_shape_dtypes"
            )
        results.append(host if xp is numpy else xp.asarray(host))
    return tuple(results)


def _no_derivative(mode: str) -> Callable:
    custom = "custom_jvp" if mode == "jvp" else "custom_vjp"

    def rule(*args: Any, callback: FlatCallback, **params: Any) -> Any:
        raise CallbackError(
            f"pure_callback({_callback_name(callback)}, ...): a pure callback has no "
            f"derivative rule ({mode}: it runs outside code that the transforms cannot "
            f"see), so differentiating through it would be a silent zero.  Wrap the "
            f"function that calls it in ft.{custom} and give its derivative (which may "
            f"itself call pure_callback), or wrap it in fnp.stop_gradient if a zero is meant."
        )

    return rule


def _pure_batch(prim, vals, bdims, axis_size, *, callback, result_avals, vmap_method):
    where = f"vmap: pure_callback({_callback_name(callback)}, ...)"
    if vmap_method is None:
        raise UnsupportedOperationError(
            f"{where}: the callback has no vmap_method, so vmap does not know whether it "
            f"can take a batch (as in JAX).  Pass vmap_method='sequential' (one call per "
            f"row), 'expand_dims' (one call; unbatched arguments get a leading axis of "
            f"size 1) or 'broadcast_all' (one call; every argument has the batch axis)."
        )
    front = [lax.move_bdim_to_front(v, d) for v, d in zip(vals, bdims)]
    if vmap_method in ("sequential", "sequential_unrolled"):
        rows = []
        for i in range(axis_size):
            row = [v[i] if d is not None else v for v, d in zip(front, bdims)]
            rows.append(
                prim.bind(
                    *row, callback=callback, result_avals=result_avals, vmap_method=vmap_method
                )
            )
        if not rows:  # an empty batch: no call, empty results
            xp = lax.xp_of(*vals)
            outs = tuple(xp.zeros((0, *shape), dtype=dtype) for shape, dtype in result_avals)
            return outs, (0,) * len(outs)
        outs = tuple(lax.stack([r[k] for r in rows]) for k in range(len(result_avals)))
        return outs, (0,) * len(outs)
    if vmap_method == "legacy_vectorized":  # JAX's old vectorized=True: unbatched as they are
        args = front
    else:
        size = axis_size if vmap_method == "broadcast_all" else 1
        args = [
            v if d is not None else lax.broadcast_to(v, (size, *lax.shape(v)))
            for v, d in zip(front, bdims)
        ]
    batched = tuple(((axis_size, *shape), dtype) for shape, dtype in result_avals)
    outs = prim.bind(*args, callback=callback, result_avals=batched, vmap_method=vmap_method)
    return tuple(outs), (0,) * len(outs)


pure_callback_p = defop(
    "pure_callback",
    impl=_pure_impl,
    jvp=_no_derivative("jvp"),
    vjp=_no_derivative("vjp"),
    batch=_pure_batch,
    multiple_results=True,
    doc="A host callback whose results are functions of its arguments (``pure_callback``).",
)


def pure_callback(
    callback: Callable,
    result_shape_dtypes: Any,
    *args: Any,
    sharding: Any = None,
    vmap_method: str | None = None,
    **kwargs: Any,
) -> Any:
    """``callback(*args, **kwargs)`` run on host NumPy arrays inside any transform
    (``jax.pure_callback``), for SciPy functions, C extensions and other code the
    transforms cannot see into.

    ``result_shape_dtypes`` is a pytree of :class:`ShapeDtypeStruct` (or arrays) that the
    callback's result must match exactly (else ``CallbackError``).  The callback gets
    NumPy arrays (CuPy arguments are copied to the host, the results copied back) and
    must be pure: ``jit`` calls it again on every replay and drops it when no output
    needs it.  Under ``vmap``, ``vmap_method`` says how to call it (as in JAX):
    ``"sequential"`` once per row, ``"expand_dims"`` once with the batch as a leading
    axis (unbatched arguments get an axis of size 1), ``"broadcast_all"`` once with every
    argument broadcast to the batch (``"sequential_unrolled"`` and
    ``"legacy_vectorized"`` as in JAX); ``None`` raises ``UnsupportedOperationError``
    under ``vmap``.  ``sharding`` is accepted for JAX's signature: the callback runs
    where the arguments are.  It has no derivative: ``grad``/``jvp`` through it raise
    ``CallbackError`` (never a silent zero); give one with ``custom_jvp``/``custom_vjp``.

    Example:
        >>> import numpy as np
        >>> import scipy.special
        >>> import ftransforms as ft
        >>> def i0(x):  # SciPy's Bessel function, with its derivative i1
        ...     out = ShapeDtypeStruct(np.shape(x), np.float64)
        ...     return pure_callback(scipy.special.i0, out, x, vmap_method="sequential")
        >>> i0 = ft.custom_jvp(i0)
        >>> @i0.defjvp
        ... def _(primals, tangents):
        ...     (x,), (t,) = primals, tangents
        ...     out = ShapeDtypeStruct(np.shape(x), np.float64)
        ...     i1 = pure_callback(scipy.special.i1, out, x, vmap_method="sequential")
        ...     return i0(x), i1 * t
        >>> ft.vmap(ft.grad(i0))(np.array([0.0, 1.0])).round(6).tolist()
        [0.0, 0.565159]
    """
    del sharding
    if not callable(callback):
        raise TypeError(
            f"pure_callback(callback, ...): callback must be callable, got {callback!r}"
        )
    if vmap_method not in _VMAP_METHODS:
        raise ValueError(
            f"pure_callback({_callback_name_of(callback)}, ...): vmap_method must be one of "
            f"{_VMAP_METHODS}, got {vmap_method!r}"
        )
    where = f"pure_callback({_callback_name_of(callback)}, result_shape_dtypes, ...)"
    result_avals, out_spec = _result_avals(result_shape_dtypes, where)
    flat_callback, values = _split(callback, args, kwargs)
    outs = pure_callback_p.bind(
        *values,
        callback=flat_callback,
        result_avals=result_avals,
        vmap_method=vmap_method,
    )
    return tree_unflatten(out_spec, list(outs))


def _callback_name_of(fn: Any) -> str:
    return getattr(fn, "__name__", "callback")


def _result_avals(result_shape_dtypes: Any, where: str) -> tuple[tuple, Any]:
    """``((shape, dtype), ...)`` of ``result_shape_dtypes``' leaves, and its structure."""
    avals_leaves, out_spec = tree_flatten(result_shape_dtypes)
    result_avals = []
    for leaf in avals_leaves:
        if not (hasattr(leaf, "shape") and hasattr(leaf, "dtype")):
            raise TypeError(
                f"{where}: the leaves of result_shape_dtypes must have .shape and .dtype "
                f"(ft.ShapeDtypeStruct(shape, dtype)), got {type(leaf).__name__}"
            )
        result_avals.append((tuple(int(d) for d in leaf.shape), numpy.dtype(leaf.dtype)))
    return tuple(result_avals), out_spec


# -- io_callback --------------------------------------------------------------------------


def _io_impl(xp: Any, *args: Any, callback: FlatCallback, result_avals: tuple, ordered: bool):
    if MUTED[0]:  # a trial run (a loop body typing its carry): the types, not the effect
        return tuple(xp.zeros(shape, dtype) for shape, dtype in result_avals)
    out = callback(*[_host_argument(a, True) for a in args])
    where = f"io_callback({_callback_name(callback)}, result_shape_dtypes, ...)"
    return _checked_results(xp, out, result_avals, where)


def _io_no_derivative(*args: Any, callback: FlatCallback, **params: Any) -> Any:
    raise CallbackError(
        f"io_callback({_callback_name(callback)}, ...): IO callbacks do not support JVP "
        f"(as in JAX): their results have no derivative.  Wrap the function that calls it "
        f"in ft.custom_jvp/ft.custom_vjp, or wrap its result in fnp.stop_gradient."
    )


def _io_batch(prim, vals, bdims, axis_size, *, callback, result_avals, ordered):
    if ordered:
        raise UnsupportedOperationError(
            f"vmap: io_callback({_callback_name(callback)}, ..., ordered=True): cannot vmap "
            f"an ordered IO callback (as in JAX); pass ordered=False (one call per row, "
            f"in order) or call it outside vmap"
        )
    front = [lax.move_bdim_to_front(v, d) for v, d in zip(vals, bdims)]
    rows = [  # one call per row, in order, as JAX's unordered io_callback under vmap
        prim.bind(
            *[v[i] if d is not None else v for v, d in zip(front, bdims)],
            callback=callback,
            result_avals=result_avals,
            ordered=ordered,
        )
        for i in range(axis_size)
    ]
    if not rows:
        xp = lax.xp_of(*vals)
        outs = tuple(xp.zeros((0, *shape), dtype=dtype) for shape, dtype in result_avals)
    else:
        outs = tuple(lax.stack([r[k] for r in rows]) for k in range(len(result_avals)))
    return outs, (0,) * len(outs)


io_callback_p = defop(
    "io_callback",
    impl=_io_impl,
    jvp=_io_no_derivative,
    vjp=_io_no_derivative,
    batch=_io_batch,
    multiple_results=True,
    effectful=True,
    doc="A host callback with side effects and results (``io_callback``).",
)


def io_callback(
    callback: Callable,
    result_shape_dtypes: Any,
    *args: Any,
    sharding: Any = None,
    ordered: bool = False,
    **kwargs: Any,
) -> Any:
    """``callback(*args, **kwargs)`` run on host NumPy arrays for its side effects (a
    log, a file, a counter) and its results (``jax.experimental.io_callback``).

    ``result_shape_dtypes`` is as in :func:`pure_callback` (``None`` for a callback that
    returns ``None``).  Unlike a pure callback it runs on every call, also under ``jit``,
    which runs the functions holding one eagerly (a recording could not hold the effect),
    and never is dropped.  Under ``vmap`` it is called once per row, in order;
    ``ordered=True`` refuses ``vmap``, as JAX.  ``grad``/``jvp`` through it raise
    ``CallbackError`` (JAX: "IO callbacks do not support JVP").

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> seen = []
        >>> def log(x):
        ...     seen.append(float(x))
        ...     return np.asarray(x) * 2.0
        >>> out = ft.ShapeDtypeStruct((), np.float64)
        >>> ft.vmap(lambda v: io_callback(log, out, v))(np.array([1.0, 2.0])).tolist(), seen
        ([2.0, 4.0], [1.0, 2.0])
    """
    del sharding
    where = f"io_callback({_callback_name_of(callback)}, result_shape_dtypes, ...)"
    if not callable(callback):
        raise TypeError(f"{where}: callback must be callable, got {callback!r}")
    result_avals, out_spec = _result_avals(result_shape_dtypes, where)
    flat_callback, values = _split(callback, args, kwargs)
    outs = io_callback_p.bind(
        *values, callback=flat_callback, result_avals=result_avals, ordered=bool(ordered)
    )
    return tree_unflatten(out_spec, list(outs))


# -- debugging callbacks ------------------------------------------------------------------


def _debug_impl(xp: Any, *args: Any, callback: FlatCallback) -> tuple:
    if not MUTED[0]:  # not a trial run of a loop body
        callback(*[_host_argument(a, False) for a in args])
    return ()


def _debug_batch(prim, vals, bdims, axis_size, *, callback):
    front = [lax.move_bdim_to_front(v, d) for v, d in zip(vals, bdims)]
    for i in range(axis_size):  # one call per row, in order, as JAX does
        prim.bind(*[v[i] if d is not None else v for v, d in zip(front, bdims)], callback=callback)
    return (), ()


debug_callback_p = defop(
    "debug_callback",
    impl=_debug_impl,
    batch=_debug_batch,
    nondiff=True,
    multiple_results=True,
    doc="A host callback run for its effect (``ft.debug.callback``/``ft.debug.print``).",
)
EFFECT_PRIMITIVES.add(debug_callback_p)


def debug_callback(fn: Callable, *args: Any, **kwargs: Any) -> None:
    """``fn(*args, **kwargs)`` on the concrete values, wherever the call sits (the body
    of ``ft.debug.callback``; see that function)."""
    flat_callback, values = _split(fn, args, kwargs)
    debug_callback_p.bind(*values, callback=flat_callback)
