"""Probe round 10 of ``ft.jit``: the recording call and its replays.  Every form runs
``jit(f)`` several times with different data or outside state and compares each call
(the recording one included) with ``f`` called without ``jit`` on fresh arguments (the
oracle): a replay must never return what the recording computed for other data."""

import warnings

import numpy as np
import pytest

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


# -- arrays whose operations a recording would not compute as NumPy does ---------------


def _masked(v):
    return lambda: (np.ma.masked_array([1.0, v, 3.0], mask=[0, 1, 0]),)


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # np.matrix
def test_ndarray_subclasses_and_structured_arrays_run_eagerly():
    def mm(a, b):
        return a * b + a  # a matrix product for np.matrix

    m1, m2 = np.matrix([[1.0, 2.0], [3.0, 4.0]]), np.matrix([[0.0, 1.0], [1.0, 0.0]])
    jf = ft.jit(mm)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for a, b in [(m1, m2), (m2, m1), (np.asarray(m1), np.asarray(m2)), (m1, m1)]:
            got, expected = jf(a, b), mm(a, b)
            assert type(got) is type(expected)
            np.testing.assert_array_equal(got, expected)
    assert sum("subclass of np.ndarray" in str(w.message) for w in caught) == 1

    for f in [lambda x: x.mean(), lambda x: (x**2).std(), lambda x: x * 2]:
        jf = ft.jit(f)
        for make in [_masked(2.0), _masked(7.0)]:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                got = jf(*make())
            expected = f(*make())
            np.testing.assert_array_equal(np.ma.getdata(got), np.ma.getdata(expected))
            np.testing.assert_array_equal(np.ma.getmask(got), np.ma.getmask(expected))

    def fields(r):
        return r["a"] * 2 + r["b"]

    def rec(v):
        return lambda: (np.rec.fromarrays([np.arange(3.0) + v, np.ones(3)], names="a,b"),)

    agree(fields, [rec(0), rec(1)])
    agree(lambda r: r.a * 2, [rec(0), rec(5)])
    plain = [lambda v=v: (np.asarray(rec(v)()[0]),) for v in (0, 2)]  # a structured dtype
    agree(fields, plain)


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
def test_a_write_into_a_subclass_argument_leaves_the_callers_array():
    def f(x):
        x[0, 0] = 100.0
        return x * x

    m = np.matrix([[1.0, 2.0], [3.0, 4.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = ft.jit(f)(m)
    assert m[0, 0] == 1.0
    np.testing.assert_array_equal(got, f(m.copy()))


# -- outputs that view an array from outside -------------------------------------------

E = np.eye(3)


def test_a_returned_view_of_an_outside_array_shows_a_change_made_in_it():
    def row(x):
        return x * 2.0, E[0], {"col": E[:, 1].T, "flat": E.ravel()}

    E[...] = np.eye(3)
    jf = ft.jit(row)
    for k in range(3):
        E[0, 0] = E[1, 1] = 10.0 + k
        got, expected = jf(np.ones(2)), row(np.ones(2))
        for g, e in zip(ft.tree_leaves(got), ft.tree_leaves(expected)):
            np.testing.assert_array_equal(g, e, err_msg=f"call {k}")
    _, view, _ = jf(np.ones(2))
    assert np.shares_memory(view, E)  # as eagerly: a write into it is one into E


def test_print_in_the_recording_call_shows_the_numbers(capsys):
    def f(x):
        print(x)
        return x * 2.0

    jf = ft.jit(f)
    np.testing.assert_array_equal(jf(np.array([1.5, -2.25])), [3.0, -4.5])
    assert "1.5" in capsys.readouterr().out  # as in the eager call (and under grad)
    np.testing.assert_array_equal(jf(np.array([4.0, 1.0])), [8.0, 2.0])
    assert capsys.readouterr().out == ""  # a replay: Python side effects do not run


# -- a long chain of helper functions ----------------------------------------------------

SCALE = 2.0
W_CHAIN = np.ones(2)


def _dense(x):
    return x * W_CHAIN * SCALE


def _block(x):
    return np.tanh(_dense(x)) + 1.0


def _layer(x):
    return _block(x) * 2.0


def _model(x):
    return _layer(x) - 1.0


def _net(x):
    return _model(x)


def _loss(x):
    return _net(x).sum()


def test_a_global_read_at_the_end_of_a_long_call_chain_is_guarded():
    global SCALE, W_CHAIN

    def before(k):
        global SCALE, W_CHAIN
        if k == 2:
            SCALE = 3.0
        if k == 3:
            W_CHAIN = np.full(2, 0.5)

    for f in [_loss, ft.grad(_loss)]:
        SCALE, W_CHAIN = 2.0, np.ones(2)
        agree(f, [lambda: (np.array([0.5, -1.0]),)] * 4, before=before)


def test_an_async_function_is_refused_with_the_fix_named():
    async def f(x):
        return x * 2.0

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (the coroutine is closed: no "never awaited")
        with pytest.raises(TypeError, match=r"^jit\(f\): the function returned a coroutine"):
            ft.jit(f)(np.ones(2))


def test_one_array_returned_twice_is_one_array_at_every_replay():
    def f(x):
        y = x * 2.0
        c = np.zeros(2)
        return y, {"again": y, "equal": x * 2.0}, c, c

    jf = ft.jit(f)
    for _ in range(3):
        y, d, c1, c2 = jf(np.ones(2))
        assert d["again"] is y and d["equal"] is not y and c2 is c1  # as eagerly
        y[0] = 7.0
        assert d["again"][0] == 7.0 and d["equal"][0] == 2.0


# -- NumPy's error handling at a replay --------------------------------------------------


def _chain(x):
    return np.exp(x) * 2.0 + 1.0 / x


def _loop(xs):
    return ft.scan(lambda c, x: (np.tanh(c * 2.0 + np.exp(x)) * 0.5, c * 1.5), np.zeros(4), xs)


def test_errors_numpy_is_set_to_raise_raise_at_replays_of_either_tier():
    from ftransforms.compiled import tier

    for f, ok, bad in [
        (_chain, np.ones(4), np.array([1000.0, 1.0, 1.0, 2.0])),
        (_loop, np.ones((3, 4)), np.full((3, 4), 1000.0)),
    ]:
        jf = ft.jit(f, compile=False)
        jf(ok)
        (program,) = jf.cache.values()
        for compiled in (False, True):
            if compiled and not tier.compile_now(program):
                continue  # (without the optional compiler: the replay only)
            with np.errstate(over="raise"), pytest.raises(FloatingPointError):
                jf(bad)  # as f(bad) does
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                np.testing.assert_allclose(jf(bad)[0], f(bad)[0], rtol=1e-12)


# -- values of the call stored outside the function ------------------------------------

STATE = np.zeros(2)
HISTORY: list = []


def _accumulate(x):
    global STATE
    STATE = STATE + x
    return STATE.sum()


def _logged(x):
    loss = (x**2).sum()
    HISTORY.append(loss)
    return loss


def test_a_value_stored_in_a_global_an_attribute_or_a_cell_is_the_array_numpy_stores():
    global STATE
    STATE = np.zeros(2)
    HISTORY.clear()

    class Net:
        def __call__(self, x):
            self.hidden = np.tanh(x)
            return self.hidden.sum()

    def counter():
        total = np.zeros(2)

        def add(x):
            nonlocal total
            total = total + x
            return total * 1.0

        return add

    net, add = Net(), counter()
    jf, jl, jn, ja = ft.jit(_accumulate), ft.jit(_logged), ft.jit(net), ft.jit(add)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for k in range(3):
            x = np.full(2, float(k + 1))
            assert jf(x) == 2.0 * sum(range(k + 2)) and STATE.tolist() == [sum(range(k + 2))] * 2
            assert jl(x) == 2.0 * (k + 1) ** 2
            jn(x)
            np.testing.assert_array_equal(net.hidden, np.tanh(x))
            np.testing.assert_array_equal(ja(x), np.full(2, sum(range(k + 2))))
    assert [float(h) for h in HISTORY] == [2.0, 8.0, 18.0]
    assert all(isinstance(h, (np.ndarray, np.generic)) for h in HISTORY)  # no tracers
    assert sum("a traced value stored in" in str(w.message) for w in caught) == 4


def test_a_value_appended_to_a_long_global_list_is_the_array_numpy_stores():
    """A long list the function reads is searched only past its old length (the walk of
    an op database's lists cost 25 ms per recording): an append is still found."""
    HISTORY[:] = [np.float64(k) for k in range(200)]
    jl = ft.jit(_logged)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for k in range(2):
            assert jl(np.full(2, float(k + 1))) == 2.0 * (k + 1) ** 2
    assert len(HISTORY) == 202 and [float(h) for h in HISTORY[-2:]] == [2.0, 8.0]
    assert all(isinstance(h, (np.ndarray, np.generic)) for h in HISTORY)
    assert any("a traced value stored in" in str(w.message) for w in caught)


def test_state_set_lazily_on_the_first_call_is_read_at_the_next():
    class RunningNorm:
        def __init__(self):
            self.mean = None

        def __call__(self, x):
            m = x.mean(axis=0)
            self.mean = m if self.mean is None else 0.9 * self.mean + 0.1 * m
            return x - self.mean

    eager, jitted = RunningNorm(), RunningNorm()
    jf = ft.jit(jitted)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for k in range(3):
            x = np.arange(6.0).reshape(3, 2) * (k + 1)
            np.testing.assert_allclose(jf(x), eager(x), rtol=1e-12, err_msg=f"call {k}")
            np.testing.assert_allclose(jitted.mean, eager.mean, rtol=1e-12)


def test_a_setting_made_lazily_on_the_first_call_is_read_at_the_next():
    class Scaler:
        def __init__(self):
            self.scale = None

        def __call__(self, x):
            if self.scale is None:
                self.scale = 2.0
                return x + 0.0
            return x * self.scale

    class Lazy:
        def __call__(self, x):
            if not hasattr(self, "k"):
                self.k = 3.0
                return x + 0.0
            return x * self.k

    for make in (Scaler, Lazy):
        eager, jitted = make(), make()
        jf = ft.jit(jitted)
        for k in range(4):
            x = np.array([1.0, -2.0]) * (k + 1)
            np.testing.assert_array_equal(jf(x), eager(x), err_msg=f"{make.__name__} {k}")
        assert len(jf.cache) == 1  # recorded again once, for the value set
