"""Round 11: torch.func users' semantics (PyTorch's functorch tests and torch.func's
tutorials, translated to NumPy arrays and ftransforms' names), each checked against
torch.func's documented behaviour, JAX (x64) or a plain loop / finite differences."""

import copy

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.errors import ModuleStateError, TangentMismatchError


class _Linear:
    def __init__(self, seed):
        rng = np.random.default_rng(seed)
        self.weight = rng.normal(size=(3, 3))
        self.bias = rng.normal(size=3)

    def __call__(self, x):
        return x @ self.weight.T + self.bias


class _TiedNet:  # torch's test module with a tied weight: self.tied is self.l1.weight
    def __init__(self, seed=0):
        self.l1 = _Linear(seed)
        self.tied = self.l1.weight
        self.running = np.zeros(3)

    def __call__(self, x):
        return self.l1(x) + x @ self.tied.T + self.running


def test_functional_call_strict_counts_a_tied_name_as_given_with_its_twin_like_torch():
    # torch unties first (fills in the tied names), then checks strict: the arrays as
    # named_parameters() lists them (each once) are exactly enough
    net = _TiedNet()
    x = np.ones(3)
    params = ft.named_arrays(net)
    assert "tied" not in params
    new = {k: v + 1.0 for k, v in params.items()}
    out = ft.functional_call(net, new, (x,), strict=True)
    w, b = new["l1.weight"], new["l1.bias"]
    assert np.allclose(out, x @ w.T + b + x @ w.T + new["running"])
    # without tying, the tied name is its own array, and strict wants it
    with pytest.raises(ModuleStateError, match=r"missing \['tied'\]") as info:
        ft.functional_call(net, new, (x,), strict=True, tie_weights=False)
    assert isinstance(info.value, RuntimeError)  # torch: RuntimeError "Missing key(s)"
    with pytest.raises(RuntimeError, match=r"unexpected \['nope'\]"):
        ft.functional_call(net, {**new, "nope": x}, (x,), strict=True)
    assert net.l1.weight is net.tied and np.all(net.running == 0)


def test_functional_call_takes_name_array_pairs_like_torch():
    # torch.func.functional_call(model, model.named_parameters(), x)
    net = _TiedNet()
    x = np.arange(3.0)
    pairs = [(k, v * 2) for k, v in ft.named_arrays(net).items()]
    out = ft.functional_call(net, iter(pairs), x)
    expected = ft.functional_call(net, dict(pairs), x)
    assert np.allclose(out, expected)
    g = ft.grad(lambda p: ft.functional_call(net, p.items(), (x,)).sum())(dict(pairs))
    assert np.allclose(g["l1.weight"], 2 * np.outer(np.ones(3), x))  # tied: counted twice
    with pytest.raises(ModuleStateError, match="more than one") as info:
        ft.functional_call(net, [("l1.bias", x), ("l1.bias", x)], x)
    assert isinstance(info.value, ValueError)  # torch: ValueError "appeared multiple times"
    with pytest.raises(ValueError, match="pairs"):
        ft.functional_call(net, [{"l1.bias": x}, ("l1.weight", x)], x)
    with pytest.raises(ValueError, match="got int"):
        ft.functional_call(net, 3, x)


def test_stack_module_state_refuses_models_of_different_classes_like_torch():
    class Other(_Linear):
        pass

    with pytest.raises(ModuleStateError, match="different classes") as info:
        ft.stack_module_state([_Linear(0), Other(1)])
    assert isinstance(info.value, RuntimeError)  # torch: "of the same class"
    with pytest.raises(RuntimeError, match="at least one"):
        ft.stack_module_state([])
    # one class: the ensembling tutorial, against the loop over the models
    models = [_TiedNet(s) for s in range(3)]
    params, buffers = ft.stack_module_state(models)
    base = copy.deepcopy(models[0])
    xs = np.random.default_rng(5).normal(size=(3, 4, 3))

    def fmodel(params, buffers, x):
        return ft.functional_call(base, (params, buffers), (x,))

    out = ft.vmap(fmodel)(params, buffers, xs)
    assert np.allclose(out, np.stack([m(x) for m, x in zip(models, xs)]))


def test_structure_and_shape_mismatches_are_runtime_errors_like_torch():
    # torch.func: vjp_fn "Expected pytree structure of cotangents ...", jvp "Expected
    # primals and tangents to have the same python structure" are RuntimeErrors
    _, vjp_fn = ft.vjp(lambda x: (x, (x, x)), np.array(1.0))
    with pytest.raises(RuntimeError, match="structure"):
        vjp_fn(((np.array(1.0), (np.array(1.0), np.array(1.0))),))
    with pytest.raises(RuntimeError, match="structure"):
        ft.jvp(lambda a, b: a * b, (np.ones(3), np.ones(3)), (np.ones(3),))
    with pytest.raises(TangentMismatchError, match="shape"):
        ft.jvp(np.sin, (np.ones(3),), (np.ones(4),))
    with pytest.raises(ValueError):  # JAX's type for the same mistake
        ft.jvp(np.sin, (np.ones(3),), (np.ones(4),))
