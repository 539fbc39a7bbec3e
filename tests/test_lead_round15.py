"""The lead's round-15 checks: what jit's guard walk follows in a function's globals."""

from __future__ import annotations

import types

import numpy as np

import ftransforms as ft

# A module that holds a registry and a function of the same name as a method the jitted
# code calls (``ns.add(x)``): the code never reads the global ``add``.
REGISTRY: list = []


def add(entry):
    REGISTRY.append(entry)
    return entry


for _k in range(300):
    add(types.SimpleNamespace(name=f"op{_k}", fields=list(range(20))))

SCALE = 2.0
FACTOR = 3.0


def test_an_attribute_named_as_a_global_does_not_walk_that_global():
    ns = types.SimpleNamespace(add=lambda x: x + 1.0)

    def f(x):
        return ns.add(x) * 2.0

    jf = ft.jit(f)
    x = np.arange(3.0)
    np.testing.assert_allclose(jf(x), f(x))
    (program,) = jf.cache.values()
    held = [c for c in program.guards.checks if c[0] is REGISTRY]
    fields = [c for c in program.guards.checks if any(c[0] is vars(e) for e in REGISTRY[:5])]
    assert not held and not fields, (held[:3], fields[:3])
    assert len(program.guards.checks) < 50, len(program.guards.checks)
    ns.add = lambda x: x - 1.0  # the object the code does read is still guarded
    np.testing.assert_allclose(jf(x), (x - 1.0) * 2.0)


def test_globals_read_as_globals_or_by_string_are_still_guarded():
    global SCALE, FACTOR

    def f(x):
        return x * SCALE + globals()["FACTOR"]

    jf = ft.jit(f)
    x = np.arange(3.0)
    try:
        np.testing.assert_allclose(jf(x), x * 2.0 + 3.0)
        SCALE, FACTOR = 5.0, 7.0
        np.testing.assert_allclose(jf(x), x * 5.0 + 7.0)
    finally:
        SCALE, FACTOR = 2.0, 3.0


class _Checked:
    """A pytree node of the user's whose constructor accepts arrays only."""

    def __init__(self, w, b):
        if not hasattr(w, "shape"):
            raise TypeError("arrays only")
        self.w, self.b = w, b


ft.tree_util.register_pytree_node(
    _Checked, lambda c: ((c.w, c.b), None), lambda aux, children: _Checked(*children)
)


def test_in_and_out_dims_prefixes_over_a_node_whose_rebuild_checks_its_children():
    p = _Checked(np.ones((3, 2)), np.arange(3.0))
    X = np.arange(8.0).reshape(4, 2)

    def f(x, p):
        return p.w @ x + p.b, p

    y, q = ft.vmap(f, in_dims=(0, None), out_dims=(0, None))(X, p)
    np.testing.assert_allclose(y, np.stack([f(x, p)[0] for x in X]))
    assert type(q) is _Checked
