"""Elementwise primitives: unary math, binary arithmetic, comparisons, select, casts.

Unary ops are declared with :func:`defunary` from their derivative ``d(y, x)`` (``y`` is
the output), which gives both the JVP (``x_dot * d``) and the VJP (``y_bar * d``).
Derivative conventions at kinks follow JAX: ``abs'(0) = 1``, ``maximum``/``minimum`` share
the derivative equally between tied inputs, ``sign``/``floor``/``round`` have derivative 0.
"""

from __future__ import annotations

import math

import numpy

from batching_rules.elementwise import elementwise
from ftransforms.core.primitive import defop
from ftransforms.ops._util import like_output, unbroadcast


def defunary(name: str, impl, deriv, **kwargs):
    """Declare a differentiable unary elementwise op from its derivative ``deriv(y, x)``."""
    return defop(
        name,
        impl,
        jvp=(lambda x_dot, y, x: x_dot * deriv(y, x),),
        vjp=(lambda y_bar, y, x: y_bar * deriv(y, x),),
        batch=elementwise,
        **kwargs,
    )


def defnondiff(name: str, impl, **kwargs):
    """Declare an elementwise op whose output carries no derivative."""
    return defop(name, impl, nondiff=True, batch=elementwise, **kwargs)


# -- unary ------------------------------------------------------------------------------

negative_p = defop(
    "negative",
    lambda xp, x: xp.negative(x),
    transpose=lambda y_bar, x: negative_p.bind(y_bar),
    batch=elementwise,
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
    batch=elementwise,
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
    batch=elementwise,
)
imag_p = defop(
    "imag",
    lambda xp, x: xp.imag(x),
    transpose=lambda y_bar, x: convert_p.bind(y_bar * -1j, dtype=x.dtype),
    batch=elementwise,
)
conj_p = defop(
    "conj",
    lambda xp, x: xp.conj(x),
    transpose=lambda y_bar, x: conj_p.bind(y_bar),
    batch=elementwise,
)

sign_p = defnondiff("sign", lambda xp, x: xp.sign(x))
floor_p = defnondiff("floor", lambda xp, x: xp.floor(x))
ceil_p = defnondiff("ceil", lambda xp, x: xp.ceil(x))
round_p = defnondiff("round", lambda xp, x, decimals=0: xp.round(x, decimals))
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


def _balanced_eq(x, y, other):
    """1 where x == y (the output) and other differs, 0.5 where all three tie, else 0."""
    eq = (x == y).astype(y.dtype)
    return eq / (1 + (other == y).astype(y.dtype))


add_p = defop(
    "add",
    lambda xp, x, y: xp.add(x, y),
    jvp=(
        lambda x_dot, out, x, y: like_output(x_dot, out),
        lambda y_dot, out, x, y: like_output(y_dot, out),
    ),
    vjp=(
        lambda g, out, x, y: unbroadcast(g, x),
        lambda g, out, x, y: unbroadcast(g, y),
    ),
    batch=elementwise,
)
subtract_p = defop(
    "subtract",
    lambda xp, x, y: xp.subtract(x, y),
    jvp=(
        lambda x_dot, out, x, y: like_output(x_dot, out),
        lambda y_dot, out, x, y: like_output(-y_dot, out),
    ),
    vjp=(
        lambda g, out, x, y: unbroadcast(g, x),
        lambda g, out, x, y: unbroadcast(-g, y),
    ),
    batch=elementwise,
)


def _multiply_jvp(tangents, out, x, y):
    x_dot, y_dot = tangents
    # A square: one product, doubled (the same numbers as the sum of both terms).
    if x is y and x_dot is y_dot and x_dot is not None:
        t = x_dot * y
        return t + t
    terms = []
    if x_dot is not None:
        terms.append(like_output(x_dot * y, out))
    if y_dot is not None:
        terms.append(like_output(x * y_dot, out))
    if not terms:
        return None
    return terms[0] if len(terms) == 1 else terms[0] + terms[1]


def _multiply_vjp(g, out, x, y, wanted):
    if x is y and wanted[0] and wanted[1]:  # a square: both inputs are one value
        t = g * y
        return unbroadcast(t + t, x), None
    return (
        unbroadcast(g * y, x) if wanted[0] else None,
        unbroadcast(x * g, y) if wanted[1] else None,
    )


multiply_p = defop(
    "multiply",
    lambda xp, x, y: xp.multiply(x, y),
    jvp=_multiply_jvp,
    vjp=_multiply_vjp,
    batch=elementwise,
    doc="``x * y``; ``x * x`` differentiates with one product (``2 x dx``), not two.",
)
divide_p = defop(
    "divide",
    lambda xp, x, y: xp.divide(x, y),
    jvp=(
        lambda x_dot, out, x, y: like_output(x_dot / y, out),
        lambda y_dot, out, x, y: like_output(-y_dot * out / y, out),
    ),
    vjp=(
        lambda g, out, x, y: unbroadcast(g / y, x),
        lambda g, out, x, y: unbroadcast(-g * out / y, y),
    ),
    batch=elementwise,
)


def _pow_dx(out, x, y):
    # d/dx x**y = y * x**(y-1), and 0 where y == 0 (so that 0**0 has derivative 0).
    if isinstance(y, (int, float)):
        return 0.0 if y == 0 else y * power_p.bind(x, y - 1)
    return select_p.bind(y == 0, 0.0, y * power_p.bind(x, y - 1))


def _pow_dy(out, x, y):
    # d/dy x**y = log(x) * x**y, taking log(x) as 0 where x == 0 (JAX's convention).
    safe_x = select_p.bind(x == 0, 1.0, x) if not isinstance(x, (int, float)) else (x or 1.0)
    return log_p.bind(safe_x) * out


power_p = defop(
    "power",
    lambda xp, x, y: xp.power(x, y),
    jvp=(
        lambda x_dot, out, x, y: like_output(x_dot * _pow_dx(out, x, y), out),
        lambda y_dot, out, x, y: like_output(y_dot * _pow_dy(out, x, y), out),
    ),
    vjp=(
        lambda g, out, x, y: unbroadcast(g * _pow_dx(out, x, y), x),
        lambda g, out, x, y: unbroadcast(g * _pow_dy(out, x, y), y),
    ),
    batch=elementwise,
)
maximum_p = defop(
    "maximum",
    lambda xp, x, y: xp.maximum(x, y),
    jvp=(
        lambda x_dot, out, x, y: like_output(x_dot * _balanced_eq(x, out, y), out),
        lambda y_dot, out, x, y: like_output(y_dot * _balanced_eq(y, out, x), out),
    ),
    vjp=(
        lambda g, out, x, y: unbroadcast(g * _balanced_eq(x, out, y), x),
        lambda g, out, x, y: unbroadcast(g * _balanced_eq(y, out, x), y),
    ),
    batch=elementwise,
)
minimum_p = defop(
    "minimum",
    lambda xp, x, y: xp.minimum(x, y),
    jvp=maximum_p.jvp_rules,
    vjp=maximum_p.vjp_rules,
    batch=elementwise,
)
arctan2_p = defop(
    "arctan2",
    lambda xp, x, y: xp.arctan2(x, y),
    jvp=(
        lambda x_dot, out, x, y: like_output(x_dot * y / (x * x + y * y), out),
        lambda y_dot, out, x, y: like_output(-y_dot * x / (x * x + y * y), out),
    ),
    vjp=(
        lambda g, out, x, y: unbroadcast(g * y / (x * x + y * y), x),
        lambda g, out, x, y: unbroadcast(-g * x / (x * x + y * y), y),
    ),
    batch=elementwise,
)
remainder_p = defop(
    "remainder",
    lambda xp, x, y: xp.remainder(x, y),
    jvp=(
        lambda x_dot, out, x, y: like_output(x_dot, out),
        lambda y_dot, out, x, y: like_output(-y_dot * floor_p.bind(x / y), out),
    ),
    vjp=(
        lambda g, out, x, y: unbroadcast(g, x),
        lambda g, out, x, y: unbroadcast(-g * floor_p.bind(x / y), y),
    ),
    batch=elementwise,
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
    lambda xp, c, x, y: xp.where(c, x, y),
    jvp=(
        None,
        lambda x_dot, out, c, x, y: like_output(select_p.bind(c, x_dot, 0.0), out),
        lambda y_dot, out, c, x, y: like_output(select_p.bind(c, 0.0, y_dot), out),
    ),
    vjp=(
        None,
        lambda g, out, c, x, y: unbroadcast(select_p.bind(c, g, 0.0), x),
        lambda g, out, c, x, y: unbroadcast(select_p.bind(c, 0.0, g), y),
    ),
    batch=elementwise,
    doc="``where(c, x, y)``: elements of x where c holds, else of y.",
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
    batch=elementwise,
    doc="``x.astype(dtype)``; a cast to an integer or bool dtype has no derivative.",
)

__all__ = [name for name in dir() if name.endswith("_p")]
