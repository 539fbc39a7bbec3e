"""``jit``'s first call records and nothing more (issue 25), and the replay's spellings.

The program passes run at the first replay (NOTE [deferred program passes]), the compiled
tier is attached then, no full garbage collection runs during a recording (NOTE [no full
collections while recording]), and an outer-product ``multiply`` is replayed as
``einsum`` (``_outer_product`` in ``ftransforms/program.py``).  Every check compares
with eager execution or plain NumPy.
"""

from __future__ import annotations

import gc

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.compiled import tier


def _program(jitted):
    (program,) = jitted.cache.values()
    return program


def test_passes_run_at_the_first_replay_and_every_call_matches_eager():
    def f(x, y):
        a = np.sin(x) * y
        b = np.sin(x) * y  # a repeated call: shared by the passes
        np.cos(x)  # dead
        return a + b, x * 2.0

    x, y = np.linspace(0.0, 1.0, 5), np.linspace(1.0, 2.0, 5)
    want = f(x, y)
    g = ft.jit(f, compile=False)
    first = g(x, y)
    program = _program(g)
    assert program._pending is not None  # the first call only recorded
    for got, ref in zip(first, want):
        np.testing.assert_array_equal(got, ref)
    second = g(x, y)
    assert program._pending is None
    assert program.recorded > len(program)  # shared and dead calls dropped
    assert [e.prim.name for e in program.eqns].count("sin") == 1
    for got, ref in zip(second, want):
        np.testing.assert_array_equal(got, ref)
    new = (x + 1.0, y * 3.0)
    for got, ref in zip(g(*new), f(*new)):
        np.testing.assert_array_equal(got, ref)


def test_make_program_shows_the_simplified_program_before_any_replay():
    prog = ft.make_program(lambda x: np.sin(x) + np.sin(x) * 0.0 + np.cos(x) * 0.0)(np.zeros(3))
    assert prog.recorded == 7
    assert str(prog).count("sin") == 1
    assert "def program(a0)" in prog.source


@pytest.mark.skipif(not tier.available(), reason="the optional compiler is not installed")
def test_compile_after_the_first_call_keeps_the_compiled_tier(monkeypatch, tmp_path):
    from ftransforms.compiled import cache

    monkeypatch.setenv("FTRANSFORMS_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(cache, "_DIR", None)
    monkeypatch.setenv("FTRANSFORMS_JIT_COMPILE", "auto")
    f = lambda x: np.tanh(np.sin(x) * 1.5 + 0.25) * x - x  # noqa: E731
    g = ft.jit(f)
    x = np.random.default_rng(0).standard_normal(4)
    np.testing.assert_array_equal(g(x), f(x))
    assert g.compile() == 1
    program = _program(g)
    assert program.tier == "compiled"
    np.testing.assert_allclose(g(x), f(x), rtol=1e-15, atol=0)
    assert program.tier == "compiled"  # the replay attached later did not replace it


def test_the_collector_settings_are_restored_after_a_recording():
    saved = gc.get_threshold()
    ft.jit(lambda x: np.sin(x) * 2.0)(np.ones(3))
    assert gc.get_threshold() == saved

    def fails(x):
        assert gc.get_threshold()[2] > saved[2]  # no full collections while recording
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        ft.jit(fails)(np.ones(3))
    assert gc.get_threshold() == saved


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # inf * 0
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "a_shape, b_shape",
    [((16, 1, 200), (16, 30, 1)), ((300, 1), (1, 70)), ((2, 3, 1, 50), (2, 3, 60, 1))],
)
def test_outer_product_replay_is_einsum_and_equals_numpy(dtype, a_shape, b_shape):
    rng = np.random.default_rng(0)
    f = ft.jit(lambda a, b: a * b, compile=False)
    a = rng.normal(size=a_shape).astype(dtype)
    b = rng.normal(size=b_shape).astype(dtype)
    a.flat[:3] = [np.inf, np.nan, -0.0]
    b.flat[:3] = [0.0, 2.0, 5.0]
    np.testing.assert_array_equal(f(a, b), a * b)  # recorded
    assert "->" in _program(f).source  # the einsum spelling
    for _ in range(2):
        a2 = rng.normal(size=a_shape).astype(dtype)
        b2 = rng.normal(size=b_shape).astype(dtype)[..., ::-1] if b_shape[-1] > 1 else None
        if b2 is None:
            b2 = rng.normal(size=b_shape).astype(dtype)
        got = f(a2, b2)
        assert got.dtype == dtype and got.flags.c_contiguous
        np.testing.assert_array_equal(got, a2 * b2)


@pytest.mark.parametrize(
    "a, b",
    [
        (np.ones((16, 1, 200), np.int64), np.ones((16, 30, 1), np.int64)),  # not float
        (np.ones((16, 1, 200), np.float32), np.ones((16, 30, 1), np.float64)),  # mixed
        (np.ones((4, 1, 8)), np.ones((4, 8, 1))),  # small: NumPy's call is cheaper
        (np.ones((16, 30, 200)), np.ones((16, 30, 1))),  # one-sided broadcast
        (np.ones((1, 50, 200)), np.ones((16, 50, 200))),  # one-sided broadcast
    ],
)
def test_other_multiplies_are_replayed_as_multiply(a, b):
    f = ft.jit(lambda a, b: a * b, compile=False)
    f(a, b)
    assert "->" not in _program(f).source
    np.testing.assert_array_equal(f(a, b), a * b)


def test_per_example_gradients_replay_their_outer_products_as_einsum():
    def loss(w, x):
        return np.sum(np.tanh(x @ w) ** 2)

    rng = np.random.default_rng(1)
    w = rng.normal(size=(64, 32)).astype(np.float32)
    xs = rng.normal(size=(16, 64)).astype(np.float32)
    per_example = ft.vmap(ft.grad(loss), in_dims=(None, 0))
    f = ft.jit(per_example, compile=False)
    want = per_example(w, xs)
    np.testing.assert_array_equal(f(w, xs), want)
    np.testing.assert_array_equal(f(w, xs), want)
    assert "->" in _program(f).source
    xs2 = rng.normal(size=(16, 64)).astype(np.float32)
    np.testing.assert_array_equal(f(w, xs2), per_example(w, xs2))


@pytest.mark.parametrize(
    "a_shape, b_shape",
    [((320, 1), (1, 40)), ((32, 10, 1), (32, 1, 40)), ((10, 1), (8, 1, 300))],
)
def test_matmul_over_one_term_replays_as_einsum(a_shape, b_shape):
    rng = np.random.default_rng(2)
    f = ft.jit(lambda a, b: a @ b, compile=False)
    a = rng.normal(size=a_shape).astype(np.float32)
    b = rng.normal(size=b_shape).astype(np.float32)
    np.testing.assert_array_equal(f(a, b), a * b)  # what the implementation computes
    assert "->" in _program(f).source
    a2, b2 = rng.normal(size=a_shape).astype(np.float32), rng.normal(size=b_shape)
    b2 = b2.astype(np.float32)
    np.testing.assert_allclose(f(a2, b2), np.matmul(a2, b2), rtol=1e-6)
    np.testing.assert_array_equal(f(a2, b2), a2 * b2)


def test_broadcast_of_different_ranks_uses_trailing_subscripts():
    f = ft.jit(lambda a, b: a * b, compile=False)
    a, b = np.arange(300.0).reshape(300, 1), np.linspace(0, 1, 4 * 50).reshape(4, 1, 50)
    np.testing.assert_array_equal(f(a, b), a * b)
    np.testing.assert_array_equal(f(a, b), a * b)
    assert "'bc,abc->abc'" in _program(f).source


def test_nested_and_threaded_recordings_restore_the_collector_once():
    import threading

    saved = gc.get_threshold()
    inner = ft.jit(lambda x: np.sin(x) + 1.0)
    outer = ft.make_program(lambda x: inner(x) * 2.0)  # jit inside a recording
    np.testing.assert_array_equal(outer(np.ones(3)).call(np.zeros(3)), (np.sin(0.0) + 1.0) * 2)
    assert gc.get_threshold() == saved

    # recording 1 starts, recording 2 starts, recording 1 ends, recording 2 ends
    inside = [threading.Event(), threading.Event()]
    leave = [threading.Event(), threading.Event()]

    def recorder(k):
        def f(x):
            inside[k].set()
            leave[k].wait(timeout=10)
            return x * 3.0

        return threading.Thread(target=lambda: ft.jit(f)(np.ones(2)))

    threads = [recorder(0), recorder(1)]
    threads[0].start()
    assert inside[0].wait(timeout=10)
    threads[1].start()
    assert inside[1].wait(timeout=10)
    leave[0].set()
    threads[0].join(timeout=10)
    assert gc.get_threshold()[2] > saved[2]  # recording 2 still runs: no full passes
    leave[1].set()
    threads[1].join(timeout=10)
    assert gc.get_threshold() == saved


def _outer_operands(dtype=np.float32):
    rng = np.random.default_rng(3)
    return rng.normal(size=(32, 1, 64)).astype(dtype), rng.normal(size=(32, 64, 1)).astype(dtype)


def test_an_outer_product_replay_raises_under_errstate_as_numpy():
    # the replay spells it einsum, which sets no flags: under np.errstate(...="raise")
    # around the call it multiplies, and raises where NumPy raises
    a, b = _outer_operands(np.float64)
    f = ft.jit(lambda a, b: a * b, compile=False)
    f(a, b)
    f(a, b)
    assert "->" in _program(f).source
    a[0, 0, 0], b[0, 0, 0] = np.inf, 0.0
    with np.errstate(invalid="raise"), pytest.raises(FloatingPointError):
        np.multiply(a, b)
    with np.errstate(invalid="raise"), pytest.raises(FloatingPointError):
        f(a, b)
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(f(a, b), a * b)
