"""Probe round 12 on vmap of per-example Python code (NOTE [splitting the batch] in
ftransforms/split.py).  Each test compares with the Python loop over the rows (plain
NumPy), with central differences in float64 for derivatives.

* ``np.array([x[0] ** 2, 1.0])`` in user code was a NumPy object array of 0-d tracers
  where the loop has a float64 array: ``a.dtype.kind == "f"`` answered False for every
  row (a silent wrong answer), and ``np.sin(a)``/``np.exp(a)`` raised NumPy's TypeError
  ('float has no callable sin method').  Such a list of tracers and numbers is one traced
  array of NumPy's dtype now (NOTE [lists holding tracers into numpy.array] in
  ftransforms/core/mutation.py).
* ``statistics.mean``/``variance``/``stdev``/``pvariance``/``pstdev`` of a traced row
  raised "can't convert type 'BatchTracer' to numerator/denominator" (the module sums
  exact fractions); ``fmean``/``geometric_mean`` split the batch into one run per row
  (``float()``) and raised under ``grad``.  They compute with ``ftransforms.numpy`` on
  floating traced data now, also as ``vmap(statistics.mean)`` and after ``from statistics
  import stdev`` (NOTE [the statistics module on tracers] in
  ftransforms/numpy/statistics_calls.py).
* ``np.sin([x[0], 2.0])`` (a list straight into a NumPy ufunc: NumPy converts it in C, to
  an object array) still raises NumPy's "float which has no callable sin method"; the
  error now carries a note naming the object array and the fix (``np.array([...])``).
* ``grad`` of a sum over ``vmap`` of a per-row ``scipy.optimize.fsolve``/``brentq``
  whose residual's derivative in the unknown does not depend on the row
  (``t**2 - x[0] - x[1]``) raised EscapedTracerError: the implicit derivative looked for
  the vmap levels it must revive in the linearization only (``2 t``), so the backward
  pass after the vmap returned ran the residual on the finished vmap's values.  The
  residual at the solution is looked at too (ftransforms/implicit.py).
"""

import statistics
import warnings
from statistics import stdev as bound_stdev

import numpy as np
import pytest
import scipy.optimize

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


def _same(got, want):
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


XS = np.array([[0.3, -1.2, 0.5], [1.5, 0.4, -0.2], [-0.7, 2.0, 0.9]])


# -- np.array of a list of tracers and numbers: the loop's numeric array -----------------


def _sin_of_list(x):
    return np.sin(np.array([x[0] ** 2, 1.0]))


def _exp_of_tuple(x):
    return np.exp(np.asarray((x[0], x[1], 3.0))).sum()


def _kind_branch(x):
    a = np.array([x[0] * x[1], x[2]])
    return a.sum() * 2 if a.dtype.kind == "f" else a.sum()


def _nested_cos(x):
    m = np.array([[x[0], 1.0], [0.5, x[1]]])
    return np.cos(m) @ np.array([1, x[2]])


def _written(x):
    a = np.array([x[0], 1.0, 2.0])
    a[1] = np.tanh(a[0]) * x[1]
    a[2] *= x[2]
    return np.log1p(a**2)


@pytest.mark.parametrize("f", [_sin_of_list, _exp_of_tuple, _kind_branch, _nested_cos, _written])
def test_list_of_tracers_and_numbers_is_the_loops_array(f):
    want = _loop(f, XS)
    _same(ft.vmap(f)(XS), want)
    _same(ft.jit(ft.vmap(f))(XS), want)
    _same(ft.vmap(f, in_dims=1, out_dims=-1)(XS.T), np.moveaxis(want, 0, -1))
    _same(ft.vmap(ft.vmap(f))(np.stack([XS, XS[::-1]])), np.stack([want, want[::-1]]))
    grads = np.stack([_diff(f, x) for x in XS])
    np.testing.assert_allclose(ft.vmap(ft.grad(lambda x: np.sum(f(x))))(XS), grads, atol=1e-7)
    np.testing.assert_allclose(ft.grad(lambda xs: np.sum(ft.vmap(f)(xs)))(XS), grads, atol=1e-7)
    jac = ft.jacrev(ft.vmap(f))(XS)
    np.testing.assert_allclose(jac.reshape(want.size, XS.size).sum(0), grads.reshape(-1), atol=1e-7)


def test_list_dtypes_follow_numpy():
    cases = [
        (np.int32, lambda x: np.array([x[0], 1])),  # int64, as np.array([np.int32(1), 1])
        (np.float32, lambda x: np.array([x[0], 1.0])),  # a Python float counts as float64
        (np.float32, lambda x: np.array([x[0], x[1]])),
        (np.float32, lambda x: np.array([x[0], True])),
        (np.float64, lambda x: np.array([x[0], 1j])),
        (np.float64, lambda x: np.array((x[:2], np.ones(2)))),
    ]
    for dtype, f in cases:
        xs = (np.arange(6).reshape(2, 3) + 1).astype(dtype)
        got, want = np.asarray(ft.vmap(f)(xs)), _loop(f, xs)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


def test_object_dtype_and_non_numbers_keep_numpy_object_arrays():
    def f(x):
        a = np.array([x[0], 1.0], dtype=object)
        b = np.array([x[0], "label"])  # not numbers: NumPy's conversion (kept)
        assert a.dtype == object and b.shape == (2,)
        return a.sum() + len(b)

    np.testing.assert_allclose(ft.vmap(f)(XS), XS[:, 0] + 3.0)
    with pytest.raises(TypeError, match="no callable sin method"):  # as NumPy's own
        ft.grad(lambda x: np.sin(np.array([x[0], 1.0], dtype=object)).sum())(XS[0])


# -- the statistics module on traced rows ------------------------------------------------

STATS = {
    "mean": statistics.mean,
    "stdev_bound_early": bound_stdev,
    "variance_of_generator": lambda x: statistics.variance(v * v for v in x),
    "pvariance_mu": lambda x: statistics.pvariance(x, statistics.mean(x)),
    "pstdev_list": lambda x: statistics.pstdev([x[0], x[1] * 2, 0.5]),
    "fmean_weights": lambda x: statistics.fmean(x, weights=[1.0, 2.0, 0.5]),
    "geometric_mean": lambda x: statistics.geometric_mean(np.abs(x) + 0.1),
}


@pytest.mark.parametrize("name", list(STATS))
def test_statistics_module_on_traced_rows(name):
    f = STATS[name]
    want = _loop(f, XS)
    _same(ft.vmap(f)(XS), want)
    _same(ft.jit(ft.vmap(f))(XS), want)
    _same(ft.vmap(ft.vmap(f))(np.stack([XS, XS[::-1]])), np.stack([want, want[::-1]]))
    grads = np.stack([_diff(f, x) for x in XS])
    np.testing.assert_allclose(ft.vmap(ft.grad(f))(XS), grads, atol=1e-7)
    np.testing.assert_allclose(ft.grad(lambda xs: ft.vmap(f)(xs).sum())(XS), grads, atol=1e-7)


def test_statistics_dtypes_and_errors_follow_the_loop():
    xs = XS.astype(np.float32)
    for f in (statistics.mean, statistics.variance, statistics.stdev, statistics.fmean):
        got, want = np.asarray(ft.vmap(f)(xs)), _loop(f, xs)
        assert got.dtype == want.dtype, (f.__name__, got.dtype, want.dtype)
        np.testing.assert_allclose(got, want, rtol=1e-6)
    with pytest.raises(statistics.StatisticsError, match="at least two data points"):
        ft.vmap(statistics.stdev)(XS[:, :1])
    with pytest.raises(statistics.StatisticsError, match="positive numbers"):
        ft.vmap(statistics.geometric_mean)(XS)  # rows 0-2 hold a negative number
    assert statistics.mean([1.0, 2.0, 4.5]) == 2.5  # plain data: the module's own code
    assert statistics.stdev.__wrapped__([1.0, 2.0]) == statistics.stdev([1.0, 2.0])


def test_object_array_into_a_ufunc_names_the_fix():
    with pytest.raises(TypeError, match="no callable sin method") as caught:
        ft.vmap(lambda x: np.sin([x[0], 2.0]).sum())(XS)
    assert any("np.array([...])" in note for note in caught.value.__notes__)
    good = ft.vmap(lambda x: np.sin(np.array([x[0], 2.0])).sum())(XS)
    np.testing.assert_allclose(good, np.sin(XS[:, 0]) + np.sin(2.0))


def _fsolve_row(x):
    return scipy.optimize.fsolve(lambda t: t**2 - x[0] - x[1], 1.0)[0]


def _brentq_row(x):
    return scipy.optimize.brentq(lambda t: t**2 - x[0] - x[1], 0.0, 5.0)


@pytest.mark.parametrize("f", [_fsolve_row, _brentq_row])
def test_grad_of_a_sum_over_vmap_of_a_per_row_root(f):
    xs = np.abs(XS) + 0.1
    exact = np.zeros_like(xs)
    exact[:, :2] = (0.5 / np.sqrt(xs[:, 0] + xs[:, 1]))[:, None]  # t = sqrt(x0 + x1)
    np.testing.assert_allclose(ft.vmap(f)(xs), np.sqrt(xs[:, 0] + xs[:, 1]), rtol=1e-9)
    np.testing.assert_allclose(ft.grad(lambda v: ft.vmap(f)(v).sum())(xs), exact, rtol=1e-7)
    np.testing.assert_allclose(ft.vmap(ft.grad(f))(xs), exact, rtol=1e-7)
