"""Generic tests over every entry of the op database (``tests/op_db.py``).

Per entry and sample: the forward value against NumPy; ``jvp`` against float64 finite
differences; ``vjp`` against ``jvp`` (inner-product identity); ``vmap`` over every
batch-axis placement of every operand (not batched, first, last, and a batch of one)
against a Python loop, with the loop fallback switched off; second order through
``check_grads(order=2)`` (``jvp`` and ``vjp`` of ``jvp`` and of ``vjp``); ``vmap`` of
``vjp``, ``vmap`` of ``jvp`` and ``vmap`` of ``vmap`` against the same compositions in JAX
(float64); and the same function written with plain ``numpy`` (``np.sin(tracer)``,
``np.sum(tracer, axis=0)``, ``arr @ tracer``) under ``vmap`` and ``grad``.

The JAX compositions run on each entry's first sample and the samples marked ``jax``,
the NumPy-protocol checks on the first few samples (a sample of the grid, to keep the
suite fast); everything else runs on every sample.
"""

from __future__ import annotations

import functools
import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ftransforms as ft
import ftransforms.numpy as fnp
from ftransforms.core.errors import FTransformsError
from ftransforms.pytree import tree_flatten
from ftransforms.testing import check_grads, check_jvp, check_vjp, check_vmap
from tests.jaxpr_evaluator import JaxprEvaluator
from tests.op_db import BY_NAME, FNP, JNP, NP, OPS
from tests.tolerances import fd_tol, tol

F64 = np.dtype(np.float64)
SEED = 0  # the samples every test uses; the vmap tests batch seeds 1, 2, ...
NUMPY_SAMPLES = 3  # samples per entry for the NumPy-protocol checks
MAX_VMAP_CONFIGS = 8  # batch-axis placements per sample (beyond that, a fixed subset)


# -- helpers ------------------------------------------------------------------------------


@functools.cache
def samples(name: str, dtype: np.dtype, seed: int) -> list:
    return BY_NAME[name].samples(dtype, seed)


def sample(name: str, k: int, dtype: np.dtype, seed: int = SEED):
    return samples(name, np.dtype(dtype), seed)[k]


def operand_positions(s) -> list[int]:
    """Positions of the operands (numpy arrays) among the sample's arguments."""
    return [i for i, a in enumerate(s.args) if isinstance(a, np.ndarray)]


def bind(op, m, s):
    """``(f, operands)``: ``f(*operands)`` calls the entry through namespace ``m`` with the
    sample's static arguments fixed."""
    pos = operand_positions(s)
    # (closes over the entry's function and the sample's values, not the entry: jit's
    # guard walk would otherwise follow the entry's fields into the whole op database)
    call, static, kwargs = op.fn, s.args, s.kwargs

    def f(*operands):
        args = list(static)
        for i, a in zip(pos, operands):
            args[i] = a
        return call(m, *args, **kwargs)

    f.__name__ = op.name
    return f, [s.args[i] for i in pos]


def bind_diff(op, m, s):
    """Like :func:`bind`, with the operands the entry does not differentiate (outside its
    ``diff_operands``) fixed too (the derivative tests differentiate every float operand
    ``f`` takes)."""
    f, operands = bind(op, m, s)
    keep = [j for j in range(len(operands)) if op.differentiates(j)]

    def g(*values):
        args = list(operands)
        for j, v in zip(keep, values):
            args[j] = v
        return f(*args)

    g.__name__ = op.name
    return g, [operands[j] for j in keep]


def is_float(x) -> bool:
    return np.dtype(getattr(x, "dtype", np.float64)).kind == "f"


def _real_dtype(dt) -> np.dtype:
    dt = np.dtype(dt)
    return np.dtype(np.float32) if dt in (np.complex64, np.float32) else np.dtype(np.float64)


def leaf_tol(op, dt, fd: bool = False) -> dict:
    """Tolerance of a result of dtype ``dt`` (the table's, or the entry's override)."""
    base = _real_dtype(dt)
    key = f"fd:{base.name}" if fd else base.name
    if key in op.tol:
        return dict(op.tol[key])
    return fd_tol(base) if fd else tol(base)


def loosest_tol(op, arrays, fd: bool = False) -> dict:
    """The loosest :func:`leaf_tol` over the float/complex ``arrays`` (operands and
    outputs: a float64 input cast to float32 is only float32-accurate)."""
    dts = [a.dtype for a in arrays if np.dtype(a.dtype).kind in "fc"] or [F64]
    tols = [leaf_tol(op, dt, fd) for dt in dts]
    return {key: max(t[key] for t in tols) for key in ("rtol", "atol")}


def float_leaves(tree) -> list:
    return [np.asarray(o) for o in tree_flatten(tree)[0] if is_float(np.asarray(o))]


def to_numpy(tree):
    return jax.tree_util.tree_map(np.asarray, tree)


def assert_tree(actual, expected, *, what, op=None, override=None, int_dtype=True):
    """Same pytree structure; every leaf a plain numpy array of the expected shape and
    dtype, equal (floats within the tolerance of their dtype; NaN matches NaN).
    ``int_dtype=False``: integer leaves need an integer dtype, not the same one (JAX's
    searchsorted returns int32 even with x64; numpy's, and ours, intp)."""
    a_leaves, a_spec = tree_flatten(actual)
    e_leaves, e_spec = tree_flatten(expected)
    assert a_spec == e_spec, f"{what}: structure {a_spec}, expected {e_spec}"
    for k, (a, e) in enumerate(zip(a_leaves, e_leaves)):
        where = f"{what}, leaf {k}"
        assert isinstance(a, (np.ndarray, np.generic)), f"{where}: got {type(a).__name__}"
        a, e = np.asarray(a), np.asarray(e)
        assert a.shape == e.shape, f"{where}: shape {a.shape}, expected {e.shape}"
        if int_dtype or e.dtype.kind not in "iu":
            assert a.dtype == e.dtype, f"{where}: dtype {a.dtype}, expected {e.dtype}"
        else:
            assert a.dtype.kind in "iu", f"{where}: dtype {a.dtype}, expected an integer"
        if e.dtype.kind in "fc":
            t = override or (leaf_tol(op, e.dtype) if op is not None else tol(_real_dtype(e.dtype)))
            np.testing.assert_allclose(a, e, **t, equal_nan=True, err_msg=where)
        else:
            np.testing.assert_array_equal(a, e, err_msg=where)


def params(test: str, *, dtypes=None, when=lambda op, s: True, limit=None, jax_only=False):
    """pytest params ``(name, k, dtype)`` for every entry, sample and dtype, with the
    entry's and the sample's strict xfails for ``test``; ``jax_only``: the first sample
    and those marked ``jax``."""
    out = []
    for op in OPS:
        for dt in op.dtypes if dtypes is None else [d for d in dtypes if d in op.dtypes]:
            for k, s in enumerate(samples(op.name, np.dtype(dt), SEED)[:limit]):
                if not when(op, s) or (jax_only and k and not s.jax):
                    continue
                reason = op.xfail_reason(test, s)
                marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
                out.append(
                    pytest.param(op.name, k, dt, id=f"{op.name}-{s.name}-{dt.name}", marks=marks)
                )
    return out


def differentiable(op, s) -> bool:
    return op.grads and s.grads


def with_fd(op, s) -> bool:
    return op.grads and s.grads and op.fd


# -- forward ------------------------------------------------------------------------------


@pytest.mark.parametrize("name,k,dtype", params("test_forward"))
def test_forward(name, k, dtype):
    op = BY_NAME[name]
    s = sample(name, k, dtype)
    got = op.call(FNP, s.args, s.kwargs)
    if op.ref == "jax":
        expected = to_numpy(
            op.call(
                JNP,
                tuple(jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in s.args),
                s.kwargs,
            )
        )
    else:
        expected = op.call(NP, s.args, s.kwargs)
    assert_tree(got, expected, op=op, what=f"{name}({s.name}) vs {op.ref}")


# -- first derivatives ----------------------------------------------------------------------


@pytest.mark.parametrize("name,k,dtype", params("test_jvp_fd", dtypes=[F64], when=with_fd))
def test_jvp_fd(name, k, dtype):
    op = BY_NAME[name]
    s = sample(name, k, dtype)
    f, operands = bind_diff(op, FNP, s)
    t = loosest_tol(op, operands + float_leaves(f(*operands)), fd=True)
    check_jvp(f, operands, eps=s.fd_eps, **t, err_msg=f"jvp {name}({s.name})")


@pytest.mark.parametrize("name,k,dtype", params("test_vjp_vs_jvp", when=differentiable))
def test_vjp_vs_jvp(name, k, dtype):
    op = BY_NAME[name]
    s = sample(name, k, dtype)
    f, operands = bind_diff(op, FNP, s)
    t = loosest_tol(op, operands + float_leaves(f(*operands)))
    check_vjp(f, operands, reference="jvp", **t, err_msg=f"vjp {name}({s.name})")


def _has_float_operand(op, s) -> bool:
    return not op.grads and any(is_float(s.args[i]) for i in operand_positions(s))


@pytest.mark.parametrize("name,k,dtype", params("test_nondiff", when=_has_float_operand))
def test_nondiff(name, k, dtype):
    """Ops with integer/bool outputs: jvp gives a zero tangent, vjp zero cotangents."""
    op = BY_NAME[name]
    s = sample(name, k, dtype)
    f, operands = bind(op, FNP, s)
    fpos = [j for j, a in enumerate(operands) if is_float(a)]

    def g(*fx):
        args = list(operands)
        for j, v in zip(fpos, fx):
            args[j] = v
        return f(*args)

    fx = [operands[j] for j in fpos]
    expected = f(*operands)
    out, t_out = ft.jvp(g, tuple(fx), tuple(np.ones_like(x) for x in fx))
    assert_tree(out, expected, what="jvp primal", override={"rtol": 0, "atol": 0})
    for t, o in zip(tree_flatten(t_out)[0], tree_flatten(expected)[0]):
        assert np.shape(t) == np.shape(o) and not np.any(t), f"nonzero tangent {t!r}"
    out, vjp_fn = ft.vjp(g, *fx)
    cts = jax.tree_util.tree_map(lambda o: np.ones_like(np.asarray(o)), out)
    for x, x_bar in zip(fx, vjp_fn(cts)):
        assert_tree(x_bar, np.zeros_like(x), what="vjp cotangent", override={"rtol": 0, "atol": 0})


# -- vmap -----------------------------------------------------------------------------------


def vmap_configs(n: int) -> list[tuple[tuple, int, int]]:
    """``(in_dims, batch size, out_dims)`` for ``n`` operands: every placement of each
    operand among not batched / first / last (a fixed subset when there are many), a
    batch of one, and the output batch axis last."""
    combos = [c for c in itertools.product([None, 0, -1], repeat=n) if c != (None,) * n]
    first = [(0,) * n, (-1,) * n] + [
        tuple(d if j == i else None for j in range(n)) for i in range(n) for d in (0, -1)
    ]
    chosen = list(dict.fromkeys(c for c in first if c in combos))
    rest = [c for c in combos if c not in chosen]
    rng = np.random.default_rng(n)
    extra = max(0, MAX_VMAP_CONFIGS - len(chosen))
    chosen += [rest[i] for i in sorted(rng.permutation(len(rest))[:extra])]
    configs = [(c, 3, 0) for c in chosen]
    return configs + [((0,) * n, 1, 0), ((-1,) * n, 2, -1)]


@pytest.mark.parametrize("name,k,dtype", params("test_vmap"))
def test_vmap(name, k, dtype):
    op = BY_NAME[name]
    base = sample(name, k, dtype)
    f, operands = bind(op, FNP, base)
    pos = operand_positions(base)
    batch = [sample(name, k, dtype, seed) for seed in (1, 2, 3)]
    for in_dims, size, out_dims in vmap_configs(len(pos)):
        args = [
            operands[j] if d is None else np.stack([b.args[i] for b in batch[:size]], axis=d)
            for j, (i, d) in enumerate(zip(pos, in_dims))
        ]
        try:
            check_vmap(
                f,
                args,
                in_dims=in_dims,
                out_dims=out_dims,
                randomness=op.randomness,
                **leaf_tol(op, dtype),
            )
        except Exception as err:
            raise AssertionError(
                f"vmap {name}({base.name}) in_dims={in_dims}, batch size {size}, "
                f"out_dims={out_dims}: {type(err).__name__}: {err}"
            ) from err


# -- second order -------------------------------------------------------------------------


@pytest.mark.parametrize("name,k,dtype", params("test_second_order", dtypes=[F64], when=with_fd))
def test_second_order(name, k, dtype):
    op = BY_NAME[name]
    s = sample(name, k, dtype)
    f, operands = bind_diff(op, FNP, s)
    t = loosest_tol(op, operands + float_leaves(f(*operands)), fd=True)
    check_grads(f, operands, order=2, eps=s.fd_eps, rtol=t["rtol"], atol=t["atol"])


# -- compositions against JAX ---------------------------------------------------------------
#
# JAX runs each entry's compositions (of its first samples) in one jit-compiled call, once
# per session: far faster than JAX's op-by-op dispatch.

KINDS = ("vjp", "jvp", "vmap")


class Lib:
    def __init__(self, m, vmap, vjp, jvp, leaves):
        self.m, self.vjp, self.jvp, self.leaves = m, vjp, jvp, leaves
        self._vmap = vmap

    def vmap(self, f, axis, randomness="error"):
        return self._vmap(f, axis, randomness)


OURS = Lib(
    FNP,
    lambda f, axis, r: ft.vmap(f, in_dims=axis, randomness=r),
    ft.vjp,
    ft.jvp,
    lambda t: tree_flatten(t)[0],
)
JAXS = Lib(
    JNP, lambda f, axis, r: jax.vmap(f, in_axes=axis), jax.vjp, jax.jvp, jax.tree_util.tree_leaves
)


def diff_positions(op, s) -> list[int]:
    """Operands (indices among them) differentiated by the compositions."""
    pos = operand_positions(s)
    return [j for j, i in enumerate(pos) if is_float(s.args[i]) and op.differentiates(j)]


def applicable(op, s, kind) -> bool:
    return kind == "vmap" or (differentiable(op, s) and bool(diff_positions(op, s)))


@functools.cache
def composition_inputs(name: str, k: int, kind: str) -> list[np.ndarray]:
    """The batched operands (and cotangents/tangents) of a composition test: a batch of 3
    samples at axis 0 (vjp, jvp); a batch of 2 at axis 0 of batches of 3 at the last axis
    (vmap of vmap)."""
    op = BY_NAME[name]
    s = sample(name, k, F64)
    pos = operand_positions(s)
    if kind == "vmap":
        return [
            np.stack(
                [
                    np.stack(
                        [sample(name, k, F64, 1 + 3 * a + b).args[i] for b in range(3)], axis=-1
                    )
                    for a in range(2)
                ]
            )
            for i in pos
        ]
    stacked = [np.stack([sample(name, k, F64, seed).args[i] for seed in (1, 2, 3)]) for i in pos]
    rng = np.random.default_rng(7)
    if kind == "vjp":
        f, _ = bind(op, FNP, s)
        outs = float_leaves(f(*[a[0] for a in stacked]))
        extra = [rng.standard_normal((3,) + o.shape).astype(o.dtype) for o in outs]
    else:
        extra = [
            rng.standard_normal(stacked[j].shape).astype(stacked[j].dtype)
            for j in diff_positions(op, s)
        ]
    return stacked + extra


def run_composition(op, s, kind, lib: Lib, inputs):
    f, operands = bind(op, lib.m, s)
    r = op.randomness
    if kind == "vmap":
        return lib.vmap(lib.vmap(f, -1, r), 0, r)(*inputs)
    n = len(operands)
    fl = diff_positions(op, s)

    def h(*vals):
        ops_, extra = vals[:n], vals[n:]

        def g(*fx):
            args = list(ops_)
            for j, v in zip(fl, fx):
                args[j] = v
            return tuple(o for o in lib.leaves(f(*args)) if is_float(o))

        fx = tuple(ops_[j] for j in fl)
        if kind == "vjp":
            out, vjp_fn = lib.vjp(g, *fx)
            return out, tuple(vjp_fn(tuple(extra)))
        return lib.jvp(g, fx, tuple(extra))

    return lib.vmap(h, 0, r)(*inputs)


def jax_cases(op) -> list[tuple[int, str]]:
    ss = op.samples(F64, SEED)
    return [
        (k, kind)
        for k, s in enumerate(ss)
        for kind in KINDS
        if (k == 0 or s.jax) and applicable(op, s, kind)
    ]


@functools.cache
def jax_reference(name: str) -> dict:
    """``{(k, kind): ("ok", result) or ("error", exception)}`` for the entry's JAX cases."""
    op = BY_NAME[name]
    cases = jax_cases(op)
    inputs = {
        f"{k}:{kind}": [jnp.asarray(a) for a in composition_inputs(name, k, kind)]
        for k, kind in cases
    }

    def run(cases, inputs):
        return {
            f"{k}:{kind}": run_composition(
                op, sample(name, k, F64), kind, JAXS, inputs[f"{k}:{kind}"]
            )
            for k, kind in cases
        }

    def evaluate(cases):  # NOTE [the JAX oracle without XLA compiles] (jaxpr_evaluator.py)
        some = {f"{k}:{kind}": inputs[f"{k}:{kind}"] for k, kind in cases}
        closed, shapes = jax.make_jaxpr(lambda inp: run(cases, inp), return_shape=True)(some)
        flat = JaxprEvaluator.run(closed, *jax.tree_util.tree_leaves(some))
        return jax.tree_util.tree_unflatten(jax.tree_util.tree_structure(shapes), flat)

    def on_xla(cases):
        some = {f"{k}:{kind}": inputs[f"{k}:{kind}"] for k, kind in cases}
        return jax.jit(lambda inp: run(cases, inp))(some)

    # the evaluator, else XLA (a primitive the evaluator does not know)
    for how in (evaluate, on_xla):
        try:
            out = how(cases)
            return {c: ("ok", to_numpy(out[f"{c[0]}:{c[1]}"])) for c in cases}
        except Exception:
            pass
    result = {}  # a case fails in JAX: find which, the others each the same way
    for c in cases:
        key = f"{c[0]}:{c[1]}"
        for how in (evaluate, on_xla):
            try:
                result[c] = ("ok", to_numpy(how([c])[key]))
                break
            except Exception as err:  # JAX's own error (XLA's) is reported by the case's test
                result[c] = ("error", err)
    return result


def _jax_params(kind):
    return params(
        f"test_vmap_{kind}_vs_jax",
        dtypes=[F64],
        jax_only=True,
        when=lambda op, s: op.jax_compositions and applicable(op, s, kind),
    )


def compare_with_jax(name, k, kind):
    op = BY_NAME[name]
    s = sample(name, k, F64)
    status, theirs = jax_reference(name)[(k, kind)]
    if status == "error":
        raise AssertionError(f"the JAX oracle failed on {name}({s.name}): {theirs!r}")
    ours = run_composition(op, s, kind, OURS, composition_inputs(name, k, kind))
    label = "vmap(vmap)" if kind == "vmap" else f"vmap({kind})"
    assert_tree(ours, theirs, op=op, what=f"{label} {name}({s.name}) vs JAX", int_dtype=False)


@pytest.mark.parametrize("name,k,dtype", _jax_params("vjp"))
def test_vmap_vjp_vs_jax(name, k, dtype):
    compare_with_jax(name, k, "vjp")


@pytest.mark.parametrize("name,k,dtype", _jax_params("jvp"))
def test_vmap_jvp_vs_jax(name, k, dtype):
    compare_with_jax(name, k, "jvp")


@pytest.mark.parametrize("name,k,dtype", _jax_params("vmap"))
def test_vmap_vmap_vs_jax(name, k, dtype):
    compare_with_jax(name, k, "vmap")


# -- the same functions through plain numpy -----------------------------------------------


def _via_numpy(op, s) -> bool:
    return op.via_numpy


@pytest.mark.parametrize(
    "name,k,dtype",
    params("test_via_numpy_protocols", dtypes=[F64], when=_via_numpy, limit=NUMPY_SAMPLES),
)
def test_via_numpy_protocols(name, k, dtype):
    """``fn(np, ...)`` on tracers (``np.sin(t)``, ``np.sum(t, axis=0)``, ``arr @ t``)
    under vmap (one operand batched at a time, the others plain arrays) and grad (one
    operand at a time), against the loop and against the ``fnp`` spelling.  An operand
    that NumPy cannot dispatch on (``np.take(array, tracer)``) must raise a clear error."""
    op = BY_NAME[name]
    s = sample(name, k, dtype)
    f_np, operands = bind(op, NP, s)
    f_fnp, _ = bind(op, FNP, s)
    batch = [sample(name, k, dtype, seed) for seed in (1, 2, 3)]
    pos = operand_positions(s)
    lone_ok = range(len(pos)) if op.numpy_lone_tracer is None else op.numpy_lone_tracer
    for j, i in enumerate(pos):
        args = list(operands)
        args[j] = np.stack([b.args[i] for b in batch])
        in_dims = tuple(0 if jj == j else None for jj in range(len(pos)))
        if j in lone_ok:
            check_vmap(f_np, args, in_dims=in_dims, **leaf_tol(op, dtype))
        else:
            # NumPy does not dispatch on this operand; the unmapped NumPy operands are
            # buffers inside the function (NOTE [mutation semantics]), which often makes it
            # work: a correct result, or else a clear error
            try:
                ft.vmap(f_np, in_dims=in_dims)(*args)
            except FTransformsError as err:
                assert "tracer" in str(err), err
            else:
                check_vmap(f_np, args, in_dims=in_dims, **leaf_tol(op, dtype))
    if not differentiable(op, s):
        return
    rng = np.random.default_rng(3)
    cts = [rng.standard_normal(o.shape).astype(o.dtype) for o in float_leaves(f_np(*operands))]
    for j, x in enumerate(operands):
        if not is_float(x) or not op.differentiates(j) or j not in lone_ok:
            continue

        def loss(xj, f, sum_):
            args = list(operands)
            args[j] = xj
            leaves = [o for o in tree_flatten(f(*args))[0] if is_float(o)]
            return sum(sum_(o * c) for o, c in zip(leaves, cts))

        got = ft.grad(loss)(x, f_np, np.sum)
        expected = ft.grad(loss)(x, f_fnp, fnp.sum)
        assert_tree(got, expected, op=op, what=f"grad through numpy, operand {j}, {name}({s.name})")


# -- conventions at ties and kinks, against JAX ---------------------------------------------

_TIES = {
    "abs_at_zero": (lambda m, x: m.abs(x), (np.array([0.0, -0.0, 1.5, -2.0]),)),
    "maximum_ties": (
        lambda m, x, y: m.maximum(x, y),
        (np.array([1.0, 2.0, -1.0]), np.array([1.0, 0.0, -1.0])),
    ),
    "minimum_ties_broadcast": (
        lambda m, x, y: m.minimum(x, y),
        (np.array([[0.5, 1.0], [2.0, 0.5]]), np.array([0.5, 1.0])),
    ),
    "max_ties": (lambda m, x: m.max(x, axis=1), (np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]]),)),
    "min_all_ties": (lambda m, x: m.min(x), (np.array([[1.0, 1.0], [1.0, 5.0]]),)),
    "clip_at_bounds": (lambda m, x: m.clip(x, -1.0, 1.0), (np.array([-1.0, 0.0, 1.0, 2.0]),)),
    # 0 ** y for y > 0 and x ** 0 for x != 0 (0 ** 0.0: see the test below)
    "power_zero_base": (
        lambda m, x, y: m.power(x, y),
        (np.array([0.0, 0.0, 2.0]), np.array([1.0, 2.0, 0.0])),
    ),
    "power_int_exponent_zero_base": (lambda m, x: x**2 + x**1 + x**0, (np.array([0.0, -1.0]),)),
    "sqrt_of_square_at_one": (lambda m, x: m.sqrt(x * x), (np.array([1.0, 2.0]),)),
    "where_both_branches": (lambda m, x: m.where(x > 0, x, 2 * x), (np.array([0.0, 1.0]),)),
    "logaddexp_equal": (
        lambda m, x, y: m.logaddexp(x, y),
        (np.array([0.5, -1.0]), np.array([0.5, 2.0])),
    ),
    "hypot_one_zero": (lambda m, x, y: m.hypot(x, y), (np.array([0.0, 3.0]), np.array([2.0, 0.0]))),
    "prod_all_zeros": (
        lambda m, x: m.prod(x, axis=1),
        (np.array([[0.0, 0.0, 2.0], [0.0, 3.0, 1.0]]),),
    ),
}


@pytest.mark.parametrize("case", sorted(_TIES))
def test_ties_and_kinks_match_jax(case):
    fn, args = _TIES[case]
    f = functools.partial(fn, FNP)
    jf = functools.partial(fn, JNP)
    y = np.asarray(f(*args))
    cts = np.linspace(0.5, 1.5, y.size).reshape(y.shape)
    _, vjp_fn = ft.vjp(f, *args)
    _, jvjp = jax.vjp(jf, *[jnp.asarray(a) for a in args])
    assert_tree(vjp_fn(cts), to_numpy(jvjp(jnp.asarray(cts))), what=f"vjp {case}")
    tangents = tuple(np.linspace(1.0, 2.0, a.size).reshape(a.shape) for a in args)
    ours = ft.jvp(f, args, tangents)
    theirs = jax.jvp(
        jf, tuple(jnp.asarray(a) for a in args), tuple(jnp.asarray(t) for t in tangents)
    )
    assert_tree(ours, to_numpy(theirs), what=f"jvp {case}")


def test_power_derivative_of_zero_to_the_zero():
    """d/dx x ** y at x = y = 0 is 0 (x ** 0 is constant), the documented convention in
    ``ops/elementwise.py``; JAX gives nan for a float exponent there (0 * inf)."""
    g = ft.grad(lambda x, y: fnp.sum(fnp.power(x, y)), argnums=(0, 1))(
        np.array([0.0, 0.0]), np.array([0.0, 1.0])
    )
    np.testing.assert_array_equal(g[0], [0.0, 1.0])
    np.testing.assert_array_equal(g[1], [0.0, 0.0])  # log(x) taken as 0 where x == 0
