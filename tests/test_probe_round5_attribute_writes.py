"""Probe round 5: NumPy's writable array attributes on traced arrays.

* ``a.shape = (2, 3)`` (NumPy's in-place reshape, common in older code) raised
  ``AttributeError: property 'shape' of 'BatchTracer' object has no setter`` under every
  transform.  It reshapes the array object in place now; an array that is a view, or has
  views, stays tied to them (a write through either side is seen by the other).
* ``a.flat = v`` (every element, ``v``'s values repeated) raised the same AttributeError.

Oracles: plain NumPy on each row (a Python loop for ``vmap``), the eager result on new
inputs for ``jit``, central finite differences in float64 for ``grad``."""

import numpy as np
import pytest

import ftransforms as ft

X = np.array(
    [
        [0.5, -1.0, 2.0, 0.25, -0.75, 1.5],
        [1.0, 2.0, -0.5, 3.0, 0.1, -2.0],
        [-1.0, 0.3, 0.6, 0.9, -1.2, 1.1],
    ]
)


def fd_grad(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(x.size)])


def check(f):
    ref = np.stack([f(x.copy()) for x in X])
    np.testing.assert_allclose(ft.vmap(f)(X), ref)
    jf = ft.jit(ft.vmap(f))
    jf(X[::-1].copy())
    np.testing.assert_allclose(jf(X), ref)

    def loss(x):
        return (f(x.copy()) ** 2).sum()

    np.testing.assert_allclose(
        ft.vmap(ft.grad(loss))(X), np.stack([fd_grad(loss, x) for x in X]), rtol=1e-6, atol=1e-8
    )


def reshaped_in_place(x):
    a = x * 1.0
    a.shape = (2, 3)
    return (a * a[::-1]).sum(0)


def reshaped_with_a_view(x):
    a = x * 1.0
    v = a[1:3]  # a view of a: it follows a's writes, and writes into a
    a.shape = (2, 3)
    a[0, 1] = 9.0 * a[1, 1]
    v[1] = v[1] * 7.0
    a[1] *= 2
    return np.concatenate([a.ravel(), v])


def a_view_reshaped(x):
    b = x * 1.0
    a = b[0:6]
    a.shape = (3, 2)
    a[1, 1] = 5.0 * a[0, 0]
    b[0] += 1
    return np.concatenate([b, a.ravel()])


def reshaped_twice_with_minus_one(x):
    b = x * 1.0
    a = b.reshape(2, 3)
    a.shape = (6,)
    a[2] = -a[3]
    a.shape = (-1, 2)
    a[0] *= 3
    return np.concatenate([b, a.ravel()])


def strided_view_given_a_unit_axis(x):
    b = x * 1.0
    a = b[::2]
    a.shape = (3, 1)
    a[1, 0] = 4.0 * a[0, 0]
    return b * a.sum()


def flat_assigned_cycled(x):
    a = np.zeros(6)
    a.flat = x[:2]  # NumPy repeats the values: x0, x1, x0, x1, ...
    return a * x


def flat_assigned_then_reshaped(x):
    a = np.zeros((2, 3))
    a.flat = x
    a.shape = (3, 2)
    return a.T.ravel()


@pytest.mark.parametrize(
    "f",
    [
        reshaped_in_place,
        reshaped_with_a_view,
        a_view_reshaped,
        reshaped_twice_with_minus_one,
        strided_view_given_a_unit_axis,
        flat_assigned_cycled,
        flat_assigned_then_reshaped,
    ],
)
def test_attribute_writes_follow_numpy(f):
    check(f)


def test_setting_the_shape_of_an_argument_leaves_the_caller_s_array():
    def f(x):
        x.shape = (2, 3)
        return x.sum(0)

    xs = X.copy()
    np.testing.assert_allclose(ft.vmap(f)(xs), np.stack([x.reshape(2, 3).sum(0) for x in X]))
    np.testing.assert_allclose(ft.grad(lambda x: f(x).sum())(X[0].copy()), np.ones(6))
    assert xs.shape == (3, 6)
    np.testing.assert_array_equal(xs, X)


def test_a_shape_set_inside_control_flow_bodies():
    def g(x):
        def branch(c):
            c = c * 1.0
            c.shape = (3, 2)
            return c.sum(1)

        return ft.cond(x[0] > 0, branch, lambda c: c[:3], x)

    def w(x):
        def body(c):
            a = c * 1.0
            a.shape = (2, 3)
            a[0] += 1
            return a.ravel()

        return ft.while_loop(lambda c: c.sum() < 12, body, x)

    for f in (g, w):
        ref = np.stack([f(x) for x in X])
        np.testing.assert_allclose(ft.vmap(f)(X), ref)
        np.testing.assert_allclose(ft.jit(ft.vmap(f))(X), ref)


def reads_flags(x):
    a = x * 1.0
    flags = [
        a.flags["C_CONTIGUOUS"],
        a.flags.c_contiguous,
        a[::2].flags.c_contiguous,
        a[1:].flags.owndata,
        a.flags.owndata,
        np.diagonal(np.outer(a, a)).flags.writeable,
        a.flags.writeable,
        np.isfortran(a),
    ]
    return a * np.array(flags, dtype=float).sum()


def made_read_only(x):
    a = x * 1.0
    v = a[1:]  # a view made before: NumPy still writes through it
    a.flags.writeable = False
    try:
        a[0] = 100.0
        hit = 0.0
    except ValueError:
        hit = 1.0
    v[0] = 5.0 * v[1]
    return a * 2 + hit


@pytest.mark.parametrize("f", [reads_flags, made_read_only])
def test_flags_read_and_writeable_follow_numpy(f):
    check(f)


def writeable_again(x):
    a = x * 1.0
    a.flags.writeable = False
    a.flags.writeable = True  # NumPy allows it on an array that owns its data
    a[0] = 3.0 * a[1]
    return a


def test_an_array_made_read_only_may_be_made_writeable_again():
    check(writeable_again)


def test_writing_through_a_read_only_view_made_writeable_is_refused_clearly():
    def f(x):
        d = np.broadcast_to(x, (2, 6))
        d.flags.writeable = True  # NumPy allows it (writes alias every copy)
        return d.sum(0)

    with pytest.raises(ft.errors.InPlaceError, match="writeable = True"):
        ft.vmap(f)(X)
    np.testing.assert_allclose(ft.vmap(lambda x: x * 2)(X), X * 2)  # the stack is clean
