"""JAX's toolbox, round 10, part A: the rest of ``jax.random`` on JAX-style keys
(``ftransforms/random_distributions.py``, the rejection loops in
``ftransforms/random_rejection.py``), JAX's top-level runtime names
(``ftransforms/runtime.py``: ``disable_jit``, ``config``, ``devices``, ...),
``ftransforms.experimental.ode.odeint`` and the tree utilities' leftovers.

Oracles: SciPy's distributions (Kolmogorov-Smirnov distances with a fixed key, at level
0.001), the loop over keys or parameters for ``vmap``, eager calls for ``jit``, central
differences in float64 for the closed-form samplers, SciPy's ``gammainc`` differenced in
``a`` for gamma's implicit reparameterisation gradient, and JAX (x64) value by value in
the slow test (each JAX sampler compiles for seconds here).
"""

from __future__ import annotations

import jax
import numpy as np
import pytest
import scipy.special as sp
import scipy.stats as st

import ftransforms as ft
from ftransforms.core.stack import current_stack
from ftransforms.errors import PRNGKeyError

jax.config.update("jax_enable_x64", True)

R = ft.random
K = R.PRNGKey(3)
N = 2000
KS_BOUND = 1.95 / np.sqrt(N)  # Kolmogorov-Smirnov at level 0.001


def ks_distance(sample, cdf):
    x = np.sort(np.asarray(sample).ravel())
    n, c = x.size, cdf(x)
    return max(np.max(np.arange(1, n + 1) / n - c), np.max(c - np.arange(n) / n))


def discrete_ks(sample, cdf):
    """The largest gap between the empirical CDF and ``cdf`` at the values drawn."""
    x = np.asarray(sample).ravel()
    support = np.unique(x)
    empirical = np.searchsorted(np.sort(x), support, side="right") / x.size
    return np.max(np.abs(empirical - cdf(support)))


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
    np.testing.assert_array_equal(a, b)


def loop(f, *batched):
    return np.stack([f(*row) for row in zip(*batched, strict=True)])


# -- distributions ---------------------------------------------------------------------------


def test_continuous_samplers_against_scipy():
    ks = R.split(K, 16)
    n = (N,)
    cases = {
        "gamma small a": (R.gamma(ks[0], 0.3, n), st.gamma(0.3).cdf),
        "gamma": (R.gamma(ks[1], 4.5, n), st.gamma(4.5).cdf),
        "loggamma": (np.exp(R.loggamma(ks[2], 0.7, n)), st.gamma(0.7).cdf),
        "beta": (R.beta(ks[3], 0.5, 3.0, n), st.beta(0.5, 3.0).cdf),
        "dirichlet": (
            R.dirichlet(ks[4], np.array([1.5, 0.5, 2.0]), n)[:, 1],
            st.beta(0.5, 3.5).cdf,  # a marginal of Dirichlet(a) is Beta(a_i, sum - a_i)
        ),
        "chisquare": (R.chisquare(ks[5], 3.0, n), st.chi2(3.0).cdf),
        "t": (R.t(ks[6], 2.5, n), st.t(2.5).cdf),
        "f": (R.f(ks[7], 4.0, 7.0, n), st.f(4.0, 7.0).cdf),
        "pareto": (R.pareto(ks[8], 2.5, n), st.pareto(2.5).cdf),
        "rayleigh": (R.rayleigh(ks[9], 1.5, n), st.rayleigh(scale=1.5).cdf),
        "maxwell": (R.maxwell(ks[10], n), st.maxwell.cdf),
        "double_sided_maxwell": (
            (R.double_sided_maxwell(ks[11], 1.0, 2.0, n) - 1.0) / 2.0,
            lambda x: 0.5 + np.sign(x) * st.maxwell.cdf(np.abs(x)) / 2,
        ),
        "weibull_min": (R.weibull_min(ks[12], 2.0, 1.5, n), st.weibull_min(1.5, scale=2.0).cdf),
        "wald": (R.wald(ks[13], 0.8, n), st.invgauss(0.8).cdf),
        "triangular": (
            R.triangular(ks[14], -1.0, 0.5, 3.0, n),
            st.triang(1.5 / 4.0, loc=-1.0, scale=4.0).cdf,
        ),
        "generalized_normal": (R.generalized_normal(ks[15], 1.3, n), st.gennorm(1.3).cdf),
    }
    for name, (sample, cdf) in cases.items():
        assert sample.shape == n and sample.dtype == np.float64, name
        assert ks_distance(sample, cdf) < KS_BOUND, name
    # a point of the unit ball in d dimensions has radius r with r**d uniform
    for p in (2.0, 1.0):
        pts = R.ball(ks[0], 3, p, (N,))
        radius = np.sum(np.abs(pts) ** p, axis=-1) ** (1 / p)
        assert pts.shape == (N, 3) and radius.max() <= 1.0
        assert ks_distance(radius**3, lambda x: x) < KS_BOUND
    for name in ("gamma", "beta", "t", "chisquare", "pareto", "wald"):
        args = {"beta": (2.0, 3.0)}.get(name, (2.0,))
        assert getattr(R, name)(K, *args, (3,), np.float32).dtype == np.float32, name
    assert R.maxwell(K, (2,), np.float32).dtype == np.float32


def test_discrete_samplers_against_scipy():
    ks = R.split(K, 8)
    n = (N,)
    cases = {
        "poisson knuth": (R.poisson(ks[0], 3.5, n), st.poisson(3.5).cdf),
        "poisson rejection": (R.poisson(ks[1], 60.0, n), st.poisson(60.0).cdf),
        "binomial inversion": (R.binomial(ks[2], 12.0, 0.3, n), st.binom(12, 0.3).cdf),
        "binomial btrs": (R.binomial(ks[3], 300.0, 0.4, n), st.binom(300, 0.4).cdf),
        "binomial p > 1/2": (R.binomial(ks[4], 40.0, 0.9, n), st.binom(40, 0.9).cdf),
        "geometric": (R.geometric(ks[5], 0.3, n), st.geom(0.3).cdf),
    }
    for name, (sample, cdf) in cases.items():
        assert discrete_ks(sample, cdf) < KS_BOUND, name
    assert R.poisson(K, 2.0, (3,)).dtype == np.int64
    assert R.poisson(K, 2.0, (3,), np.int32).dtype == np.int32
    assert R.geometric(K, 0.5, (3,)).dtype == np.int64
    assert R.binomial(K, 5.0, 0.5, (3,)).dtype == np.float64
    # JAX's special values: nan for a negative count or a nan p, inf for an infinite count;
    # p = 0 and p = 1 give 0 and n
    special = R.binomial(
        K, np.array([-1.0, 5.0, np.inf, 7.0, 7.0]), np.array([0.5, np.nan, 0.5, 0.0, 1.0])
    )
    np.testing.assert_array_equal(special, [np.nan, np.nan, np.inf, 0.0, 7.0])
    same(R.poisson(K, np.zeros(4)), np.zeros(4, np.int64))
    p = np.array([0.1, 0.2, 0.0, 0.7])
    counts = R.multinomial(ks[6], 30.0, p, shape=(N, 4))
    assert counts.shape == (N, 4) and counts.dtype == np.float64
    np.testing.assert_array_equal(counts.sum(-1), np.full(N, 30.0))
    assert (counts[:, 2] == 0).all()
    for i in (0, 3):  # each count is Binomial(n, p_i)
        assert discrete_ks(counts[:, i], st.binom(30, p[i]).cdf) < KS_BOUND


def test_empty_shapes_give_empty_draws():
    # (the hash of no counters: jax.random gives empty arrays)
    assert R.split(K, 0).shape == (0, 2) and R.uniform(K, (2, 0)).shape == (2, 0)
    assert R.normal(K, (0,)).shape == (0,)
    assert R.gamma(K, 2.0, (0, 3)).shape == (0, 3)
    assert R.poisson(K, 2.0, (0,)).shape == (0,)
    assert R.binomial(K, 3.0, 0.5, (2, 0)).shape == (2, 0)
    assert R.dirichlet(K, np.ones(3), (0,)).shape == (0, 3)
    assert R.ball(K, 2, shape=(0,)).shape == (0, 2)


A3, A23 = np.array([1.0, 2.0, 3.0]), np.ones((2, 3))
SHAPE_CASES = [
    ("gamma", (A3,), {}),
    ("gamma", (2.0, (4, 3)), {}),
    ("gamma", (A23,), {"dtype": np.float32}),
    ("loggamma", (A3, (2, 3)), {}),
    ("beta", (A3, 2.0), {}),
    ("beta", (2.0, A23), {}),
    ("beta", (1.0, 2.0, (5,)), {}),
    ("dirichlet", (A3,), {}),
    ("dirichlet", (A23,), {}),
    ("dirichlet", (A3, (4, 2)), {}),
    ("chisquare", (A3,), {}),
    ("chisquare", (2.0,), {}),
    ("t", (A23,), {}),
    ("t", (2.0, (3,)), {}),
    ("f", (A3, 2.0), {}),
    ("f", (2.0, A23), {}),
    ("poisson", (A3,), {}),
    ("poisson", (2.0, (3,)), {"dtype": np.int32}),
    ("binomial", (5.0, A3 / 4), {}),
    ("binomial", (np.array([3, 4]), 0.5), {}),
    ("binomial", (5, 0.5, (2,)), {"dtype": np.float32}),
    ("multinomial", (10.0, A3 / 6), {}),
    ("multinomial", (np.array([5.0, 6.0]), np.ones((2, 3)) / 3), {}),
    ("geometric", (0.3,), {}),
    ("geometric", (A3 / 4, (2, 3)), {}),
    ("geometric", (0.3, (2,)), {"dtype": np.int32}),
    ("pareto", (A3,), {}),
    ("pareto", (2.0, (2, 3)), {}),
    ("rayleigh", (A23,), {}),
    ("maxwell", ((2,),), {}),
    ("maxwell", (), {}),
    ("double_sided_maxwell", (0.0, 1.0), {}),
    ("double_sided_maxwell", (A3, 1.0), {}),
    ("double_sided_maxwell", (A3, 1.0, (2,)), {}),
    ("weibull_min", (1.0, 2.0), {}),
    ("weibull_min", (A3, 2.0, (3,)), {}),
    ("wald", (A3,), {}),
    ("wald", (2.0, (2,)), {}),
    ("triangular", (0.0, A3 / 4, 1.0), {}),
    ("triangular", (0.0, 0.5, 1.0), {}),
    ("generalized_normal", (2.0,), {}),
    ("generalized_normal", (2.0, (2, 3)), {"dtype": np.float32}),
    ("ball", (3,), {}),
    ("ball", (3, 1.0, (2,)), {}),
    ("ball", (2,), {"dtype": np.float32}),
    ("multinomial", (10, np.array([1, 2, 3])), {}),
    ("beta", (2, 3), {}),
    ("gamma", (2,), {}),
    ("poisson", (3,), {}),
]


@pytest.mark.slow
def test_result_shapes_and_dtypes_are_jaxs():
    # jax.eval_shape traces without compiling (about 4 s of JAX's first traces here): every
    # default, broadcast and dtype rule
    for name, args, kw in SHAPE_CASES:
        try:
            out = jax.eval_shape(lambda k: getattr(jax.random, name)(k, *args, **kw), K)
            want = (out.shape, out.dtype)
        except (TypeError, ValueError) as e:
            want = type(e)
        try:
            out = getattr(R, name)(K, *args, **kw)
            got = (out.shape, out.dtype)
        except (TypeError, ValueError):
            got = want if isinstance(want, type) else "raised"
        assert got == want, (name, args, kw)


# -- under the transforms --------------------------------------------------------------------


def test_vmap_over_keys_and_parameters_is_the_loop():
    ks = R.split(K, 3)
    a = np.array([0.4, 1.0, 6.0])
    over_keys = [
        lambda k: R.gamma(k, a, (2, 3)),
        lambda k: R.loggamma(k, 0.05, (4,)),
        lambda k: R.beta(k, a, 2.0),
        lambda k: R.dirichlet(k, a, (2,)),
        lambda k: R.t(k, 3.0, (3,)),
        lambda k: R.f(k, 2.0, a),
        lambda k: R.poisson(k, np.array([1.0, 25.0]), (2, 2)),
        lambda k: R.binomial(k, np.array([5.0, 200.0]), 0.3),
        lambda k: R.multinomial(k, 8.0, np.array([0.3, 0.7])),
        lambda k: R.generalized_normal(k, 1.5, (3,)),
        lambda k: R.ball(k, 2, shape=(2,)),
        lambda k: R.wald(k, a),
    ]
    for f in over_keys:
        same(ft.vmap(f)(ks), loop(f, ks))
    over_params = [
        (lambda x: R.gamma(K, x, (2,)), a),
        (lambda x: R.poisson(K, x, (3,)), np.array([0.5, 12.0, 40.0])),
        (lambda x: R.binomial(K, x, 0.5, (2,)), np.array([3.0, 50.0, 900.0])),
        (lambda x: R.triangular(K, 0.0, x, 2.0, (2,)), np.array([0.5, 1.0, 1.5])),
    ]
    for f, xs in over_params:
        same(ft.vmap(f)(xs), loop(f, xs))
    k2 = R.split(K, (2, 3))
    nested = ft.vmap(ft.vmap(lambda k: R.gamma(k, 2.0, (2,))))
    same(nested(k2), np.stack([loop(lambda k: R.gamma(k, 2.0, (2,)), row) for row in k2]))
    same(ft.vmap(lambda k: R.gamma(k, 2.0), in_dims=1)(ks.T), loop(lambda k: R.gamma(k, 2.0), ks))


def test_jit_replays_the_draws_for_new_keys():
    traces = []

    def draws(k, a):
        traces.append(1)
        k1, k2, k3 = R.split(k, 3)
        return R.gamma(k1, a, (3,)), R.poisson(k2, 7.0 * a, (3,)), R.binomial(k3, 20.0, 0.5)

    jitted = ft.jit(draws)
    for k in R.split(K, 3):
        for got, want in zip(jitted(k, 1.5), draws(k, 1.5)):
            same(got, want)
    assert len(traces) == 1 + 3


def gamma_grad_by_differences(a, x, h=1e-6):
    """-(dP/da) / pdf at the sample, P from SciPy, dP/da by central differences."""
    dp_da = (sp.gammainc(a + h, x) - sp.gammainc(a - h, x)) / (2 * h)
    return -dp_da / st.gamma(a).pdf(x)


def test_gamma_gradient_is_the_implicit_reparameterisation():
    a = np.array([0.3, 1.0, 2.5, 40.0, 3e4, 2e6])  # (from 1e4 up: the differenced branch)
    x = R.gamma(K, a)
    g = ft.grad(lambda s: R.gamma(K, s).sum())(a)
    np.testing.assert_allclose(g, gamma_grad_by_differences(a, x, h=1e-6 * a), rtol=1e-6)
    # loggamma: d log x / da = (dx/da) / x, on loggamma's own sample
    log_x = R.loggamma(K, a)
    g_log = ft.grad(lambda s: R.loggamma(K, s).sum())(a)
    np.testing.assert_allclose(
        g_log, gamma_grad_by_differences(a, np.exp(log_x), 1e-6 * a) / np.exp(log_x), rtol=1e-6
    )
    # the reparameterisation is unbiased: E[dx/da] = dE[x]/da = 1
    draws_grad = ft.grad(lambda s: R.gamma(K, s, (N,)).sum())(2.5)
    assert abs(draws_grad / N - 1.0) < 5 * 0.03  # sd of dx/da at a = 2.5 is below 0.7
    # chisquare(df) = 2 gamma(df / 2): d/d df at its sample is gamma's at (df / 2, x / 2)
    c = R.chisquare(K, 5.0)
    np.testing.assert_allclose(
        ft.grad(lambda d: R.chisquare(K, d))(5.0), gamma_grad_by_differences(2.5, c / 2), rtol=1e-6
    )
    # per-example gradients, jit of grad, jvp
    ks = R.split(K, 3)
    per = ft.vmap(ft.grad(lambda s, k: R.gamma(k, s)), in_dims=(0, 0))(a[:3], ks)
    np.testing.assert_allclose(
        per, loop(lambda s, k: ft.grad(lambda v: R.gamma(k, v))(s), a[:3], ks)
    )
    np.testing.assert_allclose(ft.jit(ft.grad(lambda s: R.gamma(K, s).sum()))(a), g)
    _, tangent = ft.jvp(lambda s: R.gamma(K, s), (a,), (np.ones(a.size),))
    np.testing.assert_allclose(tangent, g)
    with pytest.raises(ft.errors.UnsupportedOperationError, match="second derivative"):
        ft.hessian(lambda s: R.gamma(K, s))(2.0)
    assert not current_stack()
    # beta and dirichlet are differentiable through their gammas; poisson is a count
    assert np.isfinite(ft.grad(lambda s: R.beta(K, s, 2.0))(1.5))
    assert ft.grad(lambda lam: R.poisson(K, lam) * lam)(2.0) == R.poisson(K, 2.0)
    assert not current_stack()


def fd(f, x, eps=1e-6):
    return (f(x + eps) - f(x - eps)) / (2 * eps)


def test_closed_form_samplers_differentiate_through_their_parameters():
    checks = {
        "pareto": lambda b: R.pareto(K, b, (3,)).sum(),
        "rayleigh": lambda s: R.rayleigh(K, s, (3,)).sum(),
        "weibull scale": lambda s: R.weibull_min(K, s, 1.5, (3,)).sum(),
        "weibull concentration": lambda c: R.weibull_min(K, 2.0, c, (3,)).sum(),
        "wald": lambda m: R.wald(K, m, (3,)).sum(),
        "triangular mode": lambda m: R.triangular(K, 0.0, m, 3.0, (3,)).sum(),
        "triangular right": lambda r: R.triangular(K, 0.0, 1.0, r, (3,)).sum(),
        "double_sided_maxwell": lambda s: R.double_sided_maxwell(K, 0.5, s, (3,)).sum(),
    }
    for name, f in checks.items():
        np.testing.assert_allclose(ft.grad(f)(1.7), fd(f, 1.7), rtol=1e-6, err_msg=name)


def test_keys_on_the_cupy_stand_in_give_its_arrays():
    # ftransforms.strict_backend refuses every implicit host transfer, as CuPy does: the
    # samplers' parameters are made on the key's backend, the host loops' results go back
    from ftransforms.strict_backend import StrictArray, asarray

    ks = R.split(K, 3)
    cases = [
        lambda k: R.uniform(k, (3,), minval=1.0, maxval=2.0),
        lambda k: R.randint(k, (3,), 0, 7),
        lambda k: R.gamma(k, 2.0, (3,)),
        lambda k: R.poisson(k, 2.0, (3,)),
        lambda k: R.binomial(k, 5.0, 0.5, (3,)),
        lambda k: R.beta(k, 2.0, 3.0, (3,)),
        lambda k: R.multinomial(k, 5.0, [0.2, 0.3, 0.5]),
        lambda k: R.t(k, 3.0, (3,)),
        lambda k: R.geometric(k, 0.3, (3,)),
        lambda k: R.wald(k, 1.0, (3,)),
        lambda k: R.ball(k, 2),
    ]
    for f in cases:
        out = f(asarray(K))
        assert type(out) is StrictArray
        same(out.get(), f(K))
        same(ft.vmap(f)(asarray(ks)).get(), ft.vmap(f)(ks))
    g = ft.grad(lambda a: R.gamma(asarray(K), a, (3,)).sum())(asarray(np.array(2.0)))
    np.testing.assert_allclose(g.get(), ft.grad(lambda a: R.gamma(K, a, (3,)).sum())(2.0))


def test_bad_arguments_raise_clear_errors():
    ks = R.split(K, 3)
    cases = [
        (lambda: R.gamma(ks, 2.0), "single key"),
        (lambda: R.gamma(K, 2.0, (3,), np.int32), "float"),
        (lambda: R.gamma(K, np.ones(4), (3,)), "broadcast"),
        (lambda: R.beta(K, np.ones(2), np.ones(3)), "broadcast"),
        (lambda: R.poisson(K, 2.0, (3,), np.float64), "integer"),
        (lambda: R.dirichlet(K, 1.0), "at least one dimension"),
        (lambda: R.ball(K, 2.5), "concrete integer"),
        (lambda: R.generalized_normal(K, np.ones(2)), "scalar"),
        (lambda: R.key_dtype("rbg"), "threefry2x32"),
    ]
    for call, words in cases:
        with pytest.raises(
            (PRNGKeyError, ft.errors.UnsupportedOperationError), match=words
        ) as info:
            call()
        assert str(info.value).startswith("random."), str(info.value)
    assert not current_stack()
    assert R.key_dtype() == R.key(0).dtype


# -- JAX's runtime names -----------------------------------------------------------------------


def test_disable_jit_runs_the_python_every_call():
    calls = []

    def f(x):
        calls.append(1)
        return x * 2

    jf = ft.jit(f)
    x = np.ones(2)
    jf(x), jf(x)
    assert len(calls) == 1  # recorded once, then replayed
    with ft.disable_jit():
        same(jf(x), 2 * x)
        with ft.disable_jit(False):  # JAX's argument: this block keeps jit off (outer one)
            jf(x)
        assert len(calls) == 3
    jf(x)
    assert len(calls) == 3  # replayed again after the block
    with pytest.raises(ZeroDivisionError), ft.disable_jit():
        ft.jit(lambda v: 1 / 0)(x)
    jf(x)
    assert len(calls) == 3  # the block's exception left jit on

    # a jitted function that writes into its argument leaves the caller's array alone,
    # with jit on or off
    def write(v):
        v[0] = 5.0
        return v.sum()

    with ft.disable_jit():
        assert ft.jit(write)(x) == 6.0
    same(x, np.ones(2))
    ft.config.update("jax_disable_jit", True)
    try:
        jf(x)
        assert len(calls) == 4
    finally:
        ft.config.update("jax_disable_jit", False)
    jf(x)
    assert len(calls) == 4


def test_clear_caches_and_compile_time_eval():
    calls = []
    jf = ft.jit(lambda x: calls.append(1) or x + 1)
    jf(np.ones(2)), jf(np.ones(2))
    assert len(calls) == 1 and len(jf.cache) == 1
    ft.clear_caches()
    assert len(jf.cache) == 0
    same(jf(np.ones(2)), np.full(2, 2.0))
    assert len(calls) == 2

    @ft.jit
    def g(x):
        with ft.ensure_compile_time_eval():
            n = int(np.arange(4).sum())
        return x * n

    same(g(np.ones(2)), np.full(2, 6.0))
    same(g(np.full(2, 2.0)), np.full(2, 12.0))


def test_typeof():
    for x in (np.ones((2, 3), np.float32), np.int8(3), 2.0, 7, True):
        got, want = ft.typeof(x), jax.typeof(x)
        assert got.shape == want.shape, x
        assert got.weak_type == want.weak_type, x
    assert ft.typeof(2.0).dtype == np.float64 and ft.typeof(np.ones(2, np.int32)).dtype == np.int32
    shapes = []
    ft.vmap(ft.grad(lambda x: shapes.append(ft.typeof(x)) or (x**2).sum()))(np.ones((4, 3)))
    assert shapes[0].shape == (3,) and shapes[0].dtype == np.float64
    with pytest.raises(TypeError, match="tree_map"):
        ft.typeof({"a": 1.0})


def test_devices_and_config():
    assert ft.default_backend() == "cpu"
    cpu = ft.devices()[0]
    assert ft.devices() == ft.local_devices() == [cpu] == ft.devices("cpu")
    jcpu = jax.devices("cpu")[0]
    assert (cpu.platform, cpu.id, str(cpu), repr(cpu)) == (
        jcpu.platform,
        jcpu.id,
        str(jcpu),
        repr(jcpu),
    )
    assert ft.device_count() == ft.local_device_count() == 1
    assert ft.process_index() == 0 and ft.process_count() == 1
    x = np.ones(2)
    assert ft.device_put(x, cpu) is x
    same(ft.jit(lambda v: v + 1, device=cpu)(x), x + 1)
    with pytest.raises(ft.errors.UnsupportedOperationError, match="tpu"):
        ft.devices("tpu")
    # x64: NumPy's dtypes are JAX's with x64 on
    ft.config.update("jax_enable_x64", True)
    assert ft.config.jax_enable_x64 is True and ft.config.read("jax_enable_x64") is True
    with pytest.warns(RuntimeWarning, match="no effect"):
        ft.config.update("jax_enable_x64", False)
    assert ft.config.jax_enable_x64 is True
    assert ft.numpy.asarray(1.0).dtype == np.float64 and ft.numpy.arange(3).dtype == np.int64
    ft.config.update("jax_platform_name", "cpu")
    assert ft.config.jax_platform_name == "cpu"
    assert ft.config.x64_enabled is True
    with pytest.raises(AttributeError, match="unrecognized config option"):
        ft.config.update("enable_x64", True)
    with pytest.raises(AttributeError):
        ft.config.jax_no_such_thing  # noqa: B018
    with pytest.warns(RuntimeWarning, match="does not know"):
        ft.config.update("jax_check_tracer_leaks", True)
    assert ft.config.jax_check_tracer_leaks is True
    del ft.config.values["jax_check_tracer_leaks"]


def test_experimental_odeint_is_jaxs_signature_and_gradients():
    from ftransforms.experimental.ode import odeint

    def solve(y0, t1, k):
        f = lambda y, t, k: np.stack([y[1], -k * y[0] - 0.1 * y[1]])  # noqa: E731
        return odeint(f, y0, np.array([0.0, 0.5, t1]), k, rtol=1e-10, atol=1e-10)[-1].sum()

    y0, t1, k = np.array([1.0, 0.0]), 1.3, 2.0
    gy, gt, gk = ft.grad(solve, argnums=(0, 1, 2))(y0, t1, k)
    e = np.eye(2) * 1e-6
    np.testing.assert_allclose(
        gy, [(solve(y0 + d, t1, k) - solve(y0 - d, t1, k)) / 2e-6 for d in e], rtol=1e-5
    )
    np.testing.assert_allclose(gt, fd(lambda s: solve(y0, s, k), t1), rtol=1e-5)
    np.testing.assert_allclose(gk, fd(lambda s: solve(y0, t1, s), k), rtol=1e-5)


# -- tree utilities' leftovers, against jax.tree_util -------------------------------------------


def test_tree_util_leftovers_against_jax():
    import collections
    import dataclasses
    import operator

    jtu = jax.tree_util
    tu = ft.tree_util
    point = collections.namedtuple("Point", "x y")
    trees = [{"b": [2, None], "a": 1}, [5, (6, 7)], point(1, {"k": 2}), (None, 3)]
    for tree in trees:
        pairs, aux = tu.flatten_one_level_with_keys(tree)
        jpairs, _ = jtu.flatten_one_level_with_keys(tree)
        assert [c for _, c in pairs] == [c for _, c in jpairs]
        if isinstance(tree, point):  # JAX names both fields x here; its flatten_with_path: x, y
            assert [k for k, _ in pairs] == [tu.GetAttrKey("x"), tu.GetAttrKey("y")]
        else:
            assert [jtu.keystr((k,)) for k, _ in jpairs] == [tu.keystr((k,)) for k, _ in pairs]
        assert tu.default_registry.flatten_one_level_with_keys(tree) is not None
    with pytest.raises(ValueError, match="leaf"):
        tu.flatten_one_level_with_keys(3.0)
    assert tu.default_registry.flatten_one_level(3.0) is None
    for typ in (dict, list, tuple, type(None), point, int, float, np.ndarray, str):
        assert tu.is_tree_node(typ) == jtu.is_tree_node(typ), typ
    x, y = [1, 2, (3,)], {"k": 3, "j": None}
    treedef = tu.treedef_tuple([tu.tree_structure(x), tu.tree_structure(y)])
    assert treedef == tu.tree_structure((x, y))
    assert (
        treedef.num_leaves
        == jtu.treedef_tuple([jtu.tree_structure(x), jtu.tree_structure(y)]).num_leaves
    )
    # the balanced order of JAX's reduction, seen through a non-associative operation
    concat = lambda a, b: f"({a}{b})"  # noqa: E731
    for tree in ([1, 2, 3, 4, 5], {"a": 1, "b": [2, 3]}, [7]):
        assert tu.tree_reduce_associative(concat, tree) == jtu.tree_reduce_associative(concat, tree)
        assert ft.tree.reduce_associative(operator.add, tree) == jax.tree.reduce_associative(
            operator.add, tree
        )
    assert tu.tree_reduce_associative(operator.add, [], identity=0) == 0
    with pytest.raises(TypeError, match="identity"):
        tu.tree_reduce_associative(operator.add, [])
    assert tu.KeyPath == tuple[tu.KeyEntry, ...]

    @tu.register_dataclass
    @dataclasses.dataclass
    class Layer:
        w: np.ndarray
        act: str = ft.tree.static(default="tanh")
        note: str = ft.tree.static(default="", metadata={"doc": "kept"})

    layer = Layer(np.ones(2))
    assert ft.tree.leaves(layer) == [layer.w]
    assert dataclasses.fields(Layer)[2].metadata == {"static": True, "doc": "kept"}
    g = ft.grad(lambda p: np.tanh(p.w).sum())(layer)
    assert isinstance(g, Layer) and g.act == "tanh"
    np.testing.assert_allclose(g.w, 1 - np.tanh(1.0) ** 2)

    class Box:
        def __init__(self, v):
            self.v = v

    tu.default_registry.register_node(Box, lambda b: ((b.v,), None), lambda _, c: Box(*c))
    assert tu.is_tree_node(Box) and ft.tree.leaves(Box(4.0)) == [4.0]
    assert tu.default_registry.is_node(Box)


# -- against JAX -----------------------------------------------------------------------------


@pytest.mark.slow
def test_every_new_sampler_against_jax():
    jr = jax.random
    a = np.array([0.3, 1.0, 2.5, 7.0])
    calls = {
        "gamma": lambda m, k: m.gamma(k, a, (3, 4)),
        "loggamma": lambda m, k: m.loggamma(k, a, (3, 4)),
        "beta": lambda m, k: m.beta(k, a, 2.0, (3, 4)),
        "dirichlet": lambda m, k: m.dirichlet(k, a, (5,)),
        "chisquare": lambda m, k: m.chisquare(k, a),
        "t": lambda m, k: m.t(k, a, (2, 4)),
        "f": lambda m, k: m.f(k, a, 3.0),
        "poisson": lambda m, k: m.poisson(k, np.array([0.5, 4.0, 15.0, 200.0]), (3, 4)),
        "binomial": lambda m, k: m.binomial(
            k, np.array([5.0, 30.0, 100.0, 7.0]), np.array([0.1, 0.5, 0.8, 1.0]), (2, 4)
        ),
        "multinomial": lambda m, k: m.multinomial(k, 20.0, np.array([0.1, 0.2, 0.7]), shape=(4, 3)),
        "geometric": lambda m, k: m.geometric(k, np.array([0.2, 0.7]), (3, 2)),
        "pareto": lambda m, k: m.pareto(k, a),
        "rayleigh": lambda m, k: m.rayleigh(k, a),
        "maxwell": lambda m, k: m.maxwell(k, (5,)),
        "double_sided_maxwell": lambda m, k: m.double_sided_maxwell(k, 1.0, 2.0, (5,)),
        "weibull_min": lambda m, k: m.weibull_min(k, 2.0, 1.5, (5,)),
        "wald": lambda m, k: m.wald(k, a),
        "triangular": lambda m, k: m.triangular(k, 0.0, 1.0, 3.0, (5,)),
        "generalized_normal": lambda m, k: m.generalized_normal(k, 1.5, (5,)),
        "ball": lambda m, k: m.ball(k, 3, 1.5, (4,)),
        "gamma float32": lambda m, k: m.gamma(k, a.astype(np.float32), dtype=np.float32),
        "vmap gamma": lambda m, k: (ft.vmap if m is R else jax.vmap)(lambda kk: m.gamma(kk, a))(
            m.split(k, 3)
        ),
        "vmap poisson": lambda m, k: (ft.vmap if m is R else jax.vmap)(
            lambda kk: m.poisson(kk, np.array([2.0, 30.0]))
        )(m.split(k, 3)),
        "grad gamma": lambda m, k: (ft.grad if m is R else jax.grad)(lambda s: m.gamma(k, s).sum())(
            a
        ),
        "grad loggamma": lambda m, k: (ft.grad if m is R else jax.grad)(
            lambda s: m.loggamma(k, s).sum()
        )(a),
        "grad beta": lambda m, k: (ft.grad if m is R else jax.grad)(
            lambda s: m.beta(k, s, 2.0).sum()
        )(a),
        "grad gamma large a": lambda m, k: (ft.grad if m is R else jax.grad)(
            lambda s: m.gamma(k, s).sum()
        )(np.array([2e4, 1e6, 1e8])),
        "grad dirichlet": lambda m, k: (ft.grad if m is R else jax.grad)(
            lambda s: m.dirichlet(k, s)[0]
        )(a),
        "grad t f chisquare generalized_normal": lambda m, k: (ft.grad if m is R else jax.grad)(
            lambda s: (
                m.t(k, s + 1.0).sum()
                + m.f(k, s + 1.0, 2.0 * s + 1.0).sum()
                + m.chisquare(k, s).sum()
                + m.generalized_normal(k, s[2], (3,)).sum()
            )
        )(a),
    }
    expected = jax.jit(lambda k: {n: c(jr, k) for n, c in calls.items()})(jr.PRNGKey(3))
    for name, call in calls.items():
        got, want = np.asarray(call(R, K)), np.asarray(expected[name])
        assert got.shape == want.shape and got.dtype == want.dtype, name
        if got.dtype.kind in "iu" or name in ("binomial", "multinomial"):
            np.testing.assert_array_equal(got, want, err_msg=name)
        else:
            # float64 to the last bits of log/pow (float32: pow(u, 1/a) with small a
            # magnifies one ulp of u); the gradients: JAX's series for dP/da, ours
            rtol = {"gamma float32": 1e-4, "loggamma": 1e-11}.get(name, 1e-13)
            rtol = 1e-8 if name.startswith("grad") else rtol
            rtol = 1e-7 if name == "grad gamma large a" else rtol
            np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-300, err_msg=name)


@pytest.mark.slow
def test_experimental_odeint_against_jax():
    from jax.experimental.ode import odeint as jax_odeint

    from ftransforms.experimental.ode import odeint

    def make(solver, np_):
        def solve(y0, t, k):
            f = lambda y, s, k: np_.stack([y[1], -k * y[0] - 0.1 * y[1] * s])  # noqa: E731
            return solver(f, y0, t, k, rtol=1e-10, atol=1e-10)[-1].sum()

        return solve

    y0, t, k = np.array([1.0, 0.0]), np.array([0.0, 0.4, 1.3]), 2.0
    ours = ft.grad(make(odeint, np), argnums=(0, 1, 2))(y0, t, k)
    theirs = jax.grad(make(jax_odeint, jax.numpy), argnums=(0, 1, 2))(y0, t, k)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-9)
