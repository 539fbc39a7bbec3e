"""Op-database entries for the NumPy composites of ``ftransforms/numpy/``: ``_quantiles.py``,
``_statistics.py``, ``_signal.py``, ``_polynomials.py`` and ``_builders.py`` (quantiles,
covariance, interp, convolution, polynomials, array builders, sequences, counting and
binning).

Format: ``tests/op_db.py``.  The entries whose result shape is read from the data
(``trim_zeros``, ``bincount``, ``bincount_weights``) say so (``value_dependent``): ``jit``
runs them eagerly.

Samplers keep finite differences away from kinks: distinct values for the order
statistics, with ``q * (n - 1)`` away from integers and from halves (``nearest``: NumPy
rounds half to even, JAX down); interpolation points inside segments, away from the
sample points; zeros of ``trim_zeros`` and the maximum of ``bincount`` at the same places
for every seed (the result's shape depends on them, and must not vary across a vmap batch).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tests.op_db_base import JNP, S, add

F64 = (np.dtype(np.float64),)


def _j(m: Any, jnp_ns: Any, v: Any) -> Any:
    """Lists and tuples as arrays for jax.numpy (which refuses them)."""
    return np.asarray(v) if m is jnp_ns and isinstance(v, (list, tuple)) else v


def _with_nans(x: np.ndarray, where: list[tuple]) -> np.ndarray:
    x = x.copy()
    for pos in where:
        x[pos] = np.nan
    return x


def _interp_samples(d: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``x`` inside the segments of sorted ``xp`` (20%..80% of the way), and one point
    beyond each end."""
    xp = np.cumsum(d.rng.uniform(0.5, 1.0, 5)) - 2.0
    seg = d.rng.integers(0, 4, 6)
    x = xp[seg] + d.rng.uniform(0.2, 0.8, 6) * (xp[seg + 1] - xp[seg])
    x[0] = xp[0] - d.rng.uniform(0.2, 1.0)
    x[-1] = xp[-1] + d.rng.uniform(0.2, 1.0)
    return d._f(x), d._f(xp), d.u((5,))


def _periodic_samples(d: Any, period: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sample points in [0, period) and ``x`` inside segments (the wrap-around one too),
    shifted by whole periods."""
    xp = np.cumsum(d.rng.uniform(0.5, 0.8, 4))
    ext = np.r_[xp, xp[0] + period]
    seg = d.rng.integers(0, 4, 6)
    x = ext[seg] + d.rng.uniform(0.2, 0.8, 6) * (ext[seg + 1] - ext[seg])
    x = x + period * d.rng.integers(-1, 2, 6)
    return d._f(x), d._f(xp), d.u((4,))


# -- order statistics ------------------------------------------------------------------


def quantile_fn(name: str) -> Callable:
    def fn(m, a, q, **kw):
        return getattr(m, name)(a, _j(m, JNP, q), **kw)

    fn.__name__ = name
    return fn


def quantile_samples(d):
    q_traced = d._f(np.array([0.13, 0.66]) + d.u((2,), -0.02, 0.02))
    return [
        S("4x5_flat", d.distinct((4, 5)), 0.3),
        S("4x5_axis0_two_q", d.distinct((4, 5)), [0.2, 0.9], axis=0),
        S("3x4x5_axes_keepdims", d.distinct((3, 4, 5)), 0.45, axis=(0, 2), keepdims=True),
        S("6_traced_q", d.distinct((6,)), q_traced, _jax=True),
        S("3x6_lower", d.distinct((3, 6)), [0.13, 0.7], axis=1, method="lower"),
        S("3x6_higher", d.distinct((3, 6)), [0.13, 0.7], axis=-1, method="higher"),
        S("7_nearest", d.distinct((7,)), [0.1, 0.3, 0.95], method="nearest", _jax=True),
        S("5x3_midpoint", d.distinct((5, 3)), [0.3, 0.5], axis=0, method="midpoint"),
    ]


sort_prims = ("argsort", "getitem")
_TRACED_Q = "a traced q is checked for its range, per row, as NumPy does (a read)"
add(
    "quantile",
    quantile_fn("quantile"),
    quantile_samples,
    prims=sort_prims,
    value_dependent=_TRACED_Q,
)


def percentile_samples(d):
    q_traced = d._f(np.array([20.0, 70.0]) + d.u((2,), -2.0, 2.0))
    return [
        S("3x5_axis1", d.distinct((3, 5)), [10.0, 50.0, 85.0], axis=1),
        S("8_scalar_q", d.distinct((8,)), 35.0),
        S("4x3_traced_q", d.distinct((4, 3)), q_traced, _jax=True),
        S("4x4_nearest_keepdims", d.distinct((4, 4)), 40.0, axis=0, method="nearest"),
    ]


add(
    "percentile",
    quantile_fn("percentile"),
    percentile_samples,
    prims=sort_prims,
    value_dependent=_TRACED_Q,
)


def nan_samples(d, qs):
    return [
        S("4x5_axis1", _with_nans(d.distinct((4, 5)), [(0, 1), (2, 3), (2, 4)]), qs[0], axis=1),
        S("3x4_flat", _with_nans(d.distinct((3, 4)), [(1, 1)]), qs[1]),
        S(
            "5x3_axis0_lower_keepdims",
            _with_nans(d.distinct((5, 3)), [(4, 0), (1, 2)]),
            qs[2],
            axis=0,
            method="lower",
            keepdims=True,
        ),
    ]


add(
    "nanquantile",
    quantile_fn("nanquantile"),
    lambda d: nan_samples(d, [[0.3, 0.8], 0.55, 0.4]),
    prims=sort_prims + ("isnan",),
)
add(
    "nanpercentile",
    quantile_fn("nanpercentile"),
    lambda d: nan_samples(d, [[30.0, 80.0], 55.0, 40.0]),
    prims=sort_prims + ("isnan",),
)


def nanmedian_samples(d):
    return [
        S("4x5_axis1", _with_nans(d.distinct((4, 5)), [(0, 1), (2, 3), (2, 4)]), axis=1),
        S("3x4_flat", _with_nans(d.distinct((3, 4)), [(1, 1)])),
        S(
            "2x3x4_axes_keepdims",
            _with_nans(d.distinct((2, 3, 4)), [(0, 1, 1)]),
            axis=(1, 2),
            keepdims=True,
        ),
    ]


add(
    "nanmedian",
    lambda m, a, **kw: m.nanmedian(a, **kw),
    nanmedian_samples,
    prims=sort_prims + ("isnan",),
)

# -- covariance ------------------------------------------------------------------------


def cov_samples(d):
    fw = np.array([1, 2, 1, 3, 1, 2])
    return [
        S("3x6", d.u((3, 6))),
        S("6x3_rowvar_bias", d.u((6, 3)), rowvar=False, bias=True),
        S("7_with_y_ddof0", d.u((7,)), d.u((7,)), ddof=0, _jax=True),
        S("3x6_aweights", d.u((3, 6)), None, d.u((6,), 0.5, 2.0), _jax=True),
        S("3x6_fweights", d.u((3, 6)), fweights=fw),
        S("2x6_both_ddof2", d.u((2, 6)), None, d.u((6,), 0.5, 2.0), fweights=fw, ddof=2),
    ]


add(
    "cov",
    lambda m, x, y=None, aweights=None, **kw: m.cov(x, y, aweights=aweights, **kw),
    cov_samples,
    prims=("matmul", "subtract"),
    value_dependent="negative aweights raise as in NumPy (read per vmap row)",
)
add(
    "corrcoef",
    lambda m, x, y=None, **kw: m.corrcoef(x, y, **kw),
    lambda d: [
        S("3x6", d.u((3, 6))),
        S("6_xy", d.u((6,)), d.u((6,))),
        S("5x3_rowvar", d.u((5, 3)), rowvar=False),
    ],
    prims=("matmul", "sqrt", "divide"),
)

# -- interpolation and signals ---------------------------------------------------------


def interp_samples(d):
    x, xp, fp = _interp_samples(d)
    xs, xps, fps = _periodic_samples(d, 4.0)
    return [
        S("6_5", x, xp, fp),
        S("2x3_left_right", x.reshape(2, 3), xp, fp, left=-3.0, right=4.0),
        S("scalar", x[2].reshape(()), xp, fp),
        S("6_4_period", xs, xps, fps, period=4.0, _jax=True),
    ]


add(
    "interp",
    lambda m, x, xp, fp, **kw: m.interp(x, xp, fp, **kw),
    interp_samples,
    prims=("searchsorted", "getitem", "select"),
)


def conv_samples(d):
    return [
        S("7_3_full", d.u((7,)), d.u((3,)), "full"),
        S("3_5_same", d.u((3,)), d.u((5,)), "same", _jax=True),
        S("6_4_valid", d.u((6,)), d.u((4,)), "valid"),
        S("4_4_same", d.u((4,)), d.u((4,)), "same"),
        S("5_1_full", d.u((5,)), d.u((1,)), "full"),
    ]


add("convolve", lambda m, a, v, mode: m.convolve(a, v, mode), conv_samples, prims="matmul")


def correlate_samples(d):
    return [
        S("7_3_valid", d.u((7,)), d.u((3,)), "valid"),
        S("3_5_same", d.u((3,)), d.u((5,)), "same", _jax=True),
        S("4_6_full", d.u((4,)), d.u((6,)), "full"),
        S("5_2_same", d.u((5,)), d.u((2,)), "same"),
    ]


add(
    "correlate",
    lambda m, a, v, mode: m.correlate(a, v, mode),
    correlate_samples,
    prims="matmul",
)

# -- polynomials -----------------------------------------------------------------------

add(
    "polyval",
    lambda m, p, x: m.polyval(p, x),
    lambda d: [
        S("4_5", d.u((4,)), d.u((5,))),
        S("3_2x3", d.u((3,)), d.u((2, 3))),
        S("5_scalar", d.u((5,)), d.u(())),
    ],
    prims=("multiply", "add"),
)
add(
    "polyder",
    lambda m, p, order=1: m.polyder(p, order),
    lambda d: [S("5", d.u((5,))), S("6_m2", d.u((6,)), 2)],
    prims="multiply",
)
add(
    "polyint",
    lambda m, p, order=1, k=None: m.polyint(p, order, _j(m, JNP, k)),
    lambda d: [
        S("4", d.u((4,))),
        S("3_m2_k", d.u((3,)), 2, [1.0, 2.0]),
        S("3_k_scalar", d.u((3,)), 1, 0.5),
    ],
    prims=("divide", "concatenate"),
)


def pair_samples(d):
    return [
        S("3_5", d.u((3,)), d.u((5,))),
        S("4_2", d.u((4,)), d.u((2,))),
        S("3_3", d.u((3,)), d.u((3,))),
    ]


add("polyadd", lambda m, a, b: m.polyadd(a, b), pair_samples, prims="add")
add("polysub", lambda m, a, b: m.polysub(a, b), pair_samples, prims="subtract")
add(
    "polymul",
    lambda m, a, b: m.polymul(a, b),
    lambda d: [S("3_4", d.u((3,)), d.u((4,))), S("1_3", d.u((1,)), d.u((3,)))],
    prims="matmul",
)
add(
    "vander",
    lambda m, x, n=None, increasing=False: m.vander(x, n, increasing),
    lambda d: [
        S("4", d.away((4,))),
        S("3_N5_increasing", d.away((3,)), 5, True),
        S("5_N2", d.away((5,)), 2),
    ],
    prims="cumprod",
)

# -- building and editing arrays ---------------------------------------------------------

add(
    "diagflat",
    lambda m, v, k=0: m.diagflat(v, k),
    lambda d: [S("2x3", d.u((2, 3))), S("4_k-1", d.u((4,)), -1)],
    prims="getitem_transpose",
)
add(
    "block",
    lambda m, a, b, c, e: m.block([[a, b], [c, e]]),
    lambda d: [
        S("2d", d.u((2, 3)), d.u((2, 1)), d.u((1, 3)), d.u((1, 1))),
        S("1d", d.u((3,)), d.u((2,)), d.u((1,)), d.u((4,))),
    ],
    prims=("concatenate", "reshape"),
)
add(
    "unstack",
    lambda m, x, **kw: m.unstack(x, **kw),
    lambda d: [S("3x4", d.u((3, 4))), S("2x3x2_axis1", d.u((2, 3, 2)), axis=1)],
    prims="getitem",
)
add(
    "resize",
    lambda m, a, shape: m.resize(a, shape),
    lambda d: [S("2x3_to_4x4", d.u((2, 3)), (4, 4)), S("5_to_3", d.u((5,)), 3)],
    prims="getitem",
)
add(
    "delete",
    lambda m, a, obj, axis=None: m.delete(a, _j(m, JNP, obj), axis),
    lambda d: [
        S("4x5_cols", d.u((4, 5)), [0, 2], 1),
        S("6_slice", d.u((6,)), slice(1, None, 2)),
        S("3x4_last_row", d.u((3, 4)), -1, 0),
    ],
    prims="getitem",
)
add(
    "insert",
    lambda m, a, obj, values, axis=None: m.insert(a, _j(m, JNP, obj), values, axis),
    lambda d: [
        S("3x4_scalar_obj", d.u((3, 4)), 1, d.u((3,)), 1),
        S("5_two", d.u((5,)), [1, 3], d.u((2,))),
        S("2x3_rows", d.u((2, 3)), [0, 2], d.u((3,)), 0),
    ],
    prims=("concatenate", "getitem"),
)


def trim_samples(d):
    x = d.away((7,))
    x[[0, 1, 6]] = 0.0
    y = d.away((4, 5))
    y[0, :] = 0.0
    y[:, [0, 4]] = 0.0
    return [
        S("7", x),
        S("7_front", x.copy(), "f"),
        S("4x5", y),
        S("4x5_axis1_back", y.copy(), "b", axis=1),
    ]


add(
    "trim_zeros",
    lambda m, x, trim="fb", **kw: m.trim_zeros(x, trim, **kw),
    trim_samples,
    prims="getitem",
    # moving a zero makes it nonzero and changes the shape: no finite differences
    fd=False,
    jax_compositions=False,  # jax.numpy.trim_zeros cannot be traced
    value_dependent="what is trimmed is read from the values (fnp.peek)",
)

add(
    "ediff1d",
    lambda m, x, to_end=None, to_begin=None: m.ediff1d(x, to_end, to_begin),
    lambda d: [S("2x3", d.u((2, 3))), S("5_end_begin", d.u((5,)), d.u((2,)), d.u(()))],
    prims=("subtract", "concatenate"),
)


def gradient_fn(m, f, *spacing, edge_order=1, **kw):
    if edge_order != 1:  # jax.numpy.gradient has no edge_order
        kw["edge_order"] = edge_order
    out = m.gradient(f, *spacing, **kw)
    return tuple(out) if isinstance(out, (list, tuple)) else out


def gradient_samples(d):
    coords = d._f(np.cumsum(d.rng.uniform(1.0, 1.5, 6)))
    return [
        S("6", d.u((6,))),
        S("4x5_two_spacings", d.u((4, 5)), 0.5, 2.0),
        S("4x5_axis1", d.u((4, 5)), 0.7, axis=1),
        S("6_coords", d.u((6,)), coords, _jax=True),
        S("5_traced_h", d.u((5,)), d.u((), 0.5, 2.0)),
        S("5x4_edge2", d.u((5, 4)), 0.5, edge_order=2, axis=0),
        S("6_coords_edge2", d.u((6,)), coords.copy(), edge_order=2),
    ]


add("gradient", gradient_fn, gradient_samples, prims=("subtract", "concatenate"))

# -- sequences -------------------------------------------------------------------------

add(
    "logspace",
    lambda m, start, stop, num, **kw: m.logspace(start, stop, num, **kw),
    lambda d: [
        S("scalars", d.u(()), d.u(()), 5),
        S("2_axis1_base2", d.u((2,)), d.u((2,)), 4, endpoint=False, base=2.0, axis=1),
    ],
    prims="power",
)
add(
    "geomspace",
    lambda m, start, stop, num, **kw: m.geomspace(start, stop, num, **kw),
    lambda d: [
        S("scalars", d.u((), 0.5, 3.0), d.u((), 0.5, 3.0), 5),
        S(
            "negative_2_axis1",
            d.u((2,), -3.0, -0.5),
            d.u((2,), -3.0, -0.5),
            4,
            axis=1,
            endpoint=False,
        ),
    ],
    prims=("power", "log10"),
    value_dependent="a start or stop of zero raises as in NumPy (read per vmap row)",
)

# -- counting and binning ---------------------------------------------------------------


def bincount_fn(m, x, w=None, minlength=0, length=None):
    if m is JNP:
        return m.bincount(x, w, minlength=minlength, length=length)
    return m.bincount(x, w, minlength=minlength)


def with_max(d, hi, n):
    x = d.ints(hi, (n,))
    x[2] = hi  # the same maximum for every seed: the same length
    return x


add(
    "bincount",
    bincount_fn,
    lambda d: [
        S("8_minlength", d.ints(5, (8,)), minlength=5, length=5),
        S("6_fixed_max", with_max(d, 4, 6), length=5),
    ],
    prims="getitem_transpose",
    nondiff=True,
    dtypes=F64,
    value_dependent="the length, max(x) + 1, is read from the values (fnp.peek)",
)
add(
    "bincount_weights",
    bincount_fn,
    lambda d: [
        S("6_weights", with_max(d, 4, 6), d.u((6,)), length=5),
        S("5_minlength", d.ints(3, (5,)), d.u((5,)), minlength=6, length=6),
    ],
    prims="getitem_transpose",
    value_dependent="the length, max(x) + 1, is read from the values (fnp.peek)",
)
add(
    "digitize",
    lambda m, x, bins, right=False: m.digitize(x, bins, right),
    lambda d: [
        S("6_increasing", d.u((6,)), np.sort(d.u((4,)))),
        S("2x3_decreasing_right", d.u((2, 3)), np.sort(d.u((4,)))[::-1].copy(), True),
    ],
    prims="searchsorted",
    nondiff=True,
    value_dependent="traced bins are checked for order, per row, as NumPy does (a read)",
)


def isin_samples(d):
    def whole(hi, shape):
        return d.ints(hi, shape).astype(d.dtype)

    return [
        S("3x4", whole(5, (3, 4)), whole(6, (3,))),
        S("5_invert", whole(4, (5,)), whole(4, (2,)), True),
    ]


add(
    "isin",
    lambda m, e, t, invert=False: m.isin(e, t, invert=invert),
    isin_samples,
    prims=("equal", "reduce_any"),
    nondiff=True,
)


def histogram_fn(m, a, bins=10, **kw):
    hist, edges = m.histogram(a, bins, **kw)
    return (hist.astype(np.intp) if m is JNP else hist), edges


add(
    "histogram",
    histogram_fn,
    lambda d: [
        S("10_bins4_range", d.u((10,)), 4, range=(-2.0, 2.0)),
        S("3x4_edges", d.u((3, 4)), bins=np.array([-2.0, -0.5, 0.0, 1.0, 2.0])),
    ],
    prims=("searchsorted", "reduce_sum"),
    nondiff=True,
)
add(
    "histogram_weights",
    lambda m, a, w, bins, **kw: m.histogram(a, bins, weights=w, **kw)[0],
    lambda d: [
        S("8_bins3", d.u((8,)), d.u((8,)), 3, range=(-2.0, 2.0)),
        S("8_density", d.u((8,)), d.u((8,), 0.5, 1.5), 4, range=(-2.0, 2.0), density=True),
    ],
    prims=("searchsorted", "select"),
    diff_operands=(1,),
)
add(
    "histogram_auto_edges",
    lambda m, a, bins: m.histogram(a, bins)[1],
    lambda d: [S("7_bins3", d.distinct((7,)), 3), S("2x4_bins5", d.distinct((2, 4)), 5)],
    prims=("reduce_max", "reduce_min"),
)
