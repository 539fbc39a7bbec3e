"""Polynomials (NumPy's legacy ``poly1d`` functions): ``polyval``, ``polyder``,
``polyint``, ``polyadd``, ``polysub``, ``polymul``, ``poly``, ``polydiv``, ``polyfit``.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy
import numpy.polynomial.polyutils

from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.mutation import PATCHED_WHILE_ACTIVE
from ftransforms.numpy.creation import as_operand, ones, zeros
from ftransforms.numpy.dispatch import implements
from ftransforms.numpy.helpers import (
    dtype_of,
    first_array,
    holds_tracer,
    ndim,
    peek,
    read_per_row,
    shape,
    to_host,
    weak_result_type,
)
from ftransforms.numpy.indexing import getitem
from ftransforms.numpy.manipulation import (
    atleast_1d,
    broadcast_to,
    concatenate,
    expand_dims,
    reshape,
    stack,
    transpose,
)
from ftransforms.numpy.matrices import vander
from ftransforms.numpy.products import matmul, outer
from ftransforms.numpy.ranges import arange
from ftransforms.numpy.reductions import all as all_
from ftransforms.numpy.reductions import sum
from ftransforms.numpy.signal import convolve
from ftransforms.numpy.sorting import sort
from ftransforms.numpy.ufuncs import astype, conj, equal, real, sqrt, true_divide

__all__ = [
    "polyval",
    "polyder",
    "polyint",
    "polyadd",
    "polysub",
    "polymul",
    "poly",
    "polydiv",
    "polyfit",
    "roots",
]


@implements(numpy.polyval)
def polyval(p: Any, x: Any) -> Any:
    """``numpy.polyval``: ``p[0] * x**(N-1) + ... + p[N-1]`` by Horner's scheme.

    Example:
        >>> import numpy as np
        >>> polyval(np.array([3.0, 0.0, 1.0]), np.array([1.0, 2.0])).tolist()
        [4.0, 13.0]
    """
    like = first_array(p, x)
    p, x = as_operand(p, like), as_operand(x, like)
    dt = weak_result_type(p, x)
    if ndim(p) == 0:
        raise TypeError("iteration over a 0-d array (p must be a sequence of coefficients)")
    p, x = astype(p, dt), astype(x, dt)
    y: Any = zeros(shape(x), dt, like=x)
    for i in range(shape(p)[0]):
        y = y * x + getitem(p, i)
    return y


@implements(numpy.polyder)
def polyder(p: Any, m: int = 1) -> Any:
    """``numpy.polyder``: the coefficients of the ``m``-th derivative.

    Example:
        >>> import numpy as np
        >>> polyder(np.array([1.0, 1.0, 1.0, 1.0])).tolist()
        [3.0, 2.0, 1.0]
    """
    m = int(m)
    if m < 0:
        raise ValueError("Order of derivative must be positive (see polyint)")
    p = as_operand(p)
    for _ in range(m):
        n = shape(p)[0] - 1
        p = getitem(p, slice(None, -1)) * arange(n, 0, -1, like=p)
    return p


@implements(numpy.polyint)
def polyint(p: Any, m: int = 1, k: Any = None) -> Any:
    """``numpy.polyint``: the coefficients of the ``m``-th antiderivative, with
    integration constants ``k`` (a scalar or one per order; may be traced).

    Example:
        >>> import numpy as np
        >>> polyint(np.array([3.0, 2.0, 1.0]), k=5.0).tolist()
        [1.0, 1.0, 1.0, 5.0]
    """
    m = int(m)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    p = as_operand(p)
    k = zeros((m,), like=p) if k is None else atleast_1d(as_operand(k, p))
    if shape(k)[0] == 1 and m > 1:
        k = broadcast_to(astype(k, weak_result_type(k, numpy.float64)), (m,))
    if shape(k)[0] < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    for i in range(m):
        scaled = true_divide(p, arange(shape(p)[0], 0, -1, like=p))
        ki = reshape(getitem(k, slice(i, i + 1)), (1,))
        dt = weak_result_type(scaled, ki)
        p = concatenate([astype(scaled, dt), astype(ki, dt)])
    return p


def _poly_pair(a1: Any, a2: Any, sign: int) -> Any:
    like = first_array(a1, a2)
    a1, a2 = atleast_1d(as_operand(a1, like)), atleast_1d(as_operand(a2, like))
    d = shape(a2)[0] - shape(a1)[0]
    if d > 0:
        a1 = concatenate([zeros((d,), dtype_of(a1), like=a1), a1])
    elif d < 0:
        a2 = concatenate([zeros((-d,), dtype_of(a2), like=a2), a2])
    return a1 + a2 if sign > 0 else a1 - a2


@implements(numpy.polyadd)
def polyadd(a1: Any, a2: Any) -> Any:
    """``numpy.polyadd``.

    Example:
        >>> import numpy as np
        >>> polyadd(np.array([1.0, 2.0]), np.array([9.0, 5.0, 4.0])).tolist()
        [9.0, 6.0, 6.0]
    """
    return _poly_pair(a1, a2, 1)


@implements(numpy.polysub)
def polysub(a1: Any, a2: Any) -> Any:
    """``numpy.polysub``.

    Example:
        >>> import numpy as np
        >>> polysub(np.array([2.0, 10.0, -2.0]), np.array([3.0, 10.0, -4.0])).tolist()
        [-1.0, 0.0, 2.0]
    """
    return _poly_pair(a1, a2, -1)


@implements(numpy.polymul)
def polymul(a1: Any, a2: Any) -> Any:
    """``numpy.polymul``: the product's coefficients (leading zeros are kept, as in
    ``jax.numpy.polymul``; NumPy strips them).

    Example:
        >>> import numpy as np
        >>> polymul(np.array([1.0, 2.0, 3.0]), np.array([9.0, 5.0, 1.0])).tolist()
        [9.0, 23.0, 38.0, 17.0, 3.0]
    """
    return convolve(a1, a2)


@implements(numpy.poly)
def poly(seq_of_zeros: Any) -> Any:
    """``numpy.poly`` of a sequence of roots: the monic polynomial's coefficients, leading
    first (a product of ``[1, -r]`` factors; real again when complex roots come in
    conjugate pairs).  The characteristic polynomial of a matrix needs its eigenvalues,
    ``fnp.linalg.eigvals`` (an error naming it where this version lacks it).

    Example:
        >>> import numpy as np
        >>> poly(np.array([1.0, 2.0])).tolist()
        [1.0, -3.0, 2.0]
    """
    z = atleast_1d(as_operand(seq_of_zeros))
    if ndim(z) == 2 and shape(z)[0] == shape(z)[1] and shape(z)[0] > 0:
        z = _eigvals(z, "poly(a) of a square matrix a")
    if ndim(z) != 1:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    dt = dtype_of(z) if dtype_of(z).kind in "fc" else numpy.dtype(numpy.float64)
    z = astype(z, dt)
    out: Any = ones((1,), dt, like=z)
    for k in range(shape(z)[0]):
        factor = concatenate([ones((1,), dt, like=z), reshape(-getitem(z, k), (1,))])
        out = convolve(out, factor)
    if dt.kind == "c":  # each vmap row decides (rows that disagree split the batch)
        pairs = all_(equal(sort(z), sort(conj(z))))
        if read_per_row(
            pairs,
            "poly under vmap(split=False): the roots come in conjugate pairs for some "
            "batch elements and not others, so NumPy would give them different dtypes; "
            "take .real of the result, or drop split=False",
        ):
            out = real(out)
    return out


@implements(numpy.polydiv)
def polydiv(u: Any, v: Any) -> tuple[Any, Any]:
    """``numpy.polydiv``: quotient and remainder of ``u / v`` by long division
    (differentiable in both).  The remainder's leading coefficients that are zero to
    within 1e-8 are dropped as NumPy drops them (the same number for every ``vmap`` batch
    element).

    Example:
        >>> import numpy as np
        >>> q, r = polydiv(np.array([1.0, -3.0, 2.0]), np.array([1.0, -1.0]))
        >>> q.tolist(), r.tolist()
        ([1.0, -2.0], [0.0])
    """
    like = first_array(u, v)
    u, v = atleast_1d(as_operand(u, like)), atleast_1d(as_operand(v, like))
    dt = numpy.result_type(dtype_of(u), dtype_of(v), 1.0)
    u, v = astype(u, dt), astype(v, dt)
    m, n = shape(u)[0] - 1, shape(v)[0] - 1
    scale = 1.0 / getitem(v, 0)
    r = [getitem(u, i) for i in range(m + 1)]
    vs = [getitem(v, j) for j in range(n + 1)]
    q = []
    for k in range(m - n + 1):
        d = scale * r[k]
        q.append(d)
        for j in range(n + 1):
            r[k + j] = r[k + j] - d * vs[j]
    quotient = stack(q) if q else zeros((1,), dt, like=u)
    rest = (r[m - n + 1 :] or r[-1:]) if q else r
    while len(rest) > 1:
        lead = to_host(peek(rest[0]))
        small = numpy.abs(lead) <= 1e-8  # numpy.allclose(r[0], 0, rtol=1e-14)
        if small.all():
            rest = rest[1:]
        elif small.any() and read_per_row(  # rows that disagree split the batch
            abs(rest[0]) <= 1e-8,
            "polydiv under vmap(split=False): the remainder's leading coefficient is zero "
            "for some batch elements and not others, so the remainders would differ in "
            "length; divide outside vmap, or drop split=False",
        ):
            rest = rest[1:]
        else:
            break
    return quotient, stack(rest)


@implements(numpy.polyfit)
def polyfit(
    x: Any,
    y: Any,
    deg: int,
    rcond: Any = None,
    full: bool = False,
    w: Any = None,
    cov: Any = False,
) -> Any:
    """``numpy.polyfit``: the least-squares polynomial of degree ``deg`` through ``(x, y)``
    (``y`` one or several columns), leading coefficient first, by NumPy's scaled
    Vandermonde least squares; differentiable in ``x``, ``y`` and ``w``.  ``full=True``
    adds ``(residuals, rank, singular_values, rcond)``; ``cov=True`` (or ``'unscaled'``)
    the coefficients' covariance.

    Example:
        >>> import numpy as np
        >>> np.round(polyfit(np.array([0.0, 1.0, 2.0]), np.array([1.0, 3.0, 5.0]), 1), 12)
        array([2., 1.])
    """
    from ftransforms.numpy.linalg import inv, lstsq  # noqa: PLC0415  # late import: linalg is a later chapter

    like = first_array(x, y, w)
    x, y = as_operand(x, like), as_operand(y, like)
    x = astype(x, numpy.result_type(dtype_of(x), 1.0))
    y = astype(y, numpy.result_type(dtype_of(y), 1.0))
    order = int(deg) + 1
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if ndim(x) != 1:
        raise TypeError("expected 1D vector for x")
    if shape(x)[0] == 0:
        raise TypeError("expected non-empty vector for x")
    if ndim(y) < 1 or ndim(y) > 2:
        raise TypeError("expected 1D or 2D array for y")
    if shape(x)[0] != shape(y)[0]:
        raise TypeError("expected x and y to have same length")
    n = shape(x)[0]
    if rcond is None:
        rcond = n * numpy.finfo(dtype_of(x)).eps
    lhs = vander(x, order)
    rhs = y
    if w is not None:
        w = as_operand(w, like)
        if ndim(w) != 1:
            raise TypeError("expected a 1-d array for weights")
        if shape(w)[0] != n:
            raise TypeError("expected w and y to have the same length")
        lhs = lhs * reshape(w, (-1, 1))
        rhs = rhs * (w if ndim(rhs) == 1 else reshape(w, (-1, 1)))
    scale = sqrt(sum(lhs * lhs, axis=0))
    lhs = lhs / scale
    c, resids, rank, s = lstsq(lhs, rhs, rcond)
    c = c / (scale if ndim(c) == 1 else reshape(scale, (-1, 1)))
    if full:
        return c, resids, rank, s, rcond
    if cov:
        v_base = inv(matmul(transpose(lhs), lhs)) / outer(scale, scale)
        if cov == "unscaled":
            fac: Any = 1.0
        else:
            if n <= order:
                raise ValueError(
                    "the number of data points must exceed order to scale the covariance matrix"
                )
            fac = resids / (n - order)
        if ndim(y) == 1:
            return c, v_base * fac
        return c, expand_dims(v_base, -1) * fac
    return c


def _eigvals(a: Any, form: str) -> Any:
    """``fnp.linalg.eigvals(a)``, or an error naming it where this version lacks it."""
    import ftransforms.numpy.linalg as linalg  # noqa: PLC0415  # late import: a later chapter

    eigvals = getattr(linalg, "eigvals", None)
    if eigvals is None:
        raise UnsupportedOperationError(
            f"{form}: needs the eigenvalues of a general matrix, and this version of "
            f"ftransforms has no fnp.linalg.eigvals; for a symmetric matrix use "
            f"fnp.linalg.eigvalsh"
        )
    return eigvals(a)


def _nonzero_coefficient(p: Any, i: int) -> bool:
    nonzero = getitem(p, i) != 0
    flags = to_host(peek(nonzero))
    if flags.all() or not flags.any():
        return bool(flags.all())
    return read_per_row(
        nonzero,
        f"roots under vmap(split=False): coefficient {i} is zero for some batch elements "
        "and not others, so the number of roots would differ; call roots outside vmap, "
        "or drop split=False",
    )


@implements(numpy.roots)
def roots(p: Any) -> Any:
    """``numpy.roots``: the eigenvalues of the companion matrix of ``p`` (leading and
    trailing zero coefficients handled as in NumPy), differentiable where the roots are
    distinct.  Needs ``fnp.linalg.eigvals``.

    Example:
        >>> import numpy as np
        >>> roots(np.array([0.0, 1.0, 0.0])).tolist()
        [0.0]
    """
    p = atleast_1d(as_operand(p))
    if ndim(p) != 1:
        raise ValueError("Input must be a rank-1 array.")
    size = shape(p)[0]
    # the first and last nonzero coefficients (read from the ends): where the rows of a
    # vmap batch disagree on one, the batch splits, as the loop over rows has them
    first = next((i for i in range(size) if _nonzero_coefficient(p, i)), None)
    dt = numpy.result_type(dtype_of(p), 1.0)
    if first is None:
        return zeros((0,), dt, like=p)
    last = next(i for i in range(size - 1, first - 1, -1) if _nonzero_coefficient(p, i))
    trailing = size - last - 1
    p = astype(getitem(p, slice(first, last + 1)), dt)
    n = shape(p)[0]
    if n > 1:
        top = reshape(-getitem(p, slice(1, None)) / getitem(p, 0), (1, n - 1))
        below = astype(as_operand(numpy.eye(n - 2, n - 1), p), dt)
        found = _eigvals(concatenate([top, below]), "roots(p)")
    else:
        found = zeros((0,), dt, like=p)
    if trailing:
        found = concatenate([found, zeros((trailing,), dtype_of(found), like=p)])
    return found


# NOTE [poly1d of traced coefficients keeps its leading zeros]: ``numpy.poly1d(c)``
# trims the leading coefficients that are exactly 0 (``trim_zeros(c, trim='f')`` in its
# ``__init__``).  The polynomial's values do not change, but a trimmed coefficient's
# derivative does not vanish: d/dc[0] of ``poly1d(c)(x)`` is ``x**n`` at ``c[0] == 0``
# too, so ``grad`` through ``scipy.interpolate.lagrange(x, y)`` (linear data: a leading 0)
# or ``poly1d(c)(x)`` silently lost it; under ``vmap`` rows with a leading zero and rows
# without split the batch.  While a transform is active the ``trim_zeros`` that
# ``poly1d.__init__`` calls (a global of NumPy's polynomial module, which only
# ``poly1d`` uses) trims nothing from a traced ``c`` (or an object
# array holding tracers, ``poly1d([a, b, c])``): such a ``poly1d`` keeps every
# coefficient it was given (its ``order`` counts the leading zeros; JAX's ``polyval``
# and ``polymul`` keep them too).  Its values, ``deriv``, ``integ``, arithmetic and
# ``roots`` (which skips leading zeros itself) are NumPy's.  The same holds for the
# trailing (highest-degree) zeros that ``numpy.polynomial``'s ``polyutils.trimseq``
# drops from the results of ``polyadd``/``polysub``/``polymul``/``polydiv`` (and so of
# ``Polynomial(c) + 1``, ``Chebyshev`` arithmetic, ...): a traced series keeps them.
# Plain coefficients are trimmed as NumPy trims them.
_POLY1D_GLOBALS = numpy.poly1d.__init__.__globals__
_NUMPY_TRIM_ZEROS = _POLY1D_GLOBALS["trim_zeros"]


@functools.wraps(_NUMPY_TRIM_ZEROS)
def _poly1d_trim_zeros(filt: Any, trim: str = "fb", axis: Any = None) -> Any:
    if holds_tracer(filt):  # NOTE [poly1d of traced coefficients keeps its leading zeros]
        return filt
    return _NUMPY_TRIM_ZEROS(filt, trim, axis)


PATCHED_WHILE_ACTIVE.append(
    (_POLY1D_GLOBALS, {"trim_zeros": _poly1d_trim_zeros}, {"trim_zeros": _NUMPY_TRIM_ZEROS})
)


_POLYUTILS_GLOBALS = numpy.polynomial.polyutils.__dict__
_NUMPY_TRIMSEQ = _POLYUTILS_GLOBALS["trimseq"]


@functools.wraps(_NUMPY_TRIMSEQ)
def _trimseq(seq: Any) -> Any:
    if holds_tracer(seq):  # NOTE [poly1d of traced coefficients keeps its leading zeros]
        return seq
    return _NUMPY_TRIMSEQ(seq)


PATCHED_WHILE_ACTIVE.append(
    (_POLYUTILS_GLOBALS, {"trimseq": _trimseq}, {"trimseq": _NUMPY_TRIMSEQ})
)
