"""More of ``scipy.stats`` on tracers: five distributions (halfnorm, halfcauchy, rayleigh,
weibull_min, invgamma) and the summary statistics (entropy, zscore, sem, moment, skew,
kurtosis, variation, gmean).  Oracles: SciPy's values, float64 central differences for
gradients, a Python loop for vmap; and SciPy's own names reaching them under the
transforms (NOTE [SciPy's own names under the transforms])."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as ss

import ftransforms as ft
import ftransforms.scipy.stats as fs
from ftransforms.errors import UnsupportedOperationError

X = np.array([-0.5, 0.0, 0.3, 1.0, 2.5, 7.0])
Q = np.array([0.01, 0.3, 0.5, 0.9, 0.999])
DISTS = {
    "halfnorm": (),
    "halfcauchy": (),
    "rayleigh": (),
    "weibull_min": (1.7,),
    "invgamma": (2.5,),
}


def _fd(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(len(x))])


@pytest.mark.parametrize("name", sorted(DISTS))
def test_distribution_values_equal_scipy(name):
    shapes, ours, theirs = DISTS[name], getattr(fs, name), getattr(ss, name)
    kw = {"loc": 0.1, "scale": 1.3}
    with np.errstate(all="ignore"):
        for m in ("logpdf", "pdf", "cdf", "sf", "logcdf", "logsf"):
            np.testing.assert_allclose(
                getattr(ours, m)(X, *shapes, **kw),
                getattr(theirs, m)(X, *shapes, **kw),
                rtol=1e-10,
                atol=1e-300,
                err_msg=m,
            )
    for m in ("ppf", "isf"):
        np.testing.assert_allclose(
            getattr(ours, m)(Q, *shapes, **kw), getattr(theirs, m)(Q, *shapes, **kw), rtol=1e-9
        )
    for m in ("mean", "var", "std", "median", "entropy"):
        np.testing.assert_allclose(
            getattr(ours, m)(*shapes, **kw), getattr(theirs, m)(*shapes, **kw), rtol=1e-9
        )


@pytest.mark.parametrize("name", sorted(DISTS))
def test_distribution_gradients_equal_finite_differences(name):
    ours, shapes = getattr(fs, name), DISTS[name]

    def f(p):
        args = tuple(p[1:])
        return (
            ours.logpdf(X[2:], *args, loc=0.1, scale=p[0]).sum()
            + ours.logcdf(X[3:], *args, loc=0.1, scale=p[0]).sum()
            + ours.ppf(Q, *args, scale=p[0]).sum()
        )

    p0 = np.array([1.3, *shapes])
    np.testing.assert_allclose(ft.grad(f)(p0), _fd(f, p0), rtol=1e-5)


RNG = np.random.default_rng(0)
A, B = RNG.gamma(2.0, size=(5, 7)), RNG.gamma(2.0, size=(5, 7))

SUMMARIES = [
    ("entropy", lambda m, a, **k: m.entropy(a, **k)),
    ("entropy_qk", lambda m, a, **k: m.entropy(a, B, base=2, **k)),
    ("sem", lambda m, a, **k: m.sem(a, **k)),
    ("moment3", lambda m, a, **k: m.moment(a, 3, **k)),
    ("moment_center", lambda m, a, **k: m.moment(a, 2, center=0.5, **k)),
    ("skew", lambda m, a, **k: m.skew(a, **k)),
    ("skew_unbiased", lambda m, a, **k: m.skew(a, bias=False, **k)),
    ("kurtosis", lambda m, a, **k: m.kurtosis(a, **k)),
    ("kurtosis_pearson_unbiased", lambda m, a, **k: m.kurtosis(a, fisher=False, bias=False, **k)),
    ("variation", lambda m, a, **k: m.variation(a, ddof=1, **k)),
    ("gmean", lambda m, a, **k: m.gmean(a, **k)),
    ("gmean_weights", lambda m, a, **k: m.gmean(a, weights=B, **k)),
]


@pytest.mark.parametrize("name,call", SUMMARIES, ids=[s[0] for s in SUMMARIES])
@pytest.mark.parametrize("axis", [0, 1, -1, None])
@pytest.mark.parametrize("keepdims", [False, True])
def test_summary_values_equal_scipy(name, call, axis, keepdims):
    np.testing.assert_allclose(
        call(fs, A, axis=axis, keepdims=keepdims),
        call(ss, A, axis=axis, keepdims=keepdims),
        rtol=1e-10,
    )


@pytest.mark.parametrize("axis", [0, 1, None])
def test_zscore_equals_scipy(axis):
    np.testing.assert_allclose(fs.zscore(A, axis=axis, ddof=1), ss.zscore(A, axis=axis, ddof=1))


def test_entropy_broadcasts_before_normalising_as_scipy():
    np.testing.assert_allclose(fs.entropy(A[0], B[:2]), ss.entropy(A[0], B[:2]), rtol=1e-12)


def test_skew_and_kurtosis_of_constant_data_are_nan_as_scipy():
    c = np.ones((3, 4))
    c[1] = np.arange(4.0)
    with np.errstate(all="raise"):  # no division warning on the way
        ours_s, ours_k = fs.skew(c, axis=1), fs.kurtosis(c, axis=1)
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        np.testing.assert_array_equal(ours_s, ss.skew(c, axis=1))
        np.testing.assert_array_equal(ours_k, ss.kurtosis(c, axis=1))


@pytest.mark.parametrize(
    "f",
    [
        lambda p: fs.entropy(p, B[0]),
        lambda p: fs.skew(p),
        lambda p: fs.kurtosis(p, bias=False),
        lambda p: (fs.zscore(p) ** 3).sum(),
        lambda p: fs.gmean(p),
        lambda p: fs.sem(p),
    ],
    ids=["entropy", "skew", "kurtosis", "zscore", "gmean", "sem"],
)
def test_summary_gradients_equal_finite_differences(f):
    np.testing.assert_allclose(ft.grad(f)(A[0]), _fd(f, A[0]), rtol=1e-5, atol=1e-8)


def test_vmap_equals_the_loop():
    got = ft.vmap(lambda r: fs.kurtosis(r) + fs.entropy(r))(A)
    np.testing.assert_allclose(got, [ss.kurtosis(r) + ss.entropy(r) for r in A], rtol=1e-12)


def test_nan_policy_other_than_propagate_is_a_clear_error():
    with pytest.raises(UnsupportedOperationError, match=r"sem\(nan_policy='omit'\)"):
        fs.sem(A, nan_policy="omit")


def test_scipys_own_names_reach_them_under_the_transforms():
    p = np.array([0.1, 0.6, 0.3])
    f = lambda p: ss.entropy(p, A[0, :3])  # noqa: E731
    np.testing.assert_allclose(ft.grad(f)(p), _fd(f, p), rtol=1e-6)
    g = lambda c: ss.weibull_min.logpdf(X[2:], c).sum()  # noqa: E731
    np.testing.assert_allclose(
        ft.grad(g)(1.5), _fd(lambda v: g(v[0]), np.array([1.5]))[0], rtol=1e-6
    )
    h = lambda s: ss.rayleigh(scale=s).logcdf(X[2:]).sum()  # noqa: E731
    np.testing.assert_allclose(
        ft.grad(h)(1.2), _fd(lambda v: h(v[0]), np.array([1.2]))[0], rtol=1e-6
    )
    # looked up inside the function: a name bound before the transform keeps SciPy's object
    np.testing.assert_allclose(ft.vmap(lambda r: ss.skew(r))(A), ss.skew(A, axis=1), rtol=1e-12)
    jz = ft.jit(lambda a: ss.zscore(a))
    for rows in (A, B):
        np.testing.assert_allclose(jz(rows), ss.zscore(rows), rtol=1e-12)
