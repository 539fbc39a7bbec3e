"""The primitive registry against the op database.

Every built-in primitive (declared under ``ftransforms/ops/``) has an implementation, a
derivative (JVP and VJP rules, a transpose, or ``nondiff``), a batching rule (no built-in
op may rely on the loop fallback) and an op-database entry that really binds it.  The
loop fallback itself works for user-defined primitives, warns once, and can be switched
off.
"""

from __future__ import annotations

import importlib
import itertools
import pkgutil
import uuid
import warnings

import numpy as np
import pytest

import batching_rules.elementwise
import ftransforms as ft
import ftransforms.ops
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.primitive import REGISTRY, Primitive, defop
from ftransforms.interpreters.batching import FALLBACK
from ftransforms.pytree import tree_flatten
from tests.op_db import BY_NAME, FNP, OPS, covered_primitives

# Load every op family (some, such as nn, are imported lazily by the library).
for _mod in pkgutil.iter_modules(ftransforms.ops.__path__):
    importlib.import_module(f"ftransforms.ops.{_mod.name}")
importlib.import_module("ftransforms.random")


def _module_of(prim: Primitive) -> str:
    return getattr(prim.impl, "__module__", "") or ""


def builtin_primitives() -> dict[str, Primitive]:
    """The primitives declared by the library (tests and users may register more): those
    whose implementation is defined in the ``ftransforms`` package."""
    return {n: p for n, p in REGISTRY.items() if _module_of(p).startswith("ftransforms.")}


def _file_of(prim: Primitive) -> str:
    return _module_of(prim).replace(".", "/") + ".py"


BUILTIN = sorted(builtin_primitives())


def test_the_builtin_set_is_the_library():
    # guards the filter above: it must see the core families and nothing from the tests
    names = set(BUILTIN)
    assert {"sin", "add", "reduce_sum", "getitem", "matmul", "einsum", "select"} <= names
    assert all(_file_of(REGISTRY[n]).startswith("ftransforms/") for n in names)
    assert not any(_file_of(REGISTRY[n]).startswith("ftransforms/testing") for n in names)


@pytest.mark.parametrize("name", BUILTIN)
def test_primitive_has_every_rule(name):
    prim = REGISTRY[name]
    where = _file_of(prim)
    assert callable(prim.impl), f"{name}: give impl= in its defop in {where}"
    if not prim.nondiff:
        has_rules = prim.jvp_rules is not None and prim.vjp_rules is not None
        assert has_rules or prim.transpose is not None, (
            f"{name}: no derivative: add jvp= and vjp= (or transpose= for an op linear in "
            f"its first argument, or nondiff=True) to its defop in {where}"
        )
    assert prim.batch is not None, (
        f"{name}: no batching rule, so vmap would run it as a Python loop: add batch= to "
        f"its defop in {where} (a family rule from batching_rules/, e.g. "
        f"batching_rules.elementwise.elementwise, or a new one there)"
    )


@pytest.mark.parametrize("name", BUILTIN)
def test_primitive_has_an_op_db_entry(name):
    covered = covered_primitives()
    assert name in covered, (
        f"{name} ({_file_of(REGISTRY[name])}) has no op-database entry: add an OpInfo to "
        f"tests/op_db.py that calls it through its ftransforms.numpy front end, with "
        f"prims=({name!r},), a sampler, and its jax.numpy equivalent in fn"
    )


# -- the entries' prims are honest ----------------------------------------------------------


class _Recorder:
    """Records the name of every primitive bound while active (patching Primitive.bind)."""

    def __init__(self, monkeypatch):
        self.names: set[str] = set()
        original = Primitive.bind

        def bind(prim, *args, **params):
            self.names.add(prim.name)
            return original(prim, *args, **params)

        monkeypatch.setattr(Primitive, "bind", bind)
        monkeypatch.setattr(Primitive, "__call__", bind)


def _operands(s):
    return [i for i, a in enumerate(s.args) if isinstance(a, np.ndarray)]


@pytest.mark.parametrize("name", [op.name for op in OPS])
def test_op_db_entry_binds_its_primitives(name, monkeypatch):
    """An entry's ``prims`` are bound by running it (forward, vmap, jvp, vjp) on its
    samples."""
    op = BY_NAME[name]
    rec = _Recorder(monkeypatch)
    for s in op.samples(op.dtypes[-1], 0):
        pos = _operands(s)

        def f(*operands, s=s, pos=pos):
            args = list(s.args)
            for i, a in zip(pos, operands):
                args[i] = a
            return op.call(FNP, tuple(args), s.kwargs)

        operands = [s.args[i] for i in pos]
        f(*operands)
        # operators and methods need tracers
        ft.vmap(f, randomness=op.randomness)(*[a[None] for a in operands])
        floats = [j for j, a in enumerate(operands) if a.dtype.kind == "f"]
        if not floats:
            continue

        def g(*fx, operands=operands, floats=floats, f=f):
            args = list(operands)
            for j, v in zip(floats, fx):
                args[j] = v
            return tuple(o for o in tree_flatten(f(*args))[0] if o.dtype.kind in "fc")

        fx = [operands[j] for j in floats]
        out, vjp_fn = ft.vjp(g, *fx)
        if out:
            vjp_fn(tuple(np.ones_like(o) for o in out))
            ft.jvp(g, tuple(fx), tuple(np.ones_like(x) for x in fx))
    missing = set(op.prims) - rec.names
    assert not missing, (
        f"op_db entry {name!r} says it covers {sorted(missing)}, but running it binds only "
        f"{sorted(rec.names)}; fix its prims= in tests/op_db.py"
    )


# -- the loop fallback ---------------------------------------------------------------------

_counter = itertools.count()


@pytest.fixture
def unbatched_cube():
    """A user primitive without a batching rule (removed from the registry afterwards)."""
    name = f"test_cube_without_batch_rule_{uuid.uuid4().hex[:8]}_{next(_counter)}"
    prim = defop(
        name,
        lambda xp, x: x * x * x,
        jvp=(lambda x_dot, y, x: 3 * x * x * x_dot,),
        vjp=(lambda y_bar, y, x: 3 * x * x * y_bar,),
    )
    try:
        yield prim
    finally:
        REGISTRY.pop(name, None)
        FALLBACK["warned"].discard(name)


def test_loop_fallback_computes_and_warns_once(unbatched_cube):
    x = np.arange(6.0).reshape(3, 2)
    assert FALLBACK["enabled"], "the fallback is on by default"
    with pytest.warns(RuntimeWarning, match=f"{unbatched_cube.name}.*no batching rule"):
        out = ft.vmap(unbatched_cube)(x)
    np.testing.assert_array_equal(out, x**3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a second warning would raise here
        out = ft.vmap(unbatched_cube, in_dims=1)(x)
        np.testing.assert_array_equal(out, (x**3).T)
        # and the loop composes with differentiation
        g = ft.vmap(ft.grad(lambda v: unbatched_cube(v).sum()))(x)
        np.testing.assert_allclose(g, 3 * x**2)


def test_loop_fallback_can_be_switched_off(unbatched_cube):
    saved = FALLBACK["enabled"]
    FALLBACK["enabled"] = False
    try:
        with pytest.raises(UnsupportedOperationError, match=unbatched_cube.name):
            ft.vmap(unbatched_cube)(np.ones((2, 3)))
    finally:
        FALLBACK["enabled"] = saved
    # back on: works again
    with pytest.warns(RuntimeWarning):
        np.testing.assert_array_equal(ft.vmap(unbatched_cube)(np.ones((2, 3))), np.ones((2, 3)))


def test_primitive_with_a_batch_rule_never_uses_the_fallback():
    name = f"test_cube_with_rule_{uuid.uuid4().hex[:8]}"
    prim = defop(
        name,
        lambda xp, x: x * x * x,
        jvp=(lambda x_dot, y, x: 3 * x * x * x_dot,),
        vjp=(lambda y_bar, y, x: 3 * x * x * y_bar,),
        batch=batching_rules.elementwise.elementwise,
    )
    saved = FALLBACK["enabled"]
    FALLBACK["enabled"] = False
    try:
        np.testing.assert_array_equal(ft.vmap(prim)(np.arange(3.0)), np.arange(3.0) ** 3)
    finally:
        FALLBACK["enabled"] = saved
        REGISTRY.pop(name, None)
