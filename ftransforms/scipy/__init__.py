"""``ftransforms.scipy``: the part of SciPy's API that works on tracers (like ``jax.scipy``):
``special``, ``stats``, ``linalg``, ``signal``, ``integrate``, ``optimize``, ``fft``,
``spatial.distance``, ``ndimage`` (its linear filters), ``interpolate`` and
``sparse.linalg`` (``spsolve`` and its Krylov solvers) and ``cluster.vq``.

Importing them needs NumPy only; the functions that SciPy evaluates (some special
functions, quantiles without a closed form, LU's pivoting order) import it on first use
and raise an :class:`ImportError` naming ``pip install 'ftransforms[scipy]'`` without it.

Example:
    >>> import numpy as np
    >>> from ftransforms import grad
    >>> from ftransforms.scipy.special import logsumexp
    >>> np.round(grad(logsumexp)(np.zeros(4)), 3)
    array([0.25, 0.25, 0.25, 0.25])
"""

from ftransforms.scipy import (
    cluster,
    fft,
    integrate,
    interpolate,
    linalg,
    ndimage,
    optimize,
    own_names,  # noqa: F401  (NOTE [SciPy's own names under the transforms])
    signal,
    sparse,
    spatial,
    special,
    stats,
)

__all__ = [
    "cluster",
    "fft",
    "integrate",
    "interpolate",
    "linalg",
    "ndimage",
    "optimize",
    "signal",
    "sparse",
    "spatial",
    "special",
    "stats",
]
