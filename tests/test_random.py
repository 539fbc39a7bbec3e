"""ftransforms.random: distributions, reproducibility, vmap randomness modes, derivatives.

Statistical checks compare sample moments with their exact values within 6 standard
errors (computed from the sample size), so a correct sampler fails with probability below
1e-8 per check; every generator is seeded, so the tests are deterministic anyway.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from ftransforms import grad, jacfwd, jvp, vmap
from ftransforms import random as fr
from ftransforms.core.errors import RandomnessError
from ftransforms.core.stack import current_stack

N = 200_000  # samples for moment checks
Z = 6.0  # standard errors allowed


def seeded(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def assert_mean(x, mu, sd):
    """The sample mean of ``x`` is within Z standard errors of ``mu`` (``sd``: one draw's
    standard deviation)."""
    x = np.asarray(x, np.float64).ravel()
    bound = Z * sd / math.sqrt(x.size)
    assert abs(x.mean() - mu) <= bound, (x.mean(), mu, bound)


def assert_var(x, var, fourth_central):
    """The sample variance is within Z standard errors of ``var``; the standard error of a
    sample variance is sqrt((mu4 - var**2) / n)."""
    x = np.asarray(x, np.float64).ravel()
    bound = Z * math.sqrt((fourth_central - var**2) / x.size)
    assert abs(x.var() - var) <= bound, (x.var(), var, bound)


def assert_frequencies(samples, probs):
    """Each category's frequency is within Z binomial standard errors of its probability."""
    samples = np.asarray(samples).ravel()
    n = samples.size
    for k, q in enumerate(probs):
        freq = np.mean(samples == k)
        bound = Z * math.sqrt(q * (1 - q) / n) + 1e-12
        assert abs(freq - q) <= bound, (k, freq, q, bound)
    assert np.isin(samples, np.flatnonzero(np.asarray(probs) > 0)).all()


def assert_normal(x, loc, scale):
    assert_mean(x, loc, scale)
    assert_var(x, scale**2, 3 * scale**4)


def assert_uniform(x, low, high):
    w = high - low
    assert ((x >= low) & (x < high)).all()
    assert_mean(x, (low + high) / 2, w / math.sqrt(12))
    assert_var(x, w**2 / 12, w**4 / 80)


# -- distributions ----------------------------------------------------------------------


def test_normal_moments_and_dtype(dtype):
    x = fr.normal(seeded(), 1.5, 2.0, size=N, dtype=dtype)
    assert x.shape == (N,) and x.dtype == dtype
    assert_normal(x, 1.5, 2.0)


def test_uniform_moments_and_dtype(dtype):
    x = fr.uniform(seeded(), -1.0, 3.0, size=(N // 4, 4), dtype=dtype)
    assert x.shape == (N // 4, 4) and x.dtype == dtype
    assert_uniform(x, -1.0, 3.0)


def test_bernoulli_moments_and_dtype():
    x = fr.bernoulli(seeded(), 0.3, size=N)
    assert x.dtype == np.bool_ and x.shape == (N,)
    assert_mean(x, 0.3, math.sqrt(0.3 * 0.7))
    y = fr.bernoulli(seeded(), 0.3, size=4, dtype=np.float32)
    assert y.dtype == np.float32 and set(np.unique(y)) <= {0.0, 1.0}
    assert fr.bernoulli(seeded(), 0.0, size=100).sum() == 0
    assert fr.bernoulli(seeded(), 1.0, size=100).all()


def test_bernoulli_array_p():
    p = np.array([0.1, 0.5, 0.9])
    x = fr.bernoulli(seeded(), p, size=(N // 3, 3))
    for j in range(3):
        assert_mean(x[:, j], p[j], math.sqrt(p[j] * (1 - p[j])))


def test_randint_distribution():
    x = fr.randint(seeded(), 3, 10, size=N)
    assert x.dtype == np.int64 and x.min() == 3 and x.max() == 9
    assert_frequencies(x - 3, [1 / 7] * 7)
    y = fr.randint(seeded(), 4, size=N, dtype=np.int32)  # high=None: [0, low)
    assert y.dtype == np.int32
    assert_frequencies(y, [0.25] * 4)
    z = fr.integers(seeded(), 1, 3, size=N, endpoint=True)
    assert_frequencies(z - 1, [1 / 3] * 3)


def test_permutation_is_a_uniform_permutation():
    p = fr.permutation(seeded(), 5)
    assert sorted(p.tolist()) == list(range(5))
    x = np.arange(12.0).reshape(4, 3)
    xp = fr.permutation(seeded(), x)
    assert xp.shape == (4, 3) and sorted(xp[:, 0].tolist()) == [0.0, 3.0, 6.0, 9.0]
    assert sorted(map(tuple, xp.tolist())) == sorted(map(tuple, x.tolist()))
    x1 = fr.permutation(seeded(), x, axis=1)
    assert (np.sort(x1, axis=1) == x).all()
    # Many permutations (one per batch element): every item is at position 0 w.p. 1/4.
    perms = vmap(lambda _: fr.permutation(seeded_rng, 4), randomness="different")(np.zeros(N // 4))
    assert (np.sort(perms, axis=1) == np.arange(4)).all()
    assert_frequencies(perms[:, 0], [0.25] * 4)
    assert_frequencies(perms[:, 3], [0.25] * 4)


seeded_rng = seeded(7)


def _second_pick_probs(p):
    """P(second item = j) for successive sampling without replacement."""
    p = np.asarray(p, np.float64)
    return [sum(p[i] * p[j] / (1 - p[i]) for i in range(len(p)) if i != j) for j in range(len(p))]


def test_choice_with_replacement():
    x = fr.choice(seeded(), 5, size=N)
    assert_frequencies(x, [0.2] * 5)
    p = np.array([0.5, 0.0, 0.2, 0.3])
    y = fr.choice(seeded(), 4, size=N, p=p)
    assert y.dtype == np.int64
    assert_frequencies(y, p)
    a = np.array([10.0, 20.0, 30.0, 40.0])
    z = fr.choice(seeded(), a, size=(3, 2), p=p)
    assert z.shape == (3, 2) and np.isin(z, [10.0, 30.0, 40.0]).all()
    assert np.ndim(fr.choice(seeded(), a)) == 0


def test_choice_without_replacement():
    picks = vmap(lambda _: fr.choice(seeded_rng, 6, 6, replace=False), randomness="different")(
        np.zeros(2000)
    )
    assert (np.sort(picks, axis=1) == np.arange(6)).all()
    p = np.array([0.5, 0.0, 0.2, 0.3])
    picks = vmap(lambda _: fr.choice(seeded_rng, 4, 2, replace=False, p=p), randomness="different")(
        np.zeros(N // 4)
    )
    assert (picks[:, 0] != picks[:, 1]).all()
    assert_frequencies(picks[:, 0], p)
    assert_frequencies(picks[:, 1], _second_pick_probs(p))


def test_choice_with_traced_p():
    """p batched under vmap (a tracer): the inverse-CDF path; 'same' shares u, so the
    rows are coupled, and each row has its own distribution."""
    ps = np.array([[0.5, 0.0, 0.2, 0.3], [0.1, 0.6, 0.3, 0.0]])
    draws = vmap(lambda p: fr.choice(seeded(), 4, size=N // 4, p=p), randomness="same")(ps)
    for row, p in zip(draws, ps):
        assert_frequencies(row, p)


def test_choice_without_replacement_traced_p_distribution():
    p = np.array([0.5, 0.0, 0.2, 0.3])
    picks = vmap(
        lambda _, q: fr.choice(seeded_rng, 4, 2, replace=False, p=q),
        in_dims=(0, None),
        randomness="different",
    )(np.zeros(20_000), p)
    # ``picks`` sees a concrete p (sorting path); ``batched`` a traced p (pairwise ranks).
    batched = vmap(
        lambda q: fr.choice(seeded_rng, 4, 2, replace=False, p=q), randomness="different"
    )(np.tile(p, (20_000, 1)))
    for s in (picks, batched):
        assert (s[:, 0] != s[:, 1]).all()
        assert_frequencies(s[:, 0], p)
        assert_frequencies(s[:, 1], _second_pick_probs(p))


def test_dtype_follows_parameters():
    loc32 = np.zeros(3, np.float32)
    assert fr.normal(seeded(), loc32).dtype == np.float32
    assert fr.normal(seeded(), 0.0, 1.0, size=2).dtype == np.float64
    assert fr.uniform(seeded(), np.float32(0), 1.0, size=2).dtype == np.float32
    assert fr.normal(seeded(), np.zeros(2), dtype=np.float32).dtype == np.float32
    assert fr.normal(seeded(), size=2, dtype=np.float16).dtype == np.float16
    u16 = fr.uniform(seeded(), size=N, dtype=np.float16)  # float32 draws rounded: still < 1
    assert u16.dtype == np.float16 and ((u16 >= 0) & (u16 < 1)).all()
    assert fr.normal(seeded(), 1, 2, size=2).dtype == np.float64  # int parameters


# -- reproducibility --------------------------------------------------------------------


def test_reproducible_with_seeded_generator():
    calls = [
        lambda g: fr.normal(g, 1.0, 2.0, size=5),
        lambda g: fr.uniform(g, size=(2, 2), dtype=np.float32),
        lambda g: fr.bernoulli(g, 0.4, size=6),
        lambda g: fr.randint(g, 0, 100, size=5),
        lambda g: fr.permutation(g, 8),
        lambda g: fr.choice(g, 8, 3, replace=False),
        lambda g: fr.choice(g, 3, 5, p=[0.2, 0.3, 0.5]),
    ]
    for f in calls:
        np.testing.assert_array_equal(f(seeded(3)), f(seeded(3)))
        assert not np.array_equal(f(seeded(3)), f(seeded(4)))


def test_matches_the_generator_methods():
    np.testing.assert_array_equal(
        fr.normal(seeded(), 1.0, 2.0, size=7), seeded().normal(1.0, 2.0, size=7)
    )
    np.testing.assert_array_equal(
        fr.uniform(seeded(), -2.0, 5.0, size=7), seeded().uniform(-2.0, 5.0, size=7)
    )
    np.testing.assert_array_equal(fr.permutation(seeded(), 9), seeded().permutation(9))
    np.testing.assert_array_equal(
        fr.randint(seeded(), 2, 9, size=7), seeded().integers(2, 9, size=7)
    )


# -- vmap randomness modes ----------------------------------------------------------------

DRAWS = {
    "normal": lambda g: fr.normal(g, size=(3,)),
    "uniform": lambda g: fr.uniform(g, size=(3,)),
    "bernoulli": lambda g: fr.bernoulli(g, 0.5, size=(3,)),
    "randint": lambda g: fr.randint(g, 0, 1000, size=(3,)),
    "permutation": lambda g: fr.permutation(g, 3),
    "choice": lambda g: fr.choice(g, np.arange(3.0), 3),
    "choice_p": lambda g: fr.choice(g, 3, 3, p=np.array([0.2, 0.3, 0.5])),
    "choice_noreplace": lambda g: fr.choice(g, 3, 3, replace=False),
    "choice_noreplace_p": lambda g: fr.choice(g, 3, 3, replace=False, p=[0.2, 0.3, 0.5]),
}


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_error_mode_raises_and_stack_is_clean(name):
    draw = DRAWS[name]
    g = seeded()
    with pytest.raises(RandomnessError) as info:
        vmap(lambda x: x + draw(g))(np.zeros((4, 3)))
    assert isinstance(info.value, RuntimeError)
    msg = str(info.value)
    assert msg.startswith("vmap(<lambda>")
    assert "randomness='error'" in msg
    assert "randomness='different'" in msg and "randomness='same'" in msg
    assert current_stack() == ()
    out = vmap(lambda x: x + draw(g), randomness="same")(np.zeros((4, 3)))  # next call works
    assert out.shape == (4, 3)


def test_error_mode_with_parameters_batched():
    with pytest.raises(RandomnessError):
        vmap(lambda loc: fr.normal(seeded(), loc))(np.zeros(3))
    with pytest.raises(RandomnessError):
        vmap(lambda p: fr.bernoulli(seeded(), p))(np.full(3, 0.5))
    assert current_stack() == ()


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_same_mode_shares_one_draw(name):
    draw = DRAWS[name]
    out = vmap(lambda x: x + draw(seeded(1)), randomness="same")(np.zeros((5, 3)))
    assert out.shape == (5, 3)
    assert (out == out[0]).all()
    np.testing.assert_array_equal(out[0], draw(seeded(1)))  # the very draw outside vmap


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_different_mode_draws_per_element(name):
    draw = DRAWS[name]
    g = seeded(2)
    out = vmap(lambda x: x + draw(g), randomness="different")(np.zeros((40, 3)))
    assert out.shape == (40, 3)
    assert len({tuple(r) for r in out.tolist()}) > 1


def test_different_mode_rows_are_independent_with_the_right_distribution():
    b, n = 4, N // 4
    out = vmap(lambda _: fr.normal(seeded_rng, 1.0, 3.0, size=n), randomness="different")(
        np.zeros(b)
    )
    assert out.shape == (b, n)
    for row in out:
        assert_normal(row, 1.0, 3.0)
    z = (out - 1.0) / 3.0
    for i in range(b):
        for j in range(i):
            assert abs(np.mean(z[i] * z[j])) <= Z / math.sqrt(n)  # uncorrelated rows
    u = vmap(lambda _: fr.uniform(seeded_rng, 2.0, 4.0, size=n), randomness="different")(
        np.zeros(b)
    )
    for row in u:
        assert_uniform(row, 2.0, 4.0)


def test_different_mode_draw_layout():
    """'different' draws (axis_size, *size) in one call, batch axis first."""
    out = vmap(lambda _: fr.normal(seeded(5), size=(2, 3)), randomness="different")(np.zeros(4))
    np.testing.assert_array_equal(out, seeded(5).standard_normal((4, 2, 3)))


def test_no_tracer_draw_is_seen_by_vmap():
    """A draw with constant parameters inside vmap still follows the randomness mode."""

    def f(x):
        return fr.normal(seeded(0), size=(3,))  # does not touch x

    same = vmap(f, randomness="same")(np.zeros(4))
    diff = vmap(f, randomness="different")(np.zeros(4))
    assert same.shape == diff.shape == (4, 3)
    assert (same == same[0]).all() and (diff[0] != diff[1]).all()
    with pytest.raises(RandomnessError):
        vmap(f)(np.zeros(4))


@pytest.mark.parametrize("outer", ["same", "different"])
@pytest.mark.parametrize("inner", ["same", "different"])
def test_nested_vmaps_mixed(outer, inner):
    f = vmap(
        vmap(lambda x: x + fr.normal(seeded_rng, size=(2,)), randomness=inner), randomness=outer
    )
    out = f(np.zeros((3, 4, 2)))
    assert out.shape == (3, 4, 2)
    across_outer = (out == out[:1]).all()
    across_inner = (out == out[:, :1]).all()
    assert across_outer == (outer == "same")
    assert across_inner == (inner == "same")


def test_nested_three_levels_layout():
    f = vmap(
        vmap(
            vmap(lambda _: fr.normal(seeded(9)), randomness="different"),
            randomness="same",
        ),
        randomness="different",
    )
    out = f(np.zeros((2, 3, 4)))
    expected = seeded(9).standard_normal((2, 4))  # the 'different' levels, outermost first
    np.testing.assert_array_equal(out, np.broadcast_to(expected[:, None, :], (2, 3, 4)))


@pytest.mark.parametrize(
    "outer, inner", [("error", "different"), ("different", "error"), ("same", "error")]
)
def test_nested_error_at_any_level_raises(outer, inner):
    f = vmap(vmap(lambda x: x + fr.normal(seeded()), randomness=inner), randomness=outer)
    with pytest.raises(RandomnessError):
        f(np.zeros((2, 3)))
    assert current_stack() == ()


def test_batched_loc_same_shares_eps():
    locs = np.arange(4.0)
    same = vmap(lambda loc: fr.normal(seeded(1), loc, 2.0, size=3), randomness="same")(locs)
    eps = seeded(1).standard_normal(3)
    np.testing.assert_allclose(same, locs[:, None] + 2.0 * eps, rtol=0, atol=1e-15)
    diff = vmap(lambda loc: fr.normal(seeded(1), loc, 2.0, size=3), randomness="different")(locs)
    np.testing.assert_allclose(
        diff, locs[:, None] + 2.0 * seeded(1).standard_normal((4, 3)), rtol=0, atol=1e-15
    )


def test_batched_scale_and_bounds():
    scales = np.array([1.0, 2.0, 3.0])
    out = vmap(lambda s: fr.normal(seeded(1), 0.0, s, size=5), randomness="same")(scales)
    np.testing.assert_allclose(out / scales[:, None], np.broadcast_to(out[0], (3, 5)))
    highs = np.array([1.0, 10.0])
    u = vmap(lambda h: fr.uniform(seeded(1), 0.0, h, size=5), randomness="same")(highs)
    np.testing.assert_allclose(u[1], 10 * u[0])


def test_batched_p_same_couples_the_masks():
    """'same' shares u, so bernoulli(p_small) implies bernoulli(p_big) elementwise."""
    ps = np.array([0.2, 0.5, 0.8])
    masks = vmap(lambda p: fr.bernoulli(seeded(), p, size=1000), randomness="same")(ps)
    assert (masks[0] <= masks[1]).all() and (masks[1] <= masks[2]).all()
    for m, p in zip(masks, ps):
        assert_mean(m, p, math.sqrt(p * (1 - p)))


def test_batched_randint_bounds():
    highs = np.array([2, 5, 1000])
    out = vmap(lambda h: fr.randint(seeded_rng, 0, h, size=N // 4), randomness="different")(highs)
    for row, h in zip(out, highs):
        assert row.dtype == np.int64 and row.min() >= 0 and row.max() < h
    assert_frequencies(out[0], [0.5, 0.5])
    assert_frequencies(out[1], [0.2] * 5)
    lows = np.array([-3, 7])
    out = vmap(
        lambda lo: fr.randint(seeded_rng, lo, 9, size=N // 4, endpoint=True),
        randomness="same",
    )(lows)
    assert_frequencies(out[0] + 3, [1 / 13] * 13)
    assert_frequencies(out[1] - 7, [1 / 3] * 3)


def test_permutation_of_batched_x():
    x = np.arange(12.0).reshape(3, 4)
    same = vmap(lambda r: fr.permutation(seeded(2), r), randomness="same")(x)
    perm = seeded(2).permutation(4)
    np.testing.assert_array_equal(same, x[:, perm])
    diff = vmap(lambda r: fr.permutation(seeded(2), r), randomness="different")(x)
    assert (np.sort(diff, axis=1) == x).all()


def test_chunked_vmap_same_draws_once():
    def f(x):
        return x + fr.normal(g, size=(3,))

    g = seeded(4)
    chunked = vmap(f, randomness="same", chunk_size=2)(np.zeros((5, 3)))
    state_after_chunked = g.bit_generator.state
    g = seeded(4)
    whole = vmap(f, randomness="same")(np.zeros((5, 3)))
    np.testing.assert_array_equal(chunked, whole)
    assert g.bit_generator.state == state_after_chunked  # left where one draw leaves it
    g = seeded(4)
    diff = vmap(f, randomness="different", chunk_size=2)(np.zeros((5, 3)))
    assert len({tuple(r) for r in diff.tolist()}) == 5


def test_chunked_same_inside_different():
    def f(x):
        return x + fr.normal(g, size=(2,))

    g = seeded(4)
    out = vmap(vmap(f, randomness="same", chunk_size=2), randomness="different")(
        np.zeros((3, 5, 2))
    )
    assert (out == out[:, :1]).all()
    assert not (out[0] == out[1]).all()


# -- derivatives ---------------------------------------------------------------------------


def test_grad_through_loc_and_scale():
    n = 1000
    g_loc = grad(lambda loc: fr.normal(seeded(), loc, 2.0, size=n).mean())(0.5)
    np.testing.assert_allclose(g_loc, 1.0, rtol=1e-12)
    g_scale = grad(lambda s: fr.normal(seeded(), 0.5, s, size=n).mean())(2.0)
    np.testing.assert_allclose(g_scale, seeded().standard_normal(n).mean(), rtol=1e-12)
    both = grad(lambda loc, s: fr.normal(seeded(), loc, s, size=n).sum(), argnums=(0, 1))(
        np.zeros(n), 1.5
    )
    np.testing.assert_array_equal(both[0], np.ones(n))
    np.testing.assert_allclose(both[1], seeded().standard_normal(n).sum(), rtol=1e-12)


def test_grad_through_uniform_bounds():
    n = 1000
    u = seeded().random(n)
    g_low, g_high = grad(
        lambda lo, hi: fr.uniform(seeded(), lo, hi, size=n).mean(), argnums=(0, 1)
    )(1.0, 3.0)
    np.testing.assert_allclose(g_low, 1 - u.mean(), rtol=1e-12)
    np.testing.assert_allclose(g_high, u.mean(), rtol=1e-12)


def test_jvp_through_loc_and_scale(dtype):
    loc, scale = np.asarray(0.5, dtype), np.asarray(2.0, dtype)
    out, t = jvp(
        lambda lo, s: fr.normal(seeded(), lo, s, size=4),
        (loc, scale),
        (np.asarray(1.0, dtype), np.asarray(0.0, dtype)),
    )
    assert out.dtype == t.dtype == dtype
    np.testing.assert_array_equal(t, np.ones(4, dtype))
    _, t = jvp(lambda s: fr.normal(seeded(), loc, s, size=4), (scale,), (np.asarray(1.0, dtype),))
    np.testing.assert_allclose(t, seeded().standard_normal(4, dtype=dtype), rtol=1e-6)


def test_grad_through_permutation_and_choice():
    x = np.arange(5.0)
    w = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    g = grad(lambda x: (w * fr.permutation(seeded(), x)).sum())(x)
    perm = seeded().permutation(5)
    expected = np.zeros(5)
    expected[perm] = w
    np.testing.assert_array_equal(g, expected)
    g = grad(lambda x: fr.choice(seeded(), x, 20).sum())(x)
    idx = seeded().integers(0, 5, 20)
    np.testing.assert_array_equal(g, np.bincount(idx, minlength=5).astype(float))


def test_vmap_grad_different_noise_is_constant_per_element():
    b, n = 3, 6
    scales = np.array([1.0, 2.0, 3.0])
    g = vmap(grad(lambda s: fr.normal(seeded(8), 0.0, s, size=n).sum()), randomness="different")(
        scales
    )
    np.testing.assert_allclose(g, seeded(8).standard_normal((b, n)).sum(axis=1), rtol=1e-12)
    g_same = vmap(grad(lambda s: fr.normal(seeded(8), 0.0, s, size=n).sum()), randomness="same")(
        scales
    )
    np.testing.assert_allclose(g_same, np.full(b, seeded(8).standard_normal(n).sum()))


def test_grad_vmap_composition():
    """grad outside vmap: per-element noise, gradient through the mean of the batch."""
    b, n = 4, 5
    g = grad(
        lambda s: vmap(lambda _: fr.normal(seeded(8), 0.0, s, size=n), randomness="different")(
            np.zeros(b)
        ).sum()
    )(1.5)
    np.testing.assert_allclose(g, seeded(8).standard_normal((b, n)).sum(), rtol=1e-12)


def test_dropout_under_vmap_grad():
    keep = 0.9
    x = np.ones((6, 50), np.float32)

    def loss(x):
        return (x * fr.bernoulli(g, keep, x.shape) / keep).sum()

    g = seeded(11)
    grads = vmap(grad(loss), randomness="different")(x)
    assert grads.dtype == np.float32 and grads.shape == x.shape
    mask = seeded(11).random(x.shape) < keep  # (batch, *x.shape[1:]), drawn in one call
    np.testing.assert_array_equal(grads, np.where(mask, np.float32(1 / keep), np.float32(0)))
    assert len({tuple(r) for r in grads.tolist()}) == 6
    g = seeded(11)
    same = vmap(grad(loss), randomness="same")(x)
    assert (same == same[0]).all()


def test_no_derivative_through_discrete_draws():
    g = grad(lambda p: fr.bernoulli(seeded(), p, size=5, dtype=np.float64).sum())(0.5)
    np.testing.assert_array_equal(g, 0.0)
    g = grad(lambda p: fr.choice(seeded(), np.arange(3.0), 4, p=p).sum())(np.array([0.2, 0.3, 0.5]))
    np.testing.assert_array_equal(g, np.zeros(3))


def test_jacfwd_randomness():
    x = np.ones(3)

    def f(x):
        return x * fr.normal(g, size=3)

    g = seeded(6)
    with pytest.raises(RandomnessError):
        jacfwd(f)(x)
    assert current_stack() == ()
    g = seeded(6)
    np.testing.assert_array_equal(
        jacfwd(f, randomness="same")(x), np.diag(seeded(6).normal(size=3))
    )
    g = seeded(6)
    jd = jacfwd(f, randomness="different")(x)
    np.testing.assert_array_equal(jd, np.diag(np.diag(seeded(6).standard_normal((3, 3)))))


# -- argument errors -----------------------------------------------------------------------


def test_argument_errors():
    with pytest.raises(TypeError, match="numpy.random.Generator"):
        fr.normal(np.random.RandomState(0), size=3)
    with pytest.raises(TypeError, match="numpy.random.Generator"):
        fr.normal(0, size=3)
    with pytest.raises(TypeError, match="size= by keyword"):
        fr.normal(seeded(), (3,))
    with pytest.raises(ValueError, match="broadcast to size"):
        fr.normal(seeded(), np.zeros(2), size=(3,))
    with pytest.raises(TypeError, match="floating-point"):
        fr.normal(seeded(), size=2, dtype=np.int32)
    with pytest.raises(ValueError, match="probability"):
        fr.bernoulli(seeded(), 1.5)
    with pytest.raises(ValueError, match="sum to 1"):
        fr.choice(seeded(), 3, p=[0.5, 0.6, 0.0])
    with pytest.raises(ValueError, match="larger sample"):
        fr.choice(seeded(), 3, 4, replace=False)
    with pytest.raises(ValueError, match="non-zero"):
        fr.choice(seeded(), 3, 2, replace=False, p=[1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="high must be"):
        fr.randint(seeded(), 5, 5)
    with pytest.raises(TypeError, match="integer"):
        fr.randint(seeded(), 0.5, 3)
    with pytest.raises(TypeError, match="size"):
        fr.normal(seeded(), size=1.5)
    assert current_stack() == ()


# -- torch.func comparison (the only optional test) -----------------------------------------


def _sharing(out, batch_ndim):
    """For each batch axis: whether the output is identical along it."""
    out = np.asarray(out)
    return tuple(bool((out == np.take(out, [0], axis=k)).all()) for k in range(batch_ndim))


def test_modes_match_torch_func():
    """Shapes and sharing patterns of each mode against torch.func.vmap (torch's jacfwd is
    left out: its first call imports torch._dynamo, ~10 s; test_jacfwd_randomness checks
    the same per-basis-vector behaviour, torch's jacfwd(randomness=) included)."""
    torch = pytest.importorskip("torch")
    from torch.func import vmap as t_vmap  # noqa: PLC0415

    torch.manual_seed(0)
    ours_draws = {
        "normal": lambda: fr.normal(seeded_rng, size=(4,)),
        "randint": lambda: fr.randint(seeded_rng, 0, 10**6, size=(4,)),
        "permutation": lambda: fr.permutation(seeded_rng, 6),
        "bernoulli": lambda: fr.bernoulli(seeded_rng, 0.5, size=(16,), dtype=np.float64),
    }
    torch_draws = {
        "normal": lambda: torch.randn(4, dtype=torch.float64),
        "randint": lambda: torch.randint(0, 10**6, (4,)),
        "permutation": lambda: torch.randperm(6),
        "bernoulli": lambda: torch.bernoulli(torch.full((16,), 0.5, dtype=torch.float64)),
    }
    for name in ours_draws:
        for mode in ("same", "different"):
            ours = vmap(lambda x: ours_draws[name](), randomness=mode)(np.zeros(5))
            theirs = t_vmap(lambda x: torch_draws[name](), randomness=mode)(torch.zeros(5))
            assert ours.shape == tuple(theirs.shape), (name, mode)
            assert _sharing(ours, 1) == _sharing(theirs.numpy(), 1), (name, mode)
        with pytest.raises(RuntimeError):
            t_vmap(lambda x: torch_draws[name]())(torch.zeros(5))
        with pytest.raises(RuntimeError):
            vmap(lambda x: ours_draws[name]())(np.zeros(5))

    # nested, every combination (error anywhere raises in both)
    for outer in ("error", "same", "different"):
        for inner in ("error", "same", "different"):
            o = vmap(vmap(lambda x: fr.normal(seeded_rng), randomness=inner), randomness=outer)
            t = t_vmap(
                t_vmap(lambda x: torch.randn((), dtype=torch.float64), randomness=inner),
                randomness=outer,
            )
            if "error" in (outer, inner):
                with pytest.raises(RuntimeError):
                    o(np.zeros((3, 4)))
                with pytest.raises(RuntimeError):
                    t(torch.zeros(3, 4))
                continue
            ours, theirs = o(np.zeros((3, 4))), t(torch.zeros(3, 4)).numpy()
            assert ours.shape == theirs.shape
            assert _sharing(ours, 2) == _sharing(theirs, 2), (outer, inner)

    # dropout-style masks on a batched input: 'same' shares the mask, 'different' does not
    for mode in ("same", "different"):
        ours = vmap(lambda x: x * fr.bernoulli(seeded_rng, 0.5, x.shape), randomness=mode)(
            np.ones((4, 32))
        )
        theirs = t_vmap(lambda x: torch.nn.functional.dropout(x, 0.5), randomness=mode)(
            torch.ones(4, 32, dtype=torch.float64)
        )
        assert _sharing(ours != 0, 1) == _sharing(theirs.numpy() != 0, 1), mode

    # A deliberate extension: 'same' with a batched parameter shares eps (torch raises).
    with pytest.raises(RuntimeError, match="same randomness with a batched"):
        t_vmap(lambda m: torch.normal(m, 1.0), randomness="same")(torch.zeros(3))
    out = vmap(lambda m: fr.normal(seeded_rng, m, 1.0), randomness="same")(np.arange(3.0))
    np.testing.assert_allclose(out - np.arange(3.0), np.full(3, out[0]))


def test_op_db_covers_every_draw_primitive():
    from ftransforms.core.primitive import Primitive  # noqa: PLC0415
    from tests.op_db import covered_primitives  # noqa: PLC0415

    declared = {v.name for v in vars(fr).values() if isinstance(v, Primitive)}
    missing = declared - set(covered_primitives())
    assert not missing, f"add an OpEntry to tests/op_db.py (random section) for {sorted(missing)}"
