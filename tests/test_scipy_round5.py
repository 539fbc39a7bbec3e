"""SciPy users' code under the transforms, round 5.

scipy.stats: the closed-form ``fit`` of ``expon``, ``laplace``, ``uniform`` and
``lognorm`` (with ``floc``) on traced data (SciPy's own code raised on an object array).

Oracles: SciPy's values, float64 central differences (directional), a Python loop for
vmap, eager calls for jit replays.  Calls go through SciPy's own names (NOTE [SciPy's own
names under the transforms]).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats

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

    g = ft.grad(lambda v: (ft.numpy.asarray(f(v)) * w).sum())(x)
    np.testing.assert_allclose(
        np.sum(g * d), _dirderiv(lambda v: np.sum(np.asarray(f(v)) * w), x, d), rtol=rtol, atol=atol
    )
    xs = np.stack([x, 0.98 * x - 0.01, 1.02 * x + 0.02]) if batch is None else batch
    np.testing.assert_allclose(
        ft.vmap(f)(xs), np.stack([np.asarray(f(v)) for v in xs]), rtol=1e-10, atol=1e-12
    )


# -- scipy.stats: closed-form fits ------------------------------------------------------------


def test_closed_form_fits_of_expon_laplace_uniform_lognorm():
    x = RNG.normal(size=9) + 3.0
    st = scipy.stats
    _check_all(lambda v: ft.numpy.stack(st.expon.fit(v)), x)
    _check_all(lambda v: ft.numpy.stack(st.expon.fit(v, floc=-1.0)), x)
    _check_all(lambda v: ft.numpy.stack(st.expon.fit(v, fscale=2.0)), x)
    _check_all(lambda v: ft.numpy.stack(st.laplace.fit(v)), x)
    _check_all(lambda v: ft.numpy.stack(st.laplace.fit(v, fscale=2.0)), x)
    _check_all(lambda v: ft.numpy.stack(st.laplace.fit(v[:8], floc=3.0)), x)
    _check_all(lambda v: ft.numpy.stack(st.uniform.fit(v)), x)
    _check_all(lambda v: ft.numpy.stack(st.uniform.fit(v, floc=-2.0)), x)
    _check_all(lambda v: ft.numpy.stack(st.uniform.fit(v, fscale=20.0)), x)
    _check_all(lambda v: ft.numpy.stack(st.lognorm.fit(v, floc=0)), x)
    _check_all(lambda v: ft.numpy.stack(st.lognorm.fit(v, floc=-1.0, f0=0.5)), x)
    _check_all(lambda v: ft.numpy.stack(st.lognorm.fit(v, floc=0.5, fscale=2.0)), x)
    with pytest.raises(UnsupportedOperationError, match=r"lognorm\.fit.*floc=0"):
        ft.grad(lambda v: st.lognorm.fit(v)[0])(x)
    with pytest.raises(UnsupportedOperationError, match=r"expon\.fit.*method='MM'"):
        ft.grad(lambda v: st.expon.fit(v, method="MM")[0])(x)
