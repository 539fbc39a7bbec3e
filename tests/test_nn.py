"""Tests of ``ftransforms.nn`` and the primitives of ``ftransforms/ops/nn.py``.

Oracles: naive NumPy loops (always), ``torch.nn.functional`` (when torch is installed;
that group skips otherwise), JAX in float64 (``jax.lax.conv_general_dilated``,
``jax.nn``) for compositions of transforms, finite differences (``check_grads``), and
Python loops for ``vmap`` (``check_vmap``).  The loop fallback is off for every test
here: every layer must batch through real batching rules.
"""

from __future__ import annotations

import time

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ftransforms.numpy as fnp
from ftransforms import grad, hessian, jacfwd, jacrev, jvp, nn, vjp, vmap
from ftransforms.core.errors import RandomnessError
from ftransforms.interpreters.batching import FALLBACK
from ftransforms.ops import nn as ops
from ftransforms.pytree import tree_leaves, tree_map
from ftransforms.testing import check_grads, check_vmap
from tests.op_db_nn import ENTRIES, NAMES
from tests.tolerances import assert_tree_close, tol

jax.config.update("jax_enable_x64", True)

F64 = np.float64
DN = ("NCHW", "OIHW", "NCHW")


@pytest.fixture(autouse=True)
def _no_loop_fallback():
    saved = FALLBACK["enabled"]
    FALLBACK["enabled"] = False
    try:
        yield
    finally:
        FALLBACK["enabled"] = saved


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


def _pairs(padding):
    if isinstance(padding, int):
        return ((padding, padding), (padding, padding))
    if isinstance(padding[0], int):
        return ((padding[0], padding[0]), (padding[1], padding[1]))
    return tuple(tuple(p) for p in padding)


def _two(v):
    return (v, v) if isinstance(v, int) else tuple(v)


# -- naive references (plain loops) ------------------------------------------------------


def naive_conv2d(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    """Direct definition of torch's conv2d, one output element at a time."""
    (sh, sw), (dh, dw) = _two(stride), _two(dilation)
    (pt, pb), (pl, pr) = _pairs(padding)
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.zeros((n, c, h + pt + pb, wd + pl + pr), dtype=F64)
    xp[:, :, pt : pt + h, pl : pl + wd] = x
    ho = (h + pt + pb - dh * (kh - 1) - 1) // sh + 1
    wo = (wd + pl + pr - dw * (kw - 1) - 1) // sw + 1
    og = o // groups
    out = np.zeros((n, o, ho, wo), dtype=F64)
    for bi in range(n):
        for oc in range(o):
            g = oc // og
            for i in range(ho):
                for j in range(wo):
                    acc = 0.0
                    for ci in range(cg):
                        for a in range(kh):
                            for e in range(kw):
                                acc += (
                                    xp[bi, g * cg + ci, i * sh + a * dh, j * sw + e * dw]
                                    * w[oc, ci, a, e]
                                )
                    out[bi, oc, i, j] = acc + (0.0 if b is None else b[oc])
    return out


def naive_pool(x, kernel, stride, padding, reduce, pad_value, dilation=1):
    """Pooling over explicit windows (no ceil mode)."""
    (kh, kw), (sh, sw), (dh, dw) = _two(kernel), _two(stride), _two(dilation)
    (pt, pb), (pl, pr) = _pairs(padding)
    lead = x.shape[:-2]
    h, wd = x.shape[-2:]
    xp = np.full(lead + (h + pt + pb, wd + pl + pr), pad_value, dtype=F64)
    xp[..., pt : pt + h, pl : pl + wd] = x
    ho = (h + pt + pb - dh * (kh - 1) - 1) // sh + 1
    wo = (wd + pl + pr - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros(lead + (ho, wo), dtype=F64)
    for i in range(ho):
        for j in range(wo):
            win = xp[..., i * sh : i * sh + dh * (kh - 1) + 1 : dh, j * sw : j * sw + dw * (kw - 1) + 1 : dw]
            out[..., i, j] = reduce(win.reshape(lead + (-1,)), axis=-1)
    return out


def jax_conv(x, w, stride=1, padding=0, dilation=1, groups=1):
    return jax.lax.conv_general_dilated(
        x,
        w,
        window_strides=_two(stride),
        padding=_pairs(padding),
        rhs_dilation=_two(dilation),
        dimension_numbers=DN,
        feature_group_count=groups,
    )


# (x shape, w shape, settings) for the convolution tests
CONV_CASES = [
    ((2, 4, 6, 5), (3, 4, 3, 2), {}),
    ((2, 4, 7, 6), (6, 4, 3, 3), {"stride": 2, "padding": 1}),
    ((1, 4, 7, 6), (6, 2, 3, 2), {"stride": (2, 1), "padding": (1, 2), "dilation": (2, 1), "groups": 2}),
    ((2, 3, 5, 5), (6, 1, 3, 3), {"padding": 1, "groups": 3}),
    ((2, 4, 5, 4), (2, 4, 1, 1), {}),
]
CONV_IDS = ["plain", "strided-padded", "dilated-grouped", "depthwise", "1x1"]


def _conv_args(case, dtype, seed=0):
    xs, ws, p = case
    rng = np.random.default_rng(seed)
    x = rng.normal(size=xs).astype(dtype)
    w = rng.normal(size=ws).astype(dtype)
    b = rng.normal(size=ws[0]).astype(dtype)
    return x, w, b, p


# -- forward values ---------------------------------------------------------------------------


@pytest.mark.parametrize("case", CONV_CASES, ids=CONV_IDS)
def test_conv2d_matches_naive_loop(case, dtype):
    x, w, b, p = _conv_args(case, dtype)
    y = nn.conv2d(x, w, b, **p)
    ref = naive_conv2d(x.astype(F64), w.astype(F64), b.astype(F64), **p)
    assert_tree_close(y, ref, dtype=dtype, **tol(dtype))


def test_conv2d_asymmetric_padding_and_same():
    rng = np.random.default_rng(1)
    x, w = rng.normal(size=(1, 2, 6, 7)), rng.normal(size=(3, 2, 2, 4))
    pad = ((1, 0), (2, 1))
    assert_tree_close(nn.conv2d(x, w, padding=pad), naive_conv2d(x, w, padding=pad), **tol(F64))
    # 'same' with an even kernel pads the extra row/column at the end, like torch
    same = nn.conv2d(x, w, padding="same", dilation=(1, 2))
    assert same.shape == (1, 3, 6, 7)
    ref = naive_conv2d(x, w, padding=((0, 1), (3, 3)), dilation=(1, 2))
    assert_tree_close(same, ref, **tol(F64))
    assert_tree_close(nn.conv2d(x, w, padding="valid"), naive_conv2d(x, w), **tol(F64))


def test_conv2d_unbatched_chw_input(dtype):
    x, w, b, p = _conv_args(CONV_CASES[1], dtype)
    y = nn.conv2d(x[1], w, b, **p)
    assert_tree_close(y, nn.conv2d(x, w, b, **p)[1], dtype=dtype, **tol(dtype))
    pooled = nn.max_pool2d(x[1], 2)
    assert_tree_close(pooled, nn.max_pool2d(x, 2)[1], dtype=dtype, **tol(dtype))


def test_conv2d_mixed_dtypes_promote():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(1, 2, 4, 4)).astype(np.float32)
    w = rng.normal(size=(3, 2, 3, 3))
    y = nn.conv2d(x, w)
    assert y.dtype == np.float64
    g = grad(lambda x: nn.conv2d(x, w).sum())(x)
    assert g.dtype == np.float32


POOL_CASES = [
    {"kernel_size": 2},
    {"kernel_size": 3, "stride": 2, "padding": 1},
    {"kernel_size": (2, 3), "stride": (1, 2), "padding": (1, 1)},
]


@pytest.mark.parametrize("p", POOL_CASES, ids=["2x2", "3x3s2p1", "rect"])
def test_pools_match_naive_loop(p, dtype):
    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 3, 7, 6)).astype(dtype)
    kernel, stride, padding = p["kernel_size"], p.get("stride", p["kernel_size"]), p.get("padding", 0)
    ref_max = naive_pool(x.astype(F64), kernel, stride, padding, np.max, -np.inf)
    assert_tree_close(nn.max_pool2d(x, **p), ref_max, dtype=dtype, **tol(dtype))
    ref_avg = naive_pool(x.astype(F64), kernel, stride, padding, np.mean, 0.0)
    assert_tree_close(nn.avg_pool2d(x, **p), ref_avg, dtype=dtype, **tol(dtype))


def test_max_pool_dilation_matches_naive_loop():
    x = np.random.default_rng(4).normal(size=(2, 7, 8))
    p = {"kernel_size": (2, 3), "stride": (2, 1), "padding": (1, 1), "dilation": (2, 2)}
    ref = naive_pool(x, (2, 3), (2, 1), 1, np.max, -np.inf, dilation=(2, 2))
    assert_tree_close(nn.max_pool2d(x, **p), ref, **tol(F64))


def test_sliding_windows_values():
    x = np.arange(2 * 5 * 4, dtype=F64).reshape(2, 5, 4)
    win = nn.sliding_windows(x, (2, 3), stride=(2, 1), padding=(0, 1))
    assert win.shape == (2, 2, 4, 2, 3)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1)))
    for i in range(2):
        for j in range(4):
            np.testing.assert_array_equal(win[:, i, j], xp[:, 2 * i : 2 * i + 2, j : j + 3])


def test_integer_max_pool():
    x = np.arange(16).reshape(1, 4, 4)
    np.testing.assert_array_equal(nn.max_pool2d(x, 2, padding=1), [[[0, 2, 3], [8, 10, 11], [12, 14, 15]]])


def test_one_hot_and_embedding():
    labels = np.array([[0, 2], [1, 3]])
    oh = nn.one_hot(labels, 4)
    assert oh.dtype == np.float32 and oh.shape == (2, 2, 4)
    np.testing.assert_array_equal(oh, np.eye(4, dtype=np.float32)[labels])
    np.testing.assert_array_equal(nn.one_hot(np.array([1, 0]), dtype=np.int64), [[0, 1], [1, 0]])
    weight = np.random.default_rng(5).normal(size=(4, 3))
    np.testing.assert_array_equal(nn.embedding(weight, labels), weight[labels])
    g = grad(lambda w: (nn.embedding(w, np.array([1, 1, 2])) ** 2).sum())(weight)
    expected = np.zeros_like(weight)
    expected[1] = 4 * weight[1]
    expected[2] = 2 * weight[2]
    assert_tree_close(g, expected, **tol(F64))


def test_initialisers(dtype):
    rng = np.random.default_rng(6)
    p = nn.init_linear(rng, 50, 40, dtype=dtype)
    assert p["w"].shape == (40, 50) and p["b"].shape == (40,)
    assert p["w"].dtype == dtype and p["b"].dtype == dtype
    bound = 1 / np.sqrt(50)
    assert np.abs(p["w"]).max() <= bound and np.abs(p["w"]).max() > 0.95 * bound
    assert abs(p["w"].mean()) < 0.1 * bound
    c = nn.init_conv2d(rng, 6, 8, (3, 2), groups=2, dtype=dtype)
    assert c["w"].shape == (8, 3, 3, 2) and c["b"].shape == (8,)
    assert np.abs(c["w"]).max() <= 1 / np.sqrt(3 * 3 * 2)
    layers = nn.init_mlp(rng, [5, 7, 2], dtype=dtype)
    assert [q["w"].shape for q in layers] == [(7, 5), (2, 7)]
    assert nn.init_linear(rng, 3, 2, bias=False)["b"] is None
    with pytest.raises(TypeError, match="numpy.random.Generator"):
        nn.init_linear(0, 3, 2)


def test_activation_values_match_jax_nn(dtype):
    x = np.concatenate([np.linspace(-6, 6, 25), [-800.0, 0.0, 800.0]]).astype(dtype)
    xj = jnp.asarray(x)
    pairs = [
        (nn.relu, jax.nn.relu),
        (nn.relu6, jax.nn.relu6),
        (lambda v: nn.leaky_relu(v, 0.1), lambda v: jax.nn.leaky_relu(v, 0.1)),
        (nn.elu, jax.nn.elu),
        (nn.sigmoid, jax.nn.sigmoid),
        (nn.log_sigmoid, jax.nn.log_sigmoid),
        (nn.softplus, jax.nn.softplus),
        (nn.silu, jax.nn.silu),
        (lambda v: nn.gelu(v, approximate="tanh"), lambda v: jax.nn.gelu(v, approximate=True)),
        (nn.gelu, lambda v: jax.nn.gelu(v, approximate=False)),
    ]
    with np.errstate(over="ignore"):
        for ours, theirs in pairs:
            got = ours(x)
            assert_tree_close(got, np.asarray(theirs(xj)), dtype=dtype, **tol(dtype))


def test_softplus_beta_and_stability():
    x = np.array([-1000.0, -30.0, 0.0, 30.0, 1000.0])
    np.testing.assert_allclose(nn.softplus(x, beta=2.0), np.logaddexp(0, 2 * x) / 2)
    assert np.isfinite(nn.softplus(x)).all()


def test_softmax_family_match_jax():
    x = np.random.default_rng(7).normal(size=(3, 5)) * 10
    assert_tree_close(nn.log_softmax(x), np.asarray(jax.nn.log_softmax(x)), **tol(F64))
    assert_tree_close(nn.softmax(x, axis=0), np.asarray(jax.nn.softmax(x, axis=0)), **tol(F64))
    ref = np.asarray(jax.scipy.special.logsumexp(x, axis=1))
    assert_tree_close(nn.logsumexp(x, axis=1), ref, **tol(F64))


# -- torch.nn.functional as the oracle (skipped without torch) -------------------------------


def _t(torch, a):
    return torch.tensor(np.asarray(a))


@pytest.mark.parametrize("case", CONV_CASES, ids=CONV_IDS)
def test_conv2d_matches_torch(torch, case):
    x, w, b, p = _conv_args(case, F64)
    ref = torch.nn.functional.conv2d(_t(torch, x), _t(torch, w), _t(torch, b), **p).numpy()
    assert_tree_close(nn.conv2d(x, w, b, **p), ref, **tol(F64))


@pytest.mark.parametrize(
    "p",
    [{}, {"stride": 2, "padding": 1, "output_padding": 1}, {"stride": (2, 1), "groups": 2, "dilation": 2}],
    ids=["plain", "strided", "grouped-dilated"],
)
def test_conv_transpose2d_matches_torch(torch, p):
    rng = np.random.default_rng(8)
    x, w, b = rng.normal(size=(2, 4, 4, 5)), rng.normal(size=(4, 3, 3, 2)), rng.normal(size=3 * p.get("groups", 1))
    ref = torch.nn.functional.conv_transpose2d(_t(torch, x), _t(torch, w), _t(torch, b), **p).numpy()
    assert_tree_close(nn.conv_transpose2d(x, w, b, **p), ref, **tol(F64))


@pytest.mark.parametrize(
    "p",
    [
        {"kernel_size": 2},
        {"kernel_size": 3, "stride": 2, "padding": 1},
        {"kernel_size": 3, "stride": 2, "ceil_mode": True},
        {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True},
        {"kernel_size": (2, 3), "stride": (1, 2), "padding": (1, 1), "dilation": (2, 1)},
    ],
    ids=["2x2", "s2p1", "ceil", "ceil-padded", "dilated"],
)
def test_max_pool2d_matches_torch(torch, p):
    x = np.random.default_rng(9).normal(size=(2, 3, 7, 6))
    ref = torch.nn.functional.max_pool2d(_t(torch, x), **p).numpy()
    assert_tree_close(nn.max_pool2d(x, **p), ref, **tol(F64))


@pytest.mark.parametrize("count_include_pad", [True, False])
@pytest.mark.parametrize(
    "p",
    [
        {"kernel_size": 2},
        {"kernel_size": 3, "stride": 2, "padding": 1},
        {"kernel_size": 3, "stride": 2, "ceil_mode": True},
        {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True},
        {"kernel_size": 3, "divisor_override": 2},
    ],
    ids=["2x2", "s2p1", "ceil", "ceil-padded", "divisor"],
)
def test_avg_pool2d_matches_torch(torch, p, count_include_pad):
    x = np.random.default_rng(10).normal(size=(2, 3, 7, 6))
    p = dict(p, count_include_pad=count_include_pad)
    ref = torch.nn.functional.avg_pool2d(_t(torch, x), **p).numpy()
    assert_tree_close(nn.avg_pool2d(x, **p), ref, **tol(F64))


def test_norms_match_torch(torch):
    F = torch.nn.functional
    rng = np.random.default_rng(11)
    x = rng.normal(size=(4, 3, 5, 2))
    w, b = rng.normal(size=(5, 2)), rng.normal(size=(5, 2))
    ref = F.layer_norm(_t(torch, x), (5, 2), _t(torch, w), _t(torch, b), eps=1e-3).numpy()
    assert_tree_close(nn.layer_norm(x, w, b, eps=1e-3), ref, **tol(F64))
    ref = F.layer_norm(_t(torch, x), (2,)).numpy()
    assert_tree_close(nn.layer_norm(x, normalized_shape=2), ref, **tol(F64))

    rm, rv = rng.normal(size=3), rng.uniform(0.5, 2, size=3)
    w, b = rng.normal(size=3), rng.normal(size=3)
    for training in (True, False):
        trm, trv = _t(torch, rm.copy()), _t(torch, rv.copy())
        ref = F.batch_norm(
            _t(torch, x), trm, trv, _t(torch, w), _t(torch, b), training=training, momentum=0.2, eps=1e-4
        ).numpy()
        y, nrm, nrv = nn.batch_norm(x, rm, rv, w, b, training=training, momentum=0.2, eps=1e-4)
        assert_tree_close((y, nrm, nrv), (ref, trm.numpy(), trv.numpy()), **tol(F64))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_cross_entropy_matches_torch(torch, reduction, smoothing, weighted):
    F = torch.nn.functional
    rng = np.random.default_rng(12)
    weight = rng.uniform(0.5, 2, size=5) if weighted else None
    tw = None if weight is None else _t(torch, weight)
    kw = {"reduction": reduction, "label_smoothing": smoothing}
    # class indices, with an ignored target, for (N, C) and (N, C, d1, d2)
    for shape in [(6, 5), (3, 5, 2, 2)]:
        logits = rng.normal(size=shape) * 3
        target = rng.integers(0, 5, size=shape[:1] + shape[2:])
        target.flat[1] = -100
        ref = F.cross_entropy(_t(torch, logits), _t(torch, target), weight=tw, **kw).numpy()
        got = nn.cross_entropy(logits, target, weight=weight, **kw)
        assert_tree_close(got, ref, **tol(F64))
    # class probabilities, and an unbatched (C,) input
    logits = rng.normal(size=(4, 5))
    probs = rng.dirichlet(np.ones(5), size=4)
    ref = F.cross_entropy(_t(torch, logits), _t(torch, probs), weight=tw, **kw).numpy()
    assert_tree_close(nn.cross_entropy(logits, probs, weight=weight, **kw), ref, **tol(F64))
    ref = F.cross_entropy(_t(torch, logits[0]), _t(torch, np.int64(3)), weight=tw, **kw).numpy()
    assert_tree_close(nn.cross_entropy(logits[0], np.int64(3), weight=weight, **kw), ref, **tol(F64))


def test_other_losses_match_torch(torch):
    F = torch.nn.functional
    rng = np.random.default_rng(13)
    logp = np.log(rng.dirichlet(np.ones(4), size=6))
    target = rng.integers(0, 4, size=6)
    weight = rng.uniform(0.5, 2, size=4)
    for reduction in ("mean", "sum", "none"):
        ref = F.nll_loss(_t(torch, logp), _t(torch, target), _t(torch, weight), reduction=reduction)
        assert_tree_close(nn.nll_loss(logp, target, weight, reduction=reduction), ref.numpy(), **tol(F64))
        a, b = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
        ref = F.mse_loss(_t(torch, a), _t(torch, b), reduction=reduction).numpy()
        assert_tree_close(nn.mse_loss(a, b, reduction=reduction), ref, **tol(F64))
        ref = F.l1_loss(_t(torch, a), _t(torch, b), reduction=reduction).numpy()
        assert_tree_close(nn.l1_loss(a, b, reduction=reduction), ref, **tol(F64))
        y = rng.uniform(size=(3, 4))
        ref = F.binary_cross_entropy_with_logits(_t(torch, a * 20), _t(torch, y), reduction=reduction)
        got = nn.binary_cross_entropy_with_logits(a * 20, y, reduction=reduction)
        assert_tree_close(got, ref.numpy(), **tol(F64))


def test_activations_and_one_hot_match_torch(torch):
    F = torch.nn.functional
    x = np.linspace(-5, 5, 41)
    tx = _t(torch, x)
    assert_tree_close(nn.gelu(x), F.gelu(tx).numpy(), **tol(F64))
    assert_tree_close(nn.gelu(x, approximate="tanh"), F.gelu(tx, approximate="tanh").numpy(), **tol(F64))
    assert_tree_close(nn.silu(x), F.silu(tx).numpy(), **tol(F64))
    assert_tree_close(nn.softplus(x, beta=1.5), F.softplus(tx, beta=1.5).numpy(), **tol(F64))
    labels = np.array([3, 0, 2])
    np.testing.assert_array_equal(nn.one_hot(labels, 5, dtype=np.int64), F.one_hot(_t(torch, labels), 5).numpy())


def test_initialiser_bounds_match_torch(torch):
    lin = torch.nn.Linear(12, 7)
    conv = torch.nn.Conv2d(6, 4, (3, 2), groups=2)
    p = nn.init_linear(np.random.default_rng(0), 12, 7)
    c = nn.init_conv2d(np.random.default_rng(0), 6, 4, (3, 2), groups=2)
    for ours, theirs in ((p, lin), (c, conv)):
        assert ours["w"].shape == tuple(theirs.weight.shape)
        bound = 1 / np.sqrt(np.prod(theirs.weight.shape[1:]))
        # torch's default draws are within the same bound
        assert float(theirs.weight.abs().max()) <= bound and np.abs(ours["w"]).max() <= bound


# -- derivatives: finite differences, vjp vs jvp, second order -------------------------------


@pytest.mark.parametrize("case", CONV_CASES, ids=CONV_IDS)
def test_conv2d_derivatives(case):
    x, w, b, p = _conv_args(case, F64)
    check_grads(lambda x, w, b: nn.conv2d(x, w, b, **p), (x, w, b), order=2)


def test_conv_transpose2d_derivatives():
    rng = np.random.default_rng(14)
    x, w = rng.normal(size=(2, 4, 3, 4)), rng.normal(size=(4, 1, 3, 2))
    f = lambda x, w: nn.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1, groups=2)  # noqa: E731
    check_grads(f, (x, w), order=2)


def _distinct(rng, shape, step=0.1):
    n = int(np.prod(shape))
    return ((rng.permutation(n) - n / 2) * step + rng.uniform(0, 0.2 * step, n)).reshape(shape)


@pytest.mark.parametrize("p", POOL_CASES + [{"kernel_size": 2, "stride": 1, "dilation": 2, "ceil_mode": True}])
def test_pool_derivatives(p):
    x = _distinct(np.random.default_rng(15), (2, 2, 7, 6))
    check_grads(lambda x: nn.max_pool2d(x, **p), (x,), order=2)
    if "dilation" not in p:
        check_grads(lambda x: nn.avg_pool2d(x, count_include_pad=False, **p), (x,), order=2)


def test_sliding_windows_derivatives():
    x = np.random.default_rng(16).normal(size=(2, 6, 5))
    check_grads(lambda x: nn.sliding_windows(x, (3, 2), stride=(2, 1), padding=1, dilation=(1, 2)), (x,), order=2)


def test_norm_and_loss_derivatives():
    rng = np.random.default_rng(17)
    x = rng.normal(size=(4, 3, 2, 2))
    w, b = rng.normal(size=3), rng.normal(size=3)
    rm, rv = rng.normal(size=3), rng.uniform(0.5, 2, size=3)

    def bn(x, w, b, training):
        return nn.batch_norm(x, rm, rv, w, b, training=training)[0]

    check_grads(lambda x, w, b: bn(x, w, b, True), (x, w, b), order=2)
    check_grads(lambda x, w, b: bn(x, w, b, False), (x, w, b), order=2)
    check_grads(lambda x, w, b: nn.layer_norm(x, w[:2], b[:2]), (x, w, b), order=2)
    logits = rng.normal(size=(5, 4))
    target = np.array([0, 3, 1, -100, 2])
    cw = rng.uniform(0.5, 2, size=4)
    check_grads(
        lambda z: nn.cross_entropy(z, target, weight=cw, label_smoothing=0.1), (logits,), order=2
    )
    probs = rng.dirichlet(np.ones(4), size=5)
    check_grads(lambda z, q: nn.cross_entropy(z, q), (logits, probs), order=2)
    check_grads(lambda a, c: nn.mse_loss(a, c), (logits, probs), order=2)
    check_grads(lambda a, c: nn.binary_cross_entropy_with_logits(a, c), (logits, probs), order=2)


def test_batch_norm_running_stats_carry_no_derivative():
    rng = np.random.default_rng(18)
    x = rng.normal(size=(4, 3, 2))
    rm, rv = np.zeros(3), np.ones(3)

    def f(x):
        _, m, v = nn.batch_norm(x, rm, rv, training=True)
        return m.sum() + v.sum()

    np.testing.assert_array_equal(grad(f)(x), np.zeros_like(x))


@pytest.mark.parametrize(
    "name",
    ["relu", "relu6", "leaky_relu", "elu", "sigmoid", "log_sigmoid", "softplus", "silu", "gelu", "gelu_tanh"],
)
def test_activation_derivatives_match_jax(name):
    ours = {"gelu_tanh": lambda v: nn.gelu(v, approximate="tanh")}.get(name, getattr(nn, name, None))
    theirs = {"gelu_tanh": lambda v: jax.nn.gelu(v, approximate=True), "gelu": lambda v: jax.nn.gelu(v, approximate=False)}.get(
        name, getattr(jax.nn, name, None)
    )
    # kinks (0, 6) included: the conventions must be jax.nn's
    x = np.array([-40.0, -6.0, -2.5, -1.0, 0.0, 0.5, 2.0, 6.0, 7.0, 40.0])
    g1 = vmap(grad(ours))(x)
    g2 = vmap(grad(grad(ours)))(x)
    assert_tree_close(g1, np.asarray(jax.vmap(jax.grad(theirs))(x)), **tol(F64))
    assert_tree_close(g2, np.asarray(jax.vmap(jax.grad(jax.grad(theirs)))(x)), **tol(F64))


def test_max_pool_ties_share_the_derivative():
    # NOTE [ties in max pooling]: tied maxima share the derivative equally, as fnp.max does
    x = np.array([[[1.0, 1.0, 0.0, 2.0], [0.0, 1.0, 2.0, 2.0], [3.0, 3.0, 3.0, 3.0], [3.0, 3.0, 0.0, 5.0]]])
    g = grad(lambda x: nn.max_pool2d(x, 2).sum())(x)
    expected = np.array([[[1 / 3, 1 / 3, 0, 1 / 3], [0, 1 / 3, 1 / 3, 1 / 3], [1 / 4, 1 / 4, 0.5, 0], [1 / 4, 1 / 4, 0, 1]]])
    assert_tree_close(g, expected, **tol(F64))

    def composite(x):  # the same pooling from sliding windows and fnp.max
        return fnp.max(nn.sliding_windows(x, 2, stride=2), axis=(-2, -1))

    t = np.random.default_rng(19).normal(size=x.shape)
    ours = jvp(lambda x: nn.max_pool2d(x, 2), (x,), (t,))[1]
    assert_tree_close(ours, jvp(composite, (x,), (t,))[1], **tol(F64))
    assert_tree_close(g, grad(lambda x: composite(x).sum())(x), **tol(F64))

    # and JAX's max over explicit windows agrees (its max shares ties the same way)
    def jax_pool(x):
        taps = [x[..., i::2, j::2] for i in range(2) for j in range(2)]
        return jnp.max(jnp.stack(taps, -1), -1).sum()

    assert_tree_close(g, np.asarray(jax.grad(jax_pool)(x)), **tol(F64))


def test_max_pool_ties_with_padding_and_batched_tangents():
    x = np.zeros((1, 3, 3))
    t = np.random.default_rng(20).normal(size=(4, 1, 3, 3))
    # padding is -inf, so the zeros win every window; vmap over tangents alone
    out = vmap(lambda t: jvp(lambda x: nn.max_pool2d(x, 2, padding=1), (x,), (t,))[1])(t)
    ref = np.stack([jvp(lambda x: nn.max_pool2d(x, 2, padding=1), (x,), (ti,))[1] for ti in t])
    assert_tree_close(out, ref, **tol(F64))
    assert_tree_close(out[:, 0, 0, 0], t[:, 0, 0, 0], **tol(F64))


# -- vmap: every primitive, every placement -----------------------------------------------------


def _move(a, d):
    return a if d is None else np.moveaxis(a, 0, d)


@pytest.mark.parametrize("case", CONV_CASES, ids=CONV_IDS)
@pytest.mark.parametrize("dims", [(0, None, None), (None, 0, 0), (0, 0, 0), (2, 3, None), (4, None, 0)])
def test_conv2d_vmap(case, dims, dtype):
    x, w, b, p = _conv_args(case, dtype)
    rng = np.random.default_rng(21)
    xs = rng.normal(size=(3,) + x.shape).astype(dtype)
    ws = rng.normal(size=(3,) + w.shape).astype(dtype)
    bs = rng.normal(size=(3,) + b.shape).astype(dtype)
    args = [x if dims[0] is None else _move(xs, dims[0]), w if dims[1] is None else _move(ws, dims[1])]
    args.append(b if dims[2] is None else _move(bs, dims[2]))
    check_vmap(lambda x, w, b: nn.conv2d(x, w, b, **p), args, in_dims=dims)


@pytest.mark.parametrize("dims", [(0, None), (None, 0), (0, 0), (3, 1)])
def test_conv_derivative_primitives_vmap(dims):
    xs_, ws_, p = CONV_CASES[2]
    rng = np.random.default_rng(22)
    x, w = rng.normal(size=xs_), rng.normal(size=ws_)
    g = rng.normal(size=nn.conv2d(x, w, **p).shape)
    geo = {"stride": (2, 1), "padding": ((1, 1), (2, 2)), "dilation": (2, 1), "groups": 2}

    def conv_t(g, w):
        return ops.conv_transpose2d_p.bind(g, w, in_size=xs_[2:], **geo)

    def conv_w(x, g):
        return ops.conv2d_weight_p.bind(x, g, kernel_size=ws_[2:], **geo)

    def batch(a, d):
        return a if d is None else _move(np.stack([a, 2 * a + 1, -a]), d)

    check_vmap(conv_t, [batch(g, dims[0]), batch(w, dims[1])], in_dims=dims)
    check_vmap(conv_w, [batch(x, dims[0]), batch(g, dims[1])], in_dims=dims)


@pytest.mark.parametrize("d", [0, 1, 3, -1])
def test_pool_and_window_vmap(d, dtype):
    x = _distinct(np.random.default_rng(23), (3, 2, 2, 7, 6)).astype(dtype)
    xb = np.moveaxis(x, 0, d)
    for f in [
        lambda x: nn.max_pool2d(x, 3, 2, 1),
        lambda x: nn.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
        lambda x: nn.sliding_windows(x, 2, padding=1),
        lambda x: grad(lambda x: (nn.max_pool2d(x, 2) ** 2).sum())(x),
        lambda x: grad(lambda x: (nn.avg_pool2d(x, 2, 1) ** 2).sum())(x),
        lambda x: grad(lambda x: (nn.sliding_windows(x, 2, 2, 1) ** 2).sum())(x),
    ]:
        check_vmap(f, (xb,), in_dims=d)


def test_nested_vmap_of_conv():
    rng = np.random.default_rng(24)
    x = rng.normal(size=(2, 3, 1, 2, 5, 5))
    w = rng.normal(size=(3, 4, 2, 3, 3))
    f = vmap(vmap(lambda x, w: nn.conv2d(x, w, padding=1), in_dims=(0, None)), in_dims=(1, 0))
    got = f(x, w)
    ref = np.stack([np.stack([nn.conv2d(x[i, j], w[j], padding=1) for i in range(2)]) for j in range(3)])
    assert_tree_close(got, ref, **tol(F64))


def test_layers_and_losses_vmap(dtype):
    rng = np.random.default_rng(25)
    x = rng.normal(size=(3, 4, 3, 2, 2)).astype(dtype)
    w, b = rng.normal(size=(3, 2)).astype(dtype), rng.normal(size=(3, 2)).astype(dtype)
    rm, rv = rng.normal(size=(3, 3)).astype(dtype), rng.uniform(0.5, 2, (3, 3)).astype(dtype)
    check_vmap(lambda x: nn.batch_norm(x, None, None, training=True)[0], (x,))
    check_vmap(
        lambda x, rm, rv: nn.batch_norm(x, rm, rv, training=True), (x, rm, rv), in_dims=(0, 0, 0)
    )
    check_vmap(lambda x, rm, rv: nn.batch_norm(x, rm, rv)[0], (x, rm, rv), in_dims=(1, None, 0))
    check_vmap(lambda x, w, b: nn.layer_norm(x, w, b), (x, w, b), in_dims=(0, None, None))
    logits = rng.normal(size=(3, 5, 4)).astype(dtype)
    target = rng.integers(0, 4, size=(3, 5))
    check_vmap(lambda z, t: nn.cross_entropy(z, t, label_smoothing=0.1), (logits, target))
    check_vmap(lambda z, t: nn.cross_entropy(z, t), (logits, target[0]), in_dims=(0, None))
    idx = rng.integers(0, 4, size=(3, 6))
    emb = rng.normal(size=(3, 4, 2)).astype(dtype)
    check_vmap(nn.embedding, (emb, idx))
    check_vmap(nn.embedding, (emb[0], idx), in_dims=(None, 0))
    check_vmap(lambda t: nn.one_hot(t, 4), (idx,))
    check_vmap(nn.gelu, (logits,), in_dims=2)
    check_vmap(lambda v: nn.softplus(v, beta=2.0), (logits,), in_dims=1)


# -- the op database entries ----------------------------------------------------------------------


def test_op_db_nn_covers_every_primitive():
    declared = {getattr(ops, n).name for n in ops.__all__}
    assert declared == set(NAMES)
    assert all(getattr(ops, n).batch is not None for n in ops.__all__)


@pytest.mark.parametrize("k", range(len(ENTRIES)), ids=[e["name"] for e in ENTRIES])
def test_op_db_nn_entries(k):
    e = ENTRIES[k]
    for args in e["args"]:
        assert_tree_close(e["fn"](*args), np.asarray(e["jax_fn"](*args)), **tol(F64))
        batched = tuple(np.stack([a, 0.5 * a + 0.25]) for a in args)
        check_vmap(e["fn"], batched)
        diff = e["diff_argnums"]

        def f(*d, args=args, diff=diff):
            full = list(args)
            for i, v in zip(diff, d):
                full[i] = v
            return e["fn"](*full)

        if e["grads"]:
            check_grads(f, tuple(args[i] for i in diff), order=2)
