"""Probe round 13 on vmap of per-example Python code (NOTE [splitting the batch] in
ftransforms/split.py).  Each test compares with the Python loop over the rows (plain
NumPy), with central differences in float64 for derivatives.

* ``np.array([x[0], "label"])`` in user code was a NumPy object array holding the tracer
  where the loop has NumPy's ``<U32`` array of texts: ``a.dtype`` was object and ``a[0]``
  a number, not ``'0.3'`` (a silent wrong answer), and ``dtype=str``/``"U5"`` raised.  A
  list of tracers, numbers and strings is one traced string array of NumPy's dtype now,
  as ``t.astype(str)`` (NOTE [lists holding tracers into numpy.array]).
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
