"""The compiled tier on loops (NOTE [compiled tier] in ``ftransforms/compiled/__init__.py``).

A loop under ``jit`` is either a control-flow node (``scan``/``fori_loop``/``while_loop``
recorded once: its body gets a compiled driver of its own; under ``jit(grad(...))`` a
forward and a backward loop, NOTE [loops under a reverse level in jit]) or, where that
does not apply (``grad`` of ``grad``, or with ``loop_vjp.STRUCTURED`` off), recorded
unrolled: then the steps' slices of the stacked inputs
(static ``getitem``), the gradient's scatter into the gates (``getitem_transpose``) and
the scheduling of fusible equations decide how many kernel calls a step costs.

Oracles: the replay of the same recorded program (plain NumPy) and the eager call, to the
tolerances of ``tests/test_compiled_tier.py`` (float32 ``1e-6``, float64 ``1e-12`` of the
largest magnitude); dtypes as the replay's.
"""

from __future__ import annotations

import numpy as np
import pytest

import ftransforms as ft
from ftransforms import loop_vjp
from ftransforms.compiled import lowering, tier
from ftransforms.compiled.numba_backend import kernel_signature, kernel_source
from ftransforms.pytree import tree_flatten

needs_numba = pytest.mark.skipif(not tier.available(), reason="the optional compiler (numba)")
RNG = np.random.default_rng(7)
DTYPES = [np.float64, np.float32]


@pytest.fixture(autouse=True)
def _cache_in_tmp(tmp_path_factory, monkeypatch):
    # one cache folder for the session, as tests/test_compiled_tier.py
    from ftransforms.compiled import cache

    monkeypatch.setenv("FTRANSFORMS_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "ftcache"))
    monkeypatch.setattr(cache, "_DIR", None)


def data(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


def assert_close(got, want, dtype):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape
    tol = 1e-6 if np.dtype(dtype) == np.float32 else 1e-12
    scale = max(float(np.max(np.abs(want[np.isfinite(want)]), initial=0.0)), 1.0)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(got[np.isinf(want)], want[np.isinf(want)])
    fin = np.isfinite(want)
    np.testing.assert_allclose(got[fin], want[fin], rtol=0, atol=tol * scale)


def compiled_and_replayed(fn, *args, dtype):
    """``jit(fn)`` compiled now: its result against the replay and the eager call."""
    jitted = ft.jit(fn, compile=False)
    first = tree_flatten(jitted(*args))[0]
    (program,) = jitted.cache.values()
    assert tier.compile_now(program), program.tier
    got = tree_flatten(jitted(*args))[0]
    leaves = [np.asarray(a) for a in tree_flatten(args)[0] if isinstance(a, np.ndarray)]
    replay = tree_flatten(program._compiled()(*leaves))[0]
    eager = tree_flatten(fn(*args))[0]
    assert len(got) == len(replay) == len(eager)
    for g, r, e, f in zip(got, replay, eager, first):
        assert_close(g, r, dtype)
        assert_close(g, e, dtype)
        assert np.asarray(g).dtype == np.asarray(f).dtype == np.dtype(dtype)
    return program


def plan_of(fn, *args):
    prog = ft.make_program(fn)(*args)
    avals = [(a.shape, a.dtype) for a in tree_flatten(args)[0]]
    return prog, lowering.plan(prog.eqns, prog.n_inputs, prog.out_refs, avals)


def lstm_loss(p, x, y):
    """One sequence's loss, as the W6 benchmark (``benchmarks/peers/ftransforms_peer.py``)."""
    wx, wh, b, v = p
    h = wh.shape[1]
    h0 = np.zeros(h, dtype=x.dtype)
    xz = x @ wx.T + b

    def step(carry, inputs):
        hh, cc = carry
        xz_t, y_t = inputs
        z = xz_t + wh @ hh
        i, f = 1 / (1 + np.exp(-z[:h])), 1 / (1 + np.exp(-z[h : 2 * h]))
        g, o = np.tanh(z[2 * h : 3 * h]), 1 / (1 + np.exp(-z[3 * h :]))
        cc = f * cc + i * g
        hh = o * np.tanh(cc)
        return (hh, cc), (hh @ v - y_t) ** 2

    _, errors = ft.scan(step, (h0, h0), (xz, y))
    return errors.mean()


def lstm_inputs(b, t, h, d, dtype):
    p = tuple(data(*s, dtype=dtype) * 0.5 for s in ((4 * h, d), (4 * h, h), (4 * h,), (h,)))
    return p, data(b, t, d, dtype=dtype), data(b, t, dtype=dtype)


# -- what lowers (no compiler needed) -----------------------------------------------------


def test_static_slices_are_offset_views_or_numpy_views_before_the_kernel():
    def f(z):
        w = z * 2.0 + 1.0
        return w[:, 2:6] * w[1, 0:4] - w[:, ::-2][:, :4] + z[..., 4:8] * 3.0

    _, items = plan_of(f, data(3, 12))
    (seg,) = [i for i in items if isinstance(i, lowering.Segment)]
    src = kernel_source(seg, "k")
    # slices of a value the kernel computes read it at an offset (and a negative step)
    assert "2 + i1]" in src and "[1, i1]" in src and "11 + -2 * i1]" in src
    # a slice of an input is a NumPy view taken before the kernel, read as an input
    assert [e.prim.name for e in seg.pre] == ["getitem"]
    assert seg.pre[0].out in seg.inputs


@pytest.fixture
def _unrolled():
    """Loops under ``jit(grad)`` recorded on the eager tape (unrolled), not as the two
    loops of NOTE [loops under a reverse level in jit]."""
    loop_vjp.STRUCTURED["enabled"] = False
    yield
    loop_vjp.STRUCTURED["enabled"] = True


@pytest.mark.usefixtures("_unrolled")
def test_the_steps_of_an_unrolled_lstm_gradient_share_a_few_kernels():
    t = 9
    p, x, y = lstm_inputs(2, t, 32, 3, np.float32)  # gates of 64 elements: SIMD exp/tanh
    g = ft.vmap(ft.grad(lstm_loss), in_dims=(None, 0, 0))
    prog, items = plan_of(g, p, x, y)
    assert not any(type(e.prim).__name__ == "ControlNode" for e in prog.eqns)  # unrolled
    left = {i.prim.name for i in items if not isinstance(i, lowering.Segment)}
    # the arithmetic, the gate slices and the gradient's scatter into the gates all fuse:
    # per step only BLAS and NumPy's SIMD exp/tanh stay calls
    assert not left & {"add", "multiply", "negative", "divide", "getitem_transpose"}
    segments = [i for i in items if isinstance(i, lowering.Segment) and i.outputs]
    kinds = {(kernel_source(s, "k"), str(kernel_signature(s))) for s in segments}
    assert len(segments) >= 2 * t and len(kinds) <= 12


@pytest.mark.usefixtures("_unrolled")
def test_schedule_respects_dependencies_and_gathers_the_numpy_calls():
    p, x, y = lstm_inputs(2, 4, 4, 3, np.float64)
    prog = ft.make_program(ft.grad(lstm_loss))(p, x[0], y[0])
    order = lowering.schedule(prog.eqns)
    assert sorted(map(id, order)) == sorted(map(id, prog.eqns))
    seen = set(range(prog.n_inputs))
    for eqn in order:
        assert all(r in seen for r in eqn.refs if r is not None)
        seen.update(eqn.out if type(eqn.out) is tuple else (eqn.out,))

    def runs(eqns):  # changes between a fusible equation and one that stays NumPy
        kinds = [lowering._fusible(e, np) for e in eqns]
        return sum(a != b for a, b in zip(kinds, kinds[1:]))

    assert runs(order) < runs(prog.eqns)


# -- compiled against the replay and eager -------------------------------------------------


def _step(carry, x):
    h, c = carry
    z = np.tanh(h * 0.5 + x[:3]) * c + x[3:] * 0.25
    return (z * z - h, c * 0.9 + z), (np.sum(z * h), z[::-1] * 2.0)


@needs_numba
@pytest.mark.parametrize("dtype", DTYPES)
def test_scan_forward_and_reverse(dtype):
    h0 = (data(3, dtype=dtype), data(3, dtype=dtype))
    xs = data(7, 6, dtype=dtype)
    compiled_and_replayed(lambda h, xs: ft.scan(_step, h, xs), h0, xs, dtype=dtype)
    compiled_and_replayed(lambda h, xs: ft.scan(_step, h, xs, reverse=True), h0, xs, dtype=dtype)


@needs_numba
@pytest.mark.parametrize("dtype", DTYPES)
def test_fori_while_and_nested_loops(dtype):
    c0 = (data(4, dtype=dtype), data(4, dtype=dtype))
    body = lambda i, c: (c[0] * 0.5 + np.sin(c[1]) * 0.1 + 1.0, c[1] * c[0] - 0.5 * c[1])
    compiled_and_replayed(lambda c: ft.fori_loop(0, 6, body, c), c0, dtype=dtype)
    grow = lambda c: (c[0] * 1.5 + 1.0 + c[1] * c[1], c[1] * 0.5)
    compiled_and_replayed(
        lambda c: ft.while_loop(lambda c: np.sum(c[0]) < 50.0, grow, c), c0, dtype=dtype
    )

    def outer(i, c):
        h, hs = ft.scan(lambda h, x: (h * 0.5 + x[:4] - x[4:] * 0.5, h * h), c[0], xs)
        return h * 0.9 + 0.1, np.sum(hs, axis=0) * 0.25 + c[1] * 0.5

    xs = data(5, 8, dtype=dtype)
    compiled_and_replayed(lambda c: ft.fori_loop(0, 3, outer, c), c0, dtype=dtype)


@needs_numba
@pytest.mark.parametrize("dtype", DTYPES)
def test_gradient_of_a_scan(dtype):
    xs = data(6, 6, dtype=dtype)
    h0 = (data(3, dtype=dtype), data(3, dtype=dtype))

    def loss(h, xs):
        (h, c), (s, z) = ft.scan(_step, h, xs)
        return np.sum(s) + np.sum(z * z) * 0.5 + np.sum(h * c)

    compiled_and_replayed(ft.grad(loss, argnums=(0, 1)), h0, xs, dtype=dtype)


@needs_numba
@pytest.mark.parametrize("dtype", DTYPES)
def test_per_sequence_lstm_gradients(dtype):
    p, x, y = lstm_inputs(3, 6, 4, 3, dtype)
    g = ft.vmap(ft.grad(lstm_loss), in_dims=(None, 0, 0))
    program = compiled_and_replayed(g, p, x, y, dtype=dtype)
    assert program.tier == "compiled"


@needs_numba
def test_inputs_from_kernels_and_matmul_are_compiled_as_contiguous():
    f = lambda a, w: np.tanh((a * 2.0 + 1.0 - a * a) @ w) * 3.0 + 1.0 - np.tanh(a @ w)
    prog, items = plan_of(f, data(8, 8), data(8, 8))
    lowering.mark_contiguous(items, prog.eqns, [((8, 8), "f8")] * 2)
    first, *rest = [i for i in items if isinstance(i, lowering.Segment)]
    assert first.contiguous == frozenset()  # the program's own inputs: any layout
    # the last kernel reads tanh(matmul(...)) and tanh(matmul of a kernel's output)
    assert rest and rest[-1].contiguous == frozenset(rest[-1].inputs)
    sig = str(kernel_signature(rest[-1]))
    assert sig.count("Array(float64, 2, 'C', True") == len(rest[-1].inputs) and "'A'" not in sig


@needs_numba
@pytest.mark.parametrize("dtype", DTYPES)
def test_contiguous_kernel_inputs_compute_as_the_replay(dtype):
    f = lambda a, w: np.tanh((a * 2.0 + 1.0 - a * a) @ w) * 3.0 + 1.0 - np.tanh(a @ w) * a
    compiled_and_replayed(f, data(4, 4, dtype=dtype), data(4, 4, dtype=dtype), dtype=dtype)


def _valid_order(order, prog):
    seen = set(range(prog.n_inputs))
    for eqn in order:
        if not all(r in seen for r in eqn.refs if r is not None):
            return False
        seen.update(eqn.out if type(eqn.out) is tuple else (eqn.out,))
    return True


def _view_read_by_numpy_and_by_a_later_view(a, b, w):
    h = np.concatenate([a, b], axis=1)[:, :1]  # a slice of a NumPy call's result, read
    s = a * 2.0 - b
    r = h.reshape(-1)  # first by a view (fusible: scheduled early) whose reader comes
    m = (w @ h).reshape(-1)  # after this matmul, which reads the slice too
    return m * 2.0 + r * 3.0 - r * m, s


def test_a_view_is_placed_before_every_reader():
    args = (data(3, 2), data(3, 2), data(3, 3))
    prog = ft.make_program(_view_read_by_numpy_and_by_a_later_view)(*args)
    assert _valid_order(lowering.schedule(prog.eqns), prog)


@needs_numba
def test_a_view_read_by_numpy_and_by_a_later_view_compiles():
    args = (data(3, 2), data(3, 2), data(3, 3))
    compiled_and_replayed(_view_read_by_numpy_and_by_a_later_view, *args, dtype=np.float64)


def _matrix_carry_loss(p, xs):
    """A reverse scan with a matrix carry whose step slices a stack (``[:, :, :1]``) that
    a batched matmul reads (tests/test_scan_hoist.py's ``matrices`` model)."""
    w, a, b, s, e = p

    def step(c, x):
        c = np.tanh(w @ c + x @ e) * s + b
        stacked = a @ np.stack([c, c * 0.5])[:, :, :1]
        c = (b - c) * 0.5 + np.einsum("ij,jk->ik", w, c) - stacked[0] - s
        return c, np.einsum("j,ij->i", b[0], c) + w[0] @ c @ b[0]

    c, ys = ft.scan(step, np.ones((3, 2)), xs, reverse=True)
    return (c**2).sum() + (ys**2).sum()


def _matrix_carry_args():
    shapes = ((3, 3), (2, 3, 3), (1, 2), (3, 1), (2, 2))
    return tuple(data(*s) * 0.5 for s in shapes), data(3, 4, 3, 2) * 0.5


def test_schedule_of_an_unrolled_matrix_carry_gradient_is_a_valid_order():
    g = ft.vmap(ft.grad(_matrix_carry_loss, argnums=(0, 1)), in_dims=(None, 0))
    prog = ft.make_program(g)(*_matrix_carry_args())
    assert _valid_order(lowering.schedule(prog.eqns), prog)


@needs_numba
def test_unrolled_matrix_carry_gradient_compiles():
    g = ft.vmap(ft.grad(_matrix_carry_loss, argnums=(0, 1)), in_dims=(None, 0))
    compiled_and_replayed(g, *_matrix_carry_args(), dtype=np.float64)


# -- kernel outputs as one array; a loop step's unstored outputs ------------------------


def _driver_calls(fn, name):
    """How many globals of a generated driver are the implementation of ``name``."""
    from ftransforms.core.primitive import REGISTRY

    impl = REGISTRY[name].impl
    return sum(v is impl for v in fn.__globals__.values())


@needs_numba
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_a_concatenate_of_one_kernels_outputs_is_written_in_place(axis):
    def f(a, b, w):
        j = np.concatenate([a * 2.0 + b, a * b - 1.0, b * b * 0.5], axis=axis)
        return np.tanh(j.reshape(-1, 4) @ w)

    a, b, w = data(4, 4, dtype=np.float32), data(4, 4, dtype=np.float32), data(4, 3)
    program = compiled_and_replayed(f, a, b, w.astype(np.float32), dtype=np.float32)
    assert _driver_calls(program._fn, "concatenate") == 0


@needs_numba
def test_a_concatenate_whose_parts_are_read_elsewhere_stays_a_numpy_call():
    def f(a, b, w):
        p = a * 2.0 + b
        j = np.concatenate([p, a * b - 1.0], axis=1)
        return np.tanh(j @ w) + p.sum()

    program = compiled_and_replayed(f, data(4, 4), data(4, 4), data(8, 3), dtype=np.float64)
    assert _driver_calls(program._fn, "concatenate") == 1


@needs_numba
def test_kernel_outputs_of_one_shape_are_one_array_and_the_program_owns_its_results():
    def f(a, b):
        p, q = a * 2.0 + b, a * b - 1.0  # one kernel, two outputs read by NumPy calls
        return np.tanh(p) + np.exp(q), p * q  # (64 elements: NumPy's tanh and exp)

    a, b = data(8, 8), data(8, 8)
    program = compiled_and_replayed(f, a, b, dtype=np.float64)
    assert " = b" in program._fn.source  # p and q are views of one array
    for out in program._fn(a, b):
        assert out.base is None  # a returned result is never a view of such an array


@needs_numba
def test_a_loop_step_drops_the_outputs_the_loop_does_not_store():
    from ftransforms.program import ControlNode

    p, x, y = lstm_inputs(3, 6, 4, 3, np.float64)  # the shapes above: kernels from the cache
    g = ft.vmap(ft.grad(lstm_loss), in_dims=(None, 0, 0))
    program = compiled_and_replayed(g, p, x, y, dtype=np.float64)
    forward = next(e.prim for e in program.eqns if isinstance(e.prim, ControlNode))
    unread = forward.unread()
    assert unread  # the forward loop keeps only what the backward loop reads
    step = forward.subprograms["step"]  # its compiled driver
    assert all(step.out_refs[k] is None for k in unread)
    assert any(r is not None for r in step.out_refs)


@needs_numba
def test_a_ufunc_of_a_static_slice_is_known_contiguous():
    f = lambda a, b: np.tanh(a[:, 2:66]) * 2.0 + b - np.tanh(a[1:, ::2][:, :64]).sum()
    a, b = data(8, 130), data(8, 64)
    prog, items = plan_of(f, a, b)
    lowering.mark_contiguous(items, prog.eqns, [(a.shape, a.dtype), (b.shape, b.dtype)], 2)
    seg = [i for i in items if isinstance(i, lowering.Segment)][-1]
    tanh_of_slice = [e.out for e in prog.eqns if e.prim.name == "tanh"][0]
    assert tanh_of_slice in seg.inputs and tanh_of_slice in seg.contiguous
    compiled_and_replayed(f, a, b, dtype=np.float64)
