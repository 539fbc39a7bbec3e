"""Probe round 9 on vmap of per-example Python code (NOTE [splitting the batch] in
ftransforms/split.py).  Each test compares with the Python loop over the rows (plain
NumPy), with central differences in float64 for derivatives, and with eager values for
``jit`` on new inputs.

* Nested vmaps whose rows raise: the inner vmap's note recorded the first failing row in
  its own numbering, and the outer vmap compared that number with its own rows, so it
  raised the error of another outer row than the loop's first (outer row 1's error where
  outer row 0 fails at inner row 3), and named only the inner row.
* The split signal is a ``BaseException``: a bare ``except:`` (``except BaseException``,
  ``contextlib.suppress(BaseException)``) in ``f`` swallowed it, and every row took the
  ``except`` branch (a silent wrong answer); a ``finally`` that reads a local the ``try``
  had not bound yet replaced it with UnboundLocalError.  The interpreter now keeps the
  first signal and the vmap call acts on it when ``f`` returns or raises; every read after
  a swallowed signal raises it again (a masked loop around a bare ``except`` went on
  forever, every row in the ``except`` branch).
* ``warnings.simplefilter('error')`` in ``f`` with ``except RuntimeWarning``: NumPy's
  warning (``log`` of a negative row) raised for the whole batch, so every row took the
  ``except`` branch; it splits now, as FloatingPointError under ``np.errstate`` does.
* ``vmap(f, out_dims=(0, None), chunk_size=k)`` where the chunks took different Python
  paths and so gave different values for the unbatched output: the first chunk's value
  was returned (unchunked, the split raises SplitOutputError); the chunks are compared
  now, as the groups of a split are; so are their structures and per-row shapes (chunks
  of one row each: a dict with another key came back under the first chunk's key, a
  None in place of an array, ragged rows raised NumPy's concatenate ValueError).  The
  blocks of ``fd.vmap``/``fd.map_reduce`` likewise: the outputs are planned from the first
  example, and a block that took another path was read in that plan's structure.
* ``np.digitize(x, bins)`` with traced (per-row) bins skipped NumPy's order check: a row
  with unordered bins got a number instead of its ValueError.  The check reads the rows
  now (so ``jit`` of digitize with traced bins runs eagerly, as other reading ops do).
  Likewise a traced ``q`` of ``quantile``/``percentile`` (and the nan- forms) out of range,
  traced ``histogram`` edges out of order and a traced ``range`` with min > max or not
  finite: the checks were skipped for traced values (a number came back, under vmap,
  grad and jit alike).
* ``vmap(randomness='same', chunk_size=k)`` of a function that draws with
  ``ftransforms.random`` from a generator it holds and splits: ValueError ``list.remove(x):
  x not in list`` (the runs' watch sets were removed by equality, not identity).
* A staircase of splits (``for i in range(n): if x[0] > i``, a ``for ... break`` whose
  rows stop at many different steps) nested one split inside the other: 400 rows ran
  out of Python's recursion limit (RecursionError).  A group that splits again now hands
  its subgroups to the split that runs it; the errors of a chunk's groups name the
  batch's rows (they named the rows within the chunk).
"""

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


XS = np.array([[0.3, 0.2, 1.1], [3.1, -1.3, 0.5], [-2.2, 5.0, 0.1], [0.9, 0.8, -0.7]])


def _refuse_negative(x):
    if x[2] < 0:
        raise ValueError(f"negative third entry beside {float(x[1])}")
    return x


def _first_error(f, xss):
    for xs in xss:
        for x in xs:
            try:
                f(x)
            except ValueError as err:
                return str(err)
    raise AssertionError("no row fails")


@pytest.mark.parametrize("form", ["vmap(vmap)", "vmap(inner)", "in_dims=1"])
def test_nested_vmaps_raise_the_error_of_the_loops_first_row(form):
    # Outer row 0 fails at inner row 3, outer row 1 at inner row 1: the loop over the
    # outer rows raises outer row 0's error.  The outer vmap compared the inner row (1 < 3)
    # with its own rows and raised outer row 1's.
    mats = np.stack([XS, XS[[0, 3, 2, 1]] * 2.0])
    if form == "vmap(vmap)":
        fn, arg, xss = ft.vmap(ft.vmap(_refuse_negative)), mats, mats
    elif form == "vmap(inner)":
        fn = ft.vmap(lambda m: ft.vmap(_refuse_negative)(m))
        arg, xss = mats, mats
    else:  # the outer vmap over axis 1: outer row 1 (inner row 1) fails first
        fn = ft.vmap(ft.vmap(_refuse_negative), in_dims=1)
        arg, xss = mats, mats.transpose(1, 0, 2)
    want = _first_error(_refuse_negative, xss)
    with pytest.raises(ValueError) as info:
        fn(arg)
    assert str(info.value) == want
    notes = info.value.__notes__
    assert len(notes) == 2  # each vmap names its own rows, the inner one first
    outer = 1 if form == "in_dims=1" else 0
    inner = 1 if form == "in_dims=1" else 3
    assert notes[0].endswith(f"raised for batch row(s) {inner}")
    assert notes[1].endswith(f"raised for batch row(s) {outer}")


def _bare_except(x):
    try:
        k = 2.0 if x[0] > 0 else 3.0
    except:  # noqa: E722  (the user's code: it catches BaseException)
        k = 5.0
    return x * k


def _except_base_exception(x):
    try:
        return x * 2 if x[0] > 0 else x
    except BaseException:
        return x * 0


def _suppressed(x):
    import contextlib

    k = 1.0
    with contextlib.suppress(BaseException):
        k = 2.0 if x[0] > 0 else 3.0
    return x * k


def _finally_reads_the_try(x):
    try:
        if x[0] < 0:
            raise RuntimeError("negative")
        r = x * 2
    except RuntimeError:
        r = x * 3
    finally:
        r = r + 1  # unbound while the split signal unwinds the `try`
    return r


def _masked_loop_in_a_bare_try(x):
    try:
        y, hist = x, []
        while y.sum() > 1:  # masking gives up at the append (a signal)
            y = y * 0.5
            hist.append(1)
        k = len(hist)
    except:  # noqa: E722
        k = -1
    return y * k


@pytest.mark.parametrize(
    "f",
    [
        _bare_except,
        _except_base_exception,
        _suppressed,
        _finally_reads_the_try,
        _masked_loop_in_a_bare_try,
    ],
)
def test_a_split_signal_the_function_swallows_still_splits(f):
    # The split signal is a BaseException; a bare `except:` caught it and every row took
    # the except branch (a silent wrong answer), and a `finally` reading a local the
    # `try` had not bound yet replaced it with UnboundLocalError.
    xs = np.array([[0.3, 0.2, 1.1], [3.1, -1.3, 0.5], [-2.2, 5.0, 0.1], [0.9, 0.8, -0.7]])
    want = _loop(f, xs)
    np.testing.assert_array_equal(ft.vmap(f)(xs), want)
    np.testing.assert_array_equal(ft.vmap(f, chunk_size=3)(xs), want)
    jf = ft.jit(ft.vmap(f))
    for perm in ([0, 1, 2, 3], [2, 0, 3, 1]):
        np.testing.assert_array_equal(jf(xs[perm]), want[perm])
    mats = np.stack([xs, xs[::-1]])
    np.testing.assert_array_equal(ft.vmap(ft.vmap(f))(mats), np.stack([want, want[::-1]]))
    grads = ft.vmap(ft.grad(lambda x: np.sum(f(x))))(xs)
    np.testing.assert_array_equal(grads, np.stack([ft.grad(lambda x: np.sum(f(x)))(x) for x in xs]))


def _log_or_identity(x):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        try:
            return np.log(x)
        except RuntimeWarning:
            return x


def _sqrt_or_negated(x):
    with warnings.catch_warnings():
        warnings.filterwarnings("error", "invalid value")
        try:
            return np.sqrt(x) * x[0]
        except RuntimeWarning:
            return -x


@pytest.mark.parametrize("f", [_log_or_identity, _sqrt_or_negated])
def test_a_runtime_warning_made_an_error_is_raised_for_its_rows_only(f):
    # Under warnings.simplefilter('error') NumPy raises RuntimeWarning where it would warn
    # ("invalid value encountered in log"); the batched op raised it for the whole batch,
    # so every row took the `except` branch (as np.errstate(all='raise') did before
    # round 8: NOTE [errors of some rows]).
    xs = np.array([[0.3, 0.2, 1.1], [3.1, -1.3, 0.5], [1.6, 2.5, 0.2], [0.9, 0.8, -0.7]])
    want = _loop(f, xs)
    np.testing.assert_array_equal(ft.vmap(f)(xs), want)
    np.testing.assert_array_equal(ft.vmap(f, chunk_size=3)(xs), want)
    mats = np.stack([xs, xs[::-1]])
    np.testing.assert_array_equal(ft.vmap(ft.vmap(f))(mats), np.stack([want, want[::-1]]))
    jf = ft.jit(ft.vmap(f))  # first on a batch with failing rows: that signature runs eagerly
    for perm in ([0, 1, 2, 3], [2, 0, 3, 1]):
        np.testing.assert_array_equal(jf(xs[perm]), want[perm])
    grads = ft.vmap(ft.grad(lambda x: np.sum(f(x))))(xs)
    np.testing.assert_array_equal(grads, np.stack([ft.grad(lambda x: np.sum(f(x)))(x) for x in xs]))


def test_chunks_that_disagree_on_an_unbatched_output_raise_as_groups_do():
    # out_dims=None for a value that depends on the Python path: a split raises
    # SplitOutputError naming the groups; with chunk_size the chunks (each one path)
    # were joined silently with the first chunk's value.
    def f(x):
        if x[0] > 0:
            return x * 2, 1
        return x, 2

    xs = np.array([[0.3, 0.2], [3.1, 1.0], [-10.0, 5.0], [-0.9, 0.9]])
    with pytest.raises(ft.errors.SplitOutputError, match=r"group 0 \(rows 0, 1\)"):
        ft.vmap(f, out_dims=(0, None))(xs)
    for chunk, other in ((2, r"chunk 1 \(rows 2\.\.3\)"), (1, r"chunk 2 \(rows 2\.\.2\)")):
        with pytest.raises(ft.errors.SplitOutputError, match=rf"^vmap\(f.*and {other}"):
            ft.vmap(f, out_dims=(0, None), chunk_size=chunk)(xs)
    # chunks on one path give the one value
    out, one = ft.vmap(f, out_dims=(0, None), chunk_size=2)(xs[:2])
    np.testing.assert_array_equal(out, xs[:2] * 2)
    assert one == 1


def _held_draw_or_other(rng):
    import ftransforms.random as fr

    def f(x):
        if x[0] > 0:
            return x + fr.normal(rng, size=2)
        return x - fr.uniform(rng, size=2)

    return f


@pytest.mark.parametrize("chunk", [None, 2, 4])
def test_randomness_same_with_chunks_that_split_and_ftransforms_random(chunk):
    # A chunk of a randomness='same' vmap that splits while ftransforms.random draws from
    # a generator the function holds: the watch sets were removed by equality
    # (list.remove), so a group's run removed its chunk's equal set and the chunk's
    # removal raised ValueError: list.remove(x): x not in list.
    xs = np.array([[0.5, 1.0], [-0.1, 2.0], [0.9, 1.0], [-0.3, 1.0], [0.5, 1.0], [-0.1, 2.0]])
    want = np.stack([_held_draw_or_other(np.random.default_rng(0))(x) for x in xs])
    f = _held_draw_or_other(np.random.default_rng(0))
    got = ft.vmap(f, randomness="same", chunk_size=chunk)(xs)
    np.testing.assert_array_equal(got, want)


def test_a_staircase_of_splits_adds_no_recursion():
    # `for i in range(n): if x[0] > i` peels one row off the batch at every step: each
    # split ran its groups from inside the split before it (about 5 frames per level),
    # so 400 rows ran out of Python's recursion limit.  A group that splits again now
    # hands its subgroups to the split that runs it.  (Here under a tight limit.)
    import sys

    n = 60

    def f(x):
        y = x * 0
        for i in range(n):
            if x[0] > i:
                y = y + 1.0
        return y

    xs = np.arange(n, dtype=float).reshape(n, 1) + 0.5
    depth = 0
    frame = sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + 150)
    try:
        got = ft.vmap(f)(xs)
    finally:
        sys.setrecursionlimit(limit)
    np.testing.assert_array_equal(got, _loop(f, xs))


def test_a_split_inside_a_later_chunk_names_the_batchs_rows():
    xs = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [-1.0, 2.0], [2.0, 3.0]])
    with pytest.raises(ft.errors.SplitOutputError, match=r"group 0 \(rows 3\).*group 1 \(rows 4\)"):
        ft.vmap(lambda x: x if x[0] > 0 else x[:1], chunk_size=3)(xs)


@pytest.mark.parametrize(
    "f, what",
    [
        (lambda x: {"a": x} if x[0] > 0 else {"b": x}, "different structures"),
        (lambda x: (x, None) if x[0] > 0 else (x, x), "different structures"),
        (lambda x: (x, x) if x[0] > 0 else (x,), "different structures"),
        (lambda x: x[x > 0], "different shapes"),
    ],
)
def test_chunks_that_took_different_paths_are_joined_as_groups_are(f, what):
    # With chunk_size=1 no chunk splits, and the chunks were joined by the first chunk's
    # structure: row 2's {'b': ...} came back under 'a', its (x, x) as (x, None); a
    # shorter tuple raised IndexError, ragged rows NumPy's concatenate ValueError.
    xs = np.array([[0.3, 0.2, 1.1], [3.1, -1.3, 0.5], [-2.2, 5.0, 0.1], [0.9, 0.8, -0.7]])
    with pytest.raises(ft.errors.SplitOutputError, match=what):
        ft.vmap(f)(xs)
    with pytest.raises(ft.errors.SplitOutputError, match=rf"{what}: chunk 0 \(rows 0\.\.0\)"):
        ft.vmap(f, chunk_size=1)(xs)


@pytest.mark.parametrize(
    "f, what",
    [
        (lambda x: {"a": x} if x[0] > 0 else {"b": x}, r"structures: the block of rows 2\.\.2"),
        (lambda x: (x, None) if x[0] > 0 else (x, x), r"structures: the block of rows 2\.\.2"),
        (lambda x: x[x > 0] if x[1] < 3 else x[:1], r"shapes: the block of rows 2\.\.2"),
    ],
)
def test_distributed_blocks_that_took_other_paths_than_the_plan_raise(f, what):
    # fd.vmap / fd.map_reduce plan the outputs from the first example; a block whose rows
    # took another Python path returned {'b': ...} (read as 'a'), (x, x) (read as
    # (x, None)), or a ragged row (NumPy's broadcast ValueError at compute; map_reduce
    # summed it by broadcasting).
    fd = pytest.importorskip("ftransforms.distributed")
    pytest.importorskip("dask")
    xs = np.array([[0.3, 0.2, 1.1], [3.1, 1.3, 0.5], [-2.2, 5.0, 0.1], [0.9, 0.8, 0.7]])
    for make in (fd.vmap, fd.map_reduce):
        with pytest.raises(ft.errors.SplitOutputError, match=rf"^fd\.{make.__name__}\(.*{what}"):
            fd.compute(make(f, chunk_size=1)(xs), scheduler="sync")
    same = xs[[0, 1, 3]]  # one path: planned and computed alike
    first = lambda out: out["a"] if isinstance(out, dict) else out[0] if type(out) is tuple else out  # noqa: E731
    got = fd.compute(fd.vmap(f, chunk_size=1)(same), scheduler="sync")
    np.testing.assert_array_equal(first(got), _loop(lambda x: first(f(x)), same))


def test_digitize_with_per_row_bins_checks_each_rows_order():
    # Traced bins skipped NumPy's "bins must be monotonically increasing or decreasing"
    # check: a row with unordered bins got a number instead of its ValueError (and a `try`
    # in f never took its `except` for that row).
    def f(b):
        try:
            return np.digitize(0.4, b) * b
        except ValueError:
            return -b

    xs = np.array([[0.1, 0.5, 0.9], [0.9, 0.5, 0.1], [0.2, 0.1, 0.3], [0.1, 0.2, 0.3]])
    want = _loop(f, xs)
    np.testing.assert_array_equal(ft.vmap(f)(xs), want)
    np.testing.assert_array_equal(ft.jit(ft.vmap(f))(xs[::-1]), want[::-1])
    with pytest.raises(ValueError, match="monotonically") as info:
        ft.vmap(lambda b: np.digitize(0.4, b))(xs)
    assert info.value.__notes__[-1].endswith("raised for batch row(s) 2")
    ordered = xs[[0, 1, 3]]
    np.testing.assert_array_equal(
        ft.vmap(lambda b: np.digitize(0.4, b))(ordered), [np.digitize(0.4, b) for b in ordered]
    )


_DATA = np.arange(10.0)


@pytest.mark.parametrize(
    "g, rows",
    [
        (lambda q: np.percentile(_DATA, q[0]), [[10.0], [150.0], [90.0]]),
        (lambda q: np.quantile(_DATA, q[0]), [[0.1], [-0.5], [0.9]]),
        (lambda q: np.nanpercentile(_DATA, q), [[10.0, 20.0], [50.0, 101.0], [0.0, 100.0]]),
        (
            lambda e: np.histogram(np.array([0.5, 1.5]), bins=e)[0],
            [[0, 1, 2], [0, 2, 1], [0, 1, 3]],
        ),
        (
            lambda r: np.histogram(np.array([0.5, 1.5]), bins=3, range=(r[0], r[1]))[0],
            [[0.0, 2.0], [2.0, 1.0], [0.0, 3.0]],
        ),
    ],
)
def test_numpys_value_checks_of_traced_parameters_raise_for_their_rows(g, rows):
    # A traced q out of range (percentile, quantile), traced histogram edges out of order,
    # a traced histogram range with min > max: NumPy raises ValueError; the checks were
    # skipped for traced values, so vmap (and grad, jit) computed a number instead.
    def f(v):
        try:
            return g(v) * 1.0
        except ValueError:
            return -np.ones_like(g(np.asarray(rows[0], dtype=float))) * 1.0

    xs = np.asarray(rows, dtype=float)
    want = _loop(f, xs)
    np.testing.assert_array_equal(ft.vmap(f)(xs), want)
    np.testing.assert_array_equal(ft.jit(ft.vmap(f))(xs[::-1]), want[::-1])
    with pytest.raises(ValueError) as info:
        ft.vmap(g)(xs)
    assert info.value.__notes__[-1].endswith("raised for batch row(s) 1")


def test_a_read_after_a_swallowed_split_signal_raises_it_again():
    # Inside a masked loop the branch's read raised the split signal, the bare `except`
    # swallowed it and the run went on with every row in the except branch: without the
    # cap below the loop never ended (y grows 50x per step); with it the first run took
    # 40 steps before the call split.  Every read after a swallowed signal now raises it
    # again, so the run stops at the loop's next condition.
    steps = []

    def f(x):
        y, n = x, 0
        while y.sum() > 1 and n < 40:
            steps.append(1)
            y = y * 0.5
            n += 1
            try:
                if y[1] > 1:
                    y = y * 0.9
            except:  # noqa: E722
                y = y * 100
        return y

    xs = np.array([[0.3, 0.2], [3.1, 1.0], [10.0, 5.0], [0.9, 0.9], [0.5, 1.0]])
    want = _loop(f, xs)
    assert len(steps) == 9
    steps.clear()
    np.testing.assert_array_equal(ft.vmap(f)(xs), want)
    assert len(steps) < 20  # (47 steps when the run went on to the cap)
    np.testing.assert_array_equal(ft.jit(ft.vmap(f))(xs[::-1]), want[::-1])
