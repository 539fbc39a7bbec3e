"""Round 14, the lead's checks: NOTE [constants the tape keeps] for large plain arrays
(kept read-only while the transform runs instead of copied)."""

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.errors import InPlaceError
from tests.tolerances import assert_tree_close, tol

BIG = (300, 100)  # 240 KB: over the 64 KiB the tape copies


def _data(shape=BIG):
    return np.random.default_rng(0).normal(size=shape)


def test_a_large_closed_over_array_read_then_written_raises_and_is_left_as_it_was():
    X = _data()
    X0 = X.copy()

    def f(w):
        y = X @ w
        X[:] = 0.0  # NumPy would zero X; the derivative needs the X the product read
        return (y**2).sum()

    with pytest.raises(InPlaceError, match="b = b.copy"):
        ft.grad(f)(np.ones(BIG[1]))
    assert X.flags.writeable and np.array_equal(X, X0)


@pytest.mark.parametrize("transform", ["grad", "vjp", "jacrev", "hessian", "jit_grad"])
def test_a_large_closed_over_array_is_read_as_it_is_and_stays_writeable(transform):
    X = _data()
    V = X[:, :40]  # a view of it, read too: both locked, both unlocked after
    w = np.linspace(-1, 1, BIG[1])

    def f(w):
        return ((X @ w) ** 2).sum() + (V @ w[:40]).sum()

    want = 2 * X.T @ (X @ w)
    want[:40] += V.sum(0)
    if transform == "grad":
        got = ft.grad(f)(w)
    elif transform == "vjp":
        out, pullback = ft.vjp(f, w)
        (got,) = pullback(np.float64(1.0))
    elif transform == "jacrev":
        got = ft.jacrev(f)(w)
    elif transform == "hessian":
        want = 2 * X.T @ X  # (the view's term is linear)
        got = ft.hessian(f)(w)
    else:
        jf = ft.jit(ft.grad(f))
        jf(w)
        got = jf(w)
    assert_tree_close(got, want, **tol(np.float64))
    assert X.flags.writeable and V.flags.writeable
    X[0, 0] = 5.0  # and writes after the call work
    assert V[0, 0] == 5.0


def test_a_large_array_added_then_written_is_fine():
    B = _data((200, 50))

    def f(x):
        y = x + B  # add's derivative reads only x: B is kept as it is, not locked
        B[:] = 1.0
        return (y * y).sum()

    x = np.zeros((200, 50))
    want = 2 * (x + _data((200, 50)))
    assert_tree_close(ft.grad(f)(x), want, **tol(np.float64))
    assert np.all(B == 1.0)


def test_an_error_in_the_function_unlocks_the_arrays():
    X = _data()

    def f(w):
        _ = X @ w
        raise KeyError("user")

    with pytest.raises(KeyError):
        ft.grad(f)(np.ones(BIG[1]))
    assert X.flags.writeable
    X[0, 0] = 1.0


def test_a_read_only_error_of_the_users_own_array_stays_numpys_when_nothing_was_locked():
    frozen = np.ones(3)
    frozen.flags.writeable = False

    def f(x):
        frozen[0] = 2.0
        return (x * 2.0).sum()

    with pytest.raises(ValueError, match="read-only") as info:
        ft.grad(f)(np.ones(3))
    assert not isinstance(info.value, InPlaceError)


@pytest.mark.parametrize("n, k", [(2.0, 3.0), (1.0, 3.0), (0.0, 2.0), (2.5, 3.0), (5.0, 2.0)])
def test_binom_derivatives_where_n_minus_k_plus_1_is_a_pole_of_gamma(n, k):
    """binom(2, 3) = 0 (n - k + 1 = 0): its partials were 0 * digamma(0) = NaN (round-14
    SciPy probe); against central differences, to second order."""
    import scipy.special as sc

    def fd(f, x, h=1e-5):
        return (f(x + h) - f(x - h)) / (2 * h), (f(x + h) - 2 * f(x) + f(x - h)) / h**2

    for f, x in ((lambda v: sc.binom(v, k), n), (lambda v: sc.binom(n, v), k)):
        d1, d2 = fd(f, x)
        np.testing.assert_allclose(ft.grad(f)(x), d1, rtol=1e-7, atol=1e-9)
        np.testing.assert_allclose(ft.hessian(f)(x), d2, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(ft.jit(ft.grad(f))(x), d1, rtol=1e-7, atol=1e-9)


_AFTER_A_GLOBAL_DRAW = """
import numpy as np, ftransforms as ft
np.random.rand(700)  # NumPy's global generator moved before the transform
f = ft.hessian(lambda x: np.sum(np.tanh(x[:3] * x[1:]) ** 2) + np.sum(x**2) ** 2)
print(f(np.ones(4))[0, 0])
"""


@pytest.mark.parametrize("hash_seed", ["1", "2"])
def test_hessian_after_numpys_global_generator_drew_raises_no_randomness_error(hash_seed):
    """Merged round 14: the global RandomState's bit generator, met by a walk through its
    owner, was taken for a generator made during the call and set to its state as made:
    RandomnessError from hessian's vmap in a process that had drawn from np.random (which
    walk met it first depended on the hash seed)."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    done = subprocess.run(
        [sys.executable, "-c", _AFTER_A_GLOBAL_DRAW], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]
