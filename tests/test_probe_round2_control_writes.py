"""Probe round 2: writes made inside ``cond``/``switch`` branches and ``while_loop``
bodies into arrays from outside them (closures, the loop's initial carry), under ``vmap``
where every branch runs on all rows and the body runs on finished rows too.  Oracles: the
per-row Python ``if``/``while`` (control flow replaced by Python), central differences."""

import warnings

import numpy as np
import pytest

import ftransforms as ft

X = np.array([0.3, -1.2, 2.0, 0.7, -0.4, 1.1])
BATCH = np.stack([X, 0.5 * X + 0.1, -X, X[::-1]])


def py_cond(p, t, f, *ops):
    return t(*ops) if p else f(*ops)


def py_switch(i, branches, *ops):
    return branches[min(max(int(i), 0), len(branches) - 1)](*ops)


def py_while(c, b, v):
    while c(v):
        v = b(v)
    return v


def py_fori(lo, hi, b, v):
    for i in range(int(lo), int(hi)):
        v = b(i, v)
    return v


FT = (ft.cond, ft.switch, ft.while_loop, ft.fori_loop)
PY = (py_cond, py_switch, py_while, py_fori)


def cond_writes_closure(x, cond=ft.cond, **_):
    y = x.copy()

    def t(_):
        y[1:] += 1.0
        return y.sum()

    def f(_):
        return y.sum() * 2

    return y * cond(x.sum() > 1.0, t, f, None)


def cond_writes_view_of_closure(x, cond=ft.cond, **_):
    y = x.copy()
    v = y[::2]

    def t(_):
        v[:] = 0.0
        return 1.0

    def f(_):
        v[0] += 5.0
        return 2.0

    return y * cond(x[0] > 0, t, f, None)


def nested_conds_write_closure(x, cond=ft.cond, **_):
    y = x.copy()

    def inner_t(_):
        y[0] = 100.0
        return 0.0

    def inner_f(_):
        y[1] = -100.0
        return 0.0

    def f(_):
        y[2] *= 3
        return 1.0

    cond(x[0] > 0, lambda _: cond(x[1] > 0, inner_t, inner_f, None), f, None)
    return y * 1.0


def switch_writes_closure(x, switch=ft.switch, **_):
    acc = np.zeros(6)

    def b0(v):
        acc[0] = v[0]
        return v.sum()

    def b1(v):
        acc[1:3] += v[1:3] ** 2
        return v.sum() * 2

    def b2(v):
        acc[:] = -v
        return v.sum() * 3

    i = (x[0] > 0).astype(int) + (x[1] > 0).astype(int)
    return acc * switch(i, [b0, b1, b2], x)


def while_body_writes_closure(x, while_loop=ft.while_loop, **_):
    hist = np.zeros(6)

    def body(c):
        hist[:] = hist + c
        return c + np.abs(c[1]) + 0.5

    return while_loop(lambda c: c[0] < 4.0, body, x.copy()) + hist


def while_body_writes_its_carry(x, while_loop=ft.while_loop, **_):
    y = np.abs(x) + 0.1

    def body(c):
        c *= 1.5
        return c

    z = while_loop(lambda c: c.sum() < 10.0, body, y)
    return z + y  # y is z: the body wrote the initial carry in place


def while_body_writes_then_returns_new(x, while_loop=ft.while_loop, **_):
    y = np.abs(x) + 0.1

    def body(c):
        c[0] += 1.0  # reaches y on the first step only
        return c * 1.2

    return while_loop(lambda c: c.sum() < 8.0, body, y) * y


def fori_traced_bound_writes_its_carry(x, fori_loop=ft.fori_loop, **_):
    y = x.copy()

    def body(i, c):
        c *= 1.1
        return c

    return fori_loop(0, (np.abs(x[0]) * 4).astype(int), body, y) + y


PROGRAMS = [
    cond_writes_closure,
    cond_writes_view_of_closure,
    nested_conds_write_closure,
    switch_writes_closure,
    while_body_writes_closure,
    while_body_writes_its_carry,
    while_body_writes_then_returns_new,
    fori_traced_bound_writes_its_carry,
]
SMOOTH = PROGRAMS[:-1]  # the traced trip count is piecewise constant in x


def oracle(f, x):
    return f(x.copy(), **{fn.__name__: py for fn, py in zip(FT, PY)})


def central_grad(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(x.size)])


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_eager_and_vmap_match_the_python_loop(f):
    np.testing.assert_allclose(f(X.copy()), oracle(f, X))
    want = np.stack([oracle(f, r) for r in BATCH])
    np.testing.assert_allclose(ft.vmap(f)(BATCH.copy()), want)
    np.testing.assert_allclose(
        ft.vmap(ft.vmap(f))(np.stack([BATCH, -BATCH])),
        np.stack([want, np.stack([oracle(f, -r) for r in BATCH])]),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        jf = ft.jit(ft.vmap(f))
        for b in (BATCH, 0.5 * BATCH, -BATCH):
            np.testing.assert_allclose(jf(b.copy()), np.stack([oracle(f, r) for r in b]))


@pytest.mark.parametrize("f", SMOOTH, ids=lambda f: f.__name__)
def test_vmap_of_grad_matches_central_differences(f):
    w = np.linspace(0.5, 1.5, 6)

    def loss(x):
        return np.sum(f(x) * w)

    want = np.stack([central_grad(lambda v: np.sum(oracle(f, v) * w), r) for r in BATCH])
    np.testing.assert_allclose(ft.vmap(ft.grad(loss))(BATCH.copy()), want, rtol=1e-5, atol=1e-5)
