"""``jax.lax``'s remaining toolbox, round 10, under ``ft.lax``.

Values against plain NumPy (loops that follow XLA's definitions element by element for
gather/scatter and the convolutions), derivatives against central differences in float64
and the inner-product identity <J t, c> = <t, J^T c>, ``vmap`` against the Python loop;
the tests marked slow check the loops and the derivatives against JAX itself (x64), whose
every call compiles (seconds in all).

* ``gather``/``scatter`` with dimension numbers and modes, the scatter family,
  ``index_take`` (NOTE [gather and scatter as flat positions], ``jax_lax_gather.py``);
* convolutions with 3 spatial axes, batch groups, ``conv_transpose``, patches, the layout
  and shape helpers (``jax_lax_conv.py``);
* ``reduce``, ``reduce_xor``, ``mulhi``, ``approx_max_k``, ``ragged_dot``, ``fft``... and
  ``bitcast_convert_type``/``reduce_precision``/``rng_bit_generator`` (``jax_lax_misc.py``);
* ``ppermute``/``psum_scatter``/``all_to_all``/... under ``vmap(axis_name=)``
  (``jax_lax_collectives.py``).
"""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.special

import ftransforms as ft
from ftransforms import lax as L
from ftransforms.core.stack import current_stack
from ftransforms.errors import DimensionNumbersError

jax.config.update("jax_enable_x64", True)
JL = jax.lax
RNG = np.random.default_rng(10)


def close(a, b, tol=1e-12):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


# -- gather ----------------------------------------------------------------------------------
#
# The oracles are NumPy loops that follow XLA's definitions element by element; JAX's own
# gather/scatter (which compiles each call, seconds in all) checks those loops in the slow
# tests at the end of this section.

# (operand shape, indices, gather dimension numbers as a tuple, slice sizes)
GATHERS = [
    ((5, 4), [[3], [0], [7], [-2]], ((1,), (0,), (0,)), (1, 4)),  # x[idx] (rows)
    ((5, 4), [[2], [3]], ((0,), (1,), (1,)), (5, 1)),  # x[:, idx]
    ((5, 4), [[1, 2], [4, 3], [0, 9]], ((), (0, 1), (0, 1)), (1, 1)),  # x[i, j]
    ((6, 5), [[1, 1], [5, 0]], ((1, 2), (), (0, 1)), (2, 3)),  # windows
    ((3, 5), [[[1], [4]], [[0], [2]], [[3], [3]]], ((), (1,), (1,), (0,), (0,)), (1, 1)),
    ((4, 6), [[[1], [0], [3]], [[2], [2], [5]]], ((1,), (0,), (0,)), (1, 6)),  # window between
]
MODES = (None, "clip", "fill", "promise_in_bounds")
FILLS = {"i": lambda dt: np.iinfo(dt).min, "u": lambda dt: np.iinfo(dt).max, "b": lambda dt: True}


def _gdn(t):
    return L.GatherDimensionNumbers(*t), JL.GatherDimensionNumbers(*t)


def _start(x_shape, idx, g, index_map, window, obatch, ibatch):
    """The clamped start of the window of batch position ``g``, and whether it fits."""
    start, fits = [0] * len(x_shape), True
    for k, d in enumerate(index_map):
        s, high = int(idx[(*g, k)]), x_shape[d] - window[d]
        fits &= 0 <= s <= high
        start[d] = min(max(s, 0), high)
    for d, b in zip(obatch, ibatch, strict=True):
        start[d] = g[b]
    return start, fits


def gather_loop(x, idx, t, sizes, mode=None, fill_value=None):
    offset_dims, collapsed, index_map, obatch, ibatch = (*t, (), ())[:5]
    kept = [a for a in range(x.ndim) if a not in collapsed and a not in obatch]
    rank = idx.ndim - 1 + len(kept)
    batch_axes = [a for a in range(rank) if a not in offset_dims]
    shape = [0] * rank
    for a, n in zip(batch_axes, idx.shape[:-1], strict=True):
        shape[a] = n
    for a, d in zip(offset_dims, kept, strict=True):
        shape[a] = sizes[d]
    if fill_value is None:
        fill_value = FILLS.get(x.dtype.kind, lambda dt: np.nan)(x.dtype)
    out = np.empty(shape, x.dtype)
    for o in np.ndindex(*shape):
        g = tuple(o[a] for a in batch_axes)
        start, fits = _start(x.shape, idx, g, index_map, sizes, obatch, ibatch)
        for a, d in zip(offset_dims, kept, strict=True):
            start[d] += o[a]
        out[o] = x[tuple(start)] if fits or mode != "fill" else fill_value
    return out


def test_gather_values_and_modes_are_the_loop():
    for shape, idx, t, sizes in GATHERS:
        x, idx = RNG.normal(size=shape), np.array(idx)
        dn = L.GatherDimensionNumbers(*t)
        for mode in MODES:
            close(L.gather(x, idx, dn, sizes, mode=mode), gather_loop(x, idx, t, sizes, mode))
        close(
            L.gather(x, idx, dn, sizes, mode="fill", fill_value=0.5),
            gather_loop(x, idx, t, sizes, "fill", 0.5),
        )
    t = ((1,), (), (0,))
    for dt in (np.int32, np.uint8, np.bool_, np.complex128):  # the default fill values
        x, i = np.arange(10).astype(dt), np.array([[9], [1]])
        close(
            L.gather(x, i, L.GatherDimensionNumbers(*t), (3,), mode="fill"),
            gather_loop(x, i, t, (3,), "fill"),
        )


def _check_derivatives(f, *args):
    """jvp against a central difference, vjp against jvp (<J t, c> = <t, J^T c>)."""
    ts = [RNG.normal(size=np.shape(a)) for a in args]
    out, jt = ft.jvp(f, tuple(args), tuple(ts))
    shifted = [f(*(a + s * 1e-6 * t for a, t in zip(args, ts, strict=True))) for s in (1, -1)]
    close(jt, (shifted[0] - shifted[1]) / 2e-6, 1e-7)
    c = RNG.normal(size=np.shape(out))
    bars = ft.vjp(f, *args)[1](c)
    np.testing.assert_allclose(
        np.vdot(jt, c), sum(np.vdot(t, b) for t, b in zip(ts, bars, strict=True)), rtol=1e-12
    )


def test_gather_derivatives_vmap_and_jit():
    shape, _, t, sizes = GATHERS[3]
    dn = L.GatherDimensionNumbers(*t)
    xs = RNG.normal(size=(3, *shape))
    idxs = RNG.integers(-1, 6, size=(3, 2, 2))  # windows that do not fit: filled

    def f(x, i):
        return L.gather(x, i, dn, sizes, mode="fill", fill_value=-1.0)

    _check_derivatives(lambda x: f(x, idxs[0]), xs[0])
    loop = np.stack([f(x, i) for x, i in zip(xs, idxs, strict=True)])
    close(ft.vmap(f)(xs, idxs), loop)
    close(ft.vmap(f, in_dims=(None, 0))(xs[0], idxs), np.stack([f(xs[0], i) for i in idxs]))
    # grad of a vmapped gather with batched indices (ints are not differentiated)
    g = ft.grad(lambda x: ft.vmap(lambda i: f(x, i))(idxs).sum())(xs[0])
    close(g, sum(ft.grad(lambda x, i=i: f(x, i).sum())(xs[0]) for i in idxs))
    jf = ft.jit(f)
    close(jf(xs[0], idxs[0]), loop[0])
    close(jf(xs[1], idxs[1]), loop[1])


def test_index_take_is_numpy_indexing():
    x = RNG.normal(size=(3, 4, 5))
    i, j = np.array([0, 2, -1]), np.array([1, 7, 3])
    close(L.index_take(x, (i, j), (0, 2)), np.stack([x[a % 3, :, b % 5] for a, b in zip(i, j)]))


def test_gather_errors_name_the_mismatch():
    dn, _ = _gdn(((1,), (0,), (0,)))
    with pytest.raises(DimensionNumbersError, match="index vectors have 2 entries"):
        L.gather(np.ones((3, 4)), np.zeros((2, 2), int), dn, (1, 4))
    with pytest.raises(DimensionNumbersError, match="slice_sizes"):
        L.gather(np.ones((3, 4)), np.zeros((2, 1), int), dn, (1,))
    with pytest.raises(DimensionNumbersError, match="size 1"):
        L.gather(np.ones((3, 4)), np.zeros((2, 1), int), dn, (2, 4))
    assert not current_stack()


# -- scatter -------------------------------------------------------------------------------

# (operand shape, indices, scatter dimension numbers as a tuple, updates shape)
SCATTERS = [
    ((6,), [[1], [4], [1], [9], [-3]], ((), (0,), (0,)), (5,)),  # x.at[i] with repeats
    ((5, 3), [[0], [3], [4]], ((1,), (0,), (0,)), (3, 3)),  # rows
    ((6, 5), [[1, 1], [4, 3], [3, 3]], ((1, 2), (), (0, 1)), (3, 2, 2)),  # windows
    ((3, 5), [[[1], [4]], [[0], [2]], [[3], [3]]], ((), (1,), (1,), (0,), (0,)), (3, 2)),
]
KINDS = {
    "scatter": (L.scatter, JL.scatter, lambda old, new: new),
    "scatter_add": (L.scatter_add, JL.scatter_add, lambda old, new: old + new),
    "scatter_sub": (L.scatter_sub, JL.scatter_sub, lambda old, new: old - new),
    "scatter_mul": (L.scatter_mul, JL.scatter_mul, lambda old, new: old * new),
    "scatter_min": (L.scatter_min, JL.scatter_min, min),
    "scatter_max": (L.scatter_max, JL.scatter_max, max),
}


def _sdn(t):
    return L.ScatterDimensionNumbers(*t), JL.ScatterDimensionNumbers(*t)


def scatter_loop(x, idx, u, t, combine, mode=None):
    """The updates applied one after the other, in order (the last ``set`` wins)."""
    window_dims, inserted, index_map, obatch, ibatch = (*t, (), ())[:5]
    kept = [a for a in range(x.ndim) if a not in inserted and a not in obatch]
    scatter_axes = [a for a in range(u.ndim) if a not in window_dims]
    window = [1] * x.ndim
    for a, d in zip(window_dims, kept, strict=True):
        window[d] = u.shape[a]
    out = x.copy()
    for e in np.ndindex(*u.shape):
        g = tuple(e[a] for a in scatter_axes)
        start, fits = _start(x.shape, idx, g, index_map, window, obatch, ibatch)
        if not fits and mode != "clip":
            continue  # the window is dropped
        for a, d in zip(window_dims, kept, strict=True):
            start[d] += e[a]
        out[tuple(start)] = combine(out[tuple(start)], u[e])
    return out


def test_scatter_family_values_and_modes_are_the_loop():
    for shape, idx, t, ushape in SCATTERS:
        x, idx, u = RNG.normal(size=shape), np.array(idx), RNG.normal(size=ushape)
        dn = L.ScatterDimensionNumbers(*t)
        for ours, _, combine in KINDS.values():
            for mode in (None, "clip", "drop", "promise_in_bounds"):
                close(ours(x, idx, u, dn, mode=mode), scatter_loop(x, idx, u, t, combine, mode))


def test_scatter_derivatives_batched_indices_and_jit():
    _, idx, t, ushape = SCATTERS[2]
    dn = L.ScatterDimensionNumbers(*t)
    x, u = RNG.normal(size=(6, 5)), RNG.normal(size=ushape)
    for name in ("scatter", "scatter_add", "scatter_mul", "scatter_max"):
        _check_derivatives(lambda x, u, f=KINDS[name][0]: f(x, np.array(idx), u, dn), x, u)
    dn, t = L.ScatterDimensionNumbers(*SCATTERS[0][2]), SCATTERS[0][2]
    xs, us = RNG.normal(size=(4, 6)), RNG.normal(size=(4, 5))
    idxs = RNG.integers(-2, 8, size=(4, 5, 1))  # repeats and out-of-bounds rows
    for name in ("scatter", "scatter_add", "scatter_min", "scatter_max", "scatter_mul"):
        ours, _, combine = KINDS[name]
        with warnings.catch_warnings():  # one batched program: the batch is not split
            warnings.simplefilter("error", ft.errors.PerformanceWarning)
            got = ft.vmap(lambda x, i, u, ours=ours: ours(x, i, u, dn))(xs, idxs, us)
        loop = np.stack(
            [scatter_loop(x, i, u, t, combine) for x, i, u in zip(xs, idxs, us, strict=True)]
        )
        close(got, loop)
        # the jit-recorded program (traced indices) gives the same
        close(ft.jit(lambda x, i, u, ours=ours: ours(x, i, u, dn))(xs[0], idxs[0], us[0]), loop[0])
    # per-example gradients of a scatter_add are the loop of gradients
    g = ft.vmap(ft.grad(lambda u, i: (L.scatter_add(xs[0], i, u, dn) ** 2).sum()))(us, idxs)
    loop = [
        ft.grad(lambda u: (L.scatter_add(xs[0], i, u, dn) ** 2).sum())(u) for u, i in zip(us, idxs)
    ]
    close(g, np.stack(loop))


def test_scatter_apply_is_the_loop():
    x = RNG.normal(size=(6,))
    dn = L.ScatterDimensionNumbers((), (0,), (0,))
    t = ((), (0,), (0,))
    for idx in (np.array([[1], [4], [9]]), np.array([[2], [2], [0]])):
        for mode in (None, "clip"):
            close(
                L.scatter_apply(x, idx, ft.numpy.sin, dn, update_shape=(3,), mode=mode),
                scatter_loop(x, idx, np.zeros(3), t, lambda old, _: np.sin(old), mode),
            )
    # the derivative is cos at the hit positions (JAX does not differentiate scatter_apply)
    hit = np.array([[1], [4]])
    g = ft.grad(lambda x: L.scatter_apply(x, hit, ft.numpy.sin, dn, update_shape=(2,)).sum())(x)
    close(g, np.where(np.isin(np.arange(6), hit), np.cos(x), 1.0))


def test_scatter_errors_name_the_mismatch():
    dn, _ = _sdn(((1,), (0,), (0,)))
    with pytest.raises(DimensionNumbersError, match="window size 4 on operand axis 1 does not fit"):
        L.scatter_add(np.ones((5, 3)), np.zeros((2, 1), int), np.ones((2, 4)), dn)
    with pytest.raises(DimensionNumbersError, match="rank"):
        L.scatter_add(np.ones((5, 3)), np.zeros((2, 1), int), np.ones(2), dn)
    assert not current_stack()


@pytest.mark.slow
def test_gather_scatter_loops_and_derivatives_match_jax():
    """The loops above against JAX's gather/scatter, and the derivatives against jax.vjp."""
    gathers = [(RNG.normal(size=c[0]), np.array(c[1]), *_gdn(c[2]), c[3]) for c in GATHERS]
    scatters = [
        (RNG.normal(size=c[0]), np.array(c[1]), *_sdn(c[2]), RNG.normal(size=c[3]))
        for c in SCATTERS
    ]
    cots = [RNG.normal(size=L.gather(x, i, d, n).shape) for x, i, d, _, n in gathers]

    def theirs(gx, sx, su):
        out = [
            JL.gather(x, i, jd, n, mode=m)
            for x, (_, i, _, jd, n) in zip(gx, gathers)
            for m in MODES
        ]
        out += [
            jax.vjp(lambda x, i=i, jd=jd, n=n: JL.gather(x, i, jd, n, mode="fill"), x)[1](c)[0]
            for x, (_, i, _, jd, n), c in zip(gx, gathers, cots)
        ]
        out += [
            f(x, i, u, jd, mode=m)
            for x, u, (_, i, _, jd, _) in zip(sx, su, scatters)
            for _, f, _ in KINDS.values()
            for m in (None, "clip")
        ]
        return out

    ours = [L.gather(x, i, d, n, mode=m) for x, i, d, _, n in gathers for m in MODES]
    ours += [
        ft.vjp(lambda x, i=i, d=d, n=n: L.gather(x, i, d, n, mode="fill"), x)[1](c)[0]
        for (x, i, d, _, n), c in zip(gathers, cots, strict=True)
    ]
    ours += [
        f(x, i, u, d, mode=m)
        for x, i, d, _, u in scatters
        for f, _, _ in KINDS.values()
        for m in (None, "clip")
    ]
    got = jax.jit(theirs)(
        [g[0] for g in gathers], [s[0] for s in scatters], [s[4] for s in scatters]
    )
    for a, b in zip(ours, got, strict=True):
        close(a, b)
    x, idx, u = RNG.normal(size=(5, 3)), np.array([[0], [3]]), RNG.normal(size=(2, 3))
    dn, jdn = _sdn(SCATTERS[1][2])
    c = RNG.normal(size=x.shape)
    for name in ("scatter", "scatter_add", "scatter_mul", "scatter_max"):
        ours, theirs_f, _ = KINDS[name]
        a = ft.vjp(lambda x, u, f=ours: f(x, idx, u, dn), x, u)[1](c)
        b = jax.vjp(lambda x, u, f=theirs_f: f(x, idx, u, jdn, unique_indices=True), x, u)[1](c)
        close(a[0], b[0])
        close(a[1], b[1])
    x = RNG.normal(size=(3, 4, 5))
    idxs = (np.array([0, 2, -1]), np.array([1, 7, 3]))
    close(L.index_take(x, idxs, (0, 2)), JL.index_take(x, idxs, (0, 2)))


# -- convolutions --------------------------------------------------------------------------


def _conv_loop(x, w, strides, pads, ldil=None, rdil=None, groups=1):
    """A NumPy oracle in the NC.../OI... layout: dilate, pad (negative crops), then one
    dot product per output position, written as loops over the kernel's offsets."""
    nsp = x.ndim - 2
    ldil, rdil = ldil or (1,) * nsp, rdil or (1,) * nsp
    for a, d in enumerate(ldil):  # zeros between the entries
        shape = list(x.shape)
        shape[2 + a] = (shape[2 + a] - 1) * d + 1
        spread = np.zeros(shape)
        index = [slice(None)] * x.ndim
        index[2 + a] = slice(None, None, d)
        spread[tuple(index)] = x
        x = spread
    for a, (lo, hi) in enumerate(pads):
        widths = [(0, 0)] * x.ndim
        widths[2 + a] = (max(lo, 0), max(hi, 0))
        x = np.pad(x, widths)
        index = [slice(None)] * x.ndim
        index[2 + a] = slice(max(-lo, 0), x.shape[2 + a] - max(-hi, 0))
        x = x[tuple(index)]
    span = [(k - 1) * d + 1 for k, d in zip(w.shape[2:], rdil)]
    out_sp = [(n - s_) // st + 1 for n, s_, st in zip(x.shape[2:], span, strides)]
    o, cg = w.shape[:2]
    out = np.zeros((x.shape[0], o, *out_sp))
    for offset in np.ndindex(*w.shape[2:]):
        index = tuple(
            slice(k * d, k * d + (n - 1) * st + 1, st)
            for k, d, n, st in zip(offset, rdil, out_sp, strides)
        )
        window = x[(slice(None), slice(None), *index)]  # (N, C, *out)
        for g in range(groups):
            wg = w[(slice(g * (o // groups), (g + 1) * (o // groups)), slice(None), *offset)]
            xg = window[:, g * cg : (g + 1) * cg]
            out[:, g * (o // groups) : (g + 1) * (o // groups)] += np.einsum(
                "oc,nc...->no...", wg, xg
            )
    return out


def test_conv_3d_matches_a_numpy_loop():
    x, w = RNG.normal(size=(2, 6, 5, 4, 3)), RNG.normal(size=(3, 2, 2, 3, 4))  # NDHWC, DHWIO
    dn = ("NDHWC", "DHWIO", "NDHWC")
    xc, wc = x.transpose(0, 4, 1, 2, 3), w.transpose(4, 3, 0, 1, 2)

    def back(y):
        return y.transpose(0, 2, 3, 4, 1)

    close(
        L.conv_general_dilated(
            x, w, (2, 1, 1), "SAME", rhs_dilation=(1, 2, 1), dimension_numbers=dn
        ),
        back(_conv_loop(xc, wc, (2, 1, 1), [(0, 1), (1, 1), (0, 1)], rdil=(1, 2, 1))),  # SAME
    )
    pads = [(1, 0), (2, -1), (0, 1)]
    close(
        L.conv_general_dilated(x, w, (1, 1, 1), pads, lhs_dilation=(2, 1, 2), dimension_numbers=dn),
        back(_conv_loop(xc, wc, (1, 1, 1), pads, ldil=(2, 1, 2))),
    )
    wg = RNG.normal(size=(6, 1, 2, 2, 1))  # OIDHW, 3 groups
    close(
        L.conv_general_dilated(xc, wg, (1, 2, 1), "VALID", feature_group_count=3),
        _conv_loop(xc, wg, (1, 2, 1), [(0, 0)] * 3, groups=3),
    )


def test_conv_transpose_is_the_adjoint_of_the_loop_convolution():
    # transpose_kernel=True makes conv_transpose the adjoint of the strided convolution:
    # <conv(x, w), c> = <x, conv_transpose(c, w)> for every x and c
    for shape, k, strides, padding, pads in [
        ((2, 3, 8, 6), (4, 3, 3, 2), (2, 2), "SAME", [(0, 1), (0, 0)]),
        ((1, 2, 7, 7), (3, 2, 3, 3), (2, 1), "VALID", [(0, 0), (0, 0)]),
        ((1, 2, 6, 4, 4), (3, 2, 2, 3, 1), (2, 1, 2), "SAME", [(0, 0), (1, 1), (0, 0)]),
    ]:
        x, w = RNG.normal(size=shape), RNG.normal(size=k)
        y = _conv_loop(x, w, strides, pads)
        c = RNG.normal(size=y.shape)
        layout = "NC" + "DHW"[3 - len(strides) :]
        dn = (layout, "OI" + layout[2:], layout)
        xt = L.conv_transpose(c, w, strides, padding, dimension_numbers=dn, transpose_kernel=True)
        assert xt.shape == x.shape
        np.testing.assert_allclose(np.vdot(y, c), np.vdot(x, xt), rtol=1e-12)
        close(L.conv_general_dilated(x, w, strides, padding, dimension_numbers=dn), y)


def test_input_dilated_convolutions_are_the_loop():
    # the transposed-convolution path (pads within the kernel's span) and the padded one
    for ldil, rdil, pads, groups in [
        ((2, 3), (1, 2), [(1, 2), (0, 3)], 1),
        ((3, 1), (2, 1), [(4, -1), (1, 0)], 2),
        ((2, 2), (1, 1), [(0, 0), (1, 1)], 2),
    ]:
        x, w = RNG.normal(size=(2, 4, 3, 4)), RNG.normal(size=(6, 4 // groups, 2, 3))
        out = L.conv_general_dilated(x, w, (1, 1), pads, ldil, rdil, feature_group_count=groups)
        close(out, _conv_loop(x, w, (1, 1), pads, ldil, rdil, groups))
        _check_derivatives(
            lambda x, w, a=(ldil, rdil): L.conv_general_dilated(
                x, w, (1, 1), pads, *a, feature_group_count=groups
            ),
            x,
            w,
        )
    x1, w1 = RNG.normal(size=(2, 3, 5)), RNG.normal(size=(2, 3, 2))
    close(
        L.conv_general_dilated(x1, w1, (1,), [(1, 1)], (2,)),
        _conv_loop(x1, w1, (1,), [(1, 1)], (2,)),
    )
    # a kernel larger than the padded input: an empty result, as JAX's
    assert L.conv_general_dilated(x1, RNG.normal(size=(2, 3, 7)), (1,), "VALID").shape == (2, 2, 0)


def test_patches_and_batch_groups_are_loops():
    x = RNG.normal(size=(2, 3, 5, 4))
    p = L.conv_general_dilated_patches(x, (2, 3), (1, 2), "VALID")
    want = np.zeros((2, 3 * 6, 4, 1))
    for c, ki, kj, i, j in np.ndindex(3, 2, 3, 4, 1):
        want[:, c * 6 + ki * 3 + kj, i, j] = x[:, c, i + ki, 2 * j + kj]
    close(p, want)
    xb, wb = RNG.normal(size=(4, 3, 5, 5)), RNG.normal(size=(6, 3, 2, 2))
    out = L.conv_general_dilated(xb, wb, (1, 1), "VALID", batch_group_count=2)
    halves = [
        _conv_loop(xb[2 * g : 2 * g + 2], wb[3 * g : 3 * g + 3], (1, 1), [(0, 0)] * 2)
        for g in range(2)
    ]
    close(out, np.concatenate(halves, axis=1))


@pytest.mark.slow
def test_conv_transpose_patches_batch_groups_match_jax():
    xt, wt = RNG.normal(size=(2, 4, 5, 3)), RNG.normal(size=(3, 3, 3, 4))
    xb, wb = RNG.normal(size=(4, 3, 5, 5)), RNG.normal(size=(6, 3, 2, 2))

    def calls(lax, xt, wt, xb, wb):
        return [
            lax.conv_general_dilated(xb, wb, (1, 1), "VALID", batch_group_count=2),
            lax.conv_transpose(xt, wt, (2, 1), "SAME", rhs_dilation=(1, 2)),
            lax.conv_transpose(xt, wt, (2, 2), "VALID"),
            lax.conv_transpose(
                xt, wt[..., :3, :3], (2, 2), [(1, 2), (0, 1)], transpose_kernel=True
            ),
            lax.conv_general_dilated_patches(
                xt, (2, 3), (1, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NCHW")
            ),
        ]

    args = (xt, wt, xb, wb)
    for a, b in zip(calls(L, *args), jax.jit(lambda *v: calls(JL, *v))(*args), strict=True):
        close(a, b)


def test_conv_3d_and_transpose_derivatives_and_vmap():
    # oracles without JAX's compile time: central differences for jvp, the inner-product
    # identity <J t, c> = <t, J^T c> for vjp, the loop for vmap
    x, w = RNG.normal(size=(1, 2, 4, 4, 3)), RNG.normal(size=(2, 2, 2, 2, 3))
    dn = ("NCDHW", "OIDHW", "NCDHW")

    def f(x, w):
        y = L.conv_general_dilated(x, w, (1, 2, 1), "SAME", dimension_numbers=dn)
        return L.conv_transpose(
            y, w, (1, 1, 2), "VALID", dimension_numbers=dn, transpose_kernel=True
        )

    tx, tw = RNG.normal(size=x.shape), RNG.normal(size=w.shape)
    out, jt = ft.jvp(f, (x, w), (tx, tw))
    h = 1e-6
    close(jt, (f(x + h * tx, w + h * tw) - f(x - h * tx, w - h * tw)) / (2 * h), 1e-7)
    c = RNG.normal(size=out.shape)
    gx, gw = ft.vjp(f, x, w)[1](c)
    np.testing.assert_allclose(np.vdot(jt, c), np.vdot(tx, gx) + np.vdot(tw, gw), rtol=1e-12)
    xs = RNG.normal(size=(3, *x.shape))
    close(ft.vmap(lambda x: f(x, w))(xs), np.stack([f(xi, w) for xi in xs]))


def test_conv_layout_and_shape_helpers_match_jax():
    dn = ("NHWC", "HWIO", "NHWC")
    for ours, theirs, args in [
        (L.conv_dimension_numbers, JL.conv_dimension_numbers, ((1, 5, 5, 3), (3, 3, 3, 8), dn)),
        (L.conv_dimension_numbers, JL.conv_dimension_numbers, ((1, 2, 5), (4, 2, 3), None)),
        (L.conv_general_permutations, JL.conv_general_permutations, (("NCHW", "HWIO", "NHWC"),)),
        (L.conv_shape_tuple, JL.conv_shape_tuple, ((2, 3, 9, 8), (8, 3, 3, 2), (2, 3), "SAME")),
        (L.conv_shape_tuple, JL.conv_shape_tuple, ((4, 3, 9), (8, 3, 3), (2,), [(1, 2)], 2)),
        (
            L.conv_general_shape_tuple,
            JL.conv_general_shape_tuple,
            ((1, 8, 7, 3), (3, 2, 3, 4), (2, 1), "VALID", dn),
        ),
        (
            L.conv_transpose_shape_tuple,
            JL.conv_transpose_shape_tuple,
            ((1, 4, 5, 3), (3, 2, 3, 2), (2, 3), "SAME", dn),
        ),
        (L.padtype_to_pads, JL.padtype_to_pads, ((5, 6), (3, 2), (1, 2), "SAME_LOWER")),
        (
            L.reduce_window_shape_tuple,
            JL.reduce_window_shape_tuple,
            ((4, 7), (2, 3), (2, 2), ((0, 1), (1, 1)), (2, 1), (1, 2)),
        ),
    ]:
        got, want = ours(*args), theirs(*args)
        assert np.array(got, dtype=object).tolist() == np.array(want, dtype=object).tolist() or [
            tuple(map(int, g)) if isinstance(g, tuple) else int(g) for g in got
        ] == [tuple(map(int, g)) if isinstance(g, tuple) else int(g) for g in want], (got, want)
    assert tuple(L.conv_dimension_numbers((1, 5, 5, 3), (3, 3, 3, 8), dn)) == tuple(
        L.conv_dimension_numbers(
            (1, 5, 5, 3),
            (3, 3, 3, 8),
            L.ConvDimensionNumbers((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2)),
        )
    )
    with pytest.raises(DimensionNumbersError, match="must name each axis once"):
        L.conv_general_permutations(("NHWW", "HWIO", "NHWC"))
    with pytest.raises(DimensionNumbersError, match="feature_group_count=2"):
        L.conv_general_dilated(
            np.ones((1, 3, 4, 4)), np.ones((2, 3, 2, 2)), (1, 1), "VALID", feature_group_count=2
        )


# -- reduce, shapes, integers, selection, fft ------------------------------------------------


def _argmax_pair(lax):
    def comp(a, b):
        take_b = (b[0] > a[0]) | ((b[0] == a[0]) & (b[1] < a[1]))
        return lax.select(take_b, b[0], a[0]), lax.select(take_b, b[1], a[1])

    return comp


def test_reduce_and_the_rest_are_numpy():
    x = RNG.normal(size=(3, 5, 4))
    idx = np.broadcast_to(np.arange(5)[:, None], x.shape).copy()
    close(L.reduce(x, 0.0, L.add, (0, 2)), x.sum((0, 2)))
    close(L.reduce(x, 2.0, lambda a, b: a * b, (1,)), 2.0 * x.prod(1))  # a pairwise tree
    close(L.reduce(x, -np.inf, lambda a, b: L.max(a, b), (2, 0)), x.max((2, 0)))
    vals, where = L.reduce((x, idx), (-np.inf, 0), _argmax_pair(L), (1,))
    close(vals, x.max(1))
    close(where, x.argmax(1))
    close(L.reduce(x, 5.0, L.add, ()), x)  # no dimensions: the operand, init unused (JAX's)
    close(L.reduce(x[:0], 5.0, lambda a, b: a + b, (0,)), np.full((5, 4), 5.0))
    ints = RNG.integers(-(2**40), 2**40, size=(2, 7))
    close(L.reduce_xor(ints, (1,)), np.bitwise_xor.reduce(ints, axis=1))
    close(L.reduce_xor(ints > 0, (0,)), np.logical_xor.reduce(ints > 0, axis=0))
    for dt in (np.int8, np.uint16, np.int32, np.int64, np.uint64):
        info = np.iinfo(dt)
        a, b = (RNG.integers(info.min, info.max, size=9, dtype=dt, endpoint=True) for _ in range(2))
        bits = 8 * a.itemsize
        high = [((int(p) * int(q)) >> bits) % (1 << bits) for p, q in zip(a, b, strict=True)]
        if info.min < 0:  # the high word read as a signed integer
            high = [h - (1 << bits) if h >= 1 << (bits - 1) else h for h in high]
        close(L.mulhi(a, b), np.array(high, dtype=dt))
    values, order = L.approx_max_k(x, 2, reduction_dimension=1)
    close(values, -np.sort(-x, axis=1)[:, :2])
    close(order, np.argsort(-x, axis=1, kind="stable")[:, :2].astype(np.int32))
    close(L.approx_min_k(x, 3)[0], np.sort(x, axis=-1)[..., :3])
    close(L.approx_max_k(x, 2, aggregate_to_topk=False)[0], -np.sort(-x, axis=-1))
    lhs, rhs, groups = RNG.normal(size=(6, 3)), RNG.normal(size=(3, 3, 2)), np.array([2, 0, 3])
    rows = np.repeat(np.arange(3), groups)
    want = np.zeros((6, 2))
    want[:5] = np.einsum("mk,mkn->mn", lhs[:5], rhs[rows])  # row 5 is past the groups
    close(L.ragged_dot(lhs, rhs, groups), want)
    c = RNG.normal(size=(3, 4, 5)) + 1j * RNG.normal(size=(3, 4, 5))
    close(L.fft(c, L.FftType.FFT, (4, 5)), np.fft.fftn(c, axes=(1, 2)))
    close(L.fft(c, "IFFT", (5,)), np.fft.ifft(c))
    close(L.fft(x, L.FftType.RFFT, (5, 4)), np.fft.rfftn(x, axes=(1, 2)))
    close(L.fft(c, L.FftType.IRFFT, (4, 8)), np.fft.irfftn(c, s=(4, 8), axes=(1, 2)))
    close(L.broadcast_to_rank(x[0, 0], 3), x[0, 0][None, None])
    close(L.broadcast_like(x[0, 0], x), np.broadcast_to(x[0, 0], x.shape))
    assert [u.tolist() for u in L.unstack(x[:, :2], axis=1)] == [x[:, 0].tolist(), x[:, 1].tolist()]
    assert L.optimization_barrier((x, ints))[1] is ints
    assert L.broadcast_shapes((2, 1), (3,), ()) == (2, 3)
    with pytest.raises(ValueError, match="incompatible"):
        L.broadcast_shapes((2,), (3,))
    close(L.empty((2, 3), np.int32), np.zeros((2, 3), np.int32))


@pytest.mark.slow
def test_reduce_and_the_rest_match_jax():
    x = RNG.normal(size=(3, 5, 4))
    idx = np.broadcast_to(np.arange(5)[:, None], x.shape).copy()
    ints = RNG.integers(-(2**40), 2**40, size=(2, 7))
    rd_l, rd_r, groups = RNG.normal(size=(6, 3)), RNG.normal(size=(3, 3, 2)), np.array([2, 0, 3])
    c = RNG.normal(size=(3, 4, 5)) + 1j * RNG.normal(size=(3, 4, 5))

    def calls(lax, jnp_like):
        return [
            lax.reduce(x, 0.0, lax.add, (0, 2)),
            lax.reduce(x, 1.0, lambda a, b: a * b, (1,)),  # a computation JAX cannot name
            lax.reduce(x, -np.inf, lambda a, b: lax.max(a, b), (2, 0)),
            *lax.reduce((x, idx), (-np.inf, 0), _argmax_pair(lax), (1,)),
            lax.reduce(x, 0.0, lax.add, ()),
            lax.reduce_xor(ints, (1,)),
            lax.reduce_xor(ints > 0, (0,)),
            lax.mulhi(ints, ints[::-1]),
            *lax.approx_max_k(x, 2, reduction_dimension=1),
            *lax.approx_min_k(x, 3),
            lax.ragged_dot(rd_l, rd_r, groups),
            lax.fft(c, lax.FftType.FFT, (4, 5)),
            lax.fft(c, lax.FftType.IFFT, (5,)),
            lax.fft(x, lax.FftType.RFFT, (5, 4)),
            lax.fft(c, lax.FftType.IRFFT, (4, 8)),
            lax.broadcast_to_rank(x[0, 0], 3),
            lax.broadcast_like(x[0, 0], x),
            *lax.unstack(x[:, :2], axis=1),
            lax.optimization_barrier((x, ints))[1],
            lax.igamma_grad_a(np.abs(x) + 0.5, np.abs(x[::-1]) + 0.1),
            lax.random_gamma_grad(np.abs(x) + 0.5, np.abs(x[::-1]) + 0.1),
        ]

    ours = calls(L, ft.numpy)
    theirs = jax.jit(lambda: calls(JL, jnp))()
    for a, b in zip(ours, theirs, strict=True):
        close(a, b, 1e-10)
    assert L.broadcast_shapes((2, 1), (3,), ()) == JL.broadcast_shapes((2, 1), (3,), ()) == (2, 3)
    with pytest.raises(ValueError, match="incompatible"):
        L.broadcast_shapes((2,), (3,))
    close(L.empty((2, 3), np.int32), np.asarray(JL.empty((2, 3), np.int32)))


def test_reduce_derivatives_vmap_and_jit():
    x = RNG.normal(size=(4, 6))
    comp = lambda a, b: a * b  # noqa: E731  (JAX's reduce of a custom product)

    def f(x):
        return L.reduce(x, 1.0, comp, (1,))

    jac = np.zeros((4, 4, 6))  # d prod_j x[i, j] / d x[i, k] = prod_{j != k} x[i, j]
    for i, k in np.ndindex(4, 6):
        jac[i, i, k] = np.prod(np.delete(x[i], k))
    close(ft.jacrev(f)(x), jac)
    close(ft.jacfwd(f)(x), jac)
    close(ft.vmap(f)(x[None].repeat(2, 0)), np.stack([f(x)] * 2))
    close(ft.jit(f)(x), f(x))
    g = ft.grad(
        lambda x: L.reduce(
            (x, np.broadcast_to(np.arange(6), x.shape)), (-np.inf, 0), _argmax_pair(L), (1,)
        )[0].sum()
    )(x)
    close(g, (x == x.max(1, keepdims=True)).astype(float))


# -- collectives under vmap(axis_name=...) ----------------------------------------------------

COLLECTIVES = {
    "ppermute": lambda lx, x: lx.ppermute(x, "i", [(0, 1), (1, 2), (2, 3), (3, 0)]) * x,
    "pshuffle": lambda lx, x: lx.pshuffle(x, "i", [3, 0, 2, 1]) ** 2,
    "psum_scatter": lambda lx, x: lx.psum_scatter(x * x, "i"),
    "psum_scatter_tiled": lambda lx, x: lx.psum_scatter(
        x[:, :4], "i", scatter_dimension=1, tiled=True
    ),
    "all_to_all": lambda lx, x: lx.all_to_all(x, "i", 0, 1) * x[0, :, None],
    "all_to_all_tiled": lambda lx, x: lx.all_to_all(x[:, :4], "i", 1, 0, tiled=True),
    "pswapaxes": lambda lx, x: lx.pswapaxes(x, "i", 0),
    "axis_size": lambda lx, x: x / lx.axis_size("i"),
    "pbroadcast": lambda lx, x: lx.pbroadcast(x, "i", 2) * x,
}


def _collectives_numpy(x):
    """What each body of COLLECTIVES gives, row r of the batch being x[r]."""
    tiled = x[:, :, :4].sum(0)
    return [
        np.roll(x, 1, axis=0) * x,
        x[[3, 0, 2, 1]] ** 2,
        (x * x).sum(0),
        np.stack([tiled[:, r : r + 1] for r in range(4)]),
        np.stack([x[:, r, :].T * x[r, 0, :, None] for r in range(4)]),
        np.stack([np.concatenate([x[j, :, r : r + 1] for j in range(4)]) for r in range(4)]),
        x.transpose(1, 0, 2),
        x / 4,
        x[2] * x,
    ]


def test_collectives_values_are_numpy_and_derivatives_differences():
    x = RNG.normal(size=(4, 4, 6))
    t = RNG.normal(size=x.shape)
    for body, want in zip(COLLECTIVES.values(), _collectives_numpy(x), strict=True):
        f = ft.vmap(lambda x, body=body: body(L, x), axis_name="i")
        out, jt = ft.jvp(f, (x,), (t,))
        close(out, want)
        # jvp against a central difference, vjp against jvp (<J t, c> = <t, J^T c>)
        close(jt, (f(x + 1e-6 * t) - f(x - 1e-6 * t)) / 2e-6, 1e-7)
        c = RNG.normal(size=out.shape)
        np.testing.assert_allclose(np.vdot(jt, c), np.vdot(t, ft.vjp(f, x)[1](c)[0]), rtol=1e-12)


@pytest.mark.slow
def test_collectives_values_match_jax():
    x = RNG.normal(size=(4, 4, 6))
    bodies = list(COLLECTIVES.values())[:-1]  # JAX's jit of vmap(pbroadcast) fails: eager
    jvals = jax.jit(
        lambda x: [jax.vmap(lambda x, b=b: b(JL, x), axis_name="i")(x) for b in bodies]
    )(x)
    jvals.append(jax.vmap(lambda x: COLLECTIVES["pbroadcast"](JL, x), axis_name="i")(x))
    for jv, want in zip(jvals, _collectives_numpy(x), strict=True):
        close(want, jv)


def test_ppermute_partial_permutation_gives_zeros_and_errors():
    x = np.arange(1.0, 4.0)
    out = ft.vmap(lambda x: L.ppermute(x, "i", [(0, 2), (2, 1)]), axis_name="i")(x)
    close(out, np.array([0.0, 3.0, 1.0]))
    # the transpose is the inverse permutation
    g = ft.grad(
        lambda x: (ft.vmap(lambda x: L.ppermute(x, "i", [(0, 2)]), axis_name="i")(x) * x).sum()
    )(x)
    close(g, np.array([x[2], 0.0, x[0]]))  # d/dx of x0 * x2
    with pytest.raises(ValueError, match="each destination at most once"):
        ft.vmap(lambda x: L.ppermute(x, "i", [(0, 1), (2, 1)]), axis_name="i")(x)
    with pytest.raises(ValueError, match="must equal the axis size 3"):
        ft.vmap(lambda x: L.all_to_all(x, "i", 0, 0), axis_name="i")(np.ones((3, 2)))
    with pytest.raises(ft.errors.UnboundAxisNameError):
        L.axis_size("j")
    assert not current_stack()


# -- bits and random bits --------------------------------------------------------------------


def test_bitcast_and_reduce_precision_are_numpy():
    x = RNG.normal(size=(3, 4))
    close(L.bitcast_convert_type(x, np.int64), x.view(np.int64))
    close(L.bitcast_convert_type(x, np.uint16), x.view(np.uint16).reshape(3, 4, 4))
    close(L.bitcast_convert_type(x.view(np.uint32).reshape(3, 4, 2), np.float64), x)
    close(
        ft.vmap(lambda v: L.bitcast_convert_type(v, np.uint32), in_dims=1)(x),
        x.T.copy().view(np.uint32).reshape(4, 3, 2),
    )
    # float16's format (5, 10) in its normal range is a cast to float16 (ties to even)
    y = np.concatenate([RNG.normal(size=20) * 100, [1 + 2.0**-11, 1 + 3 * 2.0**-11, 65504.0]])
    close(L.reduce_precision(y, 5, 10), y.astype(np.float16).astype(np.float64))
    special = np.array([np.nan, np.inf, -np.inf, -0.0, 1e6, -1e-6, 5e-324])
    got = L.reduce_precision(special, 5, 10)
    assert np.array_equal(got, [np.nan, np.inf, -np.inf, 0.0, np.inf, -0.0, 0.0], equal_nan=True)
    assert np.signbit(got[[3, 5]]).all()  # signed zeros
    # the derivative is JAX's linear rule: the tangent rounded too
    t = np.array([1.0 + 2.0**-11, 3.0])
    close(ft.jvp(lambda x: L.reduce_precision(x, 5, 10), (t,), (t,))[1], np.array([1.0, 3.0]))
    with pytest.raises(ValueError, match="last axis must have 2 entries"):
        L.bitcast_convert_type(np.ones(3, np.float32), np.float64)
    with pytest.raises(ft.errors.UnsupportedOperationError, match="integer and float"):
        L.bitcast_convert_type(np.ones(3), np.complex128)


@pytest.mark.slow
def test_bitcast_and_reduce_precision_special_values_match_jax():
    x = RNG.normal(size=40) * np.exp(RNG.normal(size=40) * 30)
    x[:6] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 5e-324]
    formats = [(8, 7), (5, 10), (4, 3), (11, 30)]
    ours = [L.reduce_precision(x, e, m) for e, m in formats]
    ours += [L.reduce_precision(x.astype(np.float32), 5, 10), L.bitcast_convert_type(x, np.uint16)]
    ours.append(L.bitcast_convert_type(np.arange(16, dtype=np.int8).reshape(2, 8), np.float64))

    def theirs(x):
        out = [JL.reduce_precision(x, e, m) for e, m in formats]
        out += [
            JL.reduce_precision(x.astype(np.float32), 5, 10),
            JL.bitcast_convert_type(x, np.uint16),
        ]
        out.append(JL.bitcast_convert_type(np.arange(16, dtype=np.int8).reshape(2, 8), np.float64))
        return out

    for a, b in zip(ours, jax.jit(theirs)(x), strict=True):
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)


def test_rng_bit_generator_is_a_function_of_the_key_and_maps_over_keys():
    keys = np.array([[1, 2, 3, 4], [5, 6, 7, 8]], np.uint32)
    new, bits = ft.vmap(lambda k: L.rng_bit_generator(k, (500,)))(keys)
    for k, n, b in zip(keys, new, bits, strict=True):
        n1, b1 = L.rng_bit_generator(k, (500,))
        close(n1, n)
        close(b1, b)
        assert not np.array_equal(n1, k) and b1.dtype == np.uint32
    assert not np.array_equal(bits[0], bits[1])
    # uniform words: each of the 32 bits is set about half the time
    ones = np.unpackbits(bits.view(np.uint8)).mean()
    assert abs(ones - 0.5) < 0.01
    assert L.rng_bit_generator(keys[0], (3,), np.uint8)[1].dtype == np.uint8
    np.random.seed(1)
    u = L.rng_uniform(-1.0, 2.0, (1000,))
    assert u.shape == (1000,) and u.min() >= -1.0 and u.max() < 2.0 and abs(u.mean() - 0.5) < 0.1


# -- locally connected convolutions and the names JAX programs pass through ------------------


def test_conv_general_dilated_local_is_a_loop_of_dot_products():
    x, w = RNG.normal(size=(2, 3, 6, 5)), RNG.normal(size=(4, 3 * 6, 5, 2))  # O, C*kh*kw, Ho, Wo
    out = L.conv_general_dilated_local(x, w, (1, 2), "VALID", (2, 3))
    want = np.zeros((2, 4, 5, 2))
    for i, j in np.ndindex(5, 2):
        patch = x[:, :, i : i + 2, 2 * j : 2 * j + 3].reshape(2, -1)  # channel major
        want[:, :, i, j] = patch @ w[:, :, i, j].T
    close(out, want)
    _check_derivatives(
        lambda x, w: L.conv_general_dilated_local(x, w, (1, 2), "VALID", (2, 3)), x, w
    )


def test_pass_through_names():
    x = RNG.normal(size=3)
    assert L.with_sharding_constraint(x, None) is x
    assert L.optimization_barrier(x) is x
    close(ft.vmap(lambda v: L.platform_dependent(v, cpu=lambda u: 3 * u, default=np.sin))(x), 3 * x)
    close(L.platform_dependent(x, default=np.sin), np.sin(x))
    with pytest.raises(ft.errors.UnsupportedOperationError, match="no branch for platform 'cpu'"):
        L.platform_dependent(x, cuda=np.sin)
    f = L.composite(lambda v: v * v, "my.square")
    close(ft.grad(lambda v: f(v).sum())(x), 2 * x)
    assert (L.dtype(1.0), L.dtype(np.int8(1)), L.dtype(x)) == (np.float64, np.int8, np.float64)
    close(L.round(np.array([2.5, -0.5]), L.RoundingMethod.TO_NEAREST_EVEN), np.array([2.0, -0.0]))
    a, b = RNG.normal(size=(2, 3)), RNG.normal(size=(3, 4))
    dn = L.DotDimensionNumbers((((1,), (0,)), ((), ())))
    close(L.dot_general(a, b, dn, precision=L.Precision.HIGHEST), a @ b)
    close(L.dot_general(a, b, dn, precision=(L.DotAlgorithmPreset.DEFAULT,) * 2), a @ b)


# -- ft.lax.linalg (jax.lax.linalg) ----------------------------------------------------------

LL = L.linalg


def _spd(*batch, n=4):
    m = RNG.normal(size=(*batch, n, n))
    return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)


def test_lax_linalg_is_numpy_and_scipy():
    import scipy.linalg

    a = _spd(2)
    close(LL.cholesky(a), np.linalg.cholesky(a))
    v, w = LL.eigh(a)  # JAX's order: eigenvectors first
    close(w, np.linalg.eigvalsh(a))
    close(v @ (w[..., None] * np.swapaxes(v, -1, -2)), a)
    v_up, w_up = LL.eigh(np.triu(a[0]), lower=False, symmetrize_input=False, subset_by_index=(1, 3))
    close(w_up, np.linalg.eigvalsh(a[0])[1:3])
    m = RNG.normal(size=(5, 3))
    lu, piv, perm = LL.lu(m)
    want_lu, want_piv = scipy.linalg.lu_factor(m)
    close(lu, want_lu)
    close(piv, want_piv.astype(np.int32))
    low, up = np.tril(lu, -1)[:, :3] + np.eye(5, 3), np.triu(lu)[:3]
    close(m[perm], low @ up)
    close(
        LL.lu_pivots_to_permutation(np.array([2, 2, 3], np.int32), 5),
        np.array([2, 0, 3, 1, 4], np.int32),
    )
    t = np.tril(RNG.normal(size=(4, 4))) + 4 * np.eye(4)
    b = RNG.normal(size=(4, 2))
    close(LL.triangular_solve(t, b, left_side=True, lower=True), np.linalg.solve(t, b))
    close(LL.triangular_solve(t, b.T, lower=True, transpose_a=True), np.linalg.solve(t, b).T)
    unit = np.tril(t, -1) + np.eye(4)
    close(LL.triangular_solve(t, b.T, lower=True, unit_diagonal=True), b.T @ np.linalg.inv(unit))
    tc = t + 1j * np.tril(RNG.normal(size=(4, 4)))
    close(
        LL.triangular_solve(
            tc, b + 0j, left_side=True, lower=True, transpose_a=True, conjugate_a=True
        ),
        np.linalg.solve(tc.conj().T, b + 0j),
    )
    dl, d, du = RNG.normal(size=5), RNG.normal(size=5) + 4, RNG.normal(size=5)
    dense = np.diag(d) + np.diag(dl[1:], -1) + np.diag(du[:-1], 1)
    rhs = RNG.normal(size=(5, 2))
    close(LL.tridiagonal_solve(dl, d, du, rhs), np.linalg.solve(dense, rhs))
    q, r = LL.qr(m, full_matrices=False)
    close(q @ r, m)
    assert LL.qr(m)[0].shape == (5, 5)
    close(LL.svd(m, compute_uv=False), np.linalg.svd(m, compute_uv=False))
    u, s, vh = LL.svd(m, full_matrices=False)
    close((u * s) @ vh, m)
    close(LL.symmetric_product(m, np.eye(5), alpha=2.0, beta=3.0), 2 * m @ m.T + 3 * np.eye(5))
    rr = np.linalg.cholesky(a[0]).T
    wv = RNG.normal(size=4)
    close(LL.cholesky_update(rr, wv), np.linalg.cholesky(a[0] + np.outer(wv, wv)).T)
    g = RNG.normal(size=(4, 4))
    w, vl, vr = LL.eig(g)
    close(vr @ np.diag(w) @ np.linalg.inv(vr), g + 0j, 1e-10)
    close(vl.conj().T @ g, np.diag(w) @ vl.conj().T, 1e-10)
    tt, vs = LL.schur(g)
    close(vs @ tt @ vs.T, g, 1e-10)
    assert type(L.linalg).__name__ == "module" and "linalg" not in L.__all__


def test_lax_linalg_derivatives_and_vmap():
    a, b = _spd(), RNG.normal(size=(4, 2))
    _check_derivatives(lambda a: LL.cholesky(a), a)
    _check_derivatives(lambda a: LL.eigh(a)[1], a)
    _check_derivatives(lambda t, b: LL.triangular_solve(t, b, left_side=True, lower=True), a, b)
    _check_derivatives(
        lambda d, b: LL.tridiagonal_solve(d / 5, d + 4, d / 3, b), RNG.normal(size=4), b
    )
    stack = _spd(3)
    close(ft.vmap(LL.cholesky)(stack), np.stack([LL.cholesky(s) for s in stack]))
    perm = ft.vmap(lambda m: LL.lu(m)[2])(RNG.normal(size=(3, 4, 4)))
    assert perm.dtype == np.int32 and sorted(perm[0].tolist()) == [0, 1, 2, 3]


@pytest.mark.slow
def test_lax_linalg_matches_jax():
    import jax.lax.linalg as jll

    a, m = _spd(2), RNG.normal(size=(2, 4, 4)) + 4 * np.eye(4)
    b = RNG.normal(size=(2, 4, 3))
    calls = [
        lambda ll: ll.cholesky(a),
        lambda ll: ll.eigh(a)[1],
        lambda ll: ll.lu(m),
        lambda ll: ll.lu_pivots_to_permutation(np.array([2, 2, 3, 3], np.int32), 6),
        lambda ll: ll.svd(m, compute_uv=False),
        lambda ll: ll.tridiagonal_solve(m[0, 0], m[0, 1] + 4, m[0, 2], b[0]),
        lambda ll: ll.symmetric_product(m, a, alpha=2.0, beta=3.0),
        lambda ll: ll.cholesky_update(np.linalg.cholesky(a[0]).T, m[0, 0]),
        lambda ll: ll.eig(m[0], compute_left_eigenvectors=False),
    ]
    for left in (True, False):
        for lower in (True, False):
            for trans in (False, True):
                calls.append(
                    lambda ll, left=left, lower=lower, trans=trans: ll.triangular_solve(
                        m,
                        b if left else np.swapaxes(b, -1, -2),
                        left_side=left,
                        lower=lower,
                        transpose_a=trans,
                        unit_diagonal=trans,
                    )
                )
    for call in calls:
        ours, theirs = call(LL), call(jll)
        for p, q in zip(jax.tree.leaves(ours), jax.tree.leaves(theirs), strict=True):
            close(p, q, 1e-10)


def test_gather_scatter_on_a_device_backend():
    # the strict CuPy stand-in: no NumPy array may meet a device array
    from ftransforms.strict_backend import asarray

    def host(a):
        return np.asarray(a.get())

    x, idx = RNG.normal(size=(4, 3)), np.array([[2], [0], [5]])
    gdn, sdn = (
        L.GatherDimensionNumbers((1,), (0,), (0,)),
        L.ScatterDimensionNumbers((1,), (0,), (0,)),
    )
    u = RNG.normal(size=(3, 3))
    for i in (idx, asarray(idx)):
        for mode in (None, "fill"):
            close(
                host(L.gather(asarray(x), i, gdn, (1, 3), mode=mode)),
                gather_loop(x, idx, ((1,), (0,), (0,)), (1, 3), mode),
            )
        for name in ("scatter", "scatter_add", "scatter_max", "scatter_mul"):
            ours, _, combine = KINDS[name]
            close(
                host(ours(asarray(x), i, asarray(u), sdn)),
                scatter_loop(x, idx, u, ((1,), (0,), (0,)), combine),
            )
    idxs = RNG.integers(-1, 5, size=(2, 3, 1))
    got = ft.vmap(lambda i: L.scatter_max(asarray(x), i, asarray(u), sdn))(asarray(idxs))
    close(host(got), np.stack([scatter_loop(x, i, u, ((1,), (0,), (0,)), max) for i in idxs]))
    g = ft.grad(
        lambda x: (L.gather(x, asarray(idx), gdn, (1, 3), mode="fill", fill_value=0.0) ** 2).sum()
    )(asarray(x))
    close(host(g), 2 * np.where(np.arange(4)[:, None] < 3, x, 0) * (np.arange(4) != 1)[:, None])


def test_the_rest_on_a_device_backend():
    # every constant is made on the operands' backend (the strict CuPy stand-in)
    from ftransforms.strict_backend import asarray

    x4, w4 = RNG.normal(size=(1, 2, 4, 4)), RNG.normal(size=(3, 2, 2, 2))
    x5, w5 = RNG.normal(size=(1, 2, 4, 4, 4)), RNG.normal(size=(3, 2, 2, 2, 2))
    calls = [
        lambda m: L.conv_general_dilated(m(x5), m(w5), (1, 1, 1), "SAME"),
        lambda m: L.conv_transpose(
            m(x4), m(w4), (2, 2), "SAME", dimension_numbers=("NCHW", "OIHW", "NCHW")
        ),
        lambda m: L.conv_general_dilated(m(x4), m(w4), (1, 1), [(4, 0), (0, -1)], (2, 2)),
        lambda m: L.conv_general_dilated_patches(m(x4), (2, 2), (1, 1), "VALID"),
        lambda m: L.ragged_dot(m(np.ones((3, 2))), m(np.ones((2, 2, 2))), m(np.array([1, 2]))),
        lambda m: L.mulhi(m(np.array([2**40, -5])), m(np.array([2**40, 7]))),
        lambda m: ft.vmap(lambda v: L.ppermute(v, "i", [(0, 1), (1, 0)]), axis_name="i")(
            m(np.arange(2.0))
        ),
        lambda m: L.linalg.tridiagonal_solve(
            m(np.zeros(3)), m(np.full(3, 2.0)), m(np.zeros(3)), m(np.ones((3, 1)))
        ),
        lambda m: L.linalg.lu(m(np.eye(3) + 1))[2],
        lambda m: L.pad(m(np.ones(3)), 0.0, [(1, 1, 1)]),
    ]
    for call in calls:
        close(np.asarray(call(asarray).get()), call(np.asarray))


def test_incomplete_gamma_derivatives():
    a, x = np.array([1.5, 3.0, 0.7]), np.array([2.0, 0.5, 4.0])
    h = 1e-6
    want = (ft.scipy.special.gammainc(a + h, x) - ft.scipy.special.gammainc(a - h, x)) / (2 * h)
    close(L.igamma_grad_a(a, x), want, 1e-8)
    close(ft.vmap(L.igamma_grad_a)(a, x), L.igamma_grad_a(a, x))
    # d sample / d a at a fixed uniform draw u = F(sample; a)
    u = ft.scipy.special.gammainc(a, x)
    shifted = [scipy.special.gammaincinv(a + s * h, u) for s in (1, -1)]
    close(L.random_gamma_grad(a, x), (shifted[0] - shifted[1]) / (2 * h), 1e-6)
