"""Values a jitted function reads from outside its arguments (NOTE [values read from
outside under jit], ``ftransforms/jit_guards.py``): rebinding them records again, and
changing a global array in place is seen where the recording reads it.

Oracle: the same function called without ``jit`` after the same change.
"""

from __future__ import annotations

import functools
import importlib
import types
import warnings

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.compiled import tier

jit_module = importlib.import_module("ftransforms.jit")  # the module: ft.jit is the function

X = np.array([1.0, 2.0, 3.0])

W = np.array([1.0, 2.0, 3.0])
SCALE = 2.0
PARAMS = [np.ones(3), np.zeros(3)]
CONFIG = {"shift": 0.5}
SETTINGS = types.ModuleType("user_settings")  # a user's own module of settings
SETTINGS.W = np.ones(3)


def uses_w(x):
    return x * W + SCALE


def uses_params(x):
    return np.tanh(x * PARAMS[0] + PARAMS[1]) + CONFIG["shift"]


def recordings(jitted):
    return len(jitted.cache)


@pytest.fixture(autouse=True)
def _restore_globals():
    global W, SCALE, PARAMS, CONFIG
    saved = (W, SCALE, PARAMS, CONFIG)
    yield
    W, SCALE, PARAMS, CONFIG = saved


def test_rebinding_a_global_array_or_number_records_again():
    global W, SCALE
    j = ft.jit(uses_w)
    np.testing.assert_array_equal(j(X), uses_w(X))
    program = next(iter(j.cache.values()))
    assert program.guards is not None
    W = np.array([5.0, 5.0, 5.0])
    np.testing.assert_array_equal(j(X), uses_w(X))  # the fast path checks too
    np.testing.assert_array_equal(j(x=X), uses_w(X))  # and the general one
    SCALE = 3.5
    np.testing.assert_array_equal(j(X), uses_w(X))
    before = next(iter(j.cache.values()))
    SCALE = float("3.5")  # an equal number is the same value: replayed
    j(X)
    assert next(iter(j.cache.values())) is before


def test_global_lists_and_dicts_of_arrays():
    global PARAMS
    j = ft.jit(uses_params)
    np.testing.assert_allclose(j(X), uses_params(X))
    PARAMS[1] = np.full(3, 0.25)  # a slot of a global list rebound
    np.testing.assert_allclose(j(X), uses_params(X))
    CONFIG["shift"] = -1.0  # an entry of a global dict
    np.testing.assert_allclose(j(X), uses_params(X))
    PARAMS = [np.full(3, 2.0), np.zeros(3)]  # the list itself
    np.testing.assert_allclose(j(X), uses_params(X))


def test_attributes_of_a_user_module():
    j = ft.jit(lambda x: x @ SETTINGS.W + np.pi)
    assert j(X) == j(X) == 6.0 + np.pi
    SETTINGS.W = np.array([0.0, 1.0, 0.0])
    assert j(X) == 2.0 + np.pi


def test_closures_attributes_and_transformed_functions():
    w = np.ones(3)

    def loss(p, x):
        return np.sum(np.sin(p * x * w) ** 2)

    per_example = ft.jit(ft.vmap(ft.grad(loss), in_dims=(None, 0)))
    p, xs = np.array([0.3, -0.2, 0.5]), np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(per_example(p, xs), ft.vmap(ft.grad(loss), (None, 0))(p, xs))
    w = np.array([2.0, -1.0, 0.5])  # the closed-over variable rebound
    np.testing.assert_allclose(per_example(p, xs), ft.vmap(ft.grad(loss), (None, 0))(p, xs))

    class Model:
        def __init__(self):
            self.w = np.ones(3)

        def __call__(self, x):
            return x @ self.w

        def predict(self, x):
            return np.tanh(x * self.w)

    m = Model()
    call, predict = ft.jit(m), ft.jit(m.predict)
    assert call(X) == 6.0 and predict(X).tolist() == np.tanh(X).tolist()
    m.w = np.array([1.0, 0.0, -1.0])
    assert call(X) == m(X)
    np.testing.assert_array_equal(predict(X), m.predict(X))


def test_fields_of_a_static_self():
    class Layer:
        def __init__(self):
            self.w = np.ones(3)

        @functools.partial(ft.jit, static_argnums=0)
        def __call__(self, x):
            return np.tanh(x * self.w)

    layer = Layer()
    np.testing.assert_array_equal(layer(X), np.tanh(X))
    layer.w = np.array([0.5, 0.0, -1.0])
    np.testing.assert_array_equal(layer(X), np.tanh(X * layer.w))


def test_in_place_changes_of_an_outside_array_are_read_not_folded():
    """An all-ones or identity array from outside is not folded away while recording
    (``x * ones`` is ``x``): the user may change it in place later."""
    ones, eye = np.ones(3), np.eye(3)
    j = ft.jit(lambda x: x * ones)
    k = ft.jit(lambda x: eye @ x * 2.0)
    j(X), j(X), k(X), k(X)
    ones *= 3.0
    eye[0, 1] = 5.0
    np.testing.assert_array_equal(j(X), X * ones)
    np.testing.assert_array_equal(k(X), eye @ X * 2.0)


@pytest.mark.skipif(not tier.available(), reason="the optional compiler (numba)")
def test_the_compiled_tier_reads_outside_arrays_at_every_call(monkeypatch, tmp_path):
    """A uniform array from outside (a bias still at zero) is not compiled in as a
    literal: updated in place, the compiled program sees the new values."""
    from ftransforms.compiled import cache

    monkeypatch.setenv("FTRANSFORMS_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(cache, "_DIR", None)
    b = np.zeros(3)
    f = lambda x: np.tanh(x * 1.5 + b) * 2.0 - x
    j = ft.jit(f, compile=False)
    j(X)
    (program,) = j.cache.values()
    assert tier.compile_now(program) and program.tier == "compiled"
    b -= 0.75  # a training step, in place
    np.testing.assert_allclose(j(X), f(X), rtol=1e-12)


def test_recording_again_often_warns_and_names_the_value(monkeypatch):
    global W
    monkeypatch.setattr(jit_module, "RECORD_AGAIN_WARN", 3)
    j = ft.jit(uses_w)
    j(X)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for k in range(4):
            W = np.full(3, float(k))
            np.testing.assert_array_equal(j(X), uses_w(X))
    messages = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    assert len(messages) == 1, messages
    assert "W" in messages[0] and "pass values that change as arguments" in messages[0]


def test_functions_reading_nothing_from_outside_have_no_guards():
    j = ft.jit(lambda x, w: np.sum(np.sin(x) * w))
    j(X, X)
    assert next(iter(j.cache.values())).guards is None
    assert recordings(j) == 1
