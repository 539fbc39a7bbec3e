"""Probe round 7 on vmap of per-example Python code (NOTE [splitting the batch] in
ftransforms/split.py): each test compares with the Python loop over the rows."""

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


def _loop(f, xs):
    return np.stack([np.asarray(f(x), dtype=float) for x in xs])


def test_while_loop_in_a_generator_does_not_yield_masked_rows():
    # A `while` inside a generator: rows leave at different yields; the rows that left
    # must not pass a value one step past their end to the consumer (sum()).
    def f(x):
        def positives():
            i = 0
            while i < 3 and x[i] > 0:
                yield x[i] * x[i]
                i += 1

        return sum(positives())

    xs = np.array([[1.0, 2.0, -1.0], [1.0, -1.0, 1.0], [2.0, 1.0, 3.0], [1.0, 2.0, -4.0]])
    want = _loop(f, xs)
    np.testing.assert_allclose(ft.vmap(f)(xs), want)
    np.testing.assert_allclose(ft.vmap(f, chunk_size=2)(xs), want)
    jf = ft.jit(ft.vmap(f))
    for perm in ([0, 1, 2, 3], [3, 2, 1, 0], [1, 3, 0, 2]):
        np.testing.assert_allclose(jf(xs[perm]), want[perm])
    grads = ft.vmap(ft.grad(f))(xs)
    np.testing.assert_allclose(grads, np.stack([ft.grad(f)(x) for x in xs]))
    np.testing.assert_allclose(grads[1], [2.0, 0.0, 0.0])


def test_a_loop_counter_turned_into_text_after_a_masked_loop():
    # `n` is a Python int in each row's run; rows finish the loop at different counts, so
    # under vmap it becomes a batched value at the exit: text made from it is the row's
    # number, as in the loop (not the repr of a batched array).
    def f(c, how):
        x, n = c[0], 0
        while x > 0.1:
            x = x * 0.5
            n += 1
        text = str(n) if how == "str" else f"{n}" if how == "fstring" else repr(n)
        return c * len(text) + n

    xs = np.array([[0.3, 1.0], [1000.0, 2.0], [0.05, 1.0], [0.35, 3.0]])
    for how in ("str", "fstring", "repr"):
        want = _loop(lambda c: f(c, how), xs)
        np.testing.assert_allclose(ft.vmap(f, in_dims=(0, None))(xs, how), want)
        np.testing.assert_allclose(ft.vmap(f, in_dims=(0, None), chunk_size=3)(xs, how), want)
        grads = ft.vmap(ft.grad(lambda c, h: f(c, h).sum()), in_dims=(0, None))(xs, how)
        np.testing.assert_allclose(grads[:, 1], [1.0, 2.0, 1.0, 1.0])  # len(text) per row


def _signed_noise(x, rng):
    u = rng.normal(size=2)  # a draw from a held generator, which no tracer sees
    if x[0] > 0:
        return x + u
    return x - u


@pytest.mark.parametrize("kw", [{}, {"chunk_size": 2}, {"chunk_size": 3}])
def test_randomness_same_with_a_held_generator_shares_one_draw_across_groups(kw):
    # randomness='same': every row sees the one draw, however the batch runs in parts
    # (the groups of a split, the chunks); the generator is left one draw further on.
    xs = np.array([[1.0, 2.0], [-1.0, 3.0], [2.0, -1.0], [-3.0, 1.0]])
    ref = np.random.default_rng(1)
    u = ref.normal(size=2)
    rng = np.random.default_rng(1)
    out = ft.vmap(_signed_noise, in_dims=(0, None), randomness="same", **kw)(xs, rng)
    np.testing.assert_allclose(out, np.where(xs[:, :1] > 0, xs + u, xs - u))
    assert rng.normal() == ref.normal()


def test_jit_of_randomness_same_with_a_held_generator_over_batches_that_split_differently():
    xs = np.array([[1.0, 2.0], [-1.0, 3.0], [2.0, -1.0], [-3.0, 1.0]])
    f = ft.jit(ft.vmap(_signed_noise, in_dims=(0, None), randomness="same"))
    ref, rng = np.random.default_rng(2), np.random.default_rng(2)
    for batch in (xs, xs[::-1], xs[[1, 0, 2, 2]]):
        u = ref.normal(size=2)
        out = f(batch, rng)
        np.testing.assert_allclose(out, np.where(batch[:, :1] > 0, batch + u, batch - u))


def test_a_row_error_of_a_masked_row_is_not_seen_by_a_try_in_the_loop():
    # Row 0 leaves the loop first; while it rides along masked, its state goes one step
    # past its end, where the matrix is singular.  The `except` in the loop belongs to the
    # rows still looping, which never meet a singular matrix.
    def f(c):
        x, total = c[0], c[1] * 0
        while x > 0.1:
            x = x - 0.25
            a = np.stack([np.stack([x + 0.25, 0.0 * x]), np.stack([0.0 * x, 1.0 + 0 * x])])
            try:
                total = total + np.linalg.solve(a, np.ones(2)).sum()
            except np.linalg.LinAlgError:
                total = total - 100.0
        return total

    xs = np.array([[0.5, 1.0], [1.0, 1.0], [0.75, 2.0]])
    want = _loop(f, xs)
    assert (want > 0).all()
    np.testing.assert_allclose(ft.vmap(f)(xs), want)
    np.testing.assert_allclose(ft.vmap(f, chunk_size=2)(xs), want)
    np.testing.assert_allclose(ft.vmap(ft.vmap(f))(np.stack([xs, xs[::-1]])), [want, want[::-1]])
    grads = ft.vmap(ft.grad(f))(xs)
    np.testing.assert_allclose(grads, np.stack([ft.grad(f)(x) for x in xs]))


def _halve_until_small(x, callback):
    while x > 0.1:
        x = x * 0.5
        callback(x)  # a monitor, as scipy.optimize's callback=
    return x


class _Log:
    def __init__(self):
        self.items = []
        self.calls = 0

    def add(self, v):
        self.items.append(v)
        self.calls += 1


@pytest.mark.parametrize("monitor", ["list_append", "closure", "bound_method", "nonlocal"])
def test_a_callback_in_a_masked_loop_sees_only_each_rows_own_steps(monitor):
    # Rows leave the loop after 1, 4, 0 and 5 steps; a row that left must not reach the
    # callback's state (a list, an object, a nonlocal counter) with its extra steps.
    def f(c):
        hist = []
        count = 0
        if monitor == "list_append":
            cb = hist.append
        elif monitor == "closure":

            def cb(v):
                hist.append(v)
        elif monitor == "bound_method":
            log = _Log()
            hist = log.items
            cb = log.add
        else:

            def cb(v):
                nonlocal count
                count += 1

        y = _halve_until_small(c[0], cb)
        return y + 3 * sum(hist, 0.0) + count * c[1]

    xs = np.array([[0.3, 1.0], [1.0, 2.0], [0.05, 1.0], [2.0, 1.0]])
    want = _loop(f, xs)
    np.testing.assert_allclose(ft.vmap(f)(xs), want)
    np.testing.assert_allclose(ft.vmap(f, chunk_size=3)(xs), want)
    grads = ft.vmap(ft.grad(f))(xs)
    np.testing.assert_allclose(grads, np.stack([ft.grad(f)(x) for x in xs]))


def test_a_closure_over_the_loops_own_local_still_masks():
    calls = []

    def newton(a):
        calls.append(1)
        x = a
        residual = lambda: x * x - a  # noqa: E731  (reads the loop's own x)
        while abs(residual()) > 1e-9 * a:
            x = 0.5 * (x + a / x)
        return x

    a = 10.0 ** np.linspace(0, 12, 7)
    np.testing.assert_allclose(ft.vmap(newton)(a), _loop(newton, a))
    assert len(calls) == 1 + a.size  # one masked run, then the loop
