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
    mathematical          hypot, logaddexp, copysign, fmax, sinc, nan_to_num, angle
    sorting               sort, argsort, partition, searchsorted, argwhere
    rearranging           split, flip, roll, tile, repeat, pad, block, insert, delete
    ranges, matrices      arange/linspace/logspace/meshgrid; diag, tril/triu, vander
    products              matmul, dot, einsum, tensordot, kron, cross, trace
    sets, statistics      unique, union1d, ...; median, quantile, cov, histogram, ...
    signal, polynomials   convolve, interp, gradient, unwrap; polyval, polymul, ...
    linalg, fft           the numpy.linalg and numpy.fft namespaces
    index_tricks          r_, c_, s_, ix_ (and NumPy's own r_/c_ made to keep tracers)
    functional            apply_along_axis, apply_over_axes, piecewise

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
from ftransforms.numpy import array_methods, fft, linalg, protocol  # noqa: F401
