"""``scipy.signal.medfilt``, ``medfilt2d`` and ``order_filter`` on traced arrays: the
zero-padded rank filters, as ``ftransforms.scipy.ndimage``'s ``rank_filter`` with
``mode='constant'`` (the derivative flows to the element of that rank; every transform
applies).

Example:
    >>> import numpy as np
    >>> medfilt(np.array([1.0, 9.0, 2.0, 3.0])).tolist()  # zeros past the ends
    [1.0, 2.0, 3.0, 2.0]
"""

from __future__ import annotations

from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.scipy.rank_filters import rank_filter

__all__ = ["medfilt", "medfilt2d", "order_filter"]


def order_filter(a: Any, domain: Any, rank: int) -> Any:
    """``scipy.signal.order_filter``: the element of rank ``rank`` (0: the smallest) among
    the neighbours where ``domain`` (odd sizes) is nonzero, zeros past the edges.

    Example:
        >>> import numpy as np
        >>> order_filter(np.array([4.0, 1.0, 3.0, 2.0]), np.ones(3), 2).tolist()
        [4.0, 4.0, 3.0, 3.0]
    """
    domain = numpy.asarray(domain)
    a = fnp.asarray(a)
    if domain.ndim != fnp.ndim(a):
        raise ValueError(
            f"order_filter(a, domain, rank): domain must have the dimensions of a "
            f"({fnp.ndim(a)}), got {domain.ndim}"
        )
    if any(n % 2 == 0 for n in domain.shape):
        raise ValueError("order_filter(a, domain, rank): each dimension of domain must be odd")
    return rank_filter(a, int(rank), footprint=domain != 0, mode="constant", cval=0.0)


def medfilt(volume: Any, kernel_size: Any = None) -> Any:
    """``scipy.signal.medfilt``: the median over a ``kernel_size`` window (3 per
    dimension by default; odd sizes) around every element, zeros past the edges.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> ft.grad(lambda x: medfilt(x)[1])(np.array([1.0, 9.0, 2.0])).tolist()
        [0.0, 0.0, 1.0]
    """
    volume = fnp.asarray(volume)
    nd = fnp.ndim(volume)
    sizes = [3] * nd if kernel_size is None else list(numpy.broadcast_to(kernel_size, (nd,)))
    if any(int(k) % 2 == 0 for k in sizes):
        raise ValueError(f"medfilt(volume, kernel_size={kernel_size!r}): each size must be odd")
    domain = numpy.ones([int(k) for k in sizes])
    return order_filter(volume, domain, domain.size // 2)


def medfilt2d(input: Any, kernel_size: Any = 3) -> Any:  # noqa: A002  (SciPy's name)
    """``scipy.signal.medfilt2d``: :func:`medfilt` of a 2-D array.

    Example:
        >>> import numpy as np
        >>> medfilt2d(np.ones((3, 3))).tolist()  # the corners see five zeros
        [[0.0, 1.0, 0.0], [1.0, 1.0, 1.0], [0.0, 1.0, 0.0]]
    """
    if fnp.ndim(input) != 2:
        raise ValueError(f"medfilt2d(input): input must be 2-D, got {fnp.ndim(input)}-D")
    return medfilt(input, kernel_size)
