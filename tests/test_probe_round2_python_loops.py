"""Probe round 2: per-example Python under ``vmap`` (NOTE [splitting the batch]) where a
Python ``while`` loop whose rows leave at different trip counts writes an array in place
(``y[i] *= 0.5``): the rows that left must keep the values they had then, as in the loop
over rows.  Oracles: that loop, central differences."""

import warnings

import numpy as np
import pytest

import ftransforms as ft

X = np.array([0.3, -1.2, 2.0, 0.7, -0.4, 1.1])
BATCH = np.stack([X, 0.5 * X + 0.13, -X, X[::-1], 0.1 * X])


def halve_the_largest(x):
    y = x.copy()
    n = 0
    while y.max() > 0.45 and n < 10:
        y[np.argmax(y)] *= 0.5
        n += 1
    return y * (n + 1)


def scale_through_a_view(x):
    y = x * 1.0
    head = y[:3]
    while np.abs(y).sum() > 1.0:
        head *= 0.5  # a view: y changes too
        y[3:] -= 0.1 * y[3:]
    return y + head.sum()


def alias_of_an_argument(x):
    a = x
    while a.sum() < 5.0:
        a += 1.0  # also x: the same array
    return x * 2


def in_a_list(x):
    y = [x.copy()]
    while y[0].sum() > 0.5:
        y[0] *= 0.5  # the same array, written in place, stays in the list
    return y[0]


class _State:
    pass


def in_an_attribute(x):
    s = _State()
    s.y = x.copy()
    while s.y.sum() > 0.5:
        s.y *= 0.5
    return s.y


_GLOBAL_STATE: dict = {}


def in_a_global_dict(x):
    _GLOBAL_STATE["y"] = x.copy()
    while _GLOBAL_STATE["y"].sum() > 0.5:
        _GLOBAL_STATE["y"] *= 0.5
    return _GLOBAL_STATE["y"] * 1.0


PROGRAMS = [
    halve_the_largest,
    scale_through_a_view,
    alias_of_an_argument,
    in_a_list,
    in_an_attribute,
    in_a_global_dict,
]


def loop(f, b):
    return np.stack([f(r.copy()) for r in b])


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ft.errors.PerformanceWarning)
        yield


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_vmap_matches_the_loop_over_rows(f):
    np.testing.assert_allclose(ft.vmap(f)(BATCH.copy()), loop(f, BATCH))
    np.testing.assert_allclose(ft.vmap(f, chunk_size=2)(BATCH.copy()), loop(f, BATCH))
    np.testing.assert_allclose(ft.vmap(f, in_dims=1)(BATCH.T.copy()), loop(f, BATCH))
    nested = np.stack([BATCH, -0.5 * BATCH])
    want = np.stack([loop(f, b) for b in nested])
    np.testing.assert_allclose(ft.vmap(ft.vmap(f))(nested.copy()), want)


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_vmap_of_grad_matches_central_differences(f):
    w = np.linspace(0.5, 1.5, 6)

    def loss(x):
        return np.sum(f(x) * w)

    def central(x, eps=1e-6):
        e = np.eye(x.size) * eps
        return np.array([(loss(x + d) - loss(x - d)) / (2 * eps) for d in e])

    want = np.stack([central(r.copy()) for r in BATCH])
    np.testing.assert_allclose(ft.vmap(ft.grad(loss))(BATCH.copy()), want, rtol=1e-5, atol=1e-5)


def test_a_format_spec_reads_the_value_of_each_row():
    def f(x):
        return x * len(f"{x[0]:.2f}")

    b = np.array([[1.0, 2.0], [-10.0, 3.0], [0.5, 1.0]])
    np.testing.assert_allclose(ft.vmap(f)(b), loop(f, b))
    np.testing.assert_allclose(ft.grad(lambda x: f(x).sum())(b[1]), [6.0, 6.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # jit: the value is read: eager
        jf = ft.jit(f)
        for r in b:
            np.testing.assert_allclose(jf(r), f(r))
    with pytest.raises(TypeError):
        ft.vmap(lambda x: f"{x:.2f}")(b)  # as NumPy: no format spec for a 1-d array


def test_side_effects_run_once_per_run_of_the_function_as_documented():
    log = []

    def f(x):
        log.append("start")
        if x.sum() > 0:
            log.append("pos")
            return x * 2
        log.append("neg")
        return -x

    xs = np.array([[1.0], [-1.0], [2.0]])
    np.testing.assert_allclose(ft.vmap(f)(xs), loop(f, xs))
    log.clear()
    ft.vmap(f)(xs)
    assert log == ["start", "start", "pos", "start", "neg"]  # docs/guides/control-flow.md
