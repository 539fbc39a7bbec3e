"""Round 14: torch.func users' semantics (vmap's randomness with generators the function
makes, spawns or caches, and 'same' in chunks), translated to NumPy arrays and
ftransforms' names, each checked against torch.func's documented behaviour (every random
op follows ``randomness``; 'same' is one draw for the batch, chunks included) or a plain
loop over the rows."""

import functools
import random
import warnings

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


_SPAWNERS = {
    "Generator": (lambda: np.random.default_rng(0), lambda base: base.spawn(1)[0]),
    "PCG64": (lambda: np.random.PCG64(0), lambda base: np.random.default_rng(base.spawn(1)[0])),
    "SeedSequence": (
        lambda: np.random.SeedSequence(0),
        lambda base: np.random.default_rng(base.spawn(1)[0]),
    ),
}
spawner = {}  # the user's module-level holder of the parent


def _from_a_spawned_child(a):
    return a + _SPAWNERS[spawner["kind"]][1](spawner["base"]).normal(size=a.shape)


def _children(base):
    seq = base.bit_generator.seed_seq if isinstance(base, np.random.Generator) else base
    return getattr(seq, "seed_seq", seq).n_children_spawned


@pytest.mark.parametrize("kind", sorted(_SPAWNERS))
def test_a_child_spawned_per_row_follows_randomness_like_the_loop(kind):
    # rng.spawn(1) moves no generator state, only its SeedSequence's count of children:
    # the batch shared one child ('error' raised nothing, 'different' gave every row the
    # same numbers); in the loop each row spawns the next child
    make, _ = _SPAWNERS[kind]
    x = np.zeros((4, 3))
    spawner.update(kind=kind, base=make())
    with pytest.raises(ft.errors.RandomnessError, match="randomness='error'"):
        ft.vmap(_from_a_spawned_child)(x)
    assert _children(spawner["base"]) == 0  # set back
    out = ft.vmap(_from_a_spawned_child, randomness="different")(x)
    assert _children(spawner["base"]) == 4
    spawner["base"] = make()  # rebound: the new parent is the one watched
    loop = np.stack([_from_a_spawned_child(a) for a in x])
    np.testing.assert_array_equal(out, loop)
    spawner["base"] = make()
    out = ft.vmap(_from_a_spawned_child, randomness="same", chunk_size=3)(x)
    np.testing.assert_array_equal(out, np.broadcast_to(loop[0], out.shape))  # one child
    assert _children(spawner["base"]) == 1  # as after one call
    assert len(current_stack()) == 0


def test_same_randomness_in_parts_shares_one_draw_of_numpys_global_generator_held_as_object():
    # torch.func: chunk_size does not change 'same' (torch sets its RNG back per chunk);
    # scipy.stats' rvs() with no random_state draws from NumPy's global RandomState as an
    # object, past np.random's module functions: every chunk (and every group of a split
    # batch) drew the next numbers
    stats = pytest.importorskip("scipy.stats")
    x = np.arange(12.0).reshape(4, 3)

    def noisy(a):
        return a * 0.0 + stats.norm.rvs(size=3)

    def branchy(a):
        r = stats.norm.rvs(size=3)
        if a.sum() > 10:  # the rows disagree: the batch runs in two groups
            return a * 0.0 + r
        return a * 0.0 + r + 0.0

    reference = np.random.RandomState(0)
    first, after = reference.standard_normal(3), reference.random_sample()
    for fn, chunk in ((noisy, 3), (branchy, None), (branchy, 2)):
        for call in range(2):
            np.random.seed(0)
            with warnings.catch_warnings():  # (a split's PerformanceWarning, once)
                warnings.simplefilter("ignore", ft.errors.PerformanceWarning)
                out = ft.vmap(fn, randomness="same", chunk_size=chunk)(x)
            assert np.all(out == out[0])  # one draw for the batch
            if call:  # seen drawing at the first call: one draw, as an unchunked call
                np.testing.assert_array_equal(out[0], first)
                assert np.random.random() == after
    assert len(current_stack()) == 0


@functools.cache
def _cached_rng(seed=0):
    return np.random.default_rng(seed)


@functools.lru_cache(maxsize=8)
def _bounded_cached_rng(seed=0):
    return np.random.Generator(np.random.PCG64(seed))


def _from_the_cache(a):
    return a + _cached_rng().normal(size=a.shape)


def _from_the_bounded_cache(a):
    return a + _bounded_cached_rng(1).normal(size=a.shape)


@pytest.mark.parametrize("fn", [_from_the_cache, _from_the_bounded_cache])
def test_a_generator_from_an_lru_cache_follows_randomness_like_the_loop(fn):
    # get_rng() cached with functools.lru_cache hands every call one generator, so the
    # loop's rows draw on from it; the batch shared one draw ('error' raised nothing,
    # 'different' gave every row the same numbers), whether the cache was filled before
    # the call or by the call itself (the first call made it: set back to its seed's state)
    x = np.zeros((4, 3))
    cache = _cached_rng if fn is _from_the_cache else _bounded_cached_rng
    for filled in (False, True):
        cache.cache_clear()
        if filled:
            cache(0 if fn is _from_the_cache else 1)
        with pytest.raises(ft.errors.RandomnessError, match="randomness='error'"):
            ft.vmap(fn)(x)
        out = ft.vmap(fn, randomness="different")(x)
        cache.cache_clear()
        loop = np.stack([fn(a) for a in x])
        np.testing.assert_array_equal(out, loop)
        # jit: the trace of a draw is not replayed (the same numbers at every call)
        cache.cache_clear()
        jitted = ft.jit(fn)
        with pytest.warns(RuntimeWarning, match="runs eagerly"):
            first = jitted(x[0])
        assert not np.array_equal(first, jitted(x[0]))
    assert len(current_stack()) == 0


def test_a_scipy_frozen_distributions_generator_follows_randomness_like_the_loop():
    # stats.multivariate_normal(mean, cov, seed=0) and dist.random_state = rng: the frozen
    # distribution (SciPy's object) holds the generator, and its fields were not looked
    # at: 'error' raised nothing and 'different' gave every row the same sample
    stats = pytest.importorskip("scipy.stats")
    x = np.zeros((4, 2))
    holder = {}

    def make():
        holder["mvn"] = stats.multivariate_normal(np.zeros(2), np.eye(2), seed=0)
        frozen = stats.norm(0.0, 2.0)
        frozen.random_state = np.random.default_rng(1)
        holder["norm"] = frozen

    def noisy(a):
        return a + holder["mvn"].rvs() + holder["norm"].rvs(size=2)

    make()
    with pytest.raises(ft.errors.RandomnessError, match="randomness='error'"):
        ft.vmap(noisy)(x)
    out = ft.vmap(noisy, randomness="different")(x)
    make()
    loop = np.stack([noisy(a) for a in x])
    np.testing.assert_array_equal(out, loop)
    make()  # rebuilt: the new distributions' generators are the ones watched
    np.testing.assert_array_equal(ft.vmap(noisy, randomness="different")(x), loop)
    assert len(current_stack()) == 0


_LAZY_RNG = None


def _get_rng():
    global _LAZY_RNG
    if _LAZY_RNG is None:  # made on first use
        _LAZY_RNG = np.random.default_rng(3)
    return _LAZY_RNG


def _from_a_lazy_global(a):
    return a + _get_rng().normal(size=a.shape)


class _LazyNoise:
    def __init__(self):
        self._rng = None

    @property
    def rng(self):
        if self._rng is None:
            self._rng = np.random.Generator(np.random.PCG64(4))
        return self._rng

    def __call__(self, a):
        return a + self.rng.normal(size=a.shape)


def test_a_generator_made_on_first_use_follows_randomness_like_the_loop():
    # a global (or a model's field) that holds None until the first call makes the
    # generator: the walk found nothing then, and never looked again ('error' raised
    # nothing, 'different' gave every row the same numbers, jit replayed the first numbers)
    global _LAZY_RNG
    x = np.zeros((4, 3))
    for make, seed in ((lambda: _from_a_lazy_global, 3), (_LazyNoise, 4)):
        _LAZY_RNG = None
        fn = make()
        with pytest.raises(ft.errors.RandomnessError, match="randomness='error'"):
            ft.vmap(fn)(x)
        out = ft.vmap(fn, randomness="different")(x)
        _LAZY_RNG = None
        loop_fn = make()
        loop = np.stack([loop_fn(a) for a in x])
        np.testing.assert_array_equal(out, loop)  # made at the first row, drawn on after
        # the generator there now is watched: the rows draw on from it (the loop's next 4)
        _LAZY_RNG = None
        fn = make()
        ft.vmap(fn, randomness="different")(x)
        out = ft.vmap(fn, randomness="different")(x)
        reference = np.random.Generator(np.random.PCG64(seed)).normal(size=(8, 3))
        np.testing.assert_array_equal(out, reference[4:])
        _LAZY_RNG = None
        jitted = ft.jit(make())
        with pytest.warns(RuntimeWarning, match="runs eagerly"):
            first = jitted(x[0])
        assert not np.array_equal(first, jitted(x[0]))
    assert len(current_stack()) == 0
