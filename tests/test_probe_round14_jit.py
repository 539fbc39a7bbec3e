"""Round 14 probes of ``jit``'s recording call and replay: each call must compute what
calling the undecorated function computes (a replay that differs is a silent wrong
answer; a recording that fails where the function runs is a crash)."""

import warnings

import numpy as np
import pytest

import ftransforms as ft

X = np.array([0.3, -1.2, 2.5])


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
                np.testing.assert_array_equal(jl(X, n), _lengths(X, n))
                if n.dtype.kind == "U":
                    np.testing.assert_array_equal(jb(X, n), _is_b(X, n))
