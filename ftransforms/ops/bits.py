"""Bit-level primitives behind ``ft.lax.bitcast_convert_type`` and ``ft.lax.reduce_precision``.

``bitcast_convert_type(x, new_dtype=)`` reinterprets the bits of ``x`` as ``new_dtype``:
the same item size keeps the shape; a smaller one adds a last axis of ``old // new``
items; a larger one consumes a last axis of ``new // old`` items.  It has no derivative
and a batching rule that keeps the batch axis in front (the last axis is the one that
changes).

``reduce_precision(x, exponent_bits=, mantissa_bits=)`` rounds floats to the nearest value
(ties to even) with that many exponent and mantissa bits, overflowing to infinity and
flushing what is below the smallest normal number to zero, in ``x``'s dtype (XLA's
``ReducePrecision``).  Like JAX, its derivative treats it as linear (the tangent and
the cotangent are reduced in precision too), so it is declared with a transpose, itself;
it batches as an elementwise operator.

Example:
    >>> import numpy as np
    >>> import ftransforms  # declares the primitives
    >>> from ftransforms.ops.bits import bitcast_convert_type_p
    >>> bitcast_convert_type_p(np.float32(1.0), new_dtype=np.dtype(np.int32)).item()
    1065353216
"""

from __future__ import annotations

from typing import Any

import numpy

from ftransforms.core.primitive import defop


def _c_order(xp: Any, x: Any) -> Any:
    """``x`` as a C-contiguous array of its own shape (``ascontiguousarray`` makes a 0-d
    array 1-d)."""
    return xp.ascontiguousarray(x).reshape(x.shape)


def _bitcast_impl(xp: Any, x: Any, *, new_dtype: numpy.dtype) -> Any:
    x = _c_order(xp, xp.asarray(x))
    old, new = x.dtype.itemsize, new_dtype.itemsize
    if new == old:
        return x.view(new_dtype)
    if new < old:  # one more axis, of old // new items
        return x.reshape(*x.shape, 1).view(new_dtype)
    return x.view(new_dtype).reshape(x.shape[:-1])  # the last axis (new // old items) merged


bitcast_convert_type_p = defop(
    "bitcast_convert_type",
    _bitcast_impl,
    nondiff=True,
    doc=(
        "``bitcast_convert_type(x, new_dtype=d)``: the bits of ``x`` read as dtype ``d`` "
        "(JAX's ``bitcast_convert_type_p``); a smaller item size adds a last axis, a larger "
        "one consumes it."
    ),
)


def _float_layout(dtype: numpy.dtype) -> tuple[int, int, numpy.dtype]:
    """(exponent bits, mantissa bits, unsigned type of the same size) of a float dtype."""
    info = numpy.finfo(dtype)
    return int(info.nexp), int(info.nmant), numpy.dtype(f"u{dtype.itemsize}")


def _reduce_precision_impl(xp: Any, x: Any, *, exponent_bits: int, mantissa_bits: int) -> Any:
    x = xp.asarray(x)
    e_src, m_src, utype = _float_layout(x.dtype)

    def u(v: int) -> Any:  # a constant of the unsigned type, on x's backend
        return xp.asarray(v, dtype=utype)

    bits = _c_order(xp, x).view(utype).copy()
    if mantissa_bits < m_src:
        drop = m_src - mantissa_bits
        last_kept = 1 << drop
        kept_bit = xp.right_shift(xp.bitwise_and(bits, u(last_kept)), u(drop))
        rounding = xp.add(kept_bit, u((last_kept >> 1) - 1))  # ties to even
        truncate = u((1 << (8 * x.dtype.itemsize)) - last_kept)  # ~(last_kept - 1)
        bits = xp.bitwise_and(xp.add(bits, rounding), truncate)
    if exponent_bits < e_src:
        sign = u(1 << (8 * x.dtype.itemsize - 1))
        exp_mask = u(((1 << e_src) - 1) << m_src)
        bias = (1 << (e_src - 1)) - 1
        reduced_bias = (1 << (exponent_bits - 1)) - 1
        exponent = xp.bitwise_and(bits, exp_mask)
        overflows = xp.greater(exponent, u((bias + reduced_bias) << m_src))
        underflows = xp.less_equal(exponent, u((bias - reduced_bias) << m_src))
        signed_zero = xp.bitwise_and(bits, sign)
        signed_inf = xp.bitwise_or(signed_zero, exp_mask)
        bits = xp.where(overflows, signed_inf, xp.where(underflows, signed_zero, bits))
    out = bits.view(x.dtype)
    return xp.where(xp.isnan(x), x, out)


def _reduce_precision_transpose(y_bar: Any, x: Any, **params: Any) -> Any:
    return reduce_precision_p.bind(y_bar, **params)


reduce_precision_p = defop(
    "reduce_precision",
    _reduce_precision_impl,
    transpose=_reduce_precision_transpose,
    family="elementwise",
    doc=(
        "``reduce_precision(x, exponent_bits=e, mantissa_bits=m)``: ``x`` rounded to a "
        "float format of ``e`` exponent and ``m`` mantissa bits, in ``x``'s dtype (JAX's "
        "``reduce_precision_p``; linear for its derivative, as in JAX)."
    ),
)

__all__ = ["bitcast_convert_type_p", "reduce_precision_p"]
