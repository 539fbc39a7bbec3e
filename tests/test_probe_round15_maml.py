"""Round-15 probes of the core workloads written as NumPy users write them: MAML inner
loops updating parameters in place, implicit MAML's conjugate-gradient solve through a
SciPy ``LinearOperator`` whose ``matvec`` is a Hessian-vector product closing over the
meta-parameters.  Oracles: float64 finite differences, a Python loop over tasks, JAX."""

from __future__ import annotations

import types

import numpy as np
import pytest
import scipy.sparse.linalg as spla
from scipy.integrate import quad  # (SciPy's function object, bound before any transform)

import ftransforms as ft
from ftransforms.errors import TracerConversionError
from ftransforms.scipy.sparse.linalg import cg as ft_cg
from tests.program_oracles import fd_jacobian, jax_call
from tests.tolerances import assert_tree_close, fd_tol, tol

RNG = np.random.default_rng(16)
X = RNG.normal(size=(8, 4))
Y = RNG.normal(size=8)
W0 = RNG.normal(size=4)
GQ = RNG.normal(size=4)


def inner_loss(w):
    return np.mean((np.tanh(X @ w) - Y) ** 2)


def imaml_solve(w, solver=spla.cg):
    """``(I + H(w)/2)^-1 g``, H the inner loss's Hessian given to CG as a LinearOperator
    whose matvec (a Hessian-vector product) closes over ``w``."""
    hvp = lambda v: v + ft.jvp(ft.grad(inner_loss), (w,), (v,))[1] / 2.0  # noqa: E731
    op = spla.LinearOperator((4, 4), matvec=hvp, dtype=np.float64)
    return solver(op, GQ, rtol=1e-12)[0]


def test_scipy_cg_on_a_linear_operator_closing_over_a_tracer():
    # SciPy's cg saw no tracer in its arguments (the tracer is in matvec's closure), ran
    # its own code and raised TracerConversionError naming "trampoline"
    want = np.stack([imaml_solve(w) for w in (W0, 2 * W0)])
    assert_tree_close(ft.vmap(imaml_solve)(np.stack([W0, 2 * W0])), want, **tol(np.float64))
    assert_tree_close(ft.jit(imaml_solve)(W0), want[0], **tol(np.float64))
    got = ft.jacrev(imaml_solve)(W0)
    assert_tree_close(got, fd_jacobian(imaml_solve, (W0,)), **fd_tol(np.float64))


def test_our_cg_on_a_linear_operator_closing_over_a_tracer():
    # its first matvec (at x0 = 0, a plain array) went to SciPy's matvec, whose
    # numpy.asarray of the traced product raised TracerConversionError
    solve = lambda w: imaml_solve(w, ft_cg)  # noqa: E731
    want = fd_jacobian(solve, (W0,))
    assert_tree_close(ft.jacfwd(solve)(W0), want, **fd_tol(np.float64))
    assert_tree_close(ft.jacrev(solve)(W0), want, **fd_tol(np.float64))


def test_sum_of_linear_operators_closing_over_a_tracer():
    def f(w):
        op = spla.LinearOperator((4, 4), matvec=lambda v: w * v, dtype=np.float64)
        return (op + 2 * op).matvec(np.ones(4))

    assert_tree_close(
        ft.vmap(f)(np.stack([W0, W0 + 1])), 3 * np.stack([W0, W0 + 1]), **tol(np.float64)
    )
    assert_tree_close(ft.jacrev(f)(W0), 3 * np.eye(4), **tol(np.float64))


def _maml_in_place(w, x, y):
    """Three inner SGD steps written in place on a list of views of one flat buffer."""
    flat = w.copy()
    views = [flat[:3], flat[3:]]
    for _ in range(3):
        g = ft.grad(lambda f: np.mean((np.tanh(x @ f[:3]) + f[3] - y) ** 2))(flat)
        for v, gv in zip(views, (g[:3], g[3:])):
            v -= 0.3 * gv  # writes flat through the view
    return np.mean((np.tanh(x[::-1] @ flat[:3]) + flat[3] - y) ** 2)


def test_maml_in_place_views_vmap_over_tasks_against_jax():
    import jax  # late import: test-only oracle
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)
    xs, ys = RNG.normal(size=(3, 5, 3)), RNG.normal(size=(3, 5))
    w = RNG.normal(size=4)

    def jax_task(w, x, y):
        loss = lambda f, x: jnp.mean((jnp.tanh(x @ f[:3]) + f[3] - y) ** 2)  # noqa: E731
        for _ in range(3):
            w = w - 0.3 * jax.grad(loss)(w, x)
        return loss(w, x[::-1])

    want = np.asarray(jax_call(jax.vmap(jax.grad(jax_task), (None, 0, 0)), w, xs, ys))
    got = ft.vmap(ft.grad(_maml_in_place), (None, 0, 0))(w, xs, ys)
    assert_tree_close(got, want, **tol(np.float64))
    jitted = ft.jit(ft.vmap(ft.grad(_maml_in_place), (None, 0, 0)))
    assert_tree_close(jitted(w, xs, ys), want, **tol(np.float64))


class _Decay:
    """A callable object (a "model") whose parameter is an attribute."""

    def __init__(self, k):
        self.k = k

    def __call__(self, x):
        k = getattr(self.k, "k", self.k)
        return np.exp(-k * x)


def test_scipy_quad_of_a_callable_object_holding_a_tracer():
    # the redirect looked for tracers only in a function's closure, so SciPy's quad ran
    # and raised TracerConversionError naming "scipy.integrate.trampoline"
    got = ft.grad(lambda k: quad(_Decay(k), 0.0, 1.0)[0])(1.0)
    want = fd_jacobian(lambda k: quad(_Decay(float(k)), 0.0, 1.0)[0], (np.float64(1.0),))
    assert_tree_close(got, want, **fd_tol(np.float64))


def test_scipy_error_names_the_function_not_the_redirect():
    # the tracer two attributes deep is not seen, so SciPy's quad runs and its float()
    # of the traced integrand value fails: the error named the redirect's trampoline
    # ("scipy.integrate.trampoline") instead of SciPy's function
    holder = types.SimpleNamespace()
    with pytest.raises(TracerConversionError, match=r"scipy\.integrate\.quad "):
        ft.grad(lambda k: quad(_Decay(setattr(holder, "k", k) or holder), 0.0, 1.0)[0])(1.0)
