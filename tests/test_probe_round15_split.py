"""Probe round 15 on vmap of per-example Python code (NOTE [splitting the batch] in
ftransforms/split.py).  Each test compares with the Python loop over the rows (plain
NumPy).

* ``repr(x[0])`` (``f"{x[0]!r}"``, ``"%r" % x[0]``) in the function's own code gave the
  tracer's debugging form, the same text for every row, where the loop writes the row's
  NumPy scalar (``np.float64(0.3)``): a repr used as a dict key or measured took one path
  for every row (a silent wrong answer).  It is the row's repr now (rows whose texts
  differ split the batch); a debugger's and ftransforms' own repr still show the batch.
  Under ``vmap(grad(f))`` grad's tracer's repr shows the row's value, as ``str`` did.
* A masked ``while`` loop's Python counter, made a batched array at the loop's exit, was
  no ``int`` to a helper the function hands it to (a closure, a lambda, a nested ``def``,
  a method, ``singledispatch``): ``isinstance(n, int)``, ``type(n) is int``,
  ``hasattr``/``getattr(n, 'numerator', d)`` took the other branch, ``np.result_type(n,
  np.float32)`` widened to float64 and ``np.can_cast(n, ...)`` answered where NumPy
  refuses a Python int.  Masking gives up there now (the rows split), or the tracer
  answers as the Python number (``result_type``).
"""

import functools
import numbers
import pdb
import warnings

import numpy as np
import pytest

import ftransforms as ft
import ftransforms.numpy as fnp
from ftransforms.core.stack import current_stack
from tests.program_oracles import check_vmap, close


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ft.errors.PerformanceWarning)
        yield
    assert current_stack() == ()


XS = np.array([[0.3, -1.2, 0.5], [1.5, 0.4, -0.2], [-0.7, 2.0, 0.9], [0.3, -1.2, 0.5]])
SCALES = {"np.float64(0.3)": 10.0, "np.float64(1.5)": 20.0}


@pytest.mark.parametrize(
    "text",
    [
        repr,
        lambda v: f"{v!r}",
        lambda v: "%r" % (v,),  # noqa: UP031 (the idiom probed)
        lambda v: repr([v])[1:-1],
    ],
    ids=["repr", "fstring", "percent", "in_a_list"],
)
def test_repr_of_a_per_row_number_is_the_rows_as_in_the_loop(text):
    def f(x):
        return x[1] * SCALES.get(text(x[0]), -1.0) + len(text(x[2]))

    check_vmap(f, (XS,), (0,))


def test_repr_of_a_per_row_vector_and_under_grad_is_the_rows():
    def f(x):
        return x.sum() * len(repr(x[:2]))

    check_vmap(f, (XS,), (0,))
    want = np.stack([np.full(3, len(repr(x[:2]))) for x in XS]).astype(float)
    close(ft.vmap(ft.grad(lambda x: x.sum() * len(repr(fnp.stop_gradient(x[:2])))))(XS), want)


def test_a_debuggers_repr_still_shows_the_batch():
    seen = []

    class Quiet(pdb.Pdb):  # what `p x` shows (pdb's own repr of the value)
        def message(self, msg):
            seen.append(msg)

    def f(x):
        debugger = Quiet()
        debugger.curframe_locals = {"x": x}
        debugger.curframe = type("Frame", (), {"f_globals": {}})()
        debugger.do_p("x")
        return x

    close(ft.vmap(f)(XS[:, 0]), XS[:, 0])
    assert len(seen) == 1 and "batch_size=4" in seen[0]
    seen.clear()
    close(ft.vmap(lambda x: seen.append(repr(x)) or x, split=False)(XS[:, 0]), XS[:, 0])
    assert len(seen) == 1 and "batch_size=4" in seen[0]


def _counted(check, start=0):
    """A function whose ``while`` loop counts 2, 1, 3, 2, 0 and 0 steps in the rows of
    ``XC`` (a masked loop: the counter is a Python number in each row), then hands the
    counter to ``check``, a helper the function closes over."""

    def f(x):
        n = start
        v = abs(x[0])
        while v < 3:
            v = v * 2 + 0.1
            n += 1
        return check(n) + 0 * x[0]

    return f


XC = np.array([[0.5], [1.5], [0.3], [0.7], [-3.0], [4.0]])


def _by_type(n):
    return {int: 1.0, float: 2.0}.get(n.__class__, -1.0)


_single = functools.singledispatch(lambda n: -1.0)
_single.register(int, lambda n: 1.0)


@pytest.mark.parametrize(
    "check",
    [
        lambda n: 1.0 if isinstance(n, int) else 0.0,
        lambda n: 1.0 if isinstance(n, numbers.Integral) else 0.0,
        lambda n: 1.0 if isinstance(n, np.integer) else 0.0,  # a Python int is none
        _by_type,
        _single,
    ],
    ids=["int", "Integral", "np_integer", "__class__", "singledispatch"],
)
def test_a_helper_looking_at_a_loop_counters_type_sees_a_python_int(check):
    f = _counted(check)
    check_vmap(f, (XC,), (0,))
    g = _counted(check, 0.0)  # a float counter
    check_vmap(g, (XC,), (0,))


@pytest.mark.parametrize(
    "check",
    [
        lambda n: 1.0 if type(n) is int else 0.0,
        lambda n: 1.0 if hasattr(n, "bit_length") else 0.0,
        lambda n: float(len(str(type(n)))),
    ],
    ids=["type_is", "hasattr", "str_type"],
)
def test_a_closed_over_helper_reading_a_loop_counters_type_splits(check):
    f = _counted(check)
    check_vmap(f, (XC,), (0,))


def test_a_nested_def_reading_a_loop_counters_type_splits():
    def f(x):
        n = 0
        v = abs(x[0])
        while v < 3:
            v = v * 2 + 0.1
            n += 1

        def kind(k):
            return {int: 1.0, float: 2.0}.get(type(k), -1.0)

        return kind(n) + 0 * x[0]

    check_vmap(f, (XC,), (0,))


def test_repr_of_grads_tracer_over_a_batch_shows_the_rows_value():
    def f(x):  # the value grad's tracer stands for, read from its repr
        return x[1] * SCALES.get(repr(x[0]).partition("value=")[2][:-1], -1.0)

    want = np.stack([ft.grad(f)(x) for x in XS])
    assert want[:, 1].tolist() == [10.0, 20.0, -1.0, 10.0]
    close(ft.vmap(ft.grad(f))(XS), want)


@pytest.mark.parametrize(
    "check",
    [
        lambda n: float(getattr(n, "numerator", -1)),
        lambda n: float(np.result_type(n, np.float32).itemsize),  # a Python int is weak
    ],
    ids=["getattr", "result_type"],
)
def test_a_loop_counters_attributes_and_dtype_are_a_python_ints(check):
    f = _counted(check)
    check_vmap(f, (XC,), (0,))


def test_can_cast_of_a_loop_counter_refuses_it_as_numpy_does_a_python_int():
    f = _counted(lambda n: float(np.can_cast(n, np.int8)))
    with pytest.raises(TypeError, match="Python ints"):
        [f(x) for x in XC]
    with pytest.raises(TypeError, match="Python ints"):
        ft.vmap(f)(XC)
