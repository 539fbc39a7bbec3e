"""Mathematical functions written from the ufuncs: ``hypot``, ``logaddexp``,
``copysign``, ``fmax``/``fmin``, angle conversions, ``sinc``, ``nan_to_num``, ``angle``
(NumPy's "Mathematical functions").
"""

from __future__ import annotations

import math
from typing import Any

import numpy

from ftransforms.core.errors import UFuncTypeError
from ftransforms.core.stack import current_stack
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.creation import as_operand, full, ones
from ftransforms.numpy.dispatch import implements
from ftransforms.numpy.dtypes import pi
from ftransforms.numpy.helpers import dtype_of
from ftransforms.numpy.indexing import where
from ftransforms.numpy.inplace import write_out
from ftransforms.numpy.ufuncs import (
    abs,
    arctan2,
    astype,
    exp,
    imag,
    isnan,
    loop_dtype,
    real,
    signbit,
    sqrt,
    to_float,
)
from ftransforms.ops import elementwise as _ew
from ftransforms.ops import special as _sp

__all__ = [
    "angle",
    "logaddexp",
    "logaddexp2",
    "hypot",
    "copysign",
    "ldexp",
    "fmax",
    "fmin",
    "heaviside",
    "float_power",
    "deg2rad",
    "rad2deg",
    "radians",
    "degrees",
    "sinc",
    "nan_to_num",
    "i0",
]


@implements(numpy.angle)
def angle(z: Any, deg: bool = False) -> Any:
    """``numpy.angle``: the argument of a complex number (0 or pi for real inputs), in
    radians, or degrees with ``deg=True``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> np.round(fnp.angle(np.array([1j, -1.0, 1 + 1j])), 4).tolist()
        [1.5708, 3.1416, 0.7854]
        >>> fnp.angle(np.array([1j]), deg=True).tolist()
        [90.0]
        >>> float(ft.grad(lambda y: fnp.angle(1.0 + 1j * y))(0.0))  # d/dy arctan(y) at 0
        1.0
    """
    # NumPy: arctan2 of a weak Python 0 (bools give float64, int8 float16)
    out = arctan2(imag(z), real(z)) if dtype_of(z).kind == "c" else arctan2(0, z)
    return out * (180.0 / pi) if deg else out


logaddexp = _sp.logaddexp_p
logaddexp2 = _sp.logaddexp2_p
hypot = _sp.hypot_p


def copysign(x1: Any, x2: Any) -> Any:
    """``numpy.copysign``: ``|x1|`` with the sign bit of ``x2`` (no derivative in ``x2``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.copysign(np.array([1.0, -2.0, 3.0]), np.array([-1.0, 1.0, -0.0])).tolist()
        [-1.0, 2.0, -3.0]
        >>> float(ft.grad(lambda x: fnp.copysign(x, -1.0))(2.0))  # -|x| at x = 2
        -1.0
    """
    x1 = astype(x1, loop_dtype(numpy.copysign, x1, x2))
    mag = abs(x1)
    return where(signbit(x2), -mag, mag)


def ldexp(x1: Any, x2: Any) -> Any:
    """``numpy.ldexp``: ``x1 * 2**x2`` for an integer exponent ``x2``, exact (one primitive,
    NumPy's own ``ldexp``: float32 stays float32); derivative ``2**x2`` in ``x1``, none in
    ``x2``.  A float ``x2`` raises :class:`~ftransforms.errors.UFuncTypeError` (a
    ``TypeError``), as NumPy's does.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.ldexp(np.float32(-2.0), -150) == np.ldexp(np.float32(-2.0), -150)  # subnormal
        np.True_
        >>> ft.vmap(lambda x: fnp.ldexp(x, np.array([1, 2])))(np.ones((2, 2))).tolist()
        [[2.0, 4.0], [2.0, 4.0]]
    """
    if dtype_of(x2).kind not in "biu":
        stack = current_stack()
        form = f"{stack[-1].name}: " if stack else ""
        raise UFuncTypeError(
            f"{form}numpy.ldexp(x1, x2): the exponent x2 must be an integer array, got "
            f"{dtype_of(x2)} "
            f"(NumPy has no ldexp loop for it and raises UFuncTypeError too); cast it with "
            f"x2.astype(int)"
        )
    return _ew.ldexp_p.bind(x1, x2)


def fmax(x1: Any, x2: Any) -> Any:
    """``numpy.fmax``: the maximum, ignoring a NaN.

    At ties the derivative goes to ``x2`` (JAX's ``jnp.fmax``), unlike ``maximum``, which
    shares it: NOTE [ties in maximum/minimum] in ``ftransforms/ops/elementwise.py``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.fmax(np.array([1.0, np.nan, 3.0]), np.array([np.nan, 2.0, 5.0])).tolist()
        [1.0, 2.0, 5.0]
        >>> float(ft.grad(lambda b: fnp.fmax(2.0, b))(2.0))  # a tie: all of it to x2
        1.0
    """
    return where(isnan(x2) | (x1 > x2), x1, x2)


def fmin(x1: Any, x2: Any) -> Any:
    """``numpy.fmin``: the minimum, ignoring a NaN; at ties the derivative goes to ``x2``
    (JAX's ``jnp.fmin``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.fmin(np.array([1.0, np.nan, 3.0]), np.array([np.nan, 2.0, 5.0])).tolist()
        [1.0, 2.0, 3.0]
        >>> float(ft.grad(lambda a: fnp.fmin(a, 2.0))(1.0))  # x1 is the smaller one
        1.0
    """
    return where(isnan(x2) | (x1 < x2), x1, x2)


def heaviside(x1: Any, x2: Any) -> Any:
    """``numpy.heaviside``: 0 below zero, ``x2`` at zero, 1 above (derivative 0 in ``x1``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.heaviside(np.array([-1.0, 0.0, 2.0]), 0.5).tolist()
        [0.0, 0.5, 1.0]
        >>> float(ft.grad(lambda h: fnp.heaviside(0.0, h))(0.5))  # at zero it is x2
        1.0
    """
    dt = loop_dtype(numpy.heaviside, x1, x2)
    x1, x2 = astype(x1, dt), astype(x2, dt)
    at_zero = where(x1 == 0, x2, x1)  # x1 itself only where it is NaN
    return where(x1 > 0, ones((), dt, like=x1), where(x1 < 0, 0.0, at_zero))


def float_power(x1: Any, x2: Any) -> Any:
    """``numpy.float_power``: ``x1 ** x2`` computed in float64 (complex128 for complex).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.float_power(np.array([2, 3]), 2).tolist()  # integers give floats
        [4.0, 9.0]
        >>> float(ft.grad(lambda x: fnp.float_power(x, 3.0))(2.0))  # 3 x**2 at 2
        12.0
    """
    dt = numpy.result_type(dtype_of(x1), dtype_of(x2), numpy.float64)
    return _ew.float_power_p.bind(astype(x1, dt), astype(x2, dt))


def deg2rad(x: Any) -> Any:
    """``numpy.deg2rad`` (also ``fnp.radians``): degrees to radians, ``x * pi / 180``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> np.round(fnp.deg2rad(np.array([180, 90])), 4).tolist()
        [3.1416, 1.5708]
        >>> round(float(ft.grad(fnp.radians)(1.0)), 6)  # pi / 180
        0.017453
    """
    return _scaled(numpy.deg2rad, x, math.pi, 180.0)


def rad2deg(x: Any) -> Any:
    """``numpy.rad2deg`` (also ``fnp.degrees``): radians to degrees, ``x * 180 / pi``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.rad2deg(np.array([np.pi, np.pi / 2])).tolist()
        [180.0, 90.0]
        >>> round(float(ft.grad(fnp.degrees)(1.0)), 4)  # 180 / pi
        57.2958
    """
    return _scaled(numpy.rad2deg, x, 180.0, math.pi)


radians, degrees = deg2rad, rad2deg


def _scaled(ufunc: Any, x: Any, num: float, den: float) -> Any:
    """``x * (num / den)`` as NumPy's loops compute it: the factor rounded in the loop's
    float (float32's ``(float)pi / 180.0f``), half precision computed in float32."""
    x = as_operand(x)
    dt = loop_dtype(ufunc, x)
    if dt.itemsize > 4 or dt.kind != "f":
        return astype(x, dt) * (num / den)
    factor = float(numpy.float32(num) / numpy.float32(den))
    return astype(astype(x, numpy.float32) * numpy.float32(factor), dt)


@implements(numpy.sinc)
def sinc(x: Any) -> Any:
    """``numpy.sinc``: ``sin(pi x) / (pi x)``, exact derivatives of every order (at 0 too).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> np.round(fnp.sinc(np.array([0.0, 0.5, 1.0])), 4).tolist()
        [1.0, 0.6366, 0.0]
        >>> float(ft.grad(fnp.sinc)(0.0))
        0.0
        >>> round(float(ft.grad(ft.grad(fnp.sinc))(0.0)), 6)  # -pi**2 / 3
        -3.289868
    """
    return _sp.sinc_p.bind(x, k=0)


@implements(numpy.nan_to_num)
def nan_to_num(
    x: Any, copy: bool = True, nan: float = 0.0, posinf: Any = None, neginf: Any = None
) -> Any:
    """``numpy.nan_to_num``: derivative 1 at finite elements, 0 at replaced ones.  A
    complex input has its real and imaginary parts replaced separately, as in NumPy.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> x = np.array([np.nan, np.inf, -np.inf, 1.5])
        >>> fnp.nan_to_num(x, posinf=9.0, neginf=-9.0).tolist()
        [0.0, 9.0, -9.0, 1.5]
        >>> ft.grad(lambda x: fnp.nan_to_num(x).sum())(x).tolist()
        [0.0, 0.0, 0.0, 1.0]
    """
    dt = dtype_of(x)
    if dt.kind not in "fc":
        return x
    if dt.kind == "c":
        parts = [nan_to_num(p, copy, nan, posinf, neginf) for p in (real(x), imag(x))]
        return astype(parts[0], dt) + astype(parts[1], dt) * 1j
    info = numpy.finfo(dt)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    out = where(x == numpy.inf, full((), posinf, dt, like=x), x)
    out = where(x == -numpy.inf, full((), neginf, dt, like=x), out)
    out = where(isnan(x), full((), nan, dt, like=x), out)
    if not copy and isinstance(x, Tracer):  # NumPy replaces in x itself and returns x
        return write_out("numpy.nan_to_num(x, copy=False)", x, out)
    return out


#: The modified Bessel function I0 is summed as its power series up to this |x| and by its
#: large-argument expansion above it (both converge to double precision there).
# NOTE [i0 in NumPy's arithmetic]
# ``numpy.i0`` is Cephes' Chebyshev expansion of ``exp(-x) I0(x)`` on ``[0, 8]`` and of
# ``exp(-x) sqrt(x) I0(x)`` above, run with NumPy's elementwise operations in the input's
# dtype (float16 stays float16).  The same expansion with our operations gives NumPy's
# values to the bit (an accurate power series differed by a few ulps: 4 in float16) and
# its derivative, the expansion's, is I1(x) to a few ulps.
_I0_LOW = (
    -4.4153416464793395e-18,
    3.3307945188222384e-17,
    -2.431279846547955e-16,
    1.715391285555133e-15,
    -1.1685332877993451e-14,
    7.676185498604936e-14,
    -4.856446783111929e-13,
    2.95505266312964e-12,
    -1.726826291441556e-11,
    9.675809035373237e-11,
    -5.189795601635263e-10,
    2.6598237246823866e-09,
    -1.300025009986248e-08,
    6.046995022541919e-08,
    -2.670793853940612e-07,
    1.1173875391201037e-06,
    -4.4167383584587505e-06,
    1.6448448070728896e-05,
    -5.754195010082104e-05,
    0.00018850288509584165,
    -0.0005763755745385824,
    0.0016394756169413357,
    -0.004324309995050576,
    0.010546460394594998,
    -0.02373741480589947,
    0.04930528423967071,
    -0.09490109704804764,
    0.17162090152220877,
    -0.3046826723431984,
    0.6767952744094761,
)
_I0_HIGH = (
    -7.233180487874754e-18,
    -4.830504485944182e-18,
    4.46562142029676e-17,
    3.461222867697461e-17,
    -2.8276239805165836e-16,
    -3.425485619677219e-16,
    1.7725601330565263e-15,
    3.8116806693526224e-15,
    -9.554846698828307e-15,
    -4.150569347287222e-14,
    1.54008621752141e-14,
    3.8527783827421426e-13,
    7.180124451383666e-13,
    -1.7941785315068062e-12,
    -1.3215811840447713e-11,
    -3.1499165279632416e-11,
    1.1889147107846439e-11,
    4.94060238822497e-10,
    3.3962320257083865e-09,
    2.266668990498178e-08,
    2.0489185894690638e-07,
    2.8913705208347567e-06,
    6.889758346916825e-05,
    0.0033691164782556943,
    0.8044904110141088,
)


def _chebyshev(x: Any, coefficients: tuple) -> Any:
    """Clenshaw's sum of the Chebyshev series ``coefficients`` at ``x`` (Cephes' ``chbevl``,
    half the first coefficient), in ``x``'s dtype."""
    b0, b1, b2 = coefficients[0], 0.0, 0.0
    for c in coefficients[1:]:
        b2, b1 = b1, b0
        b0 = x * b1 - b2 + c
    return 0.5 * (b0 - b2)


@implements(numpy.i0)
def i0(x: Any) -> Any:
    """``numpy.i0``: the modified Bessel function of the first kind, order 0, for real
    ``x``, as NumPy computes it (NOTE [i0 in NumPy's arithmetic]); its derivative is
    ``I1(x)``.

    Example:
        >>> import numpy as np
        >>> round(float(i0(np.array(1.0))), 12)
        1.266065877752
    """
    x = to_float(as_operand(x))
    if dtype_of(x).kind == "c":
        raise TypeError("i0: complex inputs are not supported (as in NumPy)")
    ax = abs(x)
    low = ax <= 8.0
    xs = where(low, ax, 0.0)  # each branch sees only inputs where it is finite
    xl = where(low, 8.0, ax)
    near = exp(xs) * _chebyshev(xs / 2.0 - 2, _I0_LOW)
    far = exp(xl) * _chebyshev(32.0 / xl - 2.0, _I0_HIGH) / sqrt(xl)
    return where(low, near, far)
