"""NumPy's compiled functions called on a NumPy object array of tracers.

NOTE [object arrays into NumPy's compiled functions]: ``np.array([[t, 1.0], [2.0, t]])``
is a NumPy object array of 0-d tracers (NumPy's semantics: tests/test_object_arrays.py),
and NumPy's object loops compute on it through the tracers' operators.  The functions of
``numpy.linalg`` and ``numpy.fft`` have no object loops, and an object array carries no
``__array_function__`` that could send the call to ``ftransforms.numpy``: NumPy raised its
own casting error (``np.linalg.det(np.array([[t, 1.0], [2.0, t]]))``, a hand-built
Jacobian in ``np.linalg.solve``, ``np.polynomial.polynomial.polyfit``'s ``lstsq``).  So
while a transform is active (the window ``core/mutation.py``'s ``PATCHED_WHILE_ACTIVE``
opens) the functions of those modules that run compiled loops are wrapped: an object-array
argument holding a tracer is turned into one traced array (``array_like``) and the call
made again, which NumPy then dispatches to ``ftransforms.numpy``.  Arguments without such
an array cost one type test each; nothing is wrapped outside the transforms (the wrapping
costs each outermost transform call 24 dict entries swapped in and out, about a
microsecond).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> ft.grad(lambda t: np.linalg.det(np.array([[t, 1.0], [2.0, t]])))(3.0)  # 2t
    array(6.)
"""

from __future__ import annotations

import functools
from typing import Any

import numpy
import numpy.polynomial.polyutils

from ftransforms.core.mutation import PATCHED_WHILE_ACTIVE
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.helpers import array_like, holds_tracer

__all__ = ["traced_object_arrays"]


def _object_with_tracer(value: Any) -> bool:
    return type(value) is numpy.ndarray and value.dtype.kind == "O" and holds_tracer(value)


def traced_object_arrays(original: Any) -> Any:
    """``original`` with its object-array arguments holding tracers made traced arrays
    (NOTE [object arrays into NumPy's compiled functions]).

    Example:
        >>> import numpy as np
        >>> inv = traced_object_arrays(np.linalg.inv)
        >>> inv(np.eye(2)).tolist()  # plain arguments reach NumPy's own function
        [[1.0, 0.0], [0.0, 1.0]]
    """

    @functools.wraps(original)
    def call(*args: Any, **kwargs: Any) -> Any:
        if any(_object_with_tracer(a) for a in args) or any(
            _object_with_tracer(v) for v in kwargs.values()
        ):
            args = tuple(array_like(a) if _object_with_tracer(a) else a for a in args)
            kwargs = {k: array_like(v) if _object_with_tracer(v) else v for k, v in kwargs.items()}
        return original(*args, **kwargs)

    return call


#: The functions whose compiled loops take no object arrays (the others of these modules
#: compute on object arrays through the tracers' operators, or never see one).
_COMPILED = {
    numpy.linalg: (
        "cholesky",
        "cond",
        "det",
        "eig",
        "eigh",
        "eigvals",
        "eigvalsh",
        "inv",
        "lstsq",
        "matrix_rank",
        "norm",
        "pinv",
        "qr",
        "slogdet",
        "solve",
        "svd",
    ),
    numpy.fft: ("fft", "ifft", "rfft", "irfft", "fft2", "ifft2", "fftn", "ifftn"),
}

for _module, _names in _COMPILED.items():
    _originals = {name: getattr(_module, name) for name in _names if hasattr(_module, name)}
    PATCHED_WHILE_ACTIVE.append(
        (
            vars(_module),
            {name: traced_object_arrays(fn) for name, fn in _originals.items()},
            _originals,
        )
    )


def _mapdomain(x: Any, old: Any, new: Any) -> Any:
    """``numpy.polynomial.polyutils.mapdomain`` (the affine map behind a series' ``roots()``,
    ``__call__`` and ``linspace``) of a traced ``x`` or an object array holding tracers:
    the traced array mapped (NumPy's ``asanyarray`` would make an object array of 0-d
    tracers, on which ``np.real`` of complex roots does nothing)."""
    if isinstance(x, Tracer) or _object_with_tracer(x):
        off, scl = numpy.polynomial.polyutils.mapparms(old, new)
        return off + scl * array_like(x)
    return _MAPDOMAIN(x, old, new)


_MAPDOMAIN = numpy.polynomial.polyutils.mapdomain
PATCHED_WHILE_ACTIVE.append(
    (
        vars(numpy.polynomial.polyutils),
        {"mapdomain": functools.wraps(_MAPDOMAIN)(_mapdomain)},
        {"mapdomain": _MAPDOMAIN},
    )
)
