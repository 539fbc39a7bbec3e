"""SciPy users' code under the transforms, round 4: scipy.signal's filters with a number
for ``a`` (FIR filtering, ``lfilter(h, 1.0, x)``), ``czt``, the median/order filters,
``resample_poly``/``upfirdn``; scipy.optimize's scalar minimizers with implicit
derivatives; scipy.interpolate's interpolators built from traced data; scipy.integrate's
``romb``/``cumulative_simpson``; scipy.spatial's ``distance_matrix``/``jensenshannon``.

Oracles: SciPy's values, float64 central differences (directional), a Python loop for
vmap, eager calls for jit replays.  Calls go through SciPy's own names (NOTE [SciPy's own
names under the transforms]).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.optimize
import scipy.signal

import ftransforms as ft

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
