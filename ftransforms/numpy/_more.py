"""More of NumPy's API for ``ftransforms.numpy``: elementwise extras, reductions, shape
functions, sorting and functional index updates.

Most functions here are composites of primitives (exact, and with every rule inherited);
the few new primitives live in ``ftransforms/ops/special.py`` (``logaddexp``, ``hypot``,
``sinc``), ``ops/sorting.py`` (``argsort``, ``argpartition``, ``searchsorted``) and
``ops/reductions.py`` (``cumprod``).  ``ftransforms.numpy`` re-exports every name in
:data:`__all__`.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Sequence
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import BatchedControlFlowError, UnsupportedOperationError
from ftransforms.core.index_spec import build_index
from ftransforms.core.tracer import Tracer
from ftransforms.ops import reductions as _red
from ftransforms.ops import sorting as _sort
from ftransforms.ops import special as _sp

__all__ = [
    "add_at",
    "argpartition",
    "argsort",
    "atleast_3d",
    "average",
    "column_stack",
    "copysign",
    "cumprod",
    "deg2rad",
    "degrees",
    "diag",
    "diagonal",
    "dstack",
    "float_power",
    "fliplr",
    "flipud",
    "fmax",
    "fmin",
    "heaviside",
    "hypot",
    "logaddexp",
    "logaddexp2",
    "meshgrid",
    "nan_to_num",
    "nanmax",
    "nanmean",
    "nanmin",
    "nansum",
    "pad",
    "partition",
    "ptp",
    "rad2deg",
    "radians",
    "repeat",
    "roll",
    "rot90",
    "searchsorted",
    "select",
    "sinc",
    "sort",
    "tile",
    "tril",
    "triu",
]


def _float(x: Any) -> Any:
    """``x`` cast to float64 when it is an integer or bool (NumPy's float ufunc loops)."""
    return fnp.astype(x, numpy.float64) if fnp._dtype(x).kind in "biu" else x


def _concrete(x: Any, what: str) -> Any:
    """The backend value of an integer argument that decides shapes (not under vmap)."""
    if not isinstance(x, Tracer):
        return x
    try:
        return x._concrete()
    except BatchedControlFlowError:
        raise BatchedControlFlowError(
            f"{what}: this argument decides the shape of the result, so it cannot differ "
            f"across a vmap batch; pass it unbatched (in_dims=None) or as a constant."
        ) from None


# -- elementwise -------------------------------------------------------------------------

logaddexp = _sp.logaddexp_p
logaddexp2 = _sp.logaddexp2_p
hypot = _sp.hypot_p


def copysign(x1: Any, x2: Any) -> Any:
    """``numpy.copysign``: ``|x1|`` with the sign bit of ``x2`` (no derivative in ``x2``)."""
    dt = fnp.result_type(x1, x2)
    x1 = fnp.astype(x1, dt if dt.kind in "fc" else numpy.float64)
    mag = fnp.abs(x1)
    return fnp.where(fnp.signbit(x2), -mag, mag)


def fmax(x1: Any, x2: Any) -> Any:
    """``numpy.fmax``: the maximum, ignoring a NaN; ties share the derivative."""
    return fnp.where(fnp.isnan(x2), x1, fnp.where(fnp.isnan(x1), x2, fnp.maximum(x1, x2)))


def fmin(x1: Any, x2: Any) -> Any:
    """``numpy.fmin``: the minimum, ignoring a NaN; ties share the derivative."""
    return fnp.where(fnp.isnan(x2), x1, fnp.where(fnp.isnan(x1), x2, fnp.minimum(x1, x2)))


def heaviside(x1: Any, x2: Any) -> Any:
    """``numpy.heaviside``: 0 below zero, ``x2`` at zero, 1 above (derivative 0 in ``x1``)."""
    dt = fnp.result_type(x1, x2)
    if dt.kind not in "fc":
        dt = numpy.dtype(numpy.float64)
    x1, x2 = fnp.astype(x1, dt), fnp.astype(x2, dt)
    at_zero = fnp.where(x1 == 0, x2, x1)  # x1 itself only where it is NaN
    return fnp.where(x1 > 0, fnp.ones((), dt, like=x1), fnp.where(x1 < 0, 0.0, at_zero))


def float_power(x1: Any, x2: Any) -> Any:
    """``numpy.float_power``: ``x1 ** x2`` computed in float64 (complex128 for complex)."""
    dt = numpy.result_type(fnp._dtype(x1), fnp._dtype(x2), numpy.float64)
    return fnp.power(fnp.astype(x1, dt), fnp.astype(x2, dt))


def deg2rad(x: Any) -> Any:
    """``numpy.deg2rad`` (``numpy.radians``)."""
    return _float(x) * (math.pi / 180.0)


def rad2deg(x: Any) -> Any:
    """``numpy.rad2deg`` (``numpy.degrees``)."""
    return _float(x) * (180.0 / math.pi)


radians, degrees = deg2rad, rad2deg


def sinc(x: Any) -> Any:
    """``numpy.sinc``: ``sin(pi x) / (pi x)``, exact derivatives of every order (at 0 too)."""
    return _sp.sinc_p.bind(x, k=0)


def nan_to_num(
    x: Any, copy: bool = True, nan: float = 0.0, posinf: Any = None, neginf: Any = None
) -> Any:
    """``numpy.nan_to_num``: derivative 1 at finite elements, 0 at replaced ones."""
    dt = fnp._dtype(x)
    if dt.kind not in "fc":
        return x
    if dt.kind == "c":
        raise UnsupportedOperationError("nan_to_num: complex inputs are not supported yet")
    info = numpy.finfo(dt)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    out = fnp.where(x == numpy.inf, fnp.full((), posinf, dt, like=x), x)
    out = fnp.where(x == -numpy.inf, fnp.full((), neginf, dt, like=x), out)
    return fnp.where(fnp.isnan(x), fnp.full((), nan, dt, like=x), out)


# -- reductions --------------------------------------------------------------------------


def cumprod(x: Any, axis: int | None = None, dtype: Any = None) -> Any:
    """``numpy.cumprod``; derivatives exact where elements are zero (NOTE [cumprod at
    zeros] in ops/reductions.py)."""
    x = fnp._prepare(x, dtype)
    if axis is None:
        x, axis = fnp.ravel(x), 0
    return _red.cumprod_p.bind(x, axis=fnp._normalize_axis(axis, fnp.ndim(x)))


def ptp(x: Any, axis: Any = None, keepdims: bool = False, **kw: Any) -> Any:
    """``numpy.ptp``: ``max - min``."""
    fnp._no_extra("ptp", kw)
    return fnp.max(x, axis=axis, keepdims=keepdims) - fnp.min(x, axis=axis, keepdims=keepdims)


def average(
    a: Any, axis: Any = None, weights: Any = None, returned: bool = False, *, keepdims=False
) -> Any:
    """``numpy.average``, differentiable in ``a`` and in ``weights``."""
    if weights is None:
        avg = fnp.mean(a, axis=axis, keepdims=keepdims)
        if not returned:
            return avg
        count = fnp.size(a) / builtins.max(fnp.size(avg), 1)
        return avg, fnp.full(fnp.shape(avg), count, dtype=fnp._dtype(avg), like=avg)
    a_dt, w_dt = fnp._dtype(a), fnp._dtype(weights)
    if a_dt.kind in "biu":
        dt = numpy.result_type(a_dt, w_dt, numpy.float64)
    else:
        dt = numpy.result_type(a_dt, w_dt)
    a, weights = fnp.astype(a, dt), fnp.astype(weights, dt)
    a_shape, w_shape = fnp.shape(a), fnp.shape(weights)
    if a_shape != w_shape:
        if axis is None:
            raise TypeError("average: axis must be specified when shapes of a and weights differ.")
        if len(w_shape) != 1:
            raise TypeError("average: 1D weights expected when shapes of a and weights differ.")
        ax = fnp._normalize_axis(int(axis), len(a_shape))
        if w_shape[0] != a_shape[ax]:
            raise ValueError("average: length of weights not compatible with specified axis.")
        weights = fnp.reshape(weights, tuple(-1 if i == ax else 1 for i in range(len(a_shape))))
        weights = fnp.broadcast_to(weights, a_shape)
    scale = fnp.sum(weights, axis=axis, keepdims=keepdims)
    avg = fnp.sum(a * weights, axis=axis, keepdims=keepdims) / scale
    if returned:
        return avg, fnp.broadcast_to(scale, fnp.shape(avg))
    return avg


def _nan_filled(x: Any, fill: Any) -> Any:
    if fnp._dtype(x).kind not in "fc":
        return x
    return fnp.where(fnp.isnan(x), fill, x)


def nansum(x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False, **kw) -> Any:
    """``numpy.nansum``: NaNs count as zero (and get derivative 0)."""
    return fnp.sum(_nan_filled(x, 0.0), axis=axis, dtype=dtype, keepdims=keepdims, **kw)


def nanmean(x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False, **kw) -> Any:
    """``numpy.nanmean``: the mean of the non-NaN elements."""
    fnp._no_extra("nanmean", kw)
    x = fnp._float_input(x, dtype)
    count = fnp.sum(~fnp.isnan(x), axis=axis, keepdims=keepdims)
    total = fnp.sum(_nan_filled(x, 0.0), axis=axis, keepdims=keepdims)
    return total / fnp.astype(count, fnp._dtype(x))


def _nan_extremum(reduce, fill, x, axis, keepdims, kw, name):
    fnp._no_extra(name, kw)
    if fnp._dtype(x).kind not in "fc":
        return reduce(x, axis=axis, keepdims=keepdims)
    nans = fnp.isnan(x)
    out = reduce(fnp.where(nans, fill, x), axis=axis, keepdims=keepdims)
    return fnp.where(fnp.all(nans, axis=axis, keepdims=keepdims), numpy.nan, out)


def nanmax(x: Any, axis: Any = None, keepdims: bool = False, **kw: Any) -> Any:
    """``numpy.nanmax`` (NaN where a slice is all NaN, without NumPy's warning)."""
    return _nan_extremum(fnp.max, -numpy.inf, x, axis, keepdims, kw, "nanmax")


def nanmin(x: Any, axis: Any = None, keepdims: bool = False, **kw: Any) -> Any:
    """``numpy.nanmin`` (NaN where a slice is all NaN, without NumPy's warning)."""
    return _nan_extremum(fnp.min, numpy.inf, x, axis, keepdims, kw, "nanmin")


# -- shape -----------------------------------------------------------------------------


def tile(a: Any, reps: Any) -> Any:
    """``numpy.tile``: one broadcast and two reshapes (its transpose is a sum)."""
    reps = (int(reps),) if isinstance(reps, (int, numpy.integer)) else tuple(int(r) for r in reps)
    shape = fnp.shape(a)
    rank = builtins.max(len(shape), len(reps))
    shape = (1,) * (rank - len(shape)) + shape
    reps = (1,) * (rank - len(reps)) + reps
    a = fnp.reshape(a, tuple(d for n in shape for d in (1, n)))
    a = fnp.broadcast_to(a, tuple(d for r, n in zip(reps, shape) for d in (r, n)))
    return fnp.reshape(a, tuple(r * n for r, n in zip(reps, shape)))


def repeat(a: Any, repeats: Any, axis: int | None = None) -> Any:
    """``numpy.repeat`` with int or per-element (array) ``repeats``."""
    if axis is None:
        a, axis = fnp.ravel(a), 0
    axis = fnp._normalize_axis(axis, fnp.ndim(a))
    shape = fnp.shape(a)
    reps = _concrete(repeats, "repeat(a, repeats)")
    reps = numpy.asarray(reps.get() if hasattr(reps, "get") else reps)
    if reps.size == 1:
        r = int(reps.reshape(()))
        expanded = fnp.reshape(a, shape[: axis + 1] + (1,) + shape[axis + 1 :])
        expanded = fnp.broadcast_to(expanded, shape[: axis + 1] + (r,) + shape[axis + 1 :])
        return fnp.reshape(expanded, shape[:axis] + (shape[axis] * r,) + shape[axis + 1 :])
    index = numpy.repeat(numpy.arange(shape[axis]), reps)
    return fnp.take(a, fnp._xp(a).asarray(index), axis=axis)


def fliplr(m: Any) -> Any:
    """``numpy.fliplr``."""
    if fnp.ndim(m) < 2:
        raise ValueError("Input must be >= 2-d.")
    return fnp.flip(m, axis=1)


def flipud(m: Any) -> Any:
    """``numpy.flipud``."""
    if fnp.ndim(m) < 1:
        raise ValueError("Input must be >= 1-d.")
    return fnp.flip(m, axis=0)


def roll(a: Any, shift: Any, axis: Any = None) -> Any:
    """``numpy.roll`` (static shifts): two slices and a concatenation per axis."""
    if axis is None:
        return fnp.reshape(roll(fnp.ravel(a), shift, 0), fnp.shape(a))
    axes = (axis,) if isinstance(axis, (int, numpy.integer)) else tuple(axis)
    shifts = (shift,) if isinstance(shift, (int, numpy.integer)) else tuple(shift)
    axes, shifts = numpy.broadcast_arrays(numpy.asarray(axes), numpy.asarray(shifts))
    total: dict[int, int] = {}
    for ax, sh in zip(axes.ravel(), shifts.ravel()):
        ax = fnp._normalize_axis(int(ax), fnp.ndim(a))
        total[ax] = total.get(ax, 0) + int(sh)
    for ax, sh in total.items():
        n = fnp.shape(a)[ax]
        if n == 0 or sh % n == 0:
            continue
        k = sh % n
        lead = (slice(None),) * ax
        a = fnp.concatenate(
            [
                fnp.getitem(a, lead + (slice(n - k, None),)),
                fnp.getitem(a, lead + (slice(0, n - k),)),
            ],
            axis=ax,
        )
    return a


def rot90(m: Any, k: int = 1, axes: Sequence[int] = (0, 1)) -> Any:
    """``numpy.rot90`` (flips and a transpose)."""
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    rank = fnp.ndim(m)
    a0, a1 = (fnp._normalize_axis(int(a), rank) for a in axes)
    if a0 == a1:
        raise ValueError("Axes must be different.")
    k %= 4
    if k == 0:
        return m
    if k == 2:
        return fnp.flip(fnp.flip(m, a0), a1)
    perm = list(range(rank))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return fnp.transpose(fnp.flip(m, a1), perm)
    return fnp.flip(fnp.transpose(m, perm), a1)


def _pairs(value: Any, rank: int, what: str) -> list[tuple[Any, Any]]:
    """NumPy's ``pad_width``/``constant_values`` forms, as one (before, after) per axis."""
    if isinstance(value, Tracer):
        if fnp.ndim(value) != 0:
            raise UnsupportedOperationError(f"pad: a traced {what} must be a scalar")
        return [(value, value)] * rank
    arr = numpy.asarray(value)
    if arr.ndim == 0:
        return [(value, value)] * rank
    arr = numpy.broadcast_to(arr, (rank, 2))
    return [(arr[i, 0], arr[i, 1]) for i in range(rank)]


_PAD_GATHER_MODES = ("edge", "reflect", "symmetric", "wrap")


def pad(array: Any, pad_width: Any, mode: str = "constant", **kwargs: Any) -> Any:
    """``numpy.pad`` with modes 'constant' (traced ``constant_values`` allowed), 'edge',
    'reflect', 'symmetric' and 'wrap' (``reflect_type='even'``)."""
    rank = fnp.ndim(array)
    widths = [(int(b), int(a)) for b, a in _pairs(pad_width, rank, "pad_width")]
    if builtins.any(b < 0 or a < 0 for b, a in widths):
        raise ValueError("index can't contain negative values")
    if mode == "constant":
        consts = _pairs(kwargs.pop("constant_values", 0), rank, "constant_values")
    elif mode not in _PAD_GATHER_MODES:
        raise UnsupportedOperationError(
            f"pad: mode={mode!r} is not supported; use 'constant', 'edge', 'reflect', "
            f"'symmetric' or 'wrap'"
        )
    if kwargs.pop("reflect_type", "even") != "even":
        raise UnsupportedOperationError("pad: only reflect_type='even' is supported")
    if kwargs:
        raise UnsupportedOperationError(f"pad: unsupported arguments {sorted(kwargs)}")
    dt = fnp._dtype(array)
    out = array
    for ax, (before, after) in enumerate(widths):
        if before == 0 and after == 0:
            continue
        if mode == "constant":
            shape = list(fnp.shape(out))
            parts = []
            for width, c in ((before, consts[ax][0]), (after, consts[ax][1])):
                shape[ax] = width
                parts.append(fnp.full(tuple(shape), c, dtype=dt, like=array) if width else None)
            out = fnp.concatenate([p for p in (parts[0], out, parts[1]) if p is not None], ax)
        else:
            n = fnp.shape(out)[ax]
            if n == 0:
                raise ValueError(f"can't extend empty axis {ax} using modes other than 'constant'")
            index = numpy.pad(numpy.arange(n), (before, after), mode=mode)
            out = fnp.take(out, fnp._xp(array).asarray(index), axis=ax)
    return out


def _diagonal_indices(n1: int, n2: int, offset: int, xp) -> tuple[Any, Any]:
    if offset >= 0:
        i = xp.arange(builtins.max(0, builtins.min(n1, n2 - offset)))
        return i, i + offset
    i = xp.arange(builtins.max(0, builtins.min(n1 + offset, n2)))
    return i - offset, i


def diagonal(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    """``numpy.diagonal`` (the diagonal is the last axis of the result)."""
    rank = fnp.ndim(a)
    if rank < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    a1, a2 = fnp._normalize_axis(axis1, rank), fnp._normalize_axis(axis2, rank)
    if a1 == a2:
        raise ValueError("axis1 and axis2 cannot be the same")
    a = fnp.moveaxis(a, (a1, a2), (rank - 2, rank - 1))
    n1, n2 = fnp.shape(a)[-2:]
    rows, cols = _diagonal_indices(n1, n2, int(offset), fnp._xp(a))
    return fnp.getitem(a, (Ellipsis, rows, cols))


def diag(v: Any, k: int = 0) -> Any:
    """``numpy.diag``: the k-th diagonal of a matrix, or a matrix with ``v`` on it."""
    rank = fnp.ndim(v)
    if rank == 2:
        return diagonal(v, k)
    if rank != 1:
        raise ValueError("Input must be 1- or 2-d.")
    n = fnp.shape(v)[0] + builtins.abs(int(k))
    xp = fnp._xp(v)
    rows, cols = _diagonal_indices(n, n, int(k), xp)
    return fnp._scatter(xp.zeros((n, n), dtype=fnp._dtype(v)), (rows, cols), v)


def _tri_mask(m: Any, k: int) -> Any:
    n, mm = (fnp.shape(m) * 2)[-2:] if fnp.ndim(m) == 1 else fnp.shape(m)[-2:]
    return fnp._xp(m).tri(n, mm, k, dtype=bool)


def tril(m: Any, k: int = 0) -> Any:
    """``numpy.tril``: zeros above the k-th diagonal (of the last two axes)."""
    return fnp.where(_tri_mask(m, int(k)), m, fnp.zeros((), fnp._dtype(m), like=m))


def triu(m: Any, k: int = 0) -> Any:
    """``numpy.triu``: zeros below the k-th diagonal (of the last two axes)."""
    return fnp.where(_tri_mask(m, int(k) - 1), fnp.zeros((), fnp._dtype(m), like=m), m)


def meshgrid(*xi: Any, copy: bool = True, sparse: bool = False, indexing: str = "xy") -> tuple:
    """``numpy.meshgrid``."""
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    n = len(xi)
    ones = (1,) * n
    out = [fnp.reshape(x, ones[:i] + (-1,) + ones[i + 1 :]) for i, x in enumerate(xi)]
    if indexing == "xy" and n > 1:
        out[0] = fnp.reshape(out[0], (1, -1) + ones[2:])
        out[1] = fnp.reshape(out[1], (-1, 1) + ones[2:])
    if not sparse:
        out = fnp.broadcast_arrays(*out)
    return tuple(out)


def atleast_3d(*arys: Any) -> Any:
    """``numpy.atleast_3d``: (n,) -> (1, n, 1), (m, n) -> (m, n, 1)."""
    res = []
    for a in arys:
        s = fnp.shape(a)
        if len(s) == 0:
            a = fnp.reshape(a, (1, 1, 1))
        elif len(s) == 1:
            a = fnp.reshape(a, (1, s[0], 1))
        elif len(s) == 2:
            a = fnp.reshape(a, s + (1,))
        res.append(a)
    return res[0] if len(res) == 1 else tuple(res)


def dstack(tup: Sequence[Any]) -> Any:
    """``numpy.dstack``."""
    arrays = [atleast_3d(a) for a in tup]
    return fnp.concatenate(arrays, axis=2)


def column_stack(tup: Sequence[Any]) -> Any:
    """``numpy.column_stack``."""
    arrays = []
    for a in tup:
        if fnp.ndim(a) < 2:
            a = fnp.reshape(a, (-1, 1))
        arrays.append(a)
    return fnp.concatenate(arrays, axis=1)


# -- sorting ---------------------------------------------------------------------------


def _sort_kind(kind: Any, stable: Any) -> Any:
    return "stable" if stable else kind


def argsort(a: Any, axis: int | None = -1, kind: Any = None, order: Any = None, *, stable=None):
    """``numpy.argsort`` (no derivative)."""
    if order is not None:
        raise UnsupportedOperationError("argsort: order= (structured arrays) is not supported")
    if axis is None:
        a, axis = fnp.ravel(a), 0
    axis = fnp._normalize_axis(axis, fnp.ndim(a))
    return _sort.argsort_p.bind(a, axis=axis, kind=_sort_kind(kind, stable))


def sort(a: Any, axis: int | None = -1, kind: Any = None, order: Any = None, *, stable=None):
    """``numpy.sort``; on tracers a gather through the stable sorting permutation, so tied
    elements each keep their own derivative."""
    if order is not None:
        raise UnsupportedOperationError("sort: order= (structured arrays) is not supported")
    if axis is None:
        a, axis = fnp.ravel(a), 0
    if not isinstance(a, Tracer):
        return fnp._xp(a).sort(a, axis=axis, kind=_sort_kind(kind, stable))
    axis = fnp._normalize_axis(axis, fnp.ndim(a))
    perm = _sort.argsort_p.bind(a, axis=axis, kind="stable")
    return fnp.take_along_axis(a, perm, axis)


def _kth(kth: Any, n: int) -> tuple[int, ...]:
    kth = _concrete(kth, "partition(a, kth)")
    ks = numpy.atleast_1d(numpy.asarray(kth)).ravel()
    return tuple(int(k) % n if -n <= int(k) < n else int(k) for k in ks)


def argpartition(a: Any, kth: Any, axis: int | None = -1, kind: str = "introselect", order=None):
    """``numpy.argpartition`` (no derivative)."""
    if order is not None:
        raise UnsupportedOperationError("argpartition: order= is not supported")
    if axis is None:
        a, axis = fnp.ravel(a), 0
    axis = fnp._normalize_axis(axis, fnp.ndim(a))
    return _sort.argpartition_p.bind(a, kth=_kth(kth, fnp.shape(a)[axis]), axis=axis)


def partition(a: Any, kth: Any, axis: int | None = -1, kind: str = "introselect", order=None):
    """``numpy.partition``: a gather through ``argpartition`` (values differentiable)."""
    if order is not None:
        raise UnsupportedOperationError("partition: order= is not supported")
    if axis is None:
        a, axis = fnp.ravel(a), 0
    if not isinstance(a, Tracer):
        return fnp._xp(a).partition(a, kth, axis=axis)
    axis = fnp._normalize_axis(axis, fnp.ndim(a))
    perm = argpartition(a, kth, axis=axis)
    return fnp.take_along_axis(a, perm, axis)


def searchsorted(a: Any, v: Any, side: str = "left", sorter: Any = None) -> Any:
    """``numpy.searchsorted`` (no derivative); under vmap ``a`` may be batched too."""
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right' (got {side!r})")
    if fnp.ndim(a) != 1:
        raise ValueError("object too deep for desired array")
    if sorter is not None:
        a = fnp.take(a, sorter)
    return _sort.searchsorted_p.bind(a, v, side=side)


def select(condlist: Sequence[Any], choicelist: Sequence[Any], default: Any = 0) -> Any:
    """``numpy.select``: the first choice whose condition holds, else ``default``."""
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if len(choicelist) == 0:
        raise ValueError("select with an empty condition list is not possible")
    for i, c in enumerate(condlist):
        if fnp._dtype(c).kind != "b":
            raise TypeError(f"invalid entry {i} in condlist: should be boolean ndarray")
    dt = fnp.result_type(*choicelist, default)
    shape = numpy.broadcast_shapes(*[fnp.shape(c) for c in (*condlist, *choicelist)])
    out = fnp.broadcast_to(fnp.astype(default, dt), shape)
    for cond, choice in zip(reversed(condlist), reversed(choicelist)):
        out = fnp.where(cond, fnp.astype(choice, dt), out)
    return out


# -- functional index updates --------------------------------------------------------------


def add_at(x: Any, index: Any, values: Any) -> Any:
    """``numpy.add.at`` as a function: a new array, ``x`` with ``values`` added at
    ``index`` (repeated indices accumulate); ``x.at[index].add(values)``."""
    return x + fnp._scatter(x, index, values)


def _hits(x: Any, index: Any) -> Any:
    """How many times ``index`` hits each element of ``x`` (on ``x``'s backend)."""
    zeros = fnp.physical_zeros_like(x)
    ones = fnp.ones_like(fnp.getitem(zeros, index))
    return fnp._scatter(zeros, index, ones)


def _set_unique(x: Any, index: Any, values: Any, hits: Any) -> Any:
    return fnp.where(hits > 0, fnp._scatter(x, index, values), x)


def combine_at(x: Any, index: Any, values: Any, op: Any, name: str) -> Any:
    """``x`` with ``op(x[index], values)`` written at ``index``; repeated indices apply
    ``op`` once per occurrence, in index order (like ``numpy.<op>.at``)."""
    target = fnp.getitem(x, index)
    values = fnp.broadcast_to(values, fnp.shape(target))
    hits = _hits(x, index)
    if not (fnp.physical(hits) > 1).any():
        return _set_unique(x, index, fnp.astype(op(target, values), fnp._dtype(x)), hits)
    # Repeated indices: rounds of unique positions (the k-th occurrence of each position
    # in round k), found from the concrete flat positions of the index.
    spec, arrays = fnp.normalize_index(index, fnp.ndim(x))
    try:
        arrays = [a._concrete() if isinstance(a, Tracer) else a for a in arrays]
    except BatchedControlFlowError:
        raise UnsupportedOperationError(
            f"x.at[index].{name}(v) with repeated indices that differ across a vmap batch is "
            f"not supported; deduplicate the index, or apply the update outside vmap"
        ) from None
    xp = fnp._xp(x)
    positions = xp.arange(fnp.size(x)).reshape(fnp.shape(x))[build_index(spec, arrays)]
    flat_pos = numpy.asarray(positions.get() if hasattr(positions, "get") else positions).ravel()
    order = numpy.argsort(flat_pos, kind="stable")
    sorted_pos = flat_pos[order]
    starts = numpy.r_[True, sorted_pos[1:] != sorted_pos[:-1]]
    first = numpy.maximum.accumulate(numpy.where(starts, numpy.arange(len(order)), 0))
    rank = numpy.empty_like(order)
    rank[order] = numpy.arange(len(order)) - first
    out = fnp.ravel(x)
    flat_values = fnp.ravel(values)
    counts = fnp.physical_zeros_like(out)  # a template: only its shape is used
    for k in range(int(rank.max()) + 1):
        sel = numpy.nonzero(rank == k)[0]
        pos = xp.asarray(flat_pos[sel])
        new = op(fnp.getitem(out, pos), fnp.getitem(flat_values, xp.asarray(sel)))
        hits_k = _hits(counts, pos)
        out = _set_unique(out, pos, fnp.astype(new, fnp._dtype(x)), hits_k)
    return fnp.reshape(out, fnp.shape(x))
