"""Tests of ``ftransforms.nn`` and the primitives of ``ftransforms/ops/nn.py``.

Oracles: naive NumPy loops (always), ``torch.nn.functional`` (when torch is installed;
that group skips otherwise), JAX in float64 (``jax.lax.conv_general_dilated``,
``jax.nn``) for compositions of transforms, finite differences (``check_grads``), and
Python loops for ``vmap`` (``check_vmap``).  The loop fallback is off for every test
here: every layer must batch through real batching rules.
"""

from __future__ import annotations

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
from tests.op_db import covered_primitives
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
            win = xp[
                ...,
                i * sh : i * sh + dh * (kh - 1) + 1 : dh,
                j * sw : j * sw + dw * (kw - 1) + 1 : dw,
            ]
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
    (
        (1, 4, 7, 6),
        (6, 2, 3, 2),
        {"stride": (2, 1), "padding": (1, 2), "dilation": (2, 1), "groups": 2},
    ),
    ((2, 3, 5, 5), (6, 1, 3, 3), {"padding": 1, "groups": 3}),
    ((2, 4, 5, 4), (2, 4, 1, 1), {}),
]
CONV_IDS = ["plain", "strided-padded", "dilated-grouped", "depthwise", "1x1"]


def _halves(rng, shape, dtype):
    """Multiples of 1/2 in [-2, 2]: products and sums of a few hundred of them are exact in
    float32, so every summation order (GEMM blocking, batching) gives the same result and
    float32 can be compared with the dtype's tolerance whatever cancellations occur."""
    return (rng.integers(-4, 5, size=shape) / 2).astype(dtype)


def _conv_args(case, dtype, seed=0):
    xs, ws, p = case
    rng = np.random.default_rng(seed)
    return _halves(rng, xs, dtype), _halves(rng, ws, dtype), _halves(rng, ws[:1], dtype), p


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
    kernel, stride, padding = (
        p["kernel_size"],
        p.get("stride", p["kernel_size"]),
        p.get("padding", 0),
    )
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
    np.testing.assert_array_equal(
        nn.max_pool2d(x, 2, padding=1), [[[0, 2, 3], [8, 10, 11], [12, 14, 15]]]
    )


def test_one_hot_and_embedding():
    labels = np.array([[0, 2], [1, 3]])
    oh = nn.one_hot(labels, 4)  # jax.nn.one_hot's default dtype (x64)
    assert oh.dtype == np.float64 and oh.shape == (2, 2, 4)
    np.testing.assert_array_equal(oh, np.eye(4)[labels])
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


ACTIVATIONS = {
    "relu": (nn.relu, jax.nn.relu),
    "relu6": (nn.relu6, jax.nn.relu6),
    "leaky_relu": (lambda v: nn.leaky_relu(v, 0.1), lambda v: jax.nn.leaky_relu(v, 0.1)),
    "elu": (nn.elu, jax.nn.elu),
    "sigmoid": (nn.sigmoid, jax.nn.sigmoid),
    "log_sigmoid": (nn.log_sigmoid, jax.nn.log_sigmoid),
    "softplus": (nn.softplus, jax.nn.softplus),
    "silu": (nn.silu, jax.nn.silu),
    "gelu": (lambda v: nn.gelu(v, approximate="none"), lambda v: jax.nn.gelu(v, approximate=False)),
    "gelu_tanh": (nn.gelu, jax.nn.gelu),  # JAX's default: the tanh form
}
#: values, with the kinks of relu/relu6/leaky_relu/elu (0, 6) and far tails
ACT_X = np.array([-800.0, -40.0, -6.0, -2.5, -1.0, -0.3, 0.0, 0.5, 2.0, 6.0, 7.0, 40.0, 800.0])


@pytest.fixture(scope="module")
def jax_activations():
    """{name: (values, first, second derivatives)} at ACT_X in float64: one jit."""

    def refs(x):
        out = {}
        for name, (_, f) in ACTIVATIONS.items():
            d1 = jax.vmap(jax.grad(f))(x)
            out[name] = (f(x), d1, jax.vmap(jax.grad(jax.grad(f)))(x))
        return out

    return jax.tree_util.tree_map(np.asarray, jax.jit(refs)(ACT_X))


@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_activations_match_jax_nn(name, jax_activations):
    ours = ACTIVATIONS[name][0]
    value, d1, d2 = jax_activations[name]
    x32 = ACT_X.astype(np.float32)  # exactly ACT_X, so the float64 values are its oracle
    with np.errstate(over="ignore"):
        assert_tree_close(ours(x32), value, dtype=np.float32, **tol(np.float32))
    assert_tree_close(ours(ACT_X), value, **tol(F64))
    # derivatives at the kinks follow jax.nn's conventions
    assert_tree_close(vmap(grad(ours))(ACT_X), d1, **tol(F64))
    assert_tree_close(vmap(grad(grad(ours)))(ACT_X), d2, **tol(F64))


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


def assert_eager_close(actual, expected, **kw):
    """For results of plain (untransformed) calls: like NumPy's, a full reduction there is
    a NumPy scalar, so it is viewed as a 0-d array before the comparison."""
    assert isinstance(actual, (np.ndarray, np.generic)), type(actual)
    assert_tree_close(np.asarray(actual), expected, **kw)


@pytest.mark.parametrize("case", CONV_CASES, ids=CONV_IDS)
def test_conv2d_matches_torch(torch, case):
    x, w, b, p = _conv_args(case, F64)
    ref = torch.nn.functional.conv2d(_t(torch, x), _t(torch, w), _t(torch, b), **p).numpy()
    assert_tree_close(nn.conv2d(x, w, b, **p), ref, **tol(F64))


@pytest.mark.parametrize(
    "p",
    [
        {},
        {"stride": 2, "padding": 1, "output_padding": 1},
        {"stride": (2, 1), "groups": 2, "dilation": 2},
    ],
    ids=["plain", "strided", "grouped-dilated"],
)
def test_conv_transpose2d_matches_torch(torch, p):
    rng = np.random.default_rng(8)
    x, w, b = (
        rng.normal(size=(2, 4, 4, 5)),
        rng.normal(size=(4, 3, 3, 2)),
        rng.normal(size=3 * p.get("groups", 1)),
    )
    ref = torch.nn.functional.conv_transpose2d(
        _t(torch, x), _t(torch, w), _t(torch, b), **p
    ).numpy()
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
            _t(torch, x),
            trm,
            trv,
            _t(torch, w),
            _t(torch, b),
            training=training,
            momentum=0.2,
            eps=1e-4,
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
        assert_eager_close(got, ref, **tol(F64))
    # class probabilities, and an unbatched (C,) input
    logits = rng.normal(size=(4, 5))
    probs = rng.dirichlet(np.ones(5), size=4)
    ref = F.cross_entropy(_t(torch, logits), _t(torch, probs), weight=tw, **kw).numpy()
    assert_eager_close(nn.cross_entropy(logits, probs, weight=weight, **kw), ref, **tol(F64))
    ref = F.cross_entropy(_t(torch, logits[0]), _t(torch, np.int64(3)), weight=tw, **kw).numpy()
    assert_eager_close(
        nn.cross_entropy(logits[0], np.int64(3), weight=weight, **kw), ref, **tol(F64)
    )


def test_other_losses_match_torch(torch):
    F = torch.nn.functional
    rng = np.random.default_rng(13)
    logp = np.log(rng.dirichlet(np.ones(4), size=6))
    target = rng.integers(0, 4, size=6)
    weight = rng.uniform(0.5, 2, size=4)
    for reduction in ("mean", "sum", "none"):
        ref = F.nll_loss(_t(torch, logp), _t(torch, target), _t(torch, weight), reduction=reduction)
        assert_eager_close(
            nn.nll_loss(logp, target, weight, reduction=reduction), ref.numpy(), **tol(F64)
        )
        a, b = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
        ref = F.mse_loss(_t(torch, a), _t(torch, b), reduction=reduction).numpy()
        assert_eager_close(nn.mse_loss(a, b, reduction=reduction), ref, **tol(F64))
        ref = F.l1_loss(_t(torch, a), _t(torch, b), reduction=reduction).numpy()
        assert_eager_close(nn.l1_loss(a, b, reduction=reduction), ref, **tol(F64))
        y = rng.uniform(size=(3, 4))
        ref = F.binary_cross_entropy_with_logits(
            _t(torch, a * 20), _t(torch, y), reduction=reduction
        )
        got = nn.binary_cross_entropy_with_logits(a * 20, y, reduction=reduction)
        assert_eager_close(got, ref.numpy(), **tol(F64))


def test_activations_and_one_hot_match_torch(torch):
    F = torch.nn.functional
    x = np.linspace(-5, 5, 41)
    tx = _t(torch, x)
    assert_tree_close(nn.gelu(x, approximate="none"), F.gelu(tx).numpy(), **tol(F64))
    assert_tree_close(
        nn.gelu(x, approximate="tanh"), F.gelu(tx, approximate="tanh").numpy(), **tol(F64)
    )
    assert_tree_close(nn.silu(x), F.silu(tx).numpy(), **tol(F64))
    assert_tree_close(nn.softplus(x, beta=1.5), F.softplus(tx, beta=1.5).numpy(), **tol(F64))
    labels = np.array([3, 0, 2])
    np.testing.assert_array_equal(
        nn.one_hot(labels, 5, dtype=np.int64), F.one_hot(_t(torch, labels), 5).numpy()
    )


def test_initialiser_bounds_match_torch(torch):
    lin = torch.nn.Linear(12, 7)
    conv = torch.nn.Conv2d(6, 4, (3, 2), groups=2)
    p = nn.init_linear(np.random.default_rng(0), 12, 7)
    c = nn.init_conv2d(np.random.default_rng(0), 6, 4, (3, 2), groups=2)
    for ours, theirs in ((p, lin), (c, conv)):
        assert ours["w"].shape == tuple(theirs.weight.shape)
        bound = 1 / np.sqrt(np.prod(theirs.weight.shape[1:]))
        # torch's default draws are within the same bound
        assert (
            float(theirs.weight.detach().abs().max()) <= bound and np.abs(ours["w"]).max() <= bound
        )


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


@pytest.mark.parametrize(
    "p", POOL_CASES + [{"kernel_size": 2, "stride": 1, "dilation": 2, "ceil_mode": True}]
)
def test_pool_derivatives(p):
    x = _distinct(np.random.default_rng(15), (2, 2, 7, 6))
    check_grads(lambda x: nn.max_pool2d(x, **p), (x,), order=2)
    if "dilation" not in p:
        check_grads(lambda x: nn.avg_pool2d(x, count_include_pad=False, **p), (x,), order=2)


def test_sliding_windows_derivatives():
    x = np.random.default_rng(16).normal(size=(2, 6, 5))
    check_grads(
        lambda x: nn.sliding_windows(x, (3, 2), stride=(2, 1), padding=1, dilation=(1, 2)),
        (x,),
        order=2,
    )


def test_norm_and_loss_derivatives():
    rng = np.random.default_rng(17)
    x = rng.normal(size=(4, 3, 2, 2))
    w, b = rng.normal(size=3), rng.normal(size=3)
    rm, rv = rng.normal(size=3), rng.uniform(0.5, 2, size=3)

    def bn(x, w, b, training):
        return nn.batch_norm(x, rm, rv, w, b, training=training)[0]

    check_grads(lambda x, w, b: bn(x, w, b, True), (x, w, b), order=2)
    check_grads(lambda x, w, b: bn(x, w, b, False), (x, w, b), order=2)
    lw, lb = rng.normal(size=(2, 2)), rng.normal(size=(2, 2))
    check_grads(lambda x, w, b: nn.layer_norm(x, w, b), (x, lw, lb), order=2)
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


def test_max_pool_ties_share_the_derivative():
    # NOTE [ties in max pooling]: tied maxima share the derivative equally, as fnp.max does
    x = np.array(
        [[[1.0, 1.0, 0.0, 2.0], [0.0, 1.0, 2.0, 2.0], [3.0, 3.0, 3.0, 3.0], [3.0, 3.0, 0.0, 5.0]]]
    )
    g = grad(lambda x: nn.max_pool2d(x, 2).sum())(x)
    third, quarter = 1 / 3, 1 / 4
    expected = np.array(
        [
            [
                [third, third, 0, third],
                [0, third, third, third],
                [quarter, quarter, 0, 0],
                [quarter, quarter, 0, 1],
            ]
        ]
    )
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
@pytest.mark.parametrize(
    "dims", [(0, None, None), (None, 0, 0), (0, 0, 0), (2, 3, None), (4, None, 0)]
)
def test_conv2d_vmap(case, dims, dtype):
    x, w, b, p = _conv_args(case, dtype)
    rng = np.random.default_rng(21)
    xs = _halves(rng, (3,) + x.shape, dtype)
    ws = _halves(rng, (3,) + w.shape, dtype)
    bs = _halves(rng, (3,) + b.shape, dtype)
    args = [
        x if dims[0] is None else _move(xs, dims[0]),
        w if dims[1] is None else _move(ws, dims[1]),
    ]
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
    ref = np.stack(
        [np.stack([nn.conv2d(x[i, j], w[j], padding=1) for i in range(2)]) for j in range(3)]
    )
    assert_tree_close(got, ref, **tol(F64))


def test_layers_and_losses_vmap(dtype):
    rng = np.random.default_rng(25)
    x = rng.normal(size=(3, 4, 3, 2, 2)).astype(dtype)
    w, b = rng.normal(size=(2, 2)).astype(dtype), rng.normal(size=(2, 2)).astype(dtype)
    rm, rv = rng.normal(size=(3, 3)).astype(dtype), rng.uniform(0.5, 2, (3, 3)).astype(dtype)
    check_vmap(lambda x: nn.batch_norm(x, None, None, training=True)[0], (x,))
    check_vmap(
        lambda x, rm, rv: nn.batch_norm(x, rm, rv, training=True), (x, rm, rv), in_dims=(0, 0, 0)
    )
    xt = np.moveaxis(x, 0, 1)
    check_vmap(lambda x, rm, rv: nn.batch_norm(x, rm, rv)[0], (xt, rm[0], rv), in_dims=(1, None, 0))
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


def test_op_db_covers_every_nn_primitive():
    # the generic sweeps (tests/test_ops.py, test_jit_ops.py) run the entries of
    # tests/op_db_nn.py; here: every primitive of ftransforms/ops/nn.py has one
    declared = {getattr(ops, n).name for n in ops.__all__}
    missing = declared - set(covered_primitives())
    assert not missing, f"add an OpEntry to tests/op_db_nn.py for {sorted(missing)}"
    assert all(getattr(ops, n).batch is not None for n in ops.__all__)


# -- a small CNN: per-example gradients, ensembles, compositions vs JAX -----------------------


def init_cnn(rng, dtype=F64):
    return {
        "c1": nn.init_conv2d(rng, 1, 4, 3, dtype=dtype),
        "c2": nn.init_conv2d(rng, 4, 6, 3, groups=2, dtype=dtype),
        "fc": nn.init_linear(rng, 6 * 2 * 2, 3, dtype=dtype),
    }


def cnn(p, x):
    """(N, 1, 8, 8) -> (N, 3), or one (1, 8, 8) image -> (3,)."""
    x = nn.relu(nn.conv2d(x, p["c1"]["w"], p["c1"]["b"], padding=1))
    x = nn.max_pool2d(x, 2)
    x = nn.gelu(nn.conv2d(x, p["c2"]["w"], p["c2"]["b"], padding=1, groups=2), approximate=False)
    x = nn.avg_pool2d(x, 2)
    return nn.linear(p["fc"], nn.flatten(x, fnp.ndim(x) - 3))


def cnn_loss(p, x, y):
    return nn.cross_entropy(cnn(p, x), y)


def jax_cnn(p, x):
    def conv(x, q, groups=1):
        y = jax.lax.conv_general_dilated(
            x, q["w"], (1, 1), ((1, 1), (1, 1)), dimension_numbers=DN, feature_group_count=groups
        )
        return y + q["b"].reshape(-1, 1, 1)

    def pool(x, reduce):  # non-overlapping 2x2 windows
        n, c, h, w = x.shape
        return reduce(x.reshape(n, c, h // 2, 2, w // 2, 2), axis=(3, 5))

    x = jax.nn.relu(conv(x, p["c1"]))
    x = pool(x, jnp.max)
    x = jax.nn.gelu(conv(x, p["c2"], 2), approximate=False)
    x = pool(x, jnp.mean)
    x = x.reshape(x.shape[0], -1)
    return x @ p["fc"]["w"].T + p["fc"]["b"]


def jax_cnn_loss(p, x, y):  # one example
    logits = jax_cnn(p, x[None])[0]
    return -jax.nn.log_softmax(logits)[y]


def _cnn_data(dtype, n=6, seed=30):
    rng = np.random.default_rng(seed)
    params = init_cnn(rng, dtype)
    x = rng.normal(size=(n, 1, 8, 8)).astype(dtype)
    y = rng.integers(0, 3, size=n)
    return params, x, y


def test_per_example_grads_match_loop(dtype):
    params, x, y = _cnn_data(dtype)
    got = vmap(grad(cnn_loss), in_dims=(None, 0, 0))(params, x, y)
    loop = [grad(cnn_loss)(params, x[i], y[i]) for i in range(len(x))]
    expected = tree_map(lambda *g: np.stack(g), *loop)
    assert_tree_close(got, expected, dtype=dtype, **tol(dtype))
    # the batch axis anywhere: images batched on their last axis
    got_last = vmap(grad(cnn_loss), in_dims=(None, 3, 0))(params, np.moveaxis(x, 0, 3), y)
    assert_tree_close(got_last, expected, dtype=dtype, **tol(dtype))


@pytest.fixture(scope="module")
def cnn_problem():
    """Parameters, data, a direction, and JAX's (float64, one jit) per-example gradients,
    Hessian-vector product, and gradient of the summed squared per-example gradient norms."""
    params, x, y = _cnn_data(F64, n=4)
    v = tree_map(lambda p: np.random.default_rng(31).normal(size=p.shape), params)

    def refs(params, v):
        per_example = jax.vmap(jax.grad(jax_cnn_loss), in_axes=(None, 0, 0))

        def batch_loss(p):
            return jnp.mean(jax.vmap(jax_cnn_loss, in_axes=(None, 0, 0))(p, x, y))

        def sq_norms(p):
            return sum(jnp.sum(g * g) for g in jax.tree_util.tree_leaves(per_example(p, x, y)))

        hvp = jax.jvp(jax.grad(batch_loss), (params,), (v,))[1]
        return per_example(params, x, y), hvp, jax.grad(sq_norms)(params)

    ref = jax.tree_util.tree_map(np.asarray, jax.jit(refs)(params, v))
    return params, x, y, v, ref


def test_per_example_grads_match_jax(cnn_problem):
    params, x, y, _, (ref, _, _) = cnn_problem
    got = vmap(grad(cnn_loss), in_dims=(None, 0, 0))(params, x, y)
    assert_tree_close(got, ref, **tol(F64))


def test_hvp_and_second_order_compositions_match_jax(cnn_problem):
    params, x, y, v, (_, hvp_ref, sq_ref) = cnn_problem

    def batch_loss(p):
        return nn.cross_entropy(cnn(p, x), y)

    hvp = jvp(grad(batch_loss), (params,), (v,))[1]
    assert_tree_close(hvp, hvp_ref, **tol(F64))

    def directional(p):  # reverse-over-reverse: the gradient of <grad, v>
        return sum(fnp.vdot(a, b) for a, b in zip(tree_leaves(grad(batch_loss)(p)), tree_leaves(v)))

    assert_tree_close(grad(directional)(params), hvp_ref, **tol(F64))

    def sq_norms(p):  # per-example gradient norms, differentiated (DP-SGD-style)
        g = vmap(grad(cnn_loss), in_dims=(None, 0, 0))(p, x, y)
        return sum(fnp.sum(leaf * leaf) for leaf in tree_leaves(g))

    assert_tree_close(grad(sq_norms)(params), sq_ref, **tol(F64))


def test_conv_hessian_and_jacobians_match_jax():
    rng = np.random.default_rng(32)
    x, w = rng.normal(size=(2, 2, 5, 4)), rng.normal(size=(2, 1, 2, 3))
    ws = rng.normal(size=(3,) + w.shape)
    p = {"stride": (2, 1), "padding": 1, "dilation": (1, 2), "groups": 2}
    y_shape = nn.conv2d(x, w, **p).shape
    ct = rng.normal(size=(3,) + y_shape)

    def f(w):
        return fnp.sum(fnp.tanh(nn.conv2d(x, w, **p)))

    def g(x):
        return nn.max_pool2d(fnp.tanh(nn.conv2d(x, w, **p)), 2, 1)

    def vjp_w(w, c):
        return vjp(lambda w: nn.conv2d(x, w, **p), w)[1](c)[0]

    def refs(x, w, ws, ct):
        def jf(w):
            return jnp.sum(jnp.tanh(jax_conv(x, w, **p)))

        def jg(x):
            y = jnp.tanh(jax_conv(x, w, **p))
            return jax.lax.reduce_window(
                y, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 1, 1), "VALID"
            )

        def jvjp_w(w, c):
            return jax.vjp(lambda w: jax_conv(x, w, **p), w)[1](c)[0]

        return jax.hessian(jf)(w), jax.jacrev(jg)(x), jax.vmap(jvjp_w)(ws, ct)

    hess, jac, per_kernel = (np.asarray(r) for r in jax.jit(refs)(x, w, ws, ct))
    assert_tree_close(hessian(f)(w), hess, **tol(F64))
    assert_tree_close(jacfwd(jacrev(f))(w), hess, **tol(F64))
    assert_tree_close(jacrev(g)(x), jac, **tol(F64))
    assert_tree_close(jacfwd(g)(x), jac, **tol(F64))
    # vmap of vjp over per-example kernels
    assert_tree_close(vmap(vjp_w)(ws, ct), per_kernel, **tol(F64))


def test_ensemble_with_stacked_params(dtype):
    rng = np.random.default_rng(33)
    models = [init_cnn(rng, dtype) for _ in range(3)]
    stacked = nn.stack_trees(models)
    assert stacked["c1"]["w"].shape == (3, 4, 1, 3, 3)
    back = nn.unstack_tree(stacked)
    assert len(back) == 3
    assert_tree_close(back[1], models[1], dtype=dtype, **tol(dtype))
    x = rng.normal(size=(5, 1, 8, 8)).astype(dtype)
    y = rng.integers(0, 3, size=5)
    # shared data: kernels batched alone (folded into the output channels)
    got = vmap(cnn, in_dims=(0, None))(stacked, x)
    assert_tree_close(got, np.stack([cnn(m, x) for m in models]), dtype=dtype, **tol(dtype))
    # each model on its own data: kernels and images batched (folded into the groups)
    xs = rng.normal(size=(3, 5, 1, 8, 8)).astype(dtype)
    got = vmap(cnn)(stacked, xs)
    assert_tree_close(
        got, np.stack([cnn(m, xi) for m, xi in zip(models, xs)]), dtype=dtype, **tol(dtype)
    )
    # ensemble gradients, and per-model per-example gradients (vmap of vmap of grad)
    loss = lambda p, x, y: nn.cross_entropy(cnn(p, x), y)  # noqa: E731
    got = vmap(grad(loss), in_dims=(0, None, None))(stacked, x, y)
    expected = nn.stack_trees([grad(loss)(m, x, y) for m in models])
    assert_tree_close(got, expected, dtype=dtype, **tol(dtype))
    per = vmap(vmap(grad(cnn_loss), in_dims=(None, 0, 0)), in_dims=(0, None, None))(stacked, x, y)
    expected = nn.stack_trees(
        [nn.stack_trees([grad(cnn_loss)(m, x[i], y[i]) for i in range(5)]) for m in models]
    )
    assert_tree_close(per, expected, dtype=dtype, **tol(dtype))


def test_ensemble_training_step_under_vmap():
    rng = np.random.default_rng(34)
    models = [init_cnn(rng) for _ in range(3)]
    x, y = rng.normal(size=(4, 1, 8, 8)), rng.integers(0, 3, size=4)
    opt = nn.adam(lr=1e-2)
    loss = lambda p: nn.cross_entropy(cnn(p, x), y)  # noqa: E731

    def step(p, s):
        return opt.update(grad(loss)(p), s, p)

    stacked = nn.stack_trees(models)
    states = vmap(opt.init)(stacked)
    for _ in range(2):
        stacked, states = vmap(step)(stacked, states)
    for k, m in enumerate(models):
        s = opt.init(m)
        for _ in range(2):
            m, s = step(m, s)
        assert_tree_close(nn.unstack_tree(stacked)[k], m, **tol(F64))
        assert int(nn.unstack_tree(states)[k]["step"]) == 2


def test_batched_conv_is_one_call_whatever_the_batch_size(monkeypatch):
    """vmap folds the batch into the convolution: the number of GEMM-backed primitive calls
    does not grow with the batch (no loop over examples)."""
    calls = {"n": 0}
    originals = {p: p.impl for p in (ops.conv2d_p, ops.conv_transpose2d_p, ops.conv2d_weight_p)}

    def counting(impl):
        def wrapped(*a, **k):
            calls["n"] += 1
            return impl(*a, **k)

        return wrapped

    for p, impl in originals.items():
        monkeypatch.setattr(p, "impl", counting(impl))
    counts = []
    for n in (2, 16):
        params, x, y = _cnn_data(F64, n=n)
        calls["n"] = 0
        vmap(grad(cnn_loss), in_dims=(None, 0, 0))(params, x, y)
        counts.append(calls["n"])
    assert counts[0] == counts[1] == 5  # 2 forward, 1 input and 2 kernel cotangents


# -- optimisers ----------------------------------------------------------------------------------


def _opt_problem(seed=35):
    rng = np.random.default_rng(seed)
    params = {"a": rng.normal(size=(3, 2)), "b": [rng.normal(size=4), None]}
    grads = [tree_map(lambda p: rng.normal(size=p.shape), params) for _ in range(3)]
    return params, grads


def test_sgd_matches_hand_computed_updates():
    params, grads = _opt_problem()
    for kw in [
        {},
        {"momentum": 0.9},
        {"momentum": 0.9, "dampening": 0.3, "weight_decay": 0.1},
        {"momentum": 0.8, "nesterov": True},
    ]:
        opt = nn.sgd(0.1, **kw)
        p, s = params, opt.init(params)
        ref = [np.array(x) for x in tree_leaves(params)]
        bufs = [None] * len(ref)
        mom, damp, wd = (
            kw.get("momentum", 0.0),
            kw.get("dampening", 0.0),
            kw.get("weight_decay", 0.0),
        )
        for g in grads:
            p, s = opt.update(g, s, p)
            for k, gk in enumerate(tree_leaves(g)):
                d = gk + wd * ref[k]
                if mom:
                    bufs[k] = d if bufs[k] is None else mom * bufs[k] + (1 - damp) * d
                    d = d + mom * bufs[k] if kw.get("nesterov") else bufs[k]
                ref[k] = ref[k] - 0.1 * d
        assert_tree_close(tree_leaves(p), ref, **tol(F64))
        assert p["b"][1] is None


def test_adam_matches_hand_computed_updates(dtype):
    params, grads = _opt_problem()
    params = tree_map(lambda a: a.astype(dtype), params)
    grads = [tree_map(lambda a: a.astype(dtype), g) for g in grads]
    opt = nn.adam(lr=0.05, b1=0.8, b2=0.9, eps=1e-6, weight_decay=0.01)
    p, s = params, opt.init(params)
    ref = [np.array(x, dtype=F64) for x in tree_leaves(params)]
    m = [np.zeros_like(r) for r in ref]
    v = [np.zeros_like(r) for r in ref]
    for t, g in enumerate(grads, 1):
        p, s = opt.update(g, s, p)
        for k, gk in enumerate(tree_leaves(g)):
            d = gk.astype(F64) + 0.01 * ref[k]
            m[k] = 0.8 * m[k] + 0.2 * d
            v[k] = 0.9 * v[k] + 0.1 * d * d
            mhat, vhat = m[k] / (1 - 0.8**t), v[k] / (1 - 0.9**t)
            ref[k] = ref[k] - 0.05 * mhat / (np.sqrt(vhat) + 1e-6)
    assert_tree_close(tree_leaves(p), ref, dtype=dtype, **tol(dtype))
    assert int(s["step"]) == 3


def test_optimisers_match_torch_optim(torch):
    params, grads = _opt_problem()
    leaves = tree_leaves(params)
    for ours, make in [
        (
            nn.sgd(0.1, momentum=0.9, dampening=0.2, weight_decay=0.05),
            lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, dampening=0.2, weight_decay=0.05),
        ),
        (
            nn.sgd(0.1, momentum=0.9, nesterov=True),
            lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True),
        ),
        (
            nn.adam(0.01, 0.8, 0.95, 1e-7, weight_decay=0.01),
            lambda ps: torch.optim.Adam(
                ps, lr=0.01, betas=(0.8, 0.95), eps=1e-7, weight_decay=0.01
            ),
        ),
    ]:
        tparams = [torch.tensor(a.copy(), requires_grad=True) for a in leaves]
        topt = make(tparams)
        p, s = params, ours.init(params)
        for g in grads:
            for tp, gk in zip(tparams, tree_leaves(g)):
                tp.grad = torch.tensor(gk)
            topt.step()
            p, s = ours.update(g, s, p)
        assert_tree_close(tree_leaves(p), [t.detach().numpy() for t in tparams], **tol(F64))


def test_optimiser_errors():
    params, grads = _opt_problem()
    opt = nn.sgd(0.1)
    with pytest.raises(ValueError, match="structure"):
        opt.update({"a": grads[0]["a"]}, opt.init(params), params)
    with pytest.raises(ValueError, match="nesterov"):
        nn.sgd(0.1, nesterov=True)


# -- dropout ----------------------------------------------------------------------------------


def test_dropout_values_and_gradient():
    x = np.random.default_rng(36).normal(size=(200, 50)) + 3.0
    rng = np.random.default_rng(0)
    assert nn.dropout(rng, x, 0.3, training=False) is x
    assert nn.dropout(rng, x, 0.0) is x
    np.testing.assert_array_equal(nn.dropout(rng, x, 1.0), np.zeros_like(x))
    y = nn.dropout(np.random.default_rng(1), x, 0.25)
    kept = y != 0
    assert abs(kept.mean() - 0.75) < 0.02
    np.testing.assert_allclose(y[kept], x[kept] / 0.75, rtol=1e-15)
    g = grad(lambda x: nn.dropout(np.random.default_rng(1), x, 0.25).sum())(x)
    np.testing.assert_array_equal(g, kept / 0.75)


def test_dropout_under_vmap_follows_randomness():
    x = np.ones((4, 1000))
    f = lambda x: nn.dropout(np.random.default_rng(2), x, 0.5)  # noqa: E731
    with pytest.raises(RandomnessError):
        vmap(f)(x)
    different = vmap(f, randomness="different")(x) != 0
    same = vmap(f, randomness="same")(x) != 0
    assert not (different[0] == different[1]).all()
    assert (same == same[0]).all()
    assert abs(different.mean() - 0.5) < 0.05


# -- errors ---------------------------------------------------------------------------------------


def test_layer_errors():
    x, w = np.zeros((1, 4, 5, 5)), np.zeros((6, 2, 3, 3))
    with pytest.raises(ValueError, match="groups=1"):
        nn.conv2d(x, w)
    with pytest.raises(ValueError, match="larger than the padded input"):
        nn.conv2d(np.zeros((1, 2, 2, 2)), w)
    with pytest.raises(ValueError, match="'same' is not supported for strided"):
        nn.conv2d(x, w, stride=2, padding="same", groups=2)
    with pytest.raises(ValueError, match="x must have shape"):
        nn.conv2d(np.zeros((4, 5, 5, 1, 1)), w)
    with pytest.raises(TypeError, match="stride must be"):
        nn.conv2d(x, w, stride="2", groups=2)
    with pytest.raises(ValueError, match="at most half"):
        nn.max_pool2d(x, 2, padding=2)
    with pytest.raises(ValueError, match="reduction"):
        nn.cross_entropy(np.zeros((2, 3)), np.array([0, 1]), reduction="avg")
    with pytest.raises(ValueError, match="class-index targets"):
        nn.cross_entropy(np.zeros((2, 3)), np.array([0, 1, 2]))
    with pytest.raises(ValueError, match="structure"):
        nn.stack_trees([{"w": np.zeros(2)}, {"v": np.zeros(2)}])
    with pytest.raises(ValueError, match="running statistics"):
        nn.batch_norm(x)
