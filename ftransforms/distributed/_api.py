"""The driver side of ``ftransforms.distributed``: checks, dask graphs, compute and persist.

Everything here runs on the driver (the notebook or script); the tasks it puts in the graph
are the functions of ``_tasks.py``.  dask is imported on the first call, never at import.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import math
import operator
import uuid
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms import api, arguments
from ftransforms.backend import is_array, namespace_of
from ftransforms.core.errors import (
    ArgnumsError,
    ChunksError,
    ChunkSizeError,
    DaskArrayError,
    DistributedNestingError,
    FunctionPicklingError,
    GradOutputError,
    InDimsError,
    MissingDependencyError,
    MixedBackendError,
    NonDifferentiableInputError,
    ReduceError,
)
from ftransforms.core.stack import current_stack
from ftransforms.core.tracer import Tracer
from ftransforms.distributed import _tasks
from ftransforms.numpy.helpers import dtype_of
from ftransforms.pytree import (
    broadcast_prefix,
    path_str,
    tree_flatten,
    tree_flatten_with_path,
    tree_unflatten,
)

__all__ = ["compute", "hessian", "jacrev", "map_reduce", "persist", "vmap"]

_INSTALL = "pip install 'ftransforms[distributed]'"
_SCALARS = (bool, int, float, complex, str, bytes, type(None), numpy.generic)


# -- checks shared by every fd function ----------------------------------------------------


def _dask(where: str) -> SimpleNamespace:
    """dask, dask.array, HighLevelGraph and cloudpickle, or a MissingDependencyError."""
    try:
        # optional dependencies, imported on first use (importing fd works without them)
        import cloudpickle  # noqa: PLC0415
        import dask  # noqa: PLC0415
        import dask.array as da  # noqa: PLC0415
        from dask.highlevelgraph import HighLevelGraph  # noqa: PLC0415
    except ImportError as e:
        raise MissingDependencyError(
            f"{where}: ftransforms.distributed needs dask[array], distributed and "
            f"cloudpickle, which are not installed ({e}); install them with {_INSTALL}"
        ) from None
    return SimpleNamespace(dask=dask, da=da, HighLevelGraph=HighLevelGraph, cp=cloudpickle)


def _check_outermost(where: str) -> None:
    stack = current_stack()
    if stack:
        raise DistributedNestingError(
            f"{where}: called inside {stack[-1].name}, but fd functions are outermost: they "
            f"build a dask graph whose tasks run the ordinary transforms, and cannot be "
            f"transformed themselves.  Put the transform inside, e.g. fd.vmap(ft.grad(f)) "
            f"instead of ft.grad(fd.vmap(f)), and call fd.compute outside every transform"
        )


def _token(func: Callable, where: str, cloudpickle: Any) -> str:
    """Pickle ``func`` now, as the workers will, so that a function that cannot travel is
    reported here, by name, rather than later in a worker; the hash names it in the graph
    and keys its per-process jit cache (see ``_tasks.block_function``)."""
    try:
        payload = cloudpickle.dumps(func)
    except Exception as e:
        raise FunctionPicklingError(
            f"{where}: the function {arguments.fname(func)!r} cannot be pickled, so it cannot be "
            f"sent to the dask workers ({type(e).__name__}: {e}).  Create unpicklable "
            f"objects (locks, open files, connections, generators) inside the function "
            f"instead of closing over them, or pass arrays as arguments"
        ) from e
    return hashlib.sha1(payload).hexdigest()[:16]


def _names(func: Callable, args: tuple, kwargs: dict) -> list[str]:
    """The name of every leaf of ``(args, kwargs)``, for messages."""
    arg_names = arguments.arg_names(func, len(args))
    paths = tree_flatten_with_path((args, kwargs), none_is_leaf=True)[0]
    return [(arg_names[p[1]] if p[0] == 0 else str(p[1])) + path_str(p[2:]) for p in paths]


def _is_dask(value: Any) -> bool:
    return type(value).__module__.startswith("dask")


def _check_backends(values: list, names: list[str], where: str) -> None:
    """NumPy and CuPy chunks (or in-memory arrays) mixed: refused before anything runs."""
    kinds = {}
    samples = [getattr(v, "_meta", None) if _is_dask(v) else v for v in values]
    for sample, name in zip(samples, names):
        if is_array(sample):
            kinds.setdefault(namespace_of(sample).__name__, name)
    try:
        namespace_of(*(v for v in samples if is_array(v)))
    except MixedBackendError:
        listing = ", ".join(f"{name} has {ns} chunks" for ns, name in kinds.items())
        raise MixedBackendError(
            f"{where}: cannot mix array backends in one call: {listing}; put every array on "
            f"one backend first (x.map_blocks(cupy.asarray) to the GPU, "
            f"x.map_blocks(cupy.asnumpy) to the host)"
        ) from None


def _rows_per_task(n: Any, where: str) -> int:
    if not isinstance(n, (int, numpy.integer)) or isinstance(n, bool) or n < 1:
        raise ChunkSizeError(
            f"{where}: rows_per_task must be a positive int, got {n!r}; each task computes "
            f"that many rows of the result"
        )
    return int(n)


def _bounds(chunks: tuple[int, ...]) -> list[tuple[int, int]]:
    out, start = [], 0
    for n in chunks:
        out.append((start, start + n))
        start += n
    return out


def _uniform(size: int, chunk: int) -> tuple[int, ...]:
    if size == 0:
        return (0,)
    return tuple(min(chunk, size - s) for s in range(0, size, chunk))


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name)[:40] or "f"


# -- graph pieces -------------------------------------------------------------------------


class _Graph:
    """The tasks of one fd call, in one layer; constants go in once, as their own keys."""

    def __init__(self, kind: str, func: Callable, token: str) -> None:
        self.name = f"fd-{kind}-{_safe(arguments.fname(func))}-{uuid.uuid4().hex}"
        self.layer: dict = {}
        self.func_key = f"{self.name}-func"
        self.layer[self.func_key] = (_identity, _tasks.Literal(func))
        self.token = token
        self._n = 0

    def const(self, value: Any) -> str:
        """A key holding ``value``: shipped once, read by every task that needs it."""
        self._n += 1
        key = f"{self.name}-const{self._n}"
        self.layer[key] = (_identity, _tasks.Literal(value))
        return key

    def hlg(self, dk: SimpleNamespace, inputs: list, outputs: dict[str, dict]) -> Any:
        """The HighLevelGraph: the inputs' layers, this layer, one layer per output."""
        g = dk.HighLevelGraph.from_collections(self.name, self.layer, dependencies=inputs)
        layers = dict(g.layers)
        deps = dict(g.dependencies)
        for name, layer in outputs.items():
            layers[name] = layer
            deps[name] = {self.name}
        return dk.HighLevelGraph(layers, deps)


def _identity(literal: _tasks.Literal) -> Any:
    return literal.value


def _leaf_arg(graph: _Graph, leaf: Any) -> Any:
    """How an in-memory, unbatched leaf reaches the tasks: arrays and other objects as one
    key each (never copied into every task); numbers and strings inline."""
    if isinstance(leaf, _SCALARS):
        return _tasks.Literal(leaf)
    return graph.const(leaf)


# -- fd.vmap and fd.map_reduce: inputs --------------------------------------------------------


class _Batch:
    """The checked inputs of one fd.vmap / fd.map_reduce call."""

    def __init__(self, leaves, spec, dims, names, size, bounds, dask_leaves):
        self.leaves, self.spec, self.dims, self.names = leaves, spec, dims, names
        self.size, self.bounds, self.dask_leaves = size, bounds, dask_leaves


def _batch_inputs(func, in_dims, args, kwargs, chunk_size, where) -> _Batch:
    if isinstance(in_dims, list):
        in_dims = tuple(in_dims)
    if not isinstance(in_dims, (int, numpy.integer, tuple, dict)) and in_dims is not None:
        raise InDimsError(
            f"{where}: in_dims must be an int, None, or a tuple (pytree) of those matching "
            f"the positional arguments, got {type(in_dims).__name__}; e.g. in_dims=(0, None)"
        )
    if isinstance(in_dims, tuple) and len(in_dims) != len(args):
        raise InDimsError(
            f"{where}: in_dims has {len(in_dims)} entries but the function got {len(args)} "
            f"positional argument(s); give one entry per argument (None for unbatched ones)"
        )
    leaves, spec = tree_flatten((args, kwargs), none_is_leaf=True)
    try:
        dims = broadcast_prefix(in_dims, args)
    except ValueError:
        raise InDimsError(
            f"{where}: in_dims does not match the structure of the arguments; give an "
            f"int/None per argument, or a pytree with the argument's structure"
        ) from None
    dims = list(dims) + [None] * (len(leaves) - len(dims))  # keyword arguments: unbatched
    names = _names(func, args, kwargs)
    size, sizes, dask_leaves, source_chunks = None, [], [], None
    for i, (leaf, d) in enumerate(zip(leaves, dims)):
        if isinstance(leaf, Tracer):
            _check_outermost(where)
        if d is None:
            if _is_dask(leaf):
                raise InDimsError(
                    f"{where}: {names[i]} is a dask array with in_dim None; unbatched "
                    f"arguments are in-memory values shipped once to every task.  Map over "
                    f"it with an int in_dim, or pass {names[i]}.compute()"
                )
            continue
        if leaf is None:
            dims[i] = None
            continue
        if not isinstance(d, (int, numpy.integer)) or isinstance(d, bool):
            raise InDimsError(
                f"{where}: every in_dims entry must be an int or None, got {d!r} for {names[i]}"
            )
        if not (_is_dask(leaf) or is_array(leaf)):
            raise InDimsError(
                f"{where}: {names[i]} is a {type(leaf).__name__}, which has no axis {d} to "
                f"map over; give it in_dim None or pass an array (dask or in-memory)"
            )
        if _is_dask(leaf) and not isinstance(getattr(leaf, "chunks", None), tuple):
            raise InDimsError(
                f"{where}: {names[i]} is a dask {type(leaf).__name__}, not a dask array; "
                f"make it one (e.g. dask.array.from_delayed) to map over it"
            )
        rank = len(leaf.shape)
        if not -rank <= d < rank:
            raise InDimsError(
                f"{where}: in_dim={d} is out of range for {names[i]} of shape "
                f"{tuple(leaf.shape)} (rank {rank}); use an axis in [-{rank}, {rank})"
            )
        d = dims[i] = int(d) % rank
        if _is_dask(leaf):
            _check_chunks(leaf, d, names[i], where)
            dask_leaves.append(leaf)
            if source_chunks is None:
                source_chunks = tuple(int(n) for n in leaf.chunks[d])
        n = int(leaf.shape[d])
        sizes.append((i, n))
        size = n if size is None else size
    if size is None:
        raise InDimsError(
            f"{where}: no argument is batched (every in_dim is None); give at least one "
            f"argument an int in_dim"
        )
    if any(n != size for _, n in sizes):
        listing = ", ".join(f"{names[i]} has {n}" for i, n in sizes)
        raise InDimsError(
            f"{where}: arguments have different sizes on their batch axes: {listing}.  "
            f"Batch them to one size, or mark the unbatched ones with in_dim None."
        )
    _check_backends(leaves, names, where)
    if chunk_size is not None:
        chunks = _uniform(size, int(chunk_size))
    elif source_chunks is not None:
        chunks = source_chunks  # NOTE [chunk unification]: the first dask argument's blocks
    else:
        chunks = (size,)
    return _Batch(leaves, spec, dims, names, size, _bounds(chunks), dask_leaves)


def _check_chunks(leaf: Any, d: int, name: str, where: str) -> None:
    for k, c in enumerate(leaf.chunks):
        if any(math.isnan(n) for n in c):
            raise ChunksError(
                f"{where}: {name} has unknown chunk sizes on axis {k} (nan, e.g. after "
                f"boolean indexing); the graph needs them to line the tasks up.  Call "
                f"{name} = {name}.compute_chunk_sizes() first"
            )
    for k, c in enumerate(leaf.chunks):
        if k != d and len(c) > 1:
            raise ChunksError(
                f"{where}: {name} is mapped over axis {d} but has {len(c)} chunks on axis "
                f"{k}; every task needs whole examples, so give it one chunk on every other "
                f"axis: {name} = {name}.rechunk({{{k}: -1}})"
            )


# NOTE [chunk unification]: the tasks follow the blocks of the first dask argument along
# its mapped axis (or uniform blocks of chunk_size when it is given).  Every other batched
# argument is cut to those rows inside the task: an aligned block is passed as it is; a
# misaligned one arrives as the few source blocks that overlap the rows, sliced and joined
# with the chunk's own concatenate (so no dask rechunk, and any chunk type works).


def _block_args(graph: _Graph, batch: _Batch, memory_keys: dict) -> list[list]:
    """Per task, the argument for every leaf (a key, a list of keys, or a literal)."""
    per_leaf = []
    for i, (leaf, d) in enumerate(zip(batch.leaves, batch.dims)):
        if d is None:
            arg = _leaf_arg(graph, leaf)
            per_leaf.append([arg] * len(batch.bounds))
        elif _is_dask(leaf):
            per_leaf.append(_dask_leaf_args(leaf, d, batch.bounds))
        else:
            keys = []
            for j, (s, e) in enumerate(batch.bounds):
                key = (f"{graph.name}-in{i}", j)
                index = (slice(None),) * d + (slice(s, e),)
                graph.layer[key] = (_identity, _tasks.Literal(leaf[index]))
                keys.append(key)
            memory_keys[i] = keys
            per_leaf.append(keys)
    return [list(args) for args in zip(*per_leaf)]


def _dask_leaf_args(leaf: Any, d: int, bounds: list[tuple[int, int]]) -> list:
    cum = [0]
    for n in leaf.chunks[d]:
        cum.append(cum[-1] + int(n))
    rank = len(leaf.shape)

    def key(b: int) -> tuple:
        return (leaf.name,) + tuple(b if k == d else 0 for k in range(rank))

    out = []
    for s, e in bounds:
        if s == e:
            out.append(key(0))
            continue
        first = bisect.bisect_right(cum, s) - 1
        last = bisect.bisect_left(cum, e) - 1
        if first == last and cum[first] == s and cum[first + 1] == e:
            out.append(key(first))
            continue
        slices = [
            (max(s, cum[b]) - cum[b], min(e, cum[b + 1]) - cum[b]) for b in range(first, last + 1)
        ]
        out.append([_tasks.Pieces(d, slices)] + [key(b) for b in range(first, last + 1)])
    return out


def _probe(func: Callable, in_dims: Any, batch: _Batch, dk: SimpleNamespace, name=None) -> Any:
    """The outputs of ``ft.vmap(func)`` on a batch of size 0 (shapes and dtypes without any
    data or arithmetic), or, when that fails, on the first example: the ``meta`` dask is
    given, so that it never calls ``func`` on placeholders itself."""
    leaves = []
    for leaf, d in zip(batch.leaves, batch.dims):
        if d is None:
            leaves.append(leaf)
        elif _is_dask(leaf):
            shape = list(leaf.shape)
            shape[d] = 0
            leaves.append(namespace_of(leaf._meta).zeros(tuple(shape), dtype=leaf.dtype))
        else:
            leaves.append(leaf[(slice(None),) * d + (slice(0, 0),)])
    args, kwargs = tree_unflatten(batch.spec, leaves)
    try:
        return api.vmap(func, in_dims, axis_name=name)(*args, **kwargs)
    except Exception:
        if batch.size == 0:
            raise
    # Some rules (the loop fallback) need at least one example: run the first one.
    firsts = []
    for leaf, d in zip(batch.leaves, batch.dims):
        firsts.append(leaf if d is None else leaf[(slice(None),) * d + (slice(0, 1),)])
    lazy = [k for k, v in enumerate(firsts) if _is_dask(v)]
    for k, v in zip(lazy, dk.dask.compute(*[firsts[k] for k in lazy])):
        firsts[k] = v
    args, kwargs = tree_unflatten(batch.spec, firsts)
    out = api.vmap(func, in_dims, axis_name=name)(*args, **kwargs)
    leaves, spec = tree_flatten(out)
    return tree_unflatten(spec, [v[0:0] for v in leaves])


def _zero_size(value: Any) -> Any:
    return value[(slice(0, 0),) * value.ndim] if value.ndim else value


def _map(func, in_dims, chunk_size, split_every, reduce, args, kwargs, where, kind, name=None):
    dk = _dask(where)
    _check_outermost(where)
    token = _token(func, where, dk.cp)
    batch = _batch_inputs(func, in_dims, args, kwargs, chunk_size, where)
    probe = _probe(func, in_dims, batch, dk, name)
    out_leaves, out_spec = tree_flatten(probe)
    for v in out_leaves:
        if not is_array(v):  # pragma: no cover - ft.vmap returns arrays
            raise TypeError(f"{where}: the function returned a {type(v).__name__}")
    graph = _Graph(kind, func, token)
    skeleton = tree_unflatten(batch.spec, list(range(len(batch.leaves))))
    row_shapes = tuple(tuple(v.shape[1:]) for v in out_leaves)
    outputs = (where, arguments.structure_str(probe), row_shapes)
    plan = _tasks.Plan(kind, token, in_dims, skeleton, len(batch.leaves), name, outputs)
    block_args = _block_args(graph, batch, {})
    task = _tasks.vmap_block if kind == "vmap" else _tasks.reduce_block
    parts = []
    for j, leaf_args in enumerate(block_args):
        key = (graph.name, j)
        rows = _tasks.Literal(batch.bounds[j])
        graph.layer[key] = (task, plan, graph.func_key, rows, *leaf_args)
        parts.append(key)
    rows = tuple(e - s for s, e in batch.bounds)
    outputs: dict[str, dict] = {}
    results = []
    if kind == "vmap":
        for k, v in enumerate(out_leaves):
            name = f"{graph.name}-out{k}"
            extra = (0,) * (v.ndim - 1)
            outputs[name] = {
                (name, j) + extra: (operator.getitem, parts[j], k) for j in range(len(parts))
            }
            chunks = (rows,) + tuple((int(n),) for n in v.shape[1:])
            results.append((name, chunks, _zero_size(v)))
    else:
        final = _tree_reduce(graph, parts, split_every, batch.size if reduce == "mean" else None)
        sums = _tasks.finish(
            [tuple(fnp.sum(v, axis=0) for v in out_leaves)],
            batch.size if reduce == "mean" else None,
        )
        for k, v in enumerate(sums):
            name = f"{graph.name}-out{k}"
            outputs[name] = {(name,) + (0,) * v.ndim: (operator.getitem, final, k)}
            results.append((name, tuple((int(n),) for n in v.shape), _zero_size(v)))
    hlg = graph.hlg(dk, batch.dask_leaves, outputs)
    arrays = [dk.da.Array(hlg, name, chunks, meta=meta) for name, chunks, meta in results]
    return tree_unflatten(out_spec, arrays)


def _tree_reduce(graph: _Graph, parts: list, split_every: int, divide_by: int | None) -> tuple:
    level, depth = parts, 0
    while len(level) > split_every:
        depth += 1
        nxt = []
        for g in range(0, len(level), split_every):
            key = (f"{graph.name}-sum", depth, g // split_every)
            graph.layer[key] = (_tasks.add_trees, level[g : g + split_every])
            nxt.append(key)
        level = nxt
    key = (f"{graph.name}-total", 0)
    graph.layer[key] = (_tasks.finish, level, divide_by)
    return key


# -- public functions -----------------------------------------------------------------------


def vmap(
    func: Callable, in_dims: Any = 0, *, chunk_size: int | None = None, axis_name: Any = None
) -> Callable:
    """``ft.vmap`` over dask arrays: each block runs ``ft.vmap(func, in_dims)`` as one dask
    task; the result is a pytree of lazy dask arrays of shape ``(B, ...)``, blocked like
    the first dask argument (or in blocks of ``chunk_size``).  ``axis_name`` names each
    block's batch axis for ``ft.lax.psum`` and the other collectives: they reduce over the
    rows of one block, not over the whole batch.

    Batched arguments are dask arrays with one chunk on every axis but the mapped one, or
    in-memory arrays (cut into the same blocks).  Unbatched arguments (``in_dim`` None,
    keyword arguments) are in-memory values, put in the graph once.  Nothing runs until
    :func:`compute`; every check (shapes, chunks, pickling, backends) happens now.

    Example:
        >>> import dask.array as da, numpy as np
        >>> import ftransforms.distributed as fd
        >>> x = da.from_array(np.arange(12.0).reshape(6, 2), chunks=(4, 2))
        >>> y = fd.vmap(lambda r, w: r @ w, in_dims=(0, None))(x, np.ones(2))
        >>> y.chunks
        ((4, 2),)
        >>> fd.compute(y, scheduler="sync")
        array([ 1.,  5.,  9., 13., 17., 21.])
    """
    arguments.check_chunk_size(
        chunk_size, f"fd.vmap({arguments.fname(func)}, chunk_size={chunk_size!r})"
    )
    where = f"fd.vmap({arguments.fname(func)}, in_dims={in_dims!r})"

    @functools.wraps(func)
    def batched(*args: Any, **kwargs: Any) -> Any:
        return _map(func, in_dims, chunk_size, None, None, args, kwargs, where, "vmap", axis_name)

    return batched


def map_reduce(
    func: Callable,
    in_dims: Any = 0,
    *,
    reduce: str = "sum",
    chunk_size: int | None = None,
    split_every: int | None = None,
) -> Callable:
    """The sum (``reduce="sum"``) or mean (``"mean"``) over the mapped axis of
    ``vmap(func)``, lazily: each block's outputs are summed in its task and the partial
    sums are added by a tree reduction (``split_every`` per step, default 8), so
    per-example results never exist beyond one block.  Returns a pytree of lazy dask
    arrays with ``func``'s per-example output shapes.

    DP-SGD: make ``func`` the clipped per-example gradient and add the Gaussian noise once,
    on the driver, to the computed sum.  Noise drawn in the tasks would be drawn once per
    block, so its variance would grow with the number of blocks (and depend on how the data
    is chunked), a retried task would draw it again, and workers seeded alike would draw
    the same noise: the privacy accounting assumes one draw per step.

    Example:
        >>> import dask.array as da, numpy as np
        >>> import ftransforms.distributed as fd
        >>> x = da.from_array(np.arange(10.0), chunks=3)
        >>> total = fd.map_reduce(lambda v: v ** 2, split_every=2)(x)
        >>> float(fd.compute(total, scheduler="sync"))
        285.0
    """
    fname = arguments.fname(func)
    arguments.check_chunk_size(chunk_size, f"fd.map_reduce({fname}, chunk_size={chunk_size!r})")
    if reduce not in ("sum", "mean"):
        raise ReduceError(
            f"fd.map_reduce({fname}, reduce={reduce!r}): reduce must be 'sum' or 'mean'; "
            f"for other reductions use fd.vmap and reduce the dask arrays"
        )
    if split_every is None:
        split_every = 8
    if (
        not isinstance(split_every, (int, numpy.integer))
        or isinstance(split_every, bool)
        or split_every < 2
    ):
        raise ReduceError(
            f"fd.map_reduce({fname}, split_every={split_every!r}): split_every must be an "
            f"int >= 2 (how many partial sums each step of the tree reduction adds)"
        )
    where = f"fd.map_reduce({fname}, in_dims={in_dims!r}, reduce={reduce!r})"

    @functools.wraps(func)
    def reduced(*args: Any, **kwargs: Any) -> Any:
        return _map(
            func, in_dims, chunk_size, int(split_every), reduce, args, kwargs, where, "reduce"
        )

    return reduced


def _in_memory_args(func, args, kwargs, where) -> tuple[list, Any, list[str]]:
    leaves, spec = tree_flatten((args, kwargs), none_is_leaf=True)
    names = _names(func, args, kwargs)
    for leaf, name in zip(leaves, names):
        if isinstance(leaf, Tracer):
            _check_outermost(where)
        if _is_dask(leaf):
            raise DaskArrayError(
                f"{where}: {name} is a dask array, but the point and the closures of a "
                f"Jacobian are in-memory values (the rows are what is distributed); pass "
                f"{name}.compute()"
            )
    _check_backends(leaves, names, where)
    return leaves, spec, names


def _rows_graph(kind, task, func, argnum, args, kwargs, n_rows, rows_per_task, tail, meta, where):
    dk = _dask(where)
    token = _token(func, where, dk.cp)
    leaves, spec, _ = _in_memory_args(func, args, kwargs, where)
    graph = _Graph(kind, func, token)
    skeleton = tree_unflatten(spec, list(range(len(leaves))))
    plan = _tasks.Plan(kind, token, None, skeleton, len(leaves))
    leaf_args = [_leaf_arg(graph, leaf) for leaf in leaves]
    chunks = _uniform(n_rows, rows_per_task)
    extra = (0,) * len(tail)
    for j, (s, e) in enumerate(_bounds(chunks)):
        graph.layer[(graph.name, j) + extra] = (
            task,
            graph.func_key,
            s,
            e,
            argnum,
            plan,
            *leaf_args,
        )
    hlg = graph.hlg(dk, [], {})
    return dk.da.Array(hlg, graph.name, (chunks,) + tuple((n,) for n in tail), meta=meta)


def _point(func, argnums, args, where) -> tuple[int, Any]:
    nums, single = arguments.normalize_argnums(argnums, len(args), where)
    if not single:
        raise ArgnumsError(
            f"{where}: argnums must be one int (the result is one (rows, *x.shape) array), "
            f"got {argnums!r}; call it once per argument"
        )
    x = args[nums[0]]
    if _is_dask(x):
        return nums[0], x  # reported by _in_memory_args, with the argument's name
    if not is_array(x) or dtype_of(x).kind != "f":
        what = dtype_of(x) if is_array(x) else type(x).__name__
        raise NonDifferentiableInputError(
            f"{where}: {arguments.arg_names(func, len(args))[nums[0]]} must be a real "
            f"floating-point array, got {what}; pass it as float (x.astype(np.float64))"
        )
    return nums[0], x


def jacrev(func: Callable, argnums: int = 0, *, rows_per_task: int) -> Callable:
    """The Jacobian of ``func`` at in-memory arguments, its rows split across dask tasks:
    ``jacrev(func)(*args)`` is a lazy ``(M, *x.shape)`` array (``M`` the size of the
    output, flattened; ``x = args[argnums]``), in blocks of ``rows_per_task`` rows.  Each
    task runs one forward pass and pulls back its own rows of the identity, which it builds
    itself.  One forward pass runs here, on the driver, to learn ``M``.

    Example:
        >>> import numpy as np
        >>> import ftransforms.distributed as fd
        >>> J = fd.jacrev(lambda x: np.sin(x) * 2, rows_per_task=2)(np.zeros(3))
        >>> J.chunks
        ((2, 1), (3,))
        >>> fd.compute(J, scheduler="sync")
        array([[2., 0., 0.],
               [0., 2., 0.],
               [0., 0., 2.]])
    """
    where = f"fd.jacrev({arguments.fname(func)}, rows_per_task={rows_per_task!r})"
    rows = _rows_per_task(rows_per_task, where)

    @functools.wraps(func)
    def jac(*args: Any, **kwargs: Any) -> Any:
        _dask(where)
        _check_outermost(where)
        argnum, x = _point(func, argnums, args, where)
        _in_memory_args(func, args, kwargs, where)
        out, vjp_fn = api.vjp(lambda v: func(*_tasks._with(args, argnum, v), **kwargs), x)
        if not is_array(out) or dtype_of(out).kind != "f":
            what = f"dtype {dtype_of(out)}" if is_array(out) else type(out).__name__
            raise GradOutputError(
                f"{where}: the function must return one real floating-point array, got "
                f"{what}; return a single float array (concatenate pytree outputs)"
            )
        empty = namespace_of(out).zeros((0,) + tuple(out.shape), dtype=out.dtype)
        try:
            meta = _zero_size(api.vmap(vjp_fn)(empty)[0])
        except Exception:
            meta = _zero_size(namespace_of(x).zeros((0,) + tuple(x.shape), dtype=x.dtype))
        return _rows_graph(
            "jacrev", _tasks.task_jacrev, func, argnum, args, kwargs, int(out.size), rows,
            tuple(int(n) for n in x.shape), meta, where,
        )  # fmt: skip

    return jac


def hessian(func: Callable, argnums: int = 0, *, rows_per_task: int) -> Callable:
    """The Hessian of a scalar ``func`` at in-memory arguments, its rows split across dask
    tasks: ``hessian(func)(*args)`` is a lazy ``(N, N)`` array (``N = x.size``) in blocks of
    ``rows_per_task`` rows; each task runs forward-over-reverse on its own rows of the
    identity, built in the task.

    Example:
        >>> import numpy as np
        >>> import ftransforms.distributed as fd
        >>> H = fd.hessian(lambda x: (x ** 3).sum(), rows_per_task=1)(np.array([1.0, 2.0]))
        >>> fd.compute(H, scheduler="sync")
        array([[ 6.,  0.],
               [ 0., 12.]])
    """
    where = f"fd.hessian({arguments.fname(func)}, rows_per_task={rows_per_task!r})"
    rows = _rows_per_task(rows_per_task, where)

    @functools.wraps(func)
    def hess(*args: Any, **kwargs: Any) -> Any:
        _dask(where)
        _check_outermost(where)
        argnum, x = _point(func, argnums, args, where)
        _in_memory_args(func, args, kwargs, where)
        n = int(x.size)
        meta = namespace_of(x).zeros((0, 0), dtype=x.dtype)
        return _rows_graph(
            "hessian", _tasks.task_hessian, func, argnum, args, kwargs, n, rows, (n,), meta,
            where,
        )  # fmt: skip

    return hess


# -- compute / persist ---------------------------------------------------------------------


def compute(tree: Any, **dask_kw: Any) -> Any:
    """Compute every dask collection in a pytree in one dask pass (shared inputs are read
    once); other leaves are returned as they are.  ``dask_kw`` go to ``dask.compute``
    (``scheduler="sync"``, ...); with a ``distributed.Client`` it runs there.  Arrays of
    non-NumPy chunks (CuPy) are joined with their own namespace and stay on the device.

    Example:
        >>> import dask.array as da
        >>> import ftransforms.distributed as fd
        >>> fd.compute({"a": da.ones(3, chunks=2), "b": 1}, scheduler="sync")
        {'a': array([1., 1., 1.]), 'b': 1}
    """
    dk = _dask("fd.compute")
    _check_outermost("fd.compute")
    leaves, spec = tree_flatten(tree)
    targets, how = [], []
    for leaf in leaves:
        if not dk.dask.is_dask_collection(leaf):
            how.append(("value", leaf))
        elif isinstance(leaf, dk.da.Array) and type(leaf._meta) is not numpy.ndarray:
            blocks = leaf.to_delayed()
            how.append(("blocks", len(targets), blocks.shape))
            targets.extend(blocks.ravel().tolist())
        else:
            how.append(("one", len(targets)))
            targets.append(leaf)
    done = dk.dask.compute(*targets, **dask_kw) if targets else ()
    out = []
    for h in how:
        if h[0] == "value":
            out.append(h[1])
        elif h[0] == "one":
            value = done[h[1]]  # a 0-d array's result is a NumPy scalar: keep it an array
            out.append(numpy.asarray(value) if isinstance(value, numpy.generic) else value)
        else:
            n = math.prod(h[2])
            out.append(_join_blocks(list(done[h[1] : h[1] + n]), h[2]))
    return tree_unflatten(spec, out)


def _join_blocks(flat: list, grid: tuple, axis: int = 0) -> Any:
    if not grid:
        return flat[0]
    step = len(flat) // grid[0]
    parts = [
        _join_blocks(flat[i * step : (i + 1) * step], grid[1:], axis + 1) for i in range(grid[0])
    ]
    return parts[0] if len(parts) == 1 else namespace_of(*parts).concatenate(parts, axis=axis)


def persist(tree: Any, **dask_kw: Any) -> Any:
    """Start computing every dask collection in a pytree and keep the results in the
    workers' memory (``dask.persist`` in one pass); returns the same pytree of (now
    persisted) collections.  Use it for data read by several computations.

    Example:
        >>> import dask.array as da
        >>> import ftransforms.distributed as fd
        >>> p = fd.persist((da.ones(4, chunks=2), 3), scheduler="sync")
        >>> fd.compute(p, scheduler="sync")
        (array([1., 1., 1., 1.]), 3)
    """
    dk = _dask("fd.persist")
    _check_outermost("fd.persist")
    leaves, spec = tree_flatten(tree)
    lazy = [k for k, v in enumerate(leaves) if dk.dask.is_dask_collection(v)]
    if lazy:
        for k, v in zip(lazy, dk.dask.persist(*[leaves[k] for k in lazy], **dask_kw)):
            leaves[k] = v
    return tree_unflatten(spec, leaves)
