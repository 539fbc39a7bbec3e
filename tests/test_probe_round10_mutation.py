"""Probe round 10: NumPy programs that mutate, under the transforms.

* Results that alias the caller's arrays: ``jvp`` of ``f(x) = x`` (or ``x[1:]``, ``x.T``)
  returned the caller's primal and tangent themselves, a ``vjp`` passing a cotangent
  through returned the caller's cotangent, an argument returned as aux by ``grad``/``jvp``/
  ``jacrev``/``jacfwd``/``hessian``, ``linearize``'s ``jvp_fn`` of an identity, ``vmap``
  with ``out_dims=None``, and ``jit`` of ``x[1:].copy()`` or ``x.T * 1`` (a copy is no
  operation of the recording): a write into the result changed the caller's array.
* Keyword arguments and undifferentiated containers of arrays were the caller's own: a
  write into them (``buf[:] = 0``, ``params["w"] *= 2``) changed the caller's arrays.
* ``t.strides`` of views were C order's (``a.T``, ``a[:, ::2]``, ``a[::-1]``); a reshape
  NumPy does without a copy (``a[:, 1].reshape(-1, 1)``) was a copy and ``ravel`` of
  ``a[::2]`` the view itself; Fortran-ordered buffers (``np.zeros(s, order='F')``,
  ``zeros_like`` of one) lost their layout.
* ``np.sqrt(a, out=a, where=a > 0)``: nan derivatives from the elements not computed.
* ``x[i] = v`` with ``v``'s leading axes of length 1 raised; ``t.dtype = d`` and
  ``t.strides = s`` raised AttributeError; jit(grad) of an in-place LU raised IndexError.
* ``Generator`` methods with ``out=`` and ``shuffle(x, axis=1)`` refused buffers/tracers.

Oracles: the plain NumPy call, the Python loop over rows for ``vmap``, central differences
in float64 for derivatives, eager values on new inputs for ``jit``.
"""

import re
import warnings

import numpy as np
import pytest

import ftransforms as ft

RNG = np.random.default_rng(10)
BATCH = RNG.standard_normal((3, 12))
X = BATCH[0]


def central_grad(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(x.size)])


def central_jacobian(f, x, eps=1e-6):
    cols = [(f(x + eps * e) - f(x - eps * e)).ravel() / (2 * eps) for e in np.eye(x.size)]
    return np.stack(cols, -1)


def check_transforms(f):
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
    w = np.linspace(0.5, 1.5, want[0].size).reshape(want[0].shape)

    def loss(x):
        return np.sum(f(x) * w)

    x = X.copy()
    np.testing.assert_allclose(ft.grad(loss)(x), central_grad(loss, X.copy()), atol=1e-6)
    np.testing.assert_array_equal(x, X)
    np.testing.assert_allclose(
        ft.jacfwd(f)(X.copy()).reshape(-1, X.size), central_jacobian(f, X.copy()), atol=1e-6
    )
    gb = np.stack([central_grad(loss, r.copy()) for r in BATCH])
    np.testing.assert_allclose(ft.vmap(ft.grad(loss))(BATCH.copy()), gb, atol=1e-6)


# -- a write into a transform's result never reaches the caller's array -----------------


def aux_of_y(x, y=None):
    return np.sum(x**2), y


def _written_results(x, t):
    """(name, result, the caller's array it must not alias) for each transform."""
    p, tt = ft.jvp(lambda x: x, (x,), (t,))
    yield "jvp primal", p, x
    yield "jvp tangent", tt, t
    p, tt = ft.jvp(lambda x: x.reshape(2, 3).T, (x,), (t,))
    yield "jvp primal of a view", p, x
    yield "jvp tangent of a view", tt, t
    yield "jvp aux", ft.jvp(lambda x: (x.sum(), x[1:]), (x,), (t,), has_aux=True)[2], x
    yield "vjp cotangent", ft.vjp(lambda x: x, x)[1](t)[0], t
    yield (
        "vjp cotangent of a view",
        ft.vjp(lambda x: x.T, x.reshape(2, 3))[1](t.reshape(3, 2))[0],
        t,
    )
    yield "grad aux", ft.grad(lambda x: (x.sum(), x), has_aux=True)(x)[1], x
    yield "jacrev aux", ft.jacrev(lambda x: (x * 2, x), has_aux=True)(x)[1], x
    yield "jacfwd aux", ft.jacfwd(lambda x: (x * 2, x), has_aux=True)(x)[1], x
    y = t  # an argument that is not differentiated, returned as aux
    yield "grad aux of another argument", ft.grad(aux_of_y, has_aux=True)(x, y)[1], y
    yield "grad aux of a keyword", ft.grad(aux_of_y, has_aux=True)(x, y=y[1:])[1], y
    yield "jacrev aux of another argument", ft.jacrev(aux_of_y, has_aux=True)(x, y)[1], y
    yield "jacfwd aux of another argument", ft.jacfwd(aux_of_y, has_aux=True)(x, y)[1], y
    yield "hessian aux of another argument", ft.hessian(aux_of_y, has_aux=True)(x, y)[1], y
    yield "linearize jvp_fn", ft.linearize(lambda x: x, x)[1](t), t
    yield "linear_transpose", ft.linear_transpose(lambda x: x, x)(t)[0], t
    f = ft.vmap(lambda r, c: c, in_dims=(0, None), out_dims=None)
    yield "vmap out_dims=None", f(np.ones((2, 6)), x), x
    for g in (
        lambda x: x[1:].copy(),
        lambda x: x.reshape(2, 3).T * 1,
        lambda x: (x, x[::2].copy()),
    ):
        jg = ft.jit(g)
        for call in range(3):  # the recording and its replays
            for k, leaf in enumerate(ft.tree_util.tree_leaves(jg(x))):
                yield f"jit output {k}, call {call}", leaf, x


def test_results_of_transforms_never_alias_the_callers_arrays():
    x, t = X[:6].copy(), np.ones(6)
    for name, result, arg in _written_results(x, t):
        assert not np.shares_memory(result, arg), name
        result[...] = 7.0
    np.testing.assert_array_equal(x, X[:6])
    np.testing.assert_array_equal(t, np.ones(6))


# -- NumPy's strides of views; reshapes that need no copy are views ----------------------


def _views(m):
    return {
        "m.T": m.T,
        "column": m[:, 1],
        "every other column": m[:, ::2],
        "reversed rows": m[::-1],
        "fortran": np.asfortranarray(m),
        "rows, transposed": m[:2].T,
        "diagonal": np.diagonal(m),
        "real part": (m + 0j).real,
    }


def test_strides_of_views_are_numpys():
    m = np.arange(12.0).reshape(3, 4)
    want = {k: v.strides for k, v in _views(m).items()}
    seen = []

    def f(x):
        seen.append({k: v.strides for k, v in _views(x.reshape(3, 4) * 1.0).items()})
        return x

    ft.vmap(f)(np.ones((2, 12)))
    ft.grad(lambda x: f(x).sum())(np.ones(12))
    ft.jit(f)(np.ones(12))
    for got in seen:
        assert got == want


def branch_on_strides(x):
    m = x.reshape(3, 4)[:2].T  # (4, 2) in NumPy's memory order: strides (8, 32)
    if m.strides[0] < m.strides[1]:
        return m.sum(0) * 2.0
    return m.sum(1)


def reshape_of_a_strided_view_writes_through(x):
    a = x * 1.0
    col = a.reshape(3, 4)[:, 1].reshape(-1, 1)  # a view in NumPy (a unit axis added)
    col *= 3.0
    t = a.reshape(3, 4)[:2].T.reshape(4, 2)  # a view in NumPy too
    t[0] = x[:2] ** 2
    return a


def ravel_of_a_strided_view_is_a_copy(x):
    a = x * 1.0
    r = np.ravel(a[::2])  # NumPy copies: not contiguous
    r[0] = 9.0 * x[2]
    s = a[::3].ravel()
    s += 1.0
    return np.concatenate([a, r, s])


def numpys_windows_over_a_transposed_view(x):
    from numpy.lib.stride_tricks import as_strided as numpys  # bound as NumPy's own

    m = x.reshape(3, 4).T  # strides (8, 32): windows step through a's memory
    s = m.strides
    mine = np.lib.stride_tricks.as_strided(m, shape=(3, 2, 3), strides=(s[0], s[0], s[1]))
    theirs = numpys(m, shape=(3, 2, 3), strides=(s[0], s[0], s[1]))
    return np.concatenate([mine.ravel(), theirs.ravel()])


def write_through_windows_of_a_column(x):
    a = x.reshape(3, 4) * 1.0
    col = a[:, 2]
    w = np.lib.stride_tricks.as_strided(col, shape=(2,), strides=(2 * col.strides[0],))
    w *= 5.0  # rows 0 and 2 of column 2
    return a.ravel()


@pytest.mark.parametrize(
    "f",
    [
        branch_on_strides,
        reshape_of_a_strided_view_writes_through,
        ravel_of_a_strided_view_is_a_copy,
        numpys_windows_over_a_transposed_view,
        write_through_windows_of_a_column,
    ],
)
def test_programs_that_read_strides_follow_numpy(f):
    check_transforms(f)


# -- where= of a ufunc: the elements it does not compute give no nan derivative ----------


def sqrt_where_positive(x):
    a = x * 1.0
    np.sqrt(a, out=a, where=a > 0)
    return a


def divide_where_nonzero(x):
    b = x[::-1] * (np.abs(x[::-1]) > 0.5)
    return np.divide(x, b, out=np.zeros_like(x), where=b != 0)


def arccos_where_inside(x):
    out = np.ones_like(x)
    np.arccos(x, out=out, where=np.abs(x) < 1)
    return out


@pytest.mark.parametrize("f", [sqrt_where_positive, divide_where_nonzero, arccos_where_inside])
def test_ufunc_where_gives_finite_derivatives_where_it_does_not_compute(f):
    assert (BATCH <= 0).any() and (np.abs(BATCH) > 1).any()  # both kinds of elements
    check_transforms(f)
    h = ft.hessian(lambda x: np.sum(f(x) ** 2))(X.copy())
    assert np.isfinite(h).all()


# -- setters NumPy has and the transforms cannot follow ---------------------------------


def test_dtype_and_strides_setters_raise_a_clear_error():
    def set_dtype(x):
        a = x * 1.0
        a.dtype = np.float64  # the same dtype: nothing to do
        a.dtype = np.int64
        return a

    def set_strides(x):
        a = x * 1.0
        a.strides = (16,)
        return a

    for transform in (ft.vmap, ft.grad, ft.jit):
        for f, words in ((set_dtype, "x.dtype = int64"), (set_strides, "x.strides = (16,)")):
            g = (lambda x, f=f: f(x).sum()) if transform is ft.grad else f
            with pytest.raises(ft.errors.UnsupportedOperationError, match=re.escape(words)) as info:
                transform(g)(BATCH[:, :6].copy() if transform is ft.vmap else X[:6].copy())
            assert str(info.value).startswith(("vmap(", "grad(", "jit("))
    np.testing.assert_allclose(ft.grad(lambda x: x.sum())(X), np.ones(X.size))  # clean stack


# -- published in-place algorithms under jit(grad) ---------------------------------------


def lu_in_place(x):
    a = x[:9].reshape(3, 3) + 3.0 * np.eye(3)
    for i in range(3):  # the last step's trailing block is empty (0 x 0)
        a[i + 1 :, i] /= a[i, i]
        a[i + 1 :, i + 1 :] -= np.outer(a[i + 1 :, i], a[i, i + 1 :])
    return a.ravel()


def test_in_place_lu_under_jit_of_grad():
    w = np.arange(1.0, 10.0)

    def loss(x):
        return np.sum(lu_in_place(x) * w)

    check_transforms(lu_in_place)
    g = ft.jit(ft.grad(loss))
    for r in BATCH:  # the recording, then replays
        np.testing.assert_allclose(g(r.copy()), central_grad(loss, r.copy()), atol=1e-6)


# -- writes into arguments a transform does not transform --------------------------------


def writes_into_its_other_arguments(x, params, xs, buf=None, lst=None):
    params["w"] *= 2.0  # a container of arrays that is not differentiated
    params["b"] = params["b"] + 1.0  # rebinding an entry
    xs[0] += 1.0
    xs[1][0] = 5.0
    buf[:2] = 0.0  # a keyword argument
    buf += 1.0
    lst[0][0] = 9.0
    lst.append(1.0)
    return np.sum(x * params["w"] * xs[0]) + xs[1].sum() + np.sum(x**2) * buf[2]


def test_writes_into_arguments_that_are_not_transformed_leave_the_caller_alone():
    def fresh():
        return {"w": X[:6].copy(), "b": X[:2].copy()}, [X[:6].copy(), X[:6].copy()]

    def run(transform):
        params, xs = fresh()
        buf, lst = np.arange(3.0), [np.arange(3.0)]
        x = BATCH[:, :6].copy() if transform is ft.vmap else X[:6].copy()
        f = writes_into_its_other_arguments
        if transform is ft.vmap:
            got = ft.vmap(f, in_dims=(0, None, None))(x, params, xs, buf=buf, lst=lst)
            want = [f(r, *fresh(), buf=np.arange(3.0), lst=[np.arange(3.0)]) for r in x]
        else:
            got = transform(f)(x, params, xs, buf=buf, lst=lst)
            want = None
        # arrays written in place stay the caller's values; under grad/jacrev/jacfwd the
        # Python-level changes (an entry rebound, an append) are the caller's, as in eager
        # NumPy and jax.grad; vmap and jit, as jax.vmap and jax.jit, give the function
        # copies of the containers (NOTE [writes into argument containers])
        eager = transform not in (ft.vmap, ft.jit)
        np.testing.assert_array_equal(params["w"], X[:6])
        np.testing.assert_array_equal(params["b"], X[:2] + 1.0 if eager else X[:2])
        for a in xs:
            np.testing.assert_array_equal(a, X[:6])
        np.testing.assert_array_equal(buf, np.arange(3.0))
        assert len(lst) == (2 if eager else 1)
        np.testing.assert_array_equal(lst[0], np.arange(3.0))
        return got, want

    got, want = run(ft.vmap)
    np.testing.assert_allclose(got, want)

    def loss(x):
        return writes_into_its_other_arguments(
            x,
            *({"w": X[:6].copy(), "b": X[:2].copy()}, [X[:6].copy(), X[:6].copy()]),
            buf=np.arange(3.0),
            lst=[np.arange(3.0)],
        )

    g = central_grad(loss, X[:6].copy())
    for transform in (ft.grad, ft.jacrev, ft.jacfwd):
        np.testing.assert_allclose(run(transform)[0], g, atol=1e-6)
    h = central_jacobian(lambda z: central_grad(loss, z, 1e-5), X[:6].copy(), 1e-4)
    np.testing.assert_allclose(run(ft.hessian)[0], h, atol=1e-4)
    run(ft.jit)


# -- a written value's leading axes of length 1 ------------------------------------------


def writes_values_with_leading_unit_axes(x):
    m = np.zeros((3, 4))
    m[:, 0] = x[None, :3]  # NumPy drops the value's leading axes of length 1
    m[1] = x[None, None, 4:8] ** 2
    m[[2], 1:] += x[None, 9:12]
    return m.ravel()


def test_written_values_drop_leading_axes_of_length_one():
    check_transforms(writes_values_with_leading_unit_axes)

    def into_one_element(x):
        a = np.zeros(3)
        a[1] = x[None, :1]  # NumPy takes only a 0-d value into one element
        return a

    with pytest.raises(ValueError):
        into_one_element(X.copy())
    for transform in (ft.vmap, ft.jit):
        with pytest.raises(ValueError):
            transform(into_one_element)(BATCH.copy() if transform is ft.vmap else X.copy())


# -- Generator methods that write into an array (NOTE [generators made under a transform])


def draws_into_buffers(x):
    noise = np.empty(12)
    rng = np.random.default_rng(1)
    rng.standard_normal(out=noise)
    scale = np.zeros((3, 4))
    rng.random(out=scale[1])  # a view of a buffer
    rng.standard_exponential(out=scale[2])
    return x * noise + scale.ravel()


def draws_into_a_traced_array(x):
    m = np.asfortranarray(x.reshape(3, 4) * 1.0)  # NumPy fills out's memory in order
    rng = np.random.default_rng(2)
    rng.random(out=m)
    rng.standard_gamma(2.0, out=m[:, 1])
    return m.ravel() * x


def shuffles_along_an_axis(x):
    m = x.reshape(3, 4) * 1.0
    rng = np.random.default_rng(3)
    rng.shuffle(m, axis=1)
    rng.permuted(m, axis=0, out=m)
    return m.ravel()


@pytest.mark.parametrize(
    "f", [draws_into_buffers, draws_into_a_traced_array, shuffles_along_an_axis]
)
def test_generators_made_in_the_function_write_into_traced_arrays_and_buffers(f):
    check_transforms(f)


def test_generator_out_keeps_numpys_checks_and_class_outside():
    assert type(np.random.default_rng(0)) is np.random.Generator

    def wrong_dtype(x):
        np.random.default_rng(0).random(out=np.empty(3, np.float32))
        return x

    with pytest.raises(TypeError, match="Supplied output array has the wrong type"):
        ft.grad(lambda x: wrong_dtype(x).sum())(X.copy())


def test_buffers_made_in_fortran_order_have_numpys_layout():
    def probe(x):
        f = np.zeros((3, 4), order="F")
        f[0] = x[:4]
        r = f.reshape(-1)  # a copy: f is not C-contiguous
        r[0] = 5.0
        k = f.ravel("K")  # a view: f's memory order
        k[1] = 7.0
        t = f.T.reshape(-1)  # a view: f.T is C-contiguous
        t[2] = 9.0
        flags = (f.flags.f_contiguous, f.flags.c_contiguous, f.T.flags.c_contiguous)
        return f.ravel(), (f.strides, f.T.strides, f[1].strides) + flags

    want_value, want_layout = probe(X.copy())
    seen = []

    def f(x):
        value, lay = probe(x)
        seen.append(lay)
        return value

    check_transforms(f)
    assert seen and all(s == want_layout for s in seen)
    np.testing.assert_allclose(ft.vmap(f)(BATCH.copy())[0], want_value)


def test_like_arrays_of_a_fortran_ordered_array_are_fortran_ordered():
    def f(x):
        a = np.zeros((3, 4), order="F")
        b = np.zeros_like(a)  # order='K': NumPy lays it out as a
        b[1] = x[:4]
        c = np.full_like(x.reshape(3, 4).T, 2.0)  # of a traced Fortran-ordered view
        c[0] = x[4:7]
        return np.concatenate([b.ravel("K"), c.ravel("K"), np.ones_like(b, order="C").ravel("K")])

    check_transforms(f)
