"""``numpy.nditer`` over traced arrays: each element a 0-d view of its array.

``np.nditer`` is NumPy's C iterator: it asks a tracer for a plain array and fails (a
read-only one for ``op_flags=['readwrite']``).  While a transform is active
``numpy.nditer`` is :func:`nditer` here, which hands every call without a traced operand
to NumPy's own iterator; with one it iterates the broadcast shape in NumPy's order
(``'K'``: the first full-shape operand's memory order, so ``a.T`` runs as ``a`` is laid
out; ``'C'``, ``'F'``) and yields, per step, 0-d views of the operands' elements (a tuple
for several operands): ``v[...] = 2 * v + 1`` writes into the array (NOTE [mutation
semantics] in core/mutation.py), and a ``readonly`` operand's views refuse writes as
NumPy's do.  ``None`` operands are allocated (``op_flags`` ``allocate``, by default for
them) and read back from ``it.operands``.  ``multi_index``, ``c_index``/``f_index``
(``it.index``), ``external_loop`` (1-d chunks), ``iternext``/``finished``/``it[i]``,
``reset`` and the context manager are kept; ``op_axes``/``itershape`` are not.  A copy
bound earlier by ``from numpy import nditer`` stays NumPy's.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> def double_plus_one(x):
    ...     a = x * 1.0
    ...     with np.nditer(a, op_flags=["readwrite"]) as it:
    ...         for v in it:
    ...             v[...] = 2 * v + 1
    ...     return a
    >>> ft.vmap(double_plus_one)(np.arange(4.0).reshape(2, 2))
    array([[1., 3.],
           [5., 7.]])
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy

from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.mutation import (
    PATCHED_WHILE_ACTIVE,
    Buffer,
    buffer_scope,
    make_view,
    read_only,
)
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.dtypes import result_type
from ftransforms.numpy.helpers import dtype_of, shape
from ftransforms.numpy.indexing import getitem, take
from ftransforms.numpy.inplace import _element_ids, updated
from ftransforms.numpy.manipulation import ravel, reshape
from ftransforms.numpy.ufuncs import astype

__all__: list[str] = []  # nothing joins fnp: numpy.nditer is the name

_NUMPY_NDITER = numpy.nditer
_WRITES = frozenset({"readwrite", "writeonly"})


def nditer(
    op: Any,
    flags: Any = None,
    op_flags: Any = None,
    op_dtypes: Any = None,
    order: str = "K",
    casting: str = "safe",
    op_axes: Any = None,
    itershape: Any = None,
    buffersize: int = 0,
) -> Any:
    """``numpy.nditer(op, ...)``: NumPy's iterator, or where an operand is a tracer the
    iterator of 0-d views described in the module doc."""
    ops = list(op) if isinstance(op, (list, tuple)) else [op]
    if not any(isinstance(o, Tracer) for o in ops):
        return _NUMPY_NDITER(
            op, flags, op_flags, op_dtypes, order, casting, op_axes, itershape, buffersize
        )
    if op_axes is not None or itershape is not None:
        raise UnsupportedOperationError(
            "numpy.nditer(..., op_axes=/itershape=) over a traced array is not supported; "
            "broadcast the operands to one shape first (np.broadcast_to)"
        )
    return TracedIterator(ops, flags, op_flags, op_dtypes, order, single=len(ops) == 1)


class TracedIterator:
    """What :func:`nditer` returns for traced operands (see the module doc)."""

    def __init__(
        self, ops: list, flags: Any, op_flags: Any, op_dtypes: Any, order: str, single: bool
    ) -> None:
        self._flags = set(flags or ())
        self._single = single
        per_op = _op_flags(op_flags, ops)
        dtypes = list(op_dtypes) if isinstance(op_dtypes, (list, tuple)) else [op_dtypes] * len(ops)
        given = [o for o in ops if o is not None]
        self.shape = tuple(numpy.broadcast_shapes(*(shape(o) for o in given)))
        operands = []
        for o, f, dt in zip(ops, per_op, dtypes):
            if o is None:
                if "allocate" not in f:
                    raise ValueError("Iterator operand 1 is None, but no 'allocate' flag given")
                dt = dt if dt is not None else result_type(*given)
                o = Buffer(buffer_scope(), numpy.zeros(self.shape, dt))
            elif dt is not None and numpy.dtype(dt) != dtype_of(o):
                if f & _WRITES:
                    raise UnsupportedOperationError(
                        "numpy.nditer over a traced array: op_dtypes= for a written operand "
                        "is not supported; cast the array first (a.astype(dtype))"
                    )
                o = astype(o, dt)
            if f & _WRITES:
                if shape(o) != self.shape:
                    raise ValueError(
                        f"non-broadcastable output operand with shape {shape(o)} doesn't "
                        f"match the broadcast shape {self.shape}"
                    )
                if not _writeable(o):
                    raise ValueError("operand array with iterator write flag set is read-only")
            operands.append(o)
        self.operands = tuple(operands)
        self._writes = [bool(f & _WRITES) for f in per_op]
        self._order = _positions(self.shape, order, operands)
        self._external = "external_loop" in self._flags
        if self._external:
            self._chunks = _chunks(self._order, self.shape, order, operands)
        self.itersize = len(self._order)
        self.ndim = len(self.shape)
        self.nop = len(operands)
        self.reset()

    # -- the iteration -------------------------------------------------------------------

    def reset(self) -> None:
        self._at, self._started = 0, False

    @property
    def finished(self) -> bool:
        return self._at >= self._steps()

    def _steps(self) -> int:
        return len(self._chunks) if self._external else len(self._order)

    def iternext(self) -> bool:
        self._at += 1
        self._started = True
        return not self.finished

    def __iter__(self) -> TracedIterator:
        return self

    def __next__(self) -> Any:
        if self._started:
            self._at += 1
        self._started = True
        if self.finished:
            raise StopIteration
        return self.value

    @property
    def value(self) -> Any:
        values = tuple(self[i] for i in range(self.nop))
        return values[0] if self._single else values

    def __setitem__(self, i: int, value: Any) -> None:
        self[i][...] = value

    def __getitem__(self, i: int) -> Any:
        if self._external:
            return _chunk(self.operands[i], self._chunks[self._at], self.shape, self._writes[i])
        return _element(self.operands[i], self._order[self._at], self.shape, self._writes[i])

    # -- where it is -----------------------------------------------------------------------

    @property
    def multi_index(self) -> tuple:
        if "multi_index" not in self._flags:
            raise ValueError("Iterator is not tracking a multi-index")
        return self._order[self._at]

    @property
    def index(self) -> int:
        idx = self._order[self._at]
        if "c_index" in self._flags:
            return int(numpy.ravel_multi_index(idx, self.shape)) if idx else 0
        if "f_index" in self._flags:
            return int(numpy.ravel_multi_index(idx, self.shape, order="F")) if idx else 0
        raise ValueError("Iterator does not have an index")

    def __enter__(self) -> TracedIterator:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        pass  # the writes reached the arrays as they were made


def _op_flags(op_flags: Any, ops: list) -> list[frozenset]:
    """Each operand's flags: NumPy's defaults (``readonly``; ``writeonly``+``allocate`` for
    a None operand), one list for every operand, or a list per operand."""
    if op_flags is None:
        return [
            frozenset({"writeonly", "allocate"}) if o is None else frozenset({"readonly"})
            for o in ops
        ]
    if all(isinstance(f, str) for f in op_flags):
        return [frozenset(op_flags)] * len(ops)
    return [frozenset(f) for f in op_flags]


def _writeable(o: Any) -> bool:
    if isinstance(o, Tracer):
        return bool(o.flags.writeable)
    return bool(getattr(o, "flags", None) is None or o.flags.writeable)


def _memory_order(o: Any) -> Any:
    """Where each element of ``o`` lies in memory (a number per element), or None."""
    if isinstance(o, Tracer):
        return numpy.asarray(_element_ids(o)[1][: math.prod(shape(o))]).reshape(shape(o))
    if isinstance(o, numpy.ndarray):
        offsets = numpy.zeros(o.shape, dtype=numpy.int64)
        for axis, (n, stride) in enumerate(zip(o.shape, o.strides)):
            steps = numpy.arange(n, dtype=numpy.int64) * stride
            offsets = offsets + steps.reshape((n,) + (1,) * (o.ndim - axis - 1))
        return offsets
    return None


def _positions(full: tuple, order: str, operands: list) -> list[tuple]:
    """The multi-indices of the broadcast shape ``full`` in the iteration order."""
    c_order = list(itertools.product(*(range(n) for n in full)))
    if order == "F":
        return [idx[::-1] for idx in itertools.product(*(range(n) for n in full[::-1]))]
    if order == "K":
        first = next((o for o in operands if shape(o) == full), None)
        memory = _memory_order(first) if first is not None else None
        if memory is not None and memory.size:
            by_memory = numpy.argsort(memory.ravel(), kind="stable")
            return [c_order[k] for k in by_memory]
    return c_order


def _chunks(positions: list, full: tuple, order: str, operands: list) -> list[list[tuple]]:
    """``external_loop``'s 1-d chunks: the whole iteration where the order is C (the arrays
    of a traced program are laid out in it), else runs along the fastest axis."""
    if not full or positions == list(itertools.product(*(range(n) for n in full))):
        return [positions]
    n = full[0] if order == "F" else full[-1]
    return [positions[k : k + n] for k in range(0, len(positions), max(n, 1))]


def _operand_index(idx: tuple, full: tuple, own: tuple) -> tuple:
    """``idx`` of the broadcast shape as an index of an operand of shape ``own``."""
    lead = len(full) - len(own)
    return tuple(0 if n == 1 else i for i, n in zip(idx[lead:], own))


def _element(o: Any, idx: tuple, full: tuple, writes: bool) -> Any:
    """The 0-d view of ``o``'s element at ``idx`` (read-only unless ``writes``)."""
    at = _operand_index(idx, full, shape(o)) + (Ellipsis,)
    if not isinstance(o, Tracer):
        out = o[at]
        if not writes and isinstance(out, numpy.ndarray):
            out = out.view()
            out.flags.writeable = False
        return out
    out = getitem(o, at)
    return make_view(
        o,
        out if isinstance(out, Tracer) else numpy.asarray(out),  # (a buffer's element)
        lambda p: getitem(p, at),
        (lambda p, v: updated(p, at, v)) if writes else read_only,
    )


def _chunk(o: Any, idxs: list, full: tuple, writes: bool) -> Any:
    """The 1-d view of ``o``'s elements at the multi-indices ``idxs`` (``external_loop``)."""
    own = shape(o)
    flat = numpy.array(
        [numpy.ravel_multi_index(_operand_index(i, full, own), own) if own else 0 for i in idxs],
        dtype=numpy.intp,
    )
    if not isinstance(o, Tracer):
        run = flat.size and numpy.array_equal(flat, numpy.arange(flat[0], flat[0] + flat.size))
        if writes and not (run and o.flags.c_contiguous):
            raise UnsupportedOperationError(
                "numpy.nditer(..., flags=['external_loop']) writing a NumPy array beside a "
                "traced one: only its contiguous runs are views; iterate without "
                "external_loop"
            )
        return o.reshape(-1)[flat[0] : flat[0] + flat.size] if run else o.reshape(-1)[flat]

    def forward(p: Any) -> Any:
        return take(ravel(p), flat)

    def inverse(p: Any, v: Any) -> Any:
        return reshape(updated(ravel(p), flat, v), shape(p))

    return make_view(o, forward(o), forward, inverse if writes else read_only)


PATCHED_WHILE_ACTIVE.append((vars(numpy), {"nditer": nditer}, {"nditer": _NUMPY_NDITER}))
