"""Probe round 5: writing a Python list or tuple that holds traced values into an array
(``a[:] = [x[0], x[1], 0.0]``, ``J[0] = (dfdx, dfdy)``, ``out[1:3] = [u, v]``), which NumPy
does by making an array of the sequence.  Under ``vmap``/``jit`` it raised NumPy's
``ValueError: setting an array element with a sequence``, under ``grad`` a
TracerConversionError; the sequence is one traced array now.  Oracles: NumPy on each row
(a Python loop for ``vmap``), the eager result on new inputs for ``jit``, central finite
differences in float64 for ``grad``."""

import numpy as np
import pytest

import ftransforms as ft

X = np.array([[0.5, -1.2, 2.0, 0.3], [1.0, 2.0, 3.0, -0.5], [-0.7, 0.4, 1.5, 2.5]])


def list_into_a_buffer(x):
    a = np.zeros(5)
    a[:] = [x[0], x[1] * x[2], 0.0, x[3], 1.0]
    return a


def tuple_into_a_slice(x):
    a = x.copy()
    a[1:3] = (x[3] ** 2, x[0])
    return a * x


def rows_of_a_jacobian(x):
    J = np.empty((2, 2))
    J[0] = [2 * x[0], x[1]]
    J[1, :] = (np.sin(x[2]), x[3] * x[0])
    return J.ravel()


def nested_list_into_a_block(x):
    a = np.ones((3, 3))
    a[:2, 1:] = [[x[0], x[1]], [x[2], 3.0]]
    return a.ravel()


def arrays_in_a_list(x):
    a = np.zeros((2, 4))
    a[:] = [x, x[::-1] * 2]
    return a.ravel()


def int_buffer_takes_the_cast(x):
    a = np.zeros(2, dtype=int)
    a[:] = [x[0] * 3, x[1] * 3]  # NumPy truncates towards zero
    return a


def numpy_writers_with_lists(x):
    a = np.zeros(4)
    np.copyto(a, [x[0], x[1], 1.0, x[2]])
    np.put(a, [0, 2], [x[3], x[0] * x[1]])
    a.put([1], [x[2] ** 2])
    b = np.zeros((2, 2))
    np.fill_diagonal(b, [x[1], x[3]])
    c = np.zeros(3)
    np.add.at(c, [0, 0, 2], [x[0], x[1], x[2]])
    d = np.zeros(4)
    d[:] = np.array([x[0], x[1], x[2], 1.0])  # NumPy's object array of the list
    return np.concatenate([a, b.ravel(), c, d])


@pytest.mark.parametrize(
    "f",
    [
        numpy_writers_with_lists,
        list_into_a_buffer,
        tuple_into_a_slice,
        rows_of_a_jacobian,
        nested_list_into_a_block,
        arrays_in_a_list,
        int_buffer_takes_the_cast,
    ],
)
def test_a_sequence_of_traced_values_is_written_as_numpy_writes_it(f):
    ref = np.stack([f(x.copy()) for x in X])
    got = ft.vmap(f)(X)
    assert got.dtype == ref.dtype
    np.testing.assert_allclose(got, ref)
    jf = ft.jit(ft.vmap(f))
    jf(X[::-1].copy())
    np.testing.assert_allclose(jf(X), ref)
    if ref.dtype.kind != "f":
        return

    def loss(x):
        return (f(x.copy()) ** 2).sum()

    eps = 1e-6
    for x in X:
        fd = [(loss(x + eps * e) - loss(x - eps * e)) / (2 * eps) for e in np.eye(4)]
        np.testing.assert_allclose(ft.grad(loss)(x), fd, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize(
    "write",
    [
        lambda G, x: np.put(G, [0, 1], [x[0], x[1]]),
        lambda G, x: np.copyto(G, [x[0], x[1]]),
        lambda G, x: np.add.at(G, [0, 0], [x[0], x[1]]),
    ],
)
def test_a_list_of_traced_values_into_an_outside_array_is_refused(write):
    # G[i] = t of a NumPy array from outside raises InPlaceError; NumPy's writers given a
    # list holding traced values wrote each row's numbers into G (the caller's data)
    G = np.zeros(2)

    def f(x):
        write(G, x)
        return x

    with pytest.raises(ft.errors.InPlaceError):
        ft.vmap(f)(X)
    with pytest.raises(ft.errors.InPlaceError):
        ft.jit(f)(X[0])
    np.testing.assert_array_equal(G, 0.0)
