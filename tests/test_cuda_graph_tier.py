"""The CUDA-graph tier's bookkeeping (NOTE [CUDA graphs] in
``ftransforms/compiled/cuda_graph.py``), on the strict CuPy stand-in.

The stand-in has no GPU, so a fake ``cuda`` stands in for CuPy's: capture runs the program
(as CuPy's capture does, without computing on a card) and a launch runs it again on the
captured input buffers, writing the arrays the capture produced, which is what a CUDA
graph does.  While the fake stream captures, host reads and the stand-in's own ``matmul``
raise (CuPy refuses both while capturing), so the tests see the products go through the
capturable gemm and the fall-back where capture fails.  The real card is checked by
``benchmarks/gpu_check.sh`` (step ``graphs``).
"""

from __future__ import annotations

import contextlib
import itertools
import warnings

import numpy as np
import pytest

import ftransforms as ft
from ftransforms import strict_backend as sb
from ftransforms.compiled import cuda_graph
from tests.tolerances import assert_tree_close, tol

TOL = tol(np.float64)


class _Fake:
    """CuPy's ``cuda`` as far as the graph tier uses it (see the module docstring)."""

    def __init__(self) -> None:
        self.capturing = False
        self.launches = 0
        self.gemm_calls = 0
        self.captures: list = []  # (driver, inputs, outputs) of each capture
        self.ptrs = itertools.count(1)
        self.default = self.Stream()
        self.current = self.default

    # the pieces the module calls
    def Stream(self, non_blocking: bool = False):  # noqa: N802 - CuPy's name
        return _FakeStream(self)

    def get_current_stream(self):
        return self.current

    def MemoryPool(self):  # noqa: N802 - CuPy's name
        return type("Pool", (), {"malloc": staticmethod(lambda n: None)})()

    @contextlib.contextmanager
    def using_allocator(self, malloc):
        yield


class _FakeStream:
    def __init__(self, fake: _Fake) -> None:
        self.fake, self.ptr, self.previous = fake, next(fake.ptrs), None

    def synchronize(self) -> None:
        pass

    def __enter__(self):
        self.previous, self.fake.current = self.fake.current, self
        return self

    def __exit__(self, *exc):
        self.fake.current = self.previous

    def begin_capture(self) -> None:
        self.fake.capturing = True
        self.fake.captures.append(None)

    def end_capture(self):
        fake = self.fake
        ok = fake.capturing and fake.captures[-1] is not None
        fake.capturing = False
        if not ok:
            raise RuntimeError("cudaErrorStreamCaptureInvalidated (fake)")
        return _FakeGraph(fake, fake.captures[-1])


class _FakeGraph:
    def __init__(self, fake: _Fake, captured: tuple) -> None:
        self.fake, (self.driver, self.inputs, self.outputs) = fake, captured

    def launch(self, stream=None) -> None:
        """Run the program again on the input buffers, writing the captured outputs."""
        self.fake.launches += 1
        new = self.driver(*self.inputs)
        old = [self.outputs] if not isinstance(self.outputs, (list, tuple)) else self.outputs
        new = [new] if not isinstance(new, (list, tuple)) else new
        for o, n in zip(old, new):
            if isinstance(o, sb.StrictArray) and all(o is not b for b in self.inputs):
                o._data[...] = n._data


@pytest.fixture
def fake(monkeypatch):
    """The stand-in with a fake ``cuda``, host reads and ``matmul`` refused while
    capturing, and the tier switched on."""
    f = _Fake()
    monkeypatch.setattr(sb.xp, "cuda", f, raising=False)
    monkeypatch.setattr(sb.xp, "ndarray", sb.StrictArray, raising=False)
    monkeypatch.setenv("FTRANSFORMS_JIT_CUDA_GRAPHS", "always")
    monkeypatch.setattr(cuda_graph, "_GEMMS", {})

    def refuse(name, real):
        def method(*args, **kwargs):
            if f.capturing:
                raise RuntimeError(f"{name} while capturing (fake CUDA)")
            return real(*args, **kwargs)

        return method

    for name in ("get", "item", "__bool__", "__float__", "__int__", "__index__"):
        monkeypatch.setattr(sb.StrictArray, name, refuse(name, getattr(sb.StrictArray, name)))
    real_matmul = sb.xp.matmul
    monkeypatch.setattr(sb.xp, "matmul", refuse("cupy.matmul", real_matmul))

    class Gemm:  # the capturable product: 2-D or 3-D, as the real one
        def __call__(self, a, b, *args, **kwargs):
            if a.ndim not in (2, 3) or b.ndim not in (2, 3) or args or kwargs:
                return sb.xp.matmul(a, b, *args, **kwargs)
            f.gemm_calls += 1
            return real_matmul(a, b)

    monkeypatch.setattr(sb.xp, "CapturableGemm", Gemm, raising=False)
    real_capture = cuda_graph._capture_driver

    def capture_driver(program, xp):
        driver, swaps = real_capture(program, xp)

        def recording(*inputs):
            out = driver(*inputs)
            if f.capturing:
                f.captures[-1] = (driver, inputs, out)
            return out

        return recording, swaps

    monkeypatch.setattr(cuda_graph, "_capture_driver", capture_driver)
    return f


def _mlp_loss(params, x, y):
    w1, b1, w2, b2 = params
    h = np.tanh(x @ w1 + b1)
    logits = h @ w2 + b2
    logits = logits - logits.max()
    return -(logits[y] - np.log(np.sum(np.exp(logits))))


def _params(rng):
    return (
        rng.normal(size=(5, 8)),
        rng.normal(size=8),
        rng.normal(size=(8, 3)),
        rng.normal(size=3),
    )


def test_per_sample_grads_as_a_graph_equal_the_replay(fake):
    rng = np.random.default_rng(0)
    f = ft.vmap(ft.grad(_mlp_loss), in_dims=(None, 0, 0))
    graphed = ft.jit(f, compile=False)
    first = None
    for _ in range(4):
        params = tuple(sb.asarray(p) for p in _params(rng))
        x, y = sb.asarray(rng.normal(size=(6, 5))), sb.asarray(rng.integers(0, 3, 6))
        got = graphed(params, x, y)
        want = f(params, x, y)
        assert_tree_close(sb.to_numpy(got), sb.to_numpy(want), **TOL)
        first = first or (sb.to_numpy(got), got)
    program = next(iter(graphed.cache.values()))
    assert program.tier == "cuda graph"
    assert fake.launches == 3  # calls 2-4 (the first one records)
    assert fake.gemm_calls > 0  # the products went through the capturable gemm
    # the first call's results are not the buffers later launches write
    assert_tree_close(sb.to_numpy(first[1]), first[0], **TOL)


def test_results_are_fresh_arrays_and_inputs_pass_through(fake):
    def f(x, w):
        y = np.sin(x) * 2.0
        return x, y, y, y.sum()

    jf = ft.jit(f)
    rng = np.random.default_rng(1)
    outs = []
    for _ in range(3):
        x, w = sb.asarray(rng.normal(size=4)), sb.asarray(rng.normal(size=4))
        got = jf(x, w)
        assert got[0] is not x  # as the replay: a fresh array equal to the argument
        np.testing.assert_array_equal(got[0].get(), x.get())
        assert got[1] is got[2]  # one array, twice, as the replay hands it back
        np.testing.assert_allclose(got[1].get(), 2.0 * np.sin(x.get()))
        outs.append((got, x.get()))
    program = next(iter(jf.cache.values()))
    assert program.tier == "cuda graph"
    for got, x in outs:  # earlier results untouched by later launches
        np.testing.assert_allclose(got[1].get(), 2.0 * np.sin(x))
        np.testing.assert_allclose(got[3].get(), np.sum(2.0 * np.sin(x)))


def test_a_host_read_inside_falls_back_to_the_replay(fake):
    def f(x):  # a while_loop on the data decides on the host at every step
        return ft.lax.while_loop(lambda c: c.sum() < 20.0, lambda c: c * 2.0, x)

    jf = ft.jit(f)
    for k in range(3):
        x = sb.asarray(np.full(3, float(k + 1)))
        want = x.get()
        while want.sum() < 20.0:
            want = want * 2.0
        np.testing.assert_allclose(jf(x).get(), want)
    program = next(iter(jf.cache.values()))
    assert program.tier.startswith("replay (no CUDA graph: RuntimeError")
    assert fake.launches == 0


def test_a_product_it_does_not_take_falls_back(fake):
    jf = ft.jit(lambda a, b: np.matmul(a, b) + 1.0)
    rng = np.random.default_rng(2)
    for _ in range(3):
        a, b = rng.normal(size=(2, 2, 3, 4)), rng.normal(size=(2, 2, 4, 5))
        np.testing.assert_allclose(jf(sb.asarray(a), sb.asarray(b)).get(), a @ b + 1.0)
    assert next(iter(jf.cache.values())).tier.startswith("replay (no CUDA graph")


@pytest.mark.filterwarnings("ignore:jit.g.. the trace depends on data:RuntimeWarning")
def test_numpy_scalar_arguments_are_device_inputs_and_checked_reads_stay_replays(fake):
    jf = ft.jit(lambda x, s: x * s)
    x = sb.asarray(np.ones(3, np.float32))
    for s in (2.0, 3.0, 4.0):  # np.float64 scalars: 0-d device inputs, as CuPy computes
        got = jf(x, np.float64(s))
        np.testing.assert_allclose(got.get(), s)
        assert got.dtype == (x * np.float64(s)).dtype
    assert next(iter(jf.cache.values())).tier == "cuda graph"
    assert fake.launches == 2

    def g(x):
        return x * 2.0 if float(x.sum()) > 0 else x * 3.0

    jg = ft.jit(g)
    for v in (1.0, 2.0, -1.0):
        np.testing.assert_allclose(jg(sb.asarray(np.full(2, v))).get(), v * (2.0 if v > 0 else 3.0))
    assert fake.launches == 2  # only jf's


def test_off_by_default(monkeypatch):
    monkeypatch.delenv("FTRANSFORMS_JIT_CUDA_GRAPHS", raising=False)
    assert cuda_graph.mode() == "never"
    jf = ft.jit(lambda x: x * 2.0)
    x = sb.asarray(np.ones(2))
    jf(x)
    jf(x)
    assert "cuda graph" not in next(iter(jf.cache.values())).tier


def test_numpy_float_scalar_beside_a_device_array_under_jit():
    """``cupy_x * np.float64(s)`` is CuPy's arithmetic eagerly; under ``jit`` the scalar is
    an input (a 0-d array) on the device too, not a NumPy array mixed with a CuPy one."""
    jf = ft.jit(lambda x, s: x * s + 1.0)
    for dtype in (np.float32, np.float64):
        x = sb.asarray(np.arange(3, dtype=dtype))
        for s in (2.0, 3.0, 4.0):
            want = x * np.float64(s) + 1.0
            got = jf(x, np.float64(s))
            assert type(got) is sb.StrictArray and got.dtype == want.dtype
            np.testing.assert_array_equal(got.get(), want.get())
    np.testing.assert_array_equal(jf(np.ones(2), np.float64(3.0)), np.full(2, 4.0))


def test_a_scan_with_products_in_its_body_is_captured(fake):
    """A recurrent net's step (``scan``) multiplies matrices: the body's own driver takes
    the capturable product while capturing, and the replay's body is put back after."""

    def loss(p, xs):
        wx, wh = p

        def step(h, x):
            h = np.tanh(x @ wx + h @ wh)
            return h, np.sum(h)

        h, ys = ft.lax.scan(step, np.zeros_like(wh[0]), xs)
        return np.sum(ys) + np.sum(h**2)

    f = ft.vmap(ft.grad(loss), in_dims=(None, 0))
    jf = ft.jit(f, compile=False)
    rng = np.random.default_rng(3)
    p = (sb.asarray(rng.normal(size=(3, 4)) * 0.5), sb.asarray(rng.normal(size=(4, 4)) * 0.5))
    for _ in range(3):
        xs = sb.asarray(rng.normal(size=(2, 5, 3)))
        assert_tree_close(sb.to_numpy(jf(p, xs)), sb.to_numpy(f(p, xs)), **TOL)
    program = next(iter(jf.cache.values()))
    assert program.tier == "cuda graph"
    assert fake.gemm_calls > 0 and fake.launches == 2
    nodes = [e.prim for e in program.eqns if hasattr(e.prim, "subprograms")]
    assert nodes
    for node in nodes:  # the replay's own bodies, not the capture's
        for sub in node.subprograms.values():
            assert all(e.xp is sb.xp for e in sub.eqns if e.prim.name == "matmul")


def _column_major(x, rows, cols, ld, op, batch, stride):
    """The (batch of) matrices cuBLAS reads at ``x``'s first element: column-major
    ``rows x cols`` with leading dimension ``ld`` (transposed first where ``op`` is T)."""
    it = x.itemsize
    if op == 0:
        return np.lib.stride_tricks.as_strided(x, (batch, rows, cols), (stride * it, it, ld * it))
    stored = np.lib.stride_tricks.as_strided(x, (batch, cols, rows), (stride * it, it, ld * it))
    return stored.transpose(0, 2, 1)


def _layouts(rng, shape):
    """An array of ``shape`` in several memory layouts: C, F, per-matrix transposed, a
    column slice, a strided batch."""
    base = rng.normal(size=shape).astype(np.float32)
    yield base
    yield np.asfortranarray(base)
    t = np.ascontiguousarray(np.swapaxes(base, -1, -2))
    yield np.swapaxes(t, -1, -2)
    wide = rng.normal(size=(*shape[:-1], shape[-1] + 3)).astype(np.float32)
    yield wide[..., 1 : 1 + shape[-1]]
    if len(shape) == 3:
        yield rng.normal(size=(2 * shape[0], *shape[1:])).astype(np.float32)[::2]


@pytest.mark.parametrize(
    "a_shape, b_shape",
    [((3, 4), (4, 5)), ((2, 3, 4), (2, 4, 5)), ((3, 4), (2, 4, 5)), ((2, 3, 4), (4, 5)),
     ((1, 4), (4, 1)), ((3, 1), (1, 5))],
)  # fmt: skip
def test_gemm_plan_reads_what_matmul_multiplies(a_shape, b_shape):
    """The arguments the capturable product gives cuBLAS, read back as cuBLAS reads memory
    (column-major, leading dimensions, batch strides), multiply to ``a @ b``."""
    rng = np.random.default_rng(4)
    for a in _layouts(rng, a_shape):
        for b in _layouts(rng, b_shape):
            plan = cuda_graph.gemm_plan(a, b)
            if not all(x.itemsize in x.strides[-2:] for x in (a, b)):
                assert plan is None  # (a 3-D F-ordered array: no matrix axis of unit stride)
                continue
            assert plan is not None, (a.strides, b.strides)
            batch, op_b, op_a, n, m, k, ldb, sb_, lda, sa = plan
            bm = _column_major(b, n, k, ldb, op_b, batch, sb_)  # b^T: n x k
            am = _column_major(a, k, m, lda, op_a, batch, sa)  # a^T: k x m
            got = np.matmul(bm, am).transpose(0, 2, 1)  # (c^T)^T, row-major
            want = np.matmul(a, b)
            np.testing.assert_allclose(got.reshape(want.shape), want, rtol=1e-5, atol=1e-6)


def test_gemm_plan_leaves_other_products_to_cupy():
    x = np.ones((3, 4), np.float32)
    assert cuda_graph.gemm_plan(x, np.ones((4, 5), np.float64)) is None  # mixed dtypes
    assert cuda_graph.gemm_plan(x.astype(np.complex64), x.T.astype(np.complex64)) is None
    assert (
        cuda_graph.gemm_plan(np.ones((2, 3, 4), np.float32), np.ones((3, 4, 5), np.float32)) is None
    )
    assert cuda_graph.gemm_plan(x[:, ::2], np.ones((2, 5), np.float32)) is None  # no unit stride
    assert cuda_graph.gemm_plan(np.ones((2, 2, 3, 4), np.float32), x.T) is None  # 4-D


def _op_cases():
    from tests.test_ops_strict import _cases

    return _cases("test_forward_on_strict_backend")


@pytest.mark.slow
@pytest.mark.parametrize("name", _op_cases())
def test_the_op_database_through_the_graph_tier(fake, name):
    """Every entry the stand-in runs, jitted with the tier on: the recording, the first
    launch (same values) and a launch on the next sample's values equal eager NumPy."""
    from tests.op_db import FNP
    from tests.test_ops import bind
    from tests.test_ops_strict import BY_NAME, F64, _assert_on_device_and_equal, _strict

    op = BY_NAME[name]
    f, operands = bind(op, FNP, op.samples(F64, 0)[0])
    _, new = bind(op, FNP, op.samples(F64, 1)[0])  # (its static parameters are f's)
    jf = ft.jit(f)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (value-dependent entries say so: they stay eager)
        got = [jf(*[_strict(a) for a in args]) for args in (operands, operands, new)]
    for g, args, what in zip(got[1:], (operands, new), ("same values", "new values")):
        _assert_on_device_and_equal(g, f(*args), op, f"graph tier, {what}: {name}")
