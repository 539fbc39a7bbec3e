"""SciPy users, round 12: derivatives in shape parameters (betainc in a and b and the
distribution functions built on it), ..."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sl
import scipy.special as sp
import scipy.stats as st

import ftransforms as ft
from ftransforms.core.stack import current_stack
from ftransforms.errors import UnsupportedOperationError


def _central(f, x, h):
    return (f(x + h) - f(x - h)) / (2 * h)


# -- betainc in a and b (NOTE [betainc in a and b]) -------------------------------------------

#: (a, b, x, dI/da, dI/db): mpmath's diff of its betainc at 40 digits
BETAINC_REFERENCE = [
    (2.0, 3.0, 0.4, -0.24086937608755657, 0.15634433641359877),
    (0.5, 0.5, 0.9, -0.2768155243583512, 0.5926200221433794),
    (0.1, 5.0, 0.01, -2.066012355850319, 0.016147841083269478),
    (30.0, 40.0, 0.5, -0.025039368671131827, 0.021652489043227995),
    (100.0, 2.0, 0.97, -0.004367071583510549, 0.1891241980111736),
    (1000.0, 1000.0, 0.49, -0.006041047012048269, 0.005921424296404131),
    (2.0, 3.0, 1e-5, -6.557669175898806e-09, 3.4999133339583333e-10),
]


def test_betainc_derivative_in_a_and_b_matches_mpmath():
    a, b, x, da, db = (np.array(c) for c in zip(*BETAINC_REFERENCE))
    ga, gb = ft.vmap(ft.grad(sp.betainc, argnums=(0, 1)))(a, b, x)
    np.testing.assert_allclose(ga, da, rtol=1e-10)
    np.testing.assert_allclose(gb, db, rtol=1e-10)
    # forward mode, and the large-parameter path (differences of SciPy's betainc)
    for a, b, x in [(2.0, 3.0, 0.4), (2e4, 3e4, 0.41)]:
        t = ft.jvp(lambda p, q: sp.betainc(p, q, x), (a, b), (1.0, 0.0))[1]
        assert t == pytest.approx(_central(lambda p: sp.betainc(p, b, x), a, 1e-6 * a), rel=1e-6)


def test_betainc_mixed_derivative_and_refused_second_order():
    def da(a, x):
        return ft.grad(sp.betainc, argnums=0)(a, 3.0, x)

    got = ft.grad(da, argnums=1)(2.0, 0.4)
    assert got == pytest.approx(_central(lambda x: da(2.0, x), 0.4, 1e-5), rel=1e-7)
    with pytest.raises(UnsupportedOperationError, match="a to second order"):
        ft.hessian(sp.betainc)(2.0, 3.0, 0.4)
    assert current_stack() == ()


@pytest.mark.parametrize(
    "name,args",
    [
        ("stdtr", (4.5, -0.7)),
        ("stdtrit", (4.5, 0.8)),
        ("fdtr", (3.0, 7.0, 1.4)),
        ("fdtri", (3.0, 7.0, 0.6)),
        ("betaincinv", (2.0, 3.0, 0.4)),
        ("chdtr", (3.5, 2.0)),
        ("gdtr", (1.5, 2.5, 1.2)),
        ("gammaincinv", (2.5, 0.4)),
    ],
)
def test_distribution_functions_in_their_shape_parameters(name, args):
    f = getattr(sp, name)
    for i in range(len(args)):
        h = 1e-5 * max(1.0, abs(args[i]))

        def along(t, i=i):
            return f(*args[:i], t, *args[i + 1 :])

        got = ft.grad(along)(args[i])
        assert got == pytest.approx(_central(along, args[i], h), rel=1e-6), (name, i)


def test_welch_t_test_p_value_differentiates_in_the_samples():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=8), rng.normal(size=6) + 0.5

    def p(x):
        return st.ttest_ind(x, y, equal_var=False).pvalue

    g = ft.grad(p)(x)
    want = [_central(lambda t: p(x + t * e), 0.0, 1e-6) for e in np.eye(8)]
    np.testing.assert_allclose(g, want, rtol=1e-6)
    # and the t distribution's cdf in df
    got = ft.grad(lambda df: st.t.cdf(1.3, df))(4.5)
    assert got == pytest.approx(_central(lambda df: st.t.cdf(1.3, df), 4.5, 1e-5), rel=1e-6)


# -- pinv / lstsq across a cut of non-zero singular values -------------------------------------


def _with_singular_values(s, shape, seed):
    rng = np.random.default_rng(seed)
    q1, _ = np.linalg.qr(rng.normal(size=(shape[0], shape[0])))
    q2, _ = np.linalg.qr(rng.normal(size=(shape[1], shape[1])))
    d = np.zeros(shape)
    np.fill_diagonal(d, s)
    return q1 @ d @ q2.T


def _central_grad(f, a, h=1e-6):
    g = np.zeros_like(a)
    for i in np.ndindex(a.shape):
        e = np.zeros_like(a)
        e[i] = h
        g[i] = (f(a + e) - f(a - e)) / (2 * h)
    return g


PINV_CUTS = [
    ("np.pinv rcond", lambda a: np.linalg.pinv(a, rcond=0.1)),
    ("scipy pinv atol", lambda a: sl.pinv(a, atol=0.1)),
    ("scipy pinv rtol", lambda a: sl.pinv(a, rtol=0.1)),
    ("np.lstsq rcond", lambda a: np.linalg.lstsq(a, np.arange(1.0, 6.0), rcond=0.1)[0]),
    ("scipy lstsq cond", lambda a: sl.lstsq(a, np.arange(1.0, 6.0), cond=0.1)[0]),
]


@pytest.mark.parametrize("name,fn", PINV_CUTS, ids=[c[0] for c in PINV_CUTS])
def test_pinv_derivative_across_dropped_nonzero_singular_values(name, fn):
    # singular values 0.05 and 0.02 fall under the cut: the pseudo-inverse is that of the
    # rank-2 truncation, and its derivative couples the kept and the dropped directions
    a = _with_singular_values([3.0, 1.0, 0.05, 0.02], (5, 4), seed=1)
    w = np.random.default_rng(2).normal(size=fn(a).shape)

    def f(a):
        return (fn(a) * w).sum()

    want = _central_grad(f, a)
    np.testing.assert_allclose(ft.grad(f)(a), want, rtol=1e-7, atol=1e-8)
    d = np.random.default_rng(3).normal(size=a.shape)
    assert ft.jvp(f, (a,), (d,))[1] == pytest.approx((want * d).sum(), rel=1e-7)


def test_pinv_derivative_at_repeated_singular_values_and_under_vmap_and_jit():
    w = np.random.default_rng(4).normal(size=(4, 4))

    def f(a, fn=sl.pinv):
        return (fn(a) * w).sum()

    # scipy.linalg.pinv composed from the SVD divided by s_i**2 - s_j**2 = 0 (9.56 for 5.95)
    a = _with_singular_values([1.0, 1.0, 1.0, 1.0], (4, 4), seed=5)
    np.testing.assert_allclose(ft.grad(f)(a), _central_grad(f, a), rtol=1e-7, atol=1e-8)
    b = _with_singular_values([2.0, 2.0, 1e-3, 1e-3], (4, 4), seed=6)
    fb = lambda a: f(a, lambda a: sl.pinv(a, rtol=0.1))  # noqa: E731
    np.testing.assert_allclose(ft.grad(fb)(b), _central_grad(fb, b), rtol=1e-6, atol=1e-8)
    # a batch with one matrix cut and one not, and a jit recording replayed on the other
    g = lambda a: (np.linalg.pinv(a, rcond=0.1) * w).sum()  # noqa: E731
    batch = np.stack(
        [
            _with_singular_values([3.0, 1.0, 0.5, 0.2], (4, 4), seed=7),
            _with_singular_values([3.0, 1.0, 0.05, 0.02], (4, 4), seed=8),
        ]
    )
    want = np.stack([_central_grad(g, m) for m in batch])
    np.testing.assert_allclose(ft.vmap(ft.grad(g))(batch), want, rtol=1e-7, atol=1e-8)
    jg = ft.jit(ft.grad(g))
    jg(batch[0])
    np.testing.assert_allclose(jg(batch[1]), want[1], rtol=1e-7, atol=1e-8)


# -- scipy.stats.f and skewnorm on tracers --------------------------------------------------------

DIST_CASES = [
    ("f", 1.3, (4.0, 7.0)),
    ("f", 0.2, (1.5, 3.0)),
    ("skewnorm", 0.3, (1.5,)),
    ("skewnorm", -1.1, (-2.5,)),
]


@pytest.mark.parametrize("name,x,shapes", DIST_CASES)
def test_f_and_skewnorm_methods_in_every_parameter(name, x, shapes):
    dist = getattr(st, name)
    loc, scale = 0.2, 1.3
    for method in ("logpdf", "cdf", "sf", "logsf", "ppf", "isf"):
        at = 0.3 if method in ("ppf", "isf") else x * scale + loc
        params = [at, *shapes, loc, scale]

        def f(*p, method=method):
            return getattr(dist, method)(*p[:-2], loc=p[-2], scale=p[-1])

        for i in range(len(params)):

            def along(t, i=i, f=f):
                return f(*params[:i], t, *params[i + 1 :])

            h = 1e-6 * max(1.0, abs(params[i]))
            got = ft.grad(along)(params[i])
            assert got == pytest.approx(_central(along, params[i], h), rel=1e-6, abs=1e-9), (
                method,
                i,
            )
    xs = np.array([-1.0, 0.0, 0.5, 2.0, 6.0])
    for method in ("logpdf", "cdf", "sf"):
        got = ft.vmap(lambda v, method=method: getattr(dist, method)(v, *shapes))(xs)
        want = [getattr(dist, method)(v, *shapes) for v in xs]
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-300)


def test_f_test_p_value_differentiates_in_the_degrees_of_freedom():
    def p(dfn, dfd):
        return st.f.sf(2.7, dfn, dfd)

    gn, gd = ft.grad(p, argnums=(0, 1))(3.0, 12.0)
    assert gn == pytest.approx(_central(lambda v: p(v, 12.0), 3.0, 1e-5), rel=1e-6)
    assert gd == pytest.approx(_central(lambda v: p(3.0, v), 12.0, 1e-5), rel=1e-6)


# -- scipy.interpolate.lagrange with a zero data value ---------------------------------------------


def test_lagrange_keeps_the_derivative_of_a_zero_data_value():
    import scipy.interpolate as si

    x = np.linspace(0.0, 1.5, 4)
    y = np.sin(x) + 0.1 * x  # y[0] == 0.0: SciPy's poly1d(w[0]) drops it

    def at(w):
        return si.lagrange(x, w)(1.3)

    # the gradient is the Lagrange basis at 1.3: prod_k (1.3 - x_k) / (x_j - x_k)
    want = [np.prod([(1.3 - x[k]) / (x[j] - x[k]) for k in range(4) if k != j]) for j in range(4)]
    np.testing.assert_allclose(ft.grad(at)(y), want, rtol=1e-12)
    rows = np.stack([y, y[::-1]])
    got = ft.vmap(lambda w: si.lagrange(x, w).coeffs)(rows)
    np.testing.assert_array_equal(got, [si.lagrange(x, r).coeffs for r in rows])


# -- scipy.stats.lmoment and cramervonmises on tracers ---------------------------------------------


def _grad_matches_central(f, x, rtol):
    want = np.array([_central(lambda t: f(x + t * e), 0.0, 1e-6) for e in np.eye(x.size)])
    np.testing.assert_allclose(ft.grad(f)(x), want, rtol=rtol, atol=1e-9)


@pytest.mark.parametrize("kwargs", [{}, {"order": [1, 2]}, {"order": 3, "standardize": False}])
def test_lmoment_values_derivatives_and_batches(kwargs):
    x = np.random.default_rng(5).normal(size=10)
    weights = np.arange(1.0, 1.0 + np.size(st.lmoment(x, **kwargs)))
    _grad_matches_central(lambda v: (st.lmoment(v, **kwargs) * weights).sum(), x, 1e-6)
    m = np.random.default_rng(6).normal(size=(2, 3, 6))
    for axis, keepdims in [(1, False), (0, True), (None, False)]:
        got = ft.vmap(lambda a: st.lmoment(a, axis=axis, keepdims=keepdims, **kwargs))(m)
        want = [st.lmoment(a, axis=axis, keepdims=keepdims, **kwargs) for a in m]
        np.testing.assert_allclose(got, want, rtol=1e-12, equal_nan=True)


@pytest.mark.parametrize("n,shift", [(12, 0.0), (12, 0.8), (5, 0.3), (40, 0.2)])
def test_cramervonmises_statistic_and_p_value(n, shift):
    x = np.random.default_rng(n).normal(size=n) + shift
    for field in ("statistic", "pvalue"):
        _grad_matches_central(
            lambda v, field=field: getattr(st.cramervonmises(v, "norm"), field), x, 1e-6
        )
    rows = np.stack([x, 1.3 * x + 0.1])
    got = ft.vmap(lambda r: st.cramervonmises(r, st.norm.cdf, args=(0.1, 1.2)).pvalue)(rows)
    want = [st.cramervonmises(r, st.norm.cdf, args=(0.1, 1.2)).pvalue for r in rows]
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize(
    "name,f,x",
    [
        ("nbdtr", lambda p: sp.nbdtr(3, 5, p), 0.4),
        ("nbdtrc", lambda p: sp.nbdtrc(3, 5, p), 0.4),
        ("ndtri_exp", sp.ndtri_exp, -0.4),
        ("ndtri_exp far", sp.ndtri_exp, -30.0),
    ],
)
def test_nbdtr_and_ndtri_exp_derivatives_to_second_order(name, f, x):
    h = 1e-6 * max(1.0, abs(x))
    assert ft.grad(f)(x) == pytest.approx(_central(f, x, h), rel=1e-7)
    assert ft.grad(ft.grad(f))(x) == pytest.approx(_central(ft.grad(f), x, h), rel=1e-7)


def test_hypergeom_on_traced_counts():
    ks = np.array([-1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 7.0])
    for args in [(20, 7, 12), (10, 4, 3), (5, 5, 2)]:
        for method in ("logpmf", "pmf", "cdf", "sf"):
            got = ft.vmap(lambda k, m=method, a=args: getattr(st.hypergeom, m)(k, *a))(ks)
            want = getattr(st.hypergeom, method)(ks, *args)
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
    draws = np.array([3.0, 4.0])
    np.testing.assert_allclose(
        ft.vmap(lambda n: st.hypergeom.var(20, 7, n))(draws), st.hypergeom.var(20, 7, draws)
    )
