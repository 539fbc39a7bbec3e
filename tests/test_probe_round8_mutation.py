"""Probe round 8: NumPy programs that mutate, under the transforms.

* Row swaps with partial pivoting (``A[[k, p]] = A[[p, k]]`` with ``p = np.argmax(...)``):
  a list index that holds a traced integer is one index array, as NumPy makes it.
* ``np.lib.stride_tricks.sliding_window_view`` of a traced array is a read-only view, as
  in NumPy: a later write into the array is seen through the windows, a write into the
  windows raises.
* An integer input a function writes into (``jvp``, ``grad(allow_int=True)``) and the
  arguments of a ``jit`` signature that runs eagerly leave the caller's arrays alone.
* Arguments that alias in the caller (``axpy(a, v, v)``, ``relax(u[1:-1], u)``,
  ``add_into(a[1:], a[:-1])``) see each other's writes under every transform (NOTE
  [aliased arguments]); ``jit`` records per aliasing only where the function writes.
* ``ufunc.at`` of any ufunc; ``ufunc.reduce``'s ``where=``/``initial=`` (with ``out=``);
  ``ndarray.resize``/``setflags``; ``.imag`` of a real array is read-only; ``x[[]]``;
  in-place shape errors are NumPy's ValueError; ``np.nditer`` over traced arrays;
  ``rng.shuffle`` of 2-D traced arrays; ``jit`` of a function writing a global array;
  ``np.einsum('ii->i', a)`` is a writeable view, ``np.diag(a)`` a read-only one, and
  ``np.ravel(a, order='K')`` of a C-ordered array a view; ``rot90``/``trim_zeros`` are
  views; ``np.concatenate([a])``, ``np.pad(a, 0)``, ``+a``... are new arrays, not ``a``.

Oracles: the plain NumPy call, the Python loop over rows for ``vmap``, central differences
in float64 for derivatives, eager values on new inputs for ``jit``.
"""

import warnings

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.errors import InPlaceError

RNG = np.random.default_rng(8)
BATCH = RNG.standard_normal((3, 5))
X = BATCH[0]
SWV = np.lib.stride_tricks.sliding_window_view


def central_grad(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(x.size)])


def check_vmap_grad_jit(f):
    want = np.stack([f(r.copy()) for r in BATCH])
    with warnings.catch_warnings():  # splitting the batch, jit running a data-read eagerly
        warnings.simplefilter("ignore", ft.errors.PerformanceWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        np.testing.assert_allclose(ft.vmap(f)(BATCH.copy()), want)
        jf = ft.jit(f)
        for r in BATCH:  # new inputs on the second and third calls
            np.testing.assert_allclose(jf(r.copy()), f(r.copy()))
    w = np.linspace(0.5, 1.5, f(X.copy()).size).reshape(f(X.copy()).shape)

    def loss(x):
        return np.sum(f(x) * w)

    np.testing.assert_allclose(ft.grad(loss)(X.copy()), central_grad(loss, X.copy()), atol=1e-6)


# -- a list index holding a traced integer ------------------------------------------------


def gauss_elimination_with_pivoting(x):
    n = x.size
    A = np.outer(x, x[::-1]) + 2 * np.diag(x) + 0.5 * np.eye(n)
    b = x + 1.0
    for k in range(n):
        p = np.argmax(np.abs(A[k:, k])) + k
        A[[k, p]] = A[[p, k]]
        b[[k, p]] = b[[p, k]]
        for i in range(k + 1, n):
            m = A[i, k] / A[k, k]
            A[i, k:] -= m * A[k, k:]
            b[i] -= m * b[k]
    sol = np.zeros(n)
    for i in range(n - 1, -1, -1):
        sol[i] = (b[i] - A[i, i + 1 :] @ sol[i + 1 :]) / A[i, i]
    return sol


def swap_with_the_largest(x):
    a = x * 1.0
    p = np.argmax(a)
    a[[0, p]] = a[[p, 0]]
    a[[p, 1]] += 1.0  # repeated when p == 1: added once, as in NumPy
    return a * x[[p, 2]].sum()


@pytest.mark.parametrize("f", [gauss_elimination_with_pivoting, swap_with_the_largest])
def test_a_list_index_holding_a_traced_integer_is_an_index_array(f):
    check_vmap_grad_jit(f)


# -- sliding_window_view is a read-only view ---------------------------------------------


def windows_after_a_write(x):
    a = x * 1.0
    w = SWV(a, 3)
    a[2] = 10.0 * x[0]  # seen through the windows, as in NumPy
    return w.sum(axis=1)


def windows_of_a_buffer(x):
    b = np.zeros(5)
    w = SWV(b, 2)
    b[1:4] = x[:3] ** 2
    return w @ np.array([1.0, -0.5])


@pytest.mark.parametrize("f", [windows_after_a_write, windows_of_a_buffer])
def test_sliding_window_view_sees_later_writes(f):
    check_vmap_grad_jit(f)


def test_sliding_window_view_is_read_only_as_in_numpy():
    def write_windows(x):
        w = SWV(x * 1.0, 3)
        w[0, 0] = 5.0
        return w

    with pytest.raises(ValueError, match="read-only"):
        write_windows(X.copy())
    with pytest.raises(ValueError, match="read-only"):
        ft.vmap(write_windows)(BATCH)
    with pytest.raises(ValueError, match="read-only"):
        ft.grad(lambda x: write_windows(x).sum())(X)

    def write_writeable_windows(x):
        w = SWV(x * 1.0, 3, writeable=True)
        w[0, 0] = 5.0
        return w

    # writeable=True: written through, as NumPy writes (round 12; it raised InPlaceError)
    np.testing.assert_allclose(
        ft.vmap(write_writeable_windows)(BATCH),
        np.stack([write_writeable_windows(r.copy()) for r in BATCH]),
    )


# -- an integer input the function writes into stays the caller's ------------------------


def scale_by_a_counter(x, k):
    k[0] += 5  # an integer array argument, bumped in place
    return x * k[1] + k[0]


@pytest.mark.parametrize(
    "transform",
    [
        lambda x, k: ft.jvp(scale_by_a_counter, (x, k), (np.ones(3), np.zeros(2))),
        lambda x, k: ft.vmap(lambda t: ft.jvp(scale_by_a_counter, (x, k), (t, np.zeros(2)))[1])(
            np.eye(3)
        ),
        lambda x, k: ft.grad(
            lambda x, k: scale_by_a_counter(x, k).sum(), argnums=(0, 1), allow_int=True
        )(x, k),
        lambda x, k: ft.jacrev(scale_by_a_counter, argnums=(0, 1), allow_int=True)(x, k),
    ],
    ids=["jvp", "vmap_of_jvp", "grad_allow_int", "jacrev_allow_int"],
)
def test_an_integer_input_written_by_the_function_leaves_the_callers_array(transform):
    # as grad's other arguments and vmap's in_dims=None ones: the transforms never write
    # the caller's arrays (NOTE [mutation semantics])
    x, k = np.array([0.5, -1.0, 2.0]), np.array([1, 2])
    transform(x, k)
    np.testing.assert_array_equal(k, [1, 2])
    out, tangent = ft.jvp(scale_by_a_counter, (x, k), (np.ones(3), np.zeros(2)))
    np.testing.assert_allclose(out, scale_by_a_counter(x, k.copy()))
    np.testing.assert_allclose(tangent, 2 * np.ones(3))


# -- jit: a signature that runs eagerly leaves the caller's arrays too --------------------


def normalise_in_place_then_branch(x):
    x -= x.mean()
    if x[0] > 0:  # a Python branch on data: jit runs this signature eagerly
        x *= 2.0
    return np.sum(x**2)


def test_jit_calls_that_run_eagerly_leave_the_callers_arrays_as_the_first_call_does():
    jf = ft.jit(normalise_in_place_then_branch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # "runs eagerly"
        for r in BATCH:  # the first call records, the next ones run eagerly
            a = r.copy()
            np.testing.assert_allclose(jf(a), normalise_in_place_then_branch(r.copy()))
            np.testing.assert_array_equal(a, r)


def test_jit_eager_calls_keep_the_aliasing_of_their_arguments():
    def add_into(out, y):
        out += y
        if out[0] > -100:  # runs eagerly
            out *= 1.0
        return out + y

    jf = ft.jit(add_into)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for r in BATCH:  # the first call records, the next ones run eagerly
            a, want = r.copy(), r.copy()
            np.testing.assert_allclose(jf(a[1:], a[:-1]), add_into(want[1:], want[:-1]))
            want = r.copy()
            np.testing.assert_allclose(jf(a, a), add_into(want, want))
            np.testing.assert_array_equal(a, r)


# -- arguments that alias each other in the caller (NOTE [aliased arguments]) ------------


def axpy(a, x, y):
    y += a * x  # x is y in axpy(a, v, v): x sees the write
    return y * x


def relax(interior, full):
    interior[:] = 0.5 * (full[:-2] + full[2:]) * interior  # relax(u[1:-1], u)
    return full**2


def add_into(out, y):
    out += y  # add_into(a[1:], a[:-1]): NumPy reads both before writing, then y sees it
    out *= y
    return out + y


def swap_ends(a, b):
    a[0], b[1] = b[1] * 2.0, a[0] * 3.0
    return a * b.sum()


ALIASED = [  # (program, the views of one array it is called with)
    (lambda x, y: axpy(0.5, x, y), lambda r: (r, r)),
    (relax, lambda r: (r[1:-1], r)),
    (add_into, lambda r: (r[1:], r[:-1])),
    (add_into, lambda r: (r[::2], r[:4])),
    (swap_ends, lambda r: (r, r[::-1])),
]
ALIASED_IDS = ["axpy_same_array", "relax_interior", "shifted", "strided", "reversed"]


def aliased_numpy(f, views):
    """The NumPy program on one array ``r`` that ``f`` is called on through ``views``."""

    def program(r):
        return f(*views(r.copy()))

    return program


def central_jacobian(f, x, eps=1e-6):
    cols = [(f(x + eps * e) - f(x - eps * e)).ravel() / (2 * eps) for e in np.eye(x.size)]
    return np.stack(cols, -1)


@pytest.mark.parametrize("f, views", ALIASED, ids=ALIASED_IDS)
def test_aliased_arguments_under_vmap_match_the_loop_and_leave_the_caller_alone(f, views):
    batch = RNG.standard_normal((4, 7))
    want = np.stack([f(*views(r)) for r in batch.copy()])  # each row's views alias
    b = batch.copy()
    batched = tuple(v.T for v in views(b.T))  # the same views of each row
    np.testing.assert_allclose(ft.vmap(f)(*batched), want)
    np.testing.assert_allclose(ft.vmap(f, chunk_size=3)(*batched), want)
    np.testing.assert_array_equal(b, batch)


@pytest.mark.parametrize("f, views", ALIASED, ids=ALIASED_IDS)
def test_aliased_arguments_under_jit_record_their_own_signature(f, views):
    jf = ft.jit(f)
    for r in RNG.standard_normal((3, 7)):  # aliased and unaliased calls, alternating
        a = r.copy()
        np.testing.assert_allclose(jf(*views(a)), aliased_numpy(f, views)(r))
        np.testing.assert_array_equal(a, r)
        copies = [np.array(v) for v in views(r.copy())]
        np.testing.assert_allclose(jf(*copies), f(*[np.array(v) for v in views(r.copy())]))


@pytest.mark.parametrize("f, views", ALIASED, ids=ALIASED_IDS)
def test_derivatives_of_aliased_arguments_add_up_to_the_numpy_programs(f, views):
    # each argument keeps its own derivative (as JAX's grad(f, argnums=(0, 1))(x, x)); a
    # write reaches the others, so their derivatives scattered back onto the one array
    # are the derivative of the NumPy program with respect to it
    r = RNG.standard_normal(7)
    program = aliased_numpy(f, views)
    jac = central_jacobian(program, r)
    positions = [np.asarray(v, dtype=int).ravel() for v in views(np.arange(7.0))]
    t = RNG.standard_normal(7)
    a = r.copy()
    out, tangent = ft.jvp(f, views(a), tuple(np.ascontiguousarray(v) for v in views(t)))
    np.testing.assert_allclose(out, program(r))
    np.testing.assert_allclose(tangent, jac @ t, atol=1e-6)
    w = RNG.standard_normal(out.shape)
    n = len(positions)
    grads = ft.grad(lambda *v: np.sum(f(*v) * w), argnums=tuple(range(n)))(*views(a))
    total = np.zeros(7)
    for g, p in zip(grads, positions):
        np.add.at(total, p, np.ravel(g))
    np.testing.assert_allclose(total, w.ravel() @ jac, atol=1e-6)
    np.testing.assert_array_equal(a, r)


def test_the_same_array_as_a_differentiated_and_an_undifferentiated_argument():
    def scale(x, y):
        x *= 2.0  # y is x: y sees it
        return np.sum(y * np.sin(x))

    r = X.copy()
    g = ft.grad(scale)(r, r)  # y is held fixed, then overwritten through x
    np.testing.assert_allclose(g, central_grad(lambda q: scale(q, q), r.copy()), atol=1e-6)
    np.testing.assert_array_equal(r, X)
    jac = ft.jacrev(lambda x, y: (x.__imul__(3.0), x * y)[1])(r, r)
    np.testing.assert_allclose(jac, np.diag(18.0 * r), atol=1e-12)


def test_pure_functions_keep_per_argument_derivatives_of_one_array():
    g = ft.grad(lambda x, y: np.sum(x * np.sin(y)), argnums=(0, 1))(X, X)
    np.testing.assert_allclose(g[0], np.sin(X))
    np.testing.assert_allclose(g[1], X * np.cos(X))


def test_aliasing_the_rows_see_differently_refuses_writes_and_allows_reads():
    batch = RNG.standard_normal((3, 5))

    def write_first(a, b):
        a[0] = 1.0
        return b.sum() + a

    for in_dims, args in [((0, None), (batch, batch)), ((0, 1), (batch[:, :3], batch[:, :3]))]:
        with pytest.raises(InPlaceError, match="shares memory with b"):
            ft.vmap(write_first, in_dims=in_dims)(*args)
    got = ft.vmap(lambda a, b: a * b.sum(), in_dims=(0, None))(batch, batch)
    np.testing.assert_allclose(got, batch * batch.sum())
    np.testing.assert_allclose(ft.vmap(lambda a: a * 2)(batch), 2 * batch)  # stack is clean


def test_jit_records_a_pure_function_once_for_aliased_and_unaliased_arguments():
    pure = ft.jit(lambda x, y: x * y + 1.0)
    r = X.copy()
    np.testing.assert_allclose(pure(r, r), r * r + 1.0)
    np.testing.assert_allclose(pure(r, r + 1.0), r * (r + 1.0) + 1.0)
    np.testing.assert_allclose(pure(r[::-1], r), r[::-1] * r + 1.0)
    assert len(pure.cache) == 1  # no write into an argument: any aliasing replays it
    writes = ft.jit(lambda x, y: axpy(0.5, x, y))
    for args in [(r, r + 1.0), (r, r), (r + 2.0, r - 1.0), (r, r)]:
        copies = [a.copy() for a in args] if args[0] is not args[1] else [args[0].copy()] * 2
        np.testing.assert_allclose(writes(*args), axpy(0.5, *copies))
    assert len(writes.cache) == 2  # one recording per aliasing
    np.testing.assert_array_equal(r, X)


# -- ufunc.at of any ufunc of one or two inputs -------------------------------------------


def negate_at(x):
    a = x * 1.0
    np.negative.at(a, [0, 2, 2, 4])  # position 2 twice: negated twice, as in NumPy
    return a


def sin_at_repeated(x):
    a = x * 1.0
    np.sin.at(a, [1, 1, 1, 3])  # sin(sin(sin(a[1])))
    return a


def hypot_at(x):
    a = x * 1.0
    np.hypot.at(a, [0, 0, 4], x[1:4])
    return a


def logaddexp_at_2d(x):
    a = np.stack([x[:3], x[2:]])
    np.logaddexp.at(a, (np.array([0, 1, 0]), np.array([2, 2, 2])), x[:3])
    return a.ravel()


def exp_at_a_buffer(x):
    a = np.zeros(5)
    a[:] = x
    np.exp.at(a, [3, 3])
    return a


@pytest.mark.parametrize(
    "f", [negate_at, sin_at_repeated, hypot_at, logaddexp_at_2d, exp_at_a_buffer]
)
def test_ufunc_at_of_any_ufunc_applies_once_per_occurrence(f):
    check_vmap_grad_jit(f)
    jac = ft.jacfwd(f)(X.copy())
    want = np.stack([(f(X + 1e-6 * e) - f(X - 1e-6 * e)) / 2e-6 for e in np.eye(X.size)], -1)
    np.testing.assert_allclose(jac, want, atol=1e-6)


# -- ndarray.resize and ndarray.setflags on traced arrays ----------------------------------


def grow_and_cut(x):
    a = x * 1.0
    a.resize((2, 4), refcheck=False)  # zeros after the elements, as NumPy's method
    b = x * 1.0
    b.resize(3, refcheck=False)  # the first three
    return a.sum(axis=0) * b.sum()


def frozen_then_thawed(x):
    a = x * 1.0
    a.setflags(write=False)
    try:
        a[0] = 0.0
    except ValueError:  # read-only, as in NumPy
        a.setflags(write=True)
        a[1] = 2.0 * x[0]
    return a


@pytest.mark.parametrize("f", [grow_and_cut, frozen_then_thawed])
def test_resize_and_setflags_methods(f):
    check_vmap_grad_jit(f)


def test_resize_of_a_view_or_an_array_with_views_raises_as_in_numpy():
    def resize_view(x):
        a = x * 1.0
        a[1:].resize(2, refcheck=False)
        return a

    def resize_viewed(x):
        a = x * 1.0
        v = a[1:]
        a.resize(2)
        return a + v.sum()

    for f, match in [(resize_view, "does not own its data"), (resize_viewed, "referenced")]:
        with pytest.raises(ValueError, match=match):
            f(X.copy())
        with pytest.raises(ValueError, match=match):
            ft.vmap(f)(BATCH)


# -- .imag of a real array is read-only, as in NumPy ---------------------------------------


def write_the_imaginary_part_of_a_real_array(x):
    a = x * 1.0
    a.real[::2] = 0.0  # a view of a real array: reaches a
    try:
        a.imag[0] = 5.0  # NumPy: read-only zeros
    except ValueError:
        a[1] = 10.0 * x[1]
    try:
        a.imag = 3.0  # NumPy: TypeError, no imaginary part to set
    except TypeError:
        a[3] = x[2] ** 2
    return a


def test_the_imaginary_part_of_a_real_traced_array_is_read_only():
    check_vmap_grad_jit(write_the_imaginary_part_of_a_real_array)


# -- ufunc.reduce: where= picks the elements (also with out=), initial= starts ----------


COLUMNS = np.array([True, False, True, True, False])


def add_reduce_into_out_with_where(x):
    a = np.outer(x, x[::-1]) - 0.5
    o = np.full(5, 10.0)
    np.add.reduce(a, axis=0, out=o, where=COLUMNS)  # masked columns sum nothing: 0
    return o


def maximum_reduce_with_initial_and_where(x):
    a = np.outer(x, x) - 0.3
    o = np.full(5, 10.0)
    np.maximum.reduce(a, axis=1, out=o, where=a < 0.5, initial=-1.0)
    return o + np.multiply.reduce(a, axis=0, initial=2.0, where=a > -0.2)


@pytest.mark.parametrize(
    "f", [add_reduce_into_out_with_where, maximum_reduce_with_initial_and_where]
)
def test_ufunc_reduce_where_and_initial(f):
    check_vmap_grad_jit(f)


# -- jit: a write into an array from outside the function ---------------------------------

COUNTS = np.zeros(3)
SCRATCH = np.zeros(5)


def count_and_scale(x):
    COUNTS[0] += 1.0  # a plain write into a global array, every call
    return x * COUNTS[0]


def fill_scratch_then_read(x):
    SCRATCH[:] = 7.0  # the function's own write, then a read of it
    return x + SCRATCH


def test_jit_repeats_a_write_into_an_outside_array_on_every_call():
    jc = ft.jit(count_and_scale)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # runs eagerly
        COUNTS[:] = 0.0
        for k, r in enumerate(BATCH, start=1):
            np.testing.assert_allclose(jc(r), r * k)
        assert COUNTS[0] == len(BATCH)
        js = ft.jit(fill_scratch_then_read)
        for r in BATCH:
            SCRATCH[:] = 0.0  # the caller resets it: the function writes it again
            np.testing.assert_allclose(js(r), r + 7.0)
            np.testing.assert_array_equal(SCRATCH, 7.0)


# -- np.nditer over traced arrays: 0-d views of the elements -------------------------------


def nditer_readwrite(x):
    a = x * 1.0
    with np.nditer(a, op_flags=["readwrite"]) as it:
        for v in it:
            v[...] = 2 * v + v**2
    return a


def nditer_allocated_output(x):
    with np.nditer([x, None]) as it:  # the NumPy docs' square()
        for a, y in it:
            y[...] = a * a
        return it.operands[1]


def nditer_multi_index_and_index(x):
    m = x.reshape(1, -1) * np.ones((2, 1))
    out = np.zeros(m.shape)
    it = np.nditer(m, flags=["multi_index"])
    for v in it:
        i, j = it.multi_index
        out[i, j] = v * (i + 1) + j
    it = np.nditer(out, flags=["c_index"], op_flags=["readwrite"])
    while not it.finished:
        it[0] = it[0] * it.index
        it.iternext()
    return out


def nditer_memory_order_and_broadcast(x):
    m = np.outer(x, x[:2])
    seen = [v * 1.0 for v in np.nditer(m.T)]  # 'K': m's memory order
    out = np.zeros(m.shape)
    for a, b, o in np.nditer([m, x[:2], out], op_flags=[["readonly"], ["readonly"], ["writeonly"]]):
        o[...] = a - b
    return np.stack(seen) + out.T.ravel()


def nditer_external_loop(x):
    a = x * 1.0
    for chunk in np.nditer(a, flags=["external_loop"], op_flags=["readwrite"]):
        chunk[...] = chunk * 3.0 + 1.0
    return a


@pytest.mark.parametrize(
    "f",
    [
        nditer_readwrite,
        nditer_allocated_output,
        nditer_multi_index_and_index,
        nditer_memory_order_and_broadcast,
        nditer_external_loop,
    ],
)
def test_nditer_over_traced_arrays(f):
    check_vmap_grad_jit(f)


def test_nditer_readonly_elements_refuse_writes_and_plain_arrays_keep_numpys_iterator():
    def write_readonly(x):
        for v in np.nditer(x * 1.0):
            v[...] = 0.0
        return x

    with pytest.raises(ValueError, match="read-only"):
        write_readonly(X.copy())
    with pytest.raises(ValueError, match="read-only"):
        ft.vmap(write_readonly)(BATCH)

    def plain_inside(x):
        p = np.arange(3.0)
        with np.nditer(p, op_flags=["readwrite"]) as it:
            for v in it:
                v[...] = v + 1.0
        return x * p.sum()

    np.testing.assert_allclose(ft.vmap(plain_inside)(BATCH), BATCH * 6.0)
    assert type(np.nditer(np.ones(2))) is np.nditer  # no transform active: NumPy's own


# -- an empty list index; an in-place result of another shape is NumPy's ValueError ------


def empty_index_writes(x):
    a = x * 1.0
    a[[]] += 1.0  # writes nothing, as in NumPy
    a[np.array([], dtype=int)] = 5.0
    return a * a[[]].sum() + a[[]].size + a


def widen_in_place_or_fall_back(x):
    a = x[:3].reshape(3, 1) * 1.0
    try:
        a += np.outer(x[:3], x[1:4])  # (3, 1) += (3, 3): NumPy's ValueError
    except ValueError:
        a = a * 2.0
    return a.ravel()


@pytest.mark.parametrize("f", [empty_index_writes, widen_in_place_or_fall_back])
def test_empty_index_and_in_place_shape_errors_follow_numpy(f):
    check_vmap_grad_jit(f)
    with pytest.raises(InPlaceError, match="non-broadcastable"):
        ft.vmap(lambda x: x.reshape(-1, 1).__iadd__(x))(BATCH)


def test_a_value_of_the_wrong_shape_names_the_shapes_the_user_sees():
    def write_three_into_two(x):
        a = x * 1.0
        a[:2] = x[:3]
        return a

    for call in (ft.vmap(write_three_into_two), ft.jit(ft.vmap(write_three_into_two))):
        with pytest.raises(ValueError, match=r"from shape \(3,\) into shape \(2,\)"):
            call(BATCH)  # not the batched (3, 3) of vmap's arrays


# -- shuffling the rows of a traced array (NOTE [shuffling a traced array]) ----------------


def shuffle_rows_with_a_generator(x):
    a = np.outer(x, x[:3]) + x[:, None]
    rng = np.random.default_rng(42)
    rng.shuffle(a)  # NumPy's sequence path swaps rows: views would duplicate them
    return a


def shuffle_rows_with_the_global_state(x):
    a = np.outer(x, x[:2]) * 1.0
    np.random.seed(7)
    np.random.shuffle(a)
    return a


@pytest.mark.parametrize("f", [shuffle_rows_with_a_generator, shuffle_rows_with_the_global_state])
def test_shuffling_the_rows_of_a_traced_array_gives_numpys_order(f):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # NumPy: "not a Sequence"
        warnings.simplefilter("ignore", RuntimeWarning)  # jit: a draw runs eagerly
        want = f(X.copy())
        assert len({tuple(r) for r in want}) == len(want)  # no duplicated rows
        np.testing.assert_allclose(ft.vmap(f, randomness="same")(BATCH), [f(r) for r in BATCH])
        np.testing.assert_allclose(ft.jit(f)(X.copy()), want)
        w = np.linspace(0.5, 1.5, want.size).reshape(want.shape)
        loss = lambda x: np.sum(f(x) * w)  # noqa: E731
        np.testing.assert_allclose(ft.grad(loss)(X.copy()), central_grad(loss, X.copy()), atol=1e-6)
    assert inplace_swapping_is_idle()


def inplace_swapping_is_idle():
    from ftransforms.numpy.inplace import _SWAPPING

    return _SWAPPING[0] is None


def test_views_of_one_array_that_share_no_element_stay_apart():
    z = RNG.standard_normal((3, 6))

    def write_left(a, b):
        a *= 2.0
        return a.sum() + b

    want = np.stack([write_left(r[:3].copy(), r[3:].copy()) for r in z])
    np.testing.assert_allclose(ft.vmap(write_left)(z[:, :3], z[:, 3:]), want)
    np.testing.assert_allclose(
        ft.vmap(write_left)(z[:, ::2], z[:, 1::2]),
        np.stack([write_left(r[::2].copy(), r[1::2].copy()) for r in z]),
    )
    np.testing.assert_allclose(ft.jit(write_left)(z[0, :3], z[0, 3:]), want[0])


# -- np.einsum that only rearranges one operand is a writeable view, as in NumPy ----------


def zero_the_diagonal_through_einsum(x):
    a = np.outer(x, x) + 1.0
    np.einsum("ii->i", a)[:] = 0.0  # NumPy's documented writeable diagonal view
    t = np.einsum("ij->ji", a)
    t[0] *= x[1]
    return a * np.einsum("ij", a).sum()


def test_einsum_views_are_written_through():
    check_vmap_grad_jit(zero_the_diagonal_through_einsum)


# -- np.diag of a matrix is a read-only view; ravel(order='K'/'A') of a C array a view ----


def write_through_diag_and_ravel_orders(x):
    a = np.outer(x, x[::-1]) * 1.0
    d = np.diag(a)  # NumPy: a read-only view
    try:
        d[0] = 0.0
    except ValueError:
        a[0, 0] = 10.0 * x[1]
    a[1, 1] = x[2] ** 2
    np.ravel(a, order="K")[2] = -x[3]  # a view of a C-contiguous array
    a.ravel(order="A")[3] *= 3.0
    return np.concatenate([a.ravel(), d])


def test_diag_view_and_ravel_in_memory_order():
    check_vmap_grad_jit(write_through_diag_and_ravel_orders)


# -- NumPy functions that return a new array return a new object (NOTE [a new array, not the
# argument]); rot90 and trim_zeros are views, as in NumPy --------------------------------


def writes_into_results_that_are_copies(x):
    a = x * 1.0
    for make in (
        lambda a: np.concatenate([a]),
        lambda a: np.hstack([a]),
        lambda a: np.pad(a, 0),
        lambda a: np.roll(a, 0),
        lambda a: np.astype(a, a.dtype),
        lambda a: np.positive(a),
        lambda a: np.conj(a),
        lambda a: +a,
    ):
        b = make(a)
        b[0] = 100.0  # a copy in NumPy: a keeps its value
        a = a + b * 0.01
    return a


def writes_through_rot90_and_trim_zeros(x):
    m = np.outer(x[:2], x[2:]) * 1.0
    np.rot90(m)[0, 1] = -x[0]  # a view in NumPy
    np.rot90(m, 3)[1] *= 2.0
    v = np.concatenate([[0.0], x, [0.0]])
    np.trim_zeros(v)[0] = x[1] ** 2  # a slice of v
    return np.concatenate([m.ravel(), v])


@pytest.mark.parametrize(
    "f", [writes_into_results_that_are_copies, writes_through_rot90_and_trim_zeros]
)
def test_copies_stay_copies_and_views_stay_views(f):
    check_vmap_grad_jit(f)


def test_broadcast_to_the_same_shape_is_still_a_read_only_view():
    def write(x):
        b = np.broadcast_to(x, x.shape)
        b[0] = 1.0
        return b

    with pytest.raises(ValueError, match="read-only"):
        write(X.copy())
    with pytest.raises(ValueError, match="read-only"):
        ft.vmap(write)(BATCH)
