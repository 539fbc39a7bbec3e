"""The NumPy functions of ftransforms/numpy/_extra.py: values vs NumPy, derivatives vs JAX,
vmap vs a loop, reached through plain ``np.*`` calls on tracers."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ftransforms as ft
from ftransforms.testing import check_grads, check_vmap

jax.config.update("jax_enable_x64", True)

rng = np.random.default_rng(5)
A = rng.normal(size=(4, 5))
B = rng.normal(size=(4, 3))
C = rng.normal(size=(4, 3))
V = rng.normal(size=7)

# name: (numpy-spelled function of the operands, jax equivalent, operands)
CASES = {
    "diff": (lambda x: np.diff(x, axis=1), lambda x: jnp.diff(x, axis=1), (A,)),
    "diff2_prepend": (
        lambda x: np.diff(x, n=2, prepend=0.5),
        lambda x: jnp.diff(x, n=2, prepend=0.5),
        (V,),
    ),
    "cross": (lambda a, b: np.cross(a, b), lambda a, b: jnp.cross(a, b), (B, C)),
    "vecdot": (lambda a, b: np.linalg.vecdot(a, b), lambda a, b: jnp.linalg.vecdot(a, b), (B, C)),
    "median_odd": (lambda x: np.median(x, axis=1), lambda x: jnp.median(x, axis=1), (A,)),
    "median_even": (lambda x: np.median(x, axis=0), lambda x: jnp.median(x, axis=0), (A,)),
    "median_all": (lambda x: np.median(x), lambda x: jnp.median(x), (A,)),
    "trapezoid": (lambda y: np.trapezoid(y, dx=0.5), lambda y: jnp.trapezoid(y, dx=0.5), (A,)),
    "trapezoid_x": (
        lambda y, x: np.trapezoid(y, x=x),
        lambda y, x: jnp.trapezoid(y, x=x),
        (A, np.cumsum(np.abs(V[:5])) + 0.1),
    ),
    "nanvar": (lambda x: np.nanvar(x, axis=0), lambda x: jnp.nanvar(x, axis=0), (A,)),
    "nanstd": (
        lambda x: np.nanstd(x, axis=1, ddof=1),
        lambda x: jnp.nanstd(x, axis=1, ddof=1),
        (A,),
    ),
    "nanprod": (lambda x: np.nanprod(x, axis=1), lambda x: jnp.nanprod(x, axis=1), (A,)),
    "cumulative_sum": (
        lambda x: np.cumulative_sum(x, axis=1, include_initial=True),
        lambda x: jnp.cumulative_sum(x, axis=1, include_initial=True),
        (A,),
    ),
    "rollaxis": (lambda x: np.rollaxis(x, 1), lambda x: jnp.rollaxis(x, 1), (A,)),
    "append": (lambda x, y: np.append(x, y), lambda x, y: jnp.append(x, y), (A, V)),
    "linspace": (
        lambda a, b: np.linspace(a, b, 5),
        lambda a, b: jnp.linspace(a, b, 5),
        (V[:3], V[3:6]),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_value_grad_and_vmap(name):
    f, jf, args = CASES[name]
    np.testing.assert_allclose(f(*args), jf(*args), rtol=1e-12, atol=1e-12)

    def scalar(*a):
        return np.sum(np.sin(f(*a)))

    def jscalar(*a):
        return jnp.sum(jnp.sin(jf(*a)))

    argnums = tuple(range(len(args)))
    for got, want in zip(
        ft.grad(scalar, argnums)(*args), jax.grad(jscalar, argnums)(*args), strict=True
    ):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    check_grads(f, args, order=1)
    batched = [np.stack([a, a * 0.5 + 0.1, -a]) for a in args]
    check_vmap(f, batched)


def test_nan_functions_skip_nans():
    x = A.copy()
    x[1, 2] = np.nan
    for name in ("nanvar", "nanstd", "nanprod"):
        f, _, _ = CASES[name]
        np.testing.assert_allclose(
            f(x),
            getattr(np, name)(
                x, axis=0 if name == "nanvar" else 1, **({"ddof": 1} if name == "nanstd" else {})
            ),
        )


def test_boolean_helpers_match_numpy():
    x = np.array([1.0, np.inf, -np.inf, np.nan, 1.0 + 1e-9])
    y = np.array([1.0, np.inf, np.inf, np.nan, 1.0])
    for name in ("isposinf", "isneginf"):
        got = ft.vmap(getattr(np, name))(x[:, None])
        np.testing.assert_array_equal(got, getattr(np, name)(x)[:, None])
    got = ft.vmap(lambda a, b: np.isclose(a, b, equal_nan=True))(x, y)
    np.testing.assert_array_equal(got, np.isclose(x, y, equal_nan=True))
    np.testing.assert_array_equal(ft.vmap(np.count_nonzero)(A > 0), np.count_nonzero(A > 0, axis=1))


@pytest.mark.parametrize("name", ["copyto", "put", "putmask", "place", "fill_diagonal"])
def test_in_place_numpy_functions_write_into_the_tracer(name):
    # NOTE [mutation semantics]: they write into their traced argument, as NumPy does.
    args = {
        "copyto": lambda x: (x, np.ones(5)),
        "put": lambda x: (x, [0], [1.0]),
        "putmask": lambda x: (x, np.arange(5) % 2 == 0, 1.0),
        "place": lambda x: (x, np.arange(5) % 2 == 0, [1.0]),
        "fill_diagonal": lambda x: (x, 1.0),
    }[name]

    def f(x):
        x = x.reshape(1, 5) if name == "fill_diagonal" else x * 1.0
        getattr(np, name)(*args(x))
        return (x * np.arange(1.0, 6.0)).sum()

    g = ft.grad(f)(V[:5])
    eps = 1e-6
    fd = [(f(V[:5] + eps * e) - f(V[:5] - eps * e)) / (2 * eps) for e in np.eye(5)]
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)
