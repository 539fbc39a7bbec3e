"""Probe round 14: mutation semantics of NumPy code under the transforms.

* ``np.add(x0, t, out=(x0,))``, ``np.exp(t, out=(buf,))``: ``out=`` a tuple display
  holding a plain array only the function holds raised InPlaceError where ``out=x0``
  worked: NOTE [traced writes into private NumPy arrays] (core/private_arrays.py) now
  counts the display's tuple against a tuple display on a fresh array.  A tuple a
  variable holds (``outs = (x0,)``) still refuses: it would keep the old array.
* ``b[:2] = [np.sin(x[0]), 1.0]``, ``b[:2] = [x[:3], np.ones(3)]``: a list display
  holding a call (not run again) raised InPlaceError naming ``np.stack``; the list being
  stored, which only the value stack holds, is now found among the lists holding the
  tracer and written whole.  A list a variable holds, a nested display and a display
  that only one branch of a conditional expression makes still refuse.
* SILENT: ``M.fill(0.5)`` and ``np.copyto(M, row)`` of constants into a traced array
  made it hold NumPy's broadcast (strides (0, 0), not contiguous, read-only): ``M.ravel()``
  became a copy (a write through it did not reach ``M``), ``as_strided`` by ``M.strides``
  wrote one element, and a later write raised "read-only".  A whole write's plain value
  now takes the array's layout (core/mutation.py, ``_in_place_layout``).
* SILENT: ``np.copyto``/``np.put``/``np.place``/``np.putmask``/``np.put_along_axis``
  into a buffer (``b = np.ones(n)``) with constants ran NumPy on the buffer's array, in
  place, under what a tape held of it (``y = b * x``): grad, jvp and vmap(grad) used the
  written values; through a view of a buffer they raised "read-only".  Their rules write
  now (numpy/protocol.py, ``_writes_an_argument``).
* SILENT: a plain NumPy array an operation read as a constant and the function then
  wrote in place with NumPy (``b = INIT.copy(); y = b * x; b[:] = 0``, ``w *= 0.5`` in a
  loop, ``b.sort()``, a global counter ``W[0] += 1``, ``self.w *= 0.5``): reverse mode
  (grad, vjp, jacrev, hessian) used the written values, the tape holding the array
  itself, and so did jit's replays and a checkpointed block's backward replay.  The
  tape, the recording and the block keep a copy of a writeable plain constant (NOTE
  [constants the tape keeps], interpreters/reverse.py); jit's outside arrays are still
  read by reference at every replay.

Oracles: the plain NumPy call, the Python loop over rows for ``vmap``, central differences
in float64 for derivatives, eager values on new inputs for ``jit``.
"""

import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

import ftransforms as ft
from tests.program_oracles import check_row_function, close, fd_jacobian
from tests.tolerances import fd_tol

RNG = np.random.default_rng(1414)
BATCH = RNG.standard_normal((3, 6)) * 0.5 + 0.3
X = BATCH[0]
INIT = np.arange(1.0, 7.0)
KEEP = INIT.copy()


def check_values(f):
    """check_row_function (vmap, jit(vmap), jit, jacfwd/jacrev, vmap(grad) against their
    oracles); the global is left alone."""
    check_row_function(f, BATCH)
    np.testing.assert_array_equal(INIT, KEEP)


# -- out= a tuple display holding a private array ---------------------------------------


def add_out_tuple(x):
    x0 = INIT.copy()
    np.add(x0, x, out=(x0,))
    return x0


def exp_out_tuple(x):
    buf = INIT.copy()
    np.exp(x, out=(buf,))
    return buf * 2.0


def multiply_out_tuple_second(x):
    buf = INIT * 1.0
    y = np.multiply(x, buf, out=(buf,))
    return y + buf  # the returned value is out itself


def hypot_out_tuple_alias(x):
    buf = INIT.copy()
    same = buf
    np.hypot(x, x[::-1], out=(buf,))
    return same * 2.0  # the alias sees the write, as in NumPy


@pytest.mark.parametrize(
    "f", [add_out_tuple, exp_out_tuple, multiply_out_tuple_second, hypot_out_tuple_alias]
)
def test_ufunc_out_tuple_display_into_a_private_array(f):
    check_values(f)


def tuple_in_a_variable(x):
    x0 = INIT.copy()
    outs = (x0,)
    np.add(x0, x, out=outs)
    return outs[0]


def array_in_a_list(x):
    x0 = INIT.copy()
    held = [x0]
    np.add(x0, x, out=(x0,))
    return held[0]


@pytest.mark.parametrize("f", [tuple_in_a_variable, array_in_a_list])
def test_ufunc_out_tuple_something_else_holds_refuses(f):
    for call in (lambda: ft.vmap(f)(BATCH.copy()), lambda: ft.grad(lambda x: f(x).sum())(X)):
        with pytest.raises(ft.errors.InPlaceError, match="out= is a NumPy array"):
            call()
    np.testing.assert_array_equal(INIT, KEEP)


# -- a list display holding a call --------------------------------------------------------


def display_with_a_call(x):
    b = INIT.copy()
    b[:2] = [np.sin(x[0]), 1.0]
    return b * x


def display_with_two_calls(x):
    b = INIT.copy()
    b[1:4] = [np.exp(x[1]), 2.0, np.tanh(x[0] * x[1])]
    return b


def display_with_a_call_and_a_variable(x):
    b = INIT.copy()
    y = x[3] * 2.0
    b[::2] = [y, np.cos(x[2]), x.sum()]
    return b


def display_of_rows(x):
    b = INIT.reshape(2, 3) * 1.0
    b[:2] = [x[:3], np.ones(3)]  # NumPy converts the one traced row once
    return b


def display_of_a_call_row(x):
    b = np.tile(INIT, (3, 1))
    b[1:] = [INIT, np.sin(x) * 2.0]
    return b


def displays_in_a_loop(x):
    b = INIT * 0.0
    for i in range(3):
        b[2 * i : 2 * i + 2] = [np.sin(x[i]), x[i + 1].max()]
    return b


@pytest.mark.slow  # each store walks the objects Python tracks: ~3 s in a full pytest process
@pytest.mark.parametrize(
    "f",
    [
        display_with_a_call,
        display_with_two_calls,
        display_with_a_call_and_a_variable,
        display_of_rows,
        display_of_a_call_row,
        displays_in_a_loop,
    ],
)
def test_list_display_holding_a_call_into_a_private_array(f):
    check_values(f)


def list_in_a_variable(x):
    b = INIT.copy()
    keep = [np.sin(x[0]), 1.0]
    b[:2] = keep
    return b * x


def nested_display(x):
    b = INIT[:4].reshape(2, 2) * 1.0
    b[:] = [[np.sin(x[0]), 1.0], [2.0, 3.0]]
    return b


def display_in_one_branch(x, flag=True):
    b = INIT.copy()
    keep = [np.sin(x[0]), 1.0]
    b[:2] = [np.sin(x[0]), 1.0] if flag else keep
    return b * x


@pytest.mark.parametrize("f", [list_in_a_variable, nested_display, display_in_one_branch])
def test_a_list_that_may_not_be_the_stored_one_still_refuses(f):
    for call in (lambda: ft.vmap(f)(BATCH.copy()), lambda: ft.jit(f)(X.copy())):
        with pytest.raises(ft.errors.InPlaceError, match=r"np\.stack"):
            call()
    np.testing.assert_array_equal(INIT, KEEP)


# -- a whole write keeps the array's layout ------------------------------------------------


def _written_through_a_ravel_and_a_diagonal(M, x):
    r = M.ravel()  # a view of a C-contiguous array: writes reach M
    r[0] = -7.0 * x[5]
    d = as_strided(M, shape=(3,), strides=(M.strides[0] + M.strides[1],))
    d *= 1.0 + 0.1 * x[:3]
    return np.concatenate([M.ravel(), [M.strides[0], M.strides[1], M.flags.c_contiguous]])


def fill_a_traced_array(x):
    M = np.ones((3, 4))
    M[1] = x[:4]
    M.fill(0.5)  # (was a broadcast: strides (0, 0), read-only, not contiguous)
    return _written_through_a_ravel_and_a_diagonal(M, x)


def copyto_a_row_into_a_traced_array(x):
    M = np.ones((3, 4))
    M[1] = x[:4]
    np.copyto(M, np.arange(4.0))
    return _written_through_a_ravel_and_a_diagonal(M, x)


def fill_a_buffer_then_its_transpose(x):
    M = np.ones((3, 4))
    M.fill(2.0)
    M.T.fill(0.5)
    return _written_through_a_ravel_and_a_diagonal(M, x)


@pytest.mark.parametrize(
    "f", [fill_a_traced_array, copyto_a_row_into_a_traced_array, fill_a_buffer_then_its_transpose]
)
def test_a_whole_write_of_constants_keeps_the_layout(f):
    check_values(f)


# -- NumPy's writers on buffers alone ------------------------------------------------------

WRITERS = {
    "copyto": lambda b: np.copyto(b, 5.0),
    "put": lambda b: np.put(b, [0, 1, 2, 3, 4, 5], 5.0),
    "place": lambda b: np.place(b, np.ones(6, bool), [5.0]),
    "putmask": lambda b: np.putmask(b, np.ones(6, bool), 5.0),
    "put_along_axis": lambda b: np.put_along_axis(b, np.arange(6), 5.0, axis=0),
    "fill_diagonal of a view": lambda b: np.fill_diagonal(b.reshape(2, 3), 5.0),
    "copyto a view": lambda b: np.copyto(b.reshape(2, 3).T, 5.0),
}


@pytest.mark.parametrize("name", list(WRITERS))
def test_numpys_writers_on_a_buffer_leave_what_a_tape_holds(name):
    """(The buffer's array was written in place by NumPy: the tape's copy of b in b * x
    changed, and grad was 5 * (1 + cos(x)); through a view NumPy refused, read-only.)"""

    def f(x):
        b = np.ones(6)
        y = b * x + np.sin(x) * b  # the tape holds b's value
        WRITERS[name](b)
        return np.concatenate([y, b])

    check_values(f)


# -- a plain array written in place after an operation read it -----------------------------


def private_array_written_after_use(x):
    b = INIT.copy()  # a plain array (no creation function): NumPy writes it in place
    y = b * x + np.sin(x) * b
    b[:] = 100.0
    return y


def weights_decayed_in_a_loop(x):
    w = INIT * 1.0
    acc = np.zeros(6)
    for _ in range(3):
        acc = acc + w * np.tanh(x)
        w *= 0.5
    return acc


def sorted_after_use(x):
    b = INIT[::-1].copy()
    y = x @ b * x
    b.sort()
    return y + b


@pytest.mark.parametrize(
    "f", [private_array_written_after_use, weights_decayed_in_a_loop, sorted_after_use]
)
def test_a_plain_array_written_after_an_operation_read_it(f):
    """(grad, jacrev, vmap(grad) and jit's replays used the written values: the tape and
    the recording held the array itself.)"""
    check_values(f)


COUNTER = np.arange(1.0, 7.0)


class Decaying:
    def __init__(self) -> None:
        self.w = np.arange(1.0, 7.0)

    def loss(self, x):
        y = np.sum(self.w * np.sin(x))
        self.w *= 0.5  # an in-place update of an attribute, not differentiated
        return y


def counted(x):
    y = np.sum(COUNTER * np.sin(x))
    COUNTER[0] += 1.0  # a global the function updates in place
    return y


@pytest.mark.parametrize("make", [lambda: counted, lambda: Decaying().loss])
def test_a_global_or_attribute_written_after_use_keeps_the_value_read(make):
    want = np.arange(1.0, 7.0) * np.cos(X)
    try:
        for name, run in (
            ("grad", lambda f: ft.grad(f)(X.copy())),
            ("vjp", lambda f: ft.vjp(f, X.copy())[1](1.0)[0]),
            ("jacrev", lambda f: ft.jacrev(f)(X.copy())),
            ("grad(jit)", lambda f: ft.grad(ft.jit(f))(X.copy())),
        ):
            COUNTER[:] = np.arange(1.0, 7.0)
            close(run(make()), want, msg=name)
        COUNTER[:] = np.arange(1.0, 7.0)
        h = ft.hessian(make())(X.copy())
        close(h, np.diag(-np.arange(1.0, 7.0) * np.sin(X)), msg="hessian")
    finally:
        COUNTER[:] = np.arange(1.0, 7.0)


def checkpointed_block_of_a_written_array(x):
    b = INIT.copy()
    y = ft.checkpoint(lambda u: np.sin(u * b))(x)  # the block's replay reads b
    b[:] = 100.0
    return y


def test_a_checkpointed_block_replays_the_value_it_read():
    """(The backward replay of the block read b after the write: grad was 100 cos(100 x).)"""
    f = checkpointed_block_of_a_written_array
    jac = fd_jacobian(f, (X.copy(),))
    close(ft.jacrev(f)(X.copy()), jac, fd_tol(np.float64))
    rows = np.stack([fd_jacobian(lambda v: f(v).sum(), (r.copy(),)) for r in BATCH])
    close(ft.vmap(ft.grad(lambda v: f(v).sum()))(BATCH.copy()), rows, fd_tol(np.float64))
