"""Probe round 5: a jitted function that returns an array from outside its arguments as
it is (``return loss, W`` with a global or closed-over ``W``, ``self.w``, ``CFG['w']``).
Eagerly the function returns ``W`` itself, so after an in-place change (``W[0] = 10``,
an optimiser step ``W -= lr * g``) the next call shows the new numbers.  The replay
returned a copy taken at recording time: the old numbers, silently.  It returns the
array itself now (NOTE [values read from outside under jit]).  Oracle: the eager function
on the same (changed) state."""

import numpy as np

import ftransforms as ft

X = np.array([1.0, -2.0, 0.5])
W = np.array([0.5, 1.5, -1.0])
CFG = {"w": np.array([2.0, 3.0, 4.0])}


def returns_global(x):
    return (x * W).sum(), W


def returns_dict_entry(x):
    return x * 2, CFG["w"]


def check_after_in_place_change(f, state):
    jf = ft.jit(f)
    for step in range(3):
        got, ref = jf(X), f(X)
        for g, r in zip(got, ref):
            np.testing.assert_array_equal(g, r)
        state[step] += 10.0  # an in-place change between calls, as an optimiser's step


def test_a_returned_global_array_shows_its_in_place_changes():
    check_after_in_place_change(returns_global, W)


def test_a_returned_dict_entry_shows_its_in_place_changes():
    check_after_in_place_change(returns_dict_entry, CFG["w"])


def test_a_returned_closed_over_array_and_a_field_show_their_changes():
    scale = np.array([1.0, 2.0, 3.0])

    def closure(x):
        return x + 1, scale

    check_after_in_place_change(closure, scale)

    class Model:
        def __init__(self):
            self.w = np.array([0.1, 0.2, 0.3])

        def __call__(self, x):
            return x @ self.w, self.w

    model = Model()
    check_after_in_place_change(model.__call__, model.w)


def test_the_returned_array_is_the_outside_array_itself_as_eagerly():
    g = np.array([1.0, 2.0])
    jf = ft.jit(lambda x: (x * 2, g))
    for _ in range(2):
        out = jf(np.ones(2))[1]
        assert out is g
