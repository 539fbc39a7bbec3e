"""NumPy users' code under the transforms (round 11 probes), with ``import numpy as np``
(the protocols) and ``import ftransforms.numpy``: values and dtypes as eager NumPy's, vmap
as the loop over the rows, derivatives as float64 central differences."""

from __future__ import annotations

import numpy as np
import pytest

import ftransforms as ft
import ftransforms.numpy as fnp

MODULES = [np, fnp]
I8 = np.array([100, 100, -50, 7], np.int8)


def _loop(f, rows):
    return np.stack([np.asarray(f(r)) for r in rows])


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("mod", MODULES)
@pytest.mark.parametrize("name", ["sum", "prod", "cumsum", "cumprod", "mean", "nansum", "nanprod"])
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16])
def test_integer_reductions_accumulate_in_the_requested_dtype(mod, name, dtype):
    """SILENT before: ``np.sum(int8s, dtype=np.int8)`` gave the int64 sum (157, not NumPy's
    wrapped -99), and dtype int64 instead of int8."""
    rows = np.stack([I8, I8[::-1] * 2])
    f = lambda r: getattr(mod, name)(r, dtype=dtype)  # noqa: E731
    want = _loop(lambda r: getattr(np, name)(r, dtype=dtype), rows)
    _same(ft.vmap(f)(rows), want)
    _same(f(rows[0]), want[0])


@pytest.mark.parametrize("mod", MODULES)
def test_trace_and_nanprod_of_integers_keep_numpy_dtype(mod):
    m = I8.reshape(2, 2)
    _same(ft.vmap(lambda a: mod.trace(a, dtype=np.int8))(m[None])[0], np.trace(m, dtype=np.int8))
    big = np.array([7, 9, 3000000], np.int64)  # nanprod of integers stays integer
    _same(ft.vmap(mod.nanprod)(big[None])[0], np.nanprod(big))


@pytest.mark.parametrize("mod", MODULES)
@pytest.mark.parametrize(
    "name", ["deg2rad", "rad2deg", "radians", "degrees", "copysign", "heaviside"]
)
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.bool_, np.int16, np.float16, np.float32])
def test_float_ufuncs_of_small_types_use_numpy_loop(mod, name, dtype):
    """SILENT before: int8/uint8/bool gave float64 (NumPy: float16), int16 float64 (float32);
    float16 rad2deg differed in the last bit."""
    x = (np.arange(-30, 30) * 37 % 255).astype(dtype)
    ufunc = getattr(np, name)
    args = (lambda r: (r,)) if ufunc.nin == 1 else (lambda r: (r, r[::-1]))
    want = ufunc(*args(x))
    _same(ft.vmap(lambda r: getattr(mod, name)(*args(r)))(x[None])[0], want)


@pytest.mark.parametrize("mod", MODULES)
def test_conjugate_of_bool_is_int8(mod):
    b = np.array([True, False])
    _same(ft.vmap(mod.conjugate)(b[None])[0], np.conjugate(b))


@pytest.mark.parametrize("mod", MODULES)
@pytest.mark.parametrize("name", ["nanargmax", "nanargmin"])
def test_nanarg_of_an_all_nan_slice_raises_under_transforms(mod, name):
    """SILENT before: under vmap/jvp an all-NaN slice gave index -1 (jax.numpy's answer);
    NumPy, and so the loop over the rows, raises ValueError."""
    rows = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan]])
    f = lambda r: getattr(mod, name)(r)  # noqa: E731
    with pytest.raises(ValueError, match="All-NaN slice encountered"):
        ft.vmap(f)(rows)
    with pytest.raises(ValueError, match="All-NaN slice encountered"):
        ft.jvp(lambda r: getattr(mod, name)(r, axis=1), (rows,), (rows,))
    # the rows that hold a number compute as the loop does
    ok = rows[:1]
    _same(ft.vmap(f)(ok), _loop(lambda r: getattr(np, name)(r), ok))


QUANTILE_METHODS = [
    "inverted_cdf",
    "averaged_inverted_cdf",
    "closest_observation",
    "interpolated_inverted_cdf",
    "hazen",
    "weibull",
    "median_unbiased",
    "normal_unbiased",
    "lower",
    "higher",
    "midpoint",
    "nearest",
    "linear",
]
DATA = np.random.default_rng(11).standard_normal((3, 7))


def _fd_grad(f, x, h=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (f(x + e) - f(x - e)) / (2 * h)
    return g


@pytest.mark.parametrize("method", QUANTILE_METHODS)
def test_every_quantile_method_equals_numpy_loop_and_differences(method):
    """Before: eight of NumPy's thirteen methods raised UnsupportedOperationError."""
    x = DATA.copy()
    x[1, 3] = np.nan
    q = [0.0, 0.1, 0.37, 0.5, 0.9, 1.0]
    for mod in MODULES:
        for name, qq in (("quantile", q), ("nanpercentile", [100 * v for v in q])):
            f = lambda r: getattr(mod, name)(r, qq, method=method)  # noqa: E731
            want = _loop(lambda r: getattr(np, name)(r, qq, method=method), x)
            _same(ft.vmap(f)(x), want)
        got = mod.nanquantile(x, 0.3, axis=(0, 1), method=method, keepdims=True)
        _same(got, np.nanquantile(x, 0.3, axis=(0, 1), method=method, keepdims=True))
    c = np.arange(1.0, 7.0)
    f = lambda r: (np.quantile(r, q, method=method) * c).sum()  # noqa: E731
    np.testing.assert_allclose(ft.grad(f)(DATA[0]), _fd_grad(f, DATA[0]), atol=1e-8)


def test_quantile_values_to_the_bit_in_numpy_dtypes():
    """SILENT before: a Python-number q on float32 data was turned into float32 before the
    index was computed (NumPy: float64, the weight then weak), so percentile(x32, 30) was
    off in the last bit; integer q arrays keep an integer gamma as NumPy's."""
    x32 = (DATA * np.array([[1.0], [1.1], [1.2]])).astype(np.float32)
    for q in (30, 37.5, 12.5):
        for mod in MODULES:
            _same(
                ft.vmap(lambda r: mod.percentile(r, q))(x32),
                _loop(lambda r: np.percentile(r, q), x32),
            )
    ints = np.arange(12).reshape(3, 4) * 3 - 7
    for method in ("weibull", "averaged_inverted_cdf", "linear", "hazen"):
        _same(
            fnp.quantile(ints, np.array([0, 1]), axis=1, method=method),
            np.quantile(ints, np.array([0, 1]), axis=1, method=method),
        )
        _same(
            fnp.quantile(x32, np.float32(0.35), method=method),
            np.quantile(x32, np.float32(0.35), method=method),
        )


@pytest.mark.parametrize("mod", MODULES)
def test_quantile_weights_as_numpy(mod):
    """Before: weights= raised UnsupportedOperationError."""
    x = DATA.copy()
    x[2, 1] = np.nan
    w = np.abs(DATA[::-1]) + 0.1
    w[0, :2] = 0.0  # leading zero weights
    q = [0.0, 0.25, 0.5, 0.8, 1.0]
    kw = dict(method="inverted_cdf")
    _same(mod.quantile(x, q, axis=1, weights=w, **kw), np.quantile(x, q, axis=1, weights=w, **kw))
    _same(
        mod.nanpercentile(x, 40, axis=1, weights=w, **kw),
        np.nanpercentile(x, 40, axis=1, weights=w, **kw),
    )
    _same(
        mod.quantile(x, 0.3, axis=0, weights=w[:, 0], **kw),
        np.quantile(x, 0.3, axis=0, weights=w[:, 0], **kw),
    )
    _same(mod.quantile(x, q, weights=w, **kw), np.quantile(x, q, weights=w, **kw))
    # vmap over the weights equals the loop; the derivative in the data is one-hot
    ws = np.abs(DATA) + 0.2
    f = lambda ww: mod.quantile(DATA[0], q, weights=ww, **kw)  # noqa: E731
    _same(ft.vmap(f)(ws), _loop(lambda ww: np.quantile(DATA[0], q, weights=ww, **kw), ws))
    g = lambda r: mod.quantile(r, 0.5, weights=ws[0], **kw)  # noqa: E731
    np.testing.assert_allclose(ft.grad(g)(DATA[0]), _fd_grad(g, DATA[0]), atol=1e-8)
    for bad, err, msg in (
        (dict(method="linear"), ValueError, "Only method 'inverted_cdf' supports weights"),
        (dict(method="inverted_cdf", w=-w), ValueError, "Weights must be non-negative"),
        (dict(method="inverted_cdf", w=0 * w), ValueError, "Weights included NaN, inf or were"),
        (dict(method="inverted_cdf", w=w[0], axis=None), TypeError, "Axis must be specified"),
    ):
        ww, ax = bad.pop("w", w), bad.pop("axis", 1)
        with pytest.raises(err, match=msg):
            np.quantile(x, 0.5, axis=ax, weights=ww, **bad)
        with pytest.raises(err, match=msg):
            ft.vmap(
                lambda r, ww=ww, ax=ax, bad=bad: mod.quantile(r, 0.5, axis=ax, weights=ww, **bad)
            )(x[None])


def test_nanquantile_of_an_all_nan_slice_warns_as_numpy():
    x = np.array([[1.0, np.nan, 3.0], [np.nan] * 3])
    with pytest.warns(RuntimeWarning, match="All-NaN slice encountered"):
        got = ft.vmap(lambda r: np.nanquantile(r, 0.5))(x)
    _same(got, np.array([2.0, np.nan]))


@pytest.mark.parametrize("mod", MODULES)
def test_diff_of_booleans_is_not_equal(mod):
    """Before: TypeError (NumPy's diff of bools compares with !=)."""
    x = np.array([[0.5, -1.0, 2.0, 3.0], [1.0, 1.0, -2.0, 0.0]])
    for kw in ({}, {"n": 2}, {"prepend": True}, {"axis": 0}):
        f = lambda r, kw=kw: mod.diff(r > 0, **kw)  # noqa: E731
        _same(ft.vmap(f)(x[None])[0], np.diff(x > 0, **kw))


def test_numpy_testing_assertions_inside_transforms():
    """Before: np.testing.assert_allclose on a tracer raised TypeError (isfinite of an object
    array), assert_equal/assert_almost_equal ValueError; now they check the values as the
    eager function (the loop over the rows under vmap) and raise AssertionError."""
    from numpy.testing import assert_allclose

    def f(x):
        np.testing.assert_allclose(np.sin(x) ** 2 + np.cos(x) ** 2, 1.0)
        assert_allclose(x, x, rtol=0)
        np.testing.assert_equal(x, x)
        np.testing.assert_almost_equal(x.sum(), np.sum(x))
        np.testing.assert_array_less(x, 10.0)
        return (np.sin(x) * x).sum()

    x = np.array([0.3, 1.0, 2.0])
    np.testing.assert_allclose(ft.grad(f)(x), np.sin(x) + x * np.cos(x))
    rows = np.stack([x, 2 * x])
    np.testing.assert_allclose(ft.vmap(f)(rows), [f(r) for r in rows])

    def checked(r):
        np.testing.assert_allclose(r, 1.0)
        return r

    with pytest.raises(AssertionError):
        ft.grad(lambda r: checked(r).sum())(x)
    with pytest.raises(AssertionError), pytest.warns(ft.errors.PerformanceWarning):
        ft.vmap(checked)(np.array([[1.0, 1.0], [1.0, 2.0]]))  # the second row fails
    _same(ft.vmap(checked)(np.ones((2, 2))), np.ones((2, 2)))


def test_array_printing_of_tracers_is_the_eager_text():
    """Before: np.array2string/array_repr/array_str of a tracer raised
    UnsupportedOperationError; now the text of the values (each row's under vmap)."""
    rows = np.array([[1.234, 2.345], [3.0, 4.0]])
    texts = []

    def f(a):
        texts.append(np.array2string(a, precision=2))
        texts.append(np.array_repr(a))
        with np.printoptions(precision=1, suppress=True):
            texts.append(np.array_str(a))
        return a.sum()

    with pytest.warns(ft.errors.PerformanceWarning):  # the rows' texts differ: split
        ft.vmap(f)(rows)
    ft.grad(f)(rows[0])
    eager = []
    for r in (*rows, rows[0]):
        eager += [np.array2string(r, precision=2), np.array_repr(r)]
        with np.printoptions(precision=1, suppress=True):
            eager.append(np.array_str(r))
    assert texts == eager


def _warnings_of(f):
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = f()
    return out, sorted({(w.category.__name__, str(w.message)) for w in caught})


@pytest.mark.parametrize("mod", MODULES)
@pytest.mark.parametrize("ddof", [1, 2, 3])
@pytest.mark.parametrize("name", ["var", "std", "nanvar", "nanstd"])
def test_variance_with_ddof_past_the_count_as_numpy(mod, name, ddof):
    """SILENT before: var([1, 2], ddof=3) gave -0.5 (NumPy: inf, N - ddof clipped at 0),
    nanvar gave -0.5 or inf (NumPy: NaN); with NumPy's 'Degrees of freedom' warning."""
    rows = np.array([[1.0, 2.0], [4.0, 0.5]])
    want, want_w = _warnings_of(lambda: _loop(lambda r: getattr(np, name)(r, ddof=ddof), rows))
    got, got_w = _warnings_of(lambda: ft.vmap(lambda r: getattr(mod, name)(r, ddof=ddof))(rows))
    _same(got, want)
    assert [m for m in got_w if "freedom" in m[1]] == [m for m in want_w if "freedom" in m[1]]


@pytest.mark.parametrize("mod", MODULES)
@pytest.mark.parametrize(
    "name", ["nanmean", "nanvar", "nanstd", "nanmax", "nanmin", "nanmedian", "nanpercentile"]
)
def test_nan_functions_warn_as_numpy_on_empty_slices(mod, name):
    """Before: 'invalid value encountered in divide' (nanmean/nanvar) or no warning
    (nanmax/nanmin/nanmedian) where NumPy warns 'Mean of empty slice', 'Degrees of freedom
    <= 0 for slice.', 'All-NaN slice encountered'; the values are NumPy's."""
    x = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan], [0.5, 2.0, np.nan]])
    extra = (50,) if name == "nanpercentile" else ()
    want, want_w = _warnings_of(lambda: getattr(np, name)(x, *extra, axis=1))
    got, got_w = _warnings_of(
        lambda: ft.vmap(lambda a: getattr(mod, name)(a, *extra, axis=1))(x[None])
    )
    _same(got[0], want)
    assert got_w == want_w
    # the loop over the rows, and grad, warn the same way
    _, loop_w = _warnings_of(lambda: ft.vmap(lambda r: getattr(mod, name)(r, *extra))(x))
    assert loop_w == want_w
    jitted = ft.jit(lambda a: getattr(mod, name)(a, *extra, axis=1))
    jitted(x)  # a jit recording does not read the data for a warning: replays stay compiled
    _, jit_w = _warnings_of(lambda: jitted(x[::-1].copy()))
    assert not [w for w in jit_w if "depends on data" in w[1]]


@pytest.mark.parametrize("mod", MODULES)
@pytest.mark.parametrize(
    "bins", ["auto", "fd", "doane", "scott", "stone", "rice", "sturges", "sqrt"]
)
def test_histogram_with_estimated_bins_as_numpy(mod, bins):
    """Before: bins given as a string raised UnsupportedOperationError."""
    rng = np.random.default_rng(5)
    for data, rg in (
        (rng.standard_normal(40), None),
        (rng.standard_normal(10), None),
        (rng.integers(0, 5, 30), None),
        (np.array([1, 1, 1, 2]), (-1.0, 1.5)),
        (rng.exponential(size=25).astype(np.float32), (0.0, 2.0)),
    ):
        want = np.histogram(data, bins=bins, range=rg)
        # (stone's search, traced under vmap, makes a hundred histograms: one small case)
        rows = data[None] if bins != "stone" or len(data) <= 10 else data[None, :0]
        if rows.size == 0:
            _same(mod.histogram(data, bins=bins, range=rg)[1], want[1])
            continue
        got = ft.vmap(lambda r: mod.histogram(r, bins=bins, range=rg))(rows)
        _same(got[0][0], want[0])
        _same(got[1][0], want[1])
        _same(mod.histogram_bin_edges(data, bins=bins, range=rg), want[1])
    # the edges' derivative goes to the extremes, as with a number of bins
    x = rng.standard_normal(30)
    f = lambda r: mod.histogram_bin_edges(r, bins=bins).sum()  # noqa: E731
    if bins == "stone":  # (NumPy's stone search is slow for differences: the same edges)
        count = len(np.histogram_bin_edges(x, bins=bins)) - 1
        fixed = lambda r: mod.histogram_bin_edges(r, bins=count).sum()  # noqa: E731
        np.testing.assert_allclose(ft.grad(f)(x), ft.grad(fixed)(x))
    else:
        np.testing.assert_allclose(ft.grad(f)(x), _fd_grad(f, x), atol=1e-6)
    with pytest.raises(TypeError, match="not supported for weighted data"):
        ft.grad(lambda r: mod.histogram(r, bins=bins, weights=r)[0].sum())(x)
    with pytest.raises(ValueError, match="not a valid estimator"):
        ft.grad(lambda r: mod.histogram(r, bins=bins + "x")[1].sum())(x)


@pytest.mark.parametrize("mod", MODULES)
def test_einsum_dtype_and_casting_as_numpy(mod):
    """Before: einsum(..., dtype=, casting=) raised UnsupportedOperationError."""
    s = DATA[:, :3]
    for kw in (
        {"dtype": np.float32, "casting": "same_kind"},
        {"dtype": np.complex128},
        {"order": "C"},
    ):
        want = np.einsum("ij,jk->ik", s, s, **kw)
        _same(ft.vmap(lambda a, kw=kw: mod.einsum("ij,jk->ik", a, s, **kw))(s[None])[0], want)
    with pytest.raises(TypeError, match="according to the rule 'safe'"):
        ft.vmap(lambda a: mod.einsum("ij,jk->ik", a, s, dtype=np.float32))(s[None])


@pytest.mark.parametrize("mod", MODULES)
def test_weighted_histogram_sums_float32_weights_in_double_as_numpy(mod):
    """SILENT before: float32 weights were summed in float32 (NumPy's equal bins sum them in
    double precision, then cast), off in the last bits."""
    rng = np.random.default_rng(2)
    x, w = rng.standard_normal(200), rng.uniform(0.5, 2, (3, 200)).astype(np.float32)
    f = lambda ww: mod.histogram(x, bins=7, weights=ww)[0]  # noqa: E731
    _same(ft.vmap(f)(w), _loop(lambda ww: np.histogram(x, bins=7, weights=ww)[0], w))


@pytest.mark.parametrize("mod", MODULES)
def test_fabs_of_small_integers_uses_numpy_float_loop(mod):
    """SILENT before: fabs of int8/uint8/bool/int16 kept the integer dtype."""
    for dt in (np.int8, np.uint8, np.bool_, np.int16, np.int64):
        x = np.array([-3, 0, 5]).astype(dt)
        _same(ft.vmap(mod.fabs)(x[None])[0], np.fabs(x))
    np.testing.assert_allclose(ft.grad(lambda v: mod.fabs(v).sum())(np.array([-2.0, 3.0])), [-1, 1])


def test_np_interp_with_traced_left_right_or_period():
    """Before: with x, xp, fp plain, NumPy's own interp ran on a traced left/right/period:
    TracerConversionError under grad, and a batch split per row under vmap."""
    import warnings

    xp, fp = np.linspace(0.0, 5.0, 6), np.array([1.0, 3.0, 2.0, 0.5, 4.0, 2.5])
    x = np.array([-1.0, 0.5, 2.2, 6.0])
    f = lambda e: np.interp(x, xp, fp, left=e[0] * 2, right=e[1])  # noqa: E731
    ends = np.array([[0.5, -1.0], [2.0, 3.0], [1.5, 1.5]])
    with warnings.catch_warnings():
        warnings.simplefilter("error", ft.errors.PerformanceWarning)  # one batched program
        _same(ft.vmap(f)(ends), _loop(f, ends))
    np.testing.assert_allclose(ft.jacfwd(f)(ends[0]), [[2, 0], [0, 0], [0, 0], [0, 1]])
    g = lambda p: np.interp(x, xp, fp, period=p).sum()  # noqa: E731
    np.testing.assert_allclose(ft.grad(g)(6.5), _fd_grad(g, np.array(6.5)), rtol=1e-6)


@pytest.mark.parametrize("mod", MODULES)
def test_unique_along_an_axis_as_numpy(mod):
    """Before: unique(ar, axis=...) raised NotImplementedError."""
    m = np.array([[1, 2], [3, 4], [1, 2], [0, 0]])
    cube = np.random.default_rng(0).integers(0, 2, (3, 4, 2))
    nan_rows = np.array([[1.0, np.nan], [1.0, np.nan], [0.5, 2.0], [-0.0, 1.0], [0.0, 1.0]])
    flags = dict(return_index=True, return_inverse=True, return_counts=True)
    for a, axis in ((m, 0), (m.T, 1), (cube, 1), (cube, -1), (nan_rows, 0), (np.zeros((3, 0)), 0)):
        want = np.unique(a, axis=axis, **flags)
        for g, w in zip(mod.unique(a, axis=axis, **flags), want):
            _same(g, w)
        batched = ft.vmap(lambda r, axis=axis: mod.unique(r, axis=axis, **flags))(a[None])
        for g, w in zip(batched, want):
            _same(g[0], w)
    # rows with different numbers of distinct slices run apart, as the loop
    batch = np.stack([m, np.array([[1, 2], [1, 2], [1, 2], [1, 2]]), m[::-1]])
    f = lambda r: mod.unique(r, axis=0).sum(axis=0)  # noqa: E731
    _same(ft.vmap(f)(batch), _loop(lambda r: np.unique(r, axis=0).sum(axis=0), batch))
    x = np.array([[0.5, 2.0], [-1.0, 3.0], [0.25, 1.0]])
    g = lambda v: (mod.unique(v, axis=0) * np.arange(6.0).reshape(3, 2)).sum()  # noqa: E731
    np.testing.assert_allclose(ft.grad(g)(x), _fd_grad(g, x), atol=1e-8)


@pytest.mark.parametrize("mod", MODULES)
def test_var_and_std_with_an_integer_dtype_as_numpy(mod):
    """SILENT before: var(int8s, dtype=np.int8) gave the float64 variance (NumPy: the mean
    truncated, deviations, squares and sums wrapping in int8, the quotient cast back)."""
    a = np.array([[100, 100, -50, 7], [1, 2, 3, 4]], np.int8)
    for x, axis, dt in ((a, None, np.int8), (a, 1, np.int16), (a.astype(float), None, np.int8)):
        for name in ("var", "std") if axis is None else ("var",):
            want = getattr(np, name)(x, axis=axis, dtype=dt)
            _same(getattr(mod, name)(x, axis=axis, dtype=dt), want)
    rows = a.astype(np.uint8)
    _same(
        ft.vmap(lambda r: mod.std(r, dtype=np.uint8))(rows),
        _loop(lambda r: np.std(r, dtype=np.uint8), rows),
    )
    with pytest.raises(TypeError):  # NumPy's sqrt refuses to write floats into the int array
        mod.std(a, axis=1, dtype=np.int8)


@pytest.mark.parametrize("mod", MODULES)
def test_cross_of_two_vectors_as_numpy(mod):
    """Before: 2-vectors (deprecated in NumPy 2 but computed, with a DeprecationWarning)
    raised ValueError."""
    rng = np.random.default_rng(4)
    s, v = rng.standard_normal((3, 3)), rng.standard_normal(3)
    for a, b in ((s[:, :2], v[:2]), (s[:, :2], v), (s, v[:2]), (np.array([[1, 2], [3, 4]]), -v)):
        with pytest.warns(DeprecationWarning, match="2-dimensional vectors"):
            want = np.cross(a, b)
        with pytest.warns(DeprecationWarning, match="2-dimensional vectors"):
            got = ft.vmap(lambda r, b=b: mod.cross(r, b))(a[None])[0]
        _same(got, want)
    with pytest.warns(DeprecationWarning):
        jac = ft.jacfwd(lambda r: mod.cross(r, v[:2]))(s[0, :2])
    np.testing.assert_allclose(jac, [v[1], -v[0]])


@pytest.mark.parametrize("mod", MODULES)
def test_vectorize_without_otypes_whose_first_result_is_a_number(mod):
    """Before: NumPy took float64 from the first result (a plain 2.0) and cast the object
    array of results with float(), which a tracer refuses (TracerConversionError under
    grad/jvp); now the first result's dtype as NumPy, the others traced."""
    a = np.array([[-0.5, 1.0, 3.0], [2.0, -0.3, 0.25]])
    f = lambda x: mod.vectorize(lambda u, v: u * v if u > 0 else v)(x, 2.0)  # noqa: E731
    _same(ft.jvp(f, (a,), (a,))[0], f(a))
    np.testing.assert_allclose(ft.grad(lambda x: f(x).sum())(a), np.where(a > 0, 2.0, 0.0))
    _same(ft.vmap(f)(a), _loop(f, a))  # (the branch splits the batch)
    pair = lambda x: mod.vectorize(lambda u: (u * 2, 1) if u > 0 else (0.5, 0))(x)  # noqa: E731
    for g, w in zip(ft.jvp(pair, (a,), (a,))[0], pair(a)):
        _same(g, w)
