"""Round 14 probes of ``jit``'s recording call and replay: each call must compute what
calling the undecorated function computes (a replay that differs is a silent wrong
answer; a recording that fails where the function runs is a crash)."""

import contextlib
import contextvars
import threading
import warnings
from typing import NamedTuple

import numpy as np
import pytest

import ftransforms as ft
from tests.tolerances import assert_tree_close, tol

X = np.array([0.3, -1.2, 2.5])
TOL64 = tol(np.float64)  # (the compiled tier's math functions differ in the last bits)


def close(got, want):
    assert_tree_close(got, want, **TOL64)


def _lengths(x, names):
    return x * np.array([len(n) for n in names])


def _is_b(x, names):
    return x[names == "b"]


@pytest.mark.parametrize(
    "names",
    [
        [np.array(["a", "bb", "ccc"]), np.array(["ccc", "b", "aa"])],
        [np.array([b"a", b"bb", b"ccc"]), np.array([b"ccc", b"b", b"aa"])],
        [np.array(["a", "bb", "ccc"], dtype=object), np.array(["ccc", "b", "aa"], dtype=object)],
    ],
    ids=["str", "bytes", "object"],
)
def test_arrays_of_strings_or_objects_run_eagerly(names):
    """``np.array(["a", "bb"])`` or an object array as an argument: it was traced as an
    input, so Python code on its elements (``len(n)``) failed in the recording
    (``len() of a 0-d array``; ``'str' object has no attribute 'shape'``)."""
    jl, jb = ft.jit(_lengths), ft.jit(_is_b)
    with pytest.warns(RuntimeWarning, match="array of"):
        jl(X, names[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for _ in range(2):
            for n in names:
                close(jl(X, n), _lengths(X, n))
                if n.dtype.kind == "U":
                    close(jb(X, n), _is_b(X, n))


# -- a setting held in a ContextVar -----------------------------------------------------

TRAINING = contextvars.ContextVar("training", default=False)
CONFIG = contextvars.ContextVar("config")


@contextlib.contextmanager
def _training():
    token = TRAINING.set(True)
    try:
        yield
    finally:
        TRAINING.reset(token)


def _dropout_scale(x):
    return x * (0.5 if TRAINING.get() else 1.0) + CONFIG.get()["shift"]


def test_a_context_variable_is_read_in_the_context_of_each_call():
    """``TRAINING.get()`` of a ``contextvars.ContextVar`` set by a ``with`` block: the
    variable's value was a constant of the recording, so calls inside the block replayed
    the value outside it; a replay in another thread (its own context) too."""
    jf = ft.jit(_dropout_scale)
    token = CONFIG.set({"shift": 1.0})
    try:
        for _ in range(2):
            close(jf(X), _dropout_scale(X))
            with _training():
                close(jf(X), _dropout_scale(X))
        CONFIG.set({"shift": 2.0})  # a new object in the variable
        close(jf(X), _dropout_scale(X))
        CONFIG.get()["shift"] = 3.0  # the same dict, changed
        close(jf(X), _dropout_scale(X))
        out = {}

        def other():  # a thread starts from an empty context: the defaults
            CONFIG.set({"shift": -1.0})
            out["jit"], out["eager"] = jf(X), _dropout_scale(X)

        t = threading.Thread(target=other)
        t.start()
        t.join()
        close(out["jit"], out["eager"])
        close(jf(X), _dropout_scale(X))
    finally:
        CONFIG.reset(token)


# -- results are new arrays --------------------------------------------------------------


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x,
        lambda x: x[::2],
        lambda x: x.T,
        lambda x: x.reshape(4, 3),
        lambda x: (x, x[0]),
        lambda x: np.asarray(x)[::-1],
    ],
    ids=["itself", "step", "T", "reshape", "row", "asarray"],
)
def test_a_result_is_never_a_view_of_an_argument(fn):
    """docs/guides/jit.md "Results are new arrays": ``return x.T`` is a C-ordered copy
    at every call (the first included), so that writing into it leaves the argument be."""
    jf = ft.jit(fn)
    for _ in range(3):
        a = np.arange(12.0).reshape(3, 4)
        before = a.copy()
        got, want = jf(a), fn(a)
        for g, w in zip(
            got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)
        ):
            close(g, w)
            assert not np.shares_memory(g, a) and g.flags.c_contiguous
            g[...] = -1.0
        close(a, before)


# -- an array-like object of the user's ------------------------------------------------------


class _ArrayLike:
    """A wrapper NumPy reads through ``__array__`` (``np.asarray(obj)``)."""

    def __init__(self, a):
        self.a = a

    def __array__(self, dtype=None, copy=None):
        return self.a


HELD = _ArrayLike(np.array([0.5, 1.0, 2.0]))


def _from_held(x):
    return np.sin(np.asarray(HELD)) + x  # by NumPy: a constant of the recording


def _from_argument(x, obj):
    return x * np.exp(np.asarray(obj)).sum()


def test_an_array_like_whose_array_changes_in_place_records_again():
    """``np.asarray(obj)`` of a user's object with ``__array__`` (a global one, or passed
    in as a static argument): the array it returns, changed in place (``obj.a[0] +=
    1``), was not checked, since no code the guards visited named ``a``, so the replay
    kept the value NumPy had derived from the old numbers."""
    arg = _ArrayLike(np.array([0.1, 0.2, 0.3]))

    def bump_held():
        HELD.a[0] += 1.0

    def bump_arg():
        arg.a[1] -= 0.5

    jh, ja = ft.jit(_from_held), ft.jit(_from_argument)
    for change in (None, bump_held, bump_arg, bump_held, bump_arg):
        if change is not None:
            change()
        for _ in range(2):
            close(jh(X), _from_held(X))
            close(ja(X, arg), _from_argument(X, arg))


# -- class attributes read through an object with __slots__ ---------------------------------


class _Slotted:
    __slots__ = ("w",)
    k = 2.0  # a class attribute, read as ``self.k``

    def __init__(self):
        self.w = np.ones(3)

    def __call__(self, x):
        return x * self.w * self.k

    def scaled(self, x):
        return x * self.k


class _Settings:
    __slots__ = ("lr",)
    k = 2.0

    def __init__(self):
        self.lr = 0.5


SETTINGS = _Settings()


def _with_settings(x):
    return x * SETTINGS.lr + x * SETTINGS.k


def _with_layer(x, layer):
    return layer(x) + layer.scaled(x)


def test_class_attributes_read_through_an_object_with_slots_record_again():
    """``self.k`` of a class with ``__slots__`` (a bound method, a callable layer passed
    in, a global settings object): such an object has no ``__dict__``, and the class's
    fields were guarded only for objects with one, so ``Class.k = 5.0`` replayed 2.0."""
    layer = _Slotted()
    cases = [
        (layer.scaled, (X,)),
        (_with_layer, (X, layer)),
        (_with_settings, (X,)),
    ]
    jitted = [ft.jit(f) for f, _ in cases]

    def set_class(cls, v):
        return lambda: setattr(cls, "k", v)

    changes = [
        None,
        set_class(_Slotted, 3.0),
        set_class(_Settings, 4.0),
        lambda: setattr(SETTINGS, "lr", 0.25),
        set_class(_Slotted, 2.0),
        set_class(_Settings, 2.0),
    ]
    for change in changes:
        if change is not None:
            change()
        for _ in range(2):
            for jf, (f, args) in zip(jitted, cases):
                close(jf(*args), f(*args))


# -- an optional attribute named by a string ----------------------------------------------


class _Block:
    def __init__(self):
        self.w = np.array([1.0, 2.0, 0.5])

    def __call__(self, x):
        y = x * self.w
        if hasattr(self, "bias"):  # an optional field, set later
            y = y + self.bias
        return y * getattr(self, "boost", 1.0)


OPTIONS = type("Options", (), {})()  # a plain object of settings


def _with_options(x):
    return x * getattr(OPTIONS, "gain", 1.0)


def test_an_optional_attribute_set_after_the_recording_records_again():
    """``getattr(self, "boost", 1.0)`` or ``hasattr(self, "bias")`` of an attribute that
    was absent while recording: setting it later replayed the absent path (only the
    attributes the code assigns were checked to be still absent)."""
    block = _Block()
    jb, jo = ft.jit(block), ft.jit(_with_options)
    changes = [
        None,
        lambda: setattr(block, "boost", 3.0),
        lambda: setattr(block, "bias", np.ones(3)),
        lambda: setattr(OPTIONS, "gain", 2.5),
        lambda: delattr(block, "boost"),
    ]
    for change in changes:
        if change is not None:
            change()
        for _ in range(2):
            close(jb(X), block(X))
            close(jo(X), _with_options(X))


# -- the methods of a NamedTuple of the user's ------------------------------------------------

SCALE = 2.0


class _Params(NamedTuple):
    w: np.ndarray
    b: np.ndarray

    K = 1.5  # a class attribute (no field)

    def apply(self, x):
        return x * np.exp(self.w) * SCALE + self.b  # exp by NumPy: a constant

    def scaled(self, x):
        return (x + self.b) * self.K


PARAMS = _Params(np.array([0.1, 0.2, 0.3]), np.zeros(3))


def _apply_global(x):
    return PARAMS.apply(x) + PARAMS.scaled(x)


def test_the_methods_of_a_named_tuple_read_what_changed():
    """``jit(params.apply)`` of a ``NamedTuple`` with methods, or ``PARAMS.apply(x)`` of a
    global one: ``self.w`` is an item of a tuple, no field, so ``np.exp(self.w)`` after
    ``params.w[0] += 1`` replayed the old value; and the methods the code names were not
    followed (a global ``SCALE`` they read, the class's ``K``)."""
    global SCALE
    own = _Params(np.array([0.5, -0.5, 1.0]), np.ones(3))
    jb, jg = ft.jit(own.apply), ft.jit(_apply_global)

    def set_scale(v):
        def change():
            global SCALE
            SCALE = v

        return change

    changes = [
        None,
        lambda: own.w.__setitem__(0, 2.0),
        lambda: PARAMS.w.__setitem__(1, -1.0),
        set_scale(3.0),
        lambda: setattr(_Params, "K", 4.0),
        set_scale(2.0),
    ]
    try:
        for change in changes:
            if change is not None:
                change()
            for _ in range(2):
                close(jb(X), own.apply(X))
                close(jg(X), _apply_global(X))
    finally:
        SCALE = 2.0
        _Params.K = 1.5


# -- a method that calls the one it overrides -------------------------------------------------

GAIN = 2.0


class _Base:
    k = 1.0

    def forward(self, x):
        return x * GAIN * self.k


class _Middle(_Base):
    pass


class _Child(_Middle):
    def forward(self, x):
        return super().forward(x) + 1.0


class _Explicit(_Base):
    def forward(self, x):
        return _Base.forward(self, x) - 1.0


def test_what_the_method_super_calls_reads_records_again():
    """``super().forward(x)`` (or ``Base.forward(self, x)``) in a subclass's method: only
    the first definition along the class's MRO was followed, so a global the base's
    method reads (``GAIN``) and a class attribute it reads through ``self`` were not
    guarded, and changing them replayed the old values."""
    global GAIN
    child, explicit = _Child(), _Explicit()
    jc, je = ft.jit(child.forward), ft.jit(explicit.forward)

    def set_gain(v):
        def change():
            global GAIN
            GAIN = v

        return change

    changes = [None, set_gain(3.0), lambda: setattr(_Base, "k", 5.0), set_gain(2.0)]
    try:
        for change in changes:
            if change is not None:
                change()
            for _ in range(2):
                close(jc(X), child.forward(X))
                close(je(X), explicit.forward(X))
    finally:
        GAIN, _Base.k = 2.0, 1.0


# -- a layer whose __call__ is inherited ---------------------------------------------------------

STRENGTH = 2.0


class _Module:
    """``__call__`` dispatching to ``forward``, as a torch-style base class does."""

    def __call__(self, *args):
        return self.forward(*args)


class _Linear(_Module):
    k = 1.0

    def __init__(self):
        self.w = np.array([[1.0, 0.5, 0.0], [0.0, 1.0, 0.0], [0.5, 0.0, 2.0]])

    def forward(self, x):
        return x @ self.w * STRENGTH * self.k


class _Net(_Module):
    def __init__(self):
        self.l1 = _Linear()

    def forward(self, x):
        return np.tanh(self.l1(x))


def test_what_forward_reads_under_an_inherited_call_records_again():
    """``jit(net)`` or ``jit(net.forward)`` where ``__call__`` is inherited from a base
    class that calls ``self.forward(x)``: only a ``__call__`` of the object's own class
    was followed, so the global and the class attribute ``forward`` reads replayed
    stale after a change."""
    global STRENGTH
    net = _Net()
    jn, jf = ft.jit(net), ft.jit(net.forward)

    def set_strength(v):
        def change():
            global STRENGTH
            STRENGTH = v

        return change

    changes = [None, set_strength(3.0), lambda: setattr(_Linear, "k", 0.5), set_strength(2.0)]
    try:
        for change in changes:
            if change is not None:
                change()
            for _ in range(2):
                close(jn(X), net(X))
                close(jf(X), net.forward(X))
    finally:
        STRENGTH, _Linear.k = 2.0, 1.0


# -- the methods of the layers in a list or a dict --------------------------------------------

SHIFT = 0.5


class _Dense:
    k = 1.0

    def __init__(self, w):
        self.w = w

    def __call__(self, x):
        return np.tanh(x @ self.w) * self.k + SHIFT

    def act(self, x):
        return np.sin(x) * SHIFT


class _Stack:
    def __init__(self):
        self.layers = [_Dense(np.eye(3)), _Dense(np.eye(3) * 0.5)]
        self.heads = {"out": _Dense(np.ones((3, 3)))}

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.heads["out"].act(x)


def test_what_the_layers_in_a_list_read_records_again():
    """``for layer in self.layers: x = layer(x)``: the layers' fields were guarded, but
    not what their ``__call__`` and the methods the code names read (a global
    ``SHIFT``, the class attribute ``k`` through ``self``), which replayed stale."""
    global SHIFT
    stack = _Stack()
    jf = ft.jit(stack.forward)

    def set_shift(v):
        def change():
            global SHIFT
            SHIFT = v

        return change

    changes = [None, set_shift(1.5), lambda: setattr(_Dense, "k", 3.0), set_shift(0.5)]
    try:
        for change in changes:
            if change is not None:
                change()
            for _ in range(2):
                close(jf(X), stack.forward(X))
    finally:
        SHIFT, _Dense.k = 0.5, 1.0


# -- a class the function makes objects of -------------------------------------------------

FACTOR = 2.0


class _Scaler:
    c = 1.0

    def __init__(self, s):
        self.s = s * FACTOR

    def __call__(self, x):
        return x * self.s * self.c

    @staticmethod
    def helper(x):
        return x + FACTOR


def _make_and_call(x):
    return _Scaler(2.0)(x) + _Scaler.helper(x)


def test_what_a_class_made_inside_the_function_reads_records_again():
    """``_Scaler(2.0)(x)`` and ``_Scaler.helper(x)`` of a global class: its ``__init__``
    and ``__call__`` run without being named, and a staticmethod is no function in the
    class's dict, so the global ``FACTOR`` they read and the class's ``c`` replayed
    stale after a change."""
    global FACTOR
    jf = ft.jit(_make_and_call)

    def set_factor(v):
        def change():
            global FACTOR
            FACTOR = v

        return change

    changes = [None, set_factor(3.0), lambda: setattr(_Scaler, "c", 4.0), set_factor(2.0)]
    try:
        for change in changes:
            if change is not None:
                change()
            for _ in range(2):
                close(jf(X), _make_and_call(X))
    finally:
        FACTOR, _Scaler.c = 2.0, 1.0


# -- special methods Python runs for the code -------------------------------------------------

OFFSET = 2.0
SPREAD = 1.0


class _Table:
    def __init__(self):
        self.rows = [1.0, 2.0]

    def __getitem__(self, i):
        return self.rows[i] * OFFSET

    def __len__(self):
        return len(self.rows) + int(OFFSET)


class _Value:
    def __float__(self):
        return OFFSET * 1.5


TABLE, VALUE = _Table(), _Value()


class _Holder:
    def __init__(self):
        self.table = _Table()

    def forward(self, x):
        return x * self.table[1]

    def __getitem__(self, i):
        return SPREAD * (i + 1)

    def own(self, x):
        return x * self[2]  # its own ``__getitem__``


def _uses_protocols(x):
    return x * TABLE[0] + len(TABLE) + x * float(VALUE)


def test_what_special_methods_read_records_again():
    """``TABLE[0]``, ``len(TABLE)``, ``float(VALUE)`` of the user's objects (global, a
    field, or ``self[2]`` in a method): Python runs ``__getitem__``, ``__len__``,
    ``__float__`` without the code naming them, so the global they read was not guarded
    and replayed stale."""
    global OFFSET, SPREAD
    holder = _Holder()
    jg, jh, jo = ft.jit(_uses_protocols), ft.jit(holder.forward), ft.jit(holder.own)

    def set_offset(v):
        def change():
            global OFFSET
            OFFSET = v

        return change

    def set_spread(v):
        def change():
            global SPREAD
            SPREAD = v

        return change

    try:
        for change in (None, set_offset(3.0), set_spread(4.0), set_offset(5.0)):
            if change is not None:
                change()
            for _ in range(2):
                close(jg(X), _uses_protocols(X))
                close(jh(X), holder.forward(X))
                close(jo(X), holder.own(X))
    finally:
        OFFSET, SPREAD = 2.0, 1.0


class _Unit:
    c = 1.0

    @property
    def scale(self):
        return SHIFT * 2.0


UNITS = [_Unit()]


def _item_fields(x):
    return x * UNITS[0].c + UNITS[0].scale


def test_class_attributes_and_properties_of_an_item_record_again():
    """``UNITS[0].c`` (a class attribute) and ``UNITS[0].scale`` (a property reading a
    global) of an object in a list: neither was guarded, only the item's own fields."""
    global SHIFT
    jf = ft.jit(_item_fields)

    def set_shift(v):
        def change():
            global SHIFT
            SHIFT = v

        return change

    try:
        for change in (None, lambda: setattr(_Unit, "c", 3.0), set_shift(4.0)):
            if change is not None:
                change()
            for _ in range(2):
                close(jf(X), _item_fields(X))
    finally:
        SHIFT, _Unit.c = 0.5, 1.0
