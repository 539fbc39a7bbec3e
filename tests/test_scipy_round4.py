"""SciPy users' code under the transforms, round 4.

scipy.signal: ``lfilter``/``filtfilt`` with a number for ``a``, ``czt``/``zoom_fft`` (their
imaginary parts were lost under jit/vmap), ``medfilt``/``medfilt2d``/``order_filter``,
``upfirdn``/``resample_poly``/``decimate(ftype='fir')``, ``find_peaks`` and the peak
properties, ``freqz``/``freqz_sos``; scipy.optimize: ``golden``/``brent``/``fminbound``/
``minimize_scalar``/``fmin``/``minimize`` (``golden`` under grad returned 0),
``least_squares``, ``curve_fit``, ``nnls``, ``lsq_linear``, ``linear_sum_assignment``;
scipy.interpolate built from traced data (``CubicSpline``, ``interp1d``,
``make_interp_spline``, ``splrep``/``splev``, the univariate splines, Pchip/Akima,
``griddata``, ``interpn``, ``RBFInterpolator``, ...) and ``integrate`` between traced
bounds; scipy.integrate: ``romb``, ``cumulative_simpson``, ``dblquad``/``nquad``,
``quad_vec``; scipy.spatial: ``distance_matrix``, ``minkowski_distance``,
``jensenshannon``, ``KDTree.query``; scipy.sparse: ``LinearOperator`` products, the
constructors' clear refusal of traced values.

Oracles: SciPy's values, float64 central differences (directional), closed forms (the
implicit derivatives of minimizers and fits), a Python loop for vmap, eager calls for jit
replays.  Calls go through SciPy's own names (NOTE [SciPy's own names under the
transforms]).
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
import scipy.integrate
import scipy.interpolate
import scipy.optimize
import scipy.signal
import scipy.sparse
import scipy.sparse.linalg
import scipy.spatial
import scipy.spatial.distance

import ftransforms as ft
from ftransforms.errors import UnsupportedOperationError

RNG = np.random.default_rng(20261127)


def _dirderiv(f, x, d, eps=1e-6):
    return (f(x + eps * d) - f(x - eps * d)) / (2 * eps)


def _check_all(f, x, rtol=1e-6, atol=1e-8, batch=None):
    """``f`` (an array function through SciPy's own names) under jit (first call and a
    replay), grad of a weighted sum (against central differences) and vmap (against the
    loop), all against SciPy's eager values."""
    x = np.asarray(x, dtype=float)
    ref = np.asarray(f(x))
    jf = ft.jit(f)
    np.testing.assert_allclose(jf(x), ref, rtol=1e-10, atol=1e-12)
    x2 = 1.01 * x + 0.003
    np.testing.assert_allclose(jf(x2), f(x2), rtol=1e-10, atol=1e-12)
    w = RNG.normal(size=ref.shape)
    d = RNG.normal(size=x.shape)

    def loss(v):
        return (f(v) * w).sum()

    g = ft.grad(loss)(x)
    np.testing.assert_allclose(
        np.sum(g * d), _dirderiv(lambda v: np.sum(f(v) * w), x, d), rtol=rtol, atol=atol
    )
    xs = np.stack([x, 0.98 * x - 0.01, 1.02 * x + 0.02]) if batch is None else batch
    np.testing.assert_allclose(ft.vmap(f)(xs), np.stack([f(v) for v in xs]), rtol=1e-10, atol=1e-12)


# -- scipy.signal ----------------------------------------------------------------------------


def test_lfilter_with_a_number_is_fir_filtering():
    h = RNG.normal(size=5)
    x = RNG.normal(size=24)
    _check_all(lambda v: scipy.signal.lfilter(h, 1.0, v), x)
    _check_all(lambda v: scipy.signal.lfilter(2.0, 1.0, v), x)
    _check_all(lambda v: scipy.signal.lfilter([1.0, 2.0], 2.0, v, zi=[0.5])[0], x)
    _check_all(lambda v: scipy.signal.filtfilt([1.0, 1.0], 2.0, v), x)
    _check_all(lambda v: scipy.signal.lfilter(v[:3], 2.0, x), x)  # traced b, a number


def test_czt_and_zoom_fft_keep_their_imaginary_parts():
    # SciPy's czt on a tracer lost the imaginary parts under jit/vmap (a silent wrong value)
    x = RNG.normal(size=10)
    for f in (
        lambda v: scipy.signal.czt(v, 4),
        lambda v: scipy.signal.czt(v, 7, w=np.exp(-0.3j), a=0.9 * np.exp(0.2j)),
        lambda v: scipy.signal.zoom_fft(v, [0.1, 0.6], 8),
        lambda v: scipy.signal.zoom_fft(v, 1.0, endpoint=True, fs=3),
        lambda v: scipy.signal.czt(v.reshape(2, 5), 3, axis=0),
    ):
        _check_all(lambda v, f=f: np.abs(f(v)), x)
        _check_all(lambda v, f=f: f(v).imag, x)


def test_median_and_order_filters_zero_padded():
    x = RNG.normal(size=24)
    plus = np.array([[0, 1, 0], [1, 1, 1], [0, 1, 0]])
    for f in (
        lambda v: scipy.signal.medfilt(v),
        lambda v: scipy.signal.medfilt(v, 5),
        lambda v: scipy.signal.medfilt2d(v.reshape(4, 6), [3, 5]),
        lambda v: scipy.signal.order_filter(v.reshape(4, 6), plus, 1),
        lambda v: scipy.signal.medfilt(v.reshape(2, 3, 4), [1, 3, 3]),
    ):
        _check_all(f, x)


def test_upfirdn_resample_poly_and_fir_decimate():
    x, h = RNG.normal(size=30), RNG.normal(size=5)
    for f in (
        lambda v: scipy.signal.upfirdn(h, v, 2, 3),
        lambda v: scipy.signal.upfirdn(v[:4], x, 1, 2),  # traced filter
        lambda v: scipy.signal.upfirdn(h, v.reshape(10, 3), 2, 1, axis=0),
        lambda v: scipy.signal.resample_poly(v, 2, 3),
        lambda v: scipy.signal.resample_poly(v.reshape(10, 3), 4, 3),
        lambda v: scipy.signal.resample_poly(v, 3, 2, padtype="median"),
        lambda v: scipy.signal.resample_poly(v, 2, 1, window=h),
        lambda v: scipy.signal.decimate(v, 3, ftype="fir"),  # SciPy's, through resample_poly
    ):
        _check_all(f, x)
    with pytest.raises(UnsupportedOperationError, match="padtype='line'"):
        ft.grad(lambda v: scipy.signal.resample_poly(v, 2, 1, padtype="line").sum())(x)


def test_find_peaks_values_differentiate_through_the_indices():
    x = np.sin(np.linspace(0, 20, 50)) + 0.1 * RNG.normal(size=50)
    peaks3 = scipy.signal.find_peaks(x, prominence=0.5)[0]
    batch = np.stack([x, 1.1 * x + 0.02, 0.9 * x])  # the same peaks in every row
    for f in (
        lambda v: v[scipy.signal.find_peaks(v)[0]],
        lambda v: scipy.signal.find_peaks(v, height=0)[1]["peak_heights"],
        lambda v: scipy.signal.find_peaks(v, prominence=0.1)[1]["prominences"],
        lambda v: scipy.signal.find_peaks(v, width=1)[1]["widths"],
        lambda v: scipy.signal.find_peaks(v, width=1, rel_height=0.8)[1]["left_ips"],
        lambda v: scipy.signal.find_peaks(v, threshold=0)[1]["right_thresholds"],
        lambda v: scipy.signal.peak_prominences(v, peaks3)[0],
        lambda v: scipy.signal.peak_widths(v, peaks3, rel_height=1.0)[0],
        lambda v: v[scipy.signal.argrelmax(v)[0]],
        lambda v: v[scipy.signal.argrelextrema(v, np.less, order=2)[0]],
    ):
        _check_all(f, x, batch=batch)


def test_freqz_and_freqz_sos_of_traced_coefficients():
    # (real and imaginary parts: |H| is not smooth where a low-pass H nears 0)
    b, a = scipy.signal.butter(3, 0.2)
    sos = scipy.signal.butter(4, 0.2, output="sos")
    grid = np.linspace(0, 0.5, 7)

    def parts(h):
        return np.concatenate([h.real, h.imag])

    for f, data in (
        (lambda v: parts(scipy.signal.freqz(v, a, worN=16)[1]), b),
        (lambda v: parts(scipy.signal.freqz(b, v, worN=16)[1]), a),
        (lambda v: parts(scipy.signal.freqz(v, a, worN=grid, fs=1.0)[1]), b),
        (lambda v: parts(scipy.signal.freqz(v, worN=9, whole=True)[1]), b),
        (  # the sections' numerators traced (SciPy checks that a[0] is 1)
            lambda v: parts(
                scipy.signal.freqz_sos(np.concatenate([v.reshape(2, 3), sos[:, 3:]], 1), worN=16)[1]
            ),
            sos[:, :3].ravel(),
        ),
    ):
        _check_all(f, data)


# -- scipy.optimize: scalar minimizers --------------------------------------------------------


def _quartic_argmin_slope(x_star):
    """``d x*/d c`` for ``x* = argmin (x - c)^2 + x^4``: ``2 / (2 + 12 x*^2)`` (implicit
    function theorem on ``2 (x - c) + 4 x^3 = 0``)."""
    return 2.0 / (2.0 + 12.0 * x_star**2)


@pytest.mark.parametrize(
    "call",
    [
        lambda f: scipy.optimize.golden(f, tol=1e-12),
        lambda f: scipy.optimize.brent(f, tol=1e-12),
        lambda f: scipy.optimize.fminbound(f, -2.0, 2.0, xtol=1e-12),
        lambda f: scipy.optimize.minimize_scalar(f).x,
        lambda f: scipy.optimize.minimize_scalar(f, method="golden", tol=1e-12).x,
        lambda f: (
            scipy.optimize.minimize_scalar(
                f, bounds=(-2, 2), method="bounded", options={"xatol": 1e-12}
            ).x
        ),
    ],
)
def test_scalar_minimizers_differentiate_the_argmin(call):
    # golden under grad returned 0 (its bracket points are constants): a silent wrong answer
    def argmin(c):
        return call(lambda x: (x - c) ** 2 + x**4)

    for c in (0.7, -0.4):
        x_star = argmin(c)
        assert float(ft.jit(argmin)(c)) == float(x_star)
        np.testing.assert_allclose(ft.grad(argmin)(c), _quartic_argmin_slope(x_star), rtol=1e-6)
    cs = np.array([0.7, -0.4, 1.3])
    np.testing.assert_allclose(ft.vmap(argmin)(cs), [argmin(c) for c in cs], rtol=1e-12)


def test_scalar_minimizers_args_fval_and_bounds():
    def fval(c):
        return scipy.optimize.golden(lambda x, c: (x - c) ** 2 + x**4, args=(c,), full_output=True)[
            1
        ]

    c = 0.7
    x_star = scipy.optimize.golden(lambda x: (x - c) ** 2 + x**4)
    np.testing.assert_allclose(ft.grad(fval)(c), -2 * (x_star - c), rtol=1e-6)  # envelope
    res_fun = ft.grad(lambda c: scipy.optimize.minimize_scalar(lambda x: (x - c) ** 2 + x**4).fun)
    np.testing.assert_allclose(res_fun(c), -2 * (x_star - c), rtol=1e-6)

    def on_bound(v):  # the minimum sits on the upper bound v[1] when v[0] > v[1]
        return scipy.optimize.fminbound(lambda x: (x - v[0]) ** 2, -2.0, v[1], xtol=1e-12)

    v = np.array([0.7, 0.4])
    np.testing.assert_allclose(ft.jit(on_bound)(v), on_bound(v), rtol=1e-14)
    np.testing.assert_allclose(ft.grad(on_bound)(v), [0.0, 1.0], atol=1e-12)
    np.testing.assert_allclose(ft.grad(on_bound)(np.array([0.2, 0.4])), [1.0, 0.0], atol=1e-9)


# -- scipy.interpolate: interpolators of traced data ---------------------------------------------

XS = np.linspace(0.0, 3.0, 8)
YS = np.sin(XS)
QS = np.array([0.3, 1.1, 2.2, 2.9])


@pytest.mark.parametrize(
    "make",
    [
        lambda y: scipy.interpolate.CubicSpline(XS, y)(QS),
        lambda y: scipy.interpolate.CubicSpline(XS, y, bc_type="natural").derivative()(QS),
        lambda y: scipy.interpolate.CubicSpline(XS, y, bc_type=((1, 0.5), (2, 0.0)))(QS, 1),
        lambda y: np.atleast_1d(scipy.interpolate.CubicSpline(XS, y).integrate(0.1, 2.5)),
        lambda y: scipy.interpolate.CubicSpline(XS, y).antiderivative()(QS),
        lambda y: scipy.interpolate.CubicSpline(XS, y).c.ravel(),
        lambda y: scipy.interpolate.interp1d(XS, y)(QS),
        lambda y: scipy.interpolate.interp1d(XS, y, kind="quadratic")(QS),
        lambda y: scipy.interpolate.interp1d(XS, y, bounds_error=False, fill_value=2.0)(QS + 0.5),
        lambda y: scipy.interpolate.make_interp_spline(XS, y)(QS),
        lambda y: scipy.interpolate.make_interp_spline(XS, y, k=5).derivative(2)(QS),
        lambda y: scipy.interpolate.BarycentricInterpolator(XS, y)(QS),
        lambda y: scipy.interpolate.KroghInterpolator(XS, y)(QS),
        lambda y: scipy.interpolate.krogh_interpolate(XS, y, QS),
        lambda y: scipy.interpolate.barycentric_interpolate(XS, y, QS),
    ],
)
def test_1d_interpolators_built_from_traced_data(make):
    _check_all(make, YS)


def test_pchip_and_akima_of_traced_data():
    y = np.sin(XS) + 0.3 * np.cos(5 * XS)
    y3 = np.stack([y, y**2, -y], axis=1).ravel()
    for f, data in (
        (lambda v: scipy.interpolate.PchipInterpolator(XS, v)(QS), y),
        (lambda v: scipy.interpolate.PchipInterpolator(XS, v)(QS, 1), y),
        (lambda v: scipy.interpolate.pchip_interpolate(XS, v, QS), y),
        (lambda v: scipy.interpolate.Akima1DInterpolator(XS, v)(QS), y),
        (lambda v: scipy.interpolate.Akima1DInterpolator(XS, v, method="makima")(QS), y),
        (lambda v: scipy.interpolate.CubicHermiteSpline(XS, v, np.cos(XS))(QS), y),
        (lambda v: scipy.interpolate.PchipInterpolator(XS, v.reshape(8, 3).T, axis=1)(QS), y3),
        (lambda v: scipy.interpolate.Akima1DInterpolator(XS, v.reshape(8, 3))(QS), y3),
        (lambda v: scipy.interpolate.PchipInterpolator(XS[:2], v[:2])(QS), y),
    ):
        _check_all(f, data)
    # Akima does not extrapolate by default (NaN), as SciPy's
    out = ft.jit(lambda v: scipy.interpolate.Akima1DInterpolator(XS, v)(np.array([3.5])))(y)
    assert np.isnan(out).all()


def test_fitpack_splines_of_traced_data_and_points():
    tck = scipy.interpolate.splrep(XS, YS)
    si = scipy.interpolate
    for f, data in (
        (lambda v: si.splev(QS, si.splrep(XS, v)), YS),
        (lambda v: si.splev(QS, si.splrep(XS, v, t=[1.0, 2.0])), YS),
        (lambda v: si.splev(v, tck, der=1), QS),
        (lambda v: si.splev(v + 0.5, tck, ext=1), QS),
        (lambda v: si.splev(v + 0.5, tck, ext=3), QS),
        (lambda v: si.InterpolatedUnivariateSpline(XS, v)(QS), YS),
        (lambda v: si.InterpolatedUnivariateSpline(XS, v).derivative()(QS), YS),
        (lambda v: np.atleast_1d(si.InterpolatedUnivariateSpline(XS, v).integral(0.2, 2.5)), YS),
        (lambda v: si.InterpolatedUnivariateSpline(XS, v, k=2).get_coeffs(), YS),
        (lambda v: si.LSQUnivariateSpline(XS, v, [1.0, 2.0])(QS), YS),
    ):
        _check_all(f, data)
    with pytest.raises(UnsupportedOperationError, match="smoothing"):
        ft.grad(lambda v: si.splev(1.0, si.splrep(XS, v, s=0.1)))(YS)


def test_interpolators_of_traced_data_along_an_axis():
    y2 = np.stack([YS, np.cos(XS), XS**2])  # the data along axis 1
    for make in (
        lambda v: scipy.interpolate.CubicSpline(XS, v.reshape(3, 8), axis=1)(QS[:3]),
        lambda v: scipy.interpolate.interp1d(XS, v.reshape(3, 8))(QS[:3]),  # axis=-1
        lambda v: scipy.interpolate.make_interp_spline(XS, v.reshape(3, 8).T)(QS[:3]),
    ):
        _check_all(make, y2.ravel())


def _barycentric_weights(pts, xi):
    """The weights of the data at ``xi`` for linear interpolation on SciPy's Delaunay
    triangulation of ``pts`` (the oracle), by a NumPy solve per triangle."""
    tri = scipy.spatial.Delaunay(pts)
    weights = np.zeros((len(xi), len(pts)))
    for q, point in enumerate(xi):
        for simplex in tri.simplices:
            corners = pts[simplex]
            lam = np.linalg.solve(np.vstack([corners.T, np.ones(3)]), np.append(point, 1.0))
            if (lam >= -1e-12).all():
                weights[q, simplex] = lam
                break
    return weights


def test_scattered_and_grid_interpolators_of_traced_values():
    rng = np.random.default_rng(3)
    pts = rng.uniform(size=(12, 2))
    xi = np.array([[0.4, 0.5], [0.6, 0.5], [0.3, 0.35]])
    # griddata: few calls (SciPy's point location costs ~0.1 s of CPU a call here)
    v = rng.normal(size=12)
    np.testing.assert_allclose(
        ft.jit(lambda v: scipy.interpolate.griddata(pts, v, xi))(v),
        scipy.interpolate.griddata(pts, v, xi),
        rtol=1e-12,
    )
    w = rng.normal(size=3)
    np.testing.assert_allclose(
        ft.grad(lambda v: scipy.interpolate.griddata(pts, v, xi) @ w)(v),
        w @ _barycentric_weights(pts, xi),
        rtol=1e-10,
        atol=1e-12,
    )
    grid = (np.linspace(0, 1, 4), np.linspace(0, 1, 5))
    gxi = np.array([[0.2, 0.3], [0.7, 0.9]])
    for make, data in (
        (lambda v: scipy.interpolate.RBFInterpolator(pts, v)(xi), rng.normal(size=12)),
        (
            lambda v: scipy.interpolate.RegularGridInterpolator(grid, v.reshape(4, 5))(gxi),
            rng.normal(size=20),
        ),
        (
            lambda v: scipy.interpolate.RegularGridInterpolator(
                grid, v.reshape(4, 5), method="slinear"
            )(gxi),
            rng.normal(size=20),
        ),
        (lambda v: scipy.interpolate.interpn(grid, v.reshape(4, 5), gxi), rng.normal(size=20)),
    ):
        _check_all(make, data)


def test_traced_values_and_traced_points_together():
    grid = (np.linspace(0, 1, 4), np.linspace(0, 1, 5))
    vals = np.random.default_rng(4).normal(size=(4, 5))

    def f(v):  # values and query point both traced: the grid's own evaluation
        return scipy.interpolate.interpn(grid, vals * v[0], v[1:].reshape(1, 2))

    _check_all(f, np.array([1.5, 0.3, 0.6]))

    def g(v):  # the spline of traced data at traced points
        return scipy.interpolate.make_interp_spline(XS, YS * v[0])(v[1:])

    _check_all(g, np.array([1.5, 0.3, 2.6]))


def test_interpolators_of_traced_data_keep_scipy_instances_outside():
    import copy
    import pickle

    ft.grad(lambda y: scipy.interpolate.CubicSpline(XS, y)(1.0))(YS)  # (patches installed)
    spline = scipy.interpolate.CubicSpline(XS, YS)
    assert type(spline) is scipy.interpolate.CubicSpline
    assert str(inspect.signature(scipy.interpolate.CubicSpline)).startswith("(x, y, axis=0")
    assert type(copy.deepcopy(spline)) is scipy.interpolate.CubicSpline
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(spline))(QS), spline(QS))

    def nodes_in_function(y):  # nodes made inside the function are constants
        return scipy.interpolate.CubicSpline(np.linspace(0.0, 3.0, 8), y)(QS)

    _check_all(nodes_in_function, YS)
    # traced nodes: ftransforms' own CubicSpline
    _check_all(lambda x: scipy.interpolate.CubicSpline(x, YS)(QS), XS)
    with pytest.raises(UnsupportedOperationError, match="iterative"):
        grid = (np.linspace(0, 1, 4), np.linspace(0, 1, 5))
        ft.grad(
            lambda v: scipy.interpolate.RegularGridInterpolator(grid, v, method="cubic")(
                np.array([0.5, 0.5])
            ).sum()
        )(np.ones((4, 5)))
    with pytest.raises(UnsupportedOperationError, match="at most 2048"):
        ft.grad(lambda y: scipy.interpolate.make_interp_spline(np.arange(3000.0), y)(1.5))(
            np.ones(3000)
        )
    with pytest.raises(UnsupportedOperationError, match="roots"):
        ft.grad(lambda y: scipy.interpolate.CubicSpline(XS, y).roots()[0])(YS)


def test_spline_integrate_between_traced_bounds():
    spline = scipy.interpolate.CubicSpline(XS, YS)
    bspline = scipy.interpolate.make_interp_spline(XS, YS)
    ab = np.array([0.3, 2.5])
    _check_all(lambda v: np.atleast_1d(spline.integrate(v[0], v[1])), ab)
    _check_all(lambda v: np.atleast_1d(bspline.integrate(v[0], v[1])), ab)
    _check_all(
        lambda v: np.atleast_1d(scipy.interpolate.CubicSpline(XS, YS * v[0]).integrate(0.2, v[1])),
        ab,
    )


# -- scipy.integrate: romb, cumulative_simpson -------------------------------------------------


def test_romb_and_cumulative_simpson_of_traced_samples():
    y = RNG.normal(size=(3, 9))
    xs = np.linspace(0.0, 2.0, 9) ** 1.2
    for f in (
        lambda v: scipy.integrate.romb(v, dx=0.25),
        lambda v: scipy.integrate.romb(v.T, axis=0),
        lambda v: scipy.integrate.cumulative_simpson(v, x=xs),
        lambda v: scipy.integrate.cumulative_simpson(v, dx=0.3, initial=0),
        lambda v: scipy.integrate.cumulative_simpson(v.T, dx=0.3, axis=0),
        lambda v: scipy.integrate.cumulative_simpson(v[:, :8]),  # an odd number of intervals
    ):
        _check_all(f, y)
    # traced nodes
    _check_all(lambda x: scipy.integrate.cumulative_simpson(y, x=x), xs)
    with pytest.raises(ValueError, match="power of 2"):
        ft.grad(lambda v: scipy.integrate.romb(v))(np.ones(6))


def test_dblquad_nquad_quad_vec_with_traced_parameters():
    # grad raised "scipy.integrate.quad converts a value with float()" (SciPy's iteration
    # hid the integrand's tracers in a bound method)
    si = scipy.integrate
    for f in (
        lambda k: si.dblquad(lambda y, x: np.exp(-k * x * y), 0, 1, 0, 1)[0],
        lambda k: si.dblquad(lambda y, x: np.exp(-x * y), 0, k, 0, lambda x: x * k)[0],
        lambda k: si.dblquad(lambda y, x, c: np.exp(-c * x * y), 0, 1, 0, 1, args=(k,))[0],
        lambda k: si.nquad(
            lambda x, y, c: np.exp(-c * x * y), [lambda y, c: (0, y), (0, 1)], args=(k,)
        )[0],
    ):
        _check_all(lambda v, f=f: np.atleast_1d(f(v[0])), np.array([1.3]), rtol=1e-7)

    _check_all(lambda v: si.quad_vec(lambda t: np.exp(-v * t), 0, 1)[0], np.array([1.3, 0.5]))
    _check_all(
        lambda k: si.quad_vec(
            lambda t, c: np.array([[t, c * t * t], [np.sin(c * t), 1.0]]), 0, k[0], args=(k[1],)
        )[0],
        np.array([1.5, 0.7]),
    )
    # (tplquad nests the same rule three deep: ~1.4 s of CPU under a transform, so only
    # its docstring example runs, eagerly)


# -- scipy.spatial: distance_matrix, minkowski_distance, jensenshannon ---------------------------


def test_distance_matrix_minkowski_and_jensenshannon():
    X, Y = RNG.normal(size=(4, 3)), RNG.normal(size=(5, 3))
    P = np.abs(RNG.normal(size=(4, 3))) + 0.1
    for f, x in (
        (lambda v: scipy.spatial.distance_matrix(v, Y), X),
        (lambda v: scipy.spatial.distance_matrix(v, Y, p=1), X),
        (lambda v: scipy.spatial.minkowski_distance(v, Y[:4], 3), X),
        (lambda v: scipy.spatial.minkowski_distance_p(v, Y[:4]), X),
        (lambda v: np.atleast_1d(scipy.spatial.distance.jensenshannon(v[0], v[1])), P),
        (lambda v: scipy.spatial.distance.jensenshannon(v, P[::-1], axis=1, base=2), P),
    ):
        _check_all(f, x)


# -- scipy.optimize: minimize, least_squares, curve_fit with SciPy's signatures -----------------


@pytest.mark.parametrize(
    "options",
    [
        {"method": "BFGS", "options": {"gtol": 1e-12}},
        {"method": "Nelder-Mead", "options": {"xatol": 1e-11, "fatol": 1e-15}},
        {"method": "L-BFGS-B", "options": {"gtol": 1e-12, "ftol": 1e-15}},
    ],
)
def test_minimize_with_scipys_signature_differentiates_the_argmin(options):
    def argmin(c):
        return scipy.optimize.minimize(
            lambda x: np.sum((x - c) ** 2) + np.sum(x**4), np.zeros(2), **options
        ).x

    c = np.array([0.7, -0.3])
    x_star = argmin(c)
    np.testing.assert_array_equal(ft.jit(argmin)(c), x_star)
    np.testing.assert_allclose(
        ft.jacrev(argmin)(c), np.diag(_quartic_argmin_slope(x_star)), rtol=1e-6
    )
    cs = np.array([c, -c, 2 * c])
    np.testing.assert_allclose(ft.vmap(argmin)(cs), [argmin(v) for v in cs], rtol=1e-12)


def test_minimize_args_bounds_and_constraints():
    def argmin(c):  # the second coordinate sits on its bound 0.1
        return scipy.optimize.minimize(
            lambda x, c: np.sum((x - c) ** 2),
            np.array([0.5, 0.5]),
            args=(c,),
            method="L-BFGS-B",
            bounds=[(None, None), (0.1, 2.0)],
        ).x

    c = np.array([0.7, -0.3])
    np.testing.assert_allclose(ft.jacrev(argmin)(c), [[1.0, 0.0], [0.0, 0.0]], atol=1e-8)
    fun = ft.grad(
        lambda c: (
            scipy.optimize.minimize(lambda x: np.sum((x - c) ** 2) + np.sum(x**4), np.zeros(2)).fun
        )
    )
    x_star = scipy.optimize.minimize(lambda x: np.sum((x - c) ** 2) + np.sum(x**4), np.zeros(2)).x
    np.testing.assert_allclose(fun(c), -2 * (x_star - c), rtol=1e-5)  # the envelope theorem
    with pytest.raises(UnsupportedOperationError, match="constraints"):
        cons = {"type": "eq", "fun": lambda x: x[0] - 1.0}
        ft.grad(
            lambda c: scipy.optimize.minimize(
                lambda x: np.sum((x - c) ** 2), np.zeros(2), constraints=cons
            ).x[0]
        )(c)


def test_fmin_differentiates_the_argmin():
    def argmin(c):
        return scipy.optimize.fmin(
            lambda x: np.sum((x - c) ** 2) + np.sum(x**4),
            np.zeros(2),
            xtol=1e-11,
            ftol=1e-15,
            disp=0,
        )

    c = np.array([0.7, -0.3])
    x_star = argmin(c)
    np.testing.assert_array_equal(ft.jit(argmin)(c), x_star)
    np.testing.assert_allclose(
        ft.jacrev(argmin)(c), np.diag(_quartic_argmin_slope(x_star)), rtol=1e-6
    )
    cs = np.array([c, 2 * c])
    np.testing.assert_allclose(ft.vmap(argmin)(cs), [argmin(v) for v in cs], rtol=1e-12)


def _weighted_line_fit(t, y, s):
    """The closed form of the weighted linear fit (the oracle): ``(XᵀWX)⁻¹ XᵀW y``."""
    X = np.stack([t, np.ones_like(t)], axis=1)
    W = 1.0 / s**2
    A = X.T @ (W[:, None] * X)
    return np.linalg.solve(A, X.T @ (W * y))


def test_curve_fit_and_least_squares_differentiate_in_the_data():
    t = np.linspace(0.0, 2.0, 9)
    y = 1.5 * t - 0.4 + 0.1 * RNG.normal(size=9)
    s = 0.1 + 0.05 * np.abs(RNG.normal(size=9))

    def line(x, a, b):
        return a * x + b

    def fit(y, s):
        return scipy.optimize.curve_fit(line, t, y, sigma=s)[0]

    np.testing.assert_allclose(fit(y, s), _weighted_line_fit(t, y, s), rtol=1e-7)
    np.testing.assert_array_equal(ft.jit(fit)(y, s), fit(y, s))
    # (one argument at a time: jacrev(argnums=1) with an array held fixed raised
    # EscapedTracerError through custom_root, brentq's too: reported, not fixed here)
    np.testing.assert_allclose(
        ft.jacrev(lambda y: fit(y, s))(y),
        ft.jacrev(lambda y: _weighted_line_fit(t, y, s))(y),
        rtol=1e-6,
        atol=1e-9,
    )
    np.testing.assert_allclose(
        ft.jacrev(lambda s: fit(y, s))(s),
        ft.jacrev(lambda s: _weighted_line_fit(t, y, s))(s),
        rtol=1e-6,
        atol=1e-9,
    )
    ys = np.stack([y, 2 * y, y + 1])
    np.testing.assert_allclose(
        ft.vmap(lambda y: fit(y, s))(ys), [fit(v, s) for v in ys], rtol=1e-12
    )

    def pcov(y):
        return scipy.optimize.curve_fit(line, t, y)[1]

    def pcov_oracle(y):  # s² (XᵀX)⁻¹ with s² the residual variance
        X = np.stack([t, np.ones_like(t)], axis=1)
        r = X @ np.linalg.solve(X.T @ X, X.T @ y) - y
        return np.linalg.inv(X.T @ X) * (r @ r / (len(t) - 2))

    np.testing.assert_allclose(ft.jit(pcov)(y), pcov(y), rtol=1e-12)
    np.testing.assert_allclose(ft.jacrev(pcov)(y), ft.jacrev(pcov_oracle)(y), rtol=1e-5, atol=1e-10)

    def lsq(y):
        return scipy.optimize.least_squares(lambda p: (line(t, *p) - y) / s, np.zeros(2)).x

    np.testing.assert_allclose(
        ft.jacrev(lsq)(y), ft.jacrev(lambda y: _weighted_line_fit(t, y, s))(y), rtol=1e-6, atol=1e-9
    )
    with pytest.raises(UnsupportedOperationError, match="loss='soft_l1'"):
        ft.grad(
            lambda y: scipy.optimize.least_squares(
                lambda p: p - y, np.zeros(9), loss="soft_l1"
            ).x.sum()
        )(y)


def test_curve_fit_nonlinear_model_against_differences():
    xd = np.linspace(0, 2, 10)
    yd = 2.0 * np.exp(-1.3 * xd) + 0.01 * RNG.normal(size=10)

    def fit(y):
        return scipy.optimize.curve_fit(
            lambda x, a, b: a * np.exp(-b * x), xd, y, p0=[1, 1], xtol=1e-15, ftol=1e-15
        )[0]

    d = RNG.normal(size=10)
    np.testing.assert_allclose(ft.jacrev(fit)(yd) @ d, _dirderiv(fit, yd, d, eps=1e-4), rtol=1e-5)


def test_linear_sum_assignment_and_nnls():
    C = RNG.normal(size=(4, 5))
    rows, cols = scipy.optimize.linear_sum_assignment(C)
    chosen = np.zeros_like(C)
    chosen[rows, cols] = 1.0

    def best(v):
        return np.atleast_1d(v[scipy.optimize.linear_sum_assignment(v)].sum())

    _check_all(best, C, batch=np.stack([C, -C, 2 * C]))
    np.testing.assert_array_equal(ft.grad(lambda v: best(v)[0])(C), chosen)
    rng = np.random.default_rng(0)
    A, b = rng.normal(size=(6, 3)), rng.normal(size=6)
    x = scipy.optimize.nnls(A, b)[0]
    assert 0 < np.count_nonzero(x) < 3  # a coordinate held at 0, the others free
    _check_all(lambda v: scipy.optimize.nnls(A, v)[0], b)
    _check_all(lambda v: np.atleast_1d(scipy.optimize.nnls(v.reshape(6, 3), b)[1]), A.ravel())
    box = (-0.2, 0.3)
    assert (scipy.optimize.lsq_linear(A, b, bounds=box).active_mask != 0).any()
    _check_all(lambda v: scipy.optimize.lsq_linear(A, v, bounds=box).x, b)
    _check_all(lambda v: scipy.optimize.lsq_linear(A, v).x, b)
    _check_all(
        lambda v: np.atleast_1d(scipy.optimize.lsq_linear(v.reshape(6, 3), b, bounds=box).cost),
        A.ravel(),
    )


def test_procrustes_of_traced_point_sets():
    rng = np.random.default_rng(8)
    A = rng.normal(size=(5, 3))
    B = A @ np.linalg.qr(rng.normal(size=(3, 3)))[0] * 2 + 0.1 * rng.normal(size=(5, 3))
    for k in range(3):
        _check_all(
            lambda v, k=k: np.atleast_1d(scipy.spatial.procrustes(A, v.reshape(5, 3))[k]), B.ravel()
        )
        _check_all(
            lambda v, k=k: np.atleast_1d(scipy.spatial.procrustes(v.reshape(5, 3), B)[k]), A.ravel()
        )


def test_convex_hull_volume_and_area_of_traced_points():
    rng = np.random.default_rng(9)
    for points in (rng.normal(size=(10, 2)), rng.normal(size=(12, 3))):
        for attr in ("volume", "area"):
            _check_all(
                lambda v, attr=attr, s=points.shape: np.atleast_1d(
                    getattr(scipy.spatial.ConvexHull(v.reshape(s)), attr)
                ),
                points.ravel(),
            )
    square = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.5, 0.5]])
    hull = ft.jit(lambda p: scipy.spatial.ConvexHull(p).simplices)(square)
    np.testing.assert_array_equal(hull, scipy.spatial.ConvexHull(square).simplices)
    assert type(scipy.spatial.ConvexHull(square)) is scipy.spatial.ConvexHull  # outside


def test_kdtree_query_distances_at_traced_points():
    rng = np.random.default_rng(6)
    data, X = rng.normal(size=(20, 3)), rng.normal(size=(4, 3))
    tree = scipy.spatial.KDTree(data)
    for f in (
        lambda v: tree.query(v)[0],
        lambda v: tree.query(v, k=3)[0],
        lambda v: tree.query(v, k=[2, 4], p=1)[0],
        lambda v: np.atleast_1d(tree.query(v[0])[0]),
    ):
        _check_all(f, X)
    i = tree.query(X, k=2)[1]
    np.testing.assert_array_equal(ft.jit(lambda v: tree.query(v, k=2)[1])(X), i)


# -- scipy.sparse.linalg.LinearOperator -----------------------------------------------------------


def test_linear_operators_apply_to_traced_operands():
    rng = np.random.default_rng(5)
    dense = rng.normal(size=(5, 5)) + 5 * np.eye(5)
    sparse = scipy.sparse.csr_matrix(np.where(np.abs(dense) > 0.8, dense, 0.0))
    spd = dense @ dense.T
    lo = scipy.sparse.linalg
    x = rng.normal(size=5)
    for f in (
        lambda v: lo.aslinearoperator(sparse) @ v,
        lambda v: lo.aslinearoperator(sparse).T @ v,
        lambda v: lo.aslinearoperator(dense).H.matvec(v),
        lambda v: lo.aslinearoperator(dense).matmat(np.stack([v, 2 * v], 1)),
        lambda v: lo.LinearOperator((5, 5), matvec=lambda y: dense @ y)(v),
        lambda v: lo.LinearOperator(
            (5, 5), matvec=lambda y: y, rmatvec=lambda y: dense.T @ y
        ).rmatvec(v),
        lambda v: (lo.aslinearoperator(sparse) + 2.0 * lo.aslinearoperator(dense)) @ v,
        lambda v: lo.cg(lo.LinearOperator((5, 5), matvec=lambda y: spd @ y), v, rtol=1e-13)[0],
    ):
        _check_all(f, x)
    with pytest.raises(ValueError, match="dimension mismatch"):
        ft.grad(lambda v: (lo.aslinearoperator(dense) @ v).sum())(np.ones(4))


def test_sparse_constructors_refuse_traced_values_clearly():
    # diags(traced) raised "Different number of diagonals and offsets"; A * traced number
    # "dimension mismatch"
    sp = scipy.sparse
    for f in (
        lambda v: (sp.diags(v) @ np.ones(3)).sum(),
        lambda v: (sp.spdiags(v[None], 0, 3, 3) @ np.ones(3)).sum(),
        lambda v: ((sp.eye(3) * v[0]) @ v).sum(),
    ):
        with pytest.raises(UnsupportedOperationError, match="traced"):
            ft.grad(f)(np.ones(3))
    # built inside the function from plain values: SciPy's matrix, as before

    def laplacian_energy(v):
        lap = sp.diags([np.ones(2), -2 * np.ones(3), np.ones(2)], [-1, 0, 1])
        return v @ (lap @ v)

    _check_all(lambda v: np.atleast_1d(laplacian_energy(v)), np.array([1.0, 2.0, 0.5]))
