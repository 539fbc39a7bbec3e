"""NumPy's ndarray method signatures on tracers: ``out=`` (in NumPy's position, written
with NumPy's mutation semantics), ``where=``/``initial=`` on the reductions, and
``take(mode='clip'|'wrap')``; the same code run on plain NumPy arrays is the oracle (a
Python loop over the rows for ``vmap``, central differences in float64 for ``grad``)."""

from __future__ import annotations

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.core.stack import current_stack
from tests.program_oracles import fd_jacobian

RNG = np.random.default_rng(11)
X = RNG.normal(size=(4, 5))


def _loop(f, xs):
    return np.stack([np.asarray(f(x)) for x in xs])


def _fd(f, x):
    return fd_jacobian(f, (x,), eps=1e-4)


REDUCTIONS = {
    "sum_where": lambda r: r.sum(where=r > 0),
    "sum_where_initial": lambda r: r.sum(where=r > 0, initial=1.5),
    "prod_where": lambda r: r.prod(where=r > -0.5),
    "max_initial": lambda r: r.max(initial=0.25),
    "min_where_initial": lambda r: r.min(where=r < 1.0, initial=2.0),
    "mean_where": lambda r: r.mean(where=r > -1.0),
    "positional_keepdims": lambda r: r.sum(0, None, None, True),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reduction_methods_take_where_and_initial(name):
    f = REDUCTIONS[name]
    np.testing.assert_allclose(ft.vmap(f)(X), _loop(f, X), rtol=1e-12)
    np.testing.assert_allclose(ft.jit(ft.vmap(f))(X), _loop(f, X), rtol=1e-12)
    row = X[1] + 0.01  # away from the where= boundaries and ties
    g = ft.grad(lambda r: np.sum(f(r)))(row)
    np.testing.assert_allclose(g, _fd(lambda r: np.sum(f(r)), row), atol=1e-7)


def _clip_in_place(x):
    y = x * 2.0
    y.clip(-1.0, 1.0, out=y)  # NumPy's idiom: clip the buffer itself
    return y


def _sum_into_buffer(x):
    y = x * x
    total = np.zeros(())
    y.sum(out=total)
    col = np.empty(y.shape[-1:])
    y.reshape(-1, y.shape[-1]).mean(axis=0, out=col)
    return total + col


def _cumsum_round_into(x):
    buf = np.empty((2,) + x.shape)
    x.cumsum(out=buf[0])  # views of the buffer as out
    (x * 10.0).round(2, out=buf[1])
    return buf


def _positional_out(x):
    buf = np.empty(())
    x.max(None, buf)  # max(axis, out): out is the second positional, as in NumPy
    return buf * x


@pytest.mark.parametrize(
    "f",
    [_clip_in_place, _sum_into_buffer, _cumsum_round_into, _positional_out],
    ids=lambda f: f.__name__,
)
def test_out_on_methods_writes_the_buffer_as_numpy(f):
    np.testing.assert_allclose(ft.vmap(f)(X), _loop(f, X), rtol=1e-12)
    np.testing.assert_allclose(ft.jit(f)(X[0]), f(X[0]), rtol=1e-12)
    row = X[2] * 0.37 + 0.013  # off the clip bounds
    g = ft.grad(lambda r: np.sum(np.sin(f(r))))(row)
    if f is not _cumsum_round_into:  # round has a zero derivative almost everywhere
        np.testing.assert_allclose(g, _fd(lambda r: np.sum(np.sin(f(r))), row), atol=1e-6)


def _fnp_take_and_multi_dot_into(x):
    import ftransforms.numpy as fnp  # the library's own functions, called directly

    buf = np.zeros(2)
    fnp.take(x, np.array([3, 0]), out=buf)
    prod = np.zeros((2, 2))
    fnp.linalg.multi_dot([x[:2, None], x[None, 1:3], np.eye(2)], out=prod)
    return buf.sum() + np.sin(prod).sum()


def test_out_on_fnp_take_and_multi_dot_writes_the_buffer_as_numpy():
    f = _fnp_take_and_multi_dot_into
    expected = _loop(lambda r: np.take(r, [3, 0]).sum() + np.sin(np.outer(r[:2], r[1:3])).sum(), X)
    np.testing.assert_allclose(_loop(f, X), expected, rtol=1e-12)
    np.testing.assert_allclose(ft.vmap(f)(X), expected, rtol=1e-12)
    np.testing.assert_allclose(ft.jit(f)(X[1]), expected[1], rtol=1e-12)
    np.testing.assert_allclose(ft.grad(f)(X[2]), _fd(f, X[2]), atol=1e-6)


def test_out_on_a_method_refuses_an_outside_array():
    outside = np.zeros(())

    def f(x):
        x.sum(out=outside)
        return x

    with pytest.raises(ft.errors.InPlaceError, match=r"x.sum\(\.\.\., out=\.\.\.\)"):
        ft.vmap(f)(X)
    assert current_stack() == ()


@pytest.mark.parametrize("mode", ["clip", "wrap"])
def test_take_modes(mode):
    idx = [0, 7, -6, 2]
    for f in (lambda r: r.take(idx, mode=mode), lambda r: np.take(r, idx, mode=mode)):
        np.testing.assert_array_equal(ft.vmap(f)(X), _loop(f, X))
        row = X[3]
        np.testing.assert_allclose(
            ft.grad(lambda r: np.sum(f(r) ** 2))(row),
            _fd(lambda r: np.sum(f(r) ** 2), row),
            atol=1e-7,
        )
    with pytest.raises(ValueError, match="clipmode"):
        ft.vmap(lambda r: np.take(r, idx, mode="nearest"))(X)


def _partition_in_place(r):
    y = r.copy()
    y.partition(2, axis=-1)
    return y[..., 2]  # the k-th value: defined by NumPy's contract whatever the order


OTHER_METHODS = {
    "any_where": lambda r: r.any(where=r > 0.5) * 1.0,
    "all_where": lambda r: np.all(r > -1.0, where=r < 1.0) * 1.0,
    "nonzero_count": lambda r: r.nonzero()[0].size * r,
    "partition_kth": _partition_in_place,
    "choose": lambda r: (r[0] > 0).astype(int).choose([r[1], r[2]]),
    "dot_out": lambda r: (lambda b: (r.dot(r.T, out=b), b)[1])(np.empty((r.shape[0],) * 2)),
    "nbytes_itemsize": lambda r: r * (r.nbytes + r.astype(np.float32).itemsize),
    "contains": lambda r: r * (r[1, 2] in r) + r * (123.0 in r),
}


@pytest.mark.parametrize("name", sorted(OTHER_METHODS))
def test_more_ndarray_methods_under_vmap_and_grad(name):
    f = OTHER_METHODS[name]
    xs = X.reshape(4, 5, 1) * np.ones(3) if name == "choose" else X.reshape(2, 2, 5)
    if name == "choose":
        xs = np.moveaxis(xs, -1, 1)  # rows of (3, 5)
    np.testing.assert_allclose(ft.vmap(f)(xs), _loop(f, xs), rtol=1e-12)
    row = xs[0] + 0.003
    g = ft.grad(lambda r: np.sum(np.sin(f(r))))(row)
    np.testing.assert_allclose(g, _fd(lambda r: np.sum(np.sin(f(r))), row), atol=1e-6)
