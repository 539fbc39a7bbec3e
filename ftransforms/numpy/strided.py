"""``numpy.lib.stride_tricks.as_strided`` on traced arrays: the strided view as a gather.

``as_strided(x, shape, strides)`` reads ``x``'s memory at the byte offsets
``sum(i_k * strides_k)``.  A tracer that is no view is laid out in C order, so on it the
view is ``x.ravel()[positions]`` with the element positions ``sum(i_k * strides_k //
itemsize)``: a gather every transform differentiates, maps and records.  A view laid out
otherwise (``a.T``, ``a[:, 0]``: ``t.strides`` are NumPy's, NOTE [byte strides of views]
in core/mutation.py) is stepped through its root's memory from its first element, and
each place reached is the element of ``x`` that NumPy holds there.  The result is a
view: writes into ``x`` are seen through it, and a write into it
(``as_strided(a, (n,), ((n + 1) * a.itemsize,))[:] = 1``, the diagonal) is scattered into
``x``'s elements; ``writeable=False`` makes it read-only, as in NumPy.  A write into a
view whose elements overlap (rolling windows) goes to the places they share as NumPy's
element-by-element write leaves them (NOTE [writes through overlapping views] in
core/mutation.py); where those places are not known it raises InPlaceError.
Strides that are not whole elements, or positions outside ``x``, raise instead of reading
memory NumPy would not own.

While a transform is active ``numpy.lib.stride_tricks.as_strided`` is this function (the
SciPy cookbook's rolling windows and im2col convolutions call it by that name); on
anything but a tracer it is NumPy's.  A name bound earlier by ``from
numpy.lib.stride_tricks import as_strided`` holds NumPy's function object, whose code is
swapped for a call of this function while a transform is active (:class:`_CodeSwap`):
NumPy's own would compute on a read-only object array of tracers, which reads right but
refuses writes through the windows (``w = as_strided(b, ...); w[0] = x``).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> def rolling_sum(y):
    ...     windows = np.lib.stride_tricks.as_strided(
    ...         y, shape=(3, 3), strides=(y.strides[0], y.strides[0]))
    ...     return np.sum(windows ** 2)
    >>> ft.grad(rolling_sum)(np.arange(5.0, dtype=np.float32))
    array([ 0.,  4., 12., 12.,  8.], dtype=float32)
"""

from __future__ import annotations

import operator
import types
from typing import Any

import numpy

from ftransforms.core.errors import InPlaceError, UnsupportedOperationError
from ftransforms.core.mutation import (
    PATCHED_WHILE_ACTIVE,
    ROOT_LAYOUTS,
    c_strides,
    element_offsets,
    make_view,
    read_only,
    strides_of,
)
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.helpers import dtype_of, size
from ftransforms.numpy.helpers import shape as shape_of
from ftransforms.numpy.indexing import getitem
from ftransforms.numpy.inplace import updated
from ftransforms.numpy.manipulation import ravel, reshape

__all__: list[str] = []  # nothing joins fnp: numpy.lib.stride_tricks.as_strided is the name

_NUMPY_AS_STRIDED = numpy.lib.stride_tricks.as_strided
_NUMPY_CODE = _NUMPY_AS_STRIDED.__code__
#: NumPy's ``as_strided`` as a function object of its own (the same code and globals):
#: what this module calls on anything but a tracer, whatever ``_NUMPY_AS_STRIDED`` runs.
_numpys_as_strided = types.FunctionType(
    _NUMPY_CODE, _NUMPY_AS_STRIDED.__globals__, "as_strided", _NUMPY_AS_STRIDED.__defaults__
)


def as_strided(
    x: Any, shape: Any = None, strides: Any = None, subok: bool = False, writeable: bool = True
) -> Any:
    """``numpy.lib.stride_tricks.as_strided(x, shape, strides)``: for a tracer, the
    elements at the positions the byte ``strides`` reach (see the module doc); NumPy's
    own function for anything else."""
    if not isinstance(x, Tracer):
        return _numpys_as_strided(x, shape, strides, subok, writeable)
    itemsize = dtype_of(x).itemsize
    new_shape = tuple(operator.index(n) for n in (shape_of(x) if shape is None else shape))
    new_strides = tuple(operator.index(s) for s in (x.strides if strides is None else strides))
    where = f"as_strided(x, shape={new_shape}, strides={new_strides})"
    if len(new_shape) != len(new_strides):
        raise ValueError(f"{where}: mismatch in length of strides and shape")
    if any(s % itemsize for s in new_strides):
        raise UnsupportedOperationError(
            f"{where}: the strides must be whole {itemsize}-byte elements of x ({dtype_of(x)}) "
            f"on a traced array; pass multiples of x.itemsize"
        )
    positions = numpy.zeros(new_shape, dtype=numpy.intp)
    for axis, (n, s) in enumerate(zip(new_shape, new_strides)):
        steps = numpy.arange(n, dtype=numpy.intp) * (s // itemsize)
        positions = positions + steps.reshape((n,) + (1,) * (len(new_shape) - axis - 1))
    laid_out = getattr(x, "_base", None) is not None or id(x) in ROOT_LAYOUTS
    offsets = element_offsets(x) if laid_out else None  # (NOTE [layout of elementwise results])
    if offsets is not None and offsets.size and strides_of(x) != c_strides(x):
        # a view laid out otherwise (x.T, x[:, 0]): the strides step through the root's
        # memory from x's first element (NOTE [byte strides of views]); the element of x
        # held at each place is read (an offset x does not hold raises below)
        flat = offsets.ravel() // itemsize
        held = numpy.full(int(flat.max()) - int(flat.min()) + 1, -1, dtype=numpy.intp)
        held[(flat - flat.min())[::-1]] = numpy.arange(flat.size - 1, -1, -1)
        reached = positions + (flat[0] - flat.min())
        inside = (reached >= 0) & (reached < held.size)
        positions = numpy.where(inside, held[numpy.where(inside, reached, 0)], -1)
        if positions.size and positions.min() < 0:
            raise ValueError(
                f"{where}: the view reaches memory that x (laid out with strides "
                f"{strides_of(x)}) does not hold; NumPy would read its base's other "
                f"elements: take the view of the base array instead"
            )
    if positions.size and (positions.min() < 0 or positions.max() >= size(x)):
        raise ValueError(
            f"{where}: the view reaches elements {positions.min()}..{positions.max()} of an "
            f"array of {size(x)} (NumPy would read memory outside it); check shape and strides"
        )

    def forward(parent: Any) -> Any:
        return getitem(ravel(parent), positions)

    def inverse(parent: Any, value: Any) -> Any:
        return reshape(updated(ravel(parent), positions, value), shape_of(parent))

    def overlapping(parent: Any, value: Any) -> Any:  # (NOTE [writes through overlapping
        raise InPlaceError(  # views]: called only where the places are not known)
            f"{parent._interp.name}: {where}[...] = v on a traced array: the view's elements "
            f"overlap (some element of x appears more than once), and NumPy writes such memory "
            f"element by element, an order the transforms do not keep; write into x itself "
            f"(the view sees the write)"
        )

    if not writeable:
        inverse = read_only  # NumPy's ValueError on a write
    elif numpy.unique(positions).size < positions.size:
        inverse = overlapping
        overlapping.overlapping = True  # type: ignore[attr-defined]
    return make_view(x, forward(x), forward, inverse)


def _forwarding(
    x: Any, shape: Any = None, strides: Any = None, subok: bool = False, writeable: bool = True
) -> Any:  # (run as NumPy's function: the name below is looked up in NumPy's globals)
    return _ftransforms_as_strided(x, shape, strides, subok, writeable)  # noqa: F821


class _CodeSwap:
    """Sets a function's ``__code__`` as PATCHED_WHILE_ACTIVE updates a namespace: NumPy's
    ``as_strided`` object, which a name bound before the transform holds, forwards to
    :func:`as_strided` while a transform is active (one attribute store each way)."""

    def __init__(self, fn: Any) -> None:
        self.fn = fn

    def update(self, values: dict) -> None:
        self.fn.__code__ = values["__code__"]


_NUMPY_AS_STRIDED.__globals__["_ftransforms_as_strided"] = as_strided
PATCHED_WHILE_ACTIVE.append(
    (vars(numpy.lib.stride_tricks), {"as_strided": as_strided}, {"as_strided": _NUMPY_AS_STRIDED})
)
PATCHED_WHILE_ACTIVE.append(
    (
        _CodeSwap(_NUMPY_AS_STRIDED),  # type: ignore[arg-type]
        {"__code__": _forwarding.__code__},
        {"__code__": _NUMPY_CODE},
    )
)
