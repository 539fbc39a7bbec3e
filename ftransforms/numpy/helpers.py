"""Helpers shared by the ``ftransforms.numpy`` chapters: dtype and axis normalisation, the
array namespace of values, the physical array under a tracer, and the basic array
properties (``shape``, ``ndim``, ``size``).  Imports no other chapter.

Example:
    >>> import numpy as np
    >>> from ftransforms.numpy.helpers import dtype_of, normalize_axes
    >>> dtype_of(1.5), normalize_axes(-1, 3)
    (dtype('float64'), (2,))
"""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy

from ftransforms.backend import namespace_of
from ftransforms.core.errors import (
    BatchedControlFlowError,
    InPlaceError,
    UnsupportedOperationError,
)
from ftransforms.core.stack import current_stack as _current_stack
from ftransforms.core.tracer import Tracer
from ftransforms.lax import normalize_axes, normalize_axis  # noqa: F401  (re-exported)
from ftransforms.numpy.dispatch import implements

__all__ = ["physical", "peek", "shape", "ndim", "size"]


def physical(x: Any) -> Any:
    """The backend array under ``x`` (all transform levels' batch axes included); a
    backend array as it is.  Reading it does not report a value read as :func:`peek` does.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> def f(row):
        ...     print(fnp.shape(row), fnp.physical(row).shape)  # logical, then physical
        ...     return row
        >>> _ = ft.vmap(f)(np.ones((4, 3)))
        (3,) (4, 3)
    """
    return x._physical() if isinstance(x, Tracer) else x


def peek(x: Any) -> Any:
    """The concrete values under ``x``, for a rule that decides something from the data.

    We are eager, so the data is always there; but a ``jit`` recording that depends on it
    is only valid for this data, so the read is reported (NOTE [value-dependent traces]).

    Example:
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> def f(x):
        ...     n = int(fnp.peek(x))  # the exponent is read from the data: 3
        ...     return x**n
        >>> float(ft.grad(f)(3.0))  # d/dx x**3 = 3 x**2 = 27 at x = 3
        27.0
    """
    if isinstance(x, Tracer):
        for interp in _current_stack():
            note = getattr(interp, "note_value_read", None)
            if note is not None:
                note("a rule that reads the data (fnp.peek)")
        return x._physical()
    return x


def xp_of(*values: Any) -> Any:
    """The array namespace (numpy or cupy) of ``values``, tracers included."""
    return namespace_of(*[physical(v) for v in values])


@implements(numpy.shape)
def shape(x: Any) -> tuple[int, ...]:
    """``numpy.shape``: the logical shape of an array, tracer or scalar (under
    :func:`~ftransforms.vmap`, without the batch axis).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.shape([[1, 2, 3]]), fnp.shape(2.0)
        ((1, 3), ())
        >>> ft.vmap(lambda row: row * fnp.shape(row)[0])(np.ones((2, 3))).tolist()
        [[3.0, 3.0, 3.0], [3.0, 3.0, 3.0]]
    """
    s = getattr(x, "shape", None)
    return tuple(s) if s is not None else numpy.shape(x)


@implements(numpy.ndim)
def ndim(x: Any) -> int:
    """``numpy.ndim`` for arrays, tracers and scalars (a tracer's logical rank).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.ndim(np.ones((2, 3))), fnp.ndim(2.0)
        (2, 0)
        >>> ft.vmap(lambda row: row * fnp.ndim(row))(np.ones((2, 3))).tolist()
        [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
    """
    return len(shape(x))


@implements(numpy.size)
def size(x: Any, axis: int | None = None) -> int:
    """``numpy.size`` for arrays, tracers and scalars: the number of elements (along
    ``axis`` if given) of the logical shape.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.size(np.ones((2, 3))), fnp.size(np.ones((2, 3)), axis=1)
        (6, 3)
        >>> ft.vmap(lambda row: row.sum() / fnp.size(row))(np.ones((4, 3))).tolist()  # means
        [1.0, 1.0, 1.0, 1.0]
    """
    s = shape(x)
    return math.prod(s) if axis is None else s[axis]


def dtype_of(x: Any) -> Any:
    """The dtype of an array, tracer or Python scalar (``numpy.result_type`` for scalars)."""
    d = getattr(x, "dtype", None)
    return d if d is not None else numpy.result_type(x)


def no_extra_args(name: str, kw: dict) -> None:
    """Refuse ``out=`` and any other unsupported keyword left in ``kw`` for ``name``."""
    if kw.get("out") is not None:
        raise UnsupportedOperationError(
            f"{name}(..., out=...): ftransforms arrays are immutable; use the return value"
        )
    extra = sorted(k for k, v in kw.items() if k != "out" and v is not None)
    if extra:
        raise UnsupportedOperationError(f"{name}: unsupported arguments {extra}")


def normalize_axes_ordered(axis: Any, rank: int) -> list[int]:
    """An int or a sequence of axes, normalized, in the order given."""
    if isinstance(axis, (int, numpy.integer)):
        return [normalize_axis(int(axis), rank)]
    return [normalize_axis(int(a), rank) for a in axis]


def holds_tracer(x: Any) -> bool:
    """Whether ``x`` is a tracer or a (nested) list/tuple or NumPy object array holding
    one."""
    if isinstance(x, Tracer):
        return True
    if isinstance(x, (list, tuple)):
        return builtins.any(holds_tracer(v) for v in x)
    if type(x) is numpy.ndarray and x.dtype.kind == "O":  # np.array([t, 1.0])
        return holds_tracer(x.tolist())
    return False


def xp_like(like: Any) -> Any:
    """The namespace of a ``like=`` argument (numpy when it is None)."""
    return numpy if like is None else xp_of(like)


def weak_result_type(*values: Any) -> Any:
    """``numpy.result_type`` of arrays' and tracers' dtypes, Python scalars staying weak
    (it never sees a backend array: CuPy's are not NumPy's)."""
    return numpy.result_type(
        *[
            v if isinstance(v, (bool, int, float, complex, type, numpy.dtype)) else dtype_of(v)
            for v in values
        ]
    )


def to_host(x: Any) -> numpy.ndarray:
    """A NumPy copy of a concrete backend array (CuPy's included)."""
    return numpy.asarray(x.get() if hasattr(x, "get") else x)


def first_array(*values: Any) -> Any:
    """The first backend array or tracer among ``values`` (None if there is none)."""
    return next((v for v in values if hasattr(v, "dtype") and hasattr(v, "shape")), None)


def constant_like(value: Any, like: Any, dtype: Any = None) -> Any:
    """A constant array on ``like``'s backend."""
    return xp_of(like).asarray(value, dtype=dtype)


def same_across_batch(value: Any, what: str, fix: str) -> int:
    """The one concrete value of a logical scalar that decides a shape.  Under ``vmap``
    rows that disagree split the batch (NOTE [splitting the batch], ftransforms/split.py),
    so each group of rows gets its own shape; with ``vmap(..., split=False)`` it is an
    error naming ``fix``."""
    if not isinstance(value, Tracer):
        return int(to_host(value))
    try:
        return int(value._concrete())
    except BatchedControlFlowError:
        raise BatchedControlFlowError(
            f"{what} under vmap(split=False): the shape of the result depends on the "
            f"values, and it differs across the batch; {fix}"
        ) from None


def refuse_in_place(name: str) -> Any:
    """A stand-in for the in-place ``numpy.<name>`` that raises InPlaceError with the fix."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise InPlaceError(
            f"numpy.{name} writes into its array argument, and tracers are immutable; use "
            f"the functional form x = x.at[index].set(v) (or fnp.where(mask, v, x))"
        )

    refuse.__name__ = name
    refuse.__doc__ = f"``numpy.{name}`` writes in place: refused on tracers with the fix."
    return refuse


def concrete_arg(x: Any, what: str) -> Any:
    """The backend value of an integer argument that decides shapes (not under vmap)."""
    if not isinstance(x, Tracer):
        return x
    try:
        return x._concrete()
    except BatchedControlFlowError:
        raise BatchedControlFlowError(
            f"{what}: this argument decides the shape of the result, so it cannot differ "
            f"across a vmap batch; pass it unbatched (in_dims=None) or as a constant."
        ) from None


#: The dtype of NumPy's index results (``nonzero``, ``argwhere``, ...).
INTP = numpy.dtype(numpy.intp)
