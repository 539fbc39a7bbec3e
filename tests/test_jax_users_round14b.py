"""Round 14b of JAX users' probes: softmax family at infinities, make_jaxpr's result,
fori_loop's float bounds, and lax's dtype checks, each against JAX (x64)."""

import warnings

import numpy as np
import pytest
import scipy.special

import ftransforms as ft
from ftransforms.scipy import special as fss
from tests.program_oracles import check_fd_grad, jax_call
from tests.tolerances import assert_tree_close, tol

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)

_ROWS = np.array([[np.inf, 0.0, 1.0], [0.0, 1.0, 2.0], [-np.inf] * 3, [np.inf, -np.inf, 0.0]])


def _quiet(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.asarray(f(*args, **kwargs))


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("where", [None, np.array([True, True, False])])
def test_nn_softmax_rows_with_infinities_match_jax(name, where):
    # a +inf entry makes the whole row NaN in JAX (inf - inf), not [nan, 0, 0]
    kw = {} if where is None else {"where": where}
    ours = _quiet(getattr(ft.nn, name), _ROWS, **kw)
    theirs = _quiet(getattr(jax.nn, name), _ROWS, **kw)
    assert_tree_close(ours, theirs, **tol(np.float64))  # NaN only where JAX has NaN
    row = _ROWS[0]
    jac = _quiet(ft.jacrev(lambda r: getattr(ft.nn, name)(r, **kw)), row)
    jjac = _quiet(jax.jacrev(lambda r: getattr(jax.nn, name)(r, **kw)), row)
    np.testing.assert_array_equal(np.isnan(jac), np.isnan(jjac))


def test_nn_softmax_where_all_masked_row_and_gradient_match_jax():
    x = np.array([[0.0, 1.0, 2.0], [0.0, 1.0, 2.0]])
    where = np.array([[True, True, False], [False] * 3])
    for name in ("softmax", "log_softmax"):
        ours = ft.jacrev(lambda r, n=name: getattr(ft.nn, n)(r, where=where))(x)
        theirs = jax_call(jax.jacrev(lambda r, n=name: getattr(jax.nn, n)(r, where=where)), x)
        assert_tree_close(ours, theirs, **tol(np.float64))


def test_scipy_softmax_with_inf_matches_scipy():
    ours = _quiet(fss.softmax, _ROWS, axis=1)
    theirs = _quiet(scipy.special.softmax, _ROWS, axis=1)
    assert_tree_close(ours, theirs, **tol(np.float64))
    # scipy's log_softmax differs from JAX's at +inf ([nan, -inf, -inf]): keep SciPy's
    ours = _quiet(fss.log_softmax, _ROWS, axis=1)
    theirs = _quiet(scipy.special.log_softmax, _ROWS, axis=1)
    assert_tree_close(ours, theirs, **tol(np.float64))


def _fori_body(i, c):
    return (c[0] + 1, c[1] + i)


@pytest.mark.parametrize(
    "bounds", [(0.0, 3.0), (0.5, 3.2), (-1.5, 1.5), (np.float64(0), np.float64(2.9))]
)
def test_fori_loop_float_bounds_like_jax(bounds):
    # JAX (eager: the bounds are concrete) truncates float bounds with int()
    ours = ft.fori_loop(*bounds, _fori_body, (0, 0.0))
    theirs = jax.lax.fori_loop(*bounds, _fori_body, (0, 0.0))
    assert_tree_close(ours, tuple(np.asarray(t) for t in theirs), **tol(np.float64))


def test_fori_loop_traced_float_bound_under_vmap_like_jax():
    def f(lib):
        return lambda x: lib.fori_loop(0.5, x, lambda i, c: c + i, 0.0)

    x = np.array([3.0, 4.2])
    assert_tree_close(ft.vmap(f(ft))(x), jax_call(jax.vmap(f(jax.lax)), x), **tol(np.float64))


@pytest.mark.parametrize("bounds", [(0, 3.0), (np.float64(0), 3)])
def test_fori_loop_mixed_int_float_bounds_refused_like_jax(bounds):
    with pytest.raises(TypeError):
        jax.lax.fori_loop(*bounds, _fori_body, (0, 0.0))
    with pytest.raises(TypeError, match="equal types.*int"):
        ft.fori_loop(*bounds, _fori_body, (0, 0.0))


_I32, _I64 = np.ones(2, np.int32), np.ones(2, np.int64)
_F32, _F64 = np.ones(2, np.float32), np.ones(2)


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("sub", (_I32, _F64)),
        ("mul", (_I32, _I64)),
        ("max", (_F32, _F64)),
        ("lt", (_F32, _F64)),
        ("rem", (_I32, _F64)),
        ("atan2", (_F32, _F64)),
        ("div", (_I32, _I64)),
        ("complex", (_F32, _F64)),
        ("clamp", (np.float32(0), _F64, 2.0)),
        ("pad", (_F64, np.float32(0), [(1, 1, 0)])),
        ("dynamic_update_slice", (_F64, np.ones(1, np.float32), (0,))),
        ("dynamic_update_index_in_dim", (_F64, np.ones(1, np.float32), 0, 0)),
    ],
)
def test_lax_refuses_arrays_of_different_dtypes_like_jax(name, args):
    with pytest.raises(TypeError):
        getattr(jax.lax, name)(*args)
    with pytest.raises(ft.errors.DtypeMismatchError, match="convert_element_type") as info:
        getattr(ft.lax, name)(*args)
    dtypes = {
        str(np.asarray(a).dtype) for a in args if not isinstance(a, (float, list, tuple, int))
    }
    assert all(d in str(info.value) for d in dtypes)


def test_lax_same_dtypes_and_python_scalars_still_accepted():
    np.testing.assert_array_equal(ft.lax.sub(_F32, 1.0), np.zeros(2, np.float32))
    assert ft.lax.sub(_F32, 1.0).dtype == np.float32
    np.testing.assert_array_equal(ft.lax.mul(_I32, _I32), np.ones(2, np.int32))
    out = ft.lax.dynamic_update_slice(_F64, np.zeros(1), (1,))
    np.testing.assert_array_equal(
        out, np.asarray(jax.lax.dynamic_update_slice(_F64, np.zeros(1), (1,)))
    )


def test_make_jaxpr_result_has_jax_avals_jaxpr_and_consts():
    import jax.numpy as jnp

    def body(m):
        return lambda x, y: (m.sin(x) * y, x.sum(axis=0), m.stack([x, y]))

    x, y = np.ones((2, 3), np.float32), np.full((2, 3), 2.0, np.float32)
    ours, theirs = ft.make_jaxpr(body(ft.numpy))(x, y), jax.make_jaxpr(body(jnp))(x, y)
    assert [(a.shape, a.dtype) for a in ours.in_avals] == [
        (a.shape, a.dtype) for a in theirs.in_avals
    ]
    assert [(a.shape, a.dtype) for a in ours.out_avals] == [
        (a.shape, a.dtype) for a in theirs.out_avals
    ]
    assert len(ours.jaxpr.eqns) == len(ours.eqns) > 0
    c = np.arange(3.0)
    assert any(
        k is c or np.array_equal(k, c) for k in ft.make_jaxpr(lambda x: x * c)(np.ones(3)).consts
    )


@pytest.mark.parametrize(
    ("shape", "k", "cplx"), [((5, 3), 2, False), ((2, 4, 4), 3, False), ((4, 2), 2, True)]
)
def test_lax_linalg_householder_product_matches_jax(shape, k, cplx):
    rng = np.random.default_rng(0)
    a = rng.normal(size=shape) + (1j * rng.normal(size=shape) if cplx else 0)
    taus = rng.normal(size=(*shape[:-2], k)) + (
        1j * rng.normal(size=(*shape[:-2], k)) if cplx else 0
    )
    ours = ft.lax.linalg.householder_product(a, taus)
    theirs = jax_call(jax.lax.linalg.householder_product, a, taus)
    assert_tree_close(ours, theirs, **tol(np.float64))
    rows = ft.vmap(ft.lax.linalg.householder_product)(
        a.reshape(-1, *shape[-2:]), taus.reshape(-1, k)
    )
    assert_tree_close(rows, np.asarray(theirs).reshape(-1, *shape[-2:]), **tol(np.float64))


def test_lax_linalg_householder_product_gradient_matches_fd():
    rng = np.random.default_rng(1)
    a, taus = rng.normal(size=(4, 3)), rng.normal(size=3)
    w = np.arange(12.0).reshape(4, 3)

    def f(a, taus):
        return (ft.lax.linalg.householder_product(a, taus) ** 2 * w).sum()

    check_fd_grad(f, (a, taus), argnums=0)
    check_fd_grad(f, (a, taus), argnums=1)


@pytest.mark.parametrize(("shape", "cplx"), [((2, 5, 5), False), ((3, 3), True), ((1, 1), False)])
def test_lax_linalg_tridiagonal_matches_jax(shape, cplx):
    rng = np.random.default_rng(2)
    a = rng.normal(size=shape) + (1j * rng.normal(size=shape) if cplx else 0)
    a = a + np.conj(np.swapaxes(a, -1, -2))
    ours = ft.lax.linalg.tridiagonal(a)
    theirs = jax_call(jax.lax.linalg.tridiagonal, a)
    assert_tree_close(ours, tuple(theirs), **tol(np.float64))
    flat = a.reshape(-1, *shape[-2:])
    rows = ft.vmap(ft.lax.linalg.tridiagonal)(flat)
    want = tuple(np.asarray(t).reshape(flat.shape[0], *t.shape[len(shape) - 2 :]) for t in theirs)
    assert_tree_close(rows, want, **tol(np.float64))


def test_lax_linalg_tridiagonal_gradient_matches_fd():
    rng = np.random.default_rng(3)
    a = rng.normal(size=(4, 4))
    a = a + a.T

    def f(a):
        _, d, e, _ = ft.lax.linalg.tridiagonal(a)
        return (d * np.arange(1.0, 5.0)).sum() + (e**2).sum()

    check_fd_grad(f, (a,))
