"""Quadrature of sampled values and of functions, differentiable in everything traced:
``simpson``, ``fixed_quad`` and ``quad`` as in ``scipy.integrate`` (exported there).

``simpson`` follows SciPy's composite rule (Cartwright's correction of the last interval
for an even number of samples); ``fixed_quad`` is Gauss-Legendre of order ``n``; ``quad``
is adaptive Gauss-Legendre (21 points per subinterval, the difference to 10 points as the
error estimate, the worst subinterval halved until ``epsabs``/``epsrel`` hold), with
SciPy's infinite limits by a change of variable.  The integrand is called on arrays of
nodes through ``vmap`` (a scalar Python function, as SciPy's quad takes), and may close
over traced values: the result is differentiated through the rule, so ``grad`` in a
closed-over parameter or in a limit gives the derivative of the integral to the
tolerance.  The choice of subintervals reads values (``float``), so under ``vmap`` each
row chooses its own (the batch is split) and ``jit`` runs ``quad`` eagerly.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.api import vmap
from ftransforms.core.errors import (
    PerformanceWarning,
    TracerConversionError,
    UnsupportedOperationError,
)
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.helpers import dtype_of, normalize_axis, peek
from ftransforms.numpy.ufuncs import float_input

__all__ = ["fixed_quad", "quad", "simpson"]


def _as_float(y: Any) -> Any:
    return float_input(y if hasattr(y, "dtype") else fnp.asarray(y), None)


def _ratio(num: Any, den: Any) -> Any:
    """``num / den`` with 0 where ``den`` is 0 (SciPy's ``true_divide(where=den != 0)``)."""
    safe = fnp.where(den != 0, den, 1.0)
    return fnp.where(den != 0, num / safe, 0.0)


def _simpson_pairs(y: Any, h: Any, dx: float, stop: int) -> Any:
    """Simpson's rule over the pairs of intervals from sample 0 to sample ``stop`` (even),
    on the last axis: ``h`` the spacings (None: uniform ``dx``)."""
    y0, y1, y2 = y[..., 0:stop:2], y[..., 1 : stop + 1 : 2], y[..., 2 : stop + 2 : 2]
    if h is None:
        return fnp.sum(y0 + 4.0 * y1 + y2, axis=-1) * (dx / 3.0)
    h0, h1 = h[..., 0:stop:2], h[..., 1 : stop + 1 : 2]
    hsum, hprod = h0 + h1, h0 * h1
    h0_h1 = _ratio(h0, h1)
    terms = (
        hsum
        / 6.0
        * (y0 * (2.0 - _ratio(1.0, h0_h1)) + y1 * (hsum * _ratio(hsum, hprod)) + y2 * (2.0 - h0_h1))
    )
    return fnp.sum(terms, axis=-1)


def simpson(y: Any, x: Any = None, *, dx: float = 1.0, axis: int = -1) -> Any:
    """``scipy.integrate.simpson``: the composite Simpson's rule along ``axis`` of ``y``
    (samples at ``x``, else spaced ``dx``); for an even number of samples the last
    interval takes Cartwright's correction, as SciPy does.

    Example:
        >>> import numpy as np
        >>> x = np.linspace(0.0, 2.0, 5)
        >>> float(simpson(x**2, x=x))  # exact for parabolas: 8 / 3
        2.6666666666666665
    """
    y = _as_float(y)
    nd = fnp.ndim(y)
    axis = normalize_axis(axis, nd)
    y = fnp.moveaxis(y, axis, -1)
    n = fnp.shape(y)[-1]
    h = None
    if x is not None:
        x = _as_float(x)
        if fnp.ndim(x) == 1:
            if fnp.shape(x)[0] != n:
                raise ValueError(
                    f"simpson(y, x): x must have y's length {n} along axis {axis}, got "
                    f"{fnp.shape(x)[0]}"
                )
            h = fnp.diff(x)
        elif fnp.ndim(x) == nd:
            h = fnp.diff(fnp.moveaxis(x, axis, -1), axis=-1)
        else:
            raise ValueError(
                f"simpson(y, x): x must be 1-D or have y's {nd} dimensions, got shape "
                f"{fnp.shape(x)}"
            )
    if n % 2 == 1:
        return _simpson_pairs(y, h, dx, n - 1) if n > 1 else fnp.sum(y * 0.0, axis=-1)
    if n == 2:
        width = dx if h is None else h[..., -1]
        return 0.5 * width * (y[..., -1] + y[..., -2])
    # Simpson over the first n - 1 samples, the last interval by Cartwright's formula
    h0, h1 = (dx, dx) if h is None else (h[..., -2], h[..., -1])
    alpha = _ratio(2 * h1**2 + 3 * h0 * h1, 6 * (h1 + h0))
    beta = _ratio(h1**2 + 3.0 * h0 * h1, 6 * h0)
    eta = _ratio(h1**3, 6 * h0 * (h0 + h1))
    first = _simpson_pairs(y, h, dx, n - 2)
    return first + alpha * y[..., -1] + beta * y[..., -2] - eta * y[..., -3]


def _on_nodes(func: Callable, nodes: Any, args: tuple, where: str) -> Any:
    """``func(x, *args)`` at every node: one call through ``vmap``, or a call per node when
    the integrand needs Python numbers (``math.exp(x)``)."""
    try:
        with warnings.catch_warnings():
            # an integrand with Python branches on x splits this internal batch: correct,
            # and not the user's vmap, so its PerformanceWarning would only confuse
            warnings.simplefilter("ignore", PerformanceWarning)
            values = vmap(lambda x: func(x, *args))(nodes)
    except TracerConversionError:
        values = fnp.stack([fnp.asarray(func(float(x), *args)) for x in numpy.asarray(nodes)])
    if fnp.ndim(values) != 1:
        raise TypeError(
            f"{where}: func must return a number, got shape {fnp.shape(values)[1:]} per "
            f"point; integrate the components one by one"
        )
    return values


def fixed_quad(func: Callable, a: Any, b: Any, args: tuple = (), n: int = 5) -> tuple:
    """``scipy.integrate.fixed_quad``: ``(integral, None)`` by Gauss-Legendre of order
    ``n``; ``func`` takes an array of points (it is called once, on all of them).

    Example:
        >>> import numpy as np
        >>> round(float(fixed_quad(np.cos, 0.0, np.pi / 2)[0]), 9)
        1.0
    """
    x, w = numpy.polynomial.legendre.leggauss(n)
    a, b = _as_float(a), _as_float(b)
    y = (b - a) * (x + 1) / 2.0 + a
    return (b - a) / 2.0 * fnp.sum(w * func(y, *args), axis=-1), None


# -- quad ------------------------------------------------------------------------------------

_HIGH = numpy.polynomial.legendre.leggauss(21)
_LOW = numpy.polynomial.legendre.leggauss(10)
_REF_NODES = numpy.concatenate([_HIGH[0], _LOW[0]])  # the 31 nodes of one subinterval on [-1, 1]
_N_HIGH = 21


def _plain_number(v: Any, where: str, what: str) -> float | None:
    """``v`` as a Python float when it is a plain number (None for a traced value)."""
    if isinstance(v, Tracer):
        return None
    try:
        return float(v)
    except (TypeError, ValueError):
        raise TypeError(f"{where}: {what} must be a number, got {type(v).__name__}") from None


def _infinite_if_traced(v: Any, num: float | None) -> tuple:
    """``(v, num)``, with a traced bound whose value is one infinity (``-inf * scale +
    loc``, as SciPy's ``rv_continuous.expect`` makes from its support) read as that plain
    infinity: it has no derivative (the integrand vanishes there), and the infinite range
    is mapped as SciPy maps it (it was integrated as a finite one: NaN)."""
    if num is not None or not isinstance(v, Tracer):
        return v, num
    vals = numpy.asarray(peek(v))
    if vals.size and numpy.isinf(vals).all() and (vals == vals.flat[0]).all():
        inf = float(vals.flat[0])
        return inf, inf
    return v, num


def _change_of_variable(a: Any, b: Any, a_num: float | None, b_num: float | None):
    """``(lo, hi, x_of_t, weight_of_t)``: SciPy's infinite ranges mapped onto finite ones."""
    if a_num is not None and b_num is not None and math.isinf(a_num) and math.isinf(b_num):
        if a_num == b_num:
            return None
        sign = 1.0 if b_num > a_num else -1.0
        return (
            -1.0,
            1.0,
            lambda t: t / (1 - t * t),
            lambda t: sign * (1 + t * t) / (1 - t * t) ** 2,
        )
    if b_num is not None and math.isinf(b_num):  # [a, +-inf)
        s = 1.0 if b_num > 0 else -1.0
        return 0.0, 1.0, lambda t: a + s * t / (1 - t), lambda t: s / (1 - t) ** 2
    if a_num is not None and math.isinf(a_num):  # (+-inf, b]: minus the integral from b
        s = 1.0 if a_num > 0 else -1.0
        return 0.0, 1.0, lambda t: b + s * t / (1 - t), lambda t: -s / (1 - t) ** 2
    return a, b, None, None


def _integration_warning() -> type:
    try:  # SciPy's class, so that a filter a program sets for SciPy's quad applies here
        from scipy.integrate import IntegrationWarning  # noqa: PLC0415  late import: SciPy is optional
    except ImportError:  # pragma: no cover
        return UserWarning
    return IntegrationWarning


def quad(
    func: Callable,
    a: Any,
    b: Any,
    args: tuple = (),
    full_output: int = 0,
    epsabs: float = 1.49e-8,
    epsrel: float = 1.49e-8,
    limit: int = 50,
    points: Any = None,
    weight: Any = None,
    wvar: Any = None,
    wopts: Any = None,
    maxp1: int = 50,
    limlst: int = 50,
    complex_func: bool = False,
) -> tuple:
    """``scipy.integrate.quad``: ``(integral, abserr)`` of ``func(x, *args)`` from ``a``
    to ``b`` (either may be infinite), by adaptive Gauss-Legendre quadrature (see the
    module docstring); ``points`` are breakpoints of a finite range.  Differentiable in
    ``a``, ``b``, ``args`` and the traced values ``func`` closes over.  ``abserr`` is this
    method's estimate (not QUADPACK's); ``full_output`` adds
    ``{'neval', 'last', 'alist', 'blist', 'rlist', 'elist'}``.  The weighted forms
    (``weight=``) are not available.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> integral = lambda k: quad(lambda x: np.exp(-k * x), 0.0, np.inf)[0]  # 1 / k
        >>> round(float(integral(2.0)), 10), round(float(ft.grad(integral)(2.0)), 8)
        (0.5, -0.25)
    """
    where = "quad(func, a, b)"
    if weight is not None:
        raise UnsupportedOperationError(
            f"{where}: weight={weight!r} (QUADPACK's weighted forms) is not available under "
            f"the transforms; multiply func by the weight instead"
        )
    if not callable(func):
        raise TypeError(f"{where}: func must be callable, got {type(func).__name__}")
    if not isinstance(args, tuple):
        args = (args,)
    a, a_num = _infinite_if_traced(a, _plain_number(a, where, "a"))
    b, b_num = _infinite_if_traced(b, _plain_number(b, where, "b"))
    mapped = _change_of_variable(a, b, a_num, b_num)
    if mapped is None:  # from inf to inf
        return fnp.asarray(0.0), 0.0
    lo, hi, x_of_t, w_of_t = mapped
    if x_of_t is None:
        integrand = func
    else:

        def integrand(t: Any, *rest: Any) -> Any:
            return func(x_of_t(t), *rest) * w_of_t(t)

    edges = [lo, hi]
    if points is not None:
        if x_of_t is not None:
            raise ValueError(f"{where}: points are for finite ranges only, as in SciPy")
        lo_n, hi_n = sorted(v for v in (a_num, b_num) if v is not None) or (None, None)
        inner = sorted(float(p) for p in numpy.ravel(points))
        if lo_n is not None:
            inner = [p for p in inner if lo_n < p < hi_n]
            if a_num is not None and b_num is not None and a_num > b_num:
                inner = inner[::-1]
        edges = [lo, *inner, hi]
    intervals = [(edges[i], edges[i + 1]) for i in range(len(edges) - 1)]
    results, errors, bounds = [], [], []
    neval = 0

    def rule(pieces: list) -> tuple[list, list]:
        """The 21-point values and the error estimates of the subintervals ``pieces``."""
        nonlocal neval
        los = fnp.stack([fnp.asarray(p[0]) for p in pieces])
        his = fnp.stack([fnp.asarray(p[1]) for p in pieces])
        half, mid = (his - los) / 2.0, (his + los) / 2.0
        nodes = mid[:, None] + half[:, None] * _REF_NODES  # (pieces, 31)
        values = _on_nodes(integrand, fnp.reshape(nodes, (-1,)), args, where)
        values = fnp.reshape(values, (len(pieces), len(_REF_NODES)))
        if not complex_func and dtype_of(values).kind == "c":
            # SciPy's QUADPACK casts each value to a float: the real part, with NumPy's
            # ComplexWarning (a program may then take np.real of the result)
            warnings.warn(
                "Casting complex values to real discards the imaginary part",
                numpy.exceptions.ComplexWarning,
                stacklevel=3,
            )
            values = fnp.real(values)
        neval += len(pieces) * len(_REF_NODES)
        high = half * fnp.sum(values[:, :_N_HIGH] * _HIGH[1], axis=1)
        low = half * fnp.sum(values[:, _N_HIGH:] * _LOW[1], axis=1)
        err = fnp.abs(fnp.stop_gradient(high - low))
        return [high[i] for i in range(len(pieces))], [float(err[i]) for i in range(len(pieces))]

    r, e = rule(intervals)
    results, errors, bounds = r, e, intervals
    converged = False
    while True:
        total = fnp.sum(fnp.stack(results))
        total_err = sum(errors)
        scale = abs(complex(fnp.stop_gradient(total)))
        if total_err <= max(epsabs, epsrel * scale) or not math.isfinite(total_err):
            converged = math.isfinite(total_err)
            break
        if len(bounds) >= limit:
            break
        worst = max(range(len(errors)), key=errors.__getitem__)
        p_lo, p_hi = bounds[worst]
        p_mid = (p_lo + p_hi) / 2.0
        r, e = rule([(p_lo, p_mid), (p_mid, p_hi)])
        results[worst : worst + 1] = r
        errors[worst : worst + 1] = e
        bounds[worst : worst + 1] = [(p_lo, p_mid), (p_mid, p_hi)]
    if not converged:
        warnings.warn(
            f"{where}: the error estimate {total_err:.3g} is above the tolerance after "
            f"{len(bounds)} subintervals (limit={limit}); the integrand may be singular or "
            f"oscillating: raise limit or split the range with points=",
            _integration_warning(),
            stacklevel=2,
        )
    if not full_output:
        return total, total_err
    info = {
        "neval": neval,
        "last": len(bounds),
        "alist": numpy.array([float(fnp.stop_gradient(p[0])) for p in bounds]),
        "blist": numpy.array([float(fnp.stop_gradient(p[1])) for p in bounds]),
        "rlist": numpy.array([complex(fnp.stop_gradient(v)).real for v in results]),
        "elist": numpy.array(errors),
    }
    return total, total_err, info
