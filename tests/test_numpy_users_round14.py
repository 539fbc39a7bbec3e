"""NumPy users' code under the transforms (round 14 probes), with ``import numpy as np``
(the protocols): values and dtypes as eager NumPy's, vmap as the loop over the rows,
derivatives as float64 central differences."""

from __future__ import annotations

import numpy as np
import pytest

import ftransforms as ft
from tests.program_oracles import fd_jacobian


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(got, want)


def _rows(f, rows):
    return np.stack([np.asarray(f(r)) for r in rows])


# -- out=None: NumPy's default, passed on by wrappers -----------------------------------------

OUT_NONE = [
    lambda v: np.cumsum(v, axis=1, out=None),
    lambda v: np.cumprod(v, axis=0, out=None),
    lambda v: np.argmax(v, axis=1, out=None),
    lambda v: np.argmin(v, out=None),
    lambda v: np.any(v > 1, axis=0, out=None),
    lambda v: np.all(v > 1, out=None),
    lambda v: np.round(v, 1, out=None),
    lambda v: np.around(v, out=None),
    lambda v: np.clip(v, 1.0, 2.0, out=None),
    lambda v: np.fix(v, out=None),
    lambda v: np.isposinf(v, out=None),
]


@pytest.mark.parametrize("f", OUT_NONE)
def test_out_none_is_the_call_without_out(f):
    """error before: ``np.cumsum(x, out=None)`` (and argmax, any, all, round, clip, fix,
    isposinf) raised ``TypeError: unexpected keyword argument 'out'`` on a tracer."""
    rows = np.array([[[1.25, 2.5, -4.0], [0.5, 3.0, 1.0]], [[2.0, -1.5, 0.25], [1.0, 1.0, 7.0]]])
    _same(ft.vmap(f)(rows), _rows(f, rows))
    _same(ft.jit(f)(rows[0]), f(rows[0]))


# -- np.vecdot summed as NumPy's dot; np.matvec / np.vecmat (NumPy 2.2) -----------------------


def _operands(dtype, *shapes):
    rng = np.random.default_rng(4)
    out = []
    for s in shapes:
        v = 3 * rng.standard_normal(s)
        if np.dtype(dtype).kind == "c":
            v = v + 1j * rng.standard_normal(s)
        out.append(v.astype(dtype))
    return out


PRODUCT_DTYPES = [np.float64, np.float32, np.complex128, np.complex64, np.int8, np.bool_]


@pytest.mark.parametrize("dtype", PRODUCT_DTYPES)
def test_vecdot_is_numpys_dot_to_the_bit(dtype):
    """SILENT before: ``np.vecdot`` summed ``conj(x1) * x2`` with ``np.sum``; NumPy's
    vecdot is a dot product (BLAS), so long vectors differed in the last bits and
    ``np.vecdot(z, z)`` of complex ``z`` had a non-zero imaginary part."""
    a, b, m = _operands(dtype, (3, 37), (3, 37), (3, 37, 4))

    def f(x, y):
        return np.vecdot(x, y)

    _same(ft.vmap(f)(a, b), f(a, b))
    _same(ft.jit(f)(a[0], b[0]), f(a[0], b[0]))
    _same(ft.vmap(lambda x: np.vecdot(x, x))(a), np.vecdot(a, a))
    _same(ft.vmap(lambda x: np.vecdot(x, x, axis=0))(m), np.vecdot(m, m, axis=1))
    _same(ft.vmap(np.linalg.vecdot)(a, b), np.linalg.vecdot(a, b))


@pytest.mark.parametrize("dtype", PRODUCT_DTYPES)
def test_matvec_and_vecmat_have_rules(dtype):
    """missing before: ``np.matvec`` / ``np.vecmat`` raised 'has no ftransforms rule'."""
    A, v, w = _operands(dtype, (3, 5, 37), (3, 37), (3, 5))
    _same(ft.vmap(np.matvec)(A, v), np.matvec(A, v))
    _same(ft.jit(np.matvec)(A[0], v[0]), np.matvec(A[0], v[0]))
    got = ft.vmap(np.vecmat)(w, A)
    if np.dtype(dtype).kind == "c":  # NumPy's complex vecmat rounds in its own order
        assert got.dtype == dtype  # (the sums of 5 terms of size ~10: a few float eps)
        eps = np.finfo(dtype).eps
        np.testing.assert_allclose(got, np.vecmat(w, A), rtol=0, atol=400 * eps)
    else:
        _same(got, np.vecmat(w, A))


def test_matvec_vecmat_vecdot_derivatives_are_central_differences():
    A, v, w = _operands(np.float64, (4, 3), (3,), (4,))
    for f, x in [
        (lambda a: np.matvec(a, v), A),
        (lambda u: np.matvec(A, u), v),
        (lambda u: np.vecmat(u, A), w),
        (lambda a: np.vecmat(w, a), A),
        (lambda u: np.vecdot(u, u[::-1]), v),
    ]:
        np.testing.assert_allclose(ft.jacrev(f)(x), fd_jacobian(f, (x,)), rtol=1e-7, atol=1e-8)
    z = np.array([1 + 2j, -0.5 + 1j])
    # d/dz of the real part of vecdot(z, c) = sum(conj(z) c): grad's convention (JAX's)
    c = np.array([0.5 - 1j, 2 + 0.25j])
    got = ft.grad(lambda u: np.vecdot(u, c).real)(z)
    np.testing.assert_allclose(got, np.conj(c), rtol=1e-15)
