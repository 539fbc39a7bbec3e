"""Round 13 probes: the less-travelled transforms (custom rules, jet, implicit) against JAX."""

import jax
import numpy as np
import pytest

import ftransforms as ft
from tests.tolerances import assert_tree_close, tol

jax.config.update("jax_enable_x64", True)

X3 = np.array([0.3, -1.2, 2.0])
TOL = tol(np.float64)


def _doubled_sin_rule(lib, fun):
    f = lib.custom_jvp(fun)
    f.defjvp(lambda p, t: (f(p[0]), 2.0 * np.cos(p[0]) * t[0]))
    return f


def test_custom_jvp_of_a_ufunc_runs_with_its_keyword_only_defaults():
    """np.sin's signature has keyword-only where=/casting=...: JAX fills the defaults of the
    keyword-only parameters a call does not pass; only a passed one cannot be a position."""
    f, fj = _doubled_sin_rule(ft, np.sin), _doubled_sin_rule(jax, np.sin)
    assert_tree_close(f(X3), np.sin(X3), **TOL)
    assert_tree_close(ft.grad(f)(0.5), jax.grad(fj)(0.5), **TOL)
    assert_tree_close(ft.jvp(f, (X3,), (X3,)), jax.jvp(fj, (X3,), (X3,)), **TOL)
    assert_tree_close(ft.vmap(ft.grad(f))(X3), np.array([jax.grad(fj)(x) for x in X3]), **TOL)


def test_custom_jvp_keyword_only_argument_passed_is_still_refused():
    def g(x, *, scale=2.0):
        return x * scale

    f = ft.custom_jvp(g)
    f.defjvp(lambda p, t: (f(p[0]), 3.0 * t[0]))
    assert ft.grad(f)(0.5) == 3.0
    with pytest.raises(TypeError, match=r"keyword-only arguments \['scale'\] .*positional"):
        ft.grad(lambda x: f(x, scale=3.0))(0.5)
