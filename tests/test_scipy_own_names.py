"""SciPy's own names, reached through its modules and distribution objects, compute on
tracers (NOTE [SciPy's own names under the transforms] in ftransforms/scipy/own_names.py).

Oracles: SciPy itself on plain arrays for values (a Python loop for vmap), float64 central
differences for derivatives, the eager call for jit on new inputs.  Outside the
transforms the wrappers call SciPy's own functions."""

from __future__ import annotations

import inspect
import pickle

import numpy as np
import pytest
import scipy.linalg
import scipy.special
import scipy.stats

import ftransforms as ft

X = np.array([0.3, -0.7, 1.2])
XS = np.stack([X, 0.5 * X + 0.1])

PROGRAMS = {
    "norm.logpdf(x, loc, scale)": lambda v: scipy.stats.norm.logpdf(
        X, loc=v[0], scale=v[1] ** 2 + 1
    ).sum(),
    "t.logpdf": lambda v: scipy.stats.t.logpdf(v, df=3.0).sum(),
    "gamma.logpdf(shape)": lambda v: scipy.stats.gamma.logpdf(1.5, a=v**2 + 1.0).sum(),
    "norm(frozen).cdf": lambda v: scipy.stats.norm(v[0], 2.0).cdf(X).sum(),
    "beta.sf(x)": lambda v: scipy.stats.beta.sf(1 / (1 + np.exp(-v)), 2.0, 3.0).sum(),
    "poisson.logpmf(mu)": lambda v: scipy.stats.poisson.logpmf(2, v**2 + 0.5).sum(),
    "multivariate_normal.logpdf": lambda v: scipy.stats.multivariate_normal.logpdf(
        X, mean=v, cov=np.eye(3) + 0.1
    ),
    "special.logsumexp": lambda v: scipy.special.logsumexp(v * X),
    "special.softmax": lambda v: scipy.special.softmax(v)[0],
    "linalg.solve": lambda v: scipy.linalg.solve(np.eye(3) * 3 + np.outer(v, v), v).sum(),
    "linalg.cho_solve(cho_factor)": lambda v: scipy.linalg.cho_solve(
        scipy.linalg.cho_factor(np.eye(3) * 2 + np.outer(v, v)), X
    ).sum(),
    "linalg.expm": lambda v: scipy.linalg.expm(0.2 * np.outer(v, X)).sum(),
    "linalg.det": lambda v: scipy.linalg.det(np.eye(3) + np.outer(v, v)),
}


def _fd(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(len(x))])


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_scipy_names_compute_on_tracers(name):
    f = PROGRAMS[name]
    np.testing.assert_allclose(ft.grad(f)(X), _fd(f, X), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(ft.vmap(f)(XS), [f(r) for r in XS], rtol=1e-12)
    np.testing.assert_allclose(ft.jit(f)(XS[1]), f(XS[1]), rtol=1e-12)


def test_outside_the_transforms_scipy_computes_as_its_own():
    ft.grad(lambda v: scipy.linalg.solve(np.eye(3), v).sum())(X)  # wrappers installed
    seen = []

    def f(v):
        seen.append(scipy.linalg.solve.__wrapped__)
        return scipy.linalg.solve(np.eye(3), v).sum()

    ft.grad(f)(X)
    theirs = seen[0]
    assert theirs.__module__.startswith("scipy.linalg")  # SciPy's function, wrapped
    assert inspect.signature(scipy.linalg.solve) == inspect.signature(theirs)
    # the wrappers pickle by reference, as SciPy's functions and methods do
    for obj in (scipy.linalg.solve, scipy.special.logsumexp):
        assert pickle.loads(pickle.dumps(obj)) is obj
    logpdf = pickle.loads(pickle.dumps(scipy.stats.norm.logpdf))
    assert logpdf(0.3) == scipy.stats.norm.logpdf(0.3)
    # outside the transforms, every argument goes to SciPy's own code, tracer or not
    a = np.array([[2.0, 1.0], [1.0, 3.0]])
    np.testing.assert_array_equal(scipy.linalg.solve(a, [1.0, 2.0]), theirs(a, [1.0, 2.0]))
    leaked = []
    ft.grad(lambda v: leaked.append(v) or v.sum())(X)
    with pytest.raises(TypeError):  # a leaked tracer: SciPy's own error, no counterpart
        scipy.linalg.solve(np.eye(3), leaked[0])
    # plain arguments inside a transform still reach SciPy's own code
    out = ft.grad(lambda v: v.sum() * scipy.stats.norm.logpdf(0.3))(X)
    np.testing.assert_allclose(out, np.full(3, scipy.stats.norm.logpdf(0.3)))


MOMENTS = {
    "norm mean+var+std": lambda m: st_norm(m).mean() + st_norm(m).var() + st_norm(m).std(),
    "norm entropy in scale": lambda s: scipy.stats.norm(0.0, s).entropy(),
    "gamma mean and var": lambda a: scipy.stats.gamma(a).mean() + scipy.stats.gamma.var(a),
    "lognorm median": lambda s: scipy.stats.lognorm.median(s, scale=2.0 + s),
    "t entropy": lambda df: scipy.stats.t(df).entropy(),
    "poisson var": lambda mu: scipy.stats.poisson(mu).var(),
    "uniform std": lambda w: scipy.stats.uniform(0.0, w).std(),
}


def st_norm(m):
    return scipy.stats.norm(m * m, 2.0)


@pytest.mark.parametrize("name", sorted(MOMENTS))
def test_distribution_moments_and_entropy_on_tracers(name):
    f = MOMENTS[name]
    x = 1.5
    np.testing.assert_allclose(ft.grad(f)(x), (f(x + 1e-6) - f(x - 1e-6)) / 2e-6, rtol=1e-6)
    xs = np.array([1.2, 1.5, 2.5])
    np.testing.assert_allclose(ft.vmap(f)(xs), [f(v) for v in xs], rtol=1e-12)
