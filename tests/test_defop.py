"""Declaring primitives: families, registration from the batching side, re-declaration."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.core.primitive import (
    REGISTRY,
    defop,
    prims,
    register_batch_rule,
    register_family_batch_rule,
)
from ftransforms.interpreters.batching import FALLBACK


@pytest.fixture
def no_fallback():
    before = FALLBACK["enabled"]
    FALLBACK["enabled"] = False
    try:
        yield
    finally:
        FALLBACK["enabled"] = before


def _cube(name, **kw):
    return defop(
        name,
        lambda xp, x: x * x * x,
        jvp=(lambda x_dot, y, x: x_dot * 3 * x * x,),
        vjp=(lambda y_bar, y, x: y_bar * 3 * x * x,),
        **kw,
    )


def test_family_gives_the_batching_rule(no_fallback):
    cube_p = _cube("test_defop_cube", family="elementwise")
    try:
        x = np.arange(6.0).reshape(2, 3)
        out = ft.vmap(ft.grad(lambda v: cube_p.bind(v).sum()), in_dims=1)(x)
        np.testing.assert_allclose(out, 3 * x.T**2)
        assert prims.test_defop_cube is cube_p
    finally:
        REGISTRY.pop("test_defop_cube")


def test_family_rule_registered_later_reaches_earlier_declarations(no_fallback):
    cube_p = _cube("test_defop_late_family", family="test_family")
    try:
        with pytest.raises(ft.errors.UnsupportedOperationError, match="register"):
            ft.vmap(cube_p.bind)(np.ones(3))

        def rule(prim, args, x_bdims, axis_size, **params):
            return prim.bind(*args, **params), x_bdims[0]

        register_family_batch_rule("test_family", rule)
        np.testing.assert_allclose(ft.vmap(cube_p.bind)(np.full(3, 2.0)), np.full(3, 8.0))
        later = _cube("test_defop_later", family="test_family")
        assert later.batch is rule
    finally:
        REGISTRY.pop("test_defop_late_family")
        REGISTRY.pop("test_defop_later", None)


def test_register_batch_rule_for_one_primitive(no_fallback):
    cube_p = _cube("test_defop_specific")
    try:
        calls = []

        def rule(prim, args, x_bdims, axis_size, **params):
            calls.append(x_bdims)
            return prim.bind(*args, **params), x_bdims[0]

        register_batch_rule(cube_p, rule)
        np.testing.assert_allclose(ft.vmap(cube_p.bind)(np.full(2, 3.0)), np.full(2, 27.0))
        assert calls == [[0]]
        with pytest.raises(TypeError, match="callable"):
            register_batch_rule(cube_p, "not a rule")
    finally:
        REGISTRY.pop("test_defop_specific")


def test_redeclaring_a_name_warns_and_replaces():
    first = _cube("test_defop_rerun", family="elementwise")
    try:
        with pytest.warns(RuntimeWarning, match="already declared; the new declaration"):
            second = defop(
                "test_defop_rerun",
                lambda xp, x: 2 * x,
                transpose=lambda y_bar, x: 2 * y_bar,
                family="elementwise",
            )
        assert REGISTRY["test_defop_rerun"] is second is prims.test_defop_rerun
        assert second is not first
        assert float(ft.grad(second.bind)(1.0)) == 2.0
    finally:
        REGISTRY.pop("test_defop_rerun")


def test_builtin_elementwise_ops_name_their_ufunc():
    assert REGISTRY["sin"].ufunc is np.sin
    assert REGISTRY["abs"].ufunc is np.absolute
    assert REGISTRY["add"].ufunc is np.add
    assert REGISTRY["select"].ufunc is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for prim in REGISTRY.values():
            if prim.ufunc is not None:
                assert isinstance(prim.ufunc, np.ufunc), prim.name
