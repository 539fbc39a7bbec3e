"""SciPy users' code under the transforms, round 5.

scipy.stats: the closed-form ``fit`` of ``expon``, ``laplace``, ``uniform`` and
``lognorm`` (with ``floc``) on traced data (SciPy's own code raised on an object array).

Oracles: SciPy's values, float64 central differences (directional), a Python loop for
vmap, eager calls for jit replays.  Calls go through SciPy's own names (NOTE [SciPy's own
names under the transforms]).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats

import ftransforms as ft
from ftransforms.errors import UnsupportedOperationError

RNG = np.random.default_rng(20261127)


def _dirderiv(f, x, d, eps=1e-6):
    return (f(x + eps * d) - f(x - eps * d)) / (2 * eps)


def _check_all(f, x, rtol=1e-6, atol=1e-8, batch=None):
    """``f`` (an array function through SciPy's own names) under jit (first call and a
    replay), grad of a weighted sum (against central differences) and vmap (against the
    loop), all against SciPy's eager values."""
    x = np.asarray(x, dtype=float)
    ref = np.asarray(f(x))
    jf = ft.jit(f)
    np.testing.assert_allclose(jf(x), ref, rtol=1e-10, atol=1e-12)
    x2 = 1.01 * x + 0.003
    np.testing.assert_allclose(jf(x2), f(x2), rtol=1e-10, atol=1e-12)
    w = RNG.normal(size=ref.shape)
    d = RNG.normal(size=x.shape)

    g = ft.grad(lambda v: (ft.numpy.asarray(f(v)) * w).sum())(x)
    np.testing.assert_allclose(
        np.sum(g * d), _dirderiv(lambda v: np.sum(np.asarray(f(v)) * w), x, d), rtol=rtol, atol=atol
    )
    xs = np.stack([x, 0.98 * x - 0.01, 1.02 * x + 0.02]) if batch is None else batch
    np.testing.assert_allclose(
        ft.vmap(f)(xs), np.stack([np.asarray(f(v)) for v in xs]), rtol=1e-10, atol=1e-12
    )


# -- scipy.stats: closed-form fits ------------------------------------------------------------


def test_closed_form_fits_of_expon_laplace_uniform_lognorm():
    x = RNG.normal(size=9) + 3.0
    st = scipy.stats
    _check_all(lambda v: ft.numpy.stack(st.expon.fit(v)), x)
    _check_all(lambda v: ft.numpy.stack(st.expon.fit(v, floc=-1.0)), x)
    _check_all(lambda v: ft.numpy.stack(st.expon.fit(v, fscale=2.0)), x)
    _check_all(lambda v: ft.numpy.stack(st.laplace.fit(v)), x)
    _check_all(lambda v: ft.numpy.stack(st.laplace.fit(v, fscale=2.0)), x)
    _check_all(lambda v: ft.numpy.stack(st.laplace.fit(v[:8], floc=3.0)), x)
    _check_all(lambda v: ft.numpy.stack(st.uniform.fit(v)), x)
    _check_all(lambda v: ft.numpy.stack(st.uniform.fit(v, floc=-2.0)), x)
    _check_all(lambda v: ft.numpy.stack(st.uniform.fit(v, fscale=20.0)), x)
    _check_all(lambda v: ft.numpy.stack(st.lognorm.fit(v, floc=0)), x)
    _check_all(lambda v: ft.numpy.stack(st.lognorm.fit(v, floc=-1.0, f0=0.5)), x)
    _check_all(lambda v: ft.numpy.stack(st.lognorm.fit(v, floc=0.5, fscale=2.0)), x)
    with pytest.raises(UnsupportedOperationError, match=r"lognorm\.fit.*floc=0"):
        ft.grad(lambda v: st.lognorm.fit(v)[0])(x)
    with pytest.raises(UnsupportedOperationError, match=r"expon\.fit.*method='MM'"):
        ft.grad(lambda v: st.expon.fit(v, method="MM")[0])(x)


# -- scipy.stats: normality tests, circular statistics, gstd, zmap ---------------------------


def test_moment_normality_tests_equal_scipy_under_the_transforms():
    # SciPy's own skewtest passed _no_deco to the redirected skew ('unexpected keyword')
    st = scipy.stats
    x = RNG.normal(size=(3, 9)) ** 2
    _check_all(lambda v: ft.numpy.stack(st.skewtest(v, axis=1)), x)
    _check_all(lambda v: ft.numpy.stack(st.kurtosistest(v, axis=1, alternative="less")), x)
    _check_all(lambda v: ft.numpy.stack(st.normaltest(v, axis=1)), x)
    _check_all(lambda v: ft.numpy.stack(st.jarque_bera(v)), x)
    _check_all(lambda v: st.jarque_bera(v, axis=0, keepdims=True).statistic, x)
    _check_all(lambda v: st.skewtest(v, axis=None, keepdims=True).pvalue, x)
    short = ft.jit(lambda v: st.skewtest(v).statistic)(x[0, :6])  # too few: NaN, as SciPy
    with pytest.warns(RuntimeWarning, match="too small"):
        assert np.isnan(short) and np.isnan(st.skewtest(x[0, :6]).statistic)


def test_circular_statistics_gstd_and_zmap():
    # SciPy's circvar/circstd/gstd/zmap went through its array-API layer on an object array
    st = scipy.stats
    x = RNG.uniform(0.5, 5.0, size=(3, 6))
    _check_all(lambda v: st.circmean(v, axis=1), x)
    _check_all(lambda v: st.circmean(v, high=7.0, low=1.0), x)
    _check_all(lambda v: st.circvar(v, axis=0, keepdims=True), x)
    _check_all(lambda v: st.circvar(v, high=4.0, low=-1.0), x)
    _check_all(lambda v: st.circstd(v, axis=1), x)
    _check_all(lambda v: st.circstd(v, high=360.0, normalize=True), x)
    _check_all(lambda v: st.gstd(v), x)
    _check_all(lambda v: st.gstd(v, axis=None, ddof=0, keepdims=True), x)
    c = RNG.normal(size=(4, 6))
    _check_all(lambda v: st.zmap(v, c), x)
    _check_all(lambda v: st.zmap(v, c, axis=None, ddof=1), x)
    _check_all(lambda v: st.zmap(c[:3], v * 2.0, axis=1), x)


# -- scipy.stats: rank tests (read, derivative zero) and the one-sample KS test -----------


def test_rank_tests_equal_scipy_and_differentiate_to_zero():
    # SciPy's own code raised on the object array ('isnan not supported', 'must be real')
    st = scipy.stats
    x = RNG.normal(size=(2, 9))
    y = RNG.normal(size=(2, 7)) + 0.3
    fns = [
        lambda v: st.mannwhitneyu(v, y, axis=1),
        lambda v: st.mannwhitneyu(v.T, y.T, alternative="less", method="asymptotic"),
        lambda v: st.kruskal(v, y, v * 0.5 + 1.0, axis=1),
        lambda v: st.wilcoxon(v, axis=1),
        lambda v: st.wilcoxon(v[:, :7], y, axis=1, method="approx", correction=True),
        lambda v: st.ansari(v, y, axis=1, keepdims=True),
        lambda v: st.fligner(v[0], y[0], v[1]),
        lambda v: st.friedmanchisquare(v[0], v[1], 2 * v[0] - v[1]),
        lambda v: st.mood(v, y, axis=1),
    ]
    for fn in fns:
        f = lambda v, fn=fn: ft.numpy.stack(tuple(fn(v)))  # noqa: E731
        _check_all(f, x)
        assert not np.any(ft.grad(lambda v, fn=fn: fn(v).statistic.sum())(x))
    u = ft.jit(lambda v: st.mannwhitneyu(v, y, axis=1))(x)
    assert u.statistic.shape == (2,) and tuple(u) == (u.statistic, u.pvalue)


def test_kstest_against_a_cdf_is_differentiable():
    # SciPy's kstest raised on the object array ('isnan not supported')
    st = scipy.stats
    x = RNG.normal(size=(2, 12)) * 1.3 + 0.2
    _check_all(lambda v: ft.numpy.stack(st.kstest(v, "norm", axis=1)[:2]), x)
    _check_all(lambda v: ft.numpy.stack(st.kstest(v, st.norm.cdf, args=(0.3,), axis=1)[:2]), x)
    _check_all(lambda v: st.ks_1samp(v, st.logistic.cdf, axis=1, alternative="greater").pvalue, x)
    _check_all(lambda v: st.ks_1samp(v[0], st.norm.cdf, alternative="less").pvalue, x)
    _check_all(lambda v: st.kstest(v.T, "norm", method="asymp", keepdims=True).pvalue, x)
    _check_all(lambda v: st.kstest(v[0], "norm", args=(v[1, 0], 2.0)).statistic, x)
    res = ft.jit(lambda v: st.kstest(v[0], "norm"))(x)
    ref = st.kstest(x[0], "norm")
    assert res.statistic_location == ref.statistic_location
    assert res.statistic_sign == ref.statistic_sign and res.statistic_sign.dtype == np.int8
    # the two-sample form is SciPy's ks_2samp
    y = RNG.normal(size=9)
    _check_all(lambda v: ft.numpy.stack(st.kstest(v[0], y)[:2]), x)


# -- scipy.ndimage: the spline prefilter and the Fourier-domain filters ----------------------


def test_spline_filter_is_scipys_fixed_linear_map():
    # SciPy's spline_filter handed the tracer to compiled code (TracerConversionError)
    nd = scipy.ndimage
    img = RNG.normal(size=(5, 6))
    _check_all(lambda v: nd.spline_filter(v), img)
    _check_all(lambda v: nd.spline_filter(v, order=5, mode="nearest"), img)
    _check_all(lambda v: nd.spline_filter1d(v, order=2, axis=0, mode="wrap"), img)
    _check_all(lambda v: nd.spline_filter1d(v, 4, mode="reflect"), img)
    _check_all(lambda v: nd.spline_filter1d(v, order=1), img)
    with pytest.raises(RuntimeError, match="order"):  # as SciPy's
        ft.grad(lambda v: nd.spline_filter(v, order=1).sum())(img)
    for args in ((), (2,)):
        got = ft.jit(lambda v, args=args: nd.spline_filter(v, *args))(img.astype(np.float32))
        want = nd.spline_filter(img.astype(np.float32), *args)
        assert got.dtype == want.dtype == np.float64
        np.testing.assert_allclose(got, want, rtol=1e-6)
    got = ft.jit(lambda v: nd.spline_filter1d(v, output=np.float32))(img)
    assert got.dtype == np.float32


def test_fourier_filters_equal_scipy():
    # SciPy's fourier_* handed the tracer to compiled code (TracerConversionError)
    nd = scipy.ndimage
    img = RNG.normal(size=(5, 6))

    def spectral(filt, *args, **kw):
        def f(v):
            out = filt(ft.numpy.fft.fft2(v), *args, **kw)
            return ft.numpy.real(ft.numpy.fft.ifft2(out))

        return f

    _check_all(spectral(nd.fourier_gaussian, 1.3), img)
    _check_all(spectral(nd.fourier_gaussian, (0.5, 2.0)), img)
    _check_all(spectral(nd.fourier_uniform, (2.0, 3.5)), img)
    _check_all(spectral(nd.fourier_shift, (1.5, -0.25)), img)
    _check_all(spectral(nd.fourier_ellipsoid, (2.0, 3.5)), img)
    _check_all(lambda v: ft.numpy.real(nd.fourier_ellipsoid(ft.numpy.fft.fft(v), 2.5)), img[0])
    cube = RNG.normal(size=(3, 4, 5))
    _check_all(lambda v: ft.numpy.real(nd.fourier_ellipsoid(ft.numpy.fft.fftn(v), 1.7)), cube)
    with pytest.raises(NotImplementedError, match="3-dimensional"):  # as SciPy's
        ft.jit(lambda v: nd.fourier_ellipsoid(v, 1.0))(np.ones((2, 2, 2, 2)))
    # a real transform along axis 0 of a 9-long signal (n > 0)
    half = lambda filt, a: (
        lambda v: ft.numpy.fft.irfft(  # noqa: E731
            filt(ft.numpy.fft.rfft(v, axis=0), a, n=9, axis=0), n=9, axis=0
        )
    )
    sig = RNG.normal(size=(9, 3))
    _check_all(half(nd.fourier_gaussian, 1.1), sig)
    _check_all(half(nd.fourier_shift, 0.7), sig)
    _check_all(half(nd.fourier_uniform, 2.5), sig)
    # SciPy's dtypes: real input stays real (float32 too), fourier_shift is complex
    for x in (img, img.astype(np.float32), img + 1j * img, (img + 1j).astype(np.complex64)):
        for filt in (
            nd.fourier_gaussian,
            nd.fourier_uniform,
            nd.fourier_shift,
            nd.fourier_ellipsoid,
        ):
            got, want = ft.jit(lambda v, filt=filt: filt(v, 1.5))(x), filt(x, 1.5)
            assert got.dtype == want.dtype, (filt.__name__, x.dtype)
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    # the filter's own parameter may be traced
    g = ft.grad(lambda s: ft.numpy.real(nd.fourier_gaussian(np.fft.fft(img[0]), s)).sum())(0.8)
    num = _dirderiv(lambda s: np.real(nd.fourier_gaussian(np.fft.fft(img[0]), s)).sum(), 0.8, 1.0)
    np.testing.assert_allclose(g, num, rtol=1e-6)


# -- scipy.signal.lombscargle ----------------------------------------------------------------


def test_lombscargle_equals_scipy_in_every_normalization():
    # SciPy's lombscargle converted the tracer with numpy.asarray(..., dtype=float64)
    import scipy.signal

    ls = scipy.signal.lombscargle
    t = np.sort(RNG.uniform(0.0, 10.0, 15))
    y = np.sin(1.7 * t) + 0.3 * RNG.normal(size=15) + 0.5
    w = RNG.uniform(0.5, 2.0, 15)
    fr = np.linspace(0.4, 3.0, 5)
    _check_all(lambda v: ls(t, v, fr), y)
    _check_all(lambda v: ls(t, v, fr, normalize=True, floating_mean=True), y)
    _check_all(lambda v: ls(t, v, fr, normalize="power", weights=w), y)
    _check_all(lambda v: ls(v, y, fr, normalize=True), t)  # in the sample times
    _check_all(lambda v: ls(t, y, v, floating_mean=True, weights=w), fr)  # in the frequencies
    _check_all(lambda v: ls(t, y, fr, weights=v * v + 0.1), w)  # in the weights
    _check_all(lambda v: ft.numpy.real(ls(t, v, fr, normalize="amplitude")), y)
    _check_all(lambda v: ft.numpy.imag(ls(t, v, fr, normalize="amplitude", floating_mean=True)), y)
    one = ft.jit(lambda v: ls(t, v, fr[:1], normalize="amplitude"))(y)
    want = ls(t, y, fr[:1], normalize="amplitude")
    assert one.shape == want.shape == () and one.dtype == want.dtype
    np.testing.assert_allclose(one, want, rtol=1e-12)


# -- scipy.spatial.distance: the remaining metrics and SciPy's aliases ------------------------


def test_cdist_pdist_jensenshannon_boolean_metrics_and_aliases():
    # 'jensenshannon', the boolean metrics and SciPy's short names raised 'unknown metric'
    import scipy.spatial.distance as dist

    P = RNG.uniform(0.1, 1.0, size=(3, 5))
    Q = RNG.uniform(0.1, 1.0, size=(4, 5))
    _check_all(lambda v: dist.cdist(v, Q, "jensenshannon"), P)
    _check_all(lambda v: dist.pdist(v, "js"), P)
    for alias in ("e", "sqe", "cos", "cb", "cheb", "co", "m"):
        _check_all(lambda v, a=alias: dist.cdist(v, Q, a), P)
    _check_all(lambda v: dist.pdist(v, "se"), P)
    # boolean metrics read the entries as booleans (as SciPy's cdist converts them)
    A = (RNG.random((5, 6)) > 0.5).astype(float)
    B = (RNG.random((4, 6)) > 0.6).astype(float)
    A[0], B[0] = 0.0, 0.0  # an all-false pair: SciPy's 0 (jaccard, yule) and NaN (dice)
    w = RNG.uniform(0.5, 2.0, 6)
    metrics = ("jaccard", "dice", "rogerstanimoto", "russellrao", "sokalsneath", "yule")
    for metric in metrics + ("hamming",):
        for kw in ({}, {"w": w}):
            with np.errstate(all="ignore"):
                want = dist.cdist(A, B, metric, **kw)
                got = ft.jit(lambda v, m=metric, kw=kw: dist.cdist(v, B, m, **kw))(A)
                batch = ft.vmap(lambda v, m=metric, kw=kw: dist.pdist(v, m, **kw))(
                    np.stack([A, B[:4].repeat(2, 0)[:5]])
                )
                loop = [dist.pdist(v, metric, **kw) for v in (A, B[:4].repeat(2, 0)[:5])]
                g = ft.grad(lambda v, m=metric, kw=kw: ft.numpy.nansum(dist.cdist(v, B, m, **kw)))(
                    A
                )
            np.testing.assert_allclose(got, want, rtol=1e-12)
            np.testing.assert_allclose(batch, np.stack(loop), rtol=1e-12)
            assert got.dtype == want.dtype and not np.any(g)


# -- scipy.special.hyp2f1 in its parameters ---------------------------------------------------


def test_hyp2f1_parameter_derivatives_from_its_series():
    # its derivative in a, b, c was refused; JAX differentiates its own series (its
    # gradient at p, [0.53944153, 0.24574797, -0.13702914, 0.61518303], takes 10 s to
    # compile: differences are the oracle here)
    import scipy.special

    def f(v):
        return scipy.special.hyp2f1(v[..., 0], v[..., 1], v[..., 2], v[..., 3])

    p = np.array([0.5, 1.2, 2.3, 0.6])
    polynomial, negative = np.array([-3.0, 1.2, 2.3, 0.5]), np.array([0.5, 1.2, 2.3, -0.85])
    for q in (p, polynomial, negative):
        for d in np.eye(4):
            np.testing.assert_allclose(ft.grad(f)(q) @ d, _dirderiv(f, q, d), rtol=1e-7)
    ps = np.stack([p, 0.9 * p, np.array([2.5, 1.2, 1.3, 0.85])])
    np.testing.assert_allclose(ft.vmap(ft.grad(f))(ps), np.stack([ft.grad(f)(v) for v in ps]))
    np.testing.assert_allclose(ft.jit(ft.grad(f))(0.9 * p), ft.grad(f)(0.9 * p), rtol=1e-12)
    # the mixed derivative d/dz d/da is closed (2F1(a+1, b+1; c+1; z))
    hyp = scipy.special.hyp2f1
    dadz = ft.grad(lambda z: ft.grad(lambda a: hyp(a, 1.2, 2.3, z))(0.5))(0.6)
    num = _dirderiv(lambda z: ft.grad(lambda a: hyp(a, 1.2, 2.3, z))(0.5), 0.6, 1.0)
    np.testing.assert_allclose(dadz, num, rtol=1e-6)
    with pytest.raises(UnsupportedOperationError, match=r"hyp2f1\(a, b, c, z\).*\|z\| <= 0\.9"):
        ft.grad(f)(np.array([0.5, 1.2, 2.3, 0.95]))
    with pytest.raises(UnsupportedOperationError, match="second order"):
        ft.hessian(f)(p)


def test_moment_takes_scipys_older_keyword():
    # scipy.stats.moment(a, moment=3) raised 'unexpected keyword argument' under the transforms
    x = RNG.normal(size=(3, 7))
    _check_all(lambda v: scipy.stats.moment(v, moment=3, axis=1), x)


# -- scipy.stats: Theil-Sen and Siegel slopes -------------------------------------------------


def test_theilslopes_and_siegelslopes_equal_scipy():
    # SciPy's theilslopes read float() of the tracer; siegelslopes went to pythran code
    st = scipy.stats
    t = np.array([0.0, 1.0, 2.0, 2.0, 3.5, 4.0, 5.0, 6.5])  # a tie in x
    y = 0.7 * t + RNG.normal(size=8) * 0.3
    _check_all(lambda v: ft.numpy.stack(st.theilslopes(v)), y)
    _check_all(lambda v: ft.numpy.stack(st.theilslopes(v, t, 0.9, method="joint")), y)
    _check_all(lambda v: ft.numpy.stack(st.theilslopes(v, t, alpha=0.2)), y)
    _check_all(lambda v: ft.numpy.stack(st.theilslopes(y, v)), t + RNG.normal(size=8) * 0.05)
    _check_all(lambda v: ft.numpy.stack(st.siegelslopes(v, t)), y)
    _check_all(lambda v: ft.numpy.stack(st.siegelslopes(v, method="separate")), y)
    _check_all(
        lambda v: ft.numpy.stack(st.siegelslopes(y, v, method="separate")), t + 0.1 * np.arange(8.0)
    )
    res = ft.jit(lambda v: st.theilslopes(v, t))(np.round(y, 1))  # ties in y too
    want = st.theilslopes(np.round(y, 1), t)
    assert len(res) == 4
    np.testing.assert_allclose(np.array(res, dtype=float), np.array(want, dtype=float), rtol=1e-12)


def test_bartlett_levene_pointbiserialr_equal_scipy():
    # SciPy's code raised on the object array ('no callable log method', 'fdtrc')
    st = scipy.stats
    x = RNG.normal(size=(2, 9))
    y = RNG.normal(size=(2, 6)) * 2.0
    _check_all(lambda v: ft.numpy.stack(tuple(st.bartlett(v, y, axis=1))), x)
    _check_all(lambda v: ft.numpy.stack(tuple(st.bartlett(v[0], y[0], v[1] * 1.5))), x)
    _check_all(lambda v: ft.numpy.stack(tuple(st.levene(v, y, axis=1))), x)
    _check_all(lambda v: ft.numpy.stack(tuple(st.levene(v.T, y.T, center="mean"))), x)
    _check_all(lambda v: ft.numpy.stack(tuple(st.bartlett(v, y[:, :2].T, axis=None))), x)
    b = np.arange(9) % 2
    _check_all(lambda v: ft.numpy.stack(tuple(st.pointbiserialr(b, v[0]))), x)
    res = ft.jit(lambda v: st.pointbiserialr(b, v))(x[1])
    np.testing.assert_allclose(res.correlation, st.pointbiserialr(b, x[1]).correlation)


def test_fits_refuse_data_outside_a_fixed_support_as_scipy():
    # expon.fit(data, floc=2) with data below 2 returned a scale (SciPy: FitDataError)
    st = scipy.stats
    x = np.arange(1.0, 5.0)
    for fit in (
        lambda v: st.expon.fit(v, floc=2.0)[1],
        lambda v: st.uniform.fit(v, floc=2.0)[1],
        lambda v: st.uniform.fit(v, fscale=2.0)[0],
        lambda v: st.lognorm.fit(v, floc=2.0)[0],
    ):
        with pytest.raises(ValueError):
            fit(x)
        with pytest.raises(ValueError, match="invalid values in data"):
            ft.grad(fit)(x)
        with pytest.raises(ValueError, match="invalid values in data"):
            ft.vmap(fit)(np.stack([x + 2.0, x]))  # one bad row


def test_float32_data_keep_scipys_result_dtypes():
    # the rank tests and kstest's p-value came back float64 for float32 data, expon.fit float32
    st = scipy.stats
    x = RNG.normal(size=9).astype(np.float32)
    y = (RNG.normal(size=7) + 1.0).astype(np.float32)
    for f in (
        lambda a: st.mannwhitneyu(a, y),
        lambda a: st.kruskal(a, y),
        lambda a: st.wilcoxon(a),
        lambda a: st.kstest(a, "norm")[:2],
        lambda a: st.ks_1samp(a, st.norm.cdf, alternative="less")[:2],
        lambda a: st.expon.fit(a),
        lambda a: st.uniform.fit(a),
        lambda a: st.uniform.fit(a, fscale=10.0),
        lambda a: st.laplace.fit(a),
    ):
        want, got = f(x), ft.jit(f)(x)
        assert [np.asarray(v).dtype for v in got] == [np.asarray(v).dtype for v in want]
        np.testing.assert_allclose(
            np.array(got, dtype=float), np.array(want, dtype=float), rtol=1e-6
        )


def test_power_transforms_at_a_given_lambda():
    # boxcox/yeojohnson/yeojohnson_llf raised on the object array ('boxcox not supported')
    st = scipy.stats
    x = RNG.normal(size=8) * 2.0
    pos = np.abs(x) + 0.2
    for lam in (0.0, 0.5, 2.0, -1.3):
        _check_all(lambda v, lam=lam: st.yeojohnson(v, lam), x)
        _check_all(lambda v, lam=lam: st.boxcox(v, lam), pos)
        _check_all(lambda v, lam=lam: st.yeojohnson_llf(lam, v.reshape(2, 4), axis=1), x)
    _check_all(lambda v: st.yeojohnson(x, v[0]), np.array([0.7]))  # traced lambda
    _check_all(lambda v: st.yeojohnson_llf(v[0], x), np.array([1.4]))
    _check_all(lambda v: st.boxcox(pos, v[0]), np.array([0.3]))
    with pytest.raises(UnsupportedOperationError, match=r"lmbda=None.*pass lmbda"):
        ft.grad(lambda v: st.boxcox(v)[0].sum())(pos)


def test_power_divergence_and_chi2_contingency():
    # SciPy's code raised on the object array ('xlogy not supported', ObjectDType)
    st = scipy.stats
    obs = RNG.uniform(2.0, 9.0, size=(2, 5))
    share = np.array([0.1, 0.3, 0.2, 0.25, 0.15])
    exp = obs.sum(axis=1, keepdims=True) * share
    for lam in (None, "log-likelihood", "freeman-tukey", "mod-log-likelihood", "neyman", 0.4):
        _check_all(
            lambda v, lam=lam: ft.numpy.stack(tuple(st.power_divergence(v, axis=1, lambda_=lam))),
            obs,
        )
        _check_all(
            lambda v, lam=lam: st.power_divergence(v, v.sum(1, keepdims=True) * share, 1, 1, lam)[
                0
            ],
            obs,
        )
    _check_all(lambda v: st.power_divergence(v.T, keepdims=True).pvalue, obs)
    with pytest.raises(ValueError, match="sum of the observed"):
        ft.grad(lambda v: st.power_divergence(v, exp * 1.1, axis=1).statistic.sum())(obs)
    for table, kw in (
        (obs, {}),
        (obs[:, :2], {}),  # one degree of freedom: Yates' correction
        (obs[:, :2], {"correction": False}),
        (obs, {"lambda_": "log-likelihood"}),
        (obs[:, :4].reshape(2, 2, 2), {}),
    ):
        _check_all(lambda v, kw=kw: ft.numpy.stack(tuple(st.chi2_contingency(v, **kw))[:2]), table)
        _check_all(lambda v, kw=kw: st.chi2_contingency(v, **kw).expected_freq, table)
        res = ft.jit(lambda v, kw=kw: st.chi2_contingency(v, **kw))(table)
        assert res.dof == st.chi2_contingency(table, **kw).dof


def test_tsem_equals_scipy():
    # SciPy's tsem took the tracers for an object array ('ObjectDType has no attribute dtype')
    st = scipy.stats
    x = RNG.normal(size=(3, 8))
    _check_all(lambda v: st.tsem(v), x)
    _check_all(lambda v: st.tsem(v, axis=1, ddof=0), x)
    _check_all(lambda v: st.tsem(v, (-1.0, 1.5), (False, True), axis=None), x)
    _check_all(lambda v: st.tsem(v[0], (-1.0, 1.5)), x)


def test_gamma_fit_with_a_fixed_location():
    # SciPy's gamma.fit raised on the object array ('isfinite not supported')
    st = scipy.stats
    x = RNG.gamma(2.5, 1.3, size=10) + 0.5
    _check_all(lambda v: ft.numpy.stack(st.gamma.fit(v, floc=0)[::2]), x)
    _check_all(lambda v: ft.numpy.stack(st.gamma.fit(v, floc=0.2)[::2]), x)
    _check_all(lambda v: st.gamma.fit(v, 1.0, floc=0.2, f0=3.0)[2], x)
    g2 = ft.hessian(lambda v: st.gamma.fit(v, floc=0)[0])(x)  # the implicit rule, twice
    da = ft.grad(lambda v: st.gamma.fit(v, floc=0)[0])
    num = (da(x + 1e-6 * np.eye(10)[3]) - da(x - 1e-6 * np.eye(10)[3])) / 2e-6
    np.testing.assert_allclose(g2[3], num, rtol=1e-5, atol=1e-8)
    with pytest.raises(UnsupportedOperationError, match="floc"):
        ft.grad(lambda v: st.gamma.fit(v)[0])(x)
    with pytest.raises(ValueError, match="invalid values"):
        ft.grad(lambda v: st.gamma.fit(v, floc=float(x.min()) + 0.01)[0])(x)


def test_fit_without_a_closed_form_is_a_clear_error():
    # t.fit on traced data ran SciPy's optimizer on the object array ('isfinite not supported')
    x = RNG.normal(size=6)
    with pytest.raises(UnsupportedOperationError, match=r"t\.fit\(data, \.\.\.\).*minimize"):
        ft.grad(lambda v: scipy.stats.t.fit(v)[0])(x)
    with pytest.raises(UnsupportedOperationError, match=r"gumbel_r\.fit"):
        ft.vmap(lambda v: scipy.stats.gumbel_r.fit(v)[0])(x[None])
