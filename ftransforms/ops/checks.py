"""Checks on data that raise as NumPy and SciPy do, wherever they sit (eager, under every
transform, in a ``jit`` replay).

NOTE [finiteness checks]: ``np.asarray_chkfinite(x)`` and SciPy's ``check_finite=True``
(the default of ``scipy.linalg``) raise ``ValueError`` for an input that holds inf or
NaN.  Under a transform the check is :data:`check_finite_p`, a primitive with no outputs
that every ``jit`` replay keeps (``EFFECT_PRIMITIVES``), so the call whose data
holds a NaN raises on a replay as the eager call does, instead of computing with it.
Under ``vmap`` it checks the whole batch at once (a loop over the rows raises the same
error at the first bad row); it has no derivative (what it checks are primal values).
Its cost is NumPy's: one ``isfinite`` pass over the checked arrays.

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

from ftransforms.core.primitive import EFFECT_PRIMITIVES, defop

#: NumPy's and SciPy's message (both raise it from ``numpy.asarray_chkfinite``).
NOT_FINITE = "array must not contain infs or NaNs"


def _check_impl(xp: Any, *arrays: Any) -> tuple:
    for a in arrays:
        if a.dtype.kind in "fc" and not bool(xp.isfinite(a).all()):
            raise ValueError(NOT_FINITE)
    return ()


def _check_batch(prim: Any, vals: Any, bdims: Any, axis_size: int) -> tuple:  # noqa: ARG001
    prim.bind(*vals)  # every row at once
    return (), ()


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
