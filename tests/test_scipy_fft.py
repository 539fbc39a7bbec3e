"""``ftransforms.scipy.fft``: SciPy's FFTs and the DCTs of types 2 and 3 on tracers.
Oracles: ``scipy.fft`` itself (values, dtypes, shapes), float64 central differences,
a Python loop for vmap; and ``scipy.fft``'s own names reaching them under the transforms."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import scipy.fft as sf

import ftransforms as ft
import ftransforms.scipy.fft as ff
from ftransforms.errors import UnsupportedOperationError

RNG = np.random.default_rng(0)


@pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 8, 9])
@pytest.mark.parametrize("kind", [2, 3])
@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
@pytest.mark.parametrize("orthogonalize", [None, True, False])
def test_dct_and_idct_equal_scipy(size, kind, norm, orthogonalize):
    x = RNG.normal(size=(3, size))
    for fn in ("dct", "idct"):
        for n in (None, size + 2, max(1, size - 1)):
            kw = {"type": kind, "n": n, "norm": norm, "orthogonalize": orthogonalize}
            got, want = getattr(ff, fn)(x, **kw), getattr(sf, fn)(x, **kw)
            assert got.shape == want.shape
            np.testing.assert_allclose(got, want, atol=1e-12, err_msg=f"{fn} {kw}")


@pytest.mark.parametrize("axes", [None, (0,), (1, 2), -1])
def test_dctn_idctn_keep_float32_and_equal_scipy(axes):
    x = RNG.normal(size=(4, 5, 6)).astype(np.float32)
    for fn in ("dctn", "idctn"):
        got, want = (
            getattr(ff, fn)(x, axes=axes, norm="ortho"),
            getattr(sf, fn)(x, axes=axes, norm="ortho"),
        )
        assert got.dtype == want.dtype == np.float32
        np.testing.assert_allclose(got, want, atol=1e-5)


@pytest.mark.parametrize("fn", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
def test_one_axis_ffts_equal_scipy(fn):
    x = RNG.normal(size=(4, 5, 6)).astype(np.float32)
    got, want = (
        getattr(ff, fn)(x, n=7, axis=1, norm="ortho"),
        getattr(sf, fn)(x, n=7, axis=1, norm="ortho"),
    )
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, atol=1e-5)


@pytest.mark.parametrize(
    "fn", ["fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn", "irfftn"]
)
def test_many_axes_ffts_equal_scipy(fn):
    x = RNG.normal(size=(4, 5, 6))
    np.testing.assert_allclose(getattr(ff, fn)(x), getattr(sf, fn)(x), atol=1e-10)


def test_gradient_and_vmap():
    x = RNG.normal(size=6)

    def f(v):
        return (ff.dct(v, norm="ortho") ** 3).sum() + ff.idct(v, type=3)[2] + ff.rfft(v).imag[1]

    fd = np.array([(f(x + 1e-6 * e) - f(x - 1e-6 * e)) / 2e-6 for e in np.eye(6)])
    np.testing.assert_allclose(ft.grad(f)(x), fd, rtol=1e-6)
    rows = RNG.normal(size=(4, 7))
    np.testing.assert_allclose(
        ft.vmap(lambda r: ff.dct(r, type=3))(rows), [sf.dct(r, type=3) for r in rows], atol=1e-12
    )
    np.testing.assert_allclose(
        ft.jit(lambda r: ff.idctn(r, norm="ortho"))(rows), sf.idctn(rows, norm="ortho"), atol=1e-12
    )


def test_unsupported_settings_are_clear_errors():
    with pytest.raises(UnsupportedOperationError, match=r"^dct\(x\): type=1"):
        ff.dct(np.ones(4), type=1)
    with pytest.raises(UnsupportedOperationError, match="plan"):
        ff.fft(np.ones(4), plan=object())


def test_scipy_fft_own_names_reach_them_under_the_transforms():
    x = RNG.normal(size=5)
    f = lambda v: sf.dct(v, norm="ortho")[1] + sf.rfft(v).real[2]  # noqa: E731
    fd = np.array([(f(x + 1e-6 * e) - f(x - 1e-6 * e)) / 2e-6 for e in np.eye(5)])
    np.testing.assert_allclose(ft.grad(f)(x), fd, rtol=1e-6)
    rows = RNG.normal(size=(3, 4))
    np.testing.assert_allclose(ft.vmap(lambda r: sf.fft(r))(rows), sf.fft(rows), atol=1e-12)
    # outside the transforms the wrapper calls SciPy's own multimethod; it pickles by name
    assert type(sf.fft.__wrapped__).__module__ == "uarray"
    np.testing.assert_array_equal(sf.fft(rows), sf.fft.__wrapped__(rows))
    assert pickle.loads(pickle.dumps(sf.fft)) is sf.fft
