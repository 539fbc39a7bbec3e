"""JAX users' programs, round 14 (``import ftransforms as jax``), compared with JAX (x64).
Each test failed before the change it names:

* ``lax.top_k`` ranks floats in XLA's total order, as JAX: ``NaN`` above ``inf``, ``0.0``
  above ``-0.0``, a negative ``NaN`` below ``-inf`` (NaNs were ranked last: a beam search
  or a top-k mask over scores holding a NaN silently picked other entries, and the
  gradient went to them), and it takes JAX's ``axis=``;
* ``lax.conv_general_dilated`` (and ``lax.conv``...) of integer operands is an integer
  convolution, as JAX (it came back ``float64``: ``ft.nn.conv2d``'s torch-style float
  promotion), and ``preferred_element_type`` is the type it computes in;
* ``x.at[i].max(v)``/``.min(v)`` with a repeated ``i`` share the derivative evenly among
  all the tied entries, as JAX (one ``maximum`` after another gave 1/2, 1/4, 1/8: a
  silently wrong gradient);
* ``jax.ops.segment_sum``/``segment_prod``/``segment_max``/``segment_min`` exist, as
  ``ft.ops.*`` (``AttributeError``);
* ``jit(f).trace(*args)`` exists (``jax.stages.Traced``: ``.jaxpr``, ``.out_info``,
  ``.lower()``), and a recorded equation has JAX's ``.primitive`` (``AttributeError``);
* ``import ftransforms.lax.linalg`` works, as ``import jax.lax.linalg`` (``ModuleNotFoundError``);
* ``ftransforms.experimental.io_callback`` exists (``ImportError``);
* ``lax.cumsum``/``cumprod``/``reduce_sum``/``reduce_prod`` and ``lax.reduce``/
  ``reduce_window`` with ``lax.add``/``mul`` keep an integer operand's type, wrapping
  around as JAX's (NumPy's accumulator widened ``int8``/``uint8``/``int32`` to 64 bits:
  another dtype and, past the type's range, other values);
* ``jnp.pad(..., mode="reflect"/"symmetric", reflect_type="odd")`` is supported
  (``UnsupportedOperationError``);
* NumPy's arrays and scalars (what every transform returns) have JAX's
  ``block_until_ready()``, returning themselves (``AttributeError``);
* ``lax.reduce_window`` takes a tuple of operands and of init values with a computation
  on tuples, as JAX's (``UnsupportedOperationError``);
* ``lax.slice``/``slice_in_dim`` refuse limits past the axis, negative starts and
  non-positive strides with ``DimensionNumbersError`` (a ``TypeError``, as JAX's), and
  ``index_in_dim`` an index out of range with ``IndexError`` (NumPy's slicing clamped or
  wrapped them silently).
"""

from __future__ import annotations

import warnings

import jax
import numpy as np
import pytest

import ftransforms as ft
from tests.program_oracles import jax_call

jax.config.update("jax_enable_x64", True)

SCORES = np.array([3.0, -np.nan, np.nan, 1.0, -np.inf, np.inf, -0.0, 0.0, 3.0])


@pytest.mark.parametrize("dtype", [np.float64, np.float16])
def test_top_k_ranks_nan_and_signed_zero_like_jax(dtype):
    x = SCORES.astype(dtype)
    w = np.arange(1.0, 5.0)
    rows = np.stack([SCORES, SCORES[::-1]])

    def program(lax, grad, vmap, x, rows):
        # the gradient goes to the entries JAX picks; under vmap each row ranks its own NaNs
        pick = lambda v: (lax.top_k(v, 4)[0][1:] * w[1:]).sum()  # noqa: E731
        return (*lax.top_k(x, 9), grad(pick)(rows[0]), vmap(lambda v: lax.top_k(v, 3)[1])(rows))

    want = jax_call(lambda *a: program(jax.lax, jax.grad, jax.vmap, *a), x, rows)
    jitted = ft.jit(lambda v: ft.lax.top_k(v, 9))(x)
    for got in [program(ft.lax, ft.grad, ft.vmap, x, rows), jitted]:
        for g, w_ in zip(got, want):
            np.testing.assert_array_equal(g, w_)
        np.testing.assert_array_equal(np.signbit(got[0]), np.signbit(want[0]))


def test_top_k_axis_and_bool_like_jax():
    x = np.array([[1.0, 5.0, np.nan], [3.0, 2.0, -1.0]])
    b = np.array([True, False, True, False])

    def program(lax, x, b):
        return [*(lax.top_k(x, 1, axis=axis) for axis in (0, 1, -2)), lax.top_k(b, 3)]

    for got, want in zip(program(ft.lax, x, b), jax_call(lambda *a: program(jax.lax, *a), x, b)):
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)


CONV_X = (np.arange(2 * 3 * 5 * 4).reshape(2, 3, 5, 4) % 23 - 11).astype(np.int8)
CONV_W = (np.arange(4 * 3 * 3 * 2).reshape(4, 3, 3, 2) % 7 - 3).astype(np.int8)


@pytest.mark.parametrize(("dtype", "preferred"), [(np.int32, None), (np.int8, np.int32)])
def test_integer_convolutions_keep_jax_s_dtype(dtype, preferred):
    # a quantized layer: lax.conv of integer operands is an integer convolution (it came
    # back float64), and preferred_element_type is the type it accumulates in (int8
    # operands with int32 do not wrap)
    x, w = CONV_X.astype(dtype), CONV_W.astype(dtype)
    kw = {"preferred_element_type": preferred}
    conv = lambda lax: lambda x, w: lax.conv_general_dilated(x, w, (2, 1), [(1, 0), (0, 2)], **kw)  # noqa: E731
    want = np.asarray(jax_call(conv(jax.lax), x, w))
    got = conv(ft.lax)(x, w)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


AT_INDEX = np.array([0, 0, 0, 1])


@pytest.mark.parametrize("method", ["max", "min"])
def test_at_max_min_share_the_derivative_evenly_among_ties_like_jax(method):
    # x.at[i].max(v) with a repeated i: JAX gives every tied entry (the old element too)
    # the same share; one maximum after another halved it (1/2, 1/4, 1/8: silently wrong)
    sign = 1.0 if method == "max" else -1.0
    old, upd = sign * np.array([2.0, 0.0]), sign * np.array([2.0, 2.0, 2.0, 1.0])

    def loss(lib):
        return lambda o, v: (getattr(lib.asarray(o).at[AT_INDEX], method)(v) * 3.0).sum()

    def oracle(o, v):
        return jax.grad(loss(jax.numpy), argnums=(0, 1))(o, v), loss(jax.numpy)(o, v)

    want_g, want_v = jax_call(oracle, old, upd)
    for transform in (ft.grad, ft.jacfwd):
        got = transform(loss(ft.numpy), argnums=(0, 1))(old, upd)
        for g, w in zip(got, want_g):
            np.testing.assert_allclose(g, w, rtol=1e-15)
    assert loss(ft.numpy)(old, upd) == want_v


SEG_IDS = np.array([0, 2, 2, 1, 0, 5, 2, -1])
SEG_DATA = np.array([1.0, 2.0, 2.0, 3.0, -1.0, 5.0, 2.0, 9.0])


@pytest.mark.parametrize("name", ["segment_sum", "segment_prod", "segment_max", "segment_min"])
def test_jax_ops_segment_reductions(name):
    # a graph network's message passing: ids out of range (5, -1) are dropped, empty
    # segments hold the identity, ties share the derivative, as JAX's
    ours, theirs = getattr(ft.ops, name), getattr(jax.ops, name)
    data_2d, rows = np.stack([SEG_DATA, -SEG_DATA], 1), np.stack([SEG_DATA, SEG_DATA[::-1]])
    loss = lambda f: lambda d: (f(d, SEG_IDS, 4) ** 2).sum()  # noqa: E731

    def program(f, grad, vmap, data, data_int, data_2d, rows):
        return (
            f(data, SEG_IDS, 4),
            f(data_int, SEG_IDS, 4),
            f(data_2d, SEG_IDS, 4),
            f(data, SEG_IDS, 3, mode="clip"),
            f(data[:5], SEG_IDS[:5], 3),
            # JAX: scatter_mul gradients need unique indices
            data if name == "segment_prod" else grad(loss(f))(data),
            vmap(lambda d: f(d, SEG_IDS, 4))(rows),
        )

    args = (SEG_DATA, SEG_DATA.astype(np.int32), data_2d, rows)
    want = jax_call(lambda *a: program(theirs, jax.grad, jax.vmap, *a), *args)
    got = program(ours, ft.grad, ft.vmap, *args)
    assert ours(SEG_DATA[:5], SEG_IDS[:5]).shape == (3,)  # max(segment_ids) + 1
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-15)


def test_segment_reductions_refuse_what_jax_refuses():
    with pytest.raises(TypeError, match="segment_ids must be integers"):
        ft.ops.segment_sum(SEG_DATA, SEG_IDS.astype(float), 4)
    with pytest.raises(ValueError, match="one entry per row of data"):
        ft.ops.segment_sum(SEG_DATA, SEG_IDS[:3], 4)
    with pytest.raises(TypeError, match="bool"):
        ft.ops.segment_sum(SEG_DATA > 0, SEG_IDS, 4)


def test_jit_trace_like_jax_stages():
    # jax.jit(f).trace(*args): the traced program, its output types, then .lower().compile()
    def program(lib):
        def step(x, n):
            return lib.sin(x) * n, x.sum()

        return step

    args = (np.linspace(0.0, 1.0, 3, dtype=np.float32), 2)
    want = jax.jit(program(jax.numpy), static_argnums=1).trace(*args)
    step = program(ft.numpy)
    traced = ft.jit(step, static_argnums=1).trace(*args)
    assert traced.out_info == tuple(ft.ShapeDtypeStruct(s.shape, s.dtype) for s in want.out_info)
    assert traced.fun_name == want.fun_name == "step"
    assert [e.primitive.name for e in traced.jaxpr.eqns][:2] == ["sin", "multiply"]
    got = traced.lower().compile()(args[0])
    for g, w in zip(got, want.lower().compile()(args[0])):
        np.testing.assert_allclose(g, w, rtol=1e-6)
    abstract = ft.jit(step, static_argnums=1).trace(ft.ShapeDtypeStruct((3,), np.float32), 2)
    assert abstract.out_info == traced.out_info
    with pytest.raises(ft.errors.UnsupportedOperationError, match="trace it with arrays"):
        abstract.jaxpr  # noqa: B018


def test_import_lax_linalg_as_jax_code_spells_it():
    # `import jax.lax.linalg as lax_linalg` ported: ModuleNotFoundError ('ftransforms.lax'
    # is not a package)
    import ftransforms.lax.linalg as lax_linalg  # noqa: PLC0415

    assert lax_linalg is ft.lax.linalg
    a = np.array([[4.0, 2.0], [2.0, 3.0]])
    np.testing.assert_allclose(lax_linalg.cholesky(a), np.linalg.cholesky(a), rtol=1e-15)


def test_io_callback_like_jax_experimental():
    # a training loop logging through jax.experimental.io_callback: (AttributeError)
    from ftransforms.experimental import io_callback  # noqa: PLC0415

    seen = []

    def log(v):
        seen.append(float(v))
        return np.asarray(v) * 2.0

    out = ft.ShapeDtypeStruct((), np.float64)
    xs = np.array([1.0, 2.0, 3.0])
    # vmap: one call per row, in order (as JAX's unordered io_callback)
    np.testing.assert_array_equal(ft.vmap(lambda v: io_callback(log, out, v))(xs), 2 * xs)
    assert seen == [1.0, 2.0, 3.0]
    # jit: called on every call, its result unused or not; a scan body once per step
    seen.clear()
    step = ft.jit(lambda v: (io_callback(log, out, v), v * 2.0)[1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # jit runs it eagerly
        assert [float(step(v)) for v in xs] == [2.0, 4.0, 6.0]
        total, _ = ft.jit(
            lambda xs: ft.scan(lambda c, x: (c + io_callback(log, out, x), None), 0.0, xs)
        )(xs)
    assert seen == [1.0, 2.0, 3.0] * 2 and float(total) == 12.0
    with pytest.raises(ft.errors.UnsupportedOperationError, match="ordered"):
        ft.vmap(lambda v: io_callback(log, out, v, ordered=True))(xs)
    with pytest.raises(ft.errors.CallbackError, match="do not support JVP"):
        ft.grad(lambda v: io_callback(log, out, v))(1.0)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32])
def test_lax_sums_and_products_of_integers_keep_their_type_like_jax(dtype):
    # an 8-bit image's lax.reduce_sum / lax.cumsum: JAX accumulates in the operand's type
    # (wrapping around); NumPy's sum widened to int64/uint64, other values and dtype
    x = np.array([[100, 100, 100, 3], [120, 7, 127, 90]]).astype(dtype)

    def program(lax, x):
        return (
            lax.cumsum(x, 1),
            lax.cumsum(x, 1, reverse=True),
            lax.cumprod(x, 1),
            lax.reduce_sum(x, (0, 1)),
            lax.reduce_prod(x, (1,)),
            lax.reduce(x, 0, lax.add, (1,)),
            lax.reduce_window(x, 0, lax.add, (1, 2), (1, 1), "VALID"),
        )

    for got, want in zip(program(ft.lax, x), jax_call(lambda x: program(jax.lax, x), x)):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_pad_reflect_type_odd_like_jax():
    # signal-processing code padding with jnp.pad(..., reflect_type="odd") (it raised)
    x = np.array([[0.3, -1.2, 2.0, 0.7], [1.5, -0.1, 0.2, 3.3]])
    widths = ((1, 2), (9, 7))  # wider than the axis: reflected more than once
    weights = np.arange(1.0, 21.0)

    def program(jnp, grad, x):
        outs = []
        for mode in ("reflect", "symmetric"):
            pad = lambda a, m=mode: jnp.pad(a, widths, mode=m, reflect_type="odd")  # noqa: E731
            outs += [pad(x), grad(lambda a, pad=pad: (pad(a) ** 2 * weights).sum())(x)]
        return outs

    want = jax_call(lambda x: program(jax.numpy, jax.grad, x), x)
    for got, w in zip(program(ft.numpy, ft.grad, x), want):
        np.testing.assert_allclose(got, w, rtol=1e-13, atol=1e-13)
    ints = np.array([1, 5, 2], np.int8)
    got = ft.numpy.pad(ints, (4, 4), mode="symmetric", reflect_type="odd")
    np.testing.assert_array_equal(got, np.pad(ints, (4, 4), mode="symmetric", reflect_type="odd"))
    assert got.dtype == np.int8


def test_results_have_block_until_ready_like_jax_arrays():
    # timing code: jitted(x).block_until_ready() and jnp.sum(x).block_until_ready()
    # (AttributeError on NumPy's arrays and scalars)
    x = np.linspace(0.0, 1.0, 4)
    out = ft.jit(lambda a: np.sin(a) * 2.0)(x)
    assert out.block_until_ready() is out
    total = ft.numpy.sum(x)
    assert total.block_until_ready() is total and float(total) == 2.0


def test_reduce_window_of_several_operands_like_jax():
    # an argmax pooling: lax.reduce_window((values, indices), (-inf, -1), pick, ...)
    # (it raised: "one entry per axis of the operand (2)", the tuple read as one array)
    img = np.array([[0.5, 2.0, -1.0, 3.0, 0.1], [1.5, 2.0, 0.0, 4.0, -2.0], [9.0, 0.2, 0, 1, 1]])
    positions = np.arange(15.0).reshape(3, 5)

    def program(lax, jnp, img, positions):
        def pick(a, b):
            take = b[0] > a[0]
            return jnp.where(take, b[0], a[0]), jnp.where(take, b[1], a[1])

        return [
            *lax.reduce_window((img, positions), (-np.inf, -1.0), pick, (2, 2), (1, 2), "SAME"),
            *lax.reduce_window(
                [img, img], [0.0, 1.0], lambda a, b: [a[0] + b[0], a[1] * b[1]], (2, 3), (1, 1),
                [(1, 0), (0, 2)], base_dilation=(1, 2),
            ),
        ]  # fmt: skip

    want = jax_call(lambda *a: program(jax.lax, jax.numpy, *a), img, positions)
    for got, w in zip(program(ft.lax, ft.numpy, img, positions), want):
        np.testing.assert_allclose(got, w, rtol=1e-15)


def test_lax_slice_refuses_what_jax_refuses():
    # lax.slice read out-of-range limits and negative starts with NumPy's slicing (a
    # silently clamped or wrapped slice); JAX raises TypeError, index_in_dim IndexError
    x = np.arange(24.0).reshape(2, 3, 4)
    bad = [((0, 0, 0), (3, 3, 4)), ((-1, 0, 0), (2, 3, 4)), ((1, 0, 0), (0, 3, 4))]
    bad.append(((0, 0), (2, 3)))  # one entry short
    for starts, limits in bad:
        with pytest.raises(ft.errors.DimensionNumbersError, match="lax.slice"):
            ft.lax.slice(x, starts, limits)
    with pytest.raises(TypeError, match="positive stride"):
        ft.lax.slice(x, (0, 0, 0), (2, 3, 4), (1, 0, 1))
    with pytest.raises(TypeError):
        ft.lax.slice_in_dim(x, 0, 5, axis=2)
    with pytest.raises(IndexError, match="out of bounds"):
        ft.lax.index_in_dim(x, -4, axis=1)
    # what JAX accepts is unchanged: negative slice_in_dim bounds count from the end
    np.testing.assert_array_equal(ft.lax.slice_in_dim(x, -4, -1, axis=2), x[:, :, 0:3])
    np.testing.assert_array_equal(ft.lax.slice(x, (0, 1, 0), (2, 3, 4), (1, 1, 3)), x[:, 1:, ::3])
