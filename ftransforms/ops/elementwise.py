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

from ftransforms.core.primitive import Primitive, defop
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

negative_p = defop(
    "negative",
    lambda xp, x: xp.negative(x),
    transpose=lambda y_bar, x: negative_p.bind(y_bar),
    family=FAMILY,
    ufunc=numpy.negative,
)
exp_p = defunary("exp", lambda xp, x: xp.exp(x), lambda y, x: y)
# Python floats, not numpy.float64: a weak scalar keeps a float32 derivative float32.
_LN2, _LN10 = math.log(2.0), math.log(10.0)
exp2_p = defunary("exp2", lambda xp, x: xp.exp2(x), lambda y, x: y * _LN2)
expm1_p = defunary("expm1", lambda xp, x: xp.expm1(x), lambda y, x: y + 1)
log_p = defunary("log", lambda xp, x: xp.log(x), lambda y, x: 1 / x)
log2_p = defunary("log2", lambda xp, x: xp.log2(x), lambda y, x: 1 / (x * _LN2))
log10_p = defunary("log10", lambda xp, x: xp.log10(x), lambda y, x: 1 / (x * _LN10))
log1p_p = defunary("log1p", lambda xp, x: xp.log1p(x), lambda y, x: 1 / (x + 1))
sqrt_p = defunary("sqrt", lambda xp, x: xp.sqrt(x), lambda y, x: 0.5 / y)
cbrt_p = defunary("cbrt", lambda xp, x: xp.cbrt(x), lambda y, x: 1 / (3 * y * y))
square_p = defunary("square", lambda xp, x: xp.square(x), lambda y, x: 2 * x)
reciprocal_p = defunary("reciprocal", lambda xp, x: xp.reciprocal(x), lambda y, x: -(y * y))
sin_p = defunary("sin", lambda xp, x: xp.sin(x), lambda y, x: cos_p.bind(x))
cos_p = defunary("cos", lambda xp, x: xp.cos(x), lambda y, x: -sin_p.bind(x))
tan_p = defunary("tan", lambda xp, x: xp.tan(x), lambda y, x: 1 + y * y)
arcsin_p = defunary("arcsin", lambda xp, x: xp.arcsin(x), lambda y, x: 1 / sqrt_p.bind(1 - x * x))
arccos_p = defunary("arccos", lambda xp, x: xp.arccos(x), lambda y, x: -1 / sqrt_p.bind(1 - x * x))
arctan_p = defunary("arctan", lambda xp, x: xp.arctan(x), lambda y, x: 1 / (1 + x * x))
sinh_p = defunary("sinh", lambda xp, x: xp.sinh(x), lambda y, x: cosh_p.bind(x))
cosh_p = defunary("cosh", lambda xp, x: xp.cosh(x), lambda y, x: sinh_p.bind(x))
tanh_p = defunary("tanh", lambda xp, x: xp.tanh(x), lambda y, x: (1 - y) * (1 + y))
arcsinh_p = defunary(
    "arcsinh", lambda xp, x: xp.arcsinh(x), lambda y, x: 1 / sqrt_p.bind(x * x + 1)
)
arccosh_p = defunary(
    "arccosh", lambda xp, x: xp.arccosh(x), lambda y, x: 1 / sqrt_p.bind(x * x - 1)
)
arctanh_p = defunary("arctanh", lambda xp, x: xp.arctanh(x), lambda y, x: 1 / (1 - x * x))


def _abs_jvp(x_dot, y, x):
    if x.dtype.kind == "c":  # d|z| = Re(conj(z) dz) / |z|
        return real_p.bind(conj_p.bind(x) * x_dot) / y
    return x_dot * select_p.bind(x >= 0, 1.0, -1.0).astype(y.dtype)


def _abs_vjp(y_bar, y, x):
    if x.dtype.kind == "c":  # the transpose of the map above: y_bar * conj(z) / |z|
        return y_bar * conj_p.bind(x) / y
    return y_bar * select_p.bind(x >= 0, 1.0, -1.0).astype(y.dtype)


abs_p = defop(
    "abs",
    lambda xp, x: xp.abs(x),
    jvp=(_abs_jvp,),
    vjp=(_abs_vjp,),
    family=FAMILY,
    ufunc=numpy.absolute,
    doc="``abs``; derivative 1 at 0 for real inputs (JAX's convention).",
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

sign_p = defnondiff("sign", lambda xp, x: xp.sign(x))
floor_p = defnondiff("floor", lambda xp, x: xp.floor(x))
ceil_p = defnondiff("ceil", lambda xp, x: xp.ceil(x))
round_p = defnondiff("round", lambda xp, x, decimals=0: xp.round(x, decimals), ufunc=None)
trunc_p = defnondiff("trunc", lambda xp, x: xp.trunc(x))
rint_p = defnondiff("rint", lambda xp, x: xp.rint(x))
isnan_p = defnondiff("isnan", lambda xp, x: xp.isnan(x))
isinf_p = defnondiff("isinf", lambda xp, x: xp.isinf(x))
isfinite_p = defnondiff("isfinite", lambda xp, x: xp.isfinite(x))
signbit_p = defnondiff("signbit", lambda xp, x: xp.signbit(x))
logical_not_p = defnondiff("logical_not", lambda xp, x: xp.logical_not(x))
invert_p = defnondiff("invert", lambda xp, x: xp.invert(x))

stop_gradient_p = defnondiff(
    "stop_gradient",
    lambda xp, x: x,
    doc="Identity whose output has no derivative at any transform level.",
)

# -- binary -----------------------------------------------------------------------------


add_p = defbinary("add", lambda xp, x1, x2: xp.add(x1, x2), same, same)
subtract_p = defbinary(
    "subtract", lambda xp, x1, x2: xp.subtract(x1, x2), same, lambda t, y, x1, x2: -t
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
    if x1 is x2 and wanted[0] and wanted[1]:  # a square: both inputs are one value
        t = y_bar * x2
        return unbroadcast(t + t, x1), None
    return (
        unbroadcast(y_bar * x2, x1) if wanted[0] else None,
        unbroadcast(x1 * y_bar, x2) if wanted[1] else None,
    )


# Not from defbinary: ``x * x`` takes one product instead of two (see _multiply_jvp).
multiply_p = defop(
    "multiply",
    lambda xp, x1, x2: xp.multiply(x1, x2),
    jvp=_multiply_jvp,
    vjp=_multiply_vjp,
    family=FAMILY,
    ufunc=numpy.multiply,
    doc="``x * y``; ``x * x`` differentiates with one product (``2 x dx``), not two.",
)
divide_p = defbinary(
    "divide",
    lambda xp, x1, x2: xp.divide(x1, x2),
    lambda t, y, x1, x2: t / x2,
    lambda t, y, x1, x2: -t * y / x2,
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


power_p = defbinary(
    "power", lambda xp, x1, x2: xp.power(x1, x2), _pow_partial_base, _pow_partial_exponent
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


maximum_p = defbinary(
    "maximum", lambda xp, x1, x2: xp.maximum(x1, x2), _tie_partial_first, _tie_partial_second
)
minimum_p = defbinary(
    "minimum", lambda xp, x1, x2: xp.minimum(x1, x2), _tie_partial_first, _tie_partial_second
)
arctan2_p = defbinary(
    "arctan2",
    lambda xp, x1, x2: xp.arctan2(x1, x2),
    lambda t, y, x1, x2: t * x2 / (x1 * x1 + x2 * x2),
    lambda t, y, x1, x2: -t * x1 / (x1 * x1 + x2 * x2),
)
remainder_p = defbinary(
    "remainder",
    lambda xp, x1, x2: xp.remainder(x1, x2),
    same,
    lambda t, y, x1, x2: -t * floor_p.bind(x1 / x2),
)
floor_divide_p = defnondiff("floor_divide", lambda xp, x, y: xp.floor_divide(x, y))

equal_p = defnondiff("equal", lambda xp, x, y: xp.equal(x, y))
not_equal_p = defnondiff("not_equal", lambda xp, x, y: xp.not_equal(x, y))
less_p = defnondiff("less", lambda xp, x, y: xp.less(x, y))
less_equal_p = defnondiff("less_equal", lambda xp, x, y: xp.less_equal(x, y))
greater_p = defnondiff("greater", lambda xp, x, y: xp.greater(x, y))
greater_equal_p = defnondiff("greater_equal", lambda xp, x, y: xp.greater_equal(x, y))
logical_and_p = defnondiff("logical_and", lambda xp, x, y: xp.logical_and(x, y))
logical_or_p = defnondiff("logical_or", lambda xp, x, y: xp.logical_or(x, y))
logical_xor_p = defnondiff("logical_xor", lambda xp, x, y: xp.logical_xor(x, y))
# ``&``, ``|``, ``^`` as NumPy spells them: bitwise on integers, logical on booleans.
bitwise_and_p = defnondiff("bitwise_and", lambda xp, x, y: xp.bitwise_and(x, y))
bitwise_or_p = defnondiff("bitwise_or", lambda xp, x, y: xp.bitwise_or(x, y))
bitwise_xor_p = defnondiff("bitwise_xor", lambda xp, x, y: xp.bitwise_xor(x, y))

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
