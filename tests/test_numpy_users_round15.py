"""NumPy users' code under the transforms (round 15 probes), with ``import numpy as np``
(the protocols): values and dtypes as eager NumPy's, vmap as the loop over the rows,
derivatives as float64 central differences."""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest

import ftransforms as ft
from tests.program_oracles import check_fd_grad
from tests.tolerances import tol


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, **tol(want.dtype))
    else:
        np.testing.assert_array_equal(got, want)


# -- numpy.ma's extremum fill values of traced data ---------------------------------------

_MASK = np.array([[0, 1, 0, 0, 1], [1, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 1, 1]], dtype=bool)
MASKED_EXTREMA = {
    "max": lambda v, m=_MASK: np.ma.masked_array(v, mask=m).max(axis=1).filled(0),
    "min_all": lambda v, m=_MASK: np.ma.masked_array(v, mask=m).min(),
    "ptp": lambda v, m=_MASK: np.ma.masked_array(v, mask=m).ptp(axis=1).filled(0.0),
    "median": lambda v, m=_MASK: np.ma.median(np.ma.masked_array(v, mask=m), axis=1).filled(0),
    "sort": lambda v, m=_MASK: np.ma.sort(np.ma.masked_array(v, mask=m), axis=1).filled(0.0),
    "argmax": lambda v, m=_MASK: np.ma.masked_array(v, mask=m).argmax(axis=1),
    "filled": lambda v, m=_MASK: np.ma.masked_array(v, mask=m).filled(-1),
}


@pytest.mark.parametrize("name", sorted(MASKED_EXTREMA))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("row_masked", [False, True])
def test_masked_extrema_of_traced_data_are_numpys(name, dtype, row_masked):
    f = MASKED_EXTREMA[name]
    if row_masked:  # a row all masked: NumPy's fill value there
        mask = _MASK.copy()
        mask[1] = True
        f = functools.partial(lambda f, v: f(v, mask), f)
    rows = np.random.default_rng(3).random((3, 4, 5)).astype(dtype)
    _same(ft.jit(f)(rows[0]), f(rows[0]))
    with warnings.catch_warnings():  # the rows' comparisons split the batch
        warnings.simplefilter("ignore", ft.errors.PerformanceWarning)
        vmapped = ft.vmap(f)(rows)
    _same(vmapped, np.stack([np.asarray(f(r)) for r in rows]))
    if name != "argmax" and dtype == np.float64:
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


# -- numpy.polynomial's companion matrices of float32 coefficients -------------------------

_P = np.polynomial
COMPANIONS = {
    "poly": _P.polynomial.polycompanion,
    "cheb": _P.chebyshev.chebcompanion,
    "leg": _P.legendre.legcompanion,
    "herm": _P.hermite.hermcompanion,
    "herme": _P.hermite_e.hermecompanion,
    "lag": _P.laguerre.lagcompanion,
}


@pytest.mark.parametrize("name", sorted(COMPANIONS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_companion_matrix_has_numpys_dtype_and_derivative(name, dtype):
    f = COMPANIONS[name]
    rows = np.array([[0.3, -1.2, 0.7, 2.0], [1.1, 0.4, -0.6, 1.5]], dtype=dtype)
    np.testing.assert_array_equal(ft.jit(f)(rows[0]), f(rows[0]))
    _same(ft.jit(f)(rows[0]), f(rows[0]))
    _same(ft.vmap(f)(rows), np.stack([f(r) for r in rows]))
    if dtype == np.float64:
        check_fd_grad(lambda c: np.sum(f(c) ** 2), (rows[1],))


def test_roots_and_integrals_of_float32_series_stay_float32():
    c = np.array([0.3, -1.2, 0.7, 2.0], dtype=np.float32)
    for f in (
        lambda c: np.sort(_P.polynomial.polyroots(c).real),
        lambda c: _P.Chebyshev(c).integ(2, lbnd=0.5).coef,
        lambda c: _P.Polynomial(c).integ(k=[1.0]).coef,
    ):
        _same(ft.jit(f)(c), f(c))


# -- methods of plain NumPy arrays called with tracers ------------------------------------

_X = np.random.default_rng(5).random((5, 4))


def test_take_of_a_plain_array_at_traced_indices_is_numpys():
    def f(w):
        return np.sum(_X.take(np.argsort(w)) * w)

    def g(w):  # the receiver an expression: X[0].take, and repeat's counts
        return np.sum(_X[0].take(np.argsort(w)) * w) + np.sum(_X[1].repeat((w * 3).astype(int)))

    w = np.array([0.3, 0.9, 0.1, 0.5])
    rows = np.stack([w, w[::-1]])
    for h in (f, g):
        _same(ft.jit(h)(w), h(w))
        with warnings.catch_warnings():  # the rows' indices split the batch
            warnings.simplefilter("ignore", ft.errors.PerformanceWarning)
            _same(ft.vmap(h)(rows), np.stack([h(r) for r in rows]))
        check_fd_grad(h, (w,))


def test_dot_of_a_plain_array_warns_with_the_dispatching_spelling():
    big = np.random.default_rng(6).random((3, 80))
    w = np.linspace(0.0, 1.0, 80)
    with pytest.warns(ft.errors.ObjectArrayWarning, match=r"big\.dot\(\.\.\.\).*np\.dot\(big"):
        got = ft.grad(lambda w: np.sum(big.dot(w) ** 2))(w)
    np.testing.assert_allclose(got, 2 * big.T @ (big @ w), **tol(np.float64))


def test_take_of_a_plain_array_under_jit_of_float_indices_names_the_method():
    with pytest.raises(ft.errors.TracerConversionError, match=r"_X\.take\(\.\.\.\).*np\.take"):
        ft.grad(lambda w: np.sum(_X.take(w)))(np.array([0.0, 1.0]))


# -- numpy.ma with a mask computed from the traced data --------------------------------------

TRACED_MASKS = [
    lambda v: np.ma.masked_array(v, mask=v > 0.6).sum(),
    lambda v: np.ma.outer(np.ma.masked_array(v, mask=v > 0.6), v).filled(0.0).sum(axis=0),
]


@pytest.mark.parametrize("f", TRACED_MASKS)
def test_masked_array_of_a_traced_mask_is_numpys(f):
    rows = np.random.default_rng(7).random((3, 8))
    jitted = ft.jit(f)
    for r in rows:  # each call with new data: the mask is the data's
        _same(jitted(r), f(r))
    with warnings.catch_warnings():  # the rows' masks split the batch
        warnings.simplefilter("ignore", ft.errors.PerformanceWarning)
        _same(ft.vmap(f)(rows), np.stack([f(r) for r in rows]))
    check_fd_grad(lambda v: np.sum(f(v)), (rows[0],))
