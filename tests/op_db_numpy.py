"""Op-database entries for the rest of the public ``ftransforms.numpy`` surface: aliases and
small elementwise functions, NaN-aware and other reductions, shape manipulation, array
creation, ``add_at``, the array-API spellings of ``fnp.linalg`` and ``scipy.special``'s
``logit``/``psi``.  Format: ``tests/op_db.py``.

Creation functions take no operand (or only static arguments): their entries combine the
created array with an operand (``x * fnp.eye(3)``), so that every sweep still has an
operand to batch and differentiate while the function runs under the transforms.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from tests.op_db_base import (
    BINARY_SHAPES,
    FNP,
    JNP,
    OPS,
    UNARY_SHAPES,
    Draw,
    S,
    Sample,
    add,
    binary,
    call,
    no_ties,
    shape_name,
    special,
    unary,
)

F64 = (np.dtype(np.float64),)


def _b(result: Any) -> Any:
    """A Python bool as a NumPy bool (the sweeps compare array leaves)."""
    return np.bool_(result) if isinstance(result, bool) else result


def _with(x: np.ndarray, where: list[tuple], value: float) -> np.ndarray:
    x = x.copy()
    for pos in where:
        x[pos] = value
    return x


# -- aliases and small elementwise functions ---------------------------------------------------

add("absolute", call("absolute"), unary("away", lo=0.1), prims="abs")
add("fabs", call("fabs"), unary("away", lo=0.1), prims="abs")
add("positive", call("positive"), unary("u"))
add("conjugate", call("conjugate"), unary("u"))
add("true_divide", call("true_divide"), binary(y_draw="away"), prims="divide")
for _name in ("deg2rad", "radians", "rad2deg", "degrees"):
    add(_name, call(_name), unary("u"), prims="multiply")


def _nonint_samples(d: Draw) -> list[Sample]:
    return [S(shape_name(s), d.nonint(s)) for s in UNARY_SHAPES]


add(
    "fix",
    lambda m, x: m.trunc(x) if m is JNP else m.fix(x),  # jax.numpy has no fix
    _nonint_samples,
    prims="trunc",
)
add(
    "around",
    lambda m, x, decimals=0: m.around(x, decimals),
    lambda d: [S("2x3", d.nonint((2, 3))), S("4_decimals1", d.nonint((4,), scale=0.1), 1)],
    prims="round",
)


def _mod_samples(d: Draw) -> list[Sample]:
    """x / y at least 0.1 away from an integer (mod jumps there)."""
    for _ in range(1000):
        x, y = d.u((2, 3)), d.away((3,))
        q = np.asarray(x, np.float64) / np.asarray(y, np.float64)
        if (np.abs(q - np.round(q)) >= 0.1).all():
            return [S("2x3_3", x, y)]
    raise RuntimeError("could not draw mod operands")


add("mod", call("mod"), _mod_samples, prims="remainder")
add(
    "copysign",
    call("copysign"),
    binary("away", "away"),
)
add(
    "ldexp",
    call("ldexp"),
    lambda d: [
        S("2x3_3", d.u((2, 3)), d.ints(4, (3,), -3)),
        S("4_scalar_exponent", d.u((4,)), 2),
        S(
            "extremes_exact",
            np.array([1e-30, 3e38, 1.5, -2.0], d.dtype),
            d.ints(1, (4,)) + [150, -120, 0, -150],
            _grads=False,
        ),
    ],
)
add("float_power", call("float_power"), binary(x_kw={"lo": 0.5, "hi": 2.0}))
add("fmax", call("fmax"), no_ties(binary()))
add("fmin", call("fmin"), no_ties(binary()))
add(
    "heaviside",
    call("heaviside"),
    binary("away", "u"),
)


def _nan_to_num_samples(d: Draw) -> list[Sample]:
    x = _with(_with(d.u((2, 4)), [(0, 1)], np.nan), [(1, 2)], np.inf)
    return [
        S("2x4", _with(x, [(1, 0)], -np.inf)),
        S("5_values", _with(d.u((5,)), [(3,)], np.nan), nan=-1.0, posinf=9.0),
    ]


add("nan_to_num", call("nan_to_num"), _nan_to_num_samples, prims="select")
add(
    "nan_to_num_complex",  # real and imaginary parts replaced separately
    lambda m, x, y, **kw: (lambda z: m.real(z) + 2 * m.imag(z))(m.nan_to_num(x + 1j * y, **kw)),
    lambda d: [
        # no infinite imaginary input: 1j * inf is nan + inf*1j in every library
        S(
            "2x4",
            _with(_with(d.u((2, 4)), [(0, 1)], np.nan), [(1, 2)], -np.inf),
            _with(d.u((2, 4)), [(1, 0)], np.nan),
            posinf=9.0,
            neginf=-9.0,
        ),
        S("5_kw", d.u((5,)), _with(d.u((5,)), [(3,)], np.nan), nan=-1.0, neginf=-9.0),
    ],
    prims="select",
)
add(
    "angle",
    lambda m, x, y, **kw: m.angle(x + 1j * y, **kw),
    lambda d: [
        S("2x3", d.away((2, 3)), d.away((2, 3))),
        S("4_deg", d.away((4,)), d.away((4,)), deg=True),
    ],
    prims="arctan2",
)


def _close_samples(d: Draw) -> list[Sample]:
    x = d.u((2, 4))
    y = x + np.where(d.bools((2, 4)), 1e-9, 0.5).astype(d.dtype)
    return [S("2x4", x, y), S("2x4_3", x, d.u((4,)))]


add("isclose", call("isclose"), _close_samples, nondiff=True)
add(
    "allclose",
    lambda m, a, b: _b(m.allclose(a, b)),
    _close_samples,
    nondiff=True,
    jax_compositions=False,  # jax.numpy.allclose returns an array
    value_dependent="the Python bool is read from the values",
)


def _complex_parts(d: Draw) -> list[Sample]:
    return [S("2x3", d.u((2, 3)), np.where(d.bools((2, 3)), 0.0, d.u((2, 3))).astype(d.dtype))]


add("iscomplex", lambda m, x, y: m.iscomplex(x + 1j * y), _complex_parts, nondiff=True)
add("isreal", lambda m, x, y: m.isreal(x + 1j * y), _complex_parts, nondiff=True)


def _infs(d: Draw) -> list[Sample]:
    x = _with(_with(d.u((2, 4)), [(0, 1), (1, 3)], np.inf), [(1, 0)], -np.inf)
    return [S("2x4", x), S("3_nan", _with(d.u((3,)), [(1,)], np.nan))]


add("isposinf", call("isposinf"), _infs, nondiff=True)
add("isneginf", call("isneginf"), _infs, nondiff=True)
add(
    "real_if_close",
    lambda m, x: m.real_if_close(x + 0j),  # a complex array with zero imaginary parts
    lambda d: [S("2x3", d.u((2, 3))), S("4", d.u((4,)))],
    jax_compositions=False,  # jax.numpy has no real_if_close
    value_dependent="whether the imaginary parts are small is read from the values (fnp.peek)",
)

# -- reductions and statistics ---------------------------------------------------------------------


def _distinct_reduce(d: Draw) -> list[Sample]:
    return [
        S("2x3_all", d.distinct((2, 3))),
        S("3x4_axis0", d.distinct((3, 4)), axis=0),
        S("2x3x2_axes_keepdims", d.distinct((2, 3, 2)), axis=(0, 2), keepdims=True),
    ]


add("amax", call("amax"), _distinct_reduce, prims="reduce_max")
add("amin", call("amin"), _distinct_reduce, prims="reduce_min")
add("ptp", call("ptp"), _distinct_reduce, prims=("reduce_max", "reduce_min"))
add(
    "median",
    call("median"),
    lambda d: [
        S("5_odd", d.distinct((5,))),
        S("3x4_axis1_even", d.distinct((3, 4)), axis=1),
        S("2x3x3_axes_keepdims", d.distinct((2, 3, 3)), axis=(1, 2), keepdims=True),
    ],
)
add(
    "average",
    lambda m, x, w=None, **kw: m.average(x, weights=w, **kw),
    lambda d: [
        S("2x3_all", d.u((2, 3))),
        S("3x4_axis0_weights", d.u((3, 4)), d.u((3,), 0.5, 2.0), axis=0),
        S("2x3_weights_2d_keepdims", d.u((2, 3)), d.u((2, 3), 0.5, 2.0), axis=1, keepdims=True),
    ],
)
add(
    "count_nonzero",
    call("count_nonzero"),
    lambda d: [
        S("3x4_all", _with(d.away((3, 4)), [(0, 1), (2, 2)], 0.0)),
        S("3x4_axis1", _with(d.away((3, 4)), [(1, 1)], 0.0), axis=1),
        S("bool_2x3_axis0", d.bools((2, 3)), axis=0),
    ],
    nondiff=True,
)


def _nans(shape_draw: str, **kw: Any):
    def sampler(d: Draw) -> list[Sample]:
        def x(shape, where):
            return _with(getattr(d, shape_draw)(shape, **kw), where, np.nan)

        return [
            S("3x4_all", x((3, 4), [(0, 1), (2, 3)])),
            S("3x4_axis1", x((3, 4), [(1, 1)]), axis=1),
            S("4x3_axis0_keepdims", x((4, 3), [(0, 0), (3, 2)]), axis=0, keepdims=True),
        ]

    return sampler


add("nansum", call("nansum"), _nans("u"))
add("nanmean", call("nanmean"), _nans("u"))
add("nanmax", call("nanmax"), _nans("distinct"))
add("nanmin", call("nanmin"), _nans("distinct"))
add("nanprod", call("nanprod"), _nans("away", lo=0.5, hi=1.5))
for _name in ("nanvar", "nanstd"):
    add(_name, call(_name), _nans("u"))


def _cumulative_samples(draw: str, **kw: Any):
    def sampler(d: Draw) -> list[Sample]:
        def x(shape):
            return getattr(d, draw)(shape, **kw)

        return [
            S("5", x((5,))),
            S("3x4_axis1", x((3, 4)), axis=1),
            S("3x2_axis0_initial", x((3, 2)), axis=0, include_initial=True),
        ]

    return sampler


add("cumulative_sum", call("cumulative_sum"), _cumulative_samples("u"), prims="cumsum")
add(
    "cumulative_prod",
    call("cumulative_prod"),
    _cumulative_samples("away", lo=0.5, hi=1.5),
    prims="cumprod",
)
add(
    "trapezoid",
    lambda m, y, x=None, **kw: m.trapezoid(y, x, **kw),
    lambda d: [
        S("6", d.u((6,))),
        S("3x4_dx", d.u((3, 4)), dx=0.5),
        S("4x3_x_axis0", d.u((4, 3)), d._f(np.cumsum(d.rng.uniform(0.5, 1.0, 4))), axis=0),
    ],
)


def _diff_samples(d: Draw) -> list[Sample]:
    # NumPy promotes float32 x with a Python-float prepend/append to float64 (the result
    # is float64); the cotangent that comes back to x is still float32
    return [
        S("6", d.u((6,))),
        S("3x4_n2_axis0", d.u((3, 4)), 2, axis=0),
        S("2x4_prepend_append", d.u((2, 4)), prepend=0.5, append=-1.0),
    ]


add("diff", lambda m, x, *extra, **kw: m.diff(x, *extra, **kw), _diff_samples, prims="subtract")

# -- shape manipulation ------------------------------------------------------------------------


def _ranks(d: Draw) -> list[Sample]:
    return [S("scalar", d.u(())), S("3", d.u((3,))), S("2x3", d.u((2, 3)))]


for _name in ("atleast_1d", "atleast_2d", "atleast_3d"):
    add(_name, call(_name), _ranks)
add(
    "broadcast_arrays",
    lambda m, x, y: tuple(m.broadcast_arrays(x, y)),
    lambda d: [S(shape_name(sx, sy), d.u(sx), d.u(sy)) for sx, sy in BINARY_SHAPES[:4]],
)
add(
    "column_stack",
    lambda m, *xs: m.column_stack(xs),
    lambda d: [S("vectors", d.u((3,)), d.u((3,))), S("matrix_vector", d.u((3, 2)), d.u((3,)))],
)
add(
    "dstack",
    lambda m, *xs: m.dstack(xs),
    lambda d: [S("vectors", d.u((3,)), d.u((3,))), S("matrices", d.u((2, 3)), d.u((2, 3)))],
)
add("fliplr", call("fliplr"), lambda d: [S("2x3", d.u((2, 3))), S("2x3x2", d.u((2, 3, 2)))])
add("flipud", call("flipud"), lambda d: [S("3", d.u((3,))), S("2x3", d.u((2, 3)))])
add(
    "hsplit",
    lambda m, x, ios: tuple(m.hsplit(x, ios)),
    lambda d: [S("6_sections3", d.u((6,)), 3), S("2x4_indices", d.u((2, 4)), [1, 3])],
)
add(
    "vsplit",
    lambda m, x, ios: tuple(m.vsplit(x, ios)),
    lambda d: [S("4x3_sections2", d.u((4, 3)), 2), S("3x2_indices", d.u((3, 2)), [1])],
)
add(
    "dsplit",
    lambda m, x, ios: tuple(m.dsplit(x, ios)),
    lambda d: [S("2x2x4_sections2", d.u((2, 2, 4)), 2)],
)
add(
    "matrix_transpose",
    call("matrix_transpose"),
    lambda d: [S("2x3", d.u((2, 3))), S("2x3x4", d.u((2, 3, 4)))],
    prims="transpose",
)
add(
    "permute_dims",
    call("permute_dims"),
    lambda d: [S("2x3x4_201", d.u((2, 3, 4)), (2, 0, 1)), S("2x3_default", d.u((2, 3)))],
    prims="transpose",
)
add(
    "rollaxis",
    call("rollaxis"),
    lambda d: [S("2x3x4_axis2", d.u((2, 3, 4)), 2), S("2x3x4_axis0_start2", d.u((2, 3, 4)), 0, 2)],
)
add(
    "rot90",
    lambda m, x, k=1, **kw: m.rot90(x, k, **kw),
    lambda d: [
        S("2x3", d.u((2, 3))),
        S("2x3_k2", d.u((2, 3)), 2),
        S("2x3x4_k-1_axes12", d.u((2, 3, 4)), -1, axes=(1, 2)),
    ],
)
add(
    "repeat",
    lambda m, x, r, axis=None: m.repeat(x, r, axis),
    lambda d: [
        S("2x3_flat", d.u((2, 3)), 2),
        S("2x3_axis1_counts", d.u((2, 3)), [1, 0, 2], 1),
        S("3_axis0", d.u((3,)), 3, 0),
    ],
)
add(
    "tile",
    call("tile"),
    lambda d: [S("3_reps2", d.u((3,)), 2), S("2x3_reps", d.u((2, 3)), (2, 1, 2))],
)
add(
    "roll",
    lambda m, x, shift, axis=None: m.roll(x, shift, axis),
    lambda d: [
        S("5_flat", d.u((5,)), 2),
        S("2x3_axis1", d.u((2, 3)), -1, 1),
        S("3x4_two_axes", d.u((3, 4)), (1, 2), (0, 1)),
    ],
)


def _pad_samples(d: Draw) -> list[Sample]:
    return [
        S("3x4_constant", d.u((3, 4)), ((1, 2), (0, 1))),
        S("5_constant_value", d.u((5,)), 2, constant_values=1.5),
        S("3x4_edge", d.u((3, 4)), ((2, 1), (1, 2)), mode="edge"),
        S("5_reflect", d.u((5,)), (2, 3), mode="reflect"),
        S("3x3_symmetric", d.u((3, 3)), 1, mode="symmetric"),
        S("4_wrap", d.u((4,)), (3, 2), mode="wrap"),
    ]


add("pad", lambda m, x, width, **kw: m.pad(x, width, **kw), _pad_samples)


def _traced_fill(m, x, v):
    return m.pad(x, 1, constant_values=v)


add(
    "pad_traced_constant",
    _traced_fill,
    lambda d: [S("2x3", d.u((2, 3)), d.u(()))],
    funcs="pad",
    numpy_lone_tracer=(0,),  # numpy.pad dispatches on the array, not constant_values
)
for _name in ("tril", "triu"):
    add(
        _name,
        lambda m, x, k=0, _n=_name: getattr(m, _n)(x, k),
        lambda d: [
            S("3x3", d.u((3, 3))),
            S("3x4_k1", d.u((3, 4)), 1),
            S("2x3x3_k-1", d.u((2, 3, 3)), -1),
        ],
    )
add(
    "diag",
    lambda m, v, k=0: m.diag(v, k),
    lambda d: [
        S("3_to_matrix", d.u((3,))),
        S("2_k1", d.u((2,)), 1),
        S("3x4_to_vector", d.u((3, 4))),
        S("4x3_k-1", d.u((4, 3)), -1),
    ],
)
add(
    "diagonal",
    call("diagonal"),
    lambda d: [
        S("3x4", d.u((3, 4))),
        S("3x4_offset1", d.u((3, 4)), 1),
        S("2x3x3_axes12", d.u((2, 3, 3)), 0, 1, 2),
    ],
)
add(
    "append",
    lambda m, x, v, axis=None: m.append(x, v, axis),
    lambda d: [S("2x3_flat", d.u((2, 3)), d.u((2,))), S("2x3_axis0", d.u((2, 3)), d.u((1, 3)), 0)],
    prims="concatenate",
)
add(
    "meshgrid",
    lambda m, *xs, **kw: tuple(m.meshgrid(*xs, **kw)),
    lambda d: [
        S("3_4", d.u((3,)), d.u((4,))),
        S("2_3_ij", d.u((2,)), d.u((3,)), indexing="ij"),
        S("2_3_2_sparse", d.u((2,)), d.u((3,)), d.u((2,)), sparse=True),
    ],
)
add(
    "select",
    lambda m, c1, c2, x1, x2, default=0.0: m.select([c1, c2], [x1, x2], default),
    lambda d: [
        S("4", d.bools((4,)), d.bools((4,)), d.u((4,)), d.u((4,))),
        S("2x3_default", d.bools((2, 3)), d.bools((3,)), d.u((2, 3)), d.u(()), -1.0),
    ],
    prims="select",
)
add(
    "nonzero",
    lambda m, x: tuple(m.nonzero(x)),
    lambda d: [S("3x4", _with(d.away((3, 4)), [(0, 1), (2, 2)], 0.0))],
    nondiff=True,
    value_dependent="the number of nonzero elements is read from the values",
    jax_compositions=False,  # jax.numpy.nonzero needs a static size
)
add(
    "cross",
    call("cross"),
    lambda d: [S("3_3", d.u((3,)), d.u((3,))), S("2x3_3", d.u((2, 3)), d.u((3,)))],
)
add(
    "vecdot",
    call("vecdot"),
    lambda d: [S("3_3", d.u((3,)), d.u((3,))), S("2x4_4", d.u((2, 4)), d.u((4,)))],
)
add(
    "matvec",
    call("matvec"),
    lambda d: [S("2x3_3", d.u((2, 3)), d.u((3,))), S("4x2x3_1x3", d.u((4, 2, 3)), d.u((1, 3)))],
)
add(
    "vecmat",
    call("vecmat"),
    lambda d: [S("2_2x3", d.u((2,)), d.u((2, 3))), S("4x2_1x2x3", d.u((4, 2)), d.u((1, 2, 3)))],
)
add(
    "kron",
    call("kron"),
    lambda d: [S("2x3_3x2", d.u((2, 3)), d.u((3, 2))), S("2_3", d.u((2,)), d.u((3,)))],
)

# -- creation ------------------------------------------------------------------------------------


def _times(d: Draw) -> list[Sample]:
    return [S("2x3", d.u((2, 3))), S("scalar", d.u(()))]


def _like(m, x) -> dict:
    """``like=x`` for fnp (the created array lives where ``x`` lives, as CuPy users write
    it); NumPy's and JAX's spellings create host/JAX arrays anyway."""
    return {"like": x} if m is FNP else {}


add("zeros", lambda m, x: x + m.zeros((2, 3), dtype=x.dtype, **_like(m, x)), _times)
add("ones", lambda m, x: x * m.ones((2, 3), dtype=x.dtype, **_like(m, x)), _times)
add("full", lambda m, x: x * m.full((2, 3), 1.5, dtype=x.dtype, **_like(m, x)), _times)
# numpy.full dispatches on no argument: np.full(shape, tracer) cannot reach ftransforms
add(
    "full_traced_value",
    lambda m, x: m.full((2, 3), x),
    _times,
    funcs="full",
    via_numpy=False,
)
add(
    "empty",
    lambda m, x: x + m.zeros_like(m.empty((2, 3), dtype=x.dtype, **_like(m, x))),
    _times,
)
add(
    "eye",
    lambda m, x: x * m.eye(3, 4, 1, dtype=x.dtype, **_like(m, x)),
    lambda d: [S("3x4", d.u((3, 4)))],
)
add(
    "identity",
    lambda m, x: x @ m.identity(3, dtype=x.dtype, **_like(m, x)),
    lambda d: [S("2x3", d.u((2, 3)))],
)
add(
    "arange",
    lambda m, x: x * m.arange(1, 4, dtype=x.dtype, **_like(m, x)),
    lambda d: [S("2x3", d.u((2, 3)))],
)
add(
    "linspace",
    lambda m, x: x * m.linspace(-1.0, 2.0, 4, dtype=x.dtype, **_like(m, x)),
    lambda d: [S("3x4", d.u((3, 4)))],
)
add(
    "linspace_traced",
    lambda m, a, b, **kw: (m.linspace_traced if m is FNP else m.linspace)(a, b, 5, **kw),
    lambda d: [
        S("scalars", d.u(()), d.u(())),
        S("2_endpoint_false", d.u((2,)), d.u((2,)), endpoint=False),
    ],
)
add("zeros_like", lambda m, x: x + m.zeros_like(x), _times)
add("ones_like", lambda m, x: x * m.ones_like(x), _times)
add("empty_like", lambda m, x: x + m.zeros_like(m.empty_like(x)), _times)
add(
    "full_like",
    lambda m, x, v: m.full_like(x, v),
    lambda d: [S("2x3", d.u((2, 3)), d.u(()))],
    numpy_lone_tracer=(0,),  # numpy.full_like dispatches on its first argument only
)
# numpy.array/asarray on a tracer raise TracerConversionError by design (tests/test_errors.py)
add("array", lambda m, x: m.array(x), _times, via_numpy=False)
add("asarray", lambda m, x: m.asarray(x), _times, via_numpy=False)
add("copy", lambda m, x: m.copy(x), _times)


def _freq_samples(name: str):
    def sampler(d: Draw) -> list[Sample]:
        return [S("d_scalar", d.u((), 0.5, 2.0))]

    return sampler


for _name, _n in (("fftfreq", 6), ("rfftfreq", 7)):
    add(
        f"fft_{_name}",
        lambda m, d, _name=_name, _n=_n: getattr(m.fft, _name)(_n, d),
        _freq_samples(_name),
        funcs=f"fft.{_name}",
    )


# -- index updates -------------------------------------------------------------------------------


def _add_at(m, x, v, idx):
    return m.add_at(x, idx, v) if m is FNP else m.index_add(x, idx, v)


add(
    "add_at",
    _add_at,
    lambda d: [S("4x3_repeats", d.u((4, 3)), d.u((5, 3)), d.ints(4, (5,)))],
    via_numpy=False,  # numpy.add.at is in place
)

# -- the array-API spellings of fnp.linalg ------------------------------------------------------

add(
    "linalg_cross",
    lambda m, a, b, **kw: m.linalg.cross(a, b, **kw),
    lambda d: [
        S("3_3", d.u((3,)), d.u((3,))),
        S("2x3x4_3x1_axis0", d.u((3, 2, 4)), d.u((3, 1, 4)), axis=0),
    ],
    funcs="linalg.cross",
)
add(
    "linalg_vecdot",
    lambda m, a, b, **kw: m.linalg.vecdot(a, b, **kw),
    lambda d: [
        S("2x3_3", d.u((2, 3)), d.u((3,))),
        S("3x2_3x2_axis0", d.u((3, 2)), d.u((3, 2)), axis=0),
    ],
    funcs="linalg.vecdot",
)
add(
    "linalg_diagonal",
    lambda m, x, **kw: m.linalg.diagonal(x, **kw),
    lambda d: [
        S("2x3x3", d.u((2, 3, 3))),
        S("3x4", d.u((3, 4))),
        S("2x3x3_offset1", d.u((2, 3, 3)), offset=1),
        S("2x4x3_offset-2", d.u((2, 4, 3)), offset=-2),
    ],
    funcs="linalg.diagonal",
)
add(
    "linalg_matmul",
    lambda m, a, b: m.linalg.matmul(a, b),
    lambda d: [S("2x3_3x4", d.u((2, 3)), d.u((3, 4))), S("2x2x3_3", d.u((2, 2, 3)), d.u((3,)))],
    funcs="linalg.matmul",
)
add(
    "linalg_matrix_norm",
    lambda m, x, **kw: m.linalg.matrix_norm(x, **kw),
    lambda d: [
        S("3x4_fro", d.u((3, 4))),
        S("2x3x3_ord1_keepdims", d.away((2, 3, 3), lo=0.1), ord=1, keepdims=True),
    ],
    funcs="linalg.matrix_norm",
)
add(
    "linalg_matrix_rank",
    lambda m, x: m.linalg.matrix_rank(x),
    lambda d: [
        S("4x3", d.u((4, 3))),
        S("3x3_rank2", d._f(np.outer(d.u((3,)), d.u((3,))) + np.outer(d.u((3,)), d.u((3,))))),
    ],
    funcs="linalg.matrix_rank",
    nondiff=True,
    dtypes=F64,
)
add(
    "linalg_matrix_transpose",
    lambda m, x: m.linalg.matrix_transpose(x),
    lambda d: [S("2x3x4", d.u((2, 3, 4)))],
    funcs="linalg.matrix_transpose",
)
add(
    "linalg_outer",
    lambda m, a, b: m.linalg.outer(a, b),
    lambda d: [S("3_4", d.u((3,)), d.u((4,)))],
    funcs="linalg.outer",
)
add(
    "linalg_tensordot",
    lambda m, a, b, **kw: m.linalg.tensordot(a, b, **kw),
    lambda d: [
        S("2x3x4_3x4x2", d.u((2, 3, 4)), d.u((3, 4, 2))),
        S("2x3_3x2_axes1", d.u((2, 3)), d.u((3, 2)), axes=1),
    ],
    funcs="linalg.tensordot",
)
add(
    "linalg_trace",
    lambda m, x, **kw: m.linalg.trace(x, **kw),
    lambda d: [
        S("3x3", d.u((3, 3))),
        S("2x3x4_offset-1", d.u((2, 3, 4)), offset=-1),
        S("4x3_offset1", d.u((4, 3)), offset=1),
    ],
    funcs="linalg.trace",
)
add(
    "linalg_vector_norm",
    lambda m, x, **kw: m.linalg.vector_norm(x, **kw),
    lambda d: [
        S("2x3_all", d.u((2, 3))),
        S("3x4_axis1_ord1", d.away((3, 4), lo=0.1), axis=1, ord=1),
        S("3x4_axis0_ord3_keepdims", d.away((3, 4), lo=0.1), axis=0, ord=3, keepdims=True),
    ],
    funcs="linalg.vector_norm",
)

# -- scipy.special's other spellings --------------------------------------------------------------

add(
    "logit",
    special("logit"),
    unary("u", lo=0.1, hi=0.9),
    prims=("log", "divide"),
    funcs="special.logit",
)
add(
    "psi",
    lambda m, x: m.special.digamma(x) if m is JNP else m.special.psi(x),  # jax: no psi
    unary("u", lo=0.5, hi=4.0),
    prims="digamma",
    funcs="special.psi",
)

#: Entries that spell another entry's primitives differently (an alias, an array-API name) or
#: create a constant: their transformation rules are compared with JAX through that other
#: entry (keeps the suite's JAX compile time down).
ALIASES = {
    "absolute",
    "fabs",
    "positive",
    "conjugate",
    "true_divide",
    "deg2rad",
    "radians",
    "rad2deg",
    "degrees",
    "fix",
    "around",
    "mod",
    "amax",
    "amin",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "matrix_transpose",
    "permute_dims",
    "linalg_matmul",
    "linalg_outer",
    "linalg_matrix_transpose",
    "linalg_tensordot",
    "zeros",
    "ones",
    "full",
    "empty",
    "eye",
    "identity",
    "arange",
    "linspace",
    "zeros_like",
    "ones_like",
    "empty_like",
    "array",
    "asarray",
    "copy",
    "psi",
}
#: Entries that only rearrange or select elements (their primitives, gathers, concatenations
#: and transposes, are compared with JAX through the core entries): no JAX compositions
#: either, to keep the suite's time.
ALIASES |= {
    "broadcast_arrays",
    "column_stack",
    "dstack",
    "fliplr",
    "flipud",
    "hsplit",
    "vsplit",
    "dsplit",
    "rollaxis",
    "rot90",
    "repeat",
    "tile",
    "roll",
    "tril",
    "triu",
    "diag",
    "diagonal",
    "append",
    "meshgrid",
    "select",
    "add_at",
    "full_like",
    "full_traced_value",
    "pad_traced_constant",
    "linalg_diagonal",
    "linalg_trace",
    "cumulative_sum",
    "cumulative_prod",
}
assert ALIASES <= {op.name for op in OPS}, ALIASES - {op.name for op in OPS}
OPS[:] = [replace(op, jax_compositions=False) if op.name in ALIASES else op for op in OPS]


def _sliding_window_view(m: Any, x: Any, window: int, axis: int = -1) -> Any:
    """``sliding_window_view`` over one axis; NumPy's lives in ``np.lib.stride_tricks`` and
    JAX has none, so its oracle is the same windows as a gather (window axis last)."""
    if m is JNP:
        n = x.shape[axis]
        index = np.arange(n - window + 1)[:, None] + np.arange(window)
        return m.take(x, index, axis=axis)
    if m is FNP:
        return m.sliding_window_view(x, window, axis=axis)
    return np.lib.stride_tricks.sliding_window_view(x, window, axis=axis)


def _sliding_window_samples(d: Draw) -> list[Sample]:
    return [S("7_w3", d.u((7,)), 3), S("3x6_w4_last", d.u((3, 6)), 4, axis=-1)]


add("sliding_window_view", _sliding_window_view, _sliding_window_samples, prims="getitem")
