"""Round 14: HIPS autograd users' programs on ftransforms' autograd layer.

- ``ftransforms.extend``: an argument differentiated through a primitive whose
  ``defvjp``/``defjvp`` left it out raises (autograd's ``NotImplementedError``,
  "VJP of f wrt argnum 1 not defined") instead of a silent zero; a rule given as
  ``None`` stays a zero derivative, as in autograd.
"""

from __future__ import annotations

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.errors import UnsupportedOperationError
from ftransforms.extend import defjvp, defvjp, primitive


def _vjp_mul() -> primitive:
    @primitive
    def mul(a, b):
        return a * b

    defvjp(mul, lambda ans, a, b: lambda g: g * b)  # no rule for b
    return mul


def test_missing_vjp_rule_raises_instead_of_zero() -> None:
    mul = _vjp_mul()
    with pytest.raises(UnsupportedOperationError, match="VJP of mul wrt argnum 1"):
        ft.grad(mul, argnums=1)(2.0, 3.0)
    with pytest.raises(NotImplementedError, match="argnum 1 not defined"):
        ft.grad(lambda x: mul(x, x))(2.0)


def test_missing_vjp_rule_for_a_constant_is_fine() -> None:
    mul = _vjp_mul()
    assert float(ft.grad(mul)(2.0, 3.0)) == 3.0
    np.testing.assert_array_equal(ft.vmap(ft.grad(mul))(np.ones(3), np.arange(3.0)), [0, 1, 2])
    np.testing.assert_array_equal(ft.vmap(mul)(np.ones(3), np.arange(3.0)), [0, 1, 2])


def test_none_rule_is_autograds_zero() -> None:
    @primitive
    def mul(a, b):
        return a * b

    defvjp(mul, lambda ans, a, b: lambda g: g * b, None)
    assert float(ft.grad(mul, argnums=1)(2.0, 3.0)) == 0.0


def test_missing_jvp_rule_raises() -> None:
    @primitive
    def mul(a, b):
        return a * b

    defjvp(mul, lambda g, ans, a, b: g * b)
    assert float(ft.jvp(lambda x: mul(x, 3.0), (2.0,), (1.0,))[1]) == 3.0
    with pytest.raises(UnsupportedOperationError, match="JVP of mul wrt argnum 1"):
        ft.jvp(lambda x: mul(x, x), (2.0,), (1.0,))
    with pytest.raises(UnsupportedOperationError, match="JVP of mul wrt argnum 1"):
        ft.grad(mul, argnums=1)(2.0, 3.0)


def test_integer_argument_without_rule_is_a_constant() -> None:
    @primitive
    def take(x, i):
        return x[i]

    defvjp(take, lambda ans, x, i: lambda g: (np.arange(x.size) == i) * g)
    x = np.array([1.0, 3.0, 2.0])
    np.testing.assert_array_equal(ft.grad(lambda x: take(x, np.argmax(x)))(x), [0, 1, 0])


# -- odeint(func, y0, t, (W,)): autograd's ode_net passes SciPy's args tuple -------------------


def _ode_func(y, t, W):
    return np.tanh(np.dot(y, W)) - 0.1 * y


def _ode_loss(W, y0, ts):
    from ftransforms.scipy.integrate import odeint  # late import: keeps collection light

    return np.sum(odeint(_ode_func, y0, ts, tuple((W,)), rtol=1e-10, atol=1e-10) ** 2)


def test_odeint_scipy_args_tuple_with_dot() -> None:
    """np.dot(y, (W,)) runs (NumPy stacks the tuple) but with the wrong shape: the tuple
    is SciPy's args tuple, not one argument."""
    from scipy.integrate import odeint as scipy_odeint

    from tests.program_oracles import jax, jax_call

    jnp = jax.numpy
    from jax.experimental.ode import odeint as jax_odeint

    W = np.array([[0.2, -1.0], [1.0, 0.3]])
    y0, ts = np.array([1.0, 0.5]), np.linspace(0.0, 2.0, 5)
    want = scipy_odeint(_ode_func, y0, ts, (W,), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(_ode_loss(W, y0, ts), np.sum(want**2), rtol=1e-7)

    def jax_loss(W, y0):
        f = lambda y, t, W: jnp.tanh(jnp.dot(y, W)) - 0.1 * y  # noqa: E731
        return jnp.sum(jax_odeint(f, y0, ts, W, rtol=1e-10, atol=1e-10) ** 2)

    got = ft.grad(_ode_loss, argnums=(0, 1))(W, y0, ts)
    want = jax_call(jax.grad(jax_loss, argnums=(0, 1)), W, y0)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-7, atol=1e-9)


# -- autograd_compat.grad of a complex scalar output: autograd's grad(real(f)) ------------------


def test_compat_grad_of_complex_output_is_grad_of_real_part() -> None:
    from ftransforms.autograd_compat import grad, holomorphic_grad, value_and_grad
    from tests.program_oracles import jax

    z = 1.0 + 2.0j
    want = jax.grad(lambda z: (z**2).real)(z)  # u_x - i u_y of u = Re(z^2): f'(z)
    assert complex(grad(lambda z: z**2)(z)) == pytest.approx(complex(want))
    assert complex(grad(lambda z: z**2)(z)) == pytest.approx(
        complex(holomorphic_grad(lambda z: z**2)(z))
    )
    value, g = value_and_grad(lambda x: np.exp(1j * x)[None])(0.5)
    np.testing.assert_allclose(value, [np.exp(0.5j)])
    assert value.shape == (1,) and np.iscomplexobj(value)
    assert float(g) == pytest.approx(-np.sin(0.5))


# -- autograd.extend names: notrace_primitive, def_linear, defvjp_argnums, defjvp_argnums -------


def test_notrace_primitive_calls_plain_code_and_is_constant() -> None:
    import scipy.special

    from ftransforms.extend import notrace_primitive

    calls = []

    @notrace_primitive
    def plain_ppf(p):
        calls.append(type(p))
        return scipy.special.ndtri(p)  # SciPy's own: plain arrays only

    f = lambda x: np.sum(x * plain_ppf(x))  # noqa: E731
    x = np.array([0.2, 0.7])
    np.testing.assert_allclose(ft.grad(f)(x), scipy.special.ndtri(x))
    np.testing.assert_allclose(ft.hessian(f)(x), np.zeros((2, 2)))
    assert all(c is np.ndarray for c in calls)


def test_def_linear_and_joint_rules() -> None:
    from ftransforms.extend import def_linear, defjvp_argnums, defvjp_argnums

    @primitive
    def weighted(x, w):
        return np.sum(x * w)

    def_linear(weighted)
    x, w = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    got = ft.grad(weighted, argnums=(0, 1))(x, w)
    np.testing.assert_allclose(got[0], w)
    np.testing.assert_allclose(got[1], x)

    @primitive
    def mul(x, y):
        return x * y

    defvjp_argnums(mul, lambda nums, ans, args, kw: lambda g: tuple(g * args[1 - i] for i in nums))
    assert ft.grad(lambda a: mul(a, a))(3.0) == pytest.approx(6.0)

    @primitive
    def mul2(x, y):
        return x * y

    defjvp_argnums(
        mul2, lambda nums, gs, ans, args, kw: sum(g * args[1 - i] for i, g in zip(nums, gs))
    )
    assert float(ft.jvp(mul2, (2.0, 3.0), (1.0, 10.0))[1]) == pytest.approx(23.0)
    assert ft.grad(lambda a: mul2(a, a))(3.0) == pytest.approx(6.0)
