"""JAX's toolbox, round 9: what JAX programs call that ftransforms lacked.

* ``ft.nn.initializers`` (``jax.nn.initializers``) on those keys: JAX's parameters for
  the same key, under ``vmap`` over keys (ensembles).
* ``ft.lax``'s ``jax.lax`` names (NOTE [jax.lax names in ftransforms.lax] in
  ``ftransforms/jax_lax.py``): values against NumPy and JAX, ``vmap`` against the loop,
  derivatives against finite differences and JAX.
* ``ft.tree_util``'s registrations with keys, dataclasses and static classes,
  ``tree_broadcast`` and ``flatten_one_level``, against ``jax.tree_util``.
* ``ft.nn.dot_product_attention`` against a NumPy loop over heads (and JAX, slow).
* ``ft.random``'s JAX-style keys (NOTE [random keys] in ``ftransforms/random_keys.py``):
  ``PRNGKey``/``key``, ``split``, ``fold_in``, ``bits`` and the samplers that take a key,
  against ``jax.random`` (x64) value by value, under ``vmap`` over keys and over
  parameters, ``grad`` through the parameters, and ``jit``.
"""

from __future__ import annotations

import math

import jax
import numpy as np
import pytest

import ftransforms as ft
from ftransforms.core.stack import current_stack
from ftransforms.errors import PRNGKeyError

jax.config.update("jax_enable_x64", True)

R = ft.random
K, JK = R.PRNGKey(3), jax.random.PRNGKey(3)


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
    np.testing.assert_array_equal(a, b)


def close(a, b, rtol=1e-13):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol)


# -- keys and the samplers JAX programs call most, against JAX ------------------------------
#
# Each jax.random call compiles (about 0.3 s here), so the fast tests compare the words
# (keys, split, fold_in, bits) and the most used samplers with JAX, the vmap results with a
# loop over keys, the derivatives with finite differences, and the other distributions
# with SciPy's; test_every_sampler_against_jax (slow) compares every sampler with JAX.


@pytest.mark.parametrize("seed", [0, 2**40 + 5, -1, np.int32(-7)])
def test_prng_key_is_jax_words(seed):
    same(R.PRNGKey(seed), jax.random.PRNGKey(seed))
    same(R.key(seed), R.PRNGKey(seed))


def test_split_and_normal_are_jax_values():
    # the hash and its counters, then the float path (bits -> uniform -> erf_inv); the
    # other samplers against JAX: test_every_sampler_against_jax (slow)
    same(R.split(K, (2, 3)), jax.random.split(JK, (2, 3)))
    close(R.normal(K, (50,)), jax.random.normal(JK, (50,)))


def test_key_helpers():
    k = R.key(5)
    assert R.key_data(k) is k and R.wrap_key_data(k) is k and R.clone(k) is k
    assert R.key_impl(k) == "threefry2x32"
    same(R.uniform(R.wrap_key_data(np.array([0, 5], np.uint32))), R.uniform(k))


def ks_distance(sample, cdf):
    """Kolmogorov-Smirnov's statistic: the largest gap between the empirical CDF and ``cdf``."""
    x = np.sort(np.asarray(sample))
    n, f = x.size, cdf(x)
    return max(np.max(np.arange(1, n + 1) / n - f), np.max(f - np.arange(n) / n))


_erf = np.vectorize(math.erf)


def _phi(x):
    return 0.5 * (1 + _erf(x / np.sqrt(2)))


def test_distributions_against_their_cdfs():
    n = (2000,)
    bound = 1.95 / np.sqrt(n[0])  # the KS test at level 0.001
    k1, k2, k3 = R.split(K, 3)
    cases = {
        "normal": (R.normal(k1, n), _phi),
        "exponential": (R.exponential(k1, n), lambda x: 1 - np.exp(-x)),
        "laplace": (
            R.laplace(k2, n),
            lambda x: np.where(x < 0, 0.5 * np.exp(np.minimum(x, 0)), 1 - 0.5 * np.exp(-np.abs(x))),
        ),
        "logistic": (R.logistic(k2, n), lambda x: 1 / (1 + np.exp(-x))),
        "cauchy": (R.cauchy(k3, n), lambda x: 0.5 + np.arctan(x) / np.pi),
        "gumbel": (R.gumbel(k3, n), lambda x: np.exp(-np.exp(-x))),
        "gumbel_high": (R.gumbel(k1, n, mode="high"), lambda x: np.exp(-np.exp(-x))),
        "lognormal": (R.lognormal(k2, 0.5, n), lambda x: _phi(np.log(x) / 0.5)),
        "truncated_normal": (
            R.truncated_normal(k3, -1.0, 2.0, n),
            lambda x: (_phi(x) - _phi(-1.0)) / (_phi(2.0) - _phi(-1.0)),
        ),
    }
    for name, (sample, cdf) in cases.items():
        assert sample.shape == n and sample.dtype == np.float64, name
        assert ks_distance(sample, cdf) < bound, name
    assert R.normal(k1, (3,), np.float32).dtype == np.float32
    z = R.normal(k1, (2000,), np.complex128)
    assert z.dtype == np.complex128 and abs(np.mean(np.abs(z) ** 2) - 1.0) < 0.1
    signs = R.rademacher(k2, (2000,), np.int32)
    assert signs.dtype == np.int32 and set(np.unique(signs)) == {-1, 1}
    assert abs(signs.mean()) < 0.1
    cov = np.array([[2.0, 0.5], [0.5, 1.0]])
    for method in ("cholesky", "eigh", "svd"):
        xs = R.multivariate_normal(k3, np.array([1.0, -1.0]), cov, (4000,), method=method)
        np.testing.assert_allclose(xs.mean(0), [1.0, -1.0], atol=0.1)
        np.testing.assert_allclose(np.cov(xs.T), cov, atol=0.15)
    counts = np.bincount(R.categorical(k1, np.log([0.2, 0.3, 0.5]), shape=(4000,)), minlength=3)
    np.testing.assert_allclose(counts / 4000, [0.2, 0.3, 0.5], atol=0.03)
    draws = R.choice(k2, 5, (4000,), p=np.array([0.1, 0.1, 0.2, 0.2, 0.4]))
    np.testing.assert_allclose(np.bincount(draws) / 4000, [0.1, 0.1, 0.2, 0.2, 0.4], atol=0.03)
    perm = R.permutation(k3, np.arange(20.0))
    assert sorted(perm.tolist()) == list(range(20))
    rows = R.permutation(k3, np.arange(12).reshape(3, 4), 1, independent=True)
    assert all(
        sorted(r) == sorted(o) for r, o in zip(rows.tolist(), np.arange(12).reshape(3, 4).tolist())
    )
    assert len({tuple(r - r.min()) for r in rows}) > 1  # the rows moved differently
    ints = R.randint(k1, (4000,), -3, 4, np.int8)
    assert ints.dtype == np.int8 and ints.min() == -3 and ints.max() == 3


# -- under the transforms --------------------------------------------------------------------


def loop(f, *batched):
    return np.stack([f(*row) for row in zip(*batched, strict=True)])


def test_vmap_over_keys_is_the_loop_over_keys():
    ks = R.split(K, 4)
    hi = np.arange(1, 5) * 10
    logits = np.linspace(-1.0, 1.0, 20).reshape(4, 5)
    checks = [
        (lambda k: R.normal(k, (3,)), (ks,)),
        (lambda k: R.split(k, 3), (ks,)),
        (lambda k: R.permutation(k, 8), (ks,)),
        (lambda k, m: R.randint(k, (3,), 0, m), (ks, hi)),
        (lambda k, lg: R.categorical(k, lg), (ks, logits)),
        (lambda k: R.choice(k, 5, (3,), p=np.array([0.1, 0.2, 0.3, 0.2, 0.2])), (ks,)),
        (lambda k: R.bernoulli(k, 0.4, (3,)), (ks,)),
        (lambda i: R.fold_in(K, i), (np.arange(4),)),
        (R.PRNGKey, (np.arange(4),)),
    ]
    for f, args in checks:
        same(ft.vmap(f)(*args), loop(f, *args))
    k2 = R.split(K, (2, 3))
    f = ft.vmap(ft.vmap(lambda k: R.uniform(k, (2,))))
    same(f(k2), np.stack([loop(lambda k: R.uniform(k, (2,)), row) for row in k2]))


def test_an_unbatched_key_gives_every_row_the_same_draw():
    # a key is data: no randomness= flag is needed (the default 'error' is not raised)
    rows = ft.vmap(lambda x: x + R.normal(K, ()))(np.zeros(3))
    assert np.unique(rows).size == 1
    lo = np.linspace(-1.0, 0.0, 4)
    f = lambda m: R.uniform(K, (2,), minval=m)  # noqa: E731
    same(ft.vmap(f)(lo), loop(f, lo))


def fd(f, x, eps=1e-6):
    return (f(x + eps) - f(x - eps)) / (2 * eps)


def test_grad_through_parameters():
    u = R.uniform(K, (5,))
    g = ft.grad(lambda m: R.uniform(K, (5,), minval=m, maxval=2 * m + 3).sum())(0.5)
    np.testing.assert_allclose(g, np.sum(1 + u), rtol=1e-12)  # d/dm (m + (m + 3) u)
    tn = lambda a, b: R.truncated_normal(K, a, b, (5,)).sum()  # noqa: E731
    ga, gb = ft.grad(tn, argnums=(0, 1))(-1.0, 1.5)
    np.testing.assert_allclose(ga, fd(lambda a: tn(a, 1.5), -1.0), rtol=1e-6)
    np.testing.assert_allclose(gb, fd(lambda b: tn(-1.0, b), 1.5), rtol=1e-6)
    logn = lambda s: R.lognormal(K, s, (3,)).sum()  # noqa: E731
    np.testing.assert_allclose(ft.grad(logn)(0.7), fd(logn, 0.7), rtol=1e-7)
    cov = np.array([[2.0, 0.5], [0.5, 1.0]])
    mvn = lambda m: (R.multivariate_normal(K, m, cov, (7,)) ** 2).sum()  # noqa: E731
    m0 = np.array([1.0, -1.0])
    np.testing.assert_allclose(
        ft.grad(mvn)(m0), 2 * R.multivariate_normal(K, m0, cov, (7,)).sum(0), rtol=1e-12
    )
    z = R.normal(K, (4,))  # the reparameterised sample: the noise is a constant
    np.testing.assert_allclose(ft.grad(lambda s: (s * R.normal(K, (4,))).sum())(2.0), z.sum())
    # per-example: vmap of grad with a key per example
    ks = R.split(K, 3)
    per = ft.vmap(ft.grad(lambda m, k: R.uniform(k, (), minval=m, maxval=m + 2.0)), (None, 0))
    np.testing.assert_allclose(per(0.0, ks), np.ones(3))


def test_jit_replays_the_hash_for_new_keys():
    calls = []

    def f(k, x):
        calls.append(1)
        return x * R.normal(k, (3,)) + R.randint(k, (3,), 0, 9)

    jf = ft.jit(f)
    for k in R.split(K, 3):
        same(jf(k, 2.0), 2.0 * R.normal(k, (3,)) + R.randint(k, (3,), 0, 9))
    assert len(calls) == 1
    k = R.split(K)[1]
    same(ft.jit(R.split)(k), R.split(k))


def test_keys_in_loop_carries():
    # JAX's idiom: a key in the carry, split at every step (scan, fori_loop, jit, vmap)
    def step(carry, _):
        key, x = carry
        key, sub = R.split(key)
        x = x + R.normal(sub, (2,))
        return (key, x), x.sum()

    def python_loop(key, n):
        x, ys = np.zeros(2), []
        for _ in range(n):
            key, sub = R.split(key)
            x = x + R.normal(sub, (2,))
            ys.append(x.sum())
        return key, np.array(ys)

    k_end, expect = python_loop(K, 5)
    (k, _), ys = ft.scan(step, (K, np.zeros(2)), None, length=5)
    same(k, k_end)
    close(ys, expect)
    scanned = ft.jit(lambda key: ft.scan(step, (key, np.zeros(2)), None, length=5)[1])
    for key in R.split(K, 2):
        close(scanned(key), python_loop(key, 5)[1])
    ks = R.split(K, 3)
    close(ft.vmap(scanned)(ks), np.stack([python_loop(key, 5)[1] for key in ks]))

    def loss(w):
        def body(i, c):
            key, acc = c
            key, sub = R.split(key)
            return key, acc + (w * R.normal(sub, (3,))).sum()

        return ft.fori_loop(0, 4, body, (K, 0.0))[1]

    np.testing.assert_allclose(ft.grad(loss)(1.5), fd(loss, 1.5), rtol=1e-7)


def test_generator_forms_still_work():
    rng = np.random.default_rng(0)
    assert R.normal(rng, 1.0, 2.0, size=3).shape == (3,)
    assert R.uniform(np.random.default_rng(1), size=2).shape == (2,)
    assert R.permutation(np.random.default_rng(2), 5).shape == (5,)


def test_bad_keys_and_arguments_raise_clear_errors():
    ks = R.split(K, 3)
    cases = [
        (lambda: R.normal(ks, (2,)), "single key"),
        (lambda: R.split(np.zeros(2)), "uint32"),
        (lambda: R.split(np.random.default_rng(0)), "must be a key"),
        (lambda: R.PRNGKey(1.5), "integer"),
        (lambda: R.PRNGKey(np.arange(2)), "scalar"),
        (lambda: R.fold_in(K, np.arange(2)), "scalar"),
        (lambda: R.uniform(K, (2,), np.int32), "float"),
        (lambda: R.randint(K, (2,), 0, 5, np.float64), "integer"),
        (lambda: R.bits(K, (2,), np.int32), "unsigned"),
        (lambda: R.choice(K, 3, (4,), replace=False), "larger sample"),
        (lambda: R.uniform(K, (2,), minval=np.zeros(3)), "broadcast"),
        (lambda: R.categorical(K, np.zeros((3, 4)), shape=(2,)), "batch shape"),
    ]
    for call, words in cases:
        with pytest.raises(PRNGKeyError, match=words) as info:
            call()
        assert str(info.value).startswith("random."), str(info.value)
        assert isinstance(info.value, (TypeError, ValueError))
    with pytest.raises(PRNGKeyError, match="ft.vmap"):
        ft.grad(lambda x: (x * R.normal(ks, ())).sum())(1.0)
    assert not current_stack()
    with pytest.raises(ft.errors.UnsupportedOperationError, match="threefry2x32"):
        R.key(0, impl="rbg")


# -- nn.initializers ---------------------------------------------------------------------------

FI = ft.nn.initializers


@pytest.mark.slow
def test_initializers_are_jax_parameters():
    import jax.nn.initializers as ji  # noqa: PLC0415

    k, jk = R.key(2), jax.random.key(2)
    # the fans of a convolution kernel (receptive field 2x2) and a truncated normal
    close(FI.he_normal()(k, (2, 2, 3, 4)), ji.he_normal()(jk, (2, 2, 3, 4)))
    close(FI.orthogonal(column_axis=0)(k, (3, 2, 5)), ji.orthogonal(column_axis=0)(jk, (3, 2, 5)))


def test_initializer_formulas():
    k = R.key(4)
    n = (300, 200)
    u = R.uniform(k, n, minval=-1.0)
    for name, scale, fan in [
        ("glorot_uniform", 1.0, 250.0),
        ("lecun_uniform", 1.0, 300.0),
        ("he_uniform", 2.0, 300.0),
        ("xavier_uniform", 1.0, 250.0),
        ("kaiming_uniform", 2.0, 300.0),
    ]:
        np.testing.assert_allclose(getattr(FI, name)()(k, n), u * np.sqrt(3 * scale / fan))
    t = R.truncated_normal(k, -2, 2, n)
    for name, scale, fan in [("glorot_normal", 1.0, 250.0), ("he_normal", 2.0, 300.0)]:
        w = getattr(FI, name)()(k, n)
        np.testing.assert_allclose(w, t * np.sqrt(scale / fan) / 0.87962566103423978)
        assert abs(w.var() * fan / scale - 1.0) < 0.05  # the variance the name promises
    fan_geo = FI.variance_scaling(3.0, "fan_geo_avg", "normal", in_axis=0, out_axis=2, batch_axis=1)
    w = fan_geo(k, (30, 4, 50))
    np.testing.assert_allclose(w, R.normal(k, (30, 4, 50)) * np.sqrt(3.0 / np.sqrt(30 * 50)))
    np.testing.assert_allclose(FI.normal(0.5)(k, (3,)), 0.5 * R.normal(k, (3,)))
    np.testing.assert_allclose(FI.uniform(2.0)(k, (3,)), 2.0 * R.uniform(k, (3,)))
    np.testing.assert_allclose(
        FI.truncated_normal(0.3)(k, (3,)), 0.3 * R.truncated_normal(k, -2, 2, (3,))
    )
    assert FI.constant(-7)(k, (2,)).tolist() == [-7.0, -7.0]
    assert FI.zeros(k, (2,), np.float32).dtype == np.float32 and FI.ones(k, (1,)).tolist() == [1.0]
    q = FI.orthogonal(2.0)(k, (5, 3))
    np.testing.assert_allclose(q.T @ q, 4.0 * np.eye(3), atol=1e-12)
    d = FI.delta_orthogonal()(k, (3, 3, 2, 4))
    np.testing.assert_allclose(d[1, 1] @ d[1, 1].T, np.eye(2), atol=1e-12)
    assert np.abs(d).sum() == np.abs(d[1, 1]).sum()
    c = FI.glorot_uniform(dtype=np.complex128)(k, (300, 200))
    assert c.dtype == np.complex128 and abs(np.mean(np.abs(c) ** 2) * 250 - 1.0) < 0.05
    assert isinstance(FI.he_normal(), FI.Initializer)


def test_initializers_under_vmap_and_errors():
    ks = R.split(R.key(0), 3)
    for init, shape in [
        (FI.glorot_normal(), (3, 4)),
        (FI.orthogonal(), (4, 3)),
        (FI.delta_orthogonal(), (3, 2, 4)),
        (FI.constant(2.0), (2,)),
    ]:
        same(ft.vmap(lambda k: init(k, shape))(ks), np.stack([init(k, shape) for k in ks]))
    for call, words in [
        (lambda: FI.glorot_normal()(R.key(0), (3,)), "in_axis"),
        (lambda: FI.variance_scaling(1.0, "fan", "normal"), "mode"),
        (lambda: FI.variance_scaling(1.0, "fan_in", "gamma"), "distribution"),
        (lambda: FI.orthogonal()(R.key(0), (3,)), "2 dimensions"),
        (lambda: FI.delta_orthogonal()(R.key(0), (3, 4, 2)), "fan_in"),
        (lambda: FI.normal()(np.random.default_rng(0), (3,)), "must be a key"),
    ]:
        with pytest.raises(PRNGKeyError, match=words):
            call()


# -- lax -------------------------------------------------------------------------------------

L = ft.lax


def test_lax_slicing_against_numpy():
    x = np.arange(24.0).reshape(2, 3, 4)
    same(L.dynamic_slice(x, (1, 2, 3), (1, 2, 2)), x[1:2, 1:3, 2:4])  # starts clamped
    same(L.dynamic_slice(x, (-5, 0, 1), (2, 1, 3)), x[0:2, 0:1, 1:4])
    upd = L.dynamic_update_slice(x, -np.ones((1, 2, 2)), (1, 2, 3))
    expect = x.copy()
    expect[1:2, 1:3, 2:4] = -1
    same(upd, expect)
    same(L.dynamic_slice_in_dim(x, 1, 2, axis=2), x[:, :, 1:3])
    same(L.dynamic_index_in_dim(x, 2, 1, keepdims=False), x[:, 2])
    same(L.dynamic_update_index_in_dim(x, np.zeros((2, 4)), 0, 1)[:, 0], np.zeros((2, 4)))
    same(L.slice(x, (0, 1, 0), (2, 3, 4), (1, 1, 2)), x[0:2, 1:3, 0:4:2])
    same(L.slice_in_dim(x, 1, None, axis=2), x[:, :, 1:])
    same(L.index_in_dim(x, -1, axis=2), x[:, :, -1:])
    m = np.arange(1.0, 4.0)
    same(L.pad(m, 0.0, [(2, 1, 1)]), np.array([0, 0, 1, 0, 2, 0, 3, 0.0]))
    same(L.pad(m, 9.0, [(-1, -1, 2)]), np.array([9, 9, 2, 9, 9.0]))
    same(L.rev(x, (0, 2)), x[::-1, :, ::-1])
    same(L.collapse(x, 0, 2), x.reshape(6, 4))
    same(L.broadcast_in_dim(m, (3, 2), (0,)), np.repeat(m[:, None], 2, axis=1))
    same(L.broadcast(m, (2,)), np.stack([m, m]))
    same(L.broadcasted_iota(np.int32, (2, 3), 1), np.tile(np.arange(3, dtype=np.int32), (2, 1)))
    same(L.iota(np.int16, 4), np.arange(4, dtype=np.int16))
    same(L.full_like(x, 2, np.int8), np.full(x.shape, 2, np.int8))


def test_lax_products_sorting_reductions_against_numpy():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(5, 2, 3)), rng.normal(size=(5, 3, 4))
    close(L.dot_general(a, b, (((2,), (1,)), ((0,), (0,)))), a @ b, 1e-12)
    c = rng.normal(size=(3, 6))
    close(L.dot_general(a, c, (((2,), (0,)), ((), ()))), np.tensordot(a, c, (2, 0)), 1e-12)
    close(L.dot(a[0], b[0]), a[0] @ b[0], 1e-12)
    close(L.batch_matmul(a, b), a @ b, 1e-12)
    v = np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0, 5.0])
    vals, idx = L.top_k(v, 4)
    same(vals, np.array([9.0, 6.0, 5.0, 5.0]))
    same(idx, np.array([5, 7, 4, 8], np.int32))  # ties: the lower index first
    same(L.top_k(np.array([2, 7, 7, -3]), 3)[1], np.array([1, 2, 0], np.int32))
    k1, k2 = np.array([2, 1, 2, 1, 2]), np.array([0.0, 5.0, -1.0, 3.0, -1.0])
    order = np.lexsort((k2, k1))
    for got, want in zip(L.sort((k1, k2, np.arange(5.0)), num_keys=2), (k1, k2, np.arange(5.0))):
        same(got, want[order])
    keys, values = L.sort_key_val(v, np.arange(9))
    same(keys, np.sort(v, kind="stable"))
    same(values, np.argsort(v, kind="stable"))
    x = rng.normal(size=(3, 4))
    same(L.reduce_max(x, (0,)), x.max(0))
    close(L.reduce_sum(x, (0, 1)), x.sum(), 1e-12)
    same(L.argmin(x, 1, np.int32), x.argmin(1).astype(np.int32))
    same(L.cummax(v, reverse=True), np.maximum.accumulate(v[::-1])[::-1])
    close(L.cumlogsumexp(v), np.log(np.cumsum(np.exp(v))), 1e-12)
    same(L.cumsum(x, axis=1, reverse=True), np.cumsum(x[:, ::-1], axis=1)[:, ::-1])


def test_lax_elementwise_against_numpy():
    ints = np.array([7, -7, 7, -7, 0, 5])
    dens = np.array([2, 2, -2, -2, 3, 5])
    same(L.div(ints, dens), np.array([int(a / b) for a, b in zip(ints, dens)]))
    same(L.rem(ints, dens), np.fmod(ints, dens))
    same(L.round(np.array([0.5, 1.5, -2.5, 2.4])), np.array([1.0, 2.0, -3.0, 2.0]))
    same(L.round(np.array([0.5, 1.5, -2.5]), 1), np.array([0.0, 2.0, -2.0]))
    words = np.array([1, 255, 0, -1, 2**30], np.int32)
    same(
        L.clz(words), np.array([32 - int(w).bit_length() if w >= 0 else 0 for w in words], np.int32)
    )
    same(
        L.population_count(words),
        np.array([bin(int(w) & 0xFFFFFFFF).count("1") for w in words], np.int32),
    )
    same(L.shift_right_logical(np.int8(-128), np.int8(4)), np.int8(8))
    same(L.clamp(0.0, np.array([-1.0, 0.5, 2.0]), 1.0), np.array([0.0, 0.5, 1.0]))
    same(
        L.select_n(np.array([0, 2, 1]), np.zeros(3), np.ones(3), np.full(3, 2.0)),
        np.array([0.0, 2.0, 1.0]),
    )
    same(L.select_n(np.array([True, False]), np.zeros(2), np.ones(2)), np.array([1.0, 0.0]))
    x = np.array([0.25, 4.0])
    close(L.rsqrt(x), 1 / np.sqrt(x))
    close(L.logistic(x), 1 / (1 + np.exp(-x)))
    same(L.integer_pow(x, 3), x**3)
    # lax.max/lax.sub check their dtypes (as JAX's), then are NumPy's maximum/subtract
    same(L.max(np.array([1.0, 3.0]), np.array([2.0, 2.0])), np.array([2.0, 3.0]))
    same(L.sub(np.array([1.0, 3.0]), 2.0), np.array([-1.0, 1.0]))
    assert L.erf_inv is ft.scipy.special.erfinv
    same(L.complex(1.0, 2.0), np.asarray(1 + 2j))
    same(L.convert_element_type(np.array([1.7, -1.7]), np.int32), np.array([1, -1], np.int32))
    assert L.fori_loop(0, 3, lambda i, c: c * 2.0, 1.0, unroll=2) == 8.0
    assert L.cond(True, lambda a, b: a + b, lambda a, b: a - b, 1.0, 2.0) == 3.0
    assert L.map(lambda t: t * 2, np.arange(3.0)).tolist() == [0.0, 2.0, 4.0]
    assert "scan" in dir(L) and "dynamic_slice" in L.__all__
    parts = L.split(np.arange(6).reshape(2, 3), (1, 2), 1)
    same(parts[1], np.array([[1, 2], [4, 5]]))
    same(L.tile(np.arange(2), (2,)), np.array([0, 1, 0, 1]))
    assert L.igamma is ft.scipy.special.gammainc and L.bessel_i0e is ft.scipy.special.i0e


def test_lax_under_transforms():
    v = np.array([3.0, 1.0, 4.0, 1.5, 5.0, 9.0, 2.0, 6.0])
    starts = np.array([0, 2, 7])
    f = lambda s: L.dynamic_slice_in_dim(v, s, 3)  # noqa: E731
    same(ft.vmap(f)(starts), loop(f, starts))
    g = lambda s: L.dynamic_update_slice(v, -np.ones(2), (s,))  # noqa: E731
    same(ft.vmap(g)(starts), loop(g, starts))
    h = lambda x: L.top_k(x, 2)[1]  # noqa: E731
    xs = np.random.default_rng(1).normal(size=(4, 5))
    same(ft.vmap(h)(xs), loop(h, xs))
    loss = lambda x: (L.pad(x, 0.0, [(1, -2, 1)]) ** 2).sum() + L.top_k(x, 3)[0].sum()  # noqa: E731
    grad = ft.grad(loss)(v)
    eye = np.eye(v.size)
    fd_grad = [fd(lambda t: loss(v + t * e), 0.0) for e in eye]
    np.testing.assert_allclose(grad, fd_grad, rtol=1e-6, atol=1e-6)
    # the per-example gradient of a dynamic slice (starts clamped: 7 -> 5)
    per = ft.vmap(ft.grad(lambda x, s: (L.dynamic_slice_in_dim(x, s, 3) ** 2).sum()), (None, 0))
    expect = np.zeros((3, v.size))
    for row, s0 in enumerate([0, 2, 5]):
        expect[row, s0 : s0 + 3] = 2 * v[s0 : s0 + 3]
    close(per(v, starts), expect)
    cums = lambda x: (L.cumlogsumexp(x, reverse=True) * np.arange(8.0)).sum()  # noqa: E731
    np.testing.assert_allclose(
        ft.grad(cums)(v),
        [fd(lambda t: cums(v + t * e), 0.0) for e in eye],
        rtol=1e-6,
        atol=1e-5,  # finite differences' rounding: |f| ~ 1e4, eps 1e-6
    )


def test_lax_reduce_window_pooling():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 4, 6, 3))  # NHWC
    pooled = L.reduce_window(x, -np.inf, L.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    same(pooled, x.reshape(2, 2, 2, 3, 2, 3).max(axis=(2, 4)))
    summed = L.reduce_window(x, 0.0, L.add, (1, 2, 3, 1), (1, 2, 3, 1), "VALID")
    close(summed, x.reshape(2, 2, 2, 2, 3, 3).sum(axis=(2, 4)), 1e-12)
    # SAME: output ceil(n / stride), padded with init_value (0 adds nothing)
    same_pad = L.reduce_window(x, 0.0, L.add, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")
    padded = np.pad(x, [(0, 0), (0, 1), (0, 1), (0, 0)])  # total 1 per axis: (0, 1)
    expect = np.stack(
        [
            np.stack([padded[:, i : i + 3, j : j + 3].sum(axis=(1, 2)) for j in range(0, 6, 2)], 1)
            for i in range(0, 4, 2)
        ],
        1,
    )
    close(same_pad, expect, 1e-12)
    custom = L.reduce_window(x[0, :, :, 0], 1.0, lambda a, b: a * b, (2, 2), (1, 1), "VALID")
    v = x[0, :, :, 0]
    close(custom, v[:-1, :-1] * v[1:, :-1] * v[:-1, 1:] * v[1:, 1:], 1e-12)
    avg = lambda a: (L.reduce_window(a, 0.0, L.add, (1, 3, 3, 1), (1, 2, 2, 1), "SAME") ** 2).sum()  # noqa: E731
    d = rng.normal(size=x.shape)
    np.testing.assert_allclose(
        np.sum(ft.grad(avg)(x) * d), fd(lambda t: avg(x + t * d), 0.0), rtol=1e-6
    )
    f = lambda a: L.reduce_window(a, -np.inf, L.max, (2, 2), (2, 2), "VALID")  # noqa: E731
    same(ft.vmap(f)(x[..., 0]), loop(f, x[..., 0]))


def test_lax_conv_general_dilated():
    rng = np.random.default_rng(0)
    x, w = rng.normal(size=(2, 7, 6, 3)), rng.normal(size=(3, 2, 3, 4))  # NHWC, HWIO
    dn = ("NHWC", "HWIO", "NHWC")
    nchw, oihw = x.transpose(0, 3, 1, 2), w.transpose(3, 2, 0, 1)
    conv = ft.nn.conv2d  # the NCHW/OIHW convolution underneath, checked by the op database
    close(
        L.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=dn),
        conv(nchw, oihw, padding=((1, 1), (0, 1))).transpose(0, 2, 3, 1),  # SAME: total 2, 1
        1e-12,
    )
    close(
        L.conv_general_dilated(
            x, w, (2, 1), [(2, -1), (1, 0)], rhs_dilation=(1, 2), dimension_numbers=dn
        ),
        conv(
            nchw[:, :, :-1], oihw, stride=(2, 1), padding=((2, 0), (1, 0)), dilation=(1, 2)
        ).transpose(0, 2, 3, 1),
        1e-12,
    )
    # lhs_dilation: the input with zeros between its entries (a transposed convolution)
    spread = np.zeros((2, 3, 13, 6))
    spread[:, :, ::2] = nchw
    close(
        L.conv_general_dilated(nchw, oihw, (1, 1), [(1, 1), (0, 0)], lhs_dilation=(2, 1)),
        conv(spread, oihw, padding=((1, 1), (0, 0))),
        1e-12,
    )
    xg, wg = rng.normal(size=(2, 4, 6, 5)), rng.normal(size=(6, 2, 3, 3))
    close(
        L.conv_general_dilated(xg, wg, (1, 1), "VALID", feature_group_count=2),
        conv(xg, wg, groups=2),
        1e-12,
    )
    x1, w1 = rng.normal(size=(2, 3, 9)), rng.normal(size=(4, 3, 3))
    expect = np.stack(
        [
            [sum(np.correlate(x1[b, c], w1[o, c], "valid") for c in range(3)) for o in range(4)]
            for b in range(2)
        ]
    )
    close(L.conv_general_dilated(x1, w1, (1,), "VALID"), expect, 1e-12)
    close(
        L.conv(xg, wg[:, :2].repeat(2, 1), (1, 1), "VALID"), conv(xg, wg[:, :2].repeat(2, 1)), 1e-12
    )
    loss = lambda a, b: (
        L.conv_general_dilated(a, b, (2, 1), "SAME", dimension_numbers=dn) ** 2
    ).sum()  # noqa: E731
    gx, gw = ft.grad(loss, argnums=(0, 1))(x, w)
    dx, dw = rng.normal(size=x.shape), rng.normal(size=w.shape)
    np.testing.assert_allclose(np.sum(gx * dx), fd(lambda t: loss(x + t * dx, w), 0.0), rtol=1e-6)
    np.testing.assert_allclose(np.sum(gw * dw), fd(lambda t: loss(x, w + t * dw), 0.0), rtol=1e-6)
    with pytest.raises(ft.errors.UnsupportedOperationError, match="pairs"):
        L.conv_general_dilated(nchw, oihw, (1, 1), "SAME", lhs_dilation=(2, 1))


def test_lax_errors():
    for call in [
        lambda: L.dynamic_slice(np.zeros(3), (0, 0), (1,)),
        lambda: L.dynamic_slice(np.zeros(3), (0,), (4,)),
        lambda: L.pad(np.zeros(3), 0.0, [(1, 1, 0), (0, 0, 0)]),
        lambda: L.top_k(np.zeros(3), 4),
        lambda: L.round(np.zeros(2), 5),
        lambda: L.dot(np.zeros((2, 2, 2)), np.zeros(2)),
        lambda: L.sort((np.zeros(2),), num_keys=2),
    ]:
        with pytest.raises(ft.errors.UnsupportedOperationError, match=r"^lax\."):
            call()
    assert not current_stack()


# -- tree_util ---------------------------------------------------------------------------------


def test_register_dataclass_matches_jax_and_transforms_go_through():
    import dataclasses  # noqa: PLC0415

    tu, jt = ft.tree_util, jax.tree_util

    @dataclasses.dataclass
    class Layer:
        w: np.ndarray
        b: np.ndarray
        act: str = dataclasses.field(default="tanh", metadata=dict(static=True))

    assert tu.register_dataclass(Layer) is Layer
    jt.register_dataclass(Layer)
    tree = {"l": Layer(np.ones(2), np.zeros(2), "sin"), "z": [1.0]}
    paths = [tu.keystr(p) for p, _ in tu.tree_leaves_with_path(tree)]
    assert paths == [jt.keystr(p) for p, _ in jt.tree_leaves_with_path(tree)]
    assert ft.tree_map(lambda x: x, tree)["l"].act == "sin"

    def loss(p, x):
        return np.sum(np.tanh(p.w * x + p.b) ** 2)

    layer = Layer(np.array([0.5, -1.0]), np.array([0.1, 0.2]))
    g = ft.grad(loss)(layer, 2.0)
    t = np.tanh(layer.w * 2.0 + layer.b)
    close(g.w, 2 * t * (1 - t**2) * 2.0, 1e-12)  # d/dw of sum(tanh(w x + b)^2)
    close(g.b, 2 * t * (1 - t**2), 1e-12)
    assert g.act == "tanh"
    xs = np.array([1.0, 2.0, 3.0])
    per = ft.vmap(ft.grad(loss), (None, 0))(layer, xs)
    same(per.w, loop(lambda x: ft.grad(loss)(layer, x).w, xs))
    assert ft.jit(loss)(layer, 2.0) == loss(layer, 2.0)

    @dataclasses.dataclass
    class Split:
        a: float
        n: int

    tu.register_dataclass(Split, data_fields=["a"], meta_fields=["n"])
    assert ft.tree_leaves(Split(1.5, 3)) == [1.5]
    with pytest.raises(TypeError, match="neither data_fields nor meta_fields"):
        tu.register_dataclass(Split, data_fields=["a"], meta_fields=[])
    with pytest.raises(TypeError, match="must be a dataclass"):
        tu.register_dataclass(type("Plain", (), {}))


def test_keyed_and_static_registrations_broadcast_flatten_one_level():
    tu, jt = ft.tree_util, jax.tree_util

    class Box:
        def __init__(self, lo, hi):
            self.lo, self.hi = lo, hi

    tu.register_pytree_with_keys(
        Box,
        lambda b: (((tu.DictKey("lo"), b.lo), (tu.GetAttrKey("hi"), b.hi)), None),
        lambda a, c: Box(*c),
    )
    jt.register_pytree_with_keys(
        Box,
        lambda b: (((jt.DictKey("lo"), b.lo), (jt.GetAttrKey("hi"), b.hi)), None),
        lambda a, c: Box(*c),
    )
    t = [Box(1.0, 2.0)]
    assert [tu.keystr(p) for p, _ in tu.tree_leaves_with_path(t)] == [
        jt.keystr(p) for p, _ in jt.tree_leaves_with_path(t)
    ]
    assert float(ft.grad(lambda b: b.lo * b.hi**2)(Box(3.0, 2.0)).hi) == 12.0

    @tu.register_pytree_with_keys_class
    class Pair:
        def __init__(self, a, b):
            self.a, self.b = a, b

        def tree_flatten_with_keys(self):
            return ((tu.GetAttrKey("a"), self.a), (tu.GetAttrKey("b"), self.b)), None

        @classmethod
        def tree_unflatten(cls, aux, children):
            return cls(*children)

    assert ft.tree_map(lambda x: x + 1, Pair(1, 2)).b == 3

    @tu.register_static
    class Config:
        def __init__(self, n):
            self.n = n

        def __hash__(self):
            return hash(self.n)

        def __eq__(self, other):
            return isinstance(other, Config) and other.n == self.n

    assert ft.tree_leaves({"c": Config(2), "x": 1.0}) == [1.0]
    out = ft.vmap(lambda d: d["x"] * d["c"].n)({"c": Config(3), "x": np.arange(2.0)})
    same(out, np.array([0.0, 3.0]))
    prefix, full = [1, {"a": 2}], [(3, 4), {"a": [5, 6]}]
    assert tu.tree_broadcast(prefix, full) == jt.tree_broadcast(prefix, full)
    assert ft.tree.broadcast(prefix, full) == jt.tree_broadcast(prefix, full)
    assert tu.flatten_one_level((1, [2]))[0] == jt.flatten_one_level((1, [2]))[0]
    assert tu.flatten_one_level({"b": 1, "a": 2})[0] == jt.flatten_one_level({"b": 1, "a": 2})[0]
    with pytest.raises(ValueError, match="leaf"):
        tu.flatten_one_level(1.0)


# -- attention -------------------------------------------------------------------------------


def attention_reference(q, k, v, bias=None, keep=None, scale=None):
    """Plain NumPy, one (batch, head) at a time, float64."""
    b, t, n, h = q.shape
    g = n // k.shape[2]
    scale = 1 / np.sqrt(h) if scale is None else scale
    out = np.zeros_like(q)
    for i in range(b):
        for j in range(n):
            logits = q[i, :, j] @ k[i, :, j // g].T * scale
            if bias is not None:
                logits = logits + np.broadcast_to(bias, (b, n, t, k.shape[1]))[i, j]
            if keep is not None:
                logits = np.where(
                    np.broadcast_to(keep, (b, n, t, k.shape[1]))[i, j], logits, -1e300
                )
            w = np.exp(logits - logits.max(-1, keepdims=True))
            out[i, :, j] = (w / w.sum(-1, keepdims=True)) @ v[i, :, j // g]
    return out


def test_dot_product_attention_against_numpy():
    rng = np.random.default_rng(0)
    q, k, v = (
        rng.normal(size=(2, 5, 4, 8)),
        rng.normal(size=(2, 6, 2, 8)),
        rng.normal(size=(2, 6, 2, 8)),
    )
    bias, mask = rng.normal(size=(2, 4, 5, 6)), rng.random((2, 1, 5, 6)) > 0.3
    mask[..., 0] = True  # every query sees a key
    A = ft.nn.dot_product_attention
    close(A(q, k, v), attention_reference(q, k, v), 1e-12)
    close(A(q, k, v, bias, mask, scale=0.3), attention_reference(q, k, v, bias, mask, 0.3), 1e-12)
    causal = np.tril(np.ones((5, 6), bool))
    close(A(q, k, v, is_causal=True), attention_reference(q, k, v, keep=causal), 1e-12)
    band = np.abs(np.arange(5)[:, None] - np.arange(6)[None, :]) <= 1
    close(A(q, k, v, local_window_size=1), attention_reference(q, k, v, keep=band), 1e-12)
    lens = A(q, k, v, query_seq_lengths=np.array([3, 5]), key_value_seq_lengths=np.array([6, 2]))
    keep = np.ones((2, 1, 5, 6), bool)
    keep[1, ..., 2:] = False
    expect = attention_reference(q, k, v, keep=keep)
    expect[0, 3:] = 0.0  # padded queries
    close(lens, expect, 1e-12)
    close(A(q[0], k[0], v[0]), attention_reference(q[:1], k[:1], v[:1])[0], 1e-12)
    assert A(q.astype(np.float32), k.astype(np.float32), v.astype(np.float32)).dtype == np.float32
    # transforms: vmap over an extra axis is the loop, grad matches finite differences
    qs = rng.normal(size=(3, 2, 5, 4, 8))
    f = lambda qq: A(qq, k, v, bias, mask)  # noqa: E731
    close(ft.vmap(f)(qs), loop(f, qs), 1e-12)
    loss = lambda qq, kk, vv, bb: (A(qq, kk, vv, bb, mask, is_causal=True) ** 2).sum()  # noqa: E731
    grads = ft.grad(loss, argnums=(0, 1, 2, 3))(q, k, v, bias)
    args = [q, k, v, bias]
    for i, gi in enumerate(grads):
        d = rng.normal(size=args[i].shape)
        moved = lambda t: loss(*[a + t * d if j == i else a for j, a in enumerate(args)])  # noqa: E731,B023
        np.testing.assert_allclose(np.sum(gi * d), fd(moved, 0.0), rtol=1e-6)
    with pytest.raises(ft.errors.UnsupportedOperationError, match="multiple"):
        A(q, rng.normal(size=(2, 6, 3, 8)), rng.normal(size=(2, 6, 3, 8)))


# -- top-level utilities -------------------------------------------------------------------


def test_device_get_named_call_named_scope():
    tree = {"loss": np.float64(0.5), "w": np.ones(2), "n": 3}
    out = ft.device_get(tree)
    assert out["w"] is tree["w"] and out["n"] == 3
    with pytest.raises(TypeError, match="tracer"):
        ft.grad(lambda x: ft.device_get(x).sum())(np.ones(2))
    assert not current_stack()
    f = ft.named_call(lambda x: (x**2).sum(), name="loss")
    assert f.__name__ == "loss"
    with ft.named_scope("block"):
        g = ft.vmap(ft.grad(f))(np.arange(6.0).reshape(3, 2))
    same(g, 2 * np.arange(6.0).reshape(3, 2))


@pytest.mark.slow
def test_every_sampler_against_jax():
    # the exhaustive comparison (about 80 JAX compilations): every sampler and option
    for seed in (42, np.uint32(2**32 - 1)):
        k, jk = R.PRNGKey(seed), jax.random.PRNGKey(seed)
        same(k, jk)
        same(R.fold_in(k, np.int64(2**33 + 1)), jax.random.fold_in(jk, np.int64(2**33 + 1)))
        for dt in (np.uint8, np.uint16, np.uint32, np.uint64):
            same(R.bits(k, (3, 4), dt), jax.random.bits(jk, (3, 4), dt))
    for dt in (np.float16, np.float32, np.float64):
        same(R.uniform(K, (500,), dt), jax.random.uniform(JK, (500,), dt))
    same(
        R.uniform(K, (500,), np.float16, -2.0, 3.0),
        jax.random.uniform(JK, (500,), np.float16, -2, 3),
    )
    lo = np.linspace(-1.0, 0.0, 4)
    close(
        R.uniform(K, (3, 4), minval=lo, maxval=2.0),
        jax.random.uniform(JK, (3, 4), minval=lo, maxval=2.0),
    )
    close(R.normal(K, (2, 3), np.complex128), jax.random.normal(JK, (2, 3), np.complex128))
    # float32: JAX's erf_inv is a float32 polynomial (a few ulp, more in the tails)
    close(R.normal(K, (400,), np.float32), jax.random.normal(JK, (400,), np.float32), rtol=1e-5)
    close(R.lognormal(K, 0.5, (5,)), jax.random.lognormal(JK, 0.5, (5,)))
    close(
        R.truncated_normal(K, -1.0, 2.0, (50,)), jax.random.truncated_normal(JK, -1.0, 2.0, (50,))
    )
    for name in ("exponential", "laplace", "logistic", "cauchy", "gumbel"):
        close(getattr(R, name)(K, (50,)), getattr(jax.random, name)(JK, (50,)))
        close(
            getattr(R, name)(K, (4,), np.float32),
            getattr(jax.random, name)(JK, (4,), np.float32),
            1e-6,
        )
    close(R.gumbel(K, (50,), mode="high"), jax.random.gumbel(JK, (50,), mode="high"))
    cov, mean = np.array([[2.0, 0.5], [0.5, 1.0]]), np.array([1.0, -1.0])
    for method in ("cholesky", "eigh", "svd"):
        close(
            R.multivariate_normal(K, mean, cov, (7,), method=method),
            jax.random.multivariate_normal(JK, mean, cov, (7,), method=method),
        )
    for dt in (np.int8, np.int32, np.int64, np.uint32):
        lo_i = 0 if dt == np.uint32 else -3
        same(R.randint(K, (300,), lo_i, 100, dt), jax.random.randint(JK, (300,), lo_i, 100, dt))
    same(R.bernoulli(K, np.linspace(0, 1, 7)), jax.random.bernoulli(JK, np.linspace(0, 1, 7)))
    same(R.bernoulli(K, 0.3, (9,), mode="high"), jax.random.bernoulli(JK, 0.3, (9,), mode="high"))
    same(R.rademacher(K, (20,), np.int32), jax.random.rademacher(JK, (20,), np.int32))
    same(R.permutation(K, 10), jax.random.permutation(JK, 10))
    x = np.arange(12.0).reshape(3, 4)
    same(R.permutation(K, x, 1, True), jax.random.permutation(JK, x, 1, True))
    a = np.arange(10.0) * 3
    p = np.random.default_rng(1).random(10)
    p /= p.sum()
    same(R.choice(K, a, (4,)), jax.random.choice(JK, a, (4,)))
    same(R.choice(K, 7, (2, 3)), jax.random.choice(JK, 7, (2, 3)))
    same(R.choice(K, a, (4,), replace=False), jax.random.choice(JK, a, (4,), replace=False))
    same(R.choice(K, a, (6,), p=p), jax.random.choice(JK, a, (6,), p=p))
    same(R.choice(K, x, (2,), False, axis=1), jax.random.choice(JK, x, (2,), False, axis=1))
    logits = np.random.default_rng(0).normal(size=(3, 5))
    same(R.categorical(K, logits), jax.random.categorical(JK, logits))
    same(R.categorical(K, logits, shape=(4, 3)), jax.random.categorical(JK, logits, shape=(4, 3)))
    same(
        R.categorical(K, logits, 0, (2, 5), replace=False),
        jax.random.categorical(JK, logits, 0, (2, 5), replace=False),
    )
    same(R.split(K), jax.random.split(JK))
    same(R.bits(K, (3, 4)), jax.random.bits(JK, (3, 4)))  # uint64, JAX's x64 default
    hi = np.array([1, 5, 1000])
    same(R.randint(K, (2, 3), 0, hi, np.int32), jax.random.randint(JK, (2, 3), 0, hi, np.int32))
    same(R.fold_in(K, 7), jax.random.fold_in(JK, 7))
    same(R.uniform(K, (50,), np.float32, -2, 3), jax.random.uniform(JK, (50,), np.float32, -2, 3))
    same(R.permutation(K, x, 1), jax.random.permutation(JK, x, 1))
    same(R.uniform(K, (50,)), jax.random.uniform(JK, (50,)))
    same(R.bernoulli(K, 0.3, (20,)), jax.random.bernoulli(JK, 0.3, (20,)))
    same(R.choice(K, 10, (6,), False, p), jax.random.choice(JK, 10, (6,), False, p))
    same(R.categorical(K, logits, axis=0), jax.random.categorical(JK, logits, axis=0))
    jga, jgb = jax.grad(
        lambda a, b: jax.random.truncated_normal(JK, a, b, (5,)).sum(), argnums=(0, 1)
    )(-1.0, 1.5)
    ga, gb = ft.grad(lambda a, b: R.truncated_normal(K, a, b, (5,)).sum(), argnums=(0, 1))(
        -1.0, 1.5
    )
    close(ga, jga, 1e-12)
    close(gb, jgb, 1e-12)
    ks, jks = R.split(K, 4), jax.random.split(JK, 4)
    close(
        ft.vmap(lambda k: R.normal(k, (3,)))(ks),
        jax.vmap(lambda k: jax.random.normal(k, (3,)))(jks),
    )
    same(ft.vmap(lambda k: R.split(k, 3))(ks), jax.vmap(lambda k: jax.random.split(k, 3))(jks))
    same(ft.vmap(R.PRNGKey)(np.arange(3)), jax.vmap(jax.random.PRNGKey)(np.arange(3)))
    import jax.nn.initializers as ji  # noqa: PLC0415

    k, jk = R.key(2), jax.random.key(2)
    for name in ("glorot_uniform", "glorot_normal", "lecun_normal", "he_uniform"):
        for shape in ((3, 5), (2, 2, 3, 4)):
            close(getattr(FI, name)()(k, shape), getattr(ji, name)()(jk, shape))
    for dist in ("truncated_normal", "uniform"):
        close(
            FI.variance_scaling(1.0, "fan_in", dist)(k, (3, 4), np.complex128),
            ji.variance_scaling(1.0, "fan_in", dist)(jk, (3, 4), np.complex128),
        )
    close(FI.delta_orthogonal()(k, (3, 3, 2, 4)), ji.delta_orthogonal()(jk, (3, 3, 2, 4)))
    close(R.orthogonal(k, 2, (2,), m=4), jax.random.orthogonal(jk, 2, (2,), m=4))

    # jax.lax, name by name
    jl = jax.lax
    x = np.arange(24.0).reshape(2, 3, 4)
    close(L.pad(x[0], -1.0, [(1, -1, 2), (-2, 3, 0)]), jl.pad(x[0], -1.0, [(1, -1, 2), (-2, 3, 0)]))
    close(L.dynamic_slice(x, (1, 2, 3), (1, 2, 2)), jl.dynamic_slice(x, (1, 2, 3), (1, 2, 2)))
    v = np.array([3, 1, 4, 1, 5, 9, 2, 6])
    same(L.top_k(v, 4)[1], jl.top_k(v, 4)[1])
    same(L.clz(np.array([1, 255, 0, -1], np.int32)), jl.clz(np.array([1, 255, 0, -1], np.int32)))
    same(L.round(np.array([0.5, 1.5, -2.5])), jl.round(np.array([0.5, 1.5, -2.5])))
    # jax.nn.dot_product_attention (its softmax runs in float32: agreement to ~1e-7)
    rng = np.random.default_rng(0)
    q, k, v = (
        rng.normal(size=(2, 5, 4, 8)),
        rng.normal(size=(2, 6, 2, 8)),
        rng.normal(size=(2, 6, 2, 8)),
    )
    bias, mask = rng.normal(size=(2, 4, 5, 6)), rng.random((2, 1, 5, 6)) > 0.3
    for kw in ({}, {"is_causal": True}, {"local_window_size": (1, 0)}):
        close(
            ft.nn.dot_product_attention(q, k, v, bias, mask, **kw),
            jax.nn.dot_product_attention(q, k, v, bias, mask, **kw),
            1e-6,
        )
    v = np.array([3.0, 1.0, 4.0, 1.5, 5.0, 9.0, 2.0, 6.0])
    starts = np.array([0, 2, 7])
    per = ft.vmap(ft.grad(lambda x, s: (L.dynamic_slice_in_dim(x, s, 3) ** 2).sum()), (None, 0))
    jper = jax.vmap(jax.grad(lambda x, s: (jl.dynamic_slice_in_dim(x, s, 3) ** 2).sum()), (None, 0))
    close(per(v, starts), jper(v, starts))
    xs = np.random.default_rng(0).normal(size=(2, 5, 6, 3))
    close(
        L.reduce_window(
            xs, 0.0, L.add, (1, 3, 3, 1), (1, 2, 2, 1), "SAME", window_dilation=(1, 2, 1, 1)
        ),
        jl.reduce_window(
            xs, 0.0, jl.add, (1, 3, 3, 1), (1, 2, 2, 1), "SAME", window_dilation=(1, 2, 1, 1)
        ),
    )
    dn = ("NHWC", "HWIO", "NHWC")
    xc, wc = (
        np.random.default_rng(0).normal(size=(2, 7, 6, 3)),
        np.random.default_rng(1).normal(size=(3, 2, 3, 4)),
    )
    for kw in ({}, {"rhs_dilation": (2, 1)}, {"window_strides": (2, 2)}):
        strides = kw.pop("window_strides", (1, 1))
        close(
            L.conv_general_dilated(xc, wc, strides, "SAME", dimension_numbers=dn, **kw),
            jl.conv_general_dilated(xc, wc, strides, "SAME", dimension_numbers=dn, **kw),
        )
