"""NumPy ufunc calls on tracers with keywords (``casting=``, ``dtype=``, ``signature=``,
``out=`` including tuples and the two-output ufuncs, ``where=``, ``order=``, ``subok=``),
and the ufuncs ``divmod``/``modf``/``frexp``/``ldexp``/``fmod``/``nextafter`` called through
plain ``numpy`` under the transforms (NOTE [ufunc keywords on tracers] in
``ftransforms/numpy/protocol.py``, NOTE [elementwise ops with two outputs] in
``ftransforms/ops/elementwise.py``).

Oracles: NumPy itself (values, dtypes, and which calls it refuses), a Python loop over
the rows for ``vmap`` (``check_vmap``), float64 central finite differences and the same
function spelled without keywords for derivatives, JAX (x64) for the derivative
conventions, and the eager function for ``jit`` replays.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ftransforms as ft
import ftransforms.numpy as fnp
from ftransforms.core.stack import current_stack
from ftransforms.errors import UFuncTypeError, UnsupportedOperationError
from ftransforms.pytree import tree_flatten
from ftransforms.testing import check_jvp, check_vmap
from tests.test_jit_ops import replays
from tests.tolerances import fd_tol

F32, F64 = np.dtype(np.float32), np.dtype(np.float64)


def _x(dtype=F64, seed=0, shape=(3, 4)):
    """``k + f``, ``f`` at least 0.15 from 0, 0.5 and 1: ``x`` and ``x / 0.5`` are away
    from the integers (where floor, remainder and modf jump)."""
    rng = np.random.default_rng(seed)
    k = rng.integers(-3, 3, shape)
    f = rng.uniform(0.15, 0.35, shape) + np.where(rng.random(shape) < 0.5, 0.5, 0.0)
    return (k + f).astype(dtype)


# -- calls NumPy accepts: name -> (f with keywords, the same without keywords, dtype) --------


def _add_out_f32(x):
    buf = np.zeros(x.shape, np.float32)
    np.add(x, 1, out=buf, casting="same_kind")
    return buf


def _add_out_tuple(x):
    buf = np.zeros(x.shape)
    return np.multiply(x, 3.0, out=(buf,))


def _divmod_out(x):
    q, r = np.zeros(x.shape), np.zeros(x.shape)
    np.divmod(x, 0.5, out=(q, r))
    return q, r


def _divmod_out_none(x):
    r = np.zeros(x.shape)
    return np.divmod(x, 0.5, out=(None, r))


def _modf_out(x):
    frac, whole = np.ones(x.shape, x.dtype), np.ones(x.shape, x.dtype)
    np.modf(x, out=(frac, whole))
    return frac, whole


def _add_where_out(x):
    buf = np.full(x.shape, -1.0)
    np.add(x, 1.0, out=buf, where=x > 0)
    return buf


def _where_out_plain(x):
    return fnp.where(x > 0, x + 1.0, -1.0)


def _divmod_out_where(x):
    q, r = np.full(x.shape, -9.0), np.full(x.shape, -9.0)
    np.divmod(x, 0.5, out=(q, r), where=x > 0)
    return q, r


def _divmod_where_plain(x):
    q, r = fnp.divmod(x, 0.5)
    return fnp.where(x > 0, q, -9.0), fnp.where(x > 0, r, -9.0)


def _frexp_out_other_dtypes(x):
    m, e = np.zeros(x.shape, np.float32), np.zeros(x.shape, np.int64)
    np.frexp(x, out=(m, e), casting="same_kind")
    return m, e


def _frexp_cast(x):
    m, e = fnp.frexp(x)
    return fnp.astype(m, np.float32), fnp.astype(e, np.int64)


def _plain_into_traced(x):
    buf = x * 0.0  # a traced out= array; the inputs are plain (any NumPy ufunc may write)
    np.spacing(np.full(x.shape, 3.0), out=buf)
    return buf + x


ACCEPTED = {
    "spacing_plain_inputs_into_traced_out": (
        _plain_into_traced,
        lambda x: np.spacing(np.full(x.shape, 3.0)) + x,
        F64,
    ),
    "add_casting_same_kind": (
        lambda x: np.add(x, 1.0, casting="same_kind"),
        lambda x: x + 1.0,
        F64,
    ),
    "add_casting_no_weak_scalar_f32": (
        lambda x: np.add(x, 1.0, casting="no"),
        lambda x: x + 1.0,
        F32,
    ),
    "subtract_casting_safe_promotes": (
        lambda x: np.subtract(x, np.float64(0.5), casting="safe"),
        lambda x: fnp.astype(x, np.float64) - 0.5,
        F32,
    ),
    "add_dtype_f32_from_f64": (
        lambda x: np.add(x, 1.0, dtype=np.float32),
        lambda x: fnp.astype(x, np.float32) + 1.0,
        F64,
    ),
    "multiply_dtype_f64_from_f32": (
        lambda x: np.multiply(x, x, dtype=np.float64),
        lambda x: fnp.astype(x, np.float64) * fnp.astype(x, np.float64),
        F32,
    ),
    "divide_signature_f32": (
        lambda x: np.divide(x, 3.0, signature=(None, None, np.float32)),
        lambda x: fnp.astype(x, np.float32) / 3.0,
        F64,
    ),
    "add_dtype_int_unsafe": (
        lambda x: np.add(x, 1, dtype=np.int64, casting="unsafe"),
        lambda x: fnp.astype(x, np.int64) + 1,
        F64,
    ),
    "exp_order_subok": (lambda x: np.exp(x, order="C", subok=True), fnp.exp, F64),
    "sin_where_true": (lambda x: np.sin(x, where=True), fnp.sin, F64),
    "add_out_f32_same_kind": (_add_out_f32, lambda x: fnp.astype(x + 1, np.float32), F64),
    "multiply_out_tuple": (_add_out_tuple, lambda x: x * 3.0, F64),
    "divmod_out_pair": (_divmod_out, lambda x: fnp.divmod(x, 0.5), F64),
    "divmod_out_none_first": (_divmod_out_none, lambda x: fnp.divmod(x, 0.5), F64),
    "modf_out_f32": (_modf_out, fnp.modf, F32),
    "divmod_out_pair_where": (_divmod_out_where, _divmod_where_plain, F64),
    "frexp_out_float32_int64": (_frexp_out_other_dtypes, _frexp_cast, F64),
    "add_where_out": (_add_where_out, _where_out_plain, F64),
    "divmod": (lambda x: np.divmod(x, 0.5), lambda x: (x // 0.5, x % 0.5), F32),
    "divmod_builtin": (lambda x: divmod(x, 0.5), lambda x: fnp.divmod(x, 0.5), F64),
    "modf": (np.modf, lambda x: (x - fnp.trunc(x), fnp.trunc(x)), F32),
    "frexp": (np.frexp, fnp.frexp, F32),
    "ldexp_f32": (
        lambda x: np.ldexp(x, np.array([3, -2, 0, 5])),
        lambda x: x * np.array([8.0, 0.25, 1.0, 32.0], np.float32),
        F32,
    ),
    "fmod": (lambda x: np.fmod(x, 0.5), lambda x: x - fnp.trunc(x / 0.5) * 0.5, F64),
}


def _float_sum(out, seed=1):
    """A real scalar of every float leaf (a fixed random weighting)."""
    rng = np.random.default_rng(seed)
    total = 0.0
    for o in tree_flatten(out)[0]:
        if np.dtype(o.dtype).kind == "f":
            total = total + fnp.sum(o * rng.standard_normal(o.shape).astype(o.dtype))
    return total


def _assert_same(got, want, what):
    g, w = tree_flatten(got)[0], tree_flatten(want)[0]
    assert len(g) == len(w), what
    for a, b in zip(g, w):
        assert isinstance(a, np.ndarray) and np.asarray(a).dtype == np.asarray(b).dtype, what
        np.testing.assert_array_equal(a, b, err_msg=what)


@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_accepted_call_matches_numpy_under_vmap(case):
    f, _, dtype = ACCEPTED[case]
    xs = np.stack([_x(dtype, seed) for seed in range(3)])
    # the loop runs f on plain rows, i.e. NumPy itself: values and dtypes are NumPy's
    out = check_vmap(f, [xs], rtol=0, atol=0)
    for o, r in zip(tree_flatten(out)[0], tree_flatten(f(xs[0]))[0]):
        assert o.dtype == r.dtype, case  # float32 stays float32, int results stay int
    check_vmap(f, [np.moveaxis(xs, 0, -1)], in_dims=-1, rtol=0, atol=0)


@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_accepted_call_differentiates_as_its_plain_spelling(case):
    f, plain, dtype = ACCEPTED[case]
    x = _x(dtype)
    _assert_same(f(x), tuple(plain(x)) if isinstance(f(x), tuple) else plain(x), case)
    got = ft.grad(lambda x: _float_sum(f(x)))(x)
    want = ft.grad(lambda x: _float_sum(plain(x)))(x)
    assert got.dtype == x.dtype
    np.testing.assert_array_equal(got, want)  # the same operations, so the same numbers
    if dtype == F64 and all(np.dtype(o.dtype) == F64 for o in tree_flatten(f(x))[0]):
        check_jvp(f, [x], **fd_tol(F64), err_msg=case)  # against finite differences


@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_accepted_call_replays_under_jit(case):
    f, _, dtype = ACCEPTED[case]
    replays(f, (_x(dtype, 0),), (_x(dtype, 5),), exact=True)


# -- calls NumPy refuses: we refuse them too, with UFuncTypeError --------------------------


def _out_int(x):
    return np.add(x, 1.0, out=np.zeros(x.shape, np.int64))


def _out_f32_safe(x):
    return np.add(x, 1.0, out=np.zeros(x.shape, np.float32), casting="safe")


def _out_bad_shape(x):
    return np.add(x, 1.0, out=np.zeros(x.shape[:-1] + (1,)))


def _plain_into_traced_int(x):
    buf = fnp.astype(x, np.int64)
    return np.add(np.ones(x.shape), 1.0, out=buf)  # float64 into int64: same_kind refuses


def _float_into_its_int_self(x):
    t = fnp.astype(x, np.int64)
    return np.add(t, 2.5, out=t)  # NumPy: same_kind refuses float64 into int64


REFUSED = {
    "plain_inputs_into_traced_int_out": _plain_into_traced_int,
    "float_result_into_its_int_input": _float_into_its_int_self,
    "dtype_int_same_kind": lambda x: np.add(x, 1, dtype=np.int64),
    "out_int_same_kind": _out_int,
    "out_f32_safe": _out_f32_safe,
    "casting_equiv_int_operand": lambda x: np.add(x, np.arange(x.shape[-1]), casting="equiv"),
    "casting_unknown": lambda x: np.add(x, 1.0, casting="bogus"),
    "less_no_float_loop": lambda x: np.less(x, 1.0, dtype=np.float32),
    "order_unknown": lambda x: np.add(x, 1.0, order="Z"),
    "out_not_broadcastable": _out_bad_shape,
    "ldexp_float_exponent": lambda x: np.ldexp(x, np.full(x.shape, 1.5)),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_refused_call_raises_as_numpy(case):
    f = REFUSED[case]
    x = _x()
    with pytest.raises((TypeError, ValueError)):  # the oracle: NumPy refuses it
        f(x)
    transforms = [(ft.vmap, "vmap("), (ft.grad, "grad("), (ft.jit, "")]
    if case == "float_result_into_its_int_input":
        transforms.pop(1)  # under grad the int cast is a plain array: NumPy's own call raises
    for transform, form in transforms:
        g = transform(lambda x: _float_sum(f(x))) if transform is ft.grad else transform(f)
        with pytest.raises(UFuncTypeError) as err:
            g(np.stack([x, x]) if transform is ft.vmap else x)
        message = str(err.value)
        assert message.startswith(form) and "numpy." in message, message
        assert not current_stack()
    np.testing.assert_array_equal(ft.vmap(np.sin)(x), np.sin(x))  # the next call works


def test_where_without_out_raises_a_clear_error():
    # NumPy leaves the masked-out elements uninitialised there (and warns)
    with pytest.raises(UnsupportedOperationError, match=r"^vmap\(.*where= without out="):
        ft.vmap(lambda x: np.add(x, 1.0, where=x > 0))(_x())
    assert not current_stack()


def test_out_tuple_length_is_checked():
    def f(x):
        return np.divmod(x, 2.0, out=(np.zeros(x.shape),))

    with pytest.raises(ValueError):
        f(_x())  # NumPy checks this before dispatching
    with pytest.raises(ValueError):
        ft.vmap(f)(_x())


# -- derivatives of the floor/remainder/float-part ufuncs against JAX ------------------------

JAX_CASES = {
    "divmod": (lambda m, x, y: m.divmod(x, y)[1], (-7.3, 2.0)),
    "divmod_quotient": (lambda m, x, y: m.divmod(x, y)[0] + x, (7.3, -2.0)),
    "remainder": (lambda m, x, y: m.remainder(x, y), (-7.3, 2.0)),
    "floor_divide": (lambda m, x, y: m.floor_divide(x, y) + y, (-7.3, 2.0)),
    "fmod": (lambda m, x, y: m.fmod(x, y), (-7.3, 2.0)),
    "modf_fraction": (lambda m, x, y: m.modf(x * y)[0], (-2.6, 1.5)),
    "modf_whole": (lambda m, x, y: m.modf(x * y)[1] + x, (-2.6, 1.5)),
    "frexp_mantissa": (lambda m, x, y: m.frexp(x * y)[0], (3.7, -5.0)),
    "frexp_power_of_two": (lambda m, x, y: m.frexp(x * y)[0], (2.0, 4.0)),
    "ldexp": (lambda m, x, y: m.ldexp(x * y, 5), (0.3, -1.25)),
    "frexp_then_ldexp": (lambda m, x, y: m.ldexp(*m.frexp(x * y)), (3.3, -1.25)),
    "copysign": (lambda m, x, y: m.copysign(x, y), (-1.5, 2.0)),
    "copysign_zero": (lambda m, x, y: m.copysign(x, y), (0.0, -2.0)),
    "heaviside_at_zero": (lambda m, x, y: m.heaviside(x - 1.0, y), (1.0, 0.5)),
    "logaddexp2": (lambda m, x, y: m.logaddexp2(x, y), (0.3, 1.5)),
    "hypot": (lambda m, x, y: m.hypot(x, y), (0.3, -1.5)),
}


@pytest.mark.parametrize("case", sorted(JAX_CASES))
def test_derivatives_through_numpy_match_jax(case):
    fn, point = JAX_CASES[case]
    grads = ft.grad(lambda x, y: fn(np, x, y), argnums=(0, 1))(*point)
    expected = jax.grad(lambda x, y: fn(jnp, x, y), argnums=(0, 1))(*point)
    np.testing.assert_allclose([float(g) for g in grads], [float(e) for e in expected], rtol=1e-12)
    rows = np.array([point, [point[0] * 1.1, point[1]], [point[0], point[1] * 0.9]])
    got = ft.vmap(ft.grad(lambda x, y: fn(np, x, y), argnums=(0, 1)))(rows[:, 0], rows[:, 1])
    want = jax.vmap(jax.grad(lambda x, y: fn(jnp, x, y), argnums=(0, 1)))(rows[:, 0], rows[:, 1])
    np.testing.assert_allclose(np.stack(got), np.stack(want), rtol=1e-12)


def test_two_output_values_are_numpy_s_at_the_edges():
    x = np.array([-0.0, np.inf, -np.inf, np.nan, -3.0, 5e-324, 2.5], np.float64)
    for f in (np.modf, np.frexp, lambda x: np.divmod(x, -0.0), lambda x: np.divmod(x, 1.5)):
        with np.errstate(all="ignore"):
            want = f(x)
            got = ft.vmap(f)(x)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype
            np.testing.assert_array_equal(g, w)
            np.testing.assert_array_equal(np.signbit(g), np.signbit(w))


# -- nextafter has no derivative (as in JAX and torch) ----------------------------------------


def test_nextafter_has_no_derivative():
    with pytest.raises(NotImplementedError):  # the oracle: JAX refuses it too
        jax.grad(jnp.nextafter)(1.0, 2.0)
    for f in (np.nextafter, fnp.nextafter):
        # the reverse pass runs after grad's forward pass: the message names the ufunc
        with pytest.raises(UnsupportedOperationError, match=r"^numpy\.nextafter has no deriv"):
            ft.grad(f)(1.0, 2.0)
        assert not current_stack()
        with pytest.raises(UnsupportedOperationError, match=r"^jvp\(.*: numpy\.nextafter has"):
            ft.jvp(lambda y: f(1.0, y), (2.0,), (1.0,))
    # a zero derivative on request, and a constant nextafter beside a traced value
    assert float(ft.grad(lambda x: np.nextafter(fnp.stop_gradient(x), 2.0) + x)(1.0)) == 1.0
    assert float(ft.grad(lambda x: x * np.nextafter(1.0, 2.0))(3.0)) == np.nextafter(1.0, 2.0)


def test_nextafter_steps_in_the_input_precision():
    x = np.array([[1.0, -2.0], [0.0, 3.5]], np.float32)
    out = ft.vmap(lambda r: np.nextafter(r, np.float32(np.inf)))(x)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, np.nextafter(x, np.float32(np.inf)))
