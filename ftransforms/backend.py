"""Array backends: pick ``xp`` (numpy or cupy) from the arguments of an operation.

NumPy is the default.  CuPy is used when any argument is a ``cupy.ndarray``; it is never
imported unless such an array is seen.  Other array types can be registered with
:func:`register_backend` (the test suite registers a strict numpy-backed stand-in for CuPy).

Example:
    >>> import numpy as np
    >>> from ftransforms.backend import namespace_of
    >>> namespace_of(np.ones(3)) is np
    True
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy

from ftransforms.core.errors import MixedBackendError

# Array type -> namespace module.  numpy first; others are added on first sight.
_NAMESPACES: dict[type, ModuleType] = {numpy.ndarray: numpy}
_NUMPY_SCALARS = (numpy.generic, int, float, complex, bool)
#: Types found to be no array (what ``jit``'s guards ask of every value they hold).
_NOT_ARRAYS: set[type] = set()


def register_backend(array_type: type, namespace: ModuleType) -> None:
    """Make arrays of ``array_type`` run their primitives through ``namespace``."""
    _NAMESPACES[array_type] = namespace
    _NOT_ARRAYS.clear()


def _lookup(t: type) -> ModuleType | None:
    ns = _NAMESPACES.get(t)
    if ns is not None:
        return ns
    if t in _NOT_ARRAYS:
        return None
    if t.__module__.startswith("cupy"):
        import cupy  # noqa: PLC0415  (optional dependency, imported on first cupy array)

        register_backend(t, cupy)
        return cupy
    for base, ns in list(_NAMESPACES.items()):
        if issubclass(t, base):
            _NAMESPACES[t] = ns
            return ns
    _NOT_ARRAYS.add(t)
    return None


def namespace_of(*values: Any) -> ModuleType:
    """The array namespace of ``values`` (numpy when none is an array).

    Raises :class:`MixedBackendError` when arrays of two namespaces are mixed.
    """
    found = None
    for v in values:
        t = type(v)
        if t is numpy.ndarray:
            ns = numpy
        elif isinstance(v, _NUMPY_SCALARS) or v is None:
            continue
        else:
            ns = _lookup(t)
            if ns is None:
                continue
        if found is None:
            found = ns
        elif ns is not found:
            a, b = found.__name__, ns.__name__
            fix = (
                "cupy.asarray(x) to the GPU, x.get() to the host"
                if "cupy" in (a, b)
                else f"e.g. {a}.asarray(x) or {b}.asarray(x)"
            )
            raise MixedBackendError(
                f"cannot mix {a} and {b} arrays in one operation; move them to one "
                f"backend/device first ({fix})."
            )
    return found if found is not None else numpy


def is_array(value: Any) -> bool:
    """True for a backend array (numpy or a registered/cupy type), false for scalars."""
    t = type(value)
    return t is numpy.ndarray or (not isinstance(value, _NUMPY_SCALARS) and _lookup(t) is not None)


def asarray(value: Any, xp: ModuleType | None = None) -> Any:
    """``value`` as an array of ``xp`` (default: numpy), without copying arrays."""
    xp = xp or namespace_of(value)
    return xp.asarray(value)
