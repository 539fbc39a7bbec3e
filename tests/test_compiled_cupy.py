"""The compiled tier on CuPy arrays (``ftransforms/compiled/cupy_driver.py``, NOTE [CuPy
kernels]), on the strict CuPy stand-in: its ``ElementwiseKernel``/``ReductionKernel``
check the generated CUDA C (declared names, one type per operation: a float32 kernel
that touches a double is refused, CUDA's function names) and evaluate it with NumPy
(``ftransforms/strict_backend_kernels.py``); they record every call.

Oracles: the replay of the same recorded program (CuPy calls, here the stand-in's NumPy),
and the eager function; float32 within ``1e-6`` and float64 within ``1e-12`` of the
largest magnitude (as ``tests/test_compiled_tier.py``).
"""

from __future__ import annotations

import numpy as np
import pytest

import ftransforms as ft
from ftransforms import loop_vjp
from ftransforms import strict_backend as sb
from ftransforms.compiled import cupy_backend, cupy_driver, lowering, tier
from ftransforms.program import ControlNode
from ftransforms.pytree import tree_flatten
from ftransforms.strict_backend_kernels import KernelSourceError

RNG = np.random.default_rng(0)


def data(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


def dev(*arrays):
    return [sb.asarray(a) for a in arrays]


def program_of(jitted):
    (program,) = jitted.cache.values()
    return program


def assert_close(got, want, dtype):
    got = got.get() if type(got) is sb.StrictArray else np.asarray(got)
    want = want.get() if type(want) is sb.StrictArray else np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape
    tol = 1e-6 if np.dtype(dtype) == np.float32 else 1e-12
    finite = np.isfinite(want)
    scale = max(float(np.max(np.abs(want[finite]), initial=0.0)), 1.0)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(got[np.isinf(want)], want[np.isinf(want)])
    np.testing.assert_allclose(got[finite], want[finite], rtol=0, atol=tol * scale)


def _segment_runs(program):
    """The SegmentRun objects the compiled driver (and its sub-programs') call."""
    runs = []
    fns = [program._fn] + [
        sub
        for e in program.eqns
        if isinstance(e.prim, ControlNode)
        for sub in e.prim.subprograms.values()
    ]
    for fn in fns:
        code = getattr(fn, "__globals__", {})
        runs += [v for k, v in code.items() if isinstance(v, cupy_driver.SegmentRun)]
    return runs


def compiled_and_replayed(fn, *args, dtype=np.float64, calls=1):
    """``jit(fn)`` on stand-in arrays, compiled: equal to the replay and to ``fn`` on
    NumPy arrays; every kernel called ``calls`` times per call; returns the program."""
    jitted = ft.jit(fn, compile=False)
    first = jitted(*args)
    program = program_of(jitted)
    assert tier.compile_now(program), program.tier
    assert program.tier == "compiled"
    runs = _segment_runs(program)
    assert runs, "a segment is called by the driver"
    kernels = [k for r in runs for step in r.steps if step[0] == "kernel" for k in [step[2]]]
    before = [len(k.calls) for k in kernels]
    got = jitted(*args)
    after = [len(k.calls) for k in kernels]
    if calls is not None:
        assert [a - b for a, b in zip(after, before)] == [calls] * len(kernels)
    for avals, spec, k in [
        (r.seg.avals, st[1], st[2]) for r in runs for st in r.steps if st[0] == "kernel"
    ]:
        # the arguments: the views it reads (broadcast to the nest for a reduction), then
        # the arrays it writes, each of its declared dtype
        want = [(v.shape, avals[v.base][1]) for v in spec.views]
        if spec.kind == "reduction":
            want = [(spec.shape, d) for _, d in want]
        else:
            want += [avals[s] for s in spec.outs]
        assert k.calls[-1]["args"] == want, (spec.name, k.calls[-1], want)
    replay = program._compiled()(*[a for a in tree_flatten(args)[0] if hasattr(a, "shape")])
    host = fn(*sb.to_numpy(args))  # the same function on NumPy arrays
    got_leaves = tree_flatten(got)[0]
    for g, r, e, f in zip(
        got_leaves, tree_flatten(replay)[0], tree_flatten(host)[0], tree_flatten(first)[0]
    ):
        assert type(g) is sb.StrictArray, type(g)
        assert_close(g, r, dtype)
        assert_close(g, e, dtype)
        assert g.dtype == f.dtype
    return program


# -- the generated sources ----------------------------------------------------------------


def _segments(f, *arrays):
    prog = ft.make_program(f)(*dev(*arrays))
    avals = [(a.shape, a.dtype) for a in arrays]
    items = lowering.plan(prog.eqns, prog.n_inputs, prog.out_refs, avals, xp=sb.xp)
    return [i for i in items if isinstance(i, lowering.Segment)]


def test_a_reduction_recomputes_its_values_in_a_device_function():
    f = lambda x: np.max(x * 2.0 + 1.0, axis=1) - 0.5
    (seg,) = _segments(f, data(3, 4))
    specs = cupy_backend.segment_kernels(seg)
    assert [s.kind for s in specs] == ["reduction", "elementwise"]
    red = specs[0]
    assert red.preamble.startswith("__device__ inline double ft_map(double a0) {")
    assert red.map_expr == "ft_map(a0)" and red.reduce_type == "double"
    assert red.reduce_expr == "(a > b || a != a) ? a : b"  # NaN from either side wins
    assert red.identity == "-__longlong_as_double(0x7ff0000000000000LL)"
    assert red.axis == (1,) and red.keepdims is False


def test_float32_sources_never_touch_double_and_math_has_cuda_names():
    f = lambda x: np.arcsin(np.tanh(x * 0.5) - 0.25) * 3.0 + np.maximum(x, -1.5)
    (seg,) = _segments(f, data(8, dtype=np.float32))
    (spec,) = cupy_backend.segment_kernels(seg)
    assert "double" not in spec.operation and "asin(" in spec.operation
    assert "arcsin" not in spec.operation
    assert "(-1.5f)" in spec.operation  # a negative literal, parenthesized
    sb.xp.ElementwiseKernel(spec.in_params, spec.out_params, spec.operation, spec.name)


def test_the_stand_in_refuses_what_a_gpu_would_round_differently():
    make = sb.xp.ElementwiseKernel
    with pytest.raises(KernelSourceError, match="float and double"):
        make("float32 x", "float32 y", "y = (float)(x * 2.0);")  # promoted to double
    with pytest.raises(KernelSourceError, match="unknown function arcsin"):
        make("float32 x", "float32 y", "y = arcsin(x);")
    with pytest.raises(KernelSourceError, match="'--'"):
        make("float32 x", "float32 y", "y = x --1.0f;")
    with pytest.raises(KernelSourceError, match="never written"):
        make("float32 x", "float32 y, float32 z", "y = x;")
    with pytest.raises(KernelSourceError, match="not declared"):
        make("float32 x", "float32 y", "y = x + w;")
    with pytest.raises(KernelSourceError, match="assigned a bool"):
        make("float32 x", "float32 y", "y = x > 0.0f;")
    k = make("float32 x", "float32 y", "y = x * 2.0f;", "twice")
    with pytest.raises(sb.HostConversionError):
        k(np.ones(3, np.float32), sb.xp.empty(3, np.float32))  # a host array
    with pytest.raises(TypeError, match="declared float32"):
        k(sb.asarray(np.ones(3)), sb.xp.empty(3, np.float32))
    out = sb.xp.empty((2, 3), np.float32)
    k(sb.asarray(np.arange(3, dtype=np.float32)), out)
    np.testing.assert_array_equal(out.get(), np.tile(np.arange(3.0) * 2, (2, 1)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
def test_generated_kernels_evaluate_to_numpy(dtype):
    """Each kernel of a segment, run on the stand-in, equals NumPy on its views."""

    def f(u, v):
        outer = np.reshape(u, (4, 1, 6)) * np.reshape(v, (4, 5, 1))
        t = np.transpose(np.maximum(outer, 0.5) * 2.0 - outer, (0, 2, 1))
        return t, np.where(t > 0.1, t, -t) * 0.5 + 1.0

    u, v = data(4, 6, dtype=dtype), data(4, 5, dtype=dtype)
    (seg,) = _segments(f, u, v)
    specs = cupy_backend.segment_kernels(seg)
    run = cupy_driver.SegmentRun(sb.xp, seg, specs)
    outs = run(*dev(u, v))
    want = f(u, v)
    for slot, got in zip(seg.outputs, outs):
        assert (got.shape, got.dtype) == seg.avals[slot] and got.dtype == dtype
    (t, w) = want
    # the segment's outputs, seen through its post views, are the function's outputs
    prog = ft.make_program(f)(*dev(u, v))
    env = dict(zip(seg.outputs, outs))
    for e in seg.post:
        env[e.out] = e.prim.impl(sb.xp, env[e.refs[0]], **e.params)
    for ref, wanted in zip(prog.out_refs, (t, w)):
        assert_close(env[ref], wanted, dtype)


# -- the driver: one kernel call per segment, results equal the replay ---------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
def test_elementwise_chain_its_gradient_and_per_sample_gradients(dtype):
    def chain(x):
        for _ in range(3):
            x = np.tanh(np.sin(x) * 1.5 + 0.25) ** 2
        return x

    (x,) = dev(data(8, dtype=dtype))
    prog = compiled_and_replayed(chain, x, dtype=dtype)
    assert prog._fn.n_kernels == 1 and " = k" in prog._fn.source
    compiled_and_replayed(ft.grad(lambda v: np.sum(chain(v))), x, dtype=dtype)
    (xs,) = dev(data(3, 8, dtype=dtype))
    compiled_and_replayed(ft.vmap(ft.grad(lambda v: np.sum(chain(v)))), xs, dtype=dtype)


@pytest.mark.parametrize(
    "red,axis,keepdims",
    [
        (np.sum, None, False),
        (np.sum, (0, 2), True),
        (np.max, 1, False),
        (np.max, -1, True),
        (np.min, 0, False),
        (np.mean, (1, 2), False),
    ],
)
def test_reductions_are_reduction_kernels(red, axis, keepdims):
    f = lambda x: red(np.exp(x * 0.5) - x * x + 1.0, axis=axis, keepdims=keepdims) * 2.0 - 1.0
    prog = compiled_and_replayed(f, *dev(data(3, 4, 5)))
    kinds = [s[1].kind for r in _segment_runs(prog) for s in r.steps if s[0] == "kernel"]
    assert "reduction" in kinds


def test_nan_inf_and_overflow_as_numpy():
    x = np.array([0.0, -0.0, 1.0, np.inf, -np.inf, np.nan, 1e30, -3.0], np.float32)
    y = np.array([0.0, 0.0, 0.0, 1.0, np.nan, 2.0, 1e30, 0.0], np.float32)

    def f(x, y):
        q = x / y + x * y - np.maximum(x, y) + np.minimum(x, y) * 0.5
        return q, np.where(x > y, x, y * 2.0) + 1.0 - np.abs(y) * np.inf

    with np.errstate(all="ignore"):
        compiled_and_replayed(f, *dev(x, y), dtype=np.float32)
    g = lambda x: np.max(x * 2.0 - 1.0, axis=0) + np.min(x * 3.0 + 1.0, axis=0)
    z = np.array([[1.0, np.nan, -np.inf], [np.inf, 2.0, np.nan]])
    compiled_and_replayed(g, *dev(z))


def test_broadcasts_transposes_comparisons_and_casts():
    def f(a, b, c):
        outer = np.reshape(a, (4, 1, 6)) * np.reshape(b, (4, 5, 1))
        t = np.transpose(outer, (0, 2, 1)) + 1.0
        mask = (t > 0.5).astype(np.float64)
        return t * mask - np.broadcast_to(c, (4, 6, 5)) * 2.0, np.sum(mask * t, axis=(0, 1))

    compiled_and_replayed(f, *dev(data(4, 6), data(4, 5), data(5)))


def test_0d_device_inputs():
    f = lambda x, s: (x * s + 1.0) * (x - s) * 3.0 + s * 2.0
    compiled_and_replayed(f, *dev(data(5), np.asarray(1.5)))


def test_per_sample_gradients_of_an_mlp_keep_matmul_a_backend_call():
    def loss(p, x, y):
        w1, b1, w2, b2 = p
        h = np.tanh(x @ w1.T + b1)
        logits = h @ w2.T + b2
        m = logits.max()
        return np.log(np.sum(np.exp(logits - m))) + m - logits[y]

    p = tuple(dev(data(16, 8), data(16), data(3, 16), data(3)))
    x, y = sb.asarray(data(4, 8)), sb.asarray(np.array([0, 2, 1, 0]))
    prog = compiled_and_replayed(ft.vmap(ft.grad(loss), in_dims=(None, 0, 0)), p, x, y)
    assert "matmul" in [e.prim.name for e in prog.eqns]


def _step(carry, x):
    h, c = carry
    z = np.tanh(h * 0.5 + x) * c + 1.0
    return (z * z - h, c * 0.9 + z), np.sum(z * h)


def test_control_flow_bodies_get_kernels():
    xs = sb.asarray(data(6, 5))
    h0 = tuple(dev(data(5), data(5)))
    prog = compiled_and_replayed(lambda h, xs: ft.scan(_step, h, xs), h0, xs, calls=None)
    (node,) = [e.prim for e in prog.eqns if isinstance(e.prim, ControlNode)]
    assert hasattr(node.subprograms["step"], "n_kernels")
    body = lambda i, c: (c[0] * 0.5 + np.sin(c[1]) * 0.1 + 1.0, c[1] * c[0] - 0.5 * c[1])
    compiled_and_replayed(lambda c: ft.fori_loop(0, 7, body, c), h0, calls=None)
    compiled_and_replayed(
        lambda x: ft.cond(
            np.sum(x) > 0, lambda v: v * 2.0 + v * v - 1.0, lambda v: v * 3.0 - v * v + 1.0, x
        ),
        sb.asarray(data(5)),
        calls=None,
    )


def test_the_steps_of_an_unrolled_loop_share_their_kernels(monkeypatch):
    """``jit(grad(scan))`` with the structured loop vjp off (as where it falls back: NOTE
    [loops under a reverse level in jit]) records the loop unrolled: every step's segment
    reads other slots, yet its kernels are the same source (identifiers numbered in
    order), so they are made, and compiled by NVRTC on a GPU, once per process, not once
    per step."""
    monkeypatch.setattr(cupy_driver, "_KERNELS", {})
    monkeypatch.setitem(loop_vjp.STRUCTURED, "enabled", False)
    xs = sb.asarray(data(6, 5))
    h0 = tuple(dev(data(5), data(5)))
    loss = lambda h, xs: np.sum(ft.scan(_step, h, xs)[1])
    prog = compiled_and_replayed(ft.grad(loss), h0, xs, calls=None)
    steps = [s for r in _segment_runs(prog) for s in r.steps if s[0] == "kernel"]
    assert len(steps) >= 6, len(steps)  # a kernel (or more) per step of the 6
    made = {id(s[2]) for s in steps}
    assert len(made) == len(cupy_driver._KERNELS) <= len(steps) // 3, (len(made), len(steps))


def test_a_one_element_device_constant_is_a_literal_of_its_dtype():
    """A closed-over 0-d device array neither splits the segment nor weakens promotion:
    float32 values compare against a float64 constant in float64, as NumPy and CuPy do."""

    def f_of(c):
        return lambda x: np.where(x > c, x * 2.0, x - 1.0) * 3.0 + (x == c) + x * c

    f = f_of(sb.asarray(np.float64(0.1)))
    x = np.full(4, 0.1, dtype=np.float32)
    prog = ft.make_program(f)(*dev(x))
    items = lowering.plan(prog.eqns, prog.n_inputs, prog.out_refs, [(x.shape, x.dtype)], xp=sb.xp)
    assert [type(i).__name__ for i in items] == ["Segment"]  # every equation in one kernel
    jitted = ft.jit(f, compile=False)
    jitted(sb.asarray(x))
    program = program_of(jitted)
    assert tier.compile_now(program) and program.tier == "compiled"
    got = jitted(sb.asarray(x))
    assert_close(got, program._compiled()(sb.asarray(x)), np.float64)
    assert_close(got, f_of(np.float64(0.1))(x), np.float64)


# -- the policy ---------------------------------------------------------------------------


def test_device_programs_compile_without_numba(monkeypatch):
    monkeypatch.setattr(tier, "available", lambda: False)
    monkeypatch.setenv("FTRANSFORMS_JIT_COMPILE", "always")
    f = ft.jit(lambda x: np.tanh(np.sin(x) * 1.5 + 0.25) * x - x)
    (x,) = dev(data(4))
    f(x)
    assert program_of(f).tier == "compiled"
    g = ft.jit(lambda x: np.tanh(np.sin(x) * 1.5 + 0.25) * x - x)
    g(data(4))  # NumPy arrays: numba's tier, absent here
    assert program_of(g).tier == "replay"


def test_a_namespace_without_user_kernels_keeps_the_replay(monkeypatch):
    monkeypatch.delattr(sb.xp, "ElementwiseKernel")
    f = ft.jit(lambda x: np.tanh(np.sin(x) * 1.5 + 0.25) * x - x, compile=False)
    f(sb.asarray(data(4)))
    assert f.compile() == 0 and program_of(f).tier.startswith("replay")


def test_auto_compiles_hot_device_programs_and_times_them_synchronized(monkeypatch):
    monkeypatch.setattr(tier, "HOT_CALLS", 3)
    monkeypatch.setattr(tier, "TRIAL_CALLS", 2)
    monkeypatch.setenv("FTRANSFORMS_JIT_COMPILE", "auto")
    synced = []
    monkeypatch.setattr(cupy_driver, "synchronizer", lambda xp: lambda: synced.append(1))
    chain = lambda x: np.tanh(np.sin(x) * 1.5 + 0.25) * x - x * x
    f = ft.jit(chain)
    (x,) = dev(data(8))
    f(x)  # records
    program = program_of(f)
    for _ in range(2):
        f(x)
    assert program.tier == "replay"  # not hot yet
    f(x)  # the third replay: compiled in the background from here
    _wait(program)
    for _ in range(6):
        assert_close(f(x), chain(x.get()), np.float64)
    assert program.tier in ("compiled", "replay (measured faster)"), program.tier
    assert len(synced) >= 2 * 2 * tier.TRIAL_CALLS  # before and after every timed call


def test_compile_true_compiles_in_the_background():
    f = ft.jit(lambda x: np.tanh(np.sin(x) * 1.5 + 0.25) * x - x, compile=True)
    (x,) = dev(data(4, dtype=np.float32))
    f(x)
    _wait(program_of(f))
    assert program_of(f).tier == "compiled"
    assert f(x).dtype == np.float32


def _wait(program, seconds=60.0):
    import time

    t0 = time.perf_counter()
    while program.tier == "compiling" and time.perf_counter() - t0 < seconds:
        time.sleep(0.01)


def test_kernels_are_made_once_per_process():
    f = lambda x: np.cos(np.sin(x) * 1.25 + 0.5) * x - x * 0.75
    (x,) = dev(data(6))
    made = []
    for _ in range(2):
        j = ft.jit(f, compile=False)
        j(x)
        j.compile()
        made.append({id(s[2]) for r in _segment_runs(program_of(j)) for s in r.steps})
    assert made[0] == made[1] and len(made[0]) == 1


def test_a_source_the_stand_in_refuses_fails_the_compile_and_the_replay_stays(monkeypatch):
    monkeypatch.setattr(cupy_backend, "_FUNCTIONS", {})  # arcsin printed as arcsin
    monkeypatch.setattr(cupy_driver, "_KERNELS", {})
    f = ft.jit(lambda x: np.arcsin(np.tanh(x) * 0.5) * 2.0 + x, compile=False)
    (x,) = dev(data(4))
    want = f(x)
    assert f.compile() == 0
    assert program_of(f).tier.startswith("replay (compilation failed: KernelSourceError")
    assert_close(f(x), want, np.float64)


# -- the op database's lowered ops, with the tier forced, on the stand-in ------------------

LOWERED = sorted(set(lowering.ELEMENTWISE) | set(lowering.REDUCTIONS) | {"select", "convert"})


def _op_params():
    from tests.test_jit_ops import params

    out, seen = [], set()
    for p in params("vmap_vjp"):
        name, k, dtype, _ = p.values
        # select's samples bind NumPy arrays (its condition) into the function: the
        # stand-in refuses to mix them with device arrays, as CuPy does
        if name in LOWERED and name != "select" and (name, dtype) not in seen and not p.marks:
            seen.add((name, dtype))
            out.append(p)
    return out


@pytest.mark.parametrize("name,k,dtype,kind", _op_params())
def test_op_database_on_the_stand_in_with_the_tier_forced(name, k, dtype, kind, monkeypatch):
    from tests.test_jit_ops import build

    monkeypatch.setenv("FTRANSFORMS_JIT_COMPILE", "always")
    fn, args, _ = build(name, k, np.dtype(dtype), kind)
    to_dev = lambda t: [sb.asarray(a) if isinstance(a, np.ndarray) else a for a in t]  # noqa: E731
    leaves, spec = tree_flatten(list(args))
    dev_args = __import__("ftransforms").pytree.tree_unflatten(spec, to_dev(leaves))
    want = fn(*args)
    jitted = ft.jit(fn)
    jitted(*dev_args)
    got = jitted(*dev_args)
    program = program_of(jitted)
    assert program.tier in ("compiled", "replay (nothing to compile)"), program.tier
    for g, w in zip(tree_flatten(got)[0], tree_flatten(want)[0]):
        if isinstance(w, np.ndarray) and w.dtype.kind == "f":
            assert type(g) is sb.StrictArray
            assert_close(g, w, w.dtype)


def test_a_reshape_inside_a_segment_and_bool_outputs():
    def f(x):
        y = np.reshape(np.sin(x * 0.5) * 2.0 + 1.0, (6, 4))  # a real reshape, in the segment
        z = y * 3.0 - np.sum(y, axis=0) * 0.5
        return z * z + 1.0, (y > 1.5) == (z < 0.0)

    x = sb.asarray(data(4, 6))
    prog = compiled_and_replayed(f, x)
    segs = [s for r in _segment_runs(prog) for s in r.steps if s[0] == "reshape"]
    assert segs, "the reshape runs between two kernels of one segment"
    assert program_of_out_dtypes(prog) >= {np.dtype(bool)}


def program_of_out_dtypes(prog):
    return {np.dtype(e.avals[1]) for e in prog.eqns if e.out in prog.out_refs}


def test_maximum_and_minimum_follow_cupys_rule_on_ties_and_nan():
    # CuPy 14.2 on an H100 (benchmarks/gpu_check.py profile, 2026-11-27):
    # cupy.maximum(-0.0, 0.0) and (0.0, -0.0) are both 0.0, cupy.minimum both -0.0, and a
    # NaN on either side propagates (NumPy's loops instead give the second operand on a tie)
    a = np.array([-0.0, 0.0, np.nan, 1.0, -2.0])
    b = np.array([0.0, -0.0, 1.0, np.nan, -3.0])

    def f(x, y):
        return 1.0 / np.maximum(x, y) + 0.0 * x, 1.0 / np.minimum(x, y) + 0.0 * y

    jitted = ft.jit(f, compile=False)
    jitted(*dev(a, b))
    program = program_of(jitted)
    assert tier.compile_now(program) and program.tier == "compiled"
    hi, lo = (v.get() for v in jitted(*dev(a, b)))
    np.testing.assert_array_equal(hi, [np.inf, np.inf, np.nan, np.nan, -0.5])
    np.testing.assert_array_equal(lo, [-np.inf, -np.inf, np.nan, np.nan, -1 / 3])
