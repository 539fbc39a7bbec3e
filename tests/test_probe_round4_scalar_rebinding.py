"""Probe round 4: in NumPy ``x[i]``, ``x.sum()``, ``np.sin(s)``, ``s + 1`` and the rows of a
1-d array are scalars, and ``s += v`` on a scalar binds ``s`` to a new value: a running
total appended to a list each step keeps each step's value.  Under the transforms such
0-d values are tracers, which used to take ``+=`` as a write in place (NOTE [mutation
semantics]), so every stored step became the last one under jit, vmap, jacfwd and
jacrev alike (NOTE [0-d values are NumPy scalars]).  A 0-d *array* (``np.zeros(())``, a
view ``x[1, ...]``) is still written into, as in NumPy.  Oracles: plain NumPy, the loop
over rows, central differences."""

import numpy as np
import pytest

import ftransforms as ft


def running_sums(x):
    s = x[0]
    hist = []
    for i in range(1, x.size):
        s += x[i] ** 2
        hist.append(s)
    return np.stack(hist)


def loss_history(x):
    total = 0.0
    history = []
    for v in x:
        total += np.sin(v) * v
        history.append(total)
    return np.array(history)


def kept_best(x):
    m = x.max()
    best = m
    m *= 2.0
    return best + m


def element_of_an_object_array(x):
    r = x[1]
    y = np.array([r, r, r])  # an object array holding r three times
    y[0] *= 2.0
    return y[1] + r + y[0]


def zero_d_view(x):
    a = x.copy().reshape(3, 1)
    v = a[1, ...]  # a view (NumPy: a 1-element array sharing memory)
    v += 5.0
    w = a[2, 0, ...]  # a 0-d view
    w *= 3.0
    return a.ravel()


def zero_d_buffer(x):
    acc = np.zeros(())
    alias = acc
    acc += x.sum()  # a 0-d array: alias sees the write
    return alias + acc


PROGRAMS = [
    running_sums,
    loss_history,
    kept_best,
    element_of_an_object_array,
    zero_d_view,
    zero_d_buffer,
]
X = np.array([0.7, -1.3, 2.1])
XS = np.stack([X, 0.5 * X[::-1], X + 1.0])


def central(f, x, h=1e-6):
    cols = [(f(x + e) - f(x - e)) / (2 * h) for e in np.eye(x.size) * h]
    return np.stack(cols, axis=-1)


@pytest.mark.parametrize("f", PROGRAMS)
def test_values_match_numpy(f):
    want = f(X)
    np.testing.assert_allclose(ft.jit(f)(X), want, rtol=1e-12)
    np.testing.assert_allclose(ft.vmap(f)(XS), [f(x) for x in XS], rtol=1e-12)


@pytest.mark.parametrize("f", PROGRAMS)
def test_jacobians_match_central_differences(f):
    want = central(f, X)
    np.testing.assert_allclose(ft.jacfwd(f)(X), want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(ft.jacrev(f)(X), want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(
        ft.vmap(ft.jacrev(f))(XS), [central(f, x) for x in XS], rtol=1e-6, atol=1e-8
    )


def test_a_vmapped_row_is_a_scalar_as_in_the_loop():
    def f(r):
        prev = r
        r += 1.0
        return prev + r

    rows = np.array([2.0, 3.0, -1.0])
    np.testing.assert_allclose(ft.vmap(f)(rows), [f(r) for r in rows])
    np.testing.assert_allclose(ft.grad(f)(2.0), 2.0)


def test_scalar_rebinding_follows_numpy_promotion():
    # a float32 scalar plus a Python float stays float32; += an array makes an array
    def f(x):
        s = x[0]
        s += 1.5
        t = x[1]
        t += x
        return s, t

    x32 = np.array([1.0, 2.0, 3.0], np.float32)
    s, t = ft.jit(f)(x32)
    ws, wt = f(x32)
    assert s.dtype == ws.dtype == np.float32 and t.shape == wt.shape == (3,)
    np.testing.assert_allclose(t, wt)
