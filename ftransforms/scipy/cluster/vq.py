"""``ftransforms.scipy.cluster.vq``: ``vq``, the nearest code of each observation.

Example:
    >>> import numpy as np
    >>> from ftransforms.scipy.cluster.vq import vq
    >>> code, dist = vq(np.array([[0.0, 0.0], [3.0, 5.0]]), np.array([[0.0, 1.0], [3.0, 4.0]]))
    >>> code.tolist(), dist.tolist()
    ([0, 1], [1.0, 1.0])
"""

from __future__ import annotations

from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.numpy.ufuncs import float_input

__all__ = ["vq"]


def vq(obs: Any, code_book: Any, check_finite: bool = True) -> tuple[Any, Any]:
    """The index of the nearest row of ``code_book`` (``(K, N)``) to each row of ``obs``
    (``(M, N)``; 1-d arrays are ``N = 1``) and its Euclidean distance, as
    ``scipy.cluster.vq.vq`` (codes are ``int32``; the first of equal distances wins).
    Differentiable in both through the distances; ``check_finite`` is accepted (the
    check is SciPy's; JAX ignores it too).

    Example:
        >>> import numpy as np
        >>> code, dist = vq(np.array([1.0, 2.6]), np.array([0.0, 3.0]))
        >>> code.tolist(), np.round(dist, 6).tolist()
        ([0, 1], [1.0, 0.4])
    """
    obs = float_input(fnp.asarray(obs), None)
    code_book = float_input(fnp.asarray(code_book), None)
    if fnp.ndim(obs) not in (1, 2) or fnp.ndim(code_book) not in (1, 2):
        raise ValueError(
            f"vq(obs, code_book): obs and code_book must be 1-d or 2-d, got shapes "
            f"{fnp.shape(obs)} and {fnp.shape(code_book)}"
        )
    if fnp.ndim(obs) == 1:
        obs = obs[:, None]
    if fnp.ndim(code_book) == 1:
        code_book = code_book[:, None]
    if fnp.shape(obs)[1] != fnp.shape(code_book)[1]:
        raise ValueError(
            f"vq(obs, code_book): obs and code_book must have the same number of features "
            f"(columns), got shapes {fnp.shape(obs)} and {fnp.shape(code_book)}; reshape "
            "them to (observations, features) and (codes, features)"
        )
    squared = fnp.sum((obs[:, None, :] - code_book[None, :, :]) ** 2, axis=-1)
    code = fnp.argmin(squared, axis=1)
    nearest = fnp.take_along_axis(squared, code[:, None], axis=1)[:, 0]
    return code.astype(numpy.int32), fnp.sqrt(nearest)
