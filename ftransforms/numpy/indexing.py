"""Indexing: ``x[index]`` (basic slicing, integer and boolean arrays), functional updates
(``x.at[i].set(v)``), ``take``/``take_along_axis``, ``where``/``nonzero``/``select``,
index builders and the in-place inserters that raise (NumPy's "Indexing routines").
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Sequence
from typing import Any

import numpy

import ftransforms.numpy.helpers as helpers
from ftransforms.backend import is_array
from ftransforms.core.errors import (
    BatchedControlFlowError,
    InPlaceError,
    UnsupportedOperationError,
)
from ftransforms.core.index_spec import (
    bool_to_int_arrays,
    build_index,
    index_arrays_on,
    normalize_index,
)
from ftransforms.core.mutation import Buffer, make_view, read_only
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.creation import as_operand, full, ones_like, zeros_like
from ftransforms.numpy.dispatch import implements
from ftransforms.numpy.dtypes import result_type
from ftransforms.numpy.helpers import (
    INTP,
    array_like,
    dtype_of,
    holds_tracer,
    ndim,
    normalize_axis,
    peek,
    refuse_in_place,
    shape,
    size,
    to_host,
    xp_of,
)
from ftransforms.numpy.manipulation import (
    broadcast_arrays,
    broadcast_to,
    concatenate,
    moveaxis,
    ravel,
    reshape,
    stack,
)
from ftransforms.numpy.ufuncs import (
    astype,
    clip,
    divide,
    floor_divide,
    maximum,
    minimum,
    multiply,
    negative,
    not_equal,
    power,
    remainder,
    stop_gradient,
)
from ftransforms.ops import elementwise as _ew
from ftransforms.ops import indexing as _ix

__all__ = [
    "sliding_window_view",
    "where",
    "normalize_index",
    "getitem",
    "IndexUpdateHelper",
    "at",
    "physical_zeros_like",
    "take_along_axis",
    "take",
    "nonzero",
    "put",
    "putmask",
    "place",
    "fill_diagonal",
    "put_along_axis",
    "diagonal",
    "select",
    "add_at",
    "diag_indices_from",
    "tril_indices_from",
    "triu_indices_from",
    "ravel_multi_index",
    "unravel_index",
    "choose",
    "compress",
    "extract",
]


@implements(numpy.where)
def where(
    condition: Any,
    x: Any = None,
    y: Any = None,
    *,
    size: int | None = None,
    fill_value: Any = None,
) -> Any:
    """``numpy.where(condition, x, y)``: ``x`` where ``condition`` holds, else ``y``
    (broadcast together); the derivative flows to the branch taken.  The one-argument form
    is :func:`nonzero` (with ``jax.numpy``'s ``size=``/``fill_value=``); giving only one of
    ``x``, ``y`` raises ``ValueError``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> x = np.array([-2.0, 0.5, 3.0])
        >>> fnp.where(x > 0, x, 0.0).tolist()
        [0.0, 0.5, 3.0]
        >>> ft.grad(lambda x: fnp.sum(fnp.where(x > 0, x ** 2, x)))(x)  # 1 or 2 x
        array([1., 1., 6.])
    """
    if x is None and y is None:
        return nonzero(condition, size=size, fill_value=fill_value)
    if x is None or y is None:
        raise ValueError("where: give both x and y, or neither")
    return _ew.select_p.bind(condition, x, y)


def getitem(x: Any, index: Any) -> Any:
    """``x[index]`` as a function: basic slicing, integer arrays and boolean masks, with NumPy's
    rules (the derivative of a gather adds up at repeated indices).  A boolean mask batched
    by ``vmap`` raises :class:`~ftransforms.errors.BatchedControlFlowError` (the result's
    size would vary).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> x = np.arange(6.0).reshape(2, 3)
        >>> fnp.getitem(x, (slice(None), 1)).tolist(), fnp.getitem(x, x > 3).tolist()
        ([1.0, 4.0], [4.0, 5.0])
        >>> ft.grad(lambda x: fnp.sum(fnp.getitem(x, np.array([0, 0, 2]))))(np.zeros(3))
        array([2., 0., 1.])
    """
    spec, arrays = normalize_index(_concrete_bounds(traced_sequences(index)), ndim(x))
    return _ix.getitem_p.bind(x, *index_arrays_on(x, arrays), index=spec)


def traced_sequences(index: Any) -> Any:
    """``index`` with each list or tuple of indices that holds a traced integer (``[k, p]``
    with ``p = np.argmax(...)``, as row swaps with pivoting write) as one traced index
    array, as NumPy makes an array of such a list: a plain index is returned as it is."""
    t = type(index)
    if t is list:
        return array_like(index) if holds_tracer(index) else index
    if t is tuple and builtins.any(type(e) is list or type(e) is tuple for e in index):
        return tuple(
            array_like(e) if (type(e) is list or type(e) is tuple) and holds_tracer(e) else e
            for e in index
        )
    return index


def _batched(t: Any) -> bool:
    """Whether the tracer ``t`` has a vmap batch axis (its physical array has more axes)."""
    return len(helpers.shape(helpers.physical(t))) != ndim(t)  # (numpy.ndim: a host call)


def _concrete_bounds(index: Any) -> Any:
    """``index`` with a batched boolean mask replaced by its ``nonzero()`` arrays (batched
    where the rows' counts agree) and traced slice bounds by Python ints (under vmap the
    rows that disagree split the batch: NOTE [splitting the batch], ftransforms/split.py)."""
    entries = index if type(index) is tuple else (index,)
    for e in entries:
        if isinstance(e, slice) or (isinstance(e, Tracer) and dtype_of(e).kind == "b"):
            break
    else:
        return index
    out: list = []
    for e in entries:
        if isinstance(e, Tracer) and dtype_of(e).kind == "b" and _batched(e):
            out.extend(_batched_nonzero(e, "x[mask]"))
        elif isinstance(e, slice) and any(isinstance(b, Tracer) for b in _bounds(e)):
            out.append(slice(*(b.__index__() if isinstance(b, Tracer) else b for b in _bounds(e))))
        else:
            out.append(e)
    return tuple(out)


def _bounds(s: slice) -> tuple:
    return s.start, s.stop, s.step


def scatter(x: Any, index: Any, values: Any) -> Any:
    """Zeros shaped like ``x`` with ``values`` added at ``index`` (duplicates add up)."""
    spec, arrays = normalize_index(index, ndim(x))
    arrays = index_arrays_on(x, arrays)
    target = shape(_ix.getitem_p.bind(zeros_like(x), *arrays, index=spec))
    if not isinstance(values, Tracer):
        values = xp_of(x).asarray(values, dtype=dtype_of(x))  # on x's backend, not NumPy's
    try:
        values = astype(broadcast_to(values, target), dtype_of(x))
    except ValueError:  # NumPy's words, with the shapes the user sees (not vmap's)
        raise ValueError(
            f"could not broadcast input array from shape {shape(values)} into shape {target}"
        ) from None
    return _ix.getitem_transpose_p.bind(values, *arrays, index=spec, shape=shape(x))


#: ``jax.numpy``'s out-of-bounds modes for ``x.at[i]`` (NOTE [out-of-bounds modes]).
_AT_MODES = (None, "promise_in_bounds", "clip", "fill", "drop")


def default_fill(dtype: Any) -> Any:
    """JAX's fill for out-of-bounds reads: NaN for inexact types, the most negative value
    for signed integers, the largest for unsigned ones, True for booleans."""
    dtype = numpy.dtype(dtype)
    if dtype.kind in "fc":
        return numpy.nan
    if dtype.kind == "i":
        return numpy.iinfo(dtype).min
    if dtype.kind == "u":
        return numpy.iinfo(dtype).max
    return True


def bounded_index(
    x: Any, index: Any, mode: str | None, fill: Any, wrap_negative: bool = True, what: str = ""
) -> tuple[Any, Any, tuple | None]:
    """NOTE [out-of-bounds modes]: ``jax.numpy``'s ``mode=`` for an index's integers.
    ``None``/``"promise_in_bounds"``: NumPy's rule (out of bounds raises ``IndexError``).
    ``"clip"``: each integer is clamped into its axis.  ``"fill"``/``"drop"``: ``x`` gets
    one more slot at the end of each axis an integer addresses, holding ``fill``, and an
    out-of-bounds integer points at it; a read there gives ``fill``, a write there is
    cut off afterwards with the returned ``trim`` (slices back to ``x``'s shape).  Plain
    gathers and scatters on the padded array, so every transform applies as usual.
    ``wrap_negative=False`` counts negative integers as out of bounds.  Returns
    ``(x, index, trim)``."""
    if mode not in _AT_MODES:
        raise ValueError(f"{what}: mode must be one of {_AT_MODES[1:]} or None, got {mode!r}")
    if mode in (None, "promise_in_bounds") and wrap_negative:
        return x, index, None
    spec, arrays = normalize_index(index, ndim(x))
    dims, axis, out, k = shape(x), 0, [], 0
    padded: list[int] = []
    for entry in spec:
        if entry is None:
            out.append(None)
            continue
        if isinstance(entry, slice):
            out.append(entry)
        else:
            n = dims[axis]
            low = -n if wrap_negative else 0
            clamp = mode in ("clip", None, "promise_in_bounds")
            if isinstance(entry, int):  # a Python integer: decided here
                i = entry + n if entry < 0 and wrap_negative else entry
                if clamp:
                    out.append(builtins.min(builtins.max(i, 0), n - 1))
                else:
                    out.append(i if low <= entry < n else n)
                    padded.append(axis)
            else:
                i = arrays[k]
                k += 1
                wrapped = where(i < 0, i + n, i) if wrap_negative else i
                if clamp:
                    out.append(clip(wrapped, 0, n - 1))
                else:
                    out.append(where((i >= low) & (i < n), wrapped, n))
                    padded.append(axis)
        axis += 1
    if not padded:
        return x, tuple(out), None
    for ax in padded:
        block = list(shape(x))
        block[ax] = 1
        x = concatenate([x, full(tuple(block), fill, dtype=dtype_of(x), like=x)], axis=ax)
    trim = tuple(slice(0, dims[a]) for a in range(len(dims)))
    return x, tuple(out), trim


class _IndexUpdate:
    def __init__(self, x: Any, index: Any) -> None:
        self.x, self.index = x, index

    def _update(self, how: Any, values: Any, mode: str | None, wrap: bool, name: str) -> Any:
        # "fill" is "drop" for a write, and so is NumPy's rule once negative indices count as
        # out of bounds (wrap_negative_indices=False: JAX drops such writes)
        if mode == "fill" or (mode in (None, "promise_in_bounds") and not wrap):
            mode = "drop"
        x, index, trim = bounded_index(self.x, self.index, mode, 0, wrap, f"x.at[...].{name}")
        out = how(x, index, values)
        return out if trim is None else getitem(out, trim)

    def get(
        self,
        *,
        mode: str | None = None,
        fill_value: Any = None,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        wrap_negative_indices: bool = True,
        out_sharding: Any = None,
    ) -> Any:
        """``x[index]``; ``jax.numpy``'s ``mode="fill"`` (or ``"drop"``) reads
        ``fill_value`` (default: NaN, or the dtype's extreme) at out-of-bounds indices,
        ``"clip"`` clamps them (NOTE [out-of-bounds modes])."""
        fill = default_fill(dtype_of(self.x)) if fill_value is None else fill_value
        mode = "fill" if mode == "drop" else mode
        x, index, _ = bounded_index(
            self.x, self.index, mode, fill, wrap_negative_indices, "x.at[...].get"
        )
        return getitem(x, index)

    def add(self, values: Any, **modes: Any) -> Any:
        """``x`` with ``values`` added at the index (repeated indices accumulate);
        ``mode="drop"`` drops out-of-bounds updates, ``"clip"`` clamps their indices."""
        mode, wrap = _at_modes(modes, "add")
        return self._update(lambda x, i, v: x + scatter(x, i, v), values, mode, wrap, "add")

    def set(self, values: Any, **modes: Any) -> Any:
        """``x`` with the indexed elements replaced by ``values`` (``mode=`` as in
        :meth:`add`)."""
        mode, wrap = _at_modes(modes, "set")
        return self._update(_set_at, values, mode, wrap, "set")

    def apply(self, func: Any, **modes: Any) -> Any:
        """``x`` with ``func`` applied to the indexed elements (``mode=`` as in
        :meth:`add`)."""
        # once per occurrence of a repeated index, as JAX's (and numpy.<ufunc>.at)
        return self._combine(0, lambda old, _: func(old), "apply", modes)

    def subtract(self, values: Any, **modes: Any) -> Any:
        """``x`` with ``values`` subtracted at the index (repeated indices accumulate)."""
        return self.add(negative(values), **modes)

    def multiply(self, values: Any, **modes: Any) -> Any:
        """``x`` with the indexed elements multiplied by ``values`` (repeats accumulate)."""
        return self._combine(values, multiply, "multiply", modes)

    mul = multiply  # JAX's other name

    def divide(self, values: Any, **modes: Any) -> Any:
        """``x`` with the indexed elements divided by ``values`` (repeats accumulate)."""
        return self._combine(values, divide, "divide", modes)

    def power(self, values: Any, **modes: Any) -> Any:
        """``x`` with the indexed elements raised to ``values`` (repeats accumulate)."""
        return self._combine(values, power, "power", modes)

    def min(self, values: Any, **modes: Any) -> Any:  # noqa: A003
        """``x`` with the indexed elements replaced by their minimum with ``values``."""
        return self._combine(values, minimum, "min", modes)

    def max(self, values: Any, **modes: Any) -> Any:  # noqa: A003
        """``x`` with the indexed elements replaced by their maximum with ``values``."""
        return self._combine(values, maximum, "max", modes)

    def _combine(self, values: Any, op: Any, name: str, modes: dict) -> Any:
        mode, wrap = _at_modes(modes, name)
        return self._update(lambda x, i, v: combine_at(x, i, v, op, name), values, mode, wrap, name)


def _set_at(x: Any, index: Any, values: Any) -> Any:
    hits = _hits(x, index)
    if (peek(hits) > 1).any():
        return _set_last_wins(x, index, values)
    return where(hits > 0, scatter(x, index, values), x)


def _set_last_wins(x: Any, index: Any, values: Any) -> Any:
    """``x.at[index].set(values)`` where ``index`` repeats positions: the last occurrence
    of each wins (JAX on CPU, NumPy's ``x[index] = values``, ``lax.scatter`` here), and only
    it gets a derivative."""
    target = getitem(x, index)
    flat_pos = _flat_positions(x, index, "set")
    _, last_from_end = numpy.unique(flat_pos[::-1], return_index=True)
    keep = numpy.sort(flat_pos.size - 1 - last_from_end)
    xp = xp_of(x)
    pos = xp.asarray(flat_pos[keep])
    values = broadcast_to(_on_backend_of(x, values), shape(target))
    kept = getitem(ravel(values), xp.asarray(keep))
    out = ravel(x)
    out = _set_unique(out, pos, astype(kept, dtype_of(x)), _hits(out, pos))
    return reshape(out, shape(x))


def _at_modes(modes: dict, name: str) -> tuple[str | None, bool]:
    """``mode`` and ``wrap_negative_indices`` of an update's keywords; JAX's performance
    hints (``indices_are_sorted``, ``unique_indices``, ``out_sharding``) are accepted."""
    unknown = set(modes) - {
        "mode",
        "wrap_negative_indices",
        "indices_are_sorted",
        "unique_indices",
        "out_sharding",
    }
    if unknown:
        raise TypeError(f"x.at[...].{name}() got unexpected keyword arguments {sorted(unknown)}")
    return modes.get("mode"), bool(modes.get("wrap_negative_indices", True))


class IndexUpdateHelper:
    """What ``x.at`` is on a tracer (and ``fnp.at(x)`` on any array): ``x.at[index]`` has
    ``.set(v)``, ``.add(v)``, ``.multiply(v)``, ``.divide(v)``, ``.power(v)``, ``.min(v)``,
    ``.max(v)`` and ``.get()``, each returning a new array, ``x`` with the indexed elements
    updated (functional, as arrays are immutable under transforms).  ``.add`` and the other
    combining updates (and ``.apply``) apply repeated indices once per occurrence; ``.set``
    keeps the last value written at a repeated index (as JAX on CPU and NumPy's
    ``x[index] = v``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> x = np.zeros(3)
        >>> fnp.IndexUpdateHelper(x)[np.array([0, 2, 0])].add(1.0).tolist(), x.tolist()
        ([2.0, 0.0, 1.0], [0.0, 0.0, 0.0])
        >>> ft.grad(lambda x: x.at[0].set(7.0).sum())(np.ones(3))  # x[0] is overwritten
        array([0., 1., 1.])
    """

    def __init__(self, x: Any) -> None:
        self.x = x

    def __getitem__(self, index: Any) -> _IndexUpdate:
        return _IndexUpdate(self.x, index)


def at(x: Any) -> IndexUpdateHelper:
    """Functional index updates of any array: ``fnp.at(a)[i].set(v)`` is a new array equal to
    ``a`` with ``a[i]`` replaced by ``v`` (also ``.add``, ``.multiply``, ``.min``, ``.max``,
    ``.get``), for NumPy and CuPy arrays and tracers alike (``t.at[i]`` on a tracer).
    ``a`` itself is left as it was.

    Example:
        >>> import numpy as np
        >>> from ftransforms import grad
        >>> a = np.zeros(3)
        >>> at(a)[1].set(5.0).tolist(), a.tolist()
        ([0.0, 5.0, 0.0], [0.0, 0.0, 0.0])
        >>> grad(lambda t: (at(a)[1].set(t) * np.arange(3.0)).sum())(2.0)
        array(1.)
    """
    return IndexUpdateHelper(x)


def physical_zeros_like(x: Any) -> Any:
    """Concrete int64 zeros shaped like ``x``, on ``x``'s backend (NumPy or CuPy): never a
    tracer, even when ``x`` is one (it then has ``x``'s per-example shape).  A template for
    index bookkeeping, such as counting how often an index hits each element.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> z = fnp.physical_zeros_like(np.ones((2, 3), dtype=np.float32))
        >>> z.tolist(), z.dtype == np.int64
        ([[0, 0, 0], [0, 0, 0]], True)
        >>> ft.vmap(lambda r: fnp.sum(r) + fnp.physical_zeros_like(r).size)(np.zeros((2, 3)))
        array([3., 3.])
    """
    return xp_of(x).zeros(shape(x), dtype=numpy.int64)


@implements(numpy.take_along_axis)
def take_along_axis(
    arr: Any, indices: Any, axis: int | None = -1, mode: str | None = None, fill_value: Any = None
) -> Any:
    """``numpy.take_along_axis``: ``arr`` gathered along ``axis`` at ``indices`` (as many
    dimensions as ``arr``; the other axes broadcast), e.g. to apply the result of
    :func:`argsort`; the derivative scatters back.  ``jax.numpy``'s ``mode="fill"`` reads
    ``fill_value`` (default NaN) at out-of-bounds indices, ``"clip"`` clamps them.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> x = np.array([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
        >>> fnp.take_along_axis(x, np.argsort(x, axis=1), axis=1).tolist()
        [[1.0, 2.0, 3.0], [0.0, 4.0, 5.0]]
        >>> ft.grad(lambda x: fnp.sum(fnp.take_along_axis(x, np.array([[2], [0]]), axis=1)))(x)
        array([[0., 0., 1.],
               [1., 0., 0.]])
    """
    if axis is None:
        arr, axis = ravel(arr), 0
    rank = ndim(arr)
    axis = normalize_axis(axis, rank)
    if ndim(indices) != rank:
        raise ValueError("take_along_axis: indices and arr must have the same number of dims")
    xp = xp_of(arr)
    index = []
    for i, n in enumerate(shape(arr)):
        if i == axis:
            index.append(indices)
        else:
            index.append(xp.arange(n).reshape((1,) * i + (n,) + (1,) * (rank - i - 1)))
    if mode in (None, "raise", "promise_in_bounds"):
        return getitem(arr, tuple(index))
    # jax.numpy's modes (NOTE [out-of-bounds modes]); only the gathered axis can be out
    fill = default_fill(dtype_of(arr)) if fill_value is None else fill_value
    arr, where_, _ = bounded_index(arr, tuple(index), mode, fill, True, "take_along_axis")
    return getitem(arr, where_)


@implements(numpy.take)
def take(
    a: Any,
    indices: Any,
    axis: int | None = None,
    out: Any = None,
    mode: str | None = "raise",
    unique_indices: bool = False,
    indices_are_sorted: bool = False,
    fill_value: Any = None,
) -> Any:
    """``numpy.take``: the elements at ``indices`` along ``axis`` (of the flattened array when
    ``axis`` is None); out-of-range indices raise ``IndexError`` (``mode='raise'``), are
    clipped to the ends (``'clip'``, negative ones to 0, as NumPy) or wrap (``'wrap'``);
    ``jax.numpy``'s ``'fill'`` reads ``fill_value`` there (default NaN, or the dtype's
    extreme) and its hints ``unique_indices``/``indices_are_sorted`` are accepted.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> x = np.array([[10, 20, 30], [40, 50, 60]])
        >>> fnp.take(x, np.array([0, 4])).tolist(), fnp.take(x, np.array([2, 0]), axis=1).tolist()
        ([10, 50], [[30, 10], [60, 40]])
        >>> ft.grad(lambda x: fnp.sum(fnp.take(x, np.array([1, 1, 0]))))(np.zeros(3))
        array([1., 2., 0.])
    """
    if out is not None:  # written as NumPy's out= is (NOTE [mutation semantics])
        from ftransforms.numpy.inplace import write_out  # noqa: PLC0415  late import: inplace builds on this module

        return write_out(
            "take(..., out=...)", out, take(a, indices, axis, None, mode, fill_value=fill_value)
        )
    if mode in (None, "promise_in_bounds"):
        mode = "raise"
    if mode not in ("raise", "clip", "wrap", "fill"):
        raise ValueError(
            f"clipmode must be one of 'clip', 'raise', 'wrap' or 'fill' (got {mode!r})"
        )
    if axis is None:
        a, axis = ravel(a), 0
    axis = normalize_axis(axis, ndim(a))
    if mode == "fill":  # jax.numpy's mode (NOTE [out-of-bounds modes])
        if isinstance(indices, (list, tuple)):
            indices = numpy.asarray(indices)
        fill = default_fill(dtype_of(a)) if fill_value is None else fill_value
        index = (slice(None),) * axis + (indices,)
        a, index, _ = bounded_index(a, index, "fill", fill, True, "take")
        return getitem(a, index)
    if mode != "raise":
        n = shape(a)[axis]
        if isinstance(indices, (list, tuple)):
            indices = numpy.asarray(indices)
        indices = clip(indices, 0, n - 1) if mode == "clip" else remainder(indices, n)
    return getitem(a, (slice(None),) * axis + (indices,))


@implements(numpy.nonzero)
def nonzero(x: Any, *, size: int | None = None, fill_value: Any = None) -> tuple[Any, ...]:
    """``numpy.nonzero``: the indices of the nonzero elements, one array per axis.  Their
    number depends on the values: under ``vmap`` rows with different counts are run apart
    (NOTE [splitting the batch]).  ``jax.numpy``'s ``size=`` gives exactly ``size`` indices
    per axis (the first ones), padded with ``fill_value`` (default 0; a tuple gives one per
    axis): a fixed shape, which ``vmap`` batches whole.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> [i.tolist() for i in fnp.nonzero(np.array([[0, 1], [2, 0]]))]
        [[0, 1], [1, 0]]
        >>> ft.grad(lambda x: fnp.sum(x[fnp.nonzero(x)] ** 2))(np.array([0.0, 3.0]))
        array([0., 6.])
        >>> [i.tolist() for i in fnp.nonzero(np.array([0, 5, 7]), size=3, fill_value=-1)]
        [[1, 2, -1]]
    """
    mask = x if dtype_of(x).kind == "b" else not_equal(x, 0)
    if size is not None:
        return _sized_nonzero(mask, size, fill_value)
    if isinstance(mask, Tracer) and ndim(mask) and _batched(mask):
        return _batched_nonzero(mask, "nonzero(a)")
    return tuple(bool_to_int_arrays(mask))


def _sized_nonzero(mask: Any, size: int, fill_value: Any) -> tuple[Any, ...]:
    from ftransforms.numpy.sorting import fill_slots, padded_true_positions  # noqa: PLC0415  late import: sorting imports this module

    if ndim(mask) == 0:
        raise ValueError("nonzero(a, size=...): a must have at least one dimension")
    positions, filled = padded_true_positions(ravel(mask), size)
    per_axis = unravel(positions, shape(mask))
    if isinstance(fill_value, tuple):
        if len(fill_value) != len(per_axis):
            raise ValueError(
                f"nonzero(a, size={size}, fill_value=...): a tuple fill_value needs one value "
                f"per axis of a ({len(per_axis)}), got {len(fill_value)}"
            )
        fills = fill_value
    else:
        fills = (fill_value,) * len(per_axis)
    return tuple(fill_slots(i, filled, f) for i, f in zip(per_axis, fills))


def _batched_nonzero(mask: Any, what: str) -> tuple[Any, ...]:
    """``nonzero`` of a boolean mask batched by vmap: the positions of each row's true
    elements, one batched result where the rows' counts agree (NOTE [splitting the
    batch], ftransforms/split.py)."""
    from ftransforms.numpy.sorting import true_positions  # late import: sorting imports us

    return unravel(true_positions(ravel(mask), what), shape(mask))


put = implements(numpy.put)(refuse_in_place("put"))
putmask = implements(numpy.putmask)(refuse_in_place("putmask"))
place = implements(numpy.place)(refuse_in_place("place"))
fill_diagonal = implements(numpy.fill_diagonal)(refuse_in_place("fill_diagonal"))
put_along_axis = implements(numpy.put_along_axis)(refuse_in_place("put_along_axis"))
put.__doc__ = """``numpy.put(a, ind, v)``: ``a.flat[ind] = v`` (values repeated as needed), written
into a traced ``a`` or an array made inside the function (NOTE [mutation semantics]).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> def f(r):
    ...     fnp.put(r, [0], [5.0])
    ...     return r
    >>> ft.vmap(f)(np.zeros((2, 3))).tolist()
    [[5.0, 0.0, 0.0], [5.0, 0.0, 0.0]]
"""
putmask.__doc__ = """``numpy.putmask(a, mask, values)``: ``a.flat[i] = values.flat[i % n]`` where
``mask`` is set (``n`` values), written into a traced ``a`` (NOTE [mutation semantics]).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> def f(r):
    ...     fnp.putmask(r, r > 1.5, 0.0)
    ...     return r
    >>> ft.vmap(f)(np.array([[1.0, 2.0, 3.0]])).tolist()
    [[1.0, 0.0, 0.0]]
"""
place.__doc__ = """``numpy.place(arr, mask, vals)``: the positions where ``mask`` is set get
``vals`` in order (repeated as needed), written into a traced ``arr``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> def f(r):
    ...     fnp.place(r, np.array([True, False, True]), [7.0, 8.0])
    ...     return r
    >>> ft.vmap(f)(np.ones((1, 3))).tolist()
    [[7.0, 1.0, 8.0]]
"""
fill_diagonal.__doc__ = """``numpy.fill_diagonal(a, val, wrap=False)``: the main diagonal of a
traced ``a`` set to ``val`` in place (NOTE [mutation semantics]).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> def f(m):
    ...     fnp.fill_diagonal(m, 0.0)
    ...     return m
    >>> ft.vmap(f)(np.ones((1, 2, 2))).tolist()
    [[[0.0, 1.0], [1.0, 0.0]]]
"""
put_along_axis.__doc__ = """``numpy.put_along_axis(arr, indices, values, axis)``: ``values``
written at ``indices`` along ``axis`` into a traced ``arr`` (the last write wins).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> cols = np.array([[1], [0]])
    >>> def f(m):
    ...     fnp.put_along_axis(m, cols, 9.0, axis=1)
    ...     return m
    >>> ft.vmap(f)(np.zeros((1, 2, 2))).tolist()
    [[[0.0, 9.0], [9.0, 0.0]]]
"""


def diagonal_indices(n1: int, n2: int, offset: int, xp) -> tuple[Any, Any]:
    if offset >= 0:
        i = xp.arange(builtins.max(0, builtins.min(n1, n2 - offset)))
        return i, i + offset
    i = xp.arange(builtins.max(0, builtins.min(n1 + offset, n2)))
    return i - offset, i


@implements(numpy.diagonal)
def diagonal(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    """``numpy.diagonal``: the ``offset`` diagonal of the ``axis1``/``axis2`` planes (that
    diagonal is the last axis of the result); the derivative is zero off the diagonal.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> x = np.arange(9).reshape(3, 3)
        >>> fnp.diagonal(x).tolist(), fnp.diagonal(x, offset=1).tolist()
        ([0, 4, 8], [1, 5])
        >>> ft.grad(lambda a: fnp.sum(fnp.diagonal(a)))(np.zeros((2, 2)))  # d trace / dA = I
        array([[1., 0.],
               [0., 1.]])
    """
    rank = ndim(a)
    if rank < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    a1, a2 = normalize_axis(axis1, rank), normalize_axis(axis2, rank)
    if a1 == a2:
        raise ValueError("axis1 and axis2 cannot be the same")
    a = moveaxis(a, (a1, a2), (rank - 2, rank - 1))
    n1, n2 = shape(a)[-2:]
    rows, cols = diagonal_indices(n1, n2, int(offset), xp_of(a))
    return getitem(a, (Ellipsis, rows, cols))


@implements(numpy.select)
def select(condlist: Sequence[Any], choicelist: Sequence[Any], default: Any = 0) -> Any:
    """``numpy.select``: per element, the entry of the first choice whose condition holds, else
    ``default``; conditions must be boolean (``TypeError`` otherwise).  The derivative flows
    to the choice taken.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> x = np.array([-2.0, 0.5, 3.0])
        >>> fnp.select([x < 0, x < 1], [-x, 10 * x], default=1.0).tolist()
        [2.0, 5.0, 1.0]
        >>> ft.grad(lambda x: fnp.sum(fnp.select([x < 0, x < 1], [-x, 10 * x], 1.0)))(x)
        array([-1., 10.,  0.])
    """
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if len(choicelist) == 0:
        raise ValueError("select with an empty condition list is not possible")
    for i, c in enumerate(condlist):
        if dtype_of(c).kind != "b":
            raise TypeError(f"invalid entry {i} in condlist: should be boolean ndarray")
    dt = result_type(*choicelist, default)
    shape = numpy.broadcast_shapes(*[helpers.shape(c) for c in (*condlist, *choicelist)])
    like = helpers.first_array(*choicelist, *condlist)
    if like is not None and not isinstance(default, Tracer) and not is_array(default):
        default = helpers.constant_like(default, like, dt)  # on the choices' device
    out = broadcast_to(astype(default, dt), shape)
    for cond, choice in zip(reversed(condlist), reversed(choicelist)):
        out = where(cond, astype(choice, dt), out)
    return out


def add_at(x: Any, index: Any, values: Any) -> Any:
    """``numpy.add.at`` as a function: a new array, ``x`` with ``values`` added at ``index``
    (repeated indices accumulate; ``x`` itself is unchanged), as ``x.at[index].add(values)``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.add_at(np.zeros(3), np.array([0, 2, 0]), np.array([1.0, 2.0, 3.0])).tolist()
        [4.0, 0.0, 2.0]
        >>> ft.grad(lambda v: fnp.add_at(np.zeros(3), np.array([0, 0]), v)[0])(np.ones(2))
        array([1., 1.])
    """
    return x + scatter(x, index, values)


def _hits(x: Any, index: Any) -> Any:
    """How many times ``index`` hits each element of ``x`` (on ``x``'s backend).  An index
    of host values is counted by NumPy, outside any transform: under ``jit`` the count is
    then a constant of the recording, and reading it is no read of the call's data (the
    count of a traced index is, and ``jit`` runs that signature eagerly)."""
    counted = _host_hits(x, index)
    if counted is not None:
        return counted
    zeros = physical_zeros_like(x)
    ones = ones_like(getitem(zeros, index))
    return scatter(zeros, index, ones)


_HOST_INDEX_PARTS = (int, numpy.integer, numpy.bool_, slice, type(None), type(Ellipsis))


def _host_hits(x: Any, index: Any) -> numpy.ndarray | None:
    """:func:`_hits` counted with ``numpy.add.at`` for a NumPy ``x`` and an index of host
    integers, slices and NumPy arrays; None for any other index."""
    parts = index if isinstance(index, tuple) else (index,)
    if builtins.any(type(p) is Buffer for p in parts):  # an array made in the function
        parts = tuple(p.val if type(p) is Buffer else p for p in parts)
        index = parts if isinstance(index, tuple) else parts[0]
    if xp_of(x) is not numpy or not builtins.all(
        isinstance(p, _HOST_INDEX_PARTS) or type(p) is numpy.ndarray for p in parts
    ):
        return None
    counts = numpy.zeros(shape(x), dtype=numpy.int64)
    try:
        numpy.add.at(counts, index, 1)
    except (IndexError, TypeError, ValueError):
        return None  # NumPy's error, if any, comes from the traced path
    return counts


def _set_unique(x: Any, index: Any, values: Any, hits: Any) -> Any:
    return where(hits > 0, scatter(x, index, values), x)


def combine_at(x: Any, index: Any, values: Any, op: Any, name: str) -> Any:
    """``x`` with ``op(x[index], values)`` written at ``index``; repeated indices apply
    ``op`` once per occurrence, in index order (like ``numpy.<op>.at``)."""
    target = getitem(x, index)
    values = broadcast_to(_on_backend_of(x, values), shape(target))
    hits = _hits(x, index)
    if not (peek(hits) > 1).any():  # a traced index: jit must not replay this choice
        return _set_unique(x, index, astype(op(target, values), dtype_of(x)), hits)
    # Repeated indices: rounds of unique positions (the k-th occurrence of each position
    # in round k), found from the concrete flat positions of the index.
    xp = xp_of(x)
    flat_pos = _flat_positions(x, index, name)
    order = numpy.argsort(flat_pos, kind="stable")
    sorted_pos = flat_pos[order]
    starts = numpy.r_[True, sorted_pos[1:] != sorted_pos[:-1]]
    first = numpy.maximum.accumulate(numpy.where(starts, numpy.arange(len(order)), 0))
    rank = numpy.empty_like(order)
    rank[order] = numpy.arange(len(order)) - first
    # integers have no derivative, and a mean through floats would round their values
    extremum = name in ("max", "min") and numpy.dtype(dtype_of(x)).kind in "fc"
    out = ravel(stop_gradient(x) if extremum else x)
    flat_values = ravel(stop_gradient(values) if extremum else values)
    counts = physical_zeros_like(out)  # a template: only its shape is used
    for k in range(int(rank.max()) + 1):
        sel = numpy.nonzero(rank == k)[0]
        pos = xp.asarray(flat_pos[sel])
        new = op(getitem(out, pos), getitem(flat_values, xp.asarray(sel)))
        hits_k = _hits(counts, pos)
        out = _set_unique(out, pos, astype(new, dtype_of(x)), hits_k)
    out = reshape(out, shape(x))
    return _tied_evenly(x, index, values, out, hits) if extremum else out


def _tied_evenly(x: Any, index: Any, values: Any, best: Any, hits: Any) -> Any:
    """``best`` (the max or min at a repeated index, computed without derivatives) with
    the derivative of each position shared evenly among all that tie for it, the old
    element and every update (JAX's scatter_max/min rule; one ``maximum`` after another
    halved it at each occurrence).  The value is the mean of the tied entries: ``best``."""
    tied_x = x == best
    tied_v = values == getitem(best, index)
    dt = dtype_of(x)
    total = where(tied_x, x, 0) + scatter(x, index, where(tied_v, values, 0))
    count = astype(tied_x, dt) + scatter(x, index, astype(tied_v, dt))
    shared = where(count > 0, total / where(count > 0, count, 1), best)
    return where(hits > 0, astype(shared, dt), x)


def _flat_positions(x: Any, index: Any, name: str) -> numpy.ndarray:
    """The flat (C order) positions in ``x`` of the elements ``x[index]`` picks, in index
    order, as a host array (an index batched by ``vmap`` cannot be read here)."""
    spec, arrays = normalize_index(index, ndim(x))
    try:
        arrays = [a._concrete() if isinstance(a, Tracer) else a for a in arrays]
    except BatchedControlFlowError:
        raise UnsupportedOperationError(
            f"x.at[index].{name}(v) with repeated indices that differ across a vmap batch is "
            f"not supported; deduplicate the index, or apply the update outside vmap"
        ) from None
    positions = xp_of(x).arange(size(x)).reshape(shape(x))[build_index(spec, arrays)]
    return numpy.asarray(positions.get() if hasattr(positions, "get") else positions).ravel()


def _on_backend_of(x: Any, values: Any) -> Any:
    """Host ``values`` (a number, a NumPy array) moved to ``x``'s backend, for the
    repeated-index updates that index them with positions made there."""
    xp = xp_of(x)
    return values if xp is numpy or isinstance(values, Tracer) else xp.asarray(values)


def _first_picked(mask: Any, a: Any, axis: int, size: int, fill_value: Any) -> Any:
    """The first ``size`` slices of ``a`` along ``axis`` where the 1-d ``mask`` holds, then
    slices of ``fill_value`` (0 when None), in ``a``'s dtype: ``compress``/``extract`` with
    ``size=``, a fixed shape whatever the mask."""
    from ftransforms.numpy.sorting import fill_slots, padded_true_positions  # noqa: PLC0415  late import: sorting imports this module

    axis = normalize_axis(axis, ndim(a))
    positions, filled = padded_true_positions(mask, size)
    taken = take(a, positions, axis=axis)
    filled = reshape(filled, tuple(size if i == axis else 1 for i in range(ndim(taken))))
    return fill_slots(taken, filled, fill_value)


def nonzero_mask(a: Any) -> Any:
    return a if dtype_of(a).kind == "b" else not_equal(a, 0)


def unravel(flat: Any, shape: tuple[int, ...], order: str = "C") -> tuple[Any, ...]:
    """Coordinates of flat indices into ``shape`` (``order`` 'C' or 'F')."""
    dims = list(shape) if order == "C" else list(reversed(shape))
    strides = [math.prod(dims[i + 1 :]) for i in range(len(dims))]
    coords = [remainder(floor_divide(flat, max(s, 1)), max(n, 1)) for s, n in zip(strides, dims)]
    return tuple(coords if order == "C" else reversed(coords))


def _on(like: Any, values: Any) -> Any:
    xp = xp_of(like)
    return values if xp is numpy else xp.asarray(values)


@implements(numpy.diag_indices_from)
def diag_indices_from(arr: Any) -> tuple[Any, ...]:
    """``numpy.diag_indices_from``: the indices of the main diagonal of ``arr``.

    Example:
        >>> import numpy as np
        >>> [i.tolist() for i in diag_indices_from(np.zeros((2, 2)))]
        [[0, 1], [0, 1]]
    """
    arr = as_operand(arr)
    shape = helpers.shape(arr)
    if len(shape) < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return tuple(_on(arr, i) for i in numpy.diag_indices(shape[0], len(shape)))


def _tri_indices_from(arr: Any, k: int, which: Any) -> tuple[Any, ...]:
    arr = as_operand(arr)
    if ndim(arr) != 2:
        raise ValueError("input array must be 2-d")
    n, m = shape(arr)
    return tuple(_on(arr, i) for i in which(n, k=k, m=m))


@implements(numpy.tril_indices_from)
def tril_indices_from(arr: Any, k: int = 0) -> tuple[Any, Any]:
    """``numpy.tril_indices_from``: the indices of the lower triangle of a 2-d ``arr``.

    Example:
        >>> import numpy as np
        >>> [i.tolist() for i in tril_indices_from(np.zeros((2, 2)))]
        [[0, 1, 1], [0, 0, 1]]
    """
    return _tri_indices_from(arr, k, numpy.tril_indices)


@implements(numpy.triu_indices_from)
def triu_indices_from(arr: Any, k: int = 0) -> tuple[Any, Any]:
    """``numpy.triu_indices_from``: the indices of the upper triangle of a 2-d ``arr``.

    Example:
        >>> import numpy as np
        >>> [i.tolist() for i in triu_indices_from(np.zeros((2, 2)))]
        [[0, 0, 1], [0, 1, 1]]
    """
    return _tri_indices_from(arr, k, numpy.triu_indices)


def _int_index(x: Any, like: Any = None) -> Any:
    x = as_operand(x, like)
    if dtype_of(x).kind not in "iu":
        raise TypeError("only int indices permitted")
    return astype(x, INTP)


def _dims(shape: Any) -> tuple[int, ...]:
    return tuple(int(d) for d in numpy.atleast_1d(numpy.asarray(shape)).ravel())


@implements(numpy.ravel_multi_index)
def ravel_multi_index(
    multi_index: Any, dims: Any, mode: str | tuple[str, ...] = "raise", order: str = "C"
) -> Any:
    """``numpy.ravel_multi_index``: flat indices of coordinate arrays into ``dims``
    (``mode`` 'raise', 'wrap' or 'clip', one for all or one per dimension).

    Example:
        >>> import numpy as np
        >>> ravel_multi_index((np.array([1, 2]), np.array([0, 3])), (3, 4)).tolist()
        [4, 11]
    """
    dims = _dims(dims)
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    if len(multi_index) != len(dims):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
    modes = (mode,) * len(dims) if isinstance(mode, str) else tuple(mode)
    if len(modes) != len(dims):
        raise ValueError("mode must be a string or a sequence of strings, one per dimension")
    like = next((i for i in multi_index if hasattr(i, "dtype")), None)
    indices = broadcast_arrays(*[_int_index(i, like) for i in multi_index])
    strides = [
        math.prod(dims[i + 1 :]) if order == "C" else math.prod(dims[:i]) for i in range(len(dims))
    ]
    total: Any = None
    for idx, n, s, m in zip(indices, dims, strides, modes):
        if m == "wrap":
            idx = remainder(idx, n)
        elif m == "clip":
            idx = clip(idx, 0, n - 1)
        elif m == "raise":
            if helpers.invalid_in_rows((idx < 0) | (idx >= n)):  # per row under vmap
                raise ValueError("invalid entry in coordinates array")
        else:
            raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {m!r})")
        term = idx * s
        total = term if total is None else total + term
    return astype(total, INTP)


@implements(numpy.unravel_index)
def unravel_index(indices: Any, shape: Any, order: str = "C") -> tuple[Any, ...]:
    """``numpy.unravel_index``: coordinate arrays of flat ``indices`` into ``shape``.

    Example:
        >>> import numpy as np
        >>> [c.tolist() for c in unravel_index(np.array([5, 7]), (2, 4))]
        [[1, 1], [1, 3]]
    """
    dims = _dims(shape)
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    indices = _int_index(indices)
    size = math.prod(dims)
    if helpers.invalid_in_rows((indices < 0) | (indices >= size)):  # per row under vmap
        values = to_host(peek(indices))
        bad = values[(values < 0) | (values >= size)]
        raise ValueError(f"index {int(bad[0])} is out of bounds for array with size {size}")
    return unravel(indices, dims, order)


def _concrete_mask(condition: Any, what: str) -> Any:
    """A boolean condition's concrete values (a traced one is read: it has no derivative);
    under ``vmap`` a batched condition would give each batch element its own result size."""
    if isinstance(condition, Tracer):
        condition = helpers.concrete_arg(condition, what)
    return condition if hasattr(condition, "dtype") else numpy.asarray(condition)


@implements(numpy.choose)
def choose(a: Any, choices: Any, out: Any = None, mode: str = "raise") -> Any:
    """``numpy.choose``: ``choices[a[i]][i]`` with everything broadcast together.

    Differentiable in the choices; the integer ``a`` is an index (``mode`` ``'raise'``,
    ``'wrap'`` or ``'clip'`` as in NumPy).

    Example:
        >>> import numpy as np
        >>> choose(np.array([0, 1, 0]), [np.zeros(3), np.ones(3)]).tolist()
        [0.0, 1.0, 0.0]
    """
    helpers.no_extra_args("choose", {"out": out})
    like = next((c for c in [a, *choices] if isinstance(c, Tracer)), None)
    a = as_operand(a, like)
    if dtype_of(a).kind not in "iub":
        raise TypeError(f"choose(a, choices): a must hold integers, got dtype {dtype_of(a)}")
    n = len(choices)
    arrays = broadcast_arrays(a, *[as_operand(c, like) for c in choices])
    a, picks = arrays[0], arrays[1:]
    if mode == "wrap":
        a = remainder(a, n)
    elif mode == "clip":
        a = clip(a, 0, n - 1)
    elif mode == "raise":
        if helpers.invalid_in_rows((a < 0) | (a >= n)):  # per row under vmap
            host = to_host(peek(a))
            raise ValueError(
                f"choose(a, choices): a holds {int(host.min())}..{int(host.max())} but there "
                f"are {n} choices; use mode='wrap' or mode='clip' for indices out of range"
            )
    else:
        raise ValueError(f"choose: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    dt = helpers.weak_result_type(*picks)
    stacked = stack([astype(p, dt) for p in picks])
    index = reshape(astype(a, INTP), (1, *shape(a)))
    return reshape(take_along_axis(stacked, index, 0), shape(a))


@implements(numpy.compress)
def compress(
    condition: Any,
    a: Any,
    axis: int | None = None,
    out: Any = None,
    *,
    size: int | None = None,
    fill_value: Any = None,
) -> Any:
    """``numpy.compress``: the slices of ``a`` along ``axis`` where ``condition`` holds (a
    shorter condition leaves the remaining slices out, as in NumPy).  ``jax.numpy``'s
    ``size=`` gives exactly ``size`` slices (the first ones), padded with ``fill_value``
    (default 0): a fixed shape, which ``vmap`` and ``jit`` keep whole.

    Example:
        >>> import numpy as np
        >>> compress([True, False, True], np.arange(3.0)).tolist()
        [0.0, 2.0]
        >>> compress(np.array([True, False, True]), np.arange(3.0), size=3, fill_value=-1).tolist()
        [0.0, 2.0, -1.0]
    """
    helpers.no_extra_args("compress", {"out": out})
    if size is not None:
        if ndim(condition) != 1:
            raise ValueError(
                f"compress: condition must be a 1-d array, got shape {shape(condition)}"
            )
        a = as_operand(a)
        if axis is None:
            a, axis = ravel(a), 0
        return _first_picked(nonzero_mask(condition), a, axis, size, fill_value)
    if isinstance(condition, Tracer) and _batched(condition):
        if ndim(condition) != 1:
            raise ValueError(
                f"compress: condition must be a 1-d array, got shape {shape(condition)}"
            )
        a = as_operand(a)
        if axis is None:
            a, axis = ravel(a), 0
        axis = normalize_axis(axis, ndim(a))
        n = shape(condition)[0]
        if n > shape(a)[axis]:
            raise IndexError(
                f"compress: condition has {n} entries, more than axis {axis}'s {shape(a)[axis]}"
            )
        return take(
            a, _batched_nonzero(astype(condition, bool), "compress(condition, a)")[0], axis=axis
        )
    cond = _concrete_mask(condition, "compress(condition, a)")
    if cond.ndim != 1:
        raise ValueError(f"compress: condition must be a 1-d array, got shape {cond.shape}")
    a = as_operand(a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = normalize_axis(axis, ndim(a))
    if cond.shape[0] > shape(a)[axis]:
        raise IndexError(
            f"compress: condition has {cond.shape[0]} entries, more than axis {axis}'s "
            f"{shape(a)[axis]}"
        )
    picked = xp_of(cond).nonzero(cond.astype(bool))[0]
    return take(a, picked, axis=axis)


@implements(numpy.extract)
def extract(condition: Any, arr: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    """``numpy.extract``: the elements of ``ravel(arr)`` where ``ravel(condition)`` is
    nonzero (``jax.numpy``'s ``size=``/``fill_value=`` as in :func:`compress`).

    Example:
        >>> import numpy as np
        >>> extract(np.eye(2), np.arange(4.0).reshape(2, 2)).tolist()
        [0.0, 3.0]
        >>> extract(np.eye(2), np.arange(4.0).reshape(2, 2), size=1).tolist()
        [0.0]
    """
    if size is not None:
        mask = nonzero_mask(ravel(condition))
        return _first_picked(mask, ravel(as_operand(arr)), 0, size, fill_value)
    if isinstance(condition, Tracer) and _batched(condition):
        picked = _batched_nonzero(nonzero_mask(ravel(condition)), "extract(condition, arr)")[0]
        return take(ravel(as_operand(arr)), picked)
    cond = _concrete_mask(condition, "extract(condition, arr)")
    picked = xp_of(cond).nonzero(cond.reshape(-1))[0]
    return take(ravel(as_operand(arr)), picked)


@implements(numpy.lib.stride_tricks.sliding_window_view)
def sliding_window_view(
    x: Any,
    window_shape: Any,
    axis: Any = None,
    *,
    subok: bool = False,
    writeable: bool = False,
) -> Any:
    """``numpy.lib.stride_tricks.sliding_window_view``: every window of ``window_shape``
    along ``axis`` (all axes when None), the windows' own axes last; a gather (NumPy returns
    a strided view), so it is differentiable and batches like any indexing.  Of a traced
    array it is a read-only view, as in NumPy: a later write into ``x`` is seen through it,
    and a write into it raises NumPy's ``ValueError``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> x = np.arange(5.0)
        >>> np.lib.stride_tricks.sliding_window_view(x, 3).tolist()[:2]
        [[0.0, 1.0, 2.0], [1.0, 2.0, 3.0]]
        >>> swv = np.lib.stride_tricks.sliding_window_view
        >>> ft.grad(lambda t: swv(t, 3).sum())(x)  # how many windows hold each element
        array([1., 2., 3., 2., 1.])
    """
    traced = isinstance(x, Tracer)
    x = as_operand(x)
    rank = len(shape(x))
    windows = tuple(window_shape) if numpy.iterable(window_shape) else (window_shape,)
    if axis is None:
        axes = tuple(range(rank))
        if len(windows) != rank:
            raise ValueError(
                f"Since axis is `None`, must provide window_shape for all dimensions of `x`; "
                f"got {len(windows)} window_shape elements and `x.ndim` is {rank}."
            )
    else:
        axes = tuple(axis) if numpy.iterable(axis) else (axis,)
        axes = tuple(helpers.normalize_axis(int(a), rank) for a in axes)
        if len(windows) != len(axes):
            raise ValueError(
                f"Must provide matching length window_shape and axis; got {len(windows)} "
                f"window_shape elements and {len(axes)} axes elements."
            )
    if builtins.any(int(w) < 0 for w in windows):
        raise ValueError("`window_shape` cannot contain negative values")
    gathers = []
    sizes = list(shape(x))
    for ax, w in zip(axes, windows):
        n, w = sizes[ax], int(w)
        if w > n:
            raise ValueError("window shape cannot be larger than input array shape")
        sizes[ax] = n - w + 1
        sizes.append(w)
        gathers.append((ax, numpy.arange(n - w + 1)[:, None] + numpy.arange(w)[None, :]))

    def forward(parent: Any) -> Any:
        out = parent
        for ax, index in gathers:
            out = moveaxis(take(out, index, axis=ax), ax + 1, -1)
        return out

    out = forward(x)
    if not traced:
        return out
    # a view of a traced array (NOTE [mutation semantics] in core/mutation.py)
    return make_view(x, out, forward, _windows_written if writeable else read_only)


def _windows_written(parent: Any, value: Any) -> Any:
    """The ``inverse`` of ``sliding_window_view(..., writeable=True)``: its writes go to the
    root of its views (NOTE [writes through overlapping views] in core/mutation.py); this
    refuses one whose places there are not known."""
    raise InPlaceError(
        "sliding_window_view(x, ..., writeable=True)[...] = v on a traced array: a write "
        "through overlapping windows is not supported; write into x itself (the view sees "
        "the write)"
    )


_windows_written.overlapping = True  # type: ignore[attr-defined]


# NOTE [x.at on NumPy arrays]: JAX code updates arrays functionally, ``x = x.at[i].set(v)``,
# also outside any transform (``img = jnp.zeros((8, 8)); img = img.at[2:4].set(1.0)``).
# Here ``jnp.zeros`` is NumPy's array, which has no ``at``: so importing ftransforms gives
# ``numpy.ndarray`` the read-only property ``at`` (the same helper as ``fnp.at(x)`` and a
# tracer's ``.at``: a new array, ``x`` left as it was), unless NumPy has an ``at`` of its
# own.  Likewise ``block_until_ready()``, which JAX code calls on results before reading a
# clock (``jitted(x).block_until_ready()``): it returns the array (NumPy computes
# synchronously).  A name NumPy does not use is added to its type's dictionary (its method
# cache is reset through ``PyType_Modified``); nothing else of NumPy changes, and no call
# pays anything.  Where the interpreter does not allow it (not CPython), ``x.at`` stays an
# AttributeError and ``fnp.at(x)`` (``ft.block_until_ready(x)``) is the portable spelling.
def _ready(self: Any) -> Any:
    """``x`` itself: a NumPy array is computed when it exists (``jax.Array``'s
    ``block_until_ready()``, NOTE [x.at on NumPy arrays])."""
    return self


def _install_on(cls: type, names: dict) -> None:
    """Add ``names`` that ``cls`` (a NumPy type) lacks to its dictionary."""
    import ctypes  # noqa: PLC0415  late import: used once, here
    import gc  # noqa: PLC0415

    names = {k: v for k, v in names.items() if not hasattr(cls, k)}
    if not names:
        return
    try:
        namespace = gc.get_referents(cls.__dict__)[0]
        if not isinstance(namespace, dict):
            return
        namespace.update(names)
        ctypes.pythonapi.PyType_Modified(ctypes.py_object(cls))
    except (AttributeError, TypeError, ValueError):  # (an interpreter without these hooks)
        return


_install_on(
    numpy.ndarray,
    {
        "at": property(at, doc="``fnp.at(x)``: JAX's ``x.at[i].set(v)`` & co."),
        "block_until_ready": _ready,
    },
)
_install_on(numpy.generic, {"block_until_ready": _ready})  # NumPy's scalars (jnp.sum(x))
