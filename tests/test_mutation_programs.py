"""Published-style NumPy programs that write into arrays, transformed unchanged (issue 21):
a 1-D heat equation, an RK4 integrator filling a trajectory, a Kalman filter with
preallocated means and covariances, a naive convolution.  Oracles: the plain-NumPy run
(values), central differences in float64, JAX's functional form (the heat equation and the
convolution), the per-example loop."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import ftransforms as ft

jax.config.update("jax_enable_x64", True)


def close(a, b, rtol=1e-6, atol=1e-9):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol)


def fd(f, x, h=1e-6):
    x = np.asarray(x, dtype=np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (f(x + e) - f(x - e)) / (2 * h)
    return g


# -- 1-D heat equation: u[1:-1] = ... for 50 steps ---------------------------------------


def heat(u0, D, steps=50):
    u = u0.copy()
    for _ in range(steps):
        u[1:-1] = u[1:-1] + D * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u


def heat_loss(u0, D):
    target = np.linspace(0.0, 1.0, u0.shape[0]) ** 2
    return np.sum((heat(u0, D) - target) ** 2)


def heat_jax(u0, D, steps=50):
    u = u0
    for _ in range(steps):
        u = u.at[1:-1].set(u[1:-1] + D * (u[2:] - 2 * u[1:-1] + u[:-2]))
    target = jnp.linspace(0.0, 1.0, u0.shape[0]) ** 2
    return jnp.sum((u - target) ** 2)


U0 = np.sin(np.linspace(0.0, np.pi, 12)) + 0.1 * np.cos(np.arange(12.0))


def test_heat_equation_gradients_wrt_initial_state_and_diffusion_constant():
    D = 0.2
    before = U0.copy()
    g_u, g_d = ft.grad(heat_loss, argnums=(0, 1))(U0, D)
    np.testing.assert_array_equal(U0, before)
    close(g_u, fd(lambda u: heat_loss(u, D), U0), rtol=1e-5)
    close(g_d, (heat_loss(U0, D + 1e-6) - heat_loss(U0, D - 1e-6)) / 2e-6, rtol=1e-5)
    jg_u, jg_d = jax.jit(jax.grad(heat_jax, argnums=(0, 1)))(jnp.asarray(U0), D)
    close(g_u, jg_u)
    close(g_d, jg_d)
    close(ft.grad(heat_loss, argnums=1)(U0, D), jg_d)  # u0 untransformed: u0.copy() works


def test_heat_equation_under_vmap_jit_and_jacfwd():
    Ds = np.array([0.1, 0.2, 0.3])
    close(ft.vmap(heat, in_dims=(None, 0))(U0, Ds), [heat(U0, d) for d in Ds])
    U0s = np.stack([U0, 2 * U0])
    jax_grad = jax.jit(jax.grad(heat_jax))
    close(
        ft.vmap(ft.grad(heat_loss), in_dims=(0, None))(U0s, 0.2),
        [jax_grad(jnp.asarray(u), 0.2) for u in U0s],
    )
    step = ft.jit(ft.grad(heat_loss, argnums=(0, 1)))
    for d in (0.2, 0.25):  # recorded, then replayed
        for _ in range(2):
            got = step(U0, np.float64(d))
            close(got[0], jax_grad(jnp.asarray(U0), d))
    jac = jax.jit(jax.jacfwd(heat_jax_u))(jnp.asarray(U0), 0.2)
    close(ft.jacfwd(heat)(U0, 0.2), jac)


def heat_jax_u(u0, D, steps=50):
    u = u0
    for _ in range(steps):
        u = u.at[1:-1].set(u[1:-1] + D * (u[2:] - 2 * u[1:-1] + u[:-2]))
    return u


# -- RK4 filling a trajectory buffer -------------------------------------------------------


def lotka_volterra(y, p):
    a, b, c, d = p[0], p[1], p[2], p[3]
    dy = np.empty(2)
    dy[0] = a * y[0] - b * y[0] * y[1]
    dy[1] = d * y[0] * y[1] - c * y[1]
    return dy


def rk4_trajectory(y0, p, dt=0.05, n=20):
    traj = np.zeros((n + 1, y0.shape[0]))
    traj[0] = y0
    y = y0
    for i in range(n):
        k1 = lotka_volterra(y, p)
        k2 = lotka_volterra(y + 0.5 * dt * k1, p)
        k3 = lotka_volterra(y + 0.5 * dt * k2, p)
        k4 = lotka_volterra(y + dt * k3, p)
        y = y + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
        traj[i + 1] = y
    return traj


def rk4_loss(y0, p):
    return np.sum(rk4_trajectory(y0, p)[::4] ** 2)


Y0 = np.array([1.0, 0.5])
P = np.array([1.1, 0.4, 0.4, 0.1])


def test_rk4_trajectory_buffer():
    close(ft.grad(rk4_loss)(Y0, P), fd(lambda y: rk4_loss(y, P), Y0), rtol=1e-5)
    close(ft.grad(rk4_loss, argnums=1)(Y0, P), fd(lambda p: rk4_loss(Y0, p), P), rtol=1e-5)
    close(ft.jacrev(rk4_trajectory)(Y0, P), ft.jacfwd(rk4_trajectory)(Y0, P))
    Ys = np.array([[1.0, 0.5], [0.8, 0.9], [1.3, 0.2]])
    close(ft.vmap(rk4_trajectory, in_dims=(0, None))(Ys, P), [rk4_trajectory(y, P) for y in Ys])
    close(
        ft.vmap(ft.grad(rk4_loss, argnums=1), in_dims=(0, None))(Ys, P),
        [fd(lambda p, y=y: rk4_loss(y, p), P) for y in Ys],
        rtol=1e-5,
    )
    jitted = ft.jit(ft.grad(rk4_loss))
    close(jitted(Y0, P), jitted(Y0, P))
    close(jitted(Y0 + 0.1, P), fd(lambda y: rk4_loss(y, P), Y0 + 0.1), rtol=1e-5)


# -- Kalman filter with preallocated means and covariances --------------------------------


def kalman_filter(obs, q, r):
    """A 2-state constant-velocity filter; returns the filtered means, covariances and the
    log-likelihood of the observations (the way textbook code writes it)."""
    T = obs.shape[0]
    F = np.array([[1.0, 1.0], [0.0, 1.0]])
    H = np.array([[1.0, 0.0]])
    Q = q * np.eye(2)
    means = np.zeros((T, 2))
    covs = np.zeros((T, 2, 2))
    m = np.zeros(2)
    P = np.eye(2)
    ll = 0.0
    for t in range(T):
        m = F @ m
        P = F @ P @ F.T + Q
        S = H @ P @ H.T + r
        K = P @ H.T / S
        resid = obs[t] - H @ m
        m = m + (K @ resid)
        P = P - K @ H @ P
        means[t] = m
        covs[t] = P
        ll -= 0.5 * (np.log(2 * np.pi * S[0, 0]) + resid[0] ** 2 / S[0, 0])
    return means, covs, ll


def kalman_loss(obs, q, r):
    means, covs, ll = kalman_filter(obs, q, r)
    return -ll + 0.1 * np.sum(means[:, 1] ** 2) + np.sum(covs[:, 0, 0])


OBS = np.cumsum(np.array([0.3, 0.5, 0.2, 0.7, 0.4, 0.6, 0.1, 0.5]))[:, None]


def test_kalman_filter_with_preallocated_buffers():
    g = ft.grad(kalman_loss, argnums=(0, 1, 2))(OBS, 0.05, 0.3)
    close(g[0], fd(lambda o: kalman_loss(o, 0.05, 0.3), OBS), rtol=1e-5, atol=1e-7)
    close(
        g[2],
        (kalman_loss(OBS, 0.05, 0.3 + 1e-6) - kalman_loss(OBS, 0.05, 0.3 - 1e-6)) / 2e-6,
        rtol=1e-5,
    )
    close(
        g[1],
        (kalman_loss(OBS, 0.05 + 1e-6, 0.3) - kalman_loss(OBS, 0.05 - 1e-6, 0.3)) / 2e-6,
        rtol=1e-5,
    )
    obs_batch = np.stack([OBS, 2 * OBS, OBS[::-1]])
    means, covs, ll = ft.vmap(kalman_filter, in_dims=(0, None, None))(obs_batch, 0.05, 0.3)
    for k, o in enumerate(obs_batch):
        m_k, c_k, ll_k = kalman_filter(o, 0.05, 0.3)
        close(means[k], m_k)
        close(covs[k], c_k)
        close(ll[k], ll_k)
    qs = np.array([0.01, 0.05, 0.2])
    h = 1e-6
    close(
        ft.vmap(ft.grad(kalman_loss, argnums=1), in_dims=(None, 0, None))(OBS, qs, 0.3),
        [(kalman_loss(OBS, q + h, 0.3) - kalman_loss(OBS, q - h, 0.3)) / (2 * h) for q in qs],
        rtol=1e-5,
    )
    p, t = ft.jvp(lambda q: kalman_filter(OBS, q, 0.3)[1], (0.05,), (1.0,))
    close(
        t,
        (kalman_filter(OBS, 0.05 + 1e-6, 0.3)[1] - kalman_filter(OBS, 0.05 - 1e-6, 0.3)[1]) / 2e-6,
        rtol=1e-5,
        atol=1e-8,
    )


# -- naive convolution: out[n, f, i, j] = ... ---------------------------------------------


def conv_naive(x, w, b):
    N, C, H, W = x.shape
    F, _, K, _ = w.shape
    out = np.zeros((N, F, H - K + 1, W - K + 1))
    for n in range(N):
        for f in range(F):
            for i in range(H - K + 1):
                for j in range(W - K + 1):
                    out[n, f, i, j] = np.sum(x[n, :, i : i + K, j : j + K] * w[f]) + b[f]
    return out


def conv_loss(x, w, b):
    return np.sum(np.tanh(conv_naive(x, w, b)) ** 2)


def conv_jax(x, w, b):
    out = jax.lax.conv_general_dilated(x, w, (1, 1), "VALID") + b[None, :, None, None]
    return jnp.sum(jnp.tanh(out) ** 2)


RNG = np.random.default_rng(0)
XC = RNG.standard_normal((2, 2, 4, 4))
WC = 0.5 * RNG.standard_normal((2, 2, 2, 2))
BC = np.array([0.1, -0.2])


def test_naive_convolution_writing_out_elementwise():
    close(
        conv_naive(XC, WC, BC),
        np.asarray(jax.lax.conv_general_dilated(XC, WC, (1, 1), "VALID") + BC[None, :, None, None]),
    )
    g = ft.grad(conv_loss, argnums=(0, 1, 2))(XC, WC, BC)
    jg = jax.grad(conv_jax, argnums=(0, 1, 2))(XC, WC, BC)
    for a, b in zip(g, jg):
        close(a, b)
    per_example = ft.vmap(ft.grad(conv_loss, argnums=1), in_dims=(0, None, None))(
        XC[:, None], WC, BC
    )
    close(per_example, [jax.grad(conv_jax, argnums=1)(XC[k : k + 1], WC, BC) for k in range(2)])
