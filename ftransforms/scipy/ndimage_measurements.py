"""``scipy.ndimage.center_of_mass`` on tracers (re-exported by
``ftransforms.scipy.ndimage``): weighted means of the index grids, differentiable in the
input (the labels are data that select, not differentiated).

Example:
    >>> import numpy as np
    >>> from ftransforms.scipy.ndimage import center_of_mass
    >>> [float(c) for c in center_of_mass(np.array([[0.0, 1.0], [0.0, 3.0]]))]
    [0.75, 1.0]
"""

from __future__ import annotations

from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.numpy.helpers import dtype_of

__all__ = ["center_of_mass"]


def center_of_mass(input: Any, labels: Any = None, index: Any = None) -> Any:  # noqa: A002
    """``scipy.ndimage.center_of_mass``: ``sum(input * i_d) / sum(input)`` for every
    axis ``d``: a tuple of 0-d arrays; with ``labels``, over the elements whose label is
    ``index`` (default: every positive label), a list of tuples for a sequence of
    indices.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> x = np.array([1.0, 1.0, 2.0])
        >>> float(center_of_mass(x)[0])
        1.25
        >>> ft.grad(lambda x: center_of_mass(x)[0])(x).tolist()  # (i - 1.25) / 4
        [-0.3125, -0.0625, 0.1875]
    """
    x = input if hasattr(input, "dtype") else fnp.asarray(input)
    if dtype_of(x).kind in "biu":
        x = fnp.astype(x, numpy.float64)
    shape = fnp.shape(x)
    nd = len(shape)
    grids = [
        fnp.asarray(
            numpy.arange(n, dtype=float).reshape([-1 if k == d else 1 for k in range(nd)]),
            like=x,
        )
        for d, n in enumerate(shape)
    ]

    def moments(mask: Any) -> tuple:
        w = x if mask is None else fnp.where(mask, x, 0.0)
        total = fnp.sum(w)
        return tuple(fnp.sum(w * g) / total for g in grids)

    if labels is None:
        return moments(None)
    lab = numpy.asarray(labels)
    if lab.shape != tuple(shape):
        lab = numpy.broadcast_to(lab, shape)
    if index is None:
        return moments(fnp.asarray(lab > 0, like=x))
    if numpy.ndim(index) == 0:
        return moments(fnp.asarray(lab == index, like=x))
    return [moments(fnp.asarray(lab == i, like=x)) for i in numpy.asarray(index).ravel()]
