"""``bernoulli``, ``bessel_jn`` and ``sph_harm_y`` of ``ftransforms.scipy.special``:
functions of integer order (``jax.scipy.special``'s names; ``bernoulli`` and
``sph_harm_y`` are SciPy's too).

``sph_harm_y`` runs the three-term recurrence of the orthonormalised associated Legendre
functions ``Pbar_l^m(cos theta)`` (``Pbar_m^m`` from ``Pbar_{m-1}^{m-1}`` by a factor of
``-sqrt((2m+1)/(2m)) sin theta``, then upward in the degree) elementwise over the
requested degrees and orders, as ``fnp`` operations: differentiable in ``theta`` and
``phi`` (SciPy's ``lpmv`` has no derivative in its argument), no factorials to
overflow.

Example:
    >>> import numpy as np
    >>> from ftransforms.scipy.special import sph_harm_y
    >>> round(float(sph_harm_y(0, 0, 0.3, 0.4).real), 6)  # 1 / sqrt(4 pi)
    0.282095
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.numpy.helpers import dtype_of
from ftransforms.numpy.ufuncs import float_input
from ftransforms.ops.special import jv_p

__all__ = ["bernoulli", "bessel_jn", "sph_harm_y"]


def bernoulli(n: int) -> Any:
    """The Bernoulli numbers ``B_0 .. B_n`` (``B_1 = -1/2``), as ``scipy.special.bernoulli``
    (computed exactly, with fractions, then rounded to float64).

    Example:
        >>> bernoulli(4).tolist()
        [1.0, -0.5, 0.16666666666666666, 0.0, -0.03333333333333333]
    """
    try:
        n = int(n.__index__())
    except (AttributeError, TypeError):
        raise ValueError(f"bernoulli: n must be a non-negative integer, got {n!r}") from None
    if n < 0:
        raise ValueError(f"bernoulli: n must be a non-negative integer, got {n}")
    # Akiyama-Tanigawa: row a_j = 1/(j+1), a_j <- (j+1)(a_j - a_{j+1}) gives B_k (B_1 = +1/2)
    out, row = [], [Fraction(1, j + 1) for j in range(n + 1)]
    for _ in range(n + 1):
        out.append(row[0])
        row = [(j + 1) * (row[j] - row[j + 1]) for j in range(len(row) - 1)]
    if n >= 1:
        out[1] = -out[1]
    return numpy.array([float(b) for b in out])


def bessel_jn(z: Any, *, v: int, n_iter: int = 50) -> Any:
    """The Bessel functions of the first kind ``J_0(z) .. J_v(z)``, stacked on a new
    first axis (shape ``(v + 1,) + z.shape``), as ``jax.scipy.special.bessel_jn``; here
    each is ``jv`` (SciPy's values, differentiable in ``z``), so ``n_iter`` (JAX's
    recurrence length) is accepted and has no effect.

    Example:
        >>> import numpy as np
        >>> np.round(bessel_jn(np.array([1.0]), v=2)[:, 0], 6).tolist()
        [0.765198, 0.440051, 0.114903]
    """
    try:
        v = int(v.__index__())
    except (AttributeError, TypeError):
        raise TypeError(f"bessel_jn: v must be a non-negative integer, got {v!r}") from None
    if v < 0:
        raise ValueError(f"bessel_jn: v must be a non-negative integer, got {v}")
    z = float_input(fnp.asarray(z), None)
    return fnp.stack([jv_p.bind(float(k), z) for k in range(v + 1)])


def _as_int(x: Any, where: str, name: str) -> Any:
    x = fnp.asarray(x)
    if dtype_of(x).kind not in "iub" and not bool(fnp.all(x == fnp.round(x))):
        raise ValueError(f"{where}: {name} must hold integers")
    return x


def sph_harm_y(
    n: Any, m: Any, theta: Any, phi: Any, diff_n: int | None = 0, n_max: int | None = None
) -> Any:
    """The spherical harmonic ``Y_n^m(theta, phi)`` of degree ``n`` and order ``m``
    (``theta`` the polar angle, ``phi`` the azimuth), as ``scipy.special.sph_harm_y``:
    ``sqrt((2n+1)/(4 pi) (n-m)!/(n+m)!) P_n^m(cos theta) exp(i m phi)`` with the
    Condon-Shortley phase; zero where ``|m| > n``.  ``n_max`` (JAX's) bounds the degree
    (degrees above it are computed at ``n_max``, as JAX does) and spares reading ``n``'s
    largest value (under ``jit``, a read of a traced value runs eagerly); ``diff_n`` only
    0 (take the derivatives with ``ft.grad``/``ft.jacfwd``).

    Example:
        >>> import numpy as np
        >>> y = sph_harm_y(1, 1, np.pi / 2, 0.0)  # -sqrt(3 / (8 pi))
        >>> round(float(y.real), 6), round(float(y.imag), 6)
        (-0.345494, 0.0)
    """
    where = "sph_harm_y"
    if diff_n not in (0, None):
        raise UnsupportedOperationError(
            f"{where}(diff_n={diff_n}): derivatives are taken with the transforms here; "
            "call ft.grad or ft.jacfwd of sph_harm_y in theta and phi"
        )
    n = _as_int(n, where, "n")
    m = _as_int(m, where, "m")
    theta = float_input(fnp.asarray(theta), None)
    phi = float_input(fnp.asarray(phi), None)
    am = fnp.abs(m)
    if n_max is None:  # (the largest degree and order, read from the values)
        if bool(fnp.any(n < 0)):
            raise ValueError(f"{where}: the degree n must be non-negative")
        top = int(fnp.max(n)) if fnp.size(n) else 0
        big_m = min(int(fnp.max(am)) if fnp.size(am) else 0, top)
    else:  # (JAX's static bound: nothing read, so jit keeps one program)
        top = big_m = int(n_max)
        n = fnp.minimum(n, top)
    real = numpy.float64  # (SciPy's: complex128 for every real input)
    theta, phi = theta.astype(real), phi.astype(real)
    x, s = fnp.cos(theta), fnp.sin(theta)
    n, am, x, s = fnp.broadcast_arrays(n, am, x, s)
    mf = am.astype(real)
    # Pbar_m^m: from 1 / sqrt(4 pi), one factor per order up to each element's |m|
    pmm = fnp.zeros_like(x) + 1.0 / math.sqrt(4.0 * math.pi)
    for k in range(1, big_m + 1):
        step = -math.sqrt((2.0 * k + 1.0) / (2.0 * k)) * s * pmm
        pmm = fnp.where(am >= k, step, pmm)
    # upward in the degree: l = |m| is pmm, l = |m| + 1 is sqrt(2m + 3) x pmm, then
    # Pbar_l = a (x Pbar_{l-1} - b Pbar_{l-2})
    result = fnp.where(n == am, pmm, 0.0 * pmm)
    older, old = 0.0 * pmm, pmm
    for l in range(1, top + 1):  # noqa: E741  (the degree's usual name)
        first = fnp.sqrt(2.0 * mf + 3.0) * x * pmm
        lf = float(l)
        denom = fnp.where(l > am, lf * lf - mf * mf, 1.0)
        a = fnp.sqrt((4.0 * lf * lf - 1.0) / denom)
        b = fnp.sqrt(fnp.maximum((lf - 1.0) ** 2 - mf * mf, 0.0) / (4.0 * (lf - 1.0) ** 2 - 1.0))
        later = a * (x * old - b * older)
        current = fnp.where(l == am + 1, first, fnp.where(l > am + 1, later, old))
        older, old = fnp.where(l > am, old, older), current
        result = fnp.where((n == l) & (l > am), current, result)
    result = fnp.where(am > n, 0.0, result)
    m_b = fnp.broadcast_to(m, fnp.shape(result)).astype(real)
    phase = fnp.exp(1j * m_b * phi)
    sign = fnp.where((m_b < 0) & (fnp.abs(m_b) % 2 == 1), -1.0, 1.0)
    return (sign * result) * phase
