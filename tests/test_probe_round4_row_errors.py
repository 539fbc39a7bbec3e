"""Probe round 4: per-example Python under ``vmap`` that raises for some rows only.
``vmap(f)(xs)`` stands for ``np.stack([f(x) for x in xs])``, and that loop raises the error
of the first row that fails.  When the batch splits (NOTE [splitting the batch]) the
groups run in the order of their first rows, so a group that fails further on (its second
row) must not hide the error of an earlier row in a later group.  Under every composition
the interpreter stack is clean afterwards.  Oracle: the loop over rows."""

import warnings

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.core.stack import current_stack


class NegativeFirst(ValueError):
    pass


class NegativeSecond(KeyError):
    pass


def checked(x):
    if x[0] < 0:
        raise NegativeFirst("the first entry is negative")
    if x[1] < 0:
        raise NegativeSecond("the second entry is negative")
    return x * 2.0


def summed(x):
    return checked(x).sum()


# row 1 fails the first check; row 2 (in the group of row 0) fails the second
XS = np.array([[1.0, 2.0], [-1.0, 2.0], [3.0, -4.0], [-5.0, 6.0]])

COMPOSITIONS = {
    "vmap": lambda xs: ft.vmap(checked)(xs),
    "jit(vmap)": lambda xs: ft.jit(ft.vmap(checked))(xs),
    "vmap(grad)": lambda xs: ft.vmap(ft.grad(summed))(xs),
    "grad(vmap)": lambda xs: ft.grad(lambda xs: ft.vmap(summed)(xs).sum())(xs),
    "vmap(jacfwd)": lambda xs: ft.vmap(ft.jacfwd(checked))(xs),
    "vmap(vmap)": lambda xs: ft.vmap(ft.vmap(checked))(xs[None]),
    "vmap(chunk_size=3)": lambda xs: ft.vmap(checked, chunk_size=3)(xs),
}


def first_error(xs):
    try:
        [checked(x) for x in xs]
    except Exception as err:
        return type(err)
    return None


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ft.errors.PerformanceWarning)
        yield


@pytest.mark.parametrize("name", list(COMPOSITIONS))
@pytest.mark.parametrize("order", [[0, 1, 2, 3], [0, 2, 1, 3], [2, 0, 3, 1], [3, 2, 1, 0]])
def test_the_first_failing_row_raises_as_in_the_loop(name, order):
    xs = XS[order]
    want = first_error(xs)
    with pytest.raises(want):
        COMPOSITIONS[name](xs)
    assert current_stack() == ()


def test_the_note_names_the_row_of_the_error():
    with pytest.raises(NegativeFirst) as info:
        ft.vmap(checked)(XS)
    assert any("row(s) 1, 3" in note for note in info.value.__notes__)


def test_rows_that_all_pass_after_a_split_give_the_loop_result():
    xs = np.abs(XS) * np.array([[1.0], [-1.0], [1.0], [1.0]])
    xs[1, 1] = 1.0
    xs[1, 0] = 1.0
    np.testing.assert_allclose(ft.vmap(checked)(xs), [checked(x) for x in xs])
