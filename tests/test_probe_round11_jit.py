"""Probe round 11 of ``ft.jit``: the recording call and its replays.  Every form runs
``jit(f)`` several times with different data or outside state and compares each call
(the recording one included) with ``f`` called without ``jit`` on fresh arguments (the
oracle): a replay must never return what the recording computed for other data."""

import threading
import warnings

import numpy as np
import pytest

import ftransforms as ft


def outcome(f, args):
    """``("value", result)`` or ``("error", exception type)`` of ``f(*args)``."""
    try:
        return "value", f(*args)
    except Exception as e:  # noqa: BLE001 - the oracle's error is part of the answer
        return "error", type(e)


def agree(f, calls, jf=None, before=None, **jit_kwargs):
    """``jit(f)`` equals ``f`` at each of ``calls`` (argument makers, so that each side
    gets fresh arrays), errors included; ``before(k)`` changes outside state before
    call ``k``."""
    jf = ft.jit(f, **jit_kwargs) if jf is None else jf
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (runs eagerly: said once)
        for k, make in enumerate(calls):
            if before is not None:
                before(k)
            kind, expected = outcome(f, make())
            got_kind, got = outcome(jf, make())
            assert got_kind == kind, f"call {k}: {got_kind} {got} != {kind} {expected}"
            if kind == "error":
                assert got is expected, f"call {k}"
                continue
            for g, e in zip(ft.tree_leaves(got), ft.tree_leaves(expected)):
                np.testing.assert_array_equal(g, e, err_msg=f"call {k}")
                assert np.asarray(g).dtype == np.asarray(e).dtype, f"call {k}"
    return jf


def ones_zeros(n=4):
    return [lambda k=k: (np.full(2, float(k % 2 == 0)),) for k in range(n)]


# -- warnings filters set inside the function ------------------------------------------


def _error_filter(x):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            return np.log(x)
        except RuntimeWarning:  # divide by zero, as an exception
            return np.zeros_like(x) - 1.0


def _recorded(x):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = np.log(x)
    return y * 0.0 - 2.0 if caught else y


def _sqrt_or_abs(x):
    with warnings.catch_warnings():
        warnings.filterwarnings("error", category=RuntimeWarning)
        try:
            return np.sqrt(x)
        except RuntimeWarning:
            return np.abs(x)


def _silenced(x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.log(x) * 2.0


@pytest.mark.parametrize("f", [_error_filter, _recorded, _sqrt_or_abs])
def test_warnings_turned_into_errors_or_collected_inside_are_as_eager(f):
    """A replay runs under the caller's filters and reads no list of warnings: it returned
    the recording's branch (``-inf``) where the eager call caught an error or branched on
    a warning (NOTE [warnings set inside under jit])."""
    data = [lambda s=s: (np.array([1.0, 2.0]) * s,) for s in (1.0, 0.0, -1.0, 1.0, 0.0)]
    agree(f, data)
    agree(f, data[1:])  # the recording's data warns


def test_warnings_silenced_inside_are_still_replayed():
    jf = agree(_silenced, [lambda: (np.ones(2),), lambda: (np.zeros(2),)] * 2)
    (program,) = jf.cache.values()
    assert not program.value_dependent


# -- values from outside: thread-local settings, deeply nested containers --------------

LOCAL = threading.local()
LOCAL.scale = 2.0


class _Settings(threading.local):
    def __init__(self):
        self.scale = 2.0


SETTINGS = _Settings()


def test_thread_local_settings_are_read_in_the_replaying_thread():
    """A check on ``LOCAL.__dict__`` compared the recording thread's value at a replay
    in another thread, which had set its own (NOTE [thread-local settings under jit])."""
    for f in (lambda x: x * LOCAL.scale, lambda x: x * SETTINGS.scale):
        LOCAL.scale = SETTINGS.scale = 2.0
        jf = agree(f, [lambda: (np.ones(2),)] * 2)
        seen = {}

        def other(f=f, jf=jf):
            LOCAL.scale = SETTINGS.scale = 3.0
            seen["jit"], seen["eager"] = jf(np.ones(2)), f(np.ones(2))
            seen["again"] = jf(np.ones(2))

        worker = threading.Thread(target=other)
        worker.start()
        worker.join()
        np.testing.assert_array_equal(seen["eager"], [3.0, 3.0])
        np.testing.assert_array_equal(seen["jit"], seen["eager"])
        np.testing.assert_array_equal(seen["again"], seen["eager"])
        np.testing.assert_array_equal(jf(np.ones(2)), [2.0, 2.0])  # this thread's again


class _Layer:
    def __init__(self, k):
        self.k = k


CFG = {}
NESTED = []


def _deep_config(x):
    return x * CFG["a"]["b"]["c"]["d"]["e"]["f"]["g"] + CFG["a"]["b"]["c"]["d"]["e"]["layer"].k


def _deep_list(x):
    return x * NESTED[0][0][0][0][0][0][0]


def test_containers_nested_deeper_than_five_levels_are_guarded():
    """A value six or more containers down was unguarded: a change replayed the old one
    (NOTE [nested containers under jit])."""
    global CFG, NESTED
    CFG = {"a": {"b": {"c": {"d": {"e": {"f": {"g": 2.0}, "layer": _Layer(1.0)}}}}}}
    NESTED = [[[[[[[3.0]]]]]]]
    inner = CFG["a"]["b"]["c"]["d"]["e"]

    def before(k):
        if k == 2:
            inner["f"]["g"] = 5.0
        if k == 3:
            inner["layer"].k = -1.0  # a field of an object that deep
        if k == 4:
            inner["f"]["new"] = 1.0  # a key added (read nowhere: replayed or recorded)
        NESTED[0][0][0][0][0][0][0] = float(k // 2)

    agree(_deep_config, [lambda: (np.ones(2),)] * 5, before=before)
    agree(_deep_list, [lambda: (np.ones(2),)] * 5, before=before)


# -- arguments ----------------------------------------------------------------------


@pytest.mark.parametrize("static", [{"static_argnums": 1}, {"static_argnames": "n"}])
def test_an_unhashable_static_argument_raises_the_value_error_jax_raises(static):
    jf = ft.jit(lambda x, n: x * len(n), **static)
    for bad in ({"a": 1}, np.ones(2), {1, 2}):
        with pytest.raises(ValueError, match=r"^jit\(<lambda>\): static argument .* hashable"):
            jf(np.ones(2), n=bad)
    np.testing.assert_array_equal(jf(np.ones(2), n=(1, 2)), [2.0, 2.0])


# -- what methods called through ``self`` read ------------------------------------------

GAIN = 2.0


class _SubLayer:
    k = 1.0

    def __init__(self):
        self.w = np.ones(2)

    def __call__(self, x):
        return x * self.w * GAIN * self.k


class _Model:
    scale = 2.0

    def __init__(self):
        self.layer = _SubLayer()

    def helper(self, x):
        return x * GAIN

    @staticmethod
    def act(x):
        return np.tanh(x) * _Model.scale

    @classmethod
    def shift(cls, x):
        return x + cls.scale

    def __call__(self, x):
        return self.helper(x) + self.act(x) + self.shift(x) + self.layer(x)


def test_what_methods_called_through_self_read_is_guarded():
    """``self.helper(x)`` reading a global, ``self.act(x)`` of a staticmethod reading
    ``Model.scale``, ``self.shift(x)`` of a classmethod reading ``cls.scale``, and
    ``self.layer(x)`` of a sub-model, under ``jit(model)``, ``jit(model.__call__)`` and a
    static ``model`` argument: a change to any was replayed stale."""
    global GAIN

    def before(k):
        global GAIN
        GAIN = 3.0 if k >= 1 else 2.0
        _Model.scale = 4.0 if k >= 2 else 2.0
        _SubLayer.k = 5.0 if k >= 3 else 1.0
        model.layer.w[0] = 9.0 if k >= 4 else 1.0

    try:
        for make_jit in (ft.jit, lambda m: ft.jit(m.__call__)):
            model = _Model()
            agree(model, [lambda: (np.ones(2),)] * 5, jf=make_jit(model), before=before)
        model = _Model()
        agree(lambda x, m: m(x), [lambda: (np.ones(2), model)] * 5, before=before)
    finally:
        GAIN, _Model.scale, _SubLayer.k = 2.0, 2.0, 1.0


# -- jax.jit's ahead-of-time methods ---------------------------------------------------


def test_lower_compile_eval_shape_and_clear_cache_as_jax_jit_has_them():
    calls = []

    def f(x, n):
        calls.append(1)
        return {"y": np.tanh(x) * n, "s": x.sum()}

    jf = ft.jit(f, static_argnums=1)
    lowered = jf.lower(np.zeros(3), 2)  # records (runs f once, as JAX's trace does)
    assert len(calls) == 1 and "tanh" in lowered.as_text()
    compiled = lowered.compile()
    for x in (np.ones(3), np.arange(3.0)):
        got, expected = compiled(x), f(x, 2)
        np.testing.assert_array_equal(got["y"], expected["y"])
        np.testing.assert_array_equal(got["s"], expected["s"])
    assert len(calls) == 3  # the two eager calls: the compiled ones replay
    assert lowered.out_info["y"] == ft.ShapeDtypeStruct((3,), np.float64)
    assert "tanh" in jf.lower(np.ones(3), 2).as_text()  # recorded already: its program
    with pytest.raises(TypeError, match=r"^jit\(f\)\.lower\(\.\.\.\)\.compile\(\): argument leaf"):
        compiled(np.ones(4))  # jax.jit: "Argument types differ ..."
    with pytest.raises(TypeError, match="lowered for"):
        compiled(np.ones(3), 2)  # the static argument is part of it
    assert jf.eval_shape(np.ones((2, 5)), 3)["y"] == ft.ShapeDtypeStruct((2, 5), np.float64)

    del calls[:]
    abstract = jf.lower(ft.ShapeDtypeStruct((2,), np.float32), 3)  # nothing to run on
    assert not calls and abstract.out_info["s"].dtype == np.float32
    x32 = np.ones(2, np.float32)
    np.testing.assert_array_equal(abstract.compile()(x32)["y"], f(x32, 3)["y"])

    assert len(jf.cache) == 2
    jf.clear_cache()
    assert len(jf.cache) == 0
    del calls[:]
    jf(np.ones(3), 2)
    assert len(calls) == 1  # recorded again


# -- state that changes and that no check sees -----------------------------------------


def test_an_iterator_read_from_outside_gives_its_next_item_at_every_call():
    """``next(COUNTER)`` of a global ``itertools.count()``, a generator in a closure, a
    ``cycle`` of learning rates in a field of ``self``: each eager call reads a new item,
    and the replay gave the recording's (NOTE [iterators read from outside])."""
    import itertools

    counter = itertools.count()

    def numbers():
        k = 0
        while True:
            k += 1
            yield float(k)

    gen = numbers()

    class Trainer:
        def __init__(self):
            self.rates = itertools.cycle([0.1, 0.2, 0.3])

        def __call__(self, x):
            return x * next(self.rates)

    jf = ft.jit(lambda x: x * next(counter))
    jg = ft.jit(lambda x: x + next(gen))
    jt = ft.jit(Trainer())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = [(jf(np.ones(2))[0], jg(np.zeros(1))[0], jt(np.ones(1))[0]) for _ in range(4)]
    assert got == [(0.0, 1.0, 0.1), (1.0, 2.0, 0.2), (2.0, 3.0, 0.3), (3.0, 4.0, 0.1)]


class _Named:
    """Equal (and hashed) by name only, as some models and configs are."""

    def __init__(self, name, w):
        self.name, self.w = name, w

    def __eq__(self, other):
        return isinstance(other, _Named) and other.name == self.name

    def __hash__(self):
        return hash(self.name)

    @ft.jit
    def apply(self, x):
        return x * self.w


def test_an_equal_static_object_with_other_fields_is_not_replayed_with_the_old_ones():
    """The cache is keyed by the static object's value; a call with another object equal
    to the recording's replayed the recording's fields (NOTE [equal static objects under
    jit]).  A fresh object with the same fields (a config made at every call) replays."""
    a, b = _Named("m", np.ones(2)), _Named("m", np.full(2, 4.0))
    for obj in (a, b, a, b):
        np.testing.assert_array_equal(obj.apply(np.ones(2)), obj.w)
    for static in ({}, {"static_argnums": 1}):
        calls = []

        def f(x, cfg, calls=calls):
            calls.append(1)
            return x * cfg.w

        agree(f, [lambda o=o: (np.ones(2), o) for o in (a, b, a)], **static)
        w = np.full(2, 3.0)
        jf = ft.jit(f, **static)
        del calls[:]
        for _ in range(3):
            np.testing.assert_array_equal(jf(np.ones(2), _Named("m", w)), w)
        assert len(calls) == 1  # the same fields: replayed


def _deprecations_raise(x):
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # (no data raises one)
        return np.log(x) * 2.0


def test_a_filter_for_warnings_no_data_raises_keeps_the_replay():
    jf = agree(_deprecations_raise, [lambda: (np.ones(2),), lambda: (np.full(2, 3.0),)])
    (program,) = jf.cache.values()
    assert not program.value_dependent


def test_an_iterator_an_object_holds_but_the_function_does_not_name_keeps_the_replay():
    class Trainer:
        def __init__(self):
            self.loader = iter([np.ones(2)] * 10)  # the data, read outside the step
            self.lr = 0.5

        def step(self, w, x):
            return w - self.lr * x

    trainer = Trainer()
    jstep = ft.jit(trainer.step)
    for _ in range(3):
        x = next(trainer.loader)
        np.testing.assert_array_equal(jstep(np.zeros(2), x), np.full(2, -0.5))
    (program,) = jstep.cache.values()
    assert not program.value_dependent


class _NS:
    def __init__(self, **fields):
        self.__dict__.update(fields)


class _Net:
    def __init__(self):
        self.blocks = [
            _NS(attn=_NS(proj=_NS(w=np.ones(2), scale=1.0, inner=_NS(k=1.0)))) for _ in range(2)
        ]

    def __call__(self, x):
        p = self.blocks[1].attn.proj
        return x * p.w * p.scale * p.inner.k


NET = _Net()


def _global_net(x):
    return NET(x)


def test_fields_deep_in_a_model_read_through_a_global_are_guarded():
    """``NET.blocks[1].attn.proj.inner.k``, six levels below the global ``NET``: a change
    there was replayed stale."""

    def before(k):
        p = NET.blocks[1].attn.proj
        p.scale = 2.0 if k >= 1 else 1.0
        p.inner.k = 3.0 if k >= 2 else 1.0

    agree(_global_net, [lambda: (np.ones(2),)] * 4, before=before)


class _Deep:
    def __init__(self, n):
        self.layers = [_NS(w=np.full(2, 0.5)) for _ in range(n)]

    def __call__(self, x):
        for layer in self.layers:
            x = np.tanh(x * layer.w)
        return x


def test_weights_rebound_in_a_long_list_of_layers_record_again():
    """``for l in model.layers: l.w = l.w - lr * g`` over more than 64 layers: the list
    held the same objects, and the replay computed with the old weights (NOTE [objects
    in long lists under jit])."""
    model = _Deep(100)

    def before(k):
        if k == 2:
            for layer in model.layers:
                layer.w = layer.w * 2.0
        if k == 3:
            model.layers[-1].w = np.full(2, -1.0)

    agree(model, [lambda: (np.ones(2),)] * 4, before=before)


def test_the_guard_walk_stops_at_library_code():
    # a jitted function calling the standard library's (or an installed package's, or
    # pytest's through a rewritten assert) functions: their modules' globals are not
    # walked (late in a test session pytest's helpers reached every test report: 0.24 s
    # per recording), while the user's own globals still are
    import json
    import sys

    scale = {"k": 2.0}

    def f(x):
        assert x.shape == (2,)  # (rewritten by pytest: names pytest's helpers)
        return x * len(json.dumps([1])) * scale["k"]

    jf = ft.jit(f)
    jf(np.ones(2))
    np.testing.assert_allclose(jf(np.ones(2)), np.full(2, 6.0))
    (program,) = jf.cache.values()
    modules = [
        h.get("__name__", "")
        for h, _, _ in program.guards.checks
        if isinstance(h, dict) and "__builtins__" in h
    ]
    roots = {m.partition(".")[0] for m in modules}
    assert not roots & (set(sys.stdlib_module_names) | {"_pytest", "pytest"}), modules
    scale["k"] = 3.0  # the user's state is still guarded
    np.testing.assert_allclose(jf(np.ones(2)), np.full(2, 9.0))


def test_a_warnings_filter_inserted_in_place_inside_the_function_is_seen():
    # warnings.simplefilter("error") without a catch_warnings block inserts into the
    # filters' list in place: the recording (on data that raise nothing) kept replaying
    # -inf where the eager call catches the error and returns -1
    import warnings

    def f(x):
        warnings.simplefilter("error", RuntimeWarning)
        try:
            y = np.log(x)
        except RuntimeWarning:
            y = np.full_like(x, -1.0)
        finally:
            warnings.filters.pop(0)
        return y

    jf = ft.jit(f)
    for x in (np.array([1.0, 2.0]), np.array([1.0, 2.0]), np.array([0.0, 2.0])):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # (jit's eager-run warning)
            np.testing.assert_array_equal(jf(x.copy()), f(x.copy()))
