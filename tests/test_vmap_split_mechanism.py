"""The batch-splitting mechanism of vmap (NOTE [splitting the batch] in
ftransforms/split.py): how often f runs, errors, warnings, split=False, and composition with
in_dims/out_dims, chunk_size, randomness, nested vmaps, custom rules, checkpoint, the
control-flow operators, forward mode and ftransforms.distributed."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.core.stack import current_stack
from ftransforms.errors import BatchedControlFlowError, PerformanceWarning, SplitOutputError
from ftransforms.split import WARNED_SITES

pytestmark = pytest.mark.filterwarnings("ignore::ftransforms.errors.PerformanceWarning")

F64 = {"rtol": 1e-10, "atol": 1e-12}


@pytest.fixture(autouse=True)
def _clean_stack():
    assert current_stack() == ()
    yield
    assert current_stack() == ()


def loop(f, *xs):
    return np.stack([np.asarray(f(*row)) for row in zip(*xs)])


class Counted:
    # counts the runs in place: a split rebinds what a run rebound (``self.calls += 1``)
    # before the next run (NOTE [the function's own state across a split] in split.py)
    def __init__(self, f):
        self.f, self.runs = f, []

    def __call__(self, *args):
        self.runs.append(None)
        return self.f(*args)

    @property
    def calls(self):
        return len(self.runs)


# -- how often f runs ------------------------------------------------------------------


def test_f_runs_once_and_bit_for_bit_when_rows_agree():
    def f(x):
        y = np.sin(x) * 3.0
        if np.sum(x) > -100:  # true for every row
            return y + np.cos(y)
        return y

    xs = np.random.default_rng(0).normal(size=(6, 4))
    counted = Counted(f)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PerformanceWarning)  # no split, no warning
        got = ft.vmap(counted)(xs)
    assert counted.calls == 1
    want = ft.vmap(lambda x: np.sin(x) * 3.0 + np.cos(np.sin(x) * 3.0))(xs)
    np.testing.assert_array_equal(got, want)  # the same ops, the same bits


@pytest.mark.parametrize("k", [2, 3, 5, 8])
def test_f_runs_at_most_2k_plus_1_times_for_k_paths(k):
    def f(x):
        j = 0
        while j < k - 1 and x > j:  # path j: the first j with x <= j
            j += 1
        return x * (j + 1)

    xs = np.repeat(np.arange(k) - 0.5, 3)[::-1].copy()  # every path, 3 rows each
    counted = Counted(f)
    got = ft.vmap(counted)(xs)
    np.testing.assert_array_equal(got, loop(f, xs))
    assert counted.calls <= 2 * k + 1
    assert counted.calls >= k


def test_a_while_with_per_row_trip_counts_splits_once_per_distinct_count():
    trips = {}

    def f(x):
        n = 0
        while x > 1.0:
            x = x / 2.0
            n += 1
        trips[n] = trips.get(n, 0) + 1
        return x

    xs = np.array([1.5, 3.0, 3.5, 9.0, 0.5, 17.0])  # trip counts 1, 2, 2, 4, 0, 5
    counted = Counted(f)
    np.testing.assert_allclose(ft.vmap(counted)(xs), loop(f, xs), **F64)
    # 5 distinct counts (the Python counter n rules out masking): split once per count
    assert counted.calls <= 2 * 5 + 1
    assert sorted(trips) == [0, 1, 2, 4, 5]  # each group's own trip count, no others


def masked_newton(a):
    y = a
    while np.abs(y * y - a) > 1e-12 * a:
        y = 0.5 * (y + a / y)
    return y


def test_a_while_loop_masks_finished_rows_in_one_run():
    a = 10.0 ** np.linspace(0, 20, 33)  # trip counts from 0 to 37
    counted = Counted(masked_newton)
    got = ft.vmap(counted)(a)
    assert counted.calls == 1  # no split: the finished rows rode along
    np.testing.assert_array_equal(got, loop(masked_newton, a))  # bit for bit
    want = loop(ft.grad(masked_newton), a)  # 1/(2 sqrt(a)) up to the last step; 1 at a = 1
    np.testing.assert_allclose(want[1:], 0.5 / np.sqrt(a[1:]), rtol=1e-6)
    np.testing.assert_allclose(ft.vmap(ft.grad(masked_newton))(a), want, rtol=1e-12)
    g = ft.grad(lambda a: ft.vmap(masked_newton)(a).sum())(a)
    np.testing.assert_allclose(g, want, rtol=1e-12)
    # the loop's reads are checked at each replay (NOTE [checked value reads under jit])
    jv = ft.jit(ft.vmap(masked_newton))
    for _ in range(2):
        np.testing.assert_array_equal(jv(a[::-1]), got[::-1])
        np.testing.assert_array_equal(jv(a[::-1] * 3.0), loop(masked_newton, a[::-1] * 3.0))


@pytest.mark.parametrize(
    "case",
    [
        "break",
        "return",
        "nested",
        "if_in_body",
        "append",
        "counter",
        "after",
        "raise",
        "attribute",
        "iterator",
    ],
)
def test_masked_loops_that_leave_oddly_are_still_the_loop(case):
    class State:
        pass

    def f(x):
        out = []
        state = State()
        state.visits = 0.0
        steps = iter(range(1000))
        n = 0
        t = x * 1.0
        while t > 1.0:
            if case == "attribute":
                state.visits = state.visits + t  # a per-row value kept on an object
            if case == "iterator":
                n = next(steps)
            if case == "counter":
                n += 1
            if case == "break" and t < 3.0:
                break
            if case == "return" and t < 2.0:
                return t * 10.0
            if case == "nested":
                s = t
                while s > 0.5:
                    s = s - 0.7
                t = t + s
            if case == "if_in_body":
                t = t - 0.3 if t > 4.0 else t - 0.1
            if case == "append":
                out.append(t)
            if case == "raise" and t > 50:
                raise ValueError("big row")
            t = t / 2.0
        if case == "after" and t > 0.7:
            return t * 3.0
        return t + len(out) + state.visits + n

    xs = np.array([0.5, 1.5, 2.5, 7.0, 13.0, 20.0, 0.9, 5.5])
    counted = Counted(f)
    np.testing.assert_allclose(ft.vmap(counted)(xs), loop(f, xs), **F64)
    if case == "raise":
        with pytest.raises(ValueError, match="big row") as info:
            ft.vmap(f)(np.append(xs, 120.0))
        assert "row(s) 8" in "\n".join(info.value.__notes__)


# -- errors and warnings ---------------------------------------------------------------


def test_an_exception_for_some_rows_keeps_its_type_and_names_the_rows():
    def f(x):
        if x < 0:
            raise ValueError("negative input")
        return np.sqrt(x)

    with pytest.raises(ValueError, match="negative input") as info:
        ft.vmap(f)(np.array([1.0, -1.0, 4.0, -2.0]))
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert "row(s) 1, 3" in notes and "vmap(f" in notes
    # the next call works
    np.testing.assert_allclose(ft.vmap(f)(np.array([1.0, 4.0])), [1.0, 2.0])


def test_exceptions_in_nested_splits_name_the_original_rows():
    def f(x):
        if x > 0:
            if x > 10:
                raise KeyError("big")
            return x
        return -x

    with pytest.raises(KeyError) as info:
        ft.vmap(f)(np.array([1.0, -1.0, 20.0, 2.0, 30.0]))
    notes = "\n".join(info.value.__notes__)
    assert "row(s) 2, 4" in notes
    assert notes.count("raised for batch row") == 1


def test_groups_with_different_structures_or_shapes_raise_naming_both():
    def pair_or_one(x):
        return x if x > 0 else (x, x)

    with pytest.raises(SplitOutputError, match=r"group 0 \(rows 0, 2\).*group 1 \(rows 1\)"):
        ft.vmap(pair_or_one)(np.array([1.0, -1.0, 2.0]))

    def ragged(x):
        return x[x > 0]

    with pytest.raises(SplitOutputError, match="different shapes") as info:
        ft.vmap(ragged)(np.array([[1.0, 2.0], [1.0, -2.0]]))
    assert "(2,)" in str(info.value) and "(1,)" in str(info.value)


def test_groups_with_different_dtypes_promote_as_numpy_stack():
    def f(x):
        return x * 2 if x > 0 else 0  # a Python int on one path

    got = ft.vmap(f)(np.array([1.5, -1.0]))
    want = np.stack([np.asarray(f(v)) for v in np.array([1.5, -1.0])])
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_one_performance_warning_per_site_with_the_line_and_the_groups():
    WARNED_SITES.clear()

    def f(x):
        return x if x > 0 else -x  # the split site

    xs = np.array([1.0, -2.0, 3.0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ft.vmap(f)(xs)
        ft.vmap(f)(xs)
    perf = [w for w in caught if w.category is PerformanceWarning]
    assert len(perf) == 1
    message = str(perf[0].message)
    assert "2 groups" in message and "x if x > 0 else -x" in message
    assert perf[0].filename == __file__
    WARNED_SITES.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", category=PerformanceWarning)  # silenceable
        np.testing.assert_array_equal(ft.vmap(f)(xs), [1.0, 2.0, 3.0])


def test_split_false_keeps_the_error():
    def f(x):
        return x if x > 0 else -x

    with pytest.raises(BatchedControlFlowError, match="split=False"):
        ft.vmap(f, split=False)(np.array([1.0, -2.0]))
    np.testing.assert_array_equal(ft.vmap(f, split=False)(np.array([1.0, 2.0])), [1.0, 2.0])


def test_except_exception_in_f_does_not_swallow_the_split():
    def f(x):
        try:
            positive = bool(x > 0)
        except Exception:  # the split signal is no Exception
            positive = False
        return x if positive else -x

    np.testing.assert_array_equal(ft.vmap(f)(np.array([1.0, -2.0])), [1.0, 2.0])


def test_nan_rows_agree_with_each_other():
    def f(x):
        return x * 2 if np.isnan(x) or x > 0 else x

    xs = np.array([np.nan, np.nan, 1.0, -1.0])
    np.testing.assert_array_equal(ft.vmap(f)(xs), loop(f, xs))
    counted = Counted(lambda x: x + 1 if x.sum() != 0 else x)  # NaN != 0 in every row
    np.testing.assert_array_equal(
        ft.vmap(counted)(np.full((3, 2), np.nan)), np.full((3, 2), np.nan)
    )
    assert counted.calls == 1


# -- arguments and options -------------------------------------------------------------


def test_in_dims_none_pytrees_kwargs_and_out_dims():
    def f(p, w, scale=1.0):
        a, b = p["a"], p["b"]
        if a[0] > 0:
            return {"y": a * w + b, "n": np.sum(a)}
        return {"y": a - w, "n": scale * np.prod(a)}

    rng = np.random.default_rng(1)
    a, b, w = rng.normal(size=(4, 3)), rng.normal(size=4), rng.normal(size=3)
    got = ft.vmap(f, in_dims=({"a": 0, "b": 0}, None), out_dims={"y": 1, "n": 0})(
        {"a": a, "b": b}, w, scale=2.0
    )
    rows = [f({"a": a[i], "b": b[i]}, w, scale=2.0) for i in range(4)]
    np.testing.assert_allclose(got["y"], np.stack([r["y"] for r in rows], axis=1), **F64)
    np.testing.assert_allclose(got["n"], np.stack([r["n"] for r in rows]), **F64)
    # batch axis not first
    got = ft.vmap(lambda x: x[0] if x[1] > 0 else x[2], in_dims=1)(a.T[:3])
    np.testing.assert_allclose(got, loop(lambda x: x[0] if x[1] > 0 else x[2], a[:, :3]), **F64)


def test_out_dims_none_for_a_value_the_same_on_every_path():
    def f(x, c):
        return (x * 2 if x > 0 else -x), c * 2

    got, c2 = ft.vmap(f, in_dims=(0, None), out_dims=(0, None))(np.array([1.0, -1.0]), 3.0)
    np.testing.assert_array_equal(got, [2.0, 1.0])
    assert float(c2) == 6.0

    def g(x):
        return x, (1.0 if x > 0 else 2.0)

    with pytest.raises(SplitOutputError, match="out_dim None"):
        ft.vmap(g, out_dims=(0, None))(np.array([1.0, -1.0]))


def test_axis_size_with_no_batched_argument_and_chunk_size():
    def f(x):
        return x * 2 if np.sum(x) > 0 else x[::-1]

    xs = np.random.default_rng(2).normal(size=(11, 3))
    for chunk in (1, 3, 4, 11):
        np.testing.assert_allclose(ft.vmap(f, chunk_size=chunk)(xs), loop(f, xs), **F64)

    def boom(x):
        if x > 5:
            raise RuntimeError("too big")
        return x

    with pytest.raises(RuntimeError) as info:
        ft.vmap(boom, chunk_size=4)(np.arange(8.0))  # the second chunk splits: 4, 5 | 6, 7
    assert "row(s) 6, 7" in "\n".join(info.value.__notes__)
    with pytest.raises(RuntimeError) as info:  # no split, no note: the exception unchanged
        ft.vmap(boom, chunk_size=2)(np.arange(8.0))
    assert getattr(info.value, "__notes__", None) is None


def test_randomness_under_a_split():
    rng_seed = 7

    def f(x):
        noise = ft.random.normal(rng) if False else None  # noqa: F841
        return x

    def noisy(x):
        e = ft.random.normal(rng)
        return x + e if x > 0 else x - e

    xs = np.array([1.0, -1.0, 2.0, -2.0])
    # 'error' stays an error (before and after any split)
    rng = np.random.default_rng(rng_seed)
    with pytest.raises(ft.errors.RandomnessError):
        ft.vmap(noisy)(xs)
    # 'same': every row shares one draw, across the groups too
    rng = np.random.default_rng(rng_seed)
    got = ft.vmap(noisy, randomness="same")(xs)
    e = np.abs(got - xs)
    np.testing.assert_allclose(e, e[0], **F64)
    assert e[0] != 0
    # 'different': independent draws per row (each group draws afresh)
    rng = np.random.default_rng(rng_seed)
    got = ft.vmap(noisy, randomness="different")(xs)
    e = np.abs(got - xs)
    assert len(np.unique(e)) == 4


# -- nested vmaps, compositions ----------------------------------------------------------


def test_nested_vmaps_split_each_their_own_axis():
    outer_calls, inner_calls = Counted(None), Counted(None)

    def g(a, b):
        inner_calls.runs.append(None)
        if a > 0:
            return a * b
        return a - b

    def per_row(row, bs):
        outer_calls.runs.append(None)
        out = ft.vmap(g, in_dims=(None, 0))(row[0], bs) if row[1] > 0 else -bs
        return out * row[2]

    rows = np.array([[1.0, 1.0, 2.0], [-1.0, 1.0, 3.0], [1.0, -1.0, 1.0], [2.0, 1.0, 1.0]])
    bs = np.array([0.5, -0.5, 2.0])
    got = ft.vmap(per_row, in_dims=(0, None))(rows, bs)
    want = np.stack(
        [np.stack([g(r[0], b) for b in bs]) * r[2] if r[1] > 0 else -bs * r[2] for r in rows]
    )
    np.testing.assert_allclose(got, want, **F64)

    def h(x):  # branches on both axes: x's row and column
        return x * 2 if x > 0 else x**2

    def two_level(m):
        return ft.vmap(h)(m) if m.sum() > 0 else ft.vmap(lambda v: v - 1 if v > 1 else v)(m)

    ms = np.random.default_rng(3).normal(size=(5, 4))
    want = np.stack(
        [
            np.stack([h(v) for v in m])
            if m.sum() > 0
            else np.stack([v - 1 if v > 1 else v for v in m])
            for m in ms
        ]
    )
    np.testing.assert_allclose(ft.vmap(two_level)(ms), want, **F64)
    np.testing.assert_allclose(ft.vmap(ft.vmap(h))(ms), loop(lambda m: loop(h, m), ms), **F64)
    np.testing.assert_allclose(
        ft.vmap(ft.vmap(h), in_dims=1, out_dims=1)(ms), loop(lambda m: loop(h, m), ms.T).T, **F64
    )


def piecewise(x):
    if x[0] > 0:
        return np.sum(np.sin(x) * x)
    return np.sum(x**3)


def test_forward_mode_hessian_and_jacfwd_of_a_split():
    xs = np.random.default_rng(4).normal(size=(4, 3))
    t = np.ones_like(xs)
    out, tan = ft.jvp(ft.vmap(piecewise), (xs,), (t,))
    np.testing.assert_allclose(out, loop(piecewise, xs), **F64)
    np.testing.assert_allclose(tan, loop(lambda x: ft.grad(piecewise)(x).sum(), xs), **F64)
    np.testing.assert_allclose(
        ft.vmap(ft.hessian(piecewise))(xs), loop(ft.hessian(piecewise), xs), **F64
    )
    np.testing.assert_allclose(
        ft.jacfwd(ft.vmap(piecewise))(xs), ft.jacrev(ft.vmap(piecewise))(xs), **F64
    )
    h = ft.hessian(lambda xs: ft.vmap(piecewise)(xs).sum())(xs)
    for i in range(4):
        np.testing.assert_allclose(h[i, :, i, :], ft.hessian(piecewise)(xs[i]), **F64)


def test_custom_rules_checkpoint_and_the_control_flow_operators():
    @ft.custom_jvp
    def soft(x):
        return np.log1p(np.exp(x)) if x < 30 else x

    @soft.defjvp
    def _(primals, tangents):
        (x,), (t,) = primals, tangents
        return soft(x), t / (1 + np.exp(-x))

    @ft.custom_vjp
    def clipped(x):
        return np.clip(x, -1.0, 1.0)

    def fwd(x):
        return clipped(x), x

    def bwd(x, g):
        return (g if abs(x) < 1 else 0.0 * g,)  # a Python branch in a rule

    clipped.defvjp(fwd, bwd)
    xs = np.array([-40.0, 0.5, 40.0, -0.3, 2.0])
    np.testing.assert_allclose(ft.vmap(soft)(xs), loop(soft, xs), **F64)
    np.testing.assert_allclose(ft.vmap(ft.grad(soft))(xs), loop(ft.grad(soft), xs), **F64)
    np.testing.assert_allclose(ft.vmap(ft.grad(clipped))(xs), loop(ft.grad(clipped), xs), **F64)

    def body(x):
        return np.sin(x) * 2 if x > 0 else np.cos(x)

    ck = ft.checkpoint(body)
    np.testing.assert_allclose(ft.vmap(ft.grad(ck))(xs), loop(ft.grad(body), xs), **F64)
    np.testing.assert_allclose(
        ft.grad(lambda v: ft.vmap(ck)(v).sum())(xs), loop(ft.grad(body), xs), **F64
    )

    def with_cond(x):  # a batched predicate batches; the Python `if` inside splits
        return ft.cond(x > 1, lambda v: v * 3 if v > 2 else v, lambda v: -v, x)

    def with_while(x):
        def step(c):
            i, v = c
            return i + 1, (v * 2 if v > 0 else v - 1)

        return ft.while_loop(lambda c: c[0] < 3, step, (0, x))[1]

    np.testing.assert_allclose(ft.vmap(with_cond)(xs), loop(with_cond, xs), **F64)
    np.testing.assert_allclose(ft.vmap(with_while)(xs), loop(with_while, xs), **F64)


def test_a_leaked_tracer_and_the_stack_after_a_split():
    leaked = []

    def f(x):
        leaked.append(x)
        return x if x > 0 else -x

    ft.vmap(f)(np.array([1.0, -1.0]))
    with pytest.raises(ft.errors.EscapedTracerError):
        bool(leaked[-1] > 0)
    assert current_stack() == ()


def test_distributed_vmap_splits_each_block():
    fd = pytest.importorskip("ftransforms.distributed")
    pytest.importorskip("dask")

    def f(x):
        return x * 2 if x.sum() > 0 else x[::-1]

    xs = np.random.default_rng(5).normal(size=(10, 3))
    got = fd.compute(fd.vmap(f, chunk_size=4)(xs))
    np.testing.assert_allclose(got, loop(f, xs), **F64)


def test_a_masked_loop_with_an_iteration_counter_and_an_and_condition():
    def newton(a, cap=50):
        y, it = a, 0
        while np.abs(y * y - a) > 1e-12 * a and it < cap:
            y = 0.5 * (y + a / y)
            it += 1
        return y, it

    a = 10.0 ** np.linspace(0, 24, 9)  # trip counts 0 to 44
    counted = Counted(newton)
    y, it = ft.vmap(counted)(a)
    assert counted.calls == 1  # the counter is each row's own at the exit: no split
    rows = [newton(v) for v in a]
    np.testing.assert_array_equal(y, [r[0] for r in rows])
    np.testing.assert_array_equal(it, [r[1] for r in rows])
    assert it.dtype.kind == "i"
    # the cap ends the loop on a Python value, which masking cannot see: it runs again,
    # splitting, with the loop's results
    y, it = ft.vmap(lambda v: newton(v, cap=30))(a)
    rows = [newton(v, cap=30) for v in a]
    np.testing.assert_array_equal(y, [r[0] for r in rows])
    np.testing.assert_array_equal(it, [r[1] for r in rows])


def test_a_return_from_a_masked_loop_in_a_helper():
    def helper(x):
        while x > 1.0:
            x = x / 2.0
            if x < 1.7:
                return x * 10.0
        return x

    def f(x):
        y = helper(x)
        return y * 2.0 if y > 5.0 else y - 1.0

    xs = np.array([0.5, 3.0, 9.0, 3.3, 1.5, 40.0])
    np.testing.assert_allclose(ft.vmap(f)(xs), loop(f, xs), **F64)


@pytest.mark.parametrize("form", ["for_around", "or_condition", "counter_used_as_key"])
def test_masked_loops_in_other_shapes(form):
    def f(x):
        total = 0.0
        seen = {}
        for i in range(3):
            j = 0
            if form == "or_condition":
                while j < 1 or x[i] * (j + 1) < 0.9:
                    j += 1
                    if j > 5:
                        break
            else:
                while x[i] * (j + 1) < 0.9 and j < 4:
                    j += 1
            if form == "counter_used_as_key":
                seen[j] = seen.get(j, 0) + 1  # a dict key: needs a Python int
            total = total + x[i] * j + len(seen)
        return total

    xs = np.array([[0.1, 0.5, 2.0], [0.3, 0.05, 0.2], [1.0, 0.4, 0.25], [0.2, 0.2, 0.2]])
    np.testing.assert_allclose(ft.vmap(f)(xs), loop(f, xs), **F64)
    np.testing.assert_allclose(ft.vmap(ft.grad(f))(xs), loop(ft.grad(f), xs), **F64)


def test_the_benchmark_runs_and_checks_its_results(capsys):
    from benchmarks import vmap_split  # its own asserts compare every way with the oracle

    vmap_split.main(reps=1)
    out = capsys.readouterr().out
    assert "split / while_loop" in out and "split / where" in out
