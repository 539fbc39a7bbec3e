"""jax.scipy's and jax.image's remaining names, round 10: what JAX programs call that
ftransforms lacked, against JAX (x64) and SciPy value by value, derivatives against JAX
or float64 central differences, ``vmap`` against the loop, ``jit`` against eager.

* ``ft.image.resize`` / ``scale_and_translate`` (``jax.image``);
* ``ft.scipy.cluster.vq.vq`` and ``scipy.cluster.vq.vq`` on tracers.
"""

from __future__ import annotations

import warnings
from contextlib import nullcontext

import numpy as np
import pytest
import scipy.cluster.vq

import ftransforms as ft
from ftransforms.image import resize, scale_and_translate

RNG = np.random.default_rng(10)


def _jax():
    """JAX with x64, for the slow comparisons (imported there: its import and compiles
    cost seconds)."""
    import jax  # noqa: PLC0415

    jax.config.update("jax_enable_x64", True)
    return jax


def close(a, b, tol=1e-12):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def central(f, x, eps=1e-6):
    """float64 central differences of the scalar ``f`` at ``x``."""
    x = np.asarray(x, float)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


# -- jax.image --------------------------------------------------------------------------------

IMAGE = RNG.normal(size=(5, 7))
METHODS = ["nearest", "linear", "cubic", "lanczos3", "lanczos5", "cubic-pytorch", "area"]

# JAX compiles each resize (seconds on a loaded machine): the fast tests compare every
# method with a per-sample NumPy loop of its definition; test_every_method_against_jax
# (slow) compares them all, and scale_and_translate's derivatives, with JAX.


def loop_resize_1d(x, n_out, kernel, radius, antialias, scale=None, shift=0.0):
    """The definition, one output sample at a time: sample i sits at input coordinate
    (i + 0.5) / scale - shift / scale - 0.5; weights kernel(|sample - j| / width) over the
    input pixels j, normalised; zero outside [-0.5, n - 0.5]."""
    n_in = len(x)
    scale = n_out / n_in if scale is None else scale
    width = max(1 / scale, 1.0) if antialias else 1.0
    out = np.zeros(n_out)
    for i in range(n_out):
        at = (i + 0.5) / scale - shift / scale - 0.5
        if not -0.5 <= at <= n_in - 0.5:
            continue
        w = np.array([kernel(abs(at - j) / width) for j in range(n_in)])
        out[i] = w @ x / w.sum()
    return out


def _keys(x, a=-0.5):
    if x >= 2:
        return 0.0
    if x >= 1:
        return a * x**3 - 5 * a * x**2 + 8 * a * x - 4 * a
    return (a + 2) * x**3 - (a + 3) * x**2 + 1


def _lanczos(r):
    return lambda x: float(np.sinc(x) * np.sinc(x / r)) if x < r else 0.0


KERNELS = {
    "linear": (lambda x: max(0.0, 1 - x), 1),
    "cubic": (_keys, 2),
    "lanczos3": (_lanczos(3), 3),
    "lanczos5": (_lanczos(5), 5),
}


@pytest.mark.parametrize("antialias", [True, False])
def test_resize_equals_the_per_sample_definition(antialias):
    for method, (kernel, radius) in KERNELS.items():
        for n_out in (3, 11):
            ours = resize(IMAGE, (n_out, 7), method, antialias=antialias)
            loop = np.stack(
                [loop_resize_1d(c, n_out, kernel, radius, antialias) for c in IMAGE.T], axis=1
            )
            close(ours, loop)
    # nearest: input floor((i + 0.5) * n_in / n_out); separable over axes
    idx0, idx1 = (
        np.floor((np.arange(3) + 0.5) * 5 / 3).astype(int),
        np.floor((np.arange(10) + 0.5) * 7 / 10).astype(int),
    )
    close(resize(IMAGE, (3, 10), "nearest"), IMAGE[idx0][:, idx1])


def test_scale_and_translate_equals_the_per_sample_definition():
    s, t = np.array([1.7, 0.6]), np.array([0.3, -1.2])
    for method, (kernel, radius) in KERNELS.items():
        for antialias in (True, False):
            ours = scale_and_translate(IMAGE, (6, 5), (0, 1), s, t, method, antialias)
            rows = np.stack(
                [loop_resize_1d(c, 6, kernel, radius, antialias, s[0], t[0]) for c in IMAGE.T],
                axis=1,
            )
            loop = np.stack(
                [loop_resize_1d(r, 5, kernel, radius, antialias, s[1], t[1]) for r in rows]
            )
            close(ours, loop)


def loop_area_1d(x, n_out, scale=None, shift=0.0):
    """'area': output sample i averages the input over [i / scale, (i + 1) / scale) less
    shift / scale, by overlap lengths."""
    n_in = len(x)
    scale = n_out / n_in if scale is None else scale
    out = np.zeros(n_out)
    for i in range(n_out):
        at = (i + 0.5) / scale - shift / scale - 0.5
        if not -0.5 <= at <= n_in - 0.5:
            continue
        lo, hi = i / scale - shift / scale, (i + 1) / scale - shift / scale
        w = np.array([max(0.0, min(hi, j + 1) - max(lo, j)) for j in range(n_in)])
        out[i] = w @ x / w.sum()
    return out


def loop_cubic_edges_1d(x, n_out):
    """'cubic-pytorch' without antialiasing: OpenCV's cubic (a = -0.75) over the input
    extended by repeating its edge samples; no zeroing outside."""
    n_in = len(x)
    out = np.zeros(n_out)
    for i in range(n_out):
        at = (i + 0.5) * n_in / n_out - 0.5
        src = np.arange(-2, n_in + 2)
        w = np.array([_keys(abs(at - j), -0.75) for j in src])
        out[i] = w @ x[np.clip(src, 0, n_in - 1)] / w.sum()
    return out


def test_area_and_cubic_pytorch_equal_their_definitions():
    for n_out in (3, 11):
        close(
            resize(IMAGE, (n_out, 7), "area"),
            np.stack([loop_area_1d(c, n_out) for c in IMAGE.T], axis=1),
        )
        close(
            resize(IMAGE, (n_out, 7), "cubic-pytorch", antialias=False),
            np.stack([loop_cubic_edges_1d(c, n_out) for c in IMAGE.T], axis=1),
        )
    # with antialias, 'cubic-pytorch' is 'cubic' (JAX's)
    close(resize(IMAGE, (3, 7), "cubic-pytorch"), resize(IMAGE, (3, 7), "cubic"))
    out = scale_and_translate(IMAGE, (6, 7), (0,), np.array([1.7]), np.array([0.3]), "area")
    close(out, np.stack([loop_area_1d(c, 6, 1.7, 0.3) for c in IMAGE.T], axis=1))
    for alias, name in [("bilinear", "linear"), ("trilinear", "linear"), ("bicubic", "cubic")]:
        close(resize(IMAGE, (3, 9), alias), resize(IMAGE, (3, 9), name))


@pytest.mark.slow
def test_every_method_against_jax():
    jax = _jax()
    x = RNG.normal(size=(5, 7, 2))
    s, t = np.array([1.7, 0.6]), np.array([0.3, -1.2])
    for method in METHODS:
        for shape in [(3, 4, 2), (9, 13, 2)]:
            for antialias in (True, False):
                ours = resize(x, shape, method, antialias=antialias)
                close(ours, jax.image.resize(x, shape, method, antialias=antialias))
        if method == "nearest":
            continue
        for antialias in (True, False):

            def f(s, t, x, method=method, antialias=antialias):
                out = scale_and_translate(x, (6, 5, 2), (0, 1), s, t, method, antialias)
                return (out**2).sum()

            def g(s, t, x, method=method, antialias=antialias):
                out = jax.image.scale_and_translate(x, (6, 5, 2), (0, 1), s, t, method, antialias)
                return (out**2).sum()

            close(f(s, t, x), g(s, t, x))
            ours = ft.grad(f, argnums=(0, 1, 2))(s, t, x)
            theirs = jax.grad(g, argnums=(0, 1, 2))(s, t, x)
            for a, b in zip(ours, theirs):
                close(a, b, 1e-10)


def test_resize_dtypes():
    x32 = IMAGE.astype(np.float32)
    out = resize(x32, (3, 9), "cubic")
    assert out.dtype == np.float32
    close(out, resize(IMAGE, (3, 9), "cubic"), tol=2e-6)
    ints = np.arange(6).reshape(2, 3)
    assert resize(ints, (4, 6), "nearest").dtype == ints.dtype  # a gather keeps the dtype
    assert resize(ints, (4, 6), "linear").dtype == np.float64


def test_resize_antialias_averages_when_shrinking():
    # JAX's antialias (the default) widens the kernel by the shrink factor; without it a
    # 6 -> 2 linear resize reads the two samples at 1.0 and 4.0 only.
    x = np.array([0.0, 8.0, 0.0, 0.0, 8.0, 0.0])
    assert resize(x, (2,), "linear", antialias=False).tolist() == [8.0, 8.0]
    close(resize(x, (2,), "linear"), [3.0, 3.0])  # weights 2/3, 1, 2/3, 1/3 around 1.0


def test_scale_and_translate_derivatives_against_differences():
    # (away from the kinks of the weights in scale and translation: at s, t = 0.6, -1.2
    # the area boundaries fall on pixel edges, where differences see a corner)
    s, t = np.array([1.73, 0.61]), np.array([0.31, -1.17])
    x = IMAGE[:3, :4]
    for method in ["linear", "cubic", "lanczos3", "area", "cubic-pytorch"]:
        for antialias in (True, False):

            def f(s, t, x, method=method, antialias=antialias):
                out = scale_and_translate(x, (4, 5), (0, 1), s, t, method, antialias)
                return (out**3).sum()

            gs, gt, gx = ft.grad(f, argnums=(0, 1, 2))(s, t, x)
            close(gs, central(lambda v: f(v, t, x), s), 1e-6)
            close(gt, central(lambda v: f(s, v, x), t), 1e-6)
            close(gx, central(lambda v: f(s, t, v), x), 1e-6)


def test_resize_transforms():
    xs = RNG.normal(size=(3, 4, 5))
    for method in ("bicubic", "nearest"):
        close(
            ft.vmap(lambda im, m=method: resize(im, (7, 3), m))(xs),
            np.stack([resize(im, (7, 3), method) for im in xs]),
        )
    close(
        ft.jit(lambda im: resize(im, (7, 3), "lanczos3"))(xs[0]), resize(xs[0], (7, 3), "lanczos3")
    )
    jac = ft.jacrev(lambda im: resize(im, (2, 8), "linear"))(xs[0])
    for i in np.ndindex(4, 5):  # linear in the image: column i is the resized unit image
        unit = np.zeros((4, 5))
        unit[i] = 1.0
        close(jac[(...,) + i], resize(unit, (2, 8), "linear"))
    # vmap over the translation (a batch of shifted images) against the loop
    ts = np.array([[0.0], [0.4], [-1.3]])
    one = lambda t: scale_and_translate(xs[0], (4, 6), (1,), np.array([1.2]), t, "cubic")  # noqa: E731
    close(ft.vmap(one)(ts), np.stack([one(t) for t in ts]))
    f = lambda t: float(one(t).sum() ** 2)  # noqa: E731
    close(ft.grad(lambda t: one(t).sum() ** 2)(ts[1]), central(f, ts[1]), 1e-6)


def test_image_errors():
    with pytest.raises(ValueError, match=r"resize\(method='bogus'\): unknown method"):
        resize(IMAGE, (2, 2), "bogus")
    with pytest.raises(ValueError, match=r"resize: shape must have one entry per dimension"):
        resize(IMAGE, (2, 2, 2), "linear")
    with pytest.raises(ValueError, match=r"scale_and_translate\(method='nearest'\)"):
        scale_and_translate(IMAGE, (2, 2), (0,), [1.0], [0.0], "nearest")
    with pytest.raises(ValueError, match=r"one entry per spatial dimension"):
        scale_and_translate(IMAGE, (2, 2), (0, 1), [1.0], [0.0], "linear")


# -- jax.scipy.cluster.vq ------------------------------------------------------------------

OBS = RNG.normal(size=(6, 3))
BOOK = RNG.normal(size=(4, 3))


def test_vq_equals_scipy():
    code, dist = ft.scipy.cluster.vq.vq(OBS, BOOK)
    sc, sd = scipy.cluster.vq.vq(OBS, BOOK)
    assert code.dtype == sc.dtype == np.int32  # (jax.scipy.cluster.vq.vq's too)
    np.testing.assert_array_equal(code, sc)
    close(dist, sd)
    # 1-d: each entry one observation of one feature
    code, dist = ft.scipy.cluster.vq.vq(np.array([1.0, 2.6, -4.0]), np.array([0.0, 3.0]))
    sc, sd = scipy.cluster.vq.vq(np.array([1.0, 2.6, -4.0]), np.array([0.0, 3.0]))
    np.testing.assert_array_equal(code, sc)
    close(dist, sd)


def test_vq_transforms_and_scipy_name():
    def loss(book, obs):
        return (ft.scipy.cluster.vq.vq(obs, book)[1] ** 3).sum()

    def scipy_loss(book, obs):
        return (scipy.cluster.vq.vq(obs, book)[1] ** 3).sum()

    close(ft.grad(loss)(BOOK, OBS), central(lambda b: scipy_loss(b, OBS), BOOK), 1e-7)
    close(ft.grad(loss, 1)(BOOK, OBS), central(lambda o: scipy_loss(BOOK, o), OBS), 1e-7)
    # SciPy's own name on tracers
    close(ft.grad(scipy_loss)(BOOK, OBS), ft.grad(loss)(BOOK, OBS))
    batch = RNG.normal(size=(3, 6, 3))
    codes, dists = ft.vmap(lambda o: ft.scipy.cluster.vq.vq(o, BOOK))(batch)
    loop = [scipy.cluster.vq.vq(o, BOOK) for o in batch]
    np.testing.assert_array_equal(codes, np.stack([c for c, _ in loop]))
    close(dists, np.stack([d for _, d in loop]))
    close(ft.jit(loss)(BOOK, OBS), loss(BOOK, OBS))
    with pytest.raises(ValueError, match=r"vq\(obs, code_book\): .* same number of features"):
        ft.scipy.cluster.vq.vq(np.ones((2, 3)), np.ones((2, 2)))


# -- jax.scipy.signal's spectral analysis (and scipy.signal's names on tracers) --------------

SIG = RNG.normal(size=(3, 50))
SIG2 = RNG.normal(size=50)


def same_as_scipy(ours, theirs, tol=1e-10):
    for a, b in zip(ours, theirs):
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype, (a.dtype, b.dtype)
        close(a, b, tol)


STFT_KW = [
    dict(nperseg=16),
    dict(nperseg=16, noverlap=5, nfft=20),
    dict(nperseg=15, detrend="linear", boundary="odd"),
    dict(nperseg=16, boundary=None, padded=False),
    dict(nperseg=16, boundary="even", return_onesided=False),
    dict(nperseg=16, boundary="constant", scaling="psd", fs=3.0),
    dict(window=("tukey", 0.3), nperseg=12),
]


def test_stft_and_istft_equal_scipy():
    import scipy.signal as ss

    for kw in STFT_KW:
        same_as_scipy(ft.scipy.signal.stft(SIG, **kw), ss.stft(SIG, **kw))
    same_as_scipy(ft.scipy.signal.stft(SIG.T, nperseg=8, axis=0), ss.stft(SIG.T, nperseg=8, axis=0))
    x32 = SIG.astype(np.float32)
    same_as_scipy(ft.scipy.signal.stft(x32, nperseg=8), ss.stft(x32, nperseg=8), 1e-6)
    for kw in [dict(nperseg=16, noverlap=5, nfft=20), dict(nperseg=15, scaling="psd", fs=3.0)]:
        Z = ss.stft(SIG, **kw)[2]
        same_as_scipy(ft.scipy.signal.istft(Z, **kw), ss.istft(Z, **kw))
    Z = np.moveaxis(ss.stft(SIG, nperseg=16, return_onesided=False)[2], 0, -1)
    kw = dict(nperseg=16, input_onesided=False, time_axis=1, freq_axis=0)
    same_as_scipy(ft.scipy.signal.istft(Z, **kw), ss.istft(Z, **kw))


def test_welch_csd_detrend_equal_scipy():
    import scipy.signal as ss

    kws = [
        dict(nperseg=16),
        dict(nperseg=16, noverlap=5, nfft=20, detrend="linear"),
        dict(),  # nperseg 256 > 50: SciPy's warning and nperseg = 50
        dict(nperseg=16, return_onesided=False, scaling="spectrum", fs=3.0),
        dict(nperseg=16, average="median"),
        dict(window=np.hamming(10)),
        dict(nperseg=16, detrend=lambda d: d - d.mean(axis=-1, keepdims=True)),
    ]
    for kw in kws:
        with pytest.warns(UserWarning) if not kw else nullcontext():
            ours = ft.scipy.signal.welch(SIG, **kw)
        with pytest.warns(UserWarning) if not kw else nullcontext():
            theirs = ss.welch(SIG, **kw)
        same_as_scipy(ours, theirs)
        with pytest.warns(UserWarning) if not kw else nullcontext():
            ours = ft.scipy.signal.csd(SIG, SIG2, **kw)
        with pytest.warns(UserWarning) if not kw else nullcontext():
            theirs = ss.csd(SIG, SIG2, **kw)
        same_as_scipy(ours, theirs)
    same_as_scipy(
        ft.scipy.signal.welch(SIG.T, nperseg=8, axis=0), ss.welch(SIG.T, nperseg=8, axis=0)
    )
    short = SIG2[None, :40]  # unequal lengths: the shorter is zero-padded
    same_as_scipy(ft.scipy.signal.csd(SIG[:1], short, nperseg=8), ss.csd(SIG[:1], short, nperseg=8))
    for kw in [dict(), dict(type="constant"), dict(bp=[10, 30]), dict(axis=0, bp=2)]:
        same_as_scipy([ft.scipy.signal.detrend(SIG, **kw)], [ss.detrend(SIG, **kw)])
    ramp = np.arange(10) ** 2  # integers: float64, as SciPy
    same_as_scipy([ft.scipy.signal.detrend(ramp)], [ss.detrend(ramp)])


def test_spectral_transforms_through_scipy_names():
    import scipy.signal as ss

    x = SIG[0, :40]
    w = RNG.normal(size=9)
    cases = [
        lambda x: (ss.welch(x, nperseg=16, detrend="linear")[1] * w).sum(),
        lambda x: (np.abs(ss.stft(x, nperseg=8)[2]) ** 2 * np.arange(5)[:, None]).sum(),
        lambda x: (
            ss.istft(ss.stft(x, nperseg=8, noverlap=5)[2], nperseg=8, noverlap=5)[1] ** 3
        ).sum(),
        lambda x: np.abs(ss.csd(x, x[::-1] ** 2, nperseg=8, average="median")[1]).sum(),
        lambda x: (ss.detrend(x, bp=[10, 25]) ** 3).sum(),
    ]
    for f in cases:  # SciPy's own names on tracers: grad against differences of SciPy
        close(ft.grad(f)(x), central(f, x), 1e-7)
    win = np.hanning(12)  # a traced window
    f = lambda win: ss.welch(x, window=win)[1].sum()  # noqa: E731
    close(ft.grad(f)(win), central(f, win), 1e-7)
    batch = SIG[:, :40]
    for fn in [
        lambda x: ft.scipy.signal.welch(x, nperseg=16)[1],
        lambda x: ft.scipy.signal.istft(ft.scipy.signal.stft(x, nperseg=16)[2], nperseg=16)[1],
        lambda x: ft.scipy.signal.csd(x, SIG2, nperseg=8)[1],
        lambda x: ft.scipy.signal.detrend(x),
    ]:
        close(ft.vmap(fn)(batch), np.stack([fn(r) for r in batch]))
        close(ft.jit(fn)(batch[0]), fn(batch[0]))


def test_spectral_errors():
    with pytest.raises(ValueError, match=r"stft: noverlap \(8\) must be less than nperseg"):
        ft.scipy.signal.stft(SIG, nperseg=8, noverlap=8)
    with pytest.raises(ValueError, match=r"welch: nfft \(4\) must be at least nperseg"):
        ft.scipy.signal.welch(SIG, nperseg=8, nfft=4)
    with pytest.raises(ValueError, match=r"detrend\(type='cubic'\)"):
        ft.scipy.signal.detrend(SIG, type="cubic")
    with pytest.raises(ValueError, match=r"istft: Zxx must be at least 2-d"):
        ft.scipy.signal.istft(np.ones(4))


# -- jax.scipy.stats: rankdata, mode, gaussian_kde, poisson.entropy --------------------------

TIES = [
    RNG.integers(0, 4, size=(4, 7)).astype(float),
    RNG.integers(0, 5, size=(3, 6)),
    np.array([[3.0, 1, np.nan, 1], [2, 2, 5, 0]]),
    np.array([[np.nan, np.nan, 1.0, 1.0], [np.nan, 2.0, np.nan, 3.0]]),
]


def test_rankdata_and_mode_equal_scipy():
    import scipy.stats as ss

    for x in TIES:
        for method in ["average", "min", "max", "dense", "ordinal"]:
            for axis in [None, 0, -1]:
                for policy in ["propagate", "omit"]:
                    ours = ft.scipy.stats.rankdata(x, method, axis=axis, nan_policy=policy)
                    theirs = ss.rankdata(x, method, axis=axis, nan_policy=policy)
                    assert ours.dtype == theirs.dtype, (method, axis, policy)
                    np.testing.assert_array_equal(ours, theirs)
        for axis in [None, 0, 1]:
            for policy in ["propagate", "omit"]:
                for keepdims in [False, True]:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", RuntimeWarning)  # (SciPy's, on NaN)
                        theirs = ss.mode(x, axis, policy, keepdims)
                    ours = ft.scipy.stats.mode(x, axis, policy, keepdims)
                    for a, b in zip(ours, theirs):
                        assert np.asarray(a).dtype == np.asarray(b).dtype
                        np.testing.assert_array_equal(a, b)


def test_rankdata_and_mode_transforms_and_scipy_names():
    import scipy.stats as ss

    x = TIES[0]
    close(ft.vmap(lambda r: ss.rankdata(r))(x), np.stack([ss.rankdata(r) for r in x]))
    close(ft.vmap(lambda r: ss.mode(r).mode)(x), np.stack([ss.mode(r).mode for r in x]))
    # ranks have derivative 0; the mode carries its element's (one per row)
    g = ft.grad(lambda r: (ss.rankdata(r, axis=1) * r).sum() + ss.mode(r, axis=1).mode.sum())(x)
    ones = g - ss.rankdata(x, axis=1)
    assert sorted(np.unique(ones).tolist()) == [0.0, 1.0] and ones.sum() == len(x)
    assert np.all(x[ones == 1] == ss.mode(x, axis=1).mode)
    # (integer data: float data with an integer method read the data for NaN, since
    # SciPy's result dtype depends on them, which runs jit eagerly, with a warning)
    ints = TIES[1]
    np.testing.assert_array_equal(
        ft.jit(lambda r: ft.scipy.stats.rankdata(r, "dense", axis=1))(ints),
        ss.rankdata(ints, "dense", axis=1),
    )
    close(ft.jit(lambda r: ft.scipy.stats.rankdata(r, axis=1))(x), ss.rankdata(x, axis=1))
    with pytest.raises(ValueError, match=r"rankdata\(method='first'\)"):
        ft.scipy.stats.rankdata(x, "first")
    with pytest.raises(ValueError, match=r"rankdata\(nan_policy='raise'\): the input contains NaN"):
        ft.scipy.stats.rankdata(TIES[2], nan_policy="raise")


KDE_DATA = RNG.normal(size=(2, 12))
KDE_W = RNG.uniform(0.1, 1.0, size=12)
KDE_PTS = RNG.normal(size=(2, 3))


def test_gaussian_kde_equals_scipy():
    import scipy.stats as ss

    d1 = KDE_DATA[0]
    cases = [
        (d1, np.linspace(-2, 2, 5), {}),
        (d1, np.linspace(-2, 2, 5), dict(bw_method="silverman")),
        (d1, np.linspace(-2, 2, 5), dict(bw_method=0.3)),
        (KDE_DATA, KDE_PTS, dict(weights=KDE_W)),
        (KDE_DATA, KDE_PTS[:, 0], dict(bw_method=lambda k: 0.5 * k.scotts_factor())),
    ]
    for data, pts, kw in cases:
        ours, theirs = ft.scipy.stats.gaussian_kde(data, **kw), ss.gaussian_kde(data, **kw)
        for name in ["factor", "covariance", "inv_cov", "neff"]:
            close(getattr(ours, name), getattr(theirs, name))
        close(ours(pts), theirs(pts))
        close(ours.logpdf(pts), theirs.logpdf(pts))
        mean, cov = np.zeros(ours.d), 0.7 * np.eye(ours.d)
        close(ours.integrate_gaussian(mean, cov), theirs.integrate_gaussian(mean, cov))
        other = data[..., :5]
        close(
            ours.integrate_kde(ft.scipy.stats.gaussian_kde(other)),
            theirs.integrate_kde(ss.gaussian_kde(other)),
        )
        if ours.d == 1:
            close(ours.integrate_box_1d(-0.5, 1.2), theirs.integrate_box_1d(-0.5, 1.2))
        else:
            close(ours.marginal(1)(pts[1]), theirs.marginal(1)(pts[1]))
        # SciPy's resample draws the same numbers for the same seed
        close(ours.resample(7, seed=3), theirs.resample(7, seed=3))
        ours.set_bandwidth("silverman")
        theirs.set_bandwidth("silverman")
        close(ours(pts), theirs(pts))


def test_gaussian_kde_derivatives_vmap_jit_and_jax_resample():
    import scipy.stats as ss

    def ours(data, w, pts, bw):
        return ft.scipy.stats.gaussian_kde(data, bw_method=bw, weights=w).logpdf(pts).sum()

    def theirs(data, w, pts, bw):
        return ss.gaussian_kde(data, bw_method=bw, weights=w).logpdf(pts).sum()

    args = [KDE_DATA, KDE_W, KDE_PTS, 0.7]
    grads = ft.grad(ours, argnums=(1, 2, 3))(*args)  # (the data's: evaluate's, below)
    for i, g in zip((1, 2, 3), grads):

        def along(v, i=i):
            a = list(args)
            a[i] = v
            return theirs(*a)

        close(g, central(along, args[i]), 1e-7)
    f = lambda d: ft.scipy.stats.gaussian_kde(d).evaluate(KDE_PTS).sum()  # noqa: E731
    close(
        ft.grad(f)(KDE_DATA),
        central(lambda d: ss.gaussian_kde(d).evaluate(KDE_PTS).sum(), KDE_DATA),
        1e-7,
    )
    batch = RNG.normal(size=(3, 2, 12))
    close(
        ft.vmap(lambda d: ft.scipy.stats.gaussian_kde(d).logpdf(KDE_PTS))(batch),
        np.stack([ss.gaussian_kde(d).logpdf(KDE_PTS) for d in batch]),
    )
    kde = ft.scipy.stats.gaussian_kde(KDE_DATA, weights=KDE_W)  # a pytree, as JAX's
    close(ft.jit(lambda k, p: k.logpdf(p))(kde, KDE_PTS), kde.logpdf(KDE_PTS))
    draws = kde.resample(ft.random.PRNGKey(1), shape=(4, 5))  # JAX's form
    assert draws.shape == (2, 4, 5)


@pytest.mark.slow
def test_gaussian_kde_resample_with_a_key_equals_jax():
    jax = _jax()
    kde = ft.scipy.stats.gaussian_kde(KDE_DATA, weights=KDE_W)
    jkde = jax.scipy.stats.gaussian_kde(KDE_DATA, weights=KDE_W)
    close(
        kde.resample(ft.random.PRNGKey(1), shape=(4,)),
        jkde.resample(jax.random.PRNGKey(1), shape=(4,)),
    )


def test_poisson_entropy():
    import scipy.stats as ss

    mu = np.array([0.0, 1e-3, 0.5, 3.0, 10.0, 100.0, 399.0, 400.0, 1000.0])
    close(ft.scipy.stats.poisson.entropy(mu), ss.poisson.entropy(mu), 1e-11)
    assert np.isnan(ft.scipy.stats.poisson.entropy(-1.0))
    close(ft.scipy.stats.poisson(3.0, loc=2).entropy(), ss.poisson(3.0, loc=2).entropy())
    for m in (0.5, 30.0):
        close(ft.grad(ft.scipy.stats.poisson.entropy)(m), central(ss.poisson.entropy, m), 1e-7)
    close(ft.vmap(ft.scipy.stats.poisson.entropy)(mu), ss.poisson.entropy(mu), 1e-11)


# -- jax.scipy.sparse.linalg.gmres ----------------------------------------------------------

GA = RNG.normal(size=(10, 10)) + 5.0 * np.eye(10)
GB = RNG.normal(size=10)


def test_gmres_equals_scipy():
    import scipy.sparse
    import scipy.sparse.linalg as sl

    exact = np.linalg.solve(GA, GB)
    for kw in [dict(rtol=1e-12), dict(rtol=1e-12, restart=4), dict(restart=2, maxiter=3)]:
        x, info = ft.scipy.sparse.linalg.gmres(GA, GB, **kw)
        xs, infos = sl.gmres(GA, GB, **kw)
        assert int(info) == infos  # 0 converged, else the cycles made (3)
        close(x, xs, 1e-9)
    assert int(sl.gmres(GA, GB, restart=2, maxiter=3)[1]) == 3
    for A in [scipy.sparse.csr_matrix(GA), lambda v: GA @ v]:
        close(ft.scipy.sparse.linalg.gmres(A, GB, rtol=1e-12)[0], exact)
    x, info = ft.scipy.sparse.linalg.gmres(GA, GB, rtol=1e-12, M=np.diag(1 / np.diag(GA)))
    close(x, exact)
    Ac, bc = GA + 1j * np.eye(10)[::-1], GB + 1j * GB[::-1]
    close(ft.scipy.sparse.linalg.gmres(Ac, bc, rtol=1e-12)[0], np.linalg.solve(Ac, bc))
    # a breakdown (the Krylov space is invariant after one step): the exact solution
    d = np.diag([2.0, 3.0, 4.0, 5.0])
    close(ft.scipy.sparse.linalg.gmres(d, np.eye(4)[0])[0], [0.5, 0.0, 0.0, 0.0])
    # JAX's spellings: tol, solve_method
    close(ft.scipy.sparse.linalg.gmres(GA, GB, tol=1e-12, solve_method="incremental")[0], exact)


def test_gmres_transforms_and_scipy_name():
    import scipy.sparse.linalg as sl

    exact = np.linalg.solve(GA, GB)
    g = ft.grad(lambda b: (sl.gmres(GA, b, rtol=1e-12)[0] ** 2).sum())(GB)
    close(g, 2 * np.linalg.solve(GA.T, exact))
    gA = ft.grad(lambda A: ft.scipy.sparse.linalg.gmres(lambda v: A @ v, GB, rtol=1e-12)[0].sum())(
        GA
    )
    close(gA, -np.outer(np.linalg.solve(GA.T, np.ones(10)), exact))
    B = RNG.normal(size=(3, 10))
    solve = lambda b: ft.scipy.sparse.linalg.gmres(GA, b, rtol=1e-12)[0]  # noqa: E731
    close(ft.vmap(solve)(B), np.stack([solve(b) for b in B]))
    close(ft.jit(solve)(GB), exact)


# -- jax.scipy.linalg: eigh_tridiagonal, qr_multiply, rsf2csf, the matrix builders -----------


def same_matrix(ours, theirs, tol=1e-12):
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype, (ours.dtype, theirs.dtype)
    if ours.dtype == object:
        assert (ours == theirs).all()
    else:
        close(ours, theirs, tol)


def test_matrix_builders_equal_scipy():
    import scipy.linalg as sl

    fl = ft.scipy.linalg
    for m, n in [(2, 5), (5, 2), (4, 4), (1, 3)]:
        a = RNG.normal(size=m)
        for mode in ["full", "same", "valid"]:
            same_matrix(fl.convolution_matrix(a, n, mode), sl.convolution_matrix(a, n, mode))
    for k in [1, 2, 3, 6, 7]:
        a = RNG.normal(size=k)
        same_matrix(fl.fiedler_companion(a), sl.fiedler_companion(a))
        same_matrix(fl.fiedler(a), sl.fiedler(a))
    f, s = RNG.normal(size=4), RNG.normal(size=3)
    same_matrix(fl.leslie(f, s), sl.leslie(f, s))
    for n in [0, 1, 5]:
        for scale in [None, "sqrtn", "n"]:
            same_matrix(fl.dft(n, scale), sl.dft(n, scale))
        same_matrix(fl.hilbert(n), sl.hilbert(n))
        same_matrix(fl.invhilbert(n), sl.invhilbert(n), 1e-9)
        same_matrix(fl.invhilbert(n, exact=True), sl.invhilbert(n, exact=True))
    same_matrix(fl.invhilbert(16, exact=True), sl.invhilbert(16, exact=True))  # Python ints
    for n in [1, 2, 8]:
        same_matrix(fl.hadamard(n), sl.hadamard(n))
        same_matrix(fl.hadamard(n, float), sl.hadamard(n, float))
        same_matrix(fl.helmert(n), sl.helmert(n))
        same_matrix(fl.helmert(n, True), sl.helmert(n, True))
    for n in [0, 4, 36]:
        for kind in ["symmetric", "lower", "upper"]:
            for exact in [True, False]:
                same_matrix(fl.pascal(n, kind, exact), sl.pascal(n, kind, exact), 1e-9)
                same_matrix(fl.invpascal(n, kind, exact), sl.invpascal(n, kind, exact), 1e-9)
    with pytest.raises(ValueError, match=r"hadamard: n must be a positive power of 2"):
        fl.hadamard(6)


def test_matrix_builders_derivatives():
    import scipy.linalg as sl

    a = RNG.normal(size=4)
    weights = RNG.normal(size=(2, 5))
    for f in [
        lambda a: (sl.fiedler_companion(a) ** 2).sum(),
        lambda a: (sl.convolution_matrix(a, 5, "valid") * weights).sum(),
        lambda a: (sl.fiedler(a) ** 2 * np.arange(16.0).reshape(4, 4)).sum(),
        lambda a: (sl.leslie(a, a[1:] ** 2) @ np.arange(4.0)).sum(),
    ]:  # SciPy's own names on tracers
        close(ft.grad(f)(a), central(f, a), 1e-7)
    batch = RNG.normal(size=(3, 4))
    close(
        ft.vmap(ft.scipy.linalg.fiedler_companion)(batch),
        np.stack([sl.fiedler_companion(r) for r in batch]),
    )


def test_eigh_tridiagonal_equals_scipy_with_derivatives():
    import scipy.linalg as sl

    fl = ft.scipy.linalg
    d, e = RNG.normal(size=6), RNG.normal(size=5)
    w, v = fl.eigh_tridiagonal(d, e)
    ws, vs = sl.eigh_tridiagonal(d, e)
    close(w, ws)
    close(np.abs(v), np.abs(vs), 1e-10)  # (eigenvectors: up to sign)
    for kw in [dict(select="i", select_range=(1, 3)), dict(select="v", select_range=(-0.5, 1.0))]:
        close(fl.eigh_tridiagonal(d, e, True, **kw), sl.eigh_tridiagonal(d, e, True, **kw))
        close(
            np.abs(fl.eigh_tridiagonal(d, e, **kw)[1]),
            np.abs(sl.eigh_tridiagonal(d, e, **kw)[1]),
            1e-10,
        )
    ec = e + 1j * RNG.normal(size=5)  # Hermitian (SciPy takes real only)
    dense = np.diag(d) + np.diag(ec, 1) + np.diag(ec.conj(), -1)
    close(fl.eigh_tridiagonal(d, ec, eigvals_only=True), np.linalg.eigvalsh(dense))
    c = RNG.normal(size=6)
    f = lambda d: (sl.eigh_tridiagonal(d, e, eigvals_only=True) * c).sum()  # noqa: E731
    close(ft.grad(f)(d), central(f, d), 1e-7)
    g = lambda e: (sl.eigh_tridiagonal(d, e)[1][0] ** 2 * c).sum()  # noqa: E731
    close(ft.grad(g)(e), central(g, e), 1e-7)
    D = RNG.normal(size=(3, 6))
    eig = lambda d: fl.eigh_tridiagonal(d, e, eigvals_only=True)  # noqa: E731
    close(ft.vmap(eig)(D), np.stack([sl.eigh_tridiagonal(r, e, eigvals_only=True) for r in D]))
    close(ft.jit(eig)(d), ws)


def test_qr_multiply_and_rsf2csf_equal_scipy():
    import scipy.linalg as sl

    fl = ft.scipy.linalg
    for m, n in [(5, 3), (3, 5)]:
        a = RNG.normal(size=(m, n))
        k = min(m, n)
        for mode, shape in [("left", (k,)), ("left", (k, 2)), ("right", (m,)), ("right", (2, m))]:
            c = RNG.normal(size=shape)
            for pivoting in (False, True):
                ours = fl.qr_multiply(a, c, mode, pivoting, True)
                theirs = sl.qr_multiply(a, c, mode, pivoting, True)
                for x, y in zip(ours, theirs, strict=True):
                    same_matrix(x, y, 1e-10)
    for n in [3, 6]:
        T, Z = sl.schur(RNG.normal(size=(n, n)))
        for x, y in zip(fl.rsf2csf(T, Z), sl.rsf2csf(T, Z)):
            same_matrix(x, y, 1e-10)


def test_qr_multiply_and_rsf2csf_transforms():
    import scipy.linalg as sl

    a, c, w = RNG.normal(size=(5, 3)), RNG.normal(size=(2, 5)), RNG.normal(size=(2, 3))
    for pivoting in (False, True):
        f = lambda a, p=pivoting: (sl.qr_multiply(a, c, "right", p)[0] * w).sum()  # noqa: E731
        close(ft.grad(f)(a), central(f, a), 1e-7)
    batch = RNG.normal(size=(3, 5, 3))
    one = lambda a: ft.scipy.linalg.qr_multiply(a, c, "right", True)[0]  # noqa: E731
    close(ft.vmap(one)(batch), np.stack([sl.qr_multiply(x, c, "right", True)[0] for x in batch]))
    close(ft.jit(one)(a), sl.qr_multiply(a, c, "right", True)[0])
    T, Z = sl.schur(RNG.normal(size=(4, 4)))

    def f(T):
        t, z = sl.rsf2csf(T, Z)
        return (t.real + 0.3 * t.imag).sum() + (z.real**2 * np.arange(4.0)).sum()

    # (differences only along the entries that keep T quasi-triangular: a zero
    # subdiagonal entry made nonzero would start a rotation, a jump)
    keep = np.triu(np.ones((4, 4), bool)) | (np.abs(np.tril(T, -1)) > 1e-12)
    close(np.where(keep, ft.grad(f)(T), 0), np.where(keep, central(f, T), 0), 1e-7)


# -- jax.scipy.special: bernoulli, bessel_jn, sph_harm_y ------------------------------------


def test_bernoulli_bessel_jn_sph_harm_y_equal_scipy():
    import scipy.special as ss

    fs = ft.scipy.special
    for n in [0, 1, 2, 5, 20, 40]:  # (ours exact to float64; SciPy's by a float recurrence)
        close(fs.bernoulli(n), ss.bernoulli(n), 1e-12)
    with pytest.raises(ValueError, match=r"bernoulli: n must be a non-negative integer"):
        fs.bernoulli(-1)
    z = np.array([0.1, 1.0, 5.5, 20.0, -3.0])
    jn = fs.bessel_jn(z, v=4)
    assert jn.shape == (5, 5)  # (v + 1,) + z.shape, as jax.scipy.special.bessel_jn
    close(jn, np.stack([ss.jv(k, z) for k in range(5)]))
    n = np.array([0, 1, 2, 3, 5, 7, 10, 2, 3, 80])
    m = np.array([0, 1, -2, 3, -4, 5, -10, 3, 0, 40])  # (|m| > n: 0)
    theta, phi = RNG.uniform(0, np.pi, 10), RNG.uniform(0, 2 * np.pi, 10)
    close(fs.sph_harm_y(n, m, theta, phi), ss.sph_harm_y(n, m, theta, phi))
    # JAX's n_max: degrees above it computed at n_max
    close(fs.sph_harm_y(10, 2, 0.5, 0.1, n_max=6), ss.sph_harm_y(6, 2, 0.5, 0.1))


def test_special_integer_orders_transforms():
    import scipy.special as ss

    fs = ft.scipy.special

    def f(t):  # SciPy's own name (a MultiUFunc) on tracers
        y = ss.sph_harm_y(3, -2, t, 0.4 * t)
        return y.real + 2.0 * y.imag

    close(ft.grad(f)(0.9), central(f, 0.9), 1e-7)
    g = lambda z: fs.bessel_jn(z, v=3)[3]  # noqa: E731
    close(ft.grad(g)(1.7), (ss.jv(2, 1.7) - ss.jv(4, 1.7)) / 2)
    n, m = np.arange(30), np.arange(30) // 2
    ts = np.array([0.3, 0.9])
    one = lambda t: fs.sph_harm_y(n, m, t, 0.2, n_max=29)  # noqa: E731
    close(ft.vmap(one)(ts), np.stack([ss.sph_harm_y(n, m, t, 0.2) for t in ts]))
    close(ft.jit(one)(0.3), ss.sph_harm_y(n, m, 0.3, 0.2))


# -- jax.scipy.spatial.transform: Rotation, Slerp -------------------------------------------


def test_rotation_equals_scipy():
    from scipy.spatial.transform import Rotation as SR
    from scipy.spatial.transform import Slerp as SSlerp

    from ftransforms.scipy.spatial.transform import Rotation, Slerp

    q = RNG.normal(size=(6, 4))
    for quats in (q, q[0]):
        ours, theirs = Rotation.from_quat(quats), SR.from_quat(quats)
        close(ours.as_quat(), theirs.as_quat())
        close(ours.as_quat(True, scalar_first=True), theirs.as_quat(True, scalar_first=True))
        close(ours.as_matrix(), theirs.as_matrix())
        close(ours.as_rotvec(degrees=True), theirs.as_rotvec(degrees=True))
        close(ours.as_mrp(), theirs.as_mrp())
        close(ours.magnitude(), theirs.magnitude())
        for seq in ["xyz", "ZYX", "xyx", "ZXZ", "yzx"]:
            close(ours.as_euler(seq), theirs.as_euler(seq))
        matrix = theirs.as_matrix()
        close(Rotation.from_matrix(matrix).as_quat(True), SR.from_matrix(matrix).as_quat(True))
        close(Rotation.from_rotvec(theirs.as_rotvec()).as_quat(True), theirs.as_quat(True))
        close(Rotation.from_mrp(theirs.as_mrp()).as_quat(True), theirs.as_quat(True))
        v = RNG.normal(size=(len(q) if quats.ndim == 2 else 4, 3))
        close(ours.apply(v, inverse=True), theirs.apply(v, inverse=True))
        close(
            (ours * ours.inv() * ours).as_quat(True), (theirs * theirs.inv() * theirs).as_quat(True)
        )
    w = RNG.uniform(size=6)
    close(Rotation.from_quat(q).mean(w).as_quat(True), SR.from_quat(q).mean(w).as_quat(True))
    not_orthogonal = SR.from_quat(q[0]).as_matrix() + 0.05 * RNG.normal(size=(3, 3))
    close(  # SciPy's projection onto the nearest rotation first
        Rotation.from_matrix(not_orthogonal).as_quat(True),
        SR.from_matrix(not_orthogonal).as_quat(True),
    )
    for seq, angles in [("xyz", RNG.normal(size=3)), ("ZXZ", RNG.normal(size=(5, 3))), ("z", 0.3)]:
        close(
            Rotation.from_euler(seq, angles, degrees=True).as_quat(),
            SR.from_euler(seq, angles, degrees=True).as_quat(),
        )
    close(Rotation.random(5, rng=3).as_quat(), SR.random(5, rng=3).as_quat())
    times = np.array([0.0, 1.0, 3.0, 4.0])
    at = np.array([0.0, 0.5, 1.0, 2.2, 4.0])
    close(
        Slerp(times, Rotation.from_quat(q[:4]))(at).as_quat(True),
        SSlerp(times, SR.from_quat(q[:4]))(at).as_quat(True),
    )


def test_rotation_transforms():
    from scipy.spatial.transform import Rotation as SR
    from scipy.spatial.transform import Slerp as SSlerp

    from ftransforms.scipy.spatial.transform import Rotation, Slerp

    w = RNG.normal(size=3)
    angles = RNG.normal(size=3)
    f = lambda a: (Rotation.from_euler("xyz", a).as_euler("ZXZ") * w).sum()  # noqa: E731
    fs = lambda a: (SR.from_euler("xyz", a).as_euler("ZXZ") * w).sum()  # noqa: E731
    close(ft.grad(f)(angles), central(fs, angles), 1e-7)

    def g(v):
        return (Rotation.from_matrix(Rotation.from_rotvec(v).as_matrix()).as_rotvec() * w).sum()

    close(ft.grad(g)(angles), central(g, angles), 1e-7)
    times, rots = np.array([0.0, 1.0, 3.0]), RNG.normal(size=(3, 4))
    h = lambda t: (Slerp(times, Rotation.from_quat(rots))(t).as_rotvec() * w).sum()  # noqa: E731
    hs = lambda t: (SSlerp(times, SR.from_quat(rots))(t).as_rotvec() * w).sum()  # noqa: E731
    close(ft.grad(h)(np.array([2.2])), central(hs, np.array([2.2])), 1e-7)
    batch = RNG.normal(size=(4, 3))
    close(
        ft.vmap(lambda a: Rotation.from_euler("xyz", a).apply(w))(batch),
        np.stack([SR.from_euler("xyz", a).apply(w) for a in batch]),
    )
    stacked = ft.vmap(lambda a: Rotation.from_euler("xyz", a))(batch)  # a pytree out
    close(stacked.as_quat(), SR.from_euler("xyz", batch).as_quat())
    close(
        ft.jit(lambda a: Rotation.from_euler("xyz", a).as_quat())(angles),
        SR.from_euler("xyz", angles).as_quat(),
    )
    assert Rotation.random(ft.random.PRNGKey(0), 3).as_quat().shape == (3, 4)  # JAX's form


def test_scipy_gaussian_kde_on_tracers():
    import scipy.stats as ss

    data = KDE_DATA[0]
    f = lambda d: ss.gaussian_kde(d, weights=KDE_W).logpdf(0.3).sum()  # noqa: E731
    close(ft.grad(f)(data), central(f, data), 1e-7)  # made from traced data: ours
    kde = ss.gaussian_kde(data)  # made from plain data, evaluated at traced points
    assert type(kde) is ss.gaussian_kde
    g = lambda x: kde(x).sum() + kde.logpdf(x).sum() + kde.integrate_box_1d(x[0], 1.0)  # noqa: E731
    x = np.array([0.1, 0.5])
    close(ft.grad(g)(x), central(g, x), 1e-7)
    close(ft.vmap(kde.pdf)(x)[:, 0], kde.pdf(x))


def test_scipy_rotation_names_on_tracers():
    from scipy.spatial.transform import Rotation as SR
    from scipy.spatial.transform import Slerp as SSlerp

    a = np.array([0.3, -0.2, 0.5])
    f = lambda a: (SR.from_euler("xyz", a).as_rotvec() * np.arange(1.0, 4.0)).sum()  # noqa: E731
    close(ft.grad(f)(a), central(f, a), 1e-7)
    r = SR.from_euler("z", 0.3)  # plain data: SciPy's; at traced vectors, ours
    g = lambda v: (r.apply(v) ** 2 * np.arange(3.0)).sum()  # noqa: E731
    close(ft.grad(g)(a), central(g, a), 1e-7)
    s = SSlerp(np.array([0.0, 1.0, 3.0]), SR.from_quat(RNG.normal(size=(3, 4))))
    h = lambda t: (s(t).as_rotvec() * np.arange(1.0, 4.0)).sum()  # noqa: E731
    close(ft.grad(h)(np.array([2.2])), central(h, np.array([2.2])), 1e-7)

    def k(a):  # a Slerp of traced rotations
        rots = SR.from_rotvec(np.stack([a, 2 * a]))
        return SSlerp(np.array([0.0, 1.0]), rots)(np.array([0.4])).as_rotvec().sum()

    close(ft.grad(k)(a), central(k, a), 1e-7)
    assert type(SR.from_euler("x", 0.1)) is SR and type(s) is SSlerp  # (outside: SciPy's)
