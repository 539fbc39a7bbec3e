"""Taylor (``jet``) rules, one per primitive (NOTE [Taylor mode] in ``ftransforms/jet.py``).

A rule is ``rule(prim, primals, series, order, **params) -> (primal_out, terms_out)``:
``series[i]`` is ``None`` for an argument without a series, else the list of its
normalized coefficients ``x1..xK`` (``None`` for a zero one); ``terms_out`` is the
output's list (``None`` entries for zeros).  In the formulas ``x[k]`` is the k-th
coefficient, ``x[0]`` the primal.  Primitives not named here: linear ones (those with a
``transpose``) map every coefficient (:func:`linear_rule`), other elementwise ones take the
recurrence from their JVP rule (``generic_rule`` in ``ftransforms/jet.py``).
"""

from __future__ import annotations

from typing import Any

from ftransforms import lax
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.primitive import prims

__all__ = ["JET_RULES", "linear_rule"]


def full(primal: Any, terms: list | None, order: int) -> list:
    """``[x0, x1, ..., xK]`` with ``None`` for the zero coefficients."""
    return [primal] + (list(terms) if terms is not None else [None] * order)


def acc(total: Any, term: Any) -> Any:
    """``total + term`` where ``None`` is zero."""
    if term is None:
        return total
    return term if total is None else lax.add(total, term)


def scaled(x: Any, c: float) -> Any:
    return None if x is None else (x if c == 1 else lax.multiply(x, c))


def times(a: Any, b: Any) -> Any:
    return None if a is None or b is None else lax.multiply(a, b)


def ode_term(xs: list, zs: list, k: int, dxs: list | None = None) -> Any:
    """``(1/k) sum_{j=1..k} j x[j] z[k-j]``: the k-th coefficient of ``y`` with
    ``y' = z x'`` (the recurrence of every first-order elementwise ODE).  ``dxs`` may
    hold the products ``j x[j]`` (:func:`derivative_coefficients`), computed once."""
    total = None
    for j in range(1, k + 1):
        x = xs[j] if dxs is None else dxs[j]
        total = acc(
            total, times(x, zs[k - j]) if dxs is not None else scaled(times(x, zs[k - j]), j)
        )
    return scaled(total, 1 / k)


def derivative_coefficients(xs: list) -> list:
    """``[None, 1 x[1], 2 x[2], ...]``: the coefficients of ``x'``, shifted by one."""
    return [None] + [scaled(x, j) for j, x in enumerate(xs[1:], start=1)]


def cauchy(a: list, b: list, k: int, start: int = 0) -> Any:
    """``sum_{i=start..k-start} a[i] b[k-i]`` (the product's k-th coefficient)."""
    total = None
    for i in range(start, k - start + 1):
        total = acc(total, times(a[i], b[k - i]))
    return total


def _only_first(prim: Any, series: list) -> None:
    if any(s is not None for s in series[1:]):
        raise UnsupportedOperationError(
            f"jet: the primitive {prim.name!r} is linear in its first argument only, and "
            f"another of its arguments carries a Taylor series; give it no series"
        )


def linear_rule(prim, primals, series, order, **params):
    """An op linear in its first argument: every coefficient is mapped."""
    _only_first(prim, series)
    rest = primals[1:]
    out = prim.bind(*primals, **params)
    return out, [None if t is None else prim.bind(t, *rest, **params) for t in series[0]]


def multilinear_rule(prim, primals, series, order, **params):
    """An op linear in each argument (``multiply``, ``matmul``, ``einsum``): the k-th
    coefficient sums the op over every split of k among the arguments with series."""
    out = prim.bind(*primals, **params)
    active = [i for i, s in enumerate(series) if s is not None]
    fulls = {i: full(primals[i], series[i], order) for i in active}
    terms = []
    for k in range(1, order + 1):
        total = None
        for split in _splits(k, len(active)):
            args = list(primals)
            for i, c in zip(active, split):
                args[i] = fulls[i][c]
            if any(a is None for a in args):
                continue
            total = acc(total, prim.bind(*args, **params))
        terms.append(total)
    return out, terms


def _splits(k: int, n: int):
    """Tuples of ``n`` non-negative ints summing to ``k``."""
    if n == 1:
        yield (k,)
        return
    for first in range(k + 1):
        for rest in _splits(k - first, n - 1):
            yield (first, *rest)


def _sum_rule(sign: float):
    def rule(prim, primals, series, order, **params):
        out = prim.bind(*primals, **params)
        a, b = series
        terms = []
        for k in range(order):
            ta = None if a is None else a[k]
            tb = None if b is None else b[k]
            if tb is not None and sign < 0:
                tb = lax.negative(tb)
            t = acc(ta, tb)
            terms.append(fit(t, out))
        return out, terms

    return rule


def divide_rule(prim, primals, series, order):
    a, b = primals
    y = prim.bind(a, b)
    if series[1] is None:
        return y, [None if t is None else lax.divide(t, b) for t in series[0]]
    av, bv = full(a, series[0], order), full(b, series[1], order)
    ys = [y]
    for k in range(1, order + 1):  # b y = a: b0 y[k] = a[k] - sum_{j>=1} b[j] y[k-j]
        s = _tail_product(bv, ys, k)
        num = acc(av[k], None if s is None else lax.negative(s))
        ys.append(None if num is None else fit(lax.divide(num, b), y))
    return y, ys[1:]


def _tail_product(xs: list, ys: list, k: int) -> Any:
    """``sum_{j=1..k} x[j] y[k-j]``."""
    total = None
    for j in range(1, k + 1):
        total = acc(total, times(xs[j], ys[k - j]))
    return total


def fit(t: Any, out: Any) -> Any:
    """``t`` broadcast to the output's shape (a term of a broadcast operand)."""
    if t is None or lax.shape(t) == lax.shape(out):
        return t
    return lax.broadcast_to(t, lax.shape(out))


def _exp_like(prim, primals, series, order, exp_value):
    x = primals[0]
    y = prim.bind(x)
    xs = full(x, series[0], order)
    dxs = derivative_coefficients(xs)
    zs = [exp_value(x, y)]
    for k in range(1, order + 1):
        zs.append(ode_term(xs, zs, k, dxs))
    return y, zs[1:]


def exp_rule(prim, primals, series, order):
    return _exp_like(prim, primals, series, order, lambda x, y: y)


def expm1_rule(prim, primals, series, order):
    return _exp_like(prim, primals, series, order, lambda x, y: lax.exp(x))


def _log_like(prim, primals, series, order, base):
    x = primals[0]
    y = prim.bind(x)
    x0 = base(x)
    xs = full(x, series[0], order)
    ys = [y]
    for k in range(1, order + 1):
        inner = None
        for j in range(1, k):
            inner = acc(inner, scaled(times(ys[j], xs[k - j]), j / k))
        num = xs[k] if inner is None else acc(xs[k], lax.negative(inner))
        ys.append(None if num is None else lax.divide(num, x0))
    return y, ys[1:]


def log_rule(prim, primals, series, order):
    return _log_like(prim, primals, series, order, lambda x: x)


def log1p_rule(prim, primals, series, order):
    return _log_like(prim, primals, series, order, lambda x: lax.add(x, 1.0))


def _sin_cos(primals, series, order, hyperbolic):
    x = primals[0]
    if hyperbolic:
        s, c = prims.sinh.bind(x), prims.cosh.bind(x)
    else:
        s, c = prims.sin.bind(x), prims.cos.bind(x)
    xs = full(x, series[0], order)
    dxs = derivative_coefficients(xs)
    ss, cs = [s], [c]
    for k in range(1, order + 1):
        ss.append(ode_term(xs, cs, k, dxs))
        t = ode_term(xs, ss, k, dxs)
        cs.append(t if hyperbolic or t is None else lax.negative(t))
    return ss, cs


def sin_rule(prim, primals, series, order):
    ss, _ = _sin_cos(primals, series, order, False)
    return ss[0], ss[1:]


def cos_rule(prim, primals, series, order):
    _, cs = _sin_cos(primals, series, order, False)
    return cs[0], cs[1:]


def sinh_rule(prim, primals, series, order):
    ss, _ = _sin_cos(primals, series, order, True)
    return ss[0], ss[1:]


def cosh_rule(prim, primals, series, order):
    _, cs = _sin_cos(primals, series, order, True)
    return cs[0], cs[1:]


def _quadratic_ode(prim, primals, series, order, z_of):
    """``y' = z(y) x'`` with ``z`` a quadratic of ``y`` (tanh: 1 - y², expit: y - y²),
    ``z_of(ys, m)`` giving the m-th coefficient of ``z`` from ``ys[0..m]``."""
    x = primals[0]
    y = prim.bind(x)
    xs = full(x, series[0], order)
    dxs = derivative_coefficients(xs)
    ys = [y]
    zs = [z_of(ys, 0)]
    for k in range(1, order + 1):
        ys.append(ode_term(xs, zs, k, dxs))
        if k < order:  # y[K] needs z up to K-1 only
            zs.append(z_of(ys, k))
    return y, ys[1:]


def square_coefficient(ys: list, m: int) -> Any:
    """The m-th coefficient of ``y²``: ``sum_i y[i] y[m-i]``, each pair once, doubled."""
    total = None
    for i in range((m + 1) // 2):
        total = acc(total, times(ys[i], ys[m - i]))
    total = scaled(total, 2)
    if m % 2 == 0:
        total = acc(total, times(ys[m // 2], ys[m // 2]))
    return total


def tanh_rule(prim, primals, series, order):
    # y' = (1 - y²) x': with w = y² (w[0] = y0²), k y[k] = sum_j j x[j] ((j == k) - w[k-j])
    x = primals[0]
    y = prim.bind(x)
    xs = full(x, series[0], order)
    dxs = derivative_coefficients(xs)
    ys = [y]
    ws = [lax.subtract(1.0, lax.multiply(y, y))]  # ws[0] holds 1 - y0² itself
    for k in range(1, order + 1):
        pos = times(dxs[k], ws[0])
        neg = None
        for j in range(1, k):
            neg = acc(neg, times(dxs[j], ws[k - j]))
        if pos is None:  # the sign folded into the scale: one op fewer
            ys.append(scaled(neg, -1 / k))
        else:
            ys.append(scaled(pos if neg is None else lax.subtract(pos, neg), 1 / k))
        if k < order:
            ws.append(square_coefficient(ys, k))
    return y, ys[1:]


def expit_rule(prim, primals, series, order):
    def z_of(ys, m):  # y - y²
        sq = square_coefficient(ys, m)
        return acc(ys[m], None if sq is None else lax.negative(sq))

    return _quadratic_ode(prim, primals, series, order, z_of)


def sqrt_rule(prim, primals, series, order):
    x = primals[0]
    y = prim.bind(x)
    xs = full(x, series[0], order)
    ys = [y]
    two_y = lax.multiply(y, 2.0)
    for k in range(1, order + 1):
        inner = cauchy(ys, ys, k, 1)
        num = xs[k] if inner is None else acc(xs[k], lax.negative(inner))
        ys.append(None if num is None else lax.divide(num, two_y))
    return y, ys[1:]


def square_rule(prim, primals, series, order):
    x = primals[0]
    xs = full(x, series[0], order)
    return prim.bind(x), [cauchy(xs, xs, k) for k in range(1, order + 1)]


def _integer_power(xs: list, p: int, order: int) -> list:
    """The coefficients of ``x**p`` (``p >= 1``) by repeated squaring of series."""
    result = None
    base = xs
    while p:
        if p & 1:
            result = base if result is None else _series_product(result, base, order)
        p >>= 1
        if p:
            base = _series_product(base, base, order)
    return result


def _series_product(a: list, b: list, order: int) -> list:
    return [cauchy(a, b, k) for k in range(order + 1)]


def power_rule(prim, primals, series, order):
    a, b = primals
    y = prim.bind(a, b)
    if series[1] is not None:  # a ** b = exp(b log a), through the rules of each
        _, log_terms = log_rule(prims.log, [a], [series[0]], order)
        prod_out, prod_terms = multilinear_rule(
            prims.multiply, [b, prims.log.bind(a)], [series[1], log_terms], order
        )
        _, terms = exp_rule(prims.exp, [prod_out], [prod_terms], order)
        return y, terms
    p = _static_int(b)
    xs = full(a, series[0], order)
    if p is not None and p >= 1:
        return y, _integer_power(xs, p, order)[1:]
    # x y' = p y x': k x0 y[k] = sum_{j=1..k} (p j - (k - j)) x[j] y[k-j]
    ys = [y]
    for k in range(1, order + 1):
        total = None
        for j in range(1, k + 1):
            coef = lax.subtract(lax.multiply(b, float(j)), float(k - j))
            total = acc(total, times(times(xs[j], ys[k - j]), coef))
        ys.append(None if total is None else lax.divide(total, lax.multiply(a, float(k))))
    return y, ys[1:]


def _static_int(b: Any) -> int | None:
    """``b`` as a Python int when it is a plain integral scalar, else None."""
    try:
        if getattr(b, "ndim", 0) == 0 and not hasattr(b, "_interp"):
            v = float(b)
            if v.is_integer() and abs(v) <= 64:
                return int(v)
    except (TypeError, ValueError):
        return None
    return None


def reciprocal_rule(prim, primals, series, order):
    x = primals[0]
    y = prim.bind(x)
    xs = full(x, series[0], order)
    ys = [y]
    for k in range(1, order + 1):  # x y = 1: y[k] = -y0 sum_{j>=1} x[j] y[k-j]
        s = _tail_product(xs, ys, k)
        ys.append(None if s is None else lax.negative(lax.multiply(s, y)))
    return y, ys[1:]


def _mask_rule(mask_of):
    """A piecewise-linear op: the coefficients pass where ``mask_of(primals, y)`` holds."""

    def rule(prim, primals, series, order, **params):
        y = prim.bind(*primals, **params)
        m = lax.convert(mask_of(primals, y), lax.dtype_of(y))
        return y, [None if t is None else lax.multiply(t, m) for t in series[0]]

    return rule


def abs_rule(prim, primals, series, order):
    x = primals[0]
    y = prim.bind(x)
    sign = prims.sign.bind(x)
    return y, [None if t is None else lax.multiply(t, sign) for t in series[0]]


def select_rule(prim, primals, series, order):
    c, a, b = primals
    out = prim.bind(c, a, b)
    sa, sb = series[1], series[2]
    terms = []
    for k in range(order):
        ta = None if sa is None else sa[k]
        tb = None if sb is None else sb[k]
        if ta is None and tb is None:
            terms.append(None)
            continue
        terms.append(lax.select(c, 0.0 if ta is None else ta, 0.0 if tb is None else tb))
    return out, [fit(t, out) for t in terms]


def _extremum_binary(first_wins):
    def rule(prim, primals, series, order):
        a, b = primals
        y = prim.bind(a, b)
        wa = lax.convert(first_wins(a, b), lax.dtype_of(y))
        wa = lax.add(wa, lax.multiply(lax.convert(lax.equal(a, b), lax.dtype_of(y)), 0.5))
        wb = lax.subtract(1.0, wa)
        terms = []
        for k in range(order):
            ta = None if series[0] is None else times(series[0][k], wa)
            tb = None if series[1] is None else times(series[1][k], wb)
            t = acc(ta, tb)
            terms.append(fit(t, y))
        return y, terms

    return rule


def reduce_extremum_rule(prim, primals, series, order, axis, keepdims):
    x = primals[0]
    y = prim.bind(x, axis=axis, keepdims=keepdims)
    y_kept = prim.bind(x, axis=axis, keepdims=True)
    hits = lax.convert(lax.equal(x, y_kept), lax.dtype_of(x))
    count = lax.sum(hits, axis=axis, keepdims=keepdims)
    return y, [
        None if t is None else lax.divide(lax.sum(lax.multiply(t, hits), axis, keepdims), count)
        for t in series[0]
    ]


def concatenate_rule(prim, primals, series, order, axis):
    out = prim.bind(*primals, axis=axis)
    terms = []
    for k in range(order):
        parts = [None if s is None else s[k] for s in series]
        if all(p is None for p in parts):
            terms.append(None)
            continue
        parts = [lax.zeros_like(x) if p is None else p for p, x in zip(parts, primals)]
        terms.append(prim.bind(*parts, axis=axis))
    return out, terms


def convert_rule(prim, primals, series, order, dtype):
    return prim.bind(primals[0], dtype=dtype), [
        None if t is None else prim.bind(t, dtype=dtype) for t in series[0]
    ]


def inv_rule(prim, primals, series, order):
    a = primals[0]
    y = prim.bind(a)
    As = full(a, series[0], order)
    ys = [y]
    for k in range(1, order + 1):
        total = None
        for j in range(1, k + 1):
            if As[j] is not None and ys[k - j] is not None:
                total = acc(total, lax.matmul(As[j], ys[k - j]))
        ys.append(None if total is None else lax.negative(lax.matmul(y, total)))
    return y, ys[1:]


#: The rules by primitive name (linear ones and other elementwise ones need no entry).
JET_RULES = {
    "add": _sum_rule(1.0),
    "subtract": _sum_rule(-1.0),
    "multiply": multilinear_rule,
    "matmul": multilinear_rule,
    "einsum": multilinear_rule,
    "divide": divide_rule,
    "reciprocal": reciprocal_rule,
    "exp": exp_rule,
    "expm1": expm1_rule,
    "log": log_rule,
    "log1p": log1p_rule,
    "sin": sin_rule,
    "cos": cos_rule,
    "sinh": sinh_rule,
    "cosh": cosh_rule,
    "tanh": tanh_rule,
    "expit": expit_rule,
    "sqrt": sqrt_rule,
    "square": square_rule,
    "power": power_rule,
    "float_power": power_rule,
    "abs": abs_rule,
    "relu": _mask_rule(lambda p, y: prims.greater.bind(p[0], 0)),
    "select": select_rule,
    "maximum": _extremum_binary(lambda a, b: prims.greater.bind(a, b)),
    "minimum": _extremum_binary(lambda a, b: prims.greater.bind(b, a)),
    "reduce_max": reduce_extremum_rule,
    "reduce_min": reduce_extremum_rule,
    "concatenate": concatenate_rule,
    "convert": convert_rule,
    "inv": inv_rule,
}
