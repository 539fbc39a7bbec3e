"""torch.func's model-state helpers (functional_call, stack_module_state, functionalize)
on plain Python model objects, against the Python loop, float64 differences and JAX."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import ftransforms as ft


class Linear:
    def __init__(self, rng, n_in, n_out):
        self.W = rng.normal(size=(n_out, n_in))
        self.b = rng.normal(size=n_out)

    def __call__(self, x):
        return self.W @ x + self.b


class MLP:
    def __init__(self, seed):
        rng = np.random.default_rng(seed)
        self.layers = [Linear(rng, 3, 4), Linear(rng, 4, 2)]
        self.steps = np.array(0)  # an integer buffer

    def __call__(self, x):
        for layer in self.layers[:-1]:
            x = np.tanh(layer(x))
        return self.layers[-1](x)


def loss(model, x, y):
    return ((model(x) - y) ** 2).sum()


def test_named_arrays_walks_lists_dicts_and_objects():
    model = MLP(0)
    model.extra = {"scale": np.ones(2)}
    names = ft.named_arrays(model)
    assert list(names) == [
        "layers.0.W",
        "layers.0.b",
        "layers.1.W",
        "layers.1.b",
        "steps",
        "extra.scale",
    ]
    assert names["layers.1.W"] is model.layers[1].W


def test_ensemble_by_vmap_equals_the_loop():
    models = [MLP(s) for s in range(5)]
    params, buffers = ft.stack_module_state(models)
    assert params["layers.0.W"].shape == (5, 4, 3)
    assert list(buffers) == ["steps"] and buffers["steps"].shape == (5,)
    x = np.linspace(-1.0, 1.0, 3)
    base = copy.deepcopy(models[0])

    def run(p, b, x):
        return ft.functional_call(base, (p, b), (x,))

    out = ft.vmap(run, in_dims=(0, 0, None))(params, buffers, x)
    np.testing.assert_allclose(out, np.stack([m(x) for m in models]), rtol=1e-13)
    # the base model's own arrays are back in place and unchanged
    for name, value in ft.named_arrays(base).items():
        assert value is ft.named_arrays(models[0])[name] or np.array_equal(
            value, ft.named_arrays(models[0])[name]
        )
        assert not isinstance(value, ft.core.tracer.Tracer)


def test_per_sample_grads_equal_the_loop_and_differences():
    model = MLP(1)
    params = {k: v for k, v in ft.named_arrays(model).items() if v.dtype.kind == "f"}
    rng = np.random.default_rng(2)
    X, Y = rng.normal(size=(6, 3)), rng.normal(size=(6, 2))

    def compute_loss(p, x, y):
        return ((ft.functional_call(model, p, (x,)) - y) ** 2).sum()

    grads = ft.vmap(ft.grad(compute_loss), in_dims=(None, 0, 0))(params, X, Y)
    for i in range(len(X)):
        one = ft.grad(compute_loss)(params, X[i], Y[i])
        for k in params:
            np.testing.assert_allclose(grads[k][i], one[k], rtol=1e-12)
    # float64 central differences of one entry per array, on a copy of the model
    h = 1e-6
    for k, value in params.items():
        idx = (0,) * value.ndim
        vals = []
        for sign in (1, -1):
            p2 = {kk: vv.copy() for kk, vv in params.items()}
            p2[k][idx] += sign * h
            vals.append(compute_loss(p2, X[0], Y[0]))
        np.testing.assert_allclose(grads[k][0][idx], (vals[0] - vals[1]) / (2 * h), rtol=1e-6)


def test_per_sample_grads_against_jax():
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")  # conftest enables float64
    model = MLP(3)
    params = {k: v for k, v in ft.named_arrays(model).items() if v.dtype.kind == "f"}
    rng = np.random.default_rng(4)
    X, Y = rng.normal(size=(5, 3)), rng.normal(size=(5, 2))

    def ours(p, x, y):
        return ((ft.functional_call(model, p, (x,)) - y) ** 2).sum()

    def theirs(p, x, y):
        h = jnp.tanh(p["layers.0.W"] @ x + p["layers.0.b"])
        return ((p["layers.1.W"] @ h + p["layers.1.b"] - y) ** 2).sum()

    got = ft.vmap(ft.grad(ours), in_dims=(None, 0, 0))(params, X, Y)
    want = jax.vmap(jax.grad(theirs), in_axes=(None, 0, 0))(params, X, Y)
    for k in params:
        want_k = np.asarray(want[k])  # entries near 0 round absolutely: scale the atol
        np.testing.assert_allclose(got[k], want_k, rtol=1e-12, atol=1e-13 * abs(want_k).max())


def test_arguments_kwargs_and_a_single_argument():
    class Scaled:
        def __init__(self):
            self.s = np.array(2.0)

        def __call__(self, x, *, power=1):
            return self.s * x**power

    m = Scaled()
    assert ft.functional_call(m, {"s": np.array(3.0)}, np.array(2.0)) == 6.0
    assert ft.functional_call(m, {"s": np.array(3.0)}, (np.array(2.0),), {"power": 2}) == 12.0
    assert m.s == 2.0


def test_tied_weights_follow_the_given_one_unless_untied():
    class Tied:
        def __init__(self):
            self.foo = np.array(1.0)
            self.foo_tied = self.foo

        def __call__(self, x):
            return x + self.foo + self.foo_tied

    m = Tied()
    assert m(np.array(0.0)) == 2.0
    assert ft.functional_call(m, {"foo": np.array(0.0)}, np.array(0.0)) == 0.0
    assert ft.functional_call(m, {"foo": np.array(0.0)}, np.array(0.0), tie_weights=False) == 1.0
    with pytest.raises(ValueError, match="tied"):
        ft.functional_call(m, {"foo": np.array(0.0), "foo_tied": np.array(5.0)}, np.array(0.0))
    assert m.foo is m.foo_tied and m.foo == 1.0


def test_strict_names_and_duplicate_keys_are_errors():
    m = MLP(0)
    params = ft.named_arrays(m)
    with pytest.raises(ValueError, match="missing"):
        ft.functional_call(m, {"layers.0.W": params["layers.0.W"]}, (np.ones(3),), strict=True)
    with pytest.raises(ValueError, match="more than one"):
        ft.functional_call(m, ({"steps": np.array(1)}, {"steps": np.array(2)}), (np.ones(3),))
    with pytest.raises(AttributeError, match="no 'layerz'"):
        ft.functional_call(m, {"layerz.0.W": np.ones((4, 3))}, (np.ones(3),))
    ft.functional_call(m, params, (np.ones(3),), strict=True)  # exactly the model's arrays


def test_the_model_is_restored_when_the_call_raises():
    m = MLP(0)
    W = m.layers[0].W
    with pytest.raises(ValueError):
        ft.functional_call(m, {"layers.0.W": np.ones((4, 5))}, (np.ones(3),))
    assert m.layers[0].W is W


def test_a_rebound_buffer_is_written_back_into_the_dict():
    class Counter:
        def __init__(self):
            self.count = np.array(0)

        def __call__(self, x):
            self.count = self.count + 1
            return x

    m = Counter()
    state = {"count": np.array(5)}
    ft.functional_call(m, state, np.array(1.0))
    assert state["count"] == 6 and m.count == 0


def test_stack_module_state_rejects_different_architectures():
    a, b = MLP(0), MLP(1)
    b.layers[1].W = np.ones((2, 5))
    with pytest.raises(ValueError, match="different shapes"):
        ft.stack_module_state([a, b])
    b.extra = np.ones(1)
    with pytest.raises(ValueError, match="architecture"):
        ft.stack_module_state([MLP(0), b])


def test_functionalize_keeps_the_function_under_the_transforms():
    def f(x):
        y = np.zeros_like(x)
        for i in range(len(x)):
            y[i] = x[i] * x[: i + 1].sum()
        return y

    X = np.random.default_rng(5).normal(size=(4, 3))
    g = ft.functionalize(f)
    np.testing.assert_allclose(ft.vmap(g)(X), np.stack([f(x) for x in X]))
    np.testing.assert_allclose(ft.jacrev(g)(X[0]), ft.jacfwd(f)(X[0]), rtol=1e-13)
    with pytest.raises(ValueError, match="remove"):
        ft.functionalize(f, remove="views")
