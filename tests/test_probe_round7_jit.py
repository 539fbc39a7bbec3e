"""Probe round 7 of ``ft.jit``: a replay gives the eager call's answer (the eager call on
the same new arguments is the oracle)."""

import functools
import warnings

import numpy as np

import ftransforms as ft

X = np.array([1.0, 2.0, 3.0])


def test_a_method_decorated_with_jit_reads_the_fields_of_self_at_every_call():
    """``self`` passed as a plain (static) leaf: its fields are values read from outside."""

    class Model:
        def __init__(self):
            self.lr = 0.1

        @ft.jit
        def step(self, x):
            return x - self.lr * x

    m = Model()
    for lr in (0.1, 0.5, 0.25):
        m.lr = lr
        for x in (X, 2 * X, X[:2]):
            np.testing.assert_allclose(m.step(x), x - lr * x)


def test_a_global_list_or_dict_that_grows_records_again():
    L = [1.0]
    D = {"a": 1.0}

    def total(x):
        return x * sum(L)

    def count(x):
        return x * len(D)

    jt, jc = ft.jit(total), ft.jit(count)
    for k in range(3):
        np.testing.assert_allclose(jt(X), X * sum(L))
        np.testing.assert_allclose(jc(X), X * len(D))
        L.append(2.0 + k)
        D[f"k{k}"] = 1.0
    L.clear()
    np.testing.assert_allclose(jt(X), X * 0)


def test_a_list_the_function_appends_to_is_a_side_effect_of_the_recording():
    """The docs' rule stays: a Python side effect runs only while recording."""
    calls = [0]

    def f(x):
        calls.append(1)
        return np.sin(x)

    jf = ft.jit(f)
    for x in (X, 2 * X, 3 * X):
        np.testing.assert_allclose(jf(x), np.sin(x))
    assert len(calls) == 2


def test_nested_containers_objects_and_methods_read_from_outside_are_guarded():
    import types

    class Model:
        def __init__(self):
            self.w = np.ones(3)

        def predict(self, x):
            return x * self.w

    class Scaled:
        k = 2.0

        def __call__(self, x):
            return x * type(self).k

    model = Model()
    params = {"layer": {"w": 1.0, "b": [0.0]}}
    cfg = types.SimpleNamespace(opt=types.SimpleNamespace(lr=0.1))
    scaled = Scaled()

    def uses_method(x):
        return model.predict(x)

    def uses_params(x):
        return x * params["layer"]["w"] + params["layer"]["b"][0]

    def uses_cfg(x):
        return x * cfg.opt.lr

    fs = [uses_method, uses_params, uses_cfg, scaled]
    jfs = [ft.jit(f) for f in fs]
    for k in range(3):
        for f, jf in zip(fs, jfs):
            for x in (X, X[:2] if f is not uses_method else 2 * X):
                np.testing.assert_allclose(jf(x), f(x))
        model.w = np.full(3, 2.0 + k)
        params["layer"]["w"] = 3.0 + k
        params["layer"]["b"][0] = 1.0 + k
        cfg.opt.lr = 0.5 + k
        Scaled.k = 4.0 + k


def test_a_number_rebound_to_minus_zero_records_again():
    scale = 0.0

    def f(x):
        return 1.0 / (x * scale)

    jf = ft.jit(f)
    with np.errstate(divide="ignore"):
        for s in (0.0, -0.0, 0.0):
            scale = s
            np.testing.assert_array_equal(jf(X), f(X))


def test_a_jitted_classmethod_reads_the_class_attribute_at_every_call():
    class Schedule:
        scale = 2.0

        @classmethod
        def apply(cls, x):
            return x * cls.scale

    j = ft.jit(Schedule.apply)
    for s in (2.0, 7.0, 0.5):
        Schedule.scale = s
        for x in (X, X[:2]):
            np.testing.assert_allclose(j(x), x * s)


def test_string_none_and_enum_settings_read_from_outside_record_again():
    import enum

    class Act(enum.Enum):
        TANH = 1
        SIN = 2

    mode, w, act = "sin", None, Act.TANH

    def by_mode(x):
        return np.sin(x) if mode == "sin" else np.cos(x)

    def lazy_weight(x):
        return x if w is None else x * w

    def by_enum(x):
        return np.tanh(x) if act is Act.TANH else np.sin(x)

    fs = [by_mode, lazy_weight, by_enum]
    jfs = [ft.jit(f) for f in fs]
    for setting in [("sin", None, Act.TANH), ("cos", np.full(3, 2.0), Act.SIN)] * 2:
        mode, w, act = setting  # rebinds what the functions close over
        for f, jf in zip(fs, jfs):
            for x in (X, 2 * X):
                np.testing.assert_allclose(jf(x), f(x))


def test_a_setting_the_function_itself_assigns_stays_a_side_effect_of_the_recording():
    class Net:
        def __init__(self):
            self.last = None

        def __call__(self, x):
            y = np.tanh(x)
            self.last = y  # a value of the call stored outside: the signature runs eagerly
            return y  # (NOTE [traced values stored outside under jit])

    net = Net()
    jn = ft.jit(net)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for x in (X, 2 * X, 3 * X):
            np.testing.assert_allclose(jn(x), np.tanh(x))
            np.testing.assert_allclose(net.last, np.tanh(x))
    assert len(jn.cache) == 1


def test_fields_of_sub_objects_a_model_reads_are_guarded():
    class Layer:
        def __init__(self):
            self.w, self.b = np.ones(3), 0.0

        def __call__(self, x):
            return x * self.w + self.b

    class Plain:
        def __init__(self):
            self.w = np.ones(3)

    class Model:
        def __init__(self):
            self.l1, self.p, self.layers = Layer(), Plain(), [Layer(), Layer()]

        def __call__(self, x):
            return self.l1(x) * self.p.w + self.layers[1](x)

        def forward(self, x):
            return self(x)

    m = Model()
    jm, jf = ft.jit(m), ft.jit(m.forward)
    changes = [
        lambda: setattr(m.l1, "w", np.full(3, 2.0)),
        lambda: setattr(m.p, "w", np.full(3, 3.0)),
        lambda: setattr(m.layers[1], "b", 5.0),
        lambda: m.layers.__setitem__(1, Layer()),
    ]
    for change in [lambda: None, *changes]:
        change()
        for x in (X, 2 * X):
            np.testing.assert_allclose(jm(x), m(x))
            np.testing.assert_allclose(jf(x), m(x))


def test_a_function_passed_as_an_argument_has_its_outside_values_guarded():
    box = [2.0]

    def act(v):
        return v * box[0]

    def apply(x, f):
        return f(x) + 1

    ja, js = ft.jit(apply), ft.jit(apply, static_argnums=1)
    for s in (2.0, 3.0, 5.0):
        box[0] = s
        for x in (X, X[:2]):
            np.testing.assert_allclose(ja(x, act), x * s + 1)
            np.testing.assert_allclose(js(x, act), x * s + 1)


def test_inherited_and_shadowed_class_attributes_are_guarded():
    class Base:
        k = 2.0

    class Derived(Base):
        def f(self, x):
            return x * self.k

    d = Derived()
    j = ft.jit(d.f)
    for change in [
        lambda: None,
        lambda: setattr(Base, "k", 3.0),  # inherited
        lambda: setattr(Derived, "k", 4.0),  # shadowed by the subclass
        lambda: setattr(d, "k", 5.0),  # shadowed by the instance
    ]:
        change()
        for x in (X, 2 * X):
            np.testing.assert_allclose(j(x), x * d.k)


def test_a_dict_in_another_key_order_records_again():
    def first_minus_second(d):
        v = list(d.values())
        return v[0] - v[1]

    def by_kwargs(**kw):
        return first_minus_second(kw)

    jd, jk = ft.jit(first_minus_second), ft.jit(by_kwargs)
    for d in [{"a": X, "b": 2 * X}, {"b": 2 * X, "a": X}, {"a": 3 * X, "b": X}]:
        np.testing.assert_array_equal(jd(d), first_minus_second(d))
        np.testing.assert_array_equal(jk(**d), first_minus_second(d))
        assert list(ft.jit(lambda d: d)(d)) == list(d)


def test_a_function_of_a_user_module_has_its_module_globals_guarded():
    import types

    helpers = types.ModuleType("user_helpers")
    exec("SCALE = 2.0\ndef helper(x):\n    return x * SCALE\n", helpers.__dict__)  # noqa: S102

    def f(x):
        return helpers.helper(x)

    jf = ft.jit(f)
    for s in (2.0, 3.0, 4.0):
        helpers.SCALE = s
        for x in (X, X[:2]):
            np.testing.assert_allclose(jf(x), x * s)


def test_standard_library_objects_a_function_uses_are_not_guarded():
    """A logger's fields and caches change as it is used: following them would record
    again for nothing."""
    import logging

    from ftransforms.jit_guards import guards_of

    log = logging.getLogger("probe7")

    def f(x):
        log.debug("step")
        return x * 2

    assert guards_of(f) is None
    jf = ft.jit(f)
    for x in (X, 2 * X, 3 * X):
        log.info("between calls")
        np.testing.assert_array_equal(jf(x), 2 * x)
    assert len(jf.cache) == 1


def test_rebinding_a_functions_defaults_records_again():
    def f(x, a=2.0, *, b=X):
        return x * a + b

    jf = ft.jit(f)
    for defaults, kwdefaults in [((2.0,), {"b": np.ones(3)}), ((5.0,), {"b": np.zeros(3)})]:
        f.__defaults__, f.__kwdefaults__ = defaults, kwdefaults
        for x in (X, 2 * X):
            np.testing.assert_allclose(jf(x), f(x))


def test_a_static_self_has_its_class_attributes_guarded():
    class Layer:
        scale = 2.0

        def __init__(self):
            self.sub = {"w": np.ones(3)}

        @functools.partial(ft.jit, static_argnums=0)
        def __call__(self, x):
            return x * self.scale * self.sub["w"]

    layer = Layer()
    for change in [
        lambda: None,
        lambda: setattr(Layer, "scale", 3.0),
        lambda: layer.sub.__setitem__("w", np.full(3, 0.5)),
    ]:
        change()
        for x in (X, 2 * X):
            np.testing.assert_allclose(layer(x), x * Layer.scale * layer.sub["w"])
