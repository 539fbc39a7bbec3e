"""``ftransforms.scipy.signal`` and ``ftransforms.scipy.integrate`` beyond the op database
(``tests/op_db_scipy.py``): convolution and correlation in every mode and method against
SciPy (n-d, complex, swapped sizes) and their gradients against ``jax.scipy.signal``;
``odeint`` against SciPy's LSODA, its adjoint gradients (in ``y0``, every time of ``t``
and every argument) against ``jax.experimental.ode.odeint``, forward sensitivities
against the adjoint, ``vmap`` (per-element step sizes) against a loop, ``jit`` replay,
and errors; the trapezoidal rules."""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import jax.scipy.signal as jss
import numpy as np
import pytest
import scipy.integrate as si
import scipy.signal as ss
from jax.experimental.ode import odeint as jodeint

import ftransforms as ft
import ftransforms.numpy as fnp
from ftransforms.scipy import integrate as fi
from ftransforms.scipy import signal as fs
from ftransforms.testing import check_grads, check_vmap

jax.config.update("jax_enable_x64", True)

RNG = np.random.default_rng(23)
T64 = {"rtol": 1e-10, "atol": 1e-12}


def close(a, b, **kw):
    for x, y in zip(
        a if isinstance(a, (tuple, list)) else [a], b if isinstance(b, (tuple, list)) else [b]
    ):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), **(kw or T64))


# -- signal --------------------------------------------------------------------------------------

SHAPES = [((7,), (3,)), ((3,), (7,)), ((5, 4), (2, 3)), ((2, 3), (5, 4)), ((4, 5, 3), (2, 2, 2))]


@pytest.mark.parametrize("s1,s2", SHAPES, ids=str)
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("method", ["direct", "fft", "auto"])
def test_convolve_and_correlate_match_scipy(s1, s2, mode, method):
    a, b = RNG.standard_normal(s1), RNG.standard_normal(s2)
    for name in ("convolve", "correlate"):
        got = getattr(fs, name)(a, b, mode=mode, method=method)
        close(got, getattr(ss, name)(a, b, mode=mode, method=method))
    close(fs.fftconvolve(a, b, mode=mode), ss.fftconvolve(a, b, mode=mode))


def test_complex_and_axes():
    z = RNG.standard_normal(6) + 1j * RNG.standard_normal(6)
    w = RNG.standard_normal(3) + 1j * RNG.standard_normal(3)
    for method in ("direct", "fft"):
        close(fs.correlate(z, w, method=method), ss.correlate(z, w, method=method))
        close(fs.convolve(z, w.real, method=method), ss.convolve(z, w.real, method=method))
    a, b = RNG.standard_normal((3, 8)), RNG.standard_normal((3, 3))
    for mode in ("full", "same", "valid"):
        close(fs.fftconvolve(a, b, mode=mode, axes=1), ss.fftconvolve(a, b, mode=mode, axes=1))
    close(fs.fftconvolve(a, b[:1], axes=-1), ss.fftconvolve(a, b[:1], axes=-1))


def test_long_inputs_choose_the_fft():
    a, b = RNG.standard_normal(4000), RNG.standard_normal(500)
    close(fs.convolve(a, b), ss.convolve(a, b), rtol=1e-9, atol=1e-10)
    assert fs._choose(fnp.asarray(a), fnp.asarray(b)) == "fft"


def test_signal_gradients_match_jax():
    """Every mode and method at once (one compiled JAX function)."""
    a, b = RNG.standard_normal((5, 4)), RNG.standard_normal((2, 3))
    modes = ("full", "same", "valid")
    cot = {m: RNG.standard_normal(ss.convolve(a, b, mode=m).shape) for m in modes}
    cases = [
        (n, mode, meth)
        for n in ("convolve", "correlate")
        for mode in modes
        for meth in ("direct", "fft")
    ]

    def loss(m, mod, a, b):
        return sum(
            m.sum(getattr(mod, n)(a, b, mode=mode, method=meth) * cot[mode])
            for n, mode, meth in cases
        )

    ours = ft.grad(lambda a, b: loss(fnp, fs, a, b), argnums=(0, 1))(a, b)
    theirs = jax.jit(jax.grad(lambda a, b: loss(jnp, jss, a, b), argnums=(0, 1)))(a, b)
    close(ours, [np.asarray(t) for t in theirs])


def test_signal_vmap_and_second_order():
    a, b = RNG.standard_normal((3, 6)), RNG.standard_normal(3)
    check_vmap(lambda a, b: fs.convolve(a, b, mode="same"), (a, b), in_dims=(0, None))
    check_vmap(lambda a, b: fs.correlate(a, b, method="fft"), (a, np.stack([b] * 3)))
    check_grads(lambda a, b: fs.fftconvolve(a, b, mode="valid"), (a[0], b), order=2)


def test_signal_errors():
    with pytest.raises(ValueError, match=r"^convolve\(in1, in2, mode='valid'\): for 'valid'"):
        fs.convolve(np.ones((2, 5)), np.ones((3, 2)), mode="valid")
    with pytest.raises(ValueError, match=r"^correlate\(in1, in2, mode='full'\): in1 and in2"):
        fs.correlate(np.ones(3), np.ones((2, 2)))
    with pytest.raises(ValueError, match=r"^convolve\(in1, in2, method='slow'\)"):
        fs.convolve(np.ones(3), np.ones(2), method="slow")


# -- trapezoidal rules ----------------------------------------------------------------------------


def test_trapezoid_rules_match_scipy():
    y = RNG.standard_normal((3, 6))
    x = np.cumsum(RNG.uniform(0.1, 1.0, 6))
    for kw in ({}, {"x": x}, {"dx": 0.3}, {"axis": 0}):
        close(fi.trapezoid(y, **kw), si.trapezoid(y, **kw))
        close(fi.cumulative_trapezoid(y, **kw), si.cumulative_trapezoid(y, **kw))
        close(
            fi.cumulative_trapezoid(y, initial=0, **kw), si.cumulative_trapezoid(y, initial=0, **kw)
        )
    check_grads(lambda y, x: fi.cumulative_trapezoid(y, x, initial=0), (y, x), order=2)
    check_vmap(lambda y: fi.cumulative_trapezoid(y, x), (y,))


# -- odeint --------------------------------------------------------------------------------------


def lotka(y, t, a, b):
    return fnp.stack([a * y[0] - b * y[0] * y[1], b * y[0] * y[1] - 0.5 * y[1] + 0.1 * fnp.sin(t)])


def jlotka(y, t, a, b):
    return jnp.stack([a * y[0] - b * y[0] * y[1], b * y[0] * y[1] - 0.5 * y[1] + 0.1 * jnp.sin(t)])


def np_lotka(y, t, a, b):
    return np.stack([a * y[0] - b * y[0] * y[1], b * y[0] * y[1] - 0.5 * y[1] + 0.1 * np.sin(t)])


Y0 = np.array([1.0, 0.5])
TS = np.array([0.0, 0.4, 1.1, 2.0, 3.0])
A, B = 0.9, 0.6
TIGHT = {"rtol": 1e-10, "atol": 1e-10}


def test_odeint_matches_scipy():
    got = fi.odeint(lotka, Y0, TS, A, B, **TIGHT)
    close(
        got, si.odeint(np_lotka, Y0, TS, args=(A, B), rtol=1e-12, atol=1e-12), rtol=1e-8, atol=1e-9
    )
    # SciPy's call forms: args=, and its default tolerances (1.49e-8)
    got = fi.odeint(np_lotka, Y0, TS, args=(A, B))
    close(got, si.odeint(np_lotka, Y0, TS, args=(A, B)), rtol=2e-6, atol=1e-7)
    # decreasing times, a matrix-shaped state
    back = fi.odeint(lotka, Y0, TS[::-1] * 0.5, A, B, **TIGHT)
    close(
        back,
        si.odeint(np_lotka, Y0, TS[::-1] * 0.5, args=(A, B), rtol=1e-12, atol=1e-12),
        rtol=1e-8,
        atol=1e-9,
    )
    m0 = RNG.standard_normal((2, 2))
    got = fi.odeint(lambda y, t: -y @ y.T * 0.1 + y, m0, TS[:3], **TIGHT)
    ref = si.odeint(
        lambda y, t: (-y.reshape(2, 2) @ y.reshape(2, 2).T * 0.1 + y.reshape(2, 2)).ravel(),
        m0.ravel(),
        TS[:3],
        rtol=1e-12,
        atol=1e-12,
    )
    close(got.reshape(3, 4), ref, rtol=1e-8, atol=1e-9)


def test_odeint_takes_scipy_style_functions():
    """``func`` returning a list, as SciPy's examples do, under grad, jacfwd and vmap."""

    def f(y, t, k):
        return [y[1], -k * y[0]]

    y0, ts = np.array([1.0, 0.0]), np.linspace(0.0, 1.0, 4)
    close(
        fi.odeint(f, y0, ts, 2.0, **TIGHT),
        si.odeint(f, y0, ts, (2.0,), rtol=1e-12, atol=1e-12),
        rtol=1e-8,
        atol=1e-9,
    )
    rev = ft.grad(lambda k: fi.odeint(f, y0, ts, k, **TIGHT)[-1, 0])(2.0)
    fwd = ft.jacfwd(lambda k: fi.odeint(f, y0, ts, k, **TIGHT)[-1, 0])(2.0)
    close(rev, fwd, rtol=1e-7, atol=1e-8)
    check_vmap(lambda y: fi.odeint(f, y, ts, 2.0), (np.stack([y0, 2 * y0]),))


def test_odeint_adjoint_gradients_match_jax():
    def loss(odeint, f, y0, t, a, b, m):
        return m.sum(odeint(f, y0, t, a, b, **TIGHT) ** 2 * m.arange(1.0, 6.0)[:, None])

    argnums = (0, 1, 2, 3)
    ours = ft.grad(lambda *v: loss(fi.odeint, lotka, *v, fnp), argnums=argnums)(Y0, TS, A, B)
    theirs = jax.jit(jax.grad(lambda *v: loss(jodeint, jlotka, *v, jnp), argnums=argnums))(
        Y0, TS, A, B
    )
    close(ours, [np.asarray(t) for t in theirs], rtol=1e-7, atol=1e-8)


def test_odeint_forward_sensitivities_match_the_adjoint():
    f = lambda y0, t, a, b: fi.odeint(lotka, y0, t, a, b, **TIGHT)  # noqa: E731
    jac_rev = ft.jacrev(f, argnums=(0, 1, 2, 3))(Y0, TS, A, B)
    jac_fwd = ft.jacfwd(f, argnums=(0, 1, 2, 3))(Y0, TS, A, B)
    close(jac_fwd, jac_rev, rtol=1e-7, atol=1e-8)


def test_odeint_second_order():
    """Hessian-vector products (forward over reverse) against finite differences of the
    adjoint gradient."""
    g = ft.grad(lambda a: fnp.sum(fi.odeint(lotka, Y0, TS[:3], a, B, **TIGHT) ** 2))
    h = ft.jvp(g, (A,), (1.0,))[1]
    eps = 1e-4
    fd = (g(A + eps) - g(A - eps)) / (2 * eps)
    close(h, fd, rtol=1e-5, atol=1e-6)


def test_odeint_vmap_matches_a_loop():
    y0s = np.stack([Y0, 2 * Y0, 0.3 * Y0])
    as_ = np.array([0.5, 0.9, 1.4])
    out = check_vmap(lambda y0, a: fi.odeint(lotka, y0, TS, a, B), (y0s, as_))
    assert out.shape == (3, 5, 2)
    # per-example gradients and batched times
    ts = np.stack([TS, TS * 1.5, TS * 0.5])
    check_vmap(lambda t: fi.odeint(lotka, Y0, t, A, B), (ts,), out_dims=1)
    per_example = ft.vmap(
        ft.grad(lambda a, y0: fnp.sum(fi.odeint(lotka, y0, TS, a, B))), in_dims=(0, 0)
    )
    loop = [
        ft.grad(lambda a, y0: fnp.sum(fi.odeint(lotka, y0, TS, a, B)))(a, y)
        for a, y in zip(as_, y0s)
    ]
    close(per_example(as_, y0s), np.array(loop))
    nested = ft.vmap(
        ft.vmap(lambda y0, a: fi.odeint(lotka, y0, TS[:3], a, B), in_dims=(0, None)),
        in_dims=(None, 0),
    )
    close(
        nested(y0s, as_), np.array([[fi.odeint(lotka, y, TS[:3], a, B) for y in y0s] for a in as_])
    )


def test_odeint_jit_replays():
    f = ft.jit(ft.grad(lambda y0, a: fnp.sum(fi.odeint(lotka, y0, TS, a, B))))
    for y0, a in ((Y0, A), (2 * Y0, 1.2)):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # replayed, not run eagerly
            got = f(y0, a)
        close(got, ft.grad(lambda y0, a: fnp.sum(fi.odeint(lotka, y0, TS, a, B)))(y0, a))
    g = ft.jit(lambda y0: fi.odeint(lotka, y0, TS, A, B))
    g(Y0)
    close(g(2 * Y0), fi.odeint(lotka, 2 * Y0, TS, A, B))


def test_odeint_errors():
    # a traced value reached through an object's attribute is not found (one in the
    # closure is: tests/test_published_programs_4.py)
    class Decay:
        def rhs(self, y, t):
            return -self.a * y

    def through_attribute(a):
        model = Decay()
        model.a = a
        return fnp.sum(fi.odeint(model.rhs, Y0, TS))

    with pytest.raises(TypeError, match=r"^odeint\(func, y0, t, \*args\): func returned a traced"):
        ft.grad(through_attribute)(1.0)
    with pytest.raises(ValueError, match=r"^odeint\(_?\w*\): t must be monotonic"):
        fi.odeint(lotka, Y0, np.array([0.0, 1.0, 0.5]), A, B)
    with pytest.raises(ValueError, match=r"^odeint\(func, y0, t, \*args\): t must be 1-D"):
        fi.odeint(lotka, Y0, np.zeros((2, 2)), A, B)
    with pytest.raises(TypeError, match=r"^odeint\(func, y0, t, \*args\): unsupported options"):
        fi.odeint(lotka, Y0, TS, A, B, full_output=True)
    with pytest.raises(
        ValueError, match=r"^odeint\(func, y0, t, \*args\): func\(y, t, \*args\) must"
    ):
        fi.odeint(lambda y, t: y[0], Y0, TS)
    with pytest.warns(RuntimeWarning, match="mxstep"):
        out = fi.odeint(lotka, Y0, TS, A, B, mxstep=2)
    assert np.isnan(out[-1]).all()


# -- lfilter ---------------------------------------------------------------------------------

FILTERS = {
    "discount": ([1.0], [1.0, -0.9]),
    "fir": ([0.5, 0.3, 0.2], [1.0]),
    "iir_a0": ([1.0, 0.4], [2.0, -0.5, 0.1]),
    "iir_long_a": ([0.2, 0.3], [1.0, 0.3, -0.2, 0.05]),
}


@pytest.mark.parametrize("name", sorted(FILTERS))
def test_lfilter_matches_scipy_with_constant_and_traced_coefficients(name):
    b, a = FILTERS[name]
    x = np.random.default_rng(6).standard_normal((3, 7))
    for axis in (-1, 0):
        want = ss.lfilter(b, a, x, axis=axis)
        close(fs.lfilter(b, a, x, axis=axis), want)
        # a traced denominator takes the step-by-step recursion
        got = ft.vmap(lambda a_: fs.lfilter(b, a_, x, axis=axis))(np.stack([np.array(a)] * 2))
        close(got[1], want)
    check_grads(lambda b_, x_: fs.lfilter(b_, a, x_), (np.array(b), x[0]))
    # in a, against central differences of SciPy's filter (a traced `a` takes another
    # algorithm than a constant one, so check_grads's exact primal comparison cannot hold)
    a0, eps = np.array(a), 1e-6
    fd = np.stack(
        [
            (ss.lfilter(b, a0 + eps * e, x[0]) - ss.lfilter(b, a0 - eps * e, x[0])) / (2 * eps)
            for e in np.eye(len(a0))
        ],
        axis=-1,
    )
    close(ft.jacfwd(lambda a_: fs.lfilter(b, a_, x[0]))(a0), fd, rtol=1e-7, atol=1e-8)
    close(ft.jacrev(lambda a_: fs.lfilter(b, a_, x[0]))(a0), fd, rtol=1e-7, atol=1e-8)
    check_vmap(lambda x_: fs.lfilter(b, a, x_), (x,))


def test_lfilter_discounted_returns_like_spinning_up():
    # discount_cumsum(x, gamma) = lfilter([1], [1, -gamma], x[::-1])[::-1]
    rewards = np.array([1.0, 0.0, -0.5, 2.0, 0.3])
    gamma = 0.9

    def returns(r):
        return fs.lfilter([1], [1, float(-gamma)], r[::-1], axis=0)[::-1]

    T = len(rewards)
    upper = np.triu(gamma ** (np.arange(T)[None, :] - np.arange(T)[:, None]))
    close(returns(rewards), upper @ rewards)
    close(ft.jacrev(returns)(rewards), upper)
    close(ft.jacfwd(returns)(rewards), upper)
    step = ft.jit(ft.grad(lambda r: (returns(r) ** 2).sum()))
    step(rewards)
    close(step(rewards[::-1].copy()), 2 * upper.T @ (upper @ rewards[::-1]))


def test_lfilter_errors():
    with pytest.raises(ValueError, match="1-D"):
        fs.lfilter(np.ones((2, 2)), [1.0], np.ones(3))
    # zi is supported now (tests/test_published_programs_4.py); a wrong size is refused
    with pytest.raises(ValueError, match=r"^lfilter\(b, a, x, zi\): zi must have"):
        fs.lfilter([1.0], [1.0, -0.5], np.ones(3), zi=np.zeros(2))


# -- convolve2d / correlate2d ----------------------------------------------------------------

SHAPES_2D = [((5, 6), (3, 2)), ((4, 4), (3, 3)), ((3, 3), (4, 2))]
BOUNDARIES = [("fill", 0), ("fill", 1.5), ("wrap", 0), ("symm", 0)]


@pytest.mark.parametrize("s1, s2", SHAPES_2D)
@pytest.mark.parametrize("boundary, fillvalue", BOUNDARIES)
def test_convolve2d_correlate2d_match_scipy(s1, s2, boundary, fillvalue):
    # image-processing code: scipy.signal.convolve2d(img, kernel, mode="same", boundary="symm")
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal(s1), rng.standard_normal(s2)
    for mode in ("full", "same", "valid"):
        for ours, theirs in ((fs.convolve2d, ss.convolve2d), (fs.correlate2d, ss.correlate2d)):
            try:
                want = theirs(a, b, mode=mode, boundary=boundary, fillvalue=fillvalue)
            except ValueError:
                continue  # SciPy refuses 'valid' when neither input fits in the other
            got = ours(a, b, mode=mode, boundary=boundary, fillvalue=fillvalue)
            assert got.shape == want.shape, (ours.__name__, mode)
            close(got, want)


def test_convolve2d_derivatives_and_vmap():
    rng = np.random.default_rng(8)
    img, k = rng.standard_normal((5, 4)), rng.standard_normal((3, 3))
    for boundary in ("fill", "wrap", "symm"):
        check_grads(lambda i, k_: fs.convolve2d(i, k_, mode="same", boundary=boundary), (img, k))
    check_grads(lambda i, k_: fs.correlate2d(i, k_, mode="full", fillvalue=0.5), (img, k))
    check_vmap(
        lambda i: fs.convolve2d(i, k, mode="same", boundary="symm"), (np.stack([img, -img]),)
    )
    # against JAX's convolve2d (zero fill, the boundary it has)
    f = lambda m, i: (m.convolve2d(i, k, mode="same") ** 2).sum()  # noqa: E731
    close(ft.grad(lambda i: f(fs, i))(img), jax.jit(jax.grad(lambda i: f(jss, i)))(img))
    with pytest.raises(ValueError, match="2-D"):
        fs.convolve2d(np.ones(3), np.ones(2))
    with pytest.raises(ValueError, match="boundary"):
        fs.convolve2d(img, k, boundary="reflect")
