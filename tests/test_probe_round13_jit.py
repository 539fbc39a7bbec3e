"""Round 13 probes of ``jit``'s recording call and replay: each replay must compute what
calling the undecorated function again computes (a replay that differs is a silent
wrong answer)."""

import numpy as np

import ftransforms as ft
from tests.test_probe_round8_jit import agree, module

X = np.array([0.3, -1.2, 2.5])


# -- a library function imported under its own name, rebound --------------------------


def test_from_numpy_import_tanh_rebound_to_another_function_records_again():
    """``from numpy import tanh`` then ``tanh = np.sin`` in a notebook cell: the name was
    taken as an import and not checked, so the replay kept computing ``tanh``."""
    m = module(
        "import numpy as np\nfrom numpy import tanh\ndef f(x):\n    return tanh(np.sin(x)) * 2.0\n"
    )

    def rebind(fn):
        return lambda: setattr(m, "tanh", fn)

    agree(m.f, [rebind(np.sin), rebind(np.cos), rebind(np.tanh)])


# -- the environment read through a name of the user's ---------------------------------


def test_the_environment_read_through_a_closed_over_or_renamed_name_records_again(
    monkeypatch,
):
    """``from os import environ`` inside an enclosing function (a closure cell), or a
    global ``ENV = os.environ``: only the names ``environ``/``getenv`` were taken as a
    read of the environment, so setting the variable replayed the old number."""
    from os import environ  # a closure cell of ``scaled``

    def scaled(x):
        return x * float(environ.get("FT_PROBE13_SCALE", "1"))

    m = module(
        "import os\nENV = os.environ\nget = os.getenv\n"
        "def f(x):\n"
        "    return x * float(ENV['FT_PROBE13_SCALE']) + float(get('FT_PROBE13_B', '0'))\n"
    )
    monkeypatch.setenv("FT_PROBE13_SCALE", "2")
    for fn in (scaled, m.f):
        agree(
            fn,
            [
                lambda: monkeypatch.setenv("FT_PROBE13_SCALE", "3"),
                lambda: monkeypatch.setenv("FT_PROBE13_B", "5"),
                lambda: monkeypatch.setenv("FT_PROBE13_SCALE", "2"),
                lambda: monkeypatch.delenv("FT_PROBE13_B"),
            ],
        )


# -- a recording that raises ------------------------------------------------------------

STORE = {}


def _store_then_check(x):
    STORE["last"] = x * 2.0
    if x[0] > 0:
        raise ValueError("positive")
    return x


def test_a_value_stored_outside_before_the_recording_raises_is_an_array():
    """``STORE["last"] = x * 2.0`` and then an error: the stored value stayed a tracer of
    the failed recording (EscapedTracerError at its next use), where NumPy stores an
    array; after a successful call it was already an array."""
    jf = ft.jit(_store_then_check)
    for _ in range(2):
        STORE.clear()
        try:
            jf(X)
        except ValueError:
            pass
        assert type(STORE["last"]) is np.ndarray
        np.testing.assert_array_equal(STORE["last"] + 1.0, X * 2.0 + 1.0)


# -- mutable objects among the outputs ---------------------------------------------------


class _Stats:
    def __init__(self):
        self.seen = 0


def test_a_mutable_object_the_call_makes_is_a_new_one_at_every_call():
    """``return y, set()`` or a ``Stats()`` the caller then updates: every replay returned
    the recording's object, with the caller's earlier changes in it, where each eager call
    returns a new one."""
    import warnings

    def tagged(x):
        return x * 2.0, set()

    def counted(x):
        return np.sin(x), _Stats()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (runs eagerly, says so once)
        jt, jc = ft.jit(tagged), ft.jit(counted)
        for _ in range(3):
            y, tags = jt(X)
            assert tags == set()
            tags.add("seen")
            np.testing.assert_array_equal(y, X * 2.0)
            y, stats = jc(X)
            assert stats.seen == 0
            stats.seen += 1
            np.testing.assert_array_equal(y, np.sin(X))


def test_an_object_from_outside_returned_as_it_is_still_replays():
    """``return y, self`` (the same object at every eager call): replayed, not eager."""
    calls = []

    class Model:
        def __init__(self):
            self.w = np.ones(3)

        def step(self, x):
            calls.append(1)
            return x * self.w, self

    m = Model()
    jf = ft.jit(m.step)
    for _ in range(3):
        y, back = jf(X)
        assert back is m
        np.testing.assert_array_equal(y, X)
    assert len(calls) == 1


# -- values the user's NumPy code derives from an outside array --------------------------


class _Gaussian:
    def __init__(self):
        self.mean = np.array([0.5, -0.5, 1.0])
        self.log_std = np.zeros(3)

    def sample(self, eps):
        return self.mean + np.exp(self.log_std) * eps  # exp by NumPy: a constant


A_GLOBAL = np.array([[2.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.5, 4.0]])


def _solve_with_global(x):
    return np.linalg.inv(A_GLOBAL) @ x  # inv by NumPy, the product recorded


def test_a_value_numpy_derives_from_an_outside_array_changed_in_place_records_again():
    """``np.exp(self.log_std)``, ``A.sum()`` of a closed-over array, ``np.linalg.inv(A)``
    of a global: the user's NumPy computes them before any traced operation, so the
    recording held their old values, and an in-place update (``log_std -= lr * g``)
    replayed stale numbers."""
    model = _Gaussian()
    closed = np.ones(3)

    def scaled(x):
        return x * closed.sum()

    def step_std():
        model.log_std -= 0.25

    def step_closed():
        closed[0] += 2.0

    def step_global():
        A_GLOBAL[0, 0] += 1.0

    threshold = np.array([3.0])

    def gated(x):  # a Python branch on an outside float array's number
        return x * 2.0 if threshold[0] > 1.0 else -x

    def lower():
        threshold[0] -= 2.5

    agree(gated, [lower, lower])
    agree(model.sample, [step_std, step_std])
    agree(scaled, [step_closed, step_closed])
    agree(_solve_with_global, [step_global, step_global])


def test_an_attribute_named_like_an_imported_function_adds_no_check():
    """``np.tanh`` in a module that also has ``from numpy import tanh``: the attribute's
    name is no read of the global, which gets no check (nothing to pay per replay)."""
    from ftransforms.jit_guards import guards_of

    m = module(
        "import numpy as np\nfrom numpy import tanh\n"
        "def f(x):\n    return np.tanh(np.sin(x)) * 2.0\n"
    )
    assert guards_of(m.f) is None


def test_immutable_objects_among_the_outputs_replay_as_they_are():
    """A class (``np.float32``, whose ``copy`` is an unbound method: the recording raised
    a TypeError), a dtype, an enum member, a frozen dataclass, a builtin, a str subclass:
    returned as they are at every replay, which replays (no eager run, no warning)."""
    import dataclasses
    import enum
    import warnings

    class Mode(enum.Enum):
        TRAIN = 1

    class Tag(str):
        pass

    @dataclasses.dataclass(frozen=True)
    class Meta:
        n: int

    outs = (np.float32, np.dtype("f4"), Mode.TRAIN, Meta(3), len, Tag("t"), frozenset({1}))
    calls = []

    def f(x):
        calls.append(1)
        return x * 2.0, outs

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jf = ft.jit(f)
        for _ in range(3):
            y, back = jf(X)
            np.testing.assert_array_equal(y, X * 2.0)
            assert all(a is b for a, b in zip(back, outs))
    assert len(calls) == 1


# -- static keyword arguments in the caller's order ----------------------------------------


def test_static_keyword_arguments_reach_kwargs_in_the_callers_order():
    """``f(x, b=2.0, a=1.0)`` with ``static_argnames=("a", "b")``: the function got the
    static keyword arguments sorted and after the others, so ``**kw`` saw ``a`` first
    and the replay computed with it; eagerly ``b`` is first.  (``jax.jit`` sorts every
    keyword argument, by its pytree flattening; ``jit`` keeps the order of the call, as
    it does for the other keyword arguments, so that it computes what ``f`` does.)"""

    def first(x, **kw):
        return x * next(iter(kw.values()))

    def names(x, **kw):
        return x * len("".join(kw)[:1] * (2 if next(iter(kw)) == "s" else 1))

    jf = ft.jit(first, static_argnames=("a", "b"))
    jn = ft.jit(names, static_argnames="s")
    y = np.full(3, 3.0)
    for _ in range(2):
        for kw in ({"b": 2.0, "a": 1.0}, {"a": 1.0, "b": 2.0}):
            np.testing.assert_array_equal(jf(X, **kw), first(X, **kw))
        for kw in ({"s": 1, "y": y}, {"y": y, "s": 1}):
            np.testing.assert_array_equal(jn(X, **kw), names(X, **kw))
