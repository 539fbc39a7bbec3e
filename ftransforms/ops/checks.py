"""Checks on data that raise as NumPy and SciPy do, wherever they sit (eager, under every
transform, in a ``jit`` replay).

NOTE [finiteness checks]: ``np.asarray_chkfinite(x)`` and SciPy's ``check_finite=True``
(the default of ``scipy.linalg``) raise ``ValueError`` for an input that holds inf or
NaN.  Under a transform the check is :data:`check_finite_p`, a primitive with no outputs
that every ``jit`` replay keeps (``EFFECT_PRIMITIVES``), so the call whose data
holds a NaN raises on a replay as the eager call does, instead of computing with it.
Under ``vmap`` it checks the whole batch at once; where only some rows hold inf or NaN it
raises :class:`NotFiniteRows` (a ``ValueError`` naming which rows), and the vmap splits
the batch there (NOTE [errors of some rows] in interpreters/batching.py): a ``try: ...
except ValueError`` in the function takes its ``except`` branch for those rows only, as
the loop over the rows does.  It has no derivative (what it checks are primal values).
Its cost is NumPy's: one ``isfinite`` pass over the checked arrays (the rows are looked
at only when the batch fails).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> f = ft.jit(lambda x: np.asarray_chkfinite(x) * 2)
    >>> f(np.ones(2)).tolist()
    [2.0, 2.0]
    >>> f(np.array([1.0, np.nan]))
    Traceback (most recent call last):
    ...
    ValueError: array must not contain infs or NaNs
"""

from __future__ import annotations

from typing import Any

import numpy

from ftransforms.core.primitive import EFFECT_PRIMITIVES, defop

#: NumPy's and SciPy's message (both raise it from ``numpy.asarray_chkfinite``).
NOT_FINITE = "array must not contain infs or NaNs"


def _check_impl(xp: Any, *arrays: Any) -> tuple:
    for a in arrays:
        if a.dtype.kind in "fc" and not bool(xp.isfinite(a).all()):
            raise ValueError(NOT_FINITE)
    return ()


class NotFiniteRows(ValueError):
    """NumPy's ``ValueError`` for a batch of which only some rows hold inf or NaN:
    ``rows`` (a bool per row, True where the row fails; None: not known) tells the vmap
    how to split the batch (NOTE [finiteness checks])."""

    def __init__(self, rows: Any) -> None:
        super().__init__(NOT_FINITE)
        self.rows = rows


def _check_batch(prim: Any, vals: Any, bdims: Any, axis_size: int) -> tuple:
    try:
        prim.bind(*vals)  # every row at once
    except ValueError:
        if axis_size > 1:
            rows = _failing_rows(vals, bdims, axis_size)
            if rows is None or not rows.all():
                raise NotFiniteRows(rows) from None
        raise
    return (), ()


def _failing_rows(vals: Any, bdims: Any, axis_size: int) -> Any:
    """Which rows hold inf or NaN (a NumPy bool per row), None where a value is a lower
    transform's tracer (the vmap then splits the batch in halves)."""
    bad = numpy.zeros(axis_size, bool)
    for v, d in zip(vals, bdims):
        if not isinstance(v, numpy.ndarray) and not hasattr(v, "__cuda_array_interface__"):
            return None
        if v.dtype.kind not in "fc":
            continue
        host = numpy.asarray(v.get() if hasattr(v, "get") else v)
        if d is None:
            bad |= not bool(numpy.isfinite(host).all())
        else:
            rows = numpy.moveaxis(numpy.isfinite(host), d, 0).reshape(axis_size, -1)
            bad |= ~rows.all(axis=1)
    return bad


check_finite_p = defop(
    "check_finite",
    _check_impl,
    batch=_check_batch,
    nondiff=True,
    multiple_results=True,
    doc="Raise ValueError when an array holds inf or NaN (``check_finite``).",
)
EFFECT_PRIMITIVES.add(check_finite_p)


def check_finite(*arrays: Any) -> None:
    """Raise NumPy's ``ValueError`` when a floating or complex array among ``arrays``
    holds inf or NaN (NOTE [finiteness checks])."""
    check_finite_p.bind(*arrays)
