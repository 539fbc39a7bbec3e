"""Probe round: NumPy buffers made inside a transformed function and then written into.

Each program is plain NumPy a user would write; it is run under vmap (oracle: a Python
loop), grad (oracle: central differences in float64) and jit (oracle: the plain call).
"""

import numpy as np
import pytest

import ftransforms as ft
import ftransforms.numpy as fnp
from ftransforms.errors import InPlaceError

X = np.array([0.3, -1.2, 2.0, 0.7, -0.4])
BATCH = np.stack([X, 0.5 * X + 0.1, -X])


def central_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


def shifted_ones(x):
    z = np.zeros(5) + 1.0  # a new array computed from a buffer
    z[0] = x[0]
    z[2:] *= x[2:]
    return z


def scaled_full(x):
    y = np.full(5, 2.0)
    y = y * 3
    y[1] = x[1] ** 2
    return y


def fancy_iadd_with_duplicates(x):
    y = np.zeros(3)
    y[[0, 0, 1]] += x[:3]  # NumPy: buffered, the last write to y[0] wins
    return y


def mask_iadd(x):
    y = np.zeros(5)
    y[np.array([True, False, True, False, True])] += x[:3] * x[1:4]
    return y


def from_fnp_zeros_loop(x):
    out = fnp.zeros(5)
    for i in range(5):
        out[i] = fnp.sin(x[i]) * x[i - 1]
    return out


def from_fnp_creation(x):
    a = fnp.empty_like(x)
    a[:] = 2 * x
    b = fnp.array([1.0, 2.0, 3.0, 4.0, 5.0])
    b += x
    c = fnp.arange(5.0)
    c[1] = x[0]
    w = fnp.identity(5)
    w[0, 1] = x[1]
    return a * b * c + w @ x


PROGRAMS = [
    shifted_ones,
    scaled_full,
    fancy_iadd_with_duplicates,
    mask_iadd,
    from_fnp_zeros_loop,
    from_fnp_creation,
]


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_vmap_matches_the_loop(f):
    np.testing.assert_allclose(ft.vmap(f)(BATCH), np.stack([f(r) for r in BATCH]))


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_grad_matches_central_differences(f):
    def loss(v):
        return np.sum(np.tanh(f(v)) * np.arange(1.0, 6.0)[: np.shape(f(X))[0]])

    np.testing.assert_allclose(ft.grad(loss)(X), central_grad(loss, X), atol=1e-6)
    np.testing.assert_allclose(
        ft.vmap(ft.grad(loss))(BATCH), np.stack([central_grad(loss, r) for r in BATCH]), atol=1e-6
    )


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_jit_matches_the_plain_call(f):
    jf = ft.jit(f)
    for r in BATCH:
        np.testing.assert_allclose(jf(r), f(r))


def test_fnp_zeros_at_add_inside_grad_as_jax_users_write_it():
    def f(v):
        return np.sum(fnp.zeros(3).at[np.array([0, 0, 2])].add(v[:3] * v[1:4]) ** 2)

    def oracle(v):
        y = np.zeros(3)
        np.add.at(y, np.array([0, 0, 2]), v[:3] * v[1:4])
        return np.sum(y**2)

    np.testing.assert_allclose(ft.grad(f)(X), central_grad(oracle, X), atol=1e-6)


def test_fnp_creation_outside_transforms_stays_a_numpy_array():
    assert type(fnp.zeros(3)) is np.ndarray
    assert type(fnp.arange(3)) is np.ndarray
    assert type(fnp.array([1.0])) is np.ndarray


G = np.zeros(3)


def write_into_global(v):
    G[0] = v[0]
    return v.sum()


@pytest.mark.parametrize("transform", [ft.grad, ft.jacfwd, ft.jit, ft.vmap])
def test_scalar_write_into_a_global_is_a_clear_inplace_error(transform):
    arg = np.ones((2, 3)) if transform is ft.vmap else np.ones(3)
    with pytest.raises(InPlaceError, match=r"a\[i\] = t writes a traced value.*'G'"):
        transform(write_into_global)(arg)
    np.testing.assert_array_equal(G, np.zeros(3))


def put_modes(x):
    y = np.zeros(3)
    np.put(y, [0, -5, 7], x[:3], mode="clip")  # NumPy: -5 -> 0, 7 -> 2
    z = np.zeros(3)
    z.put([-4, 5], x[3:], mode="wrap")  # NumPy: -4 -> 2, 5 -> 2 (the last wins)
    return np.concatenate([y, z])


def test_put_with_wrap_and_clip_modes():
    np.testing.assert_allclose(ft.vmap(put_modes)(BATCH), np.stack([put_modes(r) for r in BATCH]))

    def loss(v):
        return np.sum(put_modes(v) * np.arange(1.0, 7.0))

    np.testing.assert_allclose(ft.grad(loss)(X), central_grad(loss, X), atol=1e-6)
