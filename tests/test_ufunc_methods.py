"""NumPy's ufunc methods (``outer``, ``reduce``, ``accumulate``) on traced values:
``ftransforms.numpy.ufunc_methods``.

Oracles: NumPy's own methods (values), JAX's ``jnp.<ufunc>.<method>`` in float64
(derivatives), Python loops (vmap).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ftransforms as ft
import ftransforms.numpy as fnp
from ftransforms.numpy import ufunc_methods as um
from tests.tolerances import tol

jax.config.update("jax_enable_x64", True)

F64 = tol(np.float64)
X = np.random.default_rng(3).standard_normal((4, 5, 3))

BINARY = ["add", "multiply", "maximum", "minimum", "fmax", "logaddexp", "hypot", "subtract"]
BINARY += ["divide", "copysign"]


@pytest.mark.parametrize("name", BINARY)
def test_values_match_numpys_methods(name):
    fn, uf = getattr(fnp, name), getattr(np, name)
    for axis in (0, 1, None, (0, 2)):
        for keepdims in (False, True):
            if (axis is None or isinstance(axis, tuple)) and name not in um.ASSOCIATIVE:
                # NumPy refuses several axes for a non-reorderable ufunc, and so do we
                with pytest.raises(ValueError, match="not reorderable"):
                    uf.reduce(X, axis=axis, keepdims=keepdims)
                with pytest.raises(ValueError, match="not reorderable"):
                    um.reduce(fn, X, axis=axis, keepdims=keepdims)
                continue
            want = uf.reduce(X, axis=axis, keepdims=keepdims)
            got = um.reduce(fn, X, axis=axis, keepdims=keepdims)
            assert got.shape == want.shape, (axis, keepdims)
            np.testing.assert_allclose(got, want, **F64)
    for axis in (0, 1, 2):
        np.testing.assert_allclose(um.accumulate(fn, X, axis=axis), uf.accumulate(X, axis), **F64)
    want = uf.outer(X[0], X[1, :, 0])
    got = um.outer(fn, X[0], X[1, :, 0])
    assert got.shape == want.shape == (5, 3, 5)
    np.testing.assert_allclose(got, want, **F64)


def test_empty_and_scalar_inputs_raise_like_numpy():
    with pytest.raises(ValueError, match="no identity"):
        um.reduce(fnp.maximum, np.zeros((0, 3)))
    with pytest.raises(TypeError, match="scalar"):
        um.accumulate(fnp.maximum, np.float64(2.0))
    assert um.accumulate(fnp.maximum, np.zeros((0, 2))).shape == (0, 2)


CASES = {
    "drawdown": (
        lambda m, w: m.max(m.maximum.accumulate(m.cumsum(w)) - m.cumsum(w)),
        lambda w: fnp.max(um.accumulate(fnp.maximum, fnp.cumsum(w)) - fnp.cumsum(w)),
    ),
    "running_min_axis1": (
        lambda m, w: (m.minimum.accumulate(w.reshape(2, 4), axis=1) ** 2).sum(),
        lambda w: (um.accumulate(fnp.minimum, w.reshape(2, 4), axis=1) ** 2).sum(),
    ),
    "logaddexp_reduce": (
        lambda m, w: m.logaddexp.reduce(w),
        lambda w: um.reduce(fnp.logaddexp, w),
    ),
    "hypot_reduce_keepdims": (
        lambda m, w: (m.hypot.reduce(w.reshape(2, 4), axis=1, keepdims=True) * w[:2]).sum(),
        lambda w: (um.reduce(fnp.hypot, w.reshape(2, 4), axis=1, keepdims=True) * w[:2]).sum(),
        # jnp.hypot has no reduce: the Euclidean norm of each row
        lambda w: (jnp.linalg.norm(w.reshape(2, 4), axis=1, keepdims=True) * w[:2]).sum(),
    ),
    "subtract_outer": (
        lambda m, w: (m.exp(-(m.subtract.outer(w, w) ** 2))).sum(),
        lambda w: (fnp.exp(-(um.outer(fnp.subtract, w, w) ** 2))).sum(),
    ),
    "divide_accumulate": (
        lambda m, w: m.divide.accumulate(1.5 + m.sin(w)).sum(),
        lambda w: um.accumulate(fnp.divide, 1.5 + fnp.sin(w)).sum(),
        # jnp.divide has no accumulate: the running quotient, a[0] / prod(a[1:i+1])
        lambda w: ((1.5 + jnp.sin(w[0])) / jnp.cumprod(jnp.r_[1.0, 1.5 + jnp.sin(w[1:])])).sum(),
    ),
    "subtract_reduce_axis0": (
        lambda m, w: (m.subtract.reduce(w.reshape(4, 2), axis=0) ** 3).sum(),
        lambda w: (um.reduce(fnp.subtract, w.reshape(4, 2), axis=0) ** 3).sum(),
    ),
}


def cheap_jit(f):
    """``jax.jit(f)`` compiled without XLA's expensive passes (the oracles run once)."""

    def run(x):
        opts = {"xla_backend_optimization_level": 0, "xla_llvm_disable_expensive_passes": True}
        return jax.jit(f).lower(x).compile(compiler_options=opts)(x)

    return run


W = np.array([0.3, -1.2, 0.8, 2.0, -0.5, 1.1, 0.05, -0.7])


@pytest.mark.parametrize("name", sorted(CASES))
def test_derivatives_match_jax_and_vmap_matches_a_loop(name):
    np_f, ft_f, *jax_f = CASES[name]
    jax_f = jax_f[0] if jax_f else (lambda w: np_f(jnp, w))
    want = cheap_jit(jax.grad(jax_f))(W)
    np.testing.assert_allclose(ft.grad(ft_f)(W), want, **F64)
    want_h = cheap_jit(jax.hessian(jax_f))(W)
    np.testing.assert_allclose(ft.jacfwd(ft.grad(ft_f))(W), want_h, **F64)
    ws = np.stack([W, W[::-1] * 0.7, -W])
    got = ft.vmap(ft.grad(ft_f))(ws)
    np.testing.assert_allclose(got, np.stack([ft.grad(ft_f)(w) for w in ws]), **F64)
    step = ft.jit(ft.grad(ft_f))
    step(W)
    np.testing.assert_allclose(step(ws[1]), ft.grad(ft_f)(ws[1]), **F64)


@pytest.mark.parametrize("name", sorted(CASES))
def test_numpy_ufunc_methods_dispatch_on_tracers(name):
    np_f, ft_f, *_ = CASES[name]
    want = ft.grad(ft_f)(W)  # checked against JAX above
    np.testing.assert_allclose(ft.grad(lambda w: np_f(np, w))(W), want, **F64)
    ws = np.stack([W, -W])
    got = ft.vmap(lambda w: np_f(np, w))(ws)
    np.testing.assert_allclose(got, [np_f(np, w) for w in ws], **F64)
