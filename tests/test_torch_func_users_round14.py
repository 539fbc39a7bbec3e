"""Round 14: torch.func users' semantics (vmap's randomness with generators the function
makes, spawns or caches, and 'same' in chunks), translated to NumPy arrays and
ftransforms' names, each checked against torch.func's documented behaviour (every random
op follows ``randomness``; 'same' is one draw for the batch, chunks included) or a plain
loop over the rows."""

import random

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.core.stack import current_stack


def _python_noise(a):
    r = random.Random()  # fresh entropy, as in a loop over the rows: each row its own
    return a + np.array([r.random() for _ in range(a.shape[-1])])


def test_pythons_random_made_with_no_seed_inside_follows_randomness():
    # random.Random() made inside the function drew once for the batch: 'error' raised
    # nothing and 'different' gave every row the same numbers
    x = np.zeros((5, 3))
    with pytest.raises(ft.errors.RandomnessError, match=r"random\.Random\(\)") as info:
        ft.vmap(_python_noise)(x)
    assert isinstance(info.value, RuntimeError)  # torch's type
    assert len(current_stack()) == 0
    for chunk in (None, 2):
        out = ft.vmap(_python_noise, randomness="different", chunk_size=chunk)(x)
        assert len({tuple(row) for row in out}) == 5
        out = ft.vmap(_python_noise, randomness="same", chunk_size=chunk)(x)
        assert np.all(out == out[0])  # one draw for the batch, every chunk the same
    # a seed makes it a function of the inputs: the loop's rows, no error
    seeded = lambda a: a + random.Random(3).random()  # noqa: E731
    np.testing.assert_array_equal(ft.vmap(seeded)(x), np.stack([seeded(a) for a in x]))
    assert random.Random.seed.__module__ == "random"  # Python's own, after the calls
    assert len(current_stack()) == 0
