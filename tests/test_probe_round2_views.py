"""Probe round 2: NumPy functions that return views (``flip``, ``split``,
``expand_dims``, ``atleast_*d``, ``rollaxis``, ``matrix_transpose``, ``unstack``,
``x.view()``; ``broadcast_to`` read-only) under the transforms: a write through the view
reaches the array, as in NumPy; ``np.asarray`` of a traced array refuses writes (NumPy
would write the array itself).  Oracles: the plain NumPy call, the loop over rows, central
differences."""

import numpy as np
import pytest

import ftransforms as ft

X = np.array([0.3, -1.2, 2.0, 0.7, -0.4, 1.1])
BATCH = np.stack([X, 0.5 * X + 0.13, -X, X[::-1]])


def flip_write(x):
    y = x * 1.0
    f = np.flip(y)
    f[0] = y[0] * 7
    return y


def fliplr_flipud(x):
    m = x.reshape(2, 3) * 1.0
    np.fliplr(m)[:, 0] = -x[:2]
    np.flipud(m)[0] *= x[0]
    return m.ravel()


def expand_dims_write(x):
    y = x * 1.0
    np.expand_dims(y, 0)[0, 0] = 5.0 * x[1]
    return y * x


def atleast_write(x):
    y = x * 1.0
    np.atleast_2d(y)[0, 1] *= 3
    np.atleast_3d(y)[0, 2, 0] = x[5] * 3
    np.atleast_1d(y)[3] = x[4]  # the same array
    return y


def split_write(x):
    y = x * 1.0
    a, b = np.split(y, 2)
    a *= 3
    b[0] = x[0]
    m = y.reshape(2, 3)
    left, _ = np.hsplit(m, [1])
    left[:] = x[5]
    _, bottom = np.array_split(m, 2)
    bottom[0, 1] += 1.0
    return y


def rollaxis_and_matrix_transpose(x):
    t = x.reshape(2, 3) * 1.0
    np.rollaxis(t, 1)[0] += 10 * x[0]
    np.matrix_transpose(t)[2, 0] = x[0] ** 2
    return t.ravel()


def unstack_and_view(x):
    m = x.reshape(2, 3) * 1.0
    a, _ = np.unstack(m)
    a[0] = 9.0 * x[3]
    v = m.view()
    v[1, 1] = -x[2]
    return m.ravel()


PROGRAMS = [
    flip_write,
    fliplr_flipud,
    expand_dims_write,
    atleast_write,
    split_write,
    rollaxis_and_matrix_transpose,
    unstack_and_view,
]


def central_grad(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(x.size)])


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_vmap_grad_and_jit_match_numpy(f):
    want = np.stack([f(r.copy()) for r in BATCH])
    np.testing.assert_allclose(ft.vmap(f)(BATCH.copy()), want)
    w = np.linspace(0.5, 1.5, 6)

    def loss(x):
        return np.sum(f(x) * w)

    np.testing.assert_allclose(ft.grad(loss)(X.copy()), central_grad(loss, X.copy()), atol=1e-6)
    jf = ft.jit(f)
    for r in BATCH:
        np.testing.assert_allclose(jf(r.copy()), f(r.copy()))


def test_broadcast_to_is_read_only_as_in_numpy():
    def f(x):
        b = np.broadcast_to(x * 1.0, (2, 6))
        b[0, 0] = 1.0
        return b

    with pytest.raises(ValueError, match="read-only"):
        f(X.copy())
    with pytest.raises(ValueError, match="read-only"):
        ft.vmap(f)(BATCH)
    with pytest.raises(ValueError, match="read-only"):
        ft.grad(lambda x: f(x).sum())(X)


def test_asarray_of_a_traced_array_is_that_array_as_in_numpy():
    def f(x):
        y = x * 1.0
        a = np.asarray(y)  # y itself, in NumPy and here
        a[0] = 5.0 * x[1]
        b = np.asanyarray(a)
        b *= 2
        return y * x

    def g(x):
        buf = np.zeros(6)  # a buffer
        a = np.asarray(buf)
        a[:] = x * 3  # reaches buf
        return buf + x

    for h in (f, g):
        np.testing.assert_allclose(ft.vmap(h)(BATCH), np.stack([h(r.copy()) for r in BATCH]))
        loss = lambda x: np.sum(h(x) * np.arange(6.0))  # noqa: E731
        np.testing.assert_allclose(ft.grad(loss)(X), central_grad(loss, X.copy()), atol=1e-6)
    # np.array(t) is a copy: writing into it leaves t
    g2 = ft.grad(lambda x: np.sum(np.array(x * 2.0) * x))
    np.testing.assert_allclose(g2(X), 4 * X)


def test_an_object_array_of_tracers_refuses_writes():
    def f(x):
        # a keyword the wrappers leave to NumPy (like=): NumPy's conversion, an object array
        a = np.asarray(x * 1.0, order="F", like=None)
        a[0] = 5.0
        return x

    with pytest.raises(ValueError, match="read-only"):
        ft.vmap(f)(BATCH)

    def g(x):
        a = x * 1.0
        b = np.asarray(a, order="F")  # 1-d: Fortran-contiguous, a itself as in NumPy
        b[0] = 5.0
        return a

    np.testing.assert_allclose(ft.vmap(g)(BATCH), np.stack([g(r) for r in BATCH]))
