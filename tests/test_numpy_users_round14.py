"""NumPy users' code under the transforms (round 14 probes), with ``import numpy as np``
(the protocols): values and dtypes as eager NumPy's, vmap as the loop over the rows,
derivatives as float64 central differences."""

from __future__ import annotations

import warnings

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


# -- np.sum(x, where=m, initial=c) in NumPy's order; var of complex data ---------------------

MASK_RNG = np.random.default_rng(7)
MASKED_CASES = [
    ((37,), None),
    ((5, 37), None),
    ((5, 37), 1),
    ((5, 37), -1),
    ((4, 5, 6), (0, 2)),
    ((3, 200), -1),
]


@pytest.mark.parametrize(("shape", "axis"), MASKED_CASES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, np.complex64])
@pytest.mark.parametrize("name", ["sum", "mean", "var", "nanmean", "nanvar"])
def test_masked_reductions_are_numpys_to_the_bit(shape, axis, dtype, name):
    """SILENT before: ``np.sum(x, where=m)`` summed ``where(m, x, 0)``; NumPy adds each run
    of selected elements (each run summed pairwise), so the last bits differed, and so
    did mean/var/nanmean/nanvar with ``where=``."""
    x = MASK_RNG.standard_normal((3,) + shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * MASK_RNG.standard_normal((3,) + shape)
    x = x.astype(dtype)
    m = MASK_RNG.random((3,) + shape) > 0.3
    fn = getattr(np, name)

    def f(v, w):
        return fn(v, axis=axis, where=w)

    want = np.stack([f(x[i], m[i]) for i in range(3)])
    _same(ft.vmap(f)(x, m), want)
    _same(ft.vmap(f, in_dims=(0, None))(x, m[0]), np.stack([f(x[i], m[0]) for i in range(3)]))
    _same(ft.jit(f)(x[1], m[1]), want[1])


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_sum_initial_is_numpys_start_value(dtype):
    """SILENT before: ``initial=`` was added after the sum; NumPy starts from it (along a
    non-inner axis each step rounds from there)."""
    x = MASK_RNG.standard_normal((3, 40, 6)).astype(dtype)

    def f(v):
        return np.sum(v, axis=0, initial=np.pi)

    _same(ft.vmap(f)(x), np.stack([f(r) for r in x]))
    _same(ft.jit(f)(x[0]), f(x[0]))


def test_masked_sum_derivatives():
    x = MASK_RNG.standard_normal((4, 5))
    m = MASK_RNG.random((4, 5)) > 0.4

    def f(v):
        return np.sum(v**2, axis=1, where=m, initial=1.5)

    np.testing.assert_allclose(ft.jacrev(f)(x), fd_jacobian(f, (x,)), rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(ft.jacfwd(f)(x), fd_jacobian(f, (x,)), rtol=1e-8, atol=1e-9)
    g = ft.grad(lambda v: np.mean(v, where=m))(x)
    _same(g, np.where(m, 1 / m.sum(), 0.0))
    # a traced mask (the rows' own comparison) under vmap and grad
    rows = MASK_RNG.standard_normal((3, 7))

    def h(v):
        return np.sum(v, where=v > 0)

    _same(ft.vmap(h)(rows), np.stack([h(r) for r in rows]))
    _same(ft.grad(h)(rows[0]), (rows[0] > 0).astype(float))


@pytest.mark.parametrize("name", ["var", "std", "nanvar", "nanstd"])
@pytest.mark.parametrize("axis", [None, 0, -1])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_variance_of_complex_data_is_numpys_to_the_bit(name, axis, dtype):
    """SILENT before: var squared complex deviations as ``c * conj(c)`` (NumPy: ``re*re +
    im*im`` through a float view), and nanvar divided a complex64 mean in complex64 (NumPy
    divides by its integer count in complex128)."""
    x = (MASK_RNG.standard_normal((3, 5, 33)) + 1j * MASK_RNG.standard_normal((3, 5, 33))).astype(
        dtype
    )
    fn = getattr(np, name)

    def f(v):
        return fn(v, axis=axis)

    _same(ft.vmap(f)(x), np.stack([f(r) for r in x]))
    _same(ft.jit(f)(x[2]), f(x[2]))


# -- np.convolve / np.correlate with an inf or NaN in the shorter operand ---------------------


@pytest.mark.parametrize("name", ["convolve", "correlate"])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_convolution_with_a_non_finite_kernel_is_numpys(name, mode, bad):
    """SILENT before: the padding zeros met the kernel's inf/NaN in the matrix product
    (``0 * nan``), so every output was NaN where NumPy's has numbers."""
    rows = np.array([[3.0, -1.0, 2.5, 2.5, 0.5, 1.0], [1.0, 2.0, 0.5, 3.0, -2.0, 4.0]])
    kernel = np.array([0.5, bad, -7.0, 1.0])
    fn = getattr(np, name)

    def f(v):
        return fn(v, kernel, mode)

    def g(v):
        return fn(kernel, v, mode)

    with np.errstate(invalid="ignore"):
        for h in (f, g):
            want = np.stack([h(r) for r in rows])
            assert mode != "full" or np.isfinite(want).any()  # (the test has teeth)
            np.testing.assert_allclose(ft.vmap(h)(rows), want, rtol=1e-15, atol=0)
            np.testing.assert_allclose(ft.jit(h)(rows[0]), want[0], rtol=1e-15, atol=0)


def test_convolution_derivatives_are_central_differences():
    x = np.array([0.3, -1.2, 2.0, 0.7, 1.1])
    k = np.array([1.5, -0.5, 0.25])
    for mode in ("full", "same", "valid"):
        for f in (
            lambda v, mode=mode: np.convolve(v, k, mode),
            lambda v, mode=mode: np.convolve(k, v, mode),
            lambda v, mode=mode: np.correlate(v, k[::-1] + 1j, mode).real,
        ):
            np.testing.assert_allclose(ft.jacrev(f)(x), fd_jacobian(f, (x,)), rtol=1e-8, atol=1e-9)


# -- writes of Python numbers into small integer arrays ----------------------------------------

WRITES = {
    "setitem": lambda c, v: c.__setitem__(0, v),
    "setmask": lambda c, v: c.__setitem__(c > 2, v),
    "fill": lambda c, v: c.fill(v),
    "put": lambda c, v: np.put(c, [0, 2], v),
    "place": lambda c, v: np.place(c, c > 2, [v]),
    "putmask": lambda c, v: np.putmask(c, c > 2, v),
    "copyto": lambda c, v: np.copyto(c, v, where=c > 2),
    "slice_list": lambda c, v: c.__setitem__(slice(0, 2), [v, 1]),
}


@pytest.mark.filterwarnings("ignore::ftransforms.errors.PerformanceWarning")  # place: a split
@pytest.mark.parametrize("write", list(WRITES))
@pytest.mark.parametrize(("value", "dtype"), [(300, np.uint8), (-1, np.uint8), (200, np.int8)])
def test_out_of_range_python_integer_write_raises_as_numpy(write, value, dtype):
    """SILENT before: ``a[0] = 300`` (and fill, put, place, putmask, copyto) into a traced
    uint8 array wrapped to 44 where NumPy raises OverflowError."""
    rows = np.array([[1, 5, 3], [7, 0, 2]], dtype)

    def f(r):
        c = r.copy()
        WRITES[write](c, value)
        return c

    with pytest.raises(OverflowError, match="out of bounds"):
        f(rows[0])
    with pytest.raises(OverflowError, match="out of bounds"):
        ft.vmap(f)(rows)


@pytest.mark.filterwarnings("ignore::ftransforms.errors.PerformanceWarning")  # place: a split
@pytest.mark.parametrize("write", list(WRITES))
@pytest.mark.parametrize(("value", "dtype"), [(1, np.uint8), (True, np.int8), (1.5, np.int8)])
def test_python_number_write_in_range_is_numpys(write, value, dtype):
    """error before: ``np.copyto(uint8s, 1)`` raised 'cannot cast from int64 to uint8' (a
    Python number is weak under NEP 50)."""
    rows = np.array([[1, 5, 3], [7, 0, 2]], dtype)

    def f(r):
        c = r.copy()
        WRITES[write](c, value)
        return c

    try:
        want = np.stack([f(r) for r in rows])
    except TypeError:  # NumPy refuses the cast (copyto of 1.5 into integers): so do we
        with pytest.raises(TypeError):
            ft.vmap(f)(rows)
        return
    _same(ft.vmap(f)(rows), want)


# -- np.float_power through NumPy's own loop -----------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int8, np.complex64])
def test_float_power_is_numpys_to_the_bit(dtype):
    """SILENT before: ``np.float_power`` was ``power`` of float64 operands; NumPy's float64
    ``power`` loop (SIMD) rounds otherwise than ``float_power``'s in the last bit."""
    base = np.linspace(0.05, 3.0, 64).reshape(2, 32)
    x = base * 4 if np.dtype(dtype).kind == "i" else base + (0.5j if dtype == np.complex64 else 0)
    x = x.astype(dtype)

    def f(v):
        return np.float_power(v, 2.5)

    _same(ft.vmap(f)(x), np.stack([f(r) for r in x]))
    _same(ft.jit(f)(x[0]), f(x[0]))
    _same(
        ft.vmap(lambda e: np.float_power(x[0], e))(np.array([0.5, 1.7])),
        np.stack([np.float_power(x[0], 0.5), np.float_power(x[0], 1.7)]),
    )
    if dtype == np.float64:
        g = ft.grad(lambda v: np.float_power(v, 2.5).sum())(x[0])
        np.testing.assert_allclose(g, 2.5 * x[0] ** 1.5, rtol=1e-14)


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64, np.float32])
@pytest.mark.parametrize("exponent", [2, -1, 0.5, 2.0, 3])
def test_power_operator_takes_numpys_fast_paths(dtype, exponent):
    """SILENT before: ``z ** 2`` of a complex tracer was ``power(z, 2)``; NumPy's ``**`` with
    a Python int 2 / -1 or float 0.5 is ``square``/``reciprocal``/``sqrt``, which round
    otherwise for complex."""
    rng = np.random.default_rng(11)
    z = np.abs(rng.standard_normal((2, 200))) + 0.5
    if np.dtype(dtype).kind == "c":
        z = z + 1j * rng.standard_normal((2, 200))
    z = z.astype(dtype)

    def f(v):
        return v**exponent

    def g(v):
        w = v.copy()
        w **= exponent
        return w

    for h in (f, g):
        _same(ft.vmap(h)(z), np.stack([h(r) for r in z]))
        _same(ft.jit(h)(z[1]), h(z[1]))


# -- add/multiply.reduceat of bools and small integers ----------------------------------------


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint8, np.int32])
@pytest.mark.parametrize("name", ["add", "multiply"])
@pytest.mark.parametrize("out_dtype", [None, np.int8])
def test_reduceat_accumulates_as_numpys_sum(dtype, name, out_dtype):
    """SILENT before: ``np.add.reduceat`` of bools was a logical or (True where NumPy
    counts 2), and of int8 kept int8 where NumPy widens to int64 as its sum."""
    rows = np.array([[1, 2, 3, 4, 1], [0, 1, 1, 5, 1]], dtype)
    kw = {} if out_dtype is None else {"dtype": out_dtype}

    def f(v):
        return getattr(np, name).reduceat(v, [0, 2, 4], **kw)

    _same(ft.vmap(f)(rows), np.stack([f(r) for r in rows]))
    _same(ft.jit(f)(rows[1]), f(rows[1]))


# -- reductions over no elements ---------------------------------------------------------------

EMPTY_CASES = [((0,), None), ((2, 0), 1), ((0, 3), 0), ((2, 0), None)]


@pytest.mark.parametrize(("shape", "axis"), EMPTY_CASES)
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.bool_])
def test_max_min_with_initial_over_no_elements_is_initial(shape, axis, keepdims, dtype):
    """error before: ``np.max(empty, initial=c)`` raised 'zero-size array to reduction
    operation maximum'; NumPy gives ``c`` (in the array's dtype) in the result's shape."""
    x = np.zeros((3,) + shape, dtype)
    for name in ("max", "min"):

        def f(v, name=name):
            return getattr(np, name)(v, axis=axis, initial=1, keepdims=keepdims)

        _same(ft.vmap(f)(x), np.stack([f(r) for r in x]))
        _same(ft.jit(f)(x[0]), f(x[0]))
    g = ft.grad(lambda v: np.max(v, axis=axis, initial=2.0).sum())(x[0].astype(float))
    _same(g, np.zeros(shape))


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # NumPy's 0/0
@pytest.mark.parametrize(("shape", "axis"), EMPTY_CASES)
@pytest.mark.parametrize("name", ["median", "nanmedian"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_median_of_no_elements_is_nan_with_numpys_warning(shape, axis, name, dtype):
    """error before: ``np.median`` of an empty slice raised 'cannot select an axis to
    squeeze out' (nanmedian an IndexError); NumPy gives NaN and warns 'Mean of empty
    slice'."""
    if name == "nanmedian" and dtype == np.int64:
        return
    x = np.zeros((3,) + shape, dtype)

    def f(v):
        return getattr(np, name)(v, axis=axis)

    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        want = np.stack([f(r) for r in x])
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        _same(ft.vmap(f)(x), want)
    if name == "median":  # (nanmean's data-dependent warning is not replayed by jit)
        with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
            _same(ft.jit(f)(x[0]), want[0])


# -- np.linalg.norm over all elements: NumPy's dot product ------------------------------------


@pytest.mark.parametrize("shape", [(40,), (4, 37), (2, 3, 4)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128])
@pytest.mark.parametrize("kw", [{}, {"keepdims": True}])
def test_norm_of_all_elements_is_numpys_to_the_bit(shape, dtype, kw):
    """SILENT before: ``np.linalg.norm(x)`` summed ``|x|**2`` with ``np.sum``; NumPy's norm
    over all elements is ``sqrt(x.ravel() @ x.ravel())`` (real and imaginary parts apart)."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3,) + shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal((3,) + shape)
    x = x.astype(dtype)

    def f(v):
        return np.linalg.norm(v, **kw)

    _same(ft.vmap(f)(x), np.stack([f(r) for r in x]))
    _same(ft.jit(f)(x[0]), f(x[0]))


def test_norm_derivatives():
    x = np.array([[0.3, -1.2], [2.0, 0.7]])
    np.testing.assert_allclose(ft.grad(np.linalg.norm)(x), x / np.linalg.norm(x), rtol=1e-15)
    h = ft.hessian(np.linalg.norm)(x.ravel())
    np.testing.assert_allclose(h, fd_jacobian(ft.grad(np.linalg.norm), (x.ravel(),)), rtol=1e-7)
    z = np.array([3 + 4j, 1 - 2j])
    want = np.conj(z) / np.linalg.norm(z)  # grad of a real function of z: JAX's conj
    np.testing.assert_allclose(ft.grad(np.linalg.norm)(z), want, rtol=1e-15)


@pytest.mark.parametrize(
    ("subscripts", "shapes"),
    [("i->", [(0,)]), ("...i->...", [(2, 0)]), ("ij,jk->", [(2, 0), (0, 3)]), ("ii->", [(0, 0)])],
)
def test_einsum_gradient_over_an_empty_axis(subscripts, shapes):
    """error before: the cotangent of an einsum operand with a length-0 axis was reshaped
    from length 1 ('cannot reshape array of size 1 into shape (0,)')."""
    args = [np.zeros(s) for s in shapes]
    g = ft.grad(lambda a, *rest: np.einsum(subscripts, a, *rest).sum())(*args)
    _same(g, np.zeros(shapes[0]))


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # NumPy's 0/0
@pytest.mark.filterwarnings("ignore::ftransforms.errors.PerformanceWarning")  # (found, left)
@pytest.mark.parametrize(
    "f",
    [
        lambda v: np.mean(v),
        lambda v: np.mean(v, axis=1),
        lambda v: np.average(v),
        lambda v: np.mean(v, where=np.zeros(v.shape, bool)),
    ],
)
def test_mean_of_no_elements_warns_as_numpy(f):
    """Before: a traced mean over no elements warned only NumPy's 'invalid value' of its
    0 / 0, not the 'Mean of empty slice' RuntimeWarning that code filters for."""
    x = np.zeros((3, 2, 0))
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        want = np.stack([f(r) for r in x])
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        _same(ft.vmap(f)(x), want)


def test_var_of_no_elements_does_not_warn_of_a_mean():
    # NumPy's var warns of its degrees of freedom only
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        ft.vmap(np.var)(np.zeros((3, 2, 0)))
    assert not [w for w in seen if "Mean of empty slice" in str(w.message)]
