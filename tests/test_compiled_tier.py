"""The compiled tier behind ``ft.jit`` (``ftransforms/compiled``, NOTE [compiled tier]).

Oracles: the replay of the same recorded program (``program._compiled()``, plain NumPy)
and the eager function; float32 within ``1e-6`` and float64 within ``1e-12`` of the
largest magnitude (the tolerances of ``tests/test_jit_ops.py``: the kernels evaluate the
same operations, with libm's math functions instead of NumPy's and float64 sums
accumulated in order instead of pairwise).  The op database's jit checks run again with
the tier forced on
(``FTRANSFORMS_JIT_COMPILE=always``) over the entries whose programs it lowers.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.compiled import lowering, tier
from ftransforms.compiled.numba_backend import kernel_source
from ftransforms.program import ControlNode
from ftransforms.pytree import tree_flatten

HAVE_NUMBA = tier.available()
needs_numba = pytest.mark.skipif(not HAVE_NUMBA, reason="the optional compiler (numba)")


@pytest.fixture(autouse=True)
def _cache_in_tmp(tmp_path_factory, monkeypatch):
    # one cache folder for the session: the kernels that repeat are compiled once
    from ftransforms.compiled import cache

    folder = tmp_path_factory.getbasetemp() / "ftcache"
    monkeypatch.setenv("FTRANSFORMS_CACHE_DIR", str(folder))
    monkeypatch.setattr(cache, "_DIR", None)


def program_of(jitted):
    (program,) = jitted.cache.values()
    return program


def assert_close(got, want, dtype):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape
    tol = 1e-6 if np.dtype(dtype) == np.float32 else 1e-12
    scale = max(float(np.max(np.abs(want[np.isfinite(want)]), initial=0.0)), 1.0)
    both = np.isfinite(want)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(got[np.isinf(want)], want[np.isinf(want)])
    np.testing.assert_allclose(got[both], want[both], rtol=0, atol=tol * scale)


def compiled_and_replayed(fn, *args, dtype=np.float64):
    """Run ``jit(fn)`` with the tier forced; check the compiled call against the replay
    and the eager call; returns the program."""
    jitted = ft.jit(fn, compile=False)
    first = jitted(*args)
    program = program_of(jitted)
    assert tier.compile_now(program), program.tier
    assert program.tier == "compiled"
    got = jitted(*args)
    replay = tree_flatten(program._compiled()(*_arrays(args)))[0]
    got_leaves = tree_flatten(got)[0]
    assert len(got_leaves) == len(replay)
    for g, r, e, f in zip(got_leaves, replay, tree_flatten(fn(*args))[0], tree_flatten(first)[0]):
        assert_close(g, r, dtype)
        assert_close(g, e, dtype)
        assert np.asarray(g).dtype == np.asarray(f).dtype
    return program


def _arrays(args):
    """The array leaves jit takes as inputs (NumPy float scalars as 0-d arrays)."""
    leaves = tree_flatten(args)[0]
    return [np.asarray(a) for a in leaves if isinstance(a, (np.ndarray, np.floating))]


RNG = np.random.default_rng(0)


def data(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


# -- what lowers (no compiler needed) -----------------------------------------------------


def test_a_chain_is_one_nest_with_float32_constants():
    prog = ft.make_program(lambda x: np.tanh(np.sin(x) * 1.5 + 0.25))(data(8, dtype=np.float32))
    (seg,) = lowering.plan(prog.eqns, prog.n_inputs, prog.out_refs, [((8,), np.float32)])
    assert [type(i).__name__ for i in seg.items] == ["Nest"]
    src = kernel_source(seg, "k")
    assert "np.float32(1.5)" in src and "np.float32(0.25)" in src
    assert src.count("for i0") == 1  # one loop, every intermediate in a register


def test_views_are_indexing_and_broadcast_loads_are_hoisted():
    f = lambda u, v: (np.reshape(u, (4, 1, 6)) * np.reshape(v, (4, 5, 1)) + 1.0) * 0.5
    prog = ft.make_program(f)(data(4, 6), data(4, 5))
    items = lowering.plan(prog.eqns, prog.n_inputs, prog.out_refs, [((4, 6), "f8"), ((4, 5), "f8")])
    (seg,) = [i for i in items if isinstance(i, lowering.Segment)]
    src = kernel_source(seg, "k")
    assert "reshape" not in src  # unit-axis reshapes are index maps
    # v's element is loaded once per (i0, i1), outside the innermost loop
    inner = src.split("for i2")[0]
    assert "a1[i0, i1]" in inner


def test_large_math_stays_numpy_and_blas_stays_numpy():
    f = lambda x, w: np.tanh(x @ w) * 2.0 + 1.0 - x
    prog = ft.make_program(f)(data(64, 64), data(64, 64))
    items = lowering.plan(prog.eqns, prog.n_inputs, prog.out_refs, [((64, 64), "f8")] * 2)
    names = [i.prim.name if not isinstance(i, lowering.Segment) else "segment" for i in items]
    assert names == ["matmul", "tanh", "segment"]


def test_small_segments_are_left_to_numpy():
    prog = ft.make_program(lambda x: np.sin(x) + 1.0)(data(4))
    items = lowering.plan(prog.eqns, prog.n_inputs, prog.out_refs, [((4,), "f8")])
    assert not any(isinstance(i, lowering.Segment) for i in items)


def test_a_lone_outer_product_gets_a_kernel_when_large():
    """One broadcast product is below MIN_OPS, but NumPy's loop along a stride-0 operand
    writes at a fraction of memory bandwidth: a large one is lowered, a small one and a
    plain row broadcast (stride 0 on an outer axis only) are not."""
    outer = lambda u, v: np.reshape(u, (8, 32, 1)) * np.reshape(v, (8, 1, 32))
    row = lambda u, v: u * v[0]

    def segments(f, shapes):
        args = [data(*s, dtype=np.float32) for s in shapes]
        prog = ft.make_program(f)(*args)
        avals = [(s, np.float32) for s in shapes]
        items = lowering.plan(prog.eqns, prog.n_inputs, prog.out_refs, avals)
        return [i for i in items if isinstance(i, lowering.Segment)]

    assert len(segments(outer, [(8, 32), (8, 32)])) == 1  # 8192 >= OUTER_MIN_SIZE
    assert (
        segments(lambda u, v: np.reshape(u, (2, 4, 1)) * np.reshape(v, (2, 1, 4)), [(2, 4), (2, 4)])
        == []
    )
    assert segments(row, [(256, 32), (4, 32)]) == []
    if HAVE_NUMBA:
        compiled_and_replayed(outer, data(8, 32), data(8, 32))


def test_kernels_compiled_for_c_layout_take_inputs_of_any_layout():
    """Kernels are compiled for C-contiguous inputs where NumPy's results are (matmul,
    reductions, ufuncs of such arrays) and for the program's inputs, which the driver
    makes C-contiguous first: a transposed, strided or Fortran-ordered input gives the
    same result as the replay."""
    f = lambda x, w: np.tanh(x @ w + 1.0) * 2.0 - x * 0.5 + np.sum(x * x, axis=1, keepdims=True)
    x, w = data(6, 5), data(5, 5)
    prog = ft.make_program(f)(x, w)
    items = lowering.plan(prog.eqns, prog.n_inputs, prog.out_refs, [((6, 5), "f8")] * 2)
    lowering.mark_contiguous(items, prog.eqns, [((6, 5), "f8"), ((5, 5), "f8")], 2)
    segs = [i for i in items if isinstance(i, lowering.Segment)]
    assert segs and all(set(s.inputs) <= s.contiguous for s in segs)
    if not HAVE_NUMBA:
        return
    jitted = ft.jit(f, compile=False)
    jitted(x, w)
    program = program_of(jitted)
    assert tier.compile_now(program) and program.tier == "compiled"
    assert any(v is np.ascontiguousarray for v in program._fn.__globals__.values())
    big = data(12, 10)
    for xx in (big[::2, ::2], np.asfortranarray(x), data(5, 6).T, x):
        assert_close(jitted(xx, w), f(xx, w), np.float64)


# -- without the compiler ------------------------------------------------------------------


def test_without_numba_nothing_changes_and_nothing_warns(tmp_path):
    """numba hidden from the import system: jit replays, never imports it, never warns."""
    script = textwrap.dedent(
        """
        import sys, warnings
        sys.modules["numba"] = sys.modules["llvmlite"] = None  # as if not installed
        warnings.simplefilter("error")
        import numpy as np, ftransforms as ft
        from ftransforms.compiled import tier
        f = ft.jit(lambda x: np.tanh(np.sin(x) * 1.5 + 0.25) * x)
        x = np.ones(8)
        for _ in range(3 * tier.HOT_CALLS):
            y = f(x)
        f.compile()
        (p,) = f.cache.values()
        assert not tier.available() and p.tier == "replay", p.tier
        assert sys.modules["numba"] is None and sys.modules["llvmlite"] is None
        print("ok")
        """
    )
    env = {**os.environ, "FTRANSFORMS_JIT_COMPILE": "always"}
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=os.getcwd()
    )
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_never_turns_it_off(monkeypatch):
    monkeypatch.setenv("FTRANSFORMS_JIT_COMPILE", "never")
    f = ft.jit(lambda x: np.tanh(np.sin(x) * 1.5 + 0.25))
    for _ in range(tier.HOT_CALLS + 2):
        f(np.ones(3))
    assert program_of(f).tier == "replay"
    assert tier.mode() == "never"


# -- results equal the replay ------------------------------------------------------------


@needs_numba
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
def test_elementwise_chain_and_its_gradient(dtype):
    def chain(x):
        for _ in range(4):
            x = np.tanh(np.sin(x) * 1.5 + 0.25) ** 2
        return x

    x = data(8, dtype=dtype)
    compiled_and_replayed(chain, x, dtype=dtype)
    compiled_and_replayed(ft.grad(lambda v: np.sum(chain(v))), x, dtype=dtype)
    compiled_and_replayed(
        ft.vmap(ft.grad(lambda v: np.sum(chain(v)))), data(3, 8, dtype=dtype), dtype=dtype
    )


@needs_numba
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
def test_reductions(axis, keepdims, red):
    f = lambda x: red(np.exp(x * 0.5) - x * x + 1.0, axis=axis, keepdims=keepdims) * 2.0 - 1.0
    compiled_and_replayed(f, data(3, 4, 5))


@needs_numba
def test_nan_inf_and_overflow_as_numpy():
    x = np.array([0.0, -0.0, 1.0, np.inf, -np.inf, np.nan, 1e30, -3.0], np.float32)
    y = np.array([0.0, 0.0, 0.0, 1.0, np.nan, 2.0, 1e30, 0.0], np.float32)

    def f(x, y):
        q = x / y + x * y - np.maximum(x, y) + np.minimum(x, y) * 0.5
        return q, np.max(q), np.exp(x * 100.0) - y, np.where(x > y, x, y * 2.0) + 1.0

    with np.errstate(all="ignore"):
        compiled_and_replayed(f, x, y, dtype=np.float32)


@needs_numba
def test_broadcasts_transposes_comparisons_and_casts():
    def f(a, b, c):
        outer = np.reshape(a, (4, 1, 6)) * np.reshape(b, (4, 5, 1))
        t = np.transpose(outer, (0, 2, 1)) + 1.0
        mask = (t > 0.5).astype(np.float64)
        return t * mask - np.broadcast_to(c, (4, 6, 5)) * 2.0, np.sum(mask * t, axis=(0, 1))

    compiled_and_replayed(f, data(4, 6), data(4, 5), data(5))


@needs_numba
@pytest.mark.parametrize(
    "const",
    [np.full(4, 0.1), np.float64(0.1), np.array(0.1), 0.1],
    ids=["uniform_array", "numpy_scalar", "0d_array", "python_float"],
)
def test_comparisons_with_constants_promote_as_numpy(const):
    """float32 values against a float64 constant: NumPy compares in float64 unless the
    constant is a Python float (weak), so float32(0.1) > float64(0.1) is True but
    float32(0.1) > 0.1 is False; a kernel must compare in the same dtype."""

    def f(x):
        y = x * 2.0
        return np.where(x > const, y + 1.0, y - 1.0) * 3.0 + (x == const)

    x = np.full(4, 0.1, dtype=np.float32)
    compiled_and_replayed(f, x, dtype=np.float32)


@needs_numba
def test_integer_operands_and_0d_inputs():
    f = lambda x, s, k: (x * s + 1.0) * (x - s) * k + np.asarray(s) * 3.0
    compiled_and_replayed(f, data(5), np.float64(1.5), np.arange(5))


@needs_numba
def test_per_sample_gradients_of_an_mlp():
    def loss(p, x, y):
        w1, b1, w2, b2 = p
        h = np.tanh(x @ w1.T + b1)
        logits = h @ w2.T + b2
        m = logits.max()
        return np.log(np.sum(np.exp(logits - m))) + m - logits[y]

    p = (
        data(16, 8, dtype=np.float32),
        data(16, dtype=np.float32),
        data(3, 16, dtype=np.float32),
        data(3, dtype=np.float32),
    )
    x, y = data(4, 8, dtype=np.float32), np.array([0, 2, 1, 0])
    compiled_and_replayed(ft.vmap(ft.grad(loss), in_dims=(None, 0, 0)), p, x, y, dtype=np.float32)


# -- control flow: the sub-programs are compiled -----------------------------------------


def _step(carry, x):
    h, c = carry
    z = np.tanh(h * 0.5 + x) * c + 1.0
    return (z * z - h, c * 0.9 + z), np.sum(z * h)


@needs_numba
def test_scan_fori_while_and_cond_bodies():
    xs = data(6, 5)
    h0 = (data(5), data(5))
    prog = compiled_and_replayed(lambda h, xs: ft.scan(_step, h, xs), h0, xs)
    (node,) = [e.prim for e in prog.eqns if isinstance(e.prim, ControlNode)]
    assert hasattr(node.subprograms["step"], "n_kernels")

    body = lambda i, c: (c[0] * 0.5 + np.sin(c[1]) * 0.1 + 1.0, c[1] * c[0] - 0.5 * c[1])
    compiled_and_replayed(lambda c: ft.fori_loop(0, 7, body, c), h0)
    compiled_and_replayed(
        lambda c: ft.while_loop(
            lambda c: np.sum(c[0]) < 40.0, lambda c: (c[0] * 1.5 + 1.0 + c[1] * c[1], c[1]), c
        ),
        h0,
    )
    compiled_and_replayed(
        lambda x: ft.cond(
            np.sum(x) > 0, lambda v: v * 2.0 + v * v - 1.0, lambda v: v * 3.0 - v * v + 1.0, x
        ),
        data(5),
    )
    compiled_and_replayed(
        ft.vmap(lambda h, xs: ft.scan(_step, h, xs)[1], in_dims=(None, 0)), h0, data(3, 6, 5)
    )


@needs_numba
def test_random_draws_stay_eager():
    rng = np.random.default_rng(0)
    draw = lambda x: x * ft.random.normal(rng, size=x.shape) * 2.0 + 1.0 - x  # noqa: E731
    f = ft.jit(draw, compile=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        a, b = f(np.ones(3)), f(np.ones(3))
    assert not np.array_equal(a, b)  # a new draw on every call
    assert program_of(f).value_dependent and program_of(f).tier == "replay"


# -- when it compiles ---------------------------------------------------------------------


@needs_numba
def test_auto_compiles_hot_programs_in_the_background_and_keeps_the_faster(monkeypatch):
    monkeypatch.setattr(tier, "HOT_CALLS", 3)
    monkeypatch.setattr(tier, "TRIAL_CALLS", 2)
    monkeypatch.setenv("FTRANSFORMS_JIT_COMPILE", "auto")
    chain = lambda x: np.tanh(np.sin(x) * 1.5 + 0.25) * x - x * x
    f = ft.jit(chain)
    x = data(8)
    f(x)  # records
    program = program_of(f)
    for _ in range(2):
        f(x)
    assert program.tier == "replay"  # not hot yet
    f(x)  # the third replay: compiled in the background from here
    _wait(program)
    for _ in range(6):  # the trial: both tiers timed on alternate calls
        np.testing.assert_allclose(f(x), chain(x), rtol=1e-12)
    assert program.tier in ("compiled", "replay (measured faster)"), program.tier


@needs_numba
def test_compile_true_and_explicit_compile():
    f = ft.jit(lambda x: np.tanh(np.sin(x) * 1.5 + 0.25) * x - x, compile=True)
    f(data(4))
    _wait(program_of(f))
    assert program_of(f).tier == "compiled"
    g = ft.jit(lambda x: np.tanh(np.sin(x) * 1.5 + 0.25) * x - x, compile=False)
    g(data(4))
    assert program_of(g).tier == "replay"
    assert g.compile() == 1 and program_of(g).tier == "compiled"


def _wait(program, seconds=120.0):
    import time

    t0 = time.perf_counter()
    while program.tier == "compiling" and time.perf_counter() - t0 < seconds:
        time.sleep(0.02)


@needs_numba
def test_a_second_process_loads_from_the_disk_cache(tmp_path):
    script = textwrap.dedent(
        """
        import time, numpy as np, ftransforms as ft
        f = ft.jit(lambda x: np.cos(np.sin(x) * 1.25 + 0.5) * x - x * 0.75, compile=False)
        f(np.ones(6))
        t0 = time.perf_counter(); f.compile(); print(time.perf_counter() - t0)
        """
    )
    env = {**os.environ, "FTRANSFORMS_CACHE_DIR": str(tmp_path)}
    run = lambda: subprocess.run(  # noqa: E731
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True
    )
    run()
    kernels = list((tmp_path / "compiled").glob("ft_*.py"))
    index = list((tmp_path / "compiled").rglob("*.nbi"))
    assert len(kernels) == 1 and index, "the kernel module and numba's index are cached"
    mtime = kernels[0].stat().st_mtime_ns
    run()
    assert kernels[0].stat().st_mtime_ns == mtime  # reused, not rewritten


# -- the op database with the tier forced on ----------------------------------------------

LOWERED = sorted(set(lowering.ELEMENTWISE) | set(lowering.REDUCTIONS) | {"select", "convert"})


def _op_params():
    from tests.op_db import OPS
    from tests.test_jit_ops import params

    names = {op.name for op in OPS if op.name in LOWERED}
    out = []
    for kind in ("f", "vmap_vjp"):
        seen = set()
        for p in params(kind):
            name, k, dtype, _ = p.values
            if name in names and (name, dtype) not in seen:
                seen.add((name, dtype))  # the first sample of each op and dtype
                out.append(p)
    return out


@needs_numba
@pytest.mark.parametrize("name,k,dtype,kind", _op_params())
def test_op_database_jit_with_the_tier_forced(name, k, dtype, kind, monkeypatch):
    from tests.test_jit_ops import check_jit

    monkeypatch.setenv("FTRANSFORMS_JIT_COMPILE", "always")
    check_jit(name, k, dtype, kind)


# -- the CuPy backend's sources, on the strict stand-in ------------------------------------


def test_cupy_kernels_of_a_program_recorded_on_the_strict_backend():
    from ftransforms import strict_backend as sb
    from ftransforms.compiled.cupy_backend import kernel_specs, realize

    def f(u, v):
        outer = np.reshape(u, (4, 1, 6)) * np.reshape(v, (4, 5, 1))
        return np.transpose(np.maximum(outer, 0.5) * 2.0 - outer, (0, 2, 1)), np.sum(v * v)

    u, v = data(4, 6, dtype=np.float32), data(4, 5, dtype=np.float32)
    prog = ft.make_program(f)(sb.asarray(u), sb.asarray(v))
    items = lowering.plan(
        prog.eqns,
        prog.n_inputs,
        prog.out_refs,
        [((4, 6), "f4"), ((4, 5), "f4")],
        xp=sb.xp,
        reductions=False,
    )
    (seg,) = [i for i in items if isinstance(i, lowering.Segment)]
    assert "reduce_sum" in [i.prim.name for i in items if not isinstance(i, lowering.Segment)]
    (ins, outs, op, _), (ins2, outs2, op2, _) = kernel_specs(seg)  # (4, 5, 6) and (4, 5)
    # identifiers numbered in order of appearance (the same kernel over other slots is
    # the same source): the two views, then the output, then the values
    assert ins == "float32 a0, float32 a1" and outs == "float32 a2"
    # NaN-propagating, then CUDA's max (+0 above -0 on a tie, as cupy.maximum)
    assert "float v1 = (float)(((v0 != v0) ? v0 : ((0.5f != 0.5f) ? 0.5f : max(v0, 0.5f))));" in op
    assert "float v2 = (float)(v1 * 2.0f);" in op and "double" not in op  # float32 stays
    assert op.endswith("a2 = v3;")
    assert (ins2, outs2, op2) == (
        "float32 a0",
        "float32 a1",
        "float v0 = (float)(a0 * a0);\na1 = v0;",
    )
    # the views the kernel reads, realized with the backend's own view functions
    views = [
        a[1]
        for n in seg.items
        if isinstance(n, lowering.Nest)
        for o in n.ops
        for a in o.args
        if a[0] == "array"
    ]
    arrays = {0: sb.asarray(u), 1: sb.asarray(v)}
    for view in views:
        got = realize(sb.xp, arrays[view.base], view)
        if view.shape == (4, 5):
            want = v  # the second nest reads v itself
        else:
            want = np.broadcast_to(
                np.reshape(u, (4, 1, 6)) if view.base == 0 else np.reshape(v, (4, 5, 1)), view.shape
            )
        assert type(got).__name__ == "StrictArray"
        np.testing.assert_array_equal(got.get(), want)
