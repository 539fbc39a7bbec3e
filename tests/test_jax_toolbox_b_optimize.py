"""``ft.scipy.optimize.minimize`` against ``jax.scipy.optimize.minimize`` (BFGS: every
field, under vmap and jit), against SciPy (L-BFGS-B with bounds), and its derivative in
``args`` (NOTE [differentiable minimize]) against central finite differences of SciPy's
``minimize`` solved tightly, in float64; the strict CuPy stand-in and the errors."""

from __future__ import annotations

import functools
import warnings

import jax
import jax.numpy as jnp
import jax.scipy.optimize
import numpy as np
import pytest
import scipy.optimize

import ftransforms as ft
import ftransforms.numpy as fnp
from ftransforms.errors import UnsupportedOperationError
from ftransforms.scipy.optimize import OptimizeResults, minimize
from ftransforms.strict_backend import StrictArray, asarray

jax.config.update("jax_enable_x64", True)


def rosen(x, c):
    return (c * (x[1:] - x[:-1] ** 2) ** 2).sum() + ((1 - x[:-1]) ** 2).sum()


X0 = np.array([-1.2, 1.0, 0.5, 0.3])


def test_bfgs_matches_jax_field_by_field():
    got = minimize(rosen, X0, args=(100.0,), method="BFGS")
    ref = jax.scipy.optimize.minimize(rosen, jnp.asarray(X0), args=(100.0,), method="BFGS")
    assert isinstance(got, OptimizeResults) and got._fields == ref._fields
    for name in ("x", "fun", "jac", "hess_inv"):
        np.testing.assert_allclose(getattr(got, name), getattr(ref, name), rtol=1e-6, atol=1e-9)
    for name in ("success", "status", "nfev", "njev", "nit"):
        assert int(getattr(got, name)) == int(getattr(ref, name)), name


def smooth(x, a, b):  # strictly convex: BFGS converges
    return (fnp.cosh(x - a)).sum() + 0.5 * b * (x * x).sum() + 0.1 * x[0] * x[1]


def smooth_jax(x, a, b):
    return (jnp.cosh(x - a)).sum() + 0.5 * b * (x * x).sum() + 0.1 * x[0] * x[1]


A = np.array([[1.0, 2.0, -1.0], [0.5, -1.0, 2.0], [2.0, 0.0, 1.0]])
B = np.array([0.3, 0.5, 1.0])
Z = np.zeros(3)


@functools.cache
def _jax_rows():
    return jax.vmap(
        lambda a, b: jax.scipy.optimize.minimize(
            smooth_jax, jnp.zeros(3), args=(a, b), method="BFGS"
        )
    )(A, B)


def test_bfgs_under_vmap_matches_jax():
    got = ft.vmap(lambda a, b: minimize(smooth, Z, args=(a, b)))(A, B)
    ref = _jax_rows()
    np.testing.assert_allclose(got.x, ref.x, rtol=1e-8, atol=1e-10)
    np.testing.assert_array_equal(got.nit, ref.nit)
    np.testing.assert_array_equal(got.status, ref.status)


def test_bfgs_under_jit():
    f = ft.jit(lambda a, b: minimize(smooth, Z, args=(a, b)).x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the nested line-search loop runs eagerly
        for a, b, ref in zip(A, B, _jax_rows().x):
            np.testing.assert_allclose(f(a, b), ref, rtol=1e-8, atol=1e-10)


def _scipy_argmin(a, b, method="BFGS", bounds=None):
    jac = jax.jit(jax.grad(smooth_jax))
    res = scipy.optimize.minimize(
        lambda x: float(smooth_jax(x, a, b)),
        Z,
        jac=lambda x: np.asarray(jac(x, a, b)),
        method=method,
        bounds=bounds,
        options={"gtol": 1e-13, "ftol": 1e-15} if method == "L-BFGS-B" else {"gtol": 1e-13},
    )
    return res.x


def _fd_jacobian(fn, v, eps=1e-5):
    cols = [(fn(v + eps * e) - fn(v - eps * e)) / (2 * eps) for e in np.eye(len(v))]
    return np.stack(cols, axis=-1)


@pytest.mark.parametrize("mode", ["jacrev", "jacfwd"])
def test_solution_derivative_matches_finite_differences_of_scipy(mode):
    a, b = A[0], B[0]
    opts = {"gtol": 1e-10}
    got = getattr(ft, mode)(lambda a: minimize(smooth, Z, args=(a, b), options=opts).x)(a)
    ref = _fd_jacobian(lambda a: _scipy_argmin(a, b), a)
    np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-7)
    # in b too, and per example under vmap
    got_b = ft.grad(lambda b: minimize(smooth, Z, args=(a, b), options=opts).x.sum())(b)
    ref_b = (_scipy_argmin(a, b + 1e-5).sum() - _scipy_argmin(a, b - 1e-5).sum()) / 2e-5
    np.testing.assert_allclose(got_b, ref_b, rtol=1e-6)
    per_row = ft.vmap(ft.jacrev(lambda a, b: minimize(smooth, Z, args=(a, b), options=opts).x))(
        A, B
    )
    np.testing.assert_allclose(per_row[0], ref, rtol=1e-6, atol=1e-7)


def test_fun_derivative_is_the_envelope_theorem():
    a, b = A[1], B[1]
    got = ft.grad(lambda b: minimize(smooth, Z, args=(a, b), options={"gtol": 1e-10}).fun)(b)
    x = _scipy_argmin(a, b)
    np.testing.assert_allclose(got, 0.5 * (x * x).sum(), rtol=1e-7)


def test_lbfgsb_with_bounds_matches_scipy_and_differentiates():
    bounds = [(0.0, 0.5), (None, None), (-1.0, 1.0)]
    a, b = A[0], B[0]
    opts = {"gtol": 1e-12, "ftol": 1e-15}
    r = minimize(smooth, Z, args=(a, b), method="L-BFGS-B", bounds=bounds, options=opts)
    ref = _scipy_argmin(a, b, "L-BFGS-B", bounds)
    np.testing.assert_allclose(r.x, ref, atol=1e-8)
    assert bool(r.success) and r.x[0] == 0.5  # the first coordinate is on its bound
    got = ft.jacrev(
        lambda a: minimize(smooth, Z, args=(a, b), method="L-BFGS-B", bounds=bounds, options=opts).x
    )(a)
    # SciPy's L-BFGS-B stops near 1e-8 from the solution: a wider step keeps the finite
    # difference's noise (1e-8 / eps) below its truncation error
    fd = _fd_jacobian(lambda a: _scipy_argmin(a, b, "L-BFGS-B", bounds), a, eps=1e-3)
    np.testing.assert_allclose(got, fd, rtol=1e-4, atol=5e-5)
    assert np.all(got[0] == 0)


def test_strict_backend_stays_on_device():
    r = minimize(
        lambda x, a: ((x - a) ** 2).sum() + (x**4).sum(), asarray(Z), args=(asarray(A[0]),)
    )
    assert type(r.x) is StrictArray
    g = ft.grad(
        lambda a: minimize(
            lambda x, a: ((x - a) ** 2).sum() + (x**4).sum(), asarray(Z), args=(a,)
        ).x.sum()
    )(asarray(A[0]))
    assert type(g) is StrictArray
    x = r.x.get()
    np.testing.assert_allclose(g.get(), 2 / (2 + 12 * x**2), rtol=1e-5)


def test_errors():
    with pytest.raises(ValueError, match="x0 must be a 1-D array"):
        minimize(rosen, np.zeros((2, 2)), args=(1.0,))
    with pytest.raises(TypeError, match="args must be a tuple"):
        minimize(rosen, X0, args=1.0)
    with pytest.raises(ValueError, match="method must be"):
        minimize(rosen, X0, args=(1.0,), method="Nelder-Mead")
    with pytest.raises(UnsupportedOperationError, match="cannot run under vmap or jit"):
        ft.vmap(lambda a: minimize(smooth, Z, args=(a, 1.0), method="L-BFGS-B").x)(A)
    assert not ft.core.stack.current_stack()


def test_zoom_takes_a_reversed_bracket_as_scipy_does():
    # JAX compares the zoom's signed bracket width with its threshold and stops with
    # status 3 here (jax-ml/jax#40228); SciPy and ftransforms converge.
    def quartic(x, c):
        return ((x - c) ** 2 + x**4 / 4).sum()

    c = np.array([1.0, 2.0])
    got = minimize(quartic, np.zeros(2), args=(c,))
    ref = scipy.optimize.minimize(quartic, np.zeros(2), args=(c,), method="BFGS", tol=1e-10)
    assert int(got.status) == 0 and bool(got.success)
    np.testing.assert_allclose(got.x, ref.x, atol=1e-6)
