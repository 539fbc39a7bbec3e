"""Probe round 5: a NumPy random generator passed to a jitted function as an ARGUMENT
(``step(x, rng)``, ``jit(f, static_argnums=1)``, ``f(x, rng=rng)``, inside a dict).  Eagerly
each call draws new numbers (the generator's state moves on).  ``jit`` watched only the
generators the function reaches through globals and closures, so the draw of the
recording was replayed as a constant: the same "random" numbers on every call, silently.
A generator among the arguments is watched too now (NOTE [NumPy random draws under
jit]): that signature runs eagerly, drawing afresh.  Oracle: the eager function with an
identically seeded generator."""

import warnings

import numpy as np
import pytest

import ftransforms as ft

X = np.array([1.0, -2.0, 0.5])


def noisy(x, rng):
    return x + rng.normal(size=3)


def noisy_kw(x, *, rng):
    return x * rng.uniform()


def noisy_in_dict(x, state):
    return x + state["rng"].standard_normal(3) * state["scale"]


CASES = [
    (noisy, {}, lambda rng: ((X, rng), {})),
    (noisy, {"static_argnums": 1}, lambda rng: ((X, rng), {})),
    (noisy_kw, {}, lambda rng: ((X,), {"rng": rng})),
    (noisy_in_dict, {}, lambda rng: ((X, {"rng": rng, "scale": 2.0}), {})),
]


@pytest.mark.parametrize("make", [np.random.default_rng, np.random.RandomState])
@pytest.mark.parametrize("f, options, call", CASES)
def test_a_generator_argument_draws_afresh_on_every_call(make, f, options, call):
    jf = ft.jit(f, **options)
    rng_jit, rng_eager = make(0), make(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # "the trace depends on data"
        for _ in range(3):
            args, kwargs = call(rng_jit)
            eargs, ekwargs = call(rng_eager)
            np.testing.assert_array_equal(jf(*args, **kwargs), f(*eargs, **ekwargs))


def test_a_generator_argument_under_jit_of_vmap_draws_per_call():
    jf = ft.jit(ft.vmap(noisy, in_dims=(0, None), randomness="different"))
    rng = np.random.default_rng(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        first = jf(np.ones((2, 3)), rng)
        second = jf(np.ones((2, 3)), rng)
    assert not np.allclose(first, second)


def test_python_random_module_draws_are_not_replayed():
    import random

    def dropout_like(x):
        return x * (2.0 if random.random() < 0.5 else 0.0)

    def gaussian_from_instance(x, r):
        return x * r.gauss(0.0, 1.0)

    jf, jg = ft.jit(dropout_like), ft.jit(gaussian_from_instance)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        random.seed(3)
        got = [jf(X) for _ in range(12)]
        random.seed(3)
        ref = [dropout_like(X) for _ in range(12)]
        np.testing.assert_array_equal(got, ref)
        r_jit, r_eager = random.Random(1), random.Random(1)
        for _ in range(3):
            np.testing.assert_array_equal(jg(X, r_jit), gaussian_from_instance(X, r_eager))


def test_python_random_under_vmap_follows_randomness():
    import random

    def f(x):
        return x * random.random()

    with pytest.raises(ft.errors.RandomnessError, match="random"):
        ft.vmap(f)(np.ones((3, 2)))  # randomness='error' (the default)
    random.seed(0)
    got = ft.vmap(f, randomness="different")(np.ones((3, 2)))
    random.seed(0)
    ref = np.stack([f(row) for row in np.ones((3, 2))])  # the loop over the rows
    np.testing.assert_array_equal(got, ref)
    same = ft.vmap(f, randomness="same")(np.ones((3, 2)))
    assert np.all(same == same[0, 0])
