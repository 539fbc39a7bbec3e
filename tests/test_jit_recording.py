"""``jit``'s recording call returns what eager execution returns (issue 22).

A ``jit`` records control flow as structured nodes whose sub-programs (loop bodies,
``while_loop`` predicates, ``cond``/``switch`` branches) are captured once and replayed.
A Python read of a traced value inside such a capture must not freeze into the replay
(NOTE [value reads during a capture]), and ``R[i]`` of a closed-over NumPy array by the
step index is recorded as a gather of the constant (NOTE [constant subscripts in a
capture]).  Every jitted function here is called at least twice with new inputs, and
every call, the recording one included, is compared with eager ftransforms and with an
oracle:

* programs JAX can trace: the same program written with ``jax.lax`` under the same
  transforms (``jax.make_jaxpr``, evaluated with NumPy in float64 by
  :class:`JaxprEvaluator`, ``cond``/``while``/``scan`` included; see NOTE [the JAX oracle
  without XLA compiles] in ``tests/jaxpr_evaluator.py``).  ``grad`` is taken as
  ``jacfwd`` of the sum there, since JAX cannot reverse-differentiate ``while_loop``;
* programs that read traced values in Python (``if c.sum() < 2``, ``int(i) % 2``),
  which JAX cannot trace: the program run with plain Python loops on NumPy arrays, which
  records every Python decision; its derivatives come from JAX running the same unrolled
  program with those decisions replayed (the path eager execution takes).

The fuzz (``test_fuzz_recording``) draws random programs of ``fori_loop``/``scan``/
``while_loop``/``cond``/``switch`` with bodies that sometimes read traced values, under
random stacks that include ``jit``.  ``FTRANSFORMS_JIT_FUZZ_EXAMPLES`` sets how many
(default 300, the CI profile; e.g. 5000 for a long run) and
``FTRANSFORMS_JIT_FUZZ_SEED`` where the seeds start.  A failure names its seed and prints
the program and the stack; ``python -m pytest tests/test_jit_recording.py -k "fuzz and
[123-"`` replays seed 123.
"""

from __future__ import annotations

import os
import random
import warnings
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optree
import pytest

import ftransforms as ft
from ftransforms.core.stack import current_stack
from tests.jaxpr_evaluator import JaxprEvaluator
from tests.tolerances import assert_tree_close, tol

TOL64 = tol(np.float64)

# -- the oracle: jaxprs with control flow, evaluated with NumPy -----------------------------


def jax_value(fn: Any, *args: Any) -> list:
    """The flat outputs of the JAX function ``fn`` at ``args`` (NumPy, float64)."""
    return JaxprEvaluator.run(jax.make_jaxpr(fn)(*args), *args)


# -- namespaces a program is written against ------------------------------------------------

R_TABLE = np.arange(9.0).reshape(3, 3) / 4.0
IDX_TABLE = np.array([2, 0, 1])
FUZZ_TABLE = np.random.default_rng(123).normal(size=(5, 3)) * 0.5
STEPS = np.arange(5)


class Ours:
    """ftransforms, with the program's NumPy code unchanged (``R[i]``, ``if`` on values)."""

    np = np
    fori_loop = staticmethod(ft.fori_loop)
    while_loop = staticmethod(ft.while_loop)
    cond = staticmethod(ft.cond)
    switch = staticmethod(ft.switch)
    R = R_TABLE  # the constants a program closes over, as plain NumPy arrays
    IDX = IDX_TABLE
    table = FUZZ_TABLE
    scan = staticmethod(ft.scan)

    @staticmethod
    def read(v):  # the Python read under test: bool()/int() of a traced value
        return bool(v) if _is_bool(v) else int(v)


def _is_bool(v: Any) -> bool:
    return np.dtype(getattr(v, "dtype", type(v))).kind == "b"


class Lax:
    """The same program in ``jax.lax``; a Python read cannot be traced there."""

    np = jnp
    fori_loop = staticmethod(jax.lax.fori_loop)
    while_loop = staticmethod(jax.lax.while_loop)
    cond = staticmethod(jax.lax.cond)
    switch = staticmethod(jax.lax.switch)
    R = jnp.asarray(R_TABLE)
    IDX = jnp.asarray(IDX_TABLE)
    table = jnp.asarray(FUZZ_TABLE)

    @staticmethod
    def scan(f, init, xs):
        return jax.lax.scan(f, init, jnp.asarray(xs))

    @staticmethod
    def read(v):  # pragma: no cover - programs with reads are not written with Lax
        raise AssertionError("a Python read in a jax.lax program")


class Unrolled:
    """Plain Python control flow over ``xp`` (NumPy or jax.numpy): with ``decisions=None``
    every Python decision is read from the data and recorded in ``self.taken``; otherwise
    the decisions are replayed in order (JAX tracing the path eager execution took)."""

    R = R_TABLE
    IDX = IDX_TABLE
    table = FUZZ_TABLE

    def __init__(self, xp: Any, decisions: list | None = None) -> None:
        self.np = xp
        self.decisions = None if decisions is None else list(decisions)
        self.taken: list = []

    def read(self, v: Any) -> Any:
        if self.decisions is None:
            v = np.asarray(v).item()
            self.taken.append(v)
            return v
        return self.decisions.pop(0)

    def fori_loop(self, lo, hi, body, c):
        for i in range(lo, hi):
            c = body(i, c)
        return c

    def scan(self, f, c, xs):
        ys = []
        for t in range(len(xs)):
            c, y = f(c, xs[t])
            ys.append(y)
        return c, self.np.stack(ys)

    def while_loop(self, cond, body, c):
        while self.read(cond(c)):
            c = body(c)
        return c

    def cond(self, p, t, f, *ops):
        return t(*ops) if self.read(p) else f(*ops)

    def switch(self, i, fs, *ops):
        return fs[min(max(int(self.read(i)), 0), len(fs) - 1)](*ops)


# -- transform stacks (outermost first) -----------------------------------------------------

B = 3  # the vmap batch size


def _sum_of(f):
    return lambda x: f(x).sum()


def _ours_stack(name: str, f: Any, jit: bool) -> Any:
    """The stack ``name`` over ``f`` with ftransforms (``jit`` where the name has it)."""
    j = ft.jit if jit else (lambda g: g)
    if name == "jit":
        return j(f)
    if name == "jit(vmap)":
        return j(ft.vmap(f))
    if name == "jit(grad)":
        return j(ft.grad(_sum_of(f)))
    if name == "jit(jvp)":
        return j(lambda x, t: ft.jvp(f, (x,), (t,)))
    if name == "jit(jacfwd)":
        return j(ft.jacfwd(f))
    if name == "vmap(jit)":
        return ft.vmap(j(f))
    if name == "jit(vmap(grad))":
        return j(ft.vmap(ft.grad(_sum_of(f))))
    if name == "jit(vmap(jvp))":
        return j(ft.vmap(lambda x, t: ft.jvp(f, (x,), (t,))))
    raise AssertionError(name)


def _jax_stack(name: str, f: Any) -> Any:
    """The same stack in JAX, reverse mode taken as jacfwd of the sum (see the module)."""
    grad = lambda g: jax.jacfwd(_sum_of(g))  # noqa: E731
    if name == "jit":
        return f
    if name in ("jit(vmap)", "vmap(jit)"):
        return jax.vmap(f)
    if name == "jit(grad)":
        return grad(f)
    if name == "jit(jvp)":
        return lambda x, t: jax.jvp(f, (x,), (t,))
    if name == "jit(jacfwd)":
        return jax.jacfwd(f)
    if name == "jit(vmap(grad))":
        return jax.vmap(grad(f))
    if name == "jit(vmap(jvp))":
        return jax.vmap(lambda x, t: jax.jvp(f, (x,), (t,)))
    raise AssertionError(name)


STACKS = [
    "jit",
    "jit(vmap)",
    "jit(grad)",
    "jit(jvp)",
    "jit(jacfwd)",
    "vmap(jit)",
    "jit(vmap(grad))",
    "jit(vmap(jvp))",
]


def _batched(name: str) -> bool:
    return "vmap" in name


def _inputs(name: str, n: int, rng: np.random.Generator, scale: float = 1.0) -> tuple:
    shape = (B, n) if _batched(name) else (n,)
    x = rng.normal(size=shape) * scale
    if "jvp" in name:
        return x, rng.normal(size=shape)
    return (x,)


def _flat(tree: Any) -> list:
    return [np.asarray(v) for v in optree.tree_leaves(tree)]


def oracle(prog: Any, name: str, args: tuple, reads: bool) -> list:
    """The flat expected outputs of ``prog`` (a function of ``(L, x)``) under stack ``name``."""
    if not reads:
        return [np.asarray(v) for v in jax_value(_jax_stack(name, lambda x: prog(Lax, x)), *args)]
    if _batched(name):  # vmap's oracle: a Python loop over the rows
        inner = {"jit(vmap)": "jit", "vmap(jit)": "jit"}.get(name, name.replace("vmap(", "")[:-1])
        rows = [oracle(prog, inner, tuple(a[b] for a in args), reads) for b in range(B)]
        return [np.stack([row[k] for row in rows]) for k in range(len(rows[0]))]
    plain = Unrolled(np)  # the Python decisions eager execution takes
    value = prog(plain, args[0])
    replay = lambda x: prog(Unrolled(jnp, plain.taken), x)  # noqa: E731
    out = [np.asarray(v) for v in jax_value(_jax_stack(name, replay), *args)]
    if name == "jit":  # the plain NumPy/Python evaluation gives the value itself
        assert_tree_close(out, [np.asarray(value)], **TOL64)
    return out


def check(
    prog: Any, name: str, seeds: tuple = (1, 2), reads: bool = False, scale: float = 1.0
) -> None:
    """``jit``'s calls of ``prog`` under stack ``name`` (the first, recording call
    included) against eager ftransforms and the oracle, for new inputs on every call."""
    f = lambda x: prog(Ours, x)  # noqa: E731
    jitted = _ours_stack(name, f, jit=True)
    eager = _ours_stack(name, f, jit=False)
    n = 3
    for k, seed in enumerate(seeds):
        args = _inputs(name, n, np.random.default_rng(seed), scale)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # "this signature runs eagerly"
            got = _flat(jitted(*args))
        expected = _flat(eager(*args))
        where = f"{name}, call {k + 1}"
        assert_tree_close(got, expected, **TOL64, err_msg=f"{where}: jit vs eager")
        assert_tree_close(got, oracle(prog, name, args, reads), **TOL64, err_msg=where)


# -- the two programs of the issue, and the operators' variants -----------------------------

R = R_TABLE  # a module global, indexed by the step in Ours-only tests


def loop_over_table(L, x):
    """The first program of the issue: ``R[i]`` of a closed-over array by the step."""
    table = L.R  # a closure variable of the body; tests below use the global R too
    return L.fori_loop(0, 3, lambda i, h: h * 0.5 + table[i], x)


def loop_reads_carry(L, x):
    """The second: a Python ``if`` on the carry."""
    return L.fori_loop(0, 3, lambda i, c: c * 2 if L.read(c.sum() < 2) else c - 1, x)


def scan_over_table(L, x):
    table = L.R
    c, ys = L.scan(lambda c, t: (L.np.sin(c) + table[t], c.sum()), x, np.arange(3))
    return c + ys.sum()


def scan_reads_carry(L, x):
    table = L.R

    def step(c, t):
        return (c * 1.5 if L.read(c.sum() > 0) else c + table[t]), c[0]

    c, ys = L.scan(step, x, np.arange(3))
    return c * ys.sum()


def while_reads_in_body(L, x):
    def body(s):
        k, c = s
        return k + 1, (c * 0.5 if L.read(c.sum() > 0) else L.np.sin(c) + 1.0)

    return L.while_loop(lambda s: s[0] < 3, body, (0, x))[1]


def while_reads_in_cond(L, x):
    """A predicate that reads in Python: a data-dependent trip count."""
    return L.while_loop(lambda c: L.read(c.sum() < 4.0), lambda c: c + 0.75, x)


def while_over_table(L, x):
    table = L.R

    def body(s):
        k, c = s
        return k + 1, c * 0.5 + table[k]

    return L.while_loop(lambda s: s[0] < 3, body, (0, x))[1]


def cond_reads_in_branch(L, x):
    def true_fun(c):
        return c * 2.0 if L.read(c[0] > 0) else -c

    return L.cond(x.sum() > -1.0, true_fun, lambda c: L.np.cos(c), x)


def switch_reads_in_branch(L, x):
    branches = [
        lambda c: c * 3.0,
        lambda c: L.np.sin(c) if L.read(c.max() > 0.5) else c * c,
        lambda c: c - 2.0,
    ]
    index = (x.sum() > -2.0).astype(np.int64) + (x.sum() > 2.0).astype(np.int64)
    return L.switch(index, branches, x)


def nested_reads_inner(L, x):
    """A fori_loop body with a cond whose branch reads: the inner capture falls back."""

    def body(i, c):
        return L.cond(c.sum() > 0, lambda v: v * 0.5 if L.read(v[1] > 0) else v + 1, L.np.tanh, c)

    return L.fori_loop(0, 3, body, x)


def nested_table_in_cond(L, x):
    """``R[i]`` inside a branch inside a loop body: structured at both levels."""

    table = L.R

    def body(i, c):
        return L.cond(c.sum() > 0, lambda v: v * 0.5 + table[i], L.np.sin, c)

    return L.fori_loop(0, 3, body, x)


def gather_of_gather(L, x):
    table, order = L.R, L.IDX
    return L.fori_loop(0, 3, lambda i, c: c + table[order[i]] * table[i, 1], x)


def index_read_int(L, x):
    """``int(i)`` of the step index: eagerly a Python int, so the loop unrolls."""
    return L.fori_loop(0, 4, lambda i, c: c * 1.25 if L.read(i) % 2 else c - 0.5, x)


PROGRAMS = {
    "loop_over_table": (loop_over_table, False),
    "loop_reads_carry": (loop_reads_carry, True),
    "scan_over_table": (scan_over_table, False),
    "scan_reads_carry": (scan_reads_carry, True),
    "while_reads_in_body": (while_reads_in_body, True),
    "while_reads_in_cond": (while_reads_in_cond, True),
    "while_over_table": (while_over_table, False),
    "cond_reads_in_branch": (cond_reads_in_branch, True),
    "switch_reads_in_branch": (switch_reads_in_branch, True),
    "nested_reads_inner": (nested_reads_inner, True),
    "nested_table_in_cond": (nested_table_in_cond, False),
    "gather_of_gather": (gather_of_gather, False),
    "index_read_int": (index_read_int, True),
}

#: Programs that read only the step index (or nothing): fine under vmap too.
INDEX_ONLY = {
    "loop_over_table",
    "scan_over_table",
    "while_over_table",
    "nested_table_in_cond",
    "gather_of_gather",
    "index_read_int",
}


def test_the_issue_programs_exactly():
    R2 = np.arange(6.0).reshape(3, 2)
    f = lambda x: ft.fori_loop(0, 3, lambda i, h: h + R2[i], x)  # noqa: E731
    g = ft.jit(f)
    first = g(np.zeros(2))
    assert first.tolist() == [6.0, 9.0] == f(np.zeros(2)).tolist()
    assert g(np.zeros(2)).tolist() == [6.0, 9.0]
    assert g(np.ones(2)).tolist() == [7.0, 10.0]
    h = lambda x: ft.fori_loop(0, 3, lambda i, c: c * 2 if c.sum() < 2 else c - 1, x)  # noqa: E731
    jh = ft.jit(h)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert jh(np.ones(2) * 0.5).tolist() == [0.0, 0.0] == h(np.ones(2) * 0.5).tolist()
        assert jh(np.ones(2) * 0.1).tolist() == h(np.ones(2) * 0.1).tolist() == [0.8, 0.8]


@pytest.mark.parametrize(
    ("name", "stack"),
    # a program that reads its carry under vmap splits the batch (tested below)
    [(n, s) for s in STACKS for n in PROGRAMS if n in INDEX_ONLY or not _batched(s)],
)
def test_recording_call_matches_eager_and_oracle(name, stack):
    prog, reads = PROGRAMS[name]
    check(prog, stack, reads=reads)


def test_reading_the_carry_under_vmap_splits_like_eagerly_or_is_refused_with_split_off():
    # Eager vmap splits the batch where rows disagree on the carry's read; jit(vmap) gives
    # eager's answer on every call (the first runs eagerly); with split=False both refuse.
    f = lambda x: loop_reads_carry(Ours, x)  # noqa: E731
    xs = [
        np.array([[0.1, 0.2, 0.3], [1.0, 1.0, 1.0], [0.0, 0.0, 0.0]]),  # rows disagree
        np.array([[1.0, 1.0, 1.0], [0.1, 0.2, 0.3], [0.3, 0.2, 0.1]]),
        np.ones((2, 3)),  # rows agree
    ]
    g = ft.jit(ft.vmap(f))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for x in xs:
            loop = np.stack([f(row) for row in x])  # the oracle: a Python loop over rows
            eager = ft.vmap(f)(x)
            np.testing.assert_array_equal(eager, loop)
            np.testing.assert_array_equal(g(x), eager)
            np.testing.assert_array_equal(g(x), eager)
    x = xs[0]
    with pytest.raises(ft.errors.BatchedControlFlowError) as eager_error:
        ft.vmap(f, split=False)(x)
    assert not current_stack()
    with pytest.raises(ft.errors.BatchedControlFlowError) as jit_error:
        ft.jit(ft.vmap(f, split=False))(x)
    assert str(jit_error.value) == str(eager_error.value)
    assert not current_stack()
    assert ft.jit(ft.vmap(lambda x: x * 2))(x).tolist() == (x * 2).tolist()  # a clean stack


# -- the table subscript stays structured ---------------------------------------------------


def _program(f, *args):
    return ft.make_program(f)(*args)


@pytest.mark.parametrize(
    "name", ["loop_over_table", "scan_over_table", "nested_table_in_cond", "gather_of_gather"]
)
def test_table_subscript_is_a_recorded_gather(name):
    prog, _ = PROGRAMS[name]
    f = lambda x: prog(Ours, x)  # noqa: E731
    program = _program(f, np.zeros(3))
    assert not program.value_dependent, program.reason
    text = str(program)
    assert "fori_loop" in text or "scan" in text, text
    assert "getitem" in text, text  # the gather of the constant, inside the body
    g = ft.jit(f)
    for seed in range(3):
        x = np.random.default_rng(seed).normal(size=3)
        assert_tree_close(g(x), f(x), **TOL64)
    (entry,) = g.cache.values()
    assert not entry.value_dependent


def test_table_subscript_in_a_closure_and_under_transforms():
    def make(scale):
        table = R * scale  # a closure variable, not a global

        def f(x):
            return ft.fori_loop(0, 3, lambda i, h: np.tanh(h) * table[i, 1] + table[i], x)

        return f

    f = make(0.5)
    program = _program(ft.vmap(f), np.zeros((2, 3)))
    assert not program.value_dependent and "fori_loop" in str(program)
    check(lambda L, x: make(0.5)(x) if L is Ours else _lax_make(L, x), "jit(vmap(jvp))")
    check(lambda L, x: make(0.5)(x) if L is Ours else _lax_make(L, x), "jit(jacfwd)")
    assert f(np.zeros(3)).shape == (3,)  # the closure holds the array again afterwards
    assert ft.fori_loop(0, 1, lambda i, h: h + R[i], np.zeros(3)).tolist() == R[0].tolist()


def _lax_make(L, x):
    table = L.R * 0.5
    return L.fori_loop(0, 3, lambda i, h: L.np.tanh(h) * table[i, 1] + table[i], x)


def test_rebinding_leaves_the_users_objects_alone():
    """The closure cell and the module global hold the array after (and between) calls,
    and a body that assigns its closure variable keeps its assignment."""

    def body(i, h):
        return h + R[i]

    f = ft.jit(lambda x: ft.fori_loop(0, 3, body, x))
    assert_tree_close(f(np.zeros(3)), R.sum(0), **TOL64)
    assert type(globals()["R"]) is np.ndarray and isinstance(body.__globals__["R"], np.ndarray)
    assert_tree_close(f(np.ones(3)), R.sum(0) + 1, **TOL64)

    box = [np.arange(3.0)]

    def outer(x):
        table = box[0]

        def step(i, h):
            nonlocal table
            out = h + table[i]
            table = table * 1.0  # the body rebinds its closure variable
            return out

        return ft.fori_loop(0, 3, step, x), table

    out, table = ft.jit(outer)(np.zeros(()))
    assert float(out) == 3.0 and isinstance(table, np.ndarray)


# -- checkpoint and custom rules inside captured bodies -------------------------------------


@ft.custom_jvp
def clipped_square(x):
    return x * x


@clipped_square.defjvp
def _clipped_square_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    slope = 2.0 * x if bool((x > 0).all()) else 0.5 * x  # the rule reads the data
    return x * x, slope * t


def _jax_clipped_square(x, decision):
    @jax.custom_jvp
    def sq(x):
        return x * x

    @sq.defjvp
    def _jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return x * x, (2.0 * x if decision else 0.5 * x) * t

    return sq(x)


@ft.custom_vjp
def scaled(x):
    return x * 3.0


def _scaled_fwd(x):
    return x * 3.0, x


def _scaled_bwd(x, g):
    return (g * (3.0 if bool(x.sum() > 0) else -1.0),)  # the rule reads the data


scaled.defvjp(_scaled_fwd, _scaled_bwd)


@pytest.mark.parametrize("stack", ["jit", "jit(jvp)", "jit(jacfwd)", "jit(grad)"])
def test_custom_jvp_rule_reading_data_inside_a_loop_body(stack):
    def ours(x):
        return ft.fori_loop(0, 3, lambda i, c: clipped_square(c) * 0.5 + R[i], x)

    def jax_path(x, decisions):
        it = iter(decisions)
        for i in range(3):
            x = _jax_clipped_square(x, next(it)) * 0.5 + R[i]
        return x

    for seed in (3, 4):
        args = _inputs(stack, 3, np.random.default_rng(seed))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            got = _flat(_ours_stack(stack, ours, jit=True)(*args))
        expected = _flat(_ours_stack(stack, ours, jit=False)(*args))
        assert_tree_close(got, expected, **TOL64, err_msg=f"{stack} seed {seed}")
        decisions, c = [], np.asarray(args[0])
        for i in range(3):  # the rule's decisions along the path, from the primal values
            decisions.append(bool((c > 0).all()))
            c = c * c * 0.5 + R[i]
        theirs = jax_value(_jax_stack(stack, lambda x: jax_path(x, decisions)), *args)
        assert_tree_close(got, theirs, **TOL64, err_msg=f"{stack} seed {seed} vs JAX")


@pytest.mark.parametrize("stack", ["jit", "jit(vmap)", "jit(grad)"])
def test_custom_vjp_and_checkpoint_inside_a_loop_body(stack):
    def block(c):
        if bool(c.sum() > 100.0):  # a read inside the checkpointed block (never true here)
            return c
        return np.sin(c) * 0.5

    def ours(x):
        body = lambda i, c: ft.checkpoint(block)(scaled(c)) + R[i]  # noqa: E731
        return ft.fori_loop(0, 3, body, x)

    def jax_path(x, factors):
        for i in range(3):

            @jax.custom_vjp
            def sc(v):
                return v * 3.0

            sc.defvjp(lambda v: (v * 3.0, None), lambda _, g, k=factors[i]: (g * k,))
            x = jnp.sin(sc(x)) * 0.5 + R[i]
        return x

    for seed in (5, 6):
        args = _inputs(stack, 3, np.random.default_rng(seed), scale=0.3)
        # under vmap the block's read of a batched value has one answer for every row here
        # (eager vmap takes it; before batch splitting it was refused)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            got = _flat(_ours_stack(stack, ours, jit=True)(*args))
        expected = _flat(_ours_stack(stack, ours, jit=False)(*args))
        assert_tree_close(got, expected, **TOL64, err_msg=f"{stack} seed {seed}")
        factors, c = [], np.asarray(args[0])
        for i in range(3):  # the factor each backward rule picks, from the primal path
            factors.append(3.0 if c.sum() > 0 else -1.0)
            c = np.sin(c * 3.0) * 0.5 + R[i]
        path = lambda x: jax_path(x, factors)  # noqa: E731
        # JAX has no forward mode through custom_vjp: its grad here is reverse mode
        theirs_fn = jax.grad(_sum_of(path)) if stack == "jit(grad)" else _jax_stack(stack, path)
        theirs = jax_value(theirs_fn, *args)
        assert_tree_close(got, theirs, **TOL64, err_msg=f"{stack} seed {seed} vs JAX")


def test_custom_vjp_backward_reading_data_under_jit_grad():
    def ours(x):
        return ft.fori_loop(0, 2, lambda i, c: scaled(c) * 0.5 + R[i], x).sum()

    g = ft.jit(ft.grad(ours))
    for x in (np.array([0.3, 0.1, 0.2]), np.array([-1.0, -2.0, 0.5])):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            got = g(x)
        c1 = x * 1.5 + R[0]  # the inputs of the two steps, and the factor each rule picks
        f0 = 3.0 if x.sum() > 0 else -1.0
        f1 = 3.0 if c1.sum() > 0 else -1.0
        assert_tree_close(got, np.full(3, 0.25 * f0 * f1), **TOL64)
        assert_tree_close(got, ft.grad(ours)(x), **TOL64)


# -- the fuzz ---------------------------------------------------------------------------------

N_FUZZ = int(os.environ.get("FTRANSFORMS_JIT_FUZZ_EXAMPLES", "300"))
FUZZ_SEED = int(os.environ.get("FTRANSFORMS_JIT_FUZZ_SEED", "0"))


class Gen:
    """The source of a random program ``prog(L, x)`` over a carry ``c`` of shape (3,):
    control-flow operators with bodies written as nested functions, as a user writes
    them (``T[i]`` of the closed-over table ``T`` by the step, ``if`` on values through
    ``L.read``).  ``carry_reads``: Python reads of the carry allowed (not under vmap)."""

    def __init__(self, seed: int, carry_reads: bool) -> None:
        self.r = random.Random(seed)
        self.carry_reads = carry_reads
        self.reads = False
        self.n = 0

    def num(self, lo: float = -1.0, hi: float = 1.0) -> float:
        return round(self.r.uniform(lo, hi), 2)

    def name(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}{self.n}"

    def step(self, pad: str, depth: int, index: str | None) -> list:
        """Lines (indented by ``pad``) that compute a new ``c`` from ``c``."""
        kinds = ["affine", "sin", "tanh"]
        if index:
            kinds += ["table", "table_elem", "index_read"]
        if self.carry_reads:
            kinds += ["carry_read"]
        if depth < 3:
            kinds += ["cond", "switch", "fori"]
        kind = self.r.choice(kinds)
        num = self.num
        if kind == "affine":
            return [f"{pad}c = c * {num(0.3, 1.1)} + {num()}"]
        if kind == "sin":
            return [f"{pad}c = L.np.sin(c) * {num(0.3, 1.2)}"]
        if kind == "tanh":
            return [f"{pad}c = L.np.tanh(c * {num(0.3, 1.2)})"]
        if kind == "table":
            return [f"{pad}c = c * {num(0.2, 1.0)} + T[{index}]"]
        if kind == "table_elem":
            return [f"{pad}c = c * T[{index}, {self.r.randrange(3)}]"]
        if kind == "index_read":
            self.reads = True
            return [f"{pad}c = c * {num(0.5, 1.2)} if L.read({index}) % 2 else c + {num()}"]
        if kind == "carry_read":
            self.reads = True
            return [
                f"{pad}c = c * {num(0.3, 1.2)} if L.read(c.sum() < {num()}) "
                f"else L.np.sin(c) + {num()}"
            ]
        if kind == "cond":
            t, f = self.name("yes"), self.name("no")
            lines = self.function(pad, t, "c", depth + 1, index)
            lines += self.function(pad, f, "c", depth + 1, index)
            return lines + [f"{pad}c = L.cond(c.sum() > {num()}, {t}, {f}, c)"]
        if kind == "switch":
            names = [self.name("branch") for _ in range(3)]
            lines = []
            for b in names:
                lines += self.function(pad, b, "c", depth + 1, index)
            lo = num(-2, 0)
            hi = round(lo + num(0.5, 2), 2)
            k = self.name("k")
            return lines + [
                f"{pad}{k} = (c.sum() > {lo}).astype(np.int64) + (c.sum() > {hi}).astype(np.int64)",
                f"{pad}c = L.switch({k}, [{', '.join(names)}], c)",
            ]
        return self.loop(pad, "fori", depth)

    def function(
        self, pad: str, name: str, args: str, depth: int, index: str | None, ret: str = "c"
    ) -> list:
        lines = [f"{pad}def {name}({args}):"]
        for _ in range(self.r.randint(1, 2)):
            lines += self.step(pad + "    ", depth, index)
        return lines + [f"{pad}    return {ret}"]

    def loop(self, pad: str, kind: str, depth: int) -> list:
        n = self.r.randint(1, 4)
        body = self.name("body")
        if kind == "fori":
            i = self.name("i")
            lines = self.function(pad, body, f"{i}, c", depth + 1, i)
            return lines + [f"{pad}c = L.fori_loop(0, {n}, {body}, c)"]
        if kind == "scan":
            t, ys = self.name("t"), self.name("ys")
            lines = self.function(pad, body, f"c, {t}", depth + 1, t, "c, c.sum() * 0.1")
            return lines + [
                f"{pad}c, {ys} = L.scan({body}, c, STEPS[:{n}])",
                f"{pad}c = c + {ys}.sum()",
            ]
        k = self.name("k")
        lines = [f"{pad}def {body}(state):", f"{pad}    {k}, c = state"]
        # with a data-dependent predicate under vmap the counter is batched: no T[k] then
        index = None if kind == "while_data" and not self.carry_reads else k
        for _ in range(self.r.randint(1, 2)):
            lines += self.step(pad + "    ", depth + 1, index)
        lines.append(f"{pad}    return {k} + 1, c")
        pred = f"lambda s: s[0] < {n}"
        if kind == "while_data":  # a data-dependent trip count, at most n steps
            pred = f"lambda s: (s[0] < {n}) & (L.np.sum(s[1] * s[1]) < 6.0)"
        return lines + [f"{pad}c = L.while_loop({pred}, {body}, (0, c))[1]"]

    def program(self) -> str:
        lines = ["def prog(L, x):", "    T = L.table", "    c = x"]
        for _ in range(self.r.randint(1, 2)):
            kind = self.r.choice(["fori", "scan", "while", "while_data", "cond", "switch"])
            if kind in ("cond", "switch"):
                while True:  # a top-level branch operator (no step index in scope)
                    made = self.step("    ", 1, None)
                    if "L.cond" in made[-1] or "L.switch" in made[-1]:
                        break
                lines += made
            else:
                lines += self.loop("    ", kind, 1)
        return "\n".join(lines + ["    return c"])


def fuzz_case(seed: int) -> tuple[str, str, bool]:
    """``(stack, program source, whether it reads traced values in Python)``."""
    r = random.Random(seed)
    stack = r.choice(STACKS)
    gen = Gen(seed * 7919 + 1, carry_reads=not _batched(stack))
    return stack, gen.program(), gen.reads


def compile_program(source: str) -> Any:
    namespace = {"np": np, "STEPS": STEPS}
    exec(compile(source, "<fuzz program>", "exec"), namespace)  # noqa: S102
    return namespace["prog"]


@pytest.mark.parametrize("seed", range(FUZZ_SEED, FUZZ_SEED + N_FUZZ))
def test_fuzz_recording(seed):
    stack, source, reads = fuzz_case(seed)
    prog = compile_program(source)
    try:
        check(prog, stack, seeds=(2 * seed + 1, 2 * seed + 2), reads=reads, scale=0.7)
    except Exception as err:
        raise AssertionError(f"fuzz seed {seed}, stack {stack}, program:\n{source}\n{err}") from err


def test_fuzz_draws_every_operator_read_and_stack():
    """The CI profile's programs cover what the fuzz is for."""
    stacks, kinds, reading = set(), set(), 0
    for seed in range(FUZZ_SEED, FUZZ_SEED + min(N_FUZZ, 300)):
        stack, source, reads = fuzz_case(seed)
        stacks.add(stack)
        reading += reads
        words = ("fori_loop", "scan", "while_loop", "cond", "switch", "T[", "read(c", "% 2")
        kinds |= {k for k in words if k in source}
    assert stacks == set(STACKS)
    assert kinds == set(words)
    assert 50 < reading < 250, reading


def test_two_closures_of_one_code_keep_their_own_tables():
    """The rebinding touches the closure that ran the subscript, never a sibling made
    from the same code with another table (that one would compute with the wrong data)."""

    def make(table):
        return lambda i, h: h + table[i]

    first, second = make(R), make(R * 10.0)

    def f(x):
        return ft.fori_loop(0, 3, lambda i, h: first(i, h) * 0.5 + second(i, h), x)

    g = ft.jit(f)
    for seed in range(3):
        x = np.random.default_rng(seed).normal(size=3)
        assert_tree_close(g(x), f(x), **TOL64)
        expected = x
        for i in range(3):
            expected = (expected + R[i]) * 0.5 + expected + 10.0 * R[i]
        assert_tree_close(g(x), expected, **TOL64)


def _helper_step(i, h):
    return h * 0.5 + R[i]  # a module-level helper: its frame is not the body's


def _written_table_step(i, h):
    t = np.zeros((3, 3))
    t[1] = h  # a write in the body: it runs eagerly (NOTE [mutation semantics])
    return h + t[i]


class _Model:
    def __init__(self):
        self.table = R * 2.0

    def step(self, i, h):
        return h * 0.5 + self.table[i]  # an attribute: not rebound


@pytest.mark.parametrize(
    ("what", "body", "structured"),
    [
        ("other uses of the table", lambda i, h: h * R.sum() / 20 + np.asarray(R)[0] + R[i], True),
        (
            "table shape and a row loop",
            lambda i, h: h + sum(r for r in R)[0] + R[i] / R.shape[0],
            True,
        ),
        ("a helper reads the index", lambda i, h: _helper_step(i, h), False),
        ("a bound method's attribute", _Model().step, False),
        # a table made in the body is a Buffer (the mutation layer's creation functions), a
        # tracer, so the subscript is a recorded gather: structured, no read of the index
        ("a table made in the body", lambda i, h: h + np.arange(9.0).reshape(3, 3)[i], True),
        ("a table made from the carry", lambda i, h: h + (np.ones((3, 3)) * h)[i], True),
        ("a table written in the body", _written_table_step, False),
    ],
)
def test_table_subscripts_that_fall_back_or_not_match_eager(what, body, structured):
    def f(x):
        return ft.fori_loop(0, 3, body, x)

    program = _program(f, np.zeros(3))
    assert ("fori_loop" in str(program)) is structured, (what, str(program))
    assert not program.value_dependent  # eagerly the index is a Python int: no read
    g = ft.jit(f)
    for seed in range(3):
        x = np.random.default_rng(seed).normal(size=3)
        assert_tree_close(g(x), f(x), **TOL64, err_msg=what)
        expected = x
        for i in range(3):
            expected = body(i, expected)
        assert_tree_close(g(x), expected, **TOL64, err_msg=what)
    assert type(R) is np.ndarray


def test_container_of_a_subscript_is_found_from_the_bytecode():
    from ftransforms.interpreters.constant_subscripts import _container

    def offsets(fn):
        import dis

        return [i.offset for i in dis.get_instructions(fn) if i.opname == "BINARY_SUBSCR"]

    table = R

    def cases(i, j, flag, local):
        a = R[i]  # a global
        b = table[i + 1, ::2]  # a closure variable, an index expression
        c = local[i]  # a local: not rebound
        d = table[i if flag else j]  # a conditional index: not followed
        e = _Model().table[i]  # an attribute: not rebound
        return a, b, c, d, e

    found = [_container(cases.__code__, k) for k in offsets(cases)]
    assert found == [("global", "R"), ("closure", "table"), None, None, None], found
