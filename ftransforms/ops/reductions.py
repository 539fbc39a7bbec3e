"""Reductions over ``axis`` (a tuple of non-negative logical axes, normalised by
``ftransforms.lax``/``ftransforms.numpy``) with ``keepdims``, plus cumulative sums and
products.

Differentiable reductions other than the linear ``reduce_sum`` are declared with
:func:`defreduction` from one expression, ``weights(y, x, axis, keepdims)``: the
derivative of the result in each element of ``x`` (shaped like ``x``).  The JVP is the
weighted sum of the tangent, the VJP the broadcast cotangent times the weights.

NOTE [ties in max/min]: as in JAX, the derivative of ``max``/``min`` is shared equally by
every element equal to the result.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy

from ftransforms import lax
from ftransforms.core.primitive import Primitive, defop

#: Reductions over ``axis`` with ``keepdims`` share one batching rule.
REDUCTION = "reduction"
#: Cumulative ops along one ``axis`` (cumsum, cumprod, sort, ...) share one batching rule.
SCAN = "scan"


def _keepdims_shape(shape, axis):
    return tuple(1 if i in axis else n for i, n in enumerate(shape))


def expand_reduced(y_bar, x, axis, keepdims):
    """Broadcast a reduction's cotangent ``y_bar`` back to the shape of ``x``."""
    if not keepdims:
        y_bar = lax.reshape(y_bar, _keepdims_shape(x.shape, axis))
    return lax.broadcast_to(y_bar, x.shape)


def defreduction(name: str, impl: Callable, weights: Callable, **kwargs) -> Primitive:
    """Declare a differentiable reduction from ``weights(y, x, axis, keepdims)``, the
    derivative of the result in each element of ``x``."""
    kwargs.setdefault("family", REDUCTION)
    return defop(
        name,
        impl,
        jvp=(
            lambda x_dot, y, x, axis, keepdims: lax.sum(
                x_dot * weights(y, x, axis, keepdims), axis=axis, keepdims=keepdims
            ),
        ),
        vjp=(
            lambda y_bar, y, x, axis, keepdims: (
                expand_reduced(y_bar, x, axis, keepdims) * weights(y, x, axis, keepdims)
            ),
        ),
        **kwargs,
    )


def _sum_impl(xp, x, axis, keepdims):
    # NOTE [array methods in impls] in ops/shape.py: numpy.sum of an array is this reduce.
    if type(x) is numpy.ndarray:
        return numpy.add.reduce(x, axis=axis, keepdims=keepdims)
    return xp.sum(x, axis=axis, keepdims=keepdims)


reduce_sum_p = defop(
    "reduce_sum",
    _sum_impl,
    transpose=lambda y_bar, x, axis, keepdims: expand_reduced(y_bar, x, axis, keepdims),
    family=REDUCTION,
)


# NOTE [masked sums in NumPy's order]: ``np.sum(x, where=m, initial=c)`` is not the sum of
# ``where(m, x, 0)``: NumPy starts from ``c`` (or 0) and adds each run of selected
# elements, each run summed pairwise, so the grouping (and the last bits) follows the
# mask.  ``reduce_sum_where(x, mask)`` (``mask`` shaped as ``x``) is that reduction:
# NumPy's own ``add.reduce(..., where=mask, initial=...)``; linear in ``x`` (its
# derivative the same masked sum without ``initial``, its transpose the cotangent where
# the mask is set); batched with both operands' batch axis in front, where NumPy's
# reduction of each row is the reduction of that row alone.
def _sum_where_impl(xp, x, mask, axis, keepdims, initial):
    kw = {} if initial is None else {"initial": initial}
    if type(x) is numpy.ndarray:
        return numpy.add.reduce(x, axis=axis, keepdims=keepdims, where=mask, **kw)
    return xp.sum(x, axis=axis, keepdims=keepdims, where=mask, **kw)


def _sum_where_jvp(x_dot, y, x, mask, axis, keepdims, initial):
    return reduce_sum_where_p.bind(x_dot, mask, axis=axis, keepdims=keepdims, initial=None)


def _sum_where_vjp(y_bar, y, x, mask, axis, keepdims, initial):
    zero = lax.zeros_like(x)
    return lax.select(mask, expand_reduced(y_bar, x, axis, keepdims), zero)


reduce_sum_where_p = defop(
    "reduce_sum_where",
    _sum_where_impl,
    jvp=(_sum_where_jvp, None),
    vjp=(_sum_where_vjp, None),
)


def _extremum_weights(y, x, axis, keepdims):
    """1/count at the positions that attain the extremum, 0 elsewhere."""
    hits = (x == expand_reduced(y, x, axis, keepdims)).astype(x.dtype)
    return hits / lax.sum(hits, axis=axis, keepdims=True)


reduce_max_p = defreduction(
    "reduce_max",
    lambda xp, x, axis, keepdims: xp.max(x, axis=axis, keepdims=keepdims),
    _extremum_weights,
)
reduce_min_p = defreduction(
    "reduce_min",
    lambda xp, x, axis, keepdims: xp.min(x, axis=axis, keepdims=keepdims),
    _extremum_weights,
)


def _prod_of_others(y, x, axis, keepdims):
    """d prod / d x_i = the product of the other elements: the exclusive prefix product
    times the exclusive suffix product, by multiplication only (NOTE [cumprod at zeros]):
    right where x has zeros, overflows or underflows, and exact at every order."""
    nd = x.ndim
    tail = tuple(range(nd - len(axis), nd))
    moved = lax.moveaxis(x, axis, tail)
    rest = moved.shape[: nd - len(axis)]
    flat = lax.reshape(moved, rest + (math.prod(moved.shape[nd - len(axis) :]),))
    last = len(rest)
    rev = (slice(None),) * last + (slice(None, None, -1),)
    one = lax.ones_like(_slice_along(flat, last, 0, 1))

    def exclusive(v):
        return lax.concatenate([one, _slice_along(cumprod_p.bind(v, axis=last), last, 0, -1)], last)

    cof = exclusive(flat) * lax.getitem(exclusive(lax.getitem(flat, rev)), rev)
    return lax.moveaxis(lax.reshape(cof, moved.shape), tail, axis)


reduce_prod_p = defreduction(
    "reduce_prod",
    lambda xp, x, axis, keepdims: xp.prod(x, axis=axis, keepdims=keepdims),
    _prod_of_others,
)

argmax_p = defop(
    "argmax",
    lambda xp, x, axis, keepdims: xp.argmax(x, axis=axis, keepdims=keepdims),
    nondiff=True,
    family=REDUCTION,
)
argmin_p = defop(
    "argmin",
    lambda xp, x, axis, keepdims: xp.argmin(x, axis=axis, keepdims=keepdims),
    nondiff=True,
    family=REDUCTION,
)
reduce_any_p = defop(
    "reduce_any",
    lambda xp, x, axis, keepdims: xp.any(x, axis=axis, keepdims=keepdims),
    nondiff=True,
    family=REDUCTION,
)
reduce_all_p = defop(
    "reduce_all",
    lambda xp, x, axis, keepdims: xp.all(x, axis=axis, keepdims=keepdims),
    nondiff=True,
    family=REDUCTION,
)


def _reverse_cumsum(y_bar, axis):
    rev = (slice(None),) * axis + (slice(None, None, -1),)
    return lax.getitem(cumsum_p.bind(lax.getitem(y_bar, rev), axis=axis), rev)


cumsum_p = defop(
    "cumsum",
    lambda xp, x, axis: xp.cumsum(x, axis=axis),
    transpose=lambda y_bar, x, axis: _reverse_cumsum(y_bar, axis),
    family=SCAN,
)

# NOTE [cumprod at zeros]: the derivatives of y = cumprod(x) are computed without
# division, by associative scans (log-depth, like JAX's cumprod): the JVP scans pairs
# (x, x_dot) under (a, da)(b, db) = (ab, da b + a db); the VJP is x_bar_j = E_j S_j with
# E_j = prod_{k<j} x_k and S_j = sum_{i>=j} y_bar_i prod_{j<k<=i} x_k, the reverse
# recurrence S_j = y_bar_j + x_{j+1} S_{j+1} scanned as a composition of affine maps.  Both
# are built from primitives, so every order is exact.  The shortcut through y / x is not
# used even where x has no zero: it is wrong where the product overflows or underflows
# (d/dx0 prod([1e200, 1e200, 1e-200]) is 1, y / x0 is inf) and its higher derivatives
# carry round-off where the true ones vanish (tests/test_fuzz_compositions.py).


def _slice_along(x, axis, start, stop, step=None):
    return lax.slice_along(x, axis, start, stop, step)


def _interleave(a, b, axis):
    """a[0], b[0], a[1], b[1], ... along ``axis`` (len(a) is len(b) or len(b) + 1)."""
    na, nb = a.shape[axis], b.shape[axis]
    pairs = lax.stack([_slice_along(a, axis, 0, nb), b], axis=axis + 1)
    shape = pairs.shape
    out = lax.reshape(pairs, shape[:axis] + (2 * nb,) + shape[axis + 2 :])
    if na > nb:
        out = lax.concatenate([out, _slice_along(a, axis, nb, None)], axis=axis)
    return out


def associative_scan(fn, elems, axis):
    """Inclusive scan of the tuple of arrays ``elems`` along ``axis`` with the associative
    ``fn(earlier, later) -> combined`` (tuples in, tuple out), in O(log n) depth."""
    n = elems[0].shape[axis]
    if n < 2:
        return elems
    reduced = fn(
        tuple(_slice_along(e, axis, 0, n - 1, 2) for e in elems),
        tuple(_slice_along(e, axis, 1, None, 2) for e in elems),
    )
    odd = associative_scan(fn, reduced, axis)
    rest = tuple(_slice_along(e, axis, 2, None, 2) for e in elems)
    if n % 2 == 0:
        even = fn(tuple(_slice_along(o, axis, 0, -1) for o in odd), rest)
    else:
        even = fn(odd, rest)
    even = tuple(
        lax.concatenate([_slice_along(e, axis, 0, 1), r], axis=axis) for e, r in zip(elems, even)
    )
    return tuple(_interleave(a, b, axis) for a, b in zip(even, odd))


def _product_rule(a, b):
    (x, dx), (y, dy) = a, b
    return x * y, dx * y + x * dy


def _compose_later_first(a, b):
    # In the flipped scan, ``b`` is f_j and ``a`` is f_{j+1} o ... ; f(s) = B + A s.
    (a_mul, a_add), (b_mul, b_add) = a, b
    return a_mul * b_mul, b_add + b_mul * a_add


def _cumprod_jvp(x_dot, y, x, axis):
    return associative_scan(_product_rule, (x, x_dot), axis)[1]


def _cumprod_vjp(y_bar, y, x, axis):
    rev = (slice(None),) * axis + (slice(None, None, -1),)
    one = lax.ones_like(_slice_along(x, axis, 0, 1))
    exclusive = lax.concatenate([one, _slice_along(y, axis, 0, -1)], axis=axis)
    x_next = lax.concatenate([_slice_along(x, axis, 1, None), one], axis=axis)
    flipped = (lax.getitem(x_next, rev), lax.getitem(y_bar, rev))
    tail_sums = lax.getitem(associative_scan(_compose_later_first, flipped, axis)[1], rev)
    return exclusive * tail_sums


cumprod_p = defop(
    "cumprod",
    lambda xp, x, axis: xp.cumprod(x, axis=axis),
    jvp=(_cumprod_jvp,),
    vjp=(_cumprod_vjp,),
    family=SCAN,
    doc="``numpy.cumprod`` along one axis (NOTE [cumprod at zeros]).",
)

__all__ = [name for name in dir() if name.endswith("_p")]
