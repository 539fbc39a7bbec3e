"""Elementwise primitives: unary math, binary arithmetic, comparisons, select, casts.

Family factories derive both modes from one expression per input:

* :func:`defunary` from the derivative ``deriv(y, x)`` (``y`` is the output): the JVP is
  ``x_dot * deriv`` and the VJP ``y_bar * deriv``;
* :func:`defbinary` from one partial per input, ``partial(t, y, x1, x2)`` = ``t`` times
  the partial derivative of ``y`` in that input: applied to the tangent it is the JVP term
  (broadcast to ``y``), applied to the cotangent it is the VJP (summed back to the input's
  shape) — an elementwise op's Jacobian is diagonal, so the same product serves both.

Every op here is in the ``"elementwise"`` family (one batching rule serves them all) and
names the NumPy ufunc it implements.  Derivative conventions at kinks follow JAX:
``abs'(0) = 1``, ``maximum``/``minimum`` share the derivative equally between tied inputs,
``sign``/``floor``/``round`` have derivative 0.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy

from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.primitive import Primitive, defop
from ftransforms.core.stack import current_stack
from ftransforms.ops._util import like_output, unbroadcast

FAMILY = "elementwise"


def _family_defaults(name: str, kwargs: dict) -> dict:
    kwargs.setdefault("family", FAMILY)
    if "ufunc" not in kwargs:
        candidate = getattr(numpy, name, None)
        kwargs["ufunc"] = candidate if isinstance(candidate, numpy.ufunc) else None
    return kwargs


def defunary(name: str, impl: Callable, deriv: Callable, **kwargs) -> Primitive:
    """Declare a differentiable unary elementwise op from its derivative ``deriv(y, x)``."""
    _family_defaults(name, kwargs)
    return defop(
        name,
        impl,
        jvp=(lambda x_dot, y, x: x_dot * deriv(y, x),),
        vjp=(lambda y_bar, y, x: y_bar * deriv(y, x),),
        **kwargs,
    )


def same(t, y, x1, x2):
    """The partial of an input that passes through unchanged (``x1 + x2`` in either)."""
    return t


def _jvp_term(partial: Callable) -> Callable:
    if partial is same:
        return lambda x_dot, y, x1, x2: like_output(x_dot, y)
    return lambda x_dot, y, x1, x2, **params: like_output(partial(x_dot, y, x1, x2, **params), y)


def _vjp_terms(partial1: Callable, partial2: Callable) -> tuple[Callable, Callable]:
    if partial1 is same:
        first = lambda y_bar, y, x1, x2: unbroadcast(y_bar, x1)  # noqa: E731
    else:
        first = lambda y_bar, y, x1, x2, **params: unbroadcast(  # noqa: E731
            partial1(y_bar, y, x1, x2, **params), x1
        )
    if partial2 is same:
        second = lambda y_bar, y, x1, x2: unbroadcast(y_bar, x2)  # noqa: E731
    else:
        second = lambda y_bar, y, x1, x2, **params: unbroadcast(  # noqa: E731
            partial2(y_bar, y, x1, x2, **params), x2
        )
    return first, second


def defbinary(name: str, impl: Callable, partial1: Callable, partial2: Callable, **kwargs):
    """Declare a differentiable binary elementwise op from its two partials, each
    ``partial(t, y, x1, x2, **params) -> t * dy/dx_i`` (or :func:`same` for ``t``)."""
    _family_defaults(name, kwargs)
    return defop(
        name,
        impl,
        jvp=(_jvp_term(partial1), _jvp_term(partial2)),
        vjp=_vjp_terms(partial1, partial2),
        **kwargs,
    )


def defnondiff(name: str, impl: Callable, **kwargs) -> Primitive:
    """Declare an elementwise op whose output carries no derivative."""
    _family_defaults(name, kwargs)
    return defop(name, impl, nondiff=True, **kwargs)


# -- unary ------------------------------------------------------------------------------

_NEGATIVE_DOC = """``fnp.negative(x)``: ``-x``, elementwise, as ``numpy.negative`` (no
``out``/``where``/``dtype`` keywords); its derivative is -1 (it is linear).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.negative(np.array([1.0, -2.0])).tolist()
    [-1.0, 2.0]
    >>> float(ft.grad(fnp.negative)(3.0))
    -1.0
"""
negative_p = defop(
    "negative",
    lambda xp, x: xp.negative(x),
    transpose=lambda y_bar, x: negative_p.bind(y_bar),
    family=FAMILY,
    ufunc=numpy.negative,
    doc=_NEGATIVE_DOC,
)

_EXP_DOC = """``fnp.exp(x)``: ``e**x``, elementwise, as ``numpy.exp`` (no
``out``/``where``/``dtype`` keywords); its derivative is ``exp(x)``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.exp(np.array([0.0, 1.0])).tolist()
    [1.0, 2.718281828459045]
    >>> float(ft.grad(fnp.exp)(0.0))
    1.0
"""
exp_p = defunary("exp", lambda xp, x: xp.exp(x), lambda y, x: y, doc=_EXP_DOC)
# Python floats, not numpy.float64: a weak scalar keeps a float32 derivative float32.
_LN2, _LN10 = math.log(2.0), math.log(10.0)

_EXP2_DOC = """``fnp.exp2(x)``: ``2**x``, elementwise, as ``numpy.exp2`` (no
``out``/``where``/``dtype`` keywords); its derivative is ``2**x * log(2)``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.exp2(np.array([0.0, 3.0])).tolist()
    [1.0, 8.0]
    >>> float(np.round(ft.grad(fnp.exp2)(0.0), 6))  # log(2)
    0.693147
"""
exp2_p = defunary("exp2", lambda xp, x: xp.exp2(x), lambda y, x: y * _LN2, doc=_EXP2_DOC)

_EXPM1_DOC = """``fnp.expm1(x)``: ``exp(x) - 1``, accurate for small ``x``, elementwise, as
``numpy.expm1`` (no ``out``/``where``/``dtype`` keywords); its derivative is ``exp(x)``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> float(fnp.expm1(1e-10))
    1.00000000005e-10
    >>> float(ft.grad(fnp.expm1)(0.0))
    1.0
"""
expm1_p = defunary("expm1", lambda xp, x: xp.expm1(x), lambda y, x: y + 1, doc=_EXPM1_DOC)

_LOG_DOC = """``fnp.log(x)``: the natural logarithm (NaN for ``x < 0``, ``-inf`` at 0, as NumPy),
elementwise, as ``numpy.log`` (no ``out``/``where``/``dtype`` keywords); its derivative is
``1 / x``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.log(np.array([1.0, np.e])).tolist()
    [0.0, 1.0]
    >>> float(ft.grad(fnp.log)(2.0))
    0.5
"""
log_p = defunary("log", lambda xp, x: xp.log(x), lambda y, x: 1 / x, doc=_LOG_DOC)

_LOG2_DOC = """``fnp.log2(x)``: the base-2 logarithm, elementwise, as ``numpy.log2`` (no
``out``/``where``/``dtype`` keywords); its derivative is ``1 / (x log(2))``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.log2(np.array([1.0, 8.0])).tolist()
    [0.0, 3.0]
    >>> float(np.round(ft.grad(fnp.log2)(1.0), 6))  # 1 / log(2)
    1.442695
"""
log2_p = defunary("log2", lambda xp, x: xp.log2(x), lambda y, x: 1 / (x * _LN2), doc=_LOG2_DOC)

_LOG10_DOC = """``fnp.log10(x)``: the base-10 logarithm, elementwise, as ``numpy.log10`` (no
``out``/``where``/``dtype`` keywords); its derivative is ``1 / (x log(10))``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.log10(np.array([1.0, 1000.0])).tolist()
    [0.0, 3.0]
    >>> float(np.round(ft.grad(fnp.log10)(1.0), 6))  # 1 / log(10)
    0.434294
"""
log10_p = defunary("log10", lambda xp, x: xp.log10(x), lambda y, x: 1 / (x * _LN10), doc=_LOG10_DOC)

_LOG1P_DOC = """``fnp.log1p(x)``: ``log(1 + x)``, accurate for small ``x``, elementwise, as
``numpy.log1p`` (no ``out``/``where``/``dtype`` keywords); its derivative is ``1 / (1 + x)``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> float(fnp.log1p(1e-10))
    9.999999999500001e-11
    >>> float(ft.grad(fnp.log1p)(1.0))
    0.5
"""
log1p_p = defunary("log1p", lambda xp, x: xp.log1p(x), lambda y, x: 1 / (x + 1), doc=_LOG1P_DOC)

_SQRT_DOC = """``fnp.sqrt(x)``: the non-negative square root, elementwise, as ``numpy.sqrt`` (no
``out``/``where``/``dtype`` keywords); its derivative is ``1 / (2 sqrt(x))`` (inf at 0).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.sqrt(np.array([4.0, 9.0])).tolist()
    [2.0, 3.0]
    >>> float(ft.grad(fnp.sqrt)(4.0))
    0.25
"""
sqrt_p = defunary("sqrt", lambda xp, x: xp.sqrt(x), lambda y, x: 0.5 / y, doc=_SQRT_DOC)

_CBRT_DOC = """``fnp.cbrt(x)``: the real cube root (negative for ``x < 0``), elementwise, as
``numpy.cbrt`` (no ``out``/``where``/``dtype`` keywords); its derivative is ``1 / (3 cbrt(x)**2)``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.cbrt(np.array([8.0, -27.0])).tolist()
    [2.0, -3.0]
    >>> float(np.round(ft.grad(fnp.cbrt)(8.0), 6))  # 1/12
    0.083333
"""
cbrt_p = defunary("cbrt", lambda xp, x: xp.cbrt(x), lambda y, x: 1 / (3 * y * y), doc=_CBRT_DOC)

_SQUARE_DOC = """``fnp.square(x)``: ``x * x``, elementwise, as ``numpy.square`` (no
``out``/``where``/``dtype`` keywords); its derivative is ``2 x``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.square(np.array([2.0, -3.0])).tolist()
    [4.0, 9.0]
    >>> float(ft.grad(fnp.square)(3.0))
    6.0
"""
square_p = defunary("square", lambda xp, x: xp.square(x), lambda y, x: 2 * x, doc=_SQUARE_DOC)

_RECIPROCAL_DOC = """``fnp.reciprocal(x)``: ``1 / x`` (integer division for integer ``x``, as
NumPy), elementwise, as ``numpy.reciprocal`` (no ``out``/``where``/``dtype`` keywords); its
derivative is ``-1 / x**2``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.reciprocal(np.array([2.0, 4.0])).tolist()
    [0.5, 0.25]
    >>> float(ft.grad(fnp.reciprocal)(2.0))
    -0.25
"""
reciprocal_p = defunary(
    "reciprocal", lambda xp, x: xp.reciprocal(x), lambda y, x: -(y * y), doc=_RECIPROCAL_DOC
)

_SIN_DOC = """``fnp.sin(x)``: the sine (radians), elementwise, as ``numpy.sin`` (no
``out``/``where``/``dtype`` keywords); its derivative is ``cos(x)``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.sin(np.array([0.0, np.pi / 2])).tolist()
    [0.0, 1.0]
    >>> float(ft.grad(fnp.sin)(0.0))
    1.0
"""
sin_p = defunary("sin", lambda xp, x: xp.sin(x), lambda y, x: cos_p.bind(x), doc=_SIN_DOC)

_COS_DOC = """``fnp.cos(x)``: the cosine (radians), elementwise, as ``numpy.cos`` (no
``out``/``where``/``dtype`` keywords); its derivative is ``-sin(x)``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.cos(np.array([0.0, np.pi])).tolist()
    [1.0, -1.0]
    >>> float(ft.grad(fnp.cos)(np.pi / 2))
    -1.0
"""
cos_p = defunary("cos", lambda xp, x: xp.cos(x), lambda y, x: -sin_p.bind(x), doc=_COS_DOC)

_TAN_DOC = """``fnp.tan(x)``: the tangent (radians), elementwise, as ``numpy.tan`` (no
``out``/``where``/``dtype`` keywords); its derivative is ``1 + tan(x)**2``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> np.round(fnp.tan(np.array([0.0, np.pi / 4])), 6).tolist()
    [0.0, 1.0]
    >>> float(ft.grad(fnp.tan)(0.0))
    1.0
"""
tan_p = defunary("tan", lambda xp, x: xp.tan(x), lambda y, x: 1 + y * y, doc=_TAN_DOC)

_ARCSIN_DOC = """``fnp.arcsin(x)``: the inverse sine, in ``[-pi/2, pi/2]`` (NaN outside
``[-1, 1]``), elementwise, as ``numpy.arcsin`` (no ``out``/``where``/``dtype`` keywords); its
derivative is ``1 / sqrt(1 - x**2)``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.arcsin(np.array([0.0, 1.0])).tolist()
    [0.0, 1.5707963267948966]
    >>> float(ft.grad(fnp.arcsin)(0.0))
    1.0
"""


def _one_minus_square(x):
    # NOTE [1 - z**2 on a branch cut]: arcsin/arccos of a complex z = x + 0j with |x| > 1
    # lie on their branch cut, where NumPy's value is the limit from the side of the zero's
    # sign, and so is the derivative along the real line (the central difference of
    # np.emath.arccos at 1.7 is -0.727j).  ``1 - z*z`` makes the zero imaginary part +0
    # whatever the side (0 - 0), and the square root then takes the other branch;
    # ``-(z*z - 1)`` keeps the sign (-(+0 - 0) is -0).  A real x keeps ``1 - x*x``: at
    # x = +-1 the other form is -0, whose square root -0 would turn the derivative's +inf
    # (JAX's, the one-sided limit) into -inf.
    if x.dtype.kind == "c":
        return -(x * x - 1)
    return 1 - x * x


def _arcsinh_derivative(y, x):
    # NOTE [1 - z**2 on a branch cut]: on arcsinh's cut (z = +-0 + iy, |y| > 1) z*z is
    # -y**2 + 1 with an imaginary part of zero's sign; ``z*z + 1`` would make it +0 (-0 + 0),
    # ``z*z - (-1)`` keeps it (the constant is -1 + 0j, and -0 - 0 is -0)
    return 1 / sqrt_p.bind(x * x - (-1))


def _arccosh_derivative(y, x):
    # NOTE [1 - z**2 on a branch cut]: NumPy's arccosh of a complex z is
    # 2*log(sqrt((z+1)/2) + sqrt((z-1)/2)), whose derivative is 1/(sqrt(z-1)*sqrt(z+1));
    # 1/sqrt(z*z - 1) is its negative wherever Re z < 0 (a sign flip over half the plane,
    # the cut x + 0j with x < -1 included).  ``z - (-1)`` keeps a zero imaginary part's
    # sign, as above.  A real x keeps 1/sqrt(x*x - 1) (JAX's and torch's, finite at x < -1).
    if x.dtype.kind == "c":
        return 1 / (sqrt_p.bind(x - 1) * sqrt_p.bind(x - (-1)))
    return 1 / sqrt_p.bind(x * x - 1)


arcsin_p = defunary(
    "arcsin",
    lambda xp, x: xp.arcsin(x),
    lambda y, x: 1 / sqrt_p.bind(_one_minus_square(x)),
    doc=_ARCSIN_DOC,
)

_ARCCOS_DOC = """``fnp.arccos(x)``: the inverse cosine, in ``[0, pi]`` (NaN outside ``[-1, 1]``),
elementwise, as ``numpy.arccos`` (no ``out``/``where``/``dtype`` keywords); its derivative is
``-1 / sqrt(1 - x**2)``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.arccos(np.array([1.0, -1.0])).tolist()
    [0.0, 3.141592653589793]
    >>> float(ft.grad(fnp.arccos)(0.0))
    -1.0
"""
arccos_p = defunary(
    "arccos",
    lambda xp, x: xp.arccos(x),
    lambda y, x: -1 / sqrt_p.bind(_one_minus_square(x)),  # NOTE [1 - z**2 on a branch cut]
    doc=_ARCCOS_DOC,
)

_ARCTAN_DOC = """``fnp.arctan(x)``: the inverse tangent, in ``(-pi/2, pi/2)``, elementwise, as
``numpy.arctan`` (no ``out``/``where``/``dtype`` keywords); its derivative is ``1 / (1 + x**2)``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.arctan(np.array([0.0, 1.0])).tolist()
    [0.0, 0.7853981633974483]
    >>> float(ft.grad(fnp.arctan)(1.0))
    0.5
"""
arctan_p = defunary(
    "arctan", lambda xp, x: xp.arctan(x), lambda y, x: 1 / (1 + x * x), doc=_ARCTAN_DOC
)

_SINH_DOC = """``fnp.sinh(x)``: the hyperbolic sine, elementwise, as ``numpy.sinh`` (no
``out``/``where``/``dtype`` keywords); its derivative is ``cosh(x)``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.sinh(np.array([0.0, 1.0])).tolist()
    [0.0, 1.1752011936438014]
    >>> float(ft.grad(fnp.sinh)(0.0))
    1.0
"""
sinh_p = defunary("sinh", lambda xp, x: xp.sinh(x), lambda y, x: cosh_p.bind(x), doc=_SINH_DOC)

_COSH_DOC = """``fnp.cosh(x)``: the hyperbolic cosine, elementwise, as ``numpy.cosh`` (no
``out``/``where``/``dtype`` keywords); its derivative is ``sinh(x)``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.cosh(np.array([0.0, 1.0])).tolist()
    [1.0, 1.5430806348152437]
    >>> float(ft.grad(fnp.cosh)(0.0))
    0.0
"""
cosh_p = defunary("cosh", lambda xp, x: xp.cosh(x), lambda y, x: sinh_p.bind(x), doc=_COSH_DOC)

_TANH_DOC = """``fnp.tanh(x)``: the hyperbolic tangent, elementwise, as ``numpy.tanh`` (no
``out``/``where``/``dtype`` keywords); its derivative is ``1 - tanh(x)**2``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.tanh(np.array([0.0, 20.0])).tolist()
    [0.0, 1.0]
    >>> float(ft.grad(fnp.tanh)(0.0))
    1.0
"""
tanh_p = defunary("tanh", lambda xp, x: xp.tanh(x), lambda y, x: (1 - y) * (1 + y), doc=_TANH_DOC)

_ARCSINH_DOC = """``fnp.arcsinh(x)``: the inverse hyperbolic sine, elementwise, as ``numpy.arcsinh``
(no ``out``/``where``/``dtype`` keywords); its derivative is ``1 / sqrt(x**2 + 1)``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.arcsinh(np.array([0.0, 1.0])).tolist()
    [0.0, 0.881373587019543]
    >>> float(ft.grad(fnp.arcsinh)(0.0))
    1.0
"""
arcsinh_p = defunary(
    "arcsinh",
    lambda xp, x: xp.arcsinh(x),
    _arcsinh_derivative,
    doc=_ARCSINH_DOC,
)

_ARCCOSH_DOC = """``fnp.arccosh(x)``: the inverse hyperbolic cosine (NaN for ``x < 1``),
elementwise, as ``numpy.arccosh`` (no ``out``/``where``/``dtype`` keywords); its derivative is
``1 / sqrt(x**2 - 1)`` (``1 / (sqrt(z - 1) * sqrt(z + 1))`` for a complex ``z``).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.arccosh(np.array([1.0, 2.0])).tolist()
    [0.0, 1.3169578969248168]
    >>> float(np.round(ft.grad(fnp.arccosh)(2.0), 6))  # 1 / sqrt(3)
    0.57735
"""
arccosh_p = defunary(
    "arccosh",
    lambda xp, x: xp.arccosh(x),
    _arccosh_derivative,
    doc=_ARCCOSH_DOC,
)

_ARCTANH_DOC = """``fnp.arctanh(x)``: the inverse hyperbolic tangent (NaN outside ``[-1, 1]``),
elementwise, as ``numpy.arctanh`` (no ``out``/``where``/``dtype`` keywords); its derivative is
``1 / (1 - x**2)``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.arctanh(np.array([0.0, 0.5])).tolist()
    [0.0, 0.5493061443340549]
    >>> float(np.round(ft.grad(fnp.arctanh)(0.5), 6))  # 4/3
    1.333333
"""
arctanh_p = defunary(
    "arctanh", lambda xp, x: xp.arctanh(x), lambda y, x: 1 / (1 - x * x), doc=_ARCTANH_DOC
)


def _nonzero_modulus(y):
    # |z| with 0 replaced by 1: at z = 0 the derivative conj(z) / |z| is taken as 0 (JAX's
    # convention; 0 / 0 gave nan, e.g. for the gradient of |z|**2 at a zero residual)
    return select_p.bind(y == 0, 1.0, y).astype(y.dtype)


def _abs_jvp(x_dot, y, x):
    if x.dtype.kind == "c":  # d|z| = Re(conj(z) dz) / |z|
        return real_p.bind(conj_p.bind(x) * x_dot) / _nonzero_modulus(y)
    return x_dot * select_p.bind(x >= 0, 1.0, -1.0).astype(y.dtype)


def _abs_vjp(y_bar, y, x):
    if x.dtype.kind == "c":  # the transpose of the map above: y_bar * conj(z) / |z|
        return y_bar * conj_p.bind(x) / _nonzero_modulus(y)
    return y_bar * select_p.bind(x >= 0, 1.0, -1.0).astype(y.dtype)


_ABS_DOC = """``fnp.abs(x)`` (also ``fnp.absolute`` and ``fnp.fabs``, the same operator): the
absolute value, elementwise, as ``numpy.absolute`` (no ``out``/``where``/``dtype`` keywords); for
complex ``x`` the modulus (``fnp.fabs`` accepts complex input, NumPy's ``fabs`` does not).  Its
derivative is ``sign(x)`` for real ``x``, taken as 1 at 0 (JAX's convention); for complex ``z`` the
gradient of ``|z|`` is ``conj(z) / |z|`` (JAX's convention, NOTE [complex derivatives]).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.abs(np.array([-2.0, 0.0, 3.0])).tolist()
    [2.0, 0.0, 3.0]
    >>> ft.vmap(ft.grad(fnp.abs))(np.array([-2.0, 0.0, 3.0])).tolist()
    [-1.0, 1.0, 1.0]
"""
abs_p = defop(
    "abs",
    lambda xp, x: xp.abs(x),
    jvp=(_abs_jvp,),
    vjp=(_abs_vjp,),
    family=FAMILY,
    ufunc=numpy.absolute,
    doc=_ABS_DOC,
)

# NOTE [complex derivatives]: as in JAX, a VJP is the plain transpose of the JVP under
# the pairing <a, b> = Re(a * b) (no conjugation), so holomorphic ops reuse their real
# rules unchanged, and grad of a real function f of complex z is df/dx - i df/dy.  Only
# the non-holomorphic ops below (and abs above) need their own rules; a complex cotangent
# reaching a real input keeps its real part (see ops/_util.unbroadcast).
real_p = defop(
    "real",
    lambda xp, x: xp.real(x),
    transpose=lambda y_bar, x: convert_p.bind(y_bar, dtype=x.dtype),
    family=FAMILY,
)
imag_p = defop(
    "imag",
    lambda xp, x: xp.imag(x),
    transpose=lambda y_bar, x: convert_p.bind(y_bar * -1j, dtype=x.dtype),
    family=FAMILY,
)
conj_p = defop(
    "conj",
    lambda xp, x: xp.conj(x),
    transpose=lambda y_bar, x: conj_p.bind(y_bar),
    family=FAMILY,
    ufunc=numpy.conjugate,
)

_SIGN_DOC = """``fnp.sign(x)``: -1, 0 or 1 by the sign of ``x`` (NaN for NaN), elementwise, as
``numpy.sign`` (no ``out``/``where``/``dtype`` keywords).  Its output carries no derivative:
``ft.grad`` gives 0 through it.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.sign(np.array([-2.0, 0.0, 3.0])).tolist()
    [-1.0, 0.0, 1.0]
    >>> float(ft.grad(fnp.sign)(2.0))
    0.0
"""
sign_p = defnondiff("sign", lambda xp, x: xp.sign(x), doc=_SIGN_DOC)

_FLOOR_DOC = """``fnp.floor(x)``: the largest integer ``<= x`` (a float for float ``x``),
elementwise, as ``numpy.floor`` (no ``out``/``where``/``dtype`` keywords).  Its output carries no
derivative: ``ft.grad`` gives 0 through it.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.floor(np.array([-1.5, 1.5])).tolist()
    [-2.0, 1.0]
    >>> float(ft.grad(fnp.floor)(1.5))
    0.0
"""
floor_p = defnondiff("floor", lambda xp, x: xp.floor(x), doc=_FLOOR_DOC)

_CEIL_DOC = """``fnp.ceil(x)``: the smallest integer ``>= x`` (a float for float ``x``),
elementwise, as ``numpy.ceil`` (no ``out``/``where``/``dtype`` keywords).  Its output carries no
derivative: ``ft.grad`` gives 0 through it.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.ceil(np.array([-1.5, 1.5])).tolist()
    [-1.0, 2.0]
    >>> float(ft.grad(fnp.ceil)(1.5))
    0.0
"""
ceil_p = defnondiff("ceil", lambda xp, x: xp.ceil(x), doc=_CEIL_DOC)
round_p = defnondiff("round", lambda xp, x, decimals=0: xp.round(x, decimals), ufunc=None)

_TRUNC_DOC = """``fnp.trunc(x)`` (also ``fnp.fix``, the same operator): ``x`` rounded toward zero,
elementwise, as ``numpy.trunc`` (no ``out``/``where``/``dtype`` keywords).  Its output carries no
derivative: ``ft.grad`` gives 0 through it.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.trunc(np.array([-1.5, 1.5])).tolist()
    [-1.0, 1.0]
    >>> fnp.fix(np.array([-2.7, 2.7])).tolist()
    [-2.0, 2.0]
    >>> float(ft.grad(fnp.trunc)(1.5))
    0.0
"""
trunc_p = defnondiff("trunc", lambda xp, x: xp.trunc(x), doc=_TRUNC_DOC)

_RINT_DOC = """``fnp.rint(x)``: ``x`` rounded to the nearest integer, ties to even, elementwise, as
``numpy.rint`` (no ``out``/``where``/``dtype`` keywords).  Its output carries no derivative:
``ft.grad`` gives 0 through it.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.rint(np.array([0.5, 1.5, 2.7])).tolist()
    [0.0, 2.0, 3.0]
    >>> float(ft.grad(fnp.rint)(1.2))
    0.0
"""
rint_p = defnondiff("rint", lambda xp, x: xp.rint(x), doc=_RINT_DOC)

_ISNAN_DOC = """``fnp.isnan(x)``: whether ``x`` is NaN (a bool array), elementwise, as
``numpy.isnan`` (no ``out``/``where``/``dtype`` keywords).

Example:
    >>> import numpy as np
    >>> import ftransforms.numpy as fnp
    >>> fnp.isnan(np.array([1.0, np.nan, np.inf])).tolist()
    [False, True, False]
"""
isnan_p = defnondiff("isnan", lambda xp, x: xp.isnan(x), doc=_ISNAN_DOC)

_ISINF_DOC = """``fnp.isinf(x)``: whether ``x`` is ``inf`` or ``-inf`` (a bool array), elementwise,
as ``numpy.isinf`` (no ``out``/``where``/``dtype`` keywords).

Example:
    >>> import numpy as np
    >>> import ftransforms.numpy as fnp
    >>> fnp.isinf(np.array([1.0, np.nan, -np.inf])).tolist()
    [False, False, True]
"""
isinf_p = defnondiff("isinf", lambda xp, x: xp.isinf(x), doc=_ISINF_DOC)

_ISFINITE_DOC = """``fnp.isfinite(x)``: whether ``x`` is neither NaN nor infinite (a bool array),
elementwise, as ``numpy.isfinite`` (no ``out``/``where``/``dtype`` keywords).

Example:
    >>> import numpy as np
    >>> import ftransforms.numpy as fnp
    >>> fnp.isfinite(np.array([1.0, np.nan, np.inf])).tolist()
    [True, False, False]
"""
isfinite_p = defnondiff("isfinite", lambda xp, x: xp.isfinite(x), doc=_ISFINITE_DOC)

_SIGNBIT_DOC = """``fnp.signbit(x)``: whether the sign bit of ``x`` is set (True for ``-0.0``),
elementwise, as ``numpy.signbit`` (no ``out``/``where``/``dtype`` keywords).

Example:
    >>> import numpy as np
    >>> import ftransforms.numpy as fnp
    >>> fnp.signbit(np.array([-0.0, 0.0, -1.0])).tolist()
    [True, False, True]
"""
signbit_p = defnondiff("signbit", lambda xp, x: xp.signbit(x), doc=_SIGNBIT_DOC)

_LOGICAL_NOT_DOC = """``fnp.logical_not(x)``: ``not x`` (a bool array; nonzero numbers are true),
elementwise, as ``numpy.logical_not`` (no ``out``/``where``/``dtype`` keywords).

Example:
    >>> import numpy as np
    >>> import ftransforms.numpy as fnp
    >>> fnp.logical_not(np.array([True, False])).tolist()
    [False, True]
    >>> fnp.logical_not(np.array([0.0, 2.0])).tolist()
    [True, False]
"""
logical_not_p = defnondiff("logical_not", lambda xp, x: xp.logical_not(x), doc=_LOGICAL_NOT_DOC)

_INVERT_DOC = """``fnp.invert(x)``: the bitwise NOT ``~x`` of integers, the logical NOT of booleans,
elementwise, as ``numpy.invert`` (no ``out``/``where``/``dtype`` keywords); no derivative.  ``~`` on
a traced integer array is this operator (on a boolean one, :data:`logical_not`).

Example:
    >>> import numpy as np
    >>> import ftransforms.numpy as fnp
    >>> fnp.invert(np.array([0, 5])).tolist()
    [-1, -6]
    >>> fnp.invert(np.array([True, False])).tolist()
    [False, True]
"""
invert_p = defnondiff("invert", lambda xp, x: xp.invert(x), doc=_INVERT_DOC)

stop_gradient_p = defnondiff(
    "stop_gradient",
    lambda xp, x: x,
    doc="Identity whose output has no derivative at any transform level.",
)

# -- binary -----------------------------------------------------------------------------


_ADD_DOC = """``fnp.add(x1, x2)``: ``x1 + x2``, elementwise with broadcasting, as ``numpy.add`` (no
``out``/``where``/``dtype`` keywords); its partial derivatives are both 1.  A cotangent is summed
back over broadcast axes.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.add(np.array([1.0, 2.0]), 10.0).tolist()
    [11.0, 12.0]
    >>> [float(g) for g in ft.grad(fnp.add, argnums=(0, 1))(1.0, 2.0)]
    [1.0, 1.0]
"""
add_p = defbinary("add", lambda xp, x1, x2: xp.add(x1, x2), same, same, doc=_ADD_DOC)

_SUBTRACT_DOC = """``fnp.subtract(x1, x2)``: ``x1 - x2``, elementwise with broadcasting, as
``numpy.subtract`` (no ``out``/``where``/``dtype`` keywords); its partial derivatives are 1 and -1.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.subtract(np.array([5.0, 3.0]), 1.0).tolist()
    [4.0, 2.0]
    >>> [float(g) for g in ft.grad(fnp.subtract, argnums=(0, 1))(1.0, 2.0)]
    [1.0, -1.0]
"""
subtract_p = defbinary(
    "subtract",
    lambda xp, x1, x2: xp.subtract(x1, x2),
    same,
    lambda t, y, x1, x2: -t,
    doc=_SUBTRACT_DOC,
)


def _multiply_jvp(tangents, y, x1, x2):
    x1_dot, x2_dot = tangents
    # A square: one product, doubled (the same numbers as the sum of both terms).
    if x1 is x2 and x1_dot is x2_dot and x1_dot is not None:
        t = x1_dot * x2
        return t + t
    terms = []
    if x1_dot is not None:
        terms.append(like_output(x1_dot * x2, y))
    if x2_dot is not None:
        terms.append(like_output(x1 * x2_dot, y))
    if not terms:
        return None
    return terms[0] if len(terms) == 1 else terms[0] + terms[1]


def _multiply_vjp(y_bar, y, x1, x2, wanted):
    if x1 is x2 and wanted[0] and wanted[1]:  # one value twice: one product, given to both
        # inputs (their tracers may differ: grad(f, (0, 1))(x, x)); for ``x * x`` the
        # reverse pass adds the two, the same numbers as ``t + t``.
        t = unbroadcast(y_bar * x2, x1)
        return t, t
    return (
        unbroadcast(y_bar * x2, x1) if wanted[0] else None,
        unbroadcast(x1 * y_bar, x2) if wanted[1] else None,
    )


_MULTIPLY_DOC = """``fnp.multiply(x1, x2)``: ``x1 * x2``, elementwise with broadcasting, as
``numpy.multiply`` (no ``out``/``where``/``dtype`` keywords); its partial derivatives are ``x2`` and
``x1``.  ``x * x`` (one value twice) differentiates with one product, ``2 x dx``, not two.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.multiply(np.array([2.0, 3.0]), 4.0).tolist()
    [8.0, 12.0]
    >>> [float(g) for g in ft.grad(fnp.multiply, argnums=(0, 1))(2.0, 5.0)]
    [5.0, 2.0]
"""
# Not from defbinary: ``x * x`` takes one product instead of two (see _multiply_jvp).
multiply_p = defop(
    "multiply",
    lambda xp, x1, x2: xp.multiply(x1, x2),
    jvp=_multiply_jvp,
    vjp=_multiply_vjp,
    family=FAMILY,
    ufunc=numpy.multiply,
    doc=_MULTIPLY_DOC,
)

_DIVIDE_DOC = """``fnp.divide(x1, x2)`` (also ``fnp.true_divide``, the same operator): ``x1 / x2``,
elementwise with broadcasting, as ``numpy.divide`` (no ``out``/``where``/``dtype`` keywords);
integers divide to float64.  Its partial derivatives are ``1 / x2`` and ``-x1 / x2**2``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.divide(np.array([1.0, 3.0]), 2.0).tolist()
    [0.5, 1.5]
    >>> float(fnp.true_divide(1, 4))
    0.25
    >>> [float(g) for g in ft.grad(fnp.divide, argnums=(0, 1))(1.0, 2.0)]
    [0.5, -0.25]
"""
divide_p = defbinary(
    "divide",
    lambda xp, x1, x2: xp.divide(x1, x2),
    lambda t, y, x1, x2: t / x2,
    lambda t, y, x1, x2: -t * y / x2,
    doc=_DIVIDE_DOC,
)


def _pow_partial_base(t, y, x1, x2):
    # d/dx x**p = p * x**(p-1), and 0 where p == 0 (so that 0**0 has derivative 0).
    if isinstance(x2, (int, float)):
        return t * (0.0 if x2 == 0 else x2 * power_p.bind(x1, x2 - 1))
    return t * select_p.bind(x2 == 0, 0.0, x2 * power_p.bind(x1, x2 - 1))


def _pow_partial_exponent(t, y, x1, x2):
    # d/dp x**p = log(x) * x**p, taking log(x) as 0 where x == 0 (JAX's convention).
    if isinstance(x1, (int, float)):
        safe_x = x1 or 1.0
    else:
        safe_x = select_p.bind(x1 == 0, 1.0, x1)
    return t * (log_p.bind(safe_x) * y)


_POWER_DOC = """``fnp.power(x1, x2)``: ``x1 ** x2``, elementwise with broadcasting, as
``numpy.power`` (no ``out``/``where``/``dtype`` keywords); its partial derivatives are
``x2 * x1**(x2 - 1)`` (0 where ``x2 == 0``) and ``log(x1) * x1**x2`` (0 where ``x1 == 0``, JAX's
convention).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.power(np.array([2.0, 3.0]), 2.0).tolist()
    [4.0, 9.0]
    >>> [float(np.round(g, 6)) for g in ft.grad(fnp.power, argnums=(0, 1))(2.0, 3.0)]  # 12, 8 ln 2
    [12.0, 5.545177]
"""
power_p = defbinary(
    "power",
    lambda xp, x1, x2: xp.power(x1, x2),
    _pow_partial_base,
    _pow_partial_exponent,
    doc=_POWER_DOC,
)

_FLOAT_POWER_DOC = """``fnp.float_power(x1, x2)``: ``x1 ** x2`` through NumPy's ``float_power``
loop (its float64/complex128 operands cast by the caller; NumPy's ``power`` of float64
rounds otherwise in the last bit), with :func:`power`'s partial derivatives.

Example:
    >>> import numpy as np
    >>> import ftransforms.numpy as fnp
    >>> x = np.array([2.0, 0.4])
    >>> fnp.float_power(x, 2.5).tolist() == np.float_power(x, 2.5).tolist()
    True
"""
float_power_p = defbinary(
    "float_power",
    lambda xp, x1, x2: xp.float_power(x1, x2),
    _pow_partial_base,
    _pow_partial_exponent,
    doc=_FLOAT_POWER_DOC,
)


def _balanced_eq(x, y, other):
    """1 where x == y (the output) and other differs, 0.5 where all three tie, else 0."""
    eq = (x == y).astype(y.dtype)
    return eq / (1 + (other == y).astype(y.dtype))


# NOTE [ties in maximum/minimum]: where both inputs equal the output, each gets half of
# the derivative (JAX's convention), so the two partials always sum to the full one.
def _tie_partial_first(t, y, x1, x2):
    return t * _balanced_eq(x1, y, x2)


def _tie_partial_second(t, y, x1, x2):
    return t * _balanced_eq(x2, y, x1)


_MAXIMUM_DOC = """``fnp.maximum(x1, x2)``: the larger of ``x1`` and ``x2`` (NaN if either is NaN),
elementwise with broadcasting, as ``numpy.maximum`` (no ``out``/``where``/``dtype`` keywords); the
derivative goes to the larger input, half to each where they tie (JAX's convention).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.maximum(np.array([1.0, 5.0]), 3.0).tolist()
    [3.0, 5.0]
    >>> [float(g) for g in ft.grad(fnp.maximum, argnums=(0, 1))(2.0, 2.0)]  # a tie
    [0.5, 0.5]
"""
maximum_p = defbinary(
    "maximum",
    lambda xp, x1, x2: xp.maximum(x1, x2),
    _tie_partial_first,
    _tie_partial_second,
    doc=_MAXIMUM_DOC,
)

_MINIMUM_DOC = """``fnp.minimum(x1, x2)``: the smaller of ``x1`` and ``x2`` (NaN if either is NaN),
elementwise with broadcasting, as ``numpy.minimum`` (no ``out``/``where``/``dtype`` keywords); the
derivative goes to the smaller input, half to each where they tie (JAX's convention).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.minimum(np.array([1.0, 5.0]), 3.0).tolist()
    [1.0, 3.0]
    >>> [float(g) for g in ft.grad(fnp.minimum, argnums=(0, 1))(2.0, 2.0)]  # a tie
    [0.5, 0.5]
"""
minimum_p = defbinary(
    "minimum",
    lambda xp, x1, x2: xp.minimum(x1, x2),
    _tie_partial_first,
    _tie_partial_second,
    doc=_MINIMUM_DOC,
)

_ARCTAN2_DOC = """``fnp.arctan2(x1, x2)``: the angle of the point ``(x2, x1)``, in ``[-pi, pi]``,
elementwise with broadcasting, as ``numpy.arctan2`` (no ``out``/``where``/``dtype`` keywords); its
partial derivatives are ``x2 / (x1**2 + x2**2)`` and ``-x1 / (x1**2 + x2**2)``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> float(np.round(fnp.arctan2(1.0, -1.0), 6))  # 3 pi / 4
    2.356194
    >>> [float(g) for g in ft.grad(fnp.arctan2, argnums=(0, 1))(1.0, 1.0)]
    [0.5, -0.5]
"""
arctan2_p = defbinary(
    "arctan2",
    lambda xp, x1, x2: xp.arctan2(x1, x2),
    lambda t, y, x1, x2: t * x2 / (x1 * x1 + x2 * x2),
    lambda t, y, x1, x2: -t * x1 / (x1 * x1 + x2 * x2),
    doc=_ARCTAN2_DOC,
)

_REMAINDER_DOC = """``fnp.remainder(x1, x2)`` (also ``fnp.mod``, the same operator): ``x1 % x2``
with the sign of ``x2``, elementwise with broadcasting, as ``numpy.remainder`` (no
``out``/``where``/``dtype`` keywords); its partial derivatives are 1 and ``-floor(x1 / x2)``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.remainder(np.array([5.0, -5.0]), 3.0).tolist()
    [2.0, 1.0]
    >>> fnp.mod(np.array([7, -7]), 4).tolist()
    [3, 1]
    >>> [float(g) for g in ft.grad(fnp.remainder, argnums=(0, 1))(5.0, 3.0)]
    [1.0, -1.0]
"""
remainder_p = defbinary(
    "remainder",
    lambda xp, x1, x2: xp.remainder(x1, x2),
    same,
    lambda t, y, x1, x2: -t * floor_p.bind(x1 / x2),
    doc=_REMAINDER_DOC,
)

_FLOOR_DIVIDE_DOC = """``fnp.floor_divide(x1, x2)``: ``x1 // x2``, ``floor(x1 / x2)``, elementwise
with broadcasting, as ``numpy.floor_divide`` (no ``out``/``where``/``dtype`` keywords).  Its output
carries no derivative: ``ft.grad`` gives 0 through it.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.floor_divide(np.array([7.0, -7.0]), 2.0).tolist()
    [3.0, -4.0]
    >>> float(ft.grad(fnp.floor_divide)(7.0, 2.0))
    0.0
"""
floor_divide_p = defnondiff(
    "floor_divide", lambda xp, x, y: xp.floor_divide(x, y), doc=_FLOOR_DIVIDE_DOC
)

_FMOD_DOC = """``fnp.fmod(x1, x2)``: the C remainder ``x1 - trunc(x1 / x2) * x2``, with the sign of
``x1``, elementwise with broadcasting, as ``numpy.fmod``; its partial derivatives are 1 and
``-trunc(x1 / x2)`` (JAX's ``jnp.fmod``).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.fmod(np.array([5.0, -5.0]), 3.0).tolist()
    [2.0, -2.0]
    >>> [float(g) for g in ft.grad(fnp.fmod, argnums=(0, 1))(-5.0, 3.0)]
    [1.0, 1.0]
"""
fmod_p = defbinary(
    "fmod",
    lambda xp, x1, x2: xp.fmod(x1, x2),
    same,
    lambda t, y, x1, x2: -t * trunc_p.bind(x1 / x2),
    doc=_FMOD_DOC,
)

_LDEXP_DOC = """``fnp.ldexp(x1, x2)``: ``x1 * 2**x2`` for an integer exponent ``x2``, exact (no
rounding, no overflow of ``2**x2`` alone), elementwise with broadcasting, as ``numpy.ldexp``
(float32 stays float32; integer ``x1`` gives float64).  It is linear in ``x1``: its derivative
there is ``2**x2``; the integer ``x2`` has none.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.ldexp(np.array([1.5, -3.0]), np.array([2, -1])).tolist()
    [6.0, -1.5]
    >>> ft.grad(lambda x: fnp.ldexp(x, 3).sum())(np.array([1.0, 2.0])).tolist()
    [8.0, 8.0]
"""
ldexp_p = defop(
    "ldexp",
    lambda xp, x1, x2: xp.ldexp(x1, x2),
    transpose=lambda y_bar, x1, x2: unbroadcast(ldexp_p.bind(y_bar, x2), x1),
    family=FAMILY,
    ufunc=numpy.ldexp,
    doc=_LDEXP_DOC,
)


def _nextafter_no_derivative(*args, **params):
    stack = current_stack()
    where = f"{stack[-1].name}: " if stack else ""
    raise UnsupportedOperationError(
        f"{where}numpy.nextafter has no derivative (JAX and torch define none either): its "
        f"value is the neighbouring float of x1, a step function of both inputs.  Wrap its "
        f"inputs in fnp.stop_gradient(...) for a zero derivative, or use x1 itself for the "
        f"derivative 1 of the value it approximates."
    )


_NEXTAFTER_DOC = """``fnp.nextafter(x1, x2)``: the next floating-point value after ``x1`` towards
``x2``, elementwise with broadcasting, as ``numpy.nextafter`` (float32 steps are float32
steps).  It has no derivative, as in JAX and torch: differentiating through it raises
:class:`~ftransforms.errors.UnsupportedOperationError`; ``vmap`` and ``jit`` work.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> bool(fnp.nextafter(1.0, 2.0) - 1.0 == np.finfo(np.float64).eps)
    True
    >>> ft.vmap(fnp.nextafter)(np.zeros(2), np.array([1.0, -1.0])).tolist()
    [5e-324, -5e-324]
"""
nextafter_p = defbinary(
    "nextafter",
    lambda xp, x1, x2: xp.nextafter(x1, x2),
    _nextafter_no_derivative,
    _nextafter_no_derivative,
    doc=_NEXTAFTER_DOC,
)

# -- two outputs ------------------------------------------------------------------------
#
# NOTE [elementwise ops with two outputs]: ``divmod``, ``modf`` and ``frexp`` are one
# primitive each (``multiple_results=True``), so that the values are NumPy's own, computed
# in one pass (``modf(-0.0)`` is ``(-0.0, -0.0)``, ``modf(inf)`` is ``(0.0, inf)``, which
# ``x - trunc(x)`` gets wrong).  The output that is a whole number (the quotient, the
# integral part, the exponent) has a symbolic-zero derivative; the other one carries the
# derivative JAX gives: d(x1 % x2) = dx1 - floor(x1 / x2) dx2 (the quotient output itself),
# d frac(x) = dx, d mantissa(x) = 2**-e dx (exact, as ``ldexp``).  Their batching rule is
# the elementwise family's, applied to every output (``batching_rules/elementwise.py``).


def _divmod_jvp(tangents, y, x1, x2):
    x1_dot, x2_dot = tangents
    q, r = y
    r_dot = None
    if x1_dot is not None:
        r_dot = like_output(x1_dot, r)
    if x2_dot is not None:
        t = like_output(-(x2_dot * q), r)
        r_dot = t if r_dot is None else r_dot + t
    return None, r_dot


def _divmod_vjp(y_bar, y, x1, x2, wanted):
    r_bar = y_bar[1]
    if r_bar is None:
        return None, None
    return (
        unbroadcast(r_bar, x1) if wanted[0] else None,
        unbroadcast(-(r_bar * y[0]), x2) if wanted[1] else None,
    )


_DIVMOD_DOC = """``fnp.divmod(x1, x2)``: ``(x1 // x2, x1 % x2)`` in one pass, elementwise with
broadcasting, as ``numpy.divmod`` (the same values and dtypes as ``floor_divide`` and
``remainder``).  The quotient has derivative 0; the remainder's partial derivatives are 1 and
``-(x1 // x2)`` (JAX's ``jnp.divmod``).  NOTE [elementwise ops with two outputs].

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> [a.tolist() for a in fnp.divmod(np.array([7.5, -7.5]), 2.0)]
    [[3.0, -4.0], [1.5, 0.5]]
    >>> [float(g) for g in ft.grad(lambda x, y: fnp.divmod(x, y)[1], argnums=(0, 1))(7.5, 2.0)]
    [1.0, -3.0]
"""
divmod_p = defop(
    "divmod",
    lambda xp, x1, x2: tuple(xp.divmod(x1, x2)),
    jvp=_divmod_jvp,
    vjp=_divmod_vjp,
    multiple_results=True,
    ufunc=numpy.divmod,
    doc=_DIVMOD_DOC,
)


def _modf_vjp(y_bar, y, x, wanted):
    frac_bar = y_bar[0]
    return (None if frac_bar is None else unbroadcast(frac_bar, x),)


_MODF_DOC = """``fnp.modf(x)``: ``(fractional part, integral part)``, both with the sign of ``x``,
elementwise, as ``numpy.modf`` (``modf(-0.0)`` is ``(-0.0, -0.0)``, ``modf(inf)`` is
``(0.0, inf)``; integers give float64).  The fractional part has derivative 1, the integral
part 0 (JAX's ``jnp.modf``).  NOTE [elementwise ops with two outputs].

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> [a.tolist() for a in fnp.modf(np.array([2.5, -3.25]))]
    [[0.5, -0.25], [2.0, -3.0]]
    >>> float(ft.grad(lambda x: fnp.modf(x)[0] + 3 * fnp.modf(x)[1])(2.5))
    1.0
"""
modf_p = defop(
    "modf",
    lambda xp, x: tuple(xp.modf(x)),
    jvp=lambda tangents, y, x: (like_output(tangents[0], y[0]), None),
    vjp=_modf_vjp,
    multiple_results=True,
    ufunc=numpy.modf,
    doc=_MODF_DOC,
)


def _frexp_vjp(y_bar, y, x, wanted):
    m_bar = y_bar[0]
    if m_bar is None:
        return (None,)
    return (unbroadcast(ldexp_p.bind(m_bar, negative_p.bind(y[1])), x),)


_FREXP_DOC = """``fnp.frexp(x)``: ``(mantissa, exponent)`` with ``x == mantissa * 2**exponent``,
``0.5 <= |mantissa| < 1`` and an int32 exponent, elementwise, as ``numpy.frexp`` (float32
stays float32; 0, inf and NaN are their own mantissa with exponent 0).  The mantissa's
derivative is ``2**-exponent`` (exact; JAX's ``jnp.frexp``), the exponent has none.
NOTE [elementwise ops with two outputs].

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> [a.tolist() for a in fnp.frexp(np.array([3.0, -0.5]))]
    [[0.75, -0.5], [2, 0]]
    >>> float(ft.grad(lambda x: fnp.frexp(x)[0])(3.0))
    0.25
"""
frexp_p = defop(
    "frexp",
    lambda xp, x: tuple(xp.frexp(x)),
    jvp=lambda tangents, y, x: (
        like_output(ldexp_p.bind(tangents[0], negative_p.bind(y[1])), y[0]),
        None,
    ),
    vjp=_frexp_vjp,
    multiple_results=True,
    ufunc=numpy.frexp,
    doc=_FREXP_DOC,
)

_EQUAL_DOC = """``fnp.equal(x1, x2)``: ``x1 == x2``, elementwise with broadcasting, as
``numpy.equal`` (no ``out``/``where``/``dtype`` keywords): a bool array, with no derivative.

Example:
    >>> import numpy as np
    >>> import ftransforms.numpy as fnp
    >>> fnp.equal(np.array([1.0, 2.0]), 2.0).tolist()
    [False, True]
    >>> fnp.equal(np.array([np.nan]), np.nan).tolist()  # NaN equals nothing
    [False]
"""
equal_p = defnondiff("equal", lambda xp, x, y: xp.equal(x, y), doc=_EQUAL_DOC)

_NOT_EQUAL_DOC = """``fnp.not_equal(x1, x2)``: ``x1 != x2``, elementwise with broadcasting, as
``numpy.not_equal`` (no ``out``/``where``/``dtype`` keywords): a bool array, with no derivative.

Example:
    >>> import numpy as np
    >>> import ftransforms.numpy as fnp
    >>> fnp.not_equal(np.array([1.0, 2.0]), 2.0).tolist()
    [True, False]
"""
not_equal_p = defnondiff("not_equal", lambda xp, x, y: xp.not_equal(x, y), doc=_NOT_EQUAL_DOC)

_LESS_DOC = """``fnp.less(x1, x2)``: ``x1 < x2``, elementwise with broadcasting, as ``numpy.less``
(no ``out``/``where``/``dtype`` keywords): a bool array, with no derivative.  Under a transform it
selects branches (``fnp.where``), whose derivatives flow as usual.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.less(np.array([1.0, 2.0, 3.0]), 2.0).tolist()
    [True, False, False]
    >>> float(ft.grad(lambda x: fnp.where(fnp.less(x, 0.0), -x, x))(-2.0))  # picks a branch
    -1.0
"""
less_p = defnondiff("less", lambda xp, x, y: xp.less(x, y), doc=_LESS_DOC)

_LESS_EQUAL_DOC = """``fnp.less_equal(x1, x2)``: ``x1 <= x2``, elementwise with broadcasting, as
``numpy.less_equal`` (no ``out``/``where``/``dtype`` keywords): a bool array, with no derivative.

Example:
    >>> import numpy as np
    >>> import ftransforms.numpy as fnp
    >>> fnp.less_equal(np.array([1.0, 2.0, 3.0]), 2.0).tolist()
    [True, True, False]
"""
less_equal_p = defnondiff("less_equal", lambda xp, x, y: xp.less_equal(x, y), doc=_LESS_EQUAL_DOC)

_GREATER_DOC = """``fnp.greater(x1, x2)``: ``x1 > x2``, elementwise with broadcasting, as
``numpy.greater`` (no ``out``/``where``/``dtype`` keywords): a bool array, with no derivative.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.numpy as fnp
    >>> fnp.greater(np.array([1.0, 2.0, 3.0]), 2.0).tolist()
    [False, False, True]
    >>> ft.vmap(fnp.greater)(np.array([1.0, 4.0]), np.array([2.0, 3.0])).tolist()
    [False, True]
"""
greater_p = defnondiff("greater", lambda xp, x, y: xp.greater(x, y), doc=_GREATER_DOC)

_GREATER_EQUAL_DOC = """``fnp.greater_equal(x1, x2)``: ``x1 >= x2``, elementwise with broadcasting,
as ``numpy.greater_equal`` (no ``out``/``where``/``dtype`` keywords): a bool array, with no
derivative.

Example:
    >>> import numpy as np
    >>> import ftransforms.numpy as fnp
    >>> fnp.greater_equal(np.array([1.0, 2.0, 3.0]), 2.0).tolist()
    [False, True, True]
"""
greater_equal_p = defnondiff(
    "greater_equal", lambda xp, x, y: xp.greater_equal(x, y), doc=_GREATER_EQUAL_DOC
)

_LOGICAL_AND_DOC = """``fnp.logical_and(x1, x2)``: ``x1 and x2``, elementwise with broadcasting, as
``numpy.logical_and`` (no ``out``/``where``/``dtype`` keywords): a bool array (nonzero numbers are
true), with no derivative.

Example:
    >>> import numpy as np
    >>> import ftransforms.numpy as fnp
    >>> a = np.array([True, True, False, False])
    >>> b = np.array([True, False, True, False])
    >>> fnp.logical_and(a, b).tolist()
    [True, False, False, False]
"""
logical_and_p = defnondiff(
    "logical_and", lambda xp, x, y: xp.logical_and(x, y), doc=_LOGICAL_AND_DOC
)

_LOGICAL_OR_DOC = """``fnp.logical_or(x1, x2)``: ``x1 or x2``, elementwise with broadcasting, as
``numpy.logical_or`` (no ``out``/``where``/``dtype`` keywords): a bool array (nonzero numbers are
true), with no derivative.

Example:
    >>> import numpy as np
    >>> import ftransforms.numpy as fnp
    >>> a = np.array([True, True, False, False])
    >>> b = np.array([True, False, True, False])
    >>> fnp.logical_or(a, b).tolist()
    [True, True, True, False]
"""
logical_or_p = defnondiff("logical_or", lambda xp, x, y: xp.logical_or(x, y), doc=_LOGICAL_OR_DOC)

_LOGICAL_XOR_DOC = """``fnp.logical_xor(x1, x2)``: exactly one of ``x1``, ``x2`` true, elementwise
with broadcasting, as ``numpy.logical_xor`` (no ``out``/``where``/``dtype`` keywords): a bool array
(nonzero numbers are true), with no derivative.

Example:
    >>> import numpy as np
    >>> import ftransforms.numpy as fnp
    >>> a = np.array([True, True, False, False])
    >>> b = np.array([True, False, True, False])
    >>> fnp.logical_xor(a, b).tolist()
    [False, True, True, False]
"""
logical_xor_p = defnondiff(
    "logical_xor", lambda xp, x, y: xp.logical_xor(x, y), doc=_LOGICAL_XOR_DOC
)
# ``&``, ``|``, ``^`` as NumPy spells them: bitwise on integers, logical on booleans.
_BITWISE_AND_DOC = """``fnp.bitwise_and(x1, x2)``: ``x1 & x2``, bitwise on integers and logical on
booleans, elementwise with broadcasting, as ``numpy.bitwise_and`` (no ``out``/``where``/``dtype``
keywords); no derivative.

Example:
    >>> import numpy as np
    >>> import ftransforms.numpy as fnp
    >>> fnp.bitwise_and(np.array([12, 10]), 6).tolist()
    [4, 2]
    >>> fnp.bitwise_and(np.array([True, False]), np.array([True, True])).tolist()
    [True, False]
"""
bitwise_and_p = defnondiff(
    "bitwise_and", lambda xp, x, y: xp.bitwise_and(x, y), doc=_BITWISE_AND_DOC
)

_BITWISE_OR_DOC = """``fnp.bitwise_or(x1, x2)``: ``x1 | x2``, bitwise on integers and logical on
booleans, elementwise with broadcasting, as ``numpy.bitwise_or`` (no ``out``/``where``/``dtype``
keywords); no derivative.

Example:
    >>> import numpy as np
    >>> import ftransforms.numpy as fnp
    >>> fnp.bitwise_or(np.array([12, 10]), 6).tolist()
    [14, 14]
    >>> fnp.bitwise_or(np.array([True, False]), np.array([True, True])).tolist()
    [True, True]
"""
bitwise_or_p = defnondiff("bitwise_or", lambda xp, x, y: xp.bitwise_or(x, y), doc=_BITWISE_OR_DOC)

_BITWISE_XOR_DOC = """``fnp.bitwise_xor(x1, x2)``: ``x1 ^ x2``, bitwise on integers and logical on
booleans, elementwise with broadcasting, as ``numpy.bitwise_xor`` (no ``out``/``where``/``dtype``
keywords); no derivative.

Example:
    >>> import numpy as np
    >>> import ftransforms.numpy as fnp
    >>> fnp.bitwise_xor(np.array([12, 10]), 6).tolist()
    [10, 12]
    >>> fnp.bitwise_xor(np.array([True, False]), np.array([True, True])).tolist()
    [False, True]
"""
bitwise_xor_p = defnondiff(
    "bitwise_xor", lambda xp, x, y: xp.bitwise_xor(x, y), doc=_BITWISE_XOR_DOC
)

# -- integer ufuncs and spacing: no derivative -----------------------------------------


def _backend_ufunc(name: str) -> Callable:
    """``impl(xp, *args)``: ``xp.<name>(*args)``, or a clear error where the array
    namespace lacks it (CuPy has fewer ufuncs than NumPy)."""

    def impl(xp, *args):
        fn = getattr(xp, name, None)
        if fn is None:
            raise UnsupportedOperationError(
                f"ftransforms.numpy.{name}: {xp.__name__} has no {name}, so it cannot be "
                f"evaluated on these arrays; move them to the host (NumPy) for this call."
            )
        return fn(*args)

    impl.__name__ = f"{name}_impl"
    return impl


#: name -> (what it computes, an example call, its result)
_INTEGER_UFUNC_DOCS = {
    "gcd": (
        "the greatest common divisor of ``|x1|`` and ``|x2|``",
        "gcd(np.array([12, 20]), 8)",
        "[4, 4]",
    ),
    "lcm": (
        "the least common multiple of ``|x1|`` and ``|x2|``",
        "lcm(np.array([4, 6]), 10)",
        "[20, 30]",
    ),
    "left_shift": (
        "``x1 << x2``, the bits of integers shifted left",
        "left_shift(np.array([1, 3]), 2)",
        "[4, 12]",
    ),
    "right_shift": (
        "``x1 >> x2``, the bits of integers shifted right",
        "right_shift(np.array([8, 13]), 2)",
        "[2, 3]",
    ),
    "bitwise_count": (
        "the number of 1 bits in ``|x|``",
        "bitwise_count(np.array([7, -8]))",
        "[3, 1]",
    ),
    "spacing": (
        "the distance from ``x`` to the next float away from zero (piecewise constant)",
        "spacing(np.array([1.0, 2.0]))",
        "[2.220446049250313e-16, 4.440892098500626e-16]",
    ),
}


def _integer_ufunc(name: str, impl: Callable | None = None) -> Primitive:
    what, call, result = _INTEGER_UFUNC_DOCS[name]
    doc = (
        f"``fnp.{name}``: {what}, elementwise with broadcasting, as ``numpy.{name}`` (no "
        f"``out``/``where``/``dtype`` keywords); no derivative.\n\nExample:\n"
        f"    >>> import numpy as np\n    >>> import ftransforms.numpy as fnp\n"
        f"    >>> fnp.{call}.tolist()\n    {result}\n"
    )
    return defnondiff(name, impl or _backend_ufunc(name), doc=doc)


def _spacing_impl(xp, x):
    """``xp.spacing(x)``; where the namespace lacks it (CuPy), NumPy's numbers from
    ``nextafter``: the signed step away from zero, the smallest subnormal at either zero,
    NaN at infinities, ``inf`` past the largest finite number.  NumPy's float16 loop
    differs: its spacing is positive, the step towards ``+inf``.  Steps that are float32
    subnormals other than the smallest follow the device's flush-to-zero rule."""
    fn = getattr(xp, "spacing", None)
    if fn is not None:
        return fn(x)
    x = xp.asarray(x)
    x = x.astype(numpy.promote_types(x.dtype, numpy.float16), copy=False)
    if x.dtype == numpy.float16:
        step = xp.abs(xp.nextafter(x, xp.asarray(numpy.inf, x.dtype)) - x)
        return xp.where(xp.isinf(x), xp.asarray(numpy.nan, x.dtype), step)
    away = xp.where(xp.signbit(x) & (x != 0), -numpy.inf, numpy.inf).astype(x.dtype)
    # at zero, a select rather than arithmetic: CuPy's float32 nextafter flushes the
    # smallest subnormal to zero and answers the smallest normal (seen on an H200)
    tiny = xp.asarray(numpy.finfo(x.dtype).smallest_subnormal, x.dtype)
    return xp.where(x == 0, tiny, xp.nextafter(x, away) - x)


gcd_p, lcm_p = _integer_ufunc("gcd"), _integer_ufunc("lcm")
left_shift_p, right_shift_p = _integer_ufunc("left_shift"), _integer_ufunc("right_shift")
bitwise_count_p = _integer_ufunc("bitwise_count")
spacing_p = _integer_ufunc("spacing", _spacing_impl)


# -- select and casts -------------------------------------------------------------------

select_p = defop(
    "select",
    lambda xp, c, x1, x2: xp.where(c, x1, x2),
    jvp=(
        None,
        lambda x_dot, y, c, x1, x2: like_output(select_p.bind(c, x_dot, 0.0), y),
        lambda x_dot, y, c, x1, x2: like_output(select_p.bind(c, 0.0, x_dot), y),
    ),
    vjp=(
        None,
        lambda y_bar, y, c, x1, x2: unbroadcast(select_p.bind(c, y_bar, 0.0), x1),
        lambda y_bar, y, c, x1, x2: unbroadcast(select_p.bind(c, 0.0, y_bar), x2),
    ),
    family=FAMILY,
    doc="``where(c, x1, x2)``: elements of x1 where c holds, else of x2.",
)


def _is_inexact(dtype) -> bool:
    return numpy.dtype(dtype).kind in "fc"


def _convert_vjp(y_bar, y, x, dtype):
    if y_bar.dtype.kind == "c" and x.dtype.kind != "c":
        y_bar = real_p.bind(y_bar)  # NOTE [complex derivatives]: a real input keeps Re
    return convert_p.bind(y_bar, dtype=x.dtype)


convert_p = defop(
    "convert",
    lambda xp, x, dtype: xp.asarray(x).astype(dtype),
    jvp=(lambda x_dot, y, x, dtype: convert_p.bind(x_dot, dtype=y.dtype),),
    vjp=(_convert_vjp,),
    nondiff_when=lambda dtype: not _is_inexact(dtype),
    family=FAMILY,
    doc="``x.astype(dtype)``; a cast to an integer or bool dtype has no derivative.",
)

__all__ = [name for name in dir() if name.endswith("_p")]
