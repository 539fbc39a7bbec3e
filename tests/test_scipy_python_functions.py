"""SciPy's Python-level functions (and published-style test functions) that convert their
input with ``numpy.asarray``, under every transform: NOTE [SciPy's Python functions on
tracers] in ftransforms/core/tracer.py.

Oracles: SciPy's own derivatives (``rosen_der``/``rosen_hess``) and float64 central
differences for derivatives, the per-example loop for vmap, the plain call for values.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.linalg
import scipy.optimize as so
import scipy.stats

import ftransforms as ft
from ftransforms.core.stack import current_stack
from ftransforms.core.tracer import SLOW_SCIPY_WARNED
from ftransforms.errors import PerformanceWarning, TracerConversionError

X = np.array([0.5, 1.3, 0.7, 1.1])
XS = np.array([[0.5, 1.3, 0.7, 1.1], [-0.4, 0.2, 1.5, 0.9], [1.0, 1.0, 1.0, 1.0]])


@pytest.fixture(autouse=True)
def _quiet_and_clean():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PerformanceWarning)
        yield
    assert not current_stack()


def fd_jac(f, x, h=1e-5):
    """Central differences (float64) of ``f`` at ``x``: shape ``f(x).shape + x.shape``."""
    cols = []
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = h
        cols.append((np.asarray(f(x + e), float) - np.asarray(f(x - e), float)) / (2 * h))
    return np.moveaxis(np.array(cols), 0, -1).reshape(np.shape(f(x)) + x.shape)


def close(a, b, rtol=1e-7, atol=1e-9):
    a = np.asarray(a)
    assert a.dtype != object, "an object array escaped the transform"
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def test_rosen_under_grad_jacrev_jacfwd_hessian_matches_scipy_and_finite_differences():
    close(ft.grad(so.rosen)(X), so.rosen_der(X))
    close(ft.grad(so.rosen)(X), fd_jac(so.rosen, X), rtol=1e-6)
    close(ft.jacrev(so.rosen_der)(X), so.rosen_hess(X))
    close(ft.jacfwd(so.rosen_der)(X), so.rosen_hess(X))
    close(ft.hessian(so.rosen)(X), so.rosen_hess(X))
    close(ft.jacrev(so.rosen_hess)(X), fd_jac(so.rosen_hess, X), rtol=1e-6, atol=1e-6)
    g, value = ft.grad_and_value(so.rosen)(X)  # torch.func's order
    close(value, so.rosen(X))
    close(g, so.rosen_der(X))


def test_rosen_under_jvp_vjp_linearize_matches_finite_differences():
    t = np.array([0.3, -1.0, 0.5, 2.0])
    out, tan = ft.jvp(so.rosen, (X,), (t,))
    close(out, so.rosen(X))
    close(tan, fd_jac(so.rosen, X) @ t, rtol=1e-6)
    out, pullback = ft.vjp(so.rosen_der, X)
    close(out, so.rosen_der(X))
    close(pullback(t)[0], so.rosen_hess(X).T @ t)
    out, push = ft.linearize(so.rosen_der, X)
    close(push(t), so.rosen_hess(X) @ t)


def test_rosen_under_vmap_matches_the_loop():
    close(ft.vmap(so.rosen)(XS), [so.rosen(x) for x in XS])
    close(ft.vmap(so.rosen_der)(XS), [so.rosen_der(x) for x in XS])
    close(ft.vmap(ft.grad(so.rosen))(XS), [so.rosen_der(x) for x in XS])
    close(ft.vmap(so.rosen_hess)(XS), [so.rosen_hess(x) for x in XS])
    close(ft.vmap(ft.hessian(so.rosen))(XS), [so.rosen_hess(x) for x in XS])


def test_rosen_under_jit_matches_eager():
    close(ft.jit(ft.grad(so.rosen))(X), so.rosen_der(X))
    close(ft.jit(ft.grad(so.rosen))(XS[1]), so.rosen_der(XS[1]))  # no stale replay
    close(ft.jit(so.rosen)(XS[1]), so.rosen(XS[1]))


def test_rosen_hess_prod_differentiates_in_the_point():
    p = np.array([1.0, -2.0, 0.5, 0.25])

    def hp(x):
        return so.rosen_hess_prod(x, p)

    close(ft.jacrev(hp)(X), fd_jac(hp, X), rtol=1e-6, atol=1e-6)
    close(ft.jacfwd(hp)(X), fd_jac(hp, X), rtol=1e-6, atol=1e-6)


def test_slow_path_warns_once_per_function_naming_it():
    SLOW_SCIPY_WARNED.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ft.grad(so.rosen)(X)
        ft.grad(so.rosen)(X)
        ft.jacrev(so.rosen_der)(X)
    messages = [str(w.message) for w in caught if issubclass(w.category, PerformanceWarning)]
    assert len(messages) == 2, messages
    assert "scipy.optimize.rosen converts" in messages[0]
    assert "scipy.optimize.rosen_der converts" in messages[1]
    assert all("ftransforms.numpy" in m for m in messages)


# SciPy's function objects bound before any transform ran are redirected to the
# counterpart (NOTE [SciPy's function objects bound before the first transform]); SciPy's
# own code behind them (``__wrapped__``, read inside the transform) meets the tracer.
_BOUND_DET = scipy.linalg.det
_BOUND_NORM_LOGPDF = scipy.stats.norm.logpdf
_BOUND_MINIMIZE = so.minimize  # bound before any transform ran


@pytest.mark.parametrize(
    "call, named, fix",
    [
        (
            lambda x: _BOUND_DET.__wrapped__(x.reshape(2, 2)),
            "scipy.linalg.det",
            "Call ftransforms.scipy.linalg.det instead (the same signature)",
        ),
        (
            lambda x: _BOUND_NORM_LOGPDF.__func__.__wrapped__(scipy.stats.norm, x).sum(),
            "scipy.stats.norm.logpdf",
            "ftransforms",
        ),
    ],
)
def test_compiled_routines_and_functions_with_counterparts_keep_a_clear_error(call, named, fix):
    for transform in (ft.grad, ft.jacfwd, ft.vmap):
        with pytest.raises(TracerConversionError) as info:
            transform(call)(X if transform is not ft.vmap else XS)
        msg = str(info.value)
        assert named in msg and fix in msg, msg
        assert not current_stack()
    close(ft.grad(so.rosen)(X), so.rosen_der(X))  # the next call works


def test_minimize_bound_before_any_transform_is_answered():
    """``so.minimize`` held since import (NOTE [SciPy's function objects bound before the
    first transform]) computes under vmap as the loop over rows does."""
    starts = XS[:2] * 0.5
    got = ft.vmap(lambda x0: _BOUND_MINIMIZE(so.rosen, x0, method="BFGS").x)(starts)
    want = [so.minimize(so.rosen, x0, method="BFGS").x for x0 in starts]
    close(got, want, rtol=1e-5)


# Published-style optimisation test functions (formulas from Jamil & Yang's survey, written
# as NumPy users write them: the input converted with np.asarray first).


def ackley(x):
    x = np.asarray(x)
    n = x.size
    return (
        -20 * np.exp(-0.2 * np.sqrt(np.sum(x**2) / n))
        - np.exp(np.sum(np.cos(2 * np.pi * x)) / n)
        + 20
        + np.e
    )


def rastrigin(x):
    x = np.asarray(x)
    return 10 * x.size + np.sum(x**2 - 10 * np.cos(2 * np.pi * x))


def griewank(x):
    x = np.asarray(x)
    i = np.arange(1, x.size + 1)
    return np.sum(x**2) / 4000 - np.prod(np.cos(x / np.sqrt(i))) + 1


def levy(x):
    x = np.asarray(x)
    w = 1 + (x - 1) / 4
    return (
        np.sin(np.pi * w[0]) ** 2
        + np.sum((w[:-1] - 1) ** 2 * (1 + 10 * np.sin(np.pi * w[:-1] + 1) ** 2))
        + (w[-1] - 1) ** 2 * (1 + np.sin(2 * np.pi * w[-1]) ** 2)
    )


def styblinski_tang(x):
    x = np.asarray(x)
    return 0.5 * np.sum(x**4 - 16 * x**2 + 5 * x)


def zakharov(x):
    x = np.asarray(x)
    s = np.sum(0.5 * np.arange(1, x.size + 1) * x)
    return np.sum(x**2) + s**2 + s**4


def dixon_price(x):
    x = np.asarray(x)
    i = np.arange(2, x.size + 1)
    return (x[0] - 1) ** 2 + np.sum(i * (2 * x[1:] ** 2 - x[:-1]) ** 2)


def michalewicz(x):
    x = np.asarray(x)
    i = np.arange(1, x.size + 1)
    return -np.sum(np.sin(x) * np.sin(i * x**2 / np.pi) ** 20)


def salomon(x):
    x = np.asarray(x)
    r = np.sqrt(np.sum(x**2))
    return 1 - np.cos(2 * np.pi * r) + 0.1 * r


def trid(x):
    x = np.atleast_1d(np.asarray(x))
    return np.sum((x - 1) ** 2) - np.sum(x[1:] * x[:-1])


def qing(x):
    x = np.asarray(x)
    return np.sum((x**2 - np.arange(1.0, x.size + 1)) ** 2)


def sum_squares_of_pairs(x):
    x = np.asarray(x).reshape(-1, 2)
    return np.sum(np.log1p(np.dot(x, np.array([1.0, 2.0])) ** 2))


TEST_FUNCTIONS = [
    ackley,
    rastrigin,
    griewank,
    levy,
    styblinski_tang,
    zakharov,
    dixon_price,
    michalewicz,
    salomon,
    trid,
    qing,
    sum_squares_of_pairs,
    so.rosen,
]


@pytest.mark.parametrize("f", TEST_FUNCTIONS, ids=lambda f: f.__name__)
def test_published_test_functions_differentiate_and_batch(f):
    close(ft.grad(f)(X), fd_jac(f, X), rtol=1e-5, atol=1e-7)
    t = np.array([0.3, -1.0, 0.5, 2.0])
    close(ft.jvp(f, (X,), (t,))[1], fd_jac(f, X) @ t, rtol=1e-5, atol=1e-7)
    close(ft.vmap(f)(XS), [f(x) for x in XS])
    close(ft.vmap(ft.grad(f))(XS), [fd_jac(f, x) for x in XS], rtol=1e-5, atol=1e-7)


def test_an_error_inside_a_scipy_function_on_the_object_path_says_so():
    # scipy.stats.chatterjeexi (no counterpart in ftransforms.scipy.stats; tvar and
    # cramervonmises, used here before, have one now) runs on the object array, then fails
    # inside SciPy with NumPy's own error: the error leaving the transform carries a note
    # naming the function and the fix.
    with pytest.raises(Exception) as info:
        ft.grad(lambda v: scipy.stats.chatterjeexi(v, X[::-1]).statistic ** 3)(X)
    notes = getattr(info.value, "__notes__", [])
    assert any("scipy.stats.chatterjeexi" in n and "ftransforms.numpy" in n for n in notes), notes
    assert not current_stack()

    # ... and a later, unrelated error carries no such note
    def unrelated(v):
        raise ValueError("an unrelated error")

    with pytest.raises(ValueError, match="unrelated") as info:
        ft.grad(unrelated)(X)
    assert not getattr(info.value, "__notes__", [])
