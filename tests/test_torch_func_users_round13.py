"""Round 13: torch.func users' semantics (vmap's randomness with NumPy's generators, ...),
translated to NumPy arrays and ftransforms' names, each checked against torch.func's
documented behaviour or a plain loop over the rows."""

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.core.stack import current_stack


def _noisy(a, *, rng):
    return a + rng.normal(size=a.shape)


def test_a_generator_passed_by_keyword_follows_randomness_like_a_positional_one():
    # torch.func: any random op under vmap follows randomness, wherever its generator came
    # from; here a generator handed in as a keyword argument (not batched, as vmap's
    # kwargs) went unseen: 'error' did not raise and 'different' gave every row one draw
    x = np.arange(12.0).reshape(4, 3)
    with pytest.raises(ft.errors.RandomnessError, match="randomness='error'") as info:
        ft.vmap(_noisy)(x, rng=np.random.default_rng(0))
    assert isinstance(info.value, RuntimeError)  # torch's type
    assert len(current_stack()) == 0

    rng = np.random.default_rng(1)
    out = ft.vmap(_noisy, randomness="different")(x, rng=rng)
    loop_rng = np.random.default_rng(1)
    loop = np.stack([_noisy(row, rng=loop_rng) for row in x])
    np.testing.assert_array_equal(out, loop)  # the loop's draws, in row order
    assert rng.bit_generator.state == loop_rng.bit_generator.state

    # 'same' in chunks: every chunk starts from the same state (torch resets its RNG per
    # chunk), so all rows share one draw, and the generator moves as for one call
    rng = np.random.default_rng(2)
    out = ft.vmap(_noisy, randomness="same", chunk_size=3)(x, rng=rng)
    noise = np.random.default_rng(2).normal(size=3)
    np.testing.assert_array_equal(out, x + noise)
    assert len(current_stack()) == 0
