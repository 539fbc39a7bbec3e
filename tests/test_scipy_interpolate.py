"""``ftransforms.scipy.interpolate``: CubicSpline, interp1d and RegularGridInterpolator,
differentiable in the data.  Oracles: SciPy's own interpolants (values, shapes, boundary
conditions, fill values), float64 central differences, a Python loop for vmap."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.interpolate as si

import ftransforms as ft
import ftransforms.scipy.interpolate as fi
from ftransforms.errors import UnsupportedOperationError

RNG = np.random.default_rng(0)
XN = np.linspace(-0.5, 5.5, 13)


def _data(n):
    x = np.sort(RNG.uniform(0, 5, size=n))
    x[0] = 0.0
    return x, RNG.normal(size=n), RNG.normal(size=(n, 2, 3))


def same(got, want, rtol=1e-8):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-12)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 9])
@pytest.mark.parametrize("bc", ["not-a-knot", "natural", "clamped", ((1, 0.5), (2, -1.0))], ids=str)
def test_cubic_spline_equals_scipy(n, bc):
    x, y, ys = _data(n)
    for nu in (0, 1, 2, 3):
        same(fi.CubicSpline(x, y, bc_type=bc)(XN, nu), si.CubicSpline(x, y, bc_type=bc)(XN, nu))
    if not isinstance(bc, tuple):  # SciPy wants a tuple's values shaped like y's rows
        same(fi.CubicSpline(x, ys, bc_type=bc)(XN[:4]), si.CubicSpline(x, ys, bc_type=bc)(XN[:4]))
        moved, at = np.moveaxis(ys, 0, 1), XN[:3].reshape(3, 1)
        same(
            fi.CubicSpline(x, moved, axis=1, bc_type=bc)(at),
            si.CubicSpline(x, moved, axis=1, bc_type=bc)(at),
        )
    same(fi.CubicSpline(x, y, extrapolate=False)(XN), si.CubicSpline(x, y, extrapolate=False)(XN))


KINDS = ["linear", "slinear", "nearest", "nearest-up", "previous", "next", "zero", "cubic"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("fill", [np.nan, "extrapolate", (-1.0, 2.0)], ids=str)
def test_interp1d_equals_scipy(kind, fill):
    x, y, ys = _data(6)
    kw = {"kind": kind, "bounds_error": False, "fill_value": fill}
    same(fi.interp1d(x, y, **kw)(XN), si.interp1d(x, y, **kw)(XN))
    kw = {"kind": kind, "bounds_error": False}
    same(fi.interp1d(x, ys, axis=0, **kw)(XN[2:5]), si.interp1d(x, ys, axis=0, **kw)(XN[2:5]))
    last = np.moveaxis(ys, 0, -1)
    same(fi.interp1d(x, last, **kw)(XN[2:5]), si.interp1d(x, last, **kw)(XN[2:5]))


def test_interp1d_sorts_and_checks_bounds_as_scipy():
    xs, ys = RNG.permutation(np.arange(6.0)), RNG.normal(size=6)
    same(fi.interp1d(xs, ys)(np.array([0.5, 4.2])), si.interp1d(xs, ys)(np.array([0.5, 4.2])))
    with pytest.raises(ValueError, match="above the interpolation range"):
        fi.interp1d(xs, ys)(np.array([7.0]))
    with pytest.raises(UnsupportedOperationError, match="kind='quadratic'"):
        fi.interp1d(xs, ys, kind="quadratic")


@pytest.mark.parametrize("method", ["linear", "nearest"])
def test_regular_grid_interpolator_equals_scipy(method):
    g1, g2 = np.linspace(0, 1, 4), np.linspace(-1, 1, 5)
    v, v3 = RNG.normal(size=(4, 5)), RNG.normal(size=(4, 5, 2))
    p = np.stack([RNG.uniform(0, 1, 7), RNG.uniform(-1, 1, 7)], -1)
    for values in (v, v3):
        same(
            fi.RegularGridInterpolator((g1, g2), values, method)(p),
            si.RegularGridInterpolator((g1, g2), values, method)(p),
        )
    kw = {"method": method, "bounds_error": False}
    same(
        fi.RegularGridInterpolator((g1, g2), v, **kw)(2 * p),
        si.RegularGridInterpolator((g1, g2), v, **kw)(2 * p),
    )
    kw["fill_value"] = None
    same(
        fi.RegularGridInterpolator((g1, g2), v, **kw)(1.5 * p),
        si.RegularGridInterpolator((g1, g2), v, **kw)(1.5 * p),
    )
    point = np.array([0.3, 0.2])
    same(
        fi.RegularGridInterpolator((g1, g2), v, method)(point),
        si.RegularGridInterpolator((g1, g2), v, method)(point),
    )
    with pytest.raises(ValueError, match="out of bounds"):
        fi.RegularGridInterpolator((g1, g2), v, method)(2 * p)


def test_gradients_in_the_data_and_the_point():
    x = np.linspace(0.0, 4.0, 6)
    y = np.sin(x)

    def f(values):
        at = np.array([0.3, 2.2, 3.9])
        return (
            (fi.CubicSpline(x, values)(at) ** 2).sum()
            + fi.interp1d(x, values, kind="cubic")(1.1)
            + fi.RegularGridInterpolator((x,), values)(np.array([[2.5]]))[0]
        )

    fd = np.array([(f(y + 1e-6 * e) - f(y - 1e-6 * e)) / 2e-6 for e in np.eye(6)])
    np.testing.assert_allclose(ft.grad(f)(y), fd, rtol=1e-6, atol=1e-9)

    def h(t):
        return fi.CubicSpline(x, y)(t) + fi.interp1d(x, y)(t)

    np.testing.assert_allclose(ft.grad(h)(1.3), (h(1.3 + 1e-6) - h(1.3 - 1e-6)) / 2e-6, rtol=1e-6)


def test_vmap_equals_the_loop():
    x = np.linspace(0.0, 4.0, 6)
    ys = RNG.normal(size=(3, 6))
    got = ft.vmap(lambda y: fi.CubicSpline(x, y)(2.2) + fi.interp1d(x, y)(0.7))(ys)
    want = [si.CubicSpline(x, y)(2.2) + si.interp1d(x, y)(0.7) for y in ys]
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_scipys_class_on_a_tracer_computes_or_names_the_problem():
    # SciPy's CubicSpline built from traced data is answered (NOTE [SciPy's interpolators
    # on traced data]; tests/test_scipy_round4.py); a smoothing spline is not
    x = np.arange(6.0)
    np.testing.assert_allclose(ft.grad(lambda y: si.CubicSpline(x, y)(2.0))(x**2)[2], 1.0)
    with pytest.raises(UnsupportedOperationError, match=r"UnivariateSpline.*not affine in y"):
        ft.grad(lambda y: si.UnivariateSpline(x, y)(1.5))(x)
