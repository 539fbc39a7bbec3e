"""SciPy functions that compute on tracers since round 3: scipy.linalg's matrix equations
(Lyapunov, Riccati), eig/eigvals, polar, null_space/orth, schur/hessenberg (values; no
derivative, as in JAX), funm and the trigonometric/hyperbolic matrix functions,
fractional_matrix_power; scipy.ndimage's zoom/shift/rotate/affine_transform, rank filters
and center_of_mass; scipy.signal.savgol_filter; odeint's shapes for a scalar y0.

Oracles: SciPy's values, float64 central differences (directional), a Python loop for
vmap, eager calls for jit replays, and JAX (x64) where JAX differentiates the function.
Calls go through SciPy's own names (NOTE [SciPy's own names under the transforms]).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np
import pytest
import scipy.integrate
import scipy.linalg
import scipy.ndimage
import scipy.signal

import ftransforms as ft
from ftransforms.errors import UnsupportedOperationError

jax.config.update("jax_enable_x64", True)

RNG = np.random.default_rng(20261127)


def _dirderiv(f, x, d, eps=1e-6):
    return (f(x + eps * d) - f(x - eps * d)) / (2 * eps)


def _check_grad(f, x, d=None, rtol=1e-6, atol=1e-8):
    """``<grad f(x), d>`` against the central difference of ``f`` along ``d``."""
    d = RNG.normal(size=np.shape(x)) if d is None else d
    g = ft.grad(f)(x)
    np.testing.assert_allclose(np.sum(g * d), _dirderiv(f, x, d), rtol=rtol, atol=atol)


def _replays(f, *calls, atol=1e-12):
    """``ft.jit(f)`` recorded on the first argument tuple and replayed on the others,
    against eager calls."""
    jf = ft.jit(f)
    for args in calls:
        np.testing.assert_allclose(jf(*args), f(*args), rtol=1e-10, atol=atol)


def _sym(n):
    m = RNG.normal(size=(n, n))
    return m + m.T


# -- matrix equations ------------------------------------------------------------------------

A3 = RNG.normal(size=(3, 3)) * 0.5 - 1.5 * np.eye(3)
B3 = RNG.normal(size=(3, 2))
Q3 = np.eye(3) + 0.1 * _sym(3)
R2 = 1.5 * np.eye(2) + 0.05 * _sym(2)
W3 = RNG.normal(size=(3, 3))


def test_lyapunov_values_gradients_vmap_jit():
    q = RNG.normal(size=(3, 3))
    for name, a in (("solve_continuous_lyapunov", A3), ("solve_discrete_lyapunov", 0.4 * A3)):
        theirs = getattr(scipy.linalg, name)(a, q)

        def ours(a_, q_, name=name):
            return getattr(scipy.linalg, name)(a_, q_)

        np.testing.assert_allclose(ft.jit(ours)(a, q), theirs, rtol=1e-12, atol=1e-12)
        _replays(ours, (a, q), (0.9 * a, 2 * q))
        for k in range(2):

            def loss(v, k=k, a=a):
                args = [a, q]
                args[k] = v
                return np.sum(ours(*args) * W3)

            _check_grad(loss, [a, q][k])
        stack = np.stack([a, a.T, 0.5 * a])
        np.testing.assert_allclose(
            ft.vmap(lambda m: ours(m, q))(stack),
            np.stack([getattr(scipy.linalg, name)(m, q) for m in stack]),
            rtol=1e-12,
            atol=1e-12,
        )
    # the JVP in a is another Sylvester equation with the same coefficients
    da = RNG.normal(size=(3, 3))
    x, dx = ft.jvp(lambda a: scipy.linalg.solve_continuous_lyapunov(a, q), (A3,), (da,))
    np.testing.assert_allclose(A3 @ dx + dx @ A3.T, -(da @ x + x @ da.T), atol=1e-12)


@pytest.mark.parametrize("name", ["solve_continuous_are", "solve_discrete_are"])
def test_riccati_values_and_derivatives(name):
    e = np.eye(3) + 0.05 * RNG.normal(size=(3, 3))
    s = 0.05 * RNG.normal(size=(3, 2))
    a3 = A3 if name == "solve_continuous_are" else 0.25 * A3  # well conditioned for both

    def solve(*args, **kwargs):  # SciPy's own name, looked up at the call
        return getattr(scipy.linalg, name)(*args, **kwargs)

    for extra in ((), (e, s)):
        args = (a3, B3, Q3, R2, *extra)
        # SciPy's balancing loses accuracy with e here (its residual is 0.1 for the
        # continuous equation); the Newton steps recover the solution it finds unbalanced
        want = solve(*args, balanced=False)
        np.testing.assert_allclose(ft.jit(lambda *a: solve(*a))(*args), want, atol=1e-10)
        _replays(
            lambda *a: solve(*a, balanced=False),
            args,
            (args[0], args[1], 2 * args[2], *args[3:]),
            atol=1e-10,
        )
        for k in (0, 2) if not extra else (1, 3, 4, 5):  # every argument, over the two cases
            v = args[k]
            d = RNG.normal(size=v.shape)
            if k in (2, 3):  # q and r stay symmetric
                d = d + d.T

            def loss(x, k=k):
                a = list(args)
                a[k] = x
                return np.sum(solve(*a, balanced=False) * W3)

            _check_grad(loss, v, d, rtol=1e-5, atol=1e-7)
    # second order: the Hessian-vector product against differences of gradients
    da = RNG.normal(size=(3, 3))

    def loss_a(a):
        return np.sum(solve(a, B3, Q3, R2) * W3)

    hv = ft.jvp(ft.grad(loss_a), (a3,), (da,))[1]
    g = ft.grad(loss_a)
    np.testing.assert_allclose(hv, _dirderiv(g, a3, da, 1e-5), rtol=1e-5, atol=1e-6)
    qs = np.stack([Q3, 2 * Q3])
    np.testing.assert_allclose(
        ft.vmap(lambda q: solve(a3, B3, q, R2))(qs),
        np.stack([solve(a3, B3, q, R2) for q in qs]),
        rtol=1e-10,
        atol=1e-12,
    )


def test_riccati_bad_shapes_raise_with_the_call_form():
    with pytest.raises(ValueError, match=r"solve_continuous_are\(a, b, q, r\): q must be"):
        ft.grad(lambda a: scipy.linalg.solve_continuous_are(a, B3, np.eye(2), R2).sum())(A3)


# -- eig, polar, subspaces, Schur ------------------------------------------------------------

G4 = RNG.normal(size=(4, 4))


def test_eig_eigvals_match_scipy_fd_and_jax():
    _replays(lambda a: scipy.linalg.eigvals(a), (G4,), (G4.T,))
    w, v = ft.jit(lambda a: scipy.linalg.eig(a))(G4)
    tw, tv = scipy.linalg.eig(G4)
    np.testing.assert_allclose(w, tw, atol=1e-12)
    np.testing.assert_allclose(v, tv, atol=1e-12)
    sym = G4 + G4.T  # real eigenvalues: real vectors, complex values, as SciPy's
    assert scipy.linalg.eig(sym)[0].dtype.kind == "c"
    assert ft.vmap(scipy.linalg.eig)(sym[None])[1].dtype == scipy.linalg.eig(sym)[1].dtype

    def f_vals(a):
        return np.sum(np.abs(scipy.linalg.eigvals(a)))

    def f_vecs(a):
        return np.sum(np.abs(scipy.linalg.eig(a)[1]) * W3[0, 0])

    _check_grad(f_vals, G4)
    _check_grad(f_vecs, G4)
    jg = jax.jit(jax.grad(lambda a: jnp.sum(jnp.abs(jnp.linalg.eigvals(a)))))(G4)
    np.testing.assert_allclose(ft.grad(f_vals)(G4), jg, rtol=1e-8, atol=1e-10)
    stack = RNG.normal(size=(3, 4, 4))
    np.testing.assert_allclose(
        ft.vmap(scipy.linalg.eigvals)(stack),
        np.stack([scipy.linalg.eigvals(m) for m in stack]),
        atol=1e-12,
    )
    b = np.eye(4) + 0.1 * RNG.normal(size=(4, 4))
    got = ft.vmap(lambda a: scipy.linalg.eigvals(a, b))(G4[None])[0]
    want = scipy.linalg.eigvals(G4, b)
    assert np.abs(got[:, None] - want[None, :]).min(axis=1).max() < 1e-10  # as sets
    assert np.abs(got[:, None] - want[None, :]).min(axis=0).max() < 1e-10


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4)])
@pytest.mark.parametrize("side", ["right", "left"])
def test_polar_matches_scipy_fd_and_jax(shape, side):
    a = RNG.normal(size=shape)
    u, p = ft.vmap(lambda m: scipy.linalg.polar(m, side))(a[None])
    tu, tp = scipy.linalg.polar(a, side)
    np.testing.assert_allclose(u[0], tu, atol=1e-12)
    np.testing.assert_allclose(p[0], tp, atol=1e-12)
    wu, wp = RNG.normal(size=tu.shape), RNG.normal(size=tp.shape)

    def loss(m):
        u, p = scipy.linalg.polar(m, side)
        return np.sum(u * wu) + np.sum(p * wp)

    _check_grad(loss, a)
    # repeated singular values (an orthogonal factor times 2): still a finite derivative
    q = 2 * np.linalg.qr(RNG.normal(size=(max(shape),) * 2))[0][: shape[0], : shape[1]]
    _check_grad(loss, q)
    if side == "right" and shape == (3, 3):  # JAX's polar (one shape: compiling is slow)
        jg = jax.jit(
            jax.grad(
                lambda m: (
                    jnp.sum(jsl.polar(m, side, method="svd")[0] * wu)
                    + jnp.sum(jsl.polar(m, side, method="svd")[1] * wp)
                )
            )
        )(a)
        np.testing.assert_allclose(ft.grad(loss)(a), jg, rtol=1e-8, atol=1e-10)


def test_null_space_and_orth_values_and_projector_derivatives():
    m = RNG.normal(size=(2, 4))
    m = np.vstack([m, m[0] - 2 * m[1]])  # rank 2: a 2-D null space, a 2-D range
    np.testing.assert_allclose(
        ft.jit(lambda a: scipy.linalg.null_space(a))(m), scipy.linalg.null_space(m), atol=1e-12
    )
    np.testing.assert_allclose(
        ft.vmap(scipy.linalg.orth)(m[None])[0], scipy.linalg.orth(m), atol=1e-12
    )
    d = RNG.normal(size=(2, 4))
    d = np.vstack([d, d[0] - 2 * d[1]])  # a direction that keeps the rank
    w4, w3 = RNG.normal(size=(4, 4)), RNG.normal(size=(3, 3))

    def null_proj(a):
        n = scipy.linalg.null_space(a)
        return np.sum((n @ n.T) * w4)

    def range_proj(a):
        u = scipy.linalg.orth(a)
        return np.sum((u @ u.T) * w3)

    _check_grad(null_proj, m, d)
    _check_grad(range_proj, m, d)
    for h in (null_proj, range_proj):  # second order along a rank-keeping direction
        hv = ft.jvp(ft.grad(h), (m,), (d,))[1]
        e = 1e-4
        second = (h(m + e * d) - 2 * h(m) + h(m - e * d)) / e**2
        np.testing.assert_allclose(np.sum(hv * d), second, rtol=1e-5, atol=1e-5)
    rows = np.stack([m, m + 0.1 * d])
    np.testing.assert_allclose(
        ft.vmap(ft.grad(null_proj))(rows), np.stack([ft.grad(null_proj)(r) for r in rows])
    )
    n, dn = ft.jvp(scipy.linalg.null_space, (m,), (d,))
    np.testing.assert_allclose(m @ dn + d @ n, 0.0, atol=1e-12)  # A N = 0 kept
    np.testing.assert_allclose(n.T @ dn + dn.T @ n, 0.0, atol=1e-12)  # N^T N = I kept
    np.testing.assert_allclose(dn, -np.linalg.pinv(m) @ d @ n, atol=1e-12)  # no rotation


def test_schur_hessenberg_values_and_clear_no_derivative_error():
    for output in ("real", "complex"):
        t, z = ft.vmap(lambda a: scipy.linalg.schur(a, output))(G4[None])
        tt, tz = scipy.linalg.schur(G4, output)
        np.testing.assert_allclose(t[0], tt, atol=1e-12)
        np.testing.assert_allclose(z[0], tz, atol=1e-12)
    _replays(lambda a: scipy.linalg.schur(a)[0], (G4,), (G4.T,))
    _replays(lambda a: scipy.linalg.hessenberg(a), (G4,), (G4.T,))
    h, q = ft.jit(lambda a: scipy.linalg.hessenberg(a, calc_q=True))(G4)
    th, tq = scipy.linalg.hessenberg(G4, calc_q=True)
    np.testing.assert_allclose(h, th, atol=1e-12)
    np.testing.assert_allclose(q, tq, atol=1e-12)
    with pytest.raises(UnsupportedOperationError, match=r"^schur\(a\): has no derivative"):
        ft.grad(lambda a: scipy.linalg.schur(a)[0].sum())(G4)
    with pytest.raises(UnsupportedOperationError, match=r"^hessenberg\(a\): has no derivative"):
        ft.grad(lambda a: scipy.linalg.hessenberg(a).sum())(G4)
    with pytest.raises(NotImplementedError):  # JAX refuses too
        jax.grad(lambda a: jsl.schur(a)[0].sum())(G4)


# -- matrix functions ------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["cosm", "sinm", "tanm", "coshm", "sinhm", "tanhm"])
def test_trigonometric_matrix_functions(name):
    a = 0.4 * G4

    def f(m):  # SciPy's own name, looked up at the call
        return getattr(scipy.linalg, name)(m)

    out = ft.jit(lambda m: f(m))(a)
    np.testing.assert_allclose(out, f(a), rtol=1e-12, atol=1e-13)
    assert out.dtype == f(a).dtype
    ac = a + 0.2j * RNG.normal(size=a.shape)
    np.testing.assert_allclose(ft.vmap(lambda m: f(m))(ac[None])[0], f(ac), atol=1e-12)
    w = RNG.normal(size=(4, 4))
    _check_grad(lambda m: np.sum(f(m) * w), a)


def test_funm_of_a_defective_matrix_says_it_is_inaccurate(capsys):
    jordan = np.array([[1.0, 1.0], [0.0, 1.0]])
    f, err = ft.vmap(lambda a: scipy.linalg.funm(a, np.exp, disp=False))(jordan[None])
    assert err[0] > 1e-3  # SciPy's is 1 too: neither result is expm's
    ft.vmap(lambda a: scipy.linalg.funm(a, np.exp))(jordan[None])
    assert "funm result may be inaccurate" in capsys.readouterr().out


def test_funm_and_fractional_matrix_power():
    a = 0.5 * G4
    for func in (np.sin, np.exp):
        np.testing.assert_allclose(
            ft.vmap(lambda m, func=func: scipy.linalg.funm(m, func))(a[None])[0],
            scipy.linalg.funm(a, func),
            atol=1e-12,
        )
    _check_grad(lambda m: np.sum(scipy.linalg.funm(m, np.sin) * G4), a)
    p = G4 @ G4.T + np.eye(4)
    for t in (0.5, -0.3, 2, -1):
        np.testing.assert_allclose(
            ft.jit(lambda m, t=t: scipy.linalg.fractional_matrix_power(m, t))(p),
            scipy.linalg.fractional_matrix_power(p, t),
            rtol=1e-10,
            atol=1e-12,
        )
    for t in (0.5, -1):
        _check_grad(lambda m, t=t: np.sum(scipy.linalg.fractional_matrix_power(m, t) * G4), p)
    _check_grad(lambda t: np.sum(scipy.linalg.fractional_matrix_power(p, t)), 0.7, 1.0)


# -- ndimage ---------------------------------------------------------------------------------

IMG = RNG.normal(size=(5, 6))


@pytest.mark.parametrize("mode", ["constant", "nearest", "mirror", "reflect", "wrap", "grid-wrap"])
def test_geometric_transforms_match_scipy(mode):
    vol = RNG.normal(size=(3, 4, 5))
    cases = [
        (lambda x, o: scipy.ndimage.zoom(x, 1.7, order=o, mode=mode, cval=0.3), IMG),
        (lambda x, o: scipy.ndimage.zoom(x, 0.6, order=o, mode=mode, grid_mode=True), IMG),
        (lambda x, o: scipy.ndimage.shift(x, (0.4, -1.3), order=o, mode=mode, cval=0.3), IMG),
        (lambda x, o: scipy.ndimage.rotate(x, 30, order=o, mode=mode, cval=0.3), IMG),
        (lambda x, o: scipy.ndimage.rotate(x, -45, axes=(0, 2), reshape=False, order=o), vol),
        (
            lambda x, o: scipy.ndimage.affine_transform(
                x, [[0.9, 0.2, 0.3], [-0.1, 1.1, 0.1]], order=o, mode=mode
            ),
            IMG,
        ),
    ]
    for f, x in cases:
        for order in (0, 1):
            want = f(x, order)
            got = ft.vmap(lambda v, f=f, order=order: f(v, order))(x[None])[0]
            np.testing.assert_allclose(got, want, atol=1e-12)


def test_geometric_transforms_derivatives():
    w = RNG.normal(size=(9, 9))

    def rot(x, angle=23.0):
        return scipy.ndimage.rotate(x, angle, order=1, mode="reflect")

    _check_grad(lambda x: np.sum(rot(x) * w[: rot(IMG).shape[0], : rot(IMG).shape[1]]), IMG)
    _check_grad(lambda x: np.sum(scipy.ndimage.zoom(x, 1.4, order=1) * w[:7, :8]), IMG)
    # in the transform's parameters (coordinates off the integers: linear pieces)
    wi = RNG.normal(size=IMG.shape)
    _check_grad(
        lambda s: np.sum(scipy.ndimage.shift(IMG, s, order=1, mode="nearest") * wi),
        np.array([0.3, -0.7]),
    )
    _check_grad(
        lambda a: np.sum(scipy.ndimage.rotate(IMG, a, reshape=False, order=1) * wi), 23.0, 1.0
    )
    m = np.array([[0.913, 0.217], [-0.109, 1.093]])
    _check_grad(lambda m: np.sum(scipy.ndimage.affine_transform(IMG, m, order=1) * wi), m)
    stack = RNG.normal(size=(3, 5, 6))
    np.testing.assert_allclose(
        ft.vmap(lambda s: scipy.ndimage.shift(IMG, s, order=1))(np.array([0.2, 0.5, -1.1])),
        np.stack([scipy.ndimage.shift(IMG, s, order=1) for s in (0.2, 0.5, -1.1)]),
        atol=1e-12,
    )
    _replays(rot, (stack[0],), (stack[1],))
    _replays(lambda x: scipy.ndimage.zoom(x, 1.5), (stack[0],), (stack[1],))  # order 3


@pytest.mark.parametrize("mode", ["constant", "nearest", "reflect", "mirror", "grid-constant"])
def test_spline_orders_are_scipys_map(mode):
    vol = RNG.normal(size=(3, 4, 5))
    coords = RNG.uniform(-1.0, 6.0, size=(2, 5))
    cases = [
        (lambda x: scipy.ndimage.zoom(x, 1.6, mode=mode, cval=0.3), IMG),  # order=3
        (lambda x: scipy.ndimage.zoom(x, (0.7, 1.0, 2.0), order=5, mode=mode), vol),
        (lambda x: scipy.ndimage.shift(x, (0.4, -1.3), order=2, mode=mode, cval=0.3), IMG),
        (lambda x: scipy.ndimage.rotate(x, 30, mode=mode, cval=0.3), IMG),
        (lambda x: scipy.ndimage.affine_transform(x, [[0.9, 0.2], [-0.1, 1.1]], mode=mode), IMG),
        (lambda x: scipy.ndimage.map_coordinates(x, coords, order=4, mode=mode, cval=-1), IMG),
    ]
    for f, x in cases:
        np.testing.assert_allclose(ft.vmap(f)(x[None])[0], f(x), atol=1e-12)
        w = RNG.normal(size=np.shape(f(x)))
        _check_grad(lambda v, f=f, w=w: np.sum(f(v) * w), x)


def test_spline_orders_refuse_traced_settings_and_big_dense_maps():
    with pytest.raises(UnsupportedOperationError, match=r"^shift\(input, shift\): order=3"):
        ft.grad(lambda s: scipy.ndimage.shift(IMG, s).sum())(0.5)
    with pytest.raises(UnsupportedOperationError, match=r"^rotate\(input, angle\): a spline"):
        ft.grad(lambda x: scipy.ndimage.rotate(x, 10.0).sum())(np.ones((60, 60)))
    with pytest.raises(RuntimeError, match=r"^zoom\(input, zoom\): spline order 6"):
        ft.grad(lambda x: scipy.ndimage.zoom(x, 2, order=6).sum())(IMG)


@pytest.mark.parametrize("mode", ["reflect", "constant", "nearest", "mirror", "wrap"])
def test_rank_filters_match_scipy_and_route_derivatives(mode):
    footprint = np.array([[1, 0, 1], [0, 1, 1]], bool)
    calls = [
        ("median_filter", (), {"size": 3}),
        ("maximum_filter", (), {"size": (2, 3), "origin": (0, 1)}),
        ("minimum_filter", (), {"footprint": footprint}),
        ("percentile_filter", (30,), {"size": 3}),
        ("rank_filter", (-2,), {"size": 2, "axes": (1,)}),
    ]
    w = RNG.normal(size=IMG.shape)
    for name, extra, kw in calls:

        def f(*args, name=name, **kwargs):  # SciPy's own name, looked up at the call
            return getattr(scipy.ndimage, name)(*args, **kwargs)

        want = f(IMG, *extra, mode=mode, cval=0.25, **kw)
        got = ft.vmap(lambda x, f=f, extra=extra, kw=kw: f(x, *extra, mode=mode, cval=0.25, **kw))(
            IMG[None]
        )[0]
        np.testing.assert_array_equal(got, want)
        _check_grad(
            lambda x, f=f, extra=extra, kw=kw: np.sum(f(x, *extra, mode=mode, **kw) * w),
            IMG,
            eps_safe_direction(),
        )
    x = np.array([1.0, 9.0, 2.0, 3.0])  # the derivative goes to the selected element
    np.testing.assert_array_equal(
        ft.grad(lambda x: scipy.ndimage.median_filter(x, size=3)[1])(x), [0, 0, 1, 0]
    )


def eps_safe_direction():
    return RNG.normal(size=IMG.shape)


def test_center_of_mass_matches_scipy_and_fd():
    labels = RNG.integers(0, 3, size=IMG.shape)
    x = IMG**2
    for args in ((), (labels,), (labels, 2), (labels, [1, 2])):
        got = ft.vmap(lambda v, args=args: scipy.ndimage.center_of_mass(v, *args))(x[None])
        want = scipy.ndimage.center_of_mass(x, *args)
        got = [tuple(c[0] for c in t) for t in got] if isinstance(got, list) else got
        np.testing.assert_allclose(np.array(got, float).squeeze(), np.array(want), atol=1e-12)
    _check_grad(lambda v: sum(scipy.ndimage.center_of_mass(v**2, labels, [1, 2])[1]), IMG)


# -- signal, integrate -----------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["interp", "mirror", "constant", "nearest", "wrap"])
def test_savgol_filter(mode):
    x = RNG.normal(size=(3, 11))
    for wl, po, deriv, delta, axis in ((5, 2, 0, 1.0, -1), (7, 3, 1, 0.5, -1), (4, 2, 2, 1.0, 0)):
        if mode == "interp" and wl > x.shape[axis]:
            continue

        def f(v, wl=wl, po=po, deriv=deriv, delta=delta, axis=axis):
            return scipy.signal.savgol_filter(v, wl, po, deriv, delta, axis, mode, cval=0.5)

        _replays(f, (x,), (2 * x,))
    # linear in x: the gradient of <w, f(x)> is the exact Jacobian's transpose times w
    w = RNG.normal(size=x.shape)

    def g(v):
        return scipy.signal.savgol_filter(v, 5, 2, mode=mode)

    jac = np.stack([g(e.reshape(x.shape)).ravel() for e in np.eye(x.size)])
    np.testing.assert_allclose(ft.grad(lambda v: np.sum(g(v) * w))(x).ravel(), jac @ w.ravel())
    np.testing.assert_allclose(ft.vmap(g)(x), g(x), atol=1e-12)


def test_odeint_shapes_for_every_y0_form():
    t = np.linspace(0.0, 1.0, 4)
    for y0 in (1.0, np.float64(1.0), np.array(1.0), [1.0], np.array([1.0, 2.0]), [1.0, 2.0]):
        want = scipy.integrate.odeint(lambda y, t: -y, y0, t)
        got = ft.vmap(lambda k, y0=y0: scipy.integrate.odeint(lambda y, t: -k * y, y0, t))(
            np.array([1.0])
        )[0]
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
    g = ft.grad(lambda k: scipy.integrate.odeint(lambda y, t: -k * y, 1.0, t)[-1, 0])(2.0)
    np.testing.assert_allclose(g, -np.exp(-2.0), rtol=1e-6)
    g0 = ft.grad(lambda y0: scipy.integrate.odeint(lambda y, t: -y, y0, t)[-1, 0])(2.0)
    np.testing.assert_allclose(g0, np.exp(-1.0), rtol=1e-6)
