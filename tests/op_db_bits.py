"""Op-database entries of the bit-level primitives of ``ft.lax`` (``ftransforms/ops/bits.py``):
``bitcast_convert_type`` (no derivative; the reference is JAX's, bit for bit) and
``reduce_precision`` (JAX's linear derivative rule: the tangent is reduced too, so finite
differences do not apply; the compositions are compared with JAX).

Format: ``tests/op_db.py``.
"""

from __future__ import annotations

import jax
import numpy as np

from ftransforms import lax
from tests.op_db_base import JNP, S, add


def _bitcast(m, x, *, new_dtype):
    if m is JNP:
        return jax.lax.bitcast_convert_type(x, new_dtype)
    return lax.bitcast_convert_type(x, new_dtype)


def _bitcast_samples(d):
    x = d.u((2, 3))
    narrow = np.dtype(f"u{x.dtype.itemsize // 2}")
    wide = np.dtype(f"i{x.dtype.itemsize}")
    pairs = (
        d.u((3, 2)).astype(np.dtype(f"f{x.dtype.itemsize // 2}")) if x.dtype.itemsize > 4 else None
    )
    samples = [
        S("2x3_same_size", x, new_dtype=wide),
        S("2x3_narrower", x, new_dtype=narrow),
        S("scalar_same_size", d.u(()), new_dtype=wide),
    ]
    if pairs is not None:
        samples.append(S("3x2_wider", pairs, new_dtype=x.dtype))
    return samples


add(
    "bitcast_convert_type",
    _bitcast,
    _bitcast_samples,
    nondiff=True,
    ref="jax",
    via_numpy=False,
)


def _reduce_precision(m, x, *, exponent_bits, mantissa_bits):
    if m is JNP:
        return jax.lax.reduce_precision(x, exponent_bits, mantissa_bits)
    return lax.reduce_precision(x, exponent_bits, mantissa_bits)


add(
    "reduce_precision",
    _reduce_precision,
    lambda d: [
        S("2x3_bfloat16", d.u((2, 3)), exponent_bits=8, mantissa_bits=7),
        S("4_float16", d.u((4,)), exponent_bits=5, mantissa_bits=10),
        S("scalar_e4m3", d.u(()), exponent_bits=4, mantissa_bits=3),
    ],
    fd=False,
    ref="jax",
    via_numpy=False,
    xfail={
        "test_vjp_vs_jvp": "linear only up to its rounding, as JAX's rule: J t and J^T c are "
        "rounded values, so <J t, c> and <t, J^T c> differ by rounding errors"
    },
)
