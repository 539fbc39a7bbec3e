# ruff: noqa  (a published program in its authors' style)
"""Image filtering from an image-processing course, written with ``np.pad`` and loops:
a correlation with any kernel over an edge-padded image (double loop over pixels), a
Gaussian kernel built from ``np.mgrid``, the Sobel gradient magnitude, a bilateral filter
(range weights from the centre pixel), a median filter over reflected windows, unsharp
masking with ``np.clip``, histogram equalisation by ``np.cumsum`` and ``np.interp``, and a
total-variation denoiser by gradient descent with ``np.roll`` differences."""

import numpy as np


def gaussian_kernel(size, sigma):
    ax = np.arange(-(size // 2), size // 2 + 1)
    xx, yy = np.meshgrid(ax, ax)
    k = np.exp(-(xx**2 + yy**2) / (2.0 * sigma**2))
    return k / np.sum(k)


def gaussian_kernel_mgrid(size, sigma):
    r = size // 2
    y, x = np.mgrid[-r : r + 1, -r : r + 1]
    g = np.exp(-(x**2 + y**2) / (2 * sigma**2))
    return g / g.sum()


def filter2d(image, kernel, mode="edge"):
    kh, kw = kernel.shape
    ph, pw = kh // 2, kw // 2
    padded = np.pad(image, ((ph, ph), (pw, pw)), mode=mode)
    out = np.zeros_like(image, dtype=float)
    H, W = image.shape
    for i in range(H):
        for j in range(W):
            out[i, j] = np.sum(padded[i : i + kh, j : j + kw] * kernel)
    return out


def sobel_magnitude(image):
    Kx = np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], dtype=float)
    Ky = Kx.T
    gx = filter2d(image, Kx, mode="reflect")
    gy = filter2d(image, Ky, mode="reflect")
    return np.hypot(gx, gy)


def bilateral(image, size, sigma_s, sigma_r):
    r = size // 2
    padded = np.pad(image, r, mode="symmetric")
    out = np.empty(image.shape)
    spatial = gaussian_kernel(size, sigma_s) * np.sum(np.exp(-(np.arange(1) ** 2)))
    for i in range(image.shape[0]):
        for j in range(image.shape[1]):
            window = padded[i : i + size, j : j + size]
            rng_w = np.exp(-((window - image[i, j]) ** 2) / (2 * sigma_r**2))
            w = spatial * rng_w
            out[i, j] = (w * window).sum() / w.sum()
    return out


def median_filter(image, size=3):
    r = size // 2
    padded = np.pad(image, r, mode="reflect")
    out = np.zeros(image.shape)
    for i in range(image.shape[0]):
        for j in range(image.shape[1]):
            out[i, j] = np.median(padded[i : i + size, j : j + size])
    return out


def unsharp_mask(image, sigma=1.0, amount=1.5):
    blurred = filter2d(image, gaussian_kernel_mgrid(5, sigma))
    sharp = image + amount * (image - blurred)
    return np.clip(sharp, 0.0, 1.0)


def equalize(image, nbins=16):
    hist, bins = np.histogram(image.ravel(), nbins, range=(0.0, 1.0))
    cdf = hist.cumsum()
    cdf = cdf / cdf[-1]
    centers = 0.5 * (bins[:-1] + bins[1:])
    return np.interp(image.ravel(), centers, cdf).reshape(image.shape)


def tv_denoise(noisy, weight=0.1, n_iter=30, step=0.1, eps=1e-3):
    u = noisy.copy()
    for _ in range(n_iter):
        ux = np.roll(u, -1, axis=1) - u
        uy = np.roll(u, -1, axis=0) - u
        norm = np.sqrt(ux**2 + uy**2 + eps**2)
        px, py = ux / norm, uy / norm
        div = px - np.roll(px, 1, axis=1) + py - np.roll(py, 1, axis=0)
        u -= step * ((u - noisy) - weight * div)
    return u


def test_image(n=8, seed=0):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:n, 0:n] / n
    return np.clip(
        0.5 + 0.4 * np.sin(3 * x) * np.cos(2 * y) + 0.05 * rng.standard_normal((n, n)), 0, 1
    )
