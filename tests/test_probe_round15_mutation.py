"""Probe round 15: mutation semantics of NumPy code under the transforms (a wider fuzz:
chains of views x writes x transforms x dtypes).

* SILENT: ``b[:, 0:].ravel()`` (and ``b[..., :6]``, ``b[1:2, 2:4]``: a basic index of a
  contiguous array that covers whole axes with an explicit slice, or keeps one element of
  an axis) is C-contiguous in NumPy, so its ravel is a view: a write through it reached ``b``
  in NumPy and not under vmap/jit/jvp/grad (only ``slice(None)`` counted as a whole axis).
  ``_keeps_contiguous`` (numpy/inplace.py) now reads the index's lengths and steps
  against the array's shape, as NumPy's flags do; a ravel of a view the quick rules call
  non-contiguous (``np.flip(np.flip(b))``, ``b[::2][:1]``) reads its byte offsets
  (``_dense_in_c_order``), and so do ``flags.c_contiguous``/``f_contiguous`` (a fuzz of
  3000 index chains: 2577 c_contiguous flags differed from NumPy's, now none).
* ``np.flip(buf).ravel()``, ``buf[::-1, ::-1].ravel()`` of a buffer made inside
  (``np.zeros``): NumPy's copy, but a read-only NumPy view of the buffer's array came back,
  and a write into it raised "output array is read-only" (vmap, jit, jvp, grad).
* ``b.byteswap()``/``b.byteswap(inplace=True)``/``b.data`` of an array of constants made
  inside raised AttributeError; they are NumPy's now (``.data`` read-only), and of a traced
  array they raise UnsupportedOperationError saying to do it outside the transform.
* ``b.fill(x[0])`` of a plain NumPy array (``b = INIT.copy()``) under grad/jvp raised
  TracerConversionError ("float() on a tracer ..."), not saying a write was made; it is an
  InPlaceError naming ``a.fill(t)`` and the fix (``a[...] = t``) now (core/tracer.py,
  ``_filling_an_array``: read only on the way to the conversion error).
* SILENT: ``np.add.at(int_counts, i, w)`` with float ``w`` cast ``w`` first (``a +
  int(w)``: ``-1 + int(0.4) = -1``); NumPy computes in the promoted dtype and casts each
  occurrence's result back (``int(-0.6) = 0``).  Where the dtypes differ the by-rounds
  form runs (numpy/protocol.py, ``_cast_back_by_rounds``).

Oracles: the plain NumPy call, the loop over rows for ``vmap``, central differences in
float64 for derivatives (tests/program_oracles.check_row_function).
"""

import numpy as np
import pytest

import ftransforms as ft
from tests.program_oracles import check_row_function

RNG = np.random.default_rng(1515)
BATCH = RNG.standard_normal((3, 24)) * 0.5 + 0.3

# -- a view that NumPy flags contiguous, raveled: writes reach the array ---------------

CONTIGUOUS_VIEWS = {
    "b[:, 0:]": lambda b: b[:, 0:].ravel(),
    "b[..., :6]": lambda b: b[..., :6].ravel(),
    "b[-4:, -6:]": lambda b: b[-4:, -6:].ravel(),
    "b[1:2, 2:4]": lambda b: b[1:2, 2:4].ravel(),
    "b[:, 0:][1:3]": lambda b: b[:, 0:][1:3].ravel()[::-2],
    "b[:, 0:].T.T": lambda b: b[:, 0:].T.T.ravel(),
    # contiguous by their byte offsets, of views that are not
    "np.flip(np.flip(b))": lambda b: np.flip(np.flip(b)).ravel(),
    "b[::2][:1]": lambda b: b[::2][:1].ravel(),
    "b[:, ::-1][:, 2:3][1:2]": lambda b: b[:, ::-1][:, 2:3][1:2].ravel(),
    "b[::-1][::-1]": lambda b: b[::-1][::-1].ravel(),
}


def _contiguous_view_program(view, init):
    def f(x):
        b = x.reshape(4, 6) * 1.0 if init == "traced" else np.zeros((4, 6))
        v = view(b)
        v += np.cos(x[: v.size])
        v[:1] = x[5] * 2.0
        return np.concatenate([b.ravel(), v, [b[:, 0:].flags.c_contiguous]])

    return f


@pytest.mark.parametrize("init", ["traced", "buffer"])
@pytest.mark.parametrize("name", list(CONTIGUOUS_VIEWS))
def test_ravel_of_a_view_numpy_flags_contiguous_is_a_view(name, init):
    check_row_function(_contiguous_view_program(CONTIGUOUS_VIEWS[name], init), BATCH)


def test_a_view_with_one_element_of_a_strided_axis_is_no_block():
    """(the exact rule keeps what is not contiguous so: b[:, 2:3] is a copy when raveled)"""

    def f(x):
        b = x.reshape(4, 6) * 1.0
        v = b[:, 2:3].ravel()  # strides (48, 8), shape (4, 1): not contiguous in NumPy
        v += 1.0
        w = b[1:3, 2:3].ravel()  # not contiguous either: a copy
        w *= 3.0
        return np.concatenate([b.ravel(), v, w])

    check_row_function(f, BATCH)


# -- the ravel of a reversed buffer is a copy the function may write ---------------------

REVERSED = {
    "np.flip(b).ravel()": lambda b: np.flip(b).ravel(),
    "b[::-1, ::-1].ravel()": lambda b: b[::-1, ::-1].ravel(),
    "np.ravel(np.flip(b))": lambda b: np.ravel(np.flip(b)),
    "b[::-1].ravel()": lambda b: b[::-1].ravel(),
}


@pytest.mark.parametrize("name", list(REVERSED))
def test_ravel_copy_of_a_reversed_buffer_is_writeable(name):
    def f(x):
        b = np.zeros((4, 6))
        b[1] = np.arange(6.0)  # constants: b stays a buffer
        v = REVERSED[name](b)
        v -= 0.3 * v
        v[:3] = x[:3] * 2.0
        return np.concatenate([b.ravel(), v])

    check_row_function(f, BATCH)


# -- byteswap and .data -------------------------------------------------------------------


def byteswapped_buffer(x):
    b = np.arange(1, 7, dtype=np.int64)
    v = b[::2]  # a view sees the in-place swap
    b.byteswap(inplace=True)
    back = b.byteswap()  # a new array: swapped back
    same = np.frombuffer(b.data, np.int64) == b
    return x[:6] * back + np.all(v == b[::2]) + np.all(b != np.arange(1, 7)) + np.all(same)


def test_byteswap_and_data_of_a_buffer_are_numpys():
    """(``'Buffer' object has no attribute 'byteswap'`` / ``'data'`` before.)"""
    check_row_function(byteswapped_buffer, BATCH)


@pytest.mark.parametrize("use", [lambda t: t.byteswap(), lambda t: t.data])
def test_byteswap_and_data_of_a_traced_array_say_what_to_do(use):
    for transform in (ft.vmap, lambda f: ft.grad(lambda v: f(v).sum())):
        with pytest.raises(ft.errors.UnsupportedOperationError, match="outside|before"):
            transform(lambda v: use(v * 2.0) and v)(
                BATCH.copy() if transform is ft.vmap else BATCH[0]
            )


# -- ufunc.at into an array of a narrower dtype casts each result back -----------------


def counts_with_signed_weights(x):
    counts = np.array([-1, 2, 0, 3])
    np.add.at(counts, [0, 1, 1, 2, 3], x[:5] * 2.0)  # int(c + w) per occurrence
    np.subtract.at(counts, [3, 3], x[5])
    return counts


def float32_accumulator(x):
    acc = np.full(3, 1e7, dtype=np.float32)
    np.add.at(acc, [0, 0, 2], x[:3] * 0.3)  # float32(acc + w) per occurrence, w float64
    return acc


@pytest.mark.parametrize("f", [counts_with_signed_weights, float32_accumulator])
def test_ufunc_at_casts_each_result_back_as_numpy(f):
    """(the update form cast the values first: a + int(w), -1 + int(0.4) = -1 where NumPy
    has int(-0.6) = 0)"""
    rows = np.array([[0.2, -0.7, -0.3, 0.45, -0.9, 0.6], [0.7, 0.3, -0.9, -0.2, 0.8, -0.3]])
    want = np.stack([f(r.copy()) for r in rows])
    for got in (ft.vmap(f)(rows.copy()), np.stack([ft.jit(f)(r.copy()) for r in rows])):
        np.testing.assert_array_equal(got, want)
        assert got.dtype == want.dtype


FLAGGED_VIEWS = {
    "b[::2][:1]": lambda b: b[::2][:1],
    "np.flip(np.flip(b))": lambda b: np.flip(np.flip(b)),
    "b[0, 1:][::-1, None][:1]": lambda b: b[0, 1:][::-1, None][:1],
    "b[:, ::-1][:, 2:3][1:2]": lambda b: b[:, ::-1][:, 2:3][1:2],
    "b.T[::-1][::-1]": lambda b: b.T[::-1][::-1],
    "b[:, 1][:0]": lambda b: b[:, 1][:0],
}


@pytest.mark.parametrize("name", list(FLAGGED_VIEWS))
def test_flags_of_views_of_views_are_numpys(name):
    """(a view of a view that is not contiguous reported c_contiguous/f_contiguous False
    where its elements are, NumPy's flags)"""

    def f(x):
        v = FLAGGED_VIEWS[name](x.reshape(4, 6) * 1.0)
        return np.array([v.flags.c_contiguous, v.flags.f_contiguous], dtype=float) + x[0]

    want = np.stack([f(r) for r in BATCH])
    np.testing.assert_array_equal(ft.vmap(f)(BATCH.copy()), want)
    np.testing.assert_array_equal(ft.jit(f)(BATCH[1].copy()), want[1])


# -- NumPy's own fill of a plain array with a tracer says it is a write -----------------

INIT = np.arange(1.0, 7.0)


def fill_a_copy(x):
    b = INIT.copy()  # a plain array: ndarray.fill converts its value with float()
    b.fill(x[0])
    return b * x[:6]


def fill_rewritten(x):
    b = INIT.copy()
    b[...] = x[0]  # what the error says to write
    return b * x[:6]


def test_numpys_fill_with_a_tracer_names_the_write_and_the_fix():
    """(TracerConversionError "float() on a tracer would drop ..." before, which did not
    say that a write was being made.)"""
    for call in (
        lambda: ft.grad(lambda v: fill_a_copy(v).sum())(BATCH[0].copy()),
        lambda: ft.jvp(fill_a_copy, (BATCH[0].copy(),), (BATCH[1].copy(),)),
    ):
        with pytest.raises(ft.errors.InPlaceError, match=r"a\.fill\(t\).*a\[\.\.\.\] = t"):
            call()
    check_row_function(fill_rewritten, BATCH)
    np.testing.assert_array_equal(INIT, np.arange(1.0, 7.0))
