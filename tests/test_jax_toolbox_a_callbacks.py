"""JAX's transform toolbox, part a (issue 24): pure_callback, debug.print/callback, and the
SciPy fixes (odeint with pytree arguments, multivariate_normal with a singular cov);
against JAX (x64) and SciPy, under vmap, grad and jit, and on the strict CuPy stand-in."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.integrate
import scipy.special
import scipy.stats

import ftransforms as ft
import ftransforms.numpy as fnp
from ftransforms.errors import CallbackError, UnsupportedOperationError
from ftransforms.scipy.integrate import odeint
from ftransforms.scipy.stats import multivariate_normal as mvn
from ftransforms.strict_backend import StrictArray, asarray

rng = np.random.default_rng(2424)


# -- pure_callback -----------------------------------------------------------------------


def _pure(api, vmap_method, log):
    """``x * y`` computed by a host callback that logs the shapes it gets."""

    def callback(x, y):
        log.append((np.shape(x), np.shape(y)))
        return np.asarray(x) * np.asarray(y)

    def fun(x, y):
        shape = np.broadcast_shapes(np.shape(x), np.shape(y))
        out = api.ShapeDtypeStruct(shape, np.float64)
        return api.pure_callback(callback, out, x, y, vmap_method=vmap_method)

    return fun


@pytest.mark.parametrize(
    "method",
    ["sequential", "sequential_unrolled", "expand_dims", "broadcast_all", "legacy_vectorized"],
)
@pytest.mark.parametrize("in_axes", [(0, None), (0, 0), (1, None)])
def test_pure_callback_vmap_matches_jax(method, in_axes):
    ours_log, jax_log = [], []
    x = rng.normal(size=(3, 4)) if in_axes[0] == 0 else rng.normal(size=(4, 3))
    y = rng.normal(size=4) if in_axes[1] is None else rng.normal(size=(3, 4))
    ours = ft.vmap(_pure(ft, method, ours_log), in_dims=in_axes)(x, y)
    theirs = jax.vmap(_pure(jax, method, jax_log), in_axes=in_axes)(x, y)
    np.testing.assert_allclose(ours, np.asarray(theirs))
    assert ours_log == jax_log  # the same calls with the same shapes


def test_pure_callback_nested_vmap_and_jit_replays():
    log = []
    f = _pure(ft, "expand_dims", log)
    x = rng.normal(size=(2, 3, 4))
    jlog = []
    want = jax.vmap(jax.vmap(_pure(jax, "expand_dims", jlog)))(x, x)
    np.testing.assert_allclose(ft.vmap(ft.vmap(f))(x, x), np.asarray(want))
    assert log == jlog
    calls = []

    def counted(x):
        calls.append(1)
        return np.sin(x)

    g = ft.jit(lambda x: ft.pure_callback(counted, ft.ShapeDtypeStruct((3,), np.float64), x) * 2)
    for _k in range(3):
        v = rng.normal(size=3)
        np.testing.assert_allclose(g(v), 2 * np.sin(v))
    assert len(calls) == 3  # called on every call: recorded once, replayed twice
    empty = ft.vmap(_pure(ft, "sequential", []))(np.ones((0, 3)), np.ones((0, 3)))
    assert empty.shape == (0, 3)  # no call, as JAX's scan of length 0
    h = ft.jit(ft.vmap(_pure(ft, "sequential", []), in_dims=(0, None)))
    for _ in range(2):
        a, b = rng.normal(size=(5, 2)), rng.normal(size=2)
        np.testing.assert_allclose(h(a, b), a * b)


def test_pure_callback_without_vmap_method_or_derivative_raises():
    f = _pure(ft, None, [])
    with pytest.raises(UnsupportedOperationError, match=r"^vmap: pure_callback\(callback"):
        ft.vmap(f)(np.ones(2), np.ones(2))
    with pytest.raises(NotImplementedError):  # as JAX raises
        jax.vmap(_pure(jax, None, []))(np.ones(2), np.ones(2))
    for transform in (
        lambda g: ft.grad(lambda x: g(x, 2.0).sum())(np.ones(2)),
        lambda g: ft.jvp(lambda x: g(x, 2.0), (np.ones(2),), (np.ones(2),)),
        lambda g: ft.jacrev(lambda x: g(x, 2.0))(np.ones(2)),
        lambda g: ft.vmap(ft.grad(lambda x: g(x, 2.0).sum()))(np.ones((2, 2))),
    ):
        with pytest.raises(CallbackError, match="has no derivative rule"):
            transform(_pure(ft, "sequential", []))
    # a wrong result is a clear error, as JAX's "Incorrect output dtype"
    bad = ft.ShapeDtypeStruct((3,), np.float32)
    with pytest.raises(CallbackError, match="float64.*float32"):
        ft.pure_callback(lambda x: np.sin(x), bad, np.ones(3))
    with pytest.raises(CallbackError, match=r"shape \(2,\)"):
        ft.pure_callback(lambda x: x[:2], ft.ShapeDtypeStruct((3,), np.float64), np.ones(3))
    with pytest.raises(ValueError, match="vmap_method must be one of"):
        ft.pure_callback(np.sin, bad, np.ones(3), vmap_method="loop")


def _gammaln(api, cj):
    """SciPy's gammaln through a callback, with its derivative (digamma) by custom_jvp."""

    def call(fn, x):
        return api.pure_callback(
            fn, api.ShapeDtypeStruct(np.shape(x), np.float64), x, vmap_method="expand_dims"
        )

    @cj
    def gammaln(x):
        return call(scipy.special.gammaln, x)

    @gammaln.defjvp
    def _(primals, tangents):
        (x,), (t,) = primals, tangents
        return gammaln(x), call(scipy.special.digamma, x) * t

    return gammaln


def test_pure_callback_with_custom_rules_matches_jax():
    ours = _gammaln(ft, ft.custom_jvp)
    theirs = _gammaln(jax, jax.custom_jvp)
    x = rng.uniform(0.5, 4.0, size=5)
    np.testing.assert_allclose(ours(x), np.asarray(theirs(x)))
    np.testing.assert_allclose(
        ft.grad(lambda x: ours(x).sum())(x), np.asarray(jax.grad(lambda x: theirs(x).sum())(x))
    )
    np.testing.assert_allclose(
        ft.jit(ft.vmap(ft.grad(ours)))(x), np.asarray(jax.jit(jax.vmap(jax.grad(theirs)))(x))
    )

    # custom_vjp around a callback: the derivative by a second callback
    @ft.custom_vjp
    def erf(x):
        return ft.pure_callback(scipy.special.erf, ft.ShapeDtypeStruct(x.shape, x.dtype), x)

    erf.defvjp(
        lambda x: (erf(x), x),
        lambda x, g: (g * 2 / np.sqrt(np.pi) * np.exp(-(x**2)),),
    )
    np.testing.assert_allclose(
        ft.grad(lambda x: erf(x).sum())(x), 2 / np.sqrt(np.pi) * np.exp(-(x**2))
    )


def test_pure_callback_strict_backend():
    seen = []

    def host(x):
        seen.append(type(x))
        return scipy.special.gammaln(x)

    x = asarray(rng.uniform(1.0, 3.0, size=(4, 2)))

    def f(v):
        return ft.pure_callback(
            host, ft.ShapeDtypeStruct(v.shape, np.float64), v, vmap_method="broadcast_all"
        )

    out = ft.vmap(f)(x)
    assert type(out) is StrictArray and seen == [np.ndarray]  # the callback got the host
    np.testing.assert_allclose(out.get(), scipy.special.gammaln(x.get()))
    out = ft.jit(f)(x)
    assert type(out) is StrictArray
    # Python and NumPy numbers beside device arrays: constants, not a second backend
    scaled = ft.pure_callback(
        lambda a, k, j: a * k * j, ft.ShapeDtypeStruct((4, 2), np.float64), x, 2.0, np.float64(0.5)
    )
    assert type(scaled) is StrictArray
    np.testing.assert_allclose(scaled.get(), x.get())


# -- debug.print / debug.callback --------------------------------------------------------


def _capture(fn):
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        fn()
    return buf.getvalue().splitlines()


def _printing(api):
    def f(x, y):
        api.debug.print("x={x} s={}", y.sum(), x=x)
        return x * y

    return f


@pytest.mark.parametrize(
    "wrap",
    [
        lambda api, f: f(np.float64(1.5), np.arange(3.0)),
        lambda api, f: api.vmap(f, in_axes=(0, None))(np.arange(3.0), np.ones(2)),
        lambda api, f: api.vmap(api.vmap(f, in_axes=(0, None)), in_axes=(0, None))(
            np.arange(4.0).reshape(2, 2), np.ones(2)
        ),
        lambda api, f: api.grad(lambda x: f(x, np.arange(2.0)).sum())(2.0),
        lambda api, f: api.jvp(lambda x: f(x, np.ones(2)), (2.0,), (1.0,)),
        lambda api, f: api.vmap(api.grad(lambda x, y: f(x, y).sum()), in_axes=(0, None))(
            np.arange(2.0), np.ones(3)
        ),
    ],
    ids=["plain", "vmap", "nested_vmap", "grad", "jvp", "vmap_grad"],
)
def test_debug_print_matches_jax(wrap):
    ours = _capture(lambda: wrap(ft, _printing(ft)))
    theirs = _capture(lambda: wrap(jax, _printing(jax)))
    assert ours == theirs and ours


def test_debug_fires_on_every_jit_call():
    def f(x):
        ft.debug.print("row {}", x.sum())
        return x + 1

    jf = ft.jit(f)
    lines = _capture(lambda: [jf(np.full(2, float(k))) for k in range(3)])
    assert lines == ["row 0.0", "row 2.0", "row 4.0"]
    assert len(jf.cache) == 1  # one recording, replayed
    seen = []
    jv = ft.jit(ft.vmap(lambda x: (ft.debug.callback(seen.append, x), x * 2)[1]))
    jv(np.arange(3.0))
    jv(np.arange(3.0) + 10)
    assert [float(s) for s in seen] == [0.0, 1.0, 2.0, 10.0, 11.0, 12.0]
    # the equation is in the program though no output depends on it
    assert "debug_callback" in str(ft.make_jaxpr(f)(np.ones(2)))


def test_debug_callback_kwargs_static_and_strict_backend():
    seen = []
    ft.debug.callback(
        lambda x, tag, scale=1: seen.append((tag, x * scale)), np.ones(2), "a", scale=3
    )
    assert seen[0][0] == "a" and seen[0][1].tolist() == [3.0, 3.0]
    got = []
    x = asarray(np.arange(4.0).reshape(2, 2))
    ft.vmap(lambda r: ft.debug.callback(got.append, r))(x)
    assert all(type(g) is np.ndarray for g in got)  # host arrays, as JAX gives
    assert [g.tolist() for g in got] == [[0.0, 1.0], [2.0, 3.0]]
    with pytest.raises(TypeError, match="fmt must be a str"):
        ft.debug.print(1.0)


# -- odeint with pytree arguments --------------------------------------------------------


def _dynamics(np_):
    def f(y, t, params, scale):
        w, b = params["layer"]
        return np_.tanh(w @ y + b) * scale[0] - params["decay"] * y

    return f


def _ode_params():
    return (
        {
            "layer": (rng.normal(size=(2, 2)) * 0.5, rng.normal(size=2)),
            "decay": np.array(0.3),
        },
        (np.array(1.5),),
    )


def test_odeint_pytree_args_match_jax_and_scipy():
    from jax.experimental.ode import odeint as jodeint

    params, scale = _ode_params()
    y0, t = np.array([0.5, -0.2]), np.linspace(0.0, 1.0, 4)
    ys = odeint(_dynamics(np), y0, t, params, scale, rtol=1e-10, atol=1e-10)
    flat = scipy.integrate.odeint(
        lambda y, t: _dynamics(np)(y, t, params, scale), y0, t, rtol=1e-11, atol=1e-11
    )
    np.testing.assert_allclose(ys, flat, rtol=1e-7, atol=1e-8)

    def loss(solve, np_, params, scale):
        return (solve(_dynamics(np_), y0, t, params, scale, rtol=1e-10, atol=1e-10)[-1] ** 2).sum()

    g = ft.grad(functools.partial(loss, odeint, np), argnums=(0, 1))(params, scale)
    jg = jax.grad(functools.partial(loss, jodeint, jnp), argnums=(0, 1))(params, scale)
    for a, b in zip(jax.tree_util.tree_leaves(g), jax.tree_util.tree_leaves(jg), strict=True):
        np.testing.assert_allclose(a, np.asarray(b), rtol=1e-6, atol=1e-8)
    decays = np.array([0.1, 0.5])
    out = ft.vmap(lambda d: odeint(_dynamics(np), y0, t, {**params, "decay": d}, scale)[-1])(decays)
    for k, d in enumerate(decays):
        np.testing.assert_allclose(
            out[k], odeint(_dynamics(np), y0, t, {**params, "decay": d}, scale)[-1]
        )
    jitted = ft.jit(lambda p: odeint(_dynamics(np), y0, t, p, scale))
    np.testing.assert_allclose(jitted(params), odeint(_dynamics(np), y0, t, params, scale))


def test_odeint_pytree_args_strict_backend():
    params, scale = _ode_params()
    sp = {"layer": tuple(asarray(a) for a in params["layer"]), "decay": asarray(params["decay"])}

    def f(y, t, p, s):
        w, b = p["layer"]
        return fnp.tanh(w @ y + b) * s[0] - p["decay"] * y

    y0, t = asarray(np.array([0.5, -0.2])), asarray(np.linspace(0.0, 1.0, 3))
    ys = odeint(f, y0, t, sp, (asarray(scale[0]),))
    assert type(ys) is StrictArray
    np.testing.assert_allclose(ys.get(), odeint(_dynamics(np), y0.get(), t.get(), params, scale))


# -- multivariate_normal with a singular cov ---------------------------------------------


def _singular_case():
    a = rng.normal(size=(2, 3))
    cov = a.T @ a  # rank 2 in 3 dimensions
    mean = rng.normal(size=3)
    x_in = mean + rng.normal(size=(4, 2)) @ a  # on mean + range(cov)
    return mean, cov, x_in


def test_multivariate_normal_singular_matches_scipy():
    mean, cov, x_in = _singular_case()
    want = scipy.stats.multivariate_normal.logpdf(x_in, mean, cov, allow_singular=True)
    np.testing.assert_allclose(mvn.logpdf(x_in, mean, cov, allow_singular=True), want)
    np.testing.assert_allclose(
        mvn.pdf(x_in, mean, cov, allow_singular=True),
        scipy.stats.multivariate_normal.pdf(x_in, mean, cov, allow_singular=True),
    )
    off = x_in + np.linalg.svd(cov)[0][:, -1]  # a step along the null space
    assert np.all(mvn.logpdf(off, mean, cov, allow_singular=True) == -np.inf)
    assert np.all(
        scipy.stats.multivariate_normal.logpdf(off, mean, cov, allow_singular=True) == -np.inf
    )
    np.testing.assert_allclose(
        mvn.entropy(mean, cov, allow_singular=True),
        scipy.stats.multivariate_normal(mean, cov, allow_singular=True).entropy(),
    )
    with pytest.raises(ValueError, match="positive semidefinite"):
        mvn.logpdf(x_in, mean, -cov, allow_singular=True)
    with pytest.raises(Exception):  # noqa: B017  (without allow_singular: Cholesky fails)
        mvn.logpdf(x_in, mean, cov)


def test_multivariate_normal_singular_gradients():
    mean, cov, x_in = _singular_case()

    def lp(x, mean, cov):
        return mvn.logpdf(x, mean, cov, allow_singular=True).sum()

    # x and mean: the pseudo-inverse's gradient, -pinv(cov) (x - mean), checked by FD
    # along the range (off it the density is -inf)
    g = ft.grad(lp)(x_in, mean, cov)
    np.testing.assert_allclose(g, -(x_in - mean) @ np.linalg.pinv(cov), atol=1e-8)
    np.testing.assert_allclose(ft.grad(lp, argnums=1)(x_in, mean, cov), -g.sum(0), atol=1e-8)
    # cov along a direction that keeps its range: cov(e) = a^T (I + e S) a
    u, s, _ = np.linalg.svd(cov)
    basis = u[:, :2] * np.sqrt(s[:2])  # cov = basis basis^T
    sym = rng.normal(size=(2, 2))
    sym = sym + sym.T
    direction = basis @ sym @ basis.T
    eps = 1e-6

    def along(e):
        c = basis @ (np.eye(2) + e * sym) @ basis.T
        return scipy.stats.multivariate_normal.logpdf(x_in, mean, c, allow_singular=True).sum()

    fd = (along(eps) - along(-eps)) / (2 * eps)
    gc = ft.grad(lp, argnums=2)(x_in, mean, cov)
    np.testing.assert_allclose((gc * direction).sum(), fd, rtol=1e-5)
    # a positive definite cov: the same gradient as the Cholesky path
    pd = cov + np.eye(3)
    np.testing.assert_allclose(
        ft.grad(lp, argnums=2)(x_in, mean, pd),
        ft.grad(lambda c: mvn.logpdf(x_in, mean, c).sum())(pd),
        rtol=1e-9,
    )
    # vmap over covariances of different ranks, and jit
    covs = np.stack([cov, pd])
    out = ft.vmap(lambda c: lp(x_in, mean, c))(covs)
    np.testing.assert_allclose(out, [lp(x_in, mean, c) for c in covs])
    np.testing.assert_allclose(ft.jit(lp)(x_in, mean, cov), lp(x_in, mean, cov))


def test_multivariate_normal_singular_strict_backend():
    mean, cov, x_in = _singular_case()
    out = mvn.logpdf(asarray(x_in), asarray(mean), asarray(cov), allow_singular=True)
    assert type(out) is StrictArray
    np.testing.assert_allclose(
        out.get(), scipy.stats.multivariate_normal.logpdf(x_in, mean, cov, allow_singular=True)
    )


def _loops(api):
    lax = api if api is ft else jax.lax

    def body(c, x):
        api.debug.print("step c={} x={}", c, x)
        return c + x, c * x

    return {
        "scan": lambda xs: lax.scan(body, 0.0, xs)[0],
        "cond": lambda xs: lax.cond(
            xs.sum() > 0,
            lambda v: (api.debug.print("pos {}", v), v)[1],
            lambda v: (api.debug.print("neg {}", v), -v)[1],
            xs,
        ),
        "while_loop": lambda xs: lax.while_loop(
            lambda c: c < 3.0, lambda c: (api.debug.print("w {}", c), c + 1.0)[1], xs[0]
        ),
        "fori_loop": lambda xs: lax.fori_loop(
            0, 2, lambda i, c: (api.debug.print("i {} c {}", i, c), c + xs)[1], xs
        ),
        "vmap_scan": lambda xs: api.vmap(lambda r: lax.scan(body, 0.0, r)[0])(xs.reshape(2, -1)),
        # a loop whose result is not used: its prints still run (an effect keeps it)
        "unused_loop": lambda xs: (lax.scan(body, 0.0, xs), xs * 2)[1],
    }


@pytest.mark.parametrize("case", list(_loops(ft)))
def test_debug_print_in_control_flow_matches_jax(case):
    """One line per executed step or taken branch, eagerly and on every jit call (the
    recording of loop bodies and of untaken branches does not print)."""
    inputs = [np.arange(4.0) - 1.0, -np.arange(4.0), np.arange(4.0) * 0.5]
    ours_f, jax_f = ft.jit(_loops(ft)[case]), jax.jit(_loops(jax)[case])
    for x in inputs:
        ours = _capture(lambda: ours_f(x))
        theirs = _capture(lambda: jax.block_until_ready(jax_f(x)))
        assert ours == theirs and ours
    assert _capture(lambda: _loops(ft)[case](inputs[0])) == _capture(
        lambda: _loops(jax)[case](inputs[0])
    )


def test_callbacks_under_eval_shape_and_linear_transpose():
    calls = []

    def host(x):
        calls.append(1)
        return scipy.special.gammaln(x)

    def f(x):
        ft.debug.print("never {}", x)
        return ft.pure_callback(host, ft.ShapeDtypeStruct(x.shape, x.dtype), x) * 2

    lines = _capture(lambda: ft.eval_shape(f, ft.ShapeDtypeStruct((3, 2), np.float32)))
    assert lines == [] and calls == []  # neither callback runs: shapes only
    out = ft.eval_shape(f, ft.ShapeDtypeStruct((3, 2), np.float32))
    assert out == ft.ShapeDtypeStruct((3, 2), np.float32)
    # a debug print in a linear function does not break the linearity check
    t = ft.linear_transpose(lambda x: (ft.debug.print("x {}", x), 2 * x)[1], np.ones(2))
    assert t(np.ones(2))[0].tolist() == [2.0, 2.0]
    with pytest.raises(ft.errors.LinearityError, match="pure_callback"):
        ft.linear_transpose(f, np.ones(2))


def test_odeint_one_tuple_argument_jax_or_scipy_reading():
    """One tuple after ``t``: JAX's reading when func takes it whole, else SciPy's."""
    from jax.experimental.ode import odeint as jodeint

    y0, t = np.array([1.0, 0.5]), np.linspace(0.0, 1.0, 3)
    k = np.array([0.3, 0.7])

    def whole(y, t, ab):  # JAX: func(y, t, (a, b))
        a, b = ab
        return -a * y + b

    ab = (k, np.array(0.1))
    np.testing.assert_allclose(
        odeint(whole, y0, t, ab), np.asarray(jodeint(whole, y0, t, ab)), rtol=1e-6
    )

    def unpacked(y, t, k):  # SciPy: odeint(f, y0, t, (k,)) calls f(y, t, k)
        return -k * y

    np.testing.assert_allclose(
        odeint(unpacked, y0, t, (k,)),
        scipy.integrate.odeint(unpacked, y0, t, (k,), rtol=1e-10, atol=1e-10),
        rtol=1e-6,
    )
    g = ft.grad(lambda k: odeint(unpacked, y0, t, (k,))[-1].sum())(k)
    np.testing.assert_allclose(g, -y0 * np.exp(-k), rtol=1e-6)


def test_odeint_autograd_ode_net_program():
    """HIPS autograd's examples/ode_net.py calls, unchanged (fewer points and steps)."""
    import warnings

    n, d = 8, 2
    t = np.linspace(0.1, 5.0, n)
    true_y0 = np.array([1.0, 0.0])

    def func(y, t):
        return np.array([np.cos(0.5 * t) * y[0] - 0.3 * y[1], y[0] * 0.1])

    true_y = odeint(func, true_y0, t, rtol=0.01)

    def init_nn_params(scale, layer_sizes, rs=np.random.RandomState(0)):  # noqa: B008
        return [
            (rs.randn(insize, outsize) * scale, rs.randn(outsize) * scale)
            for insize, outsize in zip(layer_sizes[:-1], layer_sizes[1:])
        ]

    def nn_predict(inputs, t, params):
        for w, b in params:
            outputs = np.dot(inputs, w) + b
            inputs = np.maximum(0, outputs)
        return outputs

    def ode_pred(params, target_t):
        return odeint(nn_predict, np.reshape(true_y0, (d,)), target_t, tuple((params,)), rtol=0.01)

    def train_loss(params, it):
        return np.mean(np.abs(ode_pred(params, t) - true_y))

    params = init_nn_params(0.1, layer_sizes=[d, 16, d])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no object-array or other warning on the way
        g = ft.grad(train_loss)(params, 0)
    assert [tuple(a.shape) for layer in g for a in layer] == [(2, 16), (16,), (16, 2), (2,)]
    # the gradient against JAX's odeint (the solver takes JAX's steps: NOTE [odeint steps
    # as JAX's]) on the same program in jax.numpy, SciPy's atol as ours.  A central
    # difference of the rtol=0.01 solution is no oracle at 1e-3: the adjoint gives the
    # exact solution's derivative to the solver's tolerance (JAX's is 0.6% off it too).
    from jax.experimental.ode import odeint as jax_odeint

    def jax_net(y, t, params):
        for w, b in params:
            outputs = jnp.dot(y, w) + b
            y = jnp.maximum(0, outputs)
        return outputs

    def jax_loss(params):
        y0, ts = jnp.asarray(true_y0), jnp.asarray(t)
        pred = jax_odeint(jax_net, y0, ts, params, rtol=0.01, atol=1.49012e-8)
        return jnp.mean(jnp.abs(pred - true_y))

    want = jax.grad(jax_loss)(params)  # float64: conftest enables JAX's x64
    for got_layer, want_layer in zip(g, want):
        for got, expected in zip(got_layer, want_layer):
            np.testing.assert_allclose(got, np.asarray(expected), rtol=1e-7, atol=1e-10)
