"""The NumPy protocol bridge: ``np.sin(tracer)``, ``np.sum(tracer)``, ``arr @ tracer``.

``__array_ufunc__`` maps a ufunc to the ``ftransforms.numpy`` function of the same name;
``__array_function__`` maps NumPy functions listed in :data:`FUNCTIONS`.  Anything else
raises :class:`UnsupportedOperationError` naming the function.
"""

from __future__ import annotations

from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import InPlaceError, UnsupportedOperationError

# ufunc.__name__ -> ftransforms.numpy name, where they differ.
_UFUNC_ALIASES = {"absolute": "abs", "conjugate": "conj", "bitwise_not": "invert"}
_REDUCE = {
    "add": "sum",
    "multiply": "prod",
    "maximum": "max",
    "minimum": "min",
    "logical_and": "all",
    "logical_or": "any",
}
_ACCUMULATE = {"add": "cumsum"}

#: numpy function names handled through __array_function__ (same name in fnp).
FUNCTION_NAMES = """
sum prod max min amax amin any all mean var std argmax argmin cumsum
reshape ravel transpose permute_dims moveaxis swapaxes squeeze expand_dims broadcast_to
broadcast_arrays atleast_1d atleast_2d concatenate stack vstack hstack split array_split
flip where clip round around take_along_axis take nonzero dot vdot inner outer tensordot
einsum trace zeros_like ones_like full_like empty_like copy shape ndim size result_type
allclose real imag conj conjugate fix
""".split()

FUNCTIONS: dict[Any, Any] = {
    getattr(numpy, n): getattr(fnp, n) for n in FUNCTION_NAMES if hasattr(numpy, n)
}
FUNCTIONS[numpy.linalg.norm] = fnp.linalg.norm


def handle_ufunc(ufunc: Any, method: str, inputs: tuple, kwargs: dict) -> Any:
    name = ufunc.__name__
    if kwargs.get("out") is not None:
        raise InPlaceError(
            f"numpy.{name}(..., out=...) with a tracer: tracers are immutable; use the "
            f"returned value instead of out="
        )
    kwargs.pop("out", None)
    dtype = kwargs.pop("dtype", None)
    if kwargs:
        raise UnsupportedOperationError(
            f"numpy.{name}: arguments {sorted(kwargs)} are not supported on tracers"
        )
    if method == "__call__":
        fn = getattr(fnp, _UFUNC_ALIASES.get(name, name), None)
        if fn is None:
            raise _unsupported(f"numpy.{name}")
        out = fn(*inputs)
    elif method == "reduce" and name in _REDUCE:
        x, *rest = inputs
        axis = rest[0] if rest else 0
        out = getattr(fnp, _REDUCE[name])(x, axis=axis)
    elif method == "accumulate" and name in _ACCUMULATE:
        x, *rest = inputs
        out = getattr(fnp, _ACCUMULATE[name])(x, axis=rest[0] if rest else 0)
    else:
        raise _unsupported(f"numpy.{name}.{method}")
    return out if dtype is None else fnp.astype(out, dtype)


def handle_function(func: Any, args: tuple, kwargs: dict) -> Any:
    fn = FUNCTIONS.get(func)
    if fn is None:
        module = getattr(func, "__module__", "numpy") or "numpy"
        module = "numpy" if module.startswith("numpy") and module.count(".") <= 1 else module
        raise _unsupported(f"{module}.{func.__name__}")
    return fn(*args, **kwargs)


def _unsupported(what: str) -> UnsupportedOperationError:
    return UnsupportedOperationError(
        f"{what} has no ftransforms rule, so it cannot run on a tracer (inside vmap, grad, "
        f"jvp, ...).  Write it with ftransforms.numpy operations that have rules, or declare "
        f"it as a primitive with ftransforms.defop."
    )
