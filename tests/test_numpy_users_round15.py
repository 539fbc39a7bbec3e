"""NumPy users' code under the transforms (round 15 probes), with ``import numpy as np``
(the protocols): values and dtypes as eager NumPy's, vmap as the loop over the rows,
derivatives as float64 central differences."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ftransforms as ft
from tests.program_oracles import check_fd_grad


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)


# -- numpy.ma's extremum fill values of traced data ---------------------------------------

_MASK = np.array([[0, 1, 0, 0, 1], [1, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 1, 1]], dtype=bool)
MASKED_EXTREMA = {
    "max": lambda v: np.ma.masked_array(v, mask=_MASK).max(axis=1).filled(0.0),
    "min_all": lambda v: np.ma.masked_array(v, mask=_MASK).min(),
    "ptp": lambda v: np.ma.masked_array(v, mask=_MASK).ptp(axis=0).filled(0.0),
    "median": lambda v: np.ma.median(np.ma.masked_array(v, mask=_MASK), axis=1).filled(0.0),
    "sort": lambda v: np.ma.sort(np.ma.masked_array(v, mask=_MASK), axis=1).filled(0.0),
    "argmax": lambda v: np.ma.masked_array(v, mask=_MASK).argmax(axis=1),
}


@pytest.mark.parametrize("name", sorted(MASKED_EXTREMA))
def test_masked_extrema_of_traced_data_are_numpys(name):
    f = MASKED_EXTREMA[name]
    rows = np.random.default_rng(3).random((3, 4, 5))
    _same(ft.jit(f)(rows[0]), f(rows[0]))
    with warnings.catch_warnings():  # the rows' comparisons split the batch
        warnings.simplefilter("ignore", ft.errors.PerformanceWarning)
        vmapped = ft.vmap(f)(rows)
    _same(vmapped, np.stack([np.asarray(f(r)) for r in rows]))
    if name != "argmax":
        check_fd_grad(lambda v: np.sum(np.asarray(f(v)) ** 2), (rows[1],))


# -- np.float64(t) / fnp.float64(t) where the number cannot be read ------------------------


@pytest.mark.parametrize(
    "f",
    [
        lambda x: np.float64(x[1]) * 2.0,
        lambda x: np.float32(x[0]) * x,
        lambda x: np.sum(np.float64(x[:, None] * np.ones(3))),
    ],
)
def test_numpy_scalar_type_of_a_tracer_under_grad_names_the_call(f):
    x = np.array([1.5, 2.0])
    with pytest.raises(ft.errors.TracerConversionError, match=r"numpy\.float(64|32)\(x\)"):
        ft.grad(lambda v: np.sum(f(v)))(x)
