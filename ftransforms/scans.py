"""Scans built from the other transforms: :func:`associative_scan` (a parallel prefix scan
of O(log n) depth) and :func:`map` (``jax.lax.map``: a function over the leading axis,
sequentially or in vectorized chunks).

Both are written with ``ftransforms.numpy``, ``scan`` and ``vmap``, so ``grad``, ``vmap``
and ``jit`` go through them with the rules those already have.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> ft.associative_scan(np.add, np.arange(1.0, 5.0)).tolist()
    [1.0, 3.0, 6.0, 10.0]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ftransforms.numpy as fnp
from ftransforms.api import vmap
from ftransforms.control import scan
from ftransforms.core.errors import ControlFlowError, ScanLengthError
from ftransforms.core.mutation import clone
from ftransforms.core.tracer import Tracer
from ftransforms.pytree import tree_flatten, tree_map, tree_unflatten

__all__ = ["associative_scan", "map"]


def _slice(x: Any, axis: int, start: int | None, stop: int | None, step: int | None = None):
    return x[(slice(None),) * axis + (slice(start, stop, step),)]


def _interleave(even: Any, odd: Any, axis: int) -> Any:
    """``[e0, o0, e1, o1, ...]`` along ``axis``; ``even`` has as many entries as ``odd``
    or one more."""
    n_odd = odd.shape[axis]
    pairs = fnp.stack([_slice(even, axis, 0, n_odd), odd], axis=axis + 1)
    shape = even.shape[:axis] + (2 * n_odd,) + even.shape[axis + 1 :]
    merged = fnp.reshape(pairs, shape)
    if even.shape[axis] > n_odd:
        merged = fnp.concatenate([merged, _slice(even, axis, n_odd, None)], axis=axis)
    return merged


def associative_scan(fn: Callable, elems: Any, reverse: bool = False, axis: int = 0) -> Any:
    """The inclusive scan of ``elems`` along ``axis`` with the associative operator ``fn``
    (``jax.lax.associative_scan``): entry ``k`` is ``fn`` folded over entries ``0..k``.

    ``fn(a, b)`` takes two pytrees shaped like ``elems`` (their ``axis`` of any length)
    and combines them entry by entry along ``axis``, vectorized (``np.add``,
    ``np.maximum``, a function written with array operations).  The scan calls it
    O(log n) times on halving slices (the odd/even recursion of a parallel prefix scan),
    so its depth is logarithmic in the length; every step is an ordinary traced
    operation, so ``grad``, ``vmap`` and ``jit`` go through it.  ``reverse=True`` scans
    from the end, with ``fn``'s arguments in reversed order as JAX does.

    Example:
        >>> import numpy as np
        >>> associative_scan(np.multiply, np.array([1.0, 2.0, 3.0, 4.0])).tolist()
        [1.0, 2.0, 6.0, 24.0]
        >>> associative_scan(np.add, np.arange(4.0), reverse=True).tolist()
        [6.0, 6.0, 5.0, 3.0]
    """
    op = "associative_scan(fn, elems, reverse=False, axis=0)"
    if not callable(fn):
        raise ControlFlowError(f"{op}: fn must be callable, got {type(fn).__name__}")
    leaves, spec = tree_flatten(elems)
    if not leaves:
        raise ScanLengthError(f"{op}: elems has no arrays; pass an array or a pytree of arrays")
    leaves = [fnp.asarray(leaf) for leaf in leaves]
    ndim = leaves[0].ndim
    if not -ndim <= axis < ndim or ndim == 0:
        raise ScanLengthError(
            f"{op}: axis {axis} is out of range for elems of rank {ndim}; scan along an "
            f"existing axis"
        )
    axis = axis % ndim
    n = leaves[0].shape[axis]
    if any(leaf.ndim <= axis or leaf.shape[axis] != n for leaf in leaves):
        raise ScanLengthError(
            f"{op}: every array of elems must have the same length along axis {axis}, got "
            f"shapes {[tuple(leaf.shape) for leaf in leaves]}"
        )
    if reverse:
        leaves = [fnp.flip(leaf, axis=axis) for leaf in leaves]

    def combine(a: list, b: list) -> list:
        # fn gets arrays of its own: a NumPy-style fn that writes into an argument
        # (``a += b; return a``) must not write into the slices the scan still reads
        a, b = [_own(x) for x in a], [_own(x) for x in b]
        out, out_spec = tree_flatten(fn(tree_unflatten(spec, a), tree_unflatten(spec, b)))
        if out_spec != spec:
            raise ControlFlowError(
                f"{op}: fn must return a pytree of elems' structure {spec}, got {out_spec}"
            )
        return out

    def _scan(xs: list) -> list:
        m = xs[0].shape[axis]
        if m < 2:
            return xs
        pairs = combine(
            [_slice(x, axis, 0, -1, 2) for x in xs], [_slice(x, axis, 1, None, 2) for x in xs]
        )
        odd = _scan(pairs)
        if m % 2 == 0:
            even = combine(
                [_slice(o, axis, 0, -1) for o in odd], [_slice(x, axis, 2, None, 2) for x in xs]
            )
        else:
            even = combine(odd, [_slice(x, axis, 2, None, 2) for x in xs])
        even = [fnp.concatenate([_slice(x, axis, 0, 1), e], axis=axis) for x, e in zip(xs, even)]
        return [_interleave(e, o, axis) for e, o in zip(even, odd)]

    out = _scan(leaves)
    if reverse:
        out = [fnp.flip(o, axis=axis) for o in out]
    return tree_unflatten(spec, out)


def map(f: Callable, xs: Any, batch_size: int | None = None) -> Any:  # noqa: A001
    """``f`` applied to each entry of ``xs`` along its leading axis, the results stacked
    (``jax.lax.map``): a :func:`~ftransforms.scan` with no carry, so one entry's
    intermediates live at a time.

    With ``batch_size``, the entries run in chunks of that many under ``vmap(f)`` (a scan
    over the chunks), and the remainder that does not fill a chunk in one more
    ``vmap(f)``, as JAX does.  ``xs`` may be a pytree; ``f`` gets an entry of it.

    Example:
        >>> import numpy as np
        >>> map(lambda x: x @ x, np.arange(6.0).reshape(3, 2)).tolist()
        [1.0, 13.0, 41.0]
        >>> map(lambda x: 2 * x, np.arange(5.0), batch_size=2).tolist()
        [0.0, 2.0, 4.0, 6.0, 8.0]
    """
    op = "map(f, xs, batch_size=None)"
    if not callable(f):
        raise ControlFlowError(f"{op}: f must be callable, got {type(f).__name__}")
    if batch_size is None:
        return scan(lambda _, x: ((), f(x)), (), xs)[1]
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ScanLengthError(
            f"{op}: batch_size must be a positive int or None, got {batch_size!r}"
        )
    leaves, spec = tree_flatten(xs)
    if not leaves:
        raise ScanLengthError(f"{op}: xs has no arrays; pass an array or a pytree of arrays")
    n = fnp.shape(leaves[0])[0]
    full = n - n % batch_size
    vf = vmap(f)
    ys = None
    if full:
        chunks = tree_map(
            lambda x: fnp.reshape(
                x[:full], (full // batch_size, batch_size) + tuple(fnp.shape(x)[1:])
            ),
            xs,
        )
        ys = scan(lambda _, x: ((), vf(x)), (), chunks)[1]
        ys = tree_map(lambda y: fnp.reshape(y, (-1,) + tuple(fnp.shape(y)[2:])), ys)
    if full < n:
        rest = vf(tree_map(lambda x: x[full:], xs))
        if ys is None:
            return rest
        ys = tree_map(lambda a, b: fnp.concatenate([a, b], axis=0), ys, rest)
    return ys


def _own(x: Any) -> Any:
    """A new object with ``x``'s value: a tracer's clone (no copy), a backend array's copy."""
    if isinstance(x, Tracer):
        return clone(x)
    copy = getattr(x, "copy", None)
    return copy() if callable(copy) else x
