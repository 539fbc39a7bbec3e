"""``jax.lax``'s remaining toolbox, round 10, under ``ft.lax``, against JAX itself (x64):
values, derivatives (``vjp`` with a random cotangent against ``jax.vjp``) and ``vmap``
(against a Python loop and against ``jax.vmap``).

* general ``gather``/``scatter`` with dimension numbers and modes, the scatter family,
  ``index_take`` (NOTE [gather and scatter as flat positions] in
  ``ftransforms/jax_lax_gather.py``).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

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

# (operand shape, indices, gather dimension numbers as a tuple, slice sizes)
GATHERS = [
    ((5, 4), [[3], [0], [7], [-2]], ((1,), (0,), (0,)), (1, 4)),  # x[idx] (rows)
    ((5, 4), [[2], [3]], ((0,), (1,), (1,)), (5, 1)),  # x[:, idx]
    ((5, 4), [[1, 2], [4, 3], [0, 9]], ((), (0, 1), (0, 1)), (1, 1)),  # x[i, j]
    ((6, 5), [[1, 1], [5, 0]], ((1, 2), (), (0, 1)), (2, 3)),  # windows
    ((3, 5), [[[1], [4]], [[0], [2]], [[3], [3]]], ((), (1,), (1,), (0,), (0,)), (1, 1)),
    ((4, 6), [[[1], [0], [3]], [[2], [2], [5]]], ((1,), (0,), (0,)), (1, 6)),  # window between
]


def _gdn(t):
    return L.GatherDimensionNumbers(*t), JL.GatherDimensionNumbers(*t)


MODES = (None, "fill")  # "clip" and "promise_in_bounds" clamp as None does: checked below


def test_gather_values_modes_and_vjp_match_jax():
    cases = [(RNG.normal(size=c[0]), np.array(c[1]), *_gdn(c[2]), c[3]) for c in GATHERS]
    cots = [RNG.normal(size=L.gather(x, i, dn, n).shape) for x, i, dn, _, n in cases]
    ours = [L.gather(x, i, dn, n, mode=m) for x, i, dn, _, n in cases for m in MODES]
    ours += [
        ft.vjp(lambda x, i=i, dn=dn, n=n: L.gather(x, i, dn, n, mode="fill", fill_value=0.5), x)[1](
            c
        )[0]
        for (x, i, dn, _, n), c in zip(cases, cots, strict=True)
    ]

    def theirs(xs):  # one compiled JAX program (JAX's eager calls compile one by one)
        out = [
            JL.gather(x, i, d, n, mode=m) for x, (_, i, _, d, n) in zip(xs, cases) for m in MODES
        ]
        return out + [
            jax.vjp(lambda x, i=i, d=d, n=n: JL.gather(x, i, d, n, mode="fill", fill_value=0.5), x)[
                1
            ](c)[0]
            for x, (_, i, _, d, n), c in zip(xs, cases, cots)
        ]

    for a, b in zip(ours, jax.jit(theirs)([c[0] for c in cases]), strict=True):
        close(a, b)
    for x, i, dn, _, n in cases:
        close(L.gather(x, i, dn, n, mode="clip"), L.gather(x, i, dn, n))
        close(L.gather(x, i, dn, n, mode="promise_in_bounds"), L.gather(x, i, dn, n))


def test_gather_integer_fill_and_dtypes():
    dn, jdn = _gdn(((1,), (), (0,)))
    xs = [np.arange(10).astype(dt) for dt in (np.int32, np.uint8, np.bool_, np.complex128)]
    i = np.array([[9], [1]])
    theirs = jax.jit(lambda xs: [JL.gather(x, i, jdn, (3,), mode="fill") for x in xs])(xs)
    for x, b in zip(xs, theirs, strict=True):
        close(L.gather(x, i, dn, (3,), mode="fill"), b)


def test_gather_under_vmap_of_operand_and_indices_is_the_loop_and_jax():
    shape, _, t, sizes = GATHERS[3]
    dn, jdn = _gdn(t)
    xs = RNG.normal(size=(3, *shape))
    idxs = RNG.integers(-1, 6, size=(3, 2, 2))

    def f(x, i):
        return L.gather(x, i, dn, sizes, mode="fill", fill_value=-1.0)

    loop = np.stack([f(x, i) for x, i in zip(xs, idxs, strict=True)])
    close(ft.vmap(f)(xs, idxs), loop)
    jf = jax.vmap(lambda x, i: JL.gather(x, i, jdn, sizes, mode="fill", fill_value=-1.0))
    close(loop, jf(xs, idxs))
    close(ft.vmap(f, in_dims=(None, 0))(xs[0], idxs), jf(np.stack([xs[0]] * 3), idxs))
    # grad of a vmapped gather with batched indices (ints are not differentiated)
    g = ft.grad(lambda x: ft.vmap(lambda i: f(x, i))(idxs).sum())(xs[0])
    jg = jax.grad(lambda x: jax.vmap(lambda i: JL.gather(x, i, jdn, sizes))(idxs).sum())(xs[0])
    close(g, jg)


def test_gather_under_jit_matches_eager():
    shape, idx, t, sizes = GATHERS[0]
    x, idx = RNG.normal(size=shape), np.array(idx)
    dn, _ = _gdn(t)
    f = ft.jit(lambda x, i: L.gather(x, i, dn, sizes, mode="fill"))
    close(f(x, idx), L.gather(x, idx, dn, sizes, mode="fill"))
    close(f(x + 1, idx[::-1]), L.gather(x + 1, idx[::-1], dn, sizes, mode="fill"))


def test_index_take_matches_jax():
    x = RNG.normal(size=(3, 4, 5))
    idxs = (np.array([0, 2, -1]), np.array([1, 7, 3]))
    close(L.index_take(x, idxs, (0, 2)), JL.index_take(x, idxs, (0, 2)))


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
    "scatter": (L.scatter, JL.scatter),
    "scatter_add": (L.scatter_add, JL.scatter_add),
    "scatter_sub": (L.scatter_sub, JL.scatter_sub),
    "scatter_mul": (L.scatter_mul, JL.scatter_mul),
    "scatter_min": (L.scatter_min, JL.scatter_min),
    "scatter_max": (L.scatter_max, JL.scatter_max),
}


def _sdn(t):
    return L.ScatterDimensionNumbers(*t), JL.ScatterDimensionNumbers(*t)


def test_scatter_family_values_and_vjp_match_jax():
    cases = [
        (RNG.normal(size=c[0]), np.array(c[1]), *_sdn(c[2]), RNG.normal(size=c[3]))
        for c in SCATTERS
    ]
    modes = (None, "clip")  # "promise_in_bounds" drops as None does: checked below
    for x, i, d, _, u in cases:
        close(L.scatter(x, i, u, d, mode="promise_in_bounds"), L.scatter(x, i, u, d, mode="drop"))
    ours = [
        f(x, i, u, d, mode=m) for x, i, d, _, u in cases for f, _ in KINDS.values() for m in modes
    ]
    # derivatives where JAX has them: windows that do not repeat
    names = ("scatter", "scatter_add", "scatter_mul", "scatter_max")
    unique = [(x, i[:2], d, jd, u[:2]) for x, i, d, jd, u in cases[1:3]]
    cots = [RNG.normal(size=x.shape) for x, *_ in unique]
    for (x, i, d, _, u), c in zip(unique, cots, strict=True):
        ours += [ft.vjp(lambda x, u, n=n: KINDS[n][0](x, i, u, d), x, u)[1](c) for n in names]

    def theirs(xs, us):
        out = [
            f(x, i, u, jd, mode=m)
            for x, u, (_, i, _, jd, _) in zip(xs, us, cases)
            for _, f in KINDS.values()
            for m in modes
        ]
        for (x, i, _, jd, u), c in zip(unique, cots):
            out += [
                jax.vjp(lambda x, u, n=n: KINDS[n][1](x, i, u, jd, unique_indices=True), x, u)[1](c)
                for n in names
            ]
        return out

    theirs = jax.jit(theirs)([c[0] for c in cases], [c[4] for c in cases])
    for a, b in zip(ours, theirs, strict=True):
        for p, q in zip(*((a, b) if isinstance(a, tuple) else ((a,), (b,))), strict=True):
            close(p, q)


def test_scatter_with_batched_indices_is_the_loop_and_jax():
    dn, jdn = _sdn(SCATTERS[0][2])
    xs = RNG.normal(size=(4, 6))
    idxs = RNG.integers(-2, 8, size=(4, 5, 1))  # repeats and out-of-bounds rows
    us = RNG.normal(size=(4, 5))
    names = ("scatter", "scatter_add", "scatter_min", "scatter_max")
    theirs = jax.jit(
        lambda xs, idxs, us: [
            jax.vmap(lambda x, i, u, n=n: KINDS[n][1](x, i, u, jdn))(xs, idxs, us) for n in names
        ]
    )(xs, idxs, us)
    for name, jout in zip(names, theirs, strict=True):
        ours = KINDS[name][0]
        got = ft.vmap(lambda x, i, u, ours=ours: ours(x, i, u, dn))(xs, idxs, us)
        loop = np.stack([ours(x, i, u, dn) for x, i, u in zip(xs, idxs, us, strict=True)])
        close(got, loop)
        close(loop, jout)
        # the jit-recorded program (traced indices) gives the same
        close(ft.jit(lambda x, i, u, ours=ours: ours(x, i, u, dn))(xs[0], idxs[0], us[0]), loop[0])


def test_scatter_add_grad_under_vmap_matches_jax():
    dn, jdn = _sdn(SCATTERS[1][2])
    x, idx = RNG.normal(size=(5, 3)), np.array([[0], [3], [0]])
    us = RNG.normal(size=(2, 3, 3))

    def loss(f, d, x, u):
        return (f(x, idx, u, d) ** 2).sum()

    g = ft.vmap(ft.grad(lambda x, u: loss(L.scatter_add, dn, x, u), argnums=(0, 1)), (None, 0))
    jg = jax.vmap(jax.grad(lambda x, u: loss(JL.scatter_add, jdn, x, u), argnums=(0, 1)), (None, 0))
    jg = jax.jit(jg)
    for a, b in zip(g(x, us), jg(x, us), strict=True):
        close(a, b)


def test_scatter_apply_matches_jax():
    x = RNG.normal(size=(6,))
    dn, jdn = _sdn(((), (0,), (0,)))
    for idx in (np.array([[1], [4], [9]]), np.array([[2], [2], [0]])):
        for mode in (None, "clip"):
            close(
                L.scatter_apply(x, idx, ft.numpy.sin, dn, update_shape=(3,), mode=mode),
                JL.scatter_apply(x, idx, jnp.sin, jdn, update_shape=(3,), mode=mode),
            )
    # JAX does not differentiate scatter_apply: the derivative is cos at the hit positions
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


def test_conv_transpose_patches_batch_groups_match_jax():
    xt, wt = RNG.normal(size=(2, 4, 5, 3)), RNG.normal(size=(3, 3, 3, 4))
    xb, wb = RNG.normal(size=(4, 3, 5, 5)), RNG.normal(size=(6, 3, 2, 2))

    def calls(lax, xt, wt, xb, wb):
        return [
            lax.conv_general_dilated(xb, wb, (1, 1), "VALID", batch_group_count=2),
            lax.conv_transpose(xt, wt, (2, 1), "SAME", rhs_dilation=(1, 2)),
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
    # "VALID" transposes and the 1-d and 3-d default layouts, by shape
    for shape, k in (((2, 5, 3), (3, 3, 4)), ((1, 3, 3, 2, 3), (2, 2, 2, 3, 4))):
        x, w = RNG.normal(size=shape), RNG.normal(size=k)
        strides = (2,) * (len(shape) - 2)
        assert L.conv_transpose(x, w, strides, "VALID").shape == L.conv_transpose_shape_tuple(
            shape,
            k,
            strides,
            "VALID",
            {3: ("NHC", "HIO", "NHC"), 5: ("NHWDC", "HWDIO", "NHWDC")}[len(shape)],
        )


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

    close(ft.jacrev(f)(x), jax.jit(jax.jacrev(lambda x: JL.reduce(x, 1.0, JL.mul, (1,))))(x))
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
}


def test_collectives_values_match_jax_and_derivatives_differences():
    x = RNG.normal(size=(4, 4, 6))
    jvals = jax.jit(
        lambda x: [
            jax.vmap(lambda x, b=b: b(JL, x), axis_name="i")(x) for b in COLLECTIVES.values()
        ]
    )(x)
    t = RNG.normal(size=x.shape)
    for body, jv in zip(COLLECTIVES.values(), jvals, strict=True):
        f = ft.vmap(lambda x, body=body: body(L, x), axis_name="i")
        out, jt = ft.jvp(f, (x,), (t,))
        close(out, jv)
        # jvp against a central difference, vjp against jvp (<J t, c> = <t, J^T c>)
        close(jt, (f(x + 1e-6 * t) - f(x - 1e-6 * t)) / 2e-6, 1e-7)
        c = RNG.normal(size=out.shape)
        np.testing.assert_allclose(np.vdot(jt, c), np.vdot(t, ft.vjp(f, x)[1](c)[0]), rtol=1e-12)


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
    # the derivative is JAX's linear rule: the tangent rounded too
    t = np.array([1.0 + 2.0**-11, 3.0])
    close(ft.jvp(lambda x: L.reduce_precision(x, 5, 10), (t,), (t,))[1], np.array([1.0, 3.0]))
    with pytest.raises(ValueError, match="last axis must have 2 entries"):
        L.bitcast_convert_type(np.ones(3, np.float32), np.float64)
    with pytest.raises(ft.errors.UnsupportedOperationError, match="integer and float"):
        L.bitcast_convert_type(np.ones(3), np.complex128)


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
