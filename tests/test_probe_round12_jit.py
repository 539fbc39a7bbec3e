"""Probe round 12 of ``ft.jit``: the recording call and its replays.  A stateful function
is run as a sequence of calls twice, with fresh state: once without ``jit`` (the oracle)
and once jitted; each call of the jitted sequence must equal the eager one."""

import warnings

import numpy as np

import ftransforms as ft


def same_sequence(make, n=4, arg=lambda k: (np.ones(2),)):
    """``make()`` returns a function with fresh state; its eager and jitted sequences of
    ``n`` calls agree.  Returns the jitted function."""
    f = make()
    expected = [f(*arg(k)) for k in range(n)]
    jf = ft.jit(make())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (runs eagerly: said once)
        got = [jf(*arg(k)) for k in range(n)]
    for k, (g, e) in enumerate(zip(got, expected)):
        np.testing.assert_array_equal(g, e, err_msg=f"call {k}")
    return jf


# -- containers the recording changes (NOTE [containers the recording changes]) ---------

LOG = []
CFG = {"log": []}


def _global_log():
    del LOG[:]

    def f(x):
        LOG.append(1)
        return x * len(LOG)

    return f


def _closure_list():
    hist = []

    def f(x):
        hist.append(2.0)
        return x + sum(hist)

    return f


def _dict_grows():
    cache = {}

    def f(x):
        cache[len(cache)] = 1
        return x * len(cache)

    return f


def _set_grows():
    seen = set()

    def f(x):
        seen.add(len(seen))
        return x * len(seen)

    return f


def _string_key_log():
    CFG["log"] = []

    def f(x):
        CFG["log"].append("step")
        return x * len(CFG["log"])

    return f


def _default_list():
    def f(x, calls=[]):  # noqa: B006 - the mutable default is the point
        calls.append(1)
        return x * len(calls)

    return f


class _Counter:
    def __init__(self):
        self.steps = 0

    def __call__(self, x):
        self.steps += 1
        return x * self.steps


def test_a_container_the_function_changes_and_reads_is_not_replayed_stale():
    """``LOG.append(1); return x * len(LOG)``: the recording's change was dropped as a
    side effect, and every replay computed with the recording's length (1, 1, 1 for 1,
    2, 3)."""
    for make in (_global_log, _closure_list, _dict_grows, _set_grows, _string_key_log):
        same_sequence(make)
    same_sequence(_default_list)
    same_sequence(_Counter)


def test_a_counter_the_function_changes_at_every_call_runs_eagerly_after_one_try():
    """A change of its own at every call records again once, then runs eagerly (no
    recording per call, no warning that a value read from outside keeps changing)."""
    jf = same_sequence(_Counter, n=6)
    (program,) = jf.cache.values()
    assert program.value_dependent and "a change it makes at every call" in program.reason


def test_a_memo_the_recording_fills_once_replays_after_one_more_recording():
    memo = {}
    recorded = []

    def f(x):
        recorded.append(1)
        if "n" not in memo:
            memo["n"] = x.shape[0] // 2
        return x[: memo["n"]] * 2.0

    jf = ft.jit(f)
    for k in range(4):
        np.testing.assert_array_equal(jf(np.full(4, float(k))), np.full(2, 2.0 * k))
    assert len(recorded) == 2  # the second call follows the filled memo, then replays


def test_a_container_the_function_only_changes_is_a_side_effect_of_the_recording():
    """``calls.append(1)`` counts recordings, as under jax.jit (docs/guides/jit.md)."""
    calls, names = [], {}

    def f(x):
        calls.append(1)
        names["k"] = "v"
        CFG["log"].append("step")
        return x * 2.0

    CFG["log"] = []
    jf = ft.jit(f)
    for _ in range(3):
        np.testing.assert_array_equal(jf(np.ones(2)), [2.0, 2.0])
    assert len(calls) == 1 and len(CFG["log"]) == 1


# -- NumPy's error handling and warnings filters set inside ------------------------------


def _errstate_ignore(x):
    with np.errstate(divide="ignore"):
        return np.log(x)


def _filter_ignore(x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.log(x)


def _seterr_ignore(x):
    old = np.seterr(divide="ignore")
    try:
        return np.log(x)
    finally:
        np.seterr(**old)


def _part_ignored(x):
    with np.errstate(divide="ignore"):
        a = np.log(x)
    return a + np.log(x - 1.0)  # x = 1: divide by zero, shown


def _message_ignored(x):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="divide by zero")
        return np.log(x) + np.sqrt(x - 2.0)  # x = 0: invalid value, shown


def warned(f, x):
    """``(result, NumPy's warnings)`` of ``f(x)`` under the filter ``"always"``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = f(x)
    return out, sorted(str(w.message) for w in caught if "jit(" not in str(w.message))


def test_error_handling_and_filters_set_inside_hold_in_the_replay():
    """A replay ran under the caller's settings: ``divide by zero`` printed (and recorded
    by a caller's ``catch_warnings(record=True)``) where the eager call set
    ``np.errstate(divide="ignore")`` or a filter ``"ignore"`` (NOTE [error handling set
    inside under jit]); the operations outside the block still warn."""
    for f in (_errstate_ignore, _filter_ignore, _seterr_ignore, _part_ignored, _message_ignored):
        jf = ft.jit(f)
        for v in (3.0, 1.0, 0.0, 0.0, 1.0):
            x = np.full(2, v)
            (got, got_w), (want, want_w) = warned(jf, x), warned(f, x)
            np.testing.assert_array_equal(got, want, err_msg=f"{f.__name__}({v})")
            assert got_w == want_w, f"{f.__name__}({v})"
        assert not any(p.value_dependent for p in jf.cache.values())


def test_ignore_set_inside_holds_under_the_callers_raise_and_error_filter():
    """Under the caller's ``np.seterr(all="raise")`` or filter ``"error"``, a replay
    raised where the eager call ignores (and only the fallback's eager run hid it)."""
    jf = ft.jit(_errstate_ignore)
    jf(np.ones(2))
    (program,) = jf.cache.values()
    zeros = np.zeros(2)
    with np.errstate(all="raise"):
        np.testing.assert_array_equal(program.call(zeros), _errstate_ignore(zeros))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(program.call(zeros), _errstate_ignore(zeros))


def test_a_loop_body_captured_under_the_librarys_errstate_keeps_the_callers():
    """The library runs a ``while_loop`` body and an untaken ``cond`` branch under its own
    ``np.errstate(all="ignore")`` while capturing them: that setting is not the function's
    and is not replayed (the body still warns as eagerly)."""

    def f(x):
        return ft.while_loop(lambda c: np.sum(c) > 1.0, np.log, x)

    jf = ft.jit(f)
    jf(np.full(2, 30.0))
    (program,) = jf.cache.values()
    assert "while_loop" in str(program) and "@inside" not in str(program)
    x = np.array([0.0, 5.0])
    got, want = warned(jf, x), warned(f, x)
    np.testing.assert_array_equal(got[0], want[0])
    assert got[1] == want[1] != []


# -- a global bound to a library function ------------------------------------------------

ACT = np.tanh


def _activation(x):
    return ACT(x) * 2.0


def test_a_global_bound_to_a_library_function_and_rebound_records_again():
    """``ACT = np.tanh``, then ``ACT = np.sin`` in a notebook cell: a library's function
    found by name was not guarded at all, and the replay kept computing ``tanh`` (a
    plain ``from numpy import tanh`` still gets no check)."""
    global ACT
    jf = ft.jit(_activation)
    try:
        for act in (np.tanh, np.tanh, np.sin, np.cos, np.sin):
            ACT = act
            np.testing.assert_array_equal(jf(np.ones(3)), _activation(np.ones(3)))
    finally:
        ACT = np.tanh


# -- "raise" and "error" set inside replay, a raising replay runs eagerly ----------------


def _checked_log(x):
    with np.errstate(all="raise"):
        try:
            _ = np.log(x)  # (its result unused: the check is the point)
            return x * 2.0
        except FloatingPointError:
            return x * 0.0 - 1.0


def _sqrt_or_abs(x):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        try:
            return np.sqrt(x)
        except RuntimeWarning:
            return np.abs(x)


def _loop_under_raise(x):
    with np.errstate(invalid="raise"):
        try:
            return ft.fori_loop(0, 3, lambda i, c: np.sqrt(c - 1.0), x)
        except FloatingPointError:
            return x * 0.0


def _writes_under_raise(x):
    with np.errstate(divide="raise"):
        try:
            x[0] = 1.0 / x[1]
        except FloatingPointError:
            x[0] = -1.0
    return x * 1.0


def test_raise_and_error_set_inside_replay_and_a_raising_replay_runs_eagerly():
    """A ``np.errstate(all="raise")`` or a filter ``"error"`` set inside made the
    signature run eagerly for good; it replays under the same setting now, and only a
    replay that raises runs the call eagerly (the function's ``try`` sees the error).
    An operation whose result is unused is kept under such a setting: it may raise."""
    data = [lambda v=v: (np.full(2, v),) for v in (5.0, 0.0, 4.0, -1.0, 0.0, 100.0)]
    for f in (_checked_log, _sqrt_or_abs, _loop_under_raise):
        jf = ft.jit(f)
        for make in data:
            np.testing.assert_array_equal(jf(*make()), f(*make()), err_msg=f.__name__)
        assert not any(p.value_dependent for p in jf.cache.values()), f.__name__
    jw = ft.jit(_writes_under_raise)  # a replay that wrote into x is not run again
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (runs eagerly: said once)
        for make in data:
            np.testing.assert_array_equal(jw(*make()), _writes_under_raise(*make()))
    assert all(p.value_dependent for p in jw.cache.values())
