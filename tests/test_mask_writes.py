"""``x[mask] = value`` and ``np.putmask`` with a traced boolean mask: NumPy's result as a
``where``, without reading the mask, so ``vmap`` keeps one batched program (no split into
groups) and ``jit`` records the write (no data-dependent eager fallback).  Oracles: the
same code on NumPy arrays (a loop over the rows for vmap), central differences for grad."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ftransforms as ft
from tests.program_oracles import fd_jacobian

X = np.random.default_rng(5).normal(size=(6, 4, 3))


def relu_in_place(r):
    y = r.copy()
    y[y < 0] = 0.0
    return y


def rows_set_to_a_row(r):
    y = r * 2.0
    y[y.sum(axis=1) > 0] = r[0]  # one row written into every selected row
    return y


def traced_value(r):
    y = r.copy()
    y[r > 0.5] = r.max()  # a traced single value
    return y


def putmask_same_shape(r):
    y = r.copy()
    np.putmask(y, y > 0, y * 3.0)
    return y


def int_array_mask(r):
    y = (r * 10).astype(np.int64)
    y[y % 2 == 0] = -1
    return y * 1.0


@pytest.mark.parametrize(
    "f",
    [relu_in_place, rows_set_to_a_row, traced_value, putmask_same_shape, int_array_mask],
    ids=lambda f: f.__name__,
)
def test_mask_writes_stay_batched_and_recorded(f):
    want = np.stack([f(x) for x in X])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no PerformanceWarning (split), no eager fallback
        np.testing.assert_allclose(ft.vmap(f)(X), want, rtol=1e-12)
        jf = ft.jit(f)
        for x in X[:3]:
            np.testing.assert_allclose(jf(x), f(x), rtol=1e-12)
    if f is not int_array_mask:
        row = X[1] + 0.01
        loss = lambda r: np.sum(np.sin(f(r)))  # noqa: E731
        g = ft.grad(loss)(row)
        np.testing.assert_allclose(g, fd_jacobian(loss, (row,)), atol=1e-6)


def test_one_value_per_selected_element_still_follows_numpy():
    def f(r):
        y = r.copy()
        m = y > 0
        y[m] = np.arange(y.size)[: int(m.sum())] * 1.0  # as many values as True entries
        return y

    want = np.stack([f(x) for x in X])
    with pytest.warns(ft.errors.PerformanceWarning):  # the rows' counts differ: a split
        np.testing.assert_allclose(ft.vmap(f)(X), want)


@pytest.mark.parametrize(
    "f", [relu_in_place, rows_set_to_a_row, putmask_same_shape], ids=lambda f: f.__name__
)
def test_mask_writes_on_device_arrays(f):
    """On CuPy (here its strict stand-in) the written value goes to the array's device."""
    from ftransforms import strict_backend as sb

    want = np.stack([f(x) for x in X])
    got = ft.vmap(f)(sb.asarray(X))
    assert type(got) is sb.StrictArray
    np.testing.assert_allclose(sb.to_numpy(got), want, rtol=1e-12)
    np.testing.assert_allclose(sb.to_numpy(ft.jit(f)(sb.asarray(X[0]))), f(X[0]), rtol=1e-12)
