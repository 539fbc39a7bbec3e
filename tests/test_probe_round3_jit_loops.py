"""Probe round 3: ``ft.jit`` called many times in a loop, as users run it (training
loops, simulations), each call compared with the eager function on the same inputs,
with the compiled tier forced on (``jit(f).compile()``, NOTE [compiled tier])."""

from __future__ import annotations

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.compiled import tier

needs_numba = pytest.mark.skipif(not tier.available(), reason="the optional compiler (numba)")


@pytest.fixture(autouse=True)
def _cache_in_tmp(tmp_path_factory, monkeypatch):
    from ftransforms.compiled import cache

    folder = tmp_path_factory.getbasetemp() / "ftcache"
    monkeypatch.setenv("FTRANSFORMS_CACHE_DIR", str(folder))
    monkeypatch.setattr(cache, "_DIR", None)


def _compiled(f, *args):
    jf = ft.jit(f, compile=False)
    jf(*args)
    assert jf.compile() == 1
    assert [p.tier for p in jf.cache.values()] == ["compiled"]
    return jf


@needs_numba
def test_maximum_minimum_of_signed_zeros_match_numpy():
    # np.maximum(-0.0, 0.0) is 0.0 (a ReLU of -0.0 is +0.0) and np.minimum(0.0, -0.0) is
    # -0.0 (on x86-64 NumPy gives the second operand where the two compare equal; these
    # two cases agree on every platform); 1/x tells the zeros apart.
    def f(x, y):
        return np.maximum(x * 1.0, y), np.minimum(-x, -y) + 0.0 * x, np.maximum(x, 0.0) - 0.0

    x = np.array([-0.0, -0.0, np.nan, 1.0, 2.0, -3.0])
    y = np.array([0.0, 0.0, 1.0, np.nan, 1.0, -2.0])
    jf = _compiled(f, x, y)
    for _ in range(3):
        for got, want in zip(jf(x, y), f(x, y)):
            np.testing.assert_array_equal(got, want)
            zero = want == 0  # the sign of a NaN is not NumPy's contract
            np.testing.assert_array_equal(np.signbit(got[zero]), np.signbit(want[zero]))


@needs_numba
def test_infinite_and_nan_constants_compile():
    # a constant inf or nan in a fused group (np.nan_to_num's, a masked max's -inf) was
    # written into the kernel's source as ``inf``, a name numba does not know: the
    # program stayed on the replay
    def f(x):
        return np.minimum(x * 2.0 + 1.0, np.inf) - np.maximum(x, -np.inf), np.maximum(x, np.nan)

    x = np.array([1.0, -2.0, 3.0, 0.5])
    jf = _compiled(f, x)
    for _ in range(3):
        for got, want in zip(jf(x), f(x)):
            np.testing.assert_array_equal(got, want)


def _loop(f, update, n=6):
    jf = ft.jit(f, compile=False)
    x = np.arange(4.0)
    for _ in range(n):
        np.testing.assert_array_equal(jf(x), f(x))
        update()


def test_partial_keyword_array_updated_in_place():
    # jit(functools.partial(f, w=P)), P updated in place between calls: the recording
    # folded x * P (P all ones) into x
    import functools

    def g(x, w, b):
        return x * w + b

    P, B = np.ones(4), np.zeros(4)

    def update():
        P[...] += 1.0
        B[...] += 1.0

    _loop(functools.partial(g, P, b=B), update)  # noqa: B023 - P and B change in place


def test_default_argument_array_updated_in_place():
    def h(x, w=np.ones(4), *, b=np.zeros(4)):  # noqa: B008 - the point
        return x * w + b

    def update():
        h.__defaults__[0][...] += 1.0
        h.__kwdefaults__["b"][...] += 1.0

    _loop(h, update)


class _Config:
    k = 2.0


def test_class_attribute_and_namespace_field_rebound():
    import types

    cfg = types.SimpleNamespace(lr=0.5)

    def f(x):
        return x * _Config.k - cfg.lr

    def update():
        _Config.k += 1.0
        cfg.lr = cfg.lr * 2

    try:
        _loop(f, update)
    finally:
        _Config.k = 2.0
