"""Round 15: torch.func and HIPS autograd users porting to ftransforms.

- ``ftransforms.builtins.isinstance``/``type`` see through tracers as autograd's
  ``autograd.builtins`` see through its boxes (``isinstance(getval(x), cls)``): a port of
  ``from autograd.builtins import isinstance`` branching on ``isinstance(x, np.ndarray)``
  took the other branch inside ``grad``/``vmap`` (Python's ``isinstance`` of a tracer).
"""

from __future__ import annotations

import numpy as np

import ftransforms as ft
from ftransforms.builtins import isinstance as ag_isinstance
from ftransforms.builtins import type as ag_type
from tests.program_oracles import fd_jacobian
from tests.tolerances import fd_tol


def _energy(x):
    # autograd-era code: an array argument is reduced, a scalar one is squared
    if ag_isinstance(x, np.ndarray):
        return np.sum(x**3)
    return x**2


def test_autograd_builtins_isinstance_sees_through_tracers() -> None:
    x = np.array([0.5, -1.0, 2.0])
    g = ft.grad(_energy)(x)
    np.testing.assert_allclose(g, fd_jacobian(_energy, (x,)), **fd_tol(x))
    rows = np.array([[1.0, 2.0], [3.0, -1.0]])
    per_row = ft.vmap(ft.grad(_energy))(rows)
    loop = np.stack([fd_jacobian(_energy, (r,)) for r in rows])
    np.testing.assert_allclose(per_row, loop, **fd_tol(rows))
    assert ft.jit(lambda x: np.float64(ag_type(x) is np.ndarray))(x) == 1.0
    assert ag_isinstance(3.0, float) and ag_type(3) is int  # plain values: Python's
