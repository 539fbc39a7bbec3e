"""NumPy users' code under the transforms (round 13 probes), with ``import numpy as np``
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


# -- np.linspace with a traced end point ------------------------------------------------------

LINSPACE_CASES = [(0.3, 1.9, 11, True), (-1.3, 2.9, 10, False), (1e-3, 3.3, 50, True)]


@pytest.mark.parametrize(("a", "b", "num", "endpoint"), LINSPACE_CASES)
@pytest.mark.parametrize("dtype", [None, int, np.float32])
def test_linspace_of_a_traced_start_is_numpys_to_the_bit(a, b, num, endpoint, dtype):
    """SILENT before: ``start + (stop - start) * (i / div)`` differed from NumPy's
    ``i * step + start`` in the last bit, and ``dtype=int`` truncated toward 0 where NumPy
    floors (-0.4 gave 0, NumPy -1)."""

    def f(s):
        return np.linspace(s, b, num, endpoint=endpoint, dtype=dtype)

    want = f(a)
    _same(ft.vmap(f)(np.array([a, a]))[1], want)
    _same(ft.jvp(f, (a,), (1.0,))[0], want)
    _same(ft.jit(f)(a), want)


def test_linspace_of_float16_end_points_is_float16_and_its_derivative():
    """SILENT before: float16 traced end points gave a float32 array."""
    a = np.array([1.0, 2.5], np.float16)

    def f(v):
        return np.linspace(v[0], v[1], 4)

    _same(ft.jvp(f, (a,), (np.ones_like(a),))[0], f(a))
    x = np.array([0.2, 1.1])
    jac = ft.jacrev(lambda v: np.linspace(v[0], v[1], 4, endpoint=False))(x)
    t = np.arange(4) / 4
    np.testing.assert_allclose(jac, np.stack([1 - t, t], 1), rtol=1e-15)
    out, step = ft.jvp(lambda s: np.linspace(s, 1.9, 5, retstep=True)[1], (0.3,), (1.0,))
    assert out == np.linspace(0.3, 1.9, 5, retstep=True)[1] and step == -0.25
