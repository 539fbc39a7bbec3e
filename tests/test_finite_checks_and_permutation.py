"""Checks on data and draws that compute on a traced array: ``np.asarray_chkfinite`` and
SciPy's ``check_finite=True`` raise NumPy's ValueError for inf/NaN under every transform
and on a ``jit`` replay (NOTE [finiteness checks] in ftransforms/ops/checks.py);
``rng.permutation(t)`` / ``np.random.permutation(t)`` of a traced array give NumPy's
order with derivatives through it.

Oracles: NumPy/SciPy on plain arrays (the same error; the same draws), float64 central
differences, a Python loop over the rows for vmap."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

import ftransforms as ft
from ftransforms.core.stack import current_stack

BAD = np.array([1.0, np.nan, 2.0])
W = np.array([1.0, 2.0, 3.0])


def _sq(x):
    y = np.asarray_chkfinite(x)
    return (y * y * W).sum()


TRANSFORMS = {
    "grad": ft.grad,
    "jit": ft.jit,
    "jit(grad)": lambda f: ft.jit(ft.grad(f)),
    "hessian": ft.hessian,
    "jacfwd": ft.jacfwd,
}


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_asarray_chkfinite_raises_as_numpy_under_transforms(name):
    g = TRANSFORMS[name](_sq)
    g(np.ones(3))  # a jit records here, so the bad call below is a replay
    with pytest.raises(ValueError, match="must not contain infs or NaNs") as caught:
        g(BAD)
    with pytest.raises(ValueError) as numpy_error:
        np.asarray_chkfinite(BAD)
    assert str(caught.value) == str(numpy_error.value)
    assert current_stack() == ()


def test_asarray_chkfinite_under_vmap_and_its_alias():
    rows = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 4.0]])
    np.testing.assert_allclose(ft.vmap(_sq)(rows), [_sq(r) for r in rows])
    with pytest.raises(ValueError, match="infs or NaNs"):
        ft.vmap(_sq)(np.stack([rows[0], BAD]))

    def f(x):  # NumPy: asarray_chkfinite of an array is that array, writes included
        y = np.asarray_chkfinite(x)
        y[0] = 0.0
        return (x * W).sum() + (y * y).sum()

    x = np.array([1.0, 2.0, 3.0])
    fd = [(f(x + 1e-6 * e) - f(x - 1e-6 * e)) / 2e-6 for e in np.eye(3)]
    np.testing.assert_allclose(ft.grad(f)(x), fd, rtol=1e-7)


CHECKED = {
    "solve": lambda x: scipy.linalg.solve(np.eye(3) * 2, x).sum(),
    "inv": lambda x: scipy.linalg.inv(np.diag(x)).sum(),
    "cho_solve": lambda x: scipy.linalg.cho_solve(scipy.linalg.cho_factor(np.eye(3)), x).sum(),
    "lu_solve": lambda x: scipy.linalg.lu_solve(scipy.linalg.lu_factor(np.eye(3)), x).sum(),
    "svd": lambda x: scipy.linalg.svd(np.diag(x), compute_uv=False).sum(),
}


@pytest.mark.parametrize("name", sorted(CHECKED))
def test_scipy_check_finite_is_kept(name):
    f = CHECKED[name]
    with pytest.raises(ValueError, match="infs or NaNs"):
        f(BAD)  # SciPy's own
    good = np.array([1.0, 2.0, 3.0])
    for g, ok, bad in (
        (ft.grad(f), good, BAD),
        (ft.jit(ft.grad(f)), good, BAD),  # recorded on ok, replayed on bad
        (ft.vmap(f), np.stack([good, good]), np.stack([good, BAD])),
    ):
        g(ok)
        with pytest.raises(ValueError, match="infs or NaNs"):
            g(bad)
    # check_finite=False computes with the NaN, as SciPy does
    out = ft.grad(lambda x: scipy.linalg.solve(np.eye(3), x, check_finite=False).sum())(BAD)
    np.testing.assert_array_equal(out, np.ones(3))


def _perm_loss(draw):
    return lambda x: (draw(x) * W).sum()


def test_generator_permutation_of_a_traced_array():
    x = np.array([0.3, -1.2, 2.5])
    f = _perm_loss(lambda v: np.random.default_rng(4).permutation(v))
    order = np.random.default_rng(4).permutation(3)
    expected = np.zeros(3)
    expected[order] = W  # out[i] = x[order[i]]
    np.testing.assert_allclose(ft.grad(f)(x), expected)
    np.testing.assert_allclose(
        ft.jacrev(lambda v: np.random.default_rng(4).permutation(v))(x), np.eye(3)[order]
    )
    two_d = np.arange(6.0).reshape(3, 2)
    np.testing.assert_array_equal(
        ft.jit(lambda v: np.random.default_rng(1).permutation(v) * 2)(two_d),
        np.random.default_rng(1).permutation(two_d) * 2,
    )


def test_global_permutation_of_a_traced_array_matches_numpy_draws():
    x = np.array([0.3, -1.2, 2.5, 4.0])
    np.random.seed(11)
    got = ft.grad(lambda v: (np.random.permutation(v) * np.arange(4.0)).sum())(x)
    np.random.seed(11)
    order = np.random.permutation(4)
    expected = np.zeros(4)
    expected[order] = np.arange(4.0)
    np.testing.assert_allclose(got, expected)
    rows = np.arange(12.0).reshape(3, 4)
    np.random.seed(5)
    out = ft.vmap(lambda v: np.random.permutation(v), randomness="different")(rows)
    np.random.seed(5)
    np.testing.assert_array_equal(out, [np.random.permutation(r) for r in rows])
    np.random.seed(5)
    g = ft.vmap(
        ft.grad(lambda v: (np.random.permutation(v) * np.arange(4.0)).sum()), randomness="different"
    )(rows)
    np.random.seed(5)
    for r, gr in zip(rows, g):
        order = np.random.permutation(r.size)
        expected = np.zeros(4)
        expected[order] = np.arange(4.0)
        np.testing.assert_allclose(gr, expected)


def test_scipy_fixed_point_on_traced_parameters():
    """scipy.optimize.fixed_point (SciPy's array-API code needed x.device of a tracer,
    then a NumPy array indexed by a traced mask): the counterpart solves with SciPy on
    plain values and differentiates the root of func(x) - x implicitly."""
    import scipy.optimize as so

    def f(a):
        return so.fixed_point(lambda x: np.cos(x) * a, 0.5)

    np.testing.assert_allclose(ft.grad(f)(0.9), (f(0.9 + 1e-6) - f(0.9 - 1e-6)) / 2e-6, rtol=1e-7)
    np.testing.assert_allclose(ft.jit(f)(0.7), f(0.7))
    with pytest.warns(ft.errors.PerformanceWarning):  # one host solve per row
        np.testing.assert_allclose(ft.vmap(f)(np.array([0.8, 0.9])), [f(0.8), f(0.9)])

    def g(c):
        return so.fixed_point(lambda x, c: np.sqrt(c + x), np.array([1.0, 2.0]), args=(c,))

    c = np.array([2.0, 3.0])
    fd = np.stack([(g(c + 1e-6 * e) - g(c - 1e-6 * e)) / 2e-6 for e in np.eye(2)], axis=1)
    np.testing.assert_allclose(ft.jacfwd(g)(c), fd, rtol=1e-6, atol=1e-9)
    assert ft.grad(lambda x: (x.to_device("cpu") * x).sum())(c).tolist() == (2 * c).tolist()
