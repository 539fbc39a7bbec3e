"""Probe round: NumPy's own random draws inside a jitted function are drawn afresh on every
call (the eager semantics), never replayed as constants of the recording."""

import functools
import warnings

import numpy as np
import pytest

import ftransforms as ft

X = np.ones(5)
RNG = np.random.default_rng(0)


def legacy_global_draw(v):
    return v + np.random.normal(size=5)


def module_generator_draw(v):
    return v * RNG.random()


def helper_that_draws(v):
    return v + RNG.normal(size=5)


def calls_a_helper(v):
    return 2 * helper_that_draws(v)


class Dropout:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def __call__(self, v):
        return v * (self.rng.random(v.shape) > 0.5)

    def noisy(self, v):
        return v + self.rng.normal(size=v.shape)


def closure_draw(seed):
    rng = np.random.default_rng(seed)
    return lambda v: v + rng.standard_normal(5)


DRAWING = {
    "np.random.normal": legacy_global_draw,
    "module Generator": module_generator_draw,
    "a helper's Generator": calls_a_helper,
    "callable object": Dropout(1),
    "bound method": Dropout(2).noisy,
    "closure": closure_draw(3),
    "partial": functools.partial(lambda v, r: v * r.random(), r=np.random.default_rng(4)),
    "jit(vmap(grad(...)))": ft.vmap(
        ft.grad(lambda v: np.sum(v * RNG.normal(size=5))), randomness="same"
    ),
}


@pytest.mark.parametrize("name", list(DRAWING))
def test_every_call_draws_afresh_as_eagerly(name):
    f = DRAWING[name]
    arg = np.stack([X, 2 * X]) if name.startswith("jit(vmap") else X
    j = ft.jit(f)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        outs = [np.asarray(j(arg)) for _ in range(4)]
    # eager semantics: the draws differ from call to call (four equal results from
    # continuous or 32-element Bernoulli draws have probability ~0)
    assert not all(np.array_equal(outs[0], o) for o in outs[1:])


def test_a_seeded_draw_matches_the_eager_sequence():
    f = Dropout(7).noisy
    eager = Dropout(7).noisy
    j = ft.jit(f)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for _ in range(3):
            np.testing.assert_array_equal(j(X), eager(X))


def test_the_recording_says_why_it_runs_eagerly():
    with pytest.warns(RuntimeWarning, match="NumPy random generator"):
        ft.jit(module_generator_draw)(X)


def test_a_function_that_does_not_draw_is_still_replayed():
    calls = []

    def f(v):
        calls.append(1)
        return v * RNG.bit_generator.state["state"]["inc"] % 3  # reads, never draws

    j = ft.jit(f)
    for _ in range(3):
        np.testing.assert_array_equal(j(X), f(X))
    assert len(calls) == 4  # the recording call, then replays (and the oracle calls)
