"""Probe round: ``cond``/``switch`` branches that write into their operands (NumPy
mutation semantics).  A write by a branch that is not taken changes nothing: not in the
eager check that runs every branch once, and not on the rows of a ``vmap`` batch that
take another branch.  Oracles: the Python ``if`` and loop, central differences."""

import warnings

import numpy as np
import pytest

import ftransforms as ft

X = np.array([0.3, -1.2, 2.0, 0.7])
BATCH = np.stack([X, 2 * X, -X, 0.1 - X])


def writes_first(y):
    y[0] = 100.0
    return y * 2


def minus_one(y):
    return y - 1


def program(v):
    y = v.copy()
    out = ft.cond(v.sum() > 0, writes_first, minus_one, y)
    return out, y


def oracle(v):
    y = v.copy()
    if v.sum() > 0:
        return writes_first(y), y
    return minus_one(y), y


def three_way(i, v):
    y = v * 1.0

    def scale(u):
        u *= 3.0
        return u.sum()

    def shift(u):
        u[1:] += u[:-1]
        return u.sum()

    return ft.switch(i, [lambda u: u.sum(), scale, shift], y), y


def three_way_oracle(i, v):
    y = v * 1.0
    k = min(max(int(i), 0), 2)
    if k == 1:
        y *= 3.0
    elif k == 2:
        y[1:] += y[:-1]
    return y.sum(), y


def test_an_untaken_branch_leaves_a_numpy_operand_as_it_was():
    y = np.array([1.0, 2.0])
    np.testing.assert_array_equal(ft.cond(False, writes_first, minus_one, y), [0.0, 1.0])
    np.testing.assert_array_equal(y, [1.0, 2.0])


def test_an_untaken_branch_keeps_the_derivative_of_the_operand():
    def f(v):
        y = v * 1.0
        return ft.cond(v.sum() < 0, writes_first, minus_one, y).sum() + y.sum()

    np.testing.assert_allclose(ft.grad(f)(np.array([1.0, 2.0])), [2.0, 2.0])


@pytest.mark.parametrize("v", list(BATCH), ids=range(len(BATCH)))
def test_eager_and_jit_match_the_python_if(v):
    for got, want in zip(program(v), oracle(v)):
        np.testing.assert_allclose(got, want)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for got, want in zip(ft.jit(program)(v), oracle(v)):
            np.testing.assert_allclose(got, want)


def test_vmap_writes_only_the_rows_that_take_the_branch():
    got = ft.vmap(program)(BATCH)
    want = [np.stack(z) for z in zip(*[oracle(b) for b in BATCH])]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w)


def test_vmap_of_grad_and_grad_of_vmap_through_a_writing_branch():
    def loss(v):
        out, y = program(v)
        return np.sum(np.tanh(out)) + np.sum(y**2)

    def loss_oracle(v):
        out, y = oracle(v)
        return np.sum(np.tanh(out)) + np.sum(y**2)

    def central(f, v, eps=1e-6):
        return np.array([(f(v + eps * e) - f(v - eps * e)) / (2 * eps) for e in np.eye(v.size)])

    want = np.stack([central(loss_oracle, b) for b in BATCH])
    np.testing.assert_allclose(ft.vmap(ft.grad(loss))(BATCH), want, atol=1e-6)
    np.testing.assert_allclose(ft.grad(lambda b: ft.vmap(loss)(b).sum())(BATCH), want, atol=1e-6)


def test_vmap_switch_with_writing_branches_matches_the_loop():
    idx = np.array([0, 1, 2, 7])
    got = ft.vmap(three_way)(idx, BATCH)
    want = [np.stack(z) for z in zip(*[three_way_oracle(i, b) for i, b in zip(idx, BATCH)])]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w)
