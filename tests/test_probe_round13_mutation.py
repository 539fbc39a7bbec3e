"""Probe round 13: NumPy programs that fill plain arrays, under the transforms.

* ``buf[i] = t`` into a plain array that NumPy made with a function that is no creation
  function (``np.r_[...]``, ``np.repeat``/``np.tile``/``np.concatenate`` of lists,
  ``np.asarray(list)``, ``np.ndarray(shape)``) or with a method or operator on a global
  (``init.copy()``, ``init.astype(float)``, ``init * 2``, ``init[[0, 1]]``) raised
  InPlaceError, and so did ``x0 += t`` into one: NOTE [traced writes into private NumPy
  arrays] (core/private_arrays.py) makes such an array, held by one local variable and
  nothing else, a buffer taking the write, as NumPy writes it.
* An array something else may see (a global, an alias, a view or the base of a live view,
  a closure variable, a default argument, a container, an attribute, a memoryview) still
  refuses with InPlaceError, and the global is left alone.

Oracles: the plain NumPy call, the Python loop over rows for ``vmap``, central differences
in float64 for derivatives, eager values on new inputs for ``jit``.
"""

import numpy as np
import pytest

import ftransforms as ft
from tests.program_oracles import check_row_function, check_vmap, close, fd_jacobian
from tests.tolerances import fd_tol

RNG = np.random.default_rng(13)
BATCH = RNG.standard_normal((3, 6)) + 0.5
X = BATCH[0]
INIT = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
COUNTS = np.arange(6)


def check_values(f):
    """check_row_function (vmap, jit(vmap), jit, jacfwd/jacrev, grad(jit), vmap(grad)
    against their oracles); the globals are left alone."""
    check_row_function(f, BATCH, grad_jit=True)
    np.testing.assert_array_equal(INIT, np.arange(1.0, 7.0))
    np.testing.assert_array_equal(COUNTS, np.arange(6))


# -- a[i] = t into arrays only the function holds ----------------------------------------


def filled_r_(x):
    buf = np.r_[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    buf[1] = x[1]
    return buf * x


def filled_repeat_and_tile(x):
    rep = np.repeat([1.0, 2.0], 3)
    rep[1] = x[1] ** 2
    tiled = np.tile([[1.0], [2.0]], (1, 3))  # a reshape of NumPy's repeat: a view
    tiled[1, :2] = x[1:3]
    tiled[:, 2] += x[4:]
    return np.concatenate([rep, tiled.ravel()])


def filled_concatenation_of_lists(x):
    buf = np.concatenate([[1.0, 2.0], [3.0, 4.0, 5.0, 6.0]])
    buf[2:4] = x[:2] * x[4:]
    return buf


def filled_copy_of_a_global(x):
    x0 = INIT.copy()
    x0[0] = x[0]
    x0[1] += x[3]
    x0[2:4] *= x[:2]
    return x0 * x


def filled_products_of_a_global(x):
    doubled = INIT * 2.0
    doubled[0] = x[0]
    picked = INIT[[5, 4, 3]]
    picked[1] = x[2] ** 3
    cast = COUNTS.astype(float)
    cast[-1] = np.sin(x[5])
    return np.concatenate([doubled, picked, cast])


def filled_asarray_of_a_list(x):
    b = np.asarray([1.0, 2.0, 3.0])
    b[0] = x[0]
    return b * x[:3]


def rows_written_in_a_loop(x):
    out = np.r_[np.zeros(3), np.ones(3)]
    for i in range(6):
        out[i] = np.sin(x[i]) * out[i - 1]
    return out


def columns_accumulated_in_a_loop(x):
    out = np.tile(np.arange(3.0), (2, 1))
    m = x.reshape(2, 3)
    for j in range(3):
        out[:, j] += m[:, j] ** 2
    return out


def indexed_by_expressions(x):
    buf = np.r_[10.0:16.0]
    idx = np.array([5, 0, 3])
    k = 1
    buf[idx[k]] = x[0]
    buf[k + 1 : k + 3] = x[1:3]
    buf[-k] = x[4]
    buf[np.newaxis, 4] = x[5]
    buf[INIT > 3.5] *= x[3]
    return buf * 2


def fortran_ordered_copy(x):
    buf = INIT.reshape(2, 3).T.copy()  # Fortran-ordered: ravel('K') reads it so
    buf[0] = x[:2]
    return np.concatenate([buf.ravel(), buf.ravel("K")])


def integer_copy_takes_a_float(x):
    buf = COUNTS * 1
    buf[1] = x[1] * 10.0  # truncated, as NumPy casts it
    return buf * x


def uninitialised_rows_all_written(x):
    grad = np.ndarray((3, 2), dtype=float)  # NumPy's constructor: no creation function
    for i in range(3):
        grad[i] = x[2 * i : 2 * i + 2] * x[i]
    return grad.ravel()


def nested_helper(x):
    def fill(v):
        out = np.r_[0.0:3.0]
        out[1] = v
        return out

    return np.concatenate([fill(x[0]), fill(x[1] ** 2)])


def accumulated_with_operators(x):
    x0 = INIT.copy()
    x0 += x
    x0 *= x
    t = np.tile([1.0, 2.0], 3)
    t **= x
    t -= 1.0
    acc = INIT * 1.0
    for k in range(3):
        acc += x * k
    return np.concatenate([x0, t, acc])


@pytest.mark.parametrize(
    "f",
    [
        filled_r_,
        filled_repeat_and_tile,
        filled_concatenation_of_lists,
        filled_copy_of_a_global,
        filled_products_of_a_global,
        filled_asarray_of_a_list,
        rows_written_in_a_loop,
        columns_accumulated_in_a_loop,
        indexed_by_expressions,
        fortran_ordered_copy,
        integer_copy_takes_a_float,
        uninitialised_rows_all_written,
        nested_helper,
        accumulated_with_operators,
    ],
)
def test_a_plain_array_only_the_function_holds_takes_traced_writes(f):
    check_values(f)


def integer_accumulator_refuses_a_float(x):
    c = np.arange(6)
    try:
        c += x  # float64 into int64: NumPy refuses (UFuncTypeError, a TypeError)
    except TypeError:
        return x * 0.0 - 1.0
    return c * 1.0


def test_an_in_place_operator_keeps_numpys_casting_error():
    check_values(integer_accumulator_refuses_a_float)


# -- arrays something else may see: InPlaceError, nothing written ------------------------

CLOSED_OVER = INIT.copy()


def write_through_an_alias_of_a_global(x):
    x0 = INIT  # NumPy would write into INIT
    x0[0] = x[0]
    return x0 * 1.0


def add_into_an_alias_of_a_global(x):
    x0 = INIT
    x0 += x
    return x0


def write_while_an_alias_is_held(x):
    a = INIT.copy()
    b = a
    a[0] = x[0]
    return b * 1.0


def add_while_a_view_is_held(x):
    a = INIT.copy()
    v = a[:3]
    a += x
    return v * 1.0


def write_through_a_view(x):
    a = INIT.copy()
    v = a[:3]
    v[0] = x[0]
    return a * 1.0


def write_into_a_listed_array(x):
    a = INIT.copy()
    held = [a]
    a[0] = x[0]
    return held[0] * 1.0


def write_into_a_closure_variable(x):
    CLOSED_OVER[0] = x[0]
    return CLOSED_OVER * 1.0


def write_into_a_default(x, buf=INIT.copy()):  # noqa: B008 - the point of the test
    buf[0] = x[0]
    return buf * 1.0


def write_into_a_view_of_a_global(x):
    v = INIT.reshape(2, 3)
    v[0, 0] = x[0]
    return v.ravel() * 1.0


def write_while_a_memoryview_is_held(x):
    a = INIT.copy()
    m = memoryview(a)
    a[0] = x[0]
    return np.asarray(m) * 1.0


def write_into_an_attribute(x):
    class Holder:
        pass

    h = Holder()
    h.buf = INIT.copy()
    b = h.buf
    b[0] = x[0]
    return h.buf * 1.0


@pytest.mark.parametrize(
    "f",
    [
        write_through_an_alias_of_a_global,
        add_into_an_alias_of_a_global,
        write_while_an_alias_is_held,
        add_while_a_view_is_held,
        write_through_a_view,
        write_into_a_listed_array,
        write_into_a_closure_variable,
        write_into_a_default,
        write_into_a_view_of_a_global,
        write_while_a_memoryview_is_held,
        write_into_an_attribute,
    ],
)
@pytest.mark.parametrize("transform", ["vmap", "jit", "grad", "jvp"])
def test_an_array_something_else_may_see_refuses(f, transform):
    call = {
        "vmap": lambda: ft.vmap(f)(BATCH.copy()),
        "jit": lambda: ft.jit(f)(X.copy()),
        "grad": lambda: ft.grad(lambda x: f(x).sum())(X.copy()),
        "jvp": lambda: ft.jvp(f, (X.copy(),), (X.copy(),)),
    }[transform]
    with pytest.raises(ft.errors.InPlaceError):
        call()
    np.testing.assert_array_equal(INIT, np.arange(1.0, 7.0))
    np.testing.assert_array_equal(CLOSED_OVER, np.arange(1.0, 7.0))


def write_a_list_of_traced_values(x):
    b = np.r_[0.0:6.0]
    b[:] = [x[0], 1.0, x[1], 2.0, 3.0, 4.0]  # NumPy converts element by element
    return b


def test_a_list_of_traced_values_into_a_plain_array():
    # (round 13b: the list display is written whole, tests/test_probe_round13b_mutation.py)
    check_vmap(write_a_list_of_traced_values, (BATCH.copy(),), (0,))


def write_an_object_array(x):
    b = INIT * 1.0
    b[:2] = np.array([x[0], 1.0], dtype=object)  # NumPy: float() of each element
    return b


def write_a_variable_number_of_values(x):
    b = INIT * 1.0
    i = 0
    b[i] += (i := 2) * x[0]  # the value rebinds the index's name
    return b


@pytest.mark.parametrize("f", [write_an_object_array, write_a_variable_number_of_values])
def test_a_value_that_may_not_be_the_converted_tracer_refuses(f):
    """(These wrote the one converted tracer into every target element: b became
    [x[0], x[0], ...].  b[:2] = [x[:3], np.ones(3)], a list display, is written whole
    since round 14: tests/test_probe_round14_mutation.py.)"""
    for call in (lambda: ft.vmap(f)(BATCH.copy()), lambda: ft.jit(f)(X.copy())):
        with pytest.raises(ft.errors.InPlaceError):
            call()


# -- a Python complex times a 0-d tangent ----------------------------------------------


def complex_copy_of_a_global(x):
    z = INIT.astype(complex)
    z[1] = x[0] + 1j * x[1]  # 1j * x[1]: jvp's tangent product was a Python complex
    z[2:4] *= 2j * x[2:4]
    return np.abs(z)


def test_a_python_complex_times_an_element_under_jvp():
    primal, tangent = ft.jvp(lambda x: 1j * x[1], (X.copy(),), (np.ones(6),))
    np.testing.assert_allclose(primal, 1j * X[1])
    np.testing.assert_allclose(tangent, 1j)
    check_values(complex_copy_of_a_global)


# -- vmap: a batched write into an array from outside the function -------------------------

ROWS = RNG.standard_normal((2, 4))


def accumulate_over_rows(x, vmap):
    """Each row adds into ``buf``, made by the enclosing function: in the loop over rows,
    row 1 reads row 0's write."""
    buf = np.zeros(4)

    def row(y):
        buf[:] = buf + y * x[0]
        return buf.sum()

    return vmap(row)(ROWS.copy())


def loop(f):
    return lambda ys: np.stack([f(y) for y in ys])


@pytest.mark.parametrize("outer", ["vmap", "jit", "grad"])
def test_a_batched_write_into_a_captured_array_refuses(outer):
    x = X[:4].copy()
    want = accumulate_over_rows(x, loop)
    assert want[1] != pytest.approx(ROWS[1].sum() * x[0])  # the loop's rows share buf
    call = {
        "vmap": lambda: ft.vmap(lambda v: accumulate_over_rows(v, ft.vmap))(BATCH[:, :4]),
        "jit": lambda: ft.jit(lambda v: accumulate_over_rows(v, ft.vmap))(x),
        "grad": lambda: ft.grad(lambda v: accumulate_over_rows(v, ft.vmap).sum())(x),
    }[outer]
    with pytest.raises(ft.errors.InPlaceError, match=r"vmap\(row.*outside the vmapped"):
        call()


def write_into_an_unbatched_argument(y, buf):
    buf[0] = buf[0] + y[0]  # rows share buf in the loop
    return buf.sum()


def test_a_batched_write_into_an_in_dims_none_argument_refuses():
    with pytest.raises(ft.errors.InPlaceError, match="in_dims=None"):
        ft.vmap(write_into_an_unbatched_argument, in_dims=(0, None))(ROWS.copy(), np.ones(4))


def rows_with_own_and_shared_state(x):
    shared = np.full(4, 2.0)
    scale = INIT[:4].copy()

    def row(y):
        out = np.zeros(4)  # each row's own: takes the batched write
        out[1:] = y[1:] * shared[1:]
        mine = shared.copy()
        mine += y
        scale[0] = 3.0  # an unbatched write into a captured array: every row the same
        return out + mine * scale * x[0]

    return ft.vmap(row)(ROWS.copy())


def test_batched_writes_into_arrays_made_in_the_row_and_unbatched_ones_stay():
    def looped(x):
        shared = np.full(4, 2.0)
        scale = INIT[:4].copy()
        rows = []
        for y in ROWS:
            out = np.zeros(4)
            out[1:] = y[1:] * shared[1:]
            scale[0] = 3.0
            rows.append(out + (shared + y) * scale * x[0])
        return np.stack(rows)

    x = X[:4].copy()
    close(rows_with_own_and_shared_state(x), looped(x))
    close(ft.jit(rows_with_own_and_shared_state)(x), looped(x))
    close(
        ft.jacfwd(rows_with_own_and_shared_state)(x), fd_jacobian(looped, (x,)), fd_tol(np.float64)
    )
    close(
        ft.vmap(rows_with_own_and_shared_state)(BATCH[:, :4]),
        np.stack([looped(r) for r in BATCH[:, :4]]),
    )


# -- structured dtypes -------------------------------------------------------------------


def weighted_by_a_record_array(x):
    rec = np.zeros(6, dtype=[("w", float), ("b", float)])  # constants only
    rec["w"] = np.linspace(1.0, 2.0, 6)
    rec["b"][::2] = 0.5
    return x * rec["w"] + rec["b"]


def test_a_structured_array_of_constants_works_under_the_transforms():
    check_values(weighted_by_a_record_array)


def traced_field(x):
    rec = np.zeros(6, dtype=[("w", float), ("b", float)])
    rec["w"] = x
    return rec["w"] * 2.0


@pytest.mark.parametrize("transform", [ft.vmap, ft.jit, ft.jacfwd, ft.jacrev])
def test_a_traced_value_into_a_structured_array_names_the_fix(transform):
    arg = BATCH.copy() if transform is ft.vmap else X.copy()
    with pytest.raises(ft.errors.InPlaceError, match=r"structured NumPy array 'rec'.*own"):
        transform(traced_field)(arg)


# -- helpers that write into their caller's array; buf[i:j] op= t ---------------------------


def diffuse(u, dt):
    u[1:-1] += dt * (u[2:] - 2.0 * u[1:-1] + u[:-2])  # NumPy's view of u takes it


def put_square(b, v, i):
    b[i] = v * v


def accumulate(u, v):
    u += v


def stepped_by_a_helper(x):
    u = INIT * 0.1  # the caller's local, first written by a helper
    for _ in range(3):
        diffuse(u, x[1] * 0.1)
    u[0] += x[0]
    return u


def squared_by_a_helper(x):
    u = INIT * 0.1
    put_square(u, x[2], 5)
    put_square(u, x[3], 0)
    return u * x


def accumulated_by_a_helper(x):
    u = INIT * 0.1
    accumulate(u, x)
    accumulate(u, x * x)
    return u


def slices_updated_in_place(x):
    b = INIT * 1.0
    b[1:4] += x[:3]
    b[::2] *= x[3:]
    counts = COUNTS * 1
    counts[1:3] += (x[:2] > 0.5).astype(int)
    return b * counts


@pytest.mark.parametrize(
    "f",
    [stepped_by_a_helper, squared_by_a_helper, accumulated_by_a_helper, slices_updated_in_place],
)
def test_helpers_and_slice_updates_write_into_the_callers_array(f):
    check_values(f)


def integer_slice_plus_float(x):
    b = np.arange(6)
    try:
        b[1:3] += x[:2]  # NumPy refuses the float into the int view
    except TypeError:
        return x * 0.0 - 1.0
    return b * 1.0


def global_slice_updated(x):
    INIT[1:3] += x[:2]
    return x


def helper_while_the_caller_keeps_a_list(x):
    buf = INIT.copy()
    keep = [buf]
    put_square(buf, x[0], 0)
    return keep[0] * 1.0


def test_slice_updates_keep_numpys_errors_and_the_globals():
    check_values(integer_slice_plus_float)
    for f in [global_slice_updated, helper_while_the_caller_keeps_a_list]:
        with pytest.raises(ft.errors.InPlaceError):
            ft.vmap(f)(BATCH.copy())
        with pytest.raises(ft.errors.InPlaceError):
            ft.jacfwd(f)(X.copy())
    np.testing.assert_array_equal(INIT, np.arange(1.0, 7.0))


@pytest.mark.parametrize("jac", [ft.jacfwd, ft.jacrev])
def test_jacobians_over_a_closure_buffer_keep_each_direction_apart(jac):
    """jacfwd/jacrev batch directions, not the user's rows: a write into a buffer of the
    enclosing function is each direction's own (the Jacobian of the code as written)."""
    x0 = np.array([1.0, 2.0, 3.0])

    def jacobian_sum(p):
        cache = np.zeros(3)

        def f(x):
            cache[0] = x[0] * p
            return cache * x

        return jac(f)(x0).sum()  # d/dx0 of p * x0**2: 2 * p * x0

    close(ft.jit(jacobian_sum)(2.0), 4.0)  # (cache a buffer of the enclosing transform)
    close(ft.grad(jacobian_sum)(2.0), 2.0 * x0[0])
