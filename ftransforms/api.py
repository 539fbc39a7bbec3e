"""The transforms: ``vmap``, ``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``linearize``,
``jacrev``, ``jacfwd`` and ``hessian``, with torch.func's names and semantics.

Each call pushes one interpreter (see ``core/stack.py``), runs the function on tracers and
returns plain arrays (or the tracers of enclosing transforms, when nested).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from collections.abc import Callable
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.backend import is_array
from ftransforms.core.errors import (
    ArgnumsError,
    AuxError,
    ChunkSizeError,
    DaskArrayError,
    EscapedTracerError,
    GradOutputError,
    InDimsError,
    NonDifferentiableInputError,
    OutDimsError,
    RandomnessError,
    TangentMismatchError,
)
from ftransforms.core.stack import pushed
from ftransforms.core.tracer import Tracer
from ftransforms.interpreters.batching import BatchInterpreter, BatchTracer
from ftransforms.interpreters.forward import DualTracer, ForwardInterpreter
from ftransforms.interpreters.reverse import ReverseInterpreter, ReverseTracer
from ftransforms.numpy.creation import from_object_arrays
from ftransforms.numpy.helpers import dtype_of, xp_of
from ftransforms.pytree import (
    broadcast_prefix,
    path_str,
    tree_flatten,
    tree_flatten_with_path,
    tree_unflatten,
)
from ftransforms.random import same_randomness_across_chunks

__all__ = [
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "linearize",
    "vjp",
    "vmap",
]

# -- shared helpers ----------------------------------------------------------------------


def _fname(func: Callable) -> str:
    return getattr(func, "__name__", None) or type(func).__name__


def _arg_names(func: Callable, n: int) -> list[str]:
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        params = []
    names = []
    for i in range(n):
        if i < len(params) and params[i].kind in (
            inspect.Parameter.POSITIONAL_ONLY,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
        ):
            names.append(params[i].name)
        else:
            names.append(f"args[{i}]")
    return names


def _leaf_names(func: Callable, args: tuple) -> list[str]:
    names = _arg_names(func, len(args))
    paths, _, _ = tree_flatten_with_path(args, none_is_leaf=True)
    return [names[p[0]] + path_str(p[1:]) for p in paths]


class _LazyNames:
    """Names of the leaves of ``args`` for error messages, computed on first use only
    (``inspect.signature`` is too slow for every call)."""

    def __init__(self, func: Callable, args: tuple, leaves: bool = True) -> None:
        self._func, self._args, self._leaves, self._names = func, args, leaves, None

    def __getitem__(self, i: int) -> str:
        if self._names is None:
            if self._leaves:
                self._names = _leaf_names(self._func, self._args)
            else:
                self._names = _arg_names(self._func, len(self._args))
        return self._names[i]


def _check_live(value: Any, where: str) -> None:
    if isinstance(value, Tracer) and not value._interp.active:
        raise EscapedTracerError(
            f"{where}: the function returned a tracer of {value._interp.name}, which had "
            f"already returned (an escaped tracer).  Return values computed inside the "
            f"transform that created them."
        )


def _plain(value: Any) -> Any:
    """Turn NumPy scalars (from reductions) into 0-d arrays; leave everything else."""
    if isinstance(value, numpy.generic):
        return numpy.asarray(value)
    return value


def _is_dask(value: Any) -> bool:
    """A dask collection, recognized by its type's module: the core never imports dask."""
    return type(value).__module__.startswith("dask")


def _dask_error(where: str, what: Any) -> DaskArrayError:
    what = what() if callable(what) else what
    return DaskArrayError(
        f"{where}: {what} is a lazy dask array, but this transform runs on in-memory "
        f"NumPy/CuPy arrays; map over dask arrays with ftransforms.distributed (fd.vmap, "
        f"fd.map_reduce, fd.jacrev, fd.hessian), or pass x.compute()"
    )


def _to_array(value: Any, where: str, what: Any) -> Any:
    """``value`` as an array (Python numbers become 0-d arrays); ``what`` names it in the
    error, and may be a zero-argument callable so that the name is only made on error."""
    if isinstance(value, Tracer) or is_array(value):
        return value
    if isinstance(value, (bool, int, float, complex, numpy.generic)):
        return numpy.asarray(value)
    if _is_dask(value):
        raise _dask_error(where, what)
    what = what() if callable(what) else what
    raise TypeError(
        f"{where}: {what} must be an array or a Python number, got {type(value).__name__}; "
        f"pass numpy/cupy arrays (or pytrees of them)"
    )


def _is_inexact(x: Any) -> bool:
    return dtype_of(x).kind in "fc"


def _check_holomorphic_inputs(tree: Any, where: str, name: Callable[[], str]) -> None:
    """With ``holomorphic=True`` every differentiated leaf must be complex (as in JAX)."""
    paths, leaves, _ = tree_flatten_with_path(tree)
    for path, leaf in zip(paths, leaves):
        dt = dtype_of(_to_array(leaf, where, lambda: f"{name()}{path_str(path)}"))
        if dt.kind != "c":
            raise NonDifferentiableInputError(
                f"{where}: holomorphic=True needs complex inputs, but {name()}{path_str(path)} "
                f"has dtype {dt}; pass it as complex (x.astype(np.complex128)), or drop "
                f"holomorphic=True to differentiate a real input"
            )


def _check_holomorphic_outputs(leaves: list, where: str) -> None:
    """With ``holomorphic=True`` every output leaf must be complex (as in JAX)."""
    for k, leaf in enumerate(leaves):
        dt = dtype_of(leaf)
        if dt.kind != "c":
            what = "the output" if len(leaves) == 1 else f"output leaf {k}"
            raise GradOutputError(
                f"{where}: holomorphic=True needs complex outputs, but {what} has dtype {dt}; "
                f"return a complex value (out.astype(np.complex128)), or drop "
                f"holomorphic=True to differentiate a real output"
            )


def _structure(tree: Any = None, spec: Any = None, none_is_leaf: bool = False) -> str:
    """A pytree's structure for messages, leaves as ``*``: ``({'a': *}, *)``."""
    if spec is None:
        spec = tree_flatten(tree, none_is_leaf=none_is_leaf)[1]
    s = repr(spec).split(", namespace=")[0].removesuffix(")").removesuffix(", NoneIsLeaf")
    return s.removeprefix("PyTreeSpec(")


def _check_pair(out: Any, where: str) -> tuple[Any, Any]:
    if not (isinstance(out, tuple) and len(out) == 2):
        if isinstance(out, tuple):
            got = f"a tuple of length {len(out)}"
        elif isinstance(out, Tracer) or is_array(out):
            got = f"a single array of shape {fnp.shape(out)}"
        else:
            got = type(out).__name__
        raise AuxError(
            f"{where}: has_aux=True requires the function to return a pair (output, aux), "
            f"got {got}; return (output, aux) or drop has_aux"
        )
    return out


def _normalize_argnums(argnums: Any, nargs: int, where: str) -> tuple[tuple[int, ...], bool]:
    """(argnums as non-negative ints, whether the user gave a single int)."""
    if type(argnums) is int and 0 <= argnums < nargs:  # the common case, checked fast
        return (argnums,), True
    single = isinstance(argnums, (int, numpy.integer)) and not isinstance(argnums, bool)
    nums = (argnums,) if single else argnums
    if (
        not isinstance(nums, tuple)
        or not nums
        or not all(isinstance(i, (int, numpy.integer)) and not isinstance(i, bool) for i in nums)
    ):
        raise ArgnumsError(
            f"{where}: argnums must be an int or a non-empty tuple of ints, got {argnums!r}"
        )
    out = []
    for i in nums:
        if not -nargs <= i < nargs:
            raise ArgnumsError(
                f"{where}: argnums={argnums!r} is out of range: the function got {nargs} "
                f"positional argument(s); argnums counts from 0 (negative counts from the end)"
            )
        out.append(int(i) % nargs)
    if len(set(out)) != len(out):
        raise ArgnumsError(f"{where}: argnums={argnums!r} has duplicates; list each once")
    return tuple(out), single


def _replace_args(args: tuple, argnums: tuple[int, ...], values: tuple) -> tuple:
    new = list(args)
    for i, v in zip(argnums, values):
        new[i] = v
    return tuple(new)


# -- vmap --------------------------------------------------------------------------------

_RANDOMNESS = ("error", "different", "same")


def vmap(
    func: Callable,
    in_dims: Any = 0,
    out_dims: Any = 0,
    randomness: str = "error",
    *,
    chunk_size: int | None = None,
) -> Callable:
    """Vectorize ``func`` over a batch axis of its inputs.

    ``in_dims``/``out_dims`` are ints (negative allowed), ``None`` (not batched) or pytrees
    of those matching the positional arguments / the outputs.  Keyword arguments are passed
    through unbatched.  ``chunk_size`` runs the batch in pieces of that size (same result,
    less memory).

    Example:
        >>> import numpy as np
        >>> from ftransforms import vmap
        >>> vmap(lambda x, w: x @ w, in_dims=(0, None))(np.ones((5, 3)), np.ones(3)).shape
        (5,)
    """
    _check_randomness(randomness, f"vmap({_fname(func)}, randomness={randomness!r})")
    _check_chunk_size(chunk_size, f"vmap({_fname(func)}, chunk_size={chunk_size!r})")

    where = f"vmap({_fname(func)}, in_dims={in_dims!r})"

    @functools.wraps(func)
    def batched(*args: Any, **kwargs: Any) -> Any:
        args = from_object_arrays(args)
        leaves, spec, dims, size = _vmap_inputs(func, in_dims, args, where)
        if chunk_size is None or size <= chunk_size:
            return _vmap_call(func, leaves, spec, dims, size, kwargs, out_dims, randomness, where)
        return _vmap_chunked(
            func, leaves, spec, dims, size, kwargs, out_dims, randomness, where, chunk_size
        )

    return batched


def _check_randomness(randomness: Any, where: str) -> None:
    if not isinstance(randomness, str) or randomness not in _RANDOMNESS:
        raise RandomnessError(
            f"{where}: randomness must be one of 'error' (drawing random numbers raises), "
            f"'different' (independent draws per batch element) or 'same' (one draw shared "
            f"by the batch), got {randomness!r}"
        )


def _check_chunk_size(chunk_size: Any, where: str) -> None:
    if chunk_size is not None and (
        not isinstance(chunk_size, (int, numpy.integer))
        or isinstance(chunk_size, bool)
        or chunk_size < 1
    ):
        raise ChunkSizeError(
            f"{where}: chunk_size must be None or a positive int, got {chunk_size!r}; use "
            f"chunk_size=None to run the whole batch at once"
        )


def _vmap_inputs(func, in_dims, args, where):
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
        dims = _in_dims_per_leaf(in_dims, args, leaves)
    except ValueError:
        raise InDimsError(
            f"{where}: in_dims does not match the structure of the arguments: in_dims is "
            f"{_structure(in_dims, none_is_leaf=True)} but the arguments are "
            f"{_structure(args, none_is_leaf=True)}; give an int/None per argument, or a "
            f"pytree with the argument's structure (same dict keys, same lengths)"
        ) from None
    size = None
    sizes = []
    for i, (leaf, d) in enumerate(zip(leaves, dims)):
        if d is None:
            if type(leaf) not in _LEAF_TYPES and _is_dask(leaf):
                raise _dask_error(where, _leaf_names(func, args)[i])
            continue
        if leaf is None:
            _check_none_arg(func, in_dims, args, i, d, where)
            dims[i] = None
            continue
        if not isinstance(d, (int, numpy.integer)) or isinstance(d, bool):
            raise InDimsError(
                f"{where}: every in_dims entry must be an int or None, got {d!r} for "
                f"{_leaf_names(func, args)[i]}"
            )
        if not (isinstance(leaf, Tracer) or is_array(leaf)):
            if _is_dask(leaf):
                raise _dask_error(where, _leaf_names(func, args)[i])
            raise InDimsError(
                f"{where}: {_leaf_names(func, args)[i]} is a {type(leaf).__name__}, which has "
                f"no axis {d} to map over; give it in_dim None or pass an array"
            )
        rank = fnp.ndim(leaf)
        if not -rank <= d < rank:
            raise InDimsError(
                f"{where}: in_dim={d} is out of range for {_leaf_names(func, args)[i]} of "
                f"shape {fnp.shape(leaf)} (rank {rank}); use an axis in [-{rank}, {rank})"
                if rank
                else f"{where}: {_leaf_names(func, args)[i]} is 0-d and has no axis {d} to "
                f"map over; give it in_dim None"
            )
        dims[i] = int(d) % rank
        n = fnp.shape(leaf)[dims[i]]
        sizes.append((i, n))
        if size is None:
            size = n
    if size is None:
        raise InDimsError(
            f"{where}: no argument is batched (every in_dim is None, or there are no array "
            f"arguments); give at least one argument an int in_dim"
        )
    if any(n != size for _, n in sizes):
        names = _leaf_names(func, args)
        listing = ", ".join(f"{names[i]} has {n}" for i, n in sizes)
        raise InDimsError(
            f"{where}: arguments have different sizes on their batch axes: {listing}.  "
            f"Batch them to one size, or mark the unbatched ones with in_dim None."
        )
    return leaves, spec, dims, size


def _in_dims_per_leaf(in_dims: Any, args: tuple, leaves: list) -> list:
    """One in_dim per argument leaf.  Fast path: every argument is itself a leaf (an
    array, tracer, scalar or None) and ``in_dims`` is an int/None or one entry each."""
    if len(leaves) == len(args) and all(
        type(a) in _LEAF_TYPES or isinstance(a, Tracer) for a in args
    ):
        if in_dims is None or type(in_dims) is int:
            return [in_dims] * len(args)
        if type(in_dims) is tuple and all(d is None or type(d) is int for d in in_dims):
            return list(in_dims)
    return broadcast_prefix(in_dims, args)


#: Types that optree flattens to a single leaf (with ``none_is_leaf=True``).
_LEAF_TYPES = frozenset(
    {numpy.ndarray, float, int, bool, complex, type(None), numpy.float32, numpy.float64}
)


def _check_none_arg(func, in_dims, args, i, d, where):
    """An int in_dim given explicitly (not broadcast from a prefix) for a None argument."""
    if not isinstance(in_dims, (tuple, dict)):
        return
    path = tree_flatten_with_path(args, none_is_leaf=True)[0][i]
    in_paths, in_leaves, _ = tree_flatten_with_path(in_dims, none_is_leaf=True)
    if path in in_paths and in_leaves[in_paths.index(path)] is not None:
        raise InDimsError(
            f"{where}: {_leaf_names(func, args)[i]} is None, which has no axis {d} to map "
            f"over; give it in_dim None"
        )


def _vmap_call(func, leaves, spec, dims, size, kwargs, out_dims, randomness, where):
    with pushed(BatchInterpreter(where, size, randomness)) as interp:
        wrapped = [
            leaf if d is None else BatchTracer(interp, leaf, d) for leaf, d in zip(leaves, dims)
        ]
        out = from_object_arrays(func(*tree_unflatten(spec, wrapped), **kwargs))
        return _vmap_outputs(interp, out, out_dims, size, where)


def _out_dims_per_leaf(out_dims, out, where):
    """One out_dim per leaf of ``out`` (``None`` outputs have no leaf and get none)."""
    if isinstance(out_dims, list):
        out_dims = tuple(out_dims)
    if isinstance(out_dims, tuple) and not isinstance(out, tuple) and len(out_dims) == 1:
        out_dims = out_dims[0]
    if type(out_dims) is int and (type(out) in _LEAF_TYPES or isinstance(out, Tracer)):
        return [] if out is None else [out_dims]  # one output leaf: the common case
    try:
        dims = broadcast_prefix(out_dims, out)
    except ValueError:
        raise OutDimsError(
            f"{where}: out_dims={out_dims!r} does not match the structure of the outputs: "
            f"out_dims is {_structure(out_dims, none_is_leaf=True)} but the function "
            f"returned {_structure(out)}; give an int/None per output, or a pytree with the "
            f"outputs' structure"
        ) from None
    # broadcast_prefix counts None outputs as leaves; tree_flatten does not: drop theirs.
    return [d for d, leaf in zip(dims, tree_flatten(out, none_is_leaf=True)[0]) if leaf is not None]


def _vmap_outputs(interp, out, out_dims, size, where):
    leaves, spec = tree_flatten(out, none_is_leaf=False)
    dims = _out_dims_per_leaf(out_dims, out, where)
    results = []
    for leaf, d in zip(leaves, dims):
        _check_live(leaf, where)
        batched = type(leaf) is BatchTracer and leaf._interp is interp
        if d is None:
            if batched:
                raise OutDimsError(
                    f"{where}: out_dims is None for an output that varies across the batch; "
                    f"give it an int out_dim, or return a value that does not depend on the "
                    f"batched inputs"
                )
            results.append(_plain(leaf))
            continue
        if not isinstance(d, (int, numpy.integer)) or isinstance(d, bool):
            raise OutDimsError(f"{where}: every out_dims entry must be an int or None, got {d!r}")
        value = _to_array(leaf, where, "every output")
        rank = fnp.ndim(value) + 1
        if not -rank <= d < rank:
            raise OutDimsError(
                f"{where}: out_dim={d} is out of range for an output of rank {rank - 1} (rank "
                f"{rank} with the batch axis); use an axis in [-{rank}, {rank})"
            )
        d = int(d) % rank
        if batched:
            val = value.val
            results.append(val if value.bdim == d else fnp.moveaxis(val, value.bdim, d))
        else:
            s = fnp.shape(value)
            expanded = fnp.broadcast_to(
                fnp.reshape(value, s[:d] + (1,) + s[d:]), s[:d] + (size,) + s[d:]
            )
            if not isinstance(expanded, Tracer):
                expanded = xp_of(expanded).array(expanded, copy=True)
            results.append(expanded)
    return tree_unflatten(spec, results)


def _vmap_chunked(func, leaves, spec, dims, size, kwargs, out_dims, randomness, where, chunk):
    def piece(start, stop):
        chunk_leaves = [
            leaf if d is None else fnp.getitem(leaf, (slice(None),) * d + (slice(start, stop),))
            for leaf, d in zip(leaves, dims)
        ]
        return _vmap_call(
            func, chunk_leaves, spec, dims, stop - start, kwargs, out_dims, randomness, where
        )

    return _chunk_loop(piece, size, chunk, out_dims, randomness, where)


def _chunk_loop(piece, size, chunk, out_dims, randomness, where):
    """``piece(start, stop)`` for consecutive chunks of ``range(size)``, joined along each
    output's ``out_dims`` axis (outputs with out_dim None are taken from the first chunk)."""
    pieces = []
    # Every chunk must draw the same noise under randomness='same' (see NOTE [randomness
    # under vmap] in ftransforms/random.py).
    if randomness == "same":
        replay = same_randomness_across_chunks()
    else:
        replay = contextlib.nullcontext()
    with replay:
        for start in range(0, size, chunk) if size else (0,):
            pieces.append(piece(start, min(start + chunk, size)))
    if len(pieces) == 1:
        return pieces[0]
    out_spec = tree_flatten(pieces[0])[1]
    all_leaves = [tree_flatten(p)[0] for p in pieces]
    dims_out = _out_dims_per_leaf(out_dims, pieces[0], where)
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
        value = _to_array(leaf, where, lambda: names[k])
        if dtype_of(value).kind not in "biufc":
            raise NonDifferentiableInputError(
                f"{where}: {names[k]} has dtype {dtype_of(value)}; only numeric arrays can "
                f"be differentiated"
            )
        if copy and not isinstance(value, Tracer):
            value = xp_of(value).array(value, copy=True)  # vjp_fn must not see later writes
        prepared.append(value)
    return prepared


def _vjp(func, primals, has_aux, where, copy):
    leaves, spec = tree_flatten(from_object_arrays(primals))
    leaves = _prepare_primals(leaves, where, _LazyNames(func, primals), copy)
    interp = ReverseInterpreter(where)
    with pushed(interp):
        wrapped = [interp.new_input(v) if _is_inexact(v) else v for v in leaves]
        in_ids = [w.id if type(w) is ReverseTracer else None for w in wrapped]
        out = from_object_arrays(func(*tree_unflatten(spec, wrapped)))
        aux = None
        if has_aux:
            out, aux = _check_pair(out, where)
        out_leaves, out_spec = tree_flatten(out)
        values, ids = [], []
        for leaf in out_leaves:
            _check_live(leaf, where)
            if type(leaf) is ReverseTracer and leaf._interp is interp:
                values.append(leaf.value)
                ids.append(leaf.id)
            else:
                values.append(_to_array(leaf, where, "every output"))
                ids.append(None)
        if has_aux:
            aux = _strip(aux, interp, ReverseTracer, "value", where)
    return interp, leaves, spec, in_ids, values, out_spec, ids, aux


def _strip(tree, interp, cls, attr, where):
    """Replace this level's tracers in ``tree`` by their inner values (aux outputs)."""
    leaves, spec = tree_flatten(tree)
    out = []
    for leaf in leaves:
        _check_live(leaf, where)
        out.append(getattr(leaf, attr) if type(leaf) is cls and leaf._interp is interp else leaf)
    return tree_unflatten(spec, [_plain(v) for v in out])


def vjp(func: Callable, *primals: Any, has_aux: bool = False, holomorphic: bool = False):
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
    where = f"vjp({_fname(func)}{', holomorphic=True' if holomorphic else ''})"
    if holomorphic:
        _check_holomorphic_inputs(primals, where, lambda: "primals")
    interp, leaves, spec, in_ids, values, out_spec, ids, aux = _vjp(
        func, primals, has_aux, where, copy=True
    )
    if holomorphic:
        _check_holomorphic_outputs(values, where)

    def vjp_fn(cotangents: Any) -> tuple:
        ct_leaves, ct_spec = tree_flatten(from_object_arrays(cotangents))
        if ct_spec != out_spec:
            raise TangentMismatchError(
                f"{where} vjp_fn: the cotangent's structure {_structure(spec=ct_spec)} "
                f"differs from the output's {_structure(spec=out_spec)}; pass one cotangent "
                f"per output leaf"
            )
        seeds = {}
        for k, (ct, val, i) in enumerate(zip(ct_leaves, values, ids)):
            ct = _check_like(ct, val, f"{where} vjp_fn", f"cotangent {k}", "output")
            if i is not None:  # one value returned twice: its cotangents add up
                seeds[i] = ct if i not in seeds else fnp.add(seeds[i], ct)
        wanted = [i for i in in_ids if i is not None]
        grads = interp.backward(seeds, wanted) if seeds else [None] * len(wanted)
        it = iter(grads)
        result = []
        for leaf, i in zip(leaves, in_ids):
            g = next(it) if i is not None else None
            result.append(_plain(fnp.zeros_like(leaf)) if g is None else _plain(g))
        return tuple(tree_unflatten(spec, result))

    out = tree_unflatten(out_spec, [_plain(v) for v in values])
    return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)


def _check_like(t, ref, where, what, ref_what):
    """``t`` as an array of ``ref``'s shape and dtype, or a TangentMismatchError."""
    t = _to_array(t, where, what)
    if fnp.shape(t) == fnp.shape(ref) and dtype_of(t) == dtype_of(ref):
        return t
    what = what() if callable(what) else what
    if fnp.shape(t) != fnp.shape(ref):
        raise TangentMismatchError(
            f"{where}: {what} has shape {fnp.shape(t)} but the {ref_what} has shape "
            f"{fnp.shape(ref)}; they must match"
        )
    td, rd = dtype_of(t), dtype_of(ref)
    if td != rd:
        raise TangentMismatchError(
            f"{where}: {what} has dtype {td} but the {ref_what} has dtype {rd}; cast it "
            f"with .astype({rd.name!r})"
        )
    return t


def grad_and_value(
    func: Callable, argnums: Any = 0, has_aux: bool = False, holomorphic: bool = False
) -> Callable:
    """Like :func:`grad`, returning ``(gradient, value)`` (``(gradient, (value, aux))`` with
    ``has_aux``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import grad_and_value
        >>> g, v = grad_and_value(lambda x: (x ** 2).sum())(np.arange(3.0))
        >>> g, float(v)
        (array([0., 2., 4.]), 5.0)
    """

    where = f"grad({_fname(func)}{', holomorphic=True' if holomorphic else ''})"

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        args = from_object_arrays(args)
        nums, single = _normalize_argnums(argnums, len(args), where)
        diff = tuple(args[i] for i in nums)
        names = _LazyNames(func, args, leaves=False)
        for i, d in zip(nums, diff):
            _check_differentiable(d, where, lambda: names[i])
            if holomorphic:
                _check_holomorphic_inputs(d, where, lambda: names[i])

        def partial(*d):
            return func(*_replace_args(args, nums, d), **kwargs)

        interp, leaves, spec, in_ids, values, out_spec, ids, aux = _vjp(
            partial, diff, has_aux, where, copy=False
        )
        if not out_spec.is_leaf():
            got = _structure(spec=out_spec)
            raise GradOutputError(
                f"{where}: the output must be a real scalar, got "
                f"{got if got == 'None' else f'the pytree {got}'}; return one scalar (e.g. a "
                f"sum of losses), or use jacrev"
            )
        value = values[0]
        _check_scalar_output(value, where, holomorphic)
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
            _plain(fnp.zeros_like(leaf)) if g is None else _plain(g)
            for leaf, g in zip(leaves, grads)
        ]
        g = tree_unflatten(spec, result)
        g = g[0] if single else g
        value = _plain(value)
        return (g, (value, aux)) if has_aux else (g, value)

    return wrapped


def _check_differentiable(arg, where, name):
    """Refuse integer/bool leaves; ``name()`` gives the argument's name.  Complex inputs are
    fine: see NOTE [complex derivatives] in ops/elementwise.py."""
    if type(arg) is numpy.ndarray and arg.dtype.kind in "fc":
        return  # the common case, checked without flattening
    paths, leaves, _ = tree_flatten_with_path(arg)
    for path, leaf in zip(paths, leaves):
        if type(leaf) is numpy.ndarray and leaf.dtype.kind == "f":
            continue
        dt = dtype_of(leaf) if (isinstance(leaf, Tracer) or hasattr(leaf, "dtype")) else None
        if isinstance(leaf, (bool, int)) or (dt is not None and dt.kind in "biu"):
            kind = type(leaf).__name__ if dt is None else f"dtype {dt}"
            raise NonDifferentiableInputError(
                f"{where}: {name()}{path_str(path)} is an integer/bool input ({kind}); "
                f"differentiation needs floating-point inputs: pass it as float (e.g. "
                f"x.astype(np.float32)), or leave it out of argnums"
            )


def _check_scalar_output(value, where, holomorphic=False):
    if type(value) is not numpy.ndarray and _is_dask(value):
        raise _dask_error(where, "the output (computed from a dask argument)")
    s = fnp.shape(value)
    dt = dtype_of(value)
    if s != ():
        raise GradOutputError(
            f"{where}: the output must be a {'complex' if holomorphic else 'real'} scalar, got "
            f"shape {s}; reduce it with .sum() (or .mean()), or use jacrev for the full Jacobian"
        )
    if holomorphic:
        _check_holomorphic_outputs([value], where)
        return
    if dt.kind == "c":
        raise GradOutputError(
            f"{where}: the output is complex ({dt}); grad needs a real scalar: take .real, "
            f"abs(...) or abs(...)**2 of it, or pass holomorphic=True if func is holomorphic"
        )
    if dt.kind not in "f":
        raise GradOutputError(
            f"{where}: the output has dtype {dt}; grad needs a floating-point scalar output "
            f"(an integer output has no derivative)"
        )


def grad(
    func: Callable, argnums: Any = 0, has_aux: bool = False, holomorphic: bool = False
) -> Callable:
    """The gradient of a real-scalar-valued ``func`` with respect to ``args[argnums]``.

    ``argnums`` is an int (the gradient has that argument's structure) or a tuple of ints
    (a tuple of gradients).  With ``has_aux=True`` ``func`` returns ``(output, aux)`` and
    the result is ``(gradient, aux)``.  Keyword arguments are not differentiated.  For a
    complex input and real output the gradient is ``df/dx - 1j df/dy`` (JAX's convention);
    ``holomorphic=True`` takes a complex scalar output of complex inputs and gives the
    complex derivative ``f'(z)`` (``2 z`` for ``z ** 2``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import grad
        >>> grad(lambda x: np.sum(x ** 3))(np.array([1.0, 2.0]))
        array([ 3., 12.])
        >>> complex(grad(lambda z: z ** 2, holomorphic=True)(np.complex128(1 + 2j)))
        (2+4j)
    """
    gv = grad_and_value(func, argnums, has_aux, holomorphic)

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapped


# -- forward mode ------------------------------------------------------------------------


def jvp(
    func: Callable,
    primals: Any,
    tangents: Any,
    *,
    has_aux: bool = False,
    holomorphic: bool = False,
):
    """Evaluate ``func(*primals)`` and its directional derivative along ``tangents``.

    Returns ``(output, jvp_out[, aux])``; ``tangents`` has the structure, shapes and dtypes
    of ``primals`` (both tuples of the positional arguments).  For a holomorphic ``func``
    of complex inputs ``jvp_out`` is ``f'(z) * t``; ``holomorphic=True`` only checks that
    the inputs and outputs are complex.

    Example:
        >>> import numpy as np
        >>> from ftransforms import jvp
        >>> jvp(np.sin, (np.zeros(2),), (np.ones(2),))[1]
        array([1., 1.])
    """
    where = f"jvp({_fname(func)}{', holomorphic=True' if holomorphic else ''})"
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TangentMismatchError(
            f"{where}: primals and tangents must be tuples of the function's positional "
            f"arguments, got {type(primals).__name__} and {type(tangents).__name__}; write "
            f"jvp(f, (x,), (t,))"
        )
    primals, tangents = from_object_arrays((tuple(primals), tuple(tangents)))
    p_leaves, p_spec = tree_flatten(primals)
    t_leaves, t_spec = tree_flatten(tangents)
    if p_spec != t_spec:
        raise TangentMismatchError(
            f"{where}: tangents have structure {_structure(spec=t_spec)} but primals have "
            f"{_structure(spec=p_spec)}; give one tangent per primal leaf"
        )
    names = _LazyNames(func, primals)
    if holomorphic:
        _check_holomorphic_inputs(primals, where, lambda: "primals")
    interp = ForwardInterpreter(where)
    with pushed(interp):
        wrapped = []
        for k, (p, t) in enumerate(zip(p_leaves, t_leaves)):
            p = _to_array(p, where, lambda: names[k])
            if _is_inexact(p):
                t = _check_like(t, p, where, lambda: f"the tangent of {names[k]}", "primal")
                wrapped.append(DualTracer(interp, p, t))
            else:
                wrapped.append(p)
        out = from_object_arrays(func(*tree_unflatten(p_spec, wrapped)))
        aux = None
        if has_aux:
            out, aux = _check_pair(out, where)
            aux = _strip(aux, interp, DualTracer, "primal", where)
        out_leaves, out_spec = tree_flatten(out)
        primal_out, tangent_out = [], []
        for leaf in out_leaves:
            _check_live(leaf, where)
            if type(leaf) is DualTracer and leaf._interp is interp:
                primal_out.append(_plain(leaf.primal))
                tangent_out.append(_plain(leaf.tangent))
            else:
                leaf = _plain(_to_array(leaf, where, "every output"))
                primal_out.append(leaf)
                tangent_out.append(_plain(fnp.zeros_like(leaf)))
    if holomorphic:
        _check_holomorphic_outputs(primal_out, where)
    result = (tree_unflatten(out_spec, primal_out), tree_unflatten(out_spec, tangent_out))
    return result + (aux,) if has_aux else result


def linearize(func: Callable, *primals: Any):
    """Evaluate ``func(*primals)`` once and return ``(output, jvp_fn)``.

    ``jvp_fn(*tangents)`` pushes tangents through the recorded computation without
    re-running ``func`` (JAX's and torch.func's ``linearize``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import linearize
        >>> out, jvp_fn = linearize(np.sin, np.zeros(2))
        >>> jvp_fn(np.ones(2))
        array([1., 1.])
    """
    where = f"linearize({_fname(func)})"
    interp, leaves, spec, in_ids, values, out_spec, ids, _ = _vjp(
        func, primals, False, where, copy=True
    )

    def jvp_fn(*tangents: Any) -> Any:
        t_leaves, t_spec = tree_flatten(from_object_arrays(tangents))
        if t_spec != spec:
            raise TangentMismatchError(
                f"{where} jvp_fn: tangents have structure {_structure(spec=t_spec)} but "
                f"primals have {_structure(spec=spec)}; give one tangent per primal leaf"
            )
        seeds = {}
        for k, (t, p, i) in enumerate(zip(t_leaves, leaves, in_ids)):
            t = _check_like(t, p, f"{where} jvp_fn", f"tangent {k}", "primal")
            if i is not None:
                seeds[i] = t
        outs = interp.forward(seeds, [i for i in ids if i is not None])
        it = iter(outs)
        result = []
        for v, i in zip(values, ids):
            t = next(it) if i is not None else None
            result.append(_plain(fnp.zeros_like(v)) if t is None else _plain(t))
        return tree_unflatten(out_spec, result)

    return tree_unflatten(out_spec, [_plain(v) for v in values]), jvp_fn


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
                f"{where}: a Jacobian needs floating-point {what}s, got an {what} of dtype "
                f"{dt}, which has no derivative; cast it to float (x.astype(np.float64))"
            )
        if holomorphic and dt.kind != "c":
            error = GradOutputError if what == "output" else NonDifferentiableInputError
            raise error(
                f"{where}: holomorphic=True needs complex {what}s, got an {what} of dtype "
                f"{dt}; make it complex (x.astype(np.complex128)), or drop holomorphic=True"
            )
        if dt.kind == "c" and not holomorphic:
            raise GradOutputError(
                f"{where}: this Jacobian would need complex {what}s as basis directions, which "
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
    total = sum(fnp.size(v) for v in leaves)
    if chunk_size is None or total <= chunk_size:
        basis = _basis(leaves, where, what, holomorphic=holomorphic)
        return vmap(fn, out_dims=out_dims, randomness=randomness)(*basis)
    _basis(leaves, where, what, slice(0, 0), holomorphic)  # the dtype checks, before any work

    def piece(start, stop):
        basis = _basis(leaves, where, what, slice(start, stop), holomorphic)
        return vmap(fn, out_dims=out_dims, randomness=randomness)(*basis)

    return _chunk_loop(piece, total, chunk_size, out_dims, randomness, where)


def jacrev(
    func: Callable,
    argnums: Any = 0,
    *,
    has_aux: bool = False,
    chunk_size: int | None = None,
    holomorphic: bool = False,
) -> Callable:
    """The Jacobian of ``func`` by reverse mode: ``vmap`` of ``vjp`` over output basis
    vectors.  Each output leaf becomes ``output.shape + input.shape``; with pytree outputs
    or ``argnums`` tuples the result nests as in torch.func/JAX.  ``chunk_size`` pulls back
    that many basis vectors at a time, each chunk's basis rows built inside the loop: peak
    memory is bounded by the chunk, not by the output size (same result).
    ``holomorphic=True``: complex inputs and outputs, the complex Jacobian ``df/dz``.

    Example:
        >>> import numpy as np
        >>> from ftransforms import jacrev
        >>> jacrev(np.sin)(np.zeros(2))
        array([[1., 0.],
               [0., 1.]])
    """
    _check_chunk_size(chunk_size, f"jacrev({_fname(func)}, chunk_size={chunk_size!r})")

    @functools.wraps(func)
    def wrapped(*args: Any) -> Any:
        args = from_object_arrays(args)
        where = f"jacrev({_fname(func)}{', holomorphic=True' if holomorphic else ''})"
        nums, single = _normalize_argnums(argnums, len(args), where)
        diff = tuple(args[i] for i in nums)
        for i, d in zip(nums, diff):
            _check_differentiable(d, where, lambda: _arg_names(func, len(args))[i])
            if holomorphic:
                _check_holomorphic_inputs(d, where, lambda: _arg_names(func, len(args))[i])

        def partial(*d):
            return func(*_replace_args(args, nums, d))

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
        return (jac, aux) if has_aux else jac

    return wrapped


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
            blocks.append(_plain(block))
            i_start += i_n
        in_tree = tree_unflatten(in_spec, blocks)
        per_out.append(in_tree[0] if single else in_tree)
        o_start += o_n
    return tree_unflatten(out_spec, per_out)


def jacfwd(
    func: Callable,
    argnums: Any = 0,
    has_aux: bool = False,
    *,
    randomness: str = "error",
    chunk_size: int | None = None,
    holomorphic: bool = False,
) -> Callable:
    """The Jacobian of ``func`` by forward mode: ``vmap`` of ``jvp`` over input basis
    vectors; same layout as :func:`jacrev`.  ``chunk_size`` pushes that many basis vectors
    at a time, each chunk's basis rows built inside the loop (peak memory bounded by the
    chunk; same result; neither JAX nor torch.func has it).  ``holomorphic=True``: complex
    inputs and outputs, the complex Jacobian ``df/dz``.

    Example:
        >>> import numpy as np
        >>> from ftransforms import jacfwd
        >>> jacfwd(lambda x: x ** 2)(np.array([1.0, 3.0]))
        array([[2., 0.],
               [0., 6.]])
    """
    _check_randomness(randomness, f"jacfwd({_fname(func)}, randomness={randomness!r})")
    _check_chunk_size(chunk_size, f"jacfwd({_fname(func)}, chunk_size={chunk_size!r})")

    @functools.wraps(func)
    def wrapped(*args: Any) -> Any:
        args = from_object_arrays(args)
        where = f"jacfwd({_fname(func)}{', holomorphic=True' if holomorphic else ''})"
        nums, single = _normalize_argnums(argnums, len(args), where)
        diff = tuple(args[i] for i in nums)
        in_leaves, in_spec = tree_flatten(diff)
        in_leaves = [_to_array(v, where, "every differentiated input") for v in in_leaves]
        for i, d in zip(nums, diff):
            _check_differentiable(d, where, lambda: _arg_names(func, len(args))[i])
        diff = tree_unflatten(in_spec, in_leaves)

        def partial(*d):
            out = func(*_replace_args(args, nums, d))
            return _check_pair(out, where) if has_aux else out

        def push(*basis_leaves):
            tangents = tree_unflatten(in_spec, list(basis_leaves))
            res = jvp(partial, diff, tangents, has_aux=has_aux)
            out, t_out = res[0], res[1]
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
            _check_holomorphic_outputs(out_leaves, where)
        cols = tree_flatten(t_out)[0]  # per output leaf: (total_in, *o_shape)
        jac = _assemble(
            out_leaves, out_spec, in_leaves, in_spec, cols, single, rows_are_outputs=False
        )
        return (jac, res[2]) if has_aux else jac

    return wrapped


def _first_of_batch(tree: Any) -> Any:
    """Element 0 along the leading axis of every leaf (zeros of that shape for size 0)."""
    leaves, spec = tree_flatten(tree)
    firsts = [
        _plain(fnp.getitem(v, 0)) if fnp.shape(v)[0] else fnp.zeros(fnp.shape(v)[1:], v.dtype)
        for v in leaves
    ]
    return tree_unflatten(spec, firsts)


def hessian(
    func: Callable, argnums: Any = 0, *, chunk_size: int | None = None, holomorphic: bool = False
) -> Callable:
    """The Hessian of a scalar ``func``: ``jacfwd(jacrev(func, argnums), argnums)``.
    ``chunk_size`` is the outer ``jacfwd``'s: that many Hessian columns (Hessian-vector
    products) at a time, so peak memory is bounded by the chunk (same result).
    ``holomorphic=True`` is passed to both.

    Example:
        >>> import numpy as np
        >>> from ftransforms import hessian
        >>> hessian(lambda x: (x ** 3).sum())(np.array([1.0, 2.0]))
        array([[ 6.,  0.],
               [ 0., 12.]])
    """
    _check_chunk_size(chunk_size, f"hessian({_fname(func)}, chunk_size={chunk_size!r})")
    inner = jacrev(func, argnums, holomorphic=holomorphic)
    return jacfwd(inner, argnums, chunk_size=chunk_size, holomorphic=holomorphic)
