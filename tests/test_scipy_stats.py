"""``ftransforms.scipy.stats`` beyond the op database (``tests/op_db_scipy.py``): every
method of every distribution against SciPy (inside and outside the support, invalid
parameters), derivatives in every argument against ``jax.scipy.stats`` where JAX has the
method and float64 finite differences elsewhere (the quantiles' implicit derivatives to
second order), ``vmap`` against a loop, ``jit``, errors, and SciPy as an optional
dependency."""

from __future__ import annotations

import subprocess
import sys
import warnings

import jax
import jax.numpy as jnp
import jax.scipy.stats as jst
import numpy as np
import pytest
import scipy.stats as st

import ftransforms as ft
import ftransforms.numpy as fnp
from ftransforms.scipy import stats as fs
from ftransforms.testing import check_grads, check_vmap
from tests.tolerances import tol

jax.config.update("jax_enable_x64", True)

T64 = tol(np.float64)
RNG = np.random.default_rng(5)

#: name -> (shape parameters, x points including outside the support)
CONT = {
    "norm": ((), [-3.0, -0.4, 0.0, 1.2, 6.0]),
    "cauchy": ((), [-30.0, -0.4, 0.0, 1.2, 6.0]),
    "laplace": ((), [-3.0, -0.4, 0.1, 1.2, 40.0]),
    "logistic": ((), [-40.0, -0.4, 0.0, 1.2, 30.0]),
    "expon": ((), [-1.0, 0.05, 0.3, 1.2, 30.0]),
    "uniform": ((), [-1.0, 0.0, 0.3, 0.99, 1.5]),
    "lognorm": ((0.7,), [-1.0, 0.05, 0.3, 1.2, 6.0]),
    "t": ((3.5,), [-8.0, -0.4, 0.0, 1.2, 6.0]),
    "gamma": ((2.5,), [-1.0, 0.05, 0.3, 1.2, 9.0]),
    "chi2": ((3.0,), [-1.0, 0.05, 0.3, 1.2, 9.0]),
    "beta": ((2.0, 3.0), [-0.5, 0.05, 0.3, 0.9, 1.5]),
}
METHODS = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")
DISC = {
    "poisson": (2.2,),
    "binom": (4, 0.3),
    "nbinom": (3.0, 0.4),
    "geom": (0.3,),
    "bernoulli": (0.3,),
}
DMETHODS = ("logpmf", "pmf", "cdf", "logcdf", "sf", "logsf")


def close(a, b, **kw):
    a = np.asarray(a)
    np.testing.assert_allclose(a, np.asarray(b), **(kw or T64), equal_nan=True)


# -- values against SciPy ----------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(CONT))
@pytest.mark.parametrize("method", METHODS)
def test_continuous_values_match_scipy(name, method):
    shape, xs = CONT[name]
    x = np.array(xs) * 1.3 + 0.2  # through loc and scale
    got = getattr(getattr(fs, name), method)(x, *shape, loc=0.2, scale=1.3)
    expected = getattr(getattr(st, name), method)(x, *shape, loc=0.2, scale=1.3)
    close(got, expected, rtol=1e-9, atol=1e-300)


@pytest.mark.parametrize("name", sorted(CONT))
def test_continuous_ppf_matches_scipy(name):
    shape, _ = CONT[name]
    q = np.array([0.0, 1e-6, 0.1, 0.5, 0.93, 1.0])
    got = getattr(fs, name).ppf(q, *shape, loc=-0.3, scale=2.0)
    close(got, getattr(st, name).ppf(q, *shape, loc=-0.3, scale=2.0), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", sorted(DISC))
@pytest.mark.parametrize("method", DMETHODS + ("ppf",))
def test_discrete_values_match_scipy(name, method):
    params = DISC[name]
    if method == "ppf":
        k = np.array([0.0, 0.05, 0.3, 0.5, 0.93, 1.0])
    else:
        k = np.array([-1.0, 0.0, 1.0, 2.0, 2.5, 3.0, 7.0])
    got = getattr(getattr(fs, name), method)(k, *params, loc=1)
    expected = getattr(getattr(st, name), method)(k, *params, loc=1)
    close(got, expected, rtol=1e-9, atol=1e-300)


def test_float32_in_float32_out():
    """SciPy computes in float64; here float32 operands give float32 results (the dtype of
    the floating-point operands), within float32 accuracy of SciPy's."""
    x = np.array([0.3, 0.8, 1.7], np.float32)
    cases = [
        (fs.norm.logpdf, st.norm.logpdf, (x,)),
        (fs.gamma.cdf, st.gamma.cdf, (x, 2.5)),
        (fs.t.logpdf, st.t.logpdf, (x, 3.0)),
        (fs.beta.ppf, st.beta.ppf, (x / 2, 2.0, 3.0)),
        (fs.poisson.pmf, st.poisson.pmf, (np.arange(3), np.float32(2.2))),
        (fs.expon.logcdf, st.expon.logcdf, (x,)),
    ]
    for ours, theirs, args in cases:
        got = ours(*args)
        assert got.dtype == np.float32, (ours, got.dtype)
        close(got, theirs(*args), rtol=2e-6, atol=1e-6)


def test_invalid_parameters_give_nan_as_in_scipy():
    close(fs.norm.logpdf(1.0, scale=-1.0), st.norm.logpdf(1.0, scale=-1.0))
    close(fs.gamma.cdf(1.0, -2.0), st.gamma.cdf(1.0, -2.0))
    close(fs.beta.ppf(1.5, 2.0, 2.0), st.beta.ppf(1.5, 2.0, 2.0))
    close(fs.binom.pmf(1, 4, 1.5), st.binom.pmf(1, 4, 1.5))
    close(fs.poisson.logpmf(1, -1.0), st.poisson.logpmf(1, -1.0))


def test_multivariate_values_match_scipy():
    x = RNG.standard_normal((5, 3))
    mean = RNG.standard_normal(3)
    a = RNG.standard_normal((3, 3))
    cov = a @ a.T + np.eye(3)
    mvn, smvn = fs.multivariate_normal, st.multivariate_normal
    close(mvn.logpdf(x, mean, cov), smvn.logpdf(x, mean, cov))
    close(mvn.pdf(x[0], mean, cov), smvn.pdf(x[0], mean, cov))
    close(mvn.logpdf(x, mean, 2.0), smvn.logpdf(x, mean, 2.0))
    close(mvn.logpdf(x, mean, np.array([1.0, 2.0, 3.0])), smvn.logpdf(x, mean, [1.0, 2.0, 3.0]))
    close(mvn.entropy(mean, cov), smvn.entropy(mean, cov))
    w = RNG.uniform(0.2, 1.0, (3, 4))
    w /= w.sum(0)
    alpha = np.array([0.8, 2.0, 3.5])
    close(fs.dirichlet.logpdf(w, alpha), st.dirichlet.logpdf(w, alpha))
    close(fs.dirichlet.pdf(w[:, 0], alpha), st.dirichlet.pdf(w[:, 0], alpha))


# -- derivatives against JAX ---------------------------------------------------------------

#: (name, method, shape parameters): JAX has them with derivatives in every argument
JAX_CASES = [("norm", m, ()) for m in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")] + [
    ("cauchy", "logpdf", ()),
    ("cauchy", "cdf", ()),
    ("laplace", "logpdf", ()),
    ("laplace", "cdf", ()),
    ("logistic", "logpdf", ()),
    ("logistic", "cdf", ()),
    ("logistic", "sf", ()),
    ("expon", "logpdf", ()),
    ("expon", "logsf", ()),
    ("uniform", "logpdf", ()),
    ("uniform", "cdf", ()),
    ("t", "logpdf", (3.5,)),
    ("gamma", "logpdf", (2.5,)),
    ("chi2", "logpdf", (3.0,)),
    ("beta", "logpdf", (2.0, 3.0)),
]


@pytest.mark.parametrize("name,method,shape", JAX_CASES, ids=lambda v: str(v))
def test_gradients_match_jax(name, method, shape):
    x = np.array([0.35, 0.6, 0.8])

    def f(m, x, loc, scale, *sh):
        return m.sum(getattr(getattr(m.stats, name), method)(x, *sh, loc=loc, scale=scale))

    class F:
        sum = staticmethod(fnp.sum)
        stats = fs

    class J:
        sum = staticmethod(jnp.sum)
        stats = jst

    args = (x, 0.1, 0.9) + tuple(float(s) for s in shape)
    argnums = tuple(range(len(args)))
    ours = ft.grad(lambda *a: f(F, *a), argnums=argnums)(*args)
    theirs = jax.jit(jax.grad(lambda *a: f(J, *a), argnums=argnums))(*args)
    for o, t in zip(ours, theirs):
        close(o, np.asarray(t), rtol=1e-9, atol=1e-12)


def test_gamma_family_shape_derivatives_first_order():
    """gammainc's derivative in a (first order, from ftransforms.scipy.special): the cdfs of
    gamma and chi2 against JAX, and the gamma quantile's implicit derivative in a against
    finite differences of SciPy's quantile."""
    x = np.array([0.4, 1.3, 3.0])

    def loss(m, a, df):
        return m.sum(m.st.gamma.cdf(x, a, scale=1.2) + m.st.chi2.logsf(x, df))

    class F:
        sum = staticmethod(fnp.sum)
        st = fs

    class J:
        sum = staticmethod(jnp.sum)
        st = jst

    ours = ft.grad(lambda a, df: loss(F, a, df), argnums=(0, 1))(2.5, 3.0)
    theirs = jax.jit(jax.grad(lambda a, df: loss(J, a, df), argnums=(0, 1)))(2.5, 3.0)
    close(ours, [np.asarray(t) for t in theirs], rtol=1e-9, atol=1e-12)
    q, a, h = np.array([0.2, 0.6]), 2.5, 1e-5
    fd = (st.gamma.ppf(q, a + h) - st.gamma.ppf(q, a - h)) / (2 * h)
    close(ft.jacfwd(lambda a: fs.gamma.ppf(q, a))(a), fd, rtol=1e-7, atol=1e-9)
    close(ft.jacrev(lambda a: fs.gamma.ppf(q, a))(a), fd, rtol=1e-7, atol=1e-9)


def test_discrete_gradients_match_jax():
    k = np.array([0, 1, 3])
    cases = [
        (lambda m, p: m.poisson.logpmf(k, p), 2.2),
        (lambda m, p: m.binom.logpmf(k, 4, p), 0.3),
        (lambda m, p: m.nbinom.logpmf(k, 3.0, p), 0.4),
        (lambda m, p: m.geom.logpmf(k + 1, p), 0.3),
        (lambda m, p: m.bernoulli.logpmf(np.minimum(k, 1), p), 0.3),
        (lambda m, p: m.poisson.cdf(k, p), 2.2),
    ]
    ps = tuple(p for _, p in cases)
    ours = ft.grad(
        lambda *ps: sum(fnp.sum(f(fs, p)) for (f, _), p in zip(cases, ps)),
        argnums=tuple(range(len(ps))),
    )(*ps)
    theirs = jax.jit(
        jax.grad(
            lambda *ps: sum(jnp.sum(f(jst, p)) for (f, _), p in zip(cases, ps)),
            argnums=tuple(range(len(ps))),
        )
    )(*ps)
    for o, t in zip(ours, theirs):
        close(o, np.asarray(t))


def test_multivariate_gradients_match_jax():
    x = RNG.standard_normal((4, 3))
    mean = RNG.standard_normal(3)
    a = RNG.standard_normal((3, 3))

    def f(m, x, mean, a):
        cov = a @ a.T + np.eye(3)
        return m.sum(m.mvn.logpdf(x, mean, cov))

    class F:
        sum = staticmethod(fnp.sum)
        mvn = fs.multivariate_normal

    class J:
        sum = staticmethod(jnp.sum)
        mvn = jst.multivariate_normal

    ours = ft.grad(lambda *v: f(F, *v), argnums=(0, 1, 2))(x, mean, a)
    theirs = jax.jit(jax.grad(lambda *v: f(J, *v), argnums=(0, 1, 2)))(x, mean, a)
    for o, t in zip(ours, theirs):
        close(o, np.asarray(t))
    alpha = np.array([0.8, 2.0, 3.5])
    w = np.array([0.2, 0.3, 0.5])
    ours = ft.grad(lambda w, a: fs.dirichlet.logpdf(w, a), argnums=(0, 1))(w, alpha)
    theirs = jax.jit(jax.grad(lambda w, a: jst.dirichlet.logpdf(w, a), argnums=(0, 1)))(w, alpha)
    for o, t in zip(ours, theirs):
        close(o, np.asarray(t))


# -- derivatives against finite differences -----------------------------------------------


@pytest.mark.parametrize(
    "name,shape",
    [("t", (3.5,)), ("gamma", (2.5,)), ("chi2", (3.0,)), ("beta", (2.0, 3.0)), ("lognorm", (0.7,))],
)
def test_quantile_derivatives_to_second_order(name, shape):
    """The implicit-function derivatives of the SciPy-valued quantiles, in q, loc and scale
    (the shape parameters need the cdf's derivative in them, which gammainc/betainc of
    ftransforms.scipy.special do not have yet)."""
    q = np.array([0.3, 0.55, 0.7])
    dist = getattr(fs, name)
    check_grads(lambda q, loc, sc: dist.ppf(q, *shape, loc=loc, scale=sc), (q, 0.1, 1.3), eps=1e-4)


def test_quantile_derivative_in_a_shape_parameter():
    """lognorm's quantile has a closed form: its derivative in s, to second order."""
    check_grads(lambda s: fs.lognorm.ppf(np.array([0.2, 0.7]), s), (0.6,), eps=1e-4)


def test_entropy_and_logsf_derivatives():
    a = RNG.standard_normal((3, 3))
    check_grads(
        lambda mean, a: fs.multivariate_normal.entropy(mean, a @ a.T + np.eye(3)),
        (np.zeros(3), a),
    )
    check_grads(lambda x: fs.laplace.logsf(x, loc=0.1), (np.array([-1.0, 0.5, 2.0]),), eps=1e-4)


def test_discrete_quantiles_have_no_derivative():
    p = np.array([0.3, 0.6])
    g = ft.grad(lambda p: fnp.sum(fs.binom.ppf(np.array([0.2, 0.7]), 5, p)))(p)
    np.testing.assert_array_equal(g, np.zeros(2))
    g = ft.grad(lambda q: fnp.sum(fs.geom.ppf(q, 0.3)))(np.array([0.2, 0.7]))
    np.testing.assert_array_equal(g, np.zeros(2))


# -- vmap, jit -----------------------------------------------------------------------------


def test_vmap_matches_a_loop():
    x = RNG.uniform(0.2, 2.0, (4, 3))
    a = RNG.uniform(1.5, 3.0, 4)
    check_vmap(lambda x, a: fs.gamma.logpdf(x, a, scale=2.0), (x, a))
    check_vmap(lambda x, a: fs.gamma.cdf(x, a), (x.T, a), in_dims=(1, 0))
    check_vmap(lambda q, a: fs.gamma.ppf(q, a), (RNG.uniform(0.1, 0.9, (4, 2)), a))
    check_vmap(lambda p: fs.binom.cdf(np.arange(4), 3, p), (RNG.uniform(0.1, 0.9, 5),))
    mean = RNG.standard_normal((4, 3))
    check_vmap(lambda m: fs.multivariate_normal.logpdf(x[:, :3], m, np.eye(3)), (mean,))
    per_example = ft.vmap(ft.grad(lambda mu, x: fs.norm.logpdf(x, mu)), in_dims=(None, 0))
    close(per_example(0.5, np.array([0.0, 1.0])), np.array([-0.5, 0.5]))


def test_jit_replays():
    def loss(x, a):
        return fnp.sum(fs.gamma.logpdf(x, a) + fs.t.ppf(x / 4, a) + fs.norm.logcdf(x))

    f = ft.jit(ft.grad(loss))
    for x, a in ((np.array([0.5, 1.5, 2.5]), 2.0), (np.array([0.7, 1.1, 3.5]), 3.0)):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no value-dependent fallback
            got = f(x, a)
        close(got, ft.grad(loss)(x, a))


# -- frozen distributions: norm(loc, scale).logpdf(x) -------------------------------------


FROZEN = [
    ("norm", (0.5, 2.0), {}, "logpdf", np.array([-1.0, 0.3, 2.5])),
    ("norm", (), {"loc": 0.5, "scale": 2.0}, "cdf", np.array([-1.0, 0.3, 2.5])),
    ("gamma", (2.5,), {"scale": 1.5}, "logpdf", np.array([0.4, 1.3, 3.0])),
    ("t", (4.0,), {}, "sf", np.array([-1.0, 0.3, 2.5])),
    ("beta", (2.0, 3.0), {}, "ppf", np.array([0.1, 0.5, 0.8])),
    ("poisson", (3.0,), {}, "logpmf", np.array([0, 2, 5])),
    ("multivariate_normal", (np.zeros(2), np.array([[2.0, 0.3], [0.3, 1.0]])), {}, "logpdf",
     np.array([[0.5, -1.0], [1.0, 2.0]])),
]  # fmt: skip


@pytest.mark.parametrize(
    "name, args, kwargs, method, x", FROZEN, ids=[f[0] + "." + f[3] for f in FROZEN]
)
def test_frozen_distributions_match_scipy_and_the_unfrozen_call(name, args, kwargs, method, x):
    frozen = getattr(fs, name)(*args, **kwargs)
    want = getattr(getattr(st, name)(*args, **kwargs), method)(x)
    close(getattr(frozen, method)(x), want)
    if x.dtype.kind == "f":
        unfrozen = getattr(getattr(fs, name), method)
        close(
            ft.grad(lambda x: fnp.sum(getattr(frozen, method)(x)))(x),
            ft.grad(lambda x: fnp.sum(unfrozen(x, *args, **kwargs)))(x),
        )


def test_frozen_parameters_are_traced_like_jax():
    x = np.array([-1.0, 0.3, 2.5])

    def f(p):  # the published form: rv = norm(mu, sigma); rv.logpdf(data).sum()
        rv = fs.norm(p[0], np.exp(p[1]))
        return fnp.sum(rv.logpdf(x)) + rv.cdf(0.0)

    def f_jax(p):
        return jnp.sum(jst.norm.logpdf(x, p[0], jnp.exp(p[1]))) + jst.norm.cdf(
            0.0, p[0], jnp.exp(p[1])
        )

    p = np.array([0.2, 0.4])
    close(ft.grad(f)(p), jax.jit(jax.grad(f_jax))(p))
    close(ft.hessian(f)(p), jax.jit(jax.hessian(f_jax))(p))
    ps = np.array([[0.2, 0.4], [-0.5, 0.1], [1.0, -0.3]])
    close(ft.vmap(f)(ps), np.stack([f(q) for q in ps]))
    step = ft.jit(ft.grad(f))
    step(p)
    close(step(ps[1]), ft.grad(f)(ps[1]))
    mvn = lambda m: fs.multivariate_normal(mean=m, cov=np.eye(2)).logpdf(np.ones(2))  # noqa: E731
    close(ft.grad(mvn)(np.zeros(2)), np.ones(2))
    close(
        fs.multivariate_normal(np.zeros(2), 2.0).entropy(),
        st.multivariate_normal(np.zeros(2), 2.0).entropy(),
    )


def test_frozen_distribution_names_its_methods_when_one_is_missing():
    with pytest.raises(
        AttributeError,
        match=r"frozen ftransforms\.scipy\.stats\.norm has no method 'logpmf' \(it has logpdf",
    ):
        fs.norm(0.0, 1.0).logpmf(3)
    with pytest.raises(TypeError, match=r"^gamma\.logpdf: missing the shape parameter"):
        fs.gamma(scale=2.0).logpdf(1.0)


# -- errors ----------------------------------------------------------------------------------


def test_errors_name_the_call():
    with pytest.raises(TypeError, match=r"^gamma\.logpdf: missing the shape parameter"):
        fs.gamma.logpdf(1.0)
    with pytest.raises(TypeError, match=r"^norm\.cdf: unexpected keyword argument 'mu'"):
        fs.norm.cdf(1.0, mu=2.0)
    with pytest.raises(TypeError, match=r"^t\.pdf: takes 4 arguments"):
        fs.t.pdf(1.0, 2.0, 0.0, 1.0, 5.0)
    with pytest.raises(ValueError, match=r"^dirichlet\.logpdf\(x, alpha\): x must have the 3"):
        fs.dirichlet.logpdf(np.ones((2, 3)) / 3, np.ones(3))
    with pytest.raises(ValueError, match=r"^multivariate_normal\.logpdf: cov must be \(2, 2\)"):
        fs.multivariate_normal.logpdf(np.zeros(2), np.zeros(2), np.eye(3))


def test_scipy_is_optional():
    """Without SciPy the module imports, closed forms work, and what SciPy evaluates
    raises an ImportError naming the extra."""
    code = (
        "import sys; sys.modules['scipy'] = None\n"
        "import numpy as np\n"
        "from ftransforms.scipy import stats, linalg\n"
        "assert abs(float(stats.logistic.cdf(0.0)) - 0.5) < 1e-15\n"
        "assert float(linalg.det(np.eye(2))) == 1.0\n"
        "for f in (lambda: stats.gamma.ppf(0.5, 2.0), lambda: linalg.lu(np.eye(2))):\n"
        "    try:\n"
        "        f()\n"
        "    except ImportError as e:\n"
        "        assert \"pip install 'ftransforms[scipy]'\" in str(e), e\n"
        "    else:\n"
        "        raise AssertionError('no ImportError')\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr
