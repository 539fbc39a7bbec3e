"""``ftransforms.numpy`` (``fnp``): NumPy's API over arrays and tracers.

Every function here works on numpy/cupy arrays, Python scalars and tracers alike, and is
what tracers' operators, methods and the NumPy protocols call.  With no transform active
the cost over the NumPy call is one ``Primitive.bind``.

Example:
    >>> import numpy as np
    >>> import ftransforms.numpy as fnp
    >>> from ftransforms import grad
    >>> float(grad(lambda x: fnp.sum(fnp.sin(x) ** 2))(np.zeros(3))[0])
    0.0
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Sequence
from typing import Any

import numpy

from ftransforms.backend import namespace_of
from ftransforms.core.errors import (
    BatchedControlFlowError,
    UnsupportedOperationError,
)
from ftransforms.core.index_spec import ARRAY
from ftransforms.core.stack import current_stack as _current_stack
from ftransforms.core.tracer import Tracer
from ftransforms.ops import elementwise as _ew
from ftransforms.ops import indexing as _ix
from ftransforms.ops import linalg as _la
from ftransforms.ops import reductions as _red
from ftransforms.ops import shape as _sh

# -- constants and dtypes (numpy's own objects) -------------------------------------------

pi, e, inf, nan, newaxis = numpy.pi, numpy.e, numpy.inf, numpy.nan, None
float16, float32, float64 = numpy.float16, numpy.float32, numpy.float64
complex64, complex128 = numpy.complex64, numpy.complex128
int8, int16, int32, int64 = numpy.int8, numpy.int16, numpy.int32, numpy.int64
uint8, bool_ = numpy.uint8, numpy.bool_
dtype, finfo, iinfo = numpy.dtype, numpy.finfo, numpy.iinfo
ndarray = numpy.ndarray

# -- helpers ---------------------------------------------------------------------------


def physical(x: Any) -> Any:
    """The backend array under ``x`` (all transform levels' batch axes included)."""
    return x._physical() if isinstance(x, Tracer) else x


def peek(x: Any) -> Any:
    """The concrete values under ``x``, for a rule that decides something from the data.

    We are eager, so the data is always there; but a ``jit`` recording that depends on it
    is only valid for this data, so the read is reported (NOTE [value-dependent traces]).
    """
    if isinstance(x, Tracer):
        for interp in _current_stack():
            note = getattr(interp, "note_value_read", None)
            if note is not None:
                note("a rule that reads the data (fnp.peek)")
        return x._physical()
    return x


def _xp(*values: Any):
    return namespace_of(*[physical(v) for v in values])


def shape(x: Any) -> tuple[int, ...]:
    """``numpy.shape``: the logical shape of an array, tracer or scalar."""
    s = getattr(x, "shape", None)
    return tuple(s) if s is not None else numpy.shape(x)


def ndim(x: Any) -> int:
    """``numpy.ndim`` for arrays, tracers and scalars."""
    return len(shape(x))


def size(x: Any, axis: int | None = None) -> int:
    """``numpy.size`` for arrays, tracers and scalars."""
    s = shape(x)
    return math.prod(s) if axis is None else s[axis]


def result_type(*args: Any) -> Any:
    """``numpy.result_type`` that accepts tracers."""
    return numpy.result_type(*[a.dtype if isinstance(a, Tracer) else a for a in args])


def _dtype(x: Any) -> Any:
    d = getattr(x, "dtype", None)
    return d if d is not None else numpy.result_type(x)


def _normalize_axis(axis: int, rank: int) -> int:
    if not -rank <= axis < rank:
        raise numpy.exceptions.AxisError(axis, rank)
    return axis % rank if rank else 0


def _normalize_axes(axis: Any, rank: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(rank))
    if isinstance(axis, (int, numpy.integer)):
        return (_normalize_axis(int(axis), rank),)
    axes = tuple(_normalize_axis(int(a), rank) for a in axis)
    if len(set(axes)) != len(axes):
        raise ValueError(f"duplicate value in 'axis': {axis}")
    return tuple(sorted(axes))


# -- elementwise (the primitives themselves are the functions) ----------------------------

negative = _ew.negative_p
exp, exp2, expm1 = _ew.exp_p, _ew.exp2_p, _ew.expm1_p
log, log2, log10, log1p = _ew.log_p, _ew.log2_p, _ew.log10_p, _ew.log1p_p
sqrt, cbrt, square, reciprocal = _ew.sqrt_p, _ew.cbrt_p, _ew.square_p, _ew.reciprocal_p
sin, cos, tan = _ew.sin_p, _ew.cos_p, _ew.tan_p
arcsin, arccos, arctan = _ew.arcsin_p, _ew.arccos_p, _ew.arctan_p
sinh, cosh, tanh = _ew.sinh_p, _ew.cosh_p, _ew.tanh_p
arcsinh, arccosh, arctanh = _ew.arcsinh_p, _ew.arccosh_p, _ew.arctanh_p
abs = absolute = fabs = _ew.abs_p  # noqa: A001
sign, floor, ceil, trunc, rint = _ew.sign_p, _ew.floor_p, _ew.ceil_p, _ew.trunc_p, _ew.rint_p
fix = trunc
isnan, isinf, isfinite, signbit = _ew.isnan_p, _ew.isinf_p, _ew.isfinite_p, _ew.signbit_p
logical_not, invert = _ew.logical_not_p, _ew.invert_p
add, subtract, multiply = _ew.add_p, _ew.subtract_p, _ew.multiply_p
divide = true_divide = _ew.divide_p
power, maximum, minimum, arctan2 = _ew.power_p, _ew.maximum_p, _ew.minimum_p, _ew.arctan2_p
remainder = mod = _ew.remainder_p
floor_divide = _ew.floor_divide_p
equal, not_equal, less, less_equal = _ew.equal_p, _ew.not_equal_p, _ew.less_p, _ew.less_equal_p
greater, greater_equal = _ew.greater_p, _ew.greater_equal_p
logical_and, logical_or, logical_xor = _ew.logical_and_p, _ew.logical_or_p, _ew.logical_xor_p
bitwise_and, bitwise_or, bitwise_xor = _ew.bitwise_and_p, _ew.bitwise_or_p, _ew.bitwise_xor_p


def positive(x: Any) -> Any:
    return x


def round(x: Any, decimals: int = 0) -> Any:  # noqa: A001
    """``numpy.round`` (derivative 0)."""
    return _ew.round_p.bind(x, decimals=decimals)


around = round


def stop_gradient(x: Any) -> Any:
    """``x`` with no derivative at any transform level (still batched under ``vmap``).

    Example:
        >>> from ftransforms import grad
        >>> float(grad(lambda x: x * stop_gradient(x))(3.0))
        3.0
    """
    return _ew.stop_gradient_p.bind(x)


def where(condition: Any, x: Any = None, y: Any = None) -> Any:
    """``numpy.where(condition, x, y)``; the one-argument form is :func:`nonzero`."""
    if x is None and y is None:
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("where: give both x and y, or neither")
    return _ew.select_p.bind(condition, x, y)


def clip(a: Any, a_min: Any = None, a_max: Any = None, **kwargs: Any) -> Any:
    """``numpy.clip`` (``min``/``max`` keywords accepted too); ties share the derivative."""
    a_min = kwargs.pop("min", a_min)
    a_max = kwargs.pop("max", a_max)
    if kwargs:
        raise UnsupportedOperationError(f"clip: unsupported arguments {sorted(kwargs)}")
    if a_min is not None:
        a = maximum(a, a_min)
    if a_max is not None:
        a = minimum(a, a_max)
    return a


def astype(x: Any, dtype: Any, copy: bool = True) -> Any:
    """``x.astype(dtype)``; a cast to an integer or bool dtype has no derivative."""
    dtype = numpy.dtype(dtype)
    if _dtype(x) == dtype and not isinstance(x, (int, float, complex)):
        return x
    return _ew.convert_p.bind(x, dtype=dtype)


def real(x: Any) -> Any:
    """Real part (real inputs are returned as they are)."""
    return _ew.real_p.bind(x) if _dtype(x).kind == "c" else x


def imag(x: Any) -> Any:
    """Imaginary part (constant zeros for real inputs)."""
    return _ew.imag_p.bind(x) if _dtype(x).kind == "c" else zeros_like(x)


def conj(x: Any) -> Any:
    """Complex conjugate (real inputs are returned as they are)."""
    return _ew.conj_p.bind(x) if _dtype(x).kind == "c" else x


def angle(z: Any, deg: bool = False) -> Any:
    """``numpy.angle``: the argument of a complex number (0 or pi for real inputs)."""
    out = arctan2(imag(z), real(z)) if _dtype(z).kind == "c" else arctan2(zeros_like(z), z)
    return out * (180.0 / pi) if deg else out


conjugate = conj

# -- reductions --------------------------------------------------------------------------


def _prepare(x: Any, dtype: Any) -> Any:
    return x if dtype is None else astype(x, dtype)


def sum(x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False, **kw: Any) -> Any:  # noqa: A001
    """``numpy.sum`` (with ``where=`` and ``initial=``)."""
    x = _prepare(x, dtype)
    x, initial = _masked("sum", x, kw, 0)
    _no_extra("sum", kw)
    out = _red.reduce_sum_p.bind(x, axis=_normalize_axes(axis, ndim(x)), keepdims=keepdims)
    return out if initial is None else out + initial


def prod(x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False, **kw: Any) -> Any:
    """``numpy.prod`` (its derivative is right where elements are zero)."""
    _no_extra("prod", kw)
    x = _prepare(x, dtype)
    return _red.reduce_prod_p.bind(x, axis=_normalize_axes(axis, ndim(x)), keepdims=keepdims)


def max(x: Any, axis: Any = None, keepdims: bool = False, **kw: Any) -> Any:  # noqa: A001
    """``numpy.max`` (with ``where=`` and ``initial=``); tied maxima share the derivative."""
    x, initial = _masked("max", x, kw, None)
    _no_extra("max", kw)
    out = _red.reduce_max_p.bind(x, axis=_normalize_axes(axis, ndim(x)), keepdims=keepdims)
    return out if initial is None else maximum(initial, out)


def min(x: Any, axis: Any = None, keepdims: bool = False, **kw: Any) -> Any:  # noqa: A001
    """``numpy.min`` (with ``where=`` and ``initial=``); tied minima share the derivative."""
    x, initial = _masked("min", x, kw, None)
    _no_extra("min", kw)
    out = _red.reduce_min_p.bind(x, axis=_normalize_axes(axis, ndim(x)), keepdims=keepdims)
    return out if initial is None else minimum(initial, out)


amax, amin = max, min


def any(x: Any, axis: Any = None, keepdims: bool = False) -> Any:  # noqa: A001
    """``numpy.any``."""
    return _red.reduce_any_p.bind(x, axis=_normalize_axes(axis, ndim(x)), keepdims=keepdims)


def all(x: Any, axis: Any = None, keepdims: bool = False) -> Any:  # noqa: A001
    """``numpy.all``."""
    return _red.reduce_all_p.bind(x, axis=_normalize_axes(axis, ndim(x)), keepdims=keepdims)


def _reduced_count(x: Any, axis: Any) -> int:
    s = shape(x)
    return math.prod(s[a] for a in _normalize_axes(axis, len(s)))


def _float_input(x: Any, dtype: Any) -> Any:
    if dtype is not None:
        return astype(x, dtype)
    if _dtype(x).kind not in "fc":
        return astype(x, numpy.float64)
    return x


def mean(x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False, **kw: Any) -> Any:
    """``numpy.mean`` (with ``where=``)."""
    mask = kw.pop("where", None)
    _no_extra("mean", kw)
    x = _float_input(x, dtype)
    if mask is None or mask is True:
        return sum(x, axis=axis, keepdims=keepdims) / _reduced_count(x, axis)
    count = sum(broadcast_to(mask, shape(x)), axis=axis, keepdims=keepdims)
    return sum(x, axis=axis, keepdims=keepdims, where=mask) / astype(count, _dtype(x))


def var(
    x: Any, axis: Any = None, dtype: Any = None, ddof: int = 0, keepdims: bool = False, **kw: Any
) -> Any:
    """``numpy.var``."""
    _no_extra("var", kw)
    x = _float_input(x, dtype)
    centred = x - mean(x, axis=axis, keepdims=True)
    return sum(centred * centred, axis=axis, keepdims=keepdims) / (_reduced_count(x, axis) - ddof)


def std(
    x: Any, axis: Any = None, dtype: Any = None, ddof: int = 0, keepdims: bool = False, **kw: Any
) -> Any:
    """``numpy.std``."""
    return sqrt(var(x, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims, **kw))


def _arg_extremum(prim, x, axis, keepdims):
    if axis is None:
        out = prim.bind(ravel(x), axis=0, keepdims=False)
        return reshape(out, (1,) * ndim(x)) if keepdims else out
    return prim.bind(x, axis=_normalize_axis(axis, ndim(x)), keepdims=keepdims)


def argmax(x: Any, axis: int | None = None, keepdims: bool = False) -> Any:
    """``numpy.argmax``."""
    return _arg_extremum(_red.argmax_p, x, axis, keepdims)


def argmin(x: Any, axis: int | None = None, keepdims: bool = False) -> Any:
    """``numpy.argmin``."""
    return _arg_extremum(_red.argmin_p, x, axis, keepdims)


def cumsum(x: Any, axis: int | None = None, dtype: Any = None) -> Any:
    """``numpy.cumsum``."""
    x = _prepare(x, dtype)
    if axis is None:
        x, axis = ravel(x), 0
    return _red.cumsum_p.bind(x, axis=_normalize_axis(axis, ndim(x)))


def _masked(name: str, x: Any, kw: dict, identity: Any) -> tuple[Any, Any]:
    """Apply a reduction's ``where=`` mask (masked-out elements become the identity:
    ``identity``, or the lowest/highest value of the dtype for max/min, as in JAX); pops
    ``where`` and ``initial`` from ``kw`` and returns ``(x, initial)``."""
    mask, initial = kw.pop("where", None), kw.pop("initial", None)
    if mask is None or mask is True:
        return x, initial
    if identity is None:
        if initial is None:
            raise ValueError(
                f"reduction operation '{name}' does not have an identity, so to use a where "
                f"mask one has to specify 'initial'"
            )
        dt = _dtype(x)
        low, high = (-inf, inf) if dt.kind == "f" else (iinfo(dt).min, iinfo(dt).max)
        identity = low if name == "max" else high
    return where(mask, x, full((), identity, dtype=_dtype(x), like=x)), initial


def _no_extra(name: str, kw: dict) -> None:
    if kw.get("out") is not None:
        raise UnsupportedOperationError(
            f"{name}(..., out=...): ftransforms arrays are immutable; use the return value"
        )
    extra = sorted(k for k, v in kw.items() if k != "out" and v is not None)
    if extra:
        raise UnsupportedOperationError(f"{name}: unsupported arguments {extra}")


# -- shape -----------------------------------------------------------------------------


def _resolve_shape(newshape: Any, total: int) -> tuple[int, ...]:
    if isinstance(newshape, (int, numpy.integer)):
        newshape = (int(newshape),)
    newshape = tuple(int(n) for n in newshape)
    if -1 in newshape:
        known = math.prod(n for n in newshape if n != -1)
        missing = total // known if known else 0
        newshape = tuple(missing if n == -1 else n for n in newshape)
    if math.prod(newshape) != total:
        raise ValueError(f"cannot reshape array of size {total} into shape {newshape}")
    return newshape


def reshape(x: Any, shape: Any = None, order: str = "C", **kw: Any) -> Any:  # noqa: A002
    """``numpy.reshape`` (C order)."""
    shape = kw.pop("newshape", shape)
    if order != "C":
        raise UnsupportedOperationError("reshape: only order='C' is supported")
    old = globals()["shape"](x)
    new = _resolve_shape(shape, math.prod(old))
    if new == old and not isinstance(x, (int, float, complex)):
        return x
    return _sh.reshape_p.bind(x, shape=new)


def ravel(x: Any, order: str = "C") -> Any:
    """``numpy.ravel``."""
    return reshape(x, (-1,), order=order)


def transpose(x: Any, axes: Any = None) -> Any:
    """``numpy.transpose``."""
    rank = ndim(x)
    axes = tuple(reversed(range(rank))) if axes is None else tuple(axes)
    if len(axes) != rank:
        raise ValueError(f"transpose: axes {axes} don't match an array of rank {rank}")
    axes = tuple(_normalize_axis(int(a), rank) for a in axes)
    if axes == tuple(range(rank)):
        return x
    return _sh.transpose_p.bind(x, axes=axes)


def permute_dims(x: Any, axes: Any = None) -> Any:
    return transpose(x, axes)


def moveaxis(x: Any, source: Any, destination: Any) -> Any:
    """``numpy.moveaxis``."""
    rank = ndim(x)
    src = _normalize_axes_ordered(source, rank)
    dst = _normalize_axes_ordered(destination, rank)
    if len(src) != len(dst):
        raise ValueError("moveaxis: source and destination need the same number of axes")
    order = [n for n in range(rank) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return transpose(x, order)


def _normalize_axes_ordered(axis: Any, rank: int) -> list[int]:
    if isinstance(axis, (int, numpy.integer)):
        return [_normalize_axis(int(axis), rank)]
    return [_normalize_axis(int(a), rank) for a in axis]


def swapaxes(x: Any, axis1: int, axis2: int) -> Any:
    """``numpy.swapaxes``."""
    rank = ndim(x)
    order = list(range(rank))
    a, b = _normalize_axis(axis1, rank), _normalize_axis(axis2, rank)
    order[a], order[b] = order[b], order[a]
    return transpose(x, order)


def squeeze(x: Any, axis: Any = None) -> Any:
    """``numpy.squeeze``."""
    s = shape(x)
    if axis is None:
        axes = tuple(i for i, n in enumerate(s) if n == 1)
    else:
        axes = _normalize_axes(axis, len(s))
        for a in axes:
            if s[a] != 1:
                raise ValueError("cannot select an axis to squeeze out which has size != 1")
    return reshape(x, tuple(n for i, n in enumerate(s) if i not in axes))


def expand_dims(x: Any, axis: Any) -> Any:
    """``numpy.expand_dims``."""
    s = shape(x)
    axes = _normalize_axes(axis, len(s) + (1 if isinstance(axis, int) else len(axis)))
    it = iter(s)
    new = tuple(1 if i in axes else next(it) for i in range(len(s) + len(axes)))
    return reshape(x, new)


def broadcast_to(x: Any, shape: Any) -> Any:  # noqa: A002
    """``numpy.broadcast_to`` (read-only result, like NumPy's)."""
    shape = (int(shape),) if isinstance(shape, (int, numpy.integer)) else tuple(shape)
    if globals()["shape"](x) == shape and not isinstance(x, (int, float, complex)):
        return x
    return _sh.broadcast_to_p.bind(x, shape=shape)


def broadcast_shapes(*shapes: Any) -> tuple[int, ...]:
    return numpy.broadcast_shapes(*shapes)


def broadcast_arrays(*arrays: Any) -> list[Any]:
    """``numpy.broadcast_arrays``."""
    target = numpy.broadcast_shapes(*[shape(a) for a in arrays])
    return [broadcast_to(a, target) for a in arrays]


def atleast_1d(*arys: Any) -> Any:
    res = [a if ndim(a) >= 1 else reshape(a, (1,)) for a in arys]
    return res[0] if len(res) == 1 else res


def atleast_2d(*arys: Any) -> Any:
    res = []
    for a in arys:
        r = ndim(a)
        res.append(a if r >= 2 else reshape(a, (1,) * (2 - r) + shape(a)))
    return res[0] if len(res) == 1 else res


def concatenate(arrays: Sequence[Any], axis: int | None = 0, **kw: Any) -> Any:
    """``numpy.concatenate``."""
    _no_extra("concatenate", kw)
    arrays = [asarray(a) if isinstance(a, (list, tuple)) else a for a in arrays]
    if axis is None:
        arrays, axis = [ravel(a) for a in arrays], 0
    if not arrays:
        raise ValueError("need at least one array to concatenate")
    rank = ndim(arrays[0])
    if rank == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    if len(arrays) == 1:
        return arrays[0]
    return _sh.concatenate_p.bind(*arrays, axis=_normalize_axis(axis, rank))


def stack(arrays: Sequence[Any], axis: int = 0, **kw: Any) -> Any:
    """``numpy.stack``."""
    _no_extra("stack", kw)
    arrays = list(arrays)
    if not arrays:
        raise ValueError("need at least one array to stack")
    shapes = {shape(a) for a in arrays}
    if len(shapes) != 1:
        raise ValueError("all input arrays must have the same shape")
    axis = _normalize_axis(axis, ndim(arrays[0]) + 1)
    expanded = [expand_dims(a, axis) for a in arrays]
    return expanded[0] if len(expanded) == 1 else _sh.concatenate_p.bind(*expanded, axis=axis)


def vstack(arrays: Sequence[Any]) -> Any:
    return concatenate([atleast_2d(a) for a in arrays], axis=0)


def hstack(arrays: Sequence[Any]) -> Any:
    arrays = [atleast_1d(a) for a in arrays]
    return concatenate(arrays, axis=0 if ndim(arrays[0]) == 1 else 1)


def _split_points(n: int, indices_or_sections: Any, exact: bool) -> list[int]:
    if isinstance(indices_or_sections, (int, numpy.integer)):
        k = int(indices_or_sections)
        if exact and n % k:
            raise ValueError("array split does not result in an equal division")
        base, extra = divmod(n, k)
        points, pos = [], 0
        for i in range(k - 1):
            pos += base + (1 if i < extra else 0)
            points.append(pos)
        return points
    return [int(i) for i in indices_or_sections]


def split(x: Any, indices_or_sections: Any, axis: int = 0) -> list[Any]:
    """``numpy.split``."""
    return _split(x, indices_or_sections, axis, exact=True)


def array_split(x: Any, indices_or_sections: Any, axis: int = 0) -> list[Any]:
    """``numpy.array_split``."""
    return _split(x, indices_or_sections, axis, exact=False)


def _split(x, indices_or_sections, axis, exact):
    axis = _normalize_axis(axis, ndim(x))
    n = shape(x)[axis]
    bounds = [0] + _split_points(n, indices_or_sections, exact) + [n]
    lead = (slice(None),) * axis
    return [getitem(x, lead + (slice(a, b),)) for a, b in zip(bounds[:-1], bounds[1:])]


def flip(x: Any, axis: Any = None) -> Any:
    """``numpy.flip``."""
    axes = _normalize_axes(axis, ndim(x))
    return getitem(
        x, tuple(slice(None, None, -1) if i in axes else slice(None) for i in range(ndim(x)))
    )


# -- indexing --------------------------------------------------------------------------


def _index_array(entry: Any) -> Any:
    if isinstance(entry, (list, tuple)):
        entry = numpy.asarray(entry)
    if _dtype(entry).kind == "b":
        raise TypeError("boolean index handled by the caller")
    if _dtype(entry).kind not in "iu":
        raise IndexError(
            "only integers, slices (`:`), ellipsis (`...`), None and integer or boolean "
            "arrays are valid indices"
        )
    return entry


def _bool_to_int_arrays(mask: Any) -> list[Any]:
    if isinstance(mask, Tracer):
        try:
            concrete = mask._concrete()
        except BatchedControlFlowError:
            raise BatchedControlFlowError(
                "x[mask] with a batched boolean mask under vmap: the result's size would "
                "differ across the batch.  Use fnp.where(mask, x, 0) (or a sum weighted by "
                "the mask) instead."
            ) from None
    else:
        concrete = numpy.asarray(mask) if isinstance(mask, (list, bool)) else mask
    return list(concrete.nonzero())


def normalize_index(index: Any, rank: int) -> tuple[tuple, list]:
    """Split a NumPy index into a static spec (with ``ARRAY`` placeholders) and arrays."""
    if not isinstance(index, tuple):
        index = (index,)
    spec: list = []
    arrays: list = []
    consumed = 0
    ellipsis_at = None
    for entry in index:
        if entry is None:
            spec.append(None)
        elif entry is Ellipsis:
            if ellipsis_at is not None:
                raise IndexError("an index can only have a single ellipsis ('...')")
            ellipsis_at = len(spec)
        elif isinstance(entry, slice):
            spec.append(entry)
            consumed += 1
        elif isinstance(entry, (bool, numpy.bool_)):
            raise UnsupportedOperationError("indexing with a Python bool is not supported")
        elif isinstance(entry, (int, numpy.integer)):
            spec.append(int(entry))
            consumed += 1
        else:
            if isinstance(entry, (list, tuple)):
                entry = numpy.asarray(entry)
            if _dtype(entry).kind == "b":
                parts = _bool_to_int_arrays(entry)
                spec.extend([ARRAY] * len(parts))
                arrays.extend(parts)
                consumed += len(parts)
                continue
            spec.append(ARRAY)
            arrays.append(_index_array(entry))
            consumed += 1
    if consumed > rank:
        raise IndexError(
            f"too many indices for array: array is {rank}-dimensional, but {consumed} were indexed"
        )
    fill = [slice(None)] * (rank - consumed)
    if ellipsis_at is None:
        spec.extend(fill)
    else:
        spec[ellipsis_at:ellipsis_at] = fill
    return tuple(spec), arrays


def _index_arrays_on(x: Any, arrays: list) -> list:
    """Host (NumPy) index arrays moved to ``x``'s backend, as CuPy does implicitly."""
    if not arrays:
        return arrays
    xp = _xp(x)
    if xp is numpy:
        return arrays
    return [xp.asarray(a) if type(a) is numpy.ndarray else a for a in arrays]


def getitem(x: Any, index: Any) -> Any:
    """``x[index]``: basic slicing and integer-array indexing (boolean masks outside vmap)."""
    spec, arrays = normalize_index(index, ndim(x))
    return _ix.getitem_p.bind(x, *_index_arrays_on(x, arrays), index=spec)


def _scatter(x: Any, index: Any, values: Any) -> Any:
    """Zeros shaped like ``x`` with ``values`` added at ``index`` (duplicates add up)."""
    spec, arrays = normalize_index(index, ndim(x))
    arrays = _index_arrays_on(x, arrays)
    target = shape(_ix.getitem_p.bind(zeros_like(x), *arrays, index=spec))
    if not isinstance(values, Tracer):
        values = _xp(x).asarray(values, dtype=_dtype(x))  # on x's backend, not NumPy's
    values = astype(broadcast_to(values, target), _dtype(x))
    return _ix.getitem_transpose_p.bind(values, *arrays, index=spec, shape=shape(x))


class _IndexUpdate:
    def __init__(self, x: Any, index: Any) -> None:
        self.x, self.index = x, index

    def get(self) -> Any:
        return getitem(self.x, self.index)

    def add(self, values: Any) -> Any:
        """``x`` with ``values`` added at the index (repeated indices accumulate)."""
        return self.x + _scatter(self.x, self.index, values)

    def set(self, values: Any) -> Any:
        """``x`` with the indexed elements replaced by ``values``."""
        x = self.x
        hits = _scatter(physical_zeros_like(x), self.index, 1)
        if (peek(hits) > 1).any():
            raise UnsupportedOperationError(
                "x.at[index].set(v) with repeated indices: which value wins is undefined; "
                "deduplicate the index, or use .add()"
            )
        return where(hits > 0, _scatter(x, self.index, values), x)

    def multiply(self, values: Any) -> Any:
        """``x`` with the indexed elements multiplied by ``values`` (repeats accumulate)."""
        return _more.combine_at(self.x, self.index, values, multiply, "multiply")

    def divide(self, values: Any) -> Any:
        """``x`` with the indexed elements divided by ``values`` (repeats accumulate)."""
        return _more.combine_at(self.x, self.index, values, divide, "divide")

    def power(self, values: Any) -> Any:
        """``x`` with the indexed elements raised to ``values`` (repeats accumulate)."""
        return _more.combine_at(self.x, self.index, values, power, "power")

    def min(self, values: Any) -> Any:  # noqa: A003
        """``x`` with the indexed elements replaced by their minimum with ``values``."""
        return _more.combine_at(self.x, self.index, values, minimum, "min")

    def max(self, values: Any) -> Any:  # noqa: A003
        """``x`` with the indexed elements replaced by their maximum with ``values``."""
        return _more.combine_at(self.x, self.index, values, maximum, "max")


class IndexUpdateHelper:
    """``x.at[index].set(v)`` / ``.add(v)`` / ``.get()``: functional index updates."""

    def __init__(self, x: Any) -> None:
        self.x = x

    def __getitem__(self, index: Any) -> _IndexUpdate:
        return _IndexUpdate(self.x, index)


def physical_zeros_like(x: Any) -> Any:
    return _xp(x).zeros(shape(x), dtype=numpy.int64)


def take_along_axis(arr: Any, indices: Any, axis: int | None) -> Any:
    """``numpy.take_along_axis``."""
    if axis is None:
        arr, axis = ravel(arr), 0
    rank = ndim(arr)
    axis = _normalize_axis(axis, rank)
    if ndim(indices) != rank:
        raise ValueError("take_along_axis: indices and arr must have the same number of dims")
    xp = _xp(arr)
    index = []
    for i, n in enumerate(shape(arr)):
        if i == axis:
            index.append(indices)
        else:
            index.append(xp.arange(n).reshape((1,) * i + (n,) + (1,) * (rank - i - 1)))
    return getitem(arr, tuple(index))


def take(a: Any, indices: Any, axis: int | None = None) -> Any:
    """``numpy.take``."""
    if axis is None:
        return getitem(ravel(a), indices)
    axis = _normalize_axis(axis, ndim(a))
    return getitem(a, (slice(None),) * axis + (indices,))


def nonzero(x: Any) -> tuple[Any, ...]:
    """``numpy.nonzero`` (not under vmap: the result's size would vary)."""
    return tuple(_bool_to_int_arrays(x if _dtype(x).kind == "b" else not_equal(x, 0)))


# -- linear algebra --------------------------------------------------------------------


def matmul(a: Any, b: Any) -> Any:
    """``numpy.matmul`` / ``@``."""
    ra, rb = ndim(a), ndim(b)
    if ra == 0 or rb == 0:
        raise ValueError("matmul: input operand does not have enough dimensions")
    return _la.matmul_p.bind(a, b)


def dot(a: Any, b: Any) -> Any:
    """``numpy.dot``."""
    ra, rb = ndim(a), ndim(b)
    if ra == 0 or rb == 0:
        return multiply(a, b)
    if rb <= 2:
        return matmul(a, b)
    return tensordot(a, b, axes=([ra - 1], [rb - 2]))


def vdot(a: Any, b: Any) -> Any:
    """``numpy.vdot`` (real inputs)."""
    return sum(ravel(a) * ravel(b))


def inner(a: Any, b: Any) -> Any:
    """``numpy.inner``."""
    if ndim(a) == 0 or ndim(b) == 0:
        return multiply(a, b)
    return tensordot(a, b, axes=([ndim(a) - 1], [ndim(b) - 1]))


def outer(a: Any, b: Any) -> Any:
    """``numpy.outer``."""
    return multiply(reshape(a, (-1, 1)), reshape(b, (1, -1)))


def kron(a: Any, b: Any) -> Any:
    """``numpy.kron``: a broadcast product of interleaved axes, reshaped."""
    ra, rb = ndim(a), ndim(b)
    if ra == 0 or rb == 0:
        return multiply(a, b)
    nd = builtins.max(ra, rb)
    sa = (1,) * (nd - ra) + shape(a)
    sb = (1,) * (nd - rb) + shape(b)
    a2 = reshape(a, tuple(n for d in sa for n in (d, 1)))
    b2 = reshape(b, tuple(n for d in sb for n in (1, d)))
    return reshape(multiply(a2, b2), tuple(x * y for x, y in zip(sa, sb)))


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def tensordot(a: Any, b: Any, axes: Any = 2) -> Any:
    """``numpy.tensordot``."""
    ra, rb = ndim(a), ndim(b)
    if isinstance(axes, (int, numpy.integer)):
        axes_a, axes_b = list(range(ra - int(axes), ra)), list(range(int(axes)))
    else:
        axes_a, axes_b = axes
        axes_a = [axes_a] if isinstance(axes_a, (int, numpy.integer)) else list(axes_a)
        axes_b = [axes_b] if isinstance(axes_b, (int, numpy.integer)) else list(axes_b)
    axes_a = [_normalize_axis(int(i), ra) for i in axes_a]
    axes_b = [_normalize_axis(int(i), rb) for i in axes_b]
    sa = list(_LETTERS[:ra])
    sb = list(_LETTERS[ra : ra + rb])
    for i, j in zip(axes_a, axes_b):
        sb[j] = sa[i]
    out = [c for i, c in enumerate(sa) if i not in axes_a]
    out += [c for j, c in enumerate(sb) if j not in axes_b]
    return einsum(f"{''.join(sa)},{''.join(sb)}->{''.join(out)}", a, b)


def _parse_einsum(subscripts: str, operands: Sequence[Any]) -> str:
    subscripts = subscripts.replace(" ", "")
    if "->" in subscripts:
        ins, out = subscripts.split("->")
    else:
        ins, out = subscripts, None
    in_list = ins.split(",")
    if len(in_list) != len(operands):
        raise ValueError(f"einsum: {len(in_list)} operand subscripts for {len(operands)} operands")
    used = "".join(in_list) + (out or "")
    free = [c for c in _LETTERS if c not in used]
    ell_rank = 0
    for s, op in zip(in_list, operands):
        if "..." in s:
            ell_rank = builtins.max(ell_rank, ndim(op) - (len(s) - 3))
    ell = "".join(free[:ell_rank])
    expanded = []
    for s, op in zip(in_list, operands):
        if "..." in s:
            k = ndim(op) - (len(s) - 3)
            s = s.replace("...", ell[ell_rank - k :] if k else "")
        if len(s) != ndim(op):
            raise ValueError(
                f"einsum: operand subscripts {s!r} do not match an operand of rank {ndim(op)}"
            )
        expanded.append(s)
    if out is None:
        counts = {c: "".join(expanded).count(c) for c in "".join(expanded)}
        out = ell + "".join(sorted(c for c, k in counts.items() if k == 1 and c not in ell))
    else:
        out = out.replace("...", ell)
    return ",".join(expanded) + "->" + out


def einsum(subscripts: str, *operands: Any, optimize: Any = False, **kw: Any) -> Any:
    """``numpy.einsum`` (subscripts form, with ellipsis and implicit output)."""
    _no_extra("einsum", kw)
    return _la.einsum_p.bind(
        *operands, subscripts=_parse_einsum(subscripts, operands), optimize=optimize
    )


def trace(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    """``numpy.trace`` (offset 0)."""
    if offset:
        raise UnsupportedOperationError("trace: offset != 0 is not supported yet")
    rank = ndim(a)
    a = moveaxis(a, (axis1, axis2), (rank - 2, rank - 1))
    k = builtins.min(shape(a)[-2:])
    if shape(a)[-2:] != (k, k):  # a non-square matrix: its diagonal has min(n, m) elements
        a = getitem(a, (Ellipsis, slice(0, k), slice(0, k)))
    return einsum("...ii->...", a)


# -- creation --------------------------------------------------------------------------


def asarray(x: Any, dtype: Any = None, **kw: Any) -> Any:
    """``numpy.asarray`` that keeps tracers (and stacks lists that hold tracers)."""
    if isinstance(x, Tracer):
        return x if dtype is None else astype(x, dtype)
    if isinstance(x, (list, tuple)) and _holds_tracer(x):
        out = stack([asarray(v) for v in x])
        return out if dtype is None else astype(out, dtype)
    xp = kw.pop("like", None)
    xp = _xp(xp) if xp is not None else namespace_of(x)
    return xp.asarray(x, dtype=dtype)


def array(x: Any, dtype: Any = None, copy: bool = True, **kw: Any) -> Any:
    """``numpy.array`` that keeps tracers."""
    if isinstance(x, Tracer) or (isinstance(x, (list, tuple)) and _holds_tracer(x)):
        return asarray(x, dtype=dtype)
    return namespace_of(x).array(x, dtype=dtype, copy=copy)


def _holds_tracer(x: Any) -> bool:
    if isinstance(x, Tracer):
        return True
    if isinstance(x, (list, tuple)):
        return builtins.any(_holds_tracer(v) for v in x)
    return False


def _like_xp(like: Any):
    return numpy if like is None else _xp(like)


def zeros(shape: Any, dtype: Any = float, like: Any = None) -> Any:  # noqa: A002
    return _like_xp(like).zeros(shape, dtype=dtype)


def ones(shape: Any, dtype: Any = float, like: Any = None) -> Any:  # noqa: A002
    return _like_xp(like).ones(shape, dtype=dtype)


def empty(shape: Any, dtype: Any = float, like: Any = None) -> Any:  # noqa: A002
    return _like_xp(like).empty(shape, dtype=dtype)


def full(shape: Any, fill_value: Any, dtype: Any = None, like: Any = None) -> Any:  # noqa: A002
    if isinstance(fill_value, Tracer):
        out = broadcast_to(fill_value, tuple(shape) if not isinstance(shape, int) else (shape,))
        return out if dtype is None else astype(out, dtype)
    return _like_xp(like).full(shape, fill_value, dtype=dtype)


def eye(n: int, m: int | None = None, k: int = 0, dtype: Any = float, like: Any = None) -> Any:
    return _like_xp(like).eye(n, m, k, dtype=dtype)


def identity(n: int, dtype: Any = float, like: Any = None) -> Any:
    return eye(n, dtype=dtype, like=like)


def arange(*args: Any, dtype: Any = None, like: Any = None) -> Any:
    return _like_xp(like).arange(*args, dtype=dtype)


def linspace(
    start: Any, stop: Any, num: int = 50, endpoint: bool = True, dtype: Any = None, like: Any = None
) -> Any:
    return _like_xp(like).linspace(start, stop, num, endpoint=endpoint, dtype=dtype)


def zeros_like(x: Any, dtype: Any = None, shape: Any = None) -> Any:  # noqa: A002
    """Zeros of ``x``'s logical shape and dtype (a constant, even when ``x`` is a tracer)."""
    s = globals()["shape"](x) if shape is None else shape
    return _xp(x).zeros(s, dtype=dtype or _dtype(x))


def ones_like(x: Any, dtype: Any = None, shape: Any = None) -> Any:  # noqa: A002
    """Ones of ``x``'s logical shape and dtype (a constant)."""
    s = globals()["shape"](x) if shape is None else shape
    return _xp(x).ones(s, dtype=dtype or _dtype(x))


def empty_like(x: Any, dtype: Any = None, shape: Any = None) -> Any:  # noqa: A002
    return zeros_like(x, dtype=dtype, shape=shape)


def full_like(x: Any, fill_value: Any, dtype: Any = None, shape: Any = None) -> Any:  # noqa: A002
    """``numpy.full_like``; a tracer ``fill_value`` is broadcast (and stays traced)."""
    s = globals()["shape"](x) if shape is None else shape
    dt = dtype or _dtype(x)
    if isinstance(fill_value, Tracer):
        return astype(broadcast_to(fill_value, s), dt)
    return _xp(x).full(s, fill_value, dtype=dt)


def copy(x: Any) -> Any:
    """``numpy.copy`` (tracers are immutable, so they are returned as they are)."""
    return x if isinstance(x, Tracer) else _xp(x).array(x, copy=True)


def allclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08) -> bool:
    return bool(all(abs(a - b) <= atol + rtol * abs(b)))


from ftransforms.numpy._builders import *  # noqa: E402,F401,F403  (block, insert, logspace, ...)
from ftransforms.numpy._extra import *  # noqa: E402,F401,F403  (and more)
from ftransforms.numpy._more import *  # noqa: E402,F401,F403  (more of NumPy's API)
from ftransforms.numpy._polynomials import *  # noqa: E402,F401,F403  (polyval, vander, ...)
from ftransforms.numpy._quantiles import *  # noqa: E402,F401,F403  (quantile, percentile, ...)
from ftransforms.numpy._sets_and_indices import *  # noqa: E402,F401,F403  (unique, ...)
from ftransforms.numpy._signal import *  # noqa: E402,F401,F403  (interp, convolve, gradient, ...)
from ftransforms.numpy._statistics import *  # noqa: E402,F401,F403  (cov, histogram, ...)

# isort: split
from ftransforms.numpy import _more, fft, linalg, protocol  # noqa: E402,F401  (use this module)
