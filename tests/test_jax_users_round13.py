"""JAX users' programs, round 13 (``import ftransforms as jax``), each compared with JAX
itself (x64).  Each test failed before the change it names:

* ``arcsin``/``arccos``'s derivatives at ``x = +-1`` are ``+inf``/``-inf``, JAX's one-sided
  limits (the signs were flipped: ``1/sqrt(-0.0)``, a silent wrong answer), and so are the
  second derivatives' signs;
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ftransforms as ft
import ftransforms.numpy as fnp

jax.config.update("jax_enable_x64", True)


@pytest.mark.parametrize("name", ["arcsin", "arccos"])
@pytest.mark.parametrize("x", [1.0, -1.0])
def test_arcsin_arccos_derivatives_at_the_ends_have_jax_signs(name, x):
    f, jf = getattr(fnp, name), getattr(jnp, name)
    for ours, theirs in [
        (ft.grad(f), jax.grad(jf)),
        (ft.grad(ft.grad(f)), jax.grad(jax.grad(jf))),
    ]:
        with np.errstate(divide="ignore", invalid="ignore"):
            got = float(ours(x))
        assert got == float(theirs(x))
    # the same values through jvp, on an array with the interior too
    xs = np.array([x, 0.5 * x])
    with np.errstate(divide="ignore"):
        _, t = ft.jvp(f, (xs,), (np.ones(2),))
    np.testing.assert_allclose(t, jax.jvp(jf, (xs,), (jnp.ones(2),))[1], rtol=1e-12)
