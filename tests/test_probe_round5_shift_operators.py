"""Probe round 5: Python's shift operators on traced integer arrays.  ``x << 1``,
``1 << x``, ``x >> 1``, ``64 >> x`` and ``a <<= 1`` raised ``TypeError: unsupported operand
type(s) for <<`` under every transform (the tracer lacked ``__lshift__``/``__rshift__`` and
their reflected forms; ``np.left_shift`` worked).  Oracle: NumPy on each row."""

import numpy as np
import pytest

import ftransforms as ft

X = np.arange(6, dtype=np.uint8).reshape(2, 3)


def shifted_in_place(x):
    a = x.copy()
    a <<= 1
    a |= 1
    a >>= np.uint8(1)
    return a


@pytest.mark.parametrize(
    "f",
    [
        lambda x: x << 1,
        lambda x: 1 << x,
        lambda x: x >> 1,
        lambda x: 64 >> x,
        lambda x: np.int64(3) << x,
        shifted_in_place,
    ],
)
def test_shift_operators_on_a_batched_integer_array_follow_numpy(f):
    ref = np.stack([f(x) for x in X])
    for got in (ft.vmap(f)(X), ft.jit(ft.vmap(f))(X)):
        np.testing.assert_array_equal(got, ref)
        assert got.dtype == ref.dtype
