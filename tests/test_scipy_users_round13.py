"""SciPy users, round 13: SciPy's values where a cdf rounds to 1 (logcdf/logsf through the
complement), hypergeom off the integers, more scipy.stats distributions on tracers, ..."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as st

import ftransforms as ft

# -- logcdf / logsf above the median: log1p of the other tail (SciPy's generic rule) -------


@pytest.mark.parametrize(
    "dist,shapes,x",
    [
        (st.f, (3.0, 7.0), np.array([0.2, 1e2, 1e4])),
        (st.t, (4.5,), np.array([-1e3, 0.1, 1e3])),
        (st.gamma, (2.5,), np.array([0.1, 30.0, 40.0])),
        (st.beta, (2.0, 3.0), np.array([1e-9, 0.5, 0.99999])),
    ],
)
def test_logcdf_and_logsf_keep_the_other_tail(dist, shapes, x):
    for method in ("logcdf", "logsf"):
        got = ft.vmap(lambda v, m=method: getattr(dist, m)(v, *shapes))(x)
        ref = getattr(dist, method)(x, *shapes)
        np.testing.assert_allclose(got, ref, rtol=1e-9, atol=0)
    # the derivative of log1p(-sf): -pdf / cdf
    g = ft.grad(lambda v: dist.logcdf(v, *shapes))(x[-1])
    assert g == pytest.approx(dist.pdf(x[-1], *shapes) / dist.cdf(x[-1], *shapes), rel=1e-7)


def test_nbinom_logcdf_above_the_median():
    k = np.array([1.0, 5.0, 80.0])
    got = ft.vmap(lambda v: st.nbinom.logcdf(v, 5, 0.5))(k)
    np.testing.assert_allclose(got, st.nbinom.logcdf(k, 5, 0.5), rtol=1e-9, atol=0)


# -- hypergeom off the integers: SciPy's NaN inside the support -----------------------------


@pytest.mark.parametrize("shapes", [(20, 7, 12), (20, 15, 12)])
def test_hypergeom_cdf_and_sf_at_non_integer_points(shapes):
    k = np.array([-0.5, 0.0, 2.0, 2.5, 6.5, 7.0, 7.5, 11.5, 12.0, 12.5])
    for method in ("cdf", "sf"):
        got = ft.vmap(lambda v, m=method: getattr(st.hypergeom, m)(v, *shapes))(k)
        np.testing.assert_allclose(got, getattr(st.hypergeom, method)(k, *shapes), rtol=1e-12)
    # log of a NaN probability is NaN, not -inf
    odd = np.array(7.5 if shapes[1] > 7 else 2.5)
    assert np.isnan(ft.jit(lambda v: st.hypergeom.logcdf(v, *shapes))(odd))
