"""``ftransforms.numpy`` (``fnp``): NumPy's API over arrays and tracers.

Every function here works on numpy/cupy arrays, Python scalars and tracers alike, and is
what tracers' operators, methods and the NumPy protocols call.  With no transform active
the cost over the NumPy call is one ``Primitive.bind``.

This module only re-exports.  The functions live in one module per chapter of NumPy's
reference, each importing only the chapters listed before it here (so no import cycle)::

    dtypes, helpers       constants, dtype objects; shared helpers (``dtype_of``, ...)
    ufuncs                the ufuncs (primitives), casting, rounding, complex parts, clip
    manipulation          reshape, transpose, broadcast, concatenate, stack
    creation              asarray/array, zeros/ones/full(_like), eye
    indexing              x[i], x.at[i], take, where, nonzero, index builders
    reductions            sum/prod/max/min/mean/var/std, nan*, cumulative, diff
    logic                 allclose, isclose, array_equal, isreal, ...
    mathematical          hypot, logaddexp, copysign, ldexp, fmax, sinc, nan_to_num, angle
    sorting               sort, argsort, partition, searchsorted, argwhere
    rearranging           split, flip, roll, tile, repeat, pad, block, insert, delete
    ranges, matrices      arange/linspace/logspace/meshgrid; diag, tril/triu, vander
    products              matmul, dot, einsum, tensordot, kron, cross, trace
    sets, statistics      unique, union1d, ...; median, quantile, cov, histogram, ...
    signal, polynomials   convolve, interp, gradient, unwrap; polyval, polymul, ...
    linalg, fft           the numpy.linalg and numpy.fft namespaces
    index_tricks          r_, c_, s_, ix_ (and NumPy's own r_/c_ made to keep tracers)
    functional            apply_along_axis, apply_over_axes, piecewise
    ufunc_methods         a ufunc's outer/reduce/accumulate for any binary function (no
                          names of its own in fnp: numpy.<ufunc>.<method>(tracer) uses it)

:mod:`~ftransforms.numpy.dispatch` holds ``@implements(numpy.foo)``, which each function
carries where it is defined to answer ``numpy.foo(tracer)``; :mod:`~ftransforms.numpy.protocol`
is the ``__array_ufunc__``/``__array_function__`` bridge, and
:mod:`~ftransforms.numpy.array_methods` installs the tracer's operators and methods.
One import goes against that order, function-locally: ``concatenate`` of nested lists
calls :func:`~ftransforms.numpy.creation.asarray`.

Example:
    >>> import numpy as np
    >>> import ftransforms.numpy as fnp
    >>> from ftransforms import grad
    >>> float(grad(lambda x: fnp.sum(fnp.sin(x) ** 2))(np.zeros(3))[0])
    0.0
"""

from __future__ import annotations

from ftransforms.numpy.creation import *  # noqa: F403
from ftransforms.numpy.dtypes import *  # noqa: F403
from ftransforms.numpy.functional import *  # noqa: F403
from ftransforms.numpy.helpers import *  # noqa: F403
from ftransforms.numpy.index_tricks import *  # noqa: F403
from ftransforms.numpy.indexing import *  # noqa: F403
from ftransforms.numpy.logic import *  # noqa: F403
from ftransforms.numpy.manipulation import *  # noqa: F403
from ftransforms.numpy.mathematical import *  # noqa: F403
from ftransforms.numpy.matrices import *  # noqa: F403
from ftransforms.numpy.polynomials import *  # noqa: F403
from ftransforms.numpy.products import *  # noqa: F403
from ftransforms.numpy.ranges import *  # noqa: F403
from ftransforms.numpy.rearranging import *  # noqa: F403
from ftransforms.numpy.reductions import *  # noqa: F403
from ftransforms.numpy.sets import *  # noqa: F403
from ftransforms.numpy.signal import *  # noqa: F403
from ftransforms.numpy.sorting import *  # noqa: F403
from ftransforms.numpy.statistics import *  # noqa: F403
from ftransforms.numpy.ufuncs import *  # noqa: F403

# isort: split
import sys as _sys  # noqa: E402

import numpy as _numpy  # noqa: E402  (NOTE [NumPy's other names], at the end)
from numpy import random  # noqa: E402

from ftransforms.numpy import (  # noqa: F401
    array_methods,
    element_iterator,
    emath,
    fft,
    generator_out,
    linalg,
    masked_arrays,
    object_array_calls,
    polynomial_series,
    protocol,
    statistics_calls,
    strided,
    testing_calls,
    ufunc_methods,
    undispatched_arguments,
)

# NumPy's own random module, under this namespace too: ``np.random.randn(3)`` with ``import
# ftransforms.numpy as np``, and ``import ftransforms.numpy.random as npr`` (autograd's
# ``autograd.numpy.random`` wraps the same functions).  Its draws are constants to the
# derivatives, follow vmap's ``randomness`` and mark a jit recording value-dependent.
_sys.modules[f"{__name__}.random"] = random

# The public names: each chapter's ``__all__`` (their union, grouped by chapter), and the
# ``fft`` and ``linalg`` namespaces; tests/test_numpy_all.py keeps this list in step with
# the chapters.  The names come from the star imports above, which ruff cannot follow:
# ruff: noqa: F405
__all__ = [
    # creation
    "array",
    "asarray",
    "asarray_chkfinite",
    "copy",
    "empty",
    "empty_like",
    "eye",
    "full",
    "full_like",
    "identity",
    "ones",
    "ones_like",
    "zeros",
    "zeros_like",
    # dtypes
    "bool_",
    "can_cast",
    "common_type",
    "complex128",
    "complex64",
    "dtype",
    "e",
    "finfo",
    "float16",
    "float32",
    "float64",
    "iinfo",
    "inf",
    "int16",
    "int32",
    "int64",
    "int8",
    "nan",
    "ndarray",
    "newaxis",
    "pi",
    "result_type",
    "uint8",
    # functional
    "apply_along_axis",
    "apply_over_axes",
    "piecewise",
    # helpers
    "may_share_memory",
    "ndim",
    "peek",
    "physical",
    "shape",
    "shares_memory",
    "size",
    # index_tricks
    "c_",
    "index_exp",
    "ix_",
    "r_",
    "s_",
    # indexing
    "add_at",
    "sliding_window_view",
    "at",
    "choose",
    "compress",
    "diag_indices_from",
    "diagonal",
    "extract",
    "fill_diagonal",
    "getitem",
    "IndexUpdateHelper",
    "nonzero",
    "normalize_index",
    "physical_zeros_like",
    "place",
    "put",
    "put_along_axis",
    "putmask",
    "ravel_multi_index",
    "select",
    "take",
    "take_along_axis",
    "tril_indices_from",
    "triu_indices_from",
    "unravel_index",
    "where",
    # logic
    "allclose",
    "array_equal",
    "array_equiv",
    "isclose",
    "iscomplex",
    "iscomplexobj",
    "isneginf",
    "isposinf",
    "isreal",
    "isrealobj",
    "real_if_close",
    # manipulation
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "broadcast_arrays",
    "broadcast_shapes",
    "broadcast_to",
    "column_stack",
    "concatenate",
    "copyto",
    "dstack",
    "expand_dims",
    "hstack",
    "matrix_transpose",
    "moveaxis",
    "permute_dims",
    "ravel",
    "reshape",
    "rollaxis",
    "squeeze",
    "stack",
    "swapaxes",
    "transpose",
    "vstack",
    # mathematical
    "angle",
    "copysign",
    "ldexp",
    "deg2rad",
    "degrees",
    "float_power",
    "fmax",
    "fmin",
    "heaviside",
    "hypot",
    "i0",
    "logaddexp",
    "logaddexp2",
    "nan_to_num",
    "rad2deg",
    "radians",
    "sinc",
    # matrices
    "diag",
    "diagflat",
    "tril",
    "triu",
    "vander",
    # polynomials
    "poly",
    "polyadd",
    "polyder",
    "polydiv",
    "polyfit",
    "polyint",
    "polymul",
    "polysub",
    "polyval",
    "roots",
    # products
    "cross",
    "dot",
    "einsum",
    "einsum_path",
    "inner",
    "kron",
    "matmul",
    "outer",
    "tensordot",
    "trace",
    "vdot",
    "vecdot",
    "matvec",
    "vecmat",
    # ranges
    "arange",
    "geomspace",
    "linspace",
    "linspace_traced",
    "logspace",
    "meshgrid",
    # rearranging
    "append",
    "array_split",
    "block",
    "delete",
    "dsplit",
    "flip",
    "fliplr",
    "flipud",
    "hsplit",
    "insert",
    "pad",
    "repeat",
    "resize",
    "roll",
    "rot90",
    "split",
    "tile",
    "trim_zeros",
    "unstack",
    "vsplit",
    # reductions
    "all",
    "amax",
    "amin",
    "any",
    "argmax",
    "argmin",
    "average",
    "count_nonzero",
    "cumprod",
    "cumsum",
    "cumulative_prod",
    "cumulative_sum",
    "diff",
    "max",
    "mean",
    "min",
    "nanargmax",
    "nanargmin",
    "nancumprod",
    "nancumsum",
    "nanmax",
    "nanmean",
    "nanmin",
    "nanprod",
    "nanstd",
    "nansum",
    "nanvar",
    "prod",
    "ptp",
    "std",
    "sum",
    "trapezoid",
    "var",
    # sets
    "intersect1d",
    "isin",
    "setdiff1d",
    "setxor1d",
    "union1d",
    "unique",
    "unique_all",
    "unique_counts",
    "unique_inverse",
    "unique_values",
    # signal
    "convolve",
    "correlate",
    "ediff1d",
    "gradient",
    "interp",
    "unwrap",
    # sorting
    "argpartition",
    "argsort",
    "argwhere",
    "flatnonzero",
    "lexsort",
    "partition",
    "searchsorted",
    "sort",
    "sort_complex",
    # statistics
    "bincount",
    "corrcoef",
    "cov",
    "digitize",
    "histogram",
    "histogram2d",
    "histogram_bin_edges",
    "histogramdd",
    "median",
    "nanmedian",
    "nanpercentile",
    "nanquantile",
    "percentile",
    "quantile",
    # ufuncs
    "abs",
    "absolute",
    "add",
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctan2",
    "arctanh",
    "around",
    "astype",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "cbrt",
    "ceil",
    "clip",
    "conj",
    "conjugate",
    "cos",
    "cosh",
    "divide",
    "divmod",
    "equal",
    "exp",
    "exp2",
    "expm1",
    "fabs",
    "fix",
    "floor",
    "floor_divide",
    "fmod",
    "frexp",
    "greater",
    "greater_equal",
    "imag",
    "invert",
    "gcd",
    "lcm",
    "left_shift",
    "right_shift",
    "bitwise_left_shift",
    "bitwise_right_shift",
    "bitwise_count",
    "spacing",
    "isfinite",
    "isinf",
    "isnan",
    "less",
    "less_equal",
    "log",
    "log10",
    "log1p",
    "log2",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "maximum",
    "minimum",
    "mod",
    "modf",
    "multiply",
    "negative",
    "nextafter",
    "not_equal",
    "positive",
    "power",
    "real",
    "reciprocal",
    "remainder",
    "rint",
    "round",
    "sign",
    "signbit",
    "sin",
    "sinh",
    "sqrt",
    "square",
    "stop_gradient",
    "subtract",
    "tan",
    "tanh",
    "true_divide",
    "trunc",
    # the submodules
    "fft",
    "linalg",
]


# NOTE [NumPy's other names]: ``import ftransforms.numpy as np`` stands in for ``import
# numpy as np`` (and for ``autograd.numpy``, which wraps every function of NumPy's
# namespace), so a name this namespace does not define is NumPy's own: index builders
# (``np.triu_indices``), windows (``np.hanning``), NumPy 2's aliases (``np.acos``,
# ``np.pow``, ``np.concat``), ``np.errstate``, ``np.vectorize``, scalar types.  Those
# work on tracers the way they do under ``import numpy as np``: through the NumPy
# protocols.  A module ``__getattr__`` runs only for names not found, so the names
# defined here cost nothing more.  ``jax.numpy``'s names that NumPy 2 dropped
# (``jnp.float_``, ``jnp.complex_``, ``jnp.ComplexWarning``) are NumPy's objects too.
_JAX_NUMPY_ALIASES = {
    "float_": "float64",
    "complex_": "complex128",
    "ComplexWarning": "exceptions.ComplexWarning",
}


def __getattr__(name: str) -> object:
    if not name.startswith("__"):
        value = getattr(_numpy, name, __getattr__)
        if value is __getattr__ and name in _JAX_NUMPY_ALIASES:
            value = _numpy
            for part in _JAX_NUMPY_ALIASES[name].split("."):
                value = getattr(value, part)
        if value is not __getattr__:
            return value
    raise AttributeError(f"module 'ftransforms.numpy' has no attribute {name!r} (nor has NumPy)")
