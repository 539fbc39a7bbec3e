"""Polynomials (NumPy's legacy ``poly1d`` functions): ``polyval``, ``polyder``,
``polyint``, ``polyadd``, ``polysub``, ``polymul``.
"""

from __future__ import annotations

from typing import Any

import numpy

from ftransforms.numpy.creation import as_operand, zeros
from ftransforms.numpy.dispatch import implements
from ftransforms.numpy.helpers import dtype_of, first_array, ndim, shape, weak_result_type
from ftransforms.numpy.indexing import getitem
from ftransforms.numpy.manipulation import atleast_1d, broadcast_to, concatenate, reshape
from ftransforms.numpy.ranges import arange
from ftransforms.numpy.signal import convolve
from ftransforms.numpy.ufuncs import astype, true_divide

__all__ = ["polyval", "polyder", "polyint", "polyadd", "polysub", "polymul"]


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
