"""Probe round 9: NumPy programs that mutate, under the transforms.

* ``np.lib.stride_tricks.as_strided(a, ...)``: a write into it raised "read-only" (NumPy's
  is a writeable view: the diagonal trick); it reaches ``a`` now, overlapping windows
  refuse writes with InPlaceError.  NumPy's own ``as_strided`` bound before the transform
  kept stale values after a later write into ``a``.
* Memory layout (NOTE [memory layout]): ``np.asfortranarray(t)`` gave an object array (a
  write raised); ``a.T.ravel('K')``/``flatten('K')`` read C order (wrong values);
  ``reshape``/``ravel(order='F')`` of a Fortran-contiguous array, ``require(a.T, 'F')``
  were copies (a write was lost); ``flags.f_contiguous`` of ``a.T`` was False;
  ``np.copy(a.T)``/``a.copy('F')``/``np.array(a, order='F')`` were C-ordered (object
  arrays for ``order='F'``); ``copy``/``astype``/``*_like`` refused ``order=``.
* ``np.broadcast_arrays`` results did not see later writes.
* NumPy's ``out`` by position (``np.dot(a, b, out)``, ``np.clip(a, lo, hi, out)``).
* ``jit`` inside another transform refused traced writes into a NumPy argument.
* ``custom_jvp``/``custom_vjp`` functions writing their argument wrote the caller's array
  and left a stale derivative; ``checkpoint`` lost such writes (wrong gradients).
* ``pure_callback``/debug callbacks could write the traced values (and, under ``jit``, the
  caller's array).
* ``t.base`` was missing; ``vmap(lambda x: x)(X)`` returned ``X`` itself.
* ``np.atleast_1d(s)``/``s.reshape(1)`` of a NumPy scalar (``x.sum()``) were views: a
  write into them changed ``s``.

Oracles: the plain NumPy call, the Python loop over rows for ``vmap``, central differences
in float64 for derivatives, eager values on new inputs for ``jit``.
"""

import warnings

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.errors import InPlaceError

RNG = np.random.default_rng(9)
BATCH = RNG.standard_normal((3, 6))
X = BATCH[0]


def central_grad(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(x.size)])


def central_jacobian(f, x, eps=1e-6):
    cols = [(f(x + eps * e) - f(x - eps * e)).ravel() / (2 * eps) for e in np.eye(x.size)]
    return np.stack(cols, -1)


def check_transforms(f):
    """vmap against the loop, jit on new inputs, grad/jacfwd/vmap(grad) against central
    differences; the caller's arrays are left alone."""
    want = np.stack([f(r.copy()) for r in BATCH])
    batch = BATCH.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ft.errors.PerformanceWarning)
        warnings.simplefilter("ignore", RuntimeWarning)  # jit running a signature eagerly
        np.testing.assert_allclose(ft.vmap(f)(batch), want)
        jf = ft.jit(f)
        for r in BATCH:
            np.testing.assert_allclose(jf(r.copy()), f(r.copy()))
    np.testing.assert_array_equal(batch, BATCH)
    w = np.linspace(0.5, 1.5, want[0].size).reshape(want[0].shape)

    def loss(x):
        return np.sum(f(x) * w)

    x = X.copy()
    np.testing.assert_allclose(ft.grad(loss)(x), central_grad(loss, X.copy()), atol=1e-6)
    np.testing.assert_array_equal(x, X)
    np.testing.assert_allclose(
        ft.jacfwd(f)(X.copy()).reshape(-1, X.size), central_jacobian(f, X.copy()), atol=1e-6
    )
    gb = np.stack([central_grad(loss, r.copy()) for r in BATCH])
    np.testing.assert_allclose(ft.vmap(ft.grad(loss))(BATCH.copy()), gb, atol=1e-6)


# -- as_strided views are written through -------------------------------------------------


def as_strided_every_other(x):
    a = x * 1.0
    w = np.lib.stride_tricks.as_strided(a, shape=(3,), strides=(2 * a.itemsize,))
    w[1] = x[0] ** 2
    w *= 2.0
    return a


def as_strided_diagonal(x):
    m = np.outer(x[:3], x[3:])
    d = np.lib.stride_tricks.as_strided(m, shape=(3,), strides=(4 * m.itemsize,))
    d[:] = x[:3] ** 2  # the classic diagonal trick
    m[0, 0] += 1.0  # seen through d
    return np.concatenate([m.ravel(), d])


def as_strided_of_a_buffer_row(x):
    m = np.zeros((2, 4))
    r = m[1]
    e = np.lib.stride_tricks.as_strided(r, shape=(2,), strides=(2 * r.itemsize,))
    e += x[:2]
    m[0] = x[2:]
    return m.ravel()


@pytest.mark.parametrize(
    "f", [as_strided_every_other, as_strided_diagonal, as_strided_of_a_buffer_row]
)
def test_writes_through_as_strided_views_reach_the_array(f):
    check_transforms(f)


def windows_of_numpys_own_as_strided(x):
    from numpy.lib.stride_tricks import as_strided  # bound before: NumPy's own function

    a = x * 1.0
    w = as_strided(a, shape=(4, 3), strides=(a.itemsize, a.itemsize))
    a[3] = 5.0 * x[0]  # seen through the windows, as in NumPy
    return (w**2).sum(axis=1)


def test_numpys_own_as_strided_sees_later_writes():
    check_transforms(windows_of_numpys_own_as_strided)


def test_as_strided_views_that_overlap_or_are_read_only_refuse_writes():
    def write_windows(x):
        a = x * 1.0
        w = np.lib.stride_tricks.as_strided(a, shape=(4, 3), strides=(8, 8))
        w[1] = 0.0
        return a

    # written through, as NumPy writes (round 12; it raised InPlaceError)
    np.testing.assert_allclose(
        ft.vmap(write_windows)(BATCH.copy()), np.stack([write_windows(r.copy()) for r in BATCH])
    )
    np.testing.assert_allclose(ft.jit(write_windows)(X.copy()), write_windows(X.copy()))
    np.testing.assert_allclose(
        ft.grad(lambda x: write_windows(x).sum())(X.copy()), (write_windows(X.copy()) != 0) * 1.0
    )
    assert ft.vmap(lambda x: x * 2)(BATCH).shape == BATCH.shape  # the stack is clean

    def write_read_only(x):
        a = x * 1.0
        w = np.lib.stride_tricks.as_strided(a, shape=(3,), strides=(16,), writeable=False)
        w[0] = 1.0
        return a

    with pytest.raises(ValueError, match="read-only"):
        write_read_only(X.copy())
    with pytest.raises(ValueError, match="read-only"):
        ft.vmap(write_read_only)(BATCH)


# -- asfortranarray / require('F') of a Fortran-contiguous array is that array -------------


def write_through_fortran_views(x):
    a = np.outer(x[:2], x[2:5]) * 1.0
    np.asfortranarray(a.T)[0, 1] = 7.0 * x[5]  # a.T is F-contiguous: NumPy returns it
    np.require(a.T, requirements="F")[2, 0] += x[0]
    b = np.asfortranarray(a)  # a copy in NumPy
    b[0, 0] = 100.0
    v = x * 1.0
    np.asfortranarray(v)[1] = x[2] ** 2  # 1-d: both C and F, v itself
    return np.concatenate([a.ravel(), v])


def test_asfortranarray_returns_a_fortran_contiguous_array_itself():
    check_transforms(write_through_fortran_views)

    def flags(x):
        a = np.outer(x[:2], x[2:5])
        f = [a.T.flags.f_contiguous, a.flags.f_contiguous, np.swapaxes(a, 0, 1).flags["F"]]
        return x * np.dot(f, [1, 2, 4])

    np.testing.assert_allclose(ft.vmap(flags)(BATCH), BATCH * 5.0)


def test_copies_and_casts_take_numpys_order_and_casting_keywords():
    m = BATCH.reshape(3, 2, 3)

    def copies(a):
        return (
            a.copy("F")
            + np.copy(a, order="F")
            + a.astype(float, order="F")
            + a.astype(np.float64, "C", "same_kind")
            + np.zeros_like(a, float, "F")
            + np.full_like(a, 2.0, None, "F")
            + np.ones_like(a, order="C", shape=(2, 3))
        )

    np.testing.assert_allclose(ft.vmap(copies)(m), np.stack([copies(r) for r in m]))
    np.testing.assert_allclose(ft.grad(lambda a: copies(a).sum())(m[0]), np.full((2, 3), 4.0))
    with pytest.raises(TypeError, match="according to the rule 'safe'"):
        ft.vmap(lambda a: a.astype(np.int32, casting="safe"))(m)


# -- NumPy's out passed by position: np.dot(a, b, out), np.clip(a, lo, hi, out) ----------


def positional_outs(x):
    m = np.outer(x[:3], x[3:])
    o = [np.zeros((3, 3)), np.zeros(3), np.zeros(9), np.zeros((3, 3)), np.zeros(3)]
    np.dot(m, m.T, o[0])
    np.sum(m, 0, None, o[1])  # NumPy's (a, axis, dtype, out)
    np.cumsum(m, None, None, o[2])
    np.clip(m, -0.5, 0.5, o[3])
    np.std(m, 1, None, o[4], 1)  # ddof after out
    c = np.zeros((6, 3))
    np.concatenate([m, m[::-1]], 0, c)
    t = np.take(x, [0, 7], 0, np.zeros(2), "clip")  # mode after out
    return np.concatenate([v.ravel() for v in o] + [c.ravel(), t])


def test_out_passed_by_position_is_written_as_numpy_writes_it():
    check_transforms(positional_outs)


# -- memory order (NOTE [memory layout]): Fortran-order views, ravel('K'), broadcast_arrays -


def write_through_fortran_order_views(x):
    v = x * 1.0
    v.reshape(2, 3, order="F")[1, 0] = 10.0 * x[0]  # 1-d: a view in either order
    a = np.outer(x[:2], x[2:5]) * 1.0
    a.T.ravel(order="F")[1] = -x[1]  # a.T is Fortran-contiguous: views of a
    a.T.reshape(6, order="F")[2] *= 3.0
    a.T.ravel(order="K")[3] += x[5]
    np.ravel(a.T, "A")[4] = x[2] ** 2
    a.T.T.ravel()[5] -= 1.0  # a.T.T is C-contiguous again
    a.T.reshape(6)[0] = 100.0  # a copy
    np.ascontiguousarray(a.T.T)[0, 0] *= 2.0  # a itself
    a.T[None].squeeze(0).ravel("F")[1] += x[3]  # still a.T's layout: a view of a
    b = np.zeros(6)
    b.reshape(2, 3, order="F")[0, 1] = x[4]  # a buffer's Fortran-order view
    np.asfortranarray(b.reshape(3, 2).T)[1, 1] = x[0] * x[1]
    return np.concatenate([v, a.ravel(), b])


def memory_order_reads(x):
    a = np.outer(x[:2], x[2:5])
    t = a.T
    return np.concatenate(
        [
            t.ravel("K"),  # a's elements in a's order
            t.flatten("K"),
            t.flatten("A"),
            np.ravel(t[:, ::2], "K"),
            np.ravel(a[:, ::2].T, "K"),
            np.moveaxis(a[None], 0, -1).ravel("K"),
            np.flip(t, 0).ravel("K"),
            t.reshape(6, order="A"),
        ]
    )


@pytest.mark.parametrize("f", [write_through_fortran_order_views, memory_order_reads])
def test_memory_order_of_transposed_arrays_follows_numpy(f):
    check_transforms(f)


def test_contiguity_flags_follow_the_transposes():
    def flags(x):
        a = np.outer(x[:2], x[2:5])
        views = [a, a.T, a.T.T, a.T[:, :2], a.T[:2], a.T[:, 0], a[:, 0], np.swapaxes(a, 0, 1)]
        views += [x.reshape(3, 2, order="F"), np.moveaxis(a[None], 0, -1), a.T[None]]
        return np.array([[v.flags.c_contiguous, v.flags.f_contiguous] for v in views])

    want = flags(X.copy())
    assert want[:, 1].sum() >= 6  # the transposes are Fortran-contiguous in NumPy
    np.testing.assert_array_equal(ft.vmap(flags)(BATCH)[0], want)
    np.testing.assert_array_equal(ft.jit(flags)(X), want)


def broadcast_arrays_see_later_writes(x):
    a = x[:3] * 1.0
    p, q, r = np.broadcast_arrays(a, x[3:, None], np.ones((3, 3)))
    a[0] = 9.0 * x[4]  # p is a view of a in NumPy
    return np.concatenate([p.ravel(), q.ravel(), r.ravel()])


def test_broadcast_arrays_are_views_that_refuse_writes():
    check_transforms(broadcast_arrays_see_later_writes)

    def write(x):
        p, _ = np.broadcast_arrays(x[:3], x[3:, None])
        p[0, 0] = 1.0
        return p

    with pytest.raises(InPlaceError, match=r"^vmap\(write.*broadcast_arrays"):
        ft.vmap(write)(BATCH)


# -- jit inside another transform: a NumPy array argument may be written, as at the top ---


def fill_into(a, out):
    out[:] = a * 2.0  # jit traces out: the caller's array is left alone
    out[0] += a[1]
    return out * a


JITTED_FILL = ft.jit(fill_into)


def jit_writing_its_numpy_argument(x):
    b = np.zeros(6)  # a buffer of the enclosing transform
    r = JITTED_FILL(x, b)
    return r + b + JITTED_FILL(x, np.ones(6))


def test_jit_inside_a_transform_lets_the_function_write_its_numpy_arguments():
    check_transforms(jit_writing_its_numpy_argument)
    np.testing.assert_allclose(jit_writing_its_numpy_argument(X.copy())[1:], 4.0 * X[1:] ** 2)


# -- custom_jvp / custom_vjp functions that write into their arguments --------------------


@ft.custom_jvp
def softmax_in_place(x):
    x -= x.max()  # NumPy-style, on the argument itself, which is returned
    np.exp(x, out=x)
    x /= x.sum()
    return x


@softmax_in_place.defjvp
def _softmax_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    y = softmax_in_place(x.copy())
    return y, y * (t - np.sum(y * t))


def caller_reads_the_written_argument(x):
    a = x * 1.0
    y = softmax_in_place(a)  # a is y now, as in NumPy
    return a * 2.0 + y * x


def test_a_custom_function_that_writes_and_returns_its_argument():
    check_transforms(caller_reads_the_written_argument)
    x = X.copy()
    _, tangent = ft.jvp(softmax_in_place, (x,), (np.ones(6),))
    np.testing.assert_array_equal(x, X)  # the caller's array: it was written before
    np.testing.assert_allclose(tangent, np.zeros(6), atol=1e-12)  # softmax of x + c
    jac = ft.jacrev(softmax_in_place)(x)
    np.testing.assert_array_equal(x, X)
    np.testing.assert_allclose(jac, central_jacobian(softmax_in_place, X.copy()), atol=1e-6)


def test_a_custom_rule_function_that_writes_an_argument_it_does_not_return_refuses():
    @ft.custom_vjp
    def sum_of_squares(x):
        x **= 2  # not returned: its new value would have no derivative
        return x.sum()

    def fwd(x):
        return sum_of_squares(x), x.copy()

    sum_of_squares.defvjp(fwd, lambda x, g: (2.0 * g * x,))

    x = X.copy()
    with pytest.raises(InPlaceError, match=r"^custom_vjp\(sum_of_squares\): fwd wrote into"):
        ft.grad(lambda x: sum_of_squares(x * 1.0) + x.sum())(x)
    np.testing.assert_array_equal(x, X)
    np.testing.assert_allclose(sum_of_squares(x.copy()), np.sum(X**2))  # undifferentiated


# -- checkpoint: the function writes into its arguments, as NumPy code does ---------------


@ft.checkpoint
def scale_in_place(v, w):
    v *= 2.0  # v may be w, or a view of the caller's array
    v[0] = v[1] ** 2
    return np.sum(v * w)


def checkpoint_writes_its_arguments(x):
    a = x * 1.0
    s = scale_in_place(a[1:4], x[:3])  # a view: the caller's a sees the write
    b = x * 1.0
    t = scale_in_place(b, b)  # the same array twice
    buf = np.zeros(6)
    u = scale_in_place(buf, x)  # a buffer
    return np.concatenate([a * s, b * t, buf + u])


def test_a_checkpointed_function_writes_into_its_arguments_as_numpy_does():
    check_transforms(checkpoint_writes_its_arguments)
    h = ft.hessian(lambda x: np.sum(checkpoint_writes_its_arguments(x) ** 2))(X.copy())
    g = ft.grad(lambda x: np.sum(checkpoint_writes_its_arguments(x) ** 2))
    np.testing.assert_allclose(h, central_jacobian(g, X.copy(), 1e-5), rtol=1e-5, atol=1e-4)


# -- host callbacks get arrays they cannot write back through ------------------------------


def test_a_callback_that_writes_its_argument_leaves_the_traced_values_and_the_caller():
    def host(v):
        v *= 2.0  # NumPy code in the callback; JAX's arrays would rebind
        return v + 1.0

    def f(x):
        a = x * 1.0
        y = ft.pure_callback(
            host, ft.ShapeDtypeStruct(a.shape, a.dtype), a, vmap_method="sequential"
        )
        return a + y  # a as it was: 3x + 1

    x = X.copy()
    for call in (f, ft.jit(f), ft.jit(lambda v: host_call(host, v))):
        got = call(x)
        np.testing.assert_array_equal(x, X)  # jit gave the callback the caller's array
    np.testing.assert_allclose(f(x), 3.0 * X + 1.0)
    np.testing.assert_allclose(ft.vmap(f)(BATCH.copy()), 3.0 * BATCH + 1.0)
    np.testing.assert_allclose(got, 2.0 * X + 1.0)

    def peek(v):
        v[0] = 0.0

    with pytest.raises(ValueError, match="read-only"):
        ft.jit(lambda v: (ft.debug.callback(peek, v), v * 1.0)[1])(x)
    np.testing.assert_array_equal(x, X)


def host_call(host, v):
    return ft.pure_callback(host, ft.ShapeDtypeStruct(v.shape, v.dtype), v)


# -- t.base: NumPy's defensive `if v.base is not None: v = v.copy()` ----------------------


def copy_if_a_view(x):
    a = x * 1.0
    v = a[1:4]
    if v.base is not None:  # a view: copy before writing
        v = v.copy()
    v[0] = 100.0
    w = a.reshape(2, 3)
    w.shape = (3, 2)  # NumPy's w is still a view of a
    m = np.zeros(3)
    m.flags.writeable = False  # still owns its elements
    flags = [a.base is None, v.base is None, w.base is a, a[1:][::2].base is a, m.base is None]
    return a * np.dot(flags, [1.0, 2.0, 4.0, 8.0, 16.0])


def test_base_of_traced_arrays_follows_numpy():
    check_transforms(copy_if_a_view)
    np.testing.assert_allclose(copy_if_a_view(X.copy()), X * 31.0)


# -- vmap's outputs are the loop's np.stack: never the caller's array itself ---------------


def test_vmap_outputs_that_pass_an_input_through_are_new_arrays():
    def passthrough(x, c):
        return x, x.T[::-1], c * 1.0

    batch = BATCH.reshape(3, 2, 3).copy()
    outs = ft.vmap(passthrough, in_dims=(0, None))(batch, np.ones(2))
    want = [
        np.stack([passthrough(r, np.ones(2))[k] for r in BATCH.reshape(3, 2, 3)]) for k in (0, 1)
    ]
    for o, w in zip(outs, want):
        np.testing.assert_array_equal(o, w)
        o[...] = 7.0  # as into np.stack's result
    np.testing.assert_array_equal(batch, BATCH.reshape(3, 2, 3))


# -- copies NumPy lays out in Fortran order (NOTE [memory layout]) ------------------------


def fortran_ordered_copies(x):
    a = np.outer(x[:2], x[2:5])
    b = np.copy(a.T)  # np.copy keeps a.T's (Fortran) layout
    b[0, 1] = 100.0 * x[0]
    c = a.copy("F")
    d = np.array(a, order="F")
    e = np.asarray(a.T, order="F")  # a.T itself
    e[2, 0] = -x[1]
    f = np.asfortranarray(a)  # a copy, in Fortran order
    return np.concatenate(
        [a.ravel(), b.ravel("K"), c.ravel("K"), d.ravel("A"), f.ravel("K"), f.T.ravel()]
    )


def test_copies_in_fortran_order_read_in_memory_order():
    check_transforms(fortran_ordered_copies)

    def flags(x):
        a = np.outer(x[:2], x[2:5])
        copies = [np.copy(a.T), a.copy("F"), np.array(a, order="F"), a.T.copy(), np.copy(a)]
        f = [c.flags.f_contiguous + 2 * c.flags.c_contiguous for c in copies]
        return x * np.dot(f, [1, 10, 100, 1000, 10000]) + (np.copy(a.T).base is None)

    np.testing.assert_allclose(ft.vmap(flags)(BATCH), np.stack([flags(r) for r in BATCH]))


# -- views of a 0-d value that NumPy gives as a scalar are new arrays ---------------------


def writes_into_arrays_made_from_scalars(x):
    s = x.sum() * 1.0  # a NumPy scalar
    t = np.atleast_1d(s)
    t[0] = 3.0  # a new array in NumPy: s keeps its value
    u = s.reshape(1)
    u *= 2.0
    v = np.expand_dims(x[2], 0)
    v[0] = 0.0
    a = x * 1.0
    a[()][0] = 5.0 * x[1]  # a[()] of an array is a view of it
    return np.concatenate([a, [s], t, u, v])


def test_views_of_a_numpy_scalar_are_new_arrays():
    check_transforms(writes_into_arrays_made_from_scalars)
