"""Plain NumPy building arrays from tracers: ``np.array([x[0] ** 2, x[1], 3.0])``.

NumPy has no protocol that hands ``np.array(list)`` to us, so such a call makes a NumPy
object array whose elements are 0-d tracers; NumPy's object loops compute on it through
the tracers' operators and methods, and every transform turns such arrays back into
tracers at its boundaries (inputs and outputs), so they are never taken for constants.

Oracles: JAX on ``jnp.array`` of the same list (derivatives), float64 central finite
differences, Python loops (vmap), the same function on plain floats (values).
"""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.linalg
import scipy.special
import scipy.stats

import ftransforms as ft
import ftransforms.numpy as fnp
from ftransforms import (
    custom_jvp,
    grad,
    hessian,
    jacfwd,
    jacrev,
    jit,
    jvp,
    linearize,
    vjp,
    vmap,
)
from ftransforms.core.stack import current_stack
from ftransforms.core.tracer import Tracer
from ftransforms.errors import (
    BatchedControlFlowError,
    InPlaceError,
    ObjectArrayWarning,
    PerformanceWarning,
    TracerConversionError,
)
from tests.tolerances import fd_tol, tol

jax.config.update("jax_enable_x64", True)

X = np.array([0.7, -1.3, 0.4])


def close(a, b, **kw):
    a = np.asarray(a)
    assert a.dtype != object, "an object array escaped the transform"
    np.testing.assert_allclose(a, np.asarray(b), **(kw or tol(np.float64)))


def fd_grad(f, x, h=1e-3):
    """4th-order central differences of a scalar ``f`` at ``x`` (float64)."""
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = h
        g.flat[i] = (-f(x + 2 * e) + 8 * f(x + e) - 8 * f(x - e) + f(x - 2 * e)) / (12 * h)
    return g


# Each case: a function written with plain NumPy, and the same with jax.numpy.  Scalar out.
SCALAR_CASES = {
    "sum_of_list": (
        lambda x: np.sum(np.array([x[0] ** 2, x[1], 3.0])),
        lambda x: jnp.sum(jnp.array([x[0] ** 2, x[1], 3.0])),
    ),
    "method_sum_nested": (
        lambda x: np.array([[x[0], 1.0], [x[1] * x[2], x[0] ** 3]]).sum(),
        lambda x: jnp.array([[x[0], 1.0], [x[1] * x[2], x[0] ** 3]]).sum(),
    ),
    "asarray_tuple_prod": (
        lambda x: np.prod(np.asarray((x[0], x[1] + 2.0, 1.5))),
        lambda x: jnp.prod(jnp.asarray((x[0], x[1] + 2.0, 1.5))),
    ),
    "mean_of_list": (
        lambda x: np.mean([x[0] * x[1], x[2], 2.0]),
        lambda x: jnp.mean(jnp.array([x[0] * x[1], x[2], 2.0])),
    ),
    "sum_of_tuple": (
        lambda x: np.sum((x[0], np.sin(x[1]), 1.0)),
        lambda x: jnp.sum(jnp.array([x[0], jnp.sin(x[1]), 1.0])),
    ),
    "std_of_list": (
        lambda x: np.std([x[0], x[1] ** 2, 0.5]),
        lambda x: jnp.std(jnp.array([x[0], x[1] ** 2, 0.5])),
    ),
    "var_of_array": (
        lambda x: np.var(np.array([x[0] ** 2, x[1], 3.0])),
        lambda x: jnp.var(jnp.array([x[0] ** 2, x[1], 3.0])),
    ),
    "max_of_list": (
        lambda x: np.max([x[0] * 2.0, x[1], x[2] ** 2]),
        lambda x: jnp.max(jnp.array([x[0] * 2.0, x[1], x[2] ** 2])),
    ),
    "dot_with_weights": (
        lambda x: np.dot(np.array([x[0] ** 2, x[1], 3.0]), W).sum() ** 2,
        lambda x: (jnp.dot(jnp.array([x[0] ** 2, x[1], 3.0]), W).sum()) ** 2,
    ),
    "matmul_operator": (
        lambda x: np.array([x[1], x[0] * x[2], 1.0]) @ W @ np.array([1.0, x[0]]),
        lambda x: jnp.array([x[1], x[0] * x[2], 1.0]) @ W @ jnp.array([1.0, x[0]]),
    ),
    "exp_of_tracers": (
        lambda x: np.exp(np.array([x[0] * x[1], x[2]])).sum(),
        lambda x: jnp.exp(jnp.array([x[0] * x[1], x[2]])).sum(),
    ),
    "ufunc_methods": (
        lambda x: np.sum(np.tanh(np.log1p(np.sqrt(np.array([x[0] ** 2, x[1] ** 2 + 1.0]))))),
        lambda x: jnp.sum(jnp.tanh(jnp.log1p(jnp.sqrt(jnp.array([x[0] ** 2, x[1] ** 2 + 1.0]))))),
    ),
    "object_array_meets_tracer": (
        lambda x: (np.array([x[0], 2.0, x[1]]) * x + x * np.array([1.0, x[2], x[0]])).sum(),
        lambda x: (jnp.array([x[0], 2.0, x[1]]) * x + x * jnp.array([1.0, x[2], x[0]])).sum(),
    ),
    "vector_tracers_stacked": (
        lambda x: np.sum(np.array([x, x**2]) * np.array([[1.0], [2.0]])),
        lambda x: jnp.sum(jnp.array([x, x**2]) * jnp.array([[1.0], [2.0]])),
    ),
    "abs_negative_power": (
        lambda x: np.sum(np.abs(-np.array([x[0], x[1] * 3.0])) ** 3),
        lambda x: jnp.sum(jnp.abs(-jnp.array([x[0], x[1] * 3.0])) ** 3),
    ),
}
W = np.array([[0.5, -1.0], [2.0, 0.3], [-0.7, 1.1]])


@pytest.fixture(autouse=True)
def _no_object_array_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error", ObjectArrayWarning)
        yield


#: The cases whose Hessian is compared with JAX's (the others with finite differences of
#: the gradient: JAX's compilation is most of this file's time).
HESSIAN_VS_JAX = {"var_of_array", "ufunc_methods", "dot_with_weights", "std_of_list"}


@pytest.mark.parametrize("name", SCALAR_CASES)
def test_scalar_functions_match_jax(name):
    f, f_jax = SCALAR_CASES[name]
    xj = jnp.asarray(X)
    value, g_jax = jax.jit(jax.value_and_grad(f_jax))(xj)
    close(f(X), value)
    g = grad(f)(X)
    close(g, g_jax)
    close(g, fd_grad(f, X), **fd_tol(np.float64))
    out, pullback = vjp(f, X)
    close(out, value)
    close(pullback(np.float64(2.0))[0], 2.0 * g)
    v = np.array([0.3, -0.2, 1.1])
    close(jvp(f, (X,), (v,))[1], g @ v)
    close(jacrev(f)(X), g)
    close(jacfwd(f)(X), g)
    if name in HESSIAN_VS_JAX:
        close(hessian(f)(X), jax.jit(jax.hessian(f_jax))(xj))
    else:
        fd_hess = np.stack([fd_grad(lambda x, i=i: grad(f)(x)[i], X) for i in range(X.size)])
        close(hessian(f)(X), fd_hess, **fd_tol(np.float64))


@pytest.mark.parametrize(
    "name", ["sum_of_list", "mean_of_list", "dot_with_weights", "exp_of_tracers"]
)
def test_per_example_gradients_vmap_of_grad(name):
    f, f_jax = SCALAR_CASES[name]
    xs = np.stack([X, 2.0 * X, -X])
    close(vmap(grad(f))(xs), jax.jit(jax.vmap(jax.grad(f_jax)))(xs))
    close(vmap(f)(xs), [f(x) for x in xs])


@pytest.mark.parametrize("name", ["var_of_array", "ufunc_methods"])
def test_grad_of_vmap_and_jit(name):
    f, f_jax = SCALAR_CASES[name]
    xs = np.stack([X, 0.5 * X])
    close(
        grad(lambda a: vmap(f)(a).sum())(xs),
        jax.jit(jax.grad(lambda a: jax.vmap(f_jax)(a).sum()))(xs),
    )
    g_jax = jax.jit(jax.grad(f_jax))(jnp.asarray(X))
    close(grad(jit(f))(X), g_jax)
    close(jit(grad(f))(X), g_jax)


def vec(x):
    return np.array([x[0] ** 2, x[1], 3.0])


def vec_jax(x):
    return jnp.array([x[0] ** 2, x[1], 3.0])


def test_a_function_returning_np_array_is_no_constant():
    xj = jnp.asarray(X)
    jr = jacrev(vec)(X)
    assert type(jr) is np.ndarray and jr.dtype == np.float64
    jac_jax = jax.jit(jax.jacrev(vec_jax))(xj)
    close(jr, jac_jax)
    close(jacfwd(vec)(X), jac_jax)
    expected_hessian = np.zeros((3, 3, 3))
    expected_hessian[0, 0, 0] = 2.0
    close(hessian(vec)(X), expected_hessian)
    xs = np.stack([X, 3.0 * X])
    out = vmap(vec)(xs)
    assert out.shape == (2, 3) and out.dtype == np.float64
    close(out, [vec(x) for x in xs])
    out, tangent = jvp(vec, (X,), (np.ones(3),))
    close(out, vec(X))
    close(tangent, [2 * X[0], 1.0, 0.0])
    out, pullback = vjp(vec, X)
    close(pullback(np.array([1.0, 2.0, 3.0]))[0], [2 * X[0], 2.0, 0.0])
    out, lin = linearize(vec, X)
    close(lin(np.ones(3)), [2 * X[0], 1.0, 0.0])
    close(jit(vec)(X), vec(X))
    close(jacrev(jit(vec))(X), jac_jax)


def test_outputs_in_pytrees_and_aux():
    def f(x):
        return {"a": np.array([x[0], 1.0]), "b": (x[1] * 2.0, np.asarray(x[2]))}

    jac = jacrev(f)(X)
    close(jac["a"], [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    close(jac["b"][0], [0.0, 2.0, 0.0])
    close(jac["b"][1], [0.0, 0.0, 1.0])

    def loss(x):
        v = np.array([x[0] * x[1], x[2]])
        return np.sum(v**2), v  # aux: an object array of tracers

    g, aux = grad(loss, has_aux=True)(X)
    assert aux.dtype == np.float64
    close(aux, [X[0] * X[1], X[2]])
    close(
        g, jax.jit(jax.grad(lambda x: jnp.sum(jnp.array([x[0] * x[1], x[2]]) ** 2)))(jnp.asarray(X))
    )


def test_vector_tracers_give_a_2d_array():
    seen = {}

    def f(x):
        a = np.array([x, 2.0 * x])
        seen["shape"] = a.shape
        return a

    out = vmap(f)(np.ones((4, 3)))
    assert seen["shape"] == (2, 3)  # never a (2,) array of vectors
    assert out.shape == (4, 2, 3)
    close(jacrev(f)(X), jax.jit(jax.jacrev(lambda x: jnp.array([x, 2.0 * x])))(jnp.asarray(X)))


def test_mixed_levels_grad_inside_vmap_and_back():
    # Elements of two transforms in one list: the outer vmap's and the inner grad's.
    def per_example(s, x):
        return grad(lambda t: np.sum(np.array([t * s, s**2, np.sin(t)])))(x)

    xs = np.array([0.3, -0.8, 1.5])
    s = 1.7
    close(vmap(per_example, in_dims=(None, 0))(s, xs), s + np.cos(xs))

    # The outer transform's object array passed into an inner transform as its input.
    def square(r):
        assert r.dtype == np.float64, r.dtype
        return r**2

    out = grad(lambda x: vmap(square)(np.array([x[0], x[1] * x[2]])).sum())(X)
    close(out, [2 * X[0], 2 * X[1] * X[2] ** 2, 2 * X[2] * X[1] ** 2])
    inner = grad(lambda x: grad(lambda v: np.sum(v**3))(np.array([x[0], x[1]])).sum())(X)
    close(inner, [6 * X[0], 6 * X[1], 0.0])
    _, tangent = jvp(lambda x: jvp(square, (np.array([x[0], 1.0]),), (np.ones(2),))[1], (X,), (X,))
    close(tangent, [2 * X[0], 0.0])


def test_custom_jvp_sees_arrays():
    @custom_jvp
    def f(x):
        return np.array([x[0] ** 2, x[1]])

    @f.defjvp
    def _(primals, tangents):
        (x,), (t,) = primals, tangents
        return f(x), np.array([2 * x[0] * t[0], t[1]])

    close(jacfwd(f)(X), [[2 * X[0], 0, 0], [0, 1, 0]])
    close(jacrev(f)(X), [[2 * X[0], 0, 0], [0, 1, 0]])


def test_elements_are_zero_d_tracers_and_results_tracers():
    def f(x):
        # (without dtype=object, a list of numbers and tracers is one traced array, as
        # NumPy's array of numbers: tests/test_numpy_users_round12.py)
        a = np.array([x[0], 1.0], dtype=object)
        assert a.dtype == object and isinstance(a[0], Tracer) and a[0].shape == ()
        assert a[1] == 1.0 and type(a[1]) is float
        s = np.sum(a)
        assert isinstance(s, Tracer)
        return s

    close(grad(f)(X), [1.0, 0.0, 0.0])


def test_fnp_array_and_asarray_take_object_arrays():
    def f(x):
        a = fnp.asarray(np.array([x[0], 2.0]))
        b = fnp.array(np.array([[x[1]], [x[2]]]))
        assert isinstance(a, Tracer) and isinstance(b, Tracer)
        return a.sum() * b.sum()

    close(grad(f)(X), [X[1] + X[2], X[0] + 2.0, X[0] + 2.0])


def test_large_tracers_warn_once_per_call_site():
    def f(x):
        return np.sum(np.array([x], dtype=object))  # an object array, as NumPy makes

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default", ObjectArrayWarning)
        close(grad(f)(np.ones(65)), np.ones(65))
        grad(f)(np.ones(65))
    assert len(caught) == 1, [str(w.message) for w in caught]
    assert issubclass(caught[0].category, RuntimeWarning)
    assert caught[0].filename == __file__
    assert "fnp.asarray" in str(caught[0].message)
    grad(f)(np.ones(64))  # 64 elements: no warning (the fixture turns warnings into errors)


# -- what stays refused, and what NumPy cannot do with object arrays --------------------


@pytest.mark.parametrize(
    ("f", "dtype", "gradient"),
    [
        (lambda x: np.array([x[0], 1.0], dtype=float), np.float64, [1.0, 0.0, 0.0]),
        # (np.asarray(x, dtype=np.float32) of a traced array x is its cast, as in NumPy:
        # tests/test_probe_round4_dtypes.py)
        (lambda x: np.asarray([x[0], x[1]], dtype=np.float32), np.float32, [1.0, 1.0, 0.0]),
        (lambda x: np.array([[x[0]], [x[1]]], dtype=np.float64), np.float64, [1.0, 1.0, 0.0]),
    ],
)
def test_numeric_dtype_makes_one_traced_array(f, dtype, gradient):
    # a numeric dtype asks for a numeric array: a list holding tracers becomes one traced
    # array of that dtype (refused with TracerConversionError before round 4)
    def check(x):
        out = f(x)
        assert isinstance(out, Tracer) and out.dtype == dtype
        return out.sum()

    close(grad(check)(X), gradient)
    close(vmap(f)(np.stack([X, X * 2])), np.stack([f(X), f(X * 2)]))


def test_astype_of_an_object_array_is_refused_by_numpy():
    # NumPy calls float() on each element and wraps what that raises in its own
    # ValueError; the transform raises the wrapped error, which names the fix.
    with pytest.raises(TracerConversionError, match=r"fnp\.array\(\[\.\.\.\], dtype=\.\.\.\)"):
        grad(lambda x: np.array([x[0], 1.0], dtype=object).astype(float).sum())(X)


def test_writes_into_numpy_arrays_made_inside_hold_traced_values():
    # NOTE [mutation semantics]: np.zeros inside a transformed function makes a buffer.
    def f(x):
        a = np.zeros(3)
        a[0] = x[0]
        return a

    close(grad(lambda x: f(x).sum())(X), [1.0, 0.0, 0.0])

    def g(x):
        a = np.zeros((2, 3))
        a[1] = x
        return a

    close(vmap(g)(np.stack([X, X])), [g(X), g(X)])

    outside = np.zeros(3)

    def h(x):
        outside[0] = x[0]  # a NumPy array from outside: refused, named
        return x

    with pytest.raises((InPlaceError, ValueError)) as e:
        grad(lambda x: h(x).sum())(X)
    err = e.value if isinstance(e.value, InPlaceError) else e.value.__cause__
    assert isinstance(err, InPlaceError), repr(e.value)
    assert "'outside'" in str(err) and "fnp.at(a)[i].set(t)" in str(err)


def test_numpy_comparisons_of_batched_elements_name_fnp_array():
    # np.max of an object array compares elements with bool(): fine under grad, impossible
    # for a batched value.
    with pytest.raises(BatchedControlFlowError, match=r"fnp\.array\(\[\.\.\.\]\)"):
        vmap(lambda x: np.max(np.array([x[0], x[1]], dtype=object)), split=False)(np.stack([X, -X]))
    with pytest.raises(BatchedControlFlowError, match=r"fnp\.array\(\[\.\.\.\]\)"):
        vmap(lambda x: np.sort(np.array([x[0], x[1]], dtype=object)), split=False)(
            np.stack([X, -X])
        )
    # by default the rows that compare differently run as groups: the per-row results
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PerformanceWarning)
        got = vmap(lambda x: np.max(np.array([x[0], x[1]], dtype=object)))(np.stack([X, -X]))
    close(got, [max(X[0], X[1]), max(-X[0], -X[1])])
    close(vmap(lambda x: np.max(fnp.array([x[0], x[1]])))(np.stack([X, -X])), [X[0], -X[1]])


def test_named_ufuncs_need_every_element_traced():
    # NumPy applies np.exp to an object array by calling .exp() on each element: a Python
    # float has none (NumPy's own TypeError).  fnp.array([...]) is the fix.
    with pytest.raises(TypeError, match="no callable exp method"):
        grad(lambda x: np.exp(np.array([x[0], 1.0], dtype=object)).sum())(X)
    # without dtype=object the list of numbers and tracers is one traced array
    close(grad(lambda x: np.exp(np.array([x[0], 1.0])).sum())(X), [np.exp(X[0]), 0.0, 0.0])
    close(grad(lambda x: np.exp(fnp.array([x[0], 1.0])).sum())(X), [np.exp(X[0]), 0.0, 0.0])


def test_ufunc_methods_do_not_shadow_existing_attributes():
    assert Tracer.conjugate is Tracer.conj
    assert Tracer.sum.__qualname__.startswith("ArrayMethods")
    for name in ("exp", "log", "sqrt", "sin", "cos", "tanh", "arctan", "log1p", "expm1"):
        assert callable(getattr(Tracer, name)), name


def test_escaped_tracer_in_an_object_array():
    leaked = []

    def f(x):
        leaked.append(np.array([x[0], 1.0], dtype=object))
        return x.sum()

    grad(f)(X)
    with pytest.raises(Exception, match="escaped tracer"):
        fnp.asarray(leaked[0])


def test_a_traced_index_into_a_numpy_array_names_the_fix():
    a = np.arange(5.0)
    with pytest.raises(TracerConversionError, match=r"^vmap\(<lambda>, in_dims=0\): a\[t\]") as e:
        vmap(lambda i: a[i], split=False)(np.array([[1, 2], [0, 3]]))
    assert "fnp.getitem(a, t)" in str(e.value)
    with warnings.catch_warnings():  # split by default: one group per distinct index row
        warnings.simplefilter("ignore", PerformanceWarning)
        close(vmap(lambda i: a[i])(np.array([[1, 2], [0, 3]])), [[1.0, 2.0], [0.0, 3.0]])
    close(vmap(lambda i: fnp.getitem(a, i))(np.array([[1, 2], [0, 3]])), [[1.0, 2.0], [0.0, 3.0]])


def test_ndarray_dot_of_a_tracer_is_an_object_array_turned_back():
    w = np.array([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]])
    close(vmap(lambda v: w.dot(v))(np.stack([X, 2 * X])), [w @ X, w @ (2 * X)])
    close(jacrev(lambda v: w.dot(v))(X), w)


# An object array reaching any operation beside a tracer, or any fnp function, is turned
# into a traced array first (never a constant: a zero derivative, an unbatched value).
MEETS_CASES = {
    "fnp.where": (
        lambda x: fnp.where(x > 0, np.array([x[0], 1.0, x[2]]), x).sum(),
        lambda x: jnp.where(x > 0, jnp.array([x[0], 1.0, x[2]]), x).sum(),
    ),
    "np.where": (
        lambda x: np.where(x > 0, np.array([x[0], 1.0, x[2]]), x).sum(),
        lambda x: jnp.where(x > 0, jnp.array([x[0], 1.0, x[2]]), x).sum(),
    ),
    "np.concatenate": (
        lambda x: np.prod(np.concatenate([np.array([x[0], 1.5]), x])),
        lambda x: jnp.prod(jnp.concatenate([jnp.array([x[0], 1.5]), x])),
    ),
    "np.stack": (
        lambda x: (np.stack([np.array([x[0], 1.0, x[1]]), x]) ** 2).sum(),
        lambda x: (jnp.stack([jnp.array([x[0], 1.0, x[1]]), x]) ** 2).sum(),
    ),
    "fnp.einsum": (
        lambda x: fnp.einsum("i,i", np.array([x[0], 1.0, x[1] * x[2]]), x),
        lambda x: jnp.einsum("i,i", jnp.array([x[0], 1.0, x[1] * x[2]]), x),
    ),
    "fnp.mean": (
        lambda x: fnp.mean(np.array([x[0], x[1] ** 2])),
        lambda x: jnp.mean(jnp.array([x[0], x[1] ** 2])),
    ),
    "fnp.linalg.norm": (
        lambda x: fnp.linalg.norm(np.array([x[0], x[1] ** 2])),
        lambda x: jnp.linalg.norm(jnp.array([x[0], x[1] ** 2])),
    ),
    "np.linalg.solve": (
        lambda x: np.linalg.solve(np.array([[x[0], 1.0, 0.0], [0.0, 2.0, x[1]], W[:, 0]]), x).sum(),
        lambda x: jnp.linalg.solve(
            jnp.array([[x[0], 1.0, 0.0], [0.0, 2.0, x[1]], jnp.asarray(W[:, 0])]), x
        ).sum(),
    ),
}


@pytest.mark.parametrize("name", MEETS_CASES)
def test_object_arrays_meeting_fnp_and_numpy_functions(name):
    f, f_jax = MEETS_CASES[name]
    xs = np.stack([X, 1.5 * X])
    g_jax = jax.jit(jax.vmap(jax.grad(f_jax)))(xs)
    close(grad(f)(X), g_jax[0])
    close(vmap(grad(f))(xs), g_jax)
    close(vmap(f)(xs), [f(x) for x in xs])


def test_jit_records_and_replays_object_array_code():
    f, _ = SCALAR_CASES["var_of_array"]
    jf = jit(lambda x: (vec(x), f(x)))
    for x in (X, 2.0 * X, -X):  # the first call records, the others replay
        out, value = jf(x)
        close(out, vec(x))
        close(value, f(x))
    assert len(jf.cache) == 1


# SciPy's function objects, bound before any transform ran (``from scipy.special import
# logsumexp``): NOTE [SciPy's function objects bound before the first transform] redirects
# them to the counterpart; their ``__wrapped__`` is SciPy's own code, read inside the
# transform (once the redirection is installed), which meets the tracer itself.
_BOUND_LOGSUMEXP = scipy.special.logsumexp
_BOUND_NORM_LOGPDF = scipy.stats.norm.logpdf
_BOUND_SOLVE = scipy.linalg.solve


def _scipy_code(bound):
    """SciPy's own code behind a (possibly redirected) function or bound method."""
    if hasattr(bound, "__self__"):
        return lambda *a: getattr(bound.__func__, "__wrapped__", bound.__func__)(bound.__self__, *a)
    return getattr(bound, "__wrapped__", bound)


@pytest.mark.parametrize(
    "call, suggestion",
    [
        (lambda v: _scipy_code(_BOUND_LOGSUMEXP)(v), "ftransforms.scipy.special.logsumexp"),
        (lambda v: _scipy_code(_BOUND_NORM_LOGPDF)(v).sum(), "ftransforms.scipy.stats.norm.logpdf"),
        (lambda v: _scipy_code(_BOUND_SOLVE)(np.eye(3), v).sum(), "ftransforms.scipy.linalg.solve"),
    ],
)
def test_scipy_python_functions_name_their_ftransforms_counterpart(call, suggestion):
    """SciPy's Python functions convert their inputs with numpy.asarray: instead of an
    object array that fails later inside SciPy with NumPy's error, the conversion says
    which ftransforms.scipy function to call (SciPy's ufuncs dispatch and work).  Called
    through SciPy's modules, the same names are answered by that function
    (tests/test_scipy_own_names.py); these are SciPy's function objects themselves."""
    x = np.array([0.1, 0.5, -0.3])
    with pytest.raises(TracerConversionError, match=suggestion.replace(".", r"\.")):
        ft.grad(call)(x)
    assert current_stack() == ()
    # the names bound before the first transform are answered by the counterpart
    np.testing.assert_allclose(ft.grad(lambda v: _BOUND_LOGSUMEXP(v))(x), scipy.special.softmax(x))
    np.testing.assert_allclose(ft.grad(lambda v: _BOUND_NORM_LOGPDF(v).sum())(x), -x)
    np.testing.assert_allclose(
        ft.grad(lambda v: _BOUND_SOLVE(2 * np.eye(3), v).sum())(x), 0.5 * np.ones(3)
    )
    np.testing.assert_allclose(
        ft.grad(lambda v: scipy.special.expit(v).sum())(x),
        scipy.special.expit(x) * (1 - scipy.special.expit(x)),
    )
