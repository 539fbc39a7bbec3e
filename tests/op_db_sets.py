"""Op-database entries for the set, index and NaN-aware functions of ``fnp`` (NaN-aware
arg-reductions and cumulations, indices of nonzero elements, index arithmetic, ``unwrap``,
``sort_complex``, whole-array comparisons, ``unique`` and the set functions).

Format: ``tests/op_db.py``.  The entries whose result size is read from the data
(``argwhere``, ``flatnonzero``, ``unique*``, the set functions) or whose indices are
bounds-checked (``ravel_multi_index``, ``unravel_index``) say so (``value_dependent``):
``jit`` runs them eagerly.

Samplers give the same result sizes for every seed (zeros and repeated values at the same
places, distinct values drawn again), so that vmap batches of several seeds agree.  Moving
one of several equal values splits it off and changes the shape of ``unique``: no finite
differences there (the derivative, a gather, is compared with ``jax.numpy.unique(size=)``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tests.op_db_base import JNP, S, add

F64 = (np.dtype(np.float64),)


def _with_nans(x: np.ndarray, where: list[tuple]) -> np.ndarray:
    x = x.copy()
    for pos in where:
        x[pos] = np.nan
    return x


def _with_zeros(x: np.ndarray, where: list[tuple]) -> np.ndarray:
    x = x.copy()
    for pos in where:
        x[pos] = 0.0
    return x


def _repeats(d: Any, pattern: list[int]) -> np.ndarray:
    """Distinct values, each repeated as often as ``pattern`` says, in a random order (the
    number of distinct values is the same for every seed)."""
    base = d.distinct((max(pattern) + 1,))
    return base[d.rng.permutation(np.asarray(pattern))]


def _unwrap_samples(d: Any, shape: tuple, period: float = 2 * np.pi) -> np.ndarray:
    """Cumulated steps away from ``period / 2`` and its odd multiples (the jumps that
    ``unwrap`` corrects, or not): finite differences never cross one."""
    small = d.rng.uniform(0.1, 0.4, shape) * period
    large = d.rng.uniform(0.6, 1.4, shape) * period
    steps = np.where(d.rng.random(shape) < 0.5, small, large)
    steps = steps * np.where(d.rng.random(shape) < 0.5, -1.0, 1.0)
    return d._f(np.cumsum(steps, axis=-1))


def _b(result: Any) -> Any:
    """A Python bool (plain arrays' ``array_equal``) as a NumPy bool: the tests compare
    array leaves."""
    return np.bool_(result) if isinstance(result, bool) else result


# -- NaN-aware arg-reductions and cumulations ------------------------------------------


def nan_samples(d):
    return [
        S("3x4_flat", _with_nans(d.distinct((3, 4)), [(0, 1), (2, 2)])),
        S("3x4_axis1", _with_nans(d.distinct((3, 4)), [(0, 0), (1, 3)]), axis=1),
        S(
            "4x3_axis0_keepdims",
            _with_nans(d.distinct((4, 3)), [(1, 1)]),
            axis=0,
            keepdims=True,
        ),
    ]


for name, prim in (("nanargmax", "argmax"), ("nanargmin", "argmin")):
    add(
        name,
        lambda m, x, _n=name, **kw: getattr(m, _n)(x, **kw),
        nan_samples,
        prims=(prim, "isnan"),
        nondiff=True,
        value_dependent="an all-NaN slice raises as in NumPy (read per vmap row)",
    )


def nancum_samples(d):
    return [
        S("3x4_flat", _with_nans(d.u((3, 4)), [(0, 1), (2, 2)])),
        S("3x4_axis1", _with_nans(d.u((3, 4)), [(0, 0), (1, 3)]), axis=1),
        S("4x3_axis0", _with_nans(d.u((4, 3)), [(1, 1)]), axis=0),
    ]


for name, prim in (("nancumsum", "cumsum"), ("nancumprod", "cumprod")):
    add(
        name,
        lambda m, x, _n=name, **kw: getattr(m, _n)(x, **kw),
        nancum_samples,
        prims=(prim, "isnan"),
    )

# -- indices of nonzero elements ---------------------------------------------------------


def nonzero_samples(d):
    return [
        S("3x4", _with_zeros(d.away((3, 4)), [(0, 1), (2, 2), (2, 3)]), size=9),
        S("5", _with_zeros(d.away((5,)), [(1,), (4,)]), size=3),
        S("2x2x3", _with_zeros(d.away((2, 2, 3)), [(0, 0, 0), (1, 1, 2)]), size=10),
    ]


def sized(name: str) -> Callable:
    """``m.<name>(*args)``, with jax.numpy's static ``size`` (the result size, which
    jax.numpy cannot read from traced values)."""

    def fn(m, *args, size=None, **kw):
        if m is JNP:
            kw["size"] = size
        return getattr(m, name)(*args, **kw)

    fn.__name__ = name
    return fn


add(
    "argwhere",
    sized("argwhere"),
    nonzero_samples,
    prims="argsort",
    nondiff=True,
    value_dependent="the number of nonzero elements is read from the values (fnp.peek)",
)
add(
    "flatnonzero",
    sized("flatnonzero"),
    nonzero_samples,
    prims="argsort",
    nondiff=True,
    value_dependent="the number of nonzero elements is read from the values (fnp.peek)",
)

# -- index arithmetic --------------------------------------------------------------------

add(
    "diag_indices_from",
    lambda m, x: m.diag_indices_from(x),
    lambda d: [S("3x3", d.u((3, 3))), S("2x2x2", d.u((2, 2, 2)))],
    prims=(),
    nondiff=True,
    dtypes=F64,
)
for name in ("tril_indices_from", "triu_indices_from"):
    add(
        name,
        lambda m, x, k=0, _n=name: getattr(m, _n)(x, k=k),
        lambda d: [
            S("3x4", d.u((3, 4))),
            S("4x3_k1", d.u((4, 3)), 1),
            S("3x3_k-1", d.u((3, 3)), -1),
        ],
        prims=(),
        nondiff=True,
        dtypes=F64,
    )


def ravel_fn(m, i, j, dims, mode="raise", **kw):
    if m is JNP and mode == "raise":
        mode = "clip"  # the same on valid indices; jax.numpy cannot check traced ones
    return m.ravel_multi_index((i, j), dims, mode=mode, **kw)


add(
    "ravel_multi_index",
    ravel_fn,
    lambda d: [
        S("3x4", d.ints(3, (5,)), d.ints(4, (5,)), (3, 4)),
        S(
            "wrap_F",
            d.ints(6, (2, 3), lo=-3),
            d.ints(9, (2, 3)),
            (3, 4),
            mode="wrap",
            order="F",
        ),
        S("clip", d.ints(6, (4,), lo=-3), d.ints(4, (4,)), (3, 4), mode="clip"),
    ],
    prims="multiply",
    nondiff=True,
    dtypes=F64,
    value_dependent="mode='raise' checks the indices' bounds (fnp.peek)",
)
add(
    "unravel_index",
    lambda m, i, shape, **kw: m.unravel_index(i, shape, **kw),
    lambda d: [
        S("6_2x3x4", d.ints(24, (6,)), (2, 3, 4)),
        S("2x3_F", d.ints(12, (2, 3)), (3, 4), order="F"),
    ],
    prims=("floor_divide", "remainder"),
    nondiff=True,
    dtypes=F64,
    value_dependent="the indices' bounds are checked (fnp.peek)",
)

# -- unwrap, sort_complex ---------------------------------------------------------------

add(
    "unwrap",
    lambda m, p, **kw: m.unwrap(p, **kw),
    lambda d: [
        S("8", _unwrap_samples(d, (8,))),
        S("3x6_axis0", _unwrap_samples(d, (6, 3)).T.copy(), axis=0, _jax=True),
        S("2x7_period4", _unwrap_samples(d, (2, 7), 4.0), period=4.0),
    ],
    prims=("remainder", "cumsum", "select"),
)
add(
    "sort_complex",
    # the tests check real outputs: the real part (the sorted values) of the complex result
    lambda m, x: m.real(m.sort_complex(x)),
    lambda d: [S("6", d.distinct((6,))), S("3x4", d.distinct((3, 4)))],
    prims=("argsort", "getitem", "real"),
)

# -- whole-array comparisons -----------------------------------------------------------


def equal_samples(d):
    x = d.u((3, 4))
    y = x.copy()
    y[1, 2] += 1.0
    return [
        S("equal", x, x.copy()),
        S("differ", x.copy(), y),
        S("nan_equal_nan", _with_nans(x, [(0, 0)]), _with_nans(x, [(0, 0)]), equal_nan=True),
    ]


add(
    "array_equal",
    lambda m, a, b, **kw: _b(m.array_equal(a, b, **kw)),
    equal_samples,
    prims=("equal", "reduce_all"),
    nondiff=True,
)


def equiv_samples(d):
    x = d.u((4,))
    return [S("broadcast", x, np.stack([x, x])), S("differ", x.copy(), d.u((2, 4)) + 5.0)]


add(
    "array_equiv",
    lambda m, a, b: _b(m.array_equiv(a, b)),
    equiv_samples,
    prims=("equal", "reduce_all"),
    nondiff=True,
)

# -- unique and sets -------------------------------------------------------------------

pattern = [0, 0, 1, 2, 2, 2, 3]


def unique_fn(m, x, size=None, **kw):
    if m is JNP:
        kw["size"] = size
    return m.unique(x, **kw)


add(
    "unique",
    unique_fn,
    lambda d: [
        S("7", _repeats(d, pattern), size=4),
        S("2x4", _repeats(d, [0, 1, 1, 2, 3, 3, 4, 4]).reshape(2, 4), size=5),
    ],
    prims=("argsort", "getitem"),
    fd=False,
    value_dependent="the number of distinct values is read from the values (fnp.peek)",
)
add(
    "unique_all_flags",
    lambda m, x, size=None: unique_fn(
        m, x, size, return_index=True, return_inverse=True, return_counts=True
    ),
    lambda d: [S("7", _repeats(d, pattern), size=4)],
    prims=("argsort", "getitem", "cumsum"),
    funcs="unique",
    fd=False,
    value_dependent="the number of distinct values is read from the values (fnp.peek)",
)


def pair_samples(d, size):
    base = d.distinct((6,))
    a = base[d.rng.permutation(np.array([0, 1, 1, 2, 3]))]
    b = base[d.rng.permutation(np.array([2, 3, 4, 5]))]
    return [S("5_4", a, b, size=size)]


# distinct values: 0..5 in both, 2 and 3 common, 0 and 1 only in a, 4 and 5 only in b
for name, size in (("union1d", 6), ("intersect1d", 2), ("setdiff1d", 2), ("setxor1d", 4)):
    add(
        name,
        sized(name),
        lambda d, _size=size: pair_samples(d, _size),
        prims=("argsort", "getitem"),
        fd=False,
        value_dependent="the result size is read from the values (fnp.peek)",
    )


def _unique_array_api(name: str):
    """``numpy.unique_values``/``unique_counts``/``unique_inverse`` (NumPy 2's array-API
    spellings), as one array: the values, or values and counts / inverse indices joined."""

    def fn(m, x):
        out = getattr(m, name)(x)
        if name == "unique_values":
            return out
        return m.concatenate([m.ravel(m.astype(o, x.dtype)) for o in out])

    fn.__name__ = name
    return fn


for _name, _prims in (
    ("unique_values", ("argsort", "getitem")),
    ("unique_counts", ("argsort", "getitem")),
    ("unique_inverse", ("argsort", "getitem")),
    ("unique_all", ("argsort", "getitem")),
):
    add(
        _name,
        _unique_array_api(_name),
        lambda d: [S("7", _repeats(d, pattern))],
        prims=_prims,
        funcs=_name,
        fd=False,
        jax_compositions=False,  # JAX's unique needs a static size under its transforms
        via_numpy=False,
        value_dependent="the number of distinct values is read from the values (fnp.peek)",
    )
