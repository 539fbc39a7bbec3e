"""JAX users' programs, round 14 (``import ftransforms as jax``), compared with JAX (x64).
Each test failed before the change it names:

* ``lax.top_k`` ranks floats in XLA's total order, as JAX: ``NaN`` above ``inf``, ``0.0``
  above ``-0.0``, a negative ``NaN`` below ``-inf`` (NaNs were ranked last: a beam search
  or a top-k mask over scores holding a NaN silently picked other entries, and the
  gradient went to them), and it takes JAX's ``axis=``;
* ``lax.conv_general_dilated`` (and ``lax.conv``...) of integer operands is an integer
  convolution, as JAX (it came back ``float64``: ``ft.nn.conv2d``'s torch-style float
  promotion), and ``preferred_element_type`` is the type it computes in.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest

import ftransforms as ft

jax.config.update("jax_enable_x64", True)

SCORES = np.array([3.0, -np.nan, np.nan, 1.0, -np.inf, np.inf, -0.0, 0.0, 3.0])


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_top_k_ranks_nan_and_signed_zero_like_jax(dtype):
    x = SCORES.astype(dtype)
    want_v, want_i = jax.lax.top_k(x, 9)
    for got_v, got_i in [ft.lax.top_k(x, 9), ft.jit(lambda v: ft.lax.top_k(v, 9))(x)]:
        np.testing.assert_array_equal(got_i, want_i)
        np.testing.assert_array_equal(np.signbit(got_v), np.signbit(want_v))
        np.testing.assert_array_equal(got_v, want_v)
    # the gradient goes to the entries JAX picks; under vmap each row ranks its own NaNs
    w = np.arange(1.0, 5.0)
    pick = lambda lax: lambda v: (lax.top_k(v, 4)[0][1:] * w[1:]).sum()  # noqa: E731
    np.testing.assert_array_equal(
        ft.grad(pick(ft.lax))(SCORES), np.asarray(jax.grad(pick(jax.lax))(SCORES))
    )
    rows = np.stack([SCORES, SCORES[::-1]])
    np.testing.assert_array_equal(
        ft.vmap(lambda v: ft.lax.top_k(v, 3)[1])(rows),
        np.asarray(jax.vmap(lambda v: jax.lax.top_k(v, 3)[1])(rows)),
    )


def test_top_k_axis_and_bool_like_jax():
    x = np.array([[1.0, 5.0, np.nan], [3.0, 2.0, -1.0]])
    for axis in (0, 1, -2):
        for got, want in zip(ft.lax.top_k(x, 1, axis=axis), jax.lax.top_k(x, 1, axis=axis)):
            np.testing.assert_array_equal(got, want)
    b = np.array([True, False, True, False])
    np.testing.assert_array_equal(ft.lax.top_k(b, 3)[1], jax.lax.top_k(b, 3)[1])


CONV_X = (np.arange(2 * 3 * 5 * 4).reshape(2, 3, 5, 4) % 23 - 11).astype(np.int8)
CONV_W = (np.arange(4 * 3 * 3 * 2).reshape(4, 3, 3, 2) % 7 - 3).astype(np.int8)


@pytest.mark.parametrize(("dtype", "preferred"), [(np.int32, None), (np.int8, np.int32)])
def test_integer_convolutions_keep_jax_s_dtype(dtype, preferred):
    # a quantized layer: lax.conv of integer operands is an integer convolution (it came
    # back float64), and preferred_element_type is the type it accumulates in (int8
    # operands with int32 do not wrap)
    x, w = CONV_X.astype(dtype), CONV_W.astype(dtype)
    kw = {"preferred_element_type": preferred}
    want = np.asarray(jax.lax.conv_general_dilated(x, w, (2, 1), [(1, 0), (0, 2)], **kw))
    got = ft.lax.conv_general_dilated(x, w, (2, 1), [(1, 0), (0, 2)], **kw)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
