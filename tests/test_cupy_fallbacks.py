"""NumPy functions that CuPy lacks, computed another way on device arrays.

The strict stand-in lacks the same names (``strict_backend.CUPY_LACKS``), so these
fallbacks run here on every machine; on a CUDA machine the same checks run on CuPy.
Oracle: NumPy's own function on the host copy, bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest

import ftransforms as ft
import ftransforms.numpy as fnp
from ftransforms import strict_backend
from tests.test_ops_strict import _gpu_available

BACKENDS = [
    pytest.param("strict", id="strict"),
    pytest.param(
        "cupy",
        id="cupy",
        marks=[
            pytest.mark.cuda,
            pytest.mark.skipif(not _gpu_available(), reason="needs CuPy and a CUDA GPU"),
        ],
    ),
]

EDGES = [-0.0, 0.0, 1.0, -1.0, -2.5, 0.1, -0.1, np.inf, -np.inf, np.nan, 3e-310, -3e-310]
EDGES += [1e300, np.finfo(np.float64).max, -np.finfo(np.float64).max, np.finfo(np.float64).tiny]
EDGES += [65504.0, -65504.0, 2.0**-14, -(2.0**-14), 6e-8, -6e-8]


def _device(backend):
    if backend == "strict":
        return strict_backend.asarray
    import cupy

    return cupy.asarray


def test_the_stand_in_lacks_what_cupy_lacks():
    for name in strict_backend.CUPY_LACKS:
        assert not hasattr(strict_backend.xp, name)
        assert hasattr(np, name)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_spacing_equals_numpy(backend, dtype):
    rng = np.random.default_rng(0)
    with np.errstate(over="ignore", invalid="ignore"):
        x = np.concatenate([np.array(EDGES), rng.normal(size=200) * 100]).astype(dtype)
        want = np.spacing(x)
    got = fnp.spacing(_device(backend)(x)).get()
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    # and per row under vmap, against the loop
    rows = x.reshape(-1, 2)
    batched = ft.vmap(fnp.spacing)(_device(backend)(rows)).get()
    np.testing.assert_array_equal(batched, np.stack([np.spacing(r) for r in rows]))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int64, np.uint8, np.bool_])
def test_spacing_of_integers_promotes_as_numpy(backend, dtype):
    x = np.array([0, 1, 3]).astype(dtype)
    got = fnp.spacing(_device(backend)(x)).get()
    want = np.spacing(x)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
