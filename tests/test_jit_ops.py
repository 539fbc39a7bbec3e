"""``jit`` replay over the whole op database (``tests/op_db.py``), and the program passes.

Per entry and sample, for the plain function ``f``, ``vjp`` (primal outputs and the
cotangents of a fixed random cotangent), ``jvp``, ``vmap(f)`` over a batch of samples and
``vmap`` of the ``vjp`` (per-example gradients), in float64 (in float32: ``f`` and ``vmap``
of the ``vjp``, which records the other kinds' rules too): the jitted function gives the
eager result on its first (tracing) call, on a second call with the same inputs (the
replay of the generated program), on a call with new values of the same shapes and
dtypes (another seed of the sampler), and on those values laid out non-contiguously;
none of the calls writes into its inputs or records again.  The unoptimized program
(``make_program(f, optimize=False)``) has at least as many equations and replays the same
results.

Replay runs the same backend calls as the eager function, so results are compared with
tight tolerances (relative ``1e-6`` in float32, ``1e-12`` in float64, scaled by the
largest magnitude of the leaf); the materialized-scalar test below checks bit equality.

Focused tests then check the optimization passes of ``ftransforms/program.py``:
common-call elimination, pre-broadcast scalars, multiple-result primitives, freeing of
intermediates, constant outputs.
"""

from __future__ import annotations

import functools
import gc
import uuid
import warnings
import weakref

import numpy as np
import pytest
import scipy.special as ssp

import ftransforms as ft
import ftransforms.nn as fnn
import ftransforms.numpy as fnp
import ftransforms.scipy.special as fsp
from ftransforms.core.primitive import REGISTRY, defop
from ftransforms.core.stack import current_stack
from ftransforms.core.tracer import Tracer
from ftransforms.jit import _signature as jit_signature
from ftransforms.pytree import tree_flatten
from tests.op_db import BY_NAME, FNP, OPS
from tests.test_ops import bind, operand_positions

SEED, NEW_SEED = 0, 1  # the operands of the traced call, and the new values
BATCH, NEW_BATCH = (1, 2, 3), (4, 5, 6)  # the seeds stacked into vmap batches

# Entries whose trace reads data (``OpEntry.value_dependent``: fnp.peek, a random draw)
# run eagerly under jit, with a warning; any other entry that warns fails.


# -- helpers ------------------------------------------------------------------------------


@functools.cache
def _samples(name: str, dtype: np.dtype, seed: int) -> list:
    return BY_NAME[name].samples(dtype, seed)


def _operands(name: str, k: int, dtype: np.dtype, seed: int) -> list[np.ndarray]:
    s = _samples(name, dtype, seed)[k]
    return [s.args[i] for i in operand_positions(s)]


def _is_float(x) -> bool:
    return np.dtype(getattr(x, "dtype", np.float64)).kind == "f"


def _bind(op, s):
    """``f(*operands)``: the entry through ``fnp`` with the sample's static arguments."""
    return bind(op, FNP, s)[0]


def _diff_positions(op, s) -> list[int]:
    """The operands (indices among them) the derivative functions differentiate."""
    return [
        j
        for j, i in enumerate(operand_positions(s))
        if _is_float(s.args[i]) and op.differentiates(j)
    ]


def _float_outputs(tree) -> tuple:
    return tuple(o for o in tree_flatten(tree)[0] if _is_float(o))


def _derivative_fn(f, n: int, fl: list[int], mode: str):
    """``h(*operands, *extra)``: ``vjp`` of the float outputs of ``f`` in the float
    operands ``fl`` with cotangents ``extra`` (returns the outputs and the cotangents), or
    their ``jvp`` with tangents ``extra``."""

    def h(*vals):
        ops_, extra = vals[:n], vals[n:]

        def g(*fx):
            args = list(ops_)
            for j, v in zip(fl, fx):
                args[j] = v
            return _float_outputs(f(*args))

        fx = tuple(ops_[j] for j in fl)
        if mode == "vjp":
            out, vjp_fn = ft.vjp(g, *fx)
            return out, vjp_fn(tuple(extra))
        return ft.jvp(g, fx, tuple(extra))

    return h


def _random_like(arrays, seed: int, lead: tuple = ()) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(lead + np.shape(a)).astype(a.dtype) for a in arrays]


DIFF_KINDS = ("vjp", "jvp", "vmap_vjp")
KINDS = ("f", "vjp", "jvp", "vmap", "vmap_vjp")
F32_KINDS = ("f", "vmap_vjp")  # float32: the plain function and the richest composition


def build(name: str, k: int, dtype: np.dtype, kind: str):
    """``(fn, args, new_args)`` of one check: the function to jit, the arguments of the
    traced call, and new values of the same shapes and dtypes."""
    op = BY_NAME[name]
    s = _samples(name, dtype, SEED)[k]
    f = _bind(op, s)
    if kind == "f":
        return f, _operands(name, k, dtype, SEED), _operands(name, k, dtype, NEW_SEED)
    batch = [_operands(name, k, dtype, seed) for seed in BATCH]
    new_batch = [_operands(name, k, dtype, seed) for seed in NEW_BATCH]
    stacked = [np.stack(group) for group in zip(*batch)]
    new_stacked = [np.stack(group) for group in zip(*new_batch)]
    if kind == "vmap":
        return ft.vmap(f, randomness=op.randomness), stacked, new_stacked
    operands = _operands(name, k, dtype, SEED)
    fl = _diff_positions(op, s)
    mode = "jvp" if kind == "jvp" else "vjp"
    h = _derivative_fn(f, len(operands), fl, mode)
    h.__name__ = f"{kind}_{name}"
    if mode == "jvp":
        like = [operands[j] for j in fl]
    else:
        like = [np.asarray(o) for o in _float_outputs(f(*operands))]
    if kind == "vmap_vjp":
        return (
            ft.vmap(h, randomness=op.randomness),
            stacked + _random_like(like, 7, (len(BATCH),)),
            new_stacked + _random_like(like, 8, (len(NEW_BATCH),)),
        )
    new_operands = _operands(name, k, dtype, NEW_SEED)
    return h, operands + _random_like(like, 7), new_operands + _random_like(like, 8)


def _rtol(dtype) -> float:
    return 1e-6 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-12


def assert_replayed(got, want, what: str) -> None:
    """Same structure; every leaf a numpy array (never a tracer) of the expected shape and
    dtype, equal up to the dtype's tight relative tolerance (NaN matches NaN)."""
    g_leaves, g_spec = tree_flatten(got)
    w_leaves, w_spec = tree_flatten(want)
    assert g_spec == w_spec, f"{what}: structure {g_spec}, expected {w_spec}"
    for i, (g, w) in enumerate(zip(g_leaves, w_leaves)):
        where = f"{what}, leaf {i}"
        assert not isinstance(g, Tracer), f"{where}: a tracer escaped: {g!r}"
        if not isinstance(w, (np.ndarray, np.generic)):
            assert g == w, f"{where}: {g!r}, expected {w!r}"
            continue
        assert isinstance(g, (np.ndarray, np.generic)), f"{where}: got {type(g).__name__}"
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape, f"{where}: shape {g.shape}, expected {w.shape}"
        assert g.dtype == w.dtype, f"{where}: dtype {g.dtype}, expected {w.dtype}"
        if w.dtype.kind in "fc":
            rtol = _rtol(w.dtype)
            finite = np.abs(w[np.isfinite(w)])
            scale = float(finite.max()) if finite.size else 0.0
            np.testing.assert_allclose(
                g, w, rtol=rtol, atol=rtol * scale, equal_nan=True, err_msg=where
            )
        else:
            np.testing.assert_array_equal(g, w, err_msg=where)


def _strided(a):
    """``a``'s values in a non-contiguous array (every other element of a buffer)."""
    if not isinstance(a, np.ndarray) or a.ndim == 0:
        return a
    buf = np.zeros(a.shape + (2,), a.dtype)
    buf[..., 0] = a
    return buf[..., 0]


def _array_leaves(args) -> list:
    return [v for v in tree_flatten(list(args))[0] if isinstance(v, np.ndarray)]


def _layout_key(args) -> tuple:
    """What jit keys a recording by (shapes, dtypes, layouts), without the values."""
    return jit_signature(tree_flatten(list(args))[0])[0]


def check_jit(name: str, k: int, dtype: np.dtype, kind: str) -> None:
    fn, args, new_args = build(name, k, np.dtype(dtype), kind)
    saved = [np.copy(a) for a in _array_leaves(args) + _array_leaves(new_args)]
    strided_args = [_strided(a) for a in new_args]
    label = f"jit({kind}) {name}"

    want = fn(*args)
    compiled = ft.jit(fn)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = compiled(*args)  # traced
        again = compiled(*args)  # replayed
        new = compiled(*new_args)  # replayed on new values
        strided = compiled(*strided_args)  # ... laid out differently (a recording of its own)
        strided_again = compiled(*strided_args)  # ... replayed
    want_new = fn(*new_args)
    want_strided = fn(*strided_args)

    eager = [w for w in caught if "depends on data" in str(w.message)]
    if eager:
        assert BY_NAME[name].value_dependent, (
            f"{label}: ran eagerly: {eager[0].message}; if the trace must read data, say so "
            f"with value_dependent='<reason>' in its entry in tests/op_db*.py"
        )
        assert issubclass(eager[0].category, RuntimeWarning)
    # one recording per layout of the arguments (NOTE [layout of elementwise results])
    layouts = {_layout_key(a) for a in (args, new_args, strided_args)}
    assert len(compiled.cache) == len(layouts), f"{label}: recorded {len(compiled.cache)} times"
    assert current_stack() == ()
    for before, after in zip(saved, _array_leaves(args) + _array_leaves(new_args)):
        np.testing.assert_array_equal(after, before, err_msg=f"{label}: an input was written")

    # Compared last: a later call must not have changed an earlier result either.
    assert_replayed(first, want, f"{label}: first (tracing) call")
    assert_replayed(again, want, f"{label}: replay, same inputs")
    assert_replayed(new, want_new, f"{label}: replay, new values")
    assert_replayed(strided, want_strided, f"{label}: non-contiguous new values")
    assert_replayed(strided_again, want_strided, f"{label}: replay, non-contiguous new values")

    if eager or np.dtype(dtype) != np.float64:
        return  # (the passes' check: once per op and sample, in float64)
    unoptimized = ft.make_program(fn, optimize=False)(*args)
    if unoptimized.value_dependent:
        # (jit replays it checking the values its Python read: NOTE [checked value reads
        # under jit]; make_program shows one path, which need not hold for new values)
        return
    optimized = ft.make_program(fn)(*args)
    assert len(unoptimized) >= len(optimized), f"{label}: {unoptimized}\nvs\n{optimized}"
    assert unoptimized.recorded == optimized.recorded == len(unoptimized)
    assert_replayed(
        unoptimized.run(_array_leaves(new_args)), want_new, f"{label}: unoptimized replay"
    )


def params(kind: str) -> list:
    out = []
    for op in OPS:
        for dt in op.dtypes:
            if dt == np.float32 and kind not in F32_KINDS:
                continue
            for k, s in enumerate(_samples(op.name, dt, SEED)):
                if kind in DIFF_KINDS and not (op.grads and s.grads and _diff_positions(op, s)):
                    continue
                label = f"{kind}-{op.name}-{s.name}-{dt.name}"
                reason = op.xfail_reason(f"test_jit_{kind}", s)
                marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
                if dt == np.float32 and kind != "f":
                    marks.append(pytest.mark.slow)  # (CI's slow step; float32 'f' runs here)
                out.append(pytest.param(op.name, k, dt, kind, id=label, marks=marks))
    return out


# -- the op database ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "name,k,dtype,kind",
    [p for kind in KINDS for p in params(kind)],
)
def test_jit_replays_the_op_database(name, k, dtype, kind):
    check_jit(name, k, dtype, kind)


# -- focused checks of the passes ---------------------------------------------------------


def replays(fn, args, new_args=None, *, exact=False):
    """Jit ``fn``; check the traced call, the replay and (``new_args``) a replay on new
    values against the eager function.  Returns the jitted function."""
    compiled = ft.jit(fn)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*depends on data")  # no eager fallback
        results = [compiled(*args), compiled(*args)]
        if new_args is not None:
            results.append(compiled(*new_args))
    wants = [fn(*args), fn(*args)] + ([fn(*new_args)] if new_args is not None else [])
    for tag, got, want in zip(("first call", "replay", "replay on new values"), results, wants):
        if exact:
            g_leaves, w_leaves = tree_flatten(got)[0], tree_flatten(want)[0]
            assert len(g_leaves) == len(w_leaves)
            for g, w in zip(g_leaves, w_leaves):
                assert np.asarray(g).dtype == np.asarray(w).dtype, tag
                np.testing.assert_array_equal(g, w, err_msg=tag, strict=True)
        else:
            assert_replayed(got, want, tag)
    assert len(compiled.cache) == 1
    return compiled


def prim_names(program) -> list[str]:
    return [eqn.prim.name for eqn in program.eqns]


def test_cse_keeps_signed_zero_constants_apart():
    def f(x):
        return x + 0.0, x + (-0.0), x * 0.0, x * -0.0

    x = np.array([-0.0, 0.0, 1.5])
    replays(f, (x,), (-x,), exact=True)
    program = ft.make_program(f)(x)
    assert prim_names(program).count("add") == 2 and prim_names(program).count("multiply") == 2
    compiled = ft.jit(f)
    compiled(x)
    for got, want in zip(compiled(x), f(x)):
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def test_cse_keeps_constants_of_other_types_apart():
    def f(x):
        return x + 1, x + 1.0, x + np.float32(1), x + True

    x = np.arange(4)
    replays(f, (x,), (x[::-1].copy(),), exact=True)
    assert [np.asarray(o).dtype for o in ft.jit(f)(x)] == [np.asarray(o).dtype for o in f(x)]


def test_cse_keeps_different_params_apart():
    def f(x):
        return (
            fnp.sum(x, axis=0),
            fnp.sum(x, axis=1),
            fnp.sum(x, axis=1, keepdims=True),
            fnp.transpose(x),
            fnp.transpose(x, (0, 1)),
            fnp.cumsum(x, axis=0),
            fnp.cumsum(x, axis=1),
            x[0],
            x[1],
            x[:, 0],
        )

    x = np.arange(9.0).reshape(3, 3)
    replays(f, (x,), (x * 1.5 - 2.0,))
    program = ft.make_program(f)(x)
    assert prim_names(program).count("reduce_sum") == 3
    assert prim_names(program).count("cumsum") == 2


def test_cse_keeps_int_and_float_params_apart():
    def f(x):
        return (
            fnn.sliding_windows(x, 2, padding=1, pad_value=1),
            fnn.sliding_windows(x, 2, padding=1, pad_value=1.0),
            fnn.sliding_windows(x, 2, padding=1, pad_value=2.0),
        )

    x = np.arange(8.0).reshape(2, 2, 2)
    replays(f, (x,), (x - 3.0,), exact=True)


def test_cse_keeps_signed_zero_params_apart():
    def f(x):
        return (
            fnn.sliding_windows(x, 2, padding=1, pad_value=0.0),
            fnn.sliding_windows(x, 2, padding=1, pad_value=-0.0),
        )

    x = np.zeros((1, 2, 2))
    compiled = ft.jit(f)
    compiled(x)
    for got, want in zip(compiled(x), f(x)):
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def test_cse_shares_repeated_calls():
    def f(x):
        return fnp.sin(x) * fnp.sin(x) + fnp.sum(fnp.sin(x)), fnp.cos(x) + fnp.cos(x)

    x = np.linspace(-1.0, 1.0, 5)
    replays(f, (x,), (2.0 * x,))
    names = prim_names(ft.make_program(f)(x))
    assert names.count("sin") == 1 and names.count("cos") == 1


def test_cse_merged_outputs_are_distinct_arrays():
    def f(x):
        return fnp.sin(x), fnp.sin(x)

    compiled = ft.jit(f)
    x = np.linspace(0.0, 1.0, 3)
    compiled(x)
    a, b = compiled(x)
    a += 1.0
    np.testing.assert_array_equal(b, np.sin(x))


def test_times_one_does_not_return_the_input():
    compiled = ft.jit(lambda x: x * 1)
    x = np.arange(3.0)
    for _ in range(2):  # traced, replayed
        y = compiled(x)
        assert not np.shares_memory(y, x)


# -- materialized (pre-broadcast) scalars

MATERIALIZED_FNS = {
    "arithmetic": lambda x: (x * 0.1 + 3) / 7 - 2.5 * x + 1.0 / (x + 4.0),
    "numpy_scalars": lambda x: np.float32(0.3) * x - np.float64(1e-3) + np.int64(2) * x,
    "big_and_tiny": lambda x: (x * 1e30 + 1e-30, x - 16777217, x / 3e-39),
    "minimum_maximum_where": lambda x: (
        fnp.maximum(x, 0.5),
        fnp.minimum(-0.25, x),
        fnp.where(x > 0, x, 0.1),
    ),
    "comparisons": lambda x: (x > 0.5, x == 1, fnp.logical_and(x < 1.5, True)),
    "cube_and_odd_powers": lambda x: (x**3, x**1.5, fnp.abs(x) ** -0.5),
    "complex_scalar": lambda x: x * 1j + 2.0,
}


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("fn", sorted(MATERIALIZED_FNS))
@pytest.mark.parametrize("size", [7, 5000], ids=["small", "big"])
def test_materialized_scalars_keep_dtype_and_bits(fn, dtype, size):
    f = MATERIALIZED_FNS[fn]
    rng = np.random.default_rng(0)
    x = rng.uniform(0.5, 2.0, size).astype(dtype)
    x_new = rng.uniform(0.5, 2.0, size).astype(dtype)
    replays(f, (x,), (x_new,), exact=True)
    consts = [c for eqn in ft.make_program(f)(x).eqns for c in eqn.consts]
    full = [c for c in consts if isinstance(c, np.ndarray) and c.shape == x.shape]
    if size == 5000 or fn == "comparisons":
        assert not full  # too big, or a scalar that NumPy casts to no output dtype
    if size == 7 and fn == "arithmetic":
        assert full and all(c.dtype == dtype for c in full)  # the pass did run


def test_materialized_scalars_of_integer_arrays():
    def f(i):
        return i + 0.5, i * 2, i // 3, i - 1, i**2, i / 4

    i = np.arange(-3, 4)
    replays(f, (i,), (i[::-1] * 7,), exact=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
def test_materialized_power_exponents_bit_equal(dtype):
    def f(x):
        return x**2, x**0.5, x**-1, fnp.power(x, 2), fnp.square(x)

    rng = np.random.default_rng(0)
    x = rng.uniform(0.5, 2.0, 1000).astype(dtype)
    replays(f, (x,), (rng.uniform(0.5, 2.0, 1000).astype(dtype),), exact=True)


def test_materialized_scalar_is_not_the_order_of_polygamma():
    def f(x):
        return fsp.polygamma(35, x)

    x = np.array([10.0, 12.0], np.float32)
    assert np.isfinite(f(x)).all() and np.isfinite(ssp.polygamma(35, x)).all()
    replays(f, (x,), (x + 1.0,))


# -- multiple results

MULTIPLE_RESULTS = {
    "eigh": (lambda a: tuple(fnp.linalg.eigh(a)), "sym"),
    "eigvalsh": (fnp.linalg.eigvalsh, "sym"),
    "svd": (lambda a: tuple(fnp.linalg.svd(a, full_matrices=False)), "wide"),
    "svdvals": (fnp.linalg.svdvals, "wide"),
    "qr": (lambda a: tuple(fnp.linalg.qr(a)), "tall"),
    "slogdet": (lambda a: tuple(fnp.linalg.slogdet(a)), "sym"),
    "eigh_twice": (
        lambda a: fnp.linalg.eigh(a)[0] + fnp.linalg.eigh(a)[1][0] ** 2,
        "sym",
    ),
}


def _matrix(kind: str, seed: int, dtype, batch: tuple = ()) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "sym":  # well-separated eigenvalues, positive definite
        q, _ = np.linalg.qr(rng.standard_normal(batch + (4, 4)))
        a = (q * np.arange(1.0, 5.0)[..., None, :]) @ np.swapaxes(q, -1, -2)
        a = a + 0.01 * rng.standard_normal(batch + (4, 4))
        a = 0.5 * (a + np.swapaxes(a, -1, -2))
    else:
        a = rng.standard_normal(batch + ((3, 5) if kind == "wide" else (5, 3)))
    return a.astype(dtype)


def _loss(fn):
    def loss(a):
        w = np.random.default_rng(3)
        return sum(
            fnp.sum(o * w.standard_normal(o.shape).astype(o.dtype))
            for o in tree_flatten(fn(a))[0]
            if _is_float(o)
        )

    return loss


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", sorted(MULTIPLE_RESULTS))
def test_multiple_result_primitives_replay(name, dtype):
    fn, kind = MULTIPLE_RESULTS[name]
    a, a_new = _matrix(kind, 0, dtype), _matrix(kind, 1, dtype)
    b, b_new = _matrix(kind, 2, dtype, (3,)), _matrix(kind, 3, dtype, (3,))
    replays(fn, (a,), (a_new,))
    replays(ft.grad(_loss(fn)), (a,), (a_new,))
    replays(ft.vmap(fn), (b,), (b_new,))
    replays(ft.vmap(ft.grad(_loss(fn))), (b,), (b_new,))
    if name == "eigh_twice":
        assert prim_names(ft.make_program(fn)(a)).count("eigh") == 1


# -- freeing intermediates


@pytest.fixture
def marker_prims():
    """Two primitives: ``mark(x) = sin(x)``, which keeps a weak reference to each result
    it makes, and ``probe(x) = -x``, which records which of those are alive when it
    runs."""
    made: list = []
    alive_at_probe: list = []

    def mark_impl(xp, x):
        y = xp.sin(x)
        made.append(weakref.ref(y))
        return y

    def probe_impl(xp, x):
        alive_at_probe.append([r() is not None for r in made])
        return xp.negative(x)

    suffix = uuid.uuid4().hex[:8]
    mark = defop(f"test_jit_ops_mark_{suffix}", mark_impl, nondiff=True)
    probe = defop(f"test_jit_ops_probe_{suffix}", probe_impl, nondiff=True)
    try:
        yield mark, probe, made, alive_at_probe
    finally:
        REGISTRY.pop(mark.name, None)
        REGISTRY.pop(probe.name, None)


def test_intermediates_are_freed_after_their_last_use(marker_prims):
    mark, probe, made, alive_at_probe = marker_prims

    def f(x):
        y = fnp.cos(mark.bind(x))  # mark's result is last used by cos
        return probe.bind(y) + mark.bind(y)

    compiled = ft.jit(f)
    x = np.linspace(0.0, 1.0, 16)
    first = compiled(x)
    gc.collect()
    assert all(r() is None for r in made), "the recording keeps an intermediate alive"
    made.clear()
    alive_at_probe.clear()
    replayed = compiled(x)
    np.testing.assert_array_equal(replayed, first)
    assert alive_at_probe == [[False]], "the replay held mark's result past its last use"
    assert len(made) == 2 and all(r() is None for r in made), "the program keeps a result"


def test_unoptimized_program_has_every_recorded_call():
    def f(x):
        unused = fnp.exp(x)  # dead
        del unused
        return fnp.sum(fnp.sin(x) * fnp.sin(x)) + fnp.sum(fnp.tanh(x))

    g = ft.grad(f)
    x = np.linspace(-1.0, 1.0, 4)
    unoptimized = ft.make_program(g, optimize=False)(x)
    optimized = ft.make_program(g)(x)
    assert len(unoptimized) > len(optimized)
    assert unoptimized.recorded == optimized.recorded == len(unoptimized)
    assert "exp" in prim_names(unoptimized) and "exp" not in prim_names(optimized)
    np.testing.assert_allclose(unoptimized.run([x]), optimized.run([x]), rtol=1e-15)
    np.testing.assert_allclose(optimized.run([2.0 * x]), g(2.0 * x), rtol=1e-12)


# -- results the caller may update in place


@pytest.mark.parametrize("which", ["traced_call", "zero_dim"])
def test_constant_outputs_are_fresh_arrays(which):
    if which == "traced_call":
        compiled = ft.jit(ft.grad(lambda x: fnp.sum(fnp.floor(x))))
        x = np.arange(3.0)
        g = compiled(x)  # the traced call's result
    else:
        compiled = ft.jit(ft.grad(lambda x: fnp.floor(x)))
        x = np.array(1.5)
        compiled(x)
        g = compiled(x)  # a replay's 0-d result
    g[...] += 1.0
    np.testing.assert_array_equal(compiled(x), np.zeros_like(x))


def test_constant_outputs_of_a_replay_are_fresh_arrays():
    compiled = ft.jit(lambda x: (fnp.sin(x), ft.grad(lambda v: fnp.sum(fnp.floor(v)))(x)))
    x = np.arange(3.0)
    compiled(x)
    _, g = compiled(x)
    g += 1.0
    np.testing.assert_array_equal(compiled(x)[1], np.zeros(3))


def test_static_signed_zero_arguments_record_apart():
    compiled = ft.jit(lambda x, c: x * c)
    x = np.ones(2)
    compiled(x, 0.0)
    np.testing.assert_array_equal(np.signbit(compiled(x, -0.0)), [True, True])
