"""Probe round 13b: the leftovers of round 13's traced writes into plain NumPy arrays.

* ``np.add(x0, t, out=x0)``, ``np.multiply(buf, t, out=buf)``, ``np.exp(t, out=buf)`` with
  ``buf`` a plain array only the function holds (``INIT.copy()``, ``INIT * 2``) raised
  InPlaceError where ``x0 += t`` worked: NOTE [traced writes into private NumPy arrays]
  (core/private_arrays.py) now rebinds the variable to a buffer taking the result.  An
  array something else sees still refuses, and the global is left alone.
* ``b2d[:] = x[:3]``: a tracer broadcast into a larger plain target that only the function
  holds (``np.tile(INIT, (4, 1))``) raised InPlaceError (NumPy also converts a row of a
  list ``[row, ones]`` with the same shapes): the stored expression, read from the
  bytecode, shows the value is a tracer, which NumPy converts whole.
* ``b = INIT.copy(); b[:2] = [x[0], 1.0]``: a list display holding tracers refused (NumPy
  converts it element by element); its elements, computed again from the bytecode (reads,
  subscripts, arithmetic), are written whole at NumPy's first conversion.
* ``from numpy.lib.stride_tricks import as_strided`` before the transform, then a write
  through a window: NumPy's own function made a read-only object array of tracers
  (ValueError: read-only); its code now forwards to ftransforms' view while a transform
  is active (numpy/strided.py).

Oracles: the plain NumPy call, the Python loop over rows for ``vmap``, central differences
in float64 for derivatives, eager values on new inputs for ``jit``.
"""

import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

import ftransforms as ft
from tests.program_oracles import check_row_function

RNG = np.random.default_rng(131)
BATCH = RNG.standard_normal((3, 4)) * 0.5 + 0.25
X = BATCH[0]
INIT = np.array([1.0, 2.0, 3.0, 4.0])
KEEP = INIT.copy()


def check_values(f):
    """check_row_function (vmap, jit, jacfwd/jacrev, vmap(grad) against their oracles);
    the global is left alone."""
    check_row_function(f, BATCH, jit_vmap=False)
    np.testing.assert_array_equal(INIT, KEEP)


# -- ufuncs called with out= a private plain array ----------------------------------------


def add_out(x):
    x0 = INIT.copy()
    np.add(x0, x, out=x0)
    return x0


def add_out_positional(x):
    x0 = INIT.copy()
    np.add(x, x0, x0)
    return x0 * x


def multiply_out(x):
    buf = INIT * 2
    y = np.multiply(buf, x, out=buf)
    return y + buf  # the returned value is out itself


def exp_out(x):
    buf = INIT.copy()
    np.exp(x, out=buf)
    return buf


def two_traced_inputs(x):
    buf = INIT.astype(float)
    np.hypot(x, x[::-1], out=buf)
    return buf


def accumulate(buf, t):  # a helper writing into its caller's array
    np.add(buf, t, out=buf)


def helper_out(x):
    acc = INIT.copy()
    accumulate(acc, x)
    accumulate(acc, x**2)
    return acc


def local_alias(x):
    x0 = INIT.copy()
    same = x0
    np.subtract(x0, x, out=x0)
    return same * 2.0  # the alias sees the write, as in NumPy


@pytest.mark.parametrize(
    "f",
    [
        add_out,
        add_out_positional,
        multiply_out,
        exp_out,
        two_traced_inputs,
        helper_out,
        local_alias,
    ],
)
def test_ufunc_out_into_a_private_array(f):
    check_values(f)


def test_ufunc_out_written_again_by_the_operator():
    def f(x):
        x0 = INIT.copy()
        np.multiply(x0, x, out=x0)
        x0 += x
        np.sin(x0, out=x0)
        return x0

    check_values(f)


# -- arrays something else sees still refuse ------------------------------------------------

HELD = []


def into_global(x):
    np.add(INIT, x, out=INIT)
    return INIT


def held_in_a_list(x):
    x0 = INIT.copy()
    HELD.append(x0)
    np.add(x0, x, out=x0)
    return x0


def into_a_view(x):
    x0 = np.tile(INIT, 2)
    v = x0[:4]
    np.add(v, x, out=v)
    return x0


def user_tuple(x):
    x0 = INIT.copy()
    outs = (x0,)  # a tuple a variable holds: outs[0] would keep the old array
    np.add(x0, x, out=outs)
    return outs[0]


@pytest.mark.parametrize("f", [into_global, held_in_a_list, into_a_view])
def test_ufunc_out_into_a_visible_array_refuses(f):
    HELD.clear()
    with pytest.raises(ft.errors.InPlaceError, match="out= is a NumPy array"):
        ft.vmap(f)(BATCH.copy())
    np.testing.assert_array_equal(INIT, KEEP)
    if HELD:
        np.testing.assert_array_equal(HELD[0], KEEP)  # the container's array is unwritten
    HELD.clear()


def test_out_tuple_of_the_users_counts_otherwise_and_refuses():
    with pytest.raises(ft.errors.InPlaceError, match="out= is a NumPy array"):
        ft.grad(lambda x: np.sum(user_tuple(x)))(X.copy())


# -- a tracer broadcast into a larger private target ---------------------------------------


def broadcast_slice(x):
    b2d = np.tile(INIT, (3, 1))
    b2d[:] = x[:4]
    return b2d * np.arange(1.0, 4.0)[:, None]


def broadcast_expression(x):
    b2d = np.tile(INIT, (3, 1))
    b2d[1:] = -x[::-1] * 2.0 + INIT
    return b2d


def broadcast_variable(x):
    b3d = np.tile(INIT, (2, 3, 1))
    row = np.sin(x)
    b3d[0] = row
    b3d[1, 1:] = x[None, :]
    return b3d


@pytest.mark.parametrize("f", [broadcast_slice, broadcast_expression, broadcast_variable])
def test_tracer_broadcast_into_a_private_array(f):
    check_values(f)


def test_rows_of_a_list_into_a_private_array_still_refuse():
    def f(x):
        b2d = np.tile(INIT, (2, 1))
        rows = [x, np.ones(4)]
        b2d[:] = rows  # NumPy converts x as one row of the list
        return b2d

    with pytest.raises(ft.errors.InPlaceError):
        ft.vmap(f)(BATCH.copy())
    np.testing.assert_array_equal(INIT, KEEP)


# -- a list display holding tracers into a private array ------------------------------------

ROW = np.array([0.5, -1.0, 2.0, 0.25])


def list_of_numbers(x):
    b = INIT.copy()
    b[:2] = [x[0], 1.0]
    return b * x


def list_of_two_tracers(x):
    b = INIT * 1.0
    b[1:] = [x[2] * x[0], -x[1], x[3] ** 2]
    return b


def list_of_rows(x):
    b2d = np.tile(INIT, (3, 1))
    b2d[:2] = [x[::-1], ROW]
    return b2d


def list_in_a_loop(x):
    b = np.tile(INIT, 2)
    for i in range(3):
        b[2 * i : 2 * i + 2] = [x[i], x[i + 1] * 2.0]
    return b


@pytest.mark.parametrize("f", [list_of_numbers, list_of_two_tracers, list_of_rows, list_in_a_loop])
def test_list_display_into_a_private_array(f):
    check_values(f)


def test_list_holding_a_call_still_names_the_fix():
    def f(x):
        b = INIT.copy()
        keep = [np.sin(x[0]), 1.0]  # a list a variable holds (a display works: round 14)
        b[:2] = keep
        return b

    with pytest.raises(ft.errors.InPlaceError, match=r"np\.stack"):
        ft.vmap(f)(BATCH.copy())
    np.testing.assert_array_equal(INIT, KEEP)


# -- NumPy's own as_strided, bound before the transform -------------------------------------

NUMPYS_CODE = as_strided.__code__


def windows_written(x):
    b = INIT * np.ones((2, 1))
    w = as_strided(b, shape=(2, 4), strides=(4 * b.itemsize, b.itemsize))
    w[0] = x
    w[1, ::2] = x[1:3] * 2.0
    return b.ravel()


def diagonal_written(x):
    m = np.zeros((4, 4))
    d = as_strided(m, shape=(4,), strides=(5 * m.itemsize,))
    d[:] = x
    d += 1.0
    return m.ravel() * 2.0


@pytest.mark.parametrize("f", [windows_written, diagonal_written])
def test_writes_through_numpys_own_as_strided(f):
    check_values(f)
    assert as_strided.__code__ is NUMPYS_CODE  # NumPy's again after the transforms
    np.testing.assert_array_equal(as_strided(np.arange(4.0), (2,), (16,)), [0.0, 2.0])


def test_numpys_own_read_only_windows_still_refuse():
    def f(x):
        b = np.zeros(4)
        w = as_strided(b, shape=(4,), strides=(b.itemsize,), writeable=False)
        w[:] = x
        return b

    with pytest.raises(ValueError, match="read-only"):
        ft.vmap(f)(BATCH.copy())
