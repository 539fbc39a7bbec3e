"""Probe round 12: NumPy programs that mutate, under the transforms.

* ``int_array += 0.5`` and ``np.add(i, 0.5, out=i)`` raised InPlaceError/UFuncTypeError,
  which ``except np._core._exceptions.UFuncTypeError`` (NumPy's class there) missed.
* ``m[:, idx]`` (advanced indexing after a slice) was C-ordered where NumPy puts the index
  arrays' axes outermost: a reshape of it was a view (a write through it reached ``m[:, idx]``),
  and ``ravel('K')``, strides, flags differed; ``a[:, [0, 1]]`` of a Fortran ``a`` too.
* A read-only argument (``x.flags.writeable = False``, ``np.broadcast_to``, ``frombuffer``;
  ``vmap``'s rows of one, ``in_dims=None`` and ``grad``'s other arguments too) was written
  into under the transforms where NumPy raises ValueError; ``jit`` shared one recording
  between a read-only and a writeable argument.  ``b += t`` into a read-only plain array
  raised InPlaceError, not NumPy's ValueError; ``x += 1`` / ``out=x`` into a read-only
  traced array said "assignment destination is read-only" where NumPy says "output array
  is read-only".
* ``y.flags.writeable = False`` of a Fortran-ordered result made it C-ordered.
* ``np.fromiter`` of a generator over a traced array raised under ``grad`` (NumPy's C code
  converts each element with ``float``) and split ``vmap``'s batch; the arrays
  ``np.fromiter``, ``np.tri``, ``np.indices``, ``np.logspace``, ``np.geomspace`` make
  refused a traced write (InPlaceError) where ``np.zeros``'s take one.
* ``np.meshgrid`` and ``np.tile`` of arrays made in the function returned read-only
  arrays (a write raised ValueError) where NumPy returns new ones.
* A write through ``sliding_window_view(y, n, writeable=True)`` or overlapping
  ``as_strided`` windows raised InPlaceError where NumPy writes through (element by
  element: a shared place takes the last value written there).
* ``y.shape = s`` of a Fortran-ordered result reshaped it in C order where NumPy raises
  AttributeError (it cannot reshape it without a copy); ``y.shape = y.shape`` made a
  Fortran-ordered ``y`` C-ordered.

Oracles: the plain NumPy call, the Python loop over rows for ``vmap``, central differences
in float64 for derivatives, eager values on new inputs for ``jit``.
"""

import warnings

import numpy as np
import pytest

import ftransforms as ft

RNG = np.random.default_rng(12)
BATCH = RNG.standard_normal((3, 6))
X = BATCH[0]


def central_grad(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(x.size)])


def transforms(f):
    """The transformed forms of ``f`` (one row ``x``) whose result is ``f(x)``'s."""

    def loss(x):
        return np.sum(f(x) * np.linspace(0.5, 1.5, np.size(f(x))).reshape(np.shape(f(x))))

    return {
        "vmap": lambda x: ft.vmap(f)(x[None])[0],
        "jit": ft.jit(f),
        "jit(vmap)": lambda x: ft.jit(ft.vmap(f))(x[None])[0],
        "grad": lambda x: (ft.grad(loss)(x), f(x))[1],
        "jvp": lambda x: ft.jvp(f, (x,), (np.ones_like(x),))[0],
    }


def check_values(f, derivatives=True):
    """vmap against the loop, jit on new inputs, grad/vmap(grad) against central
    differences; the caller's arrays are left alone."""
    want = np.stack([f(r.copy()) for r in BATCH])
    batch = BATCH.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ft.errors.PerformanceWarning)
        warnings.simplefilter("ignore", RuntimeWarning)  # jit running a signature eagerly
        np.testing.assert_allclose(ft.vmap(f)(batch), want)
        jf = ft.jit(f)
        for r in BATCH:
            np.testing.assert_allclose(jf(r.copy()), f(r.copy()))
        np.testing.assert_allclose(ft.jit(ft.vmap(f))(batch), want)
    np.testing.assert_array_equal(batch, BATCH)
    if not derivatives:
        return
    w = np.linspace(0.5, 1.5, want[0].size).reshape(want[0].shape)

    def loss(x):
        return np.sum(f(x) * w)

    np.testing.assert_allclose(ft.grad(loss)(X.copy()), central_grad(loss, X.copy()), atol=1e-6)
    gb = np.stack([central_grad(loss, r.copy()) for r in BATCH])
    np.testing.assert_allclose(ft.vmap(ft.grad(loss))(BATCH.copy()), gb, atol=1e-6)


def check_raises(f, exc, match):
    """f raises ``exc`` eagerly, and so under each transform."""
    with pytest.raises(exc, match=match):
        f(X.copy())
    for name, g in transforms(f).items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(exc, match=match):
                g(X.copy())
            assert name


# -- x.shape = s ------------------------------------------------------------------------


def set_shape_of_a_fortran_ordered_result(x):
    y = x.reshape(3, 2).T * 1.0  # Fortran-ordered: NumPy cannot reshape it in place
    y.shape = (6,)
    return y


def test_set_shape_of_a_fortran_ordered_result_raises_numpys_error():
    check_raises(set_shape_of_a_fortran_ordered_result, AttributeError, "Incompatible shape")


def set_shape_to_its_own_shape(x):
    y = x.reshape(3, 2).T * 1.0
    y.shape = (2, 3)  # nothing changes: y stays Fortran-ordered
    z = y.T  # so z is C-contiguous
    z.shape = (6,)
    return np.concatenate([z, y.ravel("K"), [y.flags.f_contiguous]])


def test_set_shape_to_its_own_shape_keeps_the_layout():
    check_values(set_shape_to_its_own_shape)


# -- the layout of advanced-indexing results --------------------------------------------


def write_through_a_reshape_of_a_column_selection(x):
    a = x.reshape(2, 3) * 1.0
    y = a[:, [0, 2]]  # NumPy: index axis outermost, so Fortran-ordered
    r = y.reshape(-1)  # a copy in NumPy: the write does not reach y
    r[0] = 100.0 * x[1]
    return np.concatenate([y.ravel(), y.ravel("K"), r, [y.flags.c_contiguous]])


def test_a_reshape_of_a_column_selection_is_a_copy():
    check_values(write_through_a_reshape_of_a_column_selection)


@pytest.mark.parametrize(
    "index",
    [
        np.s_[:, [0, 2]],
        np.s_[[1, 0]],
        np.s_[:, :, [0, 1]],
        np.s_[:, [0, 2], 1:3],
        np.s_[:, [[0, 1], [1, 2]]],
        np.s_[:, [0, 1], [0, 1]],
        np.s_[[0, 1], :, [0, 1]],
        np.s_[:, np.array([True, False, True])],
        np.s_[..., [0, 1]],
        np.s_[:, [1, 0], ::-1],
    ],
)
@pytest.mark.parametrize("source", ["C", "F", "permuted", "reversed"])
def test_advanced_indexing_results_are_laid_out_as_numpys(index, source):
    make = {
        "C": lambda x: x.reshape(2, 3, 4) * 1.0,
        "F": lambda x: x.reshape(4, 3, 2).T * 1.0,
        "permuted": lambda x: x.reshape(3, 2, 4).transpose(1, 0, 2),
        "reversed": lambda x: (x.reshape(2, 3, 4) * 1.0)[:, ::-1],
    }[source]

    def f(x):
        y = make(x)[index]
        strides = [s if n > 1 else 0 for s, n in zip(y.strides, y.shape)]
        flags = [y.flags.c_contiguous, y.flags.f_contiguous]
        return np.concatenate([y.ravel("K"), flags, np.array(strides, float)])

    x = np.arange(24.0)
    want = f(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        np.testing.assert_array_equal(ft.vmap(f)(x[None])[0], want)
        np.testing.assert_array_equal(ft.jit(f)(x), want)


# -- in-place casting errors are NumPy's class too --------------------------------------

NUMPY_UFUNC_TYPE_ERROR = type(
    pytest.raises(TypeError, np.add, np.arange(2), 0.5, out=np.arange(2)).value
).__mro__[2]  # numpy._core._exceptions.UFuncTypeError, by whatever path this NumPy has


def count_plus_float(x):
    count = np.arange(6)
    try:
        count += x  # float64 into int64: NumPy refuses
    except NUMPY_UFUNC_TYPE_ERROR:
        return x * 0.0 - 1.0
    return count * 1.0


def count_plus_float_out(x):
    count = np.arange(6)
    try:
        np.add(count, x, out=count)
    except NUMPY_UFUNC_TYPE_ERROR:
        return x * 0.0 - 1.0
    return count * 1.0


@pytest.mark.parametrize("f", [count_plus_float, count_plus_float_out])
def test_an_in_place_cast_numpy_refuses_raises_numpys_error_class(f):
    assert NUMPY_UFUNC_TYPE_ERROR.__name__ == "UFuncTypeError"
    check_values(f)


def add_float_into_int(x):
    count = np.arange(6)
    count += x
    return count


def test_an_in_place_cast_error_is_still_inplace_and_ufunc_type_error():
    with pytest.raises(NUMPY_UFUNC_TYPE_ERROR) as info:
        ft.vmap(add_float_into_int)(BATCH)
    assert isinstance(info.value, ft.errors.InPlaceError)
    assert isinstance(info.value, ft.errors.UFuncTypeError)
    assert "same_kind" in str(info.value)


# -- read-only arguments ----------------------------------------------------------------


def write_first(x):
    x[0] = 5.0
    return x * 2.0


def add_in_place(x):
    x += 1.0
    return x


def add_out(x):
    np.add(x, 1.0, out=x)
    return x


def read_only(a):
    a = np.array(a)
    a.flags.writeable = False
    return a


@pytest.mark.parametrize("f", [write_first, add_in_place, add_out])
def test_a_read_only_argument_is_read_only_under_the_transforms(f):
    x = read_only(X)
    with pytest.raises(ValueError, match="read-only"):
        f(x)
    batch = read_only(BATCH)
    for call in [
        lambda: ft.vmap(f)(batch),
        lambda: ft.vmap(f)(np.broadcast_to(X, (2, X.size))),
        lambda: ft.grad(lambda x: f(x).sum())(x),
        lambda: ft.jvp(f, (x,), (x,)),
        lambda: ft.jit(f)(x),
        lambda: ft.jit(ft.vmap(f))(batch),
        lambda: ft.vmap(lambda x, c: x + f(c), in_dims=(0, None))(BATCH.copy(), x),
        lambda: ft.grad(lambda x, c: (x * f(c)).sum())(X.copy(), x),
    ]:
        with pytest.raises(ValueError, match="read-only"):
            call()
    np.testing.assert_array_equal(x, X)


def test_jit_keys_a_read_only_argument_apart():
    jf = ft.jit(write_first)
    np.testing.assert_array_equal(jf(X.copy()), write_first(X.copy()))
    with pytest.raises(ValueError, match="read-only"):
        jf(read_only(X))
    with pytest.raises(ValueError, match="read-only"):
        jf([read_only(X)][0])
    np.testing.assert_array_equal(jf(X.copy()), write_first(X.copy()))


def reads_a_read_only_argument(x):
    y = x.copy()
    y[0] = 7.0
    return y + np.asarray(x) + x.reshape(2, 3).T.ravel()


def test_a_read_only_argument_is_read_as_any_other():
    def f(x):
        return reads_a_read_only_argument(read_only(x))

    check_values(f)
    np.testing.assert_allclose(
        ft.vmap(reads_a_read_only_argument)(read_only(BATCH)),
        np.stack([reads_a_read_only_argument(r) for r in BATCH]),
    )


def add_traced_into_bytes(x):
    b = np.frombuffer(b"\x00" * 48, dtype=np.float64)  # read-only
    b += x
    return b


def test_a_traced_write_into_a_read_only_plain_array_raises_numpys_error():
    check_raises(add_traced_into_bytes, ValueError, "read-only")


def read_only_fortran_result(x):
    y = x.reshape(3, 2).T * 1.0  # Fortran-ordered
    y.flags.writeable = False  # keeps its layout
    return np.concatenate([y.ravel("K"), [y.flags.f_contiguous, y.flags.writeable]])


def test_making_a_fortran_ordered_result_read_only_keeps_its_layout():
    check_values(read_only_fortran_result)


# -- more creation functions make buffers -----------------------------------------------


def squares_from_a_generator(x):
    return np.fromiter((t * t for t in x), dtype=float, count=x.size)


def sines_from_a_generator(x):
    return np.fromiter((np.sin(t) for t in x), np.float64) * 2.0


def filled_made_arrays(x):
    n = x.size
    parts = [
        np.fromiter(range(n), dtype=np.float64),
        np.tri(n)[-1],
        np.indices((n,))[0] * 1.0,
        np.logspace(0.0, 1.0, n),
        np.geomspace(1.0, 4.0, n),
    ]
    for k, b in enumerate(parts):
        b[k] = x[k] * 3.0
        b += x
    return np.concatenate(parts)


@pytest.mark.parametrize(
    "f", [squares_from_a_generator, sines_from_a_generator, filled_made_arrays]
)
def test_more_creation_functions_take_traced_values(f):
    with warnings.catch_warnings():
        warnings.simplefilter("error", ft.errors.PerformanceWarning)  # the batch not split
        ft.vmap(f)(BATCH.copy())
    check_values(f)


def test_fromiter_too_short_raises_numpys_error():
    def f(x):
        return np.fromiter(iter([1.0]), float, count=3) * x[:3]

    check_raises(f, ValueError, "iterator too short")


# -- NumPy functions of arrays made in the function -------------------------------------


def filled_grids(x):
    gx, gy = np.meshgrid(np.arange(3.0), np.zeros(2))  # copies: writeable
    gx[0] = x[:3]
    gy += x[3:5, None]
    t = np.tile(np.zeros(2), 3)
    t[1::2] = x[:3] ** 2
    return np.concatenate([gx.ravel(), gy.ravel(), t])


def test_meshgrid_and_tile_of_made_arrays_can_be_written():
    check_values(filled_grids)


@pytest.mark.parametrize("f", [add_in_place, add_out])
def test_a_read_only_output_raises_numpys_message(f):
    x = read_only(X)
    with pytest.raises(ValueError, match="output array is read-only"):
        f(x)
    with pytest.raises(ValueError, match="output array is read-only"):
        ft.vmap(f)(read_only(BATCH))
    with pytest.raises(ValueError, match="output array is read-only"):
        ft.grad(lambda x: f(np.broadcast_to(x, (2, x.size))).sum())(X.copy())


# -- writes through overlapping windows ---------------------------------------------------

SWV = np.lib.stride_tricks.sliding_window_view


def written_windows(x):
    y = x * 1.0
    w = SWV(y, 3, writeable=True)
    w[0, 1] = 10.0 * x[0]  # y[1]: w[1, 0] and w[0, 1] are the same place
    w[2] = x[:3] ** 2
    w[1] += x[3:]
    w[:, 0] *= 2.0
    return np.concatenate([y, w.ravel()])


def windows_written_whole(x):
    y = x * 1.0
    w = SWV(y, 2, writeable=True)
    w += np.arange(10.0).reshape(5, 2)  # each shared place: its last window's value
    v = np.lib.stride_tricks.as_strided(y, shape=(3, 2), strides=(y.strides[0],) * 2)
    v[v > 2.0] = 0.0
    np.multiply(v, x[:2], out=v)
    SWV(y, 3, writeable=True)[1:3].fill(x[0])
    return y


@pytest.mark.parametrize("f", [written_windows, windows_written_whole])
def test_writes_through_overlapping_windows_are_numpys(f):
    check_values(f)
