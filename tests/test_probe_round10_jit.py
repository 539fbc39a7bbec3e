"""Probe round 10 of ``ft.jit``: the recording call and its replays.  Every form runs
``jit(f)`` several times with different data or outside state and compares each call
(the recording one included) with ``f`` called without ``jit`` on fresh arguments (the
oracle): a replay must never return what the recording computed for other data."""

import warnings

import numpy as np

import ftransforms as ft


def agree(f, calls, jf=None, before=None):
    """``jit(f)`` equals ``f`` at each of ``calls`` (argument makers, so that each side
    gets fresh arrays); ``before(k)`` changes outside state before call ``k``."""
    jf = ft.jit(f) if jf is None else jf
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (runs eagerly: said once)
        for k, make in enumerate(calls):
            if before is not None:
                before(k)
            expected = f(*make())
            got = jf(*make())
            np.testing.assert_array_equal(got, expected, err_msg=f"call {k}")
            assert np.asarray(got).dtype == np.asarray(expected).dtype
    return jf


# -- integer and boolean arrays from outside ------------------------------------------

IDX = np.array([0, 1])
SHAPE = np.array([2, 2])


def _at_idx(x):
    y = x.copy()
    y[IDX] += 1.0  # the positions become a mask while recording
    return y


def test_numbers_of_an_outside_index_array_changed_in_place_are_read_again():
    forms = [
        _at_idx,
        lambda x: np.delete(x, IDX),
        lambda x: np.insert(x, IDX, 9.0),
        lambda x: np.repeat(x[:2], IDX + 1),
        lambda x: x[IDX[0]] * 2.0,  # a NumPy integer of it, a Python value while recording
        lambda x: x[: int(IDX[1]) + 1].sum(),
        lambda x: x.reshape(tuple(SHAPE)),
        lambda x: x[IDX],  # (read as an operand: replayed as it is, and checked)
    ]
    for f in forms:
        IDX[:] = [0, 1]
        SHAPE[:] = [2, 2]
        news = [[0, 1], [0, 1], [2, 3], [3, 0], [1, 1]]

        def before(k, news=news):
            IDX[:] = news[k]
            SHAPE[:] = [1, 4] if news[k][0] == 2 else [2, 2]

        agree(f, [lambda: (np.arange(4.0),)] * len(news), before=before)
