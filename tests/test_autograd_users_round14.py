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
