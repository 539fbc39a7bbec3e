"""Round 14 probes of custom derivative rules and checkpoint, against JAX."""

import numpy as np
import pytest

import ftransforms as ft
import ftransforms.numpy as fnp
from tests.tolerances import assert_tree_close, tol

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
jax.config.update("jax_enable_x64", True)


def _block(xp):
    def f(a, b, n):
        for _ in range(n):
            a = xp.sin(a) * b + a**2
        return {"o": a, "s": (a * b).sum()}

    return f


def test_hessian_of_checkpoint_after_jax_ran_is_not_a_randomness_error():
    """The walk for generators the function holds went into this library's own functions'
    globals (jacfwd's _map_basis -> held_generators -> its _HELD cache) and found the
    generator cached for another function: hessian raised RandomnessError."""
    x, y = np.linspace(0.1, 1, 4), np.linspace(1, 2, 4)
    jf = jax.checkpoint(_block(jnp), static_argnums=(2,))
    want = jax.hessian(lambda a, b: jf(a, b, 2)["s"], (0, 1))(x, y)
    jax.grad(lambda a, b: jf(a, b, 2)["s"], (0, 1))(x, y)
    f = ft.checkpoint(_block(fnp), static_argnums=(2,))
    got = ft.hessian(lambda a, b: f(a, b, 2)["s"], (0, 1))(x, y)
    assert_tree_close(got, jax.tree_util.tree_map(np.asarray, want), **tol(np.float64))


@pytest.mark.parametrize("lib", [ft, jax])
def test_defjvps_with_nondiff_argnums_is_refused_as_in_jax(lib):
    """Its JVP functions were called without the non-differentiated arguments: a JVP
    function written to take them failed at the call with a missing-argument TypeError."""
    f = lib.custom_jvp(lambda x, k: x * k, nondiff_argnums=(1,))
    with pytest.raises(TypeError, match="defjvps"):
        f.defjvps(lambda t, ans, x, k: t * k)


def _sin_doubled_under_vmap(lib, xp):
    @lib.custom_batching.custom_vmap
    def f(x):
        return xp.sin(x)

    @f.def_vmap
    def rule(axis_size, in_batched, x):
        return xp.sin(x) * 2.0, in_batched[0]

    return f


_X = np.linspace(0.1, 1.0, 4)
_Y = np.linspace(1.0, 2.0, 4)
_JVP_OF_CUSTOM_VMAP = {
    "jacfwd": lambda lib, f: lib.jacfwd(f)(_X),
    "vmap_of_jvp": lambda lib, f: lib.vmap(lambda a, t: lib.jvp(f, (a,), (t,)))(_X, _Y),
    "vmap_over_tangents": lambda lib, f: lib.vmap(lambda t: lib.jvp(f, (_X,), (t,))[1])(
        np.stack([_X, _Y])
    ),
    "vmap_of_jacfwd": lambda lib, f: lib.vmap(lib.jacfwd(f))(np.stack([_X, _Y])),
    "jvp_of_vmap": lambda lib, f: lib.jvp(lib.vmap(f), (_X,), (_Y,)),
}


@pytest.mark.parametrize("case", sorted(_JVP_OF_CUSTOM_VMAP))
def test_jvp_of_custom_vmap_batches_through_the_rule_as_jax(case):
    """vmap(jvp(f)) and jacfwd(f) ran f's body (sin, cos) where JAX batches the jvp of
    the rule (2 sin, 2 cos): a silent factor of 2."""
    run = _JVP_OF_CUSTOM_VMAP[case]
    got = run(ft, _sin_doubled_under_vmap(ft, fnp))
    want = run(jax, _sin_doubled_under_vmap(jax, jnp))
    assert_tree_close(got, jax.tree_util.tree_map(np.asarray, want), **tol(np.float64))
