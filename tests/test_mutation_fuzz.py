"""Seeded random in-place programs: an alias of a mutated array sees every write, and
``jit``'s first call (and later ones) equals eager, under vmap/grad/jvp stacks.

Each program copies its input, takes an alias (the same object) and a basic-slice view,
then applies random writes to one of the three (augmented operators, slice and fancy
assignment, ``out=``); it returns a value that reads all three.  Oracles: the same
program on plain NumPy (value), the loop over rows (vmap), central differences in float64
(grad), and eager ftransforms (every jit call, the first included).  A failure names its
seed; ``FTRANSFORMS_MUTATION_FUZZ_EXAMPLES`` runs more (half of the seeds are marked
``slow``: CI's slow step runs them).
"""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

import ftransforms as ft

N = 6
EXAMPLES = int(os.environ.get("FTRANSFORMS_MUTATION_FUZZ_EXAMPLES", "120"))
FAST = 60  # seeds run in the default suite; the rest in CI's slow step (-m slow)


def _seeds(n: int) -> list:
    return [s if s < n * FAST // 120 else pytest.param(s, marks=pytest.mark.slow) for s in range(n)]


_WRITES = (
    lambda t, r: t.__iadd__(r * 0.5),
    lambda t, r: t.__imul__(1.0 + 0.1 * r),
    lambda t, r: t.__isub__(np.sin(r)),
    lambda t, r: t.__setitem__(slice(1, 3), r[:2] * 2.0) if t.shape[0] >= 3 else None,
    lambda t, r: t.__setitem__(slice(None, None, -2), np.tanh(r[: (t.shape[0] + 1) // 2])),
    lambda t, r: t.__setitem__([0, 0], r[1]) if t.shape[0] else None,
    lambda t, r: np.exp(t * 0.1, out=t),
)


def make_program(seed: int):
    rng = np.random.default_rng(seed)
    steps = [(int(rng.integers(len(_WRITES))), int(rng.integers(3))) for _ in range(5)]

    def f(x):
        y = x.copy()
        alias = y
        view = y[1:5]
        for k, target in steps:
            t = (y, alias, view)[target]
            r = x[: t.shape[0]] if target == 2 else x
            _WRITES[k](t, r)
        assert alias is y
        return np.sum(alias * 1.5) + np.sum(view**2) + y[0]

    return f, steps


@pytest.mark.parametrize("seed", _seeds(EXAMPLES))
def test_random_in_place_programs(seed):
    f, steps = make_program(seed)
    rng = np.random.default_rng(1000 + seed)
    x = rng.uniform(-1, 1, N)
    xs = rng.uniform(-1, 1, (3, N))
    where = f"seed {seed}, writes {steps}"
    want = f(x.copy())
    jf = ft.jit(f)
    for k, arg in enumerate((x, rng.uniform(-1, 1, N), x)):  # the first call included
        np.testing.assert_allclose(
            jf(arg.copy()), f(arg.copy()), rtol=1e-12, err_msg=f"{where}: jit call {k}"
        )
    np.testing.assert_allclose(ft.vmap(f)(xs), [f(r.copy()) for r in xs], rtol=1e-12, err_msg=where)
    jv = ft.jit(ft.vmap(f))
    for k in range(2):
        np.testing.assert_allclose(
            jv(xs), [f(r.copy()) for r in xs], rtol=1e-12, err_msg=f"{where}: jit(vmap) call {k}"
        )
    g = ft.grad(f)(x)
    eps = 1e-6
    fd = np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(N)])
    np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-7, err_msg=f"{where}: grad")
    jg = ft.jit(ft.grad(f))
    for k in range(2):
        np.testing.assert_allclose(
            jg(x), g, rtol=1e-12, atol=1e-14, err_msg=f"{where}: jit(grad) call {k}"
        )
    _, tangent = ft.jvp(f, (x,), (np.ones(N),))
    np.testing.assert_allclose(tangent, fd.sum(), rtol=1e-5, atol=1e-7, err_msg=f"{where}: jvp")
    assert np.isclose(want, f(x.copy()))


def _writer(steps):
    """A function that writes into its argument ``y`` (and an alias and a view of it)."""

    def inner(y, x):
        alias, view = y, y[1:5]
        for k, target in steps:
            t = (y, alias, view)[target]
            _WRITES[k](t, x[: t.shape[0]] if target == 2 else x)
        return np.sum(view**2)

    return inner


@pytest.mark.parametrize("seed", _seeds(EXAMPLES // 5))
def test_random_writers_under_checkpoint_and_in_loop_bodies(seed):
    """The same random writes inside ft.checkpoint (the caller's array and its view see
    them) and in a fori_loop body: jit's first call and replays equal eager NumPy, grad
    and jit(grad) equal central differences, vmap equals the loop."""
    rng = np.random.default_rng(seed)
    inner = _writer([(int(rng.integers(len(_WRITES))), int(rng.integers(3))) for _ in range(4)])

    def f(x, ckpt=True):
        y = x.copy()
        z = y[::2]  # the caller's view of y, read after the writes
        s = (ft.checkpoint(inner) if ckpt else inner)(y, x)
        return s + np.sum(y * 1.5) + np.sum(z**3)

    def body(i, c, x):
        y = c.copy()
        inner(y, x * (1.0 + 0.1 * i))
        return y

    def looped(x):
        return np.sum(ft.fori_loop(0, 3, lambda i, c: body(i, c, x), x) ** 2)

    def looped_np(x):
        c = x
        for i in range(3):
            c = body(i, c, x)
        return np.sum(c**2)

    x, x2 = rng.uniform(-1, 1, N), rng.uniform(-1, 1, N)
    plain = lambda v: f(v, ckpt=False)  # noqa: E731
    for traced, eager in ((f, plain), (looped, looped_np)):
        fd = np.array([(eager(x + 1e-6 * e) - eager(x - 1e-6 * e)) / 2e-6 for e in np.eye(N)])
        jf = ft.jit(traced)
        for a in (x, x2, x):  # the first (recording) call included
            np.testing.assert_allclose(jf(a.copy()), eager(a.copy()), rtol=1e-12, err_msg=seed)
        np.testing.assert_allclose(ft.grad(traced)(x), fd, rtol=1e-5, atol=1e-7, err_msg=seed)
        jg = ft.jit(ft.grad(traced))
        for _ in range(2):
            np.testing.assert_allclose(jg(x), fd, rtol=1e-5, atol=1e-7, err_msg=seed)
        xs = np.stack([x, x2])
        np.testing.assert_allclose(
            ft.vmap(traced)(xs), [eager(r.copy()) for r in xs], rtol=1e-12, err_msg=seed
        )


@pytest.mark.parametrize("seed", _seeds(EXAMPLES // 5))
def test_random_writes_into_a_buffer_the_caller_keeps(seed):
    """A buffer made inside the function, written through an alias and a view by random
    writes, kept outside (``history.append``) and read after the call (NOTE [buffers after
    their transform]): what the caller holds equals eager NumPy's under grad, jvp and vmap;
    every jit call (the first included) equals eager and keeps as many values, as eager
    does (NOTE [traced values stored outside under jit]); a write into a kept buffer
    raises EscapedTracerError instead of reaching a finished transform's array."""
    rng = np.random.default_rng(500 + seed)
    steps = [(int(rng.integers(len(_WRITES))), int(rng.integers(3))) for _ in range(4)]
    consts = rng.uniform(-1, 1, N)
    kept: list = []

    def f(x):
        b = np.zeros(N)
        alias, view = b, b[1:5]
        for k, target in steps:
            t = (b, alias, view)[target]
            _WRITES[k](t, consts[: t.shape[0]] if target == 2 else consts)
        kept.append((alias, view))
        return np.sum(b * x) + np.sum(view**2)

    x = rng.uniform(-1, 1, N)
    f(x.copy())
    want_alias, want_view = (np.array(a) for a in kept.pop())
    where = f"seed {seed}, writes {steps}"
    for name, run in (
        ("grad", lambda: ft.grad(f)(x)),
        ("jvp", lambda: ft.jvp(f, (x,), (np.ones(N),))),
        ("vmap", lambda: ft.vmap(f)(np.stack([x, x]))),
    ):
        run()
        alias, view = kept.pop()
        np.testing.assert_allclose(np.asarray(alias), want_alias, err_msg=f"{where}: {name}")
        np.testing.assert_allclose(np.asarray(view), want_view, err_msg=f"{where}: {name}")
        np.testing.assert_allclose(alias[1:5] + 0.0, view + 0.0, err_msg=f"{where}: {name}")
        if not isinstance(alias, np.ndarray):
            with pytest.raises(ft.errors.EscapedTracerError):
                alias[0] = 1.0
            mine = alias.copy()  # NumPy's copy: the caller's to write into
            mine[0] = 7.0
            np.testing.assert_allclose(np.asarray(alias), want_alias, err_msg=f"{where}: {name}")
    jf = ft.jit(f)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # that signature runs eagerly, and says so
        for k, arg in enumerate((x, rng.uniform(-1, 1, N), x)):
            np.testing.assert_allclose(jf(arg.copy()), f(arg.copy()), rtol=1e-12, err_msg=where)
            assert len(kept) == 2 * (k + 1), f"{where}: jit call {k} kept {len(kept)}"
    for alias, view in kept:
        np.testing.assert_allclose(np.asarray(alias), want_alias, err_msg=f"{where}: jit")
        np.testing.assert_allclose(np.asarray(view), want_view, err_msg=f"{where}: jit")
