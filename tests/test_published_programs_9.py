"""Published programs, round nine: JAX programs run unchanged with ``jax`` replaced by
``ftransforms`` in their import lines, compared with what JAX prints for them.

Each program lives in its own module under ``tests/published9/`` with its bodies
verbatim, plotting left out, and sizes or iteration counts shrunk.

Programs: the NeurIPS 2020 tutorial "Deep Implicit Layers" (Kolter, Duvenaud & Johnson),
chapter 2 (a deep-equilibrium fixed-point layer solved by iteration, Newton's method and
Anderson acceleration, differentiated through the iterations and by implicit
differentiation with ``custom_vjp``) and chapter 3 (a residual network and an ODE-Net on
``jax.experimental.ode.odeint``, ``vmap(odenet, in_axes=(None, 0))``, a jitted ``grad``
step).

Oracles: JAX (float64) on the same programs written with ``jax.numpy``, the implicit
function theorem's gradient in closed form, the fixed-point equation itself, and eager
runs for ``jit``.

What this round found and fixed (each has a test here that fails without it):

* ``odeint`` (``ftransforms.experimental.ode`` and ``ftransforms.scipy.integrate``) was a
  Dormand-Prince solver of its own, which hit each output time and agreed with JAX's
  ``odeint`` only to the tolerance: the ODE-Net's losses and predictions printed JAX's
  numbers to 1e-7, not to rounding, and ``ftransforms.experimental.ode.odeint`` had SciPy's
  default tolerances (1.49012e-8) where JAX has 1.4e-8.  It now takes JAX's steps (NOTE
  [odeint steps as JAX's] in ``ftransforms/scipy/integrate.py``), with JAX's defaults in
  ``ftransforms.experimental.ode``.
"""

from __future__ import annotations

import contextlib
import io

import jax
import jax.numpy as jnp
import numpy as np
import optree

import ftransforms as ft
from ftransforms.experimental.ode import odeint
from tests.published9 import implicit_layers_deq, implicit_layers_node
from tests.tolerances import assert_tree_close


def close(actual, expected, rtol, atol=0.0, msg=""):
    assert_tree_close(
        actual, optree.tree_map(np.asarray, expected), rtol=rtol, atol=atol, err_msg=msg
    )


# ======================================================================================
# 1. "Deep Implicit Layers", chapter 2: the fixed-point layer and its three solvers
# ======================================================================================


def implicit_gradient(W, x, z):
    """d sum(z*) / dW for z* = tanh(W z* + x): with D = diag(1 - z*^2), the implicit
    function theorem gives (D u) z*^T where (I - D W)^T u = 1."""
    d = 1.0 - z**2
    u = np.linalg.solve((np.eye(len(z)) - d[:, None] * W).T, np.ones(len(z)))
    return np.outer(d * u, z)


def test_deq_fixed_point_layer_solvers_and_gradients():
    p = implicit_layers_deq
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        W, x, z_anderson, g_unrolled = p.main()
    W, x = np.asarray(W), np.asarray(x)
    # the tutorial's inputs are JAX's draws (to rounding: the normals' erfinv)
    close(W, jax.random.normal(jax.random.PRNGKey(0), (10, 10)) / jnp.sqrt(10), 1e-14)
    close(x, jax.random.normal(jax.random.PRNGKey(1), (10,)), 1e-14)
    assert len(printed.getvalue().splitlines()) > 6  # three solutions, three gradient rows
    # each solver's output solves the fixed-point equation, to its stopping rule (Anderson
    # stops on a relative residual and returns the extrapolated iterate, not f of it)
    for solver, tol in ((p.fwd_solver, 1e-5), (p.newton_solver, 1e-8), (p.anderson_solver, 1e-3)):
        z = np.asarray(p.fixed_point_layer(solver, p.f, W, x))
        close(z, np.tanh(W @ z + x), tol, tol, solver.__name__)
    z = np.asarray(p.fixed_point_layer(p.newton_solver, p.f, W, x))
    expected = implicit_gradient(W, x, z)
    # through the iterations (the unrolled solvers) and by implicit differentiation: exact
    # with Newton's solver; with the others, to what their stopping rules leave (the
    # iterates' derivative converges more slowly than the iterates; JAX prints the same)
    atols = {"fwd_solver": 1e-3, "newton_solver": 1e-9, "anderson_solver": 1e-2}
    solvers = (p.fwd_solver, p.newton_solver, p.anderson_solver)
    for solver, g in zip(solvers, g_unrolled):
        close(g, expected, 0.0, atols[solver.__name__], solver.__name__)
    for solver in solvers:
        layer = p.fixed_point_layer_implicit
        g = ft.grad(lambda W: layer(solver, p.f, W, x).sum())(W)
        close(g, expected, 0.0, atols[solver.__name__] / 10, solver.__name__)


# ======================================================================================
# 2. "Deep Implicit Layers", chapter 3: ResNet and ODE-Net, odeint under vmap, grad, jit
# ======================================================================================


# JAX 0.10.2's numbers (float64) for what the tests below compute, recorded because JAX
# compiles odeint's loops for seconds: ``jax.jit(jax.value_and_grad(loss))`` of the
# ODE-Net written with jax.numpy and ``jax.experimental.ode.odeint`` (the same program,
# ``jnp`` and ``odeint`` JAX's), and ``jax.experimental.ode.odeint`` of the pendulum.
JAX_ODENET_LOSS = 15.302850193809888
JAX_ODENET_GRAD_B2 = [-0.21782350817517715]
JAX_ODENET_GRAD_W1_ROW0 = [
    0.26890485475763215,
    0.2766022314677228,
    0.8104745055780288,
    0.26457500054606264,
]
JAX_PENDULUM = {
    "default": [
        [1.0, 0.0],
        [-0.8272869452417391, -0.6407877142655639],
        [0.4213744604768682, 1.0573622018936086],
        [-0.02219094618807348, -1.1402255363396439],
    ],
    "rtol=1e-4, atol=1e-6": [
        [1.0, 0.0],
        [-0.8272788276354035, -0.6406382753769968],
        [0.4215189064211138, 1.0570385849617348],
        [-0.022594881374530425, -1.1399019695841184],
    ],
}
JAX_PENDULUM_GRAD = ([0.7760892900389768, 0.8551933321661715], -1.941811260798384)


def test_odenet_prints_what_jax_prints():
    p = implicit_layers_node
    params = p.init_random_params(p.param_scale, p.odenet_layer_sizes, rng=np.random.RandomState(0))
    inputs, targets = np.asarray(p.inputs), np.asarray(p.targets)
    # the batched ODE-Net's loss and gradient: JAX's to rounding (a solver of its own
    # agreed to 1e-7 only)
    loss, grads = ft.value_and_grad(p.odenet_loss)(params, inputs, targets)
    close(loss, JAX_ODENET_LOSS, 1e-12)
    close(grads[1][1], np.array(JAX_ODENET_GRAD_B2), 1e-9)
    close(grads[0][0][0, :4], np.array(JAX_ODENET_GRAD_W1_ROW0), 1e-9)
    # the jitted training step, replayed on the updated parameters, is the eager step
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        trained = p.train_odenet(2)
    step = params
    for _ in range(2):
        g = ft.grad(p.odenet_loss)(step, inputs, targets)
        step = [(w - p.step_size * dw, b - p.step_size * db) for (w, b), (dw, db) in zip(step, g)]
    close(trained, step, 1e-12, 1e-14)
    assert printed.getvalue().splitlines()[0].startswith("0 ")


def pendulum(y, t, a):
    return ft.numpy.stack([y[1], -a * ft.numpy.sin(y[0]) + 0.1 * ft.numpy.cos(t)])


def test_odeint_takes_jaxs_steps():
    """``odeint`` with JAX's defaults gives JAX's numbers: a pendulum at coarse output
    times (steps run past them: the interpolating quartic), a looser tolerance, and the
    adjoint gradient in ``y0`` and a parameter; ``vmap`` is the loop over rows."""
    y0, ts = np.array([1.0, 0.0]), np.linspace(0.0, 6.0, 4)
    close(odeint(pendulum, y0, ts, 2.0), np.array(JAX_PENDULUM["default"]), 1e-11, 1e-13)
    loose = odeint(pendulum, y0, ts, 2.0, rtol=1e-4, atol=1e-6)
    close(loose, np.array(JAX_PENDULUM["rtol=1e-4, atol=1e-6"]), 1e-11, 1e-13)

    def final(y0, a):
        return odeint(pendulum, y0, ts, a, rtol=1e-5)[-1, 0]

    got = ft.grad(final, argnums=(0, 1))(y0, 2.0)
    close(got, (np.array(JAX_PENDULUM_GRAD[0]), JAX_PENDULUM_GRAD[1]), 1e-9, 1e-12)
    rows = np.array([1.5, 2.0, 3.0])
    batched = ft.vmap(final, in_dims=(None, 0))(y0, rows)
    close(batched, np.array([final(y0, a) for a in rows]), 1e-13, 1e-15)


# ======================================================================================
# 3. JAX's "Complex numbers and differentiation": grad(holomorphic=True) of a Cholesky
# ======================================================================================


#: JAX 0.10.2's ``jax.grad(loss, holomorphic=True)(A)`` (float64) for the docs' example
#: below (the page prints these numbers in float32).
JAX_CHOLESKY_GRAD = [
    [
        -0.7534174988308344 + 0j,
        -3.0509045180447445 - 10.940544508487424j,
        5.9896852285453805 + 3.5423037488134943j,
    ],
    [
        -3.0509045180447445 + 10.940544508487424j,
        -8.904491876453998 + 0j,
        -5.13515102285024 - 6.559374699008809j,
    ],
    [
        5.9896852285453805 - 3.5423037488134943j,
        -5.13515102285024 + 6.559374699008809j,
        0.013204274102533576 + 0j,
    ],
]


def test_cholesky_symmetrize_input_as_jax():
    """The docs' example with ``jnp.linalg.cholesky(X, symmetrize_input=True)`` (JAX's
    keyword, its default): the Hermitian gradient JAX gives.  Without the keyword
    ``ftransforms.numpy`` reads the lower triangle as NumPy does (NOTE [numpy reads one
    triangle]), which gives the lower-triangular gradient of that function."""
    import ftransforms.numpy as fnp

    A = np.array([[5.0, 2.0 + 3j, 5j], [2.0 - 3j, 7.0, 1.0 + 7j], [-5j, 1.0 - 7j, 12.0]])

    def f(**kw):
        def loss(X):
            L = fnp.linalg.cholesky(X, **kw)
            return fnp.sum((L - fnp.sin(L)) ** 2)

        return loss

    got = ft.grad(f(symmetrize_input=True), holomorphic=True)(A)
    close(got, np.array(JAX_CHOLESKY_GRAD), 1e-12, 1e-12)
    lower = ft.grad(f(), holomorphic=True)(A)
    close(np.triu(lower, 1), np.zeros((3, 3)), 0.0)  # the default reads one triangle
    # real: the factor of (X + X^T) / 2 has the symmetric part of the one-triangle gradient
    real = A.real + 3 * np.eye(3)
    for kw in ({}, {"upper": True}):
        one_triangle = ft.grad(f(**kw))(real)
        got = ft.grad(f(symmetrize_input=True, **kw))(real)
        close(got, (one_triangle + one_triangle.T) / 2, 1e-12, 1e-14, str(kw))


# ======================================================================================
# 4. JAX's "Key concepts" / "Transformations" pages: printing jax.typeof
# ======================================================================================


def test_typeof_prints_as_jax():
    """``print(jax.typeof(x))`` (the docs print the type of a value inside a transform)
    prints JAX's ``float64[3,3]``, weakly typed Python numbers with ``~``."""
    for x in (np.ones((3, 3)), 2.0, np.arange(3), np.ones(2, np.float32), True, np.int8(3)):
        assert str(ft.typeof(x)) == str(jax.typeof(x)), x
        assert repr(ft.typeof(x)) == repr(jax.typeof(x)), x
    seen = []
    ft.vmap(lambda v: seen.append(str(ft.typeof(v))) or v * 2)(np.arange(3.0))
    assert seen == ["float64[]"]


# ======================================================================================
# 5. jax.scipy.sparse.linalg's keyword: cg(A, b, tol=...) with the import swapped
# ======================================================================================


def test_krylov_solvers_take_jaxs_tol():
    """``jax.scipy.sparse.linalg.cg/bicgstab(A, b, tol=1e-10)`` (JAX's name for SciPy's
    ``rtol``) run with ``ftransforms.scipy.sparse.linalg``: the same solve as ``rtol=``;
    both at once is an error naming them."""
    import pytest

    from ftransforms.scipy.sparse import linalg as fsl

    rng = np.random.default_rng(9)
    M = rng.standard_normal((8, 8))
    A, b = M @ M.T + 2.0 * np.eye(8), rng.standard_normal(8)
    for solve in (fsl.cg, fsl.bicgstab, fsl.gmres):
        x, info = solve(A, b, tol=1e-10)
        assert int(info) == 0
        close(x, np.linalg.solve(A, b), 1e-8, 1e-10, solve.__name__)
        close(x, solve(A, b, rtol=1e-10)[0], 0.0)
        loose = solve(A, b, tol=1e-2)[0]
        assert np.linalg.norm(A @ loose - b) <= 1e-2 * np.linalg.norm(b)
    with pytest.raises(TypeError, match="tol"):
        fsl.cg(A, b, tol=1e-3, rtol=1e-4)
