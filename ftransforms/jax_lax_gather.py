"""``jax.lax``'s general ``gather`` and ``scatter`` with dimension numbers, the scatter
family (``scatter_add``/``sub``/``mul``/``min``/``max``/``apply``) and ``index_take``,
under ``ftransforms.lax`` (NOTE [jax.lax names in ftransforms.lax] in ``jax_lax.py``).

NOTE [gather and scatter as flat positions]
-------------------------------------------
A gather or scatter with dimension numbers is NumPy indexing.  Every element of the
gather's output (of the scatter's ``updates``) sits at an operand position whose
coordinate on each axis is ``start + offset``: the start is that axis' column of the index
vector (``start_index_map`` / ``scatter_dims_to_operand_dims``, clamped so that the window
fits), the element's own batch coordinate for a batching axis, or 0; the offset is the
element's coordinate along its window axis (``offset_dims`` / ``update_window_dims``), or 0
for a collapsed (inserted) axis.  :func:`_indexing` builds one integer array per operand
axis by broadcasting (the axes that every window takes whole stay slices, moved last), so
the gather is ``x.transpose(order)[index]`` and ``scatter_add`` an ``.at[index].add``;
the other scatters work on the flat positions of ``operand.ravel()``
(:func:`_positions`).  NumPy's indexing has derivative and batching rules already, so
every transform goes through.  The modes: ``"clip"`` clamps the starts; ``"fill"``
(gather) masks the windows that do not fit with ``fill_value``; ``"drop"`` (scatter's
default) leaves out the updates of such windows; ``"promise_in_bounds"`` clamps in a
gather and drops in a scatter, as JAX does on CPU.  Repeated positions: ``scatter`` keeps
the last update (as JAX on CPU), ``scatter_add`` adds them all, ``scatter_min``/``max``
keep the extreme and ``scatter_mul`` multiplies them, through a stable sort of the
positions (a segmented scan of products for ``mul``) when they are traced (batched by
``vmap``: one batched program, never a split) and a NumPy pass when they are concrete.

Example:
    >>> import numpy as np
    >>> from ftransforms import lax
    >>> x = np.arange(12.0).reshape(3, 4)
    >>> dn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
    ...                                 start_index_map=(0,))
    >>> lax.gather(x, np.array([[2], [0]]), dn, (1, 4)).tolist()  # x[[2, 0]]
    [[8.0, 9.0, 10.0, 11.0], [0.0, 1.0, 2.0, 3.0]]
"""

from __future__ import annotations

import enum
import operator
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import DimensionNumbersError, UnsupportedOperationError
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.helpers import xp_of
from ftransforms.numpy.indexing import default_fill


class GatherScatterMode(enum.Enum):
    """How ``gather``/``scatter`` treat windows that do not fit in the operand
    (``jax.lax.GatherScatterMode``): ``CLIP`` clamps the start, ``FILL_OR_DROP`` fills the
    gathered window (drops the scattered one), ``PROMISE_IN_BOUNDS`` clamps in a gather
    and drops in a scatter (JAX's behaviour on CPU).  ``from_any`` reads ``"clip"``,
    ``"fill"``/``"drop"``, ``"promise_in_bounds"`` or ``None`` (``FILL_OR_DROP``).

    Example:
        >>> from ftransforms import lax
        >>> lax.GatherScatterMode.from_any("clip")
        <GatherScatterMode.CLIP: 1>
    """

    CLIP = 1
    FILL_OR_DROP = 2
    PROMISE_IN_BOUNDS = 3
    ONE_HOT = 4

    @staticmethod
    def from_any(s: Any) -> GatherScatterMode:
        """The mode that ``s`` names (a mode, JAX's mode, a string or ``None``)."""
        if isinstance(s, GatherScatterMode):
            return s
        name = getattr(s, "name", None)  # jax.lax.GatherScatterMode
        if isinstance(name, str) and name in GatherScatterMode.__members__:
            return GatherScatterMode[name]
        if s == "clip":
            return GatherScatterMode.CLIP
        if s is None or s in ("fill", "drop"):
            return GatherScatterMode.FILL_OR_DROP
        if s == "promise_in_bounds":
            return GatherScatterMode.PROMISE_IN_BOUNDS
        if s == "one_hot":
            return GatherScatterMode.ONE_HOT
        raise ValueError(
            f"GatherScatterMode.from_any({s!r}): the mode must be 'clip', 'fill', 'drop', "
            f"'promise_in_bounds' or None"
        )


class GatherDimensionNumbers(NamedTuple):
    """How a ``gather``'s index vectors map onto the operand (``jax.lax.GatherDimensionNumbers``):
    ``offset_dims`` are the output axes of the slice's kept axes, ``collapsed_slice_dims``
    the operand axes (slice size 1) that the output drops, ``start_index_map`` the operand
    axis of each entry of an index vector, and ``operand_batching_dims`` /
    ``start_indices_batching_dims`` pair operand axes with batch axes of the indices.

    Example:
        >>> from ftransforms import lax
        >>> lax.GatherDimensionNumbers((1,), (0,), (0,)).start_index_map
        (0,)
    """

    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()


class ScatterDimensionNumbers(NamedTuple):
    """How a ``scatter``'s updates map onto the operand (``jax.lax.ScatterDimensionNumbers``):
    ``update_window_dims`` are the axes of ``updates`` that run along the window,
    ``inserted_window_dims`` the operand axes the window has size 1 on (absent from
    ``updates``), ``scatter_dims_to_operand_dims`` the operand axis of each entry of an
    index vector, and ``operand_batching_dims`` / ``scatter_indices_batching_dims`` pair
    operand axes with batch axes of the indices.

    Example:
        >>> from ftransforms import lax
        >>> lax.ScatterDimensionNumbers((), (0,), (0,)).inserted_window_dims
        (0,)
    """

    update_window_dims: tuple[int, ...]
    inserted_window_dims: tuple[int, ...]
    scatter_dims_to_operand_dims: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    scatter_indices_batching_dims: tuple[int, ...] = ()


def _ints(seq: Any) -> tuple[int, ...]:
    return tuple(operator.index(a) for a in seq)


class _Layout(NamedTuple):
    """The checked geometry of one gather/scatter (NOTE [gather and scatter as flat
    positions]): the output's shape, and per operand axis its window size."""

    out_shape: tuple[int, ...]
    window: tuple[int, ...]  # per operand axis
    kept: tuple[int, ...]  # operand axes that are window axes of the output, increasing
    window_axes: tuple[int, ...]  # their output axes
    batch_axes: tuple[int, ...]  # the output axes of the indices' batch axes, in order
    index_map: tuple[int, ...]
    operand_batching: tuple[int, ...]
    index_batching: tuple[int, ...]


def _layout(
    where: str,
    operand_shape: tuple[int, ...],
    index_shape: tuple[int, ...],
    window_axes: tuple[int, ...],
    dropped: tuple[int, ...],
    index_map: tuple[int, ...],
    operand_batching: tuple[int, ...],
    index_batching: tuple[int, ...],
    full_window: Callable[[tuple[int, ...], int], tuple[int, ...]],
) -> _Layout:
    def fail(what: str) -> DimensionNumbersError:
        return DimensionNumbersError(f"{where}: {what}")

    rank = len(operand_shape)
    if not index_shape:
        raise fail("the indices must have at least one axis, the index vector (last)")
    batch_shape, k = index_shape[:-1], index_shape[-1]
    if len(index_map) != k:
        raise fail(
            f"the index vectors have {k} entries (the indices' last axis) but the dimension "
            f"numbers map {len(index_map)} operand axes; give one operand axis per entry"
        )
    for name, axes in (("index map", index_map), ("dropped", dropped)):
        if any(not 0 <= a < rank for a in axes) or len(set(axes)) != len(axes):
            raise fail(f"the {name} axes {axes} must be distinct axes of the operand (rank {rank})")
    if len(operand_batching) != len(index_batching):
        raise fail(
            f"operand batching dims {operand_batching} and index batching dims "
            f"{index_batching} must pair up (the same length)"
        )
    if set(operand_batching) & (set(dropped) | set(index_map)):
        raise fail("the operand batching dims must not be collapsed or indexed axes")
    for a, b in zip(operand_batching, index_batching, strict=True):
        if not 0 <= b < len(batch_shape) or operand_shape[a] != batch_shape[b]:
            raise fail(
                f"operand batching axis {a} (size {operand_shape[a]}) must pair with a batch "
                f"axis of the indices of the same size, got axis {b} of {index_shape}"
            )
    kept = tuple(a for a in range(rank) if a not in dropped and a not in operand_batching)
    if len(window_axes) != len(kept) or list(window_axes) != sorted(set(window_axes)):
        raise fail(
            f"the window (offset) axes {window_axes} must be increasing, one per operand axis "
            f"that is neither collapsed nor batching ({len(kept)})"
        )
    out_rank = len(batch_shape) + len(kept)
    if any(not 0 <= a < out_rank for a in window_axes):
        raise fail(f"the window axes {window_axes} must be axes of a rank-{out_rank} result")
    batch_axes = tuple(a for a in range(out_rank) if a not in window_axes)
    window = full_window(kept, out_rank)
    for a in range(rank):
        if not 0 <= window[a] <= operand_shape[a]:
            raise fail(
                f"the window size {window[a]} on operand axis {a} does not fit its size "
                f"{operand_shape[a]}"
            )
        if (a in dropped or a in operand_batching) and window[a] != 1:
            raise fail(
                f"collapsed and batching axes need a window of size 1, axis {a} has {window[a]}"
            )
    out = [0] * out_rank
    for a, n in zip(batch_axes, batch_shape, strict=True):
        out[a] = n
    for a, d in zip(window_axes, kept, strict=True):
        out[a] = window[d]
    return _Layout(
        tuple(out),
        window,
        kept,
        tuple(window_axes),
        batch_axes,
        index_map,
        operand_batching,
        index_batching,
    )


def _placed(values: Any, axes: Sequence[int], out_rank: int) -> Any:
    """``values`` (its axes in order) with size-1 axes added so that its axes sit at
    ``axes`` of a rank-``out_rank`` array."""
    missing = tuple(a for a in range(out_rank) if a not in axes)
    return fnp.expand_dims(values, missing) if missing else values


def _positions(
    operand_shape: tuple[int, ...], indices: Any, lay: _Layout, clamp: bool
) -> tuple[Any, Any]:
    """(flat positions, in-bounds mask or ``None``), both broadcastable to the output
    (NOTE [gather and scatter as flat positions]).  The starts are clamped; the mask says
    which windows fit before clamping (``None`` when ``clamp`` asks for none)."""
    out_rank = len(lay.out_shape)
    strides = numpy.cumprod((1, *operand_shape[::-1]))[:-1][::-1].tolist()
    traced = not _on_host(indices)
    idx = (
        fnp.asarray(indices).astype(numpy.int64) if traced else numpy.asarray(indices, numpy.int64)
    )

    def dev(v: Any) -> Any:
        return _on(idx, v) if traced else v

    pos: Any = dev(numpy.zeros((1,) * out_rank, numpy.int64))
    ok: Any = None
    for k, axis in enumerate(lay.index_map):
        start = idx[..., k]
        high = operand_shape[axis] - lay.window[axis]
        if not clamp:
            fits = (start >= 0) & (start <= high)
            ok = fits if ok is None else ok & fits
        start = fnp.clip(start, 0, high) if traced else numpy.clip(start, 0, high)
        pos = pos + _placed(start * strides[axis], lay.batch_axes, out_rank)
    for a, b in zip(lay.operand_batching, lay.index_batching, strict=True):
        line = numpy.arange(operand_shape[a], dtype=numpy.int64) * strides[a]
        shape = [1] * out_rank
        shape[lay.batch_axes[b]] = operand_shape[a]
        pos = pos + dev(line.reshape(shape))
    for axis, out_axis in zip(lay.kept, lay.window_axes, strict=True):
        shape = [1] * out_rank
        shape[out_axis] = lay.window[axis]
        line = numpy.arange(lay.window[axis], dtype=numpy.int64) * strides[axis]
        pos = pos + dev(line.reshape(shape))
    if ok is not None:
        ok = _placed(ok, lay.batch_axes, out_rank)
    return pos, ok


class _Indexing(NamedTuple):
    """A gather/scatter as NumPy indexing of the operand with some axes moved last
    (NOTE [gather and scatter as flat positions]): ``x.transpose(order)[index]`` has the
    indices' batch axes, then the windows of the indexed axes, then the axes the windows
    take whole (slices); ``to_out`` permutes that to the output's layout."""

    order: tuple[int, ...]
    index: tuple[Any, ...]
    to_out: tuple[int, ...]
    ok: Any  # the windows that fit, in the output's layout (None: all, or clamped)


def _indexing(operand_shape: tuple[int, ...], indices: Any, lay: _Layout, clamp: bool) -> _Indexing:
    out_rank = len(lay.out_shape)
    nb = len(lay.batch_axes)
    whole = [d for d in lay.kept if lay.window[d] == operand_shape[d] and d not in lay.index_map]
    picked = [d for d in range(len(operand_shape)) if d not in whole]
    windowed = [d for d in lay.kept if d not in whole]
    rank = nb + len(windowed)
    batch_shape = tuple(lay.out_shape[a] for a in lay.batch_axes)
    adv_shape = batch_shape + tuple(lay.window[d] for d in windowed)
    traced = not _on_host(indices)
    idx = (
        fnp.asarray(indices).astype(numpy.int64) if traced else numpy.asarray(indices, numpy.int64)
    )

    def dev(v: Any) -> Any:
        return _on(idx, v) if traced else v

    tail = (1,) * len(windowed)
    terms: dict[int, Any] = {}
    ok: Any = None
    for k, d in enumerate(lay.index_map):
        start, high = idx[..., k], operand_shape[d] - lay.window[d]
        if not clamp:
            fits = (start >= 0) & (start <= high)
            ok = fits if ok is None else ok & fits
        start = fnp.clip(start, 0, high) if traced else numpy.clip(start, 0, high)
        terms[d] = (
            fnp.reshape(start, batch_shape + tail) if traced else start.reshape(batch_shape + tail)
        )
    for d, b in zip(lay.operand_batching, lay.index_batching, strict=True):
        shape = [1] * rank
        shape[b] = operand_shape[d]
        terms[d] = dev(numpy.arange(operand_shape[d], dtype=numpy.int64).reshape(shape))
    for j, d in enumerate(windowed):
        shape = [1] * rank
        shape[nb + j] = lay.window[d]
        line = dev(numpy.arange(lay.window[d], dtype=numpy.int64).reshape(shape))
        terms[d] = terms[d] + line if d in terms else line
    index = [terms.get(d, dev(numpy.zeros((1,) * rank, numpy.int64))) for d in picked]
    if index:  # one array of the full shape, for the axes no index array varies along
        index[0] = fnp.broadcast_to(index[0], adv_shape)
    positions = [*lay.batch_axes, *(lay.window_axes[lay.kept.index(d)] for d in windowed)]
    positions += [lay.window_axes[lay.kept.index(d)] for d in whole]
    if ok is not None:
        ok = _placed(ok, lay.batch_axes, out_rank)
    return _Indexing(
        tuple(picked + whole), tuple(index), tuple(numpy.argsort(positions).tolist()), ok
    )


def _take_windows(x: Any, ix: _Indexing, lay: _Layout) -> Any:
    xt = fnp.transpose(x, ix.order)
    if ix.index:
        taken = fnp.getitem(xt, ix.index)
    else:  # every axis taken whole: the batch axes are new
        rank = len(lay.out_shape) - xt.ndim
        batch = tuple(lay.out_shape[a] for a in lay.batch_axes)
        taken = fnp.broadcast_to(
            fnp.reshape(xt, (1,) * rank + tuple(xt.shape)), batch + tuple(xt.shape)
        )
    return fnp.transpose(taken, ix.to_out)


def _on(like: Any, v: Any) -> Any:
    """The NumPy constant ``v`` on ``like``'s backend (itself for NumPy)."""
    xp = xp_of(like)
    return v if xp is numpy else xp.asarray(v)


def _on_host(v: Any) -> bool:
    """Whether ``v`` is concrete NumPy data (else a tracer or a device array, which take
    the path written with ``ftransforms.numpy``)."""
    return v is None or isinstance(v, (numpy.ndarray, numpy.generic, list, tuple, int))


def gather(
    operand: Any,
    start_indices: Any,
    dimension_numbers: Any,
    slice_sizes: Sequence[int],
    *,
    unique_indices: bool = False,
    indices_are_sorted: bool = False,
    mode: Any = None,
    fill_value: Any = None,
) -> Any:
    """Windows of ``operand`` of ``slice_sizes`` starting at the index vectors in the last
    axis of ``start_indices``, laid out by ``dimension_numbers``
    (:class:`GatherDimensionNumbers`) (``jax.lax.gather``).  ``mode``: ``None`` and
    ``"promise_in_bounds"``/``"clip"`` clamp the starts, ``"fill"`` gives windows that do not
    fit ``fill_value`` (NaN, the integer minimum (maximum if unsigned) or ``True`` by
    default).  Differentiable in ``operand``; ``vmap`` batches operand and indices.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import lax
        >>> dn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(),
        ...                                 start_index_map=(0,))
        >>> x = np.arange(6.0)
        >>> lax.gather(x, np.array([[1], [5]]), dn, (2,)).tolist()  # 5 is clamped to 4
        [[1.0, 2.0], [4.0, 5.0]]
        >>> lax.gather(x, np.array([[5]]), dn, (2,), mode="fill").tolist()
        [[nan, nan]]
        >>> ft.grad(lambda x: lax.gather(x, np.array([[0], [1]]), dn, (2,)).sum())(x)
        array([1., 2., 1., 0., 0., 0.])
    """
    where = "lax.gather(operand, start_indices, dimension_numbers, slice_sizes)"
    x = fnp.asarray(operand)
    dn = dimension_numbers
    sizes = _ints(slice_sizes)
    if len(sizes) != x.ndim:
        raise DimensionNumbersError(
            f"{where}: slice_sizes {sizes} needs one size per axis of the operand (shape {x.shape})"
        )
    lay = _layout(
        where,
        tuple(x.shape),
        tuple(fnp.shape(start_indices)),
        _ints(dn.offset_dims),
        _ints(dn.collapsed_slice_dims),
        _ints(dn.start_index_map),
        _ints(getattr(dn, "operand_batching_dims", ())),
        _ints(getattr(dn, "start_indices_batching_dims", ())),
        lambda kept, out_rank: sizes,
    )
    m = GatherScatterMode.from_any(GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else mode)
    if m is GatherScatterMode.ONE_HOT:
        raise UnsupportedOperationError(f"{where}: mode='one_hot' is not supported; use 'clip'")
    fill = m is GatherScatterMode.FILL_OR_DROP
    ix = _indexing(tuple(x.shape), start_indices, lay, clamp=not fill)
    if x.size == 0 or 0 in lay.out_shape:
        return fnp.zeros(lay.out_shape, x.dtype)
    out = _take_windows(x, ix, lay)
    ok = ix.ok
    if fill and ok is not None:
        value = default_fill(x.dtype) if fill_value is None else fill_value
        out = fnp.where(_on(x, ok), out, fnp.full_like(out, value))
    return out


def index_take(src: Any, idxs: Sequence[Any], axes: Sequence[int]) -> Any:
    """``src`` at the index arrays ``idxs`` (one 1-d array per axis of ``axes``, wrapped
    modulo the axis' size): the indexed axes become one leading axis
    (``jax.lax.index_take``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> x = np.arange(12).reshape(3, 4)
        >>> lax.index_take(x, (np.array([0, 2]), np.array([1, -1])), (0, 1)).tolist()
        [1, 11]
    """
    x = fnp.asarray(src)
    axes = _ints(axes)
    sizes = numpy.array([x.shape[a] for a in axes], dtype=numpy.int64)
    indices = fnp.stack([fnp.asarray(i) for i in idxs], axis=1) % sizes
    slice_sizes = [1 if a in axes else n for a, n in enumerate(x.shape)]
    dn = GatherDimensionNumbers(tuple(range(1, x.ndim - len(axes) + 1)), axes, axes)
    return gather(x, indices, dn, slice_sizes)


# -- scatter ------------------------------------------------------------------------------


def _scatter_layout(where: str, x: Any, indices: Any, updates: Any, dn: Any) -> _Layout:
    u_shape = tuple(fnp.shape(updates))
    window_axes = _ints(dn.update_window_dims)

    def full_window(kept: tuple[int, ...], out_rank: int) -> tuple[int, ...]:
        if len(u_shape) != out_rank:
            raise DimensionNumbersError(
                f"{where}: the updates must have rank {out_rank} (the indices' batch axes and "
                f"{len(kept)} window axes), got shape {u_shape}"
            )
        return tuple(u_shape[window_axes[kept.index(a)]] if a in kept else 1 for a in range(x.ndim))

    lay = _layout(
        where,
        tuple(x.shape),
        tuple(fnp.shape(indices)),
        window_axes,
        _ints(dn.inserted_window_dims),
        _ints(dn.scatter_dims_to_operand_dims),
        _ints(getattr(dn, "operand_batching_dims", ())),
        _ints(getattr(dn, "scatter_indices_batching_dims", ())),
        full_window,
    )
    if lay.out_shape != u_shape:
        raise DimensionNumbersError(
            f"{where}: the updates must have shape {lay.out_shape} (the indices' batch axes "
            f"and the window axes {window_axes}), got {u_shape}"
        )
    return lay


def _scatter(
    where: str,
    kind: str,
    operand: Any,
    scatter_indices: Any,
    updates: Any,
    dimension_numbers: Any,
    mode: Any,
) -> Any:
    x = fnp.asarray(operand)
    u = fnp.asarray(updates)
    lay = _scatter_layout(where, x, scatter_indices, u, dimension_numbers)
    m = GatherScatterMode.from_any(mode)
    if m is GatherScatterMode.ONE_HOT:
        raise UnsupportedOperationError(f"{where}: mode='one_hot' is not supported; use 'clip'")
    clamp = m is GatherScatterMode.CLIP
    if x.size == 0 or u.size == 0:
        return x
    u = u.astype(x.dtype)
    if kind == "add":  # repeated positions add up: NumPy's indexing as it is
        ix = _indexing(tuple(x.shape), scatter_indices, lay, clamp)
        if ix.index:
            if ix.ok is not None:
                u = fnp.where(_on(x, ix.ok), u, fnp.zeros_like(u))
            xt = fnp.transpose(x, ix.order)
            ut = fnp.transpose(u, numpy.argsort(ix.to_out).tolist())
            xt = fnp.at(xt)[ix.index].add(ut)
            return fnp.transpose(xt, numpy.argsort(ix.order).tolist())
    pos, ok = _positions(tuple(x.shape), scatter_indices, lay, clamp)
    flat = fnp.reshape(x, (-1,))
    pos = fnp.broadcast_to(pos, u.shape).reshape(-1)
    vals = fnp.reshape(u, (-1,))
    ok = None if ok is None else fnp.broadcast_to(ok, u.shape).reshape(-1)
    if not (_on_host(pos) and _on_host(ok)):
        out = _scatter_traced(kind, flat, pos, vals, ok)
    else:
        out = _scatter_concrete(kind, flat, numpy.asarray(pos), vals, ok)
    return fnp.reshape(out, x.shape)


def _scatter_concrete(kind: str, flat: Any, pos: numpy.ndarray, vals: Any, ok: Any) -> Any:
    """The update at concrete positions: dropped windows left out, then NumPy's
    ``.at[]`` (``set`` keeps the last of repeated positions, as JAX on CPU)."""
    sel = numpy.arange(pos.size) if ok is None else numpy.flatnonzero(numpy.asarray(ok))
    if kind == "set":
        p = pos[sel]
        # the last occurrence of each position wins
        _, last_from_end = numpy.unique(p[::-1], return_index=True)
        sel = sel[numpy.sort(p.size - 1 - last_from_end)]
    p, v = pos[sel], fnp.getitem(vals, sel)
    if kind == "set" and not isinstance(flat, Tracer) and not isinstance(v, Tracer):
        out = flat.copy()  # plain arrays, unique positions: NumPy's (CuPy's) assignment
        out[_on(flat, p)] = v
        return out
    at = fnp.at(flat)[p]
    return {
        "set": at.set,
        "add": at.add,
        "mul": at.multiply,
        "min": at.min,
        "max": at.max,
    }[kind](v)


def _scatter_traced(kind: str, flat: Any, pos: Any, vals: Any, ok: Any) -> Any:
    """The update at traced positions (NOTE [gather and scatter as flat positions])."""
    n = flat.shape[0]
    if kind == "add":
        return fnp.at(flat)[pos].add(vals if ok is None else fnp.where(ok, vals, 0))
    key = pos if ok is None else fnp.where(ok, pos, n)  # dropped updates sort last
    if kind == "mul":  # the product of each run of equal positions: a segmented scan
        order = fnp.argsort(key, kind="stable")
        sp, sv = fnp.getitem(key, order), fnp.getitem(vals, order)
        step = 1
        while step < sp.shape[0]:  # after it, each entry holds its run's product so far
            same = fnp.concatenate([_on(sp, numpy.zeros(step, bool)), sp[step:] == sp[:-step]])
            before = fnp.concatenate([fnp.ones_like(sv[:step]), sv[:-step]])
            sv = sv * fnp.where(same, before, fnp.ones_like(sv))
            step *= 2
        keep = fnp.concatenate([sp[1:] != sp[:-1], _on(sp, numpy.array([True]))])
        order = None
    elif kind == "set":
        order = fnp.argsort(key, kind="stable")
        sp = fnp.getitem(key, order)
        keep = fnp.concatenate([sp[1:] != sp[:-1], _on(sp, numpy.array([True]))])
    else:  # min/max: by position, then the extreme value first
        v_key = vals if kind == "min" else _descending(vals)
        order = fnp.argsort(v_key, kind="stable")
        order = fnp.getitem(order, fnp.argsort(fnp.getitem(key, order), kind="stable"))
        sp = fnp.getitem(key, order)
        keep = fnp.concatenate([_on(sp, numpy.array([True])), sp[1:] != sp[:-1]])
    keep = keep & (sp < n)
    if order is not None:
        sv = fnp.getitem(vals, order)
    sp = fnp.where(keep, sp, 0)
    if kind != "set":
        combine = {"min": fnp.minimum, "max": fnp.maximum, "mul": fnp.multiply}[kind]
        sv = combine(fnp.getitem(flat, sp), sv)
    hits = fnp.at(_on(sp, numpy.zeros(n, numpy.int64)))[sp].add(keep.astype(numpy.int64))
    written = fnp.at(fnp.zeros_like(flat))[sp].add(fnp.where(keep, sv, fnp.zeros_like(sv)))
    return fnp.where(hits > 0, written, flat)


def _descending(x: Any) -> Any:
    return fnp.invert(x) if numpy.dtype(x.dtype).kind in "iu" else fnp.negative(x)


def scatter(
    operand: Any,
    scatter_indices: Any,
    updates: Any,
    dimension_numbers: Any,
    *,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    mode: Any = None,
) -> Any:
    """``operand`` with the windows at the index vectors of ``scatter_indices`` replaced by
    ``updates``; of repeated positions the last update wins, as in JAX on CPU
    (``jax.lax.scatter``).  ``dimension_numbers`` is a :class:`ScatterDimensionNumbers`;
    ``mode``: ``None``/``"fill"``/``"drop"``/``"promise_in_bounds"`` leave out the windows
    that do not fit, ``"clip"`` clamps their starts.  Differentiable in ``operand`` and
    ``updates``; ``vmap`` batches all three.

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
        ...                                  scatter_dims_to_operand_dims=(0,))
        >>> lax.scatter(np.zeros(4), np.array([[1], [9]]), np.array([5.0, 6.0]), dn).tolist()
        [0.0, 5.0, 0.0, 0.0]
    """
    return _scatter(
        "lax.scatter(operand, scatter_indices, updates, dimension_numbers)",
        "set",
        operand,
        scatter_indices,
        updates,
        dimension_numbers,
        mode,
    )


def scatter_add(
    operand: Any,
    scatter_indices: Any,
    updates: Any,
    dimension_numbers: Any,
    *,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    mode: Any = None,
) -> Any:
    """``operand`` with ``updates`` added at the windows of ``scatter_indices`` (repeated
    positions add up) (``jax.lax.scatter_add``); dimension numbers and modes as
    :func:`scatter`.

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> dn = lax.ScatterDimensionNumbers((), (0,), (0,))
        >>> lax.scatter_add(np.zeros(3), np.array([[0], [2], [0]]), np.ones(3), dn).tolist()
        [2.0, 0.0, 1.0]
    """
    return _scatter(
        "lax.scatter_add(operand, scatter_indices, updates, dimension_numbers)",
        "add",
        operand,
        scatter_indices,
        updates,
        dimension_numbers,
        mode,
    )


def scatter_sub(
    operand: Any,
    scatter_indices: Any,
    updates: Any,
    dimension_numbers: Any,
    *,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    mode: Any = None,
) -> Any:
    """``operand`` with ``updates`` subtracted at the windows of ``scatter_indices``
    (``jax.lax.scatter_sub``); dimension numbers and modes as :func:`scatter`.

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> dn = lax.ScatterDimensionNumbers((), (0,), (0,))
        >>> lax.scatter_sub(np.zeros(3), np.array([[1]]), np.array([2.0]), dn).tolist()
        [0.0, -2.0, 0.0]
    """
    return _scatter(
        "lax.scatter_sub(operand, scatter_indices, updates, dimension_numbers)",
        "add",
        operand,
        scatter_indices,
        fnp.negative(updates),
        dimension_numbers,
        mode,
    )


def scatter_mul(
    operand: Any,
    scatter_indices: Any,
    updates: Any,
    dimension_numbers: Any,
    *,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    mode: Any = None,
) -> Any:
    """``operand`` multiplied by ``updates`` at the windows of ``scatter_indices``
    (repeated positions multiply in turn) (``jax.lax.scatter_mul``); dimension numbers
    and modes as :func:`scatter`.

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> dn = lax.ScatterDimensionNumbers((), (0,), (0,))
        >>> lax.scatter_mul(np.ones(3), np.array([[1], [1]]), np.array([2.0, 3.0]), dn).tolist()
        [1.0, 6.0, 1.0]
    """
    return _scatter(
        "lax.scatter_mul(operand, scatter_indices, updates, dimension_numbers)",
        "mul",
        operand,
        scatter_indices,
        updates,
        dimension_numbers,
        mode,
    )


def scatter_min(
    operand: Any,
    scatter_indices: Any,
    updates: Any,
    dimension_numbers: Any,
    *,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    mode: Any = None,
) -> Any:
    """``operand`` with the minimum of it and ``updates`` at the windows of
    ``scatter_indices`` (``jax.lax.scatter_min``); dimension numbers and modes as
    :func:`scatter`.

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> dn = lax.ScatterDimensionNumbers((), (0,), (0,))
        >>> lax.scatter_min(np.ones(2), np.array([[0], [0]]), np.array([3.0, -1.0]), dn).tolist()
        [-1.0, 1.0]
    """
    return _scatter(
        "lax.scatter_min(operand, scatter_indices, updates, dimension_numbers)",
        "min",
        operand,
        scatter_indices,
        updates,
        dimension_numbers,
        mode,
    )


def scatter_max(
    operand: Any,
    scatter_indices: Any,
    updates: Any,
    dimension_numbers: Any,
    *,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    mode: Any = None,
) -> Any:
    """``operand`` with the maximum of it and ``updates`` at the windows of
    ``scatter_indices`` (``jax.lax.scatter_max``); dimension numbers and modes as
    :func:`scatter`.

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> dn = lax.ScatterDimensionNumbers((), (0,), (0,))
        >>> lax.scatter_max(np.ones(2), np.array([[1], [1]]), np.array([3.0, 5.0]), dn).tolist()
        [1.0, 5.0]
    """
    return _scatter(
        "lax.scatter_max(operand, scatter_indices, updates, dimension_numbers)",
        "max",
        operand,
        scatter_indices,
        updates,
        dimension_numbers,
        mode,
    )


def scatter_apply(
    operand: Any,
    scatter_indices: Any,
    func: Callable[[Any], Any],
    dimension_numbers: Any,
    *,
    update_shape: Sequence[int] = (),
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    mode: Any = None,
) -> Any:
    """``operand`` with the elementwise ``func`` applied at the windows of
    ``scatter_indices`` (of shape ``update_shape``), once per occurrence of a position
    (``jax.lax.scatter_apply``); dimension numbers and modes as :func:`scatter`.

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> dn = lax.ScatterDimensionNumbers((), (0,), (0,))
        >>> lax.scatter_apply(np.arange(3.0), np.array([[2], [0], [2]]), lambda v: v * 10, dn,
        ...                   update_shape=(3,)).tolist()
        [0.0, 1.0, 200.0]
    """
    where = "lax.scatter_apply(operand, scatter_indices, func, dimension_numbers)"
    x = fnp.asarray(operand)
    shape = tuple(_ints(update_shape))
    template = numpy.zeros(shape, numpy.int64)
    lay = _scatter_layout(where, x, scatter_indices, template, dimension_numbers)
    m = GatherScatterMode.from_any(mode)
    pos, ok = _positions(tuple(x.shape), scatter_indices, lay, clamp=m is GatherScatterMode.CLIP)
    if x.size == 0 or template.size == 0:
        return x
    pos = fnp.broadcast_to(pos, shape).reshape(-1)
    ok = None if ok is None else fnp.broadcast_to(ok, shape).reshape(-1)
    flat = fnp.reshape(x, (-1,))
    if not (_on_host(pos) and _on_host(ok)):
        # a traced position that repeats is applied once
        return fnp.reshape(
            _scatter_traced("set", flat, pos, func(fnp.getitem(flat, pos)), ok), x.shape
        )
    pos = numpy.asarray(pos) if ok is None else numpy.asarray(pos)[numpy.asarray(ok)]
    counts = numpy.bincount(pos, minlength=flat.shape[0])
    for k in range(int(counts.max(initial=0))):
        hit = numpy.flatnonzero(counts > k)
        flat = fnp.at(flat)[hit].set(func(fnp.getitem(flat, hit)))
    return fnp.reshape(flat, x.shape)


__all__ = [
    "GatherDimensionNumbers",
    "GatherScatterMode",
    "ScatterDimensionNumbers",
    "gather",
    "index_take",
    "scatter",
    "scatter_add",
    "scatter_apply",
    "scatter_max",
    "scatter_min",
    "scatter_mul",
    "scatter_sub",
]
