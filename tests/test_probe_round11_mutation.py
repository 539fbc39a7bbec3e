"""Probe round 11: NumPy programs that mutate, under the transforms.

* Elementwise results of transposed arrays (``np.exp(a.T)``, ``a.T * 2``, ``-a.T``,
  ``a.T.astype(t)``, ``np.copy(c.transpose(1, 0, 2))``) were laid out in C order where
  NumPy lays them out in the operands' order (NOTE [layout of elementwise results]):
  ``ravel('K')``/``reshape(order='A')`` read other values, ``strides``/``flags`` differed,
  and a reshape NumPy copies was a view (a write through it reached the result).
  NumPy functions that lay their result out as their operand (``np.where``, ``np.clip``,
  ``np.cumsum``, ``np.sort``, ``np.diff``, reductions over some axes, ``np.concatenate``,
  ``np.stack``, ``np.pad``) did not either.
* ``y.resize(n)`` of a Fortran-ordered array raised (NumPy keeps its memory order).
* Fortran-ordered arguments (and the rows of a Fortran-ordered batch) were C-ordered under
  every transform, and arguments whose elements lie apart (``x[:, ::2]``, the rows of
  ``vmap(f, in_dims=1)``) contiguous: their strides, flags and whether a reshape of them is
  a view (a write through it) differed from NumPy's.
* ``np.sqrt(a, out=a, where=a > 0)`` warned of the negative elements it does not compute.

Oracles: the plain NumPy call, the Python loop over rows for ``vmap``, central differences
in float64 for derivatives, eager values on new inputs for ``jit``.
"""

import warnings

import numpy as np
import pytest

import ftransforms as ft

RNG = np.random.default_rng(11)
BATCH = RNG.standard_normal((3, 12))
X = BATCH[0]


def central_grad(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(x.size)])


def central_jacobian(f, x, eps=1e-6):
    cols = [(f(x + eps * e) - f(x - eps * e)).ravel() / (2 * eps) for e in np.eye(x.size)]
    return np.stack(cols, -1)


def check_transforms(f, derivatives=True):
    """vmap against the loop, jit on new inputs, grad/jacfwd/vmap(grad) against central
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
    np.testing.assert_array_equal(batch, BATCH)
    if not derivatives:
        return
    w = np.linspace(0.5, 1.5, want[0].size).reshape(want[0].shape)

    def loss(x):
        return np.sum(f(x) * w)

    np.testing.assert_allclose(ft.grad(loss)(X.copy()), central_grad(loss, X.copy()), atol=1e-6)
    np.testing.assert_allclose(
        ft.jacfwd(f)(X.copy()).reshape(-1, X.size), central_jacobian(f, X.copy()), atol=1e-6
    )
    gb = np.stack([central_grad(loss, r.copy()) for r in BATCH])
    np.testing.assert_allclose(ft.vmap(ft.grad(loss))(BATCH.copy()), gb, atol=1e-6)


# -- elementwise results are laid out as NumPy lays them out ----------------------------


def ravel_in_memory_order_of_results(x):
    a = x.reshape(3, 4)
    c = x.reshape(3, 2, 2).transpose(1, 0, 2)
    b = x[::-1].reshape(4, 3)
    parts = [
        np.exp(a.T),  # Fortran-ordered
        a.T * 2.0,
        -a.T,
        +a.T,
        np.abs(c) + 1.0,  # c's axis order
        (c > 0) * 1.0,
        a.T + b,  # the operands disagree: C order
        b + a.T,
        a.T + x[:3],  # a broadcast operand has no say
        x[:4, None] * a.T,
        a.T.astype(np.float64),
        np.copy(c),  # order='K'
        c.copy("K"),
    ]
    return np.concatenate([p.ravel("K") for p in parts] + [np.exp(a.T).reshape(-1, order="A")])


def write_through_reshapes_of_a_fortran_ordered_result(x):
    y = x.reshape(3, 4).T * 2.0  # Fortran-ordered
    r = y.reshape(-1)  # a copy in NumPy
    r[0] = 100.0 * x[5]
    t = y.T.reshape(-1)  # a view in NumPy: y.T is C-contiguous
    t[1] = -7.0 * x[2]
    return np.concatenate([y.ravel(), r])


def writes_into_a_fortran_ordered_result_and_its_views(x):
    y = x.reshape(3, 4).T * 2.0
    v = y[0]
    v[:] = 5.0 * x[:3]
    y += 1.0  # y keeps its layout
    t = y.T.reshape(-1)  # a view in NumPy: y.T is C-contiguous
    t[2] = -x[7]
    y[1:, 1] = x[8:11]
    c = x.reshape(2, 3, 2).transpose(2, 0, 1) * 1.0
    d = c.reshape(-1)  # a copy
    d[:] = 0.0
    e = c.transpose(1, 2, 0).reshape(-1)  # a view: C order again
    e[3] = 100.0 * x[4]
    return np.concatenate([y.ravel("K"), y.ravel(), t, c.ravel("K"), c.ravel()])


def reads_strides_and_flags_of_results(x):
    y = np.sin(x.reshape(3, 4).T)
    z = x.reshape(2, 3, 2).transpose(2, 0, 1) ** 2
    s, u = y.strides, z.strides
    flags = (y.flags.f_contiguous, y.flags.c_contiguous, z.flags.c_contiguous)
    return x * (s[0] + 3 * s[1] + u[0] - u[2]) + 10.0 * sum(flags)


def resize_keeps_memory_order(x):
    y = x.reshape(3, 4).T * 2.0
    y.resize(20)  # NumPy: y's elements in memory order, then zeros
    z = np.zeros((2, 3), order="F")
    z[0] = x[:3]
    z.resize(7)
    w = x[:6] * 1.0
    w.resize((2, 4))
    return np.concatenate([y, z, w.ravel()])


def functions_keep_their_operands_layout(x):
    a = x.reshape(3, 4).T  # Fortran-ordered
    c = x.reshape(3, 2, 2).transpose(2, 1, 0)
    parts = [
        np.where(a > 0, a, 0.0),
        np.clip(a, -0.5, 0.5),
        a.clip(-0.5, 0.5),
        np.round(a, 1),
        np.cumsum(a, 0),
        a.cumsum(1),
        np.sort(a, 0),
        np.diff(a, axis=0),
        c.sum(1),  # a reduction keeps the order of the axes it keeps
        np.mean(c, axis=2),
        c.max(1, keepdims=True),
        np.std(c, axis=1),
        np.concatenate([a, a]),  # the arrays' order
        np.concatenate([c, c], axis=2),
        np.stack([a, a], axis=1),  # the new axis innermost here
        np.stack([c, c]),
        np.pad(a, 1),
    ]
    flags = [p.flags.f_contiguous for p in parts]
    return np.concatenate([p.ravel("K") for p in parts] + [flags])


@pytest.mark.parametrize(
    "f",
    [
        ravel_in_memory_order_of_results,
        functions_keep_their_operands_layout,
        write_through_reshapes_of_a_fortran_ordered_result,
        writes_into_a_fortran_ordered_result_and_its_views,
        reads_strides_and_flags_of_results,
        resize_keeps_memory_order,
    ],
)
def test_elementwise_results_are_laid_out_as_numpy_lays_them_out(f):
    check_transforms(f)


# -- arguments the caller laid out in Fortran order --------------------------------------


def reads_its_arguments_layout(m):
    k = m.ravel("K")  # memory order
    a = m.reshape(-1, order="A")
    r = m.reshape(-1)  # a copy in NumPy: m is not C-contiguous
    r[0] = 100.0
    flags = [m.flags.f_contiguous * 1.0, m.flags.c_contiguous * 1.0]
    return np.concatenate([k * 1.0, a**2, m.ravel() * (1.0 + m.T.flags.c_contiguous), flags])


def test_fortran_ordered_arguments_keep_their_layout():
    f = reads_its_arguments_layout
    m = np.asfortranarray(X.reshape(3, 4))
    want = f(m.copy(order="K"))
    w = np.linspace(0.5, 1.5, want.size)

    def loss(m):
        return np.sum(f(m) * w)

    eps = 1e-6
    g = np.zeros((3, 4))
    for i in np.ndindex(3, 4):
        e = np.zeros((3, 4))
        e[i] = eps
        g[i] = (loss(np.asfortranarray(m + e)) - loss(np.asfortranarray(m - e))) / (2 * eps)
    np.testing.assert_allclose(ft.grad(loss)(m), g, atol=1e-6)
    np.testing.assert_allclose(ft.grad(ft.jit(loss))(m), g, atol=1e-6)  # jit inside: traced
    for jac in (ft.jacrev, ft.jacfwd):
        np.testing.assert_allclose(np.tensordot(w, jac(f)(m), 1), g, atol=1e-6)
    np.testing.assert_allclose(ft.vjp(f, m)[0], want)
    t = np.asfortranarray(BATCH[1].reshape(3, 4))
    primal, tangent = ft.jvp(f, (m,), (t,))
    np.testing.assert_allclose(primal, want)
    np.testing.assert_allclose(np.sum(tangent * w), np.sum(g * t), atol=1e-6)
    np.testing.assert_array_equal(m, X.reshape(3, 4))  # the caller's array is left alone
    # vmap: the rows of a Fortran-ordered batch are Fortran-ordered (not contiguous)
    batch = np.asfortranarray(BATCH.reshape(3, 3, 4))
    fresh = batch.copy(order="K")
    want = np.stack([f(row) for row in fresh])
    np.testing.assert_allclose(ft.vmap(f)(batch), want)
    np.testing.assert_allclose(
        ft.vmap(ft.grad(loss))(batch), np.stack([ft.grad(loss)(row) for row in batch])
    )


# -- where= of a ufunc: the elements it does not compute raise no warning ----------------


def sqrt_where_positive(x):
    a = x * 1.0
    np.sqrt(a, out=a, where=a > 0)
    return a


def divide_where_nonzero(x):
    b = x[::-1] * (np.abs(x[::-1]) > 0.5)  # zeros
    return np.divide(x, b, out=np.zeros_like(x), where=b != 0)


def log_where_positive_into_a_view(x):
    out = np.ones((2, 6))
    np.log(x.reshape(2, 6), out=out[:, ::-1], where=x.reshape(2, 6) > 0)
    return out.ravel()


def _transformed_calls(f):
    def loss(x):
        return np.sum(f(x) ** 2)

    yield "vmap", lambda: ft.vmap(f)(BATCH.copy())
    yield "jit", lambda: ft.jit(f)(X.copy())
    yield "grad", lambda: ft.grad(loss)(X.copy())
    yield "jvp", lambda: ft.jvp(f, (X.copy(),), (np.ones(12),))
    yield "hessian", lambda: ft.hessian(loss)(X.copy())
    yield "vmap(grad)", lambda: ft.vmap(ft.grad(loss))(BATCH.copy())


@pytest.mark.parametrize(
    "f", [sqrt_where_positive, divide_where_nonzero, log_where_positive_into_a_view]
)
def test_ufunc_where_warns_only_as_numpy_warns(f):
    assert (BATCH <= 0).any()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NumPy computes no masked-out element
        for r in BATCH:
            f(r.copy())
    for name, call in _transformed_calls(f):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            call()
        assert not seen, (name, [str(w.message) for w in seen])
    check_transforms(f)


def test_ufunc_where_still_warns_for_the_elements_it_computes():
    def f(x):
        out = np.ones_like(x)
        np.log(x, out=out, where=x >= 0)  # log(0): computed, NumPy warns
        return out

    x = np.array([-1.0, 0.0, 2.0])
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        f(x)
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        np.testing.assert_array_equal(ft.jit(f)(x), f(x))


def reads_and_writes_a_strided_argument(m):
    r = m.reshape(-1)  # a view where m's strides allow one, else a copy
    r[0] = 100.0
    flags = [m.flags.c_contiguous, m.flags.f_contiguous]
    strides = [s / m.itemsize for s in m.strides]
    return np.concatenate([m.ravel("K"), m.reshape(-1, order="A") ** 2, m.ravel(), flags, strides])


@pytest.mark.parametrize(
    "make, in_dims",
    [
        (lambda: np.moveaxis(np.arange(24.0).reshape(2, 3, 4), 0, -1).copy(), 2),  # a view
        (lambda: np.arange(48.0).reshape(3, 2, 8)[:, :, ::2], 1),  # a copy
        (lambda: np.asfortranarray(np.arange(24.0).reshape(2, 3, 4)), 0),
    ],
)
def test_rows_that_are_not_contiguous_keep_numpys_strides(make, in_dims):
    f = reads_and_writes_a_strided_argument
    batch = make()
    rows = [batch[(slice(None),) * in_dims + (i,)] for i in range(batch.shape[in_dims])]
    want = np.stack([f(r) for r in rows])
    np.testing.assert_allclose(ft.vmap(f, in_dims=in_dims)(make()), want)
    np.testing.assert_allclose(ft.jvp(f, (rows[1],), (np.ones(rows[1].shape),))[0], want[1])
    w = np.linspace(0.5, 1.5, want.shape[1])
    np.testing.assert_allclose(
        ft.vmap(ft.grad(lambda m: np.sum(f(m) * w)), in_dims=in_dims)(make()),
        np.stack(
            [
                ft.grad(lambda m: np.sum(f(m) * w))(make()[(slice(None),) * in_dims + (i,)])
                for i in range(len(rows))
            ]
        ),
    )


def test_jit_records_each_layout_of_its_arguments():
    f = reads_and_writes_a_strided_argument
    jf = ft.jit(f)
    makes = [
        lambda: np.arange(12.0).reshape(3, 4),
        lambda: np.asfortranarray(np.arange(12.0).reshape(3, 4)),
        lambda: np.arange(24.0).reshape(3, 8)[:, ::2],
        lambda: np.moveaxis(np.arange(24.0).reshape(2, 3, 4), 0, -1).copy()[:, :, 1],
    ]
    for make in makes * 2:  # recordings, then replays (the fast path for C order)
        np.testing.assert_allclose(jf(make()), f(make()))
