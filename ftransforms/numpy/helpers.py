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
import warnings
from typing import Any

import numpy

from ftransforms import lax
from ftransforms.backend import namespace_of
from ftransforms.core.errors import (
    BatchedControlFlowError,
    InPlaceError,
    UnsupportedOperationError,
)
from ftransforms.core.mutation import Buffer
from ftransforms.core.stack import current_stack as _current_stack
from ftransforms.core.tracer import Tracer
from ftransforms.lax import normalize_axes, normalize_axis  # noqa: F401  (re-exported)
from ftransforms.numpy.dispatch import implements

__all__ = ["physical", "peek", "shape", "ndim", "size", "shares_memory", "may_share_memory"]


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


def warn_for_data(bad: Any, message: str) -> None:
    """NumPy's ``RuntimeWarning(message)`` where the boolean ``bad`` holds anywhere (an
    all-NaN slice, an empty one): read over the whole batch at once, so ``vmap`` warns
    once, as the loop over the rows does under the default filters, and splits nothing.
    A ``jit`` recording does not read the data for a warning (that would make every call
    run eagerly): it stays silent."""
    stack = _current_stack()
    if builtins.any(getattr(interp, "note_value_read", None) is not None for interp in stack):
        return
    if isinstance(bad, Tracer):
        bad = bad._physical()
    if bool(numpy.any(to_host(bad))):
        warnings.warn(message, RuntimeWarning, stacklevel=4)


def read_per_row(pred: Any, refused: str) -> bool:
    """``bool(pred)`` for library code whose next step (a result's size) depends on the
    data where ``peek`` found the rows of a ``vmap`` batch to disagree: the read splits
    the batch (NOTE [splitting the batch]), as the user's own ``if`` would, and each group
    takes its own path; with splitting off it raises ``BatchedControlFlowError(refused)``."""
    try:
        return bool(pred)
    except BatchedControlFlowError:
        raise BatchedControlFlowError(refused) from None


def invalid_in_rows(bad: Any) -> bool:
    """Whether the boolean ``bad`` (true at an argument's invalid elements: a negative
    count, an index out of range) holds anywhere, for a check that raises as NumPy does.
    A traced ``bad`` is read as the user's own ``if`` would be: under ``vmap`` rows that
    disagree split the batch (NOTE [splitting the batch]), so the error is raised for the
    rows it belongs to while the others compute (a ``try`` in ``f`` takes its ``except``
    for those rows only, as in the loop over the rows); under ``jit`` the read marks the
    recording value-dependent."""
    if isinstance(bad, Tracer):
        return bool(bad.any())
    return bool(numpy.any(to_host(bad)))


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
    """The dtype of an array, tracer or Python scalar (``numpy.result_type`` for scalars),
    or of the array a list or tuple stands for."""
    d = getattr(x, "dtype", None)
    if d is not None:
        return d
    if isinstance(x, (list, tuple)):
        return dtype_of(array_like(x)) if holds_tracer(x) else numpy.asarray(x).dtype
    return numpy.result_type(x)


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


def holds_traced_value(x: Any) -> bool:
    """:func:`holds_tracer`, except that a plain array made inside the transformed function
    (a buffer: ``np.array([0.5, 2.0])`` or ``np.linspace`` in the function) is a constant:
    the test for a setting that must be concrete (a filter's coordinates, a grid).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> ft.grad(lambda x: x * holds_traced_value(np.array([1.0])))(2.0)
        array(0.)
    """
    if type(x) is Buffer:
        return False
    if isinstance(x, (list, tuple)):
        return builtins.any(holds_traced_value(v) for v in x)
    if type(x) is numpy.ndarray and x.dtype.kind == "O":
        return holds_traced_value(x.tolist())
    return isinstance(x, Tracer)


def array_like(x: Any) -> Any:
    """NOTE [array-likes holding tracers]: the one conversion of an array argument of an
    ``ftransforms.numpy`` function (and of a primitive's, in ``bind``'s general path).

    A tracer is returned as it is; a (nested) list or tuple, or a NumPy object array
    (``np.array([t, 1.0])``), that holds a tracer becomes one traced array of NumPy's dtype
    for the same data (the elements' dtypes promoted, a Python float counting as float64
    as in ``numpy.array([...])``), stacked with primitives so that every transform sees
    it.  Anything else (arrays, numbers, lists of numbers) is returned as it is, for the
    caller's backend conversion: the cost on plain values is one type test.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms.numpy.helpers import array_like
        >>> float(ft.grad(lambda t: array_like([[t, 1.0], (2, t * t)]).sum())(3.0))  # 1 + 2t
        7.0
    """
    t = type(x)
    if t is list or t is tuple:
        if not holds_tracer(x):
            return x
    elif t is numpy.ndarray and x.dtype.kind == "O":
        items = x.tolist()
        if not holds_tracer(items):
            return x
        x = items
        if not isinstance(x, list):  # a 0-d object array: its one element
            return array_like(x) if isinstance(x, (list, tuple)) else x
    else:
        return x
    leaves = [array_like(v) if isinstance(v, (list, tuple)) else v for v in x]
    like = next(v for v in leaves if isinstance(v, Tracer) or _backend_array(v))
    xp = xp_of(like)
    leaves = [v if isinstance(v, Tracer) or _backend_array(v) else xp.asarray(v) for v in leaves]
    shapes = {lax.shape(v) for v in leaves}
    if len(shapes) != 1:
        raise ValueError(
            f"setting an array element with a sequence: the elements have shapes "
            f"{sorted(shapes)} (an inhomogeneous list cannot be one array)"
        )
    dtype = numpy.result_type(*[dtype_of(v) for v in leaves])
    return lax.stack([lax.convert(v, dtype) for v in leaves])


def as_array(x: Any) -> Any:
    """:func:`array_like`, and a list or tuple of numbers as a NumPy array: an array
    argument as NumPy takes it (numbers and arrays are returned as they are)."""
    t = type(x)
    if t is list or t is tuple:
        x = array_like(x)
        return numpy.asarray(x) if isinstance(x, (list, tuple)) else x
    return array_like(x) if t is numpy.ndarray and x.dtype.kind == "O" else x


def _backend_array(v: Any) -> bool:
    return hasattr(v, "dtype") and hasattr(v, "shape") and not isinstance(v, numpy.generic)


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


#: ``numpy.<name>`` that writes into its argument -> the function that does it with NumPy's
#: mutation semantics on tracers and buffers (filled by ``ftransforms.numpy.inplace``).
IN_PLACE_WRITERS: dict[str, Any] = {}


def refuse_in_place(name: str) -> Any:
    """The in-place ``numpy.<name>`` on tracers: the writer registered in
    :data:`IN_PLACE_WRITERS` (NOTE [mutation semantics]), or InPlaceError with the fix;
    ``jax.numpy``'s ``inplace=False`` writes into a copy of the array and returns it."""

    def refuse(*args: Any, inplace: bool = True, **kwargs: Any) -> Any:
        writer = IN_PLACE_WRITERS.get(name)
        if writer is not None:
            if inplace:
                return writer(*args, **kwargs)
            # jax.numpy's inplace=False: write into a copy and return it
            target = numpy.copy(args[0])  # a tracer dispatches to ftransforms.numpy.copy
            writer(target, *args[1:], **kwargs)
            return target
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


#: The view arithmetic behind shares_memory (``inplace._overlap``, registered there: views
#: are made in ``inplace``, which builds on this module).
MEMORY_OVERLAP: list = []


@implements(numpy.shares_memory)
def shares_memory(a: Any, b: Any, max_work: Any = None) -> bool:  # noqa: ARG001
    """``numpy.shares_memory(a, b)`` for values inside a transformed function: whether
    ``a`` and ``b`` are views of one array with an element in common (NumPy's views:
    basic slices, ``.T``, ``reshape``, ``.real``/``.imag``, ...).  A tracer shares no
    memory with a plain array (the caller's arrays are never written).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> def f(x):
        ...     y = x.copy()
        ...     return np.array([np.shares_memory(y[:2], y[1:]), np.shares_memory(y[:2], y[2:])])
        >>> ft.vmap(f)(np.zeros((3, 4)))[0].tolist()  # the same in every row
        [True, False]
    """
    if not (isinstance(a, Tracer) or isinstance(b, Tracer)):
        return bool(numpy.shares_memory(a, b))
    return MEMORY_OVERLAP[0](a, b, bounds=False)


@implements(numpy.may_share_memory)
def may_share_memory(a: Any, b: Any, max_work: Any = None) -> bool:
    """``numpy.may_share_memory(a, b)``: as :func:`shares_memory`, but only the memory
    bounds are compared (NumPy's default), unless ``max_work`` asks for the exact answer.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> def f(x):
        ...     y = x.copy()
        ...     a, b = y[::2], y[1::2]
        ...     return np.array([np.may_share_memory(a, b), np.shares_memory(a, b)])
        >>> ft.vmap(f)(np.zeros((3, 4)))[0].tolist()  # the same in every row
        [True, False]
    """
    if not (isinstance(a, Tracer) or isinstance(b, Tracer)):
        return bool(numpy.may_share_memory(a, b, max_work))
    return MEMORY_OVERLAP[0](a, b, bounds=max_work is None)
