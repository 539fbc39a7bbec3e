"""NumPy idioms in transformed code: augmented assignment, writes into NumPy arrays,
``fnp.at`` and arrays built from Python sequences that hold tracers.

Oracles: the same function on plain arrays (values), JAX (derivatives), Python loops (vmap).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ftransforms.numpy as fnp
from ftransforms import grad, jacfwd, jacrev, jvp, vjp, vmap
from ftransforms.errors import InPlaceError, TracerConversionError
from tests.tolerances import tol

jax.config.update("jax_enable_x64", True)


def close(a, b):
    a = np.asarray(a)
    dt = a.dtype if a.dtype.kind == "f" else np.float64
    np.testing.assert_allclose(a, np.asarray(b), **tol(dt))


# -- 1. augmented assignment mutates the array (every alias sees it) --------------


AUG_OPS = ["+", "-", "*", "/", "**", "@", "//", "%", "&", "|", "^"]


def _aug(op):
    ns: dict = {}
    exec(f"def h(x, y):\n    z = x\n    z {op}= y\n    return z, x\n", ns)
    return ns["h"]


@pytest.mark.parametrize("op", AUG_OPS)
def test_augmented_assignment_mutates_aliases_under_vmap(op):
    h = _aug(op)
    if op in "&|^":
        x, y = np.array([[1, 2, 3], [4, 5, 6]]), np.array([[7, 1, 2], [3, 3, 0]])
    elif op == "@":
        x, y = np.arange(8.0).reshape(2, 2, 2) + 1, np.ones((2, 2, 2)) * 0.5
    else:
        x, y = np.arange(1.0, 7.0).reshape(2, 3), np.full((2, 3), 1.5)
    x_before = x.copy()
    z, x_back = vmap(h)(x, y)
    for i in range(2):
        z_i, x_i = h(x[i].copy(), y[i])
        close(z[i], z_i)
        close(x_back[i], x_i)  # NumPy: z is x, so x sees the in-place update
    np.testing.assert_array_equal(x, x_before)  # the caller's array is not modified


@pytest.mark.parametrize("op", ["+", "-", "*", "/", "**"])
def test_augmented_assignment_derivatives_match_jax(op):
    h = _aug(op)

    def f(x):
        z, _ = h(x, x * 0.5 + 1.0)
        z, _ = h(z, x)
        return z.sum()

    def f_jax(x):
        # NumPy's semantics: z is x, so the first update changes x, and the second
        # combines x with itself.
        z = x
        y = x * 0.5 + 1.0
        z = {"+": z + y, "-": z - y, "*": z * y, "/": z / y, "**": z**y}[op]
        z = {"+": z + z, "-": z - z, "*": z * z, "/": z / z, "**": z**z}[op]
        return z.sum()

    x = np.array([1.2, 0.7, 2.1])
    close(f(x.copy()), f_jax(jnp.asarray(x)))  # the plain-NumPy value
    close(grad(f)(x), jax.grad(f_jax)(jnp.asarray(x)))
    close(jacfwd(jacrev(f))(x), jax.hessian(f_jax)(jnp.asarray(x)))


def test_rnn_style_accumulation_loop():
    w = np.array([[0.5, -0.3], [0.2, 0.8]])

    def loss(x):
        h = np.tanh(x[0])  # a tracer: += rebinds it (into a NumPy array: refused)
        for t in range(1, 3):
            h += w @ x[t]
            h *= 0.9
            h = np.tanh(h)
        return np.sum(h**2)

    def loss_jax(x):
        h = jnp.tanh(x[0])
        for t in range(1, 3):
            h = jnp.tanh((h + jnp.asarray(w) @ x[t]) * 0.9)
        return jnp.sum(h**2)

    x = np.array([[0.1, 0.4], [-0.2, 0.3], [0.5, 0.5]])
    close(loss(x), loss_jax(jnp.asarray(x)))
    close(grad(loss)(x), jax.grad(loss_jax)(jnp.asarray(x)))
    xs = np.stack([x, 2 * x])
    close(vmap(grad(loss))(xs), np.stack([grad(loss)(x), grad(loss)(2 * x)]))


# -- 1. writing a traced value into an array made inside the function works ---------------
# (NOTE [mutation semantics]; a NumPy array from outside the function is refused with the
# fix: tests/test_mutation.py)


def _inplace_error(call):
    """The InPlaceError a call raises: directly, or as the cause NumPy chains under its own
    ValueError when a single element is written (NumPy converts that value with float())."""
    with pytest.raises((InPlaceError, ValueError)) as info:
        call()
    err = info.value
    if not isinstance(err, InPlaceError):
        assert isinstance(err.__cause__, InPlaceError), repr(err)
        err = err.__cause__
    return str(err)


def _write_element(t):
    a = np.zeros(3)
    a[0] = t
    return a


def _write_row(t):
    a = np.zeros((2, 3))
    a[1] = t
    return a


def _add_into(t):
    a = np.zeros(3)
    a += t
    return a


def _ufunc_out(t):
    a = np.zeros(3)
    np.add(a, t, out=a)
    return a


def test_writing_a_traced_value_into_a_buffer_made_inside():
    close(grad(lambda t: (_write_element(t) * 2.0).sum())(1.0), 2.0)
    close(vmap(_write_element)(np.arange(4.0)), [[i, 0, 0] for i in range(4)])
    close(jvp(_write_element, (1.0,), (1.0,))[1], [1.0, 0.0, 0.0])
    rows = np.arange(6.0).reshape(2, 3)
    close(vmap(_write_row)(rows), [_write_row(r) for r in rows])
    out, vjp_fn = vjp(_write_row, np.ones(3))
    close(out, _write_row(np.ones(3)))
    close(vjp_fn(np.arange(6.0).reshape(2, 3))[0], [3.0, 4.0, 5.0])


@pytest.mark.parametrize("f", [_add_into, _ufunc_out])
def test_out_into_a_buffer_made_inside(f):
    rows = np.arange(6.0).reshape(2, 3)
    close(vmap(f)(rows), rows)
    close(jacrev(f)(np.ones(3)), np.eye(3))


def test_writing_into_a_global_array_is_refused_with_the_fix():
    a = np.zeros(3)

    def h(t):
        a[0] = t
        return t

    msg = _inplace_error(lambda: grad(h)(1.0))
    assert msg.startswith("grad(h): ") and "'a'" in msg and "np.copy(a)" in msg, msg
    assert "fnp.at(a)[i].set(t)" in msg, msg
    assert not a.any()


def test_item_assignment_on_a_tracer_writes_it():
    def h(x):
        x[0] = 1.0
        return x

    close(vmap(h)(np.zeros((2, 3))), [[1.0, 0.0, 0.0]] * 2)


def test_conversions_outside_a_write_are_unchanged():
    with pytest.raises(TracerConversionError, match=r"float\(\)"):
        grad(lambda t: float(t))(1.0)
    # another dtype is a cast of the traced value, as NumPy's conversion makes a new array
    g = grad(lambda t: np.asarray(t, dtype=np.float32).sum())(1.0)
    close(g, 1.0)
    # a list holding tracers with a numeric dtype: one traced array of that dtype (round 4)
    close(grad(lambda t: np.asarray([t, 1.0], dtype=np.float32).sum())(1.0), 1.0)
    close(grad(lambda t: np.asarray(t, dtype=float).sum())(1.0), 1.0)  # t itself, as NumPy
    close(grad(lambda t: np.asarray(t).sum())(1.0), 1.0)


def test_writing_a_constant_into_a_numpy_array_still_works():
    def f(t):
        a = np.zeros(3)
        a[1] = 2.0  # a constant: fine
        return (t * a).sum()

    close(grad(f)(np.ones(3)), [0.0, 2.0, 0.0])


# -- 1. fnp.at: functional updates for NumPy arrays and tracers ------------------------


def test_at_on_numpy_arrays_leaves_them_alone():
    a = np.arange(4.0)
    close(fnp.at(a)[1].set(9.0), [0.0, 9.0, 2.0, 3.0])
    close(fnp.at(a)[[0, 0, 2]].add(1.0), [2.0, 1.0, 3.0, 3.0])
    close(fnp.at(a)[1:3].multiply(2.0), [0.0, 2.0, 4.0, 3.0])
    close(fnp.at(a)[2].get(), 2.0)
    close(a, np.arange(4.0))


def test_at_writes_a_traced_value_into_a_numpy_array():
    a = np.arange(4.0)

    def f(t):
        b = fnp.at(a)[1].set(t)
        b = fnp.at(b)[2:].add(t * t)
        return (b * np.array([1.0, 2.0, 3.0, 4.0])).sum()

    def f_jax(t):
        b = jnp.asarray(a).at[1].set(t)
        b = b.at[2:].add(t * t)
        return (b * jnp.array([1.0, 2.0, 3.0, 4.0])).sum()

    close(f(1.5), f_jax(1.5))
    close(grad(f)(1.5), jax.grad(f_jax)(1.5))
    ts = np.array([0.5, 1.0, -2.0])
    close(vmap(f)(ts), [f(t) for t in ts])
    close(vmap(grad(f))(ts), [jax.grad(f_jax)(t) for t in ts])


def test_at_on_a_tracer_is_the_method():
    def f(x):
        return (fnp.at(x)[0].set(x[1] * 3.0) ** 2).sum()

    def f_jax(x):
        return (x.at[0].set(x[1] * 3.0) ** 2).sum()

    x = np.array([1.0, 2.0, 3.0])
    close(grad(f)(x), jax.grad(f_jax)(jnp.asarray(x)))


# -- 2. arrays from Python sequences holding tracers -----------------------------------


@pytest.mark.parametrize("make", [fnp.array, fnp.asarray])
def test_nested_lists_mixing_tracers_scalars_and_arrays(make):
    def f(t):
        return make([[t, 2.0, np.float64(3.0)], [1, t * t, np.sin(t)]])

    def f_np(t):
        return np.array([[t, 2.0, np.float64(3.0)], [1, t * t, np.sin(t)]])

    def f_jax(t):
        return jnp.array([[t, 2.0, 3.0], [1.0, t * t, jnp.sin(t)]])

    close(vmap(f)(np.array([0.5, 1.5])), [f_np(0.5), f_np(1.5)])
    close(jacrev(f)(0.7), jax.jacrev(f_jax)(0.7))
    close(jacfwd(f)(0.7), jax.jacfwd(f_jax)(0.7))


def test_lists_holding_rows_and_tracers_of_two_levels():
    def f(s, x):
        return fnp.array([x, np.array([1.0, 2.0]), (s, s * x[0])])

    def per_example(s, xs):
        return vmap(lambda x: f(s, x).sum())(xs).sum()

    xs = np.array([[0.5, 1.0], [2.0, -1.0], [1.0, 1.0]])
    s = 1.3
    expected = sum(1 + x[0] for x in xs)  # d/ds of s + s * x0 per example
    close(grad(per_example)(s, xs), expected)
    out = vmap(lambda x: f(s, x))(xs)
    close(out, [np.array([x, [1.0, 2.0], [s, s * x[0]]]) for x in xs])


@pytest.mark.parametrize(
    "items, dtype",
    [
        (lambda t: [t, 2], None),
        (lambda t: [t, np.float32(2.0)], None),
        (lambda t: [t.astype(np.float32), np.float32(2.0)], None),
        (lambda t: [t.astype(np.float32), 2.0], None),
        (lambda t: [t, 2.5], np.float32),
        (lambda t: [t, 2.5], int),
        (lambda t: [t > 0, True], None),
        (lambda t: [t, 1j], None),
    ],
)
def test_dtype_follows_numpy(items, dtype):
    xs = np.array([0.5, -1.5])
    out = vmap(lambda t: fnp.array(items(t), dtype=dtype))(xs)
    expected = np.stack([np.array(items(x), dtype=dtype) for x in xs])
    assert out.dtype == expected.dtype, (out.dtype, expected.dtype)
    close(out, expected)


def test_ragged_lists_raise_like_numpy():
    with pytest.raises(ValueError):
        vmap(lambda t: fnp.array([t, np.zeros(3)]))(np.ones((2, 2)))


@pytest.mark.parametrize(
    "np_f, jnp_f",
    [
        (
            lambda a: np.stack([a[0], 2 * a[1], 1.0]).sum(),
            lambda a: jnp.stack([a[0], 2 * a[1], 1.0]).sum(),
        ),
        (
            lambda a: np.concatenate([a, [1.0, a[0]]]).prod(),
            lambda a: jnp.concatenate([a, jnp.array([1.0, a[0]])]).prod(),
        ),
        (lambda a: np.hstack([a, a * a]).sum(), lambda a: jnp.hstack([a, a * a]).sum()),
        (
            lambda a: np.vstack([a, [1.0, 2.0]]).std(),
            lambda a: jnp.vstack([a, jnp.array([1.0, 2.0])]).std(),
        ),
        (
            lambda a: np.mean(fnp.array([a[0], a[1] ** 2])),
            lambda a: jnp.mean(jnp.array([a[0], a[1] ** 2])),
        ),
        (
            lambda a: np.max(fnp.array([a[0], 2.0 * a[1]])),
            lambda a: jnp.max(jnp.array([a[0], 2.0 * a[1]])),
        ),
        (
            lambda a: np.dot(fnp.array([a[0], 1.0]), [2.0, a[1]]),
            lambda a: jnp.dot(jnp.array([a[0], 1.0]), jnp.array([2.0, a[1]])),
        ),
    ],
)
def test_numpy_functions_given_lists(np_f, jnp_f):
    a = np.array([0.7, -1.2])
    close(np_f(a), jnp_f(jnp.asarray(a)))
    close(grad(np_f)(a), jax.grad(jnp_f)(jnp.asarray(a)))
    close(vmap(grad(np_f))(np.stack([a, 2 * a])), [grad(np_f)(a), grad(np_f)(2 * a)])


@pytest.mark.parametrize(
    "f, derivative",
    [
        (lambda t: np.array([t, 1.0]).sum(), 1.0),
        (lambda t: np.asarray([t, 1.0]).sum(), 1.0),
        (lambda t: np.mean([t, 2.0 * t]), 1.5),
        (lambda t: np.sum((t, 1.0)), 1.0),
    ],
)
def test_numpy_conversions_of_lists_holding_tracers(f, derivative):
    # NumPy converts a list element by element (__array__ on each tracer): an object array
    # of tracers, computed on by NumPy's object loops (tests/test_object_arrays.py).
    close(grad(f)(1.0), derivative)
    # with a numeric dtype= the list is one traced array of that dtype (refused before
    # round 4: tests/test_object_arrays.py)
    close(grad(lambda t: np.array([t, 1.0], dtype=float).sum())(1.0), 1.0)


# -- 3. ndarray protocol members that published code uses -------------------------------
# Found by tests/test_published_programs.py's probes; the members are in
# ftransforms/numpy/array_methods.py (class ArrayMethods).


def test_deepcopy_of_parameters_keeps_them_traced():
    import copy

    def loss(params):  # MAML / optimizer code: "don't mutate the caller's params"
        fast = copy.deepcopy(params)
        return np.sum(fast["w"] ** 2) + fast["b"]

    params = {"w": np.array([1.0, -2.0]), "b": np.array(0.5)}
    g = grad(loss)(params)
    close(g["w"], [2.0, -4.0])
    close(g["b"], 1.0)
    close(vmap(lambda w: copy.deepcopy(w).sum())(np.ones((2, 3))), [3.0, 3.0])


def test_ndarray_methods_round_trace_compress_divmod():
    x = np.array([0.34, -1.26, 0.81, 2.0])

    def f(t):
        q, r = divmod(t, 0.5)
        m = np.outer(t, t)
        return (t.round(1) * t).sum() + m.trace() + t.compress([1, 0, 1, 1]).sum() + r.sum()

    def f_jax(t):
        q, r = jnp.divmod(t, 0.5)
        m = jnp.outer(t, t)
        return (t.round(1) * t).sum() + m.trace() + t[jnp.array([0, 2, 3])].sum() + r.sum()

    close(grad(f)(x), jax.grad(f_jax)(x))
    close(grad(lambda t: round(t[0], 1) * t[1])(x), [0.0, 0.3, 0.0, 0.0])


def test_in_place_ndarray_methods_write_into_the_tracer():
    w = np.array([3.0, 1.0, 2.0])
    close(grad(lambda t: (t.sort(), (t * w).sum())[1])(np.array([1.0, 3.0, 2.0])), [3.0, 2.0, 1.0])
    close(grad(lambda t: (t.fill(0.0), t.sum())[1])(np.ones(3)), [0.0, 0.0, 0.0])
    close(grad(lambda t: (t.flat.__setitem__(0, 1.0), t.sum())[1])(np.ones(3)), [0.0, 1.0, 1.0])


def test_flat_iterates_indexes_and_copies_in_c_order():
    x = np.arange(1.0, 7.0).reshape(2, 3)

    def f(t):
        return sum(v**2 for v in t.flat) + t.flat[4] * t.flat[1:3].sum() + len(t.flat)

    def f_jax(t):
        r = t.reshape(-1)
        return jnp.sum(r**2) + r[4] * r[1:3].sum() + r.size

    close(f(x), f_jax(x))
    close(grad(f)(x), jax.grad(f_jax)(x))
    xs = np.stack([x, -x, 2 * x])
    close(
        vmap(lambda t: t.flat[-1] + t.flat.copy()[::2].sum())(xs),
        [r.flat[-1] + r.ravel()[::2].sum() for r in xs],
    )
    close(jacfwd(lambda t: t.flat.copy())(x), np.eye(6).reshape(6, 2, 3))


# -- np.vectorize (otypes=, signature=) and np.frompyfunc on tracers ----------------------


def _huber(r, delta=1.0):
    return 0.5 * r * r if abs(r) <= delta else delta * (abs(r) - 0.5 * delta)


@pytest.mark.parametrize(
    "make",
    [
        lambda: np.vectorize(lambda a, b: a * b + np.sin(a), otypes=[float]),
        lambda: np.vectorize(lambda a, b: a * b + np.sin(a)),
        lambda: np.frompyfunc(lambda a, b: a * b + np.sin(a), 2, 1),
    ],
)
def test_vectorize_and_frompyfunc_compute_on_tracers(make):
    f = make()
    x = np.array([[0.3, -1.2, 0.8], [1.5, -0.4, 0.9]])

    def loss(v):
        return np.sum(f(v, np.array([2.0, -1.0, 0.5])) ** 2)

    def loss_jax(v):
        return jnp.sum((v * jnp.array([2.0, -1.0, 0.5]) + jnp.sin(v)) ** 2)

    close(grad(loss)(x), jax.grad(loss_jax)(x))
    xs = np.stack([x, 2 * x])
    got = vmap(lambda v: f(v, 3.0))(xs)
    assert np.asarray(got).dtype == np.float64
    close(got, np.stack([np.asarray(f(r, 3.0), dtype=float) for r in xs]))
    close(jacfwd(lambda v: f(v, 3.0))(x[0]), np.diag(3.0 + np.cos(x[0])))


def test_vectorize_otypes_branching_python_function():
    huber = np.vectorize(_huber, otypes=[np.float64])
    r = np.array([-2.0, -0.5, 0.3, 1.7])
    close(grad(lambda v: np.sum(huber(v)))(r), np.clip(r, -1.0, 1.0))
    out = jvp(huber, (r,), (np.ones(4),))[1]
    assert out.dtype == np.float64
    close(out, np.clip(r, -1.0, 1.0))


def test_vectorize_with_signature():
    norm_sq = np.vectorize(lambda row: np.sum(row**2), signature="(n)->()")
    outer = np.vectorize(lambda u, v: np.outer(u, v), signature="(n),(m)->(n,m)")
    two = np.vectorize(lambda u: (u.sum(), u * 2), signature="(n)->(),(n)")
    x = np.array([[0.3, -1.2, 0.8], [1.5, -0.4, 0.9]])
    close(grad(lambda v: np.sum(norm_sq(v)))(x), 2 * x)
    close(vmap(norm_sq)(np.stack([x, -x])), np.stack([norm_sq(x), norm_sq(-x)]))
    close(jacrev(lambda v: outer(v, x[1]))(x[0]), jax.jacrev(lambda v: jnp.outer(v, x[1]))(x[0]))
    s, d = vmap(two)(np.stack([x, 3 * x]))
    close(s, np.stack([x.sum(1), 3 * x.sum(1)]))
    close(d, np.stack([2 * x, 6 * x]))
    # plain NumPy calls are NumPy's own
    assert norm_sq(x).dtype == np.float64 and norm_sq(x).shape == (2,)
    with pytest.raises(TypeError, match="wrong number of positional arguments"):
        grad(lambda v: np.sum(outer(v)))(x[0])
