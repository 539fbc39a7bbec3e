"""``ftransforms.scipy.ndimage``: SciPy's linear filters on tracers.  Oracles: SciPy's
own filters (every boundary mode, origins, derivative orders, dtypes), float64 central
differences, a Python loop for vmap; and ``scipy.ndimage``'s own names under the
transforms."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.ndimage as sn

import ftransforms as ft
import ftransforms.scipy.ndimage as fn

RNG = np.random.default_rng(0)
X = RNG.normal(size=(6, 7))
X1 = RNG.normal(size=5)
MODES = [
    "reflect",
    "mirror",
    "nearest",
    "wrap",
    "constant",
    "grid-wrap",
    "grid-mirror",
    "grid-constant",
]


def same(got, want, rtol=1e-12):
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol / 10)


@pytest.mark.parametrize("mode", MODES)
def test_one_dimensional_filters_equal_scipy(mode):
    for w in (np.array([1.0, 2.0, -1.0]), np.array([0.5, -1.0]), np.arange(1.0, 10.0)):
        for origin in (0, -1, 1) if len(w) > 2 else (0, -1):
            for axis in (0, 1):
                kw = {"mode": mode, "cval": 0.7, "origin": origin}
                same(fn.correlate1d(X, w, axis, **kw), sn.correlate1d(X, w, axis, **kw))
                same(fn.convolve1d(X, w, axis, **kw), sn.convolve1d(X, w, axis, **kw))
    for sigma in (0.7, 2.0, 5.0):
        for order in (0, 1, 2):
            kw = {"order": order, "mode": mode, "cval": 0.3}
            same(fn.gaussian_filter1d(X1, sigma, **kw), sn.gaussian_filter1d(X1, sigma, **kw))
    for size in (1, 2, 3, 4):
        same(fn.uniform_filter1d(X1, size, mode=mode), sn.uniform_filter1d(X1, size, mode=mode))


@pytest.mark.parametrize("mode", MODES)
def test_n_dimensional_filters_equal_scipy(mode):
    for sigma in (0.7, 2.0):
        same(fn.gaussian_filter(X, sigma, mode=mode), sn.gaussian_filter(X, sigma, mode=mode))
    same(
        fn.gaussian_filter(X, (1.0, 0.0), order=(1, 0), mode=mode),
        sn.gaussian_filter(X, (1.0, 0.0), order=(1, 0), mode=mode),
    )
    for size in (2, 3):
        same(fn.uniform_filter(X, size, mode=mode), sn.uniform_filter(X, size, mode=mode))
    k = RNG.normal(size=(3, 2))
    same(fn.correlate(X, k, mode=mode, cval=0.2), sn.correlate(X, k, mode=mode, cval=0.2))
    same(fn.convolve(X, k, mode=mode, cval=0.2), sn.convolve(X, k, mode=mode, cval=0.2))
    same(fn.convolve(X, k, mode=mode, origin=(1, 0)), sn.convolve(X, k, mode=mode, origin=(1, 0)))
    for axis in (0, 1):
        same(fn.sobel(X, axis, mode=mode), sn.sobel(X, axis, mode=mode))
        same(fn.prewitt(X, axis, mode=mode), sn.prewitt(X, axis, mode=mode))
    same(fn.laplace(X, mode=mode), sn.laplace(X, mode=mode))


def test_dtypes_axes_and_output_follow_scipy():
    same(fn.gaussian_filter(X, 1.5, axes=(1,)), sn.gaussian_filter(X, 1.5, axes=(1,)))
    x32 = X.astype(np.float32)
    same(fn.gaussian_filter(x32, 1.0), sn.gaussian_filter(x32, 1.0), rtol=1e-6)
    for a in (
        np.array([0, 2, 0, -2, 0]),
        np.array([3, 1, 4, 1, 5], np.int32),
        np.array([1, 2], np.uint8),
    ):
        same(fn.uniform_filter1d(a, 3, mode="constant"), sn.uniform_filter1d(a, 3, mode="constant"))
        same(fn.gaussian_filter(a, 1.0), sn.gaussian_filter(a, 1.0))
    ints = np.arange(12).reshape(3, 4)
    same(
        fn.uniform_filter(ints, 3, output=np.float64), sn.uniform_filter(ints, 3, output=np.float64)
    )
    out = np.empty_like(X)
    assert fn.gaussian_filter(X, 1.0, output=out) is out
    same(out, sn.gaussian_filter(X, 1.0))


def _fd(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[idx] = eps
        g[idx] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


def test_gradients_equal_finite_differences_in_the_image_and_the_filter():
    def f(img):
        return (fn.gaussian_filter(img, 1.2, mode="mirror") ** 2).sum() + fn.sobel(img, 0)[1, 2]

    np.testing.assert_allclose(ft.grad(f)(X), _fd(f, X), rtol=1e-6, atol=1e-9)
    k = RNG.normal(size=(3, 3))

    def g(kernel):
        return (fn.convolve(X, kernel, mode="wrap") ** 2).sum()

    np.testing.assert_allclose(ft.grad(g)(k), _fd(g, k), rtol=1e-6, atol=1e-9)


def test_vmap_equals_the_loop():
    stack = RNG.normal(size=(3, 5, 4))
    np.testing.assert_allclose(
        ft.vmap(lambda im: fn.gaussian_filter(im, 1.0))(stack),
        [sn.gaussian_filter(im, 1.0) for im in stack],
    )


def test_bad_settings_are_clear_errors():
    with pytest.raises(
        ValueError, match=r"^gaussian_filter\(input, sigma\): mode must be one of .*, got 'edge'"
    ):
        fn.gaussian_filter(X, 1.0, mode="edge")
    with pytest.raises(ValueError, match="invalid origin 5"):
        fn.correlate1d(X1, [1.0, 2.0, 3.0], origin=5)


def test_scipys_own_names_reach_them_under_the_transforms():
    def f(img):
        return (sn.gaussian_filter(img, 1.0) ** 2).sum() + sn.uniform_filter(img, 3)[0, 0]

    np.testing.assert_allclose(ft.grad(f)(X), _fd(f, X), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(ft.jit(lambda im: sn.laplace(im))(X), sn.laplace(X), rtol=1e-12)
