"""``solve_ivp`` with SciPy's signature and result, on :func:`~ftransforms.scipy.integrate.
odeint`'s differentiable solver (exported from ``ftransforms.scipy.integrate``).

The solve is Dormand-Prince 5(4) whichever ``method`` is named (SciPy's ``RK45`` is the
same method; a stiff problem named for ``Radau``/``BDF``/``LSODA`` is solved correctly but
with many small steps), to SciPy's default tolerances (``rtol=1e-3``, ``atol=1e-6``)
unless given.  Values agree with SciPy's to those tolerances, not bit for bit, and the
derivatives are those of the exact solution to the same tolerances (the adjoint method
in reverse mode, forward sensitivities in forward mode).  SciPy's own solver chooses its
output times from the values, which a transform cannot keep fixed: without ``t_eval`` the
result holds the two ends of ``t_span`` only (pass ``t_eval`` for more points, or
``dense_output=True`` for a differentiable ``sol(t)``).  ``events`` are not available.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.helpers import dtype_of
from ftransforms.numpy.ufuncs import float_input

__all__ = ["OdeResult", "solve_ivp"]

_METHODS = ("RK45", "RK23", "DOP853", "Radau", "BDF", "LSODA")
#: options of SciPy's implicit solvers and step control that do not change the solution
_IGNORED = ("first_step", "min_step", "jac", "jac_sparsity", "lband", "uband")


class OdeResult(dict):
    """What :func:`solve_ivp` returns: SciPy's fields (``t``, ``y``, ``sol``, ``t_events``,
    ``y_events``, ``nfev``, ``njev``, ``nlu``, ``status``, ``message``, ``success``), read as
    attributes or keys.

    Example:
        >>> r = OdeResult(t=[0.0], success=True)
        >>> r.success, r["t"]
        (True, [0.0])
    """

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __repr__(self) -> str:
        return "\n".join(f"{k:>9}: {v!r}" for k, v in self.items())


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


def solve_ivp(
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
    """``scipy.integrate.solve_ivp``: solve ``dy/dt = fun(t, y, *args)`` from
    ``y(t_span[0]) = y0``; ``result.y`` has shape ``(len(y0), len(result.t))``.
    Differentiable in ``y0``, ``t_span``, ``t_eval``, ``args`` and the traced values
    ``fun`` closes over; see the module docstring for what differs from SciPy.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> def final(k):
        ...     sol = solve_ivp(lambda t, y: -k * y, (0.0, 1.0), [1.0], rtol=1e-10, atol=1e-12)
        ...     return sol.y[0, -1]
        >>> round(float(final(0.5)), 8), round(float(ft.grad(final)(0.5)), 8)  # e^-k, -e^-k
        (0.60653066, -0.60653066)
    """
    from ftransforms.scipy.integrate import odeint  # noqa: PLC0415  late import: integrate re-exports this module

    where = "solve_ivp(fun, t_span, y0)"
    if events is not None:
        raise UnsupportedOperationError(
            f"{where}: events are not available under the transforms (where an event "
            f"happens depends on the values); solve on a t_eval grid and locate the event "
            f"in the result, or call scipy.integrate.solve_ivp outside the transform"
        )
    if isinstance(method, str) and method not in _METHODS:
        raise ValueError(f"{where}: method must be one of {list(_METHODS)}, got {method!r}")
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
