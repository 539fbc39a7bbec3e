"""``ftransforms.scipy.optimize``: :func:`minimize` (``jax.scipy.optimize.minimize``), and
SciPy's root finders and scalar minimizers with implicit derivatives
(:mod:`ftransforms.scipy.roots`, :mod:`ftransforms.scipy.scalar_minimizers`).

BFGS is written with ftransforms (gradients by ``value_and_grad``, the loops by
``ft.while_loop``, every choice by ``where``), so it runs on NumPy and CuPy arrays and
under ``vmap`` (each row follows its own iterates, finished rows are frozen) and ``jit``.
Its line search is the strong-Wolfe search of Nocedal and Wright (Algorithms 3.5 and 3.6,
"zoom" by cubic, quadratic or bisection steps), with the constants and limits of SciPy's
and JAX's BFGS (``c1 = 1e-4``, ``c2 = 0.9``, 10 line-search steps, 30 zoom steps,
``gtol = 1e-5`` on the infinity norm of the gradient, ``maxiter = 200 n``).  One
difference from JAX's: the zoom gives up when its bracket is narrower than 1e-10 (1e-5
below float64) in absolute value, as SciPy's, where JAX compares the signed width and so
fails on a reversed bracket (jax-ml/jax#40228: status 3 on a plain quadratic).
``method="L-BFGS-B"`` (with ``bounds``) calls SciPy's, on concrete arrays.

NOTE [differentiable minimize]: beyond JAX, the solution ``x*`` is differentiable in
``args``: ``grad_x f(x*, args) = 0`` defines it implicitly, so ``minimize`` is
:func:`ftransforms.custom_root` of ``grad_x f`` with the optimizer as ``solve`` and a
Hessian solve as ``tangent_solve`` (``dx*/dargs = -H⁻¹ ∂²f/∂x∂args``; NOTE [implicit
differentiation] in ``ftransforms/implicit.py``): the optimizer's steps are never
differentiated.  For L-BFGS-B the coordinates at an active bound are held there (their
derivative is zero) and the others follow the same rule.  ``fun`` is recomputed at the
differentiable ``x`` (same value), so its derivative is the envelope theorem's; ``jac``,
``hess_inv`` and the counters carry none.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy

import ftransforms.numpy as fnp
from ftransforms.api import grad as _grad
from ftransforms.api import jacfwd, value_and_grad
from ftransforms.backend import namespace_of
from ftransforms.control import has_derivative, while_loop
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.tracer import Tracer
from ftransforms.implicit import custom_root
from ftransforms.interpreters.forward import DualTracer
from ftransforms.interpreters.reverse import ReverseTracer
from ftransforms.numpy.helpers import dtype_of, to_host
from ftransforms.pytree import tree_flatten
from ftransforms.scipy.assignment import linear_sum_assignment, lsq_linear, nnls
from ftransforms.scipy.fitting import curve_fit, fmin, least_squares
from ftransforms.scipy.fitting import minimize as _scipy_minimize
from ftransforms.scipy.roots import (
    bisect,
    brenth,
    brentq,
    fixed_point,
    fsolve,
    newton,
    ridder,
    root,
    root_scalar,
    toms748,
)
from ftransforms.scipy.scalar_minimizers import brent, fminbound, golden, minimize_scalar

__all__ = [
    "OptimizeResults",
    "bisect",
    "brenth",
    "brent",
    "brentq",
    "curve_fit",
    "fixed_point",
    "fmin",
    "fminbound",
    "fsolve",
    "golden",
    "least_squares",
    "linear_sum_assignment",
    "lsq_linear",
    "minimize",
    "minimize_scalar",
    "newton",
    "nnls",
    "ridder",
    "root",
    "root_scalar",
    "toms748",
]


#: SciPy's names whose counterpart here has another signature (``minimize`` is JAX's):
#: the counterparts with SciPy's, answering SciPy's own names under the transforms.
#: (``linear_sum_assignment`` is a compiled function: no signature to compare.)
SCIPY_SIGNATURES = {"minimize": _scipy_minimize, "linear_sum_assignment": linear_sum_assignment}


class OptimizeResults(NamedTuple):
    """What :func:`minimize` returns (``jax.scipy.optimize.OptimizeResults``).

    ``x`` the solution, ``success`` whether it converged, ``status`` (0 converged, 1
    ``maxiter`` reached, 2 + the line search's status when it failed: 3 zoom failed, 5
    too many steps), ``fun`` and ``jac`` the value and gradient at ``x``, ``hess_inv``
    the final inverse-Hessian estimate, ``nfev``/``njev`` the function and gradient
    evaluations, ``nit`` the iterations.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.optimize import minimize
        >>> r = minimize(lambda x: ((x - 1.0) ** 2).sum(), np.zeros(2))
        >>> type(r).__name__, np.round(r.x, 6), bool(r.success)
        ('OptimizeResults', array([1., 1.]), True)
    """

    x: Any
    success: Any
    status: Any
    fun: Any
    jac: Any
    hess_inv: Any
    nfev: Any
    njev: Any
    nit: Any


# -- the strong-Wolfe line search ----------------------------------------------------------


def _where(c: Any, new: dict, old: dict) -> dict:
    return {k: fnp.where(c, new[k], old[k]) if k in new else old[k] for k in old}


def _divide(a: Any, b: Any) -> Any:
    """``a / b``, NaN where ``b`` is 0, without NumPy's warning (the NaN makes the range
    checks that follow fail, as the division would)."""
    zero = b == 0
    return fnp.where(zero, numpy.nan, a / fnp.where(zero, 1.0, b))


def _sqrt(x: Any) -> Any:
    """``sqrt(x)``, NaN where ``x < 0``, without NumPy's warning."""
    return fnp.where(x < 0, numpy.nan, fnp.sqrt(fnp.where(x < 0, 0.0, x)))


def _cubic_min(a, fa, fpa, b, fb, c, fc):
    """The minimizer of the cubic through ``(a, fa)`` with slope ``fpa``, ``(b, fb)``,
    ``(c, fc)``."""
    db, dc = b - a, c - a
    denom = (db * dc) ** 2 * (db - dc)
    rb = fb - fa - fpa * db
    rc = fc - fa - fpa * dc
    p = _divide(dc**2 * rb - db**2 * rc, denom)
    q = _divide(-(dc**3) * rb + db**3 * rc, denom)
    return a + _divide(-q + _sqrt(q * q - 3.0 * p * fpa), 3.0 * p)


def _quad_min(a, fa, fpa, b, fb):
    """The minimizer of the parabola through ``(a, fa)`` with slope ``fpa`` and ``(b, fb)``."""
    db = b - a
    curv = _divide(fb - fa - fpa * db, db * db)
    return a - _divide(fpa, 2.0 * curv)


def _zoom(phi, wolfe1, wolfe2, lo, hi, g0, skip, dtype):
    """Algorithm 3.6: shrink ``[lo, hi]`` (dicts of ``a``, ``phi``, ``dphi``) to a step
    that satisfies the strong Wolfe conditions; ``skip`` (a boolean) runs no step."""
    like = lo["phi"]  # constants on its backend (NumPy or CuPy)
    state = {
        "done": fnp.full_like(like, False, dtype=bool),
        "failed": fnp.full_like(like, False, dtype=bool),
        "j": fnp.full_like(like, 0, dtype=int),
        "a_lo": lo["a"], "phi_lo": lo["phi"], "dphi_lo": lo["dphi"],
        "a_hi": hi["a"], "phi_hi": hi["phi"], "dphi_hi": hi["dphi"],
        "a_rec": (lo["a"] + hi["a"]) / 2.0, "phi_rec": (lo["phi"] + hi["phi"]) / 2.0,
        "a_star": fnp.full_like(like, 1.0, dtype=dtype), "phi_star": lo["phi"],
        "dphi_star": lo["dphi"], "g_star": g0, "nfev": fnp.full_like(like, 0, dtype=int),
    }  # fmt: skip
    tiny = 1e-5 if numpy.finfo(dtype).bits < 64 else 1e-10

    def body(s):
        width = s["a_hi"] - s["a_lo"]
        left = fnp.minimum(s["a_hi"], s["a_lo"])
        right = fnp.maximum(s["a_hi"], s["a_lo"])
        failed = s["failed"] | (fnp.abs(width) <= tiny)  # the bracket may be reversed
        cubic = _cubic_min(
            s["a_lo"], s["phi_lo"], s["dphi_lo"], s["a_hi"], s["phi_hi"], s["a_rec"], s["phi_rec"]
        )
        use_cubic = (s["j"] > 0) & (cubic > left + 0.2 * width) & (cubic < right - 0.2 * width)
        quad = _quad_min(s["a_lo"], s["phi_lo"], s["dphi_lo"], s["a_hi"], s["phi_hi"])
        use_quad = ~use_cubic & (quad > left + 0.1 * width) & (quad < right - 0.1 * width)
        a_j = fnp.where(use_cubic, cubic, fnp.where(use_quad, quad, (s["a_lo"] + s["a_hi"]) / 2.0))
        phi_j, dphi_j, g_j = phi(a_j)
        hi_to_j = wolfe1(a_j, phi_j) | (phi_j >= s["phi_lo"])
        star_to_j = wolfe2(dphi_j) & ~hi_to_j
        hi_to_lo = (dphi_j * (s["a_hi"] - s["a_lo"]) >= 0.0) & ~hi_to_j & ~star_to_j
        lo_to_j = ~hi_to_j & ~star_to_j
        s = dict(s, failed=failed, nfev=s["nfev"] + 1)
        s = _where(hi_to_j, {"a_hi": a_j, "phi_hi": phi_j, "dphi_hi": dphi_j,
                             "a_rec": s["a_hi"], "phi_rec": s["phi_hi"]}, s)  # fmt: skip
        s = _where(star_to_j, {"a_star": a_j, "phi_star": phi_j, "dphi_star": dphi_j,
                               "g_star": g_j}, s)  # fmt: skip
        s["done"] = s["done"] | star_to_j
        s = _where(hi_to_lo, {"a_hi": s["a_lo"], "phi_hi": s["phi_lo"], "dphi_hi": s["dphi_lo"],
                              "a_rec": s["a_hi"], "phi_rec": s["phi_hi"]}, s)  # fmt: skip
        s = _where(lo_to_j & ~hi_to_lo, {"a_rec": s["a_lo"], "phi_rec": s["phi_lo"]}, s)
        s = _where(lo_to_j, {"a_lo": a_j, "phi_lo": phi_j, "dphi_lo": dphi_j}, s)
        s["j"] = s["j"] + 1
        s["failed"] = s["failed"] | (s["j"] >= 30)
        return s

    return while_loop(lambda s: ~s["done"] & ~skip & ~s["failed"], body, state)


def _line_search(fun, x, p, f0, old_old_f, g0, maxiter, c1=1e-4, c2=0.9):
    """Algorithm 3.5: a step ``a`` along ``p`` with the strong Wolfe conditions."""
    dtype = dtype_of(x)

    def phi(a):
        value, g = value_and_grad(fun)(x + a * p)
        return value, fnp.vdot(g, p), g

    dphi0 = fnp.vdot(g0, p)
    start = _divide(1.01 * 2.0 * (f0 - old_old_f), dphi0)
    start = fnp.where(start > 1.0, 1.0, start).astype(dtype)

    def wolfe1(a, phi_a):
        return phi_a > f0 + c1 * a * dphi0

    def wolfe2(dphi_a):
        return fnp.abs(dphi_a) <= -c2 * dphi0

    zero = fnp.zeros_like(f0, dtype=dtype)
    false = fnp.full_like(f0, False, dtype=bool)
    state = {
        "done": false, "failed": false, "i": fnp.full_like(f0, 1, dtype=int),
        "a_prev": zero, "phi_prev": f0, "dphi_prev": dphi0,
        "nfev": fnp.full_like(f0, 0, dtype=int),
        "a_star": zero, "phi_star": f0, "dphi_star": dphi0, "g_star": g0,
    }  # fmt: skip
    star = ("a_star", "phi_star", "dphi_star", "g_star")

    def body(s):
        a_i = fnp.where(s["i"] == 1, start, s["a_prev"] * 2.0)
        phi_i, dphi_i, g_i = phi(a_i)
        to_zoom1 = wolfe1(a_i, phi_i) | ((phi_i >= s["phi_prev"]) & (s["i"] > 1))
        to_i = wolfe2(dphi_i) & ~to_zoom1
        to_zoom2 = (dphi_i >= 0.0) & ~to_zoom1 & ~to_i
        prev = {"a": s["a_prev"], "phi": s["phi_prev"], "dphi": s["dphi_prev"]}
        cur = {"a": a_i, "phi": phi_i, "dphi": dphi_i}
        z1 = _zoom(phi, wolfe1, wolfe2, prev, cur, g0, ~to_zoom1, dtype)
        z2 = _zoom(phi, wolfe1, wolfe2, cur, prev, g0, ~to_zoom2, dtype)
        s = dict(s, nfev=s["nfev"] + 1 + z1["nfev"] + z2["nfev"])
        s = _where(to_zoom1, {k: z1[k] for k in star}, s)
        s = _where(to_i, {"a_star": a_i, "phi_star": phi_i, "dphi_star": dphi_i, "g_star": g_i}, s)
        s = _where(to_zoom2, {k: z2[k] for k in star}, s)
        s["done"] = s["done"] | to_zoom1 | to_i | to_zoom2
        s["failed"] = s["failed"] | (to_zoom1 & z1["failed"]) | (to_zoom2 & z2["failed"])
        s.update(i=s["i"] + 1, a_prev=a_i, phi_prev=phi_i, dphi_prev=dphi_i)
        return s

    s = while_loop(lambda s: ~s["done"] & (s["i"] <= maxiter) & ~s["failed"], body, state)
    status = fnp.where(s["failed"], 1, fnp.where(s["i"] > maxiter, 3, 0))
    return s, s["failed"] | ~s["done"], status


# -- BFGS -----------------------------------------------------------------------------------


def _bfgs(fun, x0, maxiter=None, norm=numpy.inf, gtol=1e-5, line_search_maxiter=10):
    n = fnp.shape(x0)[0]
    if maxiter is None:
        maxiter = n * 200
    dtype = dtype_of(x0)
    f0, g0 = value_and_grad(fun)(x0)
    state = {
        "converged": fnp.linalg.norm(g0, ord=norm) < gtol,
        "failed": fnp.full_like(f0, False, dtype=bool),
        "k": fnp.full_like(f0, 0, dtype=int),
        "nfev": fnp.full_like(f0, 1, dtype=int), "ngev": fnp.full_like(f0, 1, dtype=int),
        "x": x0, "f": f0, "g": g0, "H": fnp.eye(n, dtype=dtype, like=x0),
        "old_old_f": f0 + fnp.linalg.norm(g0) / 2.0,
        "ls_status": fnp.full_like(f0, 0, dtype=int),
    }  # fmt: skip

    def body(s):
        p = -(s["H"] @ s["g"])
        ls, ls_failed, ls_status = _line_search(
            fun, s["x"], p, s["f"], s["old_old_f"], s["g"], line_search_maxiter
        )
        step = ls["a_star"] * p
        y = ls["g_star"] - s["g"]
        rho = _divide(1.0, fnp.vdot(y, step))
        w = fnp.eye(n, dtype=dtype, like=s["x"]) - rho * fnp.outer(step, y)
        h_new = w @ s["H"] @ w.T + rho * fnp.outer(step, step)  # NaN where rho is
        return {
            "converged": fnp.linalg.norm(ls["g_star"], ord=norm) < gtol,
            "failed": ls_failed,
            "k": s["k"] + 1,
            "nfev": s["nfev"] + ls["nfev"],
            "ngev": s["ngev"] + ls["nfev"],
            "x": s["x"] + step,
            "f": ls["phi_star"],
            "g": ls["g_star"],
            "H": fnp.where(fnp.isfinite(rho), h_new, s["H"]),
            "old_old_f": s["f"],
            "ls_status": ls_status,
        }

    s = while_loop(lambda s: ~s["converged"] & ~s["failed"] & (s["k"] < maxiter), body, state)
    status = fnp.where(
        s["converged"],
        0,
        fnp.where(s["k"] == maxiter, 1, fnp.where(s["failed"], 2 + s["ls_status"], -1)),
    )
    return s, s["converged"] & ~s["failed"], status


# -- L-BFGS-B through SciPy ----------------------------------------------------------------


def _concrete(x: Any, where: str) -> Any:
    """A concrete array from a value the optimizer sees (outer derivative levels are
    constants there); vmap/jit values cannot be handed to SciPy."""
    while isinstance(x, Tracer):
        if type(x) in (DualTracer, ReverseTracer):
            x = x.primal if type(x) is DualTracer else x.value
        else:
            raise UnsupportedOperationError(
                f"{where}: method='L-BFGS-B' runs SciPy's optimizer on concrete arrays, so "
                f"it cannot run under vmap or jit; use method='BFGS' there, or call it "
                f"per example outside the transform"
            )
    return x


def _scipy_lbfgsb(fun, x0, bounds, tol, options, where):
    import scipy.optimize  # late import: SciPy is the optional extra 'scipy'

    x0 = _concrete(x0, where)
    xp = namespace_of(x0)
    on_host = to_host(x0)

    def value_and_jac(x):
        value, g = value_and_grad(fun)(xp.asarray(x.astype(on_host.dtype)))
        value, g = to_host(_concrete(value, where)), to_host(_concrete(g, where))
        return float(value), g.astype(numpy.float64)

    res = scipy.optimize.minimize(
        value_and_jac, on_host, jac=True, method="L-BFGS-B", bounds=bounds, tol=tol,
        options=options,
    )  # fmt: skip
    hess_inv = res.hess_inv.todense() if hasattr(res.hess_inv, "todense") else res.hess_inv
    x = xp.asarray(res.x.astype(on_host.dtype))
    return res, x, xp.asarray(numpy.asarray(hess_inv, dtype=on_host.dtype))


def _bounds_mask(bounds, x, n):
    """Which coordinates of ``x`` sit on a bound (held there by the derivative)."""
    host = to_host(x)
    if bounds is None:
        return numpy.zeros(n, bool)
    lo = numpy.array([-numpy.inf if b[0] is None else b[0] for b in bounds], float)
    hi = numpy.array([numpy.inf if b[1] is None else b[1] for b in bounds], float)
    scale = 1e-8 * (1 + numpy.abs(host))
    return (numpy.abs(host - lo) <= scale) | (numpy.abs(host - hi) <= scale)


# -- minimize -------------------------------------------------------------------------------


def minimize(
    fun: Callable,
    x0: Any,
    args: tuple = (),
    method: str = "BFGS",
    tol: float | None = None,
    options: dict | None = None,
    *,
    bounds: Any = None,
) -> OptimizeResults:
    """Minimize ``fun(x, *args)`` over a 1-D ``x`` from ``x0``, as
    ``jax.scipy.optimize.minimize`` (``method="BFGS"``, written with ftransforms; runs
    under ``vmap`` and ``jit``) or SciPy's ``method="L-BFGS-B"`` with ``bounds`` (a
    sequence of ``(low, high)``, ``None`` for no bound).  ``tol`` sets ``gtol``;
    ``options`` are BFGS's ``maxiter``, ``norm``, ``gtol``, ``line_search_maxiter`` (or
    SciPy's for L-BFGS-B).  Beyond JAX, ``x`` (and ``fun``) are differentiable in
    ``args`` by the implicit function theorem (NOTE [differentiable minimize]).  Under
    ``jit`` BFGS gives the same results but runs eagerly (its loops nest three deep, and
    ``jit`` records one level of loops), with ``jit``'s warning that says so.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms.scipy.optimize import minimize
        >>> def argmin(c):  # the minimizer of sum((x - c)**2 + x**4 / 4)
        ...     return minimize(lambda x, c: ((x - c) ** 2 + x ** 4 / 4).sum(),
        ...                     np.zeros(2), args=(c,)).x
        >>> np.round(argmin(np.array([1.0, 2.0])), 4)
        array([0.7709, 1.1795])
        >>> np.round(ft.jacrev(argmin)(np.array([1.0, 2.0])), 4)  # 2 / (2 + 3 x²)
        array([[0.5287, 0.    ],
               [0.    , 0.324 ]])
    """
    where = f"minimize({getattr(fun, '__name__', 'fun')}, method={method!r})"
    if not isinstance(args, tuple):
        raise TypeError(f"{where}: args must be a tuple, got {type(args).__name__}")
    if fnp.ndim(x0) != 1:
        raise ValueError(
            f"{where}: x0 must be a 1-D array (shape (n,)), got shape {fnp.shape(x0)}; "
            f"flatten it (ftransforms.pytree.ravel_pytree for a pytree)"
        )
    options = dict(options or {})
    kind = method.lower()
    if kind not in ("bfgs", "l-bfgs-b"):
        raise ValueError(f"{where}: method must be 'BFGS' or 'L-BFGS-B', got {method!r}")
    if bounds is not None and kind != "l-bfgs-b":
        raise ValueError(f"{where}: bounds need method='L-BFGS-B'")
    x0 = fnp.asarray(x0)
    if dtype_of(x0).kind not in "f":
        x0 = fnp.astype(x0, dtype_of(float))
    if tol is not None and kind == "bfgs":
        options.setdefault("gtol", tol)

    def f(x):
        return fun(x, *args)

    box = {}

    def solve(_grad_f, x_start):
        if kind == "bfgs":
            s, success, status = _bfgs(f, x_start, **options)
            box.update(s=s, success=success, status=status)
            return s["x"]
        res, x, hess_inv = _scipy_lbfgsb(f, x_start, bounds, tol, options or None, where)
        # the active set is a property of the solution, held fixed by the derivative
        active = _bounds_mask(bounds, x, fnp.shape(x)[0])
        box.update(res=res, hess_inv=hess_inv, active=namespace_of(x).asarray(active))
        return x

    def stationary(x):
        g = _grad(f)(x)
        if kind == "bfgs" or bounds is None:
            return g
        # coordinates on a bound are held there (NOTE [differentiable minimize])
        return fnp.where(box["active"], x - fnp.stop_gradient(x), g)

    def tangent_solve(linear, rhs):
        return fnp.linalg.solve(jacfwd(linear)(rhs), rhs)

    x = custom_root(stationary, x0, solve, tangent_solve)
    differentiated = any(has_derivative(leaf) for leaf in tree_flatten(args)[0] + [x])
    if kind == "bfgs":
        s = box["s"]
        value = f(x) if differentiated else s["f"]
        return OptimizeResults(
            x=x, success=box["success"], status=box["status"], fun=value, jac=s["g"],
            hess_inv=s["H"], nfev=s["nfev"], njev=s["ngev"], nit=s["k"],
        )  # fmt: skip
    res = box["res"]
    value = f(x) if differentiated else fnp.asarray(res.fun, dtype=dtype_of(x0))
    jac = fnp.asarray(res.jac, dtype=dtype_of(x0))
    return OptimizeResults(
        x=x, success=bool(res.success), status=int(res.status), fun=value, jac=jac,
        hess_inv=box["hess_inv"], nfev=int(res.nfev), njev=int(res.njev), nit=int(res.nit),
    )  # fmt: skip
