"""Probe round 9 of ``ft.jit``: the recording call and its replays.  Every form runs
``jit(f)`` several times with different data and compares each call (the recording one
included) with ``f`` called without ``jit`` (the oracle): a replay must never return what
the recording computed for other data (a stale replay)."""

import warnings

import numpy as np
import pytest

import ftransforms as ft

A = np.array([1.0, -2.0, 3.0])
B = np.array([-1.0, 2.0, 5.0])


def agree(f, calls, jf=None):
    """``jit(f)(*args)`` equals ``f(*args)`` for each of ``calls``, in order."""
    jf = ft.jit(f) if jf is None else jf
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (runs eagerly: said once)
        for args in calls:
            np.testing.assert_array_equal(jf(*args), f(*args))
    return jf


# -- errors the function catches -----------------------------------------------------


def test_an_error_of_the_data_that_the_function_catches_is_not_replayed():
    """``inv`` raised for the recording's singular matrix and the function took its
    ``except`` branch: a replay for an invertible one must not return that branch's
    zeros (the error decided the path as an ``if`` on the data would)."""

    def safe_inv(m):
        try:
            return np.linalg.inv(m)
        except np.linalg.LinAlgError:
            return np.zeros_like(m)

    def checked_sqrt(x):
        with np.errstate(invalid="raise"):  # the caller's setting is the same: no change
            try:
                return np.sqrt(x)
            except FloatingPointError:
                return np.full_like(x, -1.0)

    agree(safe_inv, [(np.zeros((2, 2)),), (2 * np.eye(2),), (np.zeros((2, 2)),)])
    with np.errstate(invalid="raise"):
        agree(checked_sqrt, [(-A,), (np.abs(B),), (-A,)])


def test_a_recording_without_errors_is_still_replayed():
    calls = []

    def f(m):
        calls.append(1)
        try:
            return np.linalg.inv(m)
        except np.linalg.LinAlgError:
            return np.zeros_like(m)

    jf = ft.jit(f)
    for k in (2.0, 4.0):
        np.testing.assert_array_equal(jf(k * np.eye(2)), np.eye(2) / k)
    assert len(calls) == 1  # the second call replayed


# -- Python state passed as an argument ------------------------------------------------


def test_an_iterator_argument_gives_its_next_item_at_every_call():
    """``next(batches)`` of an iterator passed in: jax.jit refuses the argument; replaying
    the first item would be stale, so that signature runs eagerly (with a warning)."""

    def scale(x, it):
        return x * next(it)

    def items():
        yield from (1.0, 2.0, 3.0)

    for make in (lambda: iter([1.0, 2.0, 3.0]), items):
        jf, it, want = ft.jit(scale), make(), make()
        with pytest.warns(RuntimeWarning, match="iterator argument"):
            jf(A, it)
        scale(A, want)
        for _ in range(2):
            np.testing.assert_array_equal(jf(A, it), scale(A, want))


# -- values read from outside: containers that are subclasses ----------------------------


def changes_agree(f, changes):
    """``jit(f)`` and ``f`` agree before and after each change (twice each)."""
    jf = ft.jit(f)
    for change in (None, *changes):
        if change is not None:
            change()
        for _ in range(2):
            np.testing.assert_array_equal(jf(A), f(A))


def test_subclasses_of_dict_list_and_tuple_read_from_outside_are_guarded():
    """An ``OrderedDict`` of parameters, a ``defaultdict``, an attribute dict (whose
    ``__getattr__`` raises KeyError: it broke the walk over what ``f`` reads, under
    ``vmap`` too), a list subclass, a ``deque`` and a namedtuple of parameters: changed
    or rebound, the next call computes with the new values."""
    import collections

    class AttrDict(dict):
        __getattr__ = dict.__getitem__

    Params = collections.namedtuple("Params", "w b")
    cfg = AttrDict(k=2.0)
    ordered = collections.OrderedDict(w=np.ones(3))
    counts = collections.defaultdict(float, k=1.0)
    window = collections.deque([2.0])
    ns = {"params": Params(np.ones(3), 1.0)}
    exec("def f(x):\n    return x * params.w + params.b\n", ns)  # noqa: S102 - a global

    changes_agree(lambda x: x * cfg.k, [lambda: cfg.__setitem__("k", 3.0)])
    np.testing.assert_array_equal(ft.vmap(lambda x: x * cfg.k)(np.ones((2, 3))), 3.0)
    changes_agree(
        lambda x: x * ordered["w"] + counts["k"] + window[-1],
        [
            lambda: ordered.__setitem__("w", np.full(3, 4.0)),
            lambda: counts.__setitem__("k", 5.0),
            lambda: window.append(7.0),
        ],
    )
    changes_agree(ns["f"], [lambda: ns.__setitem__("params", Params(np.full(3, 3.0), 2.0))])


def test_a_module_imported_inside_the_function_has_its_fields_guarded():
    """``import settings`` (or ``from settings import scale``) inside the function: the
    module is no global of it, but its fields are read from outside all the same."""
    import sys
    import types

    settings = types.ModuleType("probe9_settings")
    settings.scale = 2.0
    sys.modules["probe9_settings"] = settings
    try:

        def f(x):
            import probe9_settings

            return x * probe9_settings.scale

        def g(x):
            from probe9_settings import scale

            return x + scale

        for fn in (f, g):
            changes_agree(fn, [lambda: setattr(settings, "scale", settings.scale + 1.0)])
    finally:
        del sys.modules["probe9_settings"]


def test_an_unhashable_non_array_leaf_is_refused_with_the_fix_named():
    import dataclasses

    from ftransforms.core.stack import current_stack

    @dataclasses.dataclass
    class Layer:  # (eq=True: unhashable; not a registered pytree: a leaf)
        w: np.ndarray

    def apply(layer, x):
        return layer.w * x

    with pytest.raises(TypeError, match=r"^jit\(apply\): .*unhashable Layer.*register_pytree"):
        ft.jit(apply)(Layer(A), B)
    assert current_stack() == ()
    ft.register_pytree_node(Layer, lambda m: ((m.w,), None), lambda _, ch: Layer(*ch))
    agree(apply, [(Layer(A), B), (Layer(B), A)])


def _guarded_step(c, x):
    try:
        r = np.linalg.inv(np.eye(2) * x)
    except np.linalg.LinAlgError:  # a singular step: the body's own way out
        r = np.zeros((2, 2))
    return c + r.sum() * c, r.sum()


def _scan_loss(c, xs):
    c, ys = ft.scan(_guarded_step, c, xs)
    return c + ys.sum()


def _fori_loss(xs):
    return ft.fori_loop(0, 3, lambda i, c: _guarded_step(c, xs[i])[0], np.array(1.0))


def _one(xs):
    return (np.array(1.0), xs)


def _two(xs):
    return (np.array(1.0), np.stack([xs, xs + 1.0]))


@pytest.mark.parametrize(
    "fn, make",
    [
        (_scan_loss, _one),
        (ft.grad(_scan_loss), _one),
        (ft.vmap(_scan_loss, in_dims=(None, 0)), _two),
        (_fori_loss, lambda xs: (xs,)),
        (ft.grad(_fori_loss), lambda xs: (xs,)),
    ],
    ids=["scan", "grad-scan", "vmap-scan", "fori", "grad-fori"],
)
def test_a_loop_whose_body_catches_an_error_of_some_step(fn, make):
    """The recorded body holds no ``try``: run over the real steps at the recording it
    raised (scan) or was replayed with the branch of the recording's data (fori_loop).
    Now such a loop runs step by step, as the body's own code does."""
    jf = ft.jit(fn)
    for xs in ([1.0, 0.0, 2.0], [1.0, 4.0, 2.0], [0.0, 1.0, 2.0]):
        args = make(np.array(xs))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (eagerly; vmap splits the batch)
            np.testing.assert_allclose(jf(*args), fn(*args), rtol=1e-14)


def test_generators_held_in_containers_objects_partials_and_bit_generators_draw_afresh():
    """A ``Generator`` reached through a global list, a field of an object argument, the
    same ``functools.partial`` passed at every call, or a ``BitGenerator`` argument: each
    call draws new numbers, as without ``jit`` (the recording runs eagerly)."""
    import functools

    class State:
        pass

    def noise(x, rng):
        return x + rng.normal(size=3)

    def through_list(x):
        return x + RNGS[0].normal(size=3)

    def through_field(x, state):
        return x + state.rng.normal(size=3)

    def through_partial(x, fn):
        return fn(x)

    def through_bits(x, bits):
        return x + np.random.Generator(bits).random(3)

    def states(seed):
        state = State()
        state.rng = np.random.default_rng(seed)
        return state

    cases = [
        (through_list, lambda seed: None),
        (through_field, states),
        (through_partial, lambda seed: functools.partial(noise, rng=np.random.default_rng(seed))),
        (through_bits, lambda seed: np.random.PCG64(seed)),
    ]
    global RNGS
    for fn, make in cases:
        RNGS = [np.random.default_rng(7)]
        mine, theirs = make(7), make(7)
        jf = ft.jit(fn)
        got = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            for _ in range(3):
                got.append(jf(A) if mine is None else jf(A, mine))
        RNGS = [np.random.default_rng(7)]
        want = [fn(A) if theirs is None else fn(A, theirs) for _ in range(3)]
        np.testing.assert_array_equal(np.stack(got), np.stack(want))


RNGS: list = []


def test_an_output_object_that_is_no_pytree_and_holds_arrays_is_refused():
    """``Result(w=x * 2)`` of an unregistered class was a constant of the recording: the
    first call returned it holding a tracer, and every replay the same object.  As
    ``vmap`` and ``grad`` (and ``jax.jit``) do, such an output is refused, naming the fix;
    objects without arrays (a config returned as it is) stay constants."""
    import types

    from ftransforms.core.stack import current_stack

    class Result:
        def __init__(self, w):
            self.w = w

    def fit(x):
        return x.sum(), Result(x * 2)

    def namespace(x):
        return types.SimpleNamespace(w=x * 2)

    for fn, kind in ((fit, "Result"), (namespace, "SimpleNamespace")):
        with pytest.raises(TypeError, match=rf"^jit\({fn.__name__}\): an output is a {kind}"):
            ft.jit(fn)(A)
        assert current_stack() == ()

    def rows(x):  # a generator function: its body runs only when iterated
        yield x * 2

    def scaler(x):  # a closure over a traced array
        return lambda y: y * x

    with pytest.raises(TypeError, match=r"^jit\(scaler\): an output is a function"):
        ft.jit(scaler)(A)
    for fn, kind in ((rows, "generator"), (lambda x: map(np.sin, [x]), "map")):
        with pytest.raises(TypeError, match=rf"^jit\(.*\): the function returned a {kind}"):
            ft.jit(fn)(A)
        assert current_stack() == ()
    cfg = types.SimpleNamespace(lr=0.1)
    agree(lambda x: (x * 2, cfg)[0], [(A,), (B,)])
    assert ft.jit(lambda x: (x * 2, cfg))(A)[1] is cfg


def test_a_traced_value_kept_past_the_recording_is_not_read_as_a_stale_number():
    """``self.last = x * 2`` inside a jitted method keeps a value of the call (a Python
    side effect, which replays would not repeat); reading it later as numbers
    (``.tolist()``, ``.item()``, ``float()``) gave the recording's values silently.  It
    is stored as its array and the signature runs eagerly (NOTE [traced values stored
    outside under jit]), so every read sees the last call's numbers, as without jit."""

    class Model:
        @ft.jit
        def __call__(self, x):
            self.last = x * 2
            self.total = x.sum() * 1.0
            return x + 1

    model = Model()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        model(A)
        model(B)
    assert model.last.tolist() == (B * 2).tolist()
    assert model.total.item() == float(model.total) == B.sum()
    assert int(model.total) == int(B.sum())


def test_the_fields_of_an_argument_with_slots_are_guarded():
    """A config or a model with ``__slots__`` passed as an argument (a static leaf, the
    same object at every call): a field set to a new value, or an array field changed
    in place, shows at the next call, as for an object with a ``__dict__``."""

    class Config:
        __slots__ = ("k", "w")

        def __init__(self, k, w):
            self.k, self.w = k, w

    class Scale:
        __slots__ = ("k",)

        def __init__(self, k):
            self.k = k

        def __call__(self, x):
            return x * self.k

    cfg, scale = Config(2.0, np.ones(3)), Scale(2.0)

    def f(x, c):
        return x * c.k + c.w

    def g(x, fn):
        return fn(x)

    jf, jg = ft.jit(f), ft.jit(g)
    for change in (
        None,
        lambda: setattr(cfg, "k", 5.0),
        lambda: setattr(cfg, "w", np.full(3, 7.0)),
        lambda: cfg.w.__setitem__(0, 1.0),
        lambda: setattr(scale, "k", 4.0),
    ):
        if change is not None:
            change()
        for _ in range(2):
            np.testing.assert_array_equal(jf(A, cfg), f(A, cfg))
            np.testing.assert_array_equal(jg(A, scale), g(A, scale))


def test_the_attributes_of_a_class_passed_as_an_argument_are_guarded():
    class Model:
        w = 2.0

        @classmethod
        def apply(cls, x):
            return x * cls.w

    def f(x, model):
        return model.apply(x) + model.w

    changes_agree_args = [None, lambda: setattr(Model, "w", 3.0)]
    jf = ft.jit(f)
    for change in changes_agree_args:
        if change is not None:
            change()
        for _ in range(2):
            np.testing.assert_array_equal(jf(A, Model), f(A, Model))


def test_the_data_of_a_registered_node_changed_in_place_records_again():
    """A pytree node whose flatten keeps a dict of settings besides its leaves: the same
    dict, changed in place, was still equal to the recording's key (it was the same
    object), so the old setting was replayed."""

    class Layer:
        def __init__(self, w, cfg):
            self.w, self.cfg = w, cfg

    ft.register_pytree_node(
        Layer, lambda m: ((m.w,), m.cfg), lambda cfg, leaves: Layer(leaves[0], cfg)
    )

    def apply(layer, x):
        return layer.w * x * layer.cfg["scale"]

    cfg = {"scale": 2.0}
    jf = ft.jit(apply)
    for scale in (2.0, 7.0, 7.0, 2.0):
        cfg["scale"] = scale
        np.testing.assert_array_equal(jf(Layer(A, cfg), B), apply(Layer(A, cfg), B))
    assert len(jf.cache) == 2


def test_a_replay_that_raises_runs_eagerly_on_copies_of_the_arguments():
    """The eager run after a replay raised (NOTE [a replay that raises]) got the caller's
    arrays themselves: an ``except`` branch that regularises its argument in place wrote
    into them, which no other call of ``jit`` (the recording, a signature that runs
    eagerly) does."""

    def robust_inv(m):
        try:
            return np.linalg.inv(m)
        except np.linalg.LinAlgError:
            m[0, 0] = 1.0
            return np.linalg.inv(m)

    singular = np.array([[0.0, 0.0], [0.0, 1.0]])
    for jf, call in (
        (ft.jit(robust_inv), lambda jf, m: jf(m)),  # the fast path
        (ft.jit(lambda d: robust_inv(d["m"])), lambda jf, m: jf({"m": m})),
    ):
        call(jf, np.eye(2))
        mine = singular.copy()
        np.testing.assert_array_equal(call(jf, mine), robust_inv(singular.copy()))
        np.testing.assert_array_equal(mine, singular)


def test_what_a_property_getter_reads_is_guarded():
    """``self.scale`` of a ``property`` whose getter reads a global and a class
    attribute: rebinding either shows at the next call (as a plain field does)."""
    ns: dict = {"G": 2.0}
    exec(  # noqa: S102 - the test's own source: a module whose globals the test rebinds
        "class Model:\n"
        "    k = 1.0\n"
        "    @property\n"
        "    def scale(self):\n"
        "        return G * self.k\n"
        "    def __call__(self, x):\n"
        "        return x * self.scale\n",
        ns,
    )
    model = ns["Model"]()
    jm = ft.jit(model)
    for change in (None, lambda: ns.__setitem__("G", 5.0), lambda: setattr(ns["Model"], "k", 3.0)):
        if change is not None:
            change()
        for _ in range(2):
            np.testing.assert_array_equal(jm(A), model(A))
