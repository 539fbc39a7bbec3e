"""``np.shares_memory`` / ``np.may_share_memory`` inside the transforms answer as NumPy
does for the same code on plain arrays: views of one array made in the function (basic
slices, reversed slices, ``.T`` of a reshape, ``.real``/``.imag``), copies, and arrays
from outside.  Oracle: the same function run eagerly on NumPy arrays."""

from __future__ import annotations

import numpy as np
import pytest

import ftransforms as ft


def overlaps(x):
    y = x.copy()
    t = y.reshape(2, 3)
    z = np.zeros((2, 3)) + 1j * y.reshape(2, 3)
    pairs = [
        (y[:2], y[1:]),
        (y[:2], y[2:]),
        (y, y),
        (y, x),
        (t.T[0], y[3]),
        (t.T[0], y[1]),
        (y[::2], y[1::2]),
        (y[::-1][:1], y[5:]),
        (z.real, z.imag),
        (z[0].imag, z.imag[0]),
        (z.real[:, 1:], z[:, :1]),
        (y, np.ones(6)),
        (t[:, ::2], t[:, 1]),
    ]
    exact = [np.shares_memory(a, b) for a, b in pairs]
    bounds = [np.may_share_memory(a, b) for a, b in pairs]
    return np.array(exact + bounds)


X = np.arange(6.0)


def test_numpy_itself_gives_both_answers():
    got = overlaps(X)  # the oracle is not trivial: both answers occur, and they differ
    assert got.any() and not got.all()
    n = len(got) // 2
    assert (got[:n] != got[n:]).any()


@pytest.mark.parametrize(
    "transform",
    [
        lambda f: ft.vmap(f),
        lambda f: ft.jit(ft.vmap(f)),
        lambda f: ft.vmap(ft.jacfwd(lambda r: f(r) * r.sum())),
    ],
    ids=["vmap", "jit(vmap)", "vmap(jacfwd)"],
)
def test_views_overlap_as_in_numpy(transform):
    expected = overlaps(X)
    xs = np.stack([X, X + 1.0])
    got = transform(overlaps)(xs)
    if got.ndim == 3:  # the Jacobian rows: the answer does not depend on the input
        got = got.any(axis=-1)
    for row in got:
        np.testing.assert_array_equal(row.astype(bool), expected)


def test_grad_sees_the_same_answers():
    seen = []

    def f(x):
        seen.append(overlaps(x).tolist())
        return (x**2).sum()

    ft.grad(f)(X)
    np.testing.assert_array_equal(seen[0], overlaps(X))
