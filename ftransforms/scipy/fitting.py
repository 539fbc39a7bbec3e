"""SciPy's ``minimize``, ``least_squares`` and ``curve_fit`` with SciPy's signatures on
traced parameters and data (SciPy's own names answer with these under the transforms:
``ftransforms.scipy.optimize.SCIPY_SIGNATURES``).

NOTE [SciPy's optimizers on traced data]: SciPy's own optimizer runs on plain numbers
(the function's values read as in NOTE [root finders on traced parameters]), so its
result is SciPy's; the solution is then :func:`ftransforms.custom_root` of its
stationarity condition, ``grad_x f(x*) = 0`` (``minimize``), ``J(x*)^T r(x*) = 0``
(``least_squares``, ``loss='linear'``) or the same for ``curve_fit``'s weighted
residuals ``(f(xdata, *p) - ydata) / sigma``: its derivative in ``args``, the data and
what the functions close over is ``-H⁻¹ ∂(condition)``, ``H`` the Hessian of the
objective by ``jacfwd`` (NOTE [differentiable minimize]), never the optimizer's steps.
Coordinates on a bound are held there.  ``fun`` (``cost`` for ``least_squares``) is
recomputed at the differentiable solution; ``curve_fit``'s ``pcov`` is SciPy's value
with the derivative of ``s² (JᵀJ)⁻¹`` (``s² = 1`` with ``absolute_sigma``).
Constraints and robust losses raise: their solutions are not the stationary points
above.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.api import grad, jacfwd
from ftransforms.control import has_derivative
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.implicit import custom_root
from ftransforms.pytree import tree_flatten
from ftransforms.scipy.roots import _host, _scipy_optimize

__all__ = ["curve_fit", "fmin", "least_squares", "minimize"]


def _theirs(name: str) -> Callable:
    fn = getattr(_scipy_optimize(), name)
    return getattr(fn, "__wrapped__", fn)  # SciPy's own, not the wrapper that sent it here


def _plain_fn(fn: Callable | None, scalar: bool = False) -> Callable | None:
    """``fn`` as SciPy calls it: on plain arrays, returning plain values (a tuple's too)."""
    if fn is None or not callable(fn):
        return fn

    def call(*a: Any, **k: Any) -> Any:
        out = fn(*a, **k)
        if isinstance(out, tuple):
            return tuple(_host(o) for o in out)
        out = _host(out)
        return float(out) if scalar and out.ndim == 0 else out

    return call


def _plain_tree(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return type(value)(_plain_tree(v) for v in value)
    if value is None or isinstance(value, (int, float, str, dict)):
        return value
    return _host(value)


def _hessian_solve(linear: Callable, rhs: Any) -> Any:
    return fnp.linalg.solve(jacfwd(linear)(rhs), rhs)


def _active(x_plain: numpy.ndarray, lo: Any, hi: Any) -> numpy.ndarray:
    lo = numpy.broadcast_to(numpy.asarray(lo, float), x_plain.shape)
    hi = numpy.broadcast_to(numpy.asarray(hi, float), x_plain.shape)
    scale = 1e-8 * (1 + numpy.abs(x_plain))
    return (numpy.abs(x_plain - lo) <= scale) | (numpy.abs(x_plain - hi) <= scale)


def _minimum(objective: Callable, x0: Any, solve: Callable, active: Callable) -> Any:
    """``custom_root`` of ``grad objective`` (coordinates ``active()`` held)."""

    def stationary(x: Any) -> Any:
        g = grad(objective)(x)
        mask = active()
        return g if not mask.any() else fnp.where(mask, x - fnp.stop_gradient(x), g)

    return custom_root(stationary, x0, solve, _hessian_solve)


def _differentiated(*values: Any) -> bool:
    return any(has_derivative(v) for v in tree_flatten(values)[0])


def minimize(
    fun: Callable,
    x0: Any,
    args: tuple = (),
    method: Any = None,
    jac: Any = None,
    hess: Any = None,
    hessp: Any = None,
    bounds: Any = None,
    constraints: Any = (),
    tol: float | None = None,
    callback: Any = None,
    options: dict | None = None,
) -> Any:
    """``scipy.optimize.minimize`` (SciPy's signature and methods): SciPy's
    ``OptimizeResult`` whose ``x`` is differentiable in ``args`` and in the values
    ``fun`` closes over (NOTE [SciPy's optimizers on traced data]).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> argmin = lambda c: minimize(lambda x: ((x - c) ** 2).sum() + (x**4).sum(),
        ...                             np.zeros(1), method="BFGS", options={"gtol": 1e-10}).x[0]
        >>> round(float(ft.grad(argmin)(0.5)), 4)  # 2 / (2 + 12 x*^2)
        0.5287
    """
    if not isinstance(args, tuple):
        args = (args,)
    if constraints:
        raise UnsupportedOperationError(
            "scipy.optimize.minimize(..., constraints=...) on traced values: a constrained "
            "minimum is not a stationary point of fun, so its derivative is not available"
        )
    x0_plain = numpy.atleast_1d(_host(x0)).astype(float)
    found: dict = {}

    def value(x: Any) -> Any:
        out = fun(x, *args)
        return out[0] if jac is True else out

    def solve(g: Callable, guess: Any) -> Any:
        res = _theirs("minimize")(
            _plain_fn(lambda x: fun(x, *args), scalar=jac is not True),
            x0_plain,
            method=method,
            jac=_plain_fn(lambda x: jac(x, *args)) if callable(jac) else jac,
            hess=_plain_fn(lambda x: hess(x, *args)) if callable(hess) else hess,
            hessp=_plain_fn(lambda x, p: hessp(x, p, *args)) if callable(hessp) else hessp,
            bounds=_plain_tree(bounds),
            tol=tol,
            callback=callback,
            options=options,
        )
        found["res"] = res
        found["active"] = numpy.zeros(res.x.shape, bool)
        if bounds is not None:
            b = bounds
            lo, hi = (getattr(b, "lb", None), getattr(b, "ub", None))
            if lo is None:
                pairs = [
                    (-numpy.inf if p[0] is None else p[0], numpy.inf if p[1] is None else p[1])
                    for p in b
                ]
                lo, hi = [p[0] for p in pairs], [p[1] for p in pairs]
            found["active"] = _active(res.x, _host(lo), _host(hi))
        return fnp.asarray(res.x)

    x = _minimum(value, fnp.asarray(x0_plain), solve, lambda: found["active"])
    res = found["res"]
    res.x = x
    if _differentiated(x, args):
        res.fun = value(x)
    return res


def fmin(
    func: Callable,
    x0: Any,
    args: tuple = (),
    xtol: float = 0.0001,
    ftol: float = 0.0001,
    maxiter: Any = None,
    maxfun: Any = None,
    full_output: int = 0,
    disp: int = 1,
    retall: int = 0,
    callback: Any = None,
    initial_simplex: Any = None,
) -> Any:
    """``scipy.optimize.fmin`` (Nelder-Mead): SciPy's ``xopt`` (and its other outputs)
    with ``xopt`` differentiable in ``args`` and the values ``func`` closes over, ``fopt``
    recomputed at it (NOTE [SciPy's optimizers on traced data]).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> argmin = lambda c: fmin(lambda x: ((x - c) ** 2).sum(), np.zeros(1), disp=0)[0]
        >>> round(float(ft.grad(argmin)(0.5)), 6)
        1.0
    """
    if not isinstance(args, tuple):
        args = (args,)
    x0_plain = numpy.atleast_1d(_host(x0)).astype(float)
    found: dict = {}

    def value(x: Any) -> Any:
        return func(x, *args)

    def solve(g: Callable, guess: Any) -> Any:
        out = _theirs("fmin")(
            _plain_fn(value, scalar=True), x0_plain, xtol=xtol, ftol=ftol, maxiter=maxiter,
            maxfun=maxfun, full_output=True, disp=disp, retall=retall, callback=callback,
            initial_simplex=None if initial_simplex is None else _host(initial_simplex),
        )  # fmt: skip
        found["out"] = out
        return fnp.asarray(out[0])

    x = _minimum(value, fnp.asarray(x0_plain), solve, lambda: numpy.zeros(x0_plain.shape, bool))
    out = found["out"]
    if not full_output:
        return (x, out[-1]) if retall else x
    fopt = value(x) if _differentiated(x, args) else out[1]
    return (x, fopt, *out[2:])


def least_squares(
    fun: Callable,
    x0: Any,
    jac: Any = "2-point",
    bounds: Any = (-numpy.inf, numpy.inf),
    method: str = "trf",
    ftol: float = 1e-08,
    xtol: float = 1e-08,
    gtol: float = 1e-08,
    x_scale: Any = None,
    loss: str = "linear",
    f_scale: float = 1.0,
    diff_step: Any = None,
    tr_solver: Any = None,
    tr_options: Any = None,
    jac_sparsity: Any = None,
    max_nfev: Any = None,
    verbose: int = 0,
    args: tuple = (),
    kwargs: dict | None = None,
    callback: Any = None,
    workers: Any = None,
) -> Any:
    """``scipy.optimize.least_squares`` (``loss='linear'``): SciPy's result whose ``x``
    is differentiable in ``args``/``kwargs`` and the values ``fun`` closes over, with
    ``fun`` (the residuals) and ``cost`` recomputed at it (NOTE [SciPy's optimizers on
    traced data]).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> t = np.linspace(0.0, 1.0, 5)
        >>> fit = lambda y: least_squares(lambda p: p[0] * t + p[1] - y, np.zeros(2)).x
        >>> (np.round(ft.jacrev(fit)(2 * t + 1), 6)[0] + 0.0).tolist()  # the slope's weights
        [-0.8, -0.4, 0.0, 0.4, 0.8]
    """
    if loss != "linear":
        raise UnsupportedOperationError(
            f"scipy.optimize.least_squares(loss={loss!r}) on traced values: only "
            f"loss='linear' is differentiated here"
        )
    kwargs = dict(kwargs or {})
    if not isinstance(args, tuple):
        args = (args,)
    found: dict = {}

    def residuals(x: Any) -> Any:
        return fun(x, *args, **kwargs)

    def solve(g: Callable, guess: Any) -> Any:
        options = {
            "jac": _plain_fn(lambda x: jac(x, *args, **kwargs)) if callable(jac) else jac,
            "bounds": _plain_tree(bounds),
            "method": method,
            "ftol": ftol,
            "xtol": xtol,
            "gtol": gtol,
            "f_scale": f_scale,
            "diff_step": diff_step,
            "tr_solver": tr_solver,
            "tr_options": tr_options or {},
            "jac_sparsity": jac_sparsity,
            "max_nfev": max_nfev,
            "verbose": verbose,
        }
        if x_scale is not None:
            options["x_scale"] = x_scale
        if callback is not None:
            options["callback"] = callback
        if workers is not None:
            options["workers"] = workers
        res = _theirs("least_squares")(
            _plain_fn(residuals), numpy.atleast_1d(_host(x0)).astype(float), **options
        )
        found["res"] = res
        found["active"] = res.active_mask != 0
        return fnp.asarray(res.x)

    def cost(x: Any) -> Any:
        r = residuals(x)
        return 0.5 * fnp.sum(r * r)

    x0_plain = numpy.atleast_1d(_host(x0)).astype(float)
    x = _minimum(cost, fnp.asarray(x0_plain), solve, lambda: found["active"])
    res = found["res"]
    res.x = x
    if _differentiated(x, args, kwargs):
        res.fun = residuals(x)
        res.cost = cost(x)
    return res


def _weighted_residuals(f: Callable, xdata: Any, ydata: Any, sigma: Any, n: int) -> Callable:
    """``p -> (f(xdata, *p) - ydata) / sigma``, flattened."""

    def weighted(p: Any) -> Any:
        r = fnp.asarray(f(xdata, *[p[i] for i in range(n)])) - ydata
        r = fnp.reshape(r, (-1,))
        return r if sigma is None else r / fnp.asarray(sigma)

    return weighted


def curve_fit(
    f: Callable,
    xdata: Any,
    ydata: Any,
    p0: Any = None,
    sigma: Any = None,
    absolute_sigma: bool = False,
    check_finite: Any = None,
    bounds: Any = (-numpy.inf, numpy.inf),
    method: Any = None,
    jac: Any = None,
    *,
    full_output: bool = False,
    nan_policy: Any = None,
    **kwargs: Any,
) -> Any:
    """``scipy.optimize.curve_fit``: SciPy's ``(popt, pcov)`` (more with
    ``full_output``), ``popt`` differentiable in ``xdata``, ``ydata``, ``sigma`` and
    the values ``f`` closes over, ``pcov`` SciPy's value with the derivative of its
    formula (NOTE [SciPy's optimizers on traced data]); ``sigma`` a 1-D array of
    standard deviations or ``None``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> t = np.linspace(0.0, 1.0, 5)
        >>> slope = lambda y: curve_fit(lambda x, a, b: a * x + b, t, y)[0][0]
        >>> (np.round(ft.grad(slope)(2 * t + 1), 6) + 0.0).tolist()
        [-0.8, -0.4, 0.0, 0.4, 0.8]
    """
    if sigma is not None and fnp.ndim(sigma) != 1:
        raise UnsupportedOperationError(
            "scipy.optimize.curve_fit(sigma=...) on traced values: sigma must be a 1-D "
            "array of standard deviations (a covariance matrix is not available here)"
        )
    found: dict = {}
    if p0 is None:  # SciPy's default: ones, as many as f's parameters after x
        import inspect  # noqa: PLC0415  (only for this default)

        n = len(inspect.signature(f).parameters) - 1
        p0_plain = numpy.ones(n)
    else:
        p0_plain = numpy.atleast_1d(_host(p0)).astype(float)

    weighted = _weighted_residuals(f, xdata, ydata, sigma, p0_plain.shape[0])

    def solve(g: Callable, guess: Any) -> Any:
        out = _theirs("curve_fit")(
            _plain_fn(f),
            _plain_tree(xdata),
            _host(ydata),
            p0=p0_plain,
            sigma=None if sigma is None else _host(sigma),
            absolute_sigma=absolute_sigma,
            check_finite=check_finite,
            bounds=_plain_tree(bounds),
            method=method,
            jac=_plain_fn(jac) if callable(jac) else jac,
            full_output=True,
            nan_policy=nan_policy,
            **kwargs,
        )
        found["out"] = out
        lo, hi = _plain_tree(bounds)
        found["active"] = _active(out[0], lo, hi)
        return fnp.asarray(out[0])

    def cost(p: Any) -> Any:
        r = weighted(p)
        return 0.5 * fnp.sum(r * r)

    popt = _minimum(cost, fnp.asarray(p0_plain), solve, lambda: found["active"])
    out = found["out"]
    pcov = out[1]
    if _differentiated(popt, xdata, ydata, sigma) and numpy.all(numpy.isfinite(pcov)):
        # (a closure of its own: jacfwd of the one custom_root holds broke its pullback)
        weighted = _weighted_residuals(f, xdata, ydata, sigma, p0_plain.shape[0])
        J = jacfwd(weighted)(popt)
        ours = fnp.linalg.inv(fnp.matmul(J.T, J))
        if not absolute_sigma:
            r = weighted(popt)
            dof = fnp.shape(r)[0] - p0_plain.shape[0]
            ours = ours * (fnp.sum(r * r) / dof)
        pcov = pcov + (ours - fnp.stop_gradient(ours))  # SciPy's value, the formula's slope
    if full_output:
        return (popt, pcov, *out[2:])
    return popt, pcov
