"""Probe round 2: ``jit`` of a function that reads arrays and numbers from outside its
arguments (docs/guides/jit.md, "Values read from outside the arguments"): rebinding
them records again (NOTE [values read from outside under jit]); ``jf.cache.clear()``
records again too, on the fast path of plain-array calls.  Oracle: the plain call."""

import numpy as np

import ftransforms as ft

STATE = {"w": np.array([1.0, 2.0]), "s": 2.0}


def reads_globals(x):
    return x * STATE["w"] + STATE["s"]


def test_rebinding_is_seen_and_clearing_the_cache_records_again():
    STATE.update(w=np.array([1.0, 2.0]), s=2.0)
    jf = ft.jit(reads_globals)
    x = np.ones(2)
    np.testing.assert_array_equal(jf(x), [3.0, 4.0])  # records
    np.testing.assert_array_equal(jf(x), [3.0, 4.0])  # replays (fast path)
    STATE.update(w=np.array([5.0, 5.0]), s=7.0)
    np.testing.assert_array_equal(jf(x), [12.0, 12.0])  # rebound: recorded again
    jf.cache.clear()
    for _ in range(3):  # records again, then replays the new recording
        np.testing.assert_array_equal(jf(x), reads_globals(x))


def test_removing_one_signature_records_it_again():
    STATE.update(w=np.array([1.0, 2.0]), s=2.0)
    jf = ft.jit(reads_globals)
    x = np.ones(2)
    jf(x), jf(x)
    STATE["s"] = -1.0
    (key,) = list(jf.cache)
    del jf.cache[key]
    np.testing.assert_array_equal(jf(x), reads_globals(x))
    np.testing.assert_array_equal(jf(x), reads_globals(x))


def test_a_value_passed_as_an_argument_is_read_at_every_call():
    jf = ft.jit(lambda x, w, s: x * w + s)
    jg = ft.jit(ft.grad(lambda x, w: np.sum(np.sin(x) * w)))
    x = np.array([0.3, -1.2])
    for w, s in [(np.array([1.0, 2.0]), 2.0), (np.array([5.0, -5.0]), 2.0), (np.zeros(2), 2.0)]:
        np.testing.assert_allclose(jf(x, w, s), x * w + s)
        np.testing.assert_allclose(jg(x, w), np.cos(x) * w)
