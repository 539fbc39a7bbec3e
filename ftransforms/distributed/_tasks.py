"""What runs inside the dask tasks (on the workers, or on the driver's threads).

Every function here takes plain arrays (NumPy, CuPy, or any type registered with
``ftransforms.backend``) and runs the ordinary single-machine transforms on them.  Nothing
here imports dask: a worker only needs ftransforms.  Joining and adding arrays goes through
the chunk's own namespace (``namespace_of``), so CuPy chunks stay on their GPU.

Example:
    >>> import numpy as np
    >>> from ftransforms.distributed._tasks import add_trees
    >>> add_trees([(np.ones(2),), (np.ones(2),)])
    (array([2., 2.]),)
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import optree

import ftransforms.numpy as fnp
from ftransforms.api import grad, jvp, vjp, vmap
from ftransforms.arguments import structure_str
from ftransforms.backend import namespace_of
from ftransforms.core.errors import SplitOutputError
from ftransforms.jit import jit
from ftransforms.pytree import NAMESPACE, tree_flatten, tree_unflatten

__all__ = ["Plan", "add_trees", "finish", "hessian_rows", "jacrev_rows", "reduce_block"]

#: The code of every function that ``ftransforms.jit`` returns: how a jit-ed function is
#: recognized (its closure holds the function it compiles and jit's settings).
_JIT_CODE = jit(lambda: None).__code__


def unwrap_jit(func: Callable) -> tuple[Callable, dict] | None:
    """``(the compiled function, jit's keyword arguments)`` if ``func`` came from
    ``ftransforms.jit``, else ``None``."""
    code = getattr(func, "__code__", None)
    if code is None or func.__closure__ is None:
        return None
    # Compared by content: a function pickled to a worker has a copy of the code object.
    if code is not _JIT_CODE and (
        code.co_code != _JIT_CODE.co_code or code.co_freevars != _JIT_CODE.co_freevars
    ):
        return None
    cells = dict(zip(func.__code__.co_freevars, (c.cell_contents for c in func.__closure__)))
    kwargs = {
        "static_argnums": cells["argnums"],
        "static_argnames": cells["argnames"],
        "max_cached": cells["max_cached"],
    }
    return cells["func"], kwargs


class Plan:
    """What every task of one ``fd.vmap``/``fd.map_reduce`` call shares: the kind of
    block function, a token naming the user's function, ``in_dims``, and the structure of
    ``(args, kwargs)`` as a skeleton whose leaves are leaf indices (picklable, unlike a
    tree spec of user-registered classes)."""

    __slots__ = ("kind", "token", "in_dims", "skeleton", "n_leaves", "axis_name", "outputs")

    def __init__(
        self,
        kind: str,
        token: str,
        in_dims: Any,
        skeleton: Any,
        n_leaves: int,
        axis_name=None,
        outputs=None,
    ):
        self.kind, self.token, self.in_dims = kind, token, in_dims
        self.skeleton, self.n_leaves = skeleton, n_leaves
        self.axis_name = axis_name  # the block's vmap axis, for collectives (fd.vmap)
        # (the call form, the outputs' structure text, each leaf's per-row shape) that
        # every block must give: a block whose rows took another path may not (check_block)
        self.outputs = outputs

    def __reduce__(self):
        args = (
            self.kind, self.token, self.in_dims, self.skeleton, self.n_leaves, self.axis_name,
            self.outputs,
        )  # fmt: skip
        return (Plan, args)

    def tree(self, leaves: list) -> Any:
        return optree.tree_map(lambda i: leaves[i], self.skeleton, namespace=NAMESPACE)


class Literal:
    """A small unbatched value carried in the task itself (never looked up as a key)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __reduce__(self):
        return (Literal, (self.value,))


class Pieces:
    """How to cut one task's rows out of several input blocks: ``slices[k]`` of block ``k``
    along ``axis``; the pieces are joined with the chunk's own ``concatenate``."""

    __slots__ = ("axis", "slices")

    def __init__(self, axis: int, slices: list[tuple[int, int]]) -> None:
        self.axis, self.slices = axis, slices

    def __reduce__(self):
        return (Pieces, (self.axis, self.slices))

    def join(self, blocks: list) -> Any:
        parts = []
        for block, (lo, hi) in zip(blocks, self.slices):
            index = (slice(None),) * self.axis + (slice(lo, hi),)
            full = lo == 0 and hi == block.shape[self.axis]
            parts.append(block if full else block[index])
        if len(parts) == 1:
            return parts[0]
        return namespace_of(*parts).concatenate(parts, axis=self.axis)


def _leaf_value(arg: Any) -> Any:
    if type(arg) is Literal:
        return arg.value
    if type(arg) is list and arg and type(arg[0]) is Pieces:
        return arg[0].join(arg[1:])
    return arg


# -- one block function per (process, function): one jit recording per worker ----------

_CACHE_SIZE = 16
_block_fns: OrderedDict[tuple, Callable] = OrderedDict()
_lock = threading.Lock()


def block_function(plan: Plan, func: Callable) -> Callable:
    """The function a task applies to its block: ``ft.vmap(func, in_dims)`` (summed over
    the batch for ``map_reduce``).  A jit-ed ``func`` is compiled outermost, as
    ``jit(vmap(f))``, and the compiled function is kept per process (keyed by the token of
    the pickled function), so each worker process records once per block signature, not
    once per task."""
    jitted = unwrap_jit(func)
    if jitted is None:
        return _build(plan, func)
    key = (plan.kind, plan.token, repr(plan.in_dims), repr(plan.axis_name))
    with _lock:
        fn = _block_fns.get(key)
        if fn is None:
            inner, jit_kwargs = jitted
            fn = jit(_build(plan, inner), **jit_kwargs)
            _block_fns[key] = fn
            while len(_block_fns) > _CACHE_SIZE:
                _block_fns.popitem(last=False)
        else:
            _block_fns.move_to_end(key)
    return fn


def recordings() -> int:
    """How many jit recordings this process holds for ``fd`` block functions (for tests
    and diagnostics: run it on the workers with ``client.run``)."""
    with _lock:
        return sum(len(getattr(fn, "cache", ())) for fn in _block_fns.values())


def _build(plan: Plan, func: Callable) -> Callable:
    batched = vmap(func, plan.in_dims, axis_name=plan.axis_name)
    if plan.kind == "vmap":
        return batched

    @functools.wraps(func)
    def summed(*args: Any, **kwargs: Any) -> Any:
        leaves, spec = tree_flatten(batched(*args, **kwargs))
        return tree_unflatten(spec, [fnp.sum(v, axis=0) for v in leaves])

    return summed


def _call_block(plan: Plan, func: Callable, rows: Literal, leaf_args: tuple) -> tuple:
    leaves = [_leaf_value(a) for a in leaf_args]
    args, kwargs = plan.tree(leaves)
    out = block_function(plan, func)(*args, **kwargs)
    flat = tree_flatten(out)[0]
    if plan.outputs is not None:
        check_block(plan, out, flat, rows.value)
    return tuple(flat)


def check_block(plan: Plan, out: Any, flat: list, rows: tuple[int, int]) -> None:
    """A block's rows may take another Python path than the example the outputs were
    planned from (NOTE [splitting the batch] in ftransforms/split.py): its outputs must
    still have the planned structure and per-row shapes, as numpy.stack of the per-row
    results would need."""
    where, structure, row_shapes = plan.outputs
    text = structure_str(out)
    if text != structure:
        raise SplitOutputError(
            f"{where}: the rows took different Python paths and returned outputs of "
            f"different structures: the block of rows {rows[0]}..{rows[1] - 1} returned "
            f"{text}, the planned example {structure}.  Return the same structure on every "
            f"path (as numpy.stack of the per-row results would need)."
        )
    for k, (value, want) in enumerate(zip(flat, row_shapes)):
        shape = tuple(fnp.shape(value))
        got = shape[1:] if plan.kind == "vmap" else shape
        if got != want:
            raise SplitOutputError(
                f"{where}: the rows took different Python paths and output {k} has different "
                f"shapes: the block of rows {rows[0]}..{rows[1] - 1} gives per-row shape "
                f"{got}, the planned example {want}.  Return the same shape on every path (as "
                f"numpy.stack of the per-row results would need)."
            )


def vmap_block(plan: Plan, func: Callable, rows: Literal, *leaf_args: Any) -> tuple:
    """One block of ``fd.vmap`` (``rows``: its range in the batch): the flat output leaves
    of ``ft.vmap(func)`` on it."""
    return _call_block(plan, func, rows, leaf_args)


def reduce_block(plan: Plan, func: Callable, rows: Literal, *leaf_args: Any) -> tuple:
    """One block of ``fd.map_reduce``: the output leaves summed over the block's rows."""
    return _call_block(plan, func, rows, leaf_args)


def add_trees(partials: list[tuple]) -> tuple:
    """Leaf-wise sum of several partial results (one step of the tree reduction)."""
    if len(partials) == 1:
        return partials[0]
    out = []
    for leaves in zip(*partials):
        xp = namespace_of(*leaves)
        acc = leaves[0]
        for v in leaves[1:]:
            acc = xp.add(acc, v)
        out.append(acc)
    return tuple(out)


def finish(partials: list[tuple], divide_by: int | None) -> tuple:
    """The last reduction step; divides by the batch size for ``reduce="mean"``."""
    total = add_trees(partials)
    if divide_by is None:
        return total
    return tuple(namespace_of(v).true_divide(v, divide_by) for v in total)


# -- Jacobian and Hessian rows ------------------------------------------------------------


def _with(args: tuple, argnum: int, value: Any) -> tuple:
    return args[:argnum] + (value,) + args[argnum + 1 :]


def _eye_rows(start: int, stop: int, n: int, like: Any, shape: tuple) -> Any:
    """Rows ``start:stop`` of the ``n x n`` identity, shaped ``(stop - start, *shape)``,
    built here in the task (the identity is never shipped)."""
    xp = namespace_of(like)
    return xp.eye(stop - start, n, start, dtype=like.dtype).reshape((stop - start,) + shape)


def jacrev_rows(
    func: Callable, start: int, stop: int, argnum: int, args: tuple, kwargs: dict
) -> Any:
    """Rows ``start:stop`` of the Jacobian of ``func`` (flattened outputs) with respect to
    ``args[argnum]``: one forward pass, then the pullback of those basis rows."""
    x = args[argnum]
    out, vjp_fn = vjp(lambda v: func(*_with(args, argnum, v), **kwargs), x)
    basis = _eye_rows(start, stop, out.size, out, tuple(out.shape))
    (rows,) = vmap(vjp_fn)(basis)
    return rows


def hessian_rows(
    func: Callable, start: int, stop: int, argnum: int, args: tuple, kwargs: dict
) -> Any:
    """Rows ``start:stop`` of the Hessian of a scalar ``func`` with respect to
    ``args[argnum]``, as ``(stop - start, N)``: forward-over-reverse on those basis rows
    (the Hessian is symmetric, so its rows are its columns)."""
    x = args[argnum]
    g = grad(lambda v: func(*_with(args, argnum, v), **kwargs))
    basis = _eye_rows(start, stop, x.size, x, tuple(x.shape))
    rows = vmap(lambda t: jvp(g, (x,), (t,))[1])(basis)
    return rows.reshape((stop - start, x.size))


def task_jacrev(func: Callable, start: int, stop: int, argnum: int, *leaf_args: Any) -> Any:
    """A ``fd.jacrev`` task: arguments arrive as graph keys or literals."""
    args, kwargs = _split_args(leaf_args)
    return jacrev_rows(func, start, stop, argnum, args, kwargs)


def task_hessian(func: Callable, start: int, stop: int, argnum: int, *leaf_args: Any) -> Any:
    """A ``fd.hessian`` task: arguments arrive as graph keys or literals."""
    args, kwargs = _split_args(leaf_args)
    return hessian_rows(func, start, stop, argnum, args, kwargs)


def _split_args(leaf_args: tuple) -> tuple[tuple, dict]:
    plan, *values = leaf_args
    return plan.tree([_leaf_value(v) for v in values])
