"""Round 13 sweep of special functions and distributions against SciPy, JAX and finite
differences: the silent differences it found."""

import numpy as np
import pytest

import ftransforms as ft
import ftransforms.scipy.stats as fst


@pytest.mark.parametrize("method", ["cdf", "sf", "logcdf", "logsf"])
def test_laplace_cdf_grad_at_loc_is_whole_derivative(method):
    # cdf is C1 at x == loc (its slope is the pdf there); a min/max split halved it
    x, loc, scale = 0.3, 0.3, 1.4
    got = ft.grad(lambda v: getattr(fst.laplace, method)(v, loc, scale))(x)
    pdf = 1.0 / (2.0 * scale)
    want = {"cdf": pdf, "sf": -pdf, "logcdf": pdf / 0.5, "logsf": -pdf / 0.5}[method]
    np.testing.assert_allclose(got, want, rtol=1e-12)
