"""JAX's ``jax.custom_derivatives`` module, for code ported from JAX that imports from it
(``from jax.custom_derivatives import custom_jvp, SymbolicZero``): the same objects as
``ftransforms.custom_jvp`` and its companions.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.custom_derivatives import custom_jvp
    >>> custom_jvp is ft.custom_jvp
    True
"""

from ftransforms.closures import closure_convert
from ftransforms.custom import CustomVJPPrimal, SymbolicZero, custom_jvp, custom_vjp
from ftransforms.custom_gradient import custom_gradient

__all__ = [
    "CustomVJPPrimal",
    "SymbolicZero",
    "closure_convert",
    "custom_gradient",
    "custom_jvp",
    "custom_vjp",
]
