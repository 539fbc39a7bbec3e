"""Probe round 4: ``np.array([a, b, c])`` of 0-d traced values is a NumPy object array
holding the tracers (NOTE [SciPy's Python functions on tracers]); user code then updates
it in place as it would the float array NumPy makes of numbers:

* ``y[1:] += t`` with a traced ``t``: the ufunc's ``out=`` is that object array, and the
  result goes in element by element (it used to raise InPlaceError, calling the array
  one from outside the function);
* inside a Python ``while`` whose rows leave at different trip counts under ``vmap``,
  an element replaced in the object array (``y[0] = y[0] * 2``) is a mutation that the
  masking of finished rows cannot undo, so it gives up and splits the batch instead of
  letting the finished rows run on (NOTE [splitting the batch]).

Oracles: the loop over rows in plain NumPy, central differences."""

import warnings

import numpy as np
import pytest

import ftransforms as ft


def state_update(r):
    s = np.array([r, 2.0 * r, 3.0])
    s[1:] += r * 0.5
    np.multiply(s[:2], r, out=s[:2])
    s[::2] -= s[1]
    return s


def doubling(r):
    y = np.array([r, r, r])
    n = 0
    while y[0] < 10.0:
        y[0] = y[0] * 2.0
        y[1:] += y[0] * 0.1
        n += 1
    return y[1] + n


def doubling_in_place(r):
    y = np.array([r, r, r])
    while y[0] < 10.0:
        y[0] *= 2.0
        y[1] = y[1] + y[0] * 0.1
    return y[1]


ROWS = np.array([2.1, 0.55, 9.3, 1.3])


def central(f, r, h=1e-6):
    return (f(r + h) - f(r - h)) / (2 * h)


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ft.errors.PerformanceWarning)
        yield


@pytest.mark.parametrize("f", [state_update, doubling, doubling_in_place])
def test_vmap_and_jit_match_the_loop_over_rows(f):
    want = np.stack([f(r) for r in ROWS])
    np.testing.assert_allclose(ft.vmap(f)(ROWS), want, rtol=1e-12)
    np.testing.assert_allclose(ft.jit(ft.vmap(f))(ROWS), want, rtol=1e-12)
    np.testing.assert_allclose(ft.jit(f)(ROWS[0]), want[0], rtol=1e-12)


@pytest.mark.parametrize("f", [state_update, doubling, doubling_in_place])
def test_derivatives_match_central_differences(f):
    want = np.stack([central(f, r) for r in ROWS])
    np.testing.assert_allclose(ft.vmap(ft.jacfwd(f))(ROWS), want, rtol=1e-6)
    np.testing.assert_allclose(ft.vmap(ft.jacrev(f))(ROWS), want, rtol=1e-6)
