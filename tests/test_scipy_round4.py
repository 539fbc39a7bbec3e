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
    np.testing.assert_allclose(
        ft.vmap(f)(xs), np.stack([f(v) for v in xs]), rtol=1e-10, atol=1e-12
    )


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
