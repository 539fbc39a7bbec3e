"""Probe round 4: dtypes under the transforms as NumPy 2 (values) and JAX (derivatives)
give them.

* The cotangent of a float32 input is float32 (JAX's rule) also where the input was
  joined with float64 arrays (``np.concatenate``/``stack``/``hstack``/``append``...).
* ``np.asarray(x, dtype=...)`` / ``np.array(x, dtype=...)`` of a traced array is its cast
  (a new array), as in NumPy, under every transform.
* What NumPy's object loops make of a list mixing a traced array with plain ones
  (``np.max([x, np.zeros(3)], axis=0)``) leaves the transforms as a numeric array even
  where no element was traced (the zeros won everywhere), as NumPy gives it.

Oracles: NumPy, JAX (x64), central differences, the loop over rows."""

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ftransforms as ft

jax.config.update("jax_enable_x64", True)

A32 = np.array([0.5, -1.0, 2.0], np.float32)
Z = np.array([1.0, 2.0, 3.0])

JOINS = {
    "concatenate": lambda np_, a: np_.concatenate([a, Z]),
    "stack": lambda np_, a: np_.stack([a, Z]),
    "hstack": lambda np_, a: np_.hstack([Z, a, Z]),
    "vstack": lambda np_, a: np_.vstack([a, Z]),
    "column_stack": lambda np_, a: np_.column_stack([a, Z]),
    "append": lambda np_, a: np_.append(a, Z),
}


def loss(np_, join):
    return lambda a: np_.sum(np_.sin(join(np_, a)))


def test_jax_gives_a_float32_cotangent_there():
    g = jax.grad(loss(jnp, JOINS["concatenate"]))(jnp.asarray(A32))
    assert g.dtype == jnp.float32


@pytest.mark.parametrize("name", list(JOINS))
def test_the_cotangent_of_a_float32_input_joined_with_float64_is_float32(name):
    f = loss(np, JOINS[name])
    want = np.cos(A32.astype(np.float64))  # a appears once in each join
    for got in (
        ft.grad(f)(A32),
        ft.jit(ft.grad(f))(A32),
        ft.vmap(ft.grad(f))(np.stack([A32, A32]))[1],
    ):
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=1e-6)
    out, pullback = ft.vjp(lambda a: JOINS[name](np, a), A32)
    assert out.dtype == np.float64
    (ct,) = pullback(np.ones(out.shape))
    assert ct.dtype == np.float32
    np.testing.assert_array_equal(ct, np.ones(3))


def casts(x):
    a = np.asarray(x, dtype=np.float64)
    b = np.array(x, dtype=float)
    b[0] = 5.0  # a copy: x is unchanged
    c = np.asarray(x, np.float32)
    return a**2 + b * x + c


X32 = np.array([1.5, -2.0, 0.25], np.float32)


def test_asarray_and_array_with_a_dtype_cast_as_in_numpy():
    want = casts(X32)
    assert ft.jit(casts)(X32).dtype == want.dtype == np.float64
    np.testing.assert_allclose(ft.jit(casts)(X32), want)
    xs = np.stack([X32, 2 * X32])
    got = ft.vmap(casts)(xs)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, [casts(x) for x in xs])
    # integers made float, the common first line of a NumPy function
    ns = np.arange(6).reshape(3, 2)
    np.testing.assert_allclose(ft.vmap(lambda n: np.asarray(n, dtype=float) / 2)(ns), ns / 2.0)


def test_the_derivative_through_the_casts():
    x = X32.astype(np.float64)
    s = lambda x: casts(x).sum()  # noqa: E731
    # s is quadratic in x, so central differences with a wide step are exact but for
    # the float32 rounding of the cast (about 1e-7 of a value, over a step of 2e-2)
    central = np.array([(s(x + h) - s(x - h)) / 2e-2 for h in np.eye(3) * 1e-2])
    np.testing.assert_allclose(ft.grad(s)(x), central, rtol=1e-4)
    g32 = ft.grad(s)(X32)
    assert g32.dtype == np.float32
    np.testing.assert_allclose(g32, central, rtol=1e-5)


def relu(x):
    return np.max([x, np.zeros(3)], axis=0)


XS = np.array([[1.0, -2.0, 3.0], [-1.0, -1.0, -1.0], [2.0, 2.0, -5.0]])


def test_object_loops_that_leave_no_tracer_still_give_a_numeric_array():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ft.errors.PerformanceWarning)
        got = ft.vmap(relu)(XS)
        assert got.dtype == np.float64
        np.testing.assert_array_equal(got, [relu(x) for x in XS])
        for x in XS:
            assert ft.jit(relu)(x).dtype == np.float64
            assert ft.vjp(relu, x)[0].dtype == np.float64
            np.testing.assert_array_equal(ft.jvp(relu, (x,), (x,))[1], np.where(x > 0, x, 0))
            np.testing.assert_array_equal(ft.jacrev(relu)(x), np.diag(x > 0).astype(float))
