# ruff: noqa  (a published program in its authors' style)
"""JAX's examples/control.py: model-predictive nonlinear control (iLQR).  Namedtuple
specs, ``fori_loop`` over functional index updates, ``jacfwd(grad(cost, argnums=2),
argnums=1)`` and ``jacobian(dynamics, argnums=(1, 2))`` under ``vmap`` over the time
index.  ``x.at[i].set(v)`` on an array that may be a plain NumPy array is written
``jnp.at(x)[i].set(v)`` (NumPy arrays cannot grow an ``.at``); ``mpc_predict`` (it needs
``lax.dynamic_slice_in_dim``) is left out."""

import collections

import ftransforms as lax
import ftransforms.numpy as jnp
from ftransforms import grad, jacfwd, jacobian, vmap

ControlSpec = collections.namedtuple("ControlSpec", "cost dynamics horizon state_dim control_dim")
LqrSpec = collections.namedtuple("LqrSpec", "Q q R r M A B")
dot = jnp.dot
mm = jnp.matmul


def mv(mat, vec):
    assert mat.ndim == 2
    assert vec.ndim == 1
    return dot(mat, vec)


LOOP_VIA_SCAN = False


def fori_loop(lo, hi, loop, init):
    if LOOP_VIA_SCAN:
        return scan_fori_loop(lo, hi, loop, init)
    else:
        return lax.fori_loop(lo, hi, loop, init)


def scan_fori_loop(lo, hi, loop, init):
    def scan_f(x, t):
        return loop(t, x), ()

    x, _ = lax.scan(scan_f, init, jnp.arange(lo, hi))
    return x


def trajectory(dynamics, U, x0):
    T, _ = U.shape
    (d,) = x0.shape
    X = jnp.zeros((T + 1, d))
    X = jnp.at(X)[0].set(x0)

    def loop(t, X):
        x = dynamics(t, X[t], U[t])
        X = jnp.at(X)[t + 1].set(x)
        return X

    return fori_loop(0, T, loop, X)


def make_lqr_approx(p):
    T = p.horizon

    def approx_timestep(t, x, u):
        M = jacfwd(grad(p.cost, argnums=2), argnums=1)(t, x, u).T
        Q = jacfwd(grad(p.cost, argnums=1), argnums=1)(t, x, u)
        R = jacfwd(grad(p.cost, argnums=2), argnums=2)(t, x, u)
        q, r = grad(p.cost, argnums=(1, 2))(t, x, u)
        A, B = jacobian(p.dynamics, argnums=(1, 2))(t, x, u)
        return Q, q, R, r, M, A, B

    _approx = vmap(approx_timestep)

    def approx(X, U):
        assert X.shape[0] == T + 1 and U.shape[0] == T
        U_pad = jnp.vstack((U, jnp.zeros((1,) + U.shape[1:])))
        Q, q, R, r, M, A, B = _approx(jnp.arange(T + 1), X, U_pad)
        return LqrSpec(Q, q, R[:T], r[:T], M[:T], A[:T], B[:T])

    return approx


def lqr_solve(spec):
    EPS = 1e-7
    T, control_dim, _ = spec.R.shape
    _, state_dim, _ = spec.Q.shape
    K = jnp.zeros((T, control_dim, state_dim))
    k = jnp.zeros((T, control_dim))

    def rev_loop(t_, state):
        t = T - t_ - 1
        spec, P, p, K, k = state
        Q, q = spec.Q[t], spec.q[t]
        R, r = spec.R[t], spec.r[t]
        M = spec.M[t]
        A, B = spec.A[t], spec.B[t]
        AtP = mm(A.T, P)
        BtP = mm(B.T, P)
        G = R + mm(BtP, B)
        H = mm(BtP, A) + M.T
        h = r + mv(B.T, p)
        K_ = -jnp.linalg.solve(G + EPS * jnp.eye(G.shape[0]), H)
        k_ = -jnp.linalg.solve(G + EPS * jnp.eye(G.shape[0]), h)
        P_ = Q + mm(AtP, A) + mm(K_.T, H)
        p_ = q + mv(A.T, p) + mv(K_.T, h)
        K = jnp.at(K)[t].set(K_)
        k = jnp.at(k)[t].set(k_)
        return spec, P_, p_, K, k

    _, P, p, K, k = fori_loop(0, T, rev_loop, (spec, spec.Q[T + 1], spec.q[T + 1], K, k))
    return K, k


def lqr_predict(spec, x0):
    T, control_dim, _ = spec.R.shape
    _, state_dim, _ = spec.Q.shape
    K, k = lqr_solve(spec)

    def fwd_loop(t, state):
        spec, X, U = state
        A, B = spec.A[t], spec.B[t]
        u = mv(K[t], X[t]) + k[t]
        x = mv(A, X[t]) + mv(B, u)
        X = jnp.at(X)[t + 1].set(x)
        U = jnp.at(U)[t].set(u)
        return spec, X, U

    U = jnp.zeros((T, control_dim))
    X = jnp.zeros((T + 1, state_dim))
    X = jnp.at(X)[0].set(x0)
    _, X, U = fori_loop(0, T, fwd_loop, (spec, X, U))
    return X, U


def ilqr(iterations, p, x0, U):
    assert x0.ndim == 1 and x0.shape[0] == p.state_dim, x0.shape
    assert U.ndim > 0 and U.shape[0] == p.horizon, (U.shape, p.horizon)
    lqr_approx = make_lqr_approx(p)

    def loop(_, state):
        X, U = state
        p_lqr = lqr_approx(X, U)
        dX, dU = lqr_predict(p_lqr, jnp.zeros_like(x0))
        U = U + dU
        X = trajectory(p.dynamics, U, X[0] + dX[0])
        return X, U

    X = trajectory(p.dynamics, U, x0)
    return fori_loop(0, iterations, loop, (X, U))
