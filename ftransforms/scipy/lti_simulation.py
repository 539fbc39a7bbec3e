"""``scipy.signal.dlsim`` on traced inputs and initial states; a clear error for the
continuous-time simulations (``lsim``, ``impulse``, ``step``) at traced values.

SciPy's ``dlsim`` writes each step into its own ``numpy.zeros`` buffers, which cannot
hold tracers; here the states are computed with ``fnp`` operations and stacked, so every
transform applies (in the input ``u``, the initial state ``x0``).  The system itself
(``(num, den, dt)``, ``(z, p, k, dt)``, ``(A, B, C, D, dt)`` or a ``dlti``) is converted
to its state-space form by SciPy, so it must be plain numbers.

Example:
    >>> import numpy as np
    >>> t, y = dlsim(([1.0], [1.0, -0.5], 1.0), np.ones(4))
    >>> y[:, 0].tolist()
    [0.0, 1.0, 1.5, 1.75]
"""

from __future__ import annotations

from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import UnsupportedOperationError

__all__ = ["dlsim", "impulse", "lsim", "step"]


def _plain(x: Any) -> bool:
    if isinstance(x, (list, tuple)):
        return all(_plain(v) for v in x)
    return isinstance(x, (numpy.ndarray, numpy.generic, int, float, complex))


def _state_space(system: Any, where: str) -> tuple:
    """``(A, B, C, D, dt, is_ss)`` of a plain discrete-time system, as SciPy reads it."""
    import scipy.signal  # late import: SciPy is optional for ftransforms

    if isinstance(system, scipy.signal.lti):
        raise AttributeError("dlsim can only be used with discrete-time dlti systems.")
    if not isinstance(system, scipy.signal.dlti):
        if not _plain(tuple(system)):
            raise UnsupportedOperationError(
                f"scipy.signal.{where}: the system's coefficients are traced; SciPy converts "
                "them to a state space with compiled code, which cannot see tracers. "
                "Differentiate in the input u or the initial state x0 with a plain system, "
                "or write the recursion x[k+1] = A x[k] + B u[k] with traced A, B yourself."
            )
        system = scipy.signal.dlti(*system[:-1], dt=system[-1])
    is_ss = isinstance(system, scipy.signal.StateSpace)
    ss = system._as_ss()
    return ss.A, ss.B, ss.C, ss.D, ss.dt, is_ss


def dlsim(system: Any, u: Any, t: Any = None, x0: Any = None) -> tuple:
    """``scipy.signal.dlsim``: the output of a discrete-time linear system driven by ``u``
    (one row per step), from the initial state ``x0`` (zeros by default); returns
    ``(tout, yout)``, and ``xout`` too for a state-space system.  Differentiable in ``u``
    and ``x0``; ``t`` (plain) resamples ``u`` linearly onto the steps ``0, dt, ...``.

    Example:
        >>> import numpy as np
        >>> t, y = dlsim(([1.0], [1.0, -0.5], 1.0), np.array([1.0, 0.0, 0.0]))
        >>> y[:, 0].tolist()
        [0.0, 1.0, 0.5]
    """
    A, B, C, D, dt, is_ss = _state_space(system, "dlsim")
    u = fnp.atleast_1d(fnp.asarray(u))
    if u.ndim == 1:
        u = u[:, None]
    if t is None:
        n = u.shape[0]
        stop = (n - 1) * dt
        u_dt = u
    else:
        if not _plain(t):
            raise UnsupportedOperationError(
                "scipy.signal.dlsim: the times t are traced; pass them as plain numbers"
            )
        t = numpy.asarray(t, dtype=float)
        stop = t[-1]
        n = int(numpy.floor(stop / dt)) + 1
    tout = numpy.linspace(0.0, stop, num=n)
    if t is not None:
        u_dt = fnp.stack([fnp.interp(tout, t, u[:, j]) for j in range(u.shape[1])], axis=1)
    state = fnp.zeros((A.shape[1],)) if x0 is None else fnp.asarray(x0) * 1.0
    states = [state]
    for i in range(n - 1):
        state = A @ state + B @ u_dt[i]
        states.append(state)
    xout = fnp.stack(states) if n else fnp.zeros((0, A.shape[0]))
    yout = xout @ C.T + u_dt[:n] @ D.T
    return (tout, yout, xout) if is_ss else (tout, yout)


def _continuous(where: str) -> UnsupportedOperationError:
    return UnsupportedOperationError(
        f"scipy.signal.{where} on traced values: SciPy simulates continuous-time systems "
        "in its own NumPy buffers, which cannot hold tracers. Discretize the system with "
        "plain coefficients (scipy.signal.cont2discrete(system, dt)) and simulate it with "
        "scipy.signal.dlsim, which is differentiable in the input and the initial state."
    )


def lsim(system: Any, U: Any, T: Any, X0: Any = None, interp: bool = True) -> tuple:  # noqa: N803
    """``scipy.signal.lsim`` reached with a tracer: a clear error (see :func:`dlsim`).

    Example:
        >>> try:
        ...     lsim(([1.0], [1.0, 1.0]), None, None)
        ... except NotImplementedError as err:
        ...     print(type(err).__name__)
        UnsupportedOperationError
    """
    raise _continuous("lsim")


def impulse(system: Any, X0: Any = None, T: Any = None, N: Any = None) -> tuple:  # noqa: N803
    """``scipy.signal.impulse`` reached with a tracer: a clear error (see :func:`dlsim`).

    Example:
        >>> try:
        ...     impulse(([1.0], [1.0, 1.0]))
        ... except NotImplementedError as err:
        ...     print(type(err).__name__)
        UnsupportedOperationError
    """
    raise _continuous("impulse")


def step(system: Any, X0: Any = None, T: Any = None, N: Any = None) -> tuple:  # noqa: N803
    """``scipy.signal.step`` reached with a tracer: a clear error (see :func:`dlsim`).

    Example:
        >>> try:
        ...     step(([1.0], [1.0, 1.0]))
        ... except NotImplementedError as err:
        ...     print(type(err).__name__)
        UnsupportedOperationError
    """
    raise _continuous("step")
