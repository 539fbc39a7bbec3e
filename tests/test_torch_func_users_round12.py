"""Round 12: torch.func users' semantics (vmap's randomness, in_dims/out_dims, grad's
argnums and has_aux, jacobians, hessians, NTK and ensembling idioms), translated to NumPy
arrays and ftransforms' names, each checked against torch.func's documented behaviour, a
plain loop over the rows or finite differences."""

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.core.stack import current_stack

_FRESH = {
    "default_rng": lambda: np.random.default_rng(),
    "RandomState": lambda: np.random.RandomState(),
    "Generator(PCG64())": lambda: np.random.Generator(np.random.PCG64()),
}


@pytest.mark.parametrize("make", sorted(_FRESH))
def test_a_generator_made_with_no_seed_inside_draws_per_row_like_the_loop(make):
    # a generator made inside the function from fresh entropy is the row's own, as in a
    # loop over the rows: under 'different' each row draws different numbers (it drew
    # once for the batch, every row the same numbers)
    def noisy(a):
        return a * 0.0 + _FRESH[make]().normal(size=a.shape)

    out = ft.vmap(noisy, randomness="different")(np.zeros((4, 3)))
    assert out.shape == (4, 3)
    assert len({tuple(row) for row in out}) == 4
    assert len(current_stack()) == 0


@pytest.mark.parametrize("make", sorted(_FRESH))
def test_a_generator_made_with_no_seed_inside_is_a_random_op_under_error(make):
    # torch.func: any random operation under randomness='error' raises (here every row
    # silently got the same numbers); jacfwd's vmap over the basis too (its columns would
    # mix draws)
    x = np.arange(3.0)
    with pytest.raises(ft.errors.RandomnessError, match="no seed") as info:
        ft.vmap(lambda a: a + _FRESH[make]().normal(size=3))(np.zeros((4, 3)))
    assert isinstance(info.value, RuntimeError)  # torch's type
    with pytest.raises(ft.errors.RandomnessError, match="randomness='error'"):
        ft.jacfwd(lambda a: a * _FRESH[make]().normal(size=3))(x)
    assert len(current_stack()) == 0
    # under an outer transform too (the two runs' outputs are its tracers)
    with pytest.raises(ft.errors.RandomnessError, match="no seed"):
        ft.grad(lambda p: ft.vmap(lambda a: (a * p * _FRESH[make]().random(3)).sum())(x).sum())(x)
    # a seed makes it a function of the inputs: jacfwd's columns agree with jacrev's
    seeded = lambda a: a * np.random.default_rng(7).normal(size=3)  # noqa: E731
    assert np.array_equal(ft.jacfwd(seeded)(x), ft.jacrev(seeded)(x))
    legacy = lambda p: ft.vmap(lambda a: (a * p * np.random.RandomState(0).rand(3)).sum())  # noqa: E731
    g = ft.grad(lambda p: legacy(p)(np.ones((4, 3))).sum())(x)
    np.testing.assert_allclose(g, 4 * np.random.RandomState(0).rand(3), rtol=1e-14)


def test_a_seeded_generator_made_inside_still_draws_the_same_rows():
    # RandomState(seed) takes a fresh seed before setting its own: the rows still agree
    # with the loop (each row seeds 0), under every randomness, and 'error' does not raise
    x = np.arange(6.0).reshape(3, 2)
    f = lambda a: a + np.random.RandomState(0).normal(size=2)  # noqa: E731
    g = lambda a: a + np.random.default_rng(0).normal(size=2)  # noqa: E731
    for fn in (f, g):
        loop = np.stack([fn(a) for a in x])
        for randomness in ("error", "different", "same"):
            assert np.array_equal(ft.vmap(fn, randomness=randomness)(x), loop)


def test_same_randomness_shares_a_fresh_generator_draw_across_the_batch():
    out = ft.vmap(lambda a: a + np.random.default_rng().normal(size=3), randomness="same")(
        np.zeros((4, 3))
    )
    assert np.all(out == out[0])


def test_nested_vmaps_with_a_fresh_generator_follow_each_levels_randomness():
    def draw(a):
        return a + np.random.default_rng().random()

    x = np.zeros((3, 4))
    inner_same = ft.vmap(ft.vmap(draw, randomness="same"), randomness="different")(x)
    assert np.all(inner_same == inner_same[:, :1])  # the inner rows share a draw
    assert len(set(inner_same[:, 0])) == 3  # the outer rows differ
    outer_same = ft.vmap(ft.vmap(draw, randomness="different"), randomness="same")(x)
    assert np.all(outer_same == outer_same[:1])
    assert len(set(outer_same[0])) == 4


def test_same_randomness_in_parts_hands_every_part_the_same_fresh_draw():
    # torch.func: chunk_size does not change 'same' (every row one draw); here the chunks
    # and the groups of a split each made their own generator, each with a new seed
    def fresh(a):
        return a * 0.0 + np.random.default_rng().random(2)

    def branchy(a):
        r = np.random.default_rng().random(2)
        if a.sum() > 10:  # the rows disagree: the batch runs in two groups
            return a * 0.0 + r
        return a * 0.0 + r + 0.0

    x = np.arange(12.0).reshape(6, 2)
    with pytest.warns(ft.errors.PerformanceWarning):
        runs = [
            ft.vmap(fresh, randomness="same", chunk_size=4)(x),
            ft.vmap(fresh, randomness="same", chunk_size=1)(x),
            ft.vmap(branchy, randomness="same")(x),
            ft.vmap(branchy, randomness="same", chunk_size=4)(x),
        ]
    for out in runs:
        assert np.all(out == out[0])
    inner = ft.vmap(fresh, randomness="different", chunk_size=1)
    out = ft.vmap(inner, randomness="same", chunk_size=2)(np.zeros((4, 3, 2)))
    assert np.all(out == out[0])  # the outer rows share, the inner rows differ
    assert len({tuple(r) for r in out[0]}) == 3
    assert len(current_stack()) == 0


@pytest.mark.parametrize(
    "call",
    [
        lambda: ft.vmap(lambda a: "done")(np.ones(3)),
        lambda: ft.vmap(lambda a: (a, object()))(np.ones(3)),
        lambda: ft.grad(lambda a: "loss")(np.ones(3)),
        lambda: ft.jacrev(lambda a: (i for i in a))(np.ones(3)),
        lambda: ft.jvp(lambda a: a, ("x",), ("t",)),
    ],
)
def test_a_value_that_is_not_an_array_is_torchs_value_error_and_jaxs_type_error(call):
    # torch.func: ValueError "must only return Tensors"; JAX: TypeError
    with pytest.raises(ft.errors.NotAnArrayError, match="must be an array") as info:
        call()
    assert isinstance(info.value, ValueError) and isinstance(info.value, TypeError)
    assert len(current_stack()) == 0


class _State:  # a plain (not callable) object of the user's holding generators
    def __init__(self):
        self.rng = np.random.default_rng(0)
        self.pool = [np.random.default_rng(1)]


_CFG = {"rng": np.random.default_rng(2)}
_STATE = _State()


@pytest.mark.parametrize(
    "where", ["global dict", "global object", "global object's list", "argument object"]
)
def test_a_generator_held_in_a_container_or_object_follows_randomness(where):
    # vmap found generators reached through closures, defaults and callable objects only:
    # cfg["rng"], state.rng (a plain object) or an object argument drew once for the batch
    state = _State()
    draw = {
        "global dict": lambda a, s: a + _CFG["rng"].normal(size=3),
        "global object": lambda a, s: a + _STATE.rng.normal(size=3),
        "global object's list": lambda a, s: a + _STATE.pool[0].normal(size=3),
        "argument object": lambda a, s: a + s.rng.normal(size=3),
    }[where]
    x = np.zeros((4, 3))
    with pytest.raises(ft.errors.RandomnessError, match="holds"):
        ft.vmap(draw, in_dims=(0, None))(x, state)
    assert len(current_stack()) == 0
    gen = {
        "global dict": _CFG["rng"],
        "global object": _STATE.rng,
        "global object's list": _STATE.pool[0],
        "argument object": state.rng,
    }[where]
    start = gen.bit_generator.state
    out = ft.vmap(draw, in_dims=(0, None), randomness="different")(x, state)
    gen.bit_generator.state = start
    loop = np.stack([draw(a, state) for a in x])  # the loop over the rows draws in order
    np.testing.assert_array_equal(out, loop)
    same = ft.vmap(draw, in_dims=(0, None), randomness="same")(x, state)
    assert np.all(same == same[0])


def test_jacfwd_in_chunks_with_same_randomness_gives_every_column_the_same_draw():
    # jacfwd(chunk_size=...) runs one vmap per chunk of basis vectors: under 'same' a
    # generator the function holds, or makes with no seed, drew anew in every chunk, and
    # the Jacobian's columns mixed draws
    rng = np.random.default_rng(0)
    x = np.arange(1.0, 6.0)
    for noise in (
        lambda: rng.normal(size=1),
        lambda: np.random.default_rng().normal(size=1),
    ):
        for chunk_size in (1, 2):
            jac = ft.jacfwd(lambda a: a * noise(), randomness="same", chunk_size=chunk_size)(x)
            d = np.diag(jac)
            assert np.all(d == d[0]) and np.count_nonzero(jac - np.diag(d)) == 0
    start = rng.bit_generator.state
    ft.jacfwd(lambda a: a * rng.normal(size=1), randomness="same", chunk_size=2)(x)
    after_chunks = rng.bit_generator.state
    rng.bit_generator.state = start
    ft.jacfwd(lambda a: a * rng.normal(size=1), randomness="same")(x)
    assert rng.bit_generator.state == after_chunks  # left where one run leaves it


def test_global_and_held_draws_together_under_different_match_the_loop():
    # the rows rerun one at a time after a held generator moved: NumPy's global one, drawn
    # per row in the first run, was not set back, so the rows drew its next numbers
    rng = np.random.default_rng(0)

    def f(a):
        return a + np.random.normal(size=2) + 10 * rng.normal(size=2)

    x = np.zeros((4, 2))
    results = []
    for run in (
        lambda: ft.vmap(f, randomness="different")(x),
        lambda: ft.vmap(f, randomness="different", chunk_size=3)(x),
        lambda: np.stack([f(a) for a in x]),
    ):
        np.random.seed(5)
        rng.bit_generator.state = np.random.default_rng(0).bit_generator.state
        results.append((run(), np.random.normal()))
    (out, after), (chunked, after_c), (loop, after_loop) = results
    np.testing.assert_array_equal(out, loop)
    np.testing.assert_array_equal(chunked, loop)
    assert after == after_c == after_loop  # the global generator left where the loop leaves it
