"""Probe round 4: ``math.floor``/``math.ceil``/``math.trunc``/``round()`` of a 0-d value
give a Python int in NumPy (``math.ceil(np.float64(2.5)) == 3``), so user code counts and
indexes with them: ``range(math.ceil(x))``, ``table[math.floor(t / dt)]``.  Under the
transforms a 0-d tracer answers them with a Python int too (read as ``int()`` reads it:
the batch splits under ``vmap``, the derivative is exactly zero under ``grad``).  Oracles:
the loop over rows in plain NumPy, central differences."""

import math
import warnings

import numpy as np
import pytest

import ftransforms as ft
from tests.program_oracles import fd_jacobian

TABLE = np.array([0.5, -1.0, 2.0, 3.0, -0.25])


def powers(x):
    # x[0] sets the number of terms, as NumPy code reads a count from the data
    return sum((x[1] ** k for k in range(math.ceil(x[0]))), 0.0 * x[1])


def lookup(x):
    return TABLE[math.floor(x[0])] * x[1] + TABLE[math.trunc(x[0] / 2)]


def rounded(x):
    return np.sum(x[1] ** np.arange(round(x[0]) + 1))


def frac(x):
    return x[1] * (x[0] - math.floor(x[0]))


XS = np.array([[1.6, 0.7], [3.2, -0.4], [0.3, 1.1], [2.6, 0.9], [4.4, 1.3]])


def loop(f, xs):
    return np.stack([f(x) for x in xs])


def central(f, x):
    return fd_jacobian(f, (x,), eps=1e-4)


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ft.errors.PerformanceWarning)
        yield


def test_numpy_gives_python_ints():
    assert all(type(f(np.float64(2.5))) is int for f in (math.floor, math.ceil, round))


@pytest.mark.parametrize("f", [powers, lookup, rounded, frac])
def test_vmap_and_jit_match_the_loop_over_rows(f):
    want = loop(f, XS)
    np.testing.assert_allclose(ft.vmap(f)(XS), want, rtol=1e-12)
    np.testing.assert_allclose(ft.jit(ft.vmap(f))(XS), want, rtol=1e-12)
    np.testing.assert_allclose(ft.jit(f)(XS[1]), f(XS[1]), rtol=1e-12)


@pytest.mark.parametrize("f", [powers, lookup, rounded, frac])
def test_vmap_of_grad_matches_central_differences(f):
    want = np.stack([central(f, x) for x in XS])
    np.testing.assert_allclose(ft.vmap(ft.grad(f))(XS), want, rtol=1e-6, atol=1e-8)


def test_a_python_int_keeps_float32_as_numpy_does():
    x = np.array([2.5, 3.0], np.float32)
    assert frac(x).dtype == np.float32
    assert ft.grad(frac)(x).dtype == np.float32
    assert ft.vmap(frac)(np.stack([x, x + 1])).dtype == np.float32


def as_list(x):
    # a common normalisation: a scalar becomes a one-element list
    v = x[0]
    items = v if np.iterable(v) else [v]
    return sum(items) * x[1] + sum(x)


def test_a_0d_value_is_not_iterable_as_in_numpy():
    assert not np.iterable(XS[0][0])
    np.testing.assert_allclose(ft.vmap(as_list)(XS), loop(as_list, XS), rtol=1e-12)
    np.testing.assert_allclose(ft.jit(as_list)(XS[0]), as_list(XS[0]), rtol=1e-12)
    want = np.stack([central(as_list, x) for x in XS])
    np.testing.assert_allclose(ft.vmap(ft.grad(as_list))(XS), want, rtol=1e-6)
    with pytest.raises(TypeError, match="0-d"):
        ft.grad(lambda x: sum(x[0]))(XS[0])
