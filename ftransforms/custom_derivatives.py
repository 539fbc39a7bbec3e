"""``jax.custom_derivatives`` under its JAX name: the custom-rule decorators and the values
their rules see (``SymbolicZero``, ``CustomVJPPrimal``), for code written against that
module (``jax.custom_derivatives.SymbolicZero``).  Each name is documented where it lives
(``ftransforms.custom``, ``ftransforms.closures``, ``ftransforms.custom_gradient``).

Example:
    >>> import ftransforms as ft
    >>> from ftransforms import custom_derivatives
    >>> custom_derivatives.custom_jvp is ft.custom_jvp
    True
    >>> custom_derivatives.zero_from_primal(1.5, symbolic_zeros=True)
    SymbolicZero(shape=(), dtype=float64)
"""

from __future__ import annotations

from typing import Any

from ftransforms.arguments import float0_zeros
from ftransforms.closures import closure_convert
from ftransforms.custom import CustomVJPPrimal, SymbolicZero, custom_jvp, custom_vjp
from ftransforms.custom_gradient import custom_gradient
from ftransforms.pytree import tree_map

__all__ = [
    "CustomVJPPrimal",
    "SymbolicZero",
    "closure_convert",
    "custom_gradient",
    "custom_jvp",
    "custom_vjp",
    "zero_from_primal",
]


def zero_from_primal(x: Any, symbolic_zeros: bool = False) -> Any:
    """The zero tangent of the pytree ``x``: a :class:`SymbolicZero` per leaf with
    ``symbolic_zeros=True``, else zero arrays (JAX's ``float0`` for integer/bool leaves).

    Example:
        >>> import numpy as np
        >>> from ftransforms.custom_derivatives import zero_from_primal
        >>> zero_from_primal({"w": np.ones(2)})
        {'w': array([0., 0.])}
    """
    if symbolic_zeros:
        return tree_map(SymbolicZero.from_primal_value, x)
    return tree_map(float0_zeros, x)
