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
