"""``solve_ivp`` on tracers, with SciPy's signature and result, in two ways.

``RK45`` and ``RK23`` (SciPy's default is ``RK45``) run SciPy's explicit Runge-Kutta
solvers step for step, written with :mod:`ftransforms.numpy`.

The solver takes SciPy's steps: the same tableaux, initial step, error norm and step-size
controller, and SciPy's dense output at ``t_eval``, so the values equal
``scipy.integrate.solve_ivp``'s to rounding.  The step sizes are chosen from the values
with their derivatives stopped (a Python float each), as adaptive solvers in JAX's
ecosystem do; the derivative of the result is the derivative of the steps taken
("discretise, then differentiate"), which agrees with the exact sensitivity to the
solver's tolerance.  Under ``vmap`` rows whose step sequences differ run apart (the batch
splits); under ``jit`` the solve runs eagerly (its trip count is data-dependent).  For an
adjoint solve whose memory does not grow with the steps, use :func:`odeint`.

The other methods (``DOP853``, ``Radau``, ``BDF``, ``LSODA``), ``dense_output=True`` and
traced times (``t_span``, ``t_eval``) run on :func:`odeint`'s differentiable solver
instead (Dormand-Prince 5(4) whichever method is named; a stiff problem is solved
correctly but with many small steps): values agree with SciPy's to the tolerances, not
step for step, derivatives are the exact solution's (adjoint), and without ``t_eval``
the result holds the two ends of ``t_span`` only.

Example:
    >>> import numpy as np
    >>> from ftransforms import grad
    >>> from ftransforms.scipy.integrate import solve_ivp
    >>> sol = solve_ivp(lambda t, y: -y, (0.0, 1.0), np.array([1.0]), rtol=1e-8, atol=1e-10)
    >>> round(float(sol.y[0, -1]), 6)  # exp(-1)
    0.367879
    >>> def end(y0):
    ...     return solve_ivp(lambda t, y: -y, (0.0, 1.0), y0, rtol=1e-8, atol=1e-10).y[0, -1]
    >>> round(float(grad(end)(np.array([2.0]))[0]), 6)
    0.367879
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.helpers import dtype_of, holds_tracer
from ftransforms.numpy.ufuncs import float_input

__all__ = ["OdeResult", "solve_ivp"]

_SAFETY, _MIN_FACTOR, _MAX_FACTOR = 0.9, 0.2, 10.0


class _Tableau:
    """An explicit Runge-Kutta pair: stages ``A``/``C``, weights ``B``, error weights ``E``
    (one more than the stages: the last multiplies ``f(t + h, y_new)``) and the dense
    output's polynomial coefficients ``P``."""

    def __init__(self, order, err_order, A, B, C, E, P) -> None:
        self.order, self.err_order = order, err_order
        self.error_exponent = -1.0 / (err_order + 1)
        self.A, self.B, self.C = numpy.array(A), numpy.array(B), numpy.array(C)
        self.E, self.P = numpy.array(E), numpy.array(P)


_RK23 = _Tableau(
    3,
    2,
    A=[[0, 0, 0], [1 / 2, 0, 0], [0, 3 / 4, 0]],
    B=[2 / 9, 1 / 3, 4 / 9],
    C=[0, 1 / 2, 3 / 4],
    E=[5 / 72, -1 / 12, -1 / 9, 1 / 8],
    P=[[1, -4 / 3, 5 / 9], [0, 1, -2 / 3], [0, 4 / 3, -8 / 9], [0, -1, 1]],
)

_RK45 = _Tableau(  # Dormand-Prince 5(4), with Shampine's dense output
    5,
    4,
    A=[
        [0, 0, 0, 0, 0],
        [1 / 5, 0, 0, 0, 0],
        [3 / 40, 9 / 40, 0, 0, 0],
        [44 / 45, -56 / 15, 32 / 9, 0, 0],
        [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729, 0],
        [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656],
    ],
    B=[35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84],
    C=[0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1],
    E=[-71 / 57600, 0, 71 / 16695, -71 / 1920, 17253 / 339200, -22 / 525, 1 / 40],
    P=[
        [1, -8048581381 / 2820520608, 8663915743 / 2820520608, -12715105075 / 11282082432],
        [0, 0, 0, 0],
        [0, 131558114200 / 32700410799, -68118460800 / 10900136933, 87487479700 / 32700410799],
        [0, -1754552775 / 470086768, 14199869525 / 1410260304, -10690763975 / 1880347072],
        [
            0,
            127303824393 / 49829197408,
            -318862633887 / 49829197408,
            701980252875 / 199316789632,
        ],
        [0, -282668133 / 205662961, 2019193451 / 616988883, -1453857185 / 822651844],
        [0, 40617522 / 29380423, -110615467 / 29380423, 69997945 / 29380423],
    ],
)

_METHODS = {"RK45": _RK45, "RK23": _RK23}
#: the methods answered on odeint's solver
_ON_ODEINT = ("DOP853", "Radau", "BDF", "LSODA")
#: options of SciPy's implicit solvers and step control that do not change the solution
_IGNORED = ("first_step", "min_step", "jac", "jac_sparsity", "lband", "uband")


class OdeResult(dict):
    """``solve_ivp``'s result, SciPy's fields as attributes: ``t``, ``y`` (n, points),
    ``sol`` (None), ``t_events``/``y_events`` (None), ``nfev``, ``njev``, ``nlu``,
    ``status``, ``message``, ``success``.

    Example:
        >>> from ftransforms.scipy.integrate import OdeResult
        >>> OdeResult(status=0).status
        0
    """

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __repr__(self) -> str:
        return "\n".join(f"{k:>9}: {v!r}" for k, v in self.items())


def _value(x: Any) -> float:
    """A Python float of ``x`` with its derivative stopped (the controller's inputs)."""
    return float(fnp.stop_gradient(x))


def _rms(x: Any) -> float:
    return _value(fnp.linalg.norm(x)) / math.sqrt(max(fnp.size(x), 1))


def _initial_step(fun, t0, y0, f0, direction, order, rtol, atol, max_step, t_bound) -> float:
    """SciPy's starting step (Hairer, Norsett & Wanner, II.4)."""
    if fnp.size(y0) == 0:
        return math.inf
    length = abs(t_bound - t0)
    if length == 0.0:
        return 0.0
    scale = atol + fnp.abs(y0) * rtol
    d0, d1 = _rms(y0 / scale), _rms(f0 / scale)
    h0 = 1e-6 if d0 < 1e-5 or d1 < 1e-5 else 0.01 * d0 / d1
    h0 = min(h0, length)
    f1 = fun(t0 + h0 * direction, y0 + h0 * direction * f0)
    d2 = _rms((f1 - f0) / scale) / h0
    if d1 <= 1e-15 and d2 <= 1e-15:
        h1 = max(1e-6, h0 * 1e-3)
    else:
        h1 = (0.01 / max(d1, d2)) ** (1.0 / (order + 1))
    return min(100 * h0, h1, length, max_step)


def _stages(fun, tab: _Tableau, t: float, y: Any, f: Any, h: float) -> tuple:
    """One step: the stages ``K`` (the last is ``f(t + h, y_new)``) and ``y_new``, the
    sums as SciPy orders them (``K.T @ a``), so that the error norms match to the bit."""
    K = [f]
    for s in range(1, len(tab.C)):
        dy = fnp.matmul(fnp.stack(K, axis=-1), tab.A[s, :s]) * h
        K.append(fun(t + tab.C[s] * h, y + dy))
    y_new = y + h * fnp.matmul(fnp.stack(K, axis=-1), tab.B)
    K.append(fun(t + h, y_new))
    return K, y_new


def _dense(tab: _Tableau, K: list, t_old: float, h: float, y_old: Any, times: Any) -> Any:
    """SciPy's dense output of the step from ``t_old`` at ``times``: shape (n, len)."""
    x = (numpy.asarray(times, dtype=float) - t_old) / h
    powers = numpy.cumprod(numpy.tile(x, (tab.P.shape[1], 1)), axis=0)  # x, x**2, ...
    weights = tab.P @ powers  # (stages + 1, len)
    stacked = fnp.stack(K, axis=-1)  # (n, stages + 1)
    return y_old[:, None] + h * fnp.matmul(stacked, weights)


def solve_ivp(
    fun: Callable,
    t_span: Any,
    y0: Any,
    method: str = "RK45",
    t_eval: Any = None,
    dense_output: bool = False,
    events: Any = None,
    vectorized: bool = False,
    args: tuple | None = None,
    **options: Any,
) -> OdeResult:
    """Solve ``dy/dt = fun(t, y, *args)`` from ``y(t_span[0]) = y0`` as
    ``scipy.integrate.solve_ivp``: ``RK45``/``RK23`` step for step as SciPy (options
    ``rtol``, ``atol``, ``max_step``, ``first_step``), the other methods,
    ``dense_output=True`` and traced times on :func:`odeint` (see the module docstring);
    differentiable in ``y0``, in ``args`` and in what ``fun`` closes over.  ``events``
    are refused.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.integrate import solve_ivp
        >>> sol = solve_ivp(lambda t, y: -2 * y, (0, 1), np.array([1.0]), t_eval=[0.5, 1.0])
        >>> sol.t.tolist(), sol.y.shape
        ([0.5, 1.0], (1, 2))
    """
    where = "solve_ivp(fun, t_span, y0)"
    if events is not None:
        raise UnsupportedOperationError(
            f"{where}: events are not available under the transforms (where an event "
            f"happens depends on the values); solve on a t_eval grid and locate the event "
            f"in the result, or call scipy.integrate.solve_ivp outside the transform"
        )
    if not (isinstance(method, str) and method in (*_METHODS, *_ON_ODEINT)):
        raise ValueError(
            f"{where}: method must be one of {[*_METHODS, *_ON_ODEINT]}, got {method!r}"
        )
    if method in _ON_ODEINT or dense_output or holds_tracer(t_span) or holds_tracer(t_eval):
        return _on_odeint(
            fun, t_span, y0, method, t_eval, dense_output, None, vectorized, args, **options
        )
    tab = _METHODS[method]
    unknown = set(options) - {"rtol", "atol", "max_step", *_IGNORED}
    if unknown:
        raise TypeError(f"{where}: unexpected options {sorted(unknown)}")
    rtol, atol = options.get("rtol", 1e-3), options.get("atol", 1e-6)
    max_step = options.get("max_step", math.inf)
    t0, t_bound = float(t_span[0]), float(t_span[1])
    y0 = fnp.asarray(y0)
    if y0.ndim != 1:
        raise ValueError(f"{where}: y0 must be 1-dimensional, got shape {y0.shape}")
    if y0.dtype.kind in "biu":
        y0 = y0.astype(fnp.float64)
    extra = () if args is None else tuple(args) if isinstance(args, (tuple, list)) else (args,)
    nfev = [0]

    def rhs(t: float, y: Any) -> Any:
        nfev[0] += 1
        out = fun(t, y[:, None], *extra) if vectorized else fun(t, y, *extra)
        out = fnp.asarray(out)
        return fnp.ravel(out) if vectorized else out

    direction = 1.0 if t_bound == t0 else math.copysign(1.0, t_bound - t0)
    if t_eval is not None:
        t_eval = numpy.asarray(t_eval, dtype=float)
        lo, hi = min(t0, t_bound), max(t0, t_bound)
        if t_eval.ndim != 1 or (t_eval.size and (t_eval.min() < lo or t_eval.max() > hi)):
            raise ValueError(f"{where}: t_eval must be 1-D and within t_span")
        steps = numpy.diff(t_eval)
        if (direction > 0 and (steps <= 0).any()) or (direction < 0 and (steps >= 0).any()):
            raise ValueError(f"{where}: t_eval must be sorted in t_span's direction")

    t, y = t0, y0
    f = rhs(t, y)
    if "first_step" in options and options["first_step"] is not None:
        h_abs = float(options["first_step"])
    else:
        h_abs = _initial_step(rhs, t, y, f, direction, tab.err_order, rtol, atol, max_step, t_bound)
    ts, ys = ([t0], [y0]) if t_eval is None else ([], [])
    next_eval, status = 0, None
    message = "The solver successfully reached the end of the integration interval."
    while status is None:
        if fnp.size(y) == 0 or t == t_bound:
            status = 0
            break
        min_step = 10 * abs(numpy.nextafter(t, direction * numpy.inf) - t)
        h_abs = min(max(h_abs, min_step), max_step)
        rejected = False
        while True:
            if h_abs < min_step:
                status, message = -1, "Required step size is less than spacing between numbers."
                break
            t_new = t + h_abs * direction
            if direction * (t_new - t_bound) > 0:
                t_new = t_bound
            h = t_new - t
            h_abs = abs(h)
            K, y_new = _stages(rhs, tab, t, y, f, h)
            scale = atol + fnp.maximum(fnp.abs(y), fnp.abs(y_new)) * rtol
            err = fnp.matmul(fnp.stack(K, axis=-1), tab.E) * h
            error_norm = _rms(err / scale)
            if error_norm < 1:
                factor = (
                    _MAX_FACTOR
                    if error_norm == 0
                    else min(_MAX_FACTOR, _SAFETY * error_norm**tab.error_exponent)
                )
                h_abs *= min(1.0, factor) if rejected else factor
                break
            h_abs *= max(_MIN_FACTOR, _SAFETY * error_norm**tab.error_exponent)
            rejected = True
        if status is not None:
            break
        t_old, y_old, t, y, f = t, y, t_new, y_new, K[-1]
        if t_eval is None:
            ts.append(t)
            ys.append(y)
        else:
            past = t_eval[next_eval:] <= t if direction > 0 else t_eval[next_eval:] >= t
            stop = next_eval + int(numpy.count_nonzero(past))
            if stop > next_eval:
                times = t_eval[next_eval:stop]
                ts.append(times)
                ys.append(_dense(tab, K, t_old, h, y_old, times))
                next_eval = stop
        if direction * (t - t_bound) >= 0:
            status = 0
    if t_eval is None:
        t_out, y_out = numpy.array(ts), fnp.stack(ys, axis=1)
    elif ts:
        t_out, y_out = numpy.concatenate(ts), fnp.concatenate(ys, axis=1)
    else:
        t_out, y_out = numpy.array([]), fnp.zeros((fnp.size(y0), 0), dtype=y0.dtype)
    return OdeResult(
        t=t_out,
        y=y_out,
        sol=None,
        t_events=None,
        y_events=None,
        nfev=nfev[0],
        njev=0,
        nlu=0,
        status=status,
        message=message,
        success=status >= 0,
    )


class _Dense:
    """``sol(t)``: the solution at any ``t`` in the range (solved again from ``t_span[0]``,
    so it is differentiable like the solve)."""

    def __init__(self, solve: Callable, t0: Any) -> None:
        self.solve, self.t0 = solve, t0

    def __call__(self, t: Any) -> Any:
        t = float_input(t if hasattr(t, "dtype") else fnp.asarray(t), None)
        scalar = fnp.ndim(t) == 0
        ts = fnp.reshape(t, (-1,))
        order = None
        if not isinstance(ts, Tracer):  # plain times: solved in order, returned as asked
            dist = numpy.abs(numpy.asarray(ts) - float(fnp.stop_gradient(self.t0)))
            order = numpy.argsort(dist, kind="stable")
            ts = ts[order]
        ys = self.solve(fnp.concatenate([fnp.reshape(self.t0, (1,)), ts]))[1:]
        if order is not None:
            ys = ys[numpy.argsort(order)]
        out = fnp.moveaxis(ys, 0, -1)
        return out[..., 0] if scalar else out


def _on_odeint(
    fun: Callable,
    t_span: Any,
    y0: Any,
    method: Any = "RK45",
    t_eval: Any = None,
    dense_output: bool = False,
    events: Any = None,
    vectorized: bool = False,
    args: Any = None,
    **options: Any,
) -> OdeResult:
    """SciPy's ``solve_ivp`` on :func:`~ftransforms.scipy.integrate.odeint`'s adjoint
    solver (Dormand-Prince 5(4) whichever ``method``): for the implicit methods, for
    ``dense_output=True`` and for traced times; the values agree with SciPy's to the
    tolerances, and the result holds ``t_eval`` (or the two ends of ``t_span``)."""
    from ftransforms.scipy.integrate import odeint  # noqa: PLC0415  late import: integrate re-exports this module

    where = "solve_ivp(fun, t_span, y0)"
    if events is not None:
        raise UnsupportedOperationError(
            f"{where}: events are not available under the transforms (where an event "
            f"happens depends on the values); solve on a t_eval grid and locate the event "
            f"in the result, or call scipy.integrate.solve_ivp outside the transform"
        )
    rtol = options.pop("rtol", 1e-3)
    atol = options.pop("atol", 1e-6)
    max_step = options.pop("max_step", numpy.inf)
    for name in _IGNORED:
        options.pop(name, None)
    if options:
        raise TypeError(
            f"{where}: unknown options {sorted(options)}; solve_ivp takes rtol, atol, "
            f"max_step (and SciPy's step and Jacobian settings, which do not change the "
            f"solution)"
        )
    if not callable(fun):
        raise TypeError(f"{where}: fun must be callable, got {type(fun).__name__}")
    if args is not None:
        try:
            args = tuple(args)
        except TypeError:
            raise TypeError(
                f"{where}: args must be a tuple, got {type(args).__name__}; pass "
                f"args=(value,) for one extra argument"
            ) from None
    else:
        args = ()
    if len(t_span) != 2:
        raise ValueError(f"{where}: t_span must be (t0, tf), got {len(t_span)} values")
    t0 = float_input(fnp.asarray(t_span[0]), None)
    tf = float_input(fnp.asarray(t_span[1]), None)
    y0 = y0 if hasattr(y0, "dtype") else fnp.asarray(y0)
    if fnp.ndim(y0) != 1:
        raise ValueError(f"{where}: y0 must be 1-dimensional, got shape {fnp.shape(y0)}")
    if dtype_of(y0).kind not in "fc":
        y0 = fnp.astype(y0, numpy.float64)

    def solve(ts: Any) -> Any:
        return odeint(fun, y0, ts, args=args, rtol=rtol, atol=atol, hmax=max_step, tfirst=True)

    if t_eval is None:
        t_out = fnp.stack([t0, tf])
        ys = solve(t_out)
    else:
        t_out = float_input(t_eval if hasattr(t_eval, "dtype") else fnp.asarray(t_eval), None)
        if fnp.ndim(t_out) != 1:
            raise ValueError(f"{where}: t_eval must be 1-dimensional, got {fnp.shape(t_out)}")
        ys = solve(fnp.concatenate([fnp.reshape(t0, (1,)), t_out]))[1:]
    return OdeResult(
        t=t_out,
        y=fnp.moveaxis(ys, 0, -1),
        sol=_Dense(solve, t0) if dense_output else None,
        t_events=None,
        y_events=None,
        nfev=0,
        njev=0,
        nlu=0,
        status=0,
        message="The solver successfully reached the end of the integration interval.",
        success=True,
    )
