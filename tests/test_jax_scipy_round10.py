"""jax.scipy's and jax.image's remaining names, round 10: what JAX programs call that
ftransforms lacked, against JAX (x64) and SciPy value by value, derivatives against JAX
or float64 central differences, ``vmap`` against the loop, ``jit`` against eager.

* ``ft.image.resize`` / ``scale_and_translate`` (``jax.image``);
* ``ft.scipy.cluster.vq.vq`` and ``scipy.cluster.vq.vq`` on tracers.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest
import scipy.cluster.vq

import ftransforms as ft
from ftransforms.image import resize, scale_and_translate

jax.config.update("jax_enable_x64", True)

RNG = np.random.default_rng(10)


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

# JAX compiles each resize (seconds on a loaded machine): the fast tests compare a few
# methods with JAX in one compiled call and every method with a per-sample NumPy loop of
# the definition; test_every_method_against_jax (slow) compares them all with JAX.


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


def test_resize_and_scale_and_translate_equal_jax():
    s, t = np.array([1.7, 0.6]), np.array([0.3, -1.2])
    cases = [("linear", True), ("cubic-pytorch", False), ("area", True), ("nearest", True)]

    def jax_all(x, s, t):
        out = [jax.image.resize(x, (3, 11), m, antialias=a) for m, a in cases]
        return out + [jax.image.scale_and_translate(x, (6, 5), (0, 1), s, t, "area", False)]

    theirs = jax.jit(jax_all)(IMAGE, s, t)
    ours = [resize(IMAGE, (3, 11), m, antialias=a) for m, a in cases]
    ours += [scale_and_translate(IMAGE, (6, 5), (0, 1), s, t, "area", False)]
    for a, b in zip(ours, theirs):
        close(a, b)
    for alias, name in [("bilinear", "linear"), ("trilinear", "linear"), ("bicubic", "cubic")]:
        close(resize(IMAGE, (3, 9), alias), resize(IMAGE, (3, 9), name))


@pytest.mark.slow
def test_every_method_against_jax():
    x = RNG.normal(size=(5, 7, 2))
    s, t = np.array([1.7, 0.6]), np.array([0.3, -1.2])
    for method in METHODS:
        for shape in [(3, 4, 2), (9, 11, 2), (2, 13, 2)]:
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
