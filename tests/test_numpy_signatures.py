"""NumPy's own signatures on tracers: every parameter of a NumPy function that
ftransforms implements is accepted (by NumPy's name too: ``np.transpose(a=t)``), and the
keywords NumPy users pass (``var(where=, mean=, correction=)``, ``concatenate(dtype=,
casting=)``, ``zeros_like(order=, device=)``, ``median(overwrite_input=)``,
``intersect1d(return_indices=)``) compute as NumPy does.

Oracles: NumPy on plain arrays (a Python loop over the rows for vmap), float64 central
differences."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.numpy.dispatch import FUNCTIONS
from ftransforms.numpy.protocol import _parameter_renames

X = np.array([1.0, 2.0, 5.0, 4.0])
ROWS = np.array([[1.0, 2.0, 5.0, 4.0], [0.5, 3.0, -1.0, 2.0]])
MASK = X > 1.5


def _fd(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(x.size)])


def test_every_numpy_parameter_is_accepted():
    missing = []
    for func, ours in FUNCTIONS.items():
        try:
            theirs_params = inspect.signature(func).parameters
            ours_params = inspect.signature(ours).parameters
        except (TypeError, ValueError):
            continue
        if any(p.kind == p.VAR_KEYWORD for p in ours_params.values()):
            continue  # checked by the implementation itself (no_extra_args)
        renames = _parameter_renames(func, ours)
        for name, p in theirs_params.items():
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or name == "out":
                continue  # out= is handled before the implementation is called
            if name not in ours_params and name not in renames:
                missing.append(f"{func.__name__}({name}=)")
    # ufunc-like functions whose extra ufunc keywords are refused with a clear error
    known = {"conjugate", "vecdot", "matvec", "vecmat", "nanprod", "broadcast_arrays", "astype"}
    assert [m for m in missing if m.split("(")[0] not in known] == []


VAR_KEYWORDS = [
    {},
    {"ddof": 1},
    {"correction": 1},
    {"where": MASK},
    {"where": MASK, "ddof": 1},
    {"mean": np.mean(X, keepdims=True)},
]


@pytest.mark.parametrize("fn", [np.var, np.std], ids=["var", "std"])
@pytest.mark.parametrize("kw", VAR_KEYWORDS, ids=lambda kw: ",".join(kw) or "plain")
def test_var_std_keywords(fn, kw):
    def f(v):
        return fn(v, **kw)

    np.testing.assert_allclose(ft.jit(f)(X), f(X), rtol=1e-14)
    np.testing.assert_allclose(ft.grad(f)(X), _fd(f, X), rtol=1e-6, atol=1e-8)
    if "where" not in kw and "mean" not in kw:
        np.testing.assert_allclose(ft.vmap(f)(ROWS), [f(r) for r in ROWS], rtol=1e-14)
    with pytest.raises(ValueError, match="ddof and correction"):
        ft.grad(lambda v: fn(v, ddof=1, correction=1))(X)


@pytest.mark.parametrize("fn", [np.nanvar, np.nanstd], ids=["nanvar", "nanstd"])
def test_nanvar_nanstd_keywords(fn):
    xn = np.array([1.0, np.nan, 5.0, 4.0])
    for kw in ({"correction": 1}, {"where": np.array([1, 1, 1, 0], bool)}):
        np.testing.assert_allclose(ft.vmap(lambda v, kw=kw: fn(v, **kw))(xn[None]), [fn(xn, **kw)])
    kw = {"mean": np.nanmean(xn, keepdims=True)}
    np.testing.assert_allclose(ft.jit(lambda v: fn(v, **kw))(xn), fn(xn, **kw))


@pytest.mark.filterwarnings("ignore:`row_stack` alias is deprecated:DeprecationWarning")
def test_joining_with_dtype_and_casting():
    x = X[:3]
    for join in (np.concatenate, np.vstack, np.hstack, np.stack):
        got = ft.jit(lambda v, join=join: join([v, 2 * v], dtype=np.float32))(x)
        want = join([x, 2 * x], dtype=np.float32)
        assert got.dtype == want.dtype == np.float32
        np.testing.assert_array_equal(got, want)
        np.testing.assert_allclose(
            ft.grad(lambda v, join=join: join([v, 2 * v], dtype=np.float64).sum())(x), [3.0] * 3
        )
        with pytest.raises(TypeError, match="according to the rule 'same_kind'"):
            ft.grad(lambda v, join=join: join([v, v], dtype=np.int64).sum())(x)
    assert ft.vmap(lambda v: np.row_stack([v, v]))(ROWS).shape == (2, 2, 4)  # dtype=None


def test_like_functions_and_copy_take_numpys_keywords():
    for like in (np.zeros_like, np.ones_like, np.empty_like):
        out = ft.vmap(lambda v, like=like: like(v, order="C", subok=False, device="cpu"))(ROWS)
        assert out.shape == ROWS.shape
        with pytest.raises(ValueError, match="device='cuda'"):
            ft.grad(lambda v, like=like: like(v, device="cuda").sum())(X)
    full = ft.jit(lambda v: np.full_like(v, 2.5, order="F") + v)(X)
    np.testing.assert_array_equal(full, X + 2.5)
    np.testing.assert_array_equal(ft.grad(lambda v: (np.copy(v, order="F") * v).sum())(X), 2 * X)


@pytest.mark.filterwarnings("ignore:jit.*depends on data:RuntimeWarning")  # data-sized output
def test_median_overwrite_input_and_intersect1d_indices():
    f = lambda v: np.median(v, overwrite_input=True)  # noqa: E731
    np.testing.assert_allclose(ft.grad(f)(X), _fd(lambda v: np.median(v.copy()), X))
    a, b = np.array([4.0, 2.0, 7.0, 2.0]), np.array([7.0, 4.0, 1.0])
    for got in (
        ft.jit(lambda x, y: np.intersect1d(x, y, return_indices=True))(a, b),
        ft.numpy.intersect1d(a, b, return_indices=True),
    ):
        for g, w in zip(got, np.intersect1d(a, b, return_indices=True)):
            np.testing.assert_array_equal(g, w)
    rows = np.stack([a, a[::-1]])
    out = ft.vmap(lambda x: np.intersect1d(x, b, return_indices=True)[1])(rows)
    np.testing.assert_array_equal(out, [np.intersect1d(r, b, return_indices=True)[1] for r in rows])
    g = ft.grad(lambda x: (np.intersect1d(x, b, return_indices=True)[0] * [1.0, 3.0]).sum())(a)
    np.testing.assert_array_equal(g, [1.0, 0.0, 3.0, 0.0])


def test_numpys_parameter_names_by_keyword():
    m = ROWS
    np.testing.assert_array_equal(ft.jit(lambda v: np.transpose(a=v))(m), m.T)
    np.testing.assert_array_equal(ft.vmap(lambda v: np.flip(m=v))(m), m[:, ::-1])
    np.testing.assert_array_equal(ft.jit(lambda v: np.tile(A=v, reps=2))(m[0]), np.tile(m[0], 2))
    np.testing.assert_array_equal(
        ft.grad(lambda v: np.cumsum(a=v, axis=0).sum())(X), [4.0, 3.0, 2.0, 1.0]
    )
    np.testing.assert_array_equal(ft.jit(lambda v: np.vstack(tup=[v, v]))(X), np.vstack([X, X]))


def test_settings_are_never_renamed_by_position():
    """Only the required (array) parameters are matched by position: NumPy's ``out`` sits
    where ftransforms' ``sum`` has ``keepdims``; ``out=None`` must not become it."""
    m = ROWS
    for kw in ({"axis": 0, "out": None, "keepdims": True}, {"keepdims": True, "out": None}):
        got = ft.jit(lambda v, kw=kw: np.sum(v, **kw))(m)
        np.testing.assert_array_equal(got, np.sum(m, **kw))
    np.testing.assert_array_equal(
        ft.vmap(lambda v: np.take(v, [0, 2], mode="clip", out=None))(m), m[:, [0, 2]]
    )
