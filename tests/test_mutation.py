"""NumPy's mutation semantics under every transform (issue 21; NOTE [mutation semantics] in
ftransforms/core/mutation.py).

Oracles: the plain-NumPy function run on copies (values), central differences in float64
(derivatives), the per-example loop (vmap), and JAX for the functional equivalent.
"""

from __future__ import annotations

import threading

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ftransforms as ft
from ftransforms.errors import EscapedTracerError, InPlaceError

jax.config.update("jax_enable_x64", True)


def close(a, b, rtol=1e-6, atol=1e-8):
    np.testing.assert_allclose(
        np.asarray(a, dtype=complex), np.asarray(b, dtype=complex), rtol=rtol, atol=atol
    )


def numeric_grad(f, x, h=1e-6):
    """Central differences of the plain-NumPy ``f`` (run on copies) at ``x``."""
    x = np.asarray(x, dtype=np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (f((x + e).copy()) - f((x - e).copy())) / (2 * h)
    return g


def numeric_jac(f, x, h=1e-6):
    x = np.asarray(x, dtype=np.float64)
    cols = []
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        cols.append((np.asarray(f((x + e).copy())) - np.asarray(f((x - e).copy()))) / (2 * h))
    return np.moveaxis(np.array(cols), 0, -1).reshape(np.shape(cols[0]) + x.shape)


def check_scalar_program(f, x, batch=None, *, rtol=1e-6, hessian=True):
    """Every transform of a scalar-valued ``f`` against the oracles; the caller's array is
    bitwise unchanged after each."""
    x = np.asarray(x, dtype=np.float64)
    before = x.copy()
    value = f(x.copy())
    g_ref = numeric_grad(f, x)

    def unchanged():
        np.testing.assert_array_equal(x, before)

    close(ft.grad(f)(x), g_ref, rtol=rtol)
    unchanged()
    g_value = ft.grad_and_value(f)(x)
    close(g_value[1], value)
    unchanged()
    out, vjp_fn = ft.vjp(f, x)
    close(out, value)
    close(vjp_fn(np.float64(1.0))[0], g_ref, rtol=rtol)
    unchanged()
    t = np.linspace(0.3, 1.1, x.size).reshape(x.shape)
    p, tan = ft.jvp(f, (x,), (t,))
    close(p, value)
    close(tan, np.sum(g_ref * t), rtol=rtol)
    unchanged()
    close(ft.jacrev(f)(x), g_ref, rtol=rtol)
    close(ft.jacfwd(f)(x), g_ref, rtol=rtol)
    out, lin = ft.linearize(f, x)
    close(out, value)
    close(lin(t), np.sum(g_ref * t), rtol=rtol)
    jitted = ft.jit(ft.grad(f))
    close(jitted(x), g_ref, rtol=rtol)  # recorded
    close(jitted(x), g_ref, rtol=rtol)  # replayed
    close(ft.jit(f)(x), value)
    close(ft.jit(f)(x), value)
    unchanged()
    if hessian:
        h_ref = numeric_jac(lambda y: ft.grad(f)(y), x, h=1e-5)
        close(ft.hessian(f)(x), h_ref, rtol=1e-4, atol=1e-6)
        unchanged()
    if batch is not None:
        batch = np.asarray(batch, dtype=np.float64)
        b_before = batch.copy()
        close(ft.vmap(f)(batch), [f(b.copy()) for b in batch])
        close(ft.vmap(ft.grad(f))(batch), [numeric_grad(f, b) for b in batch], rtol=rtol)
        close(ft.jit(ft.vmap(f))(batch), [f(b.copy()) for b in batch])
        close(ft.jit(ft.vmap(f))(batch), [f(b.copy()) for b in batch])
        np.testing.assert_array_equal(batch, b_before)


X3 = np.array([0.7, -1.3, 2.1])
B3 = np.array([[0.7, -1.3, 2.1], [1.5, 0.2, -0.4], [0.3, 0.9, 1.7]])


# -- the silent wrong answers of the issue, first --------------------------------------


def alias_then_iadd(x):
    h = x * 1.0
    g = h  # an alias
    h += 1.0  # NumPy: g sees the increment
    return np.sum(g * h)


def test_alias_and_augmented_assignment():
    assert alias_then_iadd(np.array([1.0, 2.0])) == 13.0
    close(ft.vmap(alias_then_iadd)(np.array([[1.0, 2.0]])), [13.0])
    check_scalar_program(alias_then_iadd, X3, B3)


def _normalise(v):
    v -= v.mean()
    v /= np.linalg.norm(v)


def normalise_in_a_helper(x):
    y = x * 2.0 + 1.0
    _normalise(y)  # returns None: only the mutation carries the result
    return np.sum(y * np.array([1.0, 2.0, 4.0]))


def test_in_place_normalise_helper_returning_none():
    check_scalar_program(normalise_in_a_helper, X3, B3)


def sgd_steps(w):
    params = [w * 1.0, w[:2] * 3.0]
    for _ in range(3):
        grads = [2.0 * p + 0.5 for p in params]
        for p, g in zip(params, grads):
            p -= 0.1 * g  # the loop every optimiser tutorial writes
    return sum(np.sum(p**2) for p in params)


def test_optimiser_update_loop_mutates_the_parameters():
    check_scalar_program(sgd_steps, X3, B3)

    def sgd_jax(w):
        params = [w * 1.0, w[:2] * 3.0]
        for _ in range(3):
            params = [p - 0.1 * (2.0 * p + 0.5) for p in params]
        return sum(jnp.sum(p**2) for p in params)

    close(ft.grad(sgd_steps)(X3), jax.grad(sgd_jax)(jnp.asarray(X3)))


def test_the_updated_parameters_are_seen_outside_the_loop_under_vmap():
    def f(w):
        p = w * 1.0
        ps = [p]
        for q in ps:
            q *= 2.0
        return p  # the list held the same object

    close(ft.vmap(f)(B3), 2 * B3)


@pytest.mark.parametrize("op", ["+", "-", "*", "/", "**", "@", "//", "%"])
def test_every_augmented_operator_mutates_the_object(op):
    ns: dict = {}
    exec(f"def f(x):\n    z = x * 1.0\n    a = z\n    z {op}= x * 0.5 + 1.5\n    return a\n", ns)
    f = ns["f"]
    if op == "@":
        x = np.array([[0.6, 0.2], [0.1, 0.9]])
        xs = np.stack([x, 2 * x])
    else:
        x, xs = np.abs(X3) + 0.5, np.abs(B3) + 0.5
    close(ft.vmap(f)(xs), [f(b.copy()) for b in xs])
    if op not in ("//", "%"):
        close(ft.jacrev(f)(x), numeric_jac(f, x))
        close(ft.jacfwd(f)(x), numeric_jac(f, x))


@pytest.mark.parametrize("op", ["&", "|", "^"])
def test_bitwise_augmented_operators(op):
    ns: dict = {}
    exec(f"def f(x):\n    z = x + 0\n    a = z\n    z {op}= 1\n    return a + x\n", ns)
    f = ns["f"]
    xs = np.array([[1, 2, 3], [4, 5, 6]])
    np.testing.assert_array_equal(ft.vmap(f)(xs), [f(b.copy()) for b in xs])


def test_in_place_operators_follow_numpys_casting():
    def f(x):
        i = np.arange(3)  # a buffer of ints
        i += 1
        i *= 2  # int stays int
        i += x.astype(int)
        return i

    np.testing.assert_array_equal(ft.vmap(f)(np.ones((2, 3))), [f(r) for r in np.ones((2, 3))])

    def g(x):
        i = x.astype(int)
        i += x  # NumPy: UFuncTypeError (float64 into int64 with same_kind)
        return i

    with pytest.raises(TypeError):
        g(np.ones(3))
    with pytest.raises(InPlaceError, match="same_kind"):
        ft.vmap(g)(np.ones((2, 3)))

    def h(x):
        y = x * 1.0
        y += np.ones((2, 3))  # NumPy: non-broadcastable output operand
        return y

    with pytest.raises(InPlaceError, match="shape"):
        ft.grad(lambda x: h(x).sum())(np.ones(3))


# -- item and slice assignment -----------------------------------------------------------


def slice_writes(x):
    y = x * 1.0
    y[0] = 3.0 * x[2]
    y[::-1] *= np.array([1.0, 2.0, 3.0])  # negative step
    y[...] += 1.0
    y[-1:] = y[0] ** 2
    return np.sum(np.sin(y) * y)


def test_basic_negative_step_and_ellipsis_slices():
    check_scalar_program(slice_writes, X3, B3)


def test_2d_item_and_slice_assignment():
    def f(x):
        m = np.outer(x, x)
        m[0, :] = x
        m[:, 1] -= x[::-1]
        m[1:, ::2] = np.tanh(m[1:, ::2])
        m[2, 2] = 0.0
        return np.sum(m**2)

    check_scalar_program(f, X3, B3)


def test_repeated_integer_indices_last_write_wins():
    def f(x):
        y = x * 1.0
        y[[0, 0, 2]] = x[[2, 1, 0]] ** 2  # y[0] = x[1] ** 2 (the last write)
        return np.sum(y**2)

    y = np.zeros(3)
    y[[0, 0]] = [1.0, 2.0]
    assert y[0] == 2.0  # NumPy's rule, which the oracle below runs
    check_scalar_program(f, X3, B3)


def test_repeated_indices_with_augmented_assignment_add_once():
    def f(x):
        y = x * 1.0
        y[[0, 0, 1]] += x[2]  # NumPy: y[0] gets x[2] once
        return np.sum(y**2)

    check_scalar_program(f, X3, B3)


def test_ufunc_at_accumulates():
    def f(x):
        y = x * 1.0
        np.add.at(y, [0, 0, 2], x[1])
        np.multiply.at(y, [1, 1], 2.0)
        return np.sum(y**2)

    check_scalar_program(f, X3, B3)


def test_boolean_mask_assignment_also_with_a_batched_mask():
    def relu_in_place(x):
        y = x * 1.0
        y[y < 0] = 0.0
        return np.sum(y**2) + y[1]

    check_scalar_program(relu_in_place, X3, B3, hessian=False)

    def masked_values(x):
        y = x * 1.0
        mask = np.array([True, False, True])
        y[mask] = x[:2] * 3.0
        return np.sum(y**2)

    check_scalar_program(masked_values, X3, B3)

    def batched_mask_array_values(x):
        y = x * 1.0
        y[y < 0] = np.array([1.0])
        return y

    close(ft.vmap(batched_mask_array_values)(B3), [batched_mask_array_values(b.copy()) for b in B3])


def test_integer_index_from_a_traced_argmax():
    def f(x):
        y = np.zeros(3)
        y[np.argmax(x)] = x.max()
        return np.sum(y * np.array([1.0, 2.0, 3.0]))

    close(ft.vmap(f)(B3), [f(b) for b in B3])
    close(ft.grad(f)(X3), numeric_grad(f, X3))


def test_flat_assignment():
    def f(x):
        m = np.outer(x, x)
        m.flat[[0, 4, 8]] = x
        m.flat[1] = 2.0
        return np.sum(m**2)

    check_scalar_program(f, X3, B3)


# -- views ----------------------------------------------------------------------------------


def view_writes(x):
    m = np.outer(x, np.array([1.0, 2.0, 3.0]))
    row = m[1]  # a view
    col = m[:, 2]
    t = m.T
    r = m.reshape(-1)
    row[:] = x**2  # through a view: m and the other views see it
    t[0, 0] = 5.0 * x[0]  # m[0, 0]
    r[-1] += 1.0  # m[2, 2]
    m[0, 1] = col[1] * x[1]  # a write to the base: col, row, t, r see it
    return np.sum(m * np.arange(9.0).reshape(3, 3)) + np.sum(col * row) + t[1, 0] * r[4]


def test_writes_through_views_and_into_the_base():
    check_scalar_program(view_writes, X3, B3)


def test_views_of_views_swapaxes_squeeze_and_ravel():
    def f(x):
        a = np.outer(x, x)[None]  # (1, 3, 3)
        s = a.squeeze(0)
        w = s.swapaxes(0, 1)[1:]  # a view of a view
        w[0] = 0.5 * x
        flat = np.ravel(a)
        flat[0] = x[2]
        return np.sum(a**2) + np.sum(s[:, 1]) + np.sum(w)

    check_scalar_program(f, X3, B3)


def test_diagonal_is_a_read_only_view():
    def f(x):
        m = np.outer(x, x)
        d = m.diagonal()
        m[1, 1] = 0.0  # seen through d
        return np.sum(d * x)

    check_scalar_program(f, X3, B3)

    def g(x):
        m = np.outer(x, x)
        m.diagonal()[0] = 1.0
        return m

    with pytest.raises(ValueError, match="read-only"):
        g(X3.copy())
    with pytest.raises(ValueError, match="read-only"):
        ft.vmap(g)(B3)


def test_reshape_of_a_transposed_view_is_a_copy_as_in_numpy():
    def f(x):
        m = np.outer(x, x)
        c = m.T.reshape(-1)  # NumPy: a copy (not contiguous)
        c[0] = 100.0
        return np.sum(m) + np.sum(c)

    check_scalar_program(f, X3, B3)


def test_real_and_imag_are_views():
    def f(z):
        w = z * 1.0
        w.real[1] = 3.0
        w.imag[0] += 1.0
        re = w.real
        w[2] = 0.5j
        return w, re

    z = np.array([1.0 + 2.0j, -0.5 + 0.1j, 2.0 - 1.0j])
    zs = np.stack([z, 2 * z])
    got = ft.vmap(f)(zs)
    want = [f(b.copy()) for b in zs]
    close(got[0], [w for w, _ in want])
    close(got[1], [r for _, r in want])
    tz = np.ones(3) * (0.5 - 0.2j)
    p, t = ft.jvp(lambda z: f(z)[0], (z,), (tz,))
    close(t, (f(z + 1e-6 * tz)[0] - f(z - 1e-6 * tz)[0]) / 2e-6, rtol=1e-6)


def test_writes_to_a_view_of_an_argument_leave_the_caller_alone():
    def f(x):
        x[0] = 0.0  # x is the traced argument
        v = x[1:]
        v *= 2.0
        return np.sum(x**3)

    check_scalar_program(f, X3, B3)


# -- buffers made inside the function ---------------------------------------------------


def buffers(x):
    a = np.zeros(3)
    b = np.ones((2, 3))
    c = np.empty(3)
    d = np.full(3, 2.0)
    e = np.zeros_like(x)
    f = np.array([1.0, 2.0, 3.0])
    g = np.copy(f)
    a[1] = x[0]
    b[0] = x * a
    c[:] = x**2
    d[::2] = x[:2]
    e += x
    f[0] = b[0, 1]
    g[2] = np.sum(f * x)
    h = np.arange(3.0)
    h[1] = x[2]
    return np.sum(a + b + c + d + e + f + g + h) + np.sum(np.eye(3)[0] * x)


def test_buffers_made_inside_the_function():
    check_scalar_program(buffers, X3, B3)


def test_a_batched_value_written_into_an_unbatched_buffer_makes_it_batched():
    def f(x):
        buf = np.zeros((2, 3))
        buf[0] = 1.0  # plain: stays unbatched
        buf[1] = x  # batched: the buffer becomes batched
        buf[0, 0] += 5.0
        return buf

    close(ft.vmap(f)(B3), [f(b.copy()) for b in B3])
    close(ft.vmap(ft.jacrev(f))(B3), [numeric_jac(f, b) for b in B3])


def test_results_are_plain_arrays_and_buffers_do_not_escape():
    kept = []

    def f(x):
        buf = np.zeros(3)
        buf[0] = 1.0
        kept.append(buf)
        return buf, x * buf

    out = ft.vmap(f)(B3)
    assert type(out[0]) is np.ndarray and type(out[1]) is np.ndarray
    close(out[0], [[1.0, 0.0, 0.0]] * 3)  # unbatched: broadcast (out_dims=0)
    out = ft.vmap(f, out_dims=(None, 0))(B3)
    assert type(out[0]) is np.ndarray
    close(out[0], [1.0, 0.0, 0.0])
    assert type(ft.grad(lambda x: np.sum(f(x)[1]))(X3)) is np.ndarray
    # a buffer kept past its transform is its array (NOTE [buffers after their transform])
    close(kept[0] + 1.0, [2.0, 1.0, 1.0])
    leaked = []
    ft.grad(lambda x: (leaked.append(x * 2), np.sum(x))[1])(X3)
    with pytest.raises(EscapedTracerError):  # a tracer with a derivative still escapes
        leaked[0] + 1.0


def test_an_untransformed_argument_can_be_copied_and_written():
    def heat_step(u0, d):
        u = u0.copy()  # u0 is not differentiated: a buffer, so .copy() is hooked
        u[1:-1] += d * (u0[2:] - 2 * u0[1:-1] + u0[:-2])
        u0[0] = 0.0  # the caller's array is not modified
        return np.sum(u**2)

    u0 = np.array([0.0, 1.0, 3.0, 2.0, 0.0])
    before = u0.copy()
    g = ft.grad(heat_step, argnums=1)(u0, 0.3)
    eps = 1e-6
    close(g, (heat_step(u0.copy(), 0.3 + eps) - heat_step(u0.copy(), 0.3 - eps)) / (2 * eps))
    np.testing.assert_array_equal(u0, before)
    ds = np.array([0.1, 0.2])
    close(ft.vmap(heat_step, in_dims=(None, 0))(u0, ds), [heat_step(u0.copy(), d) for d in ds])
    np.testing.assert_array_equal(u0, before)


def test_plain_computation_on_buffers_stays_numpy():
    def f(x):
        a = np.linspace(0.0, 1.0, 3)
        s = float(np.sum(a))  # a concrete value: a Python float
        b = np.sort(a)[::-1]
        return x * s + b, f"{s:.2f}"

    out = ft.vmap(lambda x: f(x)[0])(B3)
    close(out, [f(b)[0] for b in B3])


def test_other_threads_see_numpys_own_functions():
    seen = []
    started = threading.Event()
    done = threading.Event()

    def other():
        started.wait()
        seen.append(type(np.zeros(3)))
        done.set()

    def f(x):
        started.set()
        done.wait(5)
        return x * np.zeros(3)

    t = threading.Thread(target=other)
    t.start()
    ft.vmap(f)(B3)
    t.join()
    assert seen == [np.ndarray]
    assert (
        type(np.zeros(3)) is np.ndarray and np.zeros is np.zeros.__wrapped__
        if hasattr(np.zeros, "__wrapped__")
        else True
    )
    assert not hasattr(np.zeros, "__wrapped__")  # nothing patched outside transforms


# -- out=, copyto, fill, put, sort ---------------------------------------------------------


def outs(x):
    buf = np.empty(3)
    np.add(x, 1.0, out=buf)
    y = x * 1.0
    np.exp(y, out=y)
    A = np.outer(x, x)
    C = np.zeros((3, 3))
    np.matmul(A, A, out=C)
    cs = np.zeros(3)
    np.cumsum(x, out=cs)
    cl = x * 1.0
    np.clip(cl, -1.0, 1.0, out=cl)
    d = np.zeros(3)
    np.copyto(d, x)
    e = np.zeros(3)
    np.copyto(e, x**2, where=np.array([True, False, True]))
    f = x * 2.0
    f.fill(0.5)
    f.put([0, 2], x[:2])
    s = x * np.array([3.0, -1.0, 2.0])
    s.sort()
    m = np.multiply(x, 2.0, out=np.zeros(3), where=np.array([True, False, True]))
    return (
        np.sum(buf * y)
        + np.sum(C) * 0.1
        + np.sum(cs * cl)
        + np.sum(d + e + f)
        + s[0] * s[2]
        + np.sum(m)
    )


def test_out_copyto_fill_put_and_sort():
    check_scalar_program(outs, X3, B3)


def test_in_place_numpy_functions():
    def f(x):
        a = np.outer(x, x)
        np.fill_diagonal(a, x)
        np.putmask(a, np.eye(3, k=1) > 0, x[0])
        np.place(a, np.eye(3, k=-1) > 0, x[1:])
        np.put_along_axis(a, np.array([[0], [1], [2]]), x[:, None] * 2, axis=1)
        np.put(a, [8], 1.0)
        return np.sum(a**2)

    check_scalar_program(f, X3, B3)


def test_out_into_an_array_from_outside_is_refused():
    outside = np.zeros(3)

    def f(x):
        np.exp(x, out=outside)
        return x.sum()

    with pytest.raises(
        InPlaceError, match=r"^grad\(f\): numpy.exp\(\.\.\., out=\.\.\.\).*np\.zeros"
    ):
        ft.grad(f)(X3)
    np.testing.assert_array_equal(outside, 0.0)


def test_writing_a_traced_value_into_a_global_names_the_array():
    G = np.zeros(3)

    def f(x):
        G[0:2] = x[:2]
        return x.sum()

    with pytest.raises(InPlaceError, match=r"^vmap\(f, in_dims=0\): a\[i\] = t .* 'G'.*np\.copy"):
        ft.vmap(f)(B3)
    np.testing.assert_array_equal(G, 0.0)


def test_writing_into_an_enclosing_transforms_value_inside_an_inner_one():
    def outer(w):
        w = w * 1.0

        def inner(v):
            y = v * w  # the inner tape records w's value now
            w[0] = 0.0  # w belongs to the enclosing grad
            return np.sum(y * w)

        g = ft.grad(inner)(w * 2.0)
        return np.sum(g * w) + w[1]

    check_scalar_program(outer, X3, B3)

    def copies(w):
        def inner(v):
            c = np.copy(w)
            c[0] = 0.0
            return np.sum(v * c)

        return ft.grad(inner)(w * 1.0).sum()

    check_scalar_program(copies, X3, B3)


# -- control flow, checkpoint, nesting ---------------------------------------------------


def test_loop_bodies_that_write_into_local_buffers():
    def body(i, carry):
        buf = np.zeros(3)
        buf[i % 3] = carry[0]
        buf[(i + 1) % 3] = carry[1] * 0.5
        return carry * 0.9 + buf

    def f(x):
        return np.sum(ft.fori_loop(0, 4, body, x * 1.0) ** 2)

    check_scalar_program(f, X3, B3, hessian=False)

    def step(c, xi):
        out = np.empty(2)
        out[0] = c * xi
        out[1] = c + xi
        c = c * 0.5 + out[0]
        return c, out

    def g(x):
        c, ys = ft.scan(step, x[0], x)
        return c + np.sum(ys**2)

    check_scalar_program(g, X3, B3, hessian=False)


def test_checkpointed_function_that_writes():
    def seg(x):
        y = x * 1.0
        y[1:] += np.sin(y[:-1])
        return y

    def f(x):
        return np.sum(ft.checkpoint(seg)(x) ** 2)

    check_scalar_program(f, X3, B3, hessian=False)


def test_nested_transforms_with_writes_inside_and_outside():
    def f(x):
        def inner(y):
            z = y * 1.0
            z[0] = np.sum(z**2)
            return np.sum(z * x)

        g = ft.grad(inner)(x * 2.0)
        g[1] = 0.0
        return np.sum(g**2)

    check_scalar_program(f, X3, B3, hessian=False)
    close(ft.jacfwd(ft.jacrev(f))(X3), numeric_jac(lambda y: ft.grad(f)(y), X3, h=1e-5), rtol=1e-4)


def test_writing_into_the_output_of_vjp_or_linearize_leaves_their_tape_alone():
    w = np.array([0.1, 0.2, 0.3])
    for nested in (False, True):

        def outer(w):
            y, f_vjp = ft.vjp(np.exp, w * 1.0)
            y += 1.0  # NumPy: an in-place write into the returned array
            (g,) = f_vjp(np.ones(3))
            z, lin = ft.linearize(np.exp, w * 1.0)
            z *= 2.0
            return np.sum(g) + np.sum(y) + np.sum(lin(np.ones(3))) + np.sum(z)

        if nested:
            close(ft.grad(outer)(w), numeric_grad(outer, w))
        else:
            close(outer(w.copy()), 5 * np.sum(np.exp(w)) + 3.0)
