"""NumPy users' code under the transforms (round 11 probes), with ``import numpy as np``
(the protocols) and ``import ftransforms.numpy``: values and dtypes as eager NumPy's, vmap
as the loop over the rows, derivatives as float64 central differences."""

from __future__ import annotations

import numpy as np
import pytest

import ftransforms as ft
import ftransforms.numpy as fnp

MODULES = [np, fnp]
I8 = np.array([100, 100, -50, 7], np.int8)


def _loop(f, rows):
    return np.stack([np.asarray(f(r)) for r in rows])


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("mod", MODULES)
@pytest.mark.parametrize("name", ["sum", "prod", "cumsum", "cumprod", "mean", "nansum", "nanprod"])
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16])
def test_integer_reductions_accumulate_in_the_requested_dtype(mod, name, dtype):
    """SILENT before: ``np.sum(int8s, dtype=np.int8)`` gave the int64 sum (157, not NumPy's
    wrapped -99), and dtype int64 instead of int8."""
    rows = np.stack([I8, I8[::-1] * 2])
    f = lambda r: getattr(mod, name)(r, dtype=dtype)  # noqa: E731
    want = _loop(lambda r: getattr(np, name)(r, dtype=dtype), rows)
    _same(ft.vmap(f)(rows), want)
    _same(f(rows[0]), want[0])


@pytest.mark.parametrize("mod", MODULES)
def test_trace_and_nanprod_of_integers_keep_numpy_dtype(mod):
    m = I8.reshape(2, 2)
    _same(ft.vmap(lambda a: mod.trace(a, dtype=np.int8))(m[None])[0], np.trace(m, dtype=np.int8))
    big = np.array([7, 9, 3000000], np.int64)  # nanprod of integers stays integer
    _same(ft.vmap(mod.nanprod)(big[None])[0], np.nanprod(big))


@pytest.mark.parametrize("mod", MODULES)
@pytest.mark.parametrize("name", ["deg2rad", "rad2deg", "radians", "degrees", "copysign", "heaviside"])
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.bool_, np.int16, np.float16, np.float32])
def test_float_ufuncs_of_small_types_use_numpy_loop(mod, name, dtype):
    """SILENT before: int8/uint8/bool gave float64 (NumPy: float16), int16 float64 (float32);
    float16 rad2deg differed in the last bit."""
    x = (np.arange(-30, 30) * 37 % 255).astype(dtype)
    ufunc = getattr(np, name)
    args = (lambda r: (r,)) if ufunc.nin == 1 else (lambda r: (r, r[::-1]))
    want = ufunc(*args(x))
    _same(ft.vmap(lambda r: getattr(mod, name)(*args(r)))(x[None])[0], want)


@pytest.mark.parametrize("mod", MODULES)
def test_conjugate_of_bool_is_int8(mod):
    b = np.array([True, False])
    _same(ft.vmap(mod.conjugate)(b[None])[0], np.conjugate(b))


@pytest.mark.parametrize("mod", MODULES)
@pytest.mark.parametrize("name", ["nanargmax", "nanargmin"])
def test_nanarg_of_an_all_nan_slice_raises_under_transforms(mod, name):
    """SILENT before: under vmap/jvp an all-NaN slice gave index -1 (jax.numpy's answer);
    NumPy, and so the loop over the rows, raises ValueError."""
    rows = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan]])
    f = lambda r: getattr(mod, name)(r)  # noqa: E731
    with pytest.raises(ValueError, match="All-NaN slice encountered"):
        ft.vmap(f)(rows)
    with pytest.raises(ValueError, match="All-NaN slice encountered"):
        ft.jvp(lambda r: getattr(mod, name)(r, axis=1), (rows,), (rows,))
    # the rows that hold a number compute as the loop does
    ok = rows[:1]
    _same(ft.vmap(f)(ok), _loop(lambda r: getattr(np, name)(r), ok))
