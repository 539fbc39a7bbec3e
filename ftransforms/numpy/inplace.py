"""Writes into traced arrays with NumPy's semantics: ``x[i] = v``, ``x += v``, views,
``out=``, ``np.copyto``, ``.fill``, ``.put``, ``.sort()``.

Each write computes the new value out of place with the ordinary functions (so every
transform differentiates, batches and records it) and hands it to
:func:`ftransforms.core.mutation.assign`; see NOTE [mutation semantics] there.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> def f(x):
    ...     h = x * 1.0
    ...     g = h          # an alias
    ...     h += 1.0       # g sees it, as in NumPy
    ...     h[0] = 0.0
    ...     return np.sum(g * x)
    >>> ft.grad(f)(np.array([1.0, 2.0]))
    array([0., 5.])
"""

from __future__ import annotations

import builtins
import math
import operator
import sys
import weakref
from typing import Any

import numpy

from ftransforms.core.errors import (
    BatchedControlFlowError,
    InPlaceError,
    OutputCastingError,
    UnsupportedOperationError,
)
from ftransforms.core.mutation import (
    FLAT_WRITE,
    FORTRAN_VIEW,
    NOT_IN_C_ORDER,
    ROOT_LAYOUTS,
    Buffer,
    assign,
    become,
    c_contiguous,
    callee_name,
    check_write,
    clone,
    element_offsets,
    f_contiguous,
    forget_root_layout,
    layout,
    mutable,
    overlap_positions,
    read_only,
    reshapes_in_place,
    set_root_layout,
    strides_of,
    through_overlap,
)
from ftransforms.core.mutation import make_view as _make_view
from ftransforms.core.private_arrays import structured  # (also installs PRIVATE_STORE)
from ftransforms.core.tracer import SHAPE_SETTER, Tracer
from ftransforms.numpy.helpers import (
    IN_PLACE_WRITERS,
    MEMORY_OVERLAP,
    array_like,
    dtype_of,
    holds_tracer,
    ndim,
    shape,
    xp_of,
)
from ftransforms.numpy.indexing import diagonal, getitem, scatter, take, traced_sequences, where
from ftransforms.numpy.indexing import where as _where
from ftransforms.numpy.manipulation import (
    broadcast_to,
    concatenate,
    moveaxis,
    ravel,
    reshape,
    squeeze,
    swapaxes,
    transpose,
)
from ftransforms.numpy.matrices import diag
from ftransforms.numpy.rearranging import rot90, trim_index
from ftransforms.numpy.result_layout import advanced_index_layout, in_order_of
from ftransforms.numpy.result_layout import permutation_rules as _permutation
from ftransforms.numpy.sorting import sort
from ftransforms.numpy.ufuncs import astype, imag, real

__all__ = []

_BASIC = (int, numpy.integer, slice, type(None), type(Ellipsis))


def _is_basic(index: Any) -> bool:
    """Whether ``index`` is basic indexing (ints, slices, None, Ellipsis): a view."""
    if isinstance(index, tuple):
        return all(isinstance(i, _BASIC) and not isinstance(i, bool) for i in index)
    return isinstance(index, _BASIC) and not isinstance(index, bool)


def _concrete_index(index: Any) -> Any:
    """``index`` with buffers and concrete-valued traced arrays read, or None when part of
    it is batched by ``vmap`` (its values differ per example)."""
    parts = index if isinstance(index, tuple) else (index,)
    out = []
    for p in parts:
        if isinstance(p, Tracer):
            try:
                p = numpy.asarray(p._concrete())
            except BatchedControlFlowError:
                return None
        elif isinstance(p, list):
            p = numpy.asarray(p)
            if p.size == 0 and p.dtype.kind not in "biu":
                p = p.astype(numpy.intp)  # x[[]]: an empty index, as in NumPy
        out.append(p)
    return tuple(out) if isinstance(index, tuple) else out[0]


def traced_sequence(v: Any) -> Any:
    """``v``, or where it is a list, a tuple or an object array holding traced values
    (``a[:2] = [t, 0.0]``, ``np.put(a, i, [u, v])``), the traced array NumPy would make of
    it (NOTE [array-likes holding tracers])."""
    if (type(v) in (list, tuple) or (type(v) is numpy.ndarray and v.dtype.kind == "O")) and (
        holds_tracer(v)
    ):
        return array_like(v)
    return v


def _cast(v: Any, dtype: Any) -> Any:
    """``v`` as NumPy converts a value written into an array of ``dtype`` (unsafe cast)."""
    v = traced_sequence(v)
    if isinstance(v, Tracer):
        return v if v.dtype == dtype else astype(v, dtype)
    if type(v) in (bool, int, float, complex, list, tuple):
        # NumPy converts Python values straight into dtype: 300 into uint8 raises its
        # OverflowError (a NumPy int64 300 wraps, below), 1j into floats its TypeError
        return numpy.asarray(v, dtype=dtype)
    v = numpy.asarray(v)
    if v.dtype != dtype:
        if v.dtype.kind == "c" and numpy.dtype(dtype).kind != "c":
            v = v.real
        v = v.astype(dtype)
    return v


def updated(x: Any, index: Any, v: Any) -> Any:
    """``x`` with ``x[index] = v`` applied (NumPy's rules: ``v`` broadcast and cast to
    ``x``'s dtype; for repeated indices the last write wins), as a new value."""
    v = _cast(v, dtype_of(x))
    vshape = shape(v)
    xshape = shape(x)
    if vshape and vshape[0] == 1 and not _one_element(index, len(xshape)):
        # NumPy drops a value's leading axes of length 1 (m[:, 0] = row[None, :]); into
        # one element it takes only a 0-d value (its ValueError comes from the broadcast)
        k = next((i for i, n in enumerate(vshape) if n != 1), len(vshape))
        v = reshape(v, vshape[k:])
    masked = _traced_mask_write(x, index, v)
    if masked is not None:
        return masked
    if not isinstance(v, Tracer) and type(x) is Buffer:
        new = x.val.copy()
        new[_concrete_index(index) if not _is_basic(index) else index] = v
        return new
    if _is_basic(index):
        mask = numpy.zeros(xshape, dtype=bool)
        mask[index] = True
        return where(mask, scatter(x, index, v), x)
    concrete = _concrete_index(index)
    if concrete is None:
        return _batched_index_update(x, index, v)
    positions = numpy.arange(int(numpy.prod(xshape)), dtype=numpy.intp).reshape(xshape)[concrete]
    flat = positions.ravel()
    if flat.size and numpy.unique(flat).size < flat.size:
        # NumPy's last write wins: keep each position's last occurrence
        _, last_rev = numpy.unique(flat[::-1], return_index=True)
        keep = numpy.sort(flat.size - 1 - last_rev)
        values = take(ravel(broadcast_to(v, positions.shape)), keep)
        flat = flat[keep]
        mask = numpy.zeros(int(numpy.prod(xshape)), dtype=bool)
        mask[flat] = True
        xf = ravel(x)
        return reshape(where(mask, scatter(xf, flat, values), xf), xshape)
    mask = numpy.zeros(xshape, dtype=bool)
    mask[concrete] = True
    return where(mask, scatter(x, concrete, v), x)


def flat_written(root: Any, positions: Any, values: Any) -> Any:
    """``root`` with its elements at the flat ``positions`` (C order) set to ``values`` (of
    the positions' shape), the last of repeated positions winning (NOTE [writes through
    overlapping views] in core/mutation.py)."""
    values = reshape(values, (-1,)) if shape(values) else values
    return reshape(updated(ravel(root), positions, values), shape(root))


FLAT_WRITE.append(flat_written)


def _one_element(index: Any, rank: int) -> bool:
    """Whether ``index`` picks one element of an array of ``rank`` axes (an integer each)."""
    parts = index if isinstance(index, tuple) else (index,)
    return len(parts) == rank and all(
        (isinstance(p, (int, numpy.integer)) and not isinstance(p, bool))
        or (isinstance(p, Tracer) and not shape(p) and dtype_of(p).kind in "iu")
        for p in parts
    )


def _traced_mask_write(x: Any, index: Any, v: Any) -> Any:
    """``x[mask] = v`` as ``where(mask, v, x)`` when that is NumPy's result without reading
    the mask: a traced boolean mask over ``x``'s leading axes and one value (or one value per
    trailing position, ``x[rows] = row``).  Then ``vmap`` does not split the batch on the
    rows' masks and ``jit`` records no data-dependent trace; None otherwise."""
    mask = index[0] if isinstance(index, tuple) and len(index) == 1 else index
    if not isinstance(mask, Tracer) or mask.dtype.kind != "b":
        return None
    mshape, xshape = shape(mask), shape(x)
    if mshape != xshape[: len(mshape)]:
        return None  # NumPy's IndexError comes from the general path
    rest, vshape = xshape[len(mshape) :], shape(v)
    if not isinstance(v, Tracer):
        v = xp_of(x).asarray(v)  # a host value written into a device array: moved there
    if math.prod(vshape) == 1:
        v = reshape(v, ())
    elif len(vshape) > len(rest) or any(a not in (1, b) for a, b in zip(vshape[::-1], rest[::-1])):
        return None  # one value per selected element: how many depends on the mask
    return where(reshape(mask, mshape + (1,) * len(rest)), v, x)


def _batched_index_update(x: Any, index: Any, v: Any) -> Any:
    """``x[index] = v`` where the index differs per example (batched by ``vmap``)."""
    parts = index if isinstance(index, tuple) else (index,)
    if len(parts) == 1 and isinstance(parts[0], Tracer) and parts[0].dtype.kind == "b":
        # (a single value was written by _traced_mask_write)
        raise InPlaceError(
            "x[mask] = values with a boolean mask that differs per example (batched by "
            "vmap) and an array of values: the number of selected elements would differ "
            "per example.  Write x = fnp.where(mask, values_shaped_like_x, x), or assign a "
            "single value (x[mask] = 0.0)."
        )
    try:
        return x.at[index].set(v) if isinstance(x, Tracer) else None
    except UnsupportedOperationError:
        raise InPlaceError(
            "x[index] = v with integer indices that differ per example (batched by vmap) "
            "and repeat within an example: NumPy's last-write-wins order cannot be "
            "batched.  Deduplicate the indices, or write the rows with ft.cond/a loop."
        ) from None


def setitem(x: Tracer, index: Any, v: Any) -> None:
    """``x[index] = v``."""
    if _SWAPPING[0] is x and _shuffling():
        _swapped()
    index = traced_sequences(index)
    if type(index) is Buffer:
        index = index.val
    elif isinstance(index, tuple) and any(type(i) is Buffer for i in index):
        index = tuple(i.val if type(i) is Buffer else i for i in index)
    if type(v) is Buffer:
        v = v.val
    base = getattr(x, "_base", None)
    if base is not None and through_overlap(base) and _overlap_written(x, index, v):
        return
    assign(x, updated(x, index, v))


def _overlap_written(x: Tracer, index: Any, v: Any) -> bool:
    """``x[index] = v`` into a view whose elements share places in memory (or a view of
    one): the written elements' places in the root set, the last repeated one winning
    (NOTE [writes through overlapping views] in core/mutation.py); False where those
    places are not known (an index batched by ``vmap``)."""
    found = overlap_positions(x)
    concrete = index if _is_basic(index) else _concrete_index(index)
    if found is None or concrete is None:
        return False
    root, positions = found
    check_write(x)
    picked = positions[concrete]
    v = broadcast_to(_cast(v, dtype_of(x)), numpy.shape(picked))
    assign(root, flat_written(root, numpy.ravel(picked), v))
    return True


# -- augmented assignment --------------------------------------------------------------


def inplace(x: Tracer, op: Any, other: Any, name: str) -> Tracer:
    """``x <op>= other``: computed out of place, cast back to ``x``'s dtype as NumPy's
    in-place ufuncs do (``same_kind`` casting), then written into ``x``."""
    if type(other) is Buffer:
        other = other.val
    _check_output_writeable(x)
    new = op(x, other)
    if type(x) is not Buffer and shape(x) == () and getattr(x, "_base", None) is None:
        # NOTE [0-d values are NumPy scalars]: NumPy gives a scalar, not a 0-d array,
        # for x[i], x.sum(), np.sin(s), s + 1 and a row of a 1-d batch, and ``s += v`` on
        # a scalar binds s to a new value: what was stored before (``hist.append(s)``,
        # another name, an object array's element) keeps its value.  So a 0-d tracer
        # that is no view (x[...] is one) gets the scalar's rebinding; a 0-d buffer
        # (np.zeros(()), np.array(1.0) made inside) is an array and is written into.
        return new
    dt = dtype_of(x)
    if isinstance(new, Tracer) or isinstance(new, numpy.ndarray | numpy.generic):
        new_dt = dtype_of(new)
        if new_dt != dt:
            if not numpy.can_cast(new_dt, dt, "same_kind"):
                raise OutputCastingError(
                    f"x {name}= y: NumPy refuses to cast the result from {new_dt} to x's "
                    f"dtype {dt} with casting rule 'same_kind' (numpy raises UFuncTypeError "
                    f"here too).  Write x = x {name} y (a new array), or cast y first."
                )
            new = astype(new, dt)
    if shape(new) != shape(x):
        raise _OutputShapeError(
            f"x {name}= y: the result has shape {shape(new)} but x has shape {shape(x)} "
            f"(NumPy: non-broadcastable output operand).  Write x = x {name} y."
        )
    assign_whole(x, new)
    return x


def assign_whole(x: Tracer, new: Any) -> None:
    """A write of every element of ``x``: ``assign``, except into a view whose elements
    share places in memory (or a view of one), where each repeated place takes its last
    element's value (NOTE [writes through overlapping views] in core/mutation.py)."""
    base = getattr(x, "_base", None)
    if base is not None and through_overlap(base):
        found = overlap_positions(x)
        if found is not None:
            root, positions = found
            check_write(x)
            assign(root, flat_written(root, positions.ravel(), new))
            return
    assign(x, new)


def _check_output_writeable(x: Any) -> None:
    """NumPy's error for a ufunc's output (``x += y``, ``out=x``) that is read-only."""
    base = getattr(x, "_base", None)
    if base is not None and base[2] is read_only:
        raise ValueError("output array is read-only")  # NumPy's words


class _OutputShapeError(InPlaceError, ValueError):
    """An in-place result of another shape: InPlaceError, and the ValueError NumPy raises
    (``except ValueError`` in the user's code catches it as it catches NumPy's)."""


def _iop(op: Any, name: str) -> Any:
    def method(self: Tracer, other: Any) -> Tracer:
        return inplace(self, op, other, name)

    method.__name__ = f"__i{op.__name__.strip('_')}__"
    return method


INPLACE_OPERATORS = {
    "__iadd__": _iop(operator.add, "+"),
    "__isub__": _iop(operator.sub, "-"),
    "__imul__": _iop(operator.mul, "*"),
    "__itruediv__": _iop(operator.truediv, "/"),
    "__ifloordiv__": _iop(operator.floordiv, "//"),
    "__imod__": _iop(operator.mod, "%"),
    "__ipow__": _iop(operator.pow, "**"),
    "__imatmul__": _iop(operator.matmul, "@"),
    "__iand__": _iop(operator.and_, "&"),
    "__ior__": _iop(operator.or_, "|"),
    "__ixor__": _iop(operator.xor, "^"),
    "__ilshift__": _iop(operator.lshift, "<<"),
    "__irshift__": _iop(operator.rshift, ">>"),
}


# -- views -----------------------------------------------------------------------------


def _basic_view(index: Any, rank: int) -> bool:
    """Whether ``x[index]`` of an array of rank ``rank`` is a view in NumPy: basic indices
    (ints, slices, None, Ellipsis) that do not pick a single element (a scalar copy)."""
    t = type(index)
    if t is slice:
        return True
    if t is not tuple:
        index = (index,)
    ints = 0
    for i in index:
        ti = type(i)
        if ti is int or (ti is not bool and isinstance(i, numpy.integer)):
            ints += 1
        elif not (ti is slice or i is None or i is Ellipsis):
            return False
    return ints != rank or len(index) != rank


def make_view(parent: Any, result: Any, forward: Any, inverse: Any, reshaped: bool = False) -> Any:
    """core's ``make_view``, except of a 0-d tracer that stands for a NumPy scalar (NOTE [0-d
    values are NumPy scalars]: no view, no buffer): NumPy's ``np.atleast_1d(s)``,
    ``s.reshape(1)``, ``s[None]`` of a scalar are new arrays, so a write into them leaves
    ``s`` (a read-only view stays one: its writes raise)."""
    if (
        inverse is not read_only
        and type(parent) is not Buffer
        and isinstance(parent, Tracer)
        and not shape(parent)
        and getattr(parent, "_base", None) is None
    ):
        return clone(result) if result is parent else result
    return _make_view(parent, result, forward, inverse, reshaped)


def getitem_view(x: Tracer, index: Any) -> Any:
    """``x[index]``: a view of ``x`` for basic indices (NumPy's rule), else a copy."""
    out = getitem(x, index)
    rank = ndim(x)
    if not _basic_view(index, rank):
        return advanced_index_layout(out, x, index)  # NOTE [layout of elementwise results]
    if _SWAPPING[0] is x and _shuffling():
        return out

    def forward(p: Any) -> Any:
        return getitem(p, index)

    base = getattr(x, "_base", None)
    if (base is not None and hasattr(base[1], "layout")) or (
        base is None and id(x) in ROOT_LAYOUTS  # NOTE [layout of elementwise results]
    ):  # x is laid out in another order
        forward.layout = _index_layout(index, _shape(x))  # type: ignore[attr-defined]
    return make_view(
        x,
        out,
        forward,
        lambda p, v: updated(p, index, v),
        reshaped=_contiguous(x) and _keeps_contiguous(index, _shape(x)),
    )


def _index_layout(index: Any, xshape: tuple) -> Any:
    """The layout rule (core/mutation.py's ``layout``) of ``x[index]`` for a basic index:
    the kept axes in ``x``'s memory order, new axes first; dense where, read in that order,
    the index keeps a block (:func:`_keeps_contiguous` of the axes in memory order)."""
    rank = len(xshape)
    parts = index if isinstance(index, tuple) else (index,)
    if any(p is Ellipsis for p in parts):
        k = next(i for i, p in enumerate(parts) if p is Ellipsis)
        used = sum(1 for p in parts if p is not None and p is not Ellipsis)
        parts = parts[:k] + (slice(None),) * (rank - used) + parts[k + 1 :]
    parts = parts + (slice(None),) * (rank - sum(1 for p in parts if p is not None))
    new_axes, kept, on_axis = [], {}, []
    view_axis = 0
    for p in parts:
        if p is None:
            new_axes.append(view_axis)
            view_axis += 1
            continue
        if isinstance(p, slice):
            kept[len(on_axis)] = view_axis
            view_axis += 1
        on_axis.append(p)

    def rule(parent: tuple) -> tuple:
        order, dense = parent
        in_memory = tuple(on_axis[j] for j in order)
        dense = dense and _keeps_contiguous(in_memory, tuple(xshape[j] for j in order))
        return tuple(new_axes) + tuple(kept[j] for j in order if j in kept), dense

    return rule


def _inverse_axes(axes: Any, n: int) -> tuple[int, ...]:
    axes = tuple(range(n))[::-1] if axes is None else tuple(a % n for a in axes)
    return tuple(numpy.argsort(axes))


def transpose_view(x: Tracer, axes: Any = None) -> Any:
    out = transpose(x, axes)
    n = ndim(x)
    perm = tuple(range(n))[::-1] if axes is None else tuple(operator.index(a) % n for a in axes)
    return _permuted_view(x, out, perm)


def swapaxes_view(x: Tracer, a: int, b: int) -> Any:
    out = swapaxes(x, a, b)
    perm = list(range(ndim(x)))
    a, b = operator.index(a) % len(perm), operator.index(b) % len(perm)
    perm[a], perm[b] = perm[b], perm[a]
    return _permuted_view(x, out, tuple(perm))


def _permuted_view(x: Tracer, out: Any, perm: tuple[int, ...]) -> Any:
    """``out = transpose(x, perm)`` as a view of ``x``; its ``forward`` carries the layout
    rule (NOTE [memory layout]): ``a.T`` of a C-contiguous ``a`` is Fortran-contiguous,
    ``a.T.T`` C-contiguous again."""
    try:
        forward, inverse = _PERMUTATIONS[perm]
    except KeyError:
        forward, inverse = _PERMUTATIONS[perm] = _permutation(perm)
    return make_view(x, out, forward, inverse)


#: axes permutation -> the ``forward`` and ``inverse`` of its views (made once).
_PERMUTATIONS: dict[tuple[int, ...], tuple[Any, Any]] = {}


def moveaxis_view(x: Tracer, source: Any, destination: Any) -> Any:
    out = moveaxis(x, source, destination)
    n = ndim(x)
    src = [operator.index(a) % n for a in numpy.atleast_1d(source)]
    dst = [operator.index(a) % n for a in numpy.atleast_1d(destination)]
    perm = [a for a in range(n) if a not in src]
    for d, a in sorted(zip(dst, src)):
        perm.insert(d, a)
    return _permuted_view(x, out, tuple(perm))


def _contiguous(x: Any) -> bool:
    """Whether ``x`` is C-contiguous as NumPy would lay it out, so that NumPy's reshape of
    it is a view: an array that is no view is; a view records it (``_base[3]``)."""
    return c_contiguous(x) if isinstance(x, Tracer) else True


def _keeps_contiguous(index: Any, xshape: tuple) -> bool:
    """Whether basic indexing with ``index`` of a C-contiguous array of shape ``xshape``
    gives one NumPy flags C-contiguous: leading integers, then one step-1 slice, then whole
    axes (None anywhere) at once, else :func:`_flagged_contiguous`'s exact rule."""
    parts = index if isinstance(index, tuple) else (index,)
    rank = len(xshape)
    if any(p is Ellipsis for p in parts):
        k = next(i for i, p in enumerate(parts) if p is Ellipsis)
        used = sum(1 for p in parts if p is not None and p is not Ellipsis)
        parts = parts[:k] + (slice(None),) * (rank - used) + parts[k + 1 :]
    sliced = False
    for p in parts:
        if p is None:
            continue
        if isinstance(p, slice):
            if (sliced and p != slice(None)) or p.step not in (None, 1):
                return _flagged_contiguous(parts, xshape)
            sliced = True
        elif sliced:
            return _flagged_contiguous(parts, xshape)  # an integer after a slice
    return True


def _flagged_contiguous(parts: tuple, xshape: tuple) -> bool:
    """NumPy's C-contiguous flag of ``a[parts]`` (no Ellipsis) for a C-contiguous ``a`` of
    shape ``xshape``: the kept axes' strides are C order's for their lengths, axes of one
    element ignored (``a[:, 0:]``, ``a[1:2, 2:4]``, ``a[:, :6]`` are contiguous,
    ``a[:, 2:3]`` is not), and an empty result is."""
    if None in parts:
        parts = tuple(p for p in parts if p is not None)
    expected = stride = 1  # the C stride (elements) the next kept axis must have; xshape's
    dense = True
    for axis in range(len(xshape) - 1, -1, -1):
        n = xshape[axis]
        p = parts[axis] if axis < len(parts) else _WHOLE
        if type(p) is slice:
            start, stop, step = p.indices(n)
            length = len(range(start, stop, step))
            if length == 0:
                return True  # (NumPy flags an empty array contiguous)
            if length != 1:
                dense = dense and stride * step == expected
                expected *= length
        stride *= n
    return dense


_WHOLE = slice(None)


def _reshape_like(
    x: Tracer, out: Any, forward: Any, always: bool = False, strided: Any = None
) -> Any:
    """A reshape-like view of ``x`` (NumPy: a view when ``x`` is contiguous, else a copy;
    ``always``: a view anyway, as squeeze is; ``strided``: the ``(shape, order)`` of a
    reshape, a view where NumPy's needs no copy, NOTE [byte strides of views])."""
    if not isinstance(x, Tracer):
        return out
    contiguous = _contiguous(x)
    if not contiguous and not always:
        return _strided_reshape(x, out, forward, strided)
    xshape = _shape(x)
    if not contiguous:  # squeeze/expand_dims of a.T: the unit axes move, the others stay
        forward.layout = _unit_axes_layout(xshape, _shape(out))
    return make_view(x, out, forward, lambda p, v: reshape(v, xshape), reshaped=contiguous)


def _strided_reshape(x: Tracer, out: Any, forward: Any, strided: Any) -> Any:
    """A reshape of ``x``, which is not contiguous in its order: a view where NumPy's needs
    no copy (``strided``: its ``(shape, order)``; NOTE [byte strides of views]), else a
    copy (``ravel`` of ``a[::2]`` too, which ``ravel`` would hand back as it is)."""
    if strided is not None and reshapes_in_place(x, _shape(out), strided[1]):
        xshape = _shape(x)
        return make_view(x, out, forward, lambda p, v: reshape(v, xshape, order=strided[1]))
    if out is x:
        return copy_of(out)
    if type(out) is numpy.ndarray and out.base is not None:  # NumPy's view of a buffer's
        return mutable(out.copy())  # array, read-only (a[::-1].ravel()): a copy, writeable
    return out


def _unit_axes_layout(xshape: tuple, oshape: tuple) -> Any:
    """The layout rule (NOTE [memory layout]) of a view that only drops or adds axes of
    length 1: the other axes keep their order in memory."""
    to_out = dict(
        zip(
            [i for i, n in enumerate(xshape) if n != 1], [i for i, n in enumerate(oshape) if n != 1]
        )
    )
    units = tuple(i for i, n in enumerate(oshape) if n == 1)

    def rule(parent: tuple) -> tuple:
        order, dense = parent
        return units + tuple(to_out[j] for j in order if j in to_out), dense

    return rule


def reshape_view(
    x: Tracer, shape: Any = None, order: str = "C", *, newshape: Any = None, copy: Any = None
) -> Any:
    newshape = shape if newshape is None else newshape
    order = _memory_order_letter(x, order)
    out = reshape(x, newshape, order=order)
    if copy:
        return copy_of(out)
    if order == "F":
        forward = lambda p: reshape(p, newshape, order="F")  # noqa: E731
        return _fortran_reshape(x, out, forward, (newshape, "F"))
    return _reshape_like(x, out, lambda p: reshape(p, newshape), strided=(newshape, "C"))


def _memory_order_letter(x: Any, order: Any) -> Any:
    """NumPy's ``order='A'`` (and ``'K'`` for a reshape) of ``x``: ``'F'`` for a Fortran-
    and not C-contiguous array, else ``'C'``."""
    if order in ("A", "K") and isinstance(x, Tracer):
        c, f = c_contiguous(x), f_contiguous(x)
        return "F" if f and not c else "C"
    return order


def _fortran_reshape(x: Any, out: Any, forward: Any, strided: Any = None) -> Any:
    """A reshape in Fortran order: of a Fortran-contiguous ``x`` a view (Fortran-contiguous
    itself), as in NumPy; else (a view where NumPy's needs no copy, ``strided``) a copy."""
    if not isinstance(x, Tracer):
        return out
    if not f_contiguous(x):
        return _strided_reshape(x, out, forward, strided)
    xshape = _shape(x)
    reversed_axes = tuple(range(ndim(out)))[::-1]
    forward.layout = lambda parent: (reversed_axes, True)  # type: ignore[attr-defined]
    return make_view(x, out, forward, lambda p, v: reshape(v, xshape, order="F"))


_shape = shape  # reshape_view's parameter is NumPy's name


def _ravel_order(x: Any, order: Any) -> tuple[Any, Any]:
    """NumPy's reading order of ``x.ravel(order)``: ``(letter, None)``, or for ``'K'`` of
    an array laid out in neither C nor Fortran order ``(None, perm)``: the elements of
    ``transpose(x, perm)`` in C order (memory order: ``a.T.ravel('K')`` is ``a.ravel()``)."""
    if order == "K" and isinstance(x, Tracer) and not c_contiguous(x) and not f_contiguous(x):
        perm = layout(x)[0]
        if perm != tuple(range(len(perm))):
            return None, perm
    return _memory_order_letter(x, order), None


def memory_ravel(x: Any, order: Any) -> Any:
    """The elements of ``x`` in NumPy's ``order`` (``'K'``/``'A'``: as laid out), a value."""
    order, perm = _ravel_order(x, order)
    return ravel(transpose(x, perm)) if perm is not None else ravel(x, order=order)


def ravel_view(x: Tracer, order: str = "C") -> Any:
    order, perm = _ravel_order(x, order)
    if perm is not None:
        return ravel(transpose(x, perm))  # not one block: a copy
    out = ravel(x, order=order)
    if order == "F":
        return _fortran_reshape(x, out, lambda p: ravel(p, order="F"))
    if isinstance(x, Tracer) and not _contiguous(x) and _dense_in_c_order(x):
        xshape = _shape(x)  # np.flip(np.flip(a)), a[::2][:1]: contiguous after all
        return make_view(x, out, ravel, lambda p, v: reshape(v, xshape), reshaped=True)
    return _reshape_like(x, out, ravel)


def _dense_in_c_order(x: Tracer, order: str = "C") -> bool:
    """Whether a view that the quick rules do not call contiguous has its elements, in C
    (or ``order='F'``: Fortran) order, one after the other in memory (NumPy's flag, from
    the views' byte offsets: NOTE [byte strides of views]); O(its root's size), on
    ravel's copying path and a read of ``flags`` only."""
    offsets = element_offsets(x)
    if offsets is None or offsets.size < 2:
        return offsets is not None  # (one element or none: NumPy flags it contiguous)
    flat = offsets.ravel(order=order)
    step = numpy.dtype(dtype_of(x)).itemsize
    return bool(numpy.array_equal(flat, flat[0] + numpy.arange(flat.size) * step))


def rot90_view(m: Any, k: int = 1, axes: Any = (0, 1)) -> Any:
    """``numpy.rot90``: a view (flips and a transpose), as in NumPy."""
    out = rot90(m, k, axes)
    return make_view(m, out, lambda p: rot90(p, k, axes), lambda p, v: rot90(v, -k, axes))


def trim_zeros_view(filt: Any, trim: str = "fb", axis: Any = None) -> Any:
    """``numpy.trim_zeros``: a slice of ``filt``, so a view, as in NumPy."""
    index = trim_index(filt, trim, axis)
    return filt if index is None else getitem_view(filt, index)


def diag_view(v: Any, k: int = 0) -> Any:
    """``numpy.diag`` of a matrix: its read-only diagonal view, as NumPy returns it."""
    if isinstance(v, Tracer) and ndim(v) == 2:
        return diagonal_view(v, k)
    return diag(v, k)


def squeeze_view(x: Tracer, axis: Any = None) -> Any:
    out = squeeze(x, axis)
    return _reshape_like(x, out, lambda p: squeeze(p, axis), always=True)


def _real_part(p: Any) -> Any:
    return real(p)


def _imag_part(itemsize: int) -> Any:
    """The ``forward`` of ``.imag`` of a complex array of ``itemsize`` bytes (one for each)."""
    forward = _IMAG_PARTS.get(itemsize)
    if forward is None:

        def forward(p: Any) -> Any:
            return imag(p)

        forward.byte_offset = itemsize // 2  # type: ignore[attr-defined]
        _IMAG_PARTS[itemsize] = forward
    return forward


_IMAG_PARTS: dict = {}
_real_part.byte_offset = 0  # type: ignore[attr-defined]  # NOTE [byte strides of views]


def real_view(x: Tracer) -> Any:
    out = real(x)
    if dtype_of(x).kind != "c":
        return out
    return make_view(x, out, _real_part, lambda p, v: _cast(v, dtype_of(p)) + 1j * imag(p))


def imag_view(x: Tracer) -> Any:
    out = imag(x)
    if dtype_of(x).kind != "c":  # zeros NumPy makes read-only: a write would be lost
        return make_view(x, out, imag, read_only)
    forward = _imag_part(dtype_of(x).itemsize)
    return make_view(x, out, forward, lambda p, v: real(p) + 1j * _cast(v, dtype_of(real(p))))


def diagonal_view(x: Tracer, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    """``x.diagonal()``: a read-only view, as in NumPy (a write into ``x`` is seen through
    it; writing into it raises NumPy's ValueError)."""
    out = diagonal(x, offset, axis1, axis2)
    return make_view(x, out, lambda p: diagonal(p, offset, axis1, axis2), read_only)


def broadcast_to_view(array: Tracer, shape: Any, subok: bool = False) -> Any:  # noqa: ARG001
    """``numpy.broadcast_to``: a read-only view, as in NumPy (writing into it raises)."""
    out = broadcast_to(array, shape)
    return make_view(array, out, lambda p: broadcast_to(p, shape), read_only)


def broadcast_arrays_view(*arrays: Any, subok: bool = False) -> Any:  # noqa: ARG001
    """``numpy.broadcast_arrays``: of a traced array of another shape a view that sees its
    later writes (a write into it raises: NumPy deprecates writing into these results,
    whose elements share memory); of one of the common shape the array itself."""
    target = numpy.broadcast_shapes(*[shape(a) for a in arrays])
    out = []
    for a in arrays:
        if not isinstance(a, Tracer) or shape(a) == target:
            out.append(a if isinstance(a, Tracer) else broadcast_to(a, target))
            continue
        value = broadcast_to(a, target)
        out.append(make_view(a, value, lambda p: broadcast_to(p, target), _broadcast_written))
    return out


def _broadcast_written(parent: Any, value: Any) -> Any:
    raise InPlaceError(
        f"{parent._interp.name}: numpy.broadcast_arrays(...)[i][...] = v on a traced array "
        f"that was broadcast: its elements share memory, and NumPy deprecates writing into "
        f"them; write into the array itself (the result sees the write) or copy the result "
        f"first"
    )


def flip_view(m: Any, axis: Any = None) -> Any:
    """``numpy.flip``: a view (negative strides), as a basic index of reversed slices."""
    n = ndim(m)
    if axis is None:
        axes = set(range(n))
    else:
        axes = {operator.index(a) % n if n else 0 for a in numpy.atleast_1d(axis).tolist()}
        if any(not -n <= a < n for a in numpy.atleast_1d(axis).tolist()):
            return numpy.flip(numpy.empty(shape(m), bool), axis)  # NumPy's AxisError
    return getitem_view(
        m, tuple(slice(None, None, -1) if i in axes else slice(None) for i in range(n))
    )


def fliplr_view(m: Any) -> Any:
    if ndim(m) < 2:
        raise ValueError("Input must be >= 2-d.")
    return flip_view(m, 1)


def flipud_view(m: Any) -> Any:
    if ndim(m) < 1:
        raise ValueError("Input must be >= 1-d.")
    return flip_view(m, 0)


def _unit_axes_view(x: Any, target: tuple) -> Any:
    """``x`` reshaped to ``target`` (its shape with unit axes added): always a view."""
    return _reshape_like(x, reshape(x, target), lambda p: reshape(p, target), always=True)


def expand_dims_view(a: Any, axis: Any) -> Any:
    target = numpy.expand_dims(numpy.empty(shape(a), bool), axis).shape  # NumPy's rule
    return _unit_axes_view(a, target)


def _atleast(k: int) -> Any:
    original = {1: numpy.atleast_1d, 2: numpy.atleast_2d, 3: numpy.atleast_3d}[k]

    def atleast(*arys: Any) -> Any:
        out = []
        for a in arys:
            if not isinstance(a, Tracer):
                out.append(original(a))
            elif ndim(a) >= k:
                out.append(a)  # the same array, as NumPy returns it
            else:
                target = original(numpy.empty(shape(a), bool)).shape
                out.append(_unit_axes_view(a, target))
        return out[0] if len(out) == 1 else tuple(out)

    atleast.__name__ = original.__name__
    return atleast


def rollaxis_view(a: Any, axis: int, start: int = 0) -> Any:
    n = ndim(a)
    axes = numpy.rollaxis(numpy.empty((1,) * n, bool), axis, start)  # NumPy's checks
    del axes
    axis, start = operator.index(axis) % n, operator.index(start)
    start = start + n if start < 0 else start
    if axis < start:
        start -= 1
    if axis == start:
        return getitem_view(a, Ellipsis)
    order = [i for i in range(n) if i != axis]
    order.insert(start, axis)
    return transpose_view(a, tuple(order))


def matrix_transpose_view(x: Any) -> Any:
    if ndim(x) < 2:
        raise ValueError(f"Input array must be at least 2-dimensional, but it is {ndim(x)}")
    return swapaxes_view(x, -1, -2)


def _split(name: str) -> Any:
    """``numpy.split`` and its family: each piece is a view (a basic slice) of the array."""
    original = getattr(numpy, name)

    def split(ary: Any, indices_or_sections: Any, axis: int = 0) -> Any:
        shp = shape(ary)
        dummy = numpy.lib.stride_tricks.as_strided(numpy.zeros(1, bool), shp, (0,) * len(shp))
        if name in ("split", "array_split"):
            pieces = original(dummy, indices_or_sections, axis)  # NumPy's checks and errors
        else:
            pieces = original(dummy, indices_or_sections)
            axis = {"hsplit": 1 if len(shp) > 1 else 0, "vsplit": 0, "dsplit": 2}[name]
        axis = operator.index(axis) % len(shp)
        n = shp[axis]
        try:
            points = [0, *(operator.index(i) for i in indices_or_sections), n]
        except TypeError:  # a number of sections, as in numpy.array_split
            each, extra = divmod(n, len(pieces))
            sizes = [0] + extra * [each + 1] + (len(pieces) - extra) * [each]
            points = numpy.cumsum(sizes).tolist()
        lead = (slice(None),) * axis
        return [
            getitem_view(ary, (*lead, slice(points[i], points[i + 1]))) for i in range(len(pieces))
        ]

    split.__name__ = name
    return split


def unstack_view(x: Any, axis: int = 0) -> tuple:
    n = ndim(x)
    if n == 0:
        raise ValueError("Input array must be at least 1-d.")
    axis = operator.index(axis)
    if not -n <= axis < n:
        return numpy.unstack(numpy.empty(shape(x), bool), axis=axis)  # NumPy's AxisError
    axis %= n
    lead = (slice(None),) * axis
    return tuple(getitem_view(x, (*lead, i)) for i in range(shape(x)[axis]))


def identity_view(x: Tracer, dtype: Any = None, type: Any = None) -> Any:  # noqa: A002
    """``x.view()``, ``x.view(x.dtype)``, ``x.view(np.ndarray)``: a new array object that
    shares ``x``'s data (another dtype, a reinterpretation of the bits, or an ndarray
    subclass is not supported, except for a 0-d tracer that stands for a NumPy scalar,
    whose ``view(SubClass)`` is itself, as the scalar's is)."""
    if isinstance(dtype, builtins.type) and issubclass(dtype, numpy.ndarray):
        dtype, type = None, dtype  # NumPy's x.view(SubClass)
    if type is not None and type is not numpy.ndarray:
        if dtype is None and shape(x) == () and getattr(x, "_base", None) is None:
            # NOTE [0-d values are NumPy scalars]: a NumPy scalar's view(SubClass) is the
            # scalar itself (np.float64(2.0).view(np.ma.MaskedArray): numpy.ma's var)
            return x
        raise UnsupportedOperationError(
            f"x.view({getattr(type, '__name__', type)}) of a tracer: a traced array cannot "
            f"become an instance of an ndarray subclass under a transform; use the array "
            f"itself (x.view() or x.view(np.ndarray) share its data), and make the "
            f"subclass's object outside the transformed function."
        )
    if dtype is not None and numpy.dtype(dtype) != dtype_of(x):
        raise UnsupportedOperationError(
            "x.view(dtype) of a tracer: reinterpreting an array's bits as another dtype is "
            "not supported under a transform; convert the values with x.astype(dtype)."
        )
    return make_view(x, clone(x), lambda p: p, lambda p, v: v, reshaped=_contiguous(x))


def copy_of(x: Any) -> Any:
    """``x.copy()`` / ``np.copy(x)`` of a tracer: a new array object of the same value."""
    return clone(x) if isinstance(x, Tracer) else numpy.array(x, copy=True)


def copy_in_order(x: Any, order: Any = "K") -> Any:
    """``x.copy(order)`` / ``np.copy(x, order=...)`` of a tracer: a new array laid out as
    NumPy lays that copy out (NOTE [memory layout]): in Fortran order for ``'F'``, and for
    ``'A'``/``'K'`` of a Fortran- and not C-contiguous ``x`` (``np.copy(a.T)``), as the
    axes-reversing view of a hidden C-ordered array; else :func:`copy_of`."""
    if type(x) is Buffer and not x._interp.active:  # kept past its transform: NumPy's copy
        return numpy.array(x.val, order=order, copy=True)  # (NOTE [buffers after their transform])
    if type(x) is Buffer and (order == "F" or not x.val.flags.c_contiguous):
        return mutable(numpy.array(x.val, order=order, copy=True))  # NumPy's, as a buffer
    if order == "C" or not isinstance(x, Tracer) or ndim(x) < 2:
        return copy_of(x)
    return in_order_of(copy_of(x), x, order)  # NOTE [layout of elementwise results]


def fortran_view(hidden: Any) -> Any:
    """The Fortran-ordered array whose transpose is the C-ordered ``hidden`` (a tracer or
    buffer no one else holds): its axes-reversing view, which NumPy's ``base`` does not
    show (NOTE [memory layout])."""
    forward, inverse = _permutation(tuple(range(ndim(hidden)))[::-1])
    forward.rebased = True  # a new array in NumPy: no base (numpy_base)
    return make_view(hidden, transpose(hidden), forward, inverse)


FORTRAN_VIEW.append(fortran_view)


def _copy(a: Any, order: Any = "K", subok: bool = False) -> Any:  # noqa: ARG001
    """``numpy.copy`` of a tracer (``'K'``: ``np.copy(a.T)`` keeps ``a.T``'s layout)."""
    return copy_in_order(a, order)


# -- out=, copyto, fill, put, sort ------------------------------------------------------


def _out_error(form: str, out: Any) -> Exception:
    """The error of a traced value written into the plain NumPy array ``out``: NumPy's
    ValueError where ``out`` is read-only (NumPy checks that first), else InPlaceError."""
    if type(out) is numpy.ndarray and not out.flags.writeable:
        return ValueError("output array is read-only")  # NumPy's words
    if structured(out):
        return InPlaceError(
            f"{form}: out= is a structured NumPy array or one of its fields, which cannot "
            f"hold the traced result (its derivative or its batch); keep each field in an "
            f"array of its own (np.zeros(n) per field, or one float array with a column "
            f"per field)."
        )
    return InPlaceError(
        f"{form}: out= is a NumPy array of shape {numpy.shape(out)} that did not come from "
        f"inside the transformed function or that something else holds (a global, a "
        f"closed-over array, an attribute such as self.running_mean, an argument that is "
        f"not transformed, an alias or a view of one), so it cannot hold the traced result "
        f"(its derivative or its batch), and writing into it could change the caller's "
        f"data.  Compute out of place (a = a + t) and use the returned value (return new "
        f"running statistics, as nn.batch_norm does), or make the array inside the "
        f"function with np.zeros/np.empty/np.full/np.copy(a) (x0 += t or np.add(x0, t, "
        f"out=x0) into a plain array that only the function's variables hold, such as "
        f"x0 = a.copy(), works too)."
    )


def write_out(form: str, out: Any, result: Any) -> Any:
    """Write ``result`` into ``out`` (a tracer or buffer; a plain array when ``result``
    is plain) as ``out=`` does; returns ``out``."""
    if isinstance(out, Tracer):
        _check_output_writeable(out)
        if shape(result) != shape(out):
            result = broadcast_to(result, shape(out))
        result = _cast(result, dtype_of(out))
        assign_whole(out, result)
        return out
    if isinstance(result, Tracer) and type(result) is not Buffer:
        if type(out) is numpy.ndarray and out.dtype.kind == "O":
            # an object array (np.array([t, u]) made one) holds 0-d tracers, as NumPy's
            # object loops compute with them: the result goes in element by element
            flat = reshape(broadcast_to(result, out.shape), (-1,))
            for k, index in enumerate(numpy.ndindex(out.shape)):
                out[index] = flat[k]
            return out
        raise _out_error(form, out)
    numpy.copyto(out, result.val if type(result) is Buffer else result, casting="unsafe")
    return out


def copyto(dst: Any, src: Any, casting: str = "same_kind", where: Any = True) -> None:
    """``numpy.copyto(dst, src)`` with a traced ``dst`` or ``src``."""
    if type(src) is Buffer:
        src = src.val
    src = traced_sequence(src)
    if type(src) in (bool, int, float, complex):
        # a Python number is weak (NEP 50): NumPy's own check of it against dst's dtype
        # (copyto(uint8s, 1) is fine, copyto(uint8s, -1) overflows, copyto(ints, 1.5) not)
        numpy.copyto(numpy.empty((), dtype_of(dst)), src, casting=casting)
        src_dt = dtype_of(dst)
    else:
        src_dt = dtype_of(src) if isinstance(src, Tracer) else numpy.asarray(src).dtype
    if not numpy.can_cast(src_dt, dtype_of(dst), casting):
        raise InPlaceError(
            f"numpy.copyto: cannot cast from {src_dt} to {dtype_of(dst)} with casting rule "
            f"{casting!r} (NumPy refuses it too); pass casting='unsafe' or cast src first."
        )
    if where is True:
        new = broadcast_to(src, shape(dst))
    else:
        if type(where) is Buffer:
            where = where.val
        new = _where(_plain(where), src, dst)
    write_out("numpy.copyto", dst, new)


def fill(x: Tracer, value: Any) -> None:
    """``x.fill(value)``."""
    if type(value) is Buffer:
        value = value.val
    assign_whole(x, broadcast_to(_cast(value, dtype_of(x)), shape(x)))


def put(x: Tracer, indices: Any, values: Any, mode: str = "raise") -> None:
    """``x.put(indices, values)`` / ``numpy.put``: flat indices, values repeated as needed."""
    if mode not in ("raise", "wrap", "clip"):
        raise UnsupportedOperationError(
            f"x.put(..., mode={mode!r}): mode is one of 'raise', 'wrap' and 'clip'"
        )
    idx = numpy.asarray(_concrete_index(indices)).ravel()
    size = math.prod(shape(x))
    if mode == "wrap":
        idx = idx % size
    elif mode == "clip":  # NumPy's clip: a negative index is clipped to 0, not wrapped
        idx = numpy.clip(idx, 0, size - 1)
    values = traced_sequence(values)
    if isinstance(values, Tracer):
        vals = ravel(values)
        n = shape(vals)[0]
    else:
        vals = numpy.ravel(_cast(values, dtype_of(x)))
        n = vals.size
    if n != idx.size:
        vals = take(vals, numpy.arange(idx.size) % n)
    xshape = shape(x)
    flat = updated(ravel(x), idx, vals)
    assign(x, reshape(flat, xshape))


def flat_assign(x: Tracer, v: Any) -> None:
    """``x.flat = v``: every element of ``x`` in C order, ``v``'s values repeated."""
    put(x, numpy.arange(math.prod(shape(x))), v)


def set_shape(x: Tracer, new_shape: Any) -> None:
    """``x.shape = new_shape``: ``x`` is reshaped in place, as NumPy does without a copy;
    where NumPy would need one (a Fortran-ordered array, a strided view whose axes do not
    split) it raises NumPy's AttributeError (not where ``x``'s strides are not known)."""
    old_shape = shape(x)
    new_shape = numpy.empty(old_shape, dtype=numpy.bool_).reshape(new_shape).shape  # -1, ints
    if new_shape == tuple(old_shape):
        return  # NumPy keeps the strides: x keeps its layout
    if not c_contiguous(x) and strides_of(x) is not None and not reshapes_in_place(x, new_shape):
        raise AttributeError(
            "Incompatible shape for in-place modification. Use `.reshape()` to make a copy "
            "with the desired shape."
        )  # NumPy's words
    # not logged for a batched cond branch: an array made in the branch is reshaped as
    # NumPy does; one from outside it is reshaped for every row (rows cannot differ in it)
    check_write(x, logged=False)
    forget_root_layout(x)  # NOTE [layout of elementwise results]
    if getattr(x, "_base", None) is None and not _live_views(x):
        become(x, reshape(x, new_shape))
        return
    _rebase(x, lambda p: reshape(p, new_shape), lambda p, v: reshape(v, old_shape))


def resize(x: Tracer, new_shape: Any) -> None:
    """``x.resize(new_shape)``: ``x`` takes the new shape in place, its elements in C order
    cut or followed by zeros, as NumPy's method does (not ``np.resize``, which repeats).
    As in NumPy, a view, or an array with views, cannot be resized."""
    if len(new_shape) == 1 and numpy.iterable(new_shape[0]):
        new_shape = tuple(new_shape[0])
    new_shape = tuple(operator.index(n) for n in new_shape)
    base = getattr(x, "_base", None)
    if base is not None and numpy_base(x) is not None:
        raise ValueError("cannot resize this array: it does not own its data")  # NumPy's
    if _live_views(x):
        raise ValueError(
            "cannot resize an array that references or is referenced\nby another array in "
            "this way.\nUse the np.resize function or refcheck=False"
        )
    check_write(x, logged=False)  # a new shape: not merged by rows (see set_shape)
    # NumPy keeps the elements in memory order (a Fortran-ordered array's, NOTE [layout of
    # elementwise results]): such an array is a view here, whose link the new shape ends
    flat = ravel(x) if id(x) not in NOT_IN_C_ORDER else memory_ravel(x, "K")
    forget_root_layout(x)
    if base is not None:
        base[0]._views = [r for r in base[0]._views if r() is not x]
        x._base = None
        NOT_IN_C_ORDER.discard(id(x))
    n = math.prod(new_shape)
    have = math.prod(shape(x))
    if n <= have:
        flat = flat[:n]
    else:
        flat = concatenate([flat, numpy.zeros(n - have, dtype=dtype_of(x))])
    become(x, reshape(flat, new_shape))


#: NOTE [shuffling a traced array]: NumPy's ``Generator.shuffle(x)``/``RandomState.shuffle``
#: take an array that is no ``ndarray`` (a tracer) as a Python sequence and swap its items,
#: ``x[i], x[j] = x[j], x[i]``: with rows that are views (NumPy's rule for ``x[i]`` of an
#: array of 2+ dims) the second write reads the first's result, and rows are duplicated
#: (NumPy warns it may).  ``len(x)`` is its first call, from C, so the caller's frame is
#: the user's, calling ``shuffle``: then ``x[i]`` of ``x`` gives copies (NumPy's own
#: ndarray path swaps the rows' memory) for the ``2 (n - 1)`` writes the swaps make; the
#: draws are NumPy's.  ``[x, writes left, the calling frame, its instruction]`` while a
#: shuffle runs (a shuffle that stopped early is noticed: that frame has moved on).
_SWAPPING: list = [None, 0, None, -1]


def note_len_call(x: Tracer, n: int) -> None:
    """``len(x)`` of a traced array of 2+ dims: if NumPy's shuffle asked, its swaps of the
    rows are made with copies (NOTE [shuffling a traced array])."""
    frame = sys._getframe(2)  # len() called from C: the frame that called shuffle
    if n > 1 and callee_name(frame.f_code, frame.f_lasti) == "shuffle":
        _SWAPPING[:] = [x, 2 * (n - 1), frame, frame.f_lasti]


def _shuffling() -> bool:
    """Whether the shuffle that set :data:`_SWAPPING` still runs (x[i] and x[i] = v are
    called from its C loop: their caller's caller is the frame that called it)."""
    frame = sys._getframe(3)
    if frame is _SWAPPING[2] and frame.f_lasti == _SWAPPING[3]:
        return True
    _SWAPPING[:] = [None, 0, None, -1]
    return False


def _swapped() -> None:
    _SWAPPING[1] -= 1
    if _SWAPPING[1] <= 0:
        _SWAPPING[:] = [None, 0, None, -1]


def _live_views(x: Tracer) -> list:
    return [r for r in (getattr(x, "_views", None) or ()) if r() is not None]


def _rebase(x: Tracer, forward: Any, inverse: Any) -> None:
    """Make ``x`` the view ``forward(old)`` of ``old``, a new object with ``x``'s value that
    takes ``x``'s place among its base and its views (NOTE [mutation semantics]): so that
    ``x.shape = s`` and ``x.flags.writeable = False`` change ``x`` and no alias of it."""
    base = getattr(x, "_base", None)
    views = _live_views(x)
    contiguous = base[3] if base is not None else c_contiguous(x)
    old = clone(x)
    old._base, old._views = base, views
    entry = ROOT_LAYOUTS.get(id(x)) if base is None and ROOT_LAYOUTS else None
    if entry is not None and entry[0]() is x:  # NOTE [layout of elementwise results]:
        set_root_layout(old, *entry[1:])  # x, now a view of old, keeps its layout
    x._base = x._views = None
    for r in views:
        r()._base = (old, *r()._base[1:])
    if base is not None:
        base[0]._views = [weakref.ref(old) if r() is x else r for r in base[0]._views]
    become(x, forward(old))
    forward.rebased = True  # NumPy's x keeps its own base (numpy_base)
    make_view(old, x, forward, inverse, reshaped=contiguous)


def _itself(p: Any) -> Any:
    return p


_itself.rebased = True  # type: ignore[attr-defined]
_itself.layout = lambda parent: parent  # type: ignore[attr-defined]  (the same memory)


def numpy_base(t: Tracer) -> Any:
    """NumPy's ``t.base``: None for an array that owns its elements, else the array at
    the root of its views (NumPy collapses chains of views).  The links ``x.shape = s``
    and ``x.flags.writeable = False`` make (``_rebase``) are no views in NumPy."""
    base = getattr(t, "_base", None)
    if base is None:
        return None
    above = numpy_base(base[0])
    if above is not None or getattr(base[1], "rebased", False):
        return above
    return base[0]


def _replaced(p: Any, v: Any) -> Any:
    return v


class TracerFlags:
    """``t.flags`` of a traced array: NumPy's flags as far as a traced array has them.  A
    traced array is laid out in C order unless it is a view that NumPy would stride (its
    view record says); ``writeable`` is false for a read-only view (``diagonal``,
    ``broadcast_to``), and setting it to False makes ``t`` read-only, as in NumPy.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> ft.vmap(lambda x: x * x.flags.c_contiguous + x[::2].flags["C"])(np.ones((1, 3)))
        array([[1., 1., 1.]])
    """

    __slots__ = ("_array",)

    _KEYS = {
        "C": "c_contiguous",
        "C_CONTIGUOUS": "c_contiguous",
        "CONTIGUOUS": "c_contiguous",
        "F": "f_contiguous",
        "F_CONTIGUOUS": "f_contiguous",
        "FORTRAN": "f_contiguous",
        "W": "writeable",
        "WRITEABLE": "writeable",
        "O": "owndata",
        "OWNDATA": "owndata",
        "A": "aligned",
        "ALIGNED": "aligned",
        "X": "writebackifcopy",
        "WRITEBACKIFCOPY": "writebackifcopy",
        "B": "behaved",
        "BEHAVED": "behaved",
        "CA": "carray",
        "CARRAY": "carray",
        "FA": "farray",
        "FARRAY": "farray",
        "FNC": "fnc",
        "FORC": "forc",
    }

    def __init__(self, array: Tracer) -> None:
        object.__setattr__(self, "_array", array)

    @property
    def c_contiguous(self) -> bool:
        a = self._array  # (a view the quick rules do not settle: its byte offsets)
        return c_contiguous(a) or (getattr(a, "_base", None) is not None and _dense_in_c_order(a))

    @property
    def f_contiguous(self) -> bool:
        a = self._array
        if f_contiguous(a):
            return True
        return getattr(a, "_base", None) is not None and _dense_in_c_order(a, "F")

    contiguous = c_contiguous

    @property
    def writeable(self) -> bool:
        base = getattr(self._array, "_base", None)
        return base is None or base[2] is not read_only

    @property
    def owndata(self) -> bool:
        return getattr(self._array, "_base", None) is None

    aligned = True
    writebackifcopy = False

    @property
    def behaved(self) -> bool:
        return self.writeable

    @property
    def carray(self) -> bool:
        return self.c_contiguous and self.writeable

    @property
    def farray(self) -> bool:
        return self.f_contiguous and self.writeable and not self.c_contiguous

    @property
    def fnc(self) -> bool:
        return self.f_contiguous and not self.c_contiguous

    @property
    def forc(self) -> bool:
        return self.f_contiguous or self.c_contiguous

    def __getitem__(self, key: str) -> bool:
        name = self._KEYS.get(str(key).upper())
        if name is None:
            raise KeyError(f"Unknown flag {key!r}")  # NumPy's words
        return getattr(self, name)

    def __setitem__(self, key: str, value: Any) -> None:
        name = self._KEYS.get(str(key).upper())
        if name is None:
            raise KeyError(f"Unknown flag {key!r}")
        setattr(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        if name != "writeable":
            raise AttributeError(f"t.flags.{name} of a traced array cannot be set")
        x = self._array
        base = getattr(x, "_base", None)
        if value:
            if self.writeable:
                return
            if base[1] is _itself:  # made read-only by the user: writeable again
                x._base = (base[0], _itself, _replaced, base[3])
                return
            raise InPlaceError(
                f"{x._interp.name}: t.flags.writeable = True on a read-only view of a traced "
                f"array (diagonal, broadcast_to): writing through such a view is not "
                f"supported; write into the array it views (np.fill_diagonal(a, v)), or copy "
                f"the view first"
            )
        if self.writeable:
            check_write(x, logged=False)
            if base is not None and base[1] is _itself:
                x._base = (base[0], _itself, read_only, base[3])
            else:
                _rebase(x, _itself, read_only)

    def __repr__(self) -> str:
        names = ("c_contiguous", "f_contiguous", "owndata", "writeable", "aligned")
        return "\n".join(f"  {n.upper()} : {getattr(self, n)}" for n in names)


SHAPE_SETTER.append(set_shape)


def flat_setitem(x: Tracer, index: Any, v: Any) -> None:
    """``x.flat[index] = v``."""
    if type(v) is Buffer:
        v = v.val
    assign(x, reshape(updated(ravel(x), index, v), shape(x)))


def sort_inplace(x: Tracer, axis: int = -1, kind: Any = None) -> None:
    """``x.sort()``: ``x`` sorted along ``axis``, in place."""
    assign(x, sort(x, axis=axis))


def _plain_target(name: str, a: Any, *values: Any) -> bool:
    """Whether ``numpy.<name>(a, ...)`` writes into a plain NumPy array ``a`` (NumPy then
    does it; a traced value written into it is refused)."""
    if isinstance(a, Tracer):
        return False
    if any(holds_tracer(v) and type(v) is not Buffer for v in values):
        raise _out_error(f"numpy.{name}(a, ...)", a).with_traceback(None)
    return True


def _plain(v: Any) -> Any:
    return v.val if type(v) is Buffer else v


def _cycled(values: Any, n: int, dtype: Any) -> Any:
    """The first ``n`` of ``values`` repeated (NumPy's rule for put/place/flat writes),
    Python values converted into the written array's ``dtype`` as NumPy converts them."""
    values = traced_sequence(values)
    flat = ravel(values) if isinstance(values, Tracer) else numpy.ravel(_cast(values, dtype))
    m = shape(flat)[0]
    return flat if m == n else take(flat, numpy.arange(n) % m)


def put_writer(a: Any, ind: Any, v: Any, mode: str = "raise") -> None:
    """``numpy.put(a, ind, v)``."""
    if _plain_target("put", a, ind, v):
        return numpy.put(a, _plain(ind), _plain(v), mode=mode)
    put(a, ind, v, mode)


def putmask_writer(a: Any, mask: Any, values: Any) -> None:
    """``numpy.putmask(a, mask, values)``: ``a.flat[i] = values.flat[i % len]`` where set."""
    if _plain_target("putmask", a, mask, values):
        return numpy.putmask(a, _plain(mask), _plain(values))
    if isinstance(mask, Tracer) and shape(mask) == shape(a) and mask.dtype.kind == "b":
        vals = _cast(values.val if type(values) is Buffer else values, dtype_of(a))
        vals = vals if isinstance(vals, Tracer) else xp_of(a).asarray(vals)
        if math.prod(shape(vals)) == 1 or shape(vals) == shape(a):  # one value, or a's shape
            assign(a, where(mask, reshape(vals, ()) if math.prod(shape(vals)) == 1 else vals, a))
            return
    concrete = _concrete_index(mask)
    if concrete is None:
        raise InPlaceError(
            "numpy.putmask(a, mask, values) with a mask batched by vmap and several values: "
            "write a = fnp.where(mask, values_shaped_like_a, a)"
        )
    positions = numpy.flatnonzero(numpy.broadcast_to(concrete, shape(a)))
    vals = _cycled(values, int(numpy.prod(shape(a))), dtype_of(a))
    vals = take(vals, positions) if isinstance(vals, Tracer) else numpy.asarray(vals)[positions]
    assign(a, reshape(updated(ravel(a), positions, vals), shape(a)))


def place_writer(arr: Any, mask: Any, vals: Any) -> None:
    """``numpy.place(arr, mask, vals)``: the set positions get ``vals`` in order, cycled."""
    if _plain_target("place", arr, mask, vals):
        return numpy.place(arr, _plain(mask), _plain(vals))
    concrete = _concrete_index(mask)
    if concrete is None:
        raise InPlaceError(
            "numpy.place(arr, mask, vals) with a mask batched by vmap: the number of values "
            "used differs per example; write arr = fnp.where(mask, v, arr)"
        )
    positions = numpy.flatnonzero(numpy.broadcast_to(concrete, shape(arr)))
    vals = _cycled(vals, positions.size, dtype_of(arr))
    assign(arr, reshape(updated(ravel(arr), positions, vals), shape(arr)))


def fill_diagonal_writer(a: Any, val: Any, wrap: bool = False) -> None:
    """``numpy.fill_diagonal(a, val, wrap=False)``."""
    if _plain_target("fill_diagonal", a, val):
        return numpy.fill_diagonal(a, _plain(val), wrap=wrap)
    s = shape(a)
    if len(s) < 2:
        raise ValueError("array must be at least 2-d")
    if len(s) == 2:
        step = s[1] + 1
        end = None if wrap else s[1] * s[1]
    else:
        if len(set(s)) != 1:
            raise ValueError("All dimensions of input must be of equal length")
        step = 1 + int(numpy.cumprod(s[:-1]).sum())
        end = None
    positions = numpy.arange(int(numpy.prod(s)))[:end:step]
    assign(a, reshape(updated(ravel(a), positions, _cycled(val, positions.size, dtype_of(a))), s))


def put_along_axis_writer(arr: Any, indices: Any, values: Any, axis: Any) -> None:
    """``numpy.put_along_axis(arr, indices, values, axis)``."""
    if _plain_target("put_along_axis", arr, indices, values):
        return numpy.put_along_axis(arr, _plain(indices), _plain(values), axis)
    idx = numpy.asarray(_concrete_index(indices))
    if axis is None:
        setitem_flat = reshape(updated(ravel(arr), idx.ravel(), values), shape(arr))
        assign(arr, setitem_flat)
        return
    n = ndim(arr)
    axis = axis % n
    full = []
    for d in range(n):
        if d == axis:
            full.append(idx)
        else:
            shp = [1] * n
            shp[d] = shape(arr)[d]
            full.append(numpy.arange(shape(arr)[d]).reshape(shp))
    setitem(arr, tuple(full), values)


def copyto_writer(dst: Any, src: Any, casting: str = "same_kind", where: Any = True) -> None:
    """``numpy.copyto(dst, src, casting, where)``."""
    if _plain_target("copyto", dst, src, where):
        return numpy.copyto(dst, _plain(src), casting=casting, where=_plain(where))
    copyto(dst, src, casting, where)


IN_PLACE_WRITERS.update(
    put=put_writer,
    putmask=putmask_writer,
    place=place_writer,
    fill_diagonal=fill_diagonal_writer,
    put_along_axis=put_along_axis_writer,
    copyto=copyto_writer,
)


#: NumPy functions that return a view: called on a tracer, they make a view of it.
VIEW_FUNCTIONS = {
    numpy.transpose: transpose_view,
    numpy.swapaxes: swapaxes_view,
    numpy.moveaxis: moveaxis_view,
    numpy.reshape: reshape_view,
    numpy.ravel: ravel_view,
    numpy.squeeze: squeeze_view,
    numpy.real: real_view,
    numpy.imag: imag_view,
    numpy.diagonal: diagonal_view,
    numpy.diag: diag_view,
    numpy.rot90: rot90_view,
    numpy.trim_zeros: trim_zeros_view,
    numpy.broadcast_to: broadcast_to_view,
    numpy.broadcast_arrays: broadcast_arrays_view,
    numpy.copy: _copy,  # a copy, in NumPy's layout
    numpy.flip: flip_view,
    numpy.fliplr: fliplr_view,
    numpy.flipud: flipud_view,
    numpy.expand_dims: expand_dims_view,
    numpy.atleast_1d: _atleast(1),
    numpy.atleast_2d: _atleast(2),
    numpy.atleast_3d: _atleast(3),
    numpy.rollaxis: rollaxis_view,
    **{
        getattr(numpy, n): _split(n) for n in ("split", "array_split", "hsplit", "vsplit", "dsplit")
    },
    **(
        {numpy.matrix_transpose: matrix_transpose_view}
        if hasattr(numpy, "matrix_transpose")
        else {}
    ),
    **({numpy.unstack: unstack_view} if hasattr(numpy, "unstack") else {}),
}


def _element_ids(x: Any) -> tuple[Any, Any]:
    """``(root, ids)``: the array ``x`` is a view of (itself when it is none) and, for each
    element of ``x``, where it lies in the root's memory, as NumPy lays out a C-ordered
    array: ``2k`` for element ``k`` (``2k + 1`` for its imaginary part, which ``.imag``
    views see); a complex id covers both halves.  Derived by running each view's
    ``forward`` step from the root down on those numbers."""
    chain = []
    while isinstance(x, Tracer) and getattr(x, "_base", None) is not None:
        parent, forward, _, _ = x._base
        chain.append(forward)
        x = parent
    n = math.prod(shape(x))
    ids = 2 * numpy.arange(n).reshape(shape(x))
    if dtype_of(x).kind == "c":
        ids = ids + 1j * (ids + 1)
    for forward in reversed(chain):
        ids = forward(ids)
    ids = numpy.asarray(ids)
    if ids.dtype.kind == "c":
        ids = numpy.concatenate([ids.real.ravel(), ids.imag.ravel()])
    return x, ids.astype(numpy.int64).ravel()


def _overlap(a: Any, b: Any, bounds: bool) -> bool:
    if not (isinstance(a, Tracer) and isinstance(b, Tracer)):
        return False
    root_a, ids_a = _element_ids(a)
    root_b, ids_b = _element_ids(b)
    if root_a is not root_b or not ids_a.size or not ids_b.size:
        return False
    if bounds:
        return bool(ids_a.min() <= ids_b.max() and ids_b.min() <= ids_a.max())
    return bool(numpy.intersect1d(ids_a, ids_b).size)


MEMORY_OVERLAP.append(_overlap)  # answers fnp.shares_memory / may_share_memory
