"""Probe round: loop bodies that update their carry in place (NumPy style) under
``while_loop``/``scan``/``fori_loop``.  Oracles: the Python loop (with each step's ``y``
taken as its value at that step), central differences."""

import warnings

import numpy as np
import pytest

import ftransforms as ft

ROWS = np.array([[1.1, 0.5], [3.0, 0.2], [7.0, 0.1]])
XS = np.arange(6.0)


def grow(v):
    def body(s):
        s[0] += v[0]
        s[1] *= 1.5
        return s

    return ft.while_loop(lambda s: s[0] < 10, body, np.array([0.0, v[1]]))


def grow_oracle(v):
    s = np.array([0.0, v[1]])
    while s[0] < 10:
        s[0] += v[0]
        s[1] *= 1.5
    return s


def decay(v):
    def body(c, x):
        c += x
        c *= 0.9
        return c, c  # the y is the carry object, written again by the next step

    return ft.scan(body, np.zeros(2), v.reshape(-1, 2))


def decay_oracle(v):
    c, ys = np.zeros(2), []
    for x in v.reshape(-1, 2):
        c = (c + x) * 0.9
        ys.append(c.copy())
    return c, np.stack(ys)


def central(f, v, eps=1e-6):
    return np.array([(f(v + eps * e) - f(v - eps * e)) / (2 * eps) for e in np.eye(v.size)])


def test_vmap_while_freezes_finished_rows_when_the_body_writes_in_place():
    np.testing.assert_allclose(ft.vmap(grow)(ROWS), np.stack([grow_oracle(r) for r in ROWS]))


@pytest.mark.parametrize("r", list(ROWS), ids=range(len(ROWS)))
def test_while_eager_jit_and_grad(r):
    np.testing.assert_allclose(grow(r), grow_oracle(r))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        np.testing.assert_allclose(ft.jit(grow)(r), grow_oracle(r))
    np.testing.assert_allclose(
        ft.grad(lambda v: grow(v)[1])(r), central(lambda v: grow_oracle(v)[1], r), rtol=1e-6
    )


def test_scan_ys_keep_each_steps_value():
    for got, want in zip(decay(XS), decay_oracle(XS)):
        np.testing.assert_allclose(got, want)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for got, want in zip(ft.jit(decay)(XS), decay_oracle(XS)):
            np.testing.assert_allclose(got, want)


def test_scan_with_in_place_carry_under_vmap_and_grad():
    batch = np.stack([XS, -XS, XS**2])
    got = ft.vmap(decay)(batch)
    want = [np.stack(z) for z in zip(*[decay_oracle(b) for b in batch])]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w)

    def loss(v):
        return np.sum(np.sin(decay(v)[1]))

    def loss_oracle(v):
        return np.sum(np.sin(decay_oracle(v)[1]))

    np.testing.assert_allclose(ft.grad(loss)(XS), central(loss_oracle, XS), atol=1e-6)
    np.testing.assert_allclose(
        ft.jacfwd(lambda v: decay(v)[1])(XS).reshape(6, 6),
        np.stack([central(lambda v: decay_oracle(v)[1].ravel()[k], XS) for k in range(6)]),
        atol=1e-6,
    )


def test_scan_ys_that_view_the_carry():
    def f(v):
        def body(c, x):
            c[:] = c * 0.5 + x
            return c, c[0]  # a view of the carry

        return ft.scan(body, np.zeros(2), v.reshape(-1, 2))[1]

    def oracle(v):
        c, ys = np.zeros(2), []
        for x in v.reshape(-1, 2):
            c = c * 0.5 + x
            ys.append(c[0])
        return np.array(ys)

    np.testing.assert_allclose(f(XS), oracle(XS))
    np.testing.assert_allclose(ft.vmap(f)(np.stack([XS, 2 * XS])), [oracle(XS), oracle(2 * XS)])
    np.testing.assert_allclose(
        ft.grad(lambda v: f(v).sum())(XS), central(lambda v: oracle(v).sum(), XS), atol=1e-6
    )
