"""The NumPy protocol bridge: ``np.sin(tracer)``, ``np.sum(tracer)``, ``arr @ tracer``.

``__array_ufunc__`` maps a ufunc to the ``ftransforms.numpy`` function of the same name;
``__array_function__`` maps NumPy functions listed in :data:`FUNCTIONS`.  Anything else
raises :class:`UnsupportedOperationError` naming the function.
"""

from __future__ import annotations

import itertools
import sys
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import InPlaceError, UnsupportedOperationError
from ftransforms.core.tracer import Tracer

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
_ACCUMULATE = {"add": "cumsum", "multiply": "cumprod"}

#: numpy function names handled through __array_function__ (same name in fnp).
FUNCTION_NAMES = """
sum prod max min amax amin any all mean var std argmax argmin cumsum
reshape ravel transpose permute_dims moveaxis swapaxes squeeze expand_dims broadcast_to
broadcast_arrays atleast_1d atleast_2d concatenate stack vstack hstack split array_split
flip where clip round around take_along_axis take nonzero dot vdot inner outer tensordot
einsum trace zeros_like ones_like full_like empty_like copy shape ndim size result_type
allclose real imag conj conjugate fix astype
""".split()
# ... and those of ftransforms/numpy/_more.py.
FUNCTION_NAMES += """
sinc nan_to_num cumprod average ptp nansum nanmean nanmax nanmin tile repeat fliplr flipud
roll rot90 pad diagonal diag triu tril meshgrid dstack column_stack atleast_3d sort argsort
partition argpartition searchsorted select
""".split()

# Composites of ops that have every rule (ftransforms/numpy/_extra.py) and the in-place
# functions, which raise InPlaceError with the functional fix.
FUNCTION_NAMES += """
angle diff cross isclose count_nonzero hsplit vsplit dsplit rollaxis matrix_transpose
cumulative_sum cumulative_prod nanprod nanvar nanstd median trapezoid isposinf isneginf
isreal iscomplex isrealobj iscomplexobj append copyto put putmask place fill_diagonal
put_along_axis
""".split()
# ... and those of ftransforms/numpy/_quantiles.py, _statistics.py, _signal.py,
# _polynomials.py and _builders.py (statistics, polynomials, signals, builders).
FUNCTION_NAMES += """
percentile quantile nanpercentile nanquantile nanmedian cov corrcoef interp convolve correlate
polyval polyder polyint polyadd polysub polymul vander diagflat block unstack resize delete
insert trim_zeros ediff1d gradient geomspace logspace bincount digitize isin histogram
""".split()
# ... and those of ftransforms/numpy/_sets_and_indices.py (NaN-aware arg-reductions and
# cumulations, indices, unwrap, whole-array comparisons, sorted sets).
FUNCTION_NAMES += """
nanargmax nanargmin nancumsum nancumprod argwhere flatnonzero diag_indices_from
tril_indices_from triu_indices_from ravel_multi_index unravel_index unwrap sort_complex
real_if_close array_equal array_equiv unique union1d intersect1d setdiff1d setxor1d
""".split()

FUNCTIONS: dict[Any, Any] = {
    getattr(numpy, n): getattr(fnp, n) for n in FUNCTION_NAMES if hasattr(numpy, n)
}
FUNCTIONS[numpy.linalg.norm] = fnp.linalg.norm

#: numpy.linalg function names handled through __array_function__ (same name in fnp.linalg).
LINALG_NAMES = """
inv solve det slogdet cholesky eigh eigvalsh eig eigvals svd svdvals qr pinv matrix_power lstsq
norm matrix_norm vector_norm cond matrix_rank multi_dot matmul matrix_transpose outer
tensordot diagonal trace tensorsolve tensorinv
""".split()
FUNCTIONS.update(
    {
        getattr(numpy.linalg, n): getattr(fnp.linalg, n)
        for n in LINALG_NAMES
        if hasattr(numpy.linalg, n)
    }
)
#: numpy.fft functions handled through __array_function__ (same name in fnp.fft); fftfreq
#: and rfftfreq take no array, so NumPy never dispatches them.
FFT_NAMES = """
fft ifft rfft irfft hfft ihfft fft2 ifft2 rfft2 irfft2 fftn ifftn rfftn irfftn fftshift ifftshift
""".split()
FUNCTIONS.update({getattr(numpy.fft, n): getattr(fnp.fft, n) for n in FFT_NAMES})
FUNCTIONS[numpy.kron] = fnp.kron
FUNCTIONS[numpy.linspace] = fnp.linspace_traced
FUNCTIONS[numpy.linalg.vecdot] = fnp.vecdot
FUNCTIONS[numpy.linalg.cross] = fnp.cross
if hasattr(numpy, "vecdot"):
    FUNCTIONS[numpy.vecdot] = fnp.vecdot


def _call_form(values: Any) -> str:
    """``"vmap(f, in_dims=0): "`` for the innermost transform among ``values``' tracers."""
    top = None
    todo = [values]
    while todo:
        v = todo.pop()
        if isinstance(v, Tracer):
            if top is None or v._interp.level > top._interp.level:
                top = v
        elif isinstance(v, (tuple, list)):
            todo.extend(v)
        elif isinstance(v, dict):
            todo.extend(v.values())
    return f"{top._interp.name}: " if top is not None else ""


def handle_ufunc(ufunc: Any, method: str, inputs: tuple, kwargs: dict) -> Any:
    name = ufunc.__name__
    if kwargs.get("out") is not None:
        raise InPlaceError(
            f"{_call_form((inputs, kwargs))}numpy.{name}(..., out=...) with a tracer (also "
            f"what `a += x` does for a NumPy array a): tracers are immutable and cannot be "
            f"written into; use the returned value instead of out= (write a = a + x)."
        )
    kwargs.pop("out", None)
    dtype = kwargs.pop("dtype", None)
    if method in ("reduce", "accumulate"):
        axis = kwargs.pop("axis", 0)
        keepdims = kwargs.pop("keepdims", False) if method == "reduce" else False
    if kwargs:
        raise UnsupportedOperationError(
            f"{_call_form(inputs)}numpy.{name}: arguments {sorted(kwargs)} are not supported "
            f"on tracers; call it without them (fnp.where(mask, a, b) replaces where=)"
        )
    if method == "__call__":
        fn = getattr(fnp, _UFUNC_ALIASES.get(name, name), None) or _scipy_special_ufunc(ufunc)
        if fn is None:
            raise _unsupported(f"numpy.{name}", inputs)
        out = fn(*inputs)
    elif method == "reduce" and name in _REDUCE:
        out = getattr(fnp, _REDUCE[name])(inputs[0], axis=axis, keepdims=keepdims)
    elif method == "accumulate" and name in _ACCUMULATE:
        out = getattr(fnp, _ACCUMULATE[name])(inputs[0], axis=axis)
    else:
        raise _unsupported(f"numpy.{name}.{method}", inputs)
    return out if dtype is None else fnp.astype(out, dtype)


def _scipy_special_ufunc(ufunc: Any) -> Any:
    """The ``ftransforms.scipy.special`` function for a ``scipy.special`` ufunc, or None."""
    sp = sys.modules.get("scipy.special")
    if sp is None or getattr(sp, ufunc.__name__, None) is not ufunc:
        return None
    from ftransforms.scipy import special  # noqa: PLC0415

    return special.UFUNCS.get(ufunc.__name__)


def handle_function(func: Any, args: tuple, kwargs: dict) -> Any:
    fn = FUNCTIONS.get(func)
    if fn is None:
        # The public module: numpy.linalg for numpy.linalg._linalg, numpy for numpy._core.
        parts = (getattr(func, "__module__", None) or "numpy").split(".")
        public = list(itertools.takewhile(lambda p: not p.startswith("_"), parts))
        raise _unsupported(f"{'.'.join(public) or 'numpy'}.{func.__name__}", (args, kwargs))
    return fn(*args, **kwargs)


def _unsupported(what: str, values: Any = ()) -> UnsupportedOperationError:
    return UnsupportedOperationError(
        f"{_call_form(values)}{what} has no ftransforms rule, so it cannot run on a tracer "
        f"(inside vmap, grad, jvp, ...).  Write it with ftransforms.numpy operations that "
        f"have rules, or declare it as a primitive with ftransforms.defop."
    )
