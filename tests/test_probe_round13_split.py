"""Probe round 13 on vmap of per-example Python code (NOTE [splitting the batch] in
ftransforms/split.py).  Each test compares with the Python loop over the rows (plain
NumPy), with central differences in float64 for derivatives.

* ``np.array([x[0], "label"])`` in user code was a NumPy object array holding the tracer
  where the loop has NumPy's ``<U32`` array of texts: ``a.dtype`` was object and ``a[0]``
  a number, not ``'0.3'`` (a silent wrong answer), and ``dtype=str``/``"U5"`` raised.  A
  list of tracers, numbers and strings is one traced string array of NumPy's dtype now,
  as ``t.astype(str)`` (NOTE [lists holding tracers into numpy.array]).
* The ``statistics`` module (NOTE [the statistics module on tracers]):
  ``harmonic_mean`` and ``NormalDist.from_samples`` of a traced row raised "can't convert
  type 'BatchTracer' to numerator/denominator"; so did ``mean``/``variance``/... of
  integer rows (the module sums them exactly; the loop truncates the mean of ``np.int64``
  values to an integer).  The mean and variance of float32 rows were float32 sums (the
  module sums exactly and rounds once: 0.79999995 where the loop has 0.8) and ``fmean``
  of them had float32 precision in a float64 result (off by 6e-8).
* ``str(x)``/``print(x)`` of ``grad``'s or ``jvp``'s tracer under ``vmap`` showed the whole
  batch (``value=BatchTracer(..., val=array([[...], [...]]))``) where the loop prints the
  row's value (NOTE [the text of a tracer over a batch] in core/tracer.py).
* ``print("x =", x)`` under ``vmap`` wrote ``x = x = 0.0``: ``print`` writes argument by
  argument, and ``str(x)`` split the batch after ``"x = "`` was out.  The line is made
  whole before it is written now (NOTE [a printed line is written whole] in
  ftransforms/whole_lines.py); ``print([x[0], x[1]])`` (a list's ``str`` is its elements'
  ``repr``) showed the whole batch per element, and writes the row's values now.
* ``D[x[0]]`` with a key missing for some rows raised ``KeyError: BatchTracer(level=1,
  ..., val=array([1.5]))``; an exception's argument that is a batched value is the
  failing row's value now, as the loop raises it (``KeyError: np.float64(1.5)``).
"""

import builtins
import statistics
import warnings

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.core.stack import current_stack


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ft.errors.PerformanceWarning)
        yield
    assert current_stack() == ()


def _loop(f, xs, *args):
    return np.stack([np.asarray(f(x, *args)) for x in xs])


def _same(got, want, rtol=1e-12):
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape)
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)
    else:
        np.testing.assert_array_equal(got, want)


XS = np.array([[0.3, -1.2, 0.5], [1.5, 0.4, -0.2], [-0.7, 2.0, 0.9], [0.3, -1.2, 0.5]])


# -- a list of tracers and strings: NumPy's string array ----------------------------------


def _with_dtype(a):
    return np.append(a.ravel(), str(a.dtype))  # the values and, last, the dtype's name


LABELS = {
    "dtype": lambda x: np.array(str(np.array([x[0], "label"]).dtype)),
    "element": lambda x: np.array([x[0], "label"])[0] == str(x[0]),
    "values": lambda x: _with_dtype(np.array([x[0], 1, "a"])),
    "float32_nested": lambda x: _with_dtype(np.array([[x[0].astype(np.float32), "a"], ["b", "c"]])),
    "bytes": lambda x: _with_dtype(np.array([x[1], b"ab"])),
    "dtype_str": lambda x: np.array(["a", x[0]], dtype=str),
    "dtype_U2": lambda x: np.array([x[0], "abc"], dtype="U2"),
    "asarray_str": lambda x: np.asarray(x, dtype=str),
}


@pytest.mark.parametrize("name", list(LABELS))
def test_a_list_of_tracers_and_strings_is_numpys_string_array(name):
    f = LABELS[name]
    _same(ft.vmap(f)(XS), _loop(f, XS))
    g = ft.grad(lambda x: (f(x), np.sum(x**2))[1])  # text holds no derivative
    np.testing.assert_allclose(g(XS[1]), 2 * XS[1])


# -- the statistics module -----------------------------------------------------------------

POSITIVE = np.abs(XS) + 0.1
STATISTICS = {
    "harmonic_mean": statistics.harmonic_mean,
    "harmonic_mean_weights": lambda x: statistics.harmonic_mean(x, weights=[1, 0, 2.5]),
    "harmonic_mean_traced_weights": lambda x: statistics.harmonic_mean(x, weights=x * x),
    "from_samples_mean": lambda x: statistics.NormalDist.from_samples(x).mean,
    "from_samples_stdev": lambda x: statistics.NormalDist.from_samples(x).stdev,
    "mean": statistics.mean,
    "variance": statistics.variance,
    "variance_xbar": lambda x: statistics.variance(x, x[0]),
    "pstdev": statistics.pstdev,
    "fmean": statistics.fmean,
    "fmean_weights": lambda x: statistics.fmean(x, weights=x),
    "geometric_mean": statistics.geometric_mean,
}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", list(STATISTICS))
def test_statistics_of_floating_rows_are_the_loops(name, dtype):
    f, xs = STATISTICS[name], POSITIVE.astype(dtype)
    # float32 rows: the module's exact sums rounded once, bit for bit
    _same(ft.vmap(f)(xs), _loop(f, xs), rtol=1e-15 if dtype == np.float64 else 0.0)


def _diff(f, x, eps=1e-6):
    out = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = eps
        out.flat[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return out


@pytest.mark.parametrize("name", ["harmonic_mean", "harmonic_mean_traced_weights"])
def test_harmonic_mean_differentiates(name):
    f = STATISTICS[name]
    want = np.stack([_diff(f, x) for x in POSITIVE])
    np.testing.assert_allclose(ft.vmap(ft.grad(f))(POSITIVE), want, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(ft.grad(lambda xs: ft.vmap(f)(xs).sum())(POSITIVE), want, rtol=1e-7)


def test_harmonic_mean_of_a_zero_or_negative_value_is_the_loops():
    rows = np.array([[1.0, 0.0, 2.0], [3.0, 4.0, 5.0], [0.0, 0.0, 0.0]])
    with np.errstate(divide="ignore"):  # NumPy's 1 / 0.0 in the loop
        _same(ft.vmap(statistics.harmonic_mean)(rows), _loop(statistics.harmonic_mean, rows))
    negative = np.array([[1.0, 0.0, 2.0], [1.0, 0.0, -2.0]])  # raised on the row, zero or not
    with pytest.raises(statistics.StatisticsError, match="negative values") as caught:
        with np.errstate(divide="ignore"):
            ft.vmap(statistics.harmonic_mean)(negative)
    assert "row(s) 1" in caught.value.__notes__[-1]
    with pytest.raises(statistics.StatisticsError, match="must be positive"):
        ft.vmap(lambda x: statistics.harmonic_mean(x, weights=[0, 0, 0]))(rows[1:2])


INTEGER_ROWS = np.array([[1, 2, 3], [4, 5, 7], [2, 2, 9], [1, 2, 3]])


@pytest.mark.parametrize(
    "name", ["mean", "variance", "harmonic_mean", "fmean", "from_samples_stdev"]
)
@pytest.mark.parametrize("dtype", [np.int64, np.int32])
def test_statistics_of_integer_rows_are_the_loops(name, dtype):
    f, xs = STATISTICS[name], INTEGER_ROWS.astype(dtype)
    _same(ft.vmap(f)(xs), _loop(f, xs))
    _same(ft.vmap(lambda x: f(list(x)))(xs), _loop(lambda x: f(list(x)), xs))


@pytest.mark.parametrize("name", ["stdev", "from_samples_mean"])
def test_statistics_errors_on_integer_rows_are_the_loops(name):
    f = getattr(statistics, name, None) or STATISTICS[name]
    rows = np.array([[1, 2, 3], [3, 3, 3]])  # Python's own errors on np.int64 data
    with pytest.raises((AttributeError, ZeroDivisionError)) as want:
        _loop(f, rows)
    with pytest.raises(type(want.value), match=str(want.value)):
        ft.vmap(f)(rows)


# -- str() of a derivative's tracer over a batch --------------------------------------------


def _texts(run, *args):
    seen = []

    def f(x):
        seen.append(f"{x} | {x[0]}")
        return np.sum(x**2)

    run(f, *args)
    return [text.replace("level=2", "level=1") for text in seen]  # (vmap is level 1)


TEXT_TRANSFORMS = {  # (the transform on one row, under vmap)
    "grad": (lambda f, x: ft.grad(f)(x), lambda f, xs: ft.vmap(ft.grad(f))(xs)),
    "jvp": (
        lambda f, x: ft.jvp(f, (x,), (x,)),
        lambda f, xs: ft.vmap(lambda x: ft.jvp(f, (x,), (x,)))(xs),
    ),
}


@pytest.mark.parametrize("name", list(TEXT_TRANSFORMS))
def test_str_of_a_derivatives_tracer_under_vmap_is_the_rows(name):
    one, batched = TEXT_TRANSFORMS[name]
    rows = XS[:3]
    want = [t for row in rows for t in _texts(one, row)]  # the loop over the rows
    assert "array([ 0.3, -1.2,  0.5])" in want[0] and "np.float64(0.3)" in want[0]
    assert _texts(batched, rows) == want
    leaked = []  # a tracer whose vmap returned keeps showing the batch it held
    ft.vmap(ft.grad(lambda x: leaked.append(x) or np.sum(x)))(rows)
    assert "batch_size=3" in str(leaked[0])


# -- print writes whole lines -----------------------------------------------------------


def test_print_of_several_arguments_writes_each_rows_line_once(capsys):
    def f(x):
        print("x =", x[0], "y", x[1] if x[0] > 0 else -1, sep=" ", end=";\n")
        return x

    ft.vmap(f)(XS[:3])
    lines = capsys.readouterr().out
    for x in XS[:3]:
        f(x)
    assert lines == capsys.readouterr().out  # the loop's lines (a group per distinct row)


def test_print_of_containers_holding_batched_values_writes_the_rows(capsys):
    def f(x):
        print([x[0], x[1] * 2], {"s": x.sum()}, (x[:2],))
        return x

    ft.vmap(f)(XS[:3])
    got = capsys.readouterr().out
    for x in XS[:3]:
        f(x)
    assert got == capsys.readouterr().out
    assert "batch_size" not in got


def test_print_under_vmap_writes_through_a_print_the_user_installed(capsys):
    original = builtins.print

    def tagged(*args, **kwargs):
        original("tag:", *args, **kwargs)

    builtins.print = tagged
    try:
        ft.vmap(lambda x: print("x =", x) or x)(np.array([0.5, 1.5]))
        assert builtins.print is tagged
    finally:
        builtins.print = original
    assert capsys.readouterr().out == "tag: x = 0.5\ntag: x = 1.5\n"
    with pytest.raises(TypeError, match="sep must be None or a string"):
        ft.vmap(lambda x: print("x", x, sep=3) or x)(np.array([0.5, 1.5]))


# -- an exception's batched arguments ------------------------------------------------------

TABLE = {0.3: 1.0, -0.7: 2.0}
RAISING = {
    "missing_key": lambda x: TABLE[x[0]] * x[1],
    "missing_for_all": lambda x: TABLE[x[0] * 0 + 7.0],
    "raise_with_row": lambda x: x if x[0] < 1 else (_ for _ in ()).throw(ValueError(x)),
    "nested": lambda x: ft.vmap(lambda r: TABLE[r])(x[:1]),
}


@pytest.mark.parametrize("name", list(RAISING))
def test_an_exceptions_batched_arguments_are_the_failing_rows(name):
    f = RAISING[name]
    with pytest.raises((KeyError, ValueError)) as want:
        _loop(f, XS)
    with pytest.raises(type(want.value)) as got:
        ft.vmap(f)(XS)
    assert str(got.value) == str(want.value)
