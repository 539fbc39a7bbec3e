"""Probe round 5: ``jit(f, static_argnums=...)`` called with the static argument passed by
keyword (``step(x, n=3, mode="pow")``) raised ValueError ("static_argnums has 1, but the
call has 1 positional argument(s)"); ``jax.jit`` completes ``static_argnums`` and
``static_argnames`` from each other through the signature, so a static argument is static
however it is passed, and refuses at ``jit`` time a ``static_argnums`` the function cannot
take.  Oracles: the eager function on new inputs, and JAX (x64) for what is accepted."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ftransforms as ft

jax.config.update("jax_enable_x64", True)

X = np.array([1.0, -2.0, 0.5])


def g(x, n, mode="pow"):
    return x**n if mode == "pow" else x * n


CALLS = [
    ((X,), {"n": 2, "mode": "pow"}),
    ((X, 3), {"mode": "pow"}),
    ((X,), {"n": 3, "mode": "mul"}),
    ((X, 2), {}),
    ((X * 2, 2, "mul"), {}),
]


@pytest.mark.parametrize(
    "static", [{"static_argnums": (1, 2)}, {"static_argnames": ("n", "mode")}], ids=str
)
def test_a_static_argument_is_static_by_position_or_by_keyword(static):
    jg = ft.jit(g, **static)
    jax_g = jax.jit(g, **static)
    for args, kwargs in CALLS:
        ref = g(*args, **kwargs)
        np.testing.assert_allclose(jg(*args, **kwargs), ref)
        np.testing.assert_allclose(jax_g(jnp.asarray(args[0]), *args[1:], **kwargs), ref)


def test_a_static_numpy_float_passed_by_position_is_a_value_not_a_traced_input():
    # static_argnames names it; passed by position, it still keys the cache by its value
    def h(x, p):
        return x * 2 if p > 1.0 else x * 3

    jh = ft.jit(h, static_argnames="p")
    for p in (np.float64(2.0), np.float64(0.5), np.float64(3.0)):
        np.testing.assert_allclose(jh(X, p), h(X, p))


def test_static_argnums_beyond_the_signature_is_refused_at_jit_time_as_in_jax():
    with pytest.raises(ValueError, match="static_argnums"):
        jax.jit(g, static_argnums=(5,))
    with pytest.raises(ValueError, match="static_argnums has 5"):
        ft.jit(g, static_argnums=(5,))


def test_static_argnums_into_varargs_not_passed_is_left_out():
    def h(x, *rest):
        return x * len(rest)

    jh = ft.jit(h, static_argnums=(2,))
    np.testing.assert_allclose(jh(X, 1), h(X, 1))
    np.testing.assert_allclose(jh(X, 1, 5), h(X, 1, 5))
