"""Probe round 14 on vmap of per-example Python code (NOTE [splitting the batch] in
ftransforms/split.py).  Each test compares with the Python loop over the rows (plain
NumPy).

* A Python counter of a ``while`` loop whose rows finish at different trip counts is made
  a batched int64/float64 array at the loop's exit (masking).  Python's arithmetic on it
  was then NumPy's: ``7 // n``, ``7 % n``, ``divmod(7, n)``, ``1 / n`` and ``0.0 ** -1``
  of a row whose counter is 0 gave 0, nan or inf with a warning where the loop raises
  ZeroDivisionError (so a ``try`` took the wrong branch: a silent wrong answer);
  ``n ** 20``, ``1 << n`` and products wrapped around int64 where the loop's Python int
  grows; ``t ** 0.5`` of a negative row was nan where the loop's is complex; ``t ** 150.0``
  was inf where Python raises OverflowError; a Python bool flag added and inverted as
  NumPy's bools (``True + True`` True, ``~True`` False) where Python's give 2 and -2.
  There masking gives up now (the rows split and each group runs its own Python
  numbers).
* ``isinstance(x[0], float)`` (``np.floating``, ``numbers.Real``, ``singledispatch``) of a
  per-row number said False where the loop's ``np.float64`` is a float, so validation
  code raised and ``fractions.Fraction(x[0])`` refused it; the function's own code sees
  the NumPy scalar type now (NOTE [a row's NumPy scalars]), and ``x.as_integer_ratio()``
  reads the row.
* A counter that outgrew int64 inside the loop (``p *= 1000``) became a NumPy object
  array at the exit (a TypeError or an object-dtype result); masking gives up there too.
"""

import fractions
import functools
import numbers
import warnings

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.core.stack import current_stack


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ft.errors.PerformanceWarning)
        warnings.simplefilter("ignore", RuntimeWarning)  # the loop's own 1 / 0.0 and the like
        yield
    assert current_stack() == ()


def _loop(f, xs):
    return np.stack([np.asarray(f(x)) for x in xs])


def _same(got, want):
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


# rows whose loop below runs 2, 3, 1, 2 and 0 times (a counter of 0 in the last row)
XS = np.array(
    [[0.3, -1.2, 0.5, 2.3], [1.5, 0.4, -0.2, 3.4], [-0.7, 2.0, 0.9, 1.2], [0.3, -1.2, 0.5, 2.3],
     [2.5, 1.1, 0.1, 0.6]]
)  # fmt: skip


def _guarded(op):
    """``op(v, n)`` after a loop counting whole steps, ``-100`` where Python raises
    ZeroDivisionError; the loop is written in the function itself (masking follows the
    frame whose condition disagrees)."""

    def f(x):
        n = 0
        v = x[3]
        while v > 1.0:
            v = v - 1
            n += 1
        try:
            return v + op(n)
        except ZeroDivisionError:
            return v - 100

    return f


ZERO_DIVISIONS = {
    "floor_divide": lambda n: 7 // n,
    "remainder": lambda n: 7 % n,
    "divmod": lambda n: sum(divmod(7, n)),
    "true_divide": lambda n: 1 / n,
    "float_remainder": lambda n: 3.0 % (n * 0.5),
    "float_divide": lambda n: 1.0 / (n * 0.5),
    "zero_to_negative_power": lambda n: (n * 0.5) ** -1,
}


@pytest.mark.parametrize("name", list(ZERO_DIVISIONS))
def test_a_loop_counter_of_zero_divides_as_a_python_number(name):
    f = _guarded(ZERO_DIVISIONS[name])
    want = _loop(f, XS)
    assert want[-1] == XS[-1, 3] - 100  # the zero row takes the except branch
    _same(ft.vmap(f)(XS), want)
    _same(ft.jit(ft.vmap(f))(XS[::-1]), _loop(f, XS[::-1]))


def _grown(op):
    def f(x):
        n = 0
        v = x[3]
        while v > 1.0:
            v = v - 1
            n += 40
        return v + op(n) % 1000

    return f


GROWING = {
    "pow": lambda n: n**20,
    "mul": lambda n: n * n * n * n * n * n * n * n * n * n * n * n - n,
    "shift": lambda n: 1 << n,
}


@pytest.mark.parametrize("name", list(GROWING))
def test_a_loop_counter_grows_past_int64_as_a_python_int(name):
    f = _grown(GROWING[name])
    _same(ft.vmap(f)(XS), _loop(f, XS))


def test_a_negative_loop_number_to_a_fractional_power_is_complex_as_in_python():
    def f(x):
        t = 1.0
        v = x[3]
        while v > 1.0:
            v = v - 1
            t -= 1.5
        r = t**0.5  # complex for a negative t
        return v + abs(r) + (1.0 if isinstance(r, complex) else 0.0)

    _same(ft.vmap(f)(XS), _loop(f, XS))


def test_a_counter_that_outgrew_int64_in_the_loop_is_each_rows_python_int():
    def f(x):
        v = abs(x[0]) + 1
        p = 1
        while v > 1e-3:
            v = v / 2
            p = p * 1000
        return np.array([float(p), float(p % 7)]) * v

    _same(ft.vmap(f)(XS), _loop(f, XS))


def test_counter_arithmetic_that_python_and_numpy_agree_on_stays_one_masked_run():
    runs = []

    def f(x):
        runs.append(1)
        n = 1
        v = x[3]
        while v > 1.0:
            v = v - 1
            n += 1
        return v * (n / 2) + 7 // n + n**3 + 2 * n

    want = _loop(f, XS)
    runs.clear()
    _same(ft.vmap(f)(XS), want)
    assert len(runs) == 1


BOOL_ARITHMETIC = {
    "add": lambda b: b + b,
    "invert": lambda b: ~b,
    "multiply_output": lambda b: b * True,
}


@pytest.mark.parametrize("name", list(BOOL_ARITHMETIC))
def test_arithmetic_on_a_loops_python_bool_is_int_arithmetic(name):
    op = BOOL_ARITHMETIC[name]

    def f(x):
        flag = False
        v = x[3]
        k = 0
        while v > 1.0:
            v = v - 1
            k += 1
            flag = k > 1
        return op(flag)

    want = _loop(f, XS)
    assert want.dtype.kind == "i"  # Python's bool arithmetic gives ints
    _same(ft.vmap(f)(XS), want)


def test_a_loop_number_overflowing_a_float_power_raises_as_in_python():
    def f(x):
        t = 1.0
        v = x[3]
        while v > 1.0:
            v = v - 1
            t *= 10.0
        try:
            return v + t**150.0
        except OverflowError:  # Python's float power; NumPy's is inf
            return v - 100

    want = _loop(f, XS)
    assert (want < -90).sum() == 1  # the row whose t reached 1000
    _same(ft.vmap(f)(XS), want)


# -- isinstance of a per-row number: the loop's NumPy scalar ------------------------------


@functools.singledispatch
def _doubled(v):
    return v * 0


@_doubled.register(float)
def _(v):
    return v * 2


TYPE_CHECKS = {
    "float": lambda x: x * 2 if isinstance(x[0], float) else x,
    "floating": lambda x: x * 2 if isinstance(x.sum(), np.floating) else x,
    "real": lambda x: x * 2 if isinstance(x[1], numbers.Real) else x,
    "float32_is_no_float": lambda x: x * 2 if isinstance(x.astype(np.float32)[0], float) else x,
    "int64_is_integral": lambda x: x * 2 if isinstance(np.argmax(x), numbers.Integral) else x,
    "int64_is_no_int": lambda x: x * 2 if isinstance(np.argmax(x), int) else x,
    "singledispatch": lambda x: _doubled(x[0]),
    "fraction": lambda x: np.array(
        fractions.Fraction(x[0]).limit_denominator(10).as_integer_ratio()
    ),
    "as_integer_ratio": lambda x: np.array(x[1].as_integer_ratio(), dtype=float),
    "float32_ratio": lambda x: np.array(x[1].astype(np.float32).as_integer_ratio(), dtype=float),
}


@pytest.mark.parametrize("name", list(TYPE_CHECKS))
def test_isinstance_of_a_per_row_number_is_the_loops_numpy_scalars(name):
    f = TYPE_CHECKS[name]
    _same(ft.vmap(f)(XS), _loop(f, XS))
    _same(
        ft.vmap(ft.vmap(lambda x: f(np.stack([x, -x]))))(XS),
        np.stack([_loop(lambda v: f(np.stack([v, -v])), r) for r in XS]),
    )


def test_a_validated_per_row_number_passes_as_in_the_loop():
    def f(x):
        v = x[0]
        if not isinstance(v, (int, float)):
            raise TypeError(f"expected a number, got {type(v).__name__}")
        return v * 2 if v > 0 else v

    _same(ft.vmap(f)(XS), _loop(f, XS))


def test_isinstance_of_grads_tracer_and_a_whole_row_stays_as_under_jax():
    def f(x):  # grad's tracer of x[0] is no float (jax.grad's neither)
        return (x * 2 if isinstance(x[0], float) else x).sum()

    np.testing.assert_array_equal(ft.vmap(ft.grad(f))(XS), np.ones_like(XS))
    assert ft.vmap(lambda x: np.float64(isinstance(x, np.ndarray)))(XS).sum() == 0
