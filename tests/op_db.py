"""The op database: one :class:`OpEntry` per operation, driving the generic sweeps.

The sweeps run over every entry of :data:`OPS`: ``tests/test_ops.py`` (forward value vs
NumPy or JAX, ``jvp`` vs float64 finite differences, ``vjp`` vs ``jvp``, ``vmap`` over every
batch-axis placement vs a Python loop, second order, compositions vs JAX, the NumPy
protocols), ``tests/test_jit_ops.py`` (``jit`` replay) and ``tests/test_ops_strict.py``
(the strict CuPy stand-in).  ``tests/test_registry.py`` requires an entry for every
primitive of ``ftransforms.core.primitive.REGISTRY`` and every public function of
``ftransforms.numpy`` (``fnp.linalg.*``, ``fnp.fft.*`` included) and of
``ftransforms.scipy.special``, and says where one is missing.

THE FORMAT (one entry type, one registry)
=========================================

Entries live in family modules, ``tests/op_db_<family>.py`` (this module holds the core
elementwise/reduction/shape/indexing/linalg/special/random entries and imports the
others: add the import of a new family module at the bottom of this file).  A family
module writes::

    from tests.op_db_base import S, Draw, Sample, add, call

    def _ptp_samples(d: Draw) -> list[Sample]:
        return [S("2x3_all", d.distinct((2, 3))), S("3x4_axis0", d.distinct((3, 4)), axis=0)]

    add("ptp", call("ptp"), _ptp_samples, prims=("reduce_max", "reduce_min"))

``add(name, fn, sampler, prims=None, funcs=None, **options)`` builds an
:class:`~tests.op_db_base.OpEntry` and appends it to :data:`OPS`:

* ``name``: unique; the test ids use it.
* ``fn(m, *args, **kwargs)``: the operation written once over a namespace ``m``: the
  sweeps call it with ``FNP`` (``ftransforms.numpy``, the code under test, with
  ``m.special`` = ``ftransforms.scipy.special``), ``NP`` (NumPy/SciPy: the forward
  reference, and on tracers the NumPy-protocol route) and ``JNP`` (``jax.numpy``: the
  oracle of compositions).  ``call("ptp")`` is ``m.ptp(*args, **kwargs)``;
  ``special("erf")`` is ``m.special.erf(...)``; ``method("sum", fnp.sum)`` the array method.
  Call functions through ``m`` (``m.linalg.norm``), never a captured ``fnp.linalg.norm``:
  the registry test checks ``funcs`` by watching ``m``.
* ``sampler(draw) -> list[Sample]``: ``draw`` is a :class:`~tests.op_db_base.Draw` (a
  seeded generator and a float dtype: ``d.u``, ``d.away``, ``d.distinct``, ``d.nonint``,
  ``d.ints``, ``d.bools``, ``d.complex``).  Every seed must give the same list with the
  same shapes (the vmap sweeps stack the samples of several seeds).  In a sample
  ``S(label, *args, **kwargs)`` every ``numpy.ndarray`` positional argument is an
  *operand* (batched by vmap, differentiated when floating point); every other argument
  and every keyword argument is static.  Sample options start with an underscore:
  ``_grads=False`` (no derivative for this sample), ``_fd_eps`` (a finite-difference
  step), ``_jax=True`` (also compare compositions with JAX on this sample; always done on
  the first), ``_xfail={test: reason}`` (a strict xfail of this sample only).
* ``prims``: the primitives the entry binds (checked by running it); default ``(name,)``
  when ``name`` is a primitive.  ``funcs``: the public functions it calls, as
  ``"ptp"``, ``"linalg.norm"``, ``"fft.rfft"``, ``"special.erf"``; default ``(name,)``
  when ``name`` is one.

Options (only the exceptions are written; the defaults suit a differentiable float op):

* ``dtypes``: default float32 and float64 (``F64`` for float64 only);
* ``nondiff=True``: no derivative (integer/bool outputs): the derivative sweeps check
  zero tangents/cotangents instead;
* ``diff_operands=(j, ...)``: the operands (positions among the array arguments) the
  derivative sweeps vary; default every floating-point one;
* ``fd=False``: the derivative is not the mathematical one (``stop_gradient``), or finite
  differences cannot see it (a shape that moves with the values): no finite differences;
* ``tol={"float32": {"rtol": .., "atol": ..}, "fd:float64": {...}}``: tolerance overrides
  (``tests/tolerances.py`` otherwise);
* ``value_dependent="reason"``: ``jit`` runs the entry eagerly (its trace reads data:
  ``fnp.peek``, a random draw); any other entry that falls back to eager fails;
* ``xfail={"test_vmap": "reason"}``: a strict expected failure of one sweep, i.e. a known
  bug, with its reason; it fails when the bug is fixed.  Keys: ``test_forward``,
  ``test_jvp_fd``, ``test_vjp_vs_jvp``, ``test_nondiff``, ``test_vmap``,
  ``test_second_order``, ``test_vmap_{vjp,jvp,vmap}_vs_jax``, ``test_via_numpy_protocols``
  (``tests/test_ops.py``), ``test_jit_{f,vjp,jvp,vmap,vmap_vjp}`` (``tests/test_jit_ops.py``),
  ``test_{forward,vjp,vmap}_on_strict_backend`` (``tests/test_ops_strict.py``), or ``"all"``;
  a sampler may put the same dict on one sample (``_xfail=``), per dtype if need be;
* ``ref="jax"``: the forward reference is ``fn(JNP, ...)`` (no NumPy spelling);
  ``via_numpy=False``: ``fn(NP, ...)`` cannot take tracers (no NumPy protocol);
  ``numpy_lone_tracer=(j, ...)``: the operands NumPy dispatches on when they are the only
  tracer; ``jax_compositions=False``: no JAX comparison (another entry covers the same
  rules, or JAX cannot trace it); ``randomness``: what the vmap sweeps pass to ``vmap``.

Converting an entry of an older format (a dict ``{"name", "fn", "args", "jax_fn"}``, or a
``register(add, S, JNP)`` function): write ``fn(m, *args)`` calling ``m.<function>`` (for a
primitive with no NumPy spelling, bind it for ``fnp`` and run the JAX function when
``m is JNP``, with ``ref="jax"``, as ``tests/op_db_nn.py`` does), a sampler drawing the
arguments from ``d`` (fixed shapes, values valid for every seed: see
``tests/op_db_linalg.py``), and the options above, and call ``add`` at module level.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import jax.numpy as jnp
import numpy as np

import ftransforms.numpy as fnp
import ftransforms.random as frandom
from tests.op_db_base import (
    BINARY_SHAPES,
    FNP,
    JNP,  # noqa: F401  (re-exported for the sweeps)
    NP,
    OPS,
    UNARY_SHAPES,
    Draw,
    OpEntry,
    S,
    Sample,
    add,
    binary,
    call,
    method,
    no_ties,
    shape_name,
    special,
    unary,
)

OpInfo = OpEntry  # the former name (ftransforms/coverage.py reads OPS only)
F64 = (np.dtype(np.float64),)

# -- elementwise: unary ---------------------------------------------------------------

_UNARY = {
    # name: (draw, keyword arguments of the draw)
    "negative": ("u", {}),
    "exp": ("u", {}),
    "exp2": ("u", {}),
    "expm1": ("u", {}),
    "log": ("u", {"lo": 0.5, "hi": 3.0}),
    "log2": ("u", {"lo": 0.5, "hi": 3.0}),
    "log10": ("u", {"lo": 0.5, "hi": 3.0}),
    "log1p": ("u", {"lo": -0.5, "hi": 2.0}),
    "sqrt": ("u", {"lo": 0.5, "hi": 3.0}),
    "cbrt": ("away", {"lo": 0.5, "hi": 3.0}),
    "square": ("u", {}),
    "reciprocal": ("away", {}),
    "sin": ("u", {"lo": -3.0, "hi": 3.0}),
    "cos": ("u", {"lo": -3.0, "hi": 3.0}),
    "tan": ("u", {"lo": -1.2, "hi": 1.2}),
    "arcsin": ("u", {"lo": -0.8, "hi": 0.8}),
    "arccos": ("u", {"lo": -0.8, "hi": 0.8}),
    "arctan": ("u", {}),
    "sinh": ("u", {}),
    "cosh": ("u", {}),
    "tanh": ("u", {}),
    "arcsinh": ("u", {}),
    "arccosh": ("u", {"lo": 1.2, "hi": 3.0}),
    "arctanh": ("u", {"lo": -0.8, "hi": 0.8}),
    "abs": ("away", {"lo": 0.1}),
    # piecewise constant: derivative 0 away from the jumps
    "sign": ("away", {"lo": 0.1}),
    "floor": ("nonint", {}),
    "ceil": ("nonint", {}),
    "trunc": ("nonint", {}),
    "rint": ("nonint", {}),
}
for _name, (_draw, _kw) in _UNARY.items():
    add(_name, call(_name), unary(_draw, **_kw))

add(
    "abs_operator",
    lambda m, x: abs(x),
    unary("away", lo=0.1),
    prims="abs",
)
add("negative_operator", lambda m, x: -x, unary("u"), prims="negative")


def _round_samples(d: Draw) -> list[Sample]:
    return [
        S("scalar", d.nonint(())),
        S("2x3", d.nonint((2, 3))),
        S("decimals1_4", d.nonint((4,), scale=0.1), decimals=1),
        S("decimals_neg1_1x3", d.nonint((1, 3), scale=10.0), decimals=-1),
        S("0x2", d.nonint((0, 2))),
    ]


add("round", lambda m, x, decimals=0: m.round(x, decimals), _round_samples)


def _special_values(d: Draw) -> list[Sample]:
    def special(shape):
        x = d.u(shape)
        pick = d.rng.integers(0, 5, shape)
        x = np.where(pick == 0, np.nan, x)
        x = np.where(pick == 1, np.inf, x)
        x = np.where(pick == 2, -np.inf, x)
        return np.asarray(x, d.dtype)

    return [S(shape_name(s), special(s)) for s in [(), (6,), (2, 1, 4), (0,)]]


for _name in ("isnan", "isinf", "isfinite"):
    add(_name, call(_name), _special_values, nondiff=True)


def _signbit_samples(d: Draw) -> list[Sample]:
    zeros = np.asarray([0.0, -0.0, 1.5, -2.0, -0.0, np.inf, -np.inf], d.dtype)
    return [
        S("scalar", d.u(())),
        S("zeros_and_inf", d.rng.permutation(zeros)),
        S("2x1x3", d.u((2, 1, 3))),
        S("0", d.u((0,))),
    ]


add("signbit", call("signbit"), _signbit_samples, nondiff=True)


def _logical_not_samples(d: Draw) -> list[Sample]:
    return [
        S("bool_scalar", np.asarray(d.rng.random() < 0.5)),
        S("bool_2x3", d.bools((2, 3))),
        S("float_with_zeros", np.where(d.bools((5,)), 0.0, d.u((5,))).astype(d.dtype)),
        S("bool_0x2", d.bools((0, 2))),
    ]


add("logical_not", call("logical_not"), _logical_not_samples, nondiff=True)


def _invert_samples(d: Draw) -> list[Sample]:
    return [
        S("int_scalar", np.asarray(d.ints(50, (), lo=-50))),
        S("int_2x3", d.ints(100, (2, 3), lo=-100)),
        S("int32_4", d.ints(100, (4,)).astype(np.int32)),
        S("bool_3", d.bools((3,))),
        S("int_0", d.ints(3, (0,))),
    ]


add("invert", call("invert"), _invert_samples, nondiff=True, dtypes=(np.dtype(np.float64),))
add(
    "invert_operator",
    lambda m, x: ~x,
    _invert_samples,
    prims=("invert", "logical_not"),
    nondiff=True,
    dtypes=(np.dtype(np.float64),),
)


def _stop_gradient_samples(d: Draw) -> list[Sample]:
    return [S(shape_name(s), d.u(s)) for s in [(), (3,), (2, 0)]]


add(
    "stop_gradient",
    lambda m, x: x * m.stop_gradient(x),
    _stop_gradient_samples,
    prims=("stop_gradient", "multiply"),
    fd=False,  # its derivative is 0 by definition, not the identity's
    via_numpy=False,  # NumPy has no stop_gradient
)

# -- elementwise: binary --------------------------------------------------------------

add("add", call("add"), binary(scalars=[("py_scalar_y", None, 1.5)]))
add("subtract", call("subtract"), binary(scalars=[("py_scalar_x", 2.0, None)]))
add("multiply", call("multiply"), binary(scalars=[("py_scalar_y", None, -3.0)]))
add(
    "divide",
    call("divide"),
    binary(y_draw="away", scalars=[("py_scalar_x", 2.0, None), ("py_scalar_y", None, 4.0)]),
)
add(
    "power",
    call("power"),
    binary(
        x_draw="u",
        x_kw={"lo": 0.5, "hi": 2.0},
        scalars=[
            ("py_int_exponent", None, 3),
            ("py_float_base", 1.5, None),
            ("py_neg_exponent", None, -1.5),
        ],
    ),
)


def _power_negative_base(d: Draw) -> list[Sample]:
    # x ** n for negative x and a static integer exponent (the y-derivative needs x > 0).
    return [S("int_exponent_2", d.away((4,)), 2), S("int_exponent_3", d.away((2, 3)), 3)]


add("power_negative_base", call("power"), _power_negative_base, prims="power")
add("power_operator", lambda m, x, y: x**y, binary(x_kw={"lo": 0.5, "hi": 2.0}), prims="power")


add("maximum", call("maximum"), no_ties(binary(scalars=[("py_scalar_y", None, 0.3)])))
add("minimum", call("minimum"), no_ties(binary(scalars=[("py_scalar_x", -0.2, None)])))
add("arctan2", call("arctan2"), binary("away", "away"))


def _remainder_like(d: Draw) -> list[Sample]:
    """x / y at least 0.1 away from an integer (remainder and floor_divide jump there)."""
    for _ in range(1000):
        samples = binary("u", "away", scalars=[("py_scalar_y", None, 0.7)])(d)
        ok = True
        for s in samples:
            q = np.asarray(s.args[0], np.float64) / np.asarray(s.args[1], np.float64)
            if q.size and (np.abs(q - np.round(q)) < 0.1).any():
                ok = False
        if ok:
            return samples
    raise RuntimeError("could not draw remainder operands")


add("remainder", call("remainder"), _remainder_like)
add("remainder_operator", lambda m, x, y: x % y, _remainder_like, prims="remainder")
add("floor_divide", call("floor_divide"), _remainder_like)


def _int_binary(d: Draw) -> list[Sample]:
    return [
        S("int_3_scalar", d.ints(20, (3,), lo=-20), np.asarray(d.ints(4, (), lo=1))),
        S("int_2x3_3", d.ints(20, (2, 3), lo=-20), d.ints(5, (3,), lo=1)),
    ]


add(
    "floor_divide_int",
    call("floor_divide"),
    _int_binary,
    prims="floor_divide",
    nondiff=True,
    dtypes=(np.dtype(np.float64),),
)

# -- the ufuncs with two outputs (NOTE [elementwise ops with two outputs]), fmod, nextafter

add("divmod", call("divmod"), _remainder_like)
add(
    "divmod_operator",
    lambda m, x, y: divmod(x, y),
    _remainder_like,
    prims="divmod",
)
add(
    "divmod_int",
    call("divmod"),
    _int_binary,
    prims="divmod",
    nondiff=True,
    dtypes=(np.dtype(np.float64),),
)
add("fmod", call("fmod"), _remainder_like)


def _modf_samples(d: Draw) -> list[Sample]:
    # away from the integers (the parts jump there), with -0.0, inf and -inf as NumPy's
    # modf gives them (x - trunc(x) does not: -0.0 and nan)
    special = np.array([-0.0, np.inf, -np.inf, 2.0, -3.0], d.dtype)
    return [S(shape_name(s), d.nonint(s, scale=1.7)) for s in UNARY_SHAPES] + [
        S("signed_zero_inf", special, _grads=False)
    ]


add("modf", call("modf"), _modf_samples)


def _frexp_samples(d: Draw) -> list[Sample]:
    """``sign * 2**k * u`` with ``u`` in ``[0.55, 0.95)`` (away from the powers of two,
    where the mantissa jumps), ``k`` in ``-4..4``; then 0, -0.0, inf, NaN and subnormals."""

    def draw(shape):
        k = d.rng.integers(-4, 5, shape)
        return d._f(np.ldexp(d.away(shape, 0.55, 0.95).astype(np.float64), k))

    tiny = np.finfo(d.dtype).smallest_subnormal
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, tiny, -3 * tiny], d.dtype)
    return [S(shape_name(s), draw(s)) for s in UNARY_SHAPES] + [
        S("zeros_inf_nan_subnormal", special, _grads=False)
    ]


add("frexp", call("frexp"), _frexp_samples)


def _nextafter_samples(d: Draw) -> list[Sample]:
    # no derivative (JAX and torch define none): test_nextafter_has_no_derivative
    return [
        S(s.name, *s.args, _grads=False) for s in binary(scalars=[("py_scalar_y", None, np.inf)])(d)
    ] + [S("zero_towards_both", np.zeros(2, d.dtype), np.array([1.0, -1.0], d.dtype), _grads=False)]


add("nextafter", call("nextafter"), _nextafter_samples)


def _comparison_samples(d: Draw) -> list[Sample]:
    # small integers as floats: many ties, so == and <= are exercised both ways
    def small(shape):
        return d.rng.integers(-2, 3, shape).astype(d.dtype)

    return [S(shape_name(sx, sy), small(sx), small(sy)) for sx, sy in BINARY_SHAPES] + [
        S("py_scalar_y", small((5,)), 1.0)
    ]


for _name in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal"):
    add(_name, call(_name), _comparison_samples, nondiff=True)

_OPERATORS = {
    "equal": operator.eq,
    "not_equal": operator.ne,
    "less": operator.lt,
    "less_equal": operator.le,
    "greater": operator.gt,
    "greater_equal": operator.ge,
}
for _name, _op in _OPERATORS.items():
    add(
        f"{_name}_operator",
        lambda m, x, y, _op=_op: _op(x, y),
        _comparison_samples,
        prims=_name,
        nondiff=True,
    )


def _logical_samples(d: Draw) -> list[Sample]:
    return [S(shape_name(sx, sy), d.bools(sx), d.bools(sy)) for sx, sy in BINARY_SHAPES] + [
        S(
            "float_truthiness",
            np.where(d.bools((4,)), 0.0, d.u((4,))).astype(d.dtype),
            d.bools((4,)),
        )
    ]


for _name in ("logical_and", "logical_or", "logical_xor"):
    add(_name, call(_name), _logical_samples, nondiff=True)


def _bitwise_samples(d: Draw) -> list[Sample]:
    return [
        S("int_scalar_int", np.asarray(d.ints(64, (), lo=-64)), d.ints(64, (3,), lo=-64)),
        S("int_2x3_3", d.ints(64, (2, 3)), d.ints(64, (3,))),
        S("int32_4_4", d.ints(64, (4,)).astype(np.int32), d.ints(64, (4,)).astype(np.int32)),
        S("bool_2x1_1x3", d.bools((2, 1)), d.bools((1, 3))),
        S("py_int_y", d.ints(64, (3,)), 6),
    ]


for _name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    add(_name, call(_name), _bitwise_samples, nondiff=True, dtypes=(np.dtype(np.float64),))


def _integer_pairs(lo: int, hi: int, shift: bool = False):
    """Integer operands (a shift count stays in [0, 8): larger or negative ones are
    undefined in C, and NumPy's result depends on the platform)."""

    def sampler(d: Draw) -> list[Sample]:
        second = (lambda shape: d.ints(8, shape)) if shift else (lambda s: d.ints(hi, s, lo))
        return [
            S("int_2x3_3", d.ints(hi, (2, 3), lo), second((3,))),
            S("int32_4_4", d.ints(hi, (4,), lo).astype(np.int32), second((4,)).astype(np.int32)),
            S("py_int_y", d.ints(hi, (3,), lo), 3),
        ]

    return sampler


for _name in ("gcd", "lcm"):
    add(_name, call(_name), _integer_pairs(-40, 40), nondiff=True, dtypes=(np.dtype(np.float64),))
for _name in ("left_shift", "right_shift", "bitwise_left_shift", "bitwise_right_shift"):
    add(
        _name,
        call(_name),
        _integer_pairs(0, 200, shift=True),
        nondiff=True,
        dtypes=(np.dtype(np.float64),),
    )
add(
    "bitwise_count",
    call("bitwise_count"),
    lambda d: [S("int_2x3", d.ints(1000, (2, 3), -1000))],
    nondiff=True,
    dtypes=(np.dtype(np.float64),),
)
add("spacing", call("spacing"), lambda d: [S("2x3", d.u((2, 3)))], nondiff=True)
add(
    "bitwise_operators",
    lambda m, x, y: (x & y) | (x ^ ~y),
    _bitwise_samples,
    prims=("bitwise_and", "bitwise_or", "bitwise_xor", "invert"),
    nondiff=True,
    dtypes=(np.dtype(np.float64),),
)
add(
    "bool_operators",
    lambda m, x, y: (x & y) | (x ^ ~y),
    lambda d: [s for s in _logical_samples(d) if s.name != "float_truthiness"],
    prims=("bitwise_and", "bitwise_or", "bitwise_xor", "logical_not"),
    nondiff=True,
)


def _arith_operators(d: Draw) -> list[Sample]:
    return [S(shape_name(sx, sy), d.u(sx), d.away(sy)) for sx, sy in BINARY_SHAPES]


add(
    "arith_operators",
    lambda m, x, y: (x + y) * (x - y) / (y * y + 1.0) - 2.0 * x + 1.0 / y - y**2,
    _arith_operators,
    prims=("add", "subtract", "multiply", "divide", "square"),  # y**2: NumPy's square
)

# -- select, casts ----------------------------------------------------------------------


def _where_samples(d: Draw) -> list[Sample]:
    return [
        S("scalar", np.asarray(d.rng.random() < 0.5), d.u(()), d.u(())),
        S("2x3", d.bools((2, 3)), d.u((2, 3)), d.u((2, 3))),
        S("broadcast", d.bools((2, 1)), d.u((3,)), d.u(()), _jax=True),
        S("py_scalar_y", d.bools((4,)), d.u((4,)), 0.0),
        S("py_scalar_x", d.bools((1, 3)), 2.5, d.u((2, 1))),
        S("0x3", d.bools((0, 3)), d.u((0, 3)), d.u((3,))),
    ]


add("where", call("where"), _where_samples, prims="select")


def _astype_samples(d: Draw) -> list[Sample]:
    other = d.other_float()
    # a float cast is linear: finite differences are exact for any step, and a large one
    # keeps float32 rounding of the output out of the difference quotient
    return [
        S("to_other_float", d.u((2, 3)), other, _fd_eps=0.5),
        S("to_other_float_scalar", d.u(()), other, _fd_eps=0.5),
        S("to_int32", d.u((4,), lo=-5, hi=5), np.int32, _grads=False),
        S(
            "to_bool",
            np.where(d.bools((3,)), 0.0, d.u((3,))).astype(d.dtype),
            np.bool_,
            _grads=False,
        ),
        S("int_to_float", d.ints(10, (2, 2), lo=-10), d.dtype, _grads=False),
        S("to_other_float_0", d.u((0, 2)), other, _fd_eps=0.5),
    ]


add("astype", call("astype"), _astype_samples, prims="convert")

# -- reductions ---------------------------------------------------------------------------


def _reduce_samples(draw: str = "u", empty: bool = True, **draw_kw: Any) -> Callable:
    def sampler(d: Draw) -> list[Sample]:
        def x(shape):
            return getattr(d, draw)(shape, **draw_kw)

        out = [
            S("2x3_all", x((2, 3))),
            S("2x3_axis0", x((2, 3)), axis=0),
            S("2x3x4_axes02", x((2, 3, 4)), axis=(0, 2), _jax=True),
            S("2x3_axis-1_keepdims", x((2, 3)), axis=-1, keepdims=True, _jax=True),
            S("1x3_axis0_keepdims", x((1, 3)), axis=0, keepdims=True),
            S("2x3x1_axes_neg", x((2, 3, 1)), axis=(-1, -3)),
            S("scalar", x(())),
        ]
        if empty:
            out += [S("0x3_axis0", x((0, 3)), axis=0), S("2x0_axis-1", x((2, 0)), axis=-1)]
        return out

    return sampler


def _sum_samples(d: Draw) -> list[Sample]:
    return _reduce_samples()(d) + [
        S("axis_empty_tuple", d.u((2, 3)), axis=()),
        S("dtype_other_float", d.u((3, 2)), axis=1, dtype=d.other_float(), _fd_eps=0.5),
    ]


add("sum", call("sum"), _sum_samples, prims="reduce_sum")
add("sum_method", method("sum", fnp.sum), _reduce_samples(empty=False), prims="reduce_sum")
add(
    "sum_where",
    lambda m, x, mask, **kw: m.sum(x, where=mask, **kw),
    lambda d: [
        S("2x5_all", d.u((2, 5)), d.bools((2, 5))),
        S("2x5_axis1_keepdims", d.u((2, 5)), d.bools((5,)), axis=1, keepdims=True),
        S("3x4_axis0_initial", d.u((3, 4)), d.bools((3, 4)), axis=0, initial=0.5),
    ],
    prims="reduce_sum_where",
    funcs=(),
)
add("max", call("max"), _reduce_samples("distinct", empty=False), prims="reduce_max")
add("min", call("min"), _reduce_samples("distinct", empty=False), prims="reduce_min")


def _prod_samples(d: Draw) -> list[Sample]:
    def x(shape):
        return d.away(shape, lo=0.5, hi=1.5)

    one_zero = x((3, 4))
    one_zero[1, 2] = 0.0
    two_zeros = x((2, 3))
    two_zeros[0, 1] = two_zeros[1, 1] = 0.0
    two_zeros_same_slice = x((2, 3))
    two_zeros_same_slice[1, 0] = two_zeros_same_slice[1, 2] = 0.0
    return _reduce_samples("away", lo=0.5, hi=1.5)(d) + [
        S("one_zero_axis1", one_zero, axis=1, _jax=True),
        S("one_zero_all", one_zero),
        S("zeros_in_different_slices_axis0", two_zeros, axis=0),
        S("two_zeros_one_slice_axis1", two_zeros_same_slice, axis=1, _jax=True),
    ]


add("prod", call("prod"), _prod_samples, prims="reduce_prod")


def _arg_samples(d: Draw) -> list[Sample]:
    return [
        S("2x3_all", d.distinct((2, 3))),
        S("2x3_axis0", d.distinct((2, 3)), axis=0),
        S("2x3x4_axis-1", d.distinct((2, 3, 4)), axis=-1),
        S("1x3_axis1_keepdims", d.distinct((1, 3)), axis=1, keepdims=True),
        S("2x3_all_keepdims", d.distinct((2, 3)), keepdims=True),
        S("scalar", d.distinct(())),
    ]


add("argmax", call("argmax"), _arg_samples, nondiff=True)
add("argmin", call("argmin"), _arg_samples, nondiff=True)


def _bool_reduce_samples(d: Draw) -> list[Sample]:
    mostly_true = d.rng.random((3, 4)) < 0.8
    return [
        S("2x3_all", d.bools((2, 3))),
        S("3x4_axis1", mostly_true, axis=1),
        S("2x3x2_axes02_keepdims", d.bools((2, 3, 2)), axis=(0, 2), keepdims=True),
        S(
            "float_with_zeros_axis0",
            np.where(d.bools((3, 2)), 0.0, d.u((3, 2))).astype(d.dtype),
            axis=0,
        ),
        S("0x3_axis0", d.bools((0, 3)), axis=0),
        S("scalar", np.asarray(d.rng.random() < 0.5)),
    ]


add("any", call("any"), _bool_reduce_samples, prims="reduce_any", nondiff=True)
add("all", call("all"), _bool_reduce_samples, prims="reduce_all", nondiff=True)


def _cumsum_samples(d: Draw) -> list[Sample]:
    return [
        S("2x3_flat", d.u((2, 3))),
        S("2x3_axis0", d.u((2, 3)), axis=0, _jax=True),
        S("2x1x3_axis-1", d.u((2, 1, 3)), axis=-1),
        S("scalar_flat", d.u(())),
        S("0x3_axis0", d.u((0, 3)), axis=0),
        S("4_axis0", d.u((4,)), axis=0),
    ]


add("cumsum", call("cumsum"), _cumsum_samples, prims=("cumsum", "reshape", "getitem"))
add("mean", call("mean"), _reduce_samples(empty=False), prims=("reduce_sum", "divide"))


def _var_samples(d: Draw) -> list[Sample]:
    return [
        S("2x3_all", d.u((2, 3))),
        S("3x4_axis0", d.u((3, 4)), axis=0),
        S("2x3x4_axes12_keepdims", d.u((2, 3, 4)), axis=(1, 2), keepdims=True),
        S("4x3_axis-1_ddof1", d.u((4, 3)), axis=-1, ddof=1),
        S("1x3_axis0", d.u((1, 3)), axis=0),
    ]


add("var", call("var"), _var_samples, prims=("reduce_sum", "subtract", "multiply", "divide"))


def _std_samples(d: Draw) -> list[Sample]:
    # no size-1 reduction: the derivative of sqrt at a zero variance is infinite
    return [s for s in _var_samples(d) if not s.name.startswith("1x3")]


add("std", call("std"), _std_samples, prims=("reduce_sum", "sqrt"))

# -- shape --------------------------------------------------------------------------------


def _reshape_samples(d: Draw) -> list[Sample]:
    return [
        S("2x3_to_3x2", d.u((2, 3)), (3, 2)),
        S("2x3_to_flat", d.u((2, 3)), (-1,)),
        S("scalar_to_1x1", d.u(()), (1, 1)),
        S("1x4_to_4", d.u((1, 4)), (4,)),
        S("1x1_to_scalar", d.u((1, 1)), ()),
        S("2x3x4_to_6x-1", d.u((2, 3, 4)), (6, -1)),
        S("0x3_to_3x0", d.u((0, 3)), (3, 0)),
    ]


add("reshape", lambda m, x, shape: m.reshape(x, shape), _reshape_samples)
add("reshape_method", method("reshape", fnp.reshape), _reshape_samples, prims="reshape")


def _transpose_samples(d: Draw) -> list[Sample]:
    return [
        S("2x3_default", d.u((2, 3))),
        S("2x3x4_102", d.u((2, 3, 4)), (1, 0, 2)),
        S("2x3x4_negative", d.u((2, 3, 4)), (-1, 0, 1)),
        S("scalar", d.u(())),
        S("1x0x2_201", d.u((1, 0, 2)), (2, 0, 1)),
    ]


add("transpose", lambda m, x, axes=None: m.transpose(x, axes), _transpose_samples)


def _broadcast_samples(d: Draw) -> list[Sample]:
    return [
        S("scalar_to_2x3", d.u(()), (2, 3)),
        S("3_to_2x3", d.u((3,)), (2, 3)),
        S("2x1_to_2x4", d.u((2, 1)), (2, 4)),
        S("1x3_to_0x3", d.u((1, 3)), (0, 3)),
        S("3_to_2x1x3", d.u((3,)), (2, 1, 3)),
        S("2x1_to_2x1_same", d.u((2, 1)), (2, 1)),
    ]


add("broadcast_to", lambda m, x, shape: m.broadcast_to(x, shape), _broadcast_samples)


def _concatenate_samples(d: Draw) -> list[Sample]:
    return [
        S("axis0", d.u((2, 3)), d.u((1, 3)), axis=0),
        S("axis1_three", d.u((2, 3)), d.u((2, 1)), d.u((2, 2)), axis=1, _jax=True),
        S("axis-1", d.u((2, 2, 1)), d.u((2, 2, 3)), axis=-1),
        S("axis_none", d.u((2, 2)), d.u((3,)), axis=None),
        S("empty_piece", d.u((0, 3)), d.u((2, 3)), d.u((1, 3)), axis=0),
        S("vectors", d.u((3,)), d.u((4,)), axis=0),
    ]


add("concatenate", lambda m, *xs, axis=0: m.concatenate(xs, axis=axis), _concatenate_samples)


def _stack_samples(d: Draw) -> list[Sample]:
    return [
        S("3_axis0", d.u((3,)), d.u((3,)), axis=0),
        S("2x3_axis-1", d.u((2, 3)), d.u((2, 3)), d.u((2, 3)), axis=-1),
        S("scalars", d.u(()), d.u(()), axis=0),
        S("1x2_axis1", d.u((1, 2)), d.u((1, 2)), axis=1),
        S("single", d.u((2,)), axis=0),
    ]


add(
    "stack",
    lambda m, *xs, axis=0: m.stack(xs, axis=axis),
    _stack_samples,
    prims=("reshape", "concatenate"),
)
add(
    "hstack",
    lambda m, *xs: m.hstack(xs),
    lambda d: [
        S("vectors", d.u((2,)), d.u((3,))),
        S("matrices", d.u((2, 1)), d.u((2, 3))),
        S("scalars", d.u(()), d.u(())),
    ],
    prims="concatenate",
)
add(
    "vstack",
    lambda m, *xs: m.vstack(xs),
    lambda d: [S("vectors", d.u((3,)), d.u((3,))), S("matrices", d.u((2, 3)), d.u((1, 3)))],
    prims=("concatenate", "reshape"),
)


def _split_samples(d: Draw) -> list[Sample]:
    return [
        S("6_sections3", d.u((6,)), 3),
        S("4x3_indices_axis0", d.u((4, 3)), [1, 3], axis=0),
        S("2x6_sections2_axis-1", d.u((2, 6)), 2, axis=-1),
        S("5_indices_with_empty", d.u((5,)), [2, 2, 4]),
    ]


add("split", lambda m, x, ios, axis=0: m.split(x, ios, axis=axis), _split_samples, prims="getitem")
add(
    "array_split",
    lambda m, x, ios, axis=0: m.array_split(x, ios, axis=axis),
    lambda d: [S("5_sections3", d.u((5,)), 3), S("2x7_sections3_axis1", d.u((2, 7)), 3, axis=1)],
    prims="getitem",
)


def _moveaxis_samples(d: Draw) -> list[Sample]:
    return [
        S("0_to_-1", d.u((2, 3, 4)), 0, -1),
        S("two_axes", d.u((2, 3, 4)), (0, 1), (-1, -2)),
        S("1x2_1_to_0", d.u((1, 2)), 1, 0),
    ]


add("moveaxis", call("moveaxis"), _moveaxis_samples, prims="transpose")
add(
    "swapaxes",
    call("swapaxes"),
    lambda d: [
        S("2x3x4_0_2", d.u((2, 3, 4)), 0, 2),
        S("2x3_-1_0", d.u((2, 3)), -1, 0),
        S("0x2_0_1", d.u((0, 2)), 0, 1),
    ],
    prims="transpose",
)
add(
    "squeeze",
    lambda m, x, axis=None: m.squeeze(x, axis),
    lambda d: [
        S("1x3x1_all", d.u((1, 3, 1))),
        S("1x3x1_axis0", d.u((1, 3, 1)), 0),
        S("1_all", d.u((1,))),
        S("2x1x1_axes", d.u((2, 1, 1)), (-1, 1)),
    ],
    prims="reshape",
)
add(
    "expand_dims",
    call("expand_dims"),
    lambda d: [
        S("3_axis0", d.u((3,)), 0),
        S("2x3_axis-1", d.u((2, 3)), -1),
        S("scalar_axes", d.u(()), (0, 1)),
        S("2x3_axes02", d.u((2, 3)), (0, 2)),
    ],
    prims="reshape",
)
add(
    "ravel",
    call("ravel"),
    lambda d: [S("2x3", d.u((2, 3))), S("scalar", d.u(())), S("0x2", d.u((0, 2)))],
    prims="reshape",
)
add(
    "flip",
    lambda m, x, axis=None: m.flip(x, axis),
    lambda d: [
        S("2x3_all", d.u((2, 3))),
        S("2x3_axis0", d.u((2, 3)), 0),
        S("2x3x4_axes02", d.u((2, 3, 4)), (0, 2)),
        S("4_axis-1", d.u((4,)), -1),
    ],
    prims="getitem",
)
add(
    "transpose_method",
    method("transpose", fnp.transpose),
    lambda d: [S("2x3", d.u((2, 3))), S("2x3x4_201", d.u((2, 3, 4)), (2, 0, 1))],
    prims="transpose",
)

# -- indexing -----------------------------------------------------------------------------


class _Arg:
    """Placeholder in an index template for the next array operand."""

    def __repr__(self) -> str:
        return "A"


A = _Arg()


def fill(index: Any, arrays: tuple) -> Any:
    """The index with its :data:`A` placeholders replaced by ``arrays`` in order."""
    it = iter(arrays)
    if isinstance(index, tuple):
        return tuple(next(it) if e is A else e for e in index)
    return next(it) if index is A else index


def _getitem(m, x, *arrays, index):
    return m.getitem(x, fill(index, arrays))


MASK4 = np.array([True, False, True, True])


def _getitem_samples(d: Draw) -> list[Sample]:
    x = d.u((4, 5, 3))
    return [
        S("slices", x, index=(slice(1, 3), slice(None, None, 2))),
        S("reversed_and_int", x, index=(slice(None, None, -1), 2)),
        S("negative_int", x, index=-1),
        S("none_ellipsis_int", x, index=(None, Ellipsis, 0)),
        S("ellipsis_slice", x, index=(Ellipsis, slice(1, 2))),
        S("empty_slice", x, index=(slice(2, 2),)),
        S("scalar_empty_tuple", d.u(()), index=()),
        S("scalar_none", d.u(()), index=None),
        S("int_array_repeats", x, d.ints(4, (5,)), index=A, _jax=True),
        S("int_array_2d", x, d.ints(5, (2, 2), lo=-5), index=(slice(None), A)),
        S("int_array_0d", x, np.asarray(d.ints(4, ())), index=(A, slice(None, 2))),
        S("adjacent_arrays", x, d.ints(4, (3,)), d.ints(5, (3,)), index=(A, A)),
        S(
            "adjacent_arrays_after_slice",
            x,
            d.ints(5, (2, 1)),
            d.ints(3, (3,)),
            index=(slice(1, 3), A, A),
            _jax=True,
        ),
        S(
            "non_adjacent_arrays",
            x,
            d.ints(4, (2,)),
            d.ints(3, (2,)),
            index=(A, slice(None), A),
            _jax=True,
        ),
        S("array_and_int_non_adjacent", x, d.ints(4, (3,)), index=(A, slice(None, 4), 1)),
        S("array_none_slice", x, d.ints(5, (2,)), index=(None, slice(None), A)),
        S("static_bool_mask", x, index=MASK4),
        S("empty_int_array", x, d.ints(4, (0,)), index=A),
        S("size1_axis", d.u((1, 3)), d.ints(3, (2,)), index=(0, A)),
    ]


def _subscript(m, x, *arrays, index):
    """``x[index]`` written as the operator (``fnp.getitem`` for a plain array under FNP)."""
    index = fill(index, arrays)
    if m is FNP and isinstance(x, np.ndarray):
        return fnp.getitem(x, index)
    return x[index]


# NOTE: x[tracer] with a plain array x converts the index with __index__/__array__ (NumPy
# has no protocol for indices), so only x may be the lone tracer on the NumPy route.
add("getitem", _getitem, _getitem_samples, numpy_lone_tracer=(0,))
add(
    "getitem_operator",
    _subscript,
    lambda d: [
        s
        for s in _getitem_samples(d)
        if s.name in ("slices", "int_array_repeats", "non_adjacent_arrays", "none_ellipsis_int")
    ],
    prims="getitem",
    numpy_lone_tracer=(0,),
)


def _index_add(m, x, v, *arrays, index):
    return m.index_add(x, fill(index, arrays), v)


def _index_add_samples(d: Draw) -> list[Sample]:
    x = d.u((4, 3))
    return [
        S("int_array_repeats", x, d.u((6, 3)), d.ints(4, (6,)), index=A),
        S(
            "two_arrays_repeats",
            x,
            d.u((5,)),
            d.ints(4, (5,)),
            d.ints(3, (5,)),
            index=(A, A),
            _jax=True,
        ),
        S("slice", x, d.u((2, 3)), index=(slice(1, 3),)),
        S("int_then_slice", x, d.u((3,)), index=(1, slice(None))),
        S("broadcast_scalar_value", x, d.u(()), index=(slice(None), 0)),
        S("array_2d_then_slice", x, d.u((2, 2, 3)), d.ints(4, (2, 2)), index=(A, slice(None))),
        S(
            "non_adjacent_arrays",
            d.u((3, 4, 2)),
            d.u((3, 4)),
            d.ints(3, (3,)),
            d.ints(2, (3,)),
            index=(A, slice(None), A),
            _jax=True,
        ),
        S("empty_index", x, d.u((0, 3)), d.ints(4, (0,)), index=A),
    ]


add("at_add", _index_add, _index_add_samples, prims=("getitem_transpose", "add"), via_numpy=False)


def _index_set(m, x, v, *arrays, index):
    return m.index_set(x, fill(index, arrays), v)


def _index_set_samples(d: Draw) -> list[Sample]:
    x = d.u((4, 3))
    return [
        S("slice", x, d.u((2, 3)), index=(slice(1, 3),)),
        S("unique_int_array", x, d.u((2, 3)), d.rng.permutation(4)[:2].astype(np.intp), index=A),
        S("int_then_slice_scalar_value", x, d.u(()), index=(0, slice(None))),
    ]


add(
    "at_set",
    _index_set,
    _index_set_samples,
    prims=("getitem_transpose", "select"),
    via_numpy=False,
    value_dependent="x.at[i].set checks the indices for duplicates (fnp.peek)",
)


def _functional_at(m, x, v, *arrays, index):
    """``fnp.at(x)[i].add(v)``: the functional ``at`` that also takes plain arrays."""
    index = fill(index, arrays)
    if m is FNP:
        return fnp.at(x)[index].add(v)
    if m is JNP:
        return x.at[index].add(v)
    return m.index_add(x, index, v)


add(
    "at",
    _functional_at,
    _index_add_samples,
    prims=("getitem_transpose", "add"),
    funcs=("at",),
    via_numpy=False,
)


def _take_along_axis_samples(d: Draw) -> list[Sample]:
    return [
        S("3x4_axis1", d.u((3, 4)), d.ints(4, (3, 2)), axis=1),
        S("3x4_axis0_repeats", d.u((3, 4)), d.ints(3, (5, 4)), axis=0, _jax=True),
        S("3x4_axis-1_broadcast_idx", d.u((3, 4)), d.ints(4, (1, 2)), axis=-1),
        S("2x3_flat", d.u((2, 3)), d.ints(6, (4,)), axis=None),
    ]


add(
    "take_along_axis",
    lambda m, a, i, axis: m.take_along_axis(a, i, axis=axis),
    _take_along_axis_samples,
    prims="getitem",
)


def _take_samples(d: Draw) -> list[Sample]:
    return [
        S("5_flat", d.u((5,)), d.ints(5, (3,))),
        S("3x4_axis1", d.u((3, 4)), d.ints(4, (2,)), axis=1),
        S("3x4_axis0_2d_idx", d.u((3, 4)), d.ints(3, (2, 2)), axis=0),
        S("2x3_flat_0d_idx", d.u((2, 3)), np.asarray(d.ints(6, ()))),
    ]


# numpy.take dispatches on its first argument only: np.take(array, tracer) cannot reach us.
add(
    "take",
    lambda m, a, i, axis=None: m.take(a, i, axis=axis),
    _take_samples,
    prims="getitem",
    numpy_lone_tracer=(0,),
)

# -- linear algebra -------------------------------------------------------------------------


def _matmul_samples(d: Draw) -> list[Sample]:
    pairs = [
        ((3,), (3,)),
        ((3,), (3, 4)),
        ((2, 3), (3,)),
        ((2, 3), (3, 4)),
        ((2, 2, 3), (3, 4)),
        ((3, 4), (2, 4, 5)),
        ((2, 1, 3, 4), (3, 4, 2)),
        ((2, 0), (0, 3)),
        ((1, 3), (3, 1)),
    ]
    jax = {((2, 1, 3, 4), (3, 4, 2)), ((3,), (3, 4))}
    return [S(shape_name(a, b), d.u(a), d.u(b), _jax=(a, b) in jax) for a, b in pairs]


add("matmul", call("matmul"), _matmul_samples)
add(
    "matmul_operator",
    lambda m, a, b: a @ b,
    lambda d: [s for s in _matmul_samples(d) if s.name in ("2x3_3x4", "3_3x4", "2x2x3_3x4")],
    prims="matmul",
)


def _einsum_samples(d: Draw) -> list[Sample]:
    u = d.u
    return [
        S("matmul", "ij,jk->ik", u((2, 3)), u((3, 4))),
        S("diagonal", "ii->i", u((3, 3)), _jax=True),
        S("trace", "ii->", u((3, 3))),
        S("ellipsis_batched", "...ij,...jk->...ik", u((2, 3, 4)), u((2, 4, 5))),
        S("ellipsis_broadcast", "...ij,jk->...ik", u((2, 3, 4)), u((4, 2)), _jax=True),
        S("inner", "i,i->", u((4,)), u((4,))),
        S("transpose", "ij->ji", u((2, 3))),
        S("row_sum", "ij->i", u((2, 3))),
        S("implicit", "ij,jk", u((2, 3)), u((3, 4))),
        S("three_operands", "ij,jk,kl->il", u((2, 3)), u((3, 2)), u((2, 2)), _jax=True),
        S("repeated_with_other", "ii,i->i", u((3, 3)), u((3,)), _jax=True),
        S("repeated_keep_other", "iij->ij", u((3, 3, 2))),
        S("outer", "i,j->ij", u((2,)), u((3,))),
        S("batched_size1", "bij,bjk->bik", u((2, 2, 3)), u((2, 3, 1))),
        S("empty_contraction", "ij,j->i", u((2, 0)), u((0,))),
        S("scalar_operand", ",ij->ij", u(()), u((2, 3))),
        S("summed_only_here", "ij,k->ik", u((2, 3)), u((4,))),
    ]


add("einsum", lambda m, subscripts, *ops: m.einsum(subscripts, *ops), _einsum_samples)


def _dot_samples(d: Draw) -> list[Sample]:
    pairs = [
        ((), (3,)),
        ((3,), (3,)),
        ((2, 3), (3,)),
        ((3,), (3, 4)),
        ((2, 3), (3, 4)),
        ((2, 3, 4), (4, 5)),
        ((2, 3), (4, 3, 5)),
    ]
    return [S(shape_name(a, b), d.u(a), d.u(b)) for a, b in pairs]


add("dot", call("dot"), _dot_samples, prims=("matmul", "einsum", "multiply"))


def _dot_method(m, x, y):
    # ndarray.dot(tracer) is NumPy's C method, which converts its argument with __array__:
    # the result is an object array of 0-d tracers (tests/test_object_arrays.py), which
    # fnp.asarray (like every transform boundary) turns into a traced array.
    out = method("dot", fnp.dot)(m, x, y)
    return fnp.asarray(out) if m is NP else out


add(
    "dot_method",
    _dot_method,
    lambda d: [s for s in _dot_samples(d) if s.name in ("2x3_3", "2x3_3x4")],
    prims="matmul",
)
add(
    "tensordot",
    lambda m, a, b, axes=2: m.tensordot(a, b, axes),
    lambda d: [
        S("axes2", d.u((2, 3, 4)), d.u((3, 4, 5)), 2),
        S("axes_pairs", d.u((2, 3)), d.u((3, 2)), ([1], [0])),
        S("axes0_outer", d.u((2,)), d.u((3,)), 0),
        S("axes_two_pairs_swapped", d.u((2, 3, 4)), d.u((3, 2)), ([0, 1], [1, 0])),
    ],
    prims="einsum",
)
add(
    "inner",
    call("inner"),
    lambda d: [
        S("3_3", d.u((3,)), d.u((3,))),
        S("2x3_4x3", d.u((2, 3)), d.u((4, 3))),
        S("scalar_2", d.u(()), d.u((2,))),
    ],
    prims=("einsum", "multiply"),
)
add(
    "outer",
    call("outer"),
    lambda d: [
        S("3_4", d.u((3,)), d.u((4,))),
        S("2x2_3", d.u((2, 2)), d.u((3,))),
        S("scalar_2", d.u(()), d.u((2,))),
    ],
    prims=("reshape", "multiply"),
)
add(
    "vdot",
    call("vdot"),
    lambda d: [S("3_3", d.u((3,)), d.u((3,))), S("2x3_3x2", d.u((2, 3)), d.u((3, 2)))],
    prims=("reshape", "matmul"),
)
add(
    "trace",
    lambda m, a, axis1=0, axis2=1: m.trace(a, 0, axis1, axis2),
    lambda d: [
        S("3x3", d.u((3, 3))),
        S("2x3x3_axes12", d.u((2, 3, 3)), 1, 2),
        S("3x4_nonsquare", d.u((3, 4))),
        S("3x2x3_axes20", d.u((3, 2, 3)), 2, 0),
    ],
    prims=("getitem", "reduce_sum"),
)


def _norm_samples(d: Draw) -> list[Sample]:
    return [
        S("vector", d.u((3,))),
        S("matrix_fro", d.u((2, 3))),
        S("axis1_ord1", d.away((2, 3), lo=0.1), 1, axis=1),
        S("axis0_ord_inf", d.distinct((3, 2)) + np.asarray(5.0, d.dtype), np.inf, axis=0),
        S("axis0_ord2_keepdims", d.u((3, 2)), 2, axis=0, keepdims=True),
    ]


add(
    "linalg_norm",
    lambda m, x, ord=None, **kw: m.linalg.norm(x, ord, **kw),
    _norm_samples,
    prims=("multiply", "reduce_sum", "sqrt", "abs", "reduce_max"),
)


def _clip_samples(d: Draw) -> list[Sample]:
    def x_away_from(shape, *bounds):
        x = d.u(shape)
        for b in bounds:
            x = np.where(np.abs(x - b) < 0.05, x + 0.1, x)
        return np.asarray(x, d.dtype)

    lo = d.u((3,), lo=-1.0, hi=-0.2)
    hi = d.u((3,), lo=0.2, hi=1.0)
    x = d.u((2, 3))
    for b in (lo, hi):
        x = np.where(np.abs(x - b) < 0.05, x + 0.1, x).astype(d.dtype)
    return [
        S("py_bounds", x_away_from((2, 3), -0.5, 0.5), -0.5, 0.5),
        S("min_only", x_away_from((4,), 0.0), 0.0, None),
        S("max_only_scalar", x_away_from((), 0.3), None, 0.3),
        S("array_bounds", x, lo, hi),
    ]


add(
    "clip",
    lambda m, x, lo, hi: m.clip(x, lo, hi),
    no_ties(_clip_samples, 0.01),
    prims=("maximum", "minimum"),
)

# -- special functions (scipy.special / jax.scipy.special) and NumPy's extras ----------------


_SPECIAL_UNARY = {
    "expit": ("u", {"lo": -4.0, "hi": 4.0}),
    "erf": ("u", {}),
    "erfc": ("u", {}),
    "erfinv": ("u", {"lo": -0.8, "hi": 0.8}),
    "gammaln": ("u", {"lo": 0.5, "hi": 4.0}),
    "digamma": ("u", {"lo": 0.5, "hi": 4.0}),
}
for _name, (_draw, _kw) in _SPECIAL_UNARY.items():
    add(_name, special(_name), unary(_draw, **_kw), funcs=f"special.{_name}")


def _polygamma_samples(d: Draw) -> list[Sample]:
    return [
        S("n1_scalar", 1, d.u((), lo=0.5, hi=4.0)),
        S("n2_2x3", 2, d.u((2, 3), lo=0.5, hi=4.0)),
        S("n_array", d.ints(4, (4,)), d.u((4,), lo=0.5, hi=4.0)),
        S("n0_0", 0, d.u((0,), lo=0.5, hi=4.0)),
    ]


# scipy.special.polygamma returns float64 for float32 input (ftransforms and JAX keep
# float32); it and logsumexp/softmax are Python functions in scipy (np.asarray on their
# arguments), not ufuncs, so they cannot take tracers: via_numpy=False
add(
    "polygamma",
    special("polygamma"),
    _polygamma_samples,
    funcs="special.polygamma",
    ref="jax",
    via_numpy=False,
)


def _xlogy_samples(d: Draw) -> list[Sample]:
    x_with_zeros = np.where(d.bools((2, 3)), 0.0, d.u((2, 3))).astype(d.dtype)
    return binary("u", "u", y_kw={"lo": 0.5, "hi": 3.0})(d) + [
        S("x_zeros", x_with_zeros, d.u((3,), lo=0.5, hi=3.0))
    ]


add("xlogy", special("xlogy"), _xlogy_samples, funcs="special.xlogy")
add(
    "xlog1py",
    special("xlog1py"),
    binary("u", "u", y_kw={"lo": -0.5, "hi": 3.0}),
    funcs="special.xlog1py",
)
add(
    "logsumexp",
    special("logsumexp"),
    lambda d: [
        S("2x3_all", d.u((2, 3))),
        S("3x4_axis1_keepdims", d.u((3, 4)), axis=1, keepdims=True),
        S("scalar", d.u(())),
        S("2x3x2_axes", d.u((2, 3, 2)), axis=(0, 2)),
    ],
    prims=("reduce_max", "exp", "reduce_sum", "log"),
    funcs="special.logsumexp",
    via_numpy=False,
)
add(
    "softmax",
    special("softmax"),
    lambda d: [S("3x4_axis1", d.u((3, 4)), axis=1), S("4_all", d.u((4,)))],
    prims=("exp", "reduce_sum", "divide"),
    funcs="special.softmax",
    via_numpy=False,
)
add(
    "log_softmax",
    special("log_softmax"),
    lambda d: [S("3x4_axis0", d.u((3, 4)), axis=0), S("1x3_axis-1", d.u((1, 3)), axis=-1)],
    prims=("exp", "reduce_sum", "log"),
    funcs="special.log_softmax",
    via_numpy=False,
)
add("logaddexp", call("logaddexp"), binary())
add("logaddexp2", call("logaddexp2"), binary())
add("hypot", call("hypot"), binary("away", "away"))


def _sinc_samples(d: Draw) -> list[Sample]:
    with_zero = d.u((5,), lo=-3.0, hi=3.0)
    with_zero[2] = 0.0
    return [S(shape_name(s), d.u(s, lo=-3.0, hi=3.0)) for s in UNARY_SHAPES] + [
        S("with_zero", with_zero)
    ]


add("sinc", call("sinc"), _sinc_samples)


def _cumprod_samples(d: Draw) -> list[Sample]:
    def x(shape):
        return d.away(shape, lo=0.5, hi=1.5)

    one_zero = x((2, 5))
    one_zero[0, 1] = 0.0
    two_zeros = x((5, 2))
    two_zeros[1, 0] = two_zeros[3, 0] = 0.0
    return [
        S("2x3_flat", x((2, 3))),
        S("3x4_axis1", x((3, 4)), axis=1),
        S("one_zero_axis-1", one_zero, axis=-1, _jax=True),
        S("two_zeros_axis0", two_zeros, axis=0),
        S("scalar_flat", x(())),
        S("0x2_axis0", x((0, 2)), axis=0),
    ]


add("cumprod", call("cumprod"), _cumprod_samples, prims=("cumprod",))

# -- sorting ------------------------------------------------------------------------------


def _sort_samples(d: Draw) -> list[Sample]:
    return [
        S("3x5_last", d.distinct((3, 5))),
        S("3x5_axis0", d.distinct((3, 5)), axis=0, _jax=True),
        S("2x3_flat", d.distinct((2, 3)), axis=None),
        S("1_last", d.distinct((1,))),
    ]


add("sort", call("sort"), _sort_samples, prims=("argsort", "getitem"))
add("argsort", call("argsort"), _sort_samples, nondiff=True)


def _kth_statistic(m, x, kth, axis=-1):
    """The kth order statistics through argpartition (the partition's other positions are
    implementation-defined, these are not)."""
    perm = m.argpartition(x, kth, axis=axis)
    picked = m.take_along_axis(x, perm, axis=axis)
    return m.take(picked, np.asarray(kth), axis=axis)


add(
    "argpartition",
    _kth_statistic,
    lambda d: [
        S("6_kth2", d.distinct((6,)), 2),
        S("3x4_kth_last", d.distinct((3, 4)), -1),
        S("5x2_axis0_two_kth", d.distinct((5, 2)), (1, 3), axis=0),
    ],  # jnp: one kth only
    prims=("argpartition", "getitem"),
)
add(
    "partition_kth",
    lambda m, x, kth, axis=-1: m.take(m.partition(x, kth, axis=axis), np.asarray(kth), axis=axis),
    lambda d: [
        S("3x5_kth2", d.distinct((3, 5)), 2),
        S("4x3_axis0_two_kth", d.distinct((4, 3)), (0, 3), axis=0),
    ],
    prims=("argpartition", "getitem"),
    funcs="partition",
)


def _searchsorted_samples(d: Draw) -> list[Sample]:
    ties_a = np.sort(np.round(d.u((6,)), 1)).astype(d.dtype)
    return [
        S("6_2x3", np.sort(d.u((6,))), d.u((2, 3))),
        S("6_scalar", np.sort(d.u((6,))), d.u(())),
        S("ties_right", ties_a, np.round(d.u((4,)), 1).astype(d.dtype), side="right"),
        S("ties_left", ties_a, np.round(d.u((4,)), 1).astype(d.dtype), side="left"),
        S("1_0", np.sort(d.u((1,))), d.u((0,))),
    ]


add("searchsorted", call("searchsorted"), _searchsorted_samples, nondiff=True)

# -- complex parts ------------------------------------------------------------------------


def _complex_parts_samples(d: Draw) -> list[Sample]:
    return [S(shape_name(sx, sy), d.u(sx), d.u(sy)) for sx, sy in BINARY_SHAPES[:4]]


def _complex_operand_samples(d: Draw) -> list[Sample]:
    return [S(shape_name(s), d.complex(s)) for s in [(), (3,), (2, 0)]]


add(
    "real",
    lambda m, x, y: m.real((x + 1j * y) * (y - 0.5j * x)),
    _complex_parts_samples,
    prims=("real", "multiply", "add"),
)
add(
    "imag",
    lambda m, x, y: m.imag((x + 1j * y) * (y - 0.5j * x)),
    _complex_parts_samples,
    prims=("imag", "multiply", "add"),
)
add(
    "conj",
    lambda m, x, y: m.real(m.conj(x + 1j * y) * (x - 2j * y)),
    _complex_parts_samples,
    prims=("conj", "real"),
)
add(
    "abs_complex",
    lambda m, x, y: m.abs(x + 1j * y),
    lambda d: [S(shape_name(sx, sy), d.away(sx), d.away(sy)) for sx, sy in BINARY_SHAPES[:4]],
    prims="abs",
)
for _name in ("real", "imag", "conj"):
    add(
        f"{_name}_complex_operand", call(_name), _complex_operand_samples, prims=_name, nondiff=True
    )

# -- random numbers (ftransforms.random) ------------------------------------------------------
#
# Each call seeds its own generator, so the entry is a deterministic function of its
# operands (the noise is a constant: the samples are reparameterised) and vmap with
# randomness="same" matches a loop.  NumPy's reference is the generator's own method
# (ftransforms.random draws exactly what it draws in float64); JAX's is the same
# reparameterisation over the same noise, drawn by NumPy.

RANDOM_SEED = 7


def _rng():
    return np.random.default_rng(RANDOM_SEED)


def _random_normal(m, loc, scale):
    if m is FNP:
        return frandom.normal(_rng(), loc, scale)
    if m is NP:
        return _rng().normal(loc, scale)
    shape = np.broadcast_shapes(np.shape(loc), np.shape(scale))
    return loc + scale * _rng().standard_normal(shape)


def _random_uniform(m, low, high):
    if m is FNP:
        return frandom.uniform(_rng(), low, high)
    if m is NP:
        return _rng().uniform(low, high)
    shape = np.broadcast_shapes(np.shape(low), np.shape(high))
    return low + (high - low) * _rng().random(shape)


def _random_integers_plus(m, x):
    ints = (
        frandom.integers(_rng(), -5, 5, size=np.shape(x))
        if m is FNP
        else _rng().integers(-5, 5, size=np.shape(x))
    )
    return x + ints


def _random_permutation(m, x, axis=0):
    if m is FNP:
        return frandom.permutation(_rng(), x, axis=axis)
    if m is NP:
        return _rng().permutation(x, axis=axis)
    perm = _rng().permutation(np.shape(x)[axis])
    return jnp.take(x, perm, axis=axis)


def _loc_scale_samples(d: Draw) -> list[Sample]:
    return [
        S("scalars", d.u(()), d.u((), lo=0.5, hi=2.0)),
        S("3_scalar", d.u((3,)), d.u((), lo=0.5, hi=2.0)),
        S("1x3_2x1", d.u((1, 3)), d.u((2, 1), lo=0.5, hi=2.0)),
    ]


_RANDOM = {
    "via_numpy": False,
    "randomness": "same",
    "dtypes": F64,
    "value_dependent": "a random draw",
}
add("random_normal", _random_normal, _loc_scale_samples, **_RANDOM)
add("random_uniform", _random_uniform, _loc_scale_samples, **_RANDOM)
add(
    "random_integers",
    _random_integers_plus,
    lambda d: [S("scalar", d.u(())), S("2x3", d.u((2, 3)))],
    **_RANDOM,
)
add(
    "random_permutation",
    _random_permutation,
    lambda d: [S("5", d.u((5,))), S("4x3_axis0", d.u((4, 3))), S("2x4_axis1", d.u((2, 4)), axis=1)],
    prims=("random_permutation", "getitem"),
    **_RANDOM,
)


# -- the family modules (each appends its entries to OPS on import) -------------------------

from tests import (  # noqa: E402,F401
    op_db_bits,
    op_db_callbacks,
    op_db_fft,
    op_db_linalg,
    op_db_linalg_complex,
    op_db_nn,
    op_db_numpy,
    op_db_numpy_more,
    op_db_prng,
    op_db_scipy,
    op_db_scipy_ufuncs,
    op_db_sets,
    op_db_special,
    op_db_stats,
)

#: Entries that only spell another entry's primitives differently (an operator, a method):
#: their transformation rules are compared with JAX through that other entry.
SPELLINGS = {
    "abs_operator",
    "negative_operator",
    "invert_operator",
    "power_operator",
    "remainder_operator",
    "sum_method",
    "reshape_method",
    "transpose_method",
    "getitem_operator",
    "matmul_operator",
    "dot_method",
    "bitwise_operators",
    "bool_operators",
} | {f"{name}_operator" for name in _OPERATORS}
OPS[:] = [replace(op, jax_compositions=False) if op.name in SPELLINGS else op for op in OPS]

#: name -> entry
BY_NAME: dict[str, OpEntry] = {}
for _op in OPS:
    if _op.name in BY_NAME:
        raise ValueError(f"op_db: duplicate entry {_op.name!r}")
    BY_NAME[_op.name] = _op


def covered_primitives() -> dict[str, list[str]]:
    """Primitive name -> the entries that exercise it."""
    out: dict[str, list[str]] = {}
    for op in OPS:
        for p in op.prims:
            out.setdefault(p, []).append(op.name)
    return out


def covered_functions() -> dict[str, list[str]]:
    """Public function (``"ptp"``, ``"linalg.norm"``, ``"special.erf"``) -> the entries
    that call it."""
    out: dict[str, list[str]] = {}
    for op in OPS:
        for f in op.funcs:
            out.setdefault(f, []).append(op.name)
    return out
