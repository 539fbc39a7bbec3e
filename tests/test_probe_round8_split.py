"""Probe round 8 on vmap of per-example Python code (NOTE [splitting the batch] in
ftransforms/split.py).  Each test compares with the Python loop over the rows (plain
NumPy), with central differences in float64 for derivatives, and with eager values for
``jit`` on new inputs.

* A Python ``while`` loop whose rows finish at different trip counts is masked: the rows
  that left ride along.  Their steps must not reach state the loop mutates below the
  loop's locals: ``self.trace.append(e)``, ``hist["err"].append(e)``, an attribute of a
  ``__slots__`` object (a ``dataclass(slots=True)``), a ``deque``, an array written in
  place three containers down.  Masking used to look one level down only (and not into
  ``__slots__``), so every row got the longest row's history.
* ``np.errstate(divide='raise')`` with a ``try: ... except FloatingPointError`` in ``f``:
  an elementwise op on the rule's fast path raised for the whole batch, so every row took
  the ``except`` branch (NOTE [errors of some rows]: now it splits, as other rules do).
* Rows holding ``0.0`` and ``-0.0`` compared equal, so a Python read (``float()``) gave
  every row row 0's zero, and ``math.copysign``/``math.atan2`` row 0's answer.
* ``vmap(randomness='different')`` of code drawing from a generator it holds runs the
  rows one at a time, drawing as the loop over the rows does; where the batch split (a
  rejection sampler's ``if u < p``) the draws of the abandoned run were lost and the
  groups drew in group order, so rows got other numbers than the loop's.
* ``np.bincount`` of a negative count, ``np.choose``/``ravel_multi_index``/
  ``unravel_index`` of an index out of range: the check looked at the whole batch and
  raised ValueError for every row; it is read per row now (``helpers.invalid_in_rows``).
* A Python counter whose rows leave a masked loop at different counts became an
  int64/float64 batched array, so ``x * n`` of float32 rows came out float64 (an int32
  array plus ``n`` int64); where such a counter meets a narrower array masking now gives
  up (the batch splits) instead.
* ``vmap(randomness='same')`` with NumPy's global ``np.random.*`` or ``ftransforms.random``
  draws and a split: the groups drew past the abandoned first run's draws, so the rows
  did not share the numbers (the first run's draws are logged and replayed now).
* A Python read inside a masked loop compared the active rows with ``==``: NaN rows
  crashed (AssertionError, a split with one group) and 0.0/-0.0 rows read row 1's zero.
* ``jit`` (of ``vmap``): a recording made where no row raised was replayed under the
  caller's error handling (``log(0)`` gave -inf where ``np.errstate(divide='raise')`` in
  the function sends the row to its ``except``), and a replay whose ``np.linalg.inv``
  met a singular row raised LinAlgError instead of running the function's ``except``.
* ``set(x)`` / a ``Counter`` of a row's elements: the TypeError now names the Python
  number to use as the key (``float(v)``, ``x.tolist()``).
* ``scipy.optimize.brentq`` (and brenth, ridder, bisect) of a per-row function: the C
  code dropped the split signal raised where it read the function's float, and the next
  call failed with SystemError (NOTE [a split under SciPy's compiled code]).
"""

import collections
import dataclasses
import warnings

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.core.stack import current_stack


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ft.errors.PerformanceWarning)
        warnings.filterwarnings("ignore", "jit.*depends on data", RuntimeWarning)
        yield
    assert current_stack() == ()


def _loop(f, xs):
    return np.stack([np.asarray(f(x)) for x in xs])


def _fd_rows(f, xs, eps=1e-6):
    """d f(x).sum() / dx per row, by central differences in float64."""
    out = np.zeros_like(xs)
    for r, x in enumerate(xs):
        for k in range(x.size):
            e = np.zeros_like(x)
            e[k] = eps
            out[r, k] = (np.sum(f(x + e)) - np.sum(f(x - e))) / (2 * eps)
    return out


# rows that halve 0, 3, 4 and 1 times (no sum sits on a threshold)
XS = np.array([[0.3, 0.2], [3.1, 1.0], [10.0, 5.0], [0.9, 0.9]])


class _Solver:
    def __init__(self):
        self.trace = []

    def run(self, x):
        y = x
        while y.sum() > 1:
            y = y * 0.5
            self.trace.append(y.sum())
        return y


def history_on_self(x):
    s = _Solver()
    y = s.run(x)
    return y.sum() + len(s.trace) + sum(s.trace)


def history_in_a_dict(x):
    hist = {"err": []}
    y = x
    while y.sum() > 1:
        y = y * 0.5
        hist["err"].append(y.sum())
    return y.sum() * len(hist["err"]) + sum(hist["err"])


def history_in_a_deque(x):
    hist = collections.deque(maxlen=8)
    y = x
    while y.sum() > 1:
        y = y * 0.5
        hist.append(y[0])
    return y * len(hist) + sum(hist)


@dataclasses.dataclass(slots=True)
class _State:
    y: object


def state_in_slots(x):
    st = _State(x)
    while st.y.sum() > 1:
        st.y = st.y * 0.5
    return st.y


def written_three_containers_down(x):
    cfg = {"a": {"b": {"y": x.copy()}}}
    while cfg["a"]["b"]["y"].sum() > 1:
        cfg["a"]["b"]["y"] *= 0.5
    return cfg["a"]["b"]["y"]


@pytest.mark.parametrize(
    "f",
    [
        history_on_self,
        history_in_a_dict,
        history_in_a_deque,
        state_in_slots,
        written_three_containers_down,
    ],
)
def test_a_masked_row_does_not_reach_state_below_the_loops_locals(f):
    want = _loop(f, XS)
    np.testing.assert_allclose(ft.vmap(f)(XS), want)
    np.testing.assert_allclose(ft.vmap(f, chunk_size=3)(XS), want)
    jf = ft.jit(ft.vmap(f))
    for perm in ([0, 1, 2, 3], [2, 0, 3, 1]):
        np.testing.assert_allclose(jf(XS[perm]), want[perm])
    grads = ft.vmap(ft.grad(lambda x: np.sum(f(x))))(XS)
    np.testing.assert_allclose(grads, _fd_rows(f, XS), rtol=1e-6, atol=1e-8)


def guarded_log(x):
    with np.errstate(divide="raise", invalid="raise"):
        try:
            return np.log(x) * x
        except FloatingPointError:
            return x * x


def guarded_reciprocal(x):
    with np.errstate(all="raise"):
        try:
            return (1.0 / x) * x[0]
        except FloatingPointError:
            return -x


@pytest.mark.parametrize("f", [guarded_log, guarded_reciprocal])
def test_a_floating_point_error_of_some_rows_in_an_elementwise_op_is_theirs(f):
    # Under np.errstate(divide='raise') an elementwise op (the fast path of the
    # elementwise rule) raised for the whole batch, so every row took the except branch.
    xs = np.array([[1.0, 2.0], [0.0, 1.0], [3.0, 4.0], [2.0, 0.0], [0.5, 0.25]])
    want = _loop(f, xs)
    np.testing.assert_allclose(ft.vmap(f)(xs), want)
    np.testing.assert_allclose(ft.vmap(f, chunk_size=2)(xs), want)
    jf = ft.jit(ft.vmap(f))
    for perm in ([0, 1, 2, 3, 4], [4, 2, 0, 1, 3], [0, 2, 4, 4, 0]):
        np.testing.assert_allclose(jf(xs[perm]), want[perm])
    grads = ft.vmap(ft.grad(lambda x: np.sum(f(x))))(xs)
    want_grads = np.stack([ft.grad(lambda x: np.sum(f(x)))(x) for x in xs])
    np.testing.assert_allclose(grads, want_grads)
    ok = [0, 2, 4]  # rows away from the singular points: central differences
    np.testing.assert_allclose(grads[ok], _fd_rows(f, xs[ok]), rtol=1e-6)


def test_rows_holding_zeros_of_different_signs_are_read_each_as_its_own():
    # 0.0 == -0.0, so the rows "agreed" and every row read row 0's zero: copysign and
    # atan2 of the number then gave row 0's answer to a row holding -0.0.
    import math

    def f(x):
        s = float(x[0])
        return x * math.copysign(1.0, s) + math.atan2(0.0, s)

    def g(x):  # complex zeros too
        return x * math.copysign(1.0, complex(x[0]).imag)

    xs = np.array([[0.0, 1.0], [-0.0, 2.0], [0.0, 3.0]])
    np.testing.assert_array_equal(ft.vmap(f)(xs), _loop(f, xs))
    np.testing.assert_array_equal(ft.jit(ft.vmap(f))(xs[::-1]), _loop(f, xs[::-1]))
    zs = np.array([[0.0, 1.0], [complex(0.0, -0.0), 2.0]])
    np.testing.assert_array_equal(ft.vmap(g)(zs), _loop(g, zs))
    calls = []

    def counted(x):
        calls.append(1)
        return f(x)

    ft.vmap(counted)(np.array([[0.0, 1.0], [0.0, 2.0]]))
    assert len(calls) == 1  # equal zeros: one run, no split


def _signed_draw(x, rng):
    if x[0] > 0:
        return x + rng.normal()
    return x - rng.uniform()


def _rejection(x, rng):
    while True:  # accept u with probability x[0]: per-row trip counts
        u = rng.uniform()
        if u < x[0]:
            return u * x


def _draw_then_fail(x, rng):
    u = rng.normal()
    if x[0] < 0:
        raise ValueError("negative row")
    return x * u


@pytest.mark.parametrize(
    "f, xs",
    [
        (_signed_draw, np.array([[1.0, 0.0], [-1.0, 0.0], [2.0, 0.0], [-3.0, 1.0]])),
        (_rejection, np.array([[0.5, 1.0], [0.1, 2.0], [0.9, 1.0], [0.3, 1.0]])),
    ],
)
@pytest.mark.parametrize("kw", [{}, {"chunk_size": 3}])
def test_held_generator_draws_with_a_split_are_the_loops_draws(f, xs, kw):
    # randomness='different' with a generator the function holds: the rows draw one at a
    # time in row order (NOTE [randomness under vmap]).  Where the batch split (before the
    # draws: groups in group order; after a shared draw: the draws it abandoned were
    # lost) the rows got other rows' numbers.
    rng = np.random.default_rng(7)
    want = np.stack([f(x, rng) for x in xs])
    state = rng.bit_generator.state
    rng = np.random.default_rng(7)
    got = ft.vmap(f, in_dims=(0, None), randomness="different", **kw)(xs, rng)
    np.testing.assert_array_equal(got, want)
    assert rng.bit_generator.state == state


def test_held_generator_draws_before_a_row_error_are_the_loops_draws():
    xs = np.array([[1.0, 2.0], [3.0, 1.0], [-1.0, 0.0], [2.0, 2.0]])
    rng = np.random.default_rng(3)
    with pytest.raises(ValueError):
        [_draw_then_fail(x, rng) for x in xs]
    state = rng.bit_generator.state  # three draws: the loop stops at row 2
    rng = np.random.default_rng(3)
    with pytest.raises(ValueError, match="negative row") as info:
        ft.vmap(_draw_then_fail, in_dims=(0, None), randomness="different")(xs, rng)
    assert rng.bit_generator.state == state
    assert "row(s) 2" in "".join(getattr(info.value, "__notes__", []))


def _counted(x):
    return np.bincount(x.astype(int), weights=x, minlength=4)[:4]


def _chosen(x):
    return np.choose(x.astype(int), [x, 2 * x, 3 * x])


def _raveled(x):
    return np.ravel_multi_index((x.astype(int),), (3,)) * x


def _unraveled(x):
    return np.unravel_index(x.astype(int), (3,))[0] * x


@pytest.mark.parametrize("g", [_counted, _chosen, _raveled, _unraveled])
def test_numpys_value_errors_for_invalid_rows_are_raised_for_those_rows_only(g):
    # bincount of a negative count, choose/ravel_multi_index/unravel_index of an index
    # out of range raise ValueError in NumPy; a check over the whole batch raised it for
    # every row, so a `try` in f sent every row to its `except` branch.
    def f(x):
        try:
            return g(x)
        except ValueError:
            return -np.ones(4) if g is _counted else -x

    xs = np.array([[1.0, 2.0, 0.0], [-1.0, 2.0, 1.0], [2.0, 0.0, 1.0], [0.0, 1.0, 3.0]])
    want = _loop(f, xs)
    np.testing.assert_allclose(ft.vmap(f)(xs), want)
    jf = ft.jit(ft.vmap(f))
    for perm in ([0, 1, 2, 3], [3, 0, 2, 1], [0, 2, 0, 2]):
        np.testing.assert_allclose(jf(xs[perm]), want[perm])
    grads = ft.vmap(ft.grad(lambda x: np.sum(f(x))))(xs)
    np.testing.assert_allclose(grads, np.stack([ft.grad(lambda x: np.sum(f(x)))(x) for x in xs]))
    with pytest.raises(ValueError) as info:
        ft.vmap(g)(xs)
    assert "row(s) 1" in "".join(getattr(info.value, "__notes__", []))


def _halvings(x, step):
    y, n = x, 0 * step
    while y.sum() > 1:
        y = y * 0.5
        n += step
    return x * n + y


def _halvings_then_int32(x):
    y, n = x, 0
    while y.sum() > 1:
        y = y * 0.5
        n += 1
    return np.zeros(2, dtype=np.int32) + (n + 1) * 2


@pytest.mark.parametrize(
    "f", [lambda x: _halvings(x, 1), lambda x: _halvings(x, 0.5), _halvings_then_int32]
)
def test_a_loop_counter_keeps_float32_rows_float32(f):
    # The rows leave the loop at different counts, so a masked run made the Python
    # counter an int64/float64 batched array, and `x * n` of float32 rows (or an int32
    # array plus n) came out float64 / int64: in the loop over rows a Python number
    # leaves the narrower dtype alone.
    xs = XS.astype(np.float32)
    want = _loop(f, xs)
    assert want.dtype in (np.float32, np.int32)
    for got in (ft.vmap(f)(xs), ft.vmap(f, chunk_size=3)(xs), ft.jit(ft.vmap(f))(xs[::-1])[::-1]):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    if want.dtype == np.float32:
        grads = ft.vmap(ft.grad(lambda x: np.sum(f(x))))(xs)
        assert grads.dtype == np.float32


def test_a_loop_counter_that_meets_no_narrow_array_still_masks():
    calls = []

    def f(x):  # float32 rows, but n meets only Python numbers and float64 arrays
        calls.append(1)
        y, n = x, 0
        while y.sum() > 1:
            y = y * 0.5
            n += 1
        return (n * 2 + 1) * np.ones(2) + y.astype(np.float64)

    xs = XS.astype(np.float32)
    np.testing.assert_array_equal(ft.vmap(f)(xs), _loop(f, xs))
    calls.clear()
    ft.vmap(f)(xs)
    assert len(calls) == 1


def _shared_noise(x):
    u = np.random.uniform()  # NumPy's global generator
    if x[0] > 0.4:
        return x * u * np.random.normal()
    if x[0] > 0.2:
        return -x * np.random.uniform()
    return x * np.random.uniform(size=2).sum()


def _global_rejection(x):
    while True:
        u = np.random.uniform()
        if u < x[0]:
            return u * x


@pytest.mark.parametrize("f", [_shared_noise, _global_rejection])
@pytest.mark.parametrize("kw", [{}, {"chunk_size": 2}, {"chunk_size": 3}])
def test_randomness_same_with_a_split_shares_the_first_runs_draws(f, kw):
    # randomness='same': every row sees the draws of a run from the same generator state
    # (the loop over rows, reseeding before each row).  Where the batch split, the groups
    # used to draw past the abandoned first run's draws, so rows got other numbers.
    xs = np.array([[0.5, 1.0], [0.1, 2.0], [0.9, 1.0], [0.3, 1.0], [0.45, 0.2]])
    want = []
    for x in xs:
        np.random.seed(5)
        want.append(f(x))
    want = np.stack(want)
    for vf in (ft.vmap(f, randomness="same", **kw), ft.jit(ft.vmap(f, randomness="same", **kw))):
        np.random.seed(5)
        np.testing.assert_array_equal(vf(xs), want)


def test_randomness_same_with_a_split_shares_ftransforms_random_draws():
    import ftransforms.random as fr

    state = {}

    def f(x):
        u = fr.uniform(state["rng"])
        if x[0] > 0.4:
            return x * u
        return -x * fr.normal(state["rng"])

    xs = np.array([[0.5, 1.0], [0.1, 2.0], [0.9, 1.0], [0.3, 1.0]])
    want = []
    for x in xs:
        state["rng"] = np.random.default_rng(0)
        want.append(f(x))
    state["rng"] = np.random.default_rng(0)
    np.testing.assert_array_equal(ft.vmap(f, randomness="same")(xs), np.stack(want))
    state["rng"] = np.random.default_rng(0)
    grads = ft.vmap(ft.grad(lambda x: np.sum(f(x))), randomness="same")(xs)
    want_grads = []
    for x in xs:
        state["rng"] = np.random.default_rng(0)
        want_grads.append(ft.grad(lambda x: np.sum(f(x)))(x))
    np.testing.assert_array_equal(grads, np.stack(want_grads))


def test_a_python_read_inside_a_masked_loop_compares_rows_bit_for_bit():
    # Inside a masked loop a Python read looks at the active rows only; it compared them
    # with ==, so rows holding NaN "disagreed" with each other (the split that followed
    # found one group: AssertionError) and 0.0 / -0.0 "agreed" (copysign of row 1's zero
    # went to every row).
    import math

    def nan_read(x):
        y = x
        while y[0] > 0.5:
            y = y * 0.5
            if math.isnan(float(y[1])):
                y = y * 1.5
        return y

    def zero_sign(x):
        y = x
        while y[0] > 0.5:
            y = y * 0.5
            y = y + 0.1 * math.copysign(1.0, float(y[1]))
        return y

    nans = np.array([[0.3, np.nan], [3.1, np.nan], [10.0, np.nan], [0.9, np.nan]])
    zeros = np.array([[0.3, 0.0], [3.1, -0.0], [10.0, 0.0], [0.9, -0.0]])
    for f, xs in ((zero_sign, zeros), (nan_read, nans)):
        want = _loop(f, xs)
        np.testing.assert_array_equal(ft.vmap(f)(xs), want)
        np.testing.assert_array_equal(ft.jit(ft.vmap(f))(xs[::-1]), want[::-1])


def test_jit_replays_keep_numpys_error_handling_set_inside_the_function():
    # A recording made where no row raised was replayed later under the caller's error
    # handling: log(0) gave -inf where the function (and so the loop over rows) takes its
    # `except FloatingPointError` branch.
    good = np.array([[1.0, 2.0], [3.0, 4.0], [0.5, 0.25]])
    bad = np.array([[1.0, 2.0], [0.0, 1.0], [3.0, 4.0]])
    for f in (guarded_log, guarded_reciprocal):
        for jf, oracle in ((ft.jit(ft.vmap(f)), lambda b: _loop(f, b)), (ft.jit(f), f)):
            for b in (good, bad, good[::-1], bad[::-1]):
                arg = b if oracle is not f else b[0]
                np.testing.assert_allclose(jf(arg), oracle(arg))
            if oracle is f:
                np.testing.assert_allclose(jf(bad[1]), f(bad[1]))


def test_jit_replay_that_raises_runs_the_function_so_its_try_sees_the_error():
    # Recorded on invertible matrices, the replay of np.linalg.inv raised LinAlgError for
    # a batch holding a singular one, where vmap (and the loop over rows) takes the
    # function's `except` branch for that row.
    def inverse_or_zero(a):
        try:
            return np.linalg.inv(a)
        except np.linalg.LinAlgError:
            return a * 0.0

    good = np.stack([np.eye(2), 2 * np.eye(2), [[1.0, 2.0], [3.0, 4.0]]])
    bad = np.stack([np.eye(2), np.zeros((2, 2)), [[1.0, 2.0], [2.0, 4.0]]])
    jf = ft.jit(ft.vmap(inverse_or_zero))
    for b in (good, bad, good, bad[::-1]):
        np.testing.assert_allclose(jf(b), _loop(inverse_or_zero, b))
    jg = ft.jit(lambda a: np.linalg.inv(a))  # not caught: raises as without jit
    jg(good[0])
    with pytest.raises(np.linalg.LinAlgError):
        jg(bad[1])


def test_a_traced_value_as_a_dict_key_names_the_python_number_to_use():
    # x[0] is a hashable NumPy scalar in the loop over rows: a traced 0-d value hashes as
    # its row's number (round 10; rows that differ split).  A row with axes is an array
    # in the loop too, which NumPy does not hash: the TypeError says so and names the fix.
    xs = np.array([[1.0, 1.0, 2.0], [1.0, 2.0, 3.0]])
    for f in (lambda x: x * len(set(x)), lambda x: x * collections.Counter(x)[x[0]]):
        np.testing.assert_array_equal(ft.vmap(f)(xs), _loop(f, xs))
    with pytest.raises(TypeError, match=r"^vmap\(.*hash\(\) of a traced value.*float\(v\)"):
        ft.vmap(lambda x: x * len({x[:2]: 1}))(xs)

    def distinct(x):  # the fix the message names
        return x * len(set(x.tolist()))

    np.testing.assert_array_equal(ft.vmap(distinct)(xs), _loop(distinct, xs))


@pytest.mark.parametrize("method", ["brentq", "brenth", "ridder", "bisect"])
def test_scipy_root_finders_on_a_per_row_function_split_the_batch(method):
    # scipy.optimize.brentq & co. (C) read the float of the function's value and go on
    # without checking for an error: the split signal raised in that read was lost and the
    # next call of the function failed with SystemError.
    import scipy.optimize as so

    def root(x):
        t = getattr(so, method)(lambda t: t**3 + x[0] * t - x[1], -10 * x[0], 10.0)
        return x * t

    xs = np.array([[1.0, 2.0], [0.5, 3.0], [2.0, 0.5], [1.0, 2.0]])
    want = _loop(root, xs)
    np.testing.assert_allclose(ft.vmap(root)(xs), want, rtol=1e-10)
    np.testing.assert_allclose(ft.vmap(root, chunk_size=3)(xs), want, rtol=1e-10)
    np.testing.assert_allclose(ft.jit(ft.vmap(root))(xs[::-1]), want[::-1], rtol=1e-10)


def test_randomness_same_with_draws_in_a_masked_loop_then_a_split():
    # The first run draws in a masked loop (rows riding along) and splits after it; a
    # group whose rows leave the loop sooner draws less there, so replaying the first
    # run's draws by position gave its normal(size=3) a scalar uniform (a shape error).
    def f(x):
        y = x
        while y.sum() > 1:
            y = y * np.random.uniform(0.3, 0.6)
        z = np.random.normal(size=3)
        if x[0] > 2:
            return y.sum() + z
        return y.sum() - z

    xs = np.array([[0.3, 0.2], [3.1, 1.0], [10.0, 5.0], [0.9, 0.9]])
    np.random.seed(1)
    out = ft.vmap(f, randomness="same")(xs)
    assert out.shape == (4, 3)
    for a, b in ((0, 3), (1, 2)):  # rows of one group share z: their difference is flat
        d = out[a] - out[b]
        np.testing.assert_allclose(d, np.full(3, d[0]))
