"""jit: replaying a recorded program gives the eager result, re-traces per signature, and
falls back to eager when the trace depends on data."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ftransforms as ft
import ftransforms.numpy as fnp
from ftransforms.core.stack import current_stack

rng = np.random.default_rng(11)


def mlp_loss(params, x, y):
    for w, b in params[:-1]:
        x = np.tanh(x @ w.T + b)
    w, b = params[-1]
    logits = x @ w.T + b
    m = np.max(logits)
    return np.log(np.sum(np.exp(logits - m))) + m - logits[y]


def make_params(sizes, dtype=np.float64):
    return [
        ((rng.normal(size=(o, i)) / np.sqrt(i)).astype(dtype), np.zeros(o, dtype))
        for i, o in zip(sizes[:-1], sizes[1:])
    ]


def assert_trees_close(a, b, rtol=1e-12):
    for u, v in zip(ft.pytree.tree_leaves(a), ft.pytree.tree_leaves(b)):
        np.testing.assert_allclose(u, v, rtol=rtol, atol=1e-14)


TRANSFORMED = {
    "vmap_grad": lambda: (
        ft.vmap(ft.grad(mlp_loss), in_dims=(None, 0, 0)),
        (make_params([5, 7, 3]), rng.normal(size=(4, 5)), rng.integers(0, 3, 4)),
    ),
    "hessian": lambda: (
        ft.hessian(lambda x: np.sum(np.tanh(x[:3] * x[1:]) ** 2) + np.sum(x**2) ** 2),
        (rng.normal(size=4),),
    ),
    "jacrev_jacfwd": lambda: (
        ft.jacrev(ft.jacfwd(lambda x: np.sin(x) * np.cumsum(x))),
        (rng.normal(size=3),),
    ),
    "vjp_fn_tuple_output": lambda: (
        lambda x: ft.vjp(lambda v: (v**3, v.mean()), x)[1]((np.ones(3), np.array(2.0))),
        (rng.normal(size=3),),
    ),
}


@pytest.mark.parametrize("name", sorted(TRANSFORMED))
def test_replay_equals_eager_and_runs_no_tracers(name):
    fn, args = TRANSFORMED[name]()
    want = fn(*args)
    compiled = ft.jit(fn)
    assert_trees_close(compiled(*args), want)  # first call: traced
    assert len(compiled.cache) == 1
    assert_trees_close(compiled(*args), want)  # replayed
    # New values, same signature: replay must follow the data.
    new_args = ft.tree_map(lambda v: v * 1.5 if np.asarray(v).dtype.kind == "f" else v, args)
    assert_trees_close(compiled(*new_args), fn(*new_args))
    assert len(compiled.cache) == 1
    assert current_stack() == ()


def test_new_shapes_retrace():
    f = ft.jit(ft.grad(lambda x: np.sum(x**3)))
    np.testing.assert_allclose(f(np.arange(3.0)), 3 * np.arange(3.0) ** 2)
    np.testing.assert_allclose(f(np.arange(5.0)), 3 * np.arange(5.0) ** 2)
    np.testing.assert_allclose(f(np.arange(5.0, dtype=np.float32)), 3 * np.arange(5.0) ** 2)
    assert len(f.cache) == 3


def test_value_dependent_control_flow_stays_right():
    # The branch's bool is checked at every replay (NOTE [checked value reads under jit]):
    # the other branch is recorded too, and no call replays the wrong one.
    def f(x):
        return np.sum(x**2) if np.sum(x) > 0 else np.sum(np.sin(x))

    compiled = ft.jit(ft.grad(f))
    x = np.array([1.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(3):
            np.testing.assert_allclose(compiled(x), 2 * x)
            np.testing.assert_allclose(compiled(-x), np.cos(-x))


def test_prod_with_zeros_replays_right():
    # prod's derivative reads no data (NOTE [cumprod at zeros]), so a recording made
    # without zeros replays right on an input with one.
    compiled = ft.jit(ft.grad(lambda x: fnp.prod(x)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(compiled(np.array([1.0, 2.0, 3.0])), [6.0, 3.0, 2.0])
        np.testing.assert_allclose(compiled(np.array([0.0, 2.0, 3.0])), [6.0, 0.0, 0.0])
    assert len(compiled.cache) == 1


def test_make_program_prints_the_backend_calls():
    f = ft.grad(lambda x: np.sum(np.tanh(x)))
    text = str(ft.make_program(f, optimize=False)(np.zeros(3)))
    assert text.startswith("{ lambda %0:float64[3] .")
    assert "tanh" in text and "reduce_sum" in text
    # The loss value is not an output of grad: the optimized program drops its sum.
    optimized = ft.make_program(f)(np.zeros(3))
    assert "reduce_sum" not in str(optimized) and "tanh" in str(optimized)
    assert len(optimized) < optimized.recorded


def test_jit_float32_keeps_dtype():
    params = make_params([4, 6, 2], np.float32)
    x = rng.normal(size=(3, 4)).astype(np.float32)
    y = rng.integers(0, 2, 3)
    f = ft.jit(ft.vmap(ft.grad(mlp_loss), in_dims=(None, 0, 0)))
    f(params, x, y)
    out = f(params, x, y)
    assert all(leaf.dtype == np.float32 for leaf in ft.pytree.tree_leaves(out))


def test_random_draws_are_never_replayed():
    from ftransforms import random as frandom

    gen = np.random.default_rng(0)
    f = ft.jit(lambda x: x + frandom.normal(gen, size=x.shape))
    x = np.zeros(3)
    with pytest.warns(RuntimeWarning, match="random"):
        a = f(x)
    b = f(x)
    assert not np.array_equal(a, b)


def test_static_argnums_and_argnames_key_the_cache_like_jax_jit():
    power = ft.jit(lambda x, n: x**n, static_argnums=1)
    x = np.arange(3.0)
    np.testing.assert_array_equal(power(x, 2), x**2)
    np.testing.assert_array_equal(power(x, 3), x**3)
    np.testing.assert_array_equal(power(x, 2), x**2)
    assert len(power.cache) == 2

    @ft.jit(static_argnames="mode")
    def shift(x, mode="one"):
        return x + (1.0 if mode == "one" else 2.0)

    np.testing.assert_array_equal(shift(x), x + 1)
    np.testing.assert_array_equal(shift(x, mode="two"), x + 2)
    assert len(shift.cache) == 2


def test_keyword_array_arguments_are_inputs_not_constants():
    f = ft.jit(lambda x, *, w: x @ w)
    np.testing.assert_array_equal(f(np.ones(2), w=np.eye(2)), [1.0, 1.0])
    np.testing.assert_array_equal(f(np.ones(2), w=2 * np.eye(2)), [2.0, 2.0])  # replayed
    assert len(f.cache) == 1


def test_numpy_scalar_arguments_are_inputs_like_0d_arrays():
    # Found by tests/test_published_programs.py (Black-Scholes greeks at spot prices taken
    # from an array).  jax.jit treats NumPy scalars as arrays; jit takes NumPy float
    # scalars as 0-d array inputs.
    f = ft.jit(ft.grad(lambda s, k: np.maximum(s - k, 0.0) ** 2))
    spots = np.array([100.0, 104.0, 97.0])
    got = [f(spots[i], 95.0) for i in range(3)]
    np.testing.assert_allclose(got, 2 * np.maximum(spots - 95.0, 0.0))
    assert len(f.cache) == 1


def test_bad_static_arguments_raise_clear_errors():
    f = ft.jit(lambda x, n: x * n, static_argnums=1)
    with pytest.raises(TypeError, match="static argument 1 must be hashable"):
        f(np.ones(2), np.ones(2))
    with pytest.raises(TypeError, match="missing 1 required positional argument"):
        f(np.ones(2))  # as jax.jit: the function's own error
    with pytest.raises(ValueError, match="static_argnums has 2"):
        ft.jit(lambda x, n: x * n, static_argnums=2)
    with pytest.raises(TypeError, match="expected a function"):
        ft.jit(3)
    assert current_stack() == ()


def test_constant_outputs_are_fresh_arrays_on_every_replay():
    # grad of a function that ignores x: the zero gradient is a recorded constant; a
    # caller updating one result in place must not change the next one.
    f = ft.jit(ft.grad(lambda x, y: np.sum(y * 2.0)))
    first = f(np.ones(2), np.ones(2))
    second = f(np.ones(2), np.ones(2))
    second += 1.0
    np.testing.assert_array_equal(f(np.ones(2), np.ones(2)), [0.0, 0.0])
    np.testing.assert_array_equal(first, [0.0, 0.0])


def test_make_jaxpr_is_make_program():
    assert ft.make_jaxpr is ft.make_program
    text = str(ft.make_jaxpr(lambda x, *, w: x @ w)(np.ones(2), w=np.eye(2)))
    assert "%1:float64[2,2]" in text and "matmul" in text  # JAX prints float64[2,2]


def test_jit_inside_other_transforms_is_transparent_like_jax():
    f = ft.jit(lambda x: np.sum(np.sin(x)))
    x = np.arange(3.0)
    np.testing.assert_allclose(ft.grad(f)(x), np.cos(x))
    np.testing.assert_allclose(ft.vmap(f)(np.stack([x, 2 * x])), np.sin([x, 2 * x]).sum(1))
    np.testing.assert_allclose(ft.jit(ft.grad(f))(x), np.cos(x))  # jit of a jit
    np.testing.assert_allclose(ft.jit(ft.grad(f))(2 * x), np.cos(2 * x))  # replayed
    assert current_stack() == ()


def test_a_closure_over_an_enclosing_transforms_value_is_never_replayed():
    holder = []
    inner = ft.jit(lambda y: y * holder[0])

    def outer(w):
        holder[:] = [w]
        return np.sum(inner(np.arange(3.0)))

    with pytest.warns(RuntimeWarning, match="enclosing transform"):
        np.testing.assert_allclose(ft.grad(outer)(np.ones(3)), np.arange(3.0))
    # A second call would replay a stale tracer if the recording were kept.
    np.testing.assert_allclose(ft.grad(outer)(np.full(3, 5.0)), np.arange(3.0))
    assert current_stack() == ()


def test_recording_drops_identities_and_folds_transpose_chains():
    w = rng.normal(size=(5, 5))
    jac = ft.jacrev(lambda v, w: np.tanh(w @ v))
    program = ft.make_program(jac)(rng.normal(size=5), w)
    names = [eqn.prim.name for eqn in program.eqns]
    # jacrev's full-chunk slice and the transpose of a transpose are not recorded
    assert "getitem" not in names and "transpose" not in names, str(program)
    f = ft.jit(lambda x: (x**0 * x, x**1, np.transpose(np.transpose(x, (1, 2, 0)), (2, 0, 1))))
    for scale in (1.0, -2.0, 0.0):  # recorded, replayed, replayed
        x = scale * rng.normal(size=(2, 3, 4))
        for got, want in zip(f(x), (x, x, x)):
            np.testing.assert_array_equal(got, want)
            assert not np.shares_memory(got, x)
    h = ft.hessian(lambda v: np.sum(np.tanh(w @ v) ** 2) + np.sum(v**2) ** 2)
    jh = ft.jit(h)
    for v in (rng.normal(size=5), rng.normal(size=5)):
        np.testing.assert_allclose(jh(v), h(v), rtol=1e-12)


@pytest.mark.parametrize("jac", [ft.jacrev, ft.jacfwd], ids=["jacrev", "jacfwd"])
def test_identity_basis_products_become_row_scalings(jac):
    # jacrev/jacfwd multiply the identity basis into the first linear layer: under jit
    # that n^3 product is recorded as the n^2 row scaling it is.
    w, b = rng.normal(size=(6, 6)), rng.normal(size=6)
    f = jac(lambda v, w, b: np.tanh(w @ v + b))
    program = ft.make_program(f)(rng.normal(size=6), w, b)
    matmuls = [e for e in program.eqns if e.prim.name == "matmul"]
    assert len(matmuls) == 1 and matmuls[0].avals[0] == (6,), str(program)  # only w @ v
    compiled = ft.jit(f)
    for v in (rng.normal(size=6), rng.normal(size=6)):  # recorded, replayed
        np.testing.assert_allclose(compiled(v, w, b), f(v, w, b), rtol=1e-13)


def test_numpy_array_indexed_by_a_traced_argmax_runs_under_jit():
    # one-hot of the predicted class, written the NumPy way (found by the published-program
    # probes of branch q1)
    def f(t):
        scores = t.reshape(4, 4)
        return (np.eye(4)[np.argmax(scores, axis=1)] * scores).sum()

    step = ft.jit(ft.grad(f))
    rng = np.random.default_rng(0)
    for _ in range(3):  # new data picks other rows: never a stale recorded index
        x = rng.standard_normal(16)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # "depends on data": eager
            np.testing.assert_array_equal(step(x), ft.grad(f)(x))
