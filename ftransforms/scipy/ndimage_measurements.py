"""``scipy.ndimage``'s measurements on tracers (re-exported by
``ftransforms.scipy.ndimage``): ``center_of_mass`` (weighted means of the index grids),
``sum_labels``, ``mean``, ``variance``, ``standard_deviation``, ``maximum``, ``minimum``
over labelled regions, differentiable in the input (the labels are data that select,
not differentiated).

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

__all__ = [
    "center_of_mass",
    "maximum",
    "mean",
    "minimum",
    "standard_deviation",
    "sum_labels",
    "variance",
]


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


def _label_masks(x: Any, labels: Any, index: Any) -> tuple[Any, tuple, int]:
    """``(masks, out_shape, n)``: one boolean mask per requested label, stacked on a new
    first axis (a constant: labels are data that select), SciPy's answer's shape, and the
    number of axes of ``x``.  No labels: the whole array; no index: every positive label."""
    shape = tuple(fnp.shape(x))
    if labels is None:
        return fnp.asarray(numpy.ones((1, *shape), dtype=bool), like=x), (), len(shape)
    lab = numpy.broadcast_to(numpy.asarray(labels), shape)
    if index is None:
        return fnp.asarray((lab > 0)[None], like=x), (), len(shape)
    idx = numpy.asarray(index)
    masks = lab[None] == idx.reshape((-1,) + (1,) * len(shape))
    return fnp.asarray(masks, like=x), idx.shape, len(shape)


def _float_input(input: Any) -> Any:  # noqa: A002
    x = input if hasattr(input, "dtype") else fnp.asarray(input)
    return fnp.astype(x, numpy.float64) if dtype_of(x).kind in "biu" else x


def _per_label(values: Any, out_shape: tuple) -> Any:
    return fnp.reshape(values, out_shape)


def _sums(x: Any, labels: Any, index: Any) -> tuple[Any, Any, Any, tuple, tuple]:
    masks, out_shape, nd = _label_masks(x, labels, index)
    axes = tuple(range(1, nd + 1))
    w = fnp.where(masks, x, 0.0)
    count = fnp.sum(fnp.astype(masks, dtype_of(x)), axis=axes)
    return masks, w, count, axes, out_shape


def sum_labels(input: Any, labels: Any = None, index: Any = None) -> Any:  # noqa: A002
    """``scipy.ndimage.sum_labels`` (and ``scipy.ndimage.sum``): the sum of ``input``
    over the elements of each label in ``index`` (no index: every positive label; no
    labels: the whole array), of ``index``'s shape; differentiable in ``input``.

    Example:
        >>> import numpy as np
        >>> sum_labels(np.arange(4.0), np.array([1, 2, 1, 0]), [1, 2]).tolist()
        [2.0, 1.0]
    """
    x = _float_input(input)
    _, w, _, axes, out_shape = _sums(x, labels, index)
    return _per_label(fnp.sum(w, axis=axes), out_shape)


def mean(input: Any, labels: Any = None, index: Any = None) -> Any:  # noqa: A002
    """``scipy.ndimage.mean``: the mean of ``input`` over each label's elements (NaN for
    a label with none, as SciPy).

    Example:
        >>> import numpy as np
        >>> mean(np.arange(4.0), np.array([1, 2, 1, 0]), [1, 2]).tolist()
        [1.0, 1.0]
    """
    x = _float_input(input)
    _, w, count, axes, out_shape = _sums(x, labels, index)
    return _per_label(fnp.sum(w, axis=axes) / count, out_shape)


def variance(input: Any, labels: Any = None, index: Any = None) -> Any:  # noqa: A002
    """``scipy.ndimage.variance``: the population variance of ``input`` over each label's
    elements (NaN for a label with none).

    Example:
        >>> import numpy as np
        >>> variance(np.arange(4.0), np.array([1, 2, 1, 0]), [1, 2]).tolist()
        [1.0, 0.0]
    """
    x = _float_input(input)
    masks, w, count, axes, out_shape = _sums(x, labels, index)
    centre = fnp.sum(w, axis=axes) / count
    centre = fnp.reshape(centre, fnp.shape(centre) + (1,) * len(axes))
    dev = fnp.where(masks, x - centre, 0.0)
    return _per_label(fnp.sum(dev * dev, axis=axes) / count, out_shape)


def standard_deviation(input: Any, labels: Any = None, index: Any = None) -> Any:  # noqa: A002
    """``scipy.ndimage.standard_deviation``: the square root of :func:`variance`.

    Example:
        >>> import numpy as np
        >>> round(float(standard_deviation(np.array([1.0, 3.0, 5.0]))), 6)
        1.632993
    """
    return fnp.sqrt(variance(input, labels, index))


def _extreme(input: Any, labels: Any, index: Any, largest: bool) -> Any:  # noqa: A002
    x = input if hasattr(input, "dtype") else fnp.asarray(input)
    masks, out_shape, nd = _label_masks(x, labels, index)
    axes = tuple(range(1, nd + 1))
    empty = ~fnp.any(masks, axis=axes)
    reduce = fnp.max if largest else fnp.min
    fill = fnp.min(x) if largest else fnp.max(x)  # never chosen over a labelled element
    picked = reduce(fnp.where(masks, x, fill), axis=axes)
    return _per_label(fnp.where(empty, fnp.zeros_like(picked), picked), out_shape)


def maximum(input: Any, labels: Any = None, index: Any = None) -> Any:  # noqa: A002
    """``scipy.ndimage.maximum``: the largest element of ``input`` in each label (0 for a
    label with none, as SciPy); its gradient goes to that element.

    Example:
        >>> import numpy as np
        >>> maximum(np.arange(4.0), np.array([1, 2, 1, 0]), [1, 2, 3]).tolist()
        [2.0, 1.0, 0.0]
    """
    return _extreme(input, labels, index, True)


def minimum(input: Any, labels: Any = None, index: Any = None) -> Any:  # noqa: A002
    """``scipy.ndimage.minimum``: the smallest element of ``input`` in each label (0 for a
    label with none).

    Example:
        >>> import numpy as np
        >>> minimum(np.arange(4.0), np.array([1, 2, 1, 0]), [1, 2]).tolist()
        [0.0, 1.0]
    """
    return _extreme(input, labels, index, False)
