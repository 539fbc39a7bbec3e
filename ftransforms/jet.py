"""Taylor-mode automatic differentiation: :func:`jet` (JAX's ``jax.experimental.jet.jet``).

NOTE [Taylor mode]: ``jet`` pushes a truncated Taylor series ``x(t) = x0 + x1 t + ... +
xK t^K`` through the function in one pass, at its own interpreter level
(:class:`JetInterpreter`): a :class:`JetTracer` holds the primal and the normalized
coefficients ``x1..xK`` (``None`` for a zero one, which costs nothing).  The user-facing
convention is JAX's: ``series[k-1]`` is the k-th derivative of ``x(t)`` at 0, so the
coefficient is ``series[k-1] / k!`` (converted on the way in and out).  Each primitive has
a rule in ``ftransforms/jet_rules.py``: linear ops map every coefficient, bilinear ones
(``multiply``, ``matmul``, ``einsum``) take the Cauchy product, and the nonlinear
elementwise ops use the recurrence of their ODE (``exp``: ``y' = y x'``).  An elementwise
op without a recurrence of its own gets one from its JVP rule (``y' = f'(x) x'``, with the
series of ``f'(x)`` itself computed by a nested ``jet``); any other primitive with a JVP
rule (``cumprod``, ``det``, ``solve``) from ``k`` nested ``jvp``'s in ``t`` of
``prim(x(t))`` (:func:`nested_jvp_rule`, ``2^K`` evaluations).  The cost is quadratic in the
order K for a nonlinear op (k products for the k-th coefficient) and linear for a linear
one, where nested ``jvp`` costs ``2^K`` evaluations of the function.  The rules are written
with primitives, so ``jet`` composes with ``vmap`` and ``jit``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import ftransforms.numpy as fnp
from ftransforms import lax
from ftransforms.core.errors import TangentMismatchError, UnsupportedOperationError
from ftransforms.core.stack import Interpreter, pushed
from ftransforms.core.tracer import PrimalTracer, Tracer
from ftransforms.jet_rules import JET_RULES, fit, full, linear_rule, ode_term
from ftransforms.numpy.creation import from_object_arrays
from ftransforms.numpy.helpers import dtype_of
from ftransforms.pytree import tree_flatten, tree_unflatten

__all__ = ["jet"]


class JetTracer(PrimalTracer):
    """A primal and its normalized Taylor coefficients ``terms`` (``None`` = zero)."""

    __slots__ = ("terms",)

    def __init__(self, interp: JetInterpreter, primal: Any, terms: list) -> None:
        self._interp = interp
        self.primal = primal
        self.terms = terms

    def __repr__(self) -> str:
        return f"JetTracer(level={self._interp.level}, primal={self.primal!r})"


class JetInterpreter(Interpreter):
    """One ``jet`` level of order ``order``: applies each primitive's Taylor rule."""

    __slots__ = ("order",)

    def __init__(self, name: str, order: int) -> None:
        super().__init__(name)
        self.order = order

    def process(self, prim: Any, args: tuple, params: dict) -> Any:
        primals = []
        series = []
        for a in args:
            if type(a) is JetTracer and a._interp is self:
                primals.append(a.primal)
                series.append(a.terms)
            else:
                primals.append(a)
                series.append(None)
        if prim.is_nondiff(params):
            return prim.bind(*primals, **params)
        rule = JET_RULES.get(prim.name)
        if rule is None:
            if prim.transpose is not None:
                rule = linear_rule
            elif prim.family == "elementwise" and not callable(prim.jvp_rules):
                rule = generic_rule
            elif prim.jvp_rules is not None or prim.jvp_joint is not None:
                rule = nested_jvp_rule
            else:
                raise UnsupportedOperationError(
                    f"{self.name}: the primitive {prim.name!r} has no Taylor (jet) rule; "
                    f"add one to JET_RULES in ftransforms/jet_rules.py, or compute this "
                    f"part with nested ft.jvp"
                )
        out, terms = rule(prim, primals, series, self.order, **params)
        if prim.multiple_results:
            return tuple(self._wrap(o, t) for o, t in zip(out, terms))
        return self._wrap(out, terms)

    def _wrap(self, out: Any, terms: list | None) -> Any:
        if terms is None or all(t is None for t in terms):
            return out
        return JetTracer(self, out, terms)


def _taylor(fun: Callable, primals: list, coeffs: list, order: int) -> tuple[Any, list]:
    """``fun`` (one array out) pushed through with normalized coefficient lists."""
    if order == 0:
        return fun(*primals), []
    interp = JetInterpreter("jet (the series of a JVP rule)", order)
    with pushed(interp):
        wrapped = [
            x if c is None or all(t is None for t in c) else JetTracer(interp, x, list(c))
            for x, c in zip(primals, coeffs)
        ]
        out = fun(*wrapped)
        if type(out) is JetTracer and out._interp is interp:
            return out.primal, out.terms
        return out, [None] * order


def generic_rule(prim, primals, series, order, **params):
    """An elementwise op from its JVP rules: ``y' = sum_i d_i x_i'`` with ``d_i`` the
    rule on a unit tangent, whose series (to order k-1, for the k-th coefficient of ``y``)
    comes from a nested :func:`_taylor` (NOTE [Taylor mode])."""
    y = prim.bind(*primals, **params)
    rules = prim.jvp_rules
    active = [i for i, s in enumerate(series) if s is not None and rules[i] is not None]
    fulls = {i: full(primals[i], series[i], order) for i in active}
    ys = [y]
    for k in range(1, order + 1):
        m = k - 1
        total = None
        for i in active:
            rule, one = rules[i], lax.ones_like(primals[i])

            def partial(yv, *xs, rule=rule, one=one):
                return rule(one, yv, *xs, **params)

            coeffs = [ys[1 : m + 1]] + [None if s is None else s[:m] for s in series]
            d0, d_terms = _taylor(partial, [y, *primals], coeffs, m)
            term = ode_term(fulls[i], [d0, *d_terms], k)
            total = term if total is None else (total if term is None else lax.add(total, term))
        ys.append(fit(total, y))
    return y, ys[1:]


def nested_jvp_rule(prim, primals, series, order, **params):
    """Any other differentiable primitive (``cumprod``, ``det``, ``solve``, ...): the
    k-th coefficient of ``y(t) = prim(x(t))``, with ``x(t)`` the truncated series, is its
    k-th derivative at ``t = 0`` over ``k!``, from ``k`` nested ``jvp``'s in ``t`` (``2^k``
    evaluations of the primitive, where a rule of its own costs ``O(k^2)``)."""
    from ftransforms.api import jvp  # late import: api imports the interpreters jet sits on

    def along(t):
        args = list(primals)
        for i, terms in enumerate(series):
            for k, c in enumerate(terms or (), 1):
                if c is not None:
                    args[i] = lax.add(args[i], lax.multiply(c, t**k))
        return prim.bind(*args, **params)

    def derivative(fn):
        return lambda t: jvp(fn, (t,), (one,))[1]

    y = prim.bind(*primals, **params)
    zero = fnp.zeros((), dtype_of(y[0] if prim.multiple_results else y))
    one = fnp.ones_like(zero)
    terms, fn = [], along
    for k in range(1, order + 1):
        fn = derivative(fn)
        d = fn(zero)
        scale = 1.0 / math.factorial(k)
        terms.append(tuple(v * scale for v in d) if prim.multiple_results else d * scale)
    if prim.multiple_results:
        return y, [list(t) for t in zip(*terms)] if terms else [[] for _ in y]
    return y, terms


def _check_series(where: str, primals: tuple, series: tuple) -> int:
    if not isinstance(primals, (tuple, list)) or not isinstance(series, (tuple, list)):
        raise TypeError(
            f"{where}: primals and series must be tuples (one entry per argument of fun), "
            f"got {type(primals).__name__} and {type(series).__name__}"
        )
    if len(primals) != len(series):
        raise TangentMismatchError(
            f"{where}: primals has {len(primals)} entries but series has {len(series)}; give "
            f"one list of Taylor terms per primal"
        )
    orders = set()
    for s in series:
        if not isinstance(s, (tuple, list)):
            raise TypeError(
                f"{where}: every entry of series must be a list of Taylor terms (the 1st, "
                f"2nd, ... derivatives of the input path), got {type(s).__name__}"
            )
        orders.add(len(s))
    if len(orders) > 1:
        raise TangentMismatchError(
            f"{where}: every primal needs the same number of Taylor terms, got lengths "
            f"{sorted(orders)}"
        )
    return orders.pop() if orders else 0


def jet(fun: Callable, primals: Sequence, series: Sequence) -> tuple[Any, Any]:
    """Taylor-mode derivatives of ``fun`` along a path, as ``jax.experimental.jet.jet``.

    ``primals`` is a tuple of ``fun``'s arguments (pytrees) and ``series`` a tuple with,
    for each, a list of K terms shaped like it: the 1st..K-th derivatives of the input
    path ``x(t)`` at ``t = 0``.  Returns ``(fun(*primals), out_series)``, ``out_series``
    holding the 1st..K-th derivatives of ``fun(x(t))`` at 0 (a list per output leaf, in
    ``fun``'s output structure).  One pass costs O(K²) per nonlinear op with a rule of
    its own, O(K) per linear one and O(K³) per elementwise op whose rule comes from its
    JVP, against 2^K passes for K nested ``jvp`` (NOTE [Taylor mode]).  An op
    without a rule raises :class:`~ftransforms.errors.UnsupportedOperationError` naming
    it.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> y, (d1, d2, d3) = ft.jet(np.sin, (0.0,), ([1.0, 0.0, 0.0],))
        >>> float(d1), float(d2), float(d3)  # cos 0, -sin 0, -cos 0
        (1.0, -0.0, -1.0)
    """
    where = f"jet({getattr(fun, '__name__', 'f')})"
    order = _check_series(where, primals, series)
    leaves, spec = tree_flatten(from_object_arrays(tuple(primals)))
    term_leaves = []
    for i, (p, s) in enumerate(zip(primals, series)):
        p_spec = tree_flatten(p)[1]
        for k, term in enumerate(s):
            if tree_flatten(term)[1] != p_spec:
                raise TangentMismatchError(
                    f"{where}: series[{i}][{k}] has structure {tree_flatten(term)[1]} but "
                    f"primals[{i}] has {p_spec}; each term must be shaped like its primal"
                )
        term_leaves.append([tree_flatten(term)[0] for term in s])
    # per primal leaf: its K terms, normalized (divided by k!)
    per_leaf = []
    for terms in term_leaves:
        n = len(terms[0]) if terms else len(tree_flatten(primals[len(per_leaf)])[0])
        for j in range(n):
            per_leaf.append([terms[k][j] for k in range(order)])
    interp = JetInterpreter(where, order)
    with pushed(interp):
        wrapped = []
        for x, terms in zip(leaves, per_leaf):
            x = fnp.asarray(x)
            coeffs = []
            for k, t in enumerate(terms, start=1):
                t = fnp.asarray(t)
                if tuple(t.shape) != tuple(x.shape):
                    raise TangentMismatchError(
                        f"{where}: a term of shape {tuple(t.shape)} for a primal of shape "
                        f"{tuple(x.shape)}; each term must be shaped like its primal"
                    )
                if dtype_of(t) != dtype_of(x):
                    raise TypeError(
                        f"{where}: a term of dtype {dtype_of(t)} for a primal of dtype "
                        f"{dtype_of(x)}; give the terms the primal's dtype"
                    )
                if not isinstance(t, Tracer) and not fnp.any(t):
                    coeffs.append(None)  # a zero term costs nothing (a symbolic zero)
                    continue
                coeffs.append(t / math.factorial(k) if k > 1 else t)
            live = any(c is not None for c in coeffs)
            wrapped.append(JetTracer(interp, x, coeffs) if live else x)
        out = from_object_arrays(fun(*tree_unflatten(spec, wrapped)))
        out_leaves, out_spec = tree_flatten(out)
        primals_out, series_out = [], []
        for leaf in out_leaves:
            if type(leaf) is JetTracer and leaf._interp is interp:
                p, terms = leaf.primal, leaf.terms
            else:
                p, terms = leaf, [None] * order
            p = fnp.asarray(p)
            primals_out.append(p)
            series_out.append(
                [
                    (fnp.zeros_like(p) if t is None else (t * math.factorial(k) if k > 1 else t))
                    for k, t in enumerate(terms, start=1)
                ]
            )
    return tree_unflatten(out_spec, primals_out), tree_unflatten(out_spec, series_out)
