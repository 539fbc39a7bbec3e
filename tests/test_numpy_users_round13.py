"""NumPy users' code under the transforms (round 13 probes), with ``import numpy as np``
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


# -- np.linspace with a traced end point ------------------------------------------------------

LINSPACE_CASES = [(0.3, 1.9, 11, True), (-1.3, 2.9, 10, False), (1e-3, 3.3, 50, True)]


@pytest.mark.parametrize(("a", "b", "num", "endpoint"), LINSPACE_CASES)
@pytest.mark.parametrize("dtype", [None, int, np.float32])
def test_linspace_of_a_traced_start_is_numpys_to_the_bit(a, b, num, endpoint, dtype):
    """SILENT before: ``start + (stop - start) * (i / div)`` differed from NumPy's
    ``i * step + start`` in the last bit, and ``dtype=int`` truncated toward 0 where NumPy
    floors (-0.4 gave 0, NumPy -1)."""

    def f(s):
        return np.linspace(s, b, num, endpoint=endpoint, dtype=dtype)

    want = f(a)
    _same(ft.vmap(f)(np.array([a, a]))[1], want)
    _same(ft.jvp(f, (a,), (1.0,))[0], want)
    _same(ft.jit(f)(a), want)


def test_linspace_of_float16_end_points_is_float16_and_its_derivative():
    """SILENT before: float16 traced end points gave a float32 array."""
    a = np.array([1.0, 2.5], np.float16)

    def f(v):
        return np.linspace(v[0], v[1], 4)

    _same(ft.jvp(f, (a,), (np.ones_like(a),))[0], f(a))
    x = np.array([0.2, 1.1])
    jac = ft.jacrev(lambda v: np.linspace(v[0], v[1], 4, endpoint=False))(x)
    t = np.arange(4) / 4
    np.testing.assert_allclose(jac, np.stack([1 - t, t], 1), rtol=1e-15)
    out, step = ft.jvp(lambda s: np.linspace(s, 1.9, 5, retstep=True)[1], (0.3,), (1.0,))
    assert out == np.linspace(0.3, 1.9, 5, retstep=True)[1] and step == -0.25


# -- reductions' initial= in the reduction's dtype --------------------------------------------

INITIAL_CASES = [
    (np.int64, "sum", 1.5),
    (np.int8, "prod", 1.5),
    (np.int8, "max", 2.5),
    (np.uint8, "min", 2.0),
    (np.float32, "max", np.float64(3.5)),
    (np.float32, "sum", np.float64(0.1)),
    (np.float16, "prod", np.float64(1.5)),
    (np.bool_, "max", 2),
    (np.bool_, "min", 1.5),
    (np.int8, "nanmax", 2.5),
    (np.float32, "nanmin", np.float64(0.5)),
    (np.int64, "nanprod", 1.5),
]


@pytest.mark.parametrize(("dtype", "name", "initial"), INITIAL_CASES)
@pytest.mark.parametrize("where", [None, np.array([True, False, True, True])])
def test_initial_is_cast_to_the_reductions_dtype(dtype, name, initial, where):
    """SILENT before: ``initial=`` joined the result by promotion, so ``np.sum(ints,
    initial=1.5)`` was the float 10.5 where NumPy's integer sum gives 10, a float64
    initial made a float32 ``max`` float64, and ``max`` of bools an integer."""
    rows = np.array([[3, 1, 4, 1], [0, 2, 1, 5]]).astype(dtype)
    kw = {} if where is None else {"where": where}

    def f(r):
        return getattr(np, name)(r, initial=initial, **kw)

    want = np.stack([f(r) for r in rows])
    _same(ft.vmap(f)(rows), want)
    _same(ft.jit(f)(rows[1]), want[1])


def test_initial_out_of_an_integer_range_raises_as_numpy():
    rows = np.array([[3, 1, 4, 1]], np.int8)
    with pytest.raises(OverflowError, match="out of bounds for int8"):
        np.max(rows[0], initial=300)
    with pytest.raises(OverflowError, match="out of bounds for int8"):
        ft.vmap(lambda r: np.max(r, initial=300))(rows)


def test_initial_derivative_in_float32_is_one_at_the_chosen_element():
    x = np.array([1.0, 2.0, 3.0], np.float32)
    g = ft.grad(lambda v: np.max(v, initial=np.float64(2.5)))(x)
    _same(g, np.array([0.0, 0.0, 1.0], np.float32))
    _same(ft.grad(lambda v: v.sum(initial=1.5))(x), np.ones(3, np.float32))


# -- nanmean where=, nanmax/nanmin initial= and where=, nanprod initial=/where= ---------------

NAN_ROWS = np.array([[np.nan, 1.0, 2.0, 5.0], [3.0, np.nan, np.nan, 1.0], [np.nan] * 4])
SELECT = np.array([True, True, False, True])
NAN_KEYWORDS = [
    ("nanmean", {"where": SELECT}),
    ("nanmax", {"initial": 2.0}),
    ("nanmax", {"where": SELECT, "initial": 0.0}),
    ("nanmin", {"where": SELECT, "initial": 9.0}),
    ("nanmin", {"initial": 1.5}),
    ("nanprod", {"where": SELECT}),
    ("nanprod", {"initial": 2.0}),
]


@pytest.mark.parametrize(("name", "kw"), NAN_KEYWORDS)
def test_nan_reductions_take_numpys_keywords(name, kw):
    """Missing before (UnsupportedOperationError / TypeError): values and warnings as the
    loop over the rows, derivatives as central differences on the rows with numbers."""

    def f(r):
        return getattr(np, name)(r, **kw)

    with warnings.catch_warnings(record=True) as eager:
        warnings.simplefilter("always")
        want = np.stack([f(r) for r in NAN_ROWS])
    with warnings.catch_warnings(record=True) as traced:
        warnings.simplefilter("always")
        got = ft.vmap(f)(NAN_ROWS)
    _same(got, want)
    assert [str(w.message) for w in traced] == [str(w.message) for w in eager]
    for row in NAN_ROWS[:2]:
        keep = ~np.isnan(row)
        grad = ft.grad(f)(row)
        np.testing.assert_allclose(grad[keep], fd_jacobian(f, (row,))[keep], rtol=1e-8)
        assert (grad[~keep] == 0).all()


# -- np.i0 in NumPy's arithmetic ---------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_i0_is_numpys_to_the_bit(dtype):
    """SILENT before: a power series of our own gave values a few ulps from NumPy's
    Chebyshev expansion (4 ulps in float16: 1.004 where NumPy gives 1.005)."""
    rng = np.random.default_rng(0)
    a = np.concatenate([rng.uniform(-30, 30, 40), [0.0, 8.0, -8.0, 7.99, 8.01]]).astype(dtype)
    with np.errstate(over="ignore"):
        want = np.i0(a)
        _same(ft.vmap(np.i0)(a[None])[0], want)
        _same(ft.vjp(np.i0, a)[0], want)


def test_i0_derivative_is_central_differences():
    x = np.array([-11.0, -3.0, 0.5, 7.9, 8.1, 15.0])
    fd = np.diag(fd_jacobian(np.i0, (x,)))
    np.testing.assert_allclose(ft.vmap(ft.grad(np.i0))(x), fd, rtol=1e-9)


# -- complex64 means divided as NumPy divides them --------------------------------------------

C64_MEANS = {
    "mean": np.mean,
    "mean_axis": lambda r: r.reshape(1, -1).mean(axis=1),
    "var": np.var,
    "std_ddof": lambda r: np.std(r, ddof=1),
    "average": np.average,
    "nanmean": np.nanmean,
}


@pytest.mark.parametrize("name", sorted(C64_MEANS))
def test_complex64_mean_is_numpys_to_the_bit(name):
    """SILENT before: the complex64 sum was divided by the count in complex64, whose
    quotient (NumPy's through a reciprocal) is a bit off the one NumPy's mean gives: it
    divides by an intp count in complex128 and rounds back (1.6666667 for 5/3, NumPy's
    mean 1.6666666)."""
    f = C64_MEANS[name]
    rows = np.array([[1 + 2j, -2, 3j], [1 + 5j, 0.1, 3.3 - 1j], [0.7, 1j, 2 + 2j]], np.complex64)
    want = np.stack([f(r) for r in rows])
    _same(ft.vmap(f)(rows), want)
    _same(ft.jit(f)(rows[0]), want[0])


# -- np.median's two middle values: NumPy's np.mean of them -----------------------------------

MEDIAN_ROWS = [
    np.array([[True, False, True, True], [True, True, False, False]]),
    np.array([[100, 120, 5, 127], [-128, -100, 3, 2]], np.int8),
    np.array([[250, 255, 1, 0], [3, 4, 9, 200]], np.uint8),
    np.array([[60000, 65000, 1, 2], [1, 2, 3, 4]], np.float16),
]


@pytest.mark.parametrize("rows", MEDIAN_ROWS, ids=lambda r: str(r.dtype))
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_median_of_small_types_averages_as_numpy_mean(rows, axis):
    """SILENT before: ``(lo + hi) / 2`` in the data's dtype: bools True and True gave 0.5
    (True + True is True), int8 100 and 120 wrapped to -18.0, float16 60000 and 65000
    overflowed to inf; NumPy's ``np.mean`` of them sums in float64 (float32 for float16)."""

    def f(r):
        return np.median(r.reshape(2, 2), axis=axis)

    want = np.stack([f(r) for r in rows])
    _same(ft.vmap(f)(rows), want)
    _same(ft.jit(f)(rows[0]), want[0])


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.float32])
def test_angle_of_a_real_array_has_numpys_dtype(dtype):
    """SILENT before: angle of bools was float16 (arctan2 of two bool arrays); NumPy's
    arctan2 of a weak Python 0 and bools is float64."""
    rows = np.array([[1, 0, -1], [0, 0, 1]]).astype(dtype)
    for f in (np.angle, lambda r: np.angle(r, deg=True)):
        _same(ft.vmap(f)(rows), np.stack([f(r) for r in rows]))


def test_bool_array_squared_is_int8_as_numpy():
    """SILENT before: ``b ** 2`` of bools was int64; NumPy's ``a ** 2`` is ``square(a)``,
    int8 for bools (``np.power(b, 2)`` stays int64)."""
    rows = np.array([[True, False, True], [False, False, True]])
    for f in (lambda r: r**2, lambda r: np.power(r, 2), lambda r: r ** np.int64(2)):
        _same(ft.vmap(f)(rows), np.stack([f(r) for r in rows]))


@pytest.mark.parametrize("name", ["heaviside", "copysign"])
def test_bools_with_a_python_bool_use_numpys_float16_loop(name):
    """SILENT before: a Python bool next to a bool array took the float64 loop (NumPy's
    resolve_dtypes refused the bool type); NumPy runs the float16 loop."""
    rows = np.array([[True, False, True], [False, False, True]])
    u = getattr(np, name)
    for f in (lambda r: u(r, True), lambda r: u(False, r)):
        _same(ft.vmap(f)(rows), np.stack([f(r) for r in rows]))


# -- np.interp of tables with infinite values, and at the sample points ------------------------

INTERP_TABLES = [
    (np.array([0.0, 0.5, 1.0]), np.array([0.0, np.inf, 1.0])),
    (np.array([0.0, 1.0, 2.0, 3.0]), np.array([0.0, -np.inf, -np.inf, 1.0])),
    (np.array([0.0, 1.0, 2.0]), np.array([np.inf, np.inf, 1.0])),
    (np.array([0.0, 0.3, 1.1, 2.0]), np.array([0.2, -1.3, 0.7, 2.9])),
    (np.array([0.0, 1.0, 2.0]), np.array([1 + 1j, np.inf, 2j])),
    (np.array([0.0, 0.3, 1.1, 2.0]), np.array([0.2 + 1j, -1.3, 0.7 - 2j, 2.9j])),
]


@pytest.mark.parametrize(("xp", "fp"), INTERP_TABLES)
@pytest.mark.parametrize("kw", [{}, {"period": 2.5}])
def test_interp_is_numpys_to_the_bit(xp, fp, kw):
    """SILENT before: an infinite table value made every point of its segments NaN (even
    ``x == xp[0]``, where NumPy gives ``fp[0]``: NumPy retries from the right end and takes
    a sample point's own value), and at ``x == xp[-1]`` the left end's formula differed
    from ``fp[-1]`` in the last bit."""
    x = np.concatenate([xp, np.linspace(-0.5, 2.5, 13), [np.nan]])
    with np.errstate(invalid="ignore"):
        want = np.interp(x, xp, fp, **kw)
        _same(ft.vmap(lambda t: np.interp(t, xp, fp, **kw))(x[None])[0], want)
        _same(ft.vmap(lambda f: np.interp(x, xp, f, **kw))(fp[None])[0], want)
        _same(ft.jvp(lambda q: np.interp(x, q, fp, **kw), (xp,), (xp,))[0], want)


def test_interp_last_sample_point_to_the_bit_and_slopes_as_jax():
    xp = np.array([0.34, 0.39, 0.59])  # the left end's formula gives 0.6000000000000001
    fp = np.array([0.9, 0.2, 0.6])
    x = xp.copy()
    _same(ft.vmap(lambda t: np.interp(t, xp, fp))(x[None])[0], np.interp(x, xp, fp))
    slopes = np.diff(fp) / np.diff(xp)
    # at a sample point the derivative in x is the next segment's slope, the last one's at
    # the end (jax.numpy.interp's)
    np.testing.assert_allclose(
        np.diag(ft.jacfwd(lambda t: np.interp(t, xp, fp))(x)), [*slopes, slopes[-1]], rtol=1e-14
    )


# -- traced arguments NumPy does not dispatch on -----------------------------------------------

DATA = np.array([0.1, 0.35, 0.5, 0.72, 0.86, 0.95, 0.2])
TABLE = np.array([1.0, np.nan, np.inf, -2.0])
UNDISPATCHED = {
    "histogram_range": lambda r: np.histogram(DATA, bins=3, range=(r[0], r[1]), density=True)[0],
    "histogram_range_positional": lambda r: np.histogram(DATA, 3, (r[0], r[1]))[1],
    "pad_constant_values": lambda r: np.pad(TABLE, (1, 2), constant_values=(r[0], r[1])),
    "pad_end_values": lambda r: np.pad(TABLE[:1], 2, mode="linear_ramp", end_values=r[0]),
    "nan_to_num": lambda r: np.nan_to_num(TABLE, nan=r[0], posinf=r[1]),
    "nan_to_num_positional": lambda r: np.nan_to_num(TABLE, True, r[0]),
}


@pytest.mark.parametrize("name", sorted(UNDISPATCHED))
def test_traced_argument_numpy_does_not_dispatch_on(name):
    """Crashed before: with the data plain and only ``range``/``constant_values``/
    ``nan=`` traced, NumPy's own code ran (TracerConversionError under grad, InPlaceError
    under vmap).  Values as the loop over the rows, derivatives as central differences."""
    f = UNDISPATCHED[name]
    rows = np.array([[0.05, 1.1], [-0.2, 1.3]])
    _same(ft.vmap(f)(rows), np.stack([f(r) for r in rows]))
    _same(ft.jit(f)(rows[1]), f(rows[1]))
    with np.errstate(invalid="ignore", over="ignore"):  # the table holds inf and NaN
        fd = fd_jacobian(f, (rows[0],))
    finite = np.isfinite(fd).all(-1)
    np.testing.assert_allclose(ft.jacrev(f)(rows[0])[finite], fd[finite], atol=1e-6)
    np.testing.assert_allclose(ft.jacfwd(f)(rows[0])[finite], fd[finite], atol=1e-6)


# -- rng.normal / rng.uniform with traced parameters on a generator made in the function -------


def _noisy(p):
    rng = np.random.default_rng(3)
    first = rng.standard_normal(2).sum()
    x = rng.normal(p[:3], np.abs(p[3]) + 0.1)
    y = rng.uniform(p[0], p[0] + np.abs(p[1]) + 0.5, size=(2, 3))
    return first + x + y.sum(0) + rng.normal(loc=p[1])


def test_generator_draws_with_traced_parameters_are_numpys_and_reparameterised():
    """Missing before (TracerConversionError: NumPy's C generator converts the parameter
    to float64): NumPy draws ``loc + scale * z`` and ``low + (high - low) * u``, so the
    values are NumPy's to the bit, the loop's rows under vmap, and the derivative is the
    reparameterisation's (central differences)."""
    p = np.array([0.5, -1.0, 2.0, 0.7])
    rows = np.stack([p, 2 * p, -p])
    _same(ft.vmap(_noisy)(rows), np.stack([_noisy(r) for r in rows]))
    _same(ft.jit(_noisy)(p), _noisy(p))
    _same(ft.vjp(_noisy, p)[0], _noisy(p))
    fd = fd_jacobian(_noisy, (p,))
    np.testing.assert_allclose(ft.jacrev(_noisy)(p), fd, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ft.jacfwd(_noisy)(p), fd, rtol=1e-9, atol=1e-12)


def test_generator_parameter_checks_raise_as_numpy_per_row():
    def normal(s):
        return np.random.default_rng(0).normal(0.0, s)

    def uniform(s):
        return np.random.default_rng(0).uniform(s, 0.0)

    with pytest.raises(ValueError, match="scale < 0"):
        ft.grad(normal)(-1.0)
    with warnings.catch_warnings():  # the rows disagree: the batch splits (and warns)
        warnings.simplefilter("ignore", ft.errors.PerformanceWarning)
        with pytest.raises(ValueError, match="high - low < 0"):
            ft.vmap(uniform)(np.array([-1.0, 1.0]))
    _same(ft.vmap(uniform)(np.array([-1.0, -2.0])), [uniform(-1.0), uniform(-2.0)])
