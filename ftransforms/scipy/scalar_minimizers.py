"""SciPy's scalar minimizers with implicit derivatives: ``minimize_scalar``, ``golden``,
``brent`` and ``fminbound`` (exported from ``ftransforms.scipy.optimize``).

The minimum is found by SciPy's own minimizer on plain numbers (NOTE [root finders on
traced parameters] in ``roots.py``: the function is evaluated on SciPy's iterates and
its value read, so SciPy's values come back unchanged), and ``x*`` is then
:func:`ftransforms.custom_root` of ``f'``: ``f'(x*) = 0`` defines it, so its derivative in
``args`` and in the values ``f`` closes over is ``-f_xθ / f_xx`` at the minimum.  The
golden-section steps would give it none (SciPy's ``golden`` under ``grad`` used to
return 0: the bracket points are constants chosen by comparisons).  A bounded minimum
that sits on a bound (``fminbound``, ``method='bounded'``) is that bound, constant.
``fun`` is recomputed at the differentiable ``x*`` (same value), so its derivative is
the envelope theorem's.

Example:
    >>> import ftransforms as ft
    >>> argmin = lambda c: golden(lambda x: (x - c) ** 2 + x**4)
    >>> round(float(ft.grad(argmin)(0.5)), 6)  # 2 / (2 + 12 x*^2) at x* = 0.3855
    0.528689
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ftransforms.numpy as fnp
from ftransforms.api import grad
from ftransforms.implicit import custom_root
from ftransforms.scipy.roots import _divide_by_derivative, _host, _number, _scipy_optimize

__all__ = ["brent", "fminbound", "golden", "minimize_scalar"]


def _plain_objective(fn: Callable) -> Callable:
    def call(x: Any, *args: Any) -> Any:
        out = _host(fn(x, *args))
        return float(out) if out.ndim == 0 else out

    return call


def _argmin(
    func: Callable, args: tuple, run: Callable, bounds: tuple | None = None
) -> tuple[Any, Any]:
    """``(x*, what run returned)``: ``run(plain f)`` gives SciPy's ``(x*, result)``;
    ``x*`` is made differentiable through ``f'(x*) = 0``, or is the bound it sits on."""
    if not isinstance(args, tuple):
        args = (args,)

    def f(x: Any) -> Any:
        return func(x, *args)

    found: dict = {}

    def solve(g: Callable, guess: Any) -> Any:
        x, found["result"] = run(_plain_objective(f))
        return fnp.asarray(float(x))

    slope = grad(lambda x: fnp.sum(f(x)))
    x_plain = None
    if bounds is not None:  # a minimum on a bound is the bound (its own derivative)
        x_plain, found["result"] = run(_plain_objective(f))
        lo, hi = (_number(b) for b in bounds)
        tol = 1e-4 * max(abs(hi - lo), 1e-300)
        s = _number(slope(fnp.asarray(float(x_plain))))
        for k, at_bound in enumerate(
            (float(x_plain) - lo <= tol and s > 0, hi - float(x_plain) <= tol and s < 0)
        ):
            if at_bound:  # SciPy's value, with the bound's derivative
                bound = bounds[k]
                return fnp.asarray(bound) + (float(x_plain) - _number(bound)), found["result"]
        done = found["result"]

        def solve(g: Callable, guess: Any) -> Any:  # noqa: F811  (already solved above)
            found["result"] = done
            return fnp.asarray(float(x_plain))

    x = custom_root(slope, fnp.asarray(0.0), solve, _divide_by_derivative)
    return x, found["result"]


def golden(
    func: Callable,
    args: tuple = (),
    brack: Any = None,
    tol: float = 1.4901161193847656e-08,
    full_output: bool = False,
    maxiter: int = 5000,
) -> Any:
    """``scipy.optimize.golden``: the minimum of ``func(x, *args)`` by golden-section
    search, differentiable in ``args`` and in the values ``func`` closes over (module
    docstring); with ``full_output``, ``(xmin, fval, funcalls)``.

    Example:
        >>> import ftransforms as ft
        >>> round(float(ft.grad(lambda c: golden(lambda x: (x - c) ** 2))(3.0)), 6)
        1.0
    """

    def run(plain: Callable) -> tuple:
        out = _scipy_optimize().golden(
            plain, brack=_plain_brack(brack), tol=tol, full_output=True, maxiter=maxiter
        )
        return out[0], out

    x, out = _argmin(func, args, run)
    if not full_output:
        return x
    return x, _fval(func, x, args), out[2]


def brent(
    func: Callable,
    args: tuple = (),
    brack: Any = None,
    tol: float = 1.48e-08,
    full_output: bool = False,
    maxiter: int = 500,
) -> Any:
    """``scipy.optimize.brent``: the minimum of ``func(x, *args)`` by Brent's method,
    differentiable in ``args`` and in the values ``func`` closes over (module docstring);
    with ``full_output``, ``(xmin, fval, iter, funcalls)``.

    Example:
        >>> import ftransforms as ft
        >>> round(float(ft.grad(lambda c: brent(lambda x: (x - c) ** 2))(3.0)), 6)
        1.0
    """

    def run(plain: Callable) -> tuple:
        out = _scipy_optimize().brent(
            plain, brack=_plain_brack(brack), tol=tol, full_output=True, maxiter=maxiter
        )
        return out[0], out

    x, out = _argmin(func, args, run)
    if not full_output:
        return x
    return x, _fval(func, x, args), out[2], out[3]


def fminbound(
    func: Callable,
    x1: Any,
    x2: Any,
    args: tuple = (),
    xtol: float = 1e-05,
    maxfun: int = 500,
    full_output: bool = False,
    disp: int = 1,
) -> Any:
    """``scipy.optimize.fminbound``: the minimum of ``func(x, *args)`` on ``[x1, x2]``,
    differentiable in ``args`` and the values ``func`` closes over, or the bound it sits
    on (module docstring); with ``full_output``, ``(xopt, fval, ierr, numfunc)``.

    Example:
        >>> import ftransforms as ft
        >>> f = lambda c: fminbound(lambda x: (x - c) ** 2, 0.0, 5.0, xtol=1e-10)
        >>> round(float(ft.grad(f)(3.0)), 6), round(float(ft.grad(f)(7.0)), 6)
        (1.0, 0.0)
    """

    def run(plain: Callable) -> tuple:
        out = _scipy_optimize().fminbound(
            plain, _number(x1), _number(x2), xtol=xtol, maxfun=maxfun, full_output=True, disp=disp
        )
        return out[0], out

    x, out = _argmin(func, args, run, bounds=(x1, x2))
    if not full_output:
        return x
    return x, _fval(func, x, args), out[2], out[3]


def minimize_scalar(
    fun: Callable,
    bracket: Any = None,
    bounds: Any = None,
    args: tuple = (),
    method: Any = None,
    tol: float | None = None,
    options: dict | None = None,
) -> Any:
    """``scipy.optimize.minimize_scalar``: SciPy's ``OptimizeResult`` whose ``x`` is
    differentiable in ``args`` and in the values ``fun`` closes over (a minimum on a
    bound of ``method='bounded'`` is that bound), and ``fun`` is ``fun(x)`` at it (module
    docstring).

    Example:
        >>> import ftransforms as ft
        >>> f = lambda c: minimize_scalar(lambda x: (x - c) ** 2 + x**4).x
        >>> round(float(ft.grad(f)(0.5)), 5)
        0.52869
    """

    def run(plain: Callable) -> tuple:
        res = _scipy_optimize().minimize_scalar(
            plain,
            bracket=_plain_brack(bracket),
            bounds=None if bounds is None else tuple(_number(b) for b in bounds),
            method=method,
            tol=tol,
            options=options,
        )
        return res.x, res

    bounded = bounds is not None and (
        method is None or (isinstance(method, str) and method.lower() == "bounded")
    )
    x, res = _argmin(fun, args, run, bounds=tuple(bounds) if bounded else None)
    res.x = x
    res.fun = _fval(fun, x, args)
    return res


def _plain_brack(brack: Any) -> Any:
    return None if brack is None else tuple(_number(b) for b in brack)


def _fval(func: Callable, x: Any, args: Any) -> Any:
    return func(x, *(args if isinstance(args, tuple) else (args,)))
