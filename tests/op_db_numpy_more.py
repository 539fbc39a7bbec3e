"""Op-database entries for NumPy's remaining calling conventions and functions (issue 13,
item 3): ``einsum``'s sublist form, ``trace``/``diagonal`` with offsets and axes, ``r_``,
``c_``, ``ix_``, and the functions written as ``fnp`` composites in
``ftransforms/numpy/functional.py`` (``apply_along_axis``, ``apply_over_axes``,
``piecewise``), ``indexing.py`` (``choose``, ``compress``, ``extract``), ``sorting.py``
(``lexsort``), ``mathematical.py`` (``i0``), ``statistics.py`` (``histogram2d``,
``histogramdd``, ``histogram_bin_edges``), ``polynomials.py`` (``poly``, ``polydiv``,
``polyfit``); ``linalg.tensorinv``/``tensorsolve`` are in ``tests/op_db_linalg_complex.py``.

Entries in the one op-database format (the top of ``tests/op_db.py``), imported by
``tests/op_db.py``.  Samplers give the same shapes for every seed; the
histograms' points are fixed operands (the counts have no derivative: only the weights
are differentiated), and ``piecewise``'s inputs stay away from its breakpoints.
"""

from __future__ import annotations

import numpy as np

from tests.op_db_base import JNP, S, add

F64 = (np.dtype(np.float64),)
_RANGE2 = ((-2.0, 2.0), (-2.0, 2.0))


# -- einsum's sublist form ------------------------------------------------------------

add(
    "einsum_sublist",
    lambda m, a, b, out=None: (
        m.einsum(a, [0, 1], b, [1, 2]) if out is None else m.einsum(a, [0, 1], b, [1, 2], out)
    ),
    lambda d: [
        S("2x3_3x4", d.u((2, 3)), d.u((3, 4))),
        S("2x3_3x4_out20", d.u((2, 3)), d.u((3, 4)), [2, 0]),
    ],
    prims="einsum",
)
add(
    "einsum_sublist_ellipsis",
    lambda m, a, b: m.einsum(a, [Ellipsis, 0, 1], b, [Ellipsis, 1], [Ellipsis, 0]),
    lambda d: [S("2x2x3_2x3", d.u((2, 2, 3)), d.u((2, 3)))],
    prims="einsum",
)

# -- trace and diagonal with any offset and axes ---------------------------------------


def trace_samples(d):
    return [
        S("3x4_off1", d.u((3, 4)), 1),
        S("3x4_off-2", d.u((3, 4)), -2),
        S("3x4_off5_empty", d.u((3, 4)), 5),
        S("2x3x4_off1_axes20", d.u((2, 3, 4)), 1, 2, 0),
        S("2x3x4_off-1_axes-11", d.u((2, 3, 4)), -1, -1, 1),
    ]


add(
    "trace_offset",
    lambda m, x, offset, axis1=0, axis2=1: m.trace(x, offset, axis1, axis2),
    trace_samples,
    prims="reduce_sum",
)
add(
    "diagonal_offset",
    lambda m, x, offset, axis1=0, axis2=1: m.diagonal(x, offset, axis1, axis2),
    trace_samples,
    prims="getitem",
)

# -- index tricks ------------------------------------------------------------------------

add(
    "r_",
    lambda m, t, s: m.r_[t, 0.5, s],
    lambda d: [S("3_2", d.u((3,)), d.u((2,))), S("1_4", d.u((1,)), d.u((4,)))],
    prims="concatenate",
)
add(
    "r_slice",
    lambda m, t: m.r_[t, 1:3],
    lambda d: [S("3", d.u((3,)))],
    prims="concatenate",
)
add(
    "r_directive",
    lambda m, t, s, directive: m.r_[directive, t, s],
    lambda d: [
        S("0,2", d.u((3,)), d.u((3,)), "0,2"),
        S("-1,2,0", d.u((3,)), d.u((3,)), "-1,2,0"),
        S("1", d.u((2, 3)), d.u((2, 2)), "1"),
    ],
    prims="concatenate",
)
add(
    "c_",
    lambda m, a, t: m.c_[a, t],
    lambda d: [S("3_3", d.u((3,)), d.u((3,))), S("2x2_2", d.u((2, 2)), d.u((2,)))],
    prims="concatenate",
)
add(
    "ix_",
    lambda m, x, rows, cols: x[m.ix_(np.asarray(rows), np.asarray(cols))],
    lambda d: [S("3x4", d.u((3, 4)), (0, 2), (3, 1, 1)), S("4x2", d.u((4, 2)), (3,), (1,))],
    prims="getitem",
)

# -- functional programming --------------------------------------------------------------

add(
    "apply_along_axis",
    lambda m, x, axis: m.apply_along_axis(lambda v: v * m.sum(v * v), axis, x),
    lambda d: [S("2x3_axis1", d.u((2, 3)), 1), S("2x3x2_axis0", d.u((2, 3, 2)), 0)],
    prims=("multiply", "reduce_sum"),
)
add(
    "apply_over_axes",
    lambda m, x, axes: m.apply_over_axes(m.sum, x * x, axes),
    lambda d: [S("2x3x4_02", d.u((2, 3, 4)), [0, 2]), S("3x2_-1", d.u((3, 2)), -1)],
    prims="reduce_sum",
)
add(
    "piecewise",
    lambda m, x: m.piecewise(x, [x < 0, x >= 0], [lambda v: v * v, m.sin]),
    lambda d: [S("6", d.away((6,), 0.1)), S("2x3", d.away((2, 3), 0.1))],
    prims=("multiply", "sin"),
    value_dependent="each function sees the elements its condition selects (a read of the mask)",
)
add(
    "piecewise_otherwise",
    lambda m, x: m.piecewise(x, [x < -0.5], [lambda v: v * v * v, 0.25]),
    lambda d: [S("5", d.away((5,), 0.1, 1.5) - 0.5)],  # away from -0.5
    prims="multiply",
    value_dependent="each function sees the elements its condition selects",
)

# -- indexing routines -------------------------------------------------------------------

add(
    "choose",
    lambda m, a, c0, c1, mode="raise": m.choose(
        a,
        [c0, c1],
        mode="clip" if m is JNP and mode == "raise" else mode,  # JAX: no raise
    ),
    lambda d: [
        S("2x3", d.ints(2, (2, 3)), d.u((2, 3)), d.u((3,))),
        S("4_clip", d.ints(4, (4,), -1), d.u((4,)), d.u((4,)), mode="clip"),
        S("4_wrap", d.ints(5, (4,)), d.u((4,)), d.u(()), mode="wrap"),
    ],
    prims="getitem",
    value_dependent="mode='raise' checks the indices' range (fnp.peek)",
)
add(
    "compress",
    lambda m, x, cond, axis=None: (
        # jax.numpy.compress needs a concrete condition: its oracle is the same take
        m.take(x, np.flatnonzero(cond), axis=axis)
        if m is JNP
        else m.compress(list(cond), x, axis=axis)
    ),
    lambda d: [
        S("3x4_axis1", d.u((3, 4)), (True, False, True), axis=1),
        S("6_flat", d.u((2, 3)), (False, True, True, False)),
    ],
    prims="getitem",
)
add(
    "extract",
    lambda m, x, cond: (
        # jax.numpy.extract needs a concrete condition: its oracle is the same take
        m.take(x, np.flatnonzero(cond)) if m is JNP else m.extract(np.asarray(cond), x)
    ),
    lambda d: [S("2x3", d.u((2, 3)), ((True, False, True), (False, False, True)))],
    prims="getitem",
)
add(
    "lexsort",
    lambda m, k0, k1: m.lexsort((k0, k1)),
    lambda d: [S("6", d.distinct((6,)), d.rng.permutation(np.arange(6.0) // 2).astype(d.dtype))],
    prims="argsort",
    nondiff=True,
)

# -- special functions, statistics, polynomials, linear algebra ---------------------------

add(
    "i0",
    lambda m, x: m.i0(x),
    lambda d: [S("6", d.u((6,), -4.0, 4.0)), S("2x2_large", d.u((2, 2), 21.0, 30.0))],
    prims=("multiply", "exp"),
)


def points(d, n=12):
    return d.u((n,), -1.9, 1.9), d.u((n,), -1.9, 1.9)


def hist2d_samples(d):
    x, y = points(d)
    w = d.u((12,), 0.5, 1.5)
    return [
        S("12_bins3", w, x, y, 3, range=_RANGE2),
        S("12_bins23_density", w, x, y, [2, 3], range=_RANGE2, density=True),
    ]


add(
    "histogram2d_weights",
    lambda m, w, x, y, bins, **kw: m.histogram2d(x, y, bins, weights=w, **kw)[0],
    hist2d_samples,
    funcs="histogram2d",
    prims=("searchsorted", "select"),
    diff_operands=(0,),
)
add(
    "histogramdd_weights",
    lambda m, w, x, y, bins, **kw: m.histogramdd(m.stack([x, y], axis=1), bins, weights=w, **kw)[0],
    hist2d_samples,
    prims=("searchsorted", "select"),
    funcs=("histogramdd", "stack"),
    diff_operands=(0,),
)
add(
    "histogram_bin_edges",
    lambda m, a, bins: m.histogram_bin_edges(a, bins),
    lambda d: [S("7_bins3", d.distinct((7,)), 3), S("2x4_bins5", d.distinct((2, 4)), 5)],
    prims=("reduce_max", "reduce_min"),
)
add(
    "polyfit",
    lambda m, x, y, deg, **kw: m.polyfit(x, y, deg, **kw),
    lambda d: [
        S("8_deg2", d.distinct((8,), 0.4), d.u((8,)), 2),
        S("8x2_deg1", d.distinct((8,), 0.4), d.u((8, 2)), 1),
        S("6_deg2_w", d.distinct((6,), 0.5), d.u((6,)), 2, w=d.u((6,), 0.5, 1.5)),
    ],
    prims="pinv",
    dtypes=F64,  # float32 least squares on a Vandermonde matrix is too ill-conditioned
    value_dependent="lstsq reads the singular values for the rank (fnp.peek)",
)
add(
    "poly",
    lambda m, z: m.poly(z),
    lambda d: [S("4", d.u((4,))), S("1", d.u((1,)))],
    prims=("matmul", "concatenate"),
)
add(
    "polydiv_quotient",
    lambda m, u, v: m.polydiv(u, v)[0],
    lambda d: [
        S("5_3", d.u((5,)), d.away((3,), 0.5)),
        S("4_1", d.u((4,)), d.away((1,), 0.5)),
    ],
    prims="divide",
    funcs="polydiv",
    value_dependent="the remainder's leading zeros are dropped as NumPy does (fnp.peek)",
)
add(
    "roots",
    lambda m, p: m.sort(m.real(m.roots(p))),
    lambda d: [S("cubic", np.poly(np.array([-1.0, 0.5, 2.0])).astype(d.dtype) + 0 * d.u((4,)))],
    prims=("eig", "getitem"),
    funcs=("roots", "sort", "real"),
    dtypes=F64,
    jax_compositions=False,  # jnp.roots is not traceable with a data-dependent size
    value_dependent="leading zeros of the coefficients are read (fnp.peek)",
)
