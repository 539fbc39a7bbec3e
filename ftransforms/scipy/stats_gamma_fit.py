"""The maximum-likelihood shape of a gamma distribution, for ``scipy.stats.gamma.fit``
with a fixed location, differentiable.

The shape ``a`` solves ``log(a) - digamma(a) = s``, ``s = log(mean(x)) - mean(log(x))``
(no closed form).  Its value is SciPy's own (``brentq`` in SciPy's bracket, on the values,
a ``pure_callback`` called once per example under ``vmap``); its derivative is the
implicit one, ``da/ds = 1 / (1/a - polygamma(1, a))``, built from this library's
``polygamma``, so every order works.

Example:
    >>> import numpy as np
    >>> round(float(gamma_shape(np.array(0.1))), 6)
    5.160876
"""

from __future__ import annotations

from typing import Any

import numpy

from ftransforms.callbacks import pure_callback
from ftransforms.custom import custom_jvp
from ftransforms.scipy import special as fsp
from ftransforms.shape_eval import ShapeDtypeStruct

__all__ = ["gamma_shape"]


def _solve(s: numpy.ndarray) -> numpy.ndarray:
    # SciPy's own solution (scipy.stats.gamma.fit with floc): the same bracket and brentq
    import scipy.optimize  # noqa: PLC0415  (only for SciPy users' calls; an optional extra)
    import scipy.special  # noqa: PLC0415

    s = float(s)
    aest = (3 - s + numpy.sqrt((s - 3) ** 2 + 24 * s)) / (12 * s)
    a = scipy.optimize.brentq(
        lambda a: numpy.log(a) - scipy.special.digamma(a) - s, aest * 0.6, aest * 1.4, disp=0
    )
    return numpy.asarray(a, dtype=numpy.float64)


@custom_jvp
def gamma_shape(s: Any) -> Any:
    """The gamma shape ``a`` with ``log(a) - digamma(a) = s`` (``s > 0``, a scalar).

    Example:
        >>> import numpy as np
        >>> round(float(gamma_shape(np.array(0.5))), 6)
        1.137725
    """
    return pure_callback(_solve, ShapeDtypeStruct((), numpy.float64), s, vmap_method="sequential")


@gamma_shape.defjvp
def _gamma_shape_jvp(primals: tuple, tangents: tuple) -> tuple:
    (s,), (t,) = primals, tangents
    a = gamma_shape(s)
    return a, t / (1.0 / a - fsp.polygamma(1, a))
