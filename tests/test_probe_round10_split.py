"""Probe round 10 on vmap of per-example Python code (NOTE [splitting the batch] in
ftransforms/split.py).  Each test compares with the Python loop over the rows (plain
NumPy), with central differences in float64 for derivatives, and with eager values for
``jit`` on new inputs.

* A Python counter of a ``while`` loop whose rows finish at different trip counts is made
  a batched array at the loop's exit (masking); ``isinstance(n, int)``, ``type(n) is
  int`` and ``n is m`` then answered as for an array, and every row took the other
  branch (a silent wrong answer).  Masking now gives up where the function's code looks
  at the counter's type or identity (or passes it to a function that does), and the
  batch splits.
* ``np.asarray_chkfinite`` and SciPy's ``check_finite`` checked the whole batch at once:
  one row with a NaN made every row take the ``except ValueError`` branch.  The check
  says which rows fail, and the batch splits there.
* ``str(x)``, ``f"{x}"``, ``"%s" % x`` and ``print(x)`` of a batched value gave the
  tracer's repr (the same text, and so the same dict key, for every row); they give the
  row's own text now, as the loop does (rows with different texts split the batch).
  ``repr(x)`` stayed the debugging form that shows the whole batch (the row's since round 15).
* ``hash()`` of a per-row 0-d value (``D[np.argmax(x)]``, ``set(x)``, ``v in {1.0}``)
  raised TypeError where the loop's NumPy scalar hashes as its number; it hashes the
  row's number now (rows that differ split).  A row with axes is refused, as NumPy
  refuses to hash an array.
* ``[0.5] * n``, ``"ab" * n``, ``n * (1, 2)`` with ``n`` a per-row integer: the loop's
  NumPy integer scalar repeats the sequence, the tracer multiplied elementwise (a list
  of one element where the loop had ``n``: a silent wrong answer).  A 0-d integer tracer
  repeats the sequence now (rows with different counts split).
* A generator the function holds as a global, rebound between calls (a notebook cell
  ``rng = np.random.default_rng(0)`` run again): the generators were found once per
  function object, so the new one went unwatched and the batch shared one draw under
  ``randomness='different'`` (and 'error' did not raise).  A rebound global is looked
  up again.
* ``x.is_integer()`` of a per-row number (a NumPy scalar's method in the loop) raised
  AttributeError; it reads the row's number now (rows that differ split).
* NumPy's floating-point warnings (``np.log`` of a negative row) were issued once for the
  batch: under ``catch_warnings(record=True)`` with ``simplefilter("always")`` every row
  recorded one, and ``y if not w else fallback`` took the fallback for every row.  Under
  the ``always`` action such a warning now splits the batch until a run of one row shows
  it (NOTE [warnings of some rows] in ftransforms/row_warnings.py); under the default
  actions the loop shows one warning too, and nothing splits.
* ``np.isscalar(x)`` of a per-row number (``x[i]``, ``x[0]``, ``x.sum()``: NumPy scalars
  in the loop) said False, so ``x * 2 if np.isscalar(x) else x.sum()`` took the array
  branch for every row.  While a transform is active it says True for a 0-d value that
  vmap batches (NOTE [a row's NumPy scalars] in ftransforms/row_scalars.py).
"""

import warnings

import numpy as np
import pytest
import scipy.linalg

import ftransforms as ft
from ftransforms.core.stack import current_stack


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ft.errors.PerformanceWarning)
        warnings.filterwarnings("ignore", "jit.*depends on data", RuntimeWarning)
        yield
    assert current_stack() == ()


def _loop(f, xs, *args):
    return np.stack([np.asarray(f(x, *args)) for x in xs])


def _diff(f, x, eps=1e-6):
    out = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = eps
        out.flat[i] = (np.sum(f(x + e)) - np.sum(f(x - e))) / (2 * eps)
    return out


# -- the type of a loop's counter -------------------------------------------------------


def _halvings_isinstance(x):
    n = 0
    while x > 1:
        x = x / 2
        n += 1
    return x * (2.0 if isinstance(n, int) else 100.0) + n


def _halvings_type(x):
    n = 0
    while x > 1:
        x = x / 2
        n += 1
    return x * (2.0 if type(n) is int else 100.0)


def _halvings_identity(x, zero):
    n = 0
    while x > 1:
        x = x / 2
        n += 1
    return x * (3.0 if n is zero else 1.0)


def _halvings_class(x):
    n = 0.0
    while x > 1:
        x = x / 2
        n += 0.5
    return x * (2.0 if n.__class__ is float else 100.0)


def _kind_of(n):
    return 2.0 if isinstance(n, int) else 100.0


def _halvings_helper(x):
    n = 0
    while x > 1:
        x = x / 2
        n += 1
    return x * _kind_of(n)


@pytest.mark.parametrize(
    "f, args",
    [
        (_halvings_isinstance, ()),
        (_halvings_helper, ()),
        (_halvings_type, ()),
        (_halvings_identity, (0,)),
        (_halvings_class, ()),
    ],
)
def test_the_type_of_a_loops_counter_is_the_loops(f, args):
    xs = np.array([0.5, 3.0, 17.0, 2.2])
    want = _loop(f, xs, *args)
    dims = (0,) + (None,) * len(args)
    np.testing.assert_allclose(ft.vmap(f, in_dims=dims)(xs, *args), want)
    grads = ft.vmap(ft.grad(f), in_dims=dims)(xs, *args)
    np.testing.assert_allclose(
        grads, [_diff(lambda v: f(v, *args), np.array([x]))[0] for x in xs], rtol=1e-6
    )


def test_a_counter_whose_type_is_not_looked_at_stays_masked():
    # the masked loop's counter is still made per-row values (no split) where nothing
    # asks for its type: the arithmetic equals the loop's
    def f(x):
        n = 0
        while x > 1:
            x = x / 2
            n += 1
        return x + n

    xs = np.array([0.5, 3.0, 17.0, 2.0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ft.errors.PerformanceWarning)
        out = ft.vmap(f)(xs)
    np.testing.assert_allclose(out, _loop(f, xs))
    assert not [w for w in caught if issubclass(w.category, ft.errors.PerformanceWarning)]


# -- finiteness checks per row ----------------------------------------------------------

M = np.array([[1.0, 2.0], [np.inf, 1.0], [3.0, 4.0], [np.nan, 0.0]])


def _chkfinite_or(x):
    try:
        return np.asarray_chkfinite(x).sum() * 2
    except ValueError:
        return x[1] * 0 - 1.0


def _solve_or(x):
    a = np.diag(x) + np.eye(2)
    try:
        return scipy.linalg.solve(a, x).sum()
    except ValueError:
        return x[1] * 0 - 1.0


def _cholesky_or(x):
    a = np.diag(x) + 3 * np.eye(2)
    try:
        return scipy.linalg.cholesky(a).sum()
    except ValueError:
        return x[1] * 0 - 1.0


@pytest.mark.parametrize("f", [_chkfinite_or, _solve_or, _cholesky_or])
def test_a_finiteness_check_fails_for_its_own_rows(f):
    want = _loop(f, M)
    assert (want == -1).sum() == 2  # rows 1 and 3 only
    np.testing.assert_allclose(ft.vmap(f)(M), want)
    np.testing.assert_allclose(ft.vmap(f, chunk_size=3)(M), want)
    np.testing.assert_allclose(ft.vmap(ft.vmap(f))(np.stack([M, M[::-1]])), [want, want[::-1]])
    jf = ft.jit(ft.vmap(f))
    for perm in ([0, 2, 0, 2], [0, 1, 2, 3], [3, 2, 1, 0]):
        np.testing.assert_allclose(jf(M[perm]), want[perm])
    grads = ft.vmap(ft.grad(f))(M)
    np.testing.assert_allclose(grads[[1, 3]], 0.0)
    np.testing.assert_allclose(grads[0], _diff(f, M[0]), rtol=1e-6)


def test_a_finiteness_check_without_try_names_the_failing_rows():
    with pytest.raises(ValueError, match="must not contain infs or NaNs") as info:
        ft.vmap(lambda x: np.asarray_chkfinite(x).sum())(M)
    assert "row(s) 1, 3" in " ".join(info.value.__notes__)
    # an unbatched argument that holds a NaN fails every row, as in the loop
    add = ft.vmap(lambda x, y: _chkfinite_or(x + y), in_dims=(0, None))
    y = np.array([np.nan, 1.0])
    np.testing.assert_allclose(add(M, y), [_chkfinite_or(x + y) for x in M])


# -- text of a per-row value ------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [str, lambda v: f"{v}", lambda v: "%s" % v, lambda v: "{}".format(v), format],  # noqa: UP031, UP032
)
def test_text_of_a_batched_value_is_the_rows_text(text):
    def f(x):
        counts = {}
        for v in (x, x + 1):
            counts[text(v)] = counts.get(text(v), 0) + 1
        return x * len(text(x)) + len(counts)

    xs = np.array([0.5, 3.0, 17.25, 0.5])
    want = _loop(f, xs)
    np.testing.assert_allclose(ft.vmap(f)(xs), want)
    np.testing.assert_allclose(ft.vmap(f, chunk_size=3)(xs), want)
    jf = ft.jit(ft.vmap(f))
    for perm in ([0, 3, 0, 3], [0, 1, 2, 3], [2, 1, 0, 3]):
        np.testing.assert_allclose(jf(xs[perm]), want[perm])

    def g(row):  # a vector row's text, float32 too
        return len(text(row)) + 0 * row[0]

    for rows in (np.array([[0.5, 3.0], [17.0, 2.0], [1.0, 2.0]]), np.eye(3, dtype=np.float32)):
        np.testing.assert_allclose(ft.vmap(g)(rows), _loop(g, rows))


def test_print_under_vmap_writes_each_rows_value(capsys):
    # each group of rows prints its value once (the groups run, not each row)
    ft.vmap(lambda x: print(f"value {x}") or x)(np.array([1.5, 2.5, 1.5]))
    assert capsys.readouterr().out.split("\n") == ["value 1.5", "value 2.5", ""]


def test_repr_of_a_leaked_batched_value_shows_the_batch():
    # (repr in the function's own code is the row's since round 15: test_probe_round15_split)
    leaked = []  # str of a tracer that leaked out of its vmap: printed to see what it is
    ft.vmap(lambda x: leaked.append(x) or x)(np.array([1.5, 2.5]))
    assert "batch_size=2" in str(leaked[0]) and str(leaked[0]) == repr(leaked[0])


# -- hash of a per-row number -----------------------------------------------------------

_WEIGHTS = {0: 1.0, 1: 2.0, 2: 3.0}


def _keyed_by_argmax(x):
    return _WEIGHTS[np.argmax(x)] * x.sum() + len(set(x)) + 10 * (x[0] in {1.0, 3.0})


def test_a_per_row_number_hashes_as_the_loops_numpy_scalar():
    # the loop's np.argmax(x) and x[i] are NumPy scalars, hashable as their numbers
    xs = np.array([[1.0, 2, 3], [3, 2, 1], [1, 5, 2], [1, 1, 1]])
    want = _loop(_keyed_by_argmax, xs)
    np.testing.assert_allclose(ft.vmap(_keyed_by_argmax)(xs), want)
    np.testing.assert_allclose(ft.vmap(_keyed_by_argmax, chunk_size=3)(xs), want)
    jf = ft.jit(ft.vmap(_keyed_by_argmax))
    for perm in ([3, 3, 3, 3], [0, 1, 2, 3], [2, 0, 3, 1]):
        np.testing.assert_allclose(jf(xs[perm]), want[perm])
    grads = ft.vmap(ft.grad(lambda x: _WEIGHTS[np.argmax(x)] * x.sum()))(xs)
    np.testing.assert_allclose(grads, [[_WEIGHTS[int(np.argmax(x))]] * 3 for x in xs])


# -- a sequence repeated by a per-row integer -------------------------------------------


def _repeated(n, x):
    pads = [0.5] * n  # a NumPy integer scalar in the loop: the list is repeated
    text = "ab" * n
    return x * len(pads) + len(text) + len(n * (1, 2))


def test_a_sequence_times_a_per_row_integer_is_repeated():
    ns = np.array([3, 1, 4, 3])
    xs = np.array([1.0, 2.0, 0.5, -1.0])
    want = np.stack([_repeated(n, x) for n, x in zip(ns, xs)])
    np.testing.assert_allclose(ft.vmap(_repeated)(ns, xs), want)
    jf = ft.jit(ft.vmap(_repeated))
    for perm in ([0, 3, 0, 3], [0, 1, 2, 3], [2, 1, 0, 3]):
        np.testing.assert_allclose(jf(ns[perm], xs[perm]), want[perm])
    grads = ft.vmap(ft.grad(_repeated, argnums=1))(ns, xs)
    np.testing.assert_allclose(grads, ns)
    # a list times a traced float array stays elementwise (a 0-d array's product)
    np.testing.assert_allclose(ft.vmap(lambda x: [1.0, 2.0] * x)(xs), xs[:, None] * [1.0, 2.0])


# -- a held generator rebound between calls ---------------------------------------------

_RNG = np.random.default_rng(0)


def _signed_draw(x):
    u = _RNG.normal(size=2)  # the module's generator, rebound between the calls below
    return x + u if x[0] > 0 else x - u


def test_a_rebound_global_generator_is_watched_again():
    # a notebook's cell `rng = np.random.default_rng(0)` run again: the vmapped function
    # is the same object, its global now another generator, which must be watched too
    global _RNG
    xs = np.array([[1.0, 2.0], [-1.0, 2.5], [0.5, -1.0], [-2.0, 0.3]])
    for seed in (0, 1):
        _RNG = np.random.default_rng(seed)
        want = _loop(_signed_draw, xs)
        _RNG = np.random.default_rng(seed)
        np.testing.assert_allclose(ft.vmap(_signed_draw, randomness="different")(xs), want)
        with pytest.raises(ft.errors.RandomnessError):
            ft.vmap(_signed_draw)(xs)


def test_a_cache_keyed_on_traced_numbers_across_calls_names_the_fix():
    # a traced key stored in a cache outlives its vmap: the next call compares with it
    memo = {}

    def scaled(x):
        k = x[0]
        if k not in memo:
            memo[k] = 2.0
        return x * memo[k]

    xs = np.array([[1.0, 2, 9], [4, 3, 5], [1, 3, 2]])
    np.testing.assert_allclose(ft.vmap(scaled)(xs), 2 * xs)
    with pytest.raises(ft.errors.EscapedTracerError, match=r"lru_cache.*float\(v\)"):
        ft.vmap(scaled)(xs)
    memo.clear()

    def scaled_by_number(x):  # the fix the message names
        k = float(x[0])
        if k not in memo:
            memo[k] = k * 2.0
        return x * memo[k]

    for _ in range(2):
        np.testing.assert_allclose(ft.vmap(scaled_by_number)(xs), _loop(scaled_by_number, xs))


def test_is_integer_of_a_per_row_number_is_the_numpy_scalars():
    def f(x):
        return x * 2 if x.is_integer() else x

    xs = np.array([1.5, 2.0, np.inf, 3.0, np.nan])
    np.testing.assert_allclose(ft.vmap(f)(xs), _loop(f, xs))
    np.testing.assert_allclose(ft.vmap(ft.grad(f))(xs[:2]), [1.0, 2.0])
    ints = np.array([1, 2])
    np.testing.assert_array_equal(ft.vmap(f)(ints), _loop(f, ints))
    with pytest.raises(AttributeError, match="ndarray.*is_integer"):
        ft.vmap(lambda row: row.is_integer())(np.ones((2, 2)))


# -- NumPy's warnings of some rows ------------------------------------------------------


def _log_or_zero(x):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = np.log(x)
    return y if not caught else 0.0 * x


def _warnings_of(x):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        np.sqrt(x)
        np.log(x - 1)
    return float(len(caught)) + 0 * x


def test_numpy_warnings_recorded_under_always_are_the_rows_own():
    xs = np.array([1.0, -1.0, np.e, -3.0, 0.5])
    for f in (_log_or_zero, _warnings_of):
        want = _loop(f, xs)
        np.testing.assert_allclose(ft.vmap(f)(xs), want)
        np.testing.assert_allclose(ft.vmap(f, chunk_size=2)(xs), want)
        np.testing.assert_allclose(
            ft.vmap(ft.vmap(f))(np.stack([xs, xs[::-1]])), [want, want[::-1]]
        )
    grads = ft.vmap(ft.grad(_log_or_zero))(xs)
    np.testing.assert_allclose(grads, [1.0, 0.0, 1 / np.e, 0.0, 2.0])


def test_numpy_warnings_under_the_default_action_do_not_split():
    # the loop shows one warning per place under 'default', and so does the batch: no split
    xs = np.array([1.0, -1.0, np.e, -3.0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        warnings.simplefilter("always", ft.errors.PerformanceWarning)
        out = ft.vmap(np.log)(xs)
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(out, np.log(xs))
    assert [str(w.message) for w in caught] == ["invalid value encountered in log"]


# -- numpy.isscalar of a per-row number -------------------------------------------------


def _doubled_or_summed(x):
    return x * 2 if np.isscalar(x) else x.sum()


def test_isscalar_of_a_per_row_number_is_the_loops():
    xs = np.array([1.5, 2.0, 3.0])
    np.testing.assert_allclose(ft.vmap(_doubled_or_summed)(xs), 2 * xs)
    rows = np.arange(6.0).reshape(3, 2)
    np.testing.assert_allclose(ft.vmap(_doubled_or_summed)(rows), rows.sum(1))
    np.testing.assert_allclose(
        ft.vmap(lambda r: _doubled_or_summed(r[0]) + _doubled_or_summed(r.max()))(rows),
        _loop(lambda r: _doubled_or_summed(r[0]) + _doubled_or_summed(r.max()), rows),
    )
    np.testing.assert_allclose(ft.vmap(ft.grad(_doubled_or_summed))(xs), [2.0, 2.0, 2.0])
    assert not hasattr(np.isscalar, "__wrapped__")  # NumPy's own outside a transform
