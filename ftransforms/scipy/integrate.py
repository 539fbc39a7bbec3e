"""``ftransforms.scipy.integrate``: ``odeint`` with derivatives by the adjoint method,
SciPy's ``solve_ivp`` (:mod:`ftransforms.scipy.ivp`: ``RK45``/``RK23`` step for step as
SciPy, the other methods on ``odeint``), the trapezoidal rules
(like ``jax.experimental.ode`` and ``jax.scipy.integrate``), and ``simpson``,
``fixed_quad`` and ``quad`` (:mod:`ftransforms.scipy.quadrature`).

``odeint(func, y0, t, *args)`` solves ``dy/dt = func(y, t, *args)`` with an adaptive
Dormand-Prince 5(4) method taking JAX's ``odeint``'s steps (relative and absolute error
control with ``rtol``/``atol``; the output times are interpolated).  The solve is one
operation with a rule for every transform (NOTE [odeint]):

* reverse mode (``grad``, ``vjp``, ``jacrev``): the adjoint method, which integrates the
  adjoint system backwards between output times (``vjp`` of ``func`` inside), giving the
  cotangents of ``y0``, of every time in ``t`` and of every ``args`` array;
* forward mode (``jvp``, ``jacfwd``): forward sensitivities, the tangent system
  integrated beside the solution (``jvp`` of ``func`` inside);
* ``vmap``: every batch element keeps its own step sizes, as in a loop;
* ``jit``: the solve is recorded as one call and replayed on new data.

Derivatives are those of the exact solution, computed to the solver's tolerance (the
adjoint and the sensitivities are solves too), not the derivatives of the discrete steps.
A traced value that ``func`` closes over becomes an extra operand (NOTE [closure
conversion] in ``ftransforms/closures.py``), so ``odeint(lambda y, t: -k * y, ...)`` is
differentiated in ``k`` as if ``k`` were passed through ``*args``.

Example:
    >>> import numpy as np
    >>> from ftransforms import grad
    >>> from ftransforms.scipy.integrate import odeint
    >>> decay = lambda y, t, k: -k * y
    >>> round(float(odeint(decay, np.array(1.0), np.array([0.0, 1.0]), 1.0)[1, 0]), 6)
    0.367879
    >>> loss = lambda k: odeint(decay, np.array(1.0), np.array([0.0, 1.0]), k)[1, 0]
    >>> round(float(grad(loss)(1.0)), 6)  # d/dk exp(-k) = -exp(-k)
    -0.367879
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.api import jvp as _jvp
from ftransforms.api import vjp as _vjp
from ftransforms.api import vmap
from ftransforms.closures import hoist_traced
from ftransforms.core.mutation import Buffer
from ftransforms.core.primitive import Primitive
from ftransforms.core.tracer import Tracer
from ftransforms.lax import ensure_bdim
from ftransforms.numpy.helpers import dtype_of, holds_tracer, normalize_axis
from ftransforms.numpy.ufuncs import float_input
from ftransforms.pytree import tree_flatten, tree_unflatten
from ftransforms.scipy.ivp import OdeResult, solve_ivp
from ftransforms.scipy.multiple_quad import dblquad, nquad, quad_vec, tplquad
from ftransforms.scipy.quadrature import fixed_quad, quad, simpson
from ftransforms.scipy.sampled_integrals import cumulative_simpson, romb

__all__ = [
    "OdeResult",
    "cumulative_simpson",
    "cumulative_trapezoid",
    "dblquad",
    "fixed_quad",
    "nquad",
    "odeint",
    "quad",
    "quad_vec",
    "romb",
    "simpson",
    "solve_ivp",
    "tplquad",
    "trapezoid",
]

# NOTE [odeint]: the solve is a primitive made per call (like ``custom_vjp``'s), whose
# operands are ``(y0, t, *args)`` with ``nb`` leading batch axes on every one of them:
# its ``vmap`` rule moves the batch axis to the front and makes the primitive with
# ``nb + 1``; its ``impl`` flattens the batch axes into one and runs ``func`` vmapped over
# it, with per-element times and step sizes.  The JVP and VJP rules bind new ``odeint``
# primitives on augmented systems (state = ``y`` and its tangent; ``y``, its cotangent and
# the cotangents of ``t0`` and ``args``), so they are transformable in turn.

# NOTE [odeint steps as JAX's]: the solver takes the steps ``jax.experimental.ode.odeint``
# takes, so a JAX program run with the import swapped prints JAX's numbers (to rounding,
# where a differently-written solver agrees only to the tolerance, about 1e-7): Hairer,
# Norsett & Wanner's starting step with 2-norms; Dormand-Prince 5 with the embedded pair
# whose last weight is 1/60 for the error, the RMS of ``err / (atol + rtol * max(|y0|,
# |y1|))`` over the whole state accepting at ``<= 1``; the next step ``h * min(10,
# max(0.9 * err**-0.2, 1 if err < 1 else 0.2))`` (10 h when the error is 0), clipped to
# ``hmax``; steps run past an output time, whose value is the quartic through the step's
# ends, slopes and Shampine's midpoint.  The adjoint state is JAX's too: ``(y, y_bar,
# t0_bar, args_bar)`` flattened.  Unlike JAX, more than ``mxstep`` steps between two
# output times give NaN and a warning, and decreasing times integrate backwards.

_DOPRI_C = (0.0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0)
_DOPRI_A = (
    (),
    (1 / 5,),
    (3 / 40, 9 / 40),
    (44 / 45, -56 / 15, 32 / 9),
    (19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729),
    (9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656),
    (35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84),
)
_DOPRI_B = (35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0.0)
# the embedded 4th-order solution of JAX's odeint (its error estimate is B - B4)
_DOPRI_B4 = (1951 / 21600, 0.0, 22642 / 50085, 451 / 720, -12231 / 42400, 649 / 6300, 1 / 60)
_DOPRI_E = tuple(b - b4 for b, b4 in zip(_DOPRI_B, _DOPRI_B4))
# y at the middle of a step (Shampine's dense output), for the interpolating quartic
_DOPRI_MID = (
    6025192743 / 30085553152 / 2,
    0.0,
    51252292925 / 65400821598 / 2,
    -2691868925 / 45128329728 / 2,
    187940372067 / 1594534317056 / 2,
    -1776094331 / 19743644256 / 2,
    11237099 / 235043384 / 2,
)

_DEFAULT_TOL = 1.49012e-8  # SciPy's rtol and atol


# -- the solver, on plain arrays -----------------------------------------------------------------


def _batched_func(func: Callable, nb: int) -> Callable:
    """``f(y, t, *args)`` on arrays with one leading batch axis: ``func`` vmapped over it
    (``func`` itself takes arrays with ``nb`` leading batch axes: vmapped ``nb`` times)."""
    inner = func
    for _ in range(nb):
        inner = vmap(inner)
    return vmap(inner)


def _check_plain(out: Any, where: str) -> Any:
    if type(out) is Buffer:  # np.array([...]) made by func while a transform is active
        return out.val
    if isinstance(out, Tracer):
        raise TypeError(
            f"{where}: func returned a traced value for plain inputs: it reaches a value "
            f"that a transform traces through an object's attribute or a global (traced "
            f"values in its closure, defaults or partial arguments are found).  Pass such "
            f"values to odeint as extra arguments (odeint(func, y0, t, *args)) instead."
        )
    return out


def _rms(xp, x):
    """Root mean square over every axis but the first."""
    flat = x.reshape(x.shape[0], -1)
    if flat.shape[1] == 0:
        return xp.zeros(x.shape[0], dtype=x.real.dtype)
    return xp.sqrt(xp.mean(xp.abs(flat) ** 2, axis=1))


def _bcast(v, like):
    return v.reshape(v.shape + (1,) * (like.ndim - v.ndim))


def _solve(xp, f, y0, ts, rtol, atol, mxstep, hmax, where):
    """Dormand-Prince 5(4) for ``B`` independent problems: ``y0`` ``(B, *S)``, ``ts``
    ``(B, T)`` monotonic per row; returns ``(B, T, *S)``.  JAX's scheme step for step
    (NOTE [odeint steps as JAX's])."""
    big, n_t = ts.shape
    direction = xp.where(ts[:, -1] >= ts[:, 0], 1.0, -1.0) if n_t else xp.ones(big)
    # integrate in s = direction * t, where the times increase
    ss = ts * direction[:, None]
    if n_t > 1 and bool(xp.any(xp.diff(ss, axis=1) < 0)):
        raise ValueError(f"{where}: t must be monotonic (increasing or decreasing)")

    def g(y, s):
        out = _check_plain(f(y, s * direction), "odeint(func, y0, t, *args)")
        return xp.asarray(out) * _bcast(direction, y).astype(y.dtype)

    y = y0.copy()
    out = xp.empty((big, n_t) + y0.shape[1:], dtype=y0.dtype)
    if n_t == 0:
        return out
    out[:, 0] = y
    if n_t == 1:
        return out
    s = ss[:, 0].copy()
    fy = g(y, s)
    h = xp.clip(_initial_step(xp, g, y, fy, s, rtol, atol), 0.0, hmax)
    last_s = s.copy()
    coeffs = xp.stack([y] * 5)  # the interpolating quartic of the last accepted step
    failed = xp.zeros(big, dtype=bool)
    for i in range(1, n_t):
        target = ss[:, i]
        steps = 0
        while True:
            active = (s < target) & (h > 0) & ~failed
            if not bool(xp.any(active)):
                break
            if steps >= mxstep:
                failed |= active
                warnings.warn(
                    f"{where}: more than mxstep={mxstep} steps between two output times; "
                    f"the rest of that solution is NaN (loosen rtol/atol or raise mxstep)",
                    RuntimeWarning,
                    stacklevel=4,
                )
                break
            steps += 1
            dt = xp.where(active, h, 0.0)
            dtb = _bcast(dt, y).astype(y.dtype)
            k = [fy]
            for j in range(1, 7):
                incr = sum(a * kk for a, kk in zip(_DOPRI_A[j], k) if a)
                k.append(g(y + dtb * incr, s + _DOPRI_C[j] * dt))
            y_new = y + dtb * sum(b * kk for b, kk in zip(_DOPRI_B, k) if b)
            err_vec = dtb * sum(e * kk for e, kk in zip(_DOPRI_E, k) if e)
            tol = atol + rtol * xp.maximum(xp.abs(y), xp.abs(y_new))
            err = _rms(xp, err_vec / tol)
            y_mid = y + dtb * sum(m * kk for m, kk in zip(_DOPRI_MID, k) if m)
            fit = _quartic(y, y_new, y_mid, k[0] * dtb, k[6] * dtb)
            accept = active & (err <= 1.0)
            ab = _bcast(accept, y)
            coeffs = xp.where(ab[None], xp.stack(fit), coeffs)
            y = xp.where(ab, y_new, y)
            fy = xp.where(ab, k[6], fy)
            last_s = xp.where(accept, s, last_s)
            s = xp.where(accept, s + dt, s)
            h = xp.where(active, xp.clip(_next_step(xp, dt, err), 0.0, hmax), h)
        # the quartic of the step that passed the output time, at that time
        moved = s > last_s
        r = xp.where(moved, (target - last_s) / xp.where(moved, s - last_s, 1.0), 0.0)
        rb = _bcast(r, y).astype(y.dtype)
        at = coeffs[0]
        for c in coeffs[1:]:
            at = at * rb + c
        out[:, i] = xp.where(_bcast(failed, y), xp.nan, at)
    return out


def _norm(xp, x):
    """The 2-norm of each row (every axis but the first)."""
    flat = x.reshape(x.shape[0], -1)
    return xp.sqrt(xp.sum(xp.abs(flat) ** 2, axis=1))


def _initial_step(xp, g, y, fy, s, rtol, atol):
    """Hairer, Norsett & Wanner's starting step (Sec. II.4) for order 4, with 2-norms."""
    scale = atol + rtol * xp.abs(y)
    d0, d1 = _norm(xp, y / scale), _norm(xp, fy / scale)
    with numpy.errstate(divide="ignore", invalid="ignore"):
        h0 = xp.where((d0 < 1e-5) | (d1 < 1e-5), 1e-6, 0.01 * d0 / d1)
        y1 = y + _bcast(h0, y).astype(y.dtype) * fy
        d2 = _norm(xp, (g(y1, s + h0) - fy) / scale) / h0
        h1 = xp.where(
            (d1 <= 1e-15) & (d2 <= 1e-15),
            xp.maximum(1e-6, h0 * 1e-3),
            (0.01 / xp.maximum(d1, d2)) ** 0.2,
        )
    return xp.minimum(100.0 * h0, h1)


def _next_step(xp, h, err):
    """The next step size after a step of size ``h`` with error ratio ``err``: it never
    shrinks after an accepted step (safety 0.9, growth at most 10, shrink at most 5)."""
    with numpy.errstate(divide="ignore"):
        factor = xp.minimum(10.0, xp.maximum(0.9 * err**-0.2, xp.where(err < 1, 1.0, 0.2)))
    return xp.where(err == 0, 10.0 * h, h * factor)


def _quartic(y0, y1, y_mid, h_dy0, h_dy1):
    """The coefficients (highest power first) of the quartic in ``r = (t - t0) / h``
    through ``y0``, ``y_mid`` (at ``r = 1/2``) and ``y1`` with slopes ``h * dy0`` and
    ``h * dy1`` at the ends."""
    return (
        -2.0 * h_dy0 + 2.0 * h_dy1 - 8.0 * y0 - 8.0 * y1 + 16.0 * y_mid,
        5.0 * h_dy0 - 3.0 * h_dy1 + 18.0 * y0 + 14.0 * y1 - 32.0 * y_mid,
        -4.0 * h_dy0 + h_dy1 - 11.0 * y0 - 5.0 * y1 + 16.0 * y_mid,
        h_dy0,
        y0,
    )


# -- the primitive ---------------------------------------------------------------------------


def _flatten_batch(x: Any, nb: int) -> tuple[Any, tuple]:
    shape = tuple(x.shape)
    lead = shape[:nb]
    return x.reshape((math.prod(lead),) + shape[nb:]), lead


def _make(func: Callable, nb: int, n_args: int, opts: tuple, name: str) -> Primitive:
    rtol, atol, mxstep, hmax = opts

    def impl(xp, y0, t, *args):
        y0, t = xp.asarray(y0), xp.asarray(t)
        dt = numpy.result_type(y0.dtype, numpy.float32) if y0.dtype.kind != "c" else y0.dtype
        y0 = y0.astype(dt, copy=False)
        args = [xp.asarray(a) for a in args]
        if nb == 0:
            fb = _single(func)
            yb, tb, ab, lead = y0[None], t[None], [a[None] for a in args], ()
        else:
            fb = _batched_func(func, 0)  # the nb batch axes are flattened into one
            yb, lead = _flatten_batch(y0, nb)
            tb = _flatten_batch(t, nb)[0]
            ab = [_flatten_batch(a, nb)[0] for a in args]

        def f(y, s):
            return fb(y, s.astype(tb.dtype), *ab)

        out = _solve(xp, f, yb, tb, rtol, atol, mxstep, hmax, name)
        out = out.reshape(lead + out.shape[1:]) if nb else out[0]
        return out

    def batch(prim, args, bdims, axis_size):

        moved = [ensure_bdim(a, d, axis_size) for a, d in zip(args, bdims)]
        return _make(func, nb + 1, n_args, opts, name).bind(*moved), 0

    def jvp(tangents, ys, y0, t, *args):
        return _odeint_jvp(func, nb, opts, name, tangents, ys, y0, t, args)

    def vjp(y_bar, ys, y0, t, *args, wanted):
        return _odeint_vjp(func, nb, opts, name, y_bar, ys, y0, t, args, wanted)

    return Primitive(name, impl, jvp=jvp, vjp=vjp, batch=batch)


def _single(func: Callable) -> Callable:
    """``func`` on a batch of one."""

    def f(y, s, *args):
        out = _check_plain(func(y[0], s[0], *[a[0] for a in args]), "odeint(func, y0, t, *args)")
        return fnp.asarray(out)[None]

    return f


def _func_nb(func: Callable, nb: int) -> Callable:
    """``func`` on operands with ``nb`` leading batch axes (``t`` a per-element scalar)."""
    if nb == 0:
        return func
    return _batched_func(func, nb - 1)


def _at_times(func: Callable, nb: int, ys: Any, t: Any, args: tuple) -> Any:
    """``func(ys[i], t[i], *args)`` for every output time ``i`` (axis ``nb``)."""
    fb = _func_nb(func, nb)
    ys_t = fnp.moveaxis(ys, nb, 0)
    t_t = fnp.moveaxis(t, nb, 0)
    out = vmap(fb, in_dims=(0, 0) + (None,) * len(args))(ys_t, t_t, *args)
    return fnp.moveaxis(out, 0, nb)


def _sum_per_element(x: Any, nb: int) -> Any:
    """Sum over every axis after the ``nb`` batch axes."""
    axes = tuple(range(nb, fnp.ndim(x)))
    return fnp.sum(x, axis=axes) if axes else x


def _inexact(x: Any) -> bool:
    return dtype_of(x).kind in "fc"


def _odeint_jvp(func, nb, opts, name, tangents, ys, y0, t, args):

    y0_dot, t_dot, *args_dot = tangents
    n = len(args)
    diff_args = [i for i in range(n) if args_dot[i] is not None and _inexact(args[i])]
    fb = _func_nb(func, nb)
    t0 = t[(slice(None),) * nb + (0,)]
    start = fnp.zeros_like(y0) if y0_dot is None else y0_dot
    if t_dot is not None:
        t0_dot = t_dot[(slice(None),) * nb + (0,)]
        f0 = fb(y0, t0, *args)
        start = start - f0 * fnp.reshape(t0_dot, fnp.shape(t0_dot) + (1,) * (fnp.ndim(f0) - nb))
    if y0_dot is None and t_dot is None and not diff_args:
        return fnp.zeros_like(ys)

    if y0_dot is not None or diff_args or t_dot is not None:

        def tangent_system(state, tt, *all_args):
            a, a_dot = all_args[:n], all_args[n:]
            y, y_dot = state[0], state[1]
            prim_in = (y,) + tuple(a[i] for i in diff_args)
            tan_in = (y_dot,) + tuple(a_dot)

            def fy(y_, *da):
                full = list(a)
                for i, v in zip(diff_args, da):
                    full[i] = v
                return func(y_, tt, *full)

            fval, fdot = _jvp(fy, prim_in, tan_in)
            return fnp.stack([fval, fdot])

        state0 = fnp.stack([y0, start], axis=nb)
        extra = [args_dot[i] for i in diff_args]
        prim = _make(tangent_system, nb, 2 * n, opts, name + "_jvp")
        sol = prim.bind(state0, t, *args, *extra)
        ys_dot = sol[(slice(None),) * (nb + 1) + (1,)]
    if t_dot is not None:
        f_all = _at_times(func, nb, ys, t, args)
        ys_dot = ys_dot + f_all * fnp.reshape(
            t_dot, fnp.shape(t_dot) + (1,) * (fnp.ndim(f_all) - fnp.ndim(t_dot))
        )
    return ys_dot


def _odeint_vjp(func, nb, opts, name, y_bar, ys, y0, t, args, wanted):

    n = len(args)
    diff_args = [i for i in range(n) if _inexact(args[i])]
    lead = (slice(None),) * nb
    n_t = fnp.shape(t)[nb]
    g = fnp.zeros_like(ys) if y_bar is None else y_bar
    sshape = fnp.shape(y0)[nb:]
    size = math.prod(sshape)
    arg_shapes = [fnp.shape(args[i])[nb:] for i in diff_args]
    arg_sizes = [math.prod(s) for s in arg_shapes]

    def pack(y, yb, t0b, abars):
        parts = [fnp.ravel(y), fnp.ravel(yb), fnp.reshape(t0b, (1,))]
        parts += [fnp.ravel(v) for v in abars]
        return fnp.concatenate(parts)

    def unpack(state):
        y = fnp.reshape(state[:size], sshape)
        yb = fnp.reshape(state[size : 2 * size], sshape)
        t0b = state[2 * size]
        out, pos = [], 2 * size + 1
        for s, k in zip(arg_shapes, arg_sizes):
            out.append(fnp.reshape(state[pos : pos + k], s))
            pos += k
        return y, yb, t0b, out

    def adjoint_system(state, s, *a):
        y, yb, _, _ = unpack(state)

        def fy(y_, t_, *da):
            full = list(a)
            for i, v in zip(diff_args, da):
                full[i] = v
            return func(y_, t_, *full)

        y_dot, pull = _vjp(fy, y, -s, *[a[i] for i in diff_args])
        y_ct, t_ct, *a_cts = pull(yb)
        return pack(-y_dot, y_ct, t_ct, a_cts)

    pack_nb = pack
    unpack_nb = unpack
    for _ in range(nb):
        pack_nb = vmap(pack_nb)
        unpack_nb = vmap(unpack_nb)

    prim = _make(adjoint_system, nb, n, opts, name + "_adjoint")
    fb = _func_nb(func, nb)
    y_state = g[lead + (n_t - 1,)]
    t0_bar = fnp.zeros(fnp.shape(t)[:nb], dtype=dtype_of(ys), like=ys)
    a_bars = [fnp.zeros(fnp.shape(args[i]), dtype=dtype_of(ys), like=ys) for i in diff_args]
    t_bars = []
    for i in range(n_t - 1, 0, -1):
        ti = t[lead + (i,)]
        t_bar = _sum_per_element(fb(ys[lead + (i,)], ti, *args) * g[lead + (i,)], nb)
        t_bars.append(t_bar)
        t0_bar = t0_bar - t_bar
        state0 = pack_nb(ys[lead + (i,)], y_state, t0_bar, a_bars)
        times = fnp.stack([-ti, -t[lead + (i - 1,)]], axis=-1)
        sol = prim.bind(state0, times, *args)
        _, y_state, t0_bar, a_bars = unpack_nb(sol[lead + (1,)])
        y_state = y_state + g[lead + (i - 1,)]
    t_bar_all = fnp.stack([t0_bar] + t_bars[::-1], axis=-1) if n_t else fnp.zeros_like(t)
    out = [y_state if wanted[0] else None]
    out.append(fnp.astype(t_bar_all, dtype_of(t)) if wanted[1] and _inexact(t) else None)
    bars = dict(zip(diff_args, a_bars))
    for i in range(n):
        out.append(bars[i] if wanted[2 + i] and i in bars else None)
    return tuple(out)


def _as_array_func(func: Callable) -> Callable:
    """``func`` returning one array of ``y``'s shape and dtype (SciPy's callers often
    return a list: ``return [y[1], -y[0]]``)."""

    def f(y, t, *args):
        out = func(y, t, *args)
        if not (isinstance(out, Tracer) or hasattr(out, "dtype")):
            out = fnp.asarray(out) if holds_tracer(out) else fnp.asarray(out, like=y)
        if fnp.shape(out) != fnp.shape(y):
            raise ValueError(
                f"odeint(func, y0, t, *args): func(y, t, *args) must have y's shape "
                f"{fnp.shape(y)}, got {fnp.shape(out)}"
            )
        return out if dtype_of(out) == dtype_of(y) else fnp.astype(out, dtype_of(y))

    f.__name__ = getattr(func, "__name__", "func")
    return f


def _scipy_or_jax_args(func: Callable, y0: Any, t: Any, args: tuple) -> tuple:
    """One tuple after ``t``: JAX's reading (``func(y, t, the_tuple)``) when ``func``
    takes it and returns ``y``'s shape, else SciPy's (its ``args`` tuple,
    ``func(y, t, *the_tuple)``) when that does, as SciPy/autograd programs write
    ``odeint(f, y0, t, (params,))``.  The shape matters: NumPy reads a tuple of arrays as
    one stacked array, so ``np.dot(y, (W,))`` runs under JAX's reading with a wrong shape."""

    def fits(extra: tuple) -> bool:
        try:
            return fnp.shape(func(y0, t[0], *extra)) == fnp.shape(y0)
        except Exception:  # noqa: BLE001 - a reading func does not take
            return False

    with warnings.catch_warnings(), numpy.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # trial calls: what they warn about is not kept
        if fits(args) or not fits(args[0]):
            return args  # JAX's reading (its error surfaces when neither fits)
        return args[0]


def odeint(
    func: Callable,
    y0: Any,
    t: Any,
    *args: Any,
    rtol: float | None = None,
    atol: float | None = None,
    mxstep: int | float = math.inf,
    hmax: float = math.inf,
    **scipy_options: Any,
) -> Any:
    """Solve ``dy/dt = func(y, t, *args)`` from ``y(t[0]) = y0``; returns ``y`` at every
    time of ``t`` (shape ``(len(t),) + y0.shape``; ``(len(t), 1)`` for a scalar ``y0``,
    which ``func`` sees as the vector ``[y]``, as in SciPy).  SciPy's ``args=(...)`` keyword works
    too, and so does ``tfirst=True`` (``func(t, y, *args)``).  The extra arguments may be
    pytrees of arrays (tuples, lists, dicts), as in JAX.  One tuple after ``t`` is read as
    JAX does (one argument) when ``func`` accepts it, else as SciPy's ``args`` tuple (its
    items the arguments: ``odeint(f, y0, t, (params,))`` in SciPy/autograd programs).
    Derivatives in ``y0``, ``t`` and ``args``, every leaf (see the module docstring).

    Example:
        >>> import numpy as np
        >>> ys = odeint(lambda y, t: np.array([y[1], -y[0]]), np.array([0.0, 1.0]),
        ...             np.linspace(0.0, np.pi / 2, 3))
        >>> (ys[-1].round(6) + 0.0).tolist()
        [1.0, 0.0]
    """
    where = "odeint(func, y0, t, *args)"
    extra_args = scipy_options.pop("args", None)
    if scipy_options.pop("tfirst", False):  # SciPy's func(t, y, *args) order
        user_func = func
        if not callable(user_func):
            raise TypeError(f"{where}: func must be callable, got {type(func).__name__}")

        def func(y, t, *a):
            return user_func(t, y, *a)

        func.__name__ = getattr(user_func, "__name__", "func")
    if extra_args is not None:
        if args:
            raise TypeError(f"{where}: give the extra arguments positionally or as args=, not both")
        args = tuple(extra_args) if isinstance(extra_args, (tuple, list)) else (extra_args,)
    ignored = {
        "h0",
        "hmin",
        "col_deriv",
        "printmessg",
        "tcrit",
        "ixpr",
        "mxhnil",
        "mxordn",
        "mxords",
        "Dfun",
        "ml",
        "mu",
        "full_output",
    }
    bad = sorted(
        k for k, v in scipy_options.items() if k not in ignored or v not in (None, 0, 0.0, False)
    )
    if bad:
        raise TypeError(
            f"{where}: unsupported options {bad}; odeint takes rtol, atol, mxstep, hmax and "
            f"args (the others of scipy.integrate.odeint are LSODA settings)"
        )
    if not callable(func):
        raise TypeError(f"{where}: func must be callable, got {type(func).__name__}")
    rtol = _DEFAULT_TOL if rtol is None else float(rtol)
    atol = _DEFAULT_TOL if atol is None else float(atol)
    mxstep = math.inf if mxstep in (0, None) else mxstep
    hmax = math.inf if hmax in (0, None) else float(hmax)
    y0 = float_input(y0 if hasattr(y0, "dtype") else fnp.asarray(y0), None)
    t = float_input(t if hasattr(t, "dtype") else fnp.asarray(t), None)
    if fnp.ndim(t) != 1:
        raise ValueError(f"{where}: t must be 1-D, got shape {fnp.shape(t)}")
    if fnp.ndim(y0) == 0:  # SciPy's: a scalar y0 is the vector [y0]: y is (len(t), 1)
        y0 = fnp.reshape(y0, (1,))
        scalar_func = func

        def func(y, t, *a):
            return fnp.reshape(scalar_func(y, t, *a), (1,))

        func.__name__ = getattr(scalar_func, "__name__", "func")
    if len(args) == 1 and type(args[0]) is tuple and extra_args is None:
        args = _scipy_or_jax_args(func, y0, t, args)
    # Traced values func closes over become extra operands (NOTE [closure conversion]).
    func, hoisted = hoist_traced(func)
    # The extra arguments may be pytrees (tuples, dicts of arrays, as in JAX): the
    # primitive takes their leaves, and func gets them rebuilt.
    leaves, args_spec = tree_flatten(args)
    n_user = len(leaves)
    leaves = leaves + hoisted
    conv = []
    for k, a in enumerate(leaves):
        if not (isinstance(a, (int, float, complex, bool)) or hasattr(a, "dtype")):
            raise TypeError(
                f"{where}: extra argument leaf {k} must be an array or a number, got "
                f"{type(a).__name__}; close over other values instead"
            )
        conv.append(a if hasattr(a, "dtype") else fnp.asarray(a, like=y0))
    if hoisted or args_spec != tree_flatten(tuple(leaves))[1]:
        tree_func = func

        def func(y, t, *flat):
            return tree_func(y, t, *tree_unflatten(args_spec, flat[:n_user]), *flat[n_user:])

        func.__name__ = getattr(tree_func, "__name__", "func")
    name = f"odeint({getattr(func, '__name__', 'func')})"
    prim = _make(_as_array_func(func), 0, len(conv), (rtol, atol, mxstep, hmax), name)
    return prim.bind(y0, t, *conv)


# -- trapezoidal rules ------------------------------------------------------------------------


def trapezoid(y: Any, x: Any = None, dx: float = 1.0, axis: int = -1) -> Any:
    """``scipy.integrate.trapezoid``: the trapezoidal rule along ``axis``.

    Example:
        >>> import numpy as np
        >>> float(trapezoid(np.array([1.0, 2.0, 3.0])))
        4.0
    """
    return fnp.trapezoid(y, x=x, dx=dx, axis=axis)


def cumulative_trapezoid(
    y: Any, x: Any = None, dx: float = 1.0, axis: int = -1, initial: Any = None
) -> Any:
    """``scipy.integrate.cumulative_trapezoid``: the running trapezoidal integral along
    ``axis`` (one shorter, or ``initial`` first).

    Example:
        >>> import numpy as np
        >>> cumulative_trapezoid(np.array([1.0, 2.0, 3.0]), initial=0).tolist()
        [0.0, 1.5, 4.0]
    """
    y = float_input(y if hasattr(y, "dtype") else fnp.asarray(y), None)
    nd = fnp.ndim(y)
    axis = normalize_axis(axis, nd)
    y = fnp.moveaxis(y, axis, -1)
    if x is None:
        d = dx
    else:
        x = float_input(x if hasattr(x, "dtype") else fnp.asarray(x), None)
        if fnp.ndim(x) == 1:
            d = fnp.diff(x)
        else:
            d = fnp.diff(fnp.moveaxis(x, axis, -1), axis=-1)
    pieces = (y[..., 1:] + y[..., :-1]) * d / 2.0
    out = fnp.cumsum(pieces, axis=-1)
    if initial is not None:
        first = fnp.zeros(fnp.shape(out)[:-1] + (1,), dtype=dtype_of(out)) + initial
        out = fnp.concatenate([first, out], axis=-1)
    return fnp.moveaxis(out, -1, axis)
