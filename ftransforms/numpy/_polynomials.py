"""Polynomials of NumPy's ``poly*`` family (``polyval``, ``polyder``, ``polyint``,
``polyadd``, ``polysub``, ``polymul``) and ``vander``, written from ``ftransforms.numpy``
functions that have every rule.  Re-exported by :mod:`ftransforms.numpy`.
"""

from __future__ import annotations

from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.numpy._composite_helpers import _arr, _like, _result_type
from ftransforms.numpy._signal import convolve

__all__ = [
    "polyadd",
    "polyder",
    "polyint",
    "polymul",
    "polysub",
    "polyval",
    "vander",
]


def polyval(p: Any, x: Any) -> Any:
    """``numpy.polyval``: ``p[0] * x**(N-1) + ... + p[N-1]`` by Horner's scheme.

    Example:
        >>> import numpy as np
        >>> polyval(np.array([3.0, 0.0, 1.0]), np.array([1.0, 2.0])).tolist()
        [4.0, 13.0]
    """
    like = _like(p, x)
    p, x = _arr(p, like), _arr(x, like)
    dt = _result_type(p, x)
    if fnp.ndim(p) == 0:
        raise TypeError("iteration over a 0-d array (p must be a sequence of coefficients)")
    p, x = fnp.astype(p, dt), fnp.astype(x, dt)
    y: Any = fnp.zeros(fnp.shape(x), dt, like=x)
    for i in range(fnp.shape(p)[0]):
        y = y * x + fnp.getitem(p, i)
    return y


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
    p = _arr(p)
    for _ in range(m):
        n = fnp.shape(p)[0] - 1
        p = fnp.getitem(p, slice(None, -1)) * fnp.arange(n, 0, -1, like=p)
    return p


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
    p = _arr(p)
    k = fnp.zeros((m,), like=p) if k is None else fnp.atleast_1d(_arr(k, p))
    if fnp.shape(k)[0] == 1 and m > 1:
        k = fnp.broadcast_to(fnp.astype(k, _result_type(k, numpy.float64)), (m,))
    if fnp.shape(k)[0] < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    for i in range(m):
        scaled = fnp.true_divide(p, fnp.arange(fnp.shape(p)[0], 0, -1, like=p))
        ki = fnp.reshape(fnp.getitem(k, slice(i, i + 1)), (1,))
        dt = _result_type(scaled, ki)
        p = fnp.concatenate([fnp.astype(scaled, dt), fnp.astype(ki, dt)])
    return p


def _poly_pair(a1: Any, a2: Any, sign: int) -> Any:
    like = _like(a1, a2)
    a1, a2 = fnp.atleast_1d(_arr(a1, like)), fnp.atleast_1d(_arr(a2, like))
    d = fnp.shape(a2)[0] - fnp.shape(a1)[0]
    if d > 0:
        a1 = fnp.concatenate([fnp.zeros((d,), fnp._dtype(a1), like=a1), a1])
    elif d < 0:
        a2 = fnp.concatenate([fnp.zeros((-d,), fnp._dtype(a2), like=a2), a2])
    return a1 + a2 if sign > 0 else a1 - a2


def polyadd(a1: Any, a2: Any) -> Any:
    """``numpy.polyadd``.

    Example:
        >>> import numpy as np
        >>> polyadd(np.array([1.0, 2.0]), np.array([9.0, 5.0, 4.0])).tolist()
        [9.0, 6.0, 6.0]
    """
    return _poly_pair(a1, a2, 1)


def polysub(a1: Any, a2: Any) -> Any:
    """``numpy.polysub``.

    Example:
        >>> import numpy as np
        >>> polysub(np.array([2.0, 10.0, -2.0]), np.array([3.0, 10.0, -4.0])).tolist()
        [-1.0, 0.0, 2.0]
    """
    return _poly_pair(a1, a2, -1)


def polymul(a1: Any, a2: Any) -> Any:
    """``numpy.polymul``: the product's coefficients (leading zeros are kept, as in
    ``jax.numpy.polymul``; NumPy strips them).

    Example:
        >>> import numpy as np
        >>> polymul(np.array([1.0, 2.0, 3.0]), np.array([9.0, 5.0, 1.0])).tolist()
        [9.0, 23.0, 38.0, 17.0, 3.0]
    """
    return convolve(a1, a2)


def vander(x: Any, N: int | None = None, increasing: bool = False) -> Any:  # noqa: N803
    """``numpy.vander``: columns of powers of ``x`` (a running product, as NumPy's).

    Example:
        >>> import numpy as np
        >>> vander(np.array([1.0, 2.0, 3.0]), 3).tolist()
        [[1.0, 1.0, 1.0], [4.0, 2.0, 1.0], [9.0, 3.0, 1.0]]
    """
    x = _arr(x)
    if fnp.ndim(x) != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    n = fnp.shape(x)[0]
    N = n if N is None else int(N)  # noqa: N806
    dt = numpy.promote_types(fnp._dtype(x), int)
    x = fnp.astype(x, dt)
    if N == 0:
        return fnp.zeros((n, 0), dt, like=x)
    ones = fnp.ones((n, 1), dt, like=x)
    if N == 1:
        out = ones
    else:
        powers = fnp.cumprod(fnp.broadcast_to(fnp.reshape(x, (n, 1)), (n, N - 1)), axis=1)
        out = fnp.concatenate([ones, powers], axis=1)
    return out if increasing else fnp.flip(out, axis=1)
