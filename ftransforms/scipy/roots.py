"""SciPy's root finders with implicit derivatives: ``brentq``, ``brenth``, ``ridder``,
``bisect``, ``toms748``, ``newton``, ``root_scalar``, ``fsolve`` and ``root``, with SciPy's
signatures (exported from ``ftransforms.scipy.optimize``).

NOTE [root finders on traced parameters]: the root is found by SciPy's own solver, on
plain numbers: the function is called on SciPy's iterates and its value read with the
transforms' own concrete-value path (so under ``vmap`` each row solves alone, and ``jit``
runs the solve eagerly).  The result is then :func:`ftransforms.custom_root` of the
function: its derivative in everything the function closes over or gets in ``args`` is
the implicit one, ``dx* = -J⁻¹ ∂f`` at the root (``J = f'(x*)``; for ``fsolve``/``root``
the Jacobian by ``jacfwd``), never the derivative of the solver's steps; the brackets and
starting points get none.  So an implied volatility by ``brentq`` differentiates to
``1 / vega``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> cube_root = lambda a: brentq(lambda x: x**3 - a, 0.0, 10.0)
    >>> round(float(cube_root(8.0)), 10), round(float(ft.grad(cube_root)(8.0)), 10)  # 1/(3 x^2)
    (2.0, 0.0833333333)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.api import jacfwd
from ftransforms.core.tracer import Tracer
from ftransforms.implicit import custom_root
from ftransforms.numpy.helpers import array_like, to_host

__all__ = [
    "bisect",
    "brenth",
    "brentq",
    "fixed_point",
    "fsolve",
    "newton",
    "ridder",
    "root",
    "root_scalar",
    "toms748",
]

_XTOL, _RTOL = 2e-12, 4 * numpy.finfo(float).eps


def _scipy_optimize() -> Any:
    import scipy.optimize  # noqa: PLC0415  late import: SciPy is optional

    return scipy.optimize


def _host(value: Any) -> numpy.ndarray:
    """The plain value of ``value`` (the concrete-value path of the transforms: NOTE [root
    finders on traced parameters]).  ``np.array([t, 1.0])``, NumPy's object array of a
    function's traced values, is read as the array it stands for."""
    value = array_like(value)
    value = fnp.stop_gradient(value) if isinstance(value, Tracer) else value
    if isinstance(value, Tracer):
        value = value._concrete()
    return to_host(value)


def _plain(fn: Callable) -> Callable:
    """``fn`` as SciPy calls it: on plain numbers or arrays, returning plain values."""

    def call(x: Any, *args: Any) -> Any:
        out = _host(fn(x, *args))
        return float(out) if out.ndim == 0 else out

    return call


def _number(value: Any) -> float:
    return float(_host(value))


def _divide_by_derivative(g: Callable, y: Any) -> Any:
    """The tangent solve of an elementwise (or scalar) function: ``y / g'(x)``."""
    return y / g(fnp.ones_like(y))


def _bracketed(method: str, f, a, b, args, full_output, **options) -> Any:
    if not isinstance(args, tuple):
        args = (args,)
    found = {}

    def solve(g: Callable, guess: Any) -> Any:
        scipy_fn = getattr(_scipy_optimize(), method)
        out = scipy_fn(_plain(g), _number(a), _number(b), full_output=True, **options)
        found["results"] = out[1]
        return fnp.asarray(out[0])

    x = custom_root(lambda x: f(x, *args), fnp.asarray(_number(a)), solve, _divide_by_derivative)
    return (x, found["results"]) if full_output else x


def _bracket_doc(method: str) -> str:
    return (
        f"``scipy.optimize.{method}``: a root of ``f(x, *args)`` in ``[a, b]`` (where ``f`` "
        f"changes sign) by SciPy's {method}, differentiable in ``args`` and in the values "
        f"``f`` closes over (NOTE [root finders on traced parameters]); with "
        f"``full_output``, ``(x, RootResults)``.\n\n"
        f"    Example:\n"
        f"        >>> import ftransforms as ft\n"
        f"        >>> f = lambda a: {method}(lambda x: x * x - a, 0.0, 3.0)\n"
        f"        >>> round(float(ft.grad(f)(4.0)), 8)  # 1 / (2 sqrt a)\n"
        f"        0.25\n"
    )


def _bracketing(method: str) -> Callable:
    """``scipy.optimize.<method>`` for the methods that share SciPy's signature ``(f, a, b,
    args, xtol, rtol, maxiter, full_output, disp)``."""

    def solver(
        f: Callable,
        a: Any,
        b: Any,
        args: tuple = (),
        xtol: float = _XTOL,
        rtol: float = _RTOL,
        maxiter: int = 100,
        full_output: bool = False,
        disp: bool = True,
    ) -> Any:
        opts = {"xtol": xtol, "rtol": rtol, "maxiter": maxiter, "disp": disp}
        return _bracketed(method, f, a, b, args, full_output, **opts)

    solver.__name__ = solver.__qualname__ = method
    return solver


brentq = _bracketing("brentq")
brenth = _bracketing("brenth")
ridder = _bracketing("ridder")
bisect = _bracketing("bisect")


def toms748(
    f: Callable,
    a: Any,
    b: Any,
    args: tuple = (),
    k: int = 1,
    xtol: float = _XTOL,
    rtol: float = _RTOL,
    maxiter: int = 100,
    full_output: bool = False,
    disp: bool = True,
) -> Any:
    opts = {"k": k, "xtol": xtol, "rtol": rtol, "maxiter": maxiter, "disp": disp}
    return _bracketed("toms748", f, a, b, args, full_output, **opts)


for _fn in (brentq, brenth, ridder, bisect, toms748):
    _fn.__doc__ = _bracket_doc(_fn.__name__)


def newton(
    func: Callable,
    x0: Any,
    fprime: Callable | None = None,
    args: tuple = (),
    tol: float = 1.48e-08,
    maxiter: int = 50,
    fprime2: Callable | None = None,
    x1: Any = None,
    rtol: float = 0.0,
    full_output: bool = False,
    disp: bool = True,
) -> Any:
    """``scipy.optimize.newton``: a root of ``func(x, *args)`` near ``x0`` by SciPy's
    Newton (``fprime``), Halley (``fprime2``) or secant method, elementwise for an array
    ``x0`` as SciPy's; differentiable in ``args`` and the values ``func`` closes over
    (NOTE [root finders on traced parameters]).

    Example:
        >>> import ftransforms as ft
        >>> f = lambda a: newton(lambda x: x**2 - a, 1.0)
        >>> round(float(f(2.0)), 8), round(float(ft.grad(f)(2.0)), 8)
        (1.41421356, 0.35355339)
    """
    if not isinstance(args, tuple):
        args = (args,)
    found = {}
    x0_plain = _host(x0)

    def solve(g: Callable, guess: Any) -> Any:
        out = _scipy_optimize().newton(
            _plain(g),
            x0_plain if x0_plain.ndim else float(x0_plain),
            fprime=None if fprime is None else _plain(lambda x: fprime(x, *args)),
            tol=tol,
            maxiter=maxiter,
            fprime2=None if fprime2 is None else _plain(lambda x: fprime2(x, *args)),
            x1=None if x1 is None else _host(x1),
            rtol=rtol,
            full_output=True,
            disp=disp,
        )
        found["rest"] = out[1:]
        return fnp.asarray(out[0])

    x = custom_root(lambda x: func(x, *args), fnp.asarray(x0_plain), solve, _divide_by_derivative)
    return (x, *found["rest"]) if full_output else x


def root_scalar(
    f: Callable,
    args: tuple = (),
    method: str | None = None,
    bracket: Any = None,
    fprime: Any = None,
    fprime2: Any = None,
    x0: Any = None,
    x1: Any = None,
    xtol: float | None = None,
    rtol: float | None = None,
    maxiter: int | None = None,
    options: dict | None = None,
) -> Any:
    """``scipy.optimize.root_scalar``: SciPy's ``RootResults`` whose ``root`` is
    differentiable in ``args`` and the values ``f`` closes over (NOTE [root finders on
    traced parameters]); ``fprime``/``fprime2`` may be functions (``True`` is not
    available: pass the derivative, e.g. ``ft.grad(f)``).

    Example:
        >>> import ftransforms as ft
        >>> f = lambda a: root_scalar(lambda x: x**3 - a, bracket=(0.0, 5.0)).root
        >>> round(float(ft.grad(f)(8.0)), 8)
        0.08333333
    """
    if not isinstance(args, tuple):
        args = (args,)
    if fprime is True or fprime2 is True:
        raise TypeError(
            "root_scalar(f, fprime=True): a function returning (f, f') is not available "
            "here; pass fprime=ft.grad(f) (and fprime2=ft.grad(ft.grad(f)))"
        )
    found = {}

    def solve(g: Callable, guess: Any) -> Any:
        res = _scipy_optimize().root_scalar(
            _plain(g),
            method=method,
            bracket=None if bracket is None else tuple(_number(v) for v in bracket),
            fprime=None if fprime is None else _plain(lambda x: fprime(x, *args)),
            fprime2=None if fprime2 is None else _plain(lambda x: fprime2(x, *args)),
            x0=None if x0 is None else _number(x0),
            x1=None if x1 is None else _number(x1),
            xtol=xtol,
            rtol=rtol,
            maxiter=maxiter,
            options=options,
        )
        found["results"] = res
        return fnp.asarray(res.root)

    start = x0 if x0 is not None else (bracket[0] if bracket is not None else 0.0)
    x = custom_root(
        lambda x: f(x, *args), fnp.asarray(_number(start)), solve, _divide_by_derivative
    )
    results = found["results"]
    results.root = x
    return results


def _jacobian_solve(g: Callable, y: Any) -> Any:
    """The tangent solve of a vector function: ``J⁻¹ y``, ``J`` the (constant) Jacobian of
    the linear ``g``."""
    J = jacfwd(g)(fnp.zeros_like(y))
    if fnp.ndim(y) == 0:
        return y / J
    n = fnp.size(y)
    flat = fnp.linalg.solve(fnp.reshape(J, (n, n)), fnp.reshape(y, (n,)))
    return fnp.reshape(flat, fnp.shape(y))


def fixed_point(
    func: Callable,
    x0: Any,
    args: tuple = (),
    xtol: float = 1e-08,
    maxiter: int = 500,
    method: str = "del2",
) -> Any:
    """``scipy.optimize.fixed_point``: ``x`` with ``func(x, *args) = x`` by SciPy's
    iteration (Steffensen's ``del2`` or plain ``iteration``), differentiable in ``args`` and
    the values ``func`` closes over: the root of ``func(x) - x`` (NOTE [root finders on
    traced parameters]).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> f = lambda a: fixed_point(lambda x: np.cos(x) * a, 0.5)
        >>> x = f(0.9)
        >>> bool(np.isclose(x, np.cos(x) * 0.9)), round(float(ft.grad(f)(0.9)), 6)
        (True, 0.488713)
    """
    if not isinstance(args, tuple):
        args = (args,)
    x0_plain = _host(x0)

    def residual(x: Any) -> Any:
        return fnp.asarray(func(x, *args)) - x

    def solve(g: Callable, guess: Any) -> Any:
        fixed = _scipy_optimize().fixed_point(
            _plain(lambda x: func(x, *args)), x0_plain, xtol=xtol, maxiter=maxiter, method=method
        )
        return fnp.asarray(fixed)

    return custom_root(residual, fnp.asarray(x0_plain), solve, _jacobian_solve)


def fsolve(
    func: Callable,
    x0: Any,
    args: tuple = (),
    fprime: Callable | None = None,
    full_output: int = 0,
    col_deriv: int = 0,
    xtol: float = 1.49012e-08,
    maxfev: int = 0,
    band: Any = None,
    epsfcn: float | None = None,
    factor: float = 100,
    diag: Any = None,
) -> Any:
    """``scipy.optimize.fsolve``: a root of ``func(x, *args)`` by SciPy's MINPACK hybrd
    (hybrj with ``fprime``), differentiable in ``args`` and the values ``func`` closes
    over (NOTE [root finders on traced parameters]); with ``full_output``,
    ``(x, infodict, ier, mesg)`` as SciPy.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> def f(a):  # x0 + x1 = a, x0 - x1 = 1
        ...     return fsolve(lambda x: [x[0] + x[1] - a, x[0] - x[1] - 1], np.zeros(2))
        >>> ft.jacfwd(f)(3.0).round(8).tolist()
        [0.5, 0.5]
    """
    if not isinstance(args, tuple):
        args = (args,)
    found = {}
    x0_plain = _host(x0)

    def as_array(x: Any) -> Any:
        out = func(x, *args)
        return out if hasattr(out, "dtype") else fnp.stack([fnp.asarray(v) for v in out])

    def solve(g: Callable, guess: Any) -> Any:
        out = _scipy_optimize().fsolve(
            _plain(g),
            x0_plain,
            fprime=None if fprime is None else _plain(lambda x: fprime(x, *args)),
            full_output=True,
            col_deriv=col_deriv,
            xtol=xtol,
            maxfev=maxfev,
            band=band,
            epsfcn=epsfcn,
            factor=factor,
            diag=diag,
        )
        found["rest"] = out[1:]
        return fnp.asarray(out[0])

    x = custom_root(as_array, fnp.asarray(x0_plain), solve, _jacobian_solve)
    return (x, *found["rest"]) if full_output else x


def root(
    fun: Callable,
    x0: Any,
    args: tuple = (),
    method: str = "hybr",
    jac: Any = None,
    tol: float | None = None,
    callback: Callable | None = None,
    options: dict | None = None,
) -> Any:
    """``scipy.optimize.root``: SciPy's ``OptimizeResult`` whose ``x`` is differentiable in
    ``args`` and the values ``fun`` closes over (NOTE [root finders on traced
    parameters]); ``jac`` may be a function (``True`` is not available: pass
    ``jac=ft.jacfwd(fun)``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> f = lambda a: root(lambda x: x**2 - a, np.ones(2)).x.sum()
        >>> round(float(ft.grad(f)(4.0)), 8)  # two roots sqrt(a): 2 / (2 sqrt a)
        0.5
    """
    if not isinstance(args, tuple):
        args = (args,)
    if jac is True:
        raise TypeError(
            "root(fun, x0, jac=True): a function returning (f, J) is not available here; "
            "pass jac=ft.jacfwd(fun)"
        )
    found = {}
    x0_plain = _host(x0)

    def as_array(x: Any) -> Any:
        out = fun(x, *args)
        return out if hasattr(out, "dtype") else fnp.stack([fnp.asarray(v) for v in out])

    def solve(g: Callable, guess: Any) -> Any:
        res = _scipy_optimize().root(
            _plain(g),
            x0_plain,
            method=method,
            jac=None if jac is None else _plain(lambda x: jac(x, *args)),
            tol=tol,
            callback=callback,
            options=options,
        )
        found["results"] = res
        return fnp.asarray(res.x)

    x = custom_root(as_array, fnp.asarray(x0_plain), solve, _jacobian_solve)
    results = found["results"]
    results.x = x
    return results
