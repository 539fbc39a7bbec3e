"""NumPy's global random functions (``np.random.normal``, ...) inside ``vmap`` follow
``randomness`` as ``ftransforms.random`` does (NOTE [randomness under vmap]): 'error'
raises, 'different' gives each batch element its own draw (what a Python loop over the
rows draws from the same seed), 'same' one draw for the whole batch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.errors import RandomnessError

X = np.zeros((4, 3))


def noisy(x):
    return x + np.random.normal(size=3)


def test_default_randomness_raises_naming_the_function():
    with pytest.raises(RandomnessError, match=r"numpy\.random\.normal.*randomness='different'"):
        ft.vmap(noisy)(X)
    assert np.random.normal == np.random.mtrand._rand.normal  # restored after the error


DRAWS = [
    ("normal", (0.0, 1.0, 3)),
    ("uniform", (0, 1, 3)),
    ("randn", (3,)),
    ("rand", (3,)),
    ("randint", (0, 9, 3)),
    ("choice", (5, 3)),
    ("permutation", (3,)),
    ("standard_normal", (3,)),
    ("poisson", (2.0, 3)),
]


@pytest.mark.parametrize("name, args", DRAWS)
def test_different_equals_the_loop_over_rows(name, args):
    np.random.seed(7)  # looked up at the call, as np.random.normal(...) is
    got = ft.vmap(lambda x: x + getattr(np.random, name)(*args), randomness="different")(X)
    np.random.seed(7)
    want = np.stack([x + getattr(np.random, name)(*args) for x in X])
    np.testing.assert_array_equal(got, want)


def test_same_is_one_draw_for_the_batch_and_chunks_share_it():
    np.random.seed(3)
    got = ft.vmap(noisy, randomness="same")(X)
    np.random.seed(3)
    np.testing.assert_array_equal(got, np.broadcast_to(np.random.normal(size=3), X.shape))
    np.random.seed(3)
    chunked = ft.vmap(noisy, randomness="same", chunk_size=2)(X)
    np.testing.assert_array_equal(chunked, got)


def test_nested_vmaps_draw_per_element_of_both_axes():
    xs = np.zeros((2, 3, 4))
    np.random.seed(5)
    got = ft.vmap(ft.vmap(lambda x: x + np.random.rand(4), randomness="different"),
                  randomness="different")(xs)  # fmt: skip
    np.random.seed(5)
    want = np.stack([np.stack([x + np.random.rand(4) for x in row]) for row in xs])
    np.testing.assert_array_equal(got, want)


def test_noise_is_a_constant_for_grad_inside_vmap():
    w = np.linspace(0.5, 1.0, 12).reshape(4, 3)

    def loss(w):
        eps = np.random.standard_normal(3)
        return np.sum(w * eps)

    np.random.seed(11)
    got = ft.vmap(ft.grad(loss), randomness="different")(w)
    np.random.seed(11)
    want = np.stack([np.random.standard_normal(3) for _ in range(4)])
    np.testing.assert_array_equal(got, want)


def test_jit_of_vmap_draws_afresh_on_every_call():
    f = ft.jit(ft.vmap(noisy, randomness="different"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        a, b = f(X), f(X)
    assert not np.array_equal(a, b)
    assert len({tuple(r) for r in a}) == 4  # every row its own draw


def test_shuffle_under_different_raises_and_outside_transforms_numpy_is_untouched():
    with pytest.raises(RandomnessError, match="permutation"):
        ft.vmap(lambda x: np.random.shuffle(np.arange(3)) or x, randomness="different")(X)
    assert np.random.normal == np.random.mtrand._rand.normal
    assert np.random.shuffle == np.random.mtrand._rand.shuffle
    np.random.seed(2)
    a = np.random.normal(size=2)
    np.random.seed(2)
    np.testing.assert_array_equal(a, np.random.mtrand._rand.normal(size=2))


# -- a Generator the function holds (rng.normal): seen by its state moving ---------------


def test_held_generator_follows_randomness_like_the_loop():
    rng = np.random.default_rng(0)

    def f(x):
        return x + rng.normal(size=3)

    state = rng.bit_generator.state
    with pytest.raises(RandomnessError, match="generator it holds"):
        ft.vmap(f)(X)
    assert rng.bit_generator.state == state  # the failed call consumed nothing
    got = ft.vmap(f, randomness="different")(X)
    loop_rng = np.random.default_rng(0)
    np.testing.assert_array_equal(got, np.stack([x + loop_rng.normal(size=3) for x in X]))
    same = ft.vmap(f, randomness="same")(X)
    np.testing.assert_array_equal(same, np.broadcast_to(same[0], X.shape))


def test_held_generator_as_default_argument_under_vmap_of_grad_and_nested():
    gen = np.random.default_rng(4)

    def loss(w, rng=gen):
        return np.sum(w * rng.standard_normal(3))

    got = ft.vmap(ft.grad(loss), randomness="different")(np.ones((4, 3)))
    ref = np.random.default_rng(4)
    np.testing.assert_array_equal(got, np.stack([ref.standard_normal(3) for _ in range(4)]))

    r = np.random.default_rng(5)
    xs = np.zeros((2, 3, 3))
    inner = ft.vmap(lambda x: x + r.normal(size=3), randomness="different")
    got = ft.vmap(inner, randomness="different")(xs)
    ref = np.random.default_rng(5)
    want = np.stack([np.stack([x + ref.normal(size=3) for x in row]) for row in xs])
    np.testing.assert_array_equal(got, want)


def test_a_held_generator_that_does_not_draw_costs_no_rerun():
    rng = np.random.default_rng(1)
    calls = []

    def f(x):
        calls.append(1)
        return x * 2.0 if rng is not None else x

    np.testing.assert_array_equal(ft.vmap(f)(X + 1.0), 2.0 * (X + 1.0))
    assert len(calls) == 1


def test_generator_passed_as_an_unmapped_argument():
    def f(x, rng):
        return x + rng.uniform(size=3)

    got = ft.vmap(f, in_dims=(0, None), randomness="different")(X, np.random.default_rng(8))
    ref = np.random.default_rng(8)
    np.testing.assert_array_equal(got, np.stack([x + ref.uniform(size=3) for x in X]))
    with pytest.raises(RandomnessError):
        ft.vmap(f, in_dims=(0, None))(X, np.random.default_rng(8))


def test_ftransforms_random_draws_are_not_rerun_per_row():
    from ftransforms import random as frandom

    rng = np.random.default_rng(9)
    calls = []

    def f(x):
        calls.append(1)
        return x + frandom.normal(rng, size=3)

    got = ft.vmap(f, randomness="different")(X)
    assert len(calls) == 1  # one batched draw, as before
    ref = np.random.default_rng(9)
    np.testing.assert_array_equal(got, ref.normal(size=(4, 3)))
