"""SciPy's own names, reached through its modules and distribution objects, compute on
tracers (NOTE [SciPy's own names under the transforms] in ftransforms/scipy/own_names.py).

Oracles: SciPy itself on plain arrays for values (a Python loop for vmap), float64 central
differences for derivatives, the eager call for jit on new inputs.  Outside the
transforms SciPy's own functions are in place (checked by identity)."""

from __future__ import annotations

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


def test_outside_the_transforms_scipy_is_untouched():
    originals = (
        scipy.stats.rv_continuous.__dict__["logpdf"],
        scipy.stats.rv_discrete.__dict__["logpmf"],
        scipy.special.logsumexp,
        scipy.linalg.solve,
    )
    seen = []

    def f(v):
        seen.append(scipy.linalg.solve is originals[3])
        return scipy.linalg.solve(np.eye(3), v).sum()

    ft.grad(f)(X)
    assert seen == [False]  # the counterpart answers inside
    after = (
        scipy.stats.rv_continuous.__dict__["logpdf"],
        scipy.stats.rv_discrete.__dict__["logpmf"],
        scipy.special.logsumexp,
        scipy.linalg.solve,
    )
    assert all(a is b for a, b in zip(after, originals))
    # plain arguments inside a transform still reach SciPy's own code
    out = ft.grad(lambda v: v.sum() * scipy.stats.norm.logpdf(0.3))(X)
    np.testing.assert_allclose(out, np.full(3, scipy.stats.norm.logpdf(0.3)))
