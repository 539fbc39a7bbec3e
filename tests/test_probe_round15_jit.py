"""Round 15 probes of ``jit``'s recording call and replay: each call must compute what
calling the undecorated function computes (a replay that differs is a silent wrong
answer)."""

import math
import os
import random
import warnings

import numpy as np
import pytest

import ftransforms as ft
from tests import test_jit_recording as recording
from tests.tolerances import assert_tree_close, tol

X = np.array([0.3, -1.2, 2.5])
TOL64 = tol(np.float64)


def close(got, want):
    assert_tree_close(got, want, **TOL64)


# -- an outside array used as an operand and through NumPy --------------------------------

W = np.eye(3) * 2.0


def _norm_added(x):
    return x @ W + np.linalg.norm(W)  # np.float64 from W, beside the operand W


def _float_of_sum(x):
    return x @ W * float(W.sum())  # a Python float from W


def _element(x):
    return (x @ W) * W[0, 1]  # a NumPy scalar read from W


def _column_norms(x):
    return x @ W / np.linalg.norm(W, axis=0)  # an array from W (weight normalization)


@pytest.mark.parametrize("fn", [_norm_added, _float_of_sum, _element, _column_norms])
def test_a_value_derived_from_an_operand_array_follows_its_in_place_change(fn):
    """``x @ W + np.linalg.norm(W)``, then ``W -= lr * g`` between calls: the replay
    read the new ``W`` as the operand but added the recording's norm (documented as a
    known limit): the arrays that are operands are now checked too where the recording
    holds a constant such a value may be."""
    global W
    W = np.eye(3) * 2.0 + np.arange(9.0).reshape(3, 3) * 0.1
    jf = ft.jit(fn)
    close(jf(X), fn(X))
    for step in range(3):
        W -= 0.25 * (step + 1)  # in place: the same object
        close(jf(X), fn(X))
        close(jf(X), fn(X))


def test_operand_arrays_of_a_transform_alone_are_not_checked():
    """``jit(grad(loss))`` of a global data set: the transform's own constants (ones, a
    fill of ``1/n``, ``2``) are no values from the data, so no replay compares the data's
    numbers (it reads the arrays themselves)."""
    data, target = np.linspace(0, 1, 15).reshape(5, 3), np.linspace(-1, 1, 5)

    def loss(w):
        return ((data @ w - target) ** 2).mean() + 0.5 * np.sum(w**3)

    jg = ft.jit(ft.grad(loss))
    jg(np.ones(3))
    (program,) = jg.cache.values()
    assert program.guards is not None
    assert not any("numbers of an array" in n for n in program.guards.names)
    data *= 2.0  # the operands are read at every replay
    close(jg(np.ones(3)), ft.grad(loss)(np.ones(3)))


# -- an array of Python objects from outside ----------------------------------------------

OBJECTS = np.array([1.0, 2.0, 3.0], dtype=object)


def _object_scale(x):
    return x * float(OBJECTS[0])


def test_an_object_array_from_outside_changed_in_place_records_again():
    """An array of Python objects was left out of the value check: ``OBJECTS[0] = 5.0``
    between calls replayed the old factor."""
    OBJECTS[0] = 1.0
    jf = ft.jit(_object_scale)
    close(jf(X), _object_scale(X))
    OBJECTS[0] = 5.0
    close(jf(X), _object_scale(X))
    close(jf(X), X * 5.0)


# -- an attribute of a function --------------------------------------------------------------


def _own_attribute(x):
    return x * _own_attribute.scale  # a function attribute, set from outside


def _helper_with_attribute(x):
    return x + _helper_with_attribute.shift


def _calls_helper(x):
    return _helper_with_attribute(x) * 2.0


def test_a_function_attribute_set_between_calls_records_again():
    """``f.scale = 3.0`` between calls (a function's attribute as a setting): the
    function was followed for what it reads, but its own attributes were not guarded,
    so the replay kept the recording's value."""
    _own_attribute.scale = 2.0
    _helper_with_attribute.shift = np.array([1.0, 1.0, 1.0])
    jf, jg = ft.jit(_own_attribute), ft.jit(_calls_helper)
    close(jf(X), X * 2.0)
    close(jg(X), _calls_helper(X))
    _own_attribute.scale = 3.0
    _helper_with_attribute.shift = np.array([5.0, 5.0, 5.0])
    close(jf(X), X * 3.0)
    close(jg(X), (X + 5.0) * 2.0)
    _helper_with_attribute.shift[0] = -1.0  # in place: its numbers are read
    close(jg(X), _calls_helper(X))


class _Settings:
    factor = 2.0
    shift = 3.0


def _settings_helper(x):
    return x + _Settings.shift


def _settings_user(x):
    return _settings_helper(x) * _Settings.factor


def test_class_attributes_a_helper_reads_besides_the_caller_record_again():
    """The caller reads ``_Settings.factor``, the helper it calls ``_Settings.shift``: the
    class's fields were read once, for the first code's names, so ``shift`` was never
    guarded and a new value replayed the old one."""
    _Settings.shift = 3.0
    jf = ft.jit(_settings_user)
    close(jf(X), (X + 3.0) * 2.0)
    _Settings.shift = 10.0
    close(jf(X), (X + 10.0) * 2.0)
    _Settings.factor = -1.0
    close(jf(X), _settings_user(X))


# -- the recording fuzz, with more statement kinds --------------------------------------------

N_FUZZ = int(os.environ.get("FTRANSFORMS_JIT_FUZZ15_EXAMPLES", "16"))
FUZZ_SEED = int(os.environ.get("FTRANSFORMS_JIT_FUZZ15_SEED", "150000"))


class WiderGen(recording.Gen):
    """``recording.Gen``'s programs with more statements: ``np.where``, ``np.sort``,
    ``np.clip``, ``np.cumsum``, ``np.abs``, and reads of the carry whose value picks a
    reversal or a shift (``np.roll`` by an ``argmax`` read)."""

    def step(self, pad: str, depth: int, index: str | None) -> list:
        kinds = ["where", "sort", "clip", "cumsum", "abs"]
        if self.carry_reads:
            kinds += ["max_read", "roll_read"]
        if self.r.random() < 0.5:
            return super().step(pad, depth, index)
        kind, num = self.r.choice(kinds), self.num
        if kind == "where":
            return [f"{pad}c = L.np.where(c > {num()}, c * {num(0.3, 1.1)}, L.np.sin(c))"]
        if kind == "sort":
            return [f"{pad}c = L.np.sort(c) * {num(0.3, 1.1)}"]
        if kind == "clip":
            lo = num(-1.5, 0)
            return [f"{pad}c = L.np.clip(c, {lo}, {round(lo + num(0.5, 2), 2)})"]
        if kind == "cumsum":
            return [f"{pad}c = L.np.cumsum(c) * {num(0.2, 0.6)}"]
        if kind == "abs":
            return [f"{pad}c = L.np.abs(c) * {num(0.3, 1.1)} - {num(0, 0.5)}"]
        self.reads = True
        if kind == "max_read":
            return [f"{pad}c = c * {num(0.3, 1.1)} if L.read(c.max() > {num()}) else c[::-1]"]
        return [f"{pad}c = L.np.roll(c, L.read(L.np.argmax(c))) * {num(0.3, 1.1)}"]


def _wider_case(seed: int) -> tuple[str, str, bool]:
    r = random.Random(seed)
    stack = r.choice(recording.STACKS)
    gen = WiderGen(seed * 7919 + 1, carry_reads=not recording._batched(stack))
    return stack, gen.program(), gen.reads


@pytest.mark.parametrize("seed", range(FUZZ_SEED, FUZZ_SEED + N_FUZZ))
def test_fuzz_recording_with_more_statement_kinds(seed):
    """Four calls per program (the recording and three replays, each on new inputs, so
    that value reads take new branches) against eager ftransforms and JAX."""
    stack, source, reads = _wider_case(seed)
    prog = recording.compile_program(source)
    seeds = tuple(4 * seed + k for k in range(4))
    try:
        recording.check(prog, stack, seeds=seeds, reads=reads, scale=0.7)
    except Exception as err:
        raise AssertionError(f"fuzz seed {seed}, stack {stack}, program:\n{source}\n{err}") from err


# -- an item's own attribute shadowing its class's, a property replaced ------------------------


class _Scaled:
    k = 2.0

    def __call__(self, x):
        return x * self.k


class _WithProperty:
    @property
    def k(self):
        return 2.0

    def apply(self, x):
        return x * self.k


def test_an_items_own_attribute_shadowing_its_class_attribute_records_again():
    """``layers[1].k = 5.0`` on an object in a closed-over list, whose class has ``k``:
    the class attribute was guarded, not the item's own (documented as a known limit),
    so the replay kept ``_Scaled.k``; deleting it again shows the class's once more."""
    layers = [_Scaled(), _Scaled()]

    def f(x):
        return sum(layer(x) for layer in layers)

    jf = ft.jit(f)
    close(jf(X), X * 4.0)
    layers[1].k = 5.0
    close(jf(X), X * 7.0)
    del layers[1].k
    close(jf(X), X * 4.0)


def test_a_property_replaced_on_the_class_records_again():
    """``C.k = property(...)`` after the recording: what the getter read was followed,
    but the class's entry itself was not guarded."""
    obj = _WithProperty()
    jf = ft.jit(obj.apply)
    close(jf(X), X * 2.0)
    saved = _WithProperty.k
    try:
        _WithProperty.k = property(lambda self: 5.0)
        close(jf(X), X * 5.0)
    finally:
        _WithProperty.k = saved
    close(jf(X), X * 2.0)


# -- a value read that is a signed zero ---------------------------------------------------------


def _sign_of_first(x):
    return x * math.copysign(1.0, float(x[0]))  # Python tells -0.0 from 0.0


def _sign_of_listed(x):
    return x * math.copysign(1.0, x.tolist()[0])


def _nan_first(x):
    return x * (2.0 if math.isnan(float(x[0])) else 3.0)


@pytest.mark.parametrize("fn", [_sign_of_first, _sign_of_listed])
def test_a_read_of_minus_zero_is_not_the_read_of_zero(fn):
    """A value read is checked with ``==``, for which ``-0.0`` equals ``0.0``: a call with
    ``-0.0`` where the recording read ``0.0`` replayed the ``+1`` the recording's
    ``math.copysign`` gave."""
    jf = ft.jit(fn)
    for first in (0.0, -0.0, 0.0, -0.0):
        x = np.array([first, 1.0, -2.0])
        close(jf(x), fn(x))


def test_a_nan_read_again_replays_its_path():
    """A NaN read (``math.isnan``) matches the NaN the recording read: replayed, as the
    same Python path; a number takes its own."""
    jf = ft.jit(_nan_first)
    for first in (np.nan, np.nan, 1.0, np.nan):
        x = np.array([first, 1.0, -2.0])
        close(jf(x), _nan_first(x))
    x = np.array([np.nan, 1.0, -2.0])
    (program,) = jf.cache.values()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a replay, not an eager run after a failed check
        close(program.call(x), x * 2.0)


# -- a jitted function that calls a global jit(grad(f)) ------------------------------------

SCALE = np.array([2.0])


def _scaled_energy(x):
    return np.sum(x**2) * float(SCALE[0])


_ENERGY_GRAD = ft.jit(ft.grad(_scaled_energy))
_BATCHED_GRAD = ft.vmap(ft.grad(_scaled_energy))


def _step(x):
    return x - 0.1 * _ENERGY_GRAD(x)


def _batched_step(xs):
    return xs - 0.1 * _BATCHED_GRAD(xs)


@pytest.mark.parametrize(("fn", "shape"), [(_step, (3,)), (_batched_step, (2, 3))])
def test_what_a_called_chain_of_transform_wrappers_reads_records_again(fn, shape):
    """``_ENERGY_GRAD = jit(grad(loss))`` called by a jitted step: a library wrapper whose
    ``__wrapped__`` is another library wrapper was taken for a library function, so what
    ``loss`` reads (``SCALE``) was never guarded and a change replayed the old value."""
    SCALE[0] = 2.0
    x = np.linspace(-1.0, 1.0, int(np.prod(shape))).reshape(shape)
    jf = ft.jit(fn)
    close(jf(x), x - 0.1 * 2.0 * 2.0 * x)
    SCALE[0] = 5.0
    close(jf(x), x - 0.1 * 2.0 * 5.0 * x)


_ONES = np.ones(3)


def _times_own_max(x, *, w=_ONES):
    return x * w * np.max(w)  # the max is 1.0 at the recording: x * 1.0 is not recorded


def test_a_derived_value_that_was_one_at_the_recording_is_still_checked():
    """``x * w * np.max(w)`` with ``w`` all ones when recorded: the product by the derived
    ``1.0`` is not recorded (``x * 1``), so no constant showed that a value had been
    derived from ``w``, and after ``w[0] = 5.0`` the replay used the new ``w`` with the old
    maximum."""
    w = _times_own_max.__kwdefaults__["w"]
    w[:] = 1.0
    jf = ft.jit(_times_own_max)
    close(jf(X), X)
    w[0] = 5.0
    close(jf(X), _times_own_max(X))
    close(jf(X), X * w * 5.0)
