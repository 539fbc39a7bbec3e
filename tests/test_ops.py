"""Generic tests over every entry of the op database (``tests/op_db.py``).

Per entry and sample: the forward value against NumPy; ``jvp`` against float64 finite
differences; ``vjp`` against ``jvp`` (inner-product identity); ``vmap`` over every
batch-axis placement of every operand (not batched, first, last, and a batch of one)
against a Python loop, with the loop fallback switched off; second order through
``check_grads(order=2)`` (``jvp`` and ``vjp`` of ``jvp`` and of ``vjp``); ``vmap`` of
``vjp``, ``vmap`` of ``jvp`` and ``vmap`` of ``vmap`` against the same compositions in JAX
(float64); and the same function written with plain ``numpy`` (``np.sin(tracer)``,
``np.sum(tracer, axis=0)``, ``arr @ tracer``) under ``vmap`` and ``grad``.

The JAX compositions and the NumPy-protocol checks run on the first few samples of each
entry (a sample of the grid, to keep the suite fast); everything else runs on all of them.
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
from ftransforms.pytree import tree_flatten
from ftransforms.testing import check_grads, check_jvp, check_vjp, check_vmap
from tests.op_db import BY_NAME, FNP, JNP, NP, OPS
from tests.tolerances import fd_tol, tol

F64 = np.dtype(np.float64)
SEED = 0  # the samples every test uses; the vmap tests batch seeds 1, 2, ...
JAX_SAMPLES = 3  # samples per entry for the JAX compositions
NUMPY_SAMPLES = 3  # samples per entry for the NumPy-protocol checks
MAX_VMAP_CONFIGS = 8  # batch-axis placements per sample (beyond that, a fixed subset)


# -- helpers ------------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
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

    def f(*operands):
        args = list(s.args)
        for i, a in zip(pos, operands):
            args[i] = a
        return op.call(m, tuple(args), s.kwargs)

    f.__name__ = op.name
    return f, [s.args[i] for i in pos]


def value_tol(op, dtype) -> dict:
    return dict(op.tol.get(np.dtype(dtype).name, tol(dtype)))


def grad_tol(op, dtype) -> dict:
    return dict(op.tol.get("fd", fd_tol(dtype)))


def is_float(x) -> bool:
    return np.dtype(getattr(x, "dtype", np.float64)).kind == "f"


def to_numpy(tree):
    return jax.tree_util.tree_map(np.asarray, tree)


def assert_tree(actual, expected, *, rtol, atol, what, check_dtype=True):
    """Same pytree structure; every leaf a plain numpy array of the expected shape and
    dtype, equal (floats: within tolerance; NaN matches NaN)."""
    a_leaves, a_spec = tree_flatten(actual)
    e_leaves, e_spec = tree_flatten(expected)
    assert a_spec == e_spec, f"{what}: structure {a_spec}, expected {e_spec}"
    for k, (a, e) in enumerate(zip(a_leaves, e_leaves)):
        where = f"{what}, leaf {k}"
        assert isinstance(a, (np.ndarray, np.generic)), f"{where}: got {type(a).__name__}"
        a, e = np.asarray(a), np.asarray(e)
        assert a.shape == e.shape, f"{where}: shape {a.shape}, expected {e.shape}"
        if check_dtype:
            assert a.dtype == e.dtype, f"{where}: dtype {a.dtype}, expected {e.dtype}"
        if a.dtype.kind == "f" or e.dtype.kind == "f":
            np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, equal_nan=True, err_msg=where)
        else:
            np.testing.assert_array_equal(a, e, err_msg=where)


def params(test: str, *, dtypes=None, when=lambda op, s: True, limit=None):
    """pytest params ``(name, k, dtype)`` for every entry, sample and dtype, with the
    entry's and the sample's strict xfails for ``test``."""
    out = []
    for op in OPS:
        for dt in op.dtypes if dtypes is None else [d for d in dtypes if d in op.dtypes]:
            for k, s in enumerate(op.samples(dt, SEED)[:limit]):
                if not when(op, s):
                    continue
                reason = s.xfail.get(test) or op.xfail.get(test)
                marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
                out.append(pytest.param(op.name, k, dt, id=f"{op.name}-{s.name}-{dt.name}",
                                        marks=marks))
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
    expected = op.call(NP, s.args, s.kwargs)
    assert_tree(got, expected, **value_tol(op, dtype), what=f"{name}({s.name}) vs numpy")


# -- first derivatives ----------------------------------------------------------------------


@pytest.mark.parametrize("name,k,dtype", params("test_jvp_fd", dtypes=[F64], when=with_fd))
def test_jvp_fd(name, k, dtype):
    op = BY_NAME[name]
    s = sample(name, k, dtype)
    f, operands = bind(op, FNP, s)
    check_jvp(f, operands, eps=s.fd_eps, **grad_tol(op, dtype), err_msg=f"jvp {name}({s.name})")


@pytest.mark.parametrize("name,k,dtype", params("test_vjp_vs_jvp", when=differentiable))
def test_vjp_vs_jvp(name, k, dtype):
    op = BY_NAME[name]
    s = sample(name, k, dtype)
    f, operands = bind(op, FNP, s)
    check_vjp(f, operands, reference="jvp", **value_tol(op, dtype),
              err_msg=f"vjp {name}({s.name})")


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
    assert_tree(out, expected, rtol=0, atol=0, what="jvp primal")
    for t, o in zip(tree_flatten(t_out)[0], tree_flatten(expected)[0]):
        assert np.shape(t) == np.shape(o) and not np.any(t), f"nonzero tangent {t!r}"
    out, vjp_fn = ft.vjp(g, *fx)
    cts = jax.tree_util.tree_map(lambda o: np.ones_like(np.asarray(o)), out)
    for x, x_bar in zip(fx, vjp_fn(cts)):
        assert_tree(x_bar, np.zeros_like(x), rtol=0, atol=0, what="vjp cotangent")


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
            operands[j] if d is None
            else np.stack([b.args[i] for b in batch[:size]], axis=d)
            for j, (i, d) in enumerate(zip(pos, in_dims))
        ]
        try:
            check_vmap(f, args, in_dims=in_dims, out_dims=out_dims, **value_tol(op, dtype))
        except Exception as err:
            raise AssertionError(
                f"vmap {name}({base.name}) in_dims={in_dims}, batch size {size}, "
                f"out_dims={out_dims}: {type(err).__name__}: {err}"
            ) from err


# -- second order -------------------------------------------------------------------------


@pytest.mark.parametrize("name,k,dtype", params("test_second_order", dtypes=[F64],
                                                when=with_fd))
def test_second_order(name, k, dtype):
    op = BY_NAME[name]
    s = sample(name, k, dtype)
    f, operands = bind(op, FNP, s)
    t = grad_tol(op, dtype)
    check_grads(f, operands, order=2, eps=s.fd_eps, rtol=t["rtol"], atol=t["atol"])


# -- compositions against JAX ---------------------------------------------------------------


def _split_operands(s):
    pos = operand_positions(s)
    fl = [j for j, i in enumerate(pos) if is_float(s.args[i])]
    other = [j for j, i in enumerate(pos) if not is_float(s.args[i])]
    return pos, fl, other


def _batched(name, k, pos, seeds):
    return [np.stack([sample(name, k, F64, seed).args[i] for seed in seeds]) for i in pos]


def _float_outputs(lib_leaves, out):
    return tuple(o for o in lib_leaves(out) if is_float(o))


def _composition(kind, f, fl, other, n, lib):
    """vmap-able ``h(*operands, *extra)``: vjp (``extra`` = cotangents) or jvp (``extra``
    = tangents of the float operands) of ``f`` with respect to its float operands."""
    vjp, jvp, leaves = lib

    def h(*vals):
        operands, extra = vals[:n], vals[n:]

        def g(*fx):
            args = list(operands)
            for j, v in zip(fl, fx):
                args[j] = v
            return _float_outputs(leaves, f(*args))

        fx = tuple(operands[j] for j in fl)
        if kind == "vjp":
            out, vjp_fn = vjp(g, *fx)
            return out, tuple(vjp_fn(tuple(extra)))
        return jvp(g, fx, tuple(extra))

    return h


OURS = (ft.vjp, ft.jvp, lambda t: tree_flatten(t)[0])
JAXS = (jax.vjp, jax.jvp, jax.tree_util.tree_leaves)


def _compare_with_jax(name, k, kind):
    op = BY_NAME[name]
    s = sample(name, k, F64)
    pos, fl, other = _split_operands(s)
    stacked = _batched(name, k, pos, (1, 2, 3))
    f, _ = bind(op, FNP, s)
    jf, _ = bind(op, JNP, s)
    rng = np.random.default_rng(7)
    if kind == "vjp":
        out0 = _float_outputs(lambda t: tree_flatten(t)[0],
                              f(*[a[0] for a in stacked]))
        extra = [rng.standard_normal((3,) + np.shape(o)).astype(np.asarray(o).dtype)
                 for o in out0]
    else:
        extra = [rng.standard_normal(stacked[j].shape).astype(stacked[j].dtype) for j in fl]
    ours = ft.vmap(_composition(kind, f, fl, other, len(pos), OURS))(*stacked, *extra)
    theirs = jax.vmap(_composition(kind, jf, fl, other, len(pos), JAXS))(
        *[jnp.asarray(a) for a in stacked + extra]
    )
    assert_tree(ours, to_numpy(theirs), **value_tol(op, F64),
                what=f"vmap(v{kind[1:]}) {name}({s.name}) vs JAX")


@pytest.mark.parametrize("name,k,dtype", params("test_vmap_vjp_vs_jax", dtypes=[F64],
                                                when=differentiable, limit=JAX_SAMPLES))
def test_vmap_vjp_vs_jax(name, k, dtype):
    _compare_with_jax(name, k, "vjp")


@pytest.mark.parametrize("name,k,dtype", params("test_vmap_jvp_vs_jax", dtypes=[F64],
                                                when=differentiable, limit=JAX_SAMPLES))
def test_vmap_jvp_vs_jax(name, k, dtype):
    _compare_with_jax(name, k, "jvp")


@pytest.mark.parametrize("name,k,dtype", params("test_vmap_vmap_vs_jax", dtypes=[F64],
                                                limit=JAX_SAMPLES))
def test_vmap_vmap_vs_jax(name, k, dtype):
    op = BY_NAME[name]
    s = sample(name, k, F64)
    pos = operand_positions(s)
    # outer batch of 2 on axis 0, inner batch of 3 on each slice's last axis
    args = [
        np.stack([
            np.stack([sample(name, k, F64, 1 + 3 * a + b).args[i] for b in range(3)], axis=-1)
            for a in range(2)
        ])
        for i in pos
    ]
    f, _ = bind(op, FNP, s)
    jf, _ = bind(op, JNP, s)
    ours = ft.vmap(ft.vmap(f, in_dims=-1), in_dims=0)(*args)
    theirs = jax.vmap(jax.vmap(jf, in_axes=-1), in_axes=0)(*[jnp.asarray(a) for a in args])
    assert_tree(ours, to_numpy(theirs), **value_tol(op, F64),
                what=f"vmap(vmap) {name}({s.name}) vs JAX")


# -- the same functions through plain numpy -----------------------------------------------


def _via_numpy(op, s) -> bool:
    return op.via_numpy


@pytest.mark.parametrize("name,k,dtype", params("test_via_numpy_protocols", dtypes=[F64],
                                                when=_via_numpy, limit=NUMPY_SAMPLES))
def test_via_numpy_protocols(name, k, dtype):
    """``fn(np, ...)`` on tracers (``np.sin(t)``, ``np.sum(t, axis=0)``, ``arr @ t``)
    under vmap (one operand batched at a time, the others plain arrays) and grad."""
    op = BY_NAME[name]
    s = sample(name, k, dtype)
    f_np, operands = bind(op, NP, s)
    f_fnp, _ = bind(op, FNP, s)
    batch = [sample(name, k, dtype, seed) for seed in (1, 2, 3)]
    pos = operand_positions(s)
    for j, i in enumerate(pos):
        args = list(operands)
        args[j] = np.stack([b.args[i] for b in batch])
        in_dims = tuple(0 if jj == j else None for jj in range(len(pos)))
        check_vmap(f_np, args, in_dims=in_dims, **value_tol(op, dtype))
    if not differentiable(op, s):
        return
    rng = np.random.default_rng(3)
    outs = [o for o in tree_flatten(f_np(*operands))[0] if is_float(o)]
    cts = [rng.standard_normal(np.shape(o)).astype(np.asarray(o).dtype) for o in outs]
    for j, x in enumerate(operands):
        if not is_float(x):
            continue

        def loss(xj, f, sum_):
            args = list(operands)
            args[j] = xj
            leaves = [o for o in tree_flatten(f(*args))[0] if is_float(o)]
            return sum(sum_(o * c) for o, c in zip(leaves, cts))

        got = ft.grad(loss)(x, f_np, np.sum)
        expected = ft.grad(loss)(x, f_fnp, fnp.sum)
        assert_tree(got, expected, **value_tol(op, dtype),
                    what=f"grad through numpy, operand {j}, {name}({s.name})")


# -- conventions at ties and kinks, against JAX ---------------------------------------------

_TIES = {
    "abs_at_zero": (lambda m, x: m.abs(x), (np.array([0.0, -0.0, 1.5, -2.0]),)),
    "maximum_ties": (lambda m, x, y: m.maximum(x, y),
                     (np.array([1.0, 2.0, -1.0]), np.array([1.0, 0.0, -1.0]))),
    "minimum_ties_broadcast": (lambda m, x, y: m.minimum(x, y),
                               (np.array([[0.5, 1.0], [2.0, 0.5]]), np.array([0.5, 1.0]))),
    "max_ties": (lambda m, x: m.max(x, axis=1),
                 (np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]]),)),
    "min_all_ties": (lambda m, x: m.min(x), (np.array([[1.0, 1.0], [1.0, 5.0]]),)),
    "clip_at_bounds": (lambda m, x: m.clip(x, -1.0, 1.0), (np.array([-1.0, 0.0, 1.0, 2.0]),)),
    "power_zero_base": (lambda m, x, y: m.power(x, y),
                        (np.array([0.0, 0.0, 2.0]), np.array([0.0, 2.0, 0.0]))),
    "sqrt_of_square_at_one": (lambda m, x: m.sqrt(x * x), (np.array([1.0, 2.0]),)),
    "where_both_branches": (lambda m, x: m.where(x > 0, x, 2 * x), (np.array([0.0, 1.0]),)),
}


@pytest.mark.parametrize("case", sorted(_TIES))
def test_ties_and_kinks_match_jax(case):
    fn, args = _TIES[case]
    f = functools.partial(fn, FNP)
    jf = functools.partial(fn, JNP)
    cts = np.linspace(0.5, 1.5, np.size(f(*args))).reshape(np.shape(f(*args)))
    _, vjp_fn = ft.vjp(f, *args)
    _, jvjp = jax.vjp(jf, *[jnp.asarray(a) for a in args])
    assert_tree(vjp_fn(cts), to_numpy(jvjp(jnp.asarray(cts))), **tol(F64), what=f"vjp {case}")
    tangents = tuple(np.linspace(1.0, 2.0, a.size).reshape(a.shape) for a in args)
    ours = ft.jvp(f, args, tangents)
    theirs = jax.jvp(jf, tuple(jnp.asarray(a) for a in args),
                     tuple(jnp.asarray(t) for t in tangents))
    assert_tree(ours, to_numpy(theirs), **tol(F64), what=f"jvp {case}")
