"""NumPy's memory layout of the new arrays that elementwise operations make.

NOTE [layout of elementwise results]: NumPy allocates the result of an elementwise
operation (a ufunc, an operator, ``astype``, ``copy('K')``) in the memory order that its
iterator picks from the operands (``order='K'``): ``np.exp(a.T)``, ``a.T * 2``, ``-a.T``
are Fortran-ordered, ``c.transpose(1, 0, 2) + 1`` keeps that axis order, and where the
operands disagree (``a.T + b``) C order wins.  The iterator sorts the axes by stride with a
stable insertion sort, innermost first: two axes swap where an operand with a nonzero
stride on both (not broadcast, not of length 1) says so and none says otherwise
(:func:`iteration_order` does the same with the operands' axis orders of NOTE [memory
layout] in core/mutation.py).  NumPy functions that allocate their result in their
operands' order follow :data:`FUNCTION_LAYOUTS` (``np.where``, ``np.clip``, ``np.cumsum``,
``np.sort``, ``np.diff``; a reduction keeps the order of the axes it keeps; ``np.concatenate``
and ``np.stack`` sort the axes from the outermost, :func:`_sorted_by_strides`), and so do
the methods of those names.  Advanced indexing puts the index arrays' axes outermost and the
axes its slices keep inside, in the source's order (:func:`advanced_index_layout`):
``m[:, [0, 2]]`` of a C-ordered matrix is Fortran-ordered.  Code reads that layout
(``y.ravel('K')``, ``y.reshape(-1, order='A')``, ``y.strides``, ``y.flags``), and a
reshape of a result laid out otherwise copies, so a write through it must not reach
``y``.  Such a traced result is no view: core/mutation.py's ``ROOT_LAYOUTS`` records its
axis order by id (a weak reference with it), which
:func:`~ftransforms.core.mutation.layout`, the strides and contiguity read.
The arguments a transform passes its function are laid out as the caller's were
(:func:`laid_out_arguments`: a Fortran-ordered array, ``a.T``; under ``vmap`` the rows of
such a batch, which fill no one block, the rows of ``in_dims=1`` and ``x[:, ::2]``, whose
strides are recorded); ``jit`` keys the recording of an array argument that is not
C-contiguous by its strides too (its fast path takes C-contiguous arrays only).
Operations on buffers alone are NumPy's own and lay their results out themselves.  Cost:
the tracers that may be laid out otherwise are known by id (``NOT_IN_C_ORDER``, filled
where such views, buffers and results are made, emptied as they die), so an operation on
others reads one set's truth value (and, while some exist, looks its operands up in it);
one on such an array finds its order and records it (a few microseconds:
``python -m benchmarks.result_layout``).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> def f(x):
    ...     return np.exp(x.reshape(2, 3).T).ravel("K")  # Fortran-ordered: memory order
    >>> x = np.arange(6.0)
    >>> bool(np.allclose(ft.vmap(f)(x[None]), f(x)))
    True
"""

from __future__ import annotations

from typing import Any

import numpy

from ftransforms.core.mutation import (
    NOT_IN_C_ORDER,
    ROOT_LAYOUTS,
    Buffer,
    c_contiguous,
    f_contiguous,
    layout,
    read_only,
    set_root_layout,
    strides_of,
)
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.manipulation import transpose

__all__ = [
    "advanced_index_layout",
    "in_memory_order",
    "in_order_of",
    "iteration_order",
    "laid_out_arguments",
    "laid_out_as_numpy_function",
    "laid_out_as_numpy",
    "permutation_rules",
]

_NDARRAY = numpy.ndarray


def laid_out_as_numpy(out: Any, operands: Any) -> Any:
    """``out``, the new traced result of an elementwise operation on ``operands``, laid out
    in memory as NumPy lays out that result (NOTE [layout of elementwise results])."""
    laid_out = False
    arrays = 0
    single = None
    for a in operands:
        if a is out:
            return out  # an operand itself: no new array
        if type(a) is _NDARRAY:
            arrays += 1
            single = a
            if a.ndim > 1 and not a.flags.c_contiguous:
                laid_out = True
        elif isinstance(a, Tracer):
            arrays += 1
            single = a
            if NOT_IN_C_ORDER and id(a) in NOT_IN_C_ORDER:
                laid_out = True
    if not laid_out or not isinstance(out, Tracer) or type(out) is Buffer:
        return out
    shape = tuple(out.shape)
    n = len(shape)
    if n < 2:
        return out
    if arrays == 1 and isinstance(single, Tracer):  # ``a.T * 2``: its own order
        entry = ROOT_LAYOUTS.get(id(single))  # (no view's lookup of ``_base`` needed)
        order = entry[1] if entry is not None and entry[0]() is single else layout(single)[0]
        if order is None or list(order) == sorted(order):
            return out
    else:
        order = iteration_order(shape, operands)
        if order is None:
            return out
    return in_memory_order(out, order)


def _sort_keys(a: Any, shape: tuple) -> list | None:
    """Per axis of the result, a key that orders ``a``'s strides (bigger: outer), 0 where
    ``a`` broadcasts or has length 1; None for an operand with no axes."""
    n = len(shape)
    if isinstance(a, Tracer):
        own = tuple(a.shape)
        order = layout(a)[0] if len(own) > 1 else None
        if order is None:
            order = range(len(own))
        rank = {ax: len(own) - pos for pos, ax in enumerate(order)}
        keys = [rank[ax] if d != 1 else 0 for ax, d in enumerate(own)]
    elif type(a) is _NDARRAY:
        keys = [abs(s) if d != 1 else 0 for s, d in zip(a.strides, a.shape)]
    else:
        return None
    if not keys:
        return None
    return [0] * (n - len(keys)) + keys


def iteration_order(shape: tuple, operands: Any) -> tuple | None:
    """The order in memory (outermost axis first) of the array NumPy allocates for an
    elementwise operation on ``operands`` with result ``shape``; None for C order."""
    n = len(shape)
    keys = [k for k in (_sort_keys(a, shape) for a in operands) if k is not None]
    perm = list(range(n))  # iterator positions, innermost first; axis j is numpy's n-1-j
    for i0 in range(1, n):
        j0 = perm[i0]
        ipos = i0
        for i1 in range(i0 - 1, -1, -1):
            j1 = perm[i1]
            ambiguous, swap = True, False
            for k in keys:
                s0, s1 = k[n - 1 - j0], k[n - 1 - j1]
                if s0 and s1:
                    if s1 <= s0:
                        swap = False  # where operands disagree, C order wins
                    elif ambiguous:
                        swap = True
                    ambiguous = False
            if not ambiguous:
                if not swap:
                    break
                ipos = i1
        if ipos != i0:
            perm[ipos + 1 : i0 + 1] = perm[ipos:i0]
            perm[ipos] = j0
    order = tuple(n - 1 - j for j in reversed(perm))
    return None if order == tuple(range(n)) else order


def in_memory_order(value: Any, order: tuple, dense: bool = True) -> Any:
    """``value``, a new traced array no one else holds, recorded as laid out in memory with
    its axes in ``order`` (outermost first; NOTE [layout of elementwise results]).
    ``dense=False``: its elements do not fill one block (a row of a Fortran-ordered batch):
    it is contiguous in no order and its strides are not known."""
    set_root_layout(value, order, dense)
    return value


def _index_axes(index: Any, rank: int) -> Any:
    """For ``x[index]`` with index arrays in ``index``: the axis of ``x`` each slice keeps
    (None for a new axis), in the result's order, and where the index arrays' axes go among
    them (their count: ``before``); None without index arrays or with a Python bool."""
    parts = index if type(index) is tuple else (index,)
    kept: list = []  # the source axis of each slice, None for a new axis
    before = -1  # how many of ``kept`` precede the first index array or integer
    last = -1  # the position in ``parts`` of the last index array or integer
    together = True
    arrays = False
    axis = 0
    for k, p in enumerate(parts):
        if p is None:
            kept.append(None)
            continue
        if type(p) is slice:
            kept.append(axis)
            axis += 1
            continue
        if p is Ellipsis:
            rest = rank - axis - sum(_axes_taken(q) for q in parts[k + 1 :])
            kept.extend(range(axis, axis + rest))
            axis += rest
            continue
        if type(p) is bool:
            return None  # x[True]: rare, left in C order
        takes = _axes_taken(p)
        arrays = arrays or not isinstance(p, (int, numpy.integer))
        if before < 0:
            before = len(kept)
        elif last != k - 1:
            together = False
        last = k
        axis += takes
    if not arrays:
        return None
    kept.extend(range(axis, rank))
    return kept, before if together else 0


def _axes_taken(p: Any) -> int:
    """How many axes of ``x`` the index part ``p`` (no slice, None or Ellipsis) takes."""
    if p is None or p is Ellipsis:
        return 0
    if type(p) is slice or isinstance(p, (int, numpy.integer)):
        return 1
    dtype = getattr(p, "dtype", None)
    if dtype is None:
        p = numpy.asarray(p)  # a list
        dtype = p.dtype
    return len(numpy.shape(p)) if getattr(dtype, "kind", None) == "b" else 1


def advanced_index_layout(out: Any, x: Any, index: Any) -> Any:
    """``out = x[index]`` for an advanced ``index``, laid out as NumPy allocates it: the
    axes of the broadcast index arrays outermost (in C order among themselves), then the
    axes the slices keep in ``x``'s memory order (NOTE [layout of elementwise results]).
    ``a[:, [0, 2]]`` of a C-ordered ``a`` of shape ``(2, 3, 4)`` is not C-contiguous, so
    its reshape copies; ``m[:, [0, 1]]`` of a Fortran-ordered ``m`` is Fortran-ordered."""
    c_order = not NOT_IN_C_ORDER or id(x) not in NOT_IN_C_ORDER
    if c_order:  # so is the result, unless a slice or new axis precedes the index arrays
        first = index[0] if type(index) is tuple and index else index
        if not (first is None or first is Ellipsis or type(first) is slice):
            return out
    n = len(out.shape)
    if n < 2 or type(out) is Buffer or not isinstance(out, Tracer) or out is x:
        return out
    found = _index_axes(index, len(x.shape))
    if found is None:
        return out
    kept, before = found
    index_dims = n - len(kept)
    new_axes = [k if k < before else k + index_dims for k, a in enumerate(kept) if a is None]
    slices = [(a, k if k < before else k + index_dims) for k, a in enumerate(kept) if a is not None]
    if not c_order:  # the slices' axes in x's memory order
        rank_of = {a: r for r, a in enumerate(layout(x)[0])}
        slices.sort(key=lambda s: rank_of[s[0]])
    order = (*range(before, before + index_dims), *new_axes, *(r for _, r in slices))
    if order != tuple(range(n)):
        set_root_layout(out, order)
    return out


def in_order_of(out: Any, x: Any, order: str) -> Any:
    """``out``, a new traced array of ``x``'s shape made from ``x`` (a copy, a cast), laid
    out as NumPy lays out ``x.copy(order)`` / ``x.astype(dtype, order)``: ``'C'``,
    ``'F'``, ``'A'`` (Fortran where ``x`` is Fortran- and not C-contiguous) or ``'K'``
    (``x``'s own order; NOTE [layout of elementwise results])."""
    n = len(out.shape)
    if n < 2 or order == "C":
        return out
    if order == "K":
        return laid_out_as_numpy(out, (x,))
    if order == "F" or (order == "A" and not c_contiguous(x) and f_contiguous(x)):
        return in_memory_order(out, tuple(range(n))[::-1])
    return out


def permutation_rules(perm: tuple[int, ...]) -> tuple[Any, Any]:
    """The ``forward``/``inverse`` of the view ``transpose(x, perm)``; ``forward`` carries
    the layout rule of NOTE [memory layout] (core/mutation.py)."""
    inv = tuple(int(i) for i in numpy.argsort(perm))

    def forward(p: Any) -> Any:
        return transpose(p, perm)

    def inverse(p: Any, v: Any) -> Any:
        return transpose(v, inv)

    def axes_layout(parent: tuple) -> tuple:
        order, dense = parent
        return tuple(inv[j] for j in order), dense

    forward.layout = axes_layout  # type: ignore[attr-defined]
    return forward, inverse


def laid_out_arguments(originals: Any, wrapped: list, dims: Any = None) -> list:
    """``wrapped``, what a transform passes its function for the caller's argument leaves
    ``originals`` (``dims``: ``vmap``'s in_dim of each), with each tracer whose leaf the
    caller laid out other than in C order (``np.asfortranarray(m)``, ``m.T``; under ``vmap``
    the rows of such a batch) or not contiguous (``x[:, ::2]``, the rows of ``in_dims=1``)
    recorded so, as NumPy code sees that leaf's layout (NOTE [layout of elementwise
    results]).  The tracer of a read-only leaf (``x.flags.writeable = False``,
    ``np.broadcast_to``, ``np.frombuffer`` of bytes; under ``vmap`` the rows of such a
    batch) is read-only too, so a write into it raises NumPy's ValueError."""
    frozen = None
    for k, o in enumerate(originals):
        d = None if dims is None else dims[k]
        base = getattr(o, "_base", None)  # an enclosing transform's read-only tracer
        if base is not None and base[2] is read_only:
            frozen = [*(frozen or ()), k]
        if type(o) is _NDARRAY:
            if not o.flags.writeable:
                frozen = [*(frozen or ()), k]
            if o.ndim < (2 if d is None else 3):
                continue
            if o.flags.c_contiguous and (d is None or d % o.ndim == 0):
                continue  # (the rows of a C-ordered batch on its first axis are too)
            if d is not None:
                d %= o.ndim
                if not o.shape[d]:
                    continue
                o = o[(slice(None),) * d + (0,)]  # the first row: every row's strides
            order = iteration_order(o.shape, (o,))
            dense = o.transpose(order).flags.c_contiguous if order else o.flags.c_contiguous
            strides = None if dense else o.strides
        elif (
            d is None
            and isinstance(o, Tracer)
            and (id(o) in NOT_IN_C_ORDER or id(o) in ROOT_LAYOUTS)
            and len(o.shape) > 1
        ):
            order = iteration_order(tuple(o.shape), (o,))
            dense = layout(o)[1]
            strides = None if dense else strides_of(o)
        else:
            continue
        if order is None:
            if dense:
                continue
            order = tuple(range(len(o.shape)))  # C order, its elements apart (x[:, ::2])
        w = wrapped[k]
        if (
            not isinstance(w, Tracer)
            or type(w) is Buffer
            or getattr(w, "_base", None) is not None  # linked to an alias already
        ):
            continue
        set_root_layout(w, order, dense, strides)
    if frozen is not None:
        for k in frozen:
            if isinstance(wrapped[k], Tracer) and wrapped[k].flags.writeable:
                wrapped[k].flags.writeable = False  # (a view of the array it was)
    return wrapped


def _elementwise(out: Any, args: tuple, kwargs: dict) -> Any:
    arrays = [a for a in (*args, *kwargs.values()) if isinstance(a, (Tracer, _NDARRAY))]
    return laid_out_as_numpy(out, arrays)


def _along_axes(out: Any, args: tuple, kwargs: dict) -> Any:
    x = args[0]
    if len(out.shape) != len(getattr(x, "shape", ())):
        return out  # flattened (axis=None)
    return laid_out_as_numpy(out, (x,))


def _reduction(out: Any, args: tuple, kwargs: dict) -> Any:
    x = args[0]
    if kwargs.get("keepdims", False):
        return _along_axes(out, args, kwargs)
    n, m = len(getattr(x, "shape", ())), len(out.shape)
    if m < 2 or m >= n or not isinstance(x, Tracer) or id(x) not in NOT_IN_C_ORDER:
        return out
    order = iteration_order(tuple(x.shape), (x,))
    axis = args[1] if len(args) > 1 else kwargs.get("axis")
    if order is None or axis is None:
        return out
    dropped = {int(a) % n for a in numpy.atleast_1d(axis)}
    kept = [a - sum(d < a for d in dropped) for a in order if a not in dropped]
    if len(kept) != m or kept == sorted(kept):
        return out
    return in_memory_order(out, tuple(kept))


def _sorted_by_strides(n: int, keys: list) -> tuple | None:
    """NumPy's order of the axes of a new array that several arrays of ``n`` axes are
    copied into (``concatenate``): a stable insertion sort from the outermost axis, by the
    arrays' stride keys (:func:`_sort_keys`; an axis of length 1 says nothing, and where
    the arrays disagree C order wins); None for C order."""
    perm = list(range(n))
    for i0 in range(1, n):
        j0 = perm[i0]
        ipos = i0
        for i1 in range(i0 - 1, -1, -1):
            j1 = perm[i1]
            ambiguous, swap = True, False
            for k in keys:
                if k[j0] and k[j1]:
                    if k[j0] <= k[j1]:
                        swap = False
                    elif ambiguous:
                        swap = True
                    ambiguous = False
            if not ambiguous:
                if not swap:
                    break
                ipos = i1
        if ipos != i0:
            perm[ipos + 1 : i0 + 1] = perm[ipos:i0]
            perm[ipos] = j0
    return None if perm == sorted(perm) else tuple(perm)


def _joined(out: Any, args: tuple, kwargs: dict, stacked: bool) -> Any:
    arrays = list(args[0]) if isinstance(args[0], (list, tuple)) else None
    n = len(out.shape)
    if not arrays or n < 2:
        return out
    if not any(
        isinstance(a, Tracer)
        and id(a) in NOT_IN_C_ORDER
        or type(a) is _NDARRAY
        and not a.flags.c_contiguous
        for a in arrays
    ):
        return out
    keys = [_sort_keys(a, tuple(a.shape)) for a in arrays if isinstance(a, (Tracer, _NDARRAY))]
    keys = [[0] * (n - stacked - len(k)) + k for k in keys if k is not None]
    if stacked:  # each array with a new axis of length 1 (numpy.expand_dims)
        axis = args[1] if len(args) > 1 else kwargs.get("axis", 0)
        axis = int(axis) % n
        keys = [[*k[:axis], 0, *k[axis:]] for k in keys]
    if any(len(k) != n for k in keys):
        return out
    order = _sorted_by_strides(n, keys)
    return out if order is None else in_memory_order(out, order)


def _concatenated(out: Any, args: tuple, kwargs: dict) -> Any:
    return _joined(out, args, kwargs, False)


def _stacked(out: Any, args: tuple, kwargs: dict) -> Any:
    return _joined(out, args, kwargs, True)


def _padded(out: Any, args: tuple, kwargs: dict) -> Any:
    return in_order_of(out, args[0], "A")  # numpy.pad: Fortran order for a Fortran array


#: NOTE [layout of elementwise results]: how a NumPy function lays out its result from
#: its operands' layout, by the function (``_elementwise``: as a ufunc; ``_along_axes``: as
#: its first operand; ``_reduction``: the first operand's order of the axes it keeps).
FUNCTION_LAYOUTS: dict = {
    **dict.fromkeys(("where", "clip", "nan_to_num", "round", "around"), _elementwise),
    **dict.fromkeys(("cumsum", "cumprod", "nancumsum", "nancumprod", "sort", "diff"), _along_axes),
    **dict.fromkeys(
        "sum mean prod max min amax amin std var any all nansum nanmean nanprod nanmax nanmin "
        "nanstd nanvar ptp".split(),
        _reduction,
    ),
    **dict.fromkeys(("concatenate", "vstack", "hstack", "row_stack"), _concatenated),
    "stack": _stacked,
    "pad": _padded,
}


def laid_out_as_numpy_function(name: str, out: Any, args: tuple, kwargs: dict) -> Any:
    """``out``, the new traced result of ``numpy.<name>(*args, **kwargs)`` (or of the method
    of that name), laid out as NumPy lays it out (NOTE [layout of elementwise results])."""
    rule = FUNCTION_LAYOUTS.get(name)
    if (
        rule is None
        or not args
        or not isinstance(out, Tracer)
        or type(out) is Buffer
        or getattr(out, "_base", None) is not None
        or any(out is a for a in (*args, *kwargs.values()))
    ):
        return out
    return rule(out, args, kwargs)
