"""Round 12, the lead's checks of the merged branches' interplay.

* The derivative rules run under NumPy's ``all='ignore'`` (NOTE [floating-point warnings
  of derivatives]), and ``jit`` replays operations recorded under a setting made inside
  the function in a ``with`` block that the compiled tier and the rewrites skip (NOTE
  [error handling set inside under jit]): the derivatives' own setting must not count as
  one made inside, or every backward operation of ``jit(grad(f))`` would leave the fast
  paths.  Oracle: the recorded program's primitive names, and eager values.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ftransforms as ft


def _names(jitted) -> list[str]:
    (entry,) = jitted.cache.values()
    program = getattr(entry, "program", entry)
    return [e.prim.name for e in program.eqns]


X = np.array([[0.5, 2.0], [1.5, 3.0]])


@pytest.mark.parametrize(
    "make, x",
    [
        (lambda: ft.grad(lambda x: np.sum(np.sqrt(x) * np.log(x))), X[0]),
        (lambda: ft.vmap(ft.jacfwd(lambda x: np.sin(x) * x)), X),
        (lambda: ft.hessian(lambda x: np.sum(np.tanh(x) ** 2)), X[1]),
    ],
    ids=["grad", "vmap-jacfwd", "hessian"],
)
def test_derivatives_are_recorded_as_plain_operations(make, x):
    f = ft.jit(make())
    want = make()(x)
    got1, got2 = f(x), f(x)
    names = _names(f)
    assert not [n for n in names if n.endswith("@inside")], names
    np.testing.assert_allclose(got1, want, rtol=1e-13)
    np.testing.assert_allclose(got2, want, rtol=1e-13)


def test_an_errstate_set_inside_still_replays_inside_around_derivatives():
    """The user's own setting inside the function keeps its meaning (jit12's NOTE)."""

    def loss(x):
        with np.errstate(divide="ignore"):
            y = np.log(x)
        return np.sum(np.where(np.isfinite(y), y, 0.0) * x)

    f = ft.jit(ft.grad(loss))
    x = np.array([0.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = [f(x), f(x)]
    want = ft.grad(loss)(x)
    for g in got:
        np.testing.assert_allclose(g, want)
    assert any(n.endswith("@inside") for n in _names(f))


def test_the_strict_stand_in_refuses_sequences_in_ufuncs_as_cupy():
    """CuPy's ufuncs (and ``cupy.where``, one of them) raise ``TypeError: Unsupported type
    <class 'tuple'>`` for a tuple operand where NumPy converts it; the H200 run caught
    odeint's ``xp.where(mask, (c0, c1, ...), coeffs)`` that the stand-in had let through."""
    from ftransforms import strict_backend as sb

    a = sb.asarray(np.ones(3))
    with pytest.raises(TypeError, match="Unsupported type"):
        sb.xp.where(a > 0, (a, a), a)
    with pytest.raises(TypeError, match="Unsupported type"):
        sb.xp.add([1.0, 2.0, 3.0], a)
    np.testing.assert_array_equal(sb.to_numpy(sb.xp.where(a > 0, a, 0.0)), np.ones(3))
