"""The lead's checks of round 13: what the merged branches left between them."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.errors import ArgumentWriteWarning


def _sgd(p, g):
    p["W"] -= 0.1 * g["W"]  # an optimizer step written to update its argument
    return np.sum(p["W"] ** 2)


def test_jit_of_a_function_writing_its_argument_says_the_caller_keeps_its_array():
    """Eagerly the step updates the caller's dict; under jit (as under jax.jit) it does
    not, which an optimizer loop would take for a silent no-op: one warning says so."""
    p, g = {"W": np.ones(3)}, {"W": np.full(3, 2.0)}
    step = ft.jit(_sgd)
    with pytest.warns(ArgumentWriteWarning, match=r"jit\(_sgd\).*never modified"):
        got = step(p, g)
    np.testing.assert_array_equal(p["W"], 1.0)  # the caller's array, unchanged
    want = _sgd({"W": np.ones(3)}, g)  # the eager function's value, on a copy
    np.testing.assert_allclose(got, want)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once per jitted function: no second warning
        step(p, g)
        step({"W": np.ones(4)}, {"W": np.ones(4)})  # a new signature


def test_jit_of_a_function_writing_only_its_own_arrays_does_not_warn():
    def f(x):
        buf = np.zeros_like(x)
        buf += x * 2.0
        y = x.copy()
        y[0] = 5.0
        return buf + y

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = np.arange(3.0)
        np.testing.assert_array_equal(ft.jit(f)(x), f(x))
