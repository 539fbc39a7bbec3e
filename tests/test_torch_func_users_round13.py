"""Round 13: torch.func users' semantics (vmap's randomness with NumPy's generators, ...),
translated to NumPy arrays and ftransforms' names, each checked against torch.func's
documented behaviour or a plain loop over the rows."""

import dataclasses
import types

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


def test_scipy_stats_rvs_with_no_random_state_follows_randomness():
    # scipy.stats' distributions hold NumPy's global RandomState from import and draw from
    # it as an object, past np.random's module functions: under vmap the batch shared one
    # draw ('error' raised nothing, 'different' gave every row the same numbers, where
    # torch.func raises / draws per row, as a loop over the rows does)
    stats = pytest.importorskip("scipy.stats")
    x = np.zeros((5, 3))

    def noisy(a):
        return a + stats.norm.rvs(size=3)

    with pytest.raises(ft.errors.RandomnessError, match="global generator") as info:
        ft.vmap(noisy)(x)
    assert isinstance(info.value, RuntimeError)  # torch's type
    assert len(current_stack()) == 0
    out = ft.vmap(noisy, randomness="different")(x)
    assert len({tuple(row) for row in out}) == 5
    # the same object reached directly, and a draw of a whole MT period (624 words)
    direct = ft.vmap(
        lambda a: a + np.random.mtrand._rand.random_sample(312), randomness="different"
    )
    out = direct(np.zeros((4, 312)))
    assert len({tuple(row) for row in out}) == 4
    # 'same' keeps its one draw; no draw: nothing changes
    out = ft.vmap(noisy, randomness="same")(x)
    assert np.all(out == out[0])
    np.testing.assert_array_equal(ft.vmap(lambda a: a * 2)(x + 1), 2 * (x + 1))
    assert len(current_stack()) == 0


def test_a_generator_seeded_from_a_list_holding_the_row_index_draws_as_the_loop():
    # NumPy's idiom for per-example streams: default_rng([base_seed, idx]) (a SeedSequence's
    # entropy); with idx a row of the batch it raised "len() of a 0-d array"
    x, idx = np.zeros((4, 3)), np.array([0, 1, 0, 2])

    def noisy(a, i):
        return a + np.random.default_rng([7, i]).normal(size=3)

    def legacy(a, i):
        np.random.seed((7, i))
        return a + np.random.randn(3)

    for fn in (noisy, legacy):
        loop = np.stack([fn(a, i) for a, i in zip(x, idx)])
        with pytest.warns(ft.errors.PerformanceWarning):  # the rows' seeds split the batch
            out = ft.vmap(fn, randomness="different")(x, idx)
        np.testing.assert_array_equal(out, loop)
    assert np.array_equal(out[0], out[2]) and not np.array_equal(out[0], out[1])
    assert len(current_stack()) == 0


#: a module of the user's holding the generator (``import config; config.rng.normal(...)``)
cfg = types.ModuleType("round13_config")


class _NoisyLayer:
    rng = np.random.default_rng(0)  # a class attribute, as a torch module's generator

    def __call__(self, a):
        return self.forward(a)

    def forward(self, a):
        return a + self.rng.normal(size=a.shape)


def _module_noise(a):
    return a + cfg.rng.normal(size=a.shape)


def test_a_generator_held_by_a_class_or_a_module_follows_randomness():
    # the generator a class attribute or another module's attribute holds went unseen:
    # 'error' raised nothing, 'different' gave every row one draw, and jit replayed the
    # first call's "random" numbers at every call
    x = np.zeros((4, 3))
    for make, fn in (
        (lambda seed: setattr(_NoisyLayer, "rng", np.random.default_rng(seed)), _NoisyLayer()),
        (lambda seed: setattr(cfg, "rng", np.random.default_rng(seed)), _module_noise),
    ):
        make(1)
        with pytest.raises(ft.errors.RandomnessError, match="randomness='error'"):
            ft.vmap(fn)(x)
        make(2)
        out = ft.vmap(fn, randomness="different")(x)
        make(2)
        np.testing.assert_array_equal(out, np.stack([fn(row) for row in x]))  # the loop's draws
        make(3)  # rebound after the first use: the new generator is the one watched
        out = ft.vmap(fn, randomness="different")(x)
        assert len({tuple(row) for row in out}) == 4
        jitted = ft.jit(fn)
        with pytest.warns(RuntimeWarning, match="runs eagerly"):
            first = jitted(x[0])
        assert not np.array_equal(first, jitted(x[0]))
    assert len(current_stack()) == 0


@dataclasses.dataclass(slots=True)
class _State:  # a training state whose fields are slots (no __dict__)
    rng: np.random.Generator
    scale: float = 1.0


def test_a_generator_in_a_slots_object_follows_randomness():
    # only __dict__ fields were followed: a dataclass(slots=True) state's generator went
    # unseen ('error' raised nothing, 'different' gave every row one draw)
    x = np.zeros((4, 3))

    def noisy(a, state):
        return a + state.scale * state.rng.normal(size=3)

    closed = _State(np.random.default_rng(0))
    for call in (
        lambda r: ft.vmap(noisy, in_dims=(0, None), randomness=r)(
            x, _State(np.random.default_rng(0))
        ),
        lambda r: ft.vmap(lambda a: noisy(a, closed), randomness=r)(x),
    ):
        with pytest.raises(ft.errors.RandomnessError):
            call("error")
        closed.rng = np.random.default_rng(0)
        out = call("different")
        loop_rng = np.random.default_rng(0)
        np.testing.assert_array_equal(out, np.stack([a + loop_rng.normal(size=3) for a in x]))
    assert len(current_stack()) == 0


class _Dropoutish:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)


class _Model:
    def __init__(self, seed):
        self.blocks = {"noise": _Dropoutish(seed)}

    def forward(self, a):
        return a + self.blocks["noise"].rng.normal(size=a.shape)


def test_vmap_of_a_bound_method_watches_the_generators_its_object_holds():
    # torch.func users write vmap(model.forward): the bound method's object was searched
    # for generators one level deep only, so a submodule's generator went unseen
    x = np.zeros((4, 3))
    with pytest.raises(ft.errors.RandomnessError):
        ft.vmap(_Model(0).forward)(x)
    out = ft.vmap(_Model(1).forward, randomness="different")(x)
    model = _Model(1)
    np.testing.assert_array_equal(out, np.stack([model.forward(a) for a in x]))
    jitted = ft.jit(_Model(2).forward)
    with pytest.warns(RuntimeWarning, match="runs eagerly"):
        first = jitted(x[0])
    assert not np.array_equal(first, jitted(x[0]))
    assert len(current_stack()) == 0


class _Drop:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def __call__(self, a):
        return a + self.rng.normal(size=a.shape)


class _Layer:
    def __init__(self, seed):
        self.drop = _Drop(seed)
        self.weight = np.eye(3)

    def __call__(self, a):
        return self.drop(a @ self.weight)


class _Encoder:
    def __init__(self, seed):
        self.layers = [_Layer(seed), _Layer(seed + 1)]

    def __call__(self, a):
        for layer in self.layers:
            a = layer(a)
        return a


class _Net:
    def __init__(self, seed):
        self.encoder = _Encoder(seed)

    def forward(self, a):
        return self.encoder(a)


def test_a_generator_deep_in_a_model_follows_randomness():
    # net.encoder.layers[i].drop.rng, reached through a bound method or a lambda, was
    # deeper than the walk went: 'error' raised nothing, 'different' gave every row one
    # draw, and jit replayed the first call's numbers
    x = np.zeros((4, 3))
    for make in (lambda net: net.forward, lambda net: lambda a: net.forward(a)):
        with pytest.raises(ft.errors.RandomnessError):
            ft.vmap(make(_Net(0)))(x)
        out = ft.vmap(make(_Net(1)), randomness="different")(x)
        loop_net = _Net(1)
        np.testing.assert_array_equal(out, np.stack([loop_net.forward(a) for a in x]))
        jitted = ft.jit(make(_Net(2)))
        with pytest.warns(RuntimeWarning, match="runs eagerly"):
            first = jitted(x[0])
        assert not np.array_equal(first, jitted(x[0]))
    assert len(current_stack()) == 0
