"""NOTE [Python numbers are static] (ftransforms/jit.py): a Python number argument is part
of the signature, computed with exactly; a counter that records on every call is named
in one PerformanceWarning, and the array form replays."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.errors import PerformanceWarning


def _decay(i, x):
    return x * (1.0 - 0.9 ** (i + 1))


def test_a_counter_argument_warns_once_and_stays_exact():
    f = ft.jit(_decay)
    x = np.linspace(0.0, 1.0, 5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(20):
            np.testing.assert_allclose(f(i, x), _decay(i, x), rtol=1e-15)
    mine = [w for w in caught if issubclass(w.category, PerformanceWarning)]
    assert len(mine) == 1
    message = str(mine[0].message)
    assert "leaf 0 (int)" in message and "np.asarray(i)" in message
    assert mine[0].filename == __file__  # the caller's line


def test_the_array_form_replays_without_a_warning():
    calls = []

    def counted(i, x):
        calls.append(1)
        return _decay(i, x)

    f = ft.jit(counted)
    x = np.linspace(0.0, 1.0, 5)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PerformanceWarning)
        for i in range(20):
            np.testing.assert_allclose(f(np.asarray(i), x), _decay(i, x), rtol=1e-15)
    assert len(calls) == 1


@pytest.mark.parametrize("value", [2, 2.5])
def test_a_repeated_number_replays(value):
    calls = []
    f = ft.jit(lambda x, n: calls.append(1) or x * n)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PerformanceWarning)
        for _ in range(10):
            f(np.ones(3), value)
    assert len(calls) == 1
