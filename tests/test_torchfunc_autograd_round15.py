"""Round 15: torch.func and HIPS autograd users porting to ftransforms.

- ``ftransforms.builtins.isinstance``/``type`` see through tracers as autograd's
  ``autograd.builtins`` see through its boxes (``isinstance(getval(x), cls)``): a port of
  ``from autograd.builtins import isinstance`` branching on ``isinstance(x, np.ndarray)``
  took the other branch inside ``grad``/``vmap`` (Python's ``isinstance`` of a tracer).
- autograd's operators built on its ``grad`` take what it takes: ``grad_and_aux`` seeds
  with ones like the output (an array output gives the summed output's gradient, as
  autograd's ``vjp((ones, zeros))``), and ``make_hvp``/``hessian_tensor_product``/
  ``make_ggnvp``/``grad_named``/``multigrad_dict``/``holomorphic_grad`` accept an output of
  one element in any shape (NOTE [autograd's size-one outputs]); they raised
  ``GradOutputError``.
- ``functional_call(model, (params, buffers), ...)`` no longer writes a buffer the model
  rebinds back into the caller's ``buffers`` (torch merges a sequence of dicts into a new
  one first): a ``buffers`` dict closed over by a ``vmap``/``grad``-ed loss was left
  holding that transform's tracer, and the next step raised ``EscapedTracerError``.
- ``ftransforms.extend``: a primitive given both ``defvjp`` and ``defjvp`` uses its JVPs
  in forward mode (``jvp``, ``jacfwd``, ``check_grads(modes=["fwd"])``) and its VJPs in
  reverse mode, as autograd; forward mode raised "can't apply forward-mode autodiff to a
  custom_vjp function" although the JVPs were given.
"""

from __future__ import annotations

import numpy as np

import ftransforms as ft
from ftransforms import autograd_compat as ag
from ftransforms.builtins import isinstance as ag_isinstance
from ftransforms.builtins import type as ag_type
from ftransforms.extend import defjvp, defvjp, primitive
from ftransforms.test_util import check_grads
from tests.program_oracles import fd_jacobian
from tests.tolerances import fd_tol


def _energy(x):
    # autograd-era code: an array argument is reduced, a scalar one is squared
    if ag_isinstance(x, np.ndarray):
        return np.sum(x**3)
    return x**2


def test_autograd_builtins_isinstance_sees_through_tracers() -> None:
    x = np.array([0.5, -1.0, 2.0])
    g = ft.grad(_energy)(x)
    np.testing.assert_allclose(g, fd_jacobian(_energy, (x,)), **fd_tol(x))
    rows = np.array([[1.0, 2.0], [3.0, -1.0]])
    per_row = ft.vmap(ft.grad(_energy))(rows)
    loop = np.stack([fd_jacobian(_energy, (r,)) for r in rows])
    np.testing.assert_allclose(per_row, loop, **fd_tol(rows))
    assert ft.jit(lambda x: np.float64(ag_type(x) is np.ndarray))(x) == 1.0
    assert ag_isinstance(3.0, float) and ag_type(3) is int  # plain values: Python's


def test_grad_and_aux_seeds_with_ones_like_the_output() -> None:
    x = np.array([0.3, -0.7, 1.1])
    g, aux = ag.grad_and_aux(lambda a: (np.sin(a) * a, a.sum()))(x)
    want = fd_jacobian(lambda a: np.sum(np.sin(a) * a), (x,))
    np.testing.assert_allclose(g, want, **fd_tol(x))
    assert float(aux) == float(x.sum())


def _cubic_one(w):  # a loss kept as a (1, 1) array, as autograd programs leave it
    return np.sum(w**3 * np.arange(1.0, 4.0)).reshape(1, 1)


def test_autograd_operators_take_an_output_of_one_element() -> None:
    w, v = np.array([0.3, -0.7, 1.1]), np.array([1.0, 2.0, -1.0])
    H = fd_jacobian(lambda a: 3 * a**2 * np.arange(1.0, 4.0), (w,))
    np.testing.assert_allclose(ag.hessian_tensor_product(_cubic_one)(w, v), H @ v, **fd_tol(w))
    hvp, g = ag.make_hvp(_cubic_one)(w)
    np.testing.assert_allclose(hvp(v), H @ v, **fd_tol(w))
    np.testing.assert_allclose(g, fd_jacobian(_cubic_one, (w,))[0, 0], **fd_tol(w))
    named = ag.grad_named(lambda w, s: s * _cubic_one(w), "s")(w, 2.0)
    np.testing.assert_allclose(named, _cubic_one(w)[0, 0], **fd_tol(w))
    A = np.array([[1.0, 2.0, 0.0], [0.0, 3.0, 1.0]])
    ggn = ag.make_ggnvp(lambda w: (A @ w)[None])(w)(v)  # g(y) = sum(y**2, -1) / 2: shape (1,)
    np.testing.assert_allclose(ggn, A.T @ A @ v, **fd_tol(w))


class _RunningMean:  # a model that rebinds a buffer (batch-norm style running statistics)
    def __init__(self) -> None:
        self.w = np.array([1.0, 2.0, 3.0])
        self.running_mean = np.zeros(3)

    def __call__(self, x):
        self.running_mean = 0.9 * self.running_mean + 0.1 * x.mean(0)
        return np.tanh(self.w * (x - self.running_mean))


def test_functional_call_with_params_and_buffers_leaves_the_callers_buffers() -> None:
    model = _RunningMean()
    params, buffers = {"w": model.w}, {"running_mean": np.zeros(3)}

    def loss(p, x):  # buffers closed over, as per-sample-gradient code often has it
        return ft.functional_call(model, (p, buffers), (x,)).sum()

    xs = np.arange(24.0).reshape(2, 4, 3) / 10
    grads = ft.vmap(ft.grad(loss), in_dims=(None, 0))(params, xs)
    for g, x in zip(grads["w"], xs):
        want = fd_jacobian(lambda w: loss({"w": w}, x), (params["w"],))
        np.testing.assert_allclose(g, want, **fd_tol(x))
    assert type(buffers["running_mean"]) is np.ndarray
    np.testing.assert_array_equal(buffers["running_mean"], np.zeros(3))
    out = ft.functional_call(model, (params, buffers), (xs[0],))  # the next step runs
    assert out.shape == (4, 3)


def _sine_with_both_rules(vjp_scale: float, jvp_scale: float) -> primitive:
    @primitive
    def sine(x):
        return np.sin(x)

    # scaled rules show which one each mode uses (a correct primitive has both 1.0)
    defvjp(sine, lambda ans, x: lambda g: vjp_scale * g * np.cos(x))
    defjvp(sine, lambda g, ans, x: jvp_scale * g * np.cos(x))
    return sine


def test_primitive_with_vjps_and_jvps_uses_each_in_its_mode() -> None:
    x = np.array([0.3, 0.5, -1.2])
    sine = _sine_with_both_rules(2.0, 3.0)
    np.testing.assert_allclose(ft.grad(lambda x: sine(x).sum())(x), 2.0 * np.cos(x))
    np.testing.assert_allclose(ft.jvp(sine, (x,), (np.ones(3),))[1], 3.0 * np.cos(x))
    np.testing.assert_allclose(np.diag(ft.jacfwd(sine)(x)), 3.0 * np.cos(x))
    # forward over reverse: the JVP level differentiates the VJP rule's code
    np.testing.assert_allclose(np.diag(ft.hessian(lambda x: sine(x).sum())(x)), -2 * np.sin(x))
    correct = _sine_with_both_rules(1.0, 1.0)
    check_grads(correct, modes=["fwd", "rev"], order=2)(x)
    want = fd_jacobian(np.sin, (x,))
    np.testing.assert_allclose(ft.jacfwd(correct)(x), want, **fd_tol(x))
    np.testing.assert_allclose(ft.vmap(ft.jacfwd(correct))(x[:, None])[:, 0, 0], np.diag(want))
