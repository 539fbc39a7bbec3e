"""Operator coverage, second part: ``ftransforms.scipy.special``, NumPy's elementwise
extras, reductions (cumprod, average, where=, nan-reductions), shape functions, sorting
and functional index updates.

Each case of :data:`CASES` is one operation written once as ``op(m, *args)`` over a
namespace ``m`` (``FNP``: the code under test; ``NP``: NumPy/SciPy, the forward reference;
``JNP``: ``jax.numpy``/``jax.scipy``, the oracle for gradients).  Every array in ``args`` is
an operand (batched by the vmap tests, differentiated when it is floating point);
everything else is static.  Per case, in float64:

* forward value against NumPy/SciPy;
* ``check_grads`` to second order: ``jvp`` against central finite differences and ``vjp``
  against ``jvp`` by the inner-product identity;
* ``vmap`` with the batch axis at 0, last, and unbatched arguments (``None``) against a
  Python loop, with the loop fallback switched off;
* ``grad``, ``vmap(grad)`` and ``jacfwd`` against JAX.

Edge cases (logsumexp of +-1e4, xlogy at 0, sort with ties, cumprod at zeros, sinc at 0,
...) have their own tests below.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import jax.scipy.special as jsp
import numpy as np
import optree
import pytest
import scipy.special as ssp

import ftransforms.numpy as fnp
import ftransforms.scipy.special as fsp
from ftransforms import grad, hessian, jacfwd, jacrev, jvp, vjp, vmap
from ftransforms.core.errors import (
    BatchedControlFlowError,
    PerformanceWarning,
    SplitOutputError,
    UnsupportedOperationError,
)
from ftransforms.testing import check_grads, check_vmap
from tests.jaxpr_evaluator import on_jax
from tests.tolerances import assert_tree_close, tol

jax.config.update("jax_enable_x64", True)

F64 = tol(np.float64)
B = 3  # batch size of the vmap tests


# -- the three namespaces ----------------------------------------------------------------


class NS:
    def __init__(self, label: str, module: Any, **overrides: Any) -> None:
        self._label, self._module = label, module
        self.__dict__.update(overrides)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._module, name)

    def __repr__(self) -> str:
        return self._label


def _fnp_at(x, index, method, v):
    return getattr(fnp.IndexUpdateHelper(x)[index], method)(v)


_NP_UFUNC_AT = {
    "multiply": np.multiply,
    "divide": np.divide,
    "power": np.power,
    "min": np.minimum,
    "max": np.maximum,
}


def _np_at(x, index, method, v):
    out = np.array(x, copy=True)
    _NP_UFUNC_AT[method].at(out, index, v)
    return out


def _jnp_at(x, index, method, v):
    return getattr(jnp.asarray(x).at[index], method)(v)


def _np_add_at(x, index, v):
    out = np.array(x, copy=True)
    np.add.at(out, index, v)
    return out


FNP = NS("fnp", fnp, sp=fsp, at=_fnp_at)
NP = NS("np", np, sp=ssp, at=_np_at, add_at=_np_add_at)
JNP = NS("jnp", jnp, sp=jsp, at=_jnp_at, add_at=lambda x, i, v: jnp.asarray(x).at[i].add(v))


# -- cases -------------------------------------------------------------------------------


@dataclass
class Case:
    id: str
    op: Callable  # op(m, *args)
    sample: Callable  # rng -> tuple of arrays (same shapes for every seed)
    diff: bool = True  # differentiable in its float arguments
    jax: bool = True  # compare with JAX (False: the reason is in `note`)
    order: int = 2
    note: str = ""


def U(lo, hi, *shape):
    return lambda rng: rng.uniform(lo, hi, shape)


def N(*shape):
    return lambda rng: rng.standard_normal(shape)


def args_of(*makers):
    return lambda rng: tuple(mk(rng) for mk in makers)


def with_zeros(*shape, zeros=((0, 1),)):
    def make(rng):
        x = rng.uniform(0.5, 1.5, shape) * rng.choice([-1.0, 1.0], shape)
        for idx in zeros:
            x[idx] = 0.0
        return x

    return make


def sorted_rows(*shape):
    return lambda rng: np.sort(rng.standard_normal(shape), axis=-1)


def with_nonfinite(m, x, fill=(np.nan, np.inf, -np.inf)):
    """``x`` with NaN (and +-inf) written into some elements, with derivative 0 there."""
    fill = np.resize(np.asarray(fill), x.shape[-1])
    where = (np.arange(x.shape[-1]) % 2 == 1) & (np.arange(x.shape[-1]) < 2 * fill.size)
    return m.where(where, fill, x)


NO_JAX_SCATTER_MUL = (
    "JAX differentiates x.at[i].multiply/divide/power only with unique_indices=True, which "
    "jnp.ndarray.at cannot be told for a traced index; checked by finite differences"
)
MASK = np.array([[True, False, True, True], [False, False, True, False], [True, True, True, False]])
IDX_UNIQUE = (np.array([0, 2, 1]), np.array([3, 0, 1]))
IDX_DUP = np.array([1, 3, 1, 0, 1])

CASES = [
    # scipy.special
    Case("logsumexp", lambda m, x: m.sp.logsumexp(x), args_of(N(3, 4))),
    Case(
        "logsumexp_axis_kd", lambda m, x: m.sp.logsumexp(x, axis=1, keepdims=True), args_of(N(3, 4))
    ),
    Case(
        "logsumexp_b",
        lambda m, x, b: m.sp.logsumexp(x, axis=0, b=b),
        args_of(N(3, 4), U(0.5, 2, 3, 4)),
    ),
    Case(
        "logsumexp_sign",
        lambda m, x, b: m.sp.logsumexp(x, axis=1, b=b, return_sign=True),
        args_of(N(3, 4), lambda rng: rng.uniform(0.5, 2, (3, 4)) * np.array([1, -1, 1, 1])),
    ),
    Case("expit", lambda m, x: m.sp.expit(x), args_of(U(-6, 6, 5))),
    Case("logit", lambda m, x: m.sp.logit(x), args_of(U(0.1, 0.9, 5))),
    Case("erf", lambda m, x: m.sp.erf(x), args_of(U(-2, 2, 5))),
    Case("erfc", lambda m, x: m.sp.erfc(x), args_of(U(-2, 2, 5))),
    Case("erfinv", lambda m, x: m.sp.erfinv(x), args_of(U(-0.8, 0.8, 5))),
    Case("gammaln", lambda m, x: m.sp.gammaln(x), args_of(U(0.5, 4, 5))),
    Case("digamma", lambda m, x: m.sp.digamma(x), args_of(U(0.5, 4, 5))),
    Case("polygamma1", lambda m, x: m.sp.polygamma(1, x), args_of(U(0.5, 4, 5))),
    Case(
        "polygamma_n",
        lambda m, x: m.sp.polygamma(np.array([0, 1, 2, 3, 2]), x),
        args_of(U(0.5, 4, 5)),
    ),
    Case("xlogy", lambda m, x, y: m.sp.xlogy(x, y), args_of(N(2, 3), U(0.5, 3, 3))),
    Case("xlog1py", lambda m, x, y: m.sp.xlog1py(x, y), args_of(N(2, 3), U(-0.5, 3, 3))),
    Case("softmax_all", lambda m, x: m.sp.softmax(x, axis=None), args_of(N(3, 4))),
    Case("softmax_ax1", lambda m, x: m.sp.softmax(x, axis=1), args_of(N(3, 4))),
    Case("log_softmax_ax0", lambda m, x: m.sp.log_softmax(x, axis=0), args_of(N(3, 4))),
    # elementwise extras
    Case("logaddexp", lambda m, x, y: m.logaddexp(x, y), args_of(N(2, 3), N(3))),
    Case("logaddexp2", lambda m, x, y: m.logaddexp2(x, y), args_of(N(2, 3), N(2, 3))),
    Case("hypot", lambda m, x, y: m.hypot(x, y), args_of(N(2, 3), N(2, 3))),
    Case("copysign", lambda m, x, y: m.copysign(x, y), args_of(U(0.5, 2, 4), N(4))),
    Case("fmax", lambda m, x, y: m.fmax(x, y), args_of(N(4), N(4))),
    Case("fmin", lambda m, x, y: m.fmin(x, y), args_of(N(3, 4), N(4))),
    Case(
        "heaviside",
        lambda m, x, h: m.heaviside(x, h),
        args_of(lambda rng: rng.choice([-1.0, 1.0], 5) * rng.uniform(0.5, 1, 5), N(5)),
    ),
    Case(
        "heaviside_at0", lambda m, h: m.heaviside(np.array([0.0, -1.0, 0.0, 2.0]), h), args_of(N(4))
    ),
    Case("float_power", lambda m, x, y: m.float_power(x, y), args_of(U(0.5, 2, 4), N(4))),
    Case("deg2rad", lambda m, x: m.deg2rad(x), args_of(N(4))),
    Case("rad2deg", lambda m, x: m.rad2deg(x), args_of(N(4))),
    Case("radians", lambda m, x: m.radians(x), args_of(N(4))),
    Case("degrees", lambda m, x: m.degrees(x), args_of(N(4))),
    Case("sinc", lambda m, x: m.sinc(x), args_of(lambda rng: np.r_[0.0, rng.uniform(-3, 3, 6)])),
    Case("nan_to_num", lambda m, x: m.nan_to_num(with_nonfinite(m, x)), args_of(U(0.5, 2, 4))),
    Case("positive", lambda m, x: m.positive(x), args_of(N(4))),
    # reductions
    Case("cumprod_ax1", lambda m, x: m.cumprod(x, axis=1), args_of(U(0.5, 1.5, 3, 4))),
    Case("cumprod_none", lambda m, x: m.cumprod(x), args_of(U(-1.5, 1.5, 2, 3))),
    Case(
        "cumprod_zero",
        lambda m, x: m.cumprod(x, axis=-1),
        args_of(with_zeros(2, 5, zeros=((0, 1), (1, 4)))),
    ),
    Case(
        "cumprod_2zeros",
        lambda m, x: m.cumprod(x, axis=0),
        args_of(with_zeros(6, 2, zeros=((1, 0), (3, 0), (2, 1)))),
    ),
    Case("average", lambda m, x: m.average(x, axis=0), args_of(N(3, 4))),
    Case(
        "average_w", lambda m, x, w: m.average(x, axis=1, weights=w), args_of(N(3, 4), U(0.5, 2, 4))
    ),
    Case(
        "average_w_full", lambda m, x, w: m.average(x, weights=w), args_of(N(3, 4), U(0.5, 2, 3, 4))
    ),
    Case(
        "average_returned",
        lambda m, x, w: m.average(x, axis=0, weights=w, returned=True),
        args_of(N(3, 4), U(0.5, 2, 3, 4)),
    ),
    Case("ptp", lambda m, x: m.ptp(x, axis=1), args_of(N(3, 4))),
    Case("sum_where", lambda m, x: m.sum(x, axis=1, where=MASK), args_of(N(3, 4))),
    Case(
        "sum_where_initial",
        lambda m, x, k: m.sum(x, where=k > 0, initial=2.0),
        args_of(N(3, 4), N(3, 4)),
    ),
    Case("mean_where", lambda m, x: m.mean(x, axis=0, where=MASK), args_of(N(3, 4))),
    Case("mean_where_all", lambda m, x, k: m.mean(x, where=k > -0.5), args_of(N(3, 4), N(3, 4))),
    Case("max_where", lambda m, x: m.max(x, axis=1, where=MASK, initial=-5.0), args_of(N(3, 4))),
    Case("min_where", lambda m, x: m.min(x, axis=0, where=MASK, initial=5.0), args_of(N(3, 4))),
    Case("max_initial", lambda m, x: m.max(x, axis=1, initial=0.0), args_of(N(3, 4))),
    Case("nansum", lambda m, x: m.nansum(with_nonfinite(m, x, np.nan), axis=1), args_of(N(3, 4))),
    Case("nanmean", lambda m, x: m.nanmean(with_nonfinite(m, x, np.nan), axis=1), args_of(N(3, 4))),
    Case("nanmax", lambda m, x: m.nanmax(with_nonfinite(m, x, np.nan), axis=1), args_of(N(3, 4))),
    Case("nanmin", lambda m, x: m.nanmin(with_nonfinite(m, x, np.nan)), args_of(N(3, 4))),
    # shape
    Case("tile", lambda m, x: m.tile(x, (2, 1, 3)), args_of(N(2, 3))),
    Case("tile_int", lambda m, x: m.tile(x, 2), args_of(N(3))),
    Case("repeat", lambda m, x: m.repeat(x, 2, axis=1), args_of(N(2, 3))),
    Case("repeat_none", lambda m, x: m.repeat(x, 3), args_of(N(2, 2))),
    Case(
        "repeat_array", lambda m, x: m.repeat(x, np.array([2, 0, 1, 3]), axis=0), args_of(N(4, 2))
    ),
    Case("fliplr", lambda m, x: m.fliplr(x), args_of(N(2, 3))),
    Case("flipud", lambda m, x: m.flipud(x), args_of(N(2, 3))),
    Case("roll", lambda m, x: m.roll(x, 2, axis=1), args_of(N(2, 5))),
    Case("roll_multi", lambda m, x: m.roll(x, (1, -4), axis=(0, 1)), args_of(N(3, 5))),
    Case("roll_none", lambda m, x: m.roll(x, 4), args_of(N(2, 3))),
    Case("rot90", lambda m, x: m.rot90(x), args_of(N(2, 3))),
    Case("rot90_k2", lambda m, x: m.rot90(x, 2), args_of(N(2, 3))),
    Case("rot90_k3_axes", lambda m, x: m.rot90(x, 3, axes=(2, 0)), args_of(N(2, 3, 4))),
    Case(
        "pad_constant",
        lambda m, x: m.pad(x, ((1, 2), (0, 3)), constant_values=1.5),
        args_of(N(2, 3)),
    ),
    Case(
        "pad_traced_constant", lambda m, x, c: m.pad(x, 2, constant_values=c), args_of(N(2, 3), N())
    ),
    Case("pad_edge", lambda m, x: m.pad(x, ((2, 1), (1, 3)), mode="edge"), args_of(N(2, 3))),
    Case("pad_reflect", lambda m, x: m.pad(x, ((2, 5), (1, 3)), mode="reflect"), args_of(N(3, 4))),
    Case("pad_symmetric", lambda m, x: m.pad(x, (4, 2), mode="symmetric"), args_of(N(3))),
    Case("pad_wrap", lambda m, x: m.pad(x, ((0, 1), (5, 2)), mode="wrap"), args_of(N(2, 3))),
    Case("diagonal", lambda m, x: m.diagonal(x, 1), args_of(N(3, 4))),
    Case("diagonal_3d", lambda m, x: m.diagonal(x, -1, axis1=2, axis2=0), args_of(N(3, 2, 4))),
    Case("diag_vec", lambda m, v: m.diag(v, 1), args_of(N(3))),
    Case("diag_mat", lambda m, x: m.diag(x, -1), args_of(N(3, 4))),
    Case("triu", lambda m, x: m.triu(x, 1), args_of(N(3, 4))),
    Case("tril", lambda m, x: m.tril(x), args_of(N(2, 3, 4))),
    Case("meshgrid_xy", lambda m, a, b: m.meshgrid(a, b), args_of(N(3), N(4))),
    Case(
        "meshgrid_ij",
        lambda m, a, b, c: m.meshgrid(a, b, c, indexing="ij"),
        args_of(N(3), N(2), N(2)),
    ),
    Case("dstack", lambda m, a, b: m.dstack([a, b]), args_of(N(3), N(3))),
    Case("column_stack", lambda m, a, b: m.column_stack([a, b]), args_of(N(3), N(3, 2))),
    Case("atleast_3d", lambda m, a, b: m.atleast_3d(a, b), args_of(N(3), N(2, 3))),
    # sorting and selection
    Case("sort", lambda m, x: m.sort(x), args_of(N(3, 5))),
    Case("sort_ax0", lambda m, x: m.sort(x, axis=0), args_of(N(3, 5))),
    Case("sort_none", lambda m, x: m.sort(x, axis=None), args_of(N(2, 3))),
    Case("argsort", lambda m, x: m.argsort(x, axis=0), args_of(N(4, 3)), diff=False),
    Case(
        "partition",
        lambda m, x: m.partition(x, 2, axis=1),
        args_of(N(3, 6)),
        jax=False,
        note="jax.numpy.partition orders the elements around kth differently from NumPy",
    ),
    Case(
        "argpartition",
        lambda m, x: m.argpartition(x, (1, 3), axis=0),
        args_of(N(5, 2)),
        diff=False,
        jax=False,
    ),
    Case(
        "searchsorted",
        lambda m, a, v: m.searchsorted(a, v),
        args_of(sorted_rows(6), N(2, 3)),
        diff=False,
    ),
    Case(
        "searchsorted_right",
        lambda m, a, v: m.searchsorted(a, v, side="right"),
        args_of(
            lambda rng: np.round(np.sort(rng.standard_normal(6)), 1),
            lambda rng: np.round(rng.standard_normal(4), 1),
        ),
        diff=False,
    ),
    Case(
        "select",
        lambda m, x, y: m.select([x > 0.5, y < 0], [x, y * x], default=y),
        args_of(N(4), N(4)),
    ),
    # functional index updates
    Case(
        "at_multiply",
        lambda m, x, v: m.at(x, IDX_UNIQUE, "multiply", v),
        args_of(N(3, 4), N(3)),
        jax=False,
        note=NO_JAX_SCATTER_MUL,
    ),
    Case(
        "at_multiply_dup",
        lambda m, x, v: m.at(x, IDX_DUP, "multiply", v),
        args_of(N(4, 2), N(5, 2)),
        jax=False,
        note=NO_JAX_SCATTER_MUL,
    ),
    Case(
        "at_divide",
        lambda m, x, v: m.at(x, IDX_DUP, "divide", v),
        args_of(N(4, 2), U(0.5, 2, 5, 2)),
        jax=False,
        note=NO_JAX_SCATTER_MUL,
    ),
    Case(
        "at_power",
        lambda m, x, v: m.at(x, IDX_UNIQUE, "power", v),
        args_of(U(0.5, 2, 3, 4), N(3)),
        jax=False,
        note=NO_JAX_SCATTER_MUL,
    ),
    Case("at_min", lambda m, x, v: m.at(x, IDX_UNIQUE, "min", v), args_of(N(3, 4), N(3))),
    Case(
        "at_max_dup",
        lambda m, x, v: m.at(x, (slice(None), IDX_DUP % 3), "max", v),
        args_of(N(2, 3), N(2, 5)),
    ),
    Case("add_at", lambda m, x, v: m.add_at(x, IDX_DUP, v), args_of(N(4, 2), N(5, 2))),
]
DIFF_CASES = [c for c in CASES if c.diff]
#: Cases linear in their float arguments (data movement, masking, constant scaling): their
#: forward matches NumPy and their finite differences are exact, which pins the JVP and,
#: by the inner-product identity, the VJP; a JAX oracle (a compilation each, ~1 s) would
#: add no information, so only the nonlinear cases are compared with JAX.
LINEAR = set(
    """positive deg2rad rad2deg radians degrees heaviside heaviside_at0 average sum_where
    sum_where_initial mean_where mean_where_all nansum tile tile_int repeat repeat_none
    repeat_array fliplr flipud roll roll_multi roll_none rot90 rot90_k2 rot90_k3_axes
    pad_constant pad_traced_constant pad_edge pad_reflect pad_symmetric pad_wrap diagonal
    diagonal_3d diag_vec diag_mat triu tril meshgrid_xy meshgrid_ij dstack column_stack
    atleast_3d add_at""".split()
)
#: The nonlinear cases compared with JAX: every new primitive, and the composites whose
#: conventions JAX fixes (max shift, zeros, ties, NaN).  Each costs a JAX compilation (~1 s);
#: the other nonlinear composites are built from those and from tested primitives, and
#: are checked against finite differences, the inner-product identity and the loop.
JAX_IDS = set(
    """logsumexp_b logsumexp_sign softmax_ax1 log_softmax_ax0 expit erf erfc erfinv gammaln
    digamma polygamma_n xlogy xlog1py logaddexp logaddexp2 hypot float_power sinc
    cumprod_2zeros nanmean sort_ax0 at_max_dup""".split()
)
JAX_CASES = [c for c in DIFF_CASES if c.id in JAX_IDS]


def ids(cases):
    return [c.id for c in cases]


def sample(case: Case, seed: int = 0) -> tuple:
    return case.sample(np.random.default_rng(seed))


def call(case: Case, m: NS, *args: Any) -> Any:
    return case.op(m, *args)


# -- forward -----------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_forward_matches_numpy(case):
    args = sample(case)
    with np.errstate(all="ignore"):
        got = call(case, FNP, *args)
        want = call(case, NP, *args)
    got_leaves, got_spec = optree.tree_flatten(got)
    want_leaves, want_spec = optree.tree_flatten(want)
    assert got_spec.num_leaves == want_spec.num_leaves
    for g, w in zip(got_leaves, want_leaves):
        assert isinstance(g, (np.ndarray, np.generic)), type(g)
        w = np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        if w.dtype.kind in "biu":
            np.testing.assert_array_equal(g, w)
        else:
            np.testing.assert_allclose(g, w, **F64)


# -- derivatives: finite differences and the inner-product identity ------------------------


@pytest.mark.parametrize("case", DIFF_CASES, ids=ids(DIFF_CASES))
def test_grads(case):
    args = sample(case)
    check_grads(lambda *a: call(case, FNP, *a), args, order=case.order)


# -- vmap --------------------------------------------------------------------------------


def _stacked(case: Case, axis_of: Callable[[int, np.ndarray], Any]) -> tuple[tuple, tuple]:
    """Arguments of B seeds stacked on the axis ``axis_of(i, arg)`` (None: seed 0 only)."""
    samples = [sample(case, seed) for seed in range(B)]
    args, dims = [], []
    for i, first in enumerate(samples[0]):
        d = axis_of(i, first)
        if d is None:
            args.append(first)
        else:
            args.append(np.stack([s[i] for s in samples], axis=d))
        dims.append(d)
    return tuple(args), tuple(dims)


PLACEMENTS = {
    "0": lambda i, a: 0,
    "last": lambda i, a: -1,
    "first_only": lambda i, a: 0 if i == 0 else None,
    "rest_only": lambda i, a: None if i == 0 else min(1, np.ndim(a)),
}


VMAP_PARAMS = [
    pytest.param(case, placement, id=f"{case.id}-{placement}")
    for case in CASES
    for placement in PLACEMENTS
    # with one argument 'rest_only' would batch nothing ('first_only' uses axis 1 instead)
    if not (placement == "rest_only" and len(sample(case)) == 1)
]


@pytest.mark.parametrize("case, placement", VMAP_PARAMS)
def test_vmap(case, placement):
    if placement == "first_only" and len(sample(case)) == 1:
        placement_fn = lambda i, a: min(1, np.ndim(a))  # noqa: E731  (the middle axis)
    else:
        placement_fn = PLACEMENTS[placement]
    args, dims = _stacked(case, placement_fn)
    with np.errstate(all="ignore"):
        check_vmap(lambda *a: call(case, FNP, *a), args, in_dims=dims)


# -- against JAX -------------------------------------------------------------------------


def _weights(out: Any) -> list[np.ndarray]:
    rng = np.random.default_rng(7)
    return [rng.standard_normal(np.shape(o)) for o in optree.tree_leaves(out)]


def _scalarized(case: Case, m: NS, weights: list[np.ndarray]) -> Callable:
    def f(*args):
        leaves = optree.tree_leaves(call(case, m, *args))
        return sum((leaf * w).sum() for leaf, w in zip(leaves, weights))

    return f


def _float_argnums(args: tuple) -> tuple[int, ...]:
    return tuple(i for i, a in enumerate(args) if np.asarray(a).dtype.kind == "f")


@pytest.mark.parametrize("case", JAX_CASES, ids=ids(JAX_CASES))
def test_grad_vmap_grad_jacfwd_vs_jax(case):
    args = sample(case)
    argnums = _float_argnums(args)
    first = argnums[0]
    weights = _weights(call(case, NP, *args))
    # seed 0 is row 0 of the batch and the unbatched arguments: grad(f)(*args) is row 0
    # of vmap(grad(f))(*batched), so one JAX oracle serves both
    batched, dims = _stacked(case, PLACEMENTS["first_only"])
    f, jf = _scalarized(case, FNP, weights), _scalarized(case, JNP, weights)

    def oracle(args, batched):  # run through on_jax: no XLA compile, JAX's derivatives
        return (
            jax.vmap(jax.grad(jf, argnums=argnums), in_axes=dims)(*batched),
            jax.jacfwd(lambda *a: call(case, JNP, *a), argnums=first)(*args),
        )

    per_sample, jac = optree.tree_map(np.asarray, on_jax(oracle, args, batched))
    got = grad(f, argnums=argnums)(*args)
    assert_tree_close(got, tuple(g[0] for g in per_sample), **F64, err_msg="grad")
    got = vmap(grad(f, argnums=argnums), in_dims=dims)(*batched)
    assert_tree_close(got, per_sample, **F64, err_msg="vmap(grad)")
    got = jacfwd(lambda *a: call(case, FNP, *a), argnums=first)(*args)
    assert_tree_close(got, jac, **F64, err_msg="jacfwd")


# -- registration: numpy functions and ufuncs dispatch on tracers --------------------------

UFUNC_CALLS = {
    "positive": (np.positive, 1),
    "logaddexp": (np.logaddexp, 2),
    "logaddexp2": (np.logaddexp2, 2),
    "hypot": (np.hypot, 2),
    "copysign": (np.copysign, 2),
    "fmax": (np.fmax, 2),
    "fmin": (np.fmin, 2),
    "heaviside": (np.heaviside, 2),
    "float_power": (np.float_power, 2),
    "deg2rad": (np.deg2rad, 1),
    "rad2deg": (np.rad2deg, 1),
    "radians": (np.radians, 1),
    "degrees": (np.degrees, 1),
}


@pytest.mark.parametrize("name", list(UFUNC_CALLS))
def test_numpy_ufuncs_dispatch_on_tracers(name):
    ufunc, nargs = UFUNC_CALLS[name]
    rng = np.random.default_rng(0)
    args = tuple(rng.uniform(0.5, 2.0, (B, 3)) for _ in range(nargs))
    check_vmap(ufunc, args)
    g = grad(lambda *a: ufunc(*a).sum())(*args)
    np.testing.assert_allclose(g, grad(lambda *a: getattr(fnp, name)(*a).sum())(*args), **F64)


FUNCTION_CALLS = {
    "sinc": lambda x: np.sinc(x),
    "nan_to_num": lambda x: np.nan_to_num(x),
    "cumprod": lambda x: np.cumprod(x, axis=1),
    "multiply.accumulate": lambda x: np.multiply.accumulate(x, axis=1),
    "average": lambda x: np.average(x, axis=0, weights=np.arange(1.0, 4.0)),
    "ptp": lambda x: np.ptp(x, axis=1),
    "nansum": lambda x: np.nansum(x),
    "nanmean": lambda x: np.nanmean(x, axis=0),
    "nanmax": lambda x: np.nanmax(x, axis=1),
    "nanmin": lambda x: np.nanmin(x, axis=1),
    "sum_where": lambda x: np.sum(x, where=x > 0),
    "mean_where": lambda x: np.mean(x, axis=1, where=x > -0.5),
    "max_where": lambda x: np.max(x, axis=0, where=x < 0.5, initial=-3.0),
    "min_where": lambda x: np.min(x, where=x > -0.5, initial=3.0),
    "tile": lambda x: np.tile(x, 2),
    "repeat": lambda x: np.repeat(x, 2, axis=0),
    "fliplr": lambda x: np.fliplr(x),
    "flipud": lambda x: np.flipud(x),
    "roll": lambda x: np.roll(x, 1, axis=1),
    "rot90": lambda x: np.rot90(x),
    "pad": lambda x: np.pad(x, 1, mode="reflect"),
    "diagonal": lambda x: np.diagonal(x),
    "diag": lambda x: np.diag(x),
    "triu": lambda x: np.triu(x),
    "tril": lambda x: np.tril(x, -1),
    "meshgrid": lambda x: np.meshgrid(x[0], x[1]),
    "dstack": lambda x: np.dstack([x, x]),
    "column_stack": lambda x: np.column_stack([x[0], x[1]]),
    "atleast_3d": lambda x: np.atleast_3d(x),
    "sort": lambda x: np.sort(x, axis=0),
    "argsort": lambda x: np.argsort(x, axis=1),
    "partition": lambda x: np.partition(x, 1, axis=1),
    "argpartition": lambda x: np.argpartition(x, 1, axis=0),
    "searchsorted": lambda x: np.searchsorted(np.array([-1.0, 0.0, 1.0]), x),
    "select": lambda x: np.select([x > 0], [x * x], default=x),
    "scipy.special.erf": lambda x: ssp.erf(x),
    "scipy.special.expit": lambda x: ssp.expit(x),
    "scipy.special.xlogy": lambda x: ssp.xlogy(x, 2.0),
    "scipy.special.gammaln": lambda x: ssp.gammaln(x + 4.0),
    "scipy.special.psi": lambda x: ssp.psi(x + 4.0),
}


@pytest.mark.parametrize("name", list(FUNCTION_CALLS))
def test_numpy_functions_dispatch_on_tracers(name):
    f = FUNCTION_CALLS[name]
    # distinct multiples of 1/8: sums are exact in any order, so NumPy's own result (the
    # reference for the primal) and the traced one agree exactly; no ties, no zeros
    x = (np.random.default_rng(1).permutation(B * 9) - 13.5).reshape(B, 3, 3) / 4
    check_vmap(f, (x,))  # every primitive reached through numpy has a batching rule
    out = f(x[0])
    if any(np.asarray(o).dtype.kind == "f" for o in optree.tree_leaves(out)):
        check_grads(f, (x[0],), order=1)


# -- edge cases --------------------------------------------------------------------------
#
# The JAX oracles are jitted at module level: one compilation per function and shape,
# shared by the parametrized cases (eager JAX under grad/vmap is slow op by op).


@jax.jit
def _jax_logsumexp_oracle(x, x2):
    return (
        jax.grad(jsp.logsumexp)(x),
        jax.hessian(jsp.logsumexp)(x),
        jax.vmap(jax.grad(jsp.logsumexp))(x2),
    )


@pytest.mark.parametrize("scale", [1e4, -1e4])
def test_logsumexp_large_values_match_jax(scale):
    x = scale * np.array([1.0, 1.0 - 1e-3, 0.5, 1.0 + 2e-3])
    out = fsp.logsumexp(x)
    assert np.isfinite(out)
    np.testing.assert_allclose(out, ssp.logsumexp(x), **F64)
    x2 = np.stack([x, -x])
    g, h, per_row = (np.asarray(o) for o in _jax_logsumexp_oracle(x, x2))
    np.testing.assert_allclose(grad(fsp.logsumexp)(x), g, **F64)
    np.testing.assert_allclose(grad(fsp.logsumexp)(x), ssp.softmax(x), **F64)
    np.testing.assert_allclose(hessian(fsp.logsumexp)(x), h, **F64)
    np.testing.assert_allclose(vmap(grad(fsp.logsumexp))(x2), per_row, **F64)


def test_logsumexp_infinities():
    x = np.array([-np.inf, 0.0, np.log(3.0)])
    np.testing.assert_allclose(fsp.logsumexp(x), np.log(4.0), **F64)
    np.testing.assert_allclose(grad(fsp.logsumexp)(x), [0.0, 0.25, 0.75], **F64)
    with np.errstate(divide="ignore"):
        assert fsp.logsumexp(np.full(3, -np.inf)) == -np.inf
    assert fsp.logsumexp(np.array([np.inf, 1.0])) == np.inf
    # b == 0 leaves an element out, even a huge one (JAX's convention)
    x = np.array([1e5, 1.0, 2.0])
    b = np.array([0.0, 1.0, 1.0])
    np.testing.assert_allclose(fsp.logsumexp(x, b=b), np.logaddexp(1.0, 2.0), **F64)
    got = grad(lambda x, b: fsp.logsumexp(x, b=b), argnums=(0, 1))(x, b)
    want = jax.jit(jax.grad(lambda x, b: jsp.logsumexp(x, b=b), argnums=(0, 1)))(x, b)
    assert_tree_close(got, tuple(np.asarray(w) for w in want), **F64)


def test_softmax_gradient_is_stable_and_sums_to_zero():
    x = np.array([1e4, 1e4 - 1.0, -1e4])
    w = np.arange(3.0)
    g = grad(lambda x: (fsp.softmax(x) * w).sum())(x)
    want = jax.jit(jax.grad(lambda x: (jsp.softmax(x) * w).sum()))(x)
    np.testing.assert_allclose(g, want, **F64)
    np.testing.assert_allclose(g.sum(), 0.0, atol=1e-12)


@jax.jit
def _jax_xlogy_oracle(x, y, y_pos):
    w = jnp.array([1.0, -2.0, 0.5])
    return (
        jax.grad(lambda x: (jsp.xlogy(x, y) * w).sum())(x),
        jax.grad(lambda x, y: jsp.xlogy(x, y).sum(), argnums=(0, 1))(x, y_pos),
        jax.grad(lambda y: jsp.xlog1py(0.0, y))(0.5),
    )


def test_xlogy_at_zero_follows_jax():
    x = np.array([0.0, 0.0, 1.5])
    y = np.array([2.0, 0.0, 0.5])
    y_pos = np.array([2.0, 0.5, 0.5])
    np.testing.assert_array_equal(fsp.xlogy(x, y), [0.0, 0.0, 1.5 * np.log(0.5)])
    assert fsp.xlogy(0.0, 0.0) == 0.0
    assert np.isnan(fsp.xlogy(0.0, np.nan)) and np.isnan(ssp.xlogy(0.0, np.nan))
    g_x, grads, g1p = optree.tree_map(np.asarray, _jax_xlogy_oracle(x, y, y_pos))
    w = np.array([1.0, -2.0, 0.5])
    with np.errstate(divide="ignore"):
        got = grad(lambda x: (fsp.xlogy(x, y) * w).sum())(x)
    np.testing.assert_allclose(got, g_x, **F64)  # d/dx at x = 0 is log(y): -inf at y = 0
    assert got[1] == np.inf
    got = grad(lambda x, y: fsp.xlogy(x, y).sum(), argnums=(0, 1))(x, y_pos)
    assert_tree_close(got, grads, **F64)
    assert got[1][0] == 0.0  # d/dy at x = 0 is x / y = 0
    assert grad(lambda y: fsp.xlog1py(0.0, y))(0.5) == 0.0 == g1p


_TIES = np.array([[1.0, 3.0, 1.0, 2.0, 3.0, 1.0], [0.0, 0.0, 0.0, -1.0, 5.0, 5.0]])
_TIE_W = np.random.default_rng(0).standard_normal(_TIES.size)


def _weighted_sort(m, axis):
    return lambda x: (m.sort(x, axis=axis) * _TIE_W.reshape(m.sort(x, axis=axis).shape)).sum()


@jax.jit
def _jax_sort_oracle(x, xb):
    out = []
    for axis in (1, 0, None):
        jf = _weighted_sort(jnp, axis)
        out.append((jax.grad(jf)(x), jax.vmap(jax.grad(jf))(xb)))
    return out, jax.jacfwd(lambda x: jnp.sort(x, axis=1))(x)


def test_sort_with_ties_matches_jax():
    x = _TIES
    xb = np.stack([x, x[::-1]])
    per_axis, jac = optree.tree_map(np.asarray, _jax_sort_oracle(x, xb))
    for axis, (g, gb) in zip((1, 0, None), per_axis):
        f = _weighted_sort(fnp, axis)
        np.testing.assert_allclose(grad(f)(x), g, **F64)
        np.testing.assert_allclose(vmap(grad(f))(xb), gb, **F64)
    np.testing.assert_allclose(jacfwd(lambda x: fnp.sort(x, axis=1))(x), jac, **F64)
    # stable: tied elements keep their own slot's cotangent
    g = grad(lambda x: (fnp.sort(x) * np.arange(4.0)).sum())(np.array([2.0, 1.0, 2.0, 1.0]))
    np.testing.assert_array_equal(g, [2.0, 0.0, 3.0, 1.0])


def test_sort_without_tracers_is_numpy_sort():
    x = np.random.default_rng(0).standard_normal((4, 5))
    np.testing.assert_array_equal(fnp.sort(x, axis=0), np.sort(x, axis=0))
    np.testing.assert_array_equal(fnp.argsort(x, kind="stable"), np.argsort(x, kind="stable"))


def test_searchsorted_nan_and_batched_sorted_array():
    a = np.array([[-1.0, 0.0, 0.0, 2.0, np.nan], [0.5, 0.5, 0.5, 1.0, 3.0]])
    v = np.array([[0.0, np.nan, -5.0, 2.0], [0.5, np.nan, 4.0, 0.7]])
    for side in ("left", "right"):
        got = vmap(lambda a, v: fnp.searchsorted(a, v, side=side))(a, v)
        want = np.stack([np.searchsorted(a[i], v[i], side=side) for i in range(2)])
        np.testing.assert_array_equal(got, want)
        assert got.dtype == want.dtype


_CUMPROD_W = np.random.default_rng(0).standard_normal(6)


def _weighted_cumprod(m):
    return lambda x: (m.cumprod(x) * _CUMPROD_W).sum()


@jax.jit
def _jax_cumprod_oracle(x, xb):
    jf = _weighted_cumprod(jnp)
    return (
        jax.grad(jf)(x),
        jax.hessian(jf)(x),
        jax.jacrev(jnp.cumprod)(x),
        jax.jacfwd(jnp.cumprod)(x),
        jax.vmap(jax.grad(jf))(xb),
    )


@pytest.mark.parametrize("zeros", [[2], [1, 3], [0, 2, 4]])
def test_cumprod_at_zeros_matches_jax_to_second_order(zeros):
    x = np.array([1.5, -0.7, 2.0, 1.3, -1.1, 0.9])
    x[zeros] = 0.0
    xb = np.stack([x, np.roll(x, 1), x + 1.0])
    g, h, jr, jf, gb = (np.asarray(o) for o in _jax_cumprod_oracle(x, xb))
    f = _weighted_cumprod(fnp)
    np.testing.assert_allclose(grad(f)(x), g, **F64)
    np.testing.assert_allclose(hessian(f)(x), h, **F64)
    np.testing.assert_allclose(jacrev(fnp.cumprod)(x), jr, **F64)
    np.testing.assert_allclose(jacfwd(fnp.cumprod)(x), jf, **F64)
    np.testing.assert_allclose(vmap(grad(f))(xb), gb, **F64)


@jax.jit
def _jax_sinc_oracle(x):
    out, f = [], jnp.sinc
    for _ in range(4):
        out.append(f(x))
        f = jax.grad(f)
    return out


def test_sinc_derivatives_at_zero_match_jax():
    for x in (0.0, 0.7, -2.5):
        want = [np.asarray(o) for o in _jax_sinc_oracle(x)]
        f = fnp.sinc
        for k in range(4):
            np.testing.assert_allclose(f(x), want[k], rtol=1e-9, atol=1e-12, err_msg=f"order {k}")
            f = grad(f)


def test_logaddexp_ties_and_infinities():
    x = np.array([0.3, -np.inf, np.inf, 2.0])
    y = np.array([0.3, 1.0, 5.0, -np.inf])
    gx, gy = grad(lambda x, y: fnp.logaddexp(x, y).sum(), argnums=(0, 1))(x, y)
    np.testing.assert_allclose(gx, [0.5, 0.0, 1.0, 1.0], **F64)
    np.testing.assert_allclose(gy, [0.5, 1.0, 0.0, 0.0], **F64)
    jgx, jgy = jax.jit(jax.grad(lambda x, y: jnp.logaddexp(x, y).sum(), argnums=(0, 1)))(x, y)
    np.testing.assert_allclose(gx[:1], jgx[:1], **F64)  # JAX agrees at finite ties
    np.testing.assert_allclose(gy[:1], jgy[:1], **F64)


def test_heaviside_derivative_is_in_x2_only_at_zero():
    x1 = np.array([-1.0, 0.0, 2.0, 0.0])
    x2 = np.array([0.5, 0.25, 0.75, 1.0])
    g1, g2 = grad(lambda a, b: fnp.heaviside(a, b).sum(), argnums=(0, 1))(x1, x2)
    j1, j2 = jax.jit(jax.grad(lambda a, b: jnp.heaviside(a, b).sum(), argnums=(0, 1)))(x1, x2)
    np.testing.assert_array_equal(g1, j1)
    np.testing.assert_array_equal(g2, j2)
    np.testing.assert_array_equal(g2, [0.0, 1.0, 0.0, 1.0])


def test_fmax_fmin_nan_and_tie_conventions():
    x = np.array([1.0, np.nan, 2.0, 0.5])
    y = np.array([np.nan, 3.0, 2.0, 0.7])
    np.testing.assert_array_equal(fnp.fmax(x, y), np.fmax(x, y))
    np.testing.assert_array_equal(fnp.fmin(x, y), np.fmin(x, y))
    # NaN is ignored; at a tie the derivative goes to the second input, as in JAX's
    # jnp.fmax/fmin (unlike maximum/minimum, which share it)
    import jax
    import jax.numpy as jnp

    for ours, theirs in ((fnp.fmax, jnp.fmax), (fnp.fmin, jnp.fmin)):
        got = grad(lambda x, y: (ours(x, y) ** 2).sum(), argnums=(0, 1))(x, y)
        want = jax.grad(lambda x, y: (theirs(x, y) ** 2).sum(), argnums=(0, 1))(x, y)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, np.asarray(w), rtol=1e-12)
    gx, gy = grad(lambda x, y: fnp.fmax(x, y).sum(), argnums=(0, 1))(x, y)
    assert gx[2] == 0.0 and gy[2] == 1.0  # the tie at index 2


def test_nan_to_num_values_and_derivative():
    x = np.array([np.nan, np.inf, -np.inf, 1.5])
    np.testing.assert_array_equal(fnp.nan_to_num(x), np.nan_to_num(x))
    np.testing.assert_array_equal(
        fnp.nan_to_num(x, nan=1.0, posinf=2.0, neginf=-2.0),
        np.nan_to_num(x, nan=1.0, posinf=2.0, neginf=-2.0),
    )
    np.testing.assert_array_equal(grad(lambda x: fnp.nan_to_num(x).sum())(x), [0, 0, 0, 1.0])
    np.testing.assert_array_equal(fnp.nan_to_num(np.arange(3)), np.arange(3))


_AT_X = np.array([1.5, -2.0, 0.5, 3.0])
_AT_V = np.array([2.0, -0.5, 1.5, 4.0, 0.25])
_AT_IDX = np.array([1, 1, 3, 1, 0])


@jax.jit
def _jax_at_oracle(x, v):
    values = {m: _jnp_at(x, _AT_IDX, m, v) for m in ("multiply", "divide", "min", "max")}
    w = jnp.arange(1.0, 5.0)
    grads = {  # JAX differentiates scatter-min/max with repeated indices, not scatter-mul
        m: jax.grad(lambda x, v: (_jnp_at(x, _AT_IDX, m, v) * w).sum(), (0, 1))(x, v)
        for m in ("min", "max")
    }
    return values, grads


def test_index_updates_with_repeated_indices_match_jax():
    x, v, idx = _AT_X, _AT_V, _AT_IDX
    values, grads = optree.tree_map(np.asarray, _jax_at_oracle(x, v))
    for method in ("multiply", "divide", "min", "max"):
        got = _fnp_at(x, idx, method, v)
        np.testing.assert_allclose(got, values[method], **F64)
        np.testing.assert_array_equal(got, _np_at(x, idx, method, v))  # same order as numpy
        check_grads(lambda x, v: _fnp_at(x, idx, method, v), (x, v), order=2)
    for method in ("min", "max"):
        w = np.arange(1.0, 5.0)
        gf = grad(lambda x, v: (_fnp_at(x, idx, method, v) * w).sum(), (0, 1))(x, v)
        assert_tree_close(gf, grads[method], **F64, err_msg=method)
    np.testing.assert_array_equal(fnp.add_at(x, idx, v), _np_add_at(x, idx, v))


def test_index_updates_under_vmap_with_batched_indices():
    x = np.random.default_rng(0).standard_normal((3, 5))
    v = np.random.default_rng(1).standard_normal((3, 2))
    idx = np.array([[0, 4], [2, 1], [3, 3]])  # unique per row except the last
    got = vmap(lambda x, i, v: x.at[i[:1]].multiply(v[:1]))(x, idx, v)
    want = np.stack([_np_at(x[b], idx[b, :1], "multiply", v[b, :1]) for b in range(3)])
    np.testing.assert_allclose(got, want, **F64)
    with pytest.raises(UnsupportedOperationError, match="repeated indices"):
        vmap(lambda x, i, v: x.at[i].max(v), split=False)(x, idx, v)
    with warnings.catch_warnings():  # split by default: the per-row results
        warnings.simplefilter("ignore", PerformanceWarning)
        got = vmap(lambda x, i, v: x.at[i].max(v))(x, idx, v)
    want = np.stack([_np_at(x[b], idx[b], "max", v[b]) for b in range(3)])
    np.testing.assert_allclose(got, want, **F64)
    # batched x and values with a shared (unbatched) index that repeats: fine
    got = vmap(lambda x, v: x.at[np.array([2, 2])].multiply(v))(x, v)
    want = np.stack([_np_at(x[b], np.array([2, 2]), "multiply", v[b]) for b in range(3)])
    np.testing.assert_allclose(got, want, **F64)


def test_boolean_mask_indexing():
    x = np.arange(1.0, 7.0)
    mask = np.array([True, False, True, True, False, False])
    g = grad(lambda x: (x[mask] ** 2).sum())(x)
    np.testing.assert_allclose(g, 2 * x * mask, **F64)
    # an unbatched mask under vmap selects the same elements in every batch row
    xb = np.stack([x, 2 * x])
    np.testing.assert_allclose(vmap(lambda x: x[mask])(xb), xb[:, mask], **F64)
    with pytest.raises(BatchedControlFlowError, match="where"):
        vmap(lambda x: x[x > 3.0], split=False)(xb)
    # equal counts per row: one batched gather; different counts: ragged, as np.stack
    np.testing.assert_allclose(vmap(lambda x: x[x > x.mean()])(xb), [[4, 5, 6], [8, 10, 12]])
    with pytest.warns(PerformanceWarning), pytest.raises(SplitOutputError):
        vmap(lambda x: x[x > 3.0])(xb)


def test_shape_deciding_arguments_cannot_be_batched():
    x = np.arange(12.0).reshape(3, 4)
    reps = np.array([[1, 2, 1, 0], [0, 1, 2, 1], [1, 2, 1, 0]])
    with warnings.catch_warnings():  # split by default: each row repeated as NumPy does
        warnings.simplefilter("ignore", PerformanceWarning)
        got = vmap(lambda x, r: fnp.repeat(x, r))(x, reps)
    np.testing.assert_array_equal(got, np.stack([np.repeat(a, r) for a, r in zip(x, reps)]))
    with pytest.raises(BatchedControlFlowError, match="repeat"):
        vmap(lambda x, r: fnp.repeat(x, r), split=False)(x, reps)
    with pytest.raises(UnsupportedOperationError, match="mode="):
        fnp.pad(x, 1, mode=lambda vector, width, axis, kw: None)  # NumPy's callable mode
    with pytest.raises(ValueError, match="initial"):
        fnp.max(x, where=x > 0)


def test_float32_results_keep_their_dtype():
    x = np.linspace(0.1, 0.9, 6, dtype=np.float32).reshape(2, 3)
    for f in (
        fsp.erf,
        fsp.expit,
        fsp.logit,
        fsp.gammaln,
        fsp.digamma,
        lambda x: fsp.polygamma(2, x),
        lambda x: fsp.logsumexp(x, axis=1),
        fnp.sinc,
        lambda x: fnp.cumprod(x, axis=1),
        lambda x: fnp.sort(x, axis=0),
        lambda x: fnp.logaddexp(x, x.T[:1, :2].T),
        lambda x: fnp.pad(x, 1, mode="reflect"),
    ):
        assert f(x).dtype == np.float32
        g = grad(lambda x: f(x).sum())(x)
        assert g.dtype == np.float32
        out, t = jvp(f, (x,), (np.ones_like(x),))
        assert out.dtype == t.dtype == np.float32
        y, pullback = vjp(f, x)
        assert pullback(np.ones_like(y))[0].dtype == np.float32


def test_scipy_missing_raises_a_clear_import_error(monkeypatch):
    from ftransforms.ops import special

    monkeypatch.setitem(sys.modules, "scipy.special", None)
    monkeypatch.setitem(sys.modules, "scipy", None)
    with pytest.raises(ImportError, match="pip install scipy"):
        special.scipy_special(np)
    with pytest.raises(ImportError, match="pip install scipy"):
        fsp.erf(np.ones(2))
    # ... while the NumPy-only functions still work
    np.testing.assert_allclose(fsp.expit(np.zeros(2)), 0.5)
    np.testing.assert_allclose(fsp.logsumexp(np.zeros(4)), np.log(4.0))


def test_tracer_methods():
    x = np.random.default_rng(0).standard_normal((3, 4))
    check_vmap(lambda x: x.cumprod(axis=0), (x,))
    check_vmap(lambda x: x.argsort(), (x,))
    check_vmap(lambda x: x.argpartition(1), (x,))
    check_vmap(lambda x: x.repeat(2), (x,))
    check_vmap(lambda x: np.sort(x).searchsorted(0.1), (x,))
    np.testing.assert_allclose(
        grad(lambda x: (x.diagonal(1).sum() * x.cumprod()).sum())(x[0:3, 0:3]),
        jax.jit(jax.grad(lambda x: (x.diagonal(1).sum() * x.ravel().cumprod()).sum()))(x[0:3, 0:3]),
        **F64,
    )


def test_average_takes_array_like_weights_and_values():
    # np.average(M, axis=0, weights=[0.2, 0.8]): weights as a Python list (found by
    # tests/test_published_programs.py; dtype_of read the list as a structured dtype)
    x = np.random.default_rng(1).standard_normal((2, 3))

    def f(m):
        return np.average(m, axis=0, weights=[0.2, 0.8]).sum() ** 2

    def f_jax(m):
        return jnp.average(m, axis=0, weights=jnp.array([0.2, 0.8])).sum() ** 2

    np.testing.assert_allclose(grad(f)(x), jax.grad(f_jax)(x), **F64)
    check_vmap(lambda m: np.average(m, axis=0, weights=[0.2, 0.8]), (np.stack([x, -x]),))
    # a list of tracers as the weights, a list as the values
    g = grad(lambda t: fnp.average([1.0, 3.0], weights=[t, 1.0 - t]))(0.25)
    np.testing.assert_allclose(g, -2.0, **F64)
    np.testing.assert_allclose(fnp.average([1.0, 3.0], weights=[1, 3]), 2.5, **F64)


# -- on the strict CuPy stand-in (no implicit host conversion) ------------------------------

_S = np.random.default_rng(5).standard_normal((3, 5))
_S_ZEROS = np.where(np.abs(_S) < 0.3, 0.0, _S)
STRICT_CASES = {
    "sort_grad": (lambda x: grad(lambda x: (fnp.sort(x, axis=1) ** 3).sum())(x), (_S,)),
    "cumprod_zeros_jacrev": (lambda x: jacrev(lambda x: fnp.cumprod(x, axis=1))(x), (_S_ZEROS,)),
    "cumprod_hessian": (lambda x: hessian(lambda x: fnp.cumprod(x[0]).sum())(x), (_S_ZEROS,)),
    "pad_reflect_vjp": (lambda x: vjp(lambda x: fnp.pad(x, 2, mode="reflect"), x)[1], (_S,)),
    "logsumexp_vmap_grad": (lambda x: vmap(grad(fsp.logsumexp))(x), (_S,)),
    "softmax_jacfwd": (lambda x: jacfwd(lambda x: fsp.log_softmax(x, axis=1))(x), (_S,)),
    "expit_logaddexp": (
        lambda x: grad(lambda x: fsp.expit(fnp.logaddexp(x, x[0])).sum())(x),
        (_S.T,),
    ),
    "sinc_hessian": (lambda x: hessian(lambda x: fnp.sinc(x).sum())(x[0]), (_S_ZEROS,)),
    "at_multiply_dup": (
        lambda x: grad(lambda x: x.at[fnp.asarray([0, 2, 0], like=x)].multiply(x[1]).sum())(x),
        (_S,),
    ),
    "searchsorted_batched": (
        lambda a, v: vmap(fnp.searchsorted)(fnp.sort(a, axis=1), v),
        (_S, _S[:, :2]),
    ),
    "repeat_tile_triu": (
        lambda x: grad(lambda x: (fnp.triu(fnp.tile(fnp.repeat(x, [1, 2, 0]), (2, 1))) ** 2).sum())(
            x
        ),
        (_S[:, 0],),
    ),
}


@pytest.mark.parametrize("name", sorted(STRICT_CASES))
def test_strict_backend_stays_on_device(name):
    from ftransforms.pytree import tree_leaves
    from ftransforms.strict_backend import StrictArray, asarray, to_numpy

    fn, args = STRICT_CASES[name]
    want = fn(*args)
    got = fn(*[asarray(a) for a in args])
    if callable(got):  # a vjp function: apply it to ones
        want, got = want(np.ones((7, 9))), got(asarray(np.ones((7, 9))))
    for leaf in tree_leaves(got):
        assert type(leaf) is StrictArray, f"{name}: a result came back as {type(leaf).__name__}"
    for a, b in zip(tree_leaves(to_numpy(got)), tree_leaves(want)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
