"""NumPy's index tricks on tracers: ``r_``, ``c_``, ``s_``, ``ix_`` (NumPy's "Indexing
routines: generating index arrays").

NOTE [np.r_ on tracers]: ``numpy.r_[...]`` and ``numpy.c_[...]`` are objects whose
``__getitem__`` converts every piece with ``numpy.array`` (no ``__array_function__``
dispatch), which would detach a tracer.  Importing ftransforms therefore gives NumPy's own
``r_`` and ``c_`` objects a subclass (``__class__`` assignment; same slots) whose
``__getitem__`` hands a key holding a tracer to :data:`r_`/:data:`c_` here and anything
else to NumPy unchanged, so unmodified ``np.r_[t, 0.0, t2]`` keeps the tracer.  The
matrix directives (``'r'``, ``'c'``) and the string form (``np.r_['1, 2; 3, 4']``) build
``numpy.matrix`` objects and stay NumPy-only.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy
import numpy.lib._index_tricks_impl as _np_index_tricks

from ftransforms.core.errors import BatchedControlFlowError, UnsupportedOperationError
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.creation import as_operand
from ftransforms.numpy.dispatch import implements
from ftransforms.numpy.helpers import concrete_arg, dtype_of, holds_tracer, ndim, shape
from ftransforms.numpy.manipulation import concatenate, reshape, transpose
from ftransforms.numpy.ufuncs import astype

__all__ = ["r_", "c_", "s_", "ix_", "index_exp"]

s_ = numpy.s_
index_exp = numpy.index_exp


class AxisConcatenator:
    """``fnp.r_`` / ``fnp.c_``: NumPy's concatenation by index syntax, keeping tracers.

    Pieces are arrays, tracers, (nested) lists holding tracers, Python or NumPy scalars,
    and slices (``1:3`` is ``arange(1, 3)``, ``0:1:5j`` is ``linspace(0, 1, 5)``); a first
    string ``'axis'``, ``'axis,ndmin'`` or ``'axis,ndmin,trans1d'`` sets the layout as in
    NumPy.

    Example:
        >>> import numpy as np
        >>> from ftransforms import grad
        >>> grad(lambda t: r_[t, 0.0, 1:3].sum())(np.ones(2))
        array([1., 1.])
    """

    def __init__(self, axis: int = 0, ndmin: int = 1, trans1d: int = -1, name: str = "r_"):
        self.axis, self.ndmin, self.trans1d, self.name = axis, ndmin, trans1d, name

    def __getitem__(self, key: Any) -> Any:
        form = f"fnp.{self.name}[...]"
        if isinstance(key, str):
            raise UnsupportedOperationError(
                f"{form} with a string key builds a numpy.matrix, which cannot hold tracers; "
                f"list the pieces instead: {self.name}[a, b]"
            )
        key = key if isinstance(key, tuple) else (key,)
        axis, ndmin, trans1d = self.axis, self.ndmin, self.trans1d
        pieces: list[Any] = []
        kinds: list[Any] = []  # dtypes, and Python/NumPy scalars for weak promotion
        like = next((v for v in key if holds_tracer(v)), None)
        for k, item in enumerate(key):
            if isinstance(item, str):
                if k != 0:
                    raise ValueError(f"{form}: special directives must be the first entry")
                axis, ndmin, trans1d = _directive(item, form, ndmin, trans1d)
                continue
            if isinstance(item, slice):
                piece = _slice_range(item, form)
                if ndmin > 1:
                    piece = piece.reshape((1,) * (ndmin - 1) + piece.shape)
                    if trans1d != -1:
                        piece = piece.swapaxes(-1, trans1d)
                kinds.append(piece.dtype)
            elif isinstance(item, (bool, int, float, complex, numpy.generic)):
                piece = item
                kinds.append(item)
            else:
                piece = as_operand(item) if holds_tracer(item) or _is_array(item) else item
                piece = numpy.asarray(piece) if not _is_array(piece) else piece
                piece = _with_ndmin(piece, ndmin, trans1d)
                kinds.append(dtype_of(piece))
            pieces.append(piece)
        if not pieces:
            return numpy.array([])
        dt = numpy.result_type(*kinds)
        like = next((p for p in pieces if _is_array(p) and type(p) is not numpy.ndarray), like)
        arrays = []
        for piece in pieces:
            piece = as_operand(piece if _is_array(piece) else numpy.asarray(piece), like)
            piece = _with_ndmin(piece, ndmin, -1)
            arrays.append(piece if dtype_of(piece) == dt else astype(piece, dt))
        return concatenate(arrays, axis=axis)

    def __len__(self) -> int:
        return 0


def _is_array(x: Any) -> bool:
    """A tracer or a backend (NumPy/CuPy) array."""
    return hasattr(x, "dtype") and hasattr(x, "shape") and not isinstance(x, numpy.generic)


def _directive(item: str, form: str, ndmin: int, trans1d: int) -> tuple[int, int, int]:
    if item in ("r", "c"):
        raise UnsupportedOperationError(
            f"{form}: the {item!r} directive builds a numpy.matrix, which cannot hold "
            f"tracers; leave it out (fnp arrays are 2-d with '0,2' / '1,2' directives)"
        )
    try:
        parts = [int(p) for p in item.split(",")]
    except ValueError:
        raise ValueError(f"{form}: unknown special directive {item!r}") from None
    if len(parts) > 3:
        raise ValueError(f"{form}: unknown special directive {item!r}")
    axis = parts[0]
    ndmin = parts[1] if len(parts) > 1 else ndmin
    trans1d = parts[2] if len(parts) > 2 else trans1d
    return axis, ndmin, trans1d


def _slice_range(item: slice, form: str) -> numpy.ndarray:
    start = 0 if item.start is None else item.start
    step = 1 if item.step is None else item.step
    if any(isinstance(v, Tracer) for v in (start, item.stop, step)):
        raise UnsupportedOperationError(
            f"{form}: a slice {item!r} with a traced bound decides the length of the result; "
            f"use fnp.arange/fnp.linspace with concrete bounds"
        )
    if isinstance(step, (complex, numpy.complexfloating)):
        return numpy.linspace(start, item.stop, num=int(abs(step)))
    return numpy.arange(start, item.stop, step)


def _with_ndmin(piece: Any, ndmin: int, trans1d: int) -> Any:
    """``piece`` with at least ``ndmin`` axes, new axes placed as NumPy's ``trans1d`` says."""
    rank = ndim(piece)
    if rank >= ndmin:
        return piece
    new = reshape(piece, (1,) * (ndmin - rank) + shape(piece))
    if trans1d == -1:
        return new
    k2, k1 = ndmin - rank, trans1d
    if k1 < 0:
        k1 += k2 + 1
    axes = list(range(ndmin))
    return transpose(new, axes[:k1] + axes[k2:] + axes[k1:k2])


r_ = AxisConcatenator(0, 1, -1, "r_")
c_ = AxisConcatenator(-1, 2, 0, "c_")


@implements(numpy.ix_)
def ix_(*args: Any) -> tuple[Any, ...]:
    """``numpy.ix_``: open-mesh index arrays from 1-d integer or boolean sequences.

    Index arrays have no derivative; traced ones (under ``grad``/``jvp``) are read as
    their values.  Under ``vmap`` an index array that differs across the batch has no
    single value: index with broadcasting arrays instead (``x[i[:, None], j]``).

    Example:
        >>> import numpy as np
        >>> x = np.arange(9.0).reshape(3, 3)
        >>> x[ix_([0, 2], [1])].tolist()
        [[1.0], [7.0]]
    """
    out = []
    nd = len(args)
    for k, seq in enumerate(args):
        if isinstance(seq, Tracer):
            try:
                seq = concrete_arg(seq, "ix_")
            except BatchedControlFlowError:
                raise BatchedControlFlowError(
                    f"vmap: numpy.ix_ with index array {k} batched: its values differ across "
                    f"the batch and ix_ builds one set of index arrays; index with "
                    f"broadcasting arrays instead, x[i[:, None], j]"
                ) from None
        arr = seq if hasattr(seq, "dtype") else numpy.asarray(seq)
        if len(getattr(arr, "shape", ())) != 1:
            raise ValueError(f"ix_: cross index must be 1 dimensional, got {arr.shape}")
        if arr.size == 0 and not hasattr(seq, "dtype"):
            arr = arr.astype(numpy.intp)
        if arr.dtype.kind == "b":
            arr = arr.nonzero()[0]
        elif arr.dtype.kind not in "iu":
            raise TypeError(
                f"ix_: index array {k} has dtype {arr.dtype}; pass integer or boolean arrays"
            )
        out.append(arr.reshape((1,) * k + (arr.size,) + (1,) * (nd - k - 1)))
    return tuple(out)


# NOTE [np.r_ on tracers]: the subclasses that NumPy's r_/c_ objects are given.
class _TracingRClass(_np_index_tricks.RClass):
    __slots__ = ()

    def __getitem__(self, key: Any) -> Any:
        parts = key if isinstance(key, tuple) else (key,)
        if builtins.any(holds_tracer(p) for p in parts):
            return r_[key]
        return super().__getitem__(key)


class _TracingCClass(_np_index_tricks.CClass):
    __slots__ = ()

    def __getitem__(self, key: Any) -> Any:
        parts = key if isinstance(key, tuple) else (key,)
        if builtins.any(holds_tracer(p) for p in parts):
            return c_[key]
        return super().__getitem__(key)


if type(numpy.r_) is _np_index_tricks.RClass:
    numpy.r_.__class__ = _TracingRClass
if type(numpy.c_) is _np_index_tricks.CClass:
    numpy.c_.__class__ = _TracingCClass
