"""Reliability: exceptions leave the library usable, threads, memory, numerics at the edges
of the floating-point range, determinism.

* Exceptions: a user exception or ``KeyboardInterrupt`` raised at a hypothesis-chosen place
  inside a random transform stack (the function body at any depth, before or after the
  inner call, or a ``custom_jvp`` rule, which also runs in the backward pass) propagates
  unchanged; afterwards ``current_stack() == ()``, a tracer kept from the failed call is
  an escaped tracer, and the same stack recomputes its result bitwise.
* Threads: eight threads run eight different stacks concurrently (with a tiny switch
  interval) and every result is bitwise-equal to the serial one.
* Memory: 10,000 calls of ``vmap(grad(f))`` keep tracemalloc's count flat; the tape,
  the interpreters and the intermediate arrays of a finished call are freed; a 100,000-op
  ``grad`` has no recursion limit, and its peak memory grows linearly with the length.
* Numerics: values and gradients of logsumexp, softmax, log_softmax, cross-entropy,
  sigmoid, softplus, norm, sqrt, abs, maximum/max at ties, zero, +-1e4, +-inf, NaN and
  subnormals, against JAX (see ``_jax_reference``), with the few intended differences
  spelled out in ``KNOWN_DIFFERENCES``.
* Determinism: repeated calls and separate processes give bitwise-identical results.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import textwrap
import threading
import time
import tracemalloc
import weakref
from pathlib import Path

import jax
import jax.numpy as jnp
import jax.scipy.special as jsp
import numpy as np
import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

import ftransforms
import ftransforms.numpy as fnp
from ftransforms import (
    custom_jvp,
    custom_vjp,
    grad,
    hessian,
    jacfwd,
    jacrev,
    jvp,
    linearize,
    vjp,
    vmap,
)
from ftransforms import nn as fnn
from ftransforms.core.stack import current_stack
from ftransforms.core.tracer import Tracer
from ftransforms.errors import EscapedTracerError
from ftransforms.scipy import special as fsp
from tests.jaxpr_evaluator import JaxprEvaluator
from tests.tolerances import tol

jax.config.update("jax_enable_x64", True)

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _frozen_heap():
    """Collections and heap scans here see only what the test made: what earlier tests
    left in this worker (op databases, JAX's and numba's caches) is frozen out of the
    collector (``gc.freeze``), so the memory and liveness checks cost the same in a full
    run as alone.  Nothing is unfrozen afterwards: unfreezing after each test made the
    next test's collection walk the whole worker's heap again (about 4 s a test after
    test_ops in the same worker), and conftest.py keeps the collected items frozen."""
    gc.collect()
    gc.freeze()
    yield


# == 2. exceptions anywhere leave the library usable ======================================


class Boom(Exception):
    """A user exception."""


class Trigger:
    """Raise ``exc`` the ``nth`` time the program reaches ``where`` (``None``: never);
    counts every place reached, and keeps the value seen at the raise."""

    def __init__(self, where=None, nth=1, exc=None):
        self.where, self.nth, self.exc = where, nth, exc
        self.counts: dict = {}
        self.captured = None

    def __call__(self, where, value=None):
        self.counts[where] = self.counts.get(where, 0) + 1
        if where == self.where and self.counts[where] == self.nth:
            self.captured = value
            raise self.exc


def _make_program(trigger):
    @custom_jvp
    def smooth(x):
        return fnp.sin(x) * 2.0

    @smooth.defjvp
    def _(primals, tangents):
        (x,), (t,) = primals, tangents
        trigger("rule", x)
        return smooth(x), 2.0 * fnp.cos(x) * t

    def program(x):
        trigger(("body", 0, "before"), x)
        y = np.tanh(x) * smooth(x) + np.sum(x**2)
        trigger(("body", 0, "after"), y)
        return y

    return program


def _level(kind, g, depth, trigger):
    """``g(x)`` under transform ``kind``; its own body reports ``depth``."""

    def body(x):
        trigger(("body", depth, "before"), x)
        out = g(x)
        trigger(("body", depth, "after"), out)
        return out

    def scalar(x):
        return fnp.sum(body(x))

    if kind == "vmap":
        return vmap(body)
    if kind == "vmap_chunked":
        return vmap(body, chunk_size=1)
    if kind == "grad":
        return grad(scalar)
    if kind == "hessian":
        return hessian(scalar)
    if kind == "jacfwd":
        return jacfwd(body)
    if kind == "jacrev":
        return jacrev(body)
    if kind == "jvp":
        return lambda x: jvp(body, (x,), (np.cos(x) + 0.5,))[1]
    if kind == "linearize":
        return lambda x: linearize(body, x)[1](np.cos(x) + 0.5)

    def pulled(x):
        out, pullback = vjp(body, x)
        return pullback(np.sin(out) + 0.5)[0]

    return pulled


KINDS = ["vmap", "vmap_chunked", "grad", "jvp", "vjp", "linearize", "jacfwd", "jacrev", "hessian"]


def _stack(kinds, trigger):
    f = _make_program(trigger)
    for depth, kind in enumerate(kinds, start=1):
        f = _level(kind, f, depth, trigger)
    return f


def _input(kinds):
    n_batch = sum(k.startswith("vmap") for k in kinds)
    return np.linspace(-1.0, 1.3, 2**n_batch * 3).reshape((2,) * n_batch + (3,))


@st.composite
def _failures(draw):
    kinds = draw(st.lists(st.sampled_from(KINDS), min_size=1, max_size=3))
    depth = draw(st.integers(0, len(kinds)))
    where = draw(
        st.sampled_from(
            [("body", depth, "before"), ("body", depth, "after"), "rule"],
        )
    )
    nth = draw(st.sampled_from([1, 1, 1, 2, 3]))  # a chunked vmap reaches a place twice
    exc = draw(st.sampled_from(["boom", "keyboard"]))
    return kinds, where, nth, exc


@settings(max_examples=int(os.environ.get("FTRANSFORMS_FUZZ_EXAMPLES", 300)) // 5)
@given(_failures())
def test_exception_anywhere_leaves_the_library_usable(failure):
    kinds, where, nth, exc_kind = failure
    x = _input(kinds)
    clean = Trigger()
    reference = _stack(kinds, clean)(x)
    assert current_stack() == ()
    reached = clean.counts.get(where, 0)
    note(f"stack {kinds}, raise at {where} #{nth} (reached {reached} times)")

    exc = Boom("user error", 42) if exc_kind == "boom" else KeyboardInterrupt()
    trigger = Trigger(where, nth, exc)
    f = _stack(kinds, trigger)
    if reached >= nth:
        with pytest.raises(type(exc)) as info:
            f(x)
        # Unchanged: the very object, its arguments, no cause, context or notes added.
        assert info.value is exc
        assert info.value.args == (("user error", 42) if exc_kind == "boom" else ())
        assert info.value.__cause__ is None and info.value.__context__ is None
        assert getattr(info.value, "__notes__", None) is None
        assert current_stack() == ()
        kept = trigger.captured  # a value the failed call had in hand
        if isinstance(kept, Tracer) and not kept._plain_after_scope:
            with pytest.raises(EscapedTracerError):
                kept + 1.0
        elif isinstance(kept, Tracer):  # a buffer reads as its array (NOTE [buffers after
            np.testing.assert_array_equal(kept + 1.0, np.asarray(kept) + 1.0)  # their transform])
        del info, kept
    else:
        np.testing.assert_array_equal(f(x), reference)
    assert current_stack() == ()
    # The next computations are right: the same stack, bitwise, and a known answer.
    again = _stack(kinds, Trigger())(x)
    assert again.dtype == reference.dtype
    np.testing.assert_array_equal(again, reference)
    v = np.linspace(0.0, 1.0, 5)
    np.testing.assert_allclose(vmap(grad(lambda t: np.sin(t) ** 2))(v), np.sin(2 * v), rtol=1e-13)
    assert current_stack() == ()


def test_library_errors_inside_nested_transforms_leave_the_stack_empty():
    x = np.ones((2, 3))
    with pytest.raises(ftransforms.errors.GradOutputError):
        vmap(jacfwd(grad(lambda v: v * 2)))(x)  # grad of a non-scalar, three levels deep
    assert current_stack() == ()
    with pytest.raises(ftransforms.errors.InDimsError):
        grad(lambda v: np.sum(vmap(np.sin, in_dims=5)(v)))(x)
    assert current_stack() == ()
    np.testing.assert_allclose(vmap(grad(lambda v: np.sum(v**3)))(x), 3 * x**2)


def test_exception_in_a_later_vmap_chunk():
    calls = []

    def f(v):
        calls.append(1)
        if len(calls) == 3:
            raise Boom("third chunk")
        return np.sum(np.sin(v))

    with pytest.raises(Boom, match="third chunk"):
        vmap(grad(f), chunk_size=2)(np.ones((6, 2)))
    assert current_stack() == ()
    np.testing.assert_allclose(
        vmap(grad(lambda v: np.sum(np.sin(v))), chunk_size=2)(np.ones((6, 2))),
        np.cos(np.ones((6, 2))),
    )


# == 3. threads ===========================================================================


def _thread_stacks():
    """Eight different transform stacks, each a zero-argument callable."""
    rng = np.random.default_rng(7)
    W = rng.standard_normal((4, 3))
    X = rng.standard_normal((6, 3))

    def loss(w, x):
        return np.sum(np.tanh(w @ x) ** 2) + 0.1 * np.sum(w * w)

    def layer(x):
        return np.tanh(W @ x)

    def cubic(v):
        return np.sum(np.sin(v) ** 3)

    return {
        "vmap(grad)": lambda: vmap(grad(loss), in_dims=(None, 0))(W, X),
        "jacrev": lambda: jacrev(layer)(X[0]),
        "jacfwd": lambda: jacfwd(lambda x: np.sin(W @ x) * np.sum(x))(X[1]),
        "hessian": lambda: hessian(lambda x: loss(W, x))(X[2]),
        "jvp(grad)": lambda: jvp(grad(lambda x: loss(W, x)), (X[3],), (X[4],))[1],
        "vmap(vjp)": lambda: vmap(lambda x: vjp(layer, x)[1](np.ones(4))[0])(X),
        "grad(grad)": lambda: grad(lambda x: np.sum(grad(cubic)(x) ** 2))(X[5]),
        "vmap(jacfwd) chunked": lambda: vmap(jacfwd(layer), in_dims=1, chunk_size=4)(X.T),
    }


def test_threads_give_bitwise_the_serial_results():
    stacks = _thread_stacks()
    serial = {}
    serial_s = {}
    for name, run in stacks.items():
        start = time.perf_counter()
        serial[name] = run()
        serial_s[name] = time.perf_counter() - start
        np.testing.assert_array_equal(run(), serial[name])  # repeatable to begin with
    duration = 2.0
    barrier = threading.Barrier(len(stacks))
    done: dict = {}
    errors: list = []

    def worker(name, run):
        try:
            n = 0
            barrier.wait()
            deadline = time.perf_counter() + duration
            while time.perf_counter() < deadline:
                out = run()
                if out.dtype != serial[name].dtype or out.tobytes() != serial[name].tobytes():
                    errors.append(f"{name}: iteration {n} differs from the serial result")
                if current_stack() != ():
                    errors.append(f"{name}: the stack is not empty between calls")
                if n % 4 == 3:  # a failing call now and then must not disturb the others
                    try:
                        grad(lambda v: np.sum(np.sin(v)) + _boom())(np.ones(3))
                    except Boom:
                        pass
                n += 1
            done[name] = n
        except BaseException as e:  # reported below, with the thread's name
            errors.append(f"{name}: {type(e).__name__}: {e}")

    old_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # switch threads as often as possible
    try:
        threads = [threading.Thread(target=worker, args=item) for item in stacks.items()]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
    finally:
        sys.setswitchinterval(old_interval)
    assert not errors, errors[:5]
    assert sorted(done) == sorted(stacks)
    assert all(n >= 2 for n in done.values()), done  # they did run concurrently, repeatedly
    assert current_stack() == ()
    report = ", ".join(
        f"{k}: {v} calls ({serial_s[k] * 1e3:.1f} ms serial)" for k, v in done.items()
    )
    print(f"\nthreads ({duration:.0f} s, 8 threads): {report}")


def _boom():
    raise Boom("in a thread")


# == 4. memory ============================================================================


@pytest.mark.slow  # a long check: the separate `-m slow` step of .ci/run
def test_memory_stays_flat_over_10000_calls():
    def f(w, x):
        return np.sum(np.sin(x * w))

    g = vmap(grad(f), in_dims=(None, 0))
    w, x = np.linspace(0.1, 0.3, 3), np.linspace(-1.0, 1.0, 12).reshape(4, 3)
    out = None
    gc.collect()
    tracemalloc.start()
    try:
        for _ in range(500):  # warm-up, traced: caches and free lists fill here
            out = g(w, x)
        gc.collect()
        base = tracemalloc.get_traced_memory()[0]
        start, cpu = time.perf_counter(), time.process_time()
        for _ in range(10_000):
            out = g(w, x)
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        gc.collect()
        growth = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    np.testing.assert_allclose(out, np.cos(x * w) * x, rtol=1e-14)
    print(
        f"\nvmap(grad(f)) x 10000 under tracemalloc: {growth} B retained after warm-up; "
        f"{elapsed:.1f} s ({cpu:.1f} s CPU)"
    )
    # One leaked 56-byte object per call would be 560 kB.
    assert growth < 32 * 1024, f"{growth} bytes retained by 10,000 calls"


def _live_tracers() -> int:
    gc.collect()
    # type(), not isinstance(): isinstance reads __class__, which raises ReferenceError on a
    # weakref.proxy whose referent died (numba, loaded by the compiled tier, leaves some)
    return sum(issubclass(type(o), Tracer) for o in gc.get_objects())


def _interps_of(value, refs):
    """Weak references to the interpreters of ``value``'s tracer chain."""
    while isinstance(value, Tracer):
        refs.append(weakref.ref(value._interp))
        value = next(getattr(value, a) for a in ("value", "val", "primal") if hasattr(value, a))


@custom_vjp
def _scaled(x):
    return x * 3.0


_RESIDUALS: list = []


def _scaled_fwd(x):
    res = np.asarray(fnp.physical(x)) * 1.0  # a fresh array, kept by the tape as residual
    _RESIDUALS.append(weakref.ref(res))
    return x * 3.0, res


_scaled.defvjp(_scaled_fwd, lambda res, g: (g * 3.0,))


@pytest.mark.parametrize(
    "stack",
    ["grad", "vmap(grad)", "jacrev", "hessian", "grad(grad)", "vjp", "linearize", "custom_vjp"],
)
def test_finished_calls_free_their_tapes_and_tracers(stack):
    before = _live_tracers()
    interps: list = []
    arrays: list = []

    def f(x):
        _interps_of(x, interps)
        big = np.sin(x)[:, None] * np.ones(100)  # an intermediate the tape holds
        arrays.append(weakref.ref(fnp.physical(big)))
        return np.sum(np.tanh(big) ** 2) + np.sum(x)

    x = np.linspace(0.0, 1.0, 1000)
    keep = None
    if stack == "grad":
        out = grad(f)(x)
    elif stack == "vmap(grad)":
        out = vmap(grad(f))(np.stack([x, x + 1]))
    elif stack == "jacrev":
        out = jacrev(lambda v: np.tanh(v) * f(v))(x[:5])
    elif stack == "hessian":
        out = hessian(f)(x[:5])
    elif stack == "grad(grad)":
        out = grad(lambda v: np.sum(grad(f)(v) ** 2))(x)
    elif stack == "vjp":
        value, keep = vjp(f, x)
        out = keep(np.ones_like(value))[0]
    elif stack == "linearize":
        value, keep = linearize(f, x)
        out = keep(np.ones_like(x))
    else:
        out = grad(lambda v: np.sum(_scaled(f(v) * v)))(x)
    assert isinstance(out, np.ndarray)
    assert interps and arrays
    if keep is not None:  # vjp_fn / jvp_fn keep their tape: it is what they run on
        gc.collect()
        assert all(r() is not None for r in interps[:1])
        keep = None
    gc.collect()
    assert [r() for r in interps] == [None] * len(interps), "an interpreter outlived its call"
    assert [r() for r in arrays] == [None] * len(arrays), "a tape kept an intermediate array"
    if stack == "custom_vjp":
        assert _RESIDUALS, "the custom_vjp forward rule did not run"
    assert all(r() is None for r in _RESIDUALS), "a custom_vjp residual outlived its call"
    assert _live_tracers() == before


@pytest.mark.slow  # a long check: the separate `-m slow` step of .ci/run
def test_grad_of_a_100000_op_program_and_linear_memory():
    def chain(n):
        def f(x):
            for _ in range(n):
                x = x * 1.0000001 + 1e-9
            return np.sum(x)

        return f

    x = np.linspace(0.0, 1.0, 8)
    depth = 0
    frame = sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + 150)  # nothing may recurse with the program's length
    try:
        start = time.perf_counter()
        g = grad(chain(50_000))(x)  # 100,000 primitives on the tape
        elapsed = time.perf_counter() - start
    finally:
        sys.setrecursionlimit(limit)
    np.testing.assert_allclose(g, np.full(8, 1.0000001**50_000), rtol=1e-12)

    def peak(n):
        gc.collect()
        tracemalloc.start()
        try:
            grad(chain(n))(x)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    p1, p2 = peak(12_500), peak(25_000)  # 25k and 50k primitives
    ratio = p2 / p1
    print(
        f"\ngrad of 100k ops: {elapsed:.1f} s; peak tracemalloc 25k ops {p1 / 2**20:.1f} MiB, "
        f"50k ops {p2 / 2**20:.1f} MiB, ratio {ratio:.2f}"
    )
    assert 1.6 < ratio < 2.4, (p1, p2)
    assert p2 < 2000 * 50_000, "more than 2 kB per recorded primitive"


# == 5. numerics at the edges =============================================================

_C = np.array([1.0, 2.0, 3.0, 4.0])
_TINY = 1e-310  # subnormal

#: Rows of a (4,)-vector input: zeros, ties, +-1e4, overflow, subnormals, NaN, +-inf.
EDGE_ROWS = {
    "zeros": [0.0, 0.0, 0.0, 0.0],
    "regular": [1.0, -2.0, 0.5, 3.0],
    "ties": [3.0, 3.0, 3.0, 3.0],
    "kinks": [-2.0, 0.0, 0.0, 2.0],
    "1e4": [1e4, -1e4, 0.0, 1.0],
    "-1e4": [-1e4, -1e4, -1e4, -1e4],
    "+1e4": [1e4, 1e4, 1e4, 1e4],
    "huge": [1e308, 1e308, -1e308, 0.0],
    "subnormal": [_TINY, -_TINY, 0.0, _TINY],
    "subnormal2": [5e-324, _TINY, 2 * _TINY, 0.0],
    "nan": [np.nan, 0.0, 1.0, 2.0],
    "+inf": [np.inf, 0.0, 1.0, 2.0],
    "-inf": [-np.inf, 0.0, 1.0, 2.0],
    "all -inf": [-np.inf, -np.inf, -np.inf, -np.inf],
    "all +inf": [np.inf, np.inf, np.inf, np.inf],
}
_ROWS = np.array(list(EDGE_ROWS.values()))

#: name -> (ftransforms function, the same in JAX); every one maps a (4,) vector to a scalar.
EDGE_FUNCTIONS = {
    "logsumexp": (fsp.logsumexp, jsp.logsumexp),
    "logsumexp_formula": (
        lambda x: np.max(x) + np.log(np.sum(np.exp(x - fnp.stop_gradient(np.max(x))))),
        lambda x: jnp.max(x) + jnp.log(jnp.sum(jnp.exp(x - jax.lax.stop_gradient(jnp.max(x))))),
    ),
    "softmax": (
        lambda x: np.sum(fsp.softmax(x) * _C),
        lambda x: jnp.sum(jax.nn.softmax(x) * _C),
    ),
    "log_softmax": (
        lambda x: np.sum(fnn.log_softmax(x) * _C),
        lambda x: jnp.sum(jax.nn.log_softmax(x) * _C),
    ),
    "cross_entropy": (
        lambda x: fnn.cross_entropy(x, np.array(2)),
        lambda x: -jax.nn.log_softmax(x)[2],
    ),
    "sigmoid": (
        lambda x: np.sum(fnn.sigmoid(x) * _C),
        lambda x: jnp.sum(jax.nn.sigmoid(x) * _C),
    ),
    "sigmoid_formula": (
        lambda x: np.sum(_C / (1 + np.exp(-x))),
        lambda x: jnp.sum(_C / (1 + jnp.exp(-x))),
    ),
    "softplus": (
        lambda x: np.sum(fnn.softplus(x) * _C),
        lambda x: jnp.sum(jax.nn.softplus(x) * _C),
    ),
    "norm": (np.linalg.norm, jnp.linalg.norm),
    "fnp.linalg.norm": (fnp.linalg.norm, jnp.linalg.norm),
    "sqrt": (lambda x: np.sum(np.sqrt(x) * _C), lambda x: jnp.sum(jnp.sqrt(x) * _C)),
    "abs": (lambda x: np.sum(np.abs(x) * _C), lambda x: jnp.sum(jnp.abs(x) * _C)),
    "maximum": (
        lambda x: np.sum(np.maximum(x, x[::-1]) * _C),
        lambda x: jnp.sum(jnp.maximum(x, x[::-1]) * _C),
    ),
    "maximum0": (
        lambda x: np.sum(np.maximum(x, 0.0) * _C),
        lambda x: jnp.sum(jnp.maximum(x, 0.0) * _C),
    ),
    "max": (np.max, jnp.max),
    "relu": (lambda x: np.sum(fnn.relu(x) * _C), lambda x: jnp.sum(jax.nn.relu(x) * _C)),
}

#: (function, row) -> (why ftransforms differs from JAX there, ftransforms' value and
#: gradient, asserted exactly like JAX's elsewhere).
KNOWN_DIFFERENCES = {
    ("max", "nan"): (
        "JAX (XLA) gives gradient 0 at a NaN maximum: NaN == NaN is false, so no element "
        "takes the derivative, and XLA turns 0/0 into 0.  ftransforms propagates the NaN "
        "(JAX's own jaxpr, evaluated in IEEE arithmetic, also gives NaN)",
        np.nan,
        [np.nan, np.nan, np.nan, np.nan],
    ),
}


def _jax_reference(jax_fn):
    """JAX's values and gradients on every row, two ways: XLA (the real thing, which
    flushes subnormals to zero on CPU) and JAX's jaxpr evaluated by NumPy in IEEE float64
    (used for the subnormal rows, where XLA computes a different function)."""
    batched = jax.vmap(jax.value_and_grad(jax_fn))
    xla = [np.asarray(a) for a in jax.jit(batched)(_ROWS)]
    ieee = JaxprEvaluator.run(jax.make_jaxpr(batched)(_ROWS), _ROWS)
    return xla, ieee


def _assert_same_ieee(actual, expected, what):
    """Same NaN positions, same infinities (with sign), finite values within the table."""
    actual, expected = np.asarray(actual, dtype=np.float64), np.asarray(expected, np.float64)
    assert actual.shape == expected.shape, what
    np.testing.assert_array_equal(np.isnan(actual), np.isnan(expected), err_msg=f"{what}: NaN")
    inf = np.isinf(expected)
    np.testing.assert_array_equal(np.isinf(actual), inf, err_msg=f"{what}: inf")
    np.testing.assert_array_equal(actual[inf], expected[inf], err_msg=f"{what}: inf sign")
    fin = np.isfinite(expected)
    np.testing.assert_allclose(actual[fin], expected[fin], **tol(np.float64), err_msg=what)


@pytest.mark.parametrize("name", list(EDGE_FUNCTIONS))
def test_numerics_at_the_edges_match_jax(name):
    ours_fn, jax_fn = EDGE_FUNCTIONS[name]
    (xla_v, xla_g), (ieee_v, ieee_g) = _jax_reference(jax_fn)
    for r, row_name in enumerate(EDGE_ROWS):
        row = _ROWS[r].copy()
        with np.errstate(all="ignore"):  # warnings are fine, exceptions are not
            g, v = ftransforms.grad_and_value(ours_fn)(row)
            batched_g = vmap(grad(ours_fn))(_ROWS[r : r + 1])[0]
        what = f"{name} at {row_name} {row}"
        assert v.dtype == g.dtype == np.float64, what
        np.testing.assert_array_equal(batched_g, g, err_msg=f"{what}: vmap(grad) != grad")
        if (name, row_name) in KNOWN_DIFFERENCES:
            _, exp_v, exp_g = KNOWN_DIFFERENCES[(name, row_name)]
        elif row_name.startswith("subnormal"):
            exp_v, exp_g = ieee_v[r], ieee_g[r]
            # Finite wherever XLA's (subnormals flushed to zero) is finite, too.
            assert np.isfinite(g)[np.isfinite(xla_g[r])].all(), what
        else:
            exp_v, exp_g = xla_v[r], xla_g[r]
            _assert_same_ieee(ieee_v[r], exp_v, f"oracles disagree: {what}")
            _assert_same_ieee(ieee_g[r], exp_g, f"oracles disagree: {what}")
        _assert_same_ieee(v, exp_v, f"{what}: value")
        _assert_same_ieee(g, exp_g, f"{what}: gradient")
        if np.isnan(row).any():  # NaN in, NaN out: never a finite number
            assert np.isnan(v), what


def test_known_differences_are_real():
    """Each KNOWN_DIFFERENCES entry differs from what XLA computes (so stale ones show)."""
    for (name, row_name), (_, _, exp_g) in KNOWN_DIFFERENCES.items():
        (_, xla_g), _ = _jax_reference(EDGE_FUNCTIONS[name][1])
        r = list(EDGE_ROWS).index(row_name)
        with pytest.raises(AssertionError):
            _assert_same_ieee(exp_g, xla_g[r], name)


@pytest.mark.parametrize(
    ("fn", "smooth"),
    [
        (np.sin, True),
        (np.exp, True),
        (np.log, True),
        (np.sqrt, True),
        (np.tanh, True),
        (lambda v: v**3, True),
        (lambda v: np.maximum(v, 0.5), False),
        (lambda v: np.where(v > 0, v, 0.1 * v), False),
    ],
    ids=["sin", "exp", "log", "sqrt", "tanh", "cube", "maximum", "where"],
)
def test_nan_and_inf_propagate_through_every_transform(fn, smooth):
    """NaN in gives NaN out (values always; derivatives of smooth functions too: a select
    such as maximum has derivative 0 or 1 at NaN, as in JAX), no transform raises, and all
    transforms agree."""
    x = np.array([np.nan, np.inf, -np.inf, 1.0])
    with np.errstate(all="ignore"):
        value = fn(x)
        primal, tangent = jvp(fn, (x,), (np.ones(4),))
        primal_v, pullback = vjp(fn, x)
        outs = {
            "grad": grad(lambda v: np.sum(fn(v)))(x),
            "jvp": tangent,
            "vjp": pullback(np.ones(4))[0],
            "jacfwd": np.diagonal(jacfwd(fn)(x)),
            "jacrev": np.diagonal(jacrev(fn)(x)),
            "vmap(grad)": vmap(grad(fn))(x),
        }
        second = np.diagonal(hessian(lambda v: np.sum(fn(v)))(x))
        second_fwd = vmap(grad(grad(fn)))(x)
    assert np.isnan(value[0])
    np.testing.assert_array_equal(primal, value)
    np.testing.assert_array_equal(primal_v, value)
    for what, out in outs.items():
        np.testing.assert_array_equal(out, outs["grad"], err_msg=what)
    np.testing.assert_array_equal(second, second_fwd)
    if smooth:
        assert np.isnan(outs["grad"][0]) and np.isnan(second[0])


# == 6. determinism =======================================================================

_DETERMINISM_SCRIPT = textwrap.dedent(
    """
    import hashlib, sys
    import numpy as np
    from ftransforms import grad, hessian, jacfwd, jacrev, jvp, vmap
    from ftransforms.scipy.special import logsumexp

    rng = np.random.default_rng(3)
    W = rng.standard_normal((5, 4))
    X = rng.standard_normal((7, 4))

    def loss(w, x):
        h = np.tanh(w @ x)
        return logsumexp(h) + np.sum(np.maximum(h, 0.1) ** 2) + np.prod(np.cos(x[:3]))

    results = [
        vmap(grad(loss), in_dims=(None, 0))(W, X),
        hessian(lambda x: loss(W, x))(X[0]),
        jacrev(lambda x: np.sort(np.sin(W @ x)))(X[1]),
        jacfwd(vmap(lambda x: np.cumsum(x) @ W.T))(X),
        jvp(grad(lambda x: loss(W, x)), (X[2],), (X[3],))[1],
        vmap(jacrev(lambda x: np.einsum("ij,j->i", W, x) ** 3), chunk_size=3)(X),
    ]
    digest = hashlib.sha256()
    for r in results:
        digest.update(str((r.shape, r.dtype.str)).encode())
        digest.update(np.ascontiguousarray(r).tobytes())
    sys.stdout.write(digest.hexdigest())
    """
)


def _run_determinism_script(hash_seed: str) -> str:
    env = dict(os.environ, PYTHONHASHSEED=hash_seed)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", _DETERMINISM_SCRIPT],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_results_are_bitwise_identical_across_calls_and_processes():
    # In this process, repeatedly.
    namespace: dict = {}
    script = _DETERMINISM_SCRIPT.replace("sys.stdout.write(digest.hexdigest())", "")
    digests = set()
    for _ in range(3):
        exec(script, namespace)  # noqa: S102  (the script above)
        digests.add(namespace["digest"].hexdigest())
    assert len(digests) == 1
    # In two fresh processes with different hash seeds (set/dict order of strings differs).
    first, second = _run_determinism_script("1"), _run_determinism_script("2")
    assert len(first) == 64
    assert first == second == digests.pop()


def test_repeated_calls_of_nested_stacks_are_bitwise_identical():
    rng = np.random.default_rng(11)
    x = rng.standard_normal((3, 4))

    def f(v):
        return np.sum(np.tanh(v @ v.T) * np.max(v, axis=1, keepdims=True).T) ** 2

    stacks = [
        lambda: vmap(grad(f), in_dims=(0,))(np.stack([x, 2 * x])),
        lambda: hessian(f)(x),
        lambda: jacfwd(jacrev(f))(x),
        lambda: vmap(hessian(f), chunk_size=1)(np.stack([x, x[::-1]])),
    ]
    for run in stacks:
        first = run()
        for _ in range(3):
            again = run()
            assert again.tobytes() == first.tobytes() and again.dtype == first.dtype
        assert np.isfinite(first).all()


@pytest.mark.parametrize("transform", ["grad", "vmap(grad)", "jacrev", "grad_and_value"])
def test_a_logged_tracer_does_not_keep_the_tape_alive(transform):
    # The classic leak: the loss (a tracer) appended to a history list inside the function.
    # The list keeps the tracer, but a finished grad/jacrev must not keep its tape (every
    # intermediate array of the step) through it.
    history: list = []
    arrays: list = []

    def loss(x):
        big = np.sin(x)[..., None] * np.ones(500)
        arrays.append(weakref.ref(fnp.physical(big)))
        out = np.sum(np.tanh(big) ** 2)
        history.append(out)
        return out

    x = np.linspace(0.0, 1.0, 200)
    for _ in range(3):
        if transform == "grad":
            grad(loss)(x)
        elif transform == "vmap(grad)":
            vmap(grad(loss))(np.stack([x, -x]))
        elif transform == "jacrev":
            jacrev(lambda v: loss(v) * v[:2])(x)
        else:
            ftransforms.grad_and_value(loss)(x)
    gc.collect()
    assert len(history) == 3 and all(isinstance(t, Tracer) for t in history)
    assert [r() for r in arrays] == [None] * len(arrays), "a logged tracer kept its tape"
    with pytest.raises(EscapedTracerError):
        history[0] + 1.0
