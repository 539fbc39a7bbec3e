"""Probe round 8 of ``ft.jit``: Python-side state that changes between calls, read through
paths the guards did not follow (NOTE [values read from outside under jit]); arrays from
outside that a transform's rule combined with its own constants (NOTE [outside arrays in
rules under jit]); random generators made inside the function (NOTE [NumPy random draws
under jit]).  Every call, the recording one included, is compared with the function
called without ``jit`` after the same change (the oracle)."""

import functools
import os
import random
import threading
import types

import numpy as np
import pytest

import ftransforms as ft
import ftransforms.numpy as fnp
from ftransforms.core.primitive import Primitive

X = np.array([0.5, 1.5, 2.5])


def agree(f, changes, jf=None, args=(X,)):
    """Call ``jit(f)`` and ``f`` before and after each change (twice: the recording and a
    replay), comparing them."""
    jf = ft.jit(f) if jf is None else jf
    for change in (None, *changes):
        if change is not None:
            change()
        for _ in range(2):
            want = f(*args)
            got = jf(*args)
            np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)
    return jf


def module(source):
    """A fresh module running ``source``: the functions' globals are its namespace."""
    m = types.ModuleType("probe8_module")
    exec(source, m.__dict__)  # noqa: S102 - the test's own source
    return m


# -- functions, classes and callables at the user's places ------------------------------


def test_a_redefined_global_helper_function_or_class_records_again():
    """Running the cell that defines ``helper`` again (a new function object under the
    same global name) is a rebinding, as ``W = new_array`` is."""
    m = module(
        "import numpy as np\n"
        "import ftransforms as ft\n"
        "def helper(x):\n    return x * 2\n"
        "class Lin:\n    k = 2.0\n    def __call__(self, x):\n        return x * self.k\n"
        "jhelp = ft.jit(lambda v: v + 1)\n"
        "def f(x):\n    return helper(np.sin(x)) + Lin()(x) + jhelp(x)\n"
    )
    agree(
        m.f,
        [
            lambda: exec("def helper(x):\n    return x * 3\n", m.__dict__),
            lambda: exec(
                "class Lin:\n    def __call__(self, x):\n        return x * 5.0\n", m.__dict__
            ),
            lambda: setattr(m, "jhelp", ft.jit(lambda v: v - 1)),
        ],
    )


def test_functions_in_a_list_a_dict_or_a_field_are_guarded():
    acts = [np.tanh]
    table = {"act": np.tanh}
    cfg = types.SimpleNamespace(act=np.tanh)

    def scale(s):
        return lambda v: v * s

    layers = [scale(2.0)]

    def f(x):
        for a in acts:
            x = a(x)
        return table["act"](x) + cfg.act(x) + layers[0](x)

    agree(
        f,
        [
            lambda: acts.__setitem__(0, np.sin),
            lambda: acts.append(np.cos),
            lambda: table.__setitem__("act", np.sin),
            lambda: setattr(cfg, "act", np.cos),
            lambda: layers.__setitem__(0, scale(3.0)),
        ],
    )


def test_a_closure_held_in_a_list_has_its_cells_guarded():
    def make():
        s = 2.0

        def h(x):
            return x * s

        def set_s(v):
            nonlocal s
            s = v

        return h, set_s

    h, set_s = make()
    held = [h]
    agree(lambda x: held[0](x), [lambda: set_s(7.0), lambda: set_s(-1.0)])


def test_a_bound_method_read_again_is_the_same_method():
    """``obj.method`` is a new object at each attribute read: a guard on a global that holds
    one compares its function and object, not its identity."""

    class M:
        def __init__(self):
            self.k = 2.0

        def scale(self, x):
            return x * self.k

    obj = M()
    m = module("def f(x):\n    return act(x)\n")
    m.act = obj.scale
    jf = agree(m.f, [lambda: setattr(m, "act", obj.scale), lambda: setattr(obj, "k", 4.0)])
    assert len(jf.cache) == 1


# -- containers ------------------------------------------------------------------------


def test_empty_lists_and_dicts_that_grow_record_again():
    calls = []
    table = {}

    def f(x, cache={}):  # noqa: B006 - the mutable default is the point
        return x * (len(calls) + 1) * table.get("k", 1.0) * cache.get("k", 1.0)

    agree(
        f,
        [
            lambda: calls.append(1),
            lambda: table.__setitem__("k", 4.0),
            lambda: f.__defaults__[0].__setitem__("k", 3.0),
        ],
    )


def test_a_dict_read_in_a_new_order_or_a_set_that_grows_records_again():
    table = {"a": np.ones(3), "b": np.full(3, 2.0)}
    members = {1.0}

    def f(x):
        for v in table.values():
            x = x * 2.0 - v
        return x * len(members)

    def reorder():
        table["a"] = table.pop("a")

    agree(f, [reorder, lambda: members.add(2.0), lambda: members.discard(1.0)])


def test_items_of_a_large_list_or_dict_are_guarded():
    big = [np.ones(3) for _ in range(100)]
    numbers = {i: float(i) for i in range(100)}

    def f(x):
        return x * big[70] + numbers[70]

    agree(
        f,
        [
            lambda: big.__setitem__(70, np.full(3, 3.0)),
            lambda: numbers.__setitem__(70, 5.0),
            lambda: numbers.__setitem__(70, 5.5),
        ],
    )


def test_user_objects_in_a_tuple_and_objects_with_slots_are_followed():
    class Layer:
        def __init__(self, w):
            self.w = w

    class Slotted:
        __slots__ = ("w",)

        def __init__(self):
            self.w = np.ones(3)

    layers = (Layer(np.ones(3)), Layer(np.ones(3)))
    slotted = Slotted()

    def f(x):
        for layer in layers:
            x = x * layer.w
        return x * slotted.w

    agree(
        f,
        [
            lambda: setattr(layers[1], "w", np.full(3, 3.0)),
            lambda: setattr(slotted, "w", np.full(3, 2.0)),
        ],
    )


def test_class_attributes_read_through_an_instance_are_guarded():
    class C:
        k = 2.0

    c = C()

    def make():
        inst = C()
        return lambda x: x * inst.k

    g = make()
    agree(lambda x: x * c.k + g(x), [lambda: setattr(C, "k", 5.0), lambda: setattr(c, "k", 1.0)])


def test_attributes_named_by_a_string_are_guarded():
    m = types.ModuleType("probe8_settings")
    m.scale = 2.0
    cfg = types.SimpleNamespace(lr=1.0)

    def f(x):
        return x * getattr(m, "scale") + x * getattr(cfg, "lr")  # noqa: B009

    agree(f, [lambda: setattr(m, "scale", 5.0), lambda: setattr(cfg, "lr", 3.0)])


def test_a_partials_keywords_and_arguments_are_guarded_also_when_added():
    def g(x, w=1.0, b=0.0):
        return x * w + b

    p = functools.partial(g, w=2.0)
    agree(
        p,
        [
            lambda: p.keywords.__setitem__("w", 3.0),
            lambda: p.keywords.__setitem__("b", 5.0),
            lambda: p.keywords.pop("w"),
        ],
    )
    q = functools.partial(g, np.ones(3))
    agree(lambda x: q(w=x), [lambda: q.__setstate__((g, (np.full(3, 5.0),), {}, None))])


# -- the environment -------------------------------------------------------------------


def test_environment_variables_read_by_the_function_record_again(monkeypatch):
    monkeypatch.setenv("FT_PROBE8_SCALE", "1")
    environ = os.environ

    def f(x):
        return x * float(os.environ["FT_PROBE8_SCALE"])

    def g(x):
        return x * float(os.getenv("FT_PROBE8_SCALE", "1")) + float(environ.get("FT_PROBE8_B", 0))

    for fn in (f, g):
        agree(
            fn,
            [
                lambda: monkeypatch.setenv("FT_PROBE8_SCALE", "3"),
                lambda: monkeypatch.setenv("FT_PROBE8_B", "2"),
                lambda: monkeypatch.setenv("FT_PROBE8_SCALE", "1"),
                lambda: monkeypatch.delenv("FT_PROBE8_B"),
            ],
        )


def test_functions_that_read_no_outside_value_still_get_no_guards():
    from ftransforms.jit_guards import guards_of

    m = module("import numpy as np\ndef f(x):\n    return np.tanh(np.sin(x)) * 2.0\n")
    assert guards_of(m.f) is None


# -- outside arrays in a transform's rules ---------------------------------------------


def test_jit_of_jacobians_and_hessians_reads_an_outside_array_changed_in_place():
    """``jacfwd``'s basis times ``W``, ``jacrev``'s basis ``@ A``: computed from the outside
    array, so recomputed from it at every replay."""
    W = np.ones(3)
    A = np.eye(3) + 0.1

    def f(x):
        return np.sum(np.sin(x * W)) + np.sum((A @ x - 1.0) ** 2)

    def change():
        W[0] += 2.0
        A[0, 1] += 3.0

    for transform in (ft.jacfwd, ft.jacrev, ft.hessian, ft.grad):
        agree(transform(f), [change, change], jf=ft.jit(transform(f)))
    agree(ft.jacrev(lambda x: A @ x), [change], jf=ft.jit(ft.jacrev(lambda x: A @ x)))
    batch = np.stack([X, 2 * X])
    jv = ft.jit(ft.vmap(ft.hessian(f)))
    agree(ft.vmap(ft.hessian(f)), [change], jf=jv, args=(batch,))


def test_a_boolean_mask_from_outside_changed_in_place_records_again():
    mask = np.array([True, False, True])

    def f(x):
        return x[mask] * 2.0

    def flip():
        mask[:] = ~mask

    jf = agree(f, [flip, lambda: mask.__setitem__(0, True)])
    assert len(jf.cache) == 1  # a signature: recorded again when the numbers changed
    agree(ft.jacrev(f), [flip], jf=ft.jit(ft.jacrev(f)))


def test_a_host_callback_computes_on_plain_values_while_outside_arrays_are_routed():
    """A callback's own code runs on plain values at every replay: its operations on an
    outside array are not recorded (they would hand it a recorded value)."""
    W = np.full(3, 2.0)
    seen = []

    def host(v):
        out = fnp.multiply(v, W)  # through ``bind``, on plain values
        seen.append(type(out))
        return np.asarray(out)

    def f(x):
        shape = ft.ShapeDtypeStruct(x.shape, x.dtype)
        y = ft.pure_callback(host, shape, fnp.stop_gradient(np.sin(x)), vmap_method="expand_dims")
        return y * x * W

    agree(ft.jacfwd(f), [lambda: W.__setitem__(1, 5.0)], jf=ft.jit(ft.jacfwd(f)))
    assert set(seen) == {np.ndarray}


def test_binds_are_ordinary_again_after_a_recording_and_in_other_threads():
    ordinary = Primitive.bind
    W = np.ones(64)
    errors = []

    def other_thread():
        for k in range(20):
            v = np.linspace(0.0, 1.0, 64) + k
            g = ft.grad(lambda z: np.sum(np.sin(z) * 2.0))(v)
            if not np.allclose(g, 2 * np.cos(v)):
                errors.append(k)

    t = threading.Thread(target=other_thread)
    t.start()
    for _ in range(5):
        ft.jit(ft.jacfwd(lambda x: np.sin(x) * W))(np.ones(64))
    t.join()
    assert not errors
    assert Primitive.bind is ordinary and Primitive.__call__ is ordinary
    with pytest.raises(ValueError):
        ft.jit(ft.jacfwd(lambda x: np.sin(x) * W + np.ones(2)))(np.ones(64))
    assert Primitive.bind is ordinary


# -- generators made inside the function -----------------------------------------------


@pytest.mark.parametrize(
    "draw",
    [
        lambda: np.random.default_rng().normal(size=3),
        lambda: np.random.RandomState().normal(size=3),
        lambda: np.random.Generator(np.random.PCG64()).normal(size=3),
        lambda: random.Random().random(),
        lambda: random.SystemRandom().random(),
        lambda: random.SystemRandom().randint(0, 10**9),
    ],
    ids=["default_rng", "RandomState", "PCG64", "Random", "SystemRandom", "randint"],
)
def test_a_generator_seeded_from_fresh_entropy_draws_afresh_at_every_call(draw):
    def f(x):
        return x + draw()

    with pytest.warns(RuntimeWarning, match="no seed"):
        jf = ft.jit(f)
        first = jf(X)
    assert not np.array_equal(jf(X), first)
    assert next(iter(jf.cache.values())).value_dependent


def test_a_seeded_generator_made_inside_is_still_replayed():
    def f(x):
        return x + np.random.default_rng(0).normal(size=3)

    jf = agree(f, [])
    assert not next(iter(jf.cache.values())).value_dependent
    assert random.Random.seed is random.Random.__dict__["seed"]


def test_a_system_random_the_function_reaches_does_not_break_the_recording():
    sysrand = random.SystemRandom()

    def f(x):
        return x * 2.0 if sysrand is not None else x

    agree(f, [])


def test_containers_and_the_environment_changed_by_the_recording_are_side_effects(
    monkeypatch,
):
    """The docs' rule stays for what is guarded now: a change the recording itself makes
    runs only while recording, and does not make every later call record again."""
    calls = [0] * 100  # more items than are followed one by one
    monkeypatch.setenv("FT_PROBE8_SIDE", "0")

    def f(x):
        calls.append(1)
        os.environ["FT_PROBE8_SIDE"] = "1"  # (not len(calls): a read of calls is eager)
        return np.sin(x)

    jf = ft.jit(f)
    for x in (X, 2 * X, 3 * X):
        np.testing.assert_allclose(jf(x), np.sin(x))
    assert len(calls) == 101 and len(jf.cache) == 1
