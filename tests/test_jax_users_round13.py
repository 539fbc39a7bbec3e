"""JAX users' programs, round 13 (``import ftransforms as jax``), each compared with JAX
itself (x64).  Each test failed before the change it names:

* ``arcsin``/``arccos``'s derivatives at ``x = +-1`` are ``+inf``/``-inf``, JAX's one-sided
  limits (the signs were flipped: ``1/sqrt(-0.0)``, a silent wrong answer), and so are the
  second derivatives' signs;
* ``lax.convert_element_type`` from a float to an integer type saturates as JAX's (XLA's)
  does: out-of-range values become the type's bounds, NaN becomes 0 (NumPy's cast wrapped
  ``256.0`` to ``0`` for ``uint8``: a silent wrong answer in quantization code);
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


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.uint32, np.int64, np.uint64])
@pytest.mark.parametrize("src", [np.float64, np.float32])
def test_lax_convert_element_type_saturates_floats_like_jax(dtype, src):
    # image quantization: lax.convert_element_type(x * 255, uint8) with x slightly out of
    # [0, 1]; NumPy's astype wrapped 256.0 to 0 and NaN/inf to arbitrary values
    x = np.array([1.7, -1.7, 256.4, -0.9, 3e10, -3e10, np.nan, np.inf, -np.inf, 2.0**63], src)
    want = np.asarray(jax.lax.convert_element_type(x, dtype))
    for got in [
        ft.lax.convert_element_type(x, dtype),
        ft.jit(lambda v: ft.lax.convert_element_type(v, dtype))(x),
        ft.vmap(lambda v: ft.lax.convert_element_type(v, dtype))(x),
    ]:
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
