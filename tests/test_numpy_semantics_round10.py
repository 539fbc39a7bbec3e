"""NumPy's semantics that probes of user code found missing or wrong: median with NaN
(SILENT: an odd-length row with a NaN gave a number), ufunc.reduceat on traced arrays."""

from __future__ import annotations

import numpy as np
import pytest

import ftransforms as ft
import ftransforms.numpy as fnp

ROWS = np.array(
    [[1.0, np.nan, 3.0, 0.5, 2.0], [1.0, 4.0, 3.0, 0.5, 2.0], [np.inf, 1.0, 2.0, 0.0, 5.0]]
)


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
def test_median_of_data_with_nan_is_nan_as_numpy(axis):
    with np.errstate(invalid="ignore"):
        want = np.median(ROWS, axis=axis)
        np.testing.assert_array_equal(fnp.median(ROWS, axis=axis), want)
        jm = ft.jit(lambda a: np.median(a, axis=axis))
        jm(ROWS[::-1].copy())
        np.testing.assert_array_equal(jm(ROWS), want)


def test_median_under_vmap_equals_the_loop():
    with np.errstate(invalid="ignore"):
        loop = np.array([np.median(r) for r in ROWS])
        np.testing.assert_array_equal(ft.vmap(np.median)(ROWS), loop)
        np.testing.assert_array_equal(
            ft.vmap(fnp.median)(ROWS[:, :4]), [np.median(r) for r in ROWS[:, :4]]
        )
    np.testing.assert_array_equal(ft.grad(np.median)(ROWS[1]), [0.0, 0.0, 0.0, 0.0, 1.0])


@pytest.mark.parametrize("indices", [[0, 4, 1, 5], [0, 3, 3, 7], [5], [2, 0]])
@pytest.mark.parametrize("ufunc", [np.add, np.multiply, np.maximum, np.minimum])
def test_reduceat_equals_numpy_under_vmap_and_jit(ufunc, indices):
    x = np.arange(8.0) * 1.5 - 3.0
    rows = np.stack([x, 2 * x, -x])
    loop = np.stack([ufunc.reduceat(r, indices) for r in rows])
    np.testing.assert_allclose(ft.vmap(lambda r: ufunc.reduceat(r, indices))(rows), loop)
    jr = ft.jit(lambda r: ufunc.reduceat(r, indices))
    jr(rows[1])
    np.testing.assert_allclose(jr(rows[0]), ufunc.reduceat(rows[0], indices))
    m = np.arange(12.0).reshape(3, 4)
    np.testing.assert_allclose(
        ft.vmap(lambda a: ufunc.reduceat(a, [0, 2], axis=1))(m[None])[0],
        ufunc.reduceat(m, [0, 2], axis=1),
    )


def test_reduceat_derivative_and_errors():
    x = np.arange(8.0) * 1.5 - 3.0
    idx = [0, 4, 1, 5]

    def f(v):
        return (np.add.reduceat(v**2, idx) * np.arange(1.0, 5.0)).sum()

    h = 1e-6
    fd = [(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(8)]
    np.testing.assert_allclose(ft.grad(f)(x), fd, rtol=1e-7)
    with pytest.raises(IndexError, match="out-of-bounds"):
        ft.vmap(lambda r: np.add.reduceat(r, [0, 9]))(x[None])


@pytest.mark.parametrize(
    ("a", "x"), [(1e6, 1e6 + 300.0), (1e6, 1e6 - 1000.0), (3e4, 3e4), (1e5, 1.01e5)]
)
def test_gammainc_derivative_in_a_for_large_shapes(a, x):
    """SILENT before: at a = 1e6 the 2000-term series gave 0.92 of dP/da.  Oracle: mpmath's
    derivative of the regularized incomplete gamma function at 30 digits."""
    mpmath = pytest.importorskip("mpmath")
    import ftransforms.scipy.special as fsp

    with mpmath.workdps(30):
        want = float(mpmath.diff(lambda s: mpmath.gammainc(s, 0, x, regularized=True), a))
    np.testing.assert_allclose(ft.grad(lambda s: fsp.gammainc(s, x))(a), want, rtol=1e-8)
    rows = np.array([a, a * 1.001])
    np.testing.assert_allclose(
        ft.vmap(ft.grad(lambda s: fsp.gammainc(s, x)))(rows),
        [ft.grad(lambda s: fsp.gammainc(s, x))(r) for r in rows],
    )
