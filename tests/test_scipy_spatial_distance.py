"""``ftransforms.scipy.spatial.distance``: cdist/pdist/squareform and the two-vector
distances on tracers.  Oracles: SciPy's values, float64 central differences, a Python
loop for vmap; and SciPy's own names reaching them under the transforms."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.spatial.distance as sd

import ftransforms as ft
import ftransforms.scipy.spatial.distance as fd

RNG = np.random.default_rng(0)
XA, XB = RNG.normal(size=(5, 3)), RNG.normal(size=(4, 3))
W = RNG.uniform(0.5, 2.0, size=3)

METRICS = [
    ("euclidean", {}),
    ("sqeuclidean", {}),
    ("cityblock", {}),
    ("chebyshev", {}),
    ("minkowski", {"p": 3}),
    ("minkowski", {"p": 1.5, "w": W}),
    ("cosine", {}),
    ("correlation", {}),
    ("braycurtis", {}),
    ("canberra", {}),
    ("seuclidean", {}),
    ("seuclidean", {"V": W}),
    ("mahalanobis", {}),
    ("hamming", {}),
    ("euclidean", {"w": W}),
    ("cityblock", {"w": W}),
    ("cosine", {"w": W}),
    ("correlation", {"w": W}),
    ("chebyshev", {"w": W}),
    ("canberra", {"w": W}),
    ("braycurtis", {"w": W}),
]


@pytest.mark.parametrize("metric,kw", METRICS, ids=[f"{m}-{sorted(k)}" for m, k in METRICS])
def test_values_equal_scipy(metric, kw):
    np.testing.assert_allclose(
        fd.cdist(XA, XB, metric, **kw), sd.cdist(XA, XB, metric, **kw), rtol=1e-12, atol=1e-14
    )
    np.testing.assert_allclose(
        fd.pdist(XA, metric, **kw), sd.pdist(XA, metric, **kw), rtol=1e-12, atol=1e-14
    )
    if metric not in ("seuclidean", "mahalanobis"):
        np.testing.assert_allclose(
            getattr(fd, metric)(XA[0], XB[1], **kw),
            getattr(sd, metric)(XA[0], XB[1], **kw),
            rtol=1e-12,
        )


def test_callable_metric_and_squareform_equal_scipy():
    def quartic(u, v):
        return np.sum((u - v) ** 4)

    np.testing.assert_allclose(fd.cdist(XA, XB, quartic), sd.cdist(XA, XB, quartic))
    np.testing.assert_allclose(fd.pdist(XA, quartic), sd.pdist(XA, quartic))
    v = sd.pdist(XA)
    np.testing.assert_array_equal(fd.squareform(v), sd.squareform(v))
    np.testing.assert_array_equal(fd.squareform(sd.squareform(v)), v)


def _fd_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[idx] = eps
        g[idx] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


def test_gradients_equal_finite_differences():
    def f(x):
        return (
            np.exp(-fd.cdist(x, XB, "sqeuclidean")).sum()
            + fd.pdist(x, "cosine").sum()
            + fd.squareform(fd.pdist(x, "minkowski", p=3))[0].sum()
        )

    np.testing.assert_allclose(ft.grad(f)(XA), _fd_grad(f, XA), rtol=1e-6, atol=1e-9)


def test_zero_distance_has_a_finite_gradient():
    g = ft.grad(lambda x: fd.cdist(x, x).sum())(XA)  # the diagonal's distances are 0
    assert np.isfinite(g).all()
    off = lambda x: sd.pdist(x).sum() * 2  # noqa: E731  (the same sum without the diagonal)
    np.testing.assert_allclose(g, _fd_grad(off, XA), rtol=1e-6)


def test_vmap_equals_the_loop():
    stacks = RNG.normal(size=(3, 4, 5))
    np.testing.assert_allclose(
        ft.vmap(lambda x: fd.pdist(x, "correlation"))(stacks),
        [sd.pdist(x, "correlation") for x in stacks],
        rtol=1e-12,
        atol=1e-15,
    )


def test_scipys_own_names_reach_them_under_the_transforms():
    def f(x):  # an RBF kernel as written with SciPy
        return np.exp(-sd.cdist(x, x, "sqeuclidean") / 2).sum() + sd.squareform(sd.pdist(x)).sum()

    np.testing.assert_allclose(ft.grad(f)(XA), _fd_grad(f, XA), rtol=1e-6, atol=1e-9)
    stacks = RNG.normal(size=(2, 4, 3))
    np.testing.assert_allclose(
        ft.jit(lambda x: sd.cdist(x, XB))(stacks[0]), sd.cdist(stacks[0], XB)
    )
    np.testing.assert_allclose(
        ft.vmap(lambda x: sd.pdist(x))(stacks), [sd.pdist(x) for x in stacks]
    )


def test_bad_input_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown metric 'nope'"):
        fd.cdist(XA, XB, "nope")
    with pytest.raises(ValueError, match="same number of columns"):
        fd.cdist(XA, XB[:, :2])
    with pytest.raises(ValueError, match=r"m \(m - 1\) / 2"):
        fd.squareform(np.ones(4))
