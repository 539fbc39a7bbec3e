"""NumPy users' code under the transforms (round 14 probes), with ``import numpy as np``
(the protocols): values and dtypes as eager NumPy's, vmap as the loop over the rows,
derivatives as float64 central differences."""

from __future__ import annotations

import numpy as np
import pytest

import ftransforms as ft


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(got, want)


def _rows(f, rows):
    return np.stack([np.asarray(f(r)) for r in rows])


# -- out=None: NumPy's default, passed on by wrappers -----------------------------------------

OUT_NONE = [
    lambda v: np.cumsum(v, axis=1, out=None),
    lambda v: np.cumprod(v, axis=0, out=None),
    lambda v: np.argmax(v, axis=1, out=None),
    lambda v: np.argmin(v, out=None),
    lambda v: np.any(v > 1, axis=0, out=None),
    lambda v: np.all(v > 1, out=None),
    lambda v: np.round(v, 1, out=None),
    lambda v: np.around(v, out=None),
    lambda v: np.clip(v, 1.0, 2.0, out=None),
    lambda v: np.fix(v, out=None),
    lambda v: np.isposinf(v, out=None),
]


@pytest.mark.parametrize("f", OUT_NONE)
def test_out_none_is_the_call_without_out(f):
    """error before: ``np.cumsum(x, out=None)`` (and argmax, any, all, round, clip, fix,
    isposinf) raised ``TypeError: unexpected keyword argument 'out'`` on a tracer."""
    rows = np.array([[[1.25, 2.5, -4.0], [0.5, 3.0, 1.0]], [[2.0, -1.5, 0.25], [1.0, 1.0, 7.0]]])
    _same(ft.vmap(f)(rows), _rows(f, rows))
    _same(ft.jit(f)(rows[0]), f(rows[0]))
