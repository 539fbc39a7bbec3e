"""``ftransforms.numpy.linalg``: the part of ``numpy.linalg`` built so far."""

from __future__ import annotations

from typing import Any

import ftransforms.numpy as fnp
from ftransforms.core.errors import UnsupportedOperationError


def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:  # noqa: A002
    """``numpy.linalg.norm`` for vectors (ord None, 1, 2, inf) and 'fro' for matrices."""
    if axis is None and ord is None:
        return fnp.sqrt(
            fnp.sum(x * x, keepdims=keepdims)
            if not keepdims
            else fnp.sum(x * x, axis=tuple(range(fnp.ndim(x))), keepdims=True)
        )
    if isinstance(axis, int) or (axis is None and fnp.ndim(x) == 1):
        axis = 0 if axis is None else axis
        if ord is None or ord == 2:
            return fnp.sqrt(fnp.sum(x * x, axis=axis, keepdims=keepdims))
        if ord == 1:
            return fnp.sum(fnp.abs(x), axis=axis, keepdims=keepdims)
        if ord == fnp.inf:
            return fnp.max(fnp.abs(x), axis=axis, keepdims=keepdims)
    if ord in (None, "fro"):
        return fnp.sqrt(fnp.sum(x * x, axis=axis, keepdims=keepdims))
    raise UnsupportedOperationError(
        f"linalg.norm: ord={ord!r} with axis={axis!r} is not supported yet"
    )
