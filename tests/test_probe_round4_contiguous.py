"""Probe round 4: ``np.ascontiguousarray(a)`` in user code, with ``a`` traced, is ``a``
itself where ``a`` is C-contiguous and a copy where it is not (``a.T``), as in NumPy; a
0-d value becomes 1-d.  It used to give a read-only object array of 0-d tracers (slow
element-by-element Python, and ``ValueError: output array is read-only`` on a write).
Oracles: plain NumPy, the loop over rows, central differences."""

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.core.tracer import Tracer


def contiguous_writes(x):
    a = x.copy().reshape(2, 3)
    t = np.ascontiguousarray(a.T)  # a copy: a is not written
    t[0, 0] = 100.0 * x[1]
    c = np.ascontiguousarray(a[0])  # a itself (a contiguous view): a is written
    c[1] = -(x[2] ** 2)
    s = np.ascontiguousarray(x[0])  # 1-d
    f32 = np.ascontiguousarray(a, dtype=np.float32)  # a cast copy
    f32[1] *= 3.0
    return np.concatenate([a.ravel(), t.ravel(), s, f32.ravel()])


X = np.arange(1.0, 7.0) / 3.0


def test_values_and_identity_match_numpy():
    want = contiguous_writes(X)
    np.testing.assert_allclose(ft.jit(contiguous_writes)(X), want, rtol=1e-6)
    xs = np.stack([X, -X, X**2])
    np.testing.assert_allclose(
        ft.vmap(contiguous_writes)(xs), [contiguous_writes(x) for x in xs], rtol=1e-6
    )

    def kept(x):
        assert isinstance(np.ascontiguousarray(x), Tracer)
        return np.ascontiguousarray(x) is x

    assert ft.grad(lambda x: x.sum() * float(kept(x)))(X).tolist() == [1.0] * 6


@pytest.mark.parametrize("transform", [ft.jacfwd, ft.jacrev])
def test_jacobian_matches_central_differences(transform):
    f = contiguous_writes
    h = 1e-6
    want = np.stack([(f(X + e) - f(X - e)) / (2 * h) for e in np.eye(6) * h], axis=-1)
    got = transform(f)(X)
    np.testing.assert_allclose(got[:13], want[:13], rtol=1e-6, atol=1e-8)
    # the float32 copy of a (its second row tripled): central differences through a
    # float32 cast are too coarse, so compare with a's own rows
    np.testing.assert_allclose(got[13:16], got[:3])
    np.testing.assert_allclose(got[16:], 3.0 * got[3:6])
