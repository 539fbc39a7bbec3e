"""Probe round 2: the trial calls that check a ``cond`` branch or a loop body eagerly
(NOTE [eager branch check]) must change nothing the program sees.  Oracle: the Python
``if``/``while`` the control-flow function stands for, in plain NumPy."""

import warnings

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.effect_scan import may_have_effects


def test_a_while_loop_that_runs_zero_times_leaves_its_carry_alone():
    def body(c):
        c[0] -= 10.0
        return c

    y = np.array([1.0, 2.0])
    z = ft.while_loop(lambda c: c[0] < 0, body, y)
    np.testing.assert_array_equal(z, [1.0, 2.0])  # was [-9, 2]: the trial body wrote it
    np.testing.assert_array_equal(y, [1.0, 2.0])


def test_an_untaken_branch_does_not_write_a_closed_over_array():
    acc = np.zeros(2)

    def count(v):
        acc[0] += 1
        return v

    out = ft.cond(True, lambda u: u * 2, count, np.ones(2))
    np.testing.assert_array_equal(out, [2.0, 2.0])
    np.testing.assert_array_equal(acc, [0.0, 0.0])  # as after the Python if


def test_an_untaken_branch_does_not_draw_from_a_generator():
    rng = np.random.default_rng(0)
    ft.cond(True, lambda v: v * 2, lambda v: v + rng.normal(), np.ones(2))
    assert rng.normal() == np.random.default_rng(0).normal()


def test_a_switch_under_jvp_writes_only_the_branch_taken():
    def program(x):
        acc = np.zeros(3)

        def b0(v):
            acc[0] = v[0]
            return v.sum()

        def b1(v):
            acc[:] = -v
            return 2 * v.sum()

        r = ft.switch((x[0] > 0).astype(int), [b0, b1], x)
        return acc * r

    x = np.array([0.3, -1.2, 2.0])
    want = program(x)  # plain NumPy through ft.switch; checked against the Python if:
    np.testing.assert_allclose(want, -x * (2 * x.sum()))
    out, _ = ft.jvp(program, (x,), (np.ones(3),))
    np.testing.assert_allclose(out, want)


def test_a_python_number_carry_of_a_body_with_effects_runs_the_body_once_per_step():
    log = []

    def body(c):
        log.append(c)
        return c + 1.0

    assert ft.while_loop(lambda c: c < 3, body, 0.0) == 3.0
    assert len(log) == 3


GLOBAL = np.zeros((2, 2))


def in_place_on_a_local(c):
    y = c * 2
    y += 1.0
    return y


def in_place_on_a_global_row(c):
    for row in GLOBAL:
        row += c
    return c


@pytest.mark.parametrize(
    "fun, effects",
    [
        (np.sqrt, False),
        (lambda v: np.power(v, 2) + np.sum(v), False),
        (lambda v: ft.cond(v > 0, np.sin, np.cos, v), False),
        (lambda v: v + np.random.normal(), True),
        (lambda v: np.exp(v, out=v), True),
        (lambda v: print(v), True),
        (lambda v: np.sort(np.append(v, 1.0)), False),  # NumPy's functions, not methods
        (lambda v: v.at[0].set(1.0), False),  # JAX's functional update
        (lambda v: ft.debug.print("{}", v), False),  # recorded by jit as an effect
        (lambda v: np.add.at(GLOBAL, [0], v), True),
        (lambda v: v.sort(), True),
        (in_place_on_a_local, False),
        (in_place_on_a_global_row, True),
    ],
)
def test_the_effect_scan(fun, effects):
    assert may_have_effects(fun) is effects


def test_a_scan_from_a_python_number_runs_a_body_that_writes_its_x_once_per_step():
    xs = np.arange(6.0).reshape(3, 2)

    def step(c, xi):
        xi *= 2  # a view of xs, as in the Python loop over xs
        return c + xi.sum(), xi

    c, ys = ft.scan(step, 0.0, xs)
    want = 2 * np.arange(6.0).reshape(3, 2)
    np.testing.assert_array_equal(xs, want)  # was xs[0] written twice (the trial step)
    np.testing.assert_array_equal(ys, want)
    assert c == want.sum()


def test_jit_does_not_record_an_untaken_branch_that_writes_a_global():
    acc = np.zeros(2)

    def count(v):
        acc[0] += 1
        return v

    jf = ft.jit(lambda x: ft.cond(x.sum() > 0, lambda u: u * 2, count, x))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # eager: it reads the predicate
        for _ in range(3):
            np.testing.assert_array_equal(jf(np.ones(2)), [2.0, 2.0])
        np.testing.assert_array_equal(acc, [0.0, 0.0])
        np.testing.assert_array_equal(jf(-np.ones(2)), [-1.0, -1.0])
    np.testing.assert_array_equal(acc, [1.0, 0.0])  # as the Python if


def test_vmap_runs_no_branch_that_no_row_takes_when_it_has_effects():
    acc = np.zeros(2)

    def count(v):
        acc[0] += 1
        return v

    def f(x):
        return ft.cond(x.sum() > 0, lambda u: u * 2, count, x)

    np.testing.assert_array_equal(ft.vmap(f)(np.ones((3, 2))), 2 * np.ones((3, 2)))
    np.testing.assert_array_equal(acc, [0.0, 0.0])
    g = ft.vmap(lambda i, x: ft.switch(i, [lambda u: u * 2, count, lambda u: u - 1], x))
    np.testing.assert_array_equal(g(np.array([0, 2, 2]), np.ones((3, 2))), [[2, 2], [0, 0], [0, 0]])
    np.testing.assert_array_equal(acc, [0.0, 0.0])


@pytest.mark.parametrize("loop", ["while_loop", "fori_loop", "scan"])
def test_the_first_jit_call_runs_a_loop_body_with_effects_once_per_step(loop):
    steps = []

    def body(c):
        steps.append(1)
        return c * 2

    program = {
        "while_loop": lambda x: ft.while_loop(lambda c: c.sum() < 10, body, x),
        "fori_loop": lambda x: ft.fori_loop(0, 3, lambda i, c: body(c), x),
        "scan": lambda x: ft.scan(lambda c, xi: (body(c), xi), x, np.ones(3))[0],
    }[loop]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        jf = ft.jit(program)
        np.testing.assert_array_equal(jf(np.ones(2)), [8.0, 8.0])
        assert len(steps) == 3  # as the Python loop (the recording ran it once per step)
        np.testing.assert_array_equal(
            jf(np.full(2, 2.0)), [8.0, 8.0] if loop == "while_loop" else [16.0, 16.0]
        )


def test_jit_still_records_a_loop_whose_body_is_pure():
    def body(i, c):
        return c * 0.5 + np.sort(c)[0]  # np.sort: a function, not the in-place method

    jf = ft.jit(lambda x: ft.fori_loop(0, 3, body, x))
    for x in (np.array([3.0, 1.0, 2.0]), np.array([-1.0, 4.0, 0.5])):
        want = x.copy()
        for i in range(3):
            want = body(i, want)
        np.testing.assert_allclose(jf(x), want)
    (program,) = jf.cache.values()
    assert [e.prim.name for e in program.eqns] == ["fori_loop"]  # one node, not unrolled
