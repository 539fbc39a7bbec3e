"""JAX users' programs, round 13 (``import ftransforms as jax``), compared with JAX (x64)
or, where JAX's first compile would dominate the run time, with the oracle JAX agrees with
(NumPy's ``x[i] = v`` and ``numpy.<ufunc>.at``, the one-sided limits; the JAX values are in
the comments).  Each test failed before the change it names:

* ``arcsin``/``arccos``'s derivatives at ``x = +-1`` are ``+inf``/``-inf``, JAX's one-sided
  limits (the signs were flipped: ``1/sqrt(-0.0)``, a silent wrong answer), and so are the
  second derivatives' signs;
* ``lax.convert_element_type`` from a float to an integer type saturates as JAX's (XLA's)
  does: out-of-range values become the type's bounds, NaN becomes 0 (NumPy's cast wrapped
  ``256.0`` to ``0`` for ``uint8``: a silent wrong answer in quantization code);
* ``x.at[i].set(v)`` with repeated indices keeps the last update, as JAX on CPU (it raised:
  ``jnp.zeros(n).at[labels].set(1.0)`` with repeated labels), with the derivative going to
  the winning update only; ``x.at[i].apply(f)`` applies ``f`` once per occurrence, as JAX;
* ``jit`` of ``x.at[i].max/min/multiply/divide/power(v)`` with ``i`` an argument no longer
  replays the first call's unique-index program for a call whose index repeats (max gave
  ``15`` for JAX's ``5``: a silent wrong answer);
* ``x.at[i]`` updates at a constant index (a global, an array made in the function) are
  recorded and replayed by ``jit``: the repeats are counted on the host (every such update
  made the whole signature run eagerly, with a ``RuntimeWarning``);
* ``x.at[i].subtract(v)`` and ``x.at[i].mul(v)`` (JAX's names) exist; ``random.normal``,
  ``uniform``, ``randint``, ``permutation``, ``choice``, ``bernoulli`` take ``key=`` by
  keyword; ``scipy.special.logsumexp`` takes ``where=``; a traced array's ``.argsort``
  takes ``descending=``/``stable=``, ``.nonzero`` ``size=``/``fill_value=``, and it has
  ``.ptp``; ``jnp.compress``/``jnp.extract`` take ``size=``/``fill_value=`` (they raised
  ``TypeError``/``AttributeError``).
"""

from __future__ import annotations

import warnings

import jax
import numpy as np
import pytest

import ftransforms as ft
import ftransforms.numpy as fnp

jax.config.update("jax_enable_x64", True)


@pytest.mark.parametrize("name", ["arcsin", "arccos"])
@pytest.mark.parametrize("x", [1.0, -1.0])
def test_arcsin_arccos_derivatives_at_the_ends_have_jax_signs(name, x):
    # jax.grad(jnp.arcsin) is +inf at both ends, its second derivative sign(x) * inf (the
    # one-sided limits of 1/sqrt(1 - x**2) and x/(1 - x**2)**1.5); arccos is the negative
    f, sign = getattr(fnp, name), (1.0 if name == "arcsin" else -1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        assert float(ft.grad(f)(x)) == sign * np.inf
        assert float(ft.grad(ft.grad(f))(x)) == sign * np.sign(x) * np.inf
        # through jvp, on an array with an interior point too
        _, t = ft.jvp(f, (np.array([x, 0.5 * x]),), (np.ones(2),))
    np.testing.assert_allclose(t, sign * np.array([np.inf, 1 / np.sqrt(0.75)]), rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.uint32, np.int64, np.uint64])
@pytest.mark.parametrize("src", [np.float64, np.float32])
def test_lax_convert_element_type_saturates_floats_like_jax(dtype, src):
    # image quantization: lax.convert_element_type(x * 255, uint8) with x slightly out of
    # [0, 1]; NumPy's astype wrapped 256.0 to 0 and NaN/inf to arbitrary values
    x = np.array([1.7, -1.7, 256.4, -0.9, 3e10, -3e10, np.nan, np.inf, -np.inf, 2.0**63], src)
    want = np.asarray(jax.lax.convert_element_type(x, dtype))
    for got in [
        ft.lax.convert_element_type(x, dtype),
        ft.jit(lambda v: ft.lax.convert_element_type(v, dtype))(x),
        ft.vmap(lambda v: ft.lax.convert_element_type(v, dtype))(x),
    ]:
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


LABELS = np.array([1, 1, 3])
W5 = np.arange(5.0)


def _numpy_set(x, index, v):
    """NumPy's ``x[index] = v`` on a copy: the last of repeated indices wins, as JAX's
    ``x.at[index].set(v)`` on CPU."""
    out = np.array(x, dtype=float)
    out[index] = v
    return out


def test_at_set_with_repeated_indices_keeps_the_last_like_jax():
    # one-hot rows from labels that repeat: jnp.zeros(n).at[labels].set(1.0) raised
    v = np.array([2.0, 5.0, 3.0])
    np.testing.assert_array_equal(fnp.zeros(5).at[LABELS].set(1.0), [0, 1, 0, 1, 0])
    np.testing.assert_array_equal(fnp.zeros(5).at[LABELS].set(v), [0, 5, 0, 3, 0])
    rows = np.arange(6.0).reshape(3, 2)
    np.testing.assert_array_equal(
        fnp.zeros((4, 2)).at[LABELS].set(rows), _numpy_set(np.zeros((4, 2)), LABELS, rows)
    )
    got = fnp.zeros(5).at[np.array([1, 7, 1, 7])].set(np.arange(4.0), mode="drop")
    np.testing.assert_array_equal(got, [0, 2, 0, 0, 0])
    # only the winning update has a derivative (jax.grad's [0, 1, 3]); the overwritten x
    # entries have none
    g = ft.grad(lambda v: (fnp.zeros(5).at[LABELS].set(v) * W5).sum())(v)
    np.testing.assert_array_equal(g, [0.0, 1.0, 3.0])
    g = ft.grad(lambda x: (x.at[LABELS].set(0.0) * W5).sum())(np.ones(5))
    np.testing.assert_array_equal(g, [0.0, 0.0, 2.0, 0.0, 4.0])
    labels = np.array([[0, 0, 3], [1, 1, 1]])
    with warnings.catch_warnings():  # the rows' repeats differ: vmap runs them apart
        warnings.simplefilter("ignore", ft.errors.PerformanceWarning)
        got = ft.vmap(lambda lab: fnp.zeros(4).at[lab].set(1.0))(labels)
    np.testing.assert_array_equal(got, [[1, 0, 0, 1], [0, 1, 0, 0]])
    got = ft.jit(lambda v: fnp.zeros(5).at[LABELS].set(v))(v)
    np.testing.assert_array_equal(got, [0, 5, 0, 3, 0])


def test_at_apply_with_repeated_indices_applies_once_per_occurrence_like_jax():
    idx = np.array([1, 1, 2])  # jnp.arange(4.0).at[idx].apply(lambda t: t * 2): [0, 4, 4, 3]
    np.testing.assert_array_equal(fnp.arange(4.0).at[idx].apply(lambda t: t * 2), [0, 4, 4, 3])
    np.testing.assert_array_equal(fnp.arange(4).at[idx].apply(lambda t: t * 3), [0, 9, 6, 3])
    # JAX has no derivative here; twice sin at 1: cos(sin(1)) cos(1)
    g = ft.grad(lambda x: x.at[idx].apply(fnp.sin).sum())(np.arange(3.0))
    np.testing.assert_allclose(g, [1.0, np.cos(np.sin(1.0)) * np.cos(1.0), np.cos(2.0)])


_UFUNC_AT = {  # numpy.<ufunc>.at: once per occurrence, in order, as JAX's x.at[i].<method>
    "max": np.maximum,
    "min": np.minimum,
    "multiply": np.multiply,
    "divide": np.divide,
    "power": np.power,
}


def _ufunc_at(method, x, i, v):
    out = np.array(x)
    _UFUNC_AT[method].at(out, i, v)
    return out


@pytest.mark.parametrize("method", ["max", "min", "multiply", "divide", "power"])
def test_jitted_combining_update_with_an_index_argument_checks_its_repeats(method):
    # the first call's index is unique; a replay for a repeating index took the unique
    # path (max gave 15 for JAX's 5 at [4, 4, 4]): a silent wrong answer
    f = ft.jit(lambda x, i, v: getattr(x.at[i], method)(v))
    x, v = np.arange(1.0, 6.0), np.array([2.0, 3.0, 4.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the signature runs eagerly
        for i in [np.array([0, 1, 2]), np.array([1, 1, 2]), np.array([4, 4, 4])]:
            np.testing.assert_allclose(f(x, i, v), _ufunc_at(method, x, i, v), rtol=1e-12)


def test_jit_replays_index_updates_at_constant_indices():
    # a constant index (a global, or an array made in the function) is counted on the
    # host: the update is recorded and replayed, without the "trace depends on data"
    # warning that made the whole signature run eagerly
    calls = []

    def step(x, v):
        calls.append(1)
        return (
            x.at[LABELS].set(v)
            + x.at[LABELS].max(v) * 2.0
            + x.at[np.array([0, 2])].multiply(v[:2])
            + x.at[np.array([4, -1])].set(7.0)
        )

    def numpy_step(x, v):
        return (
            _numpy_set(x, LABELS, v)
            + _ufunc_at("max", x, LABELS, v) * 2.0
            + _ufunc_at("multiply", x, np.array([0, 2]), v[:2])
            + _numpy_set(x, np.array([4, -1]), 7.0)
        )

    jitted = ft.jit(step)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        for k in range(3):
            x, v = np.arange(5.0) + k, np.arange(3.0) * (k + 1)
            np.testing.assert_allclose(jitted(x, v), numpy_step(x, v), rtol=1e-12)
    assert len(calls) == 1


def test_index_update_subtract_and_mul_are_jax_s_names():
    x, i = np.arange(5.0), np.array([0, 0, 2, 7])
    v = np.array([1.0, 2.0, 3.0, 4.0])
    want = x.copy()
    np.subtract.at(want, i[:3], v[:3])  # index 7 dropped
    np.testing.assert_array_equal(fnp.at(x)[i].subtract(v, mode="drop"), want)
    np.testing.assert_array_equal(x.at[1].mul(3.0), [0.0, 3.0, 2.0, 3.0, 4.0])
    # jax.grad: each occurrence's cotangent, negated: [6, 6]
    g = ft.grad(lambda v: (fnp.zeros(3).at[np.array([0, 0])].subtract(v) ** 2).sum())(v[:2])
    np.testing.assert_array_equal(g, [6.0, 6.0])


def test_random_samplers_take_the_key_by_keyword_like_jax():
    key = ft.random.PRNGKey(0)
    for name, kw in [
        ("normal", {"shape": (3,)}),
        ("uniform", {"shape": (2,), "minval": 1.0, "maxval": 2.0}),
        ("randint", {"shape": (2,), "minval": 0, "maxval": 9}),
        ("permutation", {"x": 5}),
        ("choice", {"a": 5, "shape": (2,)}),
        ("bernoulli", {"p": 0.3, "shape": (4,)}),
    ]:
        sampler = getattr(ft.random, name)
        np.testing.assert_array_equal(sampler(key=key, **kw), sampler(key, **kw), err_msg=name)
    # jax.random.normal(key=jax.random.PRNGKey(0), shape=(2,))
    np.testing.assert_allclose(
        ft.random.normal(key=key, shape=(2,)), [-0.20584214, -0.78476578], rtol=1e-7
    )


def test_scipy_logsumexp_takes_where_like_jax():
    x = np.array([[1.0, 2.0, 3.0], [0.0, -1.0, 5.0]])
    m = np.array([True, False, True])
    got = ft.scipy.special.logsumexp(x, axis=-1, where=m)
    np.testing.assert_allclose(got, [np.logaddexp(1.0, 3.0), np.logaddexp(0.0, 5.0)], rtol=1e-13)
    out, sign = ft.scipy.special.logsumexp(
        x, axis=-1, b=np.array([1.0, 7.0, -2.0]), where=m, return_sign=True
    )
    s = np.exp(x[:, 0]) - 2 * np.exp(x[:, 2])
    np.testing.assert_allclose(out, np.log(np.abs(s)), rtol=1e-13)
    np.testing.assert_array_equal(sign, np.sign(s))
    # the masked entries get no gradient; the kept ones their softmax
    g = ft.grad(lambda x: ft.scipy.special.logsumexp(x, where=m))(x[0])
    np.testing.assert_allclose(g, [1 / (1 + np.e**2), 0.0, 1 / (1 + np.e**-2)], rtol=1e-13)


def test_traced_array_methods_take_jax_s_keywords():
    a = np.array([[0.5, -1.0, 2.0, 0.0], [3.0, 1.0, -2.0, 1.0]])
    want_order = np.argsort(-a, axis=-1, kind="stable")  # jnp: a.argsort(descending=True)
    for transform in (ft.jit, ft.vmap):
        np.testing.assert_array_equal(
            transform(lambda r: r.argsort(axis=-1, descending=True))(a), want_order
        )
        # jax.Array.nonzero(size=, fill_value=) and .ptp (NumPy 2 has neither)
        got = transform(lambda r: (r > 0).nonzero(size=3, fill_value=-1)[-1])(a)
        want = [[0, 2, -1], [0, 1, 3]] if transform is ft.vmap else [0, 2, 0]
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(transform(lambda r: r.ptp(axis=-1))(a), [3.0, 5.0])


def test_compress_and_extract_take_size_and_fill_value_like_jax():
    a = np.arange(12.0).reshape(3, 4)
    keep = np.array([True, False, True, True])
    # jnp.compress(keep, a, axis=1, size=2): the first two kept columns
    np.testing.assert_array_equal(fnp.compress(keep, a, axis=1, size=2), [[0, 2], [4, 6], [8, 10]])
    # jnp.extract(a > 8, a, size=5, fill_value=-2): [9, 10, 11, -2, -2]
    np.testing.assert_array_equal(fnp.extract(a > 8, a, size=5, fill_value=-2), [9, 10, 11, -2, -2])
    # a fixed shape: per-row masks batch whole under vmap, and jit replays for any mask
    masks = np.array([[True, False, True, True], [False, False, False, True]])
    got = ft.vmap(lambda m: fnp.extract(m, np.arange(4.0), size=2))(masks)
    np.testing.assert_array_equal(got, [[0.0, 2.0], [3.0, 0.0]])
    jitted = ft.jit(lambda m, x: fnp.compress(m, x, size=3, fill_value=-1.0))
    for m in masks:
        want = np.concatenate([np.arange(4.0)[m], [-1.0, -1.0, -1.0]])[:3]
        np.testing.assert_array_equal(jitted(m, np.arange(4.0)), want)
    g = ft.grad(lambda x: (fnp.compress(keep, x, size=2) ** 2).sum())(np.arange(4.0))
    np.testing.assert_array_equal(g, [0.0, 0.0, 4.0, 0.0])


def test_this_round_s_updates_stay_on_a_cupy_like_backend():
    # the strict stand-in for CuPy refuses NumPy operands: the saturating cast and the
    # repeated-index updates build their constants on the array's own backend
    from ftransforms.strict_backend import asarray

    x = asarray(np.array([1.7, -1.7, 300.0, np.nan]))
    np.testing.assert_array_equal(ft.lax.convert_element_type(x, np.uint8).get(), [1, 0, 255, 0])
    z, idx = asarray(np.arange(3.0)), np.array([1, 1])
    np.testing.assert_array_equal(fnp.at(z)[idx].set(np.array([5.0, 7.0])).get(), [0, 7, 2])
    np.testing.assert_array_equal(fnp.at(z)[idx].apply(lambda t: t * 2).get(), [0, 4, 2])
    np.testing.assert_array_equal(fnp.at(z)[idx].multiply(2.0).get(), [0, 4, 2])
