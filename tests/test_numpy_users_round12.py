"""NumPy users' code under the transforms (round 12 probes), with ``import numpy as np``
(the protocols) and ``import ftransforms.numpy``: values and dtypes as eager NumPy's, vmap
as the loop over the rows, derivatives as float64 central differences."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ftransforms as ft
import ftransforms.numpy as fnp

MODULES = [np, fnp]


def _loop(f, rows):
    return np.stack([np.asarray(f(r)) for r in rows])


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(got, want)


# -- np.emath: complex results outside the real domain ----------------------------------------

EMATH_UNARY = ["sqrt", "log", "log2", "log10", "arccos", "arcsin", "arctanh"]
#: rows where some need the complex function and some not (|x| > 1 and x < 0 both mixed)
EMATH_ROWS = np.array([[-4.0, 2.0], [0.25, 0.5], [0.75, 3.0], [-0.5, -2.0]])


@pytest.mark.parametrize("mod", MODULES)
@pytest.mark.parametrize("name", EMATH_UNARY)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int8, np.float16])
def test_emath_under_vmap_is_the_loop_over_the_rows(mod, name, dtype):
    """Missing before (UnsupportedOperationError).  The loop decides real or complex per
    row and stacks: complex for the batch, the real rows by the real function (to the
    bit: the complex function of a real argument differs by a few ulps)."""
    rows = (EMATH_ROWS * (4 if dtype is np.int8 else 1)).astype(dtype)
    f = getattr(mod.emath, name)
    with np.errstate(all="ignore"):
        for some in (rows, rows[1:3], rows[[0, 3]]):  # mixed, all real, all complex
            _same(ft.vmap(f)(some), _loop(getattr(np.emath, name), some))
        _same(f(rows[0]), getattr(np.emath, name)(rows[0]))


@pytest.mark.parametrize("mod", MODULES)
def test_emath_power_and_logn_decide_each_argument_per_row(mod):
    x = np.array([[-8.0, 2.0], [4.0, 0.5]])
    p = np.array([2, -1])  # an integer exponent: the negative one is made float (p * 1.0)
    ints = np.array([[2, 3], [4, 1]])
    cases = [
        (lambda r: mod.emath.power(r, 0.5), x),
        (lambda q: mod.emath.power(np.array([-2.0, 3.0]), q), p),
        (lambda q: mod.emath.power(np.array([2, 3]), q), p),  # int ** int stays int per row
        (lambda r: mod.emath.power(r, np.float32(0.5)), ints.astype(np.int8)),
        (lambda r: mod.emath.logn(3, r), x),
        (lambda r: mod.emath.logn(r, 2.0), x),
        (lambda r: mod.emath.logn(r[0], r), x.astype(np.float32)),
    ]
    with np.errstate(all="ignore"):
        for f, rows in cases:
            _same(ft.vmap(f)(rows), _loop(f, rows))


@pytest.mark.parametrize("name", EMATH_UNARY)
@pytest.mark.parametrize("x0", [-2.5, -0.3, 0.4, 1.7])
def test_emath_derivatives_are_central_differences(name, x0):
    """R -> C: jacfwd is the complex derivative along the real line, jacrev of the real and
    imaginary parts the same; under vmap each row differentiates its own function.  (SILENT
    before for arccos/arcsin at 1.7, on their branch cut: +0.727j where the difference
    gives -0.727j, NOTE [1 - z**2 on a branch cut].)"""
    f = getattr(np.emath, name)
    h = 1e-6
    x = np.array([x0])
    fd = (f(x + h) - f(x - h))[0] / (2 * h)
    np.testing.assert_allclose(ft.jacfwd(f)(x)[0, 0], fd, rtol=1e-7)
    np.testing.assert_allclose(ft.grad(lambda t: f(t).real.sum())(x)[0], fd.real, atol=1e-8)
    np.testing.assert_allclose(ft.grad(lambda t: f(t).imag.sum())(x)[0], fd.imag, atol=1e-8)
    rows = np.array([[x0, 0.5], [0.25, 0.5]])  # a complex row and a real one
    g = lambda r: (f(r).real ** 2 + f(r).imag).sum()  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no NaN, no warning from the side a row does not use
        got = ft.vmap(ft.grad(g))(rows)
    np.testing.assert_allclose(got, _loop(ft.grad(g), rows), rtol=1e-12)


# -- np.array of a list of numbers and tracers -------------------------------------------------


def _fd_grad(f, x, h=1e-6):
    e = np.eye(x.size)
    return np.array([(f(x + h * e[i]) - f(x - h * e[i])) / (2 * h) for i in range(x.size)])


@pytest.mark.parametrize(
    "build",
    [
        lambda x: np.array([x[0] ** 2, 1.0]),
        lambda x: np.asarray((x[1], 2, x[0] * x[1])),
        lambda x: np.array([[x[0], 1.0], [np.float64(2.0), x[1]]]),
        lambda x: np.array([x, np.ones(2)]),
    ],
)
def test_np_array_of_numbers_and_tracers_is_numpy_numeric_array(build):
    """Error before: an object array, whose dtype was object and on which ``np.sin`` called
    ``1.0.sin()`` (TypeError 'loop of ufunc does not support argument')."""
    x = np.array([1.5, -0.7])

    def f(x):
        a = build(x)
        assert a.dtype == np.float64, a.dtype  # NumPy's dtype, seen inside the function
        return np.sin(a).sum() + np.exp(a).max()

    np.testing.assert_allclose(ft.grad(f)(x), _fd_grad(f, x), rtol=1e-7)
    rows = np.array([[1.5, -0.7], [0.3, 2.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # np.max of it stays one batched call: no split
        np.testing.assert_allclose(ft.vmap(f, split=False)(rows), _loop(f, rows), rtol=1e-14)


@pytest.mark.parametrize(
    ("dtype", "other"),
    [(np.float32, 1.0), (np.float32, np.float32(2)), (np.int8, 1), (np.int8, 300), (np.bool_, 2)],
)
def test_np_array_of_a_traced_scalar_and_a_number_has_numpy_dtype(dtype, other):
    rows = np.array([1, 0, 3]).astype(dtype)
    f = lambda t: np.array([t, other])  # noqa: E731
    _same(ft.vmap(f)(rows), _loop(f, rows))
    _same(
        ft.vmap(lambda t: np.array([t, other]).astype(np.float32))(rows),
        _loop(f, rows).astype(np.float32),
    )


# -- np.polynomial's series with traced coefficients ------------------------------------------


@pytest.mark.parametrize("kind", ["Polynomial", "Chebyshev", "Legendre", "HermiteE"])
def test_series_roots_are_a_numeric_array(kind):
    """SILENT before: ``Polynomial(c).roots()`` was an object array of 0-d complex tracers,
    so ``np.real`` of it did nothing: complex128 where NumPy gives float64."""
    cls = getattr(np.polynomial, kind)
    rows = np.array([[0.3, -1.2, 0.5, 3.0], [-0.4, 0.1, -2.0, 1.0], [1.0, 2.0, 0.7, 0.9]])
    f = lambda c: np.sort(np.real(cls(c).roots()))  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ft.errors.PerformanceWarning)  # chebroots reads data
        _same(ft.vmap(f)(rows), _loop(f, rows))
    g = lambda c: np.sum(np.abs(cls(c).roots()) ** 2)  # noqa: E731
    np.testing.assert_allclose(ft.grad(g)(rows[0]), _fd_grad(g, rows[0]), rtol=1e-6, atol=1e-8)


# -- einsum's derivative where a size-1 axis broadcasts ---------------------------------------


@pytest.mark.parametrize(
    ("subscripts", "shapes"),
    [
        ("ij,j->i", [(2, 2), (1,)]),
        ("ij,j->i", [(2, 1), (3,)]),
        ("ij,kj->ik", [(2, 2), (3, 1)]),
        ("i,i->", [(3,), (1,)]),
        ("ii,i->i", [(2, 2), (1,)]),
        ("ij,j->", [(2, 1), (4,)]),
        ("ij,jk,k->i", [(2, 3), (3, 1), (4,)]),
    ],
)
def test_einsum_gradient_with_a_broadcast_axis(subscripts, shapes):
    """Error before: ``grad`` of ``np.einsum('ij,j->i', A, b)`` with ``b`` of shape (1,)
    (NumPy broadcasts it) raised 'cannot reshape array of size 2 into shape (2, 2)'."""
    rng = np.random.default_rng(0)
    ops = [rng.normal(size=s) for s in shapes]
    for i in range(len(ops)):

        def f(x, i=i):
            return np.sin(np.einsum(subscripts, *ops[:i], x, *ops[i + 1 :])).sum()

        want = _fd_grad(lambda v: f(v.reshape(shapes[i])), ops[i].ravel()).reshape(shapes[i])
        np.testing.assert_allclose(ft.grad(f)(ops[i]), want, rtol=1e-7, atol=1e-9)
        np.testing.assert_allclose(ft.jacfwd(f)(ops[i]), want, rtol=1e-7, atol=1e-9)


# -- nanmedian averages the two middle values, as NumPy ---------------------------------------


@pytest.mark.parametrize("mod", MODULES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
def test_nanmedian_to_the_bit(mod, dtype, axis):
    """SILENT before: the median of an even count was the 'midpoint' quantile's
    interpolation ``hi - (hi - lo) * 0.5``, NumPy's nanmedian ``(lo + hi) / 2``: the last
    bit differed (21 of 120 medians along an axis of float64 rows)."""
    rng = np.random.default_rng(0)
    rows = rng.normal(size=(20, 10, 6)).astype(dtype)
    rows[:, ::3, 1] = np.nan
    f = lambda a: mod.nanmedian(a, axis=axis)  # noqa: E731
    _same(ft.vmap(f)(rows), _loop(f, rows))


def test_nanmedian_along_a_long_axis_is_numpy_mean_of_two():
    rows = np.random.default_rng(1).normal(size=(3, 2, 700)).astype(np.float16)
    rows[:, :, ::7] = np.nan
    f = lambda a: np.nanmedian(a, axis=1)  # noqa: E731
    _same(ft.vmap(f)(rows), _loop(f, rows))


# -- the mean of float16 ------------------------------------------------------------------------


@pytest.mark.parametrize("mod", MODULES)
@pytest.mark.parametrize(
    "kw", [{}, {"axis": 0}, {"axis": 1, "keepdims": True}, {"where": "positive"}]
)
def test_float16_mean_is_computed_in_float32_as_numpy(mod, kw):
    """SILENT before: the float16 sum was rounded to float16 before the division (NumPy
    divides the float32 sum and rounds once): np.mean gave -9.805 where NumPy gives -9.8."""
    rows = (np.random.default_rng(7).normal(size=(40, 3, 6)) * 30).astype(np.float16)

    def f(v):
        kws = {**kw, "where": v > 0} if "where" in kw else kw
        return mod.mean(v, **kws)

    _same(ft.vmap(f)(rows), _loop(f, rows))
    _same(ft.vmap(lambda v: v.mean())(rows), _loop(lambda v: v.mean(), rows))
    _same(ft.vmap(lambda v: mod.var(v, axis=0))(rows), _loop(lambda v: np.var(v, axis=0), rows))


# -- np.clip of integers with Python int bounds past the dtype --------------------------------


@pytest.mark.parametrize("mod", MODULES)
@pytest.mark.parametrize(
    "bounds", [(-1, 300), (-1000, 1000), (2, 300), (-1, 3), (-300, None), (None, 1000), (3, 2)]
)
@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
def test_clip_of_small_integers_with_far_python_bounds(mod, bounds, dtype):
    """Error before: ``np.clip(u8, -1, 300)`` raised OverflowError under the transforms;
    NumPy drops a Python int bound past the dtype's range."""
    rows = np.array([[0, 5, 127], [100, 3, 1]], dtype)
    f = lambda v: mod.clip(v, *bounds)  # noqa: E731
    _same(ft.vmap(f)(rows), _loop(lambda v: np.clip(v, *bounds), rows))
    _same(ft.vmap(lambda v: v.clip(*bounds))(rows), _loop(lambda v: v.clip(*bounds), rows))


def test_clip_bound_on_the_far_side_still_overflows_as_numpy():
    with pytest.raises(OverflowError):
        np.clip(np.zeros(2, np.uint8), 300, 400)
    with pytest.raises(OverflowError):
        ft.vmap(lambda v: np.clip(v, 300, 400))(np.zeros((2, 2), np.uint8))


@pytest.mark.parametrize("name", ["arccos", "arcsin"])
@pytest.mark.parametrize(("x", "im"), [(1.7, 0.0), (1.7, -0.0), (-1.7, 0.0), (-1.7, -0.0)])
def test_complex_arccos_arcsin_derivative_on_the_branch_cut(name, x, im):
    """The derivative along the real line on the side the zero's sign picks, as NumPy's
    value there (the central difference keeps that sign)."""
    f, h = getattr(np, name), 1e-7
    fd = (f(complex(x + h, im)) - f(complex(x - h, im))) / (2 * h)
    z = np.array(complex(x, im))
    np.testing.assert_allclose(ft.jvp(f, (z,), (np.array(1 + 0j),))[1], fd, rtol=1e-6)
    np.testing.assert_allclose(ft.jacfwd(f, holomorphic=True)(z), fd, rtol=1e-6)


@pytest.mark.parametrize(
    "op",
    [
        lambda c: divmod(np.polynomial.Polynomial(c), np.polynomial.Polynomial([1.0, 2.0]))[0].coef,
        lambda c: (np.polynomial.Chebyshev(c) // np.polynomial.Chebyshev([0.5, 2.0])).coef,
        lambda c: (np.polynomial.Legendre(c) % np.polynomial.Legendre([0.5, 2.0])).coef,
        lambda c: np.polynomial.Legendre.fit(np.linspace(-1, 1, 4), c, 2).convert().coef,
        lambda c: np.polynomial.Hermite(c).convert(kind=np.polynomial.Polynomial).coef,
    ],
)
def test_series_division_and_conversion_with_traced_coefficients(op):
    """Errors and a SILENT one before: an object array of numbers met a tracer and made a
    traced array of dtype object: vmap returned an object array, grad raised
    AttributeError ('float' object has no attribute 'shape'), jvp a TypeError."""
    rows = np.array([[1.0, 2.0, 3.0, 4.0], [2.0, 1.0, 0.5, 3.0]])
    got, want = ft.vmap(op)(rows), _loop(op, rows)
    assert type(got) is np.ndarray and got.dtype == want.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-14)  # (fit: a batched lstsq)
    f = lambda c: np.sum(op(c) ** 2)  # noqa: E731
    np.testing.assert_allclose(ft.grad(f)(rows[0]), _fd_grad(f, rows[0]), rtol=1e-6, atol=1e-8)
    _, tangent = ft.jvp(f, (rows[0],), (rows[1],))
    np.testing.assert_allclose(tangent, _fd_grad(f, rows[0]) @ rows[1], rtol=1e-6)
