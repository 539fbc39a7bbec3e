"""``scipy.integrate.dblquad``, ``tplquad``, ``nquad`` and ``quad_vec`` with traced
integrands, limits or ``args``: :func:`ftransforms.scipy.integrate.quad` iterated (the
inner integrals are integrands of the outer ones, the limits functions of the outer
variables), as SciPy iterates QUADPACK, or per component (``quad_vec``), so every
transform differentiates and batches them.  SciPy's own
iteration handed its inner ``quad`` a bound method, whose closed-over tracers the
transforms could not see (``float()`` of a tracer).  ``abserr`` is the outermost
integral's estimate (this module's ``quad`` estimates its own errors).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> area = lambda r: dblquad(lambda y, x: 1.0, 0.0, r, 0.0, lambda x: x)[0]  # r**2 / 2
    >>> round(float(area(2.0)), 10), round(float(ft.grad(area)(2.0)), 8)
    (2.0, 2.0)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.scipy.quadrature import quad

__all__ = ["dblquad", "nquad", "quad_vec", "tplquad"]


def _limit(bound: Any, *outer: Any) -> Any:
    return bound(*outer) if callable(bound) else bound


def dblquad(
    func: Callable,
    a: Any,
    b: Any,
    gfun: Any,
    hfun: Any,
    args: tuple = (),
    epsabs: float = 1.49e-08,
    epsrel: float = 1.49e-08,
) -> tuple:
    """``scipy.integrate.dblquad``: ``∫_a^b ∫_{gfun(x)}^{hfun(x)} func(y, x, *args) dy
    dx`` as ``(integral, abserr)``.

    Example:
        >>> round(float(dblquad(lambda y, x: x * y, 0.0, 1.0, 0.0, 2.0)[0]), 10)
        1.0
    """
    opts = {"epsabs": epsabs, "epsrel": epsrel}

    def inner(x: Any) -> Any:
        return quad(lambda y: func(y, x, *args), _limit(gfun, x), _limit(hfun, x), **opts)[0]

    return quad(inner, a, b, **opts)


def tplquad(
    func: Callable,
    a: Any,
    b: Any,
    gfun: Any,
    hfun: Any,
    qfun: Any,
    rfun: Any,
    args: tuple = (),
    epsabs: float = 1.49e-08,
    epsrel: float = 1.49e-08,
) -> tuple:
    """``scipy.integrate.tplquad``: ``∫_a^b ∫_{gfun(x)}^{hfun(x)} ∫_{qfun(x, y)}^{rfun(x,
    y)} func(z, y, x, *args) dz dy dx`` as ``(integral, abserr)``.

    Example:
        >>> round(float(tplquad(lambda z, y, x: 1.0, 0.0, 1.0, 0.0, 2.0, 0.0, 3.0)[0]), 10)
        6.0
    """
    opts = {"epsabs": epsabs, "epsrel": epsrel}

    def middle(x: Any) -> Any:
        def innermost(y: Any) -> Any:
            lo, hi = _limit(qfun, x, y), _limit(rfun, x, y)
            return quad(lambda z: func(z, y, x, *args), lo, hi, **opts)[0]

        return quad(innermost, _limit(gfun, x), _limit(hfun, x), **opts)[0]

    return quad(middle, a, b, **opts)


def nquad(
    func: Callable, ranges: Any, args: Any = None, opts: Any = None, full_output: bool = False
) -> tuple:
    """``scipy.integrate.nquad``: the integral of ``func(x0, ..., xn, *args)`` over
    ``ranges`` (``ranges[0]`` for ``x0``, the innermost; a range is ``(lo, hi)`` or a
    function of the outer variables and ``args`` returning it), ``opts`` a dict, a list
    of them (one per variable) or functions of the outer variables returning them.
    ``full_output`` adds ``{'neval': ...}`` of the outermost integral.

    Example:
        >>> round(float(nquad(lambda x, y: x * y, [(0.0, 1.0), (0.0, 2.0)])[0]), 10)
        1.0
    """
    args = () if args is None else tuple(args) if isinstance(args, (tuple, list)) else (args,)
    depth = len(ranges)
    if opts is None:
        opts = [{}] * depth
    elif isinstance(opts, dict) or callable(opts):
        opts = [opts] * depth
    if len(opts) != depth:
        raise ValueError(f"nquad: opts must have one entry per range ({depth}), got {len(opts)}")

    def integrate(level: int, outer: tuple, full: bool = False) -> Any:
        rng = ranges[level]
        lo, hi = rng(*outer, *args) if callable(rng) else rng
        opt = opts[level]
        opt = dict(opt(*outer, *args) if callable(opt) else opt)
        if level == 0:

            def integrand(x: Any) -> Any:
                return func(x, *outer, *args)
        else:

            def integrand(x: Any) -> Any:
                return integrate(level - 1, (x, *outer))

        out = quad(integrand, lo, hi, full_output=int(full), **opt)
        return out if full else out[0]

    out = integrate(depth - 1, (), full=True)
    if full_output:
        return out[0], out[1], {"neval": out[2]["neval"]}
    return out[0], out[1]


def quad_vec(
    f: Callable,
    a: Any,
    b: Any,
    epsabs: float = 1e-200,
    epsrel: float = 1e-08,
    norm: str = "2",
    cache_size: float = 1e8,
    limit: int = 10000,
    workers: Any = 1,
    points: Any = None,
    quadrature: Any = None,
    full_output: bool = False,
    *,
    args: tuple = (),
) -> tuple:
    """``scipy.integrate.quad_vec``: the integral of the array-valued ``f(x, *args)``
    from ``a`` to ``b``, component by component with :func:`quad` (``f`` is evaluated
    once per component and point), differentiable in the limits, ``args`` and the traced
    values ``f`` closes over; ``(result, error)`` with ``error`` the ``norm`` ('2' or
    'max') of the components' estimates (``cache_size``, ``workers`` and
    ``quadrature`` pick SciPy's machinery and are ignored here; ``full_output`` is not
    available).

    Example:
        >>> import numpy as np
        >>> res, err = quad_vec(lambda x: np.array([1.0, x]), 0.0, 2.0)
        >>> np.round(res, 12).tolist()
        [2.0, 2.0]
    """
    if full_output:
        raise UnsupportedOperationError(
            "quad_vec(..., full_output=True) on traced values: SciPy's info object is not "
            "available; leave full_output=False"
        )
    if norm not in ("2", "max"):
        raise ValueError(f"quad_vec: norm must be '2' or 'max', got {norm!r}")
    args = tuple(args) if isinstance(args, (tuple, list)) else (args,)
    probe = fnp.asarray(f(fnp.asarray(a) * 1.0, *args))  # (the shape of the values)
    shape = tuple(fnp.shape(probe))
    opts = {"epsabs": max(epsabs, 1e-300), "epsrel": epsrel, "limit": min(limit, 200)}
    if points is not None:
        opts["points"] = points
    values, errors = [], []
    for index in numpy.ndindex(*shape):
        value, error = quad(lambda x, index=index: fnp.asarray(f(x, *args))[index], a, b, **opts)
        values.append(value)
        errors.append(error)
    result = fnp.reshape(fnp.stack(values), shape) if shape else values[0]
    errs = fnp.stop_gradient(fnp.stack([fnp.asarray(e) for e in errors]))
    error = fnp.max(errs) if norm == "max" else fnp.sqrt(fnp.sum(errs * errs))
    return result, error
