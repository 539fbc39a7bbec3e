"""``holomorphic=True`` on ``grad``, ``grad_and_value``, ``jacrev``, ``jacfwd``, ``hessian``,
``vjp`` and ``jvp``, as in JAX: complex inputs and outputs, and the complex derivative
``f'(z)`` with no conjugation (``grad(lambda z: z ** 2, holomorphic=True)(z) == 2 * z``).

Oracles: JAX's own ``holomorphic=True`` transforms (x64), closed forms, the Cauchy-Riemann
equations by finite differences, and Python loops for ``vmap``.  Real inputs or outputs
with ``holomorphic=True`` raise a specific error that names the fix, and leave the
interpreter stack clean.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ftransforms.numpy as fnp
from ftransforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp, vmap
from ftransforms.errors import GradOutputError, NonDifferentiableInputError
from tests.jaxpr_evaluator import on_jax
from tests.tolerances import assert_tree_close, tol

jax.config.update("jax_enable_x64", True)

F64 = tol(np.float64)
F32 = tol(np.float32)

rng = np.random.default_rng(13)
Z = np.complex128(0.7 - 0.4j)
ZV = rng.standard_normal(3) + 1j * rng.standard_normal(3)
A = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3)) + 2 * np.eye(3)

#: name -> (f over a namespace m: complex scalar -> complex scalar, closed-form f')
SCALAR = {
    "square": (lambda m, z: z**2, lambda z: 2 * z),
    "sin_exp": (lambda m, z: m.sin(z) * m.exp(z), lambda z: np.exp(z) * (np.cos(z) + np.sin(z))),
    "log_recip": (lambda m, z: m.log(z) + 1 / z, lambda z: 1 / z - 1 / z**2),
    "tanh_cube": (lambda m, z: m.tanh(z**3), lambda z: 3 * z**2 / np.cosh(z**3) ** 2),
}


@pytest.mark.parametrize("name", sorted(SCALAR))
def test_grad_is_the_complex_derivative(name):
    f, df = SCALAR[name]
    g = grad(lambda z: f(fnp, z), holomorphic=True)(Z)
    assert g.dtype == np.complex128
    assert_tree_close(g, np.asarray(df(Z)), **F64)
    jg = on_jax(jax.grad(lambda z: f(jnp, z), holomorphic=True), Z)
    assert_tree_close(g, np.asarray(jg), **F64)
    # Cauchy-Riemann: f'(z) = df/dx = -1j df/dy
    eps = 1e-6
    dfdx = (f(np, Z + eps) - f(np, Z - eps)) / (2 * eps)
    dfdy = (f(np, Z + 1j * eps) - f(np, Z - 1j * eps)) / (2 * eps)
    np.testing.assert_allclose(g, dfdx, rtol=1e-8)
    np.testing.assert_allclose(g, -1j * dfdy, rtol=1e-8)


def test_grad_and_value_argnums_and_has_aux():
    def f(z, w, scale):
        out = fnp.sum(fnp.sin(z) * w) * scale
        return out, {"aux": fnp.real(out)}

    def jf(z, w, scale):
        out = jnp.sum(jnp.sin(z) * w) * scale
        return out, {"aux": jnp.real(out)}

    w = ZV[::-1].copy()
    (gz, gw), (value, aux) = grad_and_value(f, argnums=(0, 1), has_aux=True, holomorphic=True)(
        ZV, w, 2.0
    )
    (jgz, jgw), (jvalue, jaux) = jax.value_and_grad(
        jf, argnums=(0, 1), has_aux=True, holomorphic=True
    )(ZV, w, 2.0)[::-1]
    assert_tree_close(gz, np.asarray(jgz), **F64)
    assert_tree_close(gw, np.asarray(jgw), **F64)
    assert_tree_close(value, np.asarray(jvalue), **F64)
    assert_tree_close(aux["aux"], np.asarray(jaux["aux"]), **F64)
    g, aux2 = grad(f, has_aux=True, holomorphic=True)(ZV, w, 2.0)
    assert_tree_close(g, gz, **F64)


#: Holomorphic vector functions: (f over m, its inputs)
VECTOR = {
    "cube": (lambda m, z: z**3, (ZV,)),
    "matvec": (lambda m, z: m.matmul(A, m.exp(z)), (ZV,)),
    "solve": (lambda m, a: m.linalg.solve(a, m.ones(3, dtype=complex)), (A,)),
    "inv": (lambda m, a: m.linalg.inv(a), (A,)),
    "det": (lambda m, a: m.linalg.det(a), (A,)),
    "eigvals": (lambda m, a: m.sort(m.linalg.eigvals(a)), (A,)),
    "two_args": (lambda m, z, a: m.matmul(a, z * z), (ZV, A)),
}


@pytest.mark.parametrize("name", sorted(VECTOR))
@pytest.mark.parametrize("mode", ["jacrev", "jacfwd"])
def test_jacobians_match_jax(name, mode):
    f, args = VECTOR[name]
    nums = tuple(range(len(args)))
    ours = {"jacrev": jacrev, "jacfwd": jacfwd}[mode]
    theirs = {"jacrev": jax.jacrev, "jacfwd": jax.jacfwd}[mode]
    got = ours(lambda *a: f(fnp, *a), argnums=nums, holomorphic=True)(*args)
    ref = on_jax(theirs(lambda *a: f(jnp, *a), argnums=nums, holomorphic=True), *args)
    assert_tree_close(got, jax.tree.map(np.asarray, tuple(ref)), **F64)


@pytest.mark.parametrize("name", sorted(VECTOR))
def test_vjp_and_jvp_of_holomorphic_functions_match_jax(name):
    f, args = VECTOR[name]
    tangents = tuple(rng.standard_normal(a.shape) + 1j * rng.standard_normal(a.shape) for a in args)
    for flag in ({}, {"holomorphic": True}):
        out, t = jvp(lambda *a: f(fnp, *a), args, tangents, **flag)
        jout, jt = on_jax(lambda a, t: jax.jvp(lambda *a: f(jnp, *a), a, t), args, tangents)
        assert_tree_close(out, np.asarray(jout), **F64)
        assert_tree_close(t, np.asarray(jt), **F64)
        out, vjp_fn = vjp(lambda *a: f(fnp, *a), *args, **flag)
        ct = np.ones_like(out) * (0.3 - 1.1j)
        jct = on_jax(lambda a, c: jax.vjp(lambda *a: f(jnp, *a), *a)[1](c), args, ct)
        assert_tree_close(vjp_fn(ct), tuple(np.asarray(x) for x in jct), **F64)


def test_jvp_is_f_prime_times_the_tangent():
    t = 0.2 + 0.9j
    for f, df in SCALAR.values():
        _, out = jvp(lambda z: f(fnp, z), (Z,), (np.complex128(t),), holomorphic=True)
        assert_tree_close(out, np.asarray(df(Z) * t), **F64)


def test_hessian_and_grad_of_grad():
    def f(m, z):
        return m.sum(m.sin(z) * z**2)

    h = hessian(lambda z: f(fnp, z), holomorphic=True)(ZV)
    jh = on_jax(jax.hessian(lambda z: f(jnp, z), holomorphic=True), ZV)
    assert_tree_close(h, np.asarray(jh), **F64)
    # f(z) = z^3: f'' = 6 z, through grad of grad
    g2 = grad(grad(lambda z: z**3, holomorphic=True), holomorphic=True)(Z)
    assert_tree_close(g2, np.asarray(6 * Z), **F64)


def test_vmap_of_holomorphic_grad_matches_a_loop():
    def f(a):
        return fnp.linalg.det(a) + fnp.sum(fnp.linalg.inv(a))

    batch = np.stack([A, A.T + 0.5, 2 * A])
    g = grad(f, holomorphic=True)
    got = vmap(g)(batch)
    ref = np.stack([g(a) for a in batch])
    assert_tree_close(got, ref, **F64)
    jref = on_jax(
        jax.vmap(
            jax.grad(lambda a: jnp.linalg.det(a) + jnp.sum(jnp.linalg.inv(a)), holomorphic=True)
        ),
        batch,
    )
    assert_tree_close(got, np.asarray(jref), **F64)


def test_complex64_stays_complex64():
    z = ZV.astype(np.complex64)
    g = grad(lambda z: fnp.sum(fnp.exp(z) * z), holomorphic=True)(z)
    assert g.dtype == np.complex64
    np.testing.assert_allclose(g, np.exp(ZV) * (1 + ZV), rtol=10 * F32["rtol"])
    j = jacfwd(lambda z: z**2, holomorphic=True)(z)
    assert j.dtype == np.complex64


# -- errors --------------------------------------------------------------------------------


def test_real_input_with_holomorphic_names_the_fix():
    for call, form in [
        (lambda: grad(lambda z: z**2, holomorphic=True)(1.5), "grad(<lambda>, holomorphic=True)"),
        (
            lambda: grad_and_value(lambda z: z**2, holomorphic=True)(np.float64(1.5)),
            "grad(<lambda>, holomorphic=True)",
        ),
        (
            lambda: jacrev(lambda z: z**2, holomorphic=True)(np.ones(2)),
            "jacrev(<lambda>, holomorphic=True)",
        ),
        (
            lambda: jacfwd(lambda z: z**2, holomorphic=True)(np.ones(2)),
            "jacfwd(<lambda>, holomorphic=True)",
        ),
        (
            lambda: vjp(lambda z: z**2, np.ones(2), holomorphic=True),
            "vjp(<lambda>, holomorphic=True)",
        ),
        (
            lambda: jvp(lambda z: z**2, (np.ones(2),), (np.ones(2),), holomorphic=True),
            "jvp(<lambda>, holomorphic=True)",
        ),
    ]:
        with pytest.raises(NonDifferentiableInputError) as info:
            call()
        msg = str(info.value)
        assert msg.startswith(form + ":"), msg
        assert "needs complex inputs" in msg and "float64" in msg
        assert "astype(np.complex128)" in msg and "drop holomorphic=True" in msg
        assert isinstance(info.value, TypeError)  # what JAX raises
    # the stack is clean: the next call works
    assert_tree_close(grad(lambda z: z**2, holomorphic=True)(Z), np.asarray(2 * Z), **F64)


def test_real_output_with_holomorphic_names_the_fix():
    for call, form in [
        (lambda: grad(lambda z: fnp.abs(z), holomorphic=True)(Z), "grad"),
        (lambda: jacrev(lambda z: fnp.real(z), holomorphic=True)(ZV), "jacrev"),
        (lambda: jacfwd(lambda z: fnp.imag(z), holomorphic=True)(ZV), "jacfwd"),
        (lambda: vjp(lambda z: fnp.abs(z), ZV, holomorphic=True), "vjp"),
        (lambda: jvp(lambda z: fnp.abs(z), (ZV,), (ZV,), holomorphic=True), "jvp"),
    ]:
        with pytest.raises(GradOutputError) as info:
            call()
        msg = str(info.value)
        assert msg.startswith(f"{form}(<lambda>, holomorphic=True):"), msg
        assert "needs complex outputs" in msg and "drop holomorphic=True" in msg
    # a non-scalar output of grad names both the shape and the fix
    with pytest.raises(GradOutputError, match="complex scalar, got shape"):
        grad(lambda z: z**2, holomorphic=True)(ZV)
    assert_tree_close(grad(lambda z: z**2, holomorphic=True)(Z), np.asarray(2 * Z), **F64)


def test_without_holomorphic_complex_outputs_point_to_it():
    with pytest.raises(GradOutputError, match="holomorphic=True"):
        grad(lambda z: z**2)(Z)
    with pytest.raises(GradOutputError, match="holomorphic=True"):
        jacfwd(lambda z: z**2)(ZV)
    with pytest.raises(GradOutputError, match="holomorphic=True"):
        jacrev(lambda z: z**2)(ZV)
    # a real loss of a complex input still works without the flag (df/dx - 1j df/dy)
    g = grad(lambda z: fnp.abs(z) ** 2)(Z)
    assert_tree_close(g, np.asarray(2 * np.conj(Z)), **F64)
