"""jit replays a recording whose Python code read traced values, checking every value
read against the recorded one (NOTE [checked value reads under jit] in ftransforms/jit.py).

Oracle: the same function run eagerly (and a loop over the rows for vmap)."""

import importlib
import warnings

import numpy as np
import pytest

import ftransforms as ft

jit_module = importlib.import_module("ftransforms.jit")


@pytest.fixture
def recordings(monkeypatch):
    """How many recordings jit makes (each one runs the function's Python)."""
    count = [0]
    trace = jit_module._trace

    def counting(*args, **kwargs):
        count[0] += 1
        return trace(*args, **kwargs)

    monkeypatch.setattr(jit_module, "_trace", counting)
    return count


def _quiet():
    """No warnings at all (a signature that runs eagerly warns), except vmap's split."""
    ctx = warnings.catch_warnings()
    ctx.__enter__()
    warnings.simplefilter("error")
    warnings.filterwarnings("ignore", category=ft.errors.PerformanceWarning)
    return ctx


def branchy(x):
    if x.sum() > 0:
        return x * 2.0
    return np.sin(x) - 1.0


def test_scalar_branch_replays_both_branches_and_never_the_wrong_one(recordings):
    jf = ft.jit(branchy)
    rng = np.random.default_rng(0)
    ctx = _quiet()
    try:
        for i in range(12):
            x = rng.normal(size=4) + (3.0 if i % 2 == 0 else -3.0)
            np.testing.assert_array_equal(jf(x), branchy(x))
    finally:
        ctx.__exit__(None, None, None)
    assert recordings[0] == 2  # one per branch; the other ten calls replay
    assert not any(p.value_dependent for p in jf.cache.values())


def test_nested_reads_each_path_its_own_recording(recordings):
    def f(x):
        y = x * 3.0
        if x[0] > 0:
            y = y + 1.0
            if x[1] > 0:
                return y * x
            return y - x
        return -y

    jf = ft.jit(f)
    inputs = [np.array(v) for v in ([1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0])]
    ctx = _quiet()
    try:
        for _ in range(3):
            for x in inputs:
                np.testing.assert_array_equal(jf(x * 2.5), f(x * 2.5))
    finally:
        ctx.__exit__(None, None, None)
    assert recordings[0] == 3  # (-1, 1) and (-1, -1) take one path: x[1] is not read


def test_jit_of_vmap_that_splits_on_the_branch(recordings):
    jf = ft.jit(ft.vmap(branchy))
    a = np.array([[1.0, 2.0], [-1.0, -3.0], [2.0, 0.5]])
    ctx = _quiet()
    try:
        for x in [a, -a, a * 2.0, -a * 3.0, a * [[1.0], [-1.0], [-1.0]]]:
            np.testing.assert_array_equal(jf(x), np.stack([branchy(r) for r in x]))
    finally:
        ctx.__exit__(None, None, None)
    assert recordings[0] == 3  # row patterns (+,-,+), (-,+,-), (+,+,-)


def test_float_of_the_loss_in_a_python_schedule(recordings):
    def step(w):
        loss = (w**2).sum()
        lr = 0.1 if float(loss) > 1.0 else 0.01 * float(loss)
        return w - lr * 2.0 * w

    jf = ft.jit(step)
    ctx = _quiet()
    try:
        for scale in [1.0, 0.1, 1.0, 0.2, 0.1, 3.0]:
            w = np.full(2, scale)
            np.testing.assert_array_equal(jf(w), step(w))
    finally:
        ctx.__exit__(None, None, None)
    assert recordings[0] == 4  # one per loss value seen; repeats replay


def test_mask_whose_count_depends_on_the_data(recordings):
    def f(x):
        kept = x[x > 0]
        return kept * kept.sum(), np.int64(len(kept))

    jf = ft.jit(f)
    rows = [[1.0, -1.0, 2.0], [3.0, -1.0, 5.0], [1.0, 1.0, -2.0], [1.0, -1.0, 2.0]]
    ctx = _quiet()
    try:
        for row in rows:
            x = np.array(row)
            got, want = jf(x), f(x)
            np.testing.assert_array_equal(got[0], want[0])
            assert int(got[1]) == int(want[1])
    finally:
        ctx.__exit__(None, None, None)
    assert recordings[0] == 2  # masks (T,F,T) and (T,T,F)


def test_int_read_deciding_a_shape(recordings):
    def f(x, n):
        return np.zeros(int(n)) + x.sum()

    jf = ft.jit(f)
    ctx = _quiet()
    try:
        for n in [2, 3, 2, 3, 4]:
            x, k = np.arange(3.0) * n, np.array(n)
            np.testing.assert_array_equal(jf(x, k), f(x, k))
    finally:
        ctx.__exit__(None, None, None)
    assert recordings[0] == 3


def test_a_function_without_reads_is_a_plain_program():
    jf = ft.jit(lambda x: np.tanh(x) * 2.0)
    jf(np.ones(3))
    (program,) = jf.cache.values()
    assert type(program) is jit_module.Program


def test_make_program_of_a_branch_still_says_it_depends_on_data():
    program = ft.make_program(branchy)(np.ones(3))
    assert program.value_dependent
    assert str(program).count("%") < 12  # no extra outputs for the reads


def test_a_read_in_a_function_that_writes_its_argument_runs_eagerly():
    def f(x):
        if x.sum() > 0:
            x[0] = 5.0
        return x * 2.0

    jf = ft.jit(f)
    x, y = np.ones(3), -np.ones(3)
    with pytest.warns(RuntimeWarning, match="depends on data"):
        got = jf(x.copy())
    np.testing.assert_array_equal(got, f(x.copy()))
    np.testing.assert_array_equal(jf(y.copy()), f(y.copy()))


def test_many_values_read_stop_recording_at_the_limit(recordings):
    def f(x):
        return x * float(x.sum())

    jf = ft.jit(f)
    ctx = _quiet()
    try:
        for k in range(12):
            x = np.full(2, float(k))
            np.testing.assert_array_equal(jf(x), f(x))
        np.testing.assert_array_equal(jf(np.full(2, 3.0)), f(np.full(2, 3.0)))  # replayed
    finally:
        ctx.__exit__(None, None, None)
    assert recordings[0] == jit_module._BRANCHES  # then the calls run eagerly


def logged(x):
    if x.min() >= 0:
        return np.log(x)
    return x


def test_a_replay_of_the_branch_not_taken_does_not_warn():
    jf = ft.jit(logged)
    jf(np.ones(2))
    jf(np.ones(2))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            np.testing.assert_array_equal(jf(-np.ones(2)), logged(-np.ones(2)))
    assert [str(w.message) for w in caught] == []  # eagerly nothing warns: -1 takes x


def test_the_branch_taken_still_warns_and_raises_as_eagerly():
    jf = ft.jit(logged)
    jf(np.ones(2))
    jf(-np.ones(2))
    with pytest.warns(RuntimeWarning, match="divide by zero encountered in log"):
        np.testing.assert_array_equal(jf(np.zeros(2)), [-np.inf, -np.inf])
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError, match="divide by zero"):
        jf(np.zeros(2))
