"""The linear-algebra family: ``fnp.linalg`` (inv, solve, det, slogdet, cholesky, eigh,
eigvalsh, svd, svdvals, qr, pinv, matrix_power, lstsq, norm, matrix_norm, vector_norm, cond,
matrix_rank, multi_dot) and ``fnp.vdot``/``inner``/``kron``.

Every case is one function ``fn(m, *args)`` written once over a namespace ``m``: ``fnp``
(under test), ``np`` (the forward reference) and ``jax.numpy`` (x64: the oracle for
compositions).  Checks per case, in float64 on well-conditioned random inputs:

* forward value vs NumPy;
* ``jvp`` vs fourth-order central finite differences, ``vjp`` vs ``jvp`` by the
  inner-product identity, to second order (``ftransforms.testing.check_grads``);
* ``vmap`` at batch axis 0, last, and ``None`` for some arguments, and ``vmap(grad)``, vs a
  Python loop;
* ``grad``, ``hessian``, ``jacrev``, ``jacfwd`` vs JAX (jitted) for one or two cases per op
  and code path, ``vmap(grad)`` vs JAX for a subset;
* the rules never leave the input's array backend (a strict stand-in for CuPy).

Eigenvectors and singular vectors are compared through sign-invariant quantities
(``v * v``, ``u @ diag(g(s)) @ vh``).  NumPy's ``cholesky``/``eigh`` read only the lower
triangle (NOTE [numpy reads one triangle] in ``ftransforms/ops/linalg.py``); the JAX
oracle is given the same function, ``cholesky(tril(a) + tril(a, -1).T)``.
"""

from __future__ import annotations

import functools
import types
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np
import optree
import pytest

import ftransforms.numpy as fnp
from ftransforms import grad, hessian, jacfwd, jacrev, jvp, vjp, vmap
from ftransforms.backend import _NAMESPACES, register_backend
from ftransforms.core.errors import (
    BatchedControlFlowError,
    PerformanceWarning,
    SplitOutputError,
    UnsupportedOperationError,
)
from ftransforms.ops.linalg import fold_lower
from ftransforms.testing import check_grads, check_vmap
from tests.jaxpr_evaluator import on_jax
from tests.tolerances import assert_tree_close, tol

jax.config.update("jax_enable_x64", True)

F64 = tol(np.float64)

# -- inputs ------------------------------------------------------------------------------


def general(rng, n, m=None, *batch):
    """A well-conditioned matrix (square: close to 1.5 I)."""
    m = n if m is None else m
    a = 0.3 * rng.standard_normal(batch + (n, m))
    k = min(n, m)
    a[..., range(k), range(k)] += 1.5
    return a


def spd(rng, n):
    x = rng.standard_normal((n, n))
    return x @ x.T / n + np.eye(n)


def sym_distinct(rng, n):
    """Symmetric, with eigenvalues at least ~0.8 apart."""
    q = np.linalg.qr(rng.standard_normal((n, n)))[0]
    lam = np.arange(n) - (n - 1) / 2 + 0.1 * rng.standard_normal(n)
    return (q * lam) @ q.T


def distinct_sv(rng, m, n):
    """Singular values about 0.7 apart, the smallest about 1."""
    k = min(m, n)
    u = np.linalg.qr(rng.standard_normal((m, k)))[0]
    v = np.linalg.qr(rng.standard_normal((n, k)))[0]
    s = 1.0 + 0.7 * np.arange(k)[::-1] + 0.05 * rng.standard_normal(k)
    return (u * s) @ v.T


def garbage_above(rng, a):
    """``a`` with random values in its strict upper triangle (which numpy ignores)."""
    return a + np.triu(rng.standard_normal(a.shape), 1)


def vec(rng, n):
    return rng.standard_normal(n)


def away_from_zero(rng, shape):
    """Entries of magnitude in [0.5, 1.5] with random signs (abs/max have no kinks)."""
    return rng.choice([-1.0, 1.0], size=shape) * rng.uniform(0.5, 1.5, size=shape)


def distinct_abs(rng, shape):
    """Distinct magnitudes (no ties in max/min of abs), no zeros."""
    n = int(np.prod(shape))
    mags = 0.5 + np.arange(n) / n + 0.2 / n * rng.uniform(size=n)
    return (rng.permutation(mags) * rng.choice([-1.0, 1.0], size=n)).reshape(shape)


def distinct_sums(rng, shape):
    """A matrix whose row sums and column sums of ``abs`` are all distinct."""
    a = distinct_abs(rng, shape)
    a = a * (1.0 + 0.37 * np.arange(shape[-2]))[:, None]
    return a * (1.0 + 0.23 * np.arange(shape[-1]))[None, :]


# -- the namespaces ----------------------------------------------------------------------


def fold(m, a):
    """The symmetric matrix numpy's cholesky/eigh see: built from the lower triangle."""
    if m is fnp:
        return fold_lower(a)
    return m.tril(a) + m.swapaxes(m.tril(a, -1), -1, -2)


def svd_invariants(m, u, s, vh):
    """Sign-invariant functions of an SVD."""
    recon = m.matmul(u * m.sin(s)[..., None, :], vh)
    return s, u * u, vh * vh, recon


def eigh_invariants(m, w, v):
    recon = m.matmul(v * m.cos(w)[..., None, :], m.swapaxes(v, -1, -2))
    return w, v * v, recon


def qr_invariants(m, q, r):
    k = np.arange(r.shape[-2])
    return q * q, r * r, m.matmul(q * m.cos(r[..., k, k])[..., None, :], r)


# -- the cases ---------------------------------------------------------------------------


@dataclass
class Case:
    name: str
    fn: Callable  # fn(m, *args) with m in (fnp, np, jnp)
    sample: Callable  # sample(rng) -> tuple of args
    order: int = 2  # check_grads order
    grads: bool = True  # differentiable
    vmap_none: tuple = ()  # argument positions also tried with in_dims None


C = []


def case(name, fn, sample, **kw):
    C.append(Case(name, fn, sample, **kw))


# inv, solve, det, slogdet
case("inv", lambda m, a: m.linalg.inv(a), lambda r: (general(r, 3),))
case("inv_stack", lambda m, a: m.linalg.inv(a), lambda r: (general(r, 3, 3, 2),))
case(
    "solve_vec",
    lambda m, a, b: m.linalg.solve(a, b),
    lambda r: (general(r, 3), vec(r, 3)),
    vmap_none=(0, 1),
)
case(
    "solve_mat",
    lambda m, a, b: m.linalg.solve(a, b),
    lambda r: (general(r, 3), r.standard_normal((3, 2))),
    vmap_none=(0, 1),
)
case(
    "solve_broadcast",
    lambda m, a, b: m.linalg.solve(a, b),
    lambda r: (general(r, 3, 3, 2), r.standard_normal((3, 2))),
    vmap_none=(0, 1),
)
case(
    "solve_broadcast_b",
    lambda m, a, b: m.linalg.solve(a, b),
    lambda r: (general(r, 3), r.standard_normal((2, 1, 3, 2))),
    vmap_none=(0, 1),
)
case("det", lambda m, a: m.linalg.det(a), lambda r: (general(r, 3),))
case("det_stack", lambda m, a: m.linalg.det(a), lambda r: (general(r, 3, 3, 2),))
case("slogdet", lambda m, a: tuple(m.linalg.slogdet(a)), lambda r: (general(r, 3),))
case("slogdet_neg", lambda m, a: tuple(m.linalg.slogdet(-a)), lambda r: (general(r, 3, 3, 2),))
# cholesky, eigh
case("cholesky", lambda m, a: m.linalg.cholesky(fold(m, a)), lambda r: (spd(r, 3),))
case(
    "cholesky_lower_only",
    lambda m, a: m.linalg.cholesky(a) if m is not jnp else m.linalg.cholesky(fold(m, a)),
    lambda r: (garbage_above(r, spd(r, 3)),),
)
case(
    "cholesky_upper",
    lambda m, a: (
        m.linalg.cholesky(a, upper=True)
        if m is not jnp
        else m.swapaxes(m.linalg.cholesky(fold(m, m.swapaxes(a, -1, -2))), -1, -2)
    ),
    lambda r: (spd(r, 3) + np.tril(r.standard_normal((3, 3)), -1),),
)
case(
    "eigh",
    lambda m, a: eigh_invariants(m, *m.linalg.eigh(fold(m, a))),
    lambda r: (garbage_above(r, sym_distinct(r, 4)),),
)
case(
    "eigh_upper",
    lambda m, a: (
        eigh_invariants(m, *m.linalg.eigh(a, UPLO="U"))
        if m is not jnp
        else eigh_invariants(m, *m.linalg.eigh(fold(m, m.swapaxes(a, -1, -2))))
    ),
    lambda r: (sym_distinct(r, 3) + np.tril(r.standard_normal((3, 3)), -1),),
)
case(
    "eigvalsh",
    lambda m, a: m.linalg.eigvalsh(fold(m, a)),
    lambda r: (sym_distinct(r, 4),),
)
# svd, qr, pinv
for shape in ((3, 3), (5, 3), (3, 5)):
    tag = "x".join(map(str, shape))
    case(
        f"svd_{tag}",
        lambda m, a: svd_invariants(m, *m.linalg.svd(a, full_matrices=False)),
        lambda r, shape=shape: (distinct_sv(r, *shape),),
    )
    case(
        f"svdvals_{tag}",
        lambda m, a: m.linalg.svd(a, compute_uv=False),
        lambda r, shape=shape: (distinct_sv(r, *shape),),
    )
    case(
        f"qr_{tag}",
        lambda m, a: tuple(m.linalg.qr(a)),
        lambda r, shape=shape: (general(r, *shape),),
    )
    case(
        f"qr_inv_{tag}",
        lambda m, a: qr_invariants(m, *m.linalg.qr(a)),
        lambda r, shape=shape: (general(r, *shape),),
    )
    case(f"pinv_{tag}", lambda m, a: m.linalg.pinv(a), lambda r, shape=shape: (general(r, *shape),))
case(
    "svd_full_square",
    lambda m, a: svd_invariants(m, *m.linalg.svd(a)),
    lambda r: (distinct_sv(r, 3, 3),),
)
case("svdvals_fn", lambda m, a: m.linalg.svdvals(a), lambda r: (distinct_sv(r, 4, 3),))
case(
    "qr_complete_wide",
    lambda m, a: tuple(m.linalg.qr(a, mode="complete")),
    lambda r: (general(r, 2, 4),),
)
case("qr_r", lambda m, a: m.linalg.qr(a, mode="r") ** 2, lambda r: (general(r, 4, 3),))
case(
    "pinv_hermitian",
    lambda m, a: m.linalg.pinv(a, hermitian=True) if m is not jnp else m.linalg.pinv(fold(m, a)),
    lambda r: (garbage_above(r, sym_distinct(r, 3) + 3 * np.eye(3)),),
)
# matrix_power, lstsq
for p in (0, 1, 2, 3, 5, -1, -2):
    case(
        f"matrix_power_{p}",
        lambda m, a, p=p: m.linalg.matrix_power(a, p),
        lambda r: (general(r, 3),),
    )
case(
    "lstsq_tall_vec",
    lambda m, a, b: m.linalg.lstsq(a, b)[:2],
    lambda r: (general(r, 5, 3), vec(r, 5)),
)
case(
    "lstsq_tall_mat",
    lambda m, a, b: m.linalg.lstsq(a, b)[:2],
    lambda r: (general(r, 5, 3), r.standard_normal((5, 2))),
    vmap_none=(0, 1),
)
case(
    "lstsq_square",
    lambda m, a, b: m.linalg.lstsq(a, b)[0],
    lambda r: (general(r, 3), vec(r, 3)),
)
case(
    "lstsq_wide",
    lambda m, a, b: m.linalg.lstsq(a, b)[0],
    lambda r: (general(r, 2, 4), r.standard_normal((2, 3))),
)
# norms
for ord_ in (None, 1, 2, np.inf, -np.inf, 3, 0.5):
    case(
        f"norm_vec_{ord_}",
        lambda m, x, o=ord_: m.linalg.norm(x, o),
        lambda r: (distinct_abs(r, 5),),
    )
case("norm_vec_0", lambda m, x: m.linalg.norm(x, 0), lambda r: (distinct_abs(r, 5),), grads=False)
for ord_ in (None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf):
    case(
        f"norm_mat_{ord_}",
        lambda m, x, o=ord_: m.linalg.norm(x, o),
        lambda r: (distinct_sums(r, (4, 3)),),
    )
case(
    "norm_axis_keepdims",
    lambda m, x: m.linalg.norm(x, 1, axis=(2, 0), keepdims=True),
    lambda r: (distinct_sums(r, (3, 2, 4)),),
)
case(
    "norm_nuc_axes",
    lambda m, x: m.linalg.norm(x, "nuc", axis=(0, 2)),
    lambda r: (distinct_sv(r, 3, 4)[:, None, :] * np.array([1.0, 0.5])[None, :, None],),
)
case(
    "norm_axis_int",
    lambda m, x: m.linalg.norm(x, 3, axis=-1, keepdims=True),
    lambda r: (away_from_zero(r, (3, 4)),),
)
case("norm_flat", lambda m, x: m.linalg.norm(x), lambda r: (r.standard_normal((2, 3, 2)),))
case(
    "matrix_norm",
    lambda m, x: m.linalg.matrix_norm(x, ord=2),
    lambda r: (np.stack([distinct_sv(r, 3, 4), distinct_sv(r, 3, 4)]),),
)
case(
    "vector_norm",
    lambda m, x: m.linalg.vector_norm(x, axis=(0, 2), ord=3),
    lambda r: (away_from_zero(r, (2, 3, 2)),),
)
case("cond", lambda m, a: m.linalg.cond(a), lambda r: (distinct_sv(r, 4, 3),))
case("cond_fro", lambda m, a: m.linalg.cond(a, "fro"), lambda r: (general(r, 3),))
# products
case(
    "multi_dot",
    lambda m, a, b, c, d: m.linalg.multi_dot([a, b, c, d]),
    lambda r: (vec(r, 3), r.standard_normal((3, 5)), r.standard_normal((5, 2)), vec(r, 2)),
    vmap_none=(1, 2),
)
case(
    "multi_dot3",
    lambda m, a, b, c: m.linalg.multi_dot([a, b, c]),
    lambda r: (r.standard_normal((4, 3)), r.standard_normal((3, 5)), r.standard_normal((5, 2))),
)
case(
    "kron",
    lambda m, a, b: m.kron(a, b),
    lambda r: (r.standard_normal((2, 3)), r.standard_normal((3, 2))),
    vmap_none=(0, 1),
)
case(
    "kron_ranks", lambda m, a, b: m.kron(a, b), lambda r: (vec(r, 2), r.standard_normal((2, 2, 3)))
)
case(
    "vdot",
    lambda m, a, b: m.vdot(a, b),
    lambda r: (r.standard_normal((2, 3)), r.standard_normal((3, 2))),
    vmap_none=(0,),
)
case(
    "inner",
    lambda m, a, b: m.inner(a, b),
    lambda r: (r.standard_normal((2, 3)), r.standard_normal((4, 3))),
    vmap_none=(1,),
)

CASES = {c.name: c for c in C}
DIFF = [c.name for c in C if c.grads]
# The cases compared with JAX (grad, hessian, jacrev, jacfwd): one or two per op and per
# code path (tall/wide SVD and QR).  JAX's compile time is what this costs; every case is
# checked to second order against finite differences by test_check_grads.
JAX = """
inv solve_broadcast det slogdet_neg cholesky eigh eigvalsh svd_3x3 svd_5x3 svd_3x5
svdvals_3x5 qr_inv_5x3 qr_inv_3x5 pinv_5x3 pinv_hermitian matrix_power_-2 lstsq_tall_vec
norm_mat_nuc norm_mat_2 norm_mat_inf norm_vec_3 cond multi_dot kron
""".split()
#: vmap(grad) compared with JAX's vmap(grad) (every case is compared with a loop of grad).
JAX_VMAP = "inv solve_broadcast slogdet_neg cholesky eigh svd_5x3 qr_inv_3x5 pinv_3x5".split()


def sample(c, seed=0):
    return c.sample(np.random.default_rng(seed))


def np_ref(c, args):
    return c.fn(np, *args)


# -- forward ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(CASES))
def test_forward_matches_numpy(name):
    c = CASES[name]
    args = sample(c)
    got, expected = c.fn(fnp, *args), np_ref(c, args)
    # Without a transform, results are what NumPy returns: arrays, or NumPy scalars.
    kinds = optree.tree_map(lambda x: isinstance(x, np.ndarray), (got, expected))
    assert kinds[0] == kinds[1], f"{name}: array/scalar kinds {kinds}"
    assert_tree_close(_np(got), expected, err_msg=name, **F64)


def test_results_are_numpys_named_tuples():
    a = spd(np.random.default_rng(0), 3)
    for fn in (np.linalg.eigh, np.linalg.svd, np.linalg.qr, np.linalg.slogdet):
        got = getattr(fnp.linalg, fn.__name__)(a)
        assert type(got) is type(fn(a)), fn.__name__
        assert got._fields == fn(a)._fields


def test_lstsq_all_outputs_and_rank():
    r = np.random.default_rng(3)
    a, b = general(r, 6, 3), r.standard_normal((6, 2))
    x, res, rank, s = fnp.linalg.lstsq(a, b)
    ex, eres, erank, es = np.linalg.lstsq(a, b)
    assert_tree_close((x, res, s), (ex, eres, es), **F64)
    assert int(rank) == erank == 3
    # rank-deficient: residuals empty, x the minimum-norm solution
    a_def = np.concatenate([a[:, :2], a[:, :1]], axis=1)
    x, res, rank, s = fnp.linalg.lstsq(a_def, b)
    ex, eres, erank, _ = np.linalg.lstsq(a_def, b)
    assert res.shape == eres.shape == (0,)
    assert int(rank) == erank == 2
    assert_tree_close(x, ex, **F64)


def test_matrix_rank_and_float32():
    r = np.random.default_rng(4)
    a = np.stack([general(r, 4), np.outer(vec(r, 4), vec(r, 4))])
    assert np.array_equal(fnp.linalg.matrix_rank(a), np.linalg.matrix_rank(a))
    assert np.array_equal(
        vmap(fnp.linalg.matrix_rank)(a), np.array([np.linalg.matrix_rank(x) for x in a])
    )
    a32 = general(r, 3).astype(np.float32)
    for fn in (fnp.linalg.inv, fnp.linalg.det, fnp.linalg.pinv, fnp.linalg.cholesky):
        x = a32 @ a32.T if fn is fnp.linalg.cholesky else a32
        assert fn(x).dtype == np.float32
        g = grad(lambda x, fn=fn: fnp.sum(fn(x)))(x)
        assert g.dtype == np.float32, fn


def test_integer_input_computes_in_float64():
    a = np.array([[2, 1], [1, 3]])
    assert_tree_close(fnp.linalg.inv(a), np.linalg.inv(a), **F64)
    assert fnp.linalg.det(a) == pytest.approx(np.linalg.det(a), rel=1e-12)


# -- derivatives: finite differences and the inner-product identity ------------------------


@pytest.mark.parametrize("name", DIFF)
def test_check_grads(name):
    c = CASES[name]
    check_grads(lambda *a: c.fn(fnp, *a), sample(c), order=c.order)


# -- vmap ---------------------------------------------------------------------------------

B = 3


def batched_args(c, axis):
    samples = [sample(c, seed) for seed in range(B)]
    return tuple(
        np.stack([s[i] for s in samples], axis=axis if axis >= 0 else np.ndim(samples[0][i]))
        for i in range(len(samples[0]))
    )


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("axis", [0, -1])
def test_vmap(name, axis):
    c = CASES[name]
    args = batched_args(c, axis)
    check_vmap(lambda *a: c.fn(fnp, *a), args, in_dims=axis)


@pytest.mark.parametrize("name", [n for n in CASES if CASES[n].vmap_none])
def test_vmap_with_unbatched_arguments(name):
    c = CASES[name]
    args = batched_args(c, 0)
    plain = sample(c, 7)
    for i in c.vmap_none:
        mixed = tuple(plain[j] if j == i else a for j, a in enumerate(args))
        dims = tuple(None if j == i else 0 for j in range(len(args)))
        check_vmap(lambda *a: c.fn(fnp, *a), mixed, in_dims=dims)


def test_vmap_size_one_and_nested():
    r = np.random.default_rng(5)
    a = np.stack([np.stack([spd(r, 3) for _ in range(2)]) for _ in range(2)])
    check_vmap(fnp.linalg.cholesky, (a[:1, 0],), in_dims=0)
    got = vmap(vmap(fnp.linalg.cholesky), in_dims=1)(a)
    expected = np.swapaxes(np.linalg.cholesky(a), 0, 1)
    assert_tree_close(got, expected, **F64)


def test_vmap_of_grad_of_lstsq_and_mixed_rank_error():
    r = np.random.default_rng(6)
    a = np.stack([general(r, 5, 3) for _ in range(3)])
    b = r.standard_normal(5)
    check_vmap(lambda a: fnp.linalg.lstsq(a, b)[1], (a,))
    a_bad = a.copy()
    a_bad[1, :, 2] = a_bad[1, :, 0]
    # mixed ranks split the batch, as the loop over rows: the residuals are ragged (the
    # loop's np.stack fails too), the solutions are not
    with pytest.raises(SplitOutputError, match="different shapes"):
        vmap(lambda a: fnp.linalg.lstsq(a, b)[1])(a_bad)
    with pytest.warns(PerformanceWarning):
        x_bad = vmap(lambda a: fnp.linalg.lstsq(a, b)[0])(a_bad)
    assert_tree_close(x_bad, np.stack([np.linalg.lstsq(m, b)[0] for m in a_bad]), **F64)
    with pytest.raises(BatchedControlFlowError, match="lstsq"):
        vmap(lambda a: fnp.linalg.lstsq(a, b)[1], split=False)(a_bad)
    # all rank-deficient: empty residuals, like numpy's
    a_def = a.copy()
    a_def[:, :, 2] = a_def[:, :, 0]
    x, res, rank, _ = vmap(lambda a: fnp.linalg.lstsq(a, b))(a_def)
    assert res.shape == (3, 0) and np.array_equal(rank, [2, 2, 2])
    assert_tree_close(x, np.stack([np.linalg.lstsq(m, b)[0] for m in a_def]), **F64)


# -- compositions vs JAX ------------------------------------------------------------------


def _weights(c, args):
    """Fixed random weights for every float output leaf of the case."""
    outs = optree.tree_leaves(np_ref(c, args))
    r = np.random.default_rng(99)
    return [r.standard_normal(np.shape(o)) for o in outs if np.asarray(o).dtype.kind == "f"]


def _scalar(c, m, weights):
    def f(*args):
        outs = [o for o in optree.tree_leaves(c.fn(m, *args)) if o.dtype.kind == "f"]
        return sum(m.sum(m.sin(o) * w) for o, w in zip(outs, weights))

    return f


def _vector(c, m):
    def f(*args):
        outs = [o for o in optree.tree_leaves(c.fn(m, *args)) if o.dtype.kind == "f"]
        return m.concatenate([m.ravel(o) for o in outs])

    return f


def _np(tree):
    return optree.tree_map(np.asarray, tree)


@functools.cache
def jax_oracle(name):
    """JAX's jacobian of the case's outputs and hessian of its weighted sum (all arguments),
    through ``on_jax`` (tests/jaxpr_evaluator.py: no XLA compile unless a primitive needs it).  The
    gradient of the weighted sum is computed from the jacobian (the chain rule in NumPy)."""
    c = CASES[name]
    args = sample(c)
    w = _weights(c, args)
    argnums = tuple(range(len(args)))
    jac = _np(on_jax(jax.jacrev(_vector(c, jnp), argnums=argnums), *args))
    outs = [o for o in optree.tree_leaves(np_ref(c, args)) if np.asarray(o).dtype.kind == "f"]
    seed = np.concatenate([np.ravel(np.cos(o) * wk) for o, wk in zip(outs, w)])
    return {
        "jac": jac,
        "grad": tuple(np.tensordot(seed, j, axes=1) for j in jac),
        "hessian": _np(on_jax(jax.hessian(_scalar(c, jnp, w), argnums=argnums), *args)),
    }


@pytest.mark.parametrize("name", JAX)
def test_grad_and_hessian_vs_jax(name):
    c = CASES[name]
    args = sample(c)
    f = _scalar(c, fnp, _weights(c, args))
    expected = jax_oracle(name)
    argnums = tuple(range(len(args)))
    got = grad(f, argnums=argnums)(*args)
    assert_tree_close(got, expected["grad"], err_msg=f"grad {name}", **F64)
    got = hessian(f, argnums=argnums)(*args)
    assert_tree_close(got, expected["hessian"], err_msg=f"hessian {name}", **F64)


@pytest.mark.parametrize("name", JAX)
def test_jacobians_vs_jax(name):
    c = CASES[name]
    args = sample(c)
    f = _vector(c, fnp)
    argnums = tuple(range(len(args)))
    expected = jax_oracle(name)["jac"]
    assert_tree_close(jacrev(f, argnums)(*args), expected, err_msg=f"jacrev {name}", **F64)
    assert_tree_close(jacfwd(f, argnums)(*args), expected, err_msg=f"jacfwd {name}", **F64)


@pytest.mark.parametrize("name", JAX_VMAP)
def test_vmap_of_grad_vs_jax(name):
    c = CASES[name]
    args = batched_args(c, 0)
    w = _weights(c, sample(c))
    f, fj = _scalar(c, fnp, w), _scalar(c, jnp, w)
    expected = _np(on_jax(jax.vmap(jax.grad(fj)), *args))
    assert_tree_close(vmap(grad(f))(*args), expected, err_msg=f"vmap∘grad {name}", **F64)


@pytest.mark.parametrize("name", DIFF)
def test_vmap_of_grad_vs_loop(name):
    c = CASES[name]
    args = batched_args(c, -1)
    f = _scalar(c, fnp, _weights(c, sample(c)))
    check_vmap(grad(f, argnums=tuple(range(len(args)))), args, in_dims=-1)


def test_hessian_of_logdet_and_grad_of_grad():
    r = np.random.default_rng(8)
    s = spd(r, 4)

    def logdet_chol(a):
        return 2.0 * fnp.sum(fnp.log(fnp.linalg.diagonal(fnp.linalg.cholesky(a))))

    def logdet_chol_j(a):
        return 2.0 * jnp.sum(jnp.log(jnp.diagonal(jnp.linalg.cholesky(fold(jnp, a)))))

    expected = _np(on_jax(jax.hessian(logdet_chol_j), s))
    assert_tree_close(hessian(logdet_chol)(s), expected, **F64)
    # grad of logdet = inv(a).T, whichever route
    inv_t = np.linalg.inv(s).T
    assert_tree_close(grad(lambda a: fnp.linalg.slogdet(a)[1])(s), inv_t, **F64)
    assert_tree_close(grad(lambda a: fnp.log(fnp.linalg.det(a)))(s), inv_t, **F64)
    # the cholesky route sees the lower triangle: its gradient is fold_lower's adjoint
    folded = np.tril(inv_t) + np.tril(inv_t.T, -1)
    assert_tree_close(grad(logdet_chol)(s), folded, **F64)
    # grad of grad: d/da sum(grad(logdet)(a) * c) vs JAX
    cw = r.standard_normal((4, 4))

    def gg(m, gradf, logdet):
        return gradf(lambda a: m.sum(gradf(logdet)(a) * cw))

    got = gg(fnp, grad, lambda a: fnp.linalg.slogdet(a)[1])(s)
    expected = on_jax(gg(jnp, jax.grad, lambda a: jnp.linalg.slogdet(a)[1]), s)
    assert_tree_close(got, np.asarray(expected), **F64)


# -- the NumPy protocol ---------------------------------------------------------------------


def test_plain_numpy_code_under_transforms():
    r = np.random.default_rng(9)
    a, b = general(r, 3), r.standard_normal((3, 2))
    s = spd(r, 3)

    def loss(m, a, b, s):
        x = m.linalg.solve(a, b)
        out = m.sum(m.linalg.inv(a) * a.T) + m.linalg.det(a) + m.linalg.slogdet(a)[1]
        out = out + m.sum(x**2) + m.sum(m.linalg.pinv(a)) + m.linalg.norm(a, "nuc")
        out = out + m.sum(m.linalg.cholesky(s)) + m.sum(m.linalg.eigvalsh(s) ** 2)
        out = out + m.sum(m.linalg.svd(a, compute_uv=False)) + m.sum(m.linalg.qr(a)[1] ** 2)
        out = out + m.sum(m.linalg.matrix_power(a, 3)) + m.sum(m.kron(a, b))
        out = out + m.sum(m.linalg.multi_dot([a, a, b])) + m.sum(m.linalg.lstsq(a, b[:, 0])[0])
        return out

    expected = grad(lambda *z: loss(fnp, *z), argnums=(0, 1, 2))(a, b, s)
    got = grad(lambda *z: loss(np, *z), argnums=(0, 1, 2))(a, b, s)
    assert_tree_close(got, expected, **F64)
    assert float(loss(fnp, a, b, s)) == pytest.approx(float(loss(np, a, b, s)), rel=1e-12)


# -- errors -------------------------------------------------------------------------------


def test_errors():
    r = np.random.default_rng(10)
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        fnp.linalg.inv(np.ones((2, 3)))
    with pytest.raises(np.linalg.LinAlgError, match="two-dimensional"):
        fnp.linalg.det(np.ones(3))
    a = general(r, 4, 2)
    # full_matrices=True of a non-square matrix: U has no unique derivative
    assert fnp.linalg.svd(a)[0].shape == (4, 4)
    with pytest.raises(UnsupportedOperationError, match="full_matrices=False"):
        grad(lambda a: fnp.sum(fnp.linalg.svd(a)[0]))(a)
    with pytest.raises(UnsupportedOperationError, match="mode='reduced'"):
        grad(lambda a: fnp.sum(fnp.linalg.qr(a, mode="complete")[0]))(a)
    with pytest.raises(np.linalg.LinAlgError):
        fnp.linalg.inv(np.zeros((2, 2)))
    # after an error, transforms work again
    assert_tree_close(grad(lambda a: fnp.linalg.det(a))(np.eye(2)), np.eye(2), **F64)


def test_svd_full_matrices_with_one_extra_singular_vector():
    # NOTE [full_matrices=True singular vectors]: the extra column of U (a 5x4 matrix) or
    # row of Vh (a 4x5 one) is unique up to its sign: both modes against differences
    r = np.random.default_rng(12)
    for shape, pick in (
        ((5, 4), lambda u, s, vh: u[:, -1] / u[0, -1]),
        ((4, 5), lambda u, s, vh: vh[-1] / vh[-1, 0]),
    ):
        a = r.standard_normal(shape)
        f = lambda a: pick(*np.linalg.svd(a)) + 0.1 * np.linalg.svd(a)[1].sum()  # noqa: E731
        fd = np.stack(
            [(f(a + e) - f(a - e)) / 2e-6 for e in np.eye(a.size).reshape(-1, *shape) * 1e-6], -1
        )
        fd = fd.reshape(fd.shape[0], *shape)
        assert_tree_close(jacrev(f)(a), fd, rtol=1e-6, atol=1e-7)
        assert_tree_close(jacfwd(f)(a), fd, rtol=1e-6, atol=1e-7)
    with pytest.raises(UnsupportedOperationError, match="complex"):
        grad(lambda a: fnp.abs(np.linalg.svd(a)[0][:, -1]).sum())(general(r, 3, 2) + 1j)


def test_jvp_vjp_of_eigh_are_consistent_on_a_batch():
    r = np.random.default_rng(11)
    a = np.stack([sym_distinct(r, 3) for _ in range(2)])
    t = r.standard_normal(a.shape)
    (w, v), (dw, dv) = jvp(fnp.linalg.eigh, (a,), (t,))
    (w2, v2), fn = vjp(fnp.linalg.eigh, a)
    cw, cv = r.standard_normal(w.shape), r.standard_normal(v.shape)
    (abar,) = fn(fnp.linalg.EighResult(cw, cv))
    assert np.sum(dw * cw) + np.sum(dv * cv) == pytest.approx(np.sum(abar * t), rel=1e-10)


# -- a second array backend (a strict, NumPy-backed stand-in for CuPy) ---------------------


class OtherArray(np.ndarray):
    """Arrays of a fake second backend: mixing them with numpy arrays raises."""


def _other_namespace(module, name):
    mod = types.ModuleType(name)

    def wrap(value):
        # Like CuPy: results are arrays of the backend, 0-d ones included (never scalars).
        if type(value) is np.ndarray or isinstance(value, np.generic):
            return np.asarray(value).view(OtherArray)
        if isinstance(value, tuple):
            return (
                type(value)(*map(wrap, value))
                if hasattr(value, "_fields")
                else tuple(map(wrap, value))
            )
        return value

    def __getattr__(attr):  # noqa: N807
        if attr == "linalg":
            return _other_namespace(np.linalg, f"{name}.linalg")
        obj = getattr(module, attr)
        if not callable(obj) or isinstance(obj, type):
            return obj

        def call(*args, **kwargs):
            mixed = [type(a).__name__ for a in args if type(a) is np.ndarray and a.ndim]
            assert not mixed, f"{name}.{attr} got a plain numpy array"
            plain = [np.asarray(a) if isinstance(a, OtherArray) else a for a in args]
            return wrap(obj(*plain, **kwargs))

        return call

    mod.__getattr__ = __getattr__
    return mod


@pytest.fixture
def other_backend():
    register_backend(OtherArray, _other_namespace(np, "otherxp"))
    try:
        yield lambda a: np.asarray(a, dtype=float).view(OtherArray)
    finally:
        _NAMESPACES.pop(OtherArray, None)


def test_rules_stay_on_the_input_backend(other_backend):
    """Every impl and rule goes through the input's namespace (as CuPy needs): a constant
    built with plain numpy would raise MixedBackendError here."""
    r = np.random.default_rng(12)
    a_np = general(r, 3, 3, 2)
    s_np = np.stack([sym_distinct(r, 3) + 3 * np.eye(3) for _ in range(2)])
    b_np = r.standard_normal((2, 3, 2))

    def loss(m, a, s, b):
        out = m.sum(m.linalg.inv(a)) + m.sum(m.linalg.solve(a, b)) + m.sum(m.linalg.det(a))
        out = out + m.sum(m.linalg.slogdet(a)[1]) + m.sum(m.linalg.cholesky(s) ** 2)
        w, v = m.linalg.eigh(s)
        out = out + m.sum(w * w) + m.sum(v**4)
        u, sv, vh = m.linalg.svd(a[..., :2], full_matrices=False)
        out = out + m.sum(sv) + m.sum(u**4) + m.sum(vh**4)
        out = out + m.sum(m.linalg.qr(a)[1] ** 2) + m.sum(m.linalg.pinv(a[..., :2]))
        return out + m.sum(m.linalg.eigvalsh(s)) + m.sum(m.linalg.norm(a, "nuc", axis=(-2, -1)))

    a, s, b = other_backend(a_np), other_backend(s_np), other_backend(b_np)
    argnums = (0, 1, 2)
    got = grad(lambda *z: loss(fnp, *z), argnums=argnums)(a, s, b)
    assert all(type(g) is OtherArray for g in got)
    expected = grad(lambda *z: loss(fnp, *z), argnums=argnums)(a_np, s_np, b_np)
    assert_tree_close(_np(got), expected, **F64)
    h = hessian(lambda a: loss(fnp, a, s, b))(a)
    assert type(h) is OtherArray
    per_sample = vmap(grad(lambda *z: loss(fnp, *z), argnums=argnums))(a, s, b)
    assert all(type(g) is OtherArray for g in per_sample)


def test_jit_replays_linalg_and_lstsq_reads_the_rank():
    from ftransforms import jit

    r = np.random.default_rng(13)
    a, b = general(r, 5, 3), vec(r, 5)
    f = jit(lambda a: grad(lambda a: fnp.linalg.slogdet(a)[1] + fnp.sum(fnp.linalg.pinv(a)))(a))
    for s in (general(r, 3), general(r, 3)):
        expected = grad(lambda a: fnp.linalg.slogdet(a)[1] + fnp.sum(fnp.linalg.pinv(a)))(s)
        assert_tree_close(f(s), expected, **F64)
    g = jit(lambda a, b: fnp.linalg.lstsq(a, b)[1])
    a_def = a.copy()
    a_def[:, 2] = a_def[:, 0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # "runs eagerly": the rank is data
        for x in (a, a_def, a):
            assert_tree_close(g(x, b), np.linalg.lstsq(x, b)[1], **F64)


@pytest.mark.parametrize("wrt", [0, 1])
def test_dot_product_cotangent_has_each_inputs_dtype(wrt):
    """1-D @ 1-D with float32 and float64 operands: each gradient keeps its input's dtype
    (the output, and so the cotangent, is float64)."""
    a, b = np.ones(3, np.float32), np.arange(3.0)
    g = grad(lambda a, b: a @ b, argnums=wrt)(a, b)
    assert g.dtype == (a, b)[wrt].dtype
    np.testing.assert_array_equal(g, (b, a)[wrt])
