"""``ft.custom_linear_solve`` and ``ft.custom_root`` against JAX's (NOTE [implicit
differentiation] in ``ftransforms/implicit.py``): values and derivatives in every mode,
higher orders against differentiating a direct solve, under vmap (both orders) and jit,
pytrees, ``has_aux``, the strict CuPy stand-in, and that the solver itself never sees a
derivative."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ftransforms as ft
import ftransforms.numpy as fnp
from ftransforms.core.tracer import Tracer
from ftransforms.errors import UnsupportedOperationError
from ftransforms.interpreters.forward import DualTracer
from ftransforms.interpreters.reverse import ReverseTracer
from ftransforms.strict_backend import StrictArray, asarray

jax.config.update("jax_enable_x64", True)

RNG = np.random.default_rng(1)
_M = RNG.normal(size=(3, 3))
A0 = _M @ _M.T + 3 * np.eye(3)
B0 = RNG.normal(size=3)


def _close(a, b, tol=1e-10):
    for u, v in zip(jax.tree.leaves(a), jax.tree.leaves(b)):
        np.testing.assert_allclose(np.asarray(u), np.asarray(v), rtol=tol, atol=tol)


def _derivative_levels(x):
    while isinstance(x, Tracer):
        if type(x) in (DualTracer, ReverseTracer):
            return True
        x = getattr(x, "val", getattr(x, "primal", None))
    return False


SEEN = []


def _safe_divide(a, b):
    """a / b, and 0 where b is 0 (the converged steps)."""
    return fnp.where(b == 0, 0.0, a / fnp.where(b == 0, 1.0, b))


def cg(matvec, b, iters=40):
    """Conjugate gradients written with plain operators."""
    SEEN.append(_derivative_levels(b))
    x = b * 0
    r = b - matvec(x)
    p = r
    rs = (r * r).sum()
    for _ in range(iters):
        ap = matvec(p)
        alpha = _safe_divide(rs, (p * ap).sum())
        x = x + alpha * p
        r = r - alpha * ap
        new = (r * r).sum()
        p = r + _safe_divide(new, rs) * p
        rs = new
    return x


def loss_ft(a, b):
    x = ft.custom_linear_solve(lambda v: a @ v, b, solve=cg, symmetric=True)
    return (fnp.sin(x) * x).sum()


def loss_jax(a, b):
    x = jax.lax.custom_linear_solve(
        lambda v: a @ v, b, solve=lambda mv, r: jnp.linalg.solve(a, r), symmetric=True
    )
    return (jnp.sin(x) * x).sum()


def loss_direct(a, b):  # the reference for higher orders: a differentiated direct solve
    x = jnp.linalg.solve(a, b)
    return (jnp.sin(x) * x).sum()


@pytest.mark.parametrize(
    "transform", ["grad", "jacfwd", "jacrev"], ids=lambda t: f"linear_solve-{t}"
)
def test_linear_solve_first_order_matches_jax(transform):
    SEEN.clear()
    got = getattr(ft, transform)(loss_ft, argnums=(0, 1))(A0, B0)
    ref = getattr(jax, transform)(loss_jax, argnums=(0, 1))(A0, B0)
    _close(got, ref)
    assert SEEN and not any(SEEN)  # the solver only ever saw values


@pytest.mark.parametrize(
    "order",
    [("jacfwd", "jacrev"), ("jacrev", "jacrev"), ("jacfwd", "jacfwd")],
    ids=lambda o: "-".join(o),
)
def test_linear_solve_second_order_matches_a_differentiated_direct_solve(order):
    outer, inner = (getattr(ft, t) for t in order)
    got = outer(inner(loss_ft, argnums=(0, 1)), argnums=(0, 1))(A0, B0)
    _close(got, jax.hessian(loss_direct, argnums=(0, 1))(A0, B0), tol=1e-8)


def test_linear_solve_under_vmap_in_both_orders():
    a = np.stack([A0, A0 + np.eye(3)])
    b = np.stack([B0, 2 * B0])
    _close(
        ft.vmap(ft.grad(loss_ft, argnums=(0, 1)))(a, b),
        jax.vmap(jax.grad(loss_jax, argnums=(0, 1)))(a, b),
    )
    _close(
        ft.grad(lambda a, b: ft.vmap(loss_ft)(a, b).sum(), argnums=(0, 1))(a, b),
        jax.grad(lambda a, b: jax.vmap(loss_jax)(a, b).sum(), argnums=(0, 1))(a, b),
    )
    _close(
        ft.vmap(ft.grad(loss_ft), in_dims=(None, 0))(A0, b),
        jax.vmap(jax.grad(loss_jax), in_axes=(None, 0))(A0, b),
    )
    xs = ft.vmap(lambda b: ft.custom_linear_solve(lambda v: A0 @ v, b, cg, symmetric=True))(b)
    _close(xs, np.linalg.solve(A0, b.T).T)


def test_linear_solve_under_jit():
    f = ft.jit(ft.grad(loss_ft, argnums=(0, 1)))
    _close(f(A0, B0), jax.grad(loss_jax, argnums=(0, 1))(A0, B0))
    _close(f(A0 + np.eye(3), B0), jax.grad(loss_jax, argnums=(0, 1))(A0 + np.eye(3), B0))
    g = ft.jit(lambda a, b: ft.custom_linear_solve(lambda v: a @ v, b, cg, symmetric=True))
    _close(g(A0 * 2, B0), np.linalg.solve(A0 * 2, B0))


def test_linear_solve_nonsymmetric_pytree_and_aux():
    a = A0 + np.triu(np.ones((3, 3)), 1)

    def matvec(v):  # x = {"u": first two, "w": last} -> b = (two, one)
        full = fnp.concatenate([v["u"], v["w"]])
        out = a @ full
        return out[:2], out[2:]

    def solve(mv, rhs):
        x = fnp.linalg.solve(a, fnp.concatenate(rhs))
        return {"u": x[:2], "w": x[2:]}, fnp.sum(x)

    def transpose_solve(vm, rhs):
        x = fnp.linalg.solve(a.T, fnp.concatenate([rhs["u"], rhs["w"]]))
        return (x[:2], x[2:]), None

    def f(b):
        x, aux = ft.custom_linear_solve(
            matvec, (b[:2], b[2:]), solve, transpose_solve=transpose_solve, has_aux=True
        )
        return (x["u"] ** 2).sum() + x["w"].sum() ** 3 + 0 * aux

    def f_ref(b):
        x = jnp.linalg.solve(a, b)
        return (x[:2] ** 2).sum() + x[2:].sum() ** 3

    _close(ft.grad(f)(B0), jax.grad(f_ref)(B0))
    _close(ft.jacfwd(f)(B0), jax.grad(f_ref)(B0))
    with pytest.raises(UnsupportedOperationError, match="transpose_solve"):
        ft.grad(lambda b: ft.custom_linear_solve(lambda v: a @ v, b, cg).sum())(B0)
    # forward mode needs no transpose_solve
    _close(
        ft.jacfwd(
            lambda b: ft.custom_linear_solve(
                lambda v: a @ v, b, lambda mv, r: fnp.linalg.solve(a, r)
            )
        )(B0),
        np.linalg.inv(a),
    )


# -- custom_root --------------------------------------------------------------------------


def newton(f, x):
    SEEN.append(_derivative_levels(x))
    for _ in range(25):
        x = x - f(x) / ft.grad(f)(x)
    return x


def cbrt(a):
    return ft.custom_root(lambda x: x**3 - a, 1.0, newton, lambda g, y: y / g(1.0))


def cbrt_jax(a):
    def newton_j(f, x):
        for _ in range(25):
            x = x - f(x) / jax.grad(f)(x)
        return x

    return jax.lax.custom_root(lambda x: x**3 - a, 1.0, newton_j, lambda g, y: y / g(1.0))


def test_root_scalar_orders_against_jax_and_the_formula():
    SEEN.clear()
    a = 2.0
    _close(cbrt(a), a ** (1 / 3))
    _close(ft.grad(cbrt)(a), jax.grad(cbrt_jax)(a))
    _close(ft.grad(ft.grad(cbrt))(a), (1 / 3) * (-2 / 3) * a ** (-5 / 3))
    _close(ft.grad(ft.grad(ft.grad(cbrt)))(a), (1 / 3) * (-2 / 3) * (-5 / 3) * a ** (-8 / 3))
    _close(ft.jacfwd(ft.grad(cbrt))(a), jax.jacfwd(jax.grad(cbrt_jax))(a))
    assert SEEN and not any(SEEN)


def test_root_vmap_and_jit():
    a = np.array([1.0, 2.0, 8.0])
    _close(ft.vmap(ft.grad(cbrt))(a), jax.vmap(jax.grad(cbrt_jax))(a))
    _close(ft.grad(lambda a: ft.vmap(cbrt)(a).sum())(a), jax.vmap(jax.grad(cbrt_jax))(a))
    _close(ft.jit(ft.grad(cbrt))(np.float64(8.0)), 1 / 12)


def _vec_solve(m):
    def solve(f, x):
        for _ in range(30):
            x = x - m.linalg.solve((ft if m is fnp else jax).jacfwd(f)(x), f(x))
        return x

    def tangent_solve(g, y):
        return m.linalg.solve((ft if m is fnp else jax).jacfwd(g)(y), y)

    return solve, tangent_solve


def root_vec(theta, m=fnp, custom_root=ft.custom_root):
    solve, tangent_solve = _vec_solve(m)
    f = lambda x: m.tanh(x) + theta * x - 1.0  # noqa: E731
    return custom_root(f, m.zeros(3), solve, tangent_solve)


def test_root_vector_jacobians_match_jax():
    theta = np.array([1.0, 2.0, 3.0])
    ref = lambda t: root_vec(t, jnp, jax.lax.custom_root)  # noqa: E731
    _close(ft.jacrev(root_vec)(theta), jax.jacrev(ref)(theta))
    _close(ft.jacfwd(root_vec)(theta), jax.jacfwd(ref)(theta))


def test_root_has_aux_and_strict_backend():
    def solve(f, x):
        for _ in range(25):
            x = x - f(x) / ft.grad(f)(x)
        return x, x * 0 + 7.0

    def sqrt(a):
        return ft.custom_root(
            lambda x: x**2 - a, fnp.ones_like(a), solve, lambda g, y: y / g(1.0), has_aux=True
        )

    x, aux = sqrt(4.0)
    _close((x, aux), (2.0, 7.0))
    g = ft.grad(lambda a: sqrt(a)[0])(asarray(np.array(4.0)))
    assert type(g) is StrictArray
    _close(g.get(), 0.25)
    gl = ft.grad(
        lambda b: ft.custom_linear_solve(lambda v: asarray(A0) @ v, b, cg, symmetric=True).sum()
    )(asarray(B0))
    assert type(gl) is StrictArray
    _close(gl.get(), np.linalg.solve(A0, np.ones(3)))


def test_root_of_a_pytree_matches_differentiating_the_newton_steps():
    # a converged Newton iteration differentiated step by step is the implicit derivative
    def flat(t):
        return fnp.concatenate(jax.tree.leaves(t))

    def unflat(u):
        return {"a": u[:1], "b": u[1:]}

    def solve(f, x):
        for _ in range(30):
            u = flat(x)
            jac = ft.jacfwd(lambda u: flat(f(unflat(u))))(u)
            x = unflat(u - fnp.linalg.solve(jac, flat(f(x))))
        return x

    def tangent_solve(g, y):
        jac = ft.jacfwd(lambda u: flat(g(unflat(u))))(flat(y))
        return unflat(fnp.linalg.solve(jac, flat(y)))

    def equations(th):
        return lambda x: {
            "a": x["a"] ** 3 + x["b"][:1] - th[0],
            "b": fnp.tanh(x["b"]) + x["a"] - th[1:],
        }

    start = {"a": np.zeros(1), "b": np.zeros(2)}

    def root(th):
        return flat(ft.custom_root(equations(th), start, solve, tangent_solve))

    def unrolled(th):
        return flat(solve(equations(th), start))

    th = np.array([1.0, 0.5, 0.2])
    _close(root(th), unrolled(th))
    _close(ft.jacrev(root)(th), ft.jacrev(unrolled)(th))
    _close(ft.jacfwd(root)(th), ft.jacrev(unrolled)(th))
    _close(
        ft.hessian(lambda t: root(t).sum())(th),
        ft.hessian(lambda t: unrolled(t).sum())(th),
        tol=1e-9,
    )
